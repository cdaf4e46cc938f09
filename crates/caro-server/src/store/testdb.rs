//! A fresh PostgreSQL database for a test, shared by the store's own tests
//! and the command line's (`features = ["test-support"]`): created on the
//! server named by `CARO_TEST_POSTGRES` (default
//! `postgres://postgres@127.0.0.1:5432/test`) under a name of its own
//! (`caro_t_<pid>_<n>_<random>`), dropped when the test ends. Without a
//! server that answers, the test is skipped and says so, unless
//! `CARO_REQUIRE_POSTGRES=1` (as `.ci/run` sets), where it fails.

use std::io::Write;
use std::str::FromStr;
use std::sync::atomic::{AtomicU32, Ordering};

use super::postgres::with_causes;
pub use super::scratch::PgError;
use super::scratch::{execute, run, ScratchDatabase};
use super::Database;

/// Where the tests' databases are made unless `CARO_TEST_POSTGRES` says.
pub const DEFAULT_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A database of its own for one test; dropped (`DROP DATABASE … WITH
/// (FORCE)`, closing the connections left open) with this value.
pub struct TestDb {
    /// The URL of the fresh database, for `caro serve --database`.
    pub url: String,
    /// Its name.
    pub name: String,
    scratch: ScratchDatabase,
}

/// The server the tests use: `CARO_TEST_POSTGRES` or [`DEFAULT_URL`].
#[must_use]
pub fn server_url() -> String {
    std::env::var("CARO_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_URL.to_string())
}

/// Whether PostgreSQL tests must run (`CARO_REQUIRE_POSTGRES=1`).
#[must_use]
pub fn required() -> bool {
    std::env::var("CARO_REQUIRE_POSTGRES").is_ok_and(|v| v == "1")
}

/// `url` as it may be shown: without its password.
fn shown(url: &str) -> String {
    Database::from_str(url).map_or_else(|_| "the PostgreSQL URL".to_string(), |d| d.to_string())
}

/// A fresh, empty database, or `None` (with a line on stderr saying the
/// test is skipped) when PostgreSQL does not answer.
///
/// # Panics
/// With `CARO_REQUIRE_POSTGRES=1` when PostgreSQL does not answer, and on
/// any other failure to create the database.
#[must_use]
pub fn fresh_database() -> Option<TestDb> {
    let admin = server_url();
    let mut random = [0u8; 4];
    // A clock-free fallback is fine: the pid and counter already differ.
    let _ = getrandom::fill(&mut random);
    let name = format!(
        "caro_t_{}_{}_{:08x}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        u32::from_le_bytes(random)
    );
    let scratch = match ScratchDatabase::create(&admin, &name) {
        Ok(scratch) => scratch,
        Err(PgError::Unreachable(reason)) => {
            let shown = shown(&admin);
            assert!(
                !required(),
                "PostgreSQL not reachable at {shown} ({reason}); CARO_REQUIRE_POSTGRES=1 needs it"
            );
            // Straight to the process's stderr: the test harness does not
            // capture it, so a plain `cargo test` shows what was skipped.
            let _ = writeln!(
                std::io::stderr(),
                "skipped: PostgreSQL not reachable at {shown} ({reason}); set CARO_TEST_POSTGRES"
            );
            return None;
        }
        Err(PgError::Failed(reason)) => panic!("creating the test database {name}: {reason}"),
    };
    Some(TestDb {
        url: scratch.url.clone(),
        name: scratch.name.clone(),
        scratch,
    })
}

impl TestDb {
    /// The database, for [`super::Store::open`].
    #[must_use]
    pub fn database(&self) -> Database {
        Database::Postgres(self.url.clone())
    }

    /// Runs one SQL statement (or several, separated by `;`) in this
    /// database.
    ///
    /// # Errors
    /// No connection, or the statement failed.
    pub fn execute(&self, sql: &str) -> Result<(), PgError> {
        execute(&self.url, sql)
    }

    /// The first column of each row a query returns, as text (`NULL` as
    /// an empty string): a test's look at what is stored.
    ///
    /// # Errors
    /// No connection, or the query failed.
    pub fn column(&self, sql: &str) -> Result<Vec<String>, PgError> {
        run(&self.url, |client| async move {
            let messages = client
                .simple_query(sql)
                .await
                .map_err(|e| with_causes(&e))?;
            Ok(messages
                .into_iter()
                .filter_map(|m| match m {
                    tokio_postgres::SimpleQueryMessage::Row(row) => {
                        Some(row.get(0).unwrap_or("").to_string())
                    }
                    _ => None,
                })
                .collect())
        })
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Err(e) = self.scratch.drop_database() {
            let _ = writeln!(
                std::io::stderr(),
                "could not drop the test database {}: {e}",
                self.name
            );
        }
    }
}
