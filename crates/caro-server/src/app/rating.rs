//! Rated lobby games: each moves both players' Glicko-2 ratings exactly
//! once when it ends, whichever instance ends it; one that ended while an
//! instance stopped is rated when an instance starts.

use std::sync::Arc;

use caro_core::opening::Seat;

use super::App;
use crate::live::{now_secs, LiveGame};
use crate::rating;
use crate::store::{RatedSeat, StoreError};

/// A game with fewer moves than this is aborted when it ends, not rated.
pub const MIN_RATED_MOVES: usize = 2;

/// How many times a rating is read again when another game of the same
/// player was rated between the read and the write.
const RATE_ATTEMPTS: usize = 16;

/// How a game ended, for its rating: the first seat's score and the
/// moves played.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ended {
    first_score: f64,
    moves: usize,
}

impl Ended {
    /// The ending of an online game that is over.
    pub(crate) fn of(g: &LiveGame) -> Option<Ended> {
        g.online.as_ref()?;
        if !g.table.is_over() {
            return None;
        }
        let first = g.table.color_of(Seat::First).name();
        let first_score = match g.to_row().result.as_str() {
            "draw" => 0.5,
            r if r == first => 1.0,
            "black" | "white" => 0.0,
            _ => return None,
        };
        Some(Ended {
            first_score,
            moves: g.game().moves().len(),
        })
    }
}

impl App {
    /// Rates a lobby game that ended (nothing for a casual game, or one
    /// rated already).
    ///
    /// # Errors
    /// The store's; [`StoreError::Conflict`] when the ratings kept
    /// changing under it.
    pub(crate) async fn rate_ended(&self, game_id: i64, ended: Ended) -> Result<(), StoreError> {
        let store = &self.store;
        let Some(record) = store.lobby_game(game_id).await? else {
            return Ok(());
        };
        if record.state != "playing" {
            return Ok(());
        }
        if ended.moves < MIN_RATED_MOVES {
            store.abort_rated_game(game_id).await?;
            return Ok(());
        }
        for _ in 0..RATE_ATTEMPTS {
            let before = [
                store.standing(record.accounts[0], &record.variant).await?,
                store.standing(record.accounts[1], &record.variant).await?,
            ];
            let (first, second) =
                rating::game(before[0].rating, before[1].rating, ended.first_score);
            let seats = [
                RatedSeat {
                    account_id: record.accounts[0],
                    before: before[0],
                    after: first,
                    score: ended.first_score,
                },
                RatedSeat {
                    account_id: record.accounts[1],
                    before: before[1],
                    after: second,
                    score: 1.0 - ended.first_score,
                },
            ];
            if store
                .rate_game(game_id, &record.variant, seats, now_secs())
                .await?
            {
                return Ok(());
            }
            let still = store.lobby_game(game_id).await?;
            if still.is_none_or(|r| r.state != "playing") {
                return Ok(());
            }
        }
        Err(StoreError::Conflict(game_id))
    }

    /// Rates the games that ended but were not rated (an instance
    /// stopped in between): at start.
    pub(crate) async fn rate_pending(self: &Arc<App>) {
        let pending = match self.store.pending_rated_games().await {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!("rated games not checked: {e}");
                return;
            }
        };
        for id in pending {
            let ended = match self.entry(id).await {
                Ok(Some(entry)) => Ended::of(&entry.lock()),
                Ok(None) => None,
                Err(e) => {
                    tracing::warn!("game {id} not rated: {e}");
                    None
                }
            };
            if let Some(ended) = ended {
                if let Err(e) = self.rate_ended(id, ended).await {
                    tracing::warn!("game {id} not rated: {e}");
                }
            }
        }
    }
}
