//! `caro train` through the real binary, on positions `caro selfplay`
//! wrote: each rule's table is fitted on its own, written where and as
//! the engine reads it, and a file of several rules' tables is refused.

use std::path::Path;
use std::process::Command;

use caro_core::Rule;
use caro_engine::train::{current_table, parse_table, table_file};
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

    for (rule, name) in [(Rule::Renju, "renju"), (Rule::Caro, "caro")] {
        let out_file = dir.path().join(format!("{name}.rs"));
        let totals = succeed(&[
            "train",
            &data,
            "--rule",
            name,
            "--epochs",
            "3",
            "--out",
            &out_file.display().to_string(),
            "--json",
        ]);
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
        // The fit starts from the rule's own table and writes one the
        // engine's reader takes.
        let table = parse_table(&text).unwrap();
        assert_eq!(table.len(), current_table(rule).len());
    }

    let out = caro(&["train", &data, "--rule", "freestyle", "--out", "x.rs"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no positions of rule freestyle"), "{err}");
}
