//! Self-play for training data: caro at full strength plays itself at a
//! fixed node count from a given opening and a few random moves, and
//! every position it searched becomes a [`Sample`] labelled with the
//! search's score and best move and the game's result.
//!
//! A game ends at a five, a full board, or as soon as the search proves
//! a forced win for the side to move (that position is kept, labelled a
//! win): proven endings only take time and teach an evaluation nothing.

use caro_core::{Cell, Color, Game, Outcome, Pos, SetupError};
use rand::Rng;

use crate::dataset::{stored_score, GameResult, Sample, EVAL_LIMIT};
use crate::player::{Context, EngineError, Limits, Player, Score, StopFlag};
use crate::search::CaroPlayer;

/// How a self-play game is played.
#[derive(Clone, Copy, Debug)]
pub struct SelfplaySettings {
    /// Nodes of each move's search (single thread, so a game is the same
    /// whenever it is played with the same seed).
    pub nodes: u64,
    /// Random moves played after the opening, each next to a stone, none
    /// ending the game.
    pub random_plies: usize,
}

/// What stops a self-play game.
#[derive(Debug, thiserror::Error)]
pub enum SelfplayError {
    /// The opening is not a legal start of a game under the rules.
    #[error("the opening is not playable: {0}")]
    Opening(#[from] SetupError),
    /// The opening already ends the game.
    #[error("the opening already ends the game")]
    OpeningEndsGame,
    /// The engine failed.
    #[error("the engine failed: {0}")]
    Engine(#[from] EngineError),
    /// The engine chose a move the rules refuse.
    #[error("the engine chose an illegal move {0:?}: {1}")]
    IllegalMove(Pos, caro_core::MoveError),
}

/// A played game: its positions, labelled, and how it ended.
#[derive(Debug)]
pub struct SelfplayGame {
    /// Every position the search played a move in (after the opening and
    /// the random moves), in order.
    pub samples: Vec<Sample>,
    /// The winner, `None` for a draw.
    pub winner: Option<Color>,
    /// Moves of the game, the opening and the random moves included.
    pub moves: Vec<Pos>,
}

/// Plays one game of `player` against itself from `game` (an opening),
/// after `settings.random_plies` random moves drawn from `rng`.
///
/// # Errors
/// [`SelfplayError`] for an opening that is not playable or ends the
/// game, or an engine failure.
pub fn play_game(
    game: &Game,
    player: &mut CaroPlayer,
    settings: SelfplaySettings,
    rng: &mut impl Rng,
) -> Result<SelfplayGame, SelfplayError> {
    let mut game = game.clone();
    if game.is_over() {
        return Err(SelfplayError::OpeningEndsGame);
    }
    for _ in 0..settings.random_plies {
        let Some(p) = random_quiet_move(&game, rng) else {
            break;
        };
        game.play(p);
    }
    player.clear_hash();
    let mut samples = Vec::new();
    let mut winner = None;
    while !game.is_over() {
        let limits = Limits {
            nodes: Some(settings.nodes),
            threads: Some(1),
            ..Limits::default()
        };
        let mut progress = |_: &crate::SearchInfo| {};
        let mut ctx = Context::new(limits, StopFlag::new(), &mut progress);
        let decision = player.choose(&game, &mut ctx)?;
        let score = decision.info.as_ref().map_or(Score::Eval(0), |i| i.score);
        let stored = stored_score(score);
        samples.push(Sample::of_game(
            &game,
            stored,
            decision.best,
            GameResult::Draw,
        ));
        if stored.abs() > EVAL_LIMIT {
            // A proven result: the side to move wins, or loses.
            winner = Some(if stored > 0 {
                game.to_move()
            } else {
                game.to_move().opponent()
            });
            break;
        }
        game.try_play(decision.best)
            .map_err(|e| SelfplayError::IllegalMove(decision.best, e))?;
    }
    if let Some(Outcome::Five { winner: w, .. } | Outcome::Resigned { winner: w, .. }) =
        game.outcome()
    {
        winner = Some(*w);
    }
    for s in &mut samples {
        s.result = GameResult::for_side(winner, s.to_move);
    }
    Ok(SelfplayGame {
        samples,
        winner,
        moves: game.moves().to_vec(),
    })
}

/// A random legal move next to a stone (8-neighbourhood) that does not
/// end the game, or `None` when there is none.
fn random_quiet_move(game: &Game, rng: &mut impl Rng) -> Option<Pos> {
    let board = game.board();
    let size = game.size();
    let near_stone = |p: Pos| {
        (-1i32..=1).any(|dy| {
            (-1i32..=1).any(|dx| {
                let (x, y) = (i32::from(p.x) + dx, i32::from(p.y) + dy);
                x >= 0
                    && y >= 0
                    && x < i32::from(size.width)
                    && y < i32::from(size.height)
                    && matches!(
                        board.cell(board.index(Pos::new(x as u8, y as u8))),
                        Cell::Black | Cell::White
                    )
            })
        })
    };
    let mut candidates: Vec<Pos> = game
        .legal_moves()
        .into_iter()
        .filter(|&p| near_stone(p))
        .collect();
    while !candidates.is_empty() {
        let p = candidates.swap_remove(rng.random_range(0..candidates.len()));
        let mut trial = game.clone();
        if trial.try_play(p).is_ok() && !trial.is_over() {
            return Some(p);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use caro_core::{BoardSize, Rule, Rules};
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    fn play(rule: Rule, size: u8, seed: u64) -> SelfplayGame {
        let rules = Rules::new(BoardSize::square(size), 5, rule).unwrap();
        let mut game = Game::new(rules, Color::Black).unwrap();
        game.play(rules.size.center());
        let mut player = CaroPlayer::new(10, seed);
        player.set_hash_mb(1);
        let settings = SelfplaySettings {
            nodes: 400,
            random_plies: 3,
        };
        play_game(
            &game,
            &mut player,
            settings,
            &mut StdRng::seed_from_u64(seed),
        )
        .unwrap()
    }

    #[test]
    fn every_position_is_labelled_from_its_own_side() {
        for (rule, size) in [(Rule::Freestyle, 15), (Rule::Renju, 15), (Rule::Caro, 20)] {
            let g = play(rule, size, 3);
            assert!(!g.samples.is_empty(), "{rule}");
            // The opening's stone and the three random moves come first.
            assert_eq!(g.samples[0].ply, 4, "{rule}");
            for (n, s) in g.samples.iter().enumerate() {
                assert_eq!(
                    usize::from(s.ply),
                    4 + n,
                    "{rule}: positions follow the game"
                );
                let expected = GameResult::for_side(g.winner, s.to_move);
                assert_eq!(s.result, expected, "{rule}");
                let position = s.to_game().unwrap();
                assert!(position.check(s.best).is_ok(), "{rule}: best move is legal");
                assert_eq!(position.board().stone_count(), usize::from(s.ply));
            }
            // A decided game's last position is a five or a proven result.
            if g.winner.is_some() {
                let last = g.samples.last().unwrap();
                assert!(
                    last.score.abs() > EVAL_LIMIT || last.result == GameResult::Win,
                    "{rule}"
                );
            }
        }
    }

    #[test]
    fn the_same_seed_plays_the_same_game() {
        let a = play(Rule::Freestyle, 15, 11);
        let b = play(Rule::Freestyle, 15, 11);
        assert_eq!(a.moves, b.moves);
        assert_eq!(a.samples, b.samples);
    }

    #[test]
    fn an_opening_that_ends_the_game_is_refused() {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let moves: Vec<Pos> = (0..9)
            .map(|n| {
                if n % 2 == 0 {
                    Pos::new(n / 2, 0)
                } else {
                    Pos::new(n / 2, 5)
                }
            })
            .collect();
        let game = Game::from_moves(rules, Color::Black, &moves).unwrap();
        let mut player = CaroPlayer::new(10, 1);
        let settings = SelfplaySettings {
            nodes: 100,
            random_plies: 0,
        };
        let e = play_game(&game, &mut player, settings, &mut StdRng::seed_from_u64(1));
        assert!(matches!(e, Err(SelfplayError::OpeningEndsGame)));
    }
}
