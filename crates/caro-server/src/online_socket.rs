//! Play a friend online: a game between two secret seat tokens, played
//! over a WebSocket per page.
//!
//! `POST /api/online` creates the game and answers with the two seat links
//! and a spectator link. `GET /api/games/ID/ws?seat=TOKEN` opens a socket:
//! the server sends the whole game at once (the view plus `"you"`), then
//! every change. The page sends JSON commands naming the ply they apply
//! to; a stale one is refused, never played twice. A socket that sends a
//! frame over [`MAX_FRAME`] bytes (1009), malformed JSON or a text frame
//! that is not UTF-8 (1007), or more than [`MAX_RATE`] messages a second,
//! pings included (1008), is closed with that code and a reason; the server
//! and the other sockets carry on. The server pings every
//! [`PING_INTERVAL`] (`caro serve --ws-ping`) and closes a socket it has
//! heard nothing from for two and a half intervals.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::rejection::QueryRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use axum::Json;
use caro_core::opening::{Choice, Seat};
use caro_core::Pos;
use serde::Deserialize;
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use crate::api::{
    build_table, change_caught_up, entry, first_to, new_match, ApiError, ApiResult, Body, GameId,
    NewGame,
};
use crate::listen::ConnectionSlot;
use crate::live::{ActionError, Clock, LiveGame, Online, Sitter, DEFAULT_TIME_MS};
use crate::socket::{self, close_with, ping, Beat, Heartbeat, Incoming, Reader};
use crate::{App, Entry};

/// Largest command a socket may send, in bytes.
pub const MAX_FRAME: usize = 4 * 1024;
/// Most commands a socket may send in one second.
pub const MAX_RATE: u32 = 20;
/// Most unfinished online games one client address may have created.
pub const MAX_OPEN_GAMES: usize = 20;
/// Read buffer of a game socket, in bytes.
const SOCKET_READ_BUFFER: usize = 4 * 1024;
/// Longest clock a game may have: three hours a side.
pub const MAX_CLOCK_SECONDS: u64 = 3 * 60 * 60;
/// Largest increment a game may have.
pub const MAX_INCREMENT_SECONDS: u64 = 60;
/// How often the server pings a socket, by default (`caro serve
/// --ws-ping`).
pub const PING_INTERVAL: Duration = Duration::from_secs(20);

/// A fresh seat token: 128 random bits in hex.
fn new_token() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::Internal(format!("no random numbers: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Both seat tokens of a new game.
fn new_tokens() -> Result<[String; 2], ApiError> {
    Ok([new_token()?, new_token()?])
}

/// `POST /api/online`: a human vs human game between two seat links.
pub(crate) async fn create(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Body(req): Body<NewGame>,
) -> ApiResult<Response> {
    for (color, seat) in [("black", &req.black), ("white", &req.white)] {
        if seat
            .as_deref()
            .is_some_and(|s| !s.eq_ignore_ascii_case("human"))
        {
            return Err(ApiError::BadRequest(format!(
                "{color}: an online game is between two people"
            )));
        }
    }
    let players = [Sitter::Human, Sitter::Human];
    let table = build_table(&req, players.clone())?;
    let first_to = first_to(&req)?;
    let clock = match (req.clock_seconds, req.increment_seconds) {
        (None | Some(0), None | Some(0)) => None,
        (Some(total), increment) if (1..=MAX_CLOCK_SECONDS).contains(&total) => {
            let increment = increment.unwrap_or(0);
            if increment > MAX_INCREMENT_SECONDS {
                return Err(ApiError::BadRequest(format!(
                    "increment_seconds must be at most {MAX_INCREMENT_SECONDS}, not {increment}"
                )));
            }
            Some(Clock::new(total * 1000, increment * 1000))
        }
        (total, _) => {
            return Err(ApiError::BadRequest(format!(
                "clock_seconds must be from 1 to {MAX_CLOCK_SECONDS}, not {}",
                total.unwrap_or(0)
            )))
        }
    };
    let owner = peer.ip().to_string();
    let open = {
        let owner = owner.clone();
        app.store.open_online_games(&owner).await?
    };
    if open >= app.max_online_per_client {
        return Err(ApiError::TooMany(format!(
            "you already have {open} unfinished online games; finish or resign some first"
        )));
    }
    let tokens = new_tokens()?;
    let mut live = match first_to {
        None => LiveGame::new(table, DEFAULT_TIME_MS),
        Some(n) => {
            let id = new_match(&app, n, &players).await?;
            LiveGame::start_match(table, DEFAULT_TIME_MS, id, n)
        }
    };
    live.online = Some(Online {
        tokens: tokens.clone(),
        owner,
        clock,
        ..Online::default()
    });
    let entry = app.insert(live).await?;
    let view = entry.lock().view();
    let id = view.id;
    let seat = |t: &str| json!({ "token": t, "url": format!("/game/{id}?seat={t}") });
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "id": id,
            "game": view,
            "black": seat(&tokens[0]),
            "white": seat(&tokens[1]),
            "spectator": format!("/game/{id}?watch"),
        })),
    )
        .into_response())
}

/// The socket's query: the seat token, if any.
#[derive(Deserialize)]
pub(crate) struct SocketQuery {
    seat: Option<String>,
}

/// `GET /api/games/ID/ws?seat=TOKEN`: a player's (or, without a valid
/// token, a spectator's) live connection.
pub(crate) async fn socket(
    State(app): State<Arc<App>>,
    GameId(id): GameId,
    q: Result<Query<SocketQuery>, QueryRejection>,
    headers: axum::http::HeaderMap,
    slot: Option<Extension<ConnectionSlot>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    let upgrade = upgrade?;
    let Query(q) = q?;
    let entry = entry(&app, id).await?;
    if app.cluster.is_some() {
        // Another instance's last change may still be on its way here as
        // a notification: a page that opens the game sees what is stored.
        app.refresh(&entry).await?;
    }
    // A flag that is due falls now (and is stored).
    app.change(&entry, flag).await?;
    // A seat bound to an account needs no token: the session names it.
    let token = match q.seat {
        Some(token) => Some(token),
        None => crate::api::lobby::account_seat_token(&app, id, &headers).await?,
    };
    let you = entry.lock().online_seat(token.as_deref());
    Ok(socket::limited(upgrade)
        // The default 128 KiB read buffer is zeroed for every frame read;
        // commands are small, so a small buffer saves most of the work.
        .read_buffer_size(SOCKET_READ_BUFFER)
        .on_upgrade(move |socket| async move {
            // The socket keeps its connection's place under the caps.
            let _slot = slot;
            session(app, entry, you, socket).await;
        }))
}

/// A command from a page.
#[derive(Debug, Deserialize)]
#[serde(tag = "t", rename_all = "kebab-case", deny_unknown_fields)]
enum Command {
    /// Play at (x, y), for ply `ply`.
    Move { ply: usize, x: u8, y: u8 },
    /// Resign.
    Resign,
    /// Ask to take back my last move (the game at ply `ply`).
    Takeback { ply: usize },
    /// Accept the opponent's takeback request made at ply `ply`.
    TakebackAccept { ply: usize },
    /// Decline the opponent's takeback request.
    TakebackDecline,
    /// Offer a draw (accepts the opponent's offer if there is one).
    DrawOffer,
    /// Accept the opponent's draw offer.
    DrawAccept,
    /// Decline the opponent's draw offer.
    DrawDecline,
    /// Ask for a rematch with colours swapped (in a match: the next game).
    Rematch,
    /// Make the swap decision due now (the game at ply `ply`).
    Choose { choice: String, ply: usize },
}

/// A command's JSON: `{"t": …}`, or with the tag named `type`.
fn parse_command(text: &str) -> Result<Command, serde_json::Error> {
    let mut value: serde_json::Value = serde_json::from_str(text)?;
    if let Some(obj) = value.as_object_mut() {
        if !obj.contains_key("t") {
            if let Some(tag) = obj.remove("type") {
                obj.insert("t".to_string(), tag);
            }
        }
    }
    serde_json::from_value(value)
}

/// `black`, `white` (the colour the seat plays now; during an undecided
/// swap the first seat counts as black) or `spectator`, and the seat.
fn you_names(entry: &Entry, you: Option<Seat>) -> (&'static str, Option<&'static str>) {
    match you {
        None => ("spectator", None),
        Some(seat) => (entry.lock().table.color_of(seat).name(), Some(seat.name())),
    }
}

/// A view JSON object with `"t": "game"`, `"you"` and `"seat"` added.
fn game_message(view_json: &str, entry: &Entry, you: Option<Seat>) -> String {
    let (color, seat) = you_names(entry, you);
    let seat = seat.map_or("null".to_string(), |s| format!("\"{s}\""));
    match view_json.strip_prefix('{') {
        Some(rest) => format!("{{\"t\":\"game\",\"you\":\"{color}\",\"seat\":{seat},{rest}"),
        None => view_json.to_string(),
    }
}

fn state_message(entry: &Entry, you: Option<Seat>) -> String {
    let json = serde_json::to_string(&entry.view(&entry.lock())).unwrap_or_default();
    game_message(&json, entry, you)
}

/// The rematch message for this seat, once the rematch exists: each
/// player sits in the other seat of the new game (colours swapped; in a
/// match, the other player opens). A spectator is told the new game's id,
/// to watch it.
fn rematch_message(entry: &Entry, you: Option<Seat>) -> Option<String> {
    let g = entry.lock();
    let (id, tokens) = g.online.as_ref()?.next.as_ref()?;
    let Some(seat) = you.map(Seat::other) else {
        return Some(json!({ "t": "rematch", "id": id, "you": "spectator" }).to_string());
    };
    let token = &tokens[seat.index()];
    // In a free opening the first seat plays black; under a swap the
    // colour is decided later (the first seat counts as black until then).
    let color = if seat == Seat::First {
        "black"
    } else {
        "white"
    };
    Some(
        json!({ "t": "rematch", "id": id, "seat": token, "you": color, "you_seat": seat.name() })
            .to_string(),
    )
}

/// Counts a player's open socket while it lives: the other player's page
/// shows whether the opponent is connected.
/// With other instances, the count is stored for them too.
struct Present {
    app: Arc<App>,
    entry: Arc<Entry>,
    seat: Option<Seat>,
}

impl Present {
    fn new(app: &Arc<App>, entry: &Arc<Entry>, seat: Option<Seat>) -> Present {
        if let Some(seat) = seat {
            entry.sockets[seat.index()].fetch_add(1, Ordering::SeqCst);
            entry.publish(&entry.lock());
            crate::cluster::presence_changed(app, entry, seat.index());
        }
        Present {
            app: Arc::clone(app),
            entry: Arc::clone(entry),
            seat,
        }
    }
}

impl Drop for Present {
    fn drop(&mut self) {
        if let Some(seat) = self.seat {
            self.entry.sockets[seat.index()].fetch_sub(1, Ordering::SeqCst);
            self.entry.publish(&self.entry.lock());
            crate::cluster::presence_changed(&self.app, &self.entry, seat.index());
        }
    }
}

async fn session(app: Arc<App>, entry: Arc<Entry>, you: Option<Seat>, mut socket: WebSocket) {
    // Counted before listening: the socket's own arrival is in its first
    // message, the others are sent the game again.
    let _present = Present::new(&app, &entry, you);
    let mut updates = entry.events.subscribe();
    if socket
        .send(Message::Text(state_message(&entry, you).into()))
        .await
        .is_err()
    {
        return;
    }
    let mut rematch_sent = false;
    let mut reader = Reader::new(MAX_FRAME, MAX_RATE);
    let mut heartbeat = Heartbeat::new(app.ws_ping);
    loop {
        if !rematch_sent {
            if let Some(msg) = rematch_message(&entry, you) {
                rematch_sent = true;
                if socket.send(Message::Text(msg.into())).await.is_err() {
                    return;
                }
            }
        }
        let out = tokio::select! {
            incoming = socket.recv() => {
                heartbeat.heard();
                let text = match reader.read(incoming) {
                    Incoming::Text(text) => text,
                    Incoming::Nothing => continue,
                    Incoming::Close(code, reason) => {
                        close_with(&mut socket, code, &reason).await;
                        return;
                    }
                    Incoming::Gone => return,
                };
                let command: Command = match parse_command(text.as_str()) {
                    Ok(c) => c,
                    Err(e) => {
                        close_with(&mut socket, 1007, &format!("malformed command: {e}")).await;
                        return;
                    }
                };
                match apply(&app, &entry, you, command).await {
                    Ok(()) => None,
                    Err(e) => Some(error_message(&e)),
                }
            }
            beat = heartbeat.beat() => match beat {
                Beat::Dead => {
                    close_with(&mut socket, 1001, "no answer to pings").await;
                    return;
                }
                Beat::Ping => {
                    if !ping(&mut socket).await {
                        return;
                    }
                    None
                }
            },
            update = updates.recv() => match update {
                Ok(json) => Some(game_message(&json, &entry, you)),
                // Fell behind: the whole state replaces what was missed.
                Err(RecvError::Lagged(_)) => Some(state_message(&entry, you)),
                Err(RecvError::Closed) => return,
            },
        };
        if let Some(text) = out {
            if socket.send(Message::Text(text.into())).await.is_err() {
                return;
            }
        }
    }
}

fn error_message(e: &ApiError) -> String {
    let (_, code) = e.status_and_code();
    json!({ "t": "error", "code": code, "error": e.to_string() }).to_string()
}

/// Ends the game if the side to move has run out of time.
fn flag(g: &mut LiveGame) -> Result<(), ApiError> {
    g.flag_if_out_of_time(Instant::now());
    Ok(())
}

/// Applies a seat's command ([`App::change`]: stored, then published; a
/// command that cannot be stored is not made and the seat is told).
async fn apply(
    app: &Arc<App>,
    entry: &Arc<Entry>,
    you: Option<Seat>,
    command: Command,
) -> Result<(), ApiError> {
    app.change(entry, flag).await?;
    let seat = you.ok_or(ActionError::NotAPlayer)?;
    let command = match command {
        Command::Rematch => return rematch(app, entry, seat).await,
        command => command,
    };
    let command_on = |g: &mut LiveGame| {
        match &command {
            &Command::Move { ply, x, y } => g.online_move(seat, ply, Pos::new(x, y))?,
            Command::Resign => g.online_resign(seat)?,
            &Command::Takeback { ply } => g.request_takeback(seat, ply)?,
            &Command::TakebackAccept { ply } => g.accept_takeback(seat, ply)?,
            Command::TakebackDecline => g.decline_takeback(seat)?,
            Command::DrawOffer => g.offer_draw(seat)?,
            Command::DrawAccept => g.accept_draw(seat)?,
            Command::DrawDecline => g.decline_draw(seat)?,
            &Command::Choose { ref choice, ply } => {
                let choice: Choice = choice.parse().map_err(|_| {
                    ApiError::BadRequest(format!(
                        "choice must be take-black, take-white or place-two, not {choice:?}"
                    ))
                })?;
                g.online_choose(seat, ply, choice)?;
            }
            Command::Rematch => {}
        }
        Ok::<_, ApiError>(())
    };
    change_caught_up(app, entry, command_on).await?;
    Ok(())
}

/// The seat asks for a rematch; once both have, the rematch is created
/// (colours swapped by the seats' links, see [`rematch_message`]): in a
/// match that goes on, its next game; otherwise a game with no match.
async fn rematch(app: &Arc<App>, entry: &Arc<Entry>, seat: Seat) -> Result<(), ApiError> {
    // Only the ask that completes the pair goes on, on whichever instance
    // it reached: the version check stores one such ask.
    let (both, _) = app
        .change(entry, |g| Ok::<_, ApiError>(g.offer_rematch(seat)?))
        .await?;
    if !both {
        return Ok(());
    }
    // The match's next game may be stored already (made before a restart,
    // or by a request cancelled before it linked it): the players follow
    // that one.
    let link = entry.lock().series.clone();
    let stored_next = match link {
        Some(link) => app.stored_next_in_match(&link).await?,
        None => None,
    };
    let next = match stored_next {
        Some(row) => row,
        None => {
            let live = next_game(entry)?;
            let id = app.insert(live).await?.lock().id;
            app.store.get(id).await?.ok_or(ApiError::NoGame(id))?
        }
    };
    // The link is stored with the game, so the players on every instance
    // are sent to the new game, and a restart keeps it.
    app.change(entry, |g| {
        if g.online.as_ref().is_some_and(|o| o.next.is_none()) {
            crate::link_next(g, &next);
            g.touch();
        }
        Ok::<_, ApiError>(())
    })
    .await?;
    Ok(())
}

/// The rematch of a finished online game: in a match that goes on, its
/// next game; otherwise a game on its own, the other player opening. New
/// seat tokens, the same clock.
fn next_game(entry: &Arc<Entry>) -> Result<LiveGame, ApiError> {
    let g = entry.lock();
    let next = match g.next_in_match() {
        Ok(next) => next,
        Err(_) => {
            let sitters = g.table.sitters().clone();
            let table = caro_core::table::Table::new(
                *g.game().rules(),
                g.game().first(),
                g.table.opening().opening(),
                sitters,
            )
            .map_err(|e| ApiError::BadRequest(e.to_string()))?;
            LiveGame::new(table, g.time_ms)
        }
    };
    let tokens = new_tokens()?;
    let owner = g
        .online
        .as_ref()
        .map(|o| o.owner.clone())
        .unwrap_or_default();
    let clock = g
        .online
        .as_ref()
        .and_then(|o| o.clock.as_ref())
        .map(|c| Clock::new(c.initial_ms, c.increment_ms));
    let mut live = next;
    live.online = Some(Online {
        tokens,
        owner,
        clock,
        ..Online::default()
    });
    Ok(live)
}
