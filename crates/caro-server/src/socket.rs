//! What the game socket ([`crate::online_socket`]) and the live analysis socket
//! ([`crate::analysis_socket`]) share: the frame limits, the close codes for a
//! frame too large (1009), not UTF-8 (1007) or binary (1003), the count of
//! messages a second (1008), the close handshake, and the pings.

use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};

/// Frames up to this size are read whole, so a socket that sends one over
/// its own limit gets a clean close 1009; a larger frame is refused by the
/// WebSocket layer before its payload is read, and still answered with
/// close 1009 before the connection is dropped.
const HARD_FRAME_LIMIT: usize = 1024 * 1024;

/// `upgrade` with the frame limits both sockets read under.
pub(crate) fn limited(upgrade: WebSocketUpgrade) -> WebSocketUpgrade {
    upgrade
        .max_message_size(HARD_FRAME_LIMIT)
        .max_frame_size(HARD_FRAME_LIMIT)
}

/// What a socket's next read comes to.
pub(crate) enum Incoming {
    /// A text message within the limits.
    Text(Utf8Bytes),
    /// A ping or a pong: nothing to do.
    Nothing,
    /// Close the socket with this code and reason.
    Close(u16, String),
    /// The client closed the socket or the connection broke.
    Gone,
}

/// Reads a socket's messages: at most `max_rate` a second (pings
/// included) and `max_frame` bytes a message.
pub(crate) struct Reader {
    max_frame: usize,
    max_rate: u32,
    window: Instant,
    count: u32,
}

impl Reader {
    pub(crate) fn new(max_frame: usize, max_rate: u32) -> Reader {
        Reader {
            max_frame,
            max_rate,
            window: Instant::now(),
            count: 0,
        }
    }

    /// Counts a message in this second's window; false over the rate.
    fn allow(&mut self) -> bool {
        if self.window.elapsed() >= Duration::from_secs(1) {
            self.window = Instant::now();
            self.count = 0;
        }
        self.count += 1;
        self.count <= self.max_rate
    }

    /// What `incoming` (a [`WebSocket::recv`]) comes to.
    pub(crate) fn read(&mut self, incoming: Option<Result<Message, axum::Error>>) -> Incoming {
        if matches!(incoming, Some(Ok(_))) && !self.allow() {
            return Incoming::Close(
                1008,
                format!("more than {} messages a second", self.max_rate),
            );
        }
        match incoming {
            Some(Ok(Message::Text(text))) if text.len() > self.max_frame => {
                Incoming::Close(1009, format!("message over {} bytes", self.max_frame))
            }
            Some(Ok(Message::Text(text))) => Incoming::Text(text),
            Some(Ok(Message::Binary(_))) => {
                Incoming::Close(1003, "binary frames are not accepted".into())
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => Incoming::Nothing,
            Some(Err(e)) => match refused_frame(e) {
                Some((code, reason)) => Incoming::Close(code, reason.into()),
                None => Incoming::Gone,
            },
            Some(Ok(Message::Close(_))) | None => Incoming::Gone,
        }
    }
}

/// The close code and reason for a frame the WebSocket layer refused: one
/// too large to read (1009) or a text frame that is not UTF-8 (1007).
/// `None` for a broken connection, where nothing can be sent.
fn refused_frame(e: axum::Error) -> Option<(u16, &'static str)> {
    match e
        .into_inner()
        .downcast::<tungstenite::Error>()
        .ok()
        .map(|e| *e)
    {
        Some(tungstenite::Error::Capacity(_)) => Some((1009, "frame too large")),
        Some(tungstenite::Error::Utf8(_)) => Some((1007, "text frame is not valid UTF-8")),
        _ => None,
    }
}

fn close(code: u16, reason: &str) -> Message {
    // A close reason is at most 123 bytes.
    let mut end = reason.len().min(120);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    Message::Close(Some(CloseFrame {
        code,
        reason: reason[..end].to_string().into(),
    }))
}

/// Closes a socket with a code and a reason, then reads what the client
/// still sends until it answers the close (briefly): dropping unread data
/// would reset the connection and lose the reason.
pub(crate) async fn close_with(socket: &mut WebSocket, code: u16, reason: &str) {
    if socket.send(close(code, reason)).await.is_err() {
        return;
    }
    let drain = async {
        while let Some(Ok(msg)) = socket.recv().await {
            if matches!(msg, Message::Close(_)) {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), drain).await;
}

/// A socket's pings: one every interval, and a close once nothing has
/// been heard for two and a half intervals.
pub(crate) struct Heartbeat {
    every: Duration,
    ticks: tokio::time::Interval,
    last_heard: Instant,
}

/// What a beat of the [`Heartbeat`] asks for.
pub(crate) enum Beat {
    /// Ping the client ([`ping`]).
    Ping,
    /// Close the socket (1001, "no answer to pings"): the client has not
    /// answered.
    Dead,
}

impl Heartbeat {
    pub(crate) fn new(every: Duration) -> Heartbeat {
        Heartbeat {
            every,
            ticks: tokio::time::interval_at(tokio::time::Instant::now() + every, every),
            last_heard: Instant::now(),
        }
    }

    /// The client said something.
    pub(crate) fn heard(&mut self) {
        self.last_heard = Instant::now();
    }

    /// Waits for the next interval: a ping is due then, unless the client
    /// has been silent too long.
    pub(crate) async fn beat(&mut self) -> Beat {
        self.ticks.tick().await;
        if self.last_heard.elapsed() >= dead_peer_timeout(self.every) {
            Beat::Dead
        } else {
            Beat::Ping
        }
    }
}

/// Pings the client; false when the connection is gone.
pub(crate) async fn ping(socket: &mut WebSocket) -> bool {
    socket.send(Message::Ping(Default::default())).await.is_ok()
}

/// How long a socket may stay silent before the server closes it: two and
/// a half ping intervals (a pong, or anything else, counts).
fn dead_peer_timeout(ping: Duration) -> Duration {
    ping * 5 / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Option<Result<Message, axum::Error>> {
        Some(Ok(Message::Text(s.into())))
    }

    fn closed_with(incoming: Incoming) -> Option<(u16, String)> {
        match incoming {
            Incoming::Close(code, reason) => Some((code, reason)),
            _ => None,
        }
    }

    #[test]
    fn text_within_the_limit_is_read_and_over_it_closes_1009() {
        let mut reader = Reader::new(4, 20);
        assert!(matches!(reader.read(text("abcd")), Incoming::Text(t) if t.as_str() == "abcd"));
        assert_eq!(
            closed_with(reader.read(text("abcde"))),
            Some((1009, "message over 4 bytes".to_string()))
        );
    }

    #[test]
    fn binary_closes_1003_and_pings_are_nothing() {
        let mut reader = Reader::new(64, 20);
        assert_eq!(
            closed_with(reader.read(Some(Ok(Message::Binary(vec![1].into()))))),
            Some((1003, "binary frames are not accepted".to_string()))
        );
        assert!(matches!(
            reader.read(Some(Ok(Message::Ping(Default::default())))),
            Incoming::Nothing
        ));
        assert!(matches!(reader.read(None), Incoming::Gone));
    }

    #[test]
    fn more_than_the_rate_closes_1008_pings_included() {
        let mut reader = Reader::new(64, 3);
        assert!(matches!(reader.read(text("a")), Incoming::Text(_)));
        assert!(matches!(
            reader.read(Some(Ok(Message::Pong(Default::default())))),
            Incoming::Nothing
        ));
        assert!(matches!(reader.read(text("b")), Incoming::Text(_)));
        assert_eq!(
            closed_with(reader.read(text("c"))),
            Some((1008, "more than 3 messages a second".to_string()))
        );
    }

    #[test]
    fn a_close_reason_is_cut_at_a_character_boundary() {
        let reason = "é".repeat(100);
        let Message::Close(Some(frame)) = close(1007, &reason) else {
            panic!("not a close frame");
        };
        assert_eq!(frame.code, 1007);
        assert_eq!(frame.reason.len(), 120);
    }
}
