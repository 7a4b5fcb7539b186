//! Banded Gaussian elimination with partial pivoting, for systems whose unknowns can be ordered
//! so that every equation touches only nearby ones (the beam): O(n) time and memory where a
//! general sparse LU pays for symbolic analysis and supernodes it does not need.

use crate::FdmError;

/// An n x n matrix with `lower` sub-diagonals and `upper` super-diagonals, stored row by row
/// with room for the fill that row exchanges create (`lower` more super-diagonals).
pub struct Banded {
    n: usize,
    lower: usize,
    width: usize,
    data: Vec<f64>,
}

impl Banded {
    pub fn new(n: usize, lower: usize, upper: usize) -> Self {
        let width = 2 * lower + upper + 1;
        Banded {
            n,
            lower,
            width,
            data: vec![0.0; n * width],
        }
    }

    fn slot(&self, i: usize, j: usize) -> usize {
        debug_assert!(
            j + self.lower >= i && j + self.lower - i < self.width,
            "({i}, {j}) outside the band"
        );
        i * self.width + (j + self.lower - i)
    }

    /// Adds `value` at (i, j), which must lie within the declared band.
    pub fn add(&mut self, i: usize, j: usize, value: f64) {
        let k = self.slot(i, j);
        self.data[k] += value;
    }

    fn get(&self, i: usize, j: usize) -> f64 {
        self.data[self.slot(i, j)]
    }

    /// Solves `A x = b`, consuming the matrix.
    pub fn solve(mut self, mut b: Vec<f64>) -> Result<Vec<f64>, FdmError> {
        let (n, lower) = (self.n, self.lower);
        let reach = self.width - lower - 1; // super-diagonals after fill
        let scale = self.data.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for k in 0..n {
            let last_row = (k + lower).min(n - 1);
            let last_col = (k + reach).min(n - 1);
            let mut pivot = k;
            for p in k + 1..=last_row {
                if self.get(p, k).abs() > self.get(pivot, k).abs() {
                    pivot = p;
                }
            }
            if self.get(pivot, k).abs() <= 1e-14 * scale {
                return Err(FdmError::Singular(format!("no usable pivot in column {k}")));
            }
            let len = last_col - k + 1;
            if pivot != k {
                let (a, c) = (self.slot(k, k), self.slot(pivot, k));
                let (head, tail) = self.data.split_at_mut(c);
                head[a..a + len].swap_with_slice(&mut tail[..len]);
                b.swap(k, pivot);
            }
            // Row segments from column k on are contiguous, and rows below lie after row k.
            let start_k = self.slot(k, k);
            for i in k + 1..=last_row {
                let start_i = self.slot(i, k);
                let (head, tail) = self.data.split_at_mut(start_i);
                let pivot_row = &head[start_k..start_k + len];
                let row = &mut tail[..len];
                let l = row[0] / pivot_row[0];
                if l == 0.0 {
                    continue;
                }
                row.iter_mut().zip(pivot_row).for_each(|(x, p)| *x -= l * p);
                b[i] -= l * b[k];
            }
        }
        for k in (0..n).rev() {
            let last_col = (k + reach).min(n - 1);
            let row = &self.data[self.slot(k, k)..=self.slot(k, last_col)];
            let tail: f64 = row[1..]
                .iter()
                .zip(&b[k + 1..=last_col])
                .map(|(a, x)| a * x)
                .sum();
            b[k] = (b[k] - tail) / row[0];
        }
        if b.iter().any(|v| !v.is_finite()) {
            return Err(FdmError::Singular("the solution is not finite".into()));
        }
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_system_that_needs_pivoting() {
        // [[0, 1, 0], [1, 0, 1], [0, 1, 1]] x = [1, 2, 3] -> x = [0, 1, 2]
        let mut a = Banded::new(3, 1, 1);
        for (i, j, v) in [
            (0, 1, 1.0),
            (1, 0, 1.0),
            (1, 2, 1.0),
            (2, 1, 1.0),
            (2, 2, 1.0),
        ] {
            a.add(i, j, v);
        }
        let x = a.solve(vec![1.0, 2.0, 3.0]).unwrap();
        for (got, want) in x.iter().zip([0.0, 1.0, 2.0]) {
            assert!((got - want).abs() < 1e-14, "{x:?}");
        }
        let mut s = Banded::new(2, 1, 1);
        for (i, j) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            s.add(i, j, 1.0);
        }
        assert!(matches!(
            s.solve(vec![1.0, 2.0]),
            Err(FdmError::Singular(_))
        ));
    }
}
