//! `scoremap`: the computer player of the Caro article ("Caro game -
//! Developing game modes for Humans and Computers with JavaScript",
//! `getPointsComputer`), reproduced from its published algorithm.
//!
//! For every empty point the article measures, in each of the four
//! directions, the run of same-coloured stones the point would join
//! (`getHorizontal`, `getVertical`, `getRightDiagonal`, `getLeftDiagonal`:
//! the point itself plus the touching stones on both sides) and keeps the
//! longest run of each colour. The point's score is
//!
//! ```text
//! MAP_SCORE_COMPUTER[longest own run] + MAP_POINT_HUMAN[longest opponent run - 1]
//! ```
//!
//! with the attack map `{5: ∞, 4: 2000, 3: 500, 2: 300, 1: 100}` (the run
//! counts the point itself) and the defence map `{4: 999999, 3: 1000,
//! 2: 400, 1: 10, 0: 0}` (opponent stones touching the point). Every point
//! of the maximum score is collected and one is drawn at random.
//!
//! ## Generalisation and fixes
//!
//! - **Any k.** The maps are aligned on the winning end: a run of `k` (or
//!   more) is the win, `k-1` scores 2000, `k-2` 500, `k-3` 300, shorter runs
//!   100; `k-1` touching opponent stones score 999999, `k-2` 1000, `k-3`
//!   400, fewer (but at least one) 10, none 0. For k = 5 these are the
//!   article's maps exactly.
//! - **Runs longer than the map** (article bug): the article counts up to
//!   four stones on each side, so a point joining runs of 2 + 3 gives a key
//!   of 6 that its `Map` lacks; `undefined + n` is `NaN` and such a point is
//!   never chosen — the computer misses a win by overline, or fails to block
//!   one. The intended reading is used: any run that wins is a win.
//! - **Rules.** The article's win test is freestyle ("5 or more"). Here a run
//!   of `k` or more counts as the win (attack) or as the threat to block
//!   (defence) only if it wins under the game's rule (`Rule::run_wins`: an
//!   overline under standard or for black under renju, a caro five blocked
//!   at both ends); a line that cannot win is dead and that direction is
//!   left out of the maximum.
//! - **Colours** (article bug): `getPointsComputer` hard-codes the computer
//!   as `O` and the human as `X`, so in its computer-vs-computer mode the X
//!   computer scores the board for O. Here "own" is the side to move.
//! - **Legality**: only [`Game::legal_moves`] are scored, so black never
//!   picks a renju forbidden point.

use caro_core::{Board, Cell, Color, Game, Pos, Rules};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::player::{Context, Decision, EngineError, Player};

/// The score of a point that wins at once: the article's `Infinity`
/// (anything added to it stays `Infinity`).
const WIN: u64 = u64::MAX;

/// The article's attack map for k = 5, by run length (the point included),
/// 1..=4 (5 is [`WIN`]).
const ATTACK: [u64; 5] = [0, 100, 300, 500, 2000];

/// The article's defence map for k = 5, by touching opponent stones, 0..=4.
const DEFENCE: [u64; 5] = [0, 10, 400, 1000, 999_999];

/// The Caro article's attack/defence score maps with random tie-breaks.
pub struct ScoreMapPlayer {
    rng: StdRng,
    best: Vec<Pos>,
}

impl ScoreMapPlayer {
    /// A score-map player; `seed` fixes its tie-breaks.
    #[must_use]
    pub fn new(seed: u64) -> ScoreMapPlayer {
        ScoreMapPlayer {
            rng: StdRng::seed_from_u64(seed),
            best: Vec::new(),
        }
    }
}

/// The attack map for win length `k`, by run length `len` (< k), aligned on
/// the winning end.
fn attack(k: u8, len: u8) -> u64 {
    let i = (len as i32 + 5 - k as i32).max(1) as usize;
    ATTACK[i.min(4)]
}

/// The defence map for win length `k`, by touching opponent stones `n`
/// (< k), aligned on the winning end; no stone scores 0.
fn defence(k: u8, n: u8) -> u64 {
    if n == 0 {
        return 0;
    }
    let i = (n as i32 + 5 - k as i32).max(1) as usize;
    DEFENCE[i.min(4)]
}

/// The longest run `color` would make at the empty `index`, over the four
/// directions, leaving out runs of `k` or more that would not win under
/// the rules; `None` when some direction wins.
fn longest_run(board: &Board, index: usize, color: Color, rules: &Rules) -> Option<u8> {
    let own = Cell::stone(color);
    let opp = Cell::stone(color.opponent());
    let mut longest = 1;
    for dir in 0..4 {
        // `run` walks from the empty point over the stones of `own` on both
        // sides, so `len` counts the point itself as the article does.
        let (len, before, after) = board.run(index, dir, own);
        if len >= rules.k {
            let blocked = before == opp && after == opp;
            if rules.rule.run_wins(rules.k, color, len, blocked) {
                return None;
            }
            // A line that cannot win is dead: it neither attacks nor threatens.
            continue;
        }
        longest = longest.max(len);
    }
    Some(longest)
}

/// The article's score of the empty point `pos` for `me` to move.
fn score(board: &Board, pos: Pos, me: Color, rules: &Rules) -> u64 {
    let index = board.index(pos);
    let Some(own) = longest_run(board, index, me, rules) else {
        return WIN;
    };
    let threat = match longest_run(board, index, me.opponent(), rules) {
        // The opponent would win here: the article's key 4 (k - 1 stones).
        None => DEFENCE[4],
        Some(len) => defence(rules.k, len - 1),
    };
    attack(rules.k, own) + threat
}

impl Player for ScoreMapPlayer {
    fn name(&self) -> String {
        "scoremap".to_string()
    }

    fn choose(&mut self, game: &Game, _ctx: &mut Context<'_>) -> Result<Decision, EngineError> {
        let moves = game.legal_moves();
        if moves.is_empty() {
            return Err(EngineError::GameOver);
        }
        let board = game.board();
        let rules = game.rules();
        let me = game.to_move();
        // The article keeps every point whose score reaches the running
        // maximum and then filters those equal to the final maximum: the
        // same set as collecting the maximum-score points directly.
        let mut max = 0;
        self.best.clear();
        for &p in &moves {
            let s = score(board, p, me, rules);
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

    crate::testing::legality_tests!(ScoreMapPlayer::new);

    use caro_core::{BoardSize, Rule};

    #[test]
    fn maps_are_the_articles_for_five() {
        let attacks: Vec<u64> = (1..5).map(|n| attack(5, n)).collect();
        assert_eq!(attacks, [100, 300, 500, 2000]);
        let defences: Vec<u64> = (0..5).map(|n| defence(5, n)).collect();
        assert_eq!(defences, [0, 10, 400, 1000, 999_999]);
        // Aligned on the winning end for other k.
        assert_eq!(attack(3, 2), 2000);
        assert_eq!(defence(3, 2), 999_999);
        assert_eq!(attack(10, 9), 2000);
        assert_eq!(attack(10, 1), 100);
        assert_eq!(defence(10, 1), 10);
    }

    #[test]
    fn blocks_an_open_four() {
        let game = position(
            &[
                "..........",
                "..........",
                "..XXXX....",
                "...O......",
                "....O.....",
                "..........",
            ],
            5,
            Rule::Freestyle,
            Color::White,
        );
        for seed in 0..20 {
            let p = decide(&mut ScoreMapPlayer::new(seed), &game);
            assert!(p == Pos::new(1, 2) || p == Pos::new(6, 2), "{p:?}");
        }
    }

    #[test]
    fn completes_its_own_four_rather_than_block() {
        let game = position(
            &[
                "..........",
                "..XXXX....",
                "..........",
                "..OOOO....",
                "..........",
            ],
            5,
            Rule::Freestyle,
            Color::White,
        );
        for seed in 0..20 {
            let p = decide(&mut ScoreMapPlayer::new(seed), &game);
            assert!(p == Pos::new(1, 3) || p == Pos::new(6, 3), "{p:?}");
        }
    }

    #[test]
    fn takes_a_win_by_joining_runs() {
        // O O . O O: the gap makes a run of five from 2 + 2 (the article's
        // own case); X X X . X X would be a 6-key the article's Map lacks.
        let game = position(
            &["OO.OO...", "........", "XXX.XX..", "........"],
            5,
            Rule::Freestyle,
            Color::White,
        );
        assert_eq!(decide(&mut ScoreMapPlayer::new(1), &game), Pos::new(2, 0));
        let game = position(
            &["OO.O....", "........", "XXX.XX..", "........"],
            5,
            Rule::Freestyle,
            Color::Black,
        );
        // Black's overline win (the article's NaN bug) is found.
        assert_eq!(decide(&mut ScoreMapPlayer::new(1), &game), Pos::new(3, 2));
    }

    #[test]
    fn an_overline_is_not_a_win_under_standard() {
        // Under standard, X X X . X X filled is six: no win, so white's
        // three-with-a-gap and black's dead line do not force the gap.
        let game = position(
            &["........", "XXX.XX..", "........", ".OOO....", "........"],
            5,
            Rule::Standard,
            Color::White,
        );
        let p = decide(&mut ScoreMapPlayer::new(3), &game);
        assert!(p == Pos::new(0, 3) || p == Pos::new(4, 3), "{p:?}");
    }

    #[test]
    fn plays_for_the_side_to_move() {
        // Black to move with its own four: the article's code would score
        // the board for O and block; the fixed player wins.
        let game = position(
            &[
                "..........",
                "..XXXX....",
                "..........",
                "..OOO.....",
                "..........",
            ],
            5,
            Rule::Freestyle,
            Color::Black,
        );
        let p = decide(&mut ScoreMapPlayer::new(5), &game);
        assert!(p == Pos::new(1, 1) || p == Pos::new(6, 1), "{p:?}");
    }

    #[test]
    fn renju_black_avoids_a_forbidden_win_point() {
        // X X X . X X: the gap would be an overline, forbidden for black.
        let game = position(
            &[
                "...............",
                "...............",
                "..XXX.XX.......",
                "...............",
                ".......O.......",
                "........O......",
                ".........O.....",
                "..........O....",
                "...............",
                "...............",
                "...............",
                "...............",
                "...............",
                "...............",
                "...............",
            ],
            5,
            Rule::Renju,
            Color::Black,
        );
        assert!(game.check(Pos::new(5, 2)).is_err());
        for seed in 0..10 {
            let p = decide(&mut ScoreMapPlayer::new(seed), &game);
            game.check(p).unwrap();
        }
    }

    #[test]
    fn deterministic_for_a_seed() {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let play = |seed: u64| {
            let mut game = Game::new(rules, Color::Black).unwrap();
            let mut a = ScoreMapPlayer::new(seed);
            let mut b = ScoreMapPlayer::new(seed + 1);
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
        assert_eq!(play(9), play(9));
        assert_ne!(play(9), play(10));
    }
}
