//! `caro user`: an operator's hand on accounts (there is no mail server,
//! so a forgotten password is reset here).

use std::io::{self, BufRead};

use clap::{Args, Subcommand};

use caro_server::account;
use caro_server::store::{AccountRow, Database, Store};

use crate::UsageError;

/// What `caro user --help` ends with.
pub const EXAMPLES: &str = "\
Examples:
  caro user reset-password Lan                       # prints a new password
  echo 'a new password' | caro user reset-password Lan --password-stdin
  caro user disable Lan --database postgres://caro@db.example/caro
  caro user enable Lan";

/// Options of `caro user`.
#[derive(Args, Debug)]
pub struct UserArgs {
    #[command(subcommand)]
    command: UserCommand,
    /// The database: sqlite:PATH or postgres://USER@HOST/DB (default: the
    /// CARO_DATABASE variable, else the SQLite file in the default data
    /// folder, as caro serve).
    #[arg(long, value_name = "URL", global = true)]
    database: Option<String>,
}

#[derive(Subcommand, Debug)]
enum UserCommand {
    /// Set a new password (printed, or read from standard input) and end
    /// every session of the account.
    ResetPassword {
        /// The account's name (any case).
        name: String,
        /// Read the new password from the first line of standard input
        /// instead of making one up.
        #[arg(long)]
        password_stdin: bool,
    },
    /// Stop an account: no log-in, and its sessions end at once.
    Disable {
        /// The account's name (any case).
        name: String,
    },
    /// Let a disabled account log in again.
    Enable {
        /// The account's name (any case).
        name: String,
    },
}

/// Runs `caro user`.
///
/// # Errors
/// [`UsageError`] for a database that cannot be opened, an unknown name
/// or a password that is not accepted.
pub fn run(args: &UserArgs) -> Result<(), UsageError> {
    crate::db::on_runtime(run_async(args))
}

async fn run_async(args: &UserArgs) -> Result<(), UsageError> {
    let db = database(args.database.as_deref())?;
    if let Database::Sqlite(path) = &db {
        if !path.is_file() {
            return Err(UsageError(format!(
                "no database file at {}: give --database URL",
                path.display()
            )));
        }
    }
    let store = Store::open(&db, 1)
        .await
        .map_err(|e| UsageError(format!("{db}: {e}")))?;
    let failed = |e: caro_server::store::StoreError| UsageError(format!("{db}: {e}"));
    match &args.command {
        UserCommand::ResetPassword {
            name,
            password_stdin,
        } => {
            let account = find(&store, name).await.map_err(|e| e.in_db(&db))?;
            let (password, made_up) = if *password_stdin {
                let mut line = String::new();
                io::stdin()
                    .lock()
                    .read_line(&mut line)
                    .map_err(|e| UsageError(format!("reading the password: {e}")))?;
                (line.trim_end_matches(['\r', '\n']).to_string(), false)
            } else {
                (made_up_password()?, true)
            };
            account::check_password(&password).map_err(|e| UsageError(e.to_string()))?;
            let hash = account::hash_password(&password).map_err(UsageError)?;
            if !store
                .set_password(account.id, &hash)
                .await
                .map_err(failed)?
            {
                return Err(UsageError(format!("no account named {name}")));
            }
            if made_up {
                println!("{password}");
            }
            eprintln_safe(&format!(
                "{}'s password is reset; every session of the account ended",
                account.name
            ));
        }
        UserCommand::Disable { name } | UserCommand::Enable { name } => {
            let disable = matches!(args.command, UserCommand::Disable { .. });
            let account = find(&store, name).await.map_err(|e| e.in_db(&db))?;
            if !store
                .set_disabled(account.id, disable)
                .await
                .map_err(failed)?
            {
                return Err(UsageError(format!("no account named {name}")));
            }
            eprintln_safe(&if disable {
                format!("{} is disabled; its sessions ended", account.name)
            } else {
                format!("{} may log in again", account.name)
            });
        }
    }
    Ok(())
}

/// A line on standard error that never panics (a closed stderr).
fn eprintln_safe(line: &str) {
    use std::io::Write;
    let _ = writeln!(io::stderr(), "{line}");
}

/// Why an account was not found.
enum FindError {
    Unknown(String),
    Store(caro_server::store::StoreError),
}

impl FindError {
    fn in_db(self, db: &Database) -> UsageError {
        match self {
            FindError::Unknown(name) => UsageError(format!("no account named {name} in {db}")),
            FindError::Store(e) => UsageError(format!("{db}: {e}")),
        }
    }
}

async fn find(store: &Store, name: &str) -> Result<AccountRow, FindError> {
    let key = account::name_key(name).map_err(|_| FindError::Unknown(name.to_string()))?;
    match store.account_by_key(&key).await {
        Ok(Some(a)) if !a.deleted => Ok(a),
        Ok(_) => Err(FindError::Unknown(name.to_string())),
        Err(e) => Err(FindError::Store(e)),
    }
}

/// 16 letters and digits from the system's random source.
fn made_up_password() -> Result<String, UsageError> {
    const ALPHABET: &[u8] = b"abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let token = account::new_token().map_err(UsageError)?;
    // The token is 32 random bytes in hex: one letter from each of 16.
    Ok(token
        .as_bytes()
        .chunks(2)
        .take(16)
        .map(|pair| {
            let byte = std::str::from_utf8(pair)
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .unwrap_or(0);
            char::from(ALPHABET[usize::from(byte) % ALPHABET.len()])
        })
        .collect())
}

/// The database named, or caro serve's default.
fn database(url: Option<&str>) -> Result<Database, UsageError> {
    let url = url
        .map(str::to_string)
        .or_else(|| std::env::var("CARO_DATABASE").ok())
        .filter(|u| !u.trim().is_empty());
    match url {
        Some(u) => u
            .parse::<Database>()
            .map_err(|e| UsageError(format!("--database: {e}"))),
        None => Ok(Database::Sqlite(
            caro_server::default_data_dir().join("caro.sqlite3"),
        )),
    }
}
