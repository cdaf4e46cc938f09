//! `caro play`: a game in the terminal, full screen or line by line.

use std::io::IsTerminal;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use caro_core::opening::Opening;
use caro_engine::Limits;
use caro_tui::session::{SeatKind, Session, SessionConfig};
use caro_tui::TuiError;
use clap::Args;

use crate::match_opening::refuse_gomocup_engines;
use crate::matchcmd::parse_duration;
use crate::players::parse_player;
use crate::rulesargs::RulesArgs;
use crate::UsageError;

/// What `caro play --help` ends with.
pub const EXAMPLES: &str = "\
Full screen: the arrow keys or h j k l move the cursor; Enter, space or a \
click places a stone; u undo, r redo, n new game, R resign, p pause the \
computers, q quit (y to confirm); in a swap opening b, w or t take black, \
take white or place two more; in a renju opening (soosorv8, taraguchi10) \
typing a number declares how many 5th moves to offer (Enter ends it when \
another digit could follow), f places the 5th stone and o offers ten, and \
offers and the pick are points. With --match N the players take turns to open \
(play black) and the score is shown; n starts the next game (line mode and \
two computers go on by themselves). Line mode reads a point such as h8 (on 3x3 also 1 to 9) \
or undo, redo, new, board, resign, help, quit. docs/terminal.md has more.

Examples:
  caro play                                      # you (black) against caro:5, 15x15 freestyle
  caro play --size 3 --white minimax:4           # tic-tac-toe against a perfect player
  caro play --rule renju --opening swap2 --black caro:7 --white human
  caro play --rule renju --opening soosorv8 --white caro:7   # you open renju's Soosõrv-8
  caro play --size 20 --rule caro --black caro:10 --white scoremap   # watch two computers
  caro play --match 5 --white caro:4             # a match: first to 5 wins, colours alternate
  printf 'h8\\ni9\\n' | caro play --plain --white human               # line mode, moves piped in";

/// Options of `caro play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Opening: free, swap1, swap2, or with --rule renju soosorv8
    /// (soosorvN, N from 1 to 16) or taraguchi10 (with an opening other
    /// than free --black names the first player, who opens as the
    /// tentative black, and --white the second).
    #[arg(long, default_value = "free")]
    opening: String,
    /// Who plays black (moves first): human, or a computer player: random,
    /// scoremap, quintuple, minimax:N (0 to 4), caro:N (1 to 10) or
    /// pbrain:PATH (a Gomocup engine; not with soosorvN or taraguchi10,
    /// whose phases the Gomocup protocol cannot ask an engine for).
    #[arg(long, value_name = "PLAYER", default_value = "human")]
    black: String,
    /// Who plays white: human or a computer player, as for --black.
    #[arg(long, value_name = "PLAYER", default_value = "caro:5")]
    white: String,
    /// Time per computer move, such as 1s or 200ms.
    #[arg(long, value_name = "DURATION", default_value = "1s")]
    time: String,
    /// Depth limit per computer move (whichever of --time and --depth comes
    /// first).
    #[arg(long, value_name = "N")]
    depth: Option<u32>,
    /// Pause between moves when two computers play in full screen (none in
    /// line mode).
    #[arg(long, value_name = "DURATION", default_value = "500ms")]
    delay: String,
    /// Seed of the computer players (default: from the clock, so games
    /// vary).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Threads of a computer move, 1 to 64 (caro uses more than one at
    /// level 10 only; default: every core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    threads: Option<u16>,
    /// Play a match: first to N wins (1 to 10; at most 2N-1 games). The
    /// players take turns to open: --black plays black (or opens a swap
    /// opening) in game 1, --white in game 2, and so on.
    #[arg(long = "match", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10))]
    first_to: Option<u32>,
    /// Line mode: print the board, read moves such as h8 line by line
    /// (automatic when stdin or stdout is not a terminal).
    #[arg(long)]
    plain: bool,
}

/// `human`, or a computer player by name.
fn seat(name: &str) -> Result<SeatKind, UsageError> {
    if name.trim().eq_ignore_ascii_case("human") {
        Ok(SeatKind::Human)
    } else {
        Ok(SeatKind::Computer(parse_player(name)?))
    }
}

fn clock_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
}

/// The session the flags describe.
fn config(args: &PlayArgs) -> Result<SessionConfig, UsageError> {
    let rules = args.rules.rules()?;
    let opening: Opening = args
        .opening
        .parse()
        .map_err(|e: caro_core::opening::OpeningError| UsageError(e.to_string()))?;
    refuse_gomocup_engines(opening, &[&args.black, &args.white])?;
    let mut config = SessionConfig::new(rules, seat(&args.black)?, seat(&args.white)?);
    config.opening = opening;
    config.first_to = args.first_to;
    config.limits = Limits {
        move_time: Some(parse_duration(&args.time)?),
        depth: args.depth,
        threads: Some(args.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get().min(64)),
            usize::from,
        )),
        ..Limits::default()
    };
    config.computer_delay = parse_duration(&args.delay)?;
    config.seed = args.seed.unwrap_or_else(clock_seed);
    Ok(config)
}

fn usage(e: TuiError) -> UsageError {
    UsageError(e.to_string())
}

/// Runs `caro play`.
pub fn run(args: &PlayArgs) -> Result<(), UsageError> {
    let mut config = config(args)?;
    let plain = args.plain || !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal();
    if plain {
        // Nobody watches a pipe: computers move at once.
        config.computer_delay = Duration::ZERO;
        let mut session = Session::new(config).map_err(usage)?;
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        let input = stdin.lock();
        let output = stdout.lock();
        if stdin.is_terminal() {
            caro_tui::plain::run_plain(&mut session, input, output).map_err(usage)
        } else {
            caro_tui::plain::run_plain_echoing(&mut session, input, output).map_err(usage)
        }
    } else {
        let session = Session::new(config).map_err(usage)?;
        caro_tui::screen::run_fullscreen(session).map_err(usage)
    }
}
