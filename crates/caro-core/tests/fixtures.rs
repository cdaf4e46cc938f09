//! Rule fixtures drawn as boards.
//!
//! Foul maps: `X` black, `O` white, `.` empty, and every point that is
//! forbidden for black marked `3` (double-three), `4` (double-four) or `6`
//! (overline). The test reads the stones, computes the whole foul map and
//! compares the drawings, so a wrong mark anywhere shows as a diff.
//!
//! Wins: the board before the move, the move, and the expected winning line
//! (or none).

use caro_core::notation::{format_pos, parse_pos};
use caro_core::{Board, BoardSize, Color, Foul, Pos, Rule, Rules};

fn read_board(drawing: &str) -> Board {
    let rows: Vec<Vec<char>> = drawing
        .lines()
        .map(|l| l.chars().filter(|c| !c.is_whitespace()).collect::<Vec<_>>())
        .filter(|r| !r.is_empty())
        .collect();
    let size = BoardSize::new(rows[0].len() as u8, rows.len() as u8).unwrap();
    let mut board = Board::new(size);
    for (y, row) in rows.iter().enumerate() {
        assert_eq!(row.len(), size.width as usize, "ragged drawing");
        for (x, &c) in row.iter().enumerate() {
            let color = match c {
                'X' => Color::Black,
                'O' => Color::White,
                '.' | '3' | '4' | '6' => continue,
                other => panic!("unexpected {other:?} in drawing"),
            };
            let i = board.index(Pos::new(x as u8, y as u8));
            board.place(i, color);
        }
    }
    board
}

fn normalise(drawing: &str) -> String {
    drawing
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

fn foul_map(board: &Board) -> String {
    let mut scratch = board.clone();
    let fouls = caro_core::forbidden::forbidden_points(&mut scratch);
    assert_eq!(
        &scratch, board,
        "the foul check must leave the board as it was"
    );
    let size = board.size();
    let mut out = Vec::new();
    for y in 0..size.height {
        let mut row = Vec::new();
        for x in 0..size.width {
            let p = Pos::new(x, y);
            let c = match board.get(p) {
                Some(Color::Black) => 'X',
                Some(Color::White) => 'O',
                None => match fouls.iter().find(|(q, _)| *q == p).map(|&(_, f)| f) {
                    Some(Foul::DoubleThree) => '3',
                    Some(Foul::DoubleFour) => '4',
                    Some(Foul::Overline) => '6',
                    None => '.',
                },
            };
            row.push(c.to_string());
        }
        out.push(row.join(" "));
    }
    out.join("\n")
}

fn assert_foul_map(drawing: &str) {
    let board = read_board(drawing);
    let want = normalise(drawing);
    let got = foul_map(&board);
    assert_eq!(
        got, want,
        "\ncomputed foul map:\n{got}\n\nexpected:\n{want}\n"
    );
}

#[test]
fn plain_double_three() {
    assert_foul_map(
        "
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . X X 3 . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .",
    );
}

#[test]
fn a_blocked_three_is_no_three() {
    // The vertical two is capped by white: only one three, no foul.
    assert_foul_map(
        "
        . . . . . . . . .
        . . . . O . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . X X . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .",
    );
}

/// g8 makes a vertical three (g9, g10) and a horizontal `e8 f8 g8` capped
/// by white at i8, whose only straight-four point is d8 — and d8 is an
/// overline point (d5..d10). So the horizontal three is false and g8 is
/// legal. (g7 is a true double-three: g7-g9-g10 and d10-f8-g7.)
const FALSE_THREE: &str = "
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . X . . X . . . . . . . .
        . . . X . . X . . . . . . . .
        . . . 6 X X . . O . . . . . .
        . . . X . . 3 . . . . . . . .
        . . . X . . . . . . . . . . .
        . . . X . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .";

#[test]
fn a_three_whose_straight_four_point_is_forbidden_is_no_three() {
    assert_foul_map(FALSE_THREE);
}

#[test]
fn the_same_three_is_real_once_its_other_end_opens() {
    // Without white's i8 the horizontal three can also become a straight
    // four at h8, which is legal: g8 is a double-three.
    let open = FALSE_THREE.replace(". . . 6 X X . . O", ". . . 6 X X 3 . .");
    assert_foul_map(&open);
}

#[test]
fn two_fours_on_one_line_are_a_double_four() {
    assert_foul_map(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . X . X X 4 . X . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
}

#[test]
fn an_overline_point_next_to_a_five_point() {
    // Filling b3 makes an exact five (b3..f3, g3 empty): legal.
    // Filling g3 makes seven in a row: overline.
    assert_foul_map(
        "
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . X X X X 6 X . . .
        . . . . . . . . . . .
        . . . . . . . . . . .",
    );
}

#[test]
fn a_five_that_also_makes_a_double_four_wins() {
    // e3 completes the row a3..e3 — wait: the row holds b3,c3,d3 and a3, so
    // e3 makes exactly five (a3..e3) while also making fours on the column
    // and the diagonal: a five is never a foul.
    let drawing = "
        . . . . . . . . .
        . . . . . . X . .
        . . . . X . . . .
        . . . . X X . . .
        . . . . X . . . .
        . . . X . . . . .
        X X X X . . . . .
        . . . . . . . . .
        . . . . . . . . .";
    let board = read_board(drawing);
    let size = board.size();
    let e3 = parse_pos("e3", size).unwrap();
    let rules = Rules::new(size, 5, Rule::Renju).unwrap();
    let mut b = board.clone();
    assert_eq!(b.foul_at(e3, Color::Black, Rule::Renju), None);
    let line = b
        .would_win(b.index(e3), Color::Black, &rules)
        .expect("a five");
    let pts: Vec<String> = line.points().map(|p| format_pos(p, size)).collect();
    assert_eq!(pts, ["a3", "b3", "c3", "d3", "e3"]);
    // Without the row the same point is a double-four.
    let mut b = board.clone();
    let a3 = b.index(parse_pos("a3", size).unwrap());
    b.remove(a3);
    assert_eq!(
        b.foul_at(e3, Color::Black, Rule::Renju),
        Some(Foul::DoubleFour)
    );
}

/// Plays `mv` for `color` on the drawn board under `rule` and compares the
/// winning line (as h8 points) with `want`.
fn win_case(rule: Rule, k: u8, drawing: &str, color: Color, mv: &str, want: Option<&[&str]>) {
    let mut board = read_board(drawing);
    let size = board.size();
    let rules = Rules::new(size, k, rule).unwrap();
    let p = parse_pos(mv, size).unwrap();
    let i = board.index(p);
    board.place(i, color);
    let got: Option<Vec<String>> = board
        .winning_line(i, color, &rules)
        .map(|l| l.points().map(|q| format_pos(q, size)).collect());
    let want: Option<Vec<String>> = want.map(|w| w.iter().map(|s| s.to_string()).collect());
    assert_eq!(got, want, "{rule} k={k} {color} {mv}");
}

const ROW_BLOCKED_BOTH_ENDS: &str = "
    . . . . . . . . .
    O X X X X . O . .
    . . . . . . . . .";

const ROW_OF_FIVE_AFTER_MOVE_OVERLINE: &str = "
    . . . . . . . . .
    . X X X X . X . .
    . . . . . . . . .";

#[test]
fn wins_under_each_rule() {
    // Exact five blocked by white on both ends.
    let five = Some(&["b2", "c2", "d2", "e2", "f2"][..]);
    win_case(
        Rule::Freestyle,
        5,
        ROW_BLOCKED_BOTH_ENDS,
        Color::Black,
        "f2",
        five,
    );
    win_case(
        Rule::Standard,
        5,
        ROW_BLOCKED_BOTH_ENDS,
        Color::Black,
        "f2",
        five,
    );
    win_case(
        Rule::Renju,
        5,
        ROW_BLOCKED_BOTH_ENDS,
        Color::Black,
        "f2",
        five,
    );
    win_case(
        Rule::Caro,
        5,
        ROW_BLOCKED_BOTH_ENDS,
        Color::Black,
        "f2",
        None,
    );
    win_case(
        Rule::CaroStandard,
        5,
        ROW_BLOCKED_BOTH_ENDS,
        Color::Black,
        "f2",
        None,
    );

    // Six in a row.
    let six = Some(&["b2", "c2", "d2", "e2", "f2", "g2"][..]);
    win_case(
        Rule::Freestyle,
        5,
        ROW_OF_FIVE_AFTER_MOVE_OVERLINE,
        Color::Black,
        "f2",
        six,
    );
    win_case(
        Rule::Standard,
        5,
        ROW_OF_FIVE_AFTER_MOVE_OVERLINE,
        Color::Black,
        "f2",
        None,
    );
    win_case(
        Rule::Renju,
        5,
        ROW_OF_FIVE_AFTER_MOVE_OVERLINE,
        Color::Black,
        "f2",
        None,
    );
    win_case(
        Rule::Caro,
        5,
        ROW_OF_FIVE_AFTER_MOVE_OVERLINE,
        Color::Black,
        "f2",
        six,
    );
    win_case(
        Rule::CaroStandard,
        5,
        ROW_OF_FIVE_AFTER_MOVE_OVERLINE,
        Color::Black,
        "f2",
        None,
    );
}

#[test]
fn white_wins_with_an_overline_in_renju() {
    let drawing = "
        . . . . . . . . .
        . O O O O . O . .
        . . . . . . . . .";
    let six = Some(&["b2", "c2", "d2", "e2", "f2", "g2"][..]);
    win_case(Rule::Renju, 5, drawing, Color::White, "f2", six);
}

#[test]
fn the_board_edge_does_not_block_in_caro() {
    let drawing = "
        . . . . . . . .
        X X X X . O . .
        . . . . . . . .";
    let five = Some(&["a2", "b2", "c2", "d2", "e2"][..]);
    win_case(Rule::Caro, 5, drawing, Color::Black, "e2", five);
    win_case(Rule::CaroStandard, 5, drawing, Color::Black, "e2", five);
}

#[test]
fn tic_tac_toe_diagonals() {
    let drawing = "
        X O .
        . X O
        . . .";
    win_case(
        Rule::Freestyle,
        3,
        drawing,
        Color::Black,
        "c1",
        Some(&["a3", "b2", "c1"]),
    );
    let drawing = "
        . O X
        . X O
        . . .";
    win_case(
        Rule::Freestyle,
        3,
        drawing,
        Color::Black,
        "a1",
        Some(&["c3", "b2", "a1"]),
    );
}

#[test]
fn long_k_on_a_rectangle() {
    let drawing = "
        . . . . . . . . . . . .
        . X X X X X X . X X . .
        . . . . . . . . . . . .";
    let seven: Vec<&str> = vec!["b2", "c2", "d2", "e2", "f2", "g2", "h2"];
    win_case(Rule::Standard, 7, drawing, Color::Black, "h2", None);
    win_case(
        Rule::Freestyle,
        7,
        drawing,
        Color::Black,
        "h2",
        Some(&["b2", "c2", "d2", "e2", "f2", "g2", "h2", "i2", "j2"]),
    );
    let drawing = "
        . . . . . . . . . . . .
        . X X X X X X . . X . .
        . . . . . . . . . . . .";
    win_case(Rule::Standard, 7, drawing, Color::Black, "h2", Some(&seven));
}
