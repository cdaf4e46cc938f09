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
//! - `{opening}`: `free`, `swap1`, `swap2`, `soosorvN` or `taraguchi10`,
//!   then the state of the opening (see [`opening_field`]): once a
//!   decision has been taken, `-` and the decisions in order, one
//!   character each (`b` take-black, `w` take-white, `t` place-two, `f`
//!   place-fifth, `o` offer-fifths, and a Soosõrv declaration of `N` 5th
//!   moves as the coordinate character of value `N`, `C` for 2, `I` for
//!   8); once black has offered 5th moves, another `-` and the offers in
//!   order, written as the moves are. `soosorv8-wbCw-HJGI`: the second
//!   player kept white, black kept black and declared two 5th moves, white
//!   kept white, and black offered h6 and g7 (the 5th move, white's pick,
//!   is among the moves).
//! - `{first}`: `b` or `w`, the colour of the first move.
//! - `{moves}`: two characters per move, the column `x` then the row `y`
//!   (0-based, `y` from the top), each written as one character of the
//!   URL-safe base64 alphabet `A-Z a-z 0-9 - _` (`A` = 0, `_` = 63). May be
//!   empty, leaving the code ending in `.`.
//!
//! Every character of a code is a letter, a digit or one of `. - _`, none of
//! which needs percent-encoding anywhere in a URL.

use crate::game::{Game, GameSetup, SetupError};
use crate::opening::{Choice, Opening, MAX_OFFERS};
use crate::pos::{BoardSize, Color, Pos, SizeError};
use crate::rule::{Rule, Rules, RulesError};
use crate::table::{Sitter, Table, TableError};

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
    /// The opening field: one of [`OPENINGS`] and the opening's decisions
    /// and offers so far, as [`opening_field`] writes them.
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
    /// An opening field with an empty or an extra `-` part.
    #[error("bad opening field {0:?} in position code: expected NAME, NAME-DECISIONS or NAME-DECISIONS-OFFERS")]
    BadOpeningField(String),
    /// A decision character that is none of `b w t f o` or a Soosõrv
    /// declaration's count.
    #[error(
        "{0:?} is not an opening decision: expected b, w, t, f, o or a count B to Q (1 to 16)"
    )]
    BadChoice(char),
    /// More decisions than an opening takes.
    #[error("the {opening} opening cannot have {choices} decisions")]
    TooManyChoices {
        /// The opening.
        opening: String,
        /// How many the code holds.
        choices: usize,
    },
    /// The moves, decisions and offers do not replay under the opening.
    #[error("the position code's {opening} opening does not replay: {error}")]
    Opening {
        /// The opening.
        opening: Opening,
        /// What the table refused.
        error: TableError,
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

    /// The code of a table's game with its opening's whole state: the
    /// opening, the decisions taken and the 5th moves offered so far.
    ///
    /// # Errors
    /// [`CodeError::HasSetup`] as for [`PositionCode::from_game`].
    pub fn from_table(table: &Table) -> Result<PositionCode, CodeError> {
        let field = opening_field(table.opening().opening(), table.choices(), table.offers());
        PositionCode::from_game(table.game(), &field)
    }

    /// The opening, its decisions and its offered 5th moves, read from the
    /// opening field.
    ///
    /// # Errors
    /// As [`split_opening_field`].
    pub fn coded_opening(&self) -> Result<CodedOpening, CodeError> {
        split_opening_field(&self.opening, self.size)
    }

    /// Replays the code onto a table with `sitters`: the moves in order,
    /// each decision and offer of the opening as it falls due, so the
    /// table stands where the coded one stood (in the middle of the
    /// opening too).
    ///
    /// # Errors
    /// [`CodeError::Rules`] for rules that do not go together,
    /// [`CodeError::Opening`] naming what the table refused.
    pub fn to_table(&self, sitters: [Sitter; 2]) -> Result<Table, CodeError> {
        let coded = self.coded_opening()?;
        let rules = Rules::new(self.size, self.k, self.rule)?;
        Table::replay_with_offers(
            rules,
            self.first,
            coded.opening,
            sitters,
            &self.moves,
            &[],
            &coded.choices,
            &coded.offers,
        )
        .map_err(|error| CodeError::Opening {
            opening: coded.opening,
            error,
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

/// An opening as a code's opening field holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CodedOpening {
    /// The opening.
    pub opening: Opening,
    /// The decisions taken so far, in order.
    pub choices: Vec<Choice>,
    /// The 5th moves black offered so far, in order.
    pub offers: Vec<Pos>,
}

/// Most decisions an opening takes (Taraguchi-10's five swaps and black's
/// choice come to six).
const MAX_CHOICES: usize = 8;

/// The opening field of a code: the opening's name; once a decision has
/// been taken, `-` and the decisions, one character each ([`choice_char`]);
/// once black has offered 5th moves, another `-` and the offers written as
/// moves are.
#[must_use]
pub fn opening_field(opening: Opening, choices: &[Choice], offers: &[Pos]) -> String {
    let mut out = opening.name().to_string();
    if !choices.is_empty() || !offers.is_empty() {
        out.push('-');
        out.extend(choices.iter().map(|&c| choice_char(c)));
    }
    if !offers.is_empty() {
        out.push('-');
        for pos in offers {
            out.push(char::from(ALPHABET[usize::from(pos.x) % 64]));
            out.push(char::from(ALPHABET[usize::from(pos.y) % 64]));
        }
    }
    out
}

/// The character that writes a decision in a code: `b` take-black, `w`
/// take-white, `t` place-two, `f` place-fifth, `o` offer-fifths, and the
/// declaration of `N` 5th moves the coordinate character of value `N`
/// (`B` = 1 … `Q` = 16).
#[must_use]
pub fn choice_char(choice: Choice) -> char {
    match choice {
        Choice::TakeBlack => 'b',
        Choice::TakeWhite => 'w',
        Choice::PlaceTwo => 't',
        Choice::PlaceFifth => 'f',
        Choice::OfferFifths => 'o',
        Choice::Offers(n) => char::from(ALPHABET[usize::from(n.clamp(1, MAX_OFFERS))]),
    }
}

/// The decision a character writes (see [`choice_char`]).
fn choice_of(c: char) -> Option<Choice> {
    match c {
        'b' => Some(Choice::TakeBlack),
        'w' => Some(Choice::TakeWhite),
        't' => Some(Choice::PlaceTwo),
        'f' => Some(Choice::PlaceFifth),
        'o' => Some(Choice::OfferFifths),
        'B'..='Q' => u8::try_from(c)
            .ok()
            .and_then(char_value)
            .map(Choice::Offers),
        _ => None,
    }
}

/// Reads an opening field (see [`opening_field`]) for a board of `size`:
/// the opening, its decisions and the offered 5th moves. Whether they go
/// together is left to [`PositionCode::to_table`].
///
/// # Errors
/// [`CodeError::UnknownOpening`] for a name that is not an opening's,
/// [`CodeError::BadOpeningField`] for an empty or extra part,
/// [`CodeError::BadChoice`] and [`CodeError::TooManyChoices`] for
/// decisions that cannot be read, [`CodeError::BadOffers`] for offers the
/// opening does not allow, and the move errors for offers that cannot be
/// read.
pub fn split_opening_field(field: &str, size: BoardSize) -> Result<CodedOpening, CodeError> {
    let mut parts = field.split('-');
    let name = parts.next().unwrap_or_default();
    let choices = parts.next();
    let offers = parts.next();
    // Only the written names: `soosorv08` or `Free` are not a code's.
    let opening = name
        .parse::<Opening>()
        .ok()
        .filter(|o| o.name() == name)
        .ok_or_else(|| CodeError::UnknownOpening(truncate(field)))?;
    // An empty or extra part is written by no one: `swap2-`,
    // `soosorv8-wbCw-` or `soosorv8-wbCw-HJ-GI`.
    if parts.next().is_some() || choices == Some("") || offers == Some("") {
        return Err(CodeError::BadOpeningField(truncate(field)));
    }
    let choices = choices.unwrap_or_default();
    if choices.chars().count() > MAX_CHOICES {
        return Err(CodeError::TooManyChoices {
            opening: opening.name().to_string(),
            choices: choices.chars().count(),
        });
    }
    let choices = choices
        .chars()
        .map(|c| choice_of(c).ok_or(CodeError::BadChoice(c)))
        .collect::<Result<Vec<_>, _>>()?;
    let offers = parse_moves(offers.unwrap_or_default(), size)?;
    if offers.len() > usize::from(opening.max_offers()) {
        return Err(CodeError::BadOffers {
            opening: opening.name().to_string(),
            offers: offers.len(),
        });
    }
    Ok(CodedOpening {
        opening,
        choices,
        offers,
    })
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
    use crate::opening::{Seat, SOOSORV8};
    use crate::table::{Actor, Turn};
    use proptest::prelude::*;

    fn renju() -> Rules {
        Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap()
    }

    fn point(text: &str) -> Pos {
        crate::notation::parse_pos(text, BoardSize::square(15)).unwrap()
    }

    /// A table driven by `picks`: each decision the pick's option, each
    /// stone, offer or pick the first point from the pick's that the table
    /// takes. Stops after `steps` actions or at the end of the picks.
    fn driven(opening: Opening, steps: usize, picks: &[u16]) -> Table {
        let sitters = [Sitter::Human, Sitter::Human];
        let mut table = Table::new(renju(), Color::Black, opening, sitters).unwrap();
        let area = renju().size.area();
        for &pick in picks.iter().take(steps) {
            match table.turn() {
                Turn::Choose { seat, options } => {
                    let choice = options[usize::from(pick) % options.len()];
                    table.choose(Actor::Seat(seat), choice).unwrap();
                }
                Turn::Move { seat, .. } | Turn::Offer { seat, .. } | Turn::Pick { seat } => {
                    let taken = (0..area).any(|i| {
                        let n = (usize::from(pick) + i) % area;
                        let pos = Pos::new((n % 15) as u8, (n / 15) as u8);
                        table.play(Actor::Seat(seat), pos).is_ok()
                    });
                    assert!(taken, "no point taken at {:?}", table.turn());
                }
                Turn::Over => break,
            }
        }
        table
    }

    #[test]
    fn a_soosorv8_opening_round_trips_with_its_decisions_and_offers() {
        let sitters = [Sitter::Human, Sitter::Human];
        let mut t = Table::new(renju(), Color::Black, SOOSORV8, sitters.clone()).unwrap();
        let first = Actor::Seat(Seat::First);
        let second = Actor::Seat(Seat::Second);
        for (actor, pos) in [(first, "h8"), (first, "h9"), (first, "j10")] {
            t.play(actor, point(pos)).unwrap();
        }
        // The second player swaps: it holds black from now on.
        t.choose(second, Choice::TakeBlack).unwrap();
        t.play(first, point("h10")).unwrap();
        t.choose(second, Choice::TakeBlack).unwrap();
        t.choose(second, Choice::Offers(2)).unwrap();
        t.choose(first, Choice::TakeWhite).unwrap();
        t.play(second, point("g7")).unwrap();

        let code = PositionCode::from_table(&t).unwrap();
        assert_eq!(
            code.encode(),
            "v1.15x15.5.renju.soosorv8-bbCw-GI.b.HHHGJFHF"
        );
        let back = PositionCode::decode(&code.encode())
            .unwrap()
            .to_table(sitters)
            .unwrap();
        assert_eq!(back, t);
        assert_eq!(back.choices(), t.choices());
        assert_eq!(back.offers(), &[point("g7")]);
        assert_eq!(
            back.turn(),
            Turn::Offer {
                seat: Seat::Second,
                made: 1,
                total: 2
            }
        );
        assert_eq!(back.opening().holder(), Seat::Second);
        assert_eq!(
            code.coded_opening().unwrap(),
            CodedOpening {
                opening: SOOSORV8,
                choices: vec![
                    Choice::TakeBlack,
                    Choice::TakeBlack,
                    Choice::Offers(2),
                    Choice::TakeWhite
                ],
                offers: vec![point("g7")],
            }
        );
    }

    #[test]
    fn every_decision_has_its_own_character() {
        let mut all: Vec<Choice> = Choice::ALL.to_vec();
        all.extend((1..=MAX_OFFERS).map(Choice::Offers));
        let chars: Vec<char> = all.iter().map(|&c| choice_char(c)).collect();
        for (&choice, &c) in all.iter().zip(&chars) {
            assert_eq!(choice_of(c), Some(choice), "{c}");
            assert_eq!(chars.iter().filter(|&&d| d == c).count(), 1, "{c}");
        }
        assert_eq!(choice_char(Choice::Offers(8)), 'I');
        assert_eq!(choice_of('A'), None);
        assert_eq!(choice_of('R'), None);
    }

    #[test]
    fn bad_opening_fields_say_why() {
        let size = BoardSize::square(15);
        let split = |f: &str| split_opening_field(f, size).unwrap_err();
        for field in [
            "swap2-",
            "soosorv8-bbCw-",
            "soosorv8-bbCw-GI-HH",
            "soosorv8--GI",
        ] {
            assert_eq!(
                split(field),
                CodeError::BadOpeningField(field.to_string()),
                "{field}"
            );
        }
        assert_eq!(split("soosorv8-bx"), CodeError::BadChoice('x'));
        assert_eq!(split("soosorv8-bR"), CodeError::BadChoice('R'));
        assert!(matches!(
            split("taraguchi10-bbbbbbbbb"),
            CodeError::TooManyChoices { choices: 9, .. }
        ));
        assert!(matches!(
            split("soosorv2-bbCw-AABBCC"),
            CodeError::BadOffers { offers: 3, .. }
        ));
        assert!(matches!(split("free-b-AA"), CodeError::BadOffers { .. }));
        // Read, but the table refuses: a declaration of two with none due.
        let code = PositionCode::decode("v1.15x15.5.renju.soosorv8-C.b.HH").unwrap();
        let e = code.to_table([Sitter::Human, Sitter::Human]).unwrap_err();
        assert!(
            matches!(
                e,
                CodeError::Opening {
                    opening: SOOSORV8,
                    ..
                }
            ),
            "{e}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A renju or swap opening stopped anywhere (in the middle of its
        /// phases too) comes back from its code as the same table: the
        /// stones, the decisions, the offers and whose turn it is.
        #[test]
        fn codes_round_trip_the_opening_state(
            opening in prop::sample::select(vec![
                Opening::Swap1, Opening::Swap2, SOOSORV8, Opening::Soosorv(3),
                Opening::Soosorv(16), Opening::Taraguchi10,
            ]),
            steps in 0usize..40,
            picks in prop::collection::vec(any::<u16>(), 40),
        ) {
            let table = driven(opening, steps, &picks);
            let text = PositionCode::from_table(&table).unwrap().encode();
            prop_assert!(
                text.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)),
                "{} needs percent-encoding", text
            );
            let read = PositionCode::decode(&text).unwrap();
            prop_assert_eq!(read.encode(), text.clone());
            let back = read.to_table([Sitter::Human, Sitter::Human]).unwrap();
            prop_assert_eq!(back.turn(), table.turn(), "{}", text);
            prop_assert_eq!(back.choices(), table.choices());
            prop_assert_eq!(back.offers(), table.offers());
            prop_assert_eq!(back.opening(), table.opening());
            prop_assert_eq!(back.game(), table.game());
        }
    }

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
