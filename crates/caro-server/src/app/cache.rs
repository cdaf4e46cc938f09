//! The games in memory: each game's [`Entry`], loaded from the store on
//! first use and dropped again when nobody uses it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::broadcast;

use super::schedule::claim_with_write;
use super::App;
use crate::cluster;
use crate::live::{self, LiveGame};
use crate::store::{self, Store, StoreError};

/// One game in memory, with the channel its watchers listen on.
pub(crate) struct Entry {
    /// The game as stored: held only briefly, never while the store works.
    pub(crate) game: Mutex<LiveGame>,
    /// A change's turn to be stored: held from a change until its write
    /// is done and installed, so one game's changes are stored one at a
    /// time, in order.
    pub(crate) writes: Arc<tokio::sync::Mutex<()>>,
    pub(crate) events: broadcast::Sender<Arc<str>>,
    /// Online: the sockets open on each seat (first, second).
    pub(crate) sockets: [AtomicU32; 2],
    /// Online: the sockets open on each seat on the other instances.
    pub(crate) remote: [AtomicU32; 2],
    /// A read of the game from the store is on its way (other instances'
    /// changes).
    pub(crate) refreshing: AtomicBool,
    /// Orders the reads and writes of the game's presence.
    pub(crate) presence: tokio::sync::Mutex<()>,
}

impl Entry {
    pub(crate) fn new(live: LiveGame) -> Arc<Entry> {
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

    pub(crate) fn lock(&self) -> MutexGuard<'_, LiveGame> {
        self.game.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends a game's view to everyone watching.
    pub(crate) fn publish(&self, game: &LiveGame) {
        if let Ok(json) = serde_json::to_string(&self.view(game)) {
            // No receivers is fine: nobody is watching.
            let _ = self.events.send(json.into());
        }
    }
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

impl App {
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
        let Some(live) = load(&self.store, id, charge).await? else {
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
        self.arm_clock(&entry, &entry.lock());
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
        Ok(self
            .store
            .match_games(match_id)
            .await?
            .into_iter()
            .find(|g| g.game_no == wanted))
    }

    /// Stores a new game and keeps it in memory.
    pub(crate) async fn insert(&self, mut live: LiveGame) -> Result<Arc<Entry>, StoreError> {
        claim_with_write(&mut live);
        let row = live.to_row();
        live.id = self.store.insert(&row).await?;
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
}

/// A stored game with its match filled in ([`LiveGame::link_match`]).
/// With `charge_clock`, a running clock is charged for the time since it
/// was stored (other instances ran the game meanwhile); without, it
/// restarts from the stored time (the server was down).
pub(super) async fn load(
    store: &Store,
    id: i64,
    charge_clock: bool,
) -> Result<Option<LiveGame>, StoreError> {
    let Some(row) = store.get(id).await? else {
        return Ok(None);
    };
    let mut live = LiveGame::from_row(&row)?;
    if charge_clock {
        live.charge_since_stored(live::now_ms(), std::time::Instant::now());
    }
    if row.match_id != 0 {
        let m = store
            .get_match(row.match_id)
            .await?
            .ok_or(StoreError::Damaged {
                id,
                reason: format!("no match {}", row.match_id),
            })?;
        let games = store.match_games(row.match_id).await?;
        live.link_match(&m, &games)?;
        if let Some(next) = games.iter().find(|g| g.game_no == row.game_no + 1) {
            link_next(&mut live, next);
        }
    }
    // A rematch outside a match (or after it).
    if row.next_id != 0 && live.online.as_ref().is_some_and(|o| o.next.is_none()) {
        if let Some(next) = store.get(row.next_id).await? {
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
