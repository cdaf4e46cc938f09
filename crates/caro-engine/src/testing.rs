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
