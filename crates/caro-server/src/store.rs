//! Saved games in an embedded SQLite file: every move is written when it is
//! played, so a killed server loses nothing.

use std::path::Path;
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};

/// A storage failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused or failed.
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
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

/// The games database. Writes go through one connection, reads through
/// another: with SQLite's write-ahead log a read never waits for a write
/// (a slow disk, another program holding the write lock). Every call
/// blocks, so the server makes them on blocking threads, never on its
/// async workers.
pub struct Store {
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
            tracing::warn!("checkpoint: {e}");
        }
    }
    // A last full copy, so a stopped server leaves a small log behind.
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    black TEXT NOT NULL,
    white TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    k INTEGER NOT NULL,
    rule TEXT NOT NULL,
    first TEXT NOT NULL,
    time_ms INTEGER NOT NULL,
    moves TEXT NOT NULL,
    redo TEXT NOT NULL,
    result TEXT NOT NULL,
    ending TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS games_updated ON games(updated);
CREATE TABLE IF NOT EXISTS analyses (
    game_id INTEGER PRIMARY KEY,
    position TEXT NOT NULL,
    engine TEXT NOT NULL,
    data TEXT NOT NULL,
    created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    first_to INTEGER NOT NULL,
    player_a TEXT NOT NULL,
    player_b TEXT NOT NULL,
    created INTEGER NOT NULL
);
";

/// Columns added after the first release: `(name, definition)`. Added to
/// an older database when it is opened, so existing games keep working.
const ADDED_COLUMNS: [(&str, &str); 17] = [
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
    ("version", "INTEGER NOT NULL DEFAULT 0"),
    ("offers", "TEXT NOT NULL DEFAULT ''"),
    ("paused", "INTEGER NOT NULL DEFAULT 0"),
    ("delay_ms", "INTEGER NOT NULL DEFAULT 400"),
    ("computer_turn", "INTEGER NOT NULL DEFAULT 0"),
    ("search_until", "INTEGER NOT NULL DEFAULT 0"),
    ("next_id", "INTEGER NOT NULL DEFAULT 0"),
];

const COLUMNS: &str =
    "id, created, updated, black, white, width, height, k, rule, first, time_ms, moves, redo, result, ending, black_token, white_token, owner, clock, opening, choices, match_id, game_no, hints, names, version, offers, paused, delay_ms, computer_turn, search_until, next_id";

/// Indexes on added columns, made once the columns exist.
const ADDED_INDEXES: &str =
    "CREATE INDEX IF NOT EXISTS games_match ON games(match_id) WHERE match_id <> 0;
     CREATE UNIQUE INDEX IF NOT EXISTS games_match_game ON games(match_id, game_no) WHERE match_id <> 0;";

/// Adds the columns an older database lacks.
fn migrate(conn: &Connection) -> Result<(), StoreError> {
    let mut stmt = conn.prepare("PRAGMA table_info(games)")?;
    let have = stmt
        .query_map([], |r| r.get::<_, String>(1))?
        .collect::<Result<Vec<_>, _>>()?;
    for (name, definition) in ADDED_COLUMNS {
        if !have.iter().any(|h| h == name) {
            conn.execute_batch(&format!("ALTER TABLE games ADD COLUMN {name} {definition}"))?;
        }
    }
    conn.execute_batch(ADDED_INDEXES)?;
    Ok(())
}

impl Store {
    /// Opens (creating if needed) the database file.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`] when the file cannot be opened or set up.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let conn = Connection::open(path)?;
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
        conn.execute_batch(SCHEMA)?;
        migrate(&conn)?;
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
        Ok(Store {
            conn: Mutex::new(conn),
            reader: Mutex::new(reader),
            _checkpointer: checkpointer,
        })
    }

    pub(crate) fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written
        // (each statement is atomic), so a poisoned lock is still usable.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn reader(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.reader.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores a new game and returns its id.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn insert(&self, row: &GameRow) -> Result<i64, StoreError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO games (created, updated, black, white, width, height, k, rule, first, time_ms, moves, redo, result, ending, black_token, white_token, owner, clock, opening, choices, match_id, game_no, hints, names, version, offers, paused, delay_ms, computer_turn, search_until, next_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31)",
            params![
                row.created,
                row.updated,
                row.black,
                row.white,
                row.width,
                row.height,
                row.k,
                row.rule,
                row.first,
                row.time_ms as i64,
                row.moves,
                row.redo,
                row.result,
                row.ending,
                row.black_token,
                row.white_token,
                row.owner,
                row.clock,
                row.opening,
                row.choices,
                row.match_id,
                row.game_no,
                row.hints,
                row.names,
                row.version,
                row.offers,
                row.paused,
                row.delay_ms as i64,
                row.computer_turn,
                row.search_until,
                row.next_id
            ],
        )?;
        Ok(conn.last_insert_rowid())
    }

    /// Stores a new match and returns its id.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn insert_match(&self, m: &MatchRow) -> Result<i64, StoreError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO matches (first_to, player_a, player_b, created) VALUES (?1, ?2, ?3, ?4)",
            params![m.first_to, m.player_a, m.player_b, m.created],
        )?;
        Ok(conn.last_insert_rowid())
    }

    /// Reads one match.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn get_match(&self, id: i64) -> Result<Option<MatchRow>, StoreError> {
        let row = self
            .reader()
            .query_row(
                "SELECT id, first_to, player_a, player_b, created FROM matches WHERE id = ?1",
                [id],
                |r| {
                    Ok(MatchRow {
                        id: r.get(0)?,
                        first_to: r.get(1)?,
                        player_a: r.get(2)?,
                        player_b: r.get(3)?,
                        created: r.get(4)?,
                    })
                },
            )
            .optional()?;
        Ok(row)
    }

    /// A match's games, in order.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn match_games(&self, match_id: i64) -> Result<Vec<GameRow>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM games WHERE match_id = ?1 AND match_id <> 0 ORDER BY game_no, id"
        ))?;
        let rows = stmt.query_map([match_id], read_row)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Writes a game's changed state if it is still at `row.version`,
    /// and bumps the version: `Ok(false)` when the stored version differs
    /// (another instance changed the game first).
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn update(&self, row: &GameRow) -> Result<bool, StoreError> {
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

    /// Takes the computer's search of game `id` at `version` until
    /// `until_ms` (Unix milliseconds), unless an instance holds it past
    /// `now_ms`. `Ok(true)` when taken.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn claim_search(
        &self,
        id: i64,
        version: i64,
        now_ms: i64,
        until_ms: i64,
    ) -> Result<bool, StoreError> {
        let n = self.conn().execute(
            "UPDATE games SET search_until = ?4 WHERE id = ?1 AND version = ?2 AND search_until < ?3",
            params![id, version, now_ms, until_ms],
        )?;
        Ok(n == 1)
    }

    /// Unfinished games with a computer to move whose search nobody holds
    /// at `now_ms`, longest waiting first.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn searches_due(&self, now_ms: i64, limit: usize) -> Result<Vec<i64>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn.prepare(
            "SELECT id FROM games WHERE computer_turn = 1 AND result = '' AND search_until < ?1 ORDER BY updated LIMIT ?2",
        )?;
        let ids = stmt.query_map(params![now_ms, limit as i64], |r| r.get(0))?;
        Ok(ids.collect::<Result<Vec<i64>, _>>()?)
    }

    /// Reads one game.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn get(&self, id: i64) -> Result<Option<GameRow>, StoreError> {
        let conn = self.reader();
        let row = conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM games WHERE id = ?1"),
                [id],
                read_row,
            )
            .optional()?;
        Ok(row)
    }

    /// Online games created by `owner` that have not ended.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn open_online_games(&self, owner: &str) -> Result<usize, StoreError> {
        let n: i64 = self.reader().query_row(
            "SELECT COUNT(*) FROM games WHERE owner = ?1 AND black_token <> '' AND result = ''",
            [owner],
            |r| r.get(0),
        )?;
        Ok(n.max(0) as usize)
    }

    /// Online games whose clock runs: unfinished, with a clock and at
    /// least one move. Their clocks are armed again when the server starts.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn running_clocks(&self) -> Result<Vec<i64>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn.prepare(
            "SELECT id FROM games WHERE black_token <> '' AND result = '' AND clock <> '' AND moves <> ''",
        )?;
        let ids = stmt.query_map([], |r| r.get(0))?;
        Ok(ids.collect::<Result<Vec<i64>, _>>()?)
    }

    /// The most recently changed games, newest first, without the empty
    /// ones nobody played: no move, no move taken back, no result and no
    /// change since `abandoned_before` (Unix seconds), such as an online
    /// rematch nobody came to.
    ///
    /// # Errors
    /// [`StoreError::Sqlite`].
    pub fn list(&self, limit: usize, abandoned_before: i64) -> Result<Vec<GameRow>, StoreError> {
        let conn = self.reader();
        let mut stmt = conn.prepare(&format!(
            "SELECT {COLUMNS} FROM games
             WHERE NOT (moves = '' AND redo = '' AND result = '' AND updated < ?2)
             ORDER BY updated DESC, id DESC LIMIT ?1"
        ))?;
        let rows = stmt.query_map(params![limit as i64, abandoned_before], read_row)?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }
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
    use super::*;

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
            redo: String::new(),
            result: String::new(),
            ending: String::new(),
            black_token: String::new(),
            white_token: String::new(),
            owner: String::new(),
            clock: String::new(),
            opening: "free".into(),
            choices: String::new(),
            match_id: 0,
            game_no: 0,
            hints: 0,
            names: String::new(),
            ..GameRow::default()
        }
    }

    #[test]
    fn an_old_database_gains_the_added_columns_and_the_matches_table() {
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
                 INSERT INTO games VALUES (1, 1, 1, 'human', 'human', 15, 15, 5, 'freestyle', 'black', 500, '7,7', '', '', '');",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let old = store.get(1).unwrap().unwrap();
        assert_eq!(old.moves, "7,7");
        assert_eq!(old.black_token, "");
        let mut r = row();
        r.black_token = "ab".into();
        r.white_token = "cd".into();
        r.owner = "10.0.0.1".into();
        r.id = store.insert(&r).unwrap();
        assert_eq!(store.get(r.id).unwrap(), Some(r.clone()));
        assert_eq!(store.open_online_games("10.0.0.1").unwrap(), 1);
        assert_eq!(store.open_online_games("10.0.0.2").unwrap(), 0);
        assert_eq!(old.opening, "free");
        assert_eq!((old.match_id, old.game_no, old.hints), (0, 0, 0));
        let m = MatchRow {
            id: 0,
            first_to: 2,
            player_a: "human".into(),
            player_b: "random".into(),
            created: 5,
        };
        let match_id = store.insert_match(&m).unwrap();
        let mut g = row();
        g.opening = "swap2".into();
        g.choices = "place-two take-white".into();
        g.match_id = match_id;
        g.game_no = 1;
        g.hints = 2;
        g.id = store.insert(&g).unwrap();
        assert_eq!(store.match_games(match_id).unwrap(), vec![g.clone()]);
        // A match has one game of each number: a second is refused.
        assert!(store.insert(&g).is_err());
        assert_eq!(store.match_games(match_id).unwrap(), vec![g]);
        assert_eq!(
            store.get_match(match_id).unwrap(),
            Some(MatchRow { id: match_id, ..m })
        );
        drop(store);
        // Opening again does not add the columns twice.
        Store::open(&path).unwrap();
    }

    #[test]
    fn reads_do_not_wait_for_a_held_write_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.sqlite3");
        let store = Store::open(&path).unwrap();
        let mut r = row();
        r.id = store.insert(&r).unwrap();
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let started = std::time::Instant::now();
        assert_eq!(store.get(r.id).unwrap(), Some(r.clone()));
        assert_eq!(store.list(10, 0).unwrap().len(), 1);
        assert!(started.elapsed() < Duration::from_secs(1));
        other.execute_batch("ROLLBACK").unwrap();
    }

    #[test]
    fn a_game_survives_closing_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.sqlite3");
        let mut r = row();
        {
            let store = Store::open(&path).unwrap();
            r.id = store.insert(&r).unwrap();
            r.moves.push_str(" 9,9");
            r.updated = 2;
            assert!(store.update(&r).unwrap());
            r.version += 1;
            // A write of an older version is refused.
            let mut stale = r.clone();
            stale.version -= 1;
            stale.moves.push_str(" 1,1");
            assert!(!store.update(&stale).unwrap());
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.get(r.id).unwrap(), Some(r.clone()));
        assert_eq!(store.list(10, 0).unwrap(), vec![r.clone()]);
        // An empty game left alone is not listed once it is old.
        let mut empty = row();
        empty.moves = String::new();
        empty.id = store.insert(&empty).unwrap();
        assert_eq!(store.list(10, 0).unwrap().len(), 2);
        assert_eq!(store.list(10, 2).unwrap(), vec![r.clone()]);
        assert_eq!(store.get(999).unwrap(), None);
    }
}
