//! The test of the pde's targets under the fitted prior (`target_spread.rs`): calibrated on
//! draws from the prior, and read at the constant mean that best explains the targets.

use super::kernel::{covariance, Functional, Term};
use super::tests::{hyper, model, observations, residuals};
use super::*;
use crate::numerics::cholesky::Spd;
use crate::surrogates::gp::Mean;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
/// The pde's targets against the prior ([`PdeGp::target_spread`]): for targets drawn from
/// the prior itself, their mean square is near 1 and exceeds its 0.9 quantile about one
/// time in ten; for twice the targets it is exactly four times as large (the constant mean
/// does not move an equation without a term in f); and the equations count as independent
/// when they are far apart against the length scale.
#[test]
fn target_spread_is_calibrated_on_prior_draws_and_quadratic_in_the_targets() {
    let (x, values) = observations();
    let h = hyper(0.15);
    let m = model(Scaling::Point, Mean::Constant);
    let spread = |r: &Residuals, h: &PdeHyper| {
        let gp = PdeGp::with_hyper(m, &x, (&values, &[]), r, h.clone()).unwrap();
        (gp.target_spread.unwrap(), gp.standardizer.std)
    };
    let right = residuals(40, |_| 1.0);
    let mut doubled = right.clone();
    doubled.targets.iter_mut().for_each(|g| *g *= 2.0);
    let (once, std) = spread(&right, &h);
    let twice = spread(&doubled, &h).0;
    approx::assert_relative_eq!(
        twice.mean_square,
        4.0 * once.mean_square,
        max_relative = 1e-12
    );
    assert!(
        once.independent > 1.0 && once.independent < 40.0,
        "{once:?}"
    );
    let apart = spread(&right, &hyper(0.002)).0.independent;
    approx::assert_relative_eq!(apart, 40.0, max_relative = 1e-6);
    // Draws of the 40 equations' targets (in the field's units) from the prior, noise
    // included.
    let inv_l = [1.0 / 0.15];
    let (s2, rho) = (h.gp.log_signal.exp(), h.log_relative.exp());
    let f = &right.functionals;
    let prior = Mat::from_fn(f.len(), f.len(), |i, j| {
        let k = s2 * covariance(&f[i], &f[j], &inv_l, None);
        if i == j {
            k * (1.0 + rho)
        } else {
            k
        }
    });
    let factor = Spd::new(&prior, "prior").unwrap();
    let lower = factor.lower_factor();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let draws = 400;
    let spreads: Vec<TargetSpread> = (0..draws)
        .map(|_| {
            let xi: Vec<f64> = (0..f.len()).map(|_| rng.sample(StandardNormal)).collect();
            let mut drawn = right.clone();
            for (j, g) in drawn.targets.iter_mut().enumerate() {
                *g = std * (0..=j).map(|k| lower[(j, k)] * xi[k]).sum::<f64>();
            }
            spread(&drawn, &h).0
        })
        .collect();
    let mean = spreads.iter().map(|t| t.mean_square).sum::<f64>() / draws as f64;
    assert!(
        (0.85..1.15).contains(&mean),
        "mean spread of prior draws {mean}"
    );
    let above = spreads
        .iter()
        .filter(|t| t.mean_square > t.quantile(0.9))
        .count() as f64
        / draws as f64;
    assert!(
        (0.05..0.15).contains(&above),
        "{above} of the draws above the 0.9 quantile"
    );
}
/// The targets' test reads the constant mean that best explains the targets. With a term in
/// the field itself (`u'' + 9u = 4.5`, exact for `u = 0.5 + cos 3x`) the mean cancels from
/// the field, so the observations given the pde leave it free and the fit ends anywhere
/// along it; the targets of a right pde then stay within the prior's range.
#[test]
fn the_targets_test_reads_the_mean_that_fits_them() {
    let count = 40;
    let points: Vec<f64> = (0..count)
        .map(|j| (j as f64 + 0.5) / count as f64)
        .collect();
    let r = Residuals {
        functionals: (points.iter())
            .map(|z| Functional {
                point: vec![*z],
                terms: vec![
                    Term {
                        orders: vec![2],
                        coefficient: 1.0,
                    },
                    Term {
                        orders: vec![0],
                        coefficient: 9.0,
                    },
                ],
            })
            .collect(),
        targets: vec![4.5; count],
        value_coefficients: vec![9.0; count],
    };
    let x: Vec<Vec<f64>> = [0.05, 0.3, 0.55, 0.8, 0.95]
        .iter()
        .map(|v| vec![*v])
        .collect();
    let y: Vec<f64> = x.iter().map(|p| 0.5 + (3.0 * p[0]).cos()).collect();
    let m = model(Scaling::Point, Mean::Constant);
    for lengthscale in [0.3, 1.0, 3.0] {
        let gp = PdeGp::with_hyper(m, &x, (&y, &[]), &r, hyper(lengthscale)).unwrap();
        let spread = gp.target_spread.unwrap();
        assert!(
            spread.mean_square <= spread.quantile(0.999),
            "ℓ = {lengthscale}: {spread:?}, the constant mean {}",
            gp.constant
        );
    }
}
