//! What the fitting examples (`fit_eval`, `fit_counts`, `fit_shapes`)
//! share: the positions of saved games, their scores by search, and the
//! optimiser and loss of the fits.

// Each example uses a part of it.
#![allow(dead_code)]

use caro_core::psq::read_psq;
use caro_core::{Color, Game};

/// The moves of every `.psq` game under the directories (searched
/// recursively, in name order); files that are not games are left out.
pub fn psq_move_lists(dirs: &[String]) -> Vec<Vec<caro_core::Pos>> {
    fn walk(dir: &std::path::Path, out: &mut Vec<Vec<caro_core::Pos>>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().and_then(|e| e.to_str()) == Some("psq") {
                if let Some(record) = std::fs::read_to_string(&path)
                    .ok()
                    .and_then(|text| read_psq(&text).ok())
                {
                    out.push(record.moves);
                }
            }
        }
    }
    let mut out = Vec::new();
    for d in dirs {
        walk(std::path::Path::new(d), &mut out);
    }
    out
}

/// The quiet positions of the games, from the `skip + 1`th move on: no
/// five to make or stop, and no open four for the side to move to make.
/// Each comes with its game's number (from 1).
pub fn quiet_positions(
    games: &[Vec<caro_core::Pos>],
    rules: caro_core::Rules,
    skip: usize,
) -> Vec<(Game, usize)> {
    use caro_engine::pattern::Pattern;
    use caro_engine::state::{State, Threat};
    let mut positions = Vec::new();
    for (n, moves) in games.iter().enumerate() {
        let Ok(mut game) = Game::new(rules, Color::Black) else {
            return positions;
        };
        for &m in moves {
            if game.is_over() || game.try_play(m).is_err() {
                break;
            }
            if game.moves().len() >= skip && !game.is_over() {
                let state = State::new(&game);
                let me = state.to_move();
                let quiet = !state.has(me, Pattern::Five)
                    && !state.has(me.opponent(), Pattern::Five)
                    && state.threat_count(me, Threat::OpenFour) == 0
                    && !state.has(me, Pattern::Flex4);
                if quiet {
                    positions.push((game.clone(), n + 1));
                }
            }
        }
    }
    positions
}

/// Each position's score by `caro:10`'s alpha-beta to `depth` without its
/// root threat searches, on two threads (`None` for a forced win or
/// loss), with a progress line every `every` positions.
pub fn score_positions(positions: &[(Game, usize)], depth: u32, every: usize) -> Vec<Option<i32>> {
    use caro_engine::player::{Context, Limits, Player, Score, SearchInfo, StopFlag};
    use caro_engine::search::CaroPlayer;
    use std::sync::atomic::{AtomicUsize, Ordering};
    if positions.is_empty() {
        return Vec::new();
    }
    let done = AtomicUsize::new(0);
    let started = std::time::Instant::now();
    let total = positions.len();
    std::thread::scope(|scope| {
        let handles: Vec<_> = positions
            .chunks(total.div_ceil(2))
            .map(|chunk| {
                let done = &done;
                let len = chunk.len();
                let handle = scope.spawn(move || {
                    let mut player = CaroPlayer::new(10, 1);
                    player.set_root_threats(false);
                    chunk
                        .iter()
                        .map(|(game, _)| {
                            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                            if n % every == 0 {
                                let spent = started.elapsed().as_secs_f64();
                                let left = spent * (total - n) as f64 / n as f64;
                                eprintln!(
                                    "scored {n} of {total} in {spent:.0} s, about {left:.0} s left"
                                );
                            }
                            player.new_game();
                            let mut sink = |_: &SearchInfo| {};
                            let mut ctx =
                                Context::new(Limits::depth(depth), StopFlag::new(), &mut sink);
                            match player.choose(game, &mut ctx).ok()?.info?.score {
                                Score::Eval(s) => Some(s),
                                _ => None,
                            }
                        })
                        .collect::<Vec<_>>()
                });
                (len, handle)
            })
            .collect();
        // A search that panicked leaves its positions unscored, in place.
        handles
            .into_iter()
            .flat_map(|(len, h)| h.join().unwrap_or_else(|_| vec![None; len]))
            .collect()
    })
}

/// Adam, the optimiser of the fits: a running mean and a running mean
/// square of each weight's gradient (β₁ 0.9, β₂ 0.999), bias-corrected.
pub struct Adam {
    m: Vec<f64>,
    v: Vec<f64>,
    lr: f64,
}

impl Adam {
    const B1: f64 = 0.9;
    const B2: f64 = 0.999;

    /// An optimiser for `n` weights with step size `lr`.
    pub fn new(n: usize, lr: f64) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
            lr,
        }
    }

    /// Moves weight `w[f]` against its gradient `g` in pass `epoch`
    /// (counted from 1).
    pub fn step(&mut self, w: &mut [f64], f: usize, g: f64, epoch: i32) {
        let (b1, b2) = (Self::B1, Self::B2);
        self.m[f] = b1 * self.m[f] + (1.0 - b1) * g;
        self.v[f] = b2 * self.v[f] + (1.0 - b2) * g * g;
        let mh = self.m[f] / (1.0 - f64::powi(b1, epoch));
        let vh = self.v[f] / (1.0 - f64::powi(b2, epoch));
        w[f] -= self.lr * mh / (vh.sqrt() + 1e-12);
    }
}

/// The logistic squash of the fits: a score as an expected result.
pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The slope of one pair's squared difference after the logistic squash
/// with `scale`, by the prediction (the gradient the fits step against).
pub fn squashed_slope(prediction: f64, target: f64, scale: f64) -> f64 {
    let p = sigmoid(prediction / scale);
    let e = p - sigmoid(target / scale);
    2.0 * e * p * (1.0 - p) / scale
}

/// The mean squared difference of (prediction, target) score pairs after
/// the logistic squash with `scale` (NaN for no pairs).
pub fn squashed_loss(pairs: impl Iterator<Item = (f64, f64)>, scale: f64) -> f64 {
    let (mut l, mut k) = (0.0, 0);
    for (prediction, target) in pairs {
        let e = sigmoid(prediction / scale) - sigmoid(target / scale);
        l += e * e;
        k += 1;
    }
    l / k as f64
}

/// One line written by `fit_shapes score` (`GAME<TAB>MOVES<TAB>SCORE`):
/// the game's number, the position under `rules`, the score.
pub fn parse_scored(line: &str, rules: caro_core::Rules) -> Option<(usize, Game, f64)> {
    let f: Vec<&str> = line.split('\t').collect();
    let [no, moves, score] = f.as_slice() else {
        return None;
    };
    let mut game = Game::new(rules, Color::Black).ok()?;
    for p in caro_core::notation::parse_move_list(moves, rules.size).ok()? {
        game.try_play(p).ok()?;
    }
    Some((no.parse().ok()?, game, score.parse().ok()?))
}
