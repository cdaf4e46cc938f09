//! Where a player let a win by threats go, by the threat solver.
//!
//! ```text
//! cargo run --release -p caro-engine --example missed_wins -- [--all] NAME NODES GAME.psq...
//! ```
//!
//! For each game (a `.psq` file as `caro match --psq` writes it) that the
//! player whose name contains NAME did not win (with `--all`, every
//! game), looks at every position
//! where that player was to move and prints a line of marks, one per
//! move: `W` where `solve_vct` proves a win for it within NODES nodes,
//! `.` where it rules one out (every threat searched), `?` where it finds
//! none within the limit. Then, for each `W` followed by a turn that is
//! not one, the move number, the nodes the proof took, the move the
//! solver would start with and the move played: a win the player held
//! and let go.

use caro_core::notation::format_pos;
use caro_core::psq::read_psq;
use caro_core::Color;
use caro_engine::search::{solve_vct_within, VctVerdict, DEFAULT_SOLVE_TABLE_MB};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let all = args.first().is_some_and(|a| a == "--all");
    if all {
        args.remove(0);
    }
    let parsed = match args.as_slice() {
        [name, nodes, files @ ..] => nodes.parse::<u64>().ok().map(|n| (name, n, files)),
        _ => None,
    };
    let Some((name, nodes, files)) = parsed else {
        eprintln!("usage: missed_wins [--all] NAME NODES GAME.psq...");
        std::process::exit(2);
    };
    for path in files {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let Some(players) = text.lines().find(|l| l.starts_with("black=")) else {
            eprintln!("{path}: no players line (not written by caro match)");
            continue;
        };
        let black = players.split_whitespace().next().unwrap_or("");
        let mine_black = black.contains(name.as_str());
        let won = if mine_black {
            players.contains("result=black_wins")
        } else {
            players.contains("result=white_wins")
        };
        if won && !all {
            continue;
        }
        let record = match read_psq(&text) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        let Ok(mut game) = record.to_game() else {
            eprintln!("{path}: the moves do not replay");
            continue;
        };
        while game.undo().is_some() {}
        let mine = usize::from((record.first == Color::Black) != mine_black);
        let size = game.size();
        let mut marks = String::new();
        let mut missed = Vec::new();
        let mut last_win: Option<(usize, u64, String, String)> = None;
        for (i, &m) in record.moves.iter().enumerate() {
            if i % 2 == mine && i >= 3 {
                let solved = solve_vct_within(&game, nodes, DEFAULT_SOLVE_TABLE_MB);
                let played = format_pos(m, size);
                match solved.verdict {
                    VctVerdict::Win(w) => {
                        marks.push('W');
                        last_win = Some((i + 1, solved.nodes, format_pos(w, size), played));
                    }
                    VctVerdict::NoWin | VctVerdict::NotFound => {
                        marks.push(if solved.verdict == VctVerdict::NoWin {
                            '.'
                        } else {
                            '?'
                        });
                        if let Some(w) = last_win.take() {
                            missed.push(w);
                        }
                    }
                }
            }
            if game.try_play(m).is_err() {
                break;
            }
        }
        let result = if won {
            "won"
        } else if players.contains("result=draw") {
            "drew"
        } else {
            "lost"
        };
        println!(
            "{path}: {result} as {}, {} moves: {marks}",
            if mine_black { "black" } else { "white" },
            record.moves.len()
        );
        for (at, proof, first, played) in missed {
            println!("  move {at}: a win ({proof} nodes, {first}) let go by {played}");
        }
    }
}
