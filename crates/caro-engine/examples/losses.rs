//! Where a player's lost games were lost, by the threat solver.
//!
//! ```text
//! cargo run --release -p caro-engine --example losses -- [--suite FILE] NAME NODES CHECK_NODES GAME.psq...
//! ```
//!
//! For each game (a `.psq` file as `caro match --psq` writes it) that the
//! player whose name contains NAME lost, finds the first of its moves
//! after which `solve_vct` proves a win for the opponent within NODES
//! nodes, and prints that move's number, the nodes the proof took, and how
//! many of the empty points near a stone (`state::NEAR`) the player could have
//! played instead without such a proof within CHECK_NODES (an upper bound
//! on the moves that held: a deeper win may still follow them). Games
//! the player won or drew are skipped.
//!
//! With `--suite FILE`, each position before a losing move is also
//! appended to FILE as one line: the position code (as `caro position
//! --code` reads it), a tab, the move played, a tab, and the points that
//! held, separated by spaces: a defence suite for the `defend` example.

use std::io::Write;

use caro_core::code::PositionCode;
use caro_core::notation::format_pos;
use caro_core::{Game, Pos};
use caro_engine::search::solve_vct_counted;
use caro_engine::state::State;

mod common;

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

/// Appends the position before the losing move `played` to the suite.
fn write_suite_line(
    suite: &mut std::fs::File,
    game: &Game,
    played: Pos,
    held: &[Pos],
) -> std::io::Result<()> {
    let size = game.rules().size;
    let code = PositionCode::from_game(game, "free")
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let held: Vec<String> = held.iter().map(|&p| format_pos(p, size)).collect();
    writeln!(
        suite,
        "{code}\t{}\t{}",
        format_pos(played, size),
        held.join(" ")
    )
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut suite = None;
    if args.first().is_some_and(|a| a == "--suite") && args.len() > 1 {
        let path = args[1].clone();
        args.drain(..2);
        match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        {
            Ok(f) => suite = Some(f),
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        }
    }
    let parsed = match args.as_slice() {
        [name, nodes, check, files @ ..] => nodes
            .parse::<u64>()
            .ok()
            .zip(check.parse::<u64>().ok())
            .map(|(n, c)| (name, n, c, files)),
        _ => None,
    };
    let Some((name, nodes, check, files)) = parsed else {
        eprintln!("usage: losses [--suite FILE] NAME NODES CHECK_NODES GAME.psq...");
        std::process::exit(2);
    };
    for path in files {
        let Some(saved) = common::read_saved_game(path, name) else {
            continue;
        };
        if saved.result != common::PlayerResult::Lost {
            continue;
        }
        let (record, mut game, mine) = (saved.record, saved.start, saved.mine);
        match examine(&mut game, &record.moves, mine, nodes, check) {
            Verdict::LostAt {
                move_number,
                nodes,
                held,
                tried,
            } => {
                println!(
                    "{path}: {} moves, lost at move {move_number} (proof {nodes} nodes), {} of {tried} points held",
                    record.moves.len(),
                    held.len()
                );
                if let Some(file) = suite.as_mut() {
                    // `examine` leaves the game just before the losing move.
                    let played = record.moves[move_number - 1];
                    if let Err(e) = write_suite_line(file, &game, played, &held) {
                        eprintln!("{path}: not written to the suite: {e}");
                    }
                }
            }
            Verdict::NotFound => println!(
                "{path}: {} moves, no losing move proven",
                record.moves.len()
            ),
        }
    }
}
