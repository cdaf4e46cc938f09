//! Fitting a network over line patterns ([`crate::network`]) to training
//! positions: what `caro train --network` runs.
//!
//! The model is the engine's evaluation with the network added: the point
//! sum and the count correction of the rule's tables stay fixed, and the
//! network learns what they leave out, with the target and loss of the
//! tables' fit (`target = λ · result + (1 − λ) · σ(score / scale)`, loss
//! `(σ(eval / scale) − target)²`). Positions are chosen as for the tables
//! (no four on the board, no proven score; one in ten held out by its
//! key). The network starts at zero output (its output weights zero, its
//! other weights small numbers drawn from `seed`) and moves by Adam over
//! shuffled batches of [`BATCH`] positions; each epoch's held-out loss is
//! the loss of the network as the engine reads it (vectors rounded to
//! their stored units), and the fit stops when it has not improved for
//! `patience` epochs, keeping the best epoch's network.

use caro_core::{Cell, Color, Rule};

use super::{sigmoid, split_rows, SplitRows, TrainSettings};
use crate::dataset::Sample;
use crate::network::{Accumulator, Network, EMBED, EMBED_UNITS, HIDDEN, OUTPUT_UNITS};
use crate::point_values::{combination, may_be_foul, COMBINATIONS};
use crate::state::State;

/// Positions in one step of the fit.
pub const BATCH: usize = 256;

/// One position as the network's fit sees it.
pub struct NetRow {
    /// The colour to move.
    me: Color,
    /// The engine's evaluation without a network (point sum and count
    /// correction).
    fixed: f32,
    target: f32,
    /// (colour × [`COMBINATIONS`] + combination, number of points): each
    /// colour's points by combination, none for combination 0 or renju
    /// black's possible fouls.
    x: Vec<(u16, f32)>,
}

/// The training and held-out positions of a network's fit.
pub type NetworkSet = SplitRows<NetRow>;

impl SplitRows<NetRow> {
    /// The rows of `samples` under `settings` (the blend of the target).
    pub fn new<'a>(
        samples: impl IntoIterator<Item = &'a Sample>,
        settings: &TrainSettings,
    ) -> Self {
        split_rows(samples, settings, |s, state, target| {
            Some(NetRow {
                me: state.to_move(),
                fixed: (state.evaluate_points() + state.evaluate_counts()) as f32,
                target,
                x: network_features(state, s.rules.rule),
            })
        })
    }
}

/// Each colour's empty points by combination, as the state's accumulators
/// add them.
fn network_features(state: &State, rule: Rule) -> Vec<(u16, f32)> {
    let mut counts = vec![0f32; 2 * COMBINATIONS];
    for i in 0..state.board().cell_count() {
        if state.board().cell(i) != Cell::Empty {
            continue;
        }
        for color in [Color::Black, Color::White] {
            let p = state.patterns(i).dir[color.index()];
            if rule == Rule::Renju && color == Color::Black && may_be_foul(p) {
                continue;
            }
            let c = combination(p);
            if c != 0 {
                counts[color.index() * COMBINATIONS + c] += 1.0;
            }
        }
    }
    counts
        .iter()
        .enumerate()
        .filter(|(_, &k)| k != 0.0)
        .map(|(f, &k)| (f as u16, k))
        .collect()
}

/// One epoch's losses of a network's fit.
#[derive(Clone, Copy, Debug)]
pub struct NetworkEpoch {
    /// The pass, from 1 (0: the start, a network of zero output).
    pub epoch: u32,
    /// Mean loss on the training positions over the epoch's batches.
    pub train: f64,
    /// Mean loss on the held-out positions, of the network as stored.
    pub held: f64,
}

/// What a network's fit found.
#[derive(Clone, Debug)]
pub struct FittedNetwork {
    /// The best epoch's network, as stored.
    pub network: Network,
    /// The losses before the fit (the tables alone).
    pub start: NetworkEpoch,
    /// The best epoch by held-out loss.
    pub best: NetworkEpoch,
    /// Epochs run.
    pub epochs_run: u32,
}

/// The network's weights as numbers for the fit: vectors (per colour and
/// combination, in units of the hidden layer's inputs), then the layers
/// in file order.
struct Params {
    w: Vec<f32>,
}

const VECTORS: usize = 2 * COMBINATIONS * EMBED;
const HIDDEN_W: usize = VECTORS;
const HIDDEN_B: usize = HIDDEN_W + 2 * HIDDEN * 2 * EMBED;
const OUTPUT_W: usize = HIDDEN_B + 2 * HIDDEN;
const OUTPUT_B: usize = OUTPUT_W + 2 * HIDDEN;
const PARAMS: usize = OUTPUT_B + 2;

/// A small deterministic generator (xorshift64*) for the start and the
/// batches' order.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `-half..half`.
    fn symmetric(&mut self, half: f32) -> f32 {
        ((self.next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * half
    }
}

impl Params {
    fn start(seed: u64) -> Params {
        let mut draw = Draw(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut w = vec![0f32; PARAMS];
        for (n, v) in w[..VECTORS].iter_mut().enumerate() {
            // Combination 0 adds nothing.
            if (n / EMBED) % COMBINATIONS != 0 {
                *v = draw.symmetric(0.05);
            }
        }
        let fan_in = (2 * EMBED) as f32;
        for v in &mut w[HIDDEN_W..HIDDEN_B] {
            *v = draw.symmetric(1.0 / fan_in.sqrt());
        }
        for v in &mut w[HIDDEN_B..OUTPUT_W] {
            *v = 0.1;
        }
        Params { w }
    }

    /// The parameters of a stored network, to go on fitting from.
    fn of(net: &Network) -> Params {
        let mut w: Vec<f32> = net
            .vectors
            .iter()
            .flatten()
            .flatten()
            .map(|&v| f32::from(v) / EMBED_UNITS)
            .collect();
        w.extend(net.layer_weights());
        Params { w }
    }

    /// The network as stored (vectors rounded to their units).
    fn network(&self) -> Network {
        let mut net = Network::zero();
        for (slot, &v) in net
            .vectors
            .iter_mut()
            .flatten()
            .flatten()
            .zip(&self.w[..VECTORS])
        {
            *slot = (v * EMBED_UNITS)
                .round()
                .clamp(f32::from(i16::MIN), f32::from(i16::MAX)) as i16;
        }
        net.set_layer_weights(&self.w[HIDDEN_W..]);
        net
    }
}

/// The stored network's accumulators of a row.
fn accumulators(net: &Network, row: &NetRow) -> [Accumulator; 2] {
    let mut acc = [[0i32; EMBED]; 2];
    for &(f, k) in &row.x {
        let (color, c) = (usize::from(f) / COMBINATIONS, usize::from(f) % COMBINATIONS);
        for (a, &v) in acc[color].iter_mut().zip(&net.vectors[color][c]) {
            *a += k as i32 * i32::from(v);
        }
    }
    acc
}

/// The mean loss of the stored network on `rows`.
fn stored_loss(net: &Network, rows: &[NetRow], scale: f64) -> f64 {
    if rows.is_empty() {
        return f64::NAN;
    }
    let total: f64 = rows
        .iter()
        .map(|r| {
            let eval = f64::from(r.fixed) + f64::from(net.output(r.me, &accumulators(net, r)));
            let e = sigmoid(eval / scale) - f64::from(r.target);
            e * e
        })
        .sum();
    total / rows.len() as f64
}

/// Adds the gradient of one row's loss to `g`; the row's loss.
fn add_gradient(p: &[f32], row: &NetRow, scale: f32, g: &mut [f32]) -> f32 {
    let m = row.me.index();
    let mut acc = [[0f32; EMBED]; 2];
    for &(f, k) in &row.x {
        let (color, base) = (usize::from(f) / COMBINATIONS, usize::from(f) * EMBED);
        for (a, v) in acc[color].iter_mut().zip(&p[base..base + EMBED]) {
            *a += k * v;
        }
    }
    let mut input = [0f32; 2 * EMBED];
    input[..EMBED].copy_from_slice(&acc[m]);
    input[EMBED..].copy_from_slice(&acc[1 - m]);
    let hw = HIDDEN_W + m * HIDDEN * 2 * EMBED;
    let mut z = [0f32; HIDDEN];
    let mut out = p[OUTPUT_B + m];
    for (unit, zu) in z.iter_mut().enumerate() {
        let row_w = &p[hw + unit * 2 * EMBED..hw + (unit + 1) * 2 * EMBED];
        *zu = p[HIDDEN_B + m * HIDDEN + unit]
            + row_w.iter().zip(&input).map(|(w, x)| w * x).sum::<f32>();
        out += p[OUTPUT_W + m * HIDDEN + unit] * zu.max(0.0);
    }
    let eval = row.fixed + OUTPUT_UNITS * out;
    let pr = 1.0 / (1.0 + (-eval / scale).exp());
    let err = pr - row.target;
    let g_out = 2.0 * err * pr * (1.0 - pr) / scale * OUTPUT_UNITS;
    g[OUTPUT_B + m] += g_out;
    let mut g_input = [0f32; 2 * EMBED];
    for (unit, &zu) in z.iter().enumerate() {
        g[OUTPUT_W + m * HIDDEN + unit] += g_out * zu.max(0.0);
        if zu <= 0.0 {
            continue;
        }
        let g_z = g_out * p[OUTPUT_W + m * HIDDEN + unit];
        g[HIDDEN_B + m * HIDDEN + unit] += g_z;
        let at = hw + unit * 2 * EMBED;
        for i in 0..2 * EMBED {
            g[at + i] += g_z * input[i];
            g_input[i] += g_z * p[at + i];
        }
    }
    for &(f, k) in &row.x {
        let color = usize::from(f) / COMBINATIONS;
        let part = if color == m { 0 } else { EMBED };
        let base = usize::from(f) * EMBED;
        for i in 0..EMBED {
            g[base + i] += k * g_input[part + i];
        }
    }
    err * err
}

/// Fits a network to `set` (`settings.learning_rate` is Adam's step),
/// from `start` or, without one, from small random weights drawn from
/// `seed` (which also orders the batches), calling `report` after each
/// epoch. The fit's epoch 0 is the start: the tables alone, or `start`'s
/// network, which the fit keeps unless an epoch does better on the
/// held-out rows.
#[must_use]
pub fn fit_network(
    set: &NetworkSet,
    settings: &TrainSettings,
    seed: u64,
    start: Option<&Network>,
    mut report: impl FnMut(NetworkEpoch),
) -> FittedNetwork {
    let mut params = start.map_or_else(|| Params::start(seed), Params::of);
    let scale = settings.scale;
    let start = start.cloned().unwrap_or_else(Network::zero);
    let first = NetworkEpoch {
        epoch: 0,
        train: stored_loss(&start, &set.train, scale),
        held: stored_loss(&start, &set.held, scale),
    };
    report(first);
    let mut best = first;
    let mut best_net = start;
    let (mut m, mut v) = (vec![0f32; PARAMS], vec![0f32; PARAMS]);
    let (b1, b2) = (0.9f32, 0.999f32);
    let lr = settings.learning_rate as f32;
    let mut order: Vec<usize> = (0..set.train.len()).collect();
    let mut draw = Draw(seed ^ 0xD1B5_4A32_D192_ED03 | 1);
    let mut g = vec![0f32; PARAMS];
    let mut step = 0i32;
    let mut epochs_run = 0;
    for epoch in 1..=settings.epochs {
        epochs_run = epoch;
        for i in (1..order.len()).rev() {
            let j = (draw.next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        let mut total = 0f64;
        for batch in order.chunks(BATCH) {
            g.iter_mut().for_each(|x| *x = 0.0);
            for &r in batch {
                total += f64::from(add_gradient(&params.w, &set.train[r], scale as f32, &mut g));
            }
            step = step.saturating_add(1);
            let (c1, c2) = (1.0 - b1.powi(step), 1.0 - b2.powi(step));
            let n = batch.len() as f32;
            for (k, gk) in g.iter().enumerate() {
                if *gk == 0.0 && m[k] == 0.0 {
                    continue;
                }
                let gk = gk / n;
                m[k] = b1 * m[k] + (1.0 - b1) * gk;
                v[k] = b2 * v[k] + (1.0 - b2) * gk * gk;
                params.w[k] -= lr * (m[k] / c1) / ((v[k] / c2).sqrt() + 1e-8);
            }
            // Keep the vectors within what their stored units hold.
            for x in &mut params.w[..VECTORS] {
                *x = x.clamp(-30.0, 30.0);
            }
        }
        let net = params.network();
        let now = NetworkEpoch {
            epoch,
            train: total / set.train.len().max(1) as f64,
            held: stored_loss(&net, &set.held, scale),
        };
        report(now);
        if now.held < best.held || best.held.is_nan() {
            best = now;
            best_net = net;
        } else if epoch - best.epoch >= settings.patience {
            break;
        }
    }
    FittedNetwork {
        network: best_net,
        start: first,
        best,
        epochs_run,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::Network;
    use crate::selfplay::{self, SelfplaySettings};

    /// Training positions from a few fast games of renju, each game's
    /// result written into its positions.
    fn renju_samples() -> Vec<Sample> {
        use rand::SeedableRng;
        let rules = caro_core::Rules::new(caro_core::BoardSize::square(15), 5, Rule::Renju)
            .expect("renju rules");
        let start = caro_core::Game::new(rules, Color::Black).expect("a renju game");
        let settings = SelfplaySettings {
            nodes: 300,
            random_plies: 4,
        };
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mut player = crate::search::CaroPlayer::new(10, 5);
        let mut samples = Vec::new();
        for _ in 0..8 {
            let game = selfplay::play_game(&start, &mut player, settings, &mut rng)
                .expect("self-play runs");
            for mut s in game.samples {
                s.result = crate::dataset::GameResult::for_side(game.winner, s.to_move);
                samples.push(s);
            }
        }
        samples
    }

    #[test]
    fn a_network_fit_lowers_the_held_out_loss_and_the_engine_reads_it_as_fitted() {
        let samples = renju_samples();
        let settings = TrainSettings {
            epochs: 30,
            patience: 30,
            learning_rate: 0.003,
            ..TrainSettings::default()
        };
        let set = NetworkSet::new(&samples, &settings);
        assert!(set.train_len() > 50 && set.held_len() > 0);
        let fitted = fit_network(&set, &settings, 1, None, |_| {});
        assert!(fitted.best.held < fitted.start.held, "{fitted:?}");
        // The same fit from the same data and seed gives the same network.
        let again = fit_network(&set, &settings, 1, None, |_| {});
        assert_eq!(again.network, fitted.network);
        // A fit may go on from a stored network: its start is that
        // network, exactly, and it ends no worse on the held-out rows.
        assert_eq!(Params::of(&fitted.network).network(), fitted.network);
        let resumed = fit_network(&set, &settings, 2, Some(&fitted.network), |_| {});
        assert_eq!(resumed.start.held, fitted.best.held);
        assert!(resumed.best.held <= resumed.start.held, "{resumed:?}");
        // The state's evaluation is the tables' plus the network's output
        // from the same accumulators the fit adds up.
        let loaded: &'static _ = Box::leak(Box::new(fitted.network.clone().load(Rule::Renju)));
        for s in samples.iter().filter(|s| s.score.abs() < 1000).take(40) {
            let game = s.to_game().expect("a sample's game");
            let state = State::with_network(&game, Some(loaded));
            let bare = State::with_network(&game, None);
            let row_x = network_features(&bare, Rule::Renju);
            let row = NetRow {
                me: bare.to_move(),
                fixed: 0.0,
                target: 0.0,
                x: row_x,
            };
            assert_eq!(state.accumulators(), &accumulators(&fitted.network, &row));
            assert_eq!(
                state.evaluate(),
                bare.evaluate() + fitted.network.output(state.to_move(), state.accumulators())
            );
        }
        let _ = Network::zero();
    }
}
