//! Any Gomocup brain as a caro player: `pbrain:/path/to/pbrain-x`.
//!
//! The engine runs as a subprocess. caro speaks START (or RECTSTART),
//! INFO, BEGIN, TURN and BOARD to it, holds it to its time (a move later
//! than the limit plus [`PbrainSpec::tolerance`] loses), and reads its
//! answer. A crash, a late answer or a line that is not a move becomes an
//! [`EngineError::External`] saying which; the referee scores the game and
//! the next game starts a fresh process. Live engines are kept in a pool
//! between games (RESTART), so one is not started per game.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use caro_core::{BoardSize, Game, Pos, Rules};
use caro_engine::{Context, Decision, EngineError, Player, PlayerSource, SearchInfo};

use crate::protocol::{parse_reply, Line, LineReader, Reply, MAX_LINE};

/// Turn time given to an engine when the match sets none (depth or node
/// limits only).
pub const DEFAULT_ENGINE_TURN: Duration = Duration::from_secs(5);

/// How long an engine may take to answer START or RESTART.
pub const INIT_TIMEOUT: Duration = Duration::from_secs(15);

/// How long an engine is left alone after it answers a move before it is
/// sent anything more. Rapfi marks its search finished only after it has
/// written its move, and drops the first word of a command that comes in
/// that moment (a `TURN x,y` is answered `ERROR Unknown command: x,y`):
/// an opponent's instant reply on a busy machine came within it.
pub const SETTLE: Duration = Duration::from_millis(10);

/// How to start an engine process, and its log files.
#[derive(Debug)]
struct Launcher {
    path: PathBuf,
    log_dir: Option<PathBuf>,
    instances: AtomicU64,
}

impl Launcher {
    /// The engine's file name, for log names.
    fn short_name(&self) -> String {
        self.path.file_name().map_or_else(
            || "engine".to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    fn spawn(&self) -> Result<Engine, EngineError> {
        let instance = self.instances.fetch_add(1, Ordering::Relaxed) + 1;
        let log = match &self.log_dir {
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| {
                    EngineError::External(format!(
                        "cannot create log folder {}: {e}",
                        dir.display()
                    ))
                })?;
                let file = dir.join(format!("{}-{instance}.log", self.short_name()));
                Some(File::create(&file).map_err(|e| {
                    EngineError::External(format!("cannot create {}: {e}", file.display()))
                })?)
            }
            None => None,
        };
        Engine::spawn(&self.path, log)
    }
}

/// Live engines waiting for their next game.
type Pool = Arc<Mutex<Vec<Engine>>>;

/// An external engine: where it is and how to run it. A [`PlayerSource`].
#[derive(Debug)]
pub struct PbrainSpec {
    launcher: Arc<Launcher>,
    pool: Pool,
    /// Grace after the time limit before a move counts as late.
    pub tolerance: Duration,
    /// Memory the engine is told it may use (INFO max_memory), 0: no limit.
    pub max_memory: u64,
}

impl PbrainSpec {
    /// An engine at `path`, with 100 ms of tolerance, keeping each
    /// process's dialogue in a file in `log_dir` if given.
    #[must_use]
    pub fn new(path: impl Into<PathBuf>, log_dir: Option<PathBuf>) -> PbrainSpec {
        PbrainSpec {
            launcher: Arc::new(Launcher {
                path: path.into(),
                log_dir,
                instances: AtomicU64::new(0),
            }),
            pool: Arc::new(Mutex::new(Vec::new())),
            tolerance: Duration::from_millis(100),
            max_memory: 0,
        }
    }
}

impl PlayerSource for PbrainSpec {
    fn name(&self) -> String {
        format!("pbrain:{}", self.launcher.path.display())
    }

    fn build_player(&self, _seed: u64) -> Result<Box<dyn Player>, EngineError> {
        let reused = self.pool.lock().ok().and_then(|mut p| p.pop());
        let engine = match reused {
            Some(e) => e,
            None => self.launcher.spawn()?,
        };
        Ok(Box::new(PbrainPlayer {
            name: self.name(),
            launcher: self.launcher.clone(),
            pool: self.pool.clone(),
            tolerance: self.tolerance,
            max_memory: self.max_memory,
            engine: Some(engine),
        }))
    }
}

/// A running engine process and what it knows.
#[derive(Debug)]
struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    log: Option<File>,
    started: Instant,
    /// The board the engine was started with, if START was answered OK.
    board: Option<(BoardSize, Rules)>,
    /// Stones the engine holds, in order, with whether they are its own.
    stones: Vec<(Pos, bool)>,
    /// Whether a game has been played on the board since START/RESTART.
    dirty: bool,
    /// The last value of each INFO key sent (INFO holds until changed).
    infos: Vec<(&'static str, String)>,
    /// When the engine's last move came, until it is sent the next line.
    moved_at: Option<Instant>,
}

impl Engine {
    fn spawn(path: &PathBuf, log: Option<File>) -> Result<Engine, EngineError> {
        let mut child = Process::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| EngineError::External(format!("cannot start {}: {e}", path.display())))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| EngineError::External("no pipe to the engine".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| EngineError::External("no pipe from the engine".into()))?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = LineReader::new(BufReader::new(stdout), MAX_LINE);
            // A read error is the end of the engine's output.
            while let Ok(Some(line)) = lines.next_line() {
                let line = match line {
                    Line::Text(text) => Line::Text(text.trim().to_string()),
                    too_long => too_long,
                };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Ok(Engine {
            child,
            stdin,
            lines: rx,
            log,
            started: Instant::now(),
            board: None,
            stones: Vec::new(),
            dirty: false,
            infos: Vec::new(),
            moved_at: None,
        })
    }

    fn note(&mut self, dir: &str, line: &str) {
        if let Some(log) = &mut self.log {
            let ms = self.started.elapsed().as_millis();
            let _ = writeln!(log, "{ms:>8} {dir} {line}");
        }
    }

    /// Sends `INFO key value` unless the engine already holds that value:
    /// a game's INFO is said once, as Piskvork does, not before every
    /// move (Rapfi, answering at once, has taken an INFO that came right
    /// after its move for a command of its own).
    fn info(
        &mut self,
        key: &'static str,
        value: impl std::fmt::Display,
    ) -> Result<(), EngineError> {
        let value = value.to_string();
        match self.infos.iter_mut().find(|(k, _)| *k == key) {
            Some((_, held)) if *held == value => return Ok(()),
            Some((_, held)) => *held = value.clone(),
            None => self.infos.push((key, value.clone())),
        }
        self.send(&format!("INFO {key} {value}"))
    }

    fn send(&mut self, line: &str) -> Result<(), EngineError> {
        if let Some(moved_at) = self.moved_at.take() {
            let wait = SETTLE.saturating_sub(moved_at.elapsed());
            if !wait.is_zero() {
                std::thread::sleep(wait);
            }
        }
        self.note(">", line);
        // One write of the whole line (`writeln!` on the unbuffered pipe
        // writes the line and its end apart): the engine never reads a
        // line without its end.
        let mut whole = String::with_capacity(line.len() + 1);
        whole.push_str(line);
        whole.push('\n');
        self.stdin
            .write_all(whole.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|_| self.crashed())
    }

    /// Describes a dead engine (with its exit status when known).
    fn crashed(&mut self) -> EngineError {
        let status = match self.child.try_wait() {
            Ok(Some(s)) => format!(" ({s})"),
            _ => String::new(),
        };
        self.note("!", &format!("crashed{status}"));
        EngineError::External(format!("the engine crashed{status}"))
    }

    /// The next line that is not MESSAGE or DEBUG, if one comes before
    /// `deadline`.
    fn reply_by(&mut self, deadline: Instant) -> Result<Option<Reply>, EngineError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Line::TooLong) => {
                    let reason = format!("the engine sent a line longer than {MAX_LINE} bytes");
                    self.note("!", &reason);
                    return Err(EngineError::External(reason));
                }
                Ok(Line::Text(line)) => {
                    self.note("<", &line);
                    match parse_reply(&line) {
                        Reply::Message(_) | Reply::Debug(_) => {}
                        r => return Ok(Some(r)),
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => {
                    // Let the process finish dying so the status is known.
                    std::thread::sleep(Duration::from_millis(20));
                    return Err(self.crashed());
                }
            }
        }
    }

    /// The next line that is not MESSAGE or DEBUG, within `deadline`.
    fn reply(&mut self, deadline: Instant, what: &str) -> Result<Reply, EngineError> {
        match self.reply_by(deadline)? {
            Some(r) => Ok(r),
            None => {
                self.note("!", &format!("no answer to {what} in time"));
                Err(EngineError::External(format!(
                    "no answer to {what} in time"
                )))
            }
        }
    }

    /// Sends a command that must be answered OK.
    fn expect_ok(&mut self, command: &str) -> Result<(), EngineError> {
        self.send(command)?;
        match self.reply(Instant::now() + INIT_TIMEOUT, command)? {
            Reply::Ok => Ok(()),
            Reply::Error(e) => Err(EngineError::External(format!("{command} refused: {e}"))),
            Reply::Unknown(e) => Err(EngineError::External(format!("{command} unknown: {e}"))),
            other => Err(EngineError::External(format!(
                "{command} answered {other:?} instead of OK"
            ))),
        }
    }

    /// Stops a misbehaving engine at once (no END, no waiting).
    fn kill(&mut self) {
        self.note("!", "killed");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn is_alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if self.is_alive() {
            let _ = self.send("END");
            let until = Instant::now() + Duration::from_secs(1);
            while Instant::now() < until {
                if !self.is_alive() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// A pbrain engine playing a game for caro.
pub struct PbrainPlayer {
    name: String,
    launcher: Arc<Launcher>,
    pool: Pool,
    tolerance: Duration,
    max_memory: u64,
    engine: Option<Engine>,
}

impl PbrainPlayer {
    /// Sets the board up (START or RESTART) and the INFO of this move.
    fn prepare(&mut self, game: &Game, ctx: &Context<'_>) -> Result<(), EngineError> {
        if self.engine.as_mut().is_none_or(|e| !e.is_alive()) {
            self.engine = Some(self.launcher.spawn()?);
        }
        let max_memory = self.max_memory;
        let Some(engine) = self.engine.as_mut() else {
            return Err(EngineError::External("no engine".into()));
        };
        let rules = *game.rules();
        let size = rules.size;
        if engine.board.is_none_or(|(s, r)| s != size || r != rules) {
            let start = if size.width == size.height {
                format!("START {}", size.width)
            } else {
                format!("RECTSTART {},{}", size.width, size.height)
            };
            engine.send(&format!("INFO rule {}", rules.rule.gomocup_code()))?;
            engine.expect_ok(&start)?;
            engine.board = Some((size, rules));
            engine.stones.clear();
            engine.dirty = false;
            engine.send(&format!("INFO max_memory {max_memory}"))?;
            engine.send("INFO game_type 1")?;
        }
        let turn = ctx.limits.move_time.unwrap_or(DEFAULT_ENGINE_TURN);
        engine.info("timeout_turn", turn.as_millis())?;
        match ctx.limits.time_left {
            Some(left) => {
                if !engine.dirty {
                    engine.info("timeout_match", left.as_millis())?;
                }
                // The clock moves every turn: always said.
                engine.send(&format!("INFO time_left {}", left.as_millis()))?;
            }
            None => engine.info("timeout_match", 0)?,
        }
        if let Some(d) = ctx.limits.depth {
            engine.info("max_depth", d)?;
        }
        if let Some(n) = ctx.limits.nodes {
            engine.info("max_node", n)?;
        }
        if let Some(t) = ctx.limits.threads {
            engine.info("thread_num", t)?;
        }
        Ok(())
    }

    /// Asks for a move, telling the engine only what it does not know.
    fn ask(
        &mut self,
        game: &Game,
        deadline: Instant,
        ctx: &Context<'_>,
    ) -> Result<Pos, EngineError> {
        let Some(engine) = self.engine.as_mut() else {
            return Err(EngineError::External("no engine".into()));
        };
        let me = game.to_move();
        let mut stones: Vec<(Pos, bool)> = game
            .setup_stones()
            .iter()
            .map(|&(p, c)| (p, c == me))
            .collect();
        for (n, &p) in game.moves().iter().enumerate() {
            stones.push((p, game.color_of_move(n) == me));
        }
        let follows = |known: &[(Pos, bool)]| {
            stones.len() == known.len() + 1
                && stones[..known.len()] == known[..]
                && !stones[known.len()].1
        };
        if engine.dirty && !follows(&engine.stones) {
            engine.expect_ok("RESTART")?;
            engine.dirty = false;
            engine.stones.clear();
        }
        let size = game.size();
        if stones.is_empty() {
            engine.send("BEGIN")?;
        } else if follows(&engine.stones) {
            let p = stones[stones.len() - 1].0;
            engine.send(&format!("TURN {},{}", p.x, p.y))?;
        } else {
            engine.send("BOARD")?;
            for &(p, own) in &stones {
                engine.send(&format!("{},{},{}", p.x, p.y, if own { 1 } else { 2 }))?;
            }
            engine.send("DONE")?;
        }
        engine.dirty = true;
        engine.stones = stones;
        let mut stop_sent = false;
        loop {
            // Wake now and then to pass a stop request on.
            let step = (Instant::now() + Duration::from_millis(50)).min(deadline);
            let Some(reply) = engine.reply_by(step)? else {
                if Instant::now() >= deadline {
                    let ms = ctx.started.elapsed().as_millis();
                    engine.note("!", &format!("late: no move within {ms} ms"));
                    return Err(EngineError::External(format!(
                        "late: no move within {ms} ms"
                    )));
                }
                if ctx.stop.is_set() && !stop_sent {
                    engine.send("YXSTOP")?;
                    stop_sent = true;
                }
                continue;
            };
            match reply {
                Reply::Move(x, y) => {
                    if x >= u32::from(size.width) || y >= u32::from(size.height) {
                        return Err(EngineError::External(format!(
                            "illegal move: {x},{y} is off the {size} board"
                        )));
                    }
                    let p = Pos::new(x as u8, y as u8);
                    engine.moved_at = Some(Instant::now());
                    engine.stones.push((p, true));
                    return Ok(p);
                }
                Reply::Suggest(x, y) => engine.send(&format!("PLAY {x},{y}"))?,
                Reply::Error(e) => {
                    return Err(EngineError::External(format!(
                        "the engine answered ERROR {e}"
                    )))
                }
                Reply::Unknown(e) => {
                    return Err(EngineError::External(format!(
                        "the engine answered UNKNOWN {e}"
                    )))
                }
                Reply::Other(line) => {
                    return Err(EngineError::External(format!(
                        "malformed answer {line:?}: expected a move x,y"
                    )))
                }
                other => {
                    return Err(EngineError::External(format!(
                        "answered {other:?} instead of a move x,y"
                    )))
                }
            }
        }
    }
}

impl Player for PbrainPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) {
        // The board is reset (RESTART or BOARD) on the first move.
    }

    fn choose(&mut self, game: &Game, ctx: &mut Context<'_>) -> Result<Decision, EngineError> {
        if game.is_over() {
            return Err(EngineError::GameOver);
        }
        let turn = ctx.limits.move_time.unwrap_or(DEFAULT_ENGINE_TURN);
        let mut limit = turn;
        if let Some(left) = ctx.limits.time_left {
            limit = limit.min(left);
        }
        // A limit past any clock waits a year at most (an Instant cannot
        // go that far).
        let wait = limit
            .saturating_add(self.tolerance)
            .min(Duration::from_secs(365 * 86_400));
        let result = self
            .prepare(game, ctx)
            .and_then(|()| self.ask(game, ctx.started + wait, ctx));
        match result {
            Ok(best) => {
                let info = SearchInfo {
                    depth: 0,
                    seldepth: 0,
                    score: caro_engine::Score::Eval(0),
                    nodes: 0,
                    elapsed: ctx.started.elapsed(),
                    pv: vec![best],
                };
                Ok(Decision {
                    best,
                    info: Some(info),
                })
            }
            Err(e) => {
                // Whatever the engine is doing now, it is out of step: it
                // is stopped, and the next game gets a fresh process.
                if let Some(mut engine) = self.engine.take() {
                    engine.kill();
                }
                Err(e)
            }
        }
    }
}

impl Drop for PbrainPlayer {
    fn drop(&mut self) {
        // A live engine waits in the pool for the next game.
        if let Some(mut engine) = self.engine.take() {
            if engine.is_alive() {
                if let Ok(mut pool) = self.pool.lock() {
                    pool.push(engine);
                }
            }
        }
    }
}
