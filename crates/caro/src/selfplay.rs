//! `caro selfplay`: training positions from games of caro against itself
//! at a fixed node count, written to a binary file
//! ([`caro_engine::dataset`], docs/training.md), or a summary of such a
//! file (`--stats`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

use caro_core::{Color, Game, Pos, Rules};
use caro_engine::dataset::{DatasetError, GameResult, Reader, Sample, Writer, EVAL_LIMIT};
use caro_engine::search::CaroPlayer;
use caro_engine::selfplay::{play_game, SelfplayGame, SelfplaySettings};
use clap::Args;
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::movelists::{game_openings, RandomOpenings};
use crate::rulesargs::RulesArgs;
use crate::UsageError;

/// What `caro selfplay --help` ends with.
pub const EXAMPLES: &str = "\
Examples:
  caro selfplay --games 1000 --out freestyle15.cpos -j 2
  caro selfplay --rule renju --openings openings/renju15-book.txt --games 500 --out renju15.cpos
  caro selfplay --rule caro --size 20 --nodes 10000 --games 200 --out caro20.cpos --append
  caro selfplay --stats freestyle15.cpos";

/// `caro selfplay`'s options.
#[derive(Args, Debug)]
pub struct SelfplayArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    pub games: u32,
    /// Nodes of each move's search (caro at full strength, one thread).
    #[arg(long, default_value_t = 25_000)]
    pub nodes: u64,
    /// File of opening move lists, one per line (# comments), used in
    /// turn; without it, random openings of --opening-plies near the
    /// centre.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Plies of each random opening, when no --openings.
    #[arg(long, default_value_t = 2)]
    pub opening_plies: usize,
    /// Random moves after the opening, each next to a stone and none
    /// ending the game: the games' variety.
    #[arg(long, default_value_t = 2)]
    pub random_plies: usize,
    /// Games played at once (one search thread each).
    #[arg(short = 'j', long, default_value_t = 1)]
    pub jobs: usize,
    /// Seed of the openings and random moves: the same seed, the same
    /// file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Hash table of each game's engine, in MiB.
    #[arg(long, default_value_t = 16)]
    pub hash_mb: usize,
    /// The file to write (refused if it exists, unless --append).
    #[arg(long, required_unless_present = "stats")]
    pub out: Option<PathBuf>,
    /// Add to an existing file, leaving out the positions it holds.
    #[arg(long)]
    pub append: bool,
    /// Print one JSON line of totals at the end.
    #[arg(long)]
    pub json: bool,
    /// Instead of playing, summarise this file of positions.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["out", "append"])]
    pub stats: Option<PathBuf>,
}

/// Runs `caro selfplay`.
///
/// # Errors
/// A [`UsageError`] for bad options, an unreadable or unwritable file, a
/// file that is not one of positions, or an engine failure.
pub fn run(args: &SelfplayArgs) -> Result<(), UsageError> {
    if let Some(path) = &args.stats {
        return print_stats(path, args.json);
    }
    let Some(out) = &args.out else {
        return Err(UsageError("--out FILE is needed".to_string()));
    };
    if args.games == 0 {
        return Err(UsageError("--games must be at least 1".to_string()));
    }
    if args.nodes == 0 {
        return Err(UsageError("--nodes must be at least 1".to_string()));
    }
    if !(1..=64).contains(&args.jobs) {
        return Err(UsageError("-j must be from 1 to 64".to_string()));
    }
    let rules = args.rules.rules()?;
    let openings = openings(args, rules)?;
    let mut seen = HashSet::new();
    let file = if args.append && out.exists() {
        for s in open_reader(out)? {
            let s = s.map_err(|e| UsageError(format!("{}: {e}", out.display())))?;
            seen.insert(s.position_key());
        }
        let f = OpenOptions::new()
            .append(true)
            .open(out)
            .map_err(|e| UsageError(format!("cannot open {}: {e}", out.display())))?;
        Writer::appending(BufWriter::new(f))
    } else {
        if out.exists() {
            return Err(UsageError(format!(
                "{} exists: give --append to add to it, or another name",
                out.display()
            )));
        }
        let f = File::create(out)
            .map_err(|e| UsageError(format!("cannot create {}: {e}", out.display())))?;
        Writer::new(BufWriter::new(f)).map_err(|e| write_error(out, &e))?
    };
    let held_before = seen.len();
    let totals = play_all(args, rules, openings, file, &mut seen, out)?;
    let elapsed = totals.started.elapsed().as_secs_f64().max(1e-3);
    let bytes = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    let per_hour = totals.written as f64 * 3600.0 / elapsed;
    if args.json {
        let line = serde_json::json!({
            "games": args.games,
            "positions": totals.written,
            "duplicates": totals.duplicates,
            "held_before": held_before,
            "black_wins": totals.black_wins,
            "white_wins": totals.white_wins,
            "draws": totals.draws,
            "seconds": elapsed,
            "positions_per_hour": per_hour.round(),
            "bytes": bytes,
            "file": out.display().to_string(),
        });
        println!("{line}");
    } else {
        println!(
            "{} games ({} black wins, {} white wins, {} draws): {} positions written, {} \
             duplicates left out, in {:.0} s ({:.0} positions an hour); {} now {} bytes",
            args.games,
            totals.black_wins,
            totals.white_wins,
            totals.draws,
            totals.written,
            totals.duplicates,
            elapsed,
            per_hour,
            out.display(),
            bytes
        );
    }
    Ok(())
}

/// Every game's opening: the file's lists in turn, or random ones.
fn openings(args: &SelfplayArgs, rules: Rules) -> Result<Vec<Vec<Pos>>, UsageError> {
    let random = RandomOpenings {
        count: args.games as usize,
        plies: args.opening_plies,
        seed: args.seed,
    };
    game_openings(args.openings.as_deref(), rules, &random)
}

struct Totals {
    started: Instant,
    written: u64,
    duplicates: u64,
    black_wins: u32,
    white_wins: u32,
    draws: u32,
}

/// Plays the games on `args.jobs` threads and writes their positions in
/// game order (so the file depends on the seed alone), leaving out the
/// positions already `seen`.
fn play_all(
    args: &SelfplayArgs,
    rules: Rules,
    openings: Vec<Vec<Pos>>,
    mut file: Writer<BufWriter<File>>,
    seen: &mut HashSet<u64>,
    out: &Path,
) -> Result<Totals, UsageError> {
    let settings = SelfplaySettings {
        nodes: args.nodes,
        random_plies: args.random_plies,
    };
    let next_game = Arc::new(AtomicU32::new(0));
    let openings = Arc::new(openings);
    let (tx, rx) = mpsc::channel::<(u32, Result<SelfplayGame, String>)>();
    let mut workers = Vec::new();
    for _ in 0..args.jobs {
        let (next_game, openings, tx) = (next_game.clone(), openings.clone(), tx.clone());
        let (games, seed, hash_mb) = (args.games, args.seed, args.hash_mb);
        workers.push(std::thread::spawn(move || loop {
            let n = next_game.fetch_add(1, Ordering::Relaxed);
            if n >= games {
                break;
            }
            let game_seed = seed
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .wrapping_add(u64::from(n));
            let mut player = CaroPlayer::new(10, game_seed);
            player.set_hash_mb(hash_mb);
            let opening = &openings[n as usize % openings.len()];
            let result = Game::from_moves(rules, Color::Black, opening)
                .map_err(|e| e.to_string())
                .and_then(|game| {
                    let mut rng = StdRng::seed_from_u64(game_seed);
                    play_game(&game, &mut player, settings, &mut rng).map_err(|e| e.to_string())
                });
            if tx.send((n, result)).is_err() {
                break;
            }
        }));
    }
    drop(tx);
    let mut totals = Totals {
        started: Instant::now(),
        written: 0,
        duplicates: 0,
        black_wins: 0,
        white_wins: 0,
        draws: 0,
    };
    let mut pending = BTreeMap::new();
    let mut next_to_write = 0u32;
    let mut failure = None;
    for (n, result) in rx {
        pending.insert(n, result);
        while let Some(result) = pending.remove(&next_to_write) {
            next_to_write += 1;
            let game = match result {
                Ok(_) if failure.is_some() => continue,
                Ok(g) => g,
                Err(e) => {
                    failure.get_or_insert(format!("game {next_to_write}: {e}"));
                    next_game.store(args.games, Ordering::Relaxed);
                    continue;
                }
            };
            match game.winner {
                Some(Color::Black) => totals.black_wins += 1,
                Some(Color::White) => totals.white_wins += 1,
                None => totals.draws += 1,
            }
            for s in &game.samples {
                if seen.insert(s.position_key()) {
                    file.write(s).map_err(|e| write_error(out, &e))?;
                    totals.written += 1;
                } else {
                    totals.duplicates += 1;
                }
            }
            if next_to_write % 10 == 0 || next_to_write == args.games {
                let _ = writeln!(
                    std::io::stderr(),
                    "games {next_to_write}/{}: {} positions, {} duplicates, {:.0} s",
                    args.games,
                    totals.written,
                    totals.duplicates,
                    totals.started.elapsed().as_secs_f64()
                );
            }
        }
    }
    for w in workers {
        let _ = w.join();
    }
    file.flush().map_err(|e| write_error(out, &e))?;
    match failure {
        Some(f) => Err(UsageError(f)),
        None => Ok(totals),
    }
}

fn write_error(path: &Path, e: &DatasetError) -> UsageError {
    UsageError(format!("cannot write {}: {e}", path.display()))
}

fn open_reader(path: &Path) -> Result<Reader<BufReader<File>>, UsageError> {
    let f =
        File::open(path).map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))?;
    Reader::new(BufReader::new(f)).map_err(|e| UsageError(format!("{}: {e}", path.display())))
}

/// What `--stats` counts for one kind of board.
#[derive(Default)]
struct KindStats {
    positions: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    proven: u64,
    stones: u64,
}

/// Prints a summary of a file of positions, per rules.
fn print_stats(path: &Path, json: bool) -> Result<(), UsageError> {
    let mut kinds: HashMap<String, KindStats> = HashMap::new();
    let mut total = 0u64;
    for s in open_reader(path)? {
        let s: Sample = s.map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
        let r = s.rules;
        let name = format!("{} {}x{} k{}", r.rule, r.size.width, r.size.height, r.k);
        let k = kinds.entry(name).or_default();
        k.positions += 1;
        match s.result {
            GameResult::Win => k.wins += 1,
            GameResult::Draw => k.draws += 1,
            GameResult::Loss => k.losses += 1,
        }
        k.proven += u64::from(s.score.abs() > EVAL_LIMIT);
        k.stones += s.stones.len() as u64;
        total += 1;
    }
    let mut names: Vec<_> = kinds.keys().cloned().collect();
    names.sort();
    if json {
        let per: Vec<_> = names
            .iter()
            .map(|n| {
                let k = &kinds[n];
                serde_json::json!({
                    "rules": n, "positions": k.positions, "wins": k.wins, "draws": k.draws,
                    "losses": k.losses, "proven": k.proven,
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::json!({ "positions": total, "kinds": per })
        );
        return Ok(());
    }
    println!("{}: {total} positions", path.display());
    for n in names {
        let k = &kinds[&n];
        let share = |v: u64| 100.0 * v as f64 / k.positions.max(1) as f64;
        println!(
            "  {n}: {} positions; side to move won {:.1}%, drew {:.1}%, lost {:.1}%; \
             {:.1}% proven results; {:.1} stones on average",
            k.positions,
            share(k.wins),
            share(k.draws),
            share(k.losses),
            share(k.proven),
            k.stones as f64 / k.positions.max(1) as f64
        );
    }
    Ok(())
}
