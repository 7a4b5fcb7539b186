//! Fitting physics-gp's model: the hyperparameters (and the pde's params) by the likelihood
//! of the observations given the pde, from a coarse grid of length scales, the params'
//! sweep and the previous step's optimum, then the params' uncertainty by the Laplace
//! approximation; each param's profile posterior is read on demand
//! ([`PdeGp::with_param_profiles`]), where the estimate is reported.

use super::likelihood::{objective, value_only};
use super::params::{base_params, sweep, ParamEquations, RowSource};
use super::rows::{Rows, NOISE};
use super::spread::{laplace, with_profiles, ParamSpread};
use super::{Discrepancy, PdeGp, PdeHyper, PdeModel, Residuals};
use crate::numerics::quasi_newton::{self, Stop};
use crate::surrogates::gp::{GpError, Hyper};
use crate::surrogates::{KnownNoise, Starts};

/// Bounds on the log-parameters. Length scales reach 0.001: a pde's residual points resolve
/// fields that oscillate faster than a few observations could show.
pub(super) const LENGTHSCALE: (f64, f64) = (-6.9, 2.3);
const SIGNAL: (f64, f64) = (-3.0, 5.0);
/// ρ from 1e-10 (the pde exact to rounding) to 0.1.
const RELATIVE: (f64, f64) = (-23.0, -2.3);
/// The discrepancy's signal variance (standardized) from 1e-6, where it carries nothing, to
/// 10; its length scale within the plain GP's reach, and never below the observations'
/// spacing ([`shortest_discrepancy_lengthscale`]).
const DISCREPANCY_SIGNAL: (f64, f64) = (-13.8, 2.3);
const DISCREPANCY_LENGTHSCALE: (f64, f64) = (-4.6, 2.3);
/// Where the discrepancy starts: a hundredth of the signal, a fifth of the box.
const START_DISCREPANCY: (f64, f64) = (0.01, 0.2);
/// The grid the fit's starts are chosen from (module docs of [`PdeGp::fit`]).
const RAW_LENGTHSCALES: [f64; 9] = [0.003, 0.006, 0.012, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8];
const RAW_SIGNALS: [f64; 1] = [1.5];
const RAW_RELATIVE: [f64; 1] = [1e-8];
/// Looser than the plain GP's: every evaluation factors a matrix of observations plus
/// residual points, and the optimum moves little between steps (each fit starts from the
/// last).
const FIT_STOP: Stop = Stop {
    iterations: 40,
    gradient: 1e-3,
    decrease: 1e-6,
};
const WARM_STOP: Stop = Stop {
    iterations: 10,
    ..FIT_STOP
};

/// The log of the spacing of `points` points in the unit cube of `d` variables, `n^(−1/d)`
/// (0 for none: the cube's side).
fn log_spacing(points: usize, d: usize) -> f64 {
    -(points.max(1) as f64).ln() / d as f64
}

/// The log of the shortest length scale the fit may take with `equations` residual
/// equations in `d` variables: their spacing. Below it the equations no longer constrain
/// the field between the residual points, and a fit that must explain noisy observations
/// with too little noise escapes the pde there instead of raising the noise
/// (docs/decisions.md "physics-gp's shortest length scale").
pub(super) fn shortest_lengthscale(equations: usize, d: usize) -> f64 {
    match equations {
        0 => LENGTHSCALE.0,
        n => LENGTHSCALE.0.max(log_spacing(n, d)),
    }
}

/// The log of the shortest length scale the discrepancy may take over `observed`
/// observations in `d` variables: their spacing. A discrepancy shorter than that is
/// uncorrelated from one observation to the next, which is what the noise already is: the
/// likelihood cannot tell the two apart, and a right pde's noisy observations would be
/// handed to the discrepancy (docs/decisions.md "A discrepancy the pde does not govern").
pub(super) fn shortest_discrepancy_lengthscale(observed: usize, d: usize) -> f64 {
    DISCREPANCY_LENGTHSCALE.0.max(log_spacing(observed, d))
}

impl PdeGp {
    /// Fits the model to observations at unit points `x` (values in the file's units) and to
    /// the pde at `residuals`.
    pub fn fit(
        model: PdeModel,
        x: &[Vec<f64>],
        values: &[f64],
        residuals: &Residuals,
        starts: Starts<PdeHyper>,
        known_noise: &KnownNoise,
    ) -> Result<PdeGp, GpError> {
        let rows = Rows::new(x, values, residuals)?.with_sems(&known_noise.sems);
        let equations = residuals.targets.len();
        PdeGp::fit_rows(
            model,
            RowSource::Fixed(rows),
            equations,
            starts,
            known_noise,
        )
    }

    /// [`PdeGp::fit`] for a pde with unknown constants: they are fitted with the
    /// hyperparameters ([`params`]), and [`PdeGp::param_spread`] holds their uncertainty.
    pub fn fit_with_params(
        model: PdeModel,
        x: &[Vec<f64>],
        values: &[f64],
        equations: &dyn ParamEquations,
        starts: Starts<PdeHyper>,
        known_noise: &KnownNoise,
    ) -> Result<PdeGp, GpError> {
        if x.is_empty() {
            return Err(GpError::Empty);
        }
        // The number of equations at the start (a point on a pole of some value is left out).
        let previous = starts.previous.map(|h| h.params.as_slice());
        let start = base_params(&equations.bounds(), previous);
        let count = equations.at(&start).map_or(0, |(r, _)| r.targets.len());
        let source = RowSource::Params {
            equations,
            x,
            values,
            sems: &known_noise.sems,
        };
        PdeGp::fit_rows(model, source, count, starts, known_noise)
    }

    fn fit_rows(
        model: PdeModel,
        source: RowSource,
        equations: usize,
        starts: Starts<PdeHyper>,
        known_noise: &KnownNoise,
    ) -> Result<PdeGp, GpError> {
        let (d, standardizer) = source.dim_and_standardizer();
        let param_bounds = match &source {
            RowSource::Fixed(_) => Vec::new(),
            RowSource::Params { equations, .. } => equations.bounds(),
        };
        // A known observation noise is held fixed, as for the plain GP; every start takes it.
        let noise = known_noise.bounds(NOISE, source.observed(), &standardizer);
        let shortest = shortest_lengthscale(equations, d);
        let delta_lengthscale = (
            shortest_discrepancy_lengthscale(source.observed(), d),
            DISCREPANCY_LENGTHSCALE.1,
        );
        // A start moved into the fit's bounds: the noise and the length scales.
        let start_discrepancy = || {
            model.discrepancy.then(|| Discrepancy {
                log_signal: START_DISCREPANCY.0.ln(),
                log_lengthscale: (START_DISCREPANCY.1 * (d as f64).sqrt())
                    .ln()
                    .max(delta_lengthscale.0),
            })
        };
        let admissible = |mut h: PdeHyper| {
            h.gp.log_noise = h.gp.log_noise.clamp(noise.0, noise.1);
            h.gp.log_lengthscales
                .iter_mut()
                .for_each(|l| *l = l.max(shortest));
            // A start saved by a model with (or without) a discrepancy fits this one; a
            // saved one's length scale rises to this step's spacing.
            if h.discrepancy.is_some() != model.discrepancy {
                h.discrepancy = start_discrepancy();
            }
            if let Some(delta) = &mut h.discrepancy {
                delta.log_lengthscale = delta.log_lengthscale.max(delta_lengthscale.0);
            }
            for (p, (lo, hi)) in h.params.iter_mut().zip(&param_bounds) {
                *p = p.clamp(*lo, *hi);
            }
            h
        };
        let previous = starts.previous.cloned().map(admissible);
        let base = base_params(
            &param_bounds,
            previous.as_ref().map(|h| h.params.as_slice()),
        );
        // The likelihood in the length scales has many local optima when a pde resolves
        // finer detail than the observations: the fit starts from the best `restarts` of a
        // coarse grid (one length scale for all inputs, at the last estimate of the params),
        // the best grid point at each of the params' sweep, and the previous step's
        // optimum, ranked by their value.
        let mut grid: Vec<PdeHyper> = RAW_LENGTHSCALES
            .iter()
            .flat_map(|l| RAW_SIGNALS.iter().map(move |s| (l, s)))
            .flat_map(|(l, s)| RAW_RELATIVE.iter().map(move |r| (*l, *s, *r)))
            .map(|(l, signal, relative)| PdeHyper {
                gp: Hyper {
                    // Distances between points grow as √d: so do the grid's length scales.
                    log_lengthscales: vec![f64::ln(l * (d as f64).sqrt()); d],
                    log_signal: signal,
                    log_noise: 1e-3f64.ln(),
                },
                log_relative: f64::ln(relative),
                discrepancy: start_discrepancy(),
                params: base.clone(),
            })
            .map(admissible)
            .collect();
        // Grid points below the shortest length scale all moved onto it: score them once.
        grid.dedup();
        let score = |h: PdeHyper| {
            if pinnbo_ad::interrupt::requested() {
                return None;
            }
            let value = source.with(&h.params, |rows, _| value_only(rows, model, &h))?;
            Some((value, h))
        };
        let mut raw: Vec<(f64, PdeHyper)> = grid
            .into_iter()
            .chain(previous.clone())
            .filter_map(score)
            .collect();
        raw.sort_by(|a, b| a.0.total_cmp(&b.0));
        // The params' sweep at every length scale of the grid on a first fit, at the best
        // one and the previous step's on a later one: where the pde with the params at
        // their box's centre is wrong, the grid prefers a length scale so short that the
        // pde says nothing, and a sweep there alone cannot find the params that make it
        // right (docs/decisions.md "The params' sweep over length scales").
        let bases: Vec<PdeHyper> = match &previous {
            None => raw.iter().map(|(_, h)| h.clone()).collect(),
            Some(last) => (raw.first().map(|(_, h)| h.clone()).into_iter())
                .chain((raw.first().map(|(_, h)| h) != Some(last)).then(|| last.clone()))
                .collect(),
        };
        let swept = sweep(&param_bounds, previous.is_some());
        let swept: Vec<PdeHyper> = (bases.iter())
            .flat_map(|base| {
                swept.iter().map(|params| PdeHyper {
                    params: params.clone(),
                    ..base.clone()
                })
            })
            .collect();
        raw.extend(swept.into_iter().filter_map(score));
        // A stable sort: ties keep the grid's order, so the fit is deterministic.
        raw.sort_by(|a, b| a.0.total_cmp(&b.0));
        let candidates: Vec<PdeHyper> = raw
            .into_iter()
            .take(starts.restarts.max(1))
            .map(|(_, h)| h)
            .collect();
        let (lo, hi): (Vec<f64>, Vec<f64>) = (0..d + 3)
            .map(|i| match i {
                _ if i < d => (shortest, LENGTHSCALE.1),
                _ if i == d => SIGNAL,
                _ if i == d + 1 => noise,
                _ => RELATIVE,
            })
            .chain(
                (model
                    .discrepancy
                    .then_some([DISCREPANCY_SIGNAL, delta_lengthscale]))
                .into_iter()
                .flatten(),
            )
            .chain(param_bounds.iter().copied())
            .unzip();
        let params = param_bounds.len();
        let f = posterior(&source, model, params);
        // Starts one after another: each fit's Gram rows already run in parallel.
        let mut best: Option<(f64, Vec<f64>)> = None;
        for start in candidates
            .iter()
            .take_while(|_| !pinnbo_ad::interrupt::requested())
        {
            // From the previous optimum, a few iterations continue last step's fit: over the
            // steps the optimization goes on where it left off, at a fraction of the cost.
            let stop = match Some(start) == previous.as_ref() {
                true => WARM_STOP,
                false => FIT_STOP,
            };
            if let Some((value, theta)) = quasi_newton::minimize(&f, &start.pack(), &lo, &hi, stop)
            {
                if best.as_ref().is_none_or(|(b, _)| value < *b) {
                    best = Some((value, theta));
                }
            }
        }
        let (hyper, param_spread) = match best {
            Some((_, theta)) => {
                let gradient = |t: &[f64]| f(t).map(|(_, g)| g);
                let spread = match (&source, gradient(&theta)) {
                    (RowSource::Fixed(_), _) => ParamSpread::default(),
                    (RowSource::Params { equations, .. }, Some(g)) => {
                        let units = equations.units(&theta[theta.len() - params..]);
                        laplace(gradient, (&theta, &g), (&lo, &hi), &units)
                    }
                    (_, None) => ParamSpread::unknown(params),
                };
                (PdeHyper::unpack(&theta, model.discrepancy, params), spread)
            }
            // No start factored: the pde trusted loosely and a large noise always factor.
            None => {
                let hyper = PdeHyper {
                    gp: Hyper {
                        log_lengthscales: vec![0.2f64.ln(); d],
                        log_signal: 0.0,
                        log_noise: NOISE.1,
                    },
                    log_relative: RELATIVE.1,
                    discrepancy: start_discrepancy(),
                    params: base,
                };
                (hyper, ParamSpread::unknown(params))
            }
        };
        drop(f);
        let rows = source.rows(&hyper.params).ok_or(GpError::Empty)?;
        let mut gp = PdeGp::condition(rows, hyper, model)?;
        gp.param_spread = param_spread;
        Ok(gp)
    }

    /// This fit (by [`PdeGp::fit_with_params`] on the same arguments) with each param no
    /// direction flat at the optimum moves read from its profile posterior
    /// ([`with_profiles`]). It costs 17 short fits per param, several times the fit itself:
    /// the fit leaves it to what reports the estimate, and a fit that only predicts (a
    /// picture, `pinnbo predict`) does not pay it.
    pub fn with_param_profiles(
        mut self,
        model: PdeModel,
        x: &[Vec<f64>],
        values: &[f64],
        equations: &dyn ParamEquations,
        known_noise: &KnownNoise,
    ) -> PdeGp {
        let params = self.param_spread.std.len();
        let (lo, hi) = self.param_spread.fit_box.clone();
        if params == 0 || lo.is_empty() {
            return self;
        }
        let source = RowSource::Params {
            equations,
            x,
            values,
            sems: &known_noise.sems,
        };
        let f = posterior(&source, model, params);
        let theta = self.hyper.pack();
        if let Some((value, _)) = f(&theta) {
            let spread = std::mem::take(&mut self.param_spread);
            self.param_spread = with_profiles(&f, (&theta, value), (&lo, &hi), spread);
        }
        self
    }
}

/// The negative log posterior of `model`'s coordinates `theta` (packed as
/// [`PdeHyper::pack`], the last `params` the pde's params) and its gradient.
fn posterior<'a>(
    source: &'a RowSource,
    model: PdeModel,
    params: usize,
) -> impl Fn(&[f64]) -> Option<(f64, Vec<f64>)> + 'a {
    move |theta: &[f64]| {
        source.with(&theta[theta.len() - params..], |rows, slopes| {
            objective(rows, slopes, model, theta)
        })
    }
}
