//! The threat search by refinement: a relaxed df-pn guesses, a checker
//! proves.
//!
//! The relaxed search is the df-pn of [`super`] with fewer replies for
//! the defender: its own fours off the threat's points are left out. Such
//! a four is a reply at almost every defender's node, and each one the
//! attacker must block brings a new position whose whole threat tree must
//! be proven again, so the relaxed search takes a fraction of the nodes
//! of the full one. It is not sound: a far four may
//! refute its proof. Its disproofs hold, though: the defender with fewer
//! replies cannot lose more.
//!
//! The checker walks the relaxed proof with every reply the full search
//! has. At the attacker's nodes: a five, the stop of a four, a VCF, or
//! the relaxed table's move. At the defender's nodes: every reply, far
//! fours too, the replies of the relaxed proof first. A move a reply
//! refutes is written into the relaxed table as disproven; at the root
//! the relaxed search then goes on and the checker checks its next move
//! (unless it proposes a move refuted already: then the full df-pn
//! decides), and at any other attacker's node where the relaxed search
//! has no move (once its move is refuted) the full df-pn solves the node,
//! on a table of its own shared by all such nodes. Whatever the checker
//! proves is proven by a complete threat tree, as in the full search.
//!
//! Below a far four and its block the relaxed search has no move either:
//! it never met those positions. There the checker *transfers* the
//! guesses of the position without the two stones ([`Guide`]): the same
//! move as there, with every reply of the real position checked. Most
//! far fours do not touch the proof, and then the check costs about the
//! proof's size where a full search of the node cost its whole tree. The
//! guesses read first what the checker or the full search proved for the
//! position without the two stones (the main line is checked before the
//! far fours, so its refuted guesses are mended by then), then the
//! relaxed proof. Where a transferred guess fails, or there is none, the
//! full df-pn tries that node within [`TRANSFER_NODES`] (read every 256
//! nodes, so 100 to 355). Where that runs out, each attacker's node on
//! the way up tries the same budget in turn, and the transfer's first
//! attacker's node (the one after the block and the defender's next
//! reply) runs the full df-pn without one, as without transfers.
//! Transfers save the full searches of most nodes below far fours.
//!
//! Where the relaxed proof holds it is the cheapest solver; where it
//! leads into a node that only a far four refutes, the check must
//! disprove that node, and a disproof costs its whole threat tree (some
//! wins the full search proves are out of its reach). So it runs in a
//! race with the full search (`solve_vct_searched`); figures in
//! docs/benchmarks.md, "Threat solvers".

use caro_core::{Cell, Color};

use super::{Expansion, Numbers, ProofTable, Schedule, INF, MAX_DFPN_PLY, NO_MOVE, UNLIMITED};
use super::{Searcher, VctFound, DISPROVEN};
use crate::search::params::TRANSFER_NODES;
use crate::search::Abort;

/// What the checker found for one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Checked {
    /// The attacker wins by threats (a complete tree).
    Proven,
    /// The attacker cannot win by threats.
    Refuted,
    /// A limit stopped the check.
    Unknown,
    /// Inside a transfer ([`Guide`]): a guess failed, and the full search
    /// at a node below did not settle it within [`TRANSFER_NODES`]. Each
    /// attacker's node above it inside the transfer tries the same budget,
    /// and the transfer's first attacker's node runs the full search.
    GuessFailed,
}

/// The tables of a search by refinement.
pub(in crate::search) struct Refinement {
    /// The relaxed search's.
    relaxed: ProofTable,
    /// The full search's, at the nodes the relaxed search has no move for.
    full: ProofTable,
    /// What the checker has proven and refuted, the winning move at each
    /// proven attacker's node.
    checked: ProofTable,
    /// Whether the checker transfers guesses past far fours ([`Guide`]);
    /// always, but for a test that compares.
    transfers: bool,
}

impl Refinement {
    /// Empty tables for a search where `attacker` wins by threats: the
    /// relaxed and the full search's take at most about `limit_bytes` of
    /// memory together; the checker's record is not bounded (about one
    /// entry a node it checks).
    pub(in crate::search) fn new(attacker: Color, limit_bytes: usize) -> Refinement {
        Refinement {
            relaxed: ProofTable::new_relaxed(attacker, limit_bytes / 2),
            full: ProofTable::new(attacker, limit_bytes / 2),
            checked: ProofTable::new(attacker, usize::MAX),
            transfers: true,
        }
    }

    /// The proof as one table, for the winning line and the walk of the
    /// proof: the checker's positions, and the full search's proofs below
    /// the nodes it solved.
    pub(in crate::search) fn into_proof(self) -> ProofTable {
        let mut proof = self.checked;
        proof.absorb_proofs(&self.full);
        proof
    }
}

impl Searcher<'_> {
    /// A victory by continuous threats for the side to move, found by
    /// refinement (module docs) within the searcher's limits.
    pub(in crate::search) fn vct_refined(
        &mut self,
        tables: &mut Refinement,
        ply: usize,
    ) -> VctFound {
        let hash = self.state.hash();
        match self.check_attacker(tables, ply, Guide::root(hash, ply)) {
            Checked::Proven => tables
                .checked
                .proven_move(hash)
                .map_or(VctFound::Unknown, |m| VctFound::Win(m as usize)),
            Checked::Refuted => VctFound::NoWin,
            Checked::Unknown | Checked::GuessFailed => VctFound::Unknown,
        }
    }

    /// Records in `table` what the checker found for the position, with
    /// the winning move `best` at a proven attacker's node, and the nodes
    /// searched since `start` (what the winning line reads to pick the
    /// hardest reply).
    fn record(&self, table: &mut ProofTable, found: Checked, best: u32, start: u64) -> Checked {
        let hash = self.state.hash();
        let work = super::saturate(self.nodes - start);
        match found {
            Checked::Proven => {
                let proven = Numbers {
                    pn: 0,
                    dn: INF,
                    best,
                    work,
                };
                table.store(hash, 0, proven);
            }
            Checked::Refuted => table.store(hash, UNLIMITED, Numbers { work, ..DISPROVEN }),
            Checked::Unknown | Checked::GuessFailed => {}
        }
        found
    }

    /// What the checker has found for the position already, if anything.
    fn checked_before(&self, tables: &Refinement) -> Option<Checked> {
        let known = tables.checked.lookup(self.state.hash(), UNLIMITED)?;
        Some(if known.pn == 0 {
            Checked::Proven
        } else {
            Checked::Refuted
        })
    }

    /// A checker's visit begins: the node counted, the node count before
    /// it, or the answer where a limit stops the check or the position was
    /// checked before.
    fn visit(&mut self, tables: &Refinement) -> Result<u64, Checked> {
        let start = self.nodes;
        self.nodes += 1;
        if self.check_abort() {
            return Err(Checked::Unknown);
        }
        match self.checked_before(tables) {
            Some(known) => Err(known),
            None => Ok(start),
        }
    }

    /// The checker at an attacker's node, with its guesses read as
    /// `guide` says.
    fn check_attacker(&mut self, tables: &mut Refinement, ply: usize, guide: Guide) -> Checked {
        let start = match self.visit(tables) {
            Ok(start) => start,
            Err(found) => return found,
        };
        let fours = self.scan_fours();
        if let Some(&five) = fours.my_fives.first() {
            return self.record(&mut tables.checked, Checked::Proven, five as u32, start);
        }
        if ply >= MAX_DFPN_PLY {
            return self.record(&mut tables.checked, Checked::Refuted, NO_MOVE, start);
        }
        let hash = self.state.hash();
        if !fours.opp_fives.is_empty() {
            for stop in self.stops_of_fives(&fours.opp_fives) {
                let key = if guide.far_four {
                    guide.key
                } else {
                    guide.key ^ hash ^ self.state.hash_after(stop)
                };
                self.state.play_unscored(stop);
                let found = self.check_defender(tables, ply + 1, guide.below(key));
                self.state.undo();
                match found {
                    Checked::Proven => {
                        return self.record(&mut tables.checked, found, stop as u32, start);
                    }
                    Checked::Unknown | Checked::GuessFailed => return found,
                    Checked::Refuted => {}
                }
            }
            return self.record(&mut tables.checked, Checked::Refuted, NO_MOVE, start);
        }
        if let Some(m) = self.attacker_vcf(ply) {
            return self.record(&mut tables.checked, Checked::Proven, m as u32, start);
        }
        if self.abort != Abort::None {
            return Checked::Unknown;
        }
        // Transferred: the guesses are those of the position without the
        // far fours and their blocks.
        let transferred = guide.key != hash;
        debug_assert!(
            !guide.within || transferred,
            "inside a transfer, not transferred"
        );
        loop {
            // In a transfer, what the checker or the full search proved
            // there first: they are sound where the relaxed search may
            // not be, and the relaxed main line is checked before the far
            // fours (`check_defender`).
            let sound = if transferred {
                let proven = tables.checked.proven_move(guide.key);
                proven.or_else(|| tables.full.proven_move(guide.key))
            } else {
                None
            };
            let guess = sound
                .or_else(|| tables.relaxed.proven_move(guide.key))
                .filter(|&m| {
                    self.state.board().cell(m as usize) == Cell::Empty
                        && self.state.is_legal(m as usize)
                });
            // A guess refuted already, proposed again (the relaxed search
            // proves its root at the expansion, by a VCF the check has
            // refuted, without caching it): the full search decides.
            let refuted_before = guess.is_some_and(|m| self.refuted_before(tables, m));
            let guess = match guess {
                _ if refuted_before && guide.within => {
                    return self.check_within_budget(tables, ply, start);
                }
                _ if refuted_before => return self.check_by_full_search(tables, ply),
                Some(m) => m,
                None if guide.within => return self.check_within_budget(tables, ply, start),
                None if ply > guide.root => return self.check_by_full_search(tables, ply),
                None => match self.vct_dfpn_in(&mut tables.relaxed, ply, Schedule::Rounds) {
                    VctFound::Win(m) if self.refuted_before(tables, m as u32) => {
                        return self.check_by_full_search(tables, ply);
                    }
                    VctFound::Win(m) => m as u32,
                    // The relaxed search's disproofs hold.
                    VctFound::NoWin => {
                        return self.record(&mut tables.checked, Checked::Refuted, NO_MOVE, start);
                    }
                    VctFound::Unknown => return Checked::Unknown,
                },
            };
            let child = self.state.hash_after(guess as usize);
            let below = Guide {
                within: guide.within || transferred,
                ..guide.below(guide.key ^ hash ^ child)
            };
            self.state.play_unscored(guess as usize);
            let found = self.check_defender(tables, ply + 1, below);
            self.state.undo();
            match found {
                Checked::Proven => return self.record(&mut tables.checked, found, guess, start),
                Checked::Unknown => return found,
                Checked::Refuted | Checked::GuessFailed if guide.within => {
                    return self.check_within_budget(tables, ply, start);
                }
                // The transfer's first attacker's node: where the full
                // search would have been without it.
                Checked::Refuted | Checked::GuessFailed if transferred => {
                    return self.check_by_full_search(tables, ply);
                }
                // Not transferred, nor anything below (a transfer begins
                // below a far four only).
                Checked::GuessFailed => {
                    debug_assert!(false, "a guess failed outside a transfer");
                    return Checked::Unknown;
                }
                Checked::Refuted => {
                    tables.relaxed.refute(child);
                    tables.relaxed.unprove(hash);
                }
            }
        }
    }

    /// Whether the checker has refuted the position after the attacker's
    /// move `m` already.
    fn refuted_before(&self, tables: &Refinement, m: u32) -> bool {
        tables
            .checked
            .lookup(self.state.hash_after(m as usize), UNLIMITED)
            .is_some_and(|n| n.dn == 0)
    }

    /// The full df-pn at an attacker's node the relaxed search has no
    /// move for.
    fn check_by_full_search(&mut self, tables: &mut Refinement, ply: usize) -> Checked {
        let start = self.nodes;
        match self.vct_dfpn_in(&mut tables.full, ply, Schedule::Rounds) {
            VctFound::Win(m) => self.record(&mut tables.checked, Checked::Proven, m as u32, start),
            VctFound::NoWin => self.record(&mut tables.checked, Checked::Refuted, NO_MOVE, start),
            VctFound::Unknown => Checked::Unknown,
        }
    }

    /// The full df-pn at an attacker's node inside a transfer, where its
    /// guess fails or there is none, within [`TRANSFER_NODES`] (read every
    /// [`crate::search::params::CHECK_EVERY`] nodes, so up to that many more): where
    /// that runs out, the transfer is given up (`GuessFailed`) for the
    /// full search at its first node. The nodes since `start` are the
    /// visit's.
    fn check_within_budget(&mut self, tables: &mut Refinement, ply: usize, start: u64) -> Checked {
        let outer = self.node_limit;
        let own = self.nodes.saturating_add(TRANSFER_NODES);
        self.node_limit = Some(outer.map_or(own, |l| l.min(own)));
        let found = self.vct_dfpn_in(&mut tables.full, ply, Schedule::Rounds);
        self.node_limit = outer;
        match found {
            VctFound::Win(m) => self.record(&mut tables.checked, Checked::Proven, m as u32, start),
            VctFound::NoWin => self.record(&mut tables.checked, Checked::Refuted, NO_MOVE, start),
            // Only the budget ran out.
            VctFound::Unknown if self.within_limits(outer) => {
                self.abort = Abort::None;
                Checked::GuessFailed
            }
            VctFound::Unknown => Checked::Unknown,
        }
    }

    /// The checker at a defender's node: every reply of the full search,
    /// those the relaxed search has proven (its main line) first, and
    /// with its guesses read as `guide` says.
    fn check_defender(&mut self, tables: &mut Refinement, ply: usize, guide: Guide) -> Checked {
        let start = match self.visit(tables) {
            Ok(start) => start,
            Err(found) => return found,
        };
        let replies = match self.defender_moves(ply, false) {
            _ if self.abort != Abort::None => return Checked::Unknown,
            Expansion::Proven(_) => {
                return self.record(&mut tables.checked, Checked::Proven, NO_MOVE, start);
            }
            Expansion::Disproven | Expansion::OutOfBudget => {
                return self.record(&mut tables.checked, Checked::Refuted, NO_MOVE, start);
            }
            Expansion::Moves(moves) => moves,
        };
        let hash = self.state.hash();
        let mut replies: Vec<(bool, usize, u64)> = replies
            .iter()
            .map(|c| {
                let key = guide.key ^ hash ^ self.state.hash_after(c.at as usize);
                (tables.relaxed.is_proven(key), c.at as usize, key)
            })
            .collect();
        // Stable: the search's order within each part. The main line
        // first: what the check finds there (refutations, the full
        // search's proofs) the transfers below the far fours read.
        replies.sort_by_key(|&(guessed, _, _)| !guessed);
        for (_, reply, key) in replies {
            self.state.play_unscored(reply);
            // A four the relaxed search left out (it never met the
            // position): below its block, the guesses are those of the
            // position without the two stones.
            let far_four = tables.transfers
                && !tables.relaxed.knows(key)
                && !self.scan_fours().opp_fives.is_empty();
            let below = Guide {
                far_four,
                ..guide.below(if far_four { guide.key } else { key })
            };
            let found = self.check_attacker(tables, ply + 1, below);
            self.state.undo();
            match found {
                Checked::Proven => {}
                Checked::GuessFailed => return found,
                Checked::Refuted | Checked::Unknown => {
                    return self.record(&mut tables.checked, found, NO_MOVE, start);
                }
            }
        }
        self.record(&mut tables.checked, Checked::Proven, NO_MOVE, start)
    }
}

/// Where the checker reads its guesses for a position.
#[derive(Clone, Copy, Debug)]
struct Guide {
    /// The hash the relaxed table knows the position by: its own, or,
    /// below a four of the defender's that the relaxed search left out
    /// and the attacker's block of it, its own without those two stones
    /// (a *transfer*: the relaxed proof of the position without them is
    /// likely to hold with them too, the checker sees whether it does).
    key: u64,
    /// The defender has just played such a four: the stop of it keeps
    /// `key`.
    far_four: bool,
    /// Below the first attacker's node of a transfer, which runs the
    /// full search where the transfer fails.
    within: bool,
    /// The ply of the check's root.
    root: usize,
}

impl Guide {
    /// The guide at the root of a check, the position `hash` at `ply`.
    fn root(hash: u64, ply: usize) -> Guide {
        Guide {
            key: hash,
            far_four: false,
            within: false,
            root: ply,
        }
    }

    /// The guide one move further, with the `key` of the position there.
    fn below(self, key: u64) -> Guide {
        Guide {
            key,
            far_four: false,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{solve_vcf, solve_vct_with, solve_vct_within, with_searcher, VctSolver};
    use crate::tt::Tt;
    use caro_core::notation::{parse_move_list, parse_pos};
    use caro_core::{BoardSize, Game, Pos, Rule, Rules};

    fn renju(moves: &str) -> Game {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
        let moves = parse_move_list(moves, rules.size).unwrap();
        Game::from_moves(rules, Color::Black, &moves).unwrap()
    }

    fn at(p: &str) -> Pos {
        parse_pos(p, BoardSize::square(15)).unwrap()
    }

    /// `bench/vct-renju15.txt` No. 104: black to move wins by threats with
    /// j6. The relaxed search's first guess, l9, loses to white's four on
    /// f9, whose block black may not play (a foul), and which the relaxed
    /// search leaves out.
    const FAR_FOUR: &str = "h8 i9 g9 f10 j8 g8 i7 h6 l7 h7 l8 e10";

    #[test]
    fn a_guess_that_a_far_four_refutes_is_not_claimed() {
        let game = renju(FAR_FOUR);
        let tt = Tt::new(1);
        let guess = with_searcher(&game, &tt, Some(100_000), crate::StopFlag::new(), |s| {
            let mut relaxed = ProofTable::new_relaxed(Color::Black, 16 << 20);
            s.vct_dfpn_in(&mut relaxed, 0, Schedule::Rounds)
                .win()
                .map(|i| s.state.pos(i))
        });
        assert_eq!(guess, Some(at("l9")), "the relaxed search's guess");
        let mut after = game.clone();
        after.try_play(at("l9")).unwrap();
        assert!(
            solve_vcf(&after, 2, 10_000).is_some(),
            "white wins by fours after l9"
        );
        let refined = solve_vct_with(&game, 100_000, 16, VctSolver::Refined);
        assert_eq!(refined.win(), Some(at("j6")));
        let full = solve_vct_with(&game, 100_000, 16, VctSolver::Full);
        assert_eq!(full.win(), Some(at("j6")));
    }

    /// `bench/vct-renju15.txt` No. 139: black to move wins by threats
    /// with h7; the refinement proves it in 5,466 nodes with transfers,
    /// 27,521 without.
    const FAR_FOURS: &str = "h8 i9 f6 h10 j8 g10 i10 g8 j9 g9 g7 f9 j7 j6";

    #[test]
    fn guesses_transferred_past_far_fours_prove_the_win_in_fewer_nodes() {
        let game = renju(FAR_FOURS);
        let tt = Tt::new(1);
        let [with, without] = [true, false].map(|transfers| {
            with_searcher(&game, &tt, Some(100_000), crate::StopFlag::new(), |s| {
                let mut tables = Refinement::new(Color::Black, 16 << 20);
                tables.transfers = transfers;
                let found = s.vct_refined(&mut tables, 0);
                let nodes = s.nodes;
                // The proof walked against every reply: complete.
                let plies = found
                    .win()
                    .and_then(|m| s.proof_plies(m, &tables.into_proof()));
                (found.win().map(|m| s.state.pos(m)), nodes, plies)
            })
        });
        assert_eq!(with.0, Some(at("h7")), "with transfers: {with:?}");
        assert_eq!(without.0, Some(at("h7")), "without: {without:?}");
        assert!(
            with.2.is_some() && without.2.is_some(),
            "{with:?} {without:?}"
        );
        assert!(
            with.1 * 2 < without.1,
            "transfers took {} nodes, none {}",
            with.1,
            without.1
        );
    }

    #[test]
    fn the_race_gives_the_result_of_the_solver_that_took_fewer_nodes() {
        // No. 104, where the refinement takes fewer nodes, and No. 23,
        // where the full search does (the refinement follows a guess
        // into a long disproof there).
        for moves in [
            FAR_FOUR,
            "h8 h9 f6 g9 e7 g7 d8 g5 g8 i9 f9 e8 h7 i6 f8 f7 d9 d11",
        ] {
            let game = renju(moves);
            let full = solve_vct_with(&game, 60_000, 16, VctSolver::Full);
            let refined = solve_vct_with(&game, 60_000, 16, VctSolver::Refined);
            let race = solve_vct_within(&game, 60_000, 32);
            let first = if refined.win().is_some() && refined.nodes < full.nodes {
                refined
            } else {
                full
            };
            assert!(first.win().is_some(), "{moves}: no win found");
            assert_eq!(race, first, "{moves}: full {full:?}, refined {refined:?}");
        }
    }
}
