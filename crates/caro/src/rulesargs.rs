//! The board, win length and rule flags (`--size`, `--k`, `--rule`) that
//! every subcommand reads the same way.

use caro_core::{BoardSize, Rule, Rules};
use clap::Args;

use crate::UsageError;

/// `--size`, `--k` and `--rule`, as typed.
#[derive(Args, Clone, Debug, Default)]
pub struct RulesArgs {
    /// Board size: a side (15) or width x height (20x30: columns x rows),
    /// each from 3 to 60 (default 15).
    #[arg(long)]
    pub size: Option<String>,
    /// Stones in a row to win, from 3 to 10 and at most the longer side
    /// (default 5, or 3 on boards smaller than 5; renju is played to 5).
    #[arg(long)]
    pub k: Option<String>,
    /// Rule: freestyle (k or more in a row), standard (exactly k), renju,
    /// caro or caro-standard (default freestyle; docs/rules.md has them).
    #[arg(long)]
    pub rule: Option<String>,
}

impl RulesArgs {
    /// The board size given, if any.
    ///
    /// # Errors
    /// A [`UsageError`] for a size that is not one.
    pub fn size(&self) -> Result<Option<BoardSize>, UsageError> {
        self.size
            .as_deref()
            .map(|s| {
                s.parse::<BoardSize>()
                    .map_err(|e| UsageError(e.to_string()))
            })
            .transpose()
    }

    /// The win length given, if any.
    ///
    /// # Errors
    /// A [`UsageError`] for text that is not a number.
    pub fn k(&self) -> Result<Option<u8>, UsageError> {
        self.k
            .as_deref()
            .map(|s| {
                s.trim().parse::<u8>().map_err(|_| {
                    UsageError(format!(
                        "bad win length k={s:?}: expected a number from 3 to 10"
                    ))
                })
            })
            .transpose()
    }

    /// The rule given, if any.
    ///
    /// # Errors
    /// A [`UsageError`] for an unknown rule name.
    pub fn rule(&self) -> Result<Option<Rule>, UsageError> {
        self.rule
            .as_deref()
            .map(|s| s.parse::<Rule>().map_err(|e| UsageError(e.to_string())))
            .transpose()
    }

    /// The rules, with defaults for what is not given: 15×15, k 5 (3 on
    /// boards smaller than 5), freestyle.
    ///
    /// # Errors
    /// A [`UsageError`] for a bad flag or a k that does not fit the board
    /// or rule.
    pub fn rules(&self) -> Result<Rules, UsageError> {
        let size = self.size()?.unwrap_or(BoardSize::square(15));
        let k = self.k()?.unwrap_or_else(|| Rules::default_k(size));
        let rule = self.rule()?.unwrap_or(Rule::Freestyle);
        Rules::new(size, k, rule).map_err(|e| UsageError(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(size: Option<&str>, k: Option<&str>, rule: Option<&str>) -> RulesArgs {
        RulesArgs {
            size: size.map(String::from),
            k: k.map(String::from),
            rule: rule.map(String::from),
        }
    }

    #[test]
    fn defaults_and_overrides() {
        let r = args(None, None, None).rules().unwrap();
        assert_eq!(
            (r.size, r.k, r.rule),
            (BoardSize::square(15), 5, Rule::Freestyle)
        );
        let r = args(Some("3"), None, None).rules().unwrap();
        assert_eq!(r.k, 3);
        let r = args(Some("20x30"), Some("6"), Some("caro"))
            .rules()
            .unwrap();
        assert_eq!(
            (r.size.width, r.size.height, r.k, r.rule),
            (20, 30, 6, Rule::Caro)
        );
    }

    #[test]
    fn bad_flags_say_what_is_wrong() {
        assert!(args(Some("2"), None, None).rules().is_err());
        let e = args(None, Some("five"), None).rules().unwrap_err();
        assert!(e.0.contains("win length"), "{e}");
        assert!(args(None, None, Some("chess")).rules().is_err());
        assert!(args(None, Some("6"), Some("renju")).rules().is_err());
    }
}
