//! Rule sets: who wins with which line, and who may not play where.

use std::fmt;
use std::str::FromStr;

use crate::pos::{BoardSize, Color};

/// Smallest allowed win length.
pub const MIN_K: u8 = 3;
/// Largest allowed win length.
pub const MAX_K: u8 = 10;

/// The rule sets caro knows. Names are the same everywhere (CLI, API, UI,
/// files); [`Rule::gomocup_code`] gives the Gomocup `INFO rule` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Rule {
    /// A line of `k` or more wins.
    #[default]
    Freestyle,
    /// A line of exactly `k` wins; an overline does not.
    Standard,
    /// RIF renju (`k` = 5): black wins with exactly five and may not play a
    /// double-three, double-four or overline; white wins with five or more.
    Renju,
    /// Vietnamese caro: `k` or more wins, except a line of exactly `k` with an
    /// opponent stone on both ends. The board edge does not block; overlines
    /// always win.
    Caro,
    /// Gomocup's caro rule: exactly `k`, not blocked by opponent stones on
    /// both ends.
    CaroStandard,
}

impl Rule {
    /// Every rule, in a fixed order.
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::Standard,
        Rule::Renju,
        Rule::Caro,
        Rule::CaroStandard,
    ];

    /// The rule's name: `freestyle`, `standard`, `renju`, `caro`, `caro-standard`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Standard => "standard",
            Rule::Renju => "renju",
            Rule::Caro => "caro",
            Rule::CaroStandard => "caro-standard",
        }
    }

    /// The Gomocup `INFO rule` value (0, 1, 4, 8, 9).
    #[must_use]
    pub const fn gomocup_code(self) -> u32 {
        match self {
            Rule::Freestyle => 0,
            Rule::Standard => 1,
            Rule::Renju => 4,
            Rule::Caro => 8,
            Rule::CaroStandard => 9,
        }
    }

    /// The rule for a Gomocup `INFO rule` value. Bit 2 (continuous game) is
    /// ignored, so 2 reads as freestyle and 3 as standard.
    #[must_use]
    pub fn from_gomocup_code(code: u32) -> Option<Rule> {
        match code {
            0 | 2 => Some(Rule::Freestyle),
            1 | 3 => Some(Rule::Standard),
            4 | 6 => Some(Rule::Renju),
            8 | 10 => Some(Rule::Caro),
            9 | 11 => Some(Rule::CaroStandard),
            _ => None,
        }
    }

    /// Whether black has forbidden points (only renju).
    #[inline]
    #[must_use]
    pub const fn has_fouls(self) -> bool {
        matches!(self, Rule::Renju)
    }

    /// Whether a run of `len` stones of `color` (with `k` to win) wins,
    /// given whether both cells just past its ends hold opponent stones.
    ///
    /// This is the whole win definition of every rule in one place.
    #[inline]
    #[must_use]
    pub const fn run_wins(self, k: u8, color: Color, len: u8, blocked_both_ends: bool) -> bool {
        match self {
            Rule::Freestyle => len >= k,
            Rule::Standard => len == k,
            Rule::Renju => match color {
                Color::Black => len == k,
                Color::White => len >= k,
            },
            Rule::Caro => len > k || (len == k && !blocked_both_ends),
            Rule::CaroStandard => len == k && !blocked_both_ends,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rule {
    type Err = RulesError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        Rule::ALL
            .into_iter()
            .find(|r| r.name() == lower)
            .or(match lower.as_str() {
                "gomoku" | "free" => Some(Rule::Freestyle),
                "exact" | "exact5" => Some(Rule::Standard),
                "caro6" => Some(Rule::Caro),
                "caro5" | "carostandard" | "caro_standard" => Some(Rule::CaroStandard),
                _ => None,
            })
            .ok_or_else(|| RulesError::UnknownRule(s.to_string()))
    }
}

/// A rule with its win length and board: everything needed to judge a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rules {
    /// The board.
    pub size: BoardSize,
    /// Stones in a row needed to win.
    pub k: u8,
    /// The rule set.
    pub rule: Rule,
}

impl Rules {
    /// Checks that `k` fits the board and the rule.
    ///
    /// # Errors
    /// [`RulesError::BadK`] when `k` is outside 3..=10 or longer than the
    /// board's longer side; [`RulesError::RenjuNeedsFive`] for renju with
    /// `k` other than 5.
    pub fn new(size: BoardSize, k: u8, rule: Rule) -> Result<Rules, RulesError> {
        let longest = size.width.max(size.height);
        if !(MIN_K..=MAX_K).contains(&k) || k > longest {
            return Err(RulesError::BadK { k, longest });
        }
        if rule == Rule::Renju && k != 5 {
            return Err(RulesError::RenjuNeedsFive(k));
        }
        Ok(Rules { size, k, rule })
    }

    /// The usual win length for a board: 3 on boards smaller than 5, else 5.
    #[must_use]
    pub fn default_k(size: BoardSize) -> u8 {
        if size.width.max(size.height) < 5 {
            3
        } else {
            5
        }
    }
}

/// Rules that cannot be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    /// Not one of the rule names.
    #[error("unknown rule {0:?}: expected freestyle, standard, renju, caro or caro-standard")]
    UnknownRule(String),
    /// Win length out of range.
    #[error("win length k={k} is not allowed: k must be from 3 to 10 and at most the board's longer side ({longest})")]
    BadK {
        /// The rejected k.
        k: u8,
        /// The board's longer side.
        longest: u8,
    },
    /// Renju is played to five.
    #[error("renju is played with k=5, not k={0}")]
    RenjuNeedsFive(u8),
    /// Renju has black move first.
    #[error("under renju black moves first")]
    RenjuBlackFirst,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for r in Rule::ALL {
            assert_eq!(r.name().parse::<Rule>().unwrap(), r);
            assert_eq!(r.name().to_uppercase().parse::<Rule>().unwrap(), r);
            assert_eq!(Rule::from_gomocup_code(r.gomocup_code()), Some(r));
        }
        assert!("chess".parse::<Rule>().is_err());
    }

    #[test]
    fn k_is_checked() {
        let s = BoardSize::square(15);
        assert!(Rules::new(s, 5, Rule::Renju).is_ok());
        assert!(Rules::new(s, 6, Rule::Renju).is_err());
        assert!(Rules::new(s, 2, Rule::Freestyle).is_err());
        assert!(Rules::new(s, 11, Rule::Freestyle).is_err());
        assert!(Rules::new(BoardSize::square(3), 4, Rule::Freestyle).is_err());
        assert!(Rules::new(BoardSize::new(3, 10).unwrap(), 7, Rule::Freestyle).is_ok());
    }
}
