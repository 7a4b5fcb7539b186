//! The Euler–Bernoulli beam `(EI(x) w'')'' = q(x)` in split form: the bending moment M = EI w''
//! and the deflection w are unknowns of one coupled system
//!
//! ```text
//! M'' = q,    w'' = c(x) M,    c = 1/EI,
//! ```
//!
//! so the equations involve only the compliance c, which stays finite where EI has poles
//! (the thesis beam's EI changes sign 26 times on [0, 1]). Second-order central differences
//! inside, second-order one-sided differences for slopes and shear at the ends; the system is
//! banded and solved in O(n).

use crate::grid::{check_memory, finite, Axis, Field1, DEFAULT_MEMORY_LIMIT};
use crate::band::Banded;
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
    pub deflection: Field1,
    pub moment: Field1,
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

    pub fn solve(&self) -> Result<BeamSolution, FdmError> {
        self.check_supports()?;
        let n = self.axis.n;
        if n < 4 {
            return Err(FdmError::GridTooSmall { min: 4, got: n });
        }
        check_memory(2 * n, 1, DEFAULT_MEMORY_LIMIT)?;
        let h = self.axis.h();
        // Unknowns interleaved (w_i at 2i, M_i at 2i + 1) and equations in node order, so the
        // matrix is banded: five diagonals on either side suffice (the one-sided end
        // differences reach two nodes in).
        let (w, m) = (|i: usize| 2 * i, |i: usize| 2 * i + 1);
        let mut a = Banded::new(2 * n, 5, 5);
        let mut rhs = vec![0.0; 2 * n];
        // End conditions: node 0 looking right (rows 0, 1), node n-1 looking left (last two).
        for (conditions, node, dir, first_row) in [(self.left, 0usize, 1.0, 0usize), (self.right, n - 1, -1.0, 2 * n - 2)] {
            let step = |k: usize| if dir > 0.0 { node + k } else { node - k };
            for (r, c) in conditions.into_iter().enumerate() {
                let row = first_row + r;
                // (the unknown conditioned, its value, whether on its derivative)
                let (unknown, value, derivative): (fn(usize) -> usize, f64, bool) = match c {
                    BeamCondition::Deflection(v) => (w, v, false),
                    BeamCondition::Slope(v) => (w, v, true),
                    BeamCondition::Moment(v) => (m, v, false),
                    BeamCondition::Shear(v) => (m, v, true),
                };
                let value = finite("a boundary value", || format!("x = {}", self.axis.x(node)), value)?;
                if derivative {
                    // u'(end) ≈ dir (-3 u0 + 4 u1 - u2) / (2h)
                    for (k, coef) in [(0, -3.0), (1, 4.0), (2, -1.0)] {
                        a.add(row, unknown(step(k)), dir * coef);
                    }
                    rhs[row] = 2.0 * h * value;
                } else {
                    a.add(row, unknown(node), 1.0);
                    rhs[row] = value;
                }
            }
        }
        // Interior equations, scaled by h² for conditioning: M'' = q (row 2i), w'' = c M (2i + 1).
        for i in 1..n - 1 {
            let x = self.axis.x(i);
            let at = || format!("x = {x}");
            let q = finite("the load", at, (self.load)(x))?;
            let c = finite("the compliance 1/EI", at, (self.compliance)(x))?;
            for (k, v) in [(i - 1, 1.0), (i, -2.0), (i + 1, 1.0)] {
                a.add(2 * i, m(k), v);
                a.add(2 * i + 1, w(k), v);
            }
            rhs[2 * i] = h * h * q;
            a.add(2 * i + 1, m(i), -h * h * c);
        }
        let x = a.solve(rhs)?;
        let field = |values: Vec<f64>| Field1 { axis: self.axis, values };
        Ok(BeamSolution {
            deflection: field(x.iter().step_by(2).copied().collect()),
            moment: field(x.iter().skip(1).step_by(2).copied().collect()),
        })
    }
}
