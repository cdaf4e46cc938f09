//! A game in progress, independent of any screen: the game, who sits on
//! each side, the cursor, undo and redo the way a person expects them
//! against a computer, and the engines thinking on background threads.
//!
//! Both front ends (the full-screen board and the plain line mode) drive a
//! [`Session`]: they hand it the human's moves and commands, and call
//! [`Session::poll`] (or [`Session::wait`]) to let computers move.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use caro_core::opening::{Choice, Opening, OpeningError, OpeningState, OpeningStep, Seat};
use caro_core::{Color, Game, MoveError, Outcome, Pos, Rules};
use caro_engine::{
    Context, Decision, EngineError, Limits, Player, PlayerSource, Score, SearchInfo, StopFlag,
};

use crate::TuiError;

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
    /// seat (who opens).
    pub black: SeatKind,
    /// Who plays white, or with a swap opening the second seat.
    pub white: SeatKind,
    /// Limits of each computer move.
    pub limits: Limits,
    /// Seed of the computer players (black gets `seed`, white `seed + 1`).
    pub seed: u64,
    /// Pause between two computer moves when both sides are computers, so
    /// a person can follow the game.
    pub computer_delay: Duration,
}

impl SessionConfig {
    /// A configuration with these rules and seats, a second per computer
    /// move, no delay and seed 1.
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
        }
    }
}

/// Why a human's move was not played. The game is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// The side to move is a computer.
    #[error("not your turn: {color} ({player}) is to move")]
    NotYourTurn {
        /// The side to move.
        color: Color,
        /// Its player's name.
        player: String,
    },
    /// The rules refuse the move (occupied, forbidden, game over…).
    #[error(transparent)]
    Move(#[from] MoveError),
    /// A swap decision is due, not a stone.
    #[error("the {seat} player chooses now: {}", options.iter().map(|c| c.name()).collect::<Vec<_>>().join(", "))]
    MustChoose {
        /// Who chooses.
        seat: Seat,
        /// What may be chosen.
        options: &'static [Choice],
    },
    /// No swap decision is due.
    #[error("there is nothing to choose now")]
    NoChoice,
    /// The opening refuses the decision.
    #[error(transparent)]
    Opening(#[from] OpeningError),
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
        /// The result, if the move ended the game.
        outcome: Option<Outcome>,
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

/// One side of the board: a seat of the opening (the first seat is given
/// by `--black`, the second by `--white`; with the free opening the first
/// seat plays black).
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
}

/// The search running now.
struct Job {
    id: u64,
    seat: Seat,
    color: Color,
    purpose: Purpose,
    stop: StopFlag,
}

/// Who must do what now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// `seat` places a stone of `color`: an opening stone or a move.
    Move {
        /// Who places it.
        seat: Seat,
        /// Its colour.
        color: Color,
    },
    /// `seat` makes a swap decision among `options`.
    Choose {
        /// Who chooses.
        seat: Seat,
        /// What may be chosen.
        options: &'static [Choice],
    },
    /// The game is over.
    Over,
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
    game: Game,
    opening: OpeningState,
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
    /// external engine that does not start).
    pub fn new(config: SessionConfig) -> Result<Session, TuiError> {
        let game = Game::new(config.rules, Color::Black)
            .map_err(|e| TuiError::Engine(format!("bad rules: {e}")))?;
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
            game,
            opening: OpeningState::new(config.opening),
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
        &self.game
    }

    /// The rules of the game.
    #[must_use]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Where the opening has got to.
    #[must_use]
    pub fn opening(&self) -> &OpeningState {
        &self.opening
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

    /// Who sits in `seat`.
    #[must_use]
    pub fn player(&self, seat: Seat) -> &SeatKind {
        &self.chairs[seat.index()].kind
    }

    /// The seat that plays `color`: once a swap opening has decided, the
    /// seat that took it; before, the first seat for black.
    #[must_use]
    pub fn seat_of(&self, color: Color) -> Seat {
        self.opening.seat_of(color).unwrap_or(match color {
            Color::Black => Seat::First,
            Color::White => Seat::Second,
        })
    }

    /// Who plays `color` (see [`Session::seat_of`]).
    #[must_use]
    pub fn seat(&self, color: Color) -> &SeatKind {
        self.player(self.seat_of(color))
    }

    /// Whether a person plays `color`.
    #[must_use]
    pub fn is_human(&self, color: Color) -> bool {
        matches!(self.seat(color), SeatKind::Human)
    }

    /// Whether a person sits in `seat`.
    #[must_use]
    pub fn is_human_seat(&self, seat: Seat) -> bool {
        matches!(self.player(seat), SeatKind::Human)
    }

    /// Whether a person plays either side.
    #[must_use]
    pub fn has_human(&self) -> bool {
        Seat::ALL.into_iter().any(|s| self.is_human_seat(s))
    }

    /// Who must do what now.
    #[must_use]
    pub fn turn(&self) -> Turn {
        if self.game.is_over() {
            return Turn::Over;
        }
        match self.opening.step() {
            OpeningStep::Place { seat, color } => Turn::Move { seat, color },
            OpeningStep::Choose { seat, options } => Turn::Choose { seat, options },
            OpeningStep::Done { .. } => {
                let color = self.game.to_move();
                Turn::Move {
                    seat: self.seat_of(color),
                    color,
                }
            }
        }
    }

    /// Whether the game goes on and a person must act (move or choose).
    #[must_use]
    pub fn human_to_move(&self) -> bool {
        match self.turn() {
            Turn::Move { seat, .. } | Turn::Choose { seat, .. } => self.is_human_seat(seat),
            Turn::Over => false,
        }
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

    /// Whether computer moves are paused.
    #[must_use]
    pub fn is_paused(&self) -> bool {
        self.paused
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

    /// Plays `pos` for the person to move (an opening stone or a move).
    ///
    /// # Errors
    /// [`PlayError::NotYourTurn`] when a computer is to act,
    /// [`PlayError::MustChoose`] when a swap decision is due,
    /// [`PlayError::Move`] when the rules refuse the move; the game is
    /// unchanged.
    pub fn play(&mut self, pos: Pos) -> Result<Option<Outcome>, PlayError> {
        let (seat, color) = match self.turn() {
            Turn::Over => return Err(PlayError::Move(MoveError::GameOver)),
            Turn::Choose { seat, options } if self.is_human_seat(seat) => {
                return Err(PlayError::MustChoose { seat, options })
            }
            Turn::Choose { seat, .. } => {
                return Err(PlayError::NotYourTurn {
                    color: self.game.to_move(),
                    player: self.player(seat).name(),
                })
            }
            Turn::Move { seat, color } => (seat, color),
        };
        if !self.is_human_seat(seat) {
            return Err(PlayError::NotYourTurn {
                color,
                player: self.player(seat).name(),
            });
        }
        let outcome = self.game.try_play(pos)?;
        self.stone_placed(color);
        self.cursor = pos;
        self.notice = None;
        Ok(outcome)
    }

    /// Tells the opening a stone was placed, while it goes on.
    fn stone_placed(&mut self, color: Color) {
        if !self.opening.is_done() {
            if let Err(e) = self.opening.stone_placed(color) {
                self.notice = Some(e.to_string());
            }
        }
    }

    /// Makes the swap decision due now for the person whose turn it is.
    ///
    /// # Errors
    /// [`PlayError::NoChoice`] when no decision is due,
    /// [`PlayError::NotYourTurn`] when a computer decides now,
    /// [`PlayError::Opening`] when `choice` is not offered.
    pub fn choose(&mut self, choice: Choice) -> Result<(), PlayError> {
        let seat = match self.turn() {
            Turn::Choose { seat, .. } => seat,
            _ => return Err(PlayError::NoChoice),
        };
        if !self.is_human_seat(seat) {
            return Err(PlayError::NotYourTurn {
                color: self.game.to_move(),
                player: self.player(seat).name(),
            });
        }
        self.opening.choose(seat, choice)?;
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

    /// Takes back moves: against a computer, back to the person's previous
    /// turn (the computer's reply goes too); with two people, one move;
    /// with two computers, one move, and the game pauses. The stones of a
    /// swap opening are not taken back (`n` starts again). A search running
    /// now is stopped. Returns how many moves were taken back.
    pub fn undo(&mut self) -> usize {
        self.cancel();
        self.not_before = None;
        if !self.opening.is_done() {
            self.notice = Some("the opening cannot be taken back: n starts a new game".to_string());
            return 0;
        }
        let floor = self.opening.stones_placed();
        if !self.has_human() {
            self.paused = true;
            let n = if self.game.moves().len() > floor {
                usize::from(self.game.undo().is_some())
            } else {
                0
            };
            self.after_history_change(n, "took back");
            return n;
        }
        let mut n = 0;
        while self.game.moves().len() > floor && self.game.undo().is_some() {
            n += 1;
            if self.human_to_move() {
                self.after_history_change(n, "took back");
                return n;
            }
        }
        // No earlier turn of a person: put everything back.
        for _ in 0..n {
            self.game.redo();
        }
        self.notice = Some("nothing to undo".to_string());
        0
    }

    /// Replays moves taken back: up to the person's next turn (or one move
    /// with two people or two computers). A search running now is stopped.
    /// Returns how many moves were replayed.
    pub fn redo(&mut self) -> usize {
        self.cancel();
        self.not_before = None;
        let mut n = 0;
        while self.game.redo().is_some() {
            n += 1;
            if !self.has_human() || self.game.is_over() || self.human_to_move() {
                break;
            }
        }
        self.after_history_change(n, "replayed");
        n
    }

    fn after_history_change(&mut self, n: usize, verb: &str) {
        if n == 0 {
            self.notice = Some(format!(
                "nothing to {}",
                if verb == "replayed" { "redo" } else { "undo" }
            ));
            return;
        }
        if let Some(last) = self.game.last_move() {
            self.cursor = last;
        }
        let plural = if n == 1 { "move" } else { "moves" };
        self.notice = Some(format!("{verb} {n} {plural}"));
    }

    /// The person at the board resigns: the one to move, or the only person
    /// playing. A search running now is stopped.
    ///
    /// # Errors
    /// [`PlayError::Move`] with `GameOver` when the game has ended,
    /// [`PlayError::NotYourTurn`] when no person plays.
    pub fn resign(&mut self) -> Result<Outcome, PlayError> {
        if self.game.is_over() {
            return Err(PlayError::Move(MoveError::GameOver));
        }
        let to_move = self.game.to_move();
        let color = if self.is_human(to_move) {
            to_move
        } else if self.is_human(to_move.opponent()) {
            to_move.opponent()
        } else {
            return Err(PlayError::NotYourTurn {
                color: to_move,
                player: self.seat(to_move).name(),
            });
        };
        self.cancel();
        self.not_before = None;
        let outcome = self.game.resign_side(color)?;
        self.notice = Some(format!("{color} resigned"));
        Ok(outcome)
    }

    /// Starts a new game with the same seats and opening (a search running
    /// now is stopped).
    pub fn new_game(&mut self) {
        self.cancel();
        self.not_before = None;
        self.paused = false;
        if let Ok(game) = Game::new(self.rules, Color::Black) {
            self.game = game;
        }
        self.opening = OpeningState::new(self.opening.opening());
        for chair in &self.chairs {
            if let Some(w) = &chair.worker {
                w.send(Request::NewGame);
            }
        }
        self.cursor = self.rules.size.center();
        self.info = None;
        self.notice = Some("new game".to_string());
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

    /// Starts a search if a computer must act and none is running.
    fn maybe_start(&mut self, now: Instant) -> Option<SessionEvent> {
        if self.job.is_some() || self.paused {
            return None;
        }
        if self.not_before.is_some_and(|t| now < t) {
            return None;
        }
        let (seat, purpose) = match self.turn() {
            Turn::Over => return None,
            Turn::Move { seat, .. } => (seat, Purpose::Move),
            Turn::Choose { seat, .. } => (seat, Purpose::Choose),
        };
        let color = self.game.to_move();
        let worker = self.chairs[seat.index()].worker.as_ref()?;
        self.next_id += 1;
        let id = self.next_id;
        let stop = StopFlag::new();
        let sent = worker.send(Request::Think {
            id,
            game: Box::new(self.game.clone()),
            limits: self.limits,
            stop: stop.clone(),
        });
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

    /// A computer's swap decision: the colour the search finds at least
    /// even for, the side to move when it cannot tell.
    fn decide(&self, options: &[Choice], decision: &Decision) -> Choice {
        let to_move = self.game.to_move();
        let good = decision
            .info
            .as_ref()
            .is_none_or(|info| at_least_even(info.score));
        let color = if good { to_move } else { to_move.opponent() };
        let wanted = match color {
            Color::Black => Choice::TakeBlack,
            Color::White => Choice::TakeWhite,
        };
        if options.contains(&wanted) {
            wanted
        } else {
            options.first().copied().unwrap_or(wanted)
        }
    }

    /// Takes one answer from an engine thread into account.
    fn handle(&mut self, reply: Reply, now: Instant) -> Option<SessionEvent> {
        match reply {
            Reply::Progress { id, info } => {
                let job = self.job.as_ref().filter(|j| j.id == id)?;
                self.info = Some((job.color, info));
                None
            }
            Reply::Done { id, result } => {
                if self.job.as_ref().is_none_or(|j| j.id != id) {
                    return None;
                }
                let job = self.job.take()?;
                let (seat, color) = (job.seat, job.color);
                let decision = match result {
                    Ok(d) => d,
                    Err(e) => return Some(self.failed(seat, color, e.to_string())),
                };
                if let Some(info) = &decision.info {
                    self.info = Some((color, info.clone()));
                }
                if job.purpose == Purpose::Choose {
                    let options = match self.opening.step() {
                        OpeningStep::Choose { options, .. } => options,
                        _ => return None,
                    };
                    let choice = self.decide(options, &decision);
                    if let Err(e) = self.opening.choose(seat, choice) {
                        return Some(self.failed(seat, color, e.to_string()));
                    }
                    self.notice = Some(format!(
                        "the {seat} player ({}) chose {choice}",
                        self.player(seat).name()
                    ));
                    return Some(SessionEvent::ComputerChose { seat, choice });
                }
                let outcome = match self.game.try_play(decision.best) {
                    Ok(o) => o,
                    Err(e) => return Some(self.failed(seat, color, format!("illegal move: {e}"))),
                };
                self.stone_placed(color);
                self.cursor = decision.best;
                if !self.has_human() && !self.computer_delay.is_zero() {
                    self.not_before = Some(now + self.computer_delay);
                }
                Some(SessionEvent::ComputerMoved {
                    seat,
                    color,
                    pos: decision.best,
                    info: decision.info,
                    outcome,
                })
            }
        }
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
    fn a_computer_to_move_refuses_the_person() {
        let mut s = session(3, computer("minimax:4"), SeatKind::Human);
        let err = s.play(at(&s, "b2")).unwrap_err();
        assert!(matches!(
            err,
            PlayError::NotYourTurn {
                color: Color::Black,
                ..
            }
        ));
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
        assert_eq!(s.game().outcome(), Some(&Outcome::Draw));
        assert_eq!(s.undo(), 1);
        assert!(s.is_paused());
        assert!(s.poll(Instant::now()).is_empty());
        assert_eq!(s.thinking(), None);
        assert!(!s.toggle_pause());
        computer_moves(&mut s);
        assert!(s.game().is_over());
        s.new_game();
        assert!(s.game().moves().is_empty());
        assert_eq!(s.cursor(), at(&s, "b2"));
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
        assert_eq!(s.undo(), 0, "the opening is not taken back");
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
            Err(PlayError::Opening(_))
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
}
