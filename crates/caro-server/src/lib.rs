//! caro's web app: one axum server with the page embedded in the binary and
//! the games in an embedded SQLite file, or in a PostgreSQL database that
//! several instances share.
//!
//! The server owns the truth: the page renders the game it is sent and
//! posts intents (play here, undo, stop…) naming the ply they apply to.
//! Every change is stored before it is answered, and pushed to every page
//! watching the game over server-sent events. Computer moves are searched
//! on a bounded pool of blocking threads, off the async runtime; so are the
//! database's reads and writes, and no lock but one game's turn to write is
//! held while the database works.

#![deny(missing_docs)]

mod analysis;
mod api;
mod assets;
pub mod cluster;
pub mod listen;
pub mod live;
pub mod online;
pub mod pool;
mod socket;
pub mod store;

pub use api::{RequestLimits, GAMES_PER_MINUTE, ONLINE_GAMES_PER_HOUR};

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use caro_core::table::Turn;
use caro_engine::{
    Context, Decision, EngineError, Limits, PlayerSource, PlayerSpec, SearchInfo, StopFlag,
};
use serde::Serialize;
use tokio::sync::broadcast;

use crate::live::{at_least_even, LiveGame, Snapshot, Thinking, Ticket};
use crate::pool::{Busy, EnginePool};
use crate::store::{GameRow, Store, StoreError};

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
    /// (default [`online::MAX_OPEN_GAMES`]).
    pub max_online_per_client: usize,
    /// Caps and timeouts of client connections.
    pub connections: listen::ConnectionLimits,
    /// Per-client rate limits on creating games.
    pub requests: RequestLimits,
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

/// The players a game may seat: built-in players by name, and the engines
/// configured when the server started (a request can never name a program
/// to run).
pub struct Catalog {
    engines: Vec<Arc<dyn PlayerSource>>,
}

/// A player the home page offers.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerInfo {
    /// The name to send back.
    pub name: String,
    /// `builtin` or `engine`.
    pub kind: &'static str,
}

impl Catalog {
    /// The built-in players and these engines.
    #[must_use]
    pub fn new(engines: Vec<Arc<dyn PlayerSource>>) -> Catalog {
        Catalog { engines }
    }

    /// The player of this name, with its canonical name.
    ///
    /// # Errors
    /// A sentence naming the players that exist.
    pub fn resolve(&self, name: &str) -> Result<(String, Arc<dyn PlayerSource>), String> {
        if let Some(engine) = self.engines.iter().find(|e| e.name() == name) {
            return Ok((engine.name(), Arc::clone(engine)));
        }
        match name.parse::<PlayerSpec>() {
            Ok(spec) => Ok((spec.to_string(), Arc::new(spec))),
            Err(EngineError::UnknownPlayer(_)) if name.contains(':') && name.starts_with("pbrain") => {
                Err(format!(
                    "unknown engine {name:?}: engines are configured when the server starts (caro serve --engine pbrain:PATH)"
                ))
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// Every player the page may offer.
    #[must_use]
    pub fn list(&self) -> Vec<PlayerInfo> {
        let mut out: Vec<PlayerInfo> = ["random", "scoremap", "quintuple"]
            .iter()
            .map(|n| n.to_string())
            .chain((0..=4).map(|n| format!("minimax:{n}")))
            .chain((1..=10).map(|n| format!("caro:{n}")))
            .map(|name| PlayerInfo {
                name,
                kind: "builtin",
            })
            .collect();
        out.extend(self.engines.iter().map(|e| PlayerInfo {
            name: e.name(),
            kind: "engine",
        }));
        out
    }
}

/// One game in memory, with the channel its watchers listen on.
pub(crate) struct Entry {
    /// The game as stored: held only briefly, never while the store works.
    game: Mutex<LiveGame>,
    /// A change's turn to be stored: held from a change until its write
    /// is done and installed, so one game's changes are stored one at a
    /// time, in order.
    writes: Arc<tokio::sync::Mutex<()>>,
    events: broadcast::Sender<Arc<str>>,
    /// Online: the sockets open on each seat (first, second).
    sockets: [AtomicU32; 2],
    /// Online: the sockets open on each seat on the other instances.
    remote: [AtomicU32; 2],
    /// A read of the game from the store is on its way (other instances'
    /// changes).
    refreshing: AtomicBool,
    /// Orders the reads and writes of the game's presence.
    presence: tokio::sync::Mutex<()>,
}

impl Entry {
    fn new(live: LiveGame) -> Arc<Entry> {
        Arc::new(Entry {
            game: Mutex::new(live),
            writes: Arc::new(tokio::sync::Mutex::new(())),
            events: broadcast::channel(64).0,
            sockets: [AtomicU32::new(0), AtomicU32::new(0)],
            remote: [AtomicU32::new(0), AtomicU32::new(0)],
            refreshing: AtomicBool::new(false),
            presence: tokio::sync::Mutex::new(()),
        })
    }

    /// The game's view with, for an online game, which players are
    /// connected.
    pub(crate) fn view(&self, game: &LiveGame) -> live::GameView {
        let mut view = game.view();
        let open = [0, 1].map(|i| {
            self.sockets[i].load(Ordering::SeqCst) > 0 || self.remote[i].load(Ordering::SeqCst) > 0
        });
        view.connected = game.connected_view(open);
        view
    }

    fn lock(&self) -> MutexGuard<'_, LiveGame> {
        self.game.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends a game's view to everyone watching.
    fn publish(&self, game: &LiveGame) {
        if let Ok(json) = serde_json::to_string(&self.view(game)) {
            // No receivers is fine: nobody is watching.
            let _ = self.events.send(json.into());
        }
    }
}

/// A change taken out of its game until it is stored: the row to write,
/// and the game as the change left it.
struct Change {
    row: GameRow,
    after: Snapshot,
}

/// What [`App::prepare`] made of a change.
enum Prepared<T> {
    /// Nothing to store: done.
    Done(T, Option<Busy>),
    /// To store, then install.
    Store(T, Box<Change>),
}

/// How soon a computer's search whose move could not be stored runs again.
const STORE_RETRY: Duration = Duration::from_secs(1);

/// How many times a change is made again on a game another instance
/// changed meanwhile, before the request fails with 503 `storage`.
const CHANGE_ATTEMPTS: usize = 4;

/// How long past its expected end a claimed search is left to its
/// instance before another may take it over (an instance killed in the
/// middle of a search, or a search waiting for a free thread).
pub(crate) const SEARCH_GRACE_MS: i64 = 10_000;

/// Sets the game's claim on its computer search for a write: held from
/// now for the search's delay, its time and [`SEARCH_GRACE_MS`] when the
/// computer is to act, none otherwise.
fn claim_with_write(g: &mut LiveGame) {
    if g.computer_turn() {
        g.search_until = live::now_ms() + search_lease_ms(g);
        g.claimed = true;
    } else {
        g.search_until = 0;
        g.claimed = false;
    }
}

/// How long a claim on a game's computer search lasts, in milliseconds.
pub(crate) fn search_lease_ms(g: &LiveGame) -> i64 {
    (g.delay_ms + g.time_ms) as i64 + SEARCH_GRACE_MS
}

/// Games kept in memory before idle ones are dropped from the map (they
/// stay in the store and are loaded again when asked for).
const CACHED_GAMES: usize = 4096;

/// Drops games nobody is using from the in-memory map once it holds more
/// than [`CACHED_GAMES`]: no request, socket, timer or search holds the
/// entry, nobody listens to its events, no search is running and no online
/// offer waits for an answer (offers live in memory only). Every move is
/// already in the store, so nothing is lost.
fn evict_idle(games: &mut HashMap<i64, Arc<Entry>>) {
    if games.len() < CACHED_GAMES {
        return;
    }
    games.retain(|_, e| !is_idle(e));
}

fn is_idle(e: &Arc<Entry>) -> bool {
    Arc::strong_count(e) == 1
        && e.events.receiver_count() == 0
        && e.game.try_lock().is_ok_and(|g| {
            g.search.is_none()
                && g.online.as_ref().is_none_or(|o| {
                    o.takeback.is_none()
                        && o.draw.is_none()
                        && o.rematch == [false, false]
                        && o.next.is_none()
                })
        })
}

/// The server's state, shared by every request and search.
pub struct App {
    store: Arc<Store>,
    catalog: Catalog,
    pool: EnginePool,
    games: Mutex<HashMap<i64, Arc<Entry>>>,
    max_online_per_client: usize,
    /// How often a game's WebSocket is pinged.
    ws_ping: std::time::Duration,
    /// Set when the database is shared with other instances.
    cluster: Option<Arc<cluster::Cluster>>,
    /// See [`App::charges_clocks`].
    charge_clocks: AtomicBool,
}

impl App {
    /// Opens the database in `config.data_dir`.
    ///
    /// # Errors
    /// [`ServerError`] when the folder or database cannot be set up.
    pub fn open(config: &Config) -> Result<Arc<App>, ServerError> {
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
        let store = Store::open(&database, config.db_pool)?;
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
                store.live_instances(&c.instance, live::now_ms() - cluster::DEAD_AFTER_MS)? > 0
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
        }))
    }

    /// Runs `f` on the store on a blocking thread: the database's I/O never
    /// holds up the async workers (nor any lock but the store's own).
    ///
    /// # Errors
    /// `f`'s, or [`StoreError::Thread`] if it panicked.
    pub(crate) async fn store<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || f(&store))
            .await
            .map_err(|e| StoreError::Thread(e.to_string()))?
    }

    fn games(&self) -> MutexGuard<'_, HashMap<i64, Arc<Entry>>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A game if it is in memory.
    pub(crate) fn cached(&self, id: i64) -> Option<Arc<Entry>> {
        self.games().get(&id).cloned()
    }

    /// Every game in memory.
    pub(crate) fn cached_all(&self) -> Vec<Arc<Entry>> {
        self.games().values().cloned().collect()
    }

    /// A game, loaded from the store on first use (the map of games is not
    /// held while the store reads).
    pub(crate) async fn entry(self: &Arc<App>, id: i64) -> Result<Option<Arc<Entry>>, StoreError> {
        if let Some(e) = self.games().get(&id) {
            return Ok(Some(Arc::clone(e)));
        }
        let charge = self.charges_clocks();
        let Some(live) = self.store(move |s| load(s, id, charge)).await? else {
            return Ok(None);
        };
        let mut games = self.games();
        // Loaded by another request meanwhile: that one is the game.
        if let Some(e) = games.get(&id) {
            return Ok(Some(Arc::clone(e)));
        }
        evict_idle(&mut games);
        let version = live.version;
        let entry = Entry::new(live);
        games.insert(id, Arc::clone(&entry));
        drop(games);
        // A running clock flags whether or not this instance had the game.
        online::arm_clock(self, &entry, &entry.lock());
        if let Some(cluster) = &self.cluster {
            // Changed by another instance while it was read: read again.
            if cluster.latest(id).is_some_and(|v| v > version) {
                cluster::refresh(self, &entry);
            }
            cluster::refresh_presence(self, &entry);
            // A computer to act whose search nobody holds (its instance
            // died, or the game was stored before instances shared it).
            let (app, claiming) = (Arc::clone(self), Arc::clone(&entry));
            tokio::spawn(async move { cluster::claim_search(&app, &claiming, false).await });
        }
        Ok(Some(entry))
    }

    /// The stored next game of a match game whose link to it is missing
    /// (the request that made it was cancelled after the write): link it
    /// with [`link_next`].
    ///
    /// # Errors
    /// The store's.
    pub(crate) async fn stored_next_in_match(
        &self,
        link: &live::MatchLink,
    ) -> Result<Option<store::GameRow>, StoreError> {
        if link.next.is_some() {
            return Ok(None);
        }
        let (match_id, wanted) = (link.id, link.game_no + 1);
        self.store(move |s| {
            Ok(s.match_games(match_id)?
                .into_iter()
                .find(|g| g.game_no == wanted))
        })
        .await
    }

    /// Stores a new game and keeps it in memory.
    pub(crate) async fn insert(&self, mut live: LiveGame) -> Result<Arc<Entry>, StoreError> {
        claim_with_write(&mut live);
        let row = live.to_row();
        live.id = self.store(move |s| s.insert(&row)).await?;
        let id = live.id;
        if let Some(link) = &mut live.series {
            if !link.games.contains(&id) {
                link.games.push(id);
            }
        }
        let entry = Entry::new(live);
        let mut games = self.games();
        evict_idle(&mut games);
        games.insert(id, Arc::clone(&entry));
        Ok(entry)
    }

    /// Arms the clock of every online game whose clock was running when
    /// the server stopped, so a flag falls (and is stored) with nobody
    /// connected. Downtime is not charged: a clock restarts from the time
    /// it had at the game's last stored change ([`LiveGame::from_row`]).
    /// Returns how many clocks run. With `only_new`, games already in
    /// memory are left alone (their clocks run already).
    pub(crate) async fn arm_clocks(self: &Arc<App>, only_new: bool) -> Result<usize, StoreError> {
        let ids = self.store(Store::running_clocks).await?;
        let mut armed = 0;
        for &id in &ids {
            if only_new && self.cached(id).is_some() {
                continue;
            }
            // One game that does not load or store is that game's fault:
            // the server starts and serves the others.
            let entry = match self.entry(id).await {
                Ok(Some(entry)) => entry,
                Ok(None) => continue,
                Err(e) => {
                    tracing::error!("game {id}: its clock is not armed: {e}");
                    continue;
                }
            };
            // The first instance back after an outage restarts the clocks
            // from their stored time and stores them so: the instances
            // that join later charge from that.
            let restamp = self.cluster.is_some() && !self.charges_clocks();
            // A clock stored with no time left flags now.
            let flagged = self
                .change(&entry, |g| {
                    if !g.flag_if_out_of_time(std::time::Instant::now()) && restamp && !g.is_over()
                    {
                        g.touch();
                    }
                    Ok::<_, StoreError>(())
                })
                .await;
            if let Err(e) = flagged {
                tracing::error!("game {id}: its clock is not armed: {e}");
                continue;
            }
            online::arm_clock(self, &entry, &entry.lock());
            armed += 1;
        }
        Ok(armed)
    }

    /// Changes a game: `f` changes it or refuses (the game is then put
    /// back as it was). A change that touched the game
    /// ([`LiveGame::touch`]) is stored before anyone sees it: `f` runs on
    /// the game, which is put back as it was until the write is done, on a
    /// blocking thread. Only then is the change installed; one that cannot
    /// be stored is never seen, and the error says why. Then the clock is
    /// armed, the computer's search scheduled and the watchers sent the
    /// game (when it changed or a search started or ended). Returns what
    /// `f` returned and the pool's refusal, if the search had to wait.
    /// One game's changes are stored one at a time, in order.
    ///
    /// # Errors
    /// `f`'s error, or the store's.
    pub(crate) async fn change<T, E: From<StoreError>>(
        self: &Arc<App>,
        entry: &Arc<Entry>,
        mut f: impl FnMut(&mut LiveGame) -> Result<T, E>,
    ) -> Result<(T, Option<Busy>), E> {
        let mut turn = Arc::clone(&entry.writes).lock_owned().await;
        for _ in 0..CHANGE_ATTEMPTS {
            let (out, change) = match self.prepare(entry, &mut f)? {
                Prepared::Done(out, busy) => return Ok((out, busy)),
                Prepared::Store(out, change) => (out, change),
            };
            // The write and the install happen together, with the turn,
            // even if the caller stops waiting (a client that hangs up):
            // the game never differs from what is stored.
            let app = Arc::clone(self);
            let entry = Arc::clone(entry);
            let (held, stored) = tokio::task::spawn_blocking(move || {
                let stored = app.store_change(&entry, *change);
                (turn, stored)
            })
            .await
            .map_err(|e| StoreError::Thread(e.to_string()))?;
            turn = held;
            if let Some(busy) = stored? {
                return Ok((out, busy));
            }
        }
        Err(StoreError::Conflict(entry.lock().id).into())
    }

    /// [`App::change`] from a blocking thread (an engine's).
    fn change_blocking<T, E: From<StoreError>>(
        self: &Arc<App>,
        entry: &Arc<Entry>,
        mut f: impl FnMut(&mut LiveGame) -> Result<T, E>,
    ) -> Result<(T, Option<Busy>), E> {
        let _turn = entry.writes.blocking_lock();
        for _ in 0..CHANGE_ATTEMPTS {
            match self.prepare(entry, &mut f)? {
                Prepared::Done(out, busy) => return Ok((out, busy)),
                Prepared::Store(out, change) => {
                    if let Some(busy) = self.store_change(entry, *change)? {
                        return Ok((out, busy));
                    }
                }
            }
        }
        Err(StoreError::Conflict(entry.lock().id).into())
    }

    /// Writes a prepared change over the version it was made on and
    /// installs it: `Some` with the pool's refusal, if any. `None` when
    /// another instance changed the game first: the game is then read
    /// again, and the caller makes its change again on it. Blocks; call
    /// it with the game's turn to write.
    fn store_change(
        self: &Arc<App>,
        entry: &Arc<Entry>,
        change: Change,
    ) -> Result<Option<Option<Busy>>, StoreError> {
        let Change { row, after } = change;
        if self.store.update(&row)? {
            return Ok(Some(self.install(entry, after)));
        }
        self.refresh_blocking(entry)?;
        Ok(None)
    }

    /// Applies another instance's change, carried by its notification, to
    /// the game in memory when it is the next version of a game outside a
    /// match: no read of the database. `false` when it is not (the caller
    /// reads the game instead). Call it with the game's turn to write.
    pub(crate) fn apply_change(
        self: &Arc<App>,
        entry: &Arc<Entry>,
        version: i64,
        columns: store::ChangedColumns,
    ) -> bool {
        let mut g = entry.lock();
        if g.version >= version {
            return true;
        }
        if g.version + 1 != version || g.series.is_some() || columns.next_id != 0 {
            return false;
        }
        let mut row = g.to_row();
        columns.apply_to(&mut row);
        row.version = version;
        let Ok(mut fresh) = LiveGame::from_row(&row) else {
            return false;
        };
        if self.charges_clocks() {
            fresh.charge_since_stored(live::now_ms(), std::time::Instant::now());
        }
        g.adopt(fresh);
        online::arm_clock(self, entry, &g);
        entry.publish(&g);
        true
    }

    /// Whether other instances may share the database.
    pub(crate) fn is_shared(&self) -> bool {
        self.cluster.is_some()
    }

    /// Whether a game read from the store has its running clock charged
    /// for the time since it was stored: with other instances running
    /// ([`cluster`]), except while the first instance back after an outage
    /// arms the clocks (downtime is not charged).
    fn charges_clocks(&self) -> bool {
        self.cluster.is_some() && self.charge_clocks.load(Ordering::SeqCst)
    }

    /// [`App::refresh_blocking`] with the game's turn, from a request.
    ///
    /// # Errors
    /// The store's.
    pub(crate) async fn refresh(self: &Arc<App>, entry: &Arc<Entry>) -> Result<(), StoreError> {
        let turn = Arc::clone(&entry.writes).lock_owned().await;
        let (app, entry) = (Arc::clone(self), Arc::clone(entry));
        tokio::task::spawn_blocking(move || {
            let _turn = turn;
            app.refresh_blocking(&entry)
        })
        .await
        .map_err(|e| StoreError::Thread(e.to_string()))?
    }

    /// Reads the game again from the store, as another instance left it,
    /// and sends it to the watchers. Blocks; call it with the game's turn
    /// to write.
    ///
    /// # Errors
    /// The store's; [`StoreError::Damaged`] if the game is gone.
    pub(crate) fn refresh_blocking(self: &Arc<App>, entry: &Arc<Entry>) -> Result<(), StoreError> {
        let id = entry.lock().id;
        let fresh = load(&self.store, id, self.charges_clocks())?.ok_or(StoreError::Damaged {
            id,
            reason: "the game is no longer stored".into(),
        })?;
        let mut g = entry.lock();
        // Nothing newer: this instance's own write (whose notification can
        // come back before the write is installed), or a read that another
        // one overtook. The game, its search and its claim stay.
        if fresh.version <= g.version {
            return Ok(());
        }
        g.adopt(fresh);
        online::arm_clock(self, entry, &g);
        entry.publish(&g);
        Ok(())
    }

    /// Runs `f` on the game. A change to store is taken out again (the
    /// game stays as it was) and returned with the row to write; a change
    /// that touched nothing stored (pause, speed…) stays.
    fn prepare<T, E>(
        self: &Arc<App>,
        entry: &Arc<Entry>,
        f: &mut impl FnMut(&mut LiveGame) -> Result<T, E>,
    ) -> Result<Prepared<T>, E> {
        let mut g = entry.lock();
        let before = g.snapshot();
        let searching = g.search.is_some();
        let out = match f(&mut g) {
            Ok(out) => out,
            Err(e) => {
                g.restore(before);
                return Err(e);
            }
        };
        if !g.changed_since(&before) {
            let busy = self.schedule(entry, &mut g).err();
            if g.search.is_some() != searching {
                entry.publish(&g);
            }
            return Ok(Prepared::Done(out, busy));
        }
        // The instance that stores a change to a computer's turn holds
        // that search (until the lease runs out).
        claim_with_write(&mut g);
        let row = g.to_row();
        g.version += 1;
        let change = Box::new(Change {
            row,
            after: g.snapshot(),
        });
        g.restore(before);
        Ok(Prepared::Store(out, change))
    }

    /// Installs a stored change: the game as `f` left it (the search it
    /// dropped stops), then the clock, the computer and the watchers.
    fn install(self: &Arc<App>, entry: &Arc<Entry>, after: Snapshot) -> Option<Busy> {
        let mut g = entry.lock();
        g.install(after);
        online::arm_clock(self, entry, &g);
        let busy = self.schedule(entry, &mut g).err();
        entry.publish(&g);
        busy
    }

    /// Starts the computer's search if a computer is to move and none is
    /// thinking. The search runs on the engine pool; its move is played,
    /// stored and published, and the next search scheduled.
    ///
    /// # Errors
    /// [`Busy`] when the pool's queue is full: the game is put on the
    /// pool's wait list and its search starts by itself when a search
    /// finishes ([`App::resume_waiting`]).
    pub(crate) fn schedule(
        self: &Arc<App>,
        entry: &Arc<Entry>,
        game: &mut LiveGame,
    ) -> Result<(), Busy> {
        if game.search.is_some() || game.is_over() {
            return Ok(());
        }
        // Shared by several instances: only the one holding the claim
        // searches.
        if self.cluster.is_some() && !game.claimed {
            return Ok(());
        }
        let stepping = game.paused && game.step_pending;
        let turn = game.table.turn();
        let Some(seat) = turn.seat() else {
            return Ok(());
        };
        if !game.table.sitter(seat).is_computer() || game.paused && !stepping {
            return Ok(());
        }
        // A swap decision is a search of the position too: the table
        // decides from its score.
        let choosing = matches!(turn, Turn::Choose { .. });
        // In a renju opening every step is the engine's opening player's.
        let opening_table = (game.table.opening().opening().is_renju()
            && !game.table.colors_decided())
        .then(|| Box::new(game.table.clone()));
        let color = game.game().to_move();
        let idx = seat.index();
        let name = game.table.sitter(seat).name().to_string();
        // A player that is gone (an engine no longer configured) fails the
        // game from the search's thread, which stores it like a move.
        let source = self
            .catalog
            .resolve(&name)
            .map(|(_, source)| source)
            .map_err(|reason| {
                EngineError::External(format!("{name} is not available on this server: {reason}"))
            });
        let delay = if game.computers_only() && !game.game().moves().is_empty() && !stepping {
            Duration::from_millis(game.delay_ms)
        } else {
            Duration::ZERO
        };
        let stop = StopFlag::new();
        let generation = game.generation;
        let ticket = Ticket {
            ply: game.game().moves().len(),
            generation,
            stop: stop.clone(),
        };
        let (game_id, version, limits_ms) = (game.id, game.version, game.time_ms as i64);
        let player = game.players[idx].take();
        let position = game.game().clone();
        let limits = Limits::time(Duration::from_millis(game.time_ms));
        let seed = (game.id as u64) << 16 | game.game().moves().len() as u64;
        let app = Arc::clone(self);
        let job_entry = Arc::clone(entry);
        let job = move || {
            let mut player = match player {
                Some(p) => p,
                None => match source.and_then(|source| source.build_player(seed)) {
                    Ok(p) => p,
                    Err(e) => {
                        let answer = if choosing { Answer::Swap } else { Answer::Move };
                        app.finish_search(&job_entry, generation, idx, None, Err(e), answer);
                        return;
                    }
                },
            };
            if app.cluster.is_some() {
                // The lease runs from the search's start, not from the
                // write that asked for it (it may have waited for a thread).
                let until = live::now_ms() + limits_ms + SEARCH_GRACE_MS;
                if let Err(e) = app.store.hold_search(game_id, version, until) {
                    tracing::warn!("game {game_id}: holding its search: {e}");
                }
            }
            player.new_game();
            let size = position.size();
            let progress_entry = Arc::clone(&job_entry);
            let mut relayed: Option<std::time::Instant> = None;
            let relay_app = Arc::clone(&app);
            let mut progress = |info: &SearchInfo| {
                let thinking = Thinking::from_info(color, info, size);
                let relay = {
                    let mut g = progress_entry.lock();
                    if g.generation != generation {
                        return;
                    }
                    g.thinking = Some(thinking.clone());
                    progress_entry.publish(&g);
                    (g.id, g.version)
                };
                if relay_app.cluster.is_some()
                    && relayed.is_none_or(|at| at.elapsed() >= cluster::RELAY_EVERY)
                {
                    relayed = Some(std::time::Instant::now());
                    cluster::relay_thinking(&relay_app, relay.0, relay.1, Some(&thinking));
                }
            };
            let mut opening_choice = None;
            let result = if let Some(table) = &opening_table {
                let per_eval = caro_engine::renju_opening::per_eval_limits(limits);
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    caro_engine::renju_opening::opening_action(
                        table,
                        player.as_mut(),
                        per_eval,
                        &stop,
                    )
                }))
                .unwrap_or_else(|_| Err(EngineError::External(format!("{name} crashed"))))
                .map(|action| {
                    use caro_engine::renju_opening::OpeningAction;
                    let best = match action {
                        OpeningAction::Choose(c) => {
                            opening_choice = Some(c);
                            position.size().center()
                        }
                        OpeningAction::Place(p)
                        | OpeningAction::Offer(p)
                        | OpeningAction::Pick(p) => p,
                    };
                    Decision { best, info: None }
                })
            } else {
                let mut ctx = Context::new(limits, stop, &mut progress);
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    player.choose(&position, &mut ctx)
                }))
                .unwrap_or_else(|_| Err(EngineError::External(format!("{name} crashed"))))
            };
            let answer = match opening_choice {
                Some(choice) => Answer::Opening(choice),
                None if choosing => Answer::Swap,
                None => Answer::Move,
            };
            app.finish_search(&job_entry, generation, idx, Some(player), result, answer);
        };
        match self.pool.submit(delay, job) {
            Ok(()) => {
                if self.cluster.is_some() {
                    // The other instances show the game as thinking.
                    let (app, id, version) = (Arc::clone(self), game.id, game.version);
                    tokio::task::spawn_blocking(move || {
                        cluster::relay_thinking(&app, id, version, None);
                    });
                }
                game.step_pending = false;
                game.search = Some(ticket);
                Ok(())
            }
            // The player went with the refused job; it is built afresh on
            // the next try.
            Err(busy) => {
                if !self.pool.wait(game.id) {
                    tracing::warn!(
                        "game {}: the engine's wait list is full; the game goes on when it is asked for again",
                        game.id
                    );
                }
                Err(busy)
            }
        }
    }

    /// Starts the searches of the games on the pool's wait list whenever a
    /// search finishes, for as long as the pool has room. Runs as long as
    /// the server.
    async fn resume_waiting(self: Arc<App>) {
        loop {
            self.pool.freed().await;
            while let Some(id) = self.pool.next_waiting() {
                let entry = match self.entry(id).await {
                    Ok(Some(entry)) => entry,
                    Ok(None) => continue,
                    Err(e) => {
                        tracing::error!("game {id}, waiting for the engine: {e}");
                        continue;
                    }
                };
                let mut g = entry.lock();
                if self.schedule(&entry, &mut g).is_err() {
                    // Back on the list; the next finished search retries.
                    break;
                }
                entry.publish(&g);
            }
        }
    }

    fn finish_search(
        self: &Arc<App>,
        entry: &Arc<Entry>,
        generation: u64,
        idx: usize,
        player: Option<Box<dyn caro_engine::Player>>,
        result: Result<Decision, EngineError>,
        answer: Answer,
    ) {
        {
            let mut g = entry.lock();
            if g.players[idx].is_none() {
                g.players[idx] = player;
            }
            if g.generation != generation {
                return;
            }
        }
        let mut result = Some(result);
        let played = self.change_blocking(entry, |g| {
            // Changed while this waited for its turn to write: the answer
            // is for an old position.
            if g.generation != generation {
                return Ok(());
            }
            let Some(result) = result.take() else {
                return Ok(());
            };
            g.search = None;
            // The search's last report stays as the game's evaluation.
            if let Ok(Decision {
                info: Some(info), ..
            }) = &result
            {
                let (color, size) = (g.game().to_move(), g.game().size());
                g.thinking = Some(Thinking::from_info(color, info, size));
            }
            match result {
                Ok(_) if matches!(answer, Answer::Opening(_)) => {
                    if let Answer::Opening(choice) = answer {
                        g.choose_computer_as(generation, choice);
                    }
                }
                Ok(d) if answer == Answer::Swap => {
                    let even = d.info.as_ref().is_none_or(|i| at_least_even(i.score));
                    g.choose_computer(generation, even);
                }
                Ok(d) => {
                    let _ = g.play_computer(generation, d.best);
                }
                Err(EngineError::GameOver) => {}
                Err(e) => g.fail(e.to_string()),
            }
            Ok::<_, StoreError>(())
        });
        match played {
            Ok(((), Some(busy))) => tracing::debug!("game {}: {busy}", entry.lock().id),
            Ok(((), None)) => {}
            Err(e) => {
                // The move is not played: the game stays as stored and
                // searches again shortly.
                let mut g = entry.lock();
                tracing::error!(
                    "game {}: the computer's move could not be stored: {e}",
                    g.id
                );
                if g.search
                    .as_ref()
                    .is_some_and(|t| t.generation == generation)
                {
                    g.search = None;
                    entry.publish(&g);
                    let app = Arc::clone(self);
                    let entry = Arc::clone(entry);
                    tokio::spawn(async move {
                        tokio::time::sleep(STORE_RETRY).await;
                        let mut g = entry.lock();
                        if app.schedule(&entry, &mut g).is_ok() && g.search.is_some() {
                            entry.publish(&g);
                        }
                    });
                }
            }
        }
    }
}

/// What a computer's search answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    /// A move (in a renju opening also an offer or the pick).
    Move,
    /// A swap decision, taken from the search's score.
    Swap,
    /// A renju opening's decision, made by the engine's opening player.
    Opening(caro_core::opening::Choice),
}

/// A stored game with its match filled in ([`LiveGame::link_match`]).
/// With `charge_clock`, a running clock is charged for the time since it
/// was stored (other instances ran the game meanwhile); without, it
/// restarts from the stored time (the server was down).
fn load(store: &Store, id: i64, charge_clock: bool) -> Result<Option<LiveGame>, StoreError> {
    let Some(row) = store.get(id)? else {
        return Ok(None);
    };
    let mut live = LiveGame::from_row(&row)?;
    if charge_clock {
        live.charge_since_stored(live::now_ms(), std::time::Instant::now());
    }
    if row.match_id != 0 {
        let m = store.get_match(row.match_id)?.ok_or(StoreError::Damaged {
            id,
            reason: format!("no match {}", row.match_id),
        })?;
        let games = store.match_games(row.match_id)?;
        live.link_match(&m, &games)?;
        if let Some(next) = games.iter().find(|g| g.game_no == row.game_no + 1) {
            link_next(&mut live, next);
        }
    }
    // A rematch outside a match (or after it).
    if row.next_id != 0 && live.online.as_ref().is_some_and(|o| o.next.is_none()) {
        if let Some(next) = store.get(row.next_id)? {
            link_next(&mut live, &next);
        }
    }
    Ok(Some(live))
}

/// Links `live` to the stored next game of its match: the match's next
/// game and, online, the rematch's seat tokens (first seat, second seat),
/// which the players are sent to follow it.
pub(crate) fn link_next(live: &mut LiveGame, next: &store::GameRow) {
    if let Some(m) = live.series.as_mut().filter(|m| m.id == next.match_id) {
        m.next = Some(next.id);
        if !m.games.contains(&next.id) {
            m.games.push(next.id);
        }
    }
    if let Some(o) = &mut live.online {
        if o.next.is_none() && !next.black_token.is_empty() {
            o.next = Some((
                next.id,
                [next.black_token.clone(), next.white_token.clone()],
            ));
            o.rematch = [true, true];
        }
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

/// Starts the server and serves until the process ends. Calls `ready` with
/// the bound address (useful with port 0) before serving.
///
/// # Errors
/// [`ServerError`] when the data folder, database or address fails.
pub async fn serve(config: Config, ready: impl FnOnce(SocketAddr)) -> Result<(), ServerError> {
    let config = Arc::new(config);
    // Opening connects and migrates, which blocks.
    let opening = Arc::clone(&config);
    let app = tokio::task::spawn_blocking(move || App::open(&opening))
        .await
        .map_err(|e| StoreError::Thread(e.to_string()))??;
    tokio::spawn(Arc::clone(&app).resume_waiting());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::{Online, Sitter};
    use caro_core::opening::{Opening, Seat};
    use caro_core::table::Table;
    use caro_core::{BoardSize, Color, Rule, Rules};

    fn entry(online: Option<Online>) -> Arc<Entry> {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).expect("15x15 rules");
        let table = Table::new(
            rules,
            Color::Black,
            Opening::Free,
            [Sitter::Human, Sitter::Human],
        )
        .expect("a 15x15 game");
        let mut live = LiveGame::new(table, 1000);
        live.online = online;
        Entry::new(live)
    }

    #[test]
    fn only_games_nobody_uses_are_dropped_from_memory() {
        let mut games = HashMap::new();
        for id in 0..CACHED_GAMES as i64 {
            games.insert(id, entry(None));
        }
        let held = Arc::clone(&games[&1]);
        let _listener = games[&2].events.subscribe();
        let offer = Online {
            draw: Some(Seat::Second),
            ..Online::default()
        };
        games.insert(3, entry(Some(offer)));
        games.insert(4, entry(Some(Online::default())));
        evict_idle(&mut games);
        let mut kept: Vec<i64> = games.keys().copied().collect();
        kept.sort_unstable();
        assert_eq!(kept, vec![1, 2, 3]);
        drop(held);
    }

    #[test]
    fn a_small_map_is_left_alone() {
        let mut games = HashMap::new();
        games.insert(7, entry(None));
        evict_idle(&mut games);
        assert_eq!(games.len(), 1);
    }
}
