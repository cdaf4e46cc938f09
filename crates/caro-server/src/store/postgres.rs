//! The PostgreSQL backend: a pool of connections driven by the server's
//! own tokio runtime (a small runtime of its own when opened outside a
//! multi-threaded one: the command line, tests), while the store's calls
//! stay synchronous: they are made on blocking threads and engine
//! threads, never on the runtime's workers.

use std::future::Future;
use std::time::Duration;

use deadpool_postgres::{
    Manager, ManagerConfig, Object, Pool, PoolError, RecyclingMethod, Runtime as PoolRuntime,
};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Config, GenericClient, Row};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::backend::{Backend, Statement, Value};
use super::sql::{self, COLUMNS};
use super::{hide_password, not_empty, AnalysisRow, GameRow, MatchRow, StoreError};

mod embedded {
    refinery::embed_migrations!("migrations/postgres");
}

/// The notification channel of game and presence changes.
pub(crate) const CHANNEL: &str = "caro_games";

/// Held while migrations run, so instances starting together apply them
/// one after the other.
const MIGRATION_LOCK: i64 = 0x0063_6172_6f6d_6967;

/// How long a call waits for a free pooled connection.
const POOL_WAIT: Duration = Duration::from_secs(10);

/// How long opening a connection may take, unless the URL says.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The games database on a PostgreSQL server.
pub(super) struct PgStore {
    describe: String,
    pool: Pool,
    /// The runtime the connections run on.
    driver: Driver,
}

/// The runtime a [`PgStore`]'s connections run on.
enum Driver {
    /// The server's: the store was opened on one of its blocking threads.
    Server(tokio::runtime::Handle),
    /// A runtime of the store's own, taken (and shut down) on drop.
    Own(Option<tokio::runtime::Runtime>),
}

impl Driver {
    /// The runtime the store was opened within, if it is multi-threaded
    /// (its workers then drive the connections while a blocking thread
    /// waits); otherwise a small runtime of the store's own.
    fn new() -> Result<Driver, StoreError> {
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread {
                return Ok(Driver::Server(handle));
            }
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("caro-postgres")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Thread(e.to_string()))?;
        Ok(Driver::Own(Some(runtime)))
    }

    /// Runs `f` to its end on the runtime, blocking the calling thread.
    fn block_on<T>(&self, f: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
        match self {
            Driver::Server(handle) => handle.block_on(f),
            Driver::Own(Some(rt)) => rt.block_on(f),
            Driver::Own(None) => Err(StoreError::Thread("the store is closed".into())),
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Driver::Own(runtime) = self {
            if let Some(rt) = runtime.take() {
                rt.shutdown_background();
            }
        }
    }
}

/// A PostgreSQL error as the store reports it: a refused connection is
/// [`StoreError::Unreachable`], a statement's failure names its SQLSTATE.
fn pg_error(describe: &str, e: tokio_postgres::Error) -> StoreError {
    if let Some(db) = e.as_db_error() {
        let mut text = format!("{} (SQLSTATE {})", db.message(), db.code().code());
        if let Some(detail) = db.detail() {
            text.push_str(": ");
            text.push_str(detail);
        }
        return StoreError::Postgres(text);
    }
    let io = std::error::Error::source(&e).is_some_and(|s| s.is::<std::io::Error>());
    if io || e.is_closed() {
        return StoreError::Unreachable(format!("{describe}: {}", with_causes(&e)));
    }
    StoreError::Postgres(with_causes(&e))
}

/// An error with its causes: `error connecting to server: Connection
/// refused (os error 111)`.
pub(super) fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let more = c.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = c.source();
    }
    text
}

/// A value out of its Rust type's range in a stored game.
fn damaged(id: i64, column: &str, value: i64) -> StoreError {
    StoreError::Damaged {
        id,
        reason: format!("{column} {value} is out of range"),
    }
}

/// Applies the pending migrations on a connection of their own, under an
/// advisory lock.
async fn migrate(
    config: &Config,
    tls: MakeRustlsConnect,
    describe: &str,
) -> Result<(), StoreError> {
    let (mut client, connection) = config
        .connect(tls)
        .await
        .map_err(|e| StoreError::Unreachable(format!("{describe}: {}", with_causes(&e))))?;
    let driver = tokio::spawn(connection);
    let result = async {
        client
            .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(|e| pg_error(describe, e))?;
        let applied = embedded::migrations::runner()
            .run_async(&mut client)
            .await
            .map_err(|e| StoreError::Migration(e.to_string()));
        client
            .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(|e| pg_error(describe, e))?;
        applied.map(|_| ())
    }
    .await;
    drop(client);
    let _ = driver.await;
    result
}

impl PgStore {
    /// Connects, applies the pending migrations and makes the pool.
    pub(super) fn open(url: &str, pool_size: usize) -> Result<PgStore, StoreError> {
        let describe = hide_password(url);
        let super::tls::Connection { mut config, tls } = super::tls::connection(url)
            .map_err(|e| StoreError::Postgres(format!("{describe}: {e}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("caro");
        }
        let driver = Driver::new()?;
        driver.block_on(migrate(&config, tls.clone(), &describe))?;
        let manager = Manager::from_config(
            config,
            tls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(pool_size.max(1))
            .runtime(PoolRuntime::Tokio1)
            .wait_timeout(Some(POOL_WAIT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .recycle_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(|e| StoreError::Postgres(e.to_string()))?;
        Ok(PgStore {
            describe,
            pool,
            driver,
        })
    }

    /// Runs `f` to its end on the store's runtime.
    fn run<T>(&self, f: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
        self.driver.block_on(f)
    }

    fn err(&self, e: tokio_postgres::Error) -> StoreError {
        pg_error(&self.describe, e)
    }

    /// A pooled connection.
    async fn client(&self) -> Result<Object, StoreError> {
        self.pool.get().await.map_err(|e| match e {
            PoolError::Backend(e) => self.err(e),
            PoolError::Timeout(_) => StoreError::Unreachable(format!(
                "{}: no connection free or made within {}s",
                self.describe,
                POOL_WAIT.as_secs()
            )),
            e => StoreError::Postgres(format!("{}: {e}", self.describe)),
        })
    }

    /// The games a query selects (its columns: [`COLUMNS`]).
    fn games(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<GameRow>, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let stmt = c.prepare_cached(sql).await.map_err(|e| self.err(e))?;
            let rows = c.query(&stmt, params).await.map_err(|e| self.err(e))?;
            rows.iter().map(read_row).collect()
        })
    }

    /// The ids a query selects.
    fn ids(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<i64>, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let stmt = c.prepare_cached(sql).await.map_err(|e| self.err(e))?;
            let rows = c.query(&stmt, params).await.map_err(|e| self.err(e))?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }
}

impl Backend for PgStore {
    fn is_shared(&self) -> bool {
        true
    }

    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn schema_version(&self) -> Result<i64, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let row = c
                .query_one(
                    "SELECT COALESCE(MAX(version), 0)::BIGINT FROM refinery_schema_history",
                    &[],
                )
                .await
                .map_err(|e| self.err(e))?;
            Ok(row.get(0))
        })
    }

    fn insert(&self, row: &GameRow) -> Result<i64, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let v = Converted::of(row);
            let stmt = c
                .prepare_cached(&format!(
                    "INSERT INTO games ({}) VALUES ({}) RETURNING id",
                    &COLUMNS["id, ".len()..],
                    placeholders(1, 31)
                ))
                .await
                .map_err(|e| self.err(e))?;
            let params = game_params(row, &v);
            let got = c
                .query_one(&stmt, &params[1..])
                .await
                .map_err(|e| self.err(e))?;
            Ok(got.get(0))
        })
    }

    fn insert_match(&self, m: &MatchRow) -> Result<i64, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let row = c
                .query_one(
                    "INSERT INTO matches (first_to, player_a, player_b, created) VALUES ($1, $2, $3, $4) RETURNING id",
                    &[&i64::from(m.first_to), &m.player_a, &m.player_b, &m.created],
                )
                .await
                .map_err(|e| self.err(e))?;
            Ok(row.get(0))
        })
    }

    fn get_match(&self, id: i64) -> Result<Option<MatchRow>, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let row = c
                .query_opt(sql::GET_MATCH, &[&id])
                .await
                .map_err(|e| self.err(e))?;
            row.as_ref().map(read_match).transpose()
        })
    }

    fn match_games(&self, match_id: i64) -> Result<Vec<GameRow>, StoreError> {
        self.games(sql::MATCH_GAMES, &[&match_id])
    }

    fn update(&self, row: &GameRow) -> Result<bool, StoreError> {
        self.run(async {
            let c = self.client().await?;
            // One statement, so one transaction: the notification goes
            // out when (and only if) the change is committed.
            let stmt = c
                .prepare_cached(
                    "WITH u AS (
                        UPDATE games SET updated = $2, moves = $3, redo = $4, result = $5, ending = $6, clock = $7, choices = $8, hints = $9,
                        offers = $11, paused = $12, delay_ms = $13, computer_turn = $14, search_until = $15, next_id = $16, version = version + 1
                        WHERE id = $1 AND version = $10 RETURNING id, version)
                     SELECT pg_notify('caro_games', 'g ' || id || ' ' || version || $17) FROM u",
                )
                .await
                .map_err(|e| self.err(e))?;
            let v = Converted::of(row);
            // The changed columns ride along, so the other instances need
            // not read the game again.
            let tail = super::ChangedColumns::notification_tail(row);
            let rows = c
                .query(
                    &stmt,
                    &[
                        &row.id,
                        &row.updated,
                        &row.moves,
                        &row.redo,
                        &row.result,
                        &row.ending,
                        &row.clock,
                        &row.choices,
                        &v.hints,
                        &row.version,
                        &row.offers,
                        &v.paused,
                        &v.delay_ms,
                        &v.computer_turn,
                        &row.search_until,
                        &row.next_id,
                        &tail,
                    ],
                )
                .await
                .map_err(|e| self.err(e))?;
            Ok(rows.len() == 1)
        })
    }

    fn claim_search(
        &self,
        id: i64,
        version: i64,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let stmt = c
                .prepare_cached(sql::CLAIM_SEARCH)
                .await
                .map_err(|e| self.err(e))?;
            let n = c
                .execute(&stmt, &[&id, &version, &now_ms, &until_ms])
                .await
                .map_err(|e| self.err(e))?;
            Ok(n == 1)
        })
    }

    fn hold_search(&self, id: i64, version: i64, until_ms: i64) -> Result<bool, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let stmt = c
                .prepare_cached(sql::HOLD_SEARCH)
                .await
                .map_err(|e| self.err(e))?;
            let n = c
                .execute(&stmt, &[&id, &version, &until_ms])
                .await
                .map_err(|e| self.err(e))?;
            Ok(n == 1)
        })
    }

    fn live_instances(&self, except: &str, alive_after_ms: i64) -> Result<usize, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let row = c
                .query_one(sql::LIVE_INSTANCES, &[&except, &alive_after_ms])
                .await
                .map_err(|e| self.err(e))?;
            let n: i64 = row.get(0);
            Ok(usize::try_from(n).unwrap_or(0))
        })
    }

    fn searches_due(&self, now_ms: i64, limit: usize) -> Result<Vec<i64>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.ids(sql::SEARCHES_DUE, &[&now_ms, &limit])
    }

    fn get(&self, id: i64) -> Result<Option<GameRow>, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let stmt = c
                .prepare_cached(sql::GET_GAME)
                .await
                .map_err(|e| self.err(e))?;
            let row = c.query_opt(&stmt, &[&id]).await.map_err(|e| self.err(e))?;
            row.as_ref().map(read_row).transpose()
        })
    }

    fn open_online_games(&self, owner: &str) -> Result<usize, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let row = c
                .query_one(sql::OPEN_ONLINE_GAMES, &[&owner])
                .await
                .map_err(|e| self.err(e))?;
            Ok(row.get::<_, i64>(0).max(0) as usize)
        })
    }

    fn running_clocks(&self) -> Result<Vec<i64>, StoreError> {
        self.ids(sql::RUNNING_CLOCKS, &[])
    }

    fn list(&self, limit: usize, abandoned_before: i64) -> Result<Vec<GameRow>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.games(sql::LIST_GAMES, &[&limit, &abandoned_before])
    }

    fn analysis(&self, game_id: i64, engine: &str) -> Result<Option<(String, String)>, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let row = c
                .query_opt(sql::GET_ANALYSIS, &[&game_id, &engine])
                .await
                .map_err(|e| self.err(e))?;
            Ok(row.map(|r| (r.get(0), r.get(1))))
        })
    }

    fn put_analysis(
        &self,
        game_id: i64,
        position: &str,
        engine: &str,
        data: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        self.run(async {
            let c = self.client().await?;
            c.execute(
                "INSERT INTO analyses (game_id, position, engine, data, created) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (game_id) DO UPDATE SET position = EXCLUDED.position, engine = EXCLUDED.engine,
                 data = EXCLUDED.data, created = EXCLUDED.created",
                &[&game_id, &position, &engine, &data, &now],
            )
            .await
            .map_err(|e| self.err(e))?;
            Ok(())
        })
    }

    fn notify(&self, payload: &str) -> Result<(), StoreError> {
        self.run(async {
            let c = self.client().await?;
            let stmt = c
                .prepare_cached("SELECT pg_notify($1, $2)")
                .await
                .map_err(|e| self.err(e))?;
            c.execute(&stmt, &[&CHANNEL, &payload])
                .await
                .map_err(|e| self.err(e))?;
            Ok(())
        })
    }

    fn set_presence(
        &self,
        instance: &str,
        game_id: i64,
        seat: u8,
        sockets: u32,
    ) -> Result<(), StoreError> {
        let seat = i32::from(seat);
        let sockets = i32::try_from(sockets).unwrap_or(i32::MAX);
        let payload = format!("p {game_id}");
        self.run(async {
            let c = self.client().await?;
            // The change and its notification in one statement.
            if sockets == 0 {
                let stmt = c
                    .prepare_cached(
                        "WITH d AS (DELETE FROM presence WHERE instance = $1 AND game_id = $2 AND seat = $3)
                         SELECT pg_notify('caro_games', $4)",
                    )
                    .await
                    .map_err(|e| self.err(e))?;
                c.execute(&stmt, &[&instance, &game_id, &seat, &payload])
                    .await
                    .map_err(|e| self.err(e))?;
            } else {
                let stmt = c
                    .prepare_cached(
                        "WITH w AS (INSERT INTO presence (instance, game_id, seat, sockets) VALUES ($1, $2, $3, $4)
                                    ON CONFLICT (instance, game_id, seat) DO UPDATE SET sockets = EXCLUDED.sockets)
                         SELECT pg_notify('caro_games', $5)",
                    )
                    .await
                    .map_err(|e| self.err(e))?;
                c.execute(&stmt, &[&instance, &game_id, &seat, &sockets, &payload])
                    .await
                    .map_err(|e| self.err(e))?;
            }
            Ok(())
        })
    }

    fn presence(
        &self,
        game_id: i64,
        except_instance: &str,
        alive_after_ms: i64,
    ) -> Result<[u32; 2], StoreError> {
        self.run(async {
            let c = self.client().await?;
            let stmt = c
                .prepare_cached(
                    "SELECT p.seat, SUM(p.sockets)::BIGINT FROM presence p JOIN instances i ON i.id = p.instance
                     WHERE p.game_id = $1 AND p.instance <> $2 AND i.seen > $3 GROUP BY p.seat",
                )
                .await
                .map_err(|e| self.err(e))?;
            let rows = c
                .query(&stmt, &[&game_id, &except_instance, &alive_after_ms])
                .await
                .map_err(|e| self.err(e))?;
            let mut out = [0u32; 2];
            for r in rows {
                let seat: i32 = r.get(0);
                let n: i64 = r.get(1);
                if let Some(slot) = usize::try_from(seat).ok().and_then(|s| out.get_mut(s)) {
                    *slot = u32::try_from(n.max(0)).unwrap_or(u32::MAX);
                }
            }
            Ok(out)
        })
    }

    fn heartbeat(&self, instance: &str, now_ms: i64) -> Result<(), StoreError> {
        self.run(async {
            let c = self.client().await?;
            let stmt = c
                .prepare_cached(sql::HEARTBEAT)
                .await
                .map_err(|e| self.err(e))?;
            c.execute(&stmt, &[&instance, &now_ms])
                .await
                .map_err(|e| self.err(e))?;
            Ok(())
        })
    }

    fn sweep_instances(&self, dead_before_ms: i64) -> Result<Vec<i64>, StoreError> {
        self.ids(
            "WITH dead AS (DELETE FROM instances WHERE seen < $1 RETURNING id),
                  gone AS (DELETE FROM presence WHERE instance IN (SELECT id FROM dead) RETURNING game_id),
                  touched AS (SELECT DISTINCT game_id FROM gone)
             SELECT game_id, pg_notify('caro_games', 'p ' || game_id) FROM touched ORDER BY game_id",
            &[&dead_before_ms],
        )
    }

    fn counts(&self) -> Result<(usize, usize, usize), StoreError> {
        self.run(async {
            let c = self.client().await?;
            counts(&**c).await.map_err(|e| self.err(e))
        })
    }

    fn all_games(&self) -> Result<Vec<GameRow>, StoreError> {
        self.games(sql::ALL_GAMES, &[])
    }

    fn all_matches(&self) -> Result<Vec<MatchRow>, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let rows = c
                .query(sql::ALL_MATCHES, &[])
                .await
                .map_err(|e| self.err(e))?;
            rows.iter().map(read_match).collect()
        })
    }

    fn all_analyses(&self) -> Result<Vec<AnalysisRow>, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let rows = c
                .query(sql::ALL_ANALYSES, &[])
                .await
                .map_err(|e| self.err(e))?;
            Ok(rows
                .iter()
                .map(|r| AnalysisRow {
                    game_id: r.get(0),
                    position: r.get(1),
                    engine: r.get(2),
                    data: r.get(3),
                    created: r.get(4),
                })
                .collect())
        })
    }

    fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let stmt = c.prepare_cached(sql).await.map_err(|e| self.err(e))?;
            c.execute(&stmt, &bind(params))
                .await
                .map_err(|e| self.err(e))
        })
    }

    fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, StoreError> {
        self.run(async {
            let c = self.client().await?;
            let stmt = c.prepare_cached(sql).await.map_err(|e| self.err(e))?;
            let rows = c
                .query(&stmt, &bind(params))
                .await
                .map_err(|e| self.err(e))?;
            rows.iter().map(read_values).collect()
        })
    }

    fn transaction(&self, statements: &[Statement]) -> Result<bool, StoreError> {
        self.run(async {
            let mut c = self.client().await?;
            let tx = c.transaction().await.map_err(|e| self.err(e))?;
            for s in statements {
                let stmt = tx.prepare_cached(&s.sql).await.map_err(|e| self.err(e))?;
                let n = tx
                    .execute(&stmt, &bind(&s.params))
                    .await
                    .map_err(|e| self.err(e))?;
                if s.must_change && n == 0 {
                    return Ok(false);
                }
            }
            tx.commit().await.map_err(|e| self.err(e))?;
            Ok(true)
        })
    }

    fn continue_ids(&self, tables: &[&str]) -> Result<(), StoreError> {
        self.run(async {
            let c = self.client().await?;
            for table in tables {
                c.batch_execute(&format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', 'id'),
                                   GREATEST((SELECT MAX(id) FROM {table}), 1),
                                   (SELECT MAX(id) FROM {table}) IS NOT NULL)"
                ))
                .await
                .map_err(|e| self.err(e))?;
            }
            Ok(())
        })
    }

    fn import(
        &self,
        games: &[GameRow],
        matches: &[MatchRow],
        analyses: &[AnalysisRow],
    ) -> Result<(), StoreError> {
        self.run(async {
            let mut c = self.client().await?;
            let tx = c.transaction().await.map_err(|e| self.err(e))?;
            // No other writer may add rows while the copy is checked and made.
            tx.batch_execute("LOCK TABLE games, matches, analyses IN EXCLUSIVE MODE")
                .await
                .map_err(|e| self.err(e))?;
            let have = counts(&*tx).await.map_err(|e| self.err(e))?;
            if have != (0, 0, 0) {
                return Err(not_empty(&self.describe, have));
            }
            let stmt = tx.prepare(sql::COPY_MATCH).await.map_err(|e| self.err(e))?;
            for m in matches {
                tx.execute(
                    &stmt,
                    &[
                        &m.id,
                        &i64::from(m.first_to),
                        &m.player_a,
                        &m.player_b,
                        &m.created,
                    ],
                )
                .await
                .map_err(|e| self.err(e))?;
            }
            let stmt = tx
                .prepare(sql::INSERT_GAME)
                .await
                .map_err(|e| self.err(e))?;
            for g in games {
                let v = Converted::of(g);
                tx.execute(&stmt, &game_params(g, &v))
                    .await
                    .map_err(|e| self.err(e))?;
            }
            let stmt = tx
                .prepare(sql::COPY_ANALYSIS)
                .await
                .map_err(|e| self.err(e))?;
            for a in analyses {
                tx.execute(
                    &stmt,
                    &[&a.game_id, &a.position, &a.engine, &a.data, &a.created],
                )
                .await
                .map_err(|e| self.err(e))?;
            }
            // New ids continue after the largest copied.
            for table in ["games", "matches"] {
                tx.batch_execute(&format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', 'id'),
                                   GREATEST((SELECT MAX(id) FROM {table}), 1),
                                   (SELECT MAX(id) FROM {table}) IS NOT NULL)"
                ))
                .await
                .map_err(|e| self.err(e))?;
            }
            tx.commit().await.map_err(|e| self.err(e))?;
            Ok(())
        })
    }
}

async fn counts<C: GenericClient>(c: &C) -> Result<(usize, usize, usize), tokio_postgres::Error> {
    let row = c
        .query_one(
            "SELECT (SELECT COUNT(*) FROM games), (SELECT COUNT(*) FROM matches), (SELECT COUNT(*) FROM analyses)",
            &[],
        )
        .await?;
    let n = |i: usize| row.get::<_, i64>(i).max(0) as usize;
    Ok((n(0), n(1), n(2)))
}

/// `$from, ..., $(from + n - 1)`.
fn placeholders(from: usize, n: usize) -> String {
    (from..from + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A game's fields in the column types PostgreSQL has for them.
struct Converted {
    width: i32,
    height: i32,
    k: i32,
    time_ms: i64,
    game_no: i64,
    hints: i64,
    paused: i32,
    delay_ms: i64,
    computer_turn: i32,
}

impl Converted {
    fn of(row: &GameRow) -> Converted {
        Converted {
            width: i32::from(row.width),
            height: i32::from(row.height),
            k: i32::from(row.k),
            time_ms: i64::try_from(row.time_ms).unwrap_or(i64::MAX),
            game_no: i64::from(row.game_no),
            hints: i64::from(row.hints),
            paused: i32::from(row.paused),
            delay_ms: i64::try_from(row.delay_ms).unwrap_or(i64::MAX),
            computer_turn: i32::from(row.computer_turn),
        }
    }
}

/// A game's values in [`COLUMNS`]' order.
fn game_params<'a>(row: &'a GameRow, v: &'a Converted) -> [&'a (dyn ToSql + Sync); 32] {
    [
        &row.id,
        &row.created,
        &row.updated,
        &row.black,
        &row.white,
        &v.width,
        &v.height,
        &v.k,
        &row.rule,
        &row.first,
        &v.time_ms,
        &row.moves,
        &row.redo,
        &row.result,
        &row.ending,
        &row.black_token,
        &row.white_token,
        &row.owner,
        &row.clock,
        &row.opening,
        &row.choices,
        &row.match_id,
        &v.game_no,
        &v.hints,
        &row.names,
        &row.version,
        &row.offers,
        &v.paused,
        &v.delay_ms,
        &v.computer_turn,
        &row.search_until,
        &row.next_id,
    ]
}

fn read_match(r: &Row) -> Result<MatchRow, StoreError> {
    let id: i64 = r.get(0);
    let first_to: i64 = r.get(1);
    Ok(MatchRow {
        id,
        first_to: u32::try_from(first_to).map_err(|_| damaged(id, "first_to", first_to))?,
        player_a: r.get(2),
        player_b: r.get(3),
        created: r.get(4),
    })
}

fn read_row(r: &Row) -> Result<GameRow, StoreError> {
    let id: i64 = r.get(0);
    let small = |i: usize, name: &str| -> Result<u8, StoreError> {
        let v: i32 = r.get(i);
        u8::try_from(v).map_err(|_| damaged(id, name, i64::from(v)))
    };
    let count = |i: usize, name: &str| -> Result<u32, StoreError> {
        let v: i64 = r.get(i);
        u32::try_from(v).map_err(|_| damaged(id, name, v))
    };
    Ok(GameRow {
        id,
        created: r.get(1),
        updated: r.get(2),
        black: r.get(3),
        white: r.get(4),
        width: small(5, "width")?,
        height: small(6, "height")?,
        k: small(7, "k")?,
        rule: r.get(8),
        first: r.get(9),
        time_ms: r.get::<_, i64>(10).max(0) as u64,
        moves: r.get(11),
        redo: r.get(12),
        result: r.get(13),
        ending: r.get(14),
        black_token: r.get(15),
        white_token: r.get(16),
        owner: r.get(17),
        clock: r.get(18),
        opening: r.get(19),
        choices: r.get(20),
        match_id: r.get(21),
        game_no: count(22, "game_no")?,
        hints: count(23, "hints")?,
        names: r.get(24),
        version: r.get(25),
        offers: r.get(26),
        paused: small(27, "paused")?,
        delay_ms: r.get::<_, i64>(28).max(0) as u64,
        computer_turn: r.get::<_, i32>(29) != 0,
        search_until: r.get(30),
        next_id: r.get(31),
    })
}

/// [`Value`]s as statement parameters.
fn bind(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &tokio_postgres::types::Type,
        out: &mut tokio_postgres::types::private::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        use tokio_postgres::types::{IsNull, Type};
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) if *ty == Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
            Value::Int(i) if *ty == Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
            Value::Int(i) => i.to_sql(ty, out),
            Value::Real(r) => r.to_sql(ty, out),
            Value::Text(t) => t.to_sql(ty, out),
        }
    }

    fn accepts(ty: &tokio_postgres::types::Type) -> bool {
        <i64 as ToSql>::accepts(ty)
            || <i32 as ToSql>::accepts(ty)
            || <i16 as ToSql>::accepts(ty)
            || <f64 as ToSql>::accepts(ty)
            || <String as ToSql>::accepts(ty)
    }

    tokio_postgres::types::to_sql_checked!();
}

/// A row's columns as [`Value`]s.
fn read_values(row: &Row) -> Result<Vec<Value>, StoreError> {
    use tokio_postgres::types::Type;
    let read = |i: usize| -> Result<Value, tokio_postgres::Error> {
        let ty = row.columns()[i].type_();
        Ok(if *ty == Type::INT8 {
            row.try_get::<_, Option<i64>>(i)?
                .map_or(Value::Null, Value::Int)
        } else if *ty == Type::INT4 {
            row.try_get::<_, Option<i32>>(i)?
                .map_or(Value::Null, |v| Value::Int(v.into()))
        } else if *ty == Type::INT2 {
            row.try_get::<_, Option<i16>>(i)?
                .map_or(Value::Null, |v| Value::Int(v.into()))
        } else if *ty == Type::BOOL {
            row.try_get::<_, Option<bool>>(i)?
                .map_or(Value::Null, |v| Value::Int(v.into()))
        } else if *ty == Type::FLOAT8 {
            row.try_get::<_, Option<f64>>(i)?
                .map_or(Value::Null, Value::Real)
        } else {
            row.try_get::<_, Option<String>>(i)?
                .map_or(Value::Null, Value::Text)
        })
    };
    (0..row.len())
        .map(|i| read(i).map_err(|e| StoreError::Postgres(with_causes(&e))))
        .collect()
}
