//! Analysis for people: a score as a chance to win, the best few moves of
//! a position with their lines, and a whole game reviewed move by move.
//!
//! - [`win_chance`] reads a [`Score`] as the side to move's chance to win:
//!   a logistic curve on the evaluation, 1 for a proven win, 0 for a
//!   proven loss.
//! - [`Analyser::analyse`] finds the top N moves (multi-line analysis):
//!   `caro:10` searches the position, then again with the moves already
//!   found left out at the root ([`CaroPlayer::set_excluded_root_moves`]),
//!   and so on, N searches in all; [`Analyser::deepen`] repeats that in
//!   rounds of doubling node budgets until stopped or a cap, reporting
//!   after each line so a page can follow the engine as it thinks.
//! - [`analyse_game`] searches every position of a game under one
//!   deterministic limit and gives black's chance at each position and,
//!   for each move, the chance its mover lost, a mark
//!   ([`Mark::Inaccuracy`], [`Mark::Mistake`], [`Mark::Blunder`]) and the
//!   better move with its line.

use std::time::{Duration, Instant};

use caro_core::{Color, Game, MoveError, Pos, SetupError};

use crate::player::{Context, EngineError, Limits, Player, Score, SearchInfo, StopFlag};
use crate::search::CaroPlayer;

/// Evaluation units that turn a chance of 50% into about 73% (the
/// logistic's scale: `1 / (1 + e^(-eval / scale))`). Fitted to the
/// results of 200 self-play games of `caro:3` (`examples/fit_win_chance.rs`;
/// the figures and the command are in docs/engine.md, "Analysis").
pub const WIN_CHANCE_SCALE: f64 = 600.0;

/// Win-chance points a move must lose to be an inaccuracy…
pub const INACCURACY: f64 = 0.10;
/// …a mistake…
pub const MISTAKE: f64 = 0.20;
/// …or a blunder.
pub const BLUNDER: f64 = 0.30;

/// Lines a multi-line analysis gives by default.
pub const DEFAULT_LINES: usize = 3;
/// Most lines a multi-line analysis gives.
pub const MAX_LINES: usize = 5;
/// Hash table of an analysis, in MiB: a server may run several at once.
pub const ANALYSIS_HASH_MB: usize = 16;

/// The side to move's chance to win, from 0 to 1: a logistic curve on an
/// evaluation ([`WIN_CHANCE_SCALE`]), 1 for a proven win (of known length
/// or not), 0 for a proven loss.
#[must_use]
pub fn win_chance(score: Score) -> f64 {
    match score {
        Score::Eval(v) => 1.0 / (1.0 + (-f64::from(v) / WIN_CHANCE_SCALE).exp()),
        Score::WinIn(_) | Score::Win => 1.0,
        Score::LossIn(_) => 0.0,
    }
}

/// Black's chance to win when `to_move` has `chance`.
#[must_use]
pub fn black_chance(to_move: Color, chance: f64) -> f64 {
    match to_move {
        Color::Black => chance,
        Color::White => 1.0 - chance,
    }
}

/// Black's chance in a finished game: 1 or 0 for the winner, a half for a
/// draw.
#[must_use]
pub fn black_chance_of_result(winner: Option<Color>) -> f64 {
    match winner {
        Some(Color::Black) => 1.0,
        Some(Color::White) => 0.0,
        None => 0.5,
    }
}

/// Orders scores from the side to move's point of view: shorter wins
/// first, then a win of unknown length, then evaluations, then losses,
/// the longest first.
fn rank(score: Score) -> i64 {
    match score {
        Score::WinIn(n) => 3_000_000_000 - i64::from(n),
        Score::Win => 2_000_000_000,
        Score::Eval(v) => i64::from(v),
        Score::LossIn(n) => -3_000_000_000 + i64::from(n),
    }
}

/// One line of an analysis: a move, its score and what follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The move.
    pub mv: Pos,
    /// Its score, for the side to move.
    pub score: Score,
    /// The principal variation, the move first.
    pub pv: Vec<Pos>,
    /// The depth its search completed.
    pub depth: u32,
}

impl Line {
    /// The side to move's chance to win after this move.
    #[must_use]
    pub fn win_chance(&self) -> f64 {
        win_chance(self.score)
    }

    fn from_decision(best: Pos, info: Option<&SearchInfo>) -> Line {
        match info {
            Some(info) => {
                let pv = if info.pv.first() == Some(&best) {
                    info.pv.clone()
                } else {
                    vec![best]
                };
                Line {
                    mv: best,
                    score: info.score,
                    pv,
                    depth: info.depth,
                }
            }
            None => Line {
                mv: best,
                score: Score::Eval(0),
                pv: vec![best],
                depth: 0,
            },
        }
    }
}

/// A multi-line analysis so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The best moves, best first, each a different move.
    pub lines: Vec<Line>,
    /// Nodes searched by this analyser so far.
    pub nodes: u64,
    /// Time since the analyser started.
    pub elapsed: Duration,
    /// Rounds completed ([`Analyser::deepen`]; 1 after an
    /// [`Analyser::analyse`]).
    pub rounds: u32,
    /// False when a stop cut the analysis short (the lines are those
    /// finished before it).
    pub complete: bool,
}

impl Analysis {
    /// The depth the best line's search completed.
    #[must_use]
    pub fn depth(&self) -> u32 {
        self.lines.first().map_or(0, |l| l.depth)
    }

    /// Nodes per second so far.
    #[must_use]
    pub fn nps(&self) -> u64 {
        let us = self.elapsed.as_micros().max(1);
        (u128::from(self.nodes) * 1_000_000 / us) as u64
    }

    /// The side to move's chance to win by the best line, if there is one.
    #[must_use]
    pub fn win_chance(&self) -> Option<f64> {
        self.lines.first().map(Line::win_chance)
    }
}

/// How [`Analyser::deepen`] deepens: each round searches every line with
/// a node budget, the first round `first_nodes`, each next one twice the
/// last, the last one at most `max_nodes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deepening {
    /// Nodes of each line in the first round.
    pub first_nodes: u64,
    /// Nodes of each line in the last round.
    pub max_nodes: u64,
}

impl Default for Deepening {
    fn default() -> Deepening {
        Deepening {
            first_nodes: 10_000,
            max_nodes: 200_000_000,
        }
    }
}

/// `caro:10` set up for analysis (one thread, a small hash table kept
/// from search to search), counting its nodes and time.
pub struct Analyser {
    player: CaroPlayer,
    nodes: u64,
    started: Instant,
}

impl Default for Analyser {
    fn default() -> Analyser {
        Analyser::new()
    }
}

impl Analyser {
    /// A fresh analyser.
    #[must_use]
    pub fn new() -> Analyser {
        let mut player = CaroPlayer::new(10, 0);
        player.set_hash_mb(ANALYSIS_HASH_MB);
        Analyser {
            player,
            nodes: 0,
            started: Instant::now(),
        }
    }

    /// One search of `game` for the best move outside `excluded`: the
    /// line, and whether a stop cut it short. `None` when no move is left.
    fn line(
        &mut self,
        game: &Game,
        excluded: &[Pos],
        limits: Limits,
        stop: &StopFlag,
    ) -> Option<(Line, bool)> {
        self.player.set_excluded_root_moves(excluded);
        let mut last: Option<SearchInfo> = None;
        let mut sink = |i: &SearchInfo| last = Some(i.clone());
        let mut ctx = Context::new(limits, stop.clone(), &mut sink);
        let decision = self.player.choose(game, &mut ctx);
        self.player.set_excluded_root_moves(&[]);
        let decision = decision.ok()?;
        let info = decision.info.as_ref().or(last.as_ref());
        self.nodes += info.map_or(0, |i| i.nodes);
        if excluded.contains(&decision.best) {
            return None;
        }
        Some((Line::from_decision(decision.best, info), stop.is_set()))
    }

    fn report(&self, lines: Vec<Line>, rounds: u32, complete: bool) -> Analysis {
        Analysis {
            lines,
            nodes: self.nodes,
            elapsed: self.started.elapsed(),
            rounds,
            complete,
        }
    }

    /// The best `lines` moves of `game` (1 to [`MAX_LINES`]), each searched
    /// under `limits`: the best move, then the best with it left out, and
    /// so on, sorted best first at the end. `progress` gets the lines
    /// found so far after each. A stop ends it with the lines finished
    /// before (the one it cut short too, if it is the first).
    ///
    /// # Errors
    /// [`EngineError::GameOver`] when the game is over.
    pub fn analyse(
        &mut self,
        game: &Game,
        lines: usize,
        limits: Limits,
        stop: &StopFlag,
        progress: &mut dyn FnMut(&Analysis),
    ) -> Result<Analysis, EngineError> {
        self.round(game, lines, limits, stop, None, 1, progress)
    }

    /// A round of [`Analyser::analyse`]; before `previous`'s lines
    /// (the last round's) are reported with those found so far.
    #[allow(clippy::too_many_arguments)]
    fn round(
        &mut self,
        game: &Game,
        lines: usize,
        limits: Limits,
        stop: &StopFlag,
        previous: Option<&Analysis>,
        rounds: u32,
        progress: &mut dyn FnMut(&Analysis),
    ) -> Result<Analysis, EngineError> {
        if game.is_over() {
            return Err(EngineError::GameOver);
        }
        let wanted = lines.clamp(1, MAX_LINES);
        let mut found: Vec<Line> = Vec::with_capacity(wanted);
        let mut complete = true;
        while found.len() < wanted {
            let excluded: Vec<Pos> = found.iter().map(|l| l.mv).collect();
            let Some((line, cut)) = self.line(game, &excluded, limits, stop) else {
                break;
            };
            if cut {
                complete = false;
                if found.is_empty() && previous.is_none() {
                    found.push(line);
                }
                break;
            }
            found.push(line);
            sort_lines(&mut found);
            let shown = merged(&found, previous, wanted);
            progress(&self.report(shown, rounds - 1, false));
        }
        if found.is_empty() && complete {
            return Err(EngineError::GameOver);
        }
        let lines = if complete {
            found
        } else {
            merged(&found, previous, wanted)
        };
        Ok(self.report(lines, if complete { rounds } else { rounds - 1 }, complete))
    }

    /// [`Analyser::analyse`] in rounds of growing node budgets
    /// ([`Deepening`]), until `stop` is set, the budget passes its cap, or
    /// every line's result is proven. `progress` gets the analysis after
    /// each line: the round's lines so far, then the last round's others.
    ///
    /// # Errors
    /// [`EngineError::GameOver`] when the game is over.
    pub fn deepen(
        &mut self,
        game: &Game,
        lines: usize,
        deepening: Deepening,
        stop: &StopFlag,
        progress: &mut dyn FnMut(&Analysis),
    ) -> Result<Analysis, EngineError> {
        let mut budget = deepening.first_nodes.max(1);
        let mut last: Option<Analysis> = None;
        let mut rounds = 1;
        loop {
            let limits = Limits {
                nodes: Some(budget),
                ..Limits::default()
            };
            let analysis =
                self.round(game, lines, limits, stop, last.as_ref(), rounds, progress)?;
            if !analysis.complete {
                progress(&analysis);
                return Ok(analysis);
            }
            progress(&analysis);
            let proven = analysis
                .lines
                .iter()
                .all(|l| !matches!(l.score, Score::Eval(_)));
            if proven || budget >= deepening.max_nodes || stop.is_set() {
                return Ok(analysis);
            }
            last = Some(analysis);
            budget = budget.saturating_mul(2).min(deepening.max_nodes);
            rounds += 1;
        }
    }
}

/// Best first; ties keep the order found.
fn sort_lines(lines: &mut [Line]) {
    lines.sort_by_key(|l| std::cmp::Reverse(rank(l.score)));
}

/// `found`, then `previous`'s lines of other moves, `wanted` at most.
fn merged(found: &[Line], previous: Option<&Analysis>, wanted: usize) -> Vec<Line> {
    let mut out = found.to_vec();
    if let Some(previous) = previous {
        for line in &previous.lines {
            if out.len() >= wanted {
                break;
            }
            if !out.iter().any(|l| l.mv == line.mv) {
                out.push(line.clone());
            }
        }
    }
    out
}

/// How much a move lost: a mark at [`INACCURACY`], [`MISTAKE`] and
/// [`BLUNDER`] win-chance points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mark {
    /// Lost at least [`INACCURACY`].
    Inaccuracy,
    /// Lost at least [`MISTAKE`].
    Mistake,
    /// Lost at least [`BLUNDER`].
    Blunder,
}

impl Mark {
    /// The mark of a move that lost `loss` win-chance points, if any.
    #[must_use]
    pub fn of_loss(loss: f64) -> Option<Mark> {
        if loss >= BLUNDER {
            Some(Mark::Blunder)
        } else if loss >= MISTAKE {
            Some(Mark::Mistake)
        } else if loss >= INACCURACY {
            Some(Mark::Inaccuracy)
        } else {
            None
        }
    }

    /// `inaccuracy`, `mistake` or `blunder`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "inaccuracy",
            Mark::Mistake => "mistake",
            Mark::Blunder => "blunder",
        }
    }
}

/// One move of a reviewed game.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview {
    /// The move's number, from 1.
    pub ply: usize,
    /// The move.
    pub mv: Pos,
    /// Who played it.
    pub color: Color,
    /// The win chance its mover lost by it (0 when it was the engine's
    /// choice).
    pub loss: f64,
    /// Its mark, by [`Mark::of_loss`].
    pub mark: Option<Mark>,
    /// The engine's move there, when it is another.
    pub best: Option<Pos>,
    /// The engine's line from there (empty when the move was its choice).
    pub best_line: Vec<Pos>,
}

/// A game reviewed: black's chance at every position and a review of
/// every move, as far as the analysis got.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GameAnalysis {
    /// Positions to analyse: the moves and the start.
    pub total: usize,
    /// Black's chance to win at each position analysed so far, from the
    /// start (ply 0) on: one a move, and one for the start.
    pub points: Vec<f64>,
    /// The moves reviewed so far (move `n` once positions `n - 1` and
    /// `n` are analysed).
    pub moves: Vec<MoveReview>,
}

impl GameAnalysis {
    /// Whether every position is analysed.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.points.len() == self.total
    }
}

/// Why a game cannot be reviewed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReviewError {
    /// A move of the game does not replay.
    #[error("move {number}: {error}")]
    Move {
        /// Its number, from 1.
        number: usize,
        /// Why.
        error: MoveError,
    },
    /// The game's setup does not make a position.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A stop ended the review before its end.
    #[error("the analysis was stopped")]
    Stopped,
}

/// The engine's verdict on one position: the side to move's chance and
/// its best line (none where the game is over).
fn judge(
    analyser: &mut Analyser,
    game: &Game,
    limits: Limits,
    stop: &StopFlag,
) -> Result<(f64, Option<Line>), ReviewError> {
    if let Some(outcome) = game.outcome() {
        let black = black_chance_of_result(outcome.winner());
        return Ok((black_chance(game.to_move(), black), None));
    }
    match analyser.line(game, &[], limits, stop) {
        Some((_, true)) => Err(ReviewError::Stopped),
        Some((line, false)) => Ok((line.win_chance(), Some(line))),
        // No move to make: a draw.
        None if stop.is_set() => Err(ReviewError::Stopped),
        None => Ok((0.5, None)),
    }
}

/// Reviews `game` from its start (its placed stones, if any) through its
/// moves: each position searched by `caro:10` under `limits` (give a
/// depth or a node budget, not a time, for results that repeat), one
/// position after the other with one hash table. `progress` gets the
/// review so far after each position.
///
/// The loss of a move is its mover's chance by the engine's best move
/// less the mover's chance after the move, never below 0, and 0 when the
/// move is the engine's choice.
///
/// # Errors
/// [`ReviewError`] when a move does not replay or a stop ends it early.
pub fn analyse_game(
    game: &Game,
    limits: Limits,
    stop: &StopFlag,
    progress: &mut dyn FnMut(&GameAnalysis),
) -> Result<GameAnalysis, ReviewError> {
    let mut setup = game.to_setup();
    let moves = std::mem::take(&mut setup.moves);
    let mut position = Game::from_setup(&setup)?;
    let mut analyser = Analyser::new();
    let mut review = GameAnalysis {
        total: moves.len() + 1,
        ..GameAnalysis::default()
    };
    let (mut chance, mut best) = judge(&mut analyser, &position, limits, stop)?;
    review.points.push(black_chance(position.to_move(), chance));
    progress(&review);
    for (n, &mv) in moves.iter().enumerate() {
        let mover = position.to_move();
        position
            .play_refereed(mv)
            .map_err(|error| ReviewError::Move {
                number: n + 1,
                error,
            })?;
        let (next_chance, next_best) = judge(&mut analyser, &position, limits, stop)?;
        let after = 1.0 - next_chance;
        let engine_move = best.as_ref().is_some_and(|b| b.mv == mv);
        let loss = if engine_move {
            0.0
        } else {
            (chance - after).max(0.0)
        };
        let (best_move, best_line) = match best.take() {
            Some(line) if !engine_move => (Some(line.mv), line.pv),
            _ => (None, Vec::new()),
        };
        review.moves.push(MoveReview {
            ply: n + 1,
            mv,
            color: mover,
            loss,
            mark: Mark::of_loss(loss),
            best: best_move,
            best_line,
        });
        review
            .points
            .push(black_chance(position.to_move(), next_chance));
        progress(&review);
        chance = next_chance;
        best = next_best;
    }
    Ok(review)
}

#[cfg(test)]
mod tests {
    use super::*;
    use caro_core::notation::parse_move_list;
    use caro_core::{BoardSize, Rule, Rules};

    fn game(moves: &str) -> Game {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let m = parse_move_list(moves, rules.size).unwrap();
        Game::from_moves(rules, Color::Black, &m).unwrap()
    }

    fn pos(s: &str) -> Pos {
        parse_move_list(s, BoardSize::square(15)).unwrap()[0]
    }

    #[test]
    fn win_chance_is_a_half_at_zero_and_certain_for_proven_results() {
        assert!((win_chance(Score::Eval(0)) - 0.5).abs() < 1e-12);
        assert!(win_chance(Score::Eval(300)) > 0.5);
        assert!((win_chance(Score::Eval(300)) + win_chance(Score::Eval(-300)) - 1.0).abs() < 1e-12);
        assert!(win_chance(Score::Eval(50)) < win_chance(Score::Eval(100)));
        assert_eq!(win_chance(Score::WinIn(5)), 1.0);
        assert_eq!(win_chance(Score::Win), 1.0);
        assert_eq!(win_chance(Score::LossIn(4)), 0.0);
    }

    #[test]
    fn marks_follow_the_thresholds() {
        assert_eq!(Mark::of_loss(0.05), None);
        assert_eq!(Mark::of_loss(0.10), Some(Mark::Inaccuracy));
        assert_eq!(Mark::of_loss(0.25), Some(Mark::Mistake));
        assert_eq!(Mark::of_loss(0.30), Some(Mark::Blunder));
        assert_eq!(Mark::of_loss(1.0), Some(Mark::Blunder));
    }

    #[test]
    fn lines_are_sorted_best_first() {
        let line = |score| Line {
            mv: Pos::new(0, 0),
            score,
            pv: Vec::new(),
            depth: 1,
        };
        let mut lines = vec![
            line(Score::Eval(10)),
            line(Score::LossIn(4)),
            line(Score::WinIn(9)),
            line(Score::LossIn(8)),
            line(Score::Win),
            line(Score::WinIn(3)),
        ];
        sort_lines(&mut lines);
        let scores: Vec<Score> = lines.iter().map(|l| l.score).collect();
        assert_eq!(
            scores,
            [
                Score::WinIn(3),
                Score::WinIn(9),
                Score::Win,
                Score::Eval(10),
                Score::LossIn(8),
                Score::LossIn(4)
            ]
        );
    }

    #[test]
    fn a_forced_win_comes_first_with_a_certain_chance() {
        // Black has an open three h8 i8 j8 (g8 and k8 free) and moves:
        // the open four wins.
        let g = game("h8 h10 i8 i10 j8 a1");
        let a = Analyser::new()
            .analyse(&g, 3, Limits::depth(4), &StopFlag::new(), &mut |_| {})
            .unwrap();
        assert_eq!(a.lines.len(), 3);
        assert_eq!(a.win_chance(), Some(1.0));
        assert!(matches!(a.lines[0].score, Score::WinIn(_) | Score::Win));
        assert!([pos("g8"), pos("k8")].contains(&a.lines[0].mv));
    }

    #[test]
    fn lines_are_distinct_and_never_an_excluded_move() {
        let g = game("h8 i9 h10 g9 i10");
        let mut seen = 0;
        let a = Analyser::new()
            .analyse(&g, 4, Limits::depth(3), &StopFlag::new(), &mut |p| {
                seen += 1;
                let mut moves: Vec<Pos> = p.lines.iter().map(|l| l.mv).collect();
                moves.sort();
                moves.dedup();
                assert_eq!(moves.len(), p.lines.len(), "distinct as they come");
            })
            .unwrap();
        assert_eq!(seen, 4, "a report after each line");
        assert_eq!(a.lines.len(), 4);
        let mut moves: Vec<Pos> = a.lines.iter().map(|l| l.mv).collect();
        moves.sort();
        moves.dedup();
        assert_eq!(moves.len(), 4);
        for l in &a.lines {
            assert_eq!(l.pv.first(), Some(&l.mv));
            assert!(g.check(l.mv).is_ok());
        }
        // The exclusion hook itself: never an excluded move, even the
        // only sensible one, nor a winning one.
        let win = game("h8 h10 i8 i10 j8 a1 k8 a2");
        for excluded in [vec![pos("g8")], vec![pos("g8"), pos("l8")]] {
            let mut p = CaroPlayer::new(10, 0);
            p.set_excluded_root_moves(&excluded);
            let mut sink = |_: &SearchInfo| {};
            let mut ctx = Context::new(Limits::depth(3), StopFlag::new(), &mut sink);
            let d = p.choose(&win, &mut ctx).unwrap();
            assert!(!excluded.contains(&d.best), "{:?}", d.best);
        }
    }

    #[test]
    fn an_empty_board_gives_lines_near_the_centre() {
        // With the centre (the only candidate on an empty board) excluded,
        // the next lines are searched points around it, not the corner.
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let g = Game::new(rules, Color::Black).unwrap();
        let limits = Limits {
            nodes: Some(20_000),
            ..Limits::default()
        };
        let a = Analyser::new()
            .analyse(&g, 3, limits, &StopFlag::new(), &mut |_| {})
            .unwrap();
        assert_eq!(a.lines.len(), 3);
        let centre = rules.size.center();
        for l in &a.lines {
            let d = l.mv.x.abs_diff(centre.x).max(l.mv.y.abs_diff(centre.y));
            assert!(d <= 2, "{l:?} is far from the centre");
            assert!(l.depth > 0, "{l:?} was not searched");
        }
    }

    #[test]
    fn every_move_excluded_is_no_line() {
        // 3×3 with one point left: excluding it leaves nothing.
        let rules = Rules::new(BoardSize::square(3), 3, Rule::Freestyle).unwrap();
        let m = parse_move_list("a1 b2 c1 b1 b3 a2 c2 c3", rules.size).unwrap();
        let g = Game::from_moves(rules, Color::Black, &m).unwrap();
        let a = Analyser::new()
            .analyse(&g, 3, Limits::depth(2), &StopFlag::new(), &mut |_| {})
            .unwrap();
        assert_eq!(g.legal_moves().len(), 1);
        assert_eq!(a.lines.len(), 1);
        assert_eq!(a.lines[0].mv, g.legal_moves()[0]);
    }

    #[test]
    fn deepening_reports_rounds_and_stops_at_its_cap() {
        let g = game("h8 i9 h10 g9");
        let mut reports = 0;
        let a = Analyser::new()
            .deepen(
                &g,
                2,
                Deepening {
                    first_nodes: 500,
                    max_nodes: 2_000,
                },
                &StopFlag::new(),
                &mut |_| reports += 1,
            )
            .unwrap();
        assert!(a.complete);
        assert_eq!(a.rounds, 3, "500, 1000 and 2000 nodes a line");
        assert_eq!(a.lines.len(), 2);
        assert!(reports >= 6);
        // Stopped before it starts: nothing but the first line.
        let stop = StopFlag::new();
        stop.stop();
        let a = Analyser::new()
            .deepen(&g, 3, Deepening::default(), &stop, &mut |_| {})
            .unwrap();
        assert!(!a.complete);
        assert!(a.lines.len() <= 1);
    }

    #[test]
    fn a_game_over_has_no_lines() {
        let g = game("h8 a1 i8 a2 j8 a3 k8 a4 l8");
        assert!(g.is_over());
        assert_eq!(
            Analyser::new().analyse(&g, 3, Limits::depth(2), &StopFlag::new(), &mut |_| {}),
            Err(EngineError::GameOver)
        );
    }

    #[test]
    fn ignoring_an_open_three_is_a_blunder() {
        // Black makes an open three (h8 i8 j8); white plays far away
        // (a15) instead of meeting it, and black's open four wins.
        let g = game("h8 h10 i8 i10 j8 a15 k8 b15 l8");
        let mut reports = 0;
        let review = analyse_game(&g, Limits::depth(3), &StopFlag::new(), &mut |_| {
            reports += 1
        })
        .unwrap();
        assert!(review.is_done());
        assert_eq!(reports, 10);
        assert_eq!(review.points.len(), g.moves().len() + 1);
        assert_eq!(review.moves.len(), g.moves().len());
        assert_eq!(*review.points.last().unwrap(), 1.0, "black made five");
        let blunder = &review.moves[5];
        assert_eq!((blunder.ply, blunder.mv), (6, pos("a15")));
        assert_eq!(blunder.color, Color::White);
        assert_eq!(blunder.mark, Some(Mark::Blunder), "{blunder:?}");
        let best = blunder.best.expect("a better move");
        assert!([pos("g8"), pos("k8")].contains(&best), "{best:?}");
        assert_eq!(blunder.best_line.first(), Some(&best));
        assert_eq!(review.points[6], 1.0, "black wins by force after it");
        // White to move against black's open four: black's chance, not
        // the side to move's.
        assert_eq!(review.points[7], 1.0, "white to move, lost");
        assert_eq!(review.moves[7].color, Color::White);
        // The winning moves of black are the engine's own: no loss.
        assert_eq!(review.moves[6].loss, 0.0);
        assert_eq!(review.moves[8].mark, None);
        // The same again, to the last digit.
        let again = analyse_game(&g, Limits::depth(3), &StopFlag::new(), &mut |_| {}).unwrap();
        assert_eq!(again, review);
    }

    #[test]
    fn a_stopped_review_says_so() {
        let g = game("h8 h10 i8");
        let stop = StopFlag::new();
        stop.stop();
        assert_eq!(
            analyse_game(&g, Limits::depth(3), &stop, &mut |_| {}),
            Err(ReviewError::Stopped)
        );
    }
}
