//! Saved games: every move is written when it is played, so a killed
//! server loses nothing. Two backends behind one async [`Store`]:
//! an embedded SQLite file (the default, one server) and PostgreSQL
//! (several `caro serve` instances on one database). Each implements one
//! interface (`backend.rs`), and the SQL they share is written once
//! (`sql.rs`). Both apply the same versioned migrations
//! (`migrations/sqlite`, `migrations/postgres`) when they open.

mod accounts;
mod backend;
mod copy;
mod lobby;
mod postgres;
pub mod scratch;
mod sql;
mod sqlite;
#[cfg(any(test, feature = "test-support"))]
pub mod testdb;
pub(crate) mod tls;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

pub use self::accounts::AccountRow;
use self::backend::{Backend, Statement, Value};
pub use self::lobby::{HistoryPoint, LobbyGameRow, RatedSeat, SeekRow, Standing};
use self::postgres::PgStore;
use self::sqlite::SqliteStore;

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused or failed.
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL refused or failed (a unique violation among them).
    #[error("database: {0}")]
    Postgres(String),
    /// The thread that did the database's work failed.
    #[error("database: {0}")]
    Thread(String),
    /// Another instance kept changing the game while this one tried to
    /// store a change to it.
    #[error("game {0} was changed by another server at the same time; try again")]
    Conflict(i64),
    /// The database opened read-only: its file (or folder) cannot be
    /// written.
    #[error("the database {0} cannot be written (it opened read-only); caro needs to write there to store the games")]
    ReadOnly(String),
    /// A stored row that does not make a game (edited by hand, or from a
    /// newer version).
    #[error("stored game {id} is damaged: {reason}")]
    Damaged {
        /// The game's id.
        id: i64,
        /// What is wrong.
        reason: String,
    },
    /// The schema's migrations could not be applied.
    #[error("database migrations failed: {0}")]
    Migration(String),
    /// The database server does not answer (`URL: reason`, no password).
    #[error("database not reachable: {0}")]
    Unreachable(String),
    /// An import target that already holds rows.
    #[error("{0}")]
    NotEmpty(String),
}

/// Where the games are stored: parsed from `sqlite:PATH`,
/// `sqlite://PATH`, `postgres://USER[:PASS]@HOST[:PORT]/DB[?...]` or
/// `postgresql://...`.
#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    /// An SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL URL, as given (password included; [`fmt::Display`]
    /// hides it).
    Postgres(String),
}

/// A database URL that cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DatabaseUrlError {
    /// Neither SQLite nor PostgreSQL.
    #[error("unknown database URL \"{0}\": use sqlite:PATH or postgres://USER@HOST/DB")]
    Unknown(String),
    /// `sqlite:` with no path.
    #[error("database URL \"{0}\" has no file path: use sqlite:PATH")]
    NoPath(String),
    /// A PostgreSQL URL the client cannot parse.
    #[error("invalid PostgreSQL URL \"{url}\": {reason}")]
    Postgres {
        /// The URL, password hidden.
        url: String,
        /// What is wrong.
        reason: String,
    },
}

impl FromStr for Database {
    type Err = DatabaseUrlError;

    fn from_str(s: &str) -> Result<Database, DatabaseUrlError> {
        let s = s.trim();
        if let Some(rest) = s.strip_prefix("sqlite:") {
            let path = rest.strip_prefix("//").unwrap_or(rest);
            if path.is_empty() {
                return Err(DatabaseUrlError::NoPath(s.to_string()));
            }
            return Ok(Database::Sqlite(PathBuf::from(path)));
        }
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            return match tokio_postgres::Config::from_str(&tls::split(s).0) {
                Ok(_) => Ok(Database::Postgres(s.to_string())),
                Err(e) => Err(DatabaseUrlError::Postgres {
                    url: hide_password(s),
                    reason: e.to_string(),
                }),
            };
        }
        Err(DatabaseUrlError::Unknown(hide_password(s)))
    }
}

impl fmt::Display for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Database::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
            Database::Postgres(url) => f.write_str(&hide_password(url)),
        }
    }
}

impl fmt::Debug for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Database({self})")
    }
}

impl Database {
    /// The same PostgreSQL server and settings with another database name
    /// (`None` for SQLite).
    pub fn with_database_name(&self, name: &str) -> Option<Database> {
        let Database::Postgres(url) = self else {
            return None;
        };
        let (base, query) = match url.split_once('?') {
            Some((b, q)) => (b, Some(q)),
            None => (url.as_str(), None),
        };
        let after_scheme = base.find("://").map_or(0, |i| i + 3);
        let host_end = base[after_scheme..]
            .find('/')
            .map_or(base.len(), |i| after_scheme + i);
        let mut out = format!("{}/{name}", &base[..host_end]);
        if let Some(q) = query {
            out.push('?');
            out.push_str(q);
        }
        Some(Database::Postgres(out))
    }
}

/// `url` without its password: `user:secret@host` becomes `user@host`
/// and a `password=` parameter is left out.
fn hide_password(url: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let mut out = match base.find("://") {
        Some(i) => {
            let (scheme, rest) = base.split_at(i + 3);
            let authority_end = rest.find('/').unwrap_or(rest.len());
            match rest[..authority_end].rfind('@') {
                Some(at) => {
                    let user = rest[..at].split(':').next().unwrap_or("");
                    format!("{scheme}{user}{}", &rest[at..])
                }
                None => base.to_string(),
            }
        }
        None => base.to_string(),
    };
    if let Some(q) = query {
        let kept: Vec<&str> = q
            .split('&')
            .filter(|p| !p.to_ascii_lowercase().starts_with("password="))
            .collect();
        if !kept.is_empty() {
            out.push('?');
            out.push_str(&kept.join("&"));
        }
    }
    out
}

/// One game as stored: settings, moves and result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRow {
    /// The game's id (0 before it is first stored).
    pub id: i64,
    /// Unix seconds when the game was created.
    pub created: i64,
    /// Unix seconds of the last change.
    pub updated: i64,
    /// The first seat: `human` or a computer player's name. It plays black
    /// in a free opening; under a swap opening it opens and `choices`
    /// decide its colour.
    pub black: String,
    /// The second seat.
    pub white: String,
    /// Columns.
    pub width: u8,
    /// Rows.
    pub height: u8,
    /// Stones in a row to win.
    pub k: u8,
    /// The rule's name.
    pub rule: String,
    /// `black` or `white`: the colour of the first move.
    pub first: String,
    /// Time per computer move, in milliseconds.
    pub time_ms: u64,
    /// The moves, Gomocup style `x,y` separated by spaces.
    pub moves: String,
    /// Moves taken back and not replaced, next first, same format.
    pub redo: String,
    /// `black`, `white`, `draw`, or empty while the game goes on.
    pub result: String,
    /// How it ended: `five`, `resign`, `draw`, `foul`, `failed: …`, or
    /// empty.
    pub ending: String,
    /// Online games: the first seat's secret token (hex), empty otherwise.
    pub black_token: String,
    /// Online games: the second seat's secret token.
    pub white_token: String,
    /// Online games: the address of the client that created it (for the
    /// cap on open games per client).
    pub owner: String,
    /// Online games with a clock: `initial,increment,first,second` in
    /// milliseconds (each seat's time left); empty without a clock.
    pub clock: String,
    /// The opening: `free`, `swap1` or `swap2`. Under a swap opening
    /// `black` is the first seat (who opens) and `white` the second, until
    /// `choices` decide the colours.
    pub opening: String,
    /// The swap decisions made, in order, separated by spaces
    /// (`place-two take-white`).
    pub choices: String,
    /// The match the game belongs to (0: none).
    pub match_id: i64,
    /// The game's number in its match, from 1 (0: none).
    pub game_no: u32,
    /// Hints asked for in this game.
    pub hints: u32,
    /// The players' names when they are not seats (an imported game's),
    /// black's and white's separated by a line break; empty otherwise.
    pub names: String,
    /// Bumped by every stored change: a write names the version it
    /// changes ([`Store::update`]), so two instances never both change
    /// the same version.
    pub version: i64,
    /// Online: the pending offers (takeback, draw, rematch), as
    /// `live::Online` writes them.
    pub offers: String,
    /// Computer vs computer: 0 running, 1 paused, 2 paused with one move
    /// asked for.
    pub paused: u8,
    /// Computer vs computer: pause between moves, in milliseconds.
    pub delay_ms: u64,
    /// Unfinished, and a computer is to move (and may: not paused).
    pub computer_turn: bool,
    /// Unix milliseconds until which an instance holds the computer's
    /// search ([`Store::claim_search`]).
    pub search_until: i64,
    /// The rematch, or the match's next game, once made (0: none).
    pub next_id: i64,
}

/// The columns a stored change may alter: a change's notification carries
/// them when they fit, so the other instances need not read the game.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChangedColumns {
    /// The time of the change (each field as in [`GameRow`]).
    pub updated: i64,
    /// The moves.
    pub moves: String,
    /// The moves taken back.
    pub redo: String,
    /// The result.
    pub result: String,
    /// How it ended.
    pub ending: String,
    /// The clock.
    pub clock: String,
    /// The swap decisions.
    pub choices: String,
    /// Hints asked for.
    pub hints: u32,
    /// Pending offers.
    pub offers: String,
    /// Paused or stepping.
    pub paused: u8,
    /// Pause between computer moves.
    pub delay_ms: u64,
    /// A computer to act.
    pub computer_turn: bool,
    /// The search's lease.
    pub search_until: i64,
    /// The next game.
    pub next_id: i64,
}

/// Largest notification PostgreSQL sends is 8000 bytes; a change whose
/// columns do not fit in this is announced without them.
pub const MAX_NOTIFIED_CHANGE: usize = 7_800;

impl ChangedColumns {
    /// The changed columns of `row`.
    #[must_use]
    pub fn of(row: &GameRow) -> ChangedColumns {
        ChangedColumns {
            updated: row.updated,
            moves: row.moves.clone(),
            redo: row.redo.clone(),
            result: row.result.clone(),
            ending: row.ending.clone(),
            clock: row.clock.clone(),
            choices: row.choices.clone(),
            hints: row.hints,
            offers: row.offers.clone(),
            paused: row.paused,
            delay_ms: row.delay_ms,
            computer_turn: row.computer_turn,
            search_until: row.search_until,
            next_id: row.next_id,
        }
    }

    /// `row` with these columns.
    pub fn apply_to(self, row: &mut GameRow) {
        row.updated = self.updated;
        row.moves = self.moves;
        row.redo = self.redo;
        row.result = self.result;
        row.ending = self.ending;
        row.clock = self.clock;
        row.choices = self.choices;
        row.hints = self.hints;
        row.offers = self.offers;
        row.paused = self.paused;
        row.delay_ms = self.delay_ms;
        row.computer_turn = self.computer_turn;
        row.search_until = self.search_until;
        row.next_id = self.next_id;
    }

    /// The tail a change's notification `g ID VERSION` ends with: a space
    /// and these columns as JSON, or nothing when they do not fit.
    #[must_use]
    pub fn notification_tail(row: &GameRow) -> String {
        match serde_json::to_string(&ChangedColumns::of(row)) {
            Ok(json) if json.len() <= MAX_NOTIFIED_CHANGE => format!(" {json}"),
            _ => String::new(),
        }
    }
}

/// A match as stored: first to `first_to` wins between players A and B
/// (`human` or a computer player's name). Its games name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchRow {
    /// The match's id (0 before it is first stored).
    pub id: i64,
    /// Wins needed to take the match.
    pub first_to: u32,
    /// Player A: opens (or plays black in) game 1.
    pub player_a: String,
    /// Player B.
    pub player_b: String,
    /// Unix seconds when the match was created.
    pub created: i64,
}

/// A stored review of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisRow {
    /// The game reviewed.
    pub game_id: i64,
    /// The position the review is of.
    pub position: String,
    /// The engine settings it was made with.
    pub engine: String,
    /// The review, as JSON.
    pub data: String,
    /// Unix seconds when it was stored.
    pub created: i64,
}

/// The games database. Its calls are async and need a tokio runtime:
/// PostgreSQL's run on it, SQLite's on its blocking threads. The store is
/// opened on the runtime it is used on (its PostgreSQL connections are
/// driven there); a thread outside the runtime (an engine's) calls it
/// with `Handle::block_on`.
pub struct Store {
    backend: Box<dyn Backend>,
}

/// Runs `work` (a command's use of a [`Store`], opened and dropped
/// within it) on a small runtime of its own, for a synchronous caller:
/// `caro db`, `caro user`. Blocks; call it outside any runtime.
///
/// # Errors
/// [`StoreError::Thread`] when the runtime cannot start.
pub fn block_on<T>(work: impl std::future::Future<Output = T>) -> Result<T, StoreError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StoreError::Thread(format!("cannot start a runtime: {e}")))?;
    Ok(runtime.block_on(work))
}

/// Unix seconds now.
fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The error of an import into a database that has rows.
fn not_empty(describe: &str, counts: (usize, usize, usize)) -> StoreError {
    StoreError::NotEmpty(format!(
        "the target database {describe} is not empty ({} games, {} matches, {} analyses): copy into an empty database",
        counts.0, counts.1, counts.2
    ))
}

/// A game's values in the order of the columns [`sql::INSERT_GAME`]
/// writes, its id first.
fn game_values(row: &GameRow) -> Vec<Value> {
    let text = |t: &str| Value::Text(t.to_string());
    let clamped = |n: u64| Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
    vec![
        Value::Int(row.id),
        Value::Int(row.created),
        Value::Int(row.updated),
        text(&row.black),
        text(&row.white),
        Value::Int(row.width.into()),
        Value::Int(row.height.into()),
        Value::Int(row.k.into()),
        text(&row.rule),
        text(&row.first),
        clamped(row.time_ms),
        text(&row.moves),
        text(&row.redo),
        text(&row.result),
        text(&row.ending),
        text(&row.black_token),
        text(&row.white_token),
        text(&row.owner),
        text(&row.clock),
        text(&row.opening),
        text(&row.choices),
        Value::Int(row.match_id),
        Value::Int(row.game_no.into()),
        Value::Int(row.hints.into()),
        text(&row.names),
        Value::Int(row.version),
        text(&row.offers),
        Value::Int(row.paused.into()),
        clamped(row.delay_ms),
        Value::Int(row.computer_turn.into()),
        Value::Int(row.search_until),
        Value::Int(row.next_id),
    ]
}

/// A row's columns, when it has the `N` a query selects; `what` names
/// the row in the error.
fn columns<'a, const N: usize>(row: &'a [Value], what: &str) -> Result<&'a [Value; N], StoreError> {
    row.try_into().map_err(|_| StoreError::Damaged {
        id: row.first().map_or(0, Value::int),
        reason: format!("a {what} row has {} columns, not {N}", row.len()),
    })
}

impl Store {
    /// The first column of a query's first row as an integer (0 when it
    /// selects nothing): a count, a new id.
    async fn first_int(&self, sql: &str, params: &[Value]) -> Result<i64, StoreError> {
        let rows = self.backend.query(sql, params).await?;
        Ok(rows.first().and_then(|r| r.first()).map_or(0, Value::int))
    }

    /// The first column of every row a query selects, as integers: ids.
    async fn ids(&self, sql: &str, params: &[Value]) -> Result<Vec<i64>, StoreError> {
        let rows = self.backend.query(sql, params).await?;
        Ok(rows
            .iter()
            .map(|r| r.first().map_or(0, Value::int))
            .collect())
    }

    /// Opens the database (creating an SQLite file if needed) and applies
    /// the pending migrations. `pool_size` is the number of PostgreSQL
    /// connections (SQLite uses one writer and one reader).
    ///
    /// # Errors
    /// [`StoreError::ReadOnly`] for an SQLite file that cannot be written,
    /// [`StoreError::Unreachable`] when PostgreSQL does not answer,
    /// [`StoreError::Migration`], or the database's own error.
    pub async fn open(db: &Database, pool_size: usize) -> Result<Store, StoreError> {
        let backend: Box<dyn Backend> = match db {
            Database::Sqlite(path) => Box::new(SqliteStore::open(path).await?),
            Database::Postgres(url) => Box::new(PgStore::open(url, pool_size).await?),
        };
        Ok(Store { backend })
    }

    /// Opens (creating if needed) an SQLite file: [`Store::open`] with
    /// [`Database::Sqlite`].
    ///
    /// # Errors
    /// As [`Store::open`].
    pub async fn open_sqlite(path: &Path) -> Result<Store, StoreError> {
        Store::open(&Database::Sqlite(path.to_path_buf()), 1).await
    }

    /// Whether several instances may share this database (PostgreSQL).
    pub fn is_shared(&self) -> bool {
        self.backend.is_shared()
    }

    /// `sqlite:/path` or `postgres://user@host/db` (no password).
    pub fn describe(&self) -> String {
        self.backend.describe()
    }

    /// The version of the last migration applied.
    ///
    /// # Errors
    /// The database's error.
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        self.first_int(sql::SCHEMA_VERSION, &[]).await
    }

    /// Stores a new game (at `row.version`) and returns its id.
    ///
    /// # Errors
    /// The database's error; a second game with the same match and game
    /// number is refused.
    pub async fn insert(&self, row: &GameRow) -> Result<i64, StoreError> {
        self.first_int(sql::NEW_GAME, &game_values(row)[1..]).await
    }

    /// Stores a new match and returns its id.
    ///
    /// # Errors
    /// The database's error.
    pub async fn insert_match(&self, m: &MatchRow) -> Result<i64, StoreError> {
        self.first_int(
            sql::INSERT_MATCH,
            &[
                Value::Int(i64::from(m.first_to)),
                Value::Text(m.player_a.clone()),
                Value::Text(m.player_b.clone()),
                Value::Int(m.created),
            ],
        )
        .await
    }

    /// Reads one match.
    ///
    /// # Errors
    /// The database's error.
    pub async fn get_match(&self, id: i64) -> Result<Option<MatchRow>, StoreError> {
        self.backend.get_match(id).await
    }

    /// A match's games, in order.
    ///
    /// # Errors
    /// The database's error.
    pub async fn match_games(&self, match_id: i64) -> Result<Vec<GameRow>, StoreError> {
        self.backend.match_games(match_id).await
    }

    /// Writes a game's changed state if it is still at `row.version`,
    /// and bumps the version: `Ok(false)` when the stored version differs
    /// (another instance changed the game first). On PostgreSQL the same
    /// transaction notifies `caro_games` with `g <id> <new version>`.
    ///
    /// # Errors
    /// The database's error.
    pub async fn update(&self, row: &GameRow) -> Result<bool, StoreError> {
        self.backend.update(row).await
    }

    /// Takes the computer's search of game `id` at `version` until
    /// `until_ms` (Unix milliseconds), unless an instance holds it past
    /// `now_ms`. `Ok(true)` when taken. No version bump, no notification.
    ///
    /// # Errors
    /// The database's error.
    pub async fn claim_search(
        &self,
        id: i64,
        version: i64,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        let n = self
            .backend
            .execute(
                sql::CLAIM_SEARCH,
                &[
                    Value::Int(id),
                    Value::Int(version),
                    Value::Int(now_ms),
                    Value::Int(until_ms),
                ],
            )
            .await?;
        Ok(n == 1)
    }

    /// Sets how long the instance holding game `id`'s search at `version`
    /// holds it: later when its search starts, 0 to let it go. `Ok(false)`
    /// when the game has changed since.
    ///
    /// # Errors
    /// The database's error.
    pub async fn hold_search(
        &self,
        id: i64,
        version: i64,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        let n = self
            .backend
            .execute(
                sql::HOLD_SEARCH,
                &[Value::Int(id), Value::Int(version), Value::Int(until_ms)],
            )
            .await?;
        Ok(n == 1)
    }

    /// How many instances other than `except` were seen after
    /// `alive_after_ms`.
    ///
    /// # Errors
    /// The database's error.
    pub async fn live_instances(
        &self,
        except: &str,
        alive_after_ms: i64,
    ) -> Result<usize, StoreError> {
        let n = self
            .first_int(
                sql::LIVE_INSTANCES,
                &[Value::Text(except.to_string()), Value::Int(alive_after_ms)],
            )
            .await?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// Unfinished games with a computer to move whose search nobody holds
    /// at `now_ms`, longest waiting first.
    ///
    /// # Errors
    /// The database's error.
    pub async fn searches_due(&self, now_ms: i64, limit: usize) -> Result<Vec<i64>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.ids(sql::SEARCHES_DUE, &[Value::Int(now_ms), Value::Int(limit)])
            .await
    }

    /// Reads one game.
    ///
    /// # Errors
    /// The database's error.
    pub async fn get(&self, id: i64) -> Result<Option<GameRow>, StoreError> {
        self.backend.get(id).await
    }

    /// Online games created by `owner` that have not ended.
    ///
    /// # Errors
    /// The database's error.
    pub async fn open_online_games(&self, owner: &str) -> Result<usize, StoreError> {
        let n = self
            .first_int(sql::OPEN_ONLINE_GAMES, &[Value::Text(owner.to_string())])
            .await?;
        Ok(n.max(0) as usize)
    }

    /// Online games whose clock runs: unfinished, with a clock and at
    /// least one move. Their clocks are armed again when the server starts.
    ///
    /// # Errors
    /// The database's error.
    pub async fn running_clocks(&self) -> Result<Vec<i64>, StoreError> {
        self.ids(sql::RUNNING_CLOCKS, &[]).await
    }

    /// The most recently changed games, newest first, without the empty
    /// ones nobody played: no move, no move taken back, no result and no
    /// change since `abandoned_before` (Unix seconds), such as an online
    /// rematch nobody came to.
    ///
    /// # Errors
    /// The database's error.
    pub async fn list(
        &self,
        limit: usize,
        abandoned_before: i64,
    ) -> Result<Vec<GameRow>, StoreError> {
        self.backend.list(limit, abandoned_before).await
    }

    /// Sends `payload` on the `caro_games` channel (PostgreSQL; nothing on
    /// SQLite, where one instance has the database).
    ///
    /// # Errors
    /// The database's error.
    pub async fn notify(&self, payload: &str) -> Result<(), StoreError> {
        self.backend.notify(payload).await
    }

    /// Records that `instance` holds `sockets` sockets on `seat` (0 or 1)
    /// of game `game_id` (0 sockets: the row goes). PostgreSQL notifies
    /// `p <game_id>`.
    ///
    /// # Errors
    /// The database's error.
    pub async fn set_presence(
        &self,
        instance: &str,
        game_id: i64,
        seat: u8,
        sockets: u32,
    ) -> Result<(), StoreError> {
        let at = [
            Value::Text(instance.to_string()),
            Value::Int(game_id),
            Value::Int(i64::from(seat)),
        ];
        let payload = format!("p {game_id}");
        // A count past the column's range is kept as its largest value.
        match i32::try_from(sockets).unwrap_or(i32::MAX) {
            0 => {
                self.backend
                    .execute_and_notify(sql::LEAVE_SEAT, &at, &payload)
                    .await
            }
            sockets => {
                let mut params = at.to_vec();
                params.push(Value::Int(i64::from(sockets)));
                self.backend
                    .execute_and_notify(sql::SIT_AT_SEAT, &params, &payload)
                    .await
            }
        }
    }

    /// Sockets per seat on game `game_id` held by the other instances
    /// seen after `alive_after_ms` (Unix milliseconds).
    ///
    /// # Errors
    /// The database's error.
    pub async fn presence(
        &self,
        game_id: i64,
        except_instance: &str,
        alive_after_ms: i64,
    ) -> Result<[u32; 2], StoreError> {
        let rows = self
            .backend
            .query(
                sql::PRESENCE,
                &[
                    Value::Int(game_id),
                    Value::Text(except_instance.to_string()),
                    Value::Int(alive_after_ms),
                ],
            )
            .await?;
        let mut sockets = [0u32; 2];
        for row in &rows {
            let [seat, n] = columns(row, "presence")?;
            if let Some(slot) = usize::try_from(seat.int())
                .ok()
                .and_then(|s| sockets.get_mut(s))
            {
                *slot = u32::try_from(n.int().max(0)).unwrap_or(u32::MAX);
            }
        }
        Ok(sockets)
    }

    /// Records that `instance` is alive at `now_ms`.
    ///
    /// # Errors
    /// The database's error.
    pub async fn heartbeat(&self, instance: &str, now_ms: i64) -> Result<(), StoreError> {
        self.backend
            .execute(
                sql::HEARTBEAT,
                &[Value::Text(instance.to_string()), Value::Int(now_ms)],
            )
            .await?;
        Ok(())
    }

    /// Deletes the instances not seen since `dead_before_ms` and their
    /// presence, and returns the games whose presence changed (PostgreSQL
    /// notifies `p <id>` for each).
    ///
    /// # Errors
    /// The database's error.
    pub async fn sweep_instances(&self, dead_before_ms: i64) -> Result<Vec<i64>, StoreError> {
        self.backend.sweep_instances(dead_before_ms).await
    }

    /// The stored review of game `game_id` made with `engine`: the
    /// position it is of and its data.
    ///
    /// # Errors
    /// The database's error.
    pub async fn stored_analysis(
        &self,
        game_id: i64,
        engine: &str,
    ) -> Result<Option<(String, String)>, StoreError> {
        let rows = self
            .backend
            .query(
                sql::GET_ANALYSIS,
                &[Value::Int(game_id), Value::Text(engine.to_string())],
            )
            .await?;
        rows.first()
            .map(|row| {
                let [position, data] = columns(row, "review")?;
                Ok((position.text(), data.text()))
            })
            .transpose()
    }

    /// Stores a game's review (replacing the one before).
    ///
    /// # Errors
    /// The database's error.
    pub async fn store_analysis(
        &self,
        game_id: i64,
        position: &str,
        engine: &str,
        data: &str,
    ) -> Result<(), StoreError> {
        self.backend
            .execute(
                sql::PUT_ANALYSIS,
                &[
                    Value::Int(game_id),
                    Value::Text(position.to_string()),
                    Value::Text(engine.to_string()),
                    Value::Text(data.to_string()),
                    Value::Int(now_secs()),
                ],
            )
            .await?;
        Ok(())
    }

    /// Rows in games, matches and analyses.
    ///
    /// # Errors
    /// The database's error.
    pub async fn counts(&self) -> Result<(usize, usize, usize), StoreError> {
        self.backend.counts().await
    }

    /// Every game, by id.
    ///
    /// # Errors
    /// The database's error.
    pub async fn all_games(&self) -> Result<Vec<GameRow>, StoreError> {
        self.backend.all_games().await
    }

    /// Every match, by id.
    ///
    /// # Errors
    /// The database's error.
    pub async fn all_matches(&self) -> Result<Vec<MatchRow>, StoreError> {
        self.backend.all_matches().await
    }

    /// Every stored review, by game.
    ///
    /// # Errors
    /// The database's error.
    pub async fn all_analyses(&self) -> Result<Vec<AnalysisRow>, StoreError> {
        let rows = self.backend.query(sql::ALL_ANALYSES, &[]).await?;
        rows.iter()
            .map(|row| {
                let [game_id, position, engine, data, created] = columns(row, "review")?;
                Ok(AnalysisRow {
                    game_id: game_id.int(),
                    position: position.text(),
                    engine: engine.text(),
                    data: data.text(),
                    created: created.int(),
                })
            })
            .collect()
    }

    /// Copies rows into this (empty) database keeping their ids, in one
    /// transaction; new ids continue after the largest copied.
    ///
    /// # Errors
    /// [`StoreError::NotEmpty`] when the database has games, matches or
    /// analyses; the database's error (nothing is copied then).
    pub async fn import(
        &self,
        games: &[GameRow],
        matches: &[MatchRow],
        analyses: &[AnalysisRow],
    ) -> Result<(), StoreError> {
        let matches = matches.iter().map(|m| {
            Statement::new(
                sql::COPY_MATCH,
                vec![
                    Value::Int(m.id),
                    Value::Int(i64::from(m.first_to)),
                    Value::Text(m.player_a.clone()),
                    Value::Text(m.player_b.clone()),
                    Value::Int(m.created),
                ],
            )
        });
        let games = games
            .iter()
            .map(|g| Statement::new(sql::INSERT_GAME, game_values(g)));
        let analyses = analyses.iter().map(|a| {
            Statement::new(
                sql::COPY_ANALYSIS,
                vec![
                    Value::Int(a.game_id),
                    Value::Text(a.position.clone()),
                    Value::Text(a.engine.clone()),
                    Value::Text(a.data.clone()),
                    Value::Int(a.created),
                ],
            )
        });
        self.backend
            .import(matches.chain(games).chain(analyses).collect())
            .await
    }
}

#[cfg(test)]
mod tests;
