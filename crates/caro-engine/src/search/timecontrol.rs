//! Time control: how a move's [`Limits`] (a time per move, the time
//! left, a node limit) become the search's deadlines and node limits, and
//! the search's checks of them. The shares and budgets are tunables
//! ([`super::params`]).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::level::LevelStyle;
use super::params::{
    CHECK_EVERY, NEXT_ITERATION_FACTOR, NODE_LIMIT_PER_MS, REFUTE_VCT_MAX_NODES,
    REFUTE_VCT_NODES_PER_MS, VCT_NODES_PER_MS, VCT_ROOT_MIN_NODES, VCT_ROOT_NODES,
};
use super::{Abort, Searcher, DEFAULT_DEPTH, MAX_DEPTH};
use crate::player::Limits;

/// The limits a level plays a move under: the `given` ones, with the
/// level's own node budget where it is smaller, and only the level's
/// share of the time budget (as a time per move).
pub(super) fn level_limits(given: &Limits, style: &LevelStyle) -> Limits {
    let mut limits = *given;
    if let Some(budget) = style.nodes {
        limits.nodes = Some(given.nodes.map_or(budget, |n| n.min(budget)));
    }
    if style.time_share < 1.0 {
        if let Some(budget) = given.time_budget() {
            limits.move_time = Some(budget.mul_f64(style.time_share));
            limits.time_left = None;
        }
    }
    limits
}

/// The deepest iteration the search starts: the limits' depth, or where
/// they give none [`MAX_DEPTH`] when a time or node limit ends the search
/// and [`DEFAULT_DEPTH`] when nothing does; at most `level_max`, at
/// least 1.
pub(super) fn search_depth(limits: &Limits, level_max: u32) -> u32 {
    limits
        .depth
        .unwrap_or(
            if limits.time_budget().is_some() || limits.nodes.is_some() {
                MAX_DEPTH
            } else {
                DEFAULT_DEPTH
            },
        )
        .min(level_max)
        .max(1)
}

/// `part` of a node limit, if there is one.
pub(super) fn node_share(limit: Option<u64>, part: f64) -> Option<u64> {
    limit.map(|n| (n as f64 * part) as u64)
}

/// A node limit of `cap`, or `limit` where there is one below it.
pub(super) fn capped(limit: Option<u64>, cap: u64) -> u64 {
    limit.map_or(cap, |l| l.min(cap))
}

/// Nodes of the root's VCT: [`VCT_ROOT_NODES`], or where the move has a
/// time budget so many a millisecond of it: at a short time a larger
/// budget costs the main search more than it finds.
pub(super) fn root_vct_nodes(limits: &Limits) -> u64 {
    limits.time_budget().map_or(VCT_ROOT_NODES, |b| {
        millis(b)
            .saturating_mul(VCT_NODES_PER_MS)
            .clamp(VCT_ROOT_MIN_NODES, VCT_ROOT_NODES)
    })
}

/// Nodes of the opponent's VCT looked for after each root move: a share
/// of the move's time or node limit, none for a search limited by depth
/// alone (`caro bench` and its signature are the search's own).
pub(super) fn refute_vct_budget(limits: &Limits) -> u64 {
    let per_ms = |ms: u64| {
        ms.saturating_mul(REFUTE_VCT_NODES_PER_MS)
            .min(REFUTE_VCT_MAX_NODES)
    };
    match (limits.time_budget(), limits.nodes) {
        (Some(b), _) => per_ms(millis(b)),
        (None, Some(n)) => per_ms(n / NODE_LIMIT_PER_MS),
        (None, None) => 0,
    }
}

/// Whole milliseconds of a duration (saturating).
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Searcher<'_> {
    /// Whether the search must stop: every [`CHECK_EVERY`] nodes the
    /// clock, the node limit, the stop flag and, in a race, the other
    /// solver's finish are read; once stopped it stays stopped until the
    /// caller resets [`Searcher::abort`].
    #[inline]
    pub(super) fn check_abort(&mut self) -> bool {
        if self.abort != Abort::None {
            return true;
        }
        if self.nodes % CHECK_EVERY == 0 {
            let out_of_time = self.deadline.is_some_and(|d| Instant::now() >= d);
            let out_of_nodes = self.node_limit.is_some_and(|n| self.nodes >= n);
            if self
                .race
                .as_ref()
                .is_some_and(|r| self.nodes > r.load(Ordering::Relaxed))
            {
                // Another solver finished in fewer nodes: stop for good.
                // (One that reaches the same count goes on, and the tie
                // is decided the same way whichever finished first.)
                self.stop.stop();
            }
            if out_of_time || out_of_nodes || self.stop.is_set() {
                self.abort = Abort::Stopped;
            }
        }
        self.abort != Abort::None
    }

    /// Whether the search stopped on a node limit alone: not for the stop
    /// flag, nor for the clock (the deadline now in force).
    pub(super) fn stopped_by_node_limit(&self) -> bool {
        self.abort == Abort::Stopped
            && !self.stop.is_set()
            && self.deadline.is_none_or(|d| Instant::now() < d)
    }

    /// Whether the search stopped for the stop flag, for the clock (the
    /// deadline now in force) or on reaching `until` nodes, not only on a
    /// node limit of its own set lower.
    pub(super) fn out_of_budget(&self, until: Option<u64>) -> bool {
        self.abort == Abort::Stopped
            && (self.stop.is_set()
                || self.deadline.is_some_and(|d| Instant::now() >= d)
                || until.is_some_and(|n| self.nodes >= n))
    }

    /// Whether the next iteration may not finish within the deadline or the
    /// node limit, by what the last one, begun at `started` with
    /// `nodes_before` nodes searched, took: it would take
    /// [`NEXT_ITERATION_FACTOR`] times as much.
    pub(super) fn next_iteration_may_not_finish(
        &self,
        started: Instant,
        nodes_before: u64,
    ) -> bool {
        if let Some(deadline) = self.deadline {
            let now = Instant::now();
            let spent = now.duration_since(started);
            if now + spent * NEXT_ITERATION_FACTOR >= deadline {
                return true;
            }
        }
        if let Some(limit) = self.node_limit {
            let spent = self.nodes - nodes_before;
            if self.nodes + spent * u64::from(NEXT_ITERATION_FACTOR) >= limit {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use crate::player::{Context, Limits, SearchInfo, StopFlag};
    use crate::search::testing::game;
    use crate::search::CaroPlayer;
    use crate::Player;
    use caro_core::Rule;

    /// A time limit far past any clock (a manager's INFO can send one)
    /// is no limit: the search ends on its node limit with a move.
    #[test]
    fn a_time_limit_past_any_clock_is_no_limit() {
        use std::time::Duration;
        let g = game(Rule::Freestyle, 15, 5, "h8 i9 h9");
        let huge = [Duration::MAX, Duration::from_millis(u64::MAX)];
        for (time, left) in huge.into_iter().flat_map(|t| [(t, None), (t, Some(t))]) {
            let limits = Limits {
                nodes: Some(3_000),
                time_left: left,
                ..Limits::time(time)
            };
            let mut sink = |_: &SearchInfo| {};
            let mut ctx = Context::new(limits, StopFlag::new(), &mut sink);
            let d = CaroPlayer::new(10, 1).choose(&g, &mut ctx).unwrap();
            assert!(g.check(d.best).is_ok());
            let mut ctx = Context::new(limits, StopFlag::new(), &mut sink);
            let d = crate::minimax::MinimaxPlayer::new(4, 1)
                .choose(&g, &mut ctx)
                .unwrap();
            assert!(g.check(d.best).is_ok());
        }
    }
}
