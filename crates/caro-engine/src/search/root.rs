//! The root of the search: the threat searches that may decide a move
//! before any alpha-beta (a win by fours or by threats, an only move),
//! the check of the root moves against the opponent's forced wins,
//! iterative deepening with its lazy-SMP helpers, and the search of the
//! root moves of one iteration (the first within an aspiration window of
//! the last iteration's score).

use std::time::Instant;

use caro_core::Game;

use super::params::{
    ASPIRATION_MIN_DEPTH, REFUTE_VCT_TABLE_BYTES, ROOT_VCT_TABLE_DIVISOR, VCF_ROOT_DEPTH,
    VCF_ROOT_NODES,
};
use super::timecontrol::{capped, node_share, refute_vct_budget, root_vct_nodes, SoftStop};
use super::{
    dfpn, to_score, with_searcher, Abort, Scored, Searcher, Tuning, INF, UNKNOWN_WIN, WIN,
    WIN_BOUND,
};
use crate::player::{Context, Decision, SearchInfo, StopFlag};
use crate::state::Threat;
use crate::tt::Tt;

/// How the root's threat solvers proved a win, for [`Searcher::root_win`].
enum RootWin {
    /// By a VCF whose five comes at this ply (counted from 1).
    Vcf(usize),
    /// By a VCT whose longest line takes at most this many plies, where
    /// the walk of its proof gave a bound.
    Vct(Option<usize>),
}

/// What the iterations of [`Searcher::deepen`] found.
pub(super) struct Deepened {
    /// The principal variation of the last complete iteration (at full
    /// strength, of the moves a stopped iteration finished, where
    /// better), or the first root move where none finished.
    pub(super) pv: Vec<usize>,
    /// Its score.
    pub(super) score: i32,
    /// The root moves with their scores in the last complete iteration,
    /// best first.
    pub(super) scored: Vec<Scored>,
    /// The report of [`Deepened::pv`], if an iteration made one.
    pub(super) report: Option<SearchInfo>,
}

impl Searcher<'_> {
    /// A progress report of this search at `depth`: `score` and the line
    /// `pv`.
    pub(super) fn info(&self, depth: u32, score: i32, pv: &[usize]) -> SearchInfo {
        SearchInfo {
            depth,
            seldepth: self.seldepth as u32,
            score: to_score(score),
            nodes: self.nodes,
            elapsed: self.started.elapsed(),
            pv: pv.iter().map(|&i| self.state.pos(i)).collect(),
        }
    }

    /// Plays `m`, reported at `depth` with `score` and the line `pv`.
    pub(super) fn decision(
        &self,
        ctx: &mut Context<'_>,
        m: usize,
        depth: u32,
        score: i32,
        pv: &[usize],
    ) -> Decision {
        let report = self.info(depth, score, pv);
        (ctx.progress)(&report);
        Decision {
            best: self.state.pos(m),
            info: Some(report),
        }
    }

    /// The root's threat searches, at the levels that look for forced wins:
    /// the decision where they make one. A win by fours (VCF) is played at
    /// once, reported with its line; then an only move is played
    /// ([`Searcher::play_only_move`], `check` as there: where it is a forced
    /// block that starts a win by fours, the VCF above has reported it);
    /// then a win by threats (VCT) proven within a small budget is played at
    /// once. The threat searches get a share of the time, the rest is the
    /// main search's. The deadlines are cumulative (the shares of the
    /// searcher's [`Tuning`](super::Tuning), by default those of
    /// [`super::params`]): our VCF until its `root_vcf_share` of the
    /// budget, our VCT until `root_vct_share`, the check of every root move
    /// against the opponent's VCF ([`Searcher::drop_refuted_root_moves`])
    /// until `root_refute_share` (each window ends after the one before it,
    /// so no step is left without time). A node budget is shared the same
    /// way. The wins whose first
    /// move is `excluded` are not played.
    pub(super) fn root_threats(
        &mut self,
        ctx: &mut Context<'_>,
        root_moves: &[Scored],
        check: bool,
        excluded: &[usize],
    ) -> Option<Decision> {
        let saved_deadline = self.deadline;
        self.deadline = ctx.deadline(self.tune.root_vcf_share);
        let saved = self.node_limit;
        self.node_limit = Some(capped(
            node_share(saved, self.tune.root_vcf_share),
            VCF_ROOT_NODES,
        ));
        let found = self.vcf(VCF_ROOT_DEPTH, 0);
        // The ply of its five, before the line's searches move it.
        let five_ply = self.vcf_five_ply;
        self.node_limit = saved;
        // Stopped by its own node budget alone, it leaves the line of a
        // win found the move's limits.
        if self.stopped_by_node_limit() {
            self.abort = Abort::None;
        }
        if let Some(m) = found.filter(|m| !excluded.contains(m)) {
            self.deadline = saved_deadline;
            let fours = Searcher::vcf_line_fours(five_ply + 1);
            let line = self.winning_line(m, None, fours);
            let (score, pv) = self.root_win(m, line, RootWin::Vcf(five_ply + 1));
            return Some(self.decision(ctx, m, 1, score, &pv));
        }
        self.abort = Abort::None;
        if root_moves.len() == 1 {
            let decision = self.play_only_move(ctx, root_moves[0].0, check);
            self.deadline = saved_deadline;
            return Some(decision);
        }
        self.deadline = ctx.deadline(self.tune.root_vct_share);
        let vct_limit = self.nodes + root_vct_nodes(&ctx.limits);
        self.node_limit = Some(capped(
            node_share(saved, self.tune.root_vct_share),
            vct_limit,
        ));
        let (found, line, plies) = self.vct_dfpn_line(
            dfpn::Solver::Full,
            dfpn::Schedule::Shares,
            self.tt.bytes() / ROOT_VCT_TABLE_DIVISOR,
            true,
        );
        self.node_limit = saved;
        self.deadline = saved_deadline;
        self.abort = Abort::None;
        let m = found.win().filter(|m| !excluded.contains(m))?;
        let (score, pv) = self.root_win(m, line, RootWin::Vct(plies));
        Some(self.decision(ctx, m, 1, score, &pv))
    }

    /// Plays the root's only move `m` without a search. Where `check` is
    /// set (at the levels that look for forced wins, when `m` is the only
    /// stop of the other side's five), the other side's win by fours after
    /// it is looked for first, within the root VCT's share of the time: the
    /// report then gives that loss. Otherwise it gives `m`'s own score
    /// ([`Searcher::only_move_score`]).
    pub(super) fn play_only_move(
        &mut self,
        ctx: &mut Context<'_>,
        m: usize,
        check: bool,
    ) -> Decision {
        let loss = if check {
            self.deadline = ctx.deadline(self.tune.root_vct_share);
            let saved = self.node_limit;
            let vcf_limit = self.nodes + VCF_ROOT_NODES;
            self.node_limit = Some(capped(saved, vcf_limit));
            let loss = self.loss_after_forced_move(m);
            self.node_limit = saved;
            self.abort = Abort::None;
            loss
        } else {
            None
        };
        let (score, pv) = loss.unwrap_or_else(|| (self.only_move_score(m), vec![m]));
        self.decision(ctx, m, 1, score, &pv)
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

    /// Drops the root moves after which the opponent wins by force (unless
    /// every move checked is such a move): by fours (VCF) within the
    /// tuning's `root_refute_nodes` a move, and where `refute_vct` is set
    /// also by threats (VCT) within [`refute_vct_budget`]. The checks end at
    /// the tuning's `root_refute_share` of the time or of the node limit;
    /// the moves they
    /// did not reach are kept.
    pub(super) fn drop_refuted_root_moves(
        &mut self,
        ctx: &Context<'_>,
        root_moves: &mut Vec<Scored>,
        refute_vct: bool,
    ) {
        let saved_deadline = self.deadline;
        let saved_limit = self.node_limit;
        self.deadline = ctx.deadline(self.tune.root_refute_share).or(saved_deadline);
        let check_until = node_share(saved_limit, self.tune.root_refute_share);
        let refute_vct_nodes = if refute_vct {
            refute_vct_budget(&ctx.limits)
        } else {
            0
        };
        let mut safe = Vec::with_capacity(root_moves.len());
        let mut unsafe_moves = Vec::new();
        for &(m, sc) in root_moves.iter() {
            self.state.play(m);
            let limit = self.nodes + self.tune.root_refute_nodes;
            self.node_limit = Some(capped(check_until, limit));
            let mut refuted = self.vcf(VCF_ROOT_DEPTH, 1).is_some();
            // Stopped by the clock, a stop or the checks' share, not by one
            // check's own budget.
            let mut timed_out = self.out_of_budget(check_until);
            self.abort = Abort::None;
            if !refuted && !timed_out && refute_vct_nodes > 0 {
                let limit = self.nodes + refute_vct_nodes;
                refuted = self.wins_by_threats_after_root_move(capped(check_until, limit));
                timed_out = self.out_of_budget(check_until);
                self.abort = Abort::None;
            }
            self.state.undo();
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
            *root_moves = safe;
        }
        self.deadline = saved_deadline;
        self.node_limit = saved_limit;
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

    /// Iterative deepening of the root moves from depth 1 to `max_depth`,
    /// each iteration in the order the last one scored them, until the
    /// limits stop it, a forced win or loss is found, or at a weak level
    /// (`margin` above 0: the root moves within `margin` of the best get an
    /// exact score, see [`Searcher::root`]) the next iteration would not
    /// finish. Each complete iteration is reported. With `helpers` above 0,
    /// that many lazy-SMP helpers ([`help`]) search the same root moves on
    /// threads of their own and share the hash table; the main thread's
    /// iterations alone decide the move.
    pub(super) fn deepen(
        &mut self,
        game: &Game,
        ctx: &mut Context<'_>,
        root_moves: &mut Vec<Scored>,
        max_depth: u32,
        margin: i32,
        helpers: usize,
    ) -> Deepened {
        let mut best_pv: Vec<usize> = vec![root_moves[0].0];
        let mut best_score = 0;
        let mut last: Option<SearchInfo> = None;
        let mut scored = root_moves.clone();
        let helper_stop = StopFlag::new();
        let mut soft_stop = if margin == 0 {
            SoftStop::new(&ctx.limits)
        } else {
            None
        };
        std::thread::scope(|scope| {
            for id in 0..helpers {
                let (tt, moves, stop) = (self.tt, root_moves.clone(), helper_stop.clone());
                let tune = self.tune;
                scope.spawn(move || help(game, tt, stop, moves, (id, tune), max_depth));
            }
            for depth in 1..=max_depth {
                let iteration_start = Instant::now();
                let iteration_nodes = self.nodes;
                let mut pv = Vec::new();
                let mut partial = None;
                let Some(score) = self.root(
                    root_moves,
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
                            let report = self.info(depth, best_score, &best_pv);
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
                scored.clone_from(root_moves);
                let report = self.info(depth, best_score, &best_pv);
                (ctx.progress)(&report);
                last = Some(report);
                if best_score.abs() > WIN_BOUND {
                    break;
                }
                // With a clock, full strength stops between iterations
                // once its share of the optimum time has gone.
                if soft_stop.as_mut().is_some_and(|s| {
                    s.stop_after_iteration(
                        ctx.started.elapsed(),
                        best_pv[0],
                        best_score,
                        root_moves.len(),
                    )
                }) {
                    break;
                }
                // A weak level stops early when the next iteration will not
                // finish (it chooses among complete ones). At full strength an
                // unfinished iteration still deepens the moves it reaches, the
                // best first, so the search goes on until the deadline.
                if margin > 0
                    && self.next_iteration_may_not_finish(iteration_start, iteration_nodes)
                {
                    break;
                }
            }
            helper_stop.stop();
        });
        Deepened {
            pv: best_pv,
            score: best_score,
            scored,
            report: last,
        }
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
                    .map(|g| {
                        (
                            g - self.tune.aspiration_window,
                            g + self.tune.aspiration_window,
                        )
                    });
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

/// A lazy-SMP helper: searches the root moves by iterative deepening
/// (odd helpers a ply ahead) until `stop` is set, for the entries it
/// leaves in the shared table, with the main search's `tune`.
fn help(
    game: &Game,
    tt: &Tt,
    stop: crate::player::StopFlag,
    mut moves: Vec<Scored>,
    (id, tune): (usize, Tuning),
    max_depth: u32,
) {
    with_searcher(game, tt, None, stop, |s| {
        s.tune = tune;
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
    use crate::player::{Context, Limits, SearchInfo, StopFlag};
    use crate::search::params::REFUTE_VCT_MAX_NODES;
    use crate::search::testing::{game, report};
    use crate::search::{with_searcher, CaroPlayer};
    use crate::tt::Tt;
    use crate::{Player, Score};
    use caro_core::notation::parse_pos;
    use caro_core::Rule;

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

    /// The check of a root move at full strength finds the opponent's win
    /// by threats within its largest budget. White to move after `h8 f10
    /// h5 g10 g7 h10 e10`: caro's search alone, even at 5 s, plays h9,
    /// which loses to a VCT (e5). (From a game against Pela.) White is
    /// lost whatever it plays (Rapfi-classical: −M24 at depth 40); after
    /// g6 black wins in 13, and the check finds that too. In a quiet
    /// opening it refutes nothing.
    #[test]
    fn the_root_check_finds_a_refutation_by_threats() {
        let tt = Tt::new(1);
        let refuted = |moves: &str, m: &str| {
            let game = game(Rule::Freestyle, 15, 5, moves);
            with_searcher(&game, &tt, None, StopFlag::new(), |s| {
                let m = s.state.index(parse_pos(m, game.size()).unwrap());
                s.state.play(m);
                s.wins_by_threats_after_root_move(s.nodes + REFUTE_VCT_MAX_NODES)
            })
        };
        let lost = "h8 f10 h5 g10 g7 h10 e10";
        assert!(refuted(lost, "h9"));
        assert!(refuted(lost, "g6"));
        for m in ["h10", "h7", "g9"] {
            assert!(!refuted("h8 i9 h9", m), "{m}");
        }
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
