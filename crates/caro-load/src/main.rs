//! `caro-load`: a load generator for caro's online play.
//!
//! Starts `caro serve` instances of its own (loopback, port 0, a fresh data
//! folder each; one by default, on its SQLite file; several on one
//! PostgreSQL database with `--instances N`), opens N online games at once,
//! each played by two WebSocket clients that answer every position with a
//! random legal move, and reports moves per second, two latencies at p50
//! and p99 — a move sent until its own update comes back ("own"), and until
//! the opponent's socket has it ("cross", from one instance to another when
//! there are several) — and each instance's memory.
//!
//! Game `i` is created on instance `i % N`; its first seat connects to
//! instance `i % N`, its second to `(i + 1) % N`, so with two instances or
//! more every move crosses instances. `--kill-after SECS` kills instance 0
//! (SIGKILL) in the middle of the games: its clients reconnect to the next
//! live instance with their seat token, read the game again and play on;
//! the moves a reconnection's first view brings are timed apart from the
//! two latencies.
//!
//! With `--accounts N` the games are rated lobby games instead: N
//! accounts sign up, game `i` is a rated seek posted by account `2i mod N`
//! and taken by account `2i + 1 mod N`, and each seat plays over its
//! session cookie (no seat token). Afterwards every stored rating is
//! checked against a replay of the Glicko-2 updates from the stored games
//! (`caro_server::rating_audit`): nothing lost, nothing counted twice.
//!
//! Afterwards every game is read back (from a surviving instance, and again
//! from a fresh instance started on the same database once all are killed)
//! and compared with what its players saw: every move a player saw stored
//! must be at its ply, no point stored twice, nothing stored that no
//! player saw. Any difference, or a client that gave up, makes the exit
//! status 1.
//!
//! ```sh
//! cargo build --release -p caro -p caro-load
//! target/release/caro-load --games 1000 --think-ms 500
//! target/release/caro-load --games 1000 --think-ms 500 --instances 2 \
//!     --fresh-postgres postgres://postgres@127.0.0.1:5432/test --kill-after 20
//! target/release/caro-load --games 1000 --think-ms 200 --accounts 500
//! ```

mod check;
mod client;
mod server;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::{json, Value};
use tokio::sync::oneshot;

use caro_server::store::scratch::ScratchDatabase;
use check::Check;
use client::{Auth, ClientEnd, ClientPlan, Counters, GameClock};
use server::{ServeSpec, Server};

/// Load generator for caro's online play.
#[derive(Parser, Debug)]
#[command(name = "caro-load", version, about)]
struct Args {
    /// The caro binary to run as the server.
    #[arg(long, default_value = "target/release/caro")]
    caro: PathBuf,
    /// Games played at once (two WebSocket clients each).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    games: u32,
    /// Board side (the server takes 3 to 60).
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u8).range(3..=60))]
    size: u8,
    /// Pause of each client before it answers (the server allows a socket
    /// 20 messages a second).
    #[arg(long, default_value_t = 60)]
    think_ms: u64,
    /// Seed of the random moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The database every instance uses (`caro serve --database URL`):
    /// sqlite:PATH or postgres://USER@HOST/DB. Default: each instance's
    /// SQLite file in its own data folder.
    #[arg(long, value_name = "URL", conflicts_with = "fresh_postgres")]
    database: Option<String>,
    /// Create a fresh database (caro_load_PID_RANDOM) on the PostgreSQL
    /// server at URL, run on it, and drop it at the end (see --keep).
    #[arg(long, value_name = "URL")]
    fresh_postgres: Option<String>,
    /// Keep the database made by --fresh-postgres.
    #[arg(long, requires = "fresh_postgres")]
    keep: bool,
    /// `caro serve` instances on the database (two or more need PostgreSQL).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    instances: u32,
    /// Kill instance 0 (SIGKILL) this many seconds after the games start;
    /// its clients reconnect to the next instance (needs --instances 2 or more).
    #[arg(long, value_name = "SECS")]
    kill_after: Option<f64>,
    /// Rated lobby games between this many accounts (at least 2), each
    /// seat played over its session cookie; the ratings are then checked
    /// against a Glicko-2 replay of the stored games. 0: online games by
    /// seat token.
    #[arg(long, default_value_t = 0)]
    accounts: u32,
    /// One more argument for every `caro serve` (repeat it), e.g.
    /// --serve-arg=--db-pool=8.
    #[arg(long = "serve-arg", value_name = "ARG", allow_hyphen_values = true)]
    serve_args: Vec<String>,
}

/// Why the run failed.
#[derive(Debug, thiserror::Error)]
enum LoadError {
    #[error("cannot start the server {0}: {1}")]
    Spawn(PathBuf, std::io::Error),
    #[error("the server did not say where it listens: {0:?}")]
    NoAddress(String),
    #[error("http: {0}")]
    Http(String),
    #[error("websocket: {0}")]
    Socket(String),
    #[error("postgres: {0}")]
    Postgres(String),
    #[error("{0}")]
    Usage(String),
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// p50, p99 and max of `latencies`, in ms.
fn summary(latencies: &mut [Duration]) -> (f64, f64, f64) {
    latencies.sort();
    (
        ms(percentile(latencies, 0.50)),
        ms(percentile(latencies, 0.99)),
        ms(latencies.last().copied().unwrap_or_default()),
    )
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let fresh = match &args.fresh_postgres {
        Some(url) => {
            let (url, name) = (
                url.clone(),
                format!(
                    "caro_load_{}_{:08x}",
                    std::process::id(),
                    rand::random::<u32>()
                ),
            );
            let made =
                tokio::task::spawn_blocking(move || ScratchDatabase::create(&url, &name)).await;
            match made {
                Ok(Ok(f)) => Some(f),
                Ok(Err(e)) => {
                    eprintln!(
                        "error: {}: {e}",
                        shown(args.fresh_postgres.as_deref().unwrap_or(""))
                    );
                    return std::process::ExitCode::from(2);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    return std::process::ExitCode::from(2);
                }
            }
        }
        None => None,
    };
    let database = fresh
        .as_ref()
        .map(|f| f.url.clone())
        .or_else(|| args.database.clone());
    let outcome = run(&args, database).await;
    if let Some(f) = fresh {
        if args.keep {
            println!("kept database {} ({})", f.name, shown(&f.url));
        } else {
            match tokio::task::spawn_blocking(move || f.drop_database()).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => eprintln!("error: dropping the run's database: {e}"),
                Err(e) => eprintln!("error: {e}"),
            }
        }
    }
    match outcome {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

/// A database URL as it may be shown: without its password.
fn shown(url: &str) -> String {
    url.parse::<caro_server::store::Database>()
        .map_or_else(|_| "the database URL".to_string(), |d| d.to_string())
}

/// An instance and its figures.
struct Instance {
    server: Option<Server>,
    pid: u32,
    addr: String,
    idle_kib: u64,
    /// The peak memory, read when it was killed.
    peak_kib: Option<u64>,
    /// Seconds into the games it was killed at.
    killed_at: Option<f64>,
}

/// Creates `n` online games, game `i` through instance `i % N`.
fn create_games(
    addrs: &[String],
    n: usize,
    size: u8,
) -> Result<Vec<(i64, String, String)>, LoadError> {
    let agent: ureq::Agent = ureq::Agent::config_builder().build().into();
    (0..n)
        .map(|i| {
            let addr = &addrs[i % addrs.len()];
            let mut res = agent
                .post(&format!("http://{addr}/api/online"))
                .send_json(json!({"width": size}))
                .map_err(|e| LoadError::Http(e.to_string()))?;
            let v: Value = res
                .body_mut()
                .read_json()
                .map_err(|e| LoadError::Http(e.to_string()))?;
            Ok((
                v["id"].as_i64().unwrap_or(0),
                v["black"]["token"].as_str().unwrap_or_default().to_string(),
                v["white"]["token"].as_str().unwrap_or_default().to_string(),
            ))
        })
        .collect()
}

/// Signs up `n` accounts on `addr`: their session tokens.
fn sign_up(addr: &str, n: usize) -> Result<Vec<String>, LoadError> {
    let agent: ureq::Agent = ureq::Agent::config_builder().build().into();
    (0..n)
        .map(|i| {
            let res = agent
                .post(&format!("http://{addr}/api/account"))
                .send_json(json!({"name": format!("load{i:05}"), "password": "load password"}))
                .map_err(|e| LoadError::Http(format!("sign-up {i}: {e}")))?;
            let cookie = res
                .headers()
                .get("set-cookie")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            cookie
                .split(';')
                .next()
                .and_then(|kv| kv.strip_prefix("caro_session="))
                .map(str::to_string)
                .ok_or_else(|| LoadError::Http(format!("sign-up {i}: no session cookie")))
        })
        .collect()
}

/// Makes `n` rated games from seeks: game `i` posted (as black) by account
/// `2i mod N` on instance `i % I` and taken by account `2i + 1 mod N` on
/// the next instance. Each seat is its account's session.
fn seek_games(
    addrs: &[String],
    sessions: &[String],
    n: usize,
) -> Result<Vec<(i64, Auth, Auth)>, LoadError> {
    let agent: ureq::Agent = ureq::Agent::config_builder().build().into();
    let k = sessions.len();
    (0..n)
        .map(|i| {
            let (poster, taker) = (&sessions[(2 * i) % k], &sessions[(2 * i + 1) % k]);
            let post_at = &addrs[i % addrs.len()];
            let take_at = &addrs[(i + 1) % addrs.len()];
            let seek: Value = agent
                .post(&format!("http://{post_at}/api/seeks"))
                .header("Cookie", &format!("caro_session={poster}"))
                .send_json(json!({"rated": true, "colour": "black"}))
                .and_then(|mut r| r.body_mut().read_json())
                .map_err(|e| LoadError::Http(format!("seek {i}: {e}")))?;
            let id = seek["id"].as_i64().unwrap_or(0);
            let game: Value = agent
                .post(&format!("http://{take_at}/api/seeks/{id}/accept"))
                .header("Cookie", &format!("caro_session={taker}"))
                .send_empty()
                .and_then(|mut r| r.body_mut().read_json())
                .map_err(|e| LoadError::Http(format!("taking seek {id}: {e}")))?;
            Ok((
                game["id"].as_i64().unwrap_or(0),
                Auth::Session(poster.clone()),
                Auth::Session(taker.clone()),
            ))
        })
        .collect()
}

/// Every rating of the database checked against a Glicko-2 replay of its
/// stored games.
async fn audit_ratings(database: &str) -> Result<caro_server::rating_audit::Audit, LoadError> {
    let db = database
        .parse::<caro_server::store::Database>()
        .map_err(|e| LoadError::Usage(e.to_string()))?;
    let store = caro_server::store::Store::open(&db, 1)
        .await
        .map_err(|e| LoadError::Postgres(e.to_string()))?;
    caro_server::rating_audit::audit(&store)
        .await
        .map_err(|e| LoadError::Postgres(e.to_string()))
}

/// Reads every game from `base` on a blocking thread and checks it.
async fn check_from(
    base: String,
    ids: Arc<Vec<i64>>,
    ends: Arc<Vec<ClientEnd>>,
) -> Result<Check, LoadError> {
    tokio::task::spawn_blocking(move || check::check_all(&base, &ids, &ends))
        .await
        .map_err(|e| LoadError::Http(e.to_string()))?
}

async fn run(args: &Args, database: Option<String>) -> Result<bool, LoadError> {
    let shared = database
        .as_deref()
        .is_some_and(|d| d.starts_with("postgres://") || d.starts_with("postgresql://"));
    if args.instances > 1 && !shared {
        return Err(LoadError::Usage(
            "several instances share the games only on PostgreSQL: give --database postgres://... or --fresh-postgres URL".into(),
        ));
    }
    if args.kill_after.is_some() && args.instances < 2 {
        return Err(LoadError::Usage(
            "--kill-after needs --instances 2 or more".into(),
        ));
    }
    let n_inst = args.instances as usize;
    let folders = (0..n_inst)
        .map(|_| tempfile::tempdir())
        .collect::<Result<Vec<_>, _>>()?;
    // Instance `i` on folder `i`; the one started again at the end on
    // folder 0, which holds the SQLite file of a single instance.
    let spec = |i: usize| ServeSpec {
        caro: &args.caro,
        data: folders[i % n_inst].path(),
        database: database.as_deref(),
        instance: database.as_ref().map(|_| format!("load-{i}")),
        extra: &args.serve_args,
    };
    let mut instances = Vec::new();
    for i in 0..n_inst {
        let server = server::start(&spec(i)).await?;
        instances.push(Instance {
            pid: server.pid,
            addr: server.addr.clone(),
            idle_kib: server::memory_kib(server.pid, "VmRSS").unwrap_or(0),
            server: Some(server),
            peak_kib: None,
            killed_at: None,
        });
    }
    let addrs: Arc<Vec<String>> = Arc::new(instances.iter().map(|s| s.addr.clone()).collect());

    // Create the games first, so that all of them are played at once.
    let rated = args.accounts > 0;
    if rated && (args.accounts < 2 || args.size != 15) {
        return Err(LoadError::Usage(
            "--accounts needs at least 2 accounts and rated games are on 15x15".into(),
        ));
    }
    let size = args.size;
    let n = args.games as usize;
    let create_addrs = Arc::clone(&addrs);
    let accounts = args.accounts as usize;
    let games = tokio::task::spawn_blocking(move || {
        if accounts > 0 {
            let sessions = sign_up(&create_addrs[0], accounts)?;
            seek_games(&create_addrs, &sessions, n)
        } else {
            Ok(create_games(&create_addrs, n, size)?
                .into_iter()
                .map(|(id, black, white)| (id, Auth::Seat(black), Auth::Seat(white)))
                .collect())
        }
    })
    .await
    .map_err(|e| LoadError::Http(e.to_string()))??;

    let counters = Arc::new(Counters::default());
    let started = Instant::now();
    let think = Duration::from_millis(args.think_ms);
    let mut tasks = Vec::new();
    for (i, (id, black, white)) in games.iter().cloned().enumerate() {
        let clock = Arc::new(GameClock::default());
        for (me, auth, seat) in [("black", black, 0u8), ("white", white, 1u8)] {
            let plan = ClientPlan {
                addrs: Arc::clone(&addrs),
                home: (i + seat as usize) % n_inst,
                id,
                auth,
                me,
                seat,
                size,
                think,
                seed: args.seed.wrapping_mul(1_000_003) ^ (i as u64 * 2 + u64::from(seat)),
                clock: Arc::clone(&clock),
                counters: Arc::clone(&counters),
            };
            tasks.push(tokio::spawn(client::client(plan)));
        }
    }

    // Instance 0 killed mid-run, unless the games end first.
    let (done_tx, done_rx) = oneshot::channel::<()>();
    let killer = match args.kill_after {
        Some(secs) => {
            let mut victim = instances[0].server.take();
            let pid = instances[0].pid;
            Some(tokio::spawn(async move {
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_secs_f64(secs.max(0.0))) => {
                        let peak = server::memory_kib(pid, "VmHWM");
                        if let Some(s) = victim.as_mut() {
                            let _ = s.child.start_kill();
                            let _ = s.child.wait().await;
                        }
                        (victim, peak, Some(started.elapsed().as_secs_f64()))
                    }
                    _ = done_rx => (victim, None, None),
                }
            }))
        }
        None => None,
    };

    let mut ends = Vec::with_capacity(tasks.len());
    for task in tasks {
        ends.push(task.await.unwrap_or_else(|e| ClientEnd {
            failure: Some(e.to_string()),
            ..ClientEnd::default()
        }));
    }
    let elapsed = started.elapsed();
    let _ = done_tx.send(());
    if let Some(killer) = killer {
        let (victim, peak, at) = killer
            .await
            .map_err(|e| LoadError::Io(std::io::Error::other(e.to_string())))?;
        instances[0].server = victim;
        instances[0].peak_kib = peak;
        instances[0].killed_at = at;
    }
    for inst in instances.iter_mut() {
        if inst.killed_at.is_none() {
            inst.peak_kib = server::memory_kib(inst.pid, "VmHWM");
        }
    }

    let ids: Arc<Vec<i64>> = Arc::new(games.iter().map(|g| g.0).collect());
    let ends = Arc::new(ends);
    // Read from a surviving instance: what the cluster serves.
    let mut check = Check::default();
    let mut read_from = Vec::new();
    if n_inst > 1 {
        let survivor = instances
            .iter()
            .rposition(|s| s.killed_at.is_none())
            .unwrap_or(n_inst - 1);
        check.add(
            &check_from(
                format!("http://{}", instances[survivor].addr),
                Arc::clone(&ids),
                Arc::clone(&ends),
            )
            .await?,
        );
        read_from.push(format!("instance {survivor}"));
    }
    // Kill every instance without warning and start one again on the same
    // database: what the database holds.
    for inst in instances.iter_mut() {
        if let Some(mut s) = inst.server.take() {
            let _ = s.child.kill().await;
        }
    }
    let mut again = server::start(&spec(n_inst)).await?;
    check.add(
        &check_from(
            format!("http://{}", again.addr),
            Arc::clone(&ids),
            Arc::clone(&ends),
        )
        .await?,
    );
    read_from.push("a restarted instance".to_string());
    let _ = again.child.kill().await;
    // The ratings, from the database itself.
    let audit = if rated {
        let database = database.clone().unwrap_or_else(|| {
            format!(
                "sqlite:{}",
                folders[0].path().join("caro.sqlite3").display()
            )
        });
        Some(audit_ratings(&database).await?)
    } else {
        None
    };

    let mut own: Vec<Duration> = ends.iter().flat_map(|e| e.own.iter().copied()).collect();
    let mut cross: Vec<Duration> = ends.iter().flat_map(|e| e.cross.iter().copied()).collect();
    let (own50, own99, own_max) = summary(&mut own);
    let (cross50, cross99, cross_max) = summary(&mut cross);
    let mut failover: Vec<Duration> = ends
        .iter()
        .flat_map(|e| e.failover.iter().copied())
        .collect();
    let (failover50, _, failover_max) = summary(&mut failover);
    let moves = counters.moves.load(Ordering::Relaxed);
    let reconnects = counters.reconnects.load(Ordering::Relaxed);
    let errors: u64 = ends.iter().map(|e| e.errors).sum();
    let stalls: u64 = ends.iter().map(|e| e.stalls).sum();
    let in_flight_stored: u64 = ends.iter().map(|e| e.in_flight_stored).sum();
    let in_flight_lost: u64 = ends.iter().map(|e| e.in_flight_lost).sum();
    let failures: Vec<&str> = ends.iter().filter_map(|e| e.failure.as_deref()).collect();
    let per_second = moves as f64 / elapsed.as_secs_f64();
    let db = database
        .as_deref()
        .map_or_else(|| "SQLite".to_string(), shown);
    let memory: Vec<String> = instances
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let killed = s
                .killed_at
                .map(|t| format!(", killed at {t:.1} s"))
                .unwrap_or_default();
            format!(
                "#{i} {} → {} MiB{killed}",
                s.idle_kib / 1024,
                s.peak_kib.unwrap_or(0) / 1024
            )
        })
        .collect();
    println!(
        "{n} concurrent games ({} sockets), {size}x{size}, {n_inst} instance{} on {db}: {moves} moves in {:.1} s, {per_second:.0} moves/s; own latency p50 {own50:.2} ms, p99 {own99:.2} ms, max {own_max:.1} ms; cross latency p50 {cross50:.2} ms, p99 {cross99:.2} ms, max {cross_max:.1} ms; memory {}; {reconnects} reconnects (moves unanswered when their socket closed: {in_flight_stored} found stored, {in_flight_lost} not), {stalls} stalls, {errors} refused commands, {} failed clients",
        2 * n,
        if n_inst == 1 { "" } else { "s" },
        elapsed.as_secs_f64(),
        memory.join(", "),
        failures.len(),
    );
    println!(
        "read back from {}: lost acknowledged moves: {}, duplicated: {}, stored but never acknowledged: {}, stored games differing from what was played: {}, unfinished: {}, unreadable: {}",
        read_from.join(" and "),
        check.lost,
        check.duplicated,
        check.unacknowledged,
        check.differing,
        check.unfinished,
        check.unreadable,
    );
    if let Some(a) = &audit {
        println!(
            "ratings: {} rated games of {n}, {} standings, {}",
            a.games,
            a.standings,
            if a.clean() {
                "every rating equals its Glicko-2 replay from the stored games".to_string()
            } else {
                format!("{} differences from the replay", a.faults.len())
            }
        );
        for f in a.faults.iter().take(5) {
            eprintln!("rating: {f}");
        }
    }
    if !failover.is_empty() {
        println!(
            "{} moves first seen in the game a reconnection brought, timed apart: p50 {failover50:.1} ms, max {failover_max:.1} ms from sending",
            failover.len()
        );
    }
    for f in failures.iter().take(5) {
        eprintln!("client failed: {f}");
    }
    let mut drops: HashMap<&str, usize> = HashMap::new();
    for why in ends.iter().flat_map(|e| e.drops.iter()) {
        *drops.entry(why.as_str()).or_default() += 1;
    }
    let mut drops: Vec<_> = drops.into_iter().collect();
    drops.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    for (why, count) in drops.iter().take(5) {
        eprintln!("reconnected {count} times after: {why}");
    }
    println!(
        "{}",
        json!({
            "games": n, "instances": n_inst, "database": db, "moves": moves,
            "seconds": elapsed.as_secs_f64(), "moves_per_second": per_second,
            "p50_ms": own50, "p99_ms": own99, "max_ms": own_max,
            "cross_p50_ms": cross50, "cross_p99_ms": cross99, "cross_max_ms": cross_max,
            "failover_moves": failover.len(), "failover_p50_ms": failover50,
            "failover_max_ms": failover_max,
            "memory": instances.iter().map(|s| json!({
                "rss_idle_mib": s.idle_kib / 1024,
                "rss_peak_mib": s.peak_kib.unwrap_or(0) / 1024,
                "killed_at_s": s.killed_at,
            })).collect::<Vec<_>>(),
            "reconnects": reconnects, "in_flight_stored": in_flight_stored,
            "in_flight_not_stored": in_flight_lost, "stalls": stalls, "refused": errors,
            "failed_clients": failures.len(),
            "lost": check.lost, "duplicated": check.duplicated,
            "unacknowledged": check.unacknowledged, "corrupted": check.differing,
            "unfinished": check.unfinished, "unreadable": check.unreadable,
            "rated_games": audit.as_ref().map(|a| a.games),
            "rating_faults": audit.as_ref().map(|a| a.faults.len()),
        })
    );
    // A refused command is a fault unless an instance died under it.
    let refused_ok = errors == 0 || args.kill_after.is_some();
    let ratings_ok = audit.as_ref().is_none_or(|a| a.clean() && a.games == n);
    Ok(failures.is_empty() && check.clean() && refused_ok && ratings_ok)
}
