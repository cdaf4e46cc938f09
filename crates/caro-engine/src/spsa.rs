//! SPSA (simultaneous perturbation stochastic approximation), the tuner
//! of the best engines' parameters: each iteration moves every tunable at
//! once by ±its perturbation, plays the two tunings against each other
//! (a game pair on one opening) and steps every value towards the side
//! that scored, by the result times its own sign. The gain sequences are
//! Spall's, set up as fishtest does: a tunable's perturbation falls from
//! about `step · N^γ` to its `step` (`c_end`) at iteration N, and its
//! learning rate is `r_end · c_end²` at the end.

use rand::Rng;

use crate::search::{Tunable, Tuning};

/// The settings of a run.
#[derive(Clone, Copy, Debug)]
pub struct SpsaSettings {
    /// Iterations (game pairs) of the whole run: where the gains reach
    /// their end values.
    pub iterations: u64,
    /// The learning rate's end value, `r_end` (fishtest's default 0.002).
    pub r_end: f64,
    /// The stability constant `A` as a share of the iterations (0.1).
    pub a_share: f64,
    /// Exponent of the learning rate's decay, α (0.602).
    pub alpha: f64,
    /// Exponent of the perturbation's decay, γ (0.101).
    pub gamma: f64,
}

impl SpsaSettings {
    /// The usual exponents and rates for a run of `iterations`.
    #[must_use]
    pub fn new(iterations: u64) -> SpsaSettings {
        SpsaSettings {
            iterations: iterations.max(1),
            r_end: 0.002,
            a_share: 0.1,
            alpha: 0.602,
            gamma: 0.101,
        }
    }
}

/// One iteration's two tunings: `plus` has every value moved up by its
/// perturbation where `signs` is +1 (down where −1), `minus` the other
/// way.
#[derive(Clone, Debug)]
pub struct Perturbation {
    /// The iteration, from 1.
    pub k: u64,
    /// Each tunable's sign, +1 or −1.
    pub signs: Vec<f64>,
    /// Each tunable's perturbation `c_k`.
    pub sizes: Vec<f64>,
    /// The values moved with the signs.
    pub plus: Tuning,
    /// The values moved against the signs.
    pub minus: Tuning,
}

/// A run's state: the values so far (real numbers, rounded only in the
/// tunings played) of the tunables it moves.
#[derive(Clone, Debug)]
pub struct Spsa {
    tunables: Vec<&'static Tunable>,
    base: Tuning,
    theta: Vec<f64>,
    settings: SpsaSettings,
    done: u64,
}

impl Spsa {
    /// A run over `tunables`, from their values in `start`.
    #[must_use]
    pub fn new(tunables: Vec<&'static Tunable>, start: Tuning, settings: SpsaSettings) -> Spsa {
        let theta = tunables.iter().map(|t| t.get(&start)).collect();
        Spsa {
            tunables,
            base: start,
            theta,
            settings,
            done: 0,
        }
    }

    /// The perturbation of tunable `i` at iteration `k`.
    fn c_k(&self, i: usize, k: u64) -> f64 {
        let n = self.settings.iterations as f64;
        self.tunables[i].step * (n / k as f64).powf(self.settings.gamma)
    }

    /// The learning rate of tunable `i` at iteration `k` (over its
    /// perturbation squared: Spall's `a_k / c_k²`).
    fn r_k(&self, i: usize, k: u64) -> f64 {
        let s = &self.settings;
        let n = s.iterations as f64;
        let big_a = s.a_share * n;
        let c_end = self.tunables[i].step;
        let a_end = s.r_end * c_end * c_end;
        let a = a_end * (big_a + n).powf(s.alpha);
        let a_k = a / (big_a + k as f64).powf(s.alpha);
        a_k / self.c_k(i, k).powi(2)
    }

    /// The two tunings of iteration `k` (from 1), with random signs drawn
    /// from `rng`.
    pub fn perturb(&self, k: u64, rng: &mut impl Rng) -> Perturbation {
        let k = k.max(1);
        let signs: Vec<f64> = (0..self.theta.len())
            .map(|_| if rng.random::<bool>() { 1.0 } else { -1.0 })
            .collect();
        let sizes: Vec<f64> = (0..self.theta.len()).map(|i| self.c_k(i, k)).collect();
        let (mut plus, mut minus) = (self.current(), self.current());
        for (i, t) in self.tunables.iter().enumerate() {
            t.set(&mut plus, self.theta[i] + sizes[i] * signs[i]);
            t.set(&mut minus, self.theta[i] - sizes[i] * signs[i]);
        }
        Perturbation {
            k,
            signs,
            sizes,
            plus: plus.ordered(),
            minus: minus.ordered(),
        }
    }

    /// Takes the result of a perturbation's games: `result` is the plus
    /// tuning's wins less its losses (−2 to 2 for a game pair).
    pub fn update(&mut self, p: &Perturbation, result: f64) {
        for (i, t) in self.tunables.iter().enumerate() {
            let step = self.r_k(i, p.k) * p.sizes[i] * result * p.signs[i];
            self.theta[i] = (self.theta[i] + step).clamp(t.min, t.max);
        }
        self.done += 1;
    }

    /// Iterations taken so far.
    #[must_use]
    pub fn done(&self) -> u64 {
        self.done
    }

    /// The values so far, as real numbers, with their tunables.
    #[must_use]
    pub fn values(&self) -> Vec<(&'static Tunable, f64)> {
        self.tunables
            .iter()
            .copied()
            .zip(self.theta.iter().copied())
            .collect()
    }

    /// The values so far as a tuning (rounded where integer).
    #[must_use]
    pub fn current(&self) -> Tuning {
        let mut t = self.base;
        for (tunable, &v) in self.tunables.iter().zip(&self.theta) {
            tunable.set(&mut t, v);
        }
        t.ordered()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tuning::tunable;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    /// A noisy match between two values of `rfp_margin` whose true
    /// strength peaks at `best`: each game is won by the side nearer the
    /// peak with a probability that grows with the difference.
    fn noisy_pair(plus: f64, minus: f64, best: f64, rng: &mut StdRng) -> f64 {
        let strength = |v: f64| -((v - best) / 100.0).powi(2);
        let p_plus = 1.0 / (1.0 + (-(strength(plus) - strength(minus)) * 4.0).exp());
        (0..2)
            .map(|_| {
                if rng.random::<f64>() < p_plus {
                    1.0
                } else {
                    -1.0
                }
            })
            .sum()
    }

    #[test]
    fn a_run_moves_a_value_towards_the_stronger_side() {
        let rfp = tunable("rfp_margin").unwrap();
        for (start, best) in [(100.0, 300.0), (450.0, 200.0)] {
            let mut begin = Tuning::default();
            rfp.set(&mut begin, start);
            let mut settings = SpsaSettings::new(4_000);
            settings.r_end = 0.01;
            let mut spsa = Spsa::new(vec![rfp], begin, settings);
            let mut rng = StdRng::seed_from_u64(7);
            for k in 1..=4_000 {
                let p = spsa.perturb(k, &mut rng);
                let r = noisy_pair(rfp.get(&p.plus), rfp.get(&p.minus), best, &mut rng);
                spsa.update(&p, r);
            }
            let end = spsa.values()[0].1;
            assert!(
                (end - best).abs() < (start - best).abs() / 2.0,
                "from {start} towards {best}: ended at {end}"
            );
            assert_eq!(spsa.done(), 4_000);
        }
    }

    #[test]
    fn perturbations_stay_in_range_and_shrink() {
        let names = ["rfp_margin", "root_vcf_share", "lmr_min_index"];
        let tunables: Vec<_> = names.iter().map(|n| tunable(n).unwrap()).collect();
        let spsa = Spsa::new(
            tunables.clone(),
            Tuning::default(),
            SpsaSettings::new(1_000),
        );
        let mut rng = StdRng::seed_from_u64(1);
        let first = spsa.perturb(1, &mut rng);
        let last = spsa.perturb(1_000, &mut rng);
        for (i, t) in tunables.iter().enumerate() {
            assert!(first.sizes[i] > last.sizes[i]);
            assert!((last.sizes[i] - t.step).abs() < 1e-9);
            for tuning in [&first.plus, &first.minus, &last.plus, &last.minus] {
                let v = t.get(tuning);
                assert!((t.min..=t.max).contains(&v), "{t:?}: {v}");
            }
        }
        // Every value moves one way in plus and the other in minus.
        let rfp = tunables[0];
        assert_eq!(
            rfp.get(&first.plus) > rfp.get(&first.minus),
            first.signs[0] > 0.0
        );
    }
}
