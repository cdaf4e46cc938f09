//! Every tunable of caro's search, in one place: each constant says what
//! it does and the range where it makes sense. The structural constants
//! (scores, ply and depth caps, the public defaults) stay in [`super`].
//!
//! After moving a constant, re-run what it feeds: `caro bench` for the
//! alpha-beta and the root (its signature moves with almost any of them),
//! the threat solvers' records for the proof-number search
//! (docs/benchmarks.md, "Threat solvers"), matches for the time shares,
//! and the level ladder (docs/benchmarks.md, "Level ladder") for the
//! level tables.
//!
//! The search reads the values of [`super::tuning`]'s tunables from its
//! [`super::Tuning`], whose defaults are the constants here: `caro tune`
//! moves them by SPSA at run time; a tuning found is kept by writing it
//! here once its SPRT passes.

use super::dfpn::UNLIMITED;
use super::MAX_DEPTH;

// ---------------------------------------------------------------------
// Alpha-beta (`ab.rs`)
// ---------------------------------------------------------------------

/// Late-move reductions start at this depth left (nodes shallower are
/// searched to their full depth). Range: 2..=6.
pub(crate) const LMR_MIN_DEPTH: i32 = 3;

/// Late-move reductions apply to the moves after this many (the first few
/// are the hash move, the killers and the best-looking points). Range:
/// 1..=8.
pub(crate) const LMR_MIN_INDEX: usize = 3;

/// Plies a late move is reduced by (searched again to the full depth
/// where it beats alpha). Range: 1..=2.
pub(crate) const LMR_REDUCTION: i32 = 1;

/// Reverse futility pruning: at a node off the principal variation with
/// at most this much depth left, where the opponent threatens nothing
/// (no four, no open three), a static evaluation that beats beta by
/// [`RFP_MARGIN`] a ply of depth is taken as the node's score. Range:
/// 0..=6 (0: off).
pub(crate) const RFP_MAX_DEPTH: i32 = 3;

/// The margin of reverse futility pruning, per ply of depth left, in
/// evaluation units. Range: 30..=600.
pub(crate) const RFP_MARGIN: i32 = 100;

/// Futility pruning: at a node off the principal variation with at most
/// this much depth left, where the opponent threatens nothing, a static
/// evaluation [`FUTILITY_MARGIN`] a ply of depth below alpha skips the
/// moves after the first that make no four or open three. Range: 0..=4
/// (0: off).
pub(crate) const FUTILITY_MAX_DEPTH: i32 = 2;

/// The margin of futility pruning, per ply of depth left, in evaluation
/// units. Range: 50..=800.
pub(crate) const FUTILITY_MARGIN: i32 = 200;

/// Move-count pruning: at a node off the principal variation with at
/// most this much depth left, not answering a five or an open three, the
/// moves after [`LMP_MOVES`] that make no four or open three are skipped.
/// Range: 0..=4 (0: off).
pub(crate) const LMP_MAX_DEPTH: i32 = 3;

/// Moves searched in full before move-count pruning starts, by depth
/// left (index 0 unused). Range: each 3..=24, growing with depth.
pub(crate) const LMP_MOVES: [usize; 4] = [0, 6, 9, 13];

/// Most candidate moves searched at a quiet node, by depth left (the
/// last entry for every depth beyond): the threat-aware ordering puts the
/// moves that matter first, and forced nodes are never cut. Range: each
/// 6..=60, not decreasing with depth.
pub(crate) const WIDTH_BY_DEPTH: [usize; 4] = [12, 16, 20, 24];

/// Attacker moves a VCF at a leaf may take: short, since it runs at every
/// quiet leaf. Range: 1..=10.
pub(crate) const VCF_LEAF_DEPTH: u32 = 6;

// ---------------------------------------------------------------------
// Move ordering (`movepick.rs`)
// ---------------------------------------------------------------------

/// Moves of a node picked best-first one at a time before the rest are
/// sorted: most nodes are cut off after one or two moves. Any value gives
/// the same order (so the same node counts), only the speed changes.
/// Range: 0..=8.
pub(crate) const PICKED_ONE_BY_ONE: usize = 3;

/// Ordering bonus of the hash move: above any pattern, killer or history
/// score, so it comes first. Range: `(1 << 22)..=(1 << 29)`, above
/// [`ORDER_KILLER`].
pub(crate) const ORDER_TT: i32 = 1 << 28;

/// Ordering bonus of the killer moves: above any policy score
/// (at most about 100,000), below the hash move; a move's history score is
/// capped just under it. Range: `(1 << 17)..=(1 << 24)`, below
/// [`ORDER_TT`].
pub(crate) const ORDER_KILLER: i32 = 1 << 20;

// ---------------------------------------------------------------------
// The root's searches and their budgets (`root.rs`, `timecontrol.rs`)
// ---------------------------------------------------------------------

/// The root's first move is searched within this much of the last
/// iteration's score (and again with a full window when it falls
/// outside): narrow enough to cut more, wide enough that a re-search is
/// rare. In evaluation units. Range: 20..=400.
pub(crate) const ASPIRATION_WINDOW: i32 = 80;

/// Depth from which the root's first move is searched within the
/// aspiration window (below, with a full window). Range: 2..=8.
pub(crate) const ASPIRATION_MIN_DEPTH: i32 = 4;

/// Attacker moves a VCF at the root may take: no real limit, since the
/// node budget bounds it. Range: 20..=300.
pub(crate) const VCF_ROOT_DEPTH: u32 = 150;

/// Most nodes of the root VCF (less where a share of the move's node
/// limit is smaller). Range: 10_000..=4_000_000.
pub(crate) const VCF_ROOT_NODES: u64 = 400_000;

/// Most nodes of the root VCT. Range: 10_000..=1_000_000.
pub(crate) const VCT_ROOT_NODES: u64 = 100_000;

/// Fewest nodes of the root VCT where the move's time is short. Range:
/// 100..=10_000, at most [`VCT_ROOT_NODES`].
pub(crate) const VCT_ROOT_MIN_NODES: u64 = 1_000;

/// Nodes of the root VCT per millisecond of the move's time (between
/// [`VCT_ROOT_MIN_NODES`] and [`VCT_ROOT_NODES`]): at a short time a
/// larger budget costs the main search more than it finds. Range:
/// 5..=200.
pub(crate) const VCT_NODES_PER_MS: u64 = 30;

/// The root VCT's proof table may take the hash table's memory divided by
/// this (the [`VCT_ROOT_NODES`] at most it searches need about 6 MB).
/// Range: 2..=16.
pub(crate) const ROOT_VCT_TABLE_DIVISOR: usize = 4;

/// Node budget per root move of the check that the opponent cannot then
/// win by fours: small, since every root move is checked. Range:
/// 100..=10_000.
pub(crate) const ROOT_REFUTE_NODES: u64 = 600;

/// Nodes of the opponent's VCT looked for after each root move at full
/// strength, per millisecond of the move's time (or per
/// [`NODE_LIMIT_PER_MS`] nodes of its node limit), up to
/// [`REFUTE_VCT_MAX_NODES`]. Range: 1..=50.
pub(crate) const REFUTE_VCT_NODES_PER_MS: u64 = 5;

/// Most nodes of the opponent's VCT looked for after each root move.
/// Range: 5_000..=500_000.
pub(crate) const REFUTE_VCT_MAX_NODES: u64 = 50_000;

/// Memory of the proof table of each root move's VCT refutation, in
/// bytes. Range: `(1 << 16)..=(1 << 24)`.
pub(crate) const REFUTE_VCT_TABLE_BYTES: usize = 1 << 20;

// ---------------------------------------------------------------------
// Time control (`timecontrol.rs`)
// ---------------------------------------------------------------------

/// Part of the move's time (and of its node limit) by which the root's
/// own VCF search ends. The root's threat searches share the budget in
/// cumulative windows, each ending after the one before it. Range:
/// 0.005..=0.3.
pub(crate) const ROOT_VCF_SHARE: f64 = 0.02;

/// Part of the move's time (and of its node limit) by which the root's
/// VCT search ends; the check of an only move against the opponent's VCF
/// ends by this part of the time too. Range: [`ROOT_VCF_SHARE`]..=0.5.
pub(crate) const ROOT_VCT_SHARE: f64 = 0.04;

/// Part of the move's time (and of its node limit) by which the check of
/// the root moves against the opponent's forced wins ends; the main
/// search has the rest. Range: [`ROOT_VCT_SHARE`]..=0.8.
pub(crate) const ROOT_REFUTE_SHARE: f64 = 0.08;

/// With a clock, a move's optimum time is the time left (less
/// [`CLOCK_MARGIN_MS`]) divided by this, plus [`INCREMENT_SHARE`] of the
/// increment: the moves still to play, guessed without looking at the
/// board, since five-in-a-row games end at any length. Range: 10..=40.
pub(crate) const CLOCK_MOVES_LEFT: u32 = 16;

/// The share of the increment a move's optimum time adds. Range:
/// 0.5..=1.0.
pub(crate) const INCREMENT_SHARE: f64 = 0.8;

/// Milliseconds kept back from the clock for the answer's way out (at
/// most a quarter of the time left). Range: 10..=200.
pub(crate) const CLOCK_MARGIN_MS: u64 = 30;

/// A move's maximum time, as a multiple of its optimum. Range: 1.5..=6.
pub(crate) const MAX_TIME_RATIO: f64 = 3.0;

/// A move's maximum time, as a share of the time left (less the margin).
/// Range: 0.1..=0.5.
pub(crate) const MAX_TIME_SHARE: f64 = 0.25;

/// With a clock, the iterative deepening starts no new iteration once
/// this share of the optimum time (times the stability factors below)
/// has gone: the next iteration would take longer than the last. Range:
/// 0.3..=1.0.
pub(crate) const SOFT_STOP_SHARE: f64 = 0.6;

/// How much longer a move may think for each change of the best move in
/// the last iterations (the changes decay by half an iteration). Range:
/// 0.0..=2.0.
pub(crate) const BEST_MOVE_CHANGE_WEIGHT: f64 = 0.8;

/// How much longer a move may think for a score that fell since the last
/// iteration, per evaluation unit of the fall, up to
/// [`SCORE_DROP_MAX`]. Range: 0.0..=0.01.
pub(crate) const SCORE_DROP_WEIGHT: f64 = 0.004;

/// The most a falling score stretches a move's time (as a share).
/// Range: 0.0..=1.5.
pub(crate) const SCORE_DROP_MAX: f64 = 0.6;

/// With a clock and one root move (a forced block), the share of the
/// optimum time after which no new iteration starts: the move is known,
/// only its report deepens. Range: 0.0..=0.3.
pub(crate) const SINGLE_MOVE_SHARE: f64 = 0.05;

/// A node limit counts as a millisecond of time per this many nodes,
/// where a budget follows the clock (the root check's VCT). Range:
/// 100..=10_000.
pub(crate) const NODE_LIMIT_PER_MS: u64 = 1_000;

/// A weak level (one with noise, which chooses among complete iterations)
/// starts another iteration only where this many times the time and the
/// nodes of the last one still fit in its budget. Range: 1..=4.
pub(crate) const NEXT_ITERATION_FACTOR: u32 = 2;

/// Nodes between checks of the clock and the stop flag: rare enough to
/// cost nothing, often enough to stop within about a millisecond. Range:
/// 64..=4_096 (a power of two).
pub(crate) const CHECK_EVERY: u64 = 256;

// ---------------------------------------------------------------------
// VCF search (`vcf.rs`)
// ---------------------------------------------------------------------

/// Most positions remembered as having no VCF, per search (the
/// stand-alone solvers keep this many; a game's search fewer where its
/// hash table is small, see [`BYTES_PER_VCF_FAIL`]). Range:
/// `(1 << 16)..=(1 << 24)`.
pub(crate) const VCF_FAIL_CACHE: usize = 1 << 20;

/// Fewest positions without a VCF a game's search remembers, however
/// small its hash table. Range: 1_024..=[`VCF_FAIL_CACHE`].
pub(crate) const VCF_FAIL_CACHE_MIN: usize = 4_096;

/// In a game at most one position without a VCF is remembered for this
/// many bytes of the hash table, so that a small setting bounds the cache
/// too: it takes about as much memory as the table at the most (an entry
/// 16 to 32 bytes). Range: 16..=128.
pub(crate) const BYTES_PER_VCF_FAIL: usize = 32;

// ---------------------------------------------------------------------
// Level model (`level.rs`)
// ---------------------------------------------------------------------
//
// The levels are set so that each scores over 60% against the one below
// at both 100 ms and 1 s a move on the balanced openings
// (docs/benchmarks.md, "Level ladder"); re-run that ladder after changing
// any of these tables. Each level searches deeper, thinks at least as
// long and wanders no more than the one below (a unit test keeps that).

/// Deepest iteration of each level, 1 to 10. Range: each
/// 1..=[`MAX_DEPTH`], growing with the level.
pub(crate) const LEVEL_DEPTHS: [u32; 10] = [1, 2, 3, 4, 5, 6, 7, 8, 10, MAX_DEPTH];

/// Evaluation units a level may give away at the root, by level: the
/// weak levels play near their best move, not their best, so that a step
/// up is worth about the same all along the ladder. Levels 8 to 10 have
/// none: any noise makes a level choose among complete iterations only,
/// which wastes the time of a deep, stopped iteration. Range: each
/// 0..=2_000, not growing with the level.
pub(crate) const LEVEL_NOISE: [i32; 10] = [1500, 900, 400, 260, 100, 50, 15, 0, 0, 0];

/// Most nodes a move, by level (level 10 has none of its own): a little
/// more than each level takes at 100 ms a move, so that a level plays
/// much the same at 100 ms and at 1 s (bounded by the clock alone, the
/// levels grow with it and the top steps close up). Range: each
/// 100..=1_000_000, growing with the level.
pub(crate) const LEVEL_NODES: [u64; 9] = [150, 180, 200, 500, 900, 1_500, 5_500, 12_000, 50_000];

/// Share of the move's time each level uses: each level up to 7 has twice
/// the time of the one below (level 1 a 2048th of the move's), level 8 a
/// 24th, level 9 a seventh and level 10 all of it: the deep levels gain
/// less from doubled time than the shallow ones, so their shares are
/// further apart. The low levels are held by their depth and node
/// budgets as well. Range: each in (0, 1], growing with the level, 1 at
/// level 10.
pub(crate) const LEVEL_TIME_SHARES: [f64; 10] = [
    1.0 / 2048.0,
    1.0 / 1024.0,
    1.0 / 512.0,
    1.0 / 256.0,
    1.0 / 128.0,
    1.0 / 64.0,
    1.0 / 32.0,
    1.0 / 24.0,
    1.0 / 7.0,
    1.0,
];

/// Lowest level that looks for forced wins (VCF, VCT) at the root and
/// drops the root moves that lose to a VCF. Range: 1..=10.
pub(crate) const ROOT_THREATS_MIN_LEVEL: u32 = 4;

/// Lowest level that also drops the root moves after which the opponent
/// wins by threats (VCT). Its budget follows the clock, so the levels
/// below it play the same at any time control. Range: 1..=10.
pub(crate) const REFUTE_VCT_MIN_LEVEL: u32 = 10;

// ---------------------------------------------------------------------
// Proof-number threat search (`dfpn.rs`, `dfpn/refine.rs`)
// ---------------------------------------------------------------------

/// Fours a VCF inside the VCT search may take: enough for the wins a
/// threat sequence ends in, short enough to run at every attacker's
/// node. Range: 4..=20.
pub(crate) const VCT_VCF_DEPTH: u32 = 12;

/// Fours a threat may take: the defender must answer a move after which
/// the attacker, moving again, would win by at most this many fours (an
/// open three is a threat of one). Range: 1..=4.
pub(crate) const THREAT_DEPTH: u32 = 3;

/// Fours of the defender's VCF threats the search looks for at the
/// attacker's nodes, to narrow the attacker's moves to those that spoil
/// one. Only a shortcut: a move that leaves a longer one standing loses in
/// the tree. Deeper costs more than it saves. Range:
/// 0..=[`THREAT_DEPTH`].
pub(crate) const DEFENDER_VCF_DEPTH: u32 = 2;

/// An attacker's node does not search for a VCF again when one this many
/// fours shorter than the full depth has failed there. Range: 0..=3.
pub(crate) const VCF_RECHECK_MARGIN: u32 = 1;

/// Nodes an attacker's node may spend on its VCF search. Most searches
/// take a few dozen; the few that take thousands almost always fail, and
/// a VCF missed here is still found by the tree, where fours are moves
/// (a proof never rests on a search that gave up). At budget 0 it can
/// cost a budgeted search its proof, never the search without a budget.
/// The cap is set by the sum of nodes over the long shared VCT records
/// (one record's count swings with small changes; the sum is a guide).
/// Range: 64..=8_192.
pub(crate) const ATTACKER_VCF_NODES: u64 = 512;

/// The searches at the root, each allowing the attacker at most this many
/// moves that are not fours on any line (threes and quiet threats) before
/// it must win by fours: most wins by threats need only a few, and a
/// small budget prunes the tree hard. Range: growing budgets of 0..=5,
/// the last always `UNLIMITED` (no limit).
pub(crate) const THREE_LIMITS: [u32; 4] = [1, 2, 3, UNLIMITED];

/// A search with a budget of threes takes at most this part of the nodes
/// left (one after another in a game's move). Range: 2..=64.
pub(crate) const BUDGETED_SHARE: u64 = 16;

/// Nodes each search takes in the first round of the solver's rounds.
/// Range: 1_000..=256_000.
pub(crate) const FIRST_ROUND_NODES: u64 = 16_000;

/// How many times as many nodes each round of the solver's rounds takes
/// as the one before. Range: 2..=8.
pub(crate) const ROUND_GROWTH: u64 = 4;

/// What one attacker's move adds to the proof number of its node
/// (df-pn+), so that a line of fours that only delays looks harder than a
/// short threat. Range: 0..=8.
pub(crate) const EDGE_COST: u64 = 2;

/// Proof number an attacker's move that makes a four (or better) starts
/// with. Range: 1..=2.
pub(crate) const FOUR_PN: u8 = 1;

/// Proof number an attacker's move that makes an open three (or two)
/// starts with. Range: [`FOUR_PN`]..=8.
pub(crate) const THREE_PN: u8 = 2;

/// Proof number an attacker's quiet threat starts with. Range:
/// [`THREE_PN`]..=32.
pub(crate) const QUIET_PN: u8 = 8;

/// The 1 + ε of the thresholds: the search stays with a child until its
/// numbers grow past its best sibling's plus that sibling's divided by
/// this (a quarter). Range: 2..=16.
pub(crate) const SIBLING_MARGIN_DIVISOR: u64 = 4;

/// Nodes the full search may take at a node inside a transfer of the
/// search by refinement where the guess fails: small, since a failed
/// guess most often needs the search of a node further up, and larger
/// budgets only spend more before it. Range: 25..=1_000.
pub(crate) const TRANSFER_NODES: u64 = 100;

// ---------------------------------------------------------------------
// Winning lines (`dfpn/line.rs`)
// ---------------------------------------------------------------------

/// The first node budget of a winning line's searches (all its steps
/// together) where the searcher has no node limit; it is renewed at
/// twice the size, at most [`LINE_BUDGET_EXTENSIONS`] times in all.
/// Range: 100_000..=10_000_000.
pub(crate) const LINE_NODES: u64 = 1_000_000;

/// Times in all, per line, that a winning line's step cut short by the
/// node budget is tried again, with twice the budget each time. Range:
/// 0..=8.
pub(crate) const LINE_BUDGET_EXTENSIONS: u32 = 4;

/// Fours of the VCF that continues a winning line where the proof table
/// has no move (the solver's own VCFs take at most [`VCT_VCF_DEPTH`]).
/// Range: 20..=300.
pub(crate) const VCF_LINE_DEPTH: u32 = 150;

/// Most nodes the walk of a proof for its length may search (a node a
/// position walked, and its threat searches): far more than real proofs
/// take, so only a runaway walk is cut short. Range:
/// 100_000..=20_000_000.
pub(crate) const PROOF_WALK_NODES: u64 = 2_000_000;
