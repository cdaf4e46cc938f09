//! Time control: how a move's [`Limits`] (a time per move, the time
//! left, a node limit) become the search's deadlines and node limits, and
//! the search's checks of them. The shares and budgets are tunables
//! ([`super::params`]).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::level::LevelStyle;
use super::params::{
    BEST_MOVE_CHANGE_WEIGHT, CHECK_EVERY, NEXT_ITERATION_FACTOR, NODE_LIMIT_PER_MS,
    REFUTE_VCT_MAX_NODES, REFUTE_VCT_NODES_PER_MS, SCORE_DROP_MAX, SCORE_DROP_WEIGHT,
    SINGLE_MOVE_SHARE, SOFT_STOP_SHARE, VCT_NODES_PER_MS, VCT_ROOT_MIN_NODES, VCT_ROOT_NODES,
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

/// The clock's say in when the iterative deepening of a full-strength
/// search stops: with a clock, no new iteration starts once a share of the
/// move's optimum time has gone, a share that grows while the best move
/// keeps changing and when the score falls, and shrinks to almost
/// nothing for a single root move. The hard deadline
/// ([`Limits::time_maximum`]) still ends an iteration under way.
#[derive(Clone, Debug)]
pub(super) struct SoftStop {
    optimum: Duration,
    /// Changes of the best move, each iteration's weighing half the last.
    changes: f64,
    last: Option<(usize, i32)>,
}

impl SoftStop {
    /// The soft stop of a move under `limits`: `None` without a clock (a
    /// fixed move time is used in full, a node or depth limit is the
    /// search's own).
    pub(super) fn new(limits: &Limits) -> Option<SoftStop> {
        limits.time_left?;
        Some(SoftStop {
            optimum: limits.time_budget()?,
            changes: 0.0,
            last: None,
        })
    }

    /// After a complete iteration whose best move is `best` with `score`,
    /// `elapsed` into the move, with `root_moves` moves at the root:
    /// whether to start no other.
    pub(super) fn stop_after_iteration(
        &mut self,
        elapsed: Duration,
        best: usize,
        score: i32,
        root_moves: usize,
    ) -> bool {
        let mut fall = 0;
        if let Some((last_best, last_score)) = self.last {
            self.changes = self.changes / 2.0 + f64::from(u8::from(last_best != best));
            fall = (last_score - score).max(0);
        }
        self.last = Some((best, score));
        let share = if root_moves == 1 {
            SINGLE_MOVE_SHARE
        } else {
            SOFT_STOP_SHARE
                * (1.0 + BEST_MOVE_CHANGE_WEIGHT * self.changes)
                * (1.0 + (f64::from(fall) * SCORE_DROP_WEIGHT).min(SCORE_DROP_MAX))
        };
        elapsed >= self.optimum.mul_f64(share)
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
    use super::SoftStop;
    use crate::player::Limits;
    use std::time::Duration;

    fn clock(left_ms: u64) -> Limits {
        Limits {
            time_left: Some(Duration::from_millis(left_ms)),
            ..Limits::default()
        }
    }

    #[test]
    fn the_optimum_is_a_share_of_the_clock_plus_most_of_the_increment_and_the_maximum_a_few_times_it(
    ) {
        let plain = clock(16_030);
        assert_eq!(plain.time_budget(), Some(Duration::from_secs(1)));
        assert_eq!(plain.time_maximum(), Some(Duration::from_secs(3)));
        let with_increment = Limits {
            increment: Some(Duration::from_millis(100)),
            ..plain
        };
        assert_eq!(
            with_increment.time_budget(),
            Some(Duration::from_millis(1_080))
        );
        // Near the end of the clock a large increment would ask for most
        // of what is left: both stop at a quarter of it.
        let short = clock(1_030);
        assert_eq!(short.time_maximum(), Some(Duration::from_micros(187_500)));
        let short_with_increment = Limits {
            increment: Some(Duration::from_secs(1)),
            ..short
        };
        assert_eq!(
            short_with_increment.time_budget(),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            short_with_increment.time_maximum(),
            Some(Duration::from_millis(250))
        );
        let turn = Limits {
            move_time: Some(Duration::from_millis(500)),
            ..plain
        };
        assert_eq!(turn.time_budget(), Some(Duration::from_millis(500)));
        assert_eq!(turn.time_maximum(), Some(Duration::from_millis(500)));
        // Without a clock the move time is both.
        let fixed = Limits::time(Duration::from_millis(300));
        assert_eq!(fixed.time_budget(), fixed.time_maximum());
        assert!(SoftStop::new(&fixed).is_none());
    }

    #[test]
    fn an_unstable_best_move_or_a_falling_score_thinks_longer_and_a_single_move_hardly() {
        let limits = clock(16_030);
        let at = Duration::from_millis;
        // Stable: stops once 60% of the optimum (one second) has gone.
        let mut stable = SoftStop::new(&limits).unwrap();
        assert!(!stable.stop_after_iteration(at(400), 7, 50, 20));
        assert!(stable.stop_after_iteration(at(600), 7, 50, 20));
        // The best move changed at the last iteration: 0.6 × 1.8.
        let mut unstable = SoftStop::new(&limits).unwrap();
        assert!(!unstable.stop_after_iteration(at(400), 7, 50, 20));
        assert!(!unstable.stop_after_iteration(at(1_000), 9, 50, 20));
        assert!(unstable.stop_after_iteration(at(1_100), 9, 50, 20));
        // The score fell by 100: 0.6 × 1.4.
        let mut falling = SoftStop::new(&limits).unwrap();
        assert!(!falling.stop_after_iteration(at(400), 7, 150, 20));
        assert!(!falling.stop_after_iteration(at(800), 7, 50, 20));
        assert!(falling.stop_after_iteration(at(850), 7, 50, 20));
        // One root move: 5%.
        let mut single = SoftStop::new(&limits).unwrap();
        assert!(single.stop_after_iteration(at(50), 7, 0, 1));
    }

    use crate::player::{Context, SearchInfo, StopFlag};
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
