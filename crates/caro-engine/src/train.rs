//! Fitting the evaluation's point values to training positions
//! ([`crate::dataset`]): what `caro train` runs.
//!
//! The model is the engine's own point sum: each empty point is worth the
//! value of the combination of its four line patterns, for the side to
//! move (added) and for the other side (taken away), over the count
//! correction, which stays as it is. The fit starts from the values the
//! engine plays with and moves them by Adam, full batch, so that the
//! logistic squash of the sum predicts a blend of the game's result and
//! the search's squashed score:
//!
//! `target = λ · result + (1 − λ) · σ(score / scale)`, loss `(σ(eval /
//! scale) − target)²`, averaged.
//!
//! With [`TrainSettings::fit_counts`] the count correction's values are
//! fitted with the point values: [`CountTable`], each side's numbers of
//! four, open-three, double-three, four-three and open-four points, and
//! [`BothSidesTable`], which of six kinds of threat points each side has,
//! both sides at once. Without it they stay as they are.
//!
//! Positions where a side has a four on the board are left out: the
//! search plays the five or the block there before it evaluates. So are
//! positions with a proven result (a score beyond
//! [`crate::dataset::EVAL_LIMIT`]): no point sum should predict them. One position in ten (by its position key) is held out,
//! the fit stops when the held-out loss has not improved for `patience`
//! epochs, and the best epoch's values are kept. Nothing is random: the
//! same data and settings give the same values.

use std::fmt::Write as _;

use caro_core::{Cell, Color, Rule};

use crate::dataset::{Sample, EVAL_LIMIT};
use crate::pattern::Pattern;
use crate::point_values::{
    both_sides_key, combination, double_threes_count, fitted_both_sides, fitted_counts,
    fitted_table, may_be_foul, threat_bits, FittedBothSides, FittedCounts, FittedTable,
    BOTH_SIDES_KEYS, COMBINATIONS,
};

mod network;
pub use network::{fit_network, FittedNetwork, NetRow, NetworkEpoch, NetworkSet};
mod policy;
pub use policy::{
    current_policy, fit_policy, parse_policy, policy_file, render_policy, Choice, FittedPolicy,
    PolicyEpoch, PolicySet,
};

/// Move-ordering values: per colour to move (row `colour * 2` for the
/// point's own patterns, `colour * 2 + 1` for the other side's), by
/// combination, in ordering units ([`POLICY_UNITS`] a unit of log-odds).
pub type PolicyTable = crate::policy::PolicyTable;
/// Ordering units of one unit of the policy's log-odds.
pub const POLICY_UNITS: f64 = crate::policy::POLICY_UNITS;
use crate::state::{State, Threat, COUNTED_THREATS, MAX_COUNT};

/// Weights of the model: row `colour * 2 + role` (black as the side to
/// move, black as the other side, white as the side to move, white as the
/// other side), by combination of four line patterns.
pub type PointTable = FittedTable;

/// Count values: `[colour][as the side to move, as the other
/// side][threat kind, as the state's counted threats][number of points,
/// the last for that many or more]`.
pub type CountTable = FittedCounts;

/// Both-sides values: `[colour to move]`, by which threats the side to
/// move has and which the other side has (six kinds each, 4,096 keys).
pub type BothSidesTable = FittedBothSides;

/// Values of every point feature: one per colour, role and combination.
const POINT_FEATURES: usize = 4 * COMBINATIONS;

/// Values of every count feature: one per colour, role, counted threat
/// and number of points.
const COUNT_FEATURES: usize = 4 * COUNTED_THREATS.len() * (MAX_COUNT + 1);

/// Values of every both-sides feature: one per colour to move and key.
const BOTH_SIDES_FEATURES: usize = 2 * BOTH_SIDES_KEYS;

/// Everything an evaluation fit can move: the point, count and both-sides
/// values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tables {
    /// The point values.
    pub points: PointTable,
    /// The count values.
    pub counts: CountTable,
    /// The both-sides values.
    pub both_sides: BothSidesTable,
}

/// The point values the engine plays `rule` with today.
#[must_use]
pub fn current_table(rule: Rule) -> PointTable {
    *fitted_table(rule)
}

/// The point and count values the engine plays `rule` with today.
#[must_use]
pub fn current_tables(rule: Rule) -> Tables {
    Tables {
        points: *fitted_table(rule),
        counts: *fitted_counts(rule),
        both_sides: *fitted_both_sides(rule),
    }
}

/// The rules that share one table, named by their first: freestyle and
/// standard, renju, caro and caro-standard.
#[must_use]
pub fn table_rule(rule: Rule) -> Rule {
    match rule {
        Rule::Freestyle | Rule::Standard => Rule::Freestyle,
        Rule::Renju => Rule::Renju,
        Rule::Caro | Rule::CaroStandard => Rule::Caro,
    }
}

/// The file of `crates/caro-engine/src/point_values/` that holds the
/// table `rule` is played with.
#[must_use]
pub fn table_file(rule: Rule) -> &'static str {
    match table_rule(rule) {
        Rule::Renju => "renju.rs",
        Rule::Caro => "caro.rs",
        _ => "freestyle.rs",
    }
}

/// How a fit runs.
#[derive(Clone, Copy, Debug)]
pub struct TrainSettings {
    /// Weight of the game's result in the target (the rest: the search's
    /// score). Range 0..=1.
    pub lambda: f64,
    /// Evaluation units of the logistic squash: a score of `scale` is a
    /// 73% expectation.
    pub scale: f64,
    /// Most passes over the training positions.
    pub epochs: u32,
    /// Passes without a better held-out loss before the fit stops.
    pub patience: u32,
    /// Adam's step size, in evaluation units.
    pub learning_rate: f64,
    /// A value seen on fewer points than this in the training positions
    /// keeps its start.
    pub min_seen: f64,
    /// Fit the count values too (otherwise they stay as they start).
    pub fit_counts: bool,
}

impl Default for TrainSettings {
    fn default() -> Self {
        TrainSettings {
            lambda: 0.5,
            scale: 200.0,
            epochs: 300,
            patience: 10,
            learning_rate: 2.0,
            min_seen: 20.0,
            fit_counts: false,
        }
    }
}

/// One position as the point-value model sees it.
pub struct Row {
    /// (weight index, signed count): index `(colour * 2 + role) *
    /// COMBINATIONS + c` for a point value, then the count features from
    /// `POINT_FEATURES` (see [`count_feature`]).
    x: Vec<(u32, f32)>,
    /// What the model does not fit: the count correction, unless the
    /// counts are fitted.
    fixed: f32,
    target: f32,
}

/// The training and held-out positions of a point-value fit.
pub type TrainingSet = SplitRows<Row>;

/// Why a position is left out of a fit.
pub(crate) enum LeftOut {
    /// A proven result, or a position that is not legal.
    Skipped,
    /// A side has a four on the board: the search plays the five or the
    /// block there before it evaluates or orders moves.
    Forcing,
}

/// The state of a sample a fit may learn from, or why it is left out.
pub(crate) fn quiet_state(s: &Sample) -> Result<State, LeftOut> {
    if s.score.abs() > EVAL_LIMIT {
        return Err(LeftOut::Skipped);
    }
    let game = s.to_game().map_err(|_| LeftOut::Skipped)?;
    let state = State::new(&game);
    let me = state.to_move();
    if state.has(me, Pattern::Five) || state.has(me.opponent(), Pattern::Five) {
        return Err(LeftOut::Forcing);
    }
    Ok(state)
}

/// Rows of a fit, split into training and held-out rows, with the
/// numbers of positions left out.
pub struct SplitRows<R> {
    pub(crate) train: Vec<R>,
    pub(crate) held: Vec<R>,
    /// Positions left out: proven results, positions that are not legal,
    /// or that the fit's rows make nothing of.
    pub skipped: usize,
    /// Positions left out as forcing: a side has a four on the board (a
    /// five to make or to stop), which the search never scores by the
    /// evaluation nor orders by the policy (it plays the five or the
    /// block first).
    pub forcing: usize,
}

impl<R> SplitRows<R> {
    /// Training positions.
    #[must_use]
    pub fn train_len(&self) -> usize {
        self.train.len()
    }

    /// Held-out positions.
    #[must_use]
    pub fn held_len(&self) -> usize {
        self.held.len()
    }
}

/// The rows `row` makes of the quiet positions of `samples` (each with
/// its state and its target under `settings`), one in ten held out by
/// its position key; positions with a proven score or a four on the
/// board, and those `row` makes nothing of, are counted and left out.
pub(crate) fn split_rows<'a, R>(
    samples: impl IntoIterator<Item = &'a Sample>,
    settings: &TrainSettings,
    mut row: impl FnMut(&Sample, &State, f32) -> Option<R>,
) -> SplitRows<R> {
    let mut split = SplitRows {
        train: Vec::new(),
        held: Vec::new(),
        skipped: 0,
        forcing: 0,
    };
    for s in samples {
        let state = match quiet_state(s) {
            Ok(state) => state,
            Err(LeftOut::Skipped) => {
                split.skipped += 1;
                continue;
            }
            Err(LeftOut::Forcing) => {
                split.forcing += 1;
                continue;
            }
        };
        let squashed = sigmoid(f64::from(s.score) / settings.scale);
        let target = settings.lambda * s.result.score() + (1.0 - settings.lambda) * squashed;
        let Some(r) = row(s, &state, target as f32) else {
            split.skipped += 1;
            continue;
        };
        if s.position_key() % 10 == 0 {
            split.held.push(r);
        } else {
            split.train.push(r);
        }
    }
    split
}

impl SplitRows<Row> {
    /// The rows of `samples` under `settings` (the blend of the target).
    pub fn new<'a>(
        samples: impl IntoIterator<Item = &'a Sample>,
        settings: &TrainSettings,
    ) -> Self {
        split_rows(samples, settings, |s, state, target| {
            let mut x = features(state, s.rules.rule);
            let fixed = if settings.fit_counts {
                x.extend(count_features(state, s.rules.rule));
                x.push((both_sides_feature(state, s.rules.rule) as u32, 1.0));
                0.0
            } else {
                state.evaluate_counts() as f32
            };
            Some(Row { x, fixed, target })
        })
    }
}

/// The model's features of a position: for each empty point, the
/// combination of its four line patterns for each side, in its colour's
/// rows (a renju foul point of black's counts nothing for black, as in the
/// engine).
fn features(state: &State, rule: Rule) -> Vec<(u32, f32)> {
    let me = state.to_move();
    let mut counts = vec![0f32; POINT_FEATURES];
    let size = state.rules().size;
    for y in 0..size.height {
        for x in 0..size.width {
            let i = state.index(caro_core::Pos::new(x, y));
            if state.board().cell(i) != Cell::Empty {
                continue;
            }
            for (role, color) in [(0, me), (1, me.opponent())] {
                let p = state.patterns(i).dir[color.index()];
                if rule == Rule::Renju && color == Color::Black && may_be_foul(p) {
                    continue;
                }
                let c = combination(p);
                if c != 0 {
                    let row = color.index() * 2 + role;
                    counts[row * COMBINATIONS + c] += if role == 0 { 1.0 } else { -1.0 };
                }
            }
        }
    }
    counts
        .iter()
        .enumerate()
        .filter(|(_, &k)| k != 0.0)
        .map(|(f, &k)| (f as u32, k))
        .collect()
}

/// The weight index of a count value: `color` whose points they are;
/// `role` 0 the side to move, 1 the other side; `threat` the place in the
/// counted threats; `n` the number of points (capped).
fn count_feature(color: Color, role: usize, threat: usize, n: usize) -> usize {
    let row = color.index() * 2 + role;
    POINT_FEATURES + (row * COUNTED_THREATS.len() + threat) * (MAX_COUNT + 1) + n
}

/// The count features of a position: for each side and counted threat,
/// its number of points (capped), as the engine's count correction reads
/// them (both sides' values are from the side to move's view, so each
/// feature counts +1). A count of none has no feature: its value is fixed at zero.
/// Renju black's double threes are fouls and count nothing.
fn count_features(state: &State, rule: Rule) -> Vec<(u32, f32)> {
    let me = state.to_move();
    let mut x = Vec::new();
    for (role, color) in [(0, me), (1, me.opponent())] {
        for (t, &threat) in COUNTED_THREATS.iter().enumerate() {
            if rule == Rule::Renju && color == Color::Black && threat == Threat::DoubleThree {
                continue;
            }
            let n = (state.threat_count(color, threat) as usize).min(MAX_COUNT);
            if n > 0 {
                // Both roles' values are from the side to move's view.
                x.push((count_feature(color, role, t, n) as u32, 1.0));
            }
        }
    }
    x
}

/// The weight index of the position's both-sides value.
fn both_sides_feature(state: &State, rule: Rule) -> usize {
    let me = state.to_move();
    let bits = |color: Color| {
        threat_bits(
            state.threat_counts_of(color),
            double_threes_count(rule, color),
        )
    };
    POINT_FEATURES
        + COUNT_FEATURES
        + me.index() * BOTH_SIDES_KEYS
        + both_sides_key(bits(me), bits(me.opponent()))
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

fn predict(w: &[f64], row: &Row) -> f64 {
    f64::from(row.fixed)
        + row
            .x
            .iter()
            .map(|&(f, k)| w[f as usize] * f64::from(k))
            .sum::<f64>()
}

fn loss(w: &[f64], rows: &[Row], scale: f64) -> f64 {
    if rows.is_empty() {
        return f64::NAN;
    }
    let total: f64 = rows
        .iter()
        .map(|r| {
            let e = sigmoid(predict(w, r) / scale) - f64::from(r.target);
            e * e
        })
        .sum();
    total / rows.len() as f64
}

/// One epoch's losses.
#[derive(Clone, Copy, Debug)]
pub struct Epoch {
    /// The pass, from 1 (0: the start).
    pub epoch: u32,
    /// Mean loss on the training positions.
    pub train: f64,
    /// Mean loss on the held-out positions.
    pub held: f64,
}

/// What a fit found.
#[derive(Clone, Debug)]
pub struct Fitted {
    /// The values of the best epoch, rounded (the count values as they
    /// started unless they were fitted).
    pub tables: Tables,
    /// The losses before the fit (epoch 0).
    pub start: Epoch,
    /// The best epoch by held-out loss.
    pub best: Epoch,
    /// Epochs run.
    pub epochs_run: u32,
}

/// The weights of `tables` as the model reads them: point values, then
/// count values.
fn weights_of(tables: &Tables) -> Vec<f64> {
    let mut w: Vec<f64> = tables
        .points
        .iter()
        .flatten()
        .map(|&v| f64::from(v))
        .collect();
    w.extend(
        tables
            .counts
            .iter()
            .flatten()
            .flatten()
            .flatten()
            .map(|&v| f64::from(v)),
    );
    w.extend(tables.both_sides.iter().flatten().map(|&v| f64::from(v)));
    debug_assert_eq!(
        w.len(),
        POINT_FEATURES + COUNT_FEATURES + BOTH_SIDES_FEATURES
    );
    w
}

/// The tables of the model's weights, rounded.
fn tables_of(w: &[f64]) -> Tables {
    let mut tables = Tables {
        points: [[0; COMBINATIONS]; 4],
        counts: [[[[0; MAX_COUNT + 1]; COUNTED_THREATS.len()]; 2]; 2],
        both_sides: [[0; BOTH_SIDES_KEYS]; 2],
    };
    let entries = tables
        .points
        .iter_mut()
        .flatten()
        .chain(tables.counts.iter_mut().flatten().flatten().flatten())
        .chain(tables.both_sides.iter_mut().flatten());
    for (entry, value) in entries.zip(w) {
        *entry = value.round() as i16;
    }
    tables
}

/// Fits the point values (and with [`TrainSettings::fit_counts`] the
/// count and both-sides values) to `set` from `start`, calling `report` after each
/// epoch.
#[must_use]
pub fn fit(
    set: &TrainingSet,
    start: &Tables,
    settings: &TrainSettings,
    mut report: impl FnMut(Epoch),
) -> Fitted {
    let mut w = weights_of(start);
    let n = w.len();
    let mut seen = vec![0.0; n];
    for r in &set.train {
        for &(f, k) in &r.x {
            seen[f as usize] += f64::from(k.abs());
        }
    }
    let scale = settings.scale;
    let first = Epoch {
        epoch: 0,
        train: loss(&w, &set.train, scale),
        held: loss(&w, &set.held, scale),
    };
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
        for r in &set.train {
            let p = sigmoid(predict(&w, r) / scale);
            let slope = 2.0 * (p - f64::from(r.target)) * p * (1.0 - p) / scale / count;
            for &(f, k) in &r.x {
                g[f as usize] += slope * f64::from(k);
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
            w[f] -= settings.learning_rate * mh / (vh.sqrt() + 1e-12);
            w[f] = w[f].clamp(-f64::from(i16::MAX), f64::from(i16::MAX));
        }
        let now = Epoch {
            epoch,
            train: loss(&w, &set.train, scale),
            held: loss(&w, &set.held, scale),
        };
        report(now);
        if now.held < best.held || best.held.is_nan() {
            best = now;
            best_w.clone_from(&w);
        } else if epoch - best.epoch >= settings.patience {
            break;
        }
    }
    Fitted {
        tables: tables_of(&best_w),
        start: first,
        best,
        epochs_run,
    }
}

/// The tables as the Rust source of a file of `src/point_values/` (see
/// [`table_file`]): the point values `FITTED`, the count values `COUNTS`
/// and the both-sides values `BOTH_SIDES`, each per colour, with `header`
/// as its first comment lines (the command and data that made it).
#[must_use]
pub fn render_tables(tables: &Tables, header: &str) -> String {
    let mut text = String::new();
    for line in header.lines() {
        let _ = writeln!(text, "// {line}");
    }
    text.push_str(
        "\nuse super::{BOTH_SIDES_KEYS, COMBINATIONS, COUNTED_THREATS, MAX_COUNT};\n\n\
         /// Fitted point values: black as the side to move, black as the other\n\
         /// side, white as the side to move, white as the other side, each by\n\
         /// combination of four line patterns (see [`super::combination`]).\n\
         #[rustfmt::skip]\n\
         pub(crate) const FITTED: [[i16; COMBINATIONS]; 4] = [\n",
    );
    for row in &tables.points {
        text.push_str("    [\n");
        for line in row.chunks(16) {
            let _ = writeln!(text, "        {},", joined(line));
        }
        text.push_str("    ],\n");
    }
    text.push_str(
        "];\n\n\
         /// Fitted count values: black's, then white's, each `[as the side to\n\
         /// move, as the other side]` by threat kind (as [`COUNTED_THREATS`])\n\
         /// and by how many points make it (the last for that many or more).\n\
         #[rustfmt::skip]\n\
         pub(crate) const COUNTS: [[[[i16; MAX_COUNT + 1]; COUNTED_THREATS.len()]; 2]; 2] = [\n",
    );
    for color in &tables.counts {
        text.push_str("    [\n");
        for role in color {
            text.push_str("        [\n");
            for row in role {
                let _ = writeln!(text, "            [{}],", joined(row));
            }
            text.push_str("        ],\n");
        }
        text.push_str("    ],\n");
    }
    text.push_str(
        "];\n\n\
         /// Fitted both-sides values: with black to move, then with white to\n\
         /// move, each by which threats the side to move has (high six bits)\n\
         /// and the other side has (low six bits), see [`super::threat_bits`].\n\
         #[rustfmt::skip]\n\
         pub(crate) const BOTH_SIDES: [[i16; BOTH_SIDES_KEYS]; 2] = [\n",
    );
    for color in &tables.both_sides {
        text.push_str("    [\n");
        for line in color.chunks(16) {
            let _ = writeln!(text, "        {},", joined(line));
        }
        text.push_str("    ],\n");
    }
    text.push_str("];\n");
    text
}

/// Values as Rust source: `1, -2, 3`.
pub(crate) fn joined<T: ToString>(values: &[T]) -> String {
    let values: Vec<String> = values.iter().map(ToString::to_string).collect();
    values.join(", ")
}

/// The numbers of the table `name` in a file written by
/// [`render_tables`]: those between its `= [` and the `];` that closes it
/// (`None` where the file has no such table).
pub(crate) fn table_numbers<T: std::str::FromStr>(
    text: &str,
    name: &str,
) -> Option<Result<Vec<T>, String>>
where
    T::Err: std::fmt::Display,
{
    let at = text.find(&format!("const {name}:"))?;
    let rest = &text[at..];
    let open = rest.find("= [")? + 3;
    let close = rest[open..].find("];").map_or(rest.len(), |c| open + c);
    Some(
        rest[open..close]
            .split(|c: char| !(c.is_ascii_digit() || c == '-'))
            .filter(|s| !s.is_empty())
            .map(str::parse::<T>)
            .collect::<Result<Vec<T>, _>>()
            .map_err(|e| format!("a value of {name} that is not a number: {e}")),
    )
}

/// What a file written by [`render_tables`] holds: the point values, and
/// the other tables where it has them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedTables {
    /// The point values.
    pub points: PointTable,
    /// The count values.
    pub counts: Option<CountTable>,
    /// The both-sides values.
    pub both_sides: Option<BothSidesTable>,
}

impl ParsedTables {
    /// The tables, each the file's where it has it, else `engine`'s.
    #[must_use]
    pub fn or(&self, engine: &Tables) -> Tables {
        Tables {
            points: self.points,
            counts: self.counts.unwrap_or(engine.counts),
            both_sides: self.both_sides.unwrap_or(engine.both_sides),
        }
    }
}

/// `numbers` as `N` values per colour: the colours' values one after the
/// other, or (as files from before the tables were per colour hold them)
/// one set that both colours share; `what` names them in the error.
fn per_colour<const N: usize>(numbers: &[i16], what: &str) -> Result<[[i16; N]; 2], String> {
    let mut out = [[0i16; N]; 2];
    if numbers.len() == N {
        out[0].copy_from_slice(numbers);
        out[1].copy_from_slice(numbers);
    } else if numbers.len() == 2 * N {
        out[0].copy_from_slice(&numbers[..N]);
        out[1].copy_from_slice(&numbers[N..]);
    } else {
        return Err(format!(
            "{} {what}, not {} (or {N} for both colours)",
            numbers.len(),
            2 * N
        ));
    }
    Ok(out)
}

/// The tables of a file written by [`render_tables`], or what is wrong
/// with it. A file whose tables are one set for both colours gives each
/// colour a copy.
///
/// # Errors
/// A message for a file without the point values, or with a table of the
/// wrong size.
pub fn parse_tables(text: &str) -> Result<ParsedTables, String> {
    let numbers: Vec<i16> =
        table_numbers(text, "FITTED").ok_or("no `FITTED` table in the file")??;
    let by_colour = per_colour::<{ 2 * COMBINATIONS }>(&numbers, "point values")?;
    let mut points = [[0i16; COMBINATIONS]; 4];
    for (row, values) in points
        .iter_mut()
        .zip(by_colour.iter().flat_map(|c| c.chunks(COMBINATIONS)))
    {
        row.copy_from_slice(values);
    }
    const PER_COLOUR: usize = 2 * COUNTED_THREATS.len() * (MAX_COUNT + 1);
    let counts = match table_numbers(text, "COUNTS") {
        None => None,
        Some(numbers) => {
            let by_colour = per_colour::<PER_COLOUR>(&numbers?, "count values")?;
            let mut counts = [[[[0i16; MAX_COUNT + 1]; COUNTED_THREATS.len()]; 2]; 2];
            for (value, &number) in counts
                .iter_mut()
                .flatten()
                .flatten()
                .flatten()
                .zip(by_colour.iter().flatten())
            {
                *value = number;
            }
            Some(counts)
        }
    };
    let both_sides = match table_numbers(text, "BOTH_SIDES") {
        None => None,
        Some(numbers) => Some(per_colour::<BOTH_SIDES_KEYS>(
            &numbers?,
            "both-sides values",
        )?),
    };
    Ok(ParsedTables {
        points,
        counts,
        both_sides,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::GameResult;
    use caro_core::{BoardSize, Game, Pos, Rules};

    #[test]
    fn the_engine_tables_read_back_from_their_source_files() {
        let sources = [
            (Rule::Freestyle, include_str!("point_values/freestyle.rs")),
            (Rule::Renju, include_str!("point_values/renju.rs")),
            (Rule::Caro, include_str!("point_values/caro.rs")),
        ];
        // Every rule's file holds its three tables.
        let tables_of_source = |source: &str| {
            let parsed = parse_tables(source).unwrap();
            Tables {
                points: parsed.points,
                counts: parsed.counts.unwrap(),
                both_sides: parsed.both_sides.unwrap(),
            }
        };
        for rule in Rule::ALL {
            let file = table_file(rule);
            let (_, source) = sources
                .iter()
                .find(|(r, _)| table_file(*r) == file)
                .unwrap();
            assert_eq!(tables_of_source(source), current_tables(rule), "{rule}");
        }
        let mut tables = current_tables(Rule::Freestyle);
        tables.counts[1][1][2][3] = -7;
        tables.both_sides[1][4095] = 12;
        let rendered = render_tables(&tables, "a header\nof two lines");
        assert!(rendered.starts_with("// a header\n// of two lines\n"));
        assert_eq!(
            parse_tables(&rendered)
                .unwrap()
                .or(&current_tables(Rule::Renju)),
            tables
        );
        let short_both = rendered.replace("    0, 0,", "    0,");
        assert!(parse_tables(&short_both).is_err());
        assert!(parse_tables("pub(crate) const FITTED: X = [1, 2];").is_err());
        let short_counts = rendered.replace("[0, ", "[");
        assert!(parse_tables(&short_counts).is_err());
    }

    #[test]
    fn a_file_of_one_set_for_both_colours_gives_each_colour_a_copy() {
        let list = |n: usize, first: i16| {
            let values: Vec<String> = (0..n).map(|i| (first + i as i16 % 7).to_string()).collect();
            values.join(", ")
        };
        let shared = format!(
            "const FITTED: X = [{}];\nconst COUNTS: X = [{}];\nconst BOTH_SIDES: X = [{}];\n",
            list(2 * COMBINATIONS, 1),
            list(COUNT_FEATURES / 2, -3),
            list(BOTH_SIDES_KEYS, 5)
        );
        let ParsedTables {
            points,
            counts,
            both_sides,
        } = parse_tables(&shared).unwrap();
        assert_eq!(points[0], points[2]);
        assert_eq!(points[1], points[3]);
        assert_eq!(points[1][0], 1 + (COMBINATIONS % 7) as i16);
        let counts = counts.unwrap();
        assert_eq!(counts[0], counts[1]);
        assert_eq!(counts[0][0][0][0], -3);
        let both_sides = both_sides.unwrap();
        assert_eq!(both_sides[0], both_sides[1]);
        // Any other number of values is refused, with the numbers.
        let odd = format!("const FITTED: X = [{}];", list(3 * COMBINATIONS, 1));
        let err = parse_tables(&odd).unwrap_err();
        assert!(err.contains("1485 point values, not 1980"), "{err}");
    }

    #[test]
    fn the_model_with_the_engine_table_is_the_engine_evaluation() {
        for rule in Rule::ALL {
            let rules = Rules::new(BoardSize::square(15), 5, rule).unwrap();
            let moves = caro_core::notation::parse_move_list(
                "h8 i9 h9 h10 g9 i10 j10 i8 i7 g10 f10 j7",
                rules.size,
            )
            .unwrap();
            let game = Game::from_moves(rules, Color::Black, &moves).unwrap();
            let state = State::new(&game);
            // The tables' part of the evaluation (a rule's network, if it
            // has one, is added on top).
            let tables_part = state.evaluate() - state.evaluate_network();
            assert_eq!(
                state.evaluate_network() != 0,
                crate::network::network(rule).is_some(),
                "{rule}"
            );
            let w = weights_of(&current_tables(rule));
            let row = Row {
                x: features(&state, rule),
                fixed: state.evaluate_counts() as f32,
                target: 0.5,
            };
            assert_eq!(predict(&w, &row).round() as i32, tables_part, "{rule}");
            // With the counts as features of their own, the same.
            let mut x = features(&state, rule);
            x.extend(count_features(&state, rule));
            x.push((both_sides_feature(&state, rule) as u32, 1.0));
            let row = Row {
                x,
                fixed: 0.0,
                target: 0.5,
            };
            assert_eq!(predict(&w, &row).round() as i32, tables_part, "{rule}");
        }
    }

    #[test]
    fn a_fit_lowers_the_loss_it_is_judged_by() {
        // Positions labelled as won by the side to move whenever it has
        // more open twos: a fit must move towards them.
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let mut samples = Vec::new();
        let mut game = Game::new(rules, Color::Black).unwrap();
        let path = [
            (7, 7),
            (8, 8),
            (7, 9),
            (9, 9),
            (5, 7),
            (10, 6),
            (6, 10),
            (3, 3),
        ];
        for (n, &(x, y)) in path.iter().enumerate() {
            game.try_play(Pos::new(x, y)).unwrap();
            for result in [GameResult::Win, GameResult::Loss, GameResult::Win] {
                let mut s = Sample::of_game(&game, 40 * n as i16, Pos::new(0, 0), result);
                s.ply = n as u16;
                samples.push(s);
            }
        }
        let settings = TrainSettings {
            min_seen: 0.0,
            epochs: 50,
            patience: 50,
            ..TrainSettings::default()
        };
        let set = TrainingSet::new(&samples, &settings);
        let mut held_out_everything = TrainingSet::new(&samples, &settings);
        held_out_everything.held = TrainingSet::new(&samples, &settings).train;
        let start = current_tables(Rule::Freestyle);
        let fitted = fit(&held_out_everything, &start, &settings, |_| {});
        assert!(fitted.best.held < fitted.start.held, "{fitted:?}");
        assert!(set.train_len() + set.held_len() == samples.len());
        // Without --counts the count values stay as they were.
        assert_eq!(fitted.tables.counts, start.counts);
        assert_ne!(fitted.tables.points, start.points);
        // The same data, the same values.
        let again = fit(&held_out_everything, &start, &settings, |_| {});
        assert_eq!(again.tables, fitted.tables);
        // With them, they move too, and so do the both-sides values.
        let with_counts = TrainSettings {
            fit_counts: true,
            ..settings
        };
        let mut set = TrainingSet::new(&samples, &with_counts);
        set.held = TrainingSet::new(&samples, &with_counts).train;
        let fitted = fit(&set, &start, &with_counts, |_| {});
        assert!(fitted.best.held < fitted.start.held, "{fitted:?}");
        assert_ne!(fitted.tables.counts, start.counts);
        assert_ne!(fitted.tables.both_sides, start.both_sides);
    }
}
