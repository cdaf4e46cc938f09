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
    let (low, high) = (
        v["elo_low"].as_f64().unwrap(),
        v["elo_high"].as_f64().unwrap(),
    );
    let elo = v["elo"].as_f64().unwrap();
    assert!(low <= elo && elo <= high, "{low} {elo} {high}");
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

/// `caro position --solve --json` on Okabe's 5-moves-to-end problem No. 2
/// (renju-note/quintet's test_vct_black), with `extra` options: black has
/// no VCF but wins by threats from f10.
fn solve_okabe_2(extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "position",
        "--rule",
        "renju",
        "--moves",
        "h8 g8 h9 h7 h10 i9 i7 i11 j9 j8",
        "--solve",
        "--json",
    ];
    args.extend_from_slice(extra);
    caro(&args)
}

#[test]
fn position_solve_finds_a_win_by_threats() {
    let out = solve_okabe_2(&[]);
    assert!(out.status.success());
    let v = last_json(&out);
    assert_eq!(v["solve"]["win"], "vct", "{v}");
    assert_eq!(v["solve"]["move"], "f10", "{v}");
    // The main line starts with the move and ends on black's move (the
    // engine's tests check that it leaves white no defence); its moves
    // are legal in turn.
    let line: Vec<&str> = v["solve"]["line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(line.first(), Some(&"f10"), "{v}");
    assert_eq!(line.len() % 2, 1, "the line ends on black's move: {v}");
    let played = format!("h8 g8 h9 h7 h10 i9 i7 i11 j9 j8 {}", line.join(" "));
    let out = caro(&["position", "--rule", "renju", "--moves", &played, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = last_json(&out);
    assert_eq!(after["to_move"], "white", "{after}");
}

/// `--solve-mb` bounds the proof table: the smallest table still proves
/// the win, and a table of nothing is refused with a clear error.
#[test]
fn position_solve_takes_a_memory_limit() {
    let out = solve_okabe_2(&["--solve-mb", "1"]);
    assert!(out.status.success());
    let v = last_json(&out);
    assert_eq!(v["solve"]["move"], "f10", "{v}");
    let out = solve_okabe_2(&["--solve-mb", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--solve-mb"), "{err}");
}

/// `--solve` tells a position where every threat was searched and
/// refuted from one where the node budget ran out first.
#[test]
fn position_solve_says_when_there_is_no_win() {
    let out = caro(&["position", "--moves", "h8 i9", "--solve"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("solve: no win by fours or threats for black: every threat searched"),
        "{text}"
    );
    // Black must stop white's four at i10 first, and the block is no
    // threat of black's: no win by continuous threats, though white's
    // every move after it loses to one.
    let four = "h8 f10 h5 g10 g7 h10 e10 j10";
    let out = caro(&["position", "--moves", four, "--solve", "--json"]);
    let v = last_json(&out);
    assert_eq!(v["solve"]["win"], Value::Null, "{v}");
    assert_eq!(v["solve"]["ruled_out"], true, "{v}");
    assert_eq!(v["solve"]["plies"], Value::Null, "{v}");
    // A VCF's bound: black's four h8, white's block h7, black's open
    // four g7, a block, the five.
    let vcf = "f8 c8 g8 j8 h9 h12 h10 i4 h11 e6 i9 i10 j10 a1 f7 o1 g6 a15 h5 a2";
    let out = caro(&[
        "position", "--rule", "renju", "--moves", vcf, "--solve", "--json",
    ]);
    let v = last_json(&out);
    assert_eq!(v["solve"]["win"], "vcf", "{v}");
    assert_eq!(v["solve"]["plies"], 5, "{v}");
    // With white's h9 instead black wins by threats (e5), but not within
    // a hundred nodes: not found, and not ruled out.
    let lost = "h8 f10 h5 g10 g7 h10 e10 h9";
    let out = caro(&[
        "position",
        "--moves",
        lost,
        "--solve",
        "--solve-nodes",
        "100",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("solve: no win by fours or threats found for black within 100 nodes"),
        "{text}"
    );
    let out = caro(&["position", "--moves", lost, "--solve", "--json"]);
    let v = last_json(&out);
    assert_eq!(v["solve"]["win"], "vct", "{v}");
    assert_eq!(v["solve"]["ruled_out"], false, "{v}");
    // The most plies the win takes by its proof (never fewer than its
    // line's), the five at an attacker's turn.
    let plies = v["solve"]["plies"].as_u64().expect("a bound");
    let line = v["solve"]["line"].as_array().expect("a line").len() as u64;
    assert!(plies >= line && plies % 2 == 1, "{v}");
    let text = String::from_utf8_lossy(&caro(&["position", "--moves", lost, "--solve"]).stdout)
        .into_owned();
    assert!(
        text.contains(&format!("wins by VCT starting e5, within {plies} plies")),
        "{text}"
    );
}

/// A reader that stops reading (`caro bench | head -1`) ends the bench
/// quietly: no panic on the closed pipe, and success.
#[test]
fn bench_ends_quietly_when_its_output_is_closed() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_caro"))
        .args(["bench", "--depth", "2"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run caro");
    // Closed before the first position's line is written.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for caro");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(!err.contains("panicked"), "{err}");
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
const BENCH_SIGNATURE_DEPTH_4: u64 = 76_669;

#[test]
fn bench_signature_is_pinned() {
    let out = caro(&["bench", "--depth", "4", "--json"]);
    assert!(out.status.success());
    let v = last_json(&out);
    assert_eq!(v["nodes"].as_u64().unwrap(), BENCH_SIGNATURE_DEPTH_4);
}

/// `caro bench --solve` solves each position of a file by threats and
/// says which it could not; a bad move names its line and loses nothing.
#[test]
fn bench_solve_reports_each_position_and_the_totals() {
    let dir = std::env::temp_dir().join(format!("caro-bench-solve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("vct.txt");
    // A renju VCT for black (from bench/vct-renju15.txt), and one stone,
    // where white has no threat at all.
    std::fs::write(
        &file,
        "# two positions\nh8 i9 g8 f8 j9 h6 i10 k8 h9 j11 h10 h11\n\nh8\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let out = succeed(&["bench", "--solve", path, "--rule", "renju", "--json"]);
    let v = last_json(&out);
    assert_eq!(v["positions"], 2);
    assert_eq!(v["solved"], 1);
    assert!(v["nodes"].as_u64().unwrap() > 0);
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(!lines[0].contains("none"), "{text}");
    assert!(lines[1].contains("none"), "{text}");

    std::fs::write(&file, "h8 i9\nh8 h8\n").unwrap();
    let out = caro(&["bench", "--solve", path, "--rule", "renju"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The shipped VCT benchmark files are legal games of their rule (a
/// one-node limit only replays them).
#[test]
fn shipped_vct_benchmarks_are_legal_positions() {
    for (name, rule, count) in [
        ("vct-freestyle15.txt", "freestyle", 419),
        ("vct-renju15.txt", "renju", 140),
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../bench")
            .join(name);
        let out = succeed(&[
            "bench",
            "--solve",
            path.to_str().unwrap(),
            "--rule",
            rule,
            "--solve-nodes",
            "1",
            "--json",
        ]);
        assert_eq!(last_json(&out)["positions"], count, "{name}");
    }
}

/// The path of a file in `openings/`.
fn openings_file(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../openings")
        .join(name)
}

/// The non-comment lines of a file in `openings/`.
fn opening_lines(name: &str) -> Vec<String> {
    let path = openings_file(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// The openings shipped in `openings/`: every balanced opening is one of
/// its set's candidates, three stones with white to move, and `caro match`
/// accepts the file under its rule and size (it checks every opening
/// before the first game).
#[test]
fn the_shipped_balanced_openings_are_candidates_and_legal() {
    for (candidates, candidate_count, balanced, balanced_count, rule, size) in [
        (
            "freestyle15-candidates.txt",
            120,
            "freestyle15-balanced.txt",
            49,
            "freestyle",
            "15",
        ),
        (
            "renju15-canonical.txt",
            26,
            "renju15-balanced.txt",
            11,
            "renju",
            "15",
        ),
        (
            "caro20-candidates.txt",
            120,
            "caro20-balanced.txt",
            27,
            "caro",
            "20",
        ),
    ] {
        let candidates = opening_lines(candidates);
        let kept = opening_lines(balanced);
        assert_eq!(candidates.len(), candidate_count, "{balanced}");
        assert_eq!(kept.len(), balanced_count, "{balanced}");
        for b in &kept {
            assert!(candidates.contains(b), "{b} is not a candidate");
            assert_eq!(b.split_whitespace().count(), 3, "{b}");
        }
        assert_match_accepts(balanced, rule, size);
    }
}

/// `caro match` plays two games from the openings of a file in
/// `openings/` under `rule` and `size` (it checks every opening before
/// the first game).
fn assert_match_accepts(name: &str, rule: &str, size: &str) {
    let file = openings_file(name);
    let out = succeed(&[
        "match",
        "random",
        "random",
        "--openings",
        file.to_str().unwrap(),
        "--rule",
        rule,
        "--size",
        size,
        "--games",
        "2",
        "--json",
    ]);
    assert_eq!(last_json(&out)["games"], 2, "{name}");
}

/// `renju15-canonical.txt` holds the 26 canonical renju openings: black
/// on h8, white next to it, black's second stone within the central 5×5,
/// one of each set of mirror images, and every such opening is a mirror
/// image of one of them.
#[test]
fn the_renju_openings_are_the_26_canonical_ones() {
    use caro_core::notation::parse_pos;
    use caro_core::BoardSize;
    let size = BoardSize::square(15);
    let centre = size.center();
    let offset = |text: &str| {
        let p = parse_pos(text, size).unwrap();
        (
            i32::from(p.x) - i32::from(centre.x),
            i32::from(p.y) - i32::from(centre.y),
        )
    };
    // The eight symmetries of the square about its centre.
    let image = |(x, y): (i32, i32), t: usize| match t {
        0 => (x, y),
        1 => (-x, y),
        2 => (x, -y),
        3 => (-x, -y),
        4 => (y, x),
        5 => (-y, x),
        6 => (y, -x),
        _ => (-y, -x),
    };
    let class = |white: (i32, i32), black: (i32, i32)| {
        (0..8)
            .map(|t| (image(white, t), image(black, t)))
            .min()
            .unwrap()
    };
    let mut seen = std::collections::BTreeSet::new();
    for line in opening_lines("renju15-canonical.txt") {
        let moves: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(moves.len(), 3, "{line}");
        assert_eq!(offset(moves[0]), (0, 0), "{line}: black starts on h8");
        let (white, black) = (offset(moves[1]), offset(moves[2]));
        assert!(white.0.abs() <= 1 && white.1.abs() <= 1, "{line}");
        assert!(black.0.abs() <= 2 && black.1.abs() <= 2, "{line}");
        assert!(
            seen.insert(class(white, black)),
            "{line}: a mirror image of another"
        );
    }
    let mut all = std::collections::BTreeSet::new();
    for wx in -1..=1 {
        for wy in -1..=1 {
            for bx in -2..=2 {
                for by in -2..=2 {
                    let (white, black) = ((wx, wy), (bx, by));
                    if white != (0, 0) && black != (0, 0) && black != white {
                        all.insert(class(white, black));
                    }
                }
            }
        }
    }
    assert_eq!(all.len(), 26);
    assert_eq!(seen, all);
}

/// The 20×20 freestyle openings are the balanced 15×15 ones, each stone
/// moved two points right and two up, and `caro match` accepts them on
/// 20×20.
#[test]
fn the_20x20_freestyle_openings_are_the_15x15_ones_moved_to_the_centre() {
    let moved = |line: &str| -> String {
        line.split_whitespace()
            .map(|m| {
                let (column, row) = m.split_at(1);
                let column = (column.as_bytes()[0] + 2) as char;
                let row: u32 = row.parse().unwrap();
                format!("{column}{}", row + 2)
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let small = opening_lines("freestyle15-balanced.txt");
    let large = opening_lines("freestyle20-balanced.txt");
    assert_eq!(large, small.iter().map(|l| moved(l)).collect::<Vec<_>>());
    assert_match_accepts("freestyle20-balanced.txt", "freestyle", "20");
}
