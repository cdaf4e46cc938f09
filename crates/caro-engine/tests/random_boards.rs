//! Every built-in player, on random boards (3×3 to 60×60, rectangular
//! too), win lengths and rules, from random positions: each answers a
//! legal move and never panics.

use std::time::Duration;

use caro_core::rule::{MAX_K, MIN_K};
use caro_core::{BoardSize, Color, Game, Rule, Rules};
use caro_engine::player::{Context, Limits, Player, PlayerSpec, SearchInfo, StopFlag};
use proptest::prelude::*;

/// Every built-in player, the strong ones at a few levels.
const PLAYERS: [PlayerSpec; 10] = [
    PlayerSpec::Random,
    PlayerSpec::ScoreMap,
    PlayerSpec::Quintuple,
    PlayerSpec::Minimax(0),
    PlayerSpec::Minimax(2),
    PlayerSpec::Minimax(4),
    PlayerSpec::Caro(1),
    PlayerSpec::Caro(5),
    PlayerSpec::Caro(9),
    PlayerSpec::Caro(10),
];

/// A board, a win length that fits it and a rule that allows it.
fn rules() -> impl Strategy<Value = Rules> {
    (3u8..=60, 3u8..=60, MIN_K..=MAX_K, 0usize..5).prop_filter_map(
        "no such rules",
        |(w, h, k, r)| {
            let rule = [
                Rule::Freestyle,
                Rule::Standard,
                Rule::Renju,
                Rule::Caro,
                Rule::CaroStandard,
            ][r];
            let size = BoardSize::new(w, h).ok()?;
            Rules::new(size, if rule == Rule::Renju { 5 } else { k }, rule).ok()
        },
    )
}

/// The game after `moves` random moves (fewer if it ends first).
fn random_game(rules: Rules, moves: usize, seed: u64) -> Game {
    let mut game = Game::new(rules, Color::Black).expect("valid rules");
    let mut random = PlayerSpec::Random.build(seed);
    for _ in 0..moves {
        if game.is_over() {
            break;
        }
        let best = choose(random.as_mut(), &game);
        game.try_play(best)
            .expect("the random player plays legally");
    }
    game
}

fn choose(player: &mut dyn Player, game: &Game) -> caro_core::Pos {
    let mut sink = |_: &SearchInfo| {};
    let limits = Limits {
        nodes: Some(2_000),
        ..Limits::time(Duration::from_millis(40))
    };
    let mut ctx = Context::new(limits, StopFlag::new(), &mut sink);
    player
        .choose(game, &mut ctx)
        .expect("a game not over has a move")
        .best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_player_answers_a_legal_move(
        rules in rules(),
        fill in 0.0f64..0.7,
        seed in any::<u64>(),
    ) {
        let cells = usize::from(rules.size.width) * usize::from(rules.size.height);
        let game = random_game(rules, (cells as f64 * fill) as usize, seed);
        prop_assume!(!game.is_over());
        for spec in PLAYERS {
            let mut player = spec.build(seed);
            let best = choose(player.as_mut(), &game);
            prop_assert!(game.check(best).is_ok(), "{spec} played {best:?}: {:?}", game.check(best));
        }
    }
}
