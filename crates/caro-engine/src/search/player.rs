//! caro's own player, [`CaroPlayer`]: a level's limits and style over
//! the search of one move, from its root moves to the move played.

use caro_core::{Game, Pos};
use rand::rngs::StdRng;
use rand::SeedableRng;

use super::level::{level_style, pick_with_noise, LevelStyle};
use super::movepick::{sort_best_first, without_excluded, Gen};
use super::root::Deepened;
use super::timecontrol::{level_limits, search_depth};
use super::{to_score, Scored, Searcher, Tuning, DEFAULT_HASH_MB, WIN, WIN_BOUND};
use crate::player::{Context, Decision, EngineError, Player};
use crate::state::Threat;
use crate::tt::Tt;

/// caro's own player at a level 1 (gentle) to 10 (full strength).
pub struct CaroPlayer {
    level: u32,
    tt: Tt,
    rng: StdRng,
    /// Whether the levels that look for forced wins at the root do.
    root_threats: bool,
    /// Root moves the search leaves out (multi-line analysis: the lines
    /// already found); empty in play.
    excluded: Vec<Pos>,
    /// The search's run-time tunables.
    tuning: Tuning,
}

impl CaroPlayer {
    /// A player at `level` (clamped to 1..=10), seeded for reproducible
    /// weak-level choices.
    #[must_use]
    pub fn new(level: u32, seed: u64) -> CaroPlayer {
        CaroPlayer {
            level: level.clamp(1, 10),
            tt: Tt::new(DEFAULT_HASH_MB),
            rng: StdRng::seed_from_u64(seed),
            root_threats: true,
            excluded: Vec::new(),
            tuning: Tuning::default(),
        }
    }

    /// Searches with `tuning`'s values of the run-time tunables (the
    /// defaults of [`super::params`] unless set): what `caro tune` moves.
    pub fn set_tuning(&mut self, tuning: Tuning) {
        self.tuning = tuning.ordered();
    }

    /// Root moves the next searches leave out, as if they were not there
    /// (multi-line analysis searches again without the lines found so
    /// far). Empty by default, and then play is untouched. A point off the
    /// board is ignored.
    pub fn set_excluded_root_moves(&mut self, moves: &[Pos]) {
        self.excluded = moves.to_vec();
    }

    /// Whether the search first looks for forced wins by threats at the
    /// root, and drops the moves that lose to one (levels 4 to 10 do).
    /// Off, every move is an alpha-beta search alone, whose score is what
    /// the evaluation sees a few plies on: what `examples/fit_eval.rs`
    /// fits the evaluation to.
    pub fn set_root_threats(&mut self, on: bool) {
        self.root_threats = on;
    }

    /// Resizes the hash table (clears it).
    pub fn set_hash_mb(&mut self, megabytes: usize) {
        self.tt = Tt::new(megabytes.max(1));
    }

    /// Forgets the hash table.
    pub fn clear_hash(&mut self) {
        self.tt.clear();
    }
}

impl Player for CaroPlayer {
    fn name(&self) -> String {
        format!("caro:{}", self.level)
    }

    fn new_game(&mut self) {
        self.tt.clear();
    }

    fn choose(&mut self, game: &Game, ctx: &mut Context<'_>) -> Result<Decision, EngineError> {
        let mut style = level_style(self.level);
        style.root_vcf &= self.root_threats;
        let given = ctx.limits;
        ctx.limits = level_limits(&given, &style);
        let result = self.think(game, ctx, style);
        ctx.limits = given;
        result
    }
}

/// How a move begins: decided without a search, or the root moves to
/// search.
enum RootMoves {
    /// A move decided at once.
    Decided(Decision),
    /// The root's moves, best-looking first; `forced` where they are the
    /// stops of the other side's five.
    Search { moves: Vec<Scored>, forced: bool },
}

impl CaroPlayer {
    /// [`Player::choose`] under the level's own limits.
    fn think(
        &mut self,
        game: &Game,
        ctx: &mut Context<'_>,
        style: LevelStyle,
    ) -> Result<Decision, EngineError> {
        if game.is_over() {
            return Err(EngineError::GameOver);
        }
        self.tt.new_search();
        let mut s = Searcher::new(game, &self.tt, ctx);
        s.tune = self.tuning;
        let excluded: Vec<usize> = self
            .excluded
            .iter()
            .filter(|&&p| game.size().contains(p))
            .map(|&p| s.state.index(p))
            .collect();
        let (mut root_moves, root_forced) = match self.root_moves(&mut s, game, ctx, &excluded)? {
            RootMoves::Decided(decision) => return Ok(decision),
            RootMoves::Search { moves, forced } => (moves, forced),
        };
        // An only move is played at once, but at full strength only after
        // the root's VCF: where the only move (a forced block) starts a
        // win by fours, the report says so; where it is the only stop of a
        // five and the other side then wins by fours, the report gives
        // that loss.
        let check_only_move = style.root_vcf && root_forced;
        if root_moves.len() == 1 && !style.root_vcf {
            return Ok(s.play_only_move(ctx, root_moves[0].0, check_only_move));
        }
        if style.root_vcf {
            if let Some(decision) = s.root_threats(ctx, &root_moves, check_only_move, &excluded) {
                return Ok(decision);
            }
        }
        if style.root_vcf && root_moves.len() > 1 {
            s.drop_refuted_root_moves(ctx, &mut root_moves, style.refute_vct);
        }
        let max_depth = search_depth(&ctx.limits, style.max_depth);
        let helpers = style.helpers(&ctx.limits);
        let found = s.deepen(game, ctx, &mut root_moves, max_depth, style.noise, helpers);
        let fallback = root_moves[0].0;
        Ok(pick_move(&s, found, fallback, style.noise, &mut self.rng))
    }

    /// The root's moves without the excluded points, or the decision where
    /// nothing is left to search: a five to make; a loss whatever is
    /// played (one of the other side's fives blocked if it may be); no
    /// legal point near the stones (any legal move but the excluded).
    fn root_moves(
        &self,
        s: &mut Searcher<'_>,
        game: &Game,
        ctx: &mut Context<'_>,
        excluded: &[usize],
    ) -> Result<RootMoves, EngineError> {
        let mut generated = s.generate(0, None);
        if !excluded.is_empty() {
            generated = without_excluded(s, generated, excluded);
        }
        match generated {
            Gen::Win(i) => Ok(RootMoves::Decided(s.decision(ctx, i, 1, WIN - 1, &[i]))),
            Gen::Lost => {
                // Every move loses: block one of the fives if we may.
                let opp = game.to_move().opponent();
                let legal = game.legal_moves();
                let best = legal
                    .iter()
                    .copied()
                    .find(|&p| s.state.threat(s.state.index(p), opp) == Threat::Five)
                    .or_else(|| legal.first().copied())
                    .ok_or(EngineError::GameOver)?;
                let report = s.info(1, -(WIN - 2), &[s.state.index(best)]);
                (ctx.progress)(&report);
                Ok(RootMoves::Decided(Decision {
                    best,
                    info: Some(report),
                }))
            }
            Gen::Moves { mut moves, forced } => {
                if moves.is_empty() {
                    // Every nearby point is forbidden: fall back on any
                    // legal move.
                    let legal = game.legal_moves();
                    let best = *legal
                        .iter()
                        .find(|&&p| !self.excluded.contains(&p))
                        .ok_or(EngineError::GameOver)?;
                    return Ok(RootMoves::Decided(Decision { best, info: None }));
                }
                sort_best_first(&mut moves);
                Ok(RootMoves::Search { moves, forced })
            }
        }
    }
}

/// The move to play after the iterations `found`: the best line's
/// first move (`fallback` where there is none), or at a weak level
/// (`noise` above 0) one picked among those near the best
/// ([`pick_with_noise`] with `rng`), then reported with its own score.
fn pick_move(
    s: &Searcher<'_>,
    found: Deepened,
    fallback: usize,
    noise: i32,
    rng: &mut StdRng,
) -> Decision {
    let mut choice = found.pv.first().copied().unwrap_or(fallback);
    if noise > 0 && found.score.abs() <= WIN_BOUND {
        choice = pick_with_noise(&found.scored, noise, rng).unwrap_or(choice);
    }
    let mut info = found.report;
    if found.pv.first() != Some(&choice) {
        // A weak level wandered from the best line: report the move it
        // plays and that move's own score, not the line it left.
        if let Some(info) = info.as_mut() {
            info.pv = vec![s.state.pos(choice)];
            if let Some(&(_, score)) = found.scored.iter().find(|&&(m, _)| m == choice) {
                info.score = to_score(score);
            }
        }
    }
    Decision {
        best: s.state.pos(choice),
        info,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::{Limits, SearchInfo, StopFlag};
    use crate::search::testing::{best, game};
    use caro_core::notation::{format_pos, parse_pos};
    use caro_core::Rule;

    #[test]
    fn takes_a_five() {
        let g = game(Rule::Freestyle, 15, 5, "h8 a1 i8 a2 j8 a3 k8 a15");
        let m = best(&g, 10, Limits::depth(4));
        assert!(["g8", "l8"].contains(&format_pos(m, g.size()).as_str()));
    }

    #[test]
    fn blocks_a_four() {
        let g = game(Rule::Freestyle, 15, 5, "h8 a1 i8 a2 j8 a3 k8");
        let m = best(&g, 10, Limits::depth(4));
        assert!(
            ["g8", "l8"].contains(&format_pos(m, g.size()).as_str()),
            "{m:?}"
        );
    }

    #[test]
    fn makes_an_open_four_from_an_open_three() {
        let g = game(Rule::Freestyle, 15, 5, "h8 a1 i8 a3 j8 a5");
        let m = best(&g, 10, Limits::depth(4));
        assert!(
            ["g8", "k8"].contains(&format_pos(m, g.size()).as_str()),
            "{m:?}"
        );
    }

    #[test]
    fn renju_black_never_plays_a_foul() {
        // j8 is a double-three for black; the threats point there.
        let g = game(Rule::Renju, 15, 5, "h8 a1 i8 a2 j9 a3 j10 a15");
        let j8 = parse_pos("j8", g.size()).unwrap();
        for level in [1, 5, 10] {
            let m = best(&g, level, Limits::depth(3));
            assert_ne!(m, j8);
            assert!(g.check(m).is_ok());
        }
    }

    #[test]
    fn stops_at_once_when_asked() {
        let g = game(Rule::Freestyle, 15, 5, "h8 i9 h9");
        let mut p = CaroPlayer::new(10, 1);
        let stop = StopFlag::new();
        stop.stop();
        let mut sink = |_: &SearchInfo| {};
        let mut ctx = Context::new(Limits::default(), stop, &mut sink);
        let d = p.choose(&g, &mut ctx).unwrap();
        assert!(g.check(d.best).is_ok());
    }
}
