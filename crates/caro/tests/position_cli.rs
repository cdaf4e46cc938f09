//! `caro position` driven as a user would: the real binary, real arguments.

use std::process::{Command, Output};

use serde_json::Value;

fn caro(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_caro"))
        .args(args)
        .output()
        .expect("run caro")
}

fn json(args: &[&str]) -> Value {
    let mut all = vec!["position", "--json"];
    all.extend_from_slice(args);
    let out = caro(&all);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// Runs a bad command: exit status 2 and one line on stderr.
fn refused(args: &[&str]) -> String {
    let mut all = vec!["position"];
    all.extend_from_slice(args);
    let out = caro(&all);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

#[test]
fn an_empty_board() {
    let v = json(&[]);
    assert_eq!(v["to_move"], "black");
    assert_eq!(v["result"], Value::Null);
    assert_eq!(v["forbidden"], serde_json::json!([]));
    assert_eq!(v["legal_moves"], 225);
    assert_eq!(v["moves"], serde_json::json!([]));
}

#[test]
fn a_win_names_its_line() {
    let v = json(&["--moves", "h8 h9 i8 i9 j8 j9 k8 k9 l8"]);
    assert_eq!(v["result"]["winner"], "black");
    assert_eq!(
        v["result"]["line"],
        serde_json::json!(["h8", "i8", "j8", "k8", "l8"])
    );
    assert_eq!(v["legal_moves"], 0);
}

#[test]
fn renju_forbidden_points_are_listed_sorted() {
    // Black to move: j8 makes two open threes (h8 i8 j8 and j8 j9 j10).
    let v = json(&["--rule", "renju", "--moves", "h8 a1 i8 a2 j9 a3 j10 a15"]);
    assert_eq!(v["to_move"], "black");
    let forbidden: Vec<String> = v["forbidden"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    let mut sorted = forbidden.clone();
    sorted.sort();
    assert_eq!(forbidden, sorted);
    assert!(forbidden.contains(&"j8".to_string()), "{v}");
    assert_eq!(v["legal_moves"], 225 - 8 - forbidden.len());
}

#[test]
fn black_left_with_only_forbidden_points_draws_and_says_why() {
    // White's c2 leaves a2 and f2, both overlines for black (and an open
    // four for white): black has no legal move, a draw, and the best move
    // the position before shows no win for white.
    let before = "a3 g5 d6 d2 f6 b5 c3 b4 g3 c6 c5 h4 e3 g4 f3 e5 a1 b1 g2 d4 f1 e1 g6 \
                  e6 a5 b6 h5 e2 a4 c4 d1 b2 h3 d3 g1 e4 f4 c1 f5 h1 b3 h2 a6 d5 h6";
    let after = format!("{before} c2");
    let board = ["--rule", "renju", "--size", "8x6"];
    let out = caro(&[&["position", "--moves", &after][..], &board[..]].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("draw: black has no legal move (every empty point is forbidden)"),
        "{text}"
    );
    let v = json(&[&["--moves", &after][..], &board[..]].concat());
    assert_eq!(v["result"], "draw");
    assert_eq!(v["legal_moves"], 0);
    let out = caro(
        &[
            &["position", "--moves", before, "--best", "--depth", "4"][..],
            &board[..],
        ]
        .concat(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("+W"), "no win for white: {text}");
}

#[test]
fn rectangles_and_tic_tac_toe() {
    let v = json(&["--size", "20x30", "--moves", "a1 t30"]);
    assert_eq!(v["width"], 20);
    assert_eq!(v["height"], 30);
    assert_eq!(v["legal_moves"], 598);
    let v = json(&["--size", "3", "--moves", "a1 b1 b2 c1 c3"]);
    assert_eq!(v["k"], 3);
    assert_eq!(v["result"]["winner"], "black");
    let v = json(&["--size", "3", "--moves", "a3 b3 c3 b2 a2 c2 b1 a1 c1"]);
    assert_eq!(v["result"], "draw");
}

#[test]
fn the_code_round_trips_through_the_command_line() {
    let v = json(&["--rule", "caro", "--size", "20", "--moves", "j10 k11 l12"]);
    let code = v["code"].as_str().unwrap().to_string();
    let w = json(&["--code", &code]);
    assert_eq!(w["moves"], v["moves"]);
    assert_eq!(w["rule"], "caro");
}

#[test]
fn a_code_keeps_its_opening_decisions_and_offers() {
    // Soosõrv-8: take-white, take-black, offers-2, take-white, i9 and g7
    // offered, i9 picked (docs/rules.md's worked example).
    let code = "v1.15x15.5.renju.soosorv8-wbCw-IGGI.b.HHIHJHDHIG";
    let v = json(&["--code", code]);
    assert_eq!(v["code"], code);
    assert_eq!(v["to_move"], "white");
    // Under another rule the renju opening cannot stand: a free opening.
    let v = json(&["--code", code, "--rule", "freestyle"]);
    assert_eq!(v["code"], "v1.15x15.5.freestyle.free.b.HHIHJHDHIG");
    // Decisions the opening does not take are refused.
    let e = refused(&[
        "--code",
        "v1.15x15.5.renju.soosorv8-wbCwb-IGGI.b.HHIHJHDHIG",
    ]);
    assert!(e.contains("does not replay"), "{e}");
    let e = refused(&["--code", "v1.15x15.5.renju.soosorv8-wx.b.HH"]);
    assert!(e.contains("not an opening decision"), "{e}");
}

#[test]
fn psq_files_are_read() {
    let dir = std::env::temp_dir().join(format!("caro-psq-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("game.psq");
    std::fs::write(
        &file,
        "Piskvorky 15x15, 11:11, 0\r\n8,8,0\r\n9,9,120\r\n-1\r\n",
    )
    .unwrap();
    let v = json(&["--psq", file.to_str().unwrap()]);
    assert_eq!(v["moves"], serde_json::json!(["h8", "i7"]));
    std::fs::write(&file, "not a psq file\n").unwrap();
    let err = refused(&["--psq", file.to_str().unwrap()]);
    assert!(err.contains("header"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_input_names_the_problem_and_the_move() {
    let e = refused(&["--moves", "h8 i9 h8"]);
    assert!(e.contains("move 3") && e.contains("occupied"), "{e}");
    let e = refused(&["--moves", "h8 p1"]);
    assert!(
        e.contains("move 2") && e.contains("off the 15x15 board"),
        "{e}"
    );
    let e = refused(&["--moves", "h8 ?? j10"]);
    assert!(e.contains("move 2") && e.contains("bad coordinate"), "{e}");
    let e = refused(&["--moves", "h8 h9 i8 i9 j8 j9 k8 k9 l8 l9"]);
    assert!(e.contains("move 10") && e.contains("over"), "{e}");
    let e = refused(&["--rule", "renju", "--moves", "h8 a1 i8 a2 j9 a3 j10 a15 j8"]);
    assert!(e.contains("move 9") && e.contains("forbidden"), "{e}");
    let e = refused(&["--size", "61"]);
    assert!(e.contains("out of range"), "{e}");
    let e = refused(&["--size", "banana"]);
    assert!(e.contains("bad board size"), "{e}");
    let e = refused(&["--rule", "chess"]);
    assert!(e.contains("unknown rule"), "{e}");
    let e = refused(&["--k", "12"]);
    assert!(e.contains("k=12"), "{e}");
    let e = refused(&["--code", "v1.15x15.5.renju.free.b.H"]);
    assert!(!e.is_empty());
}
