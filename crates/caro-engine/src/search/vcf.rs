//! The VCF solver (victory by continuous fours): a depth-first search of
//! the side to move's fours and the defender's stops, with a cache of the
//! positions known to have no VCF, used at the root, at the leaves of the
//! alpha-beta and inside the threat solvers; and the plies a VCF's win
//! takes. Every rule is respected: exact fives, caro's blocked fives,
//! renju fouls for black on both sides.

use caro_core::{Cell, Color, Rule};
use smallvec::SmallVec;

use super::defence::{ANY_POINT, STONE_MARK};
use super::movepick::Gen;
use super::params::{BYTES_PER_VCF_FAIL, VCF_FAIL_CACHE, VCF_FAIL_CACHE_MIN};
use super::{Abort, Points, Searcher};
use crate::pattern::Pattern;
use crate::state::Threat;

/// Plies a VCF line may run (every point of a 60×60 board would be more,
/// but no real VCF is that long).
const MAX_VCF_PLY: usize = 600;

impl Searcher<'_> {
    /// Victory by continuous fours for the side to move, within `depth`
    /// attacker moves: the first move of a win, if one is found.
    pub(super) fn vcf(&mut self, depth: u32, ply: usize) -> Option<usize> {
        self.nodes += 1;
        if self.check_abort() || ply >= MAX_VCF_PLY {
            return None;
        }
        if self.vcf_node_cap.is_some_and(|cap| self.nodes >= cap) {
            self.vcf_cut_short = true;
        }
        if self.vcf_cut_short {
            return None;
        }
        self.seldepth = self.seldepth.max(ply);
        // A failure is stored only after every four was tried (and there
        // was no five): it answers before anything is scanned.
        let key = self.state.hash();
        if self.vcf_fails.get(key).is_some_and(|d| d >= depth) {
            return None;
        }
        let me = self.state.to_move();
        // No five and no four to make: nothing to look for.
        if !self.state.has(me, Pattern::Five)
            && !self.state.has(me, Pattern::Block4)
            && !self.state.has(me, Pattern::Flex4)
        {
            return None;
        }
        let found = self.scan_fours();
        if let Some(&i) = found.my_fives.first() {
            self.trace(i);
            self.vcf_five_ply = ply;
            return Some(i);
        }
        if depth == 0 {
            return None;
        }
        let opp_fives = found.opp_fives;
        let mut candidates: Points = if opp_fives.is_empty() {
            found.my_fours
        } else {
            // We must stop the opponent's five, and it must be a four too.
            self.stops_of_fives(&opp_fives)
                .into_iter()
                .filter(|i| found.my_fours.contains(i))
                .collect()
        };
        // The fours that make the most first (open fours and four-threes,
        // then those with more threes on their other lines; board order
        // among equals): a VCF is found sooner, and the threat solver,
        // which caps its VCF searches, proves more with them (far fewer
        // nodes than board order over `bench/`).
        candidates.sort_by_key(|&i| {
            let p = self.state.patterns(i);
            let threes = p.count_at_least(me, Pattern::Block3);
            std::cmp::Reverse((self.state.threat(i, me), threes))
        });
        // With one four left, only a move with two five points can win:
        // a single four (a four-three too) is blocked and leaves no five.
        // Not where the block itself may fail: black's block under renju
        // (a forbidden point), caro's stops of a five.
        let last_four_needs_two_fives = depth == 1 && self.blocks_hold(me);
        for a in candidates {
            if last_four_needs_two_fives
                && matches!(self.state.threat(a, me), Threat::Four | Threat::FourThree)
            {
                continue;
            }
            if !self.state.is_legal(a) {
                continue;
            }
            if self.block_leads_to_known_failure(a, depth) {
                continue;
            }
            if depth >= 2 && self.blocks_hold(me) && self.state.threat(a, me) == Threat::Four {
                // Where the four itself leaves no four (a block only takes
                // points away), or with one four to come no point of two
                // five points, it fails at its block at once (see
                // `defend_fours`): not played.
                if let Some((four, open_four)) = self.after_single_four(a, me) {
                    if !four || (depth == 2 && !open_four) {
                        continue;
                    }
                }
            }
            let mark = self.vcf_trace.as_ref().map_or(0, Vec::len);
            self.state.play_lines_only(a);
            let win = self.defend_fours(depth, ply + 1);
            self.state.undo();
            if win {
                self.trace(a | STONE_MARK);
                if self.vcf_trace.is_some() && me == Color::Black && self.foul_may_turn_on(a) {
                    self.trace(ANY_POINT);
                }
                return Some(a);
            }
            if let Some(t) = &mut self.vcf_trace {
                t.truncate(mark);
            }
            // A search cut short proves no failure: nothing is cached.
            if self.abort != Abort::None || self.vcf_cut_short {
                return None;
            }
        }
        self.vcf_fails.insert(key, depth);
        None
    }

    /// Whether the side to move's four at `a` (a single one: one five
    /// point, which the defender blocks) leads, through that block, to a
    /// position already known to have no VCF within `depth - 1` fours: a
    /// transposition of fours played in another order. Answered from the
    /// hashes, without playing either stone, which is what most of the
    /// VCF's moves into known failures would otherwise cost. Not under
    /// caro (a five may be stopped elsewhere), nor where black's block
    /// under renju may be forbidden.
    fn block_leads_to_known_failure(&self, a: usize, depth: u32) -> bool {
        let me = self.state.to_move();
        if depth < 2
            || self.is_caro()
            || !matches!(self.state.threat(a, me), Threat::Four | Threat::FourThree)
        {
            return false;
        }
        let Some(block) = self.five_point_of_four(a, me) else {
            return false;
        };
        // A white stone only takes away from black's lines, so a point
        // that cannot be a foul now cannot be one after `a` either.
        if me == Color::White && self.state.may_be_foul(block) {
            return false;
        }
        let after = self.state.hash()
            ^ caro_core::zobrist::stone_key(self.state.pos(a), me)
            ^ caro_core::zobrist::stone_key(self.state.pos(block), me.opponent());
        self.vcf_fails.get(after).is_some_and(|d| d >= depth - 1)
    }

    /// What `color`'s single four on the empty point `a` would leave it,
    /// once played: whether some point would make a four (a line at
    /// [`Pattern::Block4`] or [`Pattern::Flex4`]), and whether some point
    /// would be an open four or two fours ([`Threat::OpenFour`]); each
    /// false only where certain. Read from the patterns without playing
    /// the four, for [`Searcher::defend_fours`]'s returns that need no
    /// block played. A stone on `a` changes only the lines through it:
    /// `None` (unsure) where it makes a three or more on a line other than
    /// the four's, since a point there could then make a four with it
    /// (with at most a two, none can), and where `a` makes no four. On the
    /// four's line each empty point within k is read again with the stone.
    /// Every other point keeps its fours and its threat or loses some
    /// (a black five turned overline), never gains one, so its present
    /// ones bound what is left.
    fn after_single_four(&self, a: usize, color: Color) -> Option<(bool, bool)> {
        let patterns = self.state.patterns(a);
        let d = (0..4).find(|&d| patterns.get(color, d) == Pattern::Block4)?;
        if (0..4).any(|e| e != d && patterns.get(color, e) >= Pattern::Block3) {
            return None;
        }
        let makes_four = |p: Pattern| matches!(p, Pattern::Block4 | Pattern::Flex4);
        let (mut four, mut open_four) = (false, false);
        // The points read along the four's line: up to k each way.
        let mut read: SmallVec<[usize; 20]> = SmallVec::new();
        self.state.line_with_stone(a, d, color, |j, along| {
            let lines = self.state.patterns(j);
            four |= makes_four(along) || (0..4).any(|e| e != d && makes_four(lines.get(color, e)));
            open_four |= self.state.threat_with_pattern(j, color, d, along) == Threat::OpenFour;
            read.push(j);
        });
        for &p in self.state.four_points(color) {
            let p = p as usize;
            if p == a || read.contains(&p) {
                continue;
            }
            four = true;
            open_four |= self.state.threat(p, color) == Threat::OpenFour;
        }
        Some((four, open_four))
    }

    /// The point where `color` would make five after a stone on the empty
    /// point `a`, along the one line where `a` makes a (single) four.
    fn five_point_of_four(&self, a: usize, color: Color) -> Option<usize> {
        let k = self.state.rules().k as usize;
        let board = self.state.board();
        let offsets = board.dir_offsets();
        let d = (0..4).find(|&d| self.state.patterns(a).get(color, d) == Pattern::Block4)?;
        for forward in [false, true] {
            let mut j = a;
            for _ in 1..k {
                j = if forward {
                    j + offsets[d]
                } else {
                    j - offsets[d]
                };
                match board.cell(j) {
                    // The five point makes a four with `a` empty (the
                    // five point of that four being `a`): only such points
                    // are read again with the stone on `a`.
                    Cell::Empty => {
                        if matches!(
                            self.state.patterns(j).get(color, d),
                            Pattern::Block4 | Pattern::Flex4
                        ) && self.state.pattern_with_stone(j, d, color, a, color)
                            == Pattern::Five
                        {
                            return Some(j);
                        }
                    }
                    c if c == Cell::stone(color) => {}
                    _ => break,
                }
            }
        }
        None
    }

    /// Whether the defender of `attacker`'s four can always block it on
    /// its five point: not black under renju (the point may be
    /// forbidden), nor under caro (a five may be stopped by capping it).
    fn blocks_hold(&self, attacker: Color) -> bool {
        match self.state.rules().rule {
            Rule::Renju => attacker == Color::Black,
            Rule::Caro | Rule::CaroStandard => false,
            _ => true,
        }
    }

    /// The defender is to move facing the attacker's four(s): whether every
    /// defence loses to a continued VCF.
    fn defend_fours(&mut self, depth: u32, ply: usize) -> bool {
        let defender = self.state.to_move();
        let attacker = defender.opponent();
        if self.state.has(defender, Pattern::Five) || !self.state.has(attacker, Pattern::Five) {
            return false;
        }
        let fives = self.scan_fours().opp_fives;
        let stops = self.stops_of_fives(&fives);
        if self.vcf_trace.is_some() {
            for &f in &fives {
                self.trace(f);
            }
            if stops.is_empty()
                && defender == Color::Black
                && self.state.rules().rule == Rule::Renju
            {
                // Black may not block on a forbidden point: a black stone
                // on one of its lines may make it allowed again, and
                // where the foul is a double-three, one that makes a
                // point forbidden that would turn one of the threes into a
                // straight four (the three is then false).
                for &f in &fives {
                    self.trace_lines(f);
                    for (j, d) in self.straight_four_points(f) {
                        self.trace_foul_makers(j, d);
                    }
                }
            }
        }
        // A block leaves the attacker no five, and no four if it has none
        // now (a block only takes points away), and with one four left
        // (see `vcf`) no point of two five points if it has none now: then
        // it holds, unplayed.
        if !stops.is_empty()
            && (depth == 1
                || !(self.state.has(attacker, Pattern::Block4)
                    || self.state.has(attacker, Pattern::Flex4))
                || (depth == 2
                    && self.blocks_hold(attacker)
                    && !self.state.has_open_four_point(attacker)))
        {
            return false;
        }
        // With no stop, the attacker's five comes next, unless black under
        // renju has no legal move at all: a draw.
        if stops.is_empty() && !self.state.has_legal_move() {
            return false;
        }
        let mut five_ply = ply + 1;
        for r in stops {
            self.state.play_lines_only(r);
            if self.vcf_trace.is_some() {
                self.trace_counter_fours(r, defender);
            }
            let win = self.vcf(depth - 1, ply + 1).is_some();
            self.state.undo();
            if !win {
                return false;
            }
            self.trace(r | STONE_MARK);
            five_ply = five_ply.max(self.vcf_five_ply);
        }
        self.vcf_five_ply = five_ply;
        // No stop left (or every stop loses): the attacker wins.
        self.abort == Abort::None
    }

    /// The plies a winning `line` of the side to move takes to the five:
    /// its length where its last move makes five, two more where it ends
    /// on an attacker's move the defender cannot stop (an open four, a
    /// four whose block is forbidden), `None` where it ends otherwise
    /// (cut short).
    fn line_end_plies(&mut self, line: &[usize]) -> Option<usize> {
        let n = line.len();
        if n % 2 == 0 {
            return None;
        }
        let attacker = self.state.to_move();
        for &m in line {
            self.state.play(m);
        }
        let plies = if self.state.won_at(line[n - 1], attacker) {
            Some(n)
        } else if matches!(self.generate(n, None), Gen::Lost) {
            Some(n + 2)
        } else {
            None
        };
        for _ in line {
            self.state.undo();
        }
        plies
    }

    /// The plies a VCF's win takes at most, from its `plies` (to the five
    /// of the VCF found, each defence off it losing sooner; under caro the
    /// longest of the defender's stops) and its main `line`, whose steps
    /// search afresh. Outside caro the defender's block is the only stop
    /// of a four, so the line is forced: where it ends in the five or on
    /// a four the defender cannot stop, it bounds the win too, and the
    /// shorter bound holds. Otherwise (under caro, or a line cut short)
    /// the win is never said to be shorter than its line. `caro position
    /// --best` and `--solve` both give this.
    pub(super) fn vcf_plies(&mut self, line: &[usize], plies: usize) -> usize {
        match self.line_end_plies(line) {
            Some(ends) if !self.is_caro() => ends.min(plies),
            _ => plies.max(self.line_plies(line)),
        }
    }

    /// The fours a VCF's main line may take after its first four, where
    /// the VCF found has its five at ply `plies`: the line's steps look
    /// that deep first, so that the line follows a VCF no longer than the
    /// one found.
    pub(super) fn vcf_line_fours(plies: usize) -> u32 {
        u32::try_from(plies.saturating_sub(1) / 2)
            .unwrap_or(u32::MAX)
            .saturating_sub(1)
    }

    /// The fewest plies a bound of the win `line` shows may take: those
    /// of [`Searcher::line_end_plies`], or where the line was cut short
    /// its length, made odd (the five comes on the attacker's turn).
    pub(super) fn line_plies(&mut self, line: &[usize]) -> usize {
        self.line_end_plies(line).unwrap_or(line.len() | 1)
    }
}

/// How many positions without a VCF a search may remember when it may take
/// `bytes` of memory.
pub(super) fn vcf_fail_cap(bytes: usize) -> usize {
    (bytes / BYTES_PER_VCF_FAIL).clamp(VCF_FAIL_CACHE_MIN, VCF_FAIL_CACHE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::StopFlag;
    use crate::search::testing::game;
    use crate::search::with_searcher;
    use crate::state::State;
    use crate::tt::Tt;
    use caro_core::notation::parse_pos;
    use caro_core::{BoardSize, Game, Pos};

    /// Whether the side to move wins by at most `depth` fours, by playing
    /// every point: each attacker's move must leave it a five to make, and
    /// every reply of the defender must lose in turn.
    fn naive_vcf(s: &mut State, depth: u32) -> bool {
        let me = s.to_move();
        if s.has(me, Pattern::Five) {
            return true;
        }
        if depth == 0 {
            return false;
        }
        for a in 0..s.board().cell_count() {
            if s.board().cell(a) != Cell::Empty || !s.is_legal(a) {
                continue;
            }
            s.play(a);
            let wins = s.has(me, Pattern::Five)
                && !s.has(me.opponent(), Pattern::Five)
                && naive_every_reply_loses(s, depth);
            s.undo();
            if wins {
                return true;
            }
        }
        false
    }

    /// The defender to move: whether every legal reply loses to a VCF of
    /// `depth - 1` fours.
    fn naive_every_reply_loses(s: &mut State, depth: u32) -> bool {
        for r in 0..s.board().cell_count() {
            if s.board().cell(r) != Cell::Empty || !s.is_legal(r) {
                continue;
            }
            s.play(r);
            let lost = naive_vcf(s, depth - 1);
            s.undo();
            if !lost {
                return false;
            }
        }
        true
    }

    /// White's one four whose only block is a double three for black
    /// wins at once under renju: the search must not drop it as a single
    /// four that is simply blocked.
    #[test]
    fn a_four_whose_block_is_forbidden_wins_by_itself() {
        // White c3 d3 e3 against b3; black at g3 would make two open
        // threes (g3 g4 g5 and g3 h4 i5).
        let g = game(Rule::Renju, 15, 5, "b3 c3 g4 d3 g5 e3 h4 o15 i5");
        let f3 = parse_pos("f3", g.size()).unwrap();
        let tt = Tt::new(1);
        with_searcher(&g, &tt, None, StopFlag::new(), |s| {
            assert!(naive_vcf(&mut s.state, 1));
            assert_eq!(s.vcf(1, 0).map(|i| s.state.pos(i)), Some(f3));
        });
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The VCF search (its move filters, shortcuts, failure cache and
        /// the transpositions read from it before a four is played) finds
        /// a win of one, two or three fours exactly when playing every
        /// point does, under every rule.
        #[test]
        fn vcf_matches_playing_every_point(
            stones in proptest::collection::vec((0u8..9, 0u8..9, proptest::bool::ANY), 8..34),
            rule in proptest::sample::select(vec![
                Rule::Freestyle, Rule::Standard, Rule::Renju, Rule::Caro, Rule::CaroStandard,
            ]),
            white_to_move in proptest::bool::ANY,
            k in 4u8..=6,
        ) {
            let k = if rule == Rule::Renju { 5 } else { k };
            let mut setup = caro_core::GameSetup::new(BoardSize::square(9), k, rule);
            for &(x, y, white) in &stones {
                let p = Pos::new(x, y);
                if setup.stones.iter().all(|&(q, _)| q != p) {
                    let color = if white { Color::White } else { Color::Black };
                    setup.stones.push((p, color));
                }
            }
            setup.to_move = Some(if white_to_move { Color::White } else { Color::Black });
            let Ok(game) = Game::from_setup(&setup) else {
                return Ok(());
            };
            if game.is_over() {
                return Ok(());
            }
            let tt = Tt::new(1);
            with_searcher(&game, &tt, None, StopFlag::new(), |s| {
                // With no five yet, the five point of every single four,
                // found without playing it, is the one five it makes.
                let me = s.state.to_move();
                let fours: Vec<usize> = s.state.four_points(me).iter().map(|&i| i as usize).collect();
                let no_five = !s.state.has(me, Pattern::Five);
                for a in fours.into_iter().filter(|_| no_five) {
                    if !matches!(s.state.threat(a, me), Threat::Four | Threat::FourThree) {
                        continue;
                    }
                    let predicted = s.five_point_of_four(a, me);
                    // What the four leaves, read without playing it: a
                    // "none" is certain.
                    let left = (s.state.threat(a, me) == Threat::Four)
                        .then(|| s.after_single_four(a, me))
                        .flatten();
                    s.state.play(a);
                    // The opponent is to move: its opponent's fives are ours.
                    let fives = s.scan_fours().opp_fives.to_vec();
                    let four = s.state.has(me, Pattern::Block4) || s.state.has(me, Pattern::Flex4);
                    let open_four = s.state.has_open_four_point(me);
                    s.state.undo();
                    assert_eq!(predicted.map(|f| vec![f]), Some(fives), "{rule:?}, four {a}");
                    if let Some((four_left, open_four_left)) = left {
                        assert!(four_left || !four, "{rule:?}, four {a}: a four is left");
                        assert!(open_four_left || !open_four, "{rule:?}, four {a}: an open four is left");
                    }
                }
                for depth in 1..=3 {
                    let naive = naive_vcf(&mut s.state, depth);
                    let found = s.vcf(depth, 0);
                    assert_eq!(
                        found.is_some(),
                        naive,
                        "depth {depth}, {rule:?}, {:?}",
                        game.setup_stones()
                    );
                }
            });
        }
    }
}
