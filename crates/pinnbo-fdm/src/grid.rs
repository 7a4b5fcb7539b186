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

/// The multi-index of flat node `k` of a tensor grid stored with the first axis fastest.
pub fn multi_index(axes: &[Axis], mut k: usize) -> Vec<usize> {
    axes.iter()
        .map(|a| {
            let i = k % a.n;
            k /= a.n;
            i
        })
        .collect()
}

/// How a field is read between grid nodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Interpolation {
    /// Linear in each axis (bilinear, trilinear): interpolation error O(h²), the same order as
    /// the schemes' own error, and never overshoots the nodal values.
    #[default]
    Linear,
    /// Four-point Lagrange cubic in each axis: interpolation error O(h⁴), so the reading adds
    /// nothing to the solution's O(h²) error even on coarse grids; can overshoot near kinks.
    Cubic,
}

/// The weights of the nodes an interpolant reads along one axis: (first node, weights).
fn weights(axis: &Axis, x: f64, how: Interpolation) -> (usize, [f64; 4], usize) {
    let (i, t) = axis.locate(x);
    match how {
        Interpolation::Cubic if axis.n >= 4 => {
            let base = i.saturating_sub(1).min(axis.n - 4);
            let s = (i - base) as f64 + t;
            let mut w = [0.0; 4];
            for (k, wk) in w.iter_mut().enumerate() {
                *wk = (0..4)
                    .filter(|&m| m != k)
                    .map(|m| (s - m as f64) / (k as f64 - m as f64))
                    .product();
            }
            (base, w, 4)
        }
        _ => (i, [1.0 - t, t, 0.0, 0.0], 2),
    }
}

/// A field on a tensor grid of one to three axes, values stored with the first axis fastest
/// (`values[i + nx * (j + ny * k)]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub axes: Vec<Axis>,
    pub values: Vec<f64>,
    pub interpolation: Interpolation,
}

/// Where a field takes an extreme value.
#[derive(Clone, Debug, PartialEq)]
pub struct Extremum {
    pub point: Vec<f64>,
    pub value: f64,
}

impl Field {
    pub fn new(axes: Vec<Axis>, values: Vec<f64>) -> Field {
        debug_assert_eq!(axes.iter().map(|a| a.n).product::<usize>(), values.len());
        Field {
            axes,
            values,
            interpolation: Interpolation::Linear,
        }
    }

    fn offset(&self, index: &[usize]) -> usize {
        let mut k = 0;
        for (i, a) in index.iter().zip(&self.axes).rev() {
            k = k * a.n + i;
        }
        k
    }

    /// The node multi-index of a flat offset.
    pub fn index(&self, k: usize) -> Vec<usize> {
        multi_index(&self.axes, k)
    }

    /// The value at a node.
    pub fn value(&self, index: &[usize]) -> f64 {
        self.values[self.offset(index)]
    }

    /// The coordinates of a node.
    pub fn node(&self, index: &[usize]) -> Vec<f64> {
        index.iter().zip(&self.axes).map(|(&i, a)| a.x(i)).collect()
    }

    /// The field at any point of the box (points outside are clamped onto it).
    pub fn at(&self, point: &[f64]) -> f64 {
        let reads: Vec<_> = point
            .iter()
            .zip(&self.axes)
            .map(|(&x, a)| weights(a, x, self.interpolation))
            .collect();
        let mut sum = 0.0;
        let mut index = vec![0; reads.len()];
        let count: usize = reads.iter().map(|r| r.2).product();
        for mut c in 0..count {
            let mut w = 1.0;
            for (d, (base, ws, len)) in reads.iter().enumerate() {
                index[d] = base + c % len;
                w *= ws[c % len];
                c /= len;
            }
            sum += w * self.value(&index);
        }
        sum
    }

    /// The field with some axes held at values (`Some(v)`, read by interpolation) and the
    /// others kept (`None`): a field over the kept axes, a single value when none is kept.
    pub fn section(&self, fixed: &[Option<f64>]) -> std::borrow::Cow<'_, Field> {
        debug_assert_eq!(fixed.len(), self.axes.len());
        if fixed.iter().all(Option::is_none) {
            return std::borrow::Cow::Borrowed(self);
        }
        let kept: Vec<Axis> = (self.axes.iter().zip(fixed))
            .filter(|(_, f)| f.is_none())
            .map(|(a, _)| *a)
            .collect();
        let count: usize = kept.iter().map(|a| a.n).product();
        let values = (0..count)
            .map(|k| {
                let mut node = multi_index(&kept, k).into_iter().zip(&kept);
                let point: Vec<f64> = (fixed.iter())
                    .map(|f| f.unwrap_or_else(|| node.next().map_or(0.0, |(i, a)| a.x(i))))
                    .collect();
                self.at(&point)
            })
            .collect();
        std::borrow::Cow::Owned(Field {
            axes: kept,
            values,
            interpolation: self.interpolation,
        })
    }

    /// The integral over the grid's box by the tensor trapezoidal rule (second order, as the
    /// schemes that solve the field).
    pub fn integral(&self) -> f64 {
        (0..self.values.len())
            .map(|k| {
                let index = self.index(k);
                let weight: f64 = (index.iter().zip(&self.axes))
                    .map(|(&i, a)| {
                        if i == 0 || i + 1 == a.n {
                            0.5 * a.h()
                        } else {
                            a.h()
                        }
                    })
                    .product();
                weight * self.values[k]
            })
            .sum()
    }

    /// The length, area or volume of the grid's box.
    pub fn measure(&self) -> f64 {
        self.axes.iter().map(|a| a.hi - a.lo).product()
    }

    /// The least value and where it is, refined between nodes.
    pub fn min(&self) -> Extremum {
        self.refine(argbest(&self.values, |a, b| a < b))
    }

    /// The greatest value and where it is, refined between nodes.
    pub fn max(&self) -> Extremum {
        self.refine(argbest(&self.values, |a, b| a > b))
    }

    /// A discrete extremum refined along each axis by the parabola through its neighbours
    /// (second-order accurate in the location for a smooth field; nodes on the boundary stay).
    /// Where the field is not smooth there, the node stays: beside a cliff (a corner where
    /// boundary data jump) the parabola would report a value the field does not take. The
    /// test: the parabola must predict the next node out within half its second difference
    /// (the third difference at most half the second).
    fn refine(&self, k: usize) -> Extremum {
        let index = self.index(k);
        let centre = self.values[k];
        let mut point = self.node(&index);
        let mut value = centre;
        for (d, axis) in self.axes.iter().enumerate() {
            let i = index[d];
            if i == 0 || i + 1 == axis.n {
                continue;
            }
            let at = |i: usize| {
                let mut idx = index.clone();
                idx[d] = i;
                self.value(&idx)
            };
            let (a, c) = (at(i - 1), at(i + 1));
            let denom = a - 2.0 * centre + c;
            let below = (i >= 2).then(|| c - 3.0 * centre + 3.0 * a - at(i - 2));
            let above = (i + 2 < axis.n).then(|| at(i + 2) - 3.0 * c + 3.0 * centre - a);
            let third = below
                .into_iter()
                .chain(above)
                .fold(0.0f64, |m, t| m.max(t.abs()));
            if denom != 0.0 && third <= 0.5 * denom.abs() {
                let shift = (0.5 * (a - c) / denom).clamp(-0.5, 0.5);
                point[d] += shift * axis.h();
                value -= 0.25 * (a - c) * shift;
            }
        }
        Extremum { point, value }
    }
}

fn argbest(values: &[f64], better: impl Fn(f64, f64) -> bool) -> usize {
    let mut best = 0;
    for (k, &v) in values.iter().enumerate() {
        if better(v, values[best]) || values[best].is_nan() {
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

    /// A section reads the held axes by interpolation; the trapezoidal rule is exact for a
    /// bilinear field.
    #[test]
    fn sections_and_integrals() {
        let axes = vec![
            Axis::new(0.0, 2.0, 5).unwrap(),
            Axis::new(1.0, 2.0, 3).unwrap(),
        ];
        let f = |x: f64, y: f64| 1.0 + 2.0 * x + 3.0 * y + x * y;
        let values = (0..15)
            .map(|k| f(axes[0].x(k % 5), axes[1].x(k / 5)))
            .collect();
        let field = Field::new(axes, values);
        // Over [0, 2] x [1, 2]: 2 + 2*2*1 + 3*1.5*2 + (2*1.5) = 2 + 4 + 9 + 3.
        assert!((field.integral() - 18.0).abs() < 1e-12);
        assert_eq!(field.measure(), 2.0);
        let line = field.section(&[None, Some(1.25)]);
        assert_eq!(line.axes.len(), 1);
        assert!((line.at(&[0.7]) - f(0.7, 1.25)).abs() < 1e-12);
        let point = field.section(&[Some(0.3), Some(1.6)]);
        assert!(point.axes.is_empty() && (point.values[0] - f(0.3, 1.6)).abs() < 1e-12);
    }

    #[test]
    fn interpolation_and_extrema() {
        let axis = Axis::new(0.0, 1.0, 101).unwrap();
        let values: Vec<f64> = (0..101).map(|i| (axis.x(i) - 0.333).powi(2)).collect();
        let mut f = Field::new(vec![axis], values);
        let m = f.min();
        assert!(
            (m.point[0] - 0.333).abs() < 1e-12 && m.value.abs() < 1e-12,
            "{m:?}"
        );
        let exact = (0.505f64 - 0.333).powi(2);
        assert!((f.at(&[0.505]) - exact).abs() < 1e-4);
        f.interpolation = Interpolation::Cubic;
        assert!(
            (f.at(&[0.505]) - exact).abs() < 1e-14,
            "cubics are exact on a parabola"
        );
        assert!(matches!(
            Axis::new(0.0, 1.0, 2),
            Err(FdmError::GridTooSmall { .. })
        ));
        assert!(matches!(
            check_memory(1 << 30, 2, DEFAULT_MEMORY_LIMIT),
            Err(FdmError::TooLarge { .. })
        ));
    }

    /// Beside a cliff the node is the extremum: the parabola through the node before the
    /// cliff and the cliff's foot would report more than the field takes anywhere.
    #[test]
    fn an_extremum_beside_a_cliff_stays_at_its_node() {
        let axis = Axis::new(0.0, 1.0, 11).unwrap();
        let values: Vec<f64> = (0..11)
            .map(|i| if i < 10 { i as f64 } else { -40.0 })
            .collect();
        let m = Field::new(vec![axis], values).max();
        assert_eq!((m.point[0], m.value), (0.9, 9.0));
    }

    /// Max interpolation error of a smooth 2-D function at the same relative place in every
    /// cell (so that refinements compare like with like).
    fn interpolation_error(n: usize, how: Interpolation) -> f64 {
        let f = |x: f64, y: f64| (2.0 * x).sin() * y.exp();
        let axis = Axis::new(0.0, 1.0, n).unwrap();
        let mut values = Vec::new();
        for j in 0..n {
            for i in 0..n {
                values.push(f(axis.x(i), axis.x(j)));
            }
        }
        let mut field = Field::new(vec![axis, axis], values);
        field.interpolation = how;
        let probes = (0..n - 1).map(|k| (k as f64 + 0.37) * axis.h());
        probes
            .clone()
            .flat_map(|x| probes.clone().map(move |y| (x, y)))
            .map(|(x, y)| (field.at(&[x, y]) - f(x, y)).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn interpolation_orders_in_two_dimensions() {
        for (how, expected) in [(Interpolation::Linear, 2.0), (Interpolation::Cubic, 4.0)] {
            let (coarse, fine) = (interpolation_error(17, how), interpolation_error(33, how));
            let order = (coarse / fine).log2();
            assert!(
                (order - expected).abs() < 0.4,
                "{how:?}: errors {coarse:e} -> {fine:e}, order {order}"
            );
        }
    }
}
