//! Test helpers shared by the players' unit tests.

use caro_core::{BoardSize, Color, Game, GameSetup, Pos, Rule, Rules};

use crate::player::{Context, Limits, Player, SearchInfo, StopFlag};
use crate::random::RandomPlayer;

/// The player's move with no limits.
pub fn decide(player: &mut dyn Player, game: &Game) -> Pos {
    let mut sink = |_: &SearchInfo| {};
    let mut ctx = Context::new(Limits::default(), StopFlag::new(), &mut sink);
    player.choose(game, &mut ctx).unwrap().best
}

/// A position from rows of `X` (black), `O` (white) and `.`, top row
/// first, with `to_move` to play.
pub fn position(rows: &[&str], k: u8, rule: Rule, to_move: Color) -> Game {
    let size = BoardSize::new(rows[0].len() as u8, rows.len() as u8).unwrap();
    let mut setup = GameSetup::new(size, k, rule);
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            let p = Pos::new(x as u8, y as u8);
            match c {
                'X' => setup.stones.push((p, Color::Black)),
                'O' => setup.stones.push((p, Color::White)),
                _ => {}
            }
        }
    }
    setup.to_move = Some(to_move);
    Game::from_setup(&setup).unwrap()
}

/// Plays `games` games of the player `make(seed)` against the random
/// player (either colour), checking every answer with `Game::check`.
pub fn plays_legally(
    make: impl Fn(u64) -> Box<dyn Player>,
    rules: Rules,
    games: u64,
    max_moves: usize,
) {
    for seed in 0..games {
        let mut game = Game::new(rules, Color::Black).unwrap();
        let mut me = make(seed);
        let mut other = RandomPlayer::new(seed + 100);
        let mut n = 0;
        while !game.is_over() && n < max_moves {
            let mine = (n % 2 == 0) == (seed % 2 == 0);
            let p = if mine {
                decide(me.as_mut(), &game)
            } else {
                decide(&mut other, &game)
            };
            game.check(p).unwrap();
            game.try_play(p).unwrap();
            n += 1;
        }
    }
}

/// The legality tests every article player runs: games against the random
/// player on tic-tac-toe, 15×15 renju, 20×30 caro, 60×60 freestyle and
/// other k, each answer checked with `Game::check`. `$make` builds the
/// player from a seed.
macro_rules! legality_tests {
    ($make:expr) => {
        fn legal_games(rules: caro_core::Rules, games: u64, max_moves: usize) {
            $crate::testing::plays_legally(|seed| Box::new($make(seed)), rules, games, max_moves);
        }

        #[test]
        fn legal_on_tic_tac_toe() {
            legal_games(
                caro_core::Rules::new(
                    caro_core::BoardSize::square(3),
                    3,
                    caro_core::Rule::Freestyle,
                )
                .unwrap(),
                20,
                9,
            );
        }

        #[test]
        fn legal_under_renju() {
            legal_games(
                caro_core::Rules::new(caro_core::BoardSize::square(15), 5, caro_core::Rule::Renju)
                    .unwrap(),
                6,
                225,
            );
        }

        #[test]
        fn legal_on_caro_20x30() {
            let size = caro_core::BoardSize::new(20, 30).unwrap();
            legal_games(
                caro_core::Rules::new(size, 5, caro_core::Rule::Caro).unwrap(),
                3,
                200,
            );
        }

        #[test]
        fn legal_on_60x60_freestyle() {
            legal_games(
                caro_core::Rules::new(
                    caro_core::BoardSize::square(60),
                    5,
                    caro_core::Rule::Freestyle,
                )
                .unwrap(),
                2,
                80,
            );
        }

        #[test]
        fn legal_for_other_k() {
            let size = caro_core::BoardSize::new(3, 10).unwrap();
            legal_games(
                caro_core::Rules::new(size, 7, caro_core::Rule::Freestyle).unwrap(),
                3,
                30,
            );
            legal_games(
                caro_core::Rules::new(
                    caro_core::BoardSize::square(12),
                    10,
                    caro_core::Rule::CaroStandard,
                )
                .unwrap(),
                2,
                144,
            );
        }
    };
}
pub(crate) use legality_tests;
