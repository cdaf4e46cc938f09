//! caro's own search: iterative-deepening principal-variation alpha-beta
//! over threat-aware moves (the root's first move within an aspiration
//! window of the last iteration's score), with a transposition table,
//! killer and history move ordering, a VCF (victory by continuous fours)
//! solver at the root and at the leaves, and a proof-number VCT (victory
//! by continuous threats) solver at the root (module `dfpn`).
//!
//! Move generation follows the threats the incremental patterns show:
//! a five is played at once; an opponent five must be stopped (and only
//! moves that stop every one of them are searched); an opponent open three
//! is answered by a defence or a four of one's own; otherwise every point
//! near the stones is a candidate, best-looking first. All of it is judged
//! by the game's rule: exact fives, caro's blocked fives, and renju fouls
//! (black can neither attack nor defend through a forbidden point).

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Instant;

use caro_core::{Game, Pos, Rule};
use rand::rngs::StdRng;
use rand::SeedableRng;
use smallvec::SmallVec;

use crate::failcache::FailCache;
use crate::player::{Context, Decision, EngineError, Player, Score, SearchInfo};
use crate::state::{State, Threat};
use crate::tt::Tt;

mod ab;
mod defence;
mod dfpn;
mod level;
mod movepick;
mod params;
mod solve;
#[cfg(test)]
mod testing;
mod timecontrol;
mod vcf;

use level::{level_style, pick_with_noise, LevelStyle};
pub use movepick::bench_generate;
use movepick::{sort_best_first, without_excluded, Gen};
pub use solve::{
    solve_vcf, solve_vcf_line, solve_vct, solve_vct_counted, solve_vct_line, solve_vct_with,
    solve_vct_within, VctSolution, VctSolver, VctVerdict, WinLine, DEFAULT_SOLVE_TABLE_MB,
};
use timecontrol::{
    capped, level_limits, node_share, refute_vct_budget, root_vct_nodes, search_depth,
};
use vcf::vcf_fail_cap;

use params::{
    ASPIRATION_MIN_DEPTH, ASPIRATION_WINDOW, REFUTE_VCT_TABLE_BYTES, ROOT_REFUTE_NODES,
    ROOT_REFUTE_SHARE, ROOT_VCF_SHARE, ROOT_VCT_SHARE, VCF_ROOT_DEPTH, VCF_ROOT_NODES,
};

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

/// How the root's threat solvers proved a win, for [`Searcher::root_win`].
enum RootWin {
    /// By a VCF whose five comes at this ply (counted from 1).
    Vcf(usize),
    /// By a VCT whose longest line takes at most this many plies, where
    /// the walk of its proof gave a bound.
    Vct(Option<usize>),
}

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
    /// most [`vcf_fail_cap`] of them (the solvers: [`VCF_FAIL_CACHE`]).
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
    /// nodes another solver in a race took to finish
    /// ([`solve::solve_vct_searched`]).
    race: Option<Arc<AtomicU64>>,
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
            deadline: ctx.deadline(1.0),
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
        }
    }

    /// Whether the rule is caro's (a five blocked at both ends does not
    /// win, so a five can be capped as well as blocked).
    fn is_caro(&self) -> bool {
        matches!(self.state.rules().rule, Rule::Caro | Rule::CaroStandard)
    }

    /// The score of the root's only move `m`, which is played without a
    /// search: a win in three plies if it makes an open four (except
    /// under caro, where a capped end may spoil a five), a draw if it
    /// leaves the other side no legal move (a full board, or black under
    /// renju with every empty point forbidden), else the evaluation of the
    /// position it leaves, from the mover's side.
    fn only_move_score(&mut self, m: usize) -> i32 {
        let me = self.state.to_move();
        let open_four = !self.is_caro() && self.state.threat(m, me) == Threat::OpenFour;
        self.state.play(m);
        let score = if !self.state.has_legal_move() {
            // A full board, or black under renju with every point
            // forbidden: a draw.
            0
        } else if open_four {
            WIN - 3
        } else {
            -self.state.evaluate()
        };
        self.state.undo();
        score
    }

    /// The root's only move `m`, the only stop of the other side's five
    /// (every other move loses to that five): if the other side then wins
    /// by fours, the score of that loss and its line, `m` first. The loss
    /// comes within the plies of the VCF found ([`Searcher::vcf_plies`])
    /// and the move `m`.
    fn loss_after_forced_move(&mut self, m: usize) -> Option<(i32, Vec<usize>)> {
        self.state.play(m);
        let found = self.vcf(VCF_ROOT_DEPTH, 1);
        // The five's ply counts `m`; the VCF's own plies do not.
        let vcf_plies = self.vcf_five_ply;
        let loss = found.map(|first| {
            let line = self.winning_line(first, None, Searcher::vcf_line_fours(vcf_plies));
            let plies = 1 + self.vcf_plies(&line, vcf_plies);
            (
                -(WIN - plies as i32),
                std::iter::once(m).chain(line).collect(),
            )
        });
        self.state.undo();
        loss
    }

    /// The score and principal variation of a win the root's threat
    /// solvers proved with `first`: the win's main `line` as the
    /// variation, and a win within the plies `win` gives. A VCF's are
    /// those to the five of the VCF found, each defence off it losing
    /// sooner (under caro the longest of the defender's stops); outside
    /// caro, where the defender's block is the only stop of a four, the
    /// line is forced, and where it ends in the five or on a four the
    /// defender cannot stop it bounds them too. A VCT's are those of the
    /// longest line of its proof ([`Searcher::proof_plies`]; the main
    /// line's replies are the ones whose proofs took the most nodes, and
    /// another may last longer), or none known ([`UNKNOWN_WIN`]).
    fn root_win(&mut self, first: usize, line: Vec<usize>, win: RootWin) -> (i32, Vec<usize>) {
        let score = match win {
            RootWin::Vcf(plies) if line.first() == Some(&first) => {
                WIN - self.vcf_plies(&line, plies) as i32
            }
            RootWin::Vcf(plies) | RootWin::Vct(Some(plies)) => WIN - plies as i32,
            RootWin::Vct(None) => UNKNOWN_WIN,
        };
        if line.first() == Some(&first) {
            (score, line)
        } else {
            (score, vec![first])
        }
    }

    /// Whether the side to move, the opponent after a root move, wins by
    /// threats (VCT) before the search reaches `node_limit` nodes: the
    /// root check at full strength.
    fn wins_by_threats_after_root_move(&mut self, node_limit: u64) -> bool {
        self.node_limit = Some(node_limit);
        self.vct_dfpn(1, dfpn::Schedule::Shares, REFUTE_VCT_TABLE_BYTES)
            .win()
            .is_some()
    }

    /// Searches the root moves to `depth` and scores each (exact for the
    /// best and those within `margin` of it, bounds for the rest). The
    /// first move, the last iteration's best, is searched within the
    /// aspiration window around `guess` (the last iteration's score) when
    /// there is one. `None` when the search was stopped first: a stopped
    /// iteration still leaves in `pv` the best line among the moves it
    /// finished, and in `partial` that line's score once at least the
    /// first move was finished.
    fn root(
        &mut self,
        moves: &mut [Scored],
        depth: i32,
        pv: &mut Vec<usize>,
        margin: i32,
        partial: &mut Option<i32>,
        guess: Option<i32>,
    ) -> Option<i32> {
        // Moves are searched with a null window just below `best - margin`:
        // those that may score within `margin` of the best get an exact
        // score (weak levels choose among them), the rest only a bound.
        let mut best = -INF;
        let mut child_pv = Vec::new();
        let me = self.state.to_move();
        for (n, entry) in moves.iter_mut().enumerate() {
            let m = entry.0;
            self.state.play(m);
            let floor = best.saturating_sub(margin).max(-INF);
            let score = if self.state.won_at(m, me) {
                child_pv.clear();
                WIN - 1
            } else if n == 0 {
                let window = guess
                    .filter(|g| g.abs() < WIN_BOUND && depth >= ASPIRATION_MIN_DEPTH)
                    .map(|g| (g - ASPIRATION_WINDOW, g + ASPIRATION_WINDOW));
                // Within the window the score is exact; outside it, or
                // with no window, a full-window search gives it.
                let inside = window.and_then(|(lo, hi)| {
                    let s = -self.negamax(depth - 1, -hi, -lo, 1, &mut child_pv);
                    (s > lo && s < hi).then_some(s)
                });
                inside.unwrap_or_else(|| -self.negamax(depth - 1, -INF, INF, 1, &mut child_pv))
            } else {
                let mut s = -self.negamax(depth - 1, -floor - 1, -floor, 1, &mut child_pv);
                if s > floor {
                    s = -self.negamax(depth - 1, -INF, -floor, 1, &mut child_pv);
                }
                s
            };
            self.state.undo();
            if self.abort != Abort::None {
                if n > 0 {
                    *partial = Some(best);
                }
                return None;
            }
            entry.1 = score;
            if score > best {
                best = score;
                pv.clear();
                pv.push(m);
                pv.extend_from_slice(&child_pv);
            }
        }
        Some(best)
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

/// caro's own player at a level 1 (gentle) to 10 (full strength).
pub struct CaroPlayer {
    level: u32,
    tt: Tt,
    rng: StdRng,
    /// Whether the levels that look for forced wins at the root do.
    root_threats: bool,
    /// Root moves the search leaves out (multi-line analysis: the lines
    /// already found); empty in play.
    excluded: Vec<Pos>,
}

impl CaroPlayer {
    /// A player at `level` (clamped to 1..=10), seeded for reproducible
    /// weak-level choices.
    #[must_use]
    pub fn new(level: u32, seed: u64) -> CaroPlayer {
        CaroPlayer {
            level: level.clamp(1, 10),
            tt: Tt::new(DEFAULT_HASH_MB),
            rng: StdRng::seed_from_u64(seed),
            root_threats: true,
            excluded: Vec::new(),
        }
    }

    /// Root moves the next searches leave out, as if they were not there
    /// (multi-line analysis searches again without the lines found so
    /// far). Empty by default, and then play is untouched. A point off the
    /// board is ignored.
    pub fn set_excluded_root_moves(&mut self, moves: &[Pos]) {
        self.excluded = moves.to_vec();
    }

    /// Whether the search first looks for forced wins by threats at the
    /// root, and drops the moves that lose to one (levels 4 to 10 do).
    /// Off, every move is an alpha-beta search alone, whose score is what
    /// the evaluation sees a few plies on: what `examples/fit_eval.rs`
    /// fits the evaluation to.
    pub fn set_root_threats(&mut self, on: bool) {
        self.root_threats = on;
    }

    /// Resizes the hash table (clears it).
    pub fn set_hash_mb(&mut self, megabytes: usize) {
        self.tt = Tt::new(megabytes.max(1));
    }

    /// Forgets the hash table.
    pub fn clear_hash(&mut self) {
        self.tt.clear();
    }
}

impl Player for CaroPlayer {
    fn name(&self) -> String {
        format!("caro:{}", self.level)
    }

    fn new_game(&mut self) {
        self.tt.clear();
    }

    fn choose(&mut self, game: &Game, ctx: &mut Context<'_>) -> Result<Decision, EngineError> {
        let mut style = level_style(self.level);
        style.root_vcf &= self.root_threats;
        let given = ctx.limits;
        ctx.limits = level_limits(&given, &style);
        let result = self.think(game, ctx, style);
        ctx.limits = given;
        result
    }
}

impl CaroPlayer {
    /// [`Player::choose`] under the level's own limits.
    fn think(
        &mut self,
        game: &Game,
        ctx: &mut Context<'_>,
        style: LevelStyle,
    ) -> Result<Decision, EngineError> {
        if game.is_over() {
            return Err(EngineError::GameOver);
        }
        self.tt.new_search();
        let mut s = Searcher::new(game, &self.tt, ctx);
        let info = |s: &Searcher<'_>, depth: u32, score: i32, pv: &[usize]| SearchInfo {
            depth,
            seldepth: s.seldepth as u32,
            score: to_score(score),
            nodes: s.nodes,
            elapsed: s.started.elapsed(),
            pv: pv.iter().map(|&i| s.state.pos(i)).collect(),
        };
        let excluded: Vec<usize> = self
            .excluded
            .iter()
            .filter(|&&p| game.size().contains(p))
            .map(|&p| s.state.index(p))
            .collect();
        let mut generated = s.generate(0, None);
        if !excluded.is_empty() {
            generated = without_excluded(&mut s, generated, &excluded);
        }
        // Whether the root's moves are the stops of the other side's five.
        let root_forced;
        let mut root_moves = match generated {
            Gen::Win(i) => {
                let report = info(&s, 1, WIN - 1, &[i]);
                (ctx.progress)(&report);
                return Ok(Decision {
                    best: s.state.pos(i),
                    info: Some(report),
                });
            }
            Gen::Lost => {
                // Every move loses: block one of the fives if we may.
                let opp = game.to_move().opponent();
                let legal = game.legal_moves();
                let best = legal
                    .iter()
                    .copied()
                    .find(|&p| s.state.threat(s.state.index(p), opp) == Threat::Five)
                    .or_else(|| legal.first().copied())
                    .ok_or(EngineError::GameOver)?;
                let report = info(&s, 1, -(WIN - 2), &[s.state.index(best)]);
                (ctx.progress)(&report);
                return Ok(Decision {
                    best,
                    info: Some(report),
                });
            }
            Gen::Moves { mut moves, forced } => {
                sort_best_first(&mut moves);
                root_forced = forced;
                moves
            }
        };
        if root_moves.is_empty() {
            // Every nearby point is forbidden: fall back on any legal move.
            let legal = game.legal_moves();
            let best = *legal
                .iter()
                .find(|&&p| !self.excluded.contains(&p))
                .ok_or(EngineError::GameOver)?;
            return Ok(Decision { best, info: None });
        }
        // An only move is played at once, but at full strength only after
        // the root's VCF: where the only move (a forced block) starts a
        // win by fours, the report says so; where it is the only stop of a
        // five and the other side then wins by fours, the report gives
        // that loss.
        let only_move = |s: &mut Searcher<'_>, ctx: &mut Context<'_>| {
            let m = root_moves[0].0;
            let loss = if style.root_vcf && root_forced {
                s.deadline = ctx.deadline(ROOT_VCT_SHARE);
                let saved = s.node_limit;
                let vcf_limit = s.nodes + VCF_ROOT_NODES;
                s.node_limit = Some(capped(saved, vcf_limit));
                let loss = s.loss_after_forced_move(m);
                s.node_limit = saved;
                s.abort = Abort::None;
                loss
            } else {
                None
            };
            let (score, pv) = loss.unwrap_or_else(|| (s.only_move_score(m), vec![m]));
            let report = info(s, 1, score, &pv);
            (ctx.progress)(&report);
            Ok(Decision {
                best: s.state.pos(m),
                info: Some(report),
            })
        };
        if root_moves.len() == 1 && !style.root_vcf {
            return only_move(&mut s, ctx);
        }
        if style.root_vcf {
            // Threat searches get a share of the time, the rest is the
            // main search's. The deadlines are cumulative: our VCF until
            // 15% of the budget, our VCT until 30%, the check of every root
            // move against the opponent's VCF until 50% (each window ends
            // after the one before it, so no step is left without time).
            let saved_deadline = s.deadline;
            s.deadline = ctx.deadline(ROOT_VCF_SHARE);
            let saved = s.node_limit;
            // A node budget is shared the same way.
            s.node_limit = Some(capped(node_share(saved, ROOT_VCF_SHARE), VCF_ROOT_NODES));
            let found = s.vcf(VCF_ROOT_DEPTH, 0);
            // The ply of its five, before the line's searches move it.
            let five_ply = s.vcf_five_ply;
            s.node_limit = saved;
            if s.stopped_by_node_limit() {
                s.abort = Abort::None;
            }
            if let Some(m) = found.filter(|m| !excluded.contains(m)) {
                s.deadline = saved_deadline;
                let fours = Searcher::vcf_line_fours(five_ply + 1);
                let line = s.winning_line(m, None, fours);
                let (score, pv) = s.root_win(m, line, RootWin::Vcf(five_ply + 1));
                let report = info(&s, 1, score, &pv);
                (ctx.progress)(&report);
                return Ok(Decision {
                    best: s.state.pos(m),
                    info: Some(report),
                });
            }
            s.abort = Abort::None;
            if root_moves.len() == 1 {
                let decision = only_move(&mut s, ctx);
                s.deadline = saved_deadline;
                return decision;
            }
            s.deadline = ctx.deadline(ROOT_VCT_SHARE);
            // A win by threats (VCT) proven within a small budget is
            // played at once. Its budget grows with the move's time: at a
            // short time a larger one costs the main search more than it
            // finds.
            let vct_limit = s.nodes + root_vct_nodes(&ctx.limits);
            s.node_limit = Some(capped(node_share(saved, ROOT_VCT_SHARE), vct_limit));
            // Its proof table may take a quarter of the hash table's
            // memory (the 100k nodes at most it searches need about 6 MB).
            let (found, line, plies) = s.vct_dfpn_line(
                dfpn::Solver::Full,
                dfpn::Schedule::Shares,
                s.tt.bytes() / 4,
                true,
            );
            s.node_limit = saved;
            s.deadline = saved_deadline;
            s.abort = Abort::None;
            if let Some(m) = found.win().filter(|m| !excluded.contains(m)) {
                let (score, pv) = s.root_win(m, line, RootWin::Vct(plies));
                let report = info(&s, 1, score, &pv);
                (ctx.progress)(&report);
                return Ok(Decision {
                    best: s.state.pos(m),
                    info: Some(report),
                });
            }
        }
        if style.root_vcf && root_moves.len() > 1 {
            // Moves after which the opponent wins by force are dropped
            // (unless every move is such a move).
            let saved_deadline = s.deadline;
            let saved_limit = s.node_limit;
            s.deadline = ctx.deadline(ROOT_REFUTE_SHARE).or(saved_deadline);
            // The checks end at half the time (above) or of the node budget.
            let check_until = node_share(saved_limit, ROOT_REFUTE_SHARE);
            let refute_vct_nodes = if style.refute_vct {
                refute_vct_budget(&ctx.limits)
            } else {
                0
            };
            let mut safe = Vec::with_capacity(root_moves.len());
            let mut unsafe_moves = Vec::new();
            for &(m, sc) in &root_moves {
                s.state.play(m);
                let limit = s.nodes + ROOT_REFUTE_NODES;
                s.node_limit = Some(capped(check_until, limit));
                let mut refuted = s.vcf(VCF_ROOT_DEPTH, 1).is_some();
                // Stopped by the clock, a stop or the checks' share, not
                // by one check's own budget.
                let mut timed_out = s.out_of_budget(check_until);
                s.abort = Abort::None;
                if !refuted && !timed_out && refute_vct_nodes > 0 {
                    let limit = s.nodes + refute_vct_nodes;
                    refuted = s.wins_by_threats_after_root_move(capped(check_until, limit));
                    timed_out = s.out_of_budget(check_until);
                    s.abort = Abort::None;
                }
                s.state.undo();
                if refuted {
                    unsafe_moves.push((m, sc));
                } else {
                    safe.push((m, sc));
                }
                if timed_out {
                    break;
                }
            }
            let checked = safe.len() + unsafe_moves.len();
            if !safe.is_empty() {
                safe.extend_from_slice(&root_moves[checked..]);
                root_moves = safe;
            }
            s.deadline = saved_deadline;
            s.node_limit = saved_limit;
        }
        let max_depth = search_depth(&ctx.limits, style.max_depth);
        let margin = style.noise;
        let mut best_pv: Vec<usize> = vec![root_moves[0].0];
        let mut best_score = 0;
        let mut last: Option<SearchInfo> = None;
        let mut scored = root_moves.clone();
        // Full strength with more than one thread: helpers search the same
        // root moves and share the hash table (lazy SMP); the main thread's
        // iterations alone decide the move.
        let helpers = if margin == 0 && style.max_depth == MAX_DEPTH {
            ctx.limits.threads.unwrap_or(1).clamp(1, MAX_THREADS) - 1
        } else {
            0
        };
        let helper_stop = crate::player::StopFlag::new();
        std::thread::scope(|scope| {
            for id in 0..helpers {
                let (tt, moves, stop) = (s.tt, root_moves.clone(), helper_stop.clone());
                scope.spawn(move || help(game, tt, stop, moves, id, max_depth));
            }
            for depth in 1..=max_depth {
                let iteration_start = Instant::now();
                let iteration_nodes = s.nodes;
                let mut pv = Vec::new();
                let mut partial = None;
                let Some(score) = s.root(
                    &mut root_moves,
                    depth as i32,
                    &mut pv,
                    margin,
                    &mut partial,
                    (depth > 1).then_some(best_score),
                ) else {
                    // Stopped in mid-iteration: the moves it finished were
                    // searched deeper than the last full iteration, so the best
                    // of them is kept (full strength only: weak levels choose
                    // among complete iterations).
                    if let (Some(score), 0) = (partial, margin) {
                        if score > -WIN_BOUND && !pv.is_empty() {
                            best_score = score;
                            best_pv = pv;
                            let report = info(&s, depth, best_score, &best_pv);
                            (ctx.progress)(&report);
                            last = Some(report);
                        }
                    }
                    break;
                };
                best_score = score;
                best_pv = pv;
                // Best first for the next iteration, keep the rest in order.
                root_moves.sort_by_key(|&(_, sc)| std::cmp::Reverse(sc));
                scored.clone_from(&root_moves);
                let report = info(&s, depth, best_score, &best_pv);
                (ctx.progress)(&report);
                last = Some(report);
                if best_score.abs() > WIN_BOUND {
                    break;
                }
                // A weak level stops early when the next iteration will
                // not finish (it chooses among complete ones). At full
                // strength an unfinished iteration still deepens the moves
                // it reaches, the best first, so the search goes on until
                // the deadline.
                if margin > 0 && s.next_iteration_may_not_finish(iteration_start, iteration_nodes) {
                    break;
                }
            }
            helper_stop.stop();
        });
        let mut choice = best_pv.first().copied().unwrap_or(root_moves[0].0);
        if style.noise > 0 && best_score.abs() <= WIN_BOUND {
            choice = pick_with_noise(&scored, style.noise, &mut self.rng).unwrap_or(choice);
        }
        let mut info = last;
        if best_pv.first() != Some(&choice) {
            // A weak level wandered from the best line: report the move it
            // plays and that move's own score, not the line it left.
            if let Some(info) = info.as_mut() {
                info.pv = vec![s.state.pos(choice)];
                if let Some(&(_, score)) = scored.iter().find(|&&(m, _)| m == choice) {
                    info.score = to_score(score);
                }
            }
        }
        Ok(Decision {
            best: s.state.pos(choice),
            info,
        })
    }
}

/// A lazy-SMP helper: searches the root moves by iterative deepening
/// (odd helpers a ply ahead) until `stop` is set, for the entries it
/// leaves in the shared table.
fn help(
    game: &Game,
    tt: &Tt,
    stop: crate::player::StopFlag,
    mut moves: Vec<Scored>,
    id: usize,
    max_depth: u32,
) {
    with_searcher(game, tt, None, stop, |s| {
        for depth in 1 + (id % 2) as u32..=max_depth {
            let (mut pv, mut partial) = (Vec::new(), None);
            if s.root(&mut moves, depth as i32, &mut pv, 0, &mut partial, None)
                .is_none()
            {
                break;
            }
            moves.sort_by_key(|&(_, sc)| std::cmp::Reverse(sc));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::{Limits, StopFlag};
    use caro_core::notation::{format_pos, parse_pos};
    use testing::{best, game, report};

    #[test]
    fn takes_a_five() {
        let g = game(Rule::Freestyle, 15, 5, "h8 a1 i8 a2 j8 a3 k8 a15");
        let m = best(&g, 10, Limits::depth(4));
        assert!(["g8", "l8"].contains(&format_pos(m, g.size()).as_str()));
    }

    #[test]
    fn blocks_a_four() {
        let g = game(Rule::Freestyle, 15, 5, "h8 a1 i8 a2 j8 a3 k8");
        let m = best(&g, 10, Limits::depth(4));
        assert!(
            ["g8", "l8"].contains(&format_pos(m, g.size()).as_str()),
            "{m:?}"
        );
    }

    #[test]
    fn makes_an_open_four_from_an_open_three() {
        let g = game(Rule::Freestyle, 15, 5, "h8 a1 i8 a3 j8 a5");
        let m = best(&g, 10, Limits::depth(4));
        assert!(
            ["g8", "k8"].contains(&format_pos(m, g.size()).as_str()),
            "{m:?}"
        );
    }

    #[test]
    fn an_open_four_played_at_once_reports_its_win() {
        let g = game(Rule::Freestyle, 15, 5, "h8 a1 i8 a3 j8 a5");
        assert_eq!(report(&g).0, Score::WinIn(3));
    }

    #[test]
    fn an_only_move_that_starts_a_vcf_reports_its_win() {
        // quintet's test_vcf_counter: black must block white's four on
        // i8, and that block is the first four of black's VCF: the only
        // move reports the win, not the evaluation's score.
        let g = game(Rule::Renju, 15, 5, "h8 h9 i6 i5 i7 j7 j8 k6 k8 l5 l7 l8");
        let (score, pv) = report(&g);
        assert_eq!(score, Score::WinIn(7), "{pv:?}");
        assert_eq!(pv.first().map(String::as_str), Some("i8"));
        assert_eq!(pv.len(), 5, "{pv:?}");
    }

    #[test]
    fn an_only_move_that_loses_to_a_vcf_reports_the_loss() {
        // Black must stop white's four on l8, and then white's open three
        // on the c file makes an open four: lost in 4 plies, reported as
        // such, not as the evaluation's score.
        let g = game(
            Rule::Freestyle,
            15,
            5,
            "g8 h8 m1 i8 o1 j8 a15 k8 e15 c3 o15 c4 o10 c5",
        );
        let (score, pv) = report(&g);
        assert_eq!(score, Score::LossIn(4), "{pv:?}");
        assert_eq!(pv.first().map(String::as_str), Some("l8"));
    }

    #[test]
    fn a_win_the_root_solvers_prove_reports_its_line() {
        // A VCF from the shared records (mintaka's basic_vcf#1): its
        // line ends on two fives the defender cannot both stop, two plies
        // short of the five.
        let vcf = game(
            Rule::Renju,
            15,
            5,
            "g7 g5 h8 h6 i7 i6 j8 j7 j10 j9 k8 k11 l10 l8",
        );
        let (score, pv) = report(&vcf);
        assert_eq!(score, Score::WinIn(pv.len() as u32 + 2), "{pv:?}");
        assert!(pv.len() >= 7, "{pv:?}");
        // A VCT (quintet's test_vct_black): its line, and the length of
        // the longest line of its proof, not of this one (a reply off the
        // line may last longer). The source's line takes 7 plies to a
        // double four, so 9 to the five.
        let vct = game(Rule::Renju, 15, 5, "h8 g8 h9 h7 h10 i9 i7 i11 j9 j8");
        let (score, pv) = report(&vct);
        assert_eq!(pv.first().map(String::as_str), Some("f10"));
        assert!(pv.len() >= 7, "{pv:?}");
        assert_eq!(score, Score::WinIn(9));
    }

    #[test]
    fn renju_black_never_plays_a_foul() {
        // j8 is a double-three for black; the threats point there.
        let g = game(Rule::Renju, 15, 5, "h8 a1 i8 a2 j9 a3 j10 a15");
        let j8 = parse_pos("j8", g.size()).unwrap();
        for level in [1, 5, 10] {
            let m = best(&g, level, Limits::depth(3));
            assert_ne!(m, j8);
            assert!(g.check(m).is_ok());
        }
    }

    #[test]
    fn stops_at_once_when_asked() {
        let g = game(Rule::Freestyle, 15, 5, "h8 i9 h9");
        let mut p = CaroPlayer::new(10, 1);
        let stop = StopFlag::new();
        stop.stop();
        let mut sink = |_: &SearchInfo| {};
        let mut ctx = Context::new(Limits::default(), stop, &mut sink);
        let d = p.choose(&g, &mut ctx).unwrap();
        assert!(g.check(d.best).is_ok());
    }

    /// The check of a root move at full strength finds the opponent's win
    /// by threats within its largest budget. White to move after `h8 f10
    /// h5 g10 g7 h10 e10`: caro's search alone, even at 5 s, plays h9,
    /// which loses to a VCT (e5); g6 holds. (From a game against Pela.)
    #[test]
    fn the_root_check_finds_a_refutation_by_threats() {
        let game = game(Rule::Freestyle, 15, 5, "h8 f10 h5 g10 g7 h10 e10");
        let tt = Tt::new(1);
        let refuted = |m: &str| {
            with_searcher(&game, &tt, None, StopFlag::new(), |s| {
                let m = s.state.index(parse_pos(m, game.size()).unwrap());
                s.state.play(m);
                s.wins_by_threats_after_root_move(s.nodes + params::REFUTE_VCT_MAX_NODES)
            })
        };
        assert!(refuted("h9"));
        assert!(!refuted("g6"));
    }

    /// With helper threads a depth-limited search ends (the helpers stop
    /// when the main thread is done) with a full-depth result, and a stop
    /// from another thread ends helpers and all.
    #[test]
    fn helper_threads_search_and_stop() {
        let quiet = game(Rule::Freestyle, 15, 5, "h8 i9 h9 h10");
        let limits = Limits {
            depth: Some(5),
            threads: Some(3),
            ..Limits::default()
        };
        let mut p = CaroPlayer::new(10, 1);
        let mut sink = |_: &SearchInfo| {};
        let mut ctx = Context::new(limits, StopFlag::new(), &mut sink);
        let d = p.choose(&quiet, &mut ctx).unwrap();
        assert!(quiet.check(d.best).is_ok());
        assert_eq!(d.info.map(|i| i.depth), Some(5));

        let open = game(Rule::Freestyle, 15, 5, "h8 i9 h9 h10 g8");
        let stop = StopFlag::new();
        let stopper = stop.clone();
        let limits = Limits {
            threads: Some(2),
            ..Limits::default()
        };
        let handle = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            stopper.stop();
        });
        let mut ctx = Context::new(limits, stop, &mut sink);
        let d = p.choose(&open, &mut ctx).unwrap();
        assert!(open.check(d.best).is_ok());
        handle.join().unwrap();
    }
}
