//! Piskvork's PSQ game records, read and written.
//!
//! A PSQ file looks like this:
//!
//! ```text
//! Piskvorky 20x20, 11:11, 0
//! 10,10,0
//! 11,9,1520
//! 9,11,312
//! -1
//! caro k=5 rule=freestyle first=black
//! ```
//!
//! - The header holds the board as `{width}x{height}` (width = columns),
//!   each side from 3 to 60. The rest of the header is ignored.
//! - Then one move per line, `x,y,ms`: `x` the column from the left and `y`
//!   the row from the top, both **1-based**, and `ms` the thinking time in
//!   milliseconds (`x,y` without a time is accepted too). Moves alternate
//!   colours, starting with black (or with the `first` colour of the caro
//!   line below).
//! - The move list ends at the first line that is not a move; Piskvork
//!   writes `-1` there, sometimes after the names of the engines.
//! - caro writes one more line after the `-1`, `caro k=5 rule=renju
//!   first=black`, so that win length, rule and first player survive a round
//!   trip. Without it a file reads as freestyle, black first, with the usual
//!   win length for the board ([`Rules::default_k`]).
//! - A game that began with a swap or renju opening (`swap1`, `swap2`,
//!   `soosorvN`, `taraguchi10`) has one more line,
//!   `opening=soosorv8 choices=offers-2,take-white offers=h9,g7`: the
//!   opening's name, the decisions taken during it in order
//!   ([`Choice`] names, comma-separated, empty when none) and the 5th
//!   moves black offered in order (coordinates as in [`crate::notation`],
//!   comma-separated, empty when none). The opening stones themselves are
//!   the first moves of the move list (the 5th being the offer white
//!   picked). [`PsqRecord::to_table`] replays it all, so the table comes
//!   back as it was. A file without the line reads as a free opening; a
//!   line that cannot be read is [`PsqError::BadOpening`].
//!
//! Reading is lenient about layout (CRLF, LF or CR line ends, spaces, blank
//! lines, a byte-order mark, anything after the moves) and strict about
//! content: a header without a board size, a move line that cannot be read,
//! a number too large, a point off the board or played twice are errors
//! naming the line or the move. No input makes the reader panic.

use crate::game::{Game, GameSetup, SetupError};
use crate::notation::{format_pos, parse_pos};
use crate::opening::{Choice, Opening};
use crate::pos::{BoardSize, Color, Pos, SizeError};
use crate::rule::{Rule, Rules, RulesError};
use crate::table::{Sitter, Table, TableError};

/// A game as a PSQ file holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PsqRecord {
    /// The board.
    pub size: BoardSize,
    /// Stones in a row needed to win.
    pub k: u8,
    /// The rule set.
    pub rule: Rule,
    /// The colour of the first move.
    pub first: Color,
    /// The moves, in order, alternating colours from `first`.
    pub moves: Vec<Pos>,
    /// Thinking time of each move in milliseconds (0 when unknown). Read
    /// records have one per move; when writing, missing times are written
    /// as 0 and extra ones are left out.
    pub times_ms: Vec<u32>,
    /// How the game opened ([`Opening::Free`] when the file says nothing).
    pub opening: Opening,
    /// The decisions taken during the opening, in order.
    pub choices: Vec<Choice>,
    /// The 5th moves black offered during a renju opening, in order.
    pub offers: Vec<Pos>,
}

/// A PSQ file that could not be read, or a game that cannot be written as
/// one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PsqError {
    /// The bytes are not UTF-8 text.
    #[error("the PSQ file is not UTF-8 text (bad byte at offset {valid_up_to})")]
    NotUtf8 {
        /// Length of the valid prefix.
        valid_up_to: usize,
    },
    /// Nothing but blank lines.
    #[error("the PSQ file is empty: expected a header such as `Piskvorky 15x15, 11:11, 0`")]
    Empty,
    /// The first line does not hold a board size.
    #[error("bad PSQ header {text:?}: expected `Piskvorky {{width}}x{{height}}, 11:11, 0`")]
    BadHeader {
        /// The header line.
        text: String,
    },
    /// The header's board size is out of range.
    #[error("bad PSQ header {text:?}: {error}")]
    HeaderSize {
        /// The header line.
        text: String,
        /// Which side is out of range.
        error: SizeError,
    },
    /// A line that starts like a move but is not `x,y` or `x,y,ms`.
    #[error("line {line}: {text:?} is not a move: expected x,y,milliseconds")]
    BadLine {
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// A number that does not fit.
    #[error("line {line}: number too large in {text:?}")]
    NumberTooLarge {
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
    /// A move off the board.
    #[error(
        "move {number} (line {line}): {x},{y} is off the {size} board (coordinates are 1-based)"
    )]
    OffBoard {
        /// 1-based move number.
        number: usize,
        /// 1-based line number.
        line: usize,
        /// Column as written (1-based).
        x: u32,
        /// Row as written (1-based).
        y: u32,
        /// The board.
        size: BoardSize,
    },
    /// A point played twice.
    #[error("move {number} (line {line}): {},{} was already played by move {earlier}", .pos.x as u32 + 1, .pos.y as u32 + 1)]
    Duplicate {
        /// 1-based number of the repeated move.
        number: usize,
        /// 1-based line number.
        line: usize,
        /// 1-based number of the earlier move on that point.
        earlier: usize,
        /// The point (0-based).
        pos: Pos,
    },
    /// The `caro ...` line holds a value that cannot be read.
    #[error("line {line}: bad caro metadata {text:?}: {reason}")]
    BadMetadata {
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// Win length, rule and board do not go together.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// The game starts from freely placed stones, which PSQ cannot hold.
    #[error(
        "a PSQ file cannot hold a game that starts from placed stones or a chosen side to move"
    )]
    HasSetup,
    /// The moves do not make a legal game.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The `opening= choices= offers=` line cannot be read.
    #[error("line {line}: bad opening line {text:?}: {reason}")]
    BadOpening {
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// The moves, choices and offers do not replay under the opening.
    #[error("the {opening} opening does not replay: {error}")]
    Opening {
        /// The opening.
        opening: Opening,
        /// What the table refused.
        error: TableError,
    },
}

impl PsqRecord {
    /// The record of a game's moves, with all times 0.
    ///
    /// # Errors
    /// [`PsqError::HasSetup`] for a game that starts from placed stones (or
    /// with a side to move other than its first player).
    pub fn from_game(game: &Game) -> Result<PsqRecord, PsqError> {
        if !game.setup_stones().is_empty() || game.setup_to_move() != game.first() {
            return Err(PsqError::HasSetup);
        }
        let rules = game.rules();
        Ok(PsqRecord {
            size: rules.size,
            k: rules.k,
            rule: rules.rule,
            first: game.first(),
            moves: game.moves().to_vec(),
            times_ms: vec![0; game.moves().len()],
            opening: Opening::Free,
            choices: Vec::new(),
            offers: Vec::new(),
        })
    }

    /// The record of a table's game, with its opening, the opening's
    /// choices and the offered 5th moves, and all times 0.
    ///
    /// # Errors
    /// As [`PsqRecord::from_game`].
    pub fn from_table(table: &Table) -> Result<PsqRecord, PsqError> {
        let mut record = PsqRecord::from_game(table.game())?;
        record.opening = table.opening().opening();
        record.choices = table.choices().to_vec();
        record.offers = table.offers().to_vec();
        Ok(record)
    }

    /// Replays the record onto a table: the moves in order, each opening
    /// choice and offer as it falls due ([`Table::replay_with_offers`]).
    ///
    /// # Errors
    /// [`PsqError::Rules`] for rules that do not go together,
    /// [`PsqError::Opening`] naming what the table refused.
    pub fn to_table(&self, sitters: [Sitter; 2]) -> Result<Table, PsqError> {
        let rules = Rules::new(self.size, self.k, self.rule)?;
        Table::replay_with_offers(
            rules,
            self.first,
            self.opening,
            sitters,
            &self.moves,
            &[],
            &self.choices,
            &self.offers,
        )
        .map_err(|error| PsqError::Opening {
            opening: self.opening,
            error,
        })
    }

    /// Replays the record into a game, checking every move.
    ///
    /// # Errors
    /// [`PsqError::Setup`] naming the first illegal move (or bad rules).
    pub fn to_game(&self) -> Result<Game, PsqError> {
        let setup = GameSetup {
            size: self.size,
            k: self.k,
            rule: self.rule,
            first: self.first,
            stones: Vec::new(),
            to_move: None,
            moves: self.moves.clone(),
        };
        Ok(Game::from_setup(&setup)?)
    }
}

/// Reads a PSQ file from bytes, which must be UTF-8.
///
/// # Errors
/// [`PsqError::NotUtf8`], or as [`read_psq`].
pub fn read_psq_bytes(bytes: &[u8]) -> Result<PsqRecord, PsqError> {
    let text = std::str::from_utf8(bytes).map_err(|e| PsqError::NotUtf8 {
        valid_up_to: e.valid_up_to(),
    })?;
    read_psq(text)
}

/// Reads a PSQ file. Moves are checked for being on the board and not
/// repeated; whether they make a legal game is left to
/// [`PsqRecord::to_game`].
///
/// # Errors
/// [`PsqError`] naming the line or move at fault.
pub fn read_psq(text: &str) -> Result<PsqRecord, PsqError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = split_lines(text)
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .peekable();

    let (_, header) = lines.next().ok_or(PsqError::Empty)?;
    let size = parse_header(header)?;

    let mut moves = Vec::new();
    let mut times_ms = Vec::new();
    // The move number that took each point, row by row.
    let mut taken: Vec<usize> = vec![0; size.area()];
    while let Some(&(line, text)) = lines.peek() {
        let Some((x, y, ms)) = parse_move_line(line, text)? else {
            break;
        };
        lines.next();
        let number = moves.len() + 1;
        if x == 0 || y == 0 || x > u32::from(size.width) || y > u32::from(size.height) {
            return Err(PsqError::OffBoard {
                number,
                line,
                x,
                y,
                size,
            });
        }
        // In range 1..=60, so the casts are exact.
        let pos = Pos::new((x - 1) as u8, (y - 1) as u8);
        let slot = usize::from(pos.y) * usize::from(size.width) + usize::from(pos.x);
        if let Some(earlier) = taken.get_mut(slot) {
            if *earlier != 0 {
                return Err(PsqError::Duplicate {
                    number,
                    line,
                    earlier: *earlier,
                    pos,
                });
            }
            *earlier = number;
        }
        moves.push(pos);
        times_ms.push(ms);
    }

    let mut meta = Metadata {
        k: Rules::default_k(size),
        rule: Rule::Freestyle,
        first: Color::Black,
    };
    let mut opened: Option<Opened> = None;
    let mut seen_caro = false;
    for (line, text) in lines {
        if text.starts_with("opening=") {
            if opened.is_some() {
                return Err(PsqError::BadOpening {
                    line,
                    text: text.to_string(),
                    reason: "a second opening line".into(),
                });
            }
            opened = Some(parse_opening(line, text, size)?);
        } else if !seen_caro {
            seen_caro = parse_metadata(line, text, &mut meta)?;
        }
    }
    let opened = opened.unwrap_or_default();
    Rules::new(size, meta.k, meta.rule)?;
    if meta.rule == Rule::Renju && meta.first != Color::Black {
        return Err(RulesError::RenjuBlackFirst.into());
    }
    Ok(PsqRecord {
        size,
        k: meta.k,
        rule: meta.rule,
        first: meta.first,
        moves,
        times_ms,
        opening: opened.opening,
        choices: opened.choices,
        offers: opened.offers,
    })
}

/// Writes a record as a PSQ file (LF line ends), ending with `-1` and the
/// caro metadata line.
#[must_use]
pub fn write_psq(record: &PsqRecord) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(40 + record.moves.len() * 12);
    // Writing to a String cannot fail.
    let _ = writeln!(
        out,
        "Piskvorky {}x{}, 11:11, 0",
        record.size.width, record.size.height
    );
    for (i, pos) in record.moves.iter().enumerate() {
        let ms = record.times_ms.get(i).copied().unwrap_or(0);
        let _ = writeln!(
            out,
            "{},{},{}",
            u32::from(pos.x) + 1,
            u32::from(pos.y) + 1,
            ms
        );
    }
    let _ = writeln!(out, "-1");
    let _ = writeln!(
        out,
        "caro k={} rule={} first={}",
        record.k,
        record.rule.name(),
        record.first.name()
    );
    if record.opening != Opening::Free || !record.choices.is_empty() || !record.offers.is_empty() {
        out.push_str(&opening_line(record));
        out.push('\n');
    }
    out
}

/// The `opening=… choices=… offers=…` line of a record (without a line
/// end), as [`write_psq`] writes it.
#[must_use]
pub fn opening_line(record: &PsqRecord) -> String {
    let choices: Vec<&str> = record.choices.iter().map(|c| c.name()).collect();
    let offers: Vec<String> = record
        .offers
        .iter()
        .map(|&p| format_pos(p, record.size))
        .collect();
    format!(
        "opening={} choices={} offers={}",
        record.opening,
        choices.join(","),
        offers.join(",")
    )
}

/// The opening, choices and offers of an `opening=` line.
#[derive(Default)]
struct Opened {
    opening: Opening,
    choices: Vec<Choice>,
    offers: Vec<Pos>,
}

/// Reads an `opening=NAME choices=A,B offers=h9,g7` line.
fn parse_opening(line: usize, text: &str, size: BoardSize) -> Result<Opened, PsqError> {
    let bad = |reason: String| PsqError::BadOpening {
        line,
        text: text.to_string(),
        reason,
    };
    let mut opened = Opened::default();
    let mut seen = [false; 3];
    for word in text.split_whitespace() {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| bad(format!("{word:?} is not key=value")))?;
        let slot = match key {
            "opening" => 0,
            "choices" => 1,
            "offers" => 2,
            _ => {
                return Err(bad(format!(
                    "unknown key {key:?}: expected opening, choices and offers"
                )))
            }
        };
        if std::mem::replace(&mut seen[slot], true) {
            return Err(bad(format!("{key} given twice")));
        }
        let items = || value.split(',').filter(|v| !v.is_empty());
        match slot {
            0 => opened.opening = value.parse().map_err(|e| bad(format!("{e}")))?,
            1 => {
                opened.choices = items()
                    .map(str::parse)
                    .collect::<Result<_, _>>()
                    .map_err(|e| bad(format!("{e}")))?;
            }
            _ => {
                opened.offers = items()
                    .map(|v| parse_pos(v, size))
                    .collect::<Result<_, _>>()
                    .map_err(|e| bad(format!("offer {e}")))?;
            }
        }
    }
    if opened.offers.len() > usize::from(opened.opening.max_offers()) {
        return Err(bad(format!(
            "the {} opening cannot have {} offered 5th moves",
            opened.opening,
            opened.offers.len()
        )));
    }
    Ok(opened)
}

/// Lines split at LF, CRLF or a lone CR.
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n')
        .flat_map(|l| l.strip_suffix('\r').unwrap_or(l).split('\r'))
}

/// The board size in a header line: the first word of the form `WxH`.
fn parse_header(header: &str) -> Result<BoardSize, PsqError> {
    let bad = || PsqError::BadHeader {
        text: header.to_string(),
    };
    let word = header
        .split(|c: char| c.is_whitespace() || c == ',')
        .find(|w| {
            w.split_once(['x', 'X']).is_some_and(|(a, b)| {
                !a.is_empty()
                    && !b.is_empty()
                    && a.bytes().all(|c| c.is_ascii_digit())
                    && b.bytes().all(|c| c.is_ascii_digit())
            })
        })
        .ok_or_else(bad)?;
    let (w, h) = word.split_once(['x', 'X']).ok_or_else(bad)?;
    // Digits only; a side too long for u16 reads as u16::MAX (out of range).
    let side = |s: &str| s.parse::<u16>().unwrap_or(u16::MAX);
    let out_of_range = |error| PsqError::HeaderSize {
        text: header.to_string(),
        error,
    };
    let (w, h) = (side(w), side(h));
    let narrow = |side: &'static str, value: u16| {
        u8::try_from(value).map_err(|_| out_of_range(SizeError { side, value }))
    };
    let (w, h) = (narrow("width", w)?, narrow("height", h)?);
    BoardSize::new(w, h).map_err(out_of_range)
}

/// Reads a move line: `Ok(None)` for a line that is not a move (the end of
/// the move list), an error for one that starts like a move but is broken.
fn parse_move_line(line: usize, text: &str) -> Result<Option<(u32, u32, u32)>, PsqError> {
    let starts_like_move = text.starts_with(|c: char| c.is_ascii_digit()) && text.contains(',');
    if !starts_like_move {
        return Ok(None);
    }
    let bad = || PsqError::BadLine {
        line,
        text: text.to_string(),
    };
    let fields: Vec<&str> = text.split(',').map(str::trim).collect();
    if fields.len() < 2 || fields.len() > 3 {
        return Err(bad());
    }
    let mut numbers = [0u32; 3];
    for (slot, field) in numbers.iter_mut().zip(&fields) {
        if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        *slot = field.parse().map_err(|_| PsqError::NumberTooLarge {
            line,
            text: text.to_string(),
        })?;
    }
    Ok(Some((numbers[0], numbers[1], numbers[2])))
}

/// caro's own settings, from the `caro ...` line.
struct Metadata {
    k: u8,
    rule: Rule,
    first: Color,
}

/// Reads a `caro key=value ...` line into `meta`. Returns whether the line
/// was one; other lines are ignored.
fn parse_metadata(line: usize, text: &str, meta: &mut Metadata) -> Result<bool, PsqError> {
    let mut words = text.split_whitespace();
    if words.next() != Some("caro") {
        return Ok(false);
    }
    let pairs: Option<Vec<(&str, &str)>> = words.map(|w| w.split_once('=')).collect();
    let Some(pairs) = pairs else {
        // `caro` followed by something else: maybe an engine's name.
        return Ok(false);
    };
    let bad = |reason: String| PsqError::BadMetadata {
        line,
        text: text.to_string(),
        reason,
    };
    for (key, value) in pairs {
        match key {
            "k" => {
                let k = value
                    .parse::<u8>()
                    .ok()
                    .filter(|_| value.bytes().all(|b| b.is_ascii_digit()));
                meta.k = k.ok_or_else(|| bad(format!("k={value:?} is not a number")))?;
            }
            "rule" => meta.rule = value.parse().map_err(|e: RulesError| bad(e.to_string()))?,
            "first" => {
                meta.first = match value {
                    "black" => Color::Black,
                    "white" => Color::White,
                    _ => return Err(bad(format!("first={value:?}: expected black or white"))),
                }
            }
            _ => {}
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(text: &str) -> PsqRecord {
        read_psq(text).unwrap()
    }

    #[test]
    fn reads_a_piskvork_file() {
        let text = "Piskvorky 20x20, 11:11, 0\r\n10,10,0\r\n11,9,1520\r\n 9 , 11 \r\npbrain-foo.zip\r\npbrain-bar.zip\r\n-1\r\n";
        let r = record(text);
        assert_eq!(r.size, BoardSize::square(20));
        assert_eq!(
            r.moves,
            vec![Pos::new(9, 9), Pos::new(10, 8), Pos::new(8, 10)]
        );
        assert_eq!(r.times_ms, vec![0, 1520, 0]);
        assert_eq!((r.k, r.rule, r.first), (5, Rule::Freestyle, Color::Black));
    }

    #[test]
    fn round_trips_with_metadata() {
        let r = PsqRecord {
            size: BoardSize::new(20, 30).unwrap(),
            k: 6,
            rule: Rule::CaroStandard,
            first: Color::White,
            moves: vec![Pos::new(0, 0), Pos::new(19, 29), Pos::new(19, 0)],
            times_ms: vec![1, 2, u32::MAX],
            opening: Opening::Free,
            choices: Vec::new(),
            offers: Vec::new(),
        };
        let text = write_psq(&r);
        assert!(text.starts_with("Piskvorky 20x30, 11:11, 0\n1,1,1\n20,30,2\n"));
        assert!(text.ends_with("-1\ncaro k=6 rule=caro-standard first=white\n"));
        assert_eq!(record(&text), r);
        assert_eq!(record(&text.replace('\n', "\r\n")), r);
        assert_eq!(record(&text.replace('\n', "\r")), r);
    }

    #[test]
    fn defaults_without_metadata() {
        let r = record("Piskvorky 4x4, 11:11, 0\n1,1\n-1\ncaro.zip\nrandom text\n");
        assert_eq!((r.k, r.rule, r.first), (3, Rule::Freestyle, Color::Black));
        assert_eq!(r.moves, vec![Pos::new(0, 0)]);
    }

    #[test]
    fn errors_name_the_fault() {
        let e = |t: &str| read_psq(t).unwrap_err();
        assert_eq!(e(""), PsqError::Empty);
        assert_eq!(e(" \n\r\n"), PsqError::Empty);
        assert!(matches!(
            e("Piskvorky, 11:11, 0\n"),
            PsqError::BadHeader { .. }
        ));
        assert!(matches!(e("Piskvorky 2x20\n"), PsqError::HeaderSize { .. }));
        assert!(matches!(
            e("Piskvorky 20x61\n"),
            PsqError::HeaderSize { .. }
        ));
        assert!(matches!(
            e("Piskvorky 99999999999999x20\n"),
            PsqError::HeaderSize { .. }
        ));
        assert_eq!(
            e("Piskvorky 15x15\n1,1,0\n2,x,0\n"),
            PsqError::BadLine {
                line: 3,
                text: "2,x,0".into()
            }
        );
        assert!(matches!(
            e("Piskvorky 15x15\n1,2,3,4\n"),
            PsqError::BadLine { .. }
        ));
        assert!(matches!(
            e("Piskvorky 15x15\n1,1,99999999999\n"),
            PsqError::NumberTooLarge { line: 2, .. }
        ));
        assert!(matches!(
            e("Piskvorky 15x15\n99999999999,1\n"),
            PsqError::NumberTooLarge { .. }
        ));
        assert!(matches!(
            e("Piskvorky 15x15\n1,1\n16,1\n"),
            PsqError::OffBoard {
                number: 2,
                x: 16,
                y: 1,
                ..
            }
        ));
        assert!(matches!(
            e("Piskvorky 15x15\n0,1\n"),
            PsqError::OffBoard { number: 1, .. }
        ));
        let dup = e("Piskvorky 15x15\n1,1\n2,2\n1,1\n");
        assert!(matches!(
            dup,
            PsqError::Duplicate {
                number: 3,
                earlier: 1,
                line: 4,
                ..
            }
        ));
        assert_eq!(
            dup.to_string(),
            "move 3 (line 4): 1,1 was already played by move 1"
        );
        assert!(matches!(
            e("Piskvorky 15x15\n-1\ncaro k=x\n"),
            PsqError::BadMetadata { .. }
        ));
        assert!(matches!(
            e("Piskvorky 15x15\n-1\ncaro rule=chess\n"),
            PsqError::BadMetadata { .. }
        ));
        assert!(matches!(
            e("Piskvorky 15x15\n-1\ncaro k=4 rule=renju\n"),
            PsqError::Rules(RulesError::RenjuNeedsFive(4))
        ));
        assert_eq!(
            read_psq_bytes(b"Piskvorky 15x15\n\xff\n"),
            Err(PsqError::NotUtf8 { valid_up_to: 16 })
        );
    }

    #[test]
    fn to_game_names_the_illegal_move() {
        // Black wins with move 9; move 10 is one too many.
        let text =
            "Piskvorky 15x15, 11:11, 0\n1,1\n1,2\n2,1\n2,2\n3,1\n3,2\n4,1\n4,2\n5,1\n5,2\n-1\n";
        let r = record(text);
        match r.to_game() {
            Err(PsqError::Setup(SetupError::Move { number, .. })) => assert_eq!(number, 10),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn from_game_round_trips_and_refuses_setups() {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
        let moves = [Pos::new(7, 7), Pos::new(8, 8), Pos::new(6, 7)];
        let game = Game::from_moves(rules, Color::Black, &moves).unwrap();
        let r = PsqRecord::from_game(&game).unwrap();
        assert_eq!(r.times_ms, vec![0; 3]);
        assert_eq!(r.to_game().unwrap(), game);

        let mut setup = GameSetup::new(rules.size, 5, Rule::Freestyle);
        setup.stones = vec![(Pos::new(0, 0), Color::Black)];
        let game = Game::from_setup(&setup).unwrap();
        assert_eq!(PsqRecord::from_game(&game), Err(PsqError::HasSetup));
    }

    fn renju_table(opening: Opening) -> Table {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
        Table::new(rules, Color::Black, opening, [Sitter::Human, Sitter::Human]).unwrap()
    }

    fn at(text: &str) -> Pos {
        parse_pos(text, BoardSize::square(15)).unwrap()
    }

    /// Soosõrv-8 of two people past the pick: h8 i8 j8, white swaps, a4,
    /// black stays, 2 offers, white stays, offers h10 and g9, g9 picked,
    /// then h10 and a15.
    fn soosorv8_game() -> Table {
        use crate::table::Actor;
        let mut t = renju_table(Opening::Soosorv(8));
        for pos in ["h8", "i8", "j8"] {
            t.play(Actor::Person, at(pos)).unwrap();
        }
        t.choose(Actor::Person, Choice::TakeBlack).unwrap();
        t.play(Actor::Person, at("a4")).unwrap();
        t.choose(Actor::Person, Choice::TakeBlack).unwrap();
        t.choose(Actor::Person, Choice::Offers(2)).unwrap();
        t.choose(Actor::Person, Choice::TakeWhite).unwrap();
        for pos in ["h10", "g9", "g9", "h10", "a15"] {
            t.play(Actor::Person, at(pos)).unwrap();
        }
        t
    }

    fn same_table(a: &Table, b: &Table) {
        assert_eq!(a.game().moves(), b.game().moves());
        assert_eq!(a.choices(), b.choices());
        assert_eq!(a.offers(), b.offers());
        assert_eq!(a.turn(), b.turn());
        assert_eq!(a.opening().opening(), b.opening().opening());
        assert_eq!(a.opening_stones(), b.opening_stones());
    }

    #[test]
    fn soosorv8_round_trips_with_choices_and_offers() {
        let t = soosorv8_game();
        let r = PsqRecord::from_table(&t).unwrap();
        let text = write_psq(&r);
        assert!(text.ends_with(
            "-1\ncaro k=5 rule=renju first=black\n\
             opening=soosorv8 choices=take-black,take-black,offers-2,take-white offers=h10,g9\n"
        ));
        let back = record(&text);
        assert_eq!(back, r);
        same_table(&back.to_table([Sitter::Human, Sitter::Human]).unwrap(), &t);
        // Also read with other lines between (as `caro match --psq` writes).
        let spread = text.replace(
            "first=black\n",
            "first=black\nblack=a white=b result=draw\n",
        );
        assert_eq!(record(&spread), r);
    }

    #[test]
    fn taraguchi10_round_trips_mid_opening() {
        use crate::table::Actor;
        let mut t = renju_table(Opening::Taraguchi10);
        t.play(Actor::Person, at("h8")).unwrap();
        t.choose(Actor::Person, Choice::TakeWhite).unwrap();
        t.play(Actor::Person, at("i9")).unwrap();
        t.choose(Actor::Person, Choice::TakeBlack).unwrap();
        t.play(Actor::Person, at("j10")).unwrap();
        t.choose(Actor::Person, Choice::TakeWhite).unwrap();
        t.play(Actor::Person, at("k11")).unwrap();
        t.choose(Actor::Person, Choice::TakeBlack).unwrap();
        t.choose(Actor::Person, Choice::OfferFifths).unwrap();
        for pos in ["a1", "b1", "c1"] {
            t.play(Actor::Person, at(pos)).unwrap();
        }
        let text = write_psq(&PsqRecord::from_table(&t).unwrap());
        assert!(text.contains("opening=taraguchi10 "));
        let back = record(&text)
            .to_table([Sitter::Human, Sitter::Human])
            .unwrap();
        same_table(&back, &t);
        // Offered in full and picked.
        for pos in ["d1", "e1", "f1", "g1", "h1", "i1", "j1", "h1"] {
            t.play(Actor::Person, at(pos)).unwrap();
        }
        let text = write_psq(&PsqRecord::from_table(&t).unwrap());
        let back = record(&text)
            .to_table([Sitter::Human, Sitter::Human])
            .unwrap();
        same_table(&back, &t);
        assert!(back.colors_decided());
    }

    #[test]
    fn free_games_write_no_opening_line() {
        let t = renju_table(Opening::Free);
        let text = write_psq(&PsqRecord::from_table(&t).unwrap());
        assert!(!text.contains("opening="));
        let r = record("Piskvorky 15x15, 11:11, 0\n8,8,0\n-1\ncaro k=5 rule=renju first=black\n");
        assert_eq!(
            (r.opening, r.choices.len(), r.offers.len()),
            (Opening::Free, 0, 0)
        );
    }

    #[test]
    fn bad_opening_lines_are_refused() {
        let head = "Piskvorky 15x15, 11:11, 0\n8,8,0\n-1\ncaro k=5 rule=renju first=black\n";
        let e = |line: &str| read_psq(&format!("{head}{line}\n")).unwrap_err();
        for line in [
            "opening=chess choices= offers=",
            "opening=soosorv8 choices=jump offers=",
            "opening=soosorv8 choices= offers=z99",
            "opening=soosorv8 choices= offers=h9,,x",
            "opening=soosorv2 choices= offers=a1,b1,c1",
            "opening=free choices= offers=a1",
            "opening=soosorv8 opening=soosorv8",
            "opening=soosorv8 colour=black",
            "opening=soosorv8 choices",
        ] {
            match e(line) {
                PsqError::BadOpening { line: 5, text, .. } => assert_eq!(text, line),
                other => panic!("{line}: {other:?}"),
            }
        }
        assert!(matches!(
            e("opening=soosorv8 choices= offers=\nopening=soosorv8 choices= offers="),
            PsqError::BadOpening { line: 6, .. }
        ));
        // Read, but the table refuses: choices missing for the opening.
        let r = record(
            "Piskvorky 15x15, 11:11, 0\n8,8\n9,8\n10,8\n1,12\n-1\n\
             caro k=5 rule=renju first=black\nopening=soosorv8 choices= offers=\n",
        );
        let err = r.to_table([Sitter::Human, Sitter::Human]).unwrap_err();
        assert!(matches!(
            err,
            PsqError::Opening {
                opening: Opening::Soosorv(8),
                ..
            }
        ));
        assert!(err
            .to_string()
            .starts_with("the soosorv8 opening does not replay: "));
    }
}
