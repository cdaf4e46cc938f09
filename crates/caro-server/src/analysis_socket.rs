//! Analysis: the live analysis socket and the review of a whole game.
//!
//! `GET /api/analysis/ws` is a WebSocket on which a page sends a position
//! (`{"type":"analyse", …}`) and gets, as `caro:10` deepens, the top moves
//! with their scores, lines and black's win chance
//! ([`caro_engine::analysis::Analyser::deepen`]); a new position replaces
//! the running analysis, `{"type":"stop"}` ends it, and it ends by itself
//! after [`LIVE_TIME_CAP`] (then `{"type":"done"}`). At most
//! [`live_at_once`] analyses run on the server at once, and
//! [`LIVE_PER_CLIENT`] for one client address (the next gets the error
//! `busy`); each on a blocking thread of its own. The socket keeps
//! the game socket's limits: frames over [`MAX_FRAME`] bytes close it
//! with 1009, binary frames with 1003, more than [`MAX_RATE`] messages a
//! second with 1008; a bad message is answered `{"type":"error"}` with a
//! code and the socket stays open.
//!
//! `POST /api/games/ID/analysis` reviews a game move by move
//! ([`caro_engine::analysis::analyse_game`], [`GAME_NODES`] nodes a
//! position, so the result repeats) in the background, one game at a time,
//! at most [`MAX_GAME_JOBS`] waiting; `GET` gives its progress and result.
//! A finished review is stored in the `analyses` table with the position
//! it reviewed, so it survives a restart and is never computed twice.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use caro_core::{Game, MoveError, Pos, Rules};
use caro_engine::analysis::{
    analyse_game, black_chance, black_chance_of_result, Analyser, Analysis, Deepening,
    GameAnalysis, DEFAULT_LINES, MAX_LINES,
};
use caro_engine::{Limits, StopFlag};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};

use crate::api::{board_size, entry, first_named, rule_named, ApiError, ApiResult, GameId};
use crate::listen::ConnectionSlot;
use crate::live::ActionError;
use crate::pool::Busy;
use crate::socket::{self, close_with, ping, Beat, Heartbeat, Incoming, Reader};
use crate::App;

/// Largest message the analysis socket takes, in bytes: a position with
/// every point of a 60×60 board played fits.
pub const MAX_FRAME: usize = 64 * 1024;
/// Most messages a socket may send in one second.
pub const MAX_RATE: u32 = 20;
/// How long one live analysis runs at most.
pub const LIVE_TIME_CAP: Duration = Duration::from_secs(30);
/// Node budgets of the live analysis's rounds: small first, so the page
/// has lines at once, doubling until the time cap.
const LIVE_DEEPENING: Deepening = Deepening {
    first_nodes: 5_000,
    max_nodes: 400_000_000,
};
/// Nodes a position of a game review: a fixed budget, so a review
/// repeats (about 30 ms a position on one core of a laptop).
pub const GAME_NODES: u64 = 50_000;
/// What a stored review was made with: one made otherwise is made again.
const GAME_ENGINE: &str = "caro:10 50000 nodes";
/// Live analyses one client address may run at once.
pub const LIVE_PER_CLIENT: usize = 2;
/// Game reviews running or waiting, at most.
pub const MAX_GAME_JOBS: usize = 16;

/// Live analyses the server runs at once: one a core, at least two.
#[must_use]
pub fn live_at_once() -> usize {
    std::thread::available_parallelism()
        .map_or(2, std::num::NonZeroUsize::get)
        .max(2)
}

/// The state of the analysis routes.
struct Analyses {
    /// A permit a running live analysis.
    live: Arc<Semaphore>,
    /// Live analyses running, by client address.
    clients: Arc<Mutex<HashMap<IpAddr, usize>>>,
    /// One game review at a time.
    reviewer: Arc<Semaphore>,
    /// Game reviews running or waiting, by game and position.
    jobs: Mutex<HashMap<(i64, String), Arc<Job>>>,
}

impl Analyses {
    fn jobs(&self) -> std::sync::MutexGuard<'_, HashMap<(i64, String), Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A client's place among the live analyses, given back when dropped.
struct ClientTurn {
    clients: Arc<Mutex<HashMap<IpAddr, usize>>>,
    client: IpAddr,
}

impl ClientTurn {
    /// A place for `client`, unless it has [`LIVE_PER_CLIENT`] already.
    fn take(clients: &Arc<Mutex<HashMap<IpAddr, usize>>>, client: IpAddr) -> Option<ClientTurn> {
        let mut map = clients.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(client).or_insert(0);
        if *n >= LIVE_PER_CLIENT {
            return None;
        }
        *n += 1;
        Some(ClientTurn {
            clients: Arc::clone(clients),
            client,
        })
    }
}

impl Drop for ClientTurn {
    fn drop(&mut self) {
        let mut map = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = map.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.client);
            }
        }
    }
}

/// A game review in the background.
struct Job {
    progress: Mutex<GameAnalysis>,
}

/// The analysis routes, merged into the API's.
pub(crate) fn routes() -> Router<Arc<App>> {
    let state = Arc::new(Analyses {
        live: Arc::new(Semaphore::new(live_at_once())),
        clients: Arc::new(Mutex::new(HashMap::new())),
        reviewer: Arc::new(Semaphore::new(1)),
        jobs: Mutex::new(HashMap::new()),
    });
    Router::new()
        .route("/api/analysis/ws", get(socket))
        .route(
            "/api/games/{id}/analysis",
            get(get_review).post(start_review),
        )
        .layer(Extension(state))
}

// ---------------------------------------------------------------------
// The live analysis socket.

/// A message from the page.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
enum Command {
    /// Analyse this position (replacing the running analysis).
    Analyse(Position),
    /// Stop the running analysis.
    Stop,
}

/// A position as the page sends it.
#[derive(Debug, Deserialize)]
struct Position {
    width: Option<u32>,
    height: Option<u32>,
    k: Option<u32>,
    rule: Option<String>,
    first: Option<String>,
    #[serde(default)]
    moves: Vec<[u32; 2]>,
    lines: Option<usize>,
}

/// A refused message: a code the page translates and a sentence.
#[derive(Debug)]
struct Refusal {
    code: &'static str,
    message: String,
}

impl Refusal {
    fn bad(message: String) -> Refusal {
        Refusal {
            code: "bad_request",
            message,
        }
    }

    fn to_message(&self) -> String {
        json!({ "type": "error", "code": self.code, "message": self.message }).to_string()
    }
}

/// The game of a position message, every move checked.
fn position_game(p: &Position) -> Result<Game, Refusal> {
    let size = board_size(p.width, p.height).map_err(Refusal::bad)?;
    let rule = rule_named(p.rule.as_deref()).map_err(Refusal::bad)?;
    let k = match p.k {
        None | Some(0) => Rules::default_k(size),
        Some(k) if (3..=10).contains(&k) => k as u8,
        Some(k) => return Err(Refusal::bad(format!("k must be from 3 to 10, not {k}"))),
    };
    let rules = Rules::new(size, k, rule).map_err(|e| Refusal::bad(e.to_string()))?;
    let first = first_named(p.first.as_deref()).map_err(Refusal::bad)?;
    let mut game = Game::new(rules, first).map_err(|e| Refusal::bad(e.to_string()))?;
    for (n, &[x, y]) in p.moves.iter().enumerate() {
        let refused = |error: MoveError| Refusal {
            code: ActionError::Move(error.clone()).code(),
            message: format!("move {}: {error}", n + 1),
        };
        let (Ok(x), Ok(y)) = (u8::try_from(x), u8::try_from(y)) else {
            return Err(Refusal {
                code: "off_board",
                message: format!("move {}: ({x}, {y}) is off the board", n + 1),
            });
        };
        game.try_play(Pos::new(x, y)).map_err(refused)?;
    }
    Ok(game)
}

fn point(p: Pos) -> Value {
    json!([p.x, p.y])
}

/// Rounds a chance to four decimals for the page.
fn chance(c: f64) -> f64 {
    (c * 10_000.0).round() / 10_000.0
}

/// The `analysis` message of an analysis of `game` so far.
fn analysis_message(game: &Game, a: Option<&Analysis>) -> String {
    let to_move = game.to_move();
    let black = |c: f64| chance(black_chance(to_move, c));
    let win_chance = match (game.outcome(), a.and_then(Analysis::win_chance)) {
        (Some(o), _) => black_chance_of_result(o.winner()),
        (None, Some(c)) => black(c),
        (None, None) => 0.5,
    };
    let lines: Vec<Value> = a.map_or_else(Vec::new, |a| {
        a.lines
            .iter()
            .map(|l| {
                json!({
                    "move": point(l.mv),
                    "score": l.score.to_string(),
                    "win_chance": black(l.win_chance()),
                    "pv": l.pv.iter().copied().map(point).collect::<Vec<_>>(),
                })
            })
            .collect()
    });
    json!({
        "type": "analysis",
        "ply": game.moves().len(),
        "depth": a.map_or(0, Analysis::depth),
        "nodes": a.map_or(0, |a| a.nodes),
        "nps": a.map_or(0, Analysis::nps),
        "win_chance": chance(win_chance),
        "lines": lines,
    })
    .to_string()
}

fn done_message() -> String {
    json!({ "type": "done" }).to_string()
}

/// A live analysis on its blocking thread. Dropped, it stops the search
/// (a socket's task that ends in any way leaves no search running).
struct Running {
    stop: StopFlag,
    task: tokio::task::JoinHandle<()>,
    messages: mpsc::UnboundedReceiver<String>,
    deadline: tokio::time::Instant,
    /// Stops the search at the time cap whatever the socket does (a
    /// client that reads nothing holds the socket's task in a send).
    watchdog: tokio::task::AbortHandle,
}

impl Running {
    /// Stops it and waits for its thread (a stopped search ends within
    /// about a millisecond), dropping what it had still to say.
    async fn end(mut self) {
        self.stop.stop();
        let _ = (&mut self.task).await;
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.stop();
        self.watchdog.abort();
    }
}

/// Starts the analysis of `game` on a blocking thread holding its places,
/// stopped after `cap` at the latest.
fn start(
    game: Game,
    lines: usize,
    permit: OwnedSemaphorePermit,
    turn: ClientTurn,
    cap: Duration,
) -> Running {
    let stop = StopFlag::new();
    let (tx, messages) = mpsc::unbounded_channel();
    let thread_stop = stop.clone();
    let deadline = tokio::time::Instant::now() + cap;
    let watchdog_stop = stop.clone();
    let watchdog = tokio::spawn(async move {
        tokio::time::sleep_until(deadline).await;
        watchdog_stop.stop();
    })
    .abort_handle();
    let task = tokio::task::spawn_blocking(move || {
        let places = (permit, turn);
        if game.is_over() {
            let _ = tx.send(analysis_message(&game, None));
        } else {
            let mut progress = |a: &Analysis| {
                let _ = tx.send(analysis_message(&game, Some(a)));
            };
            let result =
                Analyser::new().deepen(&game, lines, LIVE_DEEPENING, &thread_stop, &mut progress);
            if result.is_err() {
                // No move to make (a draw by a full board is over already).
                let _ = tx.send(analysis_message(&game, None));
            }
        }
        // Its places are free once the page reads `done`.
        drop(places);
        let _ = tx.send(done_message());
    });
    Running {
        stop,
        task,
        messages,
        deadline,
        watchdog,
    }
}

/// `GET /api/analysis/ws`: the live analysis socket.
async fn socket(
    State(app): State<Arc<App>>,
    Extension(analyses): Extension<Arc<Analyses>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    slot: Option<Extension<ConnectionSlot>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    let upgrade = upgrade?;
    let client = client_address(peer.ip());
    Ok(
        socket::limited(upgrade).on_upgrade(move |socket| async move {
            // The socket keeps its connection's place under the caps.
            let _slot = slot;
            session(app, analyses, client, socket).await;
        }),
    )
}

/// The next message of the running analysis; never, without one.
async fn next_message(running: &mut Option<Running>) -> Option<String> {
    match running {
        Some(r) => r.messages.recv().await,
        None => std::future::pending().await,
    }
}

/// Sleeps until `deadline`; never, without one.
async fn time_cap(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// What a page's message asks for.
enum Asked {
    Nothing,
    Reply(String),
    Close(u16, String),
    /// The running analysis has said all it had to.
    Finished,
    /// The running analysis reached its time cap.
    TimeUp,
}

/// The address a client's analyses are counted under: an IPv6 client by
/// its /64 network (one host usually holds a whole /64).
fn client_address(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        v4 => v4,
    }
}

async fn session(app: Arc<App>, analyses: Arc<Analyses>, client: IpAddr, mut socket: WebSocket) {
    let mut running: Option<Running> = None;
    let mut reader = Reader::new(MAX_FRAME, MAX_RATE);
    let mut heartbeat = Heartbeat::new(app.ws_ping);
    loop {
        let deadline = running.as_ref().map(|r| r.deadline);
        let asked = tokio::select! {
            incoming = socket.recv() => {
                heartbeat.heard();
                match reader.read(incoming) {
                    Incoming::Text(text) => {
                        handle(text.as_str(), &analyses, client, &mut running).await
                    }
                    Incoming::Nothing => Asked::Nothing,
                    Incoming::Close(code, reason) => Asked::Close(code, reason),
                    Incoming::Gone => break,
                }
            }
            message = next_message(&mut running) => match message {
                Some(text) => Asked::Reply(text),
                None => Asked::Finished,
            },
            () = time_cap(deadline) => Asked::TimeUp,
            beat = heartbeat.beat() => match beat {
                Beat::Dead => Asked::Close(1001, "no answer to pings".into()),
                Beat::Ping => {
                    if !ping(&mut socket).await {
                        break;
                    }
                    Asked::Nothing
                }
            },
        };
        match asked {
            Asked::Nothing => {}
            Asked::Finished => running = None,
            Asked::TimeUp => {
                // Its last lines and `done` follow.
                if let Some(r) = running.as_mut() {
                    r.stop.stop();
                    r.deadline += Duration::from_secs(24 * 60 * 60);
                }
            }
            Asked::Reply(text) => {
                if socket.send(Message::Text(text.into())).await.is_err() {
                    break;
                }
            }
            Asked::Close(code, reason) => {
                close_with(&mut socket, code, &reason).await;
                break;
            }
        }
    }
    if let Some(r) = running.take() {
        r.end().await;
    }
}

/// Acts on a page's text message.
async fn handle(
    text: &str,
    analyses: &Analyses,
    client: IpAddr,
    running: &mut Option<Running>,
) -> Asked {
    let command = match serde_json::from_str::<Value>(text) {
        Err(e) => Err(Refusal {
            code: "bad_json",
            message: format!("malformed message: {e}"),
        }),
        Ok(value) => serde_json::from_value::<Command>(value)
            .map_err(|e| Refusal::bad(format!("not an analysis message: {e}"))),
    };
    let command = match command {
        Ok(c) => c,
        Err(refusal) => return Asked::Reply(refusal.to_message()),
    };
    match command {
        Command::Stop => {
            if let Some(r) = running {
                r.stop.stop();
            }
            Asked::Nothing
        }
        Command::Analyse(position) => {
            let lines = position.lines.unwrap_or(DEFAULT_LINES);
            if !(1..=MAX_LINES).contains(&lines) {
                return Asked::Reply(
                    Refusal::bad(format!("lines must be from 1 to {MAX_LINES}, not {lines}"))
                        .to_message(),
                );
            }
            let game = match position_game(&position) {
                Ok(g) => g,
                Err(refusal) => return Asked::Reply(refusal.to_message()),
            };
            // The new position replaces the old: its thread ends first,
            // giving back its permit.
            if let Some(old) = running.take() {
                old.end().await;
            }
            let Some(turn) = ClientTurn::take(&analyses.clients, client) else {
                return Asked::Reply(
                    Refusal {
                        code: "busy",
                        message: format!(
                            "you have {LIVE_PER_CLIENT} analyses running already; stop one first"
                        ),
                    }
                    .to_message(),
                );
            };
            let Ok(permit) = Arc::clone(&analyses.live).try_acquire_owned() else {
                return Asked::Reply(
                    Refusal {
                        code: "busy",
                        message: format!(
                            "the server is busy: {} analyses are running; try again shortly",
                            live_at_once()
                        ),
                    }
                    .to_message(),
                );
            };
            *running = Some(start(game, lines, permit, turn, LIVE_TIME_CAP));
            Asked::Nothing
        }
    }
}

// ---------------------------------------------------------------------
// Game reviews.

/// What identifies the position a review is of: the placed stones and
/// the moves. A game that has changed since is reviewed again.
fn position_key(game: &Game) -> String {
    let setup = game.to_setup();
    let mut key = format!(
        "{}x{} k{} {} {}",
        setup.size.width,
        setup.size.height,
        setup.k,
        setup.rule.name(),
        setup.first.name()
    );
    for (p, c) in &setup.stones {
        key.push_str(&format!(" {}{},{}", &c.name()[..1], p.x, p.y));
    }
    key.push_str(" |");
    for p in &setup.moves {
        key.push_str(&format!(" {},{}", p.x, p.y));
    }
    key
}

/// The review's points and moves, as the API gives them.
fn review_data(review: &GameAnalysis) -> Value {
    let points: Vec<Value> = review
        .points
        .iter()
        .enumerate()
        .map(|(ply, &c)| json!({ "ply": ply, "win_chance": chance(c) }))
        .collect();
    let moves: Vec<Value> = review
        .moves
        .iter()
        .map(|m| {
            json!({
                "ply": m.ply,
                "move": point(m.mv),
                "color": m.color.name(),
                "loss": chance(m.loss),
                "mark": m.mark.map(|k| k.name()),
                "best": m.best.map(point),
                "best_line": m.best_line.iter().copied().map(point).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "points": points, "moves": moves })
}

/// The API's answer: state, progress, points and moves.
fn review_answer(state: &str, total: usize, data: &Value) -> Value {
    let points = data.get("points").cloned().unwrap_or_else(|| json!([]));
    let moves = data.get("moves").cloned().unwrap_or_else(|| json!([]));
    let done = points.as_array().map_or(0, Vec::len);
    json!({ "state": state, "done": done, "total": total, "points": points, "moves": moves })
}

/// The game's position, its key, and the stored review of that position.
async fn lookup(app: &Arc<App>, id: i64) -> ApiResult<(Game, String, Option<Value>)> {
    let game = entry(app, id).await?.lock().game().clone();
    let key = position_key(&game);
    let stored = app.store.stored_analysis(id, GAME_ENGINE).await?;
    let data = stored
        .filter(|(position, _)| *position == key)
        .and_then(|(_, data)| serde_json::from_str::<Value>(&data).ok());
    Ok((game, key, data))
}

/// The review of the game's position: stored (done), running (until it
/// is stored), or none.
fn answer(analyses: &Analyses, id: i64, game: &Game, key: &str, stored: Option<&Value>) -> Value {
    let total = game.moves().len() + 1;
    if let Some(data) = stored {
        return review_answer("done", total, data);
    }
    let job = analyses.jobs().get(&(id, key.to_string())).cloned();
    match job {
        Some(job) => {
            // Running until stored: a review said done before its write
            // would be lost by a server killed in between.
            let progress = job.progress.lock().unwrap_or_else(|e| e.into_inner());
            review_answer("running", total, &review_data(&progress))
        }
        None => review_answer("none", total, &json!({})),
    }
}

/// `GET /api/games/ID/analysis`.
async fn get_review(
    State(app): State<Arc<App>>,
    Extension(analyses): Extension<Arc<Analyses>>,
    GameId(id): GameId,
) -> ApiResult<Response> {
    let (game, key, stored) = lookup(&app, id).await?;
    Ok(Json(answer(&analyses, id, &game, &key, stored.as_ref())).into_response())
}

/// `POST /api/games/ID/analysis`: starts the review (202), or answers the
/// one done or running (200).
async fn start_review(
    State(app): State<Arc<App>>,
    Extension(analyses): Extension<Arc<Analyses>>,
    GameId(id): GameId,
) -> ApiResult<Response> {
    let playing_online = {
        let entry = entry(&app, id).await?;
        let live = entry.lock();
        live.online.is_some() && !live.is_over()
    };
    if playing_online {
        return Err(ApiError::Status {
            status: StatusCode::CONFLICT,
            code: "online_in_progress",
            message: "an online game is analysed once it is over".to_string(),
        });
    }
    let (game, key, stored) = lookup(&app, id).await?;
    if stored.is_some() {
        return Ok(Json(answer(&analyses, id, &game, &key, stored.as_ref())).into_response());
    }
    let job = {
        let mut jobs = analyses.jobs();
        if jobs.contains_key(&(id, key.clone())) {
            None
        } else if jobs.len() >= MAX_GAME_JOBS {
            return Err(ApiError::Busy(Busy { queued: jobs.len() }));
        } else {
            let job = Arc::new(Job {
                progress: Mutex::new(GameAnalysis {
                    total: game.moves().len() + 1,
                    ..GameAnalysis::default()
                }),
            });
            jobs.insert((id, key.clone()), Arc::clone(&job));
            Some(job)
        }
    };
    let Some(job) = job else {
        return Ok(Json(answer(&analyses, id, &game, &key, None)).into_response());
    };
    let body = answer(&analyses, id, &game, &key, None);
    tokio::spawn(review(app, Arc::clone(&analyses), id, key, game, job));
    Ok((StatusCode::ACCEPTED, Json(body)).into_response())
}

/// Reviews a game in its turn, stores the review, and forgets the job.
async fn review(
    app: Arc<App>,
    analyses: Arc<Analyses>,
    id: i64,
    key: String,
    game: Game,
    job: Arc<Job>,
) {
    let permit = Arc::clone(&analyses.reviewer).acquire_owned().await;
    let worker = Arc::clone(&job);
    let reviewed = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let limits = Limits {
            nodes: Some(GAME_NODES),
            ..Limits::default()
        };
        analyse_game(&game, limits, &StopFlag::new(), &mut |r| {
            *worker.progress.lock().unwrap_or_else(|e| e.into_inner()) = r.clone();
        })
    })
    .await;
    match reviewed {
        Ok(Ok(review)) => {
            let data = review_data(&review).to_string();
            let position = key.clone();
            if let Err(e) = app
                .store
                .store_analysis(id, &position, GAME_ENGINE, &data)
                .await
            {
                tracing::error!("game {id}: its analysis could not be stored: {e}");
            }
        }
        Ok(Err(e)) => tracing::error!("game {id}: cannot analyse it: {e}"),
        Err(e) => tracing::error!("game {id}: the analysis panicked: {e}"),
    }
    analyses.jobs().remove(&(id, key));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(json: &str) -> Result<Game, Refusal> {
        let p: Position = serde_json::from_str(json).expect("a position message");
        position_game(&p)
    }

    #[test]
    fn positions_are_checked() {
        let g = position(r#"{"width":15,"moves":[[7,7],[8,8]]}"#).expect("legal");
        assert_eq!(g.moves().len(), 2);
        assert_eq!(g.rules().k, 5);
        let code = |json: &str| position(json).map(|_| ()).unwrap_err().code;
        assert_eq!(code(r#"{"width":61}"#), "bad_request");
        assert_eq!(code(r#"{"width":2}"#), "bad_request");
        assert_eq!(code(r#"{"width":15,"height":70}"#), "bad_request");
        assert_eq!(code(r#"{"rule":"chess"}"#), "bad_request");
        assert_eq!(code(r#"{"k":11}"#), "bad_request");
        assert_eq!(code(r#"{"first":"green"}"#), "bad_request");
        assert_eq!(code(r#"{"moves":[[7,7],[7,7]]}"#), "occupied");
        assert_eq!(code(r#"{"moves":[[15,7]]}"#), "off_board");
        assert_eq!(code(r#"{"moves":[[300,7]]}"#), "off_board");
        assert_eq!(
            code(
                r#"{"rule":"renju","moves":[[5,7],[0,0],[6,7],[0,2],[7,5],[0,4],[7,6],[0,6],[7,7]]}"#
            ),
            "forbidden"
        );
    }

    /// A live analysis of the position after h8 with its own places.
    fn running(cap: Duration) -> (Running, Arc<Semaphore>) {
        let places = Arc::new(Semaphore::new(1));
        let permit = Arc::clone(&places).try_acquire_owned().expect("a place");
        let clients = Arc::new(Mutex::new(HashMap::new()));
        let turn = ClientTurn::take(&clients, IpAddr::from([127, 0, 0, 1])).expect("a turn");
        let game = position(r#"{"moves":[[7,7]]}"#).expect("legal");
        (start(game, 3, permit, turn, cap), places)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dropped_analysis_stops_its_search() {
        let (r, places) = running(LIVE_TIME_CAP);
        let stop = r.stop.clone();
        drop(r);
        assert!(stop.is_set());
        // Its thread ends and gives its place back.
        let _place = places.acquire().await.expect("the place comes back");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_analysis_stops_at_its_cap_without_the_socket() {
        // Nobody reads its messages nor ends it: the cap alone stops it
        // (without the cap its rounds would go on for minutes).
        let (mut r, places) = running(Duration::ZERO);
        let ended = tokio::time::timeout(Duration::from_secs(300), places.acquire()).await;
        assert!(ended.is_ok(), "the search ran past its cap");
        let mut last = None;
        while let Some(m) = r.messages.recv().await {
            last = Some(m);
        }
        assert_eq!(last, Some(done_message()));
    }

    #[test]
    fn the_position_key_names_stones_and_moves() {
        let a = position(r#"{"moves":[[7,7],[8,8]]}"#).expect("legal");
        let b = position(r#"{"moves":[[8,8],[7,7]]}"#).expect("legal");
        assert_ne!(position_key(&a), position_key(&b));
        assert!(position_key(&a).ends_with("| 7,7 8,8"));
    }

    #[test]
    fn an_analysis_message_gives_black_chances() {
        let g = position(r#"{"moves":[[7,7],[7,9],[8,7],[8,9],[9,7],[0,14]]}"#).expect("legal");
        let a = Analyser::new()
            .analyse(&g, 2, Limits::depth(3), &StopFlag::new(), &mut |_| {})
            .expect("lines");
        let v: Value = serde_json::from_str(&analysis_message(&g, Some(&a))).expect("json");
        assert_eq!(v["type"], "analysis");
        assert_eq!(v["ply"], 6);
        assert_eq!(v["win_chance"], 1.0, "black's open three wins");
        assert_eq!(v["lines"].as_array().map(Vec::len), Some(2));
        assert!(v["lines"][0]["score"]
            .as_str()
            .is_some_and(|s| s.starts_with("+W")));

        // White to move against black's open four: every chance is
        // black's (1), the scores white's (lost).
        let g =
            position(r#"{"moves":[[7,7],[0,0],[8,7],[0,2],[9,7],[0,4],[10,7]]}"#).expect("legal");
        let a = Analyser::new()
            .analyse(&g, 2, Limits::depth(3), &StopFlag::new(), &mut |_| {})
            .expect("lines");
        let v: Value = serde_json::from_str(&analysis_message(&g, Some(&a))).expect("json");
        assert_eq!(v["ply"], 7);
        assert_eq!(v["win_chance"], 1.0, "black's chance: {v}");
        for line in v["lines"].as_array().expect("lines") {
            assert_eq!(line["win_chance"], 1.0, "black's chance: {line}");
            assert!(line["score"].as_str().is_some_and(|s| s.starts_with("-L")));
        }
    }
}
