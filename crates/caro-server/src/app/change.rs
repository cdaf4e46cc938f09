//! A game's changes: made on the game, stored over the version they were
//! made on, then installed and sent to the watchers, one at a time.

use std::sync::Arc;

use super::rating::Ended;
use super::schedule::claim_with_write;
use super::{App, Entry};
use crate::live::{LiveGame, Snapshot};
use crate::pool::Busy;
use crate::store::{GameRow, StoreError};

/// A change taken out of its game until it is stored: the row to write,
/// and the game as the change left it.
struct Change {
    row: GameRow,
    after: Snapshot,
    /// Set when the change ended an online game (rated once stored).
    ended: Option<Ended>,
}

/// What [`App::prepare`] made of a change.
enum Prepared<T> {
    /// Nothing to store: done.
    Done(T, Option<Busy>),
    /// To store, then install.
    Store(T, Box<Change>),
}

/// How many times a change is made again on a game another instance
/// changed meanwhile, before the request fails with 503 `storage`.
const CHANGE_ATTEMPTS: usize = 4;

impl App {
    /// Changes a game: `f` changes it or refuses (the game is then put
    /// back as it was). A change that touched the game
    /// ([`LiveGame::touch`]) is stored before anyone sees it: `f` runs on
    /// the game, which is put back as it was until the write is done (on a
    /// task of its own, so a caller that stops waiting does not cut it
    /// short). Only then is the change installed; one that cannot
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
            let (held, stored) = tokio::spawn(async move {
                let stored = app.store_change(&entry, *change).await;
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

    /// [`App::change`] from a blocking thread (an engine's), outside the
    /// runtime's workers: the store is waited for with the runtime's
    /// handle ([`App::runtime`]).
    pub(super) fn change_blocking<T, E: From<StoreError>>(
        self: &Arc<App>,
        entry: &Arc<Entry>,
        mut f: impl FnMut(&mut LiveGame) -> Result<T, E>,
    ) -> Result<(T, Option<Busy>), E> {
        let _turn = entry.writes.blocking_lock();
        for _ in 0..CHANGE_ATTEMPTS {
            match self.prepare(entry, &mut f)? {
                Prepared::Done(out, busy) => return Ok((out, busy)),
                Prepared::Store(out, change) => {
                    // An engine's thread is outside the runtime: it waits
                    // for the store there (`Handle::block_on`).
                    let stored = self.runtime.block_on(self.store_change(entry, *change))?;
                    if let Some(busy) = stored {
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
    /// again, and the caller makes its change again on it. Call it with
    /// the game's turn to write.
    async fn store_change(
        self: &Arc<App>,
        entry: &Arc<Entry>,
        change: Change,
    ) -> Result<Option<Option<Busy>>, StoreError> {
        let Change { row, after, ended } = change;
        if self.store.update(&row).await? {
            if let Some(ended) = ended {
                // Rated before the players are sent the end, so their
                // pages read the new ratings. The game is stored as ended
                // already: a failure here is picked up when an instance
                // starts (`App::rate_pending`).
                if let Err(e) = self.rate_ended(row.id, ended).await {
                    tracing::warn!("game {} not rated yet: {e}", row.id);
                }
            }
            return Ok(Some(self.install(entry, after)));
        }
        self.reload(entry).await?;
        Ok(None)
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
        let was_over = g.table.is_over();
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
        let ended = if was_over { None } else { Ended::of(&g) };
        g.version += 1;
        let change = Box::new(Change {
            row,
            after: g.snapshot(),
            ended,
        });
        g.restore(before);
        Ok(Prepared::Store(out, change))
    }

    /// Installs a stored change: the game as `f` left it (the search it
    /// dropped stops), then the clock, the computer and the watchers.
    fn install(self: &Arc<App>, entry: &Arc<Entry>, after: Snapshot) -> Option<Busy> {
        let mut g = entry.lock();
        g.install(after);
        self.arm_clock(entry, &g);
        let busy = self.schedule(entry, &mut g).err();
        entry.publish(&g);
        busy
    }
}
