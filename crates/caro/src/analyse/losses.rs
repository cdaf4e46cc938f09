//! `caro analyse losses`: where a player's lost games were lost, by the
//! threat solver.
//!
//! For each game the player lost, the first of its moves after which
//! `solve_vct` proves a win for the opponent within `--nodes`, the nodes
//! the proof took, and how many of the empty points near a stone
//! (`state::NEAR`) the player could have played instead without such a
//! proof within `--check-nodes` (an upper bound on the moves that held: a
//! deeper win may still follow them). Games the player won or drew are
//! skipped. With `--suite FILE`, each position before a losing move is
//! also appended to FILE: a defence suite for `caro analyse defend`.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use caro_core::code::PositionCode;
use caro_core::notation::format_pos;
use caro_core::{Game, Pos};
use caro_engine::search::solve_vct_counted;
use caro_engine::state::State;
use clap::Args;

use super::saved::{read_saved_games, PlayerResult};
use crate::out::say;
use crate::UsageError;

/// What `caro analyse losses --help` ends with.
pub const EXAMPLES: &str = "\
Each line names a lost game: its length, the first move proven lost with \
the proof's nodes, and how many of the points near the stones held \
instead (no win by threats found after them within --check-nodes). Games \
the player won or drew are left out.

Examples:
  caro match caro:10 caro:5 --games 20 --time 1s --psq games
  caro analyse losses --player caro:5 games          # every game in games/
  caro analyse losses --player caro:5 --nodes 300000 --check-nodes 30000 games/game-0002.psq
  caro analyse losses --player caro:5 --suite defence.txt games   # then: caro analyse defend defence.txt";

/// Options of `caro analyse losses`.
#[derive(Args, Debug)]
pub struct LossesArgs {
    /// The player whose lost games are examined: any part of its name as
    /// the games give it (`caro:10`, `pbrain`).
    #[arg(long, value_name = "NAME")]
    player: String,
    /// Node limit of the solver's search for the opponent's win after each
    /// of the player's moves (from the player's second on).
    #[arg(long, default_value_t = 3_000_000)]
    nodes: u64,
    /// Node limit of the search after each point the player could have
    /// played instead of the losing move: a point held when none found a
    /// win.
    #[arg(long, default_value_t = 300_000)]
    check_nodes: u64,
    /// Also append each position before a losing move to FILE, one line
    /// each: the position code (as `caro position --code` reads it), a
    /// tab, the move played, a tab, and the points that held, separated by
    /// spaces (the format `caro analyse defend` reads).
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// The games: PSQ files as `caro match --psq` saves them, or folders
    /// of them (their `.psq` files, in name order).
    #[arg(required = true, value_name = "GAME")]
    games: Vec<PathBuf>,
}

/// What became of one lost game.
enum Verdict {
    /// The first losing move (1-based), the proof's nodes, and the points
    /// that held / were tried instead.
    LostAt {
        move_number: usize,
        nodes: u64,
        held: Vec<Pos>,
        tried: usize,
    },
    /// No move of the player's was proven lost within the limit.
    NotFound,
}

/// Plays `moves` on `game` up to the first of the player's (those of
/// parity `mine`) after which the opponent's win is proven, and leaves
/// `game` just before it.
fn examine(game: &mut Game, moves: &[Pos], mine: usize, nodes: u64, check: u64) -> Verdict {
    for (i, &m) in moves.iter().enumerate() {
        if i % 2 == mine && i >= 3 {
            let mut after = game.clone();
            if after.try_play(m).is_err() {
                break;
            }
            let (win, spent) = solve_vct_counted(&after, nodes);
            if win.is_some() {
                let state = State::new(game);
                let mut held = Vec::new();
                let mut tried = 0;
                for p in game.legal_moves() {
                    if state.near(state.index(p)) == 0 {
                        continue;
                    }
                    let mut instead = game.clone();
                    if instead.try_play(p).is_err() {
                        continue;
                    }
                    tried += 1;
                    // The move played is proven lost, whatever the check finds.
                    if p != m
                        && (instead.is_over() || solve_vct_counted(&instead, check).0.is_none())
                    {
                        held.push(p);
                    }
                }
                return Verdict::LostAt {
                    move_number: i + 1,
                    nodes: spent,
                    held,
                    tried,
                };
            }
        }
        if game.try_play(m).is_err() {
            break;
        }
    }
    Verdict::NotFound
}

/// The suite's line for the position `game` before the losing move
/// `played`.
fn suite_line(game: &Game, played: Pos, held: &[Pos]) -> Result<String, String> {
    let size = game.rules().size;
    let code = PositionCode::from_game(game, "free").map_err(|e| e.to_string())?;
    let held: Vec<String> = held.iter().map(|&p| format_pos(p, size)).collect();
    Ok(format!(
        "{code}\t{}\t{}\n",
        format_pos(played, size),
        held.join(" ")
    ))
}

/// Runs `caro analyse losses`.
///
/// # Errors
/// A [`UsageError`] for a game file that cannot be read or is not a game
/// of the player's, or a suite file that cannot be opened or written.
pub fn run(args: &LossesArgs) -> Result<(), UsageError> {
    let games = read_saved_games(&args.games, &args.player)?;
    let mut suite = args
        .suite
        .as_ref()
        .map(|path| {
            File::options()
                .create(true)
                .append(true)
                .open(path)
                .map(|f| (path, f))
                .map_err(|e| UsageError(format!("cannot open {}: {e}", path.display())))
        })
        .transpose()?;
    for saved in games {
        if saved.result != PlayerResult::Lost {
            continue;
        }
        let path = saved.path.display();
        let (record, mut game, mine) = (saved.record, saved.start, saved.mine);
        match examine(&mut game, &record.moves, mine, args.nodes, args.check_nodes) {
            Verdict::LostAt {
                move_number,
                nodes,
                held,
                tried,
            } => {
                say!(
                    "{path}: {} moves, lost at move {move_number} (proof {nodes} nodes), {} of {tried} points held",
                    record.moves.len(),
                    held.len()
                );
                if let Some((suite_path, file)) = suite.as_mut() {
                    // `examine` leaves the game just before the losing move.
                    let played = record.moves[move_number - 1];
                    match suite_line(&game, played, &held) {
                        Ok(line) => file.write_all(line.as_bytes()).map_err(|e| {
                            UsageError(format!("cannot write {}: {e}", suite_path.display()))
                        })?,
                        Err(e) => eprintln!("{path}: not written to the suite: {e}"),
                    }
                }
            }
            Verdict::NotFound => say!(
                "{path}: {} moves, no losing move proven",
                record.moves.len()
            ),
        }
    }
    Ok(())
}
