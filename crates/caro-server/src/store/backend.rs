//! The interface both backends implement: [`super::Store`] holds one
//! and calls it, so what the store does is written once in `mod.rs` and
//! each backend only says how its database does it. The calls block: the
//! server makes them on blocking threads and engine threads.

use super::{AnalysisRow, GameRow, MatchRow, StoreError};

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
pub(crate) struct Statement {
    /// The SQL, in PostgreSQL's dialect (`$1` …).
    pub sql: std::borrow::Cow<'static, str>,
    /// Its parameters.
    pub params: Vec<Value>,
    /// When the statement changes no row, the transaction is rolled back
    /// and the later statements are not run.
    pub must_change: bool,
}

/// A database the games are stored in. See [`super::Store`]'s methods for
/// each call's contract; the contract tests (`tests.rs`) run on both.
pub(super) trait Backend: Send + Sync {
    /// Whether several instances may share the database.
    fn is_shared(&self) -> bool;

    /// The database, password hidden.
    fn describe(&self) -> String;

    /// The newest migration applied.
    fn schema_version(&self) -> Result<i64, StoreError>;

    /// Stores a new game: its id.
    fn insert(&self, row: &GameRow) -> Result<i64, StoreError>;

    /// Stores a new match: its id.
    fn insert_match(&self, m: &MatchRow) -> Result<i64, StoreError>;

    /// A match by id.
    fn get_match(&self, id: i64) -> Result<Option<MatchRow>, StoreError>;

    /// A match's games, in order.
    fn match_games(&self, match_id: i64) -> Result<Vec<GameRow>, StoreError>;

    /// Writes a game over the version it was read at: `false` when another writer changed it first.
    fn update(&self, row: &GameRow) -> Result<bool, StoreError>;

    /// Claims a game's computer search until `until_ms`, if nobody holds it at `now_ms`.
    fn claim_search(
        &self,
        id: i64,
        version: i64,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<bool, StoreError>;

    /// Extends the claim on a game's search, if the game is still at `version`.
    fn hold_search(&self, id: i64, version: i64, until_ms: i64) -> Result<bool, StoreError>;

    /// How many other instances were heard from after `alive_after_ms`.
    fn live_instances(&self, except: &str, alive_after_ms: i64) -> Result<usize, StoreError>;

    /// Games whose computer is to act and whose search nobody holds.
    fn searches_due(&self, now_ms: i64, limit: usize) -> Result<Vec<i64>, StoreError>;

    /// A game by id.
    fn get(&self, id: i64) -> Result<Option<GameRow>, StoreError>;

    /// How many unfinished online games one client has.
    fn open_online_games(&self, owner: &str) -> Result<usize, StoreError>;

    /// The online games whose clock runs.
    fn running_clocks(&self) -> Result<Vec<i64>, StoreError>;

    /// The newest games, without those abandoned unplayed before `abandoned_before`.
    fn list(&self, limit: usize, abandoned_before: i64) -> Result<Vec<GameRow>, StoreError>;

    /// A game's stored review by one engine: the position it is of, and its data.
    fn analysis(&self, game_id: i64, engine: &str) -> Result<Option<(String, String)>, StoreError>;

    /// Stores a game's review.
    fn put_analysis(
        &self,
        game_id: i64,
        position: &str,
        engine: &str,
        data: &str,
        now: i64,
    ) -> Result<(), StoreError>;

    /// Tells the other instances (nothing to tell with one instance).
    fn notify(&self, _payload: &str) -> Result<(), StoreError>;

    /// How many sockets a seat has open on an instance.
    fn set_presence(
        &self,
        instance: &str,
        game_id: i64,
        seat: u8,
        sockets: u32,
    ) -> Result<(), StoreError>;

    /// The sockets each seat has open on the other live instances.
    fn presence(
        &self,
        game_id: i64,
        except_instance: &str,
        alive_after_ms: i64,
    ) -> Result<[u32; 2], StoreError>;

    /// An instance's heartbeat.
    fn heartbeat(&self, instance: &str, now_ms: i64) -> Result<(), StoreError>;

    /// Removes the instances not heard from since `dead_before_ms` with their sockets: the games they touched.
    fn sweep_instances(&self, dead_before_ms: i64) -> Result<Vec<i64>, StoreError>;

    /// How many games, matches and reviews are stored.
    fn counts(&self) -> Result<(usize, usize, usize), StoreError>;

    /// Every game, by id.
    fn all_games(&self) -> Result<Vec<GameRow>, StoreError>;

    /// Every match, by id.
    fn all_matches(&self) -> Result<Vec<MatchRow>, StoreError>;

    /// Every review.
    fn all_analyses(&self) -> Result<Vec<AnalysisRow>, StoreError>;

    /// Runs one statement (PostgreSQL's dialect, `$N` parameters): the
    /// number of rows it changed.
    fn execute(&self, sql: &str, params: &[Value]) -> Result<u64, StoreError>;

    /// Runs one query (PostgreSQL's dialect): its rows, each column as a
    /// [`Value`].
    fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, StoreError>;

    /// Runs statements in one transaction: `false` (nothing kept) when a
    /// statement marked `must_change` changed no row.
    fn transaction(&self, statements: &[Statement]) -> Result<bool, StoreError>;

    /// After rows were copied with their ids: new ids of these tables
    /// continue after the largest copied.
    fn continue_ids(&self, tables: &[&str]) -> Result<(), StoreError>;

    /// Copies rows into an empty database, ids kept.
    fn import(
        &self,
        games: &[GameRow],
        matches: &[MatchRow],
        analyses: &[AnalysisRow],
    ) -> Result<(), StoreError>;
}
