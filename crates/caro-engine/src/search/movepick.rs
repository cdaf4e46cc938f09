//! Move generation and ordering. Generation follows the threats the
//! incremental patterns show: a five is played at once; an opponent five
//! must be stopped (and only moves that stop every one of them are
//! searched); an opponent open three is answered by a defence or a four
//! of one's own; otherwise every point near the stones is a candidate.
//! Candidates are ordered by their patterns for both sides, the hash
//! move, the killers and the history, and picked best first.

use caro_core::{Cell, Color, Game, Pos, Rule};
use smallvec::SmallVec;

use super::params::{ORDER_KILLER, ORDER_TT};
use super::{with_searcher, Points, Scored, Searcher};
use crate::pattern::Pattern;
use crate::state::Threat;
use crate::tt::Tt;

/// What move generation found.
pub(super) enum Gen {
    /// The side to move makes five here.
    Win(usize),
    /// Nothing stops the opponent's five: lost next move.
    Lost,
    /// Candidate moves with their ordering scores, in board order (see
    /// [`pick_best`] and [`sort_best_first`]); `forced` when they answer a
    /// five threat.
    Moves { moves: Vec<Scored>, forced: bool },
}

/// Points where the side to move makes a five, where the opponent does,
/// and where the side to move makes a four (not a five), in board order.
#[derive(Default)]
pub(super) struct Fours {
    pub(super) my_fives: Points,
    pub(super) opp_fives: Points,
    pub(super) my_fours: Points,
}

impl Searcher<'_> {
    /// Empty points in the search area near a stone (the centre on an
    /// empty board).
    pub(super) fn area_points(&self) -> Vec<usize> {
        let (x0, y0, x1, y1) = self.state.area();
        let empty_board = self.state.board().stone_count() == 0;
        let mut out = Vec::with_capacity(((x1 - x0 + 1) * (y1 - y0 + 1)) as usize);
        let board = self.state.board();
        for y in y0..=y1 {
            // A row's cells are consecutive indices.
            let row = self.state.index(Pos::new(x0 as u8, y as u8));
            for i in row..=row + (x1 - x0) as usize {
                if board.cell(i) == Cell::Empty && (empty_board || self.state.near(i) > 0) {
                    out.push(i);
                }
            }
        }
        out
    }

    /// The five and four points of both sides, from the state's set.
    pub(super) fn scan_fours(&self) -> Fours {
        let me = self.state.to_move();
        let five = Pattern::Five as u8;
        let mut found = Fours::default();
        for &i in self.state.four_points(me) {
            let i = i as usize;
            if self.state.patterns(i).dir[me.index()].contains(&five) {
                found.my_fives.push(i);
            } else {
                found.my_fours.push(i);
            }
        }
        for &i in self.state.four_points(me.opponent()) {
            let i = i as usize;
            if self.state.patterns(i).dir[me.opponent().index()].contains(&five) {
                found.opp_fives.push(i);
            }
        }
        found.my_fives.sort_unstable();
        found.my_fours.sort_unstable();
        found.opp_fives.sort_unstable();
        found
    }

    /// Moves of the side to move that leave the opponent no five.
    pub(super) fn stops_of_fives(&mut self, fives: &[usize]) -> Points {
        let me = self.state.to_move();
        let opp = me.opponent();
        if !self.is_caro() {
            // Outside caro only occupying a five point spoils it: one point
            // stops them all only if it is the only one.
            return match fives.split_first() {
                Some((&only, rest))
                    if rest.iter().all(|&f| f == only) && self.state.is_legal(only) =>
                {
                    smallvec::smallvec![only]
                }
                _ => Points::new(),
            };
        }
        let mut candidates: Points = fives.into();
        {
            // In caro a five can also be spoiled by capping its far end.
            let k = self.state.rules().k as usize;
            let offsets = self.state.board().dir_offsets();
            for &f in fives {
                for (d, &step) in offsets.iter().enumerate() {
                    // Only the line that makes the five can be capped.
                    if self.state.patterns(f).get(opp, d) != Pattern::Five {
                        continue;
                    }
                    candidates.extend(self.empty_along(f, step, k + 1));
                }
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        // Every five of the opponent's, not only those asked about: a
        // stone of ours makes none, so these are all there can be.
        let all_fives: Points = self
            .state
            .four_points(opp)
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| self.state.threat(i, opp) == Threat::Five)
            .collect();
        let mut out = Points::new();
        for c in candidates {
            if !self.state.is_legal(c) {
                continue;
            }
            // A five of our own there wins at once; otherwise every five
            // must be occupied or have each of its five lines spoiled.
            let won = self.state.threat(c, me) == Threat::Five;
            if won || all_fives.iter().all(|&f| !self.five_survives(f, opp, c)) {
                out.push(c);
            }
        }
        out
    }

    /// Whether `color` would still make five on the empty point `f` after
    /// its opponent's stone on the empty point `stone`.
    fn five_survives(&self, f: usize, color: Color, stone: usize) -> bool {
        f != stone
            && (0..4).any(|d| {
                self.state.patterns(f).get(color, d) == Pattern::Five
                    && self
                        .state
                        .pattern_with_stone(f, d, color, stone, color.opponent())
                        == Pattern::Five
            })
    }

    /// The empty points up to `reach` cells from `i` both ways along the
    /// line of `step`, up to the board's edge.
    pub(super) fn empty_along(&self, i: usize, step: usize, reach: usize) -> Vec<usize> {
        let board = self.state.board();
        let mut out = Vec::new();
        for forward in [false, true] {
            let mut j = i;
            for _ in 0..reach {
                j = if forward { j + step } else { j - step };
                match board.cell(j) {
                    Cell::Wall => break,
                    Cell::Empty => out.push(j),
                    _ => {}
                }
            }
        }
        out
    }

    /// A move's ordering score: the learned policy value of the point
    /// (`State::policy_score`), the hash move and killer bonuses, and its
    /// history.
    pub(super) fn order_score(&self, i: usize, ply: usize, tt_move: Option<usize>) -> i32 {
        let me = self.state.to_move();
        let mut s = self.state.policy_score(i);
        if Some(i) == tt_move {
            s += ORDER_TT;
        }
        if ply < self.killers.len() && self.killers[ply].contains(&i) {
            s += ORDER_KILLER;
        }
        s + self.history[i][me.index()].min(ORDER_KILLER - 1)
    }

    /// Whether `me` playing `i` answers the opponent's open three: it
    /// blocks the three (a point where the opponent would make a four) or
    /// makes a four of `me`'s own.
    fn meets_open_three(&self, i: usize, me: Color) -> bool {
        let p = self.state.patterns(i);
        p.count_at_least(me.opponent(), Pattern::Block4) > 0
            || p.count_at_least(me, Pattern::Block4) > 0
    }

    /// Whether [`Searcher::generate`] would give more than one move and
    /// force none: neither side has a five to make, the mover has no four
    /// (outside caro an open four is played at once), and at least two
    /// points are legal (and, against an open three, defend or counter).
    /// Stops counting at two, so a leaf costs a partial scan only.
    pub(super) fn is_quiet_choice(&mut self) -> bool {
        let me = self.state.to_move();
        let opp = me.opponent();
        if self.state.has(me, Pattern::Five) || self.state.has(opp, Pattern::Five) {
            return false;
        }
        if !self.is_caro()
            && (self.state.has(me, Pattern::Flex4) || self.state.has(me, Pattern::Block4))
        {
            return false;
        }
        let opp_open_three = self.state.has(opp, Pattern::Flex4);
        let mut found = 0;
        let (x0, y0, x1, y1) = self.state.area();
        let empty_board = self.state.board().stone_count() == 0;
        // The points of `area_points`, without collecting them.
        for y in y0..=y1 {
            let row = self.state.index(Pos::new(x0 as u8, y as u8));
            for i in row..=row + (x1 - x0) as usize {
                if self.state.board().cell(i) != Cell::Empty
                    || !(empty_board || self.state.near(i) > 0)
                {
                    continue;
                }
                if opp_open_three && !self.meets_open_three(i, me) {
                    continue;
                }
                if self.state.is_legal(i) {
                    found += 1;
                    if found > 1 {
                        return true;
                    }
                }
            }
        }
        false
    }

    pub(super) fn generate(&mut self, ply: usize, tt_move: Option<usize>) -> Gen {
        let me = self.state.to_move();
        let opp = me.opponent();
        let points = self.area_points();
        if self.state.has(me, Pattern::Five) {
            if let Some(&i) = points
                .iter()
                .find(|&&i| self.state.threat(i, me) == Threat::Five)
            {
                return Gen::Win(i);
            }
        }
        if self.state.has(opp, Pattern::Five) {
            let fives: Vec<usize> = points
                .iter()
                .copied()
                .filter(|&i| self.state.threat(i, opp) == Threat::Five)
                .collect();
            let stops = self.stops_of_fives(&fives);
            if stops.is_empty() {
                if !self.state.has_legal_move() {
                    // Black under renju with every point forbidden: a draw.
                    return Gen::Moves {
                        moves: Vec::new(),
                        forced: true,
                    };
                }
                return Gen::Lost;
            }
            let moves: Vec<Scored> = stops
                .into_iter()
                .map(|i| (i, self.order_score(i, ply, tt_move)))
                .collect();
            return Gen::Moves {
                moves,
                forced: true,
            };
        }
        if !self.is_caro()
            && (self.state.has(me, Pattern::Flex4) || self.state.has(me, Pattern::Block4))
        {
            // An open four (or a double four) of ours wins: take it. (In
            // caro a capped end can spoil a five, so the search decides.)
            for &i in &points {
                if self.state.threat(i, me) == Threat::OpenFour && self.state.is_legal(i) {
                    return Gen::Moves {
                        moves: vec![(i, ORDER_TT)],
                        forced: false,
                    };
                }
            }
        }
        let opp_open_three = self.state.has(opp, Pattern::Flex4);
        let stranding = if opp_open_three {
            self.open_four_stranding(me)
        } else {
            Some(Vec::new())
        };
        let mut moves: Vec<Scored> = Vec::with_capacity(points.len());
        for &i in &points {
            let kept = !opp_open_three
                || self.meets_open_three(i, me)
                || stranding
                    .as_ref()
                    .is_none_or(|s| s.binary_search(&i).is_ok());
            if !kept {
                continue;
            }
            if !self.state.is_legal(i) {
                continue;
            }
            moves.push((i, self.order_score(i, ply, tt_move)));
        }
        if moves.is_empty() && opp_open_three {
            // Every move that meets the three is forbidden (black under
            // renju): the other moves lose to the open four, and the
            // search must see them to score the loss (an empty list reads
            // as a draw).
            for &i in &points {
                if self.state.is_legal(i) {
                    moves.push((i, self.order_score(i, ply, tt_move)));
                }
            }
        }
        Gen::Moves {
            moves,
            forced: false,
        }
    }

    /// `me` to move facing the other side's open three: the moves that do
    /// not meet it but may still leave `me` with no legal move after the
    /// open four (black under renju, every empty point forbidden: a draw,
    /// `Game::settle_stuck_black`, not a loss), sorted; `None` where any
    /// move may. That is [`Searcher::stranding_moves`] with the open
    /// four's points as the stones to come: black's turn right after the
    /// open four is the only one at which the open four's win can be
    /// stranded. None at all but for black under renju, and almost never
    /// for black on a board with room left (two points far apart that
    /// stay legal).
    fn open_four_stranding(&self, me: Color) -> Option<Vec<usize>> {
        if me != Color::Black || self.state.rules().rule != Rule::Renju {
            return Some(Vec::new());
        }
        let opp = me.opponent();
        let open_fours: SmallVec<[usize; 8]> = self
            .state
            .four_points(opp)
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| self.state.patterns(i).dir[opp.index()].contains(&(Pattern::Flex4 as u8)))
            .collect();
        self.stranding_moves(&open_fours)
    }
}

/// The root's moves without the `excluded` points: the candidates left,
/// or, where none is left (the only stop of a five, the winning point, an
/// open four's point were excluded, or every move loses), every legal
/// point near the stones but the excluded, each then searched for what it
/// is worth (a loss, most often).
pub(super) fn without_excluded(s: &mut Searcher<'_>, generated: Gen, excluded: &[usize]) -> Gen {
    match generated {
        Gen::Win(i) if !excluded.contains(&i) => return Gen::Win(i),
        Gen::Moves { mut moves, forced } => {
            moves.retain(|(m, _)| !excluded.contains(m));
            if !moves.is_empty() {
                return Gen::Moves { moves, forced };
            }
        }
        Gen::Win(_) | Gen::Lost => {}
    }
    let mut moves = Vec::new();
    for i in s.area_points() {
        if !excluded.contains(&i) && s.state.is_legal(i) {
            moves.push((i, s.order_score(i, 0, None)));
        }
    }
    if moves.is_empty() {
        moves = nearest_to_centre(s, excluded);
    }
    Gen::Moves {
        moves,
        forced: false,
    }
}

/// The legal points but the `excluded` nearest the board's centre (those
/// at the least distance and one ring further), nearer first: the
/// candidates where the search area holds none, as on an empty board
/// whose centre is excluded.
fn nearest_to_centre(s: &mut Searcher<'_>, excluded: &[usize]) -> Vec<(usize, i32)> {
    let size = s.state.rules().size;
    let centre = size.center();
    let mut points = Vec::new();
    for y in 0..size.height {
        for x in 0..size.width {
            let i = s.state.index(Pos::new(x, y));
            if !excluded.contains(&i) && s.state.is_legal(i) {
                let d = centre.x.abs_diff(x).max(centre.y.abs_diff(y));
                points.push((i, -i32::from(d)));
            }
        }
    }
    let nearest = points.iter().map(|&(_, d)| d).max().unwrap_or(0);
    points.retain(|&(_, d)| d >= nearest - 1);
    points.sort_by_key(|&(_, d)| std::cmp::Reverse(d));
    points
}

/// Moves the best-scored of `moves` to the front, keeping the others in
/// order; ties go to the earlier move. Picking every move this way gives
/// the order of [`sort_best_first`].
pub(super) fn pick_best(moves: &mut [Scored]) {
    let mut best = 0;
    for (n, &(_, score)) in moves.iter().enumerate().skip(1) {
        if score > moves[best].1 {
            best = n;
        }
    }
    moves[..=best].rotate_right(1);
}

/// Sorts moves by their ordering score, best first; ties keep their
/// order.
pub(super) fn sort_best_first(moves: &mut [Scored]) {
    moves.sort_by_key(|&(_, score)| std::cmp::Reverse(score));
}

/// Generates the candidate moves of `game` `times` times over (for
/// `cargo bench`: move generation alone, with the searcher built once).
/// Returns how many candidates the last run found.
#[doc(hidden)]
#[must_use]
pub fn bench_generate(game: &Game, times: u64) -> usize {
    let tt = Tt::new(1);
    with_searcher(game, &tt, None, crate::player::StopFlag::new(), |s| {
        let mut found = 0;
        for _ in 0..times {
            found = match s.generate(0, None) {
                Gen::Win(_) | Gen::Lost => 1,
                Gen::Moves { mut moves, .. } => {
                    sort_best_first(&mut moves);
                    moves.len()
                }
            };
        }
        found
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::StopFlag;
    use crate::search::testing::{game, report};
    use crate::Score;
    use caro_core::notation::{format_pos, parse_move_list};
    use caro_core::{BoardSize, Rules};

    /// Under caro rules, the stops of the opponent's fives found without
    /// playing are those a play-and-look finds: every empty point that,
    /// played, leaves the opponent no five.
    fn stops_match_play_and_look(rule: Rule, stones: &[(u8, u8, bool)], white_to_move: bool) {
        let mut setup = caro_core::GameSetup::new(BoardSize::square(9), 5, rule);
        for &(x, y, white) in stones {
            let p = Pos::new(x, y);
            if setup.stones.iter().all(|&(q, _)| q != p) {
                let color = if white { Color::White } else { Color::Black };
                setup.stones.push((p, color));
            }
        }
        setup.to_move = Some(if white_to_move {
            Color::White
        } else {
            Color::Black
        });
        let Ok(game) = Game::from_setup(&setup) else {
            return;
        };
        if game.is_over() {
            return;
        }
        let tt = Tt::new(1);
        with_searcher(&game, &tt, None, StopFlag::new(), |s| {
            let me = s.state.to_move();
            let opp = me.opponent();
            let fives: Vec<usize> = s
                .area_points()
                .into_iter()
                .filter(|&i| s.state.threat(i, opp) == Threat::Five)
                .collect();
            // With a five of its own the side to move wins instead (the
            // search never asks for stops then).
            if fives.is_empty() || s.state.has(me, Pattern::Five) {
                return;
            }
            let mut naive = Vec::new();
            for i in 0..s.state.board().cell_count() {
                if s.state.board().cell(i) != Cell::Empty {
                    continue;
                }
                s.state.play(i);
                if !s.state.has(opp, Pattern::Five) {
                    naive.push(i);
                }
                s.state.undo();
            }
            assert_eq!(
                s.stops_of_fives(&fives).to_vec(),
                naive,
                "{:?}",
                game.setup_stones()
            );
        });
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        #[test]
        fn caro_stops_of_fives_match_play_and_look(
            stones in proptest::collection::vec((1u8..8, 1u8..8, proptest::bool::ANY), 4..30),
            standard in proptest::bool::ANY,
            white_to_move in proptest::bool::ANY,
        ) {
            let rule = if standard { Rule::CaroStandard } else { Rule::Caro };
            stops_match_play_and_look(rule, &stones, white_to_move);
        }
    }

    proptest::proptest! {
        /// Picking the best move one at a time, for any number of picks
        /// before sorting the rest, orders moves as the sort does.
        #[test]
        fn picking_one_by_one_orders_as_the_sort(
            scores in proptest::collection::vec(-5i32..5, 0..40),
            picks in 0usize..45,
        ) {
            let moves: Vec<Scored> = scores.into_iter().enumerate().collect();
            let mut sorted = moves.clone();
            sort_best_first(&mut sorted);
            let mut picked = moves;
            let picks = picks.min(picked.len());
            for n in 0..picks {
                pick_best(&mut picked[n..]);
            }
            sort_best_first(&mut picked[picks..]);
            proptest::prop_assert_eq!(picked, sorted);
        }
    }

    /// The moves the search generates for black facing white's open
    /// three, by name.
    fn answers_to_open_three(game: &Game) -> Vec<String> {
        let tt = Tt::new(1);
        with_searcher(game, &tt, None, StopFlag::new(), |s| {
            assert!(s.state.has(Color::White, Pattern::Flex4));
            let Gen::Moves { moves, .. } = s.generate(0, None) else {
                panic!("moves to choose from");
            };
            let mut names: Vec<String> = moves
                .iter()
                .map(|&(i, _)| format_pos(s.state.pos(i), game.rules().size))
                .collect();
            names.sort();
            names
        })
    }

    #[test]
    fn black_whose_every_answer_to_an_open_three_is_forbidden_is_lost() {
        // 15×15 renju: white's three h5 h7 h8 is met only on h4, h6 and
        // h9, each a double-three for black, and black has no four, so
        // whatever black plays, white's open four on h6 wins. The search
        // must still give moves here: none at all would score as a draw.
        let g = game(
            Rule::Renju,
            15,
            5,
            "f6 h5 g6 h7 i7 h8 j8 a1 i4 l1 j4 o1 g3 a15 f2 e15 f9 j15 g9 o15 i10 o5 j11 a8",
        );
        let answers = answers_to_open_three(&g);
        assert!(!answers.is_empty());
        assert!(!answers
            .iter()
            .any(|m| ["h4", "h6", "h9"].contains(&m.as_str())));
        assert_eq!(report(&g).0, Score::LossIn(4));
    }

    #[test]
    fn black_may_answer_an_open_three_with_a_move_that_strands_it() {
        // 8×6 renju, black to move with four empty points, two of them
        // legal for black: c2 blocks white's open three; h6 does not,
        // but after white's open four on c2 black has no legal move left,
        // a draw (a random game's position, one of 300,000 games).
        let rules = Rules::new(BoardSize::new(8, 6).unwrap(), 5, Rule::Renju).unwrap();
        let moves = "a3 g5 d6 d2 f6 b5 c3 b4 g3 c6 c5 h4 e3 g4 f3 e5 a1 b1 g2 d4 f1 e1 g6 e6 \
                     a5 b6 h5 e2 a4 c4 d1 b2 h3 d3 g1 e4 f4 c1 f5 h1 b3 h2 a6 d5";
        let moves = parse_move_list(moves, rules.size).unwrap();
        let stuck = Game::from_moves(rules, Color::Black, &moves).unwrap();
        assert_eq!(answers_to_open_three(&stuck), ["c2", "h6"]);
        // Where no move reaches every point that stays legal, only the
        // moves that meet the three: on a 15×15 board (two such points
        // more than 2k apart), and on a 7×7 one with 39 empty points.
        let open = game(Rule::Renju, 15, 5, "h8 i9 a1 i8 a15 i10");
        assert_eq!(answers_to_open_three(&open), ["i11", "i12", "i6", "i7"]);
        let small = game(Rule::Renju, 7, 5, "a7 d3 b7 d4 f1 d5 g1 a1 g4 a4");
        assert_eq!(answers_to_open_three(&small), ["d1", "d2", "d6", "d7"]);
    }
}
