//! Speed of the rules core on the engine's hot path.
//!
//! - `play_win_undo/15x15` and `/60x60`: one stone placed through
//!   `Game::play_unchecked` (which checks for a win through the new stone
//!   and a full board), then taken back with `Game::undo_unchecked`, on a
//!   busy mid-game position, cycling over its empty points.
//! - `forbidden_map/15x15`: the renju foul check of every empty point of a
//!   busy 15×15 renju position (black to move).
//!
//! Run with `cargo bench -p caro-core --bench core`.

use std::hint::black_box;

use caro_core::{forbidden, BoardSize, Color, Game, Pos, Rule, Rules};
use criterion::{criterion_group, criterion_main, Criterion};

/// A deterministic busy position: `plies` legal moves, each near the
/// previous stones, chosen by a fixed pseudo-random sequence.
fn busy_game(size: BoardSize, rule: Rule, plies: usize) -> Game {
    let rules = Rules::new(size, 5, rule).unwrap();
    let mut game = Game::new(rules, Color::Black).unwrap();
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let c = size.center();
    game.try_play(c).unwrap();
    while game.moves().len() < plies {
        let anchor = game.moves()[(next() % game.moves().len() as u64) as usize];
        let dx = (next() % 5) as i16 - 2;
        let dy = (next() % 5) as i16 - 2;
        let (x, y) = (anchor.x as i16 + dx, anchor.y as i16 + dy);
        if x < 0 || y < 0 {
            continue;
        }
        let p = Pos::new(x as u8, y as u8);
        let mut trial = game.clone();
        if trial.try_play(p).is_ok() && !trial.is_over() {
            game = trial;
        }
    }
    game
}

fn play_win_undo(c: &mut Criterion) {
    let mut group = c.benchmark_group("play_win_undo");
    for (side, plies) in [(15u8, 60usize), (60, 400)] {
        let mut game = busy_game(BoardSize::square(side), Rule::Freestyle, plies);
        let empties: Vec<Pos> = game.board().empty_points().collect();
        let mut i = 0;
        group.bench_function(format!("{side}x{side}"), |b| {
            b.iter(|| {
                let p = empties[i];
                i = if i + 1 == empties.len() { 0 } else { i + 1 };
                let outcome = game.play_unchecked(black_box(p));
                black_box(outcome);
                game.undo_unchecked();
            });
        });
    }
    group.finish();
}

fn forbidden_map(c: &mut Criterion) {
    let mut game = busy_game(BoardSize::square(15), Rule::Renju, 70);
    if game.to_move() != Color::Black {
        game.undo_unchecked();
    }
    let fouls = game.forbidden_points().len();
    let mut board = game.board().clone();
    let mut out = Vec::with_capacity(64);
    let mut group = c.benchmark_group("forbidden_map");
    group.bench_function(
        format!("15x15 ({} stones, {fouls} fouls)", board.stone_count()),
        |b| {
            b.iter(|| {
                out.clear();
                forbidden::forbidden_points_into(black_box(&mut board), &mut out);
                black_box(out.len())
            });
        },
    );
    group.finish();
}

criterion_group!(benches, play_win_undo, forbidden_map);
criterion_main!(benches);
