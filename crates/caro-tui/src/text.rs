//! Words and pictures both front ends share (the result's sentence is the
//! table's: [`caro_core::table::Ending::sentence`]): the engine's
//! thinking, the board as text, and reading a point typed by a person.

use caro_core::notation::{column_name, format_pos, parse_pos, NotationError};
use caro_core::{BoardSize, Color, Game, Pos};
use caro_engine::SearchInfo;

/// `X` for black, `O` for white.
#[must_use]
pub fn stone(color: Color) -> char {
    match color {
        Color::Black => 'X',
        Color::White => 'O',
    }
}

/// A search report in one line: `depth 6 score 35 nodes 12034 pv i9 h9`.
#[must_use]
pub fn info_text(info: &SearchInfo, size: BoardSize) -> String {
    let pv: Vec<String> = info.pv.iter().map(|&p| format_pos(p, size)).collect();
    format!(
        "depth {} score {} nodes {} pv {}",
        info.depth,
        info.score,
        info.nodes,
        pv.join(" ")
    )
}

/// The board as text: rows from the top labelled with their numbers
/// (counted from the bottom) on both sides, column letters above and
/// below, `X` black, `O` white, `.` empty, and the last move in brackets:
/// `[X]`.
#[must_use]
pub fn board_text(game: &Game) -> String {
    let size = game.size();
    // Renju: the points black may not play, marked 3, 4 or 6, while black
    // is to move.
    let forbidden: Vec<(Pos, char)> =
        if game.rules().rule.has_fouls() && !game.is_over() && game.to_move() == Color::Black {
            game.black_forbidden_points()
                .into_iter()
                .map(|(p, foul)| (p, foul.label().chars().next().unwrap_or('x')))
                .collect()
        } else {
            Vec::new()
        };
    let last = game.last_move();
    let label_width = size.height.to_string().len();
    let col_width = column_name(size.width - 1).len();
    let mut letters = " ".repeat(label_width);
    for x in 0..size.width {
        letters.push_str(&format!(
            "{:>width$}",
            column_name(x),
            width = col_width + 1
        ));
    }
    let mut out = letters.clone();
    out.push('\n');
    for y in 0..size.height {
        let row = size.height - y;
        out.push_str(&format!("{row:>label_width$}"));
        let is_last = |x: u8| last == Some(Pos::new(x, y));
        for x in 0..size.width {
            let closes = x > 0 && is_last(x - 1);
            let mut pad = " ".repeat(col_width - 1);
            let sep = if is_last(x) {
                '['
            } else if closes && col_width == 1 {
                ']'
            } else {
                ' '
            };
            if closes && col_width > 1 {
                pad.replace_range(0..1, "]");
            }
            out.push_str(&pad);
            out.push(sep);
            let here = Pos::new(x, y);
            out.push(match game.board().get(here) {
                Some(c) => stone(c),
                None => forbidden
                    .iter()
                    .find(|&&(p, _)| p == here)
                    .map_or('.', |&(_, mark)| mark),
            });
        }
        out.push(if is_last(size.width - 1) { ']' } else { ' ' });
        out.push_str(&row.to_string());
        out.push('\n');
    }
    out.push_str(&letters);
    out.push('\n');
    out
}

/// Why typed text is not a point of the board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CellError {
    /// Not a coordinate, or one off the board.
    #[error("not a cell: {0}")]
    Notation(#[from] NotationError),
    /// A number that is not a cell of the 3×3 board.
    #[error("not a cell: {0} (the cells of 3x3 are numbered 1 to 9, 1-3 the top row)")]
    Number(String),
}

/// Reads a point: a coordinate such as `h8`, or on a 3×3 board a cell
/// number 1..9 (1-3 the top row left to right, 7-9 the bottom row).
///
/// # Errors
/// [`CellError`] saying why the text is not a point of this board.
pub fn parse_cell(text: &str, size: BoardSize) -> Result<Pos, CellError> {
    let t = text.trim();
    if size == BoardSize::square(3) && !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        return match t.parse::<u8>() {
            Ok(n @ 1..=9) => Ok(Pos::new((n - 1) % 3, (n - 1) / 3)),
            _ => Err(CellError::Number(t.to_string())),
        };
    }
    Ok(parse_pos(t, size)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use caro_core::{Rule, Rules};

    fn game(size: BoardSize, k: u8, moves: &str) -> Game {
        let rules = Rules::new(size, k, Rule::Freestyle).unwrap();
        let moves = caro_core::notation::parse_move_list(moves, size).unwrap();
        Game::from_moves(rules, Color::Black, &moves).unwrap()
    }

    #[test]
    fn board_marks_the_last_move_and_labels_every_edge() {
        let g = game(BoardSize::square(3), 3, "b2 c3");
        assert_eq!(
            board_text(&g),
            "  a b c\n3 . .[O]3\n2 . X . 2\n1 . . . 1\n  a b c\n"
        );
        let g = game(BoardSize::square(3), 3, "a2");
        assert_eq!(board_text(&g).lines().nth(2), Some("2[X]. . 2"));
    }

    #[test]
    fn wide_boards_keep_columns_aligned() {
        let g = game(BoardSize::new(28, 5).unwrap(), 5, "ab3");
        let text = board_text(&g);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with(" aa ab"), "{}", lines[0]);
        assert!(lines[3].ends_with(" [X]3"), "{}", lines[3]);
        assert!(lines
            .iter()
            .all(|l| l.len() == lines[0].len() + 2 || l == &lines[0]));
    }

    #[test]
    fn cells_by_number_on_three_by_three() {
        let s = BoardSize::square(3);
        assert_eq!(parse_cell("1", s), Ok(Pos::new(0, 0)));
        assert_eq!(parse_cell("6", s), Ok(Pos::new(2, 1)));
        assert_eq!(parse_cell(" 9 ", s), Ok(Pos::new(2, 2)));
        assert_eq!(parse_cell("b2", s), Ok(Pos::new(1, 1)));
        assert!(matches!(parse_cell("0", s), Err(CellError::Number(_))));
        assert!(matches!(parse_cell("10", s), Err(CellError::Number(_))));
        let e = parse_cell("5", BoardSize::square(15)).unwrap_err();
        assert!(e.to_string().starts_with("not a cell"), "{e}");
        let e = parse_cell("z99", BoardSize::square(15)).unwrap_err();
        assert!(e.to_string().contains("off the"), "{e}");
    }
}
