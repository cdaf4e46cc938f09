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
//! threat (else the node is disproved), the defender's own VCF disproves
//! it, and the defender's moves are every point that may spoil the VCF the
//! threat was found with: its fours, blocks and five points, the points
//! that would make a block a four, around a forbidden block the points
//! that may lift the foul, under caro the points that may cap a five, and
//! the defender's own fours. A defence elsewhere leaves that VCF standing.
//!
//! Proof and disproof numbers (Allis) are kept in a table keyed by the
//! position's hash; the search descends into the most proving child with
//! Nagai's thresholds and the 1 + ε trick of Pawlewicz and Lew, so a child
//! is left only when its numbers grow a quarter past its sibling's. An
//! attacker's move starts with a proof number by the threat it makes
//! (fours 1, threes 2, quiet moves 8). Stones are only ever added, so the
//! graph has no cycles. An interrupted search stores nothing for the node
//! it was in, so a position is proven only by a complete threat tree (a
//! disproof may come from the ply cap or a stop, which never turns into a
//! proof).
//!
//! Known gap: under renju a white stone can, through the recursive rule,
//! make a later black move forbidden; the defences do not look for such
//! stones.

use std::collections::HashMap;
use std::rc::Rc;

use caro_core::Color;

use super::{Abort, Searcher, VCT_VCF_DEPTH};
use crate::pattern::Pattern;
use crate::state::{PointPatterns, Threat};

/// "Infinite" proof or disproof number.
const INF: u32 = 1 << 28;
/// Moves past the root after which a line is given up (disproved).
const MAX_DFPN_PLY: usize = 160;
/// Fours a threat may take: the defender must answer a move after which
/// the attacker, moving again, would win by at most this many fours (an
/// open three is a threat of one).
const THREAT_DEPTH: u32 = 3;
/// Fours of the defender's VCFs the search looks for, to narrow the
/// attacker's moves and to disprove a node at once. Only a shortcut: a
/// longer defender's VCF starts with a four, which the tree answers
/// anyway. Deeper costs more than it saves (`test_vct_fukumi_move`:
/// 1.6 s at 12, 1.0 s at 4).
const DEFENDER_VCF_DEPTH: u32 = 4;
/// No move recorded.
const NO_MOVE: u32 = u32::MAX;

/// Proof and disproof numbers of one position, and (once proven at an
/// attacker's node) the move that wins.
#[derive(Clone, Copy)]
struct Numbers {
    pn: u32,
    dn: u32,
    best: u32,
}

const UNKNOWN: Numbers = Numbers {
    pn: 1,
    dn: 1,
    best: NO_MOVE,
};

/// What a node holds before its children are searched.
enum Expansion {
    /// The attacker has won (with this move, at the attacker's nodes).
    Proven(u32),
    /// The attacker cannot win from here by threats.
    Disproven,
    /// Moves to search, each with the number its child starts with before
    /// it is searched: the proof number of an attacker's move (how hard
    /// its threat looks to follow up), the disproof number of a defence.
    Moves(Vec<(usize, u32)>),
}

/// The proof-number table of one df-pn search.
pub(super) struct ProofTable {
    attacker: Color,
    numbers: HashMap<u64, Numbers>,
    /// The moves of every node expanded so far (a node is visited many
    /// times; its threat searches run once).
    moves: HashMap<u64, Rc<[(usize, u32)]>>,
}

impl ProofTable {
    /// An empty table for a search where `attacker` wins by threats.
    pub(super) fn new(attacker: Color) -> ProofTable {
        ProofTable {
            attacker,
            numbers: HashMap::new(),
            moves: HashMap::new(),
        }
    }

    fn get(&self, key: u64) -> Numbers {
        self.numbers.get(&key).copied().unwrap_or(UNKNOWN)
    }

    /// The numbers of a child of an OR node (`or_node`) or of an AND node,
    /// `initial` if it has not been searched yet.
    fn child(&self, key: u64, or_node: bool, initial: u32) -> Numbers {
        self.numbers.get(&key).copied().unwrap_or(Numbers {
            pn: if or_node { initial } else { 1 },
            dn: if or_node { 1 } else { initial },
            best: NO_MOVE,
        })
    }
}

impl Searcher<'_> {
    /// The first move of a victory by continuous threats for the side to
    /// move, if the df-pn search proves one within the searcher's limits.
    pub(super) fn vct_dfpn(&mut self, ply: usize) -> Option<usize> {
        let mut table = ProofTable::new(self.state.to_move());
        self.mid(&mut table, INF - 1, INF - 1, ply);
        let root = table.get(self.state.hash());
        (root.pn == 0 && root.best != NO_MOVE).then_some(root.best as usize)
    }

    /// One df-pn visit: searches below the node until its proof number
    /// reaches `thpn` or its disproof number `thdn`, and stores its numbers.
    fn mid(&mut self, table: &mut ProofTable, thpn: u32, thdn: u32, ply: usize) {
        self.nodes += 1;
        if self.check_abort() {
            return;
        }
        self.seldepth = self.seldepth.max(ply);
        let key = self.state.hash();
        let or_node = self.state.to_move() == table.attacker;
        let moves = if let Some(moves) = table.moves.get(&key) {
            Rc::clone(moves)
        } else {
            let expansion = if or_node {
                self.attacker_moves(ply)
            } else {
                self.defender_moves(ply)
            };
            if self.abort != Abort::None {
                return;
            }
            match expansion {
                Expansion::Proven(best) => {
                    let proven = Numbers {
                        pn: 0,
                        dn: INF,
                        best,
                    };
                    table.numbers.insert(key, proven);
                    return;
                }
                Expansion::Disproven => {
                    let disproven = Numbers {
                        pn: INF,
                        dn: 0,
                        best: NO_MOVE,
                    };
                    table.numbers.insert(key, disproven);
                    return;
                }
                Expansion::Moves(moves) => {
                    let moves: Rc<[(usize, u32)]> = moves.into();
                    table.moves.insert(key, Rc::clone(&moves));
                    moves
                }
            }
        };
        let child_keys: Vec<u64> = moves
            .iter()
            .map(|&(m, _)| self.state.hash_after(m))
            .collect();
        loop {
            // At an OR node the attacker picks the child with the smallest
            // proof number and needs every child disproved; an AND node the
            // other way round. "mine" is the number the node minimises.
            let (mut least, mut second, mut total, mut at) = (INF, INF, 0u32, 0);
            for (n, &ck) in child_keys.iter().enumerate() {
                let c = table.child(ck, or_node, moves[n].1);
                let (mine, other) = if or_node { (c.pn, c.dn) } else { (c.dn, c.pn) };
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
                moves[at].0 as u32
            } else {
                NO_MOVE
            };
            table.numbers.insert(key, Numbers { pn, dn, best });
            if pn >= thpn || dn >= thdn {
                return;
            }
            let child = table.child(child_keys[at], or_node, moves[at].1);
            // 1 + ε: stay with this child until it is a quarter worse than
            // the second best.
            let sibling_bound = second.saturating_add(second / 4).saturating_add(1).min(INF);
            let (child_thpn, child_thdn) = if or_node {
                (thpn.min(sibling_bound), thdn - dn + child.dn)
            } else {
                (thpn - pn + child.pn, thdn.min(sibling_bound))
            };
            self.state.play(moves[at].0);
            self.mid(table, child_thpn, child_thdn, ply + 1);
            self.state.undo();
            if self.abort != Abort::None {
                return;
            }
        }
    }

    /// The side to move must stop the other side's `fives`: the stops, or
    /// `none_left` when there is none.
    fn stops_or(&mut self, fives: &[usize], none_left: Expansion) -> Expansion {
        let stops = self.stops_of_fives(fives);
        if stops.is_empty() {
            none_left
        } else {
            Expansion::Moves(stops.into_iter().map(|i| (i, 1)).collect())
        }
    }

    /// The attacker to move: a five wins; the defender's four must be
    /// stopped; a VCF wins. Otherwise every move that may build a threat
    /// (a three or better on one line, or twos on two) is tried, narrowed
    /// to those that spoil the defender's own VCF threat, if it has one.
    fn attacker_moves(&mut self, ply: usize) -> Expansion {
        let me = self.state.to_move();
        let fours = self.scan_fours();
        if let Some(&i) = fours.my_fives.first() {
            return Expansion::Proven(i as u32);
        }
        if ply >= MAX_DFPN_PLY {
            return Expansion::Disproven;
        }
        if !fours.opp_fives.is_empty() {
            return self.stops_or(&fours.opp_fives, Expansion::Disproven);
        }
        if let Some(m) = self.vcf(VCT_VCF_DEPTH, ply) {
            return Expansion::Proven(m as u32);
        }
        let spoilers = self.vcf_threat_defences(DEFENDER_VCF_DEPTH, ply);
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
                .map(|(i, _)| (i, threat_cost(self.state.threat(i, me))))
                .collect(),
        )
    }

    /// The defender to move: a five of its own refutes; the attacker's
    /// four must be stopped; otherwise the attacker must threaten a VCF
    /// (win by fours were it to move again), the defender's own VCF
    /// refutes, and the defender's moves are those that may spoil the
    /// threat.
    fn defender_moves(&mut self, ply: usize) -> Expansion {
        let fours = self.scan_fours();
        if !fours.my_fives.is_empty() {
            return Expansion::Disproven;
        }
        if !fours.opp_fives.is_empty() {
            return self.stops_or(&fours.opp_fives, Expansion::Proven(NO_MOVE));
        }
        if ply >= MAX_DFPN_PLY {
            return Expansion::Disproven;
        }
        let Some(mut replies) = self.vcf_threat_defences(THREAT_DEPTH, ply) else {
            return Expansion::Disproven;
        };
        if self.vcf(DEFENDER_VCF_DEPTH, ply).is_some() {
            return Expansion::Disproven;
        }
        replies.retain(|&i| self.state.is_legal(i));
        if replies.is_empty() {
            return Expansion::Proven(NO_MOVE);
        }
        replies.sort_by_cached_key(|&i| std::cmp::Reverse(self.order_score(i, ply, None)));
        Expansion::Moves(replies.into_iter().map(|i| (i, 1)).collect())
    }
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
fn threat_cost(t: Threat) -> u32 {
    match t {
        Threat::Five | Threat::OpenFour | Threat::FourThree | Threat::Four => 1,
        Threat::DoubleThree | Threat::OpenThree => 2,
        Threat::None => 8,
    }
}
