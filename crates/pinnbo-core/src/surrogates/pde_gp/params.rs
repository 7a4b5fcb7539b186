//! The pde's unknown constants (`param`), fitted with the kernel's hyperparameters by the
//! likelihood of the observations given the pde (MAP under a uniform prior on each param's
//! box, in the coordinate it is fitted in: its log for a `log` param). The equations move
//! with the params, so every evaluation of the likelihood reads them at its own values, with
//! their derivatives for the gradient ([`ParamSlope`]); their uncertainty is `spread.rs`'s.

use super::rows::{ParamSlope, Rows};
use super::Residuals;
use crate::numerics::design::{points, Design};
use crate::space::Standardizer;

/// The pde's equations as functions of its params: what a fit of the params reads.
pub trait ParamEquations: Sync {
    /// Each param's box in the coordinate it is fitted in.
    fn bounds(&self) -> Vec<(f64, f64)>;

    /// The equations at the fitted coordinates `phi`, and their derivative in each of them,
    /// row by row; None where they cannot be read (a coefficient not finite anywhere).
    fn at(&self, phi: &[f64]) -> Option<(Residuals, Vec<Residuals>)>;

    /// Each param's unit of relative change at the fitted coordinates `phi`: a move `d` of
    /// its coordinate changes it by `d / unit` of itself. What "a direction moves a param"
    /// is weighed in, so that it does not depend on the param's units. The default: the
    /// fitted coordinates are relative already (logs).
    fn units(&self, phi: &[f64]) -> Vec<f64> {
        vec![1.0; phi.len()]
    }
}

/// Where a fit's rows come from: fixed equations (built once), or equations that move with
/// the params.
pub(super) enum RowSource<'a> {
    Fixed(Rows),
    Params {
        equations: &'a dyn ParamEquations,
        x: &'a [Vec<f64>],
        values: &'a [f64],
        /// The observations' own standard errors (empty: none).
        sems: &'a [Option<f64>],
    },
}

impl RowSource<'_> {
    /// The points' dimension and the observations' standardizer.
    pub(super) fn dim_and_standardizer(&self) -> (usize, Standardizer) {
        match self {
            RowSource::Fixed(rows) => (rows.functionals[0].point.len(), rows.standardizer),
            RowSource::Params { x, values, .. } => (x[0].len(), Standardizer::fit(values)),
        }
    }

    /// How many observations the rows hold.
    pub(super) fn observed(&self) -> usize {
        match self {
            RowSource::Fixed(rows) => rows.observed,
            RowSource::Params { x, .. } => x.len(),
        }
    }

    /// `f` of the rows at the params `phi` and their slopes in each.
    pub(super) fn with<T>(
        &self,
        phi: &[f64],
        f: impl FnOnce(&Rows, &[ParamSlope]) -> Option<T>,
    ) -> Option<T> {
        match self {
            RowSource::Fixed(rows) => f(rows, &[]),
            RowSource::Params {
                equations,
                x,
                values,
                sems,
            } => {
                let (residuals, derivatives) = equations.at(phi)?;
                let rows = Rows::new(x, values, &residuals).ok()?.with_sems(sems);
                let slopes: Vec<ParamSlope> = (derivatives.iter())
                    .map(|d| ParamSlope::new(d, &rows.standardizer))
                    .collect();
                f(&rows, &slopes)
            }
        }
    }

    /// The rows at `phi`, to condition on.
    pub(super) fn rows(self, phi: &[f64]) -> Option<Rows> {
        match self {
            RowSource::Fixed(rows) => Some(rows),
            RowSource::Params {
                equations,
                x,
                values,
                sems,
            } => Some(
                Rows::new(x, values, &equations.at(phi)?.0)
                    .ok()?
                    .with_sems(sems),
            ),
        }
    }
}

/// Where the fit's grid of length scales is scored in the params: the previous step's
/// estimate, else the centre of their box.
pub(super) fn base_params(bounds: &[(f64, f64)], previous: Option<&[f64]>) -> Vec<f64> {
    match previous.filter(|p| p.len() == bounds.len()) {
        Some(p) => p.to_vec(),
        None => bounds.iter().map(|(lo, hi)| 0.5 * (lo + hi)).collect(),
    }
}

/// How many values of the params the fit scores before it starts: the likelihood in a
/// wavenumber or a rate is narrow where the pde is exact, and has several optima. A first
/// fit scores 32; a fit that goes on from the previous step's estimate 8, enough to leave a
/// wrong basin (a cold fit follows when one of them scores better), at a quarter of the cost.
const SWEEP: (usize, usize) = (32, 8);

/// The params' sweep: a Sobol set of points of their box ([`SWEEP`]).
pub(super) fn sweep(bounds: &[(f64, f64)], warm: bool) -> Vec<Vec<f64>> {
    if bounds.is_empty() {
        return Vec::new();
    }
    let count = if warm { SWEEP.1 } else { SWEEP.0 };
    (points(Design::Sobol, count, bounds.len(), 0).into_iter())
        .map(|u| {
            (u.iter().zip(bounds))
                .map(|(t, (lo, hi))| lo + t * (hi - lo))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::kernel::{Functional, Term};
    use super::super::likelihood::objective;
    use super::super::{PdeGp, PdeModel, Residuals, Scaling};
    use super::*;
    use crate::surrogates::gp::{Mean, Prior};
    use crate::surrogates::{KnownNoise, Starts};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// `t² ∂xx f − sin(t) x ∂y f + t v f = t³ + x` at fixed points, with its derivative in `t`
    /// (`v` switches the value term, which moves a constant mean too).
    struct Toy {
        z: Vec<Vec<f64>>,
        v: f64,
    }

    impl Toy {
        fn equations(&self, coefficients: [f64; 3], target: impl Fn(&[f64]) -> f64) -> Residuals {
            let term = |orders: Vec<u32>, coefficient| Term {
                orders,
                coefficient,
            };
            Residuals {
                functionals: (self.z.iter())
                    .map(|p| Functional {
                        point: p.clone(),
                        terms: vec![
                            term(vec![2, 0], coefficients[0]),
                            term(vec![0, 1], coefficients[1] * p[0]),
                            term(vec![0, 0], coefficients[2] * self.v),
                        ],
                    })
                    .collect(),
                targets: self.z.iter().map(|p| target(p)).collect(),
                value_coefficients: vec![coefficients[2] * self.v; self.z.len()],
            }
        }
    }

    impl ParamEquations for Toy {
        fn bounds(&self) -> Vec<(f64, f64)> {
            vec![(-1.0, 2.0)]
        }

        fn at(&self, phi: &[f64]) -> Option<(Residuals, Vec<Residuals>)> {
            let t = phi[0];
            let value = self.equations([t * t, -t.sin(), t], |p| t.powi(3) + p[0]);
            let slope = self.equations([2.0 * t, -t.cos(), 1.0], |_| 3.0 * t * t);
            Some((value, vec![slope]))
        }
    }

    fn model(scaling: Scaling, mean: Mean, discrepancy: bool) -> PdeModel {
        PdeModel {
            prior: Prior::DimensionScaled,
            scaling,
            mean,
            discrepancy,
        }
    }

    /// The likelihood's gradient in a param (the equations' coefficients, targets and value
    /// terms all move with it) against central differences, under both scalings, both
    /// means, with and without a discrepancy.
    #[test]
    fn the_param_gradient_matches_differences() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let x: Vec<Vec<f64>> = (0..6).map(|_| vec![rng.random(), rng.random()]).collect();
        let values: Vec<f64> = (x.iter())
            .map(|p| (3.0 * (p[0] * p[0] + p[1] * p[1])).cos())
            .collect();
        let z: Vec<Vec<f64>> = (0..8).map(|_| vec![rng.random(), rng.random()]).collect();
        for v in [0.0, 0.8] {
            let toy = Toy { z: z.clone(), v };
            let source = RowSource::Params {
                equations: &toy,
                x: &x,
                values: &values,
                sems: &[],
            };
            for scaling in [Scaling::Point, Scaling::Global] {
                for mean in [Mean::Constant, Mean::Average] {
                    for discrepancy in [false, true] {
                        let model = model(scaling, mean, discrepancy);
                        let delta: &[f64] = if discrepancy { &[-2.0, -1.1] } else { &[] };
                        let theta: Vec<f64> = [-1.2, -0.7, 0.4, -5.0, -9.0]
                            .into_iter()
                            .chain(delta.iter().copied())
                            .chain([0.7])
                            .collect();
                        let f = |t: &[f64]| {
                            let phi = &t[t.len() - 1..];
                            source.with(phi, |rows, slopes| objective(rows, slopes, model, t))
                        };
                        let g = f(&theta).unwrap().1;
                        let last = theta.len() - 1;
                        let at = |s: f64| {
                            let mut t = theta.clone();
                            t[last] += s;
                            f(&t).unwrap().0
                        };
                        let eps = 1e-6;
                        let fd = (at(eps) - at(-eps)) / (2.0 * eps);
                        assert!(
                            (fd - g[last]).abs() < 1e-5 * fd.abs().max(1.0),
                            "{model:?} {v}: {} vs {fd}",
                            g[last]
                        );
                    }
                }
            }
        }
    }

    /// `u'' + k² u = 0` on [0, 1] at 24 points, `k` the param (on [1, 6]).
    struct Wave {
        z: Vec<f64>,
    }

    impl ParamEquations for Wave {
        fn bounds(&self) -> Vec<(f64, f64)> {
            vec![(1.0, 6.0)]
        }

        fn at(&self, phi: &[f64]) -> Option<(Residuals, Vec<Residuals>)> {
            let k = phi[0];
            Some((wave(&self.z, 1.0, k * k), vec![wave(&self.z, 0.0, 2.0 * k)]))
        }
    }

    /// `a u'' + c u = 0` at `z`.
    fn wave(z: &[f64], a: f64, c: f64) -> Residuals {
        Residuals {
            functionals: (z.iter())
                .map(|&p| Functional {
                    point: vec![p],
                    terms: vec![
                        Term {
                            orders: vec![2],
                            coefficient: a,
                        },
                        Term {
                            orders: vec![0],
                            coefficient: c,
                        },
                    ],
                })
                .collect(),
            targets: vec![0.0; z.len()],
            value_coefficients: vec![c; z.len()],
        }
    }

    /// On a tiny problem the joint fit's param is the grid search's: the likelihood at the
    /// best of 51 values of `k`, each with its own hyperparameters fitted, is no better than
    /// at the joint fit's `k`, which lies within a grid step of it.
    #[test]
    fn the_fitted_param_is_the_grid_searchs() {
        let truth: f64 = 3.7;
        let x: Vec<Vec<f64>> = (0..7).map(|i| vec![(i as f64 + 0.4) / 7.0]).collect();
        let values: Vec<f64> = x.iter().map(|p| (truth * p[0] + 0.3).sin()).collect();
        let z: Vec<f64> = (0..24).map(|j| (j as f64 + 0.5) / 24.0).collect();
        let model = model(Scaling::Point, Mean::Constant, false);
        let starts = || Starts {
            previous: None,
            restarts: 3,
        };
        let equations = Wave { z: z.clone() };
        let joint = PdeGp::fit_with_params(
            model,
            &x,
            &values,
            &equations,
            starts(),
            &KnownNoise::default(),
        )
        .unwrap();
        let k = joint.hyper.params[0];
        let grid: Vec<(f64, f64)> = (0..=50)
            .map(|i| 1.0 + 0.1 * i as f64)
            .map(|k| {
                let r = wave(&z, 1.0, k * k);
                (
                    k,
                    PdeGp::fit(model, &x, &values, &r, starts(), &KnownNoise::default())
                        .unwrap()
                        .nll,
                )
            })
            .collect();
        let (best_k, best_nll) =
            grid.iter().fold(
                (0.0, f64::INFINITY),
                |b, &(k, v)| {
                    if v < b.1 {
                        (k, v)
                    } else {
                        b
                    }
                },
            );
        assert!((k - best_k).abs() <= 0.1, "joint {k}, grid {best_k}");
        assert!(joint.nll <= best_nll + 1e-2, "{} vs {best_nll}", joint.nll);
        assert!((k - truth).abs() < 0.2, "k = {k}");
        assert!(joint.param_spread.std[0].is_finite() && joint.param_spread.std[0] > 0.0);
    }

    /// The reported std is a coverage claim: on 20 noisy draws of `sin(3.7 x + 0.3)` at 8
    /// points, the truth lies within 2 std of the reported `k` on at least 18. (The fit's
    /// optimum with the Laplace approximation's std covered it on 16: two draws fitted a
    /// second mode, k ≈ 5.5 ± 0.02 and ± 0.2, where the profile reports ± 0.95 and ± 1.1.)
    #[test]
    fn the_std_covers_the_truth_over_noisy_draws() {
        let truth: f64 = 3.7;
        let equations = Wave {
            z: (0..24).map(|j| (j as f64 + 0.5) / 24.0).collect(),
        };
        let model = model(Scaling::Point, Mean::Constant, false);
        let x: Vec<Vec<f64>> = (0..8).map(|i| vec![(i as f64 + 0.5) / 8.0]).collect();
        let noise = rand_distr::Normal::new(0.0, 0.1).unwrap();
        let covered = (0..20u64)
            .filter(|&seed| {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let values: Vec<f64> = (x.iter())
                    .map(|p| {
                        (truth * p[0] + 0.3).sin()
                            + rand_distr::Distribution::sample(&noise, &mut rng)
                    })
                    .collect();
                let starts = Starts {
                    previous: None,
                    restarts: 3,
                };
                let known = KnownNoise::default();
                let fit =
                    PdeGp::fit_with_params(model, &x, &values, &equations, starts, &known).unwrap();
                // The fit reads no profile; reading them moves none of its coordinates.
                assert!(fit.param_spread.profiles.is_empty());
                let hyper = fit.hyper.clone();
                let gp = fit.with_param_profiles(model, &x, &values, &equations, &known);
                assert_eq!(gp.hyper, hyper);
                // The estimate reported: the profile posterior's mean.
                let spread = &gp.param_spread;
                let k = match &spread.profiles[0] {
                    Some(profile) => profile.moments(|p| p).0,
                    None => gp.hyper.params[0],
                };
                (k - truth).abs() <= 2.0 * spread.std[0]
            })
            .count();
        assert!(covered >= 18, "{covered} of 20");
    }
}
