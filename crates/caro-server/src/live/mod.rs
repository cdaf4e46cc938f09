//! A game being played on the server: the rules core's [`Game`], who sits
//! in each seat, the computer players, and what the page is shown. Pure
//! logic with no I/O: the API and the engine pool drive it.
//!
//! - `game`: the game itself: moves, undo and redo, resigning;
//! - `view`: what the page is shown;
//! - `row`: the stored form;
//! - `clock`: an online game's clock;
//! - `online`: an online game's seats and offers.

use std::time::{SystemTime, UNIX_EPOCH};

use caro_core::{Color, Game, MoveError, Pos};
use caro_engine::{Player, StopFlag};
use serde::Deserialize;

mod clock;
mod game;
mod online;
mod row;
mod view;

pub use clock::Clock;
pub use online::Online;
pub use view::{ClockView, GameView, OffersView, ResultView, TakebackView, Thinking};

/// Time per computer move when the request names none.
pub const DEFAULT_TIME_MS: u64 = 1000;
/// Longest time per computer move a request may ask for.
pub const MAX_TIME_MS: u64 = 60_000;
/// Pause between moves of two computers, by default.
pub const DEFAULT_DELAY_MS: u64 = 400;

/// Who sits in a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seat {
    /// A person at the page.
    Human,
    /// A computer player, by its name (`caro:5`, `scoremap`, an engine…).
    Computer(String),
}

impl Seat {
    /// `human` or the player's name.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Seat::Human => "human",
            Seat::Computer(name) => name,
        }
    }

    /// Whether a computer sits here.
    #[must_use]
    pub fn is_computer(&self) -> bool {
        matches!(self, Seat::Computer(_))
    }
}

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
    /// The side to move is a computer.
    #[error("it is not your turn: the computer ({0}) is to move")]
    NotYourTurn(String),
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
    /// Online: the other player is to move.
    #[error("it is not your turn: {0} is to move")]
    OpponentsTurn(&'static str),
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
}

impl ActionError {
    /// A short machine-readable code the page translates.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            ActionError::Stale { .. } => "stale",
            ActionError::NotYourTurn(_) => "not_your_turn",
            ActionError::GameOver | ActionError::Move(MoveError::GameOver) => "game_over",
            ActionError::Move(MoveError::Occupied { .. }) => "occupied",
            ActionError::Move(MoveError::Forbidden { .. }) => "forbidden",
            ActionError::Move(MoveError::OffBoard { .. }) => "off_board",
            ActionError::NothingToUndo => "nothing_to_undo",
            ActionError::NothingToRedo => "nothing_to_redo",
            ActionError::NobodyToResign => "nobody_to_resign",
            ActionError::OpponentsTurn(_) => "not_your_turn",
            ActionError::NotAPlayer => "not_a_player",
            ActionError::NoOffer => "no_offer",
            ActionError::Online(_) => "online",
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
    /// The position, history and result.
    pub game: Game,
    /// Black's and white's seats, in that order.
    pub seats: [Seat; 2],
    /// Time per computer move.
    pub time_ms: u64,
    /// Computer vs computer: paused (also set by undo in such a game).
    pub paused: bool,
    /// Computer vs computer: pause between moves.
    pub delay_ms: u64,
    /// Paused, but one computer move was asked for.
    pub step_pending: bool,
    /// The computer players, built on first use (black, white).
    pub players: [Option<Box<dyn Player>>; 2],
    /// The search in flight.
    pub search: Option<Ticket>,
    /// Counts changes; see [`Ticket::generation`].
    pub generation: u64,
    /// The engine's latest progress report.
    pub thinking: Option<Thinking>,
    /// Set when a computer player failed (an external engine crashed or
    /// answered nonsense): the game stops there.
    pub failed: Option<String>,
    /// Unix seconds of creation.
    pub created: i64,
    /// Unix seconds of the last change.
    pub updated: i64,
    /// Set for an online game (two seat tokens).
    pub online: Option<Online>,
    /// The players agreed a draw.
    pub agreed_draw: bool,
    /// Online: the colour that ran out of time.
    pub timed_out: Option<Color>,
}

/// A game as it was before a change: see [`LiveGame::snapshot`].
pub struct Snapshot {
    game: Game,
    paused: bool,
    delay_ms: u64,
    step_pending: bool,
    search: Option<Ticket>,
    generation: u64,
    thinking: Option<Thinking>,
    failed: Option<String>,
    updated: i64,
    online: Option<Online>,
    agreed_draw: bool,
    timed_out: Option<Color>,
}

/// Seconds since 1970.
#[must_use]
pub fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn seat_index(color: Color) -> usize {
    match color {
        Color::Black => 0,
        Color::White => 1,
    }
}

fn xy(p: Pos) -> [u8; 2] {
    [p.x, p.y]
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
    use super::{LiveGame, Online, Seat};
    use caro_core::{BoardSize, Color, Game, Rule, Rules};

    /// A `size`×`size` freestyle game of k = min(3, size).
    pub(super) fn game(size: u8, seats: [Seat; 2]) -> LiveGame {
        let rules = Rules::new(
            BoardSize::new(size, size).unwrap(),
            3.min(size),
            Rule::Freestyle,
        )
        .unwrap();
        LiveGame::new(Game::new(rules, Color::Black).unwrap(), seats, 100)
    }

    /// A 5×5 online game between two people.
    pub(super) fn online_game() -> LiveGame {
        let mut g = game(5, [Seat::Human, Seat::Human]);
        g.online = Some(Online {
            tokens: ["b".repeat(32), "w".repeat(32)],
            ..Online::default()
        });
        g
    }
}
