//! Fits the evaluation's point values to deeper search scores.
//!
//! ```text
//! cargo run --release -p caro-engine --example fit_eval -- DEPTH OUT.rs DIR...
//! ```
//!
//! Reads every `.psq` game under the directories (freestyle 15×15), takes
//! each quiet position from the 7th move on (no five to make or stop, and
//! no open four for the side to move to make), scores it with
//! `caro:10`'s alpha-beta search to DEPTH without its root threat
//! searches (skipping forced wins and losses), and fits a value for each
//! combination of a point's four line patterns, for the side to move and
//! for the other side, so that the sum over the empty points predicts the
//! search's score: squared error after a logistic squash (scale 200),
//! Adam, 300 passes, on four games in five (the fifth held out). Starts
//! from, and is pulled towards, the evaluation that came before the
//! fitted one (a value per line pattern, 1.5 times as much for the side
//! to move, and a charge for the other side's double-three and
//! four-three points); a value seen on fewer than 20 points keeps its
//! start. Writes the values as Rust source to OUT.rs
//! (the point values `caro train` fits today) and prints the losses.

use caro_core::{BoardSize, Rule, Rules};
use caro_engine::state::{State, Threat};

mod common;
use common::{squashed_loss, squashed_slope, Adam};

/// Positions scored between two progress lines.
const PROGRESS_EVERY: usize = 500;
/// Moves skipped at the start of each game (the opening).
const SKIP: usize = 6;
/// The evaluation before the fitted one: a value per line pattern.
const PATTERN_VALUE: [f64; 9] = [0.0, 2.0, 6.0, 7.0, 28.0, 32.0, 120.0, 600.0, 0.0];

/// Combination index of four direction patterns (a multiset of 4 from 9).
struct Combos {
    of_key: Vec<u16>,
    count: usize,
    /// The (sorted) patterns of each combination.
    members: Vec<[u8; 4]>,
}

impl Combos {
    fn new() -> Combos {
        let mut of_sorted = std::collections::HashMap::new();
        let mut members = Vec::new();
        let of_key: Vec<u16> = (0..6561usize)
            .map(|key| {
                let d = [key / 729, (key / 81) % 9, (key / 9) % 9, key % 9];
                let mut s = [d[0] as u8, d[1] as u8, d[2] as u8, d[3] as u8];
                s.sort_unstable();
                *of_sorted.entry(s).or_insert_with(|| {
                    members.push(s);
                    members.len() - 1
                }) as u16
            })
            .collect();
        // Numbered in the order the library's `combination` uses: the
        // sorted quadruples in lexicographic order.
        assert!(members.windows(2).all(|w| w[0] < w[1]));
        Combos {
            of_key,
            count: members.len(),
            members,
        }
    }
}

struct Sample {
    /// (feature, count): feature = role * combos + combo.
    x: Vec<(u32, f64)>,
    target: f64,
    current: f64,
    held_out: bool,
}

fn features(
    state: &State,
    size: BoardSize,
    combos: &Combos,
    threat_of: &mut [Option<Threat>],
) -> Vec<(u32, f64)> {
    let me = state.to_move();
    let mut counts = std::collections::HashMap::<u32, f64>::new();
    for (role, color) in [me, me.opponent()].into_iter().enumerate() {
        for y in 0..size.height {
            for x in 0..size.width {
                let i = state.index(caro_core::Pos::new(x, y));
                if state.board().cell(i) != caro_core::Cell::Empty {
                    continue;
                }
                let d = state.patterns(i).dir[color.index()];
                let key =
                    ((d[0] as usize * 9 + d[1] as usize) * 9 + d[2] as usize) * 9 + d[3] as usize;
                let c = combos.of_key[key] as usize;
                if c == 0 {
                    continue;
                }
                threat_of[c] = Some(state.threat(i, color));
                *counts.entry((role * combos.count + c) as u32).or_default() += 1.0;
            }
        }
    }
    let mut v: Vec<_> = counts.into_iter().collect();
    v.sort_by_key(|a| a.0);
    v
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth: u32 = args[0].parse().expect("depth");
    let out_path = args[1].clone();
    let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).expect("rules");
    let combos = Combos::new();
    let games = common::psq_move_lists(&args[2..]);
    eprintln!("{} games, {} combinations", games.len(), combos.count);
    let positions = common::quiet_positions(&games, rules, SKIP);
    eprintln!("{} positions", positions.len());
    // Scoring at depth 6 takes hours (over two and a half for 18k
    // positions on two cores): say how far it has got.
    let scored = common::score_positions(&positions, depth, PROGRESS_EVERY);
    let mut threat_of = vec![None; combos.count];
    let mut samples = Vec::new();
    for ((game, no), score) in positions.iter().zip(&scored) {
        let Some(s) = score else { continue };
        let state = State::new(game);
        samples.push(Sample {
            x: features(&state, rules.size, &combos, &mut threat_of),
            target: f64::from(*s),
            current: f64::from(state.evaluate()),
            held_out: no % 5 == 0,
        });
    }
    eprintln!("{} samples", samples.len());
    // The engine's evaluation in combination form.
    let n = combos.count;
    let mut w0 = vec![0.0; 2 * n];
    for c in 0..n {
        let lines: f64 = combos.members[c]
            .iter()
            .map(|&p| PATTERN_VALUE[p as usize])
            .sum();
        w0[c] = 1.5 * lines;
        let penalty = match threat_of[c] {
            Some(Threat::DoubleThree) => 250.0,
            Some(Threat::FourThree) => 500.0,
            _ => 0.0,
        };
        w0[n + c] = lines + penalty;
    }
    let eval = |w: &[f64], s: &Sample| -> f64 {
        s.x.iter()
            .map(|&(f, k)| {
                let f = f as usize;
                if f < n {
                    w[f] * k
                } else {
                    -w[f] * k
                }
            })
            .sum()
    };
    let mut mismatch = 0;
    for s in &samples {
        if (eval(&w0, s) - s.current).abs() > 1.0 {
            mismatch += 1;
        }
    }
    eprintln!("w0 reproduces the evaluation except in {mismatch} samples");
    let scale = 200.0;
    let loss = |w: &[f64], held: bool| -> f64 {
        let pairs = samples.iter().filter(|s| s.held_out == held);
        squashed_loss(pairs.map(|s| (eval(w, s), s.target)), scale)
    };
    // Features seen often enough to fit.
    let mut seen = vec![0.0; 2 * n];
    for s in samples.iter().filter(|s| !s.held_out) {
        for &(f, k) in &s.x {
            seen[f as usize] += k;
        }
    }
    eprintln!(
        "loss w0: train {:.6} held {:.6}",
        loss(&w0, false),
        loss(&w0, true)
    );
    let lambda = 1e-7;
    let mut w = w0.clone();
    let mut adam = Adam::new(2 * n, 2.0);
    let train: Vec<&Sample> = samples.iter().filter(|s| !s.held_out).collect();
    for epoch in 1..=300 {
        let mut g = vec![0.0; 2 * n];
        for s in &train {
            let d = squashed_slope(eval(&w, s), s.target, scale) / train.len() as f64;
            for &(f, k) in &s.x {
                let f = f as usize;
                g[f] += if f < n { d * k } else { -d * k };
            }
        }
        for f in 0..2 * n {
            if seen[f] < 20.0 {
                continue;
            }
            g[f] += 2.0 * lambda * (w[f] - w0[f]);
            adam.step(&mut w, f, g[f], epoch);
        }
        if epoch % 50 == 0 {
            eprintln!(
                "epoch {epoch}: train {:.6} held {:.6}",
                loss(&w, false),
                loss(&w, true)
            );
        }
    }
    let mut text = format!(
        "// @generated by `cargo run --release -p caro-engine --example fit_eval -- {depth} ...`;\n\
         // do not edit. Data: {} quiet positions of {} freestyle 15x15 games, each\n\
         // scored by caro:10's search to depth {depth}. Held-out loss {:.4} before the\n\
         // fit, {:.4} after.\n\n\
         use super::COMBINATIONS;\n\n\
         /// Fitted point values: `[as the side to move, as the other side]`, each\n\
         /// by combination of four line patterns (see [`super::combination`]).\n\
         #[rustfmt::skip]\n\
         pub(crate) const FITTED: [[i16; COMBINATIONS]; 2] = [\n",
        samples.len(),
        games.len(),
        loss(&w0, true),
        loss(&w, true),
    );
    for role in 0..2 {
        text += "    [\n";
        for row in w[role * n..(role + 1) * n].chunks(16) {
            let row: Vec<String> = row
                .iter()
                .map(|v| format!("{}", v.round() as i16))
                .collect();
            text += &format!("        {},\n", row.join(", "));
        }
        text += "    ],\n";
    }
    text += "];\n";
    std::fs::write(&out_path, text).expect("write");
}
