//! caro's own search: iterative-deepening principal-variation alpha-beta
//! over threat-aware moves (the root's first move within an aspiration
//! window of the last iteration's score), with a transposition table,
//! killer and history move ordering, a VCF (victory by continuous fours)
//! solver at the root and at the leaves, and a proof-number VCT (victory
//! by continuous threats) solver at the root. All of it is judged by the
//! game's rule: exact fives, caro's blocked fives, and renju fouls (black
//! can neither attack nor defend through a forbidden point).
//!
//! One concern a module:
//!
//! - `player`: [`CaroPlayer`], a level's limits and style over the search
//!   of one move;
//! - `root`: the root's threat searches, the check of the root moves
//!   against forced wins, iterative deepening with the aspiration window
//!   and the lazy-SMP helpers;
//! - `ab`: the alpha-beta (negamax);
//! - `movepick`: move generation and ordering;
//! - `vcf`: the VCF solver; `defence`: the points that may spoil a VCF
//!   threat, the threat solvers' defences;
//! - `dfpn`: the VCT solvers (df-pn; the search by refinement,
//!   `dfpn::refine`) and the winning lines of their proofs;
//! - `solve`: the threat solvers on their own ([`solve_vcf`],
//!   [`solve_vct`] and their variants);
//! - `level`: the level model; `timecontrol`: how the limits become
//!   deadlines and node budgets;
//! - `params`: every tunable, with what it does and its range.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;

use caro_core::{Game, Rule};
use smallvec::SmallVec;

use crate::failcache::FailCache;
use crate::player::{Context, Score, SearchInfo};
use crate::state::State;
use crate::tt::Tt;

mod ab;
mod defence;
mod dfpn;
mod level;
mod movepick;
pub(crate) mod params;
mod player;
mod root;
mod solve;
#[cfg(test)]
mod testing;
mod timecontrol;
pub mod tuning;
mod vcf;

pub use movepick::bench_generate;
pub use player::CaroPlayer;
pub use solve::{
    solve_vcf, solve_vcf_line, solve_vct, solve_vct_counted, solve_vct_line, solve_vct_with,
    solve_vct_within, VctSolution, VctSolver, VctVerdict, WinLine, DEFAULT_SOLVE_TABLE_MB,
};
pub use tuning::{Tunable, Tuning, TuningError, TUNABLES};
use vcf::vcf_fail_cap;

/// Score of a win on the board now; a win in `n` plies scores `WIN - n`.
pub const WIN: i32 = 1_000_000;
/// Scores beyond this are forced wins (or losses, negated).
pub const WIN_BOUND: i32 = WIN - 10_000;
/// The score of a forced win whose length is not known ([`Score::Win`]).
const UNKNOWN_WIN: i32 = WIN_BOUND + 1;
const INF: i32 = WIN + 1;
/// Depth searched when no limit at all is given.
pub const DEFAULT_DEPTH: u32 = 8;
/// Deepest iteration ever started.
pub const MAX_DEPTH: u32 = 60;
/// Plies beyond which the search stops extending forced lines.
const MAX_PLY: usize = 128;
/// Hash table size of a player, in MiB.
pub const DEFAULT_HASH_MB: usize = 64;
/// Most threads one search uses.
pub const MAX_THREADS: usize = 64;

/// A move with its ordering score.
type Scored = (usize, i32);

/// A few points (fives, fours, their stops), kept inline: the threat
/// solvers make such lists at every node and rarely need more.
type Points = SmallVec<[usize; 8]>;

/// Why a search stopped early.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Abort {
    None,
    Stopped,
}

/// The search proper, for one move.
struct Searcher<'a> {
    state: State,
    tt: &'a Tt,
    nodes: u64,
    node_limit: Option<u64>,
    deadline: Option<Instant>,
    stop: crate::player::StopFlag,
    abort: Abort,
    seldepth: usize,
    killers: Vec<[usize; 2]>,
    history: Vec<[i32; 2]>,
    started: Instant,
    /// Positions (hash) where no VCF within the stored depth exists, at
    /// most [`vcf_fail_cap`] of them (the solvers:
    /// [`params::VCF_FAIL_CACHE`]).
    vcf_fails: FailCache,
    /// While set, [`Searcher::vcf`] collects here every point a defence
    /// against the win it finds would have to touch (see
    /// [`Searcher::vcf_threat_defences`]).
    vcf_trace: Option<Vec<usize>>,
    /// While set, [`Searcher::vcf`] gives up (finds nothing and caches no
    /// failure) once the node count reaches it.
    vcf_node_cap: Option<u64>,
    /// Set when a VCF search gave up at [`Searcher::vcf_node_cap`].
    vcf_cut_short: bool,
    /// The ply of the five that ends the VCF [`Searcher::vcf`] last found
    /// (under caro, of the longest of the defender's stops): how long the
    /// win takes at most, each defence off its line losing sooner.
    vcf_five_ply: usize,
    /// Where set, the search stops once its nodes pass this number: the
    /// nodes another solver in a race took to finish (the race of the VCT
    /// solvers in [`solve`]).
    race: Option<Arc<AtomicU64>>,
    /// The run-time tunables searched with ([`Tuning`]).
    tune: Tuning,
}

impl<'a> Searcher<'a> {
    fn new(game: &Game, tt: &'a Tt, ctx: &Context<'_>) -> Searcher<'a> {
        let state = State::new(game);
        let n = state.board().cell_count();
        Searcher {
            state,
            tt,
            nodes: 0,
            node_limit: ctx.limits.nodes,
            deadline: ctx.hard_deadline(),
            stop: ctx.stop.clone(),
            abort: Abort::None,
            seldepth: 0,
            killers: vec![[usize::MAX; 2]; MAX_PLY + 2],
            history: vec![[0; 2]; n],
            started: ctx.started,
            vcf_fails: FailCache::new(vcf_fail_cap(tt.bytes())),
            vcf_trace: None,
            vcf_node_cap: None,
            vcf_cut_short: false,
            vcf_five_ply: 0,
            race: None,
            tune: Tuning::default(),
        }
    }

    /// Whether the rule is caro's (a five blocked at both ends does not
    /// win, so a five can be capped as well as blocked).
    fn is_caro(&self) -> bool {
        matches!(self.state.rules().rule, Rule::Caro | Rule::CaroStandard)
    }
}

/// Runs `f` on a searcher of `game` with its own silent context: a node
/// limit if given, no clock, stopped by `stop`.
fn with_searcher<R>(
    game: &Game,
    tt: &Tt,
    node_limit: Option<u64>,
    stop: crate::player::StopFlag,
    f: impl FnOnce(&mut Searcher<'_>) -> R,
) -> R {
    let mut sink = |_: &SearchInfo| {};
    let limits = crate::player::Limits {
        nodes: node_limit,
        ..crate::player::Limits::default()
    };
    let ctx = Context::new(limits, stop, &mut sink);
    f(&mut Searcher::new(game, tt, &ctx))
}

/// A search score as a [`Score`].
#[must_use]
pub fn to_score(s: i32) -> Score {
    if s == UNKNOWN_WIN {
        Score::Win
    } else if s > WIN_BOUND {
        Score::WinIn((WIN - s) as u32)
    } else if s < -WIN_BOUND {
        Score::LossIn((WIN + s) as u32)
    } else {
        Score::Eval(s)
    }
}
