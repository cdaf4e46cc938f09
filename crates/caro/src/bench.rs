//! `caro bench`: a fixed set of positions searched to a fixed depth; the
//! total node count is the search's signature. With `--solve FILE`, the
//! threat solver's benchmark instead: every position of a file solved by
//! VCT, with its nodes and time.

use std::path::PathBuf;
use std::time::Instant;

use caro_core::notation::parse_move_list;
use caro_core::{BoardSize, Color, Game, Rule, Rules};
use caro_engine::search::CaroPlayer;
use caro_engine::{Context, Limits, Player, SearchInfo, StopFlag};
use clap::Args;
use serde_json::json;

use crate::movelists::read_move_lists;
use crate::out::say;
use crate::rulesargs::RulesArgs;
use crate::UsageError;

/// The bench positions: (rule, side, move list). Openings and middle games
/// of every rule, on 15×15, 19×19 and 20×20.
pub const POSITIONS: [(Rule, u8, &str); 10] = [
    (Rule::Freestyle, 15, "h8"),
    (Rule::Freestyle, 15, "h8 i9 h10 g9 i10 j11"),
    (Rule::Freestyle, 15, "h8 h9 i7 g9 j6 k5 i9 i8 g7 f6 h6"),
    (Rule::Standard, 15, "h8 i8 g9 g7 i10 f10 j9 h9"),
    (Rule::Renju, 15, "h8 i9 j8 i8 i7 g9 h9 h10"),
    (Rule::Renju, 15, "h8 h9 j9 j8 f8 i7 g7 i9 h6 e9 f6 k7"),
    (Rule::Caro, 20, "j10 k11 k10 l10 j12 j11 i11 h12 l11"),
    (Rule::CaroStandard, 20, "j10 j11 k11 l12 k10 k12"),
    (Rule::Freestyle, 19, "j10 k11 k9 l10 j8 j9 m9"),
    (Rule::Standard, 15, "a1 o15 b2 n14 h8 i9"),
];

/// What `caro bench --help` ends with.
pub const EXAMPLES: &str = "\
Examples:
  caro bench                                     # depth 7; the last line is the signature
  caro bench --depth 5 --json
  caro bench --solve bench/vct-renju15.txt --rule renju   # the threat solver's benchmark (a minute)
  caro bench --solve bench/vct-freestyle15.txt --solve-nodes 100000 --solver full";

/// Options of `caro bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Depth searched in every position (caro at full strength, one
    /// thread, a 16 MiB hash table).
    #[arg(long, value_name = "N", default_value_t = 7)]
    depth: u32,
    /// Print one JSON line at the end.
    #[arg(long)]
    json: bool,
    /// Solve every position of FILE by continuous threats (VCT) instead:
    /// one move list per line, # comments, the attacker to move (as in the
    /// repository's bench/ folder).
    #[arg(long, value_name = "FILE")]
    solve: Option<PathBuf>,
    /// Node limit of each position for --solve.
    #[arg(long, value_name = "N", default_value_t = 5_000_000)]
    solve_nodes: u64,
    /// Most memory the proof table of each --solve search takes, in MiB
    /// (past it the positions cheapest to find again are forgotten).
    #[arg(long, value_name = "MIB", default_value_t = caro_engine::search::DEFAULT_SOLVE_TABLE_MB as u32,
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    solve_mb: u32,
    /// The threat solver of --solve.
    #[arg(long, value_enum, default_value_t = SolverArg::Race)]
    solver: SolverArg,
    /// The board and rule of --solve's positions (the search bench has its
    /// own).
    #[command(flatten)]
    rules: RulesArgs,
}

/// The threat solvers `--solver` names.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum SolverArg {
    /// The two others, one on each of two threads: the result of the one
    /// that takes fewer nodes.
    Race,
    /// The df-pn proof-number search alone.
    Full,
    /// The search by refinement alone.
    Refined,
}

impl SolverArg {
    fn solver(self) -> caro_engine::search::VctSolver {
        match self {
            SolverArg::Race => caro_engine::search::VctSolver::Race,
            SolverArg::Full => caro_engine::search::VctSolver::Full,
            SolverArg::Refined => caro_engine::search::VctSolver::Refined,
        }
    }
}

/// Solves every position of `path` by VCT and prints the nodes and time of
/// each, then the totals.
fn run_solve(path: &std::path::Path, args: &BenchArgs) -> Result<(), UsageError> {
    let rules = args.rules.rules()?;
    let positions = read_move_lists(path, rules.size, "positions")?;
    let (mut total_nodes, mut total_secs) = (0u64, 0f64);
    let (mut solved, mut within_1s) = (0usize, 0usize);
    let mut slowest = (0f64, 0usize);
    // Every position is checked before any is solved.
    let games = positions
        .iter()
        .map(|(line, moves)| {
            Game::from_moves(rules, Color::Black, moves)
                .map_err(|e| UsageError(format!("{} line {line}: {e}", path.display())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (n, (game, (_, moves))) in games.iter().zip(&positions).enumerate() {
        let t = Instant::now();
        let solution = caro_engine::search::solve_vct_with(
            game,
            args.solve_nodes,
            args.solve_mb as usize,
            args.solver.solver(),
        );
        let (win, nodes) = (solution.win(), solution.nodes);
        let secs = t.elapsed().as_secs_f64();
        total_nodes += nodes;
        total_secs += secs;
        solved += usize::from(win.is_some());
        within_1s += usize::from(win.is_some() && secs < 1.0);
        if secs > slowest.0 {
            slowest = (secs, n + 1);
        }
        say!(
            "{:>4} {:>3} moves  {:<5} {:>10} nodes {:>8.3}s",
            n + 1,
            moves.len(),
            win.map_or("none".to_string(), |m| caro_core::notation::format_pos(
                m, rules.size
            )),
            nodes,
            secs
        );
    }
    say!(
        "{} positions: {solved} solved, {within_1s} of them within 1 s; {total_nodes} nodes in {total_secs:.3}s; slowest {:.3}s (No. {})",
        positions.len(),
        slowest.0,
        slowest.1
    );
    if args.json {
        say!(
            "{}",
            json!({"positions": positions.len(), "solved": solved, "within_1s": within_1s,
                   "nodes": total_nodes, "seconds": total_secs})
        );
    }
    Ok(())
}

/// Searches the bench positions; returns (total nodes, total seconds).
pub fn run(args: &BenchArgs) -> Result<(), UsageError> {
    if let Some(path) = &args.solve {
        return run_solve(path, args);
    }
    if args.rules.size.is_some() || args.rules.k.is_some() || args.rules.rule.is_some() {
        return Err(UsageError(
            "--size, --k and --rule set the board of --solve's positions; the search bench has its own".into(),
        ));
    }
    let mut total_nodes = 0u64;
    let started = Instant::now();
    for (n, (rule, side, moves)) in POSITIONS.iter().enumerate() {
        let size = BoardSize::square(*side);
        let rules = Rules::new(size, 5, *rule).map_err(|e| UsageError(e.to_string()))?;
        let m = parse_move_list(moves, size)
            .map_err(|(i, e)| UsageError(format!("bench {n}: move {i}: {e}")))?;
        let game =
            Game::from_moves(rules, Color::Black, &m).map_err(|e| UsageError(e.to_string()))?;
        let mut player = CaroPlayer::new(10, 0);
        player.set_hash_mb(16);
        let mut last: Option<SearchInfo> = None;
        let mut sink = |i: &SearchInfo| last = Some(i.clone());
        let t = Instant::now();
        let mut ctx = Context::new(Limits::depth(args.depth), StopFlag::new(), &mut sink);
        let d = player
            .choose(&game, &mut ctx)
            .map_err(|e| UsageError(e.to_string()))?;
        let secs = t.elapsed().as_secs_f64();
        let nodes = last.as_ref().map_or(0, |i| i.nodes);
        total_nodes += nodes;
        say!(
            "{:>2} {:<13} {:>2}x{:<2} best {:<4} score {:<6} nodes {:>10} {:>8.3}s {:>9.0} nps",
            n + 1,
            rule.name(),
            side,
            side,
            caro_core::notation::format_pos(d.best, size),
            last.as_ref()
                .map_or("-".to_string(), |i| i.score.to_string()),
            nodes,
            secs,
            nodes as f64 / secs.max(1e-9)
        );
    }
    let secs = started.elapsed().as_secs_f64();
    let nps = total_nodes as f64 / secs.max(1e-9);
    say!(
        "depth {}: {total_nodes} nodes in {secs:.3}s, {nps:.0} nodes/s",
        args.depth
    );
    say!("bench signature: {total_nodes}");
    if args.json {
        say!(
            "{}",
            json!({"depth": args.depth, "nodes": total_nodes, "seconds": secs, "nps": nps})
        );
    }
    Ok(())
}
