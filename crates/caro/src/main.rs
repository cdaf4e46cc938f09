//! `caro`: Caro, Gomoku, Renju and tic-tac-toe from the command line.

mod bench;
mod matchcmd;
mod movelists;
mod out;
mod play;
mod players;
mod position;
mod rulesargs;
mod serve;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Caro, Gomoku, Renju and tic-tac-toe: rules, engine, web app, terminal
/// game and Gomocup protocol in one binary.
#[derive(Parser, Debug)]
#[command(name = "caro", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Inspect a position: the board, side to move, result, winning line,
    /// forbidden points and legal moves.
    Position(position::PositionArgs),
    /// Play in the terminal: a full-screen board, or a plain line mode
    /// (--plain, or when stdin or stdout is not a terminal).
    Play(play::PlayArgs),
    /// Play a series between two computer players and report the score
    /// and Elo difference.
    Match(matchcmd::MatchArgs),
    /// Search a fixed set of positions to a fixed depth: nodes, speed and
    /// a node-count signature.
    Bench(bench::BenchArgs),
    /// Speak the Gomocup (Piskvork) protocol on stdin and stdout, as the
    /// engine of a Gomocup manager or GUI (also installed as pbrain-caro).
    Brain,
    /// Start the web app (the default when no subcommand is given).
    Serve(serve::ServeArgs),
}

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
        None => serve::run(&serve::ServeArgs::defaults()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
