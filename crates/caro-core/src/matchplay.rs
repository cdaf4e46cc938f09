//! Match play: a series of games, won by the first player to `N` wins.
//!
//! The two players are the match's [`Seat`]s. Colours alternate: the first
//! seat plays black in game 0, the second seat in game 1, and so on (under
//! a swap opening, where the opening decides the colours, use this seat as
//! the one that opens the game). A match lasts at most `2N - 1` games
//! (first to 5 wins: at most 9 games).
//!
//! Draws count as games played. Without draws somebody reaches `N` wins by
//! game `2N - 1` at the latest; with draws the match may instead end after
//! `2N - 1` games with nobody at `N`, and then whoever has more wins takes
//! the match, or it is drawn if the wins are equal. This keeps the length
//! of a match bounded whatever happens.
//!
//! ```
//! use caro_core::matchplay::Match;
//! use caro_core::opening::Seat;
//!
//! let mut m = Match::default();
//! assert_eq!(m.max_games(), 9);
//! for _ in 0..5 {
//!     m.record(Some(Seat::Second)).unwrap();
//! }
//! assert!(m.is_over());
//! assert_eq!(m.winner(), Some(Seat::Second));
//! ```

use crate::opening::Seat;

/// The usual match length: first to 5 wins (at most 9 games).
pub const DEFAULT_FIRST_TO: u32 = 5;

/// Why a match could not be set up or a result recorded. The match is
/// unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// A match needs at least one win to finish.
    #[error("a match must be first to at least 1 win, not {0}")]
    NoWinsNeeded(u32),
    /// `2N - 1` games do not fit in this platform's counters.
    #[error("a match of first to {0} wins is too long")]
    TooLong(u32),
    /// A result was recorded after the match ended.
    #[error("the match is over: no more games can be recorded")]
    Over,
}

/// A match in progress or finished: its length, and each game's winner.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Match {
    first_to: u32,
    max_games: usize,
    results: Vec<Option<Seat>>,
    wins: [u32; 2],
    draws: u32,
}

impl Match {
    /// A match won by the first to `first_to` wins.
    ///
    /// # Errors
    /// [`MatchError::NoWinsNeeded`] if `first_to` is 0,
    /// [`MatchError::TooLong`] if `2 * first_to - 1` games cannot be counted.
    pub fn new(first_to: u32) -> Result<Match, MatchError> {
        if first_to == 0 {
            return Err(MatchError::NoWinsNeeded(first_to));
        }
        let max_games = usize::try_from(first_to)
            .ok()
            .and_then(|n| n.checked_mul(2))
            .map(|n| n - 1)
            .ok_or(MatchError::TooLong(first_to))?;
        Ok(Match {
            first_to,
            max_games,
            results: Vec::new(),
            wins: [0; 2],
            draws: 0,
        })
    }

    /// Wins needed to take the match.
    #[must_use]
    pub const fn first_to(&self) -> u32 {
        self.first_to
    }

    /// The most games the match can last: `2 * first_to - 1`.
    #[must_use]
    pub const fn max_games(&self) -> usize {
        self.max_games
    }

    /// The seat playing black in game `n` (0-based): the first seat in even
    /// games, the second in odd ones.
    #[must_use]
    pub const fn black_in_game(n: usize) -> Seat {
        if n % 2 == 0 {
            Seat::First
        } else {
            Seat::Second
        }
    }

    /// The seat playing black in the next game, or `None` once the match is
    /// over.
    #[must_use]
    pub fn next_black(&self) -> Option<Seat> {
        if self.is_over() {
            None
        } else {
            Some(Match::black_in_game(self.games_played()))
        }
    }

    /// Records the next game's result: its winner, or `None` for a draw.
    ///
    /// # Errors
    /// [`MatchError::Over`] if the match has already ended.
    pub fn record(&mut self, winner: Option<Seat>) -> Result<(), MatchError> {
        if self.is_over() {
            return Err(MatchError::Over);
        }
        match winner {
            Some(seat) => self.wins[seat.index()] += 1,
            None => self.draws += 1,
        }
        self.results.push(winner);
        Ok(())
    }

    /// Games won by `seat`.
    #[must_use]
    pub const fn wins(&self, seat: Seat) -> u32 {
        self.wins[seat.index()]
    }

    /// Games drawn.
    #[must_use]
    pub const fn draws(&self) -> u32 {
        self.draws
    }

    /// Games recorded, draws included.
    #[must_use]
    pub fn games_played(&self) -> usize {
        self.results.len()
    }

    /// Whether the match has ended: somebody has `first_to` wins, or
    /// [`Match::max_games`] games have been played.
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.wins.iter().any(|&w| w >= self.first_to) || self.games_played() >= self.max_games
    }

    /// The match's winner once it is over: the seat that reached
    /// `first_to` wins, or else the one with more wins. `None` while the
    /// match goes on, and for a drawn match (equal wins after
    /// [`Match::max_games`] games).
    #[must_use]
    pub fn winner(&self) -> Option<Seat> {
        if !self.is_over() {
            return None;
        }
        let [first, second] = self.wins;
        match first.cmp(&second) {
            std::cmp::Ordering::Greater => Some(Seat::First),
            std::cmp::Ordering::Less => Some(Seat::Second),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// Each game's result in order: its winner, or `None` for a draw.
    #[must_use]
    pub fn results(&self) -> &[Option<Seat>] {
        &self.results
    }
}

impl Default for Match {
    /// First to [`DEFAULT_FIRST_TO`] (5) wins, at most 9 games.
    fn default() -> Match {
        Match {
            first_to: DEFAULT_FIRST_TO,
            max_games: 2 * DEFAULT_FIRST_TO as usize - 1,
            results: Vec::new(),
            wins: [0; 2],
            draws: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Option<Seat> = Some(Seat::First);
    const S: Option<Seat> = Some(Seat::Second);

    fn play(m: &mut Match, results: &[Option<Seat>]) {
        for &r in results {
            m.record(r).unwrap();
        }
    }

    #[test]
    fn default_is_first_to_five_of_nine() {
        let m = Match::default();
        assert_eq!(m, Match::new(5).unwrap());
        assert_eq!(m.first_to(), 5);
        assert_eq!(m.max_games(), 9);
        assert_eq!(m.games_played(), 0);
        assert!(!m.is_over());
        assert_eq!(m.winner(), None);
        assert_eq!(m.next_black(), Some(Seat::First));
    }

    #[test]
    fn first_to_must_be_positive() {
        let e = Match::new(0).unwrap_err();
        assert_eq!(e, MatchError::NoWinsNeeded(0));
        assert_eq!(
            e.to_string(),
            "a match must be first to at least 1 win, not 0"
        );
        let one = Match::new(1).unwrap();
        assert_eq!(one.max_games(), 1);
    }

    #[test]
    fn sweep_ends_after_five_games() {
        let mut m = Match::default();
        play(&mut m, &[F, F, F, F]);
        assert!(!m.is_over());
        assert_eq!(m.winner(), None);
        m.record(F).unwrap();
        assert!(m.is_over());
        assert_eq!(m.games_played(), 5);
        assert_eq!(m.wins(Seat::First), 5);
        assert_eq!(m.wins(Seat::Second), 0);
        assert_eq!(m.winner(), Some(Seat::First));
        assert_eq!(m.next_black(), None);
    }

    #[test]
    fn five_four_ends_after_nine_games() {
        let mut m = Match::default();
        play(&mut m, &[S, F, S, F, S, F, S, F]);
        assert!(!m.is_over());
        assert_eq!(m.next_black(), Some(Seat::First));
        m.record(S).unwrap();
        assert!(m.is_over());
        assert_eq!(m.games_played(), 9);
        assert_eq!(m.wins(Seat::Second), 5);
        assert_eq!(m.wins(Seat::First), 4);
        assert_eq!(m.winner(), Some(Seat::Second));
        assert_eq!(m.results(), &[S, F, S, F, S, F, S, F, S]);
    }

    #[test]
    fn draws_count_as_games() {
        let mut m = Match::new(3).unwrap();
        play(&mut m, &[None, F, None, S]);
        assert_eq!(m.draws(), 2);
        assert_eq!(m.games_played(), 4);
        assert!(!m.is_over());
        m.record(F).unwrap();
        // 2-1 with two draws after 2N-1 = 5 games: the leader takes it.
        assert!(m.is_over());
        assert_eq!(m.wins(Seat::First), 2);
        assert_eq!(m.winner(), Some(Seat::First));
    }

    #[test]
    fn drawn_match() {
        let mut m = Match::new(2).unwrap();
        play(&mut m, &[F, S, None]);
        assert!(m.is_over());
        assert_eq!(m.winner(), None);
        assert_eq!(m.next_black(), None);

        let mut all_draws = Match::default();
        play(&mut all_draws, &[None; 9]);
        assert!(all_draws.is_over());
        assert_eq!(all_draws.draws(), 9);
        assert_eq!(all_draws.winner(), None);
    }

    #[test]
    fn colours_alternate() {
        assert_eq!(Match::black_in_game(0), Seat::First);
        assert_eq!(Match::black_in_game(1), Seat::Second);
        assert_eq!(Match::black_in_game(8), Seat::First);
        let mut m = Match::default();
        for n in 0..4 {
            assert_eq!(m.next_black(), Some(Match::black_in_game(n)));
            m.record(None).unwrap();
        }
        assert_eq!(m.next_black(), Some(Seat::First));
    }

    #[test]
    fn record_after_the_end_is_refused() {
        let mut m = Match::new(1).unwrap();
        m.record(S).unwrap();
        let before = m.clone();
        let e = m.record(F).unwrap_err();
        assert_eq!(e, MatchError::Over);
        assert_eq!(
            e.to_string(),
            "the match is over: no more games can be recorded"
        );
        assert_eq!(m, before);
    }
}
