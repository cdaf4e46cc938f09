//! A compact position code for URLs: board, win length, rule, opening,
//! first player and moves in one short string.
//!
//! The code has seven fields separated by dots:
//!
//! ```text
//! v1.{W}x{H}.{k}.{rule}.{opening}.{first}.{moves}
//! v1.15x15.5.renju.swap2.b.HHIIGH
//! ```
//!
//! - `v1`: the format version.
//! - `{W}x{H}`: columns by rows, in decimal, each from 3 to 60.
//! - `{k}`: stones in a row needed to win, in decimal.
//! - `{rule}`: the rule's name: `freestyle`, `standard`, `renju`, `caro` or
//!   `caro-standard`.
//! - `{opening}`: `free`, `swap1`, `swap2`, `soosorvN` or `taraguchi10`.
//!   After a renju opening in which black offered 5th moves, the offers
//!   follow the name after a `-`, written as the moves are:
//!   `soosorv8-HJGI` offered h6 and g7 (see [`opening_field`]).
//! - `{first}`: `b` or `w`, the colour of the first move.
//! - `{moves}`: two characters per move, the column `x` then the row `y`
//!   (0-based, `y` from the top), each written as one character of the
//!   URL-safe base64 alphabet `A-Z a-z 0-9 - _` (`A` = 0, `_` = 63). May be
//!   empty, leaving the code ending in `.`.
//!
//! Every character of a code is a letter, a digit or one of `. - _`, none of
//! which needs percent-encoding anywhere in a URL.

use crate::game::{Game, GameSetup, SetupError};
use crate::opening::Opening;
use crate::pos::{BoardSize, Color, Pos, SizeError};
use crate::rule::{Rule, Rules, RulesError};

/// The format version, the code's first field.
pub const VERSION: &str = "v1";

/// The openings a code may name (and `soosorvN` for any other `N`).
pub const OPENINGS: [&str; 5] = ["free", "swap1", "swap2", "soosorv8", "taraguchi10"];

/// The 64 characters that write a coordinate, in order of value.
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// A position as a URL code holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionCode {
    /// The board.
    pub size: BoardSize,
    /// Stones in a row needed to win.
    pub k: u8,
    /// The rule set.
    pub rule: Rule,
    /// The opening: one of [`OPENINGS`].
    pub opening: String,
    /// The colour of the first move.
    pub first: Color,
    /// The moves, in order, alternating colours from `first`.
    pub moves: Vec<Pos>,
}

/// A position code that could not be read, or a game that cannot be
/// written as one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    /// The first field is not `v1`.
    #[error("unsupported position code version {0:?}: expected {VERSION}")]
    BadVersion(String),
    /// Not seven dot-separated fields.
    #[error("a position code has 7 fields separated by dots (v1.WxH.k.rule.opening.first.moves), found {0}")]
    FieldCount(usize),
    /// The size field is not `WxH`.
    #[error("bad board size {0:?} in position code: expected width x height such as 15x15")]
    BadSize(String),
    /// A side is out of range.
    #[error(transparent)]
    SizeRange(#[from] SizeError),
    /// The k field is not a number.
    #[error("bad win length {0:?} in position code: expected a number such as 5")]
    BadK(String),
    /// Win length, rule, board and first player do not go together.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// Not a rule name.
    #[error("unknown rule {0:?} in position code: expected freestyle, standard, renju, caro or caro-standard")]
    UnknownRule(String),
    /// Not an opening name.
    #[error(
        "unknown opening {0:?}: expected free, swap1, swap2, soosorv8 (soosorvN) or taraguchi10"
    )]
    UnknownOpening(String),
    /// Offered 5th moves after an opening that offers none, or more than
    /// it allows.
    #[error("the {opening} opening cannot have {offers} offered 5th moves")]
    BadOffers {
        /// The opening.
        opening: String,
        /// How many the code holds.
        offers: usize,
    },
    /// Not `b` or `w`.
    #[error("bad first player {0:?} in position code: expected b or w")]
    BadFirst(String),
    /// The move field has an odd length.
    #[error("the moves of a position code take two characters each, but there are {0}")]
    OddMoves(usize),
    /// A move character outside the alphabet.
    #[error("move {number}: {found:?} is not a coordinate character (A-Z, a-z, 0-9, - or _)")]
    BadChar {
        /// 1-based move number.
        number: usize,
        /// The character.
        found: char,
    },
    /// A move off the board.
    #[error("move {number}: {},{} is off the {size} board", .pos.x, .pos.y)]
    OffBoard {
        /// 1-based move number.
        number: usize,
        /// The point (0-based).
        pos: Pos,
        /// The board.
        size: BoardSize,
    },
    /// More moves than points.
    #[error("{moves} moves do not fit on the {size} board")]
    TooManyMoves {
        /// How many moves.
        moves: usize,
        /// The board.
        size: BoardSize,
    },
    /// The game starts from freely placed stones, which a code cannot hold.
    #[error("a position code cannot hold a game that starts from placed stones or a chosen side to move")]
    HasSetup,
    /// The moves do not make a legal game.
    #[error(transparent)]
    Setup(#[from] SetupError),
}

impl PositionCode {
    /// The code of a game's moves, with the name of its opening.
    ///
    /// # Errors
    /// [`CodeError::UnknownOpening`] for an opening not in [`OPENINGS`];
    /// [`CodeError::HasSetup`] for a game that starts from placed stones
    /// (or with a side to move other than its first player).
    pub fn from_game(game: &Game, opening: &str) -> Result<PositionCode, CodeError> {
        split_opening_field(opening, game.size())?;
        if !game.setup_stones().is_empty() || game.setup_to_move() != game.first() {
            return Err(CodeError::HasSetup);
        }
        let rules = game.rules();
        Ok(PositionCode {
            size: rules.size,
            k: rules.k,
            rule: rules.rule,
            opening: opening.to_string(),
            first: game.first(),
            moves: game.moves().to_vec(),
        })
    }

    /// Replays the moves into a game, checking every move.
    ///
    /// # Errors
    /// [`CodeError::Setup`] naming the first illegal move (or bad rules).
    pub fn to_game(&self) -> Result<Game, CodeError> {
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

    /// The code as a string. Moves must be on the board (as [`decode`] and
    /// [`PositionCode::from_game`] ensure): a coordinate above 63 cannot be
    /// written and wraps around.
    ///
    /// [`decode`]: PositionCode::decode
    #[must_use]
    pub fn encode(&self) -> String {
        let first = match self.first {
            Color::Black => 'b',
            Color::White => 'w',
        };
        let mut out = format!(
            "{VERSION}.{}x{}.{}.{}.{}.{first}.",
            self.size.width,
            self.size.height,
            self.k,
            self.rule.name(),
            self.opening
        );
        out.reserve(self.moves.len() * 2);
        for pos in &self.moves {
            out.push(char::from(ALPHABET[usize::from(pos.x) % 64]));
            out.push(char::from(ALPHABET[usize::from(pos.y) % 64]));
        }
        out
    }

    /// Reads a code. Checks every field, and that the moves are on the
    /// board and no more than its points; whether they make a legal game is
    /// left to [`PositionCode::to_game`].
    ///
    /// # Errors
    /// [`CodeError`] saying which field is wrong.
    pub fn decode(code: &str) -> Result<PositionCode, CodeError> {
        let fields: Vec<&str> = code.split('.').collect();
        if fields.first() != Some(&VERSION) {
            let version = fields.first().copied().unwrap_or_default();
            return Err(CodeError::BadVersion(truncate(version)));
        }
        let [_, size, k, rule, opening, first, moves] = fields[..] else {
            return Err(CodeError::FieldCount(fields.len()));
        };

        let size = parse_size(size)?;
        let k_text = k;
        let k = parse_decimal(k_text)
            .and_then(|v| u8::try_from(v).ok())
            .ok_or_else(|| CodeError::BadK(truncate(k_text)))?;
        let rule = Rule::ALL
            .into_iter()
            .find(|r| r.name() == rule)
            .ok_or_else(|| CodeError::UnknownRule(truncate(rule)))?;
        Rules::new(size, k, rule)?;
        split_opening_field(opening, size)?;
        let first = match first {
            "b" => Color::Black,
            "w" => Color::White,
            _ => return Err(CodeError::BadFirst(truncate(first))),
        };
        if rule == Rule::Renju && first != Color::Black {
            return Err(RulesError::RenjuBlackFirst.into());
        }

        let moves = parse_moves(moves, size)?;
        Ok(PositionCode {
            size,
            k,
            rule,
            opening: opening.to_string(),
            first,
            moves,
        })
    }
}

impl std::fmt::Display for PositionCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.encode())
    }
}

impl std::str::FromStr for PositionCode {
    type Err = CodeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PositionCode::decode(s)
    }
}

/// At most 40 characters of untrusted text, for an error message.
fn truncate(text: &str) -> String {
    text.chars().take(40).collect()
}

/// The opening field of a code: the opening's name, then after a renju
/// opening in which black offered 5th moves, `-` and the offers written as
/// moves are.
#[must_use]
pub fn opening_field(opening: Opening, offers: &[Pos]) -> String {
    let mut out = opening.name().to_string();
    if !offers.is_empty() {
        out.push('-');
        for pos in offers {
            out.push(char::from(ALPHABET[usize::from(pos.x) % 64]));
            out.push(char::from(ALPHABET[usize::from(pos.y) % 64]));
        }
    }
    out
}

/// Reads an opening field (see [`opening_field`]) for a board of `size`:
/// the opening and the offered 5th moves.
///
/// # Errors
/// [`CodeError::UnknownOpening`] for a name that is not an opening's,
/// [`CodeError::BadOffers`] for offers the opening does not allow, and the
/// move errors for offers that cannot be read.
pub fn split_opening_field(field: &str, size: BoardSize) -> Result<(Opening, Vec<Pos>), CodeError> {
    let (name, offers) = field.split_once('-').unwrap_or((field, ""));
    // Only the written names: `soosorv08` or `Free` are not a code's.
    let opening = name
        .parse::<Opening>()
        .ok()
        .filter(|o| o.name() == name)
        .ok_or_else(|| CodeError::UnknownOpening(truncate(field)))?;
    let offers = parse_moves(offers, size)?;
    if offers.len() > usize::from(opening.max_offers())
        || (field.contains('-') && offers.is_empty())
    {
        return Err(CodeError::BadOffers {
            opening: opening.name().to_string(),
            offers: offers.len(),
        });
    }
    Ok((opening, offers))
}

/// A decimal number of one to three digits.
fn parse_decimal(text: &str) -> Option<u16> {
    if text.is_empty() || text.len() > 3 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn parse_size(text: &str) -> Result<BoardSize, CodeError> {
    let bad = || CodeError::BadSize(truncate(text));
    let (w, h) = text.split_once('x').ok_or_else(bad)?;
    let (w, h) = (
        parse_decimal(w).ok_or_else(bad)?,
        parse_decimal(h).ok_or_else(bad)?,
    );
    let narrow = |side: &'static str, value: u16| {
        u8::try_from(value).map_err(|_| CodeError::SizeRange(SizeError { side, value }))
    };
    Ok(BoardSize::new(narrow("width", w)?, narrow("height", h)?)?)
}

/// The value of one coordinate character.
fn char_value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'-' => Some(62),
        b'_' => Some(63),
        _ => None,
    }
}

fn parse_moves(text: &str, size: BoardSize) -> Result<Vec<Pos>, CodeError> {
    // Check characters first, so a multi-byte character is named whole.
    for (i, c) in text.char_indices() {
        if !c.is_ascii() || char_value(c as u8).is_none() {
            return Err(CodeError::BadChar {
                number: i / 2 + 1,
                found: c,
            });
        }
    }
    let bytes = text.as_bytes();
    if bytes.len() % 2 != 0 {
        return Err(CodeError::OddMoves(bytes.len()));
    }
    if bytes.len() / 2 > size.area() {
        return Err(CodeError::TooManyMoves {
            moves: bytes.len() / 2,
            size,
        });
    }
    let mut moves = Vec::with_capacity(bytes.len() / 2);
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        let number = i + 1;
        let (Some(x), Some(y)) = (char_value(pair[0]), char_value(pair[1])) else {
            // Unreachable after the check above; an error all the same.
            return Err(CodeError::BadChar {
                number,
                found: char::from(pair[0]),
            });
        };
        let pos = Pos::new(x, y);
        if !size.contains(pos) {
            return Err(CodeError::OffBoard { number, pos, size });
        }
        moves.push(pos);
    }
    Ok(moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::MoveError;

    #[test]
    fn alphabet_and_values_agree() {
        for (i, &c) in ALPHABET.iter().enumerate() {
            assert_eq!(char_value(c), Some(i as u8));
        }
        assert_eq!(char_value(b'.'), None);
        assert_eq!(char_value(b'='), None);
    }

    #[test]
    fn encodes_and_decodes() {
        let code = PositionCode {
            size: BoardSize::square(15),
            k: 5,
            rule: Rule::Renju,
            opening: "swap2".into(),
            first: Color::Black,
            moves: vec![Pos::new(7, 7), Pos::new(8, 8), Pos::new(6, 7)],
        };
        let text = code.encode();
        assert_eq!(text, "v1.15x15.5.renju.swap2.b.HHIIGH");
        assert_eq!(PositionCode::decode(&text).unwrap(), code);
        assert_eq!(text.parse::<PositionCode>().unwrap(), code);

        let empty = "v1.60x3.10.caro-standard.free.w.";
        let c = PositionCode::decode(empty).unwrap();
        assert_eq!(c.size, BoardSize::new(60, 3).unwrap());
        assert!(c.moves.is_empty());
        assert_eq!(c.encode(), empty);

        let corner = PositionCode::decode("v1.60x60.5.caro.free.b.7AA7").unwrap();
        assert_eq!(corner.moves, vec![Pos::new(59, 0), Pos::new(0, 59)]);
        assert!(matches!(
            PositionCode::decode("v1.60x60.5.caro.free.b.8A"),
            Err(CodeError::OffBoard { number: 1, .. })
        ));
    }

    #[test]
    fn bad_codes_say_why() {
        let d = |t: &str| PositionCode::decode(t).unwrap_err();
        assert!(matches!(d(""), CodeError::BadVersion(_)));
        assert!(matches!(
            d("v2.15x15.5.renju.free.b."),
            CodeError::BadVersion(_)
        ));
        assert_eq!(d("v1.15x15.5.renju.free.b"), CodeError::FieldCount(6));
        assert_eq!(d("v1.15x15.5.renju.free.b.."), CodeError::FieldCount(8));
        assert!(matches!(d("v1.15.5.renju.free.b."), CodeError::BadSize(_)));
        assert!(matches!(
            d("v1.15x1500.5.renju.free.b."),
            CodeError::BadSize(_)
        ));
        assert!(matches!(
            d("v1.15x300.5.renju.free.b."),
            CodeError::SizeRange(_)
        ));
        assert!(matches!(
            d("v1.15x61.5.renju.free.b."),
            CodeError::SizeRange(_)
        ));
        assert!(matches!(d("v1.15x15.x.renju.free.b."), CodeError::BadK(_)));
        assert!(matches!(
            d("v1.15x15.11.free.free.b."),
            CodeError::UnknownRule(_)
        ));
        assert!(matches!(
            d("v1.15x15.11.freestyle.free.b."),
            CodeError::Rules(RulesError::BadK { .. })
        ));
        assert!(matches!(
            d("v1.15x15.6.renju.free.b."),
            CodeError::Rules(RulesError::RenjuNeedsFive(6))
        ));
        assert!(matches!(
            d("v1.15x15.5.renju.free.w."),
            CodeError::Rules(RulesError::RenjuBlackFirst)
        ));
        assert!(matches!(
            d("v1.15x15.5.renju.swap3.b."),
            CodeError::UnknownOpening(_)
        ));
        assert!(matches!(
            d("v1.15x15.5.renju.free.x."),
            CodeError::BadFirst(_)
        ));
        assert_eq!(d("v1.15x15.5.renju.free.b.HHI"), CodeError::OddMoves(3));
        assert_eq!(
            d("v1.15x15.5.renju.free.b.HHIé"),
            CodeError::BadChar {
                number: 2,
                found: 'é'
            }
        );
        assert_eq!(
            d("v1.15x15.5.renju.free.b.HHIP").to_string(),
            "move 2: 8,15 is off the 15x15 board"
        );
        assert!(matches!(
            d("v1.3x3.3.freestyle.free.b.AAAAAAAAAAAAAAAAAAAA"),
            CodeError::TooManyMoves { moves: 10, .. }
        ));
    }

    #[test]
    fn games_convert_both_ways() {
        let rules = Rules::new(BoardSize::new(20, 30).unwrap(), 5, Rule::Caro).unwrap();
        let moves = [Pos::new(19, 29), Pos::new(0, 0), Pos::new(10, 20)];
        let game = Game::from_moves(rules, Color::White, &moves).unwrap();
        let code = PositionCode::from_game(&game, "swap1").unwrap();
        assert_eq!(PositionCode::decode(&code.encode()).unwrap(), code);
        assert_eq!(code.to_game().unwrap(), game);
        assert!(matches!(
            PositionCode::from_game(&game, "swap9"),
            Err(CodeError::UnknownOpening(_))
        ));

        let twice = PositionCode::decode("v1.15x15.5.freestyle.free.b.HHIIHH").unwrap();
        assert!(matches!(
            twice.to_game(),
            Err(CodeError::Setup(SetupError::Move {
                number: 3,
                error: MoveError::Occupied { .. }
            }))
        ));
    }
}
