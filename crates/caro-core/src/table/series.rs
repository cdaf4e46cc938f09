//! A match of seated games: [`Series`], first to `N` wins.

use super::{Sitter, Table, TableError};
use crate::matchplay::{Match, MatchError};
use crate::opening::{Opening, Seat};
use crate::pos::Color;
use crate::rule::Rules;

/// Why a series refused to go on. The series is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeriesError {
    /// The match cannot be set up (first to 0).
    #[error(transparent)]
    Match(#[from] MatchError),
    /// The match is over: no more games.
    #[error("the match is over")]
    Over,
    /// The game recorded has not ended.
    #[error("the game is not over yet")]
    GameNotOver,
    /// A recorded winner is not player 0 or 1.
    #[error("no player {0}: a match has players 0 and 1")]
    NoSuchPlayer(usize),
    /// A table for the next game could not be made.
    #[error(transparent)]
    Table(#[from] TableError),
}

impl SeriesError {
    /// A short stable code: `bad_match`, `match_over`, `game_not_over`, or
    /// the table's code.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            SeriesError::Match(MatchError::Over) | SeriesError::Over => "match_over",
            SeriesError::Match(_) | SeriesError::NoSuchPlayer(_) => "bad_match",
            SeriesError::GameNotOver => "game_not_over",
            SeriesError::Table(e) => e.code(),
        }
    }
}

/// A match between two players A (index 0) and B (index 1), first to `N`
/// wins (see [`crate::matchplay`]): who opens each game, the score, and
/// each game's table.
///
/// Colours alternate game by game: player A opens game 1 (sits in the
/// first seat, which plays black in a `free` opening), B game 2, and so
/// on. Under a swap opening the opener places the first stones and the
/// swap decides the colours; a game's result is counted by player, from
/// the colours the seats ended up with.
///
/// ```
/// use caro_core::opening::Opening;
/// use caro_core::table::{Series, Sitter};
/// use caro_core::{BoardSize, Color, Rule, Rules};
///
/// let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
/// let mut series = Series::new(2, [Sitter::Human, Sitter::Computer("random".into())]).unwrap();
/// let mut table = series.table(rules, Opening::Free).unwrap();
/// assert_eq!(series.opener(), Some(0));
/// table.resign(None).unwrap(); // the person (A, black) resigns game 1
/// assert_eq!(series.record(&table).unwrap(), Some(1));
/// assert_eq!(series.score(), [0, 1]);
/// assert_eq!(series.opener(), Some(1)); // B opens game 2
/// let table = series.table(rules, Opening::Free).unwrap();
/// assert_eq!(table.seat_of(Color::Black), caro_core::opening::Seat::First);
/// assert_eq!(table.sitters()[0], Sitter::Computer("random".into()));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Series {
    players: [Sitter; 2],
    record: Match,
}

impl Series {
    /// A match of `players` (A, B), first to `first_to` wins.
    ///
    /// # Errors
    /// [`SeriesError::Match`] when `first_to` is 0 or too large.
    pub fn new(first_to: u32, players: [Sitter; 2]) -> Result<Series, SeriesError> {
        Ok(Series {
            players,
            record: Match::new(first_to)?,
        })
    }

    /// A match already under way: `results` are the games' winners in order
    /// (player index, `None` for a draw).
    ///
    /// # Errors
    /// [`SeriesError::Match`] when `first_to` is 0 or the results go past
    /// the end of the match, or a winner index is not 0 or 1.
    pub fn resume(
        first_to: u32,
        players: [Sitter; 2],
        results: &[Option<usize>],
    ) -> Result<Series, SeriesError> {
        let mut series = Series::new(first_to, players)?;
        for &r in results {
            let seat = match r {
                None => None,
                Some(0) => Some(Seat::First),
                Some(1) => Some(Seat::Second),
                Some(n) => return Err(SeriesError::NoSuchPlayer(n)),
            };
            series.record.record(seat)?;
        }
        Ok(series)
    }

    /// The players, A then B.
    #[must_use]
    pub fn players(&self) -> &[Sitter; 2] {
        &self.players
    }

    /// Wins needed to take the match.
    #[must_use]
    pub fn first_to(&self) -> u32 {
        self.record.first_to()
    }

    /// The most games the match can last.
    #[must_use]
    pub fn max_games(&self) -> usize {
        self.record.max_games()
    }

    /// Games finished, draws included.
    #[must_use]
    pub fn games_played(&self) -> usize {
        self.record.games_played()
    }

    /// The player (0 = A, 1 = B) who opens game `n` (0-based): A in even
    /// games, B in odd ones.
    #[must_use]
    pub fn opener_of_game(n: usize) -> usize {
        Match::black_in_game(n).index()
    }

    /// The player who opens the next game, or `None` once the match is over.
    #[must_use]
    pub fn opener(&self) -> Option<usize> {
        self.record.next_black().map(Seat::index)
    }

    /// The table for the next game: the opener in the first seat.
    ///
    /// # Errors
    /// [`SeriesError::Over`] once the match is over, [`SeriesError::Table`]
    /// when the rules refuse the table.
    pub fn table(&self, rules: Rules, opening: Opening) -> Result<Table, SeriesError> {
        let opener = self.opener().ok_or(SeriesError::Over)?;
        let sitters = [
            self.players[opener].clone(),
            self.players[1 - opener].clone(),
        ];
        Ok(Table::new(rules, Color::Black, opening, sitters)?)
    }

    /// The player (0 or 1) sitting in `seat` of the next game's table (of
    /// the game being played).
    #[must_use]
    pub fn player_in(&self, seat: Seat) -> Option<usize> {
        self.opener().map(|o| match seat {
            Seat::First => o,
            Seat::Second => 1 - o,
        })
    }

    /// Records the finished game played on `table` (the table
    /// [`Series::table`] made for it). Returns its winner (player index),
    /// or `None` for a draw.
    ///
    /// # Errors
    /// [`SeriesError::GameNotOver`] when the game goes on,
    /// [`SeriesError::Over`] when the match has already ended.
    pub fn record(&mut self, table: &Table) -> Result<Option<usize>, SeriesError> {
        let opener = self.opener().ok_or(SeriesError::Over)?;
        let ending = table.ending().ok_or(SeriesError::GameNotOver)?;
        let winner = ending.winner().map(|color| match table.seat_of(color) {
            Seat::First => opener,
            Seat::Second => 1 - opener,
        });
        let seat = winner.map(|p| if p == 0 { Seat::First } else { Seat::Second });
        self.record.record(seat)?;
        Ok(winner)
    }

    /// Games won by each player, A then B.
    #[must_use]
    pub fn score(&self) -> [u32; 2] {
        [
            self.record.wins(Seat::First),
            self.record.wins(Seat::Second),
        ]
    }

    /// Games drawn.
    #[must_use]
    pub fn draws(&self) -> u32 {
        self.record.draws()
    }

    /// Whether the match has ended.
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.record.is_over()
    }

    /// The match's winner (0 or 1) once it is over; `None` while it goes on
    /// or for a drawn match.
    #[must_use]
    pub fn winner(&self) -> Option<usize> {
        self.record.winner().map(Seat::index)
    }

    /// Each game's winner in order (player index, `None` for a draw).
    #[must_use]
    pub fn results(&self) -> Vec<Option<usize>> {
        self.record
            .results()
            .iter()
            .map(|r| r.map(Seat::index))
            .collect()
    }
}
