//! Accounts through the HTTP API of a real `caro serve` and the `caro
//! user` commands on its database: sign-up, log-in and out, sessions that
//! end at log-out, password change, disabling and deletion, the rate
//! limits (429 with `Retry-After`), the same answer for an unknown name
//! and a wrong password, and writes with a session refused from another
//! site.

mod common;

use std::process::Command;
use std::time::Instant;

use common::people::{log_in, send, sign_up, token, Answer};
use common::Server;
use serde_json::json;

fn me(server: &Server, cookie: &str) -> Answer {
    send(server, "GET", "/api/me", Some(cookie), &[], None)
}

fn refused(answer: &Answer, status: u16, code: &str) {
    assert_eq!(answer.status, status, "{}", answer.body);
    assert_eq!(answer.body["code"], code, "{}", answer.body);
}

#[test]
fn sign_up_log_in_and_out_with_sessions_that_end_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());

    let made = sign_up(&server, "Lan_Vo", "hoa sen trắng");
    assert_eq!(made.status, 201, "{}", made.body);
    assert_eq!(made.body["name"], "Lan_Vo");
    let cookie = made.set_cookie.clone().unwrap();
    for part in ["HttpOnly", "SameSite=Lax", "Path=/"] {
        assert!(cookie.contains(part), "{cookie}");
    }
    assert!(!cookie.contains("Secure"), "plain http: {cookie}");
    let first = token(&made);
    assert_eq!(me(&server, &first).body["name"], "Lan_Vo");

    refused(
        &sign_up(&server, "lan_vo", "another one"),
        409,
        "name_taken",
    );
    refused(
        &sign_up(&server, "<b>x</b>", "long enough"),
        422,
        "bad_name",
    );
    refused(&sign_up(&server, "ab", "long enough"), 422, "bad_name");
    refused(&sign_up(&server, "Minh", "short"), 422, "bad_password");
    refused(
        &send(
            &server,
            "POST",
            "/api/account",
            None,
            &[],
            Some(json!({"name": "Minh"})),
        ),
        422,
        "bad_json",
    );
    refused(&me(&server, "not-a-token"), 401, "not_signed_in");
    refused(
        &send(&server, "GET", "/api/me", None, &[], None),
        401,
        "not_signed_in",
    );

    // A log-in (any case of the name) gives a new token; the one sent
    // with it ends.
    let again = send(
        &server,
        "POST",
        "/api/session",
        Some(&first),
        &[],
        Some(json!({"name": "LAN_VO", "password": "hoa sen trắng"})),
    );
    assert_eq!(again.status, 200, "{}", again.body);
    let second = token(&again);
    assert_ne!(first, second);
    refused(&me(&server, &first), 401, "not_signed_in");
    assert_eq!(me(&server, &second).status, 200);

    let out = send(&server, "DELETE", "/api/session", Some(&second), &[], None);
    assert_eq!(out.status, 204);
    assert!(out.set_cookie.unwrap().contains("Max-Age=0"));
    refused(&me(&server, &second), 401, "not_signed_in");

    // Guests play as before, with or without an account around.
    let game = send(
        &server,
        "POST",
        "/api/games",
        None,
        &[],
        Some(json!({"black": "human", "white": "human"})),
    );
    assert_eq!(game.status, 201, "{}", game.body);
}

#[test]
fn an_unknown_name_and_a_wrong_password_get_the_same_answer_in_the_same_time() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    assert_eq!(sign_up(&server, "Minh", "correct horse").status, 201);

    let wrong = log_in(&server, "Minh", "incorrect horse");
    let unknown = log_in(&server, "Nobody", "incorrect horse");
    refused(&wrong, 401, "wrong_login");
    assert_eq!(wrong.body, unknown.body);
    assert_eq!(wrong.set_cookie, None);

    // Both do the password hash's work: interleaved, so that the load of
    // the machine falls on both alike. Without the work for an unknown
    // name its answer would come many times sooner.
    let mut known_ms = Vec::new();
    let mut unknown_ms = Vec::new();
    for i in 0..5 {
        let t = Instant::now();
        refused(
            &log_in(&server, "Minh", "wrong password"),
            401,
            "wrong_login",
        );
        known_ms.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        refused(
            &log_in(&server, &format!("Nobody{i}"), "wrong password"),
            401,
            "wrong_login",
        );
        unknown_ms.push(t.elapsed().as_secs_f64());
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let ratio = median(&mut unknown_ms) / median(&mut known_ms);
    assert!(
        (0.4..2.5).contains(&ratio),
        "unknown name / wrong password answer time: {ratio:.2}"
    );
}

#[test]
fn a_new_password_ends_every_session_and_deleting_keeps_nothing_but_the_games() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let a = token(&sign_up(&server, "Hoa", "first password"));
    let b = token(&log_in(&server, "Hoa", "first password"));

    refused(
        &send(
            &server,
            "POST",
            "/api/me/password",
            Some(&a),
            &[],
            Some(json!({"password": "not it", "new_password": "second password"})),
        ),
        401,
        "wrong_login",
    );
    let changed = send(
        &server,
        "POST",
        "/api/me/password",
        Some(&a),
        &[],
        Some(json!({"password": "first password", "new_password": "second password"})),
    );
    assert_eq!(changed.status, 200, "{}", changed.body);
    let c = token(&changed);
    refused(&me(&server, &a), 401, "not_signed_in");
    refused(&me(&server, &b), 401, "not_signed_in");
    assert_eq!(me(&server, &c).status, 200);
    refused(
        &log_in(&server, "Hoa", "first password"),
        401,
        "wrong_login",
    );
    let d = token(&log_in(&server, "Hoa", "second password"));

    let deleted = send(
        &server,
        "DELETE",
        "/api/me",
        Some(&d),
        &[],
        Some(json!({"password": "second password"})),
    );
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    refused(&me(&server, &c), 401, "not_signed_in");
    refused(
        &log_in(&server, "Hoa", "second password"),
        401,
        "wrong_login",
    );
    // The name is free again.
    assert_eq!(sign_up(&server, "hoa", "a third password").status, 201);
}

#[test]
fn writes_with_a_session_from_another_site_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let t = token(&sign_up(&server, "Tuan", "password one"));
    let host = server.addr().to_string();
    let own = format!("http://{host}");

    let forged = send(
        &server,
        "DELETE",
        "/api/me",
        Some(&t),
        &[("Origin", "http://evil.example")],
        Some(json!({"password": "password one"})),
    );
    refused(&forged, 403, "cross_site");
    let fetched = send(
        &server,
        "DELETE",
        "/api/session",
        Some(&t),
        &[("Sec-Fetch-Site", "cross-site")],
        None,
    );
    refused(&fetched, 403, "cross_site");
    assert_eq!(me(&server, &t).status, 200, "the session lives on");

    // From the server's own page it goes through.
    let own_page = send(
        &server,
        "DELETE",
        "/api/session",
        Some(&t),
        &[("Origin", own.as_str()), ("Sec-Fetch-Site", "same-origin")],
        None,
    );
    assert_eq!(own_page.status, 204, "{}", own_page.body);
    // Without a session, another site's page may still start a guest game.
    let guest = send(
        &server,
        "POST",
        "/api/games",
        None,
        &[("Origin", "http://elsewhere.example")],
        Some(json!({"black": "human", "white": "human"})),
    );
    assert_eq!(guest.status, 201, "{}", guest.body);
}

#[test]
fn a_public_https_address_makes_the_cookie_secure_and_is_the_only_origin() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(dir.path(), &["--public-url", "https://caro.example/"]);
    let made = sign_up(&server, "Tuan", "password one");
    assert!(made.set_cookie.as_deref().unwrap().ends_with("Secure"));
    let t = token(&made);
    let own = format!("http://{}", server.addr());
    refused(
        &send(
            &server,
            "DELETE",
            "/api/session",
            Some(&t),
            &[("Origin", own.as_str())],
            None,
        ),
        403,
        "cross_site",
    );
    let ok = send(
        &server,
        "DELETE",
        "/api/session",
        Some(&t),
        &[("Origin", "https://caro.example")],
        None,
    );
    assert_eq!(ok.status, 204, "{}", ok.body);
}

#[test]
fn log_ins_and_sign_ups_are_rate_limited_per_address_and_per_name() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_with(
        dir.path(),
        &["--accounts-per-hour", "2", "--logins-per-minute", "15"],
    );
    assert_eq!(sign_up(&server, "Quan", "password one").status, 201);
    assert_eq!(sign_up(&server, "Binh", "password two").status, 201);
    let third = sign_up(&server, "Chau", "password three");
    refused(&third, 429, "rate_limited");
    assert!(third.retry_after.is_some());

    // Per name: ten attempts, whatever the address, then a wait.
    for _ in 0..10 {
        refused(&log_in(&server, "Quan", "wrong"), 401, "wrong_login");
    }
    let eleventh = log_in(&server, "QUAN", "password one");
    refused(&eleventh, 429, "rate_limited");
    let wait: u64 = eleventh.retry_after.unwrap().parse().unwrap();
    assert!((1..=31).contains(&wait), "{wait}");
    // Another name is not held up by it …
    assert_eq!(log_in(&server, "Binh", "password two").status, 200);
    // … until the address's own limit (15 a minute) is reached.
    let mut last = None;
    for i in 0..6 {
        last = Some(log_in(&server, &format!("Other{i}"), "wrong"));
    }
    let last = last.unwrap();
    refused(&last, 429, "rate_limited");
    assert!(last.retry_after.is_some());
}

#[test]
fn an_operator_resets_a_password_and_disables_an_account_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let t = token(&sign_up(&server, "Khanh", "first password"));
    let db = format!("sqlite:{}", dir.path().join("caro.sqlite3").display());
    let caro = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_caro"))
            .arg("user")
            .args(args)
            .args(["--database", &db])
            .output()
            .unwrap()
    };

    let out = caro(&["reset-password", "khanh"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let password = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert_eq!(password.len(), 16, "{password}");
    refused(&me(&server, &t), 401, "not_signed_in");
    refused(
        &log_in(&server, "Khanh", "first password"),
        401,
        "wrong_login",
    );
    let t = token(&log_in(&server, "Khanh", &password));

    let out = caro(&["disable", "Khanh"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    refused(&me(&server, &t), 401, "not_signed_in");
    refused(
        &log_in(&server, "Khanh", &password),
        403,
        "account_disabled",
    );
    let out = caro(&["enable", "Khanh"]);
    assert!(out.status.success());
    assert_eq!(log_in(&server, "Khanh", &password).status, 200);

    let out = caro(&["disable", "Nobody"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no account named Nobody"));
}
