//! Two real `caro serve` processes on one fresh PostgreSQL database: the
//! seats and spectators of an online game on different instances play
//! live and see who has the game open; a move sent through both at once
//! (sockets or HTTP) is played once; takebacks, draws and rematches agreed
//! across instances; a clock flagged once with or without sockets, and by
//! the other instance when its own is killed; a computer answering once
//! whichever instance got the move; and an instance killed with SIGKILL in
//! the middle of a computer game and of an online game, the other
//! finishing them with nothing acknowledged lost. Each test is skipped
//! (and says so) when PostgreSQL does not answer, unless
//! `CARO_REQUIRE_POSTGRES=1`.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use common::pg::{self, TestDb};
use common::ws::Ws;
use common::{agent, get, post, Server};
use serde_json::{json, Value};
use tungstenite::Message;

/// How long a socket read waits before the test fails.
const WS_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a poll waits for a state before the test fails.
const DEADLINE: Duration = Duration::from_secs(30);

/// A fresh database, or the test returns (skipped, as the helper said).
macro_rules! fresh_db {
    () => {
        match pg::fresh_database() {
            Some(db) => db,
            None => return,
        }
    };
}

/// `caro serve` on the shared database, with a data folder of its own.
fn instance(db: &TestDb, data: &Path, name: &str) -> Server {
    Server::start_with(data, &["--database", &db.url, "--instance", name])
}

/// Instances `a` and `b` on the database, and their data folders (kept
/// while the test runs).
fn two_instances(db: &TestDb) -> (Server, Server, [tempfile::TempDir; 2]) {
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let a = instance(db, dirs[0].path(), "a");
    let b = instance(db, dirs[1].path(), "b");
    (a, b, dirs)
}

/// A game made with `POST /api/games` on `server`: its id.
fn new_game(http: &ureq::Agent, server: &Server, body: &Value) -> i64 {
    let (status, created) = post(http, &server.url("/api/games"), body);
    assert_eq!(status, 201, "{created}");
    created["id"].as_i64().expect("id")
}

/// An online game as `POST /api/online` answers it.
struct Online {
    id: i64,
    black: String,
    white: String,
    created: Value,
}

fn online_game(http: &ureq::Agent, server: &Server, body: &Value) -> Online {
    let (status, created) = post(http, &server.url("/api/online"), body);
    assert_eq!(status, 201, "{created}");
    let token = |seat: &str| {
        created[seat]["token"]
            .as_str()
            .unwrap_or_else(|| panic!("{seat}'s token in {created}"))
            .to_string()
    };
    Online {
        id: created["id"].as_i64().expect("id"),
        black: token("black"),
        white: token("white"),
        created: created.clone(),
    }
}

/// A game's socket on `server` (a seat's with a token), its first message
/// read and checked to name `you`.
fn socket(server: &Server, id: i64, token: Option<&str>, you: &str) -> Ws {
    let mut ws = Ws::game(server, id, token);
    ws.set_read_timeout(WS_TIMEOUT);
    let first = ws.next();
    assert_eq!(first["t"], "game", "{first}");
    assert_eq!(first["you"], you, "{first}");
    ws
}

/// Reading a game's socket with a deadline: a read that times out fails
/// the test at the caller's line with the last messages read.
trait See {
    /// Messages until one satisfies `done`, each handed to `seen`.
    fn see_each(&mut self, seen: impl FnMut(&Value), done: impl Fn(&Value) -> bool) -> Value;

    /// Messages until one satisfies `done`.
    #[track_caller]
    fn see(&mut self, done: impl Fn(&Value) -> bool) -> Value {
        self.see_each(|_| {}, done)
    }

    /// Game messages until the game is at ply `ply`.
    #[track_caller]
    fn see_ply(&mut self, ply: u64) -> Value {
        self.see(|m| m["t"] == "game" && m["ply"] == ply)
    }

    /// The next error message.
    #[track_caller]
    fn see_error(&mut self) -> Value {
        self.see(|m| m["t"] == "error")
    }
}

impl See for Ws {
    #[track_caller]
    fn see_each(&mut self, mut seen: impl FnMut(&Value), done: impl Fn(&Value) -> bool) -> Value {
        let mut log: Vec<Value> = Vec::new();
        loop {
            match self.0.read() {
                Ok(Message::Text(text)) => {
                    let m: Value = serde_json::from_str(text.as_str()).expect("JSON");
                    seen(&m);
                    if done(&m) {
                        return m;
                    }
                    if log.len() == 6 {
                        log.remove(0);
                    }
                    log.push(m);
                }
                Ok(Message::Close(frame)) => {
                    panic!("the socket was closed: {frame:?}; the last messages: {log:#?}")
                }
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    panic!(
                        "nothing awaited came in {} s; the last messages: {log:#?}",
                        WS_TIMEOUT.as_secs()
                    )
                }
                Err(e) => panic!("the socket failed: {e}; the last messages: {log:#?}"),
            }
        }
    }
}

fn mv(ply: u64, x: u64, y: u64) -> Value {
    json!({"t": "move", "ply": ply, "x": x, "y": y})
}

/// Every message that arrives until none has for `quiet`.
fn drain(ws: &mut Ws, quiet: Duration) -> Vec<Value> {
    ws.set_read_timeout(quiet);
    let mut out = Vec::new();
    loop {
        match ws.0.read() {
            Ok(Message::Text(text)) => out.push(serde_json::from_str(text.as_str()).expect("JSON")),
            Ok(Message::Close(frame)) => panic!("the socket was closed: {frame:?}"),
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                break
            }
            Err(e) => panic!("the socket failed: {e}"),
        }
    }
    ws.set_read_timeout(WS_TIMEOUT);
    out
}

fn game_url(server: &Server, id: i64, what: &str) -> String {
    server.url(&format!("/api/games/{id}{what}"))
}

fn view(http: &ureq::Agent, server: &Server, id: i64) -> Value {
    let (status, v) = get(http, &game_url(server, id, ""));
    assert_eq!(status, 200, "{v}");
    v
}

/// Polls the game on `server` until `done` holds.
fn wait_view(http: &ureq::Agent, server: &Server, id: i64, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let v = view(http, server, id);
        if done(&v) {
            return v;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "the game on {} never got there: {v}",
            server.base
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// An online move over HTTP with the seat's token.
fn seat_move(
    http: &ureq::Agent,
    server: &Server,
    id: i64,
    token: &str,
    ply: u64,
    x: u64,
    y: u64,
) -> (u16, Value) {
    let mut res = http
        .post(game_url(server, id, "/move"))
        .header("Content-Type", "application/json")
        .header("X-Caro-Seat", token)
        .send(json!({"ply": ply, "x": x, "y": y}).to_string())
        .expect("POST");
    let status = res.status().as_u16();
    let text = res.body_mut().read_to_string().expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// The moves of a view as points.
fn moves(v: &Value) -> Vec<(u64, u64)> {
    v["moves"]
        .as_array()
        .unwrap_or_else(|| panic!("moves in {v}"))
        .iter()
        .map(|m| (m[0].as_u64().expect("x"), m[1].as_u64().expect("y")))
        .collect()
}

/// A view's version (grows with every stored change).
fn version(v: &Value) -> i64 {
    v["version"]
        .as_i64()
        .unwrap_or_else(|| panic!("version in {v}"))
}

fn ply(v: &Value) -> u64 {
    v["ply"].as_u64().unwrap_or_else(|| panic!("ply in {v}"))
}

/// The stored version and result text of a game, read from the database.
fn stored(db: &TestDb, id: i64) -> (i64, String) {
    let version = db
        .column(&format!("SELECT version FROM games WHERE id = {id}"))
        .expect("read the version");
    let result = db
        .column(&format!("SELECT result FROM games WHERE id = {id}"))
        .expect("read the result");
    (
        version
            .first()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("game {id} stored: {version:?}")),
        result.first().cloned().unwrap_or_default(),
    )
}

/// A game's server-sent events, read on a thread of their own.
struct Events(Receiver<Value>);

impl Events {
    fn open(server: &Server, id: i64) -> Events {
        let res = agent()
            .get(game_url(server, id, "/events"))
            .call()
            .expect("open the events");
        assert_eq!(res.status().as_u16(), 200);
        let (tx, rx) = mpsc::channel();
        let reader = BufReader::new(res.into_body().into_reader());
        std::thread::spawn(move || {
            for line in reader.lines() {
                let Ok(line) = line else { return };
                if let Some(data) = line.strip_prefix("data:") {
                    let Ok(v) = serde_json::from_str::<Value>(data.trim()) else {
                        continue;
                    };
                    if tx.send(v).is_err() {
                        return;
                    }
                }
            }
        });
        Events(rx)
    }

    /// Views until one satisfies `done`; every view read is added to `seen`.
    fn wait(&self, seen: &mut Vec<Value>, done: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            let left = DEADLINE.saturating_sub(start.elapsed());
            let v = self.0.recv_timeout(left).unwrap_or_else(|_| {
                panic!(
                    "no such event in {} s; the last: {:?}",
                    DEADLINE.as_secs(),
                    seen.last()
                )
            });
            seen.push(v.clone());
            if done(&v) {
                return v;
            }
        }
    }
}

/// Each view's moves must be the start of the stored game's moves: no
/// instance ever showed a move that was not the one kept.
fn all_prefixes(seen: &[Value], stored: &[(u64, u64)], who: &str) {
    for v in seen {
        let m = moves(v);
        assert!(
            m.len() <= stored.len() && m[..] == stored[..m.len()],
            "{who} showed moves {m:?}, the stored game is {stored:?}"
        );
    }
}

#[test]
fn seats_and_a_spectator_on_two_instances_play_live() {
    let db = fresh_db!();
    let (a, b, _dirs) = two_instances(&db);
    let http = agent();
    let g = online_game(&http, &a, &json!({"width": 15}));
    assert_eq!(g.created["game"]["online"], true);

    let mut black = socket(&a, g.id, Some(&g.black), "black");
    let mut white = socket(&b, g.id, Some(&g.white), "white");
    let mut watcher = socket(&b, g.id, None, "spectator");
    let mut expected = Vec::new();
    let mut slowest = Duration::ZERO;
    for i in 0..5u64 {
        let ply = 2 * i;
        let sent = Instant::now();
        black.send(&mv(ply, i, 7));
        expected.push((i, 7));
        let seen = white.see_ply(ply + 1);
        slowest = slowest.max(sent.elapsed());
        assert_eq!(moves(&seen), expected, "white on b sees black's move on a");
        if i == 4 {
            break;
        }
        let sent = Instant::now();
        white.send(&mv(ply + 1, i, 8));
        expected.push((i, 8));
        let seen = black.see_ply(ply + 2);
        slowest = slowest.max(sent.elapsed());
        assert_eq!(moves(&seen), expected, "black on a sees white's move on b");
    }
    eprintln!("slowest move from one instance's socket to the other's: {slowest:?}");
    let end = watcher.see_ply(9);
    assert_eq!(end["result"]["winner"], "black", "{end}");
    assert_eq!(end["result"]["reason"], "five", "{end}");
    assert_eq!(moves(&end), expected);
    let end = black.see_ply(9);
    assert_eq!(
        end["connected"],
        json!({"black": true, "white": true}),
        "black on a sees white (on b) at the game: {end}"
    );

    for server in [&a, &b] {
        let v = view(&http, server, g.id);
        assert_eq!(moves(&v), expected, "{} stored: {v}", server.base);
        assert_eq!(v["result"]["winner"], "black", "{v}");
    }
}

#[test]
fn a_move_sent_through_both_instances_at_once_is_played_once() {
    let db = fresh_db!();
    let (a, b, _dirs) = two_instances(&db);
    let http = agent();
    let g = online_game(&http, &a, &json!({"width": 15}));
    // Black's page open twice, once on each instance.
    let mut black_a = socket(&a, g.id, Some(&g.black), "black");
    let mut black_b = socket(&b, g.id, Some(&g.black), "black");
    let mut white_a = socket(&a, g.id, Some(&g.white), "white");
    let mut white_b = socket(&b, g.id, Some(&g.white), "white");

    let mut played = Vec::new();
    for round in 0..6u64 {
        let ply = 2 * round;
        // The first round sends the very same command twice; later ones
        // two different points for the same ply, so a move played twice or
        // overwritten shows in the stored game.
        let on_a = (2 * round, 0);
        let on_b = if round == 0 { on_a } else { (2 * round, 2) };
        black_a.send(&mv(ply, on_a.0, on_a.1));
        black_b.send(&mv(ply, on_b.0, on_b.1));

        let mut errors: Vec<(char, Value)> = Vec::new();
        let mut views = Vec::new();
        for (name, ws) in [('a', &mut black_a), ('b', &mut black_b)] {
            let v = ws.see_each(
                |m| {
                    if m["t"] == "error" {
                        errors.push((name, m.clone()));
                    }
                },
                |m| m["t"] == "game" && m["ply"] == ply + 1,
            );
            for m in drain(ws, Duration::from_millis(400)) {
                if m["t"] == "error" {
                    errors.push((name, m));
                } else {
                    assert!(
                        m["t"] != "game" || m["ply"] == ply + 1,
                        "round {round}: the game went past ply {}: {m}",
                        ply + 1
                    );
                }
            }
            views.push(v);
        }
        assert_eq!(
            errors.len(),
            1,
            "round {round}: one of the two commands must be refused: {errors:?}"
        );
        let (loser, err) = &errors[0];
        assert!(
            ["stale", "occupied", "not_your_turn"].contains(&err["code"].as_str().unwrap_or("")),
            "round {round}: {err}"
        );
        let winner = if *loser == 'a' { on_b } else { on_a };
        played.push(winner);
        assert_eq!(moves(&views[0]), moves(&views[1]), "round {round}");
        assert_eq!(
            moves(&views[0]).last(),
            Some(&winner),
            "round {round}: the move shown is the accepted one"
        );

        let white = if round % 2 == 0 {
            &mut white_a
        } else {
            &mut white_b
        };
        white.see_ply(ply + 1);
        white.send(&mv(ply + 1, 2 * round, 10));
        played.push((2 * round, 10));
        black_a.see_ply(ply + 2);
        black_b.see_ply(ply + 2);
    }

    // The same over HTTP: two requests for the same ply, one through each
    // instance, at the same moment from two threads.
    for round in 6..9u64 {
        let ply = 2 * round;
        let points = [(2 * (round - 6), 4), (2 * (round - 6), 6)];
        let barrier = std::sync::Barrier::new(2);
        let answers: Vec<(u16, Value)> = std::thread::scope(|scope| {
            let sends: Vec<_> = [(&a, points[0]), (&b, points[1])]
                .into_iter()
                .map(|(server, (x, y))| {
                    let (barrier, token) = (&barrier, &g.black);
                    scope.spawn(move || {
                        let http = agent();
                        barrier.wait();
                        seat_move(&http, server, g.id, token, ply, x, y)
                    })
                })
                .collect();
            sends
                .into_iter()
                .map(|s| s.join().expect("a request"))
                .collect()
        });
        let accepted: Vec<usize> = (0..2).filter(|&i| answers[i].0 == 200).collect();
        assert_eq!(
            accepted.len(),
            1,
            "round {round}: one of two accepted: {answers:?}"
        );
        let refused = &answers[1 - accepted[0]];
        assert!(
            matches!(
                (refused.0, refused.1["code"].as_str()),
                (409, Some("stale" | "not_your_turn")) | (422, Some("occupied"))
            ),
            "round {round}: {refused:?}"
        );
        played.push(points[accepted[0]]);
        assert_eq!(moves(&answers[accepted[0]].1), played, "round {round}");
        white_b.see_ply(ply + 1);
        white_b.send(&mv(ply + 1, 2 * (round - 6), 12));
        played.push((2 * (round - 6), 12));
        black_a.see_ply(ply + 2);
    }

    for server in [&a, &b] {
        let v = view(&http, server, g.id);
        assert_eq!(moves(&v), played, "{} stored: {v}", server.base);
    }
}

#[test]
fn takeback_draw_and_rematch_are_agreed_across_instances() {
    let db = fresh_db!();
    let (a, b, _dirs) = two_instances(&db);
    let http = agent();
    let g = online_game(&http, &a, &json!({"width": 15}));
    let mut black = socket(&a, g.id, Some(&g.black), "black");
    let mut white = socket(&b, g.id, Some(&g.white), "white");
    let mut watcher = socket(&b, g.id, None, "spectator");
    black.send(&mv(0, 7, 7));
    white.see_ply(1);
    white.send(&mv(1, 8, 8));
    black.see_ply(2);
    black.send(&mv(2, 9, 9));

    // Each step waits for a view newer than the last one seen (the
    // version grows with every stored change): a socket's older views
    // still in its buffer are never taken for the answer.
    let game = |m: &Value, after: i64, what: &dyn Fn(&Value) -> bool| {
        m["t"] == "game" && version(m) > after && what(m)
    };
    let at = version(&white.see_ply(3));

    // Takeback asked on a, accepted on b.
    black.send(&json!({"t": "takeback", "ply": 3}));
    let asked = white.see(|m| game(m, at, &|m| m["offers"]["takeback"] != Value::Null));
    assert_eq!(
        asked["offers"]["takeback"],
        json!({"by": "black", "ply": 3})
    );
    white.send(&json!({"t": "takeback-accept", "ply": 3}));
    let back = black.see(|m| game(m, version(&asked), &|m| m["ply"] == 2));
    assert_eq!(moves(&back), vec![(7, 7), (8, 8)], "{back}");
    assert_eq!(back["to_move"], "black");
    assert_eq!(back["offers"]["takeback"], Value::Null);
    let at = version(&back);
    white.see(|m| game(m, at - 1, &|_| true));

    // A draw offered on b, declined on a, offered again and accepted on a.
    white.send(&json!({"t": "draw-offer"}));
    let offered = black.see(|m| game(m, at, &|m| m["offers"]["draw"] == "white"));
    let at = version(&offered);
    black.send(&json!({"t": "draw-decline"}));
    let declined = white.see(|m| game(m, at, &|m| m["offers"]["draw"] == Value::Null));
    assert_eq!(declined["result"], Value::Null);
    let at = version(&declined);
    black.see(|m| game(m, at - 1, &|_| true));
    white.send(&json!({"t": "draw-offer"}));
    let offered = black.see(|m| game(m, at, &|m| m["offers"]["draw"] == "white"));
    black.send(&json!({"t": "draw-accept"}));
    let drawn = white.see(|m| game(m, version(&offered), &|m| m["result"] != Value::Null));
    assert_eq!(drawn["result"]["reason"], "agreed", "{drawn}");
    black.see(|m| m["t"] == "game" && m["result"] != Value::Null);

    // Both ask for the rematch at once, one on each instance.
    black.send(&json!({"t": "rematch"}));
    white.send(&json!({"t": "rematch"}));
    let to_black = black.see(|m| m["t"] == "rematch");
    let to_white = white.see(|m| m["t"] == "rematch");
    let to_watcher = watcher.see(|m| m["t"] == "rematch");
    assert_eq!(to_black["id"], to_white["id"], "{to_black} {to_white}");
    assert_eq!(to_watcher["id"], to_black["id"], "{to_watcher}");
    assert_ne!(to_black["id"], g.id);
    assert_eq!(to_black["you"], "white");
    assert_eq!(to_white["you"], "black");
    // Neither socket is sent a second new game.
    for ws in [&mut black, &mut white] {
        for m in drain(ws, Duration::from_millis(500)) {
            assert!(m["t"] != "rematch" || m["id"] == to_black["id"], "{m}");
        }
    }
    let count = db
        .column("SELECT count(*) FROM games")
        .expect("count the games");
    assert_eq!(count, vec!["2".to_string()], "exactly one rematch game");

    // The new game plays across the instances too, colours swapped.
    let new_id = to_black["id"].as_i64().expect("id");
    let new_black = to_white["seat"].as_str().expect("a token");
    let new_white = to_black["seat"].as_str().expect("a token");
    let mut nb = socket(&b, new_id, Some(new_black), "black");
    let mut nw = socket(&a, new_id, Some(new_white), "white");
    nb.send(&mv(0, 7, 7));
    assert_eq!(moves(&nw.see_ply(1)), vec![(7, 7)]);
    nw.send(&mv(1, 8, 8));
    nb.see_ply(2);
}

#[test]
fn a_clock_flags_once_with_the_seats_on_both_instances() {
    let db = fresh_db!();
    let (a, b, _dirs) = two_instances(&db);
    let http = agent();
    let g = online_game(
        &http,
        &a,
        &json!({"width": 15, "clock_seconds": 2, "increment_seconds": 0}),
    );
    let mut black = socket(&a, g.id, Some(&g.black), "black");
    let mut white = socket(&b, g.id, Some(&g.white), "white");
    black.send(&mv(0, 7, 7));
    let moved = Instant::now();
    let started = white.see_ply(1);
    assert_eq!(started["clock"]["running"], "white", "{started}");
    let (before, _) = stored(&db, g.id);

    let mut ends = Vec::new();
    for ws in [&mut black, &mut white] {
        let over = ws.see(|m| m["t"] == "game" && m["result"] != Value::Null);
        assert_eq!(over["result"]["reason"], "time", "{over}");
        assert_eq!(over["result"]["winner"], "black", "{over}");
        assert_eq!(over["clock"]["white_ms"], 0, "{over}");
        ends.push(over);
    }
    let flagged = moved.elapsed();
    assert!(
        flagged < Duration::from_secs(5),
        "a 2 s clock fell after {flagged:?}"
    );
    // Stored once: one change over the move's version, and no more after.
    let (after, result) = stored(&db, g.id);
    assert_eq!(after, before + 1, "the flag is one stored change");
    for ws in [&mut black, &mut white] {
        for m in drain(ws, Duration::from_millis(1500)) {
            assert!(
                m["t"] != "game" || m["result"] == ends[0]["result"],
                "the result changed: {m}"
            );
        }
    }
    assert_eq!(stored(&db, g.id), (after, result));
    white.send(&mv(1, 8, 8));
    assert_eq!(white.see_error()["code"], "game_over");
    let va = view(&http, &a, g.id);
    let vb = view(&http, &b, g.id);
    assert_eq!(va["result"], vb["result"]);
    assert_eq!(va["version"], vb["version"]);
}

#[test]
fn a_clock_flags_once_with_nobody_connected() {
    let db = fresh_db!();
    let (a, b, _dirs) = two_instances(&db);
    let http = agent();
    let g = online_game(
        &http,
        &a,
        &json!({"width": 15, "clock_seconds": 1, "increment_seconds": 0}),
    );
    // The first move over HTTP on the other instance; no socket anywhere.
    let (status, moved) = seat_move(&http, &b, g.id, &g.black, 0, 7, 7);
    assert_eq!(status, 200, "{moved}");
    let at = Instant::now();
    let (before, _) = stored(&db, g.id);
    let over_a = wait_view(&http, &a, g.id, |v| v["result"] != Value::Null);
    let over_b = wait_view(&http, &b, g.id, |v| v["result"] != Value::Null);
    assert!(at.elapsed() < Duration::from_secs(4), "{:?}", at.elapsed());
    for v in [&over_a, &over_b] {
        assert_eq!(v["result"]["reason"], "time", "{v}");
        assert_eq!(v["result"]["winner"], "black", "{v}");
    }
    let (after, result) = stored(&db, g.id);
    assert_eq!(after, before + 1, "the flag is one stored change");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(stored(&db, g.id), (after, result), "flagged again");
    assert_eq!(
        view(&http, &a, g.id)["version"],
        view(&http, &b, g.id)["version"]
    );
}

#[test]
fn a_computer_answers_once_whichever_instance_took_the_move() {
    let db = fresh_db!();
    let (a, b, _dirs) = two_instances(&db);
    let http = agent();
    let id = new_game(
        &http,
        &a,
        &json!({"black": "human", "white": "random", "width": 15}),
    );
    let events_a = Events::open(&a, id);
    let events_b = Events::open(&b, id);

    // The person's points: three apart, never five in a row.
    let mut points = (0..5u64).flat_map(|y| (0..5u64).map(move |x| (3 * x, 3 * y)));
    const HUMAN_MOVES: u64 = 6;
    for k in 0..HUMAN_MOVES {
        let server = if k % 2 == 0 { &a } else { &b };
        let v = wait_view(&http, server, id, |v| ply(v) >= 2 * k && v["busy"] != true);
        assert_eq!(ply(&v), 2 * k, "the computer answered more than once: {v}");
        assert_eq!(v["result"], Value::Null, "{v}");
        assert_eq!(v["to_move"], "black", "{v}");
        let taken = moves(&v);
        let (x, y) = points.find(|p| !taken.contains(p)).expect("a free point");
        let (status, answer) = post(
            &http,
            &game_url(server, id, "/move"),
            &json!({"ply": 2 * k, "x": x, "y": y}),
        );
        assert_eq!(status, 200, "move {k} on {}: {answer}", server.base);
    }
    let end = wait_view(&http, &b, id, |v| ply(v) >= 2 * HUMAN_MOVES);
    let stored_moves = moves(&end);
    assert_eq!(stored_moves.len() as u64, 2 * HUMAN_MOVES, "{end}");
    // No extra answer comes later either.
    std::thread::sleep(Duration::from_millis(500));
    for server in [&a, &b] {
        assert_eq!(moves(&view(&http, server, id)), stored_moves);
    }
    // Each instance's events showed the computer's moves as stored.
    for (name, events) in [("a", &events_a), ("b", &events_b)] {
        let mut seen = Vec::new();
        events.wait(&mut seen, |v| ply(v) == 2 * HUMAN_MOVES);
        all_prefixes(&seen, &stored_moves, name);
    }
}

#[test]
fn a_computer_game_goes_on_after_its_instance_is_killed() {
    let db = fresh_db!();
    let (a, b, _dirs) = two_instances(&db);
    let http = agent();
    let id = new_game(
        &http,
        &a,
        &json!({"black": "random", "white": "random", "width": 9, "height": 9}),
    );
    let (status, answer) = post(
        &http,
        &game_url(&a, id, "/speed"),
        &json!({"delay_ms": 100}),
    );
    assert_eq!(status, 200, "{answer}");
    let events_b = Events::open(&b, id);

    let before = wait_view(&http, &a, id, |v| ply(v) >= 6);
    assert_eq!(before["result"], Value::Null, "over too soon: {before}");
    let shown = moves(&before);
    a.kill();

    let start = Instant::now();
    let end = loop {
        let v = view(&http, &b, id);
        if v["result"] != Value::Null {
            break v;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "b never finished the game: {v}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let all = moves(&end);
    assert!(
        all.len() > shown.len(),
        "nothing was played after the kill: {end}"
    );
    assert_eq!(all[..shown.len()], shown[..], "a shown move was lost");
    let mut distinct = all.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), all.len(), "a point played twice: {all:?}");
    assert!(all.iter().all(|&(x, y)| x < 9 && y < 9), "{all:?}");
    assert!(
        ["five", "draw"].contains(&end["result"]["reason"].as_str().unwrap_or("")),
        "{end}"
    );
    let mut seen = Vec::new();
    events_b.wait(&mut seen, |v| v["result"] != Value::Null);
    all_prefixes(&seen, &all, "b");
}

#[test]
fn an_online_game_goes_on_on_another_instance_after_a_kill() {
    let db = fresh_db!();
    let (a, b, _dirs) = two_instances(&db);
    let http = agent();
    let g = online_game(&http, &a, &json!({"width": 15}));
    let mut black = socket(&a, g.id, Some(&g.black), "black");
    let mut white = socket(&a, g.id, Some(&g.white), "white");
    let mut watcher = socket(&b, g.id, None, "spectator");
    // Black on row 7, white on row 8, from the left.
    let point = |ply: u64| (ply / 2, 7 + ply % 2);
    let mut acknowledged = Vec::new();
    for p in 0..4u64 {
        let (x, y) = point(p);
        let (mover, other) = if p % 2 == 0 {
            (&mut black, &mut white)
        } else {
            (&mut white, &mut black)
        };
        mover.send(&mv(p, x, y));
        mover.see_ply(p + 1);
        acknowledged.push((x, y));
        other.see_ply(p + 1);
    }
    // One more move sent, and the instance killed before it is answered.
    let (x, y) = point(4);
    black.send(&mv(4, x, y));
    a.kill();
    drop((black, white));

    let mut black = Ws::game(&b, g.id, Some(&g.black));
    black.set_read_timeout(WS_TIMEOUT);
    let first = black.next();
    assert_eq!(first["you"], "black", "{first}");
    let now = moves(&first);
    assert!(
        now[..] == acknowledged[..] || now[..] == [&acknowledged[..], &[(x, y)]].concat()[..],
        "acknowledged {acknowledged:?}, after the kill {now:?}"
    );
    let mut white = socket(&b, g.id, Some(&g.white), "white");
    let mut p = now.len() as u64;
    while p < 9 {
        let (x, y) = point(p);
        let (mover, other) = if p % 2 == 0 {
            (&mut black, &mut white)
        } else {
            (&mut white, &mut black)
        };
        mover.send(&mv(p, x, y));
        other.see_ply(p + 1);
        p += 1;
    }
    let end = watcher.see_ply(9);
    assert_eq!(end["result"]["winner"], "black", "{end}");
    let v = view(&http, &b, g.id);
    assert_eq!(moves(&v)[..4], acknowledged[..]);
    assert_eq!(moves(&v).len(), 9);
}

#[test]
fn each_instance_shows_who_has_the_game_open_on_the_other() {
    let db = fresh_db!();
    let (a, b, _dirs) = two_instances(&db);
    let http = agent();
    let g = online_game(&http, &a, &json!({"width": 15}));
    let connected = |black: bool, white: bool| {
        move |m: &Value| {
            m["t"] == "game" && m["connected"] == json!({"black": black, "white": white})
        }
    };
    let mut watcher = socket(&b, g.id, None, "spectator");
    let mut black = socket(&a, g.id, Some(&g.black), "black");
    watcher.see(connected(true, false));
    let white = socket(&b, g.id, Some(&g.white), "white");
    black.see(connected(true, true));
    watcher.see(connected(true, true));
    // White's page closes on b: black's, on a, says so.
    drop(white);
    black.see(connected(true, false));
    watcher.see(connected(true, false));
    // The instance holding black's socket dies: once it is missed, b says
    // black is gone too.
    a.kill();
    let killed = Instant::now();
    watcher.set_read_timeout(Duration::from_secs(25));
    watcher.see(connected(false, false));
    eprintln!(
        "a killed instance's seat shown gone after {:?}",
        killed.elapsed()
    );
}

#[test]
fn a_clock_flags_on_the_other_instance_when_its_own_is_killed() {
    let db = fresh_db!();
    let (a, b, _dirs) = two_instances(&db);
    let http = agent();
    let g = online_game(
        &http,
        &a,
        &json!({"width": 15, "clock_seconds": 2, "increment_seconds": 0}),
    );
    // The move and the game's only sockets on a, then a dies.
    let mut white = socket(&a, g.id, Some(&g.white), "white");
    let (status, moved) = seat_move(&http, &a, g.id, &g.black, 0, 7, 7);
    assert_eq!(status, 200, "{moved}");
    white.see_ply(1);
    let (before, _) = stored(&db, g.id);
    a.kill();
    let killed = Instant::now();
    let over = wait_view(&http, &b, g.id, |v| v["result"] != Value::Null);
    eprintln!("flagged by b {:?} after a was killed", killed.elapsed());
    assert_eq!(over["result"]["reason"], "time", "{over}");
    assert_eq!(over["result"]["winner"], "black", "{over}");
    let (after, result) = stored(&db, g.id);
    assert_eq!(after, before + 1, "the flag is one stored change");
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(stored(&db, g.id), (after, result), "flagged again");
}

#[test]
fn a_match_game_asked_for_on_both_instances_at_once_is_made_once() {
    let db = fresh_db!();
    let (a, b, _dirs) = two_instances(&db);
    let http = agent();
    let id = new_game(
        &http,
        &a,
        &json!({"black": "human", "white": "random", "width": 9, "height": 9, "first_to": 2}),
    );
    let (status, over) = post(&http, &game_url(&a, id, "/resign"), &json!({}));
    assert_eq!(status, 200, "{over}");
    // Both instances know the game before they are asked.
    wait_view(&http, &b, id, |v| v["result"] != Value::Null);
    let ask = |server: &Server| {
        let url = game_url(server, id, "/next");
        std::thread::spawn(move || {
            let (status, next) = post(&agent(), &url, &json!({}));
            assert!(status == 200 || status == 201, "{status}: {next}");
            next["id"].as_i64().expect("the next game's id")
        })
    };
    let (from_a, from_b) = (ask(&a), ask(&b));
    let (from_a, from_b) = (from_a.join().unwrap(), from_b.join().unwrap());
    assert_eq!(from_a, from_b, "one next game");
    assert_ne!(from_a, id);
    let games = db
        .column("SELECT count(*)::text FROM games")
        .expect("count the games");
    assert_eq!(games, vec!["2".to_string()]);
}

#[test]
fn a_computer_to_act_in_a_game_stored_without_the_flag_is_searched_when_loaded() {
    let db = fresh_db!();
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = instance(&db, dir_a.path(), "a");
    let http = agent();
    let id = new_game(
        &http,
        &a,
        &json!({"black": "human", "white": "random", "width": 9, "height": 9}),
    );
    let (status, moved) = post(
        &http,
        &game_url(&a, id, "/move"),
        &json!({"ply": 0, "x": 4, "y": 4}),
    );
    assert_eq!(status, 200, "{moved}");
    let v = wait_view(&http, &a, id, |v| ply(v) == 2 && v["busy"] != true);
    // The person's next move written as a game stored before the computer's
    // turn was a column: nobody holds, nor is asked for, its search.
    let taken = moves(&v);
    let (x, y) = [(0, 0), (8, 8), (0, 8)]
        .into_iter()
        .find(|p| !taken.contains(p))
        .expect("a free corner");
    db.execute(&format!(
        "UPDATE games SET moves = moves || ' {x},{y}', version = version + 1, computer_turn = 0, search_until = 0 WHERE id = {id}"
    ))
    .expect("write the old row");
    // An instance that loads it searches it, once.
    let b = instance(&db, dir_b.path(), "b");
    let end = wait_view(&http, &b, id, |v| ply(v) >= 4);
    assert_eq!(ply(&end), 4, "{end}");
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(ply(&view(&http, &b, id)), 4, "answered once");
}
