//! Player names on the command line: every subcommand that takes a player
//! (`match`, `play`, `serve`) reads it here, so one name means the same
//! everywhere.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use caro_engine::{PlayerSource, PlayerSpec};
use caro_gomocup::pbrain::PbrainSpec;

use crate::UsageError;

/// Reads a computer player's name: a built-in player (`random`,
/// `scoremap`, `quintuple`, `minimax:N`, `caro:N`) or an external Gomocup
/// engine (`pbrain:PATH`).
///
/// # Errors
/// A [`UsageError`] naming what is wrong with the name.
pub fn parse_player(name: &str) -> Result<Arc<dyn PlayerSource>, UsageError> {
    parse_player_with(name, &EngineOptions::default())
}

/// How external engines are run.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// Keep each engine process's dialogue in a file in this folder.
    pub log_dir: Option<PathBuf>,
    /// Grace past the time limit before an engine's move is late.
    pub tolerance: Duration,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            log_dir: None,
            tolerance: Duration::from_millis(100),
        }
    }
}

/// As [`parse_player`], with options for external engines.
///
/// # Errors
/// A [`UsageError`] naming what is wrong with the name.
pub fn parse_player_with(
    name: &str,
    options: &EngineOptions,
) -> Result<Arc<dyn PlayerSource>, UsageError> {
    let trimmed = name.trim();
    if let Some(path) = trimmed
        .strip_prefix("pbrain:")
        .or_else(|| trimmed.strip_prefix("PBRAIN:"))
    {
        let path = PathBuf::from(path);
        if path.as_os_str().is_empty() {
            return Err(UsageError(
                "pbrain: needs the engine's path, as in pbrain:/path/to/pbrain-x".to_string(),
            ));
        }
        if !path.is_file() {
            return Err(UsageError(format!(
                "pbrain engine {} is not a file",
                path.display()
            )));
        }
        let mut spec = PbrainSpec::new(path, options.log_dir.clone());
        spec.tolerance = options.tolerance;
        return Ok(Arc::new(spec));
    }
    let spec: PlayerSpec = name.parse().map_err(|e: caro_engine::EngineError| {
        UsageError(format!("{e} (or pbrain:PATH for a Gomocup engine)"))
    })?;
    Ok(Arc::new(spec))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_names_parse() {
        assert_eq!(parse_player("caro:3").unwrap().name(), "caro:3");
        assert!(parse_player("nobody").is_err());
    }

    #[test]
    fn pbrain_needs_an_existing_file() {
        let err = parse_player("pbrain:/no/such/engine").err().unwrap();
        assert!(err.0.contains("not a file"), "{err}");
        assert!(parse_player("pbrain:").is_err());
    }
}
