//! The pde model fitted in warped coordinates: `f(x) = g(φ(x))` with `g` the stationary GP
//! and `φ` a monotone map of each unit coordinate onto itself, stretched towards the box's
//! faces (`φ′` largest there). A linear pde in `x` stays a linear pde in `z = φ(x)`, with
//! variable coefficients: per coordinate `d/dx g(φ) = φ′ g′`,
//! `d²/dx² = φ′² g″ + φ″ g′`, and so on by Faà di Bruno's formula, so the pde is still exact
//! and a corner's steep detail is gentler in `z`.
//!
//! `φ` is the inverse of `W(z) = z − a sin(2πz)/(2π)`: `W′ = 1 − a cos 2πz` is `1 − a` at the
//! faces, so `φ′ = 1/W′(φ)` is `1/(1 − a)` there and `1/(1 + a)` at the centre.

use super::kernel::{Functional, Term};
use super::Residuals;
use crate::space::Standardizer;
use crate::surrogates::{GpPosterior, Gradient};
use faer::Mat;
use std::borrow::Cow;
use std::f64::consts::PI;

/// The same warp on every coordinate, of strength `a` in [0, 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InputWarp {
    pub strength: f64,
}

impl InputWarp {
    /// `W(z)` and its first four derivatives.
    fn forward(&self, z: f64) -> [f64; 5] {
        let (a, w) = (self.strength, 2.0 * PI);
        let (s, c) = (w * z).sin_cos();
        [
            z - a * s / w,
            1.0 - a * c,
            a * w * s,
            a * w * w * c,
            -a * w * w * w * s,
        ]
    }

    /// `φ(x)`: the inverse of `W` by Newton's method from `x` (W is increasing on the whole
    /// line, W(0) = 0, W(1) = 1).
    fn inverse(&self, x: f64) -> f64 {
        let mut z = x;
        for _ in 0..60 {
            let [w, dw, ..] = self.forward(z);
            let step = (w - x) / dw;
            z -= step;
            if step.abs() < 1e-15 {
                break;
            }
        }
        z
    }

    /// `φ(x)` and `φ′(x)`: what a prediction's gradient needs.
    fn with_slope(&self, x: f64) -> (f64, f64) {
        let z = self.inverse(x);
        (z, 1.0 / self.forward(z)[1])
    }

    /// `φ(x)` and its first four derivatives, these by the inverse function's rule.
    pub fn at(&self, x: f64) -> [f64; 5] {
        let z = self.inverse(x);
        let [_, w1, w2, w3, w4] = self.forward(z);
        let g1 = 1.0 / w1;
        [
            z,
            g1,
            -w2 * g1.powi(3),
            3.0 * w2 * w2 * g1.powi(5) - w3 * g1.powi(4),
            -15.0 * w2.powi(3) * g1.powi(7) + 10.0 * w2 * w3 * g1.powi(6) - w4 * g1.powi(5),
        ]
    }

    /// A point in warped coordinates.
    pub fn point(&self, x: &[f64]) -> Vec<f64> {
        x.iter().map(|v| self.inverse(*v)).collect()
    }

    pub fn points(&self, x: &[Vec<f64>]) -> Vec<Vec<f64>> {
        x.iter().map(|p| self.point(p)).collect()
    }

    /// The functional of `f = g∘φ` as a functional of `g` at `φ(point)`.
    pub fn functional(&self, f: &Functional) -> Functional {
        let derivatives: Vec<[f64; 5]> = f.point.iter().map(|v| self.at(*v)).collect();
        let mut terms: Vec<Term> = Vec::new();
        for term in &f.terms {
            // Per coordinate, ∂^n_x as Σ_k weight_k ∂^k_z; their product over coordinates.
            let mut expanded = vec![(Vec::new(), term.coefficient)];
            for (n, p) in term.orders.iter().zip(&derivatives) {
                let one = faa_di_bruno(*n, p);
                expanded = expanded
                    .iter()
                    .flat_map(|(orders, c)| {
                        one.iter().map(move |(k, w)| {
                            let mut o: Vec<u32> = orders.clone();
                            o.push(*k);
                            (o, c * w)
                        })
                    })
                    .collect();
            }
            for (orders, coefficient) in expanded {
                match terms.iter_mut().find(|t| t.orders == orders) {
                    Some(t) => t.coefficient += coefficient,
                    None => terms.push(Term {
                        orders,
                        coefficient,
                    }),
                }
            }
        }
        Functional {
            point: derivatives.iter().map(|p| p[0]).collect(),
            terms,
        }
    }

    pub fn residuals(&self, r: &Residuals) -> Residuals {
        Residuals {
            functionals: r.functionals.iter().map(|f| self.functional(f)).collect(),
            ..r.clone()
        }
    }
}

/// `dⁿ/dxⁿ g(φ(x))` as `Σ_k weight · g⁽ᵏ⁾(φ)`, from `φ`'s derivatives `p[1..=4]` (the pde's
/// order is at most 4).
fn faa_di_bruno(n: u32, p: &[f64; 5]) -> Vec<(u32, f64)> {
    let [_, p1, p2, p3, p4] = *p;
    match n {
        0 => vec![(0, 1.0)],
        1 => vec![(1, p1)],
        2 => vec![(2, p1 * p1), (1, p2)],
        3 => vec![(3, p1.powi(3)), (2, 3.0 * p1 * p2), (1, p3)],
        _ => vec![
            (4, p1.powi(4)),
            (3, 6.0 * p1 * p1 * p2),
            (2, 3.0 * p2 * p2 + 4.0 * p1 * p3),
            (1, p4),
        ],
    }
}

/// A model asked at unit points: fitted in warped coordinates, or (no warp) in the unit ones.
pub struct Warped<'a> {
    pub inner: &'a dyn GpPosterior,
    pub warp: Option<InputWarp>,
}

impl Warped<'_> {
    fn point<'p>(&self, u: &'p [f64]) -> Cow<'p, [f64]> {
        match &self.warp {
            Some(w) => Cow::Owned(w.point(u)),
            None => Cow::Borrowed(u),
        }
    }

    fn points<'p>(&self, points: &'p [Vec<f64>]) -> Cow<'p, [Vec<f64>]> {
        match &self.warp {
            Some(w) => Cow::Owned(w.points(points)),
            None => Cow::Borrowed(points),
        }
    }
}

impl GpPosterior for Warped<'_> {
    fn prior_mean(&self) -> f64 {
        self.inner.prior_mean()
    }

    fn centred(&self, u: &[f64]) -> (f64, f64) {
        self.inner.centred(&self.point(u))
    }

    fn centred_joint(&self, points: &[Vec<f64>]) -> (Vec<f64>, Mat<f64>) {
        self.inner.centred_joint(&self.points(points))
    }

    /// `∂/∂u_i = φ′(u_i) ∂/∂z_i`.
    fn centred_gradient(&self, u: &[f64]) -> Gradient {
        let Some(w) = &self.warp else {
            return self.inner.centred_gradient(u);
        };
        // φ and φ′ from one inversion per coordinate.
        let (z, slopes): (Vec<f64>, Vec<f64>) = u.iter().map(|v| w.with_slope(*v)).unzip();
        let mut g = self.inner.centred_gradient(&z);
        for (i, slope) in slopes.iter().enumerate() {
            g.d_mean[i] *= slope;
            g.d_variance[i] *= slope;
        }
        g
    }

    fn centred_mean(&self, u: &[f64]) -> f64 {
        self.inner.centred_mean(&self.point(u))
    }

    fn centred_many(&self, points: &[Vec<f64>]) -> Vec<(f64, f64)> {
        self.inner.centred_many(&self.points(points))
    }

    fn standardizer(&self) -> &Standardizer {
        self.inner.standardizer()
    }

    fn noise_variance(&self) -> f64 {
        self.inner.noise_variance()
    }

    /// In the warped coordinates: φ′ averages 1 over each variable, so in the unit ones a
    /// length scale is this on average (shorter at the faces, longer at the centre); what
    /// reads it (repeats, the distance from pending points) wants a scale, not a metric.
    fn lengthscales(&self) -> Vec<f64> {
        self.inner.lengthscales()
    }
}

#[cfg(test)]
mod tests {
    use super::super::kernel::covariance;
    use super::*;

    /// `φ` inverts `W`, and its derivatives match differences.
    #[test]
    fn the_warp_and_its_derivatives() {
        let warp = InputWarp { strength: 0.75 };
        let h = 1e-4;
        for x in [0.0, 0.03, 0.3, 0.5, 0.77, 1.0] {
            let p = warp.at(x);
            assert!((warp.forward(p[0])[0] - x).abs() < 1e-13);
            // The points and the gradient's slopes are the same φ and φ′.
            assert_eq!(
                (warp.point(&[x]), warp.with_slope(x)),
                (vec![p[0]], (p[0], p[1]))
            );
            let (lo, hi) = (warp.at(x - h), warp.at(x + h));
            for k in 1..5 {
                let fd = (hi[k - 1] - lo[k - 1]) / (2.0 * h);
                assert!(
                    (fd - p[k]).abs() < 1e-4 * p[k].abs().max(1.0),
                    "{x} {k}: {} vs {fd}",
                    p[k]
                );
            }
        }
    }

    /// The warped functional `∂^a f(x)`'s covariance with `f(y)` is the derivative in `x`
    /// of `k(φ(x), φ(y))`, by differences of the lower order.
    #[test]
    fn warped_derivatives_are_derivatives_of_the_warped_kernel() {
        let warp = InputWarp { strength: 0.6 };
        let inv_l = [1.0 / 0.3, 1.0 / 0.5];
        let (x, y) = ([0.2, 0.9], [0.6, 0.4]);
        let at_y = warp.functional(&Functional::value(&y));
        let derivative = |point: &[f64], orders: [u32; 2]| Functional {
            point: point.to_vec(),
            terms: vec![Term {
                orders: orders.to_vec(),
                coefficient: 1.0,
            }],
        };
        let cov = |point: &[f64], orders: [u32; 2]| {
            covariance(
                &warp.functional(&derivative(point, orders)),
                &at_y,
                &inv_l,
                None,
            )
        };
        let h = 1e-4;
        for n in 1..=4u32 {
            for axis in 0..2 {
                let mut lower = [0, 0];
                lower[axis] = n - 1;
                let mut orders = [0, 0];
                orders[axis] = n;
                let mut plus = x;
                plus[axis] += h;
                let mut minus = x;
                minus[axis] -= h;
                let fd = (cov(&plus, lower) - cov(&minus, lower)) / (2.0 * h);
                let exact = cov(&x, orders);
                assert!(
                    (fd - exact).abs() < 1e-4 * exact.abs().max(1.0),
                    "order {n} axis {axis}: {exact} vs {fd}"
                );
            }
        }
    }
}
