//! `caro tune` through the real binary: its list of tunables, a short
//! SPSA run's totals and values, the same run again from the same seed,
//! and the errors of bad options.

use std::path::Path;
use std::process::Command;

use caro_engine::search::Tuning;
use serde_json::Value;

fn caro(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_caro"))
        .args(args)
        .output()
        .expect("run caro")
}

fn book() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../openings/freestyle15-book.txt")
        .display()
        .to_string()
}

/// A short run over two tunables: its JSON totals.
fn short_run(seed: &str) -> Value {
    let book = book();
    let out = caro(&[
        "tune",
        "--params",
        "rfp_margin,root_vcf_share",
        "--start",
        "rfp_margin=150",
        "--iterations",
        "6",
        "--nodes",
        "600",
        "--openings",
        &book,
        "--seed",
        seed,
        "--r-end",
        "0.05",
        "--every",
        "3",
        "--hash-mb",
        "2",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("iteration 3/6"), "{stderr}");
    assert!(stderr.contains("iteration 6/6"), "{stderr}");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().expect("a line")).expect("JSON")
}

#[test]
fn the_list_names_every_tunable_with_its_default() {
    let out = caro(&["tune", "--list"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for t in caro_engine::search::TUNABLES {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(t.name))
            .unwrap_or_else(|| panic!("{} missing from:\n{text}", t.name));
        let default = t.get(&Tuning::default());
        let shown: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!((shown - default).abs() < 1e-3, "{line}");
    }
}

#[test]
fn a_short_run_moves_the_named_tunables_and_repeats_from_its_seed() {
    let v = short_run("5");
    assert_eq!(v["iterations"], 6);
    assert_eq!(v["nodes"], 600);
    let values = v["values"].as_object().unwrap();
    assert_eq!(values.len(), 2);
    let rfp = values["rfp_margin"].as_f64().unwrap();
    assert!((30.0..=600.0).contains(&rfp), "{rfp}");
    let share = values["root_vcf_share"].as_f64().unwrap();
    assert!((0.005..=0.3).contains(&share), "{share}");
    let wins = v["plus_wins"].as_u64().unwrap() + v["minus_wins"].as_u64().unwrap();
    assert!(wins <= 12);
    // The tuning printed is one the engine reads back, with the values
    // not named left at their defaults.
    let tuning = Tuning::parse(v["tuning"].as_str().unwrap()).unwrap();
    assert_eq!(tuning.rfp_margin, rfp.round() as i32);
    assert_eq!(tuning.width_by_depth, Tuning::default().width_by_depth);
    // One job: the same seed plays the same games to the same values.
    assert_eq!(short_run("5")["values"], v["values"]);
}

#[test]
fn bad_options_say_what_is_wrong() {
    for (args, says) in [
        (
            &["tune", "--params", "nope"][..],
            "no tunable is named \"nope\"",
        ),
        (
            &["tune", "--start", "rfp_margin=9000"][..],
            "from 30 to 600",
        ),
        (&["tune", "--start", "rfp_margin"][..], "is not name=value"),
        (
            &["tune", "--iterations", "0"][..],
            "--iterations must be at least 1",
        ),
        (&["tune", "--r-end", "2"][..], "--r-end must be above 0"),
        (
            &["tune", "--openings", "/nonexistent/openings.txt"][..],
            "openings",
        ),
    ] {
        let out = caro(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
