//! The HTTP API and the page routes.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection, StringRejection};
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{
    DefaultBodyLimit, FromRequest, FromRequestParts, OriginalUri, Path, Query, Request, State,
};
use axum::handler::Handler;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use caro_core::code::PositionCode;
use caro_core::opening::{Choice, Opening};
use caro_core::psq::{read_psq, write_psq, PsqRecord};
use caro_core::table::Table;
use caro_core::{BoardSize, Color, Game, Pos, Rule, Rules};
use futures_util::stream::{self, Stream, StreamExt};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::json;
use tokio_stream::wrappers::BroadcastStream;

use crate::live::{
    parse_color, ActionError, GameView, LiveGame, Sitter, DEFAULT_TIME_MS, MAX_FIRST_TO,
    MAX_TIME_MS,
};
use crate::pool::Busy;
use crate::store::{MatchRow, StoreError};
use crate::{analysis_socket, assets, online_socket, App, Entry};

pub(crate) mod account;
mod guard;
mod hint;
pub(crate) mod lobby;
pub(crate) use guard::MAX_URI;
pub use guard::{
    RequestLimits, ACCOUNTS_PER_HOUR, GAMES_PER_MINUTE, LOGINS_PER_MINUTE, ONLINE_GAMES_PER_HOUR,
};

/// The header that carries a seat token on HTTP intents to an online game.
pub const SEAT_HEADER: &str = "x-caro-seat";

/// Largest request body: a PSQ of a full 60×60 game fits with room.
pub const MAX_BODY: usize = 256 * 1024;

/// The routes, with the checks, limits and headers every request passes.
pub fn router(app: Arc<App>, limits: &RequestLimits) -> Router {
    let games = guard::rate_limit(
        Duration::from_secs(60),
        limits.games_per_minute,
        "new games",
    );
    let online_games = guard::rate_limit(
        Duration::from_secs(60 * 60),
        limits.online_games_per_hour,
        "new online games",
    );
    let sign_ups = guard::rate_limit(
        Duration::from_secs(60 * 60),
        limits.accounts_per_hour,
        "new accounts",
    );
    let logins = guard::rate_limit(
        Duration::from_secs(60),
        limits.logins_per_minute,
        "log-in attempts",
    );
    let routes = Router::new()
        .route("/", get(assets::index))
        .route("/games", get(assets::index))
        .route("/game/{id}", get(assets::index))
        .route("/p/{code}", get(assets::index))
        .route("/lobby", get(assets::index))
        .route("/login", get(assets::index))
        .route("/leaderboard", get(assets::index))
        .route("/@/{name}", get(assets::index))
        .merge(assets::files())
        .merge(analysis_socket::routes())
        .route("/api/players", get(players))
        .route("/api/account", post(account::sign_up.layer(sign_ups)))
        .route(
            "/api/session",
            post(account::log_in.layer(logins)).delete(account::log_out),
        )
        .route("/api/me", get(account::get_me).delete(account::delete_me))
        .route("/api/me/password", post(account::change_password))
        .route(
            "/api/seeks",
            get(lobby::list_seeks).post(lobby::post_seek.layer(games.clone())),
        )
        .route("/api/seeks/events", get(lobby::lobby_events))
        .route(
            "/api/seeks/{id}",
            get(lobby::get_seek).delete(lobby::cancel_seek),
        )
        .route(
            "/api/seeks/{id}/accept",
            post(lobby::accept_seek.layer(games.clone())),
        )
        .route("/api/players/{name}", get(lobby::player))
        .route("/api/leaderboard/{variant}", get(lobby::leaderboard))
        .route(
            "/api/games",
            get(list_games).post(new_game.layer(games.clone())),
        )
        .route("/api/import", post(import_psq.layer(games.clone())))
        .route("/api/games/{id}", get(get_game))
        .route(
            "/api/online",
            post(
                online_socket::create
                    .layer(online_games)
                    .layer(games.clone()),
            ),
        )
        .route("/api/games/{id}/ws", get(online_socket::socket))
        .route("/api/games/{id}/events", get(events))
        .route("/api/games/{id}/psq", get(export_psq))
        .route("/api/games/{id}/move", post(play_move))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/redo", post(redo))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/stop", post(stop))
        .route("/api/games/{id}/pause", post(pause))
        .route("/api/games/{id}/step", post(step))
        .route("/api/games/{id}/speed", post(speed))
        .route(
            "/api/games/{id}/rematch",
            post(rematch.layer(games.clone())),
        )
        .route("/api/games/{id}/choose", post(choose))
        .route("/api/games/{id}/next", post(next_game.layer(games)))
        .route("/api/games/{id}/hint", post(hint::hint))
        .route("/api/games/{id}/players", get(lobby::game_players))
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&app),
            account::refuse_cross_site,
        ))
        .with_state(app);
    guard::wrap(routes)
}

/// A refused request: a status and a JSON body `{"error": …, "code": …}`.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request itself is wrong (bad JSON, bad settings…).
    #[error("{0}")]
    BadRequest(String),
    /// No such game.
    #[error("no game {0}")]
    NoGame(i64),
    /// No such page or endpoint.
    #[error("no such page")]
    NotFound,
    /// The game refused the intent.
    #[error(transparent)]
    Action(#[from] ActionError),
    /// Too many open online games from this client.
    #[error("{0}")]
    TooMany(String),
    /// Something on the server failed (not the request's fault).
    #[error("{0}")]
    Internal(String),
    /// The engine pool is full.
    #[error(transparent)]
    Busy(#[from] Busy),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A refusal with a status and code of its own (405, 413, 414, 415,
    /// 429…).
    #[error("{message}")]
    Status {
        /// The status.
        status: StatusCode,
        /// The code.
        code: &'static str,
        /// What was wrong.
        message: String,
    },
    /// The body could not be read as the JSON expected.
    #[error("{message}")]
    Json {
        /// The status axum chose (400, 413, 415, 422).
        status: StatusCode,
        /// What was wrong.
        message: String,
    },
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        let status = r.status();
        let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
            format!("the request body is larger than {MAX_BODY} bytes")
        } else {
            r.body_text()
        };
        ApiError::Json { status, message }
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> ApiError {
        ApiError::BadRequest(format!("bad path: {}", r.body_text()))
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> ApiError {
        ApiError::BadRequest(format!("bad query: {}", r.body_text()))
    }
}

impl From<StringRejection> for ApiError {
    fn from(r: StringRejection) -> ApiError {
        match r.status() {
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::Status {
                status: StatusCode::PAYLOAD_TOO_LARGE,
                code: "too_large",
                message: format!("the request body is larger than {MAX_BODY} bytes"),
            },
            _ => ApiError::BadRequest(r.body_text()),
        }
    }
}

impl From<WebSocketUpgradeRejection> for ApiError {
    fn from(r: WebSocketUpgradeRejection) -> ApiError {
        ApiError::Status {
            status: r.status(),
            code: "not_websocket",
            message: format!("this address is a WebSocket: {}", r.body_text()),
        }
    }
}

impl ApiError {
    /// The HTTP status and the machine-readable code of the error, the
    /// same over HTTP and on a socket.
    pub(crate) fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            ApiError::NoGame(_) | ApiError::NotFound => (StatusCode::NOT_FOUND, "not_found"),
            ApiError::Action(a @ ActionError::Move(_)) => {
                (StatusCode::UNPROCESSABLE_ENTITY, a.code())
            }
            ApiError::Action(a @ ActionError::NotAPlayer) => (StatusCode::FORBIDDEN, a.code()),
            ApiError::Action(a) => (StatusCode::CONFLICT, a.code()),
            ApiError::TooMany(_) => (StatusCode::TOO_MANY_REQUESTS, "too_many_games"),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
            ApiError::Busy(_) => (StatusCode::SERVICE_UNAVAILABLE, "busy"),
            // A stored game that does not read back is a fault of the
            // server; a write or read that failed may work again later (the
            // change was not made).
            ApiError::Store(StoreError::Damaged { .. }) => {
                (StatusCode::INTERNAL_SERVER_ERROR, "storage")
            }
            ApiError::Store(_) => (StatusCode::SERVICE_UNAVAILABLE, "storage"),
            ApiError::Status { status, code, .. } => (*status, *code),
            ApiError::Json { status, .. } => (
                *status,
                match *status {
                    StatusCode::PAYLOAD_TOO_LARGE => "too_large",
                    StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
                    _ => "bad_json",
                },
            ),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        if status.is_server_error() {
            tracing::error!("{self}");
        }
        (
            status,
            Json(json!({ "error": self.to_string(), "code": code })),
        )
            .into_response()
    }
}

pub(crate) type ApiResult<T> = Result<T, ApiError>;

/// An unknown path: the JSON 404 under `/api`, elsewhere the app's page
/// with status 404 (the page shows its own "not found").
async fn not_found(OriginalUri(uri): OriginalUri) -> Response {
    let path = uri.path();
    if path == "/api" || path.starts_with("/api/") {
        return ApiError::NotFound.into_response();
    }
    (StatusCode::NOT_FOUND, assets::index().await).into_response()
}

async fn method_not_allowed(method: Method, OriginalUri(uri): OriginalUri) -> ApiError {
    ApiError::Status {
        status: StatusCode::METHOD_NOT_ALLOWED,
        code: "method_not_allowed",
        message: format!("{method} is not allowed on {}", uri.path()),
    }
}

/// A game id from the path; one that is not a number is a JSON 400.
pub(crate) struct GameId(pub(crate) i64);

impl<S: Send + Sync> FromRequestParts<S> for GameId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<GameId, ApiError> {
        match Path::<i64>::from_request_parts(parts, state).await {
            Ok(Path(id)) => Ok(GameId(id)),
            Err(PathRejection::FailedToDeserializePathParams(e)) => Err(ApiError::BadRequest(
                format!("a game id is a number: {}", e.body_text()),
            )),
            Err(e) => Err(e.into()),
        }
    }
}

/// A JSON request body: one that does not read as a `T` is refused with
/// the JSON error ([`ApiError::Json`]).
pub(crate) struct Body<T>(pub(crate) T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Body<T>, ApiError> {
        let Json(value) = Json::<T>::from_request(req, state).await?;
        Ok(Body(value))
    }
}

/// `/api/import` takes the PSQ file as `text/plain` (any charset).
fn require_text(headers: &HeaderMap) -> ApiResult<()> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let mime = content_type.split(';').next().unwrap_or("").trim();
    if mime.eq_ignore_ascii_case("text/plain") {
        return Ok(());
    }
    Err(ApiError::Status {
        status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
        code: "unsupported_media_type",
        message: format!("a PSQ file is sent as Content-Type: text/plain, not {content_type:?}"),
    })
}

async fn players(State(app): State<Arc<App>>) -> Response {
    Json(app.catalog.list()).into_response()
}

#[derive(Deserialize)]
struct ListQuery {
    limit: Option<usize>,
}

async fn list_games(
    State(app): State<Arc<App>>,
    q: Result<Query<ListQuery>, QueryRejection>,
) -> ApiResult<Response> {
    let Query(q) = q?;
    let limit = q.limit.unwrap_or(200).min(1000);
    let abandoned_before = crate::live::now_secs() - ABANDONED_AFTER_SECS;
    let rows = app.store.list(limit, abandoned_before).await?;
    // Replaying swap games for their colours is work for a blocking
    // thread.
    let list = tokio::task::spawn_blocking(move || rows.iter().map(list_row).collect::<Vec<_>>())
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(Json(list).into_response())
}

/// An empty game nobody touched for this long (an online rematch nobody
/// came to, a game opened and left) is left out of the games list.
const ABANDONED_AFTER_SECS: i64 = 5 * 60;

/// A game in the games list: who played (an imported game's names when
/// its file has them), the board, the result with its reason, whether it
/// was played online, and its match.
fn list_row(r: &crate::store::GameRow) -> serde_json::Value {
    // Under a swap opening the stored seats are first and second: the
    // colours come from the game's choices.
    let (mut black, mut white) = (r.black.clone(), r.white.clone());
    let mut opening_stones = 0;
    if r.opening != "free" {
        if let Ok(live) = LiveGame::from_row(r) {
            let view = live.view();
            (black, white) = (view.black, view.white);
            opening_stones = view.opening_stones;
        }
    }
    if let Some((b, w)) = r.names.split_once('\n') {
        (black, white) = (b.to_string(), w.to_string());
    }
    let reason = r.ending.split([' ', ':']).next().filter(|w| !w.is_empty());
    json!({
        "id": r.id, "black": black, "white": white, "rule": r.rule,
        "width": r.width, "height": r.height, "k": r.k,
        "ply": r.moves.split_whitespace().count(),
        "result": if r.result.is_empty() { None } else { Some(&r.result) },
        "reason": reason,
        "ending": r.ending, "created": r.created, "updated": r.updated,
        "online": !r.black_token.is_empty(),
        "opening": r.opening, "opening_stones": opening_stones,
        "match": (r.match_id != 0).then_some(r.match_id),
        "game_no": (r.match_id != 0).then_some(r.game_no),
        "hints": r.hints,
    })
}

/// The home page's form.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewGame {
    /// `human` or a player's name.
    pub(crate) black: Option<String>,
    pub(crate) white: Option<String>,
    width: Option<u32>,
    height: Option<u32>,
    k: Option<u32>,
    rule: Option<String>,
    opening: Option<String>,
    first: Option<String>,
    time_ms: Option<u64>,
    /// A match: first to this many wins (1 to 10); none: a single game.
    pub(crate) first_to: Option<u32>,
    /// Start from a position code's moves (its board and rule win).
    code: Option<String>,
    /// Online games: each side's time, in seconds (none: no clock).
    pub(crate) clock_seconds: Option<u64>,
    /// Online games: seconds added after each move.
    pub(crate) increment_seconds: Option<u64>,
}

fn seat(app: &App, name: Option<&str>, color: &str) -> ApiResult<Sitter> {
    let name = name.map_or("human", str::trim);
    if name.is_empty() || name.eq_ignore_ascii_case("human") {
        return Ok(Sitter::Human);
    }
    app.catalog
        .resolve(name)
        .map(|(canonical, _)| Sitter::Computer(canonical))
        .map_err(|e| ApiError::BadRequest(format!("{color}: {e}")))
}

fn dimension(value: Option<u32>, default: u32, what: &str) -> Result<u8, String> {
    let v = value.unwrap_or(default);
    if !(3..=60).contains(&v) {
        return Err(format!("{what} must be from 3 to 60, not {v}"));
    }
    Ok(v as u8)
}

/// The board a request or a position message names: `width` (15 unless
/// given) by `height` (the width unless given), each from 3 to 60.
pub(crate) fn board_size(width: Option<u32>, height: Option<u32>) -> Result<BoardSize, String> {
    let w = dimension(width, 15, "width")?;
    let h = dimension(height.or(width), u32::from(w), "height")?;
    BoardSize::new(w, h).map_err(|e| e.to_string())
}

/// The rule a request or a position message names: freestyle unless given.
pub(crate) fn rule_named(rule: Option<&str>) -> Result<Rule, String> {
    match rule {
        None | Some("") => Ok(Rule::Freestyle),
        Some(r) => r.parse().map_err(|e: caro_core::RulesError| e.to_string()),
    }
}

/// The colour a request or a position message says moves first: black
/// unless given.
pub(crate) fn first_named(first: Option<&str>) -> Result<Color, String> {
    match first {
        None | Some("") => Ok(Color::Black),
        Some(f) => parse_color(f).ok_or_else(|| format!("first must be black or white, not {f:?}")),
    }
}

/// The opening a request names: `free` (the default), `swap1`, `swap2`,
/// or under the renju rule `soosorv8` (`soosorvN`) or `taraguchi10`.
pub(crate) fn opening(req: &NewGame) -> ApiResult<Opening> {
    match req.opening.as_deref().map(str::trim) {
        None | Some("") => Ok(Opening::Free),
        Some(name) => name.parse::<Opening>().map_err(|e| match e {
            caro_core::opening::OpeningError::BadOfferCount(_) => {
                ApiError::BadRequest(e.to_string())
            }
            _ => ApiError::BadRequest(format!(
                "opening must be free, swap1, swap2, soosorv8 (soosorvN) or taraguchi10, \
                 not {name:?}"
            )),
        }),
    }
}

/// The match a request asks for: first to `first_to` wins, or none.
pub(crate) fn first_to(req: &NewGame) -> ApiResult<Option<u32>> {
    match req.first_to {
        None => Ok(None),
        Some(n) if (1..=MAX_FIRST_TO).contains(&n) => Ok(Some(n)),
        Some(n) => Err(ApiError::BadRequest(format!(
            "first_to must be from 1 to {MAX_FIRST_TO}, not {n}"
        ))),
    }
}

/// The table a request sets up: its board and rule, opening and sitters
/// (first seat, second seat: under a swap opening `black` opens). A
/// position code's game starts from its moves with the code's opening, as
/// far as its decisions and offers go.
pub(crate) fn build_table(req: &NewGame, sitters: [Sitter; 2]) -> ApiResult<Table> {
    let opening = opening(req)?;
    let game = build_game(req)?;
    let coded = match req.code.as_deref().filter(|c| !c.trim().is_empty()) {
        Some(code) => Some(
            PositionCode::decode(code.trim())
                .map_err(|e| ApiError::BadRequest(format!("position code: {e}")))?,
        ),
        None => None,
    };
    if let Some(code) = coded {
        if opening != Opening::Free || req.first_to.is_some() {
            return Err(ApiError::BadRequest(
                "a position code's game takes its opening from the code and has no match"
                    .to_string(),
            ));
        }
        return code
            .to_table(sitters)
            .map_err(|e| ApiError::BadRequest(format!("position code: {e}")));
    }
    if opening != Opening::Free && game.first() != Color::Black {
        return Err(ApiError::BadRequest(format!(
            "under the {opening} opening black moves first"
        )));
    }
    Table::new(*game.rules(), game.first(), opening, sitters)
        .map_err(|e| ApiError::BadRequest(e.to_string()))
}

pub(crate) fn build_game(req: &NewGame) -> ApiResult<Game> {
    if let Some(code) = req.code.as_deref().filter(|c| !c.trim().is_empty()) {
        let code = PositionCode::decode(code.trim())
            .map_err(|e| ApiError::BadRequest(format!("position code: {e}")))?;
        return code
            .to_game()
            .map_err(|e| ApiError::BadRequest(format!("position code: {e}")));
    }
    let size = board_size(req.width, req.height).map_err(ApiError::BadRequest)?;
    let rule = rule_named(req.rule.as_deref()).map_err(ApiError::BadRequest)?;
    let k = match req.k {
        None | Some(0) => Rules::default_k(size),
        Some(k) if k > 10 => {
            return Err(ApiError::BadRequest(format!(
                "k must be from 3 to 10, not {k}"
            )))
        }
        Some(k) => k as u8,
    };
    let rules = Rules::new(size, k, rule).map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let first = first_named(req.first.as_deref()).map_err(ApiError::BadRequest)?;
    if rule == Rule::Renju && first == Color::White {
        return Err(ApiError::BadRequest(
            "under renju black moves first".to_string(),
        ));
    }
    Game::new(rules, first).map_err(|e| ApiError::BadRequest(e.to_string()))
}

async fn new_game(State(app): State<Arc<App>>, Body(req): Body<NewGame>) -> ApiResult<Response> {
    if req.clock_seconds.is_some() || req.increment_seconds.is_some() {
        return Err(ApiError::BadRequest(
            "clocks are for online games (POST /api/online)".to_string(),
        ));
    }
    let seats = [
        seat(&app, req.black.as_deref(), "black")?,
        seat(&app, req.white.as_deref(), "white")?,
    ];
    let first_to = first_to(&req)?;
    let table = build_table(&req, seats.clone())?;
    let time_ms = req.time_ms.unwrap_or(DEFAULT_TIME_MS);
    if !(10..=MAX_TIME_MS).contains(&time_ms) {
        return Err(ApiError::BadRequest(format!(
            "time_ms must be from 10 to {MAX_TIME_MS}, not {time_ms}"
        )));
    }
    if seats.iter().any(Sitter::is_computer) {
        app.pool.ensure_room()?;
    }
    let live = match first_to {
        None => LiveGame::new(table, time_ms),
        Some(n) => {
            let id = new_match(&app, n, &seats).await?;
            LiveGame::start_match(table, time_ms, id, n)
        }
    };
    let entry = app.insert(live).await?;
    Ok(created(scheduled_view(&app, &entry)))
}

async fn import_psq(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Result<String, StringRejection>,
) -> ApiResult<Response> {
    require_text(&headers)?;
    let body = body?;
    let record = read_psq(&body).map_err(|e| ApiError::BadRequest(format!("PSQ: {e}")))?;
    // The opening, its choices and offers come back with the moves.
    let table = record
        .to_table([Sitter::Human, Sitter::Human])
        .map_err(|e| ApiError::BadRequest(format!("PSQ: {e}")))?;
    let mut live = LiveGame::new(table, DEFAULT_TIME_MS);
    live.names = psq_names(&body, record.first);
    let entry = app.insert(live).await?;
    let view = entry.lock().view();
    Ok(created(view))
}

pub(crate) async fn entry(app: &Arc<App>, id: i64) -> ApiResult<Arc<Entry>> {
    app.entry(id).await?.ok_or(ApiError::NoGame(id))
}

async fn get_game(State(app): State<Arc<App>>, GameId(id): GameId) -> ApiResult<Response> {
    let entry = entry(&app, id).await?;
    let mut g = entry.lock();
    // A game loaded after a restart resumes here; one that finds the pool
    // full waits for room and goes on by itself.
    let _ = app.schedule(&entry, &mut g);
    Ok(Json(entry.view(&g)).into_response())
}

async fn export_psq(State(app): State<Arc<App>>, GameId(id): GameId) -> ApiResult<Response> {
    let entry = entry(&app, id).await?;
    let record = PsqRecord::from_table(&entry.lock().table)
        .map_err(|e| ApiError::BadRequest(format!("cannot write PSQ: {e}")))?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                "text/plain; charset=utf-8".to_string(),
            ),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"caro-{id}.psq\""),
            ),
        ],
        write_psq(&record),
    )
        .into_response())
}

async fn events(
    State(app): State<Arc<App>>,
    GameId(id): GameId,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let entry = entry(&app, id).await?;
    let (first, rx) = {
        let g = entry.lock();
        (
            serde_json::to_string(&entry.view(&g)).unwrap_or_default(),
            entry.events.subscribe(),
        )
    };
    let updates = BroadcastStream::new(rx).filter_map(move |msg| {
        let entry = Arc::clone(&entry);
        async move {
            let data: String = match msg {
                Ok(json) => json.to_string(),
                // Fell behind: send the current state instead.
                Err(_) => serde_json::to_string(&entry.view(&entry.lock())).ok()?,
            };
            Some(Ok(Event::default().event("game").data(data)))
        }
    });
    let stream =
        stream::once(async move { Ok(Event::default().event("game").data(first)) }).chain(updates);
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// [`App::change`] with a request for a ply this instance has not read yet
/// (another instance stored it a moment ago): the game is read again and
/// the change made once more. Any other refusal is the answer.
///
/// # Errors
/// `f`'s, or the store's.
pub(crate) async fn change_caught_up<T>(
    app: &Arc<App>,
    entry: &Arc<Entry>,
    mut f: impl FnMut(&mut LiveGame) -> Result<T, ApiError>,
) -> ApiResult<(T, Option<Busy>)> {
    match app.change(entry, &mut f).await {
        Err(ApiError::Action(ActionError::Stale { sent, now }))
            if sent > now && app.is_shared() =>
        {
            app.refresh(entry).await?;
            app.change(entry, &mut f).await
        }
        other => other,
    }
}

/// Applies an intent to a game ([`App::change`]: stored before anyone
/// sees it, or not made at all), and answers with the new view.
async fn act(
    app: &Arc<App>,
    id: i64,
    mut f: impl FnMut(&mut LiveGame) -> Result<(), ApiError>,
) -> ApiResult<Response> {
    let entry = entry(app, id).await?;
    let ((), busy) = change_caught_up(app, &entry, &mut f).await?;
    let g = entry.lock();
    let mut view = serde_json::to_value(entry.view(&g)).unwrap_or_default();
    if let Some(busy) = busy {
        view["notice"] = json!(busy.to_string());
    }
    Ok(Json(view).into_response())
}

/// [`act`] for the intents an online game agrees over its socket instead
/// (undo, pause, speed…): an online game refuses them with `what`.
async fn act_offline(
    app: &Arc<App>,
    id: i64,
    what: &'static str,
    mut f: impl FnMut(&mut LiveGame) -> Result<(), ApiError>,
) -> ApiResult<Response> {
    act(app, id, |g| {
        not_online(g, what)?;
        f(g)
    })
    .await
}

/// A new game's first view, answered with 201 Created.
fn created(view: GameView) -> Response {
    (StatusCode::CREATED, Json(view)).into_response()
}

/// The view of a game just made, after its first search is scheduled (a
/// computer to move starts thinking).
fn scheduled_view(app: &Arc<App>, entry: &Arc<Entry>) -> GameView {
    let mut g = entry.lock();
    let _ = app.schedule(entry, &mut g);
    g.view()
}

/// A game's current view, answered with 200.
async fn current_view(app: &Arc<App>, id: i64) -> ApiResult<Response> {
    let view = entry(app, id).await?.lock().view();
    Ok(Json(view).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    ply: usize,
    x: u8,
    y: u8,
}

/// The seat token a request acts with: its `X-Caro-Seat` header, else the
/// seat its session's account holds in the game (a lobby game).
pub(crate) async fn seat_token(
    app: &Arc<App>,
    id: i64,
    headers: &HeaderMap,
) -> ApiResult<Option<String>> {
    if let Some(token) = headers.get(SEAT_HEADER).and_then(|v| v.to_str().ok()) {
        return Ok(Some(token.to_string()));
    }
    // Only an online game has seats: a move in any other game costs no
    // look at the session or the lobby.
    if entry(app, id).await?.lock().online.is_none() {
        return Ok(None);
    }
    lobby::account_seat_token(app, id, headers).await
}

/// The seat of a token, in an online game.
fn seat_of_token(g: &LiveGame, token: Option<&str>) -> Result<caro_core::opening::Seat, ApiError> {
    Ok(g.online_seat(token).ok_or(ActionError::NotAPlayer)?)
}

/// Refuses intents that online games agree over their socket instead.
fn not_online(g: &LiveGame, what: &'static str) -> Result<(), ApiError> {
    if g.online.is_some() {
        return Err(ActionError::Online(what).into());
    }
    Ok(())
}

async fn play_move(
    State(app): State<Arc<App>>,
    GameId(id): GameId,
    headers: HeaderMap,
    Body(m): Body<MoveBody>,
) -> ApiResult<Response> {
    let token = seat_token(&app, id, &headers).await?;
    act(&app, id, |g| {
        if g.online.is_some() {
            let color = seat_of_token(g, token.as_deref())?;
            return Ok(g.online_move(color, m.ply, Pos::new(m.x, m.y))?);
        }
        if g.against_computer() {
            app.pool.ensure_room()?;
        }
        Ok(g.play_human(m.ply, Pos::new(m.x, m.y))?)
    })
    .await
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct PlyBody {
    ply: Option<usize>,
}

async fn undo(
    State(app): State<Arc<App>>,
    GameId(id): GameId,
    Body(b): Body<PlyBody>,
) -> ApiResult<Response> {
    act_offline(&app, id, "undo: ask your opponent for a takeback", |g| {
        Ok(g.undo(b.ply)?)
    })
    .await
}

async fn redo(
    State(app): State<Arc<App>>,
    GameId(id): GameId,
    Body(b): Body<PlyBody>,
) -> ApiResult<Response> {
    act_offline(&app, id, "redo", |g| Ok(g.redo(b.ply)?)).await
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ResignBody {
    color: Option<String>,
}

async fn resign(
    State(app): State<Arc<App>>,
    GameId(id): GameId,
    headers: HeaderMap,
    Body(b): Body<ResignBody>,
) -> ApiResult<Response> {
    let color = match b.color.as_deref() {
        None => None,
        Some(c) => Some(parse_color(c).ok_or_else(|| {
            ApiError::BadRequest(format!("color must be black or white, not {c:?}"))
        })?),
    };
    let token = seat_token(&app, id, &headers).await?;
    act(&app, id, |g| {
        if g.online.is_some() {
            let seat = seat_of_token(g, token.as_deref())?;
            return Ok(g.online_resign(seat)?);
        }
        Ok(g.resign(color)?)
    })
    .await
}

async fn stop(State(app): State<Arc<App>>, GameId(id): GameId) -> ApiResult<Response> {
    // The search returns its best move so far, which is then played.
    let entry = entry(&app, id).await?;
    let ticket = entry.lock().search.clone();
    if let Some(ticket) = ticket {
        ticket.stop.stop();
    } else {
        // Another instance may be searching.
        crate::cluster::stop_search(&app, id).await;
    }
    let g = entry.lock();
    Ok(Json(g.view()).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PauseBody {
    paused: bool,
}

async fn pause(
    State(app): State<Arc<App>>,
    GameId(id): GameId,
    Body(b): Body<PauseBody>,
) -> ApiResult<Response> {
    act_offline(&app, id, "pause", |g| {
        g.paused = b.paused;
        if b.paused {
            // The move being searched is dropped; resuming searches again.
            g.touch();
        }
        Ok(())
    })
    .await
}

async fn step(State(app): State<Arc<App>>, GameId(id): GameId) -> ApiResult<Response> {
    act_offline(&app, id, "step", |g| {
        if g.is_over() {
            return Err(ActionError::GameOver.into());
        }
        g.paused = true;
        if g.search.is_none() {
            g.step_pending = true;
        }
        Ok(())
    })
    .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpeedBody {
    delay_ms: u64,
}

async fn speed(
    State(app): State<Arc<App>>,
    GameId(id): GameId,
    Body(b): Body<SpeedBody>,
) -> ApiResult<Response> {
    if b.delay_ms > 10_000 {
        return Err(ApiError::BadRequest(format!(
            "delay_ms must be at most 10000, not {}",
            b.delay_ms
        )));
    }
    act_offline(&app, id, "speed", |g| {
        g.delay_ms = b.delay_ms;
        Ok(())
    })
    .await
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RematchBody {
    /// Swap the seats (colours).
    #[serde(default)]
    swap: bool,
}

async fn rematch(
    State(app): State<Arc<App>>,
    GameId(id): GameId,
    Body(b): Body<RematchBody>,
) -> ApiResult<Response> {
    let old = entry(&app, id).await?;
    let live = {
        let g = old.lock();
        not_online(&g, "rematch: ask for it over the game's socket")?;
        let mut sitters = g.table.sitters().clone();
        if b.swap {
            sitters.swap(0, 1);
        }
        let table = Table::new(
            *g.game().rules(),
            g.game().first(),
            g.table.opening().opening(),
            sitters,
        )
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
        let mut live = LiveGame::new(table, g.time_ms);
        live.delay_ms = g.delay_ms;
        live
    };
    let entry = app.insert(live).await?;
    Ok(created(scheduled_view(&app, &entry)))
}

/// Stores a new match of these players (A opens game 1) and returns its id.
pub(crate) async fn new_match(app: &App, first_to: u32, players: &[Sitter; 2]) -> ApiResult<i64> {
    let row = MatchRow {
        id: 0,
        first_to,
        player_a: players[0].name().to_string(),
        player_b: players[1].name().to_string(),
        created: crate::live::now_secs(),
    };
    Ok(app.store.insert_match(&row).await?)
}

/// The players' names a PSQ file carries after its moves (Piskvork
/// writes the engines' names there, the first mover's first), as black's
/// and white's. `None` when the file has no two names.
fn psq_names(text: &str, first: Color) -> Option<[String; 2]> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    // The header, then the moves up to the first line that is not one.
    lines.next()?;
    let after: Vec<&str> = lines
        .skip_while(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(','))
        .filter(|l| {
            l.parse::<i64>().is_err()
                && !l.starts_with("caro ")
                && !l.starts_with("opening=")
                && l.len() <= 100
                && !l.chars().any(char::is_control)
        })
        .take(2)
        .collect();
    let [a, b] = after[..] else {
        return None;
    };
    let (a, b) = (a.to_string(), b.to_string());
    Some(match first {
        Color::Black => [a, b],
        Color::White => [b, a],
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChooseBody {
    choice: String,
    ply: usize,
}

/// `POST /api/games/ID/choose`: a person's swap decision.
async fn choose(
    State(app): State<Arc<App>>,
    GameId(id): GameId,
    Body(b): Body<ChooseBody>,
) -> ApiResult<Response> {
    let choice: Choice = b.choice.parse().map_err(|_| {
        ApiError::BadRequest(format!(
            "choice must be take-black, take-white or place-two, not {:?}",
            b.choice
        ))
    })?;
    act_offline(&app, id, "choose: send it over the game's socket", |g| {
        Ok(g.choose_human(b.ply, choice)?)
    })
    .await
}

/// `POST /api/games/ID/next`: the next game of the match (201), or the
/// one already made (200).
async fn next_game(State(app): State<Arc<App>>, GameId(id): GameId) -> ApiResult<Response> {
    let old = entry(&app, id).await?;
    // The turn is held until the next game exists, so a second ask cannot
    // make another.
    let _turn = old.writes.lock().await;
    // A next game stored by a request that was cancelled before it linked
    // it is the next game.
    let link = {
        let g = old.lock();
        not_online(&g, "next game: ask for a rematch over the game's socket")?;
        g.series.clone()
    };
    if let Some(link) = link {
        if let Some(row) = app.stored_next_in_match(&link).await? {
            let mut g = old.lock();
            crate::link_next(&mut g, &row);
            old.publish(&g);
        }
    }
    let made = {
        let g = old.lock();
        match g.series.as_ref().and_then(|m| m.next) {
            Some(next) => Err(next),
            None => Ok(g.next_in_match()?),
        }
    };
    let live = match made {
        Ok(live) => live,
        Err(next) => {
            return current_view(&app, next).await;
        }
    };
    if live.table.sitters().iter().any(Sitter::is_computer) {
        app.pool.ensure_room()?;
    }
    let entry = match app.insert(live).await {
        Ok(entry) => entry,
        Err(e) => {
            // Another instance made it meanwhile (a match has one game of
            // each number): that one is the next game.
            let link = old.lock().series.clone();
            let made = match link {
                Some(link) => app.stored_next_in_match(&link).await?,
                None => None,
            };
            let Some(row) = made else {
                return Err(e.into());
            };
            crate::link_next(&mut old.lock(), &row);
            return current_view(&app, row.id).await;
        }
    };
    let view = scheduled_view(&app, &entry);
    let next = view.id;
    {
        let mut g = old.lock();
        if let Some(m) = &mut g.series {
            m.next = Some(next);
            if !m.games.contains(&next) {
                m.games.push(next);
            }
        }
        old.publish(&g);
    }
    Ok(created(view))
}
