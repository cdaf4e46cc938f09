//! The server's state, [`App`], shared by every request and search, and
//! its concerns, one module each: the games in memory ([`cache`]), their
//! changes ([`change`]), other instances' changes ([`refresh`]), the
//! computer's searches ([`schedule`]) and the online clocks ([`clock`]).

mod cache;
mod change;
mod clock;
mod rating;
mod refresh;
mod schedule;

pub(crate) use cache::{link_next, Entry};
pub(crate) use schedule::search_lease_ms;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::pool::EnginePool;
use crate::store::Store;
use crate::{cluster, live, store, Catalog, Config, ServerError};

/// The server's state, shared by every request and search.
pub struct App {
    pub(crate) store: Arc<Store>,
    pub(crate) catalog: Catalog,
    pub(crate) pool: EnginePool,
    pub(crate) games: Mutex<HashMap<i64, Arc<Entry>>>,
    pub(crate) max_online_per_client: usize,
    /// How often a game's WebSocket is pinged.
    pub(crate) ws_ping: std::time::Duration,
    /// Set when the database is shared with other instances.
    pub(crate) cluster: Option<Arc<cluster::Cluster>>,
    /// See [`App::charges_clocks`].
    pub(crate) charge_clocks: AtomicBool,
    /// Log-in attempts per name.
    pub(crate) logins: crate::api::account::LoginLimiter,
    /// Session cookies are `Secure` (the public address is https).
    pub(crate) secure_cookies: bool,
    /// The origin writes with a session must come from, when configured.
    pub(crate) public_origin: Option<String>,
    /// Bumped when the lobby's seeks change, here or on another instance.
    pub(crate) lobby: tokio::sync::watch::Sender<u64>,
    /// The runtime the server (and its store) runs on: the engines'
    /// threads, outside it, wait for the store there with
    /// [`tokio::runtime::Handle::block_on`].
    pub(crate) runtime: tokio::runtime::Handle,
}

impl App {
    /// Opens the database in `config.data_dir`, on the current runtime
    /// (the server's).
    ///
    /// # Errors
    /// [`ServerError`] when the folder or database cannot be set up.
    pub async fn open(config: &Config) -> Result<Arc<App>, ServerError> {
        let database = match &config.database {
            Some(database) => database.clone(),
            None => {
                std::fs::create_dir_all(&config.data_dir).map_err(|source| {
                    ServerError::DataDir {
                        path: config.data_dir.clone(),
                        source,
                    }
                })?;
                check_writable(&config.data_dir).map_err(|source| ServerError::ReadOnly {
                    path: config.data_dir.clone(),
                    source,
                })?;
                store::Database::Sqlite(config.data_dir.join("caro.sqlite3"))
            }
        };
        let store = Store::open(&database, config.db_pool).await?;
        let cluster = match &database {
            store::Database::Postgres(url) => Some(Arc::new(cluster::Cluster::new(
                url.clone(),
                &config
                    .instance
                    .clone()
                    .unwrap_or_else(cluster::default_instance_name),
            ))),
            store::Database::Sqlite(_) => None,
        };
        // Another instance running: the games' clocks ran on meanwhile.
        let charge_clocks = match &cluster {
            Some(c) => {
                store
                    .live_instances(&c.instance, live::now_ms() - cluster::DEAD_AFTER_MS)
                    .await?
                    > 0
            }
            None => false,
        };
        Ok(Arc::new(App {
            charge_clocks: AtomicBool::new(charge_clocks),
            cluster,
            store: Arc::new(store),
            catalog: Catalog::new(config.engines.clone()),
            pool: EnginePool::new(config.search_threads, config.queue_limit),
            max_online_per_client: config.max_online_per_client,
            ws_ping: config.connections.ws_ping,
            games: Mutex::new(HashMap::new()),
            logins: crate::api::account::LoginLimiter::new(),
            secure_cookies: config.public_url.as_ref().is_some_and(|u| u.is_https()),
            public_origin: config.public_url.as_ref().map(|u| u.origin().to_string()),
            lobby: tokio::sync::watch::channel(0).0,
            runtime: tokio::runtime::Handle::current(),
        }))
    }

    /// Tells the live lobbies, here and on the other instances, that the
    /// seeks changed.
    pub(crate) async fn lobby_changed(&self) {
        self.lobby.send_modify(|n| *n = n.wrapping_add(1));
        if self.is_shared() {
            if let Err(e) = self.store.notify("l 0").await {
                tracing::warn!("other instances not told of a lobby change: {e}");
            }
        }
    }

    /// Whether other instances may share the database.
    pub(crate) fn is_shared(&self) -> bool {
        self.cluster.is_some()
    }

    /// Whether a game read from the store has its running clock charged
    /// for the time since it was stored: with other instances running
    /// ([`cluster`]), except while the first instance back after an outage
    /// arms the clocks (downtime is not charged).
    pub(crate) fn charges_clocks(&self) -> bool {
        self.cluster.is_some() && self.charge_clocks.load(Ordering::SeqCst)
    }
}

/// Writes, syncs and removes a small file in `dir`: fails on a folder that
/// is read-only (or on a full disk) before the server starts.
fn check_writable(dir: &std::path::Path) -> std::io::Result<()> {
    use std::io::Write;
    let probe = dir.join(format!(".caro-write-check-{}", std::process::id()));
    let written = std::fs::File::create(&probe).and_then(|mut f| {
        f.write_all(b"caro")?;
        f.sync_all()
    });
    let _ = std::fs::remove_file(&probe);
    written
}
