//! `caro match --opening soosorv8` between caro players: every saved game
//! passes a check of the opening's phases written here independently of
//! caro-core (three canonical stones, no more offers than allowed, no two
//! offers symmetric on the position, the 5th move one of the offers), and
//! a Gomocup engine is refused.

use std::process::Command;

/// A point as (column, row), both 0-based, row 0 at the bottom.
type Point = (i32, i32);

fn point(text: &str) -> Point {
    let col = i32::from(text.as_bytes()[0] - b'a');
    let row: i32 = text[1..].parse().expect("row");
    (col, row - 1)
}

/// The eight symmetries of the 15×15 board around its centre (7, 7).
fn symmetries() -> Vec<Box<dyn Fn(Point) -> Point>> {
    let mut out: Vec<Box<dyn Fn(Point) -> Point>> = Vec::new();
    for turns in 0..4 {
        for mirror in [false, true] {
            out.push(Box::new(move |(x, y)| {
                let (mut dx, mut dy) = (x - 7, y - 7);
                if mirror {
                    dx = -dx;
                }
                for _ in 0..turns {
                    (dx, dy) = (-dy, dx);
                }
                (dx + 7, dy + 7)
            }));
        }
    }
    out
}

fn check_record(text: &str) {
    let field = |name: &str| -> Vec<String> {
        let line = text
            .lines()
            .flat_map(str::split_whitespace)
            .find(|w| w.starts_with(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no {name}= in\n{text}"));
        line[name.len() + 1..]
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    assert_eq!(field("opening"), vec!["soosorv8"], "{text}");
    // The file replays with its choices and offers to decided colours.
    let record = caro_core::psq::read_psq(text).expect("reads");
    let table = record
        .to_table([
            caro_core::table::Sitter::Human,
            caro_core::table::Sitter::Human,
        ])
        .expect("replays");
    assert!(table.colors_decided(), "{text}");
    let moves: Vec<Point> = field("moves").iter().map(|m| point(m)).collect();
    let offers: Vec<Point> = field("offers").iter().map(|m| point(m)).collect();
    let cheb = |(x, y): Point| (x - 7).abs().max((y - 7).abs());
    assert_eq!(moves[0], (7, 7), "{text}");
    assert!(cheb(moves[1]) == 1, "{text}");
    assert!((1..=2).contains(&cheb(moves[2])), "{text}");
    assert!((1..=8).contains(&offers.len()), "{text}");
    assert!(offers.contains(&moves[4]), "{text}");
    // Stones before the 5th: black 1st and 3rd, white 2nd and 4th.
    let stones: Vec<(Point, bool)> = moves[..4]
        .iter()
        .enumerate()
        .map(|(i, &p)| (p, i % 2 == 0))
        .collect();
    let keeps = |f: &dyn Fn(Point) -> Point| {
        stones
            .iter()
            .all(|&(p, black)| stones.contains(&(f(p), black)))
    };
    for (i, &a) in offers.iter().enumerate() {
        assert!(!stones.iter().any(|&(p, _)| p == a), "{text}");
        for &b in &offers[i + 1..] {
            let mirrored = symmetries().iter().any(|f| keeps(f.as_ref()) && f(a) == b);
            assert!(
                !mirrored && a != b,
                "offers {a:?} and {b:?} are symmetric\n{text}"
            );
        }
    }
    let choices = field("choices");
    assert!(choices.iter().any(|c| c.starts_with("offers-")), "{text}");
}

#[test]
fn a_soosorv8_match_between_caro_players_passes_the_opening_check() {
    let dir = std::env::temp_dir().join(format!("caro-match-renju-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_caro"))
        .args([
            "match",
            "caro:4",
            "caro:2",
            "--rule",
            "renju",
            "--opening",
            "soosorv8",
            "--games",
            "6",
            "--depth",
            "2",
            "--time",
            "50ms",
            "--psq",
        ])
        .arg(&dir)
        .output()
        .expect("run caro match");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("6 games, renju 15x15"), "{stdout}");
    for n in 1..=6 {
        let path = dir.join(format!("game-{n:04}.psq"));
        let text = std::fs::read_to_string(&path).expect("saved game");
        check_record(&text);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_gomocup_engine_is_refused_and_so_is_another_rule() {
    let out = Command::new(env!("CARGO_BIN_EXE_caro"))
        .args([
            "match",
            "caro:4",
            "pbrain:/bin/true",
            "--rule",
            "renju",
            "--opening",
            "soosorv8",
        ])
        .output()
        .expect("run caro match");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot play the soosorv8 opening: the Gomocup protocol has no way"),
        "{stderr}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_caro"))
        .args(["match", "caro:4", "caro:2", "--opening", "taraguchi10"])
        .output()
        .expect("run caro match");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is a renju opening"), "{stderr}");
}
