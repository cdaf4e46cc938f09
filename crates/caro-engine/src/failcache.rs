//! The positions a VCF search has found to have no VCF within some
//! number of fours, kept in a table of buckets of one cache line each:
//! one probe reads one line, where a hash map of 64-bit keys reads its
//! control bytes and then its slot.

/// Slots of one bucket; a key may sit in any of them. Eight `u64`s are
/// one 64-byte cache line.
const WAYS: usize = 8;
/// The smallest table, in slots.
const MIN_SLOTS: usize = 1 << 12;
/// Bits of a slot holding the depth; the rest hold the key's high bits.
const DEPTH_BITS: u32 = 8;
const DEPTH_MASK: u64 = (1 << DEPTH_BITS) - 1;

/// Positions (Zobrist hashes) with no VCF within a stored depth, at most
/// a cap of them: as a map that takes no more entries once it holds its
/// cap, and forgets none.
///
/// A slot is one `u64`: the hash's high 56 bits and the depth (1 to 255)
/// in the low 8, 0 for an empty slot. A bucket is picked by the lowest of
/// those 56 bits, and a key matches on all of them (another position
/// passes for one in about 2^-56 of the probes; the searches' Zobrist
/// keys of 64 bits are not exact either). The table doubles once it is
/// half full or a bucket is full, so it never drops an entry: at most
/// about 16 to 32 bytes an entry.
#[derive(Clone, Debug)]
pub(crate) struct FailCache {
    buckets: Vec<Bucket>,
    /// Entries held.
    held: usize,
    /// Most entries it takes.
    cap: usize,
}

/// The slots of one bucket, on one cache line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(align(64))]
struct Bucket([u64; WAYS]);

impl FailCache {
    /// An empty cache that takes at most `cap` positions.
    pub(crate) fn new(cap: usize) -> FailCache {
        FailCache {
            buckets: vec![Bucket::default(); MIN_SLOTS / WAYS],
            held: 0,
            cap,
        }
    }

    /// Lets the cache take at most `cap` positions from now on.
    pub(crate) fn set_cap(&mut self, cap: usize) {
        self.cap = cap;
    }

    /// The bucket of `hash`.
    #[inline]
    fn bucket(&self, hash: u64) -> usize {
        (hash >> DEPTH_BITS) as usize & (self.buckets.len() - 1)
    }

    /// Slots in all.
    fn slots(&self) -> usize {
        self.buckets.len() * WAYS
    }

    /// The depth within which `hash` is known to have no VCF, if it is.
    #[inline]
    pub(crate) fn get(&self, hash: u64) -> Option<u32> {
        let key = hash & !DEPTH_MASK;
        self.buckets[self.bucket(hash)]
            .0
            .iter()
            .find(|&&s| s != 0 && s & !DEPTH_MASK == key)
            .map(|&s| (s & DEPTH_MASK) as u32)
    }

    /// Records that `hash` has no VCF within `depth` fours, the deeper
    /// of two records kept. Nothing once the cache holds its cap (not
    /// even a deeper depth for a position it holds), so that a full cache
    /// answers as it did when it filled. A depth past 255 is kept as 255 (a search deeper than that
    /// then finds no record: slower, never wrong); a depth of 0 is not
    /// kept.
    pub(crate) fn insert(&mut self, hash: u64, depth: u32) {
        let kept = u64::from(depth.min(DEPTH_MASK as u32));
        if kept == 0 || self.held >= self.cap {
            return;
        }
        let b = self.bucket(hash);
        let key = hash & !DEPTH_MASK;
        let bucket = &mut self.buckets[b].0;
        if let Some(s) = bucket
            .iter_mut()
            .find(|s| **s != 0 && **s & !DEPTH_MASK == key)
        {
            *s = key | (*s & DEPTH_MASK).max(kept);
            return;
        }
        let Some(s) = bucket.iter_mut().find(|s| **s == 0) else {
            // A full bucket: the table grows and the key goes in then.
            self.grow();
            return self.insert(hash, depth);
        };
        *s = key | kept;
        self.held += 1;
        if self.held * 2 > self.slots() {
            self.grow();
        }
    }

    /// Doubles the table, every entry kept (a bucket's entries may split
    /// between the two buckets it becomes, never crowd one).
    fn grow(&mut self) {
        let doubled = vec![Bucket::default(); 2 * self.buckets.len()];
        let old = std::mem::replace(&mut self.buckets, doubled);
        self.held = 0;
        for s in old.iter().flat_map(|b| b.0).filter(|&s| s != 0) {
            // The bucket comes from the key's bits above the depth's.
            let b = self.bucket(s);
            let slot = self.buckets[b]
                .0
                .iter_mut()
                .find(|s| **s == 0)
                .expect("a doubled bucket holds what one old bucket held");
            *slot = s;
            self.held += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Well-spread 64-bit keys, as Zobrist hashes are.
    fn key(n: u64) -> u64 {
        let mut x = n.wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }

    #[test]
    fn the_cache_keeps_every_failure_at_its_deepest_up_to_its_cap() {
        let mut cache = FailCache::new(50_000);
        for n in 0..40_000 {
            cache.insert(key(n), 1 + (n % 7) as u32);
        }
        for n in 0..40_000 {
            cache.insert(key(n), 3);
        }
        for n in 0..40_000 {
            assert_eq!(
                cache.get(key(n)),
                Some((1 + (n % 7) as u32).max(3)),
                "key {n}"
            );
        }
        assert!((40_000..80_000).all(|n| cache.get(key(n)).is_none()));
        // Doubled at half full: 131,072 slots (more only where a bucket
        // filled first).
        assert!(cache.slots() <= 1 << 18, "{} slots", cache.slots());
    }

    #[test]
    fn at_its_cap_the_cache_takes_nothing_more_and_forgets_nothing() {
        let mut cache = FailCache::new(5_000);
        for n in 0..20_000 {
            cache.insert(key(n), 2);
        }
        assert!((0..5_000).all(|n| cache.get(key(n)) == Some(2)));
        assert!((5_000..20_000).all(|n| cache.get(key(n)).is_none()));
        // Not even a deeper record of a position held.
        cache.insert(key(7), 9);
        assert_eq!(cache.get(key(7)), Some(2));
        cache.set_cap(5_001);
        cache.insert(key(7), 9);
        assert_eq!(cache.get(key(7)), Some(9));
    }

    #[test]
    fn the_cache_answers_as_the_capped_map_it_replaces() {
        // The reference: a map that takes (or deepens) entries only while
        // it holds fewer than its cap.
        let cap = 3_000;
        let mut map = std::collections::HashMap::new();
        let mut cache = FailCache::new(cap);
        for n in 0..20_000u64 {
            let k = key(n % 4_000);
            let depth = 1 + (key(n + 7) % 12) as u32;
            if map.len() < cap {
                let known = map.entry(k).or_insert(depth);
                *known = (*known).max(depth);
            }
            cache.insert(k, depth);
            if n % 1_000 == 999 {
                assert!((0..4_000).all(|m| cache.get(key(m)) == map.get(&key(m)).copied()));
            }
        }
    }

    #[test]
    fn depths_are_kept_between_one_and_255() {
        let mut cache = FailCache::new(10);
        cache.insert(key(1), 0);
        assert_eq!(cache.get(key(1)), None);
        cache.insert(key(2), 1_000);
        assert_eq!(cache.get(key(2)), Some(255));
    }
}
