//! `caro tune`: SPSA over the search's run-time tunables
//! ([`caro_engine::search::TUNABLES`]), by game pairs of caro against
//! itself at a fixed node count, each pair one opening played with both
//! colours between the two perturbed tunings ([`caro_engine::spsa`]).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use caro_core::{Color, Pos, Rules};
use caro_engine::arena::{play_game, GameSettings};
use caro_engine::search::{CaroPlayer, Tunable, Tuning, TUNABLES};
use caro_engine::spsa::{Perturbation, Spsa, SpsaSettings};
use caro_engine::{Limits, Player};
use clap::Args;
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::movelists::{game_openings, RandomOpenings};
use crate::rulesargs::RulesArgs;
use crate::UsageError;

/// What `caro tune --help` ends with.
pub const EXAMPLES: &str = "\
Examples:
  caro tune --list
  caro tune --params rfp_margin,futility_margin --iterations 4000 --openings openings/freestyle15-book.txt -j 2
  caro tune --iterations 20000 --openings openings/freestyle15-book.txt -j 2 --json > tune.json
  caro tune --start rfp_margin=90 --params rfp_margin --iterations 100 --nodes 2000";

/// `caro tune`'s options.
#[derive(Args, Debug)]
pub struct TuneArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// The tunables to move, comma-separated (default: every one; --list
    /// names them).
    #[arg(long)]
    pub params: Option<String>,
    /// Start from these values (name=value, comma-separated) instead of
    /// the engine's defaults; the values not named keep the defaults.
    #[arg(long)]
    pub start: Option<String>,
    /// Iterations of the run: game pairs, one each.
    #[arg(long, default_value_t = 2_000)]
    pub iterations: u64,
    /// Nodes of each move's search (caro at full strength, one thread).
    #[arg(long, default_value_t = 25_000)]
    pub nodes: u64,
    /// File of opening move lists, one per line (# comments), a pair on
    /// each in turn; without it, random openings of --opening-plies near
    /// the centre.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Plies of each random opening, when no --openings.
    #[arg(long, default_value_t = 4)]
    pub opening_plies: usize,
    /// Game pairs played at once (one search thread each game).
    #[arg(short = 'j', long, default_value_t = 1)]
    pub jobs: usize,
    /// Seed of the perturbations and random openings: the same seed, the
    /// same run (with -j 1).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The learning rate at the end of the run (SPSA's r_end): how far a
    /// result moves a value, in perturbations squared.
    #[arg(long, default_value_t = 0.002)]
    pub r_end: f64,
    /// Print the values so far every this many iterations (0: never).
    #[arg(long, default_value_t = 100)]
    pub every: u64,
    /// Hash table of each game's engines, in MiB.
    #[arg(long, default_value_t = 16)]
    pub hash_mb: usize,
    /// Print one JSON line at the end.
    #[arg(long)]
    pub json: bool,
    /// List the tunables with their defaults, ranges and end
    /// perturbations, and stop.
    #[arg(long)]
    pub list: bool,
}

/// Runs `caro tune`.
///
/// # Errors
/// A [`UsageError`] for bad options, an unreadable openings file or an
/// illegal opening.
pub fn run(args: &TuneArgs) -> Result<(), UsageError> {
    if args.list {
        print_list();
        return Ok(());
    }
    let tunables = chosen_tunables(args.params.as_deref())?;
    let start = match &args.start {
        Some(list) => Tuning::parse(list).map_err(|e| UsageError(format!("--start: {e}")))?,
        None => Tuning::default(),
    };
    if args.iterations == 0 {
        return Err(UsageError("--iterations must be at least 1".to_string()));
    }
    if args.nodes == 0 {
        return Err(UsageError("--nodes must be at least 1".to_string()));
    }
    if !(1..=64).contains(&args.jobs) {
        return Err(UsageError("-j must be from 1 to 64".to_string()));
    }
    if !(args.r_end > 0.0 && args.r_end < 1.0) {
        return Err(UsageError(
            "--r-end must be above 0 and below 1".to_string(),
        ));
    }
    let rules = args.rules.rules()?;
    let openings = openings(args, rules)?;
    let mut settings = SpsaSettings::new(args.iterations);
    settings.r_end = args.r_end;
    let spsa = Arc::new(Mutex::new(Spsa::new(tunables, start, settings)));
    let next = Arc::new(AtomicU64::new(1));
    let score = Arc::new(Mutex::new(PairTally::default()));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..args.jobs {
            let (spsa, next, score, openings) = (&spsa, &next, &score, &openings);
            scope.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k > args.iterations {
                    break;
                }
                let mut rng = StdRng::seed_from_u64(args.seed.wrapping_mul(1_000_003) ^ k);
                let p = lock(spsa).perturb(k, &mut rng);
                let opening = &openings[((k - 1) as usize) % openings.len()];
                let result = play_pair(&p, opening, rules, args);
                let mut s = lock(spsa);
                s.update(&p, result);
                lock(score).add(result);
                let done = s.done();
                if args.every > 0 && done % args.every == 0 {
                    eprintln!(
                        "iteration {done}/{}, {:.0} s: {}",
                        args.iterations,
                        started.elapsed().as_secs_f64(),
                        values_line(&s.values())
                    );
                }
            });
        }
    });
    let spsa = lock(&spsa);
    let tally = *lock(&score);
    let values = spsa.values();
    let tuning = spsa.current();
    let seconds = started.elapsed().as_secs_f64();
    if args.json {
        let map: serde_json::Map<String, serde_json::Value> = values
            .iter()
            .map(|(t, v)| (t.name.to_string(), serde_json::json!(v)))
            .collect();
        let line = serde_json::json!({
            "iterations": spsa.done(),
            "nodes": args.nodes,
            "values": map,
            "tuning": tuning.to_string(),
            "plus_wins": tally.plus_wins,
            "minus_wins": tally.minus_wins,
            "seconds": seconds,
            "games_per_hour": (2.0 * spsa.done() as f64 * 3600.0 / seconds.max(1e-3)).round(),
        });
        println!("{line}");
    } else {
        println!(
            "{} game pairs at {} nodes in {:.0} s; the perturbed tunings won {} and {} games",
            spsa.done(),
            args.nodes,
            seconds,
            tally.plus_wins,
            tally.minus_wins
        );
        println!("values: {}", values_line(&values));
        println!("tuning: {tuning}");
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panicking worker leaves the state as it was before its update.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Games won by the plus and the minus tunings over the run.
#[derive(Clone, Copy, Debug, Default)]
struct PairTally {
    plus_wins: u64,
    minus_wins: u64,
}

impl PairTally {
    fn add(&mut self, result: f64) {
        // A pair's result is the plus side's wins less its losses; a
        // draw counts for neither.
        if result > 0.0 {
            self.plus_wins += result as u64;
        } else {
            self.minus_wins += (-result) as u64;
        }
    }
}

/// The tunables named in `list` (every one where none is given).
fn chosen_tunables(list: Option<&str>) -> Result<Vec<&'static Tunable>, UsageError> {
    let Some(list) = list else {
        return Ok(TUNABLES.iter().collect());
    };
    let mut out: Vec<&'static Tunable> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let t = caro_engine::search::tuning::tunable(name)
            .map_err(|e| UsageError(format!("--params: {e}")))?;
        if !out.iter().any(|o| o.name == t.name) {
            out.push(t);
        }
    }
    if out.is_empty() {
        return Err(UsageError("--params names no tunable".to_string()));
    }
    Ok(out)
}

fn print_list() {
    let d = Tuning::default();
    println!("tunable                default      range            end perturbation");
    for t in TUNABLES {
        println!(
            "{:<22} {:<12} {:<16} {}",
            t.name,
            format_value(t, t.get(&d)),
            format!("{}..={}", t.min, t.max),
            t.step
        );
    }
}

fn format_value(t: &Tunable, v: f64) -> String {
    if t.integer {
        format!("{}", v.round() as i64)
    } else {
        format!("{v:.4}")
    }
}

/// The values as `name=value`, comma-separated, reals to two places for
/// an integer tunable (SPSA moves them by fractions).
fn values_line(values: &[(&'static Tunable, f64)]) -> String {
    values
        .iter()
        .map(|(t, v)| {
            if t.integer {
                format!("{}={v:.2}", t.name)
            } else {
                format!("{}={v:.4}", t.name)
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Every pair's opening: the file's lists in turn, or random ones.
fn openings(args: &TuneArgs, rules: Rules) -> Result<Vec<Vec<Pos>>, UsageError> {
    let random = RandomOpenings {
        count: args.iterations.min(10_000) as usize,
        plies: args.opening_plies,
        seed: args.seed,
    };
    game_openings(args.openings.as_deref(), rules, &random)
}

/// The pair of games on `opening`, the plus tuning black in the first:
/// the plus tuning's wins less its losses.
fn play_pair(p: &Perturbation, opening: &[Pos], rules: Rules, args: &TuneArgs) -> f64 {
    let player = |tuning: Tuning| {
        let mut c = CaroPlayer::new(10, args.seed);
        c.set_hash_mb(args.hash_mb);
        c.set_tuning(tuning);
        c
    };
    let (mut plus, mut minus) = (player(p.plus), player(p.minus));
    let settings = GameSettings {
        rules,
        opening: opening.to_vec(),
        limits: Limits {
            nodes: Some(args.nodes),
            ..Limits::default()
        },
        forfeit_after: None,
        match_time: None,
        increment: None,
        threads: [None, None],
        // As in `caro match`: a pair on an opening that came round before
        // is not a replay.
        node_jitter: 0.1,
        seed: args.seed.wrapping_mul(1_000_003) ^ p.k,
    };
    let mut result = 0.0;
    for plus_colour in [Color::Black, Color::White] {
        let (black, white): (&mut dyn Player, &mut dyn Player) = match plus_colour {
            Color::Black => (&mut plus, &mut minus),
            Color::White => (&mut minus, &mut plus),
        };
        // The openings were checked legal: a game always comes back.
        if let Ok(game) = play_game(black, white, &settings) {
            match game.ending.winner() {
                Some(c) if c == plus_colour => result += 1.0,
                Some(_) => result -= 1.0,
                None => {}
            }
        }
    }
    result
}
