//! A monotone power transform of observed values toward a normal shape (Box–Cox for
//! positive values, Yeo–Johnson otherwise), its exponent fitted by maximum likelihood.
//!
//! Why: a GP's standardized, homoscedastic model is poor for skewed objectives (a cost from
//! 14 to 735 with the optimum near the bottom): a few large values set the signal variance,
//! and the differences that matter near the optimum look like noise. A monotone map keeps
//! every comparison (the incumbent, the front, the argmin), so the methods search the warped
//! values as they would the raw ones (docs/decisions.md "Warped outputs").

/// Exponents searched: a grid over this interval, then refined. Up to 1 only: the loop
/// minimizes, and an exponent below 1 makes the map concave, spreading the low values (near
/// the optimum) and compressing the high ones; above 1 it would compress the values that
/// matter most (on the plates, whose best values are a few extreme ones, such warps doubled
/// gp-ei's regret).
use pinnbo_dsl::choices::Warp;

const LAMBDA: (f64, f64) = (-3.0, 1.0);
const GRID: usize = 81;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PowerWarp {
    /// The identity (too few or equal values).
    Identity,
    /// Box–Cox of `y / scale` (all values positive).
    BoxCox { lambda: f64, scale: f64 },
    /// Yeo–Johnson of `y / scale`.
    YeoJohnson { lambda: f64, scale: f64 },
}

fn box_cox(y: f64, lambda: f64) -> f64 {
    match lambda.abs() < 1e-12 {
        true => y.ln(),
        false => (y.powf(lambda) - 1.0) / lambda,
    }
}

fn yeo_johnson(y: f64, lambda: f64) -> f64 {
    match y >= 0.0 {
        true if lambda.abs() < 1e-12 => y.ln_1p(),
        true => ((y + 1.0).powf(lambda) - 1.0) / lambda,
        false if (lambda - 2.0).abs() < 1e-12 => -(-y).ln_1p(),
        false => -((1.0 - y).powf(2.0 - lambda) - 1.0) / (2.0 - lambda),
    }
}

impl PowerWarp {
    /// The transform a method's `warp` setting chooses for `values`: fitted with `power`
    /// unless a noise level above 0 is known (its standard deviation is in the values' own
    /// units, which a warp would bend), with `auto` only where the values are exact (a known
    /// noise of 0); else the identity.
    pub fn chosen(choice: Warp, known_std: Option<f64>, values: &[f64]) -> PowerWarp {
        let warp = matches!(
            (choice, known_std),
            (Warp::Power, None | Some(0.0)) | (Warp::Auto, Some(0.0))
        );
        match warp {
            true => PowerWarp::fit(values),
            false => PowerWarp::Identity,
        }
    }

    /// The transform whose exponent (at most 1) maximizes the normal log-likelihood of the
    /// transformed `values` (the Jacobian included), each divided by their standard deviation
    /// first.
    pub fn fit(values: &[f64]) -> PowerWarp {
        let n = values.len() as f64;
        let equal = values.windows(2).all(|w| w[0] == w[1]);
        if values.len() < 3 || equal || values.iter().any(|v| !v.is_finite()) {
            return PowerWarp::Identity;
        }
        // The standard deviation without overflow or underflow at any magnitude.
        let (_, sd) = super::moments::mean_and_deviation(values);
        let positive = values.iter().all(|v| *v > 0.0);
        let make = |lambda| match positive {
            true => PowerWarp::BoxCox { lambda, scale: sd },
            false => PowerWarp::YeoJohnson { lambda, scale: sd },
        };
        let likelihood = |lambda: f64| {
            let w = make(lambda);
            let z: Vec<f64> = values.iter().map(|v| w.forward(*v)).collect();
            let m = z.iter().sum::<f64>() / n;
            let var = z.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n;
            // log |dz/dy| summed: (λ − 1) log y, or (λ − 1) sign(y) log(|y| + 1), in y / scale.
            let jacobian: f64 = (values.iter())
                .map(|v| {
                    let u = v / sd;
                    match positive {
                        true => (lambda - 1.0) * u.ln(),
                        false => (lambda - 1.0) * u.signum() * u.abs().ln_1p(),
                    }
                })
                .sum();
            match var > 0.0 && var.is_finite() {
                true => -0.5 * n * var.ln() + jacobian,
                false => f64::NEG_INFINITY,
            }
        };
        let step = (LAMBDA.1 - LAMBDA.0) / (GRID - 1) as f64;
        let mut best = (0..GRID)
            .map(|i| LAMBDA.0 + i as f64 * step)
            .max_by(|a, b| likelihood(*a).total_cmp(&likelihood(*b)))
            .unwrap_or(1.0);
        // Golden-section refinement within a grid step either side.
        let (mut lo, mut hi) = ((best - step).max(LAMBDA.0), (best + step).min(LAMBDA.1));
        let g = (5f64.sqrt() - 1.0) / 2.0;
        for _ in 0..40 {
            let (a, b) = (hi - g * (hi - lo), lo + g * (hi - lo));
            match likelihood(a) > likelihood(b) {
                true => hi = b,
                false => lo = a,
            }
        }
        let refined = 0.5 * (lo + hi);
        if likelihood(refined) > likelihood(best) {
            best = refined;
        }
        make(best)
    }

    /// The fitted exponent (journaled as `warp`); None for the identity.
    pub fn exponent(&self) -> Option<f64> {
        match *self {
            PowerWarp::Identity => None,
            PowerWarp::BoxCox { lambda, .. } | PowerWarp::YeoJohnson { lambda, .. } => Some(lambda),
        }
    }

    /// The warped value: increasing in `y`.
    pub fn forward(&self, y: f64) -> f64 {
        match *self {
            PowerWarp::Identity => y,
            PowerWarp::BoxCox { lambda, scale } => match y > 0.0 {
                true => box_cox(y / scale, lambda),
                // Outside Box–Cox's domain (a value below every observed one, which are all
                // positive): continued linearly from the smallest positive value it handles.
                false => box_cox(1e-12, lambda) + (y / scale - 1e-12) * 1e-12f64.powf(lambda - 1.0),
            },
            PowerWarp::YeoJohnson { lambda, scale } => yeo_johnson(y / scale, lambda),
        }
    }

    /// The value whose warp is `z` (the warp's range clamped where it is bounded).
    pub fn inverse(&self, z: f64) -> f64 {
        match *self {
            PowerWarp::Identity => z,
            PowerWarp::BoxCox { lambda, scale } => {
                let y = match lambda.abs() < 1e-12 {
                    true => z.exp(),
                    false => (lambda * z + 1.0).max(0.0).powf(1.0 / lambda),
                };
                y * scale
            }
            PowerWarp::YeoJohnson { lambda, scale } => {
                let y = match z >= 0.0 {
                    true if lambda.abs() < 1e-12 => z.exp_m1(),
                    true => (lambda * z + 1.0).max(0.0).powf(1.0 / lambda) - 1.0,
                    false if (lambda - 2.0).abs() < 1e-12 => -(-z).exp_m1(),
                    false => {
                        1.0 - (1.0 - (2.0 - lambda) * z)
                            .max(0.0)
                            .powf(1.0 / (2.0 - lambda))
                    }
                };
                y * scale
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Log-normal values are warped by a near-logarithm (Box–Cox's λ near 0); normal values
    /// are left near-linear (Yeo–Johnson's λ near 1 on values of both signs); the warp
    /// increases and its inverse undoes it.
    #[test]
    fn the_fitted_exponent_normalizes_and_the_warp_inverts() {
        let normal: Vec<f64> = (1..200)
            .map(|i| {
                statrs::function::erf::erf_inv(2.0 * i as f64 / 200.0 - 1.0)
                    * std::f64::consts::SQRT_2
            })
            .collect();
        let lognormal: Vec<f64> = normal.iter().map(|z| (0.8 * z).exp() * 30.0).collect();
        let PowerWarp::BoxCox { lambda, .. } = PowerWarp::fit(&lognormal) else {
            panic!("positive values take Box–Cox");
        };
        assert!(lambda.abs() < 0.05, "{lambda}");
        let PowerWarp::YeoJohnson { lambda, .. } = PowerWarp::fit(&normal) else {
            panic!("values of both signs take Yeo–Johnson");
        };
        assert!((lambda - 1.0).abs() < 0.2, "{lambda}");
        for w in [PowerWarp::fit(&lognormal), PowerWarp::fit(&normal)] {
            let mut previous = f64::NEG_INFINITY;
            for y in [-3.0, -0.5, 0.0, 0.2, 1.0, 17.0, 400.0] {
                let z = w.forward(y);
                assert!(z > previous, "{w:?} at {y}");
                previous = z;
                if !(matches!(w, PowerWarp::BoxCox { .. }) && y <= 0.0) {
                    assert!(
                        (w.inverse(z) - y).abs() < 1e-9 * y.abs().max(1.0),
                        "{w:?} at {y}"
                    );
                }
            }
        }
        assert_eq!(PowerWarp::fit(&[2.0, 2.0, 2.0]), PowerWarp::Identity);
    }

    /// `warp` chooses: `power` unless a noise level above 0 is known, `auto` only for exact
    /// values, `none` never.
    #[test]
    fn the_setting_chooses_where_to_warp() {
        let skewed: Vec<f64> = (1..=12).map(|k| (k as f64 * 0.7).exp()).collect();
        let warped = |w, known| PowerWarp::chosen(w, known, &skewed) != PowerWarp::Identity;
        assert!(warped(Warp::Power, None) && warped(Warp::Power, Some(0.0)));
        assert!(!warped(Warp::Power, Some(0.5)));
        assert!(warped(Warp::Auto, Some(0.0)));
        assert!(!warped(Warp::Auto, None) && !warped(Warp::Auto, Some(0.5)));
        assert!(!warped(Warp::None, Some(0.0)));
    }
}
