//! Steady heat / Poisson in 2-D: `div(k grad T) = f` on a rectangle, Dirichlet or Neumann data
//! per edge, conservative five-point stencil (conductivity at half nodes), second order.

use crate::grid::{check_memory, finite, Axis, Field, DEFAULT_MEMORY_LIMIT};
use crate::sparse::{nested_dissection, Assembly};
use crate::FdmError;

/// Data on one edge, as a function of the coordinate along the edge.
pub enum EdgeData<'a> {
    /// The value of T.
    Dirichlet(&'a dyn Fn(f64) -> f64),
    /// The derivative of T along the axis normal to the edge (d/dx on the left and right
    /// edges, d/dy on the bottom and top), in the positive axis direction.
    Neumann(&'a dyn Fn(f64) -> f64),
}

/// The four edges: x = lo, x = hi, y = lo, y = hi.
pub struct Edges<'a> {
    pub left: EdgeData<'a>,
    pub right: EdgeData<'a>,
    pub bottom: EdgeData<'a>,
    pub top: EdgeData<'a>,
}

pub struct Poisson2d<'a> {
    pub x: Axis,
    pub y: Axis,
    pub conductivity: &'a dyn Fn(f64, f64) -> f64,
    pub source: &'a dyn Fn(f64, f64) -> f64,
    pub edges: Edges<'a>,
}

/// Which edge data applies at a node: a Dirichlet edge wins at corners.
enum NodeKind {
    Dirichlet(f64),
    Interior,
}

impl Poisson2d<'_> {
    pub fn solve(&self) -> Result<Field, FdmError> {
        self.solve_with_limit(DEFAULT_MEMORY_LIMIT)
    }

    pub fn solve_with_limit(&self, memory_limit: u64) -> Result<Field, FdmError> {
        let (matrix, rhs) = self.assemble(memory_limit)?;
        let values = matrix.factor()?.solve(&rhs)?;
        Ok(Field::new(vec![self.x, self.y], values))
    }

    /// The sparse system and its right-hand side (public so that benchmarks can time the
    /// assembly, factorization and solve phases apart).
    pub fn assemble(&self, memory_limit: u64) -> Result<(Assembly, Vec<f64>), FdmError> {
        let (nx, ny) = (self.x.n, self.y.n);
        check_memory(nx * ny, 2, memory_limit)?;
        let e = &self.edges;
        if [&e.left, &e.right, &e.bottom, &e.top]
            .iter()
            .all(|d| matches!(d, EdgeData::Neumann(_)))
        {
            return Err(FdmError::IllPosed(
                "every edge has Neumann data, which fixes the temperature only up to a constant \
                 (and admits a solution only if the data balance the source); give Dirichlet data \
                 on at least one edge"
                    .into(),
            ));
        }
        let (hx, hy) = (self.x.h(), self.y.h());
        let index = |i: usize, j: usize| j * nx + i;
        let mut fixed = vec![None; nx * ny];
        for j in 0..ny {
            for i in 0..nx {
                if let NodeKind::Dirichlet(g) = self.node_kind(i, j)? {
                    fixed[index(i, j)] = Some(g);
                }
            }
        }
        let mut a = Assembly::new(nx * ny, 5 * nx * ny).with_ordering(nested_dissection(nx, ny));
        let mut rhs = vec![0.0; nx * ny];
        let mut entries = Vec::with_capacity(5);
        for j in 0..ny {
            for i in 0..nx {
                let (x, y) = (self.x.x(i), self.y.x(j));
                let row = index(i, j);
                if let Some(g) = fixed[row] {
                    a.add(row, row, 1.0);
                    rhs[row] = g;
                    continue;
                }
                let at = |px: f64, py: f64| move || format!("(x = {px}, y = {py})");
                let mut b = finite("the source", at(x, y), (self.source)(x, y))?;
                let k = |px: f64, py: f64| {
                    finite("the conductivity", at(px, py), (self.conductivity)(px, py))
                };
                let (kxm, kxp) = (k(x - hx / 2.0, y)?, k(x + hx / 2.0, y)?);
                let (kym, kyp) = (k(x, y - hy / 2.0)?, k(x, y + hy / 2.0)?);
                let along_x = Line {
                    n: nx,
                    h: hx,
                    k_minus: kxm,
                    k_plus: kxp,
                    lo: &e.left,
                    hi: &e.right,
                    across: y,
                };
                let along_y = Line {
                    n: ny,
                    h: hy,
                    k_minus: kym,
                    k_plus: kyp,
                    lo: &e.bottom,
                    hi: &e.top,
                    across: x,
                };
                entries.clear();
                let sx = along_x.add(&mut entries, i, |ii| index(ii, j), &mut b)?;
                let sy = along_y.add(&mut entries, j, |jj| index(i, jj), &mut b)?;
                // The row is `-div(k grad T) = -f`, scaled so that the matrix is symmetric
                // positive definite whenever the conductivity allows: Dirichlet neighbours move
                // to the right-hand side, and a row that reflects a ghost node is scaled by
                // k_inside / (k_inside + k_ghost) per reflection (scaling a row keeps the
                // solution).
                let scale = sx * sy;
                let mut value = -b;
                for &(col, coef) in &entries {
                    match fixed[col] {
                        Some(g) => value += coef * g,
                        None => a.add(row, col, -scale * coef),
                    }
                }
                rhs[row] = scale * value;
            }
        }
        Ok((a, rhs))
    }

    fn node_kind(&self, i: usize, j: usize) -> Result<NodeKind, FdmError> {
        let (x, y) = (self.x.x(i), self.y.x(j));
        let mut values = Vec::new();
        let mut dirichlet = |data: &EdgeData<'_>, along: f64| {
            if let EdgeData::Dirichlet(g) = data {
                values.push(g(along));
            }
        };
        if i == 0 {
            dirichlet(&self.edges.left, y);
        }
        if i + 1 == self.x.n {
            dirichlet(&self.edges.right, y);
        }
        if j == 0 {
            dirichlet(&self.edges.bottom, x);
        }
        if j + 1 == self.y.n {
            dirichlet(&self.edges.top, x);
        }
        if values.is_empty() {
            return Ok(NodeKind::Interior);
        }
        // Where two Dirichlet edges meet, their mean: the five-point stencil never reads a
        // corner, so this only affects the reported field at that one point.
        let g = values.iter().sum::<f64>() / values.len() as f64;
        Ok(NodeKind::Dirichlet(finite(
            "the boundary data",
            || format!("(x = {x}, y = {y})"),
            g,
        )?))
    }
}

/// One axis of the stencil at a node: `(k+ (T[i+1] - T[i]) - k- (T[i] - T[i-1])) / h²`.
/// A neighbour outside the grid is a ghost node eliminated with the Neumann data.
struct Line<'a, 'b> {
    n: usize,
    h: f64,
    k_minus: f64,
    k_plus: f64,
    lo: &'a EdgeData<'b>,
    hi: &'a EdgeData<'b>,
    across: f64,
}

impl Line<'_, '_> {
    /// Appends this axis's stencil entries (of `div(k grad T)`) for node `i`, folds Neumann
    /// data into `rhs`, and returns the row scale that keeps the matrix symmetric.
    fn add(
        &self,
        entries: &mut Vec<(usize, f64)>,
        i: usize,
        col: impl Fn(usize) -> usize,
        rhs: &mut f64,
    ) -> Result<f64, FdmError> {
        let (cm, cp) = (
            self.k_minus / (self.h * self.h),
            self.k_plus / (self.h * self.h),
        );
        entries.push((col(i), -(cm + cp)));
        if i == 0 {
            // T[-1] = T[1] - 2h g
            let g = neumann(self.lo, self.across)?;
            entries.push((col(1), cm + cp));
            *rhs += cm * 2.0 * self.h * g;
            Ok(cp / (cm + cp))
        } else if i + 1 == self.n {
            // T[n] = T[n-2] + 2h g
            let g = neumann(self.hi, self.across)?;
            entries.push((col(i - 1), cm + cp));
            *rhs -= cp * 2.0 * self.h * g;
            Ok(cm / (cm + cp))
        } else {
            entries.push((col(i - 1), cm));
            entries.push((col(i + 1), cp));
            Ok(1.0)
        }
    }
}

fn neumann(data: &EdgeData<'_>, along: f64) -> Result<f64, FdmError> {
    match data {
        EdgeData::Neumann(g) => finite(
            "the Neumann data",
            || format!("{along} along the edge"),
            g(along),
        ),
        // Unreachable: nodes on a Dirichlet edge get a Dirichlet row.
        EdgeData::Dirichlet(_) => Ok(0.0),
    }
}
