//! Player names on the command line: every subcommand that takes a player
//! (`match`, `play`, `serve`) reads it here, so one name means the same
//! everywhere.

use std::sync::Arc;

use caro_engine::{PlayerSource, PlayerSpec};

use crate::UsageError;

/// The names a user may give, for error messages and help.
/// Reads a computer player's name: a built-in player.
///
/// # Errors
/// A [`UsageError`] naming what is wrong with the name.
pub fn parse_player(name: &str) -> Result<Arc<dyn PlayerSource>, UsageError> {
    let spec: PlayerSpec = name
        .parse()
        .map_err(|e: caro_engine::EngineError| UsageError(e.to_string()))?;
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
}
