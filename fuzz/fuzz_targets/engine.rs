//! Every built-in player and both threat solvers on a position built from
//! the input: any board from 3×3 to 60×60, any win length, any rule, and
//! any moves (the illegal ones skipped). Each player must answer a legal
//! move, and each solver's winning line must be legal and end in a win,
//! within the plies the solver bounds it by.
#![no_main]

use std::time::Duration;

use caro_core::rule::{MAX_K, MIN_K};
use caro_core::{BoardSize, Color, Game, Outcome, Pos, Rule, Rules};
use caro_engine::player::{Context, Limits, PlayerSpec, SearchInfo, StopFlag};
use caro_engine::search::{solve_vcf, solve_vcf_line, solve_vct_line, WinLine};
use libfuzzer_sys::fuzz_target;

const RULES: [Rule; 5] = [
    Rule::Freestyle,
    Rule::Standard,
    Rule::Renju,
    Rule::Caro,
    Rule::CaroStandard,
];

/// The player a byte names: every built-in one, the strong search at every
/// level.
fn player(b: u8) -> PlayerSpec {
    match b % 18 {
        0 => PlayerSpec::Random,
        1 => PlayerSpec::ScoreMap,
        2 => PlayerSpec::Quintuple,
        n @ 3..=7 => PlayerSpec::Minimax(u32::from(n - 3)),
        n => PlayerSpec::Caro(u32::from(n - 7)),
    }
}

/// A win's bound of plies, where given, ends on the attacker's turn
/// and is at least as long as its line.
fn check_plies(line: &WinLine, what: &str) {
    if let Some(plies) = line.plies {
        assert!(plies % 2 == 1, "{what} bound {plies} is even ({line:?})");
        assert!(
            plies as usize >= line.moves.len(),
            "{what} bound {plies} is shorter than its line ({line:?})"
        );
    }
}

/// Defender's replies [`check_line`] tries at the end of a line.
const MAX_REPLIES_CHECKED: usize = 48;

/// Plays `line` on a copy of `game`: every move legal, and it ends in a
/// five of the side that started it, or on a defender's turn where every
/// legal reply near the end leaves the attacker a five (an open four; under
/// renju a four whose block is forbidden).
fn check_line(game: &Game, line: &[Pos], what: &str) {
    let attacker = game.to_move();
    let mut g = game.clone();
    for (n, &m) in line.iter().enumerate() {
        g.try_play(m)
            .unwrap_or_else(|e| panic!("{what} line move {n} ({m:?}) is illegal: {e}"));
    }
    if g.is_over() {
        assert!(
            matches!(g.outcome(), Some(Outcome::Five { winner, .. }) if *winner == attacker),
            "{what} line {line:?} ends the game without the attacker's five"
        );
        return;
    }
    assert_eq!(
        g.to_move(),
        attacker.opponent(),
        "{what} line {line:?} ends on the attacker's turn"
    );
    // The replies nearest the line's last move: far ones cannot stop a
    // four, and a check of every point of a 60×60 board takes too long.
    let last = *line.last().expect("a winning line has a move");
    let mut replies = g.legal_moves();
    replies.sort_by_key(|p| p.x.abs_diff(last.x).max(p.y.abs_diff(last.y)));
    replies.truncate(MAX_REPLIES_CHECKED);
    for d in replies {
        let mut after = g.clone();
        let _ = after.try_play(d);
        let five = after.is_over() || solve_vcf(&after, 0, 1_000).is_some();
        assert!(five, "{what} line {line:?}: the defender's {d:?} stops it");
    }
}

fuzz_target!(|data: &[u8]| {
    let [w, h, k, r, p, rest @ ..] = data else {
        return;
    };
    let rule = RULES[usize::from(*r) % RULES.len()];
    let k = if rule == Rule::Renju {
        5
    } else {
        MIN_K + k % (MAX_K - MIN_K + 1)
    };
    let Ok(size) = BoardSize::new(3 + w % 58, 3 + h % 58) else {
        return;
    };
    let Ok(rules) = Rules::new(size, k, rule) else {
        return;
    };
    let Ok(mut game) = Game::new(rules, Color::Black) else {
        return;
    };
    for m in rest.chunks_exact(2) {
        if game.is_over() {
            break;
        }
        let pos = Pos::new(m[0] % size.width, m[1] % size.height);
        let _ = game.try_play(pos);
    }
    if game.is_over() {
        return;
    }
    let mut sink = |_: &SearchInfo| {};
    let limits = Limits {
        nodes: Some(1_500),
        ..Limits::time(Duration::from_secs(2))
    };
    let mut ctx = Context::new(limits, StopFlag::new(), &mut sink);
    let spec = player(*p);
    let decision = spec
        .build(u64::from(*p))
        .choose(&game, &mut ctx)
        .unwrap_or_else(|e| panic!("{spec:?} found no move: {e}"));
    let mut after = game.clone();
    after
        .try_play(decision.best)
        .unwrap_or_else(|e| panic!("{spec:?} played {:?}: {e}", decision.best));

    if let Some(line) = solve_vcf_line(&game, 30, 3_000) {
        check_line(&game, &line.moves, "VCF");
        check_plies(&line, "VCF");
    }
    let (solution, line) = solve_vct_line(&game, 3_000, 1);
    if solution.win().is_some() {
        check_line(&game, &line.moves, "VCT");
        check_plies(&line, "VCT");
    }
});
