//! `random`: a uniformly random legal move (the tic-tac-toe article's
//! strength 0 plays like this).

use caro_core::Game;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::player::{Context, Decision, EngineError, Player};

/// Plays a uniformly random legal move (never a renju forbidden point).
pub struct RandomPlayer {
    rng: StdRng,
}

impl RandomPlayer {
    /// A random player with a reproducible sequence.
    #[must_use]
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: StdRng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn choose(&mut self, game: &Game, _ctx: &mut Context<'_>) -> Result<Decision, EngineError> {
        let moves = game.legal_moves();
        if moves.is_empty() {
            return Err(EngineError::GameOver);
        }
        let best = moves[self.rng.random_range(0..moves.len())];
        Ok(Decision { best, info: None })
    }
}
