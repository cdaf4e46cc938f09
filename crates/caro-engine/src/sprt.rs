//! The sequential test of engine changes: game pairs counted by their
//! pentanomial result, the Elo difference they show, and the
//! log-likelihood ratio of a sequential probability ratio test (SPRT).
//!
//! A pair is two games from the same opening, one with each colour. Its
//! result for A is 0, ½, 1, 1½ or 2 points; the five counts are the
//! pentanomial. Counting pairs rather than games takes the opening's bias
//! out of the variance (a lopsided opening wins one game of the pair and
//! loses the other), so the test needs fewer games for the same error, as
//! fishtest and OpenBench found.
//!
//! Elo here is logistic Elo: an expected score `s` is
//! `-400·log10(1/s − 1)` Elo. The log-likelihood ratio is the normal
//! approximation of the generalised SPRT (Van den Bergh), computed from
//! the mean and variance of the pair scores.

/// The bounds of a sequential probability ratio test with error rates
/// `alpha` (accepting H1 when H0 holds) and `beta` (the reverse): stop and
/// accept H0 when the log-likelihood ratio falls below the first, H1 when
/// it rises above the second.
#[must_use]
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// The expected score of a player `elo` logistic Elo stronger.
#[must_use]
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Logistic Elo of an expected score `p` in (0, 1).
#[must_use]
pub fn elo_of(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

/// A pair's variance assumed before any pair is seen: two independent
/// games at an even score with a fifth drawn, `(¼ − 0.2/4) / 2`.
const PRIOR_PAIR_VARIANCE: f64 = 0.1;

/// How many pairs the assumed variance weighs: the observed variance of a
/// few pairs (none, after three sweeps) must not let them decide.
const PRIOR_PAIRS: f64 = 10.0;

/// Counts of A's pair results: index `i` holds the pairs A scored `i`
/// half points in (0 = both lost, 4 = both won).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Pairs by A's half points, 0 to 4.
    pub counts: [u32; 5],
}

impl Pentanomial {
    /// Counts a pair in which A scored `half_points` (0 to 4: a win is 2,
    /// a draw 1). More than 4 is taken as 4.
    pub fn add(&mut self, half_points: u32) {
        self.counts[half_points.min(4) as usize] += 1;
    }

    /// Pairs counted.
    #[must_use]
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// A's mean score per game, 0..=1 (0.5 with no pairs).
    #[must_use]
    pub fn score(&self) -> f64 {
        let n = f64::from(self.pairs());
        if n == 0.0 {
            return 0.5;
        }
        self.weighted(|x| x) / n
    }

    /// The variance of one pair's mean score: the observed one, shrunk
    /// towards [`PRIOR_PAIR_VARIANCE`] as if [`PRIOR_PAIRS`] pairs of it had
    /// been seen, so that a handful of pairs cannot look certain.
    #[must_use]
    pub fn pair_variance(&self) -> f64 {
        let n = f64::from(self.pairs());
        let observed = if n == 0.0 {
            0.0
        } else {
            let m = self.score();
            self.weighted(|x| (x - m).powi(2)) / n
        };
        (n * observed + PRIOR_PAIRS * PRIOR_PAIR_VARIANCE) / (n + PRIOR_PAIRS)
    }

    /// Sum over the pairs of `f` of their mean score (0, ¼, ½, ¾, 1).
    fn weighted(&self, f: impl Fn(f64) -> f64) -> f64 {
        self.counts
            .iter()
            .enumerate()
            .map(|(i, &c)| f64::from(c) * f(i as f64 / 4.0))
            .sum()
    }

    /// A score kept half a pair away from 0 and 1, so Elo stays finite.
    fn clamped(&self, p: f64) -> f64 {
        let n = f64::from(self.pairs().max(1));
        p.clamp(0.25 / n, 1.0 - 0.25 / n)
    }

    /// Logistic Elo of A over B and the half-width of its 95% interval.
    #[must_use]
    pub fn elo(&self) -> (f64, f64) {
        if self.pairs() == 0 {
            return (0.0, 0.0);
        }
        let (lo, hi) = self.elo_interval();
        (elo_of(self.clamped(self.score())), (hi - lo) / 2.0)
    }

    /// The 95% interval of A's logistic Elo: the score ± 1.96 standard
    /// errors of the pairs' mean, turned into Elo.
    #[must_use]
    pub fn elo_interval(&self) -> (f64, f64) {
        let n = f64::from(self.pairs());
        if n == 0.0 {
            return (0.0, 0.0);
        }
        let m = self.score();
        let se = (self.pair_variance() / n).sqrt();
        (
            elo_of(self.clamped(m - 1.96 * se)),
            elo_of(self.clamped(m + 1.96 * se)),
        )
    }

    /// The log-likelihood ratio of "A is `elo1` stronger" against "A is
    /// `elo0` stronger" (logistic Elo). Compare with [`sprt_bounds`].
    #[must_use]
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        let n = f64::from(self.pairs());
        if n == 0.0 {
            return 0.0;
        }
        let (s0, s1) = (expected_score(elo0), expected_score(elo1));
        let m = self.score();
        n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * self.pair_variance())
    }
}

/// Where a sequential test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Between the bounds: play on.
    Continue,
    /// Below the lower bound: A is not `elo1` stronger (H0 accepted).
    H0,
    /// Above the upper bound: A is at least `elo0` stronger (H1 accepted).
    H1,
}

impl Decision {
    /// "H0 accepted", "H1 accepted" or "no decision yet".
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            Decision::Continue => "no decision yet",
            Decision::H0 => "H0 accepted",
            Decision::H1 => "H1 accepted",
        }
    }
}

/// A sequential test: the hypotheses "A is `elo0` stronger" (H0) and "A is
/// `elo1` stronger" (H1), with 5% error each way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo of H0.
    pub elo0: f64,
    /// Elo of H1.
    pub elo1: f64,
    /// The lower bound of the log-likelihood ratio.
    pub lower: f64,
    /// The upper bound of the log-likelihood ratio.
    pub upper: f64,
}

impl Sprt {
    /// A test of `elo0` against `elo1` with error rates of 5% both ways.
    #[must_use]
    pub fn new(elo0: f64, elo1: f64) -> Sprt {
        let (lower, upper) = sprt_bounds(0.05, 0.05);
        Sprt {
            elo0,
            elo1,
            lower,
            upper,
        }
    }

    /// Where the test stands after these pairs.
    #[must_use]
    pub fn decide(&self, pairs: &Pentanomial) -> Decision {
        let llr = pairs.llr(self.elo0, self.elo1);
        if llr >= self.upper {
            Decision::H1
        } else if llr <= self.lower {
            Decision::H0
        } else {
            Decision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn penta(counts: [u32; 5]) -> Pentanomial {
        Pentanomial { counts }
    }

    #[test]
    fn the_bounds_are_the_usual_ones() {
        let (lower, upper) = sprt_bounds(0.05, 0.05);
        assert!((upper - 2.944).abs() < 0.001 && (lower + 2.944).abs() < 0.001);
    }

    #[test]
    fn an_even_series_scores_half_and_zero_elo() {
        let p = penta([10, 20, 40, 20, 10]);
        assert!((p.score() - 0.5).abs() < 1e-12);
        assert!(p.elo().0.abs() < 1e-9);
        assert!(p.llr(0.0, 5.0) < 0.0);
    }

    #[test]
    fn the_statistics_match_a_hand_computation() {
        // 100 pairs: 5 lost both, 20 a half, 40 one point, 25 one and a
        // half, 10 both won.
        let p = penta([5, 20, 40, 25, 10]);
        let m = (20.0 * 0.25 + 40.0 * 0.5 + 25.0 * 0.75 + 10.0) / 100.0;
        assert!((p.score() - m).abs() < 1e-12);
        let observed = (5.0 * m.powi(2)
            + 20.0 * (0.25 - m).powi(2)
            + 40.0 * (0.5 - m).powi(2)
            + 25.0 * (0.75 - m).powi(2)
            + 10.0 * (1.0 - m).powi(2))
            / 100.0;
        let var = (100.0 * observed + 10.0 * 0.1) / 110.0;
        assert!((p.pair_variance() - var).abs() < 1e-12);
        let (s0, s1) = (expected_score(0.0), expected_score(10.0));
        let llr = 100.0 * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * var);
        assert!((p.llr(0.0, 10.0) - llr).abs() < 1e-9);
        let (elo, err) = p.elo();
        assert!((elo - elo_of(m)).abs() < 1e-9);
        let se = (var / 100.0).sqrt();
        let half = (elo_of(m + 1.96 * se) - elo_of(m - 1.96 * se)) / 2.0;
        assert!((err - half).abs() < 1e-9);
    }

    #[test]
    fn a_few_sweeps_decide_nothing_but_a_long_clear_series_does() {
        let sprt = Sprt::new(0.0, 30.0);
        for counts in [[0, 0, 0, 0, 3], [3, 0, 0, 0, 0], [0, 0, 3, 0, 0]] {
            assert_eq!(
                sprt.decide(&penta(counts)),
                Decision::Continue,
                "{counts:?}"
            );
        }
        assert_eq!(sprt.decide(&penta([10, 40, 60, 60, 30])), Decision::H1);
        assert_eq!(sprt.decide(&penta([30, 60, 60, 40, 10])), Decision::H0);
    }

    #[test]
    fn correlated_pairs_decide_sooner_than_independent_games_would() {
        // The same 1,000 games: in pairs that split 1-1 far more often
        // than chance (the pentanomial), the variance is lower, so the
        // evidence for the same score is stronger.
        let split = penta([20, 60, 320, 70, 30]);
        let spread = penta([85, 0, 315, 0, 100]);
        assert!((split.score() - spread.score()).abs() < 1e-9);
        assert!(split.pair_variance() < spread.pair_variance());
        assert!(split.llr(0.0, 10.0) > spread.llr(0.0, 10.0));
    }

    proptest! {
        #[test]
        fn mirrored_results_mirror_elo_and_the_interval_holds_the_estimate(
            counts in proptest::array::uniform5(0u32..200)
        ) {
            let p = penta(counts);
            let mut mirror = counts;
            mirror.reverse();
            let q = penta(mirror);
            let (e, err) = p.elo();
            let (f, err2) = q.elo();
            prop_assert!((e + f).abs() < 1e-6);
            prop_assert!((err - err2).abs() < 1e-6);
            let (lo, hi) = p.elo_interval();
            prop_assert!(lo <= e + 1e-9 && e <= hi + 1e-9);
            prop_assert!((p.llr(-5.0, 5.0) + q.llr(-5.0, 5.0)).abs() < 1e-6);
        }

        #[test]
        fn a_pair_moved_up_a_step_raises_score_and_elo(
            counts in proptest::array::uniform5(1u32..100), from in 0usize..4
        ) {
            let p = penta(counts);
            let mut better = counts;
            better[from] -= 1;
            better[from + 1] += 1;
            let q = penta(better);
            prop_assert!(q.score() > p.score());
            prop_assert!(q.elo().0 > p.elo().0);
        }
    }
}
