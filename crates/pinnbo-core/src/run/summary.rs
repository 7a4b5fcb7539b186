//! What a run reports of itself (`summary.json`, `solve`'s report, the Python package): the
//! best feasible evaluation (with several objectives the Pareto set), the totals, for expected-improvement methods whether they
//! still find anything worth evaluating, and the last estimate of the pde's params.

use super::journal::Record;
use super::named::named_values;
use super::RunConfig;
use crate::diagnostics::CONVERGED;
use crate::diagnostics::PARAMETERS;
use crate::oracle::minimized;
use pinnbo_dsl::Problem;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The best feasible evaluation so far and the run's totals.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub problem: String,
    pub method: String,
    pub seed: u64,
    pub evaluations: usize,
    pub failures: usize,
    /// The best feasible evaluation; None with several objectives (see `pareto`).
    pub best: Option<Best>,
    /// With several objectives, the Pareto set and its hypervolume.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pareto: Option<super::front::Front>,
    /// Whether any evaluation satisfied every constraint.
    pub feasible: bool,
    pub propose_seconds: f64,
    pub evaluate_seconds: f64,
    /// Absent for methods that report no expected improvement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub convergence: Option<Convergence>,
    /// How often the method's check kept the pde (absent for methods without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pde_checks: Option<PdeChecks>,
    /// The last estimate of the pde's unknown constants, by name (absent without any).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub parameters: BTreeMap<String, ParamEstimate>,
    /// On a design problem with sensors, what the method's model of the field says at the
    /// best design (written by [`crate::run::Run::write_outputs`]; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<crate::strategies::FieldReport>,
    /// With every variable discrete: the run ended before this evaluation (from 1) because
    /// every point of the space had been evaluated (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exhausted_at: Option<usize>,
}

impl Summary {
    /// The one number a progress report shows: the best feasible objective (its noise-free
    /// value where the problem adds noise, so it never goes back up), or with several
    /// objectives the front's hypervolume; None before anything feasible.
    pub fn progress(&self) -> Option<f64> {
        match (&self.pareto, &self.best) {
            (Some(front), _) => Some(front.hypervolume),
            (None, b) => b.as_ref().map(|b| b.clean_objective.unwrap_or(b.objective)),
        }
    }
}

/// A fitted param: its estimate and the Laplace approximation's marginal standard deviation
/// (None when the data do not determine it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamEstimate {
    /// The estimate: the mean of the param's profile posterior where its std is reported,
    /// else the fit's optimum.
    pub value: f64,
    pub std: Option<f64>,
    /// The fit's optimum (the posterior's mode), where the model's predictions read the
    /// param; absent from journals written before it was reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fitted: Option<f64>,
    /// `"lower"` or `"upper"` where the fit ended on that bound of the param's box (the data
    /// may want a value outside it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_bound: Option<String>,
    /// Where the data do not determine the param, what they do: "only k/c is determined by
    /// the data".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undetermined: Option<String>,
}

/// The estimates of the last step that reported any (`parameters` in its diagnostics).
pub fn last_parameters(records: &[Record]) -> BTreeMap<String, ParamEstimate> {
    (records.iter().rev())
        .find_map(|r| r.diagnostics.get(PARAMETERS))
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Best {
    /// The record's index in the journal, `history.csv` and `strategy/`, counted from 0.
    pub index: usize,
    /// The same evaluation counted from 1, as the text and the plots count evaluations.
    pub evaluation: usize,
    pub x: Vec<f64>,
    /// The same point by name, as a user writes it ([`named_values`]).
    pub at: serde_json::Map<String, serde_json::Value>,
    /// In the file's sense, as observed.
    pub objective: f64,
    /// Noise-free, when the problem adds noise.
    pub clean_objective: Option<f64>,
    pub constraints: Vec<f64>,
}

/// The best feasible evaluation and the totals. With synthetic noise the best is judged by
/// the noise-free values (as the papers' regret is), though the optimizer saw only noisy ones.
pub fn summarize(problem: &Problem, config: &RunConfig, records: &[Record]) -> Summary {
    let pareto = super::front::front(problem, records);
    let best = records
        .iter()
        .filter(|_| !problem.is_multi_objective())
        .filter_map(|r| r.truth().map(|e| (r, e)))
        .filter(|(_, e)| e.is_feasible())
        .min_by(|(_, a), (_, b)| {
            minimized(problem, a.objective()).total_cmp(&minimized(problem, b.objective()))
        })
        .map(|(r, _)| {
            let observed = r.observed.as_ref().expect("a successful evaluation");
            Best {
                index: r.index,
                evaluation: r.index + 1,
                x: r.x.clone(),
                at: named_values(problem, &r.x),
                objective: observed.objective(),
                clean_objective: r.clean.as_ref().map(|c| c.objective()),
                constraints: observed.constraints.clone(),
            }
        });
    Summary {
        problem: problem.name.clone(),
        method: config.method.clone(),
        seed: config.seed,
        evaluations: records.len(),
        failures: records.iter().filter(|r| r.failure.is_some()).count(),
        feasible: (records.iter()).any(|r| r.truth().is_some_and(|e| e.is_feasible())),
        best,
        pareto,
        propose_seconds: records.iter().map(|r| r.propose_seconds).sum(),
        evaluate_seconds: records.iter().map(|r| r.evaluate_seconds).sum(),
        convergence: Convergence::of(records, super::outputs::last_improvement(problem, records)),
        pde_checks: PdeChecks::of(records),
        parameters: last_parameters(records),
        field: None,
        exhausted_at: None,
    }
}

/// Whether an expected-improvement method still found anything worth evaluating: its last
/// step's largest expected improvement as a share of the observations' standard deviation,
/// and since when every step's was below [`CONVERGED`] and nothing improved the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Convergence {
    /// The last step's (or, when the method stopped the run, the stopping proposal's).
    pub expected_improvement_relative: f64,
    pub threshold: f64,
    /// The evaluation (from 1) from which every step's expected improvement was below the
    /// threshold and no evaluation improved the best (entered the front); None while the
    /// last step's is above it or the last evaluation improved.
    pub converged_since: Option<usize>,
    /// The evaluation the method's `stop` setting ended the run before, if it did.
    pub stopped_at: Option<usize>,
}

impl Convergence {
    /// From the steps' diagnostics and the last evaluation (from 1) that improved the run
    /// ([`super::outputs::last_improvement`]: a step that improved it was not converged,
    /// whatever its expected improvement said); None for a method that reports no expected
    /// improvement.
    pub fn of(records: &[Record], improved: usize) -> Option<Convergence> {
        let steps: Vec<(usize, f64)> = (records.iter())
            .filter_map(|r| Some((r.index + 1, r.diagnostics.expected_improvement_relative?)))
            .collect();
        let &(_, last) = steps.last()?;
        let above = steps.iter().rposition(|(_, v)| *v >= CONVERGED);
        let quiet = match above {
            Some(i) => &steps[i + 1..],
            None => &steps[..],
        };
        let converged_since = quiet.iter().map(|(e, _)| *e).find(|e| *e > improved);
        Some(Convergence {
            expected_improvement_relative: last,
            threshold: CONVERGED,
            converged_since,
            stopped_at: None,
        })
    }
}

/// How many steps' checks kept the pde, and what dropped it at the others: one run's
/// ([`PdeChecks`]) or a bench's over its runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PdeVerdicts {
    /// The steps whose check decided.
    pub steps: usize,
    /// Those whose model was conditioned on the pde.
    pub kept: usize,
    /// The others, by what dropped the pde: `leave-one-out` (the observations were
    /// predicted better without it), `targets` (the fitted prior could not have produced its
    /// targets), `proposals` (`check prequential`), `discrepancy` (`check discrepancy`).
    pub dropped_by: BTreeMap<String, usize>,
}

impl PdeVerdicts {
    /// Each step's verdict and, where it dropped the pde, what dropped it; None when no
    /// step decided.
    pub fn count<'a>(
        verdicts: impl IntoIterator<Item = (bool, Option<&'a str>)>,
    ) -> Option<PdeVerdicts> {
        let mut counted = PdeVerdicts {
            steps: 0,
            kept: 0,
            dropped_by: BTreeMap::new(),
        };
        for (kept, by) in verdicts {
            counted.steps += 1;
            match kept {
                true => counted.kept += 1,
                // Journals written before the reason was recorded name none.
                false => {
                    *(counted.dropped_by)
                        .entry(by.unwrap_or("unrecorded").to_string())
                        .or_insert(0) += 1
                }
            }
        }
        (counted.steps > 0).then_some(counted)
    }

    /// What dropped the pde, with counts: `leave-one-out 5, targets 1`.
    pub fn drops(&self) -> String {
        let by: Vec<String> = (self.dropped_by.iter())
            .map(|(why, n)| format!("{why} {n}"))
            .collect();
        by.join(", ")
    }
}

/// How often a physics method's check kept its pde (docs/algorithms.md §8): whether the
/// search used the physics, which the best point alone does not say.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PdeChecks {
    #[serde(flatten)]
    pub verdicts: PdeVerdicts,
    /// Whether the last step that decided kept it.
    pub last_kept: bool,
}

impl PdeChecks {
    /// From the steps' diagnostics ([`crate::diagnostics::Diagnostics::pde_kept`] and what
    /// dropped the pde); None when no step decided.
    pub fn of(records: &[Record]) -> Option<PdeChecks> {
        let verdicts: Vec<(bool, Option<&str>)> = (records.iter())
            .filter_map(|r| Some((r.diagnostics.pde_kept()?, r.diagnostics.pde_dropped_by())))
            .collect();
        let &(last_kept, _) = verdicts.last()?;
        Some(PdeChecks {
            verdicts: PdeVerdicts::count(verdicts)?,
            last_kept,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::{Diagnostics, PDE_DROPPED_BY, PDE_KEPT};
    use crate::run::journal::{Phase, RngState};

    /// A step whose expected improvement was `relative` of the spread.
    fn step(index: usize, relative: f64) -> Record {
        Record {
            index,
            phase: Phase::Step,
            x: Vec::new(),
            observed: None,
            clean: None,
            failure: None,
            propose_seconds: 0.0,
            evaluate_seconds: 0.0,
            diagnostics: Diagnostics {
                expected_improvement_relative: Some(relative),
                ..Diagnostics::default()
            },
            rng: RngState { seed: 0, index },
        }
    }

    /// The pde's verdicts are counted over the steps that reported one, each drop by what
    /// dropped it; a step without a verdict (the initial design, another method) is not a
    /// step of the check.
    #[test]
    fn the_pde_checks_count_the_steps_that_decided() {
        let verdict = |index, kept: bool, by: Option<&str>| {
            let mut r = step(index, 1.0);
            r.diagnostics = (r.diagnostics.with(PDE_KEPT, kept)).with_some(PDE_DROPPED_BY, by);
            r
        };
        let records = vec![
            step(0, 1.0),
            verdict(1, true, None),
            verdict(2, false, Some("leave-one-out")),
            verdict(3, false, Some("targets")),
            verdict(4, false, Some("leave-one-out")),
            verdict(5, false, None),
            verdict(6, true, None),
            step(7, 1.0),
        ];
        let checks = PdeChecks::of(&records).unwrap();
        let counted = &checks.verdicts;
        assert_eq!(
            (counted.steps, counted.kept, checks.last_kept),
            (6, 2, true)
        );
        assert_eq!(counted.drops(), "leave-one-out 2, targets 1, unrecorded 1");
        assert_eq!(PdeChecks::of(&records[..1]), None);
        assert!(!PdeChecks::of(&records[..5]).unwrap().last_kept);
    }

    /// Converged from the first quiet step after the last improvement: a run whose best
    /// moved after its expected improvement fell (a resumed run that went on to improve)
    /// was not converged before that.
    #[test]
    fn a_run_is_converged_only_after_its_last_improvement() {
        let quiet = CONVERGED / 10.0;
        let records: Vec<Record> = (0..7)
            .map(|i| step(i, [1.0, quiet][(i >= 2) as usize]))
            .collect();
        let since = |improved| Convergence::of(&records, improved).unwrap().converged_since;
        assert_eq!(since(2), Some(3));
        assert_eq!(since(5), Some(6));
        assert_eq!(since(7), None);
    }

    /// The last improvement: a better feasible value with one objective (a worse or an
    /// infeasible one is not), a point entering the front with several (a dominated or a
    /// repeated one is not).
    #[test]
    fn the_last_improvement_is_a_better_value_or_a_new_point_of_the_front() {
        use crate::oracle::Evaluation;
        use crate::run::outputs::last_improvement;
        use pinnbo_dsl::{compile, Source};
        let told = |index: usize, objectives: Vec<f64>, constraint: f64| Record {
            observed: Some(Evaluation {
                objectives,
                constraints: vec![constraint],
                sensors: Vec::new(),
                sems: Vec::new(),
            }),
            ..step(index, 1.0)
        };
        let one = "var x in [0, 1]\nfield f(x)\nfield g(x)\nminimize f\nsubject to c: g <= 0\noracle external\n";
        let one = compile(&Source::new("one.pde", one)).unwrap().problem;
        let values = [
            (3.0, -1.0),
            (2.0, -1.0),
            (2.5, -1.0),
            (1.0, 1.0),
            (2.0, -1.0),
        ];
        let records: Vec<Record> = (values.iter().enumerate())
            .map(|(i, (v, c))| told(i, vec![*v], *c))
            .collect();
        assert_eq!(last_improvement(&one, &records), 2);
        let two = "var x in [0, 1]\nfield f(x)\nfield g(x)\nfield h(x)\nminimize a: f\n\
                   minimize b: g\nsubject to c: h <= 0\noracle external\n";
        let two = compile(&Source::new("two.pde", two)).unwrap().problem;
        let front = |points: &[[f64; 2]]| -> Vec<Record> {
            (points.iter().enumerate())
                .map(|(i, p)| told(i, p.to_vec(), -1.0))
                .collect()
        };
        assert_eq!(
            last_improvement(&two, &front(&[[1.0, 3.0], [3.0, 1.0], [2.0, 4.0]])),
            2
        );
        assert_eq!(
            last_improvement(&two, &front(&[[1.0, 3.0], [3.0, 1.0], [2.0, 2.0]])),
            3
        );
        assert_eq!(last_improvement(&two, &front(&[[1.0, 3.0], [1.0, 3.0]])), 1);
    }
}
