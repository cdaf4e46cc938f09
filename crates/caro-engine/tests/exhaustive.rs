//! The engine's claims of a forced result checked against the whole game
//! tree: on small boards with only a few empty points left, a position's
//! exact value (win, loss or draw) is found by trying every legal move to
//! the end, and whether a side can win within so many plies by trying
//! every move and every reply. A win the VCF or VCT solver proves must be
//! one there, and so must a forced win or loss the `caro` search reports,
//! within the plies it says where it gives them, under every rule (exact
//! fives, caro's blocked fives, renju's fouls). A position where the
//! full-width search gives up (past [`EXACT_NODES`]) is drawn again. The
//! reference reads fives and fouls through the rules core
//! (`Board::would_win`, `Board::foul_at`), which has its own tests
//! against naive references: this test checks the engine, not the
//! rules. `PROPTEST_CASES=N` runs more positions.

use std::collections::HashMap;

use caro_core::notation::{format_move_list, format_pos};
use caro_core::{Board, BoardSize, Color, Game, Pos, Rule, Rules};
use caro_engine::player::{Context, Limits, Player, PlayerSpec, Score, SearchInfo, StopFlag};
use caro_engine::search::{solve_vcf, solve_vct_with, solve_vct_within, VctSolver, VctVerdict};
use proptest::prelude::*;

/// Most empty points a position to solve may have.
const MAX_EMPTY: usize = 18;

/// Alpha-beta bounds of a stored value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

/// The game's exact value by a full-width alpha-beta search to the end:
/// 1 a win for the side to move, 0 a draw, −1 a loss. Every legal move is
/// tried, with two reductions that cannot change the value: a five is
/// played at once, and a side facing the other's five (a point where it
/// would make one) tries only the points that stop it, every other move
/// losing at once (not under caro, where a stone at the end of the five's
/// line may cap it instead). A side with no legal move (renju: only
/// forbidden points left) draws.
struct Exact {
    board: Board,
    rules: Rules,
    to_move: Color,
    table: HashMap<u64, (i8, Bound)>,
    nodes: u64,
}

/// Positions [`Exact`] may visit before it gives up.
const EXACT_NODES: u64 = 3_000_000;

impl Exact {
    fn new(game: &Game) -> Exact {
        Exact {
            board: game.board().clone(),
            rules: *game.rules(),
            to_move: game.to_move(),
            table: HashMap::new(),
            nodes: 0,
        }
    }

    /// The position's value; `None` if the search gave up.
    fn root_value(&mut self) -> Option<i8> {
        self.nodes = 0;
        self.value(-1, 1)
    }

    /// Whether the side to move wins within `plies` plies (see
    /// [`Exact::wins_within`]); `None` if the search gave up.
    fn wins_in(&mut self, plies: u32) -> Option<bool> {
        self.nodes = 0;
        self.wins_within(plies, &mut HashMap::new())
    }

    /// Whether the side to move loses within `plies` plies whatever it
    /// plays; `None` if the search gave up.
    fn loses_in(&mut self, plies: u32) -> Option<bool> {
        self.nodes = 0;
        self.every_reply_loses(plies.saturating_sub(1), &mut HashMap::new())
    }

    /// The value of the position after the side to move plays `m`, for
    /// the side that played it; `None` if the search gave up.
    fn after(&mut self, m: Pos) -> Option<i8> {
        self.nodes = 0;
        let me = self.to_move;
        let i = self.board.index(m);
        if self.board.would_win(i, me, &self.rules).is_some() {
            return Some(1);
        }
        self.board.place(i, me);
        self.to_move = me.opponent();
        let v = if self.board.is_full() {
            Some(0)
        } else {
            self.value(-1, 1).map(|v| -v)
        };
        self.to_move = me;
        self.board.remove(i);
        v
    }

    /// Whether the side to move, playing `m`, makes five within `plies`
    /// plies (counting `m`) whatever the other side does; `None` if the
    /// search gave up.
    fn move_wins_in(&mut self, m: Pos, plies: u32) -> Option<bool> {
        self.nodes = 0;
        let me = self.to_move;
        let i = self.board.index(m);
        if self.board.would_win(i, me, &self.rules).is_some() {
            return Some(plies >= 1);
        }
        if plies < 3 {
            return Some(false);
        }
        self.board.place(i, me);
        self.to_move = me.opponent();
        let holds = self.every_reply_loses(plies - 2, &mut HashMap::new());
        self.to_move = me;
        self.board.remove(i);
        holds
    }

    /// Whether the side to move can make five within `plies` plies of
    /// both sides (counting the five) whatever the other side does;
    /// `None` if the search gave up.
    fn wins_within(&mut self, plies: u32, memo: &mut HashMap<(u64, u32), bool>) -> Option<bool> {
        if plies == 0 {
            return Some(false);
        }
        self.nodes += 1;
        if self.nodes > EXACT_NODES {
            return None;
        }
        let key = (self.key(), plies);
        if let Some(&w) = memo.get(&key) {
            return Some(w);
        }
        let me = self.to_move;
        let mut won = false;
        for i in self.legal() {
            if self.board.would_win(i, me, &self.rules).is_some() {
                won = true;
                break;
            }
            if plies < 3 {
                continue;
            }
            self.board.place(i, me);
            self.to_move = me.opponent();
            let holds = self.every_reply_loses(plies - 2, memo);
            self.to_move = me;
            self.board.remove(i);
            if holds? {
                won = true;
                break;
            }
        }
        memo.insert(key, won);
        Some(won)
    }

    /// Whether every legal reply of the side to move leaves the other
    /// side a win within `plies` plies (none left: a draw, so no);
    /// `None` if the search gave up.
    fn every_reply_loses(
        &mut self,
        plies: u32,
        memo: &mut HashMap<(u64, u32), bool>,
    ) -> Option<bool> {
        let me = self.to_move;
        let replies = self.legal();
        if replies.is_empty() || self.board.is_full() {
            return Some(false);
        }
        for r in replies {
            if self.board.would_win(r, me, &self.rules).is_some() {
                return Some(false);
            }
            self.board.place(r, me);
            self.to_move = me.opponent();
            let lost = if self.board.is_full() {
                Some(false)
            } else {
                self.wins_within(plies, memo)
            };
            self.to_move = me;
            self.board.remove(r);
            if !lost? {
                return Some(false);
            }
        }
        Some(true)
    }

    /// The position's key: stones and side to move.
    fn key(&self) -> u64 {
        match self.to_move {
            Color::Black => self.board.hash(),
            Color::White => self.board.hash() ^ caro_core::zobrist::WHITE_TO_MOVE,
        }
    }

    /// The side to move's legal points.
    fn legal(&mut self) -> Vec<usize> {
        let me = self.to_move;
        let empty: Vec<usize> = self
            .board
            .empty_points()
            .map(|p| self.board.index(p))
            .collect();
        empty
            .into_iter()
            .filter(|&i| {
                let pos = self.board.pos(i);
                self.board.foul_at(pos, me, self.rules.rule).is_none()
            })
            .collect()
    }

    /// The position's value within the window (`alpha`, `beta`); `None`
    /// past [`EXACT_NODES`].
    fn value(&mut self, mut alpha: i8, beta: i8) -> Option<i8> {
        self.nodes += 1;
        if self.nodes > EXACT_NODES {
            return None;
        }
        let key = self.key();
        if let Some(&(v, bound)) = self.table.get(&key) {
            match bound {
                Bound::Exact => return Some(v),
                Bound::Lower if v >= beta => return Some(v),
                Bound::Upper if v <= alpha => return Some(v),
                _ => {}
            }
        }
        let me = self.to_move;
        let legal = self.legal();
        if legal.is_empty() {
            return Some(0);
        }
        if legal
            .iter()
            .any(|&i| self.board.would_win(i, me, &self.rules).is_some())
        {
            return Some(1);
        }
        let empty: Vec<usize> = self
            .board
            .empty_points()
            .map(|p| self.board.index(p))
            .collect();
        let fives: Vec<usize> = empty
            .into_iter()
            .filter(|&i| {
                self.board
                    .would_win(i, me.opponent(), &self.rules)
                    .is_some()
            })
            .collect();
        // Under caro a five can also be capped (a stone at the end of
        // its line, the other end held already): every move is tried.
        let caps = matches!(self.rules.rule, Rule::Caro | Rule::CaroStandard);
        let moves: Vec<usize> = if fives.is_empty() || caps {
            legal
        } else {
            let stops: Vec<usize> = legal.into_iter().filter(|i| fives.contains(i)).collect();
            if stops.is_empty() {
                return Some(-1);
            }
            stops
        };
        let original_alpha = alpha;
        let mut best = -1;
        for i in moves {
            self.board.place(i, me);
            self.to_move = me.opponent();
            let v = if self.board.is_full() {
                Some(0)
            } else {
                self.value(-beta, -alpha).map(|v| -v)
            };
            self.to_move = me;
            self.board.remove(i);
            let v = v?;
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table.insert(key, (best, bound));
        Some(best)
    }
}

/// Rules on a board of 4×4 to 8×8 (rectangular too) with a win length
/// that fits.
fn rules() -> impl Strategy<Value = Rules> {
    (4u8..=8, 4u8..=8, 3u8..=5, 0..Rule::ALL.len()).prop_filter_map(
        "no such rules",
        |(w, h, k, r)| {
            let rule = Rule::ALL[r];
            let k = if rule == Rule::Renju { 5 } else { k };
            if k > w.max(h) {
                return None;
            }
            let size = BoardSize::new(w, h).ok()?;
            Rules::new(size, k, rule).ok()
        },
    )
}

/// A game of random moves, none of which ends it, until only `empty`
/// points are left and the side to move has no five to make. With
/// `quiet`, no move leaves the other side a five to make either, and a
/// game where no such move is left stops there if at most [`MAX_EMPTY`]
/// points are empty. `None` if the moves run out or the last position
/// has a five to make.
fn nearly_full(rules: Rules, empty: usize, quiet: bool, seed: u64) -> Option<Game> {
    let mut game = Game::new(rules, Color::Black).ok()?;
    let cells = usize::from(rules.size.width) * usize::from(rules.size.height);
    let mut state = seed | 1;
    let mut next = move || {
        // xorshift64: a fixed sequence for each seed.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    while cells - game.moves().len() > empty {
        let mut moves = game.legal_moves();
        let mut played = false;
        while !moves.is_empty() {
            let m = moves.swap_remove((next() % moves.len() as u64) as usize);
            game.try_play(m).ok()?;
            let unfit = game.is_over() || (quiet && has_five(&mut game));
            if !unfit {
                played = true;
                break;
            }
            game.undo();
        }
        if !played {
            // Every move ends the game or hands the other side a five.
            if !quiet || cells - game.moves().len() > MAX_EMPTY {
                return None;
            }
            break;
        }
    }
    (!has_five(&mut game)).then_some(game)
}

/// Whether the side to move can make five at once.
fn has_five(game: &mut Game) -> bool {
    game.legal_moves().into_iter().any(|m| {
        let won = matches!(game.try_play(m), Ok(Some(o)) if o.winner().is_some());
        game.undo();
        won
    })
}

/// The moves of `game` in notation, to replay a failing case.
fn record(game: &Game) -> String {
    let r = game.rules();
    format!(
        "{:?} {}x{} k={}: {}",
        r.rule,
        r.size.width,
        r.size.height,
        r.k,
        format_move_list(game.moves(), r.size)
    )
}

/// The `caro` search's report at level 10 to a fixed depth.
fn search(game: &Game, depth: u32) -> (Pos, Option<Score>) {
    let mut sink = |_: &SearchInfo| {};
    let limits = Limits {
        depth: Some(depth),
        nodes: Some(200_000),
        ..Limits::default()
    };
    let mut ctx = Context::new(limits, StopFlag::new(), &mut sink);
    let mut player: Box<dyn Player> = PlayerSpec::Caro(10).build(1);
    let decision = player
        .choose(game, &mut ctx)
        .expect("a game not over has a move");
    (decision.best, decision.info.map(|i| i.score))
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 32,
        // Most random fillings end in a five to make: drawn again.
        max_global_rejects: 1 << 20,
        ..ProptestConfig::default()
    })]

    #[test]
    fn forced_results_claimed_are_forced(
        rules in rules(),
        empty in 4usize..=MAX_EMPTY,
        quiet in any::<bool>(),
        seed in any::<u64>(),
        depth in 1u32..=6,
    ) {
        let game = nearly_full(rules, empty, quiet, seed);
        prop_assume!(game.is_some());
        let game = game.expect("assumed");
        let mut exact = Exact::new(&game);
        let value = exact.root_value();
        prop_assume!(value.is_some());
        let value = value.expect("assumed");
        let case = record(&game);
        let at = |p: Pos| format_pos(p, rules.size);

        if let Some(m) = solve_vcf(&game, 30, 20_000) {
            let after = exact.after(m);
            prop_assume!(after.is_some());
            prop_assert!(after == Some(1), "VCF claims {} wins, but it does not ({case})", at(m));
        }
        let vct = solve_vct_within(&game, 20_000, 1);
        if let VctVerdict::Win(m) = vct.verdict {
            let after = exact.after(m);
            prop_assume!(after.is_some());
            prop_assert!(after == Some(1), "VCT claims {} wins, but it does not ({case})", at(m));
        }
        // Each of the race's two solvers alone; neither may rule out a
        // win the other proves.
        let mut verdicts = Vec::new();
        for solver in [VctSolver::Full, VctSolver::Refined] {
            let alone = solve_vct_with(&game, 20_000, 1, solver);
            verdicts.push(alone.verdict);
            // A claim the full-width search cannot settle is skipped
            // alone, so the other solver's and the agreement are still
            // checked.
            if let VctVerdict::Win(m) = alone.verdict {
                if let Some(after) = exact.after(m) {
                    prop_assert!(after == 1, "{solver:?} VCT claims {} wins, but it does not ({case})", at(m));
                }
            }
        }
        let ruled_out = verdicts.contains(&VctVerdict::NoWin);
        let proven = verdicts.iter().any(|v| matches!(v, VctVerdict::Win(_)));
        prop_assert!(!(ruled_out && proven), "the VCT solvers disagree: {verdicts:?} ({case})");

        let (best, score) = search(&game, depth);
        match score {
            Some(Score::WinIn(n)) => {
                prop_assert!(value == 1, "the search claims a win in {n}, the position is worth {value} ({case})");
                let within = exact.wins_in(n);
                prop_assume!(within.is_some());
                prop_assert!(within == Some(true), "the search claims a win in {n}, there is none that short ({case})");
                let after = exact.after(best);
                prop_assume!(after.is_some());
                prop_assert!(after == Some(1), "the search claims a win in {n} with {}, which does not win ({case})", at(best));
                let by_best = exact.move_wins_in(best, n);
                prop_assume!(by_best.is_some());
                prop_assert!(by_best == Some(true), "the search claims a win in {n} with {}, which takes longer ({case})", at(best));
            }
            Some(Score::Win) => {
                prop_assert!(value == 1, "the search claims a win, the position is worth {value} ({case})");
                let after = exact.after(best);
                prop_assume!(after.is_some());
                prop_assert!(after == Some(1), "the search claims a win with {}, which does not win ({case})", at(best));
            }
            Some(Score::LossIn(n)) => {
                prop_assert!(value == -1, "the search claims a loss in {n}, the position is worth {value} ({case})");
                let within = exact.loses_in(n);
                prop_assume!(within.is_some());
                prop_assert!(within == Some(true), "the search claims a loss in {n}, a defence holds longer ({case})");
            }
            Some(Score::Eval(_)) | None => {}
        }
    }
}

/// Games of random legal moves under renju on 5×5 to 9×9 boards that end
/// with black left no legal move (every empty point forbidden: a draw,
/// though the board is not full), as about one game in 250 does. Black
/// facing a five it may not stop then draws instead of losing, and a
/// black move off a threat's points may spoil the threat by using up
/// black's last legal point. In each of the last seven positions before
/// the end, every win the solvers prove and every forced result the
/// search reports must hold there.
#[test]
fn claims_hold_where_black_runs_out_of_moves() {
    const GAMES: usize = 30;
    let mut stuck_games = 0;
    for seed in 1..=20_000u64 {
        let w = 5 + (seed % 5) as u8;
        let h = 5 + ((seed / 5) % 5) as u8;
        let size = BoardSize::new(w, h).expect("a board of 5 to 9 a side");
        let rules = Rules::new(size, 5, Rule::Renju).expect("five fits");
        let Some(moves) = game_to_a_stuck_black(rules, seed) else {
            continue;
        };
        stuck_games += 1;
        for back in 1..=7.min(moves.len()) {
            let mut game = Game::new(rules, Color::Black).expect("renju rules");
            for &m in &moves[..moves.len() - back] {
                game.try_play(m).expect("a move of the game");
            }
            check_claims(&game);
        }
        if stuck_games == GAMES {
            break;
        }
    }
    assert_eq!(
        stuck_games, GAMES,
        "fewer than {GAMES} games of seeds 1..=20000 end with black stuck"
    );
}

/// Positions a few moves before black is left with no legal move, each
/// once claimed won: a VCT whose defences left out black's last legal
/// point (8×8, 7×9), and an open four as the root's only move (8×6).
#[test]
fn claims_hold_in_positions_once_misjudged() {
    let cases = [
        (
            8,
            8,
            "b5 a3 h4 e1 f1 d2 f3 b7 a6 h1 c1 b3 f4 e2 f6 f7 c4 c5 a5 g8 d8 b1 h7 b6 h5 g4 d4 \
             g5 g1 h6 e7 e4 a2 b4 f5 c8 c3 e6 d5 d6 g6 a4 h3 h8 e5 a8 d3 c7 d7 g7 a1 f8 h2 c6 \
             e3 e8 g2 b8 a7",
        ),
        (
            7,
            9,
            "c7 d9 f7 g1 e8 a4 f3 e9 d5 c1 d1 a3 b2 c8 d8 f1 a8 a5 f4 f5 b7 a9 g9 b5 b1 b8 f6 \
             b9 c2 g5 c5 a1 b4 d2 g4 g2 c4 f2 b3 d3 f8 g6 c9 g8 e1 e5 a7 b6 a2 f9 d7 g7 c6 e3 \
             g3 e2 d4",
        ),
        (
            8,
            6,
            "a3 g5 d6 d2 f6 b5 c3 b4 g3 c6 c5 h4 e3 g4 f3 e5 a1 b1 g2 d4 f1 e1 g6 e6 a5 b6 h5 \
             e2 a4 c4 d1 b2 h3 d3 g1 e4 f4 c1 f5 h1 b3 h2 a6 d5 h6",
        ),
    ];
    for (w, h, moves) in cases {
        let size = BoardSize::new(w, h).expect("a small board");
        let rules = Rules::new(size, 5, Rule::Renju).expect("five fits");
        let mut game = Game::new(rules, Color::Black).expect("renju rules");
        for m in caro_core::notation::parse_move_list(moves, size).expect("a move list") {
            game.try_play(m).expect("a legal move");
        }
        check_claims(&game);
    }
}

/// The moves of a renju game of random legal moves from `seed` that ends
/// with black to move and no legal move on a board not full; `None` if
/// it ends otherwise.
fn game_to_a_stuck_black(rules: Rules, seed: u64) -> Option<Vec<Pos>> {
    let mut game = Game::new(rules, Color::Black).ok()?;
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    while !game.is_over() {
        // xorshift64: a fixed sequence for each seed.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let moves = game.legal_moves();
        let m = *moves.get((state % moves.len() as u64) as usize)?;
        game.try_play(m).ok()?;
    }
    let full = game.board().is_full();
    (game.outcome() == Some(&caro_core::Outcome::Draw) && !full).then(|| game.moves().to_vec())
}

/// Every win `solve_vcf` and `solve_vct_within` prove in `game` must win,
/// and every forced result the search reports (depth 2 and 5) must hold.
fn check_claims(game: &Game) {
    if game.is_over() {
        return;
    }
    let size = game.rules().size;
    let case = record(game);
    let mut exact = Exact::new(game);
    if let Some(m) = solve_vcf(game, 30, 20_000) {
        let at = format_pos(m, size);
        assert_eq!(
            exact.after(m),
            Some(1),
            "VCF claims {at} wins, but it does not ({case})"
        );
    }
    for solver in [VctSolver::Race, VctSolver::Full, VctSolver::Refined] {
        if let VctVerdict::Win(m) = solve_vct_with(game, 20_000, 1, solver).verdict {
            let at = format_pos(m, size);
            assert_eq!(
                exact.after(m),
                Some(1),
                "{solver:?} VCT claims {at} wins, but it does not ({case})"
            );
        }
    }
    for depth in [2, 5] {
        let (best, score) = search(game, depth);
        let at = format_pos(best, size);
        match score {
            Some(Score::WinIn(n)) => assert_eq!(
                exact.move_wins_in(best, n),
                Some(true),
                "the search claims a win in {n} with {at}, which does not hold ({case})"
            ),
            Some(Score::Win) => assert_eq!(
                exact.after(best),
                Some(1),
                "the search claims a win with {at}, which does not win ({case})"
            ),
            Some(Score::LossIn(n)) => assert_eq!(
                exact.loses_in(n),
                Some(true),
                "the search claims a loss in {n}, a defence holds longer ({case})"
            ),
            Some(Score::Eval(_)) | None => {}
        }
    }
}
