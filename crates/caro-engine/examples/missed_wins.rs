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
use caro_engine::search::{solve_vct_within, VctVerdict, DEFAULT_SOLVE_TABLE_MB};

mod common;

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
        let Some(saved) = common::read_saved_game(path, name) else {
            continue;
        };
        if saved.result == common::PlayerResult::Won && !all {
            continue;
        }
        let (record, mut game, mine) = (saved.record, saved.start, saved.mine);
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
                    VctVerdict::NoWin => marks.push('.'),
                    VctVerdict::NotFound => marks.push('?'),
                }
                if !matches!(solved.verdict, VctVerdict::Win(_)) {
                    missed.extend(last_win.take());
                }
            }
            if game.try_play(m).is_err() {
                break;
            }
        }
        println!(
            "{path}: {} as {}, {} moves: {marks}",
            saved.result.word(),
            if saved.mine_black { "black" } else { "white" },
            record.moves.len()
        );
        for (at, proof, first, played) in missed {
            println!("  move {at}: a win ({proof} nodes, {first}) let go by {played}");
        }
    }
}
