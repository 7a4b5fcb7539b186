//! The squared-exponential kernel between linear functionals of a field: point values and
//! linear differential operators at points (docs/algorithms.md §10).
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

    fn is_value(&self) -> bool {
        matches!(self.terms.as_slice(), [t] if t.coefficient == 1.0 && t.orders.iter().all(|o| *o == 0))
    }

    fn max_order(&self, i: usize) -> u32 {
        self.terms.iter().map(|t| t.orders[i]).max().unwrap_or(0)
    }
}

/// `He_0(t) ..= He_n(t)`.
fn hermite(n: usize, t: f64) -> Vec<f64> {
    let mut he = Vec::with_capacity(n + 1);
    he.push(1.0);
    if n >= 1 {
        he.push(t);
    }
    for k in 1..n {
        he.push(t * he[k] - k as f64 * he[k - 1]);
    }
    he
}

/// The covariance of `a` and `b` at unit signal variance, with `inv_l` = 1/ℓ per input; when
/// `grad` is given, its derivatives in each log ℓ_i are written there.
pub fn covariance(a: &Functional, b: &Functional, inv_l: &[f64], grad: Option<&mut [f64]>) -> f64 {
    let d = inv_l.len();
    let t: Vec<f64> = (0..d)
        .map(|i| (a.point[i] - b.point[i]) * inv_l[i])
        .collect();
    let envelope = (-0.5 * t.iter().map(|v| v * v).sum::<f64>()).exp();
    if a.is_value() && b.is_value() {
        if let Some(g) = grad {
            for i in 0..d {
                g[i] = envelope * t[i] * t[i];
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
    let tables: Vec<(Vec<f64>, Vec<f64>)> = (0..d)
        .map(|i| {
            let top = (a.max_order(i) + b.max_order(i)) as usize;
            let powers = (0..=top).map(|n| inv_l[i].powi(n as i32)).collect();
            (hermite(top, t[i]), powers)
        })
        .collect();
    let factor = |i: usize, ai: u32, n: usize| -> (f64, f64) {
        let (he, powers) = &tables[i];
        let sign = if ai % 2 == 1 { -1.0 } else { 1.0 };
        let value = sign * powers[n] * he[n];
        let previous = if n > 0 { he[n - 1] } else { 0.0 };
        let slope =
            sign * powers[n] * ((t[i] * t[i] - n as f64) * he[n] - n as f64 * t[i] * previous);
        (value, slope)
    };
    let mut total = 0.0;
    let mut gradient = vec![0.0; if grad.is_some() { d } else { 0 }];
    let (mut values, mut slopes) = (vec![0.0; d], vec![0.0; d]);
    let mut suffix = vec![1.0; d + 1];
    for ta in &a.terms {
        for tb in &b.terms {
            let c = ta.coefficient * tb.coefficient;
            for i in 0..d {
                let n = (ta.orders[i] + tb.orders[i]) as usize;
                (values[i], slopes[i]) = factor(i, ta.orders[i], n);
            }
            let product: f64 = values.iter().product();
            total += c * product;
            if !gradient.is_empty() {
                // Π over the other inputs by prefix and suffix products (a factor may be zero).
                for i in (0..d).rev() {
                    suffix[i] = suffix[i + 1] * values[i];
                }
                let mut prefix = 1.0;
                for i in 0..d {
                    gradient[i] += c * prefix * slopes[i] * suffix[i + 1];
                    prefix *= values[i];
                }
            }
        }
    }
    if let Some(g) = grad {
        for i in 0..d {
            g[i] = envelope * gradient[i];
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
