//! Minimizing a smooth function in a box by projected L-BFGS: the quasi-Newton direction over
//! the free variables (those not held at a bound by a gradient pointing outward), then a
//! backtracking search along the path projected onto the box.
//!
//! Written here rather than taken from a crate: argmin's L-BFGS has no bounds (through a
//! sigmoid change of variables it stalls at them, docs/decisions.md), and the Rust L-BFGS-B
//! ports are young single-release crates. This is the active-set idea of L-BFGS-B without
//! its generalized Cauchy point, enough for the few dozen variables of a GP's
//! hyperparameters.

/// What stops the iterations.
#[derive(Clone, Copy, Debug)]
pub struct Stop {
    pub iterations: usize,
    /// The largest step of the projected gradient, `|P(x − g) − x|_∞`.
    pub gradient: f64,
    /// The relative decrease of one iteration.
    pub decrease: f64,
}

/// A function's value and gradient at a point; None where it cannot be evaluated.
pub type Evaluate<'a> = dyn Fn(&[f64]) -> Option<(f64, Vec<f64>)> + 'a;

/// Pairs of steps and gradient changes kept.
const MEMORY: usize = 7;
/// Armijo's sufficient-decrease constant.
const ARMIJO: f64 = 1e-4;

/// The smallest value found from `x` within `[lo, hi]` and where, for `f` returning the value
/// and gradient (None where it cannot be evaluated: the search steps back). None when `f`
/// fails at `x` itself.
pub fn minimize(
    f: &Evaluate,
    x: &[f64],
    lo: &[f64],
    hi: &[f64],
    stop: Stop,
) -> Option<(f64, Vec<f64>)> {
    let project = |v: Vec<f64>| -> Vec<f64> {
        v.into_iter()
            .zip(lo.iter().zip(hi))
            .map(|(v, (l, h))| v.clamp(*l, *h))
            .collect()
    };
    let mut x = project(x.to_vec());
    let (mut value, mut grad) = f(&x)?;
    let mut pairs: Vec<(Vec<f64>, Vec<f64>)> = Vec::new();
    for _ in 0..stop.iterations {
        if pinnbo_ad::interrupt::requested() {
            break;
        }
        let free: Vec<bool> = (0..x.len())
            .map(|i| !((x[i] <= lo[i] && grad[i] > 0.0) || (x[i] >= hi[i] && grad[i] < 0.0)))
            .collect();
        let projected_step = (0..x.len())
            .map(|i| ((x[i] - grad[i]).clamp(lo[i], hi[i]) - x[i]).abs())
            .fold(0.0, f64::max);
        if projected_step <= stop.gradient {
            break;
        }
        let mut direction = two_loop(&grad, &pairs, &free);
        let slope: f64 = direction.iter().zip(&grad).map(|(d, g)| d * g).sum();
        // A NaN slope counts as no descent.
        if slope.is_nan() || slope >= 0.0 {
            // Not a descent direction: forget the curvature and go down the gradient.
            pairs.clear();
            direction = (0..x.len())
                .map(|i| if free[i] { -grad[i] } else { 0.0 })
                .collect();
        }
        let mut alpha = if pairs.is_empty() {
            let norm = direction.iter().map(|d| d * d).sum::<f64>().sqrt();
            (1.0 / norm).min(1.0)
        } else {
            1.0
        };
        let mut accepted = None;
        for _ in 0..40 {
            let trial = project(
                x.iter()
                    .zip(&direction)
                    .map(|(x, d)| x + alpha * d)
                    .collect(),
            );
            let moved: f64 = trial
                .iter()
                .zip(&x)
                .zip(&grad)
                .map(|((t, x), g)| (t - x) * g)
                .sum();
            if let Some((v, g)) = f(&trial) {
                if v <= value + ARMIJO * moved {
                    accepted = Some((trial, v, g));
                    break;
                }
            }
            alpha *= 0.5;
        }
        let Some((next, next_value, next_grad)) = accepted else {
            break;
        };
        let s: Vec<f64> = next.iter().zip(&x).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = next_grad.iter().zip(&grad).map(|(a, b)| a - b).collect();
        if s.iter().zip(&y).map(|(a, b)| a * b).sum::<f64>() > 1e-12 {
            if pairs.len() == MEMORY {
                pairs.remove(0);
            }
            pairs.push((s, y));
        }
        let decrease = (value - next_value) / value.abs().max(1.0);
        (x, value, grad) = (next, next_value, next_grad);
        if decrease <= stop.decrease {
            break;
        }
    }
    Some((value, x))
}

/// The L-BFGS direction −H g over the free variables (zero on the held ones).
fn two_loop(grad: &[f64], pairs: &[(Vec<f64>, Vec<f64>)], free: &[bool]) -> Vec<f64> {
    let dot = |a: &[f64], b: &[f64]| -> f64 {
        a.iter()
            .zip(b)
            .zip(free)
            .filter(|(_, f)| **f)
            .map(|((a, b), _)| a * b)
            .sum()
    };
    let mut q: Vec<f64> = grad
        .iter()
        .zip(free)
        .map(|(g, f)| if *f { *g } else { 0.0 })
        .collect();
    let mut alphas = Vec::with_capacity(pairs.len());
    for (s, y) in pairs.iter().rev() {
        let sy = dot(s, y);
        if sy <= 0.0 {
            alphas.push(0.0);
            continue;
        }
        let a = dot(s, &q) / sy;
        for (qi, yi) in q.iter_mut().zip(y) {
            *qi -= a * yi;
        }
        alphas.push(a);
    }
    if let Some((s, y)) = pairs.last() {
        let (sy, yy) = (dot(s, y), dot(y, y));
        if sy > 0.0 && yy > 0.0 {
            let gamma = sy / yy;
            q.iter_mut().for_each(|v| *v *= gamma);
        }
    }
    for ((s, y), a) in pairs.iter().zip(alphas.iter().rev()) {
        let sy = dot(s, y);
        if sy <= 0.0 {
            continue;
        }
        let b = dot(y, &q) / sy;
        for (qi, si) in q.iter_mut().zip(s) {
            *qi += (a - b) * si;
        }
    }
    q.iter()
        .zip(free)
        .map(|(v, f)| if *f { -v } else { 0.0 })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const STOP: Stop = Stop {
        iterations: 500,
        gradient: 1e-10,
        decrease: 0.0,
    };

    /// Rosenbrock's valley inside a box that holds its minimum: found to 1e-6.
    #[test]
    fn finds_an_interior_minimum() {
        let f = |x: &[f64]| {
            let (a, b) = (1.0 - x[0], x[1] - x[0] * x[0]);
            Some((
                a * a + 100.0 * b * b,
                vec![-2.0 * a - 400.0 * x[0] * b, 200.0 * b],
            ))
        };
        let (value, x) = minimize(&f, &[-1.2, 1.0], &[-2.0, -2.0], &[2.0, 2.0], STOP).unwrap();
        assert!(value < 1e-12, "{value} at {x:?}");
        assert!(
            (x[0] - 1.0).abs() < 1e-6 && (x[1] - 1.0).abs() < 1e-6,
            "{x:?}"
        );
    }

    /// A bowl whose centre lies outside the box: the minimum is on the faces, exactly, and
    /// the free coordinate is still solved.
    #[test]
    fn holds_variables_at_the_bounds_they_push_against() {
        let centre = [3.0, -0.25, -5.0];
        let f = |x: &[f64]| {
            let g: Vec<f64> = x.iter().zip(&centre).map(|(x, c)| 2.0 * (x - c)).collect();
            Some((x.iter().zip(&centre).map(|(x, c)| (x - c).powi(2)).sum(), g))
        };
        let (_, x) = minimize(&f, &[0.0; 3], &[-1.0; 3], &[1.0; 3], STOP).unwrap();
        assert_eq!((x[0], x[2]), (1.0, -1.0));
        assert!((x[1] + 0.25).abs() < 1e-9, "{x:?}");
    }

    /// Where the function cannot be evaluated the search steps back; at the start, None.
    #[test]
    fn steps_back_from_where_the_function_fails() {
        let f = |x: &[f64]| (x[0] < 0.5).then(|| ((x[0] - 2.0).powi(2), vec![2.0 * (x[0] - 2.0)]));
        let (_, x) = minimize(&f, &[0.0], &[-10.0], &[10.0], STOP).unwrap();
        assert!(x[0] < 0.5 && x[0] > 0.4, "{x:?}");
        assert!(minimize(&f, &[1.0], &[-10.0], &[10.0], STOP).is_none());
    }
}
