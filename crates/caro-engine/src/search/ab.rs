//! The alpha-beta search: a principal-variation negamax over the
//! generated moves, with a transposition table, killer and history move
//! ordering, late-move reductions, a width cap at quiet nodes, forced
//! single replies searched without using up depth, and a VCF search at
//! the quiet leaves before the evaluation.

use caro_core::Cell;

use crate::pattern::Pattern;
use crate::state::Threat;

use super::movepick::{pick_best, sort_best_first, Gen};
use super::params::{LMP_MAX_DEPTH, LMR_REDUCTION, PICKED_ONE_BY_ONE};
use super::{Abort, Searcher, INF, MAX_PLY, WIN, WIN_BOUND};
use crate::tt::Bound;

impl Searcher<'_> {
    pub(super) fn negamax(
        &mut self,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv: &mut Vec<usize>,
    ) -> i32 {
        pv.clear();
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.check_abort() {
            return 0;
        }
        if self.state.is_full() {
            return 0;
        }
        if ply >= MAX_PLY {
            return self.state.evaluate();
        }
        let key = self.state.hash();
        let mut tt_move = None;
        if let Some(e) = self.tt.probe(key) {
            if e.best != u16::MAX && self.state.board().cell(e.best as usize) == Cell::Empty {
                tt_move = Some(e.best as usize);
            }
            if ply > 0 && e.depth as i32 >= depth {
                let s = score_from_tt(e.score, ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if usable {
                    return s;
                }
            }
        }
        let tune = self.tune;
        let mut futile = false;
        if beta - alpha == 1
            && ply > 0
            && (1..=tune.rfp_max_depth.max(tune.futility_max_depth)).contains(&depth)
            && beta.abs() < WIN_BOUND
            && self.nothing_threatened()
        {
            let eval = self.state.evaluate();
            if depth <= tune.rfp_max_depth && eval - tune.rfp_margin * depth >= beta {
                return eval;
            }
            futile =
                depth <= tune.futility_max_depth && eval + tune.futility_margin * depth <= alpha;
        }
        if depth <= 0 && self.is_quiet_choice() {
            // The common leaf: no five or four to play or stop and more
            // than one move, so nothing is searched deeper. Same result as
            // below without scoring and sorting every move.
            if let Some(first) = self.vcf(tune.vcf_leaf_depth, ply) {
                pv.push(first);
                return WIN - (self.vcf_five_ply as i32 + 1);
            }
            return self.state.evaluate();
        }
        let (mut moves, forced) = match self.generate(ply, tt_move) {
            Gen::Win(i) => {
                pv.push(i);
                return WIN - (ply as i32 + 1);
            }
            Gen::Lost => return -(WIN - (ply as i32 + 2)),
            Gen::Moves { moves, forced } => (moves, forced),
        };
        if moves.is_empty() {
            // No legal move at all (renju, every point forbidden): a draw.
            return 0;
        }
        if depth <= 0 && !forced && moves.len() > 1 {
            if let Some(first) = self.vcf(tune.vcf_leaf_depth, ply) {
                pv.push(first);
                return WIN - (self.vcf_five_ply as i32 + 1);
            }
            return self.state.evaluate();
        }
        let width = if forced {
            usize::MAX
        } else {
            tune.width_by_depth[(depth.max(0) as usize).min(tune.width_by_depth.len() - 1)]
        };
        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let mut child_pv = Vec::new();
        let me = self.state.to_move();
        let late_moves = if beta - alpha == 1
            && ply > 0
            && !forced
            && (1..=LMP_MAX_DEPTH).contains(&depth)
            && beta.abs() < WIN_BOUND
            && !self.state.has(me.opponent(), Pattern::Flex4)
        {
            tune.lmp_moves[depth as usize]
        } else {
            usize::MAX
        };
        for n in 0..moves.len().min(width) {
            // Most nodes are cut off after a move or two: the first few
            // are picked one at a time, the rest sorted when reached.
            if n < PICKED_ONE_BY_ONE {
                pick_best(&mut moves[n..]);
            } else if n == PICKED_ONE_BY_ONE {
                sort_best_first(&mut moves[n..]);
            }
            let m = moves[n].0;
            if ((futile && n > 0) || n >= late_moves)
                && !forced
                && self.state.threat(m, me) < Threat::Four
            {
                continue;
            }
            self.state.play(m);
            let score = if self.state.won_at(m, me) {
                child_pv.clear();
                WIN - (ply as i32 + 1)
            } else {
                // Forced single replies do not cost depth.
                let new_depth = if forced && moves.len() == 1 {
                    depth
                } else {
                    depth - 1
                };
                if n == 0 {
                    -self.negamax(new_depth, -beta, -alpha, ply + 1, &mut child_pv)
                } else {
                    let reduce =
                        if depth >= tune.lmr_min_depth && n >= tune.lmr_min_index && !forced {
                            LMR_REDUCTION
                        } else {
                            0
                        };
                    let mut s = -self.negamax(
                        new_depth - reduce,
                        -alpha - 1,
                        -alpha,
                        ply + 1,
                        &mut child_pv,
                    );
                    if s > alpha && (reduce > 0 || s < beta) {
                        s = -self.negamax(new_depth, -beta, -alpha, ply + 1, &mut child_pv);
                    }
                    s
                }
            };
            self.state.undo();
            if self.abort != Abort::None {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    pv.clear();
                    pv.push(m);
                    pv.extend_from_slice(&child_pv);
                }
                if score >= beta {
                    if ply < self.killers.len() && self.killers[ply][0] != m {
                        self.killers[ply][1] = self.killers[ply][0];
                        self.killers[ply][0] = m;
                    }
                    let bonus = depth.max(1) * depth.max(1);
                    self.history[m][me.index()] += bonus;
                    break;
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(key, best_move, score_to_tt(best, ply), depth, bound);
        best
    }
}

impl Searcher<'_> {
    /// Neither side can make a five, and the opponent of the side to move
    /// has no open three: the static evaluation can stand for the node.
    fn nothing_threatened(&self) -> bool {
        let me = self.state.to_move();
        let opp = me.opponent();
        !self.state.has(me, Pattern::Five)
            && !self.state.has(opp, Pattern::Five)
            && !self.state.has(opp, Pattern::Flex4)
    }
}

fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score + ply as i32
    } else if score < -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score - ply as i32
    } else if score < -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use crate::search::testing::report;
    use crate::Score;
    use caro_core::notation::parse_move_list;
    use caro_core::{BoardSize, Color, Game, Rule, Rules};

    #[test]
    fn a_loss_to_a_vcf_at_the_leaves_counts_the_vcf_plies() {
        // Black is lost on this 7×7 renju board, and the longest it can
        // hold out is 8 plies (a full-width search of every move and
        // reply, `tests/exhaustive.rs`): the leaves' VCFs must be scored
        // by their length, or every loss looks alike ("lost in 6").
        let rules = Rules::new(BoardSize::square(7), 5, Rule::Renju).unwrap();
        let moves = parse_move_list(
            "d5 c2 f2 a5 b6 c6 c7 e5 g1 g4 d7 f3 e1 d3 e3 e6 d1 g3 b3 a3 a2 b7 \
             g5 c3 a1 d6 a4 g2 a7 a6 g6 g7 e4 f7 f4 e7",
            rules.size,
        )
        .unwrap();
        let g = Game::from_moves(rules, Color::Black, &moves).unwrap();
        assert_eq!(report(&g).0, Score::LossIn(8));
    }
}
