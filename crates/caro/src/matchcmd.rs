//! `caro match A B`: a series between two players, refereed by the core.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use caro_core::notation::format_move_list;
use caro_core::opening::{Choice, Opening};
use caro_core::psq::{write_psq, PsqRecord};
use caro_core::{BoardSize, Color, Game, Pos, Rules};
use caro_engine::arena::{play_game, GameSettings, PlayedGame, Tally};
use caro_engine::sprt::{Decision, Pentanomial, Sprt};
use caro_engine::Limits;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

use crate::match_opening;
use crate::movelists::read_move_lists;
use crate::out::say;
use crate::players::{parse_player_with, EngineOptions};
use crate::rulesargs::RulesArgs;
use crate::UsageError;

/// What `caro match --help` ends with.
pub const EXAMPLES: &str = "\
Examples:
  caro match caro:5 scoremap --games 10 --time 100ms
  caro match caro:10 caro:8 --games 100 --time 100ms --rule renju \\
      --openings openings/renju15-balanced.txt -j 2 --sprt 0,30 --json
  caro match pbrain:new/pbrain-caro pbrain:base/pbrain-caro --nodes 20000 --games 40000 \\
      --openings openings/freestyle15-book.txt -j 2 --sprt 0,5 --label \"my change\"
  caro match pbrain:target/release/pbrain-caro caro:5 --games 4 --time 200ms --match-time 10s \\
      --psq games/ --engine-log logs/";

/// Options of `caro match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// Player A: random, scoremap, quintuple, minimax:N (0 to 4), caro:N
    /// (1 to 10), or pbrain:PATH for a Gomocup engine.
    #[arg(value_name = "A")]
    a: String,
    /// Player B, named as A is.
    #[arg(value_name = "B")]
    b: String,
    /// Number of games (colours alternate; each opening is played twice).
    #[arg(long, value_name = "N", default_value_t = 100)]
    games: usize,
    /// Time per move, such as 100ms or 1s (unset: a pbrain engine is told
    /// 5s, and caro with no limit at all searches to depth 8).
    #[arg(long, value_name = "DURATION")]
    time: Option<String>,
    /// Depth limit per move.
    #[arg(long, value_name = "N")]
    depth: Option<u32>,
    /// Node limit per move.
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// With --nodes, each move's limit is drawn at random from N × (1 ±
    /// this share), for both players alike, from --seed: engines at a
    /// fixed node count play the same game again on the same opening, and
    /// this makes every game of a match longer than its book its own
    /// (0: exactly N).
    #[arg(long, value_name = "SHARE", default_value_t = 0.1)]
    node_jitter: f64,
    /// Threads of each search, 1 to 64: one number for both players, or
    /// A's and B's (2,1). caro uses more than one at level 10 only.
    #[arg(long, value_name = "N|A,B")]
    threads: Option<String>,
    #[command(flatten)]
    rules: RulesArgs,
    /// Openings file: one move list per line (h8 i9 j10), # comments;
    /// the games go through the openings in turn. The repository's
    /// openings/*-balanced.txt hold balanced sets (from random openings
    /// black wins most games between strong players).
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Opening rule of every game: free (the default: the --openings move
    /// lists or random ones), or one of renju's tournament openings,
    /// soosorv8 (soosorvN, N from 1 to 16) or taraguchi10, played by the
    /// two players through every phase (caro's players only: a pbrain
    /// engine cannot take part; --rule renju). The player who opens
    /// alternates.
    #[arg(long, value_name = "NAME", default_value = "free")]
    opening: String,
    /// Plies of each random opening, near the centre, when no --openings
    /// file is given (default 2, or 0 on boards smaller than 9).
    #[arg(long, value_name = "N")]
    opening_plies: Option<usize>,
    /// Time added to each side's clock after each of its moves, such as
    /// 100ms (with --match-time).
    #[arg(long, value_name = "DURATION", requires = "match_time")]
    inc: Option<String>,
    /// Games played at once (up to 64), with a progress bar.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// Seed for openings and players: the same seed, the same openings.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// Save every game as a PSQ file in this folder (made if missing).
    #[arg(long, value_name = "DIR")]
    psq: Option<PathBuf>,
    /// End the output with one JSON line of the totals.
    #[arg(long)]
    json: bool,
    /// Each side's clock for a whole game, such as 10s (a side whose clock
    /// runs out loses on time).
    #[arg(long, value_name = "DURATION")]
    match_time: Option<String>,
    /// Grace a pbrain engine gets past its time before its move is late
    /// (a late move loses the game).
    #[arg(long, value_name = "DURATION", default_value = "100ms")]
    tolerance: String,
    /// Keep each pbrain engine's dialogue in a log file in this folder.
    #[arg(long, value_name = "DIR")]
    engine_log: Option<PathBuf>,
    /// Stop as soon as a sequential test decides between "A is ELO0
    /// stronger" and "A is ELO1 stronger" (logistic Elo, 5% error each
    /// way), counted over game pairs (pentanomial), such as --sprt 0,5.
    #[arg(long, value_name = "ELO0,ELO1")]
    sprt: Option<String>,
    /// The change under test, named in the summary row for
    /// docs/engine-changes.md (default: A's name).
    #[arg(long, value_name = "TEXT")]
    label: Option<String>,
    /// Write each opening's results to this file: one tab-separated line
    /// per opening (its moves, games, black's wins, white's wins, draws,
    /// A's score), to tell openings that one colour wins whoever plays it
    /// from those that test strength.
    #[arg(long, value_name = "FILE")]
    by_opening: Option<PathBuf>,
}

/// Results of the games played from one opening.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct OpeningResults {
    black_wins: u32,
    white_wins: u32,
    draws: u32,
    /// A's points, doubled (a draw is one).
    a_half_points: u32,
}

impl OpeningResults {
    fn games(&self) -> u32 {
        self.black_wins + self.white_wins + self.draws
    }
}

/// The `--by-opening` report: a header, then one line per opening played.
fn opening_report(openings: &[Vec<Pos>], results: &[OpeningResults], size: BoardSize) -> String {
    let mut text = String::from("# opening\tgames\tblack_wins\twhite_wins\tdraws\ta_score\n");
    for (moves, r) in openings.iter().zip(results) {
        if r.games() == 0 {
            continue;
        }
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{:.3}\n",
            format_move_list(moves, size),
            r.games(),
            r.black_wins,
            r.white_wins,
            r.draws,
            f64::from(r.a_half_points) / 2.0 / f64::from(r.games())
        ));
    }
    text
}

/// Reads `--sprt ELO0,ELO1`.
fn parse_sprt(text: &str) -> Result<(f64, f64), UsageError> {
    let bad = || {
        UsageError(format!(
            "bad --sprt {text:?}: expected ELO0,ELO1 such as 0,30"
        ))
    };
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    let a: f64 = a.trim().parse().map_err(|_| bad())?;
    let b: f64 = b.trim().parse().map_err(|_| bad())?;
    if !a.is_finite() || !b.is_finite() || a >= b {
        return Err(bad());
    }
    Ok((a, b))
}

/// Reads `100ms`, `1s`, `2.5s`, `1m` or a bare number of milliseconds.
pub fn parse_duration(text: &str) -> Result<Duration, UsageError> {
    let t = text.trim().to_ascii_lowercase();
    let bad = || {
        UsageError(format!(
            "bad time {text:?}: expected a duration such as 100ms, 1s or 2.5s"
        ))
    };
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t.as_str(), 0.001)
    };
    let v: f64 = num.trim().parse().map_err(|_| bad())?;
    if !v.is_finite() || v < 0.0 || v * scale > 86_400.0 {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(v * scale))
}

/// `--threads`: `N` for both players or `A,B`, each from 1 to 64.
fn parse_threads(text: &str) -> Result<[Option<usize>; 2], UsageError> {
    let one = |t: &str| match t.trim().parse::<usize>() {
        Ok(n) if (1..=caro_engine::search::MAX_THREADS).contains(&n) => Ok(Some(n)),
        _ => Err(UsageError(format!(
            "--threads takes N or A,B with each from 1 to {}, not {text:?}",
            caro_engine::search::MAX_THREADS
        ))),
    };
    match text.split_once(',') {
        Some((a, b)) => Ok([one(a)?, one(b)?]),
        None => {
            let n = one(text)?;
            Ok([n, n])
        }
    }
}

/// A random opening of `plies` moves near the centre that does not end
/// the game.
pub(crate) fn random_opening(rules: &Rules, plies: usize, rng: &mut StdRng) -> Vec<Pos> {
    loop {
        let mut game = match Game::new(*rules, Color::Black) {
            Ok(g) => g,
            Err(_) => return Vec::new(),
        };
        let c = rules.size.center();
        let radius = 3i32;
        let mut tries = 0;
        while game.moves().len() < plies && tries < 1000 {
            tries += 1;
            let x = c.x as i32 + rng.random_range(-radius..=radius);
            let y = c.y as i32 + rng.random_range(-radius..=radius);
            if x < 0 || y < 0 {
                continue;
            }
            let p = Pos::new(x as u8, y as u8);
            let mut trial = game.clone();
            if trial.try_play(p).is_ok() && !trial.is_over() {
                game = trial;
            }
        }
        if game.moves().len() == plies || tries >= 1000 {
            return game.moves().to_vec();
        }
    }
}

/// Runs `caro match`.
pub fn run(args: &MatchArgs) -> Result<(), UsageError> {
    let options = EngineOptions {
        log_dir: args.engine_log.clone(),
        tolerance: parse_duration(&args.tolerance)?,
    };
    let source_a = parse_player_with(&args.a, &options)?;
    let source_b = parse_player_with(&args.b, &options)?;
    let sprt = args
        .sprt
        .as_deref()
        .map(parse_sprt)
        .transpose()?
        .map(|(elo0, elo1)| Sprt::new(elo0, elo1));
    let match_time = args.match_time.as_deref().map(parse_duration).transpose()?;
    let increment = args.inc.as_deref().map(parse_duration).transpose()?;
    // Start each player once now, so a missing engine is reported before
    // the match rather than as lost games.
    for source in [&source_a, &source_b] {
        source
            .build_player(0)
            .map_err(|e| UsageError(format!("{}: {e}", source.name())))?;
    }
    let rules = args.rules.rules()?;
    let (size, k, rule) = (rules.size, rules.k, rules.rule);
    let opening_rule: Opening = args
        .opening
        .parse()
        .map_err(|e: caro_core::opening::OpeningError| UsageError(e.to_string()))?;
    match_opening::check(opening_rule, &args.a, &args.b, rules)?;
    if opening_rule.is_renju() && (args.openings.is_some() || args.opening_plies.is_some()) {
        return Err(UsageError(format!(
            "--opening {opening_rule} plays its own opening stones: leave out --openings and \
             --opening-plies"
        )));
    }
    if args.games == 0 {
        return Err(UsageError("--games must be at least 1".to_string()));
    }
    if !(0.0..0.5).contains(&args.node_jitter) {
        return Err(UsageError(
            "--node-jitter must be from 0 to below 0.5".to_string(),
        ));
    }
    let limits = Limits {
        move_time: args.time.as_deref().map(parse_duration).transpose()?,
        time_left: None,
        increment: None,
        nodes: args.nodes,
        depth: args.depth,
        threads: None,
    };
    let threads = args
        .threads
        .as_deref()
        .map(parse_threads)
        .transpose()?
        .unwrap_or([None; 2]);
    let openings: Vec<Vec<Pos>> = match &args.openings {
        // One entry: every game's stones come from its renju opening.
        _ if opening_rule.is_renju() => vec![Vec::new()],
        Some(path) => read_move_lists(path, size, "openings")?
            .into_iter()
            .map(|(_, moves)| moves)
            .collect(),
        None => {
            let plies = args
                .opening_plies
                .unwrap_or(if size.width.max(size.height) >= 9 {
                    2
                } else {
                    0
                });
            let mut rng = StdRng::seed_from_u64(args.seed);
            (0..args.games.div_ceil(2))
                .map(|_| random_opening(&rules, plies, &mut rng))
                .collect()
        }
    };
    for (n, o) in openings.iter().enumerate() {
        Game::from_moves(rules, Color::Black, o)
            .map_err(|e| UsageError(format!("opening {}: {e}", n + 1)))?;
    }
    if let Some(dir) = &args.psq {
        std::fs::create_dir_all(dir)
            .map_err(|e| UsageError(format!("cannot create {}: {e}", dir.display())))?;
    }
    let settings = GameSettings {
        rules,
        opening: Vec::new(),
        limits,
        forfeit_after: None,
        match_time,
        increment,
        threads: [None; 2],
        node_jitter: args.node_jitter,
        seed: 0,
    };
    let bar = ProgressBar::new(args.games as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:20} {pos}/{len} games {msg} [{elapsed_precise}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let next = Arc::new(AtomicUsize::new(0));
    let (tx, rx) =
        mpsc::channel::<Result<(usize, bool, PlayedGame, Option<OpeningRecord>), String>>();
    let jobs = args.jobs.clamp(1, 64);
    let openings = Arc::new(openings);
    let mut handles = Vec::new();
    for _ in 0..jobs {
        let next = next.clone();
        let tx = tx.clone();
        let openings = openings.clone();
        let mut settings = settings.clone();
        let games = args.games;
        let seed = args.seed;
        let (source_a, source_b) = (source_a.clone(), source_b.clone());
        handles.push(std::thread::spawn(move || loop {
            let n = next.fetch_add(1, Ordering::Relaxed);
            if n >= games {
                break;
            }
            settings.opening = openings[(n / 2) % openings.len()].clone();
            settings.seed = seed.wrapping_mul(1_000_003).wrapping_add(2 * n as u64) ^ 0x6a09_e667;
            let a_is_black = n % 2 == 0;
            settings.threads = if a_is_black {
                threads
            } else {
                [threads[1], threads[0]]
            };
            let players = source_a
                .build_player(seed.wrapping_mul(1_000_003).wrapping_add(2 * n as u64))
                .and_then(|a| {
                    source_b
                        .build_player(seed.wrapping_mul(1_000_003).wrapping_add(2 * n as u64 + 1))
                        .map(|b| (a, b))
                });
            let (mut a, mut b) = match players {
                Ok(p) => p,
                Err(e) => {
                    let _ = tx.send(Err(e.to_string()));
                    break;
                }
            };
            // A renju opening: the game's opener (A in even games) plays
            // it with the other, and the colours come out of it.
            let (a_is_black, record) = if opening_rule.is_renju() {
                let opened = if n % 2 == 0 {
                    match_opening::play(opening_rule, rules, a.as_mut(), b.as_mut(), limits)
                        .map(|o| (o.opener_is_black, o))
                } else {
                    match_opening::play(opening_rule, rules, b.as_mut(), a.as_mut(), limits)
                        .map(|o| (!o.opener_is_black, o))
                };
                match opened {
                    Ok((a_black, o)) => {
                        settings.opening = o.moves;
                        (a_black, Some((opening_rule, o.choices, o.offers)))
                    }
                    Err(e) => {
                        let _ = tx.send(Err(format!("game {}: opening: {e}", n + 1)));
                        break;
                    }
                }
            } else {
                (a_is_black, None)
            };
            settings.threads = if a_is_black {
                threads
            } else {
                [threads[1], threads[0]]
            };
            let played = if a_is_black {
                play_game(a.as_mut(), b.as_mut(), &settings)
            } else {
                play_game(b.as_mut(), a.as_mut(), &settings)
            };
            match played {
                Ok(g) => {
                    if tx.send(Ok((n, a_is_black, g, record))).is_err() {
                        break;
                    }
                }
                Err(_) => break,
            }
        }));
    }
    drop(tx);
    let mut series = Series::new(openings.len());
    let mut failure: Option<String> = None;
    let mut decision = Decision::Continue;
    // Without a terminal the bar is hidden: the live line goes to stderr
    // every so many pairs instead, for a log file.
    let quiet_bar = bar.is_hidden();
    for message in rx {
        let (n, a_is_black, g, record) = match message {
            Ok(m) => m,
            Err(e) => {
                // A player could not be built: finish what runs, then stop.
                next.store(args.games, Ordering::Relaxed);
                failure.get_or_insert(e);
                continue;
            }
        };
        let pair_done = series.record(n, a_is_black, &g, &openings);
        if let Some(test) = &sprt {
            if decision == Decision::Continue {
                decision = test.decide(&series.pairs);
                if decision != Decision::Continue {
                    next.store(args.games, Ordering::Relaxed);
                }
            }
        }
        if let Some(dir) = &args.psq {
            let (black, white) = if a_is_black {
                (&args.a, &args.b)
            } else {
                (&args.b, &args.a)
            };
            save_psq(dir, n, &g, black, white, &record)?;
        }
        let line = series.live_line(sprt.as_ref());
        if quiet_bar && pair_done && series.pairs.pairs() % LOG_EVERY_PAIRS == 0 {
            eprintln!("{line} [{}s]", bar.elapsed().as_secs());
        }
        bar.set_message(line);
        bar.inc(1);
    }
    for h in handles {
        let _ = h.join();
    }
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(UsageError(format!("the match stopped: {e}")));
    }
    for e in &series.endings {
        say!("{e}");
    }
    let tally = series.tally;
    let (elo, err) = tally.elo();
    let (elo_low, elo_high) = tally.elo_interval();
    say!(
        "{} vs {}: {} games, {rule} {size} k={k}: {} wins, {} losses, {} draws, score {:.1}%, Elo {:+.0} ± {:.0} (95%: {:+.0} to {:+.0})",
        args.a,
        args.b,
        tally.games(),
        tally.wins,
        tally.losses,
        tally.draws,
        tally.score() * 100.0,
        shown(elo),
        err,
        shown(elo_low),
        shown(elo_high)
    );
    let by_color = series.by_color;
    say!(
        "{} as black: {} wins, {} losses, {} draws; as white: {} wins, {} losses, {} draws",
        args.a,
        by_color[0].wins,
        by_color[0].losses,
        by_color[0].draws,
        by_color[1].wins,
        by_color[1].losses,
        by_color[1].draws
    );
    let pairs = series.pairs;
    let (pair_elo, pair_err) = pairs.elo();
    say!(
        "pairs: {} (A's points 0, 0.5, 1, 1.5, 2: {}), score {:.2}%, logistic Elo {:+.1} ± {:.1}",
        pairs.pairs(),
        counts_text(&pairs),
        pairs.score() * 100.0,
        shown(pair_elo),
        pair_err
    );
    say!(
        "longest move: {} {} ms, {} {} ms",
        args.a,
        series.longest[0],
        args.b,
        series.longest[1]
    );
    if let Some(path) = &args.by_opening {
        std::fs::write(path, opening_report(&openings, &series.by_opening, size))
            .map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))?;
    }
    let control = control_text(args);
    if let Some(test) = &sprt {
        let llr = pairs.llr(test.elo0, test.elo1);
        say!(
            "SPRT [{}, {}] (logistic Elo, pentanomial, alpha=beta=0.05): LLR {llr:.2} in [{:.2}, {:.2}]: {}",
            test.elo0,
            test.elo1,
            test.lower,
            test.upper,
            decision.describe()
        );
    }
    say!(
        "row: | {} | {control} | {} | {:+.1} ± {:.1} | {} | {} |",
        args.label.as_deref().unwrap_or(&args.a),
        pairs.pairs(),
        shown(pair_elo),
        pair_err,
        sprt.as_ref().map_or("no test".to_string(), |t| format!(
            "{:.2} [{}, {}]",
            pairs.llr(t.elo0, t.elo1),
            t.elo0,
            t.elo1
        )),
        match (&sprt, decision) {
            (None, _) => "fixed length",
            (Some(_), Decision::H1) => "passed",
            (Some(_), Decision::H0) => "failed",
            (Some(_), Decision::Continue) => "stopped",
        }
    );
    if args.json {
        say!(
            "{}",
            json!({
                "a": args.a,
                "b": args.b,
                "games": tally.games(),
                "a_wins": tally.wins,
                "b_wins": tally.losses,
                "draws": tally.draws,
                "a_as_black": color_json(&by_color[0]),
                "a_as_white": color_json(&by_color[1]),
                "score": tally.score(),
                "elo": elo,
                "elo_error": err,
                "elo_low": elo_low,
                "elo_high": elo_high,
                "pairs": pairs.pairs(),
                "pentanomial": pairs.counts,
                "pair_score": pairs.score(),
                "pair_elo": pair_elo,
                "pair_elo_error": pair_err,
                "control": control,
                "a_longest_move_ms": series.longest[0],
                "b_longest_move_ms": series.longest[1],
                "sprt": sprt.map(|t| json!({
                    "elo0": t.elo0,
                    "elo1": t.elo1,
                    "llr": pairs.llr(t.elo0, t.elo1),
                    "lower": t.lower,
                    "upper": t.upper,
                    "result": (decision != Decision::Continue).then(|| decision.describe()),
                })),
            })
        );
    }
    Ok(())
}

/// Pairs between two lines of the live report when no terminal shows the
/// progress bar.
const LOG_EVERY_PAIRS: u32 = 100;

/// An even score gives -0.0 (and -0.3 rounds to -0): shown as +0.
fn shown(e: f64) -> f64 {
    if e.round() == 0.0 {
        0.0
    } else {
        e
    }
}

/// The five pentanomial counts, space-separated.
fn counts_text(pairs: &Pentanomial) -> String {
    pairs
        .counts
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The time control in a few words: "nodes 20000", "10s+0.1s", "100ms/move".
fn control_text(args: &MatchArgs) -> String {
    let mut parts = Vec::new();
    if let Some(n) = args.nodes {
        if args.node_jitter > 0.0 {
            parts.push(format!("nodes {n} ± {:.0}%", args.node_jitter * 100.0));
        } else {
            parts.push(format!("nodes {n}"));
        }
    }
    if let Some(d) = args.depth {
        parts.push(format!("depth {d}"));
    }
    if let Some(t) = &args.time {
        parts.push(format!("{t}/move"));
    }
    if let Some(m) = &args.match_time {
        parts.push(match &args.inc {
            Some(i) => format!("{m}+{i}"),
            None => m.clone(),
        });
    }
    if parts.is_empty() {
        "default".to_string()
    } else {
        parts.join(", ")
    }
}

/// What a series has counted so far.
struct Series {
    /// A's wins, losses and draws.
    tally: Tally,
    /// A's results as black and as white.
    by_color: [Tally; 2],
    by_opening: Vec<OpeningResults>,
    /// Completed pairs (both games of an opening, one with each colour).
    pairs: Pentanomial,
    /// A's half points in the first finished game of each pair whose
    /// second is still being played.
    waiting: std::collections::HashMap<usize, u32>,
    /// Endings other than by the rules (time, illegal moves, failures).
    endings: Vec<String>,
    /// The longest move of A and of B, in milliseconds.
    longest: [u32; 2],
}

impl Series {
    fn new(openings: usize) -> Series {
        Series {
            tally: Tally::default(),
            by_color: [Tally::default(); 2],
            by_opening: vec![OpeningResults::default(); openings],
            pairs: Pentanomial::default(),
            waiting: std::collections::HashMap::new(),
            endings: Vec::new(),
            longest: [0; 2],
        }
    }

    /// Counts game `n`; true when it completed a pair.
    fn record(
        &mut self,
        n: usize,
        a_is_black: bool,
        g: &PlayedGame,
        openings: &[Vec<Pos>],
    ) -> bool {
        let a_color = if a_is_black {
            Color::Black
        } else {
            Color::White
        };
        let side = &mut self.by_color[usize::from(!a_is_black)];
        let opening = &mut self.by_opening[(n / 2) % openings.len()];
        let half_points = match g.ending.winner() {
            Some(w) if w == a_color => {
                self.tally.wins += 1;
                side.wins += 1;
                2
            }
            Some(_) => {
                self.tally.losses += 1;
                side.losses += 1;
                0
            }
            None => {
                self.tally.draws += 1;
                side.draws += 1;
                1
            }
        };
        opening.a_half_points += half_points;
        match g.ending.winner() {
            Some(Color::Black) => opening.black_wins += 1,
            Some(Color::White) => opening.white_wins += 1,
            None => opening.draws += 1,
        }
        if !matches!(g.ending, caro_engine::arena::Ending::Rules(_)) {
            self.endings
                .push(format!("game {}: {}", n + 1, g.ending.describe()));
        }
        for (i, &ms) in g.times_ms.iter().enumerate() {
            let color = g.game.color_of_move(i);
            let who = usize::from((color == Color::Black) != a_is_black);
            self.longest[who] = self.longest[who].max(ms);
        }
        match self.waiting.remove(&(n / 2)) {
            Some(first) => {
                self.pairs.add(first + half_points);
                true
            }
            None => {
                self.waiting.insert(n / 2, half_points);
                false
            }
        }
    }

    /// The live report: pairs, W-D-L, pentanomial, Elo ± 95%, LLR.
    fn live_line(&self, sprt: Option<&Sprt>) -> String {
        let (elo, err) = self.pairs.elo();
        let mut line = format!(
            "pairs {} +{} ={} -{} [{}] Elo {:+.1} ± {:.1}",
            self.pairs.pairs(),
            self.tally.wins,
            self.tally.draws,
            self.tally.losses,
            counts_text(&self.pairs),
            shown(elo),
            err
        );
        if let Some(t) = sprt {
            line.push_str(&format!(
                " LLR {:.2} [{:.2}, {:.2}]",
                self.pairs.llr(t.elo0, t.elo1),
                t.lower,
                t.upper
            ));
        }
        line
    }
}

/// One colour's results of A in the JSON summary.
fn color_json(t: &Tally) -> serde_json::Value {
    json!({ "wins": t.wins, "losses": t.losses, "draws": t.draws })
}

/// A renju opening as played: the opening, its choices and the offered
/// 5th moves, for the game's PSQ record.
type OpeningRecord = (Opening, Vec<Choice>, Vec<Pos>);

fn save_psq(
    dir: &std::path::Path,
    n: usize,
    g: &PlayedGame,
    black: &str,
    white: &str,
    opening: &Option<OpeningRecord>,
) -> Result<(), UsageError> {
    let mut record = PsqRecord::from_game(&g.game).map_err(|e| UsageError(e.to_string()))?;
    record.times_ms.clone_from(&g.times_ms);
    if let Some((opening, choices, offers)) = opening {
        record.opening = *opening;
        record.choices.clone_from(choices);
        record.offers.clone_from(offers);
    }
    let mut text = write_psq(&record);
    text.push_str(&format!(
        "black={black} white={white} result={}\nmoves={}\n",
        g.ending.describe().replace(' ', "_"),
        format_move_list(g.game.moves(), g.game.size()).replace(' ', ",")
    ));
    let path = dir.join(format!("game-{:04}.psq", n + 1));
    std::fs::write(&path, text)
        .map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))
}
