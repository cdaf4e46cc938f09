//! `caro-load`: a load generator for caro's online play.
//!
//! Starts a `caro serve` of its own (fresh data folder, loopback, port 0),
//! opens N online games at once, each played by two WebSocket clients that
//! answer every position with a random legal move, and reports moves per
//! second, the move latency (a move sent until its own update comes back)
//! at p50 and p99, and the server's memory. Afterwards the server is killed
//! (SIGKILL) and started again on the same data folder, so every game is
//! read back from the database file, and compared with what its players
//! saw.
//!
//! ```sh
//! cargo build --release -p caro -p caro-load
//! target/release/caro-load --games 1000
//! ```

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

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
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
}

/// What one client saw.
struct ClientEnd {
    latencies: Vec<Duration>,
    /// The moves of the last view, `[x, y]` each.
    moves: Value,
    errors: u64,
}

fn empty_points(view: &Value, size: u8) -> Vec<(u8, u8)> {
    let mut taken = vec![false; size as usize * size as usize];
    for m in view["moves"].as_array().into_iter().flatten() {
        if let (Some(x), Some(y)) = (m[0].as_u64(), m[1].as_u64()) {
            taken[y as usize * size as usize + x as usize] = true;
        }
    }
    (0..size)
        .flat_map(|y| (0..size).map(move |x| (x, y)))
        .filter(|&(x, y)| !taken[y as usize * size as usize + x as usize])
        .collect()
}

/// One seat's client: where it connects and how it plays.
struct ClientPlan {
    addr: String,
    id: i64,
    token: String,
    /// `"black"` or `"white"`, as the views name the side to move.
    me: &'static str,
    size: u8,
    think: Duration,
    seed: u64,
}

async fn client(plan: ClientPlan, moves_done: Arc<AtomicU64>) -> Result<ClientEnd, LoadError> {
    let ClientPlan {
        addr,
        id,
        token,
        me,
        size,
        think,
        seed,
    } = plan;
    let stream = TcpStream::connect(&addr).await?;
    stream.set_nodelay(true)?;
    let url = format!("ws://{addr}/api/games/{id}/ws?seat={token}");
    // Small read buffers: the default 128 KiB is zeroed on every read.
    let config = WebSocketConfig::default().read_buffer_size(4096);
    let (mut ws, _) = tokio_tungstenite::client_async_with_config(url, stream, Some(config))
        .await
        .map_err(|e| LoadError::Socket(e.to_string()))?;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut pending: Option<(u64, Instant)> = None;
    let mut end = ClientEnd {
        latencies: Vec::new(),
        moves: Value::Null,
        errors: 0,
    };
    while let Some(msg) = ws.next().await {
        let msg = msg.map_err(|e| LoadError::Socket(e.to_string()))?;
        let Message::Text(text) = msg else {
            if let Message::Close(frame) = msg {
                return Err(LoadError::Socket(format!(
                    "closed by the server: {frame:?}"
                )));
            }
            continue;
        };
        let view: Value =
            serde_json::from_str(text.as_str()).map_err(|e| LoadError::Socket(e.to_string()))?;
        match view["t"].as_str() {
            Some("game") => {}
            Some("error") => {
                end.errors += 1;
                pending = None;
                continue;
            }
            _ => continue,
        }
        let ply = view["ply"].as_u64().unwrap_or(0);
        if let Some((sent, at)) = pending {
            if ply > sent {
                end.latencies.push(at.elapsed());
                moves_done.fetch_add(1, Ordering::Relaxed);
                pending = None;
            }
        }
        end.moves = view["moves"].clone();
        if !view["result"].is_null() {
            let _ = ws.close(None).await;
            return Ok(end);
        }
        if view["to_move"] == me && pending.is_none() {
            let empty = empty_points(&view, size);
            if empty.is_empty() {
                continue;
            }
            let (x, y) = empty[rng.random_range(0..empty.len())];
            tokio::time::sleep(think).await;
            let command = json!({"t": "move", "ply": ply, "x": x, "y": y}).to_string();
            pending = Some((ply, Instant::now()));
            ws.send(Message::text(command))
                .await
                .map_err(|e| LoadError::Socket(e.to_string()))?;
        }
    }
    Err(LoadError::Socket(format!(
        "game {id}: the socket ended before the game"
    )))
}

/// A memory figure of a process from `/proc/PID/status`: `VmRSS` (now) or
/// `VmHWM` (the peak so far).
fn memory_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(clean) if clean => std::process::ExitCode::SUCCESS,
        Ok(_) => std::process::ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

/// A running `caro serve` and the address it printed.
struct Server {
    child: tokio::process::Child,
    pid: u32,
    addr: String,
}

/// Starts `caro serve` on a free loopback port with `data` as its folder.
async fn start_server(caro: &PathBuf, data: &std::path::Path) -> Result<Server, LoadError> {
    let mut child = tokio::process::Command::new(caro)
        .args([
            "serve",
            "--port",
            "0",
            // Every client of the load runs from one address.
            "--max-online-per-client",
            "1000000000",
            "--max-connections-per-client",
            "1000000000",
            "--games-per-minute",
            "1000000000",
            "--online-games-per-hour",
            "1000000000",
            "--data",
        ])
        .arg(data)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| LoadError::Spawn(caro.clone(), e))?;
    let pid = child.id().unwrap_or(0);
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| LoadError::NoAddress(String::new()))?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).await?;
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .ok_or_else(|| LoadError::NoAddress(line.clone()))?
        .to_string();
    Ok(Server { child, pid, addr })
}

async fn run(args: Args) -> Result<bool, LoadError> {
    let data = tempfile::tempdir()?;
    let server = start_server(&args.caro, data.path()).await?;
    let (pid, addr) = (server.pid, server.addr.clone());
    let base = format!("http://{addr}");
    let idle_kib = memory_kib(pid, "VmRSS").unwrap_or(0);

    // Create the games first, so that all of them are played at once.
    let size = args.size;
    let n = args.games as usize;
    let create_base = base.clone();
    let games: Vec<(i64, String, String)> = tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder().build().into();
        (0..n)
            .map(|_| {
                let mut res = agent
                    .post(&format!("{create_base}/api/online"))
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
            .collect::<Result<Vec<_>, LoadError>>()
    })
    .await
    .map_err(|e| LoadError::Http(e.to_string()))??;

    let moves_done = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let think = Duration::from_millis(args.think_ms);
    let mut tasks = Vec::new();
    for (i, (id, black, white)) in games.iter().cloned().enumerate() {
        for (me, token, k) in [("black", black, 0u64), ("white", white, 1u64)] {
            let plan = ClientPlan {
                addr: addr.clone(),
                id,
                token,
                me,
                size,
                think,
                seed: args.seed.wrapping_mul(1_000_003) ^ (i as u64 * 2 + k),
            };
            tasks.push(tokio::spawn(client(plan, Arc::clone(&moves_done))));
        }
    }
    let mut latencies = Vec::new();
    let mut seen: Vec<Value> = Vec::new();
    let mut failures = Vec::new();
    let mut errors = 0;
    for (n, task) in tasks.into_iter().enumerate() {
        match task.await {
            Ok(Ok(end)) => {
                latencies.extend(end.latencies);
                errors += end.errors;
                if n % 2 == 0 {
                    seen.push(end.moves);
                }
            }
            Ok(Err(e)) => {
                failures.push(e.to_string());
                if n % 2 == 0 {
                    seen.push(Value::Null);
                }
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    let elapsed = started.elapsed();
    latencies.sort();
    let moves = moves_done.load(Ordering::Relaxed);
    let peak_kib = memory_kib(pid, "VmHWM").unwrap_or(0);

    // Every stored game must hold exactly what its players saw, and be
    // finished. The server is killed without warning and started again, so
    // the games are read from the database file, not from its memory.
    let mut old = server.child;
    old.kill().await?;
    let server = start_server(&args.caro, data.path()).await?;
    let verify_base = format!("http://{}", server.addr);
    let ids: Vec<i64> = games.iter().map(|g| g.0).collect();
    let corrupted = tokio::task::spawn_blocking(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder().build().into();
        ids.iter()
            .zip(seen.iter())
            .filter(|(id, seen)| {
                let stored = agent
                    .get(&format!("{verify_base}/api/games/{id}"))
                    .call()
                    .ok()
                    .and_then(|mut r| r.body_mut().read_json::<Value>().ok());
                match stored {
                    Some(v) => v["moves"] != **seen || v["result"].is_null(),
                    None => true,
                }
            })
            .count()
    })
    .await
    .map_err(|e| LoadError::Http(e.to_string()))?;

    let p50 = percentile(&latencies, 0.50);
    let p99 = percentile(&latencies, 0.99);
    let max = latencies.last().copied().unwrap_or_default();
    println!(
        "{} concurrent games ({} sockets), {}x{}: {} moves in {:.1} s, {:.0} moves/s; latency p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms; server memory {} MiB idle, {} MiB peak; {} refused commands, {} failed clients, {} stored games differing from what was played",
        n,
        2 * n,
        size,
        size,
        moves,
        elapsed.as_secs_f64(),
        moves as f64 / elapsed.as_secs_f64(),
        p50.as_secs_f64() * 1000.0,
        p99.as_secs_f64() * 1000.0,
        max.as_secs_f64() * 1000.0,
        idle_kib / 1024,
        peak_kib / 1024,
        errors,
        failures.len(),
        corrupted
    );
    for f in failures.iter().take(5) {
        eprintln!("client failed: {f}");
    }
    println!(
        "{}",
        json!({
            "games": n, "moves": moves, "seconds": elapsed.as_secs_f64(),
            "moves_per_second": moves as f64 / elapsed.as_secs_f64(),
            "p50_ms": p50.as_secs_f64() * 1000.0, "p99_ms": p99.as_secs_f64() * 1000.0,
            "max_ms": max.as_secs_f64() * 1000.0,
            "rss_idle_mib": idle_kib / 1024, "rss_peak_mib": peak_kib / 1024,
            "refused": errors, "failed_clients": failures.len(), "corrupted": corrupted,
        })
    );
    let mut last = server.child;
    let _ = last.kill().await;
    Ok(failures.is_empty() && corrupted == 0 && errors == 0)
}
