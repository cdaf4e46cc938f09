//! `caro`: Caro, Gomoku, Renju and tic-tac-toe from the command line.

mod analyse;
mod bench;
#[cfg(test)]
mod cli_docs;
mod db;
mod match_opening;
mod matchcmd;
mod movelists;
mod out;
mod play;
mod players;
mod position;
mod rulesargs;
mod selfplay;
mod serve;
mod train;
mod tune;
mod user;

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// What `caro --help` ends with.
const EXAMPLES: &str = "\
With no command, caro starts the web app (caro serve with its defaults). \
Each command's --help lists its options; docs/cli.md has them all.

Players, wherever one is named: random, scoremap, quintuple, minimax:N (0 \
to 4), caro:N (1 to 10, 10 the strongest) or pbrain:PATH (a Gomocup \
engine); caro play also takes human. Times: 100ms, 1s, 2.5s, 1m, or a \
number of milliseconds.

Examples:
  caro                                           # the web app: open http://127.0.0.1:8080/
  caro play --size 3 --white minimax:4           # tic-tac-toe in the terminal
  caro position --moves \"h8 i9 h9\" --best        # the engine's move in a position
  caro match caro:5 scoremap --games 10 --time 100ms
  caro help match                                # the options of one command";

/// Caro, Gomoku, Renju and tic-tac-toe: rules, engine, web app, terminal
/// game and Gomocup protocol in one binary.
#[derive(Parser, Debug)]
#[command(name = "caro", version, about, long_about = None, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Inspect a position: the board, side to move, result, winning line,
    /// forbidden points and legal moves.
    #[command(after_help = position::EXAMPLES)]
    Position(position::PositionArgs),
    /// Play in the terminal: a full-screen board, or a plain line mode
    /// (--plain, or when stdin or stdout is not a terminal).
    #[command(after_help = play::EXAMPLES)]
    Play(play::PlayArgs),
    /// Play a series between two computer players and report the score
    /// and Elo difference.
    #[command(after_help = matchcmd::EXAMPLES)]
    Match(Box<matchcmd::MatchArgs>),
    /// Search a fixed set of positions to a fixed depth: nodes, speed and
    /// a node-count signature.
    #[command(after_help = bench::EXAMPLES)]
    Bench(bench::BenchArgs),
    /// Speak the Gomocup (Piskvork) protocol on stdin and stdout, as the
    /// engine of a Gomocup manager or GUI (also installed as pbrain-caro).
    #[command(long_about = BRAIN_ABOUT, after_help = BRAIN_EXAMPLES)]
    Brain,
    /// Start the web app (the default when no subcommand is given).
    #[command(after_help = serve::EXAMPLES)]
    Serve(serve::ServeArgs),
    /// Analyse games and positions with the threat solvers: lost games,
    /// missed wins, a defence suite, proof checks.
    #[command(visible_alias = "analyze", after_help = analyse::EXAMPLES)]
    Analyse(analyse::AnalyseArgs),
    /// The games database: apply its migrations, or copy an SQLite file
    /// into PostgreSQL.
    #[command(after_help = db::EXAMPLES)]
    Db(db::DbArgs),
    /// Accounts: reset a password, disable or enable an account.
    #[command(after_help = user::EXAMPLES)]
    User(user::UserArgs),
    /// Training positions from games of caro against itself at a fixed
    /// node count, written to a binary file; or a file's summary.
    #[command(after_help = selfplay::EXAMPLES)]
    Selfplay(selfplay::SelfplayArgs),
    /// Fit the evaluation's point values to files of training positions
    /// and write them as Rust source for the engine.
    #[command(after_help = train::EXAMPLES)]
    Train(train::TrainArgs),
    /// Tune the search's run-time tunables by SPSA over game pairs of caro
    /// against itself at a fixed node count.
    #[command(after_help = tune::EXAMPLES)]
    Tune(tune::TuneArgs),
}

/// What `caro brain --help` says beyond its summary.
const BRAIN_ABOUT: &str = "\
Speak the Gomocup (Piskvork) protocol on standard input and output, as the \
engine of a Gomocup manager or GUI: Piskvork, Yixin's board, liskvork or the \
Gomocup tournament. It reads START, BEGIN, TURN, BOARD, INFO, END and the \
other commands, and answers each move as x,y.

The same engine is installed as pbrain-caro (target/release/pbrain-caro in a \
checkout), for managers that look for executables named pbrain-*: give them \
that path. docs/gomocup.md lists the commands understood.";

/// What `caro brain --help` ends with.
const BRAIN_EXAMPLES: &str = "\
Examples:
  caro brain                                     # then type START 15, BEGIN, ..., END
  printf 'INFO timeout_turn 500\\nSTART 15\\nTURN 7,7\\n' | caro brain   # OK, then its move as x,y";

/// A failure the user caused: printed as one line, exit status 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Position(args)) => position::run(&args),
        Some(Command::Play(args)) => play::run(&args),
        Some(Command::Match(args)) => matchcmd::run(&args),
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::Brain) => {
            caro_gomocup::brain::run(std::io::BufReader::new(std::io::stdin()), std::io::stdout());
            Ok(())
        }
        Some(Command::Serve(args)) => serve::run(&args),
        Some(Command::Analyse(args)) => analyse::run(&args),
        Some(Command::Db(args)) => db::run(&args),
        Some(Command::User(args)) => user::run(&args),
        Some(Command::Selfplay(args)) => selfplay::run(&args),
        Some(Command::Train(args)) => train::run(&args),
        Some(Command::Tune(args)) => tune::run(&args),
        None => serve::run(&serve::ServeArgs::defaults()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Not eprintln!, which panics when standard error is closed.
            let _ = writeln!(std::io::stderr(), "error: {e}");
            ExitCode::from(2)
        }
    }
}
