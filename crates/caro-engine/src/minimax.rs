//! `minimax:N`: the computer player of the tic-tac-toe article ("HTML games
//! programming from the ground up: Improving the AI player", class
//! `AiPlayer`), reproduced from its published algorithm and carried over
//! to every board, k and rule.
//!
//! ## The article's algorithm
//!
//! - **Strengths** 0..=4 search to depths `[0, 2, 4, 6, 10]` plies
//!   (`#maxDepths`). Strength 0 never searches: it plays a random move.
//! - **Minimax** (`AIMove`, `#minimax`): every empty point is tried; the
//!   computer maximises, its opponent minimises, to the strength's depth.
//! - **Terminal scores** (`#evalBoard`, `#adjustScore`): a win for the
//!   computer scores 100, a loss -100, both multiplied by
//!   `1 - 0.05 · depth` (depth = plies from the current position), so a
//!   quicker win and a slower loss are preferred; a full board is a draw
//!   scoring 0.
//! - **Non-terminal leaves** (`#evalNonTerminalBoard`): every winning line
//!   scores +3 or +6 for one or two of the computer's marks and no
//!   opponent's, -3 or -6 the other way round, -1 when it holds both, 0
//!   when empty; a line's score counts only if its size reaches the
//!   strength's threshold `[101, 100, 6, 3, 0]` (`#scoreThresholds`).
//! - **Ties**: every move of the best score is collected and one is drawn
//!   at random.
//!
//! On 3×3 this is exactly the article's player: strength 4 searches the
//! whole game tree and plays perfectly.
//!
//! ## Fixes and generalisation
//!
//! - **Evaluation sign** (article bug): for lines holding only opponent
//!   marks the article writes `score -= isMax ? -3 : 3`, which adds +3 at
//!   the computer's nodes — lines of the opponent then score like the
//!   computer's own. Its own table (opponent-only lines are -3 / -6, from
//!   the computer's point of view) is implemented.
//! - **Lines** are all windows of `k` consecutive points in the four
//!   directions (the 8 lines of tic-tac-toe for 3×3, k = 3). As for the
//!   other article players, the line scores are aligned on the winning
//!   end: a window of one side only that is one mark from a win scores ±6
//!   (the article's two marks of three), two marks from a win ±3 (one mark
//!   of three), further 0; a window holding both sides -1; the thresholds
//!   gate these as in the article. A full window that did not win (a caro
//!   five blocked at both ends) scores as one mark short. Reading the
//!   article's 3 and 6 as "3 per mark" instead (3, 6, 9, 12 for k = 5)
//!   gives the same tic-tac-toe player but on 15×15 made strength 2 beat
//!   strength 4 by 19 games to 1 (the many one-stone windows drown the
//!   threats); aligned, strength 1 < 2 < 3 there. The article's -1 for a
//!   window holding both sides (strength 4 only) is kept as published,
//!   though on big boards it counts against every contact with the
//!   opponent's stones: on 15×15 strength 3 beat strength 4 by 29 games
//!   to 11.
//! - **Win scale.** The article notes its leaf scores (at most 48) stay
//!   below the smallest discounted win (50 at depth 10). Bigger boards have
//!   far more lines, so the win score `100` is multiplied by the smallest
//!   factor keeping every discounted win above every possible leaf score
//!   (the factor is 1 on 3×3).
//! - **Rules.** A win is whatever the game's rule calls one
//!   ([`caro_core::Board::winning_line`]); black never plays a renju
//!   forbidden point, at the root or inside the search.
//! - **Big boards.** The article's search is for 9 points. On any board
//!   larger than 3×3 the moves tried are the empty points within
//!   [`CANDIDATE_DISTANCE`] (Chebyshev) of a stone — the centre on an empty
//!   board — and the depth is capped at [`BIG_BOARD_MAX_DEPTH`] (4 plies),
//!   so that a move at strength 4 on 15×15 takes well under a second. As a
//!   safety net for crowded positions on huge boards, a 4-ply search that
//!   needs more than [`NODE_BUDGET`] nodes is dropped for the 2-ply one
//!   that precedes it (deterministic: a node count, not a clock).
//! - **Speed, same answer.** The search prunes with alpha-beta (killer
//!   moves, line-score ordering, a 2-ply pass to order the root moves) and
//!   keeps the line scores up to date move by move. Root moves are searched
//!   with the window `(best - 1, +∞)`, so every move scoring as well as the
//!   best gets its exact score: the set of best moves, and so the random
//!   choice, is that of the plain minimax. Tests check this against a
//!   literal port of the article on every 3×3 position and against an
//!   unpruned minimax on bigger boards.
//! - **Stopping.** The search honours the stop flag, the time budget and
//!   the node limit of [`Limits`](crate::Limits): it plays the 2-ply choice
//!   if that pass was complete, else the best of the root moves searched so
//!   far. A depth limit is not used (the strength sets the depth).

use std::time::Instant;

use caro_core::{Board, Cell, Color, Game, Pos, Rules};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::player::{Context, Decision, EngineError, Player, Score, SearchInfo, StopFlag};

/// The article's search depth (plies) for each strength (`#maxDepths`).
pub const MAX_DEPTHS: [u32; 5] = [0, 2, 4, 6, 10];

/// The article's line-score threshold for each strength
/// (`#scoreThresholds`): a line's score counts if its size reaches it.
const THRESHOLDS: [i64; 5] = [101, 100, 6, 3, 0];

/// Depth cap on boards larger than 3×3: strengths 2..=4 search 4 plies
/// there (strength 1 keeps its 2). Minimax grows as the number of candidate
/// points (60 to 120 on a 15×15 middle game, 200 and more on 20×20) to the
/// depth; at 4 plies a strength-4 move on 15×15 took about 10 ms on
/// average and under 0.1 s at worst in test games (release build), where 6
/// plies would take seconds to minutes. An even depth, as all the
/// article's are, ends on the opponent's reply.
pub const BIG_BOARD_MAX_DEPTH: u32 = 4;

/// On boards larger than 3×3, the moves tried are the empty points at most
/// this far (Chebyshev distance) from a stone.
pub const CANDIDATE_DISTANCE: i32 = 2;

/// On boards larger than 3×3, a search deeper than 2 plies that would take
/// more nodes than this (on top of the 2-ply pass) is given up and the
/// 2-ply choice is played: half a second to a second in a release build. A
/// safety net for crowded positions on big boards; no test game has needed
/// it.
pub const NODE_BUDGET: u64 = 2_000_000;

/// The article's win score (before the depth discount).
const WIN: i64 = 100;

/// The discount `1 - 0.05 · depth` is `(DISCOUNT - depth) / DISCOUNT`;
/// scores are kept multiplied by `DISCOUNT` to stay in integers.
const DISCOUNT: i64 = 20;

/// A line of one side only that is one mark from a win (the article's two
/// marks of three).
const ONE_TO_GO: i64 = 6;

/// A line of one side only that is two marks from a win (the article's one
/// mark of three).
const TWO_TO_GO: i64 = 3;

/// The score of a window of `k` points holding `marks` of one side and
/// none of the other: aligned on the winning end, so that for k = 3 it is
/// the article's 3 and 6. A full window (a line that did not win) scores
/// as one mark short.
fn line_score(marks: i32, k: i32) -> i64 {
    let to_go = k - marks.min(k - 1);
    match to_go {
        1 => ONE_TO_GO,
        2 => TWO_TO_GO,
        _ => 0,
    }
}

/// A line holding marks of both sides (the article's -1).
const MIXED: i64 = -1;

/// Ordering bonus of a killer move (above any line-score change).
const KILLER_BONUS: i64 = 1 << 40;

/// How often (in nodes) the search looks at the stop flag and the clock.
const POLL_NODES: u64 = 1024;

/// Inner nodes are ordered by line score only this many plies or more
/// above the leaves; lower down the killers go first and the rest in no
/// order (ordering costs as much as it saves there).
const ORDERED_ABOVE: u32 = 2;

/// `Tree::slot` of a point not in the candidate set.
const NOT_IN_SET: u32 = u32::MAX;

/// The four directions as `(dx, dy)`.
const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];

/// The tic-tac-toe article's depth-limited minimax, strength 0..=4.
pub struct MinimaxPlayer {
    strength: u32,
    rng: StdRng,
}

impl MinimaxPlayer {
    /// A minimax player of `strength` 0..=4 (higher values play as 4);
    /// `seed` fixes its random choices.
    #[must_use]
    pub fn new(strength: u32, seed: u64) -> MinimaxPlayer {
        MinimaxPlayer {
            strength: strength.min(4),
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// The search depth this player uses for `rules`.
    #[must_use]
    pub fn depth_for(&self, rules: &Rules) -> u32 {
        let depth = MAX_DEPTHS[self.strength as usize];
        if rules.size.area() > 9 {
            depth.min(BIG_BOARD_MAX_DEPTH)
        } else {
            depth
        }
    }
}

impl Player for MinimaxPlayer {
    fn name(&self) -> String {
        format!("minimax:{}", self.strength)
    }

    fn choose(&mut self, game: &Game, ctx: &mut Context<'_>) -> Result<Decision, EngineError> {
        let legal = game.legal_moves();
        if legal.is_empty() {
            return Err(EngineError::GameOver);
        }
        if self.strength == 0 {
            // Depth 0: every move scores the same, so the choice is random.
            let best = legal[self.rng.random_range(0..legal.len())];
            return Ok(Decision { best, info: None });
        }
        let depth = self.depth_for(game.rules());
        let mut tree = Tree::new(game, depth, THRESHOLDS[self.strength as usize]);
        tree.stop = Some(ctx.stop.clone());
        tree.deadline = ctx.deadline(1.0);
        tree.node_limit = ctx.limits.nodes;
        let root = tree.search_root(&legal);
        let best = root.best[self.rng.random_range(0..root.best.len())];
        let info = SearchInfo {
            depth: root.depth,
            seldepth: root.depth,
            score: tree.score_of(root.value),
            nodes: tree.nodes,
            elapsed: ctx.started.elapsed(),
            pv: vec![best],
        };
        (ctx.progress)(&info);
        Ok(Decision {
            best,
            info: Some(info),
        })
    }
}

/// What the root search found.
struct RootResult {
    /// The depth of the search that chose.
    depth: u32,
    /// Every move of the best score, row by row from the top-left.
    best: Vec<Pos>,
    /// The best score (scaled by [`DISCOUNT`]).
    value: i64,
}

/// The search state: the board, the window counts and their score, kept up
/// to date move by move.
struct Tree {
    rules: Rules,
    board: Board,
    me: Color,
    max_depth: u32,
    width: i32,
    height: i32,
    k: i32,
    area: usize,
    /// Whether moves are limited to points near stones (boards over 3×3).
    restrict: bool,
    /// Stones `[black, white]` in each window, by `dir * area + start`.
    counts: Vec<[u8; 2]>,
    /// Leaf score of a window by `black * (k + 1) + white`, threshold applied.
    values: Vec<i64>,
    /// The same without the threshold: for move ordering only.
    order_values: Vec<i64>,
    /// Sum of the window scores of the current position.
    eval: i64,
    /// The most one stone can change `eval`.
    max_delta: i64,
    /// Windows one stone from filling, `[black, white]`: with none, the
    /// side cannot win with its next stone.
    lines: [u32; 2],
    /// The article's win score times the big-board factor.
    win: i64,
    /// Stones within [`CANDIDATE_DISTANCE`] of each point (`y * width + x`).
    near: Vec<u16>,
    /// The empty points with `near > 0` (boards over 3×3), in no order.
    set: Vec<u32>,
    /// Where each point is in `set`, or [`NOT_IN_SET`].
    slot: Vec<u32>,
    /// Candidate buffers, one per ply.
    buffers: Vec<Vec<(i64, Pos)>>,
    /// Two moves per ply that last cut the search off, tried first.
    killers: Vec<[Option<Pos>; 2]>,
    nodes: u64,
    stop: Option<StopFlag>,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    /// [`NODE_BUDGET`] after the 2-ply pass, as a node count.
    budget: Option<u64>,
    aborted: bool,
}

impl Tree {
    fn new(game: &Game, max_depth: u32, threshold: i64) -> Tree {
        let rules = *game.rules();
        let size = rules.size;
        let (width, height, k) = (size.width as i32, size.height as i32, rules.k as i32);
        let area = size.area();
        let me = game.to_move();
        let line_value = |black: i32, white: i32, threshold: i64| -> i64 {
            let (own, opp) = match me {
                Color::Black => (black, white),
                Color::White => (white, black),
            };
            let v = match (own, opp) {
                (0, 0) => 0,
                (c, 0) => line_score(c, k),
                (0, c) => -line_score(c, k),
                _ => MIXED,
            };
            if v.abs() >= threshold {
                v
            } else {
                0
            }
        };
        let n = (k + 1) as usize;
        let mut values = vec![0; n * n];
        let mut order_values = vec![0; n * n];
        for b in 0..=k {
            for w in 0..=k {
                values[b as usize * n + w as usize] = line_value(b, w, threshold);
                order_values[b as usize * n + w as usize] = line_value(b, w, 0);
            }
        }
        let mut tree = Tree {
            rules,
            board: game.board().clone(),
            me,
            max_depth,
            width,
            height,
            k,
            area,
            restrict: area > 9,
            counts: vec![[0, 0]; 4 * area],
            values,
            order_values,
            eval: 0,
            max_delta: 0,
            lines: [0, 0],
            win: WIN,
            near: vec![0; area],
            set: Vec::new(),
            slot: vec![NOT_IN_SET; area],
            buffers: vec![Vec::new(); max_depth as usize + 1],
            killers: vec![[None; 2]; max_depth as usize + 1],
            nodes: 0,
            stop: None,
            deadline: None,
            node_limit: None,
            budget: None,
            aborted: false,
        };
        // Count the stones of every window and sum the window scores.
        let mut windows = 0i64;
        for (d, &(dx, dy)) in DIRS.iter().enumerate() {
            for y in 0..height {
                for x in 0..width {
                    if !tree.fits(x, y, dx, dy) {
                        continue;
                    }
                    windows += 1;
                    let mut c = [0u8; 2];
                    for t in 0..k {
                        let p = Pos::new((x + t * dx) as u8, (y + t * dy) as u8);
                        if let Some(color) = tree.board.get(p) {
                            c[color.index()] += 1;
                        }
                    }
                    let id = d * area + (y * width + x) as usize;
                    tree.counts[id] = c;
                    tree.eval += tree.value_of(id);
                    if let Some(side) = tree.line_of(c) {
                        tree.lines[side] += 1;
                    }
                }
            }
        }
        // Every leaf score is within ±6 per window; the smallest discounted
        // win (depth 10: half the win score) must beat it.
        let bound = ONE_TO_GO * windows;
        tree.win = WIN * (2 * bound / WIN + 1);
        // The most one stone can change the leaf score: every window
        // through it (4k) changing by the most any window can.
        let most = (0..n * n)
            .filter_map(|i| {
                let (b, w) = (i / n, i % n);
                let now = tree.values[i];
                let after_b = (b < k as usize).then(|| tree.values[i + n]);
                let after_w = (w < k as usize).then(|| tree.values[i + 1]);
                [after_b, after_w]
                    .into_iter()
                    .flatten()
                    .map(|v| (v - now).abs())
                    .max()
            })
            .max()
            .unwrap_or(0);
        tree.max_delta = 4 * k as i64 * most;
        if tree.restrict {
            for (p, _) in game.board().stones() {
                tree.add_near(p, true);
            }
        }
        tree
    }

    /// Whether the window of `k` points from `(x, y)` along `(dx, dy)` is on
    /// the board.
    #[inline]
    fn fits(&self, x: i32, y: i32, dx: i32, dy: i32) -> bool {
        let (ex, ey) = (x + (self.k - 1) * dx, y + (self.k - 1) * dy);
        (0..self.width).contains(&x)
            && (0..self.height).contains(&y)
            && (0..self.width).contains(&ex)
            && (0..self.height).contains(&ey)
    }

    /// Calls `f` with the id of every window through `p`.
    #[inline(always)]
    fn for_windows(&self, p: Pos, mut f: impl FnMut(usize)) {
        /// The offsets `t` keeping the window start `c - t·s` and end
        /// `c - t·s + (k-1)·s` within `0..extent` on one axis.
        #[inline(always)]
        fn axis(c: i32, s: i32, extent: i32, k: i32) -> (i32, i32) {
            match s {
                1 => ((c + k - extent).max(0), c.min(k - 1)),
                -1 => ((k - 1 - c).max(0), (extent - 1 - c).min(k - 1)),
                _ => (0, k - 1),
            }
        }
        let (x, y) = (p.x as i32, p.y as i32);
        for (d, &(dx, dy)) in DIRS.iter().enumerate() {
            let (lx, hx) = axis(x, dx, self.width, self.k);
            let (ly, hy) = axis(y, dy, self.height, self.k);
            let base = (d * self.area) as i32 + y * self.width + x;
            let step = dy * self.width + dx;
            for t in lx.max(ly)..=hx.min(hy) {
                f((base - t * step) as usize);
            }
        }
    }

    /// The windows through `p`: ids in the first `n` slots.
    fn windows_of(&self, p: Pos) -> ([u32; 40], usize) {
        let mut ids = [0; 40];
        let mut n = 0;
        self.for_windows(p, |id| {
            ids[n] = id as u32;
            n += 1;
        });
        (ids, n)
    }

    #[inline]
    fn value_of(&self, id: usize) -> i64 {
        let [b, w] = self.counts[id];
        self.values[b as usize * (self.k as usize + 1) + w as usize]
    }

    /// How a stone of `color` at `p` would change the sum of `table` over
    /// the windows.
    fn delta(&self, p: Pos, color: Color, table: &[i64]) -> i64 {
        self.delta_and_line(p, color, table).0
    }

    /// [`Tree::delta`], and whether the stone would fill a window with
    /// `color` (make `k` in a row: needed, not enough, for a win).
    #[inline]
    fn delta_and_line(&self, p: Pos, color: Color, table: &[i64]) -> (i64, bool) {
        let n = self.k as usize + 1;
        let k = self.k as u8;
        // Index steps in `table` for one more stone of `color`.
        let step = match color {
            Color::Black => n,
            Color::White => 1,
        };
        let side = color.index();
        let mut delta = 0;
        let mut line = false;
        self.for_windows(p, |id| {
            let c = self.counts[id];
            let i = c[0] as usize * n + c[1] as usize;
            line |= c[side] + 1 == k;
            delta += table[i + step] - table[i];
        });
        (delta, line)
    }

    /// Counts a stone at `p` in (`add`) or out of the `near` counts of the
    /// points around it, keeping `set` in step.
    fn add_near(&mut self, p: Pos, add: bool) {
        let (x, y) = (p.x as i32, p.y as i32);
        let r = CANDIDATE_DISTANCE;
        for ny in (y - r).max(0)..=(y + r).min(self.height - 1) {
            for nx in (x - r).max(0)..=(x + r).min(self.width - 1) {
                let i = (ny * self.width + nx) as usize;
                if add {
                    self.near[i] += 1;
                    if self.near[i] == 1 && self.is_empty(nx, ny) {
                        self.set_insert(i);
                    }
                } else {
                    self.near[i] -= 1;
                    if self.near[i] == 0 {
                        self.set_remove(i);
                    }
                }
            }
        }
    }

    #[inline]
    fn is_empty(&self, x: i32, y: i32) -> bool {
        let index = self.board.index(Pos::new(x as u8, y as u8));
        self.board.cell(index) == Cell::Empty
    }

    fn set_insert(&mut self, i: usize) {
        if self.slot[i] == NOT_IN_SET {
            self.slot[i] = self.set.len() as u32;
            self.set.push(i as u32);
        }
    }

    fn set_remove(&mut self, i: usize) {
        let at = self.slot[i];
        if at != NOT_IN_SET {
            let last = *self.set.last().expect("the set holds i");
            self.set.swap_remove(at as usize);
            if last as usize != i {
                self.slot[last as usize] = at;
            }
            self.slot[i] = NOT_IN_SET;
        }
    }

    /// The side a window is one stone from filling (`k - 1` of its stones,
    /// none of the other side's).
    #[inline]
    fn line_of(&self, [b, w]: [u8; 2]) -> Option<usize> {
        let k1 = self.k as u8 - 1;
        match (b, w) {
            (b, 0) if b == k1 => Some(0),
            (0, w) if w == k1 => Some(1),
            _ => None,
        }
    }

    /// Adds (or takes back) a stone of `color` in window `id`.
    #[inline]
    fn update_window(&mut self, id: usize, color: Color, add: bool) {
        let old = self.value_of(id);
        if let Some(side) = self.line_of(self.counts[id]) {
            self.lines[side] -= 1;
        }
        let count = &mut self.counts[id][color.index()];
        if add {
            *count += 1;
        } else {
            *count -= 1;
        }
        if let Some(side) = self.line_of(self.counts[id]) {
            self.lines[side] += 1;
        }
        self.eval += self.value_of(id) - old;
    }

    fn place(&mut self, p: Pos, color: Color) {
        let index = self.board.index(p);
        self.board.place(index, color);
        let (ids, n) = self.windows_of(p);
        for &id in &ids[..n] {
            self.update_window(id as usize, color, true);
        }
        if self.restrict {
            let i = p.y as usize * self.width as usize + p.x as usize;
            self.set_remove(i);
            self.add_near(p, true);
        }
    }

    fn remove(&mut self, p: Pos, color: Color) {
        let index = self.board.index(p);
        self.board.remove(index);
        let (ids, n) = self.windows_of(p);
        for &id in &ids[..n] {
            self.update_window(id as usize, color, false);
        }
        if self.restrict {
            self.add_near(p, false);
            let i = p.y as usize * self.width as usize + p.x as usize;
            if self.near[i] > 0 {
                self.set_insert(i);
            }
        }
    }

    /// Whether black playing `p` under renju would be a foul. A cheap test
    /// first: a foul needs black stones within four points in two
    /// directions (two each) or in one direction (four).
    fn is_foul(&mut self, p: Pos) -> bool {
        let index = self.board.index(p);
        let mut twos = 0;
        let mut possible = false;
        for step in self.board.dir_offsets() {
            let mut n = 0;
            for forward in [false, true] {
                let mut i = index;
                for _ in 0..4 {
                    i = if forward { i + step } else { i - step };
                    match self.board.cell(i) {
                        Cell::Black => n += 1,
                        Cell::Wall => break,
                        _ => {}
                    }
                }
            }
            if n >= 4 {
                possible = true;
            } else if n >= 2 {
                twos += 1;
            }
        }
        if !possible && twos < 2 {
            return false;
        }
        self.board
            .foul_at(p, Color::Black, self.rules.rule)
            .is_some()
    }

    /// The moves to try for `color` at an inner node `depth` plies from the
    /// root; if `ordered`, best first for the side to move: this ply's
    /// killer moves, then by the unthresholded line score.
    fn candidates(&mut self, color: Color, depth: u32, ordered: bool, out: &mut Vec<(i64, Pos)>) {
        out.clear();
        let fouls = color == Color::Black && self.rules.rule.has_fouls();
        if !self.restrict {
            for y in 0..self.height {
                for x in 0..self.width {
                    if self.is_empty(x, y) {
                        out.push((0, Pos::new(x as u8, y as u8)));
                    }
                }
            }
        } else if self.board.stone_count() == 0 {
            out.push((0, self.rules.size.center()));
        } else {
            let w = self.width as u32;
            out.extend(
                self.set
                    .iter()
                    .map(|&i| (0, Pos::new((i % w) as u8, (i / w) as u8))),
            );
        }
        if fouls {
            out.retain(|m| !self.is_foul(m.1));
        }
        if !ordered {
            return;
        }
        let killers = self.killers[depth as usize];
        let sign = if color == self.me { 1 } else { -1 };
        for m in out.iter_mut() {
            m.0 = self.delta(m.1, color, &self.order_values);
            if let Some(rank) = killers.iter().position(|&k| k == Some(m.1)) {
                m.0 += sign * KILLER_BONUS * (2 - rank as i64);
            }
        }
        self.order(color, out);
    }

    /// Sorts moves best first for `color`: the computer wants the line
    /// score up, its opponent down (a stable sort: ties keep their order).
    fn order(&self, color: Color, moves: &mut [(i64, Pos)]) {
        if color == self.me {
            moves.sort_by_key(|&(d, _)| std::cmp::Reverse(d));
        } else {
            moves.sort_by_key(|&(d, _)| d);
        }
    }

    /// The score of a win (positive) or loss for `winner` at `depth`.
    fn terminal(&self, winner: Color, depth: u32) -> i64 {
        let s = self.win * (DISCOUNT - depth as i64);
        if winner == self.me {
            s
        } else {
            -s
        }
    }

    /// Sets `aborted` if the search must stop; looks only every
    /// [`POLL_NODES`] nodes unless `now`.
    fn poll(&mut self, now: bool) {
        if !now && self.nodes % POLL_NODES != 0 {
            return;
        }
        let stopped = self.stop.as_ref().is_some_and(StopFlag::is_set)
            || self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.node_limit.is_some_and(|n| self.nodes >= n)
            || self.budget.is_some_and(|n| self.nodes >= n);
        if stopped {
            self.aborted = true;
        }
    }

    /// The score of the position after `color` plays `p`, `depth` plies
    /// from the root (the article's `#minimax` for the child).
    fn after(&mut self, p: Pos, color: Color, depth: u32, alpha: i64, beta: i64) -> i64 {
        self.nodes += 1;
        self.poll(false);
        if self.aborted {
            return 0;
        }
        let (delta, line) = self.delta_and_line(p, color, &self.values);
        let index = self.board.index(p);
        if line && self.board.would_win(index, color, &self.rules).is_some() {
            return self.terminal(color, depth);
        }
        if self.board.stone_count() + 1 == self.area {
            return 0; // a draw
        }
        if depth >= self.max_depth {
            // The article's #evalNonTerminalBoard, kept incrementally.
            return (self.eval + delta) * DISCOUNT;
        }
        self.place(p, color);
        let v = self.node(depth, color.opponent(), alpha, beta);
        self.remove(p, color);
        v
    }

    /// The minimax score of the current position, `color` to move,
    /// `depth` plies from the root, within `(alpha, beta)`.
    fn node(&mut self, depth: u32, color: Color, mut alpha: i64, mut beta: i64) -> i64 {
        let leaves = depth + 1 >= self.max_depth;
        let maximise = color == self.me;
        let can_win = self.lines[color.index()] > 0;
        if leaves && !can_win {
            // No child can win, so every child scores within `max_delta` of
            // the current leaf score (or 0 for a draw): if that range is
            // outside the window, its end is a valid fail-soft bound.
            let lo = ((self.eval - self.max_delta) * DISCOUNT).min(0);
            let hi = ((self.eval + self.max_delta) * DISCOUNT).max(0);
            if maximise && hi <= alpha {
                return hi;
            }
            if !maximise && lo >= beta {
                return lo;
            }
        }
        // An immediate win is the best score either side can get here
        // (later wins are discounted more, leaf scores are smaller).
        let win = self.terminal(color, depth + 1);
        let mut best = if maximise { i64::MIN } else { i64::MAX };
        // Returns true when the node is done (a cut-off or a win).
        let mut step = |tree: &mut Tree, p: Pos, best: &mut i64| -> bool {
            let v = tree.after(p, color, depth + 1, alpha, beta);
            if tree.aborted {
                return true;
            }
            if maximise {
                *best = (*best).max(v);
                alpha = alpha.max(v);
            } else {
                *best = (*best).min(v);
                beta = beta.min(v);
            }
            if alpha >= beta || v == win {
                let k = &mut tree.killers[depth as usize];
                if k[0] != Some(p) {
                    k[1] = k[0];
                    k[0] = Some(p);
                }
                return true;
            }
            false
        };
        let killers = self.killers[depth as usize];
        let mut tried = [None; 2];
        let ordered = depth + ORDERED_ABOVE < self.max_depth;
        if !ordered {
            // Just above the leaves, try the killers before building the
            // move list: a cut-off often needs no more.
            for (slot, killer) in killers.into_iter().enumerate() {
                let Some(p) = killer else { continue };
                if !self.is_candidate(p, color) {
                    continue;
                }
                tried[slot] = Some(p);
                if step(self, p, &mut best) {
                    return best;
                }
            }
        }
        if leaves && self.restrict && self.board.stone_count() > 0 {
            // The leaves change nothing, so the candidate set can be walked
            // as it is, without a list.
            let fouls = color == Color::Black && self.rules.rule.has_fouls();
            let w = self.width as u32;
            let mut any = tried.iter().any(Option::is_some);
            let mut j = 0;
            while j < self.set.len() {
                let i = self.set[j];
                j += 1;
                let p = Pos::new((i % w) as u8, (i / w) as u8);
                if tried.contains(&Some(p)) || (fouls && self.is_foul(p)) {
                    continue;
                }
                any = true;
                if step(self, p, &mut best) {
                    break;
                }
            }
            if !any {
                // No playable point (black boxed in by fouls).
                best = self.eval * DISCOUNT;
            }
            return best;
        }
        let mut moves = std::mem::take(&mut self.buffers[depth as usize]);
        // Just above the leaves the rest is not ordered: ordering would cost
        // as much as scoring.
        self.candidates(color, depth, ordered, &mut moves);
        if can_win && !leaves {
            for &(_, p) in &moves {
                let (_, line) = self.delta_and_line(p, color, &self.values);
                let index = self.board.index(p);
                if line && self.board.would_win(index, color, &self.rules).is_some() {
                    self.nodes += 1;
                    self.buffers[depth as usize] = moves;
                    return win;
                }
            }
        }
        if moves.is_empty() {
            // No playable point (black boxed in by fouls): score the position.
            best = self.eval * DISCOUNT;
        }
        for &(_, p) in &moves {
            if tried.contains(&Some(p)) {
                continue;
            }
            if step(self, p, &mut best) {
                break;
            }
        }
        self.buffers[depth as usize] = moves;
        best
    }

    /// Whether `p` is among the moves [`Tree::candidates`] would give.
    fn is_candidate(&mut self, p: Pos, color: Color) -> bool {
        if !self.is_empty(p.x as i32, p.y as i32) {
            return false;
        }
        if self.restrict {
            let near = self.near[p.y as usize * self.width as usize + p.x as usize] > 0;
            let centre = self.board.stone_count() == 0 && p == self.rules.size.center();
            if !near && !centre {
                return false;
            }
        }
        !(color == Color::Black && self.rules.rule.has_fouls() && self.is_foul(p))
    }

    /// The root moves: the legal moves, near the stones on big boards.
    fn root_moves(&self, legal: &[Pos]) -> Vec<(i64, Pos)> {
        let mut moves: Vec<(i64, Pos)> = if !self.restrict {
            legal.iter().map(|&p| (0, p)).collect()
        } else if self.board.stone_count() == 0 {
            let c = self.rules.size.center();
            legal.iter().filter(|&&p| p == c).map(|&p| (0, p)).collect()
        } else {
            legal
                .iter()
                .filter(|p| self.near[p.y as usize * self.width as usize + p.x as usize] > 0)
                .map(|&p| (0, p))
                .collect()
        };
        if moves.is_empty() {
            moves = legal.iter().map(|&p| (0, p)).collect();
        }
        for m in &mut moves {
            m.0 = self.delta(m.1, self.me, &self.order_values);
        }
        self.order(self.me, &mut moves);
        moves
    }

    /// The article's `AIMove` without the final draw: every root move of
    /// the best score.
    fn search_root(&mut self, legal: &[Pos]) -> RootResult {
        let mut moves = self.root_moves(legal);
        let mut fallback = None;
        if self.restrict && self.max_depth > 2 && moves.len() > 1 {
            // Order the root moves by a 2-ply search first (iterative
            // deepening): the best move found early prunes the rest.
            let depth = self.max_depth;
            self.max_depth = 2;
            let (result, values) = self.root_pass(&moves);
            self.max_depth = depth;
            if self.aborted {
                return result;
            }
            for (m, v) in moves.iter_mut().zip(values) {
                m.0 = v;
            }
            moves.sort_by_key(|&(v, _)| std::cmp::Reverse(v));
            fallback = Some(result);
            self.budget = Some(self.nodes + NODE_BUDGET);
        }
        let (result, _) = self.root_pass(&moves);
        match fallback {
            Some(shallow) if self.aborted => shallow,
            _ => result,
        }
    }

    /// One search of the root moves: the best ones, and each move's score
    /// (exact for the best, an upper bound for the others).
    fn root_pass(&mut self, moves: &[(i64, Pos)]) -> (RootResult, Vec<i64>) {
        let mut values = Vec::with_capacity(moves.len());
        let mut best: Vec<Pos> = Vec::new();
        let mut value = i64::MIN;
        for &(_, p) in moves {
            // Window (value - 1, +inf): a move that ties the best so far gets
            // its exact score, a worse one only a bound below `value`.
            let alpha = if best.is_empty() { i64::MIN } else { value - 1 };
            self.poll(true);
            if self.aborted {
                break;
            }
            let v = self.after(p, self.me, 1, alpha, i64::MAX);
            if self.aborted {
                break;
            }
            values.push(v);
            if v > value || best.is_empty() {
                value = v;
                best.clear();
            }
            if v == value {
                best.push(p);
            }
        }
        if best.is_empty() {
            // Stopped before the first move was searched.
            best.push(moves[0].1);
            value = 0;
        }
        best.sort_unstable_by_key(|p| (p.y, p.x));
        values.resize(moves.len(), i64::MIN);
        let depth = self.max_depth;
        (RootResult { depth, best, value }, values)
    }

    /// A search score as a [`Score`]: a win or loss in so many plies, or
    /// the leaf score in the article's units.
    fn score_of(&self, v: i64) -> Score {
        if v.abs() >= self.win * (DISCOUNT - MAX_DEPTHS[4] as i64) {
            let plies = (DISCOUNT - v.abs() / self.win) as u32;
            if v > 0 {
                Score::WinIn(plies)
            } else {
                Score::LossIn(plies)
            }
        } else {
            Score::Eval((v / DISCOUNT) as i32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{decide, position};

    /// Plays games of minimax at `strength` against the random player.
    fn plays_legally(rules: Rules, strength: u32, games: u64, max_moves: usize) {
        crate::testing::plays_legally(
            |seed| Box::new(MinimaxPlayer::new(strength, seed)),
            rules,
            games,
            max_moves,
        );
    }
    use crate::player::Limits;
    use crate::random::RandomPlayer;
    use caro_core::{BoardSize, Outcome, Rule};
    use std::collections::HashMap;

    fn best_set(strength: u32, game: &Game) -> (Vec<Pos>, i64) {
        let player = MinimaxPlayer::new(strength, 0);
        let mut tree = Tree::new(
            game,
            player.depth_for(game.rules()),
            THRESHOLDS[strength as usize],
        );
        let root = tree.search_root(&game.legal_moves());
        (root.best, root.value)
    }

    /// Every root move's exact score (full window), row by row.
    fn root_scores(strength: u32, game: &Game) -> Vec<(Pos, i64)> {
        let player = MinimaxPlayer::new(strength, 0);
        let mut tree = Tree::new(
            game,
            player.depth_for(game.rules()),
            THRESHOLDS[strength as usize],
        );
        let me = game.to_move();
        game.legal_moves()
            .into_iter()
            .map(|p| (p, tree.after(p, me, 1, i64::MIN, i64::MAX)))
            .collect()
    }

    #[test]
    fn the_articles_worked_example() {
        // O: top-left, top-right, bottom-centre; X: middle-left, centre,
        // bottom-left; O to move. The article: top-centre wins at once (95),
        // middle-right wins in three (85), bottom-right loses (-90).
        let game = position(&["O.O", "XX.", "XO."], 3, Rule::Freestyle, Color::White);
        for strength in 2..=4 {
            let scores = root_scores(strength, &game);
            assert_eq!(
                scores,
                [
                    (Pos::new(1, 0), 95 * DISCOUNT),
                    (Pos::new(2, 1), 85 * DISCOUNT),
                    (Pos::new(2, 2), -90 * DISCOUNT),
                ]
            );
        }
        for strength in 1..=4 {
            for seed in 0..5 {
                let p = decide(&mut MinimaxPlayer::new(strength, seed), &game);
                assert_eq!(p, Pos::new(1, 0));
            }
        }
    }

    #[test]
    fn leaf_scores_follow_the_articles_table() {
        // X (the computer, to move) in the centre would score: 4 lines with
        // one X (+3 each at strengths 3, 4); O's corner line(s) -3 ...
        let game = position(&["O..", "...", "..."], 3, Rule::Freestyle, Color::Black);
        let tree = Tree::new(&game, 2, THRESHOLDS[4]);
        // O in a corner: 3 lines with one O: -9.
        assert_eq!(tree.eval, -9);
        let tree = Tree::new(&game, 2, THRESHOLDS[2]);
        assert_eq!(tree.eval, 0); // single marks ignored at strength 2
        let game = position(&["OX.", ".X.", "..."], 3, Rule::Freestyle, Color::White);
        let tree = Tree::new(&game, 2, THRESHOLDS[4]);
        // For O: top row and main diagonal mixed (-1 each), middle row one
        // X (-3), left column one O (+3), middle column two X (-6),
        // anti-diagonal one X (-3).
        assert_eq!(tree.eval, -1 - 1 - 3 + 3 - 6 - 3);
        assert_eq!(tree.win, 100);
    }

    // ---- tic-tac-toe: a literal port of the article, and an exact solver.

    const LINES: [[usize; 3]; 8] = [
        [0, 1, 2],
        [0, 4, 8],
        [0, 3, 6],
        [1, 4, 7],
        [2, 4, 6],
        [2, 5, 8],
        [3, 4, 5],
        [6, 7, 8],
    ];

    fn won(b: &[u8; 9], m: u8) -> bool {
        LINES.iter().any(|l| l.iter().all(|&i| b[i] == m))
    }

    /// The article's `AiPlayer` in floating point, with the evaluation
    /// sign fixed: the set of best moves (cells 0..9).
    fn article_best(b: &mut [u8; 9], mark: u8, strength: usize) -> Vec<usize> {
        let max_depth = [0, 2, 4, 6, 10][strength];
        let threshold = [101, 100, 6, 3, 0][strength];
        let opp = |m: u8| 3 - m;
        fn eval_board(b: &[u8; 9], me: u8) -> f64 {
            if won(b, me) {
                100.0
            } else if won(b, 3 - me) {
                -100.0
            } else {
                0.0
            }
        }
        fn non_terminal(b: &[u8; 9], me: u8, threshold: i32) -> f64 {
            let mut score = 0;
            for l in LINES {
                let own = l.iter().filter(|&&i| b[i] == me).count();
                let other = l.iter().filter(|&&i| b[i] == 3 - me).count();
                score += match (own, other) {
                    (0, 1) if threshold <= 3 => -3,
                    (0, 2) if threshold <= 6 => -6,
                    (1, 0) if threshold <= 3 => 3,
                    (2, 0) if threshold <= 6 => 6,
                    (1, 1) | (1, 2) | (2, 1) if threshold <= 1 => -1,
                    _ => 0,
                };
            }
            score as f64
        }
        fn minimax(
            b: &mut [u8; 9],
            mark: u8,
            me: u8,
            is_max: bool,
            depth: u32,
            max_depth: u32,
            th: i32,
        ) -> f64 {
            let score = eval_board(b, me) * (1.0 - 0.05 * depth as f64);
            if score != 0.0 || b.iter().all(|&c| c != 0) {
                return score;
            }
            if depth >= max_depth {
                return non_terminal(b, me, th);
            }
            let mut best: f64 = if is_max { -101.0 } else { 101.0 };
            for i in 0..9 {
                if b[i] == 0 {
                    b[i] = mark;
                    let s = minimax(b, 3 - mark, me, !is_max, depth + 1, max_depth, th);
                    best = if is_max { best.max(s) } else { best.min(s) };
                    b[i] = 0;
                }
            }
            best
        }
        let mut scores = [-1000.0; 9];
        let mut best = -101.0f64;
        for i in 0..9 {
            if b[i] == 0 {
                b[i] = mark;
                scores[i] = minimax(b, opp(mark), mark, false, 1, max_depth, threshold);
                b[i] = 0;
                best = best.max(scores[i]);
            }
        }
        (0..9).filter(|&i| scores[i] == best).collect()
    }

    /// Exact value for the side to move (`mark`): 1 win, 0 draw, -1 loss.
    fn solve(b: &mut [u8; 9], mark: u8, memo: &mut HashMap<[u8; 9], i8>) -> i8 {
        if let Some(&v) = memo.get(b) {
            return v;
        }
        let mut best = if b.iter().all(|&c| c != 0) { 0 } else { -1 };
        for i in 0..9 {
            if b[i] == 0 {
                b[i] = mark;
                let v = if won(b, mark) {
                    1
                } else {
                    -solve(b, 3 - mark, memo)
                };
                b[i] = 0;
                best = best.max(v);
            }
        }
        memo.insert(*b, best);
        best
    }

    /// Every reachable non-final 3×3 position, black (1) first.
    fn reachable(b: &mut [u8; 9], mark: u8, out: &mut HashMap<[u8; 9], u8>) {
        if out.contains_key(b) {
            return;
        }
        out.insert(*b, mark);
        for i in 0..9 {
            if b[i] == 0 {
                b[i] = mark;
                if !won(b, mark) && b.contains(&0) {
                    reachable(b, 3 - mark, out);
                }
                b[i] = 0;
            }
        }
    }

    fn game_of(b: &[u8; 9], mark: u8) -> Game {
        let rows: Vec<String> = (0..3)
            .map(|y| {
                (0..3)
                    .map(|x| match b[y * 3 + x] {
                        1 => 'X',
                        2 => 'O',
                        _ => '.',
                    })
                    .collect()
            })
            .collect();
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        let color = if mark == 1 {
            Color::Black
        } else {
            Color::White
        };
        position(&rows, 3, Rule::Freestyle, color)
    }

    #[test]
    fn strength_4_never_loses_at_tic_tac_toe() {
        let mut positions = HashMap::new();
        reachable(&mut [0; 9], 1, &mut positions);
        let mut memo = HashMap::new();
        for (b, &mark) in &positions {
            let mut board = *b;
            let value = solve(&mut board, mark, &mut memo);
            let game = game_of(b, mark);
            let (best, _) = best_set(4, &game);
            for p in best {
                let i = p.y as usize * 3 + p.x as usize;
                board[i] = mark;
                let after = if won(&board, mark) {
                    1
                } else {
                    -solve(&mut board, 3 - mark, &mut memo)
                };
                board[i] = 0;
                // Never from a non-lost position into a lost one; in fact
                // the exact value is kept (perfect play).
                assert!(value < 0 || after >= 0, "{b:?} {p:?}");
                assert_eq!(after, value, "{b:?} {p:?}");
            }
        }
        assert_eq!(positions.len(), 4520);
    }

    #[test]
    fn same_choices_as_the_article_on_every_tic_tac_toe_position() {
        let mut positions = HashMap::new();
        reachable(&mut [0; 9], 1, &mut positions);
        for (b, &mark) in &positions {
            let game = game_of(b, mark);
            for strength in 1..=4 {
                let mut board = *b;
                let expected = article_best(&mut board, mark, strength);
                let (best, _) = best_set(strength as u32, &game);
                let got: Vec<usize> = best
                    .iter()
                    .map(|p| p.y as usize * 3 + p.x as usize)
                    .collect();
                assert_eq!(got, expected, "{b:?} strength {strength}");
            }
        }
    }

    #[test]
    fn strength_0_is_random() {
        let rules = Rules::new(BoardSize::square(3), 3, Rule::Freestyle).unwrap();
        let game = Game::new(rules, Color::Black).unwrap();
        let mut seen = std::collections::HashSet::new();
        let mut player = MinimaxPlayer::new(0, 3);
        for _ in 0..200 {
            seen.insert(decide(&mut player, &game));
        }
        assert_eq!(seen.len(), 9);
    }

    #[test]
    fn names_and_depths() {
        let big = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let small = Rules::new(BoardSize::square(3), 3, Rule::Freestyle).unwrap();
        for s in 0..=4 {
            let p = MinimaxPlayer::new(s, 0);
            assert_eq!(p.name(), format!("minimax:{s}"));
            assert_eq!(p.depth_for(&small), MAX_DEPTHS[s as usize]);
            assert_eq!(
                p.depth_for(&big),
                MAX_DEPTHS[s as usize].min(BIG_BOARD_MAX_DEPTH)
            );
        }
        assert_eq!(MinimaxPlayer::new(9, 0).name(), "minimax:4");
    }

    #[test]
    fn takes_and_blocks_a_win() {
        let mut rows = vec!["........."; 9];
        rows[1] = "..XXXX...";
        rows[5] = "..OOOO...";
        let game = position(&rows, 5, Rule::Freestyle, Color::White);
        for s in 1..=4 {
            let p = decide(&mut MinimaxPlayer::new(s, 1), &game);
            assert!(p == Pos::new(1, 5) || p == Pos::new(6, 5), "{p:?}");
        }
        rows[1] = ".OXXXX...";
        rows[5] = "..OO.....";
        let game = position(&rows, 5, Rule::Freestyle, Color::White);
        for s in 1..=4 {
            assert_eq!(decide(&mut MinimaxPlayer::new(s, 1), &game), Pos::new(6, 1));
        }
        rows[1] = "..XX.XX..";
        let game = position(&rows, 5, Rule::Freestyle, Color::White);
        for s in 1..=4 {
            assert_eq!(decide(&mut MinimaxPlayer::new(s, 1), &game), Pos::new(4, 1));
        }
    }

    #[test]
    fn blocks_a_split_four_on_15x15() {
        let mut rows = vec!["..............."; 15];
        rows[3] = "...XX.XX.......";
        rows[7] = ".....OO........";
        let game = position(&rows, 5, Rule::Freestyle, Color::White);
        assert_eq!(decide(&mut MinimaxPlayer::new(4, 1), &game), Pos::new(5, 3));
    }

    #[test]
    fn renju_black_skips_a_double_three() {
        // The crossing point h8 makes two open threes: forbidden for black,
        // though it is the point black's line score likes best.
        let mut rows = vec!["..............."; 15];
        rows[5] = "........X......";
        rows[6] = "........X......";
        rows[7] = "......XX.......";
        rows[9] = "......O.O......";
        rows[10] = ".......O.......";
        let game = position(&rows, 5, Rule::Renju, Color::Black);
        assert!(game.check(Pos::new(8, 7)).is_err());
        for s in 1..=4 {
            let p = decide(&mut MinimaxPlayer::new(s, 2), &game);
            game.check(p).unwrap();
        }
    }

    #[test]
    fn empty_big_board_opens_in_the_centre() {
        let rules = Rules::new(BoardSize::new(20, 30).unwrap(), 5, Rule::Caro).unwrap();
        let game = Game::new(rules, Color::Black).unwrap();
        assert_eq!(
            decide(&mut MinimaxPlayer::new(4, 0), &game),
            Pos::new(9, 14)
        );
    }

    #[test]
    fn legal_on_tic_tac_toe() {
        let rules = Rules::new(BoardSize::square(3), 3, Rule::Freestyle).unwrap();
        for s in 0..=4 {
            plays_legally(rules, s, 6, 9);
        }
    }

    #[test]
    fn legal_under_renju() {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
        plays_legally(rules, 0, 2, 225);
        plays_legally(rules, 1, 2, 30);
        plays_legally(rules, 4, 1, 8);
    }

    #[test]
    fn renju_black_never_plays_a_forbidden_point() {
        // Minimax (black) against quintuple (white), which builds lines
        // black's search would like to answer on forbidden points.
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
        for seed in 0..2 {
            let mut game = Game::new(rules, Color::Black).unwrap();
            let mut black = MinimaxPlayer::new(1, seed);
            let mut white = crate::quintuple::QuintuplePlayer::new(seed);
            while !game.is_over() && game.moves().len() < 120 {
                let p = if game.to_move() == Color::Black {
                    decide(&mut black, &game)
                } else {
                    decide(&mut white, &game)
                };
                game.try_play(p).unwrap();
            }
        }
    }

    #[test]
    fn legal_on_caro_20x30() {
        let rules = Rules::new(BoardSize::new(20, 30).unwrap(), 5, Rule::Caro).unwrap();
        plays_legally(rules, 1, 2, 40);
        plays_legally(rules, 4, 1, 8);
    }

    #[test]
    fn legal_on_60x60_freestyle() {
        let rules = Rules::new(BoardSize::square(60), 5, Rule::Freestyle).unwrap();
        plays_legally(rules, 0, 1, 100);
        plays_legally(rules, 1, 1, 30);
        plays_legally(rules, 4, 1, 8);
    }

    #[test]
    fn legal_for_other_k() {
        let rules = Rules::new(BoardSize::new(3, 10).unwrap(), 7, Rule::Freestyle).unwrap();
        plays_legally(rules, 4, 2, 30);
        let rules = Rules::new(BoardSize::square(4), 3, Rule::Standard).unwrap();
        plays_legally(rules, 4, 4, 16);
    }

    /// Plain minimax as the module docs describe it for boards over 3×3:
    /// no pruning, no ordering, every window scored from scratch at every
    /// leaf. The best moves (row by row) and their score.
    struct Plain {
        me: Color,
        max_depth: u32,
        threshold: i64,
        k: usize,
        windows: Vec<Vec<Pos>>,
        win: i64,
        /// Leaf scores by board hash (leaves are reached in many orders).
        seen: std::cell::RefCell<HashMap<u64, i64>>,
    }

    impl Plain {
        fn new(game: &Game, strength: u32) -> Plain {
            let rules = *game.rules();
            let (w, h, k) = (
                rules.size.width as i32,
                rules.size.height as i32,
                rules.k as i32,
            );
            let mut windows = Vec::new();
            for (dx, dy) in DIRS {
                for y in 0..h {
                    for x in 0..w {
                        let cells: Vec<Pos> = (0..k)
                            .map(|t| (x + t * dx, y + t * dy))
                            .take_while(|&(px, py)| (0..w).contains(&px) && (0..h).contains(&py))
                            .map(|(px, py)| Pos::new(px as u8, py as u8))
                            .collect();
                        if cells.len() == k as usize {
                            windows.push(cells);
                        }
                    }
                }
            }
            let bound = 6 * windows.len() as i64;
            Plain {
                me: game.to_move(),
                max_depth: MinimaxPlayer::new(strength, 0).depth_for(&rules),
                threshold: THRESHOLDS[strength as usize],
                k: k as usize,
                windows,
                win: 100 * (2 * bound / 100 + 1),
                seen: Default::default(),
            }
        }

        fn eval(&self, game: &Game) -> i64 {
            let hash = game.board().hash();
            if let Some(&v) = self.seen.borrow().get(&hash) {
                return v;
            }
            let mut total = 0;
            for cells in &self.windows {
                let own = cells
                    .iter()
                    .filter(|&&p| game.board().get(p) == Some(self.me))
                    .count();
                let opp = cells
                    .iter()
                    .filter(|&&p| game.board().get(p) == Some(self.me.opponent()))
                    .count();
                let to_go = |c: usize| self.k - c.min(self.k - 1);
                let line = |c: usize| -> i64 {
                    match to_go(c) {
                        1 => 6,
                        2 => 3,
                        _ => 0,
                    }
                };
                let v = match (own, opp) {
                    (0, 0) => 0,
                    (c, 0) => line(c),
                    (0, c) => -line(c),
                    _ => -1,
                };
                if v.abs() >= self.threshold {
                    total += v;
                }
            }
            self.seen.borrow_mut().insert(hash, total);
            total
        }

        fn near(game: &Game, p: Pos) -> bool {
            game.board().stones().any(|(q, _)| {
                (q.x as i32 - p.x as i32).abs() <= 2 && (q.y as i32 - p.y as i32).abs() <= 2
            })
        }

        fn moves(game: &Game) -> Vec<Pos> {
            let size = game.size();
            let mut board = game.board().clone();
            let empty: Vec<Pos> = game.board().empty_points().collect();
            let mut moves: Vec<Pos> = if size.area() <= 9 {
                empty
            } else if game.board().stone_count() == 0 {
                vec![size.center()]
            } else {
                empty.into_iter().filter(|&p| Self::near(game, p)).collect()
            };
            moves.retain(|&p| {
                board
                    .foul_at(p, game.to_move(), game.rules().rule)
                    .is_none()
            });
            moves
        }

        fn value(&self, game: &mut Game, depth: u32) -> i64 {
            match game.outcome() {
                Some(Outcome::Five { winner, .. }) => {
                    let s = self.win * (20 - depth as i64);
                    return if *winner == self.me { s } else { -s };
                }
                Some(_) => return 0,
                None => {}
            }
            if depth >= self.max_depth {
                return self.eval(game) * 20;
            }
            let moves = Self::moves(game);
            if moves.is_empty() {
                return self.eval(game) * 20;
            }
            let maximise = game.to_move() == self.me;
            let values = moves.into_iter().map(|p| {
                game.play_unchecked(p);
                let v = self.value(game, depth + 1);
                game.undo_unchecked();
                v
            });
            if maximise {
                values.max().unwrap()
            } else {
                values.min().unwrap()
            }
        }

        fn best(&self, game: &Game) -> (Vec<Pos>, i64) {
            let legal = game.legal_moves();
            let mut roots: Vec<Pos> = if game.board().stone_count() == 0 {
                legal
                    .iter()
                    .copied()
                    .filter(|&p| p == game.size().center())
                    .collect()
            } else {
                legal
                    .iter()
                    .copied()
                    .filter(|&p| Self::near(game, p))
                    .collect()
            };
            if roots.is_empty() {
                roots = legal;
            }
            let mut g = game.clone();
            let scored: Vec<(Pos, i64)> = roots
                .into_iter()
                .map(|p| {
                    g.play_unchecked(p);
                    let v = self.value(&mut g, 1);
                    g.undo_unchecked();
                    (p, v)
                })
                .collect();
            let best = scored.iter().map(|&(_, v)| v).max().unwrap();
            let mut set: Vec<Pos> = scored
                .into_iter()
                .filter(|&(_, v)| v == best)
                .map(|(p, _)| p)
                .collect();
            set.sort_unstable_by_key(|p| (p.y, p.x));
            (set, best)
        }
    }

    /// A position after `n` random moves inside the `span`×`span` square
    /// at the board's centre.
    fn random_position(rules: Rules, n: usize, span: u8, seed: u64) -> Game {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut game = Game::new(rules, Color::Black).unwrap();
        let c = rules.size.center();
        let lo = |v: u8| v.saturating_sub(span / 2);
        while game.moves().len() < n && !game.is_over() {
            let moves: Vec<Pos> = game
                .legal_moves()
                .into_iter()
                .filter(|p| {
                    p.x >= lo(c.x) && p.x < lo(c.x) + span && p.y >= lo(c.y) && p.y < lo(c.y) + span
                })
                .collect();
            if moves.is_empty() {
                break;
            }
            game.play(moves[rng.random_range(0..moves.len())]);
        }
        game
    }

    #[test]
    fn pruned_search_matches_plain_minimax_on_bigger_boards() {
        let mut cases = Vec::new();
        for (i, rule) in [
            Rule::Freestyle,
            Rule::Standard,
            Rule::Caro,
            Rule::CaroStandard,
        ]
        .into_iter()
        .enumerate()
        {
            let rules = Rules::new(BoardSize::square(5), 4, rule).unwrap();
            for seed in 0..2 {
                cases.push((
                    random_position(rules, 11 + seed as usize, 5, seed + 10 * i as u64),
                    1..=4,
                ));
            }
            let rules = Rules::new(BoardSize::new(9, 7).unwrap(), 4, rule).unwrap();
            cases.push((random_position(rules, 5, 4, 40 + i as u64), 1..=1));
        }
        let renju = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
        for seed in 0..2 {
            cases.push((
                random_position(renju, 12 + seed as usize, 5, 70 + seed),
                1..=1,
            ));
        }
        let mut compared = 0;
        for (game, strengths) in cases {
            if game.is_over() {
                continue;
            }
            for s in strengths {
                let plain = Plain::new(&game, s).best(&game);
                assert_eq!(best_set(s, &game), plain, "strength {s}\n{}", game.board());
                compared += 1;
            }
        }
        assert!(compared >= 30, "{compared}");
    }

    #[test]
    fn stops_when_asked() {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let mut game = Game::new(rules, Color::Black).unwrap();
        for m in [(7, 7), (8, 8), (6, 8), (8, 6)] {
            game.play(Pos::new(m.0, m.1));
        }
        let stop = StopFlag::new();
        stop.stop();
        let mut sink = |_: &SearchInfo| {};
        let mut ctx = Context::new(Limits::default(), stop, &mut sink);
        let d = MinimaxPlayer::new(4, 0).choose(&game, &mut ctx).unwrap();
        game.check(d.best).unwrap();
    }

    #[test]
    fn a_node_limit_still_gives_a_legal_move() {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
        let game = random_position(rules, 20, 9, 5);
        for nodes in [1, 500, 5_000] {
            let limits = Limits {
                nodes: Some(nodes),
                ..Limits::default()
            };
            let mut sink = |_: &SearchInfo| {};
            let mut ctx = Context::new(limits, StopFlag::new(), &mut sink);
            let d = MinimaxPlayer::new(4, 0).choose(&game, &mut ctx).unwrap();
            game.check(d.best).unwrap();
            assert!(d.info.unwrap().nodes <= nodes + POLL_NODES);
        }
    }

    #[test]
    fn reports_progress() {
        let game = position(&["O.O", "XX.", "XO."], 3, Rule::Freestyle, Color::White);
        let mut reports = Vec::new();
        let mut sink = |i: &SearchInfo| reports.push(i.clone());
        let mut ctx = Context::new(Limits::default(), StopFlag::new(), &mut sink);
        let d = MinimaxPlayer::new(4, 0).choose(&game, &mut ctx).unwrap();
        let info = d.info.unwrap();
        assert_eq!(info.score, Score::WinIn(1));
        assert_eq!(info.depth, 10);
        assert_eq!(reports, [info]);
    }

    #[test]
    fn deterministic_for_a_seed() {
        let rules = Rules::new(BoardSize::square(3), 3, Rule::Freestyle).unwrap();
        let play = |seed: u64| {
            let mut games = Vec::new();
            for g in 0..8 {
                let mut game = Game::new(rules, Color::Black).unwrap();
                let mut a = MinimaxPlayer::new(2, seed + g);
                let mut b = MinimaxPlayer::new(4, seed + g + 50);
                while !game.is_over() {
                    let p = if game.moves().len() % 2 == 0 {
                        decide(&mut a, &game)
                    } else {
                        decide(&mut b, &game)
                    };
                    game.play(p);
                }
                games.push(game.moves().to_vec());
            }
            games
        };
        assert_eq!(play(1), play(1));
        assert_ne!(play(1), play(2));
        // And on a big board, where the search prunes and orders.
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
        let big = |seed: u64| {
            let mut game = random_position(rules, 6, 5, seed);
            let mut me = MinimaxPlayer::new(3, seed);
            let mut other = RandomPlayer::new(seed);
            for n in 0..6 {
                let p = if n % 2 == 0 {
                    decide(&mut me, &game)
                } else {
                    decide(&mut other, &game)
                };
                game.play(p);
            }
            game.moves().to_vec()
        };
        assert_eq!(big(3), big(3));
    }
}
