//! `caro bench`: a fixed set of positions searched to a fixed depth; the
//! total node count is the search's signature.

use std::time::Instant;

use caro_core::notation::parse_move_list;
use caro_core::{BoardSize, Color, Game, Rule, Rules};
use caro_engine::search::CaroPlayer;
use caro_engine::{Context, Limits, Player, SearchInfo, StopFlag};
use clap::Args;
use serde_json::json;

use crate::UsageError;

/// The bench positions: (rule, side, move list). Openings and middle games
/// of every rule, on 15×15, 19×19 and 20×20.
pub const POSITIONS: [(Rule, u8, &str); 10] = [
    (Rule::Freestyle, 15, "h8"),
    (Rule::Freestyle, 15, "h8 i9 h10 g9 i10 j11"),
    (Rule::Freestyle, 15, "h8 h9 i7 g9 j6 k5 i9 i8 g7 f6 h6"),
    (Rule::Standard, 15, "h8 i8 g9 g7 i10 f10 j9 h9"),
    (Rule::Renju, 15, "h8 i9 j8 i8 i7 g9 h9 h10"),
    (Rule::Renju, 15, "h8 h9 j9 j8 f8 i7 g7 i9 h6 e9 f6 k7"),
    (Rule::Caro, 20, "j10 k11 k10 l10 j12 j11 i11 h12 l11"),
    (Rule::CaroStandard, 20, "j10 j11 k11 l12 k10 k12"),
    (Rule::Freestyle, 19, "j10 k11 k9 l10 j8 j9 m9"),
    (Rule::Standard, 15, "a1 o15 b2 n14 h8 i9"),
];

/// Options of `caro bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Depth searched in every position.
    #[arg(long, default_value_t = 7)]
    depth: u32,
    /// Print one JSON line at the end.
    #[arg(long)]
    json: bool,
}

/// Searches the bench positions; returns (total nodes, total seconds).
pub fn run(args: &BenchArgs) -> Result<(), UsageError> {
    let mut total_nodes = 0u64;
    let started = Instant::now();
    for (n, (rule, side, moves)) in POSITIONS.iter().enumerate() {
        let size = BoardSize::square(*side);
        let rules = Rules::new(size, 5, *rule).map_err(|e| UsageError(e.to_string()))?;
        let m = parse_move_list(moves, size)
            .map_err(|(i, e)| UsageError(format!("bench {n}: move {i}: {e}")))?;
        let game =
            Game::from_moves(rules, Color::Black, &m).map_err(|e| UsageError(e.to_string()))?;
        let mut player = CaroPlayer::new(10, 0);
        player.set_hash_mb(16);
        let mut last: Option<SearchInfo> = None;
        let mut sink = |i: &SearchInfo| last = Some(i.clone());
        let t = Instant::now();
        let mut ctx = Context::new(Limits::depth(args.depth), StopFlag::new(), &mut sink);
        let d = player
            .choose(&game, &mut ctx)
            .map_err(|e| UsageError(e.to_string()))?;
        let secs = t.elapsed().as_secs_f64();
        let nodes = last.as_ref().map_or(0, |i| i.nodes);
        total_nodes += nodes;
        println!(
            "{:>2} {:<13} {:>2}x{:<2} best {:<4} score {:<6} nodes {:>10} {:>8.3}s {:>9.0} nps",
            n + 1,
            rule.name(),
            side,
            side,
            caro_core::notation::format_pos(d.best, size),
            last.as_ref()
                .map_or("-".to_string(), |i| i.score.to_string()),
            nodes,
            secs,
            nodes as f64 / secs.max(1e-9)
        );
    }
    let secs = started.elapsed().as_secs_f64();
    let nps = total_nodes as f64 / secs.max(1e-9);
    println!(
        "depth {}: {total_nodes} nodes in {secs:.3}s, {nps:.0} nodes/s",
        args.depth
    );
    println!("bench signature: {total_nodes}");
    if args.json {
        println!(
            "{}",
            json!({"depth": args.depth, "nodes": total_nodes, "seconds": secs, "nps": nps})
        );
    }
    Ok(())
}
