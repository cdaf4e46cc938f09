//! Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system",
//! 2013), one rating period per game as lichess does: each rated game
//! moves both players' ratings once, when it ends.

/// A player's rating in one variant (all zero by default: no rating yet).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rating {
    /// The rating, on the Glicko scale (1500 to start).
    pub rating: f64,
    /// Its deviation (350 to start; at least [`MIN_DEVIATION`]).
    pub deviation: f64,
    /// Its volatility.
    pub volatility: f64,
}

/// A new player's rating.
pub const START: Rating = Rating {
    rating: 1500.0,
    deviation: 350.0,
    volatility: 0.06,
};

/// A rating is provisional (shown with "?", left off the leaderboards)
/// while its deviation is at least this.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// The deviation never falls below this, so a rating keeps moving.
pub const MIN_DEVIATION: f64 = 45.0;

/// The system constant τ, which bounds how fast volatility changes.
pub const TAU: f64 = 0.75;

/// The scale between Glicko and Glicko-2 units.
const SCALE: f64 = 173.7178;

/// Convergence tolerance of the volatility iteration.
const EPSILON: f64 = 0.000_001;

impl Rating {
    /// Whether the rating is still provisional.
    #[must_use]
    pub fn is_provisional(&self) -> bool {
        self.deviation >= PROVISIONAL_DEVIATION
    }

    /// The rating after one period with these games: each the opponent's
    /// rating before the period and the score (1 a win, ½ a draw, 0 a
    /// loss). With no games only the deviation grows.
    #[must_use]
    pub fn after(&self, games: &[(Rating, f64)], tau: f64) -> Rating {
        let mu = (self.rating - 1500.0) / SCALE;
        let phi = self.deviation / SCALE;
        if games.is_empty() {
            let phi = phi.hypot(self.volatility);
            return Rating {
                deviation: (phi * SCALE).min(START.deviation),
                ..*self
            };
        }
        // Step 3 and 4: the estimated variance and improvement.
        let mut inverse_v = 0.0;
        let mut sum = 0.0;
        for (opponent, score) in games {
            let mu_j = (opponent.rating - 1500.0) / SCALE;
            let g = g(opponent.deviation / SCALE);
            let e = 1.0 / (1.0 + (-g * (mu - mu_j)).exp());
            inverse_v += g * g * e * (1.0 - e);
            sum += g * (score - e);
        }
        let v = 1.0 / inverse_v;
        let delta = v * sum;
        // Step 5: the new volatility (the Illinois algorithm).
        let sigma = new_volatility(phi, self.volatility, v, delta, tau);
        // Steps 6 to 8.
        let phi_star = phi.hypot(sigma);
        let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
        let mu_new = mu + phi_new * phi_new * sum;
        Rating {
            rating: mu_new * SCALE + 1500.0,
            deviation: (phi_new * SCALE).clamp(MIN_DEVIATION, START.deviation),
            volatility: sigma,
        }
    }
}

/// The outcome of one game for both players: each rated against the
/// other's rating before it. `score` is the first player's.
#[must_use]
pub fn game(first: Rating, second: Rating, score: f64) -> (Rating, Rating) {
    (
        first.after(&[(second, score)], TAU),
        second.after(&[(first, 1.0 - score)], TAU),
    )
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn new_volatility(phi: f64, sigma: f64, v: f64, delta: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 && k < 1000.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    let mut steps = 0;
    while (big_b - big_a).abs() > EPSILON && steps < 100 {
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
        steps += 1;
    }
    (big_a / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64, within: f64) -> bool {
        (a - b).abs() <= within
    }

    #[test]
    fn glickmans_worked_example() {
        // The paper's example: τ = 0.5, a 1500 (RD 200) player beats a
        // 1400 (30), loses to a 1550 (100) and to a 1700 (300).
        let player = Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opponent = |rating, deviation| Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let after = player.after(
            &[
                (opponent(1400.0, 30.0), 1.0),
                (opponent(1550.0, 100.0), 0.0),
                (opponent(1700.0, 300.0), 0.0),
            ],
            0.5,
        );
        assert!(close(after.rating, 1464.06, 0.01), "{after:?}");
        assert!(close(after.deviation, 151.52, 0.01), "{after:?}");
        assert!(close(after.volatility, 0.05999, 0.00001), "{after:?}");
    }

    #[test]
    fn a_period_without_games_widens_the_deviation_only() {
        let r = Rating {
            rating: 1600.0,
            deviation: 100.0,
            volatility: 0.06,
        };
        let after = r.after(&[], TAU);
        assert_eq!((after.rating, after.volatility), (1600.0, 0.06));
        assert!(close(
            after.deviation,
            (100f64.powi(2) + (0.06 * SCALE).powi(2)).sqrt(),
            1e-9
        ));
    }

    #[test]
    fn two_new_players_move_apart_by_the_same_amount() {
        let (winner, loser) = game(START, START, 1.0);
        assert!(close(winner.rating - 1500.0, 1500.0 - loser.rating, 1e-9));
        assert!(
            winner.rating > 1650.0 && winner.rating < 1700.0,
            "{winner:?}"
        );
        assert!(winner.deviation < START.deviation && winner.is_provisional());
        let (a, b) = game(START, START, 0.5);
        assert!(close(a.rating, 1500.0, 1e-9) && close(b.rating, 1500.0, 1e-9));
    }

    fn rating() -> impl Strategy<Value = Rating> {
        (800.0..2800.0f64, MIN_DEVIATION..=350.0f64, 0.03..0.09f64).prop_map(
            |(rating, deviation, volatility)| Rating {
                rating,
                deviation,
                volatility,
            },
        )
    }

    proptest! {
        #[test]
        fn a_win_raises_a_loss_lowers_and_the_deviation_stays_in_bounds(
            a in rating(), b in rating(),
        ) {
            let (won, lost) = game(a, b, 1.0);
            prop_assert!(won.rating > a.rating && lost.rating < b.rating);
            let (drew, _) = game(a, b, 0.5);
            // A draw moves the rating towards the opponent's.
            prop_assert!((drew.rating - a.rating) * (b.rating - a.rating) >= -1e-9);
            for r in [won, lost, drew] {
                prop_assert!(r.rating.is_finite() && r.volatility > 0.0);
                prop_assert!((MIN_DEVIATION..=START.deviation).contains(&r.deviation));
            }
        }

        #[test]
        fn the_update_equals_steps_6_to_8_with_a_volatility_that_solves_step_5(
            a in rating(), b in rating(), score in prop::sample::select(vec![0.0, 0.5, 1.0]),
        ) {
            // A naive reading of the paper, with the volatility found by
            // bisection instead of the Illinois algorithm. Far apart
            // (a win of 800 over 2800) step 5's function has more than one
            // root in the paper's bracket; each method finds one.
            prop_assume!((a.rating - b.rating).abs() < 700.0);
            let (mu, phi) = ((a.rating - 1500.0) / SCALE, a.deviation / SCALE);
            let (mu_j, phi_j) = ((b.rating - 1500.0) / SCALE, b.deviation / SCALE);
            let gj = 1.0 / (1.0 + 3.0 * phi_j.powi(2) / std::f64::consts::PI.powi(2)).sqrt();
            let e = 1.0 / (1.0 + (-gj * (mu - mu_j)).exp());
            let v = 1.0 / (gj * gj * e * (1.0 - e));
            let delta = v * gj * (score - e);
            let alpha = (a.volatility.powi(2)).ln();
            let f = |x: f64| {
                let ex = x.exp();
                ex * (delta.powi(2) - phi.powi(2) - v - ex) / (2.0 * (phi.powi(2) + v + ex).powi(2))
                    - (x - alpha) / TAU.powi(2)
            };
            // The paper's bracket: [a, ln(Δ² − φ² − v)] or [a − kτ, a].
            let (mut lo, mut hi) = if delta.powi(2) > phi.powi(2) + v {
                (alpha, (delta.powi(2) - phi.powi(2) - v).ln())
            } else {
                let mut k = 1.0;
                while f(alpha - k * TAU) < 0.0 { k += 1.0; }
                (alpha - k * TAU, alpha)
            };
            // f falls: keep f(lo) ≥ 0 ≥ f(hi). Where Δ² only just passes
            // φ² + v, the paper's upper end lies below α.
            if f(lo) < f(hi) {
                std::mem::swap(&mut lo, &mut hi);
            }
            for _ in 0..200 {
                let mid = (lo + hi) / 2.0;
                if f(mid) > 0.0 { lo = mid } else { hi = mid }
            }
            let sigma = (lo / 2.0).exp();
            let phi_star = (phi.powi(2) + sigma.powi(2)).sqrt();
            let phi_new = 1.0 / (1.0 / phi_star.powi(2) + 1.0 / v).sqrt();
            let mu_new = mu + phi_new.powi(2) * gj * (score - e);
            let got = a.after(&[(b, score)], TAU);
            prop_assert!(close(got.volatility, sigma, 1e-5), "{got:?} σ {sigma}");
            prop_assert!(close(got.rating, mu_new * SCALE + 1500.0, 0.01), "{got:?}");
            let deviation = (phi_new * SCALE).clamp(MIN_DEVIATION, START.deviation);
            prop_assert!(close(got.deviation, deviation, 0.01), "{got:?}");
        }
    }
}
