//! The threat solvers on their own, outside a game's search: a VCF
//! ([`solve_vcf`]) and a VCT by proof-number search ([`solve_vct`] and its
//! variants, two solvers racing on two threads), each with the win's main
//! line where asked.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use caro_core::{Game, Pos};

use super::dfpn;
use super::params::VCF_FAIL_CACHE;
use super::{with_searcher, Searcher};
use crate::tt::Tt;

/// Runs `f` on a searcher of its own for one of the stand-alone solvers:
/// a small hash table, a node limit, no clock, and the full VCF failure
/// cache (in a game the cache is bounded by the hash table instead).
fn with_solver<R>(game: &Game, node_limit: u64, f: impl FnOnce(&mut Searcher<'_>) -> R) -> R {
    let tt = Tt::new(1);
    let stop = crate::player::StopFlag::new();
    with_searcher(game, &tt, Some(node_limit), stop, |s| {
        s.vcf_fails.set_cap(VCF_FAIL_CACHE);
        f(s)
    })
}

/// Looks for a victory by continuous fours for the side to move: the
/// first move of a win within `max_fours` attacker moves, searching at
/// most `node_limit` nodes. `None` when there is none (or none was found
/// within the limits). Every rule is respected: exact fives, caro's
/// blocked fives, renju fouls for black on both sides.
#[must_use]
pub fn solve_vcf(game: &Game, max_fours: u32, node_limit: u64) -> Option<Pos> {
    if game.is_over() {
        return None;
    }
    with_solver(game, node_limit, |s| {
        s.vcf(max_fours, 0).map(|i| s.state.pos(i))
    })
}

/// A win's main line, and the most plies it takes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WinLine {
    /// The main line from the win's first move (empty where there is no
    /// win).
    pub moves: Vec<Pos>,
    /// The most plies the win takes whatever the defender plays, its
    /// first move and the five counted: a VCF's are those of the VCF
    /// found (under caro, by the longest of the defender's stops), a
    /// VCT's those of the longest line of its proof, or of the line where
    /// more. `None` where not known (the walk of a VCT's proof ran out of
    /// nodes or met a position it cannot follow, such as one the proof
    /// table had forgotten).
    pub plies: Option<u32>,
}

/// [`solve_vcf`] with the win's main line: the attacker's fours, each
/// followed by the defender's block (the first, where there are several),
/// up to the five, or to the four the defender cannot legally block.
/// `None` where no VCF was found.
#[must_use]
pub fn solve_vcf_line(game: &Game, max_fours: u32, node_limit: u64) -> Option<WinLine> {
    if game.is_over() {
        return None;
    }
    with_solver(game, node_limit, |s| {
        let first = s.vcf(max_fours, 0)?;
        let five_ply = s.vcf_five_ply;
        let fours = Searcher::vcf_line_fours(five_ply + 1).min(max_fours.saturating_sub(1));
        let line = s.winning_line(first, None, fours);
        let plies = s.vcf_plies(&line, five_ply + 1);
        let plies = u32::try_from(plies).ok();
        Some(WinLine {
            moves: line.into_iter().map(|i| s.state.pos(i)).collect(),
            plies,
        })
    })
}

/// Memory the proof tables of [`solve_vct`] may take, in MiB, shared by
/// the two solvers of its race: enough for each to search about 4M nodes
/// (up to about 60 bytes a node) before it forgets anything. (The
/// refinement's record of the positions it has checked, about one entry
/// a checker's node, comes on top.)
pub const DEFAULT_SOLVE_TABLE_MB: usize = 512;

/// Looks for a victory by continuous threats (fours and open threes) for
/// the side to move with proof-number searches, two solvers racing on two
/// threads ([`VctSolver::Race`]), each searching at most `node_limit`
/// nodes: the first move of a proven win. `None` when there is none or
/// none was proven within the limit. The proof tables take at most about
/// [`DEFAULT_SOLVE_TABLE_MB`] MiB.
#[must_use]
pub fn solve_vct(game: &Game, node_limit: u64) -> Option<Pos> {
    solve_vct_counted(game, node_limit).0
}

/// [`solve_vct`], with the number of nodes the search took.
#[must_use]
pub fn solve_vct_counted(game: &Game, node_limit: u64) -> (Option<Pos>, u64) {
    let solved = solve_vct_within(game, node_limit, DEFAULT_SOLVE_TABLE_MB);
    (solved.win(), solved.nodes)
}

/// What [`solve_vct_within`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VctVerdict {
    /// A win by continuous threats, starting with this move.
    Win(Pos),
    /// No win: every threat of the side to move was searched and each is
    /// refuted. (A threat is a four, or a move after which the side to
    /// move would win by at most three fours were it to move again; a
    /// line is given up after 160 moves.) A position where the side to
    /// move must first stop a four that is not a threat of its own
    /// ends here at once: the block hands the other side a free move.
    NoWin,
    /// Neither found nor ruled out within the node limit.
    NotFound,
}

/// A threat search's verdict and the nodes it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VctSolution {
    /// What the search found.
    pub verdict: VctVerdict,
    /// Nodes searched: in a race, those of the solver whose answer this
    /// is (the other searched as many, or up to the limit where neither
    /// finished).
    pub nodes: u64,
}

impl VctSolution {
    /// The first move of the win, if one was found.
    #[must_use]
    pub fn win(&self) -> Option<Pos> {
        match self.verdict {
            VctVerdict::Win(m) => Some(m),
            VctVerdict::NoWin | VctVerdict::NotFound => None,
        }
    }
}

/// [`solve_vct_counted`] with a proof table of at most about `table_mb`
/// MiB: past it, the table forgets the half of its positions that were
/// the cheapest to find and the search finds them again if it needs them
/// (most often more nodes; a proof is still a complete one, so a win
/// found is a win, and within a node limit a tight table may miss one).
/// Tells a position searched to the end ([`VctVerdict::NoWin`]) from one
/// the limit cut short.
#[must_use]
pub fn solve_vct_within(game: &Game, node_limit: u64, table_mb: usize) -> VctSolution {
    solve_vct_with(game, node_limit, table_mb, VctSolver::Race)
}

/// Which threat solver [`solve_vct_with`] runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VctSolver {
    /// The two below, one on each of two threads, each with half the
    /// table; the result of the one that takes fewer nodes (the full
    /// search's on a tie), so the same whichever thread runs faster. What
    /// [`solve_vct_within`] runs.
    #[default]
    Race,
    /// The df-pn over threats alone.
    Full,
    /// The search by refinement alone: a df-pn that leaves out the
    /// defender's fours off the threat's points guesses the moves, and a
    /// checker proves them against every reply (the full df-pn where the
    /// guess has nothing to say or fails; below a far four, the guess of
    /// the position without it). Cheaper where those fours do not matter,
    /// far dearer where they do.
    Refined,
}

/// [`solve_vct_within`] with the solver chosen.
#[must_use]
pub fn solve_vct_with(
    game: &Game,
    node_limit: u64,
    table_mb: usize,
    solver: VctSolver,
) -> VctSolution {
    solve_vct_searched(game, node_limit, table_mb, solver, false).0
}

/// [`solve_vct_within`] with, for a win, its main line: the attacker's
/// moves as proven, and for the defender at each turn the reply that took
/// the proof the most nodes (the hardest), up to the five or to the move
/// the defender has no legal answer to; and the most plies the win takes
/// by its proof. Empty where no win was found.
#[must_use]
pub fn solve_vct_line(game: &Game, node_limit: u64, table_mb: usize) -> (VctSolution, WinLine) {
    solve_vct_searched(game, node_limit, table_mb, VctSolver::Race, true)
}

/// [`solve_vct_with`], and the main line of a win if `line` is set.
///
/// In the race each solver runs within the node limit. The first to
/// finish sets the node count the other may reach, so the result is the
/// one that took fewer nodes, whichever thread runs faster.
fn solve_vct_searched(
    game: &Game,
    node_limit: u64,
    table_mb: usize,
    solver: VctSolver,
    line: bool,
) -> (VctSolution, WinLine) {
    if game.is_over() {
        let none = VctSolution {
            verdict: VctVerdict::NoWin,
            nodes: 0,
        };
        return (none, WinLine::default());
    }
    let table_bytes = table_mb.max(1) << 20;
    let race = Arc::new(AtomicU64::new(u64::MAX));
    let solve = |solver: dfpn::Solver, table_bytes: usize, racing: bool| {
        with_solver(game, node_limit, |s| {
            s.race = racing.then(|| Arc::clone(&race));
            let (found, moves, plies) =
                s.vct_dfpn_line(solver, dfpn::Schedule::Rounds, table_bytes, line);
            let verdict = match found {
                dfpn::VctFound::Win(i) => VctVerdict::Win(s.state.pos(i)),
                dfpn::VctFound::NoWin => VctVerdict::NoWin,
                dfpn::VctFound::Unknown => VctVerdict::NotFound,
            };
            let solution = VctSolution {
                verdict,
                nodes: s.nodes,
            };
            let line = WinLine {
                moves: moves.into_iter().map(|i| s.state.pos(i)).collect(),
                plies: plies.and_then(|p| u32::try_from(p).ok()),
            };
            (solution, line)
        })
    };
    let half = table_bytes / 2;
    let (full, refined) = match solver {
        VctSolver::Full => return solve(dfpn::Solver::Full, table_bytes, false),
        VctSolver::Refined => return solve(dfpn::Solver::Refined, table_bytes, false),
        VctSolver::Race => std::thread::scope(|scope| {
            let refined = scope.spawn(|| solve(dfpn::Solver::Refined, half, true));
            let full = {
                // Should the full search panic, the other stops at once
                // rather than at its limit before the panic goes on.
                let _stop_race = StopRaceOnPanic(&race);
                solve(dfpn::Solver::Full, half, true)
            };
            let refined = refined
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (full, refined)
        }),
    };
    let finished = |(s, _): &(VctSolution, WinLine)| s.verdict != VctVerdict::NotFound;
    if finished(&refined) && (!finished(&full) || refined.0.nodes < full.0.nodes) {
        refined
    } else {
        full
    }
}

/// Ends a race of solvers when dropped by a panic.
struct StopRaceOnPanic<'a>(&'a AtomicU64);

impl Drop for StopRaceOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::StopFlag;
    use crate::search::testing::game;
    use caro_core::notation::{format_pos, parse_move_list};
    use caro_core::{BoardSize, Color, Rule, Rules};

    /// Plays a winning line from `game` and checks it: every move legal,
    /// the attacker's and the defender's in turn, and at its end the
    /// attacker has made five, or whatever the defender plays the attacker
    /// makes five next.
    fn assert_line_wins(game: &Game, line: &[Pos]) {
        let attacker = game.to_move();
        let mut g = game.clone();
        for &m in line {
            if let Err(e) = g.try_play(m) {
                panic!("{m:?} in the line: {e}");
            }
        }
        if g.is_over() {
            assert!(
                matches!(g.outcome(), Some(caro_core::Outcome::Five { winner, .. }) if *winner == attacker)
            );
            return;
        }
        assert_eq!(
            g.to_move(),
            attacker.opponent(),
            "the line ends on the defender's move"
        );
        for d in g.legal_moves() {
            let mut after = g.clone();
            after.play(d);
            let five = after.is_over() || solve_vcf(&after, 0, 1_000).is_some();
            assert!(five, "the defender's {d:?} stops the line");
        }
    }

    #[test]
    fn the_winning_lines_of_the_solvers_are_legal_and_end_in_a_five() {
        // A VCF: black's four on h8, white's block on h7, black's open
        // four on g7 (the recursive-rule position above, white elsewhere).
        let game = self::game(
            Rule::Renju,
            15,
            5,
            "f8 c8 g8 j8 h9 h12 h10 i4 h11 e6 i9 i10 j10 a1 f7 o1 g6 a15 h5 a2",
        );
        let line = solve_vcf_line(&game, 150, 100_000).expect("a VCF");
        assert_eq!(line.plies, Some(5));
        let line = line.moves;
        let size = game.rules().size;
        let names: Vec<String> = line.iter().map(|&p| format_pos(p, size)).collect();
        assert_eq!(names.join(" "), "h8 h7 g7");
        assert_line_wins(&game, &line);
        // A VCT under renju (the df-pn tests' position), one in freestyle
        // and one under caro, each line checked move by move.
        let renju = "h8 h9 f10 i7 f9 i9 i10 k9 j9 j8 h6 f11 k7 h12 e11 i11 j10";
        let freestyle = "h8 f10 j11 h9 k11 i9 j9 l11 j10 j8 j12 j13";
        let caro = "j10 k11 k10 l10 j12 j11 i11 h12 l11 m12 i12 h9";
        for (rule, side, moves) in [
            (Rule::Renju, 15, renju),
            (Rule::Freestyle, 15, freestyle),
            (Rule::Caro, 20, caro),
        ] {
            let game = self::game(rule, side, 5, moves);
            let (solution, line) = solve_vct_line(&game, 1_000_000, 64);
            let first = solution.win().expect("a VCT");
            assert_eq!(line.moves.first(), Some(&first));
            assert_line_wins(&game, &line.moves);
            let plies = line.plies.expect("a bound") as usize;
            assert!(
                plies >= line.moves.len() && plies % 2 == 1,
                "{plies} {line:?}"
            );
        }
        // A 13-four VCF found within 3,000 nodes (caro-standard, 11×26,
        // found by the engine fuzz target): its line must run to the five.
        // Each step searching afresh 150 fours deep, where the failures
        // the proof had cached are only as deep as it needed, would stop
        // the line after two fours.
        let rules = Rules::new(BoardSize::new(11, 26).unwrap(), 5, Rule::CaroStandard).unwrap();
        let moves = "k12 b7 i13 j11 c14 c15 h16 f9 b25 b8 j5 f25 d10 e26 a7 e15 a11 f8 b2 j26 \
            a26 a24 k9 i9 k23 k20 a21 d26 d23 f19 h4 f26 f24 j1 b22 c6 a9 e14 h14 h11 k7 g11 \
            d11 k24 b6 e23 b4 a17 d3 k26 e20 j4 c9 b15 d21 j7 c17 c16 f4 h2 c1 e18 d17 f20 a2 \
            h23 d15 e9 i15 c18 k5 h25 k21 e19 i19 g1 a5 a8 a10 b17 i4 c8 g24 h21 a4 g23 j24 \
            c22 a16 d12";
        let m = parse_move_list(moves, rules.size).unwrap();
        let long = Game::from_moves(rules, Color::Black, &m).unwrap();
        for depth in [30, 150] {
            let line = solve_vcf_line(&long, depth, 3_000).expect("a VCF").moves;
            assert_eq!(line.len(), 27, "{line:?}");
            assert_line_wins(&long, &line);
        }
        // Each step searched 150 fours deep again needs more than the
        // 3,000 nodes: the steps cut short get more.
        let line = with_solver(&long, 3_000, |s| {
            let first = s.vcf(150, 0).expect("a VCF");
            let line = s.winning_line(first, None, 150);
            line.into_iter().map(|i| s.state.pos(i)).collect::<Vec<_>>()
        });
        assert_eq!(line.len(), 27, "{line:?}");
        assert_line_wins(&long, &line);
        // Without a node limit (a search to a depth, no clock) the line's
        // searches have a budget of their own, and the searcher is left
        // without a limit again.
        let tt = Tt::new(1);
        let (line, limit_after) = with_searcher(&long, &tt, None, StopFlag::new(), |s| {
            let first = s.vcf(150, 0).expect("a VCF");
            let line = s.winning_line(first, None, 150);
            (line, s.node_limit)
        });
        assert_eq!(line.len(), 27, "{line:?}");
        assert_eq!(limit_after, None);
        // No win, no line.
        let quiet = self::game(Rule::Freestyle, 15, 5, "h8");
        let (solution, line) = solve_vct_line(&quiet, 10_000, 16);
        assert_eq!(solution.win(), None);
        assert_eq!(line, WinLine::default());
    }
}
