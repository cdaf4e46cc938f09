//! Accounts and sessions in the store: SQL written once, for both
//! backends, through [`Backend::execute`](super::backend::Backend) and
//! its kin.

use super::backend::{Statement, Value};
use super::{Store, StoreError};

/// One account as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountRow {
    /// The account's id.
    pub id: i64,
    /// The name as its owner wrote it ([`crate::account::DELETED_NAME`]
    /// once deleted).
    pub name: String,
    /// The Argon2id hash of the password (empty once deleted).
    pub password_hash: String,
    /// Unix seconds when it was made.
    pub created: i64,
    /// Disabled by an operator: no log-in, no session.
    pub disabled: bool,
    /// Deleted by its owner.
    pub deleted: bool,
}

/// The columns of an [`AccountRow`], in order.
macro_rules! account_columns {
    () => {
        "id, name, password_hash, created, disabled, deleted"
    };
}

const INSERT_ACCOUNT: &str = "INSERT INTO accounts (name, name_key, password_hash, created) VALUES ($1, $2, $3, $4) ON CONFLICT (name_key) DO NOTHING RETURNING id";
const ACCOUNT_BY_KEY: &str = concat!(
    "SELECT ",
    account_columns!(),
    " FROM accounts WHERE name_key = $1"
);
const ACCOUNT_BY_ID: &str = concat!(
    "SELECT ",
    account_columns!(),
    " FROM accounts WHERE id = $1"
);
const SESSION_ACCOUNT: &str = "SELECT a.id, a.name, a.password_hash, a.created, a.disabled, a.deleted FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.token_hash = $1 AND s.created > $2 AND a.disabled = 0 AND a.deleted = 0";
const INSERT_SESSION: &str =
    "INSERT INTO sessions (token_hash, account_id, created) VALUES ($1, $2, $3)";
const DELETE_SESSION: &str = "DELETE FROM sessions WHERE token_hash = $1";
const DELETE_SESSIONS_OF: &str = "DELETE FROM sessions WHERE account_id = $1";
const SET_PASSWORD: &str = "UPDATE accounts SET password_hash = $2 WHERE id = $1 AND deleted = 0";
const SET_DISABLED: &str = "UPDATE accounts SET disabled = $2 WHERE id = $1 AND deleted = 0";
const DELETE_ACCOUNT: &str = "UPDATE accounts SET name = 'deleted', name_key = '#deleted-' || id, password_hash = '', deleted = $2 WHERE id = $1 AND deleted = 0";

fn read_account(row: &[Value]) -> Result<AccountRow, StoreError> {
    let [id, name, hash, created, disabled, deleted] = row else {
        return Err(StoreError::Damaged {
            id: row.first().map_or(0, Value::int),
            reason: format!("an account row has {} columns, not 6", row.len()),
        });
    };
    Ok(AccountRow {
        id: id.int(),
        name: name.text(),
        password_hash: hash.text(),
        created: created.int(),
        disabled: disabled.int() != 0,
        deleted: deleted.int() != 0,
    })
}

impl Store {
    async fn one_account(
        &self,
        sql: &str,
        params: &[Value],
    ) -> Result<Option<AccountRow>, StoreError> {
        let rows = self.backend.query(sql, params).await?;
        rows.first().map(|r| read_account(r)).transpose()
    }

    /// Makes an account: its id, or `None` when the name (`key`, its lower
    /// case) is taken, on this instance or another.
    ///
    /// # Errors
    /// The database's error.
    pub async fn create_account(
        &self,
        name: &str,
        key: &str,
        password_hash: &str,
        now: i64,
    ) -> Result<Option<i64>, StoreError> {
        let rows = self
            .backend
            .query(
                INSERT_ACCOUNT,
                &[
                    Value::Text(name.into()),
                    Value::Text(key.into()),
                    Value::Text(password_hash.into()),
                    Value::Int(now),
                ],
            )
            .await?;
        Ok(rows.first().and_then(|r| r.first()).map(Value::int))
    }

    /// The account a name's key belongs to (disabled ones included).
    ///
    /// # Errors
    /// The database's error.
    pub async fn account_by_key(&self, key: &str) -> Result<Option<AccountRow>, StoreError> {
        self.one_account(ACCOUNT_BY_KEY, &[Value::Text(key.into())])
            .await
    }

    /// An account by id.
    ///
    /// # Errors
    /// The database's error.
    pub async fn account(&self, id: i64) -> Result<Option<AccountRow>, StoreError> {
        self.one_account(ACCOUNT_BY_ID, &[Value::Int(id)]).await
    }

    /// Stores a session (by its token's hash).
    ///
    /// # Errors
    /// The database's error.
    pub async fn insert_session(
        &self,
        token_hash: &str,
        account_id: i64,
        now: i64,
    ) -> Result<(), StoreError> {
        self.backend
            .execute(
                INSERT_SESSION,
                &[
                    Value::Text(token_hash.into()),
                    Value::Int(account_id),
                    Value::Int(now),
                ],
            )
            .await?;
        Ok(())
    }

    /// The account of a session begun after `begun_after`, if the account
    /// is neither disabled nor deleted.
    ///
    /// # Errors
    /// The database's error.
    pub async fn session_account(
        &self,
        token_hash: &str,
        begun_after: i64,
    ) -> Result<Option<AccountRow>, StoreError> {
        self.one_account(
            SESSION_ACCOUNT,
            &[Value::Text(token_hash.into()), Value::Int(begun_after)],
        )
        .await
    }

    /// Ends one session.
    ///
    /// # Errors
    /// The database's error.
    pub async fn delete_session(&self, token_hash: &str) -> Result<(), StoreError> {
        self.backend
            .execute(DELETE_SESSION, &[Value::Text(token_hash.into())])
            .await?;
        Ok(())
    }

    /// Sets a new password and ends every session of the account, in one
    /// transaction: `false` when there is no such (undeleted) account.
    ///
    /// # Errors
    /// The database's error.
    pub async fn set_password(
        &self,
        account_id: i64,
        password_hash: &str,
    ) -> Result<bool, StoreError> {
        self.backend
            .transaction(&[
                Statement::must_change(
                    SET_PASSWORD,
                    vec![Value::Int(account_id), Value::Text(password_hash.into())],
                ),
                Statement::new(DELETE_SESSIONS_OF, vec![Value::Int(account_id)]),
            ])
            .await
    }

    /// Disables or enables an account; disabling ends its sessions at
    /// once. `false` when there is no such (undeleted) account.
    ///
    /// # Errors
    /// The database's error.
    pub async fn set_disabled(&self, account_id: i64, disabled: bool) -> Result<bool, StoreError> {
        self.backend
            .transaction(&[
                Statement::must_change(
                    SET_DISABLED,
                    vec![Value::Int(account_id), Value::Int(disabled.into())],
                ),
                Statement::new(
                    DELETE_SESSIONS_OF,
                    vec![Value::Int(if disabled { account_id } else { 0 })],
                ),
            ])
            .await
    }

    /// Deletes an account: its name becomes "deleted" (and free to take
    /// again), its password and sessions are dropped; its games stay.
    /// `false` when there is no such (undeleted) account.
    ///
    /// # Errors
    /// The database's error.
    pub async fn delete_account(&self, account_id: i64, now: i64) -> Result<bool, StoreError> {
        self.backend
            .transaction(&[
                Statement::must_change(
                    DELETE_ACCOUNT,
                    vec![Value::Int(account_id), Value::Int(now)],
                ),
                Statement::new(DELETE_SESSIONS_OF, vec![Value::Int(account_id)]),
            ])
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_statements_read_the_columns_in_order() {
        assert_eq!(account_columns!().split(", ").count(), 6);
        assert!(read_account(&[Value::Int(1)]).is_err());
    }
}
