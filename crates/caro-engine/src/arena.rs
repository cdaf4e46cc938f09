//! Playing players against each other: one refereed game, and the
//! statistics of a series (score, Elo difference and its error).

use std::time::Instant;

use caro_core::{Color, Game, Outcome, Pos, Rules};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::player::{Context, Limits, Player, SearchInfo, StopFlag};
pub use crate::sprt::{elo_of, sprt_bounds};

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
    /// An external engine failed: it crashed, was late, or answered
    /// something that is not a move; that player lost.
    Failed {
        /// Whose engine failed.
        loser: Color,
        /// What happened.
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
            Ending::IllegalMove { loser, .. }
            | Ending::Failed { loser, .. }
            | Ending::Timeout { loser, .. } => Some(loser.opponent()),
        }
    }

    /// A short description: "black wins by five", "draw"…
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Ending::Rules(Outcome::Five { winner, .. }) => format!("{winner} wins by five"),
            Ending::Rules(Outcome::Draw) => "draw".to_string(),
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
            Ending::Failed { loser, reason } => {
                format!(
                    "{} wins: {loser}'s engine failed ({reason})",
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
    /// Each side's clock for the whole game (`None`: no clock). A side whose
    /// clock runs out loses on time.
    pub match_time: Option<std::time::Duration>,
    /// Time added to a side's clock after each of its moves (with
    /// `match_time`).
    pub increment: Option<std::time::Duration>,
    /// Threads of black's and of white's searches, where set (over
    /// `limits.threads`).
    pub threads: [Option<usize>; 2],
    /// Each move's node limit is drawn at random from `limits.nodes` ×
    /// (1 ± this share), for both sides alike (0: exactly
    /// `limits.nodes`). Engines at a fixed node count are deterministic:
    /// without it every game on an opening already played repeats the
    /// earlier one, and a series longer than its book counts the same
    /// games again.
    pub node_jitter: f64,
    /// Seed of the game's random node limits.
    pub seed: u64,
}

/// A move's node limit: `nodes` × (1 ± `share`), uniformly at random.
fn jittered(nodes: Option<u64>, share: f64, rng: &mut StdRng) -> Option<u64> {
    nodes.map(|n| {
        if share > 0.0 {
            let factor = 1.0 + share * rng.random_range(-1.0..=1.0);
            ((n as f64 * factor).round() as u64).max(1)
        } else {
            n
        }
    })
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
    let mut clocks = [settings.match_time; 2];
    let mut node_rng = StdRng::seed_from_u64(settings.seed);
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
        let mut limits = settings.limits;
        limits.nodes = jittered(limits.nodes, settings.node_jitter, &mut node_rng);
        limits.time_left = clocks[side.index()];
        limits.increment = settings.increment.filter(|_| limits.time_left.is_some());
        limits.threads = settings.threads[side.index()].or(limits.threads);
        let mut ctx = Context::new(limits, StopFlag::new(), &mut sink);
        let choice = player.choose(&game, &mut ctx);
        let took = started.elapsed();
        times_ms.push(took.as_millis().min(u32::MAX as u128) as u32);
        let clock = &mut clocks[side.index()];
        let flagged = match clock {
            Some(left) => {
                let over = took > *left;
                *left = left.saturating_sub(took);
                if !over {
                    *left += settings.increment.unwrap_or_default();
                }
                over
            }
            None => false,
        };
        let limit = settings.forfeit_after;
        if flagged || limit.is_some_and(|l| took > l) {
            {
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
            Err(crate::EngineError::External(reason)) => {
                return Ok(PlayedGame {
                    ending: Ending::Failed {
                        loser: side,
                        reason,
                    },
                    game,
                    times_ms,
                });
            }
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

    /// Elo difference of A over B and the half-width of its 95% interval
    /// ([`Tally::elo_interval`]). A score of 0 or 1 is taken as half a
    /// game short of it, so the figures stay finite (the usual convention
    /// of match tools).
    #[must_use]
    pub fn elo(&self) -> (f64, f64) {
        let n = self.games() as f64;
        if n == 0.0 {
            return (0.0, 0.0);
        }
        let (lo, hi) = self.elo_interval();
        (elo_of(self.clamped(self.score())), (hi - lo) / 2.0)
    }

    /// The 95% interval of the Elo difference, with each end a score of
    /// 0 or 1 taken as half a game short of it.
    ///
    /// The score's interval is the score interval (Wilson's, with draws):
    /// the expected scores `p` the observed score `s` lies within 1.96
    /// standard errors of, a game's variance being `p(1 - p) - d/4` at a
    /// share of draws `d` (the observed one, counted over one game more).
    /// Unlike the normal approximation around `s`, it stays honest at the
    /// ends: a 6–0 sweep gives a score of 0.61 to 1 (+77 Elo and up),
    /// where the spread of the six results, which is none, would claim
    /// ±58 around +417.
    #[must_use]
    pub fn elo_interval(&self) -> (f64, f64) {
        let n = self.games() as f64;
        if n == 0.0 {
            return (0.0, 0.0);
        }
        // The draws' share of one game more than were played: an all-drawn
        // series still leaves room for a decisive game.
        let draws = self.draws as f64 / (n + 1.0);
        let (lo, hi) = score_interval(self.score(), draws, n, 1.96);
        (elo_of(self.clamped(lo)), elo_of(self.clamped(hi)))
    }

    /// A score kept half a game away from 0 and 1.
    fn clamped(&self, p: f64) -> f64 {
        let n = self.games() as f64;
        p.clamp(0.5 / n, 1.0 - 0.5 / n)
    }
}

/// The expected scores `p` within `z` standard errors of the observed
/// score `s` over `n` games with a share `d` of draws: the roots of
/// `(s - p)² = z²·(p(1 - p) - d/4)/n`, a game's variance at the expected
/// score `p` when the share of draws is `d`.
fn score_interval(s: f64, d: f64, n: f64, z: f64) -> (f64, f64) {
    let c = z * z / n;
    let a = 1.0 + c;
    let b = 2.0 * s + c;
    let disc = (c * (4.0 * s * (1.0 - s) - d + c * (1.0 - d))).max(0.0);
    let root = disc.sqrt();
    (
        ((b - root) / (2.0 * a)).clamp(0.0, 1.0),
        ((b + root) / (2.0 * a)).clamp(0.0, 1.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::PlayerSpec;
    use caro_core::{BoardSize, Rule};

    fn tally(wins: u32, losses: u32, draws: u32) -> Tally {
        Tally {
            wins,
            losses,
            draws,
        }
    }

    #[test]
    fn elo_is_symmetric_and_zero_at_half() {
        let even = tally(10, 10, 5);
        assert!(even.elo().0.abs() < 1e-9);
        let t = tally(75, 25, 0);
        let (e, err) = t.elo();
        assert!((e - 190.8).abs() < 1.0, "{e}");
        assert!(err > 0.0 && err < 100.0);
        let sweep = tally(200, 0, 0);
        assert!(sweep.elo().0.is_finite());
    }

    #[test]
    fn the_interval_of_a_sweep_reaches_down_to_what_the_games_can_tell() {
        let short = tally(6, 0, 0);
        let (short_lo, hi) = short.elo_interval();
        // Wilson's lower bound for 6 of 6 is a score of 0.610: +77 Elo.
        assert!((short_lo - 77.5).abs() < 1.0, "{short_lo}");
        assert!((hi - short.elo().0).abs() < 1e-9, "{hi}");
        assert!(short.elo().1 > 150.0, "{:?}", short.elo());
        let long = tally(200, 0, 0);
        // 200 of 200: a score of at least 0.981, +686 Elo.
        let (lo, _) = long.elo_interval();
        assert!((lo - 686.0).abs() < 2.0, "{lo}");
        let lost = tally(0, 6, 0);
        // A sweep the other way is the same interval, mirrored.
        let (lost_lo, lost_hi) = lost.elo_interval();
        assert!((lost_lo + hi).abs() < 1e-9 && (lost_hi + short_lo).abs() < 1e-9);
    }

    #[test]
    fn the_interval_matches_the_normal_one_away_from_the_ends_and_holds_the_estimate() {
        for (wins, losses, draws) in [(75, 25, 0), (40, 40, 20), (55, 30, 15), (3, 1, 96)] {
            let t = tally(wins, losses, draws);
            let (e, err) = t.elo();
            let (lo, hi) = t.elo_interval();
            assert!(lo <= e && e <= hi, "{wins}-{losses}-{draws}: {lo} {e} {hi}");
            // The normal approximation: 1.96 standard errors of the mean
            // score, on the Elo scale.
            let n = t.games() as f64;
            let s = t.score();
            let var = (wins as f64 * (1.0 - s).powi(2)
                + losses as f64 * s.powi(2)
                + draws as f64 * (0.5 - s).powi(2))
                / n;
            let se = (var / n).sqrt();
            let normal = (elo_of(s + 1.96 * se) - elo_of(s - 1.96 * se)) / 2.0;
            assert!(
                (err - normal).abs() < 0.1 * normal,
                "{wins}-{losses}-{draws}: {err} {normal}"
            );
        }
        // Ten draws in ten do not prove the two equal to the last point.
        let drawn = tally(0, 0, 10);
        let (e, err) = drawn.elo();
        assert!(e.abs() < 1e-9 && err > 30.0 && err < 100.0, "{e} {err}");
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
            threads: [None; 2],
            forfeit_after: None,
            match_time: None,
            increment: None,
            node_jitter: 0.0,
            seed: 1,
        };
        let g = play_game(a.as_mut(), b.as_mut(), &settings).unwrap();
        assert!(g.game.is_over());
        assert_eq!(g.times_ms.len(), g.game.moves().len());
    }

    /// The moves of `caro:10` against itself at 1,500 nodes a move from
    /// one opening, with this node jitter and seed.
    fn fixed_node_game(node_jitter: f64, seed: u64) -> Vec<Pos> {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let opening = caro_core::notation::parse_move_list("h8 i9 g7", rules.size).unwrap();
        let mut a = PlayerSpec::Caro(10).build(1);
        let mut b = PlayerSpec::Caro(10).build(2);
        let settings = GameSettings {
            rules,
            opening,
            limits: Limits {
                nodes: Some(1_500),
                ..Limits::default()
            },
            threads: [None; 2],
            forfeit_after: None,
            match_time: None,
            increment: None,
            node_jitter,
            seed,
        };
        let g = play_game(a.as_mut(), b.as_mut(), &settings).unwrap();
        g.game.moves().to_vec()
    }

    #[test]
    fn node_jitter_makes_games_on_one_opening_differ() {
        // Without it a fixed node count replays the same game.
        assert_eq!(fixed_node_game(0.0, 1), fixed_node_game(0.0, 2));
        // With it the seed decides: the same seed, the same game; other
        // seeds, other games.
        assert_eq!(fixed_node_game(0.1, 1), fixed_node_game(0.1, 1));
        let games: std::collections::HashSet<Vec<Pos>> =
            (1..=6).map(|seed| fixed_node_game(0.1, seed)).collect();
        assert!(
            games.len() >= 2,
            "{} different games of 6: {games:?}",
            games.len()
        );
    }

    #[test]
    fn jittered_limits_stay_within_their_share() {
        let mut rng = StdRng::seed_from_u64(3);
        let draws: Vec<u64> = (0..2_000)
            .map(|_| jittered(Some(25_000), 0.1, &mut rng).unwrap())
            .collect();
        assert!(draws.iter().all(|&n| (22_500..=27_500).contains(&n)));
        let mean = draws.iter().sum::<u64>() as f64 / draws.len() as f64;
        assert!((mean - 25_000.0).abs() < 250.0, "{mean}");
        assert!(draws.iter().any(|&n| n < 23_000) && draws.iter().any(|&n| n > 27_000));
        assert_eq!(jittered(Some(25_000), 0.0, &mut rng), Some(25_000));
        assert_eq!(jittered(None, 0.1, &mut rng), None);
    }

    /// A random player that takes its time.
    struct Slow(Box<dyn Player>);

    impl Player for Slow {
        fn name(&self) -> String {
            "slow".into()
        }

        fn choose(
            &mut self,
            game: &Game,
            ctx: &mut Context<'_>,
        ) -> Result<crate::Decision, crate::EngineError> {
            std::thread::sleep(std::time::Duration::from_millis(40));
            self.0.choose(game, ctx)
        }
    }

    /// A game of the slow player (black) against a random one, on a
    /// `board`, with a 150 ms clock each and this increment.
    fn slow_game(board: u8, increment: Option<std::time::Duration>) -> PlayedGame {
        let rules = Rules::new(BoardSize::square(board), 5, Rule::Freestyle).unwrap();
        let mut slow = Slow(PlayerSpec::Random.build(1));
        let mut quick = PlayerSpec::Random.build(2);
        let settings = GameSettings {
            rules,
            opening: Vec::new(),
            limits: Limits::default(),
            threads: [None; 2],
            forfeit_after: None,
            match_time: Some(std::time::Duration::from_millis(150)),
            increment,
            node_jitter: 0.0,
            seed: 1,
        };
        play_game(&mut slow, quick.as_mut(), &settings).unwrap()
    }

    #[test]
    fn a_player_whose_clock_runs_out_loses_on_time() {
        let g = slow_game(15, None);
        assert!(
            matches!(
                g.ending,
                Ending::Timeout {
                    loser: Color::Black,
                    ..
                }
            ),
            "{:?}",
            g.ending
        );
    }

    #[test]
    fn the_increment_keeps_a_slow_player_in_time() {
        // 40 ms a move against a 150 ms clock runs out by the fourth move
        // (the test above); 100 ms back after each move never does.
        let g = slow_game(7, Some(std::time::Duration::from_millis(100)));
        assert!(matches!(g.ending, Ending::Rules(_)), "{:?}", g.ending);
        assert!(g.game.moves().len() > 8, "{}", g.game.moves().len());
    }
}
