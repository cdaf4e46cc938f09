//! Playing players against each other: one refereed game, and the
//! statistics of a series (score, Elo difference and its error).

use std::time::Instant;

use caro_core::{Color, Game, Outcome, Pos, Rules};

use crate::player::{Context, Limits, Player, SearchInfo, StopFlag};

/// How a refereed game ended, seen by the referee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The rules ended it (five, full board, renju foul).
    Rules(Outcome),
    /// A player gave up a move the referee refused (occupied, off the
    /// board) or could not move; that player lost.
    IllegalMove {
        /// Who made it.
        loser: Color,
        /// What was wrong.
        reason: String,
    },
    /// A player was over its time for a move; that player lost.
    Timeout {
        /// Who was late.
        loser: Color,
        /// How long the move took, in milliseconds.
        took_ms: u64,
    },
}

impl Ending {
    /// The winning colour, or `None` for a draw.
    #[must_use]
    pub fn winner(&self) -> Option<Color> {
        match self {
            Ending::Rules(o) => o.winner(),
            Ending::IllegalMove { loser, .. } | Ending::Timeout { loser, .. } => {
                Some(loser.opponent())
            }
        }
    }

    /// A short description: "black wins by five", "draw"…
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Ending::Rules(Outcome::Five { winner, .. }) => format!("{winner} wins by five"),
            Ending::Rules(Outcome::Draw) => "draw (board full)".to_string(),
            Ending::Rules(Outcome::Resigned { winner }) => format!("{winner} wins by resignation"),
            Ending::Rules(Outcome::Foul { foul, .. }) => {
                format!("white wins: black played a {foul}")
            }
            Ending::IllegalMove { loser, reason } => {
                format!(
                    "{} wins: {loser} made an illegal move ({reason})",
                    loser.opponent()
                )
            }
            Ending::Timeout { loser, took_ms } => {
                format!(
                    "{} wins: {loser} lost on time ({took_ms} ms)",
                    loser.opponent()
                )
            }
        }
    }
}

/// Settings of a refereed game.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// Board, k and rule.
    pub rules: Rules,
    /// Moves played before the players take over (an opening).
    pub opening: Vec<Pos>,
    /// Limits for every move.
    pub limits: Limits,
    /// A move taking longer than this loses (`None`: no time forfeits).
    pub forfeit_after: Option<std::time::Duration>,
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    /// The game as played.
    pub game: Game,
    /// How it ended.
    pub ending: Ending,
    /// Thinking time of each move after the opening, in milliseconds.
    pub times_ms: Vec<u32>,
}

/// Plays one game between `black` and `white` and referees it.
///
/// # Errors
/// Only when the opening itself is illegal for these rules.
pub fn play_game(
    black: &mut dyn Player,
    white: &mut dyn Player,
    settings: &GameSettings,
) -> Result<PlayedGame, caro_core::SetupError> {
    let mut game = Game::from_moves(settings.rules, Color::Black, &settings.opening)?;
    black.new_game();
    white.new_game();
    let mut times_ms = vec![0; game.moves().len()];
    loop {
        if let Some(o) = game.outcome() {
            return Ok(PlayedGame {
                ending: Ending::Rules(*o),
                game,
                times_ms,
            });
        }
        let side = game.to_move();
        let player: &mut dyn Player = match side {
            Color::Black => black,
            Color::White => white,
        };
        let started = Instant::now();
        let mut sink = |_: &SearchInfo| {};
        let mut ctx = Context::new(settings.limits, StopFlag::new(), &mut sink);
        let choice = player.choose(&game, &mut ctx);
        let took = started.elapsed();
        times_ms.push(took.as_millis().min(u32::MAX as u128) as u32);
        if let Some(limit) = settings.forfeit_after {
            if took > limit {
                return Ok(PlayedGame {
                    ending: Ending::Timeout {
                        loser: side,
                        took_ms: took.as_millis() as u64,
                    },
                    game,
                    times_ms,
                });
            }
        }
        let result = match choice {
            Ok(d) => game.play_refereed(d.best).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if let Err(reason) = result {
            return Ok(PlayedGame {
                ending: Ending::IllegalMove {
                    loser: side,
                    reason,
                },
                game,
                times_ms,
            });
        }
    }
}

/// Wins, losses and draws of player A over a series, and what follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games A won.
    pub wins: u32,
    /// Games A lost.
    pub losses: u32,
    /// Drawn games.
    pub draws: u32,
}

impl Tally {
    /// Games counted.
    #[must_use]
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// A's score, 0..=1 (a draw is half a point).
    #[must_use]
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (self.wins as f64 + self.draws as f64 / 2.0) / n as f64
    }

    /// Elo difference of A over B and the half-width of its 95% interval.
    /// A score of 0 or 1 is taken as half a game short of it, so the
    /// figures stay finite (the usual convention of match tools).
    #[must_use]
    pub fn elo(&self) -> (f64, f64) {
        let n = self.games() as f64;
        if n == 0.0 {
            return (0.0, 0.0);
        }
        let clamp = |p: f64| p.clamp(0.5 / n, 1.0 - 0.5 / n);
        let p = clamp(self.score());
        let var = (self.wins as f64 * (1.0 - p).powi(2)
            + self.losses as f64 * p.powi(2)
            + self.draws as f64 * (0.5 - p).powi(2))
            / n;
        let se = (var / n).sqrt();
        let lo = clamp(p - 1.96 * se);
        let hi = clamp(p + 1.96 * se);
        (elo_of(p), (elo_of(hi) - elo_of(lo)) / 2.0)
    }
}

/// Elo difference for an expected score `p` in (0, 1).
#[must_use]
pub fn elo_of(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::PlayerSpec;
    use caro_core::{BoardSize, Rule};

    #[test]
    fn elo_is_symmetric_and_zero_at_half() {
        let even = Tally {
            wins: 10,
            losses: 10,
            draws: 5,
        };
        assert!(even.elo().0.abs() < 1e-9);
        let t = Tally {
            wins: 75,
            losses: 25,
            draws: 0,
        };
        let (e, err) = t.elo();
        assert!((e - 190.8).abs() < 1.0, "{e}");
        assert!(err > 0.0 && err < 100.0);
        let sweep = Tally {
            wins: 200,
            losses: 0,
            draws: 0,
        };
        assert!(sweep.elo().0.is_finite());
    }

    #[test]
    fn a_game_is_played_to_its_end() {
        let rules = Rules::new(BoardSize::square(3), 3, Rule::Freestyle).unwrap();
        let mut a = PlayerSpec::Random.build(1);
        let mut b = PlayerSpec::Random.build(2);
        let settings = GameSettings {
            rules,
            opening: Vec::new(),
            limits: Limits::default(),
            forfeit_after: None,
        };
        let g = play_game(a.as_mut(), b.as_mut(), &settings).unwrap();
        assert!(g.game.is_over());
        assert_eq!(g.times_ms.len(), g.game.moves().len());
    }
}
