//! The search's board: stones plus, for every empty point, colour and
//! direction, the [`Pattern`] a stone there would make — updated
//! incrementally on every move and undo, together with the evaluation's
//! sums and per-pattern counts.

use std::sync::Arc;

use caro_core::{Board, Cell, Color, Game, Pos, Rule, Rules};

use crate::network::{network, Accumulator, LoadedNetwork, EMBED};
use crate::pattern::{half_count, half_id, key_of, Pattern, PatternTable, WinKind};
use crate::point_values::{
    both_sides_key, count_values, double_threes_count, fitted_both_sides, point_values,
    threat_bits, CountValues, FittedBothSides, PointValues,
};
use crate::policy::{policy_values, PolicyValues};

mod threat;

use threat::{shifted_threat_key, THREATS};
pub use threat::{Threat, COUNTED_THREATS, MAX_COUNT};

/// A stone's neighbourhood for move generation: points within this
/// Chebyshev distance of a stone are candidates.
pub const NEAR: i32 = 2;

/// Per-colour, per-direction patterns of one point.
#[derive(Clone, Copy, Default)]
pub struct PointPatterns {
    /// `[colour][direction]`.
    pub dir: [[u8; 4]; 2],
    /// Per colour, the four directions as one index into the threat
    /// table (`((d0 * 9 + d1) * 9 + d2) * 9 + d3`), kept in step with
    /// `dir` so a change of one direction moves it by a multiple of a
    /// power of 9.
    threat_key: [u16; 2],
}

impl PointPatterns {
    /// The pattern for `color` along direction `d`.
    #[inline]
    #[must_use]
    pub fn get(&self, color: Color, d: usize) -> Pattern {
        Pattern::from_u8(self.dir[color.index()][d])
    }

    /// The strongest pattern for `color` over the four directions.
    #[inline]
    #[must_use]
    pub fn best(&self, color: Color) -> Pattern {
        let d = self.dir[color.index()];
        Pattern::from_u8(*d.iter().max().unwrap_or(&0))
    }

    /// Number of directions where `color` reaches at least `p`.
    #[inline]
    #[must_use]
    pub fn count_at_least(&self, color: Color, p: Pattern) -> u32 {
        self.dir[color.index()]
            .iter()
            .filter(|&&v| v >= p as u8 && v != Pattern::Overline as u8)
            .count() as u32
    }
}

/// The search's board.
#[derive(Clone)]
pub struct State {
    board: Board,
    rules: Rules,
    k: usize,
    /// Whether opponent stones and the edge block differently (caro rules).
    caro_rule: bool,
    /// The stones again, padded by `2k + 1` cells of edge on every side, as
    /// [`Cell`] codes 0..=3: a line's `k` cells each way are read without
    /// a check.
    wide: Vec<u8>,
    /// Index into `wide` of each board cell index.
    to_wide: Vec<u32>,
    /// Column and row of each board cell index (no division on the way).
    coords: Vec<(i32, i32)>,
    /// Step in `wide` of each direction.
    wide_steps: [usize; 4],
    /// Half-line id of every raw half code (2 bits a cell, nearest
    /// first), per colour.
    half_ids: [Vec<u16>; 2],
    tables: [Arc<PatternTable>; 2],
    patterns: Vec<PointPatterns>,
    /// Number of stones within [`NEAR`] of each point.
    near: Vec<u8>,
    /// Evaluation sums per colour over empty points: what the colour's
    /// points are worth to it as the side to move, and as the other side.
    value: [[i32; 2]; 2],
    /// Per colour, what a point is worth by its patterns.
    point_values: [&'static PointValues; 2],
    /// Per colour, what its numbers of threat points are worth.
    count_values: [&'static CountValues; 2],
    /// What both sides' threats are worth together, by the colour to
    /// move.
    both_sides: &'static FittedBothSides,
    /// Per colour to move, what a point is worth to try first.
    policy_values: [&'static PolicyValues; 2],
    /// The rule's network over line patterns, if it has one
    /// ([`crate::network`]).
    network: Option<&'static LoadedNetwork>,
    /// Per colour, the network's accumulator (zero without a network).
    accumulators: [Accumulator; 2],
    /// The accumulators before each full move, while a network is kept.
    accumulator_marks: Vec<[Accumulator; 2]>,
    /// Per colour, whether its double-three points count (not renju
    /// black's).
    double_threes_count: [bool; 2],
    /// Number of (point, direction) entries per colour at
    /// [`Pattern::Block4`], [`Pattern::Flex4`] and [`Pattern::Five`] (the
    /// patterns [`State::has`] answers for; weaker ones are not counted).
    four_counts: [[u32; 3]; 2],
    /// Number of empty points per colour and [`Threat`] (all four
    /// directions taken together).
    threat_counts: [[u32; 7]; 2],
    to_move: Color,
    history: Vec<usize>,
    /// Pattern changes made by each move, undone by popping: (point,
    /// colour, direction, old pattern).
    log: Vec<(u32, u8, u8, u8)>,
    /// What undoing each move needs besides its `log` entries.
    marks: Vec<Mark>,
    /// Bounding box of the stones, as padded (x, y) pairs.
    bbox: Vec<(i32, i32, i32, i32)>,
    /// Per colour, the points where a stone makes a four or a five on
    /// some line, in no order: the threat solvers read them without
    /// scanning the board.
    four_points: [FourPoints; 2],
}

/// What [`State::remove`] restores of a move without replaying its
/// pattern changes one by one.
#[derive(Clone)]
struct Mark {
    /// Start of the move's entries in `log`.
    log_start: usize,
    /// The patterns the moved-on point had before it was occupied.
    patterns: PointPatterns,
    /// Whether the move updated the evaluation sums and the threat
    /// counts (a full move; not so a lines-only or unscored one).
    scored: bool,
    /// Whether the move updated the neighbour counts and the bounding
    /// box (a full or unscored move; not so a lines-only one).
    near: bool,
    /// The evaluation sums and counts before the move.
    value: [[i32; 2]; 2],
    four_counts: [[u32; 3]; 2],
    threat_counts: [[u32; 7]; 2],
}

/// A set of points kept with their number of four-or-better lines.
#[derive(Clone)]
struct FourPoints {
    members: Vec<u32>,
    /// Position of each point in `members` (`u32::MAX` when absent).
    slot: Vec<u32>,
    /// Lines of each point at [`Pattern::Block4`], [`Pattern::Flex4`] or
    /// [`Pattern::Five`].
    lines: Vec<u8>,
}

impl FourPoints {
    fn new(cells: usize) -> FourPoints {
        FourPoints {
            members: Vec::new(),
            slot: vec![u32::MAX; cells],
            lines: vec![0; cells],
        }
    }

    /// One line of `index` went from pattern `old` to `new`.
    #[inline]
    fn change(&mut self, index: usize, old: u8, new: u8) {
        let was = is_four_or_five(old);
        if was == is_four_or_five(new) {
            return;
        }
        if was {
            self.lines[index] -= 1;
            if self.lines[index] == 0 {
                let at = self.slot[index] as usize;
                self.members.swap_remove(at);
                if let Some(&moved) = self.members.get(at) {
                    self.slot[moved as usize] = at as u32;
                }
                self.slot[index] = u32::MAX;
            }
        } else {
            if self.lines[index] == 0 {
                self.slot[index] = self.members.len() as u32;
                self.members.push(index as u32);
            }
            self.lines[index] += 1;
        }
    }
}

/// Visits the empty points of a line read by [`State::line_cells`]
/// around `index` (its points n = 0 ..= 2k, `index` itself left out),
/// with each one's board index and the codes of its left and right
/// halves, nearest cell lowest (`bstep`: the board step along the line).
/// The codes roll along the line: each step shifts one cell into the
/// left half and one out of the right half.
#[inline(always)]
fn for_each_line_point<const K: usize>(
    line: &[u8; 4 * 10 + 2],
    index: usize,
    bstep: isize,
    mut f: impl FnMut(usize, usize, usize),
) {
    let mask = (1usize << (2 * K)) - 1;
    let mut left = 0usize;
    let mut right = 0usize;
    for i in 0..K {
        left |= usize::from(line[K - 1 - i]) << (2 * i);
        right |= usize::from(line[K + 1 + i]) << (2 * i);
    }
    for n in 0..=2 * K {
        let here = usize::from(line[n + K]);
        if n != K && here == Cell::Empty as usize {
            f(
                (index as isize + (n as isize - K as isize) * bstep) as usize,
                left,
                right,
            );
        }
        left = ((left << 2) | here) & mask;
        right = ((right >> 2) | (usize::from(line[n + 2 * K + 1]) << (2 * (K - 1)))) & mask;
    }
}

#[inline(always)]
fn is_four_or_five(p: u8) -> bool {
    (Pattern::Block4 as u8..=Pattern::Five as u8).contains(&p)
}

/// The parts of [`State`] that a change of one point's pattern reads and
/// updates, borrowed apart from the tables the new patterns are read
/// from.
struct Updates<'a> {
    patterns: &'a mut [PointPatterns],
    point_values: &'a [&'static PointValues; 2],
    network: Option<&'static LoadedNetwork>,
    accumulators: &'a mut [Accumulator; 2],
    value: &'a mut [[i32; 2]; 2],
    threat_counts: &'a mut [[u32; 7]; 2],
    four_counts: &'a mut [[u32; 3]; 2],
    four_points: &'a mut [FourPoints; 2],
    /// Where changes are logged for undo, if they are.
    log: Option<&'a mut Vec<(u32, u8, u8, u8)>>,
}

impl Updates<'_> {
    /// Sets one direction's pattern of an empty point for colour `c` to
    /// the pattern code `new`, keeping the sums, counts and four points in
    /// step and logging the change; nothing where it is unchanged.
    /// With `EVAL` false the evaluation sums and the threat counts are
    /// left as they were (see [`State::play_lines_only`]).
    #[inline(always)]
    fn set<const EVAL: bool, const NET: bool>(
        &mut self,
        index: usize,
        c: usize,
        d: usize,
        new: u8,
    ) {
        let point = &mut self.patterns[index];
        let old = point.dir[c][d];
        if new == old {
            return;
        }
        point.dir[c][d] = new;
        let key_before = point.threat_key[c];
        let key_after = shifted_threat_key(key_before, d, old, new);
        point.threat_key[c] = key_after;
        if EVAL {
            let before = THREATS[key_before as usize];
            let after = THREATS[key_after as usize];
            let values = &self.point_values[c].by_key;
            let ([mover_before, other_before], [mover_after, other_after]) =
                (values[key_before as usize], values[key_after as usize]);
            self.value[c][0] += i32::from(mover_after) - i32::from(mover_before);
            self.value[c][1] += i32::from(other_after) - i32::from(other_before);
            // Most changes leave the point's threat as it was; a decrement
            // and increment of the same counter would chain two
            // read-modify-writes of one address on every update.
            if before != after {
                self.threat_counts[c][before as usize] -= 1;
                self.threat_counts[c][after as usize] += 1;
            }
            if NET {
                if let Some(network) = self.network {
                    network.update(&mut self.accumulators[c], c, key_before, key_after);
                }
            }
        }
        count_fours(self.four_counts, self.four_points, (index, c), old, new);
        if let Some(log) = &mut self.log {
            log.push((index as u32, c as u8, d as u8, old));
        }
    }
}

/// One line of a point went from pattern `old` to `new` for a colour
/// (`at`: the point and the colour): the four counts and the four-point
/// set follow. Most changes are between weaker patterns and touch
/// neither.
#[inline(always)]
fn count_fours(
    four_counts: &mut [[u32; 3]; 2],
    four_points: &mut [FourPoints; 2],
    at: (usize, usize),
    old: u8,
    new: u8,
) {
    if is_four_or_five(old) || is_four_or_five(new) {
        count_fours_changed(four_counts, four_points, at, old, new);
    }
}

/// [`count_fours`] for a change from or to a four or five.
#[inline(never)]
fn count_fours_changed(
    four_counts: &mut [[u32; 3]; 2],
    four_points: &mut [FourPoints; 2],
    (index, c): (usize, usize),
    old: u8,
    new: u8,
) {
    if is_four_or_five(old) {
        four_counts[c][(old - Pattern::Block4 as u8) as usize] -= 1;
    }
    if is_four_or_five(new) {
        four_counts[c][(new - Pattern::Block4 as u8) as usize] += 1;
    }
    four_points[c].change(index, old, new);
}

impl State {
    /// The search state of a game's current position.
    #[must_use]
    pub fn new(game: &Game) -> State {
        State::with_network(game, network(game.rules().rule))
    }

    /// The search state of a game's current position, evaluated with
    /// `network` added (or none) rather than the rule's own.
    #[must_use]
    pub fn with_network(game: &Game, network: Option<&'static LoadedNetwork>) -> State {
        let rules = *game.rules();
        let empty = Board::new(rules.size);
        let n = empty.cell_count();
        let tables = [
            PatternTable::get(WinKind::new(rules.rule, rules.k, Color::Black)),
            PatternTable::get(WinKind::new(rules.rule, rules.k, Color::White)),
        ];
        let mut s = State {
            board: empty,
            rules,
            k: rules.k as usize,
            caro_rule: matches!(rules.rule, Rule::Caro | Rule::CaroStandard),
            wide: Vec::new(),
            to_wide: Vec::new(),
            coords: Vec::new(),
            wide_steps: [0; 4],
            half_ids: [Vec::new(), Vec::new()],
            tables,
            patterns: vec![PointPatterns::default(); n],
            near: vec![0; n],
            value: [[0; 2]; 2],
            point_values: [
                point_values(rules.rule, Color::Black),
                point_values(rules.rule, Color::White),
            ],
            count_values: [
                count_values(rules.rule, Color::Black),
                count_values(rules.rule, Color::White),
            ],
            both_sides: fitted_both_sides(rules.rule),
            policy_values: [
                policy_values(rules.rule, Color::Black),
                policy_values(rules.rule, Color::White),
            ],
            network,
            accumulators: [[0; EMBED]; 2],
            accumulator_marks: Vec::new(),
            double_threes_count: [
                double_threes_count(rules.rule, Color::Black),
                double_threes_count(rules.rule, Color::White),
            ],
            four_counts: [[0; 3]; 2],
            threat_counts: [[0; 7]; 2],
            to_move: game.to_move(),
            history: Vec::with_capacity(rules.size.area()),
            log: Vec::new(),
            marks: Vec::new(),
            bbox: vec![(i32::MAX, i32::MAX, i32::MIN, i32::MIN)],
            four_points: [FourPoints::new(n), FourPoints::new(n)],
        };
        s.build_wide();
        for p in rules.size.points() {
            let i = s.board.index(p);
            s.refresh_point(i);
        }
        for (p, c) in game.board().stones() {
            let i = s.board.index(p);
            s.place(i, c);
        }
        s.history.clear();
        s.log.clear();
        s.marks.clear();
        s.accumulator_marks.clear();
        s.to_move = game.to_move();
        s
    }

    /// The stones.
    #[inline]
    #[must_use]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The rules.
    #[inline]
    #[must_use]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Side to move.
    #[inline]
    #[must_use]
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Number of moves made since the state was built.
    #[inline]
    #[must_use]
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// Hash of stones and side to move.
    #[inline]
    #[must_use]
    pub fn hash(&self) -> u64 {
        match self.to_move {
            Color::Black => self.board.hash(),
            Color::White => self.board.hash() ^ caro_core::zobrist::WHITE_TO_MOVE,
        }
    }

    /// The hash [`State::hash`] would give after the side to move plays
    /// the empty point `index`, without playing it.
    #[inline]
    #[must_use]
    pub fn hash_after(&self, index: usize) -> u64 {
        self.hash()
            ^ caro_core::zobrist::stone_key(self.board.pos(index), self.to_move)
            ^ caro_core::zobrist::WHITE_TO_MOVE
    }

    /// Patterns of a point.
    #[inline]
    #[must_use]
    pub fn patterns(&self, index: usize) -> &PointPatterns {
        &self.patterns[index]
    }

    /// Whether some point gives `color` a pattern of `p` (any direction):
    /// `p` is [`Pattern::Block4`], [`Pattern::Flex4`] or [`Pattern::Five`],
    /// the patterns that are counted (anything weaker answers `false`).
    #[inline]
    #[must_use]
    pub fn has(&self, color: Color, p: Pattern) -> bool {
        debug_assert!(is_four_or_five(p as u8), "{p:?} is not counted");
        is_four_or_five(p as u8)
            && self.four_counts[color.index()][p as usize - Pattern::Block4 as usize] > 0
    }

    /// How many empty points give `color` this threat. Not while a
    /// lines-only or unscored move is on the stack
    /// ([`State::play_lines_only`], [`State::play_unscored`]).
    #[inline]
    #[must_use]
    pub fn threat_count(&self, color: Color, threat: Threat) -> u32 {
        debug_assert!(
            self.sums_kept(),
            "a threat count read under a lines-only or unscored move"
        );
        self.threat_counts[color.index()][threat as usize]
    }

    /// Whether the evaluation sums and threat counts are those of the
    /// stones: no lines-only or unscored move is on the stack.
    fn sums_kept(&self) -> bool {
        self.marks.last().is_none_or(|m| m.scored)
    }

    /// Whether some empty point gives `color` [`Threat::OpenFour`] (an
    /// open four or two fours), read from the four points: unlike
    /// [`State::threat_count`], right after [`State::play_lines_only`] too.
    #[inline]
    #[must_use]
    pub fn has_open_four_point(&self, color: Color) -> bool {
        self.four_points(color)
            .iter()
            .any(|&i| self.threat(i as usize, color) == Threat::OpenFour)
    }

    /// The empty points where a stone of `color` makes a four or a five
    /// on some line (in no particular order).
    #[inline]
    #[must_use]
    pub fn four_points(&self, color: Color) -> &[u32] {
        &self.four_points[color.index()].members
    }

    /// Stones within [`NEAR`] of a point.
    #[inline]
    #[must_use]
    pub fn near(&self, index: usize) -> u8 {
        self.near[index]
    }

    /// Static evaluation for the side to move: what the empty points are
    /// worth one by one ([`State::evaluate_points`]), corrected by what
    /// each side's numbers of threat points are worth together
    /// ([`State::evaluate_counts`]). Not while a lines-only or unscored
    /// move is on the stack ([`State::play_lines_only`],
    /// [`State::play_unscored`]).
    #[inline]
    #[must_use]
    pub fn evaluate(&self) -> i32 {
        self.evaluate_points() + self.evaluate_counts() + self.evaluate_network()
    }

    /// The network's correction for the side to move (0 where the rule has
    /// no network). Not while a lines-only or unscored move is on the
    /// stack.
    #[inline]
    #[must_use]
    pub fn evaluate_network(&self) -> i32 {
        debug_assert!(
            self.sums_kept(),
            "the network read under a lines-only or unscored move"
        );
        self.network
            .map_or(0, |n| n.output(self.to_move, &self.accumulators))
    }

    /// The network's accumulators (see [`crate::network`]).
    #[must_use]
    pub fn accumulators(&self) -> &[Accumulator; 2] {
        &self.accumulators
    }

    /// The point sum: each empty point is worth what the combination of
    /// its four line patterns is worth, to the side to move and to the
    /// other side (`point_values`). Not while a lines-only or unscored
    /// move is on the stack.
    #[inline]
    #[must_use]
    pub fn evaluate_points(&self) -> i32 {
        debug_assert!(
            self.sums_kept(),
            "the sums read under a lines-only or unscored move"
        );
        let me = self.to_move.index();
        self.value[me][0] - self.value[1 - me][1]
    }

    /// The count correction, for the side to move: for each side and each
    /// of the [`COUNTED_THREATS`], a value by how many points make it (up
    /// to [`MAX_COUNT`]). A point sum counts every point in full, where two
    /// points of one threat are often answered by one move: the values
    /// were fitted with the point values (`caro train --counts`). Plus the both-sides value of which threats
    /// each side has (`point_values::threat_bits`). Not while a
    /// lines-only or unscored move is on the stack.
    #[inline]
    #[must_use]
    pub fn evaluate_counts(&self) -> i32 {
        debug_assert!(
            self.sums_kept(),
            "the counts read under a lines-only or unscored move"
        );
        let me = self.to_move.index();
        let mut sum = 0;
        for (role, side) in [(0, me), (1, 1 - me)] {
            let values = &self.count_values[side][role];
            for (row, t) in values.iter().zip(COUNTED_THREATS) {
                let n = (self.threat_counts[side][t as usize] as usize).min(MAX_COUNT);
                sum += i32::from(row[n]);
            }
        }
        let bits =
            |side: usize| threat_bits(&self.threat_counts[side], self.double_threes_count[side]);
        sum + i32::from(self.both_sides[me][both_sides_key(bits(me), bits(1 - me))])
    }

    /// What an empty point is worth to try first for the side to move: the
    /// rule's learned move-ordering values of its patterns for the side to
    /// move and for the other side (`caro train --policy`).
    #[inline]
    #[must_use]
    pub(crate) fn policy_score(&self, index: usize) -> i32 {
        let me = self.to_move.index();
        let keys = self.patterns[index].threat_key;
        let values = &self.policy_values[me].by_key;
        values[usize::from(keys[me])][0] + values[usize::from(keys[1 - me])][1]
    }

    /// Per colour, its numbers of empty points by [`Threat`] (as
    /// [`State::threat_count`]).
    #[must_use]
    pub(crate) fn threat_counts_of(&self, color: Color) -> &[u32; 7] {
        debug_assert!(
            self.sums_kept(),
            "threat counts read under a lines-only or unscored move"
        );
        &self.threat_counts[color.index()]
    }

    /// The bounding box of stones widened by [`NEAR`], clipped to the
    /// board, as 0-based (x0, y0, x1, y1) inclusive; the centre point when
    /// the board is empty.
    #[must_use]
    pub fn area(&self) -> (i32, i32, i32, i32) {
        let size = self.rules.size;
        let (x0, y0, x1, y1) = *self.bbox.last().unwrap_or(&(0, 0, -1, -1));
        if x0 > x1 {
            let c = size.center();
            return (c.x as i32, c.y as i32, c.x as i32, c.y as i32);
        }
        (
            (x0 - NEAR).max(0),
            (y0 - NEAR).max(0),
            (x1 + NEAR).min(size.width as i32 - 1),
            (y1 + NEAR).min(size.height as i32 - 1),
        )
    }

    /// The threat a point holds for `color`.
    #[must_use]
    pub fn threat(&self, index: usize, color: Color) -> Threat {
        THREATS[self.patterns[index].threat_key[color.index()] as usize]
    }

    /// Calls `f` with each empty point within k of the empty point `at`
    /// along `d` and the pattern `color` would have there along `d` with
    /// a stone of its own on `at`: what a move does to its line, read as
    /// `State::refresh_line` would, without playing it.
    pub fn line_with_stone(
        &self,
        at: usize,
        d: usize,
        color: Color,
        f: impl FnMut(usize, Pattern),
    ) {
        match self.k {
            3 => self.line_with_stone_k::<3>(at, d, color, f),
            4 => self.line_with_stone_k::<4>(at, d, color, f),
            5 => self.line_with_stone_k::<5>(at, d, color, f),
            6 => self.line_with_stone_k::<6>(at, d, color, f),
            7 => self.line_with_stone_k::<7>(at, d, color, f),
            8 => self.line_with_stone_k::<8>(at, d, color, f),
            9 => self.line_with_stone_k::<9>(at, d, color, f),
            _ => self.line_with_stone_k::<10>(at, d, color, f),
        }
    }

    /// [`State::line_with_stone`] for `k == K`, the keys rolling along the
    /// line ([`for_each_line_point`]).
    fn line_with_stone_k<const K: usize>(
        &self,
        index: usize,
        d: usize,
        color: Color,
        mut f: impl FnMut(usize, Pattern),
    ) {
        debug_assert_eq!(self.k, K);
        let bstep = self.board.dir_offsets()[d] as isize;
        let mask = (1usize << (2 * K)) - 1;
        let mut line = [0u8; 4 * 10 + 2];
        self.line_cells::<K>(index, d, &mut line);
        line[2 * K] = Cell::stone(color) as u8;
        let halves = half_count(K as u8);
        let c = color.index();
        let ids = &self.half_ids[c][..=mask];
        let table = &*self.tables[c];
        for_each_line_point::<K>(&line, index, bstep, |j, left, right| {
            let key = u64::from(ids[left]) * halves + u64::from(ids[right]);
            f(j, Pattern::from_u8(table.lookup_code(key)));
        });
    }

    /// The threat of the empty point `index` for `color` if its pattern
    /// along `d` were `along` instead of the one it has.
    #[inline]
    #[must_use]
    pub fn threat_with_pattern(
        &self,
        index: usize,
        color: Color,
        d: usize,
        along: Pattern,
    ) -> Threat {
        let c = color.index();
        let point = &self.patterns[index];
        THREATS[shifted_threat_key(point.threat_key[c], d, point.dir[c][d], along as u8) as usize]
    }

    /// Whether black playing the empty point `index` is a renju foul. A
    /// cheap pattern filter first; the exact recursive rule from the core
    /// only where a foul is possible.
    #[must_use]
    pub fn is_foul(&mut self, index: usize) -> bool {
        if !self.may_be_foul(index) {
            return false;
        }
        let pos = self.board.pos(index);
        self.board.foul_at(pos, Color::Black, Rule::Renju).is_some()
    }

    /// Whether black playing the empty point `index` may be a renju foul,
    /// by its line patterns alone: an overline, an open four, two fours or
    /// two open threes, and no five. `false` means it is not a foul.
    #[must_use]
    pub fn may_be_foul(&self, index: usize) -> bool {
        if self.rules.rule != Rule::Renju {
            return false;
        }
        let d = self.patterns[index].dir[Color::Black.index()];
        if d.contains(&(Pattern::Five as u8)) {
            return false;
        }
        let overline = d.contains(&(Pattern::Overline as u8));
        let fours = d
            .iter()
            .filter(|&&v| v == Pattern::Block4 as u8 || v == Pattern::Flex4 as u8)
            .count();
        let flex4 = d.contains(&(Pattern::Flex4 as u8));
        let threes = d.iter().filter(|&&v| v == Pattern::Flex3 as u8).count();
        overline || flex4 || fours >= 2 || threes >= 2
    }

    /// [`State::is_foul`] for a shared state (checks on a copy of the
    /// stones; only called where a foul is possible).
    #[must_use]
    pub fn clone_is_foul(&self, index: usize) -> bool {
        if self.rules.rule != Rule::Renju {
            return false;
        }
        let mut board = self.board.clone();
        let pos = board.pos(index);
        board.foul_at(pos, Color::Black, Rule::Renju).is_some()
    }

    /// Whether the side to move may play the empty point `index`.
    #[inline]
    pub fn is_legal(&mut self, index: usize) -> bool {
        self.board.cell(index) == Cell::Empty
            && !(self.to_move == Color::Black && self.is_foul(index))
    }

    /// Whether the side to move has a legal move anywhere. Only black
    /// under renju can be left without one on a board that is not full
    /// (every empty point forbidden): the game is then drawn
    /// (`Game::settle_stuck_black` in the rules core), so a solver must not
    /// count "no legal stop" there as a loss. Stops at the first legal
    /// point, so it is cheap unless black is nearly stuck.
    #[must_use]
    pub fn has_legal_move(&mut self) -> bool {
        (0..self.board.cell_count()).any(|i| self.is_legal(i))
    }

    /// Plays the empty point `index` for the side to move.
    pub fn play(&mut self, index: usize) {
        let c = self.to_move;
        self.place(index, c);
        self.history.push(index);
        self.to_move = c.opponent();
    }

    /// Plays like [`State::play`] but leaves the neighbour counts and the
    /// bounding box of the stones (what move generation reads), the
    /// evaluation sums and the threat counts as they were: for the VCF,
    /// which reads only stones, patterns (and the threats they make),
    /// four counts and four points, and takes its moves back before
    /// anything else looks. Only lines-only moves may follow one until it
    /// is taken back.
    pub fn play_lines_only(&mut self, index: usize) {
        let c = self.to_move;
        self.place_stone(index, c, false, false);
        self.history.push(index);
        self.to_move = c.opponent();
    }

    /// Plays like [`State::play`] but leaves the evaluation sums and the
    /// threat counts as they were (the neighbour counts and the bounding
    /// box follow, so move generation works): for the threat solvers,
    /// which never evaluate a position. Unscored and lines-only moves may
    /// follow one until it is taken back, not a full one.
    pub fn play_unscored(&mut self, index: usize) {
        let c = self.to_move;
        self.place_stone(index, c, false, true);
        self.history.push(index);
        self.to_move = c.opponent();
    }

    /// Gives the move to the other side without a stone (a pass, for
    /// threat searches that ask what one side could do if it moved twice).
    /// A second pass gives it back.
    pub fn pass(&mut self) {
        self.to_move = self.to_move.opponent();
    }

    /// Takes back the last move.
    pub fn undo(&mut self) {
        if let Some(index) = self.history.pop() {
            self.to_move = self.to_move.opponent();
            self.remove(index);
        }
    }

    /// Whether the stone just played at `index` won.
    #[inline]
    #[must_use]
    pub fn won_at(&self, index: usize, color: Color) -> bool {
        self.board.winning_line(index, color, &self.rules).is_some()
    }

    /// Whether the board is full.
    #[inline]
    #[must_use]
    pub fn is_full(&self) -> bool {
        self.board.is_full()
    }

    /// The point of an index.
    #[inline]
    #[must_use]
    pub fn pos(&self, index: usize) -> Pos {
        self.board.pos(index)
    }

    /// The index of a point.
    #[inline]
    #[must_use]
    pub fn index(&self, pos: Pos) -> usize {
        self.board.index(pos)
    }

    fn place(&mut self, index: usize, color: Color) {
        self.place_stone(index, color, true, true);
    }

    /// Puts a stone down; `scored` says whether the evaluation sums and
    /// the threat counts follow, `near` whether the neighbour counts and
    /// the bounding box do (the patterns, four counts and four points
    /// always do).
    #[inline(always)]
    fn place_stone(&mut self, index: usize, color: Color, scored: bool, near: bool) {
        // A scored move on top of one that is not would update sums that
        // no longer match the stones; the same for the neighbour counts.
        debug_assert!(
            !scored || self.sums_kept(),
            "a full move played on a lines-only or unscored one"
        );
        debug_assert!(
            !near || self.marks.last().is_none_or(|m| m.near),
            "a move that counts neighbours played on a lines-only one"
        );
        self.marks.push(Mark {
            log_start: self.log.len(),
            scored,
            near,
            patterns: self.patterns[index],
            value: self.value,
            four_counts: self.four_counts,
            threat_counts: self.threat_counts,
        });
        if scored && self.network.is_some() {
            self.accumulator_marks.push(self.accumulators);
        }
        self.clear_point(index, scored);
        self.board.place(index, color);
        self.wide[self.to_wide[index] as usize] = Cell::stone(color) as u8;
        if scored {
            for d in 0..4 {
                self.refresh_line::<true>(index, d);
            }
        } else {
            for d in 0..4 {
                self.refresh_line::<false>(index, d);
            }
        }
        if !near {
            return;
        }
        self.update_near(index, 1);
        let (x, y) = self.coords[index];
        let (x0, y0, x1, y1) =
            *self
                .bbox
                .last()
                .unwrap_or(&(i32::MAX, i32::MAX, i32::MIN, i32::MIN));
        self.bbox.push((x0.min(x), y0.min(y), x1.max(x), y1.max(y)));
    }

    /// Takes a stone off by putting the move's pattern changes back in
    /// reverse order and the sums as they were: no line is read again.
    fn remove(&mut self, index: usize) {
        self.board.remove(index);
        self.wide[self.to_wide[index] as usize] = Cell::Empty as u8;
        let Some(mark) = self.marks.pop() else {
            self.update_around(index, -1);
            self.refresh_point(index);
            self.bbox.pop();
            return;
        };
        if mark.near {
            self.update_near(index, -1);
            self.bbox.pop();
        }
        while self.log.len() > mark.log_start {
            let Some((j, c, d, old)) = self.log.pop() else {
                break;
            };
            let (j, c, d) = (j as usize, c as usize, d as usize);
            let point = &mut self.patterns[j];
            let new = point.dir[c][d];
            point.dir[c][d] = old;
            point.threat_key[c] = shifted_threat_key(point.threat_key[c], d, new, old);
            // The four-point set is not a sum: it follows change by change
            // (the test keeps the common case out of the call).
            if is_four_or_five(old) != is_four_or_five(new) {
                self.four_points[c].change(j, new, old);
            }
        }
        for c in 0..2 {
            for &old in &mark.patterns.dir[c] {
                self.four_points[c].change(index, 0, old);
            }
        }
        self.patterns[index] = mark.patterns;
        if mark.scored && self.network.is_some() {
            if let Some(acc) = self.accumulator_marks.pop() {
                self.accumulators = acc;
            }
        }
        self.value = mark.value;
        self.four_counts = mark.four_counts;
        self.threat_counts = mark.threat_counts;
    }

    /// Re-reads the lines through a changed point and the neighbour counts.
    fn update_around(&mut self, index: usize, near_delta: i32) {
        self.update_near(index, near_delta);
        for d in 0..4 {
            self.refresh_line::<true>(index, d);
        }
    }

    /// Adds `near_delta` to the neighbour counts around a point.
    fn update_near(&mut self, index: usize, near_delta: i32) {
        if near_delta == 0 {
            return;
        }
        let size = self.rules.size;
        let (px, py) = self.coords[index];
        let x0 = (px - NEAR).max(0);
        let x1 = (px + NEAR).min(size.width as i32 - 1);
        for y in (py - NEAR).max(0)..=(py + NEAR).min(size.height as i32 - 1) {
            // A row's cells are consecutive indices.
            let row = self.board.index(Pos::new(x0 as u8, y as u8));
            for n in &mut self.near[row..=row + (x1 - x0) as usize] {
                *n = (*n as i32 + near_delta) as u8;
            }
        }
    }

    /// Recomputes direction `d` of every empty point within `k` of `index`
    /// on that line, with `k` made a constant for each win length; with
    /// `EVAL` false, leaving the evaluation sums and threat counts as they
    /// were.
    fn refresh_line<const EVAL: bool>(&mut self, index: usize, d: usize) {
        match self.k {
            3 => self.refresh_line_net::<3, EVAL>(index, d),
            4 => self.refresh_line_net::<4, EVAL>(index, d),
            5 => self.refresh_line_net::<5, EVAL>(index, d),
            6 => self.refresh_line_net::<6, EVAL>(index, d),
            7 => self.refresh_line_net::<7, EVAL>(index, d),
            8 => self.refresh_line_net::<8, EVAL>(index, d),
            9 => self.refresh_line_net::<9, EVAL>(index, d),
            _ => self.refresh_line_net::<10, EVAL>(index, d),
        }
    }

    /// [`State::refresh_line`] for `k == K`: with the network's
    /// accumulators kept where the rule has a network, else the loop
    /// without them.
    #[inline(always)]
    fn refresh_line_net<const K: usize, const EVAL: bool>(&mut self, index: usize, d: usize) {
        if EVAL && self.network.is_some() {
            self.refresh_line_k::<K, true, true>(index, d);
        } else {
            self.refresh_line_k::<K, EVAL, false>(index, d);
        }
    }

    /// [`State::refresh_line`] for `k == K`, the keys rolling along the
    /// line ([`for_each_line_point`]); the network's accumulators kept
    /// where `NET`.
    #[inline(always)]
    fn refresh_line_k<const K: usize, const EVAL: bool, const NET: bool>(
        &mut self,
        index: usize,
        d: usize,
    ) {
        debug_assert_eq!(self.k, K);
        let bstep = self.board.dir_offsets()[d] as isize;
        let mask = (1usize << (2 * K)) - 1;
        let mut line = [0u8; 4 * 10 + 2];
        self.line_cells::<K>(index, d, &mut line);
        let halves = half_count(K as u8);
        // Borrowed apart: the addresses of the tables the patterns are
        // read from stay in registers while the patterns and sums change.
        let (ids, tables, mut updates) = self.split_for_update();
        // Exactly the codes of k cells: the index checks fold away.
        let ids = [&ids[0][..=mask], &ids[1][..=mask]];
        for_each_line_point::<K>(&line, index, bstep, |j, left, right| {
            for c in 0..2 {
                let key = u64::from(ids[c][left]) * halves + u64::from(ids[c][right]);
                updates.set::<EVAL, NET>(j, c, d, tables[c].lookup_code(key));
            }
        });
    }

    /// The cells of the line through `index` along `d`, from 2k before it
    /// to 2k + 1 after it, read once (the padding keeps them all on the
    /// wide board). The cells of point n (n = 0 ..= 2k, `index` being
    /// n = k) are then `line[n + k]`, its left half before it, its right
    /// half after it.
    #[inline(always)]
    fn line_cells<const K: usize>(&self, index: usize, d: usize, line: &mut [u8; 4 * 10 + 2]) {
        let wstep = self.wide_steps[d];
        let first = self.to_wide[index] as usize - 2 * K * wstep;
        for (n, c) in line.iter_mut().take(4 * K + 2).enumerate() {
            *c = self.wide[first + n * wstep];
        }
    }

    /// The half ids and pattern tables, and apart from them the parts a
    /// pattern change updates.
    #[inline(always)]
    fn split_for_update(&mut self) -> ([&[u16]; 2], [&PatternTable; 2], Updates<'_>) {
        // Pattern changes are logged for undo once a move is on the
        // stack (not while the state is built).
        let log = (!self.marks.is_empty()).then_some(&mut self.log);
        (
            [&self.half_ids[0][..], &self.half_ids[1][..]],
            [&*self.tables[0], &*self.tables[1]],
            Updates {
                patterns: &mut self.patterns,
                point_values: &self.point_values,
                network: self.network,
                accumulators: &mut self.accumulators,
                value: &mut self.value,
                threat_counts: &mut self.threat_counts,
                four_counts: &mut self.four_counts,
                four_points: &mut self.four_points,
                log,
            },
        )
    }

    /// Drops an about-to-be-occupied point's contribution (from the
    /// evaluation sums and threat counts only for a `full` move).
    fn clear_point(&mut self, index: usize, scored: bool) {
        for c in 0..2 {
            let key = &mut self.patterns[index].threat_key[c];
            if scored {
                self.threat_counts[c][THREATS[*key as usize] as usize] -= 1;
                let [mover, other] = self.point_values[c].by_key[*key as usize];
                self.value[c][0] -= i32::from(mover);
                self.value[c][1] -= i32::from(other);
                if let Some(network) = self.network {
                    network.update(&mut self.accumulators[c], c, *key, 0);
                }
            }
            *key = 0;
            for d in 0..4 {
                let old = self.patterns[index].dir[c][d];
                self.count_fours(index, c, old, 0);
                self.patterns[index].dir[c][d] = 0;
            }
        }
    }

    /// Computes all four directions of an empty point from scratch (the
    /// point contributes nothing before the call, and its patterns are
    /// all [`Pattern::None`]).
    fn refresh_point(&mut self, index: usize) {
        for c in 0..2 {
            // Count the point's threat (none) so refresh_dir can move it.
            self.threat_counts[c][Threat::None as usize] += 1;
        }
        for d in 0..4 {
            self.refresh_dir(index, d);
        }
    }

    /// Recomputes one direction's patterns (both colours) of an empty point.
    fn refresh_dir(&mut self, index: usize, d: usize) {
        let (kb, kw) = self.keys(index, d);
        self.apply_keys(index, d, kb, kw);
    }

    /// Sets direction `d` of an empty point from its two table keys.
    #[inline(always)]
    fn apply_keys(&mut self, index: usize, d: usize, kb: u64, kw: u64) {
        let (_, tables, mut updates) = self.split_for_update();
        for (c, key) in [(0usize, kb), (1usize, kw)] {
            updates.set::<true, true>(index, c, d, tables[c].lookup_code(key));
        }
    }

    /// One line of `index` went from pattern `old` to `new` for colour
    /// `c`: the four counts and the four-point set follow.
    #[inline(always)]
    fn count_fours(&mut self, index: usize, c: usize, old: u8, new: u8) {
        count_fours(
            &mut self.four_counts,
            &mut self.four_points,
            (index, c),
            old,
            new,
        );
    }

    /// Builds the wide padded copy of the (empty) board and the half-id
    /// tables.
    fn build_wide(&mut self) {
        let k = self.k;
        let size = self.rules.size;
        // Padded by 2k + 1: the rolling keys read that far past a point.
        let pad = 2 * k + 1;
        let stride = size.width as usize + 2 * pad;
        let rows = size.height as usize + 2 * pad;
        self.wide = vec![Cell::Wall as u8; stride * rows];
        self.to_wide = vec![0; self.board.cell_count()];
        self.coords = vec![(0, 0); self.board.cell_count()];
        for p in size.points() {
            let w = (p.y as usize + pad) * stride + p.x as usize + pad;
            self.wide[w] = Cell::Empty as u8;
            self.to_wide[self.board.index(p)] = w as u32;
            self.coords[self.board.index(p)] = (p.x as i32, p.y as i32);
        }
        self.wide_steps = [1, stride, stride + 1, stride - 1];
        let opp_code = if self.caro_rule { 2 } else { 1 };
        for (color, own) in [(0usize, Cell::Black as u64), (1usize, Cell::White as u64)] {
            let table: Vec<u16> = (0..1u64 << (2 * k))
                .map(|code| {
                    let mut len = 0;
                    let mut mask = 0;
                    let mut blocker = 0;
                    for i in 0..k {
                        let c = (code >> (2 * i)) & 3;
                        if c == Cell::Empty as u64 {
                            len += 1;
                        } else if c == own {
                            mask |= 1 << i;
                            len += 1;
                        } else {
                            blocker = if c == Cell::Wall as u64 { 1 } else { opp_code };
                            break;
                        }
                    }
                    half_id(len, mask, blocker, k as u8) as u16
                })
                .collect();
            self.half_ids[color] = table;
        }
    }

    /// Table keys of the line through `index` along `d`, for black and
    /// white: each half read outward (see [`half_id`]); cells past the
    /// first blocker do not count. Outside caro an opponent stone blocks
    /// like the edge.
    #[inline]
    fn keys(&self, index: usize, d: usize) -> (u64, u64) {
        let (left, right) = self.half_codes(index, d, usize::MAX, 0);
        (self.key(0, left, right), self.key(1, left, right))
    }

    /// The pattern-table keys (black's, white's) of the line through the
    /// empty point `index` along `d`: the finest description of the line
    /// a [`Pattern`] is read from (see [`crate::pattern::key_to_line`]).
    #[must_use]
    pub fn line_keys(&self, index: usize, d: usize) -> (u64, u64) {
        self.keys(index, d)
    }

    /// The table key of colour `c` for two raw half codes.
    #[inline]
    fn key(&self, c: usize, left: usize, right: usize) -> u64 {
        key_of(
            self.half_ids[c][left] as u64,
            self.half_ids[c][right] as u64,
            self.rules.k,
        )
    }

    /// The raw codes (2 bits a cell, nearest first) of the `k` cells on
    /// each side of `index` along `d`, reading the cell at wide index
    /// `extra` as holding `extra_code`.
    #[inline]
    fn half_codes(&self, index: usize, d: usize, extra: usize, extra_code: u8) -> (usize, usize) {
        let step = self.wide_steps[d];
        let w = self.to_wide[index] as usize;
        let cell = |at: usize| {
            if at == extra {
                extra_code as usize
            } else {
                self.wide[at] as usize
            }
        };
        let mut left = 0usize;
        let mut right = 0usize;
        for i in 0..self.k {
            left |= cell(w - (i + 1) * step) << (2 * i);
            right |= cell(w + (i + 1) * step) << (2 * i);
        }
        (left, right)
    }

    /// The pattern `color` would have along `d` at the empty point
    /// `index` if a stone of `stone` stood on the empty point `extra`
    /// too: what one more stone does to a line, without playing it.
    #[must_use]
    pub fn pattern_with_stone(
        &self,
        index: usize,
        d: usize,
        color: Color,
        extra: usize,
        stone: Color,
    ) -> Pattern {
        let extra_code = Cell::stone(stone) as u8;
        let (left, right) = self.half_codes(index, d, self.to_wide[extra] as usize, extra_code);
        let c = color.index();
        self.tables[c].lookup(self.key(c, left, right))
    }
}

/// The threat of a point whose four direction patterns make `key`
/// (`((d0 * 9 + d1) * 9 + d2) * 9 + d3`).
#[cfg(test)]
#[must_use]
pub(crate) fn threat_of_key(key: usize) -> Threat {
    THREATS[key]
}

#[cfg(test)]
mod tests {
    use super::*;
    use caro_core::notation::parse_move_list;
    use caro_core::BoardSize;

    fn game(rule: Rule, moves: &str) -> Game {
        let rules = Rules::new(BoardSize::square(15), 5, rule).unwrap();
        let m = parse_move_list(moves, rules.size).unwrap();
        Game::from_moves(rules, Color::Black, &m).unwrap()
    }

    /// Everything the state keeps, in a comparable form (the four-point
    /// set sorted).
    fn snapshot(s: &State) -> impl PartialEq + std::fmt::Debug {
        let patterns: Vec<_> = s.patterns.iter().map(|p| (p.dir, p.threat_key)).collect();
        let mut fours = [
            s.four_points(Color::Black).to_vec(),
            s.four_points(Color::White).to_vec(),
        ];
        fours.iter_mut().for_each(|f| f.sort_unstable());
        (
            patterns,
            s.near.clone(),
            s.value,
            s.four_counts,
            s.threat_counts,
            fours,
            s.hash(),
            s.area(),
        )
    }

    proptest::proptest! {
        /// Playing a random game and taking back some of it leaves the
        /// state exactly as building it from scratch for the moves left,
        /// under every rule and every win length.
        #[test]
        fn play_and_undo_match_a_fresh_state(
            cells in proptest::collection::vec((0u8..11, 0u8..11), 1..60),
            back in 0usize..60,
            rule_at in 0usize..5,
            k in 3u8..=10,
            lines_only in proptest::collection::vec(0usize..121, 0..4),
        ) {
            let rule = [Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro, Rule::CaroStandard][rule_at];
            let k = if rule == Rule::Renju { 5 } else { k };
            let rules = Rules::new(BoardSize::square(11), k, rule).unwrap();
            let mut game = Game::new(rules, Color::Black).unwrap();
            let mut s = State::new(&game);
            for (x, y) in cells {
                let p = Pos::new(x, y);
                if game.is_over() || game.check(p).is_err() {
                    continue;
                }
                game.try_play(p).unwrap();
                let i = s.index(p);
                s.play(i);
            }
            proptest::prop_assert_eq!(snapshot(&s), snapshot(&State::new(&game)));
            // Moves played for the lines only and taken back leave no trace.
            // Empty points picked anywhere on the board, each once.
            let all_empty: Vec<usize> = (0..s.board().cell_count())
                .filter(|&i| s.board().cell(i) == Cell::Empty)
                .collect();
            let mut empties: Vec<usize> = Vec::new();
            for pick in lines_only {
                if all_empty.is_empty() {
                    break;
                }
                let i = all_empty[pick % all_empty.len()];
                if !empties.contains(&i) {
                    empties.push(i);
                }
            }
            // A line read with one more stone, all at once, as point by point.
            for &a in empties.iter().take(3) {
                for d in 0..4 {
                    for color in [Color::Black, Color::White] {
                        let mut along = Vec::new();
                        s.line_with_stone(a, d, color, |j, p| along.push((j, p)));
                        let k = s.rules().k as usize;
                        let step = s.board().dir_offsets()[d];
                        let mut expected = Vec::new();
                        for forward in [false, true] {
                            let mut j = a;
                            for _ in 0..k {
                                j = if forward { j + step } else { j - step };
                                match s.board().cell(j) {
                                    Cell::Wall => break,
                                    Cell::Empty => {
                                        expected.push((j, s.pattern_with_stone(j, d, color, a, color)));
                                    }
                                    _ => {}
                                }
                            }
                        }
                        along.sort_unstable();
                        expected.sort_unstable();
                        proptest::prop_assert_eq!(along, expected);
                    }
                }
            }
            // What a lines-only or unscored move keeps as a full one does:
            // the patterns, four counts and points, the hash, and (where
            // `near`) what move generation reads.
            let kept = |t: &State, near: bool| {
                let patterns: Vec<_> = t.patterns.iter().map(|p| (p.dir, p.threat_key)).collect();
                let mut fours = [t.four_points(Color::Black).to_vec(), t.four_points(Color::White).to_vec()];
                fours.iter_mut().for_each(|f| f.sort_unstable());
                let area = near.then(|| (t.near.clone(), t.area()));
                (patterns, t.four_counts, fours, t.hash(), area)
            };
            // The same moves played in full, for what a lines-only move
            // must keep as a full one does.
            let mut full = s.clone();
            for &i in &empties {
                s.play_lines_only(i);
                full.play(i);
                proptest::prop_assert_eq!(kept(&s, false), kept(&full, false));
                // What the VCF reads is kept: the four points and the
                // open-four points, as the patterns say.
                for color in [Color::Black, Color::White] {
                    let open_four = (0..s.board().cell_count()).any(|j| {
                        s.board().cell(j) == Cell::Empty && s.threat(j, color) == Threat::OpenFour
                    });
                    proptest::prop_assert_eq!(s.has_open_four_point(color), open_four);
                    let mut kept = s.four_points(color).to_vec();
                    kept.sort_unstable();
                    let from_patterns: Vec<u32> = (0..s.board().cell_count())
                        .filter(|&j| {
                            s.board().cell(j) == Cell::Empty
                                && s.patterns[j].dir[color.index()].iter().any(|&v| is_four_or_five(v))
                        })
                        .map(|j| j as u32)
                        .collect();
                    proptest::prop_assert_eq!(kept, from_patterns);
                }
            }
            for _ in &empties {
                s.undo();
            }
            proptest::prop_assert_eq!(snapshot(&s), snapshot(&State::new(&game)));
            // Unscored moves keep what a full move keeps but the sums: the
            // patterns, four points and hash, and what move generation
            // reads, the neighbour counts and the area; and the last of
            // them may be a lines-only move.
            let mut unscored = s.clone();
            let mut full = s.clone();
            for (n, &i) in empties.iter().enumerate() {
                let last = n + 1 == empties.len() && n > 0;
                if last {
                    unscored.play_lines_only(i);
                } else {
                    unscored.play_unscored(i);
                }
                full.play(i);
                proptest::prop_assert_eq!(kept(&unscored, !last), kept(&full, !last));
            }
            for _ in &empties {
                unscored.undo();
            }
            proptest::prop_assert_eq!(snapshot(&unscored), snapshot(&State::new(&game)));
            for _ in 0..back.min(game.moves().len()) {
                s.undo();
                game.undo().unwrap();
            }
            proptest::prop_assert_eq!(snapshot(&s), snapshot(&State::new(&game)));
        }
    }

    proptest::proptest! {
        /// A point that may not be a renju foul by its patterns is none by
        /// the full rule, and stays none after one more white stone
        /// anywhere (white stones only take away from black's lines): the
        /// VCF relies on it to know black's block is allowed before white
        /// plays the four.
        #[test]
        fn a_point_that_cannot_be_a_foul_stays_so_after_a_white_stone(
            stones in proptest::collection::vec((0u8..9, 0u8..9, proptest::bool::weighted(0.35)), 10..40),
            white in (0u8..9, 0u8..9),
        ) {
            let mut setup = caro_core::GameSetup::new(BoardSize::square(9), 5, Rule::Renju);
            for &(x, y, is_white) in &stones {
                let p = Pos::new(x, y);
                if setup.stones.iter().all(|&(q, _)| q != p) {
                    setup.stones.push((p, if is_white { Color::White } else { Color::Black }));
                }
            }
            setup.to_move = Some(Color::White);
            let Ok(game) = Game::from_setup(&setup) else {
                return Ok(());
            };
            let w = Pos::new(white.0, white.1);
            if game.is_over() || game.board().get(w).is_some() {
                return Ok(());
            }
            let mut s = State::new(&game);
            let cannot: Vec<usize> = (0..s.board().cell_count())
                .filter(|&j| s.board().cell(j) == Cell::Empty && !s.may_be_foul(j))
                .collect();
            let wi = s.index(w);
            s.play(wi);
            for j in cannot.into_iter().filter(|&j| j != wi) {
                let p = s.pos(j);
                let mut board = s.board().clone();
                proptest::prop_assert!(board.foul_at(p, Color::Black, Rule::Renju).is_none(), "{p:?}");
            }
        }
    }

    /// Rebuilding from scratch gives the same patterns as incremental play
    /// and undo.
    #[test]
    fn incremental_matches_scratch() {
        // The second game has fours for black (g8 and l8 make fives).
        for moves in ["h8 i9 h9 h10 g8 i8 i7 g9 j6 f9", "h8 a1 i8 a3 j8 a5 k8 b2"] {
            let g = game(Rule::Freestyle, moves);
            let mut s = State::new(&game(Rule::Freestyle, ""));
            for &m in g.moves() {
                let i = s.index(m);
                s.play(i);
            }
            let fresh = State::new(&g);
            for p in g.size().points() {
                let i = s.index(p);
                assert_eq!(s.patterns[i].dir, fresh.patterns[i].dir, "{p:?}");
                for c in 0..2 {
                    let [a, b, e, f] = s.patterns[i].dir[c].map(u16::from);
                    let key = ((a * 9 + b) * 9 + e) * 9 + f;
                    assert_eq!(s.patterns[i].threat_key[c], key, "{p:?}");
                    assert_eq!(fresh.patterns[i].threat_key[c], key, "{p:?}");
                }
                assert_eq!(s.near[i], fresh.near[i]);
            }
            assert_eq!(s.value, fresh.value);
            assert_eq!(s.evaluate(), naive_evaluation(&s));
            assert_eq!(s.four_counts, fresh.four_counts);
            let mut naive_fours = [[0u32; 3]; 2];
            for i in 0..s.board.cell_count() {
                if s.board.cell(i) == Cell::Empty {
                    for (counts, dirs) in naive_fours.iter_mut().zip(s.patterns[i].dir) {
                        for v in dirs.into_iter().filter(|&v| is_four_or_five(v)) {
                            counts[(v - Pattern::Block4 as u8) as usize] += 1;
                        }
                    }
                }
            }
            assert_eq!(s.four_counts, naive_fours, "{moves}");
            assert_eq!(s.threat_counts, fresh.threat_counts);
            assert_eq!(s.threat_counts, naive_threat_counts(&s), "{moves}");
            for color in [Color::Black, Color::White] {
                let from_patterns: Vec<u32> = g
                    .size()
                    .points()
                    .map(|p| s.index(p))
                    .filter(|&i| {
                        s.board.cell(i) == Cell::Empty
                            && s.patterns[i].dir[color.index()]
                                .iter()
                                .any(|&v| is_four_or_five(v))
                    })
                    .map(|i| i as u32)
                    .collect();
                for state in [&s, &fresh] {
                    let mut kept = state.four_points(color).to_vec();
                    kept.sort_unstable();
                    assert_eq!(kept, from_patterns, "{moves}: {color:?}");
                }
            }
            for _ in 0..g.moves().len() {
                s.undo();
            }
            let empty = State::new(&game(Rule::Freestyle, ""));
            assert_eq!(s.value, empty.value);
            assert_eq!(s.four_counts, empty.four_counts);
            assert_eq!(s.threat_counts, empty.threat_counts);
            assert_eq!(s.hash(), empty.hash());
            assert!(
                s.four_points(Color::Black).is_empty() && s.four_points(Color::White).is_empty()
            );
        }
    }

    /// Threat counts by asking every empty point.
    fn naive_threat_counts(s: &State) -> [[u32; 7]; 2] {
        let mut counts = [[0; 7]; 2];
        for i in 0..s.board.cell_count() {
            if s.board.cell(i) == Cell::Empty {
                for color in [Color::Black, Color::White] {
                    counts[color.index()][s.threat(i, color) as usize] += 1;
                }
            }
        }
        counts
    }

    /// The evaluation by summing every empty point's value afresh,
    /// counting each side's threat points afresh and adding up the
    /// network's accumulators afresh.
    fn naive_evaluation(s: &State) -> i32 {
        let me = s.to_move();
        let mut sum = 0;
        let mut counts = [[0usize; 7]; 2];
        let mut accumulators = [[0i32; EMBED]; 2];
        for i in 0..s.board.cell_count() {
            if s.board.cell(i) == Cell::Empty {
                for (color, role) in [(me, 0), (me.opponent(), 1)] {
                    let d = s.patterns[i].dir[color.index()];
                    let key = ((d[0] as usize * 9 + d[1] as usize) * 9 + d[2] as usize) * 9
                        + d[3] as usize;
                    let v = i32::from(point_values(s.rules.rule, color).by_key[key][role]);
                    sum += if role == 0 { v } else { -v };
                    counts[color.index()][THREATS[key] as usize] += 1;
                    if let Some(network) = s.network {
                        let c = network.combination_of(color.index(), key as u16);
                        let vector = &network.weights().vectors[color.index()][c];
                        for (a, &v) in accumulators[color.index()].iter_mut().zip(vector) {
                            *a += i32::from(v);
                        }
                    }
                }
            }
        }
        if let Some(network) = s.network {
            sum += network.output(me, &accumulators);
        }
        for (color, role) in [(me, 0), (me.opponent(), 1)] {
            let values = &count_values(s.rules.rule, color)[role];
            for (row, t) in values.iter().zip(COUNTED_THREATS) {
                sum += i32::from(row[counts[color.index()][t as usize].min(MAX_COUNT)]);
            }
        }
        let bits = |color: Color| {
            let c = counts[color.index()].map(|n| n as u32);
            threat_bits(&c, double_threes_count(s.rules.rule, color))
        };
        sum + i32::from(
            fitted_both_sides(s.rules.rule)[me.index()]
                [both_sides_key(bits(me), bits(me.opponent()))],
        )
    }

    #[test]
    fn the_opponents_double_three_points_cost_the_mover() {
        // White's f8 g8 and h6 h7 cross at h8, where white would make two
        // open threes; black (far off) is to move. The same stones with
        // h8 taken by black weigh far less against black.
        for rule in [Rule::Freestyle, Rule::Renju] {
            let s = State::new(&game(rule, "a15 f8 c15 g8 e15 h6 o1 h7"));
            assert_eq!(s.to_move(), Color::Black);
            let h8 = s.index(parse_move_list("h8", s.rules.size).unwrap()[0]);
            assert_eq!(s.threat(h8, Color::White), Threat::DoubleThree);
            assert_eq!(s.evaluate(), naive_evaluation(&s));
            let d = s.patterns[h8].dir[Color::White.index()];
            let key = ((d[0] as usize * 9 + d[1] as usize) * 9 + d[2] as usize) * 9 + d[3] as usize;
            let single_three = Pattern::Flex3 as usize;
            let values = &point_values(rule, Color::White).by_key;
            assert!(values[key][1] > 2 * values[single_three][1], "{rule:?}");
        }
        // Colours swapped under renju: black's double three is a foul, so
        // the point is worth nothing to black.
        let s = State::new(&game(Rule::Renju, "f8 a15 g8 c15 h6 e15 h7"));
        assert_eq!(s.to_move(), Color::White);
        let h8 = s.index(parse_move_list("h8", s.rules.size).unwrap()[0]);
        assert_eq!(s.threat(h8, Color::Black), Threat::DoubleThree);
        let d = s.patterns[h8].dir[Color::Black.index()];
        let key = ((d[0] as usize * 9 + d[1] as usize) * 9 + d[2] as usize) * 9 + d[3] as usize;
        assert_eq!(point_values(Rule::Renju, Color::Black).by_key[key][1], 0);
        assert_eq!(s.evaluate(), naive_evaluation(&s));
    }

    #[test]
    fn an_open_three_shows_open_four_points() {
        let g = game(Rule::Freestyle, "h8 a1 i8 a3 j8 a5");
        let s = State::new(&g);
        let g8 = s.index(parse_move_list("g8", g.size()).unwrap()[0]);
        assert_eq!(s.threat(g8, Color::Black), Threat::OpenFour);
        assert!(s.has(Color::Black, Pattern::Flex4));
        assert!(!s.has(Color::White, Pattern::Flex4));
    }
}
