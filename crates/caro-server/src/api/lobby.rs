//! The lobby over HTTP: seeks posted, listed, cancelled and taken (each
//! taken once, whichever instance the takers reach); the game a seek
//! makes, with seats bound to accounts; players' profiles and the
//! leaderboards.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::PathRejection;
use axum::extract::{ConnectInfo, FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::Json;
use caro_core::opening::Seat;
use futures_util::stream::{self, Stream};
use serde::Deserialize;
use serde_json::{json, Value};

use super::account::signed_in;
use super::{build_table, ApiError, ApiResult, Body, NewGame, SEAT_HEADER};
use crate::live::{now_secs, Clock, LiveGame, Online, Sitter, DEFAULT_TIME_MS};
use crate::rating::{self, Rating};
use crate::store::{AccountRow, LobbyGameRow, SeekRow, Standing};
use crate::App;

/// How long a seek stays in the lobby, in seconds.
pub const SEEK_SECS: i64 = 10 * 60;

/// Most open seeks one account (or one guest address) may have.
pub const MAX_SEEKS: i64 = 3;

/// Longest clock a seek may ask for, in minutes a side.
pub const MAX_SEEK_MINUTES: u32 = 180;

/// The rated variants: a rule on its board (to five). Tic-tac-toe and
/// other boards are played casual only.
pub fn variant(rule: &str, width: i64, height: i64, k: i64) -> Option<&'static str> {
    match (rule, width, height, k) {
        ("freestyle", 15, 15, 5) => Some("freestyle15"),
        ("standard", 15, 15, 5) => Some("standard15"),
        ("renju", 15, 15, 5) => Some("renju15"),
        ("caro", 20, 20, 5) => Some("caro20"),
        _ => None,
    }
}

/// Every rated variant, in the order profiles list them.
pub const VARIANTS: [&str; 4] = ["freestyle15", "renju15", "caro20", "standard15"];

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::BadRequest(message.into())
}

fn refused(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
    ApiError::Status {
        status,
        code,
        message: message.into(),
    }
}

/// A seek id from the path; one that is not a number is a JSON 400.
pub(crate) struct SeekId(i64);

impl<S: Send + Sync> FromRequestParts<S> for SeekId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<SeekId, ApiError> {
        match Path::<i64>::from_request_parts(parts, state).await {
            Ok(Path(id)) => Ok(SeekId(id)),
            Err(PathRejection::FailedToDeserializePathParams(e)) => {
                Err(bad(format!("a seek id is a number: {}", e.body_text())))
            }
            Err(e) => Err(e.into()),
        }
    }
}

/// A seek as posted.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NewSeek {
    rule: Option<String>,
    /// The board's side (15 unless given).
    size: Option<u32>,
    /// Stones in a row to win (5 unless given; 3 for tic-tac-toe).
    k: Option<u32>,
    opening: Option<String>,
    /// Minutes a side (0 or none, with no increment: no clock).
    minutes: Option<u32>,
    /// Seconds added after each move.
    increment: Option<u32>,
    rated: Option<bool>,
    /// `black`, `white` or `random` (the default).
    colour: Option<String>,
}

/// The game settings a seek stands for, as the home page's form.
fn game_settings(s: &SeekRow, k: Option<u32>) -> NewGame {
    NewGame {
        black: None,
        white: None,
        width: u32::try_from(s.width).ok(),
        height: u32::try_from(s.height).ok(),
        k,
        rule: Some(s.rule.clone()),
        opening: Some(s.opening.clone()),
        first: None,
        time_ms: None,
        first_to: None,
        code: None,
        clock_seconds: None,
        increment_seconds: None,
    }
}

/// Stones in a row a seek's game is played to: 3 on a 3×3 board, else 5.
fn seek_k(width: i64) -> u32 {
    if width == 3 {
        3
    } else {
        5
    }
}

/// What a seek shows in the lobby.
fn seek_json(s: &SeekRow, poster: Option<(&str, Standing)>) -> Value {
    let variant = variant(&s.rule, s.width, s.height, i64::from(seek_k(s.width)));
    let (name, rating) = match poster {
        Some((name, standing)) => (
            Value::from(name),
            variant.map_or(Value::Null, |_| rating_json(standing.rating)),
        ),
        None => (Value::Null, Value::Null),
    };
    json!({
        "id": s.id,
        "name": name,
        "rating": rating,
        "rule": s.rule,
        "size": s.width,
        "opening": s.opening,
        "minutes": s.minutes,
        "increment": s.increment,
        "rated": s.rated,
        "colour": s.colour,
        "variant": variant,
        "created": s.created,
        "expires": s.expires,
        "game_id": (s.game_id > 0).then_some(s.game_id),
    })
}

/// A rating as shown: rounded, with its deviation and whether it is
/// provisional.
fn rating_json(r: Rating) -> Value {
    json!({
        "rating": r.rating.round() as i64,
        "deviation": r.deviation.round() as i64,
        "provisional": r.is_provisional(),
    })
}

/// `POST /api/seeks`: posts a seek (201). A guest gets a `token`: its seat
/// in the game the seek makes, and the right to cancel it.
pub(crate) async fn post_seek(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Body(req): Body<NewSeek>,
) -> ApiResult<Response> {
    let account = signed_in(&app, &headers).await?;
    let rule = req
        .rule
        .unwrap_or_else(|| "freestyle".into())
        .to_ascii_lowercase();
    let size = req.size.unwrap_or(if rule == "caro" { 20 } else { 15 });
    let minutes = req.minutes.unwrap_or(0);
    let increment = req.increment.unwrap_or(0);
    if minutes > MAX_SEEK_MINUTES {
        return Err(bad(format!(
            "minutes must be at most {MAX_SEEK_MINUTES}, not {minutes}"
        )));
    }
    let rated = req.rated.unwrap_or(false);
    let colour = req
        .colour
        .unwrap_or_else(|| "random".into())
        .to_ascii_lowercase();
    if !matches!(colour.as_str(), "black" | "white" | "random") {
        return Err(bad(format!(
            "colour must be black, white or random, not {colour:?}"
        )));
    }
    let now = now_secs();
    let mut seek = SeekRow {
        id: 0,
        account_id: account.as_ref().map_or(0, |a| a.id),
        guest_token: String::new(),
        owner: crate::api::guard::client_key(peer.ip()).to_string(),
        rule,
        width: i64::from(size),
        height: i64::from(size),
        opening: req
            .opening
            .unwrap_or_else(|| "free".into())
            .to_ascii_lowercase(),
        minutes: i64::from(minutes),
        increment: i64::from(increment),
        rated,
        colour,
        created: now,
        expires: now + SEEK_SECS,
        cancelled: false,
        game_id: 0,
    };
    // The settings make a game the home page could make, clock included.
    let k = req.k.unwrap_or_else(|| seek_k(seek.width));
    if k != seek_k(seek.width) {
        return Err(bad("a seek is played to five (to three on a 3×3 board)"));
    }
    build_table(
        &game_settings(&seek, Some(k)),
        [Sitter::Human, Sitter::Human],
    )?;
    online_clock(&seek)?;
    if rated {
        if account.is_none() {
            return Err(refused(
                StatusCode::UNAUTHORIZED,
                "not_signed_in",
                "a rated seek needs an account: log in first",
            ));
        }
        if variant(&seek.rule, seek.width, seek.height, i64::from(k)).is_none() {
            return Err(refused(
                StatusCode::UNPROCESSABLE_ENTITY,
                "not_rated_variant",
                "rated games are freestyle 15×15, renju 15×15, standard 15×15 or caro 20×20",
            ));
        }
    }
    if account.is_none() {
        seek.guest_token = crate::account::new_token().map_err(ApiError::Internal)?;
    }
    let counted = seek.clone();
    let open = app
        .store
        .open_seeks_of(counted.account_id, &counted.owner, now)
        .await?;
    if open >= MAX_SEEKS {
        return Err(refused(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_seeks",
            format!("you have {open} open seeks: cancel one first"),
        ));
    }
    let stored = seek.clone();
    seek.id = app.store.insert_seek(&stored).await?;
    app.lobby_changed().await;
    let mut answer = seek_json(
        &seek,
        account
            .as_ref()
            .map(|a| (a.name.as_str(), Standing::default())),
    );
    if let Some(a) = &account {
        if let Some(v) = variant(&seek.rule, seek.width, seek.height, i64::from(k)) {
            let (id, v) = (a.id, v.to_string());
            let standing = app.store.standing(id, &v).await?;
            answer["rating"] = rating_json(standing.rating);
        }
    } else {
        answer["token"] = Value::from(seek.guest_token.clone());
    }
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

/// The clock a seek's game has.
fn online_clock(seek: &SeekRow) -> ApiResult<Option<Clock>> {
    if seek.minutes == 0 && seek.increment == 0 {
        return Ok(None);
    }
    if seek.minutes == 0 {
        return Err(bad("a clock with an increment needs minutes too"));
    }
    if seek.increment > crate::online_socket::MAX_INCREMENT_SECONDS as i64 {
        return Err(bad(format!(
            "increment must be at most {} seconds",
            crate::online_socket::MAX_INCREMENT_SECONDS
        )));
    }
    Ok(Some(Clock::new(
        seek.minutes.unsigned_abs() * 60_000,
        seek.increment.unsigned_abs() * 1000,
    )))
}

/// The open seeks as the lobby shows them, oldest first, with each
/// poster's name and rating in the seek's variant.
async fn open_seeks_json(s: &crate::store::Store) -> Result<Vec<Value>, crate::store::StoreError> {
    let seeks = s.open_seeks(now_secs()).await?;
    let mut out = Vec::with_capacity(seeks.len());
    for seek in &seeks {
        let poster = match seek.account_id {
            0 => None,
            id => match s.account(id).await? {
                Some(a) => {
                    let v = variant(&seek.rule, seek.width, seek.height, 5);
                    let standing = match v {
                        Some(v) => s.standing(id, v).await?,
                        None => Standing::default(),
                    };
                    Some((a.name, standing))
                }
                None => None,
            },
        };
        out.push(seek_json(
            seek,
            poster.as_ref().map(|(n, st)| (n.as_str(), *st)),
        ));
    }
    Ok(out)
}

/// `GET /api/seeks`: the open seeks.
pub(crate) async fn list_seeks(State(app): State<Arc<App>>) -> ApiResult<Response> {
    let list = open_seeks_json(&app.store).await?;
    Ok(Json(list).into_response())
}

/// How often the live lobby is sent again without a change (seeks that
/// expired leave it).
const LOBBY_REFRESH: Duration = Duration::from_secs(30);

/// `GET /api/seeks/events`: the live lobby, as server-sent events: a
/// `seeks` event with the whole list at once, then after every change on
/// any instance (and every 30 s).
pub(crate) async fn lobby_events(
    State(app): State<Arc<App>>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let changes = app.lobby.subscribe();
    let stream = stream::unfold(
        (app, changes, true),
        |(app, mut changes, first)| async move {
            if !first {
                tokio::select! {
                    changed = changes.changed() => {
                        if changed.is_err() {
                            return None;
                        }
                    }
                    () = tokio::time::sleep(LOBBY_REFRESH) => {}
                }
            }
            changes.borrow_and_update();
            let data = match open_seeks_json(&app.store).await {
                Ok(list) => Value::from(list).to_string(),
                Err(e) => json!({"error": e.to_string(), "code": "storage"}).to_string(),
            };
            Some((
                Ok(Event::default().event("seeks").data(data)),
                (app, changes, false),
            ))
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// The seek a path names.
async fn seek_of(app: &Arc<App>, id: i64) -> ApiResult<SeekRow> {
    app.store
        .seek(id)
        .await?
        .ok_or_else(|| refused(StatusCode::NOT_FOUND, "not_found", format!("no seek {id}")))
}

/// The seek a path names, and who asks about it (a guest: `None`).
async fn seek_and_asker(
    app: &Arc<App>,
    id: i64,
    headers: &HeaderMap,
) -> ApiResult<(SeekRow, Option<AccountRow>)> {
    Ok((seek_of(app, id).await?, signed_in(app, headers).await?))
}

/// Whether the request comes from the seek's poster: its account, or a
/// guest's token in `X-Caro-Seat`.
fn is_poster(seek: &SeekRow, account: Option<&AccountRow>, headers: &HeaderMap) -> bool {
    if seek.account_id != 0 {
        return account.is_some_and(|a| a.id == seek.account_id);
    }
    headers
        .get(SEAT_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| !seek.guest_token.is_empty() && t == seek.guest_token)
}

/// `GET /api/seeks/ID`: one seek, with `game_id` once taken (how a
/// poster without the live lobby learns of its game).
pub(crate) async fn get_seek(
    State(app): State<Arc<App>>,
    SeekId(id): SeekId,
) -> ApiResult<Response> {
    let seek = seek_of(&app, id).await?;
    Ok(Json(seek_json(&seek, None)).into_response())
}

/// `DELETE /api/seeks/ID`: the poster cancels an open seek (204).
pub(crate) async fn cancel_seek(
    State(app): State<Arc<App>>,
    SeekId(id): SeekId,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let (seek, account) = seek_and_asker(&app, id, &headers).await?;
    if !is_poster(&seek, account.as_ref(), &headers) {
        return Err(refused(
            StatusCode::FORBIDDEN,
            "not_your_seek",
            "only its poster may cancel a seek",
        ));
    }
    if !app.store.cancel_seek(id).await? {
        return Err(refused(
            StatusCode::CONFLICT,
            "seek_taken",
            "this seek was taken already",
        ));
    }
    app.lobby_changed().await;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /api/seeks/ID/accept`: takes a seek. The answer (201) is the new
/// game's view with `seat` (`first` or `second`) and, for a guest, the
/// seat's `token`. Exactly one of several takers gets the game; the
/// others get 409 `seek_taken`.
pub(crate) async fn accept_seek(
    State(app): State<Arc<App>>,
    SeekId(id): SeekId,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let (seek, account) = seek_and_asker(&app, id, &headers).await?;
    let now = now_secs();
    if seek.cancelled || seek.game_id != 0 || seek.expires <= now {
        return Err(refused(
            StatusCode::CONFLICT,
            "seek_taken",
            "this seek is no longer open",
        ));
    }
    if is_poster(&seek, account.as_ref(), &headers) {
        return Err(refused(
            StatusCode::CONFLICT,
            "own_seek",
            "you cannot take your own seek",
        ));
    }
    if seek.rated && account.is_none() {
        return Err(refused(
            StatusCode::UNAUTHORIZED,
            "not_signed_in",
            "a rated game needs an account: log in first",
        ));
    }
    let taker = account.as_ref().map_or(0, |a| a.id);
    if !app.store.claim_seek(id, taker, now).await? {
        return Err(refused(
            StatusCode::CONFLICT,
            "seek_taken",
            "someone took this seek first",
        ));
    }
    let made = make_game(&app, &seek, taker).await;
    if made.is_err() {
        // Open again for others; the error says why this one failed.
        let _ = app.store.release_seek(id).await;
    }
    app.lobby_changed().await;
    Ok((StatusCode::CREATED, Json(made?)).into_response())
}

/// Makes the online game of a claimed seek: the poster in the colour it
/// asked for, seats bound to accounts, the lobby's record of it.
async fn make_game(app: &Arc<App>, seek: &SeekRow, taker: i64) -> ApiResult<Value> {
    let k = seek_k(seek.width);
    let table = build_table(
        &game_settings(seek, Some(k)),
        [Sitter::Human, Sitter::Human],
    )?;
    let clock = online_clock(seek)?;
    let poster_first = match seek.colour.as_str() {
        "black" => true,
        "white" => false,
        _ => {
            let mut byte = [0u8; 1];
            getrandom::fill(&mut byte).map_err(|e| ApiError::Internal(e.to_string()))?;
            byte[0] & 1 == 0
        }
    };
    let poster_token = if seek.guest_token.is_empty() {
        crate::account::new_token().map_err(ApiError::Internal)?
    } else {
        seek.guest_token.clone()
    };
    let taker_token = crate::account::new_token().map_err(ApiError::Internal)?;
    let (tokens, accounts) = if poster_first {
        (
            [poster_token, taker_token.clone()],
            [seek.account_id, taker],
        )
    } else {
        (
            [taker_token.clone(), poster_token],
            [taker, seek.account_id],
        )
    };
    let mut live = LiveGame::new(table, DEFAULT_TIME_MS);
    live.online = Some(Online {
        tokens,
        owner: seek.owner.clone(),
        clock,
        ..Online::default()
    });
    let entry = app.insert(live).await?;
    let mut view = serde_json::to_value(entry.view(&entry.lock())).unwrap_or_default();
    let game_id = entry.lock().id;
    let record = LobbyGameRow {
        game_id,
        accounts,
        variant: variant(&seek.rule, seek.width, seek.height, i64::from(k))
            .unwrap_or("casual")
            .to_string(),
        rated: seek.rated,
        state: if seek.rated { "playing" } else { "casual" }.to_string(),
        ratings: [(0.0, 0.0); 2],
        before: Default::default(),
    };
    let seek_id = seek.id;
    app.store.seek_taken(seek_id, &record).await?;
    let seat = if poster_first {
        Seat::Second
    } else {
        Seat::First
    };
    view["seat"] = Value::from(seat.name());
    if taker == 0 {
        view["token"] = Value::from(taker_token.clone());
        view["url"] = Value::from(format!("/game/{game_id}?seat={taker_token}"));
    }
    Ok(view)
}

/// The seat token of the account the request's session belongs to, in a
/// lobby game where that account holds a seat: how a seat bound to an
/// account plays with the session cookie alone.
pub(crate) async fn account_seat_token(
    app: &Arc<App>,
    id: i64,
    headers: &HeaderMap,
) -> ApiResult<Option<String>> {
    let Some(account) = signed_in(app, headers).await? else {
        return Ok(None);
    };
    let Some(record) = app.store.lobby_game(id).await? else {
        return Ok(None);
    };
    let Some(index) = record.accounts.iter().position(|a| *a == account.id) else {
        return Ok(None);
    };
    let entry = super::entry(app, id).await?;
    let g = entry.lock();
    Ok(g.online.as_ref().map(|o| o.tokens[index].clone()))
}

/// `GET /api/games/ID/players`: the people in a game made from a seek,
/// by colour (before a swap decides, the first seat counts as black):
/// `{variant, rated, state, black, white}`, each `{name, rating,
/// provisional, change}` (`name` null for a guest; `rating` the one before
/// the game and `change` once it is rated, else the current one).
pub(crate) async fn game_players(
    State(app): State<Arc<App>>,
    super::GameId(id): super::GameId,
) -> ApiResult<Response> {
    let record = app.store.lobby_game(id).await?.ok_or_else(|| {
        refused(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("game {id} was not made in the lobby"),
        )
    })?;
    let entry = super::entry(&app, id).await?;
    let first_is_black = {
        let g = entry.lock();
        g.table.color_of(Seat::First) == caro_core::Color::Black
    };
    let s = &app.store;
    let seats = async {
        let mut out = Vec::new();
        for (i, account_id) in record.accounts.iter().enumerate() {
            if *account_id == 0 {
                out.push(
                    json!({"name": null, "rating": null, "provisional": null, "change": null}),
                );
                continue;
            }
            let name = s.account(*account_id).await?.map(|a| a.name);
            let rated = record.state == "rated";
            let now = s.standing(*account_id, &record.variant).await?.rating;
            let rating = if rated {
                record.ratings[i].0
            } else {
                now.rating
            };
            let provisional = now.is_provisional();
            out.push(json!({
                "name": name,
                "rating": (record.variant != "casual").then(|| rating.round() as i64),
                "provisional": provisional,
                "change": rated.then(|| record.ratings[i].1.round() as i64),
            }));
        }
        Ok::<_, crate::store::StoreError>((out, record))
    }
    .await?;
    let (seats, record) = seats;
    let (black, white) = if first_is_black {
        (&seats[0], &seats[1])
    } else {
        (&seats[1], &seats[0])
    };
    Ok(Json(json!({
        "variant": record.variant,
        "rated": record.rated,
        "state": record.state,
        "black": black,
        "white": white,
    }))
    .into_response())
}

/// `GET /api/players/NAME`: a player's profile: per variant its rating
/// (with deviation, provisional, games, wins, draws, losses and the
/// history), and their lobby games, newest first.
pub(crate) async fn player(
    State(app): State<Arc<App>>,
    name: Result<Path<String>, PathRejection>,
) -> ApiResult<Response> {
    let Path(name) = name?;
    let not_found = || {
        refused(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no player {name}"),
        )
    };
    let key = crate::account::name_key(&name).map_err(|_| not_found())?;
    let s = &app.store;
    let profile = async {
            let Some(account) = s.account_by_key(&key).await?.filter(|a| !a.deleted) else {
                return Ok::<_, crate::store::StoreError>(None);
            };
            let standings = s.standings_of(account.id).await?;
            let mut variants = serde_json::Map::new();
            for v in VARIANTS {
                let standing = standings
                    .iter()
                    .find(|(name, _)| name == v)
                    .map_or_else(Standing::default, |(_, st)| *st);
                let history: Vec<Value> = s
                    .rating_history(account.id, v)
                    .await?
                    .iter()
                    .map(|p| json!({"game": p.game_id, "rating": p.rating.round() as i64, "deviation": p.deviation.round() as i64, "at": p.at}))
                    .collect();
                let mut entry = rating_json(standing.rating);
                entry["games"] = Value::from(standing.games);
                entry["wins"] = Value::from(standing.wins);
                entry["draws"] = Value::from(standing.draws);
                entry["losses"] = Value::from(standing.losses);
                entry["history"] = Value::from(history);
                variants.insert(v.to_string(), entry);
            }
            let mut games = Vec::new();
            for g in s.lobby_games_of(account.id, 100).await? {
                let Some(row) = s.get(g.game_id).await? else {
                    continue;
                };
                let index = usize::from(g.accounts[1] == account.id);
                // The player's colour under any opening: the game replayed.
                let seat = if index == 0 { Seat::First } else { Seat::Second };
                let colour = LiveGame::from_row(&row)
                    .map(|live| live.table.color_of(seat).name())
                    .unwrap_or("black");
                let outcome = match row.result.as_str() {
                    "" => None,
                    "draw" => Some("drawn"),
                    r if r == colour => Some("won"),
                    _ => Some("lost"),
                };
                let opponent = match g.accounts[1 - index] {
                    0 => Value::Null,
                    id => s.account(id).await?.map_or(Value::Null, |a| Value::from(a.name)),
                };
                games.push(json!({
                    "id": g.game_id,
                    "variant": g.variant,
                    "rated": g.rated,
                    "state": g.state,
                    "seat": if index == 0 { "first" } else { "second" },
                    "opponent": opponent,
                    "result": row.result,
                    "outcome": outcome,
                    "change": (g.state == "rated").then(|| g.ratings[index].1.round() as i64),
                    "updated": row.updated,
                }));
            }
            Ok(Some(json!({
                "name": account.name,
                "created": account.created,
                "disabled": account.disabled,
                "ratings": variants,
                "games": games,
            })))
        }
        .await?
        .ok_or_else(not_found)?;
    Ok(Json(profile).into_response())
}

/// `GET /api/leaderboard/VARIANT`: the best 100 players who are not
/// provisional.
pub(crate) async fn leaderboard(
    State(app): State<Arc<App>>,
    variant: Result<Path<String>, PathRejection>,
) -> ApiResult<Response> {
    let Path(variant) = variant?;
    if !VARIANTS.contains(&variant.as_str()) {
        return Err(refused(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no rated variant {variant:?}: {}", VARIANTS.join(", ")),
        ));
    }
    let rows = app
        .store
        .leaders(&variant, rating::PROVISIONAL_DEVIATION, 100)
        .await?;
    let list: Vec<Value> = rows
        .iter()
        .map(|(name, r, d, games)| {
            json!({"name": name, "rating": r.round() as i64, "deviation": d.round() as i64, "games": games})
        })
        .collect();
    Ok(Json(list).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_variants_are_rated_and_tic_tac_toe_never() {
        assert_eq!(variant("freestyle", 15, 15, 5), Some("freestyle15"));
        assert_eq!(variant("caro", 20, 20, 5), Some("caro20"));
        assert_eq!(variant("freestyle", 3, 3, 3), None);
        assert_eq!(variant("renju", 19, 19, 5), None);
        for v in VARIANTS {
            assert!(["freestyle", "renju", "caro", "standard"]
                .iter()
                .any(|r| v.starts_with(r)));
        }
    }
}
