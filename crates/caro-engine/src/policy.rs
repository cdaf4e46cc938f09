//! Move ordering by table: what an empty point is worth to try first, by
//! the combination of its four line patterns for the side to move and for
//! the other side, per colour to move. `caro train --policy`
//! (docs/training.md) fits the values to the moves a search of 10,000
//! nodes chose in self-play positions of the rule; the search adds its
//! killer, hash-move and history scores to them (`search/movepick.rs`).

use std::sync::OnceLock;

use caro_core::{Color, Rule};

use crate::point_values::{combination, patterns_of, COMBINATIONS, KEYS};

mod caro;
mod freestyle;
mod renju;

/// The fitted move-ordering values the engine plays `rule` with: each
/// rule's file's `POLICY` (`policy/freestyle.rs` for freestyle and
/// standard, `renju.rs`, `caro.rs` for caro and caro-standard), per
/// colour to move and by combination: row
/// `colour * 2` for the point's own patterns, `colour * 2 + 1` for the
/// other side's, in [`POLICY_UNITS`] a unit of log-odds.
pub(crate) fn fitted_policy(rule: Rule) -> &'static PolicyTable {
    match rule {
        Rule::Freestyle | Rule::Standard => &freestyle::POLICY,
        Rule::Renju => &renju::POLICY,
        Rule::Caro | Rule::CaroStandard => &caro::POLICY,
    }
}

/// Move-ordering values of one rule: per colour to move, by combination
/// of the point's patterns for the side to move (row `colour * 2`) and for
/// the other side (row `colour * 2 + 1`).
pub(crate) type PolicyTable = [[i32; COMBINATIONS]; 4];

/// Ordering units of one unit of the policy's log-odds: a point one unit
/// more likely to be the search's move scores this much higher. The
/// search's history scores are added to the same sum.
pub(crate) const POLICY_UNITS: f64 = 100.0;

/// What a point is worth to try first for one colour to move, by threat
/// key: `[by the point's key for the side to move, by its key for the other
/// side]`.
pub(crate) struct PolicyValues {
    pub(crate) by_key: [[i32; 2]; KEYS],
}

/// The move-ordering values of `color` to move under `rule`.
pub(crate) fn policy_values(rule: Rule, color: Color) -> &'static PolicyValues {
    static FREESTYLE: [OnceLock<PolicyValues>; 2] = [OnceLock::new(), OnceLock::new()];
    static RENJU: [OnceLock<PolicyValues>; 2] = [OnceLock::new(), OnceLock::new()];
    static CARO: [OnceLock<PolicyValues>; 2] = [OnceLock::new(), OnceLock::new()];
    let values = match rule {
        Rule::Renju => &RENJU,
        Rule::Freestyle | Rule::Standard => &FREESTYLE,
        Rule::Caro | Rule::CaroStandard => &CARO,
    };
    values[color.index()].get_or_init(|| {
        let table = fitted_policy(rule);
        let (own, other) = (&table[2 * color.index()], &table[2 * color.index() + 1]);
        let mut v = PolicyValues {
            by_key: [[0; 2]; KEYS],
        };
        for (key, entry) in v.by_key.iter_mut().enumerate() {
            let c = combination(patterns_of(key));
            *entry = [own[c], other[c]];
        }
        v
    })
}

/// The hand-set move-ordering values a policy fit starts from (and keeps
/// for combinations its data never shows, such as a five): for the side
/// to move, a value per line pattern plus a bonus by the point's threat;
/// for the other side, smaller values per pattern and half the bonus.
/// The same for both colours.
#[cfg(test)]
#[must_use]
pub(crate) fn hand_set_policy() -> PolicyTable {
    /// Per line pattern for the side to move, indexed by [`Pattern`].
    const ATTACK: [i32; 9] = [0, 4, 12, 14, 60, 70, 400, 10_000, 0];
    /// Per line pattern for the other side (a point that spoils its shape).
    const DEFEND: [i32; 9] = [0, 3, 9, 10, 45, 55, 300, 8_000, 0];
    /// By the point's threat, in [`Threat`] order.
    const THREAT_BONUS: [i32; 7] = [0, 100, 150, 800, 2_000, 5_000, 20_000];
    let mut table = [[0; COMBINATIONS]; 4];
    for key in 0..KEYS {
        let p = patterns_of(key);
        let c = combination(p);
        let bonus = THREAT_BONUS[crate::state::threat_of_key(key) as usize];
        let own: i32 = p.iter().map(|&v| ATTACK[usize::from(v)]).sum::<i32>() + bonus;
        let other: i32 = p.iter().map(|&v| DEFEND[usize::from(v)]).sum::<i32>() + bonus / 2;
        for colour in 0..2 {
            table[2 * colour][c] = own;
            table[2 * colour + 1][c] = other;
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Pattern;

    #[test]
    fn combinations_the_data_never_shows_keep_the_hand_set_values() {
        // A point that makes a five is never a quiet choice: no fit moves
        // its value, and it stays the first point to try.
        let hand = hand_set_policy();
        let five = [Pattern::Five as u8, 0, 0, 0];
        let c = combination(five);
        for rule in Rule::ALL {
            let table = fitted_policy(rule);
            for row in 0..4 {
                assert_eq!(table[row][c], hand[row][c], "{rule}");
            }
            for color in Color::ALL {
                let values = policy_values(rule, color);
                let five_key = Pattern::Five as usize * 729;
                let best_other = values
                    .by_key
                    .iter()
                    .map(|v| v[0])
                    .filter(|&v| v < values.by_key[five_key][0])
                    .count();
                assert!(best_other > KEYS / 2, "{rule} {color}");
            }
        }
    }

    #[test]
    fn an_empty_line_is_worth_least() {
        for rule in Rule::ALL {
            for color in Color::ALL {
                let v = policy_values(rule, color);
                let two = Pattern::Flex2 as usize;
                assert!(v.by_key[two][0] > v.by_key[0][0], "{rule} {color}");
            }
        }
    }
}
