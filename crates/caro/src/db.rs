//! `caro db`: the games database's migrations, and copying an SQLite file
//! into PostgreSQL.

use clap::{Args, Subcommand};

use caro_server::store::{Database, Store};

use crate::UsageError;

/// What `caro db --help` ends with.
pub const EXAMPLES: &str = "\
Examples:
  caro db upgrade --database sqlite:/var/lib/caro/caro.sqlite3
  caro db upgrade --database postgres://caro@db.example/caro
  caro db migrate --from sqlite:$HOME/.local/share/caro/caro.sqlite3 --to postgres://caro@db.example/caro";

/// Options of `caro db`.
#[derive(Args, Debug)]
pub struct DbArgs {
    #[command(subcommand)]
    command: DbCommand,
}

#[derive(Subcommand, Debug)]
enum DbCommand {
    /// Apply the pending migrations to a database and print its schema
    /// version (caro serve does the same when it starts).
    Upgrade(UpgradeArgs),
    /// Copy every game, match and review, and every account, session,
    /// seek and rating, with their ids, into an empty database (SQLite to
    /// PostgreSQL, or any other pair), then check the copy.
    Migrate(MigrateArgs),
}

#[derive(Args, Debug)]
struct UpgradeArgs {
    /// The database: sqlite:PATH or postgres://USER@HOST/DB (default: the
    /// CARO_DATABASE variable).
    #[arg(long, value_name = "URL")]
    database: Option<String>,
}

#[derive(Args, Debug)]
struct MigrateArgs {
    /// The database to copy from: sqlite:PATH or postgres://USER@HOST/DB.
    #[arg(long, value_name = "URL")]
    from: String,
    /// The database to copy into; it must hold no games, matches or
    /// reviews (its tables are made if missing).
    #[arg(long, value_name = "URL")]
    to: String,
}

/// Parses a database URL, naming the option it came from.
fn parse(option: &str, url: &str) -> Result<Database, UsageError> {
    url.parse::<Database>()
        .map_err(|e| UsageError(format!("{option}: {e}")))
}

/// Opens a database that must exist already (an SQLite file is not made
/// up when its path is mistyped).
async fn open_existing(option: &str, db: &Database) -> Result<Store, UsageError> {
    if let Database::Sqlite(path) = db {
        if !path.is_file() {
            return Err(UsageError(format!(
                "{option}: no database file at {}",
                path.display()
            )));
        }
    }
    Store::open(db, 2)
        .await
        .map_err(|e| UsageError(format!("{option} {db}: {e}")))
}

/// Runs `caro db`.
///
/// # Errors
/// [`UsageError`] with what failed: a bad URL, a database that cannot be
/// opened or migrated, a target that has rows, or a copy that does not
/// check.
pub fn run(args: &DbArgs) -> Result<(), UsageError> {
    on_runtime(async {
        match &args.command {
            DbCommand::Upgrade(a) => upgrade(a).await,
            DbCommand::Migrate(a) => migrate(a).await,
        }
    })
}

/// Runs a command's work on a small runtime of its own
/// ([`caro_server::store::block_on`]): the store is async, its PostgreSQL
/// connections driven by the runtime it is opened on.
///
/// # Errors
/// [`UsageError`] when the runtime cannot start, or `work`'s.
pub(crate) fn on_runtime<T>(
    work: impl std::future::Future<Output = Result<T, UsageError>>,
) -> Result<T, UsageError> {
    caro_server::store::block_on(work).map_err(|e| UsageError(e.to_string()))?
}

async fn upgrade(args: &UpgradeArgs) -> Result<(), UsageError> {
    let url = args
        .database
        .clone()
        .or_else(|| std::env::var("CARO_DATABASE").ok())
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| UsageError("give the database: --database URL (or CARO_DATABASE)".into()))?;
    let db = parse("--database", &url)?;
    let store = Store::open(&db, 1)
        .await
        .map_err(|e| UsageError(format!("{db}: {e}")))?;
    let version = store
        .schema_version()
        .await
        .map_err(|e| UsageError(format!("{db}: {e}")))?;
    println!("{db}: schema version {version}");
    Ok(())
}

async fn migrate(args: &MigrateArgs) -> Result<(), UsageError> {
    let from = parse("--from", &args.from)?;
    let to = parse("--to", &args.to)?;
    if from == to {
        return Err(UsageError(format!(
            "--from and --to name the same database ({from})"
        )));
    }
    let source = open_existing("--from", &from).await?;
    let target = Store::open(&to, 2)
        .await
        .map_err(|e| UsageError(format!("--to {to}: {e}")))?;
    let failed = |what: &str, e: caro_server::store::StoreError| UsageError(format!("{what}: {e}"));
    let have = target
        .counts()
        .await
        .map_err(|e| failed(&format!("--to {to}"), e))?;
    if have != (0, 0, 0) {
        return Err(UsageError(format!(
            "--to {to} is not empty ({} games, {} matches, {} analyses): copy into an empty database",
            have.0, have.1, have.2
        )));
    }
    let read = |e| failed(&format!("reading {from}"), e);
    let games = source.all_games().await.map_err(read)?;
    let matches = source.all_matches().await.map_err(read)?;
    let analyses = source.all_analyses().await.map_err(read)?;
    target
        .import(&games, &matches, &analyses)
        .await
        .map_err(|e| failed(&format!("copying into {to}"), e))?;
    // The check: the target reads back what was read from the source.
    let counts = (games.len(), matches.len(), analyses.len());
    let check = |e| failed(&format!("checking {to}"), e);
    let copied = target.counts().await.map_err(check)?;
    if copied != counts {
        return Err(UsageError(format!(
            "the copy in {to} does not check: {} games, {} matches, {} analyses instead of {}, {}, {}",
            copied.0, copied.1, copied.2, counts.0, counts.1, counts.2
        )));
    }
    if target.all_games().await.map_err(check)? != games
        || target.all_matches().await.map_err(check)? != matches
        || target.all_analyses().await.map_err(check)? != analyses
    {
        return Err(UsageError(format!(
            "the copy in {to} does not check: its rows differ from {from}'s"
        )));
    }
    let people = source
        .copy_people_to(&target)
        .await
        .map_err(|e| failed(&format!("copying accounts and ratings into {to}"), e))?;
    let people: Vec<String> = people
        .iter()
        .map(|(table, n)| format!("{n} {}", table.replace('_', " ")))
        .collect();
    println!(
        "copied {} games, {} matches, {} analyses, {} from {from} to {to} (checked: the same rows)",
        counts.0,
        counts.1,
        counts.2,
        people.join(", ")
    );
    Ok(())
}
