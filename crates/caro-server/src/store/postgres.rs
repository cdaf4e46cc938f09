//! The PostgreSQL backend: a pool of connections driven by the runtime
//! the store is opened on (the server's own; the command line's and the
//! tests'), its calls plain async code on that runtime. A thread outside
//! it (an engine's) waits for a call with `Handle::block_on`.

use std::borrow::Borrow;
use std::time::Duration;

use deadpool_postgres::{
    Manager, ManagerConfig, Object, Pool, PoolError, RecyclingMethod, Runtime as PoolRuntime,
};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Config, GenericClient, Row};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::backend::{Backend, Statement, Value};
use super::sql;
use super::{hide_password, not_empty, GameRow, MatchRow, StoreError};

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

/// Most game writes committed together by the [`group_writer`].
const GROUP_MAX: usize = 128;

/// A game's change and its notification, in one statement: the
/// notification goes out when (and only if) the change is committed.
const UPDATE_AND_NOTIFY: &str = "WITH u AS (
        UPDATE games SET updated = $2, moves = $3, redo = $4, result = $5, ending = $6, clock = $7, choices = $8, hints = $9,
        offers = $11, paused = $12, delay_ms = $13, computer_turn = $14, search_until = $15, next_id = $16, version = version + 1
        WHERE id = $1 AND version = $10 RETURNING id, version)
     SELECT pg_notify('caro_games', 'g ' || id || ' ' || version || $17) FROM u";

/// The games database on a PostgreSQL server.
pub(super) struct PgStore {
    describe: String,
    pool: Pool,
    /// Changes that notify, for the [`group_writer`].
    writes: tokio::sync::mpsc::UnboundedSender<Write>,
}

/// A change that notifies the other instances, waiting for this
/// instance's next group commit.
struct Write {
    change: Change,
    /// Whether it was stored (`false`: the game was at another version),
    /// or why not.
    done: tokio::sync::oneshot::Sender<Result<bool, StoreError>>,
}

/// What a [`Write`] changes.
enum Change {
    /// A game, over the version it was read at ([`UPDATE_AND_NOTIFY`]).
    Game(Box<GameWrite>),
    /// A statement that notifies in itself (`... SELECT pg_notify(...)`).
    Statement(String, Vec<Value>),
}

/// A game's change with its fields in PostgreSQL's column types and its
/// notification's tail: the changed columns ride along, so the other
/// instances need not read the game again.
struct GameWrite {
    row: GameRow,
    converted: Converted,
    tail: String,
}

impl Change {
    /// A game's change.
    fn game(row: &GameRow) -> Change {
        Change::Game(Box::new(GameWrite {
            row: row.clone(),
            converted: Converted::of(row),
            tail: super::ChangedColumns::notification_tail(row),
        }))
    }

    /// Games first, by id (a game's own changes in the order made), then
    /// the rest as they came: two instances' groups take the games' row
    /// locks in one order, so they never wait on each other in a circle.
    fn order(&self) -> (u8, i64) {
        match self {
            Change::Game(game) => (0, game.row.id),
            Change::Statement(..) => (1, 0),
        }
    }

    /// The statement's SQL.
    fn sql(&self) -> &str {
        match self {
            Change::Game(_) => UPDATE_AND_NOTIFY,
            Change::Statement(sql, _) => sql,
        }
    }

    /// The statement's parameters.
    fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        match self {
            Change::Game(game) => {
                let (row, v) = (&game.row, &game.converted);
                vec![
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
                    &game.tail,
                ]
            }
            Change::Statement(_, params) => bind(params),
        }
    }

    /// Whether the change was stored, from the rows its statement
    /// returned: a game's only over the version it was made on.
    fn stored(&self, rows: &[Row]) -> bool {
        match self {
            Change::Game(_) => rows.len() == 1,
            Change::Statement(..) => true,
        }
    }
}

/// Commits this instance's changes that notify, all that wait when the
/// previous group is committed in one transaction.
///
/// PostgreSQL lets one notifying transaction commit at a time (a lock on
/// the notification queue, held through the commit's flush). With every
/// move its own transaction, the instances' writes queued there by the
/// dozen (at 2,200 moves a second on two cores, a move's answer took
/// 18–22 ms at the median and 170–220 ms at the 99th percentile); one
/// commit for all the changes that came together keeps that queue at one
/// transaction an instance (4 and 122–130 ms), and each change and its
/// notification still commit together.
async fn group_writer(
    pool: Pool,
    describe: String,
    mut writes: tokio::sync::mpsc::UnboundedReceiver<Write>,
) {
    let mut group = Vec::with_capacity(GROUP_MAX);
    while writes.recv_many(&mut group, GROUP_MAX).await > 0 {
        group.sort_by_key(|w| w.change.order());
        let changes: Vec<&Change> = group.iter().map(|w| &w.change).collect();
        match commit_group(&pool, &describe, &changes).await {
            Ok(stored) => {
                for (write, stored) in group.drain(..).zip(stored) {
                    let _ = write.done.send(Ok(stored));
                }
            }
            // No connection to the database: every change hears so (each
            // tried again alone would wait for a connection in turn).
            Err(StoreError::Unreachable(why)) => {
                for write in group.drain(..) {
                    let _ = write.done.send(Err(StoreError::Unreachable(why.clone())));
                }
            }
            // One change that fails takes its group down: each is tried
            // again alone, so only its own caller hears of it.
            Err(_) if group.len() > 1 => {
                for write in group.drain(..) {
                    let stored = commit_group(&pool, &describe, &[&write.change]).await;
                    let _ = write
                        .done
                        .send(stored.map(|s| s.first().copied().unwrap_or(false)));
                }
            }
            Err(e) => {
                if let Some(write) = group.pop() {
                    let _ = write.done.send(Err(e));
                }
            }
        }
    }
}

/// Runs `changes` in one transaction (their statements sent together):
/// which of them were stored (a game's change only over the version it
/// was made on; a statement always).
async fn commit_group(
    pool: &Pool,
    describe: &str,
    changes: &[&Change],
) -> Result<Vec<bool>, StoreError> {
    let err = |e| pg_error(describe, e);
    let mut c = pool.get().await.map_err(|e| pool_error(describe, e))?;
    let mut statements = Vec::with_capacity(changes.len());
    for change in changes {
        statements.push(c.prepare_cached(change.sql()).await.map_err(err)?);
    }
    let tx = c.transaction().await.map_err(err)?;
    let params: Vec<_> = changes.iter().map(|change| change.params()).collect();
    let runs = statements
        .iter()
        .zip(&params)
        .map(|(stmt, params)| tx.query(stmt, params));
    let answered = futures_util::future::try_join_all(runs)
        .await
        .map_err(err)?;
    tx.commit().await.map_err(err)?;
    Ok(changes
        .iter()
        .zip(&answered)
        .map(|(change, rows)| change.stored(rows))
        .collect())
}

/// A pool's failure as the store reports it.
fn pool_error(describe: &str, e: PoolError) -> StoreError {
    match e {
        PoolError::Backend(e) => pg_error(describe, e),
        PoolError::Timeout(_) => StoreError::Unreachable(format!(
            "{describe}: no connection free or made within {}s",
            POOL_WAIT.as_secs()
        )),
        e => StoreError::Postgres(format!("{describe}: {e}")),
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
    /// Connects, applies the pending migrations and makes the pool, whose
    /// connections and group writer run on the current runtime.
    pub(super) async fn open(url: &str, pool_size: usize) -> Result<PgStore, StoreError> {
        let describe = hide_password(url);
        let super::tls::Connection { mut config, tls } = super::tls::connection(url)
            .map_err(|e| StoreError::Postgres(format!("{describe}: {e}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("caro");
        }
        migrate(&config, tls.clone(), &describe).await?;
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
        let (writes, to_write) = tokio::sync::mpsc::unbounded_channel();
        // Ends when the store is dropped (its sender with it).
        tokio::spawn(group_writer(pool.clone(), describe.clone(), to_write));
        Ok(PgStore {
            describe,
            pool,
            writes,
        })
    }

    /// Hands `change` to the [`group_writer`] and waits until its group is
    /// committed: whether it was stored.
    async fn write(&self, change: Change) -> Result<bool, StoreError> {
        let (done, stored) = tokio::sync::oneshot::channel();
        let closed = || StoreError::Thread("the store's writer has stopped".into());
        self.writes
            .send(Write { change, done })
            .map_err(|_| closed())?;
        stored.await.map_err(|_| closed())?
    }

    fn err(&self, e: tokio_postgres::Error) -> StoreError {
        pg_error(&self.describe, e)
    }

    /// A pooled connection.
    async fn client(&self) -> Result<Object, StoreError> {
        self.pool
            .get()
            .await
            .map_err(|e| pool_error(&self.describe, e))
    }

    /// Runs statements in `tx`: `false` as soon as one marked
    /// `must_change` changed no row (the later ones are not run).
    async fn execute_all(
        &self,
        tx: &deadpool_postgres::Transaction<'_>,
        statements: impl IntoIterator<Item = impl Borrow<Statement>>,
    ) -> Result<bool, StoreError> {
        for s in statements {
            let s = s.borrow();
            let stmt = tx.prepare_cached(&s.sql).await.map_err(|e| self.err(e))?;
            let n = tx
                .execute(&stmt, &bind(&s.params))
                .await
                .map_err(|e| self.err(e))?;
            if s.must_change && n == 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The rows a query selects, on a pooled connection.
    async fn rows(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        let c = self.client().await?;
        let stmt = c.prepare_cached(sql).await.map_err(|e| self.err(e))?;
        c.query(&stmt, params).await.map_err(|e| self.err(e))
    }

    /// The games a query selects (its columns: those [`sql::GET_GAME`] selects).
    async fn games(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<GameRow>, StoreError> {
        self.rows(sql, params).await?.iter().map(read_row).collect()
    }

    /// The ids a query selects.
    async fn ids(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<i64>, StoreError> {
        Ok(self
            .rows(sql, params)
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }
}

#[async_trait::async_trait]
impl Backend for PgStore {
    fn is_shared(&self) -> bool {
        true
    }

    fn describe(&self) -> String {
        self.describe.clone()
    }

    async fn get_match(&self, id: i64) -> Result<Option<MatchRow>, StoreError> {
        let c = self.client().await?;
        let row = c
            .query_opt(sql::GET_MATCH, &[&id])
            .await
            .map_err(|e| self.err(e))?;
        row.as_ref().map(read_match).transpose()
    }

    async fn match_games(&self, match_id: i64) -> Result<Vec<GameRow>, StoreError> {
        self.games(sql::MATCH_GAMES, &[&match_id]).await
    }

    async fn update(&self, row: &GameRow) -> Result<bool, StoreError> {
        self.write(Change::game(row)).await
    }

    async fn get(&self, id: i64) -> Result<Option<GameRow>, StoreError> {
        let c = self.client().await?;
        let stmt = c
            .prepare_cached(sql::GET_GAME)
            .await
            .map_err(|e| self.err(e))?;
        let row = c.query_opt(&stmt, &[&id]).await.map_err(|e| self.err(e))?;
        row.as_ref().map(read_row).transpose()
    }

    async fn list(&self, limit: usize, abandoned_before: i64) -> Result<Vec<GameRow>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.games(sql::LIST_GAMES, &[&limit, &abandoned_before])
            .await
    }

    async fn notify(&self, payload: &str) -> Result<(), StoreError> {
        let params = vec![Value::Text(CHANNEL.into()), Value::Text(payload.into())];
        self.write(Change::Statement("SELECT pg_notify($1, $2)".into(), params))
            .await?;
        Ok(())
    }

    async fn execute_and_notify(
        &self,
        sql: &str,
        params: &[Value],
        payload: &str,
    ) -> Result<(), StoreError> {
        // The change and its notification in one statement.
        let sql = format!(
            "WITH w AS ({sql}) SELECT pg_notify('{CHANNEL}', ${})",
            params.len() + 1
        );
        let mut params = params.to_vec();
        params.push(Value::Text(payload.to_string()));
        self.write(Change::Statement(sql, params)).await?;
        Ok(())
    }

    async fn sweep_instances(&self, dead_before_ms: i64) -> Result<Vec<i64>, StoreError> {
        self.ids(
            "WITH dead AS (DELETE FROM instances WHERE seen < $1 RETURNING id),
                  gone AS (DELETE FROM presence WHERE instance IN (SELECT id FROM dead) RETURNING game_id),
                  touched AS (SELECT DISTINCT game_id FROM gone)
             SELECT game_id, pg_notify('caro_games', 'p ' || game_id) FROM touched ORDER BY game_id",
            &[&dead_before_ms],
        )
        .await
    }

    async fn counts(&self) -> Result<(usize, usize, usize), StoreError> {
        let c = self.client().await?;
        counts(&**c).await.map_err(|e| self.err(e))
    }

    async fn all_games(&self) -> Result<Vec<GameRow>, StoreError> {
        self.games(sql::ALL_GAMES, &[]).await
    }

    async fn all_matches(&self) -> Result<Vec<MatchRow>, StoreError> {
        self.rows(sql::ALL_MATCHES, &[])
            .await?
            .iter()
            .map(read_match)
            .collect()
    }

    async fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError> {
        let c = self.client().await?;
        let stmt = c.prepare_cached(sql).await.map_err(|e| self.err(e))?;
        c.execute(&stmt, &bind(params))
            .await
            .map_err(|e| self.err(e))
    }

    async fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, StoreError> {
        self.rows(sql, &bind(params))
            .await?
            .iter()
            .map(read_values)
            .collect()
    }

    async fn transaction(&self, statements: &[Statement]) -> Result<bool, StoreError> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(|e| self.err(e))?;
        if !self.execute_all(&tx, statements).await? {
            return Ok(false);
        }
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(true)
    }

    async fn import(&self, statements: Vec<Statement>) -> Result<(), StoreError> {
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
        self.execute_all(&tx, statements).await?;
        continue_ids(&*tx, &["games", "matches"])
            .await
            .map_err(|e| self.err(e))?;
        tx.commit().await.map_err(|e| self.err(e))?;
        Ok(())
    }

    async fn continue_ids(&self, tables: &[&str]) -> Result<(), StoreError> {
        let c = self.client().await?;
        continue_ids(&**c, tables).await.map_err(|e| self.err(e))
    }
}

/// After rows were copied with their ids: new ids of `tables` continue
/// after the largest copied.
async fn continue_ids<C: GenericClient>(
    c: &C,
    tables: &[&str],
) -> Result<(), tokio_postgres::Error> {
    for table in tables {
        c.batch_execute(&format!(
            "SELECT setval(pg_get_serial_sequence('{table}', 'id'),
                           GREATEST((SELECT MAX(id) FROM {table}), 1),
                           (SELECT MAX(id) FROM {table}) IS NOT NULL)"
        ))
        .await?;
    }
    Ok(())
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

/// The fields of a game's update in the column types PostgreSQL has for
/// them.
struct Converted {
    hints: i64,
    paused: i32,
    delay_ms: i64,
    computer_turn: i32,
}

impl Converted {
    fn of(row: &GameRow) -> Converted {
        Converted {
            hints: i64::from(row.hints),
            paused: i32::from(row.paused),
            delay_ms: i64::try_from(row.delay_ms).unwrap_or(i64::MAX),
            computer_turn: i32::from(row.computer_turn),
        }
    }
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
    let int = |v: Option<i64>| v.map_or(Value::Null, Value::Int);
    let real = |v: Option<f64>| v.map_or(Value::Null, Value::Real);
    let text = |v: Option<String>| v.map_or(Value::Null, Value::Text);
    let read = |i: usize| -> Result<Value, tokio_postgres::Error> {
        let ty = row.columns()[i].type_();
        Ok(match ty {
            t if *t == Type::INT8 => int(row.try_get(i)?),
            t if *t == Type::INT4 => int(row.try_get::<_, Option<i32>>(i)?.map(i64::from)),
            t if *t == Type::INT2 => int(row.try_get::<_, Option<i16>>(i)?.map(i64::from)),
            t if *t == Type::BOOL => int(row.try_get::<_, Option<bool>>(i)?.map(i64::from)),
            t if *t == Type::FLOAT8 => real(row.try_get(i)?),
            _ => text(row.try_get(i)?),
        })
    };
    (0..row.len())
        .map(|i| read(i).map_err(|e| StoreError::Postgres(with_causes(&e))))
        .collect()
}
