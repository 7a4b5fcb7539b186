//! A benchmark's journals reduced to what the thesis compares: best-so-far curves (simple
//! regret, or regret plus violation for constrained problems), final-budget statistics per
//! method, the significance tests, and where the time went.

use super::paired::{signed_rank_greater, SignedRank};
use super::stats::{benjamini_hochberg, welch_greater, Moments};
use super::Outcome;
use crate::oracle::minimized;
use crate::run::journal::Record;
use crate::run::outputs::{cell, csv_document};
use crate::run::PdeVerdicts;
use pinnbo_dsl::Problem;
use serde::Serialize;
use std::collections::BTreeMap;

/// What a problem's runs are judged by (lower is better).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Best feasible objective so far minus the optimum (both as minimized).
    Regret,
    /// The thesis's constrained metric: `min_{s<=t} ([f(x_s) - f*]+ + sum_k [c_k(x_s)]+)`.
    RegretPlusViolation,
    /// No optimum is known: the best feasible objective so far, as minimized.
    BestValue,
    /// Several objectives: the true front's hypervolume (`optimum`) less the feasible
    /// evaluations' so far.
    HypervolumeRegret,
    /// Several objectives without a known optimum: the feasible evaluations' hypervolume so
    /// far, negated (lower is better, as every metric here).
    Hypervolume,
}

impl Metric {
    pub fn for_problem(problem: &Problem, optimum: Option<f64>) -> Metric {
        if problem.is_multi_objective() {
            return match optimum {
                Some(_) => Metric::HypervolumeRegret,
                None => Metric::Hypervolume,
            };
        }
        match (optimum, problem.constraints.is_empty()) {
            (None, _) => Metric::BestValue,
            (Some(_), true) => Metric::Regret,
            (Some(_), false) => Metric::RegretPlusViolation,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Metric::Regret => "simple regret",
            Metric::RegretPlusViolation => "best regret plus violation",
            Metric::BestValue => "best objective (as minimized)",
            Metric::HypervolumeRegret => "hypervolume regret",
            Metric::Hypervolume => "hypervolume (negated)",
        }
    }

    pub fn of(self, row: &Row) -> Option<f64> {
        match self {
            Metric::Regret | Metric::HypervolumeRegret => row.regret,
            Metric::RegretPlusViolation => row.regret_plus_violation,
            Metric::BestValue | Metric::Hypervolume => row.best_so_far.map(|v| row.sign * v),
        }
    }
}

/// One evaluation of one run, as `results.csv` holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub problem: String,
    pub method: String,
    pub seed: u64,
    /// 1-based.
    pub evaluation: usize,
    /// The best feasible noise-free objective so far, in the file's sense; with several
    /// objectives the hypervolume so far.
    pub best_so_far: Option<f64>,
    pub regret: Option<f64>,
    pub regret_plus_violation: Option<f64>,
    /// Wall-clock of the run so far (proposing and evaluating).
    pub seconds: f64,
    /// Whether this step's model was conditioned on the pde (`pde_kept`); None for the
    /// initial design and methods without a pde check.
    pub pde_kept: Option<bool>,
    /// What dropped the pde at this step (`pde_dropped_by`); None where it was kept or
    /// there was no verdict.
    pub pde_dropped_by: Option<String>,
    /// -1 for `maximize`, so that `sign * objective` is minimized.
    sign: f64,
}

/// The rows of one run's journal.
pub fn rows(
    problem: &Problem,
    optimum: Option<f64>,
    method: &str,
    seed: u64,
    records: &[Record],
) -> Vec<Row> {
    if problem.is_multi_objective() {
        return hypervolume_rows(problem, optimum, method, seed, records);
    }
    let best = crate::run::outputs::best_so_far(problem, records);
    let opt = optimum.map(|o| minimized(problem, o));
    let mut seconds = 0.0;
    let mut least_rpv: Option<f64> = None;
    records
        .iter()
        .zip(best)
        .map(|(r, best_so_far)| {
            seconds += r.propose_seconds + r.evaluate_seconds;
            if let (Some(e), Some(opt)) = (r.truth(), opt) {
                let violation: f64 = e.constraints.iter().map(|c| c.max(0.0)).sum();
                let value = (minimized(problem, e.objective()) - opt).max(0.0) + violation;
                least_rpv = Some(least_rpv.map_or(value, |l| l.min(value)));
            }
            Row {
                problem: problem.name.clone(),
                method: method.to_string(),
                seed,
                evaluation: r.index + 1,
                best_so_far,
                regret: best_so_far.zip(opt).map(|(b, o)| minimized(problem, b) - o),
                regret_plus_violation: least_rpv,
                seconds,
                pde_kept: r.diagnostics.pde_kept(),
                pde_dropped_by: r.diagnostics.pde_dropped_by().map(str::to_string),
                sign: minimized(problem, 1.0),
            }
        })
        .collect()
}

/// [`rows`] with several objectives: the hypervolume so far, and its regret where the
/// true front's hypervolume is known.
fn hypervolume_rows(
    problem: &Problem,
    optimum: Option<f64>,
    method: &str,
    seed: u64,
    records: &[Record],
) -> Vec<Row> {
    let hypervolume = crate::run::front::hypervolume_so_far(problem, records);
    let mut seconds = 0.0;
    (records.iter().zip(hypervolume))
        .map(|(r, hv)| {
            seconds += r.propose_seconds + r.evaluate_seconds;
            // The front holds feasible evaluations only: its regret is the whole metric.
            let regret = hv.zip(optimum).map(|(h, o)| o - h);
            Row {
                problem: problem.name.clone(),
                method: method.to_string(),
                seed,
                evaluation: r.index + 1,
                best_so_far: hv,
                regret,
                regret_plus_violation: regret,
                seconds,
                pde_kept: r.diagnostics.pde_kept(),
                pde_dropped_by: r.diagnostics.pde_dropped_by().map(str::to_string),
                sign: -1.0,
            }
        })
        .collect()
}

pub const CSV_HEADER: [&str; 10] = [
    "problem",
    "method",
    "seed",
    "evaluation",
    "best_so_far",
    "regret",
    "regret_plus_violation",
    "seconds",
    "pde_kept",
    "pde_dropped_by",
];

pub fn csv<'a>(rows: impl IntoIterator<Item = &'a Row>) -> String {
    let rows = rows.into_iter().map(|r| {
        vec![
            r.problem.clone(),
            r.method.clone(),
            r.seed.to_string(),
            r.evaluation.to_string(),
            cell(r.best_so_far),
            cell(r.regret),
            cell(r.regret_plus_violation),
            r.seconds.to_string(),
            r.pde_kept.map_or(String::new(), |k| k.to_string()),
            r.pde_dropped_by.clone().unwrap_or_default(),
        ]
    });
    csv_document(&CSV_HEADER.map(String::from), rows)
}

/// One method's curve on one problem: the metric's mean and standard error over seeds at
/// each evaluation (only where every finished seed has a value).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Curve {
    pub method: String,
    /// (evaluation, mean, standard error).
    pub points: Vec<(usize, f64, f64)>,
}

/// One method on one problem at the final budget.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Final {
    pub problem: String,
    pub method: String,
    pub metric: Metric,
    /// Over the runs that reached the budget with a value.
    pub values: Vec<f64>,
    /// Each value's seed.
    pub seeds: Vec<u64>,
    pub moments: Moments,
    /// Runs left out: stopped early, or nothing feasible found.
    pub left_out: usize,
    /// Over the same runs, the steps whose check kept the pde and what dropped it at the
    /// others; None for a method without a check.
    pub pde_kept: Option<PdeVerdicts>,
}

/// Every step's verdict over `runs`; None where no step decided.
fn verdicts<'a>(runs: impl IntoIterator<Item = &'a Vec<Row>>) -> Option<PdeVerdicts> {
    let steps = (runs.into_iter().flatten())
        .filter_map(|row| Some((row.pde_kept?, row.pde_dropped_by.as_deref())));
    PdeVerdicts::count(steps)
}

/// A baseline against the chosen method at the final budget.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub problem: String,
    pub baseline: String,
    pub against: String,
    pub metric: Metric,
    pub baseline_mean: f64,
    pub against_mean: f64,
    pub t: Option<f64>,
    pub df: Option<f64>,
    /// One-sided: H1 mean(baseline) > mean(against).
    pub p_value: Option<f64>,
    /// Benjamini–Hochberg adjusted, over every test of the benchmark.
    pub q_value: Option<f64>,
    pub rejected: Option<bool>,
    /// The signed-rank test on the seeds both finished ([`signed_rank_greater`]), corrected
    /// by Benjamini–Hochberg over the benchmark's paired tests.
    pub paired: Option<SignedRank>,
    pub paired_q_value: Option<f64>,
    pub paired_rejected: Option<bool>,
    /// Why a test was not made.
    pub note: Option<String>,
}

/// Where one method's time went, summed over all its runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Timing {
    pub method: String,
    pub runs: usize,
    pub evaluations: usize,
    /// Fitting the surrogate (the `train_seconds` a step journals).
    pub training: f64,
    /// Proposing, less training: acquisition search, Gram blocks, sampling.
    pub acquisition: f64,
    /// The oracle.
    pub oracle: f64,
}

/// A benchmark reduced: curves per problem, finals, tests and timings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub problems: Vec<ProblemReport>,
    pub comparisons: Vec<Comparison>,
    pub timings: Vec<Timing>,
    pub against: String,
    pub alpha: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProblemReport {
    pub problem: String,
    pub metric: Metric,
    pub optimum: Option<super::Optimum>,
    pub curves: Vec<Curve>,
    pub finals: Vec<Final>,
}

/// Everything the benchmark's outcomes say, per problem in the plan's order.
pub fn report(
    plan: &super::Plan,
    outcomes: &[Outcome],
    rows: &[Vec<Row>],
    against: &str,
    alpha: f64,
) -> Report {
    let mut problems = Vec::new();
    for (index, problem) in plan.problems.iter().enumerate() {
        let optimum = plan.optima[index];
        let metric = Metric::for_problem(problem, optimum.map(|o| o.value));
        let mut curves = Vec::new();
        let mut finals = Vec::new();
        for method in &plan.methods {
            let runs: Vec<(&Outcome, &Vec<Row>)> = outcomes
                .iter()
                .zip(rows)
                .filter(|(o, _)| o.spec.problem == index && &o.spec.method == method)
                .filter(|(o, _)| !matches!(o.status, super::Status::NotApplicable(_)))
                .collect();
            if runs.is_empty() {
                continue;
            }
            let complete: Vec<&Vec<Row>> = runs
                .iter()
                .filter(|(o, r)| {
                    r.len() >= o.budget && !matches!(o.status, super::Status::Stopped(_))
                })
                .map(|(_, r)| *r)
                .collect();
            curves.push(curve(method, metric, &complete));
            // The runs with a final value, each with its seed and that value.
            let valued: Vec<(&Vec<Row>, u64, f64)> = (complete.iter())
                .filter_map(|r| {
                    r.last()
                        .and_then(|row| Some((*r, row.seed, metric.of(row)?)))
                })
                .collect();
            let seeds: Vec<u64> = valued.iter().map(|(_, seed, _)| *seed).collect();
            let values: Vec<f64> = valued.iter().map(|(_, _, value)| *value).collect();
            finals.push(Final {
                problem: problem.name.clone(),
                method: method.clone(),
                metric,
                moments: Moments::of(&values),
                left_out: runs.len() - values.len(),
                pde_kept: verdicts(valued.iter().map(|(run, _, _)| *run)),
                values,
                seeds,
            });
        }
        problems.push(ProblemReport {
            problem: problem.name.clone(),
            metric,
            optimum,
            curves,
            finals,
        });
    }
    let comparisons = compare(&problems, against, alpha);
    Report {
        problems,
        comparisons,
        timings: timings(plan, outcomes),
        against: against.to_string(),
        alpha,
    }
}

fn curve(method: &str, metric: Metric, runs: &[&Vec<Row>]) -> Curve {
    let length = runs.iter().map(|r| r.len()).min().unwrap_or(0);
    let points = (0..length)
        .filter_map(|i| {
            let values: Option<Vec<f64>> = runs.iter().map(|r| metric.of(&r[i])).collect();
            let m = Moments::of(&values?);
            Some((i + 1, m.mean, if m.n > 1 { m.std_error } else { 0.0 }))
        })
        .collect();
    Curve {
        method: method.to_string(),
        points,
    }
}

/// The two methods' values on the seeds both have, as `(baseline, against)` pairs.
fn paired_by_seed(baseline: &Final, against: &Final) -> Vec<(f64, f64)> {
    let theirs: BTreeMap<u64, f64> = against
        .seeds
        .iter()
        .copied()
        .zip(against.values.iter().copied())
        .collect();
    (baseline.seeds.iter().zip(&baseline.values))
        .filter_map(|(seed, v)| theirs.get(seed).map(|a| (*v, *a)))
        .collect()
}

/// One-sided Welch tests of every other method against `against` on each problem, and
/// signed-rank tests on their seeds' pairs, each kind corrected together by
/// Benjamini–Hochberg.
fn compare(problems: &[ProblemReport], against: &str, alpha: f64) -> Vec<Comparison> {
    let mut out = Vec::new();
    for p in problems {
        let Some(reference) = p.finals.iter().find(|f| f.method == against) else {
            continue;
        };
        for f in p.finals.iter().filter(|f| f.method != against) {
            let test = welch_greater(&f.values, &reference.values);
            let paired = signed_rank_greater(&paired_by_seed(f, reference));
            let notes: Vec<String> = [test.as_ref().err(), paired.as_ref().err()]
                .into_iter()
                .flatten()
                .map(|e| e.to_string())
                .collect();
            out.push(Comparison {
                problem: p.problem.clone(),
                baseline: f.method.clone(),
                against: against.to_string(),
                metric: p.metric,
                baseline_mean: f.moments.mean,
                against_mean: reference.moments.mean,
                t: test.as_ref().ok().map(|w| w.t),
                df: test.as_ref().ok().map(|w| w.df),
                p_value: test.as_ref().ok().map(|w| w.p_value),
                q_value: None,
                rejected: None,
                paired: paired.ok(),
                paired_q_value: None,
                paired_rejected: None,
                note: (!notes.is_empty()).then(|| notes.join("; ")),
            });
        }
    }
    let welch: Vec<Option<f64>> = out.iter().map(|c| c.p_value).collect();
    for (i, q, rejected) in corrected(&welch, alpha) {
        (out[i].q_value, out[i].rejected) = (Some(q), Some(rejected));
    }
    let paired: Vec<Option<f64>> = out.iter().map(|c| c.paired.map(|t| t.p_value)).collect();
    for (i, q, rejected) in corrected(&paired, alpha) {
        (out[i].paired_q_value, out[i].paired_rejected) = (Some(q), Some(rejected));
    }
    out
}

/// Benjamini–Hochberg over the tests that were made: (index, q, rejected).
fn corrected(p_values: &[Option<f64>], alpha: f64) -> Vec<(usize, f64, bool)> {
    let tested: Vec<(usize, f64)> = (p_values.iter().enumerate())
        .filter_map(|(i, p)| p.map(|p| (i, p)))
        .collect();
    let p: Vec<f64> = tested.iter().map(|(_, p)| *p).collect();
    (tested.iter().zip(benjamini_hochberg(&p, alpha)))
        .map(|((i, _), (q, rejected))| (*i, q, rejected))
        .collect()
}

fn timings(plan: &super::Plan, outcomes: &[Outcome]) -> Vec<Timing> {
    let mut by_method: BTreeMap<&str, Timing> = BTreeMap::new();
    for o in outcomes {
        if matches!(o.status, super::Status::NotApplicable(_)) {
            continue;
        }
        let t = by_method.entry(&o.spec.method).or_default();
        t.runs += 1;
        for r in &o.records {
            let training = r.diagnostics.train_seconds.unwrap_or(0.0);
            t.evaluations += 1;
            t.training += training;
            t.acquisition += (r.propose_seconds - training).max(0.0);
            t.oracle += r.evaluate_seconds;
        }
    }
    plan.methods
        .iter()
        .filter_map(|m| {
            by_method.remove(m.as_str()).map(|t| Timing {
                method: m.clone(),
                ..t
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::{Diagnostics, PDE_DROPPED_BY, PDE_KEPT};
    use crate::oracle::Evaluation;
    use crate::run::journal::{Phase, RngState};
    use pinnbo_dsl::{compile, Source};

    /// An evaluation that observed `value`, with the pde's verdict where its step gave one.
    fn record(index: usize, value: f64, kept: Option<bool>) -> Record {
        Record {
            index,
            phase: Phase::Step,
            x: vec![0.1 * index as f64],
            observed: Some(Evaluation {
                objectives: vec![value],
                constraints: Vec::new(),
                sensors: Vec::new(),
                sems: Vec::new(),
            }),
            clean: None,
            failure: None,
            propose_seconds: 0.0,
            evaluate_seconds: 0.0,
            // A step that dropped the pde says what dropped it.
            diagnostics: (Diagnostics::default().with_some(PDE_KEPT, kept)).with_some(
                PDE_DROPPED_BY,
                (kept == Some(false)).then_some("leave-one-out"),
            ),
            rng: RngState { seed: 0, index },
        }
    }

    /// `results.csv` carries each step's verdict and what dropped the pde (empty where there
    /// is none), and a method's final row in the report counts its runs' verdicts.
    #[test]
    fn each_row_carries_its_steps_verdict_and_a_method_counts_them() {
        let text = "var x in [0, 1]\nfield f(x)\nminimize f\noracle external\n";
        let problem = compile(&Source::new("f.pde", text)).unwrap().problem;
        let each = [None, Some(true), Some(false), Some(true)];
        let records: Vec<Record> = (each.iter().enumerate())
            .map(|(i, k)| record(i, 1.0 / (1.0 + i as f64), *k))
            .collect();
        let run = rows(&problem, Some(0.0), "physics-gp", 0, &records);
        let read: Vec<Option<bool>> = run.iter().map(|r| r.pde_kept).collect();
        assert_eq!(read, each);
        let table = csv(&run);
        let lines: Vec<&str> = table.lines().collect();
        assert!(
            lines[0].ends_with(",seconds,pde_kept,pde_dropped_by"),
            "{}",
            lines[0]
        );
        assert!(lines[1].ends_with(",,"), "{}", lines[1]);
        assert!(lines[2].ends_with(",true,"), "{}", lines[2]);
        assert!(lines[3].ends_with(",false,leave-one-out"), "{}", lines[3]);
        let plain = rows(&problem, Some(0.0), "gp-ei", 0, &records[..1]);
        let counted = verdicts([&run, &run, &plain]).unwrap();
        assert_eq!((counted.kept, counted.steps), (4, 6));
        assert_eq!(counted.drops(), "leave-one-out 2");
        assert_eq!(verdicts([&plain]), None);
    }
}
