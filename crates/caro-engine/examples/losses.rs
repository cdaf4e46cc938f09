//! Where a player's lost games were lost, by the threat solver.
//!
//! ```text
//! cargo run --release -p caro-engine --example losses -- NAME NODES CHECK_NODES GAME.psq...
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
        held: usize,
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
                let mut held = 0;
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
                    if instead.is_over() || solve_vct_counted(&instead, check).0.is_none() {
                        held += 1;
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parsed = match args.as_slice() {
        [name, nodes, check, files @ ..] => nodes
            .parse::<u64>()
            .ok()
            .zip(check.parse::<u64>().ok())
            .map(|(n, c)| (name, n, c, files)),
        _ => None,
    };
    let Some((name, nodes, check, files)) = parsed else {
        eprintln!("usage: losses NAME NODES CHECK_NODES GAME.psq...");
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
            } => println!(
                "{path}: {} moves, lost at move {move_number} (proof {nodes} nodes), {held} of {tried} points held",
                record.moves.len()
            ),
            Verdict::NotFound => println!(
                "{path}: {} moves, no losing move proven",
                record.moves.len()
            ),
        }
    }
}
