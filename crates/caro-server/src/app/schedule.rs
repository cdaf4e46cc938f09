//! The computer's searches: scheduled on the engine pool when a computer
//! is to act, their moves stored like any change, the claims that tell
//! which instance searches a game.

use std::sync::Arc;
use std::time::Duration;

use caro_core::table::Turn;
use caro_engine::{Context, Decision, EngineError, Limits, SearchInfo, StopFlag};

use super::{App, Entry};
use crate::cluster;
use crate::live::{self, at_least_even, LiveGame, Thinking, Ticket};
use crate::pool::Busy;
use crate::store::StoreError;

/// How soon a computer's search whose move could not be stored runs again.
const STORE_RETRY: Duration = Duration::from_secs(1);

/// How long past its expected end a claimed search is left to its
/// instance before another may take it over (an instance killed in the
/// middle of a search, or a search waiting for a free thread).
pub(crate) const SEARCH_GRACE_MS: i64 = 10_000;

/// Sets the game's claim on its computer search for a write: held from
/// now for the search's delay, its time and [`SEARCH_GRACE_MS`] when the
/// computer is to act, none otherwise.
pub(super) fn claim_with_write(g: &mut LiveGame) {
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

impl App {
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
                // A search's thread is outside the runtime: it waits for
                // the store there.
                let held = app
                    .runtime
                    .block_on(app.store.hold_search(game_id, version, until));
                if let Err(e) = held {
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
                    // The search's thread waits for the store on the
                    // runtime it is outside of.
                    relay_app.runtime.block_on(cluster::relay_thinking(
                        &relay_app,
                        relay.0,
                        relay.1,
                        Some(&thinking),
                    ));
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
                    tokio::spawn(async move {
                        cluster::relay_thinking(&app, id, version, None).await;
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
    pub(crate) async fn resume_waiting(self: Arc<App>) {
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
