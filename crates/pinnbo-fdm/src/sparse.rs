//! Sparse assembly with sprs and factorization with faer's sparse LU.
//!
//! A symmetric matrix (the heat operators, assembled so) is factored by sparse Cholesky; if that
//! fails (not positive definite) or the matrix is not symmetric (one-sided boundary differences,
//! the coupled beam system), by sparse LU with partial pivoting. Either is computed once and
//! reused for every right-hand side. docs/ARCHITECTURE.md records the measured difference.

use crate::FdmError;
use faer::linalg::solvers::Solve;
use faer::sparse::{SparseColMat, SymbolicSparseColMat};
use faer::Col;

/// A square system under assembly: entries are accumulated (duplicates add up).
pub struct Assembly {
    triplets: sprs::TriMat<f64>,
}

impl Assembly {
    pub fn new(n: usize, nnz_hint: usize) -> Self {
        Assembly {
            triplets: sprs::TriMat::with_capacity((n, n), nnz_hint),
        }
    }

    pub fn add(&mut self, row: usize, col: usize, value: f64) {
        self.triplets.add_triplet(row, col, value);
    }

    pub fn size(&self) -> usize {
        self.triplets.rows()
    }

    /// Compresses and factors the matrix.
    pub fn factor(self) -> Result<Factorization, FdmError> {
        let csc: sprs::CsMat<f64> = self.triplets.to_csc();
        let n = csc.rows();
        let symbolic = SymbolicSparseColMat::new_checked(
            n,
            n,
            csc.indptr().raw_storage().to_vec(),
            None,
            csc.indices().to_vec(),
        );
        let matrix = SparseColMat::new(symbolic, csc.data().to_vec());
        if is_symmetric(&csc) {
            if let Ok(llt) = matrix.sp_cholesky(faer::Side::Lower) {
                return Ok(Factorization {
                    factor: Factor::Cholesky(Box::new(llt)),
                    matrix: csc,
                });
            }
        }
        let lu = matrix
            .sp_lu()
            .map_err(|e| FdmError::Singular(format!("the factorization failed ({e:?})")))?;
        Ok(Factorization {
            factor: Factor::Lu(Box::new(lu)),
            matrix: csc,
        })
    }
}

/// Symmetric to round-off (entries computed at the same point in two ways may differ in the
/// last bit).
fn is_symmetric(a: &sprs::CsMat<f64>) -> bool {
    let t: sprs::CsMat<f64> = a.transpose_view().to_csc();
    let scale = a.data().iter().fold(0.0f64, |m, v| m.max(v.abs()));
    a.indptr().raw_storage() == t.indptr().raw_storage()
        && a.indices() == t.indices()
        && a.data()
            .iter()
            .zip(t.data())
            .all(|(x, y)| (x - y).abs() <= 1e-12 * scale)
}

/// Boxed: the two factorizations differ much in size, and there is one per system.
enum Factor {
    Cholesky(Box<faer::sparse::linalg::solvers::Llt<usize, f64>>),
    Lu(Box<faer::sparse::linalg::solvers::Lu<usize, f64>>),
}

/// A factored system, solved for as many right-hand sides as needed.
pub struct Factorization {
    factor: Factor,
    matrix: sprs::CsMat<f64>,
}

impl Factorization {
    /// Which factorization was used: "cholesky" or "lu".
    pub fn kind(&self) -> &'static str {
        match self.factor {
            Factor::Cholesky(_) => "cholesky",
            Factor::Lu(_) => "lu",
        }
    }

    /// Solves `A x = b` and verifies the answer: a numerically singular matrix (which partial
    /// pivoting does not always detect) shows up as a large or non-finite residual.
    pub fn solve(&self, b: &[f64]) -> Result<Vec<f64>, FdmError> {
        let mut x = Col::<f64>::from_fn(b.len(), |i| b[i]);
        match &self.factor {
            Factor::Cholesky(llt) => llt.solve_in_place(x.as_mat_mut()),
            Factor::Lu(lu) => lu.solve_in_place(x.as_mat_mut()),
        }
        let x: Vec<f64> = (0..b.len()).map(|i| x[i]).collect();
        if x.iter().any(|v| !v.is_finite()) {
            return Err(FdmError::Singular("the solution is not finite".into()));
        }
        let ax = &self.matrix * &sprs::CsVec::new(x.len(), (0..x.len()).collect(), x.clone());
        let mut residual = b.to_vec();
        for (i, v) in ax.iter() {
            residual[i] -= v;
        }
        let norm = |v: &[f64]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let scale = self
            .matrix
            .data()
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()))
            * norm(&x)
            + norm(b);
        let relative = norm(&residual) / scale.max(f64::MIN_POSITIVE);
        if relative > 1e-8 {
            return Err(FdmError::Singular(format!(
                "the residual of the solve is {relative:.1e} relative to the data"
            )));
        }
        Ok(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_small_nonsymmetric_system_and_detects_singularity() {
        let mut a = Assembly::new(3, 7);
        for (i, j, v) in [
            (0, 0, 4.0),
            (0, 1, 1.0),
            (1, 0, 2.0),
            (1, 1, 5.0),
            (1, 2, 1.0),
            (2, 1, 1.0),
            (2, 2, 3.0),
        ] {
            a.add(i, j, v);
        }
        a.add(0, 0, 1.0); // duplicates add up: a00 = 5
        let x = a.factor().unwrap().solve(&[6.0, 8.0, 4.0]).unwrap();
        for (got, want) in x.iter().zip([1.0, 1.0, 1.0]) {
            assert!((got - want).abs() < 1e-12, "{x:?}");
        }
        // Two equal rows: singular.
        let mut s = Assembly::new(2, 4);
        for (i, j, v) in [(0, 0, 1.0), (0, 1, 1.0), (1, 0, 1.0), (1, 1, 1.0)] {
            s.add(i, j, v);
        }
        let outcome = s.factor().and_then(|f| f.solve(&[1.0, 2.0]));
        assert!(matches!(outcome, Err(FdmError::Singular(_))), "{outcome:?}");
    }
}
