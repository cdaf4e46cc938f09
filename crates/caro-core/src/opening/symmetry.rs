//! The symmetries of the board, for the renju openings' rule that no two
//! offered 5th moves may be symmetric to each other.
//!
//! A square board has eight symmetries (four rotations, four reflections);
//! a rectangular one four (the identity, both mirrors and the half turn).
//! Two points are symmetric *on a position* when a symmetry that maps the
//! position's stones onto themselves (each stone onto a stone of its own
//! colour) maps one point onto the other.

use crate::board::Board;
use crate::pos::{BoardSize, Pos};

/// One symmetry of the board: first an optional swap of the axes
/// (square boards only), then optional mirrors of each axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry {
    transpose: bool,
    mirror_x: bool,
    mirror_y: bool,
}

impl Symmetry {
    /// The identity.
    pub const IDENTITY: Symmetry = Symmetry {
        transpose: false,
        mirror_x: false,
        mirror_y: false,
    };

    /// Every symmetry of a board of `size`: eight for a square board, four
    /// for a rectangular one; the identity first.
    #[must_use]
    pub fn all(size: BoardSize) -> Vec<Symmetry> {
        let transposes: &[bool] = if size.width == size.height {
            &[false, true]
        } else {
            &[false]
        };
        let mut out = Vec::with_capacity(8);
        for &transpose in transposes {
            for mirror_x in [false, true] {
                for mirror_y in [false, true] {
                    out.push(Symmetry {
                        transpose,
                        mirror_x,
                        mirror_y,
                    });
                }
            }
        }
        out
    }

    /// Where `pos` goes on a board of `size` (a point of the board goes to
    /// a point of the board).
    #[must_use]
    pub fn apply(self, size: BoardSize, pos: Pos) -> Pos {
        let (mut x, mut y) = if self.transpose {
            (pos.y, pos.x)
        } else {
            (pos.x, pos.y)
        };
        if self.mirror_x {
            x = size.width - 1 - x;
        }
        if self.mirror_y {
            y = size.height - 1 - y;
        }
        Pos::new(x, y)
    }

    /// Whether this symmetry maps every stone of `board` onto a stone of
    /// the same colour.
    #[must_use]
    pub fn keeps(self, board: &Board) -> bool {
        let size = board.size();
        board
            .stones()
            .all(|(p, c)| board.get(self.apply(size, p)) == Some(c))
    }
}

/// The symmetries of the board that keep the stones of `board`.
#[must_use]
pub fn keeping(board: &Board) -> Vec<Symmetry> {
    Symmetry::all(board.size())
        .into_iter()
        .filter(|s| s.keeps(board))
        .collect()
}

/// Whether `a` and `b` are symmetric to each other on `board`: some
/// symmetry keeping its stones maps `a` onto `b` (a point is symmetric to
/// itself).
#[must_use]
pub fn symmetric(board: &Board, a: Pos, b: Pos) -> bool {
    let size = board.size();
    keeping(board).into_iter().any(|s| s.apply(size, a) == b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pos::Color;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn board(size: BoardSize, stones: &[(u8, u8, Color)]) -> Board {
        let mut b = Board::new(size);
        for &(x, y, c) in stones {
            let p = Pos::new(x, y);
            if b.is_empty_at(p) {
                let i = b.index(p);
                b.place(i, c);
            }
        }
        b
    }

    /// The group written the other way: rotations by a quarter turn
    /// (square boards) or a half turn, each with and without a mirror.
    fn naive_group(size: BoardSize) -> Vec<Box<dyn Fn(Pos) -> Pos>> {
        let (w, h) = (size.width, size.height);
        let quarter = move |p: Pos| Pos::new(w - 1 - p.y, p.x);
        let half = move |p: Pos| Pos::new(w - 1 - p.x, h - 1 - p.y);
        let mirror = move |p: Pos| Pos::new(w - 1 - p.x, p.y);
        let mut out: Vec<Box<dyn Fn(Pos) -> Pos>> = Vec::new();
        if w == h {
            for turns in 0..4 {
                let rot = move |mut p: Pos| {
                    for _ in 0..turns {
                        p = quarter(p);
                    }
                    p
                };
                out.push(Box::new(rot));
                out.push(Box::new(move |p| rot(mirror(p))));
            }
        } else {
            out.push(Box::new(|p| p));
            out.push(Box::new(half));
            out.push(Box::new(mirror));
            out.push(Box::new(move |p| half(mirror(p))));
        }
        out
    }

    fn naive_symmetric(b: &Board, a: Pos, c: Pos) -> bool {
        let stones: BTreeSet<(Pos, Color)> = b.stones().collect();
        naive_group(b.size()).iter().any(|f| {
            let moved: BTreeSet<(Pos, Color)> =
                stones.iter().map(|&(p, col)| (f(p), col)).collect();
            moved == stones && f(a) == c
        })
    }

    #[test]
    fn square_boards_have_eight_and_others_four() {
        assert_eq!(Symmetry::all(BoardSize::square(15)).len(), 8);
        assert_eq!(Symmetry::all(BoardSize::new(15, 11).unwrap()).len(), 4);
        let size = BoardSize::square(15);
        let images: BTreeSet<Pos> = Symmetry::all(size)
            .into_iter()
            .map(|s| s.apply(size, Pos::new(8, 5)))
            .collect();
        assert_eq!(images.len(), 8);
    }

    #[test]
    fn the_centre_stone_alone_keeps_all_eight() {
        let size = BoardSize::square(15);
        let b = board(size, &[(7, 7, Color::Black)]);
        assert_eq!(keeping(&b).len(), 8);
        assert!(symmetric(&b, Pos::new(7, 6), Pos::new(8, 7)));
        assert!(!symmetric(&b, Pos::new(7, 6), Pos::new(8, 6)));
        let b = board(size, &[(7, 7, Color::Black), (8, 7, Color::White)]);
        assert_eq!(keeping(&b).len(), 2);
        assert!(symmetric(&b, Pos::new(7, 6), Pos::new(7, 8)));
        assert!(!symmetric(&b, Pos::new(7, 6), Pos::new(6, 7)));
    }

    proptest! {
        /// Symmetry of two points on a position agrees with the group
        /// written as rotations and mirrors.
        #[test]
        fn symmetric_agrees_with_a_naive_reference(
            w in 5u8..10, square in any::<bool>(), h in 5u8..10,
            stones in prop::collection::vec((0u8..10, 0u8..10, any::<bool>()), 0..5),
            mirror_stones in any::<bool>(),
            a in (0u8..10, 0u8..10), c in (0u8..10, 0u8..10),
        ) {
            let size = BoardSize::new(w, if square { w } else { h }).unwrap();
            let mut placed = Vec::new();
            for (x, y, black) in stones {
                if x < size.width && y < size.height {
                    let col = if black { Color::Black } else { Color::White };
                    placed.push((x, y, col));
                    if mirror_stones {
                        placed.push((size.width - 1 - x, y, col));
                    }
                }
            }
            let b = board(size, &placed);
            let a = Pos::new(a.0 % size.width, a.1 % size.height);
            let c = Pos::new(c.0 % size.width, c.1 % size.height);
            prop_assert_eq!(symmetric(&b, a, c), naive_symmetric(&b, a, c));
        }
    }
}
