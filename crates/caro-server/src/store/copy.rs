//! Copying the people's tables (accounts, sessions, seeks, lobby games,
//! ratings and their history) into another database, ids kept: the part
//! of `caro db migrate` written once for both backends.

use super::backend::{Statement, Value};
use super::{Store, StoreError};

/// The tables copied, each with its columns and the order its rows are
/// read in; those with an `id` of their own go on numbering after the copy.
const TABLES: [(&str, &str, &str); 6] = [
    (
        "accounts",
        "id, name, name_key, password_hash, created, disabled, deleted",
        "id",
    ),
    ("sessions", "token_hash, account_id, created", "token_hash"),
    (
        "seeks",
        "id, account_id, guest_token, owner, rule, width, height, opening, minutes, increment, rated, colour, created, expires, cancelled, taker_account, game_id",
        "id",
    ),
    (
        "lobby_games",
        "game_id, first_account, second_account, variant, rated, state, first_rating, first_change, second_rating, second_change, first_deviation, first_volatility, first_games, second_deviation, second_volatility, second_games",
        "game_id",
    ),
    (
        "ratings",
        "account_id, variant, rating, deviation, volatility, games, wins, draws, losses, updated",
        "account_id, variant",
    ),
    (
        "rating_history",
        "account_id, variant, game_id, rating, deviation, at",
        "account_id, variant, game_id",
    ),
];

/// The tables numbered by an `id` of their own.
const NUMBERED: [&str; 2] = ["accounts", "seeks"];

impl Store {
    /// Every row of each people's table, in a fixed order.
    async fn people_rows(&self) -> Result<Vec<Vec<Vec<Value>>>, StoreError> {
        let mut tables = Vec::with_capacity(TABLES.len());
        for (table, columns, order) in &TABLES {
            let sql = format!("SELECT {columns} FROM {table} ORDER BY {order}");
            tables.push(self.backend.query(&sql, &[]).await?);
        }
        Ok(tables)
    }

    /// How many rows each people's table holds, by name.
    ///
    /// # Errors
    /// The database's error.
    pub async fn people_counts(&self) -> Result<Vec<(&'static str, usize)>, StoreError> {
        let mut counts = Vec::with_capacity(TABLES.len());
        for (table, _, _) in &TABLES {
            let sql = format!("SELECT COUNT(*) FROM {table}");
            let rows = self.backend.query(&sql, &[]).await?;
            let n = match rows.first().and_then(|r| r.first()) {
                Some(Value::Int(n)) => usize::try_from(*n).unwrap_or(0),
                _ => 0,
            };
            counts.push((*table, n));
        }
        Ok(counts)
    }

    /// Copies the people's tables into `target`, whose tables must be
    /// empty, in one transaction, then checks that the target reads back
    /// the same rows: the rows copied per table.
    ///
    /// # Errors
    /// [`StoreError::NotEmpty`] when the target holds rows; the databases'
    /// errors; [`StoreError::Migration`] when the copy does not read back
    /// the same.
    pub async fn copy_people_to(
        &self,
        target: &Store,
    ) -> Result<Vec<(&'static str, usize)>, StoreError> {
        let held: Vec<_> = target
            .people_counts()
            .await?
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .collect();
        if !held.is_empty() {
            let list: Vec<String> = held.iter().map(|(t, n)| format!("{n} {t}")).collect();
            return Err(StoreError::NotEmpty(format!(
                "the target database {} is not empty ({}): copy into an empty database",
                target.describe(),
                list.join(", ")
            )));
        }
        let rows = self.people_rows().await?;
        let mut statements = Vec::new();
        for ((table, columns, _), table_rows) in TABLES.iter().zip(&rows) {
            let n = columns.split(", ").count();
            let placeholders: Vec<String> = (1..=n).map(|i| format!("${i}")).collect();
            let sql = format!(
                "INSERT INTO {table} ({columns}) VALUES ({})",
                placeholders.join(", ")
            );
            for row in table_rows {
                statements.push(Statement::must_change(sql.clone(), row.clone()));
            }
        }
        target.backend.transaction(&statements).await?;
        target.backend.continue_ids(&NUMBERED).await?;
        if target.people_rows().await? != rows {
            return Err(StoreError::Migration(format!(
                "the copy of accounts, seeks and ratings in {} does not read back the same rows",
                target.describe()
            )));
        }
        Ok(TABLES
            .iter()
            .zip(&rows)
            .map(|((table, _, _), r)| (*table, r.len()))
            .collect())
    }
}
