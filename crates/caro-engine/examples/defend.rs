//! How often caro finds a move that holds, in positions where it once
//! played a losing one.
//!
//! ```text
//! cargo run --release -p caro-engine --example defend -- SUITE LIMIT
//! ```
//!
//! SUITE is a defence suite as the `losses` example writes it (`--suite`):
//! one position a line, as a position code, a tab, the move once played
//! there (after which the opponent's win by threats was proven), a tab,
//! and the points after which the threat solver found no such win. LIMIT
//! is the search's limit per position: a time (`1s`, `500ms`) or a node
//! count (`500000`, deterministic). caro at level 10 searches each
//! position and the line says whether its move is among the points that
//! held; the summary counts them. The points that held are an upper bound
//! (a deeper win may still follow them), and a suite is made of one
//! build's mistakes, so any change of the search moves the count: a set
//! of positions to look at defence in, not a score to tune by (a match
//! stays the measure; BENCHMARKS.md, "A defence suite"). The limit is
//! parsed here: the `caro` binary's parser is above this crate.

use std::time::Duration;

use caro_core::code::PositionCode;
use caro_core::notation::{format_pos, parse_pos};
use caro_engine::player::{Context, Limits, Player, SearchInfo, StopFlag};
use caro_engine::search::CaroPlayer;

/// One position of a suite.
struct Case {
    code: String,
    played: String,
    held: Vec<String>,
}

fn parse_line(line: &str) -> Option<Case> {
    let mut fields = line.split('\t');
    let code = fields.next()?.trim().to_string();
    let played = fields.next()?.trim().to_string();
    let held = fields
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    Some(Case { code, played, held })
}

fn parse_limit(text: &str) -> Option<Limits> {
    if let Some(ms) = text.strip_suffix("ms") {
        return ms
            .parse()
            .ok()
            .map(|ms| Limits::time(Duration::from_millis(ms)));
    }
    if let Some(s) = text.strip_suffix('s') {
        return s
            .parse()
            .ok()
            .and_then(|s| Duration::try_from_secs_f64(s).ok())
            .map(Limits::time);
    }
    text.parse().ok().map(|n| Limits {
        nodes: Some(n),
        ..Limits::default()
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [suite, limit] = args.as_slice() else {
        eprintln!("usage: defend SUITE LIMIT (a time such as 1s or 500ms, or a node count)");
        std::process::exit(2);
    };
    let Some(limits) = parse_limit(limit) else {
        eprintln!("{limit}: not a time (1s, 500ms) or a node count");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(suite) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{suite}: {e}");
            std::process::exit(2);
        }
    };
    let (mut held, mut same, mut total) = (0, 0, 0);
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(case) = parse_line(line) else {
            eprintln!("{suite}:{}: not CODE<tab>MOVE<tab>POINTS", n + 1);
            continue;
        };
        let game = match case.code.parse::<PositionCode>().map(|c| c.to_game()) {
            Ok(Ok(game)) => game,
            Ok(Err(e)) | Err(e) => {
                eprintln!("{suite}:{}: {e}", n + 1);
                continue;
            }
        };
        let size = game.rules().size;
        // The suite's points, checked against the board before the search.
        if let Some(bad) = case
            .held
            .iter()
            .chain(std::iter::once(&case.played))
            .find(|p| parse_pos(p, size).is_err())
        {
            eprintln!("{suite}:{}: {bad} is not a point of the board", n + 1);
            continue;
        }
        let mut player = CaroPlayer::new(10, 0);
        let mut sink = |_: &SearchInfo| {};
        let mut ctx = Context::new(limits, StopFlag::new(), &mut sink);
        let choice = match player.choose(&game, &mut ctx) {
            Ok(d) => format_pos(d.best, size),
            Err(e) => {
                eprintln!("{suite}:{}: {e}", n + 1);
                continue;
            }
        };
        total += 1;
        let holds = case.held.contains(&choice);
        held += usize::from(holds);
        same += usize::from(choice == case.played);
        println!(
            "{:>3} {} {choice:<4} (played {}, {} held)",
            n + 1,
            if holds { "held" } else { "lost" },
            case.played,
            case.held.len()
        );
    }
    println!("{held} of {total} held ({same} the move once played)");
}
