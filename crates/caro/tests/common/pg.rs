//! A fresh PostgreSQL database for a test: created on the server named by
//! `CARO_TEST_POSTGRES` (default `postgres://postgres@127.0.0.1:5432/test`)
//! under a name of its own, dropped when the test ends. Without a server
//! that answers, the test is skipped and says so, unless
//! `CARO_REQUIRE_POSTGRES=1` (as `.ci/run` sets), where it fails.

use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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
pub fn server_url() -> String {
    std::env::var("CARO_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_URL.to_string())
}

/// Whether PostgreSQL tests must run (`CARO_REQUIRE_POSTGRES=1`).
pub fn required() -> bool {
    std::env::var("CARO_REQUIRE_POSTGRES").is_ok_and(|v| v == "1")
}

/// A fresh, empty database, or `None` (with a line on stderr saying the
/// test is skipped) when PostgreSQL does not answer. Panics instead with
/// `CARO_REQUIRE_POSTGRES=1`, and on any other failure.
pub fn fresh_database() -> Option<TestDb> {
    let admin = server_url();
    let name = format!(
        "caro_t_{}_{}_{:08x}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        random_u32()
    );
    match execute(&admin, &format!("CREATE DATABASE {name}")) {
        Ok(()) => {}
        Err(PgError::Unreachable(reason)) => {
            let shown = hide_password(&admin);
            if required() {
                panic!(
                    "PostgreSQL not reachable at {shown} ({reason}); CARO_REQUIRE_POSTGRES=1 needs it"
                );
            }
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
    Some(TestDb {
        url: with_database(&admin, &name),
        name,
        admin,
    })
}

impl TestDb {
    /// Runs one SQL statement (or several, separated by `;`) in this
    /// database.
    pub fn execute(&self, sql: &str) -> Result<(), PgError> {
        execute(&self.url, sql)
    }

    /// The first column of each row a query returns, as text (`NULL` as
    /// an empty string): a test's look at what is stored.
    pub fn column(&self, sql: &str) -> Result<Vec<String>, PgError> {
        run(&self.url, |client| async move {
            let messages = client.simple_query(sql).await.map_err(|e| error_text(&e))?;
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
            eprintln!("could not drop the test database {}: {e}", self.name);
        }
    }
}

/// Why a statement did not run.
#[derive(Debug)]
pub enum PgError {
    /// No connection: the server is down, the address or the login wrong.
    Unreachable(String),
    /// Connected, and the statement failed.
    Failed(String),
}

impl std::fmt::Display for PgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PgError::Unreachable(r) => write!(f, "not reachable: {r}"),
            PgError::Failed(r) => f.write_str(r),
        }
    }
}

/// `url` with its database name replaced by `name` (query kept).
pub fn with_database(url: &str, name: &str) -> String {
    let (head, query) = match url.split_once('?') {
        Some((h, q)) => (h, Some(q)),
        None => (url, None),
    };
    let scheme_end = head.find("://").map_or(0, |i| i + 3);
    let base = match head[scheme_end..].find('/') {
        Some(slash) => &head[..scheme_end + slash],
        None => head,
    };
    match query {
        Some(q) => format!("{base}/{name}?{q}"),
        None => format!("{base}/{name}"),
    }
}

/// `url` with any password replaced by `***`.
pub fn hide_password(url: &str) -> String {
    let scheme_end = url.find("://").map_or(0, |i| i + 3);
    let rest = &url[scheme_end..];
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    match authority.rfind('@') {
        Some(at) => match authority[..at].split_once(':') {
            Some((user, _)) => format!(
                "{}{user}:***{}",
                &url[..scheme_end],
                &url[scheme_end + at..]
            ),
            None => url.to_string(),
        },
        None => url.to_string(),
    }
}

fn execute(url: &str, sql: &str) -> Result<(), PgError> {
    run(url, |client| async move {
        client.batch_execute(sql).await.map_err(|e| error_text(&e))
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
    let config: tokio_postgres::Config = url
        .parse()
        .map_err(|e| PgError::Unreachable(format!("bad URL: {}", error_text(&e))))?;
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
                .map_err(|e| PgError::Unreachable(error_text(&e)))?;
        let driver = tokio::spawn(connection);
        let out = work(client).await.map_err(PgError::Failed);
        // The client is dropped by now: the connection ends by itself.
        let _ = driver.await;
        out
    })
}

/// An error with its causes (tokio-postgres puts the useful part in the
/// source: "connection refused", the server's message).
fn error_text(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let line = s.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = s.source();
    }
    text
}

fn random_u32() -> u32 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let mut x = nanos ^ std::process::id().rotate_left(16) ^ COUNTER.load(Ordering::Relaxed);
    // xorshift: spread the bits
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    x
}
