//! `caro db`: a games file played by a real `caro serve` is copied into a
//! fresh PostgreSQL database, served from there with the same ids and
//! moves, and a second copy into the now filled database is refused.

mod common;

use std::process::{Command, Output};

use common::{agent, get, pg, post, Server};
use serde_json::{json, Value};

fn caro(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_caro"))
        .args(args)
        .env_remove("CARO_DATABASE")
        .output()
        .expect("run caro")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Creates a game between two humans and plays `moves` in it.
fn played(agent: &ureq::Agent, server: &Server, moves: &[(u8, u8)]) -> Value {
    let (status, view) = post(
        agent,
        &server.url("/api/games"),
        &json!({"black": "human", "white": "human"}),
    );
    assert_eq!(status, 201, "{view}");
    let id = view["id"].as_i64().expect("id");
    let mut view = view;
    for (ply, &(x, y)) in moves.iter().enumerate() {
        let (status, answer) = post(
            agent,
            &server.url(&format!("/api/games/{id}/move")),
            &json!({"ply": ply, "x": x, "y": y}),
        );
        assert_eq!(status, 200, "{answer}");
        view = answer;
    }
    let (status, view_now) = get(agent, &server.url(&format!("/api/games/{id}")));
    assert_eq!(status, 200, "{view}");
    view_now
}

#[test]
fn a_served_sqlite_file_moves_to_postgres_once() {
    let Some(db) = pg::fresh_database() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let a = agent();
    let before: Vec<Value> = {
        let server = Server::start(data.path());
        let games = vec![
            played(&a, &server, &[(7, 7), (8, 8), (7, 8)]),
            played(&a, &server, &[]),
            played(&a, &server, &[(0, 0), (1, 1), (0, 1), (1, 2), (0, 2)]),
        ];
        server.kill();
        assert_eq!(games[2]["moves"].as_array().map(Vec::len), Some(5));
        games
    };
    let file = data.path().join("caro.sqlite3");
    let from = format!("sqlite:{}", file.display());

    let out = caro(&["db", "migrate", "--from", &from, "--to", &db.url]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains("copied 3 games, 0 matches, 0 analyses"),
        "{said}"
    );
    assert_eq!(db.column("SELECT COUNT(*) FROM games").unwrap(), vec!["3"]);

    // Served from PostgreSQL: the same games under the same ids.
    let pg_data = tempfile::tempdir().unwrap();
    let server = Server::start_with(pg_data.path(), &["--database", &db.url]);
    for game in &before {
        let id = game["id"].as_i64().unwrap();
        let (status, view) = get(&a, &server.url(&format!("/api/games/{id}")));
        assert_eq!(status, 200, "{view}");
        // The whole view: settings, moves, version, times.
        assert_eq!(&view, game);
    }
    // A new game gets a new id, and the copied ones still take moves.
    let newest = before
        .iter()
        .filter_map(|g| g["id"].as_i64())
        .max()
        .unwrap();
    let fresh = played(&a, &server, &[(3, 3)]);
    assert!(fresh["id"].as_i64().unwrap() > newest, "{fresh}");
    let first = before[0]["id"].as_i64().unwrap();
    let (status, view) = post(
        &a,
        &server.url(&format!("/api/games/{first}/move")),
        &json!({"ply": 3, "x": 9, "y": 9}),
    );
    assert_eq!(status, 200, "{view}");
    drop(server);

    // The target has games now: a second copy is refused, and says why.
    let out = caro(&["db", "migrate", "--from", &from, "--to", &db.url]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("is not empty (4 games, 0 matches, 0 analyses)"),
        "{err}"
    );
    assert_eq!(db.column("SELECT COUNT(*) FROM games").unwrap(), vec!["4"]);

    let out = caro(&["db", "upgrade", "--database", &db.url]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("schema version 3"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn bad_urls_and_missing_files_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let missing = format!("sqlite:{}", dir.path().join("none.sqlite3").display());
    let target = format!("sqlite:{}", dir.path().join("new.sqlite3").display());
    let out = caro(&["db", "migrate", "--from", &missing, "--to", &target]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no database file at"),
        "{}",
        text(&out.stderr)
    );

    let out = caro(&[
        "db",
        "migrate",
        "--from",
        "mysql://root:pw@h/caro",
        "--to",
        &target,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("unknown database URL \"mysql://root@h/caro\": use sqlite:PATH or postgres://USER@HOST/DB"),
        "{err}"
    );

    let out = caro(&["db", "upgrade", "--database", &target]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("schema version 3"));
    // A copy needs two databases.
    let out = caro(&["db", "migrate", "--from", &target, "--to", &target]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("name the same database"));
}
