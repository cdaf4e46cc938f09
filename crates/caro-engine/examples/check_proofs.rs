//! Checks the threat solver's proofs one move deep against every reply.
//!
//! ```text
//! cargo run --release -p caro-engine --example check_proofs -- RULE NODES FILE [FIRST [LAST]]
//! ```
//!
//! FILE holds positions on a 15×15 board under RULE (freestyle, standard,
//! renju, caro), one move list per line (`#` comments), black first, as
//! in `bench/`. For each position the solver looks for a win by threats
//! (VCT) within NODES nodes; where it finds one, its first move is
//! played and the solver runs again after every legal reply of the other
//! side. A reply after which the solver *rules out* a win (every threat
//! searched and refuted) shows the first proof was wrong, and is printed
//! as `ESCAPE`; a reply after which it finds none within NODES is printed
//! as `unsure`. Positions FIRST..=LAST (1-based) only, when given.

use caro_core::notation::{format_pos, parse_move_list};
use caro_core::{BoardSize, Color, Game, Rule, Rules};
use caro_engine::search::{solve_vct_within, VctVerdict};

/// Proof table size for each search, in MiB.
const TABLE_MB: usize = 256;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [rule, nodes, file, rest @ ..] = args.as_slice() else {
        eprintln!("usage: check_proofs RULE NODES FILE [FIRST [LAST]]");
        std::process::exit(2);
    };
    let rule: Rule = match rule.parse() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{rule}: {e}");
            std::process::exit(2);
        }
    };
    let Ok(nodes) = nodes.parse::<u64>() else {
        eprintln!("{nodes}: not a node count");
        std::process::exit(2);
    };
    let first = rest
        .first()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(1);
    let last = rest
        .get(1)
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(usize::MAX);
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{file}: {e}");
            std::process::exit(2);
        }
    };
    let Ok(rules) = Rules::new(BoardSize::square(15), 5, rule) else {
        eprintln!("no such board");
        std::process::exit(2);
    };
    let lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    let (mut escapes, mut unsure) = (0, 0);
    for (n, line) in lines.enumerate().map(|(n, l)| (n + 1, l)) {
        if n < first || n > last {
            continue;
        }
        let game = match parse_move_list(line, rules.size)
            .map_err(|(at, e)| format!("move {at}: {e}"))
            .and_then(|m| Game::from_moves(rules, Color::Black, &m).map_err(|e| e.to_string()))
        {
            Ok(g) => g,
            Err(e) => {
                eprintln!("position {n}: {e}");
                continue;
            }
        };
        let Some(win) = solve_vct_within(&game, nodes, TABLE_MB).win() else {
            println!("{n}: no win found");
            continue;
        };
        let attacker = game.to_move();
        let mut after = game.clone();
        if after.try_play(win).is_err() {
            println!(
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
            match solve_vct_within(&g, nodes, TABLE_MB).verdict {
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
        println!(
            "{n}: {} {}",
            format_pos(win, rules.size),
            if marks.is_empty() {
                "holds against every reply".to_string()
            } else {
                marks.join(", ")
            }
        );
    }
    println!("escapes {escapes}, unsure {unsure}");
}
