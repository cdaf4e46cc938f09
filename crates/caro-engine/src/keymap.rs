//! Hash maps keyed by Zobrist hashes. The keys are already uniformly
//! random 64-bit numbers, so hashing them again (std's SipHash) only costs
//! time: [`KeyMap`] uses the key itself.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map from a position's Zobrist hash (or a mix of one) to `V`.
pub(crate) type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

/// A [`Hasher`] that passes a `u64` key through unchanged.
#[derive(Clone, Copy, Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    /// Any other key type still gets a usable hash (FNV-1a over its
    /// bytes); the maps here only ever hash `u64`s.
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0 ^ 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = h;
    }

    #[inline]
    fn write_u64(&mut self, key: u64) {
        self.0 = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_its_own_hash_and_the_map_works() {
        let mut h = KeyHasher::default();
        h.write_u64(0x1234_5678_9abc_def0);
        assert_eq!(h.finish(), 0x1234_5678_9abc_def0);
        let mut map = KeyMap::default();
        for k in 0..1000u64 {
            map.insert(k.wrapping_mul(0x9E37_79B9_7F4A_7C15), k);
        }
        for k in 0..1000u64 {
            assert_eq!(map.get(&k.wrapping_mul(0x9E37_79B9_7F4A_7C15)), Some(&k));
        }
    }
}
