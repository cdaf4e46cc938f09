//! A check of every stored rating against a replay of the Glicko-2
//! updates from the stored games: each player's rated games in a variant
//! must number 0, 1, 2 … with none missing and none twice; each game's
//! stored "before" standing must be what the player's earlier games make
//! of a new player's; each update must be Glicko-2 of the two befores and
//! the game's result; and the last of them must be the stored standing.
//! `caro-load` runs it after its rated games; the tests after theirs.

use std::collections::HashMap;

use caro_core::opening::Seat;

use crate::live::LiveGame;
use crate::rating::{self, Rating};
use crate::store::{LobbyGameRow, Standing, Store, StoreError};

/// What the check found.
#[derive(Debug, Default)]
pub struct Audit {
    /// Rated games checked.
    pub games: usize,
    /// Standings checked.
    pub standings: usize,
    /// What differs, one line each (empty: every rating is its replay).
    pub faults: Vec<String>,
}

impl Audit {
    /// Whether every rating equals its replay.
    #[must_use]
    pub fn clean(&self) -> bool {
        self.faults.is_empty()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(1.0)
}

fn same(a: &Rating, b: &Rating) -> bool {
    close(a.rating, b.rating)
        && close(a.deviation, b.deviation)
        && close(a.volatility, b.volatility)
}

/// One player's step in one rated game.
struct Step<'a> {
    game: &'a LobbyGameRow,
    seat: usize,
    score: f64,
}

/// Replays every rated game of the store and compares.
///
/// # Errors
/// The store's.
pub async fn audit(store: &Store) -> Result<Audit, StoreError> {
    let games = store.rated_games().await?;
    let mut audit = Audit {
        games: games.len(),
        ..Audit::default()
    };
    // The first seat's score in each game, from its stored result and the
    // colour the first seat played (an opening may swap it).
    let mut scores = HashMap::new();
    for g in &games {
        let Some(row) = store.get(g.game_id).await? else {
            audit
                .faults
                .push(format!("rated game {} is not stored", g.game_id));
            continue;
        };
        let live = LiveGame::from_row(&row)?;
        let first = live.table.color_of(Seat::First).name();
        let score = match row.result.as_str() {
            "draw" => 0.5,
            r if r == first => 1.0,
            "black" | "white" => 0.0,
            other => {
                audit.faults.push(format!(
                    "rated game {} has no result ({other:?})",
                    g.game_id
                ));
                continue;
            }
        };
        scores.insert(g.game_id, score);
    }
    // Each player's steps per variant, by the number of games before.
    let mut steps: HashMap<(i64, String), Vec<Step<'_>>> = HashMap::new();
    for g in &games {
        let Some(&score) = scores.get(&g.game_id) else {
            continue;
        };
        for seat in 0..2 {
            steps
                .entry((g.accounts[seat], g.variant.clone()))
                .or_default()
                .push(Step {
                    game: g,
                    seat,
                    score: if seat == 0 { score } else { 1.0 - score },
                });
        }
    }
    let standings: HashMap<(i64, String), Standing> = store
        .all_standings()
        .await?
        .into_iter()
        .map(|(account, variant, standing)| ((account, variant), standing))
        .collect();
    audit.standings = standings.len();
    for ((account, variant), mut list) in steps {
        list.sort_by_key(|s| s.game.before[s.seat].1);
        let mut now = Standing::default();
        for (i, step) in list.iter().enumerate() {
            let g = step.game;
            let (before, games_before) = g.before[step.seat];
            if games_before != i as i64 {
                audit.faults.push(format!(
                    "account {account}, {variant}: game {} is its rated game {games_before}, expected {i} (one lost or counted twice)",
                    g.game_id
                ));
                break;
            }
            if !same(&before, &now.rating) {
                audit.faults.push(format!(
                    "account {account}, {variant}: game {} starts from {before:?}, the replay from {:?}",
                    g.game_id, now.rating
                ));
            }
            let opponent = g.before[1 - step.seat].0;
            let after = before.after(&[(opponent, step.score)], rating::TAU);
            let stored_change = g.ratings[step.seat].1;
            if !close(after.rating - before.rating, stored_change) {
                audit.faults.push(format!(
                    "account {account}, {variant}: game {} changed the rating by {stored_change}, Glicko-2 by {}",
                    g.game_id,
                    after.rating - before.rating
                ));
            }
            now.rating = after;
            now.games += 1;
            if step.score > 0.75 {
                now.wins += 1;
            } else if step.score < 0.25 {
                now.losses += 1;
            } else {
                now.draws += 1;
            }
        }
        match standings.get(&(account, variant.clone())) {
            Some(stored)
                if same(&stored.rating, &now.rating)
                    && stored.games == now.games
                    && (stored.wins, stored.draws, stored.losses)
                        == (now.wins, now.draws, now.losses) => {}
            stored => audit.faults.push(format!(
                "account {account}, {variant}: stored {stored:?}, the replay gives {now:?}"
            )),
        }
    }
    Ok(audit)
}
