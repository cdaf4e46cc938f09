//! `caro analyse`: games and positions read with the threat solvers.
//!
//! - `losses`: where a player's lost games were lost, and a defence
//!   suite made of them;
//! - `missed-wins`: where a player let a win by threats go;
//! - `defend`: how often caro finds a move that holds in a defence suite;
//! - `check-proofs`: the solver's proofs checked one move deep against
//!   every reply.

mod check_proofs;
mod defend;
mod losses;
mod missed_wins;
mod saved;

use clap::{Args, Subcommand};

use crate::UsageError;

/// What `caro analyse --help` ends with.
pub const EXAMPLES: &str = "\
The game tools read the PSQ files that caro match --psq saves; the \
position tools read the repository's bench/ files. Each tool's --help \
says what its lines mean.

Examples:
  caro match caro:10 caro:5 --games 20 --time 1s --psq games
  caro analyse losses --player caro:5 games
  caro analyse missed-wins --player caro:10 games
  caro analyse defend bench/defence-freestyle15.txt --limit 1s
  caro analyse check-proofs bench/vct-renju15.txt --rule renju";

/// Options of `caro analyse`.
#[derive(Args, Debug)]
pub struct AnalyseArgs {
    #[command(subcommand)]
    tool: Tool,
}

/// The tools of `caro analyse`.
#[derive(Subcommand, Debug)]
enum Tool {
    /// Where a player's lost games were lost: the first move after which
    /// the threat solver proves the opponent's win, and how many other
    /// points would have held.
    #[command(after_help = losses::EXAMPLES)]
    Losses(losses::LossesArgs),
    /// Where a player let a win by threats go: the solver at each of its
    /// turns, and the wins it had and played away from.
    #[command(after_help = missed_wins::EXAMPLES)]
    MissedWins(missed_wins::MissedWinsArgs),
    /// How often caro (level 10) finds a move that holds in a defence
    /// suite: positions where a move once played lost.
    #[command(after_help = defend::EXAMPLES)]
    Defend(defend::DefendArgs),
    /// Check the threat solver's proofs one move deep: after its first
    /// move, the solver again against every reply.
    #[command(after_help = check_proofs::EXAMPLES)]
    CheckProofs(check_proofs::CheckProofsArgs),
}

/// Runs `caro analyse`.
///
/// # Errors
/// A [`UsageError`] for input the tool cannot use, naming it.
pub fn run(args: &AnalyseArgs) -> Result<(), UsageError> {
    match &args.tool {
        Tool::Losses(a) => losses::run(a),
        Tool::MissedWins(a) => missed_wins::run(a),
        Tool::Defend(a) => defend::run(a),
        Tool::CheckProofs(a) => check_proofs::run(a),
    }
}
