//! Openings — `free`, `swap1` and `swap2` — as a state machine.
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

use crate::pos::Color;

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
}

impl Opening {
    /// Every opening: free, swap1, swap2.
    pub const ALL: [Opening; 3] = [Opening::Free, Opening::Swap1, Opening::Swap2];

    /// `"free"`, `"swap1"` or `"swap2"`: the name used in the CLI, API, UI
    /// and files.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Opening::Free => "free",
            Opening::Swap1 => "swap1",
            Opening::Swap2 => "swap2",
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

    /// An opening by name, ignoring case and surrounding spaces.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        Opening::ALL
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(wanted))
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
}

impl Choice {
    /// Every choice.
    pub const ALL: [Choice; 3] = [Choice::TakeBlack, Choice::TakeWhite, Choice::PlaceTwo];

    /// `"take-black"`, `"take-white"` or `"place-two"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Choice::TakeBlack => "take-black",
            Choice::TakeWhite => "take-white",
            Choice::PlaceTwo => "place-two",
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
            _ => Err(OpeningError::UnknownChoice(s.to_string())),
        }
    }
}

/// The choices after the third stone of `swap1`, and the last choice of
/// `swap2`.
const TAKE_COLOR: &[Choice] = &[Choice::TakeBlack, Choice::TakeWhite];
/// The choices after the third stone of `swap2`.
const SWAP2_CHOICES: &[Choice] = &[Choice::TakeBlack, Choice::TakeWhite, Choice::PlaceTwo];

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
            OpeningStep::Done { black } => {
                write!(f, "the opening is over and the {black} player plays black")
            }
        }
    }
}

/// `a`, `a or b`, `a, b or c`.
pub(crate) fn list(options: &[Choice]) -> String {
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
    #[error("unknown opening {0:?}: expected free, swap1 or swap2")]
    UnknownOpening(String),
    /// Not the name of a choice.
    #[error("unknown opening choice {0:?}: expected take-black, take-white or place-two")]
    UnknownChoice(String),
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

/// Where an opening has got to: which stones have been placed and what has
/// been chosen. See the [module documentation](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OpeningState {
    opening: Opening,
    stones: usize,
    placing_two: bool,
    black: Option<Seat>,
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
                Opening::Swap1 | Opening::Swap2 => None,
            },
        }
    }

    /// The opening being played.
    #[must_use]
    pub const fn opening(&self) -> Opening {
        self.opening
    }

    /// What must happen next.
    #[must_use]
    pub const fn step(&self) -> OpeningStep {
        if let Some(black) = self.black {
            return OpeningStep::Done { black };
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
                Opening::Free | Opening::Swap1 => TAKE_COLOR,
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
        match choice {
            Choice::TakeBlack => self.black = Some(seat),
            Choice::TakeWhite => self.black = Some(seat.other()),
            Choice::PlaceTwo => self.placing_two = true,
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
            "unknown opening \"swap3\": expected free, swap1 or swap2"
        );
        for c in Choice::ALL {
            assert_eq!(c.to_string().parse::<Choice>(), Ok(c));
        }
        assert_eq!("Place_Two".parse::<Choice>(), Ok(Choice::PlaceTwo));
        assert!("grey".parse::<Choice>().is_err());
        assert_eq!(Opening::default(), Opening::Free);
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
