//! The SQLite backend: one file, one writer connection, one reader.
//! SQLite's library blocks, so each call of the [`Backend`] runs on the
//! runtime's blocking threads (`spawn_blocking`), never on its workers.

use std::borrow::Borrow;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

use super::backend::{Backend, Statement, Value};
use super::{not_empty, sql, GameRow, MatchRow, StoreError};

mod embedded {
    refinery::embed_migrations!("migrations/sqlite");
}

/// The games database in an SQLite file. Writes go through one
/// connection, reads through another: with SQLite's write-ahead log a
/// read never waits for a write (a slow disk, another program holding
/// the write lock).
pub(super) struct SqliteStore {
    /// The connections, shared with the blocking threads the calls run on.
    db: Arc<Db>,
}

/// The file's connections; its calls block.
struct Db {
    path: PathBuf,
    conn: Mutex<Connection>,
    reader: Mutex<Connection>,
    /// Dropped with the store, which stops the checkpointer thread.
    _checkpointer: Option<mpsc::Sender<()>>,
}

/// How often the background thread copies the write-ahead log into the
/// database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);

/// Copies the write-ahead log into the database from a thread of its own,
/// on a second connection, so the fsync of a checkpoint never falls on a
/// request that stores a move. Stops when `stop`'s sender is dropped.
fn checkpoint_loop(conn: Connection, stop: mpsc::Receiver<()>) {
    // Wakes every CHECKPOINT_EVERY until the store is dropped.
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(CHECKPOINT_EVERY) {
        // PASSIVE never waits for writers; whatever it could not copy now
        // is copied next time.
        if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            // A log that fails (its writer panicking on a closed standard
            // error) must not end the thread: without it the write-ahead
            // log would grow for as long as the server runs.
            let _ = std::panic::catch_unwind(AssertUnwindSafe(|| {
                tracing::warn!("checkpoint: {e}");
            }));
        }
    }
    // A last full copy, so a stopped server leaves a small log behind.
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
}

/// Columns added to `games` before the schema had versioned migrations:
/// `(name, definition)`. A file from then is brought to migration V1 by
/// adding the ones it lacks; later columns come with the migrations.
const ADDED_COLUMNS: [(&str, &str); 10] = [
    ("black_token", "TEXT NOT NULL DEFAULT ''"),
    ("white_token", "TEXT NOT NULL DEFAULT ''"),
    ("owner", "TEXT NOT NULL DEFAULT ''"),
    ("clock", "TEXT NOT NULL DEFAULT ''"),
    ("opening", "TEXT NOT NULL DEFAULT 'free'"),
    ("choices", "TEXT NOT NULL DEFAULT ''"),
    ("match_id", "INTEGER NOT NULL DEFAULT 0"),
    ("game_no", "INTEGER NOT NULL DEFAULT 0"),
    ("hints", "INTEGER NOT NULL DEFAULT 0"),
    ("names", "TEXT NOT NULL DEFAULT ''"),
];

/// Brings a file made before versioned migrations (a `games` table but
/// no migration history) to V1: adds the columns it lacks. V1 itself only
/// creates what does not exist, so it then changes nothing there.
fn adopt_unversioned(conn: &Connection) -> Result<(), StoreError> {
    let exists = |table: &str| -> Result<bool, StoreError> {
        Ok(conn
            .query_row(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [table],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    };
    if !exists("games")? || exists("refinery_schema_history")? {
        return Ok(());
    }
    let mut stmt = conn.prepare("PRAGMA table_info(games)")?;
    let have = stmt
        .query_map([], |r| r.get::<_, String>(1))?
        .collect::<Result<Vec<_>, _>>()?;
    for (name, definition) in ADDED_COLUMNS {
        if !have.iter().any(|h| h == name) {
            conn.execute_batch(&format!("ALTER TABLE games ADD COLUMN {name} {definition}"))?;
        }
    }
    Ok(())
}

/// Applies the pending migrations.
fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    adopt_unversioned(conn)?;
    embedded::migrations::runner()
        .run(conn)
        .map_err(|e| StoreError::Migration(e.to_string()))?;
    Ok(())
}

/// Runs `f` on one of the runtime's blocking threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| StoreError::Thread(e.to_string()))?
}

impl SqliteStore {
    /// Opens (creating if needed) the database file and applies the
    /// pending migrations.
    pub(super) async fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let path = path.to_path_buf();
        let db = blocking(move || Db::open(&path)).await?;
        Ok(SqliteStore { db: Arc::new(db) })
    }

    /// Runs `f` on the connections, on one of the runtime's blocking
    /// threads.
    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Db) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let db = Arc::clone(&self.db);
        blocking(move || f(&db)).await
    }
}

#[async_trait::async_trait]
impl Backend for SqliteStore {
    fn is_shared(&self) -> bool {
        false
    }

    fn describe(&self) -> String {
        self.db.describe()
    }

    async fn get_match(&self, id: i64) -> Result<Option<MatchRow>, StoreError> {
        self.run(move |db| db.get_match(id)).await
    }

    async fn match_games(&self, match_id: i64) -> Result<Vec<GameRow>, StoreError> {
        self.run(move |db| db.match_games(match_id)).await
    }

    async fn update(&self, row: &GameRow) -> Result<bool, StoreError> {
        let row = row.clone();
        self.run(move |db| db.update(&row)).await
    }

    async fn get(&self, id: i64) -> Result<Option<GameRow>, StoreError> {
        self.run(move |db| db.get(id)).await
    }

    async fn list(&self, limit: usize, abandoned_before: i64) -> Result<Vec<GameRow>, StoreError> {
        self.run(move |db| db.list(limit, abandoned_before)).await
    }

    /// One instance has an SQLite file: nobody to tell.
    async fn notify(&self, _payload: &str) -> Result<(), StoreError> {
        Ok(())
    }

    async fn execute_and_notify(
        &self,
        sql: &str,
        params: &[Value],
        _payload: &str,
    ) -> Result<(), StoreError> {
        self.execute(sql, params).await?;
        Ok(())
    }

    async fn sweep_instances(&self, dead_before_ms: i64) -> Result<Vec<i64>, StoreError> {
        self.run(move |db| db.sweep_instances(dead_before_ms)).await
    }

    async fn counts(&self) -> Result<(usize, usize, usize), StoreError> {
        self.run(|db| counts(&db.reader())).await
    }

    async fn all_games(&self) -> Result<Vec<GameRow>, StoreError> {
        self.run(|db| db.read_all(sql::ALL_GAMES, [], read_row))
            .await
    }

    async fn all_matches(&self) -> Result<Vec<MatchRow>, StoreError> {
        self.run(|db| db.read_all(sql::ALL_MATCHES, [], read_match))
            .await
    }

    async fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        let (sql, params) = (sql.to_string(), params.to_vec());
        self.run(move |db| db.execute(&sql, &params)).await
    }

    async fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, StoreError> {
        let (sql, params) = (sql.to_string(), params.to_vec());
        self.run(move |db| db.query(&sql, &params)).await
    }

    async fn transaction(&self, statements: &[Statement]) -> Result<bool, StoreError> {
        let statements = statements.to_vec();
        self.run(move |db| db.transaction(&statements)).await
    }

    async fn import(&self, statements: Vec<Statement>) -> Result<(), StoreError> {
        self.run(move |db| db.import(statements)).await
    }

    async fn continue_ids(&self, _tables: &[&str]) -> Result<(), StoreError> {
        // An INTEGER PRIMARY KEY goes on from the largest id by itself.
        Ok(())
    }
}

impl Db {
    /// Opens (creating if needed) the database file and applies the
    /// pending migrations.
    fn open(path: &Path) -> Result<Db, StoreError> {
        let mut conn = Connection::open(path)?;
        // SQLite falls back to reading only when the file cannot be
        // written; a server that cannot store a move must not start.
        if conn.is_readonly(rusqlite::MAIN_DB)? {
            return Err(StoreError::ReadOnly(path.display().to_string()));
        }
        // WAL: a write is durable once the statement returns, even if the
        // process is killed right after.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(Duration::from_secs(5))?;
        migrate(&mut conn)?;
        // Takes the write lock, as storing a move will.
        conn.execute_batch("BEGIN IMMEDIATE; COMMIT;")?;
        // Checkpoints run on their own thread (see `checkpoint_loop`);
        // without it, writes checkpoint automatically as SQLite's default.
        let checkpointer = Connection::open(path)
            .and_then(|c| c.busy_timeout(Duration::from_secs(5)).map(|()| c))
            .ok()
            .and_then(|c| {
                let (tx, rx) = mpsc::channel();
                std::thread::Builder::new()
                    .name("sqlite-checkpoint".into())
                    .spawn(move || checkpoint_loop(c, rx))
                    .ok()
                    .map(|_| tx)
            });
        if checkpointer.is_some() {
            conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        }
        let reader = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        reader.busy_timeout(Duration::from_secs(5))?;
        Ok(Db {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
            reader: Mutex::new(reader),
            _checkpointer: checkpointer,
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written
        // (each statement is atomic), so a poisoned lock is still usable.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn reader(&self) -> MutexGuard<'_, Connection> {
        self.reader.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every row a read selects (its SQL in PostgreSQL's dialect), each
    /// made by `read`.
    fn read_all<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        read: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn.prepare(&sql::sqlite(sql))?;
        let rows = stmt.query_map(params, read)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
}

/// The calls of the [`Backend`], each blocking.
impl Db {
    fn describe(&self) -> String {
        format!("sqlite:{}", self.path.display())
    }

    fn get_match(&self, id: i64) -> Result<Option<MatchRow>, StoreError> {
        let row = self
            .reader()
            .query_row(&sql::sqlite(sql::GET_MATCH), [id], read_match)
            .optional()?;
        Ok(row)
    }

    fn match_games(&self, match_id: i64) -> Result<Vec<GameRow>, StoreError> {
        self.read_all(sql::MATCH_GAMES, [match_id], read_row)
    }

    fn update(&self, row: &GameRow) -> Result<bool, StoreError> {
        // Written after every move: the statement is parsed once.
        let n = self
            .conn()
            .prepare_cached(
                "UPDATE games SET updated = ?2, moves = ?3, redo = ?4, result = ?5, ending = ?6, clock = ?7, choices = ?8, hints = ?9,
                 offers = ?11, paused = ?12, delay_ms = ?13, computer_turn = ?14, search_until = ?15, next_id = ?16, version = version + 1
                 WHERE id = ?1 AND version = ?10",
            )?
            .execute(params![
                row.id,
                row.updated,
                row.moves,
                row.redo,
                row.result,
                row.ending,
                row.clock,
                row.choices,
                row.hints,
                row.version,
                row.offers,
                row.paused,
                row.delay_ms as i64,
                row.computer_turn,
                row.search_until,
                row.next_id
            ])?;
        Ok(n == 1)
    }

    fn get(&self, id: i64) -> Result<Option<GameRow>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn.prepare_cached(&sql::sqlite(sql::GET_GAME))?;
        Ok(stmt.query_row([id], read_row).optional()?)
    }

    fn list(&self, limit: usize, abandoned_before: i64) -> Result<Vec<GameRow>, StoreError> {
        self.read_all(
            sql::LIST_GAMES,
            params![limit as i64, abandoned_before],
            read_row,
        )
    }

    fn sweep_instances(&self, dead_before_ms: i64) -> Result<Vec<i64>, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let games = {
            let mut stmt = tx.prepare(
                "SELECT DISTINCT game_id FROM presence
                 WHERE instance IN (SELECT id FROM instances WHERE seen < ?1) ORDER BY game_id",
            )?;
            let ids = stmt.query_map([dead_before_ms], |r| r.get(0))?;
            ids.collect::<Result<Vec<i64>, _>>()?
        };
        tx.execute(
            "DELETE FROM presence WHERE instance IN (SELECT id FROM instances WHERE seen < ?1)",
            [dead_before_ms],
        )?;
        tx.execute("DELETE FROM instances WHERE seen < ?1", [dead_before_ms])?;
        tx.commit()?;
        Ok(games)
    }

    fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        let n = self
            .conn()
            .prepare_cached(&sql::sqlite(sql))?
            .execute(rusqlite::params_from_iter(params.iter().map(bound)))?;
        Ok(n as u64)
    }

    fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, StoreError> {
        // A plain read goes to the reader; `INSERT … RETURNING` and the
        // like to the writer.
        let read_only = sql.trim_start().starts_with("SELECT");
        let conn = if read_only {
            self.reader()
        } else {
            self.conn()
        };
        let mut stmt = conn.prepare_cached(&sql::sqlite(sql))?;
        let columns = stmt.column_count();
        let rows = stmt.query_map(rusqlite::params_from_iter(params.iter().map(bound)), |r| {
            (0..columns).map(|i| r.get_ref(i).map(read_value)).collect()
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    fn transaction(&self, statements: &[Statement]) -> Result<bool, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        if !execute_all(&tx, statements)? {
            return Ok(false);
        }
        tx.commit()?;
        Ok(true)
    }

    fn import(&self, statements: Vec<Statement>) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let have = counts(&tx)?;
        if have != (0, 0, 0) {
            return Err(not_empty(&self.describe(), have));
        }
        execute_all(&tx, statements)?;
        // AUTOINCREMENT continues after the largest id inserted.
        tx.commit()?;
        Ok(())
    }
}

/// Runs statements in a transaction: `false` as soon as one marked
/// `must_change` changed no row (the later ones are not run).
fn execute_all(
    tx: &rusqlite::Transaction<'_>,
    statements: impl IntoIterator<Item = impl Borrow<Statement>>,
) -> Result<bool, StoreError> {
    for s in statements {
        let s = s.borrow();
        let n = tx
            .prepare_cached(&sql::sqlite(&s.sql))?
            .execute(rusqlite::params_from_iter(s.params.iter().map(bound)))?;
        if s.must_change && n == 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A [`Value`] as SQLite binds it.
fn bound(v: &Value) -> rusqlite::types::Value {
    match v {
        Value::Int(i) => rusqlite::types::Value::Integer(*i),
        Value::Real(r) => rusqlite::types::Value::Real(*r),
        Value::Text(t) => rusqlite::types::Value::Text(t.clone()),
        Value::Null => rusqlite::types::Value::Null,
    }
}

/// A column read as a [`Value`] (a blob, never written by caro, as text).
fn read_value(v: rusqlite::types::ValueRef<'_>) -> Value {
    use rusqlite::types::ValueRef;
    match v {
        ValueRef::Integer(i) => Value::Int(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            Value::Text(String::from_utf8_lossy(t).into_owned())
        }
        ValueRef::Null => Value::Null,
    }
}

fn counts(conn: &Connection) -> Result<(usize, usize, usize), StoreError> {
    let count = |table: &str| -> Result<usize, StoreError> {
        let n: i64 = conn.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))?;
        Ok(n.max(0) as usize)
    };
    Ok((count("games")?, count("matches")?, count("analyses")?))
}

fn read_match(r: &rusqlite::Row<'_>) -> rusqlite::Result<MatchRow> {
    Ok(MatchRow {
        id: r.get(0)?,
        first_to: r.get(1)?,
        player_a: r.get(2)?,
        player_b: r.get(3)?,
        created: r.get(4)?,
    })
}

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
    Ok(GameRow {
        id: r.get(0)?,
        created: r.get(1)?,
        updated: r.get(2)?,
        black: r.get(3)?,
        white: r.get(4)?,
        width: r.get(5)?,
        height: r.get(6)?,
        k: r.get(7)?,
        rule: r.get(8)?,
        first: r.get(9)?,
        time_ms: r.get::<_, i64>(10)?.max(0) as u64,
        moves: r.get(11)?,
        redo: r.get(12)?,
        result: r.get(13)?,
        ending: r.get(14)?,
        black_token: r.get(15)?,
        white_token: r.get(16)?,
        owner: r.get(17)?,
        clock: r.get(18)?,
        opening: r.get(19)?,
        choices: r.get(20)?,
        match_id: r.get(21)?,
        game_no: r.get(22)?,
        hints: r.get(23)?,
        names: r.get(24)?,
        version: r.get(25)?,
        offers: r.get(26)?,
        paused: r.get(27)?,
        delay_ms: r.get::<_, i64>(28)?.max(0) as u64,
        computer_turn: r.get(29)?,
        search_until: r.get(30)?,
        next_id: r.get(31)?,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    use super::*;

    /// A log whose every write fails the worst way: with a panic.
    struct PanickingLog(Arc<AtomicUsize>);

    impl Subscriber for PanickingLog {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {
            self.0.fetch_add(1, Ordering::SeqCst);
            panic!("the log cannot be written");
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    #[test]
    fn the_checkpointer_survives_a_failing_checkpoint_and_a_failing_log() {
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("caro.sqlite3");
        // A write-ahead log with something in it, and a checkpoint from a
        // read-only connection, which fails every time.
        let writer = Connection::open(&path).expect("a database");
        writer
            .execute_batch(
                "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
                 CREATE TABLE t (x); INSERT INTO t VALUES (1);",
            )
            .expect("a write");
        let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("a read-only connection");
        assert!(
            conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
                .is_err(),
            "the checkpoint was meant to fail"
        );
        let logged = Arc::new(AtomicUsize::new(0));
        let log = PanickingLog(Arc::clone(&logged));
        let (stop, rx) = mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            tracing::subscriber::with_default(log, || checkpoint_loop(conn, rx));
        });
        let until = std::time::Instant::now() + Duration::from_secs(20);
        while logged.load(Ordering::SeqCst) < 2 && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(stop);
        assert!(thread.join().is_ok(), "the checkpointer died");
        assert!(
            logged.load(Ordering::SeqCst) >= 2,
            "the checkpointer stopped after its first failed log"
        );
    }
}
