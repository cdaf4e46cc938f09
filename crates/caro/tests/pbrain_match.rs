//! `caro match` with Gomocup engines: caro's own brain (`pbrain-caro`)
//! driven through the protocol, and misbehaving engines (small scripts in
//! `tests/engines`) that must lose with the reason said.

use std::path::PathBuf;
use std::process::Command;

fn caro() -> Command {
    Command::new(env!("CARGO_BIN_EXE_caro"))
}

fn pbrain_caro() -> String {
    format!("pbrain:{}", env!("CARGO_BIN_EXE_pbrain-caro"))
}

fn engine(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/engines")
        .join(format!("pbrain-{name}"));
    format!("pbrain:{}", path.display())
}

/// Runs `caro match` and returns (stdout, the final JSON line).
fn run_match(args: &[&str]) -> (String, serde_json::Value) {
    let out = caro()
        .arg("match")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "caro match {args:?} failed: {}{}",
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    let last = stdout.lines().last().unwrap_or_default();
    let json = serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    (stdout, json)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("caro-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn caro_plays_itself_through_the_protocol() {
    let logs = temp_dir("logs");
    let psq = temp_dir("psq");
    let (stdout, json) = run_match(&[
        &pbrain_caro(),
        "caro:2",
        "--games",
        "2",
        "--time",
        "150ms",
        // Timing is measured in docs/benchmarks.md, not asserted here.
        "--tolerance",
        "10s",
        "--threads",
        "2,1",
        "--engine-log",
        logs.to_str().unwrap(),
        "--psq",
        psq.to_str().unwrap(),
    ]);
    assert_eq!(json["games"], 2, "{stdout}");
    assert!(!stdout.contains("failed"), "{stdout}");
    assert!(!stdout.contains("illegal"), "{stdout}");
    // The dialogue was kept: START answered OK, moves asked and answered.
    let log: String = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(log.contains("> START 15") && log.contains("< OK"), "{log}");
    assert!(log.contains("> TURN ") || log.contains("> DONE"), "{log}");
    // The engine (player A) is told the threads it may use.
    assert!(log.contains("> INFO thread_num 2"), "{log}");
    // Each INFO is said once, not before every move (an engine that
    // answers at once may take an INFO right after its move for
    // something else): the engine played many moves, and heard its turn
    // time once.
    assert_eq!(log.matches("> INFO timeout_turn 150").count(), 1, "{log}");
    assert_eq!(log.matches("> INFO thread_num").count(), 1, "{log}");
    assert!(log.matches("> TURN ").count() > 3, "{log}");
    assert_eq!(std::fs::read_dir(&psq).unwrap().count(), 2);
    let _ = std::fs::remove_dir_all(&logs);
    let _ = std::fs::remove_dir_all(&psq);
}

#[test]
fn two_brains_play_renju_refereed_by_the_core() {
    let (stdout, json) = run_match(&[
        &pbrain_caro(),
        &pbrain_caro(),
        "--games",
        "2",
        "--time",
        "100ms",
        "--tolerance",
        "10s",
        "--rule",
        "renju",
        "-j",
        "2",
    ]);
    assert_eq!(json["games"], 2, "{stdout}");
    assert!(!stdout.contains("engine failed"), "{stdout}");
}

#[test]
fn misbehaving_engines_lose_and_the_report_says_why() {
    for (name, reason) in [
        ("crash", "the engine crashed"),
        ("slow", "late: no move within"),
        ("garbage", "malformed answer \"my move is the centre\""),
        ("occupied", "illegal move (h8 is already occupied)"),
        ("offboard", "illegal move: 99,99 is off the 15x15 board"),
        ("longline", "the engine sent a line longer than 65536 bytes"),
    ] {
        let (stdout, json) = run_match(&[
            &engine(name),
            "random",
            "--games",
            "2",
            "--time",
            "100ms",
            // Room for a loaded machine (a shell engine's answer took
            // 2.5 s at a load of 6) to see each fault as itself, well
            // under the slow engine's 30 s.
            "--tolerance",
            "5s",
            "--opening-plies",
            "0",
        ]);
        assert_eq!(json["games"], 2, "{name}: {stdout}");
        // Both games lost: the engine was restarted after the first.
        assert_eq!(json["b_wins"], 2, "{name}: {stdout}");
        assert_eq!(
            stdout.matches(reason).count(),
            2,
            "{name}: expected {reason:?} twice in {stdout}"
        );
    }
}

#[test]
fn an_engine_is_left_to_settle_after_its_move() {
    // The opponent answers at once; an engine that drops a command coming
    // in the moment after its move (as Rapfi does) still plays every game.
    let (stdout, json) = run_match(&[
        &engine("settling"),
        "random",
        "--games",
        "4",
        "--time",
        "1s",
        "--tolerance",
        "5s",
        "--opening-plies",
        "0",
    ]);
    assert_eq!(json["games"], 4, "{stdout}");
    assert!(!stdout.contains("engine failed"), "{stdout}");
}

#[test]
fn a_missing_engine_is_a_usage_error() {
    let out = caro()
        .args(["match", "pbrain:/no/such/pbrain-x", "random"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/no/such/pbrain-x is not a file"), "{err}");
}

#[test]
fn sprt_stops_a_one_sided_match_early() {
    let (stdout, json) = run_match(&[
        "caro:3", "random", "--games", "200", "--depth", "1", "--sprt", "0,100",
    ]);
    let games = json["games"].as_u64().unwrap();
    assert!(games < 200, "{stdout}");
    assert_eq!(json["sprt"]["result"], "H1 accepted", "{stdout}");
}

#[test]
fn pairs_are_counted_by_their_pentanomial_result_and_summed_in_a_row() {
    let (stdout, json) = run_match(&[
        "caro:3", "random", "--games", "12", "--depth", "1", "-j", "2", "--sprt", "0,5",
    ]);
    // Twelve games are six pairs; caro:3 wins every game against random,
    // so every pair scores two points.
    assert_eq!(json["pairs"], 6, "{stdout}");
    assert_eq!(
        json["pentanomial"],
        serde_json::json!([0, 0, 0, 0, 6]),
        "{stdout}"
    );
    let counted: u64 = json["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(counted, json["pairs"].as_u64().unwrap());
    assert!(json["pair_elo"].as_f64().unwrap() > 100.0, "{stdout}");
    // Six sweeps are not yet enough to decide a test of 0 against 5 Elo.
    assert!(json["sprt"]["result"].is_null(), "{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("row: | caro:3 | depth 1 | 6 | +"))
        .unwrap_or_else(|| panic!("no summary row in {stdout}"));
    assert!(row.ends_with("[0, 5] | stopped |"), "{row}");
}

#[test]
fn a_clock_with_an_increment_names_the_control_in_the_summary() {
    let (stdout, json) = run_match(&[
        "caro:2",
        "random",
        "--games",
        "2",
        "--depth",
        "1",
        "--match-time",
        "60s",
        "--inc",
        "1s",
        "--label",
        "clock test",
    ]);
    assert!(!stdout.contains("lost on time"), "{stdout}");
    assert_eq!(json["control"], "depth 1, 60s+1s", "{stdout}");
    assert!(
        stdout.contains("row: | clock test | depth 1, 60s+1s | 1 |"),
        "{stdout}"
    );
}
