//! `caro match`, `caro bench` and `caro position --best` driven through the
//! real binary.

use std::process::Command;

use serde_json::Value;

fn caro(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_caro"))
        .args(args)
        .output()
        .expect("run caro")
}

/// Runs caro and checks that it succeeded.
fn succeed(args: &[&str]) -> std::process::Output {
    let out = caro(args);
    assert!(
        out.status.success(),
        "caro {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn last_json(out: &std::process::Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().expect("output");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

#[test]
fn a_match_reports_its_totals_and_saves_every_game() {
    let dir = std::env::temp_dir().join(format!("caro-match-{}", std::process::id()));
    let out = succeed(&[
        "match",
        "caro:3",
        "random",
        "--games",
        "4",
        "--depth",
        "2",
        "--size",
        "9",
        "--rule",
        "caro",
        "-j",
        "2",
        "--json",
        "--psq",
        dir.to_str().unwrap(),
    ]);
    let v = last_json(&out);
    assert_eq!(v["games"], 4);
    let a = v["a_wins"].as_u64().unwrap();
    let b = v["b_wins"].as_u64().unwrap();
    let d = v["draws"].as_u64().unwrap();
    assert_eq!(a + b + d, 4);
    let score = v["score"].as_f64().unwrap();
    assert!((score - (a as f64 + d as f64 / 2.0) / 4.0).abs() < 1e-9);
    assert!(v["elo"].as_f64().unwrap().is_finite());
    assert!(v["elo_error"].as_f64().unwrap() >= 0.0);
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(files.len(), 4);
    // Every saved game reads back as a legal game.
    for f in files {
        let path = f.unwrap().path();
        let check = caro(&["position", "--psq", path.to_str().unwrap(), "--json"]);
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stderr)
        );
        let g = last_json(&check);
        assert_eq!(g["rule"], "caro");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_match_reports_results_by_colour_and_by_opening() {
    let dir = std::env::temp_dir().join(format!("caro-by-opening-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let openings = dir.join("openings.txt");
    std::fs::write(&openings, "# two openings\ne5 d4\n\ne5 f5 g7\n").unwrap();
    let report = dir.join("by-opening.tsv");
    let out = succeed(&[
        "match",
        "caro:3",
        "random",
        "--games",
        "6",
        "--depth",
        "2",
        "--size",
        "9",
        "--openings",
        openings.to_str().unwrap(),
        "--by-opening",
        report.to_str().unwrap(),
        "--json",
    ]);
    let v = last_json(&out);
    let games = |c: &Value| {
        ["wins", "losses", "draws"]
            .iter()
            .map(|k| c[*k].as_u64().unwrap())
            .sum::<u64>()
    };
    // Colours alternate: A is black in games 1, 3 and 5.
    assert_eq!(games(&v["a_as_black"]), 3);
    assert_eq!(games(&v["a_as_white"]), 3);
    assert_eq!(
        v["a_as_black"]["wins"].as_u64().unwrap() + v["a_as_white"]["wins"].as_u64().unwrap(),
        v["a_wins"].as_u64().unwrap()
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("caro:3 as black: "), "{stdout}");
    // Each opening is played twice in turn: the first in games 1-2 and
    // 5-6, the second in games 3-4.
    let text = std::fs::read_to_string(&report).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(rows[0][0], "e5 d4");
    assert_eq!(rows[1][0], "e5 f5 g7");
    assert_eq!(rows[0][1], "4");
    assert_eq!(rows[1][1], "2");
    let mut a_points = 0.0;
    for row in &rows {
        let n: Vec<u32> = row[1..5].iter().map(|x| x.parse().unwrap()).collect();
        assert_eq!(n[1] + n[2] + n[3], n[0], "{text}");
        a_points += row[5].parse::<f64>().unwrap() * f64::from(n[0]);
    }
    let score = v["score"].as_f64().unwrap();
    assert!((a_points / 6.0 - score).abs() < 0.01, "{text} vs {score}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn level_ten_plays_with_helper_threads() {
    let out = succeed(&[
        "match",
        "caro:10",
        "caro:9",
        "--games",
        "2",
        "--time",
        "30ms",
        "--threads",
        "2,1",
        "--json",
    ]);
    assert_eq!(last_json(&out)["games"], 2);
}

#[test]
fn match_refuses_bad_players_and_options() {
    for args in [
        vec!["match", "caro:11", "random"],
        vec!["match", "stockfish", "random"],
        vec!["match", "random", "random", "--time", "soon"],
        vec!["match", "random", "random", "--size", "2"],
        vec!["match", "random", "random", "--rule", "chess"],
        vec!["match", "random", "random", "--threads", "0"],
        vec!["match", "random", "random", "--threads", "2,many"],
    ] {
        let out = caro(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn position_best_finds_the_winning_move() {
    let out = caro(&[
        "position",
        "--moves",
        "h8 a1 i8 a2 j8 a3 k8 a15",
        "--best",
        "--depth",
        "3",
        "--json",
    ]);
    assert!(out.status.success());
    let v = last_json(&out);
    let m = v["best"]["move"].as_str().unwrap();
    assert!(m == "g8" || m == "l8", "{v}");
}

#[test]
fn position_solve_finds_a_win_by_threats() {
    // Okabe's 5-moves-to-end problem No. 2 (renju-note/quintet's
    // test_vct_black): black has no VCF but wins by threats from f10.
    let out = caro(&[
        "position",
        "--rule",
        "renju",
        "--moves",
        "h8 g8 h9 h7 h10 i9 i7 i11 j9 j8",
        "--solve",
        "--json",
    ]);
    assert!(out.status.success());
    let v = last_json(&out);
    assert_eq!(v["solve"]["win"], "vct", "{v}");
    assert_eq!(v["solve"]["move"], "f10", "{v}");
}

#[test]
fn position_solve_says_when_there_is_no_win() {
    let out = caro(&["position", "--moves", "h8 i9", "--solve"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("solve: no win by fours or threats found for black"),
        "{text}"
    );
}

#[test]
fn bench_prints_a_signature() {
    let out = caro(&["bench", "--depth", "2", "--json"]);
    assert!(out.status.success());
    let v = last_json(&out);
    assert!(v["nodes"].as_u64().unwrap() > 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("bench signature:"));
}

/// The search's node count over the bench positions at depth 4. A change
/// that alters search behaviour changes it: state the new signature in the
/// commit message and update it here (the Stockfish/Rapfi habit).
const BENCH_SIGNATURE_DEPTH_4: u64 = 150_713;

#[test]
fn bench_signature_is_pinned() {
    let out = caro(&["bench", "--depth", "4", "--json"]);
    assert!(out.status.success());
    let v = last_json(&out);
    assert_eq!(v["nodes"].as_u64().unwrap(), BENCH_SIGNATURE_DEPTH_4);
}

/// The openings shipped in `openings/`: every balanced opening is one of
/// the candidates, three stones with white to move, and `caro match`
/// accepts the file (it checks every opening before the first game).
#[test]
fn the_shipped_balanced_openings_are_candidates_and_legal() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../openings");
    let lines = |name: &str| -> Vec<String> {
        std::fs::read_to_string(dir.join(name))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(str::to_owned)
            .collect()
    };
    let candidates = lines("freestyle15-candidates.txt");
    let balanced = lines("freestyle15-balanced.txt");
    assert_eq!(candidates.len(), 120);
    assert_eq!(balanced.len(), 49);
    for b in &balanced {
        assert!(candidates.contains(b), "{b} is not a candidate");
        assert_eq!(b.split_whitespace().count(), 3, "{b}");
    }
    let file = dir.join("freestyle15-balanced.txt");
    let out = succeed(&[
        "match",
        "random",
        "random",
        "--openings",
        file.to_str().unwrap(),
        "--games",
        "2",
        "--json",
    ]);
    assert_eq!(last_json(&out)["games"], 2);
}
