//! The lobby through the HTTP API of a real `caro serve`: a rated seek
//! posted, seen and taken, the game played with session cookies alone and
//! rated once (each rating equal to a Glicko-2 replay); a guest's casual
//! seek; a seek taken once by many takers at once; cancelling, the cap on
//! open seeks, and a rated game too short to rate.

mod common;

use std::sync::{Arc, Barrier};

use caro_server::rating::{self, START};
use common::people::{account, send, Answer};
use common::Server;
use serde_json::{json, Value};

fn refused(answer: &Answer, status: u16, code: &str) {
    assert_eq!(answer.status, status, "{}", answer.body);
    assert_eq!(answer.body["code"], code, "{}", answer.body);
}

fn post_seek(server: &Server, cookie: Option<&str>, body: Value) -> Answer {
    send(server, "POST", "/api/seeks", cookie, &[], Some(body))
}

fn accept(server: &Server, id: i64, cookie: Option<&str>) -> Answer {
    send(
        server,
        "POST",
        &format!("/api/seeks/{id}/accept"),
        cookie,
        &[],
        None,
    )
}

/// A move with the session cookie alone (or a guest's seat token).
fn play(server: &Server, game: i64, ply: usize, (x, y): (u8, u8), who: Who) -> Answer {
    let (cookie, header) = match who {
        Who::Account(c) => (Some(c), None),
        Who::Guest(t) => (None, Some(("X-Caro-Seat", t))),
    };
    let headers: Vec<(&str, &str)> = header.into_iter().collect();
    send(
        server,
        "POST",
        &format!("/api/games/{game}/move"),
        cookie,
        &headers,
        Some(json!({"ply": ply, "x": x, "y": y})),
    )
}

#[derive(Clone, Copy)]
enum Who<'a> {
    Account(&'a str),
    Guest(&'a str),
}

/// Resigns a game with a session cookie.
fn resign(server: &Server, game: i64, cookie: &str) -> Answer {
    send(
        server,
        "POST",
        &format!("/api/games/{game}/resign"),
        Some(cookie),
        &[],
        Some(json!({})),
    )
}

fn profile(server: &Server, name: &str) -> Value {
    let a = send(
        server,
        "GET",
        &format!("/api/players/{name}"),
        None,
        &[],
        None,
    );
    assert_eq!(a.status, 200, "{}", a.body);
    a.body
}

/// Black makes five along row 7, white answers on row 8.
/// The ratings of the database checked against a replay of its rated
/// games (the store is async: on a small runtime of the test's own).
fn audit(db: &caro_server::store::Database) -> caro_server::rating_audit::Audit {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(async {
            let store = caro_server::store::Store::open(db, 1).await.unwrap();
            caro_server::rating_audit::audit(&store).await.unwrap()
        })
}

fn black_wins(server: &Server, game: i64, black: Who, white: Who) {
    for i in 0..5u8 {
        let ply = usize::from(i) * 2;
        let a = play(server, game, ply, (3 + i, 7), black);
        assert_eq!(a.status, 200, "{}", a.body);
        if i < 4 {
            let a = play(server, game, ply + 1, (3 + i, 8), white);
            assert_eq!(a.status, 200, "{}", a.body);
        }
    }
}

#[test]
fn a_rated_seek_is_taken_played_with_cookies_and_rated_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let lan = account(&server, "Lan");
    let minh = account(&server, "Minh");
    let khoa = account(&server, "Khoa");

    let posted = post_seek(
        &server,
        Some(&lan),
        json!({"rule": "freestyle", "size": 15, "opening": "free", "minutes": 5, "increment": 3, "rated": true, "colour": "black"}),
    );
    assert_eq!(posted.status, 201, "{}", posted.body);
    assert_eq!(posted.body["rating"]["provisional"], true);
    assert_eq!(
        posted.body["token"],
        Value::Null,
        "an account needs no token"
    );
    let seek = posted.body["id"].as_i64().unwrap();

    let lobby = send(&server, "GET", "/api/seeks", None, &[], None).body;
    assert_eq!(lobby.as_array().unwrap().len(), 1, "{lobby}");
    assert_eq!(lobby[0]["name"], "Lan");
    assert_eq!(lobby[0]["rating"]["rating"], 1500);
    assert_eq!(lobby[0]["variant"], "freestyle15");

    refused(&accept(&server, seek, Some(&lan)), 409, "own_seek");
    refused(&accept(&server, seek, None), 401, "not_signed_in");
    let taken = accept(&server, seek, Some(&minh));
    assert_eq!(taken.status, 201, "{}", taken.body);
    assert_eq!(taken.body["seat"], "second");
    assert_eq!(taken.body["token"], Value::Null);
    let game = taken.body["id"].as_i64().unwrap();
    refused(&accept(&server, seek, Some(&khoa)), 409, "seek_taken");
    let seen = send(
        &server,
        "GET",
        &format!("/api/seeks/{seek}"),
        None,
        &[],
        None,
    );
    assert_eq!(seen.body["game_id"], game, "the poster learns of its game");
    assert!(send(&server, "GET", "/api/seeks", None, &[], None)
        .body
        .as_array()
        .unwrap()
        .is_empty());

    // Seats bound to accounts: the cookie is the seat.
    refused(
        &play(&server, game, 0, (7, 7), Who::Account(&minh)),
        409,
        "not_your_turn",
    );
    refused(
        &play(&server, game, 0, (7, 7), Who::Account(&khoa)),
        403,
        "not_a_player",
    );
    black_wins(&server, game, Who::Account(&lan), Who::Account(&minh));

    let (won, lost) = rating::game(START, START, 1.0);
    let lan_p = profile(&server, "lan");
    let fs = &lan_p["ratings"]["freestyle15"];
    assert_eq!(fs["rating"], won.rating.round() as i64, "{lan_p}");
    assert_eq!(
        (fs["games"].as_i64(), fs["wins"].as_i64()),
        (Some(1), Some(1))
    );
    assert_eq!(fs["history"].as_array().unwrap().len(), 1);
    assert_eq!(lan_p["games"][0]["id"], game);
    assert_eq!(lan_p["games"][0]["opponent"], "Minh");
    assert_eq!(lan_p["games"][0]["outcome"], "won");
    assert_eq!(
        lan_p["games"][0]["change"],
        (won.rating - 1500.0).round() as i64
    );
    let minh_p = profile(&server, "Minh");
    assert_eq!(
        minh_p["ratings"]["freestyle15"]["rating"],
        lost.rating.round() as i64
    );
    assert_eq!(minh_p["ratings"]["freestyle15"]["losses"], 1);
    assert_eq!(minh_p["ratings"]["renju15"]["games"], 0);
    assert_eq!(minh_p["ratings"]["renju15"]["provisional"], true);

    // Rated once: a resignation after the end changes nothing.
    let again = resign(&server, game, &lan);
    assert_eq!(again.status, 409, "{}", again.body);
    assert_eq!(
        profile(&server, "Lan")["ratings"]["freestyle15"]["games"],
        1
    );
    // A round of rated games among three, then every stored rating is
    // checked against a replay of Glicko-2 over the stored games.
    for (poster, taker, colour) in [
        (&minh, &khoa, "black"),
        (&khoa, &lan, "white"),
        (&lan, &khoa, "black"),
        (&minh, &lan, "white"),
    ] {
        let seek = post_seek(
            &server,
            Some(poster),
            json!({"rated": true, "colour": colour}),
        )
        .body["id"]
            .as_i64()
            .unwrap();
        let game = accept(&server, seek, Some(taker)).body["id"]
            .as_i64()
            .unwrap();
        let (black, white) = if colour == "black" {
            (poster, taker)
        } else {
            (taker, poster)
        };
        black_wins(&server, game, Who::Account(black), Who::Account(white));
    }
    let audit = audit(&caro_server::store::Database::Sqlite(
        dir.path().join("caro.sqlite3"),
    ));
    assert_eq!((audit.games, audit.standings), (5, 3), "{audit:?}");
    assert!(audit.clean(), "{audit:?}");
    assert_eq!(
        profile(&server, "Khoa")["ratings"]["freestyle15"]["games"],
        3
    );

    // Provisional players are left off the leaderboard.
    let board = send(
        &server,
        "GET",
        "/api/leaderboard/freestyle15",
        None,
        &[],
        None,
    );
    assert_eq!(board.body, json!([]));
    refused(
        &send(
            &server,
            "GET",
            "/api/leaderboard/tictactoe",
            None,
            &[],
            None,
        ),
        404,
        "not_found",
    );
    refused(
        &send(&server, "GET", "/api/players/nobody", None, &[], None),
        404,
        "not_found",
    );
}

#[test]
fn guests_play_casual_seeks_with_seat_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    refused(
        &post_seek(&server, None, json!({"rated": true})),
        401,
        "not_signed_in",
    );
    refused(
        &post_seek(
            &server,
            None,
            json!({"rule": "freestyle", "size": 3, "rated": false, "colour": "purple"}),
        ),
        400,
        "bad_request",
    );
    let posted = post_seek(
        &server,
        None,
        json!({"rule": "freestyle", "size": 15, "colour": "white"}),
    );
    assert_eq!(posted.status, 201, "{}", posted.body);
    let poster = posted.body["token"].as_str().unwrap().to_string();
    let seek = posted.body["id"].as_i64().unwrap();
    assert_eq!(posted.body["name"], Value::Null);
    refused(
        &send(
            &server,
            "POST",
            &format!("/api/seeks/{seek}/accept"),
            None,
            &[("X-Caro-Seat", poster.as_str())],
            None,
        ),
        409,
        "own_seek",
    );
    let taken = accept(&server, seek, None);
    assert_eq!(taken.status, 201, "{}", taken.body);
    assert_eq!(taken.body["seat"], "first", "the poster asked for white");
    let taker = taken.body["token"].as_str().unwrap().to_string();
    let game = taken.body["id"].as_i64().unwrap();
    black_wins(&server, game, Who::Guest(&taker), Who::Guest(&poster));

    // Tic-tac-toe is casual only.
    let lan = account(&server, "Lan");
    refused(
        &post_seek(
            &server,
            Some(&lan),
            json!({"rule": "freestyle", "size": 3, "rated": true}),
        ),
        422,
        "not_rated_variant",
    );
    let ttt = post_seek(&server, Some(&lan), json!({"rule": "freestyle", "size": 3}));
    assert_eq!(ttt.status, 201, "{}", ttt.body);
    assert_eq!(ttt.body["variant"], Value::Null);
}

#[test]
fn many_takers_at_once_get_one_game() {
    let dir = tempfile::tempdir().unwrap();
    let server = Arc::new(Server::start_with(
        dir.path(),
        &["--accounts-per-hour", "100"],
    ));
    let poster = account(&server, "Poster");
    let seek = post_seek(&server, Some(&poster), json!({"rated": true})).body["id"]
        .as_i64()
        .unwrap();
    let takers: Vec<String> = (0..8)
        .map(|i| account(&server, &format!("Taker{i}")))
        .collect();
    let start = Arc::new(Barrier::new(takers.len()));
    let answers: Vec<u16> = std::thread::scope(|s| {
        let handles: Vec<_> = takers
            .iter()
            .map(|t| {
                let (server, start) = (Arc::clone(&server), Arc::clone(&start));
                s.spawn(move || {
                    start.wait();
                    accept(&server, seek, Some(t)).status
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        answers.iter().filter(|s| **s == 201).count(),
        1,
        "{answers:?}"
    );
    assert_eq!(
        answers.iter().filter(|s| **s == 409).count(),
        7,
        "{answers:?}"
    );
}

#[test]
fn seeks_are_cancelled_by_their_poster_capped_and_a_short_game_is_not_rated() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let lan = account(&server, "Lan");
    let minh = account(&server, "Minh");
    let ids: Vec<i64> = (0..3)
        .map(|_| {
            let a = post_seek(&server, Some(&lan), json!({"rule": "renju", "rated": true}));
            assert_eq!(a.status, 201, "{}", a.body);
            a.body["id"].as_i64().unwrap()
        })
        .collect();
    refused(
        &post_seek(&server, Some(&lan), json!({"rule": "renju"})),
        429,
        "too_many_seeks",
    );
    let cancel = |id: i64, who: &str| {
        send(
            &server,
            "DELETE",
            &format!("/api/seeks/{id}"),
            Some(who),
            &[],
            None,
        )
    };
    refused(&cancel(ids[0], &minh), 403, "not_your_seek");
    assert_eq!(cancel(ids[0], &lan).status, 204);
    refused(&accept(&server, ids[0], Some(&minh)), 409, "seek_taken");
    refused(
        &send(&server, "DELETE", "/api/seeks/x", Some(&lan), &[], None),
        400,
        "bad_request",
    );

    // One move, then a resignation: aborted, nobody's rating moves.
    let game = accept(&server, ids[1], Some(&minh)).body["id"]
        .as_i64()
        .unwrap();
    let lobby_seat = |who: &str| {
        let a = play(&server, game, 0, (7, 7), Who::Account(who));
        a.status == 200
    };
    assert!(lobby_seat(&lan) || lobby_seat(&minh));
    let resigned = resign(&server, game, &lan);
    assert_eq!(resigned.status, 200, "{}", resigned.body);
    for name in ["Lan", "Minh"] {
        let p = profile(&server, name);
        assert_eq!(p["ratings"]["renju15"]["games"], 0, "{p}");
        assert_eq!(p["games"][0]["state"], "aborted", "{p}");
    }
}

/// The live lobby: each `seeks` event's list, in order.
pub struct LobbyFeed {
    lines: std::io::Lines<std::io::BufReader<ureq::BodyReader<'static>>>,
}

impl LobbyFeed {
    pub fn open(server: &Server) -> LobbyFeed {
        let res = common::agent()
            .get(&server.url("/api/seeks/events"))
            .call()
            .expect("events");
        assert_eq!(res.status().as_u16(), 200);
        let reader = res.into_body().into_reader();
        LobbyFeed {
            lines: std::io::BufRead::lines(std::io::BufReader::new(reader)),
        }
    }

    /// The next list of seeks.
    pub fn next_list(&mut self) -> Vec<Value> {
        let mut event = String::new();
        for line in self.lines.by_ref() {
            let line = line.expect("an event line");
            if let Some(e) = line.strip_prefix("event: ") {
                event = e.to_string();
            } else if let Some(data) = line.strip_prefix("data: ") {
                if event == "seeks" {
                    let list: Value = serde_json::from_str(data).expect("JSON");
                    return list.as_array().expect("a list").clone();
                }
            }
        }
        panic!("the lobby's events ended");
    }
}

#[test]
fn the_live_lobby_shows_seeks_come_and_go_without_reloading() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let lan = account(&server, "Lan");
    let minh = account(&server, "Minh");
    let mut feed = LobbyFeed::open(&server);
    assert!(feed.next_list().is_empty());
    let seek = post_seek(&server, Some(&lan), json!({"rule": "caro", "rated": true}));
    assert_eq!(seek.status, 201, "{}", seek.body);
    let list = feed.next_list();
    assert_eq!(list.len(), 1);
    assert_eq!(
        (list[0]["name"].as_str(), list[0]["variant"].as_str()),
        (Some("Lan"), Some("caro20"))
    );
    let taken = accept(&server, seek.body["id"].as_i64().unwrap(), Some(&minh));
    assert_eq!(taken.status, 201, "{}", taken.body);
    assert!(feed.next_list().is_empty(), "a taken seek leaves the lobby");
}

/// Two `caro serve` instances on one fresh PostgreSQL database (skipped,
/// as the helper says, when PostgreSQL does not answer).
fn two_instances() -> Option<(common::pg::TestDb, Server, Server, [tempfile::TempDir; 2])> {
    let db = common::pg::fresh_database()?;
    let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let start = |dir: &tempfile::TempDir, name: &str| {
        Server::start_with(
            dir.path(),
            &[
                "--database",
                &db.url,
                "--instance",
                name,
                "--accounts-per-hour",
                "100",
            ],
        )
    };
    let a = start(&dirs[0], "a");
    let b = start(&dirs[1], "b");
    Some((db, a, b, dirs))
}

#[test]
fn across_two_instances_a_seek_is_seen_taken_once_and_its_game_rated_once() {
    // Dropped in reverse: the instances stop before their database goes.
    let Some((db, a, b, _dirs)) = two_instances() else {
        return;
    };
    let lan = account(&a, "Lan");
    let minh = account(&b, "Minh");
    let mut feed_b = LobbyFeed::open(&b);
    assert!(feed_b.next_list().is_empty());
    let seek = post_seek(&a, Some(&lan), json!({"rated": true, "colour": "white"}));
    assert_eq!(seek.status, 201, "{}", seek.body);
    let seek = seek.body["id"].as_i64().unwrap();
    let seen = feed_b.next_list();
    assert_eq!(seen.len(), 1, "posted on a, seen live on b");
    assert_eq!(seen[0]["name"], "Lan");

    // Takers on both instances at once: one game.
    let takers: Vec<String> = (0..6)
        .map(|i| account(if i % 2 == 0 { &a } else { &b }, &format!("Taker{i}")))
        .collect();
    let start = Barrier::new(takers.len());
    let answers: Vec<(u16, Value)> = std::thread::scope(|s| {
        let handles: Vec<_> = takers
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let server = if i % 2 == 0 { &a } else { &b };
                let start = &start;
                s.spawn(move || {
                    start.wait();
                    let r = accept(server, seek, Some(t));
                    (r.status, r.body)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let winners: Vec<&(u16, Value)> = answers.iter().filter(|(s, _)| *s == 201).collect();
    assert_eq!(winners.len(), 1, "{answers:?}");
    assert!(
        answers.iter().all(|(s, _)| *s == 201 || *s == 409),
        "{answers:?}"
    );
    let game = winners[0].1["id"].as_i64().unwrap();
    let winner_index = answers.iter().position(|(s, _)| *s == 201).unwrap();
    let taker = &takers[winner_index];
    let taker_name = format!("Taker{winner_index}");
    assert!(feed_b.next_list().is_empty());

    // The taker plays black (Lan asked for white) on one instance, Lan on
    // the other; the game ends on instance b.
    for i in 0..5u8 {
        let ply = usize::from(i) * 2;
        let r = play(&a, game, ply, (3 + i, 7), Who::Account(taker));
        assert_eq!(r.status, 200, "{}", r.body);
        if i < 4 {
            let r = play(&b, game, ply + 1, (3 + i, 8), Who::Account(&lan));
            assert_eq!(r.status, 200, "{}", r.body);
        }
    }
    let (won, lost) = rating::game(START, START, 1.0);
    for server in [&a, &b] {
        let p = profile(server, &taker_name);
        assert_eq!(p["ratings"]["freestyle15"]["games"], 1, "{p}");
        assert_eq!(
            p["ratings"]["freestyle15"]["rating"],
            won.rating.round() as i64
        );
        let p = profile(server, "lan");
        assert_eq!(p["ratings"]["freestyle15"]["games"], 1, "{p}");
        assert_eq!(
            p["ratings"]["freestyle15"]["rating"],
            lost.rating.round() as i64
        );
    }
    let audit = audit(&db.database());
    assert!(audit.clean() && audit.games == 1, "{audit:?}");
    // Minh, on b, never played.
    assert_eq!(profile(&a, "Minh")["ratings"]["freestyle15"]["games"], 0);
    let _ = minh;
}

#[test]
fn a_game_that_ended_unrated_is_rated_when_the_server_starts_again() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    let lan = account(&server, "Lan");
    let minh = account(&server, "Minh");
    let seek = post_seek(
        &server,
        Some(&lan),
        json!({"rated": true, "colour": "black"}),
    )
    .body["id"]
        .as_i64()
        .unwrap();
    let game = accept(&server, seek, Some(&minh)).body["id"]
        .as_i64()
        .unwrap();
    black_wins(&server, game, Who::Account(&lan), Who::Account(&minh));
    let rated = profile(&server, "Lan")["ratings"]["freestyle15"].clone();
    assert_eq!(rated["games"], 1);
    server.kill();

    // The state a server killed between storing the end and rating it
    // leaves: the game over, its rating not written.
    let file = dir.path().join("caro.sqlite3");
    let conn = rusqlite::Connection::open(&file).unwrap();
    conn.execute_batch(
        "UPDATE lobby_games SET state = 'playing', first_rating = 0, first_change = 0, second_rating = 0, second_change = 0;
         DELETE FROM ratings; DELETE FROM rating_history;",
    )
    .unwrap();
    drop(conn);

    let server = Server::start(dir.path());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let now = profile(&server, "Lan")["ratings"]["freestyle15"].clone();
        if now["games"] == 1 {
            assert_eq!(now["rating"], rated["rating"]);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not rated after the restart: {now}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(audit(&caro_server::store::Database::Sqlite(file)).clean());
}
