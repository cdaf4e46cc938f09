//! A fresh PostgreSQL database for one run (`--fresh-postgres URL`), and
//! the URL helpers it needs.

use tokio_postgres::NoTls;

use crate::LoadError;

/// A database made for this run on a PostgreSQL server.
pub struct FreshDatabase {
    /// The server's URL the database was made through (its own database).
    admin: String,
    /// The database's name (`caro_load_<pid>_<random>`).
    pub name: String,
    /// The URL of the new database, for `caro serve --database`.
    pub url: String,
}

/// A PostgreSQL error with its cause (the server's message, or why the
/// connection failed).
fn described(e: &tokio_postgres::Error) -> String {
    match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

/// Connects to `url` and drives the connection on a task of its own.
async fn connect(url: &str) -> Result<tokio_postgres::Client, LoadError> {
    let (client, connection) = tokio_postgres::connect(url, NoTls)
        .await
        .map_err(|e| LoadError::Postgres(format!("{}: {}", redact(url), described(&e))))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

impl FreshDatabase {
    /// Creates `caro_load_<pid>_<random>` on the server `url` names.
    pub async fn create(url: &str) -> Result<FreshDatabase, LoadError> {
        let client = connect(url).await?;
        let name = format!(
            "caro_load_{}_{:08x}",
            std::process::id(),
            rand::random::<u32>()
        );
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .map_err(|e| {
                LoadError::Postgres(format!("CREATE DATABASE {name}: {}", described(&e)))
            })?;
        Ok(FreshDatabase {
            admin: url.to_string(),
            url: with_database(url, &name)?,
            name,
        })
    }

    /// Drops the database, closing any connection still open on it.
    pub async fn drop_database(self) -> Result<(), LoadError> {
        let client = connect(&self.admin).await?;
        client
            .batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ))
            .await
            .map_err(|e| {
                LoadError::Postgres(format!("DROP DATABASE {}: {}", self.name, described(&e)))
            })
    }
}

/// `url` with its database (the path after the host) replaced by `db`;
/// the query string, if any, is kept.
pub fn with_database(url: &str, db: &str) -> Result<String, LoadError> {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let start = base
        .find("://")
        .map(|i| i + 3)
        .ok_or_else(|| LoadError::Postgres(format!("not a postgres:// URL: {}", redact(url))))?;
    let rest = &base[start..];
    let host_end = rest.find('/').unwrap_or(rest.len());
    let mut out = format!("{}{}/{db}", &base[..start], &rest[..host_end]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    Ok(out)
}

/// `url` with its password, if any, shown as `***`.
pub fn redact(url: &str) -> String {
    let Some(start) = url.find("://").map(|i| i + 3) else {
        return url.to_string();
    };
    let rest = &url[start..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return url.to_string();
    };
    match rest[..at].find(':') {
        Some(colon) => format!("{}{}:***{}", &url[..start], &rest[..colon], &rest[at..]),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_replaced_query_kept() {
        assert_eq!(
            with_database("postgres://postgres@127.0.0.1:5432/test", "x").unwrap(),
            "postgres://postgres@127.0.0.1:5432/x"
        );
        assert_eq!(
            with_database("postgresql://u:p@h/test?sslmode=disable", "x").unwrap(),
            "postgresql://u:p@h/x?sslmode=disable"
        );
        assert_eq!(
            with_database("postgres://u@h:5433", "x").unwrap(),
            "postgres://u@h:5433/x"
        );
        assert!(with_database("not a url", "x").is_err());
    }

    #[test]
    fn password_hidden() {
        assert_eq!(
            redact("postgres://u:secret@h:5432/db?a=b"),
            "postgres://u:***@h:5432/db?a=b"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact("sqlite:/tmp/a@b:c"), "sqlite:/tmp/a@b:c");
    }
}
