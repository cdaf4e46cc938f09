//! The `caro serve` processes a run plays against.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdout};

use crate::LoadError;

/// How to start one `caro serve`.
pub struct ServeSpec<'a> {
    /// The caro binary.
    pub caro: &'a Path,
    /// Its data folder.
    pub data: &'a Path,
    /// `--database URL`, if any.
    pub database: Option<&'a str>,
    /// `--instance NAME`, given only with a database.
    pub instance: Option<String>,
    /// More arguments, as given with `--serve-arg`.
    pub extra: &'a [String],
}

/// A running `caro serve` and the address it printed.
pub struct Server {
    pub child: Child,
    pub pid: u32,
    pub addr: String,
    /// Kept open so that the server never writes to a closed pipe.
    _stdout: BufReader<ChildStdout>,
}

/// Starts `caro serve` on a free loopback port and waits for its ready line.
pub async fn start(spec: &ServeSpec<'_>) -> Result<Server, LoadError> {
    let mut command = tokio::process::Command::new(spec.caro);
    command.args([
        "serve",
        "--port",
        "0",
        // Every client of the load runs from one address.
        "--max-online-per-client",
        "1000000000",
        "--max-connections-per-client",
        "1000000000",
        "--games-per-minute",
        "1000000000",
        "--online-games-per-hour",
        "1000000000",
        "--accounts-per-hour",
        "1000000000",
        "--logins-per-minute",
        "1000000000",
        "--data",
    ]);
    command.arg(spec.data);
    if let Some(db) = spec.database {
        command.arg("--database").arg(db);
    }
    if let Some(name) = &spec.instance {
        command.arg("--instance").arg(name);
    }
    command.args(spec.extra);
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| LoadError::Spawn(PathBuf::from(spec.caro), e))?;
    let pid = child.id().unwrap_or(0);
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| LoadError::NoAddress(String::new()))?;
    let mut reader = BufReader::new(stdout);
    let mut line = String::new();
    reader.read_line(&mut line).await?;
    let addr = ready_address(&line).ok_or_else(|| LoadError::NoAddress(line.clone()))?;
    Ok(Server {
        child,
        pid,
        addr,
        _stdout: reader,
    })
}

/// The `host:port` of `caro is ready at http://HOST:PORT/ ...`.
fn ready_address(line: &str) -> Option<String> {
    let addr = line.split("http://").nth(1)?.split('/').next()?;
    (!addr.is_empty()).then(|| addr.to_string())
}

/// A memory figure of a process from `/proc/PID/status`: `VmRSS` (now) or
/// `VmHWM` (the peak so far).
pub fn memory_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_of_the_ready_line() {
        assert_eq!(
            ready_address(
                "caro is ready at http://127.0.0.1:41234/ (games saved in postgres://u@h/db)\n"
            )
            .as_deref(),
            Some("127.0.0.1:41234")
        );
        assert_eq!(ready_address("error: no database\n"), None);
    }

    #[test]
    fn own_memory_is_read() {
        assert!(memory_kib(std::process::id(), "VmRSS").is_some_and(|k| k > 0));
        assert!(memory_kib(std::process::id(), "NoSuchField").is_none());
    }
}
