//! The Euler–Bernoulli beam `(EI(x) w'')'' = q(x)` in split form: the bending moment M = EI w''
//! and the deflection w are unknowns of one coupled system
//!
//!     M'' = q,    w'' = c(x) M,    c = 1/EI,
//!
//! so the equations involve only the compliance c, which stays finite where EI has poles
//! (the thesis beam's EI changes sign 26 times on [0, 1]). Second-order central differences
//! inside, second-order one-sided differences for slopes and shear at the ends.

use crate::grid::{check_memory, finite, Axis, Field1, DEFAULT_MEMORY_LIMIT};
use crate::sparse::Assembly;
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
        // Unknowns: w_0..w_{n-1}, then M_0..M_{n-1}.
        let (w, m) = (|i: usize| i, |i: usize| n + i);
        let mut a = Assembly::new(2 * n, 8 * n);
        let mut rhs = vec![0.0; 2 * n];
        let mut row = 0;
        // Interior equations, scaled by h² for conditioning.
        for i in 1..n - 1 {
            let x = self.axis.x(i);
            let at = || format!("x = {x}");
            let q = finite("the load", at, (self.load)(x))?;
            let c = finite("the compliance 1/EI", at, (self.compliance)(x))?;
            for (k, v) in [(i - 1, 1.0), (i, -2.0), (i + 1, 1.0)] {
                a.add(row, m(k), v);
                a.add(row + 1, w(k), v);
            }
            rhs[row] = h * h * q;
            a.add(row + 1, m(i), -h * h * c);
            row += 2;
        }
        // End conditions: node 0 looking right, node n-1 looking left.
        for (conditions, node, dir) in [(self.left, 0usize, 1.0), (self.right, n - 1, -1.0)] {
            let step = |k: usize| if dir > 0.0 { node + k } else { node - k };
            for c in conditions {
                // (offset of the unknown's block: w first, then M; condition on it or its derivative)
                let (offset, value, derivative) = match c {
                    BeamCondition::Deflection(v) => (0, v, false),
                    BeamCondition::Slope(v) => (0, v, true),
                    BeamCondition::Moment(v) => (n, v, false),
                    BeamCondition::Shear(v) => (n, v, true),
                };
                let value = finite(
                    "a boundary value",
                    || format!("x = {}", self.axis.x(node)),
                    value,
                )?;
                let col = |k: usize| offset + step(k);
                if derivative {
                    // u'(end) ≈ dir (-3 u0 + 4 u1 - u2) / (2h)
                    for (k, coef) in [(0, -3.0), (1, 4.0), (2, -1.0)] {
                        a.add(row, col(k), dir * coef);
                    }
                    rhs[row] = 2.0 * h * value;
                } else {
                    a.add(row, col(0), 1.0);
                    rhs[row] = value;
                }
                row += 1;
            }
        }
        let x = a.factor()?.solve(&rhs)?;
        let field = |values: &[f64]| Field1 {
            axis: self.axis,
            values: values.to_vec(),
        };
        Ok(BeamSolution {
            deflection: field(&x[..n]),
            moment: field(&x[n..]),
        })
    }
}
