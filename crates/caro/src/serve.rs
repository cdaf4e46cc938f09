//! `caro serve` (and `caro` with no arguments): the web app.

use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::players::{parse_player_with, EngineOptions};
use crate::UsageError;

/// What `caro serve --help` ends with.
pub const EXAMPLES: &str = "\
Examples:
  caro serve                                     # open http://127.0.0.1:8080/
  caro serve --port 8000 --data ~/caro-data
  caro serve --database postgres://caro@db.example/caro   # one of several instances on PostgreSQL
  caro serve --bind 0.0.0.0 --engine pbrain:target/release/pbrain-caro   # on the network, with an engine
  RUST_LOG=warn caro serve --log-format json     # only warnings and errors, as JSON lines";

/// Options of `caro serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on; 0.0.0.0 opens the server to the network.
    #[arg(long, value_name = "ADDRESS", default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// Folder of the games database, caro.sqlite3 (default:
    /// $XDG_DATA_HOME/caro, or else ~/.local/share/caro).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// The games database: sqlite:PATH, or postgres://USER@HOST/DB for
    /// several instances sharing the games (default: the SQLite file in
    /// --data; also read from CARO_DATABASE).
    #[arg(long, value_name = "URL")]
    pub database: Option<String>,
    /// Connections to PostgreSQL this instance keeps open.
    #[arg(long, value_name = "N", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub db_pool: u32,
    /// This instance's name in logs, among several sharing a PostgreSQL
    /// database (default: HOST-PID; also read from CARO_INSTANCE).
    #[arg(long, value_name = "NAME")]
    pub instance: Option<String>,
    /// An external Gomocup engine the page may seat, as pbrain:PATH; repeat
    /// it for more (the built-in players are always offered).
    #[arg(long = "engine", value_name = "pbrain:PATH")]
    pub engines: Vec<String>,
    /// Searches run at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Searches that may wait for a thread before the server says it is
    /// busy (503 busy).
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub queue: usize,
    /// Most unfinished online games one client address may open (raise it
    /// behind a reverse proxy, where every player shares one address).
    #[arg(long, value_name = "N", default_value_t = caro_server::online_socket::MAX_OPEN_GAMES)]
    pub max_online_per_client: usize,
    /// Most connections open at once, from all clients (WebSockets
    /// included); past it a new connection is answered 503 and closed.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub max_connections: usize,
    /// Most connections open at once from one client address (raise it
    /// behind a reverse proxy, where every player shares one address).
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub max_connections_per_client: usize,
    /// Time a connection has to send a request's headers, when it opens and
    /// between requests; a connection that takes longer is closed.
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = crate::matchcmd::parse_duration)]
    pub header_timeout: Duration,
    /// Time a request has to send its whole body, from the end of its
    /// headers, however it is paced; past it the request is answered 408
    /// body_timeout.
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = crate::matchcmd::parse_duration)]
    pub body_timeout: Duration,
    /// How often a game's WebSocket is pinged (keep it under a proxy's
    /// idle timeout); a socket silent for two and a half times this is
    /// closed.
    #[arg(long, value_name = "DURATION", default_value = "20s", value_parser = parse_ping)]
    pub ws_ping: Duration,
    /// Games one client address may create a minute (a burst of N, then one
    /// every minute/N); past it 429 rate_limited. Raise it behind a reverse
    /// proxy, where every player shares one address.
    #[arg(long, value_name = "N", default_value_t = caro_server::GAMES_PER_MINUTE, value_parser = clap::value_parser!(u32).range(1..))]
    pub games_per_minute: u32,
    /// Online games one client address may create an hour, finished ones
    /// included (a burst of N, then one every hour/N); past it 429
    /// rate_limited.
    #[arg(long, value_name = "N", default_value_t = caro_server::ONLINE_GAMES_PER_HOUR, value_parser = clap::value_parser!(u32).range(1..))]
    pub online_games_per_hour: u32,
    /// Accounts one client address may make an hour (a burst of N, then
    /// one every hour/N); past it 429 rate_limited.
    #[arg(long, value_name = "N", default_value_t = caro_server::ACCOUNTS_PER_HOUR, value_parser = clap::value_parser!(u32).range(1..))]
    pub accounts_per_hour: u32,
    /// Log-in attempts from one client address a minute (a burst of N,
    /// then one every minute/N); past it 429 rate_limited. Each name is
    /// also limited to 10 attempts, then one every 30 s, from any address.
    #[arg(long, value_name = "N", default_value_t = caro_server::LOGINS_PER_MINUTE, value_parser = clap::value_parser!(u32).range(1..))]
    pub logins_per_minute: u32,
    /// The address people reach this server at, when it is behind a proxy
    /// (https://caro.example): session cookies are then Secure for https,
    /// and writes with a session are accepted only from that origin.
    #[arg(long, value_name = "URL")]
    pub public_url: Option<caro_server::PublicUrl>,
    /// Log lines on standard error as text or as one JSON object a line.
    /// Which lines: the RUST_LOG variable (default "info": start-up, one
    /// line a request, every server error).
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

/// How `caro serve` writes its log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object a line.
    Json,
}

/// Standard error as the log's output, where a line that cannot be
/// written (nobody reads the log any more, a full disk) is dropped: a log
/// write never fails, so it never fails a request or stops a thread.
/// (tracing-subscriber's own writer reports a failed write with
/// `eprintln!`, which panics when standard error is a closed pipe: the
/// request being logged was never answered.)
struct LossyStderr;

impl Write for LossyStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // One event is one write of its whole line.
        let _ = io::stderr().write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = io::stderr().flush();
        Ok(())
    }
}

/// Installs the log on standard error, filtered by `RUST_LOG` (default
/// `info`).
fn init_logging(format: LogFormat) {
    let filter = match tracing_subscriber::EnvFilter::try_from_default_env() {
        Ok(filter) => filter,
        Err(e) => {
            if std::env::var_os("RUST_LOG").is_some() {
                let _ = writeln!(
                    io::stderr(),
                    "warning: RUST_LOG is not a log filter ({e}); logging at info"
                );
            }
            // PostgreSQL's notices (a table that already exists…) are not news.
            tracing_subscriber::EnvFilter::new("info,tokio_postgres=warn")
        }
    };
    let log = tracing_subscriber::fmt()
        .with_env_filter(filter)
        // Colours for a terminal only, not for a file or a log collector.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(|| LossyStderr)
        .log_internal_errors(false);
    // A second install (only possible in tests) keeps the first.
    let _ = match format {
        LogFormat::Text => log.try_init(),
        LogFormat::Json => log.json().try_init(),
    };
}

impl ServeArgs {
    /// The defaults, as `caro` with no arguments uses them.
    pub fn defaults() -> ServeArgs {
        ServeArgs {
            port: 8080,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            data: None,
            database: None,
            db_pool: 16,
            instance: None,
            engines: Vec::new(),
            threads: None,
            queue: 64,
            max_online_per_client: caro_server::online_socket::MAX_OPEN_GAMES,
            max_connections: 10_000,
            max_connections_per_client: 256,
            header_timeout: Duration::from_secs(15),
            body_timeout: Duration::from_secs(15),
            ws_ping: caro_server::online_socket::PING_INTERVAL,
            games_per_minute: caro_server::GAMES_PER_MINUTE,
            online_games_per_hour: caro_server::ONLINE_GAMES_PER_HOUR,
            accounts_per_hour: caro_server::ACCOUNTS_PER_HOUR,
            logins_per_minute: caro_server::LOGINS_PER_MINUTE,
            public_url: None,
            log_format: LogFormat::Text,
        }
    }
}

/// Runs the web app until the process is stopped.
///
/// # Errors
/// A [`UsageError`] for a bad engine, data folder or address.
pub fn run(args: &ServeArgs) -> Result<(), UsageError> {
    init_logging(args.log_format);
    let mut engines = Vec::new();
    for name in &args.engines {
        if !name.trim().to_ascii_lowercase().starts_with("pbrain:") {
            return Err(UsageError(format!(
                "--engine takes an external engine as pbrain:PATH, not {name:?} (built-in players are always offered)"
            )));
        }
        engines.push(parse_player_with(name, &EngineOptions::default())?);
    }
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
    });
    let data_dir = args
        .data
        .clone()
        .unwrap_or_else(caro_server::default_data_dir);
    let database = args
        .database
        .clone()
        .or_else(|| std::env::var("CARO_DATABASE").ok())
        .filter(|d| !d.trim().is_empty())
        .map(|d| d.parse::<caro_server::store::Database>())
        .transpose()
        .map_err(|e| UsageError(format!("--database: {e}")))?;
    let instance = args
        .instance
        .clone()
        .or_else(|| std::env::var("CARO_INSTANCE").ok())
        .filter(|i| !i.trim().is_empty());
    let saved_in = database.as_ref().map_or_else(
        || data_dir.join("caro.sqlite3").display().to_string(),
        ToString::to_string,
    );
    let config = caro_server::Config {
        bind: SocketAddr::new(args.bind, args.port),
        data_dir: data_dir.clone(),
        database,
        db_pool: args.db_pool as usize,
        instance,
        engines,
        search_threads: threads,
        queue_limit: args.queue,
        max_online_per_client: args.max_online_per_client,
        connections: caro_server::listen::ConnectionLimits {
            max_connections: args.max_connections,
            max_per_client: args.max_connections_per_client,
            header_timeout: args.header_timeout,
            body_timeout: args.body_timeout,
            ws_ping: args.ws_ping,
        },
        requests: caro_server::RequestLimits {
            games_per_minute: args.games_per_minute,
            online_games_per_hour: args.online_games_per_hour,
            accounts_per_hour: args.accounts_per_hour,
            logins_per_minute: args.logins_per_minute,
        },
        public_url: args.public_url.clone(),
    };
    caro_server::serve_blocking(config, |addr| {
        tracing::info!(
            version = env!("CARGO_PKG_VERSION"),
            address = %addr,
            data = %data_dir.display(),
            database = %saved_in,
            "caro is ready"
        );
        // Scripts and tests wait for this line, even through a pipe (and
        // a closed one is no reason to stop serving).
        let mut out = io::stdout().lock();
        let _ = writeln!(
            out,
            "caro is ready at http://{addr}/ (games saved in {saved_in})"
        )
        .and_then(|()| out.flush());
    })
    .map_err(|e| UsageError(e.to_string()))
}

/// `--ws-ping`: a duration of at least 100 ms.
fn parse_ping(text: &str) -> Result<Duration, UsageError> {
    let ping = crate::matchcmd::parse_duration(text)?;
    if ping < Duration::from_millis(100) {
        return Err(UsageError(format!(
            "--ws-ping {text}: pinging more often than every 100 ms would flood the sockets"
        )));
    }
    Ok(ping)
}
