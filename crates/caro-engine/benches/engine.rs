//! Microbenchmarks of the engine's inner loop: the incremental pattern
//! update (play and undo), the static evaluation, move generation, and a
//! fixed-depth search. `cargo bench -p caro-engine --bench engine`.

use std::time::Instant;

use caro_core::notation::parse_move_list;
use caro_core::{BoardSize, Color, Game, Rule, Rules};
use caro_engine::search::bench_generate;
use caro_engine::state::State;
use caro_engine::{Context, Limits, PlayerSpec, SearchInfo, StopFlag};
use criterion::{black_box, criterion_group, criterion_main, Criterion};

/// A middle game on 15×15 freestyle (22 stones, threats on both sides).
const MIDDLE: &str = "h8 i9 h10 g9 h9 h7 i8 j7 g8 f8 i10 j11 g10 f10 j10 k10 i7 i6 g7 f6 j9 k8";

fn game(rule: Rule, side: u8, moves: &str) -> Game {
    let size = BoardSize::square(side);
    let rules = Rules::new(size, 5, rule).expect("rules");
    let moves = parse_move_list(moves, size).expect("moves");
    Game::from_moves(rules, Color::Black, &moves).expect("legal moves")
}

fn bench(c: &mut Criterion) {
    for (name, rule) in [("freestyle", Rule::Freestyle), ("renju", Rule::Renju)] {
        let g = game(rule, 15, MIDDLE);
        let mut state = State::new(&g);
        let empty: Vec<usize> = g
            .board()
            .empty_points()
            .map(|p| state.index(p))
            .filter(|&i| state.near(i) > 0)
            .collect();
        let mut k = 0;
        c.bench_function(&format!("play+undo, {name} 15x15 middle game"), |b| {
            b.iter(|| {
                k = (k + 1) % empty.len();
                state.play(black_box(empty[k]));
                state.undo();
            });
        });
        c.bench_function(&format!("evaluate, {name} 15x15 middle game"), |b| {
            b.iter(|| black_box(&state).evaluate());
        });
        c.bench_function(&format!("generate moves, {name} 15x15 middle game"), |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                black_box(bench_generate(&g, iters));
                start.elapsed()
            });
        });
    }
    let g = game(Rule::Freestyle, 15, MIDDLE);
    c.bench_function("search depth 4, freestyle 15x15 middle game", |b| {
        b.iter(|| {
            let mut player = PlayerSpec::Caro(10).build(1);
            let mut sink = |_: &SearchInfo| {};
            let mut ctx = Context::new(Limits::depth(4), StopFlag::new(), &mut sink);
            black_box(player.choose(&g, &mut ctx).expect("a move"))
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
