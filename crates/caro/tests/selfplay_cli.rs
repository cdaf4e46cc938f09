//! `caro selfplay` through the real binary: the file it writes, read back
//! with the repository's reader, position by position, and fitted by
//! `caro train`, each rule's table on its own.

use std::path::Path;
use std::process::Command;

use caro_core::{BoardSize, Color, Game, Pos, Rule, Rules};
use caro_engine::dataset::{GameResult, Reader, Sample, Writer, EVAL_LIMIT};
use caro_engine::train::{
    current_policy, current_tables, parse_policy, parse_tables, policy_file, table_file,
};
use serde_json::Value;

fn caro(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_caro"))
        .args(args)
        .output()
        .expect("run caro")
}

fn succeed(args: &[&str]) -> Value {
    let out = caro(args);
    assert!(
        out.status.success(),
        "caro {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().expect("output");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

fn read(path: &Path) -> Vec<Sample> {
    let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    Reader::new(f).unwrap().collect::<Result<_, _>>().unwrap()
}

fn book(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../openings")
        .join(name)
        .display()
        .to_string()
}

/// Four renju games from the repository's book into `file`, on `jobs`
/// threads: the totals line.
fn renju_games(file: &Path, jobs: &str) -> Value {
    let file = file.display().to_string();
    succeed(&[
        "selfplay",
        "--rule",
        "renju",
        "--openings",
        &book("renju15-book.txt"),
        "--games",
        "4",
        "--nodes",
        "1500",
        "-j",
        jobs,
        "--hash-mb",
        "2",
        "--out",
        &file,
        "--json",
    ])
}

#[test]
fn renju_games_from_the_book_give_legal_labelled_positions() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("renju.cpos");
    let totals = renju_games(&file, "2");
    let samples = read(&file);
    assert_eq!(totals["positions"].as_u64().unwrap(), samples.len() as u64);
    assert_eq!(
        totals["bytes"].as_u64().unwrap(),
        std::fs::metadata(&file).unwrap().len()
    );
    let games = totals["black_wins"].as_u64().unwrap()
        + totals["white_wins"].as_u64().unwrap()
        + totals["draws"].as_u64().unwrap();
    assert_eq!(games, 4);
    assert!(samples.len() > 20, "{} positions", samples.len());
    let mut keys = std::collections::HashSet::new();
    for s in &samples {
        assert_eq!(s.rules.rule, caro_core::Rule::Renju);
        assert!(keys.insert(s.position_key()), "no position twice");
        let game: Game = s.to_game().expect("a legal position");
        assert!(!game.is_over());
        game.check(s.best)
            .expect("the best move is legal, never a foul");
        let blacks = s.stones.iter().filter(|(_, c)| *c == Color::Black).count();
        let expected = if blacks > s.stones.len() - blacks {
            Color::White
        } else {
            Color::Black
        };
        assert_eq!(s.to_move, expected);
        if s.score > EVAL_LIMIT {
            assert_eq!(s.result, GameResult::Win, "a proven win is won");
        }
    }
    // The same seed writes the same file, whatever the number of threads.
    let again = dir.path().join("again.cpos");
    renju_games(&again, "1");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        std::fs::read(&again).unwrap()
    );
}

#[test]
fn appending_leaves_out_what_the_file_holds_and_stats_count_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("caro20.cpos");
    let f = file.display().to_string();
    let common = [
        "selfplay",
        "--rule",
        "caro",
        "--size",
        "20",
        "--games",
        "2",
        "--nodes",
        "800",
        "--hash-mb",
        "2",
        "--out",
        &f,
        "--json",
    ];
    let first = succeed(&common);
    let written = first["positions"].as_u64().unwrap();
    // A second run would overwrite: refused, the file unchanged.
    let before = std::fs::read(&file).unwrap();
    let out = caro(&common);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--append"));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    // The same games again add nothing; other seeds add new positions.
    let same = succeed(&[&common[..], &["--append"]].concat());
    assert_eq!(same["positions"].as_u64(), Some(0));
    assert_eq!(same["duplicates"].as_u64(), Some(written));
    let more = succeed(&[&common[..], &["--append", "--seed", "2"]].concat());
    let total = written + more["positions"].as_u64().unwrap();
    assert!(total > written);
    let stats = succeed(&["selfplay", "--stats", &f, "--json"]);
    assert_eq!(stats["positions"].as_u64(), Some(total));
    assert_eq!(read(&file).len() as u64, total);
    let kind = &stats["kinds"][0];
    assert_eq!(kind["rules"], "caro 20x20 k5");
}

#[test]
fn bad_files_and_options_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.cpos");
    std::fs::write(&junk, b"not positions at all").unwrap();
    let out = caro(&["selfplay", "--stats", &junk.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("CAROPOS1"));
    let out = caro(&["selfplay", "--games", "0", "--out", "x.cpos"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--games"));
    let openings = dir.path().join("won.txt");
    std::fs::write(&openings, "a1 a5 b1 b5 c1 c5 d1 d5 e1\n").unwrap();
    let out = caro(&[
        "selfplay",
        "--openings",
        &openings.display().to_string(),
        "--out",
        &dir.path().join("o.cpos").display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already ends the game"));
    assert!(!dir.path().join("o.cpos").exists());
}

/// Six games of `rule` on `size`×`size` from random openings, appended to
/// `file`.
fn selfplay(file: &Path, rule: &str, size: &str, seed: &str) {
    let file = file.display().to_string();
    let mut args = vec![
        "selfplay",
        "--rule",
        rule,
        "--size",
        size,
        "--games",
        "6",
        "--nodes",
        "800",
        "--hash-mb",
        "2",
        "--seed",
        seed,
        "--out",
        &file,
        "--json",
    ];
    if Path::new(&file).exists() {
        args.push("--append");
    }
    succeed(&args);
}

#[test]
fn each_rule_is_fitted_into_its_own_table() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("mixed.cpos");
    selfplay(&data, "renju", "15", "3");
    selfplay(&data, "caro", "20", "4");
    let data = data.display().to_string();

    // Positions of two tables' rules: the fit needs to be told which.
    let out = caro(&["train", &data, "--out", "x.rs"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("renju") && err.contains("caro") && err.contains("--rule"),
        "{err}"
    );

    // Renju's count values are fitted too, caro's stay as they are.
    for (rule, name, counts) in [(Rule::Renju, "renju", true), (Rule::Caro, "caro", false)] {
        let out_file = dir.path().join(format!("{name}.rs"));
        let out_name = out_file.display().to_string();
        let mut args = vec![
            "train", &data, "--rule", name, "--epochs", "20", "--out", &out_name, "--json",
        ];
        if counts {
            args.push("--counts");
        }
        let totals = succeed(&args);
        assert_eq!(totals["counts_fitted"], counts, "{totals}");
        assert_eq!(totals["table"], table_file(rule), "{totals}");
        assert!(totals["positions"].as_u64().unwrap() > 20, "{totals}");
        let held = (
            totals["start_held_loss"].as_f64().unwrap(),
            totals["best_held_loss"].as_f64().unwrap(),
        );
        assert!(held.1 <= held.0, "{totals}");
        let text = std::fs::read_to_string(&out_file).unwrap();
        assert!(text.contains(&format!("The {name} table.")), "{text}");
        assert!(text.contains(&format!("--rule {name}")), "{text}");
        // The fit starts from the rule's own tables and writes both in a
        // form the reader takes.
        let parsed = parse_tables(&text).unwrap();
        let (points, written_counts, written_both) =
            (parsed.points, parsed.counts, parsed.both_sides);
        let engine = current_tables(rule);
        // The best epoch's values are written: the start's if no epoch
        // lowered the held-out loss.
        let moved = totals["best_epoch"].as_u64().unwrap() > 0;
        assert!(
            moved,
            "20 epochs lower the held-out loss of this data: {totals}"
        );
        assert_eq!(points != engine.points, moved, "{text}");
        let written_counts = written_counts.unwrap();
        assert_eq!(written_counts != engine.counts, counts && moved, "{text}");
        // (The both-sides values of so few positions are seen too rarely
        // to move; the unit tests fit them.)
        if !counts {
            assert_eq!(written_both.unwrap(), engine.both_sides, "{text}");
        }
        assert_eq!(text.contains(" --counts`"), counts, "{text}");
    }

    // A fit can start from a file of an earlier fit.
    let start = dir.path().join("renju.rs").display().to_string();
    let again = dir.path().join("renju2.rs").display().to_string();
    succeed(&[
        "train", &data, "--rule", "renju", "--epochs", "1", "--start", &start, "--out", &again,
        "--json",
    ]);
    let first = parse_tables(&std::fs::read_to_string(&start).unwrap()).unwrap();
    let second = parse_tables(&std::fs::read_to_string(&again).unwrap()).unwrap();
    assert_eq!(
        second.counts, first.counts,
        "without --counts the start's counts are kept"
    );
    assert_eq!(second.both_sides, first.both_sides);

    // The move ordering's values, fitted to the search's moves, in a file
    // of their own; a fit can start from such a file, and not from an
    // evaluation file.
    let policy_out = dir.path().join("renju_policy.rs");
    let policy_name = policy_out.display().to_string();
    let totals = succeed(&[
        "train",
        &data,
        "--rule",
        "renju",
        "--policy",
        "--lr",
        "20",
        "--epochs",
        "20",
        "--out",
        &policy_name,
        "--json",
    ]);
    assert_eq!(totals["table"], policy_file(Rule::Renju), "{totals}");
    assert!(
        totals["best_held_loss"].as_f64().unwrap() < totals["start_held_loss"].as_f64().unwrap(),
        "{totals}"
    );
    let text = std::fs::read_to_string(&policy_out).unwrap();
    assert!(text.contains("The renju move-ordering table."), "{text}");
    assert!(text.contains("--policy"), "{text}");
    assert_ne!(parse_policy(&text).unwrap(), current_policy(Rule::Renju));
    succeed(&[
        "train",
        &data,
        "--rule",
        "renju",
        "--policy",
        "--epochs",
        "1",
        "--start",
        &policy_name,
        "--out",
        &again,
        "--json",
    ]);
    let out = caro(&[
        "train", &data, "--rule", "renju", "--policy", "--start", &start, "--out", "x.rs",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no `POLICY` table"), "{err}");
    let out = caro(&["train", &data, "--policy", "--counts", "--out", "x.rs"]);
    assert_eq!(out.status.code(), Some(2));

    let out = caro(&["train", &data, "--rule", "freestyle", "--out", "x.rs"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no positions of rule freestyle"), "{err}");
}

#[test]
fn a_network_is_fitted_and_written_as_a_file_the_engine_reads() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("renju.cpos");
    for seed in ["3", "5", "7", "9"] {
        selfplay(&data, "renju", "15", seed);
    }
    let data = data.display().to_string();
    let out_file = dir.path().join("renju.bin");
    let out_name = out_file.display().to_string();
    let args = [
        "train",
        &data,
        "--network",
        "--lambda",
        "0",
        "--epochs",
        "20",
        "--patience",
        "20",
        "--lr",
        "0.003",
        "--out",
        &out_name,
        "--json",
    ];
    let totals = succeed(&args);
    assert_eq!(totals["network"], true, "{totals}");
    assert_eq!(totals["rule"], "renju", "{totals}");
    assert!(
        totals["best_held_loss"].as_f64().unwrap() < totals["start_held_loss"].as_f64().unwrap(),
        "{totals}"
    );
    let bytes = std::fs::read(&out_file).unwrap();
    let network = caro_engine::network::Network::from_bytes(&bytes).unwrap();
    assert_ne!(network, caro_engine::network::Network::zero());
    // The same data and seed write the same network; another seed does
    // not.
    let again = dir.path().join("again.bin").display().to_string();
    let mut same = args;
    same[12] = &again;
    succeed(&same);
    assert_eq!(std::fs::read(&again).unwrap(), bytes);
    let mut other_seed = args.to_vec();
    other_seed[12] = &again;
    other_seed.extend(["--seed", "2"]);
    succeed(&other_seed);
    assert_ne!(std::fs::read(&again).unwrap(), bytes);
    // A fit may go on from a network file: it starts at that network's
    // loss and ends no worse.
    let resumed = dir.path().join("resumed.bin").display().to_string();
    let mut from_network = args.to_vec();
    from_network[12] = &resumed;
    from_network.extend(["--start", &out_name]);
    let more = succeed(&from_network);
    assert_eq!(more["start_held_loss"], totals["best_held_loss"], "{more}");
    assert!(
        more["best_held_loss"].as_f64().unwrap() <= more["start_held_loss"].as_f64().unwrap(),
        "{more}"
    );
    // A start that is not a network file is refused, saying why; the
    // seed is a network's.
    let table = dir.path().join("table.rs");
    std::fs::write(&table, "pub const X: i32 = 1;").unwrap();
    let out = caro(&[
        "train",
        &data,
        "--network",
        "--start",
        &table.display().to_string(),
        "--out",
        "x.bin",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("table.rs") && err.contains("network"), "{err}");
    let out = caro(&["train", &data, "--seed", "2", "--out", "x.rs"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_fit_of_too_few_positions_is_refused_with_the_count() {
    // One position: a training set or a held-out set stays empty.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("one.cpos");
    let rules = Rules::new(BoardSize::new(15, 15).unwrap(), 5, Rule::Freestyle).unwrap();
    let game = Game::from_moves(rules, Color::Black, &[Pos::new(7, 7)]).unwrap();
    let mut writer = Writer::new(std::fs::File::create(&data).unwrap()).unwrap();
    writer
        .write(&Sample::of_game(
            &game,
            40,
            Pos::new(8, 8),
            GameResult::Draw,
        ))
        .unwrap();
    writer.flush().unwrap();
    drop(writer);
    let data = data.display().to_string();
    let out_file = dir.path().join("x.rs");
    for policy in [false, true] {
        let mut args = vec!["train", &data, "--out"];
        let out_name = out_file.display().to_string();
        args.push(&out_name);
        if policy {
            args.push("--policy");
        }
        let out = caro(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("1 positions to fit (0 left out") && err.contains("too few"),
            "{err}"
        );
        assert!(!out_file.exists(), "nothing is written");
    }
}
