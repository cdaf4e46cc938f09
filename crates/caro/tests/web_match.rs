//! Swap openings, matches and hints against a real `caro serve` process:
//! swap2 with a person choosing and with a computer opening and deciding,
//! a first-to-2 match against `random` played through the API, an online
//! swap1 game and an online match's next game over two WebSockets, the
//! refusals with their codes, and the match and swap state after a restart.

mod common;

use std::time::{Duration, Instant};

use common::ws::Ws;
use common::{agent, get, post, post_raw, Server};
use serde_json::{json, Value};

fn url(server: &Server, id: i64, what: &str) -> String {
    server.url(&format!("/api/games/{id}/{what}"))
}

fn new_game(a: &ureq::Agent, server: &Server, body: Value) -> Value {
    let (status, view) = post(a, &server.url("/api/games"), &body);
    assert_eq!(status, 201, "{view}");
    view
}

fn id_of(view: &Value) -> i64 {
    view["id"].as_i64().expect("an id")
}

fn play(a: &ureq::Agent, server: &Server, id: i64, ply: u64, x: u64, y: u64) -> (u16, Value) {
    post(
        a,
        &url(server, id, "move"),
        &json!({"ply": ply, "x": x, "y": y}),
    )
}

fn choose(a: &ureq::Agent, server: &Server, id: i64, ply: u64, choice: &str) -> (u16, Value) {
    post(
        a,
        &url(server, id, "choose"),
        &json!({"ply": ply, "choice": choice}),
    )
}

fn view(a: &ureq::Agent, server: &Server, id: i64) -> Value {
    let (status, view) = get(a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(status, 200, "{view}");
    view
}

/// Polls the game until `done` holds (computers answer in their own time).
fn wait_for(a: &ureq::Agent, server: &Server, id: i64, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let v = view(a, server, id);
        if done(&v) {
            return v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the game never got there: {v}"
        );
        std::thread::sleep(Duration::from_millis(30));
    }
}

fn ply(v: &Value) -> u64 {
    v["ply"].as_u64().expect("ply")
}

/// Whether a person must act now.
fn persons_turn(v: &Value) -> bool {
    let Some(seat) = v["turn"]["seat"].as_str() else {
        return false;
    };
    let i = usize::from(seat == "second");
    v["seats"][i]["name"] == "human"
}

/// The expected error: status and code.
fn refused(answer: (u16, Value), status: u16, code: &str) {
    assert_eq!(answer.0, status, "{}", answer.1);
    assert_eq!(answer.1["code"], code, "{}", answer.1);
}

/// The person plays a five against `random`: a row with none of the
/// opponent's stones, filled from the left; another row once it is
/// blocked. Returns the finished view.
fn win_against_random(a: &ureq::Agent, server: &Server, id: i64) -> Value {
    loop {
        let v = wait_for(a, server, id, |v| {
            !v["result"].is_null() || (persons_turn(v) && !v["busy"].as_bool().unwrap_or(false))
        });
        if !v["result"].is_null() {
            return v;
        }
        let me = v["turn"]["color"].as_str().expect("a colour").to_string();
        let width = v["width"].as_u64().unwrap();
        let height = v["height"].as_u64().unwrap();
        let moves = v["moves"].as_array().unwrap();
        let first_black = v["first"] == "black";
        let mut mine = Vec::new();
        let mut theirs = Vec::new();
        for (i, m) in moves.iter().enumerate() {
            let p = (m[0].as_u64().unwrap(), m[1].as_u64().unwrap());
            let black = (i % 2 == 0) == first_black;
            if (me == "black") == black {
                mine.push(p);
            } else {
                theirs.push(p);
            }
        }
        let row = (0..height)
            .find(|&y| theirs.iter().all(|p| p.1 != y))
            .expect("a free row");
        let x = (0..width)
            .find(|&x| !mine.contains(&(x, row)))
            .expect("room in the row");
        let (status, answer) = play(a, server, id, ply(&v), x, row);
        assert_eq!(status, 200, "{answer}");
    }
}

#[test]
fn swap2_with_a_person_choosing_and_with_a_computer_opening_and_deciding() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();

    // Two people: the first seat places three stones, the second places
    // two more, the first takes white.
    let v = new_game(
        &a,
        &server,
        json!({"black": "human", "white": "human", "opening": "swap2"}),
    );
    let id = id_of(&v);
    assert_eq!(v["opening"], "swap2");
    assert_eq!(v["seats"][0], json!({"name": "human", "color": null}));
    assert_eq!(
        v["turn"],
        json!({"kind": "move", "seat": "first", "color": "black"})
    );
    refused(choose(&a, &server, id, 0, "take-black"), 409, "no_choice");
    for (i, (x, y)) in [(7, 7), (8, 8), (6, 8)].into_iter().enumerate() {
        assert_eq!(play(&a, &server, id, i as u64, x, y).0, 200);
    }
    let v = view(&a, &server, id);
    assert_eq!(
        v["turn"],
        json!({"kind": "choose", "seat": "second", "options": ["take-black", "take-white", "place-two"]})
    );
    refused(play(&a, &server, id, 3, 0, 0), 409, "must_choose");
    refused(choose(&a, &server, id, 2, "place-two"), 409, "stale");
    refused(choose(&a, &server, id, 3, "take-red"), 400, "bad_request");
    let (status, v) = choose(&a, &server, id, 3, "place-two");
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        v["turn"],
        json!({"kind": "move", "seat": "second", "color": "white"})
    );
    assert_eq!(play(&a, &server, id, 3, 0, 0).0, 200);
    assert_eq!(play(&a, &server, id, 4, 14, 14).0, 200);
    let (status, v) = choose(&a, &server, id, 5, "take-white");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["seats"][0]["color"], "white");
    assert_eq!(v["seats"][1]["color"], "black");
    assert_eq!(v["opening_stones"], 5);
    assert_eq!(
        v["turn"],
        json!({"kind": "move", "seat": "first", "color": "white"})
    );
    refused(
        post(&a, &url(&server, id, "undo"), &json!({"ply": 5})),
        409,
        "nothing_to_undo",
    );

    // A computer opens; the person takes black and the computer (white)
    // moves on.
    let v = new_game(
        &a,
        &server,
        json!({"black": "random", "white": "human", "opening": "swap2", "time_ms": 50}),
    );
    let id = id_of(&v);
    let v = wait_for(&a, &server, id, |v| v["turn"]["kind"] == "choose");
    assert_eq!(ply(&v), 3);
    assert_eq!(v["seats"][0]["name"], "random");
    let (status, v) = choose(&a, &server, id, 3, "take-black");
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["seats"][1]["color"], "black");
    assert_eq!(v["black"], "human");
    assert_eq!(v["white"], "random");
    wait_for(&a, &server, id, |v| ply(v) == 4);

    // caro:1 opens and decides after the person places two more.
    let v = new_game(
        &a,
        &server,
        json!({"black": "caro:1", "white": "human", "opening": "swap2", "time_ms": 100}),
    );
    let id = id_of(&v);
    let v = wait_for(&a, &server, id, |v| v["turn"]["kind"] == "choose");
    assert_eq!(v["turn"]["seat"], "second");
    assert_eq!(choose(&a, &server, id, 3, "place-two").0, 200);
    let stones: Vec<Value> = v["moves"].as_array().unwrap().clone();
    let free: Vec<(u64, u64)> = (0..15u64)
        .flat_map(|y| (0..15u64).map(move |x| (x, y)))
        .filter(|&(x, y)| !stones.contains(&json!([x, y])))
        .take(2)
        .collect();
    assert_eq!(play(&a, &server, id, 3, free[0].0, free[0].1).0, 200);
    assert_eq!(play(&a, &server, id, 4, free[1].0, free[1].1).0, 200);
    let v = wait_for(&a, &server, id, |v| v["seats"][0]["color"] != Value::Null);
    let opener = v["seats"][0]["color"].as_str().unwrap().to_string();
    // The computer's evaluation stays after its decision.
    let chance = v["evaluation"]["win_chance"]
        .as_f64()
        .expect("an evaluation");
    assert!((0.0..=1.0).contains(&chance), "{v}");
    assert_ne!(v["seats"][1]["color"], opener.as_str());
    assert_eq!(v["turn"]["kind"], "move");
    assert_eq!(v["opening_stones"], 5);

    // A person opens swap1; caro:1, in the second seat, decides by itself.
    let v = new_game(
        &a,
        &server,
        json!({"black": "human", "white": "caro:1", "opening": "swap1", "time_ms": 100}),
    );
    let other = id_of(&v);
    for (i, (x, y)) in [(7, 7), (8, 8), (7, 9)].into_iter().enumerate() {
        assert_eq!(play(&a, &server, other, i as u64, x, y).0, 200);
    }
    let v = wait_for(&a, &server, other, |v| {
        v["seats"][1]["color"] != Value::Null
    });
    assert_ne!(v["seats"][0]["color"], v["seats"][1]["color"]);

    // The swap state survives a restart.
    server.kill();
    let server = Server::start(dir.path());
    let back = view(&a, &server, id);
    assert_eq!(back["seats"][0]["color"], opener.as_str());
    assert_eq!(back["opening"], "swap2");
    assert!(ply(&back) >= 5);
}

#[test]
fn a_first_to_2_match_against_random_with_next_games_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let g1 = new_game(
        &a,
        &server,
        json!({"black": "human", "white": "random", "first_to": 2, "time_ms": 20}),
    );
    let id1 = id_of(&g1);
    let m = &g1["match"];
    assert_eq!(m["first_to"], 2);
    assert_eq!(m["players"], json!(["human", "random"]));
    assert_eq!(m["score"], json!([0, 0]));
    assert_eq!(
        (m["game"].clone(), m["games"].clone()),
        (json!(1), json!([id1]))
    );
    refused(
        post(&a, &url(&server, id1, "next"), &json!({})),
        409,
        "game_not_over",
    );

    let done = win_against_random(&a, &server, id1);
    assert_eq!(done["result"]["winner"], "black", "{done}");
    assert_eq!(done["result"]["reason"], "five");
    assert_eq!(done["match"]["score"], json!([1, 0]));
    assert_eq!(done["match"]["over"], false);

    let (status, g2) = post(&a, &url(&server, id1, "next"), &json!({}));
    assert_eq!(status, 201, "{g2}");
    let id2 = id_of(&g2);
    // B opens game 2: random plays black.
    assert_eq!(
        (g2["black"].clone(), g2["white"].clone()),
        (json!("random"), json!("human"))
    );
    assert_eq!(g2["match"]["game"], 2);
    assert_eq!(g2["match"]["games"], json!([id1, id2]));
    assert_eq!(g2["match"]["score"], json!([1, 0]));
    // Asking again gives the same game.
    let (status, again) = post(&a, &url(&server, id1, "next"), &json!({}));
    assert_eq!((status, id_of(&again)), (200, id2));
    assert_eq!(view(&a, &server, id1)["match"]["next"], id2);

    let done = win_against_random(&a, &server, id2);
    assert_eq!(done["result"]["winner"], "white", "{done}");
    let m = &done["match"];
    assert_eq!(m["score"], json!([2, 0]));
    assert_eq!(
        (m["over"].clone(), m["winner"].clone()),
        (json!(true), json!(0))
    );
    refused(
        post(&a, &url(&server, id2, "next"), &json!({})),
        409,
        "match_over",
    );

    // The list names the match and the reasons.
    let (_, list) = get(&a, &server.url("/api/games"));
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id2)
        .expect("game 2 listed")
        .clone();
    assert_eq!(row["match"], g1["match"]["id"]);
    assert_eq!(row["game_no"], 2);
    assert_eq!(row["reason"], "five");
    assert_eq!(row["online"], false);

    server.kill();
    let server = Server::start(dir.path());
    let back = view(&a, &server, id2);
    assert_eq!(back["match"]["score"], json!([2, 0]));
    assert_eq!(back["match"]["games"], json!([id1, id2]));
    assert_eq!(back["match"]["over"], true);
    let first = view(&a, &server, id1);
    assert_eq!(first["match"]["next"], id2);
    assert_eq!(first["match"]["score"], json!([1, 0]));
}

/// Plays `moves` (x, y) in game `id` from ply 0; returns the last view.
fn play_all(a: &ureq::Agent, server: &Server, id: i64, moves: &[(u64, u64)]) -> Value {
    let mut last = Value::Null;
    for (ply, &(x, y)) in (0u64..).zip(moves) {
        let (status, v) = play(a, server, id, ply, x, y);
        assert_eq!(status, 200, "{v}");
        last = v;
    }
    last
}

/// First to 2 between two people on tic-tac-toe: A wins game 1, game 2 is
/// drawn, B wins game 3. That is 2 × 2 − 1 games, the most the match
/// lasts, so it is over and drawn 1–1: the view says so with each game's
/// result, and no next game is made.
#[test]
fn a_match_ends_drawn_after_its_last_game() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let g1 = new_game(
        &a,
        &server,
        json!({"black": "human", "white": "human", "width": 3, "height": 3, "k": 3, "first_to": 2}),
    );
    let id1 = id_of(&g1);
    assert_eq!(g1["match"]["max_games"], 3);
    assert_eq!(g1["match"]["results"], json!([]));
    let v = play_all(&a, &server, id1, &[(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]);
    assert_eq!(v["result"]["winner"], "black");
    assert_eq!(
        v["match"]["score"],
        json!([1, 0]),
        "the game just ended counts"
    );
    assert_eq!(v["match"]["results"], json!([0]));
    assert_eq!(v["match"]["over"], false);

    let (status, g2) = post(&a, &url(&server, id1, "next"), &json!({}));
    assert_eq!(status, 201, "{g2}");
    let id2 = id_of(&g2);
    assert_eq!(g2["match"]["results"], json!([0]));
    let drawn: Vec<(u64, u64)> = common::DRAWN_TICTACTOE
        .iter()
        .map(|&(x, y)| (u64::from(x), u64::from(y)))
        .collect();
    let v = play_all(&a, &server, id2, &drawn);
    assert_eq!(v["result"]["reason"], "draw", "{v}");
    assert_eq!(v["match"]["results"], json!([0, null]));
    assert_eq!(v["match"]["draws"], 1);
    assert_eq!(v["match"]["over"], false);

    let (status, g3) = post(&a, &url(&server, id2, "next"), &json!({}));
    assert_eq!(status, 201, "{g3}");
    let id3 = id_of(&g3);
    assert_eq!(g3["match"]["game"], 3);
    let v = play_all(
        &a,
        &server,
        id3,
        &[(0, 0), (0, 1), (2, 2), (1, 1), (0, 2), (2, 1)],
    );
    assert_eq!(v["result"]["winner"], "white", "{v}");
    let m = &v["match"];
    assert_eq!(m["score"], json!([1, 1]));
    assert_eq!(m["draws"], 1);
    assert_eq!(m["results"], json!([0, null, 1]));
    assert_eq!(m["over"], true, "{m}");
    assert_eq!(m["winner"], Value::Null, "a drawn match");
    assert_eq!(m["next"], Value::Null);
    refused(
        post(&a, &url(&server, id3, "next"), &json!({})),
        409,
        "match_over",
    );
    // Every game of the match now shows the same end once reloaded.
    let again = view(&a, &server, id3);
    assert_eq!(again["match"], v["match"]);
    // A finished match game is not taken back.
    refused(
        post(&a, &url(&server, id3, "undo"), &json!({})),
        409,
        "game_over",
    );
}

#[test]
fn bad_inputs_are_refused_with_their_codes() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    for body in [
        json!({"opening": "swap3"}),
        json!({"first_to": 0}),
        json!({"first_to": 11}),
        json!({"opening": "swap2", "first": "white"}),
    ] {
        refused(
            post(&a, &server.url("/api/games"), &body),
            400,
            "bad_request",
        );
    }
    refused(
        post(&a, &server.url("/api/online"), &json!({"first_to": 11})),
        400,
        "bad_request",
    );
    let id = id_of(&new_game(&a, &server, json!({})));
    refused(choose(&a, &server, id, 0, "take-black"), 409, "no_choice");
    refused(
        post(&a, &url(&server, id, "next"), &json!({})),
        409,
        "no_match",
    );
    refused(
        post(&a, &url(&server, id, "hint"), &json!({"ply": 0})),
        409,
        "no_hint",
    );

    // A hint on the person's move against the computer, counted and kept.
    let id = id_of(&new_game(
        &a,
        &server,
        json!({"black": "human", "white": "random"}),
    ));
    refused(
        post(&a, &url(&server, id, "hint"), &json!({"ply": 1})),
        409,
        "stale",
    );
    let (status, hint) = post(&a, &url(&server, id, "hint"), &json!({"ply": 0}));
    assert_eq!(status, 200, "{hint}");
    assert_eq!(hint["move"].as_array().map(Vec::len), Some(2));
    let chance = hint["win_chance"].as_f64().expect("a win chance");
    assert!((0.0..=1.0).contains(&chance), "{hint}");
    assert!(!hint["pv"].as_array().unwrap().is_empty());
    assert_eq!(view(&a, &server, id)["hints"], 1);

    // Unknown pages are the app's page with 404; the API's stay JSON.
    let mut res = a.get(&server.url("/no/such/page")).call().unwrap();
    assert_eq!(res.status().as_u16(), 404);
    assert!(res.body_mut().read_to_string().unwrap().contains("<html"));
    refused(get(&a, &server.url("/api/no-such")), 404, "not_found");

    // An imported PSQ keeps the names its file carries.
    let psq = "Piskvorky 15x15, 11:11, 0\n8,8,0\n9,9,0\n-1\npela.zip\nyixin.zip\n0\n";
    let (status, imported) = post_raw(&a, &server.url("/api/import"), "text/plain", psq);
    assert_eq!(status, 201, "{imported}");
    assert_eq!(imported["names"], json!(["pela.zip", "yixin.zip"]));
    let (_, list) = get(&a, &server.url("/api/games"));
    assert_eq!(list[0]["black"], "pela.zip");

    server.kill();
    let server = Server::start(dir.path());
    assert_eq!(view(&a, &server, id)["hints"], 1);
}

fn online(a: &ureq::Agent, server: &Server, body: Value) -> (i64, String, String) {
    let (status, created) = post(a, &server.url("/api/online"), &body);
    assert_eq!(status, 201, "{created}");
    let token = |c: &str| created[c]["token"].as_str().expect("a token").to_string();
    (id_of(&created), token("black"), token("white"))
}

#[test]
fn online_swap1_and_an_online_match_agreed_game_by_game() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();

    let (id, first, second) = online(&a, &server, json!({"opening": "swap1"}));
    let mut one = Ws::game(&server, id, Some(&first));
    let mut two = Ws::game(&server, id, Some(&second));
    let hello = two.until(|m| m["t"] == "game");
    assert_eq!(
        (hello["you"].clone(), hello["seat"].clone()),
        (json!("white"), json!("second"))
    );
    for (i, (x, y)) in [(7u64, 7u64), (8, 8), (9, 7)].into_iter().enumerate() {
        one.send(&json!({"t": "move", "ply": i, "x": x, "y": y}));
        one.at_ply(i as u64 + 1);
    }
    two.send(&json!({"t": "move", "ply": 3, "x": 0, "y": 0}));
    assert_eq!(two.error()["code"], "must_choose");
    one.send(&json!({"t": "choose", "ply": 3, "choice": "take-white"}));
    assert_eq!(one.error()["code"], "not_your_choice");
    // The contract's spelling of the tag is taken too.
    two.send(&json!({"type": "choose", "ply": 3, "choice": "take-black"}));
    let chosen = two.until(|m| m["t"] == "game" && m["seats"][1]["color"] == "black");
    assert_eq!(chosen["you"], "black");
    assert_eq!(
        chosen["turn"],
        json!({"kind": "move", "seat": "first", "color": "white"})
    );
    one.send(&json!({"t": "move", "ply": 3, "x": 3, "y": 3}));
    let moved = two.at_ply(4);
    assert_eq!(moved["to_move"], "black");
    drop((one, two));

    // A first-to-2 match: both ask, the next game is the match's, the
    // other player opens.
    let (id, ta, tb) = online(&a, &server, json!({"first_to": 2}));
    let mut pa = Ws::game(&server, id, Some(&ta));
    let mut pb = Ws::game(&server, id, Some(&tb));
    let mut watcher = Ws::game(&server, id, None);
    pa.until(|m| m["t"] == "game");
    // Each page knows whether the other player is there.
    pb.until(|m| m["t"] == "game" && m["connected"] == json!({"black": true, "white": true}));
    pa.send(&json!({"t": "draw-offer"}));
    pb.until(|m| m["t"] == "game" && m["offers"]["draw"] == "black");
    pb.send(&json!({"t": "draw-decline"}));
    pa.until(|m| m["t"] == "game" && m["offers"]["draw"].is_null());
    pa.send(&json!({"t": "resign"}));
    let over = pb.until(|m| m["t"] == "game" && !m["result"].is_null());
    assert_eq!(over["match"]["score"], json!([0, 1]));
    pa.send(&json!({"t": "rematch"}));
    pb.until(|m| m["t"] == "game" && m["offers"]["rematch"] == json!(["black"]));
    pb.send(&json!({"t": "rematch"}));
    let to_a = pa.until(|m| m["t"] == "rematch");
    let to_b = pb.until(|m| m["t"] == "rematch");
    assert_eq!(to_a["id"], to_b["id"]);
    assert_eq!(
        (to_a["you"].clone(), to_b["you"].clone()),
        (json!("white"), json!("black"))
    );
    // The spectator is taken to the next game too.
    let to_watcher = watcher.until(|m| m["t"] == "rematch");
    assert_eq!(to_watcher["id"], to_a["id"]);
    assert_eq!(to_watcher["you"], "spectator");
    drop(pa);
    pb.until(|m| m["t"] == "game" && m["connected"]["black"] == false);
    let next = to_a["id"].as_i64().unwrap();
    let mut pb2 = Ws::game(&server, next, to_b["seat"].as_str());
    let first = pb2.until(|m| m["t"] == "game");
    assert_eq!(first["you"], "black");
    assert_eq!(first["match"]["game"], 2);
    assert_eq!(first["match"]["score"], json!([0, 1]));
    assert_eq!(first["match"]["games"], json!([id, next]));
    let (_, list) = get(&a, &server.url("/api/games"));
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .expect("listed")
        .clone();
    assert_eq!(
        (row["online"].clone(), row["reason"].clone()),
        (json!(true), json!("resign"))
    );
}

#[test]
fn an_online_match_game_made_before_a_restart_is_followed_not_made_again() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let (id, ta, tb) = online(&a, &server, json!({"first_to": 3}));
    let mut pa = Ws::game(&server, id, Some(&ta));
    let mut pb = Ws::game(&server, id, Some(&tb));
    pa.until(|m| m["t"] == "game");
    pb.until(|m| m["t"] == "game");
    pa.send(&json!({"t": "resign"}));
    pb.until(|m| m["t"] == "game" && !m["result"].is_null());
    pa.send(&json!({"t": "rematch"}));
    pb.until(|m| m["t"] == "game" && m["offers"]["rematch"] == json!(["black"]));
    pb.send(&json!({"t": "rematch"}));
    let made = pa.until(|m| m["t"] == "rematch");
    let next = made["id"].as_i64().expect("the next game's id");
    drop((pa, pb));

    // A restart before anyone followed: the next game is stored, its
    // tokens only in the finished game's link to it.
    server.kill();
    let server = Server::start(dir.path());
    let mut pa = Ws::game(&server, id, Some(&ta));
    let mut pb = Ws::game(&server, id, Some(&tb));
    let again_a = pa.until(|m| m["t"] == "rematch");
    let again_b = pb.until(|m| m["t"] == "rematch");
    assert_eq!(
        (again_a["id"].as_i64(), again_b["id"].as_i64()),
        (Some(next), Some(next))
    );
    assert_eq!(
        (again_a["you"].clone(), again_b["you"].clone()),
        (made["you"].clone(), json!("black"))
    );
    // Asking again makes no second game 2.
    pa.send(&json!({"t": "rematch"}));
    pb.send(&json!({"t": "rematch"}));
    let mut follow = Ws::game(&server, next, again_b["seat"].as_str());
    let first = follow.until(|m| m["t"] == "game");
    assert_eq!(first["you"], "black");
    assert_eq!(first["match"]["games"], json!([id, next]));
    let (_, list) = get(&a, &server.url("/api/games?limit=1000"));
    let in_match = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["id"] != json!(id) && r["match"] == view(&a, &server, id)["match"]["id"])
        .count();
    assert!(in_match <= 1, "one next game at most: {list}");
    assert_eq!(view(&a, &server, id)["match"]["next"], json!(next));
}
