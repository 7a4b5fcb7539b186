//! Residual terms for a problem's field: its pde at collocation points sampled in the domain,
//! and (for forward solves) its `oracle fdm` boundary conditions on their faces. Points where
//! the residual is not finite at the initial network (a coefficient with a pole, such as
//! Michalewicz's) are dropped and reported, never turned into NaN losses.

use crate::mlp::{Activation, Mlp};
use crate::operators::OperatorRegistry;
use crate::residual::{Residual, ResidualError, TrainableParam};
use crate::sampling::{in_box, on_face, Sampling};
use crate::train::ResidualTerm;
use candle_core::{DType, Tensor};
use pinnbo_dsl::ir::{FieldId, Oracle, Pde, Problem, Side};

#[derive(Debug, thiserror::Error)]
pub enum CollocationError {
    #[error(transparent)]
    Residual(#[from] ResidualError),
    #[error(transparent)]
    Candle(candle_core::Error),
    #[error("the field `{0}` has no pde to enforce")]
    NoPde(String),
    #[error(
        "a relu network has zero second derivatives, so it cannot satisfy a pde of order {0}; \
         use tanh, sin or softplus"
    )]
    ReluOrder(u32),
}

crate::from_candle!(CollocationError::Candle);

/// Points dropped from a term because its residual was not finite there.
#[derive(Clone, Debug, PartialEq)]
pub struct Dropped {
    pub term: String,
    pub count: usize,
    /// One of the dropped points, as (coordinate name, value) pairs.
    pub example: Vec<(String, f64)>,
}

#[derive(Clone, Debug)]
pub struct CollocationConfig {
    pub interior: usize,
    /// Points per boundary condition (1 on the end of a 1-D domain).
    pub boundary: usize,
    pub sampling: Sampling,
    pub seed: u64,
    pub boundary_weight: f64,
    pub pde_weight: f64,
    /// The pde's params as training variables (an inverse PINN); empty when the pde has
    /// none.
    pub params: Vec<TrainableParam>,
}

impl CollocationConfig {
    /// `interior` Sobol points for the pde (weight 1) and `boundary` per condition (weight 1).
    pub fn sobol(interior: usize, boundary: usize, seed: u64) -> CollocationConfig {
        CollocationConfig {
            interior,
            boundary,
            sampling: Sampling::Sobol,
            seed,
            boundary_weight: 1.0,
            pde_weight: 1.0,
            params: Vec::new(),
        }
    }
}

/// The pde terms (and, with `with_boundary`, the fdm oracle's conditions) for `field`.
pub fn residual_terms(
    problem: &Problem,
    field: FieldId,
    net: &Mlp,
    config: &CollocationConfig,
    operators: &OperatorRegistry,
    with_boundary: bool,
) -> Result<(Vec<ResidualTerm>, Vec<Dropped>), CollocationError> {
    let args = &problem.fields[field].args;
    let bounds: Vec<(f64, f64)> = args
        .iter()
        .map(|&c| (problem.coords[c].lo, problem.coords[c].hi))
        .collect();
    let (dtype, device) = (net.config().dtype, net.device());
    let tensor = |flat: Vec<f64>| -> candle_core::Result<Tensor> {
        let n = flat.len() / bounds.len();
        Tensor::from_vec(flat, (n, bounds.len()), device)?.to_dtype(dtype)
    };
    let mut terms = Vec::new();
    let mut dropped = Vec::new();
    let pdes: Vec<&Pde> = problem.pdes.iter().filter(|p| p.mentions(field)).collect();
    if pdes.is_empty() {
        return Err(CollocationError::NoPde(problem.fields[field].name.clone()));
    }
    for (k, pde) in pdes.iter().enumerate() {
        let points = in_box(
            &bounds,
            config.interior,
            config.sampling,
            config.seed.wrapping_add(k as u64),
        );
        let residual = Residual::trainable(problem, pde, field, operators, &config.params)?;
        if net.config().activation == Activation::Relu && residual.order() >= 2 {
            return Err(CollocationError::ReluOrder(residual.order()));
        }
        let name = format!("pde {}", k + 1);
        terms.push(finite_term(
            problem,
            args,
            residual,
            tensor(points)?,
            config.pde_weight,
            net,
            name,
            &mut dropped,
        )?);
    }
    if let (true, Oracle::Fdm(oracle)) = (with_boundary, &problem.oracle) {
        for (k, bc) in oracle.conditions.iter().enumerate() {
            let Some(axis) = args.iter().position(|&c| c == bc.coord) else {
                continue;
            };
            let value = match bc.side {
                Side::Lower => bounds[axis].0,
                Side::Upper => bounds[axis].1,
            };
            let seed = config.seed.wrapping_add(1000 + k as u64);
            let points = on_face(&bounds, axis, value, config.boundary, config.sampling, seed);
            let residual = Residual::with_operators(problem, &bc.as_pde(), field, operators)?;
            let name = format!("condition {}", k + 1);
            terms.push(finite_term(
                problem,
                args,
                residual,
                tensor(points)?,
                config.boundary_weight,
                net,
                name,
                &mut dropped,
            )?);
        }
    }
    Ok((terms, dropped))
}

/// The term with the points where the residual is not finite at `net` removed.
#[allow(clippy::too_many_arguments)]
fn finite_term(
    problem: &Problem,
    args: &[usize],
    residual: Residual,
    points: Tensor,
    weight: f64,
    net: &Mlp,
    name: String,
    dropped: &mut Vec<Dropped>,
) -> candle_core::Result<ResidualTerm> {
    let values: Vec<f64> = residual
        .evaluate(net, &points)?
        .to_dtype(DType::F64)?
        .to_vec1()?;
    let keep: Vec<u32> = (0..values.len() as u32)
        .filter(|&i| values[i as usize].is_finite())
        .collect();
    let points = if keep.len() < values.len() {
        let bad = (0..values.len())
            .find(|&i| !values[i].is_finite())
            .expect("one dropped");
        let row: Vec<f64> = points.get(bad)?.to_dtype(DType::F64)?.to_vec1()?;
        dropped.push(Dropped {
            term: name,
            count: values.len() - keep.len(),
            example: args
                .iter()
                .zip(row)
                .map(|(&c, v)| (problem.coords[c].name.clone(), v))
                .collect(),
        });
        points.index_select(
            &Tensor::from_vec(keep.clone(), keep.len(), points.device())?,
            0,
        )?
    } else {
        points
    };
    Ok(ResidualTerm {
        residual,
        points,
        weight,
        point_weights: None,
    })
}
