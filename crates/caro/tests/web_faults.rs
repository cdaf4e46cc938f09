//! Faults against a real `caro serve` process: restarts with clocks
//! running, a full engine pool, failed and slow writes.

mod common;

use std::time::{Duration, Instant};

use common::{agent, get, post, Server};
use serde_json::{json, Value};

/// POST a JSON value with a seat token, returning the status and body.
fn post_as(a: &ureq::Agent, url: &str, seat: &str, body: &Value) -> (u16, Value) {
    let mut res = a
        .post(url)
        .header("Content-Type", "application/json")
        .header("X-Caro-Seat", seat)
        .send(body.to_string())
        .expect("POST");
    let status = res.status().as_u16();
    let text = res.body_mut().read_to_string().expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// A new online game with these settings: (id, black token, white token).
fn online_game(a: &ureq::Agent, server: &Server, settings: &Value) -> (i64, String, String) {
    let (status, body) = post(a, &server.url("/api/online"), settings);
    assert_eq!(status, 201, "{body}");
    let token = |color: &str| body[color]["token"].as_str().expect("token").to_string();
    (
        body["id"].as_i64().expect("id"),
        token("black"),
        token("white"),
    )
}

/// A game's row in the list, which is read from the store (unlike a GET of
/// the game, it never loads the game nor starts a search).
fn listed(a: &ureq::Agent, server: &Server, id: i64) -> Value {
    let (status, list) = get(a, &server.url("/api/games?limit=1000"));
    assert_eq!(status, 200, "{list}");
    list.as_array()
        .expect("a list")
        .iter()
        .find(|g| g["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("game {id} is not listed: {list}"))
}

/// Issue 65, point 2: a clock that was running when the server stopped
/// runs again when it is back, from the time it had (the outage is not
/// charged), and runs out with nobody connected.
#[test]
fn a_running_clock_comes_back_after_a_restart_and_flags_with_nobody_connected() {
    let dir = tempfile::tempdir().unwrap();
    let a = agent();
    let server = Server::start(dir.path());
    let (id, black, _white) = online_game(
        &a,
        &server,
        &json!({"width": 15, "clock_seconds": 2, "increment_seconds": 0}),
    );
    let url = server.url(&format!("/api/games/{id}/move"));
    let (status, view) = post_as(&a, &url, &black, &json!({"ply": 0, "x": 7, "y": 7}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["clock"]["running"], "white", "{view}");
    server.kill();
    // Down for longer than white has.
    std::thread::sleep(Duration::from_millis(2500));
    let server = Server::start(dir.path());
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(view["result"], Value::Null, "lost to the outage: {view}");
    assert_eq!(view["clock"]["running"], "white", "{view}");
    let left = view["clock"]["white_ms"].as_u64().expect("white's time");
    assert!(left > 1000, "the outage was charged: {left} ms left");
    // Nobody connects; the flag falls and is stored by itself.
    let deadline = Instant::now() + Duration::from_secs(10);
    let row = loop {
        let row = listed(&a, &server, id);
        if row["result"] != Value::Null || Instant::now() > deadline {
            break row;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(row["result"], "black", "{row}");
    assert_eq!(row["ending"], "time white", "{row}");
    server.kill();
    let server = Server::start(dir.path());
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(view["result"]["reason"], "time", "{view}");
    assert_eq!(view["clock"]["white_ms"], 0, "{view}");
}

/// Issue 65, point 6: with one engine thread and no queue, two computers
/// play on by themselves. Each next move is refused while the search that
/// found it still holds the thread; the game waits for room and goes on
/// when it frees, without anyone asking for the game again.
#[test]
fn a_game_the_full_pool_refused_goes_on_by_itself_when_room_frees() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &["--threads", "1", "--queue", "0"]);
    let a = agent();
    let (status, view) = post(
        &a,
        &server.url("/api/games"),
        &json!({"black": "random", "white": "random", "time_ms": 50}),
    );
    assert_eq!(status, 201, "{view}");
    let id = view["id"].as_i64().expect("id");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        // The list is read from the store; it never starts a search.
        let row = listed(&a, &server, id);
        if row["ply"].as_u64() >= Some(4) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the game stalled while nobody asked for it: {row}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
