//! A pde's residual read as a linear differential operator, `R[u](z) = Σ_k c_k(z) D_k u(z) +
//! r0(z)`, for surrogates that condition on the pde exactly (a Gaussian process does, through
//! the operator applied to its kernel).
//!
//! The residual graph is evaluated on probe jets instead of a network's: the zero jet gives
//! `r0`, a jet that is one in entry k and zero elsewhere gives `c_k + r0`. Every lowering the
//! network side has (products by Leibniz's rule, functions of the coordinates, operators a
//! library user registered) therefore carries over unchanged. A further probe with mixed
//! values checks that the residual really is linear (and affine) in the field; a pde that is
//! not (a square of the field, a function of it) is refused by name.

use crate::jet::Jet;
use crate::multi::MultiIndex;
use crate::residual::Residual;
use candle_core::{DType, Device, Tensor};

/// The residual's linear form at a set of points.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearForm {
    /// Each term's derivative: the multi-indices (network inputs) it adds up, one for a plain
    /// derivative, several for a sum the residual carries collapsed (a Laplacian).
    pub terms: Vec<Vec<MultiIndex>>,
    /// `coefficients[p][k]`: term k's coefficient at point p.
    pub coefficients: Vec<Vec<f64>>,
    /// The residual of the zero field at each point: the pde holds where
    /// `Σ_k c_k D_k u = −offset`.
    pub offset: Vec<f64>,
    /// The points kept, by position in the request: a point where a coefficient is not
    /// finite (on a pole) is left out.
    pub kept: Vec<usize>,
}

#[derive(Debug, thiserror::Error)]
pub enum LinearError {
    #[error(
        "the pde is not linear in the field (at {point:?} its residual is {found:.6e} for a \
         field whose linear form predicts {predicted:.6e})"
    )]
    Nonlinear {
        point: Vec<f64>,
        found: f64,
        predicted: f64,
    },
    #[error("the pde's residual is not finite at any residual point (the first: {0:?})")]
    NotFinite(Vec<f64>),
    #[error(transparent)]
    Candle(candle_core::Error),
}

crate::from_candle!(LinearError::Candle);

/// Relative difference beyond which a probe counts as nonlinear (well above rounding in the
/// coefficients' own magnitude).
const LINEARITY_TOLERANCE: f64 = 1e-7;

impl Residual {
    /// The linear form at `points` (each in the network's inputs, the pde's coordinates).
    pub fn linear_form(&self, points: &[Vec<f64>]) -> Result<LinearForm, LinearError> {
        let n = points.len();
        let d = points.first().map_or(0, Vec::len);
        let flat: Vec<f64> = points.iter().flatten().copied().collect();
        let tensor = Tensor::from_vec(flat, (n, d), &Device::Cpu)?;
        let set = self.network_set().clone();
        let entries = set.len();
        // The residual for a field whose jet entry k is `values(k)` at every point.
        let probe = |values: &dyn Fn(usize) -> f64| -> Result<Vec<f64>, LinearError> {
            let data: Vec<f64> = (0..entries)
                .flat_map(|k| std::iter::repeat_n(values(k), n))
                .collect();
            let jet = Jet::new(
                set.clone(),
                Tensor::from_vec(data, (entries, n, 1), &Device::Cpu)?,
            )?;
            let r = self.evaluate_on(&tensor, jet)?;
            Ok(r.to_dtype(DType::F64)?.to_vec1()?)
        };
        let offset = probe(&|_| 0.0)?;
        let mut columns = Vec::with_capacity(entries);
        for k in 0..entries {
            let r = probe(&|j| if j == k { 1.0 } else { 0.0 })?;
            columns.push(
                r.iter()
                    .zip(&offset)
                    .map(|(a, b)| a - b)
                    .collect::<Vec<_>>(),
            );
        }
        // Two probes with values of mixed signs and sizes, none 0 or 1 (where a square is
        // its own argument): a square, a product or a function of the field shows.
        let mixed = |k: usize| 1.7 + 0.9 * k as f64 - 0.35 * (k * k) as f64;
        const FACTORS: [f64; 2] = [1.0, -0.6];
        let found = FACTORS
            .iter()
            .map(|f| probe(&|k| f * mixed(k)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut kept = Vec::with_capacity(n);
        'points: for p in 0..n {
            for (f, found) in FACTORS.iter().zip(&found) {
                let terms: Vec<f64> = (0..entries).map(|k| columns[k][p] * f * mixed(k)).collect();
                let predicted = offset[p] + terms.iter().sum::<f64>();
                if !found[p].is_finite() || !predicted.is_finite() {
                    continue 'points;
                }
                let scale = offset[p].abs() + terms.iter().map(|t| t.abs()).sum::<f64>();
                if (found[p] - predicted).abs() > LINEARITY_TOLERANCE * scale.max(1e-300) {
                    return Err(LinearError::Nonlinear {
                        point: points[p].clone(),
                        found: found[p],
                        predicted,
                    });
                }
            }
            kept.push(p);
        }
        if kept.is_empty() {
            if let Some(first) = points.first() {
                return Err(LinearError::NotFinite(first.clone()));
            }
        }
        // Keep the terms the pde uses somewhere (the closure carries lower orders too).
        let used: Vec<usize> = (0..entries)
            .filter(|&k| kept.iter().any(|&p| columns[k][p] != 0.0))
            .collect();
        Ok(LinearForm {
            terms: used
                .iter()
                .map(|&k| set.members(k).into_iter().cloned().collect())
                .collect(),
            coefficients: kept
                .iter()
                .map(|&p| used.iter().map(|&k| columns[k][p]).collect())
                .collect(),
            offset: kept.iter().map(|&p| offset[p]).collect(),
            kept,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pinnbo_dsl::{compile, Source};

    fn residual(text: &str) -> Residual {
        let problem = compile(&Source::new("t.pde", text)).unwrap().problem;
        Residual::new(&problem, &problem.pdes[0], 0).unwrap()
    }

    /// `d/dx (x² u') = x`: x² u'' + 2x u' − x, term by term.
    #[test]
    fn variable_coefficients_are_expanded_by_leibniz() {
        let r = residual(
            "var x in [0, 2]\nfield u(x) = x^3\npde d(x^2 * d(u, x), x) = x\nminimize u\n",
        );
        let form = r.linear_form(&[vec![0.5], vec![1.5]]).unwrap();
        let position = |alpha: &[usize]| form.terms.iter().position(|t| t == &[alpha.to_vec()]);
        let (first, second) = (position(&[0]).unwrap(), position(&[0, 0]).unwrap());
        assert_eq!(form.terms.len(), 2, "{:?}", form.terms);
        for (p, x) in [0.5, 1.5].into_iter().enumerate() {
            assert!((form.coefficients[p][second] - x * x).abs() < 1e-12);
            assert!((form.coefficients[p][first] - 2.0 * x).abs() < 1e-12);
            assert!((form.offset[p] + x).abs() < 1e-12);
        }
    }

    /// A Laplacian is one term that adds up both second derivatives.
    #[test]
    fn a_collapsed_sum_is_one_term() {
        let r = residual(
            "var x in [0, 1], y in [0, 1]\nfield T(x, y) = x*y\npde laplacian(T) = 1\nmaximize T\n",
        );
        let form = r.linear_form(&[vec![0.2, 0.3]]).unwrap();
        assert_eq!(form.terms, vec![vec![vec![0, 0], vec![1, 1]]]);
        assert_eq!(form.coefficients, vec![vec![1.0]]);
        assert_eq!(form.offset, vec![-1.0]);
    }

    /// A point where a coefficient has a pole is left out; the others are kept.
    #[test]
    fn points_on_a_pole_are_left_out() {
        let r = residual("var x in [0, 1]\nfield u(x) = x\npde d(u, x) / x = 1\nminimize u\n");
        let form = r.linear_form(&[vec![0.0], vec![0.5]]).unwrap();
        assert_eq!(form.kept, vec![1]);
        assert_eq!(form.coefficients, vec![vec![2.0]]);
    }

    #[test]
    fn a_nonlinear_pde_is_refused() {
        let r = residual("var x in [0, 1]\nfield u(x) = x\npde d(u, x) + u^2 = 0\nminimize u\n");
        let e = r.linear_form(&[vec![0.5]]).unwrap_err();
        assert!(matches!(e, LinearError::Nonlinear { .. }), "{e}");
        assert!(e
            .to_string()
            .starts_with("the pde is not linear in the field"));
    }
}
