//! A scratch database on a PostgreSQL server: made under a name of its
//! own, given back as a URL, dropped on request. The tests' fresh
//! databases (`testdb`) and `caro-load --fresh-postgres` are made here.

use std::str::FromStr;
use std::time::Duration;

use super::postgres::with_causes;
use super::Database;

/// How long connecting may take before PostgreSQL counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A database made on a server, named `PREFIX_…`.
#[derive(Debug)]
pub struct ScratchDatabase {
    /// The URL of the new database, for `caro serve --database`.
    pub url: String,
    /// Its name.
    pub name: String,
    /// The server's own URL, the one the database was created through.
    admin: String,
}

impl ScratchDatabase {
    /// Creates `NAME` (a fresh database) through the server `admin` names.
    /// Blocks (a runtime of its own): call it outside async code.
    ///
    /// # Errors
    /// [`PgError::Unreachable`] when the server does not answer,
    /// [`PgError::Failed`] when it refuses.
    pub fn create(admin: &str, name: &str) -> Result<ScratchDatabase, PgError> {
        execute(admin, &format!("CREATE DATABASE {name}"))?;
        let Some(Database::Postgres(url)) =
            Database::Postgres(admin.to_string()).with_database_name(name)
        else {
            return Err(PgError::Failed(format!("{admin} is not a PostgreSQL URL")));
        };
        Ok(ScratchDatabase {
            url,
            name: name.to_string(),
            admin: admin.to_string(),
        })
    }

    /// Drops the database, closing the connections still open on it.
    /// Blocks.
    ///
    /// # Errors
    /// As [`ScratchDatabase::create`].
    pub fn drop_database(&self) -> Result<(), PgError> {
        execute(
            &self.admin,
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        )
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

/// Runs SQL on the database `url` names. Blocks.
///
/// # Errors
/// As [`ScratchDatabase::create`].
pub fn execute(url: &str, sql: &str) -> Result<(), PgError> {
    run(url, |client| async move {
        client.batch_execute(sql).await.map_err(|e| with_causes(&e))
    })
}

/// Connects to `url` (giving up after [`CONNECT_TIMEOUT`]) and runs `work`
/// with the client on a runtime of its own: [`PgError::Unreachable`] when
/// it cannot connect, [`PgError::Failed`] when `work` fails. Called within
/// a runtime (an async test), it runs on a thread of its own, where a
/// runtime may block.
pub(crate) fn run<T, F, Fut>(url: &str, work: F) -> Result<T, PgError>
where
    T: Send,
    F: FnOnce(tokio_postgres::Client) -> Fut + Send,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    if tokio::runtime::Handle::try_current().is_ok() {
        return std::thread::scope(|s| {
            s.spawn(|| run_here(url, work))
                .join()
                .unwrap_or_else(|_| Err(PgError::Failed("the connection's thread panicked".into())))
        });
    }
    run_here(url, work)
}

/// [`run`] on the calling thread, outside any runtime.
fn run_here<T, F, Fut>(url: &str, work: F) -> Result<T, PgError>
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
