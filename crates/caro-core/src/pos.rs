//! Colours, points and board sizes.

use std::fmt;

/// Smallest allowed board side.
pub const MIN_SIDE: u8 = 3;
/// Largest allowed board side.
pub const MAX_SIDE: u8 = 60;

/// A player's colour. Black (X) is the first player of a normal game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Black stones, drawn as `X`.
    Black,
    /// White stones, drawn as `O`.
    White,
}

impl Color {
    /// The other colour.
    #[inline]
    #[must_use]
    pub const fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `"black"` or `"white"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// `0` for black, `1` for white.
    #[inline]
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Both colours, black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Color {
    type Err = crate::notation::NotationError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "black" | "b" | "x" => Ok(Color::Black),
            "white" | "w" | "o" => Ok(Color::White),
            _ => Err(crate::notation::NotationError::BadColor(s.to_string())),
        }
    }
}

/// A point of the board: `x` to the right, `y` downward from the top-left
/// corner, both 0-based (the Gomocup convention).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// Column, 0 = leftmost.
    pub x: u8,
    /// Row, 0 = top.
    pub y: u8,
}

impl Pos {
    /// A point from its column and row.
    #[inline]
    #[must_use]
    pub const fn new(x: u8, y: u8) -> Pos {
        Pos { x, y }
    }
}

/// The dimensions of a board: `width` columns by `height` rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardSize {
    /// Number of columns (3..=60).
    pub width: u8,
    /// Number of rows (3..=60).
    pub height: u8,
}

impl BoardSize {
    /// A square board.
    #[must_use]
    pub const fn square(side: u8) -> BoardSize {
        BoardSize {
            width: side,
            height: side,
        }
    }

    /// Checks both sides are within `MIN_SIDE..=MAX_SIDE`.
    ///
    /// # Errors
    /// [`SizeError`] naming the side that is out of range.
    pub fn new(width: u8, height: u8) -> Result<BoardSize, SizeError> {
        for (side, value) in [("width", width), ("height", height)] {
            if !(MIN_SIDE..=MAX_SIDE).contains(&value) {
                return Err(SizeError {
                    side,
                    value: value.into(),
                });
            }
        }
        Ok(BoardSize { width, height })
    }

    /// Number of points.
    #[must_use]
    pub const fn area(self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Whether `pos` is on this board.
    #[inline]
    #[must_use]
    pub const fn contains(self, pos: Pos) -> bool {
        pos.x < self.width && pos.y < self.height
    }

    /// Every point, row by row from the top-left.
    pub fn points(self) -> impl Iterator<Item = Pos> {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| Pos::new(x, y)))
    }

    /// The centre point (rounded towards the top-left).
    #[must_use]
    pub const fn center(self) -> Pos {
        Pos::new((self.width - 1) / 2, (self.height - 1) / 2)
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

impl std::str::FromStr for BoardSize {
    type Err = SizeParseError;

    /// `"15"` (square) or `"20x30"` (width × height).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || SizeParseError::Malformed(s.to_string());
        let parse_side = |t: &str| -> Result<u8, SizeParseError> {
            let t = t.trim();
            if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) || t.len() > 3 {
                return Err(bad());
            }
            let v: u16 = t.parse().map_err(|_| bad())?;
            u8::try_from(v).map_err(|_| {
                SizeParseError::OutOfRange(SizeError {
                    side: "side",
                    value: v,
                })
            })
        };
        let lower = s.to_ascii_lowercase();
        let (w, h) = match lower.split_once(['x', '×']) {
            Some((w, h)) => (parse_side(w)?, parse_side(h)?),
            None => {
                let side = parse_side(&lower)?;
                (side, side)
            }
        };
        BoardSize::new(w, h).map_err(SizeParseError::OutOfRange)
    }
}

/// A board side outside `3..=60`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("board {side} {value} is out of range: each side must be from {MIN_SIDE} to {MAX_SIDE}")]
pub struct SizeError {
    /// `"width"` or `"height"`.
    pub side: &'static str,
    /// The rejected value.
    pub value: u16,
}

/// A board size that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizeParseError {
    /// Not of the form `15` or `20x30`.
    #[error("bad board size {0:?}: expected a side such as 15, or width x height such as 20x30")]
    Malformed(String),
    /// Parsed, but outside the allowed range.
    #[error(transparent)]
    OutOfRange(SizeError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!("15".parse::<BoardSize>().unwrap(), BoardSize::square(15));
        assert_eq!(
            "20x30".parse::<BoardSize>().unwrap(),
            BoardSize {
                width: 20,
                height: 30
            }
        );
        assert!(matches!(
            "2".parse::<BoardSize>(),
            Err(SizeParseError::OutOfRange(_))
        ));
        assert!(matches!(
            "61x3".parse::<BoardSize>(),
            Err(SizeParseError::OutOfRange(_))
        ));
        assert!(matches!(
            "999".parse::<BoardSize>(),
            Err(SizeParseError::OutOfRange(_))
        ));
        assert!("x".parse::<BoardSize>().is_err());
        assert!("".parse::<BoardSize>().is_err());
        assert!("-5".parse::<BoardSize>().is_err());
    }

    #[test]
    fn center_of_15_is_7_7() {
        assert_eq!(BoardSize::square(15).center(), Pos::new(7, 7));
    }
}
