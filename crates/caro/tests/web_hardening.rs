//! The server's hardening against a real `caro serve`: every API error is
//! the JSON error, oversized bodies get a readable 413, answers carry
//! security headers and are compressed, and clients are limited in how many
//! games they create.

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::{
    agent, connect, connect_from, get, post, post_raw, read_answer, read_head, send_in_pieces,
    Framing, RawAnswer, Server,
};
use serde_json::{json, Value};
use tungstenite::client::IntoClientRequest;
use tungstenite::Message;

/// Sends `request` whole on a fresh connection and reads the answer.
fn exchange(server: &Server, request: &str) -> RawAnswer {
    let mut stream = connect(server);
    stream.write_all(request.as_bytes()).expect("send");
    read_answer(&mut stream)
}

/// `GET path` with `Accept-Encoding`, read whole.
fn get_encoded(server: &Server, path: &str, encoding: &str) -> RawAnswer {
    exchange(
        server,
        &format!("GET {path} HTTP/1.1\r\nHost: caro\r\nAccept-Encoding: {encoding}\r\nConnection: close\r\n\r\n"),
    )
}

/// Asserts the answer is the JSON error with this status and code.
fn assert_json_error(answer: &RawAnswer, status: u16, code: &str, what: &str) {
    let body = answer.json();
    assert_eq!(
        (answer.status, body["code"].as_str()),
        (status, Some(code)),
        "{what}: {answer:?} {}",
        String::from_utf8_lossy(&answer.body)
    );
    assert!(
        answer
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/json")),
        "{what}: {answer:?}"
    );
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{what}: {body}"
    );
}

#[test]
fn every_api_error_is_the_json_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let id = new_game(&a, &server);

    let cases: Vec<(String, u16, &str)> = vec![
        // A method the path does not take.
        ("DELETE /api/games".into(), 405, "method_not_allowed"),
        (
            format!("PUT /api/games/{id}/move"),
            405,
            "method_not_allowed",
        ),
        ("POST /".into(), 405, "method_not_allowed"),
        // Ids and queries that do not parse.
        ("GET /api/games/abc".into(), 400, "bad_request"),
        (
            "GET /api/games/99999999999999999999".into(),
            400,
            "bad_request",
        ),
        ("GET /api/games/abc/psq".into(), 400, "bad_request"),
        ("GET /api/games/abc/events".into(), 400, "bad_request"),
        ("GET /api/games?limit=abc".into(), 400, "bad_request"),
        ("GET /api/games?limit=-1".into(), 400, "bad_request"),
        // The socket without the upgrade.
        (format!("GET /api/games/{id}/ws"), 400, "not_websocket"),
        // Unknown paths.
        ("GET /api/nothing".into(), 404, "not_found"),
        ("POST /api/games/1/nothing".into(), 404, "not_found"),
        // A request target over 8 KiB.
        (
            format!("GET /api/games/{}", "1".repeat(9000)),
            414,
            "uri_too_long",
        ),
        (
            format!("GET /api/games?limit=1&x={}", "y".repeat(9000)),
            414,
            "uri_too_long",
        ),
    ];
    for (request, status, code) in &cases {
        let answer = exchange(
            &server,
            &format!("{request} HTTP/1.1\r\nHost: caro\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
        );
        let shown: String = request.chars().take(60).collect();
        assert_json_error(&answer, *status, code, &shown);
    }
    // 405 says what is allowed.
    let answer = exchange(
        &server,
        "DELETE /api/games HTTP/1.1\r\nHost: caro\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(answer.header("allow"), Some("GET,HEAD,POST"), "{answer:?}");

    // Bodies: a PSQ over 256 KiB, one that is not UTF-8, JSON that is not
    // JSON, and the wrong content types.
    let huge = "x".repeat(300 * 1024);
    let (status, err) = post_raw(&a, &server.url("/api/import"), "text/plain", &huge);
    assert_eq!(
        (status, err["code"].as_str()),
        (413, Some("too_large")),
        "{err}"
    );
    let mut res = a
        .post(server.url("/api/import"))
        .header("Content-Type", "text/plain")
        .send(&b"Piskvork\xff\xfe 15x15\n"[..])
        .expect("POST");
    let status = res.status().as_u16();
    let err: Value = serde_json::from_str(&res.body_mut().read_to_string().expect("body"))
        .expect("a JSON error");
    assert_eq!(
        (status, err["code"].as_str()),
        (400, Some("bad_request")),
        "{err}"
    );
    let (status, err) = post_raw(&a, &server.url("/api/games"), "application/json", "{");
    assert_eq!(
        (status, err["code"].as_str()),
        (400, Some("bad_json")),
        "{err}"
    );
    let (status, err) = post_raw(&a, &server.url("/api/games"), "text/plain", "{}");
    assert_eq!(
        (status, err["code"].as_str()),
        (415, Some("unsupported_media_type")),
        "{err}"
    );

    // Pages stay pages.
    for path in ["/", "/games", &format!("/game/{id}"), "/p/abc"] {
        let answer = get_encoded(&server, path, "identity");
        assert_eq!(answer.status, 200, "{path}: {answer:?}");
        assert_eq!(
            answer.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{path}"
        );
    }
    let (_, list) = get(&a, &server.url("/api/games"));
    assert_eq!(
        list.as_array().map(Vec::len),
        Some(1),
        "nothing changed: {list}"
    );
}

#[test]
fn requests_the_http_layer_cannot_read_get_the_json_error_too() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let many_headers: String = (0..120).map(|n| format!("X-H{n}: {n}\r\n")).collect();
    // hyper refuses these before any router sees them.
    let cases: [(String, u16, &str); 6] = [
        // A request target over what the HTTP layer holds (64 KiB).
        (
            format!(
                "GET /api/games/{} HTTP/1.1\r\nHost: caro\r\n\r\n",
                "1".repeat(70 * 1024)
            ),
            414,
            "uri_too_long",
        ),
        // Header values and names with bytes HTTP does not allow.
        (
            "GET /api/games HTTP/1.1\r\nHost: caro\r\nX-A: a\u{1}b\r\n\r\n".into(),
            400,
            "bad_request",
        ),
        (
            "GET /api/games HTTP/1.1\r\nHost: caro\r\nX-A: a\u{0}b\r\n\r\n".into(),
            400,
            "bad_request",
        ),
        (
            "GET /api/games HTTP/1.1\r\nHost: caro\r\nX A: b\r\n\r\n".into(),
            400,
            "bad_request",
        ),
        // A request line that is not HTTP.
        ("GET /api/games HTTP/7\r\n\r\n".into(), 400, "bad_request"),
        // More headers than the HTTP layer takes.
        (
            format!("GET /api/games HTTP/1.1\r\nHost: caro\r\n{many_headers}\r\n"),
            431,
            "headers_too_large",
        ),
    ];
    for (request, status, code) in &cases {
        let answer = exchange(&server, request);
        let shown: String = request.escape_debug().take(80).collect();
        assert_json_error(&answer, *status, code, &shown);
        assert_eq!(answer.header("connection"), Some("close"), "{shown}");
    }
    // The server serves on.
    let (status, _) = get(&agent(), &server.url("/api/games"));
    assert_eq!(status, 200);
}

#[test]
fn a_body_over_the_limit_gets_a_readable_413() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let head = "POST /api/games HTTP/1.1\r\nHost: caro\r\nContent-Type: application/json\r\n";
    let huge = format!("{{\"black\": \"{}\"}}", "x".repeat(300 * 1024));
    // Sent slowly, as a busy machine would: the server must read on past
    // its limit (and throw it away) rather than close the connection
    // under a client still sending.
    for framing in [Framing::Length, Framing::Chunked] {
        let answer = send_in_pieces(
            &server,
            head,
            huge.as_bytes(),
            framing,
            8 * 1024,
            Duration::from_millis(3),
        );
        assert_json_error(&answer, 413, "too_large", &format!("{framing:?}"));
    }

    // A declared length over the limit is refused before any of the body
    // is read: the answer comes though no body was sent.
    let mut stream = connect(&server);
    let started = Instant::now();
    stream
        .write_all(format!("{head}Content-Length: {}\r\n\r\n", 300 * 1024).as_bytes())
        .expect("send the head");
    let answer = read_answer(&mut stream);
    assert_json_error(&answer, 413, "too_large", "declared, not sent");
    assert!(started.elapsed() < Duration::from_secs(5));

    // So is one that asks first (Expect: 100-continue): no 100, the 413.
    let mut stream = connect(&server);
    stream
        .write_all(
            format!("{head}Content-Length: 50000000\r\nExpect: 100-continue\r\n\r\n").as_bytes(),
        )
        .expect("send the head");
    let answer = read_head(&mut stream);
    assert_eq!(answer.status, 413, "{answer:?}");

    let (_, list) = get(&a, &server.url("/api/games"));
    assert_eq!(list, json!([]), "no game was created");
    // Within the limit, both framings work.
    let small = json!({"width": 9}).to_string();
    for framing in [Framing::Length, Framing::Chunked] {
        let answer = send_in_pieces(
            &server,
            head,
            small.as_bytes(),
            framing,
            4,
            Duration::from_millis(1),
        );
        assert_eq!(answer.status, 201, "{framing:?}: {answer:?}");
        assert_eq!(answer.json()["width"], 9);
    }
}

#[test]
fn answers_carry_security_headers_and_assets_are_compressed() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let id = new_game(&a, &server);
    for path in ["/", "/app.js", "/style.css", "/api/players", "/api/nothing"] {
        let answer = get_encoded(&server, path, "identity");
        let csp = answer.header("content-security-policy").unwrap_or("");
        for needle in [
            "default-src 'none'",
            "script-src 'self'",
            "connect-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(needle), "{path}: {csp:?} lacks {needle}");
        }
        assert_eq!(answer.header("x-frame-options"), Some("DENY"), "{path}");
        assert_eq!(
            answer.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(
            answer.header("referrer-policy"),
            Some("no-referrer"),
            "{path}"
        );
    }

    // Assets are compressed for clients that take it.
    let plain = get_encoded(&server, "/app.js", "identity");
    assert_eq!(plain.header("content-encoding"), None);
    for encoding in ["gzip", "br"] {
        let packed = get_encoded(&server, "/app.js", encoding);
        assert_eq!(packed.status, 200);
        assert_eq!(packed.header("content-encoding"), Some(encoding));
        assert!(
            packed.body.len() * 2 < plain.body.len(),
            "{encoding}: {} of {} bytes",
            packed.body.len(),
            plain.body.len()
        );
    }
    let page = get_encoded(&server, "/", "gzip");
    assert_eq!(page.header("content-encoding"), Some("gzip"));

    // Server-sent events are not (they would sit in the compressor).
    let mut stream = connect(&server);
    stream
        .write_all(format!("GET /api/games/{id}/events HTTP/1.1\r\nHost: caro\r\nAccept-Encoding: gzip, br\r\n\r\n").as_bytes())
        .expect("send");
    let events = read_head(&mut stream);
    assert_eq!(events.status, 200);
    assert_eq!(events.header("content-type"), Some("text/event-stream"));
    assert_eq!(events.header("content-encoding"), None);
    drop(stream);

    // A WebSocket asked for with Accept-Encoding still opens and talks.
    let online = post(&a, &server.url("/api/online"), &json!({})).1;
    let online_id = online["id"].as_i64().expect("an online game");
    let url = format!(
        "{}/api/games/{online_id}/ws",
        server.base.replacen("http://", "ws://", 1)
    );
    let mut request = url.into_client_request().expect("a request");
    request.headers_mut().insert(
        "accept-encoding",
        "gzip, deflate, br".parse().expect("a header"),
    );
    let (mut socket, response) = tungstenite::connect(request).expect("the socket opens");
    assert_eq!(response.status().as_u16(), 101);
    assert_eq!(response.headers().get("content-encoding"), None);
    match socket.read().expect("the first message") {
        Message::Text(text) => {
            let first: Value = serde_json::from_str(text.as_str()).expect("JSON");
            assert_eq!(first["t"], "game");
            assert_eq!(first["you"], "spectator");
        }
        other => panic!("not the game: {other:?}"),
    }
}

/// POSTs an online game, then resigns it over HTTP with black's token.
fn create_and_resign(a: &ureq::Agent, server: &Server) -> u16 {
    let (status, body) = post(a, &server.url("/api/online"), &json!({}));
    if status != 201 {
        assert_eq!(body["code"], "rate_limited", "{body}");
        return status;
    }
    let id = body["id"].as_i64().expect("id");
    let token = body["black"]["token"].as_str().expect("token");
    let res = a
        .post(server.url(&format!("/api/games/{id}/resign")))
        .header("Content-Type", "application/json")
        .header("X-Caro-Seat", token)
        .send("{}")
        .expect("POST");
    assert_eq!(res.status().as_u16(), 200);
    status
}

#[test]
fn clients_are_limited_in_the_games_they_create() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(
        dir.path(),
        &["--games-per-minute", "5", "--online-games-per-hour", "3"],
    );
    let a = agent();
    for _ in 0..5 {
        assert_eq!(post(&a, &server.url("/api/games"), &json!({})).0, 201);
    }
    let (status, err) = post(&a, &server.url("/api/games"), &json!({}));
    assert_eq!(
        (status, err["code"].as_str()),
        (429, Some("rate_limited")),
        "{err}"
    );
    let res = a
        .post(server.url("/api/games"))
        .header("Content-Type", "application/json")
        .send("{}")
        .expect("POST");
    let wait: u64 = res
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("a Retry-After");
    assert!((1..=13).contains(&wait), "{wait}");
    // Every way to create a game counts.
    let (status, err) = post_raw(&a, &server.url("/api/import"), "text/plain", "hello\n");
    assert_eq!(
        (status, err["code"].as_str()),
        (429, Some("rate_limited")),
        "{err}"
    );
    let (status, err) = post(&a, &server.url("/api/games/1/rematch"), &json!({}));
    assert_eq!(
        (status, err["code"].as_str()),
        (429, Some("rate_limited")),
        "{err}"
    );
    // Reading is not limited.
    assert_eq!(get(&a, &server.url("/api/games")).0, 200);
    assert_eq!(get(&a, &server.url("/api/games/1")).0, 200);

    // Another address is served.
    let mut other = connect_from("127.0.0.2", &server);
    let body = "{}";
    other
        .write_all(
            format!(
                "POST /api/games HTTP/1.1\r\nHost: caro\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .expect("send");
    assert_eq!(read_answer(&mut other).status, 201);
}

#[test]
fn resigning_each_online_game_does_not_get_round_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &["--online-games-per-hour", "3"]);
    let a = agent();
    // Never more than one open at a time, far under the cap of 20 open
    // games: the hourly count still stops the fourth.
    for _ in 0..3 {
        assert_eq!(create_and_resign(&a, &server), 201);
    }
    assert_eq!(create_and_resign(&a, &server), 429);
    // Offline games are counted apart.
    assert_eq!(post(&a, &server.url("/api/games"), &json!({})).0, 201);
}

#[test]
fn bodies_must_be_of_the_declared_type() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = agent();
    let psq = "Piskvork 15x15, 11:11, 0\n8,8,0\n-1\n";
    for content_type in ["application/json", "application/x-www-form-urlencoded", ""] {
        let (status, err) = post_raw(&a, &server.url("/api/import"), content_type, psq);
        assert_eq!(
            (status, err["code"].as_str()),
            (415, Some("unsupported_media_type")),
            "{content_type:?}: {err}"
        );
    }
    let (status, view) = post_raw(
        &a,
        &server.url("/api/import"),
        "text/plain; charset=utf-8",
        psq,
    );
    assert_eq!(status, 201, "{view}");
    for (path, content_type) in [
        ("/api/games", "text/plain"),
        ("/api/online", "application/x-www-form-urlencoded"),
        ("/api/games/1/move", "text/plain"),
    ] {
        let (status, err) = post_raw(&a, &server.url(path), content_type, "{}");
        assert_eq!(
            (status, err["code"].as_str()),
            (415, Some("unsupported_media_type")),
            "{path}: {err}"
        );
    }
}

/// A new game with the default settings: its id.
fn new_game(a: &ureq::Agent, server: &Server) -> i64 {
    post(a, &server.url("/api/games"), &json!({}))
        .1
        .get("id")
        .and_then(Value::as_i64)
        .expect("a game")
}
