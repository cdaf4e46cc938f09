//! A WebSocket client for the web tests: a game's socket (a seat, or a
//! spectator's) or the live analysis socket, JSON messages read until one
//! is wanted, and the close frame the server ends with.

use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;
use tungstenite::protocol::frame::coding::CloseCode;
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

use super::Server;

/// One WebSocket client (the socket itself for raw frames).
pub struct Ws(pub WebSocket<MaybeTlsStream<TcpStream>>);

impl Ws {
    /// Opens `ws://…PATH` on the server; reads give up after `timeout`
    /// (generous: a stuck test fails instead of hanging).
    pub fn open_path(server: &Server, path: &str, timeout: Duration) -> Ws {
        let url = format!("{}{path}", server.base.replacen("http://", "ws://", 1));
        let (socket, _) = tungstenite::connect(url).expect("connect the socket");
        let ws = Ws(socket);
        ws.set_read_timeout(timeout);
        ws
    }

    /// How long a read waits before it gives up.
    pub fn set_read_timeout(&self, timeout: Duration) {
        if let MaybeTlsStream::Plain(s) = self.0.get_ref() {
            s.set_read_timeout(Some(timeout)).expect("timeout");
        }
    }

    /// A game's socket: a seat by its token, or a spectator's without one;
    /// reads give up after a minute.
    pub fn game(server: &Server, id: i64, token: Option<&str>) -> Ws {
        let path = match token {
            Some(t) => format!("/api/games/{id}/ws?seat={t}"),
            None => format!("/api/games/{id}/ws"),
        };
        Ws::open_path(server, &path, Duration::from_secs(60))
    }

    /// The live analysis socket; reads give up after two minutes.
    pub fn analysis(server: &Server) -> Ws {
        Ws::open_path(server, "/api/analysis/ws", Duration::from_secs(120))
    }

    /// Sends a JSON message.
    pub fn send(&mut self, message: &Value) {
        self.0
            .send(Message::text(message.to_string()))
            .expect("send a message");
    }

    /// The next JSON message.
    pub fn next(&mut self) -> Value {
        loop {
            match self.0.read().expect("read a message") {
                Message::Text(text) => return serde_json::from_str(text.as_str()).expect("JSON"),
                Message::Close(frame) => panic!("the socket was closed: {frame:?}"),
                _ => {}
            }
        }
    }

    /// Reads messages until one satisfies `done`.
    pub fn until(&mut self, done: impl Fn(&Value) -> bool) -> Value {
        self.until_each(|_| {}, done)
    }

    /// Reads messages until one satisfies `done`, handing each to `seen`.
    pub fn until_each(
        &mut self,
        mut seen: impl FnMut(&Value),
        done: impl Fn(&Value) -> bool,
    ) -> Value {
        loop {
            let msg = self.next();
            seen(&msg);
            if done(&msg) {
                return msg;
            }
        }
    }

    /// Reads game messages until the game reaches ply `ply`.
    pub fn at_ply(&mut self, ply: u64) -> Value {
        self.until(|m| m["t"] == "game" && m["ply"] == ply)
    }

    /// The next error message (game updates skipped).
    pub fn error(&mut self) -> Value {
        self.until(|m| m["t"] == "error")
    }

    /// Reads until the server closes the socket: its close code and reason.
    pub fn closed(&mut self) -> (u16, String) {
        loop {
            match self.0.read() {
                Ok(Message::Close(Some(frame))) => {
                    return (u16::from(frame.code), frame.reason.to_string())
                }
                Ok(Message::Close(None)) => return (u16::from(CloseCode::Status), String::new()),
                Ok(_) => {}
                Err(e) => panic!("the socket failed before a close frame: {e}"),
            }
        }
    }
}
