//! The thesis's significance tests (tables 3.2 and 4.2): one-sided Welch t-tests of each
//! baseline against the chosen method, with the Benjamini–Hochberg correction over all tests.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean, sample standard deviation (n − 1) and standard error of a sample.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Moments {
    pub n: usize,
    pub mean: f64,
    /// NaN for fewer than two values.
    pub std: f64,
    pub std_error: f64,
}

impl Moments {
    pub fn of(values: &[f64]) -> Moments {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n as f64;
        let std = if n < 2 {
            f64::NAN
        } else {
            (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        };
        Moments {
            n,
            mean,
            std,
            std_error: std / (n as f64).sqrt(),
        }
    }
}

/// A one-sided Welch test of H1: mean(baseline) > mean(method), lower values being better.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Welch {
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    pub p_value: f64,
}

/// Why a test could not be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TestError {
    #[error("needs at least two runs of each method (have {0} and {1})")]
    TooFewRuns(usize, usize),
    #[error("both samples are constant")]
    NoVariance,
    #[error("needs at least two seeds that both methods finished (have {0})")]
    TooFewPairs(usize),
    #[error("the two methods' values are equal on every seed")]
    NoDifference,
}

/// `P(T > t)` for the Welch statistic of `baseline` against `method`.
pub fn welch_greater(baseline: &[f64], method: &[f64]) -> Result<Welch, TestError> {
    let (b, m) = (Moments::of(baseline), Moments::of(method));
    if b.n < 2 || m.n < 2 {
        return Err(TestError::TooFewRuns(b.n, m.n));
    }
    let (vb, vm) = (b.std.powi(2) / b.n as f64, m.std.powi(2) / m.n as f64);
    let se2 = vb + vm;
    if se2 <= 0.0 {
        return Err(TestError::NoVariance);
    }
    let t = (b.mean - m.mean) / se2.sqrt();
    let df = se2.powi(2) / (vb.powi(2) / (b.n - 1) as f64 + vm.powi(2) / (m.n - 1) as f64);
    let dist = StudentsT::new(0.0, 1.0, df).map_err(|_| TestError::NoVariance)?;
    Ok(Welch {
        t,
        df,
        p_value: dist.sf(t),
    })
}

/// Benjamini–Hochberg at false-discovery rate `alpha`: for each p-value, its adjusted value
/// (q) and whether its null hypothesis is rejected.
pub fn benjamini_hochberg(p_values: &[f64], alpha: f64) -> Vec<(f64, bool)> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    // The largest rank k with p_(k) <= k alpha / m; every rank up to it is rejected.
    let cutoff = (1..=m)
        .rev()
        .find(|&k| p_values[order[k - 1]] <= k as f64 * alpha / m as f64)
        .unwrap_or(0);
    let mut out = vec![(1.0, false); m];
    let mut running = 1.0_f64;
    for rank in (1..=m).rev() {
        let i = order[rank - 1];
        running = running.min(p_values[i] * m as f64 / rank as f64);
        out[i] = (running.min(1.0), rank <= cutoff);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn welch_with_two_degrees_of_freedom_matches_the_closed_form() {
        // Two samples of two with equal variances: df = 2 exactly, where the t distribution's
        // upper tail is 1/2 - t / (2 sqrt(2 + t^2)).
        let w = welch_greater(&[3.0, 5.0], &[1.0, 3.0]).unwrap();
        let t: f64 = 2.0 / (2.0_f64 / 2.0 + 2.0 / 2.0).sqrt();
        assert_relative_eq!(w.t, t, epsilon = 1e-12);
        assert_relative_eq!(w.df, 2.0, epsilon = 1e-12);
        assert_relative_eq!(
            w.p_value,
            0.5 - t / (2.0 * (2.0 + t * t).sqrt()),
            epsilon = 1e-10
        );
        // The other direction is the complement.
        let back = welch_greater(&[1.0, 3.0], &[3.0, 5.0]).unwrap();
        assert_relative_eq!(back.p_value, 1.0 - w.p_value, epsilon = 1e-10);
    }

    #[test]
    fn welch_degrees_of_freedom_follow_satterthwaite() {
        let (a, b) = ([1.0, 2.0, 4.0, 7.0], [0.0, 0.5, 0.7]);
        let w = welch_greater(&a, &b).unwrap();
        let (ma, mb) = (Moments::of(&a), Moments::of(&b));
        let (va, vb) = (ma.std.powi(2) / 4.0, mb.std.powi(2) / 3.0);
        assert_relative_eq!(
            w.df,
            (va + vb).powi(2) / (va * va / 3.0 + vb * vb / 2.0),
            epsilon = 1e-12
        );
        assert!(w.p_value > 0.0 && w.p_value < 0.5);
    }

    #[test]
    fn welch_refuses_what_it_cannot_test() {
        assert_eq!(
            welch_greater(&[1.0], &[1.0, 2.0]),
            Err(TestError::TooFewRuns(1, 2))
        );
        assert_eq!(
            welch_greater(&[1.0, 1.0], &[2.0, 2.0]),
            Err(TestError::NoVariance)
        );
    }

    #[test]
    fn benjamini_hochberg_rejects_up_to_the_last_passing_rank() {
        // Sorted: 0.001 (<= 0.01), 0.008 (<= 0.02), 0.039 (> 0.03), 0.0399 (<= 0.04), 0.3.
        // Rank 4 passes, so ranks 1-4 are rejected even though rank 3 alone would not be.
        let p = [0.0399, 0.001, 0.3, 0.008, 0.039];
        let out = benjamini_hochberg(&p, 0.05);
        let rejected: Vec<bool> = out.iter().map(|o| o.1).collect();
        assert_eq!(rejected, [true, true, false, true, true]);
        // q_(i) = min_{j >= i} p_(j) m / j.
        let q: Vec<f64> = out.iter().map(|o| o.0).collect();
        let expected = [0.049875, 0.005, 0.3, 0.02, 0.049875];
        for (a, b) in q.iter().zip(expected) {
            assert_relative_eq!(*a, b, epsilon = 1e-12);
        }
        assert!(benjamini_hochberg(&[0.2, 0.5], 0.05).iter().all(|o| !o.1));
    }
}
