//! The board: stones only, no history (that lives in [`crate::Game`]).
//!
//! Stones are kept in a padded array: one ring of [`Cell::Wall`] around the
//! board, so a walk along a line stops at the edge without a bounds check.
//! Points are addressed by a cell index (`usize`) on the hot path; [`Pos`]
//! is the public coordinate. Placing and removing a stone is O(1) and
//! updates the Zobrist hash; no call allocates.

use std::fmt;

use crate::pos::{BoardSize, Color, Pos};
use crate::rule::{Rule, Rules};
use crate::zobrist;

/// What a padded board cell holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Cell {
    /// No stone.
    Empty = 0,
    /// A black stone.
    Black = 1,
    /// A white stone.
    White = 2,
    /// Off the board (the padding ring).
    Wall = 3,
}

impl Cell {
    /// The cell holding a stone of `color`.
    #[inline]
    #[must_use]
    pub const fn stone(color: Color) -> Cell {
        match color {
            Color::Black => Cell::Black,
            Color::White => Cell::White,
        }
    }

    /// The stone's colour, if the cell holds one.
    #[inline]
    #[must_use]
    pub const fn color(self) -> Option<Color> {
        match self {
            Cell::Black => Some(Color::Black),
            Cell::White => Some(Color::White),
            _ => None,
        }
    }
}

/// One of the four line directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Left to right.
    Horizontal,
    /// Top to bottom.
    Vertical,
    /// Top-left to bottom-right.
    Diagonal,
    /// Top-right to bottom-left.
    AntiDiagonal,
}

impl Dir {
    /// All four directions.
    pub const ALL: [Dir; 4] = [
        Dir::Horizontal,
        Dir::Vertical,
        Dir::Diagonal,
        Dir::AntiDiagonal,
    ];

    /// The step `(dx, dy)` along this direction.
    #[inline]
    #[must_use]
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Dir::Horizontal => (1, 0),
            Dir::Vertical => (0, 1),
            Dir::Diagonal => (1, 1),
            Dir::AntiDiagonal => (-1, 1),
        }
    }
}

/// A straight run of stones: `len` points from `start` stepping along `dir`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Line {
    /// The first point (the end nearest the top, or the left end of a row).
    pub start: Pos,
    /// The direction from `start`.
    pub dir: Dir,
    /// Number of points.
    pub len: u8,
}

impl Line {
    /// The points of the line, from `start`.
    pub fn points(self) -> impl Iterator<Item = Pos> {
        let (dx, dy) = self.dir.delta();
        (0..self.len as i16).map(move |i| {
            Pos::new(
                (self.start.x as i16 + dx as i16 * i) as u8,
                (self.start.y as i16 + dy as i16 * i) as u8,
            )
        })
    }

    /// The points of the line, collected.
    #[must_use]
    pub fn to_vec(self) -> Vec<Pos> {
        self.points().collect()
    }
}

/// The stones on a board of any size from 3×3 to 60×60.
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    size: BoardSize,
    stride: usize,
    offsets: [usize; 4],
    cells: Vec<Cell>,
    hash: u64,
    stones: u32,
}

impl Board {
    /// An empty board.
    #[must_use]
    pub fn new(size: BoardSize) -> Board {
        let stride = size.width as usize + 2;
        let rows = size.height as usize + 2;
        let mut cells = vec![Cell::Wall; stride * rows];
        for y in 0..size.height as usize {
            let row = (y + 1) * stride;
            cells[row + 1..row + 1 + size.width as usize].fill(Cell::Empty);
        }
        Board {
            size,
            stride,
            offsets: [1, stride, stride + 1, stride - 1],
            cells,
            hash: 0,
            stones: 0,
        }
    }

    /// The board's dimensions.
    #[inline]
    #[must_use]
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// Cells per padded row (`width + 2`).
    #[inline]
    #[must_use]
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Number of padded cells (valid indices are below this).
    #[inline]
    #[must_use]
    pub fn cell_count(&self) -> usize {
        self.cells.len()
    }

    /// Index steps of the four directions, in [`Dir::ALL`] order.
    #[inline]
    #[must_use]
    pub fn dir_offsets(&self) -> [usize; 4] {
        self.offsets
    }

    /// The cell index of an on-board point.
    #[inline]
    #[must_use]
    pub fn index(&self, pos: Pos) -> usize {
        (pos.y as usize + 1) * self.stride + pos.x as usize + 1
    }

    /// The point of an on-board cell index.
    #[inline]
    #[must_use]
    pub fn pos(&self, index: usize) -> Pos {
        Pos::new(
            (index % self.stride - 1) as u8,
            (index / self.stride - 1) as u8,
        )
    }

    /// The cell at `index` (may be [`Cell::Wall`]).
    #[inline]
    #[must_use]
    pub fn cell(&self, index: usize) -> Cell {
        self.cells[index]
    }

    /// The stone at `pos`, or `None` for an empty or off-board point.
    #[must_use]
    pub fn get(&self, pos: Pos) -> Option<Color> {
        if self.size.contains(pos) {
            self.cells[self.index(pos)].color()
        } else {
            None
        }
    }

    /// Whether `pos` is on the board and empty.
    #[must_use]
    pub fn is_empty_at(&self, pos: Pos) -> bool {
        self.size.contains(pos) && self.cells[self.index(pos)] == Cell::Empty
    }

    /// Zobrist hash of the stones (not of the side to move).
    #[inline]
    #[must_use]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Number of stones on the board.
    #[inline]
    #[must_use]
    pub fn stone_count(&self) -> usize {
        self.stones as usize
    }

    /// Whether every point holds a stone.
    #[inline]
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.stones as usize == self.size.area()
    }

    /// Puts a stone on an empty cell.
    ///
    /// # Panics
    /// In debug builds, if the cell is not empty.
    #[inline]
    pub fn place(&mut self, index: usize, color: Color) {
        debug_assert_eq!(self.cells[index], Cell::Empty, "place on a non-empty cell");
        self.cells[index] = Cell::stone(color);
        self.hash ^= zobrist::stone_key(self.pos(index), color);
        self.stones += 1;
    }

    /// Takes the stone off a cell.
    ///
    /// # Panics
    /// In debug builds, if the cell holds no stone.
    #[inline]
    pub fn remove(&mut self, index: usize) {
        let color = self.cells[index]
            .color()
            .expect("remove from a cell without a stone");
        self.cells[index] = Cell::Empty;
        self.hash ^= zobrist::stone_key(self.pos(index), color);
        self.stones -= 1;
    }

    /// Sets a cell without touching the hash or the count: for short-lived
    /// trial stones that are taken back before anyone looks at the hash.
    #[inline]
    pub(crate) fn set_raw(&mut self, index: usize, cell: Cell) {
        self.cells[index] = cell;
    }

    /// Length of the run of `cell` through `index` along direction `dir`
    /// (0..4, see [`Dir::ALL`]), and the cells just past each end.
    #[inline]
    #[must_use]
    pub fn run(&self, index: usize, dir: usize, cell: Cell) -> (u8, Cell, Cell) {
        let step = self.offsets[dir];
        let mut back = index;
        while self.cells[back - step] == cell {
            back -= step;
        }
        let mut fwd = index;
        while self.cells[fwd + step] == cell {
            fwd += step;
        }
        let len = ((fwd - back) / step + 1) as u8;
        (len, self.cells[back - step], self.cells[fwd + step])
    }

    /// The winning line made by the stone of `color` at `index`, if it makes
    /// one under `rules`. Only lines through `index` are looked at, so call
    /// it right after the stone is placed.
    #[inline]
    #[must_use]
    pub fn winning_line(&self, index: usize, color: Color, rules: &Rules) -> Option<Line> {
        let stone = Cell::stone(color);
        let opponent = Cell::stone(color.opponent());
        for dir in 0..4 {
            let (len, before, after) = self.run(index, dir, stone);
            if len < rules.k {
                continue;
            }
            let blocked = before == opponent && after == opponent;
            if rules.rule.run_wins(rules.k, color, len, blocked) {
                return Some(self.line_through(index, dir, stone, len));
            }
        }
        None
    }

    fn line_through(&self, index: usize, dir: usize, stone: Cell, len: u8) -> Line {
        let step = self.offsets[dir];
        let mut back = index;
        while self.cells[back - step] == stone {
            back -= step;
        }
        let d = Dir::ALL[dir];
        let start = self.pos(back);
        Line { start, dir: d, len }
    }

    /// Every empty point, row by row from the top-left.
    pub fn empty_points(&self) -> impl Iterator<Item = Pos> + '_ {
        self.size.points().filter(|&p| self.is_empty_at(p))
    }

    /// Every stone, row by row from the top-left.
    pub fn stones(&self) -> impl Iterator<Item = (Pos, Color)> + '_ {
        self.size
            .points()
            .filter_map(|p| self.get(p).map(|c| (p, c)))
    }

    /// Whether a stone of `color` at the empty point `index` would win.
    /// Leaves the board as it was.
    #[must_use]
    pub fn would_win(&mut self, index: usize, color: Color, rules: &Rules) -> Option<Line> {
        self.set_raw(index, Cell::stone(color));
        let line = self.winning_line(index, color, rules);
        self.set_raw(index, Cell::Empty);
        line
    }

    /// Renders the board as text: rows from the top, labelled with row
    /// numbers counted from the bottom, column letters underneath. `X` is
    /// black, `O` white, `.` empty.
    #[must_use]
    pub fn to_text(&self) -> String {
        self.to_text_marked(|_| None)
    }

    /// Like [`Board::to_text`], with `mark` choosing a character for empty
    /// points (for forbidden points, say) — `None` leaves a `.`.
    pub fn to_text_marked(&self, mark: impl Fn(Pos) -> Option<char>) -> String {
        let h = self.size.height;
        let w = self.size.width;
        let label_width = h.to_string().len();
        let col_width = crate::notation::column_name(w - 1).len();
        let mut out = String::new();
        for y in 0..h {
            let row = h - y;
            out.push_str(&format!("{row:>label_width$}"));
            for x in 0..w {
                let p = Pos::new(x, y);
                let c = match self.get(p) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => mark(p).unwrap_or('.'),
                };
                out.push_str(&" ".repeat(col_width));
                out.push(c);
            }
            out.push('\n');
        }
        out.push_str(&" ".repeat(label_width));
        for x in 0..w {
            out.push_str(&format!(
                "{:>width$}",
                crate::notation::column_name(x),
                width = col_width + 1
            ));
        }
        out.push('\n');
        out
    }

    /// Whether `rule` lets a stone of `color` at the empty point `pos` be
    /// played: only renju restricts black. `Some(foul)` when it is forbidden.
    #[must_use]
    pub fn foul_at(&mut self, pos: Pos, color: Color, rule: Rule) -> Option<crate::Foul> {
        if rule.has_fouls() && color == Color::Black && self.is_empty_at(pos) {
            crate::forbidden::foul(self, self.index(pos))
        } else {
            None
        }
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board {}\n{}", self.size, self.to_text())
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_and_remove_restore_hash() {
        let mut b = Board::new(BoardSize::square(15));
        let i = b.index(Pos::new(7, 7));
        b.place(i, Color::Black);
        assert_ne!(b.hash(), 0);
        assert_eq!(b.stone_count(), 1);
        b.remove(i);
        assert_eq!(b.hash(), 0);
        assert_eq!(b.stone_count(), 0);
    }

    #[test]
    fn index_round_trips_on_rectangles() {
        let b = Board::new(BoardSize::new(20, 7).unwrap());
        for p in b.size().points() {
            assert_eq!(b.pos(b.index(p)), p);
            assert_eq!(b.cell(b.index(p)), Cell::Empty);
        }
        assert_eq!(
            b.cells.iter().filter(|&&c| c == Cell::Wall).count(),
            22 * 9 - 140
        );
    }

    #[test]
    fn run_counts_to_the_edge() {
        let mut b = Board::new(BoardSize::square(5));
        for x in 0..5 {
            let i = b.index(Pos::new(x, 0));
            b.place(i, Color::Black);
        }
        let (len, before, after) = b.run(b.index(Pos::new(2, 0)), 0, Cell::Black);
        assert_eq!((len, before, after), (5, Cell::Wall, Cell::Wall));
    }
}
