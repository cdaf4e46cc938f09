//! Analysis against a real `caro serve` process: the live analysis socket
//! streams the top three moves and black's win chance as the engine
//! deepens, a new position replaces the old, bad input is answered with an
//! error code, a client runs two analyses at once, oversized, binary and
//! flooding messages close the socket; a finished game is reviewed through the API with one point
//! a position and its blunder marked, and the review is stored, so a
//! restarted server gives it back without computing it again; an online
//! game is not reviewed while it goes on.

mod common;

use std::time::{Duration, Instant};

use common::ws::Ws;
use common::{agent, get, post, Server};
use serde_json::{json, Value};
use tungstenite::Message;

/// Black's open three across the middle (columns 7 to 9 of row 7), white
/// two stones above it and a stone in a corner: black to move wins by the
/// open four at (6,7) or (10,7).
fn open_three() -> Value {
    json!([[7, 7], [7, 9], [8, 7], [8, 9], [9, 7], [0, 14]])
}

fn analyse(moves: &Value) -> Value {
    json!({"type": "analyse", "width": 15, "height": 15, "k": 5, "rule": "freestyle",
           "first": "black", "moves": moves, "lines": 3})
}

fn point(v: &Value) -> (u64, u64) {
    (v[0].as_u64().expect("x"), v[1].as_u64().expect("y"))
}

#[test]
fn the_live_socket_streams_three_lines_and_a_new_position_replaces_the_old() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut ws = Ws::analysis(&server);
    ws.send(&analyse(&open_three()));
    let full = ws
        .until(|m| m["type"] == "analysis" && m["lines"].as_array().is_some_and(|l| l.len() == 3));
    assert_eq!(full["ply"], 6);
    assert!(full["depth"].as_u64().is_some_and(|d| d >= 1), "{full}");
    assert!(full["nodes"].as_u64().is_some_and(|n| n > 0), "{full}");
    assert!(full["nps"].as_u64().is_some(), "{full}");
    assert_eq!(full["win_chance"], 1.0, "black wins by force: {full}");
    let lines = full["lines"].as_array().expect("lines");
    let mut moves: Vec<(u64, u64)> = lines.iter().map(|l| point(&l["move"])).collect();
    assert!(
        [(6, 7), (10, 7)].contains(&moves[0]),
        "the open four first: {full}"
    );
    assert!(lines[0]["score"]
        .as_str()
        .is_some_and(|s| s.starts_with("+W")));
    assert_eq!(lines[0]["win_chance"], 1.0);
    for line in lines {
        assert_eq!(line["pv"][0], line["move"], "a line starts with its move");
        let c = line["win_chance"].as_f64().expect("a chance");
        assert!((0.0..=1.0).contains(&c));
    }
    moves.sort_unstable();
    moves.dedup();
    assert_eq!(moves.len(), 3, "three distinct moves: {full}");

    // A new position (white to move, before black's third stone) replaces
    // the old: once its first lines come, nothing of the old follows.
    let before = json!([[7, 7], [7, 9], [8, 7], [8, 9]]);
    ws.send(&analyse(&before));
    ws.until(|m| m["type"] == "analysis" && m["ply"] == 4);
    ws.send(&json!({"type": "stop"}));
    ws.until_each(
        |m| {
            if m["type"] == "analysis" {
                assert_eq!(
                    m["ply"], 4,
                    "an old position's lines after the new one's: {m}"
                );
                let black = m["win_chance"].as_f64().expect("black's chance");
                assert!((0.0..=1.0).contains(&black), "{m}");
            }
        },
        |m| m["type"] == "done",
    );

    // A finished position: its result, no lines, done.
    let five = json!([
        [7, 7],
        [0, 0],
        [8, 7],
        [0, 1],
        [9, 7],
        [0, 2],
        [10, 7],
        [0, 3],
        [11, 7]
    ]);
    ws.send(&analyse(&five));
    let over = ws.until(|m| m["type"] == "analysis");
    assert_eq!(over["ply"], 9);
    assert_eq!(over["win_chance"], 1.0);
    assert_eq!(over["lines"], json!([]));
    assert_eq!(ws.next()["type"], "done");
}

#[test]
fn bad_input_on_the_live_socket_gets_an_error_code_and_the_socket_stays() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut ws = Ws::analysis(&server);
    let refusals = [
        (
            json!({"type": "analyse", "width": 61, "moves": []}),
            "bad_request",
        ),
        (
            json!({"type": "analyse", "width": 2, "moves": []}),
            "bad_request",
        ),
        (
            json!({"type": "analyse", "width": 15, "lines": 9, "moves": []}),
            "bad_request",
        ),
        (
            json!({"type": "analyse", "rule": "chess", "moves": []}),
            "bad_request",
        ),
        (
            json!({"type": "analyse", "moves": [[7, 7], [7, 7]]}),
            "occupied",
        ),
        (
            json!({"type": "analyse", "width": 9, "moves": [[9, 0]]}),
            "off_board",
        ),
        (json!({"type": "think"}), "bad_request"),
    ];
    for (message, code) in refusals {
        ws.send(&message);
        let answer = ws.next();
        assert_eq!(answer["type"], "error", "{message} → {answer}");
        assert_eq!(answer["code"], code, "{message} → {answer}");
        assert!(answer["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    ws.0.send(Message::text("{not json")).expect("send");
    assert_eq!(ws.next()["code"], "bad_json");
    // Still open, and analysing.
    ws.send(&analyse(&json!([[7, 7]])));
    let a = ws.until(|m| m["type"] == "analysis");
    assert_eq!(a["ply"], 1);
    ws.send(&json!({"type": "stop"}));
    ws.until(|m| m["type"] == "done");
}

#[test]
fn one_client_runs_two_live_analyses_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let mut sockets: Vec<Ws> = (0..3).map(|_| Ws::analysis(&server)).collect();
    for ws in &mut sockets[..2] {
        ws.send(&analyse(&json!([[7, 7]])));
        ws.until(|m| m["type"] == "analysis");
    }
    sockets[2].send(&analyse(&json!([[7, 7]])));
    let refused = sockets[2].next();
    assert_eq!(refused["type"], "error", "{refused}");
    assert_eq!(refused["code"], "busy", "{refused}");
    // A stopped analysis gives its place back.
    sockets[0].send(&json!({"type": "stop"}));
    sockets[0].until(|m| m["type"] == "done");
    sockets[2].send(&analyse(&json!([[7, 7]])));
    let a = sockets[2].next();
    assert_eq!(a["type"], "analysis", "{a}");
}

#[test]
fn the_live_socket_closes_on_oversized_binary_and_flooding_messages() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    // A message of 30 KiB is read (the game socket takes 4 KiB)…
    let mut ws = Ws::analysis(&server);
    let text = analyse(&json!([[7, 7]])).to_string();
    let padded = format!("{}{}}}", &text[..text.len() - 1], " ".repeat(30 * 1024));
    ws.0.send(Message::text(padded)).expect("send");
    let answer = ws.until(|m| m["type"] == "analysis" || m["type"] == "error");
    assert_eq!(answer["type"], "analysis", "{answer}");
    // …a message over 64 KiB does not.
    ws.0.send(Message::text(" ".repeat(70 * 1024)))
        .expect("send");
    assert_eq!(ws.closed().0, 1009);
    let mut ws = Ws::analysis(&server);
    ws.0.send(Message::binary(vec![1u8, 2, 3])).expect("send");
    assert_eq!(ws.closed().0, 1003);
    let mut ws = Ws::analysis(&server);
    for _ in 0..30 {
        if ws.0.send(Message::text(r#"{"type":"stop"}"#)).is_err() {
            break;
        }
    }
    assert_eq!(ws.closed().0, 1008);
}

/// Plays `moves` in a new game between two people; the game's id.
fn played_game(a: &ureq::Agent, server: &Server, moves: &[(u8, u8)]) -> i64 {
    let (status, view) = post(a, &server.url("/api/games"), &json!({"width": 15}));
    assert_eq!(status, 201, "{view}");
    let id = view["id"].as_i64().expect("id");
    for (ply, &(x, y)) in moves.iter().enumerate() {
        let (status, view) = post(
            a,
            &server.url(&format!("/api/games/{id}/move")),
            &json!({"ply": ply, "x": x, "y": y}),
        );
        assert_eq!(status, 200, "{view}");
    }
    id
}

/// Polls the game's analysis until it is done.
fn finished_analysis(a: &ureq::Agent, server: &Server, id: i64) -> Value {
    let started = Instant::now();
    loop {
        let (status, body) = get(a, &server.url(&format!("/api/games/{id}/analysis")));
        assert_eq!(status, 200, "{body}");
        if body["state"] == "done" {
            return body;
        }
        assert_eq!(body["state"], "running", "{body}");
        let done = body["done"].as_u64().expect("done");
        assert!(done <= body["total"].as_u64().expect("total"));
        assert_eq!(body["points"].as_array().map(Vec::len), Some(done as usize));
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the analysis never finished: {body}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_finished_game_is_analysed_once_with_its_blunder_marked_and_kept_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    // Black makes an open three; white's sixth move ignores it (a corner)
    // and black's open four wins.
    let moves = [
        (7, 7),
        (7, 9),
        (8, 7),
        (8, 9),
        (9, 7),
        (0, 14),
        (10, 7),
        (0, 13),
        (11, 7),
    ];
    let id = played_game(&a, &server, &moves);
    let (status, game) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(status, 200);
    assert!(!game["result"].is_null(), "black won: {game}");

    let url = server.url(&format!("/api/games/{id}/analysis"));
    let (status, none) = get(&a, &url);
    assert_eq!(status, 200);
    assert_eq!(none["state"], "none");
    assert_eq!(none["total"], 10);
    assert_eq!(none["points"], json!([]));

    let (status, started) = post(&a, &url, &json!({}));
    assert_eq!(status, 202, "{started}");
    assert_eq!(started["total"], 10);
    let review = finished_analysis(&a, &server, id);
    let points = review["points"].as_array().expect("points");
    assert_eq!(
        points.len(),
        moves.len() + 1,
        "one point a position: {review}"
    );
    for (ply, p) in points.iter().enumerate() {
        assert_eq!(p["ply"], ply);
        let c = p["win_chance"].as_f64().expect("a chance");
        assert!((0.0..=1.0).contains(&c));
    }
    assert_eq!(points[moves.len()]["win_chance"], 1.0, "black made five");
    let reviewed = review["moves"].as_array().expect("moves");
    assert_eq!(reviewed.len(), moves.len());
    let blunder = &reviewed[5];
    assert_eq!(blunder["ply"], 6);
    assert_eq!(blunder["move"], json!([0, 14]));
    assert_eq!(blunder["color"], "white");
    assert_eq!(blunder["mark"], "blunder", "{review}");
    assert!(blunder["loss"].as_f64().is_some_and(|l| l >= 0.3));
    assert!(
        [(6, 7), (10, 7)].contains(&point(&blunder["best"])),
        "{blunder}"
    );
    assert_eq!(blunder["best_line"][0], blunder["best"]);
    for m in reviewed {
        if m["ply"] != 6 {
            assert!(
                m["mark"] != "blunder",
                "only the planted blunder is one: {review}"
            );
        }
    }
    // Asked again: done already.
    let (status, again) = post(&a, &url, &json!({}));
    assert_eq!(status, 200);
    assert_eq!(again, review);

    // A restarted server gives the stored review back at once.
    let data = server.data.clone();
    server.kill();
    let server = Server::start(&data);
    let url = server.url(&format!("/api/games/{id}/analysis"));
    let (status, kept) = get(&a, &url);
    assert_eq!(status, 200);
    assert_eq!(kept, review);
    let (status, kept) = post(&a, &url, &json!({}));
    assert_eq!(status, 200, "not computed again");
    assert_eq!(kept, review);

    // Another game has none; no game is a 404 with its code.
    let other = played_game(&a, &server, &[(7, 7)]);
    let (status, body) = get(&a, &server.url(&format!("/api/games/{other}/analysis")));
    assert_eq!(status, 200);
    assert_eq!(body["state"], "none");
    assert_eq!(body["total"], 2);
    let (status, body) = post(&a, &server.url("/api/games/999999/analysis"), &json!({}));
    assert_eq!(status, 404);
    assert_eq!(body["code"], "not_found");
}

#[test]
fn an_online_game_in_progress_is_not_reviewed_for_its_players() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (status, body) = post(&a, &server.url("/api/online"), &json!({"width": 15}));
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_i64().expect("id");
    let url = server.url(&format!("/api/games/{id}/analysis"));
    let (status, err) = post(&a, &url, &json!({}));
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("online_in_progress")),
        "{err}"
    );
    // Once the game is over, it is.
    let token = body["black"]["token"].as_str().expect("black token");
    let mut res = a
        .post(server.url(&format!("/api/games/{id}/resign")))
        .header("Content-Type", "application/json")
        .header("X-Caro-Seat", token)
        .send("{}")
        .expect("resign");
    assert_eq!(res.status(), 200, "{:?}", res.body_mut().read_to_string());
    let (status, started) = post(&a, &url, &json!({}));
    assert!(status == 202 || status == 200, "{status} {started}");
}
