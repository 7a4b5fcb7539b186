//! The Euler–Bernoulli beam `(EI(x) w'')'' = q(x)` in split form: the bending moment M = EI w''
//! and the deflection w are unknowns of one coupled system
//!
//! ```text
//! M'' = q,    w'' = c(x) M,    c = 1/EI,
//! ```
//!
//! so the equations involve only the compliance c, which stays finite where EI has poles
//! (the thesis beam's EI changes sign 26 times on [0, 1]). Second-order central differences
//! inside, second-order one-sided differences for slopes and shear at the ends; solved in O(n)
//! by superposition (see [`Beam::solve`]).

use crate::grid::{check_memory, finite, Axis, Field, DEFAULT_MEMORY_LIMIT};
use crate::FdmError;

/// A condition at one end of the beam.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BeamCondition {
    /// w = value
    Deflection(f64),
    /// w' = value
    Slope(f64),
    /// M = EI w'' = value
    Moment(f64),
    /// V = M' = (EI w'')' = value
    Shear(f64),
}

impl BeamCondition {
    fn kinematic(self) -> bool {
        matches!(self, BeamCondition::Deflection(_) | BeamCondition::Slope(_))
    }

    fn same_kind(self, other: BeamCondition) -> bool {
        std::mem::discriminant(&self) == std::mem::discriminant(&other)
    }
}

/// Default resolution. With second-order differences the error falls as h² until round-off in
/// the h²-scaled equations takes over near 10^5 points; 2^16 + 1 points keep the thesis beam's
/// error near 1e-6, well before that floor (measured in tests/fdm_validation.rs).
pub const DEFAULT_POINTS: usize = 65_537;

pub struct Beam<'a> {
    pub axis: Axis,
    /// 1 / EI(x).
    pub compliance: &'a dyn Fn(f64) -> f64,
    /// q(x).
    pub load: &'a dyn Fn(f64) -> f64,
    pub left: [BeamCondition; 2],
    pub right: [BeamCondition; 2],
}

/// Deflection and bending moment on the grid.
#[derive(Clone, Debug)]
pub struct BeamSolution {
    pub deflection: Field,
    pub moment: Field,
}

impl Beam<'_> {
    /// Rejects combinations that leave a rigid-body motion or the moment undetermined.
    fn check_supports(&self) -> Result<(), FdmError> {
        for (end, [a, b]) in [("left", self.left), ("right", self.right)] {
            if a.same_kind(b) {
                return Err(FdmError::IllPosed(format!(
                    "both conditions at the {end} end are of the same kind ({a:?}, {b:?})"
                )));
            }
        }
        let all: Vec<BeamCondition> = self.left.iter().chain(&self.right).copied().collect();
        if !all
            .iter()
            .any(|c| matches!(c, BeamCondition::Deflection(_)))
        {
            return Err(FdmError::IllPosed(
                "no deflection is prescribed, so the beam can translate freely".into(),
            ));
        }
        if all.iter().filter(|c| c.kinematic()).count() < 2 {
            return Err(FdmError::IllPosed(
                "only one kinematic condition (deflection or slope), so the beam can rotate freely"
                    .into(),
            ));
        }
        if all
            .iter()
            .filter(|c| matches!(c, BeamCondition::Shear(_)))
            .count()
            == 2
        {
            return Err(FdmError::IllPosed(
                "shear at both ends fixes M' twice and M itself nowhere, so the moment is undetermined".into(),
            ));
        }
        Ok(())
    }

    /// Solves the discrete split system exactly, in O(n) and without a matrix.
    ///
    /// Inside, the equations are `M[i-1] - 2 M[i] + M[i+1] = h² q[i]` and
    /// `w[i-1] - 2 w[i] + w[i+1] = h² c[i] M[i]`. Their solutions are a particular one plus the
    /// discrete linear functions, so
    ///
    /// ```text
    /// M = Mp + a L + b R,     w = W(Mp) + a W(L) + b W(R) + e L + f R,
    /// ```
    ///
    /// where `L`, `R` are the linear functions 1 at the left or right end and 0 at the other,
    /// and `Mp`, `W(.)` solve the two second-difference equations with zero end values. Three
    /// Dirichlet solves of one tridiagonal matrix (whose pivots are known in closed form) and
    /// the four end conditions, a 4 x 4 system for (a, b, e, f), give the very solution of the
    /// coupled 2n x 2n system; streaming through memory a few times instead of eliminating a
    /// band made N = 10^6 7x faster (docs/decisions.md).
    pub fn solve(&self) -> Result<BeamSolution, FdmError> {
        self.check_supports()?;
        let n = self.axis.n;
        if n < 4 {
            return Err(FdmError::GridTooSmall { min: 4, got: n });
        }
        check_memory(2 * n, 1, DEFAULT_MEMORY_LIMIT)?;
        let h = self.axis.h();
        let (mut q, mut c) = (vec![0.0; n], vec![0.0; n]);
        for i in 0..n {
            let x = self.axis.x(i);
            let at = || format!("x = {x}");
            q[i] = h * h * finite("the load", at, (self.load)(x))?;
            c[i] = h * h * finite("the compliance 1/EI", at, (self.compliance)(x))?;
        }
        let last = (n - 1) as f64;
        let right = |i: usize| i as f64 / last;
        let left = |i: usize| 1.0 - right(i);
        // Mp, then W(Mp), W(L), W(R) in one pass over three right-hand sides.
        let mp = dirichlet_solve::<1>(n, |i| [q[i]]);
        let wp = dirichlet_solve::<3>(n, |i| [c[i] * mp[i][0], c[i] * left(i), c[i] * right(i)]);
        // The basis at node i: (w, M) of Xp, and of the four free directions a, b, e, f.
        let basis = |i: usize| -> [(f64, f64); 5] {
            let [wp_i, wl, wr] = wp[i];
            [
                (wp_i, mp[i][0]),
                (wl, left(i)),
                (wr, right(i)),
                (left(i), 0.0),
                (right(i), 0.0),
            ]
        };
        let mut g = [[0.0; 4]; 4];
        let mut rhs = [0.0; 4];
        let rows = self.end_rows(n, h, &q, &c)?;
        for (r, row) in rows.iter().enumerate() {
            let (bn, bx) = (basis(row.node), basis(row.next));
            let apply = |k: usize| {
                row.w[0] * bn[k].0 + row.m[0] * bn[k].1 + row.w[1] * bx[k].0 + row.m[1] * bx[k].1
            };
            for (k, gk) in g[r].iter_mut().enumerate() {
                *gk = apply(k + 1);
            }
            rhs[r] = row.rhs - apply(0);
        }
        let [a, b, e, f] = solve4(g, rhs)?;
        let mut deflection = Vec::with_capacity(n);
        let mut moment = Vec::with_capacity(n);
        for i in 0..n {
            let [wp_i, wl, wr] = wp[i];
            deflection.push(wp_i + a * wl + b * wr + e * left(i) + f * right(i));
            moment.push(mp[i][0] + a * left(i) + b * right(i));
        }
        if deflection.iter().chain(&moment).any(|v| !v.is_finite()) {
            return Err(FdmError::Singular("the beam solution is not finite".into()));
        }
        let field = |values: Vec<f64>| Field::new(vec![self.axis], values);
        Ok(BeamSolution {
            deflection: field(deflection),
            moment: field(moment),
        })
    }

    /// The four end conditions as rows over (w, M) at the end node and its neighbour. Slopes
    /// and shears use the second-order one-sided difference `-3 u0 + 4 u1 - u2 = 2h u'`, with
    /// the interior equation at the neighbour substituted for `u2`:
    /// `-2 u0 + 2 u1 = 2h u' + (h² rhs at the neighbour)`.
    fn end_rows(&self, n: usize, h: f64, q: &[f64], c: &[f64]) -> Result<Vec<EndRow>, FdmError> {
        let mut rows = Vec::with_capacity(4);
        for (conditions, node, next, dir) in [
            (self.left, 0usize, 1usize, 1.0),
            (self.right, n - 1, n - 2, -1.0),
        ] {
            for cond in conditions {
                let location = || format!("x = {}", self.axis.x(node));
                let row = |w: [f64; 2], m: [f64; 2], rhs: f64| EndRow {
                    node,
                    next,
                    w,
                    m,
                    rhs,
                };
                rows.push(match cond {
                    BeamCondition::Deflection(v) => row(
                        [1.0, 0.0],
                        [0.0, 0.0],
                        finite("a boundary value", location, v)?,
                    ),
                    BeamCondition::Moment(v) => row(
                        [0.0, 0.0],
                        [1.0, 0.0],
                        finite("a boundary value", location, v)?,
                    ),
                    // w-equation at the neighbour: w0 - 2 w1 + w2 = h² c1 M1
                    BeamCondition::Slope(v) => row(
                        [-2.0, 2.0],
                        [0.0, -c[next]],
                        2.0 * h * dir * finite("a boundary value", location, v)?,
                    ),
                    // M-equation at the neighbour: M0 - 2 M1 + M2 = h² q1
                    BeamCondition::Shear(v) => row(
                        [0.0, 0.0],
                        [-2.0, 2.0],
                        2.0 * h * dir * finite("a boundary value", location, v)? + q[next],
                    ),
                });
            }
        }
        Ok(rows)
    }
}

/// `w[0] * w(node) + w[1] * w(next) + m[0] * M(node) + m[1] * M(next) = rhs`.
struct EndRow {
    node: usize,
    next: usize,
    w: [f64; 2],
    m: [f64; 2],
    rhs: f64,
}

/// Solves `u[i-1] - 2 u[i] + u[i+1] = r[i]` for i = 1..n-2 with u[0] = u[n-1] = 0, for `K`
/// right-hand sides at once. The matrix tridiag(1, -2, 1) of size m has the pivots
/// -(k + 1)/k, so elimination needs no divisions and no storage but the result.
fn dirichlet_solve<const K: usize>(n: usize, r: impl Fn(usize) -> [f64; K]) -> Vec<[f64; K]> {
    let mut u = vec![[0.0; K]; n];
    // Forward: y[k] = r[k] - y[k-1] / d[k-1], with 1/d[k-1] = -(k-1)/k for interior index k.
    for i in 1..n - 1 {
        let factor = (i - 1) as f64 / i as f64;
        let (prev, cur) = u.split_at_mut(i);
        let rhs = r(i);
        for j in 0..K {
            cur[0][j] = rhs[j] + factor * prev[i - 1][j];
        }
    }
    // Back: u[k] = (y[k] - u[k+1]) / d[k], with 1/d[k] = -k/(k+1).
    for i in (1..n - 1).rev() {
        let inv = -(i as f64) / (i + 1) as f64;
        let next = u[i + 1];
        for j in 0..K {
            u[i][j] = (u[i][j] - next[j]) * inv;
        }
    }
    u
}

/// Gaussian elimination with partial pivoting on the 4 x 4 system of end conditions.
fn solve4(mut g: [[f64; 4]; 4], mut b: [f64; 4]) -> Result<[f64; 4], FdmError> {
    let scale = g.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
    for col in 0..4 {
        let pivot = (col..4)
            .max_by(|&i, &j| g[i][col].abs().total_cmp(&g[j][col].abs()))
            .expect("rows left");
        let size = g[pivot][col].abs();
        if size.is_nan() || size <= 1e-14 * scale {
            return Err(FdmError::Singular(
                "the end conditions do not determine the beam's deflection".into(),
            ));
        }
        g.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..4 {
            let f = g[row][col] / g[col][col];
            let pivot_row = g[col];
            for (x, p) in g[row][col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; 4];
    for row in (0..4).rev() {
        let tail: f64 = (row + 1..4).map(|k| g[row][k] * x[k]).sum();
        x[row] = (b[row] - tail) / g[row][row];
    }
    Ok(x)
}
