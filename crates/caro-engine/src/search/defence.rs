//! The defences against a VCF threat: the points where a move of the side
//! to move may spoil the VCF the other side threatens, read from the
//! trace the VCF search leaves of every point its win rests on (its
//! stones, the points that would turn a block into a four, around a
//! forbidden block the points that may change it, under caro the points
//! that may cap a five). The threat solvers' defender moves.

use caro_core::{Cell, Color, Foul, Rule};
use smallvec::SmallVec;

use super::{Abort, Searcher};
use crate::pattern::Pattern;

/// In a VCF trace: every point of the board may spoil the VCF (see
/// [`Searcher::foul_may_turn_on`]).
pub(super) const ANY_POINT: usize = usize::MAX;
/// In a VCF trace: set on a point where the VCF puts a stone (an
/// attacker's four, a defender's block), not only one that may spoil it.
pub(super) const STONE_MARK: usize = 1 << (usize::BITS - 2);

impl Searcher<'_> {
    /// Whether the side not to move threatens a VCF of at most `depth`
    /// fours (would win by them if it could move now), and if so the
    /// points where a move of the side to move may spoil it: every point
    /// of a shortest such VCF (its fours, the blocks, the five points), the
    /// points that would turn a block into a four, around a forbidden
    /// block the points that may change it, under caro the points that may
    /// cap a five, and the side to move's own fours. Sorted, each once. A
    /// move elsewhere leaves that VCF standing. Under renju, where the VCF
    /// rests on a foul that a stone far from its lines may turn through
    /// the recursive rule ([`Searcher::foul_may_turn_on`],
    /// [`Searcher::trace_foul_makers`]), every empty point. Where black
    /// defends under renju, also the moves that may leave black with no
    /// legal move at some turn of the VCF ([`Searcher::stranding_moves`]):
    /// that is a draw.
    pub(super) fn vcf_threat_defences(&mut self, depth: u32, ply: usize) -> Option<Vec<usize>> {
        self.vcf_threat_points(depth, ply, true, true)
    }

    /// [`Searcher::vcf_threat_defences`] without the side to move's own
    /// fours off the threat's points (unless every point may defend): the
    /// fewer replies of the relaxed search of [`super::dfpn`]'s refinement.
    pub(super) fn vcf_threat_defences_relaxed(
        &mut self,
        depth: u32,
        ply: usize,
    ) -> Option<Vec<usize>> {
        self.vcf_threat_points(depth, ply, true, false)
    }

    /// [`Searcher::vcf_threat_defences`] without the moves that may leave
    /// black with no legal move: the moves after which the side to move
    /// may still win, not only keep the other side from winning (a black
    /// move that strands black only draws). For narrowing the moves of a
    /// side that must win.
    pub(super) fn vcf_threat_spoilers(&mut self, depth: u32, ply: usize) -> Option<Vec<usize>> {
        self.vcf_threat_points(depth, ply, false, true)
    }

    /// [`Searcher::vcf_threat_defences`], with the stranding moves where
    /// `stranding` asks for them, and the side to move's own fours where
    /// `own_fours` does.
    fn vcf_threat_points(
        &mut self,
        depth: u32,
        ply: usize,
        stranding: bool,
        own_fours: bool,
    ) -> Option<Vec<usize>> {
        let defender = self.state.to_move();
        self.state.pass();
        // Most threat checks fail: one search at full depth says so (and
        // leaves the failure in the cache) before any deepening. An open
        // three (a point that makes an open four) is a threat almost
        // always: then deepen at once, where one four finds it.
        let outer = self.vcf_trace.take();
        let likely = self.state.has(defender.opponent(), Pattern::Flex4);
        if !likely && self.vcf(depth, ply).is_none() {
            self.vcf_trace = outer;
            self.state.pass();
            return None;
        }
        self.vcf_trace = outer;
        let outer = self.vcf_trace.replace(Vec::new());
        // The shortest VCF, found by deepening one four at a time, leaves
        // the fewest points to defend (a deeper one found first would
        // bring its longer trace).
        let mut found = None;
        for d in 1..=depth {
            found = self.vcf(d, ply);
            if found.is_some() || self.abort != Abort::None {
                break;
            }
        }
        let trace = std::mem::replace(&mut self.vcf_trace, outer);
        self.state.pass();
        found?;
        // The points, and apart the stones the VCF plays.
        let mut stones = Vec::new();
        let mut points: Vec<usize> = trace.unwrap_or_default();
        for e in &mut points {
            if *e != ANY_POINT && *e & STONE_MARK != 0 {
                *e &= !STONE_MARK;
                stones.push(*e);
            }
        }
        let stranding = if points.contains(&ANY_POINT) {
            None
        } else if stranding && defender == Color::Black && self.state.rules().rule == Rule::Renju {
            self.stranding_moves(&stones)
        } else {
            Some(Vec::new())
        };
        let board = self.state.board();
        let Some(stranding) = stranding else {
            // The VCF rests on a foul under the recursive rule (a stone far
            // from its lines may turn it), or black may run out of legal
            // moves anywhere: every point may defend.
            let every = (0..board.cell_count()).filter(|&i| board.cell(i) == Cell::Empty);
            return Some(every.collect());
        };
        points.extend(stranding);
        if self.is_caro() {
            let outer = self.vcf_trace.replace(Vec::new());
            for i in points.clone() {
                self.trace_lines(i);
            }
            let lines = std::mem::replace(&mut self.vcf_trace, outer);
            points.extend(lines.unwrap_or_default());
        }
        if own_fours {
            points.extend(self.state.four_points(defender).iter().map(|&i| i as usize));
        }
        points.retain(|&i| self.state.board().cell(i) == Cell::Empty);
        points.sort_unstable();
        points.dedup();
        Some(points)
    }

    /// Black to move under renju, facing a threat whose stones to come
    /// (a VCF's fours and blocks, or the points where an open four may be
    /// made) all lie on `stones`: the black moves after which black may
    /// have no legal move at some turn of that threat (a draw, not a
    /// loss), or `None` where that may follow any move. A point's
    /// patterns read only the cells within k of it on its four lines, so
    /// an empty point that cannot be a foul now ([`crate::state::State::may_be_foul`])
    /// and has none of the stones within that reach stays empty and legal
    /// through the threat unless black's own move lands within its reach:
    /// black can be left with no legal move only by a move within reach
    /// of every such point. Those moves are returned: none where two such
    /// points lie more than 2k apart (no move reaches both), `None` where
    /// there is no such point.
    pub(super) fn stranding_moves(&self, stones: &[usize]) -> Option<Vec<usize>> {
        let k = i32::from(self.state.rules().k);
        let board = self.state.board();
        let at = |i: usize| {
            let p = board.pos(i);
            (i32::from(p.x), i32::from(p.y))
        };
        let reaches = |(ax, ay): (i32, i32), (bx, by): (i32, i32)| {
            let (dx, dy) = ((ax - bx).abs(), (ay - by).abs());
            (dx == 0 || dy == 0 || dx == dy) && dx.max(dy) <= k
        };
        let played: SmallVec<[(i32, i32); 32]> = stones.iter().map(|&i| at(i)).collect();
        let empty = |i: &usize| board.cell(*i) == Cell::Empty;
        let mut safe: SmallVec<[(i32, i32); 16]> = SmallVec::new();
        for i in (0..board.cell_count()).filter(empty) {
            if self.state.may_be_foul(i) {
                continue;
            }
            let p = at(i);
            if played.iter().any(|&t| reaches(p, t)) {
                continue;
            }
            if safe
                .iter()
                .any(|&(x, y)| (x - p.0).abs().max((y - p.1).abs()) > 2 * k)
            {
                return Some(Vec::new());
            }
            safe.push(p);
        }
        if safe.is_empty() {
            return None;
        }
        let strands = |i: &usize| safe.iter().all(|&s| reaches(at(*i), s));
        Some(
            (0..board.cell_count())
                .filter(empty)
                .filter(strands)
                .collect(),
        )
    }

    /// Whether black's four on the empty point `a` is allowed only
    /// because an open three of its own is false — each point that would
    /// make that three a straight four being itself forbidden (the
    /// recursive rule) — and one such point is a double-four or
    /// double-three, which a white stone on one of its lines, however far
    /// from the four's, could lift: the three would be true again and the
    /// four a foul. (An overline cannot be lifted.) Under renju only.
    pub(super) fn foul_may_turn_on(&self, a: usize) -> bool {
        let black = Color::Black;
        if self.state.rules().rule != Rule::Renju {
            return false;
        }
        let points = self.straight_four_points(a);
        if points.is_empty() {
            return false;
        }
        let mut board = self.state.board().clone();
        board.place(a, black);
        points.into_iter().any(|(j, _)| {
            matches!(
                board.foul_at(board.pos(j), black, Rule::Renju),
                Some(Foul::DoubleFour | Foul::DoubleThree)
            )
        })
    }

    /// With a black stone on the empty point `i`, where it makes two or
    /// more open threes (a double-three, if two are true): the empty
    /// points that would make one of them a straight four, each with the
    /// direction of that three. Whether such a three is true depends on
    /// whether those points are forbidden in turn (the recursive rule).
    /// Empty when `i` makes fewer than two.
    pub(super) fn straight_four_points(&self, i: usize) -> Vec<(usize, usize)> {
        let black = Color::Black;
        let lines = self.state.patterns(i).dir[black.index()];
        let threes = |d: &usize| lines[*d] == Pattern::Flex3 as u8;
        if (0..4).filter(threes).count() < 2 {
            return Vec::new();
        }
        let offsets = self.state.board().dir_offsets();
        (0..4)
            .filter(threes)
            .flat_map(|d| {
                self.empty_along(i, offsets[d], 4)
                    .into_iter()
                    .filter(move |&j| {
                        self.state.pattern_with_stone(j, d, black, i, black) == Pattern::Flex4
                    })
                    .map(move |j| (j, d))
            })
            .collect()
    }

    /// Adds to the VCF trace the points where a black stone may make the
    /// empty point `j` forbidden, `j` being allowed and making a straight
    /// four along `d` (with a stone that is not there yet). With a three
    /// or a four on another line, a stone on one of `j`'s lines may make a
    /// second four there or a four-three-three. With two threes on other
    /// lines, one of them false through a forbidden point in turn, a stone
    /// lifting that foul — anywhere, the rule being recursive — may make
    /// it a four-three-three: then every point.
    pub(super) fn trace_foul_makers(&mut self, j: usize, d: usize) {
        let lines = self.state.patterns(j).dir[Color::Black.index()];
        let others = (0..4).filter(|&e| e != d);
        if others.clone().any(|e| lines[e] >= Pattern::Block3 as u8) {
            self.trace_lines(j);
        }
        if others.filter(|&e| lines[e] == Pattern::Flex3 as u8).count() >= 2 {
            self.trace(ANY_POINT);
        }
    }

    /// Adds a point to the VCF trace, if one is being collected.
    #[inline]
    pub(super) fn trace(&mut self, i: usize) {
        if let Some(t) = &mut self.vcf_trace {
            t.push(i);
        }
    }

    /// Adds to the VCF trace the empty points within `k` of `i` on its
    /// four lines.
    pub(super) fn trace_lines(&mut self, i: usize) {
        let k = self.state.rules().k as usize;
        for step in self.state.board().dir_offsets() {
            for j in self.empty_along(i, step, k) {
                self.trace(j);
            }
        }
    }

    /// The defender has just blocked on `r`: adds to the VCF trace the
    /// points that would make that block a four (a stone there before
    /// the attack would let the block gain the move back).
    pub(super) fn trace_counter_fours(&mut self, r: usize, defender: Color) {
        for (d, step) in self.state.board().dir_offsets().into_iter().enumerate() {
            for j in self.empty_along(r, step, 4) {
                if matches!(
                    self.state.patterns(j).get(defender, d),
                    Pattern::Block4 | Pattern::Flex4 | Pattern::Five
                ) {
                    self.trace(j);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::StopFlag;
    use crate::search::params::{THREAT_DEPTH, VCT_VCF_DEPTH};
    use crate::search::testing::game;
    use crate::search::with_searcher;
    use crate::tt::Tt;
    use caro_core::notation::parse_pos;

    /// A renju position, white to move, where black threatens a VCF: h8,
    /// a four that is allowed only because its three along row 8 is false
    /// (e8, the point that would make it a straight four, is a
    /// double-four); white's h7 block, then g7 or k11. White's d9, far
    /// from every line of that VCF, blocks e8's second four: e8 is allowed
    /// again, the three is true and h8 a double-three. The defences of the
    /// threat must take d9 in.
    #[test]
    fn a_white_stone_that_makes_a_black_four_a_foul_is_a_defence() {
        let position = "f8 c8 g8 j8 h9 h12 h10 i4 h11 e6 i9 i10 j10 a1 f7 o1 g6 a15 h5";
        let game = game(Rule::Renju, 15, 5, position);
        let size = game.rules().size;
        let at = |s: &str| parse_pos(s, size).unwrap();
        let index = |p: &str| game.board().index(at(p));
        let tt = Tt::new(1);
        with_searcher(&game, &tt, None, StopFlag::new(), |s| {
            let defences = s
                .vcf_threat_defences(THREAT_DEPTH, 0)
                .expect("black threatens a VCF");
            for p in ["h8", "h7", "d9"] {
                assert!(
                    defences.contains(&index(p)),
                    "{p} is not among the defences"
                );
            }
            s.state.play(index("d9"));
            let foul = s.state.clone_is_foul(index("h8"));
            assert!(foul, "h8 is not a foul after d9");
            assert_eq!(
                s.vcf(VCT_VCF_DEPTH, 0),
                None,
                "black still wins by fours after d9"
            );
        });
        // Without d9 h8 is allowed.
        assert!(game.forbidden_points().iter().all(|&(p, _)| p != at("h8")));
    }

    /// The other side of the rule: a renju position, black to move, where
    /// white threatens h12, a four whose only five point h8 black may not
    /// block (a double-three: f8 g8 along row 8, i9 j10 along the
    /// diagonal). Row 8's three is true because e8, the point that makes
    /// it a straight four, is allowed. Black's d9, on none of h8's lines,
    /// makes e8 a double-four: the three is false, h8 allowed, and white
    /// has no win left. The defences of the threat must take d9 in.
    #[test]
    fn a_black_stone_that_lifts_the_foul_on_its_block_is_a_defence() {
        let position = "f8 h9 g8 h10 i9 h11 j10 c8 f7 j8 g6 c10 h13 a1 h7 o1";
        let game = game(Rule::Renju, 15, 5, position);
        let size = game.rules().size;
        let index = |p: &str| game.board().index(parse_pos(p, size).unwrap());
        let tt = Tt::new(1);
        with_searcher(&game, &tt, None, StopFlag::new(), |s| {
            assert!(s.state.clone_is_foul(index("h8")));
            let defences = s
                .vcf_threat_defences(THREAT_DEPTH, 0)
                .expect("white threatens a VCF");
            for p in ["h12", "d9"] {
                assert!(
                    defences.contains(&index(p)),
                    "{p} is not among the defences"
                );
            }
            s.state.play(index("d9"));
            assert!(
                !s.state.clone_is_foul(index("h8")),
                "h8 is still a foul after d9"
            );
            assert_eq!(
                s.vcf(VCT_VCF_DEPTH, 0),
                None,
                "white still wins by fours after d9"
            );
        });
    }
}
