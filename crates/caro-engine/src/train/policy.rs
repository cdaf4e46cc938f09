//! Fitting the move-ordering values to the moves the search chose: what
//! `caro train --policy` runs.
//!
//! The model scores each candidate point of a position (every empty point
//! with a stone near it) by the policy value of the combination of its
//! four line patterns for the side to move plus the value of its
//! combination for the other side, in the rows of the colour to move; a
//! softmax over the candidates is the chance that the point is the
//! search's move. The fit starts from the rule's values, in log-odds
//! ([`POLICY_UNITS`] ordering units each), and moves them by Adam over
//! the whole training set each epoch to lower the cross-entropy of the
//! search's moves. Positions are chosen as the evaluation's fit chooses
//! them (no four on the board, no proven score; one in ten held out by
//! its key), as are early stopping and `min_seen`: a combination the data
//! shows too rarely, such as one with a five, keeps its start.

use std::fmt::Write as _;

use caro_core::{Cell, Rule};

use super::{
    joined, split_rows, table_numbers, table_rule, PolicyTable, SplitRows, TrainSettings,
    POLICY_UNITS,
};
use crate::dataset::Sample;
use crate::point_values::{combination, COMBINATIONS};
use crate::policy::fitted_policy;
use crate::state::State;

/// The move-ordering values the engine plays `rule` with today.
#[must_use]
pub fn current_policy(rule: Rule) -> PolicyTable {
    *fitted_policy(rule)
}

/// The file of `crates/caro-engine/src/policy/` that holds the
/// move-ordering values `rule` is played with.
#[must_use]
pub fn policy_file(rule: Rule) -> &'static str {
    match table_rule(rule) {
        Rule::Renju => "renju.rs",
        Rule::Caro => "caro.rs",
        _ => "freestyle.rs",
    }
}

/// The move-ordering values as the Rust source of a file of
/// `src/policy/` (see [`policy_file`]), with `header` as its first comment
/// lines.
#[must_use]
pub fn render_policy(table: &PolicyTable, header: &str) -> String {
    let mut text = String::new();
    for line in header.lines() {
        let _ = writeln!(text, "// {line}");
    }
    text.push_str(
        "\nuse super::COMBINATIONS;\n\n\
         /// Move-ordering values: with black to move by the point's own patterns\n\
         /// and by the other side's, then the same with white to move; each by\n\
         /// combination of four line patterns (see [`super::fitted_policy`]).\n\
         #[rustfmt::skip]\n\
         pub(crate) const POLICY: [[i32; COMBINATIONS]; 4] = [\n",
    );
    for row in table {
        text.push_str("    [\n");
        for line in row.chunks(16) {
            let _ = writeln!(text, "        {},", joined(line));
        }
        text.push_str("    ],\n");
    }
    text.push_str("];\n");
    text
}

/// The move-ordering values of a file written by [`render_policy`], or
/// what is wrong with it.
///
/// # Errors
/// A message for a file without the `POLICY` table or with a table of the
/// wrong size.
pub fn parse_policy(text: &str) -> Result<PolicyTable, String> {
    let numbers: Vec<i32> =
        table_numbers(text, "POLICY").ok_or("no `POLICY` table in the file")??;
    if numbers.len() != 4 * COMBINATIONS {
        return Err(format!(
            "{} move-ordering values, not {}",
            numbers.len(),
            4 * COMBINATIONS
        ));
    }
    let mut table = [[0i32; COMBINATIONS]; 4];
    for (value, &number) in table.iter_mut().flatten().zip(&numbers) {
        *value = number;
    }
    Ok(table)
}

/// One position as the policy model sees it.
pub struct Choice {
    /// Per candidate point, its two weight indices: own combination
    /// (row `colour * 2`), the other side's (row `colour * 2 + 1`).
    candidates: Vec<[u32; 2]>,
    /// The place of the search's move among the candidates.
    best: usize,
}

/// The training and held-out positions of a policy fit (a position
/// whose move is not among the candidates counts as skipped).
pub type PolicySet = SplitRows<Choice>;

impl SplitRows<Choice> {
    /// The choices of `samples`.
    pub fn new<'a>(samples: impl IntoIterator<Item = &'a Sample>) -> Self {
        // The move-ordering fit has no target: the blend is not read.
        split_rows(samples, &TrainSettings::default(), |s, state, _| {
            choice_of(state, state.index(s.best))
        })
    }
}

/// The candidates of a position and the place of `best` among them
/// (`None` when it is not one).
fn choice_of(state: &State, best: usize) -> Option<Choice> {
    let me = state.to_move();
    let row = 2 * me.index();
    let mut candidates = Vec::new();
    let mut best_place = None;
    for i in 0..state.board().cell_count() {
        if state.board().cell(i) != Cell::Empty || state.near(i) == 0 {
            continue;
        }
        if i == best {
            best_place = Some(candidates.len());
        }
        let p = state.patterns(i);
        let own = combination(p.dir[me.index()]);
        let other = combination(p.dir[me.opponent().index()]);
        candidates.push([
            (row * COMBINATIONS + own) as u32,
            ((row + 1) * COMBINATIONS + other) as u32,
        ]);
    }
    best_place.map(|best| Choice { candidates, best })
}

/// One epoch's mean cross-entropy of the search's moves.
#[derive(Clone, Copy, Debug)]
pub struct PolicyEpoch {
    /// The pass, from 1 (0: the start).
    pub epoch: u32,
    /// On the training positions.
    pub train: f64,
    /// On the held-out positions.
    pub held: f64,
    /// Share of the held-out positions whose best-scored candidate is the
    /// search's move (ties count as misses).
    pub held_first: f64,
}

/// What a policy fit found.
#[derive(Clone, Debug)]
pub struct FittedPolicy {
    /// The values of the best epoch, rounded to ordering units.
    pub table: PolicyTable,
    /// Before the fit (epoch 0).
    pub start: PolicyEpoch,
    /// The best epoch by held-out cross-entropy.
    pub best: PolicyEpoch,
    /// Epochs run.
    pub epochs_run: u32,
}

/// The candidates' scores (log-odds) under weights `w`.
fn logits<'a>(w: &'a [f64], choice: &'a Choice) -> impl Iterator<Item = f64> + 'a {
    choice
        .candidates
        .iter()
        .map(|&[own, other]| w[own as usize] + w[other as usize])
}

/// The chances of the candidates: the softmax of their scores.
fn chances(w: &[f64], choice: &Choice) -> Vec<f64> {
    let z: Vec<f64> = logits(w, choice).collect();
    let max = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|x| (x - max).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.into_iter().map(|x| x / sum).collect()
}

/// Mean cross-entropy of the search's moves, and the share whose move
/// scores above every other candidate.
fn measure(w: &[f64], set: &[Choice]) -> (f64, f64) {
    if set.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let (mut loss, mut first) = (0.0, 0usize);
    for c in set {
        let p = chances(w, c);
        loss -= p[c.best].max(1e-300).ln();
        let z: Vec<f64> = logits(w, c).collect();
        if z.iter()
            .enumerate()
            .all(|(k, &v)| k == c.best || v < z[c.best])
        {
            first += 1;
        }
    }
    let n = set.len() as f64;
    (loss / n, first as f64 / n)
}

fn epoch_of(w: &[f64], set: &PolicySet, epoch: u32) -> PolicyEpoch {
    let (train, _) = measure(w, &set.train);
    let (held, held_first) = measure(w, &set.held);
    PolicyEpoch {
        epoch,
        train,
        held,
        held_first,
    }
}

/// Fits the move-ordering values to `set` from `start` (settings'
/// `learning_rate` in ordering units), calling `report` after each epoch.
#[must_use]
pub fn fit_policy(
    set: &PolicySet,
    start: &PolicyTable,
    settings: &TrainSettings,
    mut report: impl FnMut(PolicyEpoch),
) -> FittedPolicy {
    let mut w: Vec<f64> = start
        .iter()
        .flatten()
        .map(|&v| f64::from(v) / POLICY_UNITS)
        .collect();
    let n = w.len();
    let mut seen = vec![0.0; n];
    for c in &set.train {
        for pair in &c.candidates {
            for &f in pair {
                seen[f as usize] += 1.0;
            }
        }
    }
    let learning_rate = settings.learning_rate / POLICY_UNITS;
    let first = epoch_of(&w, set, 0);
    report(first);
    let mut best = first;
    let mut best_w = w.clone();
    let (mut m, mut v) = (vec![0.0; n], vec![0.0; n]);
    let (b1, b2) = (0.9f64, 0.999f64);
    let mut epochs_run = 0;
    for epoch in 1..=settings.epochs {
        epochs_run = epoch;
        let mut g = vec![0.0; n];
        let count = set.train.len().max(1) as f64;
        for c in &set.train {
            let p = chances(&w, c);
            for (k, (pair, chance)) in c.candidates.iter().zip(p).enumerate() {
                let slope = (chance - if k == c.best { 1.0 } else { 0.0 }) / count;
                for &f in pair {
                    g[f as usize] += slope;
                }
            }
        }
        let t = i32::try_from(epoch).unwrap_or(i32::MAX);
        for f in 0..n {
            if seen[f] < settings.min_seen {
                continue;
            }
            m[f] = b1 * m[f] + (1.0 - b1) * g[f];
            v[f] = b2 * v[f] + (1.0 - b2) * g[f] * g[f];
            let mh = m[f] / (1.0 - b1.powi(t));
            let vh = v[f] / (1.0 - b2.powi(t));
            w[f] -= learning_rate * mh / (vh.sqrt() + 1e-12);
        }
        let now = epoch_of(&w, set, epoch);
        report(now);
        if now.held < best.held || best.held.is_nan() {
            best = now;
            best_w.clone_from(&w);
        } else if epoch - best.epoch >= settings.patience {
            break;
        }
    }
    let limit = f64::from(i32::MAX);
    let mut table = [[0i32; COMBINATIONS]; 4];
    for (entry, value) in table.iter_mut().flatten().zip(&best_w) {
        *entry = (value * POLICY_UNITS).round().clamp(-limit, limit) as i32;
    }
    FittedPolicy {
        table,
        start: first,
        best,
        epochs_run,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::GameResult;
    use crate::policy::hand_set_policy;
    use caro_core::{BoardSize, Color, Game, Pos, Rules};

    /// Positions of one game where the search's move is always the point
    /// that extends black's line to the right: a fit must learn to put
    /// such points first.
    fn samples() -> Vec<Sample> {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let mut out = Vec::new();
        for shift in 0..12u8 {
            let mut game = Game::new(rules, Color::Black).unwrap();
            let moves = [(2, 2 + shift % 8), (12, 12), (3, 2 + shift % 8), (12, 2)];
            for &(x, y) in &moves {
                game.try_play(Pos::new(x, y)).unwrap();
            }
            let best = Pos::new(4, 2 + shift % 8);
            let mut s = Sample::of_game(&game, 10, best, GameResult::Win);
            s.ply = u16::from(shift);
            out.push(s);
        }
        out
    }

    #[test]
    fn a_policy_fit_learns_the_moves_of_its_data() {
        let samples = samples();
        let settings = TrainSettings {
            min_seen: 0.0,
            epochs: 60,
            patience: 60,
            learning_rate: 20.0,
            ..TrainSettings::default()
        };
        let mut set = PolicySet::new(&samples);
        assert_eq!(set.train_len() + set.held_len(), samples.len());
        set.held = PolicySet::new(&samples).train;
        let start = hand_set_policy();
        let fitted = fit_policy(&set, &start, &settings, |_| {});
        assert!(fitted.best.held < fitted.start.held, "{fitted:?}");
        assert!(fitted.best.held_first >= fitted.start.held_first);
        assert_ne!(fitted.table, start);
        // The same data, the same values.
        let again = fit_policy(&set, &start, &settings, |_| {});
        assert_eq!(again.table, fitted.table);
        // Only the rows of the colour to move (black) move.
        assert_eq!(fitted.table[2], start[2]);
        assert_eq!(fitted.table[3], start[3]);
    }

    #[test]
    fn the_engine_policies_read_back_from_their_source_files() {
        let sources = [
            (Rule::Freestyle, include_str!("../policy/freestyle.rs")),
            (Rule::Renju, include_str!("../policy/renju.rs")),
            (Rule::Caro, include_str!("../policy/caro.rs")),
        ];
        for (rule, source) in sources {
            assert_eq!(
                parse_policy(source).unwrap(),
                current_policy(rule),
                "{rule}"
            );
        }
        let mut table = current_policy(Rule::Renju);
        table[3][7] = -40_000;
        let rendered = render_policy(&table, "a header\nof two lines");
        assert!(rendered.starts_with("// a header\n// of two lines\n"));
        assert_eq!(parse_policy(&rendered).unwrap(), table);
        let short = rendered.replace("-40000, ", "");
        let err = parse_policy(&short).unwrap_err();
        assert!(err.contains("1979 move-ordering values, not 1980"), "{err}");
        assert!(parse_policy("const FITTED: X = [1];").is_err());
    }

    #[test]
    fn a_move_far_from_every_stone_is_left_out() {
        let mut samples = samples();
        for s in &mut samples {
            s.best = Pos::new(0, 14);
        }
        let set = PolicySet::new(&samples);
        assert_eq!(set.train_len() + set.held_len(), 0);
        assert_eq!(set.skipped, samples.len());
    }
}
