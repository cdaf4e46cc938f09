//! The transposition table: a fixed-size array of entries, replaced by
//! depth, sized by a memory budget.

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

const EMPTY: Entry = Entry {
    key: 0,
    best: u16::MAX,
    score: 0,
    depth: -1,
    bound: Bound::Exact,
    generation: 0,
};

/// The table.
pub struct Tt {
    entries: Vec<Entry>,
    generation: u8,
}

impl Tt {
    /// A table using about `megabytes` of memory (at least 1,024 entries).
    #[must_use]
    pub fn new(megabytes: usize) -> Tt {
        let n = (megabytes * 1024 * 1024 / std::mem::size_of::<Entry>())
            .max(1024)
            .next_power_of_two()
            / 2;
        Tt {
            entries: vec![EMPTY; n.max(1024)],
            generation: 0,
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.entries.fill(EMPTY);
        self.generation = 0;
    }

    /// Starts a new search (older entries become easier to replace).
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.entries.len() - 1)
    }

    /// The entry for `key`, if stored.
    #[inline]
    #[must_use]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = self.entries[self.slot(key)];
        (e.key == key).then_some(e)
    }

    /// Stores a result, keeping a deeper entry of the current search.
    #[inline]
    pub fn store(&mut self, key: u64, best: Option<usize>, score: i32, depth: i32, bound: Bound) {
        let slot = self.slot(key);
        let old = self.entries[slot];
        if old.key != key && old.generation == self.generation && old.depth as i32 > depth + 2 {
            return;
        }
        let best = match best {
            Some(b) => b as u16,
            None if old.key == key => old.best,
            None => u16::MAX,
        };
        self.entries[slot] = Entry {
            key,
            best,
            score,
            depth: depth.clamp(-1, i16::MAX as i32) as i16,
            bound,
            generation: self.generation,
        };
    }
}
