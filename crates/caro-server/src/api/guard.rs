//! What every request passes before its handler, and what every answer
//! carries: the request target's length, the body's size, per-client rate
//! limits on creating games, security headers and compression.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode, Version};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use futures_util::StreamExt;
use governor::middleware::NoOpMiddleware;
use tower_governor::governor::GovernorConfigBuilder;
use tower_governor::key_extractor::KeyExtractor;
use tower_governor::{GovernorError, GovernorLayer};
use tower_http::compression::predicate::{DefaultPredicate, Predicate};
use tower_http::compression::CompressionLayer;
use tower_http::set_header::SetResponseHeaderLayer;

use super::{ApiError, MAX_BODY};
use crate::listen::BodyDeadline;

/// Longest request target (path and query) the server reads; a longer one
/// is answered 414 `uri_too_long`. (hyper itself answers a target over
/// 65,534 bytes, and headers it cannot read, before the router: the
/// listener gives those answers the JSON error, see `listen.rs`.)
pub const MAX_URI: usize = 8 * 1024;

/// A body over [`MAX_BODY`] is still read and thrown away up to this many
/// bytes before the connection is closed, so that a client that sends its
/// whole body before reading gets the 413 rather than a reset connection.
pub const MAX_DISCARD: u64 = 4 * 1024 * 1024;

/// The page's Content-Security-Policy: its script, style sheet and API
/// (including the game's WebSocket) from this server only, nothing inline,
/// no plugins, never inside a frame.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; \
form-action 'self'; frame-ancestors 'none'";

/// Per-client limits on requests that create games.
#[derive(Clone, Debug)]
pub struct RequestLimits {
    /// Games one client address may create in a minute (`POST /api/games`,
    /// `/api/online`, `/api/import`, `/api/games/ID/rematch`): a burst of
    /// this many, then one every minute / N.
    pub games_per_minute: u32,
    /// Online games one client address may create in an hour, finished or
    /// not (so resigning each game does not get round the cap on open
    /// online games): a burst of this many, then one every hour / N.
    pub online_games_per_hour: u32,
    /// Accounts one client address may make in an hour (a burst of this
    /// many, then one every hour / N).
    pub accounts_per_hour: u32,
    /// Log-in attempts from one client address in a minute (a burst of
    /// this many, then one every minute / N); each name is limited apart
    /// (`account::LOGINS_PER_NAME`).
    pub logins_per_minute: u32,
}

/// Default of [`RequestLimits::games_per_minute`].
pub const GAMES_PER_MINUTE: u32 = 30;
/// Default of [`RequestLimits::online_games_per_hour`].
pub const ONLINE_GAMES_PER_HOUR: u32 = 30;
/// Default of [`RequestLimits::accounts_per_hour`].
pub const ACCOUNTS_PER_HOUR: u32 = 10;
/// Default of [`RequestLimits::logins_per_minute`].
pub const LOGINS_PER_MINUTE: u32 = 20;

impl Default for RequestLimits {
    fn default() -> RequestLimits {
        RequestLimits {
            games_per_minute: GAMES_PER_MINUTE,
            online_games_per_hour: ONLINE_GAMES_PER_HOUR,
            accounts_per_hour: ACCOUNTS_PER_HOUR,
            logins_per_minute: LOGINS_PER_MINUTE,
        }
    }
}

/// Rate limits count by client address; an IPv6 client by its /64 network
/// (one host usually holds a whole /64), an IPv4-mapped one as IPv4.
#[derive(Clone, Copy, Debug)]
pub(super) struct ClientKey;

/// The address a client's requests are counted under.
pub(crate) fn client_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !(u128::from(u64::MAX)))),
        v4 => v4,
    }
}

impl KeyExtractor for ClientKey {
    type Key = IpAddr;

    fn extract<T>(&self, request: &axum::http::Request<T>) -> Result<IpAddr, GovernorError> {
        request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(peer)| client_key(peer.ip()))
            .ok_or(GovernorError::UnableToExtractKey)
    }
}

/// A rate limit on a route's handler.
pub(super) type RateLimit = GovernorLayer<ClientKey, NoOpMiddleware, Body>;

/// At most `n` requests per client in a burst, then one every `window / n`
/// (a sliding window: never more than `2n` in any `window`). Over it the
/// answer is 429 `rate_limited` with `Retry-After`.
pub(super) fn rate_limit(window: Duration, n: u32, what: &'static str) -> RateLimit {
    let n = n.max(1);
    let config = GovernorConfigBuilder::default()
        .period((window / n).max(Duration::from_nanos(1)))
        .burst_size(n)
        .key_extractor(ClientKey)
        .finish()
        .expect("a period and a burst over zero");
    // Forget clients whose allowance is full again, now and then.
    let limiter = config.limiter().clone();
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(async move {
            let mut every = tokio::time::interval(Duration::from_secs(60));
            loop {
                every.tick().await;
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
        });
    }
    GovernorLayer::new(config).error_handler(move |e| match e {
        GovernorError::TooManyRequests { wait_time, .. } => {
            // tower_governor rounds the wait down to whole seconds.
            let wait = wait_time + 1;
            let mut response = ApiError::Status {
                status: StatusCode::TOO_MANY_REQUESTS,
                code: "rate_limited",
                message: format!("too many {what} from your address: try again in {wait} s"),
            }
            .into_response();
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(wait));
            response
        }
        other => ApiError::Internal(format!("rate limit: {other}")).into_response(),
    })
}

/// The declared body length, if any.
fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The 413 answer. The rest of the body is read and thrown away in the
/// background (up to [`MAX_DISCARD`] bytes in all) while the answer is
/// sent, so a client busy sending its body still reads the answer; past
/// that the connection closes.
fn too_large(
    body: Body,
    already_read: u64,
    declared: Option<u64>,
    deadline: Option<BodyDeadline>,
) -> Response {
    let mut response = ApiError::Status {
        status: StatusCode::PAYLOAD_TOO_LARGE,
        code: "too_large",
        message: format!("the request body is larger than {MAX_BODY} bytes"),
    }
    .into_response();
    if declared.is_some_and(|n| n > MAX_DISCARD) {
        // Not worth reading: answer and close (a client that sent
        // `Expect: 100-continue` has sent no body and reads this cleanly).
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return response;
    }
    let discard = async move {
        let mut read = already_read;
        let mut data = body.into_data_stream();
        while let Some(Ok(chunk)) = data.next().await {
            read += chunk.len() as u64;
            if read > MAX_DISCARD {
                break;
            }
        }
    };
    tokio::spawn(async move {
        // No longer than the body had to arrive.
        match deadline {
            Some(d) => {
                let _ = tokio::time::timeout_at(d.at, discard).await;
            }
            None => discard.await,
        }
    });
    response
}

/// The 408 answer to a body that did not arrive whole in time. The
/// connection is closed: the rest of the body is never read.
fn body_timeout(limit: Duration) -> Response {
    let mut response = ApiError::Status {
        status: StatusCode::REQUEST_TIMEOUT,
        code: "body_timeout",
        message: format!(
            "the request body did not arrive whole within {} s",
            limit.as_secs_f64()
        ),
    }
    .into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Refuses a request target over [`MAX_URI`] (414) and a body over
/// [`MAX_BODY`] (413): by its `Content-Length` before reading any of it, or,
/// for a chunked body, once more than that has arrived. Either way the
/// client can read the JSON error (see [`too_large`]). A body that has not
/// arrived whole by its [`BodyDeadline`] is answered 408 `body_timeout`.
///
/// A body within the limit is read whole here, before the handler: a
/// request refused without its body being read (a rate limit, a wrong
/// content type, an unknown path) would otherwise leave the body unread,
/// and the connection would be closed under a client about to reuse it.
pub(super) async fn check_request(request: Request, next: Next) -> Response {
    let target = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if target > MAX_URI {
        return ApiError::Status {
            status: StatusCode::URI_TOO_LONG,
            code: "uri_too_long",
            message: format!("the request target is longer than {MAX_URI} bytes"),
        }
        .into_response();
    }
    let declared = content_length(request.headers());
    let deadline = request.extensions().get::<BodyDeadline>().copied();
    if declared.is_some_and(|n| n > MAX_BODY as u64) {
        return too_large(request.into_body(), 0, declared, deadline);
    }
    let chunked = request.headers().contains_key(header::TRANSFER_ENCODING);
    if !chunked && declared.unwrap_or(0) == 0 {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let read = async {
        let mut data = body.into_data_stream();
        let mut whole = Vec::with_capacity(declared.unwrap_or(0) as usize);
        while let Some(chunk) = data.next().await {
            let chunk = chunk.map_err(|e| {
                ApiError::BadRequest(format!("the request body could not be read: {e}"))
                    .into_response()
            })?;
            if whole.len() + chunk.len() > MAX_BODY {
                let read = (whole.len() + chunk.len()) as u64;
                return Err(too_large(Body::from_stream(data), read, None, deadline));
            }
            whole.extend_from_slice(&chunk);
        }
        Ok(whole)
    };
    let whole = match deadline {
        Some(d) => match tokio::time::timeout_at(d.at, read).await {
            Ok(whole) => whole,
            Err(_) => Err(body_timeout(d.limit)),
        },
        None => read.await,
    };
    match whole {
        Ok(whole) => {
            next.run(Request::from_parts(parts, Body::from(whole)))
                .await
        }
        Err(refusal) => refusal,
    }
}

/// Compression for every answer but server-sent events (the default
/// predicate leaves `text/event-stream` alone), small ones and a
/// WebSocket's `101`.
fn compress_when() -> impl Predicate {
    DefaultPredicate::new().and(
        |status: StatusCode, _: Version, _: &HeaderMap, _: &axum::http::Extensions| {
            status != StatusCode::SWITCHING_PROTOCOLS
        },
    )
}

/// The checks, compression and security headers around every route.
pub(super) fn wrap(router: Router) -> Router {
    let headers: [(HeaderName, &'static str); 4] = [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        // A seat link carries its token in the address (`?seat=`): never
        // send the address anywhere.
        (header::REFERRER_POLICY, "no-referrer"),
    ];
    let mut router = router
        .layer(axum::middleware::from_fn(check_request))
        .layer(CompressionLayer::new().compress_when(compress_when()));
    for (name, value) in headers {
        router = router.layer(SetResponseHeaderLayer::if_not_present(
            name,
            HeaderValue::from_static(value),
        ));
    }
    router
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_clients_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().expect("an address");
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().expect("an address");
        let c: IpAddr = "2001:db8:1:3::1".parse().expect("an address");
        assert_eq!(client_key(a), client_key(b));
        assert_ne!(client_key(a), client_key(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().expect("an address");
        assert_eq!(
            client_key(mapped),
            "192.0.2.7".parse::<IpAddr>().expect("v4")
        );
    }
}
