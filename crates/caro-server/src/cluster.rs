//! Several `caro serve` instances on one PostgreSQL database.
//!
//! The database holds the truth; each instance keeps the games it serves
//! in memory as a cache. A change is written only over the version it was
//! made on ([`crate::store::Store::update`]), so whichever instance a move
//! reaches, it is accepted once; the write notifies the channel
//! [`CHANNEL`] in the same transaction (`g ID VERSION`), and every other
//! instance holding that game reads it again and sends it to its sockets.
//!
//! - Presence: each instance stores how many sockets each seat has open
//!   on it (`p ID` notifies a change) and a heartbeat; an instance not
//!   heard from for [`DEAD_AFTER_MS`] is swept with its sockets.
//! - Computer searches: the instance that stores a change to a computer's
//!   turn holds the search for a lease; when a lease runs out with no move
//!   (its instance died), another instance claims the search.
//! - Clocks: every instance holding a game arms its clock; the flag is a
//!   write like any other, so it is stored once. Running clocks of games
//!   no instance holds are picked up by the sweep.
//! - Stop: `s ID` asks the instance searching a game to play now.
//! - Thinking: `t ID VERSION [JSON]` tells the others a search of that
//!   version runs, with its latest report, at most every [`RELAY_EVERY`].

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::poll_fn;
use tokio::sync::mpsc;
use tokio_postgres::AsyncMessage;

use crate::live::{now_ms, Thinking};
use crate::store::ChangedColumns;
use crate::{search_lease_ms, App, Entry};

/// The PostgreSQL channel the instances talk on.
pub const CHANNEL: &str = "caro_games";

/// How often an instance says it is alive, sweeps dead instances and
/// looks for searches and clocks nobody holds.
const HOUSEKEEPING: Duration = Duration::from_secs(2);

/// An instance not heard from for this long is taken for dead: its
/// sockets no longer count as present.
pub const DEAD_AFTER_MS: i64 = 10_000;

/// How often a search's progress is relayed to the other instances.
pub const RELAY_EVERY: Duration = Duration::from_millis(500);

/// Largest notification payload sent (PostgreSQL's limit is 8000 bytes).
const MAX_PAYLOAD: usize = 7900;

/// How often the listening connection is checked, and how long it has to
/// answer.
const LISTEN_PING: Duration = Duration::from_secs(5);

/// How long to wait before reading a game again after a failed read.
const REFRESH_RETRY: Duration = Duration::from_secs(1);

/// How long to wait before connecting the notification listener again.
const RECONNECT: Duration = Duration::from_secs(1);

/// Searches claimed in one sweep, at most.
const SWEEP_SEARCHES: usize = 64;

/// Latest versions remembered from notifications before the memory is
/// cleared (it only closes the race of a game loaded while it changes).
const REMEMBERED_VERSIONS: usize = 200_000;

/// This instance's part in a cluster of instances.
pub struct Cluster {
    /// The database's address, for the listening connection.
    url: String,
    /// This instance's name (presence rows, logs).
    pub instance: String,
    /// The latest version each game was notified at.
    latest: Mutex<HashMap<i64, i64>>,
}

impl Cluster {
    /// A cluster member named `name` on the database at `url`. Its key
    /// among the instances is the name and a random suffix, so a process
    /// started again under the same name (or with the same process id in
    /// a container) is never taken for the one that died.
    #[must_use]
    pub fn new(url: String, name: &str) -> Cluster {
        let mut bytes = [0u8; 4];
        let suffix = match getrandom::fill(&mut bytes) {
            Ok(()) => bytes.iter().map(|b| format!("{b:02x}")).collect::<String>(),
            Err(_) => format!("{:x}", now_ms()),
        };
        Cluster {
            url,
            instance: format!("{name}/{suffix}"),
            latest: Mutex::new(HashMap::new()),
        }
    }

    fn note(&self, id: i64, version: i64) {
        let mut latest = self.latest.lock().unwrap_or_else(|e| e.into_inner());
        if latest.len() >= REMEMBERED_VERSIONS {
            latest.clear();
        }
        let v = latest.entry(id).or_insert(version);
        *v = (*v).max(version);
    }

    /// The latest version of game `id` another instance announced.
    pub(crate) fn latest(&self, id: i64) -> Option<i64> {
        let latest = self.latest.lock().unwrap_or_else(|e| e.into_inner());
        latest.get(&id).copied()
    }
}

/// The default name of this instance: the host's name and the process id.
#[must_use]
pub fn default_instance_name() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "caro".to_string());
    format!("{host}-{}", std::process::id())
}

/// Starts listening for the other instances' changes and the
/// housekeeping; both run as long as the server.
pub(crate) fn start(app: &Arc<App>) {
    if app.cluster.is_none() {
        return;
    }
    tokio::spawn(listen(Arc::clone(app)));
    tokio::spawn(housekeeping(Arc::clone(app)));
}

/// Listens on [`CHANNEL`], connecting again whenever the connection is
/// lost; after each (re)connection every game in memory is read again, as
/// notifications may have been missed.
async fn listen(app: Arc<App>) {
    let Some(cluster) = app.cluster.clone() else {
        return;
    };
    loop {
        let (config, tls) = match crate::store::tls::connection(&cluster.url) {
            Ok(crate::store::tls::Connection { mut config, tls }) => {
                config
                    .keepalives_idle(LISTEN_PING)
                    .connect_timeout(LISTEN_PING);
                (config, tls)
            }
            Err(e) => {
                tracing::error!("cannot listen for other instances' changes: {e}");
                return;
            }
        };
        match config.connect(tls).await {
            Ok((client, mut connection)) => {
                let (tx, mut rx) = mpsc::unbounded_channel::<String>();
                let driver = tokio::spawn(async move {
                    while let Some(message) = poll_fn(|cx| connection.poll_message(cx)).await {
                        match message {
                            Ok(AsyncMessage::Notification(n)) => {
                                if tx.send(n.payload().to_string()).is_err() {
                                    break;
                                }
                            }
                            Ok(_) => {}
                            Err(e) => {
                                tracing::warn!("notification connection: {e}");
                                break;
                            }
                        }
                    }
                });
                match client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
                    Ok(()) => {
                        refresh_all(&app);
                        // A connection that silently stopped (a network
                        // that dropped it, a database failover) delivers
                        // nothing: a ping that is not answered in time
                        // connects again.
                        let mut ping = tokio::time::interval(LISTEN_PING);
                        loop {
                            tokio::select! {
                                payload = rx.recv() => match payload {
                                    Some(payload) => handle(&app, &cluster, &payload),
                                    None => break,
                                },
                                _ = ping.tick() => {
                                    let answered = tokio::time::timeout(
                                        LISTEN_PING,
                                        client.simple_query("SELECT 1"),
                                    )
                                    .await;
                                    if !matches!(answered, Ok(Ok(_))) {
                                        break;
                                    }
                                }
                            }
                        }
                        tracing::warn!("lost the notification connection; connecting again");
                    }
                    Err(e) => tracing::warn!("cannot listen for other instances' changes: {e}"),
                }
                driver.abort();
            }
            Err(e) => tracing::warn!("cannot connect to listen for other instances' changes: {e}"),
        }
        tokio::time::sleep(RECONNECT).await;
    }
}

/// Acts on one notification.
fn handle(app: &Arc<App>, cluster: &Cluster, payload: &str) {
    if let Some(change) = payload.strip_prefix("g ") {
        handle_change(app, cluster, change);
        return;
    }
    let mut parts = payload.split_whitespace();
    let kind = parts.next();
    let Some(id) = parts.next().and_then(|n| n.parse::<i64>().ok()) else {
        return;
    };
    match kind {
        Some("p") => {
            if let Some(entry) = app.cached(id) {
                refresh_presence(app, &entry);
            }
        }
        Some("t") => {
            let (Some(version), json) = (
                parts.next().and_then(|n| n.parse::<i64>().ok()),
                parts.collect::<Vec<_>>().join(" "),
            ) else {
                return;
            };
            let thinking = serde_json::from_str::<Thinking>(&json).ok();
            if let Some(entry) = app.cached(id) {
                let mut g = entry.lock();
                // For another version: the game itself comes with its own
                // notification, and the next report with it.
                if g.version == version && g.search.is_none() && !g.is_over() {
                    g.remote_search = true;
                    if thinking.is_some() {
                        g.thinking = thinking;
                    }
                    entry.publish(&g);
                }
            }
        }
        Some("l") => app.lobby.send_modify(|n| *n = n.wrapping_add(1)),
        Some("s") => {
            if let Some(entry) = app.cached(id) {
                if let Some(ticket) = &entry.lock().search {
                    ticket.stop.stop();
                }
            }
        }
        _ => {}
    }
}

/// A change another instance stored: `ID VERSION [COLUMNS]`. The next
/// version with its columns is applied to the game in memory as it is;
/// anything else is read from the database.
fn handle_change(app: &Arc<App>, cluster: &Cluster, change: &str) {
    let mut parts = change.splitn(3, ' ');
    let (Some(id), Some(version)) = (
        parts.next().and_then(|n| n.parse::<i64>().ok()),
        parts.next().and_then(|n| n.parse::<i64>().ok()),
    ) else {
        return;
    };
    cluster.note(id, version);
    let Some(entry) = app.cached(id) else {
        return;
    };
    if entry.lock().version >= version {
        return;
    }
    let columns = parts
        .next()
        .and_then(|json| serde_json::from_str::<ChangedColumns>(json).ok());
    let Some(columns) = columns else {
        refresh(app, &entry);
        return;
    };
    let app = Arc::clone(app);
    tokio::spawn(async move {
        let _turn = entry.writes.lock().await;
        if !app.apply_change(&entry, version, columns) {
            drop(_turn);
            refresh(&app, &entry);
        }
    });
}

/// Reads every game in memory again.
fn refresh_all(app: &Arc<App>) {
    for entry in app.cached_all() {
        refresh(app, &entry);
        refresh_presence(app, &entry);
    }
}

/// Reads the game again from the database (once, however many
/// notifications arrive meanwhile) and sends it to its watchers.
pub(crate) fn refresh(app: &Arc<App>, entry: &Arc<Entry>) {
    if entry.refreshing.swap(true, Ordering::SeqCst) {
        return;
    }
    let app = Arc::clone(app);
    let entry = Arc::clone(entry);
    tokio::spawn(async move {
        // A read that fails (a pool that timed out, a database that
        // restarts) is tried again, a second later each time.
        loop {
            let turn = Arc::clone(&entry.writes).lock_owned().await;
            entry.refreshing.store(false, Ordering::SeqCst);
            let done = app.reload(&entry).await;
            drop(turn);
            let error = match done {
                Ok(()) => return,
                Err(e) => e.to_string(),
            };
            tracing::error!("game {}: cannot read it again: {error}", entry.lock().id);
            tokio::time::sleep(REFRESH_RETRY).await;
            if entry.refreshing.swap(true, Ordering::SeqCst) {
                // A newer read is on its way.
                return;
            }
        }
    });
}

/// Reads how many sockets the other live instances have open on each seat
/// of the game, and sends the game to its watchers.
pub(crate) fn refresh_presence(app: &Arc<App>, entry: &Arc<Entry>) {
    let Some(cluster) = app.cluster.clone() else {
        return;
    };
    let (id, online) = {
        let g = entry.lock();
        (g.id, g.online.is_some())
    };
    if !online {
        return;
    }
    let app = Arc::clone(app);
    let entry = Arc::clone(entry);
    tokio::spawn(async move {
        // One read or write of the game's presence at a time, in order.
        let _order = entry.presence.lock().await;
        let instance = cluster.instance.clone();
        let counts = app
            .store
            .presence(id, &instance, now_ms() - DEAD_AFTER_MS)
            .await;
        match counts {
            Ok(counts) => {
                for (slot, n) in entry.remote.iter().zip(counts) {
                    slot.store(n, Ordering::SeqCst);
                }
                entry.publish(&entry.lock());
            }
            Err(e) => tracing::warn!("game {id}: presence: {e}"),
        }
    });
}

/// Stores how many sockets this instance has open on a seat of the game,
/// read when the write runs (so quick opens and closes end right).
pub(crate) fn presence_changed(app: &Arc<App>, entry: &Arc<Entry>, seat: usize) {
    let Some(cluster) = app.cluster.clone() else {
        return;
    };
    let app = Arc::clone(app);
    let entry = Arc::clone(entry);
    tokio::spawn(async move {
        let _order = entry.presence.lock().await;
        let id = entry.lock().id;
        let instance = cluster.instance.clone();
        let sockets = entry.sockets[seat].load(Ordering::SeqCst);
        let stored = app
            .store
            .set_presence(&instance, id, seat as u8, sockets)
            .await;
        if let Err(e) = stored {
            tracing::warn!("game {id}: presence: {e}");
        }
    });
}

/// Tells the other instances that this one is stopping: its sockets no
/// longer count as present.
pub(crate) async fn leave(app: &Arc<App>) {
    let Some(cluster) = app.cluster.clone() else {
        return;
    };
    // The searches this instance holds are let go, for another to take
    // at once.
    let held: Vec<(i64, i64)> = app
        .cached_all()
        .iter()
        .filter_map(|e| {
            let g = e.lock();
            g.claimed.then_some((g.id, g.version))
        })
        .collect();
    if !held.is_empty() {
        for (id, version) in held {
            if let Err(e) = app.store.hold_search(id, version, 0).await {
                tracing::warn!("leaving: {e}");
                break;
            }
        }
    }
    let instance = cluster.instance.clone();
    // Seen at time 0, then swept: only this instance is that old.
    let left = match app.store.heartbeat(&instance, 0).await {
        Ok(()) => app.store.sweep_instances(1).await,
        Err(e) => Err(e),
    };
    if let Err(e) = left {
        tracing::warn!("leaving: {e}");
    }
}

/// Tells the other instances that this one searches game `id` at
/// `version`, with its latest report. A search's thread, outside the
/// runtime, waits for it with [`tokio::runtime::Handle::block_on`].
pub(crate) async fn relay_thinking(app: &App, id: i64, version: i64, thinking: Option<&Thinking>) {
    let json = thinking
        .and_then(|t| serde_json::to_string(t).ok())
        .unwrap_or_default();
    let payload = format!("t {id} {version} {json}");
    if payload.len() > MAX_PAYLOAD {
        return;
    }
    if let Err(e) = app.store.notify(payload.trim_end()).await {
        tracing::debug!("game {id}: relaying the search: {e}");
    }
}

/// Asks the instance searching game `id` to play its best move now.
pub(crate) async fn stop_search(app: &Arc<App>, id: i64) {
    if app.cluster.is_none() {
        return;
    }
    if let Err(e) = app.store.notify(&format!("s {id}")).await {
        tracing::warn!("game {id}: stop: {e}");
    }
}

/// Every [`HOUSEKEEPING`]: the heartbeat, the sweep of dead instances'
/// sockets, the searches nobody holds and the clocks nobody watches.
async fn housekeeping(app: Arc<App>) {
    let Some(cluster) = app.cluster.clone() else {
        return;
    };
    let mut ticker = tokio::time::interval(HOUSEKEEPING);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticker.tick().await;
        let instance = cluster.instance.clone();
        let now = now_ms();
        let swept = match app.store.heartbeat(&instance, now).await {
            Ok(()) => app.store.sweep_instances(now - DEAD_AFTER_MS).await,
            Err(e) => Err(e),
        };
        match swept {
            Ok(ids) => {
                for id in ids {
                    if let Some(entry) = app.cached(id) {
                        refresh_presence(&app, &entry);
                    }
                }
            }
            Err(e) => tracing::warn!("heartbeat: {e}"),
        }
        claim_searches(&app).await;
        if let Err(e) = app.arm_clocks(true).await {
            tracing::warn!("clocks: {e}");
        }
    }
}

/// Claims the searches no instance holds (their instance died, or their
/// search waited past its lease) and starts them here.
async fn claim_searches(app: &Arc<App>) {
    let due = app.store.searches_due(now_ms(), SWEEP_SEARCHES).await;
    let ids = match due {
        Ok(ids) => ids,
        Err(e) => {
            tracing::warn!("searches: {e}");
            return;
        }
    };
    for id in ids {
        match app.entry(id).await {
            Ok(Some(entry)) => claim_search(app, &entry, true).await,
            Ok(None) => {}
            Err(e) => tracing::warn!("game {id}: {e}"),
        }
    }
}

/// Claims the game's computer search if a computer is to act and nobody
/// holds the search, and starts it here.
pub(crate) async fn claim_search(app: &Arc<App>, entry: &Arc<Entry>, due: bool) {
    let (id, version, lease) = {
        let g = entry.lock();
        if g.search.is_some() || g.claimed {
            return;
        }
        if !g.computer_turn() {
            // The store says a computer is to act (the sweep found it), or
            // the game was just read: an old copy is read again.
            drop(g);
            if due {
                refresh(app, entry);
            }
            return;
        }
        (g.id, g.version, search_lease_ms(&g))
    };
    let now = now_ms();
    let claimed = app.store.claim_search(id, version, now, now + lease).await;
    match claimed {
        Ok(true) => {
            let mut g = entry.lock();
            if g.version == version {
                g.claimed = true;
                g.search_until = now + lease;
                if app.schedule(entry, &mut g).is_ok() {
                    entry.publish(&g);
                }
            }
        }
        // Held by another instance, or this copy is old: read it again.
        Ok(false) => refresh(app, entry),
        Err(e) => tracing::warn!("game {id}: claiming its search: {e}"),
    }
}
