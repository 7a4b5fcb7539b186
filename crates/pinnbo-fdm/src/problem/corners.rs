//! Dirichlet data that jump at a corner of the rectangle (the thesis's heat plates all do, by
//! thousands of degrees) make the solution discontinuous there, and the five-point scheme then
//! converges only at first order everywhere: the jump's position is uncertain by a cell. Each
//! jump is carried instead by an exact harmonic function, the angle seen from the corner
//! scaled to run from 0 on one edge to 1 on the other; the grid solves for the continuous rest.

use std::f64::consts::FRAC_2_PI;

/// One corner's jump: the corner, the directions into the rectangle, and the jump from the
/// horizontal edge's value to the vertical edge's value.
struct Jump {
    x0: f64,
    y0: f64,
    sx: f64,
    sy: f64,
    size: f64,
}

/// The harmonic function carrying every corner jump.
pub(crate) struct CornerJumps(Vec<Jump>);

impl CornerJumps {
    /// `vertical[i]` is the data on the edge x = (lo, hi)[i] as a function of y, `horizontal[j]`
    /// on y = (lo, hi)[j] as a function of x; `None` for an edge without Dirichlet data.
    pub fn new(
        x: (f64, f64),
        y: (f64, f64),
        vertical: [Option<&dyn Fn(f64) -> f64>; 2],
        horizontal: [Option<&dyn Fn(f64) -> f64>; 2],
    ) -> CornerJumps {
        let mut jumps = Vec::new();
        for (i, (x0, sx)) in [(x.0, 1.0), (x.1, -1.0)].into_iter().enumerate() {
            for (j, (y0, sy)) in [(y.0, 1.0), (y.1, -1.0)].into_iter().enumerate() {
                if let (Some(v), Some(h)) = (vertical[i], horizontal[j]) {
                    let size = v(y0) - h(x0);
                    if size.is_finite() && size != 0.0 {
                        jumps.push(Jump {
                            x0,
                            y0,
                            sx,
                            sy,
                            size,
                        });
                    }
                }
            }
        }
        CornerJumps(jumps)
    }

    /// The value at a point of the rectangle (0 from a corner's own term at that corner).
    pub fn at(&self, x: f64, y: f64) -> f64 {
        self.0
            .iter()
            .map(|j| j.size * FRAC_2_PI * (j.sy * (y - j.y0)).atan2(j.sx * (x - j.x0)))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_each_edges_value_near_its_corner_and_is_harmonic() {
        let left = |_: f64| 10.0;
        let bottom = |_: f64| 1.0;
        let s = CornerJumps::new(
            (0.0, 1.0),
            (0.0, 2.0),
            [Some(&left), None],
            [Some(&bottom), None],
        );
        assert!(
            (s.at(1e-9, 0.5) - 9.0).abs() < 1e-6,
            "the vertical edge's side"
        );
        assert!(s.at(0.5, 0.0).abs() < 1e-12, "the horizontal edge's side");
        let h = 1e-3;
        let (x, y) = (0.3, 0.7);
        let uxx = (s.at(x + h, y) - 2.0 * s.at(x, y) + s.at(x - h, y)) / (h * h);
        let uyy = (s.at(x, y + h) - 2.0 * s.at(x, y) + s.at(x, y - h)) / (h * h);
        // Each second derivative is O(1); their sum vanishes to the differences' O(h²) error.
        assert!(uxx.abs() > 1.0, "{uxx}");
        assert!((uxx + uyy).abs() < 1e-4 * uxx.abs(), "{uxx} + {uyy}");
    }
}
