//! Faults against a real `caro serve` process: restarts with clocks
//! running (one of them on a damaged row), a full engine pool, failed and
//! slow writes.

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

/// An online game with `seconds` a side and no increment, after black's
/// first move: white's clock runs. Its id.
fn clocked_game_after_black_moved(a: &ureq::Agent, server: &Server, seconds: u64) -> i64 {
    let (id, black, _white) = online_game(
        a,
        server,
        &json!({"width": 15, "clock_seconds": seconds, "increment_seconds": 0}),
    );
    let url = server.url(&format!("/api/games/{id}/move"));
    let (status, view) = post_as(a, &url, &black, &json!({"ply": 0, "x": 7, "y": 7}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["clock"]["running"], "white", "{view}");
    id
}

/// A clock that was running when the server stopped runs again when it is
/// back, from the time it had (the outage is not charged), and runs out
/// with nobody connected.
#[test]
fn a_running_clock_comes_back_after_a_restart_and_flags_with_nobody_connected() {
    let dir = tempfile::tempdir().unwrap();
    let a = agent();
    let server = Server::start(dir.path());
    let id = clocked_game_after_black_moved(&a, &server, 2);
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

/// A stored game that no longer reads back does not keep the server from
/// starting: its own requests answer 500 `storage`, the other clocks run
/// and flag as before.
#[test]
fn a_damaged_game_with_a_running_clock_does_not_stop_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let a = agent();
    let server = Server::start(dir.path());
    let damaged = clocked_game_after_black_moved(&a, &server, 60);
    let sound = clocked_game_after_black_moved(&a, &server, 1);
    server.kill();
    let conn = rusqlite::Connection::open(dir.path().join("caro.sqlite3")).expect("the database");
    conn.execute(
        "UPDATE games SET moves = 'not moves' WHERE id = ?1",
        [damaged],
    )
    .expect("damage the row");
    drop(conn);
    let server = Server::start(dir.path());
    let (status, err) = get(&a, &server.url(&format!("/api/games/{damaged}")));
    assert_eq!(
        (status, err["code"].as_str()),
        (500, Some("storage")),
        "{err}"
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let row = loop {
        let row = listed(&a, &server, sound);
        if row["result"] != Value::Null || Instant::now() > deadline {
            break row;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(row["ending"], "time white", "{row}");
}

/// With one engine thread and no queue, two computers
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

/// Holds the games database's write lock, as another program or a stalled
/// disk would: every write the server tries meanwhile fails (after its 5 s
/// busy timeout) with SQLite's own error. Works as root, unlike a
/// read-only folder. Released when dropped.
struct WriteLock(rusqlite::Connection);

impl WriteLock {
    fn take(server: &Server) -> WriteLock {
        let conn = rusqlite::Connection::open(server.data.join("caro.sqlite3"))
            .expect("open the database");
        conn.execute_batch("BEGIN IMMEDIATE")
            .expect("take the write lock");
        WriteLock(conn)
    }

    /// The moves stored for a game (read inside the lock, so they cannot
    /// change meanwhile).
    fn stored_ply(&self, id: i64) -> usize {
        let moves: String = self
            .0
            .query_row("SELECT moves FROM games WHERE id = ?1", [id], |r| r.get(0))
            .expect("the stored game");
        moves.split_whitespace().count()
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        let _ = self.0.execute_batch("ROLLBACK");
    }
}

/// One WebSocket client of a game.
struct Ws(tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<std::net::TcpStream>>);

impl Ws {
    fn open(server: &Server, id: i64, token: &str) -> Ws {
        let base = server.base.replacen("http://", "ws://", 1);
        let (socket, _) = tungstenite::connect(format!("{base}/api/games/{id}/ws?seat={token}"))
            .expect("connect the socket");
        if let tungstenite::stream::MaybeTlsStream::Plain(s) = socket.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(60)))
                .expect("timeout");
        }
        Ws(socket)
    }

    fn send(&mut self, command: Value) {
        self.0
            .send(tungstenite::Message::text(command.to_string()))
            .expect("send a command");
    }

    /// The next JSON message.
    fn next(&mut self) -> Value {
        loop {
            match self.0.read().expect("read a message") {
                tungstenite::Message::Text(text) => {
                    return serde_json::from_str(text.as_str()).expect("JSON")
                }
                tungstenite::Message::Close(frame) => panic!("the socket was closed: {frame:?}"),
                _ => {}
            }
        }
    }

    /// The next message that is not the game at ply `ply` again (the game
    /// is sent again when the opponent connects or leaves).
    fn after_ply(&mut self, ply: u64) -> Value {
        loop {
            let msg = self.next();
            if !(msg["t"] == "game" && msg["ply"] == ply) {
                return msg;
            }
        }
    }
}

/// A move that cannot be stored is not made. Over HTTP
/// it is answered 503 `storage` and the game stays as it was; over the
/// WebSocket the seat is told and the opponent sees nothing; once the
/// database can be written again the game goes on from where it was, and
/// a restart finds exactly what was answered.
#[test]
fn a_move_that_cannot_be_stored_is_not_made() {
    let dir = tempfile::tempdir().unwrap();
    let a = agent();
    let server = Server::start(dir.path());
    let (id, black, white) = online_game(&a, &server, &json!({"width": 15}));
    let url = server.url(&format!("/api/games/{id}/move"));
    let mut black_ws = Ws::open(&server, id, &black);
    let mut white_ws = Ws::open(&server, id, &white);
    assert_eq!(black_ws.next()["ply"], 0);
    assert_eq!(white_ws.next()["ply"], 0);
    let (status, view) = post_as(&a, &url, &black, &json!({"ply": 0, "x": 7, "y": 7}));
    assert_eq!(status, 200, "{view}");
    assert_eq!(black_ws.after_ply(0)["ply"], 1);
    assert_eq!(white_ws.after_ply(0)["ply"], 1);

    let lock = WriteLock::take(&server);
    // Over HTTP.
    let (status, err) = post_as(&a, &url, &white, &json!({"ply": 1, "x": 8, "y": 8}));
    assert_eq!(
        (status, err["code"].as_str()),
        (503, Some("storage")),
        "{err}"
    );
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(
        view["ply"], 1,
        "a move that was not stored is shown: {view}"
    );
    assert_eq!(view["to_move"], "white", "{view}");
    // Over the WebSocket.
    white_ws.send(json!({"t": "move", "ply": 1, "x": 8, "y": 8}));
    let err = white_ws.after_ply(1);
    assert_eq!(
        (err["t"].as_str(), err["code"].as_str()),
        (Some("error"), Some("storage")),
        "{err}"
    );
    assert_eq!(lock.stored_ply(id), 1);
    drop(lock);

    // The database works again: the game goes on from where it was. The
    // opponent's next change is this move, never the ones refused.
    white_ws.send(json!({"t": "move", "ply": 1, "x": 9, "y": 9}));
    let seen = black_ws.after_ply(1);
    assert_eq!(seen["ply"], 2, "{seen}");
    assert_eq!(seen["moves"], json!([[7, 7], [9, 9]]), "{seen}");
    drop((black_ws, white_ws));
    server.kill();
    let server = Server::start(dir.path());
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(view["moves"], json!([[7, 7], [9, 9]]), "{view}");
}

/// A computer's move that cannot be stored is not shown
/// either; the game stays as stored and goes on once the database can be
/// written again.
#[test]
fn a_computer_move_that_cannot_be_stored_is_not_shown() {
    let dir = tempfile::tempdir().unwrap();
    let a = agent();
    let server = Server::start(dir.path());
    let (status, view) = post(
        &a,
        &server.url("/api/games"),
        &json!({"black": "random", "white": "random", "time_ms": 50}),
    );
    assert_eq!(status, 201, "{view}");
    let id = view["id"].as_i64().expect("id");
    let deadline = Instant::now() + Duration::from_secs(30);
    while listed(&a, &server, id)["ply"].as_u64() < Some(2) {
        assert!(Instant::now() < deadline, "the computers do not play");
        std::thread::sleep(Duration::from_millis(50));
    }
    let lock = WriteLock::take(&server);
    // The next move is searched, then cannot be stored (5 s).
    std::thread::sleep(Duration::from_millis(6500));
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    let stored = lock.stored_ply(id);
    assert_eq!(
        view["ply"].as_u64(),
        Some(stored as u64),
        "the game shows moves that are not stored: {view}"
    );
    assert_eq!(view["result"], Value::Null, "{view}");
    drop(lock);
    // It goes on by itself (the list never starts a search).
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let row = listed(&a, &server, id);
        if row["ply"].as_u64() > Some(stored as u64) {
            break;
        }
        assert!(Instant::now() < deadline, "the game did not go on: {row}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A flag that cannot be stored is not shown; it falls (and is stored) as
/// soon as the database can be written again.
#[test]
fn a_flag_that_cannot_be_stored_waits_for_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let a = agent();
    let server = Server::start(dir.path());
    let id = clocked_game_after_black_moved(&a, &server, 1);
    let lock = WriteLock::take(&server);
    // The flag falls after 1 s; its write fails 5 s later.
    std::thread::sleep(Duration::from_millis(7000));
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(
        view["result"],
        Value::Null,
        "a flag that is not stored is shown: {view}"
    );
    assert_eq!(view["clock"]["white_ms"], 0, "{view}");
    drop(lock);
    let deadline = Instant::now() + Duration::from_secs(15);
    let row = loop {
        let row = listed(&a, &server, id);
        if row["result"] != Value::Null || Instant::now() > deadline {
            break row;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(row["ending"], "time white", "{row}");
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(view["result"]["reason"], "time", "{view}");
}

/// A server that could not store a move does not
/// start. The data folder and its database are made read-only; as root,
/// whom file modes do not stop, the server runs as `nobody`.
#[test]
fn a_read_only_data_folder_stops_the_server_with_a_clear_message() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::process::CommandExt;

    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    // A database with a game in it.
    let server = Server::start(&data);
    let (status, view) = post(&agent(), &server.url("/api/games"), &json!({}));
    assert_eq!(status, 201, "{view}");
    server.kill();
    let mode = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    mode(dir.path(), 0o755);
    for file in std::fs::read_dir(&data).unwrap() {
        mode(&file.unwrap().path(), 0o444);
    }
    mode(&data, 0o555);
    let bin =
        std::env::var_os("CARO_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_caro").into());
    let mut command = std::process::Command::new(bin);
    command
        .args(["serve", "--port", "0", "--data"])
        .arg(&data)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if std::fs::metadata(dir.path()).unwrap().uid() == 0 {
        command.uid(65534).gid(65534);
    }
    let mut child = command.spawn().expect("start caro serve");
    let deadline = Instant::now() + Duration::from_secs(20);
    let exited = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    if exited.is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    mode(&data, 0o755);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let status = exited
        .unwrap_or_else(|| panic!("the server runs on a read-only folder: {stdout} {stderr}"));
    assert!(!status.success(), "{stdout} {stderr}");
    assert!(!stdout.contains("ready"), "{stdout}");
    assert!(
        stderr.contains("cannot write") && stderr.contains(&data.display().to_string()),
        "no clear message: {stderr}"
    );
}

/// While writes stall (the database's write lock held,
/// as a slow disk would hold them), every other request is answered at
/// once: games in memory, a game read from the store, the list, even the
/// state of a game whose own write is waiting. A stalled write holds no
/// worker thread and no lock but its game's turn to write. More writes
/// stall than the server has worker threads (one a core).
#[test]
fn stalled_writes_do_not_stall_other_requests() {
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let stalled = cores + 2;
    let dir = tempfile::tempdir().unwrap();
    let a = agent();
    let server = Server::start_with(dir.path(), &["--games-per-minute", "1000"]);
    let ids: Vec<i64> = (0..=stalled)
        .map(|_| {
            let (status, view) = post(&a, &server.url("/api/games"), &json!({}));
            assert_eq!(status, 201, "{view}");
            view["id"].as_i64().expect("id")
        })
        .collect();
    server.kill();
    // Restarted: nothing in memory; the last game is left to be read from
    // the store while the writes stall.
    let server = Server::start(dir.path());
    for id in &ids[..stalled] {
        assert_eq!(get(&a, &server.url(&format!("/api/games/{id}"))).0, 200);
    }
    let lock = WriteLock::take(&server);
    let moves: Vec<_> = ids[..stalled]
        .iter()
        .map(|&id| {
            let url = server.url(&format!("/api/games/{id}/move"));
            std::thread::spawn(move || post(&agent(), &url, &json!({"ply": 0, "x": 7, "y": 7})))
        })
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    let quick = |path: String| {
        let started = Instant::now();
        let (status, body) = get(&a, &server.url(&path));
        let took = started.elapsed();
        assert_eq!(status, 200, "{path}: {body}");
        assert!(
            took < Duration::from_millis(1500),
            "{path} took {took:?} while writes stalled"
        );
        body
    };
    quick("/api/players".to_string());
    quick("/api/games?limit=5".to_string());
    let unloaded = quick(format!("/api/games/{}", ids[stalled]));
    assert_eq!(unloaded["ply"], 0);
    let waiting = quick(format!("/api/games/{}", ids[0]));
    assert_eq!(
        waiting["ply"], 0,
        "a move not yet stored is shown: {waiting}"
    );
    // The disk comes back: the writes still waiting go through, in turn.
    drop(lock);
    for (handle, id) in moves.into_iter().zip(&ids) {
        let (status, body) = handle.join().expect("a move");
        let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
        match status {
            200 => assert_eq!(view["ply"], 1, "{view}"),
            503 => {
                assert_eq!(body["code"], "storage", "{body}");
                assert_eq!(view["ply"], 0, "{view}");
            }
            _ => panic!("{status} {body}"),
        }
    }
}

/// A client that hangs up while its move waits
/// to be stored does not part the game from the store: the move is stored
/// and shown, or neither.
#[test]
fn a_client_that_hangs_up_while_its_move_is_stored_leaves_the_game_as_stored() {
    use std::io::Write;

    let dir = tempfile::tempdir().unwrap();
    let a = agent();
    let server = Server::start(dir.path());
    let (status, view) = post(&a, &server.url("/api/games"), &json!({}));
    assert_eq!(status, 201, "{view}");
    let id = view["id"].as_i64().expect("id");
    let lock = WriteLock::take(&server);
    let body = json!({"ply": 0, "x": 7, "y": 7}).to_string();
    let mut stream = common::connect(&server);
    write!(
        stream,
        "POST /api/games/{id}/move HTTP/1.1\r\nHost: caro\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("send the move");
    std::thread::sleep(Duration::from_millis(500));
    drop(stream);
    std::thread::sleep(Duration::from_millis(500));
    drop(lock);
    // The write goes through once the lock is gone.
    let deadline = Instant::now() + Duration::from_secs(10);
    while listed(&a, &server, id)["ply"] != 1 {
        assert!(Instant::now() < deadline, "the move was not stored");
        std::thread::sleep(Duration::from_millis(50));
    }
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(view["ply"], 1, "stored but not shown: {view}");
    server.kill();
    let server = Server::start(dir.path());
    let (_, view) = get(&a, &server.url(&format!("/api/games/{id}")));
    assert_eq!(view["ply"], 1, "{view}");
}
