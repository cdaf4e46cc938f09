//! `POST /api/games/ID/hint`: the engine's suggestion for a person's turn
//! in a game against the computer, counted in the game.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Json;
use caro_core::table::Turn;
use caro_engine::analysis::{black_chance, win_chance};
use caro_engine::{Context, Decision, EngineError, Limits, PlayerSpec, Score, StopFlag};
use serde::Deserialize;
use serde_json::json;

use super::{entry, not_online, ApiError, ApiResult, Body, GameId};
use crate::live::{ActionError, LiveGame};
use crate::pool::Busy;
use crate::App;

/// The player a hint asks: caro's strongest level.
const HINT_PLAYER: &str = "caro:10";
/// How long a hint's search runs.
pub const HINT_TIME: Duration = Duration::from_millis(500);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct HintBody {
    ply: usize,
}

/// Whether a hint may be given now: a person's move against the computer.
fn check(g: &LiveGame, ply: usize) -> Result<(), ApiError> {
    not_online(g, "hints are for games against the computer")?;
    if !g.against_computer() {
        return Err(ActionError::NoHint("hints are for games against the computer").into());
    }
    if g.is_over() {
        return Err(ActionError::GameOver.into());
    }
    let person_moves =
        matches!(g.table.turn(), Turn::Move { seat, .. } if g.table.is_human_seat(seat));
    if !person_moves {
        return Err(ActionError::NoHint("a hint is for your move").into());
    }
    let now = g.game().moves().len();
    if ply != now {
        return Err(ActionError::Stale { sent: ply, now }.into());
    }
    Ok(())
}

fn xy(p: caro_core::Pos) -> [u8; 2] {
    [p.x, p.y]
}

/// Searches the position with [`HINT_PLAYER`] for [`HINT_TIME`] on the
/// engine pool, then counts the hint in the game (stored) and answers the
/// move, its score, black's win chance and the line.
pub(super) async fn hint(
    State(app): State<Arc<App>>,
    GameId(id): GameId,
    Body(b): Body<HintBody>,
) -> ApiResult<Response> {
    let entry = entry(&app, id).await?;
    let position = {
        let g = entry.lock();
        check(&g, b.ply)?;
        g.game().clone()
    };
    let (tx, rx) = tokio::sync::oneshot::channel::<Result<Decision, EngineError>>();
    let spec: PlayerSpec = HINT_PLAYER
        .parse()
        .map_err(|e: EngineError| ApiError::Internal(e.to_string()))?;
    let to_move = position.to_move();
    app.pool
        .submit(Duration::ZERO, move || {
            let mut player = spec.build(id as u64);
            player.new_game();
            let mut progress = |_: &caro_engine::SearchInfo| {};
            let mut ctx = Context::new(Limits::time(HINT_TIME), StopFlag::new(), &mut progress);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                player.choose(&position, &mut ctx)
            }))
            .unwrap_or_else(|_| Err(EngineError::External("the hint's search crashed".into())));
            let _ = tx.send(result);
        })
        .map_err(|busy: Busy| ApiError::Busy(busy))?;
    let decision = rx
        .await
        .map_err(|_| ApiError::Internal("the hint's search ended without an answer".into()))?
        .map_err(|e| ApiError::Internal(format!("hint: {e}")))?;
    // Counted once the answer is there, if the game is still where it was.
    app.change(&entry, |g| {
        check(g, b.ply)?;
        g.hints += 1;
        g.touch();
        Ok::<_, ApiError>(())
    })
    .await?;
    let info = decision.info.as_ref();
    let score = info.map(|i| i.score);
    let pv: Vec<[u8; 2]> = match info {
        Some(i) if i.pv.first() == Some(&decision.best) => i.pv.iter().copied().map(xy).collect(),
        _ => vec![xy(decision.best)],
    };
    Ok(Json(json!({
        "move": xy(decision.best),
        "score": score.map(|s| match s {
            Score::Eval(v) => v.to_string(),
            other => other.to_string(),
        }),
        "win_chance": score.map(|s| black_chance(to_move, win_chance(s))),
        "pv": pv,
        "hints": entry.lock().hints,
    }))
    .into_response())
}
