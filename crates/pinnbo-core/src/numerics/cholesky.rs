//! Dense symmetric positive definite solves (faer), with the jitter escalation every kernel
//! method needs when points nearly coincide.

use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::{Mat, Side};

/// A Cholesky factorization of `K + jitter I`.
#[derive(Clone)]
pub struct Spd {
    llt: faer::linalg::solvers::Llt<f64>,
    pub jitter: f64,
}

#[derive(Debug, thiserror::Error)]
#[error("the {what} matrix ({n} x {n}) is not positive definite even with {jitter:.1e} added to its diagonal (repeated or nearly repeated points?)")]
pub struct NotPositiveDefinite {
    pub what: &'static str,
    pub n: usize,
    pub jitter: f64,
}

impl Spd {
    /// Factors `k`, adding up to 1e-6 of its mean diagonal when plain Cholesky fails.
    pub fn new(k: &Mat<f64>, what: &'static str) -> Result<Spd, NotPositiveDefinite> {
        let n = k.nrows();
        let scale = (0..n).map(|i| k[(i, i)].abs()).sum::<f64>() / n.max(1) as f64;
        let mut jitter = 0.0;
        let mut next = 1e-12 * scale.max(f64::MIN_POSITIVE);
        loop {
            let mut shifted = k.clone();
            for i in 0..n {
                shifted[(i, i)] += jitter;
            }
            if let Ok(llt) = shifted.llt(Side::Lower) {
                return Ok(Spd { llt, jitter });
            }
            if jitter > 1e-6 * scale {
                return Err(NotPositiveDefinite { what, n, jitter });
            }
            jitter = next;
            next *= 10.0;
        }
    }

    pub fn solve(&self, b: &[f64]) -> Vec<f64> {
        let mut rhs = Mat::from_fn(b.len(), 1, |i, _| b[i]);
        self.llt.solve_in_place(&mut rhs);
        (0..b.len()).map(|i| rhs[(i, 0)]).collect()
    }

    /// `L⁻¹ b`, whose squared norm is `bᵀ K⁻¹ b`.
    pub fn half_solve(&self, b: &[f64]) -> Vec<f64> {
        let solved = self.half_solve_columns(&Mat::from_fn(b.len(), 1, |i, _| b[i]));
        (0..b.len()).map(|i| solved[(i, 0)]).collect()
    }

    /// `L⁻¹ B` for every column of `B`.
    pub fn half_solve_columns(&self, b: &Mat<f64>) -> Mat<f64> {
        let mut rhs = b.clone();
        faer::linalg::triangular_solve::solve_lower_triangular_in_place(
            self.llt.L(),
            rhs.as_mut(),
            faer::Par::Seq,
        );
        rhs
    }

    pub fn log_det(&self) -> f64 {
        let l = self.llt.L();
        2.0 * (0..l.nrows()).map(|i| l[(i, i)].ln()).sum::<f64>()
    }

    pub fn inverse(&self) -> Mat<f64> {
        self.llt.inverse()
    }

    /// The lower Cholesky factor L (of `K + jitter I = L Lᵀ`).
    pub fn lower_factor(&self) -> faer::MatRef<'_, f64> {
        self.llt.L()
    }
}
