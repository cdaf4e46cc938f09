//! `quintuple`: the computer player of the Gobang article ("js+canvas+less
//! to realize AI Gobang games", `computerDown` and `chessScore`),
//! reproduced from its published algorithm: the five-tuple scorecard.
//!
//! Every run of five consecutive points in one of the four directions is a
//! *quintuple* (572 of them on 15×15). Each quintuple gets a score from the
//! stones it holds, and adds that score to each of its five points. The
//! computer plays the empty point with the largest total. The scorecard
//! (`chessScore`), for the computer (the side to move) and the player:
//!
//! | quintuple holds | score |
//! |---|---|
//! | stones of both sides | 0 |
//! | nothing | 7 |
//! | 1, 2, 3, 4 own stones | 35, 800, 15000, 800000 |
//! | 1, 2, 3, 4 opponent stones | 15, 400, 1800, 100000 |
//!
//! ## Generalisation and fixes
//!
//! - **Any k.** Windows are `k` points long (a "k-tuple"), and the
//!   scorecard is aligned on the winning end: `k-1` own stones score
//!   800000, `k-2` 15000, `k-3` 800, fewer (at least one) 35; likewise
//!   100000, 1800, 400, 15 for the opponent. For k = 5 it is the article's
//!   table. On a rectangular board only the windows that fit are counted (a
//!   point in no window scores 0).
//! - **Vertical search** (article bug): its inner loop starts at
//!   `k = 0` instead of `k = j`, counting the stones of the whole column
//!   above the window too. Each window counts its own five points here.
//! - **A full window** (the article's "error" score -1) holds no empty
//!   point, so its score never matters; it scores 0 here.
//! - **Ties**: the article keeps the first maximum in its scan order; here
//!   the maximum-score points are collected and one is drawn with the
//!   player's seeded generator, so a match of many games is not one game
//!   repeated (on an empty 15×15 board 49 centre points tie).
//! - **Colours**: the article's computer is always white; here "own" is the
//!   side to move.
//! - **Legality**: only [`Game::legal_moves`] are candidates, so black never
//!   picks a renju forbidden point. The rule plays no other part, as in the
//!   article.

use caro_core::{Cell, Game, Pos};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::player::{Context, Decision, EngineError, Player};

/// The article's scorecard for the computer's own stones, by count 0..=4.
const OWN: [u64; 5] = [7, 35, 800, 15_000, 800_000];

/// The article's scorecard for the opponent's stones, by count 0..=4.
const OPPONENT: [u64; 5] = [7, 15, 400, 1_800, 100_000];

/// The Gobang article's five-cell-window scorecard.
pub struct QuintuplePlayer {
    rng: StdRng,
    score: Vec<u64>,
    best: Vec<Pos>,
}

impl QuintuplePlayer {
    /// A quintuple player; `seed` fixes its tie-breaks.
    #[must_use]
    pub fn new(seed: u64) -> QuintuplePlayer {
        QuintuplePlayer {
            rng: StdRng::seed_from_u64(seed),
            score: Vec::new(),
            best: Vec::new(),
        }
    }
}

/// `chessScore` for a window of `k` points holding `own` stones of the side
/// to move and `opp` of the other side.
fn window_score(k: u8, own: u8, opp: u8) -> u64 {
    let aligned = |n: u8| (n as i32 + 5 - k as i32).clamp(1, 4) as usize;
    match (own, opp) {
        (0, 0) => OWN[0],
        (_, 0) if own < k => OWN[aligned(own)],
        (0, _) if opp < k => OPPONENT[aligned(opp)],
        // Both sides (the article's 0), or a full window (its -1).
        _ => 0,
    }
}

/// Adds every window's score to its points: `score[y * width + x]`.
fn score_board(game: &Game, score: &mut Vec<u64>) {
    let board = game.board();
    let size = game.size();
    let (w, h) = (size.width as i32, size.height as i32);
    let k = game.rules().k;
    let own = Cell::stone(game.to_move());
    let opp = Cell::stone(game.to_move().opponent());
    score.clear();
    score.resize(size.area(), 0);
    let span = k as i32 - 1;
    for (dx, dy) in [(1, 0), (0, 1), (1, 1), (-1, 1)] {
        for y in 0..h {
            for x in 0..w {
                // The window from (x, y) to (x + span·dx, y + span·dy).
                let (ex, ey) = (x + span * dx, y + span * dy);
                if !(0..w).contains(&ex) || !(0..h).contains(&ey) {
                    continue;
                }
                let (mut n_own, mut n_opp) = (0, 0);
                for t in 0..=span {
                    let p = Pos::new((x + t * dx) as u8, (y + t * dy) as u8);
                    let c = board.cell(board.index(p));
                    n_own += u8::from(c == own);
                    n_opp += u8::from(c == opp);
                }
                let s = window_score(k, n_own, n_opp);
                for t in 0..=span {
                    score[((y + t * dy) * w + x + t * dx) as usize] += s;
                }
            }
        }
    }
}

impl Player for QuintuplePlayer {
    fn name(&self) -> String {
        "quintuple".to_string()
    }

    fn choose(&mut self, game: &Game, _ctx: &mut Context<'_>) -> Result<Decision, EngineError> {
        let moves = game.legal_moves();
        if moves.is_empty() {
            return Err(EngineError::GameOver);
        }
        score_board(game, &mut self.score);
        let width = game.size().width as usize;
        let mut max = 0;
        self.best.clear();
        for &p in &moves {
            let s = self.score[p.y as usize * width + p.x as usize];
            if s > max || self.best.is_empty() {
                max = s;
                self.best.clear();
            }
            if s == max {
                self.best.push(p);
            }
        }
        let best = self.best[self.rng.random_range(0..self.best.len())];
        Ok(Decision { best, info: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{decide, position};

    crate::testing::legality_tests!(QuintuplePlayer::new);

    use crate::random::RandomPlayer;
    use caro_core::{BoardSize, Color, Rule, Rules};

    #[test]
    fn scorecard_is_the_articles_for_five() {
        assert_eq!(window_score(5, 1, 1), 0);
        assert_eq!(window_score(5, 0, 0), 7);
        let own: Vec<u64> = (1..5).map(|n| window_score(5, n, 0)).collect();
        assert_eq!(own, [35, 800, 15_000, 800_000]);
        let opp: Vec<u64> = (1..5).map(|n| window_score(5, 0, n)).collect();
        assert_eq!(opp, [15, 400, 1_800, 100_000]);
        assert_eq!(window_score(3, 2, 0), 800_000);
        assert_eq!(window_score(3, 0, 1), 1_800);
        assert_eq!(window_score(8, 1, 0), 35);
    }

    #[test]
    fn counts_572_quintuples_on_15x15() {
        // On an empty board every window scores 7, so the sum over points is
        // 7 · 5 · (number of windows).
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let game = Game::new(rules, Color::Black).unwrap();
        let mut score = Vec::new();
        score_board(&game, &mut score);
        assert_eq!(score.iter().sum::<u64>(), 7 * 5 * 572);
        // The centre lies in 20 windows, a corner in 3.
        assert_eq!(score[7 * 15 + 7], 7 * 20);
        assert_eq!(score[0], 7 * 3);
    }

    #[test]
    fn takes_a_win() {
        let game = position(
            &[
                "..........",
                "..........",
                "..XXXX....",
                "..........",
                "...OOOO...",
                "..........",
            ],
            5,
            Rule::Freestyle,
            Color::White,
        );
        for seed in 0..10 {
            let p = decide(&mut QuintuplePlayer::new(seed), &game);
            assert!(p == Pos::new(2, 4) || p == Pos::new(7, 4), "{p:?}");
        }
    }

    #[test]
    fn blocks_a_win() {
        let game = position(
            &[
                "..........",
                "..........",
                "..XX.XX...",
                "..........",
                "....O.....",
                "...O......",
            ],
            5,
            Rule::Freestyle,
            Color::White,
        );
        for seed in 0..10 {
            assert_eq!(
                decide(&mut QuintuplePlayer::new(seed), &game),
                Pos::new(4, 2)
            );
        }
    }

    #[test]
    fn blocks_a_three_in_tic_tac_toe() {
        // X X on the top row: with k = 3 the window of two X (the aligned
        // "four", 100000) outweighs O's own chances.
        let game = position(&["XX.", ".O.", "..."], 3, Rule::Freestyle, Color::White);
        assert_eq!(decide(&mut QuintuplePlayer::new(0), &game), Pos::new(2, 0));
    }

    #[test]
    fn renju_black_never_plays_a_forbidden_point() {
        // Quintuple vs quintuple under renju: black's scorecard often likes
        // forbidden points; every choice must still be legal.
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
        let mut tempted = 0;
        let mut score = Vec::new();
        for seed in 0..8 {
            let mut game = Game::new(rules, Color::Black).unwrap();
            let mut a = QuintuplePlayer::new(seed);
            let mut b = QuintuplePlayer::new(seed + 7);
            while !game.is_over() {
                let p = if game.to_move() == Color::Black {
                    // Would the article's scan over all empty points have
                    // picked a forbidden point?
                    score_board(&game, &mut score);
                    let at = |p: Pos| score[p.y as usize * 15 + p.x as usize];
                    let max = game.board().empty_points().map(at).max().unwrap();
                    let fouls = game.forbidden_points();
                    tempted += usize::from(fouls.iter().any(|&(f, _)| at(f) == max));
                    decide(&mut a, &game)
                } else {
                    decide(&mut b, &game)
                };
                game.try_play(p).unwrap();
            }
        }
        assert!(tempted > 0, "no forbidden point was ever the best");
    }

    #[test]
    fn deterministic_for_a_seed() {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let play = |seed: u64| {
            let mut game = Game::new(rules, Color::Black).unwrap();
            let mut a = QuintuplePlayer::new(seed);
            let mut b = RandomPlayer::new(seed);
            while !game.is_over() && game.moves().len() < 60 {
                let p = if game.moves().len() % 2 == 0 {
                    decide(&mut a, &game)
                } else {
                    decide(&mut b, &game)
                };
                game.play(p);
            }
            game.moves().to_vec()
        };
        assert_eq!(play(4), play(4));
        assert_ne!(play(4), play(5));
    }
}
