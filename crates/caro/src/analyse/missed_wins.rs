//! `caro analyse missed-wins`: where a player let a win by threats go, by
//! the threat solver.
//!
//! For each game the player did not win (with `--all`, every game), a
//! line of marks, one per position where the player was to move (from its
//! second move on): `W` where `solve_vct` proves a win for it within
//! `--nodes`, `.` where it rules one out (every threat searched), `?`
//! where it finds none within the limit. Then, for each `W` followed by a
//! turn that is not one, the move number, the nodes the proof took, the
//! move the solver would start with and the move played: a win the player
//! held and let go.

use std::path::PathBuf;

use caro_core::notation::format_pos;
use caro_engine::search::{solve_vct_within, VctVerdict, DEFAULT_SOLVE_TABLE_MB};
use clap::Args;

use super::saved::{read_saved_games, PlayerResult, SavedGame};
use crate::out::say;
use crate::UsageError;

/// What `caro analyse missed-wins --help` ends with.
pub const EXAMPLES: &str = "\
Each game's line gives the player's result and colour, the game's length \
and one mark per turn of the player's from its second move on: W (a win \
by threats proven), . (none: every threat refuted) or ? (none found \
within --nodes). An indented line follows for each win let go: the move \
number, the proof's nodes and first move, and the move played instead.

Examples:
  caro match caro:10 caro:5 --games 20 --time 1s --psq games
  caro analyse missed-wins --player caro:10 games    # the games caro:10 drew or lost
  caro analyse missed-wins --player caro:10 --all --nodes 100000 games/game-0001.psq";

/// Options of `caro analyse missed-wins`.
#[derive(Args, Debug)]
pub struct MissedWinsArgs {
    /// The player whose turns are examined: any part of its name as the
    /// games give it (`caro:10`, `pbrain`).
    #[arg(long, value_name = "NAME")]
    player: String,
    /// Node limit of the solver's search for the player's win at each of
    /// its turns.
    #[arg(long, default_value_t = 1_000_000)]
    nodes: u64,
    /// Every game, also those the player won (by default only those it
    /// drew or lost).
    #[arg(long)]
    all: bool,
    /// The games: PSQ files as `caro match --psq` saves them, or folders
    /// of them (their `.psq` files, in name order).
    #[arg(required = true, value_name = "GAME")]
    games: Vec<PathBuf>,
}

/// Runs `caro analyse missed-wins`.
///
/// # Errors
/// A [`UsageError`] for a game file that cannot be read or is not a game
/// of the player's.
pub fn run(args: &MissedWinsArgs) -> Result<(), UsageError> {
    for saved in read_saved_games(&args.games, &args.player)? {
        if saved.result == PlayerResult::Won && !args.all {
            continue;
        }
        let SavedGame {
            path,
            record,
            start: mut game,
            mine_black,
            result,
            mine,
        } = saved;
        let size = game.size();
        let mut marks = String::new();
        let mut missed = Vec::new();
        let mut last_win: Option<(usize, u64, String, String)> = None;
        for (i, &m) in record.moves.iter().enumerate() {
            if i % 2 == mine && i >= 3 {
                let solved = solve_vct_within(&game, args.nodes, DEFAULT_SOLVE_TABLE_MB);
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
        say!(
            "{}: {} as {}, {} moves: {marks}",
            path.display(),
            result.word(),
            if mine_black { "black" } else { "white" },
            record.moves.len()
        );
        for (at, proof, first, played) in missed {
            say!("  move {at}: a win ({proof} nodes, {first}) let go by {played}");
        }
    }
    Ok(())
}
