//! `caro train`: fits the evaluation's point values (and with `--counts`
//! its count values) to files of training positions (`caro selfplay`) and
//! writes them as the Rust source of one rule's tables in
//! `crates/caro-engine/src/point_values/`; with `--policy`, the move
//! ordering's values to the search's moves, written as a file of
//! `crates/caro-engine/src/policy/`; with `--network`, a network over line
//! patterns added to the evaluation, written as a network file
//! (docs/training.md).

use std::fs::File;
use std::io::{BufReader, Write as _};
use std::path::PathBuf;
use std::time::Instant;

use caro_engine::dataset::{Reader, Sample};
use caro_engine::network::Network;
use caro_engine::train::{
    current_policy, current_tables, fit, fit_network, fit_policy, parse_policy, parse_tables,
    policy_file, render_policy, render_tables, table_file, table_rule, NetworkSet, PolicySet,
    TrainSettings, TrainingSet,
};
use clap::Args;

use crate::UsageError;

/// What `caro train --help` ends with.
pub const EXAMPLES: &str = "\
Examples:
  caro train freestyle15.cpos --out crates/caro-engine/src/point_values/freestyle.rs
  caro train renju15.cpos --lambda 0.3 --out renju.rs --json
  caro train all.cpos --rule caro --out caro.rs
  caro train more.cpos --start renju.rs --out renju2.rs
  caro train renju15.cpos --lambda 0 --counts --out renju.rs
  caro train fs15.cpos --policy --lr 20 --out crates/caro-engine/src/policy/freestyle.rs
  caro train renju15.cpos --network --lambda 0 --out crates/caro-engine/src/network/renju.bin
  caro train more.cpos --network --start crates/caro-engine/src/network/renju.bin --lr 0.0003 --out renju2.bin";

/// `caro train`'s options.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Files of training positions written by caro selfplay.
    #[arg(required = true, value_name = "FILE")]
    pub data: Vec<PathBuf>,
    /// Where to write the fitted values: Rust source, the form of the
    /// rule's table in crates/caro-engine/src/point_values/ (freestyle.rs
    /// for freestyle and standard, renju.rs, caro.rs for caro and
    /// caro-standard), or with --policy in crates/caro-engine/src/policy/.
    #[arg(long)]
    pub out: PathBuf,
    /// Start from the values of this file (written by caro train) rather
    /// than the engine's own tables for the positions' rule (a file
    /// without count values starts from the engine's; with --policy, a
    /// move-ordering file; with --network, a network file, such as the
    /// rule's own in crates/caro-engine/src/network/, to go on fitting).
    #[arg(long)]
    pub start: Option<PathBuf>,
    /// Only the positions of this rule (freestyle, standard, renju, caro,
    /// caro-standard).
    #[arg(long)]
    pub rule: Option<String>,
    /// Weight of the game's result in the target, the rest the search's
    /// score (0 to 1).
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f64,
    /// Evaluation units of the logistic squash.
    #[arg(long, default_value_t = 200.0)]
    pub scale: f64,
    /// Most passes over the training positions.
    #[arg(long, default_value_t = 300)]
    pub epochs: u32,
    /// Passes without a better held-out loss before the fit stops.
    #[arg(long, default_value_t = 10)]
    pub patience: u32,
    /// Adam's step size, in evaluation units (with --policy, in ordering
    /// units: 100 are one unit of log-odds; with --network, of the
    /// network's weights) [default: 2, with --network 0.001].
    #[arg(long)]
    pub lr: Option<f64>,
    /// Fit the count values (each side's numbers of threat points) and the
    /// both-sides values (which threats each side has) with the point
    /// values; without it they are written as they start.
    #[arg(long)]
    pub counts: bool,
    /// Fit the move ordering's values to the moves the search chose
    /// instead of the evaluation (a softmax over the points near a stone;
    /// --lambda, --scale and --counts do not apply).
    #[arg(long, conflicts_with_all = ["counts", "lambda", "scale"])]
    pub policy: bool,
    /// Fit a network over line patterns added to the rule's evaluation
    /// (its tables stay as they are) and write it as a network file
    /// (crates/caro-engine/src/network/).
    #[arg(long, conflicts_with_all = ["counts", "policy"])]
    pub network: bool,
    /// Seed of the network's start and of the order of its batches.
    #[arg(long, default_value_t = 1, requires = "network")]
    pub seed: u64,
    /// Print one JSON line of totals at the end.
    #[arg(long)]
    pub json: bool,
}

/// Runs `caro train`.
///
/// # Errors
/// A [`UsageError`] for bad options, unreadable files or no positions.
pub fn run(args: &TrainArgs) -> Result<(), UsageError> {
    if !(0.0..=1.0).contains(&args.lambda) {
        return Err(UsageError("--lambda must be from 0 to 1".to_string()));
    }
    if !(args.scale > 0.0 && args.lr.is_none_or(|lr| lr > 0.0)) {
        return Err(UsageError("--scale and --lr must be above 0".to_string()));
    }
    let rule = args
        .rule
        .as_deref()
        .map(|r| {
            r.parse::<caro_core::Rule>()
                .map_err(|e| UsageError(e.to_string()))
        })
        .transpose()?;
    // A start file that cannot be read is refused before the data is read.
    if let Some(path) = &args.start {
        if args.network {
            read_network(path)?;
        } else {
            let text = read_text(path)?;
            let checked = if args.policy {
                parse_policy(&text).map(|_| ())
            } else {
                parse_tables(&text).map(|_| ())
            };
            checked.map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
        }
    }
    let started = Instant::now();
    let mut samples: Vec<Sample> = Vec::new();
    for path in &args.data {
        let f = File::open(path)
            .map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))?;
        let reader = Reader::new(BufReader::new(f))
            .map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
        for s in reader {
            let s = s.map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
            if rule.is_none_or(|r| s.rules.rule == r) {
                samples.push(s);
            }
        }
    }
    let mut table_rules: Vec<caro_core::Rule> = Vec::new();
    for s in &samples {
        let r = table_rule(s.rules.rule);
        if !table_rules.contains(&r) {
            table_rules.push(r);
        }
    }
    let table_for = match (table_rules.len(), table_rules.first()) {
        (1, Some(&r)) => r,
        (0, _) => {
            return Err(UsageError(match rule {
                Some(r) => format!("no positions of rule {r} in the files"),
                None => "no positions in the files".to_string(),
            }))
        }
        _ => {
            let names: Vec<String> = table_rules.iter().map(ToString::to_string).collect();
            return Err(UsageError(format!(
                "the files hold positions of rules with different tables ({}): choose one \
                 with --rule",
                names.join(", ")
            )));
        }
    };
    if args.policy {
        return run_policy(args, &samples, table_for, started);
    }
    if args.network {
        return run_network(args, &samples, table_for, started);
    }
    let engine = current_tables(table_for);
    let start = match &args.start {
        None => engine,
        Some(path) => parse_tables(&read_text(path)?)
            .map_err(|e| UsageError(format!("{}: {e}", path.display())))?
            .or(&engine),
    };
    let settings = TrainSettings {
        lambda: args.lambda,
        scale: args.scale,
        epochs: args.epochs,
        patience: args.patience,
        learning_rate: args.lr.unwrap_or(2.0),
        fit_counts: args.counts,
        ..TrainSettings::default()
    };
    let set = TrainingSet::new(&samples, &settings);
    SetSizes {
        read: samples.len(),
        train: set.train_len(),
        held: set.held_len(),
        skipped: set.skipped,
        skipped_as: "as proven results",
        forcing: set.forcing,
    }
    .check_and_report()?;
    let fitted = fit(&set, &start, &settings, |e| {
        let _ = writeln!(
            std::io::stderr(),
            "epoch {}: train {:.6} held-out {:.6}",
            e.epoch,
            e.train,
            e.held
        );
    });
    let files = file_names(args);
    let header = format!(
        "@generated by `caro train {} --lambda {} --scale {} --epochs {} --patience {} --lr {}{}{}`;\n\
         do not edit. The {} table. Data: {} positions ({} held out) of {}.\n\
         Held-out loss {:.5} before the fit, {:.5} after (epoch {} of {}).",
        files.join(" "),
        args.lambda,
        args.scale,
        args.epochs,
        args.patience,
        args.lr.unwrap_or(2.0),
        args.rule.as_ref().map_or(String::new(), |r| format!(" --rule {r}")),
        if args.counts { " --counts" } else { "" },
        table_file(table_for).trim_end_matches(".rs"),
        set.train_len() + set.held_len(),
        set.held_len(),
        files.join(", "),
        fitted.start.held,
        fitted.best.held,
        fitted.best.epoch,
        fitted.epochs_run,
    );
    std::fs::write(&args.out, render_tables(&fitted.tables, &header))
        .map_err(|e| UsageError(format!("cannot write {}: {e}", args.out.display())))?;
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let line = serde_json::json!({
            "positions": set.train_len() + set.held_len(),
            "train": set.train_len(),
            "held_out": set.held_len(),
            "skipped": set.skipped,
            "forcing": set.forcing,
            "start_held_loss": fitted.start.held,
            "best_held_loss": fitted.best.held,
            "best_epoch": fitted.best.epoch,
            "epochs": fitted.epochs_run,
            "seconds": seconds,
            "out": args.out.display().to_string(),
            "table": table_file(table_for),
            "counts_fitted": args.counts,
        });
        println!("{line}");
    } else {
        println!(
            "held-out loss {:.5} → {:.5} (best epoch {} of {}), {} positions, {:.0} s; values \
             written to {}",
            fitted.start.held,
            fitted.best.held,
            fitted.best.epoch,
            fitted.epochs_run,
            set.train_len() + set.held_len(),
            seconds,
            args.out.display()
        );
    }
    Ok(())
}

/// The text of a file, or a usage error naming it.
fn read_text(path: &std::path::Path) -> Result<String, UsageError> {
    std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))
}

/// A network file to start a fit from.
fn read_network(path: &std::path::Path) -> Result<Network, UsageError> {
    let bytes = std::fs::read(path)
        .map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))?;
    Network::from_bytes(&bytes).map_err(|e| UsageError(format!("{}: {e}", path.display())))
}

/// The sizes of a fit's training and held-out sets and what it left out.
struct SetSizes {
    read: usize,
    train: usize,
    held: usize,
    skipped: usize,
    /// Why the `skipped` positions were left out.
    skipped_as: &'static str,
    forcing: usize,
}

impl SetSizes {
    /// Refuses a fit with an empty training or held-out set; otherwise
    /// says on stderr how the positions were split.
    fn check_and_report(&self) -> Result<(), UsageError> {
        if self.train == 0 || self.held == 0 {
            return Err(UsageError(format!(
                "{} positions to fit ({} left out {}, {} with a four on the board): too few \
                 for a training and a held-out set",
                self.train + self.held,
                self.skipped,
                self.skipped_as,
                self.forcing
            )));
        }
        let _ = writeln!(
            std::io::stderr(),
            "{} positions: {} to train on, {} held out, {} left out {}, {} with a four on the \
             board",
            self.read,
            self.train,
            self.held,
            self.skipped,
            self.skipped_as,
            self.forcing
        );
        Ok(())
    }
}

/// The names of the data files, for the header.
fn file_names(args: &TrainArgs) -> Vec<String> {
    args.data
        .iter()
        .map(|p| {
            p.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        })
        .collect()
}

/// `caro train --policy`: fits the move ordering's values of `table_for`'s
/// rules to the search's moves in `samples`.
fn run_policy(
    args: &TrainArgs,
    samples: &[Sample],
    table_for: caro_core::Rule,
    started: Instant,
) -> Result<(), UsageError> {
    let start = match &args.start {
        None => current_policy(table_for),
        Some(path) => parse_policy(&read_text(path)?)
            .map_err(|e| UsageError(format!("{}: {e}", path.display())))?,
    };
    let settings = TrainSettings {
        epochs: args.epochs,
        patience: args.patience,
        learning_rate: args.lr.unwrap_or(2.0),
        ..TrainSettings::default()
    };
    let set = PolicySet::new(samples);
    SetSizes {
        read: samples.len(),
        train: set.train_len(),
        held: set.held_len(),
        skipped: set.skipped,
        skipped_as: "as proven results or with the move far from every stone",
        forcing: set.forcing,
    }
    .check_and_report()?;
    let fitted = fit_policy(&set, &start, &settings, |e| {
        let _ = writeln!(
            std::io::stderr(),
            "epoch {}: train {:.5} held-out {:.5}, the search's move first in {:.1}%",
            e.epoch,
            e.train,
            e.held,
            100.0 * e.held_first
        );
    });
    let files = file_names(args);
    let header = format!(
        "@generated by `caro train {} --policy --epochs {} --patience {} --lr {}{}`;\n\
         do not edit. The {} move-ordering table. Data: {} positions ({} held out) of {}.\n\
         Held-out cross-entropy of the search's move {:.4} before the fit, {:.4} after \
         (epoch {} of {});\n\
         the search's move scored first in {:.1}% of the held-out positions before, {:.1}% \
         after.",
        files.join(" "),
        args.epochs,
        args.patience,
        args.lr.unwrap_or(2.0),
        args.rule
            .as_ref()
            .map_or(String::new(), |r| format!(" --rule {r}")),
        policy_file(table_for).trim_end_matches(".rs"),
        set.train_len() + set.held_len(),
        set.held_len(),
        files.join(", "),
        fitted.start.held,
        fitted.best.held,
        fitted.best.epoch,
        fitted.epochs_run,
        100.0 * fitted.start.held_first,
        100.0 * fitted.best.held_first,
    );
    std::fs::write(&args.out, render_policy(&fitted.table, &header))
        .map_err(|e| UsageError(format!("cannot write {}: {e}", args.out.display())))?;
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let line = serde_json::json!({
            "positions": set.train_len() + set.held_len(),
            "train": set.train_len(),
            "held_out": set.held_len(),
            "skipped": set.skipped,
            "forcing": set.forcing,
            "start_held_loss": fitted.start.held,
            "best_held_loss": fitted.best.held,
            "start_first": fitted.start.held_first,
            "best_first": fitted.best.held_first,
            "best_epoch": fitted.best.epoch,
            "epochs": fitted.epochs_run,
            "seconds": seconds,
            "out": args.out.display().to_string(),
            "table": policy_file(table_for),
            "policy": true,
        });
        println!("{line}");
    } else {
        println!(
            "held-out cross-entropy {:.4} → {:.4} (best epoch {} of {}), the search's move \
             first in {:.1}% → {:.1}%, {} positions, {:.0} s; values written to {}",
            fitted.start.held,
            fitted.best.held,
            fitted.best.epoch,
            fitted.epochs_run,
            100.0 * fitted.start.held_first,
            100.0 * fitted.best.held_first,
            set.train_len() + set.held_len(),
            seconds,
            args.out.display()
        );
    }
    Ok(())
}

/// `caro train --network`: fits a network over line patterns to
/// `samples`, added to `table_for`'s evaluation, and writes its file.
fn run_network(
    args: &TrainArgs,
    samples: &[Sample],
    table_for: caro_core::Rule,
    started: Instant,
) -> Result<(), UsageError> {
    let settings = TrainSettings {
        lambda: args.lambda,
        scale: args.scale,
        epochs: args.epochs,
        patience: args.patience,
        learning_rate: args.lr.unwrap_or(0.001),
        ..TrainSettings::default()
    };
    let set = NetworkSet::new(samples, &settings);
    SetSizes {
        read: samples.len(),
        train: set.train_len(),
        held: set.held_len(),
        skipped: set.skipped,
        skipped_as: "as proven results",
        forcing: set.forcing,
    }
    .check_and_report()?;
    let start = args.start.as_deref().map(read_network).transpose()?;
    let fitted = fit_network(&set, &settings, args.seed, start.as_ref(), |e| {
        let _ = writeln!(
            std::io::stderr(),
            "epoch {}: train {:.6} held-out {:.6}",
            e.epoch,
            e.train,
            e.held
        );
    });
    std::fs::write(&args.out, fitted.network.to_bytes())
        .map_err(|e| UsageError(format!("cannot write {}: {e}", args.out.display())))?;
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let line = serde_json::json!({
            "positions": set.train_len() + set.held_len(),
            "train": set.train_len(),
            "held_out": set.held_len(),
            "skipped": set.skipped,
            "forcing": set.forcing,
            "start_held_loss": fitted.start.held,
            "best_held_loss": fitted.best.held,
            "best_epoch": fitted.best.epoch,
            "epochs": fitted.epochs_run,
            "seconds": seconds,
            "out": args.out.display().to_string(),
            "rule": table_rule(table_for).to_string(),
            "network": true,
        });
        println!("{line}");
    } else {
        let from = if args.start.is_some() {
            "with the start network"
        } else {
            "with the tables alone"
        };
        println!(
            "held-out loss {:.5} {from} → {:.5} with the network (best epoch {} of {}), {} \
             positions, {:.0} s; network written to {}",
            fitted.start.held,
            fitted.best.held,
            fitted.best.epoch,
            fitted.epochs_run,
            set.train_len() + set.held_len(),
            seconds,
            args.out.display()
        );
    }
    Ok(())
}
