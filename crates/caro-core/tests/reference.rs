//! Differential tests: caro-core against a slow, naive reference.
//!
//! The reference at the top of this file is written from the rule
//! definitions (PRODUCT.md "Boards and rules", and the RIF foul definition
//! at the top of `shared/positions/fouls.txt`), not from the library:
//!
//! - a plain `Vec<Vec<Option<Color>>>` board;
//! - wins found by scanning every maximal run of the whole board;
//! - renju fouls for black by the RIF definition, recursively for threes,
//!   reading whole board lines, and cloning the board to ask whether the
//!   point that makes a straight four is itself forbidden.
//!
//! Random games of every rule on 3×3 (k = 3), 15×15, 19×19, 20×30 and
//! 60×60 (k = 5), on small boards with any k, and from dense renju set-ups,
//! are played through [`Game::try_play`]. At every ply the result, the
//! winning line, the forbidden points, [`Game::play_refereed`] and
//! undo/redo are compared with the reference. The last group checks that
//! the eight symmetries of the board carry every verdict along.
//!
//! A failure message names the rules and the position as an `h8` move
//! list (plus placed stones for set-ups).

use std::collections::{BTreeMap, BTreeSet};

use caro_core::notation::{format_move_list, format_pos};
use caro_core::{
    Board, BoardSize, Color, Foul, Game, GameSetup, MoveError, Outcome, Pos, Rule, Rules,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

// ===========================================================================
// The reference
// ===========================================================================

/// Steps of the four line directions: right, down, down-right, up-right.
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// A board as plainly as it gets: `rows[y][x]`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RefBoard {
    width: i32,
    height: i32,
    rows: Vec<Vec<Option<Color>>>,
}

impl RefBoard {
    fn new(size: BoardSize) -> RefBoard {
        RefBoard {
            width: size.width.into(),
            height: size.height.into(),
            rows: vec![vec![None; size.width.into()]; size.height.into()],
        }
    }

    fn on_board(&self, x: i32, y: i32) -> bool {
        0 <= x && x < self.width && 0 <= y && y < self.height
    }

    /// The stone at `(x, y)`: `None` when empty or off the board.
    fn at(&self, x: i32, y: i32) -> Option<Color> {
        if self.on_board(x, y) {
            self.rows[y as usize][x as usize]
        } else {
            None
        }
    }

    fn get(&self, p: Pos) -> Option<Color> {
        self.at(p.x.into(), p.y.into())
    }

    fn set(&mut self, p: Pos, stone: Option<Color>) {
        self.rows[usize::from(p.y)][usize::from(p.x)] = stone;
    }

    /// A copy with one more stone.
    fn with(&self, p: Pos, color: Color) -> RefBoard {
        let mut b = self.clone();
        b.set(p, Some(color));
        b
    }

    fn points(&self) -> Vec<Pos> {
        let mut out = Vec::new();
        for y in 0..self.height {
            for x in 0..self.width {
                out.push(Pos::new(x as u8, y as u8));
            }
        }
        out
    }

    fn empty_points(&self) -> Vec<Pos> {
        self.points()
            .into_iter()
            .filter(|&p| self.get(p).is_none())
            .collect()
    }

    fn stone_count(&self) -> usize {
        self.rows.iter().flatten().filter(|c| c.is_some()).count()
    }

    fn is_full(&self) -> bool {
        self.rows.iter().flatten().all(Option::is_some)
    }
}

/// Whether a maximal run of `len` stones of `color` wins under `rule`;
/// `opp_before` / `opp_after`: an opponent stone lies just past that end
/// (the board edge is not a stone).
fn ref_run_wins(
    rule: Rule,
    k: usize,
    color: Color,
    len: usize,
    opp_before: bool,
    opp_after: bool,
) -> bool {
    let blocked_both = opp_before && opp_after;
    match rule {
        Rule::Freestyle => len >= k,
        Rule::Standard => len == k,
        Rule::Renju => {
            if color == Color::Black {
                len == 5
            } else {
                len >= 5
            }
        }
        // Overlines always win; an exact k loses only when shut at both ends.
        Rule::Caro => len > k || (len == k && !blocked_both),
        Rule::CaroStandard => len == k && !blocked_both,
    }
}

/// Every winning line on the whole board: colour and points.
fn ref_winning_lines(b: &RefBoard, k: usize, rule: Rule) -> Vec<(Color, BTreeSet<Pos>)> {
    let mut lines = Vec::new();
    for y in 0..b.height {
        for x in 0..b.width {
            let Some(color) = b.at(x, y) else { continue };
            for (dx, dy) in DIRECTIONS {
                if b.at(x - dx, y - dy) == Some(color) {
                    continue; // not the first stone of its run
                }
                let mut run = BTreeSet::new();
                let (mut cx, mut cy) = (x, y);
                while b.at(cx, cy) == Some(color) {
                    run.insert(Pos::new(cx as u8, cy as u8));
                    cx += dx;
                    cy += dy;
                }
                let opp = Some(color.opponent());
                let before = b.at(x - dx, y - dy) == opp;
                let after = b.at(cx, cy) == opp;
                if ref_run_wins(rule, k, color, run.len(), before, after) {
                    lines.push((color, run));
                }
            }
        }
    }
    lines
}

/// A whole board line through a point, edge to edge.
struct LineView {
    points: Vec<Pos>,
    cells: Vec<Option<Color>>,
    /// Where the point is in `points`.
    at: usize,
}

fn line_view(b: &RefBoard, p: Pos, (dx, dy): (i32, i32)) -> LineView {
    let (mut x, mut y) = (i32::from(p.x), i32::from(p.y));
    while b.on_board(x - dx, y - dy) {
        x -= dx;
        y -= dy;
    }
    let mut points = Vec::new();
    while b.on_board(x, y) {
        points.push(Pos::new(x as u8, y as u8));
        x += dx;
        y += dy;
    }
    let at = points
        .iter()
        .position(|&q| q == p)
        .expect("p is on its line");
    let cells = points.iter().map(|&q| b.get(q)).collect();
    LineView { points, cells, at }
}

const BLACK: Option<Color> = Some(Color::Black);

/// The black run through `cells[i]` (which is black): first and last index.
fn black_run(cells: &[Option<Color>], i: usize) -> (usize, usize) {
    let mut lo = i;
    while lo > 0 && cells[lo - 1] == BLACK {
        lo -= 1;
    }
    let mut hi = i;
    while hi + 1 < cells.len() && cells[hi + 1] == BLACK {
        hi += 1;
    }
    (lo, hi)
}

/// Fours through the point `line.at` (a black stone): five consecutive
/// points holding it, four black stones and one empty point, that become an
/// exact five when the empty point is filled. A four is its four stones, so
/// a straight four (two such windows, same stones) counts once and two fours
/// on one line with different stones count twice.
fn count_fours(line: &LineView) -> usize {
    let cells = &line.cells;
    let mut fours: BTreeSet<Vec<usize>> = BTreeSet::new();
    for start in line.at.saturating_sub(4)..=line.at {
        let end = start + 5; // exclusive
        if end > cells.len() {
            break;
        }
        let window = &cells[start..end];
        let blacks = window.iter().filter(|&&c| c == BLACK).count();
        let empties = window.iter().filter(|c| c.is_none()).count();
        if blacks != 4 || empties != 1 {
            continue;
        }
        let exact = (start == 0 || cells[start - 1] != BLACK)
            && (end == cells.len() || cells[end] != BLACK);
        if exact {
            fours.insert((start..end).filter(|&i| cells[i] == BLACK).collect());
        }
    }
    fours.len()
}

/// Whether `cells`, where `cells[i]` and `cells[j]` are black, has a straight
/// four holding both: exactly four black in a row, an empty point on the
/// board at each end, and each end making an exact five when filled.
fn straight_four_with(cells: &[Option<Color>], i: usize, j: usize) -> bool {
    let (lo, hi) = black_run(cells, i);
    hi + 1 - lo == 4
        && (lo..=hi).contains(&j)
        && lo >= 1
        && hi + 1 < cells.len()
        && cells[lo - 1].is_none()
        && cells[hi + 1].is_none()
        && (lo < 2 || cells[lo - 2] != BLACK)
        && (hi + 2 >= cells.len() || cells[hi + 2] != BLACK)
}

/// Whether the black stone at `line.at` makes an open three along `line`:
/// one more black stone, on a point that is not itself forbidden (with the
/// first stone on the board), makes a straight four holding both.
/// `board` does not hold the first stone yet.
fn is_open_three(board: &RefBoard, line: &LineView) -> bool {
    let p = line.points[line.at];
    for j in 0..line.cells.len() {
        // Four stones in a row holding both points: at most three apart.
        if line.cells[j].is_some() || j.abs_diff(line.at) > 3 {
            continue;
        }
        let mut cells = line.cells.clone();
        cells[j] = BLACK;
        if straight_four_with(&cells, line.at, j)
            && ref_foul(&board.with(p, Color::Black), line.points[j]).is_none()
        {
            return true;
        }
    }
    false
}

/// The foul black commits by playing the empty point `p` (RIF renju).
fn ref_foul(board: &RefBoard, p: Pos) -> Option<Foul> {
    assert_eq!(board.get(p), None, "ref_foul on an occupied point");
    // The four lines through `p`, with the black stone on `p`.
    let lines: Vec<LineView> = DIRECTIONS
        .iter()
        .map(|&d| {
            let mut line = line_view(board, p, d);
            line.cells[line.at] = BLACK;
            line
        })
        .collect();
    let runs: Vec<usize> = lines
        .iter()
        .map(|l| {
            let (lo, hi) = black_run(&l.cells, l.at);
            hi + 1 - lo
        })
        .collect();
    if runs.contains(&5) {
        return None; // an exact five is never a foul
    }
    if runs.iter().any(|&n| n >= 6) {
        return Some(Foul::Overline);
    }
    if lines.iter().map(count_fours).sum::<usize>() >= 2 {
        return Some(Foul::DoubleFour);
    }
    if lines.iter().filter(|l| is_open_three(board, l)).count() >= 2 {
        return Some(Foul::DoubleThree);
    }
    None
}

/// Every forbidden point for black on the board.
fn ref_forbidden(board: &RefBoard) -> BTreeMap<Pos, Foul> {
    board
        .empty_points()
        .into_iter()
        .filter_map(|p| ref_foul(board, p).map(|f| (p, f)))
        .collect()
}

// ===========================================================================
// Comparing the library with the reference
// ===========================================================================

/// Rules, set-up stones and moves: enough to rebuild and to name a position.
#[derive(Clone, Debug)]
struct Record {
    rules: Rules,
    first: Color,
    stones: Vec<(Pos, Color)>,
    moves: Vec<Pos>,
}

impl Record {
    fn describe(&self) -> String {
        let size = self.rules.size;
        let mut s = format!(
            "[{} k={} {}, {} first",
            size, self.rules.k, self.rules.rule, self.first
        );
        if !self.stones.is_empty() {
            let of = |c: Color| {
                let pts: Vec<Pos> = self
                    .stones
                    .iter()
                    .filter(|s| s.1 == c)
                    .map(|s| s.0)
                    .collect();
                format_move_list(&pts, size)
            };
            s += &format!(
                "; placed black: {} ; placed white: {}",
                of(Color::Black),
                of(Color::White)
            );
        }
        s += &format!("; moves: {}]", format_move_list(&self.moves, size));
        s
    }
}

type Snapshot = (Board, u64, Color, Option<Outcome>, Vec<Pos>);

fn snapshot(game: &Game) -> Snapshot {
    (
        game.board().clone(),
        game.hash(),
        game.to_move(),
        game.outcome().copied(),
        game.moves().to_vec(),
    )
}

fn line_set(outcome: &Outcome) -> Option<BTreeSet<Pos>> {
    outcome.line().map(|l| l.points().collect())
}

/// Board, side to move and result of `game` against the reference board.
/// `last`: the last stone played, if any.
fn check_position(
    game: &Game,
    rb: &RefBoard,
    to_move: Color,
    rec: &Record,
    last: Option<(Pos, Color)>,
) -> Result<(), TestCaseError> {
    let ctx = || rec.describe();
    let size = rec.rules.size;
    prop_assert_eq!(game.to_move(), to_move, "side to move {}", ctx());
    prop_assert_eq!(game.moves(), &rec.moves[..], "move list {}", ctx());
    for p in rb.points() {
        prop_assert_eq!(
            game.board().get(p),
            rb.get(p),
            "stone at {} {}",
            format_pos(p, size),
            ctx()
        );
    }
    prop_assert_eq!(game.board().stone_count(), rb.stone_count(), "{}", ctx());
    prop_assert_eq!(game.board().is_full(), rb.is_full(), "{}", ctx());

    let lines = ref_winning_lines(rb, rec.rules.k.into(), rec.rules.rule);
    let outcome = game.outcome().copied();
    if lines.is_empty() {
        // A full board is a draw; so, under renju, is black to move with
        // every empty point forbidden: black has no legal move (the core
        // draws the game then, see `Game`).
        let black_stuck = rec.rules.rule == Rule::Renju
            && to_move == Color::Black
            && rb.empty_points().iter().all(|&p| ref_foul(rb, p).is_some());
        let expected = (rb.is_full() || black_stuck).then_some(Outcome::Draw);
        prop_assert_eq!(outcome, expected, "result (no winning line) {}", ctx());
        return Ok(());
    }
    let (p, color) = last.expect("set-ups never hold a winning line");
    for (c, pts) in &lines {
        prop_assert_eq!(
            *c,
            color,
            "a winning line of the side that did not move {}",
            ctx()
        );
        prop_assert!(
            pts.contains(&p),
            "winning line {} misses the last move {}",
            show_points(pts, size),
            ctx()
        );
    }
    match outcome {
        Some(o @ Outcome::Five { winner, line }) => {
            prop_assert_eq!(winner, color, "winner {}", ctx());
            prop_assert_eq!(o.winner(), Some(color));
            let set = line_set(&o).expect("five has a line");
            prop_assert_eq!(set.len(), usize::from(line.len), "line points {}", ctx());
            prop_assert!(
                lines.iter().any(|(_, l)| *l == set),
                "library line {} is not one of the reference lines {} {}",
                show_points(&set, size),
                show_lines(&lines, size),
                ctx()
            );
        }
        other => prop_assert!(
            false,
            "library result {:?}, reference finds winning lines {} {}",
            other,
            show_lines(&lines, size),
            ctx()
        ),
    }
    Ok(())
}

/// Points as `h8 i9 j10`.
fn show_points(points: &BTreeSet<Pos>, size: BoardSize) -> String {
    let v: Vec<Pos> = points.iter().copied().collect();
    format_move_list(&v, size)
}

/// Winning lines as `black: h8 i9 j10 k11 l12; ...`.
fn show_lines(lines: &[(Color, BTreeSet<Pos>)], size: BoardSize) -> String {
    let v: Vec<String> = lines
        .iter()
        .map(|(c, l)| format!("{c}: {}", show_points(l, size)))
        .collect();
    v.join("; ")
}

/// A foul map as `e14:44 f8:6 k5:33`.
fn show_fouls(fouls: &BTreeMap<Pos, Foul>, size: BoardSize) -> String {
    let items: Vec<String> = fouls
        .iter()
        .map(|(&p, f)| format!("{}:{}", format_pos(p, size), f.label()))
        .collect();
    format!("{{{}}}", items.join(" "))
}

/// Forbidden points of `game` against the reference map `fouls` (black's
/// fouls on the current board).
fn check_forbidden(
    game: &Game,
    fouls: &BTreeMap<Pos, Foul>,
    rec: &Record,
) -> Result<(), TestCaseError> {
    let ctx = || rec.describe();
    let black = game.black_forbidden_points();
    let black_map: BTreeMap<Pos, Foul> = black.iter().copied().collect();
    prop_assert_eq!(black.len(), black_map.len(), "duplicates {}", ctx());
    prop_assert!(
        black_map == *fouls,
        "black_forbidden_points: library {} reference {} {}",
        show_fouls(&black_map, rec.rules.size),
        show_fouls(fouls, rec.rules.size),
        ctx()
    );

    let to_move = game.forbidden_points();
    let to_move_map: BTreeMap<Pos, Foul> = to_move.iter().copied().collect();
    prop_assert_eq!(to_move.len(), to_move_map.len(), "duplicates {}", ctx());
    if game.to_move() == Color::Black && !game.is_over() {
        prop_assert!(
            to_move_map == *fouls,
            "forbidden_points: library {} reference {} {}",
            show_fouls(&to_move_map, rec.rules.size),
            show_fouls(fouls, rec.rules.size),
            ctx()
        );
    } else {
        prop_assert!(
            to_move_map.is_empty(),
            "forbidden_points for white or after the end {}",
            ctx()
        );
    }
    Ok(())
}

/// Under renju with black to move, every forbidden point is refused by
/// `check`/`try_play` and loses through `play_refereed`; undo and redo of
/// that losing move work. With white to move, black's forbidden points
/// are ordinary moves for white.
fn check_refereed(
    game: &Game,
    fouls: &BTreeMap<Pos, Foul>,
    rec: &Record,
    limit: usize,
) -> Result<(), TestCaseError> {
    if game.is_over() {
        return Ok(());
    }
    let size = rec.rules.size;
    for (&p, &foul) in fouls.iter().take(limit) {
        let ctx = || format!("at {} {}", format_pos(p, size), rec.describe());
        let mut g = game.clone();
        if game.to_move() == Color::White {
            let mut plain = game.clone();
            let expected = plain.try_play(p);
            let got = g.play_refereed(p);
            prop_assert!(expected.is_ok(), "white refused {}", ctx());
            prop_assert_eq!(got, expected, "white's refereed move {}", ctx());
            prop_assert_eq!(&g, &plain, "{}", ctx());
            continue;
        }
        let refusal = MoveError::Forbidden { pos: p, size, foul };
        prop_assert_eq!(g.check(p), Err(refusal.clone()), "check {}", ctx());
        prop_assert_eq!(g.try_play(p), Err(refusal), "try_play {}", ctx());
        prop_assert_eq!(&g, game, "a refused move changed the game {}", ctx());
        let lost = Outcome::Foul {
            winner: Color::White,
            at: p,
            foul,
        };
        prop_assert_eq!(
            g.play_refereed(p),
            Ok(Some(lost)),
            "play_refereed {}",
            ctx()
        );
        prop_assert_eq!(g.outcome(), Some(&lost));
        prop_assert_eq!(g.board().get(p), Some(Color::Black));
        prop_assert_eq!(g.last_move(), Some(p));
        prop_assert_eq!(g.to_move(), Color::White);
        prop_assert_eq!(g.undo(), Some(p), "undo a foul {}", ctx());
        prop_assert_eq!(snapshot(&g), snapshot(game), "undo a foul {}", ctx());
        prop_assert_eq!(g.redo(), Some(p), "redo a foul {}", ctx());
        prop_assert_eq!(g.outcome(), Some(&lost), "redo a foul {}", ctx());
    }
    Ok(())
}

/// Points to choose a move from. `style` 0 of 8: anywhere; 1..=5 next to a
/// stone; 6, 7 within two points of a stone (busy positions come fast).
/// Rotated to start at `pick`, then followed by every other empty point.
fn candidates(rb: &RefBoard, pick: u32, style: u8) -> Vec<Pos> {
    let radius = match style % 8 {
        0 => 0,
        1..=5 => 1,
        _ => 2,
    };
    // `near`: empty points within `radius` of a stone.
    let size = BoardSize::new(rb.width as u8, rb.height as u8).unwrap();
    let mut near = RefBoard::new(size);
    for p in rb.points() {
        if rb.get(p).is_none() {
            continue;
        }
        for dy in -radius..=radius {
            for dx in -radius..=radius {
                let (x, y) = (i32::from(p.x) + dx, i32::from(p.y) + dy);
                if rb.on_board(x, y) && rb.at(x, y).is_none() {
                    near.set(Pos::new(x as u8, y as u8), Some(Color::Black));
                }
            }
        }
    }
    let empties = rb.empty_points();
    let (mut first, mut rest): (Vec<Pos>, Vec<Pos>) =
        empties.into_iter().partition(|&p| near.get(p).is_some());
    if first.is_empty() {
        std::mem::swap(&mut first, &mut rest);
    }
    for v in [&mut first, &mut rest] {
        if !v.is_empty() {
            let n = v.len();
            v.rotate_left(pick as usize % n);
        }
    }
    first.extend(rest);
    first
}

/// How a random game is driven.
#[derive(Clone, Copy)]
struct Plan {
    max_plies: usize,
    /// Compare the full forbidden-point maps every this many plies.
    forbidden_every: usize,
    /// How many forbidden points to try through `play_refereed` per ply.
    refereed_limit: usize,
}

/// Plays a random game from `stones` (side to move `to_move`) and compares
/// the library with the reference at every ply.
fn play_and_compare(
    rules: Rules,
    first: Color,
    stones: &[(Pos, Color)],
    to_move: Color,
    choices: &[(u32, u8)],
    plan: Plan,
) -> Result<(), TestCaseError> {
    let renju = rules.rule == Rule::Renju;
    let mut rec = Record {
        rules,
        first,
        stones: stones.to_vec(),
        moves: Vec::new(),
    };
    let mut rb = RefBoard::new(rules.size);
    for &(p, c) in stones {
        rb.set(p, Some(c));
    }
    let setup = GameSetup {
        size: rules.size,
        k: rules.k,
        rule: rules.rule,
        first,
        stones: stones.to_vec(),
        to_move: Some(to_move),
        moves: Vec::new(),
    };
    let mut game = match Game::from_setup(&setup) {
        Ok(g) => g,
        Err(e) => {
            return Err(TestCaseError::fail(format!(
                "set-up refused: {e} {}",
                rec.describe()
            )))
        }
    };
    let mut color = to_move;
    check_position(&game, &rb, color, &rec, None)?;

    for ply in 0..plan.max_plies {
        if game.is_over() {
            break;
        }
        let (pick, style) = choices.get(ply).copied().unwrap_or((0, 0));
        let known = if renju && ply % plan.forbidden_every == 0 {
            let fouls = ref_forbidden(&rb);
            check_forbidden(&game, &fouls, &rec)?;
            check_refereed(&game, &fouls, &rec, plan.refereed_limit)?;
            Some(fouls)
        } else {
            None
        };

        // A random legal move; every forbidden point met on the way must be
        // refused by the library with the reference's foul.
        let mut chosen = None;
        for p in candidates(&rb, pick, style) {
            let foul = if renju && color == Color::Black {
                match &known {
                    Some(fouls) => fouls.get(&p).copied(),
                    None => ref_foul(&rb, p),
                }
            } else {
                None
            };
            let Some(foul) = foul else {
                chosen = Some(p);
                break;
            };
            let before = game.clone();
            let refusal = MoveError::Forbidden {
                pos: p,
                size: rules.size,
                foul,
            };
            prop_assert_eq!(game.try_play(p), Err(refusal), "{}", rec.describe());
            prop_assert_eq!(&game, &before, "{}", rec.describe());
        }
        let Some(p) = chosen else {
            // Black has no legal move left (renju, small nearly full
            // boards): the library leaves such a game unfinished, with no
            // legal move. Nothing more to play.
            prop_assert!(game.legal_moves().is_empty(), "{}", rec.describe());
            break;
        };

        let before = snapshot(&game);
        let mut refereed = game.clone();
        let played = game.try_play(p);
        rec.moves.push(p);
        let ctx = || rec.describe();
        prop_assert!(
            played.is_ok(),
            "try_play({}) refused: {:?} {}",
            format_pos(p, rules.size),
            played,
            ctx()
        );
        let played = played.unwrap();
        prop_assert_eq!(
            played,
            game.outcome().copied(),
            "returned outcome {}",
            ctx()
        );
        prop_assert_eq!(
            refereed.play_refereed(p),
            Ok(played),
            "play_refereed {}",
            ctx()
        );
        prop_assert_eq!(&refereed, &game, "play_refereed {}", ctx());

        rb.set(p, Some(color));
        check_position(&game, &rb, color.opponent(), &rec, Some((p, color)))?;
        color = color.opponent();

        let after = snapshot(&game);
        prop_assert_eq!(game.undo(), Some(p), "undo {}", ctx());
        prop_assert_eq!(snapshot(&game), before, "undo {}", ctx());
        prop_assert_eq!(game.redo_moves(), &[p][..], "redo list {}", ctx());
        prop_assert_eq!(game.redo(), Some(p), "redo {}", ctx());
        prop_assert_eq!(snapshot(&game), after, "redo {}", ctx());
        prop_assert!(game.redo_moves().is_empty(), "redo list {}", ctx());
    }

    let ctx = || rec.describe();
    if renju {
        check_forbidden(&game, &ref_forbidden(&rb), &rec)?;
    }
    if game.is_over() {
        prop_assert!(game.legal_moves().is_empty(), "{}", ctx());
        if let Some(&p) = rb.empty_points().first() {
            prop_assert_eq!(game.try_play(p), Err(MoveError::GameOver), "{}", ctx());
            prop_assert_eq!(game.play_refereed(p), Err(MoveError::GameOver), "{}", ctx());
        }
    }
    Ok(())
}

fn rules(width: u8, height: u8, k: u8, rule: Rule) -> Rules {
    Rules::new(BoardSize::new(width, height).unwrap(), k, rule).unwrap()
}

fn first_of(rule: Rule, white_first: bool) -> Color {
    if white_first && rule != Rule::Renju {
        Color::White
    } else {
        Color::Black
    }
}

fn choices(n: usize) -> impl Strategy<Value = Vec<(u32, u8)>> {
    prop::collection::vec((any::<u32>(), any::<u8>()), n)
}

/// `cases` test cases, times `CARO_REFERENCE_SCALE` when that is set (for
/// long runs: `CARO_REFERENCE_SCALE=50 cargo test --release --test reference`).
fn config(cases: u32) -> ProptestConfig {
    let scale: u32 = std::env::var("CARO_REFERENCE_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    ProptestConfig {
        cases: cases.saturating_mul(scale.max(1)),
        // Failures print the position as a move list; no files are written.
        failure_persistence: None,
        // Shrinking replays whole games: bounded so that a failure is
        // reported within a minute or so in debug builds.
        max_shrink_iters: 1000,
        max_shrink_time: 60_000,
        ..ProptestConfig::default()
    }
}

const NON_RENJU: [Rule; 4] = [
    Rule::Freestyle,
    Rule::Standard,
    Rule::Caro,
    Rule::CaroStandard,
];

const EVERY_PLY: Plan = Plan {
    max_plies: 10_000,
    forbidden_every: 1,
    refereed_limit: usize::MAX,
};

/// A placed stone.
type Stone = (Pos, Color);

/// Random placed stones for a dense set-up: stones near one centre, skipped
/// when the point is taken or the stone would make a winning line.
fn dense_stones(rules: Rules, center: (u8, u8), spots: &[(i8, i8, bool)]) -> Vec<Stone> {
    dense_stones_and_winner(rules, center, spots).0
}

/// [`dense_stones`], and a skipped stone that would make a winning line on
/// the final set-up, if any.
fn dense_stones_and_winner(
    rules: Rules,
    center: (u8, u8),
    spots: &[(i8, i8, bool)],
) -> (Vec<Stone>, Option<Stone>) {
    let mut rb = RefBoard::new(rules.size);
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    for &(dx, dy, black) in spots {
        let x = i32::from(center.0) + i32::from(dx);
        let y = i32::from(center.1) + i32::from(dy);
        if !rb.on_board(x, y) || rb.at(x, y).is_some() {
            continue;
        }
        let p = Pos::new(x as u8, y as u8);
        let color = if black { Color::Black } else { Color::White };
        let next = rb.with(p, color);
        if ref_winning_lines(&next, rules.k.into(), rules.rule).is_empty() {
            rb = next;
            out.push((p, color));
        } else {
            skipped.push((p, color));
        }
    }
    let winner = skipped.into_iter().find(|&(p, c)| {
        rb.get(p).is_none()
            && !ref_winning_lines(&rb.with(p, c), rules.k.into(), rules.rule).is_empty()
    });
    (out, winner)
}

/// A set-up whose placed stones hold a winning line is refused, naming the
/// line's colour.
fn check_setup_with_a_win(
    rules: Rules,
    stones: &[(Pos, Color)],
    win: (Pos, Color),
) -> Result<(), TestCaseError> {
    let mut setup = GameSetup::new(rules.size, rules.k, rules.rule);
    setup.stones = stones.to_vec();
    setup.stones.push(win);
    let rec = Record {
        rules,
        first: Color::Black,
        stones: setup.stones.clone(),
        moves: Vec::new(),
    };
    prop_assert_eq!(
        Game::from_setup(&setup).map(|_| ()),
        Err(caro_core::SetupError::AlreadyWon(win.1)),
        "{}",
        rec.describe()
    );
    Ok(())
}

fn spots(
    n: std::ops::RangeInclusive<usize>,
    reach: i8,
) -> impl Strategy<Value = Vec<(i8, i8, bool)>> {
    prop::collection::vec(
        (-reach..=reach, -reach..=reach, prop::bool::weighted(0.6)),
        n,
    )
}

proptest! {
    #![proptest_config(config(64))]

    /// Tic-tac-toe boards: every non-renju rule (renju needs k = 5), games
    /// played to the end.
    #[test]
    fn games_3x3(rule in prop::sample::select(NON_RENJU.to_vec()), white_first: bool, ch in choices(9)) {
        play_and_compare(rules(3, 3, 3, rule), first_of(rule, white_first), &[], first_of(rule, white_first), &ch, EVERY_PLY)?;
    }

    /// Small boards of any shape with any k (edges, k equal to a side),
    /// renju too where k = 5 fits.
    #[test]
    fn games_small_boards_any_k(
        w in 3u8..=12, h in 3u8..=12, k_pick: u8, rule in prop::sample::select(Rule::ALL.to_vec()),
        white_first: bool, ch in choices(144),
    ) {
        let longest = w.max(h);
        let (rule, k) = if rule == Rule::Renju {
            if longest >= 5 { (rule, 5) } else { (Rule::Freestyle, 3) }
        } else {
            (rule, 3 + k_pick % (longest.min(10) - 2))
        };
        play_and_compare(rules(w, h, k, rule), first_of(rule, white_first), &[], first_of(rule, white_first), &ch, EVERY_PLY)?;
    }
}

proptest! {
    #![proptest_config(config(40))]

    #[test]
    fn games_15x15(rule in prop::sample::select(Rule::ALL.to_vec()), white_first: bool, ch in choices(225)) {
        play_and_compare(rules(15, 15, 5, rule), first_of(rule, white_first), &[], first_of(rule, white_first), &ch, EVERY_PLY)?;
    }
}

proptest! {
    #![proptest_config(config(30))]

    #[test]
    fn games_19x19(rule in prop::sample::select(Rule::ALL.to_vec()), white_first: bool, ch in choices(200)) {
        let plan = Plan { max_plies: 200, ..EVERY_PLY };
        play_and_compare(rules(19, 19, 5, rule), first_of(rule, white_first), &[], first_of(rule, white_first), &ch, plan)?;
    }

    #[test]
    fn games_20x30(rule in prop::sample::select(Rule::ALL.to_vec()), white_first: bool, ch in choices(200)) {
        let plan = Plan { max_plies: 200, ..EVERY_PLY };
        play_and_compare(rules(20, 30, 5, rule), first_of(rule, white_first), &[], first_of(rule, white_first), &ch, plan)?;
    }
}

proptest! {
    #![proptest_config(config(20))]

    #[test]
    fn games_60x60(rule in prop::sample::select(Rule::ALL.to_vec()), white_first: bool, ch in choices(150)) {
        let plan = Plan { max_plies: 150, forbidden_every: 10, refereed_limit: 8 };
        play_and_compare(rules(60, 60, 5, rule), first_of(rule, white_first), &[], first_of(rule, white_first), &ch, plan)?;
    }
}

proptest! {
    #![proptest_config(config(80))]

    /// Dense renju set-ups (many black stones close together: fours,
    /// threes, nested threes), then a few plies of play from there.
    #[test]
    fn renju_dense_setups(
        cx in 0u8..15, cy in 0u8..15, sp in spots(20..=90, 5),
        black_to_move in prop::bool::weighted(0.8), ch in choices(12),
    ) {
        let r = rules(15, 15, 5, Rule::Renju);
        let (stones, win) = dense_stones_and_winner(r, (cx, cy), &sp);
        if let Some(win) = win {
            check_setup_with_a_win(r, &stones, win)?;
        }
        let to_move = if black_to_move { Color::Black } else { Color::White };
        play_and_compare(r, Color::Black, &stones, to_move, &ch, Plan { max_plies: 12, ..EVERY_PLY })?;
    }

    /// Dense set-ups of the other rules (overlines and blocked lines come
    /// often), then play to the end.
    #[test]
    fn dense_setups_other_rules(
        rule in prop::sample::select(NON_RENJU.to_vec()), cx in 0u8..15, cy in 0u8..15,
        sp in spots(20..=90, 5), white_to_move: bool, ch in choices(225),
    ) {
        let r = rules(15, 15, 5, rule);
        let (stones, win) = dense_stones_and_winner(r, (cx, cy), &sp);
        if let Some(win) = win {
            check_setup_with_a_win(r, &stones, win)?;
        }
        let to_move = if white_to_move { Color::White } else { Color::Black };
        play_and_compare(r, Color::Black, &stones, to_move, &ch, EVERY_PLY)?;
    }
}

// ===========================================================================
// Symmetries
// ===========================================================================

/// Symmetry `s` (0..8) of a `size` board: bit 2 transposes (so a
/// rectangular board turns into its transpose), bit 0 mirrors x, bit 1
/// mirrors y. The eight together are the rotations and reflections.
fn transform(s: u8, p: Pos, size: BoardSize) -> Pos {
    let (mut x, mut y) = (p.x, p.y);
    let t = transform_size(s, size);
    if s & 4 != 0 {
        std::mem::swap(&mut x, &mut y);
    }
    if s & 1 != 0 {
        x = t.width - 1 - x;
    }
    if s & 2 != 0 {
        y = t.height - 1 - y;
    }
    Pos::new(x, y)
}

fn transform_size(s: u8, size: BoardSize) -> BoardSize {
    if s & 4 != 0 {
        BoardSize {
            width: size.height,
            height: size.width,
        }
    } else {
        size
    }
}

/// What the library says about a position, with the points carried by
/// symmetry `s` onto the transformed board.
#[derive(Debug, PartialEq)]
struct Verdict {
    to_move: Color,
    over: bool,
    winner: Option<Color>,
    draw: bool,
    line: Option<BTreeSet<Pos>>,
    black_forbidden: BTreeMap<Pos, Foul>,
    forbidden: BTreeMap<Pos, Foul>,
}

fn verdict(game: &Game, s: u8) -> Verdict {
    let size = game.size();
    let carry = |v: Vec<(Pos, Foul)>| {
        v.into_iter()
            .map(|(p, f)| (transform(s, p, size), f))
            .collect()
    };
    let outcome = game.outcome().copied();
    Verdict {
        to_move: game.to_move(),
        over: game.is_over(),
        winner: outcome.and_then(|o| o.winner()),
        draw: outcome == Some(Outcome::Draw),
        line: outcome
            .and_then(|o| line_set(&o))
            .map(|l| l.into_iter().map(|p| transform(s, p, size)).collect()),
        black_forbidden: carry(game.black_forbidden_points()),
        forbidden: carry(game.forbidden_points()),
    }
}

/// Plays a random game (from optional placed stones) with the library,
/// then replays it under each of the eight symmetries and compares the
/// verdicts at every ply.
fn check_symmetries(
    rules: Rules,
    stones: &[(Pos, Color)],
    choices: &[(u32, u8)],
) -> Result<(), TestCaseError> {
    let size = rules.size;
    let mut rec = Record {
        rules,
        first: Color::Black,
        stones: stones.to_vec(),
        moves: Vec::new(),
    };
    let mut setup = GameSetup::new(size, rules.k, rules.rule);
    setup.stones = stones.to_vec();
    setup.to_move = Some(Color::Black);
    let start = Game::from_setup(&setup).expect("a set-up without a winning line");

    // The game, chosen among legal moves (library legality).
    let mut game = start.clone();
    let mut rb = RefBoard::new(size);
    for &(p, c) in stones {
        rb.set(p, Some(c));
    }
    for &(pick, style) in choices {
        if game.is_over() {
            break;
        }
        let color = game.to_move();
        let Some(p) = candidates(&rb, pick, style)
            .into_iter()
            .find(|&p| game.check(p).is_ok())
        else {
            break;
        };
        game.try_play(p).expect("checked move");
        rb.set(p, Some(color));
        rec.moves.push(p);
    }

    for s in 0..8u8 {
        let tsize = transform_size(s, size);
        let mut tsetup = GameSetup::new(tsize, rules.k, rules.rule);
        tsetup.stones = stones
            .iter()
            .map(|&(p, c)| (transform(s, p, size), c))
            .collect();
        tsetup.to_move = Some(Color::Black);
        let ctx = || format!("symmetry {s} of {}", rec.describe());
        let mut t = match Game::from_setup(&tsetup) {
            Ok(t) => t,
            Err(e) => {
                return Err(TestCaseError::fail(format!(
                    "transformed set-up refused: {e} {}",
                    ctx()
                )))
            }
        };
        let mut g = start.clone();
        let mut rb = RefBoard::new(size);
        for &(p, c) in stones {
            rb.set(p, Some(c));
        }
        prop_assert_eq!(verdict(&g, s), verdict(&t, 0), "{}", ctx());
        for (n, &p) in rec.moves.iter().enumerate() {
            let color = g.to_move();
            let a = g.try_play(p);
            let b = t.try_play(transform(s, p, size));
            prop_assert!(a.is_ok(), "{}", ctx());
            prop_assert_eq!(
                a.is_ok(),
                b.is_ok(),
                "move {} refused after a symmetry: {:?} {}",
                n + 1,
                b,
                ctx()
            );
            rb.set(p, Some(color));
            let mine = verdict(&g, s);
            let theirs = verdict(&t, 0);
            if mine.line != theirs.line {
                // Two winning lines through the last stone: either may be
                // named. Both must be winning lines of the original board.
                let lines = ref_winning_lines(&rb, rules.k.into(), rules.rule);
                let inverse: Option<BTreeSet<Pos>> = theirs.line.as_ref().map(|l| {
                    l.iter()
                        .map(|&q| {
                            rb.points()
                                .into_iter()
                                .find(|&o| transform(s, o, size) == q)
                                .expect("a preimage")
                        })
                        .collect()
                });
                let original = line_set(g.outcome().expect("a win")).expect("a line");
                prop_assert!(lines.iter().any(|(_, l)| *l == original), "{}", ctx());
                prop_assert!(
                    lines.iter().any(|(_, l)| Some(l) == inverse.as_ref()),
                    "transformed line {:?} is no winning line {}",
                    theirs.line,
                    ctx()
                );
                prop_assert_eq!(
                    Verdict { line: None, ..mine },
                    Verdict {
                        line: None,
                        ..theirs
                    },
                    "{}",
                    ctx()
                );
            } else {
                prop_assert_eq!(mine, theirs, "after move {} {}", n + 1, ctx());
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(24))]

    /// Random renju, freestyle and caro games on square and rectangular
    /// boards (rectangles turn into their transposes under half of the
    /// symmetries).
    #[test]
    fn symmetries_carry_the_verdict(
        rule in prop::sample::select(vec![Rule::Renju, Rule::Freestyle, Rule::Caro]),
        board in prop::sample::select(vec![(3u8, 3u8), (15, 15), (19, 19), (11, 17)]),
        ch in choices(120),
    ) {
        let (w, h) = board;
        let (rule, k) = if w < 5 {
            (if rule == Rule::Renju { Rule::Freestyle } else { rule }, 3)
        } else {
            (rule, 5)
        };
        check_symmetries(rules(w, h, k, rule), &[], &ch)?;
    }

    /// Dense renju set-ups: forbidden points move with the board.
    #[test]
    fn symmetries_carry_dense_renju_fouls(
        cx in 0u8..15, cy in 0u8..15, sp in spots(20..=90, 5), ch in choices(6),
    ) {
        let r = rules(15, 15, 5, Rule::Renju);
        let stones = dense_stones(r, (cx, cy), &sp);
        check_symmetries(r, &stones, &ch)?;
    }
}

// ===========================================================================
// The reference against hand-checked positions
// ===========================================================================

/// Renju positions from `shared/positions/fouls.txt` (complete foul maps
/// from Mintaka's test suite and single verdicts from AlphaGomoku's), in
/// that file's notation (`a1` bottom-left). Each is checked against both
/// the reference and the library.
const KNOWN_FOULS: &[(&str, &str, &str, bool)] = &[
    // (black, white, verdicts, complete)
    (
        "a10,b3,b4,b11,c12,d2,d3,d8,e8,e11,e12,e13,g8,h8,i8,j5,j12,k3,k4,k11,k13,k14,k15,l12,m5,m12,n12,o12",
        "e10",
        "e14:44,f8:6,k5:33",
        true,
    ),
    ("e5,e6,e7,e8,f6,g6,g9,h8", "e4,e9,f7,f9,h9,i9,i10", "f8:33", true),
    ("f9,g9,h7,h8,i6,j6,k6", "f10,g7,g8,h11,i7,i8,l6", "", true),
    (
        "d7,e5,e7,f6,f7,f8,f9,g7,h8,h9,h10,h11,i7",
        "c7,d4,f5,f10,g5,g9,h6,h7,h12,i9,j6,j8",
        "e6:33,e8:33",
        true,
    ),
    (
        "e10,f5,f6,f9,g8,h8,h9,h10,i7,i9,j7",
        "d11,e5,e9,f4,g6,g7,g9,g11,h7,j10,k8",
        "g10:33,i8:33,i10:33",
        true,
    ),
    ("f7,f11,g8,h6,h8,i8,j5,k8,k10,l9", "f8,j8,j11,k9", "h7:33,h9:33,i6:33", true),
    (
        "d8,d9,e7,f7,g6,g9,h8,h12,i9,j7,j9,k6,k9,l6,m9,m11,n10",
        "b7,c9,e5,e8,f8,f10,h9,i8,l9,m6,m10",
        "g7:33,j8:33,j10:33,k7:33",
        true,
    ),
    (
        "f7,f8,g6,g7,g8,g9,h6,h7,h8,h9,i7,i8",
        "e7,e8,g5,g10,h5,h10,j7,j8",
        "f6:33,f9:33,i6:33,i9:33",
        true,
    ),
    ("a9,a11,a12,a13,a14,b10,c10,d10,e10", "", "a15:five,a10:five", false),
    ("a9,a11,a12,a13,a14", "", "a15:five,a10:6", false),
    ("g10,h8,h10,i9,m13", "f6", "j10:ok", false),
    (
        "c9,d9,e2,e10,e11,f2,f8,g2,g3,g7,h4,h5,i2,i3,i7,j2,j8,k2,k10,k11,l9,m9",
        "e12,k12",
        "d10:33,l10:33,e9:33,k9:33,h6:33,f3:33,h3:ok,j3:33,h2:6",
        false,
    ),
    (
        "c9,d9,e2,e10,e11,f2,f8,g2,g3,g7,h4,h5,i2,i3,i7,j2,j8,k2,k10,k11,l9,m9",
        "k12",
        "h3:33",
        false,
    ),
    ("e5,e6,e7,e8,f6,g6,g9,h8", "e4,e9,f7,f9,h9,i9,i10,j11", "g8:ok", false),
    ("h7,h8,i10,j7,j9,k7,k9", "h6,h9,i7,i8,i9,j8,l8", "k8:33", false),
    ("h7,h8,i10,j7,j9,k7,k9,k10", "h6,h9,i5,i7,i8,i9,j8,l8", "k8:ok", false),
];

fn parse_points(list: &str, size: BoardSize) -> Vec<Pos> {
    list.split(',')
        .filter(|t| !t.is_empty())
        .map(|t| caro_core::notation::parse_pos(t, size).expect("a point"))
        .collect()
}

fn foul_of_label(label: &str) -> Option<Foul> {
    match label {
        "33" => Some(Foul::DoubleThree),
        "44" => Some(Foul::DoubleFour),
        "6" => Some(Foul::Overline),
        "ok" | "five" => None,
        other => panic!("unknown verdict {other}"),
    }
}

#[test]
fn reference_and_library_agree_with_known_foul_maps() {
    let size = BoardSize::square(15);
    let r = rules(15, 15, 5, Rule::Renju);
    for &(black, white, verdicts, complete) in KNOWN_FOULS {
        let mut stones: Vec<(Pos, Color)> = Vec::new();
        stones.extend(
            parse_points(black, size)
                .into_iter()
                .map(|p| (p, Color::Black)),
        );
        stones.extend(
            parse_points(white, size)
                .into_iter()
                .map(|p| (p, Color::White)),
        );
        let mut rb = RefBoard::new(size);
        for &(p, c) in &stones {
            rb.set(p, Some(c));
        }
        let mut setup = GameSetup::new(size, 5, Rule::Renju);
        setup.stones.clone_from(&stones);
        setup.to_move = Some(Color::Black);
        let game = Game::from_setup(&setup).expect("a valid position");
        let library: BTreeMap<Pos, Foul> = game.black_forbidden_points().into_iter().collect();
        let reference = ref_forbidden(&rb);
        let mut expected = BTreeMap::new();
        for item in verdicts.split(',').filter(|t| !t.is_empty()) {
            let (p, v) = item.split_once(':').expect("point:verdict");
            let p = parse_points(p, size)[0];
            if v == "five" {
                let next = rb.with(p, Color::Black);
                let lines = ref_winning_lines(&next, 5, Rule::Renju);
                assert!(
                    lines
                        .iter()
                        .any(|(c, l)| *c == Color::Black && l.contains(&p)),
                    "{item}"
                );
            }
            assert_eq!(
                ref_foul(&rb, p),
                foul_of_label(v),
                "reference at {item} (black {black})"
            );
            if let Some(f) = foul_of_label(v) {
                expected.insert(p, f);
            }
        }
        if complete {
            assert_eq!(reference, expected, "reference map (black {black})");
        }
        assert_eq!(library, reference, "library vs reference (black {black})");
        let rec = Record {
            rules: r,
            first: Color::Black,
            stones,
            moves: Vec::new(),
        };
        check_refereed(&game, &reference, &rec, usize::MAX).expect("refereed fouls");
    }
}

/// The reference's own win rules on hand-made lines (caro blocking, edges,
/// overlines), so that the differential tests stand on something checked.
#[test]
fn reference_win_rules_on_hand_made_lines() {
    // Row 0 of a 9×3 board: `row` uses X, O and '.'.
    let wins = |row: &str, k: usize, rule: Rule| -> Vec<(Color, usize)> {
        let mut b = RefBoard::new(BoardSize::new(row.len() as u8, 3).unwrap());
        for (x, ch) in row.chars().enumerate() {
            let stone = match ch {
                'X' => Some(Color::Black),
                'O' => Some(Color::White),
                _ => None,
            };
            b.set(Pos::new(x as u8, 1), stone);
        }
        ref_winning_lines(&b, k, rule)
            .into_iter()
            .map(|(c, l)| (c, l.len()))
            .collect()
    };
    let black = |n| vec![(Color::Black, n)];
    let white = |n| vec![(Color::White, n)];
    let none: Vec<(Color, usize)> = Vec::new();
    assert_eq!(wins("XXXXX....", 5, Rule::Freestyle), black(5));
    assert_eq!(wins("XXXXXX...", 5, Rule::Freestyle), black(6));
    assert_eq!(wins("XXXXXX...", 5, Rule::Standard), none);
    assert_eq!(wins(".XXXXX...", 5, Rule::Standard), black(5));
    assert_eq!(wins("XXXXXX...", 5, Rule::Renju), none);
    assert_eq!(wins("OOOOOO...", 5, Rule::Renju), white(6));
    assert_eq!(wins("OXXXXXO..", 5, Rule::Caro), none);
    assert_eq!(wins("OXXXXXXO.", 5, Rule::Caro), black(6));
    assert_eq!(wins("XXXXXO...", 5, Rule::Caro), black(5));
    assert_eq!(wins("OXXXXX...", 5, Rule::Caro), black(5));
    assert_eq!(wins("OXXXXX.O.", 5, Rule::CaroStandard), black(5));
    assert_eq!(wins("OXXXXXO..", 5, Rule::CaroStandard), none);
    assert_eq!(wins("XXXXXX...", 5, Rule::CaroStandard), none);
    assert_eq!(wins("OXXXO....", 3, Rule::Caro), none);
    assert_eq!(wins("XXX", 3, Rule::CaroStandard), black(3));
}

/// Found by `games_small_boards_any_k`: on 11×5 renju the last empty point
/// (g3) is forbidden for black, who is to move. The game is drawn, and the
/// reference agrees that black has no legal move.
#[test]
fn renju_black_left_only_forbidden_points_is_a_draw() {
    let rules = rules(11, 5, 5, Rule::Renju);
    let moves = caro_core::notation::parse_move_list(
        "g1 h2 f1 h1 i3 i2 j3 i1 g2 h4 i5 j1 h3 j4 e3 d4 k5 i4 h5 c5 f3 e2 d3 e4 k3 b3 a5 \
         e1 d2 f2 a3 a2 b2 g5 c2 a1 b4 c4 j2 k4 b5 k1 g4 j5 d1 e5 f5 k2 b1 d5 c1 f4 a4 c3",
        rules.size,
    )
    .expect("a move list");
    let mut game = Game::new(rules, Color::Black).expect("11x5 renju");
    let mut rb = RefBoard::new(rules.size);
    for &m in &moves {
        rb.set(m, Some(game.to_move()));
        if let Err(e) = game.try_play(m) {
            panic!("{m:?}: {e}");
        }
    }
    assert_eq!(game.to_move(), Color::Black);
    assert!(!rb.is_full());
    assert!(rb
        .empty_points()
        .iter()
        .all(|&p| ref_foul(&rb, p).is_some()));
    assert_eq!(game.outcome(), Some(&Outcome::Draw));
}
