//! Sparse assembly with sprs and factorization with faer.
//!
//! A symmetric matrix (the heat operators, assembled so) is factored by sparse Cholesky; if that
//! fails (not positive definite) or the matrix is not symmetric (one-sided boundary differences,
//! the coupled beam system), by sparse LU with partial pivoting. Either is computed once and
//! reused for every right-hand side. docs/decisions.md records the measured difference.

use crate::FdmError;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::solvers::Solve;
use faer::perm::PermRef;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, LltRef, SymbolicCholesky, SymmetricOrdering,
};
use faer::sparse::{SparseColMat, SparseColMatRef, SymbolicSparseColMat};
use faer::{Col, Side};

/// A square system under assembly: entries are accumulated (duplicates add up).
pub struct Assembly {
    triplets: sprs::TriMat<f64>,
    /// A fill-reducing elimination order known from the geometry, used by sparse Cholesky
    /// instead of approximate minimum degree.
    ordering: Option<Vec<usize>>,
}

impl Assembly {
    pub fn new(n: usize, nnz_hint: usize) -> Self {
        Assembly {
            triplets: sprs::TriMat::with_capacity((n, n), nnz_hint),
            ordering: None,
        }
    }

    /// Eliminate the unknowns in this order (a permutation of 0..n) if the matrix is factored
    /// by Cholesky.
    pub fn with_ordering(mut self, order: Vec<usize>) -> Self {
        debug_assert_eq!(order.len(), self.size());
        self.ordering = Some(order);
        self
    }

    pub fn add(&mut self, row: usize, col: usize, value: f64) {
        self.triplets.add_triplet(row, col, value);
    }

    pub fn size(&self) -> usize {
        self.triplets.rows()
    }

    /// Compresses and factors the matrix.
    pub fn factor(self) -> Result<Factorization, FdmError> {
        let csc = compress(&self.triplets);
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
            if let Some(llt) = Cholesky::new(matrix.as_ref(), self.ordering.as_deref()) {
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

/// Triplets to CSC, duplicates summed, by a counting sort on columns and a short sort within
/// each column: O(nnz), where sprs's general conversion sorts all entries (0.65 s of a 3.5 s
/// solve at 10⁶ unknowns).
fn compress(t: &sprs::TriMat<f64>) -> sprs::CsMat<f64> {
    let n = t.cols();
    let mut start = vec![0usize; n + 1];
    for &c in t.col_inds() {
        start[c + 1] += 1;
    }
    for c in 0..n {
        start[c + 1] += start[c];
    }
    let mut next = start.clone();
    let mut entries = vec![(0usize, 0.0f64); t.nnz()];
    for ((&r, &c), &v) in t.row_inds().iter().zip(t.col_inds()).zip(t.data()) {
        entries[next[c]] = (r, v);
        next[c] += 1;
    }
    let (mut indptr, mut indices, mut data) = (Vec::with_capacity(n + 1), Vec::new(), Vec::new());
    indices.reserve(entries.len());
    data.reserve(entries.len());
    indptr.push(0);
    for c in 0..n {
        let column = &mut entries[start[c]..start[c + 1]];
        column.sort_unstable_by_key(|e| e.0);
        for &(r, v) in column.iter() {
            if indices.len() > indptr[c] && indices.last() == Some(&r) {
                *data.last_mut().expect("an entry") += v;
            } else {
                indices.push(r);
                data.push(v);
            }
        }
        indptr.push(indices.len());
    }
    sprs::CsMat::new_csc((t.rows(), n), indptr, indices, data)
}

/// Symmetric to round-off (entries computed at the same point in two ways may differ in the
/// last bit).
fn is_symmetric(a: &sprs::CsMat<f64>) -> bool {
    let scale = a.data().iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let indptr = a.indptr();
    let (ptr, idx, val) = (indptr.raw_storage(), a.indices(), a.data());
    // Each entry (r, c) against (c, r), found by binary search in column r's sorted rows.
    (0..a.cols()).all(|c| {
        (ptr[c]..ptr[c + 1]).all(|k| {
            let r = idx[k];
            let column = &idx[ptr[r]..ptr[r + 1]];
            match column.binary_search(&c) {
                Ok(p) => (val[k] - val[ptr[r] + p]).abs() <= 1e-12 * scale,
                Err(_) => false,
            }
        })
    })
}

/// Boxed: the two factorizations differ much in size, and there is one per system.
enum Factor {
    Cholesky(Box<Cholesky>),
    Lu(Box<faer::sparse::linalg::solvers::Lu<usize, f64>>),
}

/// Sparse LLᵀ through faer's lower-level API, which (unlike its convenience type) accepts a
/// custom fill-reducing ordering.
struct Cholesky {
    symbolic: SymbolicCholesky<usize>,
    values: Vec<f64>,
}

impl Cholesky {
    /// `None` if the matrix is not positive definite (or the ordering is not a permutation).
    fn new(a: SparseColMatRef<'_, usize, f64>, order: Option<&[usize]>) -> Option<Cholesky> {
        let n = a.nrows();
        let inverse: Option<Vec<usize>> = order.map(|fwd| {
            let mut inv = vec![0; n];
            for (k, &i) in fwd.iter().enumerate() {
                inv[i] = k;
            }
            inv
        });
        let ordering = match (order, &inverse) {
            (Some(fwd), Some(inv)) => SymmetricOrdering::Custom(PermRef::new_checked(fwd, inv, n)),
            _ => SymmetricOrdering::Amd,
        };
        let symbolic =
            factorize_symbolic_cholesky(a.symbolic(), Side::Lower, ordering, Default::default())
                .ok()?;
        let mut values = vec![0.0; symbolic.len_val()];
        let par = faer::get_global_parallelism();
        let mut scratch = MemBuffer::try_new(
            symbolic.factorize_numeric_llt_scratch::<f64>(par, Default::default()),
        )
        .ok()?;
        symbolic
            .factorize_numeric_llt(
                &mut values,
                a,
                Side::Lower,
                Default::default(),
                par,
                MemStack::new(&mut scratch),
                Default::default(),
            )
            .ok()?;
        Some(Cholesky { symbolic, values })
    }

    fn solve_in_place(&self, rhs: faer::MatMut<'_, f64>) {
        let par = faer::get_global_parallelism();
        let mut scratch = MemBuffer::new(
            self.symbolic
                .solve_in_place_scratch::<f64>(rhs.ncols(), par),
        );
        LltRef::new(&self.symbolic, &self.values).solve_in_place_with_conj(
            faer::Conj::No,
            rhs,
            par,
            MemStack::new(&mut scratch),
        );
    }
}

/// An elimination order for the nodes of an `nx` x `ny` grid (row-major, `j * nx + i`) by
/// nested dissection: each half of the grid first, then the line separating them. For the
/// five-point stencil this keeps the Cholesky factor's fill at O(n log n) and its work at
/// O(n^1.5), the optimum for 2-D grids.
pub fn nested_dissection(nx: usize, ny: usize) -> Vec<usize> {
    fn dissect(i: (usize, usize), j: (usize, usize), nx: usize, out: &mut Vec<usize>) {
        let (w, h) = (i.1 - i.0, j.1 - j.0);
        if w * h <= 16 || w < 3 || h < 3 {
            for jj in j.0..j.1 {
                out.extend((i.0..i.1).map(|ii| jj * nx + ii));
            }
            return;
        }
        if w >= h {
            let mid = i.0 + w / 2;
            dissect((i.0, mid), j, nx, out);
            dissect((mid + 1, i.1), j, nx, out);
            out.extend((j.0..j.1).map(|jj| jj * nx + mid));
        } else {
            let mid = j.0 + h / 2;
            dissect(i, (j.0, mid), nx, out);
            dissect(i, (mid + 1, j.1), nx, out);
            out.extend((i.0..i.1).map(|ii| mid * nx + ii));
        }
    }
    let mut out = Vec::with_capacity(nx * ny);
    dissect((0, nx), (0, ny), nx, &mut out);
    out
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
