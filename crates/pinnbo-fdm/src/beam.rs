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

use crate::band::Banded;
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

    pub fn solve(&self) -> Result<BeamSolution, FdmError> {
        self.check_supports()?;
        let n = self.axis.n;
        if n < 4 {
            return Err(FdmError::GridTooSmall { min: 4, got: n });
        }
        check_memory(2 * n, 1, DEFAULT_MEMORY_LIMIT)?;
        let h = self.axis.h();
        // Unknowns interleaved (w_i at 2i, M_i at 2i + 1) and equations in node order, so the
        // matrix is banded with three diagonals on either side.
        let (w, m) = (|i: usize| 2 * i, |i: usize| 2 * i + 1);
        let mut a = Banded::new(2 * n, 3, 3);
        let mut rhs = vec![0.0; 2 * n];
        let mut coefficients = Vec::with_capacity(n);
        for i in 0..n {
            let x = self.axis.x(i);
            let at = || format!("x = {x}");
            let q = finite("the load", at, (self.load)(x))?;
            let c = finite("the compliance 1/EI", at, (self.compliance)(x))?;
            coefficients.push((q, c));
        }
        // Interior equations, scaled by h² for conditioning: M'' = q (row 2i), w'' = c M (2i + 1).
        for i in 1..n - 1 {
            let (q, c) = coefficients[i];
            for (k, v) in [(i - 1, 1.0), (i, -2.0), (i + 1, 1.0)] {
                a.add(2 * i, m(k), v);
                a.add(2 * i + 1, w(k), v);
            }
            rhs[2 * i] = h * h * q;
            a.add(2 * i + 1, m(i), -h * h * c);
        }
        // End conditions: node 0 looking right (rows 0, 1), node n-1 looking left (last two).
        // A one-sided derivative (-3 u0 + 4 u1 - u2) = 2h dir u' reaches two nodes in; adding
        // the interior equation at the neighbour (u0 - 2 u1 + u2 = h² rhs) cancels u2 and keeps
        // the band narrow: -2 u0 + 2 u1 = 2h dir u' + (h² rhs at the neighbour, moved across).
        for (conditions, node, dir, first_row) in [
            (self.left, 0usize, 1.0, 0usize),
            (self.right, n - 1, -1.0, 2 * n - 2),
        ] {
            let next = if dir > 0.0 { node + 1 } else { node - 1 };
            let (q1, c1) = coefficients[next];
            for (r, cond) in conditions.into_iter().enumerate() {
                let row = first_row + r;
                let location = || format!("x = {}", self.axis.x(node));
                match cond {
                    BeamCondition::Deflection(v) => {
                        a.add(row, w(node), 1.0);
                        rhs[row] = finite("a boundary value", location, v)?;
                    }
                    BeamCondition::Moment(v) => {
                        a.add(row, m(node), 1.0);
                        rhs[row] = finite("a boundary value", location, v)?;
                    }
                    BeamCondition::Slope(v) => {
                        // w-equation at the neighbour: w0 - 2 w1 + w2 - h² c1 M1 = 0
                        a.add(row, w(node), -2.0);
                        a.add(row, w(next), 2.0);
                        a.add(row, m(next), -h * h * c1);
                        rhs[row] = 2.0 * h * dir * finite("a boundary value", location, v)?;
                    }
                    BeamCondition::Shear(v) => {
                        // M-equation at the neighbour: M0 - 2 M1 + M2 = h² q1
                        a.add(row, m(node), -2.0);
                        a.add(row, m(next), 2.0);
                        rhs[row] =
                            2.0 * h * dir * finite("a boundary value", location, v)? + h * h * q1;
                    }
                }
            }
        }
        let x = a.solve(rhs)?;
        let field = |values: Vec<f64>| Field::new(vec![self.axis], values);
        Ok(BeamSolution {
            deflection: field(x.iter().step_by(2).copied().collect()),
            moment: field(x.iter().skip(1).step_by(2).copied().collect()),
        })
    }
}
