//! The threat a point holds for one colour, its four direction patterns
//! taken together ([`Threat`]): one lookup in a table indexed by the
//! patterns, whose index follows each pattern change by a step.

use crate::pattern::Pattern;

/// The kind of threat a point holds for one colour, all directions taken
/// together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Threat {
    /// Nothing forcing.
    None,
    /// A single four.
    Four,
    /// An open three (makes an open four).
    OpenThree,
    /// Two open threes (a winning double if legal).
    DoubleThree,
    /// A four and an open three.
    FourThree,
    /// An open four or two fours: wins next move.
    OpenFour,
    /// A five.
    Five,
}

/// The threats whose number of points the evaluation values as a whole
/// (see [`super::State::evaluate`]): how many points make a four, an
/// open three, a double three, a four-three, an open four.
pub const COUNTED_THREATS: [Threat; 5] = [
    Threat::Four,
    Threat::OpenThree,
    Threat::DoubleThree,
    Threat::FourThree,
    Threat::OpenFour,
];

/// The largest number of points of one threat the evaluation tells
/// apart: more count as this many.
pub const MAX_COUNT: usize = 4;

/// The threat of four direction patterns (values 0..9 each), indexed
/// `((d0 * 9 + d1) * 9 + d2) * 9 + d3`: [`super::State::threat`] is one
/// lookup.
pub(super) static THREATS: [Threat; 9 * 9 * 9 * 9] = threat_table();

const fn threat_table() -> [Threat; 9 * 9 * 9 * 9] {
    let mut table = [Threat::None; 9 * 9 * 9 * 9];
    let mut key = 0;
    while key < table.len() {
        let (mut fives, mut flex4, mut fours, mut threes) = (0, 0, 0, 0);
        let mut rest = key;
        let mut n = 0;
        while n < 4 {
            let v = (rest % 9) as u8;
            rest /= 9;
            if v == Pattern::Five as u8 {
                fives += 1;
            } else if v == Pattern::Flex4 as u8 {
                flex4 += 1;
            } else if v == Pattern::Block4 as u8 {
                fours += 1;
            } else if v == Pattern::Flex3 as u8 {
                threes += 1;
            }
            n += 1;
        }
        table[key] = if fives > 0 {
            Threat::Five
        } else if flex4 > 0 || fours >= 2 {
            Threat::OpenFour
        } else if fours == 1 && threes > 0 {
            Threat::FourThree
        } else if fours == 1 {
            Threat::Four
        } else if threes >= 2 {
            Threat::DoubleThree
        } else if threes == 1 {
            Threat::OpenThree
        } else {
            Threat::None
        };
        key += 1;
    }
    table
}

/// A threat-table key with direction `d`'s pattern changed from `old`
/// to `new`.
#[inline(always)]
pub(super) fn shifted_threat_key(key: u16, d: usize, old: u8, new: u8) -> u16 {
    (i32::from(key) + (i32::from(new) - i32::from(old)) * THREAT_KEY_STEP[d]) as u16
}

/// What a pattern step in direction `d` adds to a threat-table index.
const THREAT_KEY_STEP: [i32; 4] = [729, 81, 9, 1];
