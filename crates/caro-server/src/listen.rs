//! The listener: accepts TCP connections within caps and serves each one
//! with HTTP/1.1 under timeouts, so slow or idle clients cannot hold the
//! server.
//!
//! - A connection must send a request's complete headers within
//!   [`ConnectionLimits::header_timeout`], both when it opens and while it
//!   is kept alive between requests; otherwise it is closed.
//! - A request body must arrive whole within
//!   [`ConnectionLimits::body_timeout`] of the end of its headers, however
//!   it is paced; otherwise the request is answered `408` with the JSON
//!   error `body_timeout` and the connection is closed.
//! - At most [`ConnectionLimits::max_connections`] connections are open at
//!   once, and at most [`ConnectionLimits::max_per_client`] from one client
//!   address. A WebSocket keeps its connection's place until it closes.
//!   A connection over a cap is answered `503` with the JSON error
//!   `too_many_connections` and closed at once, so everyone else is still
//!   served.
//! - A request hyper cannot read (a bad request line or header, a target
//!   over 64 KiB, too many or too large headers) is answered by hyper
//!   before any route; its bare answer is given the JSON error on the way
//!   out (see `JsonParseErrors`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::ConnectInfo;
use axum::extract::Request;
use axum::response::Response;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;
use tower_http::timeout::RequestBodyTimeoutLayer;
use tower_http::trace::TraceLayer;

/// Caps and timeouts of client connections.
#[derive(Clone, Debug)]
pub struct ConnectionLimits {
    /// Most connections open at once, from all clients.
    pub max_connections: usize,
    /// Most connections open at once from one client address.
    pub max_per_client: usize,
    /// Time a connection has to send a request's headers (when it opens,
    /// and between requests on a kept-alive connection).
    pub header_timeout: Duration,
    /// Time a request has to send its whole body, from the end of its
    /// headers.
    pub body_timeout: Duration,
    /// How often a WebSocket is pinged; one silent for two and a half
    /// times this is taken for dead and closed.
    pub ws_ping: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> ConnectionLimits {
        ConnectionLimits {
            max_connections: 10_000,
            max_per_client: 256,
            header_timeout: Duration::from_secs(15),
            body_timeout: Duration::from_secs(15),
            ws_ping: crate::online_socket::PING_INTERVAL,
        }
    }
}

/// When a request's body must have arrived whole, and the limit that
/// gave it ([`ConnectionLimits::body_timeout`] after the headers).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyDeadline {
    pub(crate) at: tokio::time::Instant,
    pub(crate) limit: Duration,
}

/// Open connections, in all and by client address.
#[derive(Default)]
struct Census {
    total: usize,
    by_client: HashMap<IpAddr, usize>,
}

/// A connection's place under the caps, given back when the last copy is
/// dropped: when the connection closes, or when the WebSocket it became
/// closes.
#[derive(Clone)]
pub struct ConnectionSlot(#[allow(dead_code)] Arc<SlotInner>);

struct SlotInner {
    census: Arc<Mutex<Census>>,
    client: IpAddr,
}

impl Drop for SlotInner {
    fn drop(&mut self) {
        let mut census = self.census.lock().unwrap_or_else(|e| e.into_inner());
        census.total -= 1;
        if let Some(n) = census.by_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                census.by_client.remove(&self.client);
            }
        }
    }
}

/// Takes a place for a connection from `client`, or `None` over a cap.
fn admit(
    census: &Arc<Mutex<Census>>,
    limits: &ConnectionLimits,
    client: IpAddr,
) -> Option<ConnectionSlot> {
    let mut c = census.lock().unwrap_or_else(|e| e.into_inner());
    let mine = c.by_client.get(&client).copied().unwrap_or(0);
    if c.total >= limits.max_connections || mine >= limits.max_per_client {
        return None;
    }
    c.total += 1;
    *c.by_client.entry(client).or_insert(0) += 1;
    Some(ConnectionSlot(Arc::new(SlotInner {
        census: Arc::clone(census),
        client,
    })))
}

/// The answer to a connection over a cap: `503` with the JSON error.
fn refusal() -> String {
    let body = serde_json::json!({
        "error": "too many connections from this address or in all",
        "code": "too_many_connections",
    })
    .to_string();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 5\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
}

async fn refuse(mut stream: TcpStream) {
    let write = async {
        stream.write_all(refusal().as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), write).await;
}

/// A connection's stream, on which the answers hyper writes itself to a
/// request it cannot read are made the JSON error.
///
/// hyper answers a request whose head does not parse before any service
/// sees it: `400` for a bad request line or a header with bytes HTTP does
/// not allow, `414` for a request target over 65,534 bytes (the longest
/// the `http` crate's `Uri` holds) and `431` for headers over its read
/// buffer, each with an empty body, then closes the connection; it has no
/// hook to give that answer a body. Those answers are recognised here as
/// they are written (one of these statuses with `content-length: 0` and
/// nothing after the head, which the app never sends: its errors all have
/// a JSON body) and replaced by the same status with the JSON error.
struct JsonParseErrors<S> {
    inner: S,
    /// A replacement answer and how much of it is written.
    pending: Option<(Vec<u8>, usize)>,
}

impl<S: AsyncWrite + Unpin> JsonParseErrors<S> {
    fn new(inner: S) -> JsonParseErrors<S> {
        JsonParseErrors {
            inner,
            pending: None,
        }
    }

    /// Writes what is left of a replacement answer.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, written)) = &mut self.pending {
            if *written == bytes.len() {
                self.pending = None;
                break;
            }
            match Pin::new(&mut self.inner).poll_write(cx, &bytes[*written..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *written += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }
}

/// The JSON error in place of hyper's bare answer to a request it could
/// not read, if `head` is one (see [`JsonParseErrors`]).
fn json_parse_error(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let head = text.strip_suffix("\r\n\r\n")?;
    if head.contains("\r\n\r\n") {
        return None;
    }
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?;
    let (code, message) = match status_line.strip_prefix("HTTP/1.1 ")?.get(..4)? {
        "400 " => (
            "bad_request",
            "the request could not be read: a bad request line or header".to_string(),
        ),
        "414 " => (
            "uri_too_long",
            format!(
                "the request target is longer than {} bytes",
                crate::api::MAX_URI
            ),
        ),
        "431 " => (
            "headers_too_large",
            "the request headers are too large".to_string(),
        ),
        _ => return None,
    };
    let headers: Vec<&str> = lines.collect();
    let empty = headers.iter().any(|h| {
        h.split_once(':').is_some_and(|(name, value)| {
            name.trim().eq_ignore_ascii_case("content-length") && value.trim() == "0"
        })
    });
    if !empty {
        return None;
    }
    let body = serde_json::json!({ "error": message, "code": code }).to_string();
    let mut answer = format!(
        "{status_line}\r\ncontent-type: application/json\r\nx-content-type-options: nosniff\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for header in headers {
        let name = header.split(':').next().unwrap_or("").trim();
        if !name.eq_ignore_ascii_case("content-length") && !name.eq_ignore_ascii_case("connection")
        {
            answer.push_str(header);
            answer.push_str("\r\n");
        }
    }
    answer.push_str("\r\n");
    answer.push_str(&body);
    Some(answer.into_bytes())
}

impl<S: AsyncRead + Unpin> AsyncRead for JsonParseErrors<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for JsonParseErrors<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        std::task::ready!(self.drain(cx))?;
        if let Some(answer) = json_parse_error(buf) {
            self.pending = Some((answer, 0));
            // Written now as far as the socket takes it; the rest on the
            // next write, flush or shutdown.
            if let Poll::Ready(Err(e)) = self.drain(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.drain(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A request's log span: method and path. The path only: a query may
/// hold a seat token, which never goes to the log.
fn request_span(request: &Request) -> tracing::Span {
    tracing::info_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path(),
    )
}

/// A request's log line, when it is answered: status and latency.
fn log_answer(response: &Response, latency: Duration, _: &tracing::Span) {
    tracing::info!(
        status = response.status().as_u16(),
        latency_ms = latency.as_secs_f64() * 1000.0,
        "answered"
    );
}

/// Serves `router` on `listener` until the process ends. Each request
/// carries the client's `ConnectInfo<SocketAddr>` and its connection's
/// [`ConnectionSlot`].
pub(crate) async fn serve(listener: TcpListener, router: Router, limits: ConnectionLimits) {
    let router = router
        .layer(RequestBodyTimeoutLayer::new(limits.body_timeout))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(request_span)
                .on_request(())
                .on_response(log_answer)
                .on_body_chunk(())
                .on_eos(())
                .on_failure(()),
        );
    let census = Arc::new(Mutex::new(Census::default()));
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors and the like: wait, then go on.
                tracing::warn!("accepting a connection: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(slot) = admit(&census, &limits, peer.ip()) else {
            tokio::spawn(refuse(stream));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let header_timeout = limits.header_timeout;
        let body_timeout = limits.body_timeout;
        tokio::spawn(async move {
            let service = tower::service_fn(move |mut request: Request<Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                request.extensions_mut().insert(slot.clone());
                request.extensions_mut().insert(BodyDeadline {
                    at: tokio::time::Instant::now() + body_timeout,
                    limit: body_timeout,
                });
                let router = router.clone();
                async move {
                    Ok::<_, Infallible>(
                        router
                            .oneshot(request.map(axum::body::Body::new))
                            .await
                            .unwrap_or_else(|e| match e {}),
                    )
                }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(
                    TokioIo::new(JsonParseErrors::new(stream)),
                    TowerToHyperService::new(service),
                )
                .with_upgrades();
            if let Err(e) = connection.await {
                tracing::debug!("connection from {peer}: {e}");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_count_places_and_give_them_back() {
        let limits = ConnectionLimits {
            max_connections: 3,
            max_per_client: 2,
            ..ConnectionLimits::default()
        };
        let census = Arc::new(Mutex::new(Census::default()));
        let a: IpAddr = "10.0.0.1".parse().expect("an address");
        let b: IpAddr = "10.0.0.2".parse().expect("an address");
        let a1 = admit(&census, &limits, a).expect("first from a");
        let a2 = admit(&census, &limits, a).expect("second from a");
        assert!(admit(&census, &limits, a).is_none(), "a is at its cap");
        let b1 = admit(&census, &limits, b).expect("first from b");
        assert!(
            admit(&census, &limits, b).is_none(),
            "the total is at its cap"
        );
        let a2_copy = a2.clone();
        drop(a2);
        assert!(
            admit(&census, &limits, b).is_none(),
            "a copy still holds the place"
        );
        drop(a2_copy);
        let b2 = admit(&census, &limits, b).expect("a place was given back");
        drop((a1, b1, b2));
        let c = census.lock().expect("census");
        assert_eq!((c.total, c.by_client.len()), (0, 0));
    }

    #[test]
    fn hypers_bare_answers_become_the_json_error_and_nothing_else_does() {
        let date = "date: Sun, 06 Dec 2026 03:20:44 GMT";
        for (status, code) in [
            ("400 Bad Request", "bad_request"),
            ("414 URI Too Long", "uri_too_long"),
            ("431 Request Header Fields Too Large", "headers_too_large"),
        ] {
            let bare = format!(
                "HTTP/1.1 {status}\r\nconnection: close\r\ncontent-length: 0\r\n{date}\r\n\r\n"
            );
            let answer = json_parse_error(bare.as_bytes()).expect("replaced");
            let text = String::from_utf8(answer).expect("text");
            let (head, body) = text.split_once("\r\n\r\n").expect("head and body");
            assert!(
                head.starts_with(&format!("HTTP/1.1 {status}\r\n")),
                "{head}"
            );
            assert!(head.contains(date), "{head}");
            assert!(
                head.contains(&format!("content-length: {}", body.len())),
                "{head}"
            );
            assert!(head.contains("content-type: application/json"), "{head}");
            let json: serde_json::Value = serde_json::from_str(body).expect("JSON");
            assert_eq!(json["code"], code);
        }
        // The app's own answers, a body after the head, other statuses.
        for kept in [
            "HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
            "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n",
            "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n",
        ] {
            assert_eq!(json_parse_error(kept.as_bytes()), None, "{kept}");
        }
    }

    #[test]
    fn the_refusal_is_the_json_error() {
        let text = refusal();
        let (head, body) = text.split_once("\r\n\r\n").expect("head and body");
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length: "))
            .and_then(|n| n.parse().ok())
            .expect("a content length");
        assert_eq!(length, body.len());
        let json: serde_json::Value = serde_json::from_str(body).expect("JSON");
        assert_eq!(json["code"], "too_many_connections");
    }
}
