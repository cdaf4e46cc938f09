//! Helpers of the search's unit tests.

use caro_core::notation::{format_pos, parse_move_list};
use caro_core::{BoardSize, Color, Game, Pos, Rule, Rules};

use super::CaroPlayer;
use crate::player::{Context, Limits, Player, Score, SearchInfo, StopFlag};

/// A game on a `side`×`side` board under `rule`, `k` in a row, from
/// `moves` (black first).
pub(super) fn game(rule: Rule, side: u8, k: u8, moves: &str) -> Game {
    let rules = Rules::new(BoardSize::square(side), k, rule).unwrap();
    let m = parse_move_list(moves, rules.size).unwrap();
    Game::from_moves(rules, Color::Black, &m).unwrap()
}

/// The move of `caro:level` (seed 1) under `limits`.
pub(super) fn best(game: &Game, level: u32, limits: Limits) -> Pos {
    let mut p = CaroPlayer::new(level, 1);
    let mut sink = |_: &SearchInfo| {};
    let mut ctx = Context::new(limits, StopFlag::new(), &mut sink);
    p.choose(game, &mut ctx).unwrap().best
}

/// The report of `caro:10` to depth 4: the score and the line.
pub(super) fn report(game: &Game) -> (Score, Vec<String>) {
    let mut p = CaroPlayer::new(10, 1);
    let mut sink = |_: &SearchInfo| {};
    let mut ctx = Context::new(Limits::depth(4), StopFlag::new(), &mut sink);
    let info = p.choose(game, &mut ctx).unwrap().info.unwrap();
    let pv = info
        .pv
        .iter()
        .map(|&m| format_pos(m, game.size()))
        .collect();
    (info.score, pv)
}
