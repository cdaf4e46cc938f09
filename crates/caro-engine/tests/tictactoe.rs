//! At full strength tic-tac-toe is perfect: over every reachable 3×3
//! position, caro:10 keeps the game-theoretic value (a won position stays
//! won, a drawn one drawn; it never loses from a position that is not lost).

use std::collections::HashMap;

use caro_core::{BoardSize, Color, Game, Pos, Rule, Rules};
use caro_engine::{Context, Limits, PlayerSpec, SearchInfo, StopFlag};

/// Exact value for the side to move: 1 win, 0 draw, -1 loss.
fn value(game: &mut Game, memo: &mut HashMap<u64, i8>) -> i8 {
    if let Some(o) = game.outcome() {
        return match o.winner() {
            None => 0,
            Some(w) if w == game.to_move() => 1,
            Some(_) => -1,
        };
    }
    if let Some(&v) = memo.get(&game.hash()) {
        return v;
    }
    let mut best = -1;
    for m in game.legal_moves() {
        game.play(m);
        let v = -value(game, memo);
        game.undo_unchecked();
        best = best.max(v);
    }
    memo.insert(game.hash(), best);
    best
}

fn walk(game: &mut Game, seen: &mut HashMap<u64, ()>, out: &mut Vec<Game>) {
    if game.is_over() || seen.insert(game.hash(), ()).is_some() {
        return;
    }
    out.push(game.clone());
    for m in game.legal_moves() {
        game.play(m);
        walk(game, seen, out);
        game.undo_unchecked();
    }
}

#[test]
fn caro_plays_tic_tac_toe_perfectly() {
    let rules = Rules::new(BoardSize::square(3), 3, Rule::Freestyle).unwrap();
    let mut positions = Vec::new();
    let mut start = Game::new(rules, Color::Black).unwrap();
    walk(&mut start, &mut HashMap::new(), &mut positions);
    assert_eq!(positions.len(), 4520, "reachable non-final positions");
    let mut memo = HashMap::new();
    let mut player = PlayerSpec::Caro(10).build(1);
    let mut checked = 0;
    for game in &positions {
        let before = value(&mut game.clone(), &mut memo);
        let mut sink = |_: &SearchInfo| {};
        let mut ctx = Context::new(Limits::depth(9), StopFlag::new(), &mut sink);
        let m: Pos = player.choose(game, &mut ctx).unwrap().best;
        let mut after = game.clone();
        after.try_play(m).unwrap();
        let kept = -value(&mut after, &mut memo);
        assert_eq!(kept, before, "from {:?} caro played {m:?}", game.moves());
        checked += 1;
    }
    assert_eq!(checked, 4520);
}
