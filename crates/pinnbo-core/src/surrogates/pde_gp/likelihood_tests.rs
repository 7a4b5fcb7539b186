//! The likelihood of the observations given the pde against an extended-precision
//! reference, where float64 differences of two factorizations fail.

use super::kernel::{Functional, Term};
use super::likelihood::{gram, value_only};
use super::rows::Rows;
use super::{PdeHyper, PdeModel, Residuals, Scaling};
use crate::surrogates::gp::{Hyper, Mean, Prior};

/// A double-double number: `hi + lo` with `|lo| ≤ ulp(hi)/2`, about 32 digits.
#[derive(Clone, Copy, Debug)]
struct Dd(f64, f64);

impl Dd {
    fn of(x: f64) -> Dd {
        Dd(x, 0.0)
    }

    fn add(self, o: Dd) -> Dd {
        let s = self.0 + o.0;
        let v = s - self.0;
        let e = (self.0 - (s - v)) + (o.0 - v) + self.1 + o.1;
        let hi = s + e;
        Dd(hi, e - (hi - s))
    }

    fn neg(self) -> Dd {
        Dd(-self.0, -self.1)
    }

    fn mul(self, o: Dd) -> Dd {
        let p = self.0 * o.0;
        let e = self.0.mul_add(o.0, -p) + self.0 * o.1 + self.1 * o.0;
        let hi = p + e;
        Dd(hi, e - (hi - p))
    }

    fn div(self, o: Dd) -> Dd {
        let q = self.0 / o.0;
        let r = self.add(o.mul(Dd::of(q)).neg());
        let q2 = r.0 / o.0;
        Dd::of(q).add(Dd::of(q2))
    }

    fn sqrt(self) -> Dd {
        let s = self.0.sqrt();
        let r = self.add(Dd::of(s).mul(Dd::of(s)).neg());
        Dd::of(s).add(Dd::of(r.0 / (2.0 * s)))
    }

    /// The natural log, to float64's relative precision of its value (what a sum of log
    /// pivots needs).
    fn ln(self) -> f64 {
        self.0.ln() + self.1 / self.0
    }
}

/// `−log p(y | g)` for the zero-mean Gaussian of covariance `a` over `[y; g]` (the first
/// `observed` rows are `y`), in double-double: `½ (vᵀA⁻¹v − gᵀB⁻¹g) + ½ (log|A| − log|B|)
/// + ½ n log 2π`, the difference float64 cannot take; and `½ vᵀA⁻¹v`, its terms' scale.
fn reference(a: &[Vec<f64>], v: &[f64], observed: usize) -> (f64, f64) {
    // (½ quadratic, ½ log det) of the block from `first` on.
    let half_terms = |first: usize| -> (Dd, f64) {
        let n = a.len() - first;
        let mut l = vec![vec![Dd::of(0.0); n]; n];
        let mut log_det = 0.0;
        for j in 0..n {
            let d = (l[j][..j].iter()).fold(Dd::of(a[first + j][first + j]), |d, &x| {
                d.add(x.mul(x).neg())
            });
            assert!(d.0 > 0.0, "not positive definite in double-double");
            l[j][j] = d.sqrt();
            log_det += l[j][j].ln();
            for i in j + 1..n {
                let s = (l[i][..j].iter().zip(&l[j][..j]))
                    .fold(Dd::of(a[first + i][first + j]), |s, (&p, &q)| {
                        s.add(p.mul(q).neg())
                    });
                l[i][j] = s.div(l[j][j]);
            }
        }
        // z = L⁻¹ v, and ½|z|².
        let mut z = vec![Dd::of(0.0); n];
        let mut quadratic = Dd::of(0.0);
        for i in 0..n {
            let s = (l[i][..i].iter().zip(&z[..i]))
                .fold(Dd::of(v[first + i]), |s, (&p, &q)| s.add(p.mul(q).neg()));
            z[i] = s.div(l[i][i]);
            quadratic = quadratic.add(z[i].mul(z[i]));
        }
        (quadratic.mul(Dd::of(0.5)), log_det)
    };
    let (joint, joint_det) = half_terms(0);
    let (pde, pde_det) = half_terms(observed);
    let quadratic = joint.add(pde.neg());
    let value = quadratic.0
        + quadratic.1
        + (joint_det - pde_det)
        + 0.5 * observed as f64 * (2.0 * std::f64::consts::PI).ln();
    (value, joint.0)
}

/// `u'' = s(x)` at `count` points of [0, 1], `s` the observed field's with a small fast
/// wiggle no smooth field follows.
fn equations(count: usize) -> Residuals {
    let z: Vec<f64> = (0..count)
        .map(|j| (j as f64 + 0.5) / count as f64)
        .collect();
    Residuals {
        functionals: (z.iter())
            .map(|&p| Functional {
                point: vec![p],
                terms: vec![Term {
                    orders: vec![2],
                    coefficient: 1.0,
                }],
            })
            .collect(),
        targets: z
            .iter()
            .map(|p| -2.0 + 0.3 * p + 1e-3 * (40.0 * p).sin())
            .collect(),
        value_coefficients: vec![0.0; count],
    }
}

/// At long length scales, with the pde trusted to 1e-10 and its source carrying a wiggle
/// no smooth field follows, `vᵀA⁻¹v` and `gᵀB⁻¹g` are each 10⁸–10¹⁰ and much of them
/// cancels: the likelihood given the pde agrees with the double-double reference to 1e-8
/// of their scale. (The difference of two float64 factorizations, what the fit took
/// before, was off by 5–700 nats here, 4e-8 to 2e-6 of it.)
#[test]
fn the_likelihood_given_the_pde_is_stable_at_long_length_scales() {
    let x: Vec<Vec<f64>> = (0..7).map(|i| vec![(i as f64 + 0.3) / 7.0]).collect();
    let values: Vec<f64> = x
        .iter()
        .map(|p| p[0] - p[0] * p[0] + 0.05 * p[0].powi(3))
        .collect();
    let residuals = equations(48);
    let rows = Rows::new(&x, &values, &residuals).unwrap();
    for (log_l, log_relative) in [(2.3, -23.0), (2.0, -20.0), (1.5, -23.0)] {
        let h = PdeHyper {
            gp: Hyper {
                log_lengthscales: vec![log_l],
                log_signal: 2.0,
                log_noise: -13.8,
            },
            log_relative,
            discrepancy: None,
            params: Vec::new(),
        };
        let model = PdeModel {
            prior: Prior::None,
            scaling: Scaling::Point,
            mean: Mean::Average,
            discrepancy: false,
        };
        let value = value_only(&rows, model, &h).expect("a finite likelihood");
        // The covariance the model conditions on, in the rows' own units.
        let inv_l = [(-log_l).exp()];
        let k = gram(&rows.functionals, &inv_l, false).k;
        let (s2, rho) = (h.gp.log_signal.exp(), log_relative.exp());
        let n = k.nrows();
        let a: Vec<Vec<f64>> = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        let noise = match (i == j, i < rows.observed) {
                            (false, _) => 0.0,
                            (true, true) => h.gp.log_noise.exp(),
                            (true, false) => rho * s2 * k[(i, i)],
                        };
                        s2 * k[(i, j)] + noise
                    })
                    .collect()
            })
            .collect();
        let (exact, scale) = reference(&a, &rows.y, rows.observed);
        assert!(
            (value - exact).abs() < 1e-8 * scale,
            "ℓ = e^{log_l}, ρ = e^{log_relative}: {value} against {exact}"
        );
    }
}
