//! What a run driven from Python reports as it goes: a line per evaluation on the `pinnbo`
//! logger (INFO, silent unless the caller configures logging), an optional callback with the
//! evaluation as a dict, and Ctrl-C, checked between evaluations.

use crate::convert::json;
use crate::oracle::Interrupt;
use pinnbo_core::run::named_values;
use pinnbo_core::{Observer, Record, Run};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Logs each evaluation, hands it to `callback`, and stops the run between evaluations when
/// Python has a signal pending (Ctrl-C), the oracle was interrupted or the callback raised
/// (each kept in `interrupt`, raised once the run has stopped).
pub struct Progress {
    pub interrupt: Interrupt,
    pub callback: Option<Py<PyAny>>,
}

impl Observer for Progress {
    fn should_stop(&self) -> bool {
        if self.interrupt.is_set() {
            return true;
        }
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                self.interrupt.set(e);
                true
            }
        }
    }

    fn on_record(&self, run: &Run, record: &Record) {
        let best = run.summary().progress();
        let reported = Python::attach(|py| -> PyResult<()> {
            let info = evaluation(py, run, record, best)?;
            let message = summary_line(run, record, best);
            let logger = py
                .import("logging")?
                .call_method1("getLogger", ("pinnbo",))?;
            logger.call_method1("info", ("%s", message))?;
            if let Some(callback) = &self.callback {
                callback.call1(py, (info,))?;
            }
            Ok(())
        });
        if let Err(e) = reported {
            self.interrupt.set(e);
        }
    }
}

fn summary_line(run: &Run, record: &Record, best: Option<f64>) -> String {
    let value = match (&record.observed, &record.failure) {
        (_, Some(why)) => format!("failed: {why}"),
        // With added noise the optimizer sees the noisy value; the best is by noise-free ones.
        (Some(e), None) => match &record.clean {
            Some(clean) => format!(
                "objective {} (with the added noise; noise-free {})",
                e.objective(),
                clean.objective()
            ),
            None => format!("objective {}", e.objective()),
        },
        (None, None) => "no value".to_string(),
    };
    let best = best.map_or(String::new(), |b| {
        match run.problem().is_multi_objective() {
            true => format!(", hypervolume {b}"),
            false if record.clean.is_some() => format!(", best noise-free {b}"),
            false => format!(", best {b}"),
        }
    });
    format!(
        "evaluation {} of {} ({}): {value}{best}",
        record.index + 1,
        run.config().budget,
        record.phase.name()
    )
}

/// The callback's dict: `evaluation` (from 1), `budget`, `phase`, `at` (by name), `objective`
/// (the first objective's value, or None), `objectives` (by name), `constraints`, `failure`,
/// and `best` (the best feasible objective so far, or with several objectives the
/// hypervolume).
fn evaluation<'py>(
    py: Python<'py>,
    run: &Run,
    record: &Record,
    best: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let p = run.problem();
    let out = PyDict::new(py);
    out.set_item("evaluation", record.index + 1)?;
    out.set_item("budget", run.config().budget)?;
    out.set_item("phase", record.phase.name())?;
    let at = serde_json::Value::Object(named_values(p, &record.x));
    out.set_item("at", json(py, &at)?)?;
    let observed = record.observed.as_ref();
    out.set_item("objective", observed.map(|e| e.objective()))?;
    let objectives = PyDict::new(py);
    if let Some(e) = observed {
        for (name, v) in p.objective_names().into_iter().zip(&e.objectives) {
            objectives.set_item(name, v)?;
        }
    }
    out.set_item("objectives", objectives)?;
    out.set_item("constraints", observed.map(|e| e.constraints.clone()))?;
    out.set_item("failure", record.failure.clone())?;
    out.set_item("best", best)?;
    Ok(out)
}
