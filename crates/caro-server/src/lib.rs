//! caro's web app: one axum server with the page embedded in the binary and
//! the games in an embedded SQLite file, or in a PostgreSQL database that
//! several instances share.
//!
//! The server owns the truth: the page renders the game it is sent and
//! posts intents (play here, undo, stop…) naming the ply they apply to.
//! Every change is stored before it is answered, and pushed to every page
//! watching the game over server-sent events. Computer moves are searched
//! on a bounded pool of blocking threads, off the async runtime. The
//! database's reads and writes are awaited: PostgreSQL's on the runtime
//! itself, SQLite's on its blocking threads; no lock but one game's turn
//! to write is held while the database works.
//!
//! Where each concern lives is mapped in docs/web.md ("The server's
//! files").

#![deny(missing_docs)]

pub mod account;
mod analysis_socket;
mod api;
mod app;
mod assets;
mod catalog;
pub mod cluster;
pub mod listen;
pub mod live;
pub mod online_socket;
pub mod pool;
pub mod rating;
pub mod rating_audit;
mod socket;
pub mod store;

pub use api::{
    RequestLimits, ACCOUNTS_PER_HOUR, GAMES_PER_MINUTE, LOGINS_PER_MINUTE, ONLINE_GAMES_PER_HOUR,
};
pub use app::App;
pub(crate) use app::{link_next, search_lease_ms, Entry};
pub use catalog::{Catalog, PlayerInfo};

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use caro_engine::PlayerSource;

use crate::store::StoreError;

/// How to run the server.
pub struct Config {
    /// Address to listen on.
    pub bind: SocketAddr,
    /// Folder for the SQLite database, when no other database is named
    /// (created if missing).
    pub data_dir: PathBuf,
    /// The database: `sqlite:PATH` or `postgres://…` (default: SQLite in
    /// `data_dir`). A PostgreSQL database may be shared by several
    /// instances ([`cluster`]).
    pub database: Option<store::Database>,
    /// Connections to PostgreSQL each instance keeps.
    pub db_pool: usize,
    /// This instance's name among several ([`cluster::default_instance_name`]
    /// when not set).
    pub instance: Option<String>,
    /// External engines offered besides the built-in players, by name.
    pub engines: Vec<Arc<dyn PlayerSource>>,
    /// Searches run at once (default: the number of cores).
    pub search_threads: usize,
    /// Searches that may wait for a thread before the server says it is
    /// busy.
    pub queue_limit: usize,
    /// Most unfinished online games one client address may have open
    /// (default [`online_socket::MAX_OPEN_GAMES`]).
    pub max_online_per_client: usize,
    /// Caps and timeouts of client connections.
    pub connections: listen::ConnectionLimits,
    /// Per-client rate limits on creating games and accounts and on
    /// log-ins.
    pub requests: RequestLimits,
    /// The address people reach the server at (`https://caro.example`),
    /// when it is behind a proxy: session cookies are `Secure` when it is
    /// https, and only pages from its origin may write with a session.
    /// Without it, a request's own `Host` is its origin.
    pub public_url: Option<PublicUrl>,
}

/// The server's public address, as an origin (`scheme://host[:port]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicUrl {
    origin: String,
}

/// A public address that is not an http(s) URL.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("the public URL \"{0}\" is not http://HOST[:PORT] or https://HOST[:PORT] (a path after it is ignored)")]
pub struct PublicUrlError(String);

impl std::str::FromStr for PublicUrl {
    type Err = PublicUrlError;

    fn from_str(s: &str) -> Result<PublicUrl, PublicUrlError> {
        let bad = || PublicUrlError(s.to_string());
        let (scheme, rest) = s.trim().split_once("://").ok_or_else(bad)?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(bad());
        }
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        let valid = |c: char| c.is_ascii_alphanumeric() || "-.:[]".contains(c);
        if authority.is_empty() || !authority.chars().all(valid) {
            return Err(bad());
        }
        Ok(PublicUrl {
            origin: format!("{scheme}://{}", authority.to_ascii_lowercase()),
        })
    }
}

impl PublicUrl {
    /// `scheme://host[:port]`.
    #[must_use]
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether people reach the server over https.
    #[must_use]
    pub fn is_https(&self) -> bool {
        self.origin.starts_with("https://")
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The data folder could not be created.
    #[error("cannot create the data folder {path}: {source}")]
    DataDir {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The data folder cannot be written.
    #[error("cannot write in the data folder {path}: {source}; caro serve stores every game there as it is played (make it writable, or choose another with --data DIR)")]
    ReadOnly {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The database could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The server stopped with an I/O error.
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
}

/// Starts the server and serves until the process ends. Calls `ready` with
/// the bound address (useful with port 0) before serving.
///
/// # Errors
/// [`ServerError`] when the data folder, database or address fails.
pub async fn serve(config: Config, ready: impl FnOnce(SocketAddr)) -> Result<(), ServerError> {
    let config = Arc::new(config);
    let app = App::open(&config).await?;
    tokio::spawn(Arc::clone(&app).resume_waiting());
    {
        let app = Arc::clone(&app);
        tokio::spawn(async move { app.rate_pending().await });
    }
    let clocks = app.arm_clocks(false).await?;
    // From now on a game read from a shared store has run on elsewhere.
    app.charge_clocks.store(true, Ordering::SeqCst);
    cluster::start(&app);
    if clocks > 0 {
        tracing::info!("{clocks} online games' clocks run again");
    }
    let listener = tokio::net::TcpListener::bind(config.bind)
        .await
        .map_err(|source| ServerError::Bind {
            addr: config.bind,
            source,
        })?;
    let addr = listener.local_addr()?;
    ready(addr);
    let router = api::router(Arc::clone(&app), &config.requests);
    tokio::select! {
        () = listen::serve(listener, router, config.connections.clone()) => {}
        () = shutdown_signal() => {
            // Every change is stored as it is made: nothing to save. The
            // other instances are told at once that this one's sockets
            // are gone; its clients reconnect (to another instance behind
            // a proxy).
            tracing::info!("stopping");
            cluster::leave(&app).await;
        }
    }
    Ok(())
}

/// Resolves on SIGTERM or SIGINT (Ctrl-C).
async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}

/// [`serve`] on a runtime of its own, for a synchronous caller (the `caro`
/// binary): blocks until the server stops.
///
/// # Errors
/// As [`serve`], or [`ServerError::Io`] when the runtime cannot start.
pub fn serve_blocking(config: Config, ready: impl FnOnce(SocketAddr)) -> Result<(), ServerError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let served = runtime.block_on(serve(config, ready));
    // Searches in flight are not waited for: their games are stored as
    // they were, and another instance (or the next start) searches again.
    runtime.shutdown_timeout(Duration::from_secs(2));
    served
}

/// The default data folder: `$XDG_DATA_HOME/caro`, else
/// `~/.local/share/caro`, else `./caro-data`.
#[must_use]
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("caro");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(home).join(".local/share/caro");
    }
    PathBuf::from("caro-data")
}
