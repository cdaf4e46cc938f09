//! Renju forbidden points (fouls) for black, by the rules of the Renju
//! International Federation:
//!
//! - a move that makes an exact five is never a foul, whatever else it makes;
//! - otherwise a move that makes a line of six or more is an **overline**;
//! - a move that makes two or more fours is a **double-four** (two fours on
//!   one line, such as `X.XXX.X` completed in the middle, count as two);
//! - a move that makes two or more open threes is a **double-three**, where
//!   a three counts only if some point would turn it into a straight four
//!   (`.XXXX.`, both ends making an exact five) and that point is not itself
//!   forbidden — checked recursively with the stones placed so far.
//!
//! Each direction through the move is copied into an 11-cell window centred
//! on the move; fours and threes are read off the window, and only the
//! recursive question "is that completing point forbidden?" goes back to
//! the board.

use crate::board::{Board, Cell};

/// Why a point is forbidden for black under renju.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Foul {
    /// Two or more open threes at once.
    DoubleThree,
    /// Two or more fours at once (also on one line).
    DoubleFour,
    /// Six or more in a row.
    Overline,
}

impl Foul {
    /// The usual short label: `33`, `44` or `6`.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Foul::DoubleThree => "33",
            Foul::DoubleFour => "44",
            Foul::Overline => "6",
        }
    }

    /// A phrase for messages: "double-three" and so on.
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Foul::DoubleThree => "double-three",
            Foul::DoubleFour => "double-four",
            Foul::Overline => "overline",
        }
    }
}

impl std::fmt::Display for Foul {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.describe())
    }
}

const HALF: usize = 5;
const WINDOW: usize = 2 * HALF + 1;
type Window = [Cell; WINDOW];

/// The 11 cells centred on `index` along direction `dir`; past the edge is
/// [`Cell::Wall`].
#[inline]
fn window(board: &Board, index: usize, step: usize) -> Window {
    let mut w = [Cell::Wall; WINDOW];
    w[HALF] = board.cell(index);
    let mut i = index;
    for slot in (0..HALF).rev() {
        i -= step;
        let c = board.cell(i);
        if c == Cell::Wall {
            break;
        }
        w[slot] = c;
    }
    let mut i = index;
    for slot in w.iter_mut().skip(HALF + 1) {
        i += step;
        let c = board.cell(i);
        if c == Cell::Wall {
            break;
        }
        *slot = c;
    }
    w
}

/// Run of black stones through `at` in the window: (first, last) slots.
#[inline]
fn black_run(w: &Window, at: usize) -> (usize, usize) {
    let mut lo = at;
    while lo > 0 && w[lo - 1] == Cell::Black {
        lo -= 1;
    }
    let mut hi = at;
    while hi + 1 < WINDOW && w[hi + 1] == Cell::Black {
        hi += 1;
    }
    (lo, hi)
}

/// Whether filling the empty slot `j` makes an exact five that contains the
/// centre.
#[inline]
fn makes_five_through_center(w: &mut Window, j: usize) -> bool {
    w[j] = Cell::Black;
    let (lo, hi) = black_run(w, j);
    w[j] = Cell::Empty;
    // A five through the centre spans slots 1..=9, so the window shows both
    // cells past its ends and the length read here is the true length.
    hi - lo + 1 == 5 && lo <= HALF && HALF <= hi
}

/// Number of fours through the centre (the centre holds a black stone).
fn fours(w: &mut Window) -> u32 {
    let mut points = [0usize; 8];
    let mut n = 0;
    for j in HALF - 4..=HALF + 4 {
        if w[j] == Cell::Empty && makes_five_through_center(w, j) {
            points[n] = j;
            n += 1;
        }
    }
    // A straight four `.XXXX.` has two five-points five apart: one four.
    let mut count = n as u32;
    for a in 0..n {
        for b in a + 1..n {
            if points[b] - points[a] == 5 {
                count -= 1;
            }
        }
    }
    count
}

/// Whether the window holds a straight four through the centre: exactly
/// four in a row, both ends empty, and each end making an exact five.
#[inline]
fn straight_four(w: &Window) -> bool {
    let (lo, hi) = black_run(w, HALF);
    if hi - lo + 1 != 4 || lo < 2 || hi > WINDOW - 3 {
        return false;
    }
    w[lo - 1] == Cell::Empty
        && w[hi + 1] == Cell::Empty
        && w[lo - 2] != Cell::Black
        && w[hi + 2] != Cell::Black
}

/// Whether the centre (a black stone) makes an open three along this
/// window: some empty point makes a straight four through the centre and is
/// not itself forbidden.
fn is_three(board: &mut Board, index: usize, step: usize, w: &mut Window) -> bool {
    for j in HALF - 3..=HALF + 3 {
        if w[j] != Cell::Empty {
            continue;
        }
        w[j] = Cell::Black;
        let four = straight_four(w);
        w[j] = Cell::Empty;
        if four {
            let q = if j < HALF {
                index - (HALF - j) * step
            } else {
                index + (j - HALF) * step
            };
            board.set_raw(q, Cell::Black);
            let foul = analyse(board, q);
            board.set_raw(q, Cell::Empty);
            if foul.is_none() {
                return true;
            }
        }
    }
    false
}

/// The foul made by the black stone already standing at `index`, if any.
fn analyse(board: &mut Board, index: usize) -> Option<Foul> {
    let offsets = board.dir_offsets();
    let mut windows = [[Cell::Wall; WINDOW]; 4];
    let mut overline = false;
    for (d, &step) in offsets.iter().enumerate() {
        windows[d] = window(board, index, step);
        let (len, _, _) = board.run(index, d, Cell::Black);
        if len == 5 {
            return None;
        }
        overline |= len > 5;
    }
    if overline {
        return Some(Foul::Overline);
    }
    let mut four_dirs = [false; 4];
    let mut total_fours = 0;
    for (d, w) in windows.iter_mut().enumerate() {
        let f = fours(w);
        four_dirs[d] = f > 0;
        total_fours += f;
    }
    if total_fours >= 2 {
        return Some(Foul::DoubleFour);
    }
    // A three needs two more black stones within three points of the move.
    let mut candidates = [false; 4];
    let mut n_candidates = 0;
    for d in 0..4 {
        if four_dirs[d] {
            continue;
        }
        let w = &windows[d];
        let near = (HALF - 3..=HALF + 3)
            .filter(|&j| j != HALF && w[j] == Cell::Black)
            .count();
        if near >= 2 {
            candidates[d] = true;
            n_candidates += 1;
        }
    }
    if n_candidates < 2 {
        return None;
    }
    let mut threes = 0;
    for d in 0..4 {
        if !candidates[d] {
            continue;
        }
        if is_three(board, index, offsets[d], &mut windows[d]) {
            threes += 1;
            if threes >= 2 {
                return Some(Foul::DoubleThree);
            }
        } else {
            n_candidates -= 1;
            if threes + n_candidates < 2 {
                return None;
            }
        }
    }
    None
}

/// The foul black would commit by playing the empty cell `index`, if any.
/// The board is left as it was.
pub(crate) fn foul(board: &mut Board, index: usize) -> Option<Foul> {
    debug_assert_eq!(board.cell(index), Cell::Empty);
    board.set_raw(index, Cell::Black);
    let result = analyse(board, index);
    board.set_raw(index, Cell::Empty);
    result
}

/// Every forbidden point for black, row by row from the top-left, with its
/// foul. The board is left as it was.
pub fn forbidden_points(board: &mut Board) -> Vec<(crate::Pos, Foul)> {
    let mut out = Vec::new();
    forbidden_points_into(board, &mut out);
    out
}

/// Like [`forbidden_points`], appending to a buffer you keep (no
/// allocation once it is large enough).
pub fn forbidden_points_into(board: &mut Board, out: &mut Vec<(crate::Pos, Foul)>) {
    let size = board.size();
    for y in 0..size.height {
        for x in 0..size.width {
            let p = crate::Pos::new(x, y);
            let i = board.index(p);
            if board.cell(i) == Cell::Empty && may_be_foul(board, i) {
                if let Some(f) = foul(board, i) {
                    out.push((p, f));
                }
            }
        }
    }
}

/// Cheap filter: a foul needs two directions with at least two other black
/// stones within four points each (two threes or two fours), or one
/// direction with four (an overline, or two fours on one line).
#[inline]
fn may_be_foul(board: &Board, index: usize) -> bool {
    let mut dirs_with_two = 0;
    for step in board.dir_offsets() {
        let mut n = 0;
        for sign in [false, true] {
            let mut i = index;
            for _ in 0..4 {
                i = if sign { i + step } else { i - step };
                match board.cell(i) {
                    Cell::Black => n += 1,
                    Cell::Wall => break,
                    _ => {}
                }
            }
        }
        if n >= 4 {
            return true;
        }
        if n >= 2 {
            dirs_with_two += 1;
            if dirs_with_two >= 2 {
                return true;
            }
        }
    }
    false
}
