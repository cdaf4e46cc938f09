//! A game being played on the server: the rules core's [`Game`], who sits
//! in each seat, the computer players, and what the page is shown. Pure
//! logic with no I/O: the API and the engine pool drive it.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use caro_core::notation::format_pos;
use caro_core::{BoardSize, Color, Game, MoveError, Outcome, Pos, Rule, Rules};
use caro_engine::{Player, Score, SearchInfo, StopFlag};
use serde::{Deserialize, Serialize};

use crate::store::{GameRow, StoreError};

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

/// What the engine is thinking, as the page shows it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Thinking {
    /// The colour thinking.
    pub color: &'static str,
    /// Depth completed.
    pub depth: u32,
    /// Score from the thinker's side: a number, `+W7` (wins in 7 plies),
    /// `+W` (wins, length unknown) or `-L4`.
    pub score: String,
    /// Nodes searched.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// The best line, in coordinates such as `h8`.
    pub pv: Vec<String>,
}

impl Thinking {
    /// The page's view of a progress report.
    #[must_use]
    pub fn from_info(color: Color, info: &SearchInfo, size: BoardSize) -> Thinking {
        Thinking {
            color: color.name(),
            depth: info.depth,
            score: match info.score {
                Score::Eval(v) => v.to_string(),
                other => other.to_string(),
            },
            nodes: info.nodes,
            nps: info.nps(),
            pv: info.pv.iter().map(|&p| format_pos(p, size)).collect(),
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

/// How a game ended, for the page.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ResultView {
    /// `black`, `white`, or `null` for a draw.
    pub winner: Option<&'static str>,
    /// `five`, `resign`, `draw`, `foul` or `failed`.
    pub reason: &'static str,
    /// The winning line's points, for a five.
    pub line: Vec<[u8; 2]>,
    /// A sentence in English (the page writes its own, translated).
    pub message: String,
}

/// Everything the page needs to draw a game.
#[derive(Clone, Debug, Serialize)]
pub struct GameView {
    /// The game's id.
    pub id: i64,
    /// Columns.
    pub width: u8,
    /// Rows.
    pub height: u8,
    /// Stones in a row to win.
    pub k: u8,
    /// The rule's name.
    pub rule: &'static str,
    /// Colour of the first move.
    pub first: &'static str,
    /// Black's seat: `human` or a player's name.
    pub black: String,
    /// White's seat.
    pub white: String,
    /// Time per computer move.
    pub time_ms: u64,
    /// The moves as `[x, y]`, 0-based from the top-left.
    pub moves: Vec<[u8; 2]>,
    /// Moves that redo would replay, next first.
    pub redo: Vec<[u8; 2]>,
    /// Number of moves played: commands name it.
    pub ply: usize,
    /// Counts changes: a page keeps the view with the highest version.
    pub version: u64,
    /// The colour to move (meaningless once over).
    pub to_move: &'static str,
    /// The result, once over.
    pub result: Option<ResultView>,
    /// Renju points forbidden to black, when black is to move.
    pub forbidden: Vec<[u8; 2]>,
    /// The engine's progress, while a computer thinks.
    pub thinking: Option<Thinking>,
    /// Whether a computer is thinking now.
    pub busy: bool,
    /// Computer vs computer: paused.
    pub paused: bool,
    /// Computer vs computer: pause between moves.
    pub delay_ms: u64,
    /// The position code of the game (for a link).
    pub code: Option<String>,
    /// Unix seconds of creation.
    pub created: i64,
    /// Unix seconds of the last change.
    pub updated: i64,
    /// Whether this is an online game between two seat tokens.
    pub online: bool,
    /// Online: the pending offers and requests.
    pub offers: Option<OffersView>,
    /// Online: the clock, if the game has one.
    pub clock: Option<ClockView>,
}

/// The offers pending in an online game, as the page shows them.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct OffersView {
    /// A takeback request: who asked, and the ply it was asked at.
    pub takeback: Option<TakebackView>,
    /// The colour offering a draw.
    pub draw: Option<&'static str>,
    /// The colours that asked for a rematch.
    pub rematch: Vec<&'static str>,
    /// The rematch's game id, once both asked.
    pub next: Option<i64>,
}

/// A pending takeback request.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct TakebackView {
    /// The colour asking.
    pub by: &'static str,
    /// The ply the request was made at: accepting names it.
    pub ply: usize,
}

/// An online game's clock: each side's time, with an increment added
/// after each of its moves. It starts with the first move; the side to
/// move loses when its time runs out.
#[derive(Clone, Debug)]
pub struct Clock {
    /// Each side's time at the start, in milliseconds.
    pub initial_ms: u64,
    /// Added to a side's time after each of its moves.
    pub increment_ms: u64,
    /// Time left (black, white), as of when the running side's turn began.
    pub left_ms: [u64; 2],
    /// The side whose time runs, and since when. `None` before the first
    /// move and once the game is over.
    pub running: Option<(Color, Instant)>,
}

impl Clock {
    /// A clock of `initial_ms` a side plus `increment_ms` a move.
    #[must_use]
    pub fn new(initial_ms: u64, increment_ms: u64) -> Clock {
        Clock {
            initial_ms,
            increment_ms,
            left_ms: [initial_ms; 2],
            running: None,
        }
    }

    /// The time `color` has left at `now`.
    #[must_use]
    pub fn left(&self, color: Color, now: Instant) -> u64 {
        let base = self.left_ms[seat_index(color)];
        match self.running {
            Some((side, since)) if side == color => {
                base.saturating_sub(now.saturating_duration_since(since).as_millis() as u64)
            }
            _ => base,
        }
    }

    /// The stored form: `initial,increment,black,white` in milliseconds.
    #[must_use]
    pub fn to_text(&self, now: Instant) -> String {
        format!(
            "{},{},{},{}",
            self.initial_ms,
            self.increment_ms,
            self.left(Color::Black, now),
            self.left(Color::White, now)
        )
    }

    /// Reads [`Clock::to_text`] (stopped; the game restarts it).
    #[must_use]
    pub fn from_text(text: &str) -> Option<Clock> {
        let v: Vec<u64> = text
            .split(',')
            .map(|n| n.trim().parse().ok())
            .collect::<Option<_>>()?;
        match v[..] {
            [initial_ms, increment_ms, black, white] => Some(Clock {
                initial_ms,
                increment_ms,
                left_ms: [black, white],
                running: None,
            }),
            _ => None,
        }
    }
}

/// An online game's clock, as the page shows it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ClockView {
    /// Black's time left, in milliseconds, when the view was made.
    pub black_ms: u64,
    /// White's time left.
    pub white_ms: u64,
    /// The side whose time runs, if any.
    pub running: Option<&'static str>,
    /// Added after each move.
    pub increment_ms: u64,
}

/// An online game's seats and pending offers. The tokens are secrets: they
/// are stored, never shown in a view.
#[derive(Clone, Debug, Default)]
pub struct Online {
    /// Black's and white's seat tokens (hex).
    pub tokens: [String; 2],
    /// The address of the client that created the game.
    pub owner: String,
    /// A pending takeback request: the colour asking and the ply.
    pub takeback: Option<(Color, usize)>,
    /// The colour offering a draw.
    pub draw: Option<Color>,
    /// Which colours asked for a rematch (black, white).
    pub rematch: [bool; 2],
    /// The rematch, once created: its id and its tokens (black, white).
    pub next: Option<(i64, [String; 2])>,
    /// The clock, if the game has one.
    pub clock: Option<Clock>,
}

impl Online {
    /// The colour whose token this is, if any. Compares every byte, so
    /// the time taken does not tell how much of a guess was right.
    #[must_use]
    pub fn seat_of(&self, token: &str) -> Option<Color> {
        let same = |a: &str, b: &str| {
            !a.is_empty()
                && a.len() == b.len()
                && a.bytes()
                    .zip(b.bytes())
                    .fold(0u8, |acc, (x, y)| acc | (x ^ y))
                    == 0
        };
        if same(&self.tokens[0], token) {
            Some(Color::Black)
        } else if same(&self.tokens[1], token) {
            Some(Color::White)
        } else {
            None
        }
    }
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

fn write_moves(moves: &[Pos]) -> String {
    moves
        .iter()
        .map(|p| format!("{},{}", p.x, p.y))
        .collect::<Vec<_>>()
        .join(" ")
}

fn read_moves(text: &str) -> Option<Vec<Pos>> {
    text.split_whitespace()
        .map(|m| {
            let (x, y) = m.split_once(',')?;
            Some(Pos::new(x.parse().ok()?, y.parse().ok()?))
        })
        .collect()
}

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

    fn check_ply(&self, ply: usize) -> Result<(), ActionError> {
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

    /// The result for the page.
    #[must_use]
    pub fn result_view(&self) -> Option<ResultView> {
        if let Some(reason) = &self.failed {
            let loser = self.game.to_move();
            return Some(ResultView {
                winner: Some(loser.opponent().name()),
                reason: "failed",
                line: Vec::new(),
                message: format!("{} loses: {reason}", loser.name()),
            });
        }
        if let (Some(loser), false) = (self.timed_out, self.game.is_over()) {
            return Some(ResultView {
                winner: Some(loser.opponent().name()),
                reason: "time",
                line: Vec::new(),
                message: format!("{} ran out of time", loser.name()),
            });
        }
        if self.agreed_draw && !self.game.is_over() {
            return Some(ResultView {
                winner: None,
                reason: "agreed",
                line: Vec::new(),
                message: "draw agreed".to_string(),
            });
        }
        let outcome = self.game.outcome()?;
        let winner = outcome.winner().map(Color::name);
        let (reason, message) = match outcome {
            Outcome::Five { winner, .. } => (
                "five",
                format!(
                    "{} wins with {} in a row",
                    winner.name(),
                    self.game.rules().k
                ),
            ),
            Outcome::Draw if self.game.board().is_full() => {
                ("draw", "draw: the board is full".to_string())
            }
            Outcome::Draw => (
                "draw",
                "draw: black has no legal move (every empty point is forbidden)".to_string(),
            ),
            Outcome::Resigned { winner } => (
                "resign",
                format!(
                    "{} resigned; {} wins",
                    winner.opponent().name(),
                    winner.name()
                ),
            ),
            Outcome::Foul { winner, foul, .. } => (
                "foul",
                format!(
                    "black played a forbidden point ({foul}); {} wins",
                    winner.name()
                ),
            ),
        };
        Some(ResultView {
            winner,
            reason,
            line: outcome
                .line()
                .map(|l| l.points().map(xy).collect())
                .unwrap_or_default(),
            message,
        })
    }

    /// Everything the page shows.
    #[must_use]
    pub fn view(&self) -> GameView {
        let rules = self.game.rules();
        let forbidden =
            if !self.is_over() && self.game.to_move() == Color::Black && rules.rule.has_fouls() {
                self.game
                    .black_forbidden_points()
                    .into_iter()
                    .map(|(p, _)| xy(p))
                    .collect()
            } else {
                Vec::new()
            };
        GameView {
            id: self.id,
            width: rules.size.width,
            height: rules.size.height,
            k: rules.k,
            rule: rules.rule.name(),
            first: self.game.first().name(),
            black: self.seats[0].name().to_string(),
            white: self.seats[1].name().to_string(),
            time_ms: self.time_ms,
            moves: self.game.moves().iter().copied().map(xy).collect(),
            redo: self.game.redo_moves().iter().copied().map(xy).collect(),
            ply: self.game.moves().len(),
            version: self.generation,
            to_move: self.game.to_move().name(),
            result: self.result_view(),
            forbidden,
            thinking: self.thinking.clone(),
            busy: self.search.is_some(),
            paused: self.paused,
            delay_ms: self.delay_ms,
            code: caro_core::code::PositionCode::from_game(&self.game, "free")
                .ok()
                .map(|c| c.encode()),
            created: self.created,
            updated: self.updated,
            online: self.online.is_some(),
            offers: self.online.as_ref().map(|o| OffersView {
                takeback: o
                    .takeback
                    .map(|(by, ply)| TakebackView { by: by.name(), ply }),
                draw: o.draw.map(Color::name),
                rematch: [Color::Black, Color::White]
                    .into_iter()
                    .filter(|&c| o.rematch[seat_index(c)])
                    .map(Color::name)
                    .collect(),
                next: o.next.as_ref().map(|(id, _)| *id),
            }),
            clock: self
                .online
                .as_ref()
                .and_then(|o| o.clock.as_ref())
                .map(|c| {
                    let now = Instant::now();
                    ClockView {
                        black_ms: c.left(Color::Black, now),
                        white_ms: c.left(Color::White, now),
                        running: c.running.map(|(side, _)| side.name()),
                        increment_ms: c.increment_ms,
                    }
                }),
        }
    }

    /// The stored form.
    #[must_use]
    pub fn to_row(&self) -> GameRow {
        let rules = self.game.rules();
        let (result, ending) = match (&self.failed, self.game.outcome()) {
            (Some(reason), _) => (
                self.game.to_move().opponent().name().to_string(),
                format!("failed: {reason}"),
            ),
            (None, Some(outcome)) => {
                let view = self.result_view().map(|r| r.reason).unwrap_or("draw");
                let winner = outcome.winner().map_or("draw", Color::name);
                let ending = match outcome {
                    Outcome::Resigned { winner } => {
                        format!("resign {}", winner.opponent().name())
                    }
                    _ => view.to_string(),
                };
                (winner.to_string(), ending)
            }
            (None, None) if self.timed_out.is_some() => {
                let loser = self.timed_out.unwrap_or(Color::Black);
                (
                    loser.opponent().name().to_string(),
                    format!("time {}", loser.name()),
                )
            }
            (None, None) if self.agreed_draw => ("draw".to_string(), "agreed".to_string()),
            (None, None) => (String::new(), String::new()),
        };
        let (black_token, white_token, owner) = match &self.online {
            Some(o) => (o.tokens[0].clone(), o.tokens[1].clone(), o.owner.clone()),
            None => Default::default(),
        };
        let clock = self
            .online
            .as_ref()
            .and_then(|o| o.clock.as_ref())
            .map(|c| c.to_text(Instant::now()))
            .unwrap_or_default();
        GameRow {
            id: self.id,
            created: self.created,
            updated: self.updated,
            black: self.seats[0].name().to_string(),
            white: self.seats[1].name().to_string(),
            width: rules.size.width,
            height: rules.size.height,
            k: rules.k,
            rule: rules.rule.name().to_string(),
            first: self.game.first().name().to_string(),
            time_ms: self.time_ms,
            moves: write_moves(self.game.moves()),
            redo: write_moves(self.game.redo_moves()),
            result,
            ending,
            black_token,
            white_token,
            owner,
            clock,
        }
    }

    /// A stored game, replayed.
    ///
    /// # Errors
    /// [`StoreError::Damaged`] when the row does not make a game.
    pub fn from_row(row: &GameRow) -> Result<LiveGame, StoreError> {
        let damaged = |reason: String| StoreError::Damaged { id: row.id, reason };
        let size = BoardSize::new(row.width, row.height).map_err(|e| damaged(e.to_string()))?;
        let rule: Rule = row
            .rule
            .parse()
            .map_err(|_| damaged(format!("rule {:?}", row.rule)))?;
        let rules = Rules::new(size, row.k, rule).map_err(|e| damaged(e.to_string()))?;
        let first = parse_color(&row.first).ok_or_else(|| damaged("first colour".into()))?;
        let moves = read_moves(&row.moves).ok_or_else(|| damaged("moves".into()))?;
        let redo = read_moves(&row.redo).ok_or_else(|| damaged("redo moves".into()))?;
        let mut game = Game::new(rules, first).map_err(|e| damaged(e.to_string()))?;
        // Replay the redo line too, then take it back, so redo works after
        // a restart.
        for &p in moves.iter().chain(redo.iter()) {
            game.try_play(p).map_err(|e| damaged(e.to_string()))?;
        }
        for _ in &redo {
            game.undo();
        }
        let mut failed = None;
        if let Some(reason) = row.ending.strip_prefix("failed: ") {
            failed = Some(reason.to_string());
        } else if let Some(loser) = row.ending.strip_prefix("resign ") {
            let loser = parse_color(loser).ok_or_else(|| damaged("resigned colour".into()))?;
            game.resign_side(loser)
                .map_err(|e| damaged(e.to_string()))?;
        }
        let seat = |name: &str| {
            if name == "human" {
                Seat::Human
            } else {
                Seat::Computer(name.to_string())
            }
        };
        let mut live = LiveGame::new(game, [seat(&row.black), seat(&row.white)], row.time_ms);
        live.id = row.id;
        live.failed = failed;
        live.agreed_draw = row.ending == "agreed";
        if let Some(loser) = row.ending.strip_prefix("time ") {
            live.timed_out =
                Some(parse_color(loser).ok_or_else(|| damaged("timed-out colour".into()))?);
        }
        if !row.black_token.is_empty() && !row.white_token.is_empty() {
            let clock = if row.clock.is_empty() {
                None
            } else {
                Some(Clock::from_text(&row.clock).ok_or_else(|| damaged("clock".into()))?)
            };
            live.online = Some(Online {
                tokens: [row.black_token.clone(), row.white_token.clone()],
                owner: row.owner.clone(),
                clock,
                ..Online::default()
            });
            // The clock runs on from where it was stored.
            live.settle_clock(None, Instant::now());
        }
        live.created = row.created;
        live.updated = row.updated;
        Ok(live)
    }
}

/// Online play: every intent names the colour of the seat it comes from
/// (found from its token); the other seat must agree to a takeback or a
/// draw.
impl LiveGame {
    /// The seat a token sits in, in an online game.
    #[must_use]
    pub fn online_seat(&self, token: Option<&str>) -> Option<Color> {
        self.online.as_ref()?.seat_of(token?)
    }

    fn online_mut(&mut self) -> Result<&mut Online, ActionError> {
        self.online
            .as_mut()
            .ok_or(ActionError::Online("this game is not an online game"))
    }

    /// Charges the running side for its time (adding the increment if it
    /// is the side that just moved) and starts the clock of the side to
    /// move; stops it before the first move and once the game is over.
    pub fn settle_clock(&mut self, mover: Option<Color>, now: Instant) {
        let running = !self.is_over() && !self.game.moves().is_empty();
        let to_move = self.game.to_move();
        let Some(clock) = self.online.as_mut().and_then(|o| o.clock.as_mut()) else {
            return;
        };
        if let Some((side, _)) = clock.running {
            let mut left = clock.left(side, now);
            if mover == Some(side) {
                left += clock.increment_ms;
            }
            clock.left_ms[seat_index(side)] = left;
        }
        clock.running = running.then_some((to_move, now));
    }

    /// When the side to move has run out of time at `now`, it loses.
    /// Returns whether that happened.
    pub fn flag_if_out_of_time(&mut self, now: Instant) -> bool {
        if self.is_over() {
            return false;
        }
        let Some((side, _)) = self
            .online
            .as_ref()
            .and_then(|o| o.clock.as_ref())
            .and_then(|c| c.running.filter(|&(side, _)| c.left(side, now) == 0))
        else {
            return false;
        };
        self.timed_out = Some(side);
        self.settle_clock(None, now);
        self.clear_offers();
        self.touch();
        true
    }

    /// How long until the running side's time is out, if a clock runs.
    #[must_use]
    pub fn time_to_flag(&self, now: Instant) -> Option<Duration> {
        let clock = self.online.as_ref()?.clock.as_ref()?;
        let (side, _) = clock.running?;
        Some(Duration::from_millis(clock.left(side, now)))
    }

    fn clear_offers(&mut self) {
        if let Some(o) = &mut self.online {
            o.takeback = None;
            o.draw = None;
        }
    }

    /// The seat `color` plays `pos`, sent for ply `ply`.
    ///
    /// # Errors
    /// [`ActionError`]: stale, over, the opponent's turn, or refused by
    /// the rules; the game is unchanged.
    pub fn online_move(&mut self, color: Color, ply: usize, pos: Pos) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        let to_move = self.game.to_move();
        if to_move != color {
            return Err(ActionError::OpponentsTurn(to_move.name()));
        }
        let now = Instant::now();
        if self
            .online
            .as_ref()
            .and_then(|o| o.clock.as_ref())
            .is_some_and(|c| c.running.is_some() && c.left(color, now) == 0)
        {
            return Err(ActionError::GameOver);
        }
        self.game.try_play(pos).map_err(ActionError::Move)?;
        self.settle_clock(Some(color), now);
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// The seat `color` resigns.
    ///
    /// # Errors
    /// [`ActionError::GameOver`].
    pub fn online_resign(&mut self, color: Color) -> Result<(), ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        self.game
            .resign_side(color)
            .map_err(|_| ActionError::GameOver)?;
        self.settle_clock(None, Instant::now());
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// The seat `color` asks to take back its last move, at ply `ply`.
    ///
    /// # Errors
    /// Stale, over, or [`ActionError::NothingToUndo`] when `color` has
    /// not moved yet.
    pub fn request_takeback(&mut self, color: Color, ply: usize) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        let n = self.game.moves().len();
        if !(0..n).any(|i| self.game.color_of_move(i) == color) {
            return Err(ActionError::NothingToUndo);
        }
        self.online_mut()?.takeback = Some((color, ply));
        self.touch();
        Ok(())
    }

    /// The seat `color` accepts the opponent's takeback request made at
    /// ply `ply`: moves are taken back until the asker is to move again.
    ///
    /// # Errors
    /// Stale, or [`ActionError::NoOffer`].
    pub fn accept_takeback(&mut self, color: Color, ply: usize) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        let by = match self.online_mut()?.takeback {
            Some((by, at)) if by != color && at == ply => by,
            _ => return Err(ActionError::NoOffer),
        };
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        self.game.undo();
        while self.game.to_move() != by && !self.game.moves().is_empty() {
            self.game.undo();
        }
        self.settle_clock(None, Instant::now());
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// The seat `color` declines the opponent's takeback request.
    ///
    /// # Errors
    /// [`ActionError::NoOffer`].
    pub fn decline_takeback(&mut self, color: Color) -> Result<(), ActionError> {
        let online = self.online_mut()?;
        match online.takeback {
            Some((by, _)) if by != color => online.takeback = None,
            _ => return Err(ActionError::NoOffer),
        }
        self.touch();
        Ok(())
    }

    /// The seat `color` offers a draw; when the opponent offered one
    /// already, the game is drawn.
    ///
    /// # Errors
    /// [`ActionError::GameOver`].
    pub fn offer_draw(&mut self, color: Color) -> Result<(), ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        let online = self.online_mut()?;
        match online.draw {
            Some(by) if by != color => return self.accept_draw(color),
            _ => online.draw = Some(color),
        }
        self.touch();
        Ok(())
    }

    /// The seat `color` accepts the opponent's draw offer.
    ///
    /// # Errors
    /// [`ActionError::NoOffer`] or [`ActionError::GameOver`].
    pub fn accept_draw(&mut self, color: Color) -> Result<(), ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        match self.online_mut()?.draw {
            Some(by) if by != color => {}
            _ => return Err(ActionError::NoOffer),
        }
        self.agreed_draw = true;
        self.settle_clock(None, Instant::now());
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// The seat `color` asks for a rematch once the game is over. Returns
    /// whether both have now asked and no rematch exists yet.
    ///
    /// # Errors
    /// [`ActionError::Online`] while the game goes on.
    pub fn offer_rematch(&mut self, color: Color) -> Result<bool, ActionError> {
        if !self.is_over() {
            return Err(ActionError::Online(
                "a rematch is offered once the game is over",
            ));
        }
        let online = self.online_mut()?;
        online.rematch[seat_index(color)] = true;
        let both = online.rematch == [true, true] && online.next.is_none();
        self.touch();
        Ok(both)
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

/// A point as the page sends it.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub struct Point {
    /// Column, 0-based from the left.
    pub x: u8,
    /// Row, 0-based from the top.
    pub y: u8,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(size: u8, seats: [Seat; 2]) -> LiveGame {
        let rules = Rules::new(
            BoardSize::new(size, size).unwrap(),
            3.min(size),
            Rule::Freestyle,
        )
        .unwrap();
        LiveGame::new(Game::new(rules, Color::Black).unwrap(), seats, 100)
    }

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

    fn online_game() -> LiveGame {
        let mut g = game(5, [Seat::Human, Seat::Human]);
        g.online = Some(Online {
            tokens: ["b".repeat(32), "w".repeat(32)],
            ..Online::default()
        });
        g
    }

    #[test]
    fn online_seats_move_in_turn_and_agree_takebacks_and_draws() {
        let mut g = online_game();
        assert_eq!(g.online_seat(Some(&"w".repeat(32))), Some(Color::White));
        assert_eq!(g.online_seat(Some("w")), None);
        assert_eq!(g.online_seat(None), None);
        assert!(matches!(
            g.online_move(Color::White, 0, Pos::new(0, 0)),
            Err(ActionError::OpponentsTurn("black"))
        ));
        g.online_move(Color::Black, 0, Pos::new(0, 0)).unwrap();
        g.online_move(Color::White, 1, Pos::new(1, 1)).unwrap();
        // Black asks after white replied: both moves go back.
        g.request_takeback(Color::Black, 2).unwrap();
        assert!(matches!(
            g.accept_takeback(Color::Black, 2),
            Err(ActionError::NoOffer)
        ));
        g.accept_takeback(Color::White, 2).unwrap();
        assert_eq!(g.game.moves().len(), 0);
        g.online_move(Color::Black, 0, Pos::new(2, 2)).unwrap();
        g.request_takeback(Color::Black, 1).unwrap();
        g.decline_takeback(Color::White).unwrap();
        assert!(matches!(
            g.accept_takeback(Color::White, 1),
            Err(ActionError::NoOffer)
        ));
        g.offer_draw(Color::White).unwrap();
        assert!(!g.is_over());
        g.accept_draw(Color::Black).unwrap();
        assert!(g.is_over());
        assert_eq!(g.result_view().unwrap().reason, "agreed");
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert!(back.agreed_draw && back.online.is_some());
        assert!(!g.offer_rematch(Color::Black).unwrap());
        assert!(g.offer_rematch(Color::White).unwrap());
    }

    #[test]
    fn the_side_to_move_loses_on_time_and_moves_add_the_increment() {
        let mut g = online_game();
        if let Some(o) = &mut g.online {
            o.clock = Some(Clock::new(60_000, 2_000));
        }
        let now = Instant::now();
        assert!(
            !g.flag_if_out_of_time(now + Duration::from_secs(3600)),
            "not started"
        );
        g.online_move(Color::Black, 0, Pos::new(0, 0)).unwrap();
        let clock = g.online.as_ref().and_then(|o| o.clock.clone()).unwrap();
        assert_eq!(
            clock.left_ms,
            [60_000, 60_000],
            "the first move costs nothing"
        );
        assert_eq!(clock.running.map(|r| r.0), Some(Color::White));
        g.online_move(Color::White, 1, Pos::new(1, 1)).unwrap();
        let clock = g.online.as_ref().and_then(|o| o.clock.clone()).unwrap();
        assert!(clock.left_ms[1] > 60_000, "white gained its increment");
        let later = Instant::now() + Duration::from_secs(61);
        assert!(!g.flag_if_out_of_time(Instant::now()));
        assert!(g.flag_if_out_of_time(later));
        assert_eq!(g.result_view().unwrap().winner, Some("white"));
        assert_eq!(g.result_view().unwrap().reason, "time");
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert_eq!(back.timed_out, Some(Color::Black));
        assert_eq!(back.view().clock.unwrap().black_ms, 0);
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

    #[test]
    fn rows_round_trip_with_redo_and_resignation() {
        let mut g = game(5, [Seat::Human, Seat::Human]);
        for (i, p) in [Pos::new(0, 0), Pos::new(1, 0), Pos::new(0, 1)]
            .into_iter()
            .enumerate()
        {
            g.play_human(i, p).unwrap();
        }
        g.undo(None).unwrap();
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert_eq!(back.game.moves(), g.game.moves());
        assert_eq!(back.game.redo_moves(), g.game.redo_moves());
        g.resign(None).unwrap();
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert_eq!(back.result_view(), g.result_view());
        assert_eq!(
            back.result_view().unwrap().winner,
            Some("white"),
            "black, to move, resigned"
        );
    }
}
