//! caro as a Gomocup brain: reads the manager's commands, keeps the game,
//! searches with caro's engine and answers moves.
//!
//! [`Brain`] handles one line at a time and writes its answers, so it can
//! be driven synchronously (transcript tests do). [`run`] adds what a real
//! manager needs: a reader thread, so that `STOP`, `YXSTOP` and `END`
//! interrupt a search at once.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use caro_core::notation::format_gomocup;
use caro_core::{BoardSize, Color, Game, GameSetup, Pos, Rule, Rules};
use caro_engine::search::{CaroPlayer, DEFAULT_HASH_MB};
use caro_engine::{Context, Limits, Player, Score, SearchInfo, StopFlag};

use crate::protocol::{parse_line, Command, Line, LineReader, MAX_LINE};

/// Time per turn when the manager sends none.
pub const DEFAULT_TURN_TIME: Duration = Duration::from_secs(5);

/// Largest hash table the brain will allocate, in MiB.
pub const MAX_HASH_MB: usize = 4096;

/// How long before the turn limit the search stops: the answer must also
/// travel through the pipe and the manager's clock started before ours.
#[must_use]
pub fn turn_margin(turn: Duration) -> Duration {
    (turn / 5).min(Duration::from_millis(20) + turn / 20)
}

/// What the manager told the brain with INFO.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Time limit of each move (`None`: not given; zero: as fast as possible).
    pub timeout_turn: Option<Duration>,
    /// Time limit of the whole match (`None` or zero: no limit).
    pub timeout_match: Option<Duration>,
    /// Time left on the match clock (`None`: unlimited).
    pub time_left: Option<Duration>,
    /// Depth limit (Yixin's `max_depth`).
    pub max_depth: Option<u32>,
    /// Node limit (Yixin's `max_node`).
    pub max_nodes: Option<u64>,
    /// The rule for the next game (and the current one).
    pub rule: Rule,
    /// Threads the manager allows (INFO thread_num); `caro` at level 10
    /// searches with that many.
    pub threads: u32,
    /// Hash table size in MiB: the one asked for (INFO hash_size, or half
    /// of INFO max_memory), never over half of max_memory.
    pub hash_mb: usize,
    /// The memory limit (INFO max_memory) in bytes, `None`: no limit.
    pub max_memory: Option<u64>,
    /// The hash size asked for with INFO hash_size, in MiB.
    pub hash_asked_mb: Option<usize>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            timeout_turn: None,
            timeout_match: None,
            time_left: None,
            max_depth: None,
            max_nodes: None,
            rule: Rule::Freestyle,
            threads: 1,
            hash_mb: DEFAULT_HASH_MB,
            max_memory: None,
            hash_asked_mb: None,
        }
    }
}

impl Settings {
    /// The search limits these settings give for one move.
    #[must_use]
    pub fn limits(&self) -> Limits {
        let turn = self.timeout_turn.unwrap_or(DEFAULT_TURN_TIME);
        let (move_time, depth) = if turn.is_zero() {
            // "Play as fast as possible": a shallow search.
            (Duration::from_millis(30), Some(2))
        } else {
            (turn.saturating_sub(turn_margin(turn)), None)
        };
        // time_left counts whenever the manager sends it (an unlimited match
        // sends 2147483647, read as no limit), whatever timeout_match said.
        Limits {
            move_time: Some(move_time),
            time_left: self.time_left,
            increment: None,
            nodes: self.max_nodes,
            depth: match (depth, self.max_depth) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            threads: Some(self.threads as usize),
        }
    }
}

/// Shared between the reader thread and the brain: stop requests and END.
///
/// Lines are numbered from 1 as they are read. A STOP or END that comes
/// right after a line asking for a move (TURN, BEGIN, or the DONE of a
/// BOARD or SWAP2BOARD), with at most INFO lines between, applies to that
/// search: it stops it at once if it runs, or as soon as it starts, and
/// does not touch searches asked for earlier in the queue. So a manager that sends a whole script
/// at once gets every answer, and one that sends STOP or END while the
/// brain thinks is obeyed at once.
#[derive(Debug, Default)]
pub struct Interrupts {
    stop: StopFlag,
    /// The line whose search is running (0: none).
    current: AtomicU64,
    /// The line whose search a STOP is for.
    stop_target: AtomicU64,
    /// The line whose search an END is for.
    end_target: AtomicU64,
}

impl Interrupts {
    /// Called by the reader for a STOP that follows `search_line`.
    pub fn request_stop(&self, search_line: u64) {
        self.stop_target.fetch_max(search_line, Ordering::SeqCst);
        if self.current.load(Ordering::SeqCst) == search_line {
            self.stop.stop();
        }
    }

    /// Called by the reader for an END that follows `search_line`.
    pub fn request_end(&self, search_line: u64) {
        self.end_target.fetch_max(search_line, Ordering::SeqCst);
        self.request_stop(search_line);
    }

    /// Whether END came for the search of line `seq`.
    #[must_use]
    pub fn ended(&self, seq: u64) -> bool {
        seq != 0 && self.end_target.load(Ordering::SeqCst) == seq
    }

    /// Arms the stop flag for a search started by line `seq`.
    fn arm(&self, seq: u64) {
        self.current.store(seq, Ordering::SeqCst);
        self.stop.reset();
        if seq != 0 && self.stop_target.load(Ordering::SeqCst) == seq {
            self.stop.stop();
        }
    }

    /// The search of the current line is over.
    fn disarm(&self) {
        self.current.store(0, Ordering::SeqCst);
    }
}

/// Whether the brain goes on after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// END: exit.
    Exit,
}

/// Which command opened the stone lines being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BoardKind {
    Board,
    YxBoard,
    Swap2,
}

impl BoardKind {
    fn name(self) -> &'static str {
        match self {
            BoardKind::Board => "BOARD",
            BoardKind::YxBoard => "YXBOARD",
            BoardKind::Swap2 => "SWAP2BOARD",
        }
    }
}

/// Stone lines read so far after BOARD, YXBOARD or SWAP2BOARD.
struct Reading {
    kind: BoardKind,
    /// Stones as (x, y, field), passes (`-1,-1`) left out.
    stones: Vec<(i64, i64, u32)>,
    /// The first problem seen, reported at DONE.
    error: Option<String>,
}

/// The brain: the game as the manager sees it, and the engine.
pub struct Brain<W: Write> {
    out: W,
    player: CaroPlayer,
    interrupts: Arc<Interrupts>,
    settings: Settings,
    /// The current game (`None` before START).
    game: Option<Game>,
    /// The brain's colour in it, once known.
    own: Option<Color>,
    reading: Option<Reading>,
    /// Number of the line being handled.
    seq: u64,
    /// END arrived during a search: exit after this line.
    exit: bool,
}

impl<W: Write> Brain<W> {
    /// A brain writing its answers to `out`.
    pub fn new(out: W, interrupts: Arc<Interrupts>) -> Brain<W> {
        Brain {
            out,
            player: CaroPlayer::new(10, 1),
            interrupts,
            settings: Settings::default(),
            game: None,
            own: None,
            reading: None,
            seq: 0,
            exit: false,
        }
    }

    /// The current settings.
    #[must_use]
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The current game, after START.
    #[must_use]
    pub fn game(&self) -> Option<&Game> {
        self.game.as_ref()
    }

    /// The writer the answers go to.
    pub fn output(&mut self) -> &mut W {
        &mut self.out
    }

    fn say(&mut self, line: &str) {
        // A manager that closed its end of the pipe cannot be told anything.
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }

    fn error(&mut self, reason: &str) {
        self.say(&format!("ERROR {reason}"));
    }

    /// Handles one line from the manager (numbered `seq`, from 1).
    pub fn handle_line(&mut self, seq: u64, line: &str) -> Flow {
        self.seq = seq;
        let flow = self.handle(line);
        if self.exit {
            Flow::Exit
        } else {
            flow
        }
    }

    fn handle(&mut self, line: &str) -> Flow {
        let command = match parse_line(line) {
            Ok(Some(c)) => c,
            Ok(None) => return Flow::Continue,
            Err(e) => {
                if let Some(r) = &mut self.reading {
                    if let crate::protocol::LineError::Malformed {
                        command: "BOARD",
                        reason,
                    } = &e
                    {
                        r.error.get_or_insert_with(|| reason.clone());
                        return Flow::Continue;
                    }
                }
                let unknown = matches!(e, crate::protocol::LineError::Unknown(_));
                self.abandon_reading();
                if unknown {
                    self.say(&format!("UNKNOWN {e}"));
                } else {
                    self.error(&e.to_string());
                }
                return Flow::Continue;
            }
        };
        if let Some(reading) = &mut self.reading {
            match command {
                Command::Stone(x, y, field) => {
                    if x == -1 && y == -1 {
                        // A pass (Yixin's way of fixing the side to move).
                    } else {
                        reading.stones.push((x, y, field));
                    }
                    return Flow::Continue;
                }
                Command::Done => {
                    if let Some(r) = self.reading.take() {
                        self.finish_reading(r);
                    }
                    return Flow::Continue;
                }
                Command::Stop => return Flow::Continue,
                _ => self.abandon_reading(),
            }
        }
        self.command(command)
    }

    fn abandon_reading(&mut self) {
        if let Some(r) = self.reading.take() {
            self.error(&format!(
                "{} was not ended by DONE: its stones were discarded",
                r.kind.name()
            ));
        }
    }

    fn command(&mut self, command: Command) -> Flow {
        match command {
            Command::Start(side) => {
                let side = u8::try_from(side).unwrap_or(u8::MAX);
                self.start(side, side);
            }
            Command::RectStart(w, h) => {
                self.start(
                    u8::try_from(w).unwrap_or(u8::MAX),
                    u8::try_from(h).unwrap_or(u8::MAX),
                );
            }
            Command::Restart => match self.game.as_ref().map(|g| g.size()) {
                Some(size) => self.start(size.width, size.height),
                None => self.error("RESTART before START: no board size yet"),
            },
            Command::Begin => self.begin(),
            Command::Turn(x, y) => self.turn(x, y),
            Command::Board | Command::YxBoard | Command::Swap2Board => {
                let kind = match command {
                    Command::Board => BoardKind::Board,
                    Command::YxBoard => BoardKind::YxBoard,
                    _ => BoardKind::Swap2,
                };
                self.reading = Some(Reading {
                    kind,
                    stones: Vec::new(),
                    error: None,
                });
            }
            Command::Stone(x, y, f) => {
                self.error(&format!("stone line {x},{y},{f} outside BOARD … DONE"));
            }
            Command::Done => self.error("DONE without BOARD, YXBOARD or SWAP2BOARD"),
            Command::Info(key, value) => self.info(&key, &value),
            Command::End => return Flow::Exit,
            // Name, version, author and country; no `www`: caro has no
            // home page to give.
            Command::About => self.say(&format!(
                "name=\"caro\", version=\"{}\", author=\"the caro developers\", country=\"Vietnam\"",
                env!("CARGO_PKG_VERSION"),
            )),
            Command::Takeback(x, y) => self.takeback(x, y),
            Command::Play(x, y) => self.play(x, y),
            // Not thinking: nothing to stop.
            Command::Stop => {}
            Command::YxHashClear => self.player.clear_hash(),
            Command::YxShowForbid => self.show_forbid(),
        }
        Flow::Continue
    }

    fn rules_for(&self, size: BoardSize) -> Result<Rules, String> {
        Rules::new(size, Rules::default_k(size), self.settings.rule).map_err(|e| e.to_string())
    }

    fn start(&mut self, width: u8, height: u8) {
        let made = BoardSize::new(width, height)
            .map_err(|e| e.to_string())
            .and_then(|size| self.rules_for(size))
            .and_then(|rules| Game::new(rules, Color::Black).map_err(|e| e.to_string()));
        match made {
            Ok(game) => {
                self.game = Some(game);
                self.own = None;
                self.player.new_game();
                self.say("OK");
            }
            Err(e) => self.error(&format!("unsupported board {width}x{height}: {e}")),
        }
    }

    /// The board point `x,y`, if it is on the board.
    fn point(&self, x: u32, y: u32) -> Result<Pos, String> {
        let game = self.game.as_ref().ok_or("no board: send START first")?;
        let size = game.size();
        if x >= u32::from(size.width) || y >= u32::from(size.height) {
            return Err(format!("{x},{y} is off the {size} board"));
        }
        Ok(Pos::new(x as u8, y as u8))
    }

    fn begin(&mut self) {
        let Some(game) = &self.game else {
            return self.error("BEGIN before START: no board yet");
        };
        if !game.moves().is_empty() || !game.setup_stones().is_empty() {
            return self.error("BEGIN on a board that is not empty");
        }
        self.own = Some(game.to_move());
        self.answer_move();
    }

    fn turn(&mut self, x: u32, y: u32) {
        let pos = match self.point(x, y) {
            Ok(p) => p,
            Err(e) => return self.error(&format!("TURN {x},{y}: {e}")),
        };
        let Some(game) = &mut self.game else {
            return;
        };
        let opponent = game.to_move();
        if self.own == Some(opponent) {
            return self.error(&format!(
                "TURN {x},{y}: it is the brain's move, not the opponent's"
            ));
        }
        if let Err(e) = game.try_play(pos) {
            return self.error(&format!("TURN {x},{y}: {e}"));
        }
        self.own = Some(opponent.opponent());
        if let Some(o) = game.outcome() {
            let o = *o;
            return self.error(&format!("the game is over: {o:?}"));
        }
        self.answer_move();
    }

    fn play(&mut self, x: u32, y: u32) {
        let pos = match self.point(x, y) {
            Ok(p) => p,
            Err(e) => return self.error(&format!("PLAY {x},{y}: {e}")),
        };
        let Some(game) = &mut self.game else {
            return;
        };
        let me = game.to_move();
        if self.own.is_some_and(|c| c != me) {
            return self.error(&format!("PLAY {x},{y}: it is the opponent's move"));
        }
        match game.try_play(pos) {
            Ok(_) => {
                self.own = Some(me);
                self.say(&format_gomocup(pos));
            }
            Err(e) => self.error(&format!("PLAY {x},{y}: {e}")),
        }
    }

    fn takeback(&mut self, x: u32, y: u32) {
        let pos = match self.point(x, y) {
            Ok(p) => p,
            Err(e) => return self.error(&format!("TAKEBACK {x},{y}: {e}")),
        };
        let Some(game) = &mut self.game else {
            return;
        };
        if game.last_move() == Some(pos) {
            game.undo();
            self.say("OK");
        } else {
            self.error(&format!("TAKEBACK {x},{y}: that is not the last move"));
        }
    }

    fn info(&mut self, key: &str, value: &str) {
        let millis = |v: &str| -> Result<Duration, String> {
            let t = v.trim();
            let n: i64 = t
                .parse()
                .map_err(|_| format!("INFO {key}: expected milliseconds, got {t:?}"))?;
            Ok(Duration::from_millis(n.max(0) as u64))
        };
        let count = |v: &str| -> Result<u64, String> {
            v.trim()
                .parse::<u64>()
                .map_err(|_| format!("INFO {key}: expected a number, got {:?}", v.trim()))
        };
        let result: Result<(), String> = (|| {
            match key {
                "timeout_turn" => self.settings.timeout_turn = Some(millis(value)?),
                "timeout_match" => self.settings.timeout_match = Some(millis(value)?),
                "time_left" => {
                    let left = millis(value)?;
                    self.settings.time_left =
                        (left < Duration::from_millis(i32::MAX as u64)).then_some(left);
                }
                "max_memory" => {
                    let bytes = count(value)?;
                    self.settings.max_memory = (bytes > 0).then_some(bytes);
                    self.fit_hash();
                }
                "hash_size" => {
                    // Yixin's hash size, in KiB.
                    let kib = count(value)?;
                    if kib > 0 {
                        self.settings.hash_asked_mb =
                            Some(((kib / 1024) as usize).clamp(1, MAX_HASH_MB));
                        self.fit_hash();
                    }
                }
                "rule" => {
                    let code = count(value)?;
                    let rule = u32::try_from(code)
                        .ok()
                        .and_then(Rule::from_gomocup_code)
                        .ok_or_else(|| {
                            format!(
                                "INFO rule {code}: not a rule caro plays (0 freestyle, 1 standard, \
                                 4 renju, 8 caro, 9 caro standard; +2 continuous is ignored)"
                            )
                        })?;
                    self.set_rule(rule)?;
                }
                "max_depth" => {
                    let d = count(value)?;
                    self.settings.max_depth = (d > 0).then(|| d.min(u64::from(u32::MAX)) as u32);
                }
                "max_node" => {
                    let n = count(value)?;
                    self.settings.max_nodes = (n > 0).then_some(n);
                }
                "thread_num" => {
                    self.settings.threads = count(value)?.clamp(1, 1024) as u32;
                }
                "game_type" => {
                    count(value)?;
                }
                // folder, evaluate and keys of other managers: nothing to do.
                _ => {}
            }
            Ok(())
        })();
        if let Err(e) = result {
            self.error(&e);
        }
    }

    /// Sizes the hash table from the last hash_size and max_memory,
    /// whichever came first: the size asked for (by default half of the
    /// memory limit, else [`DEFAULT_HASH_MB`]), never over half of the limit.
    fn fit_hash(&mut self) {
        // Half of the allowance for the hash table.
        let cap = self
            .settings
            .max_memory
            .map(|bytes| ((bytes / 2 / (1 << 20)) as usize).clamp(1, MAX_HASH_MB));
        let asked = self
            .settings
            .hash_asked_mb
            .or(cap)
            .unwrap_or(DEFAULT_HASH_MB);
        self.set_hash(cap.map_or(asked, |cap| asked.min(cap)));
    }

    fn set_hash(&mut self, mb: usize) {
        if mb != self.settings.hash_mb {
            self.settings.hash_mb = mb;
            self.player.set_hash_mb(mb);
        }
    }

    fn set_rule(&mut self, rule: Rule) -> Result<(), String> {
        if let Some(game) = &self.game {
            if game.rules().rule != rule {
                let mut setup = game.to_setup();
                setup.rule = rule;
                let rebuilt = Game::from_setup(&setup)
                    .map_err(|e| format!("INFO rule: the position does not fit {rule}: {e}"))?;
                self.game = Some(rebuilt);
            }
        }
        self.settings.rule = rule;
        Ok(())
    }

    /// The position given by stone lines: the game and the brain's colour.
    fn position_from(
        &self,
        stones: &[(i64, i64, u32)],
        kind: BoardKind,
    ) -> Result<(Game, Color), String> {
        let game = self
            .game
            .as_ref()
            .ok_or_else(|| format!("{} before START: no board yet", kind.name()))?;
        let rules = *game.rules();
        let size = rules.size;
        let mut points = Vec::with_capacity(stones.len());
        for &(x, y, field) in stones {
            if x < 0 || y < 0 || x >= i64::from(size.width) || y >= i64::from(size.height) {
                return Err(format!("stone {x},{y} is off the {size} board"));
            }
            let own = match field {
                1 => true,
                2 => false,
                3 => {
                    return Err(format!(
                        "stone {x},{y},3: continuous games (field 3) are not supported"
                    ))
                }
                f => {
                    return Err(format!(
                        "stone {x},{y},{f}: field must be 1 (own) or 2 (opponent)"
                    ))
                }
            };
            points.push((Pos::new(x as u8, y as u8), own));
        }
        let own_n = points.iter().filter(|p| p.1).count();
        let opp_n = points.len() - own_n;
        // The side to move is the brain for BOARD; YXBOARD may also leave
        // the move to the opponent.
        let own_color = if own_n == opp_n {
            Color::Black
        } else if opp_n == own_n + 1 {
            Color::White
        } else if kind == BoardKind::YxBoard && own_n == opp_n + 1 {
            Color::Black
        } else {
            return Err(format!(
                "{own_n} own and {opp_n} opponent stones: not a position with the brain to move"
            ));
        };
        let color_of = |own: bool| if own { own_color } else { own_color.opponent() };
        // In move order (as renju requires), the game keeps its history;
        // in any other order the stones are placed as they are.
        let alternating = points.iter().enumerate().all(|(i, &(_, own))| {
            color_of(own)
                == if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                }
        });
        let moves: Vec<Pos> = points.iter().map(|p| p.0).collect();
        let game = if alternating {
            Game::from_moves(rules, Color::Black, &moves).map_err(|e| e.to_string())?
        } else {
            let mut setup = GameSetup::new(size, rules.k, rules.rule);
            setup.stones = points.iter().map(|&(p, own)| (p, color_of(own))).collect();
            Game::from_setup(&setup).map_err(|e| e.to_string())?
        };
        Ok((game, own_color))
    }

    fn finish_reading(&mut self, reading: Reading) {
        if let Some(e) = reading.error {
            return self.error(&format!(
                "{}: {e}; the position is unchanged",
                reading.kind.name()
            ));
        }
        if reading.kind == BoardKind::Swap2 {
            return self.swap2(&reading.stones);
        }
        match self.position_from(&reading.stones, reading.kind) {
            Ok((game, own)) => {
                let over = game.outcome().copied();
                self.game = Some(game);
                self.own = Some(own);
                if reading.kind == BoardKind::Board {
                    match over {
                        Some(o) => self.error(&format!("the game is over: {o:?}")),
                        None => self.answer_move(),
                    }
                }
            }
            Err(e) => self.error(&format!(
                "{}: {e}; the position is unchanged",
                reading.kind.name()
            )),
        }
    }

    fn show_forbid(&mut self) {
        let mut line = String::from("FORBID ");
        if let Some(game) = &self.game {
            for (p, _) in game.forbidden_points() {
                line.push_str(&format!("{:02}{:02}", p.x, p.y));
            }
        }
        line.push('.');
        self.say(&line);
    }

    /// Searches the current game under `limits`, writing a MESSAGE line
    /// per completed depth. `None` when END arrived meanwhile or there is
    /// no move.
    fn search(&mut self, game: &Game, limits: Limits) -> Option<(Pos, Option<SearchInfo>)> {
        self.interrupts.arm(self.seq);
        let out = &mut self.out;
        let mut progress = |info: &SearchInfo| {
            let pv: Vec<String> = info.pv.iter().map(|&p| format_gomocup(p)).collect();
            let _ = writeln!(
                out,
                "MESSAGE depth {}-{} score {} nodes {} nps {} time {} pv {}",
                info.depth,
                info.seldepth,
                describe_score(info.score),
                info.nodes,
                info.nps(),
                info.elapsed.as_millis(),
                pv.join(" ")
            );
            let _ = out.flush();
        };
        let mut ctx = Context::new(limits, self.interrupts.stop.clone(), &mut progress);
        let decision = self.player.choose(game, &mut ctx);
        self.interrupts.disarm();
        if self.interrupts.ended(self.seq) {
            self.exit = true;
            return None;
        }
        match decision {
            Ok(d) => Some((d.best, d.info)),
            Err(e) => {
                self.error(&e.to_string());
                None
            }
        }
    }

    /// Thinks about the current game and answers the brain's move.
    fn answer_move(&mut self) {
        let Some(game) = self.game.clone() else {
            return self.error("no board: send START first");
        };
        let limits = self.settings.limits();
        let Some((best, _)) = self.search(&game, limits) else {
            return;
        };
        if let Some(g) = &mut self.game {
            match g.try_play(best) {
                Ok(_) => self.say(&format_gomocup(best)),
                Err(e) => self.error(&format!("internal error: the engine chose {best:?}: {e}")),
            }
        }
    }

    /// The swap2 opening steps (the brain is asked between START and
    /// BOARD; the game itself is left as it is).
    fn swap2(&mut self, stones: &[(i64, i64, u32)]) {
        let Some(game) = &self.game else {
            return self.error("SWAP2BOARD before START: no board yet");
        };
        let rules = *game.rules();
        let size = rules.size;
        let mut moves = Vec::new();
        for &(x, y, _) in stones {
            if x < 0 || y < 0 || x >= i64::from(size.width) || y >= i64::from(size.height) {
                return self.error(&format!(
                    "SWAP2BOARD: stone {x},{y} is off the {size} board"
                ));
            }
            moves.push(Pos::new(x as u8, y as u8));
        }
        let limits = self.settings.limits();
        match moves.len() {
            0 => self.swap2_open(rules, limits),
            3 | 5 => {
                let position = match Game::from_moves(rules, Color::Black, &moves) {
                    Ok(g) => g,
                    Err(e) => return self.error(&format!("SWAP2BOARD: {e}")),
                };
                // White to move: stay white if white is no worse, else swap.
                let Some((best, info)) = self.search(&position, limits) else {
                    return;
                };
                let white_score = info.map_or(0, |i| score_value(i.score));
                if white_score < 0 {
                    self.say("SWAP");
                } else {
                    self.say(&format_gomocup(best));
                }
            }
            n => self.error(&format!("SWAP2BOARD with {n} stones: expected 0, 3 or 5")),
        }
    }

    /// Places swap2's first three stones: of a few shapes around the
    /// centre, the one the engine finds closest to even.
    fn swap2_open(&mut self, rules: Rules, limits: Limits) {
        let size = rules.size;
        let c = size.center();
        let shapes: [[(i32, i32); 3]; 5] = [
            [(0, 0), (1, 0), (2, 2)],
            [(0, 0), (1, 1), (-1, 2)],
            [(0, 0), (1, 0), (-1, 2)],
            [(0, 0), (1, 1), (2, -1)],
            [(0, 0), (2, 0), (1, 2)],
        ];
        let each = Limits {
            move_time: limits.move_time.map(|t| t / shapes.len() as u32),
            time_left: limits.time_left.map(|t| t / shapes.len() as u32),
            increment: None,
            ..limits
        };
        let mut best: Option<(i64, Vec<Pos>)> = None;
        for shape in shapes {
            let moves: Option<Vec<Pos>> = shape
                .iter()
                .map(|&(dx, dy)| {
                    let x = i32::from(c.x) + dx;
                    let y = i32::from(c.y) + dy;
                    let p = Pos::new(u8::try_from(x).ok()?, u8::try_from(y).ok()?);
                    size.contains(p).then_some(p)
                })
                .collect();
            let Some(moves) = moves else { continue };
            let Ok(position) = Game::from_moves(rules, Color::Black, &moves) else {
                continue;
            };
            if position.is_over() {
                continue;
            }
            let Some((_, info)) = self.search(&position, each) else {
                return;
            };
            let balance = info.map_or(0, |i| score_value(i.score)).abs();
            if best.as_ref().is_none_or(|(b, _)| balance < *b) {
                best = Some((balance, moves));
            }
        }
        match best {
            Some((_, moves)) => {
                let line: Vec<String> = moves.iter().map(|&p| format_gomocup(p)).collect();
                self.say(&line.join(" "));
            }
            None => self.error(&format!(
                "SWAP2BOARD: the {size} board is too small for swap2"
            )),
        }
    }
}

/// A score as a number for comparisons (wins far above any evaluation).
fn score_value(score: Score) -> i64 {
    match score {
        Score::Eval(v) => i64::from(v),
        Score::WinIn(n) => 1_000_000 - i64::from(n),
        // Below every win of known length (all shorter than 10,000 plies).
        Score::Win => 1_000_000 - 10_000,
        Score::LossIn(n) => -1_000_000 + i64::from(n),
    }
}

/// A score for MESSAGE lines: a number, or "win in N" / "loss in N" plies
/// ("win" where its length is not known).
fn describe_score(score: Score) -> String {
    match score {
        Score::Eval(v) => v.to_string(),
        Score::WinIn(n) => format!("win in {n}"),
        Score::Win => "win".to_string(),
        Score::LossIn(n) => format!("loss in {n}"),
    }
}

/// Runs a brain on `input` and `output` until END or the end of input. A
/// reader thread reads the lines, so that STOP, YXSTOP and END reach a
/// search that is running.
pub fn run<R, W>(input: R, output: W)
where
    R: BufRead + Send + 'static,
    W: Write,
{
    let interrupts = Arc::new(Interrupts::default());
    let (tx, rx) = mpsc::channel::<(u64, Line)>();
    let reader_interrupts = interrupts.clone();
    let reader = std::thread::spawn(move || {
        let mut seq = 0u64;
        // The last line that asks for a move.
        let mut search_line = 0u64;
        let mut lines = LineReader::new(input, MAX_LINE);
        // A read error ends the input as its end does.
        while let Ok(Some(line)) = lines.next_line() {
            seq += 1;
            let word = match &line {
                Line::Text(text) => text
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_ascii_uppercase(),
                Line::TooLong => String::new(),
            };
            match word.as_str() {
                "STOP" | "YXSTOP" => reader_interrupts.request_stop(search_line),
                "END" => reader_interrupts.request_end(search_line),
                "TURN" | "BEGIN" | "DONE" => search_line = seq,
                // Stone lines and INFO may come while a search runs;
                // any other command comes after it.
                "INFO" => {}
                w if w.starts_with(|c: char| c.is_ascii_digit() || c == '-') => {}
                _ => search_line = 0,
            }
            if tx.send((seq, line)).is_err() {
                return;
            }
        }
        // The end of input: the lines already read are still handled.
    });
    let mut brain = Brain::new(output, interrupts);
    while let Ok((seq, line)) = rx.recv() {
        let flow = match line {
            Line::Text(text) => brain.handle_line(seq, &text),
            Line::TooLong => {
                brain.error(&format!(
                    "line too long: over {MAX_LINE} bytes, ignored up to its end"
                ));
                Flow::Continue
            }
        };
        if flow == Flow::Exit {
            break;
        }
    }
    // The reader may be blocked on input that never comes; it ends with
    // the process.
    drop(reader);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brain() -> Brain<Vec<u8>> {
        Brain::new(Vec::new(), Arc::new(Interrupts::default()))
    }

    fn feed(b: &mut Brain<Vec<u8>>, script: &str) -> Vec<String> {
        for (n, line) in script.lines().enumerate() {
            b.handle_line(n as u64 + 1, line);
        }
        let text = String::from_utf8(std::mem::take(b.output())).unwrap();
        text.lines()
            .filter(|l| !l.starts_with("MESSAGE"))
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn about_gives_name_version_author_and_country() {
        let mut b = brain();
        let out = feed(&mut b, "ABOUT\n");
        assert_eq!(
            out,
            [format!(
                "name=\"caro\", version=\"{}\", author=\"the caro developers\", country=\"Vietnam\"",
                env!("CARGO_PKG_VERSION")
            )]
        );
    }

    #[test]
    fn margins_leave_time_for_the_pipe() {
        assert_eq!(
            turn_margin(Duration::from_millis(200)),
            Duration::from_millis(30)
        );
        assert_eq!(
            turn_margin(Duration::from_millis(50)),
            Duration::from_millis(10)
        );
        let s = Settings {
            timeout_turn: Some(Duration::from_millis(1000)),
            ..Settings::default()
        };
        assert_eq!(s.limits().move_time, Some(Duration::from_millis(930)));
    }

    #[test]
    fn a_four_is_blocked_and_a_five_is_made() {
        let mut b = brain();
        let out = feed(
            &mut b,
            "INFO max_depth 4\nSTART 15\nBOARD\n5,5,2\n0,0,1\n6,5,2\n0,2,1\n7,5,2\n0,4,1\n8,5,2\nDONE",
        );
        assert_eq!(out[0], "OK");
        assert!(out[1] == "4,5" || out[1] == "9,5", "{out:?}");
    }

    #[test]
    fn thread_num_reaches_the_search() {
        let mut b = brain();
        assert_eq!(b.settings().limits().threads, Some(1));
        let out = feed(
            &mut b,
            "INFO thread_num 2\nINFO timeout_turn 300\nSTART 15\nTURN 8,8",
        );
        assert_eq!(b.settings().limits().threads, Some(2));
        assert_eq!(out[0], "OK");
        assert!(out[1].contains(','), "{out:?}");
    }

    #[test]
    fn the_match_clock_caps_the_move_time() {
        let mut b = brain();
        feed(&mut b, "INFO timeout_turn 5000\nINFO time_left 2000");
        let budget = b.settings().limits().time_budget().unwrap();
        assert!(budget < Duration::from_millis(200), "{budget:?}");
        feed(&mut b, "INFO time_left 2147483647");
        let budget = b.settings().limits().time_budget().unwrap();
        assert_eq!(
            budget,
            Duration::from_millis(5000) - turn_margin(Duration::from_millis(5000))
        );
    }

    #[test]
    fn bad_info_is_an_error_and_changes_nothing() {
        let mut b = brain();
        let out = feed(&mut b, "INFO timeout_turn soon\nINFO rule 5\nINFO rule 4");
        assert!(out[0].starts_with("ERROR INFO timeout_turn"), "{out:?}");
        assert!(out[1].starts_with("ERROR INFO rule 5"), "{out:?}");
        assert_eq!(b.settings().timeout_turn, None);
        assert_eq!(b.settings().rule, Rule::Renju);
    }

    #[test]
    fn max_memory_caps_the_hash_whatever_the_order() {
        // 70 MB allowed: half of it, 33 MiB, for the hash; Yixin's
        // hash_size asks for 2,000,000 KiB (1,953 MiB).
        for script in [
            "INFO max_memory 70000000\nINFO hash_size 2000000",
            "INFO hash_size 2000000\nINFO max_memory 70000000",
        ] {
            let mut b = brain();
            let out = feed(&mut b, script);
            assert!(out.is_empty(), "{script}: {out:?}");
            assert_eq!(b.settings().hash_mb, 33, "{script}");
        }
        // A smaller hash_size than the cap is kept, in either order.
        for script in [
            "INFO max_memory 70000000\nINFO hash_size 16384",
            "INFO hash_size 16384\nINFO max_memory 70000000",
        ] {
            let mut b = brain();
            feed(&mut b, script);
            assert_eq!(b.settings().hash_mb, 16, "{script}");
        }
        // max_memory 0 lifts the limit: the asked hash_size counts again.
        let mut b = brain();
        feed(
            &mut b,
            "INFO hash_size 65536\nINFO max_memory 70000000\nINFO max_memory 0",
        );
        assert_eq!(b.settings().hash_mb, 64);
    }

    #[test]
    fn stones_in_any_order_make_a_freestyle_position() {
        let mut b = brain();
        let out = feed(
            &mut b,
            "INFO max_depth 2\nSTART 15\nYXBOARD\n7,7,2\n8,8,2\n7,8,1\nDONE",
        );
        assert_eq!(out, vec!["OK"]);
        let game = b.game().unwrap();
        assert_eq!(game.to_move(), Color::White);
    }
}
