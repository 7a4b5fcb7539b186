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
            let pivot = (k..=last_row)
                .max_by(|&p, &q| self.get(p, k).abs().total_cmp(&self.get(q, k).abs()))
                .unwrap_or(k);
            if self.get(pivot, k).abs() <= 1e-14 * scale {
                return Err(FdmError::Singular(format!("no usable pivot in column {k}")));
            }
            let last_col = (k + reach).min(n - 1);
            if pivot != k {
                for j in k..=last_col {
                    let (a, c) = (self.slot(k, j), self.slot(pivot, j));
                    self.data.swap(a, c);
                }
                b.swap(k, pivot);
            }
            let d = self.get(k, k);
            for i in k + 1..=last_row {
                let l = self.get(i, k) / d;
                if l == 0.0 {
                    continue;
                }
                for j in k..=last_col {
                    let v = self.get(k, j);
                    let s = self.slot(i, j);
                    self.data[s] -= l * v;
                }
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
