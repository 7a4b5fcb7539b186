//! The squared-exponential kernel between linear functionals of a field: point values and
//! linear differential operators at points (docs/algorithms.md §8).
//!
//! With `k(z, z') = Π_i exp(−r_i² / 2ℓ_i²)`, `r = z − z'`, and `t_i = r_i / ℓ_i`,
//!
//! ```text
//! ∂^a_z ∂^b_z' k = Π_i (−1)^{a_i} ℓ_i^{−n_i} He_{n_i}(t_i) exp(−t_i²/2),   n_i = a_i + b_i
//! ```
//!
//! (He the probabilists' Hermite polynomials), and the derivative of each factor in log ℓ_i is
//! `(−1)^{a_i} ℓ_i^{−n_i} (t_i² He_n − n He_n − n t_i He_{n−1}) exp(−t_i²/2)`. The covariance of
//! two functionals `Σ_a c_a ∂^a f(z)` and `Σ_b d_b ∂^b f(z')` is the double sum of these.

/// A term of a functional: derivative orders per input, and its coefficient.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    pub orders: Vec<u32>,
    pub coefficient: f64,
}

/// `Σ_k c_k ∂^{a_k} f(point)`: a point value when its one term has order zero.
#[derive(Clone, Debug, PartialEq)]
pub struct Functional {
    pub point: Vec<f64>,
    pub terms: Vec<Term>,
}

impl Functional {
    /// `f(point)`.
    pub fn value(point: &[f64]) -> Functional {
        Functional {
            point: point.to_vec(),
            terms: vec![Term {
                orders: vec![0; point.len()],
                coefficient: 1.0,
            }],
        }
    }

    /// The functional applied to the constant 1: its terms of order zero.
    pub fn value_coefficient(&self) -> f64 {
        let constant = self
            .terms
            .iter()
            .filter(|t| t.orders.iter().all(|o| *o == 0));
        constant.map(|t| t.coefficient).sum()
    }

    fn is_value(&self) -> bool {
        matches!(self.terms.as_slice(), [t] if t.coefficient == 1.0 && t.orders.iter().all(|o| *o == 0))
    }

    fn max_order(&self, i: usize) -> u32 {
        self.terms.iter().map(|t| t.orders[i]).max().unwrap_or(0)
    }
}

/// Working space for [`covariance`], reused across the pairs of one row: the Gram matrix has
/// hundreds of thousands of pairs, and allocating per pair cost more than the arithmetic.
#[derive(Default)]
pub struct Scratch {
    t: Vec<f64>,
    /// Per input, `He_n(t_i)` and `ℓ_i^{−n}` for n up to `stride − 1`.
    hermite: Vec<f64>,
    powers: Vec<f64>,
    stride: usize,
    values: Vec<f64>,
    slopes: Vec<f64>,
    suffix: Vec<f64>,
    gradient: Vec<f64>,
}

/// The covariance of `a` and `b` at unit signal variance, with `inv_l` = 1/ℓ per input; when
/// `grad` is given, its derivatives in each log ℓ_i are written there.
pub fn covariance(a: &Functional, b: &Functional, inv_l: &[f64], grad: Option<&mut [f64]>) -> f64 {
    covariance_in(&mut Scratch::default(), a, b, inv_l, grad)
}

/// [`covariance`] with the caller's working space.
pub fn covariance_in(
    w: &mut Scratch,
    a: &Functional,
    b: &Functional,
    inv_l: &[f64],
    grad: Option<&mut [f64]>,
) -> f64 {
    let d = inv_l.len();
    w.t.clear();
    w.t.extend((0..d).map(|i| (a.point[i] - b.point[i]) * inv_l[i]));
    let envelope = (-0.5 * w.t.iter().map(|v| v * v).sum::<f64>()).exp();
    if a.is_value() && b.is_value() {
        if let Some(g) = grad {
            for (gi, ti) in g.iter_mut().zip(&w.t) {
                *gi = envelope * ti * ti;
            }
        }
        return envelope;
    }
    if envelope == 0.0 {
        if let Some(g) = grad {
            g.fill(0.0);
        }
        return 0.0;
    }
    // Per input: He_n(t_i) and ℓ_i^{−n} for every order the pair can reach.
    let top = (0..d)
        .map(|i| a.max_order(i) + b.max_order(i))
        .max()
        .unwrap_or(0) as usize;
    w.stride = top + 1;
    w.hermite.resize(d * w.stride, 0.0);
    w.powers.resize(d * w.stride, 0.0);
    let tables = w
        .hermite
        .chunks_mut(w.stride)
        .zip(w.powers.chunks_mut(w.stride));
    for ((he, pw), (ti, li)) in tables.zip(w.t.iter().zip(inv_l)) {
        he[0] = 1.0;
        pw[0] = 1.0;
        if top >= 1 {
            he[1] = *ti;
            pw[1] = *li;
        }
        for n in 1..top {
            he[n + 1] = ti * he[n] - n as f64 * he[n - 1];
            pw[n + 1] = pw[n] * li;
        }
    }
    let with_gradient = grad.is_some();
    w.values.resize(d, 0.0);
    w.slopes.resize(d, 0.0);
    w.suffix.resize(d + 1, 1.0);
    w.gradient.clear();
    w.gradient.resize(if with_gradient { d } else { 0 }, 0.0);
    let mut total = 0.0;
    for ta in &a.terms {
        for tb in &b.terms {
            let c = ta.coefficient * tb.coefficient;
            for i in 0..d {
                let n = (ta.orders[i] + tb.orders[i]) as usize;
                let sign = if ta.orders[i] % 2 == 1 { -1.0 } else { 1.0 };
                let k = i * w.stride + n;
                let scaled = sign * w.powers[k];
                w.values[i] = scaled * w.hermite[k];
                if with_gradient {
                    let previous = if n > 0 { w.hermite[k - 1] } else { 0.0 };
                    let ti = w.t[i];
                    w.slopes[i] =
                        scaled * ((ti * ti - n as f64) * w.hermite[k] - n as f64 * ti * previous);
                }
            }
            total += c * w.values.iter().product::<f64>();
            if with_gradient {
                // Π over the other inputs by prefix and suffix products (a factor may be zero).
                w.suffix[d] = 1.0;
                for i in (0..d).rev() {
                    w.suffix[i] = w.suffix[i + 1] * w.values[i];
                }
                let mut prefix = 1.0;
                for i in 0..d {
                    w.gradient[i] += c * prefix * w.slopes[i] * w.suffix[i + 1];
                    prefix *= w.values[i];
                }
            }
        }
    }
    if let Some(g) = grad {
        for (gi, v) in g.iter_mut().zip(&w.gradient) {
            *gi = envelope * v;
        }
    }
    envelope * total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derivative_functional(point: &[f64], orders: &[u32], coefficient: f64) -> Functional {
        Functional {
            point: point.to_vec(),
            terms: vec![Term {
                orders: orders.to_vec(),
                coefficient,
            }],
        }
    }

    /// Every covariance of derivatives up to order 4 in each argument (8 in all, the beam's)
    /// against central differences of the order-one-lower covariance, and the log ℓ gradients
    /// against differences in log ℓ.
    #[test]
    fn derivatives_match_finite_differences() {
        let inv_l = [1.0 / 0.7, 1.0 / 1.3];
        let (z, w) = ([0.3, -0.2], [-0.1, 0.4]);
        let h = 1e-4;
        for a0 in 0..=4u32 {
            for b1 in 0..=3u32 {
                let b = derivative_functional(&w, &[0, b1], 1.0);
                let exact = covariance(&derivative_functional(&z, &[a0, 0], 1.0), &b, &inv_l, None);
                let orders = [a0.saturating_sub(1), 0];
                // ∂/∂z_0 of the covariance one order lower in z_0 (order 0: the value itself).
                if a0 >= 1 {
                    let shifted = |s: f64| {
                        let p = [z[0] + s, z[1]];
                        covariance(&derivative_functional(&p, &orders, 1.0), &b, &inv_l, None)
                    };
                    let fd = (shifted(h) - shifted(-h)) / (2.0 * h);
                    assert!(
                        (fd - exact).abs() < 1e-5 * exact.abs().max(1.0),
                        "{a0} {b1}: {exact} vs {fd}"
                    );
                }
                let mut g = [0.0; 2];
                let a = derivative_functional(&z, &[a0, 1], 2.5);
                covariance(&a, &b, &inv_l, Some(&mut g));
                for i in 0..2 {
                    let at = |s: f64| {
                        let mut l = inv_l;
                        l[i] *= (-s).exp();
                        covariance(&a, &b, &l, None)
                    };
                    let fd = (at(h) - at(-h)) / (2.0 * h);
                    assert!(
                        (fd - g[i]).abs() < 1e-5 * fd.abs().max(1.0),
                        "{a0} {b1} ℓ{i}: {} vs {fd}",
                        g[i]
                    );
                }
            }
        }
    }

    /// The value-value fast path is the plain squared exponential.
    #[test]
    fn values_have_the_plain_kernel() {
        let k = covariance(
            &Functional::value(&[0.0]),
            &Functional::value(&[0.5]),
            &[2.0],
            None,
        );
        assert!((k - (-0.5f64).exp()).abs() < 1e-15);
    }
}
