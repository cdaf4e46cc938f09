//! A game being played on the server: the shared rules of a seated game
//! ([`Table`]: the board, the opening, who sits where, the ending), the
//! computer players, the match it belongs to, and what the page is shown.
//! Pure logic with no I/O: the API and the engine pool drive it.
//!
//! - `game`: the game itself: moves, swap choices, undo and redo, resigning;
//! - `view`: what the page is shown;
//! - `row`: the stored form;
//! - `clock`: an online game's clock;
//! - `online`: an online game's seats and offers;
//! - `series`: the match a game belongs to.

use std::time::{SystemTime, UNIX_EPOCH};

use caro_core::opening::Seat;
use caro_core::table::{Table, TableError};
use caro_core::{Color, Game, MoveError, Pos};
use caro_engine::{Player, Score, StopFlag};
use serde::Deserialize;

mod clock;
mod game;
mod online;
mod row;
mod series;
mod view;

pub use caro_core::table::Sitter;
pub use clock::Clock;
pub use online::Online;
pub use series::MatchLink;
pub use view::{
    ClockView, ConnectedView, GameView, MatchView, OffersView, ResultView, SeatView, TakebackView,
    Thinking, TurnView,
};

/// Time per computer move when the request names none.
pub const DEFAULT_TIME_MS: u64 = 1000;
/// Longest time per computer move a request may ask for.
pub const MAX_TIME_MS: u64 = 60_000;
/// Pause between moves of two computers, by default.
pub const DEFAULT_DELAY_MS: u64 = 400;
/// Most wins a match may be played to.
pub const MAX_FIRST_TO: u32 = 10;

/// An intent the game refused; the game is unchanged.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    /// The command was meant for another ply (a double click, a second
    /// tab, a page that had not caught up).
    #[error("the game has moved on: the command was for ply {sent}, the game is at ply {now}")]
    Stale {
        /// The ply the command named.
        sent: usize,
        /// The game's ply.
        now: usize,
    },
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// The rules refused the move.
    #[error("{0}")]
    Move(MoveError),
    /// Nothing to take back.
    #[error("there is no move to undo")]
    NothingToUndo,
    /// Nothing to replay.
    #[error("there is no move to redo")]
    NothingToRedo,
    /// Resigning needs a person at the board.
    #[error("only a person can resign; in a computer game use New game")]
    NobodyToResign,
    /// The seated game refused (not your turn, a choice is due, no choice
    /// is due, not your choice…).
    #[error("{0}")]
    Table(TableError),
    /// Online: the command needs a player's seat.
    #[error("you are watching this game: only its two players can do that")]
    NotAPlayer,
    /// Online: there is no offer or request to answer.
    #[error("there is no offer from your opponent to answer")]
    NoOffer,
    /// Online: the intent is not offered in online games (undo, redo,
    /// pause… are agreed between the players instead).
    #[error("not available in an online game: {0}")]
    Online(&'static str),
    /// The game is not part of a match.
    #[error("this game is not part of a match")]
    NoMatch,
    /// The match has ended: no more games.
    #[error("the match is over")]
    MatchOver,
    /// The next game of a match is made once this one is over.
    #[error("the game is not over yet")]
    GameNotOver,
    /// A hint is for a person's turn in a game against the computer.
    #[error("no hint: {0}")]
    NoHint(&'static str),
}

impl From<TableError> for ActionError {
    fn from(e: TableError) -> ActionError {
        match e {
            TableError::Move(m) => ActionError::Move(m),
            TableError::GameOver => ActionError::GameOver,
            TableError::NothingToUndo => ActionError::NothingToUndo,
            TableError::NothingToRedo => ActionError::NothingToRedo,
            TableError::NobodyToResign => ActionError::NobodyToResign,
            other => ActionError::Table(other),
        }
    }
}

impl ActionError {
    /// A short machine-readable code the page translates.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            ActionError::Stale { .. } => "stale",
            ActionError::GameOver | ActionError::Move(MoveError::GameOver) => "game_over",
            ActionError::Move(MoveError::Occupied { .. }) => "occupied",
            ActionError::Move(MoveError::Forbidden { .. }) => "forbidden",
            ActionError::Move(MoveError::OffBoard { .. }) => "off_board",
            ActionError::NothingToUndo => "nothing_to_undo",
            ActionError::NothingToRedo => "nothing_to_redo",
            ActionError::NobodyToResign => "nobody_to_resign",
            ActionError::Table(e) => e.code(),
            ActionError::NotAPlayer => "not_a_player",
            ActionError::NoOffer => "no_offer",
            ActionError::Online(_) => "online",
            ActionError::NoMatch => "no_match",
            ActionError::MatchOver => "match_over",
            ActionError::GameNotOver => "game_not_over",
            ActionError::NoHint(_) => "no_hint",
        }
    }
}

/// A search in flight: what it was started for, and how to stop it.
#[derive(Clone, Debug)]
pub struct Ticket {
    /// Ply of the position searched.
    pub ply: usize,
    /// Bumped by every change, so a late answer to an old position is
    /// recognised and dropped.
    pub generation: u64,
    /// Stops the search (it then plays its best move so far, unless the
    /// position has changed).
    pub stop: StopFlag,
}

/// A game on the server.
pub struct LiveGame {
    /// Its id in the store.
    pub id: i64,
    /// The seated game: board, history, opening, sitters and ending.
    pub table: Table,
    /// Time per computer move.
    pub time_ms: u64,
    /// Computer vs computer: paused (also set by undo in such a game).
    pub paused: bool,
    /// Computer vs computer: pause between moves.
    pub delay_ms: u64,
    /// Paused, but one computer move was asked for.
    pub step_pending: bool,
    /// The computer players, built on first use (first seat, second seat).
    pub players: [Option<Box<dyn Player>>; 2],
    /// The search in flight.
    pub search: Option<Ticket>,
    /// Counts changes; see [`Ticket::generation`].
    pub generation: u64,
    /// The engine's latest progress report.
    pub thinking: Option<Thinking>,
    /// The last report of the computer's last search, kept after its move.
    pub evaluation: Option<Thinking>,
    /// Unix seconds of creation.
    pub created: i64,
    /// Unix seconds of the last change.
    pub updated: i64,
    /// Set for an online game (two seat tokens).
    pub online: Option<Online>,
    /// Hints asked for in this game.
    pub hints: u32,
    /// The match the game belongs to.
    pub series: Option<MatchLink>,
    /// The players' names (black, white) when they are not seats: an
    /// imported game's.
    pub names: Option<[String; 2]>,
    /// The stored version this game is at ([`crate::store::Store::update`]
    /// writes a change only over the version it was made on).
    pub version: i64,
    /// Unix milliseconds until which this game's computer search is
    /// claimed, as stored.
    pub search_until: i64,
    /// Another instance searches this version (it said so): shown as busy.
    pub remote_search: bool,
    /// This instance holds the computer's search of this version: it
    /// stored the change that made it the computer's turn, or claimed it
    /// since. Instances that only read the change leave the search alone.
    pub claimed: bool,
}

/// A game as it was before a change: see [`LiveGame::snapshot`].
pub struct Snapshot {
    table: Table,
    paused: bool,
    delay_ms: u64,
    step_pending: bool,
    search: Option<Ticket>,
    generation: u64,
    thinking: Option<Thinking>,
    evaluation: Option<Thinking>,
    updated: i64,
    online: Option<Online>,
    hints: u32,
    series: Option<MatchLink>,
    version: i64,
    search_until: i64,
    claimed: bool,
}

/// Seconds since 1970.
#[must_use]
pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Milliseconds since 1970.
#[must_use]
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn xy(p: Pos) -> [u8; 2] {
    [p.x, p.y]
}

/// Whether a search's score says the side to move is at least even: the
/// computer's swap decision rests on it
/// ([`caro_core::table::decide_swap`]).
#[must_use]
pub fn at_least_even(score: Score) -> bool {
    match score {
        Score::Eval(v) => v >= 0,
        Score::WinIn(_) | Score::Win => true,
        Score::LossIn(_) => false,
    }
}

/// `black`/`b`/`x` or `white`/`w`/`o`, any case.
#[must_use]
pub fn parse_color(text: &str) -> Option<Color> {
    match text.trim().to_ascii_lowercase().as_str() {
        "black" | "b" | "x" => Some(Color::Black),
        "white" | "w" | "o" => Some(Color::White),
        _ => None,
    }
}

/// `human` or a computer player's name, as a sitter.
#[must_use]
pub fn sitter(name: &str) -> Sitter {
    if name == "human" {
        Sitter::Human
    } else {
        Sitter::Computer(name.to_string())
    }
}

/// The seat of an index: 0 the first, 1 the second.
fn seat_of_index(i: usize) -> Seat {
    if i == 0 {
        Seat::First
    } else {
        Seat::Second
    }
}

/// The game under a table (for callers that only read the position).
impl LiveGame {
    /// The board, history and the board's result.
    #[must_use]
    pub fn game(&self) -> &Game {
        self.table.game()
    }
}

/// A point as the page sends it.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub struct Point {
    /// Column, 0-based from the left.
    pub x: u8,
    /// Row, 0-based from the top.
    pub y: u8,
}

#[cfg(test)]
mod testing {
    use super::{LiveGame, Online, Sitter};
    use caro_core::opening::Opening;
    use caro_core::table::Table;
    use caro_core::{BoardSize, Color, Rule, Rules};

    /// A `size`×`size` freestyle game of k = min(3, size).
    pub(super) fn game(size: u8, seats: [Sitter; 2]) -> LiveGame {
        let rules = Rules::new(
            BoardSize::new(size, size).unwrap(),
            3.min(size),
            Rule::Freestyle,
        )
        .unwrap();
        LiveGame::new(
            Table::new(rules, Color::Black, Opening::Free, seats).unwrap(),
            100,
        )
    }

    /// A 5×5 online game between two people.
    pub(super) fn online_game() -> LiveGame {
        let mut g = game(5, [Sitter::Human, Sitter::Human]);
        g.online = Some(Online {
            tokens: ["b".repeat(32), "w".repeat(32)],
            ..Online::default()
        });
        g
    }
}
