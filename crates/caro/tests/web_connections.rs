//! Slow, idle and too many connections against a real `caro serve`: the
//! server closes what stalls, refuses what is over its caps with the JSON
//! error, and keeps serving everyone else.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::{connect_from, Server};

/// A connection from 127.0.0.1. A read waits at most 20 s: the servers
/// here are set to close stalled connections after 1 s, so a read that
/// times out means a connection the server kept.
fn connect(server: &Server) -> TcpStream {
    let stream = TcpStream::connect(server.addr()).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("read timeout");
    stream
}

/// Everything the server sends until it closes the connection.
fn read_until_closed(stream: &mut TcpStream) -> std::io::Result<String> {
    let mut out = Vec::new();
    stream.read_to_end(&mut out)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// One GET on a fresh connection that asks to be closed after it: the
/// status line.
fn get_status(mut stream: TcpStream, path: &str) -> String {
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: caro\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let answer = read_until_closed(&mut stream).expect("an answer");
    answer.lines().next().unwrap_or_default().to_string()
}

/// Whether 127.0.0.1 is served again within five seconds: a place is
/// given back just after its connection closes.
fn served_again(server: &Server) -> bool {
    (0..100).any(|_| {
        let ok = get_status(connect(server), "/api/players") == "HTTP/1.1 200 OK";
        if !ok {
            std::thread::sleep(Duration::from_millis(50));
        }
        ok
    })
}

#[test]
fn half_sent_headers_and_idle_connections_are_closed() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &["--header-timeout", "1s"]);

    let mut half = connect(&server);
    half.write_all(b"GET /api/players HTTP/1.1\r\nHost: caro\r\n")
        .expect("send");
    let answer = read_until_closed(&mut half)
        .expect("the server closes a connection whose headers never end");
    assert!(!answer.contains("200 OK"), "{answer}");

    let mut idle = connect(&server);
    idle.write_all(b"GET /api/players HTTP/1.1\r\nHost: caro\r\n\r\n")
        .expect("send");
    let answer =
        read_until_closed(&mut idle).expect("the server closes an idle kept-alive connection");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");

    // Silence from the start is closed too.
    let mut silent = connect(&server);
    read_until_closed(&mut silent).expect("the server closes a silent connection");
}

#[test]
fn a_stalled_body_is_answered_with_the_json_error() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &["--body-timeout", "1s"]);
    let mut slow = connect(&server);
    slow.write_all(
        b"POST /api/games HTTP/1.1\r\nHost: caro\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"black\":",
    )
    .expect("send");
    let answer = read_until_closed(&mut slow).expect("the server answers a stalled body");
    let status = answer.lines().next().unwrap_or_default();
    assert!(status.starts_with("HTTP/1.1 4"), "{answer}");
    assert!(answer.contains("\"code\""), "{answer}");
}

#[test]
fn a_trickled_body_is_cut_off_when_its_time_is_up() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &["--body-timeout", "1s"]);
    let mut stream = connect(&server);
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("read timeout");
    stream
        .write_all(
            b"POST /api/games HTTP/1.1\r\nHost: caro\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n",
        )
        .expect("send the head");
    // A byte every 250 ms: never a pause of a second, but the whole body
    // would take 15 s.
    let mut writer = stream.try_clone().expect("a second handle");
    let trickle = std::thread::spawn(move || {
        for _ in 0..60 {
            if writer.write_all(b" ").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    });
    let started = std::time::Instant::now();
    let answer = common::read_answer(&mut stream);
    let took = started.elapsed();
    assert_eq!(answer.status, 408, "{answer:?}");
    assert_eq!(answer.json()["code"], "body_timeout", "{answer:?}");
    assert!(took < Duration::from_secs(3), "answered after {took:?}");
    assert_eq!(answer.header("connection"), Some("close"), "{answer:?}");
    drop(stream);
    let _ = trickle.join();
    // The server serves on.
    assert_eq!(
        get_status(connect(&server), "/api/players"),
        "HTTP/1.1 200 OK"
    );
}

#[test]
fn connection_caps_refuse_the_excess_and_serve_everyone_else() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(
        dir.path(),
        &[
            "--max-connections-per-client",
            "3",
            "--max-connections",
            "5",
        ],
    );
    let mut held: Vec<TcpStream> = (0..3).map(|_| connect(&server)).collect();

    // A fourth connection from the same address is refused with the JSON
    // error and closed.
    let mut fourth = connect(&server);
    let answer = read_until_closed(&mut fourth).expect("a refusal");
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.contains("\"code\":\"too_many_connections\""),
        "{answer}"
    );

    // Another client is served.
    assert_eq!(
        get_status(connect_from("127.0.0.2", &server), "/api/players"),
        "HTTP/1.1 200 OK"
    );

    // Five in all: two more clients fill the server, and a sixth is
    // refused whoever it is.
    held.push(connect_from("127.0.0.2", &server));
    held.push(connect_from("127.0.0.3", &server));
    let answer = read_until_closed(&mut connect_from("127.0.0.4", &server)).expect("a refusal");
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");

    // A closed connection gives its place back.
    held.truncate(2);
    assert!(
        served_again(&server),
        "a place freed by a closed connection is never given back"
    );
}

#[test]
fn a_websocket_keeps_its_place_until_it_closes() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &["--max-connections-per-client", "2"]);
    let body = r#"{"width":15,"height":15}"#;
    let mut create = connect(&server);
    write!(
        create,
        "POST /api/online HTTP/1.1\r\nHost: caro\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let answer = read_until_closed(&mut create).expect("the new game");
    let game: serde_json::Value = answer
        .split_once("\r\n\r\n")
        .and_then(|(_, json)| serde_json::from_str(json).ok())
        .unwrap_or_else(|| panic!("{answer}"));
    let id = game["id"].as_i64().expect("an id");
    let ws_url = format!(
        "{}/api/games/{id}/ws",
        server.base.replacen("http://", "ws://", 1)
    );
    // A place is given back just after its connection closes: retry
    // briefly rather than race it.
    let open = || {
        for _ in 0..100 {
            if let Ok((socket, _)) = tungstenite::connect(&ws_url) {
                return socket;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("no socket could be opened");
    };
    let mut sockets = vec![open(), open()];
    for s in &mut sockets {
        s.read().expect("the game");
    }
    let answer = read_until_closed(&mut connect(&server)).expect("a refusal");
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");

    drop(sockets.pop());
    assert!(
        served_again(&server),
        "a closed socket's place is never given back"
    );
}
