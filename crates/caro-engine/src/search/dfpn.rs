//! Depth-first proof-number search (df-pn) over threat space: a VCT
//! solver (victory by continuous threats).
//!
//! A threat is a move after which the attacker, were it to move again,
//! would win by a VCF of at most [`THREAT_DEPTH`] fours: an open three is
//! a threat of one four, a four a threat of none, and a quiet move that
//! prepares a short VCF (a "fukumi" move) is a threat too.
//!
//! The attacker is the side to move at the root. At its nodes (OR nodes)
//! a five wins, the defender's four must be stopped, a VCF wins, and
//! otherwise every move that may build a threat is tried — only those
//! that spoil the defender's own VCF threat if it has one (a move that
//! leaves it standing loses to it). At the defender's nodes (AND nodes)
//! the attacker's four must be stopped; otherwise the attacker must hold a
//! threat (else the node is disproved), and the defender's moves are every
//! point that may spoil the VCF the threat was found with: its fours,
//! blocks and five points, the points that would make a block a four,
//! around a forbidden block the points that may lift the foul (under
//! renju's recursive rule, further: see below), under caro
//! the points that may cap a five, and the defender's own fours. A defence
//! elsewhere leaves that VCF standing. A VCF of the defender's is found by
//! the tree itself: its fours are among the replies, the attacker must
//! block each, and a five of the defender's disproves the node.
//!
//! The root is searched first with a budget of threes: at most one, two,
//! then three of the attacker's moves may be threats that are not fours
//! (a block of the defender's four costs nothing), and a node whose
//! budget is spent wins by VCF or not at all. Most wins by threats need
//! few threes, and the budget prunes the tree hard. A move in a game runs
//! them one after another, each budgeted search with at most a sixteenth
//! of the nodes left and the search without a budget with the rest; the
//! solver runs them in rounds of growing size, so that none starves
//! another whatever the node limit ([`Schedule`]). A proof found with a
//! budget holds with a larger one, a disproof with a smaller one, and
//! both are reused.
//!
//! A node proven by a five, a VCF or an unstoppable four, or disproven
//! for want of any threat, is stored as solved for every budget of
//! threes, not only its own.
//!
//! Each attacker's move adds [`EDGE_COST`] to its node's proof number
//! (Nagai's df-pn+ idea), so a line of fours that only delays looks
//! harder than a short threat, where without it every four-and-block
//! chain would look one step from a proof.
//!
//! The defences of a threat are those of its shortest VCF, found by
//! deepening one four at a time (`Searcher::vcf_threat_defences`): a
//! longer VCF found first brings a longer trace and more replies to
//! search. A threat check first searches once at full depth without a
//! trace and deepens only when that finds a VCF (most checks fail). There
//! is no separate search for the defender's VCF at its nodes (the tree
//! finds it), and the defender's threats that narrow the attacker's moves
//! are looked for only [`DEFENDER_VCF_DEPTH`] fours deep.
//!
//! The attacker's move that last proved a node at a ply starts with a
//! proof number of 1 in the next node expanded at that ply (a "proof
//! killer", after Kawano's simulation: sibling defences often lose to the
//! same move).
//!
//! Proof and disproof numbers (Allis) are kept in a table keyed by the
//! position's hash and budget, bounded in memory ([`ProofTable`]); the
//! search descends into the most proving child with Nagai's thresholds and
//! the 1 + ε trick of Pawlewicz and Lew, so a child is left only when its
//! numbers grow a quarter past its sibling's. An attacker's move starts
//! with a proof number by the threat it makes (fours 1, threes 2, quiet
//! moves 8). Stones are only ever added, so the graph has no cycles. An
//! interrupted search stores nothing for the node it was in, so a position
//! is proven only by a complete threat tree (a disproof may come from the
//! ply cap or a stop, which never turns into a proof).
//!
//! Renju's recursive rule reaches past a VCF's lines: a three is true
//! only if a point that makes it a straight four is not itself forbidden,
//! so a stone far from every line of the VCF may turn a foul on or off
//! by turning such a point's foul off or on. Two cases matter to the
//! defender:
//!
//! - Black attacks: a white stone may make one of black's fours a foul.
//!   That four must hold two open threes, one of them false because its
//!   straight-four points are forbidden, one of those by a double-four or
//!   double-three that a stone can lift (an overline cannot be lifted).
//!   Where a VCF rests on such a four, every empty point is a defence.
//! - White attacks and black's block is a double-three: a black stone may
//!   make one of the threes false by making its straight-four point
//!   forbidden — one on that point's lines where it has a three or a four
//!   already, or, where it has two threes (one false in turn), a stone
//!   anywhere: then every empty point.
//!
//! Both are rare, cost little, and are kept by unit tests with positions
//! where the far stone is the only way out.
//!
//! The stand-alone solver races this df-pn against a search by refinement
//! ([`refine`]), which runs it twice over: once with the defender's far
//! fours left out, to guess, and once in full, where the guesses say
//! nothing or fail (within a small budget first, below a far four whose
//! guesses come from the position without it).
//!
//! The main line of a proven win, and the most plies the win takes by
//! the walk of its proof, are read in [`line`](mod@line).

use std::rc::Rc;

use caro_core::Color;
use smallvec::SmallVec;

use super::params::{
    ATTACKER_VCF_NODES, BUDGETED_SHARE, DEFENDER_VCF_DEPTH, EDGE_COST, FIRST_ROUND_NODES, FOUR_PN,
    QUIET_PN, ROUND_GROWTH, SIBLING_MARGIN_DIVISOR, THREAT_DEPTH, THREE_LIMITS, THREE_PN,
    VCF_RECHECK_MARGIN, VCT_VCF_DEPTH,
};
use super::{Abort, Searcher};
use crate::keymap::KeyMap;
use crate::pattern::Pattern;
use crate::state::{PointPatterns, Threat};

mod line;
mod refine;

/// A proof or disproof number. Wide, so that sums over a graph whose
/// transpositions count many times over never reach [`INF`] by growth.
type Number = u64;
/// "Infinite" proof or disproof number.
const INF: Number = 1 << 48;
/// Moves past the root after which a line is given up (disproved).
const MAX_DFPN_PLY: usize = 160;
/// A budget of threes that is never used up.
pub(super) const UNLIMITED: u32 = u32::MAX;
/// Children of a node kept on the stack while it is searched (most have
/// fewer: an attacker's node about 26 on the long records, a defender's
/// about 4).
const CHILDREN_INLINE: usize = 32;
/// No move recorded.
const NO_MOVE: u32 = u32::MAX;

/// How the searches with a budget of threes share the nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Schedule {
    /// One after another, each budgeted search taking at most a
    /// [`BUDGETED_SHARE`]th part of the nodes left and the search without
    /// a budget the rest: the quickest for the small node limits of a
    /// move in a game (tuned by matches there), but a win that only a
    /// budgeted search finds cheaply needs a large limit.
    Shares,
    /// In rounds: every search not yet proven or disproven goes on until
    /// it has taken [`FIRST_ROUND_NODES`] in all, then four times as many
    /// in the next round, and so on (the last one open takes all the
    /// nodes left). No search starves another whatever the limit, at the
    /// price of the work of the searches that do not find the win (at
    /// most about the winning search's own, times the number of budgets
    /// still open).
    Rounds,
}

/// Which threat solver a search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Solver {
    /// The df-pn of this module.
    Full,
    /// The search by refinement of [`refine`]: a relaxed df-pn guesses, a
    /// checker proves.
    Refined,
}

/// What a threat search found at its root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum VctFound {
    /// A proven win by threats, starting with this move.
    Win(usize),
    /// The search without a budget of threes was disproven: every threat
    /// the attacker has was searched and each is refuted (within the
    /// [`MAX_DFPN_PLY`] cap on a line's length).
    NoWin,
    /// Neither proven nor disproven when a limit stopped the search.
    Unknown,
}

impl VctFound {
    /// The first move of the win, if one was proven.
    pub(super) fn win(self) -> Option<usize> {
        match self {
            VctFound::Win(m) => Some(m),
            VctFound::NoWin | VctFound::Unknown => None,
        }
    }
}

/// Proof and disproof numbers of one position, and (once proven at an
/// attacker's node) the move that wins.
#[derive(Clone, Copy)]
struct Numbers {
    pn: Number,
    dn: Number,
    best: u32,
    /// Nodes searched below the position so far (saturating): what it
    /// would cost to find these numbers again.
    work: u32,
}

/// The numbers of a position the attacker cannot win.
const DISPROVEN: Numbers = Numbers {
    pn: INF,
    dn: 0,
    best: NO_MOVE,
    work: 0,
};

const UNKNOWN: Numbers = Numbers {
    pn: 1,
    dn: 1,
    best: NO_MOVE,
    work: 0,
};

/// What a node holds before its children are searched.
enum Expansion {
    /// The attacker has won (with this move, at the attacker's nodes),
    /// whatever its budget of threes: by a five, a VCF, or a four the
    /// defender cannot stop.
    Proven(u32),
    /// The attacker cannot win from here by threats, whatever its budget.
    Disproven,
    /// The attacker cannot win from here with the node's budget of threes
    /// (or within the ply cap); a larger budget may.
    OutOfBudget,
    /// Moves to search.
    Moves(Vec<Child>),
}

/// One move of a node.
#[derive(Clone, Copy)]
struct Child {
    /// The point played (an index: a 60×60 board has 3,600 points).
    at: u32,
    /// The number the child starts with before it is searched: the proof
    /// number of an attacker's move (how hard its threat looks to follow
    /// up: 1 to 8), the disproof number of a defence.
    initial: u8,
    /// Whether the move uses up one of the attacker's threes: a threat
    /// that is not a four (a forced block uses none).
    three: bool,
}

impl Child {
    /// A move that starts with the numbers of an unknown node and uses no
    /// three: a defence, or the attacker's block of a four.
    fn plain(at: usize) -> Child {
        Child {
            at: at as u32,
            initial: 1,
            three: false,
        }
    }
}

/// What is known for good of one position, whatever the budget of threes
/// it is searched with.
#[derive(Clone, Copy)]
struct Solved {
    /// The smallest budget it was proven with (a proof holds with more),
    /// and the winning move then.
    proven: Option<(u32, u32)>,
    /// The largest budget it was disproven with (a disproof holds with
    /// less).
    disproven: Option<u32>,
    /// Nodes the proof or disproof took (the largest, saturating).
    work: u32,
}

impl Solved {
    /// Neither proven nor disproven yet.
    const NONE: Solved = Solved {
        proven: None,
        disproven: None,
        work: 0,
    };
}

/// A node's moves, once expanded.
struct Expanded {
    moves: Rc<[Child]>,
    /// Nodes the expansion took (its threat searches).
    work: u32,
}

/// The proof-number table of one df-pn search.
///
/// Its memory is bounded: once its maps take more than the table's limit,
/// it forgets the half of its open nodes' numbers and of its move lists
/// that took the fewest nodes to find (Nagai's SmallTreeGC; each entry
/// counts the nodes searched below it), and of its proofs and disproofs
/// too once they take a quarter of the limit. A forgotten position is
/// searched again if the search comes back to it; nothing it proves rests
/// on what was forgotten, so the limit costs nodes, never correctness.
pub(super) struct ProofTable {
    attacker: Color,
    /// Whether the defender's replies leave out its own fours off the
    /// threat's points: the relaxed search of [`refine`], whose proofs
    /// are guesses (its disproofs hold).
    relaxed: bool,
    /// Numbers of nodes still open, by [`budget_key`].
    numbers: KeyMap<Numbers>,
    /// Proofs and disproofs, by the position's hash alone.
    solved: KeyMap<Solved>,
    /// The moves of every node expanded so far (a node is visited many
    /// times; its threat searches run once), by [`budget_key`] with the
    /// budget 0 or 1: only an empty budget changes a node's moves.
    moves: KeyMap<Expanded>,
    /// Bytes the move lists of `moves` take on the heap.
    move_bytes: usize,
    /// Bytes the table may take before it forgets its cheapest entries.
    limit_bytes: usize,
    /// How many times it has done so.
    collections: u32,
    /// By ply, the attacker's move that last proved a node there.
    proof_killers: Vec<u32>,
}

impl ProofTable {
    /// An empty table for a search where `attacker` wins by threats,
    /// taking at most about `limit_bytes` of memory.
    pub(super) fn new(attacker: Color, limit_bytes: usize) -> ProofTable {
        ProofTable {
            attacker,
            relaxed: false,
            numbers: KeyMap::default(),
            solved: KeyMap::default(),
            moves: KeyMap::default(),
            move_bytes: 0,
            limit_bytes,
            collections: 0,
            proof_killers: Vec::new(),
        }
    }

    /// [`ProofTable::new`] for the relaxed search: the defender's fours
    /// off a threat's points are left out of its replies.
    fn new_relaxed(attacker: Color, limit_bytes: usize) -> ProofTable {
        ProofTable {
            relaxed: true,
            ..ProofTable::new(attacker, limit_bytes)
        }
    }

    /// Records that the attacker cannot win a position whatever its
    /// budget, in place of any proof the table had for it.
    fn refute(&mut self, hash: u64) {
        let solved = self.solved.entry(hash).or_insert(Solved::NONE);
        solved.proven = None;
        solved.disproven = Some(UNLIMITED);
        // Kept through the table's collections: a refutation forgotten
        // would be guessed and checked again.
        solved.work = u32::MAX;
    }

    /// Forgets a position's proof, so that it is searched again.
    fn unprove(&mut self, hash: u64) {
        if let Some(solved) = self.solved.get_mut(&hash) {
            solved.proven = None;
        }
    }

    /// Whether the search has met a position: expanded it, or solved it
    /// (as far as the table still holds).
    fn knows(&self, hash: u64) -> bool {
        self.solved.contains_key(&hash)
            || self.moves.contains_key(&budget_key(hash, 0))
            || self.moves.contains_key(&budget_key(hash, 1))
    }

    /// Whether a position is proven, with any budget.
    fn is_proven(&self, hash: u64) -> bool {
        self.solved.get(&hash).is_some_and(|s| s.proven.is_some())
    }

    /// Takes in the proofs of `other` (a table of the same attacker) for
    /// the positions this one has not solved.
    fn absorb_proofs(&mut self, other: &ProofTable) {
        for (&hash, solved) in other.solved.iter() {
            if solved.proven.is_some() {
                self.solved.entry(hash).or_insert(*solved);
            }
        }
    }

    /// The memory the table takes, about: its maps' slots (a key, a value
    /// and a control byte each) and the move lists.
    fn bytes(&self) -> usize {
        slots(&self.numbers) + slots(&self.solved) + slots(&self.moves) + self.move_bytes
    }

    /// Records the moves of a node whose expansion took `work` nodes, and
    /// forgets the cheapest half of the table if it has grown past its
    /// limit.
    fn insert_moves(&mut self, key: u64, moves: Rc<[Child]>, work: u64) {
        self.move_bytes += list_bytes(&moves);
        let work = saturate(work);
        if let Some(old) = self.moves.insert(key, Expanded { moves, work }) {
            self.move_bytes -= list_bytes(&old.moves);
        }
        if self.bytes() > self.limit_bytes {
            self.collect_garbage();
        }
    }

    /// Forgets the half of the open nodes' numbers and of the move lists
    /// that took the fewest nodes to find, and gives the memory back. The
    /// proofs and disproofs, small and the dearest to lose, are thinned
    /// the same way only once they take a quarter of the limit.
    fn collect_garbage(&mut self) {
        self.collections += 1;
        let numbers = median(self.numbers.values().map(|n| n.work));
        self.numbers.retain(|_, n| n.work > numbers);
        if slots(&self.solved) > self.limit_bytes / 4 {
            let solved = median(self.solved.values().map(|n| n.work));
            self.solved.retain(|_, n| n.work > solved);
        }
        let moves = median(self.moves.values().map(|n| n.work));
        self.moves.retain(|_, n| n.work > moves);
        self.numbers.shrink_to_fit();
        self.solved.shrink_to_fit();
        self.moves.shrink_to_fit();
        self.move_bytes = self.moves.values().map(|e| list_bytes(&e.moves)).sum();
    }

    /// The attacker's move that last proved a node at `ply`.
    fn proof_killer(&self, ply: usize) -> u32 {
        self.proof_killers.get(ply).copied().unwrap_or(NO_MOVE)
    }

    /// Remembers the attacker's move that proved a node at `ply`.
    fn set_proof_killer(&mut self, ply: usize, best: u32) {
        if best == NO_MOVE {
            return;
        }
        if self.proof_killers.len() <= ply {
            self.proof_killers.resize(ply + 1, NO_MOVE);
        }
        self.proof_killers[ply] = best;
    }

    /// The numbers of a position searched with `threes` threes left, if
    /// it has been searched.
    fn lookup(&self, hash: u64, threes: u32) -> Option<Numbers> {
        if let Some(solved) = self.solved.get(&hash) {
            if let Some((_, best)) = solved.proven.filter(|&(at, _)| at <= threes) {
                return Some(Numbers {
                    pn: 0,
                    dn: INF,
                    best,
                    work: solved.work,
                });
            }
            if solved.disproven.is_some_and(|at| at >= threes) {
                return Some(Numbers {
                    work: solved.work,
                    ..DISPROVEN
                });
            }
        }
        self.numbers.get(&budget_key(hash, threes)).copied()
    }

    /// The winning move of a position proven with any budget of threes
    /// (`None` where it is not proven, or was proven without a move of its
    /// own, at the defender's nodes).
    fn proven_move(&self, hash: u64) -> Option<u32> {
        let (_, best) = self.solved.get(&hash)?.proven?;
        (best != NO_MOVE).then_some(best)
    }

    /// The nodes the proof of a position took, if it is proven.
    fn proof_work(&self, hash: u64) -> Option<u32> {
        let solved = self.solved.get(&hash)?;
        solved.proven.map(|_| solved.work)
    }

    fn get(&self, hash: u64, threes: u32) -> Numbers {
        self.lookup(hash, threes).unwrap_or(UNKNOWN)
    }

    /// The numbers of a child of an OR node (`or_node`) or of an AND node,
    /// `initial` if it has not been searched yet.
    fn child(&self, hash: u64, threes: u32, or_node: bool, initial: Number) -> Numbers {
        self.lookup(hash, threes).unwrap_or(Numbers {
            pn: if or_node { initial } else { 1 },
            dn: if or_node { 1 } else { initial },
            best: NO_MOVE,
            work: 0,
        })
    }

    /// Records a position's numbers.
    fn store(&mut self, hash: u64, threes: u32, numbers: Numbers) {
        if numbers.pn == 0 || numbers.dn == 0 {
            self.numbers.remove(&budget_key(hash, threes));
            let solved = self.solved.entry(hash).or_insert(Solved::NONE);
            solved.work = solved.work.max(numbers.work);
            if numbers.pn == 0 {
                if solved.proven.is_none_or(|(at, _)| threes < at) {
                    solved.proven = Some((threes, numbers.best));
                }
            } else if solved.disproven.is_none_or(|at| threes > at) {
                solved.disproven = Some(threes);
            }
        } else {
            self.numbers.insert(budget_key(hash, threes), numbers);
        }
    }
}

impl Searcher<'_> {
    /// The first move of a victory by continuous threats for the side to
    /// move, if the df-pn search proves one within the searcher's limits,
    /// with the searches of each budget of threes run by `schedule` and a
    /// proof table of at most about `table_bytes`.
    pub(super) fn vct_dfpn(
        &mut self,
        ply: usize,
        schedule: Schedule,
        table_bytes: usize,
    ) -> VctFound {
        let mut table = ProofTable::new(self.state.to_move(), table_bytes);
        self.vct_dfpn_in(&mut table, ply, schedule)
    }

    /// [`Searcher::vct_dfpn`] at the root, or with `solver` the search by
    /// refinement, and for a win, if `line` is set, its main line
    /// ([`Searcher::winning_line`]) and the most plies it takes
    /// ([`Searcher::proof_plies`], or the line's own where they are more).
    /// In a race ([`Searcher::race`]) a solver that finishes tells the
    /// other how many nodes it took, and one that took more than the
    /// other leaves the line out.
    pub(super) fn vct_dfpn_line(
        &mut self,
        solver: Solver,
        schedule: Schedule,
        table_bytes: usize,
        line: bool,
    ) -> (VctFound, Vec<usize>, Option<usize>) {
        let attacker = self.state.to_move();
        let (found, table) = match solver {
            Solver::Full => {
                let mut table = ProofTable::new(attacker, table_bytes);
                (self.vct_dfpn_in(&mut table, 0, schedule), table)
            }
            Solver::Refined => {
                let mut tables = refine::Refinement::new(attacker, table_bytes);
                (self.vct_refined(&mut tables, 0), tables.into_proof())
            }
        };
        if let Some(race) = self.race.take() {
            if found != VctFound::Unknown {
                race.fetch_min(self.nodes, std::sync::atomic::Ordering::Relaxed);
            }
            if self.nodes > race.load(std::sync::atomic::Ordering::Relaxed) {
                return (found, Vec::new(), None);
            }
        }
        match found {
            VctFound::Win(first) if line => {
                let moves = self.winning_line(first, Some(&table), VCT_VCF_DEPTH - 1);
                // The line's VCF steps search afresh, and may find longer
                // ones than the walk (or be cut short): the bound takes
                // the line in.
                let line_plies = self.line_plies(&moves);
                let plies = self.proof_plies(first, &table).map(|p| p.max(line_plies));
                (found, moves, plies)
            }
            VctFound::Win(_) | VctFound::NoWin | VctFound::Unknown => (found, Vec::new(), None),
        }
    }

    /// [`Searcher::vct_dfpn`] with a given (empty) table.
    fn vct_dfpn_in(&mut self, table: &mut ProofTable, ply: usize, schedule: Schedule) -> VctFound {
        let outer_limit = self.node_limit;
        // Nodes each budget's search has taken, and whether it is still
        // open (neither proven nor disproven).
        let mut spent = [0; THREE_LIMITS.len()];
        let mut open = [true; THREE_LIMITS.len()];
        let mut round_nodes = FIRST_ROUND_NODES;
        loop {
            for (n, &threes) in THREE_LIMITS.iter().enumerate() {
                if !open[n] {
                    continue;
                }
                let own_limit = match schedule {
                    // A budgeted search may take only a share of the
                    // nodes left, so that the searches after it get their
                    // turn.
                    Schedule::Shares if threes != UNLIMITED => outer_limit
                        .map(|l| self.nodes + l.saturating_sub(self.nodes) / BUDGETED_SHARE),
                    Schedule::Shares => outer_limit,
                    // The last one open takes what is left.
                    Schedule::Rounds if open.iter().filter(|&&o| o).count() == 1 => outer_limit,
                    Schedule::Rounds => {
                        let mine = self.nodes + round_nodes.saturating_sub(spent[n]);
                        Some(outer_limit.map_or(mine, |l| l.min(mine)))
                    }
                };
                let start = self.nodes;
                self.node_limit = own_limit;
                let prior = table.get(self.state.hash(), threes).work;
                self.mid(table, INF - 1, INF - 1, ply, threes, prior);
                self.node_limit = outer_limit;
                spent[n] += self.nodes - start;
                let root = table.get(self.state.hash(), threes);
                if root.pn == 0 && root.best != NO_MOVE {
                    return VctFound::Win(root.best as usize);
                }
                open[n] = root.dn != 0;
                if threes == UNLIMITED && !open[n] {
                    // Disproven without a budget: no budget can prove it.
                    return VctFound::NoWin;
                }
                if self.abort != Abort::None {
                    // Its own share ran out: go on with the next search.
                    if !self.within_limits(outer_limit) {
                        return VctFound::Unknown;
                    }
                    self.abort = Abort::None;
                }
            }
            if schedule == Schedule::Shares || !open.contains(&true) {
                return VctFound::Unknown;
            }
            round_nodes = round_nodes.saturating_mul(ROUND_GROWTH);
        }
    }

    /// Whether the search may go on past a budget of its own that ran
    /// out: no stop, the deadline not passed, and fewer nodes than the
    /// `outer` limit.
    fn within_limits(&self, outer: Option<u64>) -> bool {
        !self.stop.is_set()
            && self.deadline.is_none_or(|d| std::time::Instant::now() < d)
            && outer.is_none_or(|l| self.nodes < l)
    }

    /// One df-pn visit: searches below the node until its proof number
    /// reaches `thpn` or its disproof number `thdn`, and stores its numbers
    /// (with the nodes of this visit added to the `prior` work below it).
    fn mid(
        &mut self,
        table: &mut ProofTable,
        thpn: Number,
        thdn: Number,
        ply: usize,
        threes: u32,
        prior: u32,
    ) {
        let start = self.nodes;
        let work = |nodes: u64| saturate(u64::from(prior) + (nodes - start));
        self.nodes += 1;
        if self.check_abort() {
            return;
        }
        self.seldepth = self.seldepth.max(ply);
        let hash = self.state.hash();
        let moves_key = budget_key(hash, threes.min(1));
        let or_node = self.state.to_move() == table.attacker;
        let moves = if let Some(expanded) = table.moves.get(&moves_key) {
            Rc::clone(&expanded.moves)
        } else {
            let expansion = if or_node {
                self.attacker_moves(ply, threes, table.proof_killer(ply))
            } else {
                self.defender_moves(ply, table.relaxed)
            };
            if self.abort != Abort::None {
                return;
            }
            match expansion {
                Expansion::Proven(best) => {
                    if or_node {
                        table.set_proof_killer(ply, best);
                    }
                    let proven = Numbers {
                        pn: 0,
                        dn: INF,
                        best,
                        work: work(self.nodes),
                    };
                    // Proven with no three: it holds for every budget.
                    table.store(hash, 0, proven);
                    return;
                }
                Expansion::Disproven => {
                    // Disproven with any budget: it holds for every one.
                    let disproven = Numbers {
                        work: work(self.nodes),
                        ..DISPROVEN
                    };
                    table.store(hash, UNLIMITED, disproven);
                    return;
                }
                Expansion::OutOfBudget => {
                    let disproven = Numbers {
                        work: work(self.nodes),
                        ..DISPROVEN
                    };
                    table.store(hash, threes, disproven);
                    return;
                }
                Expansion::Moves(moves) => {
                    let moves: Rc<[Child]> = moves.into();
                    table.insert_moves(moves_key, Rc::clone(&moves), self.nodes - start);
                    moves
                }
            }
        };
        // Each child's hash, budget and numbers: read once, and then again
        // only for the child just searched (a search below one child
        // changing another's through a transposition is left for the next
        // visit).
        let mut children: SmallVec<[(u64, u32, Numbers); CHILDREN_INLINE]> = moves
            .iter()
            .map(|c| {
                let child_hash = self.state.hash_after(c.at as usize);
                let child_threes = if c.three && threes != UNLIMITED {
                    threes.saturating_sub(1)
                } else {
                    threes
                };
                let numbers = table.child(child_hash, child_threes, or_node, c.initial.into());
                (child_hash, child_threes, numbers)
            })
            .collect();
        loop {
            // At an OR node the attacker picks the child with the smallest
            // proof number and needs every child disproved; an AND node the
            // other way round. "mine" is the number the node minimises.
            let (mut least, mut second, mut total, mut at) = (INF, INF, 0 as Number, 0);
            for (n, &(_, _, c)) in children.iter().enumerate() {
                let (mine, other) = if or_node {
                    (with_edge(c.pn), c.dn)
                } else {
                    (c.dn, c.pn)
                };
                if mine < least {
                    second = least;
                    least = mine;
                    at = n;
                } else if mine < second {
                    second = mine;
                }
                total = total.saturating_add(other).min(INF);
            }
            let (pn, dn) = if or_node {
                (least, total)
            } else {
                (total, least)
            };
            let best = if or_node && pn == 0 {
                moves[at].at
            } else {
                NO_MOVE
            };
            let spent = work(self.nodes);
            table.store(
                hash,
                threes,
                Numbers {
                    pn,
                    dn,
                    best,
                    work: spent,
                },
            );
            if or_node && pn == 0 {
                table.set_proof_killer(ply, best);
            }
            if pn >= thpn || dn >= thdn {
                return;
            }
            let (child_hash, child_threes, child) = children[at];
            // 1 + ε: stay with this child until it is a quarter worse than
            // the second best.
            let sibling_bound = second
                .saturating_add(second / SIBLING_MARGIN_DIVISOR)
                .saturating_add(1)
                .min(INF);
            let (child_thpn, child_thdn) = if or_node {
                (
                    thpn.min(sibling_bound) - (with_edge(child.pn) - child.pn),
                    thdn - dn + child.dn,
                )
            } else {
                (thpn - pn + child.pn, thdn.min(sibling_bound))
            };
            self.state.play_unscored(moves[at].at as usize);
            self.mid(
                table,
                child_thpn,
                child_thdn,
                ply + 1,
                child_threes,
                child.work,
            );
            self.state.undo();
            children[at].2 =
                table.child(child_hash, child_threes, or_node, moves[at].initial.into());
            if self.abort != Abort::None {
                return;
            }
        }
    }

    /// The side to move must stop the other side's `fives`: the stops, or
    /// what `none_left` says when there is none.
    fn stops_or(&mut self, fives: &[usize], none_left: fn(&mut Self) -> Expansion) -> Expansion {
        let stops = self.stops_of_fives(fives);
        if stops.is_empty() {
            none_left(self)
        } else {
            Expansion::Moves(stops.into_iter().map(Child::plain).collect())
        }
    }

    /// The defender to move with no legal answer to the attacker's five
    /// or threat: lost, unless it has no legal move anywhere (black under
    /// renju, every empty point forbidden), which is a draw.
    fn lost_unless_stuck(&mut self) -> Expansion {
        if self.state.has_legal_move() {
            Expansion::Proven(NO_MOVE)
        } else {
            Expansion::Disproven
        }
    }

    /// The attacker to move: a five wins; the defender's four must be
    /// stopped; a VCF wins. Otherwise every move that may build a threat
    /// (a three or better on one line, or twos on two) is tried, narrowed
    /// to those that spoil the defender's own VCF threat, if it has one.
    fn attacker_moves(&mut self, ply: usize, threes: u32, killer: u32) -> Expansion {
        let me = self.state.to_move();
        let fours = self.scan_fours();
        if let Some(&i) = fours.my_fives.first() {
            return Expansion::Proven(i as u32);
        }
        if ply >= MAX_DFPN_PLY {
            return Expansion::OutOfBudget;
        }
        if !fours.opp_fives.is_empty() {
            return self.stops_or(&fours.opp_fives, |_| Expansion::Disproven);
        }
        if let Some(m) = self.attacker_vcf(ply) {
            return Expansion::Proven(m as u32);
        }
        if threes == 0 {
            return Expansion::OutOfBudget;
        }
        let spoilers = self.vcf_threat_spoilers(DEFENDER_VCF_DEPTH, ply);
        let mut moves: Vec<(usize, i32)> = self
            .area_points()
            .into_iter()
            .filter(|&i| may_build_threat(self.state.patterns(i), me))
            .filter(|i| spoilers.as_ref().is_none_or(|s| s.binary_search(i).is_ok()))
            .map(|i| (i, self.order_score(i, ply, None)))
            .collect();
        moves.retain(|&(i, _)| self.state.is_legal(i));
        if moves.is_empty() {
            return Expansion::Disproven;
        }
        // Likeliest first: ties in the search go to the first.
        moves.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
        Expansion::Moves(
            moves
                .into_iter()
                .map(|(i, _)| {
                    let threat = self.state.threat(i, me);
                    Child {
                        at: i as u32,
                        initial: if i as u32 == killer {
                            1
                        } else {
                            threat_cost(threat)
                        },
                        three: !makes_four(threat),
                    }
                })
                .collect(),
        )
    }

    /// The attacker's VCF at one of its nodes. It is skipped where one at
    /// nearly full depth has failed already (this node is a four and its
    /// block away from a node whose search failed): a longer VCF is left
    /// to the tree, where the fours are moves. It gives up after
    /// [`ATTACKER_VCF_NODES`] nodes, leaving the rest to the tree too.
    fn attacker_vcf(&mut self, ply: usize) -> Option<usize> {
        let failed_at = self.vcf_fails.get(self.state.hash());
        if failed_at.is_some_and(|d| d + VCF_RECHECK_MARGIN >= VCT_VCF_DEPTH) {
            return None;
        }
        self.vcf_node_cap = Some(self.nodes + ATTACKER_VCF_NODES);
        let found = self.vcf(VCT_VCF_DEPTH, ply);
        self.vcf_node_cap = None;
        self.vcf_cut_short = false;
        found
    }

    /// The defender to move: a five of its own refutes; the attacker's
    /// four must be stopped; otherwise the attacker must threaten a VCF
    /// (win by fours were it to move again), and the defender's moves are
    /// those that may spoil the threat, its own fours among them. (No
    /// search for the defender's VCF here, before the replies: it would
    /// cost more than the tree spends finding it.) Where `relaxed`, the
    /// defender's own fours off the threat's points are left out: the
    /// replies of the relaxed search of [`refine`].
    fn defender_moves(&mut self, ply: usize, relaxed: bool) -> Expansion {
        let fours = self.scan_fours();
        if !fours.my_fives.is_empty() {
            return Expansion::Disproven;
        }
        if !fours.opp_fives.is_empty() {
            return self.stops_or(&fours.opp_fives, Self::lost_unless_stuck);
        }
        if ply >= MAX_DFPN_PLY {
            return Expansion::OutOfBudget;
        }
        let replies = if relaxed {
            self.vcf_threat_defences_relaxed(THREAT_DEPTH, ply)
        } else {
            self.vcf_threat_defences(THREAT_DEPTH, ply)
        };
        let Some(mut replies) = replies else {
            return Expansion::Disproven;
        };
        replies.retain(|&i| self.state.is_legal(i));
        if replies.is_empty() {
            return self.lost_unless_stuck();
        }
        replies.sort_by_cached_key(|&i| std::cmp::Reverse(self.order_score(i, ply, None)));
        Expansion::Moves(replies.into_iter().map(Child::plain).collect())
    }
}

/// An attacker's move seen from its node: the child's proof number plus
/// the move's own cost, so that a long chain of moves (fours that only
/// delay) looks harder than a short one.
fn with_edge(pn: Number) -> Number {
    if pn == 0 || pn >= INF {
        pn
    } else {
        (pn + EDGE_COST).min(INF - 1)
    }
}

/// Whether a threat is a four (or better): it does not use up one of the
/// line's threes.
fn makes_four(t: Threat) -> bool {
    matches!(
        t,
        Threat::Five | Threat::OpenFour | Threat::FourThree | Threat::Four
    )
}

/// The memory of a map's slots, about: a key, a value and a control byte
/// each.
fn slots<V>(map: &KeyMap<V>) -> usize {
    map.capacity() * (std::mem::size_of::<(u64, V)>() + 1)
}

/// A node count as a work field (saturating).
fn saturate(nodes: u64) -> u32 {
    u32::try_from(nodes).unwrap_or(u32::MAX)
}

/// Bytes a move list takes on the heap (the counts of its `Rc`, then the
/// moves).
fn list_bytes(moves: &[Child]) -> usize {
    2 * std::mem::size_of::<usize>() + std::mem::size_of_val(moves)
}

/// The middle value of `works` (0 when there is none).
fn median(works: impl Iterator<Item = u32>) -> u32 {
    let mut works: Vec<u32> = works.collect();
    if works.is_empty() {
        return 0;
    }
    let middle = works.len() / 2;
    *works.select_nth_unstable(middle).1
}

/// The table key of a position searched with `threes` threes left: the
/// same position with another budget is another node.
fn budget_key(hash: u64, threes: u32) -> u64 {
    hash ^ u64::from(threes).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Whether a stone of `me` here may take part in a threat: it makes a
/// three or better on some line, or twos on two lines.
fn may_build_threat(p: &PointPatterns, me: Color) -> bool {
    let mut twos = 0;
    for d in 0..4 {
        match p.get(me, d) {
            Pattern::Block3 | Pattern::Flex3 | Pattern::Block4 | Pattern::Flex4 | Pattern::Five => {
                return true
            }
            Pattern::Block2 | Pattern::Flex2 => twos += 1,
            Pattern::None | Pattern::Overline => {}
        }
    }
    twos >= 2
}

/// How hard an attacker's move looks to follow up, by the threat it makes:
/// the proof number its child starts with.
fn threat_cost(t: Threat) -> u8 {
    match t {
        Threat::Five | Threat::OpenFour | Threat::FourThree | Threat::Four => FOUR_PN,
        Threat::DoubleThree | Threat::OpenThree => THREE_PN,
        Threat::None => QUIET_PN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::with_searcher;
    use crate::tt::Tt;
    use caro_core::notation::parse_move_list;
    use caro_core::{BoardSize, Game, Rule, Rules};

    /// A renju position from `bench/vct-renju15.txt` where black wins by
    /// threats in about 16k nodes (e12).
    fn position() -> Game {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
        let moves = "h8 h9 f10 i7 f9 i9 i10 k9 j9 j8 h6 f11 k7 h12 e11 i11 j10";
        let moves = parse_move_list(moves, rules.size).unwrap();
        Game::from_moves(rules, Color::Black, &moves).unwrap()
    }

    /// Solves `game` with a table of `limit_bytes`: the winning move, the
    /// nodes, how often the table forgot, and its size at the end.
    fn solve(game: &Game, limit_bytes: usize) -> (Option<usize>, u64, u32, usize) {
        let tt = Tt::new(1);
        let stop = crate::player::StopFlag::new();
        with_searcher(game, &tt, Some(1_000_000), stop, |s| {
            let mut table = ProofTable::new(s.state.to_move(), limit_bytes);
            let win = s.vct_dfpn_in(&mut table, 0, Schedule::Rounds).win();
            (win, s.nodes, table.collections, table.bytes())
        })
    }

    #[test]
    fn a_full_table_forgets_its_cheapest_half_and_still_proves_the_win() {
        let game = position();
        let (roomy, _, roomy_collections, _) = solve(&game, 64 << 20);
        assert!(roomy.is_some());
        assert_eq!(roomy_collections, 0);
        let limit = 32 << 10;
        let (tight, _, tight_collections, bytes) = solve(&game, limit);
        assert!(tight.is_some(), "no proof with a {limit}-byte table");
        assert!(tight_collections > 0, "the table never forgot");
        // The size is checked when a node's moves are stored: the stores
        // of numbers in between may grow a map once more.
        assert!(bytes <= 2 * limit, "{bytes} bytes, limit {limit}");
    }
}
