//! The transposition table: a fixed-size array of entries, replaced by
//! depth, sized by a memory budget.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// Kind of bound an entry's score is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Bound {
    /// Exact score.
    Exact = 0,
    /// At least this score (a beta cutoff).
    Lower = 1,
    /// At most this score (failed low).
    Upper = 2,
}

/// One stored search result.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Full hash of the position, 0 for an empty slot.
    pub key: u64,
    /// Best move's cell index, `u16::MAX` for none.
    pub best: u16,
    /// Score, with win distances relative to this node.
    pub score: i32,
    /// Depth searched.
    pub depth: i16,
    /// Kind of bound.
    pub bound: Bound,
    /// Search generation, for replacement.
    pub generation: u8,
}

/// The table, shared by the threads of one search: each slot is two
/// atomic words, the entry packed into one and the key xor-ed with it in
/// the other, so that a slot torn by two threads writing at once reads as
/// empty rather than as a wrong entry (Hyatt's lockless hashing).
pub struct Tt {
    slots: Vec<[AtomicU64; 2]>,
    generation: AtomicU8,
}

/// Bits of a packed entry: best move (12), score (22, offset), depth + 1
/// (8), bound (2), generation (8).
const BEST_BITS: u32 = 12;
const SCORE_BITS: u32 = 22;
const DEPTH_BITS: u32 = 8;
const NO_BEST: u64 = (1 << BEST_BITS) - 1;
const SCORE_OFFSET: i64 = 1 << (SCORE_BITS - 1);

fn pack(best: u16, score: i32, depth: i16, bound: Bound, generation: u8) -> u64 {
    let best = if best == u16::MAX {
        NO_BEST
    } else {
        u64::from(best).min(NO_BEST - 1)
    };
    let score = (i64::from(score) + SCORE_OFFSET).clamp(0, 2 * SCORE_OFFSET - 1) as u64;
    let depth = (i32::from(depth) + 1).clamp(0, (1 << DEPTH_BITS) - 1) as u64;
    best | score << BEST_BITS
        | depth << (BEST_BITS + SCORE_BITS)
        | (bound as u64) << (BEST_BITS + SCORE_BITS + DEPTH_BITS)
        | u64::from(generation) << (BEST_BITS + SCORE_BITS + DEPTH_BITS + 2)
}

fn unpack(key: u64, data: u64) -> Entry {
    let field = |shift: u32, bits: u32| (data >> shift) & ((1 << bits) - 1);
    let best = field(0, BEST_BITS);
    let score = field(BEST_BITS, SCORE_BITS) as i64 - SCORE_OFFSET;
    let depth = field(BEST_BITS + SCORE_BITS, DEPTH_BITS) as i16 - 1;
    let bound = match field(BEST_BITS + SCORE_BITS + DEPTH_BITS, 2) {
        1 => Bound::Lower,
        2 => Bound::Upper,
        _ => Bound::Exact,
    };
    Entry {
        key,
        best: if best == NO_BEST {
            u16::MAX
        } else {
            best as u16
        },
        score: score as i32,
        depth,
        bound,
        generation: field(BEST_BITS + SCORE_BITS + DEPTH_BITS + 2, 8) as u8,
    }
}

impl Tt {
    /// A table using about `megabytes` of memory (at least 1,024 entries).
    #[must_use]
    pub fn new(megabytes: usize) -> Tt {
        let n = (megabytes * 1024 * 1024 / std::mem::size_of::<[AtomicU64; 2]>())
            .max(1024)
            .next_power_of_two()
            / 2;
        Tt {
            slots: (0..n.max(1024))
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
            generation: AtomicU8::new(0),
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        for slot in &mut self.slots {
            *slot = [AtomicU64::new(0), AtomicU64::new(0)];
        }
        self.generation = AtomicU8::new(0);
    }

    /// The memory the table's slots take.
    #[must_use]
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(self.slots.as_slice())
    }

    /// Starts a new search (older entries become easier to replace).
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    fn slot(&self, key: u64) -> &[AtomicU64; 2] {
        &self.slots[(key as usize) & (self.slots.len() - 1)]
    }

    /// The entry for `key`, if stored.
    #[inline]
    #[must_use]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let [check, data] = self.slot(key);
        let data = data.load(Ordering::Relaxed);
        let check = check.load(Ordering::Relaxed);
        (check ^ data == key && check != 0).then(|| unpack(key, data))
    }

    /// Stores a result, keeping a deeper entry of the current search.
    #[inline]
    pub fn store(&self, key: u64, best: Option<usize>, score: i32, depth: i32, bound: Bound) {
        let slot = self.slot(key);
        let old_data = slot[1].load(Ordering::Relaxed);
        let old_key = slot[0].load(Ordering::Relaxed) ^ old_data;
        let old = unpack(old_key, old_data);
        let generation = self.generation.load(Ordering::Relaxed);
        if old_key != key && old.generation == generation && old.depth as i32 > depth + 2 {
            return;
        }
        let best = match best {
            Some(b) => b as u16,
            None if old_key == key => old.best,
            None => u16::MAX,
        };
        let data = pack(
            best,
            score,
            depth.clamp(-1, i16::MAX as i32) as i16,
            bound,
            generation,
        );
        slot[0].store(key ^ data, Ordering::Relaxed);
        slot[1].store(data, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let tt = Tt::new(1);
        for (best, score, depth, bound) in [
            (Some(3599), -1_000_000, 60, Bound::Lower),
            (None, 999_999, -1, Bound::Upper),
            (Some(0), 0, 0, Bound::Exact),
        ] {
            let key = 0x1234_5678_9abc_def0 ^ score as u64;
            tt.store(key, best, score, depth, bound);
            let e = tt.probe(key).unwrap();
            assert_eq!(e.best, best.map_or(u16::MAX, |b| b as u16));
            assert_eq!(
                (e.score, i32::from(e.depth), e.bound),
                (score, depth, bound)
            );
        }
        assert!(tt.probe(42).is_none());
    }
}
