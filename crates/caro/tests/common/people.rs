//! People with accounts in the web tests: requests that carry a session
//! cookie (ureq keeps none), sign-up and log-in.

use serde_json::{json, Value};

use super::{agent, Server};

/// One answer: status, JSON body and the session cookie set, if any.
pub struct Answer {
    /// The status.
    pub status: u16,
    /// The JSON body (a string when it is not JSON).
    pub body: Value,
    /// The `Set-Cookie` header.
    pub set_cookie: Option<String>,
    /// The `Retry-After` header.
    pub retry_after: Option<String>,
}

/// Sends a request with an optional session cookie and extra headers.
pub fn send(
    server: &Server,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> Answer {
    let a = agent();
    let url = server.url(path);
    let mut req = ureq::http::Request::builder().method(method).uri(&url);
    if let Some(c) = cookie {
        req = req.header("Cookie", format!("theme=dark; caro_session={c}"));
    }
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = match body {
        Some(b) => a.run(
            req.header("Content-Type", "application/json")
                .body(b.to_string())
                .unwrap(),
        ),
        None => a.run(req.body(()).unwrap()),
    };
    let mut res = res.expect("request");
    let header = |name: &str| {
        res.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let set_cookie = header("set-cookie");
    let retry_after = header("retry-after");
    let status = res.status().as_u16();
    let text = res.body_mut().read_to_string().unwrap_or_default();
    Answer {
        status,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
        set_cookie,
        retry_after,
    }
}

/// The token in a `Set-Cookie` value.
pub fn token(answer: &Answer) -> String {
    let cookie = answer.set_cookie.as_deref().expect("a session cookie");
    let value = cookie
        .split(';')
        .next()
        .and_then(|kv| kv.strip_prefix("caro_session="))
        .expect("caro_session=");
    assert!(!value.is_empty(), "{cookie}");
    value.to_string()
}

/// `POST /api/account`.
pub fn sign_up(server: &Server, name: &str, password: &str) -> Answer {
    send(
        server,
        "POST",
        "/api/account",
        None,
        &[],
        Some(json!({"name": name, "password": password})),
    )
}

/// `POST /api/session`.
pub fn log_in(server: &Server, name: &str, password: &str) -> Answer {
    send(
        server,
        "POST",
        "/api/session",
        None,
        &[],
        Some(json!({"name": name, "password": password})),
    )
}

/// Signs up and returns the session token.
pub fn account(server: &Server, name: &str) -> String {
    let made = sign_up(server, name, "a long password");
    assert_eq!(made.status, 201, "{}", made.body);
    token(&made)
}
