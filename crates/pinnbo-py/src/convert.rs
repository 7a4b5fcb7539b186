//! Values handed to Python: numpy arrays (built by numpy itself from lists, so the
//! extension does not depend on numpy's C API or its version) and plain dicts.

use pinnbo_core::run::journal::Record;
use pinnbo_core::run::{Best, Convergence, ParamEstimate, Prediction};
use pinnbo_dsl::Problem;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// `numpy.asarray(values, dtype=float)`.
pub fn array<'py, T>(py: Python<'py>, values: T) -> PyResult<Bound<'py, PyAny>>
where
    T: IntoPyObject<'py>,
{
    let numpy = py.import("numpy")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", "float64")?;
    numpy.call_method("asarray", (values,), Some(&kwargs))
}

/// A `(rows, columns)` array, also when there are no rows.
pub fn matrix<'py>(
    py: Python<'py>,
    rows: Vec<Vec<f64>>,
    columns: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let n = rows.len();
    array(py, rows)?.call_method1("reshape", ((n, columns),))
}

/// The best feasible evaluation as a dict (`x`, `objective`, `constraints`, `evaluation`).
pub fn best<'py>(py: Python<'py>, best: &Best) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("x", array(py, best.x.clone())?)?;
    out.set_item("objective", best.objective)?;
    out.set_item("clean_objective", best.clean_objective)?;
    out.set_item("constraints", best.constraints.clone())?;
    out.set_item("evaluation", best.evaluation)?;
    out.set_item("at", json(py, &serde_json::Value::Object(best.at.clone()))?)?;
    Ok(out)
}

/// A JSON value as Python's `json.loads` gives it (dicts, lists, numbers, strings).
pub fn json<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?
        .call_method1("loads", (value.to_string(),))
}

/// Whether an expected-improvement method still found anything worth evaluating, as
/// `summary.json` has it.
pub fn convergence<'py>(py: Python<'py>, c: &Convergence) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item(
        "expected_improvement_relative",
        c.expected_improvement_relative,
    )?;
    out.set_item("threshold", c.threshold)?;
    out.set_item("converged_since", c.converged_since)?;
    out.set_item("stopped_at", c.stopped_at)?;
    Ok(out)
}

/// The params' estimates as `summary.json` has them: `{name: {"value", "std"}}`, with
/// `fitted`, `at_bound` and `undetermined` where the summary has them.
pub fn parameters<'py>(
    py: Python<'py>,
    estimates: &std::collections::BTreeMap<String, ParamEstimate>,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    for (name, e) in estimates {
        let one = PyDict::new(py);
        one.set_item("value", e.value)?;
        one.set_item("std", e.std)?;
        if let Some(fitted) = e.fitted {
            one.set_item("fitted", fitted)?;
        }
        if let Some(bound) = &e.at_bound {
            one.set_item("at_bound", bound)?;
        }
        if let Some(sentence) = &e.undetermined {
            one.set_item("undetermined", sentence)?;
        }
        out.set_item(name, one)?;
    }
    Ok(out)
}

/// Every record as arrays: `x` (n, d), `objective` (n,) and `constraints` (n, m) with NaN
/// where an evaluation failed, `failure`, `phase` and `id` (the point's slot) as lists.
/// [`Prediction`] as the dict `Optimizer.predict` returns.
pub fn prediction<'py>(
    py: Python<'py>,
    problem: &Problem,
    p: &Prediction,
) -> PyResult<Bound<'py, PyDict>> {
    let moments = |mean: &[f64], std: &[f64]| -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        out.set_item("mean", array(py, mean.to_vec())?)?;
        out.set_item("std", array(py, std.to_vec())?)?;
        Ok(out)
    };
    let out = moments(&p.mean, &p.std)?;
    let constraints = match &p.constraints {
        Some(all) => {
            let named = PyDict::new(py);
            for (c, (mean, std)) in problem.constraints.iter().zip(all) {
                named.set_item(&c.name, moments(mean, std)?)?;
            }
            Some(named)
        }
        None => None,
    };
    out.set_item("constraints", constraints)?;
    out.set_item("parameters", parameters(py, &p.parameters)?)?;
    Ok(out)
}

pub fn history<'py>(
    py: Python<'py>,
    problem: &Problem,
    records: &[Record],
) -> PyResult<Bound<'py, PyDict>> {
    let m = problem.constraints.len();
    let out = PyDict::new(py);
    let xs: Vec<Vec<f64>> = records.iter().map(|r| r.x.clone()).collect();
    out.set_item("x", matrix(py, xs, problem.dim())?)?;
    let objective: Vec<f64> = records
        .iter()
        .map(|r| r.observed.as_ref().map_or(f64::NAN, |e| e.objective()))
        .collect();
    out.set_item("objective", array(py, objective)?)?;
    if problem.is_multi_objective() {
        let k = problem.objectives().count();
        let all: Vec<Vec<f64>> = (records.iter())
            .map(|r| match &r.observed {
                Some(e) => e.objectives.clone(),
                None => vec![f64::NAN; k],
            })
            .collect();
        out.set_item("objectives", matrix(py, all, k)?)?;
    }
    // Each objective's told standard error, NaN where none was told.
    let k = problem.objectives().count();
    let sems: Vec<Vec<f64>> = (records.iter())
        .map(|r| {
            let sem = |j| r.observed.as_ref().and_then(|e| e.sem(j));
            (0..k).map(|j| sem(j).unwrap_or(f64::NAN)).collect()
        })
        .collect();
    let first: Vec<f64> = sems.iter().map(|s| s[0]).collect();
    out.set_item("sem", array(py, first)?)?;
    if problem.is_multi_objective() {
        out.set_item("sems", matrix(py, sems, k)?)?;
    }
    let constraints: Vec<Vec<f64>> = records
        .iter()
        .map(|r| match &r.observed {
            Some(e) => e.constraints.clone(),
            None => vec![f64::NAN; m],
        })
        .collect();
    out.set_item("constraints", matrix(py, constraints, m)?)?;
    let failure: Vec<Option<String>> = records.iter().map(|r| r.failure.clone()).collect();
    out.set_item("failure", failure)?;
    let phase: Vec<String> = records.iter().map(|r| r.phase.name().to_string()).collect();
    out.set_item("phase", phase)?;
    let ids: Vec<usize> = records.iter().map(|r| r.rng.index).collect();
    out.set_item("id", ids)?;
    Ok(out)
}
