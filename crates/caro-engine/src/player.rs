//! The one engine API: a [`Player`] answers "your move" for a position,
//! under [`Limits`], stoppable from another thread, reporting progress.

use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use caro_core::{Game, Pos};

use crate::search::params::{
    CLOCK_MARGIN_MS, CLOCK_MOVES_LEFT, INCREMENT_SHARE, MAX_TIME_RATIO, MAX_TIME_SHARE,
};

/// How long or how far a player may think. Every field is optional; with
/// none set a built-in search uses its own default depth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Time for this move.
    pub move_time: Option<Duration>,
    /// Time left on the player's clock for the rest of the game.
    pub time_left: Option<Duration>,
    /// Time the clock gains after each of the player's moves (with
    /// `time_left`).
    pub increment: Option<Duration>,
    /// Maximum nodes to search.
    pub nodes: Option<u64>,
    /// Maximum depth (plies) to search.
    pub depth: Option<u32>,
    /// Threads the search may use (one when unset). `caro` at level 10
    /// runs helpers that share its hash table (lazy SMP); with more than
    /// one thread a search is no longer reproducible node for node.
    pub threads: Option<usize>,
}

impl Limits {
    /// Limits of a fixed time per move.
    #[must_use]
    pub fn time(move_time: Duration) -> Limits {
        Limits {
            move_time: Some(move_time),
            ..Limits::default()
        }
    }

    /// Limits of a fixed depth.
    #[must_use]
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// The time this move should take (its optimum): the move time, or
    /// with a clock its share of the time left (a
    /// [`CLOCK_MOVES_LEFT`]th of it, less a safety margin, plus most of the
    /// increment, at most [`MAX_TIME_SHARE`] of it), whichever is less, if
    /// either is set. A search may go
    /// past it, up to [`Limits::time_maximum`], where its best move is
    /// unstable or its score falls.
    #[must_use]
    pub fn time_budget(&self) -> Option<Duration> {
        let from_clock = self.time_left.map(|left| {
            let left = clock_left(left);
            let increment = self.increment.unwrap_or_default().mul_f64(INCREMENT_SHARE);
            (left / CLOCK_MOVES_LEFT + increment).min(left.mul_f64(MAX_TIME_SHARE))
        });
        match (self.move_time, from_clock) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The longest this move may take: the move time, or with a clock
    /// [`MAX_TIME_RATIO`] times the optimum but at most
    /// [`MAX_TIME_SHARE`] of the time left (and never past the move time).
    #[must_use]
    pub fn time_maximum(&self) -> Option<Duration> {
        let Some(left) = self.time_left else {
            return self.move_time;
        };
        let optimum = self.time_budget()?;
        let left = clock_left(left);
        let most = optimum
            .mul_f64(MAX_TIME_RATIO)
            .min(left.mul_f64(MAX_TIME_SHARE))
            .max(optimum);
        Some(self.move_time.map_or(most, |t| t.min(most)))
    }
}

/// The time left less the margin kept back for the answer's way out.
fn clock_left(left: Duration) -> Duration {
    let margin = Duration::from_millis(CLOCK_MARGIN_MS).min(left / 4);
    left.saturating_sub(margin)
}

/// A flag another thread sets to stop a search at once. Cheap to clone.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// A flag that is not set.
    #[must_use]
    pub fn new() -> StopFlag {
        StopFlag::default()
    }

    /// Asks the search to stop; it returns its best move so far.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Clears the flag for the next search.
    pub fn reset(&self) {
        self.0.store(false, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    #[inline]
    #[must_use]
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// A search score from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Score {
    /// A heuristic evaluation (centipawn-like units; positive is good).
    Eval(i32),
    /// A forced win in this many plies (of both sides, counting the
    /// winning move).
    WinIn(u32),
    /// A forced loss in this many plies.
    LossIn(u32),
    /// A forced win whose length is not known: a win by threats the
    /// threat solver proved where the walk of its proof gave no bound
    /// (out of nodes, or a position it cannot follow, such as one the
    /// proof table forgot).
    Win,
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Score::Eval(v) => write!(f, "{v}"),
            Score::WinIn(n) => write!(f, "+W{n}"),
            Score::LossIn(n) => write!(f, "-L{n}"),
            Score::Win => write!(f, "+W"),
        }
    }
}

/// Progress of a search, reported after each completed iteration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    /// Depth completed.
    pub depth: u32,
    /// Deepest ply reached (threat sequences go deeper than `depth`).
    pub seldepth: u32,
    /// Score of the best move.
    pub score: Score,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Principal variation, best move first.
    pub pv: Vec<Pos>,
}

impl SearchInfo {
    /// Nodes per second so far.
    #[must_use]
    pub fn nps(&self) -> u64 {
        let us = self.elapsed.as_micros().max(1);
        (self.nodes as u128 * 1_000_000 / us) as u64
    }
}

/// What a player decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The move to play.
    pub best: Pos,
    /// The last search report, for players that search.
    pub info: Option<SearchInfo>,
}

/// Everything a player gets besides the position.
pub struct Context<'a> {
    /// How long or far to think.
    pub limits: Limits,
    /// Set by another thread to stop at once.
    pub stop: StopFlag,
    /// Called with progress reports.
    pub progress: &'a mut dyn FnMut(&SearchInfo),
    /// When thinking began.
    pub started: Instant,
}

impl<'a> Context<'a> {
    /// A context with these limits and stop flag, reporting to `progress`.
    pub fn new(limits: Limits, stop: StopFlag, progress: &'a mut dyn FnMut(&SearchInfo)) -> Self {
        Context {
            limits,
            stop,
            progress,
            started: Instant::now(),
        }
    }

    /// When the move's time is up whatever the search finds
    /// ([`Limits::time_maximum`]): `None` when there is no time limit, or
    /// when it lies past any clock (a manager may send a limit of
    /// centuries), which is no limit either.
    #[must_use]
    pub fn hard_deadline(&self) -> Option<Instant> {
        self.started.checked_add(self.limits.time_maximum()?)
    }

    /// When `part` (0 to 1) of this move's optimum time has gone
    /// ([`Limits::time_budget`]): the search's own stages end at shares
    /// of it. `None` when there is no time limit, or when it lies past any
    /// clock.
    #[must_use]
    pub fn deadline(&self, part: f64) -> Option<Instant> {
        let budget = self.limits.time_budget()?;
        let share = if part >= 1.0 {
            budget
        } else {
            budget.mul_f64(part.max(0.0))
        };
        self.started.checked_add(share)
    }
}

/// Why a player could not move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The game is over or no legal move is left.
    #[error("no move to make: the game is over")]
    GameOver,
    /// A player name that is not known.
    #[error(
        "unknown player {0:?}: expected random, scoremap, quintuple, minimax:0..4 or caro:1..10"
    )]
    UnknownPlayer(String),
    /// A level out of range.
    #[error("{player} has levels {min}..={max}, not {level}")]
    BadLevel {
        /// The player's name.
        player: &'static str,
        /// The rejected level.
        level: String,
        /// Lowest level.
        min: u32,
        /// Highest level.
        max: u32,
    },
    /// An external engine failed: it crashed, timed out, or answered
    /// something that is not a move. The text says which.
    #[error("{0}")]
    External(String),
}

/// A computer player: answers "your move" for any position of any size,
/// k and rule, always with a legal move (never a renju forbidden point for
/// black).
pub trait Player: Send {
    /// The player's name with its level, as [`PlayerSpec`] writes it.
    fn name(&self) -> String;

    /// Forgets anything learned in the previous game (hash tables…).
    fn new_game(&mut self) {}

    /// Chooses a move for the side to move.
    ///
    /// # Errors
    /// [`EngineError::GameOver`] when there is nothing to play.
    fn choose(&mut self, game: &Game, ctx: &mut Context<'_>) -> Result<Decision, EngineError>;
}

/// Where players of one kind come from: each game (or each seat) gets a
/// fresh player built from its source. Built-in players ([`PlayerSpec`])
/// and external engines (the Gomocup adapter's pbrain players) are both
/// sources, so every front end (match runner, terminal, web) takes the
/// same thing.
pub trait PlayerSource: Send + Sync {
    /// The name shown to users, such as `caro:7` or `pbrain:/path/x`.
    fn name(&self) -> String;

    /// Builds a fresh player, seeded for reproducible play.
    ///
    /// # Errors
    /// [`EngineError::External`] when an external engine cannot be started.
    fn build_player(&self, seed: u64) -> Result<Box<dyn Player>, EngineError>;
}

impl PlayerSource for PlayerSpec {
    fn name(&self) -> String {
        self.to_string()
    }

    fn build_player(&self, seed: u64) -> Result<Box<dyn Player>, EngineError> {
        Ok(self.build(seed))
    }
}

/// A built-in player by name: `random`, `scoremap`, `quintuple`,
/// `minimax:N` (0..=4) or `caro:N` (1..=10; `caro` alone is level 10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlayerSpec {
    /// A uniformly random legal move.
    Random,
    /// The Caro article's attack/defence score maps.
    ScoreMap,
    /// The Gobang article's five-cell-window scorecard.
    Quintuple,
    /// The tic-tac-toe article's depth-limited minimax, strength 0..=4.
    Minimax(u32),
    /// caro's own search, level 1..=10.
    Caro(u32),
}

impl PlayerSpec {
    /// Builds the player, seeded for reproducible play.
    #[must_use]
    pub fn build(self, seed: u64) -> Box<dyn Player> {
        match self {
            PlayerSpec::Random => Box::new(crate::random::RandomPlayer::new(seed)),
            PlayerSpec::ScoreMap => Box::new(crate::scoremap::ScoreMapPlayer::new(seed)),
            PlayerSpec::Quintuple => Box::new(crate::quintuple::QuintuplePlayer::new(seed)),
            PlayerSpec::Minimax(strength) => {
                Box::new(crate::minimax::MinimaxPlayer::new(strength, seed))
            }
            PlayerSpec::Caro(level) => Box::new(crate::search::CaroPlayer::new(level, seed)),
        }
    }
}

impl std::fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayerSpec::Random => f.write_str("random"),
            PlayerSpec::ScoreMap => f.write_str("scoremap"),
            PlayerSpec::Quintuple => f.write_str("quintuple"),
            PlayerSpec::Minimax(n) => write!(f, "minimax:{n}"),
            PlayerSpec::Caro(n) => write!(f, "caro:{n}"),
        }
    }
}

impl FromStr for PlayerSpec {
    type Err = EngineError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let (name, level) = match lower.split_once(':') {
            Some((n, l)) => (n, Some(l)),
            None => (lower.as_str(), None),
        };
        let parse_level = |player: &'static str, min: u32, max: u32, default: u32| {
            let bad = |l: &str| EngineError::BadLevel {
                player,
                level: l.to_string(),
                min,
                max,
            };
            match level {
                None => Ok(default),
                Some(l) => match l.parse::<u32>() {
                    Ok(v) if (min..=max).contains(&v) => Ok(v),
                    _ => Err(bad(l)),
                },
            }
        };
        let no_level = |spec: PlayerSpec| match level {
            None => Ok(spec),
            Some(_) => Err(EngineError::UnknownPlayer(s.to_string())),
        };
        match name {
            "random" => no_level(PlayerSpec::Random),
            "scoremap" => no_level(PlayerSpec::ScoreMap),
            "quintuple" => no_level(PlayerSpec::Quintuple),
            "minimax" => Ok(PlayerSpec::Minimax(parse_level("minimax", 0, 4, 4)?)),
            "caro" => Ok(PlayerSpec::Caro(parse_level("caro", 1, 10, 10)?)),
            _ => Err(EngineError::UnknownPlayer(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print() {
        for s in [
            "random",
            "scoremap",
            "quintuple",
            "minimax:0",
            "minimax:4",
            "caro:1",
            "caro:10",
        ] {
            assert_eq!(s.parse::<PlayerSpec>().unwrap().to_string(), s);
        }
        assert_eq!("caro".parse::<PlayerSpec>().unwrap(), PlayerSpec::Caro(10));
        assert!("caro:11".parse::<PlayerSpec>().is_err());
        assert!("minimax:5".parse::<PlayerSpec>().is_err());
        assert!("random:3".parse::<PlayerSpec>().is_err());
        assert!("stockfish".parse::<PlayerSpec>().is_err());
    }

    #[test]
    fn clock_caps_the_budget() {
        let l = Limits {
            move_time: Some(Duration::from_secs(1)),
            time_left: Some(Duration::from_secs(2)),
            ..Limits::default()
        };
        // A sixteenth of the clock less its margin, far below the move time.
        assert_eq!(l.time_budget(), Some(Duration::from_millis(1_970) / 16));
    }

    #[test]
    fn deadlines_are_shares_of_the_budget_and_none_past_any_clock() {
        let mut sink = |_: &SearchInfo| {};
        let ctx = Context::new(
            Limits::time(Duration::from_secs(1)),
            StopFlag::new(),
            &mut sink,
        );
        assert_eq!(
            ctx.deadline(1.0),
            Some(ctx.started + Duration::from_secs(1))
        );
        assert_eq!(
            ctx.deadline(0.25),
            Some(ctx.started + Duration::from_millis(250))
        );
        let ctx = Context::new(Limits::default(), StopFlag::new(), &mut sink);
        assert_eq!(ctx.deadline(1.0), None);
        let ctx = Context::new(Limits::time(Duration::MAX), StopFlag::new(), &mut sink);
        assert_eq!(ctx.deadline(1.0), None);
        // Half of forever may still be a time on some clocks: far away.
        let far = ctx.started + Duration::from_secs(1 << 40);
        assert!(ctx.deadline(0.5).is_none_or(|d| d > far));
    }
}
