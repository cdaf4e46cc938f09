//! Other instances' changes to a game this one holds in memory: applied
//! from their notification, or read again from the store.

use std::sync::Arc;

use super::cache::load;
use super::{App, Entry};
use crate::live::{self, LiveGame};
use crate::store::{self, StoreError};

impl App {
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
        self.arm_clock(entry, &g);
        entry.publish(&g);
        true
    }

    /// [`App::reload`] with the game's turn, from a request. The read and
    /// the install run on a task of their own, so they finish even if the
    /// caller stops waiting.
    ///
    /// # Errors
    /// The store's.
    pub(crate) async fn refresh(self: &Arc<App>, entry: &Arc<Entry>) -> Result<(), StoreError> {
        let turn = Arc::clone(&entry.writes).lock_owned().await;
        let (app, entry) = (Arc::clone(self), Arc::clone(entry));
        tokio::spawn(async move {
            let _turn = turn;
            app.reload(&entry).await
        })
        .await
        .map_err(|e| StoreError::Thread(e.to_string()))?
    }

    /// Reads the game again from the store, as another instance left it,
    /// and sends it to the watchers. Call it with the game's turn to
    /// write.
    ///
    /// # Errors
    /// The store's; [`StoreError::Damaged`] if the game is gone.
    pub(crate) async fn reload(self: &Arc<App>, entry: &Arc<Entry>) -> Result<(), StoreError> {
        let id = entry.lock().id;
        let fresh =
            load(&self.store, id, self.charges_clocks())
                .await?
                .ok_or(StoreError::Damaged {
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
        self.arm_clock(entry, &g);
        entry.publish(&g);
        Ok(())
    }
}
