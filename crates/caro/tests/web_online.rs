//! Play a friend online, against a real `caro serve` process: two seats
//! play over WebSockets, spectators watch, intruders and stale commands are
//! refused, dropped connections come back to the whole game, abusive
//! sockets are closed while the others carry on, and a Soosõrv-8 game
//! whose every phase is taken only from the right seat.

mod common;

use std::time::Duration;

use common::ws::Ws;
use common::{agent, get, post, Server};
use serde_json::{json, Value};
use tungstenite::Message;

/// A new online game: (id, black token, white token, the whole answer).
fn online_game(a: &ureq::Agent, server: &Server) -> (i64, String, String, Value) {
    let (status, body) = post(a, &server.url("/api/online"), &json!({"width": 15}));
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_i64().expect("id");
    let black = body["black"]["token"]
        .as_str()
        .expect("black token")
        .to_string();
    let white = body["white"]["token"]
        .as_str()
        .expect("white token")
        .to_string();
    (id, black, white, body)
}

fn mv(ply: u64, x: u8, y: u8) -> Value {
    json!({"t": "move", "ply": ply, "x": x, "y": y})
}

#[test]
fn two_seats_play_to_a_win_while_a_spectator_watches() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (id, bt, wt, created) = online_game(&a, &server);
    assert_eq!(bt.len(), 32, "128-bit hex tokens");
    assert_ne!(bt, wt);
    assert_eq!(created["black"]["url"], format!("/game/{id}?seat={bt}"));
    assert_eq!(created["spectator"], format!("/game/{id}?watch"));
    assert_eq!(created["game"]["online"], true);

    let mut black = Ws::game(&server, id, Some(&bt));
    let mut white = Ws::game(&server, id, Some(&wt));
    let mut watcher = Ws::game(&server, id, None);
    for (ws, you) in [
        (&mut black, "black"),
        (&mut white, "white"),
        (&mut watcher, "spectator"),
    ] {
        let first = ws.next();
        assert_eq!(first["t"], "game");
        assert_eq!(first["you"], you);
        assert_eq!(first["ply"], 0);
    }
    for i in 0..5u8 {
        let ply = u64::from(i) * 2;
        black.send(&mv(ply, i, 7));
        white.at_ply(ply + 1);
        if i == 4 {
            break;
        }
        white.send(&mv(ply + 1, i, 8));
        black.at_ply(ply + 2);
    }
    let end = watcher.at_ply(9);
    assert_eq!(end["result"]["winner"], "black", "{end}");
    assert_eq!(end["result"]["reason"], "five");
    let end = black.at_ply(9);
    assert_eq!(end["you"], "black");

    // The stored game says the same, and no view ever shows a token.
    let (status, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(status, 200);
    assert_eq!(view["result"]["winner"], "black");
    let text = view.to_string();
    assert!(!text.contains(&bt) && !text.contains(&wt), "{text}");
    assert!(!end.to_string().contains(&bt));
}

#[test]
fn spectators_and_forged_tokens_cannot_move() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (id, bt, wt, _) = online_game(&a, &server);
    let forged = "0".repeat(32);

    let mut watcher = Ws::game(&server, id, None);
    assert_eq!(watcher.next()["you"], "spectator");
    watcher.send(&mv(0, 7, 7));
    assert_eq!(watcher.error()["code"], "not_a_player");

    let mut intruder = Ws::game(&server, id, Some(&forged));
    assert_eq!(intruder.next()["you"], "spectator");
    intruder.send(&mv(0, 7, 7));
    assert_eq!(intruder.error()["code"], "not_a_player");
    intruder.send(&json!({"t": "resign"}));
    assert_eq!(intruder.error()["code"], "not_a_player");

    // Only the seat to move may move.
    let mut white = Ws::game(&server, id, Some(&wt));
    assert_eq!(white.next()["you"], "white");
    white.send(&mv(0, 7, 7));
    assert_eq!(white.error()["code"], "not_your_turn");

    // Over HTTP an online game needs the seat's token in X-Caro-Seat.
    let url = server.url(&format!("/api/games/{id}/move"));
    let body = json!({"ply": 0, "x": 7, "y": 7}).to_string();
    let send = |token: Option<&str>| {
        let mut req = a.post(&url).header("Content-Type", "application/json");
        if let Some(t) = token {
            req = req.header("X-Caro-Seat", t);
        }
        let mut res = req.send(&body).expect("POST");
        let status = res.status().as_u16();
        let text = res.body_mut().read_to_string().expect("body");
        (status, serde_json::from_str::<Value>(&text).expect("JSON"))
    };
    let (status, err) = send(None);
    assert_eq!(
        (status, err["code"].as_str()),
        (403, Some("not_a_player")),
        "{err}"
    );
    let (status, _) = send(Some(&forged));
    assert_eq!(status, 403);
    let (status, err) = send(Some(&wt));
    assert_eq!((status, err["code"].as_str()), (409, Some("not_your_turn")));
    let (status, _) = post(
        &a,
        &server.url(&format!("/api/games/{id}/undo")),
        &json!({}),
    );
    assert_eq!(status, 409, "undo is a takeback request online");
    let (status, _) = post(
        &a,
        &server.url(&format!("/api/games/{id}/resign")),
        &json!({}),
    );
    assert_eq!(status, 403);
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(view["ply"], 0, "nothing was played: {view}");

    let (status, view) = send(Some(&bt));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["ply"], 1);
    // The sockets hear about the HTTP move too.
    assert_eq!(watcher.at_ply(1)["moves"], json!([[7, 7]]));
}

#[test]
fn a_stale_ply_is_refused_and_not_played() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (id, bt, wt, _) = online_game(&a, &server);
    let mut black = Ws::game(&server, id, Some(&bt));
    let mut white = Ws::game(&server, id, Some(&wt));
    black.next();
    white.next();
    black.send(&mv(0, 7, 7));
    black.at_ply(1);
    // A double click: the same ply again.
    black.send(&mv(0, 8, 8));
    let err = black.error();
    assert_eq!(err["code"], "stale", "{err}");
    white.send(&mv(0, 8, 8));
    assert_eq!(white.error()["code"], "stale");
    white.send(&mv(1, 6, 6));
    let view = black.at_ply(2);
    assert_eq!(view["moves"], json!([[7, 7], [6, 6]]));
}

#[test]
fn a_dropped_connection_reconnects_to_the_whole_game_even_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (id, bt, wt, _) = online_game(&a, &server);
    let mut black = Ws::game(&server, id, Some(&bt));
    let mut white = Ws::game(&server, id, Some(&wt));
    black.next();
    white.next();
    black.send(&mv(0, 7, 7));
    white.at_ply(1);
    drop(black);
    white.send(&mv(1, 8, 8));
    white.at_ply(2);
    let mut black = Ws::game(&server, id, Some(&bt));
    let first = black.next();
    assert_eq!(first["you"], "black");
    assert_eq!(first["ply"], 2);
    assert_eq!(first["moves"], json!([[7, 7], [8, 8]]));
    drop(black);
    drop(white);

    // The seats are stored: a restarted server still knows them.
    server.kill();
    let server = Server::start(dir.path());
    let mut black = Ws::game(&server, id, Some(&bt));
    let first = black.next();
    assert_eq!(
        (first["you"].as_str(), first["ply"].as_u64()),
        (Some("black"), Some(2))
    );
    black.send(&mv(2, 9, 9));
    black.at_ply(3);
}

#[test]
fn oversize_malformed_and_flooding_sockets_are_closed_and_the_server_carries_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (id, bt, wt, _) = online_game(&a, &server);
    let mut white = Ws::game(&server, id, Some(&wt));
    white.next();

    let mut big = Ws::game(&server, id, Some(&bt));
    big.next();
    big.0
        .send(Message::text(format!(
            "{{\"t\":\"resign\",\"pad\":\"{}\"}}",
            "x".repeat(5000)
        )))
        .expect("send");
    let (code, reason) = big.closed();
    assert_eq!(code, 1009, "{reason}");
    assert!(reason.contains("4096"), "{reason}");

    let mut bad = Ws::game(&server, id, Some(&bt));
    bad.next();
    bad.0.send(Message::text("{not json")).expect("send");
    let (code, reason) = bad.closed();
    assert_eq!(code, 1007, "{reason}");
    assert!(reason.contains("malformed"), "{reason}");

    let mut unknown = Ws::game(&server, id, None);
    unknown.next();
    unknown.send(&json!({"t": "teleport"}));
    assert_eq!(unknown.closed().0, 1007);

    let mut flood = Ws::game(&server, id, None);
    flood.next();
    for _ in 0..40 {
        if flood
            .0
            .send(Message::text(r#"{"t":"draw-accept"}"#))
            .is_err()
        {
            break;
        }
    }
    let (code, reason) = flood.closed();
    assert_eq!(code, 1008, "{reason}");

    // Nobody resigned, and the others play on.
    let mut black = Ws::game(&server, id, Some(&bt));
    assert_eq!(black.next()["result"], Value::Null);
    black.send(&mv(0, 7, 7));
    assert_eq!(white.at_ply(1)["moves"], json!([[7, 7]]));
    let (status, _) = get(&a, &server.url("/api/players"));
    assert_eq!(status, 200);
}

#[test]
fn huge_frames_bad_utf8_and_ping_floods_get_a_close_frame() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (id, bt, _, _) = online_game(&a, &server);

    // Over 64 KiB: read whole, then refused.
    let mut big = Ws::game(&server, id, Some(&bt));
    big.next();
    big.0
        .send(Message::text("x".repeat(100 * 1024)))
        .expect("send");
    assert_eq!(big.closed().0, 1009);

    // Over the WebSocket layer's own limit: refused before it is read.
    let mut huge = Ws::game(&server, id, None);
    huge.next();
    // The server may close before the whole frame is written.
    let _ = huge.0.send(Message::binary(vec![b'x'; 2 * 1024 * 1024]));
    assert_eq!(huge.closed().0, 1009);

    // A text frame that is not UTF-8.
    let mut bad = Ws::game(&server, id, None);
    bad.next();
    let frame = tungstenite::protocol::frame::Frame::message(
        vec![b'{', 0xff, 0xfe, b'}'],
        tungstenite::protocol::frame::coding::OpCode::Data(
            tungstenite::protocol::frame::coding::Data::Text,
        ),
        true,
    );
    bad.0.send(Message::Frame(frame)).expect("send");
    let (code, reason) = bad.closed();
    assert_eq!(code, 1007, "{reason}");

    // Pings count toward the message rate.
    let mut pings = Ws::game(&server, id, None);
    pings.next();
    for _ in 0..40 {
        if pings.0.send(Message::Ping(Default::default())).is_err() {
            break;
        }
    }
    assert_eq!(pings.closed().0, 1008);

    // The game and the server carry on.
    let mut black = Ws::game(&server, id, Some(&bt));
    assert_eq!(black.next()["result"], Value::Null);
    black.send(&mv(0, 7, 7));
    black.at_ply(1);
}

#[test]
fn sockets_are_pinged_and_a_silent_one_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &["--ws-ping", "200ms"]);
    let a = agent();
    let (id, bt, _, _) = online_game(&a, &server);

    // A page that reads answers the pings (tungstenite queues each pong and
    // sends it on the next read) and stays open well past the timeout.
    let mut live = Ws::game(&server, id, Some(&bt));
    live.next();
    live.set_read_timeout(Duration::from_millis(100));
    let mut pings = 0;
    let start = std::time::Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        match live.0.read() {
            Ok(Message::Ping(_)) => pings += 1,
            Ok(Message::Close(frame)) => panic!("a live socket was closed: {frame:?}"),
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => panic!("a live socket failed: {e}"),
        }
    }
    assert!(pings >= 3, "{pings} pings in 2 s at one every 200 ms");

    // A page that never reads never answers: it is taken for dead.
    let mut silent = Ws::game(&server, id, None);
    std::thread::sleep(Duration::from_millis(1500));
    let (code, reason) = silent.closed();
    assert_eq!(code, 1001, "{reason}");
}

#[test]
fn takebacks_are_asked_and_answered() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (id, bt, wt, _) = online_game(&a, &server);
    let mut black = Ws::game(&server, id, Some(&bt));
    let mut white = Ws::game(&server, id, Some(&wt));
    black.next();
    white.next();
    black.send(&mv(0, 7, 7));
    white.at_ply(1);
    white.send(&mv(1, 8, 8));
    black.at_ply(2);
    black.send(&mv(2, 9, 9));
    white.at_ply(3);

    // White asks to take back its move; black's reply goes back too.
    white.send(&json!({"t": "takeback", "ply": 3}));
    let asked = black.until(|m| m["t"] == "game" && m["offers"]["takeback"] != Value::Null);
    assert_eq!(
        asked["offers"]["takeback"],
        json!({"by": "white", "ply": 3})
    );
    // The asker cannot accept its own request; a stale answer is refused.
    white.send(&json!({"t": "takeback-accept", "ply": 3}));
    assert_eq!(white.error()["code"], "no_offer");
    black.send(&json!({"t": "takeback-accept", "ply": 2}));
    assert_eq!(black.error()["code"], "stale");
    black.send(&json!({"t": "takeback-accept", "ply": 3}));
    let back = white.at_ply(1);
    assert_eq!(back["moves"], json!([[7, 7]]));
    assert_eq!(back["to_move"], "white");
    assert_eq!(back["offers"]["takeback"], Value::Null);

    // Declined: nothing changes.
    white.send(&mv(1, 6, 6));
    black.at_ply(2);
    black.send(&json!({"t": "takeback", "ply": 2}));
    white.until(|m| m["t"] == "game" && m["offers"]["takeback"]["by"] == "black");
    white.send(&json!({"t": "takeback-decline"}));
    let declined = black.until(|m| m["t"] == "game" && m["offers"]["takeback"] == Value::Null);
    assert_eq!(declined["ply"], 2);
}

#[test]
fn a_draw_agreed_then_a_rematch_with_colours_swapped() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (id, bt, wt, _) = online_game(&a, &server);
    let mut black = Ws::game(&server, id, Some(&bt));
    let mut white = Ws::game(&server, id, Some(&wt));
    black.next();
    white.next();
    black.send(&json!({"t": "draw-accept"}));
    assert_eq!(black.error()["code"], "no_offer");
    black.send(&json!({"t": "draw-offer"}));
    white.until(|m| m["t"] == "game" && m["offers"]["draw"] == "black");
    white.send(&json!({"t": "draw-accept"}));
    let drawn = black.until(|m| m["t"] == "game" && m["result"] != Value::Null);
    assert_eq!(drawn["result"]["reason"], "agreed");
    assert_eq!(drawn["result"]["winner"], Value::Null);

    black.send(&json!({"t": "rematch"}));
    white.until(|m| m["t"] == "game" && m["offers"]["rematch"] == json!(["black"]));
    white.send(&json!({"t": "rematch"}));
    let to_black = black.until(|m| m["t"] == "rematch");
    let to_white = white.until(|m| m["t"] == "rematch");
    assert_eq!(to_black["id"], to_white["id"]);
    assert_ne!(to_black["id"], id);
    assert_eq!(to_black["you"], "white");
    assert_eq!(to_white["you"], "black");
    let new_id = to_black["id"].as_i64().expect("id");
    let new_black = to_white["seat"].as_str().expect("token");
    let mut next = Ws::game(&server, new_id, Some(new_black));
    let first = next.next();
    assert_eq!(
        (first["you"].as_str(), first["ply"].as_u64()),
        (Some("black"), Some(0))
    );
    // The old tokens do not sit in the new game.
    let mut old = Ws::game(&server, new_id, Some(&bt));
    assert_eq!(old.next()["you"], "spectator");
}

#[test]
fn a_client_may_keep_only_so_many_online_games_open() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let mut first = None;
    for _ in 0..20 {
        let game = online_game(&a, &server);
        first.get_or_insert(game);
    }
    let (status, err) = post(&a, &server.url("/api/online"), &json!({}));
    assert_eq!(
        (status, err["code"].as_str()),
        (429, Some("too_many_games")),
        "{err}"
    );
    // Finishing one makes room.
    let (id, bt, _, _) = first.expect("a game");
    let mut res = a
        .post(server.url(&format!("/api/games/{id}/resign")))
        .header("Content-Type", "application/json")
        .header("X-Caro-Seat", &bt)
        .send("{}")
        .expect("POST");
    assert_eq!(
        res.status().as_u16(),
        200,
        "{:?}",
        res.body_mut().read_to_string()
    );
    let (status, _) = post(&a, &server.url("/api/online"), &json!({}));
    assert_eq!(status, 201);
    // Computer players are refused.
    let (status, _) = post(&a, &server.url("/api/online"), &json!({"white": "caro:1"}));
    assert_eq!(status, 400);
}

#[test]
fn the_side_to_move_loses_on_time() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (status, body) = post(
        &a,
        &server.url("/api/online"),
        &json!({"width": 15, "clock_seconds": 1, "increment_seconds": 0}),
    );
    assert_eq!(status, 201, "{body}");
    let clock = &body["game"]["clock"];
    assert_eq!(
        (clock["black_ms"].as_u64(), clock["running"].as_str()),
        (Some(1000), None),
        "the clock starts with the first move: {clock}"
    );
    let id = body["id"].as_i64().expect("id");
    let bt = body["black"]["token"].as_str().expect("token");
    let wt = body["white"]["token"].as_str().expect("token");
    let mut black = Ws::game(&server, id, Some(bt));
    let mut white = Ws::game(&server, id, Some(wt));
    black.next();
    white.next();
    black.send(&mv(0, 7, 7));
    let started = white.at_ply(1);
    assert_eq!(started["clock"]["running"], "white", "{started}");
    // White never answers: the server ends the game by itself.
    let over = black.until(|m| m["t"] == "game" && m["result"] != Value::Null);
    assert_eq!(over["result"]["reason"], "time", "{over}");
    assert_eq!(over["result"]["winner"], "black");
    assert_eq!(over["clock"]["white_ms"], 0);
    assert_eq!(over["clock"]["running"], Value::Null);
    white.send(&mv(1, 8, 8));
    assert_eq!(white.error()["code"], "game_over");
    // Stored: a restarted server says the same.
    drop((black, white));
    server.kill();
    let server = Server::start(dir.path());
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(view["result"]["reason"], "time", "{view}");

    // Clocks are for online games, and within limits.
    let (status, _) = post(&a, &server.url("/api/games"), &json!({"clock_seconds": 60}));
    assert_eq!(status, 400);
    let (status, _) = post(
        &a,
        &server.url("/api/online"),
        &json!({"clock_seconds": 999_999}),
    );
    assert_eq!(status, 400);
}

/// A decision sent over the socket.
fn decide(ply: u64, choice: &str) -> Value {
    json!({"t": "choose", "choice": choice, "ply": ply})
}

/// Sends `message` from `ws` and checks it is refused with `code` and a
/// sentence saying why.
fn refused_on(ws: &mut Ws, message: &Value, code: &str) {
    ws.send(message);
    let e = ws.error();
    assert_eq!(e["code"], code, "{message} → {e}");
    assert!(
        e["error"].as_str().is_some_and(|text| !text.is_empty()),
        "{e}"
    );
}

/// Reads each seat's messages until the game is at `ply` with a turn
/// holding every field of `turn`; the last view of the second seat.
fn both_at(first: &mut Ws, second: &mut Ws, ply: u64, turn: &Value) -> Value {
    let wanted = turn.as_object().expect("an object").clone();
    let done = |m: &Value| {
        m["t"] == "game" && m["ply"] == ply && wanted.iter().all(|(k, v)| m["turn"][k] == *v)
    };
    first.until(done);
    second.until(done)
}

#[test]
fn soosorv8_online_takes_each_phase_only_from_the_right_seat() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (status, body) = post(
        &a,
        &server.url("/api/online"),
        &json!({"width": 15, "rule": "renju", "opening": "soosorv8"}),
    );
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_i64().expect("id");
    // Under a swap opening `black` is the seat that opens.
    let token = |seat: &str| body[seat]["token"].as_str().expect("token").to_string();
    let mut first = Ws::game(&server, id, Some(&token("black")));
    let mut second = Ws::game(&server, id, Some(&token("white")));
    assert_eq!(first.next()["seat"], "first");
    assert_eq!(second.next()["seat"], "second");

    // The first seat places the three canonical stones: h8 i8 j8.
    refused_on(&mut second, &mv(0, 7, 7), "not_your_turn");
    for (ply, x) in [(0, 7), (1, 8), (2, 9)] {
        if ply == 1 {
            refused_on(&mut second, &mv(1, 8, 7), "not_your_turn");
        }
        first.send(&mv(ply, x, 7));
        if ply < 2 {
            both_at(
                &mut first,
                &mut second,
                ply + 1,
                &json!({"kind": "move", "seat": "first"}),
            );
        }
    }
    let v = both_at(
        &mut first,
        &mut second,
        3,
        &json!({"kind": "choose", "seat": "second"}),
    );
    assert_eq!(v["turn"]["options"], json!(["take-black", "take-white"]));

    // The tentative white may swap: only the second seat. It swaps.
    refused_on(&mut first, &decide(3, "take-white"), "not_your_choice");
    refused_on(&mut first, &mv(3, 3, 7), "not_your_turn");
    refused_on(&mut second, &mv(3, 3, 7), "must_choose");
    refused_on(&mut second, &decide(2, "take-black"), "stale");
    second.send(&decide(3, "take-black"));
    both_at(
        &mut first,
        &mut second,
        3,
        &json!({"kind": "move", "seat": "first", "color": "white"}),
    );

    // White (now the first seat) places the 4th stone, d8.
    refused_on(&mut second, &mv(3, 3, 7), "not_your_turn");
    first.send(&mv(3, 3, 7));
    both_at(
        &mut first,
        &mut second,
        4,
        &json!({"kind": "choose", "seat": "second"}),
    );

    // Black (the second seat) may swap, and keeps black.
    refused_on(&mut first, &decide(4, "take-white"), "not_your_choice");
    second.send(&decide(4, "take-black"));
    let v = both_at(&mut first, &mut second, 4, &json!({"kind": "choose"}));
    assert_eq!(v["turn"]["seat"], "second", "{v}");
    assert_eq!(v["turn"]["options"].as_array().map(Vec::len), Some(8));

    // Black declares two 5th moves: only the second seat.
    refused_on(&mut first, &decide(4, "offers-2"), "not_your_choice");
    refused_on(&mut second, &decide(4, "offers-9"), "no_choice");
    second.send(&decide(4, "offers-2"));
    both_at(
        &mut first,
        &mut second,
        4,
        &json!({"kind": "choose", "seat": "first", "options": ["take-black", "take-white"]}),
    );

    // White (the first seat) may swap, and keeps white.
    refused_on(&mut second, &decide(4, "take-white"), "not_your_choice");
    first.send(&decide(4, "take-white"));
    both_at(
        &mut first,
        &mut second,
        4,
        &json!({"kind": "offer", "seat": "second", "made": 0, "total": 2}),
    );

    // Black offers i9 and g7; the first seat cannot offer for it.
    refused_on(&mut first, &mv(4, 8, 6), "not_your_turn");
    second.send(&mv(4, 8, 6));
    both_at(
        &mut first,
        &mut second,
        4,
        &json!({"kind": "offer", "seat": "second", "made": 1}),
    );
    refused_on(&mut second, &mv(4, 8, 8), "bad_offer"); // i7 mirrors i9
    second.send(&mv(4, 6, 8));
    let v = both_at(
        &mut first,
        &mut second,
        4,
        &json!({"kind": "pick", "seat": "first"}),
    );
    assert_eq!(v["fifth_offers"], json!([[8, 6], [6, 8]]));

    // White picks the 5th move: only the first seat.
    refused_on(&mut second, &mv(4, 8, 6), "not_your_turn");
    refused_on(&mut first, &mv(4, 0, 0), "not_an_offer");
    first.send(&mv(4, 8, 6));
    let v = both_at(
        &mut first,
        &mut second,
        5,
        &json!({"kind": "move", "seat": "first", "color": "white"}),
    );
    assert_eq!(v["moves"][4], json!([8, 6]));
    assert_eq!(v["you"], "black", "the second seat swapped to black");

    // The 6th move is white's: the first seat's, not the second's.
    refused_on(&mut second, &mv(5, 10, 4), "not_your_turn");
    first.send(&mv(5, 10, 4));
    let v = both_at(
        &mut first,
        &mut second,
        6,
        &json!({"kind": "move", "seat": "second", "color": "black"}),
    );
    assert_eq!(v["moves"][5], json!([10, 4]));
    refused_on(&mut first, &mv(6, 0, 0), "not_your_turn");
    second.send(&mv(6, 0, 0));
    first.at_ply(7);

    // The stored game keeps the decisions and offers.
    let (status, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(status, 200);
    assert_eq!(view["opening"], "soosorv8");
    assert_eq!(
        view["code"],
        "v1.15x15.5.renju.soosorv8-bbCw-IGGI.b.HHIHJHDHIGKEAA"
    );
}
