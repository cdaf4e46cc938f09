//! Training positions in a compact binary file: what `caro selfplay`
//! writes and an evaluation's trainer reads (docs/training.md has the
//! format byte by byte).
//!
//! A file is the eight bytes `CAROPOS1` followed by records, each one
//! position: its rules, side to move, the stones on the board (sorted by
//! point), the search's score and best move for the side to move, and the
//! game's final result for the side to move. Numbers are little-endian.
//!
//! ```
//! use caro_core::{BoardSize, Color, Pos, Rule, Rules};
//! use caro_engine::dataset::{GameResult, Reader, Sample, Writer};
//!
//! let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
//! let sample = Sample {
//!     rules,
//!     to_move: Color::White,
//!     stones: vec![(Pos::new(7, 7), Color::Black)],
//!     score: 35,
//!     best: Pos::new(8, 8),
//!     result: GameResult::Loss,
//!     ply: 1,
//! };
//! let mut bytes = Vec::new();
//! let mut writer = Writer::new(&mut bytes).unwrap();
//! writer.write(&sample).unwrap();
//! drop(writer);
//! let read: Vec<Sample> = Reader::new(&bytes[..]).unwrap().collect::<Result<_, _>>().unwrap();
//! assert_eq!(read, vec![sample]);
//! ```

use std::io::{self, Read, Write};

use caro_core::{BoardSize, Color, Game, Pos, Rule, Rules};

/// The first eight bytes of a file of training positions.
pub const MAGIC: &[u8; 8] = b"CAROPOS1";

/// Score of a win in `n` plies: `MATE_SCORE - n` (a loss: its negation).
/// Heuristic scores are clamped to ±[`EVAL_LIMIT`], well below.
pub const MATE_SCORE: i16 = 30_000;

/// Largest heuristic score stored; beyond it a score is a forced result.
pub const EVAL_LIMIT: i16 = 20_000;

/// Bytes of a record before its stones.
const HEADER_BYTES: usize = 14;

/// How the game ended for the side to move of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// The side to move went on to win.
    Win,
    /// Nobody won.
    Draw,
    /// The side to move went on to lose.
    Loss,
}

impl GameResult {
    /// 1, ½ or 0: the result as a score for the side to move.
    #[must_use]
    pub fn score(self) -> f64 {
        match self {
            GameResult::Win => 1.0,
            GameResult::Draw => 0.5,
            GameResult::Loss => 0.0,
        }
    }

    fn to_byte(self) -> u8 {
        match self {
            GameResult::Loss => 0,
            GameResult::Draw => 1,
            GameResult::Win => 2,
        }
    }

    fn from_byte(b: u8) -> Option<GameResult> {
        match b {
            0 => Some(GameResult::Loss),
            1 => Some(GameResult::Draw),
            2 => Some(GameResult::Win),
            _ => None,
        }
    }

    /// The result for `side`, from the game's winner (`None`: a draw).
    #[must_use]
    pub fn for_side(winner: Option<Color>, side: Color) -> GameResult {
        match winner {
            None => GameResult::Draw,
            Some(w) if w == side => GameResult::Win,
            Some(_) => GameResult::Loss,
        }
    }
}

/// One training position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Board, win length and rule.
    pub rules: Rules,
    /// The side to move.
    pub to_move: Color,
    /// The stones on the board, sorted by point (row by row).
    pub stones: Vec<(Pos, Color)>,
    /// The search's score for the side to move: a heuristic score within
    /// ±[`EVAL_LIMIT`], or `±(MATE_SCORE - plies)` for a forced result.
    pub score: i16,
    /// The search's best move.
    pub best: Pos,
    /// How the game went on to end, for the side to move.
    pub result: GameResult,
    /// Moves played in the game before this position (its opening
    /// included).
    pub ply: u16,
}

impl Sample {
    /// The position of a game (its stones and side to move), labelled.
    #[must_use]
    pub fn of_game(game: &Game, score: i16, best: Pos, result: GameResult) -> Sample {
        let size = game.size();
        let board = game.board();
        let mut stones = Vec::with_capacity(game.moves().len());
        for y in 0..size.height {
            for x in 0..size.width {
                let p = Pos::new(x, y);
                match board.cell(board.index(p)) {
                    caro_core::Cell::Black => stones.push((p, Color::Black)),
                    caro_core::Cell::White => stones.push((p, Color::White)),
                    _ => {}
                }
            }
        }
        Sample {
            rules: *game.rules(),
            to_move: game.to_move(),
            stones,
            score,
            best,
            result,
            ply: u16::try_from(game.moves().len()).unwrap_or(u16::MAX),
        }
    }

    /// The position as a game: the stones set up, the side to move to
    /// play. Renju's forbidden points follow from the stones alone.
    ///
    /// # Errors
    /// The setup error of stones that make no legal position (a five on
    /// the board, a stone off it).
    pub fn to_game(&self) -> Result<Game, caro_core::SetupError> {
        let mut setup = caro_core::GameSetup::new(self.rules.size, self.rules.k, self.rules.rule);
        setup.stones = self.stones.clone();
        setup.to_move = Some(self.to_move);
        Game::from_setup(&setup)
    }

    /// A hash of the position alone (rules, side to move, stones), not of
    /// its labels: equal positions have equal keys, for deduplication and
    /// the trainer's held-out split. FNV-1a over the record's bytes, so the
    /// same on every build and host.
    #[must_use]
    pub fn position_key(&self) -> u64 {
        const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let size = self.rules.size;
        let mut bytes = vec![
            rule_byte(self.rules.rule),
            size.width,
            size.height,
            self.rules.k,
            u8::from(self.to_move == Color::White),
        ];
        for &(p, c) in &self.stones {
            bytes.extend_from_slice(&[p.x, p.y, u8::from(c == Color::White)]);
        }
        bytes
            .iter()
            .fold(OFFSET, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
    }

    /// The record's size in bytes.
    #[must_use]
    pub fn encoded_len(&self) -> usize {
        HEADER_BYTES + 2 * self.stones.len()
    }
}

/// The score of a search's report as stored: heuristic scores clamped to
/// ±[`EVAL_LIMIT`], forced results as `±(MATE_SCORE - plies)` (a win of
/// unknown length as a win in 255).
#[must_use]
pub fn stored_score(score: crate::Score) -> i16 {
    let plies = |n: u32| i16::try_from(n.min(9_999)).unwrap_or(9_999);
    match score {
        crate::Score::Eval(v) => v.clamp(-i32::from(EVAL_LIMIT), i32::from(EVAL_LIMIT)) as i16,
        crate::Score::WinIn(n) => MATE_SCORE - plies(n),
        crate::Score::LossIn(n) => -(MATE_SCORE - plies(n)),
        crate::Score::Win => MATE_SCORE - 255,
    }
}

/// What is wrong with a file of training positions.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The file does not start with [`MAGIC`].
    #[error("not a file of training positions (it does not start with CAROPOS1)")]
    BadMagic,
    /// The file ends inside a record.
    #[error("the file ends inside record {record}")]
    Truncated {
        /// The record's number, from 0.
        record: u64,
    },
    /// A record's field holds a value it cannot.
    #[error("record {record}: {what}")]
    BadRecord {
        /// The record's number, from 0.
        record: u64,
        /// What is wrong.
        what: String,
    },
}

fn rule_byte(rule: Rule) -> u8 {
    match rule {
        Rule::Freestyle => 0,
        Rule::Standard => 1,
        Rule::Renju => 2,
        Rule::Caro => 3,
        Rule::CaroStandard => 4,
    }
}

fn rule_of_byte(b: u8) -> Option<Rule> {
    Some(match b {
        0 => Rule::Freestyle,
        1 => Rule::Standard,
        2 => Rule::Renju,
        3 => Rule::Caro,
        4 => Rule::CaroStandard,
        _ => return None,
    })
}

/// Writes records after the file's magic.
pub struct Writer<W: Write> {
    out: W,
    buf: Vec<u8>,
}

impl<W: Write> Writer<W> {
    /// Writes the magic and returns a writer of records.
    ///
    /// # Errors
    /// The write's error.
    pub fn new(mut out: W) -> Result<Writer<W>, DatasetError> {
        out.write_all(MAGIC)?;
        Ok(Writer {
            out,
            buf: Vec::new(),
        })
    }

    /// A writer that appends records to output that already holds the
    /// magic (a file opened for appending).
    pub fn appending(out: W) -> Writer<W> {
        Writer {
            out,
            buf: Vec::new(),
        }
    }

    /// Writes one record.
    ///
    /// # Errors
    /// The write's error.
    pub fn write(&mut self, s: &Sample) -> Result<(), DatasetError> {
        let size = s.rules.size;
        let index = |p: Pos| u16::from(p.y) * u16::from(size.width) + u16::from(p.x);
        self.buf.clear();
        self.buf.extend_from_slice(&[
            rule_byte(s.rules.rule),
            size.width,
            size.height,
            s.rules.k,
            u8::from(s.to_move == Color::White),
            s.result.to_byte(),
        ]);
        self.buf.extend_from_slice(&s.score.to_le_bytes());
        self.buf.extend_from_slice(&index(s.best).to_le_bytes());
        self.buf.extend_from_slice(&s.ply.to_le_bytes());
        let count = u16::try_from(s.stones.len()).unwrap_or(u16::MAX);
        self.buf.extend_from_slice(&count.to_le_bytes());
        for &(p, c) in s.stones.iter().take(usize::from(count)) {
            let v = index(p) | if c == Color::White { 0x8000 } else { 0 };
            self.buf.extend_from_slice(&v.to_le_bytes());
        }
        self.out.write_all(&self.buf)?;
        Ok(())
    }

    /// Flushes the output.
    ///
    /// # Errors
    /// The flush's error.
    pub fn flush(&mut self) -> Result<(), DatasetError> {
        self.out.flush()?;
        Ok(())
    }
}

/// Reads the records of a file, one [`Sample`] an item.
pub struct Reader<R: Read> {
    input: R,
    record: u64,
    done: bool,
}

impl<R: Read> Reader<R> {
    /// Checks the magic and returns a reader of records.
    ///
    /// # Errors
    /// [`DatasetError::BadMagic`] for other bytes, the read's error.
    pub fn new(mut input: R) -> Result<Reader<R>, DatasetError> {
        let mut magic = [0u8; 8];
        match input.read_exact(&mut magic) {
            Ok(()) if &magic == MAGIC => {}
            Ok(()) => return Err(DatasetError::BadMagic),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                return Err(DatasetError::BadMagic)
            }
            Err(e) => return Err(e.into()),
        }
        Ok(Reader {
            input,
            record: 0,
            done: false,
        })
    }

    fn bad(&self, what: impl Into<String>) -> DatasetError {
        DatasetError::BadRecord {
            record: self.record,
            what: what.into(),
        }
    }

    fn read_record(&mut self) -> Result<Option<Sample>, DatasetError> {
        let mut head = [0u8; HEADER_BYTES];
        // A clean end of file comes before a record's first byte.
        let mut got = 0;
        while got < HEADER_BYTES {
            match self.input.read(&mut head[got..]) {
                Ok(0) if got == 0 => return Ok(None),
                Ok(0) => {
                    return Err(DatasetError::Truncated {
                        record: self.record,
                    })
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        let rule = rule_of_byte(head[0]).ok_or_else(|| self.bad(format!("rule {}", head[0])))?;
        let (width, height, k) = (head[1], head[2], head[3]);
        let size = BoardSize { width, height };
        let rules = Rules::new(size, k, rule).map_err(|e| self.bad(format!("rules: {e}")))?;
        let to_move = match head[4] {
            0 => Color::Black,
            1 => Color::White,
            b => return Err(self.bad(format!("side to move {b}"))),
        };
        let result = GameResult::from_byte(head[5])
            .ok_or_else(|| self.bad(format!("result {}", head[5])))?;
        let score = i16::from_le_bytes([head[6], head[7]]);
        let cells = usize::from(width) * usize::from(height);
        let pos_of = |v: u16| -> Option<Pos> {
            let v = usize::from(v);
            (v < cells).then(|| {
                Pos::new(
                    (v % usize::from(width)) as u8,
                    (v / usize::from(width)) as u8,
                )
            })
        };
        let best_index = u16::from_le_bytes([head[8], head[9]]);
        let best = pos_of(best_index).ok_or_else(|| self.bad(format!("best move {best_index}")))?;
        let ply = u16::from_le_bytes([head[10], head[11]]);
        let count = usize::from(u16::from_le_bytes([head[12], head[13]]));
        if count > cells {
            return Err(self.bad(format!("{count} stones on {cells} points")));
        }
        let mut raw = vec![0u8; 2 * count];
        self.input.read_exact(&mut raw).map_err(|e| {
            if e.kind() == io::ErrorKind::UnexpectedEof {
                DatasetError::Truncated {
                    record: self.record,
                }
            } else {
                e.into()
            }
        })?;
        let mut stones = Vec::with_capacity(count);
        for pair in raw.chunks_exact(2) {
            let v = u16::from_le_bytes([pair[0], pair[1]]);
            let p = pos_of(v & 0x7fff).ok_or_else(|| self.bad(format!("stone {}", v & 0x7fff)))?;
            let c = if v & 0x8000 != 0 {
                Color::White
            } else {
                Color::Black
            };
            stones.push((p, c));
        }
        Ok(Some(Sample {
            rules,
            to_move,
            stones,
            score,
            best,
            result,
            ply,
        }))
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Result<Sample, DatasetError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.read_record().transpose();
        match &item {
            Some(Ok(_)) => self.record += 1,
            _ => self.done = true,
        }
        item
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rules(size: u8, rule: Rule) -> Rules {
        Rules::new(BoardSize::square(size), 5, rule).unwrap()
    }

    fn write_all(samples: &[Sample]) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut w = Writer::new(&mut bytes).unwrap();
        for s in samples {
            w.write(s).unwrap();
        }
        drop(w);
        bytes
    }

    fn read_all(bytes: &[u8]) -> Result<Vec<Sample>, DatasetError> {
        Reader::new(bytes)?.collect()
    }

    fn sample_strategy() -> impl Strategy<Value = Sample> {
        (
            prop::sample::select(vec![15u8, 20]),
            prop::sample::select(Rule::ALL.to_vec()),
            prop::collection::btree_set(0u16..225, 0..40),
            any::<bool>(),
            -30_000i16..=30_000,
            0u16..225,
            0u8..3,
            any::<u16>(),
        )
            .prop_map(|(size, rule, points, white, score, best, result, ply)| {
                let at = |v: u16| Pos::new((v % 15) as u8, (v / 15) as u8);
                let mut stones: Vec<(Pos, Color)> = points
                    .iter()
                    .enumerate()
                    .map(|(n, &v)| {
                        (
                            at(v),
                            if n % 2 == 0 {
                                Color::Black
                            } else {
                                Color::White
                            },
                        )
                    })
                    .collect();
                stones.sort_by_key(|(p, _)| (p.y, p.x));
                Sample {
                    rules: rules(size, rule),
                    to_move: if white { Color::White } else { Color::Black },
                    stones,
                    score,
                    best: at(best),
                    result: GameResult::from_byte(result).unwrap(),
                    ply,
                }
            })
    }

    proptest! {
        #[test]
        fn records_read_back_as_written(samples in prop::collection::vec(sample_strategy(), 0..20)) {
            let bytes = write_all(&samples);
            let expected_len: usize = 8 + samples.iter().map(Sample::encoded_len).sum::<usize>();
            prop_assert_eq!(bytes.len(), expected_len);
            prop_assert_eq!(read_all(&bytes).unwrap(), samples);
        }
    }

    #[test]
    fn a_game_position_round_trips_through_a_setup() {
        let mut game = Game::new(rules(15, Rule::Renju), Color::Black).unwrap();
        for p in [Pos::new(7, 7), Pos::new(8, 8), Pos::new(6, 7)] {
            game.try_play(p).unwrap();
        }
        let s = Sample::of_game(&game, 12, Pos::new(5, 7), GameResult::Draw);
        assert_eq!(s.ply, 3);
        assert_eq!(s.to_move, Color::White);
        assert_eq!(s.stones.len(), 3);
        let back = s.to_game().unwrap();
        assert_eq!(back.board(), game.board());
        assert_eq!(back.to_move(), Color::White);
        assert_eq!(
            s.position_key(),
            Sample::of_game(&back, 0, Pos::new(0, 0), GameResult::Win).position_key()
        );
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        assert!(matches!(read_all(b"CAROPOS"), Err(DatasetError::BadMagic)));
        assert!(matches!(read_all(b"NOTAFILE"), Err(DatasetError::BadMagic)));
        let s = Sample {
            rules: rules(15, Rule::Freestyle),
            to_move: Color::Black,
            stones: vec![
                (Pos::new(7, 7), Color::Black),
                (Pos::new(8, 7), Color::White),
            ],
            score: -5,
            best: Pos::new(6, 6),
            result: GameResult::Win,
            ply: 2,
        };
        let bytes = write_all(&[s.clone(), s]);
        for cut in [
            9,
            8 + HEADER_BYTES - 1,
            8 + HEADER_BYTES + 1,
            bytes.len() - 1,
        ] {
            match read_all(&bytes[..cut]) {
                Err(DatasetError::Truncated { record }) => assert_eq!(record, u64::from(cut > 26)),
                other => panic!("cut at {cut}: {other:?}"),
            }
        }
        let mut bad_rule = bytes.clone();
        bad_rule[8] = 9;
        let e = read_all(&bad_rule).unwrap_err().to_string();
        assert_eq!(e, "record 0: rule 9");
        let mut bad_stone = bytes.clone();
        bad_stone[8 + HEADER_BYTES] = 0xff;
        bad_stone[8 + HEADER_BYTES + 1] = 0x7f;
        assert!(read_all(&bad_stone)
            .unwrap_err()
            .to_string()
            .starts_with("record 0: stone"));
    }

    #[test]
    fn position_keys_are_fnv1a_of_the_position_bytes() {
        // Worked out apart: FNV-1a 64 of [0, 15, 15, 5, 1, 7, 7, 0] (rule,
        // width, height, k, white to move, the black stone at h8).
        let s = Sample {
            rules: rules(15, Rule::Freestyle),
            to_move: Color::White,
            stones: vec![(Pos::new(7, 7), Color::Black)],
            score: 99,
            best: Pos::new(1, 1),
            result: GameResult::Loss,
            ply: 1,
        };
        assert_eq!(s.position_key(), 0x6ef8_eb47_3669_406b);
        let relabelled = Sample {
            score: -5,
            result: GameResult::Win,
            ..s.clone()
        };
        assert_eq!(relabelled.position_key(), s.position_key());
    }

    #[test]
    fn scores_are_stored_in_range() {
        use crate::Score;
        assert_eq!(stored_score(Score::Eval(123)), 123);
        assert_eq!(stored_score(Score::Eval(99_999)), EVAL_LIMIT);
        assert_eq!(stored_score(Score::WinIn(7)), MATE_SCORE - 7);
        assert_eq!(stored_score(Score::LossIn(4)), -(MATE_SCORE - 4));
        assert_eq!(stored_score(Score::Win), MATE_SCORE - 255);
    }
}
