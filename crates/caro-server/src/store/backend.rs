//! The interface both backends implement: [`super::Store`] holds one
//! and calls it, so what the store does is written once in `mod.rs` and
//! each backend only says how its database does it. The calls are async:
//! PostgreSQL's run on the caller's runtime, SQLite's (whose library
//! blocks) on the runtime's blocking threads.

use super::{GameRow, MatchRow, StoreError};

/// A value bound to, or read from, a statement of the tables written once
/// for both dialects ([`Backend::execute`], [`Backend::query`]): the
/// accounts, sessions and what grows on them. Integer columns of those
/// tables are `BIGINT`, real ones `DOUBLE PRECISION`.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A real number.
    Real(f64),
    /// Text.
    Text(String),
    /// SQL's NULL.
    Null,
}

impl Value {
    /// The value as an integer (a real rounded toward zero; 0 for text
    /// or NULL).
    pub fn int(&self) -> i64 {
        match self {
            Value::Int(i) => *i,
            Value::Real(r) => *r as i64,
            _ => 0,
        }
    }

    /// The value as a real number (0 for text or NULL).
    pub fn real(&self) -> f64 {
        match self {
            Value::Real(r) => *r,
            Value::Int(i) => *i as f64,
            _ => 0.0,
        }
    }

    /// The value as text (empty for a number or NULL).
    pub fn text(&self) -> String {
        match self {
            Value::Text(t) => t.clone(),
            _ => String::new(),
        }
    }
}

/// One statement of a [`Backend::transaction`].
#[derive(Clone, Debug)]
pub(crate) struct Statement {
    /// The SQL, in PostgreSQL's dialect (`$1` …).
    pub sql: std::borrow::Cow<'static, str>,
    /// Its parameters.
    pub params: Vec<Value>,
    /// When the statement changes no row, the transaction is rolled back
    /// and the later statements are not run.
    pub must_change: bool,
}

impl Statement {
    /// A statement whose transaction goes on whether or not it changes a
    /// row.
    pub fn new(sql: impl Into<std::borrow::Cow<'static, str>>, params: Vec<Value>) -> Statement {
        Statement {
            sql: sql.into(),
            params,
            must_change: false,
        }
    }

    /// A statement that must change a row, or its transaction is rolled
    /// back.
    pub fn must_change(
        sql: impl Into<std::borrow::Cow<'static, str>>,
        params: Vec<Value>,
    ) -> Statement {
        Statement {
            must_change: true,
            ..Statement::new(sql, params)
        }
    }
}

/// A database the games are stored in. See [`super::Store`]'s methods for
/// each call's contract; the contract tests (`tests.rs`) run on both.
#[async_trait::async_trait]
pub(super) trait Backend: Send + Sync {
    /// Whether several instances may share the database.
    fn is_shared(&self) -> bool;

    /// The database, password hidden.
    fn describe(&self) -> String;

    /// A match by id.
    async fn get_match(&self, id: i64) -> Result<Option<MatchRow>, StoreError>;

    /// A match's games, in order.
    async fn match_games(&self, match_id: i64) -> Result<Vec<GameRow>, StoreError>;

    /// Writes a game over the version it was read at: `false` when another writer changed it first.
    async fn update(&self, row: &GameRow) -> Result<bool, StoreError>;

    /// A game by id.
    async fn get(&self, id: i64) -> Result<Option<GameRow>, StoreError>;

    /// The newest games, without those abandoned unplayed before `abandoned_before`.
    async fn list(&self, limit: usize, abandoned_before: i64) -> Result<Vec<GameRow>, StoreError>;

    /// Tells the other instances (nothing to tell with one instance).
    async fn notify(&self, _payload: &str) -> Result<(), StoreError>;

    /// Runs one statement (as [`Backend::execute`]) and tells the other
    /// instances `payload` in the same statement, so the notification goes
    /// out when (and only if) the change is committed; with one instance,
    /// only the statement.
    async fn execute_and_notify(
        &self,
        sql: &str,
        params: &[Value],
        payload: &str,
    ) -> Result<(), StoreError>;

    /// Removes the instances not heard from since `dead_before_ms` with their sockets: the games they touched.
    async fn sweep_instances(&self, dead_before_ms: i64) -> Result<Vec<i64>, StoreError>;

    /// How many games, matches and reviews are stored.
    async fn counts(&self) -> Result<(usize, usize, usize), StoreError>;

    /// Every game, by id.
    async fn all_games(&self) -> Result<Vec<GameRow>, StoreError>;

    /// Every match, by id.
    async fn all_matches(&self) -> Result<Vec<MatchRow>, StoreError>;

    /// Runs one statement (PostgreSQL's dialect, `$N` parameters): the
    /// number of rows it changed.
    async fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError>;

    /// Runs one query (PostgreSQL's dialect): its rows, each column as a
    /// [`Value`].
    async fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, StoreError>;

    /// Runs statements in one transaction: `false` (nothing kept) when a
    /// statement marked `must_change` changed no row.
    async fn transaction(&self, statements: &[Statement]) -> Result<bool, StoreError>;

    /// Copies rows into an empty database, ids kept: runs the statements
    /// in one transaction, after checking (with other writers kept out)
    /// that no game, match or review is stored, and makes new ids continue
    /// after the largest copied.
    async fn import(&self, statements: Vec<Statement>) -> Result<(), StoreError>;

    /// After rows were copied with their ids: new ids of these tables
    /// continue after the largest copied.
    async fn continue_ids(&self, tables: &[&str]) -> Result<(), StoreError>;
}
