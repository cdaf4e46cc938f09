//! A real `caro serve` process for the web tests: a fresh data folder, a
//! free port, killed when dropped.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// A tic-tac-toe game, moves as (x, y) from the bottom left, that fills
/// the board with no line: black a1 c1 a2 b3 c3, white b1 b2 c2 a3.
pub const DRAWN_TICTACTOE: [(u8, u8); 9] = [
    (0, 0),
    (1, 0),
    (2, 0),
    (1, 1),
    (0, 1),
    (2, 1),
    (1, 2),
    (0, 2),
    (2, 2),
];

pub mod browser;
pub mod people;
pub mod pg;
pub mod ws;

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
        // CARO_TEST_BIN runs the tests against another build (an older
        // one, to see a test fail before a change).
        let bin =
            std::env::var_os("CARO_TEST_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_caro").into());
        let mut child = Command::new(bin)
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
        let base = base_of_ready_line(&line);
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

    /// The server's socket address.
    pub fn addr(&self) -> SocketAddr {
        self.base
            .trim_start_matches("http://")
            .parse()
            .expect("the server's address")
    }
}

/// An answer read off a plain TCP connection.
#[derive(Debug)]
pub struct RawAnswer {
    /// The status code.
    pub status: u16,
    /// The headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body (chunked transfer decoded; empty when only the head was
    /// read).
    pub body: Vec<u8>,
}

impl RawAnswer {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// `http://ADDRESS` from the line `caro serve` prints when it is ready.
pub fn base_of_ready_line(line: &str) -> String {
    line.split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .map(|addr| format!("http://{addr}"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
}

/// A connection from another loopback address (127.0.0.2, …), as another
/// client would make; its reads give up after 20 s.
pub fn connect_from(source: &str, server: &Server) -> TcpStream {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("a runtime");
    let stream = runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket
            .bind(format!("{source}:0").parse().expect("an address"))
            .expect("bind the source address");
        socket.connect(server.addr()).await.expect("connect")
    });
    let stream = stream.into_std().expect("a std stream");
    stream.set_nonblocking(false).expect("blocking");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("read timeout");
    stream
}

/// A connection to the server whose reads give up after 10 s.
pub fn connect(server: &Server) -> TcpStream {
    let stream = TcpStream::connect(server.addr()).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("read timeout");
    stream
}

fn read_line(stream: &mut TcpStream) -> String {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while !line.ends_with(b"\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => line.push(byte[0]),
            Ok(_) => panic!(
                "the connection closed in the middle of the answer: {:?}",
                String::from_utf8_lossy(&line)
            ),
            Err(e) => panic!(
                "reading the answer: {e} (after {:?})",
                String::from_utf8_lossy(&line)
            ),
        }
    }
    line.truncate(line.len() - 2);
    String::from_utf8(line).expect("an ASCII header line")
}

/// Reads an answer's status line and headers (skipping `100 Continue`).
pub fn read_head(stream: &mut TcpStream) -> RawAnswer {
    loop {
        let status_line = read_line(stream);
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status in {status_line:?}"));
        let mut headers = Vec::new();
        loop {
            let line = read_line(stream);
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("a header");
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
        if status != 100 {
            return RawAnswer {
                status,
                headers,
                body: Vec::new(),
            };
        }
    }
}

/// Reads a whole answer: its head, then its body by length, chunks or
/// until the connection closes.
pub fn read_answer(stream: &mut TcpStream) -> RawAnswer {
    let mut answer = read_head(stream);
    if answer.header("transfer-encoding") == Some("chunked") {
        loop {
            let size = read_line(stream);
            let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
                .expect("a chunk size");
            let mut chunk = vec![0u8; size + 2];
            stream.read_exact(&mut chunk).expect("a chunk");
            answer.body.extend_from_slice(&chunk[..size]);
            if size == 0 {
                break;
            }
        }
    } else if let Some(length) = answer.header("content-length") {
        let mut body = vec![0u8; length.parse().expect("a length")];
        stream.read_exact(&mut body).expect("the body");
        answer.body = body;
    } else {
        stream.read_to_end(&mut answer.body).expect("the body");
    }
    answer
}

/// How a raw request's body is framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// With `Content-Length`.
    Length,
    /// With `Transfer-Encoding: chunked`, a chunk a piece.
    Chunked,
}

/// Sends a request on a fresh connection: `head` is the request line and
/// headers (each ending in CRLF, without the blank line); the body goes in
/// pieces of `piece` bytes with `pause` between them, as a slow client or
/// a busy machine would send it. Then reads the answer. Fails if the
/// server breaks the connection while the body is being sent.
pub fn send_in_pieces(
    server: &Server,
    head: &str,
    body: &[u8],
    framing: Framing,
    piece: usize,
    pause: Duration,
) -> RawAnswer {
    let mut stream = connect(server);
    let framing_header = match framing {
        Framing::Length => format!("Content-Length: {}\r\n", body.len()),
        Framing::Chunked => "Transfer-Encoding: chunked\r\n".to_string(),
    };
    stream
        .write_all(format!("{head}{framing_header}\r\n").as_bytes())
        .expect("send the head");
    for (i, part) in body.chunks(piece).enumerate() {
        let sent = match framing {
            Framing::Length => stream.write_all(part),
            Framing::Chunked => stream
                .write_all(format!("{:x}\r\n", part.len()).as_bytes())
                .and_then(|()| stream.write_all(part))
                .and_then(|()| stream.write_all(b"\r\n")),
        };
        if let Err(e) = sent {
            panic!(
                "the server broke the connection after {} of {} bytes: {e}",
                i * piece,
                body.len()
            );
        }
        std::thread::sleep(pause);
    }
    if framing == Framing::Chunked {
        stream.write_all(b"0\r\n\r\n").expect("the last chunk");
    }
    read_answer(&mut stream)
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
