//! Neural-CBO (docs/algorithms.md §3): one NeuralBO surrogate for the objective and one per
//! constraint; expected improvement on the objective among the points every constraint's
//! lower confidence bound `u_k(x) − β σ_k(x)` admits, the incumbent being the smallest
//! predicted objective at an evaluated point.
//!
//! When no point is LCB-feasible the step minimizes the total predicted violation
//! `Σ_k [u_k(x) − β σ_k(x)]⁺` instead, and says so in its diagnostics. Both rules are one
//! score for the search: EI (≥ 0) where LCB-feasible, minus the violation (< 0) elsewhere,
//! so any LCB-feasible point outranks every other. The thesis's approximation-error term
//! E(m) in EI is taken as 0.

use crate::acquisition::network_search::minimize;
use crate::acquisition::{expected_improvement, Search};
use crate::space::{Space, Standardizer};
use crate::strategies::neural_bo::objective_mean_at;
use crate::strategies::settings;
use crate::strategies::{Diagnostics, Observed, Proposal, Strategy, StrategyError, Within};
use crate::surrogates::network::{centred, flat_tensor, history_points, history_units};
use crate::surrogates::neural::{FitStart, NeuralSurrogate, Posterior, SurrogateConfig};
use pinnbo_dsl::methods::MethodSettings;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

#[derive(Clone, Debug, PartialEq)]
pub struct NeuralCboConfig {
    pub surrogate: SurrogateConfig,
    /// β of the constraints' lower confidence bounds.
    pub beta: f64,
    pub search: Search,
}

impl NeuralCboConfig {
    pub fn from_settings(s: &MethodSettings) -> NeuralCboConfig {
        NeuralCboConfig {
            surrogate: settings::surrogate(s),
            beta: s.number("beta"),
            search: settings::search(s),
        }
    }
}

impl Default for NeuralCboConfig {
    fn default() -> Self {
        NeuralCboConfig::from_settings(&MethodSettings::defaults("neural-cbo"))
    }
}

pub struct NeuralCbo {
    pub config: NeuralCboConfig,
    /// The objective's surrogate, then one per constraint (each its own θ0).
    surrogates: Vec<NeuralSurrogate>,
}

/// Where this module's errors arise, for their messages.
const PART: &str = "Neural-CBO";

impl NeuralCbo {
    pub fn new(
        config: NeuralCboConfig,
        dim: usize,
        constraints: usize,
        seed: u64,
    ) -> Result<NeuralCbo, StrategyError> {
        let device = pinnbo_ad::device::open(config.surrogate.device)?;
        let surrogates = (0..=constraints as u64)
            .map(|k| {
                let seed = seed.wrapping_add(k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
                NeuralSurrogate::new(config.surrogate.clone(), dim, seed, &device)
            })
            .collect::<Result<_, _>>()?;
        Ok(NeuralCbo { config, surrogates })
    }
}

/// The score of a batch of unit-cube points (a flat `[n, d]` slice): EI where every
/// constraint's LCB is ≤ 0, minus the LCBs' total violation elsewhere.
fn score(
    objective: &Posterior,
    constraints: &[Posterior],
    incumbent: f64,
    beta: f64,
    (unit, d): (&[f64], usize),
) -> candle_core::Result<Vec<f64>> {
    let (flat, x) = (centred(unit), flat_tensor(unit, d, objective.net.device())?);
    let (mean, std) = (objective.mean(&flat), objective.std(&x)?);
    let mut violation = vec![0.0; mean.len()];
    for c in constraints {
        let (u, s) = (c.mean(&flat), c.std(&x)?);
        for (v, (u, s)) in violation.iter_mut().zip(u.iter().zip(&s)) {
            *v += (u - beta * s).max(0.0);
        }
    }
    Ok((0..mean.len())
        .map(|i| {
            if violation[i] > 0.0 {
                -violation[i]
            } else {
                expected_improvement(incumbent, mean[i], std[i])
            }
        })
        .collect())
}

impl Strategy for NeuralCbo {
    fn name(&self) -> &'static str {
        "neural-cbo"
    }

    fn predict(
        &mut self,
        space: &Space,
        history: &[Observed],
        points: &[Vec<f64>],
        rng: &mut ChaCha8Rng,
    ) -> Result<Option<Vec<f64>>, StrategyError> {
        let objective = &self.surrogates[0];
        let mean = objective_mean_at(
            objective,
            FitStart::Initial,
            space.dim(),
            history,
            points,
            rng,
        )?;
        Ok(Some(mean))
    }

    fn propose(
        &mut self,
        space: &Space,
        history: &[Observed],
        rng: &mut ChaCha8Rng,
    ) -> Result<Proposal, StrategyError> {
        let d = space.dim();
        let device = self.surrogates[0].device();
        let observed = history_points(history, d, device).within(PART)?;
        let clock = std::time::Instant::now();
        let (objective, constraint_surrogates) =
            self.surrogates.split_first().expect("an objective");
        let (objective_model, standardizer) =
            objective.fit_objective(FitStart::Initial, &observed, history, rng.random())?;
        let mut constraint_models = Vec::with_capacity(constraint_surrogates.len());
        for (k, surrogate) in constraint_surrogates.iter().enumerate() {
            // Scaled, not shifted: feasibility stays `<= 0`.
            let values: Vec<f64> = history.iter().map(|o| o.constraints[k]).collect();
            let scale = Standardizer::fit(&values).std;
            let y = values.iter().map(|v| v / scale).collect();
            constraint_models.push(surrogate.fit(&observed, y, rng.random())?);
        }
        let train_seconds = clock.elapsed().as_secs_f64();
        let clock = std::time::Instant::now();
        let incumbent = objective_model
            .mean(&centred(&history_units(history)))
            .into_iter()
            .fold(f64::INFINITY, f64::min);
        let beta = self.config.beta;
        // `minimize` minimizes: the negated score.
        let negated = |flat: &[f64]| -> candle_core::Result<Vec<f64>> {
            let s = score(
                &objective_model,
                &constraint_models,
                incumbent,
                beta,
                (flat, d),
            )?;
            Ok(s.into_iter().map(|v| -v).collect())
        };
        let domain = self.config.search.domain(history, space);
        let (unit, lowest) =
            minimize(&negated, None, &domain, self.config.search, rng).within(PART)?;
        let best = -lowest;
        let predicted = objective_model.mean(&centred(&unit))[0];
        let (rule, acquisition) = if best >= 0.0 {
            ("ei-among-lcb-feasible", best * standardizer.std)
        } else {
            ("least-lcb-violation", best)
        };
        Ok(Proposal {
            unit,
            diagnostics: domain.annotate(
                Diagnostics {
                    predicted: Some(standardizer.inverse(predicted)),
                    train_seconds: Some(train_seconds),
                    acquisition_seconds: Some(clock.elapsed().as_secs_f64()),
                    ..Diagnostics::default()
                }
                .with("rule", rule)
                .with("acquisition", acquisition)
                .with("incumbent", standardizer.inverse(incumbent)),
            ),
            terminate: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numerics::design::{points, Design};
    use rand::SeedableRng;

    fn history(
        objective: impl Fn(&[f64]) -> f64,
        constraint: impl Fn(&[f64]) -> f64,
    ) -> Vec<Observed> {
        points(Design::Sobol, 12, 2, 3)
            .into_iter()
            .map(|u| Observed::initial(objective(&u), vec![constraint(&u)], u))
            .collect()
    }

    /// One step on the unit square from a fixed network and stream.
    fn propose(observed: &[Observed]) -> Proposal {
        let space = Space::linear(vec![0.0; 2], vec![1.0; 2]);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        cbo().propose(&space, observed, &mut rng).unwrap()
    }

    fn cbo() -> NeuralCbo {
        let config = NeuralCboConfig {
            surrogate: SurrogateConfig {
                width: 50,
                lr: 1e-3,
                ..SurrogateConfig::default()
            },
            ..NeuralCboConfig::default()
        };
        NeuralCbo::new(config, 2, 1, 11).unwrap()
    }

    /// With a constraint violated everywhere (c = 1 + 2 u₀ > 0), nothing is LCB-feasible:
    /// the step says so and goes where the predicted violation is least (u₀ near 0).
    #[test]
    fn without_lcb_feasible_points_the_least_violation_is_proposed() {
        let observed = history(|u| u[0] + u[1], |u| 1.0 + 2.0 * u[0]);
        let p = propose(&observed);
        assert_eq!(
            p.diagnostics.get("rule").and_then(|r| r.as_str()).unwrap(),
            "least-lcb-violation",
            "{}",
            p.diagnostics
        );
        assert!(p.unit[0] < 0.2, "{:?} {}", p.unit, p.diagnostics);
    }

    /// With a feasible half (u₀ <= 0.5) and the objective's minimum outside it, the step
    /// maximizes EI among LCB-feasible points and stays inside the feasible half.
    #[test]
    fn expected_improvement_is_taken_among_lcb_feasible_points() {
        let observed = history(
            |u| (u[0] - 0.9).powi(2) + (u[1] - 0.5).powi(2),
            |u| u[0] - 0.5,
        );
        let p = propose(&observed);
        assert_eq!(
            p.diagnostics.get("rule").and_then(|r| r.as_str()).unwrap(),
            "ei-among-lcb-feasible",
            "{}",
            p.diagnostics
        );
        assert!(p.unit[0] <= 0.6, "{:?} {}", p.unit, p.diagnostics);
    }
}
