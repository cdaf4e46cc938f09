//! The SQL both backends run, written once in PostgreSQL's dialect
//! (parameters `$1`, `$2` …). [`sqlite`] gives a statement in SQLite's
//! (`?1`, `?2` …): SQLite reads `$1` as a named parameter, numbered by
//! first appearance, not by its digits. Statements that differ between the
//! dialects (PostgreSQL's notification in the same statement as its change)
//! stay with their backend.

use std::borrow::Cow;

/// The columns of `games` after its id, in the order [`super::GameRow`]
/// is read.
macro_rules! columns_after_id {
    () => {
        "created, updated, black, white, width, height, k, rule, first, time_ms, moves, redo, result, ending, black_token, white_token, owner, clock, opening, choices, match_id, game_no, hints, names, version, offers, paused, delay_ms, computer_turn, search_until, next_id"
    };
}

/// The columns of `games`, in the order [`super::GameRow`] is read.
macro_rules! columns {
    () => {
        concat!("id, ", columns_after_id!())
    };
}

/// A game by id.
pub(super) const GET_GAME: &str = concat!("SELECT ", columns!(), " FROM games WHERE id = $1");

/// A match's games, in order.
pub(super) const MATCH_GAMES: &str = concat!(
    "SELECT ",
    columns!(),
    " FROM games WHERE match_id = $1 AND match_id <> 0 ORDER BY game_no, id"
);

/// The newest games (`$1` of them), without those abandoned unplayed
/// before `$2`.
pub(super) const LIST_GAMES: &str = concat!(
    "SELECT ",
    columns!(),
    " FROM games WHERE NOT (moves = '' AND redo = '' AND result = '' AND updated < $2)
     ORDER BY updated DESC, id DESC LIMIT $1"
);

/// Every game, by id.
pub(super) const ALL_GAMES: &str = concat!("SELECT ", columns!(), " FROM games ORDER BY id");

/// A game with all its columns, id included (`NULL`: a new id).
pub(super) const INSERT_GAME: &str = concat!(
    "INSERT INTO games (",
    columns!(),
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32)"
);

/// A new game: every column but its id (`$1` is its `created`); answers
/// its id.
pub(super) const NEW_GAME: &str = concat!(
    "INSERT INTO games (",
    columns_after_id!(),
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31) RETURNING id"
);

/// Claims a game's search: `$4` as its lease, if the game is still at
/// version `$2` and no lease runs at `$3`.
pub(super) const CLAIM_SEARCH: &str =
    "UPDATE games SET search_until = $4 WHERE id = $1 AND version = $2 AND search_until < $3";

/// Extends the lease of a game's search, if the game is still at version
/// `$2`.
pub(super) const HOLD_SEARCH: &str =
    "UPDATE games SET search_until = $3 WHERE id = $1 AND version = $2";

/// Searches whose lease ran out before `$1` (at most `$2`).
pub(super) const SEARCHES_DUE: &str = "SELECT id FROM games WHERE computer_turn = 1 AND result = '' AND search_until < $1 ORDER BY updated, id LIMIT $2";

/// Unfinished online games of one client.
pub(super) const OPEN_ONLINE_GAMES: &str =
    "SELECT COUNT(*) FROM games WHERE owner = $1 AND black_token <> '' AND result = ''";

/// Online games whose clock runs.
pub(super) const RUNNING_CLOCKS: &str = "SELECT id FROM games WHERE black_token <> '' AND result = '' AND clock <> '' AND moves <> '' ORDER BY id";

/// The newest migration applied (0: none).
pub(super) const SCHEMA_VERSION: &str =
    "SELECT COALESCE(MAX(version), 0) FROM refinery_schema_history";

/// A new match: its id.
pub(super) const INSERT_MATCH: &str =
    "INSERT INTO matches (first_to, player_a, player_b, created) VALUES ($1, $2, $3, $4) RETURNING id";

/// A match by id.
pub(super) const GET_MATCH: &str =
    "SELECT id, first_to, player_a, player_b, created FROM matches WHERE id = $1";

/// Every match, by id.
pub(super) const ALL_MATCHES: &str =
    "SELECT id, first_to, player_a, player_b, created FROM matches ORDER BY id";

/// A match with its id (a copy).
pub(super) const COPY_MATCH: &str =
    "INSERT INTO matches (id, first_to, player_a, player_b, created) VALUES ($1, $2, $3, $4, $5)";

/// A game's stored review by one engine.
pub(super) const GET_ANALYSIS: &str =
    "SELECT position, data FROM analyses WHERE game_id = $1 AND engine = $2";

/// A game's review (a game has one), replacing the one before.
pub(super) const PUT_ANALYSIS: &str =
    "INSERT INTO analyses (game_id, position, engine, data, created) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (game_id) DO UPDATE SET position = EXCLUDED.position, engine = EXCLUDED.engine,
     data = EXCLUDED.data, created = EXCLUDED.created";

/// Every stored review.
pub(super) const ALL_ANALYSES: &str =
    "SELECT game_id, position, engine, data, created FROM analyses ORDER BY game_id";

/// A review (a copy).
pub(super) const COPY_ANALYSIS: &str =
    "INSERT INTO analyses (game_id, position, engine, data, created) VALUES ($1, $2, $3, $4, $5)";

/// The other instances (not `$1`) heard from after `$2`.
pub(super) const LIVE_INSTANCES: &str =
    "SELECT COUNT(*) FROM instances WHERE id <> $1 AND seen > $2";

/// Removes the sockets instance `$1` holds on seat `$3` of game `$2`.
pub(super) const LEAVE_SEAT: &str =
    "DELETE FROM presence WHERE instance = $1 AND game_id = $2 AND seat = $3";

/// Sets how many sockets (`$4`) instance `$1` holds on seat `$3` of game
/// `$2`.
pub(super) const SIT_AT_SEAT: &str =
    "INSERT INTO presence (instance, game_id, seat, sockets) VALUES ($1, $2, $3, $4)
     ON CONFLICT (instance, game_id, seat) DO UPDATE SET sockets = EXCLUDED.sockets";

/// Sockets per seat of game `$1` held by the instances other than `$2`
/// heard from after `$3`.
pub(super) const PRESENCE: &str =
    "SELECT p.seat, SUM(p.sockets) FROM presence p JOIN instances i ON i.id = p.instance
     WHERE p.game_id = $1 AND p.instance <> $2 AND i.seen > $3 GROUP BY p.seat";

/// An instance's heartbeat.
pub(super) const HEARTBEAT: &str =
    "INSERT INTO instances (id, seen) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET seen = EXCLUDED.seen";

/// `sql` in SQLite's dialect: each `$N` written `?N`.
pub(super) fn sqlite(sql: &str) -> Cow<'_, str> {
    if !sql.contains('$') {
        return Cow::Borrowed(sql);
    }
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('?');
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_numbers_parameters_by_their_digits() {
        assert_eq!(
            sqlite("UPDATE games SET search_until = $3 WHERE id = $1 AND version = $12"),
            "UPDATE games SET search_until = ?3 WHERE id = ?1 AND version = ?12"
        );
        assert_eq!(sqlite("SELECT '$' FROM t"), "SELECT '$' FROM t");
        assert!(matches!(sqlite(ALL_MATCHES), Cow::Borrowed(_)));
    }

    #[test]
    fn the_game_statements_name_every_column() {
        assert_eq!(columns!().split(", ").count(), 32);
        assert!(INSERT_GAME.contains("$32)"));
        assert_eq!(NEW_GAME.matches('$').count(), 31);
        assert!(NEW_GAME.contains("(created, ") && NEW_GAME.contains("$31) RETURNING id"));
    }
}
