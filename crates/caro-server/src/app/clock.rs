//! The online clocks: each running clock wakes when the side to move
//! would run out of time and flags then, with nobody connected; armed
//! again when the server starts.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{App, Entry};
use crate::live::LiveGame;
use crate::store::StoreError;

/// How soon a flag that could not be stored is tried again.
const FLAG_RETRY: Duration = Duration::from_secs(1);

impl App {
    /// While a clock runs, wakes when the side to move would run out of time
    /// and ends the game then, unless something happened in between.
    pub(crate) fn arm_clock(self: &Arc<App>, entry: &Arc<Entry>, g: &LiveGame) {
        let Some(wait) = g.time_to_flag(Instant::now()) else {
            return;
        };
        let generation = g.generation;
        let app = Arc::clone(self);
        let entry = Arc::clone(entry);
        tokio::spawn(async move {
            tokio::time::sleep(wait + Duration::from_millis(5)).await;
            if entry.lock().generation != generation {
                return;
            }
            let stored = app
                .change(&entry, |g| {
                    // Changed meanwhile: that change armed the clock again.
                    if g.generation == generation {
                        g.flag_if_out_of_time(Instant::now());
                    }
                    Ok::<_, StoreError>(())
                })
                .await;
            if stored.is_ok() {
                let g = entry.lock();
                // Not quite out yet (the timer woke early): wait again.
                if g.generation == generation {
                    app.arm_clock(&entry, &g);
                }
            }
            if let Err(e) = stored {
                // The game stays as stored; the flag is tried again shortly.
                tracing::error!(
                    "game {}: the flag could not be stored: {e}",
                    entry.lock().id
                );
                tokio::time::sleep(FLAG_RETRY).await;
                let g = entry.lock();
                if g.generation == generation {
                    app.arm_clock(&entry, &g);
                }
            }
        });
    }

    /// Arms the clock of every online game whose clock was running when
    /// the server stopped, so a flag falls (and is stored) with nobody
    /// connected. Downtime is not charged: a clock restarts from the time
    /// it had at the game's last stored change ([`LiveGame::from_row`]).
    /// Returns how many clocks run. With `only_new`, games already in
    /// memory are left alone (their clocks run already).
    pub(crate) async fn arm_clocks(self: &Arc<App>, only_new: bool) -> Result<usize, StoreError> {
        let ids = self.store.running_clocks().await?;
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
            self.arm_clock(&entry, &entry.lock());
            armed += 1;
        }
        Ok(armed)
    }
}
