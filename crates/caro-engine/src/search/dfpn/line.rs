//! The main line of a proven win and the most plies it takes: the
//! attacker's moves by the proof (or by fours), the defender's hardest
//! reply at each turn, and the walk of the whole proof for the longest
//! line.

use super::{Expansion, ProofTable, MAX_DFPN_PLY};
use crate::keymap::KeyMap;
use crate::search::params::{
    LINE_BUDGET_EXTENSIONS, LINE_NODES, PROOF_WALK_NODES, THREAT_DEPTH, VCF_LINE_DEPTH,
    VCT_VCF_DEPTH,
};
use crate::search::{Abort, Searcher};

/// Plies a winning line may run before [`Searcher::winning_line`] stops
/// (a VCT's longest lines and then a long VCF).
const MAX_LINE_PLIES: usize = 2 * (MAX_DFPN_PLY + VCF_LINE_DEPTH as usize);

impl Searcher<'_> {
    /// The main line of a win the side to move has just been proven to
    /// hold, starting with the proof's move `first`, then by the proof
    /// `table` (a VCT's) or, without one or where it says nothing, by fours
    /// (a VCF's): the attacker's winning moves, and
    /// for the defender the reply whose proof took the most nodes (the
    /// hardest), or the first stop of a four. It ends with the five, or
    /// with the attacker's move the defender has no legal answer to (an
    /// open four, or under renju a four whose block is forbidden). The
    /// attacker's VCF searches look first within `fours_left` fours after
    /// `first` (what the proof left: the failures its search cached at
    /// that depth answer them at once), one fewer after each four, then
    /// at any depth. The position is left as it was. Its searches take
    /// nodes of their own, not counted in the searcher's: a budget of the
    /// searcher's node limit's value, or [`LINE_NODES`] without one,
    /// renewed larger where a step is cut short (see
    /// [`LINE_BUDGET_EXTENSIONS`]).
    pub(in crate::search) fn winning_line(
        &mut self,
        first: usize,
        table: Option<&ProofTable>,
        fours_left: u32,
    ) -> Vec<usize> {
        let attacker = self.state.to_move();
        // The line's own searches get nodes of their own, and are not
        // counted in the solver's.
        let solver_nodes = self.nodes;
        let outer_limit = self.node_limit;
        // The searcher's limit's value serves as the line's budget;
        // without one, the line's own (its searches must end even where
        // no clock is set: a search to a depth).
        let line_budget = outer_limit.unwrap_or(LINE_NODES);
        self.node_limit = Some(self.nodes.saturating_add(line_budget));
        self.abort = Abort::None;
        let mut line = Vec::new();
        let mut fours_left = fours_left;
        let mut extensions = 0;
        while line.len() < MAX_LINE_PLIES && !self.state.is_full() {
            let mover = self.state.to_move();
            let next = if line.is_empty() {
                // The proof's own first move: not searched for again.
                Some(first)
            } else if mover == attacker {
                self.attacker_line_move(table, &mut fours_left)
            } else {
                self.defender_line_move(table)
            };
            let Some(m) = next else {
                // The win is proven, so a step cut short by the node
                // budget (not by the clock or a stop) gets a larger one.
                let out_of_nodes = self.abort != Abort::None && self.within_limits(None);
                if out_of_nodes && extensions < LINE_BUDGET_EXTENSIONS {
                    extensions += 1;
                    self.abort = Abort::None;
                    self.node_limit = Some(
                        self.nodes
                            .saturating_add(line_budget.saturating_mul(1 << extensions)),
                    );
                    continue;
                }
                break;
            };
            self.state.play(m);
            line.push(m);
            if self.state.won_at(m, mover) {
                break;
            }
        }
        for _ in &line {
            self.state.undo();
        }
        self.node_limit = outer_limit;
        self.nodes = solver_nodes;
        self.abort = Abort::None;
        line
    }

    /// The attacker's next move on a winning line: a five, the proof's
    /// move, or the first move of a VCF (within `fours_left` fours first,
    /// which then counts the four down).
    fn attacker_line_move(
        &mut self,
        table: Option<&ProofTable>,
        fours_left: &mut u32,
    ) -> Option<usize> {
        if let Some(&five) = self.scan_fours().my_fives.first() {
            return Some(five);
        }
        if let Some(best) = table.and_then(|t| t.proven_move(self.state.hash())) {
            // Where the table proved a position by a VCF, the positions of
            // the VCF's continuation are not in it: they need at most one
            // four fewer than its expansions search.
            *fours_left = VCT_VCF_DEPTH - 1;
            return Some(best as usize);
        }
        for depth in [*fours_left, VCF_LINE_DEPTH] {
            if let Some(m) = self.vcf(depth, 0) {
                *fours_left = depth.saturating_sub(1);
                return Some(m);
            }
            if self.abort != Abort::None {
                break;
            }
        }
        None
    }

    /// The defender's reply on a winning line: a stop of the attacker's
    /// four if it has one, else the reply to its threat; of several, the
    /// one whose proof took the most nodes. `None` where there is no legal
    /// answer.
    fn defender_line_move(&mut self, table: Option<&ProofTable>) -> Option<usize> {
        let fives = self.scan_fours().opp_fives;
        let replies: Vec<usize> = if fives.is_empty() {
            match self.defender_moves(0, false) {
                Expansion::Moves(moves) => moves.iter().map(|c| c.at as usize).collect(),
                Expansion::Proven(_) | Expansion::Disproven | Expansion::OutOfBudget => Vec::new(),
            }
        } else {
            self.stops_of_fives(&fives).into_iter().collect()
        };
        let work = |r: &usize| table.and_then(|t| t.proof_work(self.state.hash_after(*r)));
        // The first of the hardest: `max_by_key` keeps the last of equals.
        replies.iter().rev().max_by_key(|r| work(r)).copied()
    }

    /// The most plies, from the attacker's move `first` to its five, that
    /// the win the proof `table` holds may take whatever the defender
    /// plays: an upper bound, `None` where the walk cannot give one (a
    /// position it cannot follow: forgotten by the table and with no VCF
    /// of [`VCT_VCF_DEPTH`] fours, or one where the defender has a five or
    /// the attacker no threat; or the walk's node budget spent). The walk
    /// follows the proof: at the attacker's nodes its five, the table's
    /// move, or where the table has none a VCF (where the table proved a
    /// node by a VCF at its expansion, the positions past it are not in
    /// the table), and at the defender's nodes every legal reply the
    /// solver generates, each position once (a node each). A reply
    /// outside that list leaves the threat's shortest VCF standing (that
    /// is how the list is made), so it loses within that VCF's plies; a
    /// move that does not stop a four loses to the five. The walk takes
    /// nodes of its own, at most [`PROOF_WALK_NODES`] (fewer where the
    /// search's node limit is lower), not counted in the solver's. The
    /// position is left as it was.
    pub(in crate::search) fn proof_plies(
        &mut self,
        first: usize,
        table: &ProofTable,
    ) -> Option<usize> {
        // The walk's searches get nodes of their own, not counted in the
        // solver's (as the winning line's).
        let solver_nodes = self.nodes;
        let seldepth = self.seldepth;
        let outer_limit = self.node_limit;
        let budget = outer_limit.map_or(PROOF_WALK_NODES, |l| l.min(PROOF_WALK_NODES));
        self.node_limit = Some(self.nodes.saturating_add(budget));
        self.abort = Abort::None;
        let mut memo = KeyMap::default();
        self.state.play(first);
        let plies = self.walk_plies(table, &mut memo, 1);
        self.state.undo();
        let complete = self.abort == Abort::None;
        self.node_limit = outer_limit;
        self.nodes = solver_nodes;
        self.seldepth = seldepth;
        self.abort = Abort::None;
        plies.filter(|_| complete).map(|p| p + 1)
    }

    /// [`Searcher::proof_plies`] at one position, each once (a node
    /// each): the most plies to the attacker's five, the side to move's
    /// move counted.
    fn walk_plies(
        &mut self,
        table: &ProofTable,
        memo: &mut KeyMap<Option<usize>>,
        ply: usize,
    ) -> Option<usize> {
        let key = self.state.hash();
        if let Some(&known) = memo.get(&key) {
            return known;
        }
        self.nodes += 1;
        if self.check_abort() {
            return None;
        }
        let plies = if self.state.to_move() == table.attacker {
            self.attacker_plies(table, memo, ply)
        } else {
            self.defender_plies(table, memo, ply)
        };
        if self.abort != Abort::None {
            return None;
        }
        memo.insert(key, plies);
        plies
    }

    /// [`Searcher::walk_plies`] at an attacker's node (to move, proven).
    fn attacker_plies(
        &mut self,
        table: &ProofTable,
        memo: &mut KeyMap<Option<usize>>,
        ply: usize,
    ) -> Option<usize> {
        if !self.scan_fours().my_fives.is_empty() {
            Some(1)
        } else if let Some(best) = table.proven_move(self.state.hash()) {
            self.state.play(best as usize);
            let plies = self.walk_plies(table, memo, ply + 1);
            self.state.undo();
            plies.map(|p| p + 1)
        } else {
            // Proven at its expansion by a VCF of at most this many fours
            // (the positions past it are not in the table).
            self.vcf(VCT_VCF_DEPTH, ply)
                .map(|_| self.vcf_five_ply + 1 - ply)
        }
    }

    /// [`Searcher::walk_plies`] at a defender's node (to move).
    fn defender_plies(
        &mut self,
        table: &ProofTable,
        memo: &mut KeyMap<Option<usize>>,
        ply: usize,
    ) -> Option<usize> {
        let fours = self.scan_fours();
        let answers = if !fours.my_fives.is_empty() {
            // The defender wins: nothing the proof covers.
            None
        } else if !fours.opp_fives.is_empty() {
            // A move that stops no five loses to it at once.
            let stops: Vec<usize> = self.stops_of_fives(&fours.opp_fives).into_iter().collect();
            Some((stops, 2))
        } else {
            // A move off the threat's defences loses to its shortest VCF,
            // whose plies the search that found it leaves behind.
            self.vcf_threat_defences(THREAT_DEPTH, ply)
                .map(|replies| (replies, 1 + self.vcf_five_ply + 1 - ply))
        };
        let (replies, off_list) = answers?;
        let mut most = off_list;
        let mut answered = false;
        for r in replies {
            if !self.state.is_legal(r) {
                continue;
            }
            answered = true;
            self.state.play(r);
            let plies = self.walk_plies(table, memo, ply + 1);
            self.state.undo();
            most = most.max(1 + plies?);
        }
        // With no legal answer, black under renju may have no legal move
        // at all: a draw, not a win.
        (answered || self.state.has_legal_move()).then_some(most)
    }
}
