//! A real `caro serve` process for the web tests: a fresh data folder, a
//! free port, killed when dropped.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;

/// A running server.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Its data folder.
    pub data: PathBuf,
}

impl Server {
    /// Starts `caro serve --port 0 --data DATA` and waits for its address.
    pub fn start(data: &Path) -> Server {
        Server::start_with(data, &[])
    }

    /// As [`Server::start`], with more arguments.
    pub fn start_with(data: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_caro"))
            .args(["serve", "--port", "0", "--data"])
            .arg(data)
            .args(extra)
            // Errors only: a line a request would bury the tests' output.
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start caro serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the ready line");
        let base = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .map(|addr| format!("http://{addr}"))
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Server {
            child,
            base,
            data: data.to_path_buf(),
        }
    }

    /// Kills the process at once (SIGKILL), as a crash would.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The full address of a path.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP client that returns 4xx and 5xx answers instead of failing.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// GET, returning the status and the JSON body.
pub fn get(agent: &ureq::Agent, url: &str) -> (u16, Value) {
    let mut res = agent.get(url).call().expect("GET");
    let status = res.status().as_u16();
    let body = res.body_mut().read_to_string().expect("body");
    (
        status,
        serde_json::from_str(&body).unwrap_or(Value::String(body)),
    )
}

/// POST a JSON text, returning the status and the JSON body.
pub fn post_raw(agent: &ureq::Agent, url: &str, content_type: &str, body: &str) -> (u16, Value) {
    let mut res = agent
        .post(url)
        .header("Content-Type", content_type)
        .send(body)
        .expect("POST");
    let status = res.status().as_u16();
    let text = res.body_mut().read_to_string().expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// POST a JSON value.
pub fn post(agent: &ureq::Agent, url: &str, body: &Value) -> (u16, Value) {
    post_raw(agent, url, "application/json", &body.to_string())
}
