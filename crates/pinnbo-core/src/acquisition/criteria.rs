//! The acquisition criteria, in minimization form, each with its value and the gradient the
//! smooth search follows: expected improvement and its logarithm, the probability of
//! feasibility, the lower confidence bound, and Thompson sampling's joint draw.

use crate::acquisition::domain::Domain;
use crate::acquisition::search::{maximize_smooth, Search};
use crate::error::{StrategyError, Within};
use crate::numerics::cholesky::Spd;
use crate::surrogates::gp::GpModel;
use crate::surrogates::GpPosterior;
use faer::Mat;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use statrs::distribution::{Continuous, ContinuousCDF, Normal};

/// Expected improvement below `best` of a normal prediction: `u Φ(u/s) + s φ(u/s)`,
/// `u = best − mean`; `max(u, 0)` when `s = 0`.
pub fn expected_improvement(best: f64, mean: f64, std: f64) -> f64 {
    let u = best - mean;
    if std <= 0.0 {
        return u.max(0.0);
    }
    let n = Normal::standard();
    let z = u / std;
    u * n.cdf(z) + std * n.pdf(z)
}

/// `log EI`, finite wherever `std > 0` however far below the incumbent the prediction is:
/// EI itself underflows to 0 a few standard deviations away, which leaves the candidates
/// tied and the refinement without a gradient. With z = (best − mean)/std,
/// EI = std · h(z), h(z) = φ(z) + z Φ(z); below z = −20 (where the direct form has lost two
/// digits to cancellation) h(z) = φ(z) (1/z² − 3/z⁴ + 15/z⁶ − ..), the asymptotic series of
/// the Mills ratio.
pub fn log_expected_improvement(best: f64, mean: f64, std: f64) -> f64 {
    let u = best - mean;
    if std <= 0.0 {
        return u.max(0.0).ln();
    }
    let z = u / std;
    let log_h = if z > -20.0 {
        let n = Normal::standard();
        (n.pdf(z) + z * n.cdf(z)).ln()
    } else {
        log_pdf(z) + (z * z).recip().ln() + mills_tail(z).ln()
    };
    std.ln() + log_h
}

/// `log AEI`: [`log_expected_improvement`] plus `log(1 − σ_n/√(std² + σ_n²))`, the share of
/// the prediction's spread an evaluation with noise of standard deviation `noise` can still
/// remove (augmented expected improvement, docs/algorithms.md §6). Where the model already
/// knows the field to well within the noise (a point evaluated again and again) the factor
/// goes to zero as (std/σ_n)²/2, so a point is evaluated again only when its improvement
/// outweighs that; without noise the factor is one and this is log EI.
pub fn log_augmented_expected_improvement(best: f64, mean: f64, std: f64, noise: f64) -> f64 {
    let log_ei = log_expected_improvement(best, mean, std);
    if noise <= 0.0 {
        return log_ei;
    }
    // 1 − 1/√(1 + r²) = r² / (√(1 + r²) (1 + √(1 + r²))), without cancellation for small r.
    let r2 = (std / noise).powi(2);
    let root = (1.0 + r2).sqrt();
    log_ei + (r2 / (root * (1.0 + root))).ln()
}

/// `log Φ(−mean/std)`: the log probability that a normal prediction is `<= 0`, finite far
/// into the tail (Φ(−a) = φ(a)/a · (1 − 1/a² + 3/a⁴ − ..) below −20).
pub fn log_probability_nonpositive(mean: f64, std: f64) -> f64 {
    if std <= 0.0 {
        return if mean <= 0.0 { 0.0 } else { f64::NEG_INFINITY };
    }
    let x = -mean / std;
    if x > -20.0 {
        Normal::standard().cdf(x).ln()
    } else {
        log_pdf(x) - (-x).ln() + mills_series(x).ln()
    }
}

/// A score's term of the point itself, with its gradient in the point.
type PointTerm<'a> = dyn Fn(&[f64]) -> (f64, Vec<f64>) + Sync + 'a;

/// How far an evaluation sent elsewhere keeps from every point already evaluated, in each
/// coordinate: a tenth of the model's length scale there (closer, the kernel's correlation
/// with that point is above 0.995: the evaluation measures nearly nothing new), and at least
/// a thousandth of the box.
const APART: (f64, f64) = (0.1, 1e-3);

/// `log(1 − 1/d²)` with `d` the distance from `u` to the nearest of `points` in units of
/// `radii` (one per coordinate), and its gradient: −∞ within the radii of a point, about 0
/// a few radii away.
fn log_away(u: &[f64], points: &[&[f64]], radii: &[f64]) -> (f64, Vec<f64>) {
    let squared = |p: &[f64]| {
        (p.iter().zip(u).zip(radii))
            .map(|((a, b), r)| ((a - b) / r).powi(2))
            .sum::<f64>()
    };
    let Some((d2, nearest)) =
        (points.iter().map(|p| (squared(p), p))).min_by(|a, b| a.0.total_cmp(&b.0))
    else {
        return (0.0, vec![0.0; u.len()]);
    };
    if d2 <= 1.0 {
        return (f64::NEG_INFINITY, vec![0.0; u.len()]);
    }
    // d/du_i log(1 − 1/d²) = 2 (u_i − p_i) / (r_i² d² (d² − 1)).
    let slope = 2.0 / (d2 * (d2 - 1.0));
    let grad = (u.iter().zip(*nearest).zip(radii))
        .map(|((a, b), r)| slope * (a - b) / (r * r))
        .collect();
    ((-1.0 / d2).ln_1p(), grad)
}

/// log φ(z).
fn log_pdf(z: f64) -> f64 {
    -0.5 * z * z - 0.5 * (2.0 * std::f64::consts::PI).ln()
}

/// 1 − 1/z² + 3/z⁴ − 15/z⁶ + 105/z⁸: a Φ(−a)/φ(a) for a = |z| ≥ 20, to 1e-10.
fn mills_series(z: f64) -> f64 {
    let r = (z * z).recip();
    1.0 - r * (1.0 - 3.0 * r * (1.0 - 5.0 * r * (1.0 - 7.0 * r)))
}

/// z² h(z)/φ(z) = 1 − 3/z² + 15/z⁴ − 105/z⁶ + 945/z⁸ for z ≤ −20, to 1e-10.
fn mills_tail(z: f64) -> f64 {
    let r = (z * z).recip();
    1.0 - 3.0 * r * (1.0 - 5.0 * r * (1.0 - 7.0 * r * (1.0 - 9.0 * r)))
}

/// The probability that a normal prediction is `<= 0`.
pub fn probability_nonpositive(mean: f64, std: f64) -> f64 {
    if std <= 0.0 {
        return if mean <= 0.0 { 1.0 } else { 0.0 };
    }
    Normal::standard().cdf(-mean / std)
}

/// `f(mean, std)` of `model`'s prediction at `u` (the data's units) and its gradient in `u`:
/// the prediction's gradient is exact, `f`'s two partial derivatives central differences
/// (cheap, and accurate for the smooth acquisitions here, whose closed forms switch to
/// asymptotic series in the tails).
pub fn with_gradient(
    model: &dyn GpPosterior,
    u: &[f64],
    f: impl Fn(f64, f64) -> f64,
) -> (f64, Vec<f64>) {
    let g = model.predict_gradient(u);
    let scale = model.standardizer().std;
    let (mean, sd) = (
        model.standardizer().inverse(g.mean),
        g.variance.sqrt() * scale,
    );
    let value = f(mean, sd);
    let h = 1e-6 * sd.max(1e-9 * scale);
    let by_mean = (f(mean + h, sd) - f(mean - h, sd)) / (2.0 * h);
    let by_sd = match sd > h {
        true => (f(mean, sd + h) - f(mean, sd - h)) / (2.0 * h),
        false => (f(mean, sd + h) - value) / h,
    };
    // ∂sd/∂u = scale ∂v/∂u / (2 √v), none where the variance vanishes.
    let sd_slope = match g.variance > 0.0 {
        true => scale / (2.0 * g.variance.sqrt()),
        false => 0.0,
    };
    let grad = (g.d_mean.iter().zip(&g.d_variance))
        .map(|(dm, dv)| by_mean * scale * dm + by_sd * sd_slope * dv)
        .collect();
    (value, grad)
}

/// What a GP method's criterion is computed from: the objective's model and each
/// constraint's (feasible where `<= 0`).
pub struct GpModels<'a> {
    pub objective: &'a dyn GpPosterior,
    pub constraints: &'a [GpModel],
}

impl GpModels<'_> {
    /// The probability that every constraint holds at `u`.
    pub fn feasibility(&self, u: &[f64]) -> f64 {
        self.constraints
            .iter()
            .map(|g| {
                let (m, s) = g.predict(u);
                probability_nonpositive(m, s)
            })
            .product()
    }

    /// Each point's log probability of satisfying every constraint, at many points.
    fn log_feasibility_many(&self, points: &[Vec<f64>]) -> Vec<f64> {
        let mut total = vec![0.0; points.len()];
        for g in self.constraints {
            for (t, (m, s)) in total.iter_mut().zip(g.predict_batch(points)) {
                *t += log_probability_nonpositive(m, s);
            }
        }
        total
    }

    /// The point of `domain` that maximizes augmented expected improvement below `incumbent`
    /// (observations with noise of standard deviation `noise`) times the probability of
    /// feasibility (that probability alone without an incumbent), and the criterion's value
    /// there.
    pub fn maximize_expected_improvement(
        &self,
        incumbent: Option<f64>,
        noise: f64,
        domain: &Domain,
        search: Search,
        rng: &mut ChaCha8Rng,
    ) -> (Vec<f64>, f64) {
        // Log EI plus the constraints' log probabilities: the same maximizer as EI × PoF,
        // without the underflow that flattens EI far from the incumbent.
        let log_ei =
            incumbent.map(|best| move |m, s| log_augmented_expected_improvement(best, m, s, noise));
        let log_ei = log_ei
            .as_ref()
            .map(|f| f as &(dyn Fn(f64, f64) -> f64 + Sync));
        let (unit, log_value) = self.maximize_log_score(log_ei, None, domain, search, rng);
        (unit, log_value.exp())
    }

    /// The point of `domain` where the objective's posterior standard deviation times the
    /// probability of feasibility, and with an `incumbent` the probability of lying below it,
    /// is largest (logs added), away from the points of `apart` ([`APART`]); and that
    /// standard deviation: where an evaluation teaches the model most among the new points
    /// that could improve on the best. Without that probability a model sure of the field
    /// everywhere sends the evaluations to wherever its tiny uncertainty is largest, the
    /// field's maxima included (docs/decisions.md "Where an evaluation goes instead of a
    /// repeat").
    pub fn maximize_uncertainty(
        &self,
        incumbent: Option<f64>,
        apart: &[&[f64]],
        domain: &Domain,
        search: Search,
        rng: &mut ChaCha8Rng,
    ) -> (Vec<f64>, f64) {
        let log_score = |m: f64, s: f64| {
            let below = incumbent.map_or(0.0, |best| log_probability_nonpositive(m - best, s));
            s.max(f64::MIN_POSITIVE).ln() + below
        };
        let radii: Vec<f64> = (self.objective.lengthscales().iter())
            .map(|l| (APART.0 * l).max(APART.1))
            .collect();
        let away = |u: &[f64]| log_away(u, apart, &radii);
        let (unit, _) = self.maximize_log_score(Some(&log_score), Some(&away), domain, search, rng);
        let sd = self.objective.predict(&unit).1;
        (unit, sd)
    }

    /// The point of `domain` that maximizes `log_score(mean, std)` of the objective's
    /// prediction (none: 0) plus every constraint's log probability of feasibility plus
    /// `at(u)` (a term of the point itself, with its gradient), and that maximum: by
    /// [`maximize_smooth`], candidates screened in batches.
    fn maximize_log_score(
        &self,
        log_score: Option<&(dyn Fn(f64, f64) -> f64 + Sync)>,
        at: Option<&PointTerm<'_>>,
        domain: &Domain,
        search: Search,
        rng: &mut ChaCha8Rng,
    ) -> (Vec<f64>, f64) {
        let objective = self.objective;
        let score = |u: &[f64]| -> Option<(f64, Vec<f64>)> {
            let mut total = match log_score {
                Some(f) => with_gradient(objective, u, f),
                None => (0.0, vec![0.0; u.len()]),
            };
            for g in self.constraints {
                let (v, grad) = with_gradient(g, u, log_probability_nonpositive);
                total.0 += v;
                total.1.iter_mut().zip(grad).for_each(|(a, b)| *a += b);
            }
            if let Some(at) = at {
                let (v, grad) = at(u);
                total.0 += v;
                total.1.iter_mut().zip(grad).for_each(|(a, b)| *a += b);
            }
            Some(total)
        };
        let screen = |points: &[Vec<f64>]| -> Vec<f64> {
            let mut total = self.log_feasibility_many(points);
            if let Some(f) = log_score {
                let predictions = objective.predict_batch(points);
                for (t, (m, s)) in total.iter_mut().zip(predictions) {
                    *t += f(m, s);
                }
            }
            if let Some(at) = at {
                for (t, p) in total.iter_mut().zip(points) {
                    *t += at(p).0;
                }
            }
            total
        };
        maximize_smooth(&score, &screen, domain, search, rng)
    }

    /// The effective best among the feasible `observed` points (Huang et al. 2006): the
    /// posterior mean where mean plus one standard deviation is smallest, so that a noisy
    /// observation that merely looks good does not set the bar. None before any feasible one.
    pub fn incumbent(&self, observed: &[&[f64]]) -> Option<f64> {
        observed
            .iter()
            .map(|u| {
                let (mean, sd) = self.objective.predict(u);
                (mean + sd, mean)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, mean)| mean)
    }

    /// The point of `domain` with the lowest confidence bound `mean − √β std` among those
    /// likely feasible, and the bound's negation in standardized units.
    pub fn maximize_confidence_bound(
        &self,
        beta: f64,
        domain: &Domain,
        search: Search,
        rng: &mut ChaCha8Rng,
    ) -> (Vec<f64>, f64) {
        let objective = self.objective;
        // The bound in standardized units; points unlikely to be feasible rank after every
        // likely one.
        let scale = objective.standardizer().std;
        let bound = |m: f64, s: f64| beta.sqrt() * s / scale - objective.standardizer().forward(m);
        let penalty = |feasible: f64| if feasible < 0.5 { 1e6 } else { 0.0 };
        let score = |u: &[f64]| -> Option<(f64, Vec<f64>)> {
            let (lcb, grad) = with_gradient(objective, u, bound);
            Some((lcb - penalty(self.feasibility(u)), grad))
        };
        let screen = |points: &[Vec<f64>]| -> Vec<f64> {
            let predictions = objective.predict_batch(points);
            let feasible = self.log_feasibility_many(points);
            (predictions.into_iter().zip(feasible))
                .map(|((m, s), f)| bound(m, s) - penalty(f.exp()))
                .collect()
        };
        maximize_smooth(&score, &screen, domain, search, rng)
    }

    /// One joint posterior draw on Sobol candidates of `domain`; the smallest among those
    /// likely feasible, and the draw there.
    pub fn thompson(
        &self,
        domain: &Domain,
        rng: &mut ChaCha8Rng,
    ) -> Result<(Vec<f64>, f64), StrategyError> {
        let model = self.objective;
        let seed = rng.random::<u64>();
        let flat = domain.candidates(TS_CANDIDATES, seed);
        let points: Vec<Vec<f64>> = flat.chunks(domain.d).map(<[f64]>::to_vec).collect();
        let (means, cov): (Vec<f64>, Mat<f64>) = model.joint(&points);
        let spd = Spd::new(&cov, "posterior covariance").within(PART)?;
        let z: Vec<f64> = (0..points.len())
            .map(|_| rng.sample(StandardNormal))
            .collect();
        let l = spd.lower_factor();
        let mut best = (0, f64::INFINITY);
        for i in 0..points.len() {
            let draw = means[i] + (0..=i).map(|j| l[(i, j)] * z[j]).sum::<f64>();
            let penalized = if self.feasibility(&points[i]) < 0.5 {
                f64::INFINITY
            } else {
                draw
            };
            if penalized < best.1 {
                best = (i, penalized);
            }
        }
        if !best.1.is_finite() {
            best.0 = (0..points.len())
                .max_by(|&a, &b| {
                    (self.feasibility(&points[a])).total_cmp(&self.feasibility(&points[b]))
                })
                .unwrap_or(0);
        }
        Ok((points[best.0].clone(), model.standardizer().inverse(best.1)))
    }
}

/// Thompson samples are drawn jointly on this many candidates (a dense Cholesky of that size).
const TS_CANDIDATES: usize = 1024;

/// Where the criteria's errors arise, for their messages.
const PART: &str = "Gaussian process";

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn log_expected_improvement_is_the_log_of_ei_and_stays_finite() {
        for (best, mean, std) in [
            (0.0, -1.0, 0.5),
            (0.0, 0.0, 1.0),
            (0.0, 3.0, 1.0),
            (1.0, 9.0, 0.5),
        ] {
            let (log, plain) = (
                log_expected_improvement(best, mean, std),
                expected_improvement(best, mean, std).ln(),
            );
            assert!(
                (log - plain).abs() < 1e-9 * plain.abs().max(1.0),
                "{log} vs {plain}"
            );
        }
        let (below, above) = (
            log_expected_improvement(0.0, 20.0 + 1e-9, 1.0),
            log_expected_improvement(0.0, 20.0 - 1e-9, 1.0),
        );
        assert!((below - above).abs() < 1e-7, "{below} vs {above}");
        assert_eq!(expected_improvement(0.0, 60.0, 1.0), 0.0);
        let (far, farther) = (
            log_expected_improvement(0.0, 60.0, 1.0),
            log_expected_improvement(0.0, 61.0, 1.0),
        );
        assert!(far.is_finite() && farther < far, "{far} {farther}");
        // ln h(−60) = −1800 − ½ ln 2π − 2 ln 60 + ln(1 − 3/3600 + 15/3600² − ..).
        let expected = -1800.0 - 0.5 * (2.0 * std::f64::consts::PI).ln() - 2.0 * 60f64.ln()
            + (1.0 - 3.0 / 3600.0 + 15.0 / 3600f64.powi(2) - 105.0 / 3600f64.powi(3)).ln();
        assert!((far - expected).abs() < 1e-10, "{far} vs {expected}");
    }

    #[test]
    fn log_probability_of_feasibility_is_continuous_into_the_tail() {
        let p = log_probability_nonpositive(1.0, 2.0);
        assert!((p - probability_nonpositive(1.0, 2.0).ln()).abs() < 1e-12);
        let (a, b) = (
            log_probability_nonpositive(20.0 - 1e-9, 1.0),
            log_probability_nonpositive(20.0 + 1e-9, 1.0),
        );
        assert!((a - b).abs() < 1e-7, "{a} vs {b}");
        assert!(log_probability_nonpositive(80.0, 1.0).is_finite());
        assert_eq!(log_probability_nonpositive(-1.0, 0.0), 0.0);
    }
    use rand_distr::{Distribution, Normal as Gauss};

    #[test]
    fn expected_improvement_matches_monte_carlo() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for (best, mean, std) in [
            (0.0_f64, 0.3_f64, 0.5_f64),
            (1.0, 0.2, 0.1),
            (-2.0, 1.0, 2.0),
        ] {
            let g = Gauss::new(mean, std).unwrap();
            let n = 400_000;
            let mc = (0..n)
                .map(|_| (best - g.sample(&mut rng)).max(0.0_f64))
                .sum::<f64>()
                / n as f64;
            let exact = expected_improvement(best, mean, std);
            // Monte Carlo standard error is below std / sqrt(n) ≈ 3e-3 here.
            assert!(
                (mc - exact).abs() < 4.0 * std / (n as f64).sqrt(),
                "{exact} vs {mc}"
            );
        }
        assert_eq!(expected_improvement(1.0, 0.25, 0.0), 0.75);
    }
}
