//! `caro analyse defend`: how often caro finds a move that holds, in
//! positions where it once played a losing one.
//!
//! A defence suite (as `caro analyse losses --suite` writes it) holds one
//! position a line: a position code, a tab, the move once played there
//! (after which the opponent's win by threats was proven), a tab, and the
//! points after which the threat solver found no such win. caro at level
//! 10 searches each position within `--limit`, and the line says whether
//! its move is among the points that held; the summary counts them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use caro_core::code::PositionCode;
use caro_core::notation::{format_pos, parse_pos};
use caro_core::{Game, Pos};
use caro_engine::search::CaroPlayer;
use caro_engine::{Context, Limits, Player, SearchInfo, StopFlag};
use clap::Args;

use crate::out::say;
use crate::UsageError;

/// What `caro analyse defend --help` ends with.
pub const EXAMPLES: &str = "\
Each line gives the suite's line number, held or lost, caro's move, the \
move once played and how many points held; the last line counts the \
positions held. The points that held are an upper bound (a deeper win \
may still follow them), and a suite is made of one build's mistakes, so \
any change of the search moves the count: a set of positions to study \
defence in, not a score to tune by (docs/benchmarks.md, \"Defence \
suite\").

Examples:
  caro analyse defend bench/defence-freestyle15.txt                  # 1 s a position
  caro analyse defend bench/defence-freestyle15.txt --limit 200000   # nodes: the same every run";

/// Options of `caro analyse defend`.
#[derive(Args, Debug)]
pub struct DefendArgs {
    /// The defence suite: one position a line, as `caro analyse losses
    /// --suite` writes it (`#` comments).
    #[arg(value_name = "SUITE")]
    suite: PathBuf,
    /// The search's limit in each position: a time (`1s`, `500ms`) or a
    /// node count (`500000`: the same moves every run).
    #[arg(long, default_value = "1s", value_name = "TIME|NODES", value_parser = parse_limit)]
    limit: Limits,
}

/// `--limit`: a time with its unit (`1s`, `1.5s`, `500ms`) or a number of
/// nodes.
///
/// # Errors
/// A [`UsageError`] for anything else, or a limit of nothing.
fn parse_limit(text: &str) -> Result<Limits, UsageError> {
    let bad = || {
        UsageError(format!(
            "bad limit {text:?}: expected a time such as 1s or 500ms, or a node count such as 500000"
        ))
    };
    let t = text.trim();
    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        let nodes = t.parse::<u64>().map_err(|_| bad())?;
        if nodes == 0 {
            return Err(bad());
        }
        return Ok(Limits {
            nodes: Some(nodes),
            ..Limits::default()
        });
    }
    let (number, scale) = if let Some(ms) = t.strip_suffix("ms") {
        (ms, 0.001)
    } else if let Some(s) = t.strip_suffix('s') {
        (s, 1.0)
    } else {
        return Err(bad());
    };
    let secs = number.trim().parse::<f64>().map_err(|_| bad())? * scale;
    if !secs.is_finite() || secs <= 0.0 || secs > 86_400.0 {
        return Err(bad());
    }
    Ok(Limits::time(Duration::from_secs_f64(secs)))
}

/// One position of a suite.
struct Case {
    /// Its line in the file (from 1).
    line: usize,
    game: Game,
    played: Pos,
    held: Vec<Pos>,
}

/// Every position of the suite at `path`, checked before any is searched.
///
/// # Errors
/// A [`UsageError`] naming the file and line for a file that cannot be
/// read, a line that is not `CODE<tab>MOVE<tab>POINTS`, a code that is not
/// one, a point off the board, or a file with no position.
fn read_suite(path: &Path) -> Result<Vec<Case>, UsageError> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read {shown}: {e}")))?;
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate().map(|(n, l)| (n + 1, l)) {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |what: String| UsageError(format!("{shown} line {n}: {what}"));
        let mut fields = line.split('\t');
        let (Some(code), Some(played)) = (fields.next(), fields.next()) else {
            return Err(at("not CODE<tab>MOVE<tab>POINTS".to_string()));
        };
        let game = code
            .trim()
            .parse::<PositionCode>()
            .and_then(|c| c.to_game())
            .map_err(|e| at(e.to_string()))?;
        if game.is_over() {
            return Err(at("the game is over in this position".to_string()));
        }
        let size = game.size();
        let point = |p: &str| parse_pos(p, size).map_err(|e| at(format!("{p}: {e}")));
        let played = point(played.trim())?;
        let held = fields
            .next()
            .unwrap_or("")
            .split_whitespace()
            .map(point)
            .collect::<Result<Vec<_>, _>>()?;
        cases.push(Case {
            line: n,
            game,
            played,
            held,
        });
    }
    if cases.is_empty() {
        return Err(UsageError(format!("{shown} holds no positions")));
    }
    Ok(cases)
}

/// Runs `caro analyse defend`.
///
/// # Errors
/// A [`UsageError`] for a suite that cannot be read or has a bad line, or
/// a search that fails.
pub fn run(args: &DefendArgs) -> Result<(), UsageError> {
    let cases = read_suite(&args.suite)?;
    let (mut held, mut same, mut total) = (0, 0, 0);
    for case in cases {
        let size = case.game.size();
        let mut player = CaroPlayer::new(10, 0);
        let mut sink = |_: &SearchInfo| {};
        let mut ctx = Context::new(args.limit, StopFlag::new(), &mut sink);
        let choice = player
            .choose(&case.game, &mut ctx)
            .map_err(|e| UsageError(format!("{} line {}: {e}", args.suite.display(), case.line)))?;
        let choice = choice.best;
        total += 1;
        let holds = case.held.contains(&choice);
        held += usize::from(holds);
        same += usize::from(choice == case.played);
        say!(
            "{:>3} {} {:<4} (played {}, {} held)",
            case.line,
            if holds { "held" } else { "lost" },
            format_pos(choice, size),
            format_pos(case.played, size),
            case.held.len()
        );
    }
    say!("{held} of {total} held ({same} the move once played)");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_is_a_time_or_a_node_count() {
        assert_eq!(
            parse_limit("1s").unwrap().move_time,
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            parse_limit("500ms").unwrap().move_time,
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            parse_limit("1.5s").unwrap().move_time,
            Some(Duration::from_millis(1500))
        );
        let nodes = parse_limit("200000").unwrap();
        assert_eq!((nodes.nodes, nodes.move_time), (Some(200_000), None));
        for bad in [
            "",
            "0",
            "0s",
            "fast",
            "1h",
            "-1s",
            "1e400s",
            "99999999999999999999",
        ] {
            let e = parse_limit(bad).unwrap_err();
            assert!(e.0.contains("bad limit"), "{bad}: {e}");
        }
    }
}
