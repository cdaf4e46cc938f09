//! Fits the evaluation's threat-count values: what it is worth, on top of
//! the point values, that a side has one, two, three or four and more
//! points that make a four (an open three, a double three, a four-three,
//! an open four).
//!
//! ```text
//! cargo run --release -p caro-engine --example fit_counts -- IN.tsv... [--write OUT.rs | --net HIDDEN]
//! ```
//!
//! Each IN.tsv is what `fit_shapes score` writes (a quiet position and
//! its score by a deeper search). The point values stay as they are; the
//! count values are fitted so that the point sum plus the count values
//! predicts the score: squared error after a logistic squash (scale 200),
//! Adam, every game in five held out. A count seen in fewer than
//! `MIN_SEEN` training positions (30) shares the value of the count below
//! it, and no points count nothing. `--write` writes the fitted table as
//! Rust source (the count values `caro train --counts` fits today). `--net HIDDEN` instead fits a
//! small network (one hidden layer of HIDDEN rectified units over the same
//! cells, one-hot, and the point sum) for comparison: how much a model
//! that combines the counts freely would add (built into the engine in
//! place of the table, such a network predicts better and plays no
//! better: docs/engine-changes.md, "Tried and not kept").

use caro_core::{BoardSize, Rule, Rules};
use caro_engine::state::{State, COUNTED_THREATS, MAX_COUNT};

mod common;
use common::{squashed_loss, squashed_slope, Adam};

const SCALE: f64 = 200.0;
const KINDS: usize = COUNTED_THREATS.len();
const BUCKETS: usize = MAX_COUNT + 1;
/// Table cells: (role, threat kind, count).
const CELLS: usize = 2 * KINDS * BUCKETS;

fn rules() -> Rules {
    Rules {
        size: BoardSize::square(15),
        k: 5,
        rule: Rule::Freestyle,
    }
}

struct Sample {
    /// The table cell of each (role, kind): `KINDS` for the side to move,
    /// then `KINDS` for the other side.
    cells: [usize; 2 * KINDS],
    target: f64,
    points: f64,
    held_out: bool,
}

fn sample(state: &State, no: usize, target: f64) -> Sample {
    let me = state.to_move();
    let mut cells = [0; 2 * KINDS];
    for (role, color) in [me, me.opponent()].into_iter().enumerate() {
        for (k, &t) in COUNTED_THREATS.iter().enumerate() {
            let n = (state.threat_count(color, t) as usize).min(MAX_COUNT);
            cells[role * KINDS + k] = (role * KINDS + k) * BUCKETS + n;
        }
    }
    Sample {
        cells,
        target,
        points: f64::from(state.evaluate_points()),
        held_out: no % 5 == 0,
    }
}

fn read_samples(inputs: &[String]) -> Vec<Sample> {
    let mut samples = Vec::new();
    for input in inputs {
        let text = match std::fs::read_to_string(input) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("cannot read {input}: {e}");
                continue;
            }
        };
        for (line_no, line) in text.lines().enumerate() {
            let Some((no, game, target)) = common::parse_scored(line, rules()) else {
                eprintln!(
                    "{input}:{}: not GAME<TAB>MOVES<TAB>SCORE, skipped",
                    line_no + 1
                );
                continue;
            };
            samples.push(sample(&State::new(&game), no, target));
        }
    }
    samples
}

/// The table: each cell's parameter (a rare count shares the one below
/// it; a count of none has none and is worth nothing).
fn tie_cells(samples: &[Sample], min_seen: usize) -> Vec<Option<usize>> {
    let mut seen = [0usize; CELLS];
    for s in samples.iter().filter(|s| !s.held_out) {
        for &c in &s.cells {
            seen[c] += 1;
        }
    }
    let mut param = vec![None; CELLS];
    let mut next = 0;
    for c in 0..CELLS {
        if c % BUCKETS == 0 {
            continue;
        }
        param[c] = if seen[c] >= min_seen {
            next += 1;
            Some(next - 1)
        } else {
            param[c - 1]
        };
    }
    param
}

fn fit_table(samples: &[Sample], epochs: i32) -> [i16; CELLS] {
    let param = tie_cells(samples, min_seen());
    let n = param.iter().flatten().max().map_or(0, |&m| m + 1);
    let mut w = vec![0.0; n];
    let predict = |w: &[f64], s: &Sample| -> f64 {
        s.points
            + s.cells
                .iter()
                .filter_map(|&c| param[c].map(|p| w[p]))
                .sum::<f64>()
    };
    let loss = |w: &[f64], held: bool| {
        let pairs = samples.iter().filter(|s| s.held_out == held);
        squashed_loss(pairs.map(|s| (predict(w, s), s.target)), SCALE)
    };
    eprintln!(
        "{n} values; loss before: train {:.6} held {:.6}",
        loss(&w, false),
        loss(&w, true)
    );
    let train: Vec<&Sample> = samples.iter().filter(|s| !s.held_out).collect();
    let mut adam = Adam::new(n, 1.0);
    for epoch in 1..=epochs {
        let mut g = vec![0.0; n];
        for s in &train {
            let d = squashed_slope(predict(&w, s), s.target, SCALE) / train.len() as f64;
            for &c in &s.cells {
                if let Some(p) = param[c] {
                    g[p] += d;
                }
            }
        }
        for (p, &gp) in g.iter().enumerate() {
            adam.step(&mut w, p, gp, epoch);
        }
        if epoch % 50 == 0 {
            eprintln!(
                "pass {epoch}: train {:.6} held {:.6}",
                loss(&w, false),
                loss(&w, true)
            );
        }
    }
    let mut table = [0i16; CELLS];
    for (c, v) in table.iter_mut().enumerate() {
        *v = param[c].map_or(0, |p| w[p].round() as i16);
    }
    table
}

/// A small network over the counts: one hidden layer of rectified units
/// whose inputs are the table's cells (one-hot) and the point sum, its
/// output (in units of 100 evaluation points) added to the point sum.
/// The parameters are one flat vector, as the optimiser steps them: what
/// each cell adds to each unit (`cell * hidden + unit`), what the point
/// sum in units of `SCALE` adds to each unit, the units' biases, their
/// weights in the output, and the output's bias.
struct Net {
    hidden: usize,
    w: Vec<f64>,
}

impl Net {
    fn points(&self) -> usize {
        CELLS * self.hidden
    }
    fn bias(&self) -> usize {
        self.points() + self.hidden
    }
    fn output(&self) -> usize {
        self.bias() + self.hidden
    }
    fn output_bias(&self) -> usize {
        self.output() + self.hidden
    }

    /// The output and the hidden layer's activations.
    fn forward(&self, cells: &[usize], points: f64) -> (f64, Vec<f64>) {
        let w = &self.w;
        let h: Vec<f64> = (0..self.hidden)
            .map(|k| {
                let z = w[self.bias() + k]
                    + points / SCALE * w[self.points() + k]
                    + cells.iter().map(|&c| w[c * self.hidden + k]).sum::<f64>();
                z.max(0.0)
            })
            .collect();
        let out = w[self.output_bias()]
            + h.iter()
                .enumerate()
                .map(|(k, a)| a * w[self.output() + k])
                .sum::<f64>();
        (out, h)
    }

    fn predict(&self, s: &Sample, cell_of: &[usize]) -> f64 {
        let cells: Vec<usize> = s.cells.iter().map(|&c| cell_of[c]).collect();
        s.points + 100.0 * self.forward(&cells, s.points).0
    }
}

/// Fits the network. A cell seen in fewer than `MIN_SEEN` training
/// positions is read as the count below it, as the table ties it.
fn fit_net(samples: &[Sample], hidden: usize, epochs: i32) -> (Net, Vec<usize>) {
    let param = tie_cells(samples, min_seen());
    // The cell each cell is read as: a count of none is its own cell, a
    // rare count the cell of the count below it that is not rare.
    let cell_of: Vec<usize> = (0..CELLS)
        .map(|c| {
            let mut r = c;
            while r % BUCKETS != 0 && param[r] == param[r - 1] {
                r -= 1;
            }
            r
        })
        .collect();
    let mut seed = 7u64;
    let mut random = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.5
    };
    let mut net = Net {
        hidden,
        w: vec![0.0; CELLS * hidden + 3 * hidden + 1],
    };
    // Random cell rows (cells no position is read as stay at zero), point
    // sum column and output weights; zero biases.
    for (c, &read_as) in cell_of.iter().enumerate() {
        for k in 0..hidden {
            let v = random();
            if read_as == c {
                net.w[c * hidden + k] = v;
            }
        }
    }
    let (pw, w2) = (net.points(), net.output());
    for k in 0..hidden {
        net.w[pw + k] = random();
    }
    for k in 0..hidden {
        net.w[w2 + k] = random();
    }
    let loss = |net: &Net, held: bool| {
        let pairs = samples.iter().filter(|s| s.held_out == held);
        squashed_loss(pairs.map(|s| (net.predict(s, &cell_of), s.target)), SCALE)
    };
    let train: Vec<&Sample> = samples.iter().filter(|s| !s.held_out).collect();
    let n = net.w.len();
    let (b1, b2) = (net.bias(), net.output_bias());
    let mut adam = Adam::new(n, 0.01);
    let mut step = 0;
    for epoch in 1..=epochs {
        for batch in train.chunks(256) {
            step += 1;
            let mut g = vec![0.0; n];
            for s in batch {
                let cells: Vec<usize> = s.cells.iter().map(|&c| cell_of[c]).collect();
                let (out, h) = net.forward(&cells, s.points);
                let d = squashed_slope(s.points + 100.0 * out, s.target, SCALE) * 100.0
                    / batch.len() as f64;
                g[b2] += d;
                for k in 0..hidden {
                    g[w2 + k] += d * h[k];
                    if h[k] > 0.0 {
                        let dk = d * net.w[w2 + k];
                        g[b1 + k] += dk;
                        g[pw + k] += dk * s.points / SCALE;
                        for &c in &cells {
                            g[c * hidden + k] += dk;
                        }
                    }
                }
            }
            for (p, &gp) in g.iter().enumerate() {
                adam.step(&mut net.w, p, gp, step);
            }
        }
        if epoch % 50 == 0 {
            eprintln!(
                "pass {epoch}: train {:.6} held {:.6}",
                loss(&net, false),
                loss(&net, true)
            );
        }
    }
    (net, cell_of)
}

fn min_seen() -> usize {
    std::env::var("MIN_SEEN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
}

fn write_table(out: &str, table: &[i16; CELLS], samples: &[Sample], held: f64) {
    let mut text = format!(
        "// @generated by `cargo run --release -p caro-engine --example fit_counts`;\n\
         // do not edit. Data: {} quiet positions of freestyle 15x15 games,\n\
         // each scored by caro:10's search to depth 4. Held-out loss after the\n\
         // fit {held:.4}.\n\n\
         use super::{{COUNTED_THREATS, MAX_COUNT}};\n\n\
         /// Fitted threat-count values: `[as the side to move, as the other\n\
         /// side]`, each by threat kind (as [`COUNTED_THREATS`]) and by how\n\
         /// many points make it (the last for that many or more).\n\
         #[rustfmt::skip]\n\
         pub(crate) const COUNT_VALUES: [[[i16; MAX_COUNT + 1]; COUNTED_THREATS.len()]; 2] = [\n",
        samples.len()
    );
    for role in 0..2 {
        text.push_str("    [\n");
        for k in 0..KINDS {
            let at = (role * KINDS + k) * BUCKETS;
            let row: Vec<String> = table[at..at + BUCKETS]
                .iter()
                .map(|v| v.to_string())
                .collect();
            text.push_str(&format!("        [{}],\n", row.join(", ")));
        }
        text.push_str("    ],\n");
    }
    text.push_str("];\n");
    if let Err(e) = std::fs::write(out, text) {
        eprintln!("cannot write {out}: {e}");
    }
}

fn usage() -> ! {
    eprintln!("usage: fit_counts IN.tsv... [--write OUT.rs | --net HIDDEN]");
    std::process::exit(2);
}

fn main() {
    let mut inputs = Vec::new();
    let (mut out, mut net) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--write" => out = Some(args.next().unwrap_or_else(|| usage())),
            "--net" => {
                net = Some(
                    args.next()
                        .and_then(|h| h.parse::<usize>().ok())
                        .unwrap_or_else(|| usage()),
                )
            }
            _ => inputs.push(a),
        }
    }
    if inputs.is_empty() || (out.is_some() && net.is_some()) {
        usage();
    }
    let samples = read_samples(&inputs);
    eprintln!("{} samples", samples.len());
    if samples.iter().all(|s| s.held_out) || samples.iter().all(|s| !s.held_out) {
        eprintln!("nothing to fit: both a training and a held-out game are needed");
        std::process::exit(1);
    }
    let epochs: i32 = std::env::var("EPOCHS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    if let Some(hidden) = net {
        let (net, cell_of) = fit_net(&samples, hidden, epochs);
        let held = squashed_loss(
            samples
                .iter()
                .filter(|s| s.held_out)
                .map(|s| (net.predict(s, &cell_of), s.target)),
            SCALE,
        );
        eprintln!("held-out loss of the network: {held:.6}");
        return;
    }
    let table = fit_table(&samples, epochs);
    for role in 0..2 {
        for (k, t) in COUNTED_THREATS.iter().enumerate() {
            let at = (role * KINDS + k) * BUCKETS;
            eprintln!(
                "{} {t:?}: {:?}",
                ["side to move", "other side"][role],
                &table[at..at + BUCKETS]
            );
        }
    }
    let predict = |s: &Sample| s.points + s.cells.iter().map(|&c| f64::from(table[c])).sum::<f64>();
    let held = squashed_loss(
        samples
            .iter()
            .filter(|s| s.held_out)
            .map(|s| (predict(s), s.target)),
        SCALE,
    );
    eprintln!("held-out loss with the rounded table: {held:.6}");
    if let Some(out) = out {
        write_table(&out, &table, &samples, held);
    }
}
