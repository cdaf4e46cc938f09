//! Openings — `free`, `swap1`, `swap2` and renju's tournament openings
//! `soosorvN` and `taraguchi10` — as a state machine.
//!
//! An opening decides the first stones and who plays which colour. The
//! state machine only keeps track of whose turn it is in the opening and
//! what they must do; placing the stones on a board (and checking the
//! points) is the caller's business. The caller asks [`OpeningState::step`]
//! what must happen next, then reports it with
//! [`OpeningState::stone_placed`] or [`OpeningState::choose`]. A refused
//! action returns an [`OpeningError`] and leaves the state unchanged.
//!
//! The two players are [`Seat::First`], who opens (places the first
//! stones), and [`Seat::Second`].
//!
//! - `free`: no stones; the first seat plays black.
//! - `swap1`: the first seat places black, white, black; the second seat
//!   then takes black or takes white.
//! - `swap2`: the first seat places black, white, black; the second seat
//!   takes black, takes white, or places two more stones (white, then
//!   black), after which the first seat takes black or takes white.
//!
//! - `soosorvN` (Soosõrv-N, the RIF rule; `soosorv8` is the world
//!   championships' standard): the first seat (tentative black) places
//!   black at the centre, white in the central 3×3 and black in the central
//!   5×5 (one of the 26 canonical openings); the tentative white may swap;
//!   white places the 4th stone anywhere; black may swap; black declares
//!   how many 5th moves it will offer (1 to N); white may swap; black
//!   offers that many 5th moves, no two symmetric to each other; white
//!   picks one of them as the 5th move and plays the 6th.
//! - `taraguchi10` (Taraguchi-10, the RIF rule): black at the centre, then
//!   white in the central 3×3, black in the 5×5 and white in the 7×7, the
//!   other player may swap after each; then black either places the 5th
//!   stone in the central 9×9 (the other player may swap once more) or
//!   offers ten 5th moves, no two symmetric to each other, of which white
//!   picks one.
//!
//! In the renju openings the player who holds a colour places its stones
//! and a swap exchanges the colours: [`OpeningState::holder`] says who
//! holds black for now. The points a stone may go on are given by
//! [`OpeningState::zone`] and checked with [`OpeningState::check_place`];
//! offers are checked against the position with [`OpeningState::offer`]
//! (fouls and occupied points are the caller's business, as for stones).
//!
//! Once the opening is [done](OpeningStep::Done) the game goes on normally
//! and the side to move follows from the stones on the board: with `free`
//! there are none and black moves first; after three stones (two black, one
//! white) or five stones (three black, two white) white moves next.
//!
//! ```
//! use caro_core::Color;
//! use caro_core::opening::{Choice, Opening, OpeningState, OpeningStep, Seat};
//!
//! let mut state = OpeningState::new(Opening::Swap1);
//! for color in [Color::Black, Color::White, Color::Black] {
//!     assert_eq!(state.step(), OpeningStep::Place { seat: Seat::First, color });
//!     state.stone_placed(color).unwrap();
//! }
//! state.choose(Seat::Second, Choice::TakeWhite).unwrap();
//! assert_eq!(state.step(), OpeningStep::Done { black: Seat::First });
//! assert_eq!(state.seat_of(Color::White), Some(Seat::Second));
//! ```

use std::fmt;

use crate::board::Board;
use crate::notation::format_pos;
use crate::pos::{BoardSize, Color, Pos};

pub mod renju;
pub mod symmetry;

/// The most 5th moves a renju opening may offer (the largest `N` of
/// `soosorvN`).
pub const MAX_OFFERS: u8 = 16;

/// How a game opens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Opening {
    /// No opening stones; the first seat plays black.
    #[default]
    Free,
    /// The first seat places three stones, the second chooses a colour.
    Swap1,
    /// The first seat places three stones; the second takes a colour or
    /// places two more and lets the first choose.
    Swap2,
    /// Soosõrv-N, renju's tournament opening (RIF rule): three canonical
    /// stones, a fourth, then up to N offered 5th moves. `N` is from 1 to
    /// [`MAX_OFFERS`]; 8 is the standard.
    Soosorv(u8),
    /// Taraguchi-10, renju's other tournament opening (RIF rule): stones in
    /// growing central squares with a swap after each, then a 5th stone in
    /// the central 9×9 or ten offered 5th moves.
    Taraguchi10,
}

/// `soosorv1` … `soosorv16`.
const SOOSORV_NAMES: [&str; MAX_OFFERS as usize] = [
    "soosorv1",
    "soosorv2",
    "soosorv3",
    "soosorv4",
    "soosorv5",
    "soosorv6",
    "soosorv7",
    "soosorv8",
    "soosorv9",
    "soosorv10",
    "soosorv11",
    "soosorv12",
    "soosorv13",
    "soosorv14",
    "soosorv15",
    "soosorv16",
];

/// The standard Soosõrv opening, Soosõrv-8.
pub const SOOSORV8: Opening = Opening::Soosorv(8);

/// How many 5th moves Taraguchi-10 offers.
pub const TARAGUCHI_OFFERS: u8 = 10;

impl Opening {
    /// The usual openings: free, swap1, swap2, soosorv8 and taraguchi10
    /// (`soosorvN` takes any other `N` too).
    pub const ALL: [Opening; 5] = [
        Opening::Free,
        Opening::Swap1,
        Opening::Swap2,
        SOOSORV8,
        Opening::Taraguchi10,
    ];

    /// `"free"`, `"swap1"`, `"swap2"`, `"soosorv8"` (`"soosorvN"`) or
    /// `"taraguchi10"`: the name used in the CLI, API, UI and files.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Opening::Free => "free",
            Opening::Swap1 => "swap1",
            Opening::Swap2 => "swap2",
            Opening::Soosorv(n) => SOOSORV_NAMES[Opening::clamp(n) as usize - 1],
            Opening::Taraguchi10 => "taraguchi10",
        }
    }

    /// Soosõrv-`n`.
    ///
    /// # Errors
    /// [`OpeningError::BadOfferCount`] unless `n` is from 1 to
    /// [`MAX_OFFERS`].
    pub fn soosorv(n: u8) -> Result<Opening, OpeningError> {
        if (1..=MAX_OFFERS).contains(&n) {
            Ok(Opening::Soosorv(n))
        } else {
            Err(OpeningError::BadOfferCount(n.to_string()))
        }
    }

    const fn clamp(n: u8) -> u8 {
        if n == 0 {
            1
        } else if n > MAX_OFFERS {
            MAX_OFFERS
        } else {
            n
        }
    }

    /// Whether this is one of renju's tournament openings (`soosorvN`,
    /// `taraguchi10`): played under the renju rule only, with zones,
    /// offered 5th moves and undo through its phases.
    #[must_use]
    pub const fn is_renju(self) -> bool {
        matches!(self, Opening::Soosorv(_) | Opening::Taraguchi10)
    }

    /// The most 5th moves black may offer: `N` for Soosõrv-N, 10 for
    /// Taraguchi-10, 0 for the others.
    #[must_use]
    pub const fn max_offers(self) -> u8 {
        match self {
            Opening::Soosorv(n) => Opening::clamp(n),
            Opening::Taraguchi10 => TARAGUCHI_OFFERS,
            Opening::Free | Opening::Swap1 | Opening::Swap2 => 0,
        }
    }
}

impl fmt::Display for Opening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Opening {
    type Err = OpeningError;

    /// An opening by name, ignoring case and surrounding spaces; a `-`
    /// may stand between the name and the number (`soosorv-8`,
    /// `taraguchi-10`), and `soosõrv` is read as `soosorv`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_lowercase().replace('õ', "o");
        if let Some(n) = wanted.strip_prefix("soosorv") {
            let n = n.strip_prefix('-').unwrap_or(n);
            return match n.parse::<u8>() {
                Ok(n) => Opening::soosorv(n),
                Err(_) => Err(OpeningError::BadOfferCount(n.chars().take(20).collect())),
            };
        }
        if wanted == "taraguchi-10" {
            return Ok(Opening::Taraguchi10);
        }
        Opening::ALL
            .into_iter()
            .find(|o| o.name() == wanted)
            .ok_or_else(|| OpeningError::UnknownOpening(s.to_string()))
    }
}

/// One of the two players of an opening (and of a match).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seat {
    /// The player who opens: places the first stones.
    First,
    /// The other player.
    Second,
}

impl Seat {
    /// Both seats, first first.
    pub const ALL: [Seat; 2] = [Seat::First, Seat::Second];

    /// The other seat.
    #[inline]
    #[must_use]
    pub const fn other(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }

    /// `"first"` or `"second"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Seat::First => "first",
            Seat::Second => "second",
        }
    }

    /// `0` for the first seat, `1` for the second.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A decision a player makes during a swap opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Choice {
    /// The chooser plays black.
    TakeBlack,
    /// The chooser plays white.
    TakeWhite,
    /// The chooser places two more stones (white, then black) and the
    /// other player chooses the colour (`swap2` only).
    PlaceTwo,
    /// Black places the 5th stone in the central 9×9 (`taraguchi10`).
    PlaceFifth,
    /// Black offers ten 5th moves for white to pick from (`taraguchi10`).
    OfferFifths,
    /// Black declares it will offer this many 5th moves (`soosorvN`, from 1
    /// to N).
    Offers(u8),
}

/// `offers-1` … `offers-16`.
const OFFERS_NAMES: [&str; MAX_OFFERS as usize] = [
    "offers-1",
    "offers-2",
    "offers-3",
    "offers-4",
    "offers-5",
    "offers-6",
    "offers-7",
    "offers-8",
    "offers-9",
    "offers-10",
    "offers-11",
    "offers-12",
    "offers-13",
    "offers-14",
    "offers-15",
    "offers-16",
];

/// The declarations of Soosõrv: `offers-1` … `offers-16`, cut to `N`.
const OFFER_COUNTS: [Choice; MAX_OFFERS as usize] = [
    Choice::Offers(1),
    Choice::Offers(2),
    Choice::Offers(3),
    Choice::Offers(4),
    Choice::Offers(5),
    Choice::Offers(6),
    Choice::Offers(7),
    Choice::Offers(8),
    Choice::Offers(9),
    Choice::Offers(10),
    Choice::Offers(11),
    Choice::Offers(12),
    Choice::Offers(13),
    Choice::Offers(14),
    Choice::Offers(15),
    Choice::Offers(16),
];

impl Choice {
    /// Every choice but the declarations (`offers-N`).
    pub const ALL: [Choice; 5] = [
        Choice::TakeBlack,
        Choice::TakeWhite,
        Choice::PlaceTwo,
        Choice::PlaceFifth,
        Choice::OfferFifths,
    ];

    /// `"take-black"`, `"take-white"`, `"place-two"`, `"place-fifth"`,
    /// `"offer-fifths"` or `"offers-N"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Choice::TakeBlack => "take-black",
            Choice::TakeWhite => "take-white",
            Choice::PlaceTwo => "place-two",
            Choice::PlaceFifth => "place-fifth",
            Choice::OfferFifths => "offer-fifths",
            Choice::Offers(n) => OFFERS_NAMES[Opening::clamp(n) as usize - 1],
        }
    }
}

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Choice {
    type Err = OpeningError;

    /// A choice by name, ignoring case and surrounding spaces; `_` or a
    /// space may stand for the `-`, and `black`, `white` and `two` are
    /// accepted as short forms.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim().to_ascii_lowercase().replace(['_', ' '], "-");
        match wanted.as_str() {
            "take-black" | "black" => Ok(Choice::TakeBlack),
            "take-white" | "white" => Ok(Choice::TakeWhite),
            "place-two" | "two" => Ok(Choice::PlaceTwo),
            "place-fifth" | "fifth" => Ok(Choice::PlaceFifth),
            "offer-fifths" | "offer" => Ok(Choice::OfferFifths),
            other => {
                let n = other
                    .strip_prefix("offers-")
                    .or_else(|| other.strip_prefix("offer-"))
                    .unwrap_or(other);
                match n.parse::<u8>() {
                    Ok(n) if (1..=MAX_OFFERS).contains(&n) => Ok(Choice::Offers(n)),
                    _ => Err(OpeningError::UnknownChoice(s.to_string())),
                }
            }
        }
    }
}

/// The choices after the third stone of `swap1`, and the last choice of
/// `swap2`.
const TAKE_COLOR: &[Choice] = &[Choice::TakeBlack, Choice::TakeWhite];
/// The choices after the third stone of `swap2`.
const SWAP2_CHOICES: &[Choice] = &[Choice::TakeBlack, Choice::TakeWhite, Choice::PlaceTwo];
/// Black's choice after the 4th stone of `taraguchi10`.
const TARAGUCHI_CHOICES: &[Choice] = &[Choice::PlaceFifth, Choice::OfferFifths];

/// Stones placed by the seat that opens before the first choice of a swap
/// opening.
const OPENING_STONES: usize = 3;
/// Stones on the board once the `swap2` second seat has placed two more.
const SWAP2_STONES: usize = 5;

/// The colour of the `n`th opening stone (0-based): black, white, black,
/// white, black.
const fn stone_color(n: usize) -> Color {
    if n % 2 == 0 {
        Color::Black
    } else {
        Color::White
    }
}

/// What must happen next in an opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpeningStep {
    /// `seat` places a stone of `color` anywhere empty.
    Place {
        /// Who places it.
        seat: Seat,
        /// Its colour.
        color: Color,
    },
    /// `seat` (black for now) offers a 5th move: a point, not a stone.
    Offer {
        /// Who offers.
        seat: Seat,
        /// How many have been offered so far.
        made: u8,
        /// How many will be.
        total: u8,
    },
    /// `seat` (white for now) picks one of the offered 5th moves: a black
    /// stone goes there.
    Pick {
        /// Who picks.
        seat: Seat,
    },
    /// `seat` picks one of `options`.
    Choose {
        /// Who chooses.
        seat: Seat,
        /// What they may choose, in a fixed order.
        options: &'static [Choice],
    },
    /// The opening is over; the game goes on with the side to move given by
    /// the stones (see the [module documentation](self)).
    Done {
        /// The seat that plays black.
        black: Seat,
    },
}

impl fmt::Display for OpeningStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            OpeningStep::Place { seat, color } => {
                write!(f, "the {seat} player places a {color} stone")
            }
            OpeningStep::Choose { seat, options } => {
                write!(f, "the {seat} player chooses {}", list(options))
            }
            OpeningStep::Offer { seat, made, total } => write!(
                f,
                "the {seat} player offers a 5th move ({} of {total})",
                made + 1
            ),
            OpeningStep::Pick { seat } => {
                write!(f, "the {seat} player picks one of the offered 5th moves")
            }
            OpeningStep::Done { black } => {
                write!(f, "the opening is over and the {black} player plays black")
            }
        }
    }
}

/// `a`, `a or b`, `a, b or c`; a long run of declarations as
/// `offers-1 … offers-8`.
pub(crate) fn list(options: &[Choice]) -> String {
    if let [Choice::Offers(a), .., Choice::Offers(b)] = options {
        if options.len() > 3 {
            return format!("one of offers-{a} … offers-{b}");
        }
    }
    match options.split_last() {
        None => String::from("nothing"),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => {
            let head: Vec<&str> = rest.iter().map(|c| c.name()).collect();
            format!("{} or {last}", head.join(", "))
        }
    }
}

/// Why an opening name, choice or action was refused. The opening state is
/// unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    /// Not the name of an opening.
    #[error(
        "unknown opening {0:?}: expected free, swap1, swap2, soosorv8 (soosorvN) or taraguchi10"
    )]
    UnknownOpening(String),
    /// `soosorvN` with an `N` that is not from 1 to 16.
    #[error(
        "soosorvN needs N from 1 to {MAX_OFFERS} 5th moves (soosorv8 is the standard), not {0:?}"
    )]
    BadOfferCount(String),
    /// Not the name of a choice.
    #[error(
        "unknown opening choice {0:?}: expected take-black, take-white, place-two, \
         place-fifth, offer-fifths or offers-N"
    )]
    UnknownChoice(String),
    /// A stone outside the central square the opening allows.
    #[error("{} is outside the central {side}×{side} square this opening stone must go in{}",
        format_pos(*.pos, *.size), centre_hint(*.side, *.size))]
    OutsideZone {
        /// The point.
        pos: Pos,
        /// The board.
        size: BoardSize,
        /// The side of the square (1 for the centre point).
        side: u8,
    },
    /// An offer when none is due.
    #[error("no 5th move is offered now: {0}")]
    NotOffering(OpeningStep),
    /// The same point offered twice.
    #[error("{} is offered already", format_pos(*.pos, *.size))]
    OfferedTwice {
        /// The point.
        pos: Pos,
        /// The board.
        size: BoardSize,
    },
    /// An offer symmetric to an earlier one.
    #[error(
        "{} is symmetric to the offered {} on this position: offer points that are not",
        format_pos(*.pos, *.size), format_pos(*.other, *.size)
    )]
    SymmetricOffer {
        /// The point.
        pos: Pos,
        /// The earlier offer it mirrors.
        other: Pos,
        /// The board.
        size: BoardSize,
    },
    /// A pick when none is due.
    #[error("no offered 5th move is picked now: {0}")]
    NotPicking(OpeningStep),
    /// A pick that is not among the offers.
    #[error("{} is not one of the offered 5th moves: pick one of {}",
        format_pos(*.pos, *.size), .offers)]
    NotAnOffer {
        /// The point.
        pos: Pos,
        /// The board.
        size: BoardSize,
        /// The offers, written out.
        offers: String,
    },
    /// A stone was reported when none is due.
    #[error("no opening stone is due now: {0}")]
    NotPlacing(OpeningStep),
    /// A stone of the wrong colour was reported.
    #[error("the next opening stone must be {expected}, not {got}")]
    WrongColor {
        /// The colour due.
        expected: Color,
        /// The colour reported.
        got: Color,
    },
    /// A choice was made when none is due.
    #[error("no choice is due now: {0}")]
    NotChoosing(OpeningStep),
    /// The wrong player tried to choose.
    #[error("the {expected} player chooses now, not the {got} player")]
    WrongSeat {
        /// Who chooses now.
        expected: Seat,
        /// Who tried to.
        got: Seat,
    },
    /// The choice is not one of those offered.
    #[error("{choice} is not offered here: choose {}", list(.options))]
    NotOffered {
        /// The choice made.
        choice: Choice,
        /// The choices offered.
        options: &'static [Choice],
    },
}

/// `, the centre h8` for the one-point square.
fn centre_hint(side: u8, size: BoardSize) -> String {
    if side == 1 {
        format!(": the centre, {}", format_pos(size.center(), size))
    } else {
        String::new()
    }
}

/// Where an opening has got to: which stones have been placed and what has
/// been chosen. See the [module documentation](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpeningState {
    opening: Opening,
    stones: usize,
    placing_two: bool,
    black: Option<Seat>,
    /// Renju openings: the step of the script reached.
    at: u8,
    /// Renju openings: who holds black for now.
    holder: Seat,
    /// `taraguchi10`: black chose to offer 5th moves.
    offering: bool,
    /// `soosorvN`: how many 5th moves black declared.
    declared: u8,
    offers: [Pos; MAX_OFFERS as usize],
    offered: u8,
}

impl OpeningState {
    /// The start of `opening`. A `free` opening is done at once, with the
    /// first seat playing black.
    #[must_use]
    pub const fn new(opening: Opening) -> OpeningState {
        OpeningState {
            opening,
            stones: 0,
            placing_two: false,
            black: match opening {
                Opening::Free => Some(Seat::First),
                Opening::Swap1 | Opening::Swap2 | Opening::Soosorv(_) | Opening::Taraguchi10 => {
                    None
                }
            },
            at: 0,
            holder: Seat::First,
            offering: false,
            declared: 0,
            offers: [Pos::new(0, 0); MAX_OFFERS as usize],
            offered: 0,
        }
    }

    /// The opening being played.
    #[must_use]
    pub const fn opening(&self) -> Opening {
        self.opening
    }

    /// What must happen next.
    #[must_use]
    pub fn step(&self) -> OpeningStep {
        if let Some(black) = self.black {
            return OpeningStep::Done { black };
        }
        if self.opening.is_renju() {
            return self.renju_step();
        }
        if self.stones < OPENING_STONES {
            return OpeningStep::Place {
                seat: Seat::First,
                color: stone_color(self.stones),
            };
        }
        if !self.placing_two {
            let options = match self.opening {
                Opening::Swap2 => SWAP2_CHOICES,
                Opening::Free | Opening::Swap1 | Opening::Soosorv(_) | Opening::Taraguchi10 => {
                    TAKE_COLOR
                }
            };
            return OpeningStep::Choose {
                seat: Seat::Second,
                options,
            };
        }
        if self.stones < SWAP2_STONES {
            return OpeningStep::Place {
                seat: Seat::Second,
                color: stone_color(self.stones),
            };
        }
        OpeningStep::Choose {
            seat: Seat::First,
            options: TAKE_COLOR,
        }
    }

    /// Reports that the seat named by [`OpeningState::step`] placed a stone
    /// of `color` on the board.
    ///
    /// # Errors
    /// [`OpeningError::NotPlacing`] if no stone is due,
    /// [`OpeningError::WrongColor`] if a stone of the other colour is.
    pub fn stone_placed(&mut self, color: Color) -> Result<(), OpeningError> {
        match self.step() {
            OpeningStep::Place {
                color: expected, ..
            } if expected == color => {
                self.stones += 1;
                if self.opening.is_renju() {
                    self.advance();
                }
                Ok(())
            }
            OpeningStep::Place {
                color: expected, ..
            } => Err(OpeningError::WrongColor {
                expected,
                got: color,
            }),
            step => Err(OpeningError::NotPlacing(step)),
        }
    }

    /// `seat` makes `choice`.
    ///
    /// # Errors
    /// [`OpeningError::NotChoosing`] if no choice is due,
    /// [`OpeningError::WrongSeat`] if the other seat chooses now,
    /// [`OpeningError::NotOffered`] if `choice` is not among the options.
    pub fn choose(&mut self, seat: Seat, choice: Choice) -> Result<(), OpeningError> {
        let (expected, options) = match self.step() {
            OpeningStep::Choose { seat, options } => (seat, options),
            step => return Err(OpeningError::NotChoosing(step)),
        };
        if seat != expected {
            return Err(OpeningError::WrongSeat {
                expected,
                got: seat,
            });
        }
        if !options.contains(&choice) {
            return Err(OpeningError::NotOffered { choice, options });
        }
        if self.opening.is_renju() {
            self.renju_choose(seat, choice);
            return Ok(());
        }
        match choice {
            Choice::TakeBlack => self.black = Some(seat),
            Choice::TakeWhite => self.black = Some(seat.other()),
            Choice::PlaceTwo => self.placing_two = true,
            // Not offered by swap1 and swap2 (checked above).
            Choice::PlaceFifth | Choice::OfferFifths | Choice::Offers(_) => {}
        }
        Ok(())
    }

    /// Whether the opening is over.
    #[must_use]
    pub const fn is_done(&self) -> bool {
        self.black.is_some()
    }

    /// The seat that plays black, once decided.
    #[must_use]
    pub const fn black_seat(&self) -> Option<Seat> {
        self.black
    }

    /// The seat that plays `color`, once decided.
    #[must_use]
    pub const fn seat_of(&self, color: Color) -> Option<Seat> {
        match (self.black, color) {
            (Some(black), Color::Black) => Some(black),
            (Some(black), Color::White) => Some(black.other()),
            (None, _) => None,
        }
    }

    /// Who holds black for now: the seat that took black once the opening
    /// is done; before, the first seat, or in a renju opening whoever holds
    /// black after the swaps so far.
    #[must_use]
    pub const fn holder(&self) -> Seat {
        match self.black {
            Some(black) => black,
            None => self.holder,
        }
    }

    /// The 5th moves offered so far (renju openings).
    #[must_use]
    pub fn offers(&self) -> &[Pos] {
        &self.offers[..usize::from(self.offered)]
    }

    /// How many opening stones have been placed so far.
    #[must_use]
    pub const fn stones_placed(&self) -> usize {
        self.stones
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: Color = Color::Black;
    const W: Color = Color::White;

    fn place_all(state: &mut OpeningState, seat: Seat, colors: &[Color]) {
        for &color in colors {
            assert_eq!(state.step(), OpeningStep::Place { seat, color });
            state.stone_placed(color).unwrap();
        }
    }

    fn after_three(opening: Opening) -> OpeningState {
        let mut s = OpeningState::new(opening);
        place_all(&mut s, Seat::First, &[B, W, B]);
        s
    }

    fn after_five() -> OpeningState {
        let mut s = after_three(Opening::Swap2);
        s.choose(Seat::Second, Choice::PlaceTwo).unwrap();
        place_all(&mut s, Seat::Second, &[W, B]);
        s
    }

    #[test]
    fn names_round_trip() {
        for o in Opening::ALL {
            assert_eq!(o.to_string().parse::<Opening>(), Ok(o));
            assert_eq!(o.name().to_uppercase().parse::<Opening>(), Ok(o));
        }
        assert_eq!(" Swap2 ".parse::<Opening>(), Ok(Opening::Swap2));
        let e = "swap3".parse::<Opening>().unwrap_err();
        assert_eq!(e, OpeningError::UnknownOpening("swap3".into()));
        assert_eq!(
            e.to_string(),
            "unknown opening \"swap3\": expected free, swap1, swap2, soosorv8 (soosorvN) or taraguchi10"
        );
        for c in Choice::ALL {
            assert_eq!(c.to_string().parse::<Choice>(), Ok(c));
        }
        assert_eq!("Place_Two".parse::<Choice>(), Ok(Choice::PlaceTwo));
        assert!("grey".parse::<Choice>().is_err());
        assert_eq!(Opening::default(), Opening::Free);
    }

    #[test]
    fn renju_opening_names() {
        assert_eq!("soosorv8".parse::<Opening>(), Ok(SOOSORV8));
        assert_eq!("Soosõrv-5".parse::<Opening>(), Ok(Opening::Soosorv(5)));
        assert_eq!("soosorv16".parse::<Opening>(), Ok(Opening::Soosorv(16)));
        assert_eq!("TARAGUCHI-10".parse::<Opening>(), Ok(Opening::Taraguchi10));
        assert_eq!(Opening::Soosorv(12).to_string(), "soosorv12");
        for bad in ["soosorv0", "soosorv17", "soosorv", "soosorvx"] {
            let e = bad.parse::<Opening>().unwrap_err();
            assert!(matches!(e, OpeningError::BadOfferCount(_)), "{bad}: {e}");
        }
        assert_eq!(
            "soosorv17".parse::<Opening>().unwrap_err().to_string(),
            "soosorvN needs N from 1 to 16 5th moves (soosorv8 is the standard), not \"17\""
        );
        assert_eq!("offers-3".parse::<Choice>(), Ok(Choice::Offers(3)));
        assert_eq!("5".parse::<Choice>(), Ok(Choice::Offers(5)));
        assert_eq!(Choice::Offers(7).to_string(), "offers-7");
        assert!("offers-17".parse::<Choice>().is_err());
        assert_eq!(list(&OFFER_COUNTS[..8]), "one of offers-1 … offers-8");
        assert_eq!(SOOSORV8.max_offers(), 8);
        assert!(Opening::Taraguchi10.is_renju() && !Opening::Swap2.is_renju());
    }

    #[test]
    fn seats() {
        assert_eq!(Seat::First.other(), Seat::Second);
        assert_eq!(Seat::Second.other(), Seat::First);
        assert_eq!(Seat::Second.index(), 1);
        assert_eq!(Seat::First.to_string(), "first");
    }

    #[test]
    fn free_is_done_at_once() {
        let s = OpeningState::new(Opening::Free);
        assert_eq!(s.opening(), Opening::Free);
        assert_eq!(s.step(), OpeningStep::Done { black: Seat::First });
        assert!(s.is_done());
        assert_eq!(s.black_seat(), Some(Seat::First));
        assert_eq!(s.seat_of(W), Some(Seat::Second));
        assert_eq!(s.stones_placed(), 0);
    }

    #[test]
    fn swap1_second_takes_black() {
        let mut s = after_three(Opening::Swap1);
        assert!(!s.is_done());
        assert_eq!(s.black_seat(), None);
        assert_eq!(s.seat_of(B), None);
        assert_eq!(
            s.step(),
            OpeningStep::Choose {
                seat: Seat::Second,
                options: &[Choice::TakeBlack, Choice::TakeWhite]
            }
        );
        s.choose(Seat::Second, Choice::TakeBlack).unwrap();
        assert_eq!(
            s.step(),
            OpeningStep::Done {
                black: Seat::Second
            }
        );
        assert_eq!(s.seat_of(B), Some(Seat::Second));
        assert_eq!(s.seat_of(W), Some(Seat::First));
        assert_eq!(s.stones_placed(), 3);
    }

    #[test]
    fn swap1_second_takes_white() {
        let mut s = after_three(Opening::Swap1);
        s.choose(Seat::Second, Choice::TakeWhite).unwrap();
        assert_eq!(s.step(), OpeningStep::Done { black: Seat::First });
        assert_eq!(s.seat_of(W), Some(Seat::Second));
    }

    #[test]
    fn swap1_offers_no_place_two() {
        let mut s = after_three(Opening::Swap1);
        let before = s;
        let e = s.choose(Seat::Second, Choice::PlaceTwo).unwrap_err();
        assert_eq!(
            e,
            OpeningError::NotOffered {
                choice: Choice::PlaceTwo,
                options: TAKE_COLOR
            }
        );
        assert_eq!(
            e.to_string(),
            "place-two is not offered here: choose take-black or take-white"
        );
        assert_eq!(s, before);
    }

    #[test]
    fn swap2_second_takes_a_colour() {
        let mut s = after_three(Opening::Swap2);
        assert_eq!(
            s.step(),
            OpeningStep::Choose {
                seat: Seat::Second,
                options: SWAP2_CHOICES
            }
        );
        let mut t = s;
        s.choose(Seat::Second, Choice::TakeBlack).unwrap();
        assert_eq!(
            s.step(),
            OpeningStep::Done {
                black: Seat::Second
            }
        );
        t.choose(Seat::Second, Choice::TakeWhite).unwrap();
        assert_eq!(t.step(), OpeningStep::Done { black: Seat::First });
        assert_eq!(t.stones_placed(), 3);
    }

    #[test]
    fn swap2_place_two_then_first_chooses() {
        let mut s = after_five();
        assert_eq!(s.stones_placed(), 5);
        assert_eq!(
            s.step(),
            OpeningStep::Choose {
                seat: Seat::First,
                options: TAKE_COLOR
            }
        );
        let mut t = s;
        s.choose(Seat::First, Choice::TakeBlack).unwrap();
        assert_eq!(s.step(), OpeningStep::Done { black: Seat::First });
        assert_eq!(s.seat_of(W), Some(Seat::Second));
        t.choose(Seat::First, Choice::TakeWhite).unwrap();
        assert_eq!(
            t.step(),
            OpeningStep::Done {
                black: Seat::Second
            }
        );
        assert_eq!(t.seat_of(W), Some(Seat::First));
    }

    #[test]
    fn swap2_last_choice_offers_no_place_two() {
        let mut s = after_five();
        let before = s;
        assert!(matches!(
            s.choose(Seat::First, Choice::PlaceTwo),
            Err(OpeningError::NotOffered { .. })
        ));
        assert_eq!(s, before);
    }

    #[test]
    fn wrong_colour_is_refused() {
        let mut s = OpeningState::new(Opening::Swap2);
        let before = s;
        let e = s.stone_placed(W).unwrap_err();
        assert_eq!(
            e,
            OpeningError::WrongColor {
                expected: B,
                got: W
            }
        );
        assert_eq!(
            e.to_string(),
            "the next opening stone must be black, not white"
        );
        assert_eq!(s, before);

        let mut s = after_three(Opening::Swap2);
        s.choose(Seat::Second, Choice::PlaceTwo).unwrap();
        let before = s;
        assert!(matches!(
            s.stone_placed(B),
            Err(OpeningError::WrongColor { expected: W, .. })
        ));
        assert_eq!(s, before);
    }

    #[test]
    fn wrong_seat_is_refused() {
        let mut s = after_three(Opening::Swap1);
        let before = s;
        let e = s.choose(Seat::First, Choice::TakeBlack).unwrap_err();
        assert_eq!(
            e,
            OpeningError::WrongSeat {
                expected: Seat::Second,
                got: Seat::First
            }
        );
        assert_eq!(
            e.to_string(),
            "the second player chooses now, not the first player"
        );
        assert_eq!(s, before);

        let mut s = after_five();
        let before = s;
        assert!(matches!(
            s.choose(Seat::Second, Choice::TakeWhite),
            Err(OpeningError::WrongSeat { .. })
        ));
        assert_eq!(s, before);
    }

    #[test]
    fn choosing_while_placing_is_refused() {
        let mut s = OpeningState::new(Opening::Swap2);
        s.stone_placed(B).unwrap();
        let before = s;
        let e = s.choose(Seat::Second, Choice::TakeBlack).unwrap_err();
        assert_eq!(
            e,
            OpeningError::NotChoosing(OpeningStep::Place {
                seat: Seat::First,
                color: W
            })
        );
        assert_eq!(
            e.to_string(),
            "no choice is due now: the first player places a white stone"
        );
        assert_eq!(s, before);
    }

    #[test]
    fn placing_while_choosing_or_done_is_refused() {
        let mut s = after_three(Opening::Swap2);
        let before = s;
        let e = s.stone_placed(W).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no opening stone is due now: the second player chooses \
             take-black, take-white or place-two"
        );
        assert_eq!(s, before);

        let mut s = OpeningState::new(Opening::Free);
        let e = s.stone_placed(B).unwrap_err();
        assert_eq!(
            e,
            OpeningError::NotPlacing(OpeningStep::Done { black: Seat::First })
        );
        assert_eq!(s.stones_placed(), 0);
    }

    #[test]
    fn nothing_is_accepted_once_done() {
        let mut s = after_three(Opening::Swap1);
        s.choose(Seat::Second, Choice::TakeWhite).unwrap();
        let before = s;
        assert!(matches!(
            s.choose(Seat::Second, Choice::TakeBlack),
            Err(OpeningError::NotChoosing(OpeningStep::Done { .. }))
        ));
        assert!(matches!(
            s.stone_placed(W),
            Err(OpeningError::NotPlacing(_))
        ));
        assert_eq!(s, before);
    }
}
