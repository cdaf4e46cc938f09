//! Renju's tournament openings, `soosorvN` and `taraguchi10` (RIF rules,
//! <https://www.renju.net/rifrules/>), as a script of steps the
//! [`OpeningState`] walks through.
//!
//! In these openings the player holding a colour places its stones and a
//! swap exchanges the colours, so each step names the *colour* whose holder
//! acts; the state turns it into a seat with [`OpeningState::holder`].

use super::symmetry::symmetric;
use super::{
    Board, BoardSize, Choice, Color, Opening, OpeningError, OpeningState, OpeningStep, Pos, Seat,
    OFFER_COUNTS, TAKE_COLOR, TARAGUCHI_CHOICES,
};
use crate::notation::format_pos;

/// One step of a renju opening's script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Task {
    /// The holder of `by` places a stone of `color`, within `radius` of
    /// the centre (Chebyshev distance) when given.
    Place {
        color: Color,
        by: Color,
        radius: Option<u8>,
    },
    /// The holder of `by` may swap.
    Swap { by: Color },
    /// Black declares how many 5th moves it offers (`soosorvN`).
    Declare,
    /// Black places the 5th or offers ten (`taraguchi10`).
    Branch,
    /// Black offers 5th moves.
    Offer,
    /// White picks one.
    Pick,
    /// The opening is over.
    Done,
}

const B: Color = Color::Black;
const W: Color = Color::White;

/// The step `at` of `soosorvN`.
fn soosorv(at: u8) -> Task {
    match at {
        0 => Task::Place {
            color: B,
            by: B,
            radius: Some(0),
        },
        1 => Task::Place {
            color: W,
            by: B,
            radius: Some(1),
        },
        2 => Task::Place {
            color: B,
            by: B,
            radius: Some(2),
        },
        3 => Task::Swap { by: W },
        4 => Task::Place {
            color: W,
            by: W,
            radius: None,
        },
        5 => Task::Swap { by: B },
        6 => Task::Declare,
        7 => Task::Swap { by: W },
        8 => Task::Offer,
        9 => Task::Pick,
        _ => Task::Done,
    }
}

/// The step `at` of `taraguchi10`, once black has chosen to offer or not.
fn taraguchi(at: u8, offering: bool) -> Task {
    let place = |color: Color, radius: u8| Task::Place {
        color,
        by: color,
        radius: Some(radius),
    };
    match (at, offering) {
        (0, _) => place(B, 0),
        (1, _) => Task::Swap { by: W },
        (2, _) => place(W, 1),
        (3, _) => Task::Swap { by: B },
        (4, _) => place(B, 2),
        (5, _) => Task::Swap { by: W },
        (6, _) => place(W, 3),
        (7, _) => Task::Swap { by: B },
        (8, _) => Task::Branch,
        (9, false) => place(B, 4),
        (10, false) => Task::Swap { by: W },
        (9, true) => Task::Offer,
        (10, true) => Task::Pick,
        _ => Task::Done,
    }
}

/// Whether `pos` lies within `radius` of the centre of a board of `size`
/// (in the central `(2·radius+1)`-square).
#[must_use]
pub fn in_zone(size: BoardSize, pos: Pos, radius: u8) -> bool {
    let c = size.center();
    pos.x.abs_diff(c.x) <= radius && pos.y.abs_diff(c.y) <= radius
}

impl OpeningState {
    pub(super) fn task(&self) -> Task {
        match self.opening {
            Opening::Soosorv(_) => soosorv(self.at),
            Opening::Taraguchi10 => taraguchi(self.at, self.offering),
            Opening::Free | Opening::Swap1 | Opening::Swap2 => Task::Done,
        }
    }

    /// The seat holding `color` for now.
    fn seat_holding(&self, color: Color) -> Seat {
        match color {
            Color::Black => self.holder,
            Color::White => self.holder.other(),
        }
    }

    /// How many 5th moves black offers in all: as declared (`soosorvN`)
    /// or ten (`taraguchi10`).
    fn offer_total(&self) -> u8 {
        match self.opening {
            Opening::Soosorv(_) => self.declared,
            _ => self.opening.max_offers(),
        }
    }

    pub(super) fn renju_step(&self) -> OpeningStep {
        match self.task() {
            Task::Place { color, by, .. } => OpeningStep::Place {
                seat: self.seat_holding(by),
                color,
            },
            Task::Swap { by } => OpeningStep::Choose {
                seat: self.seat_holding(by),
                options: TAKE_COLOR,
            },
            Task::Declare => OpeningStep::Choose {
                seat: self.holder,
                options: &OFFER_COUNTS[..usize::from(self.opening.max_offers())],
            },
            Task::Branch => OpeningStep::Choose {
                seat: self.holder,
                options: TARAGUCHI_CHOICES,
            },
            Task::Offer => OpeningStep::Offer {
                seat: self.holder,
                made: self.offered,
                total: self.offer_total(),
            },
            Task::Pick => OpeningStep::Pick {
                seat: self.holder.other(),
            },
            Task::Done => OpeningStep::Done { black: self.holder },
        }
    }

    /// Moves on to the next step; at the end the colours are decided.
    pub(super) fn advance(&mut self) {
        self.at = self.at.saturating_add(1);
        if self.task() == Task::Done {
            self.black = Some(self.holder);
        }
    }

    /// A choice already checked to be among the options of the step.
    pub(super) fn renju_choose(&mut self, seat: Seat, choice: Choice) {
        match choice {
            Choice::TakeBlack => self.holder = seat,
            Choice::TakeWhite => self.holder = seat.other(),
            Choice::OfferFifths => self.offering = true,
            Choice::Offers(n) => self.declared = n,
            Choice::PlaceFifth | Choice::PlaceTwo => {}
        }
        self.advance();
    }

    /// The central square the stone due must go in, as its distance from
    /// the centre (0: the centre itself; 1: the 3×3; …), or `None` when it
    /// may go anywhere (or no stone is due).
    #[must_use]
    pub fn zone(&self) -> Option<u8> {
        if self.black.is_some() {
            return None;
        }
        match self.task() {
            Task::Place { radius, .. } => radius,
            _ => None,
        }
    }

    /// Whether the stone due may go on `pos` as far as the opening's zones
    /// go (whether the point is empty and not forbidden is the game's
    /// business).
    ///
    /// # Errors
    /// [`OpeningError::OutsideZone`] naming the square.
    pub fn check_place(&self, size: BoardSize, pos: Pos) -> Result<(), OpeningError> {
        match self.zone() {
            Some(radius) if !in_zone(size, pos, radius) => Err(OpeningError::OutsideZone {
                pos,
                size,
                side: 2 * radius + 1,
            }),
            _ => Ok(()),
        }
    }

    /// Black offers `pos` as a 5th move on the position `board` (the
    /// opening's four stones). The caller checks the point is empty and not
    /// forbidden for black.
    ///
    /// # Errors
    /// [`OpeningError::NotOffering`] when no offer is due,
    /// [`OpeningError::OfferedTwice`], or [`OpeningError::SymmetricOffer`]
    /// when a symmetry of the position maps an earlier offer onto `pos`.
    /// The state is unchanged.
    pub fn offer(&mut self, board: &Board, pos: Pos) -> Result<(), OpeningError> {
        let step = self.step();
        if !matches!(step, OpeningStep::Offer { .. }) {
            return Err(OpeningError::NotOffering(step));
        }
        let size = board.size();
        if self.offers().contains(&pos) {
            return Err(OpeningError::OfferedTwice { pos, size });
        }
        if let Some(&other) = self
            .offers()
            .iter()
            .find(|&&other| symmetric(board, other, pos))
        {
            return Err(OpeningError::SymmetricOffer { pos, other, size });
        }
        self.offers[usize::from(self.offered)] = pos;
        self.offered += 1;
        if self.offered >= self.offer_total() {
            self.advance();
        }
        Ok(())
    }

    /// Whether `pos` may be picked now (it is one of the offers).
    ///
    /// # Errors
    /// [`OpeningError::NotPicking`] when no pick is due,
    /// [`OpeningError::NotAnOffer`] when `pos` was not offered.
    pub fn check_pick(&self, size: BoardSize, pos: Pos) -> Result<(), OpeningError> {
        let step = self.step();
        if !matches!(step, OpeningStep::Pick { .. }) {
            return Err(OpeningError::NotPicking(step));
        }
        if self.offers().contains(&pos) {
            Ok(())
        } else {
            let offers: Vec<String> = self.offers().iter().map(|&p| format_pos(p, size)).collect();
            Err(OpeningError::NotAnOffer {
                pos,
                size,
                offers: offers.join(", "),
            })
        }
    }

    /// White picked `pos` among the offers and its black stone is on the
    /// board: the opening is over.
    ///
    /// # Errors
    /// As [`OpeningState::check_pick`]; the state is then unchanged.
    pub fn picked(&mut self, size: BoardSize, pos: Pos) -> Result<(), OpeningError> {
        self.check_pick(size, pos)?;
        self.stones += 1;
        self.advance();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::symmetry::Symmetry;
    use super::*;
    use std::collections::BTreeSet;

    const SIZE: BoardSize = BoardSize::square(15);

    fn p(x: u8, y: u8) -> Pos {
        Pos::new(x, y)
    }

    fn board(stones: &[(Pos, Color)]) -> Board {
        let mut b = Board::new(SIZE);
        for &(pos, c) in stones {
            let i = b.index(pos);
            b.place(i, c);
        }
        b
    }

    fn place(s: &mut OpeningState, b: &mut Board, pos: Pos, color: Color) {
        s.check_place(SIZE, pos).unwrap();
        s.stone_placed(color).unwrap();
        let i = b.index(pos);
        b.place(i, color);
    }

    /// Every placement the rule allows (black at the centre, white in the
    /// 3×3, black in the 5×5) falls into 26 classes under the symmetries of
    /// the board: the 26 canonical openings, 13 with white next to the
    /// centre directly and 13 diagonally.
    #[test]
    fn the_zones_give_the_26_canonical_openings() {
        let c = SIZE.center();
        let mut classes: [BTreeSet<Vec<(Pos, Color)>>; 2] = Default::default();
        for white in SIZE.points().filter(|&q| in_zone(SIZE, q, 1) && q != c) {
            for black in SIZE
                .points()
                .filter(|&q| in_zone(SIZE, q, 2) && q != c && q != white)
            {
                let stones = [(c, B), (white, W), (black, B)];
                let canonical = Symmetry::all(SIZE)
                    .into_iter()
                    .map(|s| {
                        let mut v: Vec<(Pos, Color)> = stones
                            .iter()
                            .map(|&(q, col)| (s.apply(SIZE, q), col))
                            .collect();
                        v.sort();
                        v
                    })
                    .min()
                    .unwrap();
                let diagonal = white.x != c.x && white.y != c.y;
                classes[usize::from(diagonal)].insert(canonical);
            }
        }
        assert_eq!(classes[0].len(), 13);
        assert_eq!(classes[1].len(), 13);
    }

    #[test]
    fn soosorv_goes_through_every_phase() {
        let mut s = OpeningState::new(Opening::Soosorv(8));
        let mut b = Board::new(SIZE);
        // Tentative black places three stones in growing squares.
        let e = s.check_place(SIZE, p(6, 6)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "g9 is outside the central 1×1 square this opening stone must go in: the centre, h8"
        );
        place(&mut s, &mut b, p(7, 7), B);
        assert_eq!(
            s.step(),
            OpeningStep::Place {
                seat: Seat::First,
                color: W
            }
        );
        assert!(s.check_place(SIZE, p(9, 7)).is_err());
        place(&mut s, &mut b, p(8, 7), W);
        assert_eq!(s.zone(), Some(2));
        assert!(s.check_place(SIZE, p(10, 7)).is_err());
        place(&mut s, &mut b, p(9, 7), B);
        // Tentative white swaps: it holds black now.
        assert_eq!(
            s.step(),
            OpeningStep::Choose {
                seat: Seat::Second,
                options: TAKE_COLOR
            }
        );
        s.choose(Seat::Second, Choice::TakeBlack).unwrap();
        assert_eq!(s.holder(), Seat::Second);
        // So the first seat places the 4th (white) stone, anywhere.
        assert_eq!(s.zone(), None);
        assert_eq!(
            s.step(),
            OpeningStep::Place {
                seat: Seat::First,
                color: W
            }
        );
        place(&mut s, &mut b, p(0, 0), W);
        // Black (second seat) may swap; it stays.
        s.choose(Seat::Second, Choice::TakeBlack).unwrap();
        // Black declares 2 offers; 9 is not allowed under soosorv8.
        let OpeningStep::Choose { seat, options } = s.step() else {
            panic!("{:?}", s.step())
        };
        assert_eq!(seat, Seat::Second);
        assert_eq!(options.len(), 8);
        assert!(matches!(
            s.choose(Seat::Second, Choice::Offers(9)),
            Err(OpeningError::NotOffered { .. })
        ));
        s.choose(Seat::Second, Choice::Offers(2)).unwrap();
        // White may swap; it does: the first seat holds black again.
        s.choose(Seat::First, Choice::TakeBlack).unwrap();
        assert_eq!(s.holder(), Seat::First);
        assert_eq!(
            s.step(),
            OpeningStep::Offer {
                seat: Seat::First,
                made: 0,
                total: 2
            }
        );
        s.offer(&b, p(7, 5)).unwrap();
        assert_eq!(
            s.offer(&b, p(7, 5)),
            Err(OpeningError::OfferedTwice {
                pos: p(7, 5),
                size: SIZE
            })
        );
        s.offer(&b, p(6, 6)).unwrap();
        assert_eq!(s.step(), OpeningStep::Pick { seat: Seat::Second });
        let e = s.picked(SIZE, p(1, 1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "b14 is not one of the offered 5th moves: pick one of h10, g9"
        );
        s.picked(SIZE, p(6, 6)).unwrap();
        assert_eq!(s.step(), OpeningStep::Done { black: Seat::First });
        assert_eq!(s.stones_placed(), 5);
        assert_eq!(s.offers(), &[p(7, 5), p(6, 6)]);
    }

    #[test]
    fn symmetric_offers_are_refused() {
        let mut s = OpeningState::new(Opening::Soosorv(3));
        // Black h8, white i8 (direct), black j8, white h1: the position is
        // symmetric about row 8 only.
        let mut b = Board::new(SIZE);
        place(&mut s, &mut b, p(7, 7), B);
        place(&mut s, &mut b, p(8, 7), W);
        place(&mut s, &mut b, p(9, 7), B);
        s.choose(Seat::Second, Choice::TakeWhite).unwrap();
        place(&mut s, &mut b, p(3, 7), W);
        s.choose(Seat::First, Choice::TakeBlack).unwrap();
        s.choose(Seat::First, Choice::Offers(3)).unwrap();
        s.choose(Seat::Second, Choice::TakeWhite).unwrap();
        s.offer(&b, p(8, 6)).unwrap();
        let before = s;
        let e = s.offer(&b, p(8, 8)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "i7 is symmetric to the offered i9 on this position: offer points that are not"
        );
        assert_eq!(s, before);
        // Mirrored across the column it is not a symmetry of the stones.
        s.offer(&b, p(6, 6)).unwrap();
        s.offer(&b, p(10, 10)).unwrap();
        assert!(matches!(s.step(), OpeningStep::Pick { .. }));
        let before = s;
        assert!(matches!(
            s.offer(&b, p(1, 1)),
            Err(OpeningError::NotOffering(_))
        ));
        assert_eq!(s, before);
        let _ = board(&[]);
    }

    #[test]
    fn taraguchi_with_a_placed_fifth() {
        let mut s = OpeningState::new(Opening::Taraguchi10);
        let mut b = Board::new(SIZE);
        place(&mut s, &mut b, p(7, 7), B);
        // The tentative white keeps white, then places the 2nd stone.
        s.choose(Seat::Second, Choice::TakeWhite).unwrap();
        assert_eq!(
            s.step(),
            OpeningStep::Place {
                seat: Seat::Second,
                color: W
            }
        );
        place(&mut s, &mut b, p(8, 8), W);
        // Black (first) swaps: it now holds white, the second seat black.
        s.choose(Seat::First, Choice::TakeWhite).unwrap();
        assert_eq!(s.holder(), Seat::Second);
        assert_eq!(s.zone(), Some(2));
        assert!(s.check_place(SIZE, p(10, 10)).is_err());
        place(&mut s, &mut b, p(9, 9), B);
        s.choose(Seat::First, Choice::TakeWhite).unwrap();
        assert_eq!(s.zone(), Some(3));
        assert!(s.check_place(SIZE, p(11, 7)).is_err());
        place(&mut s, &mut b, p(10, 4), W);
        s.choose(Seat::Second, Choice::TakeBlack).unwrap();
        assert_eq!(
            s.step(),
            OpeningStep::Choose {
                seat: Seat::Second,
                options: TARAGUCHI_CHOICES
            }
        );
        s.choose(Seat::Second, Choice::PlaceFifth).unwrap();
        assert_eq!(s.zone(), Some(4));
        assert!(s.check_place(SIZE, p(12, 7)).is_err());
        place(&mut s, &mut b, p(11, 7), B);
        s.choose(Seat::First, Choice::TakeBlack).unwrap();
        assert_eq!(s.step(), OpeningStep::Done { black: Seat::First });
        assert_eq!(s.stones_placed(), 5);
    }

    #[test]
    fn taraguchi_with_ten_offers() {
        let mut s = OpeningState::new(Opening::Taraguchi10);
        let mut b = Board::new(SIZE);
        place(&mut s, &mut b, p(7, 7), B);
        s.choose(Seat::Second, Choice::TakeWhite).unwrap();
        place(&mut s, &mut b, p(8, 7), W);
        s.choose(Seat::First, Choice::TakeBlack).unwrap();
        place(&mut s, &mut b, p(9, 5), B);
        s.choose(Seat::Second, Choice::TakeWhite).unwrap();
        place(&mut s, &mut b, p(5, 9), W);
        s.choose(Seat::First, Choice::TakeBlack).unwrap();
        s.choose(Seat::First, Choice::OfferFifths).unwrap();
        for n in 0..10u8 {
            assert_eq!(
                s.step(),
                OpeningStep::Offer {
                    seat: Seat::First,
                    made: n,
                    total: 10
                }
            );
            // Anywhere on the board.
            s.offer(&b, p(n, 0)).unwrap();
        }
        assert_eq!(s.step(), OpeningStep::Pick { seat: Seat::Second });
        s.picked(SIZE, p(9, 0)).unwrap();
        assert_eq!(s.step(), OpeningStep::Done { black: Seat::First });
    }
}
