//! Coordinates for people (`h8`) and for engines (Gomocup `x,y`).
//!
//! `h8` style: a column letter and a row number, rows counted from the
//! bottom starting at 1 (renju literature), columns `a..z` then `aa, ab, …`
//! like a spreadsheet. Parsing is case-insensitive. `h8` is the centre of
//! 15×15.

use crate::pos::{BoardSize, Pos};

/// A coordinate or colour that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// Not letters followed by digits, or not `x,y`.
    #[error("bad coordinate {0:?}: expected a column letter and a row number such as h8, or x,y")]
    Malformed(String),
    /// Well formed, but not on this board.
    #[error("{text} is off the {size} board")]
    OffBoard {
        /// The coordinate as written.
        text: String,
        /// The board.
        size: BoardSize,
    },
    /// Not a colour name.
    #[error("bad colour {0:?}: expected black or white")]
    BadColor(String),
}

/// The name of column `x`: `a`..`z`, then `aa`, `ab`, …
#[must_use]
pub fn column_name(x: u8) -> String {
    let mut n = x as u32 + 1;
    let mut out = Vec::new();
    while n > 0 {
        n -= 1;
        out.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// `pos` written as `h8` on a board of height `size.height`.
#[must_use]
pub fn format_pos(pos: Pos, size: BoardSize) -> String {
    format!("{}{}", column_name(pos.x), size.height - pos.y)
}

/// Reads `h8` (any letter case) on a board of `size`.
///
/// # Errors
/// [`NotationError::Malformed`] for text that is not a coordinate,
/// [`NotationError::OffBoard`] for one off this board.
pub fn parse_pos(text: &str, size: BoardSize) -> Result<Pos, NotationError> {
    let t = text.trim();
    let malformed = || NotationError::Malformed(text.to_string());
    let letters = t.bytes().take_while(u8::is_ascii_alphabetic).count();
    let (col, row) = t.split_at(letters);
    if letters == 0 || letters > 3 || row.is_empty() || row.len() > 4 {
        return Err(malformed());
    }
    if !row.bytes().all(|b| b.is_ascii_digit()) {
        return Err(malformed());
    }
    let mut x: u32 = 0;
    for b in col.bytes() {
        x = x * 26 + (b.to_ascii_lowercase() - b'a') as u32 + 1;
    }
    let x = x - 1;
    let row: u32 = row.parse().map_err(|_| malformed())?;
    let off = || NotationError::OffBoard {
        text: t.to_string(),
        size,
    };
    if x >= size.width as u32 || row == 0 || row > size.height as u32 {
        return Err(off());
    }
    Ok(Pos::new(x as u8, (size.height as u32 - row) as u8))
}

/// `pos` as Gomocup `x,y` (0-based, y from the top).
#[must_use]
pub fn format_gomocup(pos: Pos) -> String {
    format!("{},{}", pos.x, pos.y)
}

/// Reads Gomocup `x,y` (0-based, y from the top; spaces allowed).
///
/// # Errors
/// As [`parse_pos`].
pub fn parse_gomocup(text: &str, size: BoardSize) -> Result<Pos, NotationError> {
    let malformed = || NotationError::Malformed(text.to_string());
    let (x, y) = text.trim().split_once(',').ok_or_else(malformed)?;
    let num = |s: &str| -> Result<u32, NotationError> {
        let s = s.trim();
        if s.is_empty() || s.len() > 4 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed());
        }
        s.parse().map_err(|_| malformed())
    };
    let (x, y) = (num(x)?, num(y)?);
    if x >= size.width as u32 || y >= size.height as u32 {
        return Err(NotationError::OffBoard {
            text: text.trim().to_string(),
            size,
        });
    }
    Ok(Pos::new(x as u8, y as u8))
}

/// Reads a list of `h8`-style moves separated by spaces, commas or
/// semicolons (`"h8 i9 j10"`, `"h8,i9,j10"`), or run together
/// (`"h8i9j10"`).
///
/// # Errors
/// The first coordinate that cannot be read, with its 1-based number.
pub fn parse_move_list(text: &str, size: BoardSize) -> Result<Vec<Pos>, (usize, NotationError)> {
    let mut out = Vec::new();
    for token in split_moves(text) {
        let pos = parse_pos(token, size).map_err(|e| (out.len() + 1, e))?;
        out.push(pos);
    }
    Ok(out)
}

/// Splits a move list into coordinate tokens (see [`parse_move_list`]).
fn split_moves(text: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    for chunk in text.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
        // A chunk may be several moves run together: letters+digits repeated.
        let bytes = chunk.as_bytes();
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let mut j = i;
            while j < bytes.len() && bytes[j].is_ascii_alphabetic() {
                j += 1;
            }
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            if j == i {
                // Neither letter nor digit: hand the rest over as one bad token.
                j = bytes.len();
            }
            tokens.push(&chunk[start..j]);
            start = j;
            i = j;
        }
    }
    tokens
}

/// Formats moves as `h8 i9 j10`.
#[must_use]
pub fn format_move_list(moves: &[Pos], size: BoardSize) -> String {
    moves
        .iter()
        .map(|&p| format_pos(p, size))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_continue_like_a_spreadsheet() {
        assert_eq!(column_name(0), "a");
        assert_eq!(column_name(25), "z");
        assert_eq!(column_name(26), "aa");
        assert_eq!(column_name(27), "ab");
        assert_eq!(column_name(59), "bh");
    }

    #[test]
    fn h8_is_the_centre_of_15() {
        let s = BoardSize::square(15);
        assert_eq!(parse_pos("h8", s).unwrap(), Pos::new(7, 7));
        assert_eq!(parse_pos("H8", s).unwrap(), Pos::new(7, 7));
        assert_eq!(parse_pos("a1", s).unwrap(), Pos::new(0, 14));
        assert_eq!(parse_pos("o15", s).unwrap(), Pos::new(14, 0));
        assert_eq!(format_pos(Pos::new(0, 14), s), "a1");
    }

    #[test]
    fn every_point_round_trips_on_60_by_60_and_rectangles() {
        for size in [
            BoardSize::square(60),
            BoardSize::new(20, 30).unwrap(),
            BoardSize::new(60, 3).unwrap(),
        ] {
            for p in size.points() {
                assert_eq!(parse_pos(&format_pos(p, size), size).unwrap(), p);
                assert_eq!(parse_gomocup(&format_gomocup(p), size).unwrap(), p);
            }
        }
    }

    #[test]
    fn bad_coordinates_are_refused() {
        let s = BoardSize::square(15);
        for bad in [
            "", "h", "8", "h0", "p1", "h16", "8h", "h8x", "é8", "aaaa1", "h99999",
        ] {
            assert!(parse_pos(bad, s).is_err(), "{bad}");
        }
        assert!(matches!(
            parse_pos("p1", s),
            Err(NotationError::OffBoard { .. })
        ));
        for bad in ["", "1", "1,", ",1", "15,0", "a,b", "-1,2"] {
            assert!(parse_gomocup(bad, s).is_err(), "{bad}");
        }
    }

    #[test]
    fn move_lists_split_every_way() {
        let s = BoardSize::square(15);
        let want = vec![Pos::new(7, 7), Pos::new(8, 6), Pos::new(9, 5)];
        assert_eq!(parse_move_list("h8 i9 j10", s).unwrap(), want);
        assert_eq!(parse_move_list("h8,i9,j10", s).unwrap(), want);
        assert_eq!(parse_move_list("h8i9j10", s).unwrap(), want);
        assert_eq!(parse_move_list("  H8;I9  J10 ", s).unwrap(), want);
        assert_eq!(parse_move_list("h8 z9", s).unwrap_err().0, 2);
        assert_eq!(parse_move_list("h8 i9 ??", s).unwrap_err().0, 3);
        assert!(parse_move_list("", s).unwrap().is_empty());
    }
}
