//! PINN-BO's view of the pde's unknown constants: training variables of the residual terms
//! (the inverse-PINN loss fits them with the network), where each step's training starts
//! them, and the estimate it reports.

use crate::diagnostics::PARAMETERS;
use crate::strategies::pde::param_centre;
use crate::strategies::{Diagnostics, StrategyError};
use candle_core::{DType, Device, Tensor, Var};
use pinnbo_ad::TrainableParam;
use pinnbo_dsl::ir::Param;
use pinnbo_dsl::Problem;
use serde_json::{json, Map, Value};

/// The params the pde uses, as training variables in their fitted coordinates (the log of
/// a `log` param), and the last proposal's estimate: the next step's training starts there
/// (strategy state).
pub struct InverseParams {
    declared: Vec<Param>,
    pub trainable: Vec<TrainableParam>,
    /// The last proposal's trained values, fitted coordinates.
    pub previous: Option<Vec<f64>>,
}

impl InverseParams {
    /// None when no pde uses a param; the variables on `device`, the network's.
    pub fn new(problem: &Problem, device: &Device) -> Result<Option<InverseParams>, StrategyError> {
        let used = problem.used_params();
        if used.is_empty() {
            return Ok(None);
        }
        let centre = param_centre(problem);
        let unusable = |e: candle_core::Error| {
            StrategyError::unusable("PINN-BO", pinnbo_ad::without_backtrace(e).to_string())
        };
        let trainable = (used.iter())
            .map(|&k| {
                let param = &problem.params[k];
                let start = Tensor::new(&[param.to_fitted(centre[k])], device)?;
                Ok(TrainableParam {
                    id: k,
                    var: Var::from_tensor(&start.to_dtype(DType::F64)?)?,
                    log: param.log,
                })
            })
            .collect::<candle_core::Result<Vec<_>>>()
            .map_err(unusable)?;
        Ok(Some(InverseParams {
            declared: used.iter().map(|&k| problem.params[k].clone()).collect(),
            trainable,
            previous: None,
        }))
    }

    pub fn count(&self) -> usize {
        self.trainable.len()
    }

    /// Where a step's training starts the params (fitted coordinates): the last proposal's
    /// estimate, else the centre of their box.
    pub fn start(&self) -> Vec<f64> {
        let centre = || (self.declared.iter()).map(Param::fitted_centre).collect();
        self.previous.clone().unwrap_or_else(centre)
    }

    /// Sets the params to [`InverseParams::start`] (a picture's training moves them; this
    /// undoes it), and returns it.
    pub fn reset(&self) -> candle_core::Result<Vec<f64>> {
        let start = self.start();
        for (t, v) in self.trainable.iter().zip(&start) {
            t.var.set(&Tensor::new(&[*v], t.var.device())?)?;
        }
        Ok(start)
    }

    /// The trained values, moved back into the params' box (Adam knows no bounds), in their
    /// fitted coordinates.
    pub fn settle(&self) -> candle_core::Result<Vec<f64>> {
        let mut out = Vec::with_capacity(self.count());
        for (t, p) in self.trainable.iter().zip(&self.declared) {
            let (lo, hi) = p.fitted_bounds();
            let v = t.var.as_tensor().to_vec1::<f64>()?[0];
            let v = if v.is_finite() {
                v.clamp(lo, hi)
            } else {
                0.5 * (lo + hi)
            };
            t.var.set(&Tensor::new(&[v], t.var.device())?)?;
            out.push(v);
        }
        Ok(out)
    }

    /// `diagnostics` with the estimate under `parameters`: a trained network gives no
    /// standard deviation, so `std` is null.
    pub fn report(&self, diagnostics: Diagnostics, fitted: &[f64]) -> Diagnostics {
        let mut out = Map::new();
        for (p, v) in self.declared.iter().zip(fitted) {
            out.insert(
                p.name.clone(),
                json!({"value": p.from_fitted(*v), "std": null}),
            );
        }
        diagnostics.with(PARAMETERS, Value::Object(out))
    }

    /// The estimate as saved with the journal: eight bytes a param.
    pub fn state(&self) -> Vec<u8> {
        (self.previous.iter().flatten())
            .flat_map(|v| v.to_le_bytes())
            .collect()
    }

    /// Reads [`InverseParams::state`] from the front of `bytes`; the rest follows.
    pub fn restore<'a>(&mut self, bytes: &'a [u8]) -> Option<&'a [u8]> {
        let (mine, rest) = bytes.split_at_checked(8 * self.count())?;
        let values: Vec<f64> = (mine.chunks(8))
            .map(|c| f64::from_le_bytes(c.try_into().expect("eight bytes")))
            .collect();
        self.previous = values.iter().all(|v| v.is_finite()).then_some(values);
        self.previous.as_ref().map(|_| rest)
    }
}
