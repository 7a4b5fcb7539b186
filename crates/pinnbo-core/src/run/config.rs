//! How a run is set up: the file's settings merged with the caller's, and the initial design
//! they give.

use super::design::{self, Design};
use crate::space::Space;
use pinnbo_dsl::Problem;

/// How a run is set up (file values already merged with command-line overrides).
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    pub method: String,
    pub seed: u64,
    pub budget: usize,
    pub init: usize,
    pub design: Design,
    /// Stop after this many failed evaluations in a row.
    pub max_failures: usize,
    /// On resume, continue with a problem file edited since the run started.
    pub accept_changed: bool,
}

/// The run's initial design, kept to the points that hold the known constraints (fewer
/// points only where the box has too few such: [`crate::Optimization::setup`] refuses
/// that).
pub(crate) fn initial_design(space: &Space, config: &RunConfig) -> Vec<Vec<f64>> {
    // Without known constraints every point is admitted: the design of `init` points.
    let (design, n, d, seed) = (config.design, config.init, space.dim(), config.seed);
    design::admitted_points(design, n, d, seed, crate::space::FEASIBLE_SEARCH, |u| {
        space.admits(u)
    })
}

impl RunConfig {
    /// The problem file's settings, with defaults: the method of
    /// [`crate::strategies::registry::default_method`], seed 0, budget 50, init max(2d, 5)
    /// capped by the budget, Sobol design, 5 consecutive failures.
    pub fn from_problem(problem: &Problem) -> RunConfig {
        let budget = problem.budget.map_or(50, |b| b as usize);
        let (init, design) = problem
            .init
            .map_or(((2 * problem.dim()).max(5), Design::Sobol), |(n, d)| {
                (n as usize, d)
            });
        let no_settings = pinnbo_dsl::ir::Settings::default();
        let command_settings = match &problem.oracle {
            pinnbo_dsl::ir::Oracle::Command(c) => &c.settings,
            // Other oracles fail too (a NaN, a failed solve): the command's default holds.
            _ => &no_settings,
        };
        let max_failures = pinnbo_dsl::oracles::command(command_settings).count("max_failures");
        RunConfig {
            method: problem.method.as_ref().map_or_else(
                || crate::strategies::registry::default_method(problem).to_string(),
                |m| m.name.clone(),
            ),
            seed: problem.seed.unwrap_or(0),
            budget,
            init: init.min(budget),
            design,
            max_failures,
            accept_changed: false,
        }
    }
}
