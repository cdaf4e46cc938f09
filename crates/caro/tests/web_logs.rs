//! `caro serve`'s log: a start-up line, one line a request, JSON with
//! `--log-format json`, and never a seat token.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

/// Starts `bin serve` on a free port with `args`, logging at info level,
/// both outputs piped; the child and the base address of its ready line.
fn serve_logging(bin: &std::ffi::OsStr, args: &[&str], data: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(bin)
        .args(["serve", "--port", "0"])
        .args(args)
        .arg("--data")
        .arg(data)
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start caro serve");
    let mut ready = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut ready)
        .expect("the ready line");
    let base = common::base_of_ready_line(&ready);
    (child, base)
}

/// A `caro serve --log-format json` whose standard error is read line by
/// line as JSON.
struct LoggedServer {
    child: Child,
    base: String,
    lines: mpsc::Receiver<String>,
}

impl LoggedServer {
    fn start(data: &std::path::Path) -> LoggedServer {
        let bin = std::ffi::OsString::from(env!("CARGO_BIN_EXE_caro"));
        let (mut child, base) = serve_logging(&bin, &["--log-format", "json"], data);
        let stderr = child.stderr.take().expect("stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        LoggedServer { child, base, lines }
    }

    /// Log lines until one satisfies `found` (each line must be JSON).
    fn until(&self, seen: &mut Vec<String>, found: impl Fn(&Value) -> bool) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(20))
                .unwrap_or_else(|_| {
                    panic!("no such log line; the log so far:\n{}", seen.join("\n"))
                });
            let value: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            seen.push(line);
            if found(&value) {
                return value;
            }
        }
    }
}

impl Drop for LoggedServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_log_has_a_start_line_and_a_line_a_request_and_never_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let server = LoggedServer::start(dir.path());
    let mut seen = Vec::new();

    let start = server.until(&mut seen, |v| v["fields"]["message"] == "caro is ready");
    assert_eq!(start["fields"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        format!(
            "http://{}",
            start["fields"]["address"].as_str().unwrap_or_default()
        ),
        server.base
    );
    assert_eq!(
        start["fields"]["data"].as_str(),
        dir.path().to_str(),
        "{start}"
    );

    let a = common::agent();
    let (status, _) = common::get(&a, &format!("{}/api/players", server.base));
    assert_eq!(status, 200);
    let line = server.until(&mut seen, |v| v["span"]["path"] == "/api/players");
    assert_eq!(line["span"]["method"], "GET");
    assert_eq!(line["fields"]["status"], 200);
    assert!(line["fields"]["latency_ms"].is_number(), "{line}");

    // A seat token travels in a query and a header: neither is logged.
    let (status, game) = common::post(
        &a,
        &format!("{}/api/online", server.base),
        &json!({"width": 15, "height": 15}),
    );
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_i64().expect("an id");
    let token = game["black"]["token"]
        .as_str()
        .expect("a token")
        .to_string();
    let (status, _) = common::get(&a, &format!("{}/api/games/{id}?seat={token}", server.base));
    assert_eq!(status, 200);
    let (status, _) = common::get(&a, &format!("{}/api/games/nope", server.base));
    assert_eq!(status, 400);
    let line = server.until(&mut seen, |v| v["span"]["path"] == "/api/games/nope");
    assert_eq!(line["fields"]["status"], 400);
    assert!(
        seen.iter().all(|l| !l.contains(&token)),
        "a seat token in the log:\n{}",
        seen.join("\n")
    );
}

#[test]
fn a_closed_standard_error_does_not_stop_the_answers() {
    let dir = tempfile::tempdir().unwrap();
    // CARO_TEST_BIN: the test against another build (to see it fail).
    let bin =
        std::env::var_os("CARO_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_caro").into());
    // A line a request: every request writes to the closed pipe.
    let (mut child, base) = serve_logging(&bin, &[], dir.path());
    // Nobody reads the log any more: each write to it fails (EPIPE).
    drop(child.stderr.take());
    let server = LoggedServer {
        child,
        base,
        lines: mpsc::channel().1,
    };
    let a = common::agent();
    for _ in 0..3 {
        let (status, list) = common::get(&a, &format!("{}/api/games", server.base));
        assert_eq!(status, 200, "{list}");
    }
    let (status, game) = common::post(
        &a,
        &format!("{}/api/games", server.base),
        &json!({"black": "human", "white": "human"}),
    );
    assert_eq!(status, 201, "{game}");
    let id = game["id"].as_i64().expect("an id");
    let (status, view) = common::get(&a, &format!("{}/api/games/{id}", server.base));
    assert_eq!(status, 200, "{view}");
    // An error answer logs too (server errors at error level).
    let (status, body) = common::get(&a, &format!("{}/api/games/999999", server.base));
    assert_eq!(
        (status, &body["code"]),
        (404, &json!("not_found")),
        "{body}"
    );
}
