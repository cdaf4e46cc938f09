//! Asks whether features the evaluation does not have would predict
//! deeper search scores better than the evaluation alone.
//!
//! ```text
//! cargo run --release -p caro-engine --example fit_shapes -- score DEPTH OUT.tsv DIR...
//! cargo run --release -p caro-engine --example fit_shapes -- fit IN.tsv shapes|pairs
//! ```
//!
//! `score` reads every `.psq` game under the directories (freestyle
//! 15×15), takes each quiet position from the 7th move on (no five to make
//! or stop, no open four for the side to move to make) and writes it with
//! `caro:10`'s score to DEPTH (no root threat searches; forced wins and
//! losses left out): `GAME<TAB>MOVES<TAB>SCORE` lines.
//!
//! `fit` fits, on top of the engine's evaluation (which stays as it is), a
//! value for each feature of one kind, so that the evaluation plus the
//! values predicts the score: squared error after a logistic squash
//! (scale 200), Adam, every game in five held out. The kinds:
//! - `shapes`: each (empty point, direction, colour)'s line as the pattern
//!   table reads it, its full key (the cells `k` each way up to the
//!   first blocker, a line and its mirror image one feature), for the side
//!   to move and for the other side: what a line's [`Pattern`] leaves out
//!   (single stones, the spacing of a two, the room beyond a three);
//! - `pairs`: each empty point's best pattern for the side to move with
//!   its best for the other side (and how many lines hold a two or
//!   better for each): points that both sides want.
//!
//! It prints the losses before and after (MIN_SEEN, LAMBDA and EPOCHS in
//! the environment change the fit) and the largest values found.

use std::collections::HashMap;
use std::io::Write;

use caro_core::{BoardSize, Cell, Color, Rule, Rules};
use caro_engine::pattern::{half_count, Pattern};
use caro_engine::state::State;

mod common;
use common::{squashed_loss, squashed_slope, Adam};

const SKIP: usize = 6;

fn rules() -> Rules {
    Rules {
        size: BoardSize::square(15),
        k: 5,
        rule: Rule::Freestyle,
    }
}

fn score(depth: u32, out: &str, dirs: &[String]) {
    let games = common::psq_move_lists(dirs);
    let positions = common::quiet_positions(&games, rules(), SKIP);
    eprintln!("{} games, {} positions", games.len(), positions.len());
    let scores = common::score_positions(&positions, depth, 1000);
    let lines: Vec<String> = positions
        .iter()
        .zip(&scores)
        .filter_map(|((game, no), score)| {
            let moves = caro_core::notation::format_move_list(game.moves(), rules().size);
            score.map(|s| format!("{no}\t{moves}\t{s}"))
        })
        .collect();
    let written = std::fs::File::create(out).and_then(|mut f| {
        for l in &lines {
            writeln!(f, "{l}")?;
        }
        Ok(())
    });
    if let Err(e) = written {
        eprintln!("cannot write {out}: {e}");
    }
}

struct Sample {
    x: Vec<(u32, f64)>,
    target: f64,
    current: f64,
    held_out: bool,
}

fn fit(input: &str, pairs: bool) {
    let text = match std::fs::read_to_string(input) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {input}: {e}");
            return;
        }
    };
    let h = half_count(5);
    let keys = (h * h) as usize;
    let canon = |key: u64| -> usize {
        let (l, r) = (key / h, key % h);
        (l * h + r).min(r * h + l) as usize
    };
    let mut samples = Vec::new();
    for (line_no, line) in text.lines().enumerate() {
        let Some(game) = common::parse_scored(line, rules()) else {
            eprintln!(
                "{input}:{}: not GAME<TAB>MOVES<TAB>SCORE, skipped",
                line_no + 1
            );
            continue;
        };
        let (no, game, target) = game;
        let state = State::new(&game);
        let me = state.to_move();
        let mut counts = HashMap::<u32, f64>::new();
        for p in rules().size.points() {
            let i = state.index(p);
            if state.board().cell(i) != Cell::Empty {
                continue;
            }
            if pairs {
                // The point's best pattern for the mover and for the other
                // side, and the number of lines at Flex2 or better each.
                let pp = state.patterns(i);
                let (a, b) = (pp.best(me) as usize, pp.best(me.opponent()) as usize);
                let (ca, cb) = (
                    pp.count_at_least(me, Pattern::Flex2).min(2) as usize,
                    pp.count_at_least(me.opponent(), Pattern::Flex2).min(2) as usize,
                );
                if a >= 2 && b >= 2 {
                    let f = ((a * 9 + b) * 3 + ca) * 3 + cb;
                    *counts.entry(f as u32).or_default() += 1.0;
                }
                continue;
            }
            for d in 0..4 {
                let (kb, kw) = state.line_keys(i, d);
                for (c, key) in [(Color::Black, kb), (Color::White, kw)] {
                    let role = usize::from(c != me);
                    *counts.entry((role * keys + canon(key)) as u32).or_default() += 1.0;
                }
            }
        }
        let mut x: Vec<_> = counts.into_iter().collect();
        x.sort_by_key(|a| a.0);
        samples.push(Sample {
            x,
            target,
            current: f64::from(state.evaluate()),
            held_out: no % 5 == 0,
        });
    }
    eprintln!("{} samples", samples.len());
    if samples.iter().all(|s| s.held_out) || samples.iter().all(|s| !s.held_out) {
        eprintln!("nothing to fit: both a training and a held-out game are needed");
        return;
    }
    let n = 2 * keys;
    let scale = 200.0;
    let eval = |w: &[f64], s: &Sample| -> f64 {
        s.current + s.x.iter().map(|&(f, k)| w[f as usize] * k).sum::<f64>()
    };
    let loss = |w: &[f64], held: bool| -> f64 {
        let pairs = samples.iter().filter(|s| s.held_out == held);
        squashed_loss(pairs.map(|s| (eval(w, s), s.target)), scale)
    };
    let mut seen = vec![0.0; n];
    for s in samples.iter().filter(|s| !s.held_out) {
        for &(f, k) in &s.x {
            seen[f as usize] += k;
        }
    }
    let min_seen: f64 = std::env::var("MIN_SEEN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20.0);
    let lambda: f64 = std::env::var("LAMBDA")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1e-6);
    let epochs: i32 = std::env::var("EPOCHS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150);
    eprintln!(
        "features seen >= {min_seen}: {}",
        seen.iter().filter(|&&s| s >= min_seen).count()
    );
    let mut w = vec![0.0; n];
    eprintln!(
        "loss now: train {:.6} held {:.6}",
        loss(&w, false),
        loss(&w, true)
    );
    let mut adam = Adam::new(n, 1.0);
    let train: Vec<&Sample> = samples.iter().filter(|s| !s.held_out).collect();
    for epoch in 1..=epochs {
        let mut g = vec![0.0; n];
        for s in &train {
            let d = squashed_slope(eval(&w, s), s.target, scale) / train.len() as f64;
            for &(f, k) in &s.x {
                g[f as usize] += d * k;
            }
        }
        for f in 0..n {
            if seen[f] < min_seen {
                continue;
            }
            g[f] += 2.0 * lambda * w[f];
            adam.step(&mut w, f, g[f], epoch);
        }
        if epoch % 25 == 0 {
            eprintln!(
                "epoch {epoch}: train {:.6} held {:.6}",
                loss(&w, false),
                loss(&w, true)
            );
        }
    }
    // The largest values, to see what the fit found.
    let mut order: Vec<usize> = (0..n).filter(|&f| seen[f] >= min_seen).collect();
    order.sort_by(|&a, &b| w[b].abs().total_cmp(&w[a].abs()));
    for &f in order.iter().take(30) {
        let (role, key) = (f / keys, f % keys);
        if pairs {
            let (a, b) = (f / 81, f / 9 % 9);
            eprintln!(
                "mover {:?} ({} lines at two or better), other {:?} ({}): {:+.1} (seen {})",
                Pattern::from_u8(a as u8),
                f / 3 % 3,
                Pattern::from_u8(b as u8),
                f % 3,
                w[f],
                seen[f]
            );
            continue;
        }
        let line: String = caro_engine::pattern::key_to_line(key as u64, 5)
            .iter()
            .map(|&c| ['.', 'X', 'O', '|'][c as usize])
            .collect();
        eprintln!("role {role} {line} {:+.1} (seen {})", w[f], seen[f]);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("score") if args.len() >= 4 && args[1].parse::<u32>().is_ok() => {
            score(args[1].parse().unwrap_or(4), &args[2], &args[3..])
        }
        Some("fit") if args.len() == 3 && (args[2] == "shapes" || args[2] == "pairs") => {
            fit(&args[1], args[2] == "pairs")
        }
        _ => {
            eprintln!("usage: fit_shapes score DEPTH OUT.tsv DIR... | fit IN.tsv shapes|pairs");
            std::process::exit(2);
        }
    }
}
