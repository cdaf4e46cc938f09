//! `caro analyse check-proofs`: the threat solver's proofs checked one
//! move deep against every reply.
//!
//! For each position the solver looks for a win by threats (VCT) within
//! `--nodes`; where it finds one, its first move is played and the solver
//! runs again after every legal reply of the other side. A reply after
//! which the solver *rules out* a win (every threat searched and refuted)
//! shows the first proof was wrong, and is printed as `ESCAPE`; a reply
//! after which it finds none within `--nodes` is printed as `unsure`.

use std::path::PathBuf;

use caro_core::notation::format_pos;
use caro_core::{Color, Game};
use caro_engine::search::{solve_vct_within, VctVerdict};
use clap::Args;

use crate::movelists::read_move_lists;
use crate::out::say;
use crate::rulesargs::RulesArgs;
use crate::UsageError;

/// Proof table size for each search, in MiB.
const TABLE_MB: usize = 256;

/// What `caro analyse check-proofs --help` ends with.
pub const EXAMPLES: &str = "\
Each position's line gives its number and the solver's first move, then \
\"holds against every reply\" or the replies that escaped (ESCAPE: the \
solver rules the win out after them, so the proof was wrong) or were not \
settled (unsure: no win found within --nodes). The last line counts both.

Examples:
  caro analyse check-proofs bench/vct-renju15.txt --rule renju
  caro analyse check-proofs bench/vct-freestyle15.txt --nodes 100000 --first 1 --last 20";

/// Options of `caro analyse check-proofs`.
#[derive(Args, Debug)]
pub struct CheckProofsArgs {
    /// The positions: one move list per line (`h8 i9 j10`, black first,
    /// `#` comments), as in the repository's `bench/vct-*.txt`.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Node limit of each search: the one for the win and the one after
    /// each reply.
    #[arg(long, default_value_t = 300_000)]
    nodes: u64,
    /// The first position checked (counted from 1, comments and blank
    /// lines left out).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    first: u64,
    /// The last position checked (default: the file's last).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    last: Option<u64>,
    /// The board and rule of the positions (default 15×15 freestyle).
    #[command(flatten)]
    rules: RulesArgs,
}

/// Runs `caro analyse check-proofs`.
///
/// # Errors
/// A [`UsageError`] for bad rules, a file that cannot be read, a move
/// list that is not one or does not make a game, or `--last` before
/// `--first`.
pub fn run(args: &CheckProofsArgs) -> Result<(), UsageError> {
    let rules = args.rules.rules()?;
    if args.last.is_some_and(|last| last < args.first) {
        return Err(UsageError("--last must not be before --first".to_string()));
    }
    let positions = read_move_lists(&args.file, rules.size, "positions")?;
    // Every position is checked before any is solved.
    let games = positions
        .iter()
        .map(|(line, moves)| {
            Game::from_moves(rules, Color::Black, moves)
                .map_err(|e| UsageError(format!("{} line {line}: {e}", args.file.display())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let last = args.last.unwrap_or(u64::MAX);
    let (mut escapes, mut unsure) = (0, 0);
    for (n, game) in (1u64..).zip(&games) {
        if n < args.first || n > last {
            continue;
        }
        let Some(win) = solve_vct_within(game, args.nodes, TABLE_MB).win() else {
            say!("{n}: no win found");
            continue;
        };
        let attacker = game.to_move();
        let mut after = game.clone();
        if after.try_play(win).is_err() {
            say!(
                "{n}: the solver's move {} is illegal",
                format_pos(win, rules.size)
            );
            escapes += 1;
            continue;
        }
        let mut marks = Vec::new();
        for reply in after.legal_moves() {
            let mut g = after.clone();
            if g.try_play(reply).is_err() {
                continue;
            }
            if let Some(o) = g.outcome() {
                if o.winner() != Some(attacker) {
                    marks.push(format!(
                        "ESCAPE {} (game over)",
                        format_pos(reply, rules.size)
                    ));
                    escapes += 1;
                }
                continue;
            }
            match solve_vct_within(&g, args.nodes, TABLE_MB).verdict {
                VctVerdict::Win(_) => {}
                VctVerdict::NoWin => {
                    marks.push(format!("ESCAPE {}", format_pos(reply, rules.size)));
                    escapes += 1;
                }
                VctVerdict::NotFound => {
                    marks.push(format!("unsure {}", format_pos(reply, rules.size)));
                    unsure += 1;
                }
            }
        }
        say!(
            "{n}: {} {}",
            format_pos(win, rules.size),
            if marks.is_empty() {
                "holds against every reply".to_string()
            } else {
                marks.join(", ")
            }
        );
    }
    say!("escapes {escapes}, unsure {unsure}");
    Ok(())
}
