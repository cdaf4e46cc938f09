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

use caro_core::opening::Opening;
use caro_core::{Color, Game, MoveError, Outcome, Pos, Rules};
use caro_engine::{
    Context, Decision, EngineError, Limits, Player, PlayerSource, SearchInfo, StopFlag,
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
    /// The opening; only [`Opening::Free`] is played in the terminal.
    pub opening: Opening,
    /// Who plays black (moves first).
    pub black: SeatKind,
    /// Who plays white.
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
}

/// Something that happened while the session was polled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionEvent {
    /// A computer played a move.
    ComputerMoved {
        /// Its colour.
        color: Color,
        /// The move.
        pos: Pos,
        /// Its last search report, for players that search.
        info: Option<SearchInfo>,
        /// The result, if the move ended the game.
        outcome: Option<Outcome>,
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

/// One side of the board.
struct Seat {
    kind: SeatKind,
    worker: Option<Worker>,
}

/// The search running now.
struct Job {
    id: u64,
    color: Color,
    stop: StopFlag,
}

/// A game in progress with its seats and engines. See the
/// [module documentation](self).
pub struct Session {
    rules: Rules,
    limits: Limits,
    computer_delay: Duration,
    game: Game,
    cursor: Pos,
    seats: [Seat; 2],
    replies: Receiver<Reply>,
    job: Option<Job>,
    next_id: u64,
    info: Option<(Color, SearchInfo)>,
    paused: bool,
    not_before: Option<Instant>,
    notice: Option<String>,
}

impl Session {
    /// Starts a session: checks the opening and builds the computer
    /// players, each on its own thread.
    ///
    /// # Errors
    /// [`TuiError::Opening`] for an opening the terminal does not play,
    /// [`TuiError::Engine`] when a computer player cannot be built (an
    /// external engine that does not start).
    pub fn new(config: SessionConfig) -> Result<Session, TuiError> {
        if config.opening != Opening::Free {
            return Err(TuiError::Opening(config.opening));
        }
        let game = Game::new(config.rules, Color::Black)
            .map_err(|e| TuiError::Engine(format!("bad rules: {e}")))?;
        let (reply_tx, replies) = mpsc::channel();
        let make_seat = |kind: SeatKind, seed: u64| -> Result<Seat, TuiError> {
            let worker = match &kind {
                SeatKind::Human => None,
                SeatKind::Computer(source) => {
                    let player = source
                        .build_player(seed)
                        .map_err(|e| TuiError::Engine(format!("{}: {e}", source.name())))?;
                    Some(Worker::spawn(player, reply_tx.clone())?)
                }
            };
            Ok(Seat { kind, worker })
        };
        let black = make_seat(config.black, config.seed)?;
        let white = make_seat(config.white, config.seed.wrapping_add(1))?;
        Ok(Session {
            rules: config.rules,
            limits: config.limits,
            computer_delay: config.computer_delay,
            cursor: config.rules.size.center(),
            game,
            seats: [black, white],
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

    /// Who plays `color`.
    #[must_use]
    pub fn seat(&self, color: Color) -> &SeatKind {
        &self.seats[color.index()].kind
    }

    /// Whether a person plays `color`.
    #[must_use]
    pub fn is_human(&self, color: Color) -> bool {
        matches!(self.seat(color), SeatKind::Human)
    }

    /// Whether a person plays either side.
    #[must_use]
    pub fn has_human(&self) -> bool {
        Color::ALL.into_iter().any(|c| self.is_human(c))
    }

    /// Whether the game goes on and a person is to move.
    #[must_use]
    pub fn human_to_move(&self) -> bool {
        !self.game.is_over() && self.is_human(self.game.to_move())
    }

    /// Whether a computer is thinking now, and which.
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

    /// Plays `pos` for the person to move.
    ///
    /// # Errors
    /// [`PlayError::NotYourTurn`] when a computer is to move,
    /// [`PlayError::Move`] when the rules refuse the move; the game is
    /// unchanged.
    pub fn play(&mut self, pos: Pos) -> Result<Option<Outcome>, PlayError> {
        if self.game.is_over() {
            return Err(PlayError::Move(MoveError::GameOver));
        }
        let color = self.game.to_move();
        if !self.is_human(color) {
            return Err(PlayError::NotYourTurn {
                color,
                player: self.seat(color).name(),
            });
        }
        let outcome = self.game.try_play(pos)?;
        self.cursor = pos;
        self.notice = None;
        Ok(outcome)
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
    /// with two computers, one move, and the game pauses. A search running
    /// now is stopped. Returns how many moves were taken back.
    pub fn undo(&mut self) -> usize {
        self.cancel();
        self.not_before = None;
        if !self.has_human() {
            self.paused = true;
            let n = usize::from(self.game.undo().is_some());
            self.after_history_change(n, "took back");
            return n;
        }
        let mut n = 0;
        while self.game.undo().is_some() {
            n += 1;
            if self.is_human(self.game.to_move()) {
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
            if !self.has_human() || self.game.is_over() || self.is_human(self.game.to_move()) {
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

    /// Starts a new game with the same seats (a search running now is
    /// stopped).
    pub fn new_game(&mut self) {
        self.cancel();
        self.not_before = None;
        self.paused = false;
        if let Ok(game) = Game::new(self.rules, Color::Black) {
            self.game = game;
        }
        for seat in &self.seats {
            if let Some(w) = &seat.worker {
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

    /// Starts a search if a computer is to move and none is running.
    fn maybe_start(&mut self, now: Instant) -> Option<SessionEvent> {
        if self.job.is_some() || self.paused || self.game.is_over() {
            return None;
        }
        if self.not_before.is_some_and(|t| now < t) {
            return None;
        }
        let color = self.game.to_move();
        let worker = self.seats[color.index()].worker.as_ref()?;
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
            self.paused = true;
            return Some(self.failed(color, "the engine thread has ended".to_string()));
        }
        self.info = None;
        self.job = Some(Job { id, color, stop });
        None
    }

    fn failed(&mut self, color: Color, error: String) -> SessionEvent {
        self.paused = true;
        self.notice = Some(format!(
            "{color} ({}) could not move: {error}; paused (p resumes)",
            self.seat(color).name()
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
            Reply::Done { id, result } => {
                if self.job.as_ref().is_none_or(|j| j.id != id) {
                    return None;
                }
                let job = self.job.take()?;
                let color = job.color;
                let decision = match result {
                    Ok(d) => d,
                    Err(e) => return Some(self.failed(color, e.to_string())),
                };
                let outcome = match self.game.try_play(decision.best) {
                    Ok(o) => o,
                    Err(e) => return Some(self.failed(color, format!("illegal move: {e}"))),
                };
                if let Some(info) = &decision.info {
                    self.info = Some((color, info.clone()));
                }
                self.cursor = decision.best;
                if !self.has_human() && !self.computer_delay.is_zero() {
                    self.not_before = Some(now + self.computer_delay);
                }
                Some(SessionEvent::ComputerMoved {
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
        for seat in &mut self.seats {
            if let Some(w) = &mut seat.worker {
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

    #[test]
    fn swap_openings_are_refused_clearly() {
        let size = BoardSize::square(15);
        let rules = Rules::new(size, 5, Rule::Freestyle).unwrap();
        let mut config = SessionConfig::new(rules, SeatKind::Human, SeatKind::Human);
        config.opening = Opening::Swap2;
        let err = Session::new(config).err().unwrap();
        assert!(err.to_string().contains("swap2"), "{err}");
    }
}
