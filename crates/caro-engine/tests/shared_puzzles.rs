//! The shared VCF and VCT puzzles (`vcf.txt`, `vct.txt` in ANCHOR FORMAT
//! v1), read from the folder named by `CARO_POSITIONS` (set by `.ci/run`).
//! Without it the tests pass and say the shared suites were skipped.

use std::collections::HashMap;
use std::time::Instant;

use caro_core::notation::{format_pos, parse_pos};
use caro_core::{BoardSize, Color, Game, GameSetup, Pos, Rule};
use caro_engine::search::{solve_vcf, solve_vct, solve_vct_counted};

fn records(file: &str) -> Option<Vec<HashMap<String, String>>> {
    let Some(dir) = std::env::var_os("CARO_POSITIONS") else {
        eprintln!("shared suites skipped: CARO_POSITIONS is not set (.ci/run sets it to ../shared/positions)");
        return None;
    };
    let path = std::path::Path::new(&dir).join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    Some(
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| {
                l.split_whitespace()
                    .filter_map(|t| t.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .collect(),
    )
}

fn points(r: &HashMap<String, String>, key: &str, size: BoardSize) -> Vec<Pos> {
    match r.get(key).map(String::as_str) {
        None | Some("-") => Vec::new(),
        Some(list) => list
            .split(',')
            .map(|p| parse_pos(p, size).unwrap())
            .collect(),
    }
}

/// The puzzle as a game with the attacker to move.
pub fn puzzle_game(r: &HashMap<String, String>) -> Game {
    let size = BoardSize::square(r["size"].parse().unwrap());
    let rule: Rule = r["rule"].parse().unwrap();
    let mut setup = GameSetup::new(size, 5, rule);
    for (key, color) in [("black", Color::Black), ("white", Color::White)] {
        for p in points(r, key, size) {
            setup.stones.push((p, color));
        }
    }
    if let Some(moves) = r.get("moves").filter(|m| *m != "-") {
        let mut color = Color::Black;
        for m in moves.split(',') {
            if m != "pass" {
                setup.stones.push((parse_pos(m, size).unwrap(), color));
            }
            color = color.opponent();
        }
    }
    setup.to_move = Some(r["to_move"].parse().unwrap());
    Game::from_setup(&setup).unwrap_or_else(|e| panic!("{}: {e}", r["id"]))
}

#[test]
fn every_vcf_puzzle_is_solved_and_no_win_is_invented() {
    let Some(recs) = records("vcf.txt") else {
        return;
    };
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for r in &recs {
        let game = puzzle_game(r);
        let size = game.size();
        let t = Instant::now();
        let found = solve_vcf(&game, 150, 20_000_000);
        let ms = t.elapsed().as_millis();
        let id = &r["id"];
        match (r["expect"].as_str(), found) {
            ("win", Some(m)) => {
                let firsts = points(r, "ref_win_first", size);
                if !firsts.is_empty() && !firsts.contains(&m) {
                    failures.push(format!(
                        "{id}: {} is not a winning first move",
                        format_pos(m, size)
                    ));
                }
            }
            ("win", None) => failures.push(format!("{id}: no VCF found")),
            ("nowin", Some(m)) => {
                failures.push(format!("{id}: claims a win with {}", format_pos(m, size)))
            }
            ("nowin", None) => {}
            (other, _) => panic!("{id}: unknown expect={other}"),
        }
        report.push(format!("{id} {ms} ms"));
    }
    eprintln!("vcf.txt timings:\n{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "{} of {}:\n{}",
        failures.len(),
        recs.len(),
        failures.join("\n")
    );
}

#[test]
fn vct_positions_have_no_pure_vcf() {
    let Some(recs) = records("vct.txt") else {
        return;
    };
    for r in &recs {
        if r.get("ref_vcf").map(String::as_str) == Some("none") {
            let game = puzzle_game(r);
            assert_eq!(solve_vcf(&game, 150, 5_000_000), None, "{}", r["id"]);
        }
    }
}

/// VCT puzzles the solver does not prove yet within [`SLOW_VCT_NODES`]
/// (none now). When the solver proves one, the test fails until it is
/// taken off this list.
const VCT_NOT_YET: [&str; 0] = [];

/// VCT puzzles solved, but too slowly for a debug build: like those not
/// solved yet, they are tried with `CARO_SLOW_PUZZLES=1`, with
/// [`SLOW_VCT_NODES`].
const VCT_SLOW: [&str; 2] = [
    "quintet:bench_vct_black",
    "quintet:bench_vct_small_but_long",
];

/// Node budget of one puzzle (a few seconds in a debug build).
const VCT_NODES: u64 = 3_000_000;

/// Node budget of the slow puzzles (a few seconds each in a release
/// build): the default of `caro position --solve`. The solver's searches
/// with a budget of threes share the nodes in rounds, so the limit no
/// longer decides which of them gets enough (`bench_vct_unstable`, proven
/// only with two threes, took a limit of 40M when each had a sixteenth).
const SLOW_VCT_NODES: u64 = 5_000_000;

#[test]
fn vct_puzzles_are_solved() {
    let Some(recs) = records("vct.txt") else {
        return;
    };
    let mut failures = Vec::new();
    for r in &recs {
        let id = r["id"].as_str();
        let not_yet = VCT_NOT_YET.contains(&id);
        let slow = not_yet || VCT_SLOW.contains(&id);
        if slow && std::env::var_os("CARO_SLOW_PUZZLES").is_none() {
            eprintln!("{id}: not tried (slow or not solved yet; CARO_SLOW_PUZZLES=1 tries it)");
            continue;
        }
        let game = puzzle_game(r);
        let t = Instant::now();
        let (found, nodes) =
            solve_vct_counted(&game, if slow { SLOW_VCT_NODES } else { VCT_NODES });
        eprintln!(
            "{id} {} ms, {nodes} nodes: {:?}",
            t.elapsed().as_millis(),
            found.map(|m| format_pos(m, game.size()))
        );
        match (found, not_yet) {
            (None, false) => failures.push(format!("{id}: no VCT found")),
            (Some(_), true) => failures.push(format!("{id}: solved now, take it off VCT_NOT_YET")),
            (Some(m), false) => {
                let mut g = game.clone();
                assert!(g.try_play(m).is_ok(), "{id}");
                // The winning move is a threat: the side to move had no VCF
                // (ref_vcf=none), so the game goes on.
                assert!(!g.is_over(), "{id}");
            }
            (None, true) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The solver's proof is checked one move deep against every reply, not
/// only the defences it generates itself: after its first move, whatever
/// the defender plays, the attacker still wins by threats. (On the short
/// puzzles; a reply that ends the game must not be a defender's win.)
#[test]
fn every_reply_to_a_short_vct_still_loses() {
    let Some(recs) = records("vct.txt") else {
        return;
    };
    for r in recs
        .iter()
        .filter(|r| r["src_depth"].parse::<u32>().is_ok_and(|d| d <= 5))
        .filter(|r| r["id"] != "quintet:test_vct_black")
    {
        let id = &r["id"];
        let game = puzzle_game(r);
        let m = solve_vct(&game, VCT_NODES).unwrap_or_else(|| panic!("{id}: no VCT"));
        let mut after = game.clone();
        after.try_play(m).unwrap();
        let attacker = game.to_move();
        let mut escapes = Vec::new();
        for reply in after.legal_moves() {
            let mut g = after.clone();
            g.try_play(reply).unwrap();
            let lost = match g.outcome() {
                Some(o) => o.winner() == Some(attacker),
                None => solve_vct(&g, VCT_NODES).is_some(),
            };
            if !lost {
                escapes.push(format_pos(reply, game.size()));
            }
        }
        assert!(
            escapes.is_empty(),
            "{id}: after {} these replies escape: {escapes:?}",
            format_pos(m, game.size())
        );
    }
}
