//! Accounts over HTTP: sign up, log in and out, who am I, change the
//! password, delete the account; and the check that refuses a write
//! carrying the session cookie from another site.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::Deserialize;
use serde_json::json;

use super::{ApiError, ApiResult, Body};
use crate::account::{self, CredentialError};
use crate::store::AccountRow;
use crate::App;

/// Log-in attempts one name may receive in a burst, from any address;
/// then one every [`LOGIN_NAME_PERIOD`].
pub const LOGINS_PER_NAME: u32 = 10;

/// See [`LOGINS_PER_NAME`].
pub const LOGIN_NAME_PERIOD: Duration = Duration::from_secs(30);

/// Log-in attempts counted per name (the per-address count is a route
/// layer, see `api::router`).
pub(crate) struct LoginLimiter {
    per_name: DefaultKeyedRateLimiter<String>,
}

impl LoginLimiter {
    /// [`LOGINS_PER_NAME`] in a burst, then one every [`LOGIN_NAME_PERIOD`].
    pub(crate) fn new() -> LoginLimiter {
        let burst = NonZeroU32::new(LOGINS_PER_NAME).unwrap_or(NonZeroU32::MIN);
        let quota = Quota::with_period(LOGIN_NAME_PERIOD)
            .unwrap_or_else(|| Quota::per_minute(NonZeroU32::MIN))
            .allow_burst(burst);
        LoginLimiter {
            per_name: RateLimiter::keyed(quota),
        }
    }

    /// Counts an attempt on `key`: the seconds to wait when there were too
    /// many.
    fn check(&self, key: &str) -> Result<(), u64> {
        if self.per_name.len() > 100_000 {
            self.per_name.retain_recent();
        }
        self.per_name
            .check_key(&key.to_string())
            .map_err(|not_until| {
                let wait = not_until.wait_time_from(DefaultClock::default().now());
                wait.as_secs() + 1
            })
    }
}

/// A 429 `rate_limited` with `Retry-After`.
fn too_many(message: String, wait_secs: u64) -> Response {
    let mut response = ApiError::Status {
        status: StatusCode::TOO_MANY_REQUESTS,
        code: "rate_limited",
        message,
    }
    .into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(wait_secs));
    response
}

impl From<CredentialError> for ApiError {
    fn from(e: CredentialError) -> ApiError {
        let code = match e {
            CredentialError::BadName | CredentialError::ReservedName(_) => "bad_name",
            CredentialError::BadPassword => "bad_password",
        };
        ApiError::Status {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code,
            message: e.to_string(),
        }
    }
}

/// 401 `not_signed_in`.
fn not_signed_in() -> ApiError {
    ApiError::Status {
        status: StatusCode::UNAUTHORIZED,
        code: "not_signed_in",
        message: "log in first: this needs an account".into(),
    }
}

/// 401 `wrong_login`: the same answer whether the name exists or not.
fn wrong_login() -> ApiError {
    ApiError::Status {
        status: StatusCode::UNAUTHORIZED,
        code: "wrong_login",
        message: "wrong name or password".into(),
    }
}

/// Argon2 on a blocking thread: it takes tens of milliseconds of CPU.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> ApiResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))
}

fn now_secs() -> i64 {
    crate::live::now_secs()
}

/// The account of the request's session cookie, if it holds a live one.
///
/// # Errors
/// The store's.
pub(crate) async fn signed_in(app: &App, headers: &HeaderMap) -> ApiResult<Option<AccountRow>> {
    let Some(token) = session_token(headers) else {
        return Ok(None);
    };
    let hash = account::token_hash(token);
    let begun_after = now_secs() - account::SESSION_SECS;
    Ok(app.store.session_account(&hash, begun_after).await?)
}

fn session_token(headers: &HeaderMap) -> Option<&str> {
    account::token_in(
        headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok()),
    )
}

/// What `GET /api/me` and a log-in answer.
fn me(account: &AccountRow) -> serde_json::Value {
    json!({ "name": account.name, "created": account.created })
}

/// Starts a session for `account`: the answer with its cookie.
async fn start_session(app: &App, account: AccountRow, status: StatusCode) -> ApiResult<Response> {
    let token = account::new_token().map_err(ApiError::Internal)?;
    let hash = account::token_hash(&token);
    let id = account.id;
    app.store.insert_session(&hash, id, now_secs()).await?;
    let cookie = account::session_cookie(&token, app.secure_cookies);
    Ok((status, [(header::SET_COOKIE, cookie)], Json(me(&account))).into_response())
}

/// Drops the request's own session, if it has one (a log-in rotates it).
async fn end_own_session(app: &App, headers: &HeaderMap) -> ApiResult<()> {
    if let Some(token) = session_token(headers) {
        let hash = account::token_hash(token);
        app.store.delete_session(&hash).await?;
    }
    Ok(())
}

/// A name and a password.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Credentials {
    name: String,
    password: String,
}

/// `POST /api/account` {name, password}: a new account, logged in.
pub(crate) async fn sign_up(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Body(c): Body<Credentials>,
) -> ApiResult<Response> {
    let key = account::name_key(&c.name)?;
    account::check_password(&c.password)?;
    let hash = blocking(move || account::hash_password(&c.password))
        .await?
        .map_err(ApiError::Internal)?;
    let name = c.name.clone();
    let key_for_insert = key.clone();
    let created = app
        .store
        .create_account(&name, &key_for_insert, &hash, now_secs())
        .await?;
    if created.is_none() {
        return Err(ApiError::Status {
            status: StatusCode::CONFLICT,
            code: "name_taken",
            message: format!("the name \"{}\" is taken", c.name),
        });
    }
    let account = app
        .store
        .account_by_key(&key)
        .await?
        .ok_or_else(|| ApiError::Internal("the new account was not stored".into()))?;
    end_own_session(&app, &headers).await?;
    start_session(&app, account, StatusCode::CREATED).await
}

/// `POST /api/session` {name, password}: logs in, with a new token.
pub(crate) async fn log_in(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Body(c): Body<Credentials>,
) -> ApiResult<Response> {
    // A name that cannot exist is still a failed log-in, counted and as
    // slow as any other.
    let key = account::name_key(&c.name).unwrap_or_else(|_| c.name.to_ascii_lowercase());
    if let Err(wait) = app.logins.check(&key) {
        return Ok(too_many(
            format!("too many log-in attempts for this name: try again in {wait} s"),
            wait,
        ));
    }
    let found = app.store.account_by_key(&key).await?;
    let hash = found.as_ref().map(|a| a.password_hash.clone());
    let password = c.password;
    let matches = blocking(move || account::verify_password(hash.as_deref(), &password)).await?;
    let Some(account) = found.filter(|a| matches && !a.deleted) else {
        return Err(wrong_login());
    };
    if account.disabled {
        return Err(ApiError::Status {
            status: StatusCode::FORBIDDEN,
            code: "account_disabled",
            message: "this account is disabled: ask the server's operator".into(),
        });
    }
    end_own_session(&app, &headers).await?;
    start_session(&app, account, StatusCode::OK).await
}

/// `DELETE /api/session`: logs out (the session ends on the server too).
pub(crate) async fn log_out(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    end_own_session(&app, &headers).await?;
    Ok((
        StatusCode::NO_CONTENT,
        [(
            header::SET_COOKIE,
            account::cleared_cookie(app.secure_cookies),
        )],
    )
        .into_response())
}

/// `GET /api/me`: the account logged in, or 401.
pub(crate) async fn get_me(State(app): State<Arc<App>>, headers: HeaderMap) -> ApiResult<Response> {
    let account = signed_in(&app, &headers).await?.ok_or_else(not_signed_in)?;
    Ok(Json(me(&account)).into_response())
}

/// The password again, to confirm a change.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PasswordChange {
    password: String,
    new_password: String,
}

/// The account logged in, after checking its password again.
async fn confirmed(app: &App, headers: &HeaderMap, password: String) -> ApiResult<AccountRow> {
    let account = signed_in(app, headers).await?.ok_or_else(not_signed_in)?;
    let hash = account.password_hash.clone();
    if !blocking(move || account::verify_password(Some(&hash), &password)).await? {
        return Err(wrong_login());
    }
    Ok(account)
}

/// `POST /api/me/password` {password, new_password}: every session ends,
/// this one continues with a new token.
pub(crate) async fn change_password(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Body(c): Body<PasswordChange>,
) -> ApiResult<Response> {
    account::check_password(&c.new_password)?;
    let account = confirmed(&app, &headers, c.password).await?;
    let hash = blocking(move || account::hash_password(&c.new_password))
        .await?
        .map_err(ApiError::Internal)?;
    let id = account.id;
    if !app.store.set_password(id, &hash).await? {
        return Err(not_signed_in());
    }
    start_session(&app, account, StatusCode::OK).await
}

/// The password, to confirm deleting the account.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Confirmation {
    password: String,
}

/// `DELETE /api/me` {password}: deletes the account (its games stay,
/// shown as "deleted").
pub(crate) async fn delete_me(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Body(c): Body<Confirmation>,
) -> ApiResult<Response> {
    let account = confirmed(&app, &headers, c.password).await?;
    let id = account.id;
    app.store.delete_account(id, now_secs()).await?;
    Ok((
        StatusCode::NO_CONTENT,
        [(
            header::SET_COOKIE,
            account::cleared_cookie(app.secure_cookies),
        )],
    )
        .into_response())
}

/// Whether a request from `origin` (its `Origin` header) comes from this
/// server's own pages: the configured public address's origin, or else
/// the request's own `Host`.
fn same_origin(origin: &str, host: Option<&str>, public_origin: Option<&str>) -> bool {
    if let Some(public) = public_origin {
        return origin.eq_ignore_ascii_case(public);
    }
    let Some(host) = host else {
        return false;
    };
    origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .is_some_and(|authority| authority.eq_ignore_ascii_case(host))
}

/// Refuses (403 `cross_site`) a request that carries the session cookie
/// and may change something (any method but GET, HEAD and OPTIONS, and
/// any WebSocket) when the browser says it comes from another site.
pub(crate) async fn refuse_cross_site(
    State(app): State<Arc<App>>,
    request: Request,
    next: Next,
) -> Response {
    let headers = request.headers();
    let safe = matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    ) && !headers.contains_key(header::UPGRADE);
    if safe || session_token(headers).is_none() {
        return next.run(request).await;
    }
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let cross_site = text("sec-fetch-site").is_some_and(|s| s.eq_ignore_ascii_case("cross-site"));
    let foreign_origin = text(header::ORIGIN.as_str()).is_some_and(|o| {
        !same_origin(o, text(header::HOST.as_str()), app.public_origin.as_deref())
    });
    if cross_site || foreign_origin {
        return ApiError::Status {
            status: StatusCode::FORBIDDEN,
            code: "cross_site",
            message: "a request from another site may not act with your session".into(),
        }
        .into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_origin_is_compared_with_the_public_address_or_the_host() {
        assert!(same_origin(
            "http://127.0.0.1:8080",
            Some("127.0.0.1:8080"),
            None
        ));
        assert!(!same_origin(
            "http://evil.example",
            Some("127.0.0.1:8080"),
            None
        ));
        assert!(!same_origin("null", Some("127.0.0.1:8080"), None));
        assert!(!same_origin("http://127.0.0.1:8080", None, None));
        let public = Some("https://caro.example");
        assert!(same_origin(
            "https://caro.example",
            Some("10.0.0.1:80"),
            public
        ));
        assert!(!same_origin(
            "http://caro.example",
            Some("caro.example"),
            public
        ));
    }

    #[test]
    fn a_name_is_refused_after_its_burst_of_log_ins() {
        let limits = LoginLimiter::new();
        for _ in 0..LOGINS_PER_NAME {
            assert!(limits.check("lan").is_ok());
        }
        let wait = limits.check("lan").unwrap_err();
        assert!(
            (1..=LOGIN_NAME_PERIOD.as_secs() + 1).contains(&wait),
            "{wait}"
        );
        assert!(
            limits.check("minh").is_ok(),
            "other names are counted apart"
        );
    }
}
