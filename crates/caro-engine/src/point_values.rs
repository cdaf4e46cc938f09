//! The static evaluation's values: one for each combination of a point's
//! four line patterns, for the side to move and for the other side.
//!
//! A point whose lines hold, say, an open two and a closed three is worth
//! what that combination is worth, not the sum of what each line is worth
//! alone: the values were fitted (`caro train`, docs/training.md) so that
//! the evaluation predicts what a search of 10,000 nodes finds in
//! self-play positions of the rule. Under renju black's values of the points where a stone of its
//! would be a foul (an overline, two fours, two open threes, and no five)
//! are zero: black cannot play them.
//!
//! On top of the point sum, each side's numbers of threat points are
//! valued as a whole ([`CountValues`]): a point sum charges the side to
//! move in full for each of the other side's double-three and four-three
//! points, where one move often answers two of them, and values its own
//! open-three points with no regard to how many there are. The count
//! values are fitted with the point values.
//!
//! Last, a table over both sides' threats at once ([`BothSidesValues`])
//! values what the counts of one side alone cannot: whose move it is when
//! both sides have a four, or an open three against a four-three.
//!
//! Every table is kept per colour: black's and white's points, counts and
//! threats are worth what the data says each is worth (under renju the
//! two sides play different rules; under every rule black moved first).

use std::sync::OnceLock;

use caro_core::{Color, Rule};

use crate::pattern::Pattern;
use crate::state::{Threat, COUNTED_THREATS, MAX_COUNT};

mod caro;
mod freestyle;
mod renju;

/// Fitted point values of one rule, per colour and role: row `colour * 2
/// + role` (black as the side to move, black as the other side, white as
/// the side to move, white as the other side), each by combination of four
/// line patterns (see [`combination`]).
pub(crate) type FittedTable = [[i16; COMBINATIONS]; 4];

/// Fitted count values of one rule: black's, then white's.
pub(crate) type FittedCounts = [CountValues; 2];

/// Fitted both-sides values of one rule: with black to move, then with
/// white to move.
pub(crate) type FittedBothSides = [BothSidesValues; 2];

/// The fitted table the engine plays `rule` with: one for freestyle and
/// standard (`point_values/freestyle.rs`), one for renju (`renju.rs`) and
/// one for caro and caro-standard (`caro.rs`), each written by `caro
/// train --counts`.
pub(crate) fn fitted_table(rule: Rule) -> &'static FittedTable {
    match rule {
        Rule::Freestyle | Rule::Standard => &freestyle::FITTED,
        Rule::Renju => &renju::FITTED,
        Rule::Caro | Rule::CaroStandard => &caro::FITTED,
    }
}

/// The count values the engine plays `rule` with: each rule file's
/// `COUNTS`, fitted with its point values by `caro train --counts`.
pub(crate) fn fitted_counts(rule: Rule) -> &'static FittedCounts {
    match rule {
        Rule::Freestyle | Rule::Standard => &freestyle::COUNTS,
        Rule::Renju => &renju::COUNTS,
        Rule::Caro | Rule::CaroStandard => &caro::COUNTS,
    }
}

/// The both-sides values the engine plays `rule` with: each rule file's
/// `BOTH_SIDES`, fitted with its point values by `caro train --counts`.
pub(crate) fn fitted_both_sides(rule: Rule) -> &'static FittedBothSides {
    match rule {
        Rule::Freestyle | Rule::Standard => &freestyle::BOTH_SIDES,
        Rule::Renju => &renju::BOTH_SIDES,
        Rule::Caro | Rule::CaroStandard => &caro::BOTH_SIDES,
    }
}

/// Keys of the both-sides table: six threat bits of the side to move
/// ([`threat_bits`]) above six of the other side.
pub(crate) const BOTH_SIDES_KEYS: usize = 1 << 12;

/// What the two sides' threats are worth together, from the side to
/// move's view, by [`both_sides_key`].
pub(crate) type BothSidesValues = [i16; BOTH_SIDES_KEYS];

/// Six bits of one side's threats, by its numbers of threat points
/// (indexed by [`Threat`]): a four point, an open-three point, two or
/// more of them, a double-three point (when `double_threes_count`; not
/// for renju black, whose double threes are fouls), a four-three point,
/// an open-four point.
#[inline]
pub(crate) fn threat_bits(counts: &[u32; 7], double_threes_count: bool) -> usize {
    let has = |t: Threat, n: u32| usize::from(counts[t as usize] >= n);
    has(Threat::Four, 1)
        | has(Threat::OpenThree, 1) << 1
        | has(Threat::OpenThree, 2) << 2
        | (has(Threat::DoubleThree, 1) & usize::from(double_threes_count)) << 3
        | has(Threat::FourThree, 1) << 4
        | has(Threat::OpenFour, 1) << 5
}

/// The both-sides key of the side to move's and the other side's threat
/// bits.
#[inline]
pub(crate) fn both_sides_key(mover: usize, other: usize) -> usize {
    mover << 6 | other
}

/// Whether `color`'s double-three points count under `rule` (not renju
/// black's: they are fouls).
pub(crate) fn double_threes_count(rule: Rule, color: Color) -> bool {
    !(rule == Rule::Renju && color == Color::Black)
}

/// Combinations of four line patterns, as multisets of four of the nine
/// patterns: C(12, 4).
pub(crate) const COMBINATIONS: usize = 495;
/// Four line patterns, each of nine, as one number (`((d0 * 9 + d1) * 9 +
/// d2) * 9 + d3`): the state's threat key of a point.
pub(crate) const KEYS: usize = 9 * 9 * 9 * 9;

/// What a point is worth by its threat key, to its colour as the side to
/// move and as the other side (side by side: one cache line read per
/// change of a point's patterns).
pub(crate) struct PointValues {
    pub(crate) by_key: [[i16; 2]; KEYS],
}

/// The four patterns of a threat key.
pub(crate) fn patterns_of(key: usize) -> [u8; 4] {
    [
        (key / 729) as u8,
        (key / 81 % 9) as u8,
        (key / 9 % 9) as u8,
        (key % 9) as u8,
    ]
}

/// The combination of four patterns: its place among the sorted
/// quadruples `a ≤ b ≤ c ≤ d` in lexicographic order (the rank of a
/// multiset: the quadruples before it, counted from the first pattern
/// that differs).
pub(crate) fn combination(patterns: [u8; 4]) -> usize {
    let mut p = patterns.map(usize::from);
    p.sort_unstable();
    // Sorted quadruples of patterns from `low` to 8 with `len` places:
    // C(9 - low + len - 1, len).
    let count = |low: usize, len: usize| -> usize {
        let n = 9 - low + len - 1;
        (0..len).fold(1, |acc, i| acc * (n - i) / (i + 1))
    };
    let mut index = 0;
    let mut low = 0;
    for (place, &v) in p.iter().enumerate() {
        let len = 3 - place;
        index += (low..v).map(|x| count(x, len)).sum::<usize>();
        low = v;
    }
    index
}

/// Whether a black stone on a point with these patterns may be a renju
/// foul (as [`crate::state::State::may_be_foul`] reads it, less the open
/// four that a single line can make legally).
pub(crate) fn may_be_foul(p: [u8; 4]) -> bool {
    let has = |x: Pattern| p.contains(&(x as u8));
    let fours = p
        .iter()
        .filter(|&&v| v == Pattern::Block4 as u8 || v == Pattern::Flex4 as u8)
        .count();
    let threes = p.iter().filter(|&&v| v == Pattern::Flex3 as u8).count();
    !has(Pattern::Five) && (has(Pattern::Overline) || fours >= 2 || threes >= 2)
}

/// `color`'s rows of `table` by threat key (renju black's foul points
/// worth nothing where `fouls_zero`).
fn build(table: &FittedTable, color: Color, fouls_zero: bool) -> PointValues {
    let mut v = PointValues {
        by_key: [[0; 2]; KEYS],
    };
    let (mover, other) = (&table[2 * color.index()], &table[2 * color.index() + 1]);
    for key in 0..KEYS {
        let p = patterns_of(key);
        if fouls_zero && may_be_foul(p) {
            continue;
        }
        let c = combination(p);
        v.by_key[key] = [mover[c], other[c]];
    }
    v
}

/// The point values of `color` under `rule`.
pub(crate) fn point_values(rule: Rule, color: Color) -> &'static PointValues {
    static FREESTYLE: [OnceLock<PointValues>; 2] = [OnceLock::new(), OnceLock::new()];
    static RENJU: [OnceLock<PointValues>; 2] = [OnceLock::new(), OnceLock::new()];
    static CARO: [OnceLock<PointValues>; 2] = [OnceLock::new(), OnceLock::new()];
    let table = fitted_table(rule);
    let fouls_zero = rule == Rule::Renju && color == Color::Black;
    let values = match rule {
        Rule::Renju => &RENJU,
        Rule::Freestyle | Rule::Standard => &FREESTYLE,
        Rule::Caro | Rule::CaroStandard => &CARO,
    };
    values[color.index()].get_or_init(|| build(table, color, fouls_zero))
}

/// What a colour's numbers of threat points are worth, from the side to
/// move's view: `[when the colour is the side to move, when it is the
/// other side][threat kind, as COUNTED_THREATS][number of points, the last
/// for MAX_COUNT or more]`.
pub(crate) type CountValues = [[[i16; MAX_COUNT + 1]; COUNTED_THREATS.len()]; 2];

/// The count values of `color` under `rule`. Under renju black's double
/// threes count for nothing: each is a foul black cannot play.
pub(crate) fn count_values(rule: Rule, color: Color) -> &'static CountValues {
    static RENJU_BLACK: OnceLock<CountValues> = OnceLock::new();
    if rule == Rule::Renju && color == Color::Black {
        RENJU_BLACK.get_or_init(|| {
            let mut v = fitted_counts(Rule::Renju)[Color::Black.index()];
            let d3 = COUNTED_THREATS
                .iter()
                .position(|&t| t == Threat::DoubleThree)
                .unwrap_or(0);
            for role in &mut v {
                role[d3] = [0; MAX_COUNT + 1];
            }
            v
        })
    } else {
        &fitted_counts(rule)[color.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_are_numbered_once_each_whatever_the_order() {
        let mut seen = vec![false; COMBINATIONS];
        for key in 0..KEYS {
            let p = patterns_of(key);
            let c = combination(p);
            let mut r = p;
            r.reverse();
            assert_eq!(combination(r), c);
            seen[c] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(combination([0; 4]), 0);
        assert_eq!(combination([8; 4]), COMBINATIONS - 1);
        // Lexicographic order, as the fitted table is laid out.
        let mut n = 0;
        for a in 0..9u8 {
            for b in a..9 {
                for c in b..9 {
                    for d in c..9 {
                        assert_eq!(combination([d, b, a, c]), n);
                        n += 1;
                    }
                }
            }
        }
    }

    #[test]
    fn an_empty_point_is_worth_nothing_and_a_four_more_than_a_two() {
        for rule in [Rule::Freestyle, Rule::Renju] {
            for color in [Color::Black, Color::White] {
                let v = point_values(rule, color);
                assert_eq!((v.by_key[0][0], v.by_key[0][1]), (0, 0));
                let two = Pattern::Flex2 as usize;
                let four = Pattern::Block4 as usize;
                assert!(v.by_key[four][0] > v.by_key[two][0]);
                assert!(v.by_key[four][1] > v.by_key[two][1]);
            }
        }
    }

    #[test]
    fn renju_black_double_threes_count_for_nothing() {
        let d3 = COUNTED_THREATS
            .iter()
            .position(|&t| t == Threat::DoubleThree)
            .unwrap();
        // The other side's double-three point: the point sum charges the
        // side to move for each in full, the count gives some back.
        assert!(count_values(Rule::Freestyle, Color::Black)[1][d3][1] > 0);
        assert!(count_values(Rule::Renju, Color::White)[1][d3][1] > 0);
        for role in count_values(Rule::Renju, Color::Black) {
            assert_eq!(role[d3], [0; MAX_COUNT + 1]);
        }
        // No points count nothing.
        for rule in [Rule::Freestyle, Rule::Renju, Rule::Caro] {
            for color in [Color::Black, Color::White] {
                for role in count_values(rule, color) {
                    assert!(role.iter().all(|row| row[0] == 0));
                }
            }
        }
    }

    #[test]
    fn renju_black_fouls_are_worth_nothing_to_black_only() {
        let key = (Pattern::Flex3 as usize) * 9 + Pattern::Flex3 as usize;
        assert_eq!(point_values(Rule::Renju, Color::Black).by_key[key][1], 0);
        assert!(point_values(Rule::Renju, Color::White).by_key[key][1] > 0);
        assert!(point_values(Rule::Freestyle, Color::Black).by_key[key][1] > 0);
    }
}
