//! Line patterns: what a stone at an empty point would make along one line.
//!
//! A point's pattern for one colour and one direction is read from the
//! `2k` cells around it on that line (each empty, own, opponent or off the
//! board). The answer depends only on those cells, the win length and the
//! rule, so it is computed once per distinct line (by the slow, obviously
//! correct [`classify`]) and kept in a table that fills itself as lines are
//! met (every k up to [`MAX_TABLE_K`], which is every k the rules allow).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use caro_core::{Color, Rule};

/// What one more stone makes along one line, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// Nothing that can become a win on this line.
    None = 0,
    /// A two that can become a four only (one side blocked).
    Block2 = 1,
    /// A two that can become an open three.
    Flex2 = 2,
    /// A three that can become a four only.
    Block3 = 3,
    /// An open three: one more stone makes an open four.
    Flex3 = 4,
    /// A four: one point left to win.
    Block4 = 5,
    /// An open four (or two fours on the line): two points to win.
    Flex4 = 6,
    /// A winning line.
    Five = 7,
    /// Renju black only: an overline, a forbidden move.
    Overline = 8,
}

impl Pattern {
    /// Every pattern, indexed by its `u8` value.
    pub const ALL: [Pattern; 9] = [
        Pattern::None,
        Pattern::Block2,
        Pattern::Flex2,
        Pattern::Block3,
        Pattern::Flex3,
        Pattern::Block4,
        Pattern::Flex4,
        Pattern::Five,
        Pattern::Overline,
    ];

    /// The pattern with this `u8` value (as stored per point).
    #[inline]
    #[must_use]
    pub fn from_u8(v: u8) -> Pattern {
        Pattern::ALL[v as usize]
    }
}

/// Cell states in a line, seen from the colour that would play.
pub const EMPTY: u8 = 0;
/// One of the player's stones.
pub const OWN: u8 = 1;
/// An opponent stone.
pub const OPP: u8 = 2;
/// Off the board.
pub const WALL: u8 = 3;

/// Largest k that gets a lookup table (every k the rules allow); a larger
/// k would use a map behind a lock. The table has [`half_count`]`(k)²`
/// one-byte entries per colour: 8,836 for k = 5, 9.4 million (9.4 MB) for
/// k = 10, made the first time a game with that k and rule is searched.
/// A table, not a map, for every k: a map behind a lock is several times
/// slower.
pub const MAX_TABLE_K: u8 = 10;

/// Number of distinct half-line ids for win length `k` (see [`half_id`]):
/// `2 * (2^k - 1)` blocked halves and `2^k` open ones. Dense ids keep the
/// tables small (8,836 entries for k = 5), so lookups stay in the cache.
#[inline]
#[must_use]
pub const fn half_count(k: u8) -> u64 {
    3 * (1u64 << k) - 2
}

/// The id of one half of a line, read outward from the point: `len`
/// cells before the first blocker, `mask` with bit `i` set where cell `i`
/// (0 = nearest) holds an own stone, and the blocker: 0 none (all `k`
/// cells open), 1 the edge, 2 an opponent stone. Cells past the blocker
/// cannot matter and are not part of the id. Blocked halves come first
/// (by length, then mask, then blocker), open halves after them.
#[inline]
#[must_use]
pub const fn half_id(len: u32, mask: u64, blocker: u8, k: u8) -> u64 {
    if blocker == 0 {
        2 * ((1u64 << k) - 1) + mask
    } else {
        ((1u64 << len) - 1 + mask) * 2 + (blocker as u64 - 1)
    }
}

/// The (len, mask, blocker) of a half id: the inverse of [`half_id`].
#[must_use]
pub const fn half_parts(id: u64, k: u8) -> (u32, u64, u8) {
    let blocked = 2 * ((1u64 << k) - 1);
    if id >= blocked {
        return (k as u32, id - blocked, 0);
    }
    let v = id / 2 + 1;
    let len = 63 - v.leading_zeros();
    (len, v - (1u64 << len), (id % 2) as u8 + 1)
}

/// A table key from the two halves (left, right).
#[inline]
#[must_use]
pub const fn key_of(left: u64, right: u64, k: u8) -> u64 {
    left * half_count(k) + right
}

/// How a rule judges one colour's lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct WinKind {
    /// Stones in a row to win.
    pub k: u8,
    /// Only exactly k wins.
    pub exact: bool,
    /// Exactly k with opponent stones on both ends does not win (caro).
    pub caro_block: bool,
    /// An overline is a foul (renju black).
    pub overline_foul: bool,
}

impl WinKind {
    /// How `rule` judges `color`'s lines with win length `k`.
    #[must_use]
    pub fn new(rule: Rule, k: u8, color: Color) -> WinKind {
        let (exact, caro_block, overline_foul) = match rule {
            Rule::Freestyle => (false, false, false),
            Rule::Standard => (true, false, false),
            Rule::Renju => match color {
                Color::Black => (true, false, true),
                Color::White => (false, false, false),
            },
            Rule::Caro => (false, true, false),
            Rule::CaroStandard => (true, true, false),
        };
        WinKind {
            k,
            exact,
            caro_block,
            overline_foul,
        }
    }

    /// Whether a run of `len` with these end cells wins.
    #[inline]
    fn run_wins(self, len: usize, before: u8, after: u8) -> bool {
        let k = self.k as usize;
        if len < k || (self.exact && len > k) {
            return false;
        }
        !(self.caro_block && len == k && before == OPP && after == OPP)
    }
}

/// Run of own stones through `at`: (first, last).
#[inline]
fn run(line: &[u8], at: usize) -> (usize, usize) {
    let mut lo = at;
    while lo > 0 && line[lo - 1] == OWN {
        lo -= 1;
    }
    let mut hi = at;
    while hi + 1 < line.len() && line[hi + 1] == OWN {
        hi += 1;
    }
    (lo, hi)
}

#[inline]
fn cell_or_wall(line: &[u8], i: isize) -> u8 {
    if i < 0 || i as usize >= line.len() {
        WALL
    } else {
        line[i as usize]
    }
}

/// Whether the own stone at `at` is part of a winning run.
fn wins_at(line: &[u8], at: usize, kind: WinKind) -> bool {
    let (lo, hi) = run(line, at);
    kind.run_wins(
        hi - lo + 1,
        cell_or_wall(line, lo as isize - 1),
        cell_or_wall(line, hi as isize + 1),
    )
}

/// Number of empty points that would complete a win through `center`.
fn win_points(line: &mut [u8], center: usize, kind: WinKind) -> usize {
    let k = kind.k as usize;
    let lo = center.saturating_sub(k - 1);
    let hi = (center + k - 1).min(line.len() - 1);
    let mut n = 0;
    for e in lo..=hi {
        if line[e] != EMPTY {
            continue;
        }
        line[e] = OWN;
        let (a, b) = run(line, e);
        if a <= center && center <= b && wins_at(line, e, kind) {
            n += 1;
        }
        line[e] = EMPTY;
    }
    n
}

/// The pattern of the own stone at `center` (already placed) — levels 4
/// and up only: `Five`, `Flex4`, `Block4`, or `None`.
fn four_level(line: &mut [u8], center: usize, kind: WinKind) -> Pattern {
    if wins_at(line, center, kind) {
        return Pattern::Five;
    }
    match win_points(line, center, kind) {
        0 => Pattern::None,
        1 => Pattern::Block4,
        _ => Pattern::Flex4,
    }
}

/// Best pattern one more own stone (within reach of `center`) makes from
/// the stone at `center`, down to `floor` levels of look-ahead.
fn reach(line: &mut [u8], center: usize, kind: WinKind, steps: u32) -> Pattern {
    let here = four_level(line, center, kind);
    if here != Pattern::None || steps == 0 {
        return here;
    }
    let k = kind.k as usize;
    let lo = center.saturating_sub(k - 1);
    let hi = (center + k - 1).min(line.len() - 1);
    let mut best = Pattern::None;
    for e in lo..=hi {
        if line[e] != EMPTY {
            continue;
        }
        line[e] = OWN;
        let next = reach(line, center, kind, steps - 1);
        line[e] = EMPTY;
        // A stone that makes an open four from here means an open three; a
        // four means a closed three (and one level further down, twos).
        let level = match next {
            Pattern::Five | Pattern::Flex4 if steps == 1 => Pattern::Flex3,
            Pattern::Block4 if steps == 1 => Pattern::Block3,
            Pattern::Flex3 if steps == 2 => Pattern::Flex2,
            Pattern::Block3 if steps == 2 => Pattern::Block2,
            _ => Pattern::None,
        };
        best = best.max(level);
        if best == Pattern::Flex3 || (steps == 2 && best == Pattern::Flex2) {
            break;
        }
    }
    best
}

/// The pattern a stone at the centre of `line` (length `2k + 1`, centre
/// empty, cells seen from the player) would make. The slow reference used
/// to fill the tables.
#[must_use]
#[inline(never)]
pub fn classify(line: &[u8], kind: WinKind) -> Pattern {
    let mut l = line.to_vec();
    let center = l.len() / 2;
    l[center] = OWN;
    if kind.overline_foul {
        let (lo, hi) = run(&l, center);
        if hi - lo + 1 > kind.k as usize {
            return Pattern::Overline;
        }
    }
    let four = four_level(&mut l, center, kind);
    if four != Pattern::None {
        return four;
    }
    let three = reach(&mut l, center, kind, 1);
    if three != Pattern::None {
        return three;
    }
    reach(&mut l, center, kind, 2)
}

/// A self-filling table of patterns for one [`WinKind`].
pub struct PatternTable {
    kind: WinKind,
    /// Pattern + 1 per key; 0 = not computed yet. Empty for large k.
    cells: Vec<AtomicU8>,
    /// Direct classification cache for large k.
    slow: Mutex<HashMap<u64, Pattern>>,
}

impl PatternTable {
    fn new(kind: WinKind) -> PatternTable {
        let cells = if kind.k <= MAX_TABLE_K {
            let h = half_count(kind.k) as usize;
            (0..h * h).map(|_| AtomicU8::new(0)).collect()
        } else {
            Vec::new()
        };
        PatternTable {
            kind,
            cells,
            slow: Mutex::new(HashMap::new()),
        }
    }

    /// The shared table for `kind` (built on first use).
    #[must_use]
    pub fn get(kind: WinKind) -> Arc<PatternTable> {
        static TABLES: OnceLock<Mutex<HashMap<WinKind, Arc<PatternTable>>>> = OnceLock::new();
        let map = TABLES.get_or_init(|| Mutex::new(HashMap::new()));
        let mut map = match map.lock() {
            Ok(m) => m,
            Err(poisoned) => poisoned.into_inner(),
        };
        map.entry(kind)
            .or_insert_with(|| Arc::new(PatternTable::new(kind)))
            .clone()
    }

    /// The win rule of this table.
    #[must_use]
    pub fn kind(&self) -> WinKind {
        self.kind
    }

    /// The pattern for a key: the `2k` cells around the point (2 bits
    /// each, nearest-left first... see [`key_to_line`]).
    #[inline(always)]
    #[must_use]
    pub fn lookup(&self, key: u64) -> Pattern {
        Pattern::from_u8(self.lookup_code(key))
    }

    /// [`PatternTable::lookup`] as the pattern's code (`Pattern as u8`),
    /// for the incremental update, which keeps codes.
    #[inline(always)]
    #[must_use]
    pub fn lookup_code(&self, key: u64) -> u8 {
        if let Some(slot) = self.cells.get(key as usize) {
            let v = slot.load(Ordering::Relaxed);
            if v != 0 {
                return v - 1;
            }
        }
        self.lookup_slow(key) as u8
    }

    /// [`PatternTable::lookup`] for a key met for the first time, or a
    /// `k` too large for a table.
    #[cold]
    #[inline(never)]
    fn lookup_slow(&self, key: u64) -> Pattern {
        if let Some(slot) = self.cells.get(key as usize) {
            let p = classify(&key_to_line(key, self.kind.k), self.kind);
            slot.store(p as u8 + 1, Ordering::Relaxed);
            p
        } else {
            let mut slow = match self.slow.lock() {
                Ok(m) => m,
                Err(poisoned) => poisoned.into_inner(),
            };
            *slow
                .entry(key)
                .or_insert_with(|| classify(&key_to_line(key, self.kind.k), self.kind))
        }
    }
}

/// The line a key stands for: cells `-k..=k`, centre empty, cells past
/// each blocker written as edge.
#[must_use]
pub fn key_to_line(key: u64, k: u8) -> Vec<u8> {
    let h = half_count(k);
    let ku = k as usize;
    let mut line = vec![WALL; 2 * ku + 1];
    line[ku] = EMPTY;
    for (half, id) in [(0, key / h), (1, key % h)] {
        let (len, bits, blocker) = half_parts(id, k);
        let len = len as usize;
        for i in 0..=len.min(ku - 1) {
            let v = if i < len {
                if bits >> i & 1 == 1 {
                    OWN
                } else {
                    EMPTY
                }
            } else {
                match blocker {
                    2 => OPP,
                    _ => WALL,
                }
            };
            let slot = if half == 0 { ku - 1 - i } else { ku + 1 + i };
            line[slot] = v;
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(s: &str) -> Vec<u8> {
        s.chars()
            .map(|c| match c {
                '.' | '*' => EMPTY,
                'X' => OWN,
                'O' => OPP,
                '#' => WALL,
                _ => panic!("{c}"),
            })
            .collect()
    }

    fn free(k: u8) -> WinKind {
        WinKind::new(Rule::Freestyle, k, Color::Black)
    }

    #[test]
    fn basic_shapes() {
        let f = free(5);
        assert_eq!(classify(&line("..XXX*XX..."), f), Pattern::Five);
        assert_eq!(classify(&line("...XX*XX..."), f), Pattern::Five);
        assert_eq!(classify(&line("...XX*X...."), f), Pattern::Flex4);
        assert_eq!(classify(&line("..OXX*X...."), f), Pattern::Block4);
        assert_eq!(classify(&line("....X*X...."), f), Pattern::Flex3);
        assert_eq!(classify(&line("...OX*X...."), f), Pattern::Block3);
        assert_eq!(classify(&line(".....*X...."), f), Pattern::Flex2);
        assert_eq!(classify(&line("....O*X...."), f), Pattern::Block2);
        assert_eq!(classify(&line("....O*XO..."), f), Pattern::None);
        assert_eq!(classify(&line("X.X.X*....."), f), Pattern::Flex3);
        assert_eq!(classify(&line(".XX.X*O...."), f), Pattern::Block4);
    }

    #[test]
    fn rules_change_the_answer() {
        let std5 = WinKind::new(Rule::Standard, 5, Color::Black);
        assert_eq!(classify(&line(".XXXX*X...."), std5), Pattern::None);
        let renju_b = WinKind::new(Rule::Renju, 5, Color::Black);
        assert_eq!(classify(&line(".XXXX*X...."), renju_b), Pattern::Overline);
        let renju_w = WinKind::new(Rule::Renju, 5, Color::White);
        assert_eq!(classify(&line(".XXXX*X...."), renju_w), Pattern::Five);
        let caro = WinKind::new(Rule::Caro, 5, Color::Black);
        assert_eq!(classify(&line("OXXXX*O...."), caro), Pattern::None);
        assert_eq!(classify(&line("#XXXX*O...."), caro), Pattern::Five);
        assert_eq!(classify(&line("OXXX.*O...."), caro), Pattern::None);
        assert_eq!(classify(&line("OXXX.*....."), caro), Pattern::Block4);
    }

    #[test]
    fn table_agrees_with_classify() {
        let kind = WinKind::new(Rule::Caro, 5, Color::Black);
        let t = PatternTable::get(kind);
        let h = half_count(5);
        for key in (0..h * h).step_by(97) {
            let l = key_to_line(key, 5);
            assert_eq!(t.lookup(key), classify(&l, kind));
        }
    }

    #[test]
    fn half_ids_are_dense_and_decode() {
        for k in 3..=MAX_TABLE_K {
            let mut seen = vec![false; half_count(k) as usize];
            for len in 0..=k as u32 {
                let blockers: &[u8] = if len == k as u32 { &[0] } else { &[1, 2] };
                for mask in 0..1u64 << len {
                    for &blocker in blockers {
                        let id = half_id(len, mask, blocker, k);
                        assert!(!seen[id as usize], "k={k}: id {id} twice");
                        seen[id as usize] = true;
                        assert_eq!(half_parts(id, k), (len, mask, blocker));
                    }
                }
            }
            assert!(seen.iter().all(|&s| s), "k={k}: ids leave gaps");
        }
    }

    #[test]
    fn keys_decode_to_their_lines() {
        // Left: nearest own, then empty, then opponent. Right: open.
        let left = half_id(2, 0b01, 2, 5);
        let right = half_id(5, 0b00011, 0, 5);
        assert_eq!(key_to_line(key_of(left, right, 5), 5), line("##O.X*XX..."));
    }
}
