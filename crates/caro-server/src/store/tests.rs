//! The store's tests, each run on an SQLite file and on a fresh
//! PostgreSQL database (`CARO_TEST_POSTGRES`, default
//! `postgres://postgres@127.0.0.1:5432/test`; skipped with a note when it
//! does not answer, unless `CARO_REQUIRE_POSTGRES=1`).

use std::time::Duration;

use futures_util::FutureExt;
use rusqlite::Connection;

use super::*;

/// Runs `f` on a new SQLite file, then on a fresh PostgreSQL database.
async fn each_database(f: impl AsyncFn(&Database)) {
    let dir = tempfile::tempdir().unwrap();
    f(&Database::Sqlite(dir.path().join("games.sqlite3"))).await;
    if let Some(pg) = testdb::fresh_database() {
        f(&pg.database()).await;
    }
}

/// Runs `f` on a store of each backend.
async fn each_backend(f: impl AsyncFn(&Store)) {
    each_database(async |db| f(&Store::open(db, 4).await.unwrap()).await).await;
}

fn row() -> GameRow {
    GameRow {
        id: 0,
        created: 1,
        updated: 1,
        black: "human".into(),
        white: "caro:3".into(),
        width: 15,
        height: 15,
        k: 5,
        rule: "freestyle".into(),
        first: "black".into(),
        time_ms: 500,
        moves: "7,7 8,8".into(),
        opening: "free".into(),
        delay_ms: 400,
        ..GameRow::default()
    }
}

/// A rated lobby game being played, nobody rated yet.
fn rated_game_playing(game_id: i64, accounts: [i64; 2], variant: &str) -> LobbyGameRow {
    LobbyGameRow {
        game_id,
        accounts,
        variant: variant.into(),
        rated: true,
        state: "playing".into(),
        ratings: [(0.0, 0.0); 2],
        before: Default::default(),
    }
}

/// A match not yet stored: a person against `random`, first to two wins.
fn a_match() -> MatchRow {
    MatchRow {
        id: 0,
        first_to: 2,
        player_a: "human".into(),
        player_b: "random".into(),
        created: 5,
    }
}

/// A game with every field away from its default.
fn full_row() -> GameRow {
    GameRow {
        id: 0,
        created: 1_700_000_000,
        updated: 1_700_000_100,
        black: "caro:5".into(),
        white: "pbrain:/opt/engine".into(),
        width: 19,
        height: 17,
        k: 6,
        rule: "renju".into(),
        first: "white".into(),
        time_ms: 2500,
        moves: "7,7 8,8 9,9".into(),
        redo: "1,1".into(),
        result: "white".into(),
        ending: "failed: timeout 'quoted'".into(),
        black_token: "aa".into(),
        white_token: "bb".into(),
        owner: "10.1.2.3".into(),
        clock: "60000,1000,59000,58000".into(),
        opening: "swap2".into(),
        choices: "place-two take-white".into(),
        match_id: 0,
        game_no: 0,
        hints: 3,
        names: "Ann\nBob".into(),
        version: 7,
        offers: "takeback:black draw:white".into(),
        paused: 2,
        delay_ms: 1234,
        computer_turn: true,
        search_until: 1_700_000_000_123,
        next_id: 42,
    }
}

#[test]
fn database_urls_parse_and_print_without_the_password() {
    let db: Database = "sqlite:games.sqlite3".parse().unwrap();
    assert_eq!(db, Database::Sqlite("games.sqlite3".into()));
    let db: Database = "sqlite:///var/lib/caro/caro.sqlite3".parse().unwrap();
    assert_eq!(db, Database::Sqlite("/var/lib/caro/caro.sqlite3".into()));
    assert_eq!(db.to_string(), "sqlite:/var/lib/caro/caro.sqlite3");
    let url = "postgres://caro:s3cret@db.example:5433/games?sslmode=disable&password=x";
    let db: Database = url.parse().unwrap();
    assert_eq!(db, Database::Postgres(url.into()));
    assert_eq!(
        db.to_string(),
        "postgres://caro@db.example:5433/games?sslmode=disable"
    );
    assert_eq!(
        db.with_database_name("other").unwrap(),
        Database::Postgres(
            "postgres://caro:s3cret@db.example:5433/other?sslmode=disable&password=x".into()
        )
    );
    assert!("postgresql://caro@localhost/games"
        .parse::<Database>()
        .is_ok());
    let e = "mysql://root:pw@localhost/caro"
        .parse::<Database>()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "unknown database URL \"mysql://root@localhost/caro\": use sqlite:PATH or postgres://USER@HOST/DB"
    );
    assert!(matches!(
        "sqlite:".parse::<Database>(),
        Err(DatabaseUrlError::NoPath(_))
    ));
    let e = "postgres://caro:pw@localhost:notaport/db"
        .parse::<Database>()
        .unwrap_err();
    assert!(matches!(e, DatabaseUrlError::Postgres { .. }), "{e}");
    assert!(!e.to_string().contains("pw@"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_postgres_is_named_without_its_password() {
    let db: Database = "postgres://caro:s3cret@127.0.0.1:1/games?connect_timeout=2"
        .parse()
        .unwrap();
    let Err(e) = Store::open(&db, 2).await else {
        panic!("a closed port opened");
    };
    assert!(matches!(e, StoreError::Unreachable(_)), "{e}");
    let text = e.to_string();
    assert!(text.contains("postgres://caro@127.0.0.1:1/games"), "{text}");
    assert!(!text.contains("s3cret"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_column_round_trips() {
    each_backend(async |store| {
        let mut r = full_row();
        r.id = store.insert(&r).await.unwrap();
        assert!(r.id > 0);
        assert_eq!(
            store.get(r.id).await.unwrap(),
            Some(r.clone()),
            "{}",
            store.describe()
        );
        // Every column an update writes.
        r.updated += 1;
        r.moves.push_str(" 1,2");
        r.redo = String::new();
        r.result = String::new();
        r.ending = String::new();
        r.clock = "60000,1000,1,2".into();
        r.choices = "place-two".into();
        r.hints = 4;
        r.offers = String::new();
        r.paused = 1;
        r.delay_ms = 5;
        r.computer_turn = false;
        r.search_until = 9;
        r.next_id = 43;
        assert!(store.update(&r).await.unwrap());
        r.version += 1;
        assert_eq!(store.get(r.id).await.unwrap(), Some(r.clone()));
        assert_eq!(store.all_games().await.unwrap(), vec![r.clone()]);
        assert_eq!(store.get(r.id + 1000).await.unwrap(), None);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_of_an_older_version_is_refused() {
    each_backend(async |store| {
        let mut r = row();
        r.id = store.insert(&r).await.unwrap();
        r.moves.push_str(" 9,9");
        assert!(store.update(&r).await.unwrap());
        // The same version again: another instance's write of what it read.
        let mut stale = r.clone();
        stale.moves.push_str(" 1,1");
        assert!(!store.update(&stale).await.unwrap());
        r.version += 1;
        assert_eq!(store.get(r.id).await.unwrap(), Some(r.clone()));
        // A game that does not exist changes nothing either.
        let mut missing = r.clone();
        missing.id += 100;
        assert!(!store.update(&missing).await.unwrap());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_made_together_are_each_stored_once_and_a_refused_one_fails_alone() {
    each_backend(async |store| {
        let mut games = Vec::new();
        for _ in 0..12 {
            let mut r = row();
            r.id = store.insert(&r).await.unwrap();
            games.push(r);
        }
        // Each game changed ten times over, all at once.
        let writers = games.iter().map(|game| async move {
            let mut r = game.clone();
            for i in 0..10 {
                r.moves.push_str(&format!(" {i},{i}"));
                assert!(store.update(&r).await.unwrap(), "game {} change {i}", r.id);
                r.version += 1;
            }
            assert_eq!(store.get(r.id).await.unwrap(), Some(r));
        });
        // Among them, a change PostgreSQL refuses (a NUL in text).
        let bad = async {
            let mut r = games[0].clone();
            r.id = store.insert(&r).await.unwrap();
            r.moves.push('\0');
            store.update(&r).await
        };
        let ((), refused) =
            futures_util::future::join(futures_util::future::join_all(writers).map(|_| ()), bad)
                .await;
        if store.is_shared() {
            assert!(refused.is_err(), "{refused:?}");
        }
        // One version, written by several at once: stored once.
        let mut shared = row();
        shared.id = store.insert(&shared).await.unwrap();
        let writers = (0..8).map(|i| {
            let mut r = shared.clone();
            r.moves = format!("{i},{i}");
            async move { store.update(&r).await.unwrap() }
        });
        let stored = futures_util::future::join_all(writers)
            .await
            .into_iter()
            .filter(|&stored| stored)
            .count();
        assert_eq!(stored, 1);
        assert_eq!(
            store.get(shared.id).await.unwrap().unwrap().version,
            shared.version + 1
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_is_claimed_once_and_due_games_come_oldest_first() {
    each_backend(async |store| {
        let mut a = row();
        a.computer_turn = true;
        a.updated = 20;
        a.id = store.insert(&a).await.unwrap();
        let mut b = a.clone();
        b.updated = 10;
        b.id = store.insert(&b).await.unwrap();
        let mut done = a.clone();
        done.result = "draw".into();
        done.id = store.insert(&done).await.unwrap();
        let mut human = row();
        human.id = store.insert(&human).await.unwrap();
        assert_eq!(store.searches_due(100, 10).await.unwrap(), vec![b.id, a.id]);
        assert_eq!(store.searches_due(100, 1).await.unwrap(), vec![b.id]);
        assert!(store.claim_search(a.id, a.version, 100, 200).await.unwrap());
        // Held until 200: nobody else takes it, and it is not due.
        assert!(!store.claim_search(a.id, a.version, 150, 300).await.unwrap());
        assert_eq!(store.searches_due(150, 10).await.unwrap(), vec![b.id]);
        // A claim names the version it searches.
        assert!(!store
            .claim_search(b.id, b.version + 1, 100, 200)
            .await
            .unwrap());
        // Once the hold has passed, it can be taken again.
        assert!(store.claim_search(a.id, a.version, 250, 400).await.unwrap());
        // No version bump: the game's next write still goes through.
        let stored = store.get(a.id).await.unwrap().unwrap();
        assert_eq!((stored.version, stored.search_until), (a.version, 400));
        assert!(store.update(&stored).await.unwrap());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_has_one_game_of_each_number() {
    each_backend(async |store| {
        let m = a_match();
        let match_id = store.insert_match(&m).await.unwrap();
        let mut g2 = row();
        g2.match_id = match_id;
        g2.game_no = 2;
        let mut g1 = g2.clone();
        g1.game_no = 1;
        g2.id = store.insert(&g2).await.unwrap();
        g1.id = store.insert(&g1).await.unwrap();
        assert_eq!(
            store.match_games(match_id).await.unwrap(),
            vec![g1.clone(), g2.clone()]
        );
        let Err(e) = store.insert(&g1).await else {
            panic!("a second game 1 was stored");
        };
        assert!(
            matches!(e, StoreError::Sqlite(_) | StoreError::Postgres(_)),
            "{e}"
        );
        // Games outside matches are not in one.
        store.insert(&row()).await.unwrap();
        store.insert(&row()).await.unwrap();
        assert_eq!(store.match_games(match_id).await.unwrap(), vec![g1, g2]);
        assert_eq!(store.match_games(0).await.unwrap(), vec![]);
        assert_eq!(
            store.get_match(match_id).await.unwrap(),
            Some(MatchRow { id: match_id, ..m })
        );
        assert_eq!(store.get_match(match_id + 1).await.unwrap(), None);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_is_stored_per_engine_and_replaced() {
    each_backend(async |store| {
        let id = store.insert(&row()).await.unwrap();
        assert_eq!(store.stored_analysis(id, "e1").await.unwrap(), None);
        store
            .store_analysis(id, "p1", "e1", "{\"a\":1}")
            .await
            .unwrap();
        assert_eq!(
            store.stored_analysis(id, "e1").await.unwrap(),
            Some(("p1".into(), "{\"a\":1}".into()))
        );
        assert_eq!(store.stored_analysis(id, "e2").await.unwrap(), None);
        store.store_analysis(id, "p2", "e1", "{}").await.unwrap();
        assert_eq!(
            store.stored_analysis(id, "e1").await.unwrap(),
            Some(("p2".into(), "{}".into()))
        );
        assert_eq!(store.counts().await.unwrap(), (1, 0, 1));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn presence_counts_other_live_instances_and_dead_ones_are_swept() {
    each_backend(async |store| {
        store.heartbeat("a", 1000).await.unwrap();
        store.heartbeat("b", 1000).await.unwrap();
        store.heartbeat("c", 100).await.unwrap();
        store.set_presence("a", 7, 0, 5).await.unwrap();
        store.set_presence("b", 7, 0, 2).await.unwrap();
        store.set_presence("b", 7, 1, 1).await.unwrap();
        store.set_presence("c", 7, 1, 4).await.unwrap();
        store.set_presence("c", 8, 0, 1).await.unwrap();
        // c was last seen at 100: not alive after 500.
        assert_eq!(store.presence(7, "a", 500).await.unwrap(), [2, 1]);
        assert_eq!(store.presence(7, "b", 500).await.unwrap(), [5, 0]);
        assert_eq!(store.presence(7, "a", 50).await.unwrap(), [2, 5]);
        assert_eq!(store.presence(9, "a", 0).await.unwrap(), [0, 0]);
        // A new count replaces the old; none removes the row.
        store.set_presence("b", 7, 0, 3).await.unwrap();
        store.set_presence("b", 7, 1, 0).await.unwrap();
        assert_eq!(store.presence(7, "a", 500).await.unwrap(), [3, 0]);
        // A heartbeat keeps an instance alive.
        store.heartbeat("c", 2000).await.unwrap();
        assert_eq!(store.presence(7, "a", 1500).await.unwrap(), [0, 4]);
        assert_eq!(store.sweep_instances(1500).await.unwrap(), vec![7]);
        // a and b are gone, with their sockets; c stays.
        assert_eq!(store.presence(7, "x", 0).await.unwrap(), [0, 4]);
        assert_eq!(store.presence(8, "x", 0).await.unwrap(), [1, 0]);
        assert_eq!(
            store.sweep_instances(1500).await.unwrap(),
            Vec::<i64>::new()
        );
        assert_eq!(store.sweep_instances(3000).await.unwrap(), vec![7, 8]);
        assert_eq!(store.presence(7, "x", 0).await.unwrap(), [0, 0]);
        store.notify("g 1 1").await.unwrap();
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_open_online_games_and_running_clocks() {
    each_backend(async |store| {
        let mut online = row();
        online.black_token = "ab".into();
        online.white_token = "cd".into();
        online.owner = "10.0.0.1".into();
        online.clock = "60000,0,60000,60000".into();
        online.updated = 5;
        online.id = store.insert(&online).await.unwrap();
        let mut finished = online.clone();
        finished.result = "black".into();
        finished.updated = 6;
        finished.id = store.insert(&finished).await.unwrap();
        let mut unplayed = online.clone();
        unplayed.moves = String::new();
        unplayed.updated = 3;
        unplayed.id = store.insert(&unplayed).await.unwrap();
        assert_eq!(store.open_online_games("10.0.0.1").await.unwrap(), 2);
        assert_eq!(store.open_online_games("10.0.0.2").await.unwrap(), 0);
        assert_eq!(store.running_clocks().await.unwrap(), vec![online.id]);
        assert_eq!(
            store.list(10, 0).await.unwrap(),
            vec![finished.clone(), online.clone(), unplayed.clone()]
        );
        assert_eq!(store.list(1, 0).await.unwrap(), vec![finished.clone()]);
        // An empty game left alone is not listed once it is old.
        assert_eq!(store.list(10, 4).await.unwrap(), vec![finished, online]);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrations_apply_once_and_a_game_survives_closing() {
    each_database(async |db| {
        let mut r = full_row();
        {
            let store = Store::open(db, 2).await.unwrap();
            assert_eq!(store.schema_version().await.unwrap(), 3);
            assert_eq!(store.describe(), db.to_string());
            assert_eq!(store.is_shared(), matches!(db, Database::Postgres(_)));
            r.id = store.insert(&r).await.unwrap();
        }
        let store = Store::open(db, 2).await.unwrap();
        assert_eq!(store.schema_version().await.unwrap(), 3);
        assert_eq!(store.get(r.id).await.unwrap(), Some(r.clone()));
        // New ids continue after the stored ones.
        assert!(store.insert(&row()).await.unwrap() > r.id);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_keeps_ids_and_refuses_a_database_with_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("source.sqlite3");
    let source = Store::open_sqlite(&path).await.unwrap();
    let match_id = source
        .insert_match(&MatchRow {
            id: 0,
            first_to: 1,
            player_a: "human".into(),
            player_b: "caro:2".into(),
            created: 3,
        })
        .await
        .unwrap();
    let mut first = full_row();
    first.match_id = match_id;
    first.game_no = 1;
    let first = source.insert(&first).await.unwrap();
    let gone = source.insert(&row()).await.unwrap();
    let last = source.insert(&full_row()).await.unwrap();
    source
        .store_analysis(last, "pos", "eng", "{}")
        .await
        .unwrap();
    // Ids with a hole, as deleted rows leave.
    Connection::open(&path)
        .unwrap()
        .execute("DELETE FROM games WHERE id = ?1", [gone])
        .unwrap();
    let games = source.all_games().await.unwrap();
    let matches = source.all_matches().await.unwrap();
    let analyses = source.all_analyses().await.unwrap();
    assert_eq!(
        games.iter().map(|g| g.id).collect::<Vec<_>>(),
        vec![first, last]
    );
    each_backend(async |target| {
        target.import(&games, &matches, &analyses).await.unwrap();
        assert_eq!(target.counts().await.unwrap(), (2, 1, 1));
        assert_eq!(target.all_games().await.unwrap(), games);
        assert_eq!(target.all_matches().await.unwrap(), matches);
        assert_eq!(target.all_analyses().await.unwrap(), analyses);
        // New rows get new ids.
        assert!(target.insert(&row()).await.unwrap() > last);
        assert!(target.insert_match(&matches[0]).await.unwrap() > match_id);
        let Err(e) = target.import(&games, &matches, &analyses).await else {
            panic!("copied into a database with rows");
        };
        assert!(matches!(e, StoreError::NotEmpty(_)), "{e}");
        assert!(
            e.to_string().contains("3 games, 2 matches, 1 analyses"),
            "{e}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_notifies_committed_changes_only() {
    let Some(pg) = testdb::fresh_database() else {
        return;
    };
    let store = Store::open(&pg.database(), 2).await.unwrap();
    let mut r = row();
    r.id = store.insert(&r).await.unwrap();
    let url = &pg.url;
    let (client, mut conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let _driver = tokio::spawn(async move {
        loop {
            let message = std::future::poll_fn(|cx| conn.poll_message(cx)).await;
            match message {
                Some(Ok(tokio_postgres::AsyncMessage::Notification(n))) => {
                    let _ = tx.send(n.payload().to_string());
                }
                Some(Ok(_)) => {}
                _ => break,
            }
        }
    });
    client.batch_execute("LISTEN caro_games").await.unwrap();
    assert!(store.update(&r).await.unwrap());
    // Refused: no notification.
    assert!(!store.update(&r).await.unwrap());
    r.version += 1;
    assert!(store.update(&r).await.unwrap());
    store.set_presence("a", r.id, 1, 1).await.unwrap();
    store.heartbeat("a", 1).await.unwrap();
    assert_eq!(store.sweep_instances(5).await.unwrap(), vec![r.id]);
    store.notify("hello").await.unwrap();
    let mut got = Vec::new();
    while got.len() < 5 {
        match tokio::time::timeout(Duration::from_secs(5), rx.recv()).await {
            Ok(Some(p)) => got.push(p),
            _ => break,
        }
    }
    let id = r.id;
    // A change carries its columns, read back as they were written.
    let mut first = r.clone();
    first.version -= 1;
    let tail = |row: &GameRow| ChangedColumns::notification_tail(row);
    assert!(tail(&r).starts_with(" {"));
    let columns: ChangedColumns = serde_json::from_str(tail(&r).trim()).unwrap();
    assert_eq!(columns, ChangedColumns::of(&r));
    assert_eq!(
        got,
        vec![
            format!("g {id} 1{}", tail(&first)),
            format!("g {id} 2{}", tail(&r)),
            format!("p {id}"),
            format!("p {id}"),
            "hello".to_string()
        ]
    );
    drop(client);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_old_database_gains_the_added_columns_and_the_matches_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite3");
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, created INTEGER NOT NULL,
             updated INTEGER NOT NULL, black TEXT NOT NULL, white TEXT NOT NULL, width INTEGER NOT NULL,
             height INTEGER NOT NULL, k INTEGER NOT NULL, rule TEXT NOT NULL, first TEXT NOT NULL,
             time_ms INTEGER NOT NULL, moves TEXT NOT NULL, redo TEXT NOT NULL, result TEXT NOT NULL,
             ending TEXT NOT NULL);
             CREATE TABLE analyses (game_id INTEGER PRIMARY KEY, position TEXT NOT NULL,
             engine TEXT NOT NULL, data TEXT NOT NULL, created INTEGER NOT NULL);
             INSERT INTO games VALUES (1, 1, 1, 'human', 'human', 15, 15, 5, 'freestyle', 'black', 500, '7,7', '', '', '');",
        )
        .unwrap();
    }
    let store = Store::open_sqlite(&path).await.unwrap();
    assert_eq!(store.schema_version().await.unwrap(), 3);
    let old = store.get(1).await.unwrap().unwrap();
    assert_eq!(old.moves, "7,7");
    assert_eq!(old.black_token, "");
    assert_eq!(old.opening, "free");
    assert_eq!((old.match_id, old.game_no, old.hints), (0, 0, 0));
    assert_eq!((old.version, old.delay_ms, old.next_id), (0, 400, 0));
    let mut r = full_row();
    r.id = store.insert(&r).await.unwrap();
    assert_eq!(r.id, 2);
    assert_eq!(store.get(r.id).await.unwrap(), Some(r.clone()));
    let m = a_match();
    let match_id = store.insert_match(&m).await.unwrap();
    let mut g = row();
    g.match_id = match_id;
    g.game_no = 1;
    g.id = store.insert(&g).await.unwrap();
    // The unique index came with V1.
    assert!(store.insert(&g).await.is_err());
    assert_eq!(store.match_games(match_id).await.unwrap(), vec![g]);
    drop(store);
    // Opening again adds nothing twice.
    let store = Store::open_sqlite(&path).await.unwrap();
    assert_eq!(store.counts().await.unwrap(), (3, 1, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_do_not_wait_for_a_held_write_lock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.sqlite3");
    let store = Store::open_sqlite(&path).await.unwrap();
    let mut r = row();
    r.id = store.insert(&r).await.unwrap();
    let other = Connection::open(&path).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = std::time::Instant::now();
    assert_eq!(store.get(r.id).await.unwrap(), Some(r.clone()));
    assert_eq!(store.list(10, 0).await.unwrap().len(), 1);
    assert!(started.elapsed() < Duration::from_secs(1));
    other.execute_batch("ROLLBACK").unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.sqlite3");
    drop(Store::open_sqlite(&path).await.unwrap());
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&path, perms).unwrap();
    // root writes anyway; the check is for everyone else.
    if std::fs::OpenOptions::new().write(true).open(&path).is_ok() {
        return;
    }
    assert!(matches!(
        Store::open_sqlite(&path).await,
        Err(StoreError::ReadOnly(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_search_is_extended_or_let_go_and_live_instances_are_counted() {
    each_backend(async |store| {
        let mut a = row();
        a.computer_turn = true;
        a.id = store.insert(&a).await.unwrap();
        assert!(store.claim_search(a.id, a.version, 100, 200).await.unwrap());
        // The holder extends its lease when the search starts.
        assert!(store.hold_search(a.id, a.version, 500).await.unwrap());
        assert!(store.searches_due(300, 10).await.unwrap().is_empty());
        // …and lets it go when it stops: due at once.
        assert!(store.hold_search(a.id, a.version, 0).await.unwrap());
        assert_eq!(store.searches_due(1, 10).await.unwrap(), vec![a.id]);
        // Only for the version it searched.
        assert!(!store.hold_search(a.id, a.version + 1, 900).await.unwrap());
        store.heartbeat("web-1/aa", 1_000).await.unwrap();
        store.heartbeat("web-2/bb", 5_000).await.unwrap();
        assert_eq!(store.live_instances("web-1/aa", 0).await.unwrap(), 1);
        assert_eq!(store.live_instances("web-3/cc", 2_000).await.unwrap(), 1);
        assert_eq!(store.live_instances("web-2/bb", 2_000).await.unwrap(), 0);
    })
    .await;
}

#[test]
fn a_change_too_long_for_a_notification_is_announced_without_its_columns() {
    let mut r = row();
    assert!(ChangedColumns::notification_tail(&r).len() < 1000);
    r.moves = "10,10 ".repeat(1500);
    assert_eq!(ChangedColumns::notification_tail(&r), "");
    let mut back = row();
    ChangedColumns::of(&r).apply_to(&mut back);
    assert_eq!(back.moves, r.moves);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_name_is_taken_once_without_regard_to_case() {
    each_backend(async |s| {
        let id = account(s, "Lan", "h1", 10).await;
        assert_eq!(
            s.create_account("LAN", "lan", "h2", 11).await.unwrap(),
            None
        );
        let a = s.account_by_key("lan").await.unwrap().unwrap();
        assert_eq!(
            (a.id, a.name.as_str(), a.password_hash.as_str()),
            (id, "Lan", "h1")
        );
        assert_eq!(s.account(id).await.unwrap(), Some(a));
        assert_eq!(s.account_by_key("nobody").await.unwrap(), None);
        let other = account(s, "Minh", "h3", 12).await;
        assert_ne!(id, other);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_end_at_logout_password_change_disabling_and_deletion() {
    each_backend(async |s| {
        let id = account(s, "Lan", "h1", 10).await;
        s.insert_session("t1", id, 100).await.unwrap();
        s.insert_session("t2", id, 100).await.unwrap();
        assert_eq!(s.session_account("t1", 50).await.unwrap().unwrap().id, id);
        assert_eq!(s.session_account("t1", 100).await.unwrap(), None, "expired");
        assert_eq!(s.session_account("t3", 0).await.unwrap(), None);
        s.delete_session("t1").await.unwrap();
        assert_eq!(s.session_account("t1", 0).await.unwrap(), None);
        assert!(s.session_account("t2", 0).await.unwrap().is_some());

        assert!(s.set_password(id, "h2").await.unwrap());
        assert_eq!(s.session_account("t2", 0).await.unwrap(), None);
        assert_eq!(s.account(id).await.unwrap().unwrap().password_hash, "h2");

        s.insert_session("t4", id, 100).await.unwrap();
        assert!(s.set_disabled(id, true).await.unwrap());
        assert_eq!(s.session_account("t4", 0).await.unwrap(), None);
        s.insert_session("t5", id, 100).await.unwrap();
        assert_eq!(s.session_account("t5", 0).await.unwrap(), None, "disabled");
        assert!(s.set_disabled(id, false).await.unwrap());
        assert!(s.session_account("t5", 0).await.unwrap().is_some());

        assert!(s.delete_account(id, 200).await.unwrap());
        assert!(!s.delete_account(id, 201).await.unwrap());
        assert!(!s.set_password(id, "h3").await.unwrap());
        assert_eq!(s.session_account("t5", 0).await.unwrap(), None);
        let gone = s.account(id).await.unwrap().unwrap();
        assert_eq!(
            (gone.name.as_str(), gone.password_hash.as_str()),
            ("deleted", "")
        );
        assert!(gone.deleted);
        // The name is free again.
        assert!(s
            .create_account("lan", "lan", "h4", 300)
            .await
            .unwrap()
            .is_some());
        assert!(!s.set_disabled(999, true).await.unwrap());
    })
    .await;
}

/// A new account's id: `name` (taken as free), password hash `hash`.
async fn account(s: &Store, name: &str, hash: &str, now: i64) -> i64 {
    s.create_account(name, &name.to_lowercase(), hash, now)
        .await
        .unwrap()
        .unwrap()
}

fn seek(account_id: i64, now: i64) -> SeekRow {
    SeekRow {
        id: 0,
        account_id,
        guest_token: String::new(),
        owner: "127.0.0.1".into(),
        rule: "freestyle".into(),
        width: 15,
        height: 15,
        opening: "free".into(),
        minutes: 5,
        increment: 3,
        rated: true,
        colour: "random".into(),
        created: now,
        expires: now + 600,
        cancelled: false,
        game_id: 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seek_is_taken_once_and_leaves_the_lobby() {
    each_backend(async |s| {
        let a = account(s, "Lan", "h", 1).await;
        let b = account(s, "Minh", "h", 1).await;
        let id = s.insert_seek(&seek(a, 100)).await.unwrap();
        let other = s.insert_seek(&seek(a, 100)).await.unwrap();
        assert_eq!(s.seek(id).await.unwrap().unwrap().minutes, 5);
        assert_eq!(s.open_seeks(100).await.unwrap().len(), 2);
        assert_eq!(s.open_seeks(700).await.unwrap().len(), 0, "expired");
        assert_eq!(s.open_seeks_of(a, "", 100).await.unwrap(), 2);
        assert_eq!(s.open_seeks_of(0, "127.0.0.1", 100).await.unwrap(), 0);

        assert!(s.claim_seek(id, b, 101).await.unwrap());
        assert!(!s.claim_seek(id, b, 101).await.unwrap(), "taken once");
        assert!(!s.cancel_seek(id).await.unwrap(), "being taken");
        s.release_seek(id).await.unwrap();
        assert!(s.claim_seek(id, b, 102).await.unwrap());
        let game = rated_game_playing(77, [b, a], "freestyle15");
        s.seek_taken(id, &game).await.unwrap();
        assert_eq!(s.seek(id).await.unwrap().unwrap().game_id, 77);
        assert_eq!(s.lobby_game(77).await.unwrap(), Some(game));
        assert_eq!(s.lobby_games_of(a, 10).await.unwrap().len(), 1);
        assert!(s.cancel_seek(other).await.unwrap());
        assert!(!s.claim_seek(other, b, 103).await.unwrap(), "cancelled");
        assert!(s.open_seeks(103).await.unwrap().is_empty());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_rated_once_over_the_standings_read() {
    use crate::rating;
    each_backend(async |s| {
        let (a, b) = (1, 2);
        for id in [10, 11] {
            s.seek_taken(0, &rated_game_playing(id, [a, b], "renju15"))
                .await
                .unwrap();
        }
        let seats = |before: [Standing; 2]| {
            let (x, y) = rating::game(before[0].rating, before[1].rating, 1.0);
            [
                RatedSeat {
                    account_id: a,
                    before: before[0],
                    after: x,
                    score: 1.0,
                },
                RatedSeat {
                    account_id: b,
                    before: before[1],
                    after: y,
                    score: 0.0,
                },
            ]
        };
        let fresh = [Standing::default(); 2];
        assert!(s.rate_game(10, "renju15", seats(fresh), 500).await.unwrap());
        assert!(
            !s.rate_game(10, "renju15", seats(fresh), 501).await.unwrap(),
            "once"
        );
        // Game 11 read the standings before game 10 was rated: refused.
        assert!(!s.rate_game(11, "renju15", seats(fresh), 502).await.unwrap());
        let now = [
            s.standing(a, "renju15").await.unwrap(),
            s.standing(b, "renju15").await.unwrap(),
        ];
        assert_eq!((now[0].games, now[0].wins, now[1].losses), (1, 1, 1));
        assert!(now[0].rating.rating > 1500.0 && now[1].rating.rating < 1500.0);
        assert!(s.rate_game(11, "renju15", seats(now), 503).await.unwrap());
        assert_eq!(s.standing(a, "renju15").await.unwrap().games, 2);
        assert_eq!(s.rating_history(a, "renju15").await.unwrap().len(), 2);
        let g = s.lobby_game(10).await.unwrap().unwrap();
        assert_eq!(g.state, "rated");
        assert!(g.ratings[0].1 > 0.0 && g.ratings[1].1 < 0.0);
        assert_eq!(s.standings_of(b).await.unwrap()[0].0, "renju15");
        assert!(
            s.leaders("renju15", 400.0, 10).await.unwrap().is_empty(),
            "no such accounts"
        );
        assert!(!s.abort_rated_game(10).await.unwrap());
        assert_eq!(s.standing(9, "caro20").await.unwrap(), Standing::default());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_seeks_and_ratings_are_copied_with_their_ids() {
    let dir = tempfile::tempdir().unwrap();
    let source = Store::open_sqlite(&dir.path().join("from.sqlite3"))
        .await
        .unwrap();
    let a = account(&source, "Lan", "h1", 1).await;
    let b = account(&source, "Minh", "h2", 2).await;
    source.insert_session("t", a, 3).await.unwrap();
    let seek_id = source.insert_seek(&seek(a, 100)).await.unwrap();
    assert!(source.claim_seek(seek_id, b, 100).await.unwrap());
    let game = rated_game_playing(5, [a, b], "caro20");
    source.seek_taken(seek_id, &game).await.unwrap();
    let (x, y) = crate::rating::game(crate::rating::START, crate::rating::START, 0.5);
    let seats = [
        RatedSeat {
            account_id: a,
            before: Standing::default(),
            after: x,
            score: 0.5,
        },
        RatedSeat {
            account_id: b,
            before: Standing::default(),
            after: y,
            score: 0.5,
        },
    ];
    assert!(source.rate_game(5, "caro20", seats, 200).await.unwrap());

    each_database(async |db| {
        let target = Store::open(db, 2).await.unwrap();
        let copied = source.copy_people_to(&target).await.unwrap();
        assert_eq!(copied[0], ("accounts", 2));
        assert_eq!(
            copied.iter().map(|c| c.1).sum::<usize>(),
            2 + 1 + 1 + 1 + 2 + 2
        );
        assert_eq!(
            target.account(b).await.unwrap(),
            source.account(b).await.unwrap()
        );
        assert_eq!(target.session_account("t", 0).await.unwrap().unwrap().id, a);
        assert_eq!(
            target.standing(a, "caro20").await.unwrap(),
            source.standing(a, "caro20").await.unwrap()
        );
        // New ids go on after the copied ones; a second copy is refused.
        assert!(account(&target, "Hoa", "h", 9).await > b);
        assert!(target.insert_seek(&seek(a, 300)).await.unwrap() > seek_id);
        assert!(matches!(
            source.copy_people_to(&target).await,
            Err(StoreError::NotEmpty(_))
        ));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_connections_use_tls_when_the_url_asks() {
    let Some(pg) = testdb::fresh_database() else {
        return;
    };
    let ssl_in_use = async |store: &Store| {
        store
            .backend
            .query(
                "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                &[],
            )
            .await
            .unwrap()
    };
    let join = if pg.url.contains('?') { '&' } else { '?' };
    let plain = Store::open(&pg.database(), 1).await.unwrap();
    assert_eq!(ssl_in_use(&plain).await, vec![vec![backend::Value::Int(0)]]);
    let url = format!("{}{join}sslmode=require", pg.url);
    let db: Database = url.parse().unwrap();
    match Store::open(&db, 1).await {
        Ok(encrypted) => {
            assert_eq!(
                ssl_in_use(&encrypted).await,
                vec![vec![backend::Value::Int(1)]]
            );
            // The server's certificate is its own (Debian's snakeoil),
            // signed by no authority the web trusts: refused when checked.
            let verify: Database = format!("{}{join}sslmode=verify-full", pg.url)
                .parse()
                .unwrap();
            let refused = Store::open(&verify, 1)
                .await
                .err()
                .expect("an unchecked certificate");
            assert!(refused.to_string().contains("certificate"), "{refused}");
        }
        // A server without TLS says so; nothing more to check here.
        Err(e) => assert!(
            e.to_string().contains("TLS") || e.to_string().contains("SSL"),
            "{e}"
        ),
    }
}
