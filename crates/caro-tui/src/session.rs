//! A game in progress, independent of any screen: the [`Table`] (the
//! rules of the seated game: seats, turns, undo and redo the way a person
//! expects, resigning, swap decisions, endings), a match of several games
//! when one is played, the cursor, and the engines thinking on background
//! threads.
//!
//! Both front ends (the full-screen board and the plain line mode) drive a
//! [`Session`]: they hand it the human's moves and commands, and call
//! [`Session::poll`] (or [`Session::wait`]) to let computers move.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use caro_core::opening::{Choice, Opening, OpeningState, Seat};
use caro_core::table::{Actor, Ending, Series, Sitter, Table};
use caro_core::{Color, Game, Pos, Rules};
use caro_engine::renju_opening::{opening_action, per_eval_limits, OpeningAction};
use caro_engine::{
    Context, Decision, EngineError, Limits, Player, PlayerSource, Score, SearchInfo, StopFlag,
};

use crate::TuiError;

pub use caro_core::table::{TableError, Turn};

/// Why a person's move or decision was refused (the table's error, with
/// its machine code). The game is unchanged.
pub type PlayError = TableError;

/// Who sits on one side of the board.
#[derive(Clone)]
pub enum SeatKind {
    /// A person at the keyboard.
    Human,
    /// A computer player, built from its source when the session starts.
    Computer(Arc<dyn PlayerSource>),
}

impl SeatKind {
    /// `human`, or the computer player's name (`caro:5`, `pbrain:/x`).
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            SeatKind::Human => "human".to_string(),
            SeatKind::Computer(source) => source.name(),
        }
    }

    /// Whether a person sits here.
    #[must_use]
    pub fn is_human(&self) -> bool {
        matches!(self, SeatKind::Human)
    }

    /// The table's view of this seat: a person, or a computer by name.
    #[must_use]
    pub fn sitter(&self) -> Sitter {
        match self {
            SeatKind::Human => Sitter::Human,
            SeatKind::Computer(source) => Sitter::Computer(source.name()),
        }
    }
}

impl std::fmt::Debug for SeatKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// Everything a session needs to start.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// Board, win length and rule.
    pub rules: Rules,
    /// The opening: `free`, or a swap opening where the first seat places
    /// the first stones and colours are chosen.
    pub opening: Opening,
    /// Who plays black (moves first), or with a swap opening the first
    /// seat (who opens). In a match: player 1, who opens game 1.
    pub black: SeatKind,
    /// Who plays white, or with a swap opening the second seat. In a
    /// match: player 2, who opens game 2.
    pub white: SeatKind,
    /// Limits of each computer move.
    pub limits: Limits,
    /// Seed of the computer players (black gets `seed`, white `seed + 1`).
    pub seed: u64,
    /// Pause between two computer moves when both sides are computers, so
    /// a person can follow the game.
    pub computer_delay: Duration,
    /// A match: first to this many wins (colours alternate game by game);
    /// `None` for single games.
    pub first_to: Option<u32>,
}

impl SessionConfig {
    /// A configuration with these rules and seats, a second per computer
    /// move, no delay, seed 1 and no match.
    #[must_use]
    pub fn new(rules: Rules, black: SeatKind, white: SeatKind) -> SessionConfig {
        SessionConfig {
            rules,
            opening: Opening::Free,
            black,
            white,
            limits: Limits::time(Duration::from_secs(1)),
            seed: 1,
            computer_delay: Duration::ZERO,
            first_to: None,
        }
    }
}

/// Something that happened while the session was polled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionEvent {
    /// A computer played a move.
    ComputerMoved {
        /// Its seat.
        seat: Seat,
        /// Its colour.
        color: Color,
        /// The move.
        pos: Pos,
        /// Its last search report, for players that search.
        info: Option<SearchInfo>,
        /// How the game ended, if the move ended it.
        ending: Option<Ending>,
    },
    /// A computer offered a 5th move (renju openings).
    ComputerOffered {
        /// Its seat.
        seat: Seat,
        /// The point offered.
        pos: Pos,
    },
    /// A computer made a swap decision.
    ComputerChose {
        /// Its seat.
        seat: Seat,
        /// What it chose.
        choice: Choice,
    },
    /// A computer could not move (an external engine crashed, answered an
    /// illegal move…). The session pauses.
    EngineFailed {
        /// Its colour.
        color: Color,
        /// What went wrong.
        error: String,
    },
    /// The next game of the match started by itself (two computers).
    NextGame,
}

/// A request to an engine thread.
enum Request {
    /// Think about `game` and answer with the job `id`.
    Think {
        id: u64,
        game: Box<Game>,
        limits: Limits,
        stop: StopFlag,
    },
    /// Act at a step of a renju opening at `table`, answering with the
    /// job `id`.
    Opening {
        id: u64,
        table: Box<Table>,
        limits: Limits,
        stop: StopFlag,
    },
    /// A new game starts: forget the old one.
    NewGame,
}

/// An answer from an engine thread.
enum Reply {
    /// A search report of job `id`.
    Progress { id: u64, info: SearchInfo },
    /// The end of job `id`.
    Done {
        id: u64,
        result: Result<Decision, EngineError>,
    },
    /// The end of an opening job `id`.
    Opening {
        id: u64,
        result: Result<OpeningAction, EngineError>,
    },
}

/// A computer player living on its own thread.
struct Worker {
    requests: Option<Sender<Request>>,
    handle: Option<JoinHandle<()>>,
}

impl Worker {
    fn spawn(mut player: Box<dyn Player>, replies: Sender<Reply>) -> Result<Worker, TuiError> {
        let (tx, rx) = mpsc::channel::<Request>();
        let handle = std::thread::Builder::new()
            .name(format!("caro-engine-{}", player.name()))
            .spawn(move || {
                while let Ok(request) = rx.recv() {
                    match request {
                        Request::NewGame => player.new_game(),
                        Request::Think {
                            id,
                            game,
                            limits,
                            stop,
                        } => {
                            let progress_tx = replies.clone();
                            let mut progress = |info: &SearchInfo| {
                                let _ = progress_tx.send(Reply::Progress {
                                    id,
                                    info: info.clone(),
                                });
                            };
                            let mut ctx = Context::new(limits, stop, &mut progress);
                            let result = player.choose(&game, &mut ctx);
                            if replies.send(Reply::Done { id, result }).is_err() {
                                break;
                            }
                        }
                        Request::Opening {
                            id,
                            table,
                            limits,
                            stop,
                        } => {
                            let result = opening_action(
                                &table,
                                player.as_mut(),
                                per_eval_limits(limits),
                                &stop,
                            );
                            if replies.send(Reply::Opening { id, result }).is_err() {
                                break;
                            }
                        }
                    }
                }
            })
            .map_err(|e| TuiError::Engine(format!("cannot start an engine thread: {e}")))?;
        Ok(Worker {
            requests: Some(tx),
            handle: Some(handle),
        })
    }

    fn send(&self, request: Request) -> bool {
        self.requests
            .as_ref()
            .is_some_and(|tx| tx.send(request).is_ok())
    }

    /// Closes the request channel and waits for the thread to end (the
    /// caller has stopped any search first).
    fn shut_down(&mut self) {
        self.requests = None;
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

/// One player of the session: `--black` (player 1) or `--white` (player
/// 2). Without a match player 1 sits in the first seat; in a match the
/// players take turns to open.
struct Chair {
    kind: SeatKind,
    worker: Option<Worker>,
}

/// What a search is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// A stone to place.
    Move,
    /// A swap decision, taken from the search's score.
    Choose,
    /// A step of a renju opening, taken by the engine's opening player.
    Opening,
}

/// The search running now.
struct Job {
    id: u64,
    seat: Seat,
    color: Color,
    purpose: Purpose,
    stop: StopFlag,
}

/// Whether a score (from the side to move's point of view) is at least
/// even.
fn at_least_even(score: Score) -> bool {
    match score {
        Score::Eval(v) => v >= 0,
        Score::WinIn(_) | Score::Win => true,
        Score::LossIn(_) => false,
    }
}

/// A game in progress with its seats and engines. See the
/// [module documentation](self).
pub struct Session {
    rules: Rules,
    limits: Limits,
    computer_delay: Duration,
    table: Table,
    /// The match, when one is played.
    series: Option<Series>,
    /// The player (0 or 1) in the first seat of this game.
    opener: usize,
    /// Whether this game's result is in the match already.
    recorded: bool,
    cursor: Pos,
    chairs: [Chair; 2],
    replies: Receiver<Reply>,
    job: Option<Job>,
    next_id: u64,
    info: Option<(Color, SearchInfo)>,
    paused: bool,
    not_before: Option<Instant>,
    notice: Option<String>,
}

impl Session {
    /// Starts a session: builds the computer players, each on its own
    /// thread.
    ///
    /// # Errors
    /// [`TuiError::Engine`] when a computer player cannot be built (an
    /// external engine that does not start) or the rules, opening or match
    /// do not make a game.
    pub fn new(config: SessionConfig) -> Result<Session, TuiError> {
        let sitters = [config.black.sitter(), config.white.sitter()];
        let series = match config.first_to {
            Some(n) => Some(
                Series::new(n, sitters.clone())
                    .map_err(|e| TuiError::Engine(format!("bad match: {e}")))?,
            ),
            None => None,
        };
        let table = Table::new(config.rules, Color::Black, config.opening, sitters)
            .map_err(|e| TuiError::Engine(e.to_string()))?;
        let (reply_tx, replies) = mpsc::channel();
        let make_chair = |kind: SeatKind, seed: u64| -> Result<Chair, TuiError> {
            let worker = match &kind {
                SeatKind::Human => None,
                SeatKind::Computer(source) => {
                    let player = source
                        .build_player(seed)
                        .map_err(|e| TuiError::Engine(format!("{}: {e}", source.name())))?;
                    Some(Worker::spawn(player, reply_tx.clone())?)
                }
            };
            Ok(Chair { kind, worker })
        };
        let first = make_chair(config.black, config.seed)?;
        let second = make_chair(config.white, config.seed.wrapping_add(1))?;
        Ok(Session {
            rules: config.rules,
            limits: config.limits,
            computer_delay: config.computer_delay,
            cursor: config.rules.size.center(),
            table,
            series,
            opener: 0,
            recorded: false,
            chairs: [first, second],
            replies,
            job: None,
            next_id: 0,
            info: None,
            paused: false,
            not_before: None,
            notice: None,
        })
    }

    /// The game.
    #[must_use]
    pub fn game(&self) -> &Game {
        self.table.game()
    }

    /// The table: the game with its seats, turn and ending.
    #[must_use]
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The rules of the game.
    #[must_use]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Where the opening has got to.
    #[must_use]
    pub fn opening(&self) -> &OpeningState {
        self.table.opening()
    }

    /// The point under the cursor.
    #[must_use]
    pub fn cursor(&self) -> Pos {
        self.cursor
    }

    /// Moves the cursor by `dx` columns and `dy` rows (down is positive),
    /// stopping at the edges.
    pub fn move_cursor(&mut self, dx: i32, dy: i32) {
        let size = self.rules.size;
        let x = (i32::from(self.cursor.x) + dx).clamp(0, i32::from(size.width) - 1);
        let y = (i32::from(self.cursor.y) + dy).clamp(0, i32::from(size.height) - 1);
        self.cursor = Pos::new(x as u8, y as u8);
    }

    /// Puts the cursor on `pos` if it is on the board.
    pub fn set_cursor(&mut self, pos: Pos) {
        if self.rules.size.contains(pos) {
            self.cursor = pos;
        }
    }

    /// The player (0 = `--black`, 1 = `--white`) sitting in `seat` in this
    /// game.
    #[must_use]
    pub fn player_index(&self, seat: Seat) -> usize {
        match seat {
            Seat::First => self.opener,
            Seat::Second => 1 - self.opener,
        }
    }

    /// Who sits in `seat`.
    #[must_use]
    pub fn player(&self, seat: Seat) -> &SeatKind {
        &self.chairs[self.player_index(seat)].kind
    }

    /// The seat that plays `color`: once a swap opening has decided, the
    /// seat that took it; before, the first seat for black.
    #[must_use]
    pub fn seat_of(&self, color: Color) -> Seat {
        self.table.seat_of(color)
    }

    /// Who plays `color` (see [`Session::seat_of`]).
    #[must_use]
    pub fn seat(&self, color: Color) -> &SeatKind {
        self.player(self.seat_of(color))
    }

    /// Whether a person plays `color`.
    #[must_use]
    pub fn is_human(&self, color: Color) -> bool {
        self.table.is_human(color)
    }

    /// Whether a person sits in `seat`.
    #[must_use]
    pub fn is_human_seat(&self, seat: Seat) -> bool {
        self.table.is_human_seat(seat)
    }

    /// Whether a person plays either side.
    #[must_use]
    pub fn has_human(&self) -> bool {
        self.table.has_human()
    }

    /// Who must do what now.
    #[must_use]
    pub fn turn(&self) -> Turn {
        self.table.turn()
    }

    /// How the game ended, if it has.
    #[must_use]
    pub fn ending(&self) -> Option<Ending> {
        self.table.ending()
    }

    /// The sentence saying how the game ended, if it has.
    #[must_use]
    pub fn ending_sentence(&self) -> Option<String> {
        self.table.ending_sentence()
    }

    /// The 5th moves black offered in a renju opening.
    #[must_use]
    pub fn offers(&self) -> &[Pos] {
        self.table.offers()
    }

    /// Whether a person must act now (move, choose, offer or pick).
    #[must_use]
    pub fn human_to_move(&self) -> bool {
        self.table.person_to_act()
    }

    /// The match, when one is played.
    #[must_use]
    pub fn series(&self) -> Option<&Series> {
        self.series.as_ref()
    }

    /// `player 1 (human)`: a player of the match by index.
    #[must_use]
    pub fn player_label(&self, player: usize) -> String {
        format!(
            "player {} ({})",
            player + 1,
            self.chairs[player].kind.name()
        )
    }

    /// The match score in words: `match, first to 2: player 1 (human) 1,
    /// player 2 (caro:5) 0`, with the draws when there are some and
    /// `(game 2)` while a game is under way; `None` without a match.
    #[must_use]
    pub fn match_text(&self) -> Option<String> {
        let series = self.series.as_ref()?;
        let [a, b] = series.score();
        let mut text = format!(
            "match, first to {}: {} {a}, {} {b}",
            series.first_to(),
            self.player_label(0),
            self.player_label(1)
        );
        if series.draws() > 0 {
            text.push_str(&format!(", {} drawn", series.draws()));
        }
        if !series.is_over() && !self.recorded {
            text.push_str(&format!(" (game {})", series.games_played() + 1));
        }
        Some(text)
    }

    /// Once the match is over, its result in words: `match over: player 1
    /// (human) wins 2-1` or `match over: drawn 1-1`.
    #[must_use]
    pub fn match_result(&self) -> Option<String> {
        let series = self.series.as_ref().filter(|s| s.is_over())?;
        let [a, b] = series.score();
        Some(match series.winner() {
            Some(w) => format!(
                "match over: {} wins {}-{}",
                self.player_label(w),
                a.max(b),
                a.min(b)
            ),
            None => format!("match over: drawn {a}-{b}"),
        })
    }

    /// Whether a match is played and it is over.
    #[must_use]
    pub fn match_over(&self) -> bool {
        self.series.as_ref().is_some_and(Series::is_over)
    }

    /// Whether computer moves are paused.
    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Whether a computer is thinking now, and for which colour's stone.
    #[must_use]
    pub fn thinking(&self) -> Option<Color> {
        self.job.as_ref().map(|j| j.color)
    }

    /// The latest search report (of the search running now, or of the
    /// last computer move) and whose it is.
    #[must_use]
    pub fn info(&self) -> Option<&(Color, SearchInfo)> {
        self.info.as_ref()
    }

    /// The last notice for the person: a refused move, what undo did…
    #[must_use]
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// Sets the notice shown to the person.
    pub fn set_notice(&mut self, text: impl Into<String>) {
        self.notice = Some(text.into());
    }

    /// Clears the notice.
    pub fn clear_notice(&mut self) {
        self.notice = None;
    }

    /// Records a finished game in the match, once.
    fn settle(&mut self) {
        if self.recorded || !self.table.is_over() {
            return;
        }
        if let Some(series) = &mut self.series {
            if series.record(&self.table).is_ok() {
                self.recorded = true;
            }
        }
    }

    /// Plays `pos` for the person to move (an opening stone or a move).
    /// Returns how the game ended, if the move ended it.
    ///
    /// # Errors
    /// [`TableError`]: not the person's turn, a swap decision due, the
    /// rules refuse the move, the game is over; the game is unchanged.
    pub fn play(&mut self, pos: Pos) -> Result<Option<Ending>, PlayError> {
        let ending = self.table.play(Actor::Person, pos)?;
        self.cursor = pos;
        self.notice = None;
        self.settle();
        Ok(ending)
    }

    /// Makes the swap decision due now for the person whose turn it is.
    ///
    /// # Errors
    /// [`TableError`]: no decision due, a computer decides now, `choice` is
    /// not offered.
    pub fn choose(&mut self, choice: Choice) -> Result<(), PlayError> {
        let seat = self.turn().seat().unwrap_or(Seat::Second);
        self.table.choose(Actor::Person, choice)?;
        self.notice = Some(format!("the {seat} player chose {choice}"));
        Ok(())
    }

    /// Stops the search running now, if any, and forgets its answer.
    fn cancel(&mut self) {
        if let Some(job) = self.job.take() {
            job.stop.stop();
            self.info = None;
        }
    }

    /// The notice for an undo or a redo the table refused: a game the
    /// match has counted (it is over) says how to go on in the match.
    fn refused_step(&mut self, e: TableError) {
        self.notice = Some(match e {
            _ if self.recorded && self.match_over() => {
                "the match is over: n starts a new match".to_string()
            }
            _ if self.recorded => {
                "this game counts in the match: n starts the next game".to_string()
            }
            TableError::GameOver => {
                "the game is over and its result stays: n starts a new game".to_string()
            }
            other => other.to_string(),
        });
    }

    /// Takes back moves ([`Table::step_back`]): against a computer, back to
    /// the person's previous turn (the computer's reply goes too); with two
    /// people, one move; with two computers, one move, and the game pauses.
    /// In a swap opening still going on, one opening action (against a
    /// computer, back to the person's previous one); the stones of a
    /// decided opening stay. A finished game is not taken back: its result stays
    /// (`n` starts another). A search running now is stopped. Returns how
    /// many moves were taken back.
    pub fn undo(&mut self) -> usize {
        self.cancel();
        self.not_before = None;
        match self.table.step_back() {
            Ok(step) => {
                self.paused |= step.pause;
                self.after_history_change(step.moves, "took back");
                step.moves
            }
            Err(e) => {
                self.refused_step(e);
                0
            }
        }
    }

    /// Replays moves taken back ([`Table::step_forward`]): up to the
    /// person's next turn (or one move with two people or two computers;
    /// with two computers the game pauses). A search running now is
    /// stopped. Returns how many moves were replayed.
    pub fn redo(&mut self) -> usize {
        self.cancel();
        self.not_before = None;
        match self.table.step_forward() {
            Ok(step) => {
                self.paused |= step.pause;
                self.after_history_change(step.moves, "replayed");
                self.settle();
                step.moves
            }
            Err(e) => {
                self.refused_step(e);
                0
            }
        }
    }

    fn after_history_change(&mut self, n: usize, verb: &str) {
        if let Some(last) = self.game().last_move() {
            self.cursor = last;
        }
        let plural = if n == 1 { "move" } else { "moves" };
        self.notice = Some(format!("{verb} {n} {plural}"));
    }

    /// The person at the board resigns: the one to move, or the only person
    /// playing. A search running now is stopped.
    ///
    /// # Errors
    /// [`TableError::GameOver`] when the game has ended,
    /// [`TableError::NobodyToResign`] when no person plays.
    pub fn resign(&mut self) -> Result<Ending, PlayError> {
        let seat = self.table.resigner(None)?;
        self.cancel();
        self.not_before = None;
        let ending = self.table.resign(Some(seat))?;
        self.notice = Some(format!("{} resigned", self.table.color_of(seat)));
        self.settle();
        Ok(ending)
    }

    /// Starts a new game with the same seats and opening (a search running
    /// now is stopped). In a match: the next game once this one has ended,
    /// the players taking turns to open; once the match is over, a new
    /// match. Returns whether a game started (in a match, a game under way
    /// must end first).
    pub fn new_game(&mut self) -> bool {
        let mut notice = "new game".to_string();
        if let Some(series) = &mut self.series {
            if !self.recorded && !self.table.game().moves().is_empty() {
                self.notice = Some(
                    "the match game goes on: finish it first (R resigns), or q quits".to_string(),
                );
                return false;
            }
            let mut head = "";
            if series.is_over() {
                if let Ok(fresh) = Series::new(series.first_to(), series.players().clone()) {
                    *series = fresh;
                }
                head = "new match; ";
            }
            self.opener = series.opener().unwrap_or(0);
            notice = format!(
                "{head}game {}: player {} ({}) opens",
                series.games_played() + 1,
                self.opener + 1,
                self.chairs[self.opener].kind.name()
            );
        }
        self.cancel();
        self.not_before = None;
        self.paused = false;
        self.recorded = false;
        let sitters = [
            self.chairs[self.opener].kind.sitter(),
            self.chairs[1 - self.opener].kind.sitter(),
        ];
        let opening = self.table.opening().opening();
        if let Ok(table) = Table::new(self.rules, Color::Black, opening, sitters) {
            self.table = table;
        }
        for chair in &self.chairs {
            if let Some(w) = &chair.worker {
                w.send(Request::NewGame);
            }
        }
        self.cursor = self.rules.size.center();
        self.info = None;
        self.notice = Some(notice);
        true
    }

    /// Pauses or resumes computer moves (a search running now is stopped
    /// and started again on resuming). Returns whether it is now paused.
    pub fn toggle_pause(&mut self) -> bool {
        self.paused = !self.paused;
        if self.paused {
            self.cancel();
        }
        self.not_before = None;
        self.paused
    }

    /// Starts a search if a computer must act and none is running; with two
    /// computers in a match, starts the next game once one has ended.
    fn maybe_start(&mut self, now: Instant) -> Option<SessionEvent> {
        if self.job.is_some() || self.paused {
            return None;
        }
        if self.not_before.is_some_and(|t| now < t) {
            return None;
        }
        let (seat, purpose) = match self.turn() {
            Turn::Over if self.recorded && !self.match_over() && !self.has_human() => {
                self.new_game();
                return Some(SessionEvent::NextGame);
            }
            Turn::Over => return None,
            Turn::Move { seat, .. }
            | Turn::Choose { seat, .. }
            | Turn::Offer { seat, .. }
            | Turn::Pick { seat }
                if self.table.opening().opening().is_renju() && !self.table.colors_decided() =>
            {
                (seat, Purpose::Opening)
            }
            Turn::Move { seat, .. } => (seat, Purpose::Move),
            Turn::Choose { seat, .. } => (seat, Purpose::Choose),
            // Offers and picks belong to the renju openings, handled above.
            Turn::Offer { seat, .. } | Turn::Pick { seat } => (seat, Purpose::Opening),
        };
        let color = self.game().to_move();
        let worker = self.chairs[self.player_index(seat)].worker.as_ref()?;
        self.next_id += 1;
        let id = self.next_id;
        let stop = StopFlag::new();
        let sent = if purpose == Purpose::Opening {
            worker.send(Request::Opening {
                id,
                table: Box::new(self.table.clone()),
                limits: self.limits,
                stop: stop.clone(),
            })
        } else {
            worker.send(Request::Think {
                id,
                game: Box::new(self.game().clone()),
                limits: self.limits,
                stop: stop.clone(),
            })
        };
        if !sent {
            return Some(self.failed(seat, color, "the engine thread has ended".to_string()));
        }
        self.info = None;
        self.job = Some(Job {
            id,
            seat,
            color,
            purpose,
            stop,
        });
        None
    }

    fn failed(&mut self, seat: Seat, color: Color, error: String) -> SessionEvent {
        self.paused = true;
        self.notice = Some(format!(
            "the {seat} player ({}) could not move: {error}; paused (p resumes)",
            self.player(seat).name()
        ));
        SessionEvent::EngineFailed { color, error }
    }

    /// Takes one answer from an engine thread into account.
    fn handle(&mut self, reply: Reply, now: Instant) -> Option<SessionEvent> {
        match reply {
            Reply::Progress { id, info } => {
                let job = self.job.as_ref().filter(|j| j.id == id)?;
                self.info = Some((job.color, info));
                None
            }
            Reply::Opening { id, result } => {
                if self.job.as_ref().is_none_or(|j| j.id != id) {
                    return None;
                }
                let job = self.job.take()?;
                let (seat, color) = (job.seat, job.color);
                let action = match result {
                    Ok(a) => a,
                    Err(e) => return Some(self.failed(seat, color, e.to_string())),
                };
                self.opening_acted(seat, color, action, now)
            }
            Reply::Done { id, result } => {
                if self.job.as_ref().is_none_or(|j| j.id != id) {
                    return None;
                }
                let job = self.job.take()?;
                let (seat, color) = (job.seat, job.color);
                let decision: Decision = match result {
                    Ok(d) => d,
                    Err(e) => return Some(self.failed(seat, color, e.to_string())),
                };
                if let Some(info) = &decision.info {
                    self.info = Some((color, info.clone()));
                }
                if job.purpose == Purpose::Choose {
                    // When the search cannot tell, the side to move is taken.
                    let good = decision
                        .info
                        .as_ref()
                        .is_none_or(|info| at_least_even(info.score));
                    let choice = self.table.computer_choice(good)?;
                    if let Err(e) = self.table.choose(Actor::Seat(seat), choice) {
                        return Some(self.failed(seat, color, e.to_string()));
                    }
                    self.notice = Some(format!(
                        "the {seat} player ({}) chose {choice}",
                        self.player(seat).name()
                    ));
                    return Some(SessionEvent::ComputerChose { seat, choice });
                }
                let ending = match self.table.play(Actor::Seat(seat), decision.best) {
                    Ok(e) => e,
                    Err(e) => return Some(self.failed(seat, color, format!("illegal move: {e}"))),
                };
                self.cursor = decision.best;
                self.settle();
                if !self.has_human() && !self.computer_delay.is_zero() {
                    // A little longer after the end of a match game.
                    let pause = if ending.is_some() {
                        self.computer_delay * 4
                    } else {
                        self.computer_delay
                    };
                    self.not_before = Some(now + pause);
                }
                Some(SessionEvent::ComputerMoved {
                    seat,
                    color,
                    pos: decision.best,
                    info: decision.info,
                    ending,
                })
            }
        }
    }

    /// Carries out a computer's action in a renju opening.
    fn opening_acted(
        &mut self,
        seat: Seat,
        color: Color,
        action: OpeningAction,
        now: Instant,
    ) -> Option<SessionEvent> {
        let name = self.player(seat).name();
        let size = self.rules.size;
        let (pos, what) = match action {
            OpeningAction::Choose(choice) => {
                if let Err(e) = self.table.choose(Actor::Seat(seat), choice) {
                    return Some(self.failed(seat, color, e.to_string()));
                }
                self.notice = Some(format!("the {seat} player ({name}) chose {choice}"));
                return Some(SessionEvent::ComputerChose { seat, choice });
            }
            OpeningAction::Offer(pos) => (pos, "offered the 5th move"),
            OpeningAction::Pick(pos) => (pos, "picked the offered 5th move"),
            OpeningAction::Place(pos) => (pos, "placed"),
        };
        let ending = match self.table.play(Actor::Seat(seat), pos) {
            Ok(e) => e,
            Err(e) => return Some(self.failed(seat, color, format!("illegal move: {e}"))),
        };
        self.notice = Some(format!(
            "the {seat} player ({name}) {what} {}",
            caro_core::notation::format_pos(pos, size)
        ));
        self.cursor = pos;
        self.settle();
        if !self.has_human() && !self.computer_delay.is_zero() {
            self.not_before = Some(now + self.computer_delay);
        }
        if matches!(action, OpeningAction::Offer(_)) {
            return Some(SessionEvent::ComputerOffered { seat, pos });
        }
        Some(SessionEvent::ComputerMoved {
            seat,
            color,
            pos,
            info: None,
            ending,
        })
    }

    /// Lets computers move without blocking: takes the engines' answers in
    /// and starts a search when a computer is to move. Call it often (the
    /// full-screen loop does on every tick).
    pub fn poll(&mut self, now: Instant) -> Vec<SessionEvent> {
        let mut events = Vec::new();
        while let Ok(reply) = self.replies.try_recv() {
            events.extend(self.handle(reply, now));
        }
        events.extend(self.maybe_start(now));
        events
    }

    /// Like [`Session::poll`], but waits up to `timeout` for an engine's
    /// answer (the plain mode's way to let a computer move).
    pub fn wait(&mut self, timeout: Duration) -> Vec<SessionEvent> {
        let mut events: Vec<SessionEvent> = self.maybe_start(Instant::now()).into_iter().collect();
        if self.job.is_none() {
            return events;
        }
        let deadline = Instant::now() + timeout;
        while self.job.is_some() {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.replies.recv_timeout(left) {
                Ok(reply) => events.extend(self.handle(reply, Instant::now())),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
            }
        }
        events
    }

    /// Stops any search and ends the engine threads (the session can no
    /// longer let computers move). Also done on drop.
    pub fn shutdown(&mut self) {
        self.cancel();
        for chair in &mut self.chairs {
            if let Some(w) = &mut chair.worker {
                w.shut_down();
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use caro_core::notation::parse_pos;
    use caro_core::{BoardSize, Rule};
    use caro_engine::PlayerSpec;

    fn computer(name: &str) -> SeatKind {
        let spec: PlayerSpec = name.parse().unwrap();
        SeatKind::Computer(Arc::new(spec))
    }

    fn session(size: u8, black: SeatKind, white: SeatKind) -> Session {
        let size = BoardSize::square(size);
        let rules = Rules::new(size, Rules::default_k(size), Rule::Freestyle).unwrap();
        let mut config = SessionConfig::new(rules, black, white);
        config.limits = Limits::depth(2);
        Session::new(config).unwrap()
    }

    fn at(s: &Session, text: &str) -> Pos {
        parse_pos(text, s.rules().size).unwrap()
    }

    /// Lets the computer to move play (the searches are depth-limited).
    fn computer_moves(s: &mut Session) -> Vec<SessionEvent> {
        let mut events = Vec::new();
        while !s.game().is_over() && !s.human_to_move() && !s.is_paused() {
            events.extend(s.wait(Duration::from_secs(60)));
        }
        events
    }

    #[test]
    fn two_people_undo_and_redo_one_move_at_a_time() {
        let mut s = session(15, SeatKind::Human, SeatKind::Human);
        for m in ["h8", "i9", "h9"] {
            s.play(at(&s, m)).unwrap();
        }
        assert_eq!(s.undo(), 1);
        assert_eq!(s.game().moves().len(), 2);
        assert_eq!(s.notice(), Some("took back 1 move"));
        assert_eq!(s.redo(), 1);
        assert_eq!(s.game().last_move(), Some(at(&s, "h9")));
        assert_eq!(s.redo(), 0);
        assert_eq!(s.notice(), Some("nothing to redo"));
    }

    #[test]
    fn refused_moves_leave_the_game_unchanged() {
        let mut s = session(15, SeatKind::Human, SeatKind::Human);
        s.play(at(&s, "h8")).unwrap();
        let err = s.play(at(&s, "h8")).unwrap_err();
        assert_eq!(err.to_string(), "h8 is already occupied");
        assert_eq!(s.game().moves().len(), 1);
    }

    #[test]
    fn against_a_computer_undo_takes_back_its_reply_too() {
        let mut s = session(3, SeatKind::Human, computer("minimax:4"));
        s.play(at(&s, "b2")).unwrap();
        let events = computer_moves(&mut s);
        assert!(matches!(
            events.as_slice(),
            [SessionEvent::ComputerMoved {
                color: Color::White,
                ..
            }]
        ));
        assert_eq!(s.game().moves().len(), 2);
        assert_eq!(s.undo(), 2);
        assert!(s.game().moves().is_empty());
        assert!(s.human_to_move());
        // Redo replays both moves, back to the person's turn.
        assert_eq!(s.redo(), 2);
        assert_eq!(s.game().moves().len(), 2);
        assert!(s.human_to_move());
    }

    #[test]
    fn a_finished_game_against_a_computer_is_not_reopened_by_undo() {
        // The person plays the first empty cell until tic-tac-toe ends.
        let mut s = session(3, SeatKind::Human, computer("minimax:4"));
        while !s.game().is_over() {
            let pos = s.game().legal_moves()[0];
            s.play(pos).unwrap();
            computer_moves(&mut s);
        }
        let moves = s.game().moves().to_vec();
        let ending = s.ending();
        assert!(ending.is_some());
        assert_eq!(s.undo(), 0);
        assert_eq!(
            s.notice(),
            Some("the game is over and its result stays: n starts a new game")
        );
        assert_eq!(s.game().moves(), moves.as_slice());
        assert_eq!(s.ending(), ending);
        // A resignation stays too.
        let mut s = session(15, SeatKind::Human, SeatKind::Human);
        s.play(at(&s, "h8")).unwrap();
        s.resign().unwrap();
        assert_eq!(s.undo(), 0);
        assert!(s.game().is_over() || s.ending().is_some());
    }

    #[test]
    fn a_computer_to_move_refuses_the_person() {
        let mut s = session(3, computer("minimax:4"), SeatKind::Human);
        let err = s.play(at(&s, "b2")).unwrap_err();
        assert!(matches!(err, PlayError::NotYourTurn { .. }));
        assert!(err.to_string().starts_with("not your turn"), "{err}");
        computer_moves(&mut s);
        assert_eq!(s.game().moves().len(), 1);
        // The computer's first move cannot be taken back alone: the person
        // had no earlier turn.
        assert_eq!(s.undo(), 0);
        assert_eq!(s.game().moves().len(), 1);
    }

    #[test]
    fn undo_while_the_computer_thinks_stops_it() {
        let size = BoardSize::square(15);
        let rules = Rules::new(size, 5, Rule::Freestyle).unwrap();
        let mut config = SessionConfig::new(rules, SeatKind::Human, computer("caro:10"));
        // Far more time than the test takes: only the stop flag ends it.
        config.limits = Limits::time(Duration::from_secs(600));
        let mut s = Session::new(config).unwrap();
        s.play(at(&s, "h8")).unwrap();
        s.poll(Instant::now());
        assert_eq!(s.thinking(), Some(Color::White));
        assert_eq!(s.undo(), 1);
        assert_eq!(s.thinking(), None);
        assert!(s.game().moves().is_empty());
        // The stopped search's answer is ignored.
        s.play(at(&s, "i9")).unwrap();
        s.shutdown();
        assert_eq!(s.game().moves(), &[at(&s, "i9")]);
    }

    #[test]
    fn computers_play_a_whole_game_and_undo_pauses_them() {
        let mut s = session(3, computer("minimax:4"), computer("minimax:4"));
        let events = computer_moves(&mut s);
        assert_eq!(events.len(), 9, "perfect play fills the board");
        assert_eq!(s.ending(), Some(Ending::Draw { full: true }));
        // The finished game stays finished.
        assert_eq!(s.undo(), 0);
        assert_eq!(s.ending(), Some(Ending::Draw { full: true }));
        s.new_game();
        assert!(s.game().moves().is_empty());
        assert_eq!(s.cursor(), at(&s, "b2"));
        // Mid-game, undo takes back one move and pauses the computers.
        s.wait(Duration::from_secs(60));
        assert_eq!(s.game().moves().len(), 1);
        assert_eq!(s.undo(), 1);
        assert!(s.is_paused());
        // Redo pauses them too, as on the web page.
        assert!(!s.toggle_pause());
        assert_eq!(s.redo(), 1);
        assert!(s.is_paused(), "redo pauses the computers");
        assert_eq!(s.undo(), 1);
        assert!(s.poll(Instant::now()).is_empty());
        assert_eq!(s.thinking(), None);
        assert!(!s.toggle_pause());
        computer_moves(&mut s);
        assert!(s.game().is_over());
    }

    #[test]
    fn cursor_stops_at_the_edges() {
        let mut s = session(3, SeatKind::Human, SeatKind::Human);
        s.move_cursor(-5, 1);
        assert_eq!(s.cursor(), Pos::new(0, 2));
        s.set_cursor(Pos::new(7, 7));
        assert_eq!(s.cursor(), Pos::new(0, 2));
    }

    fn swap_session(opening: Opening, first: SeatKind, second: SeatKind) -> Session {
        let size = BoardSize::square(15);
        let rules = Rules::new(size, 5, Rule::Freestyle).unwrap();
        let mut config = SessionConfig::new(rules, first, second);
        config.opening = opening;
        config.limits = Limits::depth(2);
        Session::new(config).unwrap()
    }

    #[test]
    fn swap2_with_people_places_two_more_and_lets_the_first_choose() {
        let mut s = swap_session(Opening::Swap2, SeatKind::Human, SeatKind::Human);
        for m in ["h8", "i9", "j10"] {
            assert!(matches!(
                s.turn(),
                Turn::Move {
                    seat: Seat::First,
                    ..
                }
            ));
            s.play(at(&s, m)).unwrap();
        }
        let err = s.play(at(&s, "a1")).unwrap_err();
        assert!(
            matches!(
                err,
                PlayError::MustChoose {
                    seat: Seat::Second,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(s.undo(), 1, "the opener's last stone goes back");
        assert_eq!(s.game().moves().len(), 2);
        s.play(at(&s, "j10")).unwrap();
        s.choose(Choice::PlaceTwo).unwrap();
        for m in ["k11", "l12"] {
            assert!(matches!(
                s.turn(),
                Turn::Move {
                    seat: Seat::Second,
                    ..
                }
            ));
            s.play(at(&s, m)).unwrap();
        }
        assert!(matches!(
            s.choose(Choice::PlaceTwo),
            Err(PlayError::NotOffered { .. })
        ));
        s.choose(Choice::TakeWhite).unwrap();
        assert_eq!(s.seat_of(Color::White), Seat::First);
        assert_eq!(s.seat_of(Color::Black), Seat::Second);
        assert_eq!(
            s.turn(),
            Turn::Move {
                seat: Seat::First,
                color: Color::White
            }
        );
        assert!(matches!(
            s.choose(Choice::TakeBlack),
            Err(PlayError::NoChoice)
        ));
        s.play(at(&s, "a1")).unwrap();
        assert_eq!(s.undo(), 1);
        // Undo stops at the end of the opening.
        assert_eq!(s.undo(), 0);
        assert_eq!(s.game().moves().len(), 5);
    }

    #[test]
    fn computers_open_and_choose_in_swap_openings() {
        for opening in [Opening::Swap1, Opening::Swap2] {
            let mut s = swap_session(opening, computer("caro:2"), SeatKind::Human);
            computer_moves(&mut s);
            assert_eq!(s.game().moves().len(), 3);
            assert!(matches!(
                s.turn(),
                Turn::Choose {
                    seat: Seat::Second,
                    ..
                }
            ));
            s.choose(Choice::TakeBlack).unwrap();
            // The computer now plays white and moves.
            let events = computer_moves(&mut s);
            assert!(matches!(
                events.as_slice(),
                [SessionEvent::ComputerMoved {
                    seat: Seat::First,
                    color: Color::White,
                    ..
                }]
            ));
            assert!(s.human_to_move());

            let mut s = swap_session(opening, SeatKind::Human, computer("caro:2"));
            for m in ["h8", "i9", "j10"] {
                s.play(at(&s, m)).unwrap();
            }
            let events = computer_moves(&mut s);
            assert!(
                matches!(
                    events.first(),
                    Some(SessionEvent::ComputerChose {
                        seat: Seat::Second,
                        ..
                    })
                ),
                "{events:?}"
            );
            assert!(s.opening().is_done());
            assert!(s.human_to_move() || s.game().moves().len() == 4);
        }
    }

    #[test]
    fn a_match_alternates_openers_and_keeps_the_score() {
        let size = BoardSize::square(3);
        let rules = Rules::new(size, 3, Rule::Freestyle).unwrap();
        let mut config = SessionConfig::new(rules, SeatKind::Human, computer("random"));
        config.first_to = Some(2);
        let mut s = Session::new(config).unwrap();
        assert_eq!(
            s.match_text().as_deref(),
            Some("match, first to 2: player 1 (human) 0, player 2 (random) 0 (game 1)")
        );
        // Game 1: the person is black and resigns.
        assert_eq!(s.player(Seat::First).name(), "human");
        s.resign().unwrap();
        assert_eq!(s.undo(), 0, "a counted game is not taken back");
        assert!(s.notice().unwrap().contains("n starts the next game"));
        assert_eq!(s.series().unwrap().score(), [0, 1]);
        // Game 2: the computer opens and plays black.
        assert!(s.new_game());
        assert_eq!(s.notice(), Some("game 2: player 2 (random) opens"));
        assert_eq!(s.player(Seat::First).name(), "random");
        assert!(!s.is_human(Color::Black));
        computer_moves(&mut s);
        assert_eq!(s.game().moves().len(), 1);
        assert!(!s.new_game(), "a match game under way is finished first");
        s.resign().unwrap();
        assert!(s.match_over());
        assert_eq!(
            s.match_result().as_deref(),
            Some("match over: player 2 (random) wins 2-0")
        );
        assert_eq!(
            s.match_text().as_deref(),
            Some("match, first to 2: player 1 (human) 0, player 2 (random) 2")
        );
        // Then n starts a new match.
        assert!(s.new_game());
        assert_eq!(
            s.notice(),
            Some("new match; game 1: player 1 (human) opens")
        );
        assert_eq!(s.series().unwrap().score(), [0, 0]);
    }

    #[test]
    fn two_computers_play_a_match_to_its_end() {
        let size = BoardSize::square(3);
        let rules = Rules::new(size, 3, Rule::Freestyle).unwrap();
        let mut config = SessionConfig::new(rules, computer("random"), computer("random"));
        config.first_to = Some(2);
        config.limits = Limits::depth(1);
        let mut s = Session::new(config).unwrap();
        let mut next_games = 0;
        while !s.match_over() {
            for event in s.wait(Duration::from_secs(60)) {
                next_games += usize::from(event == SessionEvent::NextGame);
            }
        }
        let series = s.series().unwrap();
        assert_eq!(next_games + 1, series.games_played());
        assert!(series.games_played() <= 3);
        assert!(s.match_result().unwrap().starts_with("match over: "));
    }
}
