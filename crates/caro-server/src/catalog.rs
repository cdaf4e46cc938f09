//! The players a game may seat.

use std::sync::Arc;

use caro_engine::{EngineError, PlayerSource, PlayerSpec};
use serde::Serialize;

/// The players a game may seat: built-in players by name, and the engines
/// configured when the server started (a request can never name a program
/// to run).
pub struct Catalog {
    engines: Vec<Arc<dyn PlayerSource>>,
}

/// A player the home page offers.
#[derive(Clone, Debug, Serialize)]
pub struct PlayerInfo {
    /// The name to send back.
    pub name: String,
    /// `builtin` or `engine`.
    pub kind: &'static str,
}

impl Catalog {
    /// The built-in players and these engines.
    #[must_use]
    pub fn new(engines: Vec<Arc<dyn PlayerSource>>) -> Catalog {
        Catalog { engines }
    }

    /// The player of this name, with its canonical name.
    ///
    /// # Errors
    /// A sentence naming the players that exist.
    pub fn resolve(&self, name: &str) -> Result<(String, Arc<dyn PlayerSource>), String> {
        if let Some(engine) = self.engines.iter().find(|e| e.name() == name) {
            return Ok((engine.name(), Arc::clone(engine)));
        }
        match name.parse::<PlayerSpec>() {
            Ok(spec) => Ok((spec.to_string(), Arc::new(spec))),
            Err(EngineError::UnknownPlayer(_)) if name.contains(':') && name.starts_with("pbrain") => {
                Err(format!(
                    "unknown engine {name:?}: engines are configured when the server starts (caro serve --engine pbrain:PATH)"
                ))
            }
            Err(e) => Err(e.to_string()),
        }
    }

    /// Every player the page may offer.
    #[must_use]
    pub fn list(&self) -> Vec<PlayerInfo> {
        let mut out: Vec<PlayerInfo> = ["random", "scoremap", "quintuple"]
            .iter()
            .map(|n| n.to_string())
            .chain((0..=4).map(|n| format!("minimax:{n}")))
            .chain((1..=10).map(|n| format!("caro:{n}")))
            .map(|name| PlayerInfo {
                name,
                kind: "builtin",
            })
            .collect();
        out.extend(self.engines.iter().map(|e| PlayerInfo {
            name: e.name(),
            kind: "engine",
        }));
        out
    }
}
