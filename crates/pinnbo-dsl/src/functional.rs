//! Closed-form fields read over their field coordinates (`coord`): the value at a place, and
//! the integral, mean, maximum or minimum over coordinates' whole ranges, at one design.
//!
//! Integrals and means use tensor Gauss–Legendre quadrature on equal panels (exact for the
//! polynomials of degree 15 on each panel, and spectrally accurate for smooth fields); maxima
//! and minima a dense grid refined around its best node by a shrinking pattern search.

use crate::eval::{Compiled, Reader};
use crate::ir::{CoordId, Reduce};

/// Nodes per panel of the quadrature.
const GAUSS: usize = 8;
/// The most evaluations one reading of a field may take: the grids shrink per coordinate so
/// that the product stays below it.
const MOST_POINTS: usize = 1 << 16;

/// One functional of a closed-form field, ready to read at any design.
#[derive(Clone, Debug)]
pub struct FieldReader {
    /// The field's definition over every coordinate (design variables, then field
    /// coordinates).
    field: Compiled,
    reduce: Reduce,
    /// Where each point the reading evaluates puts the coordinates it moves, and the
    /// quadrature weight of each point (`1` for a search).
    places: Vec<Vec<(CoordId, f64)>>,
    weights: Vec<f64>,
    /// The coordinates held fixed.
    at: Vec<(CoordId, f64)>,
    /// The ranges reduced over, for the refinement of a maximum or minimum: (coordinate,
    /// lo, hi).
    ranges: Vec<(CoordId, f64, f64)>,
    /// The length, area or volume reduced over.
    measure: f64,
}

impl FieldReader {
    /// A reader of `field` (compiled over design and field coordinates) reduced by `reduce`
    /// over the coordinates `over` with their ranges, `at` held fixed.
    pub fn new(
        field: Compiled,
        reduce: Reduce,
        over: &[(CoordId, f64, f64)],
        at: Vec<(CoordId, f64)>,
    ) -> FieldReader {
        let per_axis = |base: usize| -> usize {
            let k = over.len().max(1) as u32;
            let mut n = base;
            while n > 2 && n.pow(k) > MOST_POINTS {
                n /= 2;
            }
            n
        };
        let (axes, measure): (Vec<Vec<(f64, f64)>>, f64) = match reduce {
            Reduce::Point => (Vec::new(), 1.0),
            Reduce::Integral | Reduce::Mean => {
                let panels = per_axis(16 * GAUSS) / GAUSS;
                let axes = (over.iter())
                    .map(|&(_, lo, hi)| gauss_panels(lo, hi, panels.max(1)))
                    .collect();
                (axes, over.iter().map(|&(_, lo, hi)| hi - lo).product())
            }
            Reduce::Maximum | Reduce::Minimum => {
                let n = per_axis(257);
                let axes = (over.iter())
                    .map(|&(_, lo, hi)| {
                        (0..n)
                            .map(|i| (lo + (hi - lo) * i as f64 / (n - 1) as f64, 1.0))
                            .collect()
                    })
                    .collect();
                (axes, 1.0)
            }
        };
        let mut places = vec![Vec::new()];
        let mut weights = vec![1.0];
        for (axis, &(coord, _, _)) in axes.iter().zip(over) {
            let mut next_places = Vec::with_capacity(places.len() * axis.len());
            let mut next_weights = Vec::with_capacity(places.len() * axis.len());
            for (place, w) in places.iter().zip(&weights) {
                for &(v, wv) in axis {
                    let mut p = place.clone();
                    p.push((coord, v));
                    next_places.push(p);
                    next_weights.push(w * wv);
                }
            }
            places = next_places;
            weights = next_weights;
        }
        FieldReader {
            field,
            reduce,
            places,
            weights,
            at,
            ranges: over.to_vec(),
            measure,
        }
    }

    /// The functional's value at the design `x`.
    pub fn read(&self, x: &[f64]) -> f64 {
        Reader::read(self, x)
    }
}

impl Reader for FieldReader {
    fn read(&self, x: &[f64]) -> f64 {
        let dim = self.field.dim();
        let point = |moved: &[(CoordId, f64)]| {
            let mut p = vec![0.0; dim];
            p[..x.len()].copy_from_slice(x);
            for &(c, v) in self.at.iter().chain(moved) {
                p[c] = v;
            }
            p
        };
        let mut points = Vec::with_capacity(self.places.len() * dim);
        for place in &self.places {
            points.extend(point(place));
        }
        let mut values = vec![0.0; self.places.len()];
        self.field.eval_batch(&points, &mut values);
        match self.reduce {
            Reduce::Point => values[0],
            Reduce::Integral => dot(&values, &self.weights),
            Reduce::Mean => dot(&values, &self.weights) / self.measure,
            Reduce::Maximum | Reduce::Minimum => {
                let sign = if self.reduce == Reduce::Maximum {
                    1.0
                } else {
                    -1.0
                };
                let best = (0..values.len())
                    .filter(|i| !values[*i].is_nan())
                    .max_by(|a, b| (sign * values[*a]).total_cmp(&(sign * values[*b])));
                let Some(best) = best else {
                    return f64::NAN;
                };
                let start: Vec<f64> = self.places[best].iter().map(|(_, v)| *v).collect();
                let f = |q: &[f64]| {
                    let moved: Vec<(CoordId, f64)> = (self.ranges.iter().zip(q))
                        .map(|((c, _, _), v)| (*c, *v))
                        .collect();
                    sign * self.field.eval(&point(&moved))
                };
                sign * self.refine(&f, start, values[best] * sign)
            }
        }
    }
}

impl FieldReader {
    /// A pattern search from `start` (value `value` of `f`, to be maximized), its steps
    /// starting at the grid's spacing and halving down to 1e-9 of each range.
    fn refine(&self, f: &impl Fn(&[f64]) -> f64, mut at: Vec<f64>, mut value: f64) -> f64 {
        let n = self.places.len() as f64;
        let per_axis = n.powf(1.0 / self.ranges.len().max(1) as f64).max(2.0);
        let mut step: Vec<f64> = (self.ranges.iter())
            .map(|(_, lo, hi)| (hi - lo) / (per_axis - 1.0))
            .collect();
        while (step.iter().zip(&self.ranges)).any(|(s, (_, lo, hi))| *s > 1e-9 * (hi - lo)) {
            let mut moved = false;
            for k in 0..at.len() {
                for dir in [-1.0, 1.0] {
                    let (_, lo, hi) = self.ranges[k];
                    let mut q = at.clone();
                    q[k] = (q[k] + dir * step[k]).clamp(lo, hi);
                    let v = f(&q);
                    if v > value {
                        (at, value, moved) = (q, v, true);
                    }
                }
            }
            if !moved {
                step.iter_mut().for_each(|s| *s *= 0.5);
            }
        }
        value
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Gauss–Legendre nodes and weights on `panels` equal panels of `[lo, hi]`.
fn gauss_panels(lo: f64, hi: f64, panels: usize) -> Vec<(f64, f64)> {
    let unit = gauss_legendre(GAUSS);
    let width = (hi - lo) / panels as f64;
    let mut out = Vec::with_capacity(panels * GAUSS);
    for p in 0..panels {
        let a = lo + p as f64 * width;
        for &(t, w) in &unit {
            out.push((a + 0.5 * width * (t + 1.0), 0.5 * width * w));
        }
    }
    out
}

/// The `n`-point Gauss–Legendre rule on `[-1, 1]`: Newton's method on the Legendre
/// polynomial from the classical first guesses.
pub fn gauss_legendre(n: usize) -> Vec<(f64, f64)> {
    (0..n)
        .map(|i| {
            let mut t = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            let mut derivative = 1.0;
            for _ in 0..100 {
                let (mut p0, mut p1) = (1.0, t);
                for k in 2..=n {
                    let k = k as f64;
                    (p0, p1) = (p1, ((2.0 * k - 1.0) * t * p1 - (k - 1.0) * p0) / k);
                }
                derivative = n as f64 * (t * p1 - p0) / (t * t - 1.0);
                let dt = p1 / derivative;
                t -= dt;
                if dt.abs() < 1e-16 {
                    break;
                }
            }
            (t, 2.0 / ((1.0 - t * t) * derivative * derivative))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, Expr};

    /// The rule integrates polynomials up to degree 2n − 1 exactly and its weights sum to 2.
    #[test]
    fn gauss_legendre_is_exact_for_polynomials_of_degree_15() {
        let rule = gauss_legendre(GAUSS);
        let total: f64 = rule.iter().map(|(_, w)| w).sum();
        assert!((total - 2.0).abs() < 1e-14, "{total}");
        for k in 0..16 {
            let got: f64 = rule.iter().map(|(t, w)| w * t.powi(k)).sum();
            let exact = if k % 2 == 1 {
                0.0
            } else {
                2.0 / (k as f64 + 1.0)
            };
            assert!(
                (got - exact).abs() < 1e-13,
                "degree {k}: {got} against {exact}"
            );
        }
    }

    /// `T(x, a) = sin(a x)` over x in [0, 2] at a = 3: the integral is (1 − cos 6)/3, the
    /// mean half of it, the maximum 1 (at x = π/6, between grid nodes) and the minimum −1.
    #[test]
    fn a_closed_form_field_is_reduced_over_its_coordinate() {
        // Coordinate 0 is the design variable a, coordinate 1 the field coordinate x.
        let field = Expr::Call(
            crate::builtins::Builtin::Sin,
            vec![Expr::binary(BinaryOp::Mul, Expr::Coord(0), Expr::Coord(1))],
        );
        let compiled = Compiled::new(&field, 2).unwrap();
        let read =
            |reduce| FieldReader::new(compiled.clone(), reduce, &[(1, 0.0, 2.0)], Vec::new());
        let integral = (1.0 - 6f64.cos()) / 3.0;
        assert!((read(Reduce::Integral).read(&[3.0]) - integral).abs() < 1e-12);
        assert!((read(Reduce::Mean).read(&[3.0]) - integral / 2.0).abs() < 1e-12);
        assert!((read(Reduce::Maximum).read(&[3.0]) - 1.0).abs() < 1e-12);
        assert!((read(Reduce::Minimum).read(&[3.0]) + 1.0).abs() < 1e-12);
        let point = FieldReader::new(compiled, Reduce::Point, &[], vec![(1, 0.25)]);
        assert_eq!(point.read(&[2.0]), 0.5f64.sin());
    }
    /// A design problem whose coordinate is declared before its design variables: the
    /// variables come first, the objective reads the field at a place and over its
    /// coordinate as the formulas say, and the sensors read it at their places.
    #[test]
    fn a_problems_functionals_and_sensors_read_its_closed_form_field() {
        let text = "coord x in [0, 2]\nvar a in [1, 4], Q in [0.5, 2]\n\
                    field T(x, a, Q) = Q * sin(a * x)\n\
                    sensors T at x = grid(0, 2, 3)\nsensors T at x = 0.25\n\
                    minimize (T(0.5, a, Q) - 1)^2 + integral(T, x)\n\
                    subject to hot: maximum(T, x) - mean(T, x) <= 1\n";
        let problem = crate::compile(&crate::Source::new("design.pde", text))
            .unwrap()
            .problem;
        let names: Vec<&str> = problem.coords.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "Q"]);
        assert_eq!(problem.field_coords[0].name, "x");
        assert_eq!(problem.fields[0].args, [2, 0, 1]);
        assert_eq!(problem.sensor_names(), ["T@0", "T@1", "T@2", "T@0.25"]);
        // A grid's places as a user writes them, not as their floating sum rounds.
        let grid = text.replace("grid(0, 2, 3)", "grid(0.1, 0.9, 5)");
        let rounded = crate::compile(&crate::Source::new("grid.pde", grid.as_str())).unwrap();
        assert_eq!(
            rounded.problem.sensor_names()[..5],
            ["T@0.1", "T@0.3", "T@0.5", "T@0.7", "T@0.9"]
        );
        let (a, q) = (3.0_f64, 1.5);
        let objective = problem.closed_form_objective().unwrap();
        let integral = q * (1.0 - (2.0 * a).cos()) / a;
        let expected = (q * (0.5 * a).sin() - 1.0).powi(2) + integral;
        assert!((objective.eval(&[a, q]) - expected).abs() < 1e-11);
        let constraint = problem.closed_form(&problem.constraints[0].expr).unwrap();
        assert!((constraint.eval(&[a, q]) - (q - integral / 2.0 - 1.0)).abs() < 1e-10);
        let sensors: Vec<f64> = (problem.sensor_readers().unwrap().iter())
            .map(|r| r.read(&[a, q]))
            .collect();
        let truth = [0.0, 1.0, 2.0, 0.25].map(|x: f64| q * (a * x).sin());
        for (got, want) in sensors.iter().zip(truth) {
            assert!((got - want).abs() < 1e-14, "{sensors:?}");
        }
    }
}
