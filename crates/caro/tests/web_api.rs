//! The web app's API against a real `caro serve` process and a real SQLite
//! file: games played, refused requests that change nothing, computer
//! players, saving across a crash, PSQ and position codes.

mod common;

use std::time::{Duration, Instant};

use common::{agent, get, post, post_raw, send_in_pieces, Framing, Server};
use serde_json::{json, Value};

fn new_game(agent: &ureq::Agent, server: &Server, body: Value) -> Value {
    let (status, view) = post(agent, &server.url("/api/games"), &body);
    assert_eq!(status, 201, "{view}");
    view
}

fn play(agent: &ureq::Agent, server: &Server, id: i64, ply: usize, x: u8, y: u8) -> (u16, Value) {
    post(
        agent,
        &server.url(&format!("/api/games/{id}/move")),
        &json!({"ply": ply, "x": x, "y": y}),
    )
}

fn moves(view: &Value) -> Vec<(u64, u64)> {
    view["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| (m[0].as_u64().unwrap(), m[1].as_u64().unwrap()))
        .collect()
}

/// Polls the game until `done` holds (the engine answers in its own time).
fn wait_for(agent: &ureq::Agent, server: &Server, id: i64, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let (status, view) = get(agent, &server.url(&format!("/api/games/{id}")));
        assert_eq!(status, 200, "{view}");
        if done(&view) {
            return view;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the game never got there: {view}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn human_vs_human_won_by_five_and_nothing_after() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let id = new_game(
        &a,
        &server,
        json!({"black": "human", "white": "human", "width": 15}),
    )["id"]
        .as_i64()
        .unwrap();
    let mut view = Value::Null;
    for i in 0..9u8 {
        let (x, y) = if i % 2 == 0 {
            (3 + i / 2, 7)
        } else {
            (3 + i / 2, 9)
        };
        let (status, v) = play(&a, &server, id, i as usize, x, y);
        assert_eq!(status, 200, "{v}");
        view = v;
    }
    assert_eq!(view["result"]["winner"], "black");
    assert_eq!(view["result"]["reason"], "five");
    assert_eq!(view["result"]["line"].as_array().unwrap().len(), 5);
    let (status, err) = play(&a, &server, id, 9, 0, 0);
    assert_eq!(status, 409);
    assert_eq!(err["code"], "game_over");
    let (_, after) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(moves(&after).len(), 9);
    // The games page lists it, finished.
    let (_, list) = get(&a, &server.url("/api/games"));
    assert_eq!(list[0]["id"], id);
    assert_eq!(list[0]["result"], "black");
}

#[test]
fn bad_requests_get_clear_errors_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let url = server.url("/api/games");
    for (body, needle) in [
        (json!({"width": 2}), "width must be from 3 to 60"),
        (json!({"width": 61}), "width must be from 3 to 60"),
        (
            json!({"width": 15, "height": 100}),
            "height must be from 3 to 60",
        ),
        (json!({"width": 15, "k": 11}), "k must be from 3 to 10"),
        (json!({"width": 3, "k": 5}), ""),
        (json!({"rule": "chess"}), "chess"),
        (json!({"white": "deep-blue"}), "unknown player"),
        (json!({"white": "caro:11"}), "levels 1..=10"),
        (
            json!({"white": "pbrain:/bin/sh"}),
            "configured when the server starts",
        ),
        (
            json!({"rule": "renju", "first": "white"}),
            "black moves first",
        ),
        (json!({"opening": "swap9"}), "swap9"),
        (json!({"time_ms": 0, "white": "random"}), "time_ms"),
        (json!({"code": "v1.nonsense"}), "position code"),
    ] {
        let (status, err) = post(&a, &url, &body);
        assert_eq!(status, 400, "{body} -> {err}");
        assert!(
            err["error"].as_str().unwrap().contains(needle),
            "{body} -> {err}"
        );
    }
    let (status, err) = post(&a, &url, &json!({"colour": "blue"}));
    assert_eq!(status, 422, "{err}");
    assert!(err["error"]
        .as_str()
        .unwrap()
        .contains("unknown field `colour`"));
    let (status, err) = post_raw(&a, &url, "application/json", "{\"width\": 15,");
    assert_eq!(status, 400, "{err}");
    assert_eq!(err["code"], "bad_json");
    let (status, _) = post_raw(&a, &url, "text/plain", "{}");
    assert_eq!(status, 415);
    // A body over 256 KiB, sent in pieces as a busy machine would (with
    // its length declared, then chunked): the client reads the 413, the
    // connection is not reset under it.
    let huge = format!("{{\"black\": \"{}\"}}", "x".repeat(300 * 1024));
    for framing in [Framing::Length, Framing::Chunked] {
        let answer = send_in_pieces(
            &server,
            "POST /api/games HTTP/1.1\r\nHost: caro\r\nContent-Type: application/json\r\n",
            huge.as_bytes(),
            framing,
            8 * 1024,
            Duration::from_millis(2),
        );
        assert_eq!(answer.status, 413, "{framing:?}: {answer:?}");
        assert_eq!(answer.json()["code"], "too_large", "{framing:?}");
    }
    let (_, list) = get(&a, &url);
    assert_eq!(list, json!([]), "no game was created by a bad request");

    let (status, _) = get(&a, &server.url("/api/games/4242"));
    assert_eq!(status, 404);
    let (status, _) = play(&a, &server, 4242, 0, 1, 1);
    assert_eq!(status, 404);

    // Moves out of turn, on a stone, off the board, stale, malformed.
    let id = new_game(&a, &server, json!({"black": "human", "white": "human"}))["id"]
        .as_i64()
        .unwrap();
    assert_eq!(play(&a, &server, id, 0, 7, 7).0, 200);
    let (status, err) = play(&a, &server, id, 1, 7, 7);
    assert_eq!(
        (status, err["code"].as_str()),
        (422, Some("occupied")),
        "{err}"
    );
    let (status, err) = play(&a, &server, id, 1, 15, 3);
    assert_eq!(
        (status, err["code"].as_str()),
        (422, Some("off_board")),
        "{err}"
    );
    let (status, err) = play(&a, &server, id, 0, 8, 8);
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("stale")),
        "{err}"
    );
    let (status, err) = post(
        &a,
        &server.url(&format!("/api/games/{id}/move")),
        &json!({"ply": 1, "x": 300, "y": 1}),
    );
    assert_eq!(status, 422, "{err}");
    let (status, err) = post(
        &a,
        &server.url(&format!("/api/games/{id}/move")),
        &json!({"ply": 1}),
    );
    assert_eq!(status, 422, "{err}");
    let (status, err) = post(
        &a,
        &server.url(&format!("/api/games/{id}/redo")),
        &json!({}),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("nothing_to_redo"))
    );
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(moves(&view), vec![(7, 7)]);
    assert_eq!(view["to_move"], "white");
}

#[test]
fn renju_forbidden_point_is_refused_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let id = new_game(&a, &server, json!({"rule": "renju"}))["id"]
        .as_i64()
        .unwrap();
    // Black builds two threes crossing at (7,7); white plays far away.
    let line = [
        (5, 7),
        (0, 0),
        (6, 7),
        (0, 2),
        (7, 5),
        (0, 4),
        (7, 6),
        (0, 6),
    ];
    let mut view = Value::Null;
    for (i, &(x, y)) in line.iter().enumerate() {
        let (status, v) = play(&a, &server, id, i, x, y);
        assert_eq!(status, 200, "{v}");
        view = v;
    }
    assert!(
        view["forbidden"]
            .as_array()
            .unwrap()
            .contains(&json!([7, 7])),
        "{view}"
    );
    let (status, err) = play(&a, &server, id, 8, 7, 7);
    assert_eq!(
        (status, err["code"].as_str()),
        (422, Some("forbidden")),
        "{err}"
    );
    assert!(err["error"]
        .as_str()
        .unwrap()
        .contains("forbidden for black"));
    let (_, after) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(moves(&after).len(), 8);
}

#[test]
fn human_vs_computer_with_undo_and_redo() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let id = new_game(
        &a,
        &server,
        json!({"black": "human", "white": "caro:3", "time_ms": 100}),
    )["id"]
        .as_i64()
        .unwrap();
    assert_eq!(play(&a, &server, id, 0, 7, 7).0, 200);
    // While (or after) the computer thinks, it is not the person's turn.
    let (status, err) = play(&a, &server, id, 1, 0, 0);
    assert!(status == 409, "{err}");
    let view = wait_for(&a, &server, id, |v| v["ply"] == 2 && v["busy"] == false);
    let reply = moves(&view)[1];
    let (status, view) = post(
        &a,
        &server.url(&format!("/api/games/{id}/undo")),
        &json!({"ply": 2}),
    );
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["ply"], 0, "undo goes back to the person's move");
    let (status, view) = post(
        &a,
        &server.url(&format!("/api/games/{id}/redo")),
        &json!({"ply": 0}),
    );
    assert_eq!(status, 200, "{view}");
    assert_eq!(moves(&view), vec![(7, 7), reply]);
    assert_eq!(view["to_move"], "black");
    // Resigning ends it for the person.
    let (status, view) = post(
        &a,
        &server.url(&format!("/api/games/{id}/resign")),
        &json!({}),
    );
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["result"]["winner"], "white");
}

/// A finished game stays finished: undo is refused with 409 `game_over`
/// and changes nothing, whether the game ended on the board (tic-tac-toe
/// against `caro:1`, played to its end), by resignation, or between two
/// people; the games list still shows the result.
#[test]
fn undo_never_reopens_a_finished_game() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let undo =
        |id: i64, body: Value| post(&a, &server.url(&format!("/api/games/{id}/undo")), &body);
    let refused = |id: i64, ended: &Value| {
        for body in [json!({}), json!({"ply": ended["ply"]})] {
            let (status, err) = undo(id, body);
            assert_eq!(status, 409, "{err}");
            assert_eq!(err["code"], "game_over", "{err}");
        }
        let (_, after) = get(&a, &server.url(&format!("/api/games/{id}")));
        assert_eq!(after["moves"], ended["moves"]);
        assert_eq!(after["result"], ended["result"]);
        assert_eq!(after["version"], ended["version"], "nothing was stored");
    };

    // Against the computer, on the board: the person plays the first empty
    // point until the game ends (a win for either side or a full board).
    let id = new_game(
        &a,
        &server,
        json!({"black": "human", "white": "caro:1", "width": 3, "height": 3, "k": 3, "time_ms": 50}),
    )["id"]
        .as_i64()
        .unwrap();
    let ended = loop {
        let v = wait_for(&a, &server, id, |v| {
            !v["result"].is_null() || (v["to_move"] == "black" && v["busy"] == false)
        });
        if !v["result"].is_null() {
            break v;
        }
        let taken = moves(&v);
        let (x, y) = (0..3u8)
            .flat_map(|y| (0..3u8).map(move |x| (x, y)))
            .find(|&(x, y)| !taken.contains(&(u64::from(x), u64::from(y))))
            .expect("an empty point");
        let ply = v["ply"].as_u64().unwrap() as usize;
        assert_eq!(play(&a, &server, id, ply, x, y).0, 200);
    };
    refused(id, &ended);
    let (_, list) = get(&a, &server.url("/api/games"));
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == id)
        .expect("the game is listed")
        .clone();
    assert!(!row["result"].is_null(), "listed as finished: {row}");

    // A resignation against the computer.
    let id = new_game(
        &a,
        &server,
        json!({"black": "human", "white": "caro:1", "time_ms": 50}),
    )["id"]
        .as_i64()
        .unwrap();
    assert_eq!(play(&a, &server, id, 0, 7, 7).0, 200);
    wait_for(&a, &server, id, |v| v["ply"] == 2 && v["busy"] == false);
    let (status, ended) = post(
        &a,
        &server.url(&format!("/api/games/{id}/resign")),
        &json!({}),
    );
    assert_eq!(status, 200, "{ended}");
    refused(id, &ended);

    // Two people: five in a row.
    let id = new_game(&a, &server, json!({}))["id"].as_i64().unwrap();
    for (i, (x, y)) in [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (2, 0),
        (2, 1),
        (3, 0),
        (3, 1),
        (4, 0),
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(play(&a, &server, id, i, x, y).0, 200);
    }
    let (_, ended) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(ended["result"]["winner"], "black");
    refused(id, &ended);
}

#[test]
fn computer_vs_computer_plays_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let view = new_game(
        &a,
        &server,
        json!({"black": "caro:2", "white": "scoremap", "width": 9, "k": 4, "time_ms": 20}),
    );
    let id = view["id"].as_i64().unwrap();
    let (status, _) = post(
        &a,
        &server.url(&format!("/api/games/{id}/speed")),
        &json!({"delay_ms": 0}),
    );
    assert_eq!(status, 200);
    let end = wait_for(&a, &server, id, |v| !v["result"].is_null());
    assert!(moves(&end).len() >= 7, "{end}");
    // Pausing and stepping a finished game is refused clearly.
    let (status, err) = post(
        &a,
        &server.url(&format!("/api/games/{id}/step")),
        &json!({}),
    );
    assert_eq!((status, err["code"].as_str()), (409, Some("game_over")));
}

#[test]
fn a_killed_server_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let a = agent();
    let server = Server::start(dir.path());
    let id = new_game(&a, &server, json!({"width": 19}))["id"]
        .as_i64()
        .unwrap();
    for (i, (x, y)) in [(9, 9), (10, 10), (9, 10), (8, 8)].into_iter().enumerate() {
        assert_eq!(play(&a, &server, id, i, x, y).0, 200);
    }
    post(
        &a,
        &server.url(&format!("/api/games/{id}/undo")),
        &json!({}),
    );
    server.kill();

    let server = Server::start(dir.path());
    let (status, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(status, 200, "{view}");
    assert_eq!(moves(&view), vec![(9, 9), (10, 10), (9, 10)]);
    assert_eq!(view["redo"], json!([[8, 8]]));
    assert_eq!(view["width"], 19);
    let (status, view) = post(
        &a,
        &server.url(&format!("/api/games/{id}/redo")),
        &json!({"ply": 3}),
    );
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["ply"], 4);
}

#[test]
fn psq_and_position_codes_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let view = new_game(
        &a,
        &server,
        json!({"width": 20, "height": 12, "rule": "caro"}),
    );
    let id = view["id"].as_i64().unwrap();
    for (i, (x, y)) in [(9, 5), (10, 6), (11, 7)].into_iter().enumerate() {
        assert_eq!(play(&a, &server, id, i, x, y).0, 200);
    }
    let mut res = a
        .get(&server.url(&format!("/api/games/{id}/psq")))
        .call()
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let psq = res.body_mut().read_to_string().unwrap();
    let (status, imported) = post_raw(&a, &server.url("/api/import"), "text/plain", &psq);
    assert_eq!(status, 201, "{imported}");
    assert_eq!(moves(&imported), vec![(9, 5), (10, 6), (11, 7)]);
    assert_eq!(
        (imported["width"].clone(), imported["height"].clone()),
        (json!(20), json!(12))
    );

    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    let code = view["code"].as_str().unwrap().to_string();
    let opened = new_game(&a, &server, json!({"code": code}));
    assert_eq!(moves(&opened), vec![(9, 5), (10, 6), (11, 7)]);
    assert_eq!(opened["rule"], "caro");

    let (status, err) = post_raw(&a, &server.url("/api/import"), "text/plain", "hello\n");
    assert_eq!(status, 400, "{err}");
    assert!(err["error"].as_str().unwrap().starts_with("PSQ"));
}

#[test]
fn a_full_engine_pool_says_so_and_stop_always_works() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &["--threads", "1", "--queue", "0"]);
    let a = agent();
    // A minute-long search holds the only engine thread.
    let long = new_game(&a, &server, json!({"black": "caro:10", "time_ms": 60000}));
    let long_id = long["id"].as_i64().unwrap();
    assert_eq!(long["busy"], true, "{long}");
    let (status, err) = post(&a, &server.url("/api/games"), &json!({"black": "caro:3"}));
    assert_eq!((status, err["code"].as_str()), (503, Some("busy")), "{err}");
    assert!(err["error"].as_str().unwrap().contains("busy"));
    // Human games need no engine.
    new_game(&a, &server, json!({}));
    // Stop: the engine plays its best move so far, and the thread is free.
    let (status, _) = post(
        &a,
        &server.url(&format!("/api/games/{long_id}/stop")),
        &json!({}),
    );
    assert_eq!(status, 200);
    wait_for(&a, &server, long_id, |v| {
        v["ply"] == 1 && v["busy"] == false
    });
    let start = Instant::now();
    loop {
        let (status, v) = post(
            &a,
            &server.url("/api/games"),
            &json!({"black": "caro:3", "time_ms": 50}),
        );
        if status == 201 {
            break;
        }
        assert_eq!(status, 503, "{v}");
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the pool never freed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
