//! Fits the scale of the win chance (`caro_engine::analysis::win_chance`)
//! to the results of self-play games.
//!
//! ```text
//! cargo run --release -p caro-engine --example fit_win_chance -- GAMES PLAYER NODES
//! cargo run --release -p caro-engine --example fit_win_chance -- 200 caro:3 20000
//! ```
//!
//! Plays GAMES games of PLAYER against itself (seeded by the game's
//! number, so the weak levels' bounded randomness varies them) on 15×15
//! freestyle from the empty board, then scores every position of each
//! game as the game analysis does (`caro:10`, NODES nodes a position) and
//! pairs each evaluation (not the proven wins and losses) with the game's
//! result for the side to move: 1 for a win, 0 for a loss, a half for a
//! draw. Prints the scale `s` of `1 / (1 + e^(-eval / s))` with the least
//! log loss, the loss at other scales, and how the chances it gives
//! compare with the results, by tenths.

use caro_core::{BoardSize, Color, Game, Rule, Rules};
use caro_engine::analysis::Analyser;
use caro_engine::{Context, Limits, PlayerSpec, Score, SearchInfo, StopFlag};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(200);
    let spec: PlayerSpec = args
        .get(1)
        .map_or("caro:3", String::as_str)
        .parse()
        .expect("a player such as caro:3");
    let nodes: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).expect("15x15 freestyle");
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let mut samples: Vec<(f64, f64)> = Vec::new();
    let mut results = [0usize; 3];
    let mut proven = 0usize;
    for seed in 0..games {
        let mut game = Game::new(rules, Color::Black).expect("a game");
        let mut players = [spec.build(seed * 2), spec.build(seed * 2 + 1)];
        while !game.is_over() {
            let mut sink = |_: &SearchInfo| {};
            let mut ctx = Context::new(Limits::default(), StopFlag::new(), &mut sink);
            let side = game.to_move().index();
            let best = players[side].choose(&game, &mut ctx).expect("a move").best;
            game.play(best);
        }
        let winner = game.outcome().and_then(|o| o.winner());
        results[match winner {
            Some(Color::Black) => 0,
            Some(Color::White) => 1,
            None => 2,
        }] += 1;
        let mut analyser = Analyser::new();
        let mut position = Game::new(rules, Color::Black).expect("a game");
        for &mv in game.moves() {
            let a = analyser
                .analyse(&position, 1, limits, &StopFlag::new(), &mut |_| {})
                .expect("a position to analyse");
            match a.lines[0].score {
                Score::Eval(v) => {
                    let result = match winner {
                        Some(w) if w == position.to_move() => 1.0,
                        Some(_) => 0.0,
                        None => 0.5,
                    };
                    samples.push((f64::from(v), result));
                }
                _ => proven += 1,
            }
            position.play(mv);
        }
        eprint!("\rgame {}/{games}: {} positions", seed + 1, samples.len());
    }
    eprintln!();
    println!(
        "{games} games of {spec} against itself: black won {}, white {}, {} drawn",
        results[0], results[1], results[2]
    );
    println!(
        "{} positions with an evaluation, {proven} with a proven result (left out)",
        samples.len()
    );
    let loss = |scale: f64| {
        samples
            .iter()
            .map(|&(v, r)| {
                let p = (1.0 / (1.0 + (-v / scale).exp())).clamp(1e-9, 1.0 - 1e-9);
                -(r * p.ln() + (1.0 - r) * (1.0 - p).ln())
            })
            .sum::<f64>()
            / samples.len().max(1) as f64
    };
    // Golden-section search on the logarithm of the scale.
    let (mut lo, mut hi) = (20f64.ln(), 5000f64.ln());
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - g * (hi - lo);
        let b = lo + g * (hi - lo);
        if loss(a.exp()) < loss(b.exp()) {
            hi = b;
        } else {
            lo = a;
        }
    }
    let best = ((lo + hi) / 2.0).exp();
    println!("best scale {best:.0}: log loss {:.4}", loss(best));
    for s in [100.0, 200.0, 300.0, 400.0, 600.0, 1000.0] {
        println!("scale {s:>5.0}: log loss {:.4}", loss(s));
    }
    println!("constant 0.5: log loss {:.4}", loss(f64::INFINITY));
    println!("chance by the best scale | positions | mean chance | mean result");
    let mut bins = [(0usize, 0f64, 0f64); 10];
    for &(v, r) in &samples {
        let p = 1.0 / (1.0 + (-v / best).exp());
        let bin = &mut bins[((p * 10.0) as usize).min(9)];
        bin.0 += 1;
        bin.1 += p;
        bin.2 += r;
    }
    for (i, (n, p, r)) in bins.iter().enumerate() {
        if *n > 0 {
            println!(
                "{:.1}-{:.1} | {n:>6} | {:.3} | {:.3}",
                i as f64 / 10.0,
                (i + 1) as f64 / 10.0,
                p / *n as f64,
                r / *n as f64
            );
        }
    }
}
