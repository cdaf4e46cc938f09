//! Zobrist keys: one random 64-bit key per (point, colour), fixed at compile
//! time so hashes are the same in every run and on every machine.

use crate::pos::{Color, Pos, MAX_SIDE};

const SIDE: usize = MAX_SIDE as usize;
const KEYS: usize = SIDE * SIDE * 2;

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

const fn make_keys() -> [u64; KEYS] {
    let mut keys = [0u64; KEYS];
    let mut state = 0x00C0_FFEE_CA40_2026u64;
    let mut i = 0;
    while i < KEYS {
        let (next, key) = splitmix64(state);
        state = next;
        keys[i] = key;
        i += 1;
    }
    keys
}

static STONE_KEYS: [u64; KEYS] = make_keys();

/// Key XORed into a hash when white is to move.
pub const WHITE_TO_MOVE: u64 = 0x5A17_E5EE_D0C0_FFEE;

/// The key of a stone of `color` at `pos`. Independent of the board's size,
/// so the same stones hash the same on any board.
#[inline]
#[must_use]
pub fn stone_key(pos: Pos, color: Color) -> u64 {
    STONE_KEYS[(pos.y as usize * SIDE + pos.x as usize) * 2 + color.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct() {
        let mut all: Vec<u64> = STONE_KEYS.to_vec();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), KEYS);
    }
}
