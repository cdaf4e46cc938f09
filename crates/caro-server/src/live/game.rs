//! The game itself: moves, swap choices, undo and redo, resigning, and
//! the snapshots a change is undone with when it cannot be stored.

use caro_core::opening::Choice;
use caro_core::table::{Actor, Step, Table, Turn};
use caro_core::{Color, Pos};

use super::{now_secs, ActionError, LiveGame, Sitter, Snapshot, DEFAULT_DELAY_MS};

impl LiveGame {
    /// A new game (id 0 until stored).
    #[must_use]
    pub fn new(table: Table, time_ms: u64) -> LiveGame {
        let now = now_secs();
        LiveGame {
            id: 0,
            table,
            time_ms,
            paused: false,
            delay_ms: DEFAULT_DELAY_MS,
            step_pending: false,
            players: [None, None],
            search: None,
            generation: 0,
            thinking: None,
            evaluation: None,
            created: now,
            updated: now,
            online: None,
            hints: 0,
            series: None,
            names: None,
            version: 0,
            search_until: 0,
            claimed: false,
            remote_search: false,
        }
    }

    /// Who plays `color` (during an undecided swap, the first seat counts
    /// as black).
    #[must_use]
    pub fn sitter_of(&self, color: Color) -> &Sitter {
        self.table.sitter(self.table.seat_of(color))
    }

    /// Whether the game has ended (by the rules, a resignation, an
    /// agreement, the clock or a failed engine).
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.table.is_over()
    }

    /// Whether both seats are computers.
    #[must_use]
    pub fn computers_only(&self) -> bool {
        self.table.computers_only()
    }

    /// Whether a person plays a computer.
    #[must_use]
    pub fn against_computer(&self) -> bool {
        self.table.has_human() && !self.table.sitters().iter().all(Sitter::is_human)
    }

    /// Whether a computer should be thinking now (a move or a swap
    /// decision).
    #[must_use]
    pub fn computer_to_move(&self) -> bool {
        !self.paused && self.table.computer_to_act()
    }

    /// Drops the search in flight (its answer will be dropped) and marks
    /// a change, which must be stored. The dropped search is stopped by
    /// [`LiveGame::install`] once the change is stored: a change that
    /// cannot be stored is undone and the search carries on.
    pub fn touch(&mut self) {
        self.search = None;
        self.remote_search = false;
        self.thinking = None;
        self.generation += 1;
        self.updated = now_secs();
    }

    /// Everything a change may alter, to put back with
    /// [`LiveGame::restore`] if the change cannot be stored.
    #[must_use]
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            table: self.table.clone(),
            paused: self.paused,
            delay_ms: self.delay_ms,
            step_pending: self.step_pending,
            search: self.search.clone(),
            generation: self.generation,
            thinking: self.thinking.clone(),
            evaluation: self.evaluation.clone(),
            updated: self.updated,
            online: self.online.clone(),
            hints: self.hints,
            series: self.series.clone(),
            version: self.version,
            search_until: self.search_until,
            claimed: self.claimed,
        }
    }

    /// Puts the game back exactly as it was at `snapshot` (the computer
    /// players, which no change replaces, stay).
    pub fn restore(&mut self, snapshot: Snapshot) {
        let Snapshot {
            table,
            paused,
            delay_ms,
            step_pending,
            search,
            generation,
            thinking,
            evaluation,
            updated,
            online,
            hints,
            series,
            version,
            search_until,
            claimed,
        } = snapshot;
        self.table = table;
        self.paused = paused;
        self.delay_ms = delay_ms;
        self.step_pending = step_pending;
        self.search = search;
        self.generation = generation;
        self.thinking = thinking;
        self.evaluation = evaluation;
        self.updated = updated;
        self.online = online;
        self.hints = hints;
        self.series = series;
        self.version = version;
        self.search_until = search_until;
        self.claimed = claimed;
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

    /// Whether the game was touched since `snapshot`, or its stored
    /// controls (pause, step, speed) changed: a change to store.
    #[must_use]
    pub fn changed_since(&self, snapshot: &Snapshot) -> bool {
        self.generation != snapshot.generation
            || self.paused != snapshot.paused
            || self.step_pending != snapshot.step_pending
            || self.delay_ms != snapshot.delay_ms
    }

    /// Whether the stored game waits for a computer's search: unfinished,
    /// a computer to act, and not paused (or one step asked for).
    #[must_use]
    pub fn computer_turn(&self) -> bool {
        !self.is_over() && self.table.computer_to_act() && (!self.paused || self.step_pending)
    }

    /// Takes the state of `fresh`, the game as another instance stored it:
    /// the search in flight here is for an older position and stops, and
    /// the computer's search is left to the instance that holds it. The
    /// computer players built here stay.
    pub fn adopt(&mut self, fresh: LiveGame) {
        if let Some(ticket) = self.search.take() {
            ticket.stop.stop();
        }
        self.generation = self.generation.max(fresh.generation) + 1;
        self.table = fresh.table;
        self.time_ms = fresh.time_ms;
        self.paused = fresh.paused;
        self.delay_ms = fresh.delay_ms;
        self.step_pending = fresh.step_pending;
        self.thinking = None;
        self.updated = fresh.updated;
        self.online = fresh.online;
        self.hints = fresh.hints;
        self.series = fresh.series;
        self.names = fresh.names;
        self.version = fresh.version;
        self.search_until = fresh.search_until;
        self.claimed = false;
        self.remote_search = false;
    }

    /// A person plays `pos` (an opening stone or a move), sent for ply
    /// `ply`.
    ///
    /// # Errors
    /// [`ActionError`] saying why the move was refused; the game is
    /// unchanged.
    pub fn play_human(&mut self, ply: usize, pos: Pos) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        self.table.play(Actor::Person, pos)?;
        self.touch();
        Ok(())
    }

    /// A person makes the swap decision due now, sent for ply `ply`.
    ///
    /// # Errors
    /// [`ActionError`]: stale, no choice due, the computer's choice, or a
    /// choice not offered; the game is unchanged.
    pub fn choose_human(&mut self, ply: usize, choice: Choice) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        self.table.choose(Actor::Person, choice)?;
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
        if generation != self.generation {
            return Ok(false);
        }
        // A move, or in a renju opening an offered 5th move or the pick.
        let (Turn::Move { seat, .. } | Turn::Offer { seat, .. } | Turn::Pick { seat }) =
            self.table.turn()
        else {
            return Ok(false);
        };
        if let Err(e) = self.table.play(Actor::Seat(seat), pos) {
            let name = self.table.sitter(seat).name().to_string();
            self.fail(format!("{name} chose an illegal move: {e}"));
            return Err(e.into());
        }
        self.search = None;
        self.evaluation = self.thinking.take();
        self.touch();
        Ok(true)
    }

    /// A computer's swap decision, from its search of the position:
    /// whether the side to move is at least even there. Returns whether it
    /// was made (false for an answer to an old position).
    pub fn choose_computer(&mut self, generation: u64, at_least_even: bool) -> bool {
        if generation != self.generation {
            return false;
        }
        let Turn::Choose { seat, .. } = self.table.turn() else {
            return false;
        };
        let Some(choice) = self.table.computer_choice(at_least_even) else {
            return false;
        };
        if self.table.choose(Actor::Seat(seat), choice).is_err() {
            return false;
        }
        self.search = None;
        self.evaluation = self.thinking.take();
        self.touch();
        true
    }

    /// A computer's decision in a renju opening, made by its opening
    /// player ([`caro_engine::renju_opening`]). Returns whether it was
    /// made (false for an answer to an old position or a refused choice).
    pub fn choose_computer_as(&mut self, generation: u64, choice: Choice) -> bool {
        if generation != self.generation {
            return false;
        }
        let Turn::Choose { seat, .. } = self.table.turn() else {
            return false;
        };
        if let Err(e) = self.table.choose(Actor::Seat(seat), choice) {
            let name = self.table.sitter(seat).name().to_string();
            self.fail(format!("{name} made a choice the opening refuses: {e}"));
            return false;
        }
        self.search = None;
        self.evaluation = self.thinking.take();
        self.touch();
        true
    }

    /// Records that the computer player whose turn it is failed; the game
    /// ends there.
    pub fn fail(&mut self, reason: String) {
        let seat = self
            .table
            .turn()
            .seat()
            .unwrap_or(caro_core::opening::Seat::First);
        if self.table.fail(seat, reason).is_ok() {
            self.touch();
        }
    }

    pub(super) fn check_ply(&self, ply: usize) -> Result<(), ActionError> {
        let now = self.game().moves().len();
        if ply == now {
            Ok(())
        } else {
            Err(ActionError::Stale { sent: ply, now })
        }
    }

    /// Takes back moves ([`Table::step_back`]): against the computer back
    /// to the person's previous turn, otherwise one move; with two
    /// computers the game pauses. Refused once the game has a result,
    /// which stays.
    ///
    /// # Errors
    /// [`ActionError::GameOver`], [`ActionError::NothingToUndo`], or
    /// [`ActionError::Stale`].
    pub fn undo(&mut self, ply: Option<usize>) -> Result<(), ActionError> {
        if let Some(ply) = ply {
            self.check_ply(ply)?;
        }
        let step = self.table.step_back()?;
        self.stepped(step);
        Ok(())
    }

    /// Replays moves taken back ([`Table::step_forward`]: against the
    /// computer, the person's move and the computer's reply); with two
    /// computers the game pauses.
    ///
    /// # Errors
    /// [`ActionError::NothingToRedo`], or [`ActionError::Stale`].
    pub fn redo(&mut self, ply: Option<usize>) -> Result<(), ActionError> {
        if let Some(ply) = ply {
            self.check_ply(ply)?;
        }
        let step = self.table.step_forward()?;
        self.stepped(step);
        Ok(())
    }

    /// After an undo or a redo: the evaluation was of another position,
    /// and the table says whether computer play pauses.
    fn stepped(&mut self, step: Step) {
        self.evaluation = None;
        if step.pause {
            self.paused = true;
        }
        self.touch();
    }

    /// A person resigns: `color`, or the person to move, or the only
    /// person at the board.
    ///
    /// # Errors
    /// [`ActionError::GameOver`] or [`ActionError::NobodyToResign`].
    pub fn resign(&mut self, color: Option<Color>) -> Result<(), ActionError> {
        let seat = color.map(|c| self.table.seat_of(c));
        self.table.resign(seat)?;
        self.touch();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::game;
    use super::super::*;
    use caro_core::opening::{Choice, Opening};
    use caro_core::table::Table;
    use caro_core::{BoardSize, Rule, Rules};
    use caro_engine::StopFlag;

    #[test]
    fn undo_against_the_computer_returns_to_the_persons_turn() {
        let mut g = game(5, [Sitter::Human, Sitter::Computer("random".into())]);
        g.play_human(0, Pos::new(0, 0)).unwrap();
        let generation = g.generation;
        assert!(g.play_computer(generation, Pos::new(1, 1)).unwrap());
        g.undo(Some(2)).unwrap();
        assert_eq!(g.game().moves().len(), 0);
        g.redo(Some(0)).unwrap();
        assert_eq!(g.game().moves().len(), 2);
    }

    #[test]
    fn stepping_through_a_computer_game_pauses_it() {
        let random = || Sitter::Computer("random".into());
        let mut g = game(5, [random(), random()]);
        assert!(g.play_computer(g.generation, Pos::new(0, 0)).unwrap());
        assert!(g.play_computer(g.generation, Pos::new(1, 1)).unwrap());
        g.undo(None).unwrap();
        assert!(g.paused && !g.computer_turn());
        g.paused = false;
        g.redo(None).unwrap();
        assert!(g.paused, "redo pauses too");
        assert_eq!(g.game().moves().len(), 2);
    }

    #[test]
    fn a_restored_snapshot_is_the_game_as_it_was_and_its_search_runs_on() {
        let mut g = game(5, [Sitter::Human, Sitter::Computer("random".into())]);
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
        assert_eq!(g.game().moves().len(), 0);
        // A change that touches nothing stores nothing and stops nothing.
        let before = g.snapshot();
        g.thinking = None;
        assert!(!g.changed_since(&before));
        // The pause and the speed are stored, but stop no search.
        g.delay_ms = 5;
        assert!(g.changed_since(&before));
        assert_eq!(g.generation, before.generation);
    }

    #[test]
    fn stale_and_out_of_turn_commands_change_nothing() {
        let mut g = game(5, [Sitter::Human, Sitter::Computer("random".into())]);
        g.play_human(0, Pos::new(0, 0)).unwrap();
        assert!(matches!(
            g.play_human(0, Pos::new(2, 2)),
            Err(ActionError::Stale { sent: 0, now: 1 })
        ));
        assert!(matches!(
            g.play_human(1, Pos::new(2, 2)),
            Err(ActionError::Table(TableError::NotYourTurn { .. }))
        ));
        assert_eq!(g.game().moves(), &[Pos::new(0, 0)]);
    }

    #[test]
    fn an_answer_to_an_old_position_is_dropped() {
        let mut g = game(5, [Sitter::Human, Sitter::Computer("random".into())]);
        g.play_human(0, Pos::new(0, 0)).unwrap();
        let old = g.generation;
        g.undo(None).unwrap();
        assert!(!g.play_computer(old, Pos::new(1, 1)).unwrap());
        assert!(g.game().moves().is_empty());
    }

    #[test]
    fn a_person_chooses_in_swap2_and_a_computer_decides_from_its_score() {
        let rules = Rules::new(BoardSize::square(9), 5, Rule::Freestyle).unwrap();
        let table = Table::new(
            rules,
            Color::Black,
            Opening::Swap2,
            [Sitter::Computer("random".into()), Sitter::Human],
        )
        .unwrap();
        let mut g = LiveGame::new(table, 100);
        for (i, (x, y)) in [(4, 4), (5, 5), (3, 3)].into_iter().enumerate() {
            assert!(matches!(
                g.play_human(i, Pos::new(x, y)),
                Err(ActionError::Table(TableError::NotYourTurn { .. }))
            ));
            assert!(g.play_computer(g.generation, Pos::new(x, y)).unwrap());
        }
        assert!(matches!(
            g.play_human(3, Pos::new(0, 0)),
            Err(ActionError::Table(TableError::MustChoose { .. }))
        ));
        assert!(matches!(
            g.choose_human(2, Choice::PlaceTwo),
            Err(ActionError::Stale { .. })
        ));
        g.choose_human(3, Choice::PlaceTwo).unwrap();
        g.play_human(3, Pos::new(0, 0)).unwrap();
        g.play_human(4, Pos::new(8, 8)).unwrap();
        assert!(!g.choose_computer(g.generation - 1, true), "an old answer");
        assert!(g.choose_computer(g.generation, false));
        // After five stones white is to move; the computer found that bad
        // and took black.
        assert_eq!(
            g.table.seat_of(Color::Black),
            caro_core::opening::Seat::First
        );
        assert!(matches!(g.undo(None), Err(ActionError::NothingToUndo)));
        assert_eq!(g.table.opening_stones(), 5);
    }
}
