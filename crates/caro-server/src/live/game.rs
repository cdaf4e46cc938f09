//! The game itself: moves, undo and redo, resigning, and the snapshots a
//! change is undone with when it cannot be stored.

use caro_core::{Color, Game, Pos};

use super::{now_secs, seat_index, ActionError, LiveGame, Seat, Snapshot, DEFAULT_DELAY_MS};

impl LiveGame {
    /// A new game (id 0 until stored).
    #[must_use]
    pub fn new(game: Game, seats: [Seat; 2], time_ms: u64) -> LiveGame {
        let now = now_secs();
        LiveGame {
            id: 0,
            game,
            seats,
            time_ms,
            paused: false,
            delay_ms: DEFAULT_DELAY_MS,
            step_pending: false,
            players: [None, None],
            search: None,
            generation: 0,
            thinking: None,
            failed: None,
            created: now,
            updated: now,
            online: None,
            agreed_draw: false,
            timed_out: None,
        }
    }

    /// The seat of a colour.
    #[must_use]
    pub fn seat(&self, color: Color) -> &Seat {
        &self.seats[seat_index(color)]
    }

    /// Whether the game has ended (by the rules, a resignation, or a
    /// failed engine).
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.game.is_over() || self.failed.is_some() || self.agreed_draw || self.timed_out.is_some()
    }

    /// Whether both seats are computers.
    #[must_use]
    pub fn computers_only(&self) -> bool {
        self.seats.iter().all(Seat::is_computer)
    }

    /// Whether a computer should be thinking now.
    #[must_use]
    pub fn computer_to_move(&self) -> bool {
        !self.is_over() && !self.paused && self.seat(self.game.to_move()).is_computer()
    }

    /// Drops the search in flight (its answer will be dropped) and marks
    /// a change, which must be stored. The dropped search is stopped by
    /// [`LiveGame::install`] once the change is stored: a change that
    /// cannot be stored is undone and the search carries on.
    pub fn touch(&mut self) {
        self.search = None;
        self.thinking = None;
        self.generation += 1;
        self.updated = now_secs();
    }

    /// Everything a change may alter, to put back with
    /// [`LiveGame::restore`] if the change cannot be stored.
    #[must_use]
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            game: self.game.clone(),
            paused: self.paused,
            delay_ms: self.delay_ms,
            step_pending: self.step_pending,
            search: self.search.clone(),
            generation: self.generation,
            thinking: self.thinking.clone(),
            failed: self.failed.clone(),
            updated: self.updated,
            online: self.online.clone(),
            agreed_draw: self.agreed_draw,
            timed_out: self.timed_out,
        }
    }

    /// Puts the game back exactly as it was at `snapshot` (the computer
    /// players, which no change replaces, stay).
    pub fn restore(&mut self, snapshot: Snapshot) {
        let Snapshot {
            game,
            paused,
            delay_ms,
            step_pending,
            search,
            generation,
            thinking,
            failed,
            updated,
            online,
            agreed_draw,
            timed_out,
        } = snapshot;
        self.game = game;
        self.paused = paused;
        self.delay_ms = delay_ms;
        self.step_pending = step_pending;
        self.search = search;
        self.generation = generation;
        self.thinking = thinking;
        self.failed = failed;
        self.updated = updated;
        self.online = online;
        self.agreed_draw = agreed_draw;
        self.timed_out = timed_out;
    }

    /// Installs a stored change: the game as the change left it. The
    /// search in flight, if any, is for the position before: it stops.
    pub fn install(&mut self, after: Snapshot) {
        if after.generation != self.generation {
            if let Some(ticket) = self.search.take() {
                ticket.stop.stop();
            }
        }
        self.restore(after);
    }

    /// Whether the game was touched since `snapshot`: a change to store.
    #[must_use]
    pub fn changed_since(&self, snapshot: &Snapshot) -> bool {
        self.generation != snapshot.generation
    }

    /// A person plays `pos`, sent for ply `ply`.
    ///
    /// # Errors
    /// [`ActionError`] saying why the move was refused; the game is
    /// unchanged.
    pub fn play_human(&mut self, ply: usize, pos: Pos) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        if let Seat::Computer(name) = self.seat(self.game.to_move()) {
            return Err(ActionError::NotYourTurn(name.clone()));
        }
        self.game.try_play(pos).map_err(ActionError::Move)?;
        self.touch();
        Ok(())
    }

    /// A computer's move, if it still answers the current position.
    /// Returns whether it was played.
    ///
    /// # Errors
    /// [`ActionError::Move`] when the player chose an illegal move (the
    /// game then records the failure).
    pub fn play_computer(&mut self, generation: u64, pos: Pos) -> Result<bool, ActionError> {
        if generation != self.generation || self.is_over() {
            return Ok(false);
        }
        if let Err(e) = self.game.try_play(pos) {
            self.fail(format!(
                "{} chose an illegal move: {e}",
                self.seat(self.game.to_move()).name()
            ));
            return Err(ActionError::Move(e));
        }
        self.search = None;
        self.touch();
        Ok(true)
    }

    /// Records that a computer player failed; the game ends there.
    pub fn fail(&mut self, reason: String) {
        self.touch();
        self.failed = Some(reason);
    }

    pub(super) fn check_ply(&self, ply: usize) -> Result<(), ActionError> {
        let now = self.game.moves().len();
        if ply == now {
            Ok(())
        } else {
            Err(ActionError::Stale { sent: ply, now })
        }
    }

    /// Takes back a move. Against the computer, goes back to the person's
    /// previous turn (taking back the computer's reply too); with two
    /// computers, takes back one move and pauses.
    ///
    /// # Errors
    /// [`ActionError::NothingToUndo`], or [`ActionError::Stale`].
    pub fn undo(&mut self, ply: Option<usize>) -> Result<(), ActionError> {
        if let Some(ply) = ply {
            self.check_ply(ply)?;
        }
        if self.game.moves().is_empty() {
            return Err(ActionError::NothingToUndo);
        }
        self.failed = None;
        self.game.undo();
        if self.computers_only() {
            self.paused = true;
        } else {
            while self.seat(self.game.to_move()).is_computer() && !self.game.moves().is_empty() {
                // Only take back further if that reaches a person's turn.
                let before_last = self.game.color_of_move(self.game.moves().len() - 1);
                if self.seat(before_last).is_computer() {
                    break;
                }
                self.game.undo();
            }
        }
        self.touch();
        Ok(())
    }

    /// Replays a move taken back (against the computer, the person's move
    /// and the computer's reply).
    ///
    /// # Errors
    /// [`ActionError::NothingToRedo`], or [`ActionError::Stale`].
    pub fn redo(&mut self, ply: Option<usize>) -> Result<(), ActionError> {
        if let Some(ply) = ply {
            self.check_ply(ply)?;
        }
        if self.game.redo_moves().is_empty() || self.failed.is_some() {
            return Err(ActionError::NothingToRedo);
        }
        self.game.redo();
        if !self.computers_only() {
            while self.seat(self.game.to_move()).is_computer()
                && !self.game.redo_moves().is_empty()
                && !self.game.is_over()
            {
                self.game.redo();
            }
        } else {
            self.paused = true;
        }
        self.touch();
        Ok(())
    }

    /// A person resigns: `color`, or the person to move, or the only
    /// person at the board.
    ///
    /// # Errors
    /// [`ActionError::GameOver`] or [`ActionError::NobodyToResign`].
    pub fn resign(&mut self, color: Option<Color>) -> Result<(), ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        let to_move = self.game.to_move();
        let color = match color {
            Some(c) => c,
            None if !self.seat(to_move).is_computer() => to_move,
            None => to_move.opponent(),
        };
        if self.seat(color).is_computer() {
            return Err(ActionError::NobodyToResign);
        }
        self.game
            .resign_side(color)
            .map_err(|_| ActionError::GameOver)?;
        self.touch();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::game;
    use super::super::*;
    use caro_engine::StopFlag;

    #[test]
    fn undo_against_the_computer_returns_to_the_persons_turn() {
        let mut g = game(5, [Seat::Human, Seat::Computer("random".into())]);
        g.play_human(0, Pos::new(0, 0)).unwrap();
        let generation = g.generation;
        assert!(g.play_computer(generation, Pos::new(1, 1)).unwrap());
        g.undo(Some(2)).unwrap();
        assert_eq!(g.game.moves().len(), 0);
        g.redo(Some(0)).unwrap();
        assert_eq!(g.game.moves().len(), 2);
    }

    #[test]
    fn a_restored_snapshot_is_the_game_as_it_was_and_its_search_runs_on() {
        let mut g = game(5, [Seat::Human, Seat::Computer("random".into())]);
        g.play_human(0, Pos::new(0, 0)).unwrap();
        let stop = StopFlag::new();
        g.search = Some(Ticket {
            ply: 1,
            generation: g.generation,
            stop: stop.clone(),
        });
        let before = g.snapshot();
        let row = g.to_row();
        g.undo(Some(1)).unwrap();
        assert!(g.changed_since(&before));
        assert!(g.search.is_none());
        g.restore(before);
        assert_eq!(g.to_row(), row);
        assert!(g.search.is_some() && !stop.is_set(), "the search runs on");
        // Once a change is stored, the search it dropped stops.
        let before = g.snapshot();
        g.undo(Some(1)).unwrap();
        let after = g.snapshot();
        g.restore(before);
        assert!(!stop.is_set());
        g.install(after);
        assert!(stop.is_set() && g.search.is_none());
        assert_eq!(g.game.moves().len(), 0);
        // A change that touches nothing stores nothing and stops nothing.
        let before = g.snapshot();
        g.delay_ms = 5;
        assert!(!g.changed_since(&before));
    }

    #[test]
    fn stale_and_out_of_turn_commands_change_nothing() {
        let mut g = game(5, [Seat::Human, Seat::Computer("random".into())]);
        g.play_human(0, Pos::new(0, 0)).unwrap();
        assert!(matches!(
            g.play_human(0, Pos::new(2, 2)),
            Err(ActionError::Stale { sent: 0, now: 1 })
        ));
        assert!(matches!(
            g.play_human(1, Pos::new(2, 2)),
            Err(ActionError::NotYourTurn(_))
        ));
        assert_eq!(g.game.moves(), &[Pos::new(0, 0)]);
    }

    #[test]
    fn an_answer_to_an_old_position_is_dropped() {
        let mut g = game(5, [Seat::Human, Seat::Computer("random".into())]);
        g.play_human(0, Pos::new(0, 0)).unwrap();
        let old = g.generation;
        g.undo(None).unwrap();
        assert!(!g.play_computer(old, Pos::new(1, 1)).unwrap());
        assert!(g.game.moves().is_empty());
    }
}
