//! `caro analyse` driven through the real binary: on the games of a short
//! match and on the repository's bench files, with node limits so that
//! runs compare.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn caro(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_caro"))
        .args(args)
        .output()
        .expect("run caro")
}

/// Runs caro, checks that it succeeded and gives its standard output.
fn succeed(args: &[&str]) -> String {
    let out = caro(args);
    assert!(
        out.status.success(),
        "caro {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Runs caro, checks that it failed with status 2 and one line on
/// standard error, and gives that line.
fn fail(args: &[&str]) -> String {
    let out = caro(args);
    assert_eq!(out.status.code(), Some(2), "caro {args:?}");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let first = err.lines().next().unwrap_or("").to_string();
    assert!(first.starts_with("error: "), "caro {args:?}: {err}");
    first
}

/// A file of the repository.
fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

/// The first `n` positions (lines that are not comments) of a repository
/// file, written to `to`.
fn first_positions(from: &str, n: usize, to: &Path) {
    let text = std::fs::read_to_string(repo(from)).expect("bench file");
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .take(n)
        .collect();
    assert_eq!(lines.len(), n, "{from}");
    std::fs::write(to, lines.join("\n") + "\n").expect("write positions");
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// A saved game's players line: (black, white, result).
fn players(path: &Path) -> (String, String, String) {
    let text = std::fs::read_to_string(path).expect("game file");
    let line = text
        .lines()
        .find(|l| l.starts_with("black="))
        .expect("players line");
    let words: Vec<&str> = line.split(' ').collect();
    let value = |w: &str, key: &str| w.strip_prefix(key).expect(key).to_string();
    (
        value(words[0], "black="),
        value(words[1], "white="),
        value(words[2], "result="),
    )
}

/// The number of moves of a saved game.
fn moves(path: &Path) -> usize {
    let text = std::fs::read_to_string(path).expect("game file");
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("moves="))
        .expect("moves line");
    line.split(',').filter(|m| !m.is_empty()).count()
}

#[test]
fn the_games_of_a_match_are_read_for_losses_and_missed_wins() {
    let dir = tempfile::tempdir().expect("temp dir");
    let games = dir.path().join("games");
    succeed(&[
        "match",
        "caro:1",
        "caro:5",
        "--games",
        "2",
        "--nodes",
        "3000",
        "--psq",
        s(&games),
    ]);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&games)
        .expect("games saved")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 2);

    // Losses: a line for each game caro:1 lost, in file order.
    let lost: Vec<&PathBuf> = files
        .iter()
        .filter(|f| {
            let (black, _, result) = players(f);
            let mine = if black == "caro:1" { "black" } else { "white" };
            !result.starts_with(&format!("{mine}_wins")) && !result.starts_with("draw")
        })
        .collect();
    let suite = dir.path().join("suite.txt");
    let out = succeed(&[
        "analyse",
        "losses",
        "--player",
        "caro:1",
        "--nodes",
        "20000",
        "--check-nodes",
        "2000",
        "--suite",
        s(&suite),
        s(&games),
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), lost.len(), "{out}");
    let mut proven = 0;
    for (line, file) in lines.iter().zip(&lost) {
        let rest = line
            .strip_prefix(&format!("{}: {} moves, ", file.display(), moves(file)))
            .unwrap_or_else(|| panic!("{line}"));
        if rest.starts_with("lost at move ") {
            assert!(rest.contains(" nodes), ") && rest.ends_with(" points held"));
            proven += 1;
        } else {
            assert_eq!(rest, "no losing move proven");
        }
    }
    // The suite: a line for each losing move found, readable by defend.
    let suite_text = std::fs::read_to_string(&suite).unwrap_or_default();
    assert_eq!(suite_text.lines().count(), proven, "{suite_text}");
    for line in suite_text.lines() {
        assert_eq!(line.split('\t').count(), 3, "{line}");
    }
    if proven > 0 {
        let out = succeed(&["analyse", "defend", s(&suite), "--limit", "3000"]);
        assert_eq!(out.lines().count(), proven + 1, "{out}");
        let total = format!(" of {proven} held (");
        assert!(out.lines().last().unwrap().contains(&total), "{out}");
    }

    // Missed wins, every game: one line per game with a mark for each of
    // caro:5's turns from its second move on, then the wins let go.
    let out = succeed(&[
        "analyze",
        "missed-wins",
        "--player",
        "caro:5",
        "--all",
        "--nodes",
        "1000",
        s(&games),
    ]);
    let heads: Vec<&str> = out.lines().filter(|l| !l.starts_with("  ")).collect();
    assert_eq!(heads.len(), 2, "{out}");
    for (head, file) in heads.iter().zip(&files) {
        let (black, _, _) = players(file);
        let (colour, parity) = if black == "caro:5" {
            ("black", 0)
        } else {
            ("white", 1)
        };
        let n = moves(file);
        let (start, marks) = head.rsplit_once(' ').expect("marks");
        let result = ["won", "drew", "lost"]
            .into_iter()
            .find(|r| *start == format!("{}: {r} as {colour}, {n} moves:", file.display()))
            .unwrap_or_else(|| panic!("{head}"));
        assert!(!result.is_empty());
        let turns = (3..n).filter(|i| i % 2 == parity).count();
        assert_eq!(marks.len(), turns, "{head}");
        assert!(marks.chars().all(|c| "W.?".contains(c)), "{head}");
    }
    for line in out.lines().filter(|l| l.starts_with("  ")) {
        assert!(
            line.starts_with("  move ") && line.contains(" let go by "),
            "{line}"
        );
    }
    // Without --all the games caro:5 won are left out.
    let out_not_won = succeed(&[
        "analyse",
        "missed-wins",
        "--player",
        "caro:5",
        "--nodes",
        "1000",
        s(&games),
    ]);
    let not_won = heads.iter().filter(|h| !h.contains(": won as ")).count();
    let heads: Vec<&str> = out_not_won
        .lines()
        .filter(|l| !l.starts_with("  "))
        .collect();
    assert_eq!(heads.len(), not_won, "{out_not_won}");
}

#[test]
fn the_bench_proofs_hold_against_every_reply() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("vct.txt");
    first_positions("bench/vct-freestyle15.txt", 4, &file);
    let out = succeed(&["analyse", "check-proofs", s(&file), "--nodes", "5000"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    for (n, line) in (1..).zip(&lines[..4]) {
        assert!(line.starts_with(&format!("{n}: ")), "{line}");
    }
    assert!(!out.contains("ESCAPE"), "{out}");
    assert!(lines[4].starts_with("escapes 0, unsure "), "{out}");
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with(" holds against every reply")),
        "no proof found within the limit: {out}"
    );
    // --first and --last pick positions by number.
    let out = succeed(&[
        "analyse",
        "check-proofs",
        s(&file),
        "--nodes",
        "2000",
        "--first",
        "2",
        "--last",
        "2",
    ]);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(out.starts_with("2: "), "{out}");
}

#[test]
fn the_defence_suite_is_searched_the_same_at_a_node_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let suite = dir.path().join("defence.txt");
    first_positions("bench/defence-freestyle15.txt", 2, &suite);
    let args = ["analyse", "defend", s(&suite), "--limit", "5000"];
    let out = succeed(&args);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    for (n, line) in (1..).zip(&lines[..2]) {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[0], n.to_string(), "{line}");
        assert!(["held", "lost"].contains(&words[1]), "{line}");
        assert_eq!(words[3], "(played", "{line}");
        assert!(line.ends_with(" held)"), "{line}");
    }
    assert!(lines[2].contains(" of 2 held ("), "{out}");
    assert_eq!(succeed(&args), out, "a node limit gives the same moves");
}

#[test]
fn bad_input_is_one_clear_line_and_status_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("missing.psq");
    let missing = s(&missing);
    for tool in [
        vec!["losses", "--player", "caro", missing],
        vec!["missed-wins", "--player", "caro", missing],
        vec!["defend", missing],
        vec!["check-proofs", missing],
    ] {
        let args: Vec<&str> = std::iter::once("analyse").chain(tool).collect();
        let line = fail(&args);
        assert!(
            line.contains("cannot read") && line.contains("missing.psq"),
            "{line}"
        );
    }
    // A file that is not a game saved by caro match.
    let vct = repo("bench/vct-renju15.txt");
    let line = fail(&["analyse", "losses", "--player", "caro", s(&vct)]);
    assert!(line.contains("not saved by caro match"), "{line}");
    // A PSQ file that is not one.
    let bad = dir.path().join("bad.psq");
    std::fs::write(&bad, "garbage\nblack=a white=b result=draw\n").unwrap();
    let line = fail(&["analyse", "missed-wins", "--player", "a", s(&bad)]);
    assert!(
        line.contains("bad.psq") && line.contains("PSQ header"),
        "{line}"
    );
    // Bad numbers and limits.
    let line = fail(&[
        "analyse",
        "losses",
        "--player",
        "a",
        "--nodes",
        "lots",
        s(&bad),
    ]);
    assert!(
        line.contains("'lots'") && line.contains("--nodes"),
        "{line}"
    );
    let suite = repo("bench/defence-freestyle15.txt");
    let line = fail(&["analyse", "defend", s(&suite), "--limit", "fast"]);
    assert!(line.contains("bad limit \"fast\""), "{line}");
    // A line of a suite that is not one names the file and line.
    let line = fail(&["analyse", "defend", s(&vct)]);
    assert!(line.contains("vct-renju15.txt line "), "{line}");
    let line = fail(&["analyse", "check-proofs", s(&vct), "--rule", "chess"]);
    assert!(line.contains("chess"), "{line}");
}
