//! A small network over line patterns, added to the evaluation where a
//! rule has one ([`network`]).
//!
//! Each empty point holds, per colour, a combination of its four line
//! patterns (the 495 of [`crate::point_values`]); each colour's
//! combinations have a learned vector of [`EMBED`] numbers. The state
//! keeps, per colour, the sum of its points' vectors (the accumulator),
//! updated with the patterns as stones are placed and taken back, so an
//! evaluation reads two sums, not the board. From the side to move's sum
//! and the other side's, one hidden layer of [`HIDDEN`] rectified units
//! gives a correction in evaluation units, added to the point sum and the
//! count correction: the network learns what they leave out (`caro train
//! --network`, docs/training.md).
//!
//! Under renju black's points that may be fouls add nothing, as in the
//! point sum. A point whose four lines hold nothing adds nothing either:
//! the accumulator of an empty board is zero.
//!
//! # File format
//!
//! Little-endian, in this order:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | `CARONET1` |
//! | 4 × 3 | `u32` [`EMBED`], [`HIDDEN`], [`COMBINATIONS`] |
//! | 2 × 2 × 495 × EMBED | `i16` vectors, `[colour][combination][i]`, in 1/[`EMBED_UNITS`] |
//! | 4 × 2 × HIDDEN × 2·EMBED | `f32` hidden weights, `[colour to move][unit][input]`: the side to move's sum, then the other side's |
//! | 4 × 2 × HIDDEN | `f32` hidden biases, `[colour to move][unit]` |
//! | 4 × 2 × HIDDEN | `f32` output weights, `[colour to move][unit]` |
//! | 4 × 2 | `f32` output biases, `[colour to move]` |
//!
//! The output is `OUTPUT_UNITS · (w · h + b)` evaluation units, rounded.

use std::sync::OnceLock;

use caro_core::{Color, Rule};
use thiserror::Error;

use crate::point_values::{combination, may_be_foul, patterns_of, COMBINATIONS, KEYS};

/// Numbers in each combination's vector.
pub const EMBED: usize = 16;
/// Rectified units of the hidden layer.
pub const HIDDEN: usize = 16;
/// Stored vector entries per unit of the hidden layer's inputs.
pub const EMBED_UNITS: f32 = 1024.0;
/// Evaluation units of one unit of the network's output.
pub const OUTPUT_UNITS: f32 = 200.0;
/// The first bytes of a network file.
pub const MAGIC: &[u8; 8] = b"CARONET1";

/// One colour's accumulator: the sum of its points' vectors, in
/// 1/[`EMBED_UNITS`].
pub type Accumulator = [i32; EMBED];

/// A network that cannot be read from its bytes.
#[derive(Debug, Error, PartialEq)]
pub enum NetworkError {
    /// The file does not start with [`MAGIC`].
    #[error("not a caro network file (it does not start with CARONET1)")]
    Magic,
    /// The sizes in the file are not this build's.
    #[error(
        "the file's network has {embed} vector entries, {hidden} hidden units and \
         {combinations} combinations; this build reads {EMBED}, {HIDDEN} and {COMBINATIONS}"
    )]
    Sizes {
        /// Vector entries in the file.
        embed: u32,
        /// Hidden units in the file.
        hidden: u32,
        /// Combinations in the file.
        combinations: u32,
    },
    /// The file is not as long as its sizes say.
    #[error("the file holds {found} bytes; a network of these sizes holds {expected}")]
    Length {
        /// Bytes a network of the sizes holds.
        expected: usize,
        /// Bytes found.
        found: usize,
    },
    /// A weight is not a finite number.
    #[error("weight {0} of the layers is not a finite number")]
    NotFinite(usize),
}

/// The weights of a network (see the module's page).
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    /// `[colour][combination]`, combination 0 (no pattern) all zero.
    pub vectors: [Vec<[i16; EMBED]>; 2],
    /// `[colour to move][unit][input]`.
    pub hidden: [[[f32; 2 * EMBED]; HIDDEN]; 2],
    /// `[colour to move][unit]`.
    pub hidden_bias: [[f32; HIDDEN]; 2],
    /// `[colour to move][unit]`.
    pub output: [[f32; HIDDEN]; 2],
    /// `[colour to move]`.
    pub output_bias: [f32; 2],
}

/// A network ready for the state: its vectors by threat key.
pub struct LoadedNetwork {
    weights: Network,
    /// `[colour][threat key]`: the key's combination, 0 where the point
    /// adds nothing (renju black's possible fouls under `renju`).
    combination_of_key: [Vec<u16>; 2],
}

impl Network {
    /// A network whose output is zero everywhere.
    #[must_use]
    pub fn zero() -> Network {
        Network {
            vectors: [
                vec![[0; EMBED]; COMBINATIONS],
                vec![[0; EMBED]; COMBINATIONS],
            ],
            hidden: [[[0.0; 2 * EMBED]; HIDDEN]; 2],
            hidden_bias: [[0.0; HIDDEN]; 2],
            output: [[0.0; HIDDEN]; 2],
            output_bias: [0.0; 2],
        }
    }

    /// Bytes of a network file of this build's sizes.
    #[must_use]
    pub const fn file_len() -> usize {
        8 + 12
            + 2 * 2 * COMBINATIONS * EMBED
            + 4 * (2 * HIDDEN * 2 * EMBED + 2 * HIDDEN + 2 * HIDDEN + 2)
    }

    /// The network's file (see the module's page).
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::file_len());
        out.extend_from_slice(MAGIC);
        for n in [EMBED, HIDDEN, COMBINATIONS] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        for v in self.vectors.iter().flatten().flatten() {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for w in self.layer_weights() {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Reads a network file.
    ///
    /// # Errors
    /// A [`NetworkError`] naming what is wrong with the bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if bytes.len() < 20 || &bytes[..8] != MAGIC {
            return Err(NetworkError::Magic);
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let (embed, hidden, combinations) = (word(8), word(12), word(16));
        if (embed as usize, hidden as usize, combinations as usize) != (EMBED, HIDDEN, COMBINATIONS)
        {
            return Err(NetworkError::Sizes {
                embed,
                hidden,
                combinations,
            });
        }
        if bytes.len() != Self::file_len() {
            return Err(NetworkError::Length {
                expected: Self::file_len(),
                found: bytes.len(),
            });
        }
        let mut net = Network::zero();
        let mut at = 20;
        for v in net.vectors.iter_mut().flatten().flatten() {
            *v = i16::from_le_bytes([bytes[at], bytes[at + 1]]);
            at += 2;
        }
        let mut weights = Vec::with_capacity(net.layer_weights().len());
        for (n, chunk) in bytes[at..].chunks_exact(4).enumerate() {
            let w = f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            if !w.is_finite() {
                return Err(NetworkError::NotFinite(n));
            }
            weights.push(w);
        }
        net.set_layer_weights(&weights);
        Ok(net)
    }

    /// The layers' weights in file order.
    #[must_use]
    pub fn layer_weights(&self) -> Vec<f32> {
        let mut w: Vec<f32> = self.hidden.iter().flatten().flatten().copied().collect();
        w.extend(self.hidden_bias.iter().flatten());
        w.extend(self.output.iter().flatten());
        w.extend(self.output_bias);
        w
    }

    /// Sets the layers' weights from `w`, in file order (as many as
    /// [`Network::layer_weights`] gives).
    pub fn set_layer_weights(&mut self, w: &[f32]) {
        let slots = self
            .hidden
            .iter_mut()
            .flatten()
            .flatten()
            .chain(self.hidden_bias.iter_mut().flatten())
            .chain(self.output.iter_mut().flatten())
            .chain(self.output_bias.iter_mut());
        for (slot, &v) in slots.zip(w) {
            *slot = v;
        }
    }

    /// The output, in evaluation units, for the colour to move `me`
    /// given both colours' accumulators.
    #[must_use]
    pub fn output(&self, me: Color, acc: &[Accumulator; 2]) -> i32 {
        let m = me.index();
        let mut input = [0f32; 2 * EMBED];
        for i in 0..EMBED {
            input[i] = acc[m][i] as f32 / EMBED_UNITS;
            input[EMBED + i] = acc[1 - m][i] as f32 / EMBED_UNITS;
        }
        let mut out = self.output_bias[m];
        for unit in 0..HIDDEN {
            let row = &self.hidden[m][unit];
            let mut z = self.hidden_bias[m][unit];
            for (w, x) in row.iter().zip(&input) {
                z += w * x;
            }
            out += self.output[m][unit] * z.max(0.0);
        }
        (out * OUTPUT_UNITS).round() as i32
    }

    /// Ready for the state under `rule`.
    #[must_use]
    pub fn load(self, rule: Rule) -> LoadedNetwork {
        let combination_of_key = [Color::Black, Color::White].map(|color| {
            let fouls_count_nothing = rule == Rule::Renju && color == Color::Black;
            (0..KEYS)
                .map(|key| {
                    let p = patterns_of(key);
                    if fouls_count_nothing && may_be_foul(p) {
                        0
                    } else {
                        combination(p) as u16
                    }
                })
                .collect()
        });
        let mut weights = self;
        for v in &mut weights.vectors {
            v[0] = [0; EMBED];
        }
        LoadedNetwork {
            weights,
            combination_of_key,
        }
    }
}

impl LoadedNetwork {
    /// The weights.
    #[must_use]
    pub fn weights(&self) -> &Network {
        &self.weights
    }

    /// The combination a point of `color` with this threat key adds (0:
    /// nothing).
    #[inline]
    #[must_use]
    pub fn combination_of(&self, color: usize, key: u16) -> usize {
        usize::from(self.combination_of_key[color][usize::from(key)])
    }

    /// A point of `color` went from threat key `before` to `after`: its
    /// vector leaves the accumulator and the new one enters.
    #[inline(always)]
    pub fn update(&self, acc: &mut Accumulator, color: usize, before: u16, after: u16) {
        let (old, new) = (
            self.combination_of(color, before),
            self.combination_of(color, after),
        );
        if old == new {
            return;
        }
        let vectors = &self.weights.vectors[color];
        let (old, new) = (&vectors[old], &vectors[new]);
        for i in 0..EMBED {
            acc[i] += i32::from(new[i]) - i32::from(old[i]);
        }
    }

    /// The output for the side to move `me` (see [`Network::output`]).
    #[inline]
    #[must_use]
    pub fn output(&self, me: Color, acc: &[Accumulator; 2]) -> i32 {
        self.weights.output(me, acc)
    }
}

/// The networks the engine plays with: each rule family (the rule its
/// tables are filed under, as [`crate::train::table_rule`]) with the
/// bytes of its file in `src/network/`. A rule not listed plays its
/// tables alone.
const NETWORKS: &[(Rule, &[u8])] = &[
    (Rule::Freestyle, include_bytes!("network/freestyle.bin")),
    (Rule::Renju, include_bytes!("network/renju.bin")),
    (Rule::Caro, include_bytes!("network/caro.bin")),
];

/// The network the engine plays with under `rule`, if the rule has one.
#[must_use]
pub fn network(rule: Rule) -> Option<&'static LoadedNetwork> {
    static LOADED: OnceLock<Vec<(Rule, LoadedNetwork)>> = OnceLock::new();
    let family = crate::train::table_rule(rule);
    LOADED
        .get_or_init(|| {
            NETWORKS
                .iter()
                .filter_map(|&(r, bytes)| Network::from_bytes(bytes).ok().map(|n| (r, n.load(r))))
                .collect()
        })
        .iter()
        .find(|(r, _)| *r == family)
        .map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Network {
        let mut net = Network::zero();
        for (n, v) in net.vectors.iter_mut().flatten().flatten().enumerate() {
            *v = (n % 17) as i16 - 8;
        }
        let w: Vec<f32> = (0..net.layer_weights().len())
            .map(|n| (n % 13) as f32 / 13.0 - 0.5)
            .collect();
        net.set_layer_weights(&w);
        net
    }

    #[test]
    fn every_network_the_engine_plays_with_reads() {
        for &(rule, bytes) in NETWORKS {
            assert!(Network::from_bytes(bytes).is_ok(), "{rule}");
            assert!(network(rule).is_some(), "{rule}");
        }
    }

    #[test]
    fn a_network_reads_back_from_its_file() {
        let net = sample();
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), Network::file_len());
        assert_eq!(Network::from_bytes(&bytes), Ok(net));
    }

    #[test]
    fn a_wrong_file_is_refused_with_what_is_wrong() {
        let bytes = sample().to_bytes();
        assert_eq!(Network::from_bytes(b"CARONET0"), Err(NetworkError::Magic));
        let mut sizes = bytes.clone();
        sizes[8] = 8;
        assert!(matches!(
            Network::from_bytes(&sizes),
            Err(NetworkError::Sizes { embed: 8, .. })
        ));
        assert_eq!(
            Network::from_bytes(&bytes[..bytes.len() - 1]),
            Err(NetworkError::Length {
                expected: Network::file_len(),
                found: bytes.len() - 1
            })
        );
        let mut nan = bytes;
        let at = nan.len() - 4;
        nan[at..].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(matches!(
            Network::from_bytes(&nan),
            Err(NetworkError::NotFinite(_))
        ));
    }

    #[test]
    fn the_accumulators_follow_moves_and_take_backs() {
        use caro_core::{BoardSize, Game, Pos, Rules};
        use rand::{Rng, SeedableRng};
        let loaded: &'static LoadedNetwork = Box::leak(Box::new(sample().load(Rule::Renju)));
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).expect("renju rules");
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut game = Game::new(rules, Color::Black).expect("a game");
        let mut state = crate::state::State::with_network(&game, Some(loaded));
        for _ in 0..120 {
            if game.is_over() || (rng.random_bool(0.3) && game.moves().len() > 1) {
                state.undo();
                game.undo();
            } else {
                let free: Vec<Pos> = rules
                    .size
                    .points()
                    .filter(|&p| game.check(p).is_ok())
                    .collect();
                let p = free[rng.random_range(0..free.len())];
                game.play(p);
                state.play(state.index(p));
            }
            let fresh = crate::state::State::with_network(&game, Some(loaded));
            assert_eq!(state.accumulators(), fresh.accumulators());
            assert_eq!(state.evaluate(), fresh.evaluate());
        }
    }

    #[test]
    fn renju_black_fouls_and_empty_lines_add_nothing() {
        let loaded = sample().load(Rule::Renju);
        assert_eq!(loaded.combination_of(0, 0), 0);
        // Two open threes (pattern 4) and nothing else: a foul for black.
        let double_three = (4 * 9 + 4) as u16 * 81;
        assert_eq!(loaded.combination_of(0, double_three), 0);
        assert_ne!(loaded.combination_of(1, double_three), 0);
        let freestyle = sample().load(Rule::Freestyle);
        assert_ne!(freestyle.combination_of(0, double_three), 0);
    }
}
