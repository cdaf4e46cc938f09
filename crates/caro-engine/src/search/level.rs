//! The level model: how deep, how long and how freely each level of
//! caro's player, 1 (gentle) to 10 (full strength), plays. The tables are
//! tunables ([`super::params`]).

use rand::rngs::StdRng;
use rand::Rng;

use super::params::{
    LEVEL_DEPTHS, LEVEL_NODES, LEVEL_NOISE, LEVEL_TIME_SHARES, REFUTE_VCT_MIN_LEVEL,
    ROOT_THREATS_MIN_LEVEL,
};
use super::{Scored, MAX_DEPTH, MAX_THREADS, WIN_BOUND};
use crate::player::Limits;

/// How a level plays: how deep, how long, and how much bounded randomness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct LevelStyle {
    /// Deepest iteration.
    pub(super) max_depth: u32,
    /// Share of the time budget the level uses (the top levels differ in
    /// how long they think when the depth cap is out of reach).
    pub(super) time_share: f64,
    /// Most nodes a move may take (`None`: as many as the time allows),
    /// so that a level plays the same at any time control.
    pub(super) nodes: Option<u64>,
    /// Root moves within this many evaluation units of the best may be
    /// chosen (weighted towards the best).
    pub(super) noise: i32,
    /// Whether to look for forced wins (VCF) at the root.
    pub(super) root_vcf: bool,
    /// Whether to drop the root moves after which the opponent wins by
    /// threats (VCT) within a small budget, not only by fours.
    pub(super) refute_vct: bool,
}

impl LevelStyle {
    /// Helper threads of a search under `limits`: at full strength (no
    /// noise and no depth cap of the level's own) one fewer than the
    /// threads asked for, [`MAX_THREADS`] in all at most; none at the
    /// weaker levels.
    pub(super) fn helpers(&self, limits: &Limits) -> usize {
        if self.noise == 0 && self.max_depth == MAX_DEPTH {
            limits.threads.unwrap_or(1).clamp(1, MAX_THREADS) - 1
        } else {
            0
        }
    }
}

/// How `level` (1 to 10) plays: the level tables of [`super::params`].
pub(super) fn level_style(level: u32) -> LevelStyle {
    let i = (level.clamp(1, 10) - 1) as usize;
    LevelStyle {
        max_depth: LEVEL_DEPTHS[i],
        time_share: LEVEL_TIME_SHARES[i],
        nodes: LEVEL_NODES.get(i).copied(),
        noise: LEVEL_NOISE[i],
        root_vcf: level >= ROOT_THREATS_MIN_LEVEL,
        refute_vct: level >= REFUTE_VCT_MIN_LEVEL,
    }
}

/// Bounded randomness for weak levels: each root move's score gets a
/// random bonus of up to `noise`, the best sum wins. Moves losing by force
/// or far below the best are never picked.
pub(super) fn pick_with_noise(scored: &[Scored], noise: i32, rng: &mut StdRng) -> Option<usize> {
    let best = scored.iter().map(|&(_, s)| s).max()?;
    scored
        .iter()
        .filter(|&&(_, s)| s >= best - noise && s > -WIN_BOUND)
        .map(|&(m, s)| (m, s + rng.random_range(0..=noise)))
        .max_by_key(|&(_, s)| s)
        .map(|(m, _)| m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::{Context, Limits, SearchInfo, StopFlag};
    use crate::search::params::CHECK_EVERY;
    use crate::search::testing::game;
    use crate::search::CaroPlayer;
    use crate::Player;
    use caro_core::Rule;

    #[test]
    fn each_level_searches_deeper_and_longer_and_wanders_no_more() {
        for level in 1..10 {
            let (low, high) = (level_style(level), level_style(level + 1));
            assert!(high.max_depth > low.max_depth, "level {level}");
            assert!(high.time_share > low.time_share, "level {level}");
            assert!(high.noise <= low.noise, "level {level}");
            let (Some(low_nodes), high_nodes) = (low.nodes, high.nodes) else {
                panic!("level {level} has no node budget");
            };
            assert!(high_nodes.is_none_or(|n| n > low_nodes), "level {level}");
        }
        // Level 10 thinks seven times as long as level 9, which gains less
        // from twice the time than the shallow levels do, and has no
        // node budget of its own.
        assert_eq!(level_style(10).time_share, 1.0);
        assert_eq!(level_style(10).nodes, None);
        assert_eq!(level_style(9).time_share, 1.0 / 7.0);
        assert_eq!(level_style(1).time_share, 1.0 / 2048.0);
    }

    /// A weak level stops at its node budget whatever the clock: the same
    /// seed plays the same move with a minute or ten.
    #[test]
    fn a_weak_level_plays_the_same_at_any_time_control() {
        let g = game(Rule::Freestyle, 15, 5, "h8 i9 i8 g8 j7 j9 h9");
        for level in [5, 8] {
            let mut moves = Vec::new();
            // Long enough for the budget to bind first in a debug build.
            for seconds in [60, 600] {
                let mut p = CaroPlayer::new(level, 3);
                let mut sink = |_: &SearchInfo| {};
                let limits = Limits::time(std::time::Duration::from_secs(seconds));
                let mut ctx = Context::new(limits, StopFlag::new(), &mut sink);
                let d = p.choose(&g, &mut ctx).unwrap();
                let info = d.info.expect("a search report");
                // The limit is read every CHECK_EVERY nodes.
                let budget = level_style(level).nodes.unwrap();
                assert!(
                    info.nodes <= budget + 2 * CHECK_EVERY,
                    "level {level}: {} nodes",
                    info.nodes
                );
                moves.push(d.best);
            }
            assert_eq!(moves[0], moves[1], "level {level}");
        }
    }

    #[test]
    fn a_weak_level_reports_the_move_it_plays() {
        let g = game(Rule::Freestyle, 15, 5, "h8 i9 h9");
        let mut wandered = false;
        for seed in 0..12 {
            let mut p = CaroPlayer::new(2, seed);
            let mut sink = |_: &SearchInfo| {};
            let mut ctx = Context::new(Limits::depth(2), StopFlag::new(), &mut sink);
            let d = p.choose(&g, &mut ctx).unwrap();
            let info = d.info.expect("a search report");
            assert_eq!(info.pv.first(), Some(&d.best), "seed {seed}");
            wandered |= info.pv.len() == 1;
        }
        assert!(wandered, "level 2 never left the best line in 12 games");
    }
}
