//! Uniform node grids and the fields solved on them: interpolation and extrema.

use crate::FdmError;

/// `n` equally spaced nodes from `lo` to `hi` inclusive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub n: usize,
}

impl Axis {
    pub fn new(lo: f64, hi: f64, n: usize) -> Result<Axis, FdmError> {
        if n < 3 {
            return Err(FdmError::GridTooSmall { min: 3, got: n });
        }
        Ok(Axis { lo, hi, n })
    }

    pub fn h(&self) -> f64 {
        (self.hi - self.lo) / (self.n - 1) as f64
    }

    pub fn x(&self, i: usize) -> f64 {
        // Endpoints exactly, so boundary data is evaluated where it is given.
        if i + 1 == self.n {
            self.hi
        } else {
            self.lo + i as f64 * self.h()
        }
    }

    /// The cell holding `x` (clamped to the axis) and the position within it, in [0, 1].
    fn locate(&self, x: f64) -> (usize, f64) {
        let t = ((x - self.lo) / self.h()).clamp(0.0, (self.n - 1) as f64);
        let i = (t.floor() as usize).min(self.n - 2);
        (i, t - i as f64)
    }
}

/// Refines a discrete extremum at interior node `i` by the parabola through its neighbours:
/// second-order accurate in the location for a smooth field.
fn parabolic(axis: &Axis, values: &[f64], i: usize) -> (f64, f64) {
    if i == 0 || i + 1 == values.len() {
        return (axis.x(i), values[i]);
    }
    let (a, b, c) = (values[i - 1], values[i], values[i + 1]);
    let denom = a - 2.0 * b + c;
    if denom == 0.0 {
        return (axis.x(i), b);
    }
    let shift = (0.5 * (a - c) / denom).clamp(-0.5, 0.5);
    (axis.x(i) + shift * axis.h(), b - 0.25 * (a - c) * shift)
}

/// A field on a 1-D grid, linearly interpolated between nodes (error O(h²)).
#[derive(Clone, Debug, PartialEq)]
pub struct Field1 {
    pub axis: Axis,
    pub values: Vec<f64>,
}

impl Field1 {
    pub fn at(&self, x: f64) -> f64 {
        let (i, t) = self.axis.locate(x);
        self.values[i] * (1.0 - t) + self.values[i + 1] * t
    }

    /// The least value and where it is, refined between nodes.
    pub fn min(&self) -> (f64, f64) {
        let i = argbest(&self.values, |a, b| a < b);
        parabolic(&self.axis, &self.values, i)
    }

    /// The greatest value and where it is, refined between nodes.
    pub fn max(&self) -> (f64, f64) {
        let i = argbest(&self.values, |a, b| a > b);
        parabolic(&self.axis, &self.values, i)
    }
}

/// A field on a 2-D grid, stored row by row (`values[j * nx + i]` at `(x_i, y_j)`),
/// bilinearly interpolated (error O(h²)).
#[derive(Clone, Debug, PartialEq)]
pub struct Field2 {
    pub x: Axis,
    pub y: Axis,
    pub values: Vec<f64>,
}

impl Field2 {
    pub fn value(&self, i: usize, j: usize) -> f64 {
        self.values[j * self.x.n + i]
    }

    pub fn at(&self, x: f64, y: f64) -> f64 {
        let ((i, s), (j, t)) = (self.x.locate(x), self.y.locate(y));
        let v = |di, dj| self.value(i + di, j + dj);
        (v(0, 0) * (1.0 - s) + v(1, 0) * s) * (1.0 - t) + (v(0, 1) * (1.0 - s) + v(1, 1) * s) * t
    }

    /// The least value and the node where it is.
    pub fn min(&self) -> ([f64; 2], f64) {
        self.node(argbest(&self.values, |a, b| a < b))
    }

    /// The greatest value and the node where it is.
    pub fn max(&self) -> ([f64; 2], f64) {
        self.node(argbest(&self.values, |a, b| a > b))
    }

    fn node(&self, k: usize) -> ([f64; 2], f64) {
        (
            [self.x.x(k % self.x.n), self.y.x(k / self.x.n)],
            self.values[k],
        )
    }
}

fn argbest(values: &[f64], better: impl Fn(f64, f64) -> bool) -> usize {
    let mut best = 0;
    for (k, &v) in values.iter().enumerate() {
        if better(v, values[best]) {
            best = k;
        }
    }
    best
}

/// `v`, or an error naming what was not finite and where.
pub(crate) fn finite(
    what: &str,
    location: impl FnOnce() -> String,
    v: f64,
) -> Result<f64, FdmError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(FdmError::NonFinite {
            what: what.to_string(),
            location: location(),
        })
    }
}

/// Refuses grids whose solve would need more memory than `limit_bytes`, before allocating.
/// The estimate is deliberately generous: sparse LU of a 2-D five-point matrix fills in to
/// roughly O(n log n) entries.
pub fn check_memory(unknowns: usize, dimensions: usize, limit_bytes: u64) -> Result<(), FdmError> {
    let n = unknowns as f64;
    let per_unknown = match dimensions {
        1 => 200.0,
        _ => 64.0 * n.log2().max(1.0),
    };
    let estimate = n * per_unknown;
    if estimate > limit_bytes as f64 {
        return Err(FdmError::TooLarge {
            estimate_mib: (estimate / 1048576.0) as u64,
            limit_mib: limit_bytes >> 20,
        });
    }
    Ok(())
}

/// Default memory limit for one solve.
pub const DEFAULT_MEMORY_LIMIT: u64 = 8 << 30;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolation_and_extrema() {
        let axis = Axis::new(0.0, 1.0, 101).unwrap();
        let values: Vec<f64> = (0..101).map(|i| (axis.x(i) - 0.333).powi(2)).collect();
        let f = Field1 { axis, values };
        let (x, v) = f.min();
        assert!((x - 0.333).abs() < 1e-12 && v.abs() < 1e-12, "{x} {v}");
        assert!((f.at(0.505) - (0.505f64 - 0.333).powi(2)).abs() < 1e-4);
        assert!(matches!(
            Axis::new(0.0, 1.0, 2),
            Err(FdmError::GridTooSmall { .. })
        ));
        assert!(matches!(
            check_memory(1 << 30, 2, DEFAULT_MEMORY_LIMIT),
            Err(FdmError::TooLarge { .. })
        ));
    }
}
