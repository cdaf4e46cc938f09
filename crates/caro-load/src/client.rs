//! One seat's WebSocket client: plays random legal moves, measures its
//! latencies, and reconnects to the next live instance when its socket
//! drops, as a reverse proxy that fails over would.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use crate::LoadError;

/// A client that has seen no game update for this long reconnects.
const STALL: Duration = Duration::from_secs(30);

/// A client that finds no instance to connect to for this long gives up.
const GIVE_UP: Duration = Duration::from_secs(60);

/// The wait between two rounds of connection attempts.
const RETRY: Duration = Duration::from_millis(200);

/// A point of the board, `(x, y)`.
pub type Point = (u64, u64);

/// The send times of a game's moves, for the opponent's ("cross") latency:
/// ply → (the mover's seat, when it sent the move).
#[derive(Default)]
pub struct GameClock {
    sent: Mutex<HashMap<usize, (u8, Instant)>>,
}

impl GameClock {
    fn sent(&self, ply: usize, seat: u8, at: Instant) {
        let mut sent = self.sent.lock().unwrap_or_else(|e| e.into_inner());
        sent.insert(ply, (seat, at));
    }

    /// The send time of the opponent's move at `ply`, taken once.
    fn take_other(&self, ply: usize, me: u8) -> Option<Instant> {
        let mut sent = self.sent.lock().unwrap_or_else(|e| e.into_inner());
        match sent.get(&ply) {
            Some(&(seat, at)) if seat != me => {
                sent.remove(&ply);
                Some(at)
            }
            _ => None,
        }
    }
}

/// Counters all clients share.
#[derive(Default)]
pub struct Counters {
    /// Acknowledged moves.
    pub moves: AtomicU64,
    /// Connections made again after a drop.
    pub reconnects: AtomicU64,
}

/// How a client holds its seat.
#[derive(Clone)]
pub enum Auth {
    /// A seat token (`?seat=`).
    Seat(String),
    /// An account's session (the `caro_session` cookie): a seat bound to
    /// the account, in a game made from a seek.
    Session(String),
}

/// One seat's client: where it connects and how it plays.
pub struct ClientPlan {
    /// Every instance's `host:port`.
    pub addrs: Arc<Vec<String>>,
    /// The instance tried first.
    pub home: usize,
    pub id: i64,
    /// How the client holds its seat.
    pub auth: Auth,
    /// `"black"` or `"white"`, as the views name the side to move.
    pub me: &'static str,
    /// 0 for the first seat, 1 for the second.
    pub seat: u8,
    pub size: u8,
    pub think: Duration,
    pub seed: u64,
    pub clock: Arc<GameClock>,
    pub counters: Arc<Counters>,
}

/// What one client saw.
#[derive(Default)]
pub struct ClientEnd {
    /// A move sent until the update holding it came back to this socket.
    pub own: Vec<Duration>,
    /// The opponent's move sent until the update holding it reached this socket.
    pub cross: Vec<Duration>,
    /// The moves of the last view.
    pub moves: Vec<Point>,
    /// This client's moves it saw stored: (ply, point).
    pub acked: Vec<(usize, Point)>,
    /// Moves first seen in the view a reconnection brought (either
    /// player's), sent until then: kept out of `own` and `cross`.
    pub failover: Vec<Duration>,
    /// Refused commands (`{"t":"error"}`).
    pub errors: u64,
    /// Connections made again after a drop or a refused command.
    pub reconnects: u64,
    /// Times no update came for [`STALL`].
    pub stalls: u64,
    /// Moves in flight when their connection dropped, found stored after
    /// the reconnection.
    pub in_flight_stored: u64,
    /// Moves in flight when their connection dropped, found not stored.
    pub in_flight_lost: u64,
    /// The client saw the game end.
    pub finished: bool,
    /// Why each connection but the last ended.
    pub drops: Vec<String>,
    /// Why the client gave up, if it did.
    pub failure: Option<String>,
}

/// The moves of a view or a stored game, `[[x, y], ...]`.
pub fn parse_moves(moves: &Value) -> Option<Vec<Point>> {
    moves
        .as_array()?
        .iter()
        .map(|m| Some((m.get(0)?.as_u64()?, m.get(1)?.as_u64()?)))
        .collect()
}

fn empty_points(moves: &[Point], size: u8) -> Vec<(u8, u8)> {
    let side = size as usize;
    let mut taken = vec![false; side * side];
    for &(x, y) in moves {
        if (x as usize) < side && (y as usize) < side {
            taken[y as usize * side + x as usize] = true;
        }
    }
    (0..size)
        .flat_map(|y| (0..size).map(move |x| (x, y)))
        .filter(|&(x, y)| !taken[y as usize * side + x as usize])
        .collect()
}

/// A move sent whose fate is not known yet.
struct Sent {
    ply: usize,
    point: Point,
    at: Instant,
    /// Its connection dropped before the answer came.
    dropped: bool,
}

type Socket = WebSocketStream<TcpStream>;

async fn connect(addr: &str, id: i64, auth: &Auth) -> Result<Socket, LoadError> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let request = match auth {
        Auth::Seat(token) => format!("ws://{addr}/api/games/{id}/ws?seat={token}")
            .into_client_request()
            .map_err(|e| LoadError::Socket(e.to_string()))?,
        Auth::Session(token) => {
            let mut request = format!("ws://{addr}/api/games/{id}/ws")
                .into_client_request()
                .map_err(|e| LoadError::Socket(e.to_string()))?;
            let cookie = format!("caro_session={token}").parse().map_err(
                |e: tokio_tungstenite::tungstenite::http::header::InvalidHeaderValue| {
                    LoadError::Socket(e.to_string())
                },
            )?;
            request.headers_mut().insert("cookie", cookie);
            request
        }
    };
    // Small read buffers: the default 128 KiB is zeroed on every read.
    let config = WebSocketConfig::default().read_buffer_size(4096);
    let (ws, _) = tokio_tungstenite::client_async_with_config(request, stream, Some(config))
        .await
        .map_err(|e| LoadError::Socket(e.to_string()))?;
    Ok(ws)
}

/// Connects to the first instance that answers, starting at `*at` and
/// going round the list; `*at` becomes the one connected to.
async fn connect_any(plan: &ClientPlan, at: &mut usize) -> Result<Socket, LoadError> {
    let deadline = Instant::now() + GIVE_UP;
    let n = plan.addrs.len();
    loop {
        let mut last = None;
        for k in 0..n {
            let i = (*at + k) % n;
            match connect(&plan.addrs[i], plan.id, &plan.auth).await {
                Ok(ws) => {
                    *at = i;
                    return Ok(ws);
                }
                Err(e) => last = Some(e),
            }
        }
        if Instant::now() >= deadline {
            return Err(last.unwrap_or_else(|| LoadError::Socket("no instance".into())));
        }
        tokio::time::sleep(RETRY).await;
    }
}

/// Why a connection ended.
enum Ended {
    /// The game is over.
    Finished,
    /// The socket dropped, or the client wants a fresh view: why.
    Again(String),
}

/// Plays one seat to the end of the game, reconnecting as needed.
pub async fn client(plan: ClientPlan) -> ClientEnd {
    let mut end = ClientEnd::default();
    let mut rng = StdRng::seed_from_u64(plan.seed);
    let mut unsure: Vec<Sent> = Vec::new();
    let mut seen = 0usize;
    let mut at = plan.home;
    let mut first = true;
    loop {
        let ws = match connect_any(&plan, &mut at).await {
            Ok(ws) => ws,
            Err(e) => {
                end.failure = Some(format!("game {}: {e}", plan.id));
                return end;
            }
        };
        let reconnected = !first;
        if reconnected {
            end.reconnects += 1;
            plan.counters.reconnects.fetch_add(1, Ordering::Relaxed);
        }
        first = false;
        match play(
            &plan,
            ws,
            reconnected,
            &mut rng,
            &mut unsure,
            &mut seen,
            &mut end,
        )
        .await
        {
            Ok(Ended::Finished) => {
                end.finished = true;
                return end;
            }
            Ok(Ended::Again(why)) => {
                end.drops.push(why);
                for s in &mut unsure {
                    s.dropped = true;
                }
            }
            Err(e) => {
                end.failure = Some(format!("game {}: {e}", plan.id));
                return end;
            }
        }
    }
}

/// Plays over one connection until the game ends or the socket drops.
/// On a connection made again after a drop (`reconnected`), the moves its
/// first view brings are timed apart, as [`ClientEnd::failover`].
async fn play(
    plan: &ClientPlan,
    mut ws: Socket,
    reconnected: bool,
    rng: &mut StdRng,
    unsure: &mut Vec<Sent>,
    seen: &mut usize,
    end: &mut ClientEnd,
) -> Result<Ended, LoadError> {
    // Waiting for the answer to a move sent over this connection.
    let mut waiting = false;
    let mut last_view = Instant::now();
    let mut first_view = true;
    loop {
        let next = tokio::time::timeout_at((last_view + STALL).into(), ws.next()).await;
        let msg = match next {
            Err(_) => {
                end.stalls += 1;
                return Ok(Ended::Again(format!("no update for {} s", STALL.as_secs())));
            }
            Ok(None) => return Ok(Ended::Again("the socket ended".into())),
            Ok(Some(Err(e))) => return Ok(Ended::Again(e.to_string())),
            Ok(Some(Ok(msg))) => msg,
        };
        let text = match msg {
            Message::Text(text) => text,
            Message::Close(frame) => {
                let why = frame.map_or_else(
                    || "closed by the server".to_string(),
                    |f| format!("closed by the server: {} {}", u16::from(f.code), f.reason),
                );
                return Ok(Ended::Again(why));
            }
            _ => continue,
        };
        let view: Value =
            serde_json::from_str(text.as_str()).map_err(|e| LoadError::Socket(e.to_string()))?;
        match view["t"].as_str() {
            Some("game") => {}
            Some("error") => {
                // The view this client acted on is not the game's: read
                // the game again over a new connection.
                end.errors += 1;
                let _ = ws.close(None).await;
                return Ok(Ended::Again(format!(
                    "refused: {}",
                    view["code"].as_str().unwrap_or("?")
                )));
            }
            _ => continue,
        }
        last_view = Instant::now();
        let failover = reconnected && first_view;
        let opening = !reconnected && first_view;
        first_view = false;
        let moves = parse_moves(&view["moves"])
            .ok_or_else(|| LoadError::Socket(format!("game {}: a view without moves", plan.id)))?;
        for ply in *seen..moves.len() {
            if let Some(sent) = plan.clock.take_other(ply, plan.seat) {
                // A move already made when this client first connected
                // timed its connecting, not the update: left out.
                if failover {
                    end.failover.push(sent.elapsed());
                } else if !opening {
                    end.cross.push(sent.elapsed());
                }
            }
        }
        *seen = (*seen).max(moves.len());
        // Settle every sent move the game has reached: stored at its ply
        // (acknowledged) or not stored there.
        unsure.retain(|s| {
            if s.ply >= moves.len() {
                return true;
            }
            let stored = moves[s.ply] == s.point;
            if stored {
                end.acked.push((s.ply, s.point));
                if failover {
                    end.failover.push(s.at.elapsed());
                } else {
                    end.own.push(s.at.elapsed());
                }
                plan.counters.moves.fetch_add(1, Ordering::Relaxed);
            }
            if s.dropped {
                if stored {
                    end.in_flight_stored += 1;
                } else {
                    end.in_flight_lost += 1;
                }
            }
            false
        });
        if waiting && !unsure.iter().any(|s| s.ply >= moves.len()) {
            waiting = false;
        }
        end.moves = moves;
        if !view["result"].is_null() {
            let _ = ws.close(None).await;
            return Ok(Ended::Finished);
        }
        let ply = view["ply"].as_u64().unwrap_or(end.moves.len() as u64) as usize;
        if view["to_move"] == plan.me && !waiting {
            let empty = empty_points(&end.moves, plan.size);
            if empty.is_empty() {
                continue;
            }
            let (x, y) = empty[rng.random_range(0..empty.len())];
            tokio::time::sleep(plan.think).await;
            let command = json!({"t": "move", "ply": ply, "x": x, "y": y}).to_string();
            let now = Instant::now();
            plan.clock.sent(ply, plan.seat, now);
            unsure.push(Sent {
                ply,
                point: (u64::from(x), u64::from(y)),
                at: now,
                dropped: false,
            });
            waiting = true;
            if let Err(e) = ws.send(Message::text(command)).await {
                return Ok(Ended::Again(format!("sending: {e}")));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_parsed() {
        assert_eq!(
            parse_moves(&json!([[7, 7], [8, 9]])),
            Some(vec![(7, 7), (8, 9)])
        );
        assert_eq!(parse_moves(&json!([])), Some(vec![]));
        assert_eq!(parse_moves(&json!([[7]])), None);
        assert_eq!(parse_moves(&Value::Null), None);
    }

    #[test]
    fn empty_points_leave_out_the_stones() {
        let empty = empty_points(&[(0, 0), (2, 1)], 3);
        assert_eq!(empty.len(), 7);
        assert!(!empty.contains(&(0, 0)));
        assert!(!empty.contains(&(2, 1)));
        assert!(empty.contains(&(1, 1)));
    }

    #[test]
    fn the_opponent_takes_a_send_time_once_the_mover_never() {
        let clock = GameClock::default();
        let t = Instant::now();
        clock.sent(3, 0, t);
        assert_eq!(clock.take_other(3, 0), None);
        assert_eq!(clock.take_other(3, 1), Some(t));
        assert_eq!(clock.take_other(3, 1), None);
    }
}
