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
use std::time::Duration;

use super::postgres::with_causes;
use super::Database;

/// Where the tests' databases are made unless `CARO_TEST_POSTGRES` says.
pub const DEFAULT_URL: &str = "postgres://postgres@127.0.0.1:5432/test";

/// How long connecting may take before PostgreSQL counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A database of its own for one test; dropped (`DROP DATABASE … WITH
/// (FORCE)`, closing the connections left open) with this value.
pub struct TestDb {
    /// The URL of the fresh database, for `caro serve --database`.
    pub url: String,
    /// Its name.
    pub name: String,
    /// The server's own URL, the one the database was created through.
    admin: String,
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
    match execute(&admin, &format!("CREATE DATABASE {name}")) {
        Ok(()) => {}
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
    }
    let Some(Database::Postgres(url)) = Database::Postgres(admin.clone()).with_database_name(&name)
    else {
        unreachable!("a PostgreSQL URL with another name is still one");
    };
    Some(TestDb { url, name, admin })
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
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        if let Err(e) = execute(&self.admin, &sql) {
            let _ = writeln!(
                std::io::stderr(),
                "could not drop the test database {}: {e}",
                self.name
            );
        }
    }
}

/// Why a statement did not run.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    /// No connection: the server is down, the address or the login wrong.
    #[error("not reachable: {0}")]
    Unreachable(String),
    /// Connected, and the statement failed.
    #[error("{0}")]
    Failed(String),
}

fn execute(url: &str, sql: &str) -> Result<(), PgError> {
    run(url, |client| async move {
        client.batch_execute(sql).await.map_err(|e| with_causes(&e))
    })
}

/// Connects to `url` (giving up after [`CONNECT_TIMEOUT`]) and runs `work`
/// with the client on a runtime of its own: [`PgError::Unreachable`] when
/// it cannot connect, [`PgError::Failed`] when `work` fails.
fn run<T, F, Fut>(url: &str, work: F) -> Result<T, PgError>
where
    F: FnOnce(tokio_postgres::Client) -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    let config = tokio_postgres::Config::from_str(url)
        .map_err(|e| PgError::Unreachable(format!("bad URL: {}", with_causes(&e))))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| PgError::Failed(format!("a runtime: {e}")))?;
    runtime.block_on(async move {
        let (client, connection) =
            tokio::time::timeout(CONNECT_TIMEOUT, config.connect(tokio_postgres::NoTls))
                .await
                .map_err(|_| {
                    PgError::Unreachable(format!("no answer in {} s", CONNECT_TIMEOUT.as_secs()))
                })?
                .map_err(|e| PgError::Unreachable(with_causes(&e)))?;
        let driver = tokio::spawn(connection);
        let out = work(client).await.map_err(PgError::Failed);
        // The client is dropped by now: the connection ends by itself.
        let _ = driver.await;
        out
    })
}
