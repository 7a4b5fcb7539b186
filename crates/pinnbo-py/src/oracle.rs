//! A Python callable as the oracle, and where an interrupt is kept while Rust holds no GIL.
//!
//! The callable gets the point as a numpy array and returns the objective (a number), a pair
//! `(objective, constraints)`, or a dict `{"objective": .., "constraints": [..]}`; with
//! several objectives a dict with each objective by name (`{"weight": .., "sag": ..}`). An
//! exception or a value that is not a number fails that evaluation, journaled with why, as
//! any oracle's failure is; a NaN does too (the loop's rule). KeyboardInterrupt (Ctrl-C while
//! the callable runs) fails the evaluation in flight and stops the run.

use crate::convert::array;
use pinnbo_core::oracle::{Evaluation, Failure, Oracle};
use pinnbo_dsl::Problem;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex};

/// Where an interrupt seen while Rust runs is kept, to be raised once the run has stopped.
#[derive(Clone, Default)]
pub struct Interrupt(Arc<Mutex<Option<PyErr>>>);

impl Interrupt {
    pub(crate) fn set(&self, e: PyErr) {
        let mut slot = self
            .0
            .lock()
            .expect("never poisoned: no code panics holding it");
        slot.get_or_insert(e);
    }

    pub(crate) fn is_set(&self) -> bool {
        self.0.lock().expect("never poisoned").is_some()
    }

    /// The interrupt seen, if any (taken: it is raised once).
    pub fn take(&self) -> Option<PyErr> {
        self.0.lock().expect("never poisoned").take()
    }
}

pub struct PyOracle {
    function: Py<PyAny>,
    interrupt: Interrupt,
    /// With several objectives, their names (the keys of the callable's dict).
    objectives: Vec<String>,
    /// Each `sensors` statement's field and number of places: the callable's dict gives
    /// `"sensors": {"T": [..]}`.
    sensors: Vec<(String, usize)>,
}

impl PyOracle {
    pub fn new(function: Py<PyAny>, interrupt: Interrupt, problem: &Problem) -> PyOracle {
        PyOracle {
            function,
            interrupt,
            objectives: match problem.is_multi_objective() {
                true => problem.objective_names(),
                false => Vec::new(),
            },
            sensors: problem.sensor_groups(),
        }
    }
}

impl Oracle for PyOracle {
    fn evaluate(&mut self, x: &[f64]) -> Result<Evaluation, Failure> {
        Python::attach(|py| {
            let called = array(py, x.to_vec()).and_then(|x| self.function.call1(py, (x,)));
            let value = match called {
                Ok(value) => value,
                Err(e) => {
                    let why = e.to_string();
                    if e.is_instance_of::<PyKeyboardInterrupt>(py) {
                        self.interrupt.set(e);
                    }
                    return Err(Failure::Other(format!("the oracle raised {why}")));
                }
            };
            let value = value.bind(py);
            let mut e = evaluation(value, &self.objectives).map_err(Failure::Other)?;
            e.sensors = sensor_values(value, &self.sensors).map_err(Failure::Other)?;
            Ok(e)
        })
    }

    fn describe(&self) -> String {
        "a Python callable".into()
    }
}

/// The sensor values of what the callable returned (a dict's `"sensors"`, by field), in the
/// problem's order; none where the problem has no sensors.
fn sensor_values(value: &Bound<'_, PyAny>, groups: &[(String, usize)]) -> Result<Vec<f64>, String> {
    let given = value
        .cast::<PyDict>()
        .ok()
        .and_then(|d| d.get_item("sensors").ok().flatten());
    let Some(given) = given else {
        return match groups.is_empty() {
            true => Ok(Vec::new()),
            false => Err("the problem has sensors: the oracle returns a dict with \"sensors\": {\"FIELD\": [..]}".into()),
        };
    };
    let by_field = sensors_by_name(&given)?;
    pinnbo_core::oracle::sensors_by_field(groups, &by_field)
        .map_err(|e| format!("the oracle's sensors: {e}"))
}

/// `{"T": [..], ..}` from Python: each field's list of numbers.
pub fn sensors_by_name(
    given: &Bound<'_, PyAny>,
) -> Result<std::collections::BTreeMap<String, Vec<f64>>, String> {
    given
        .extract::<std::collections::BTreeMap<String, Vec<f64>>>()
        .map_err(|_| format!("sensors must be a dict of lists of numbers by field, not {given}"))
}

/// What the callable returned, read as an evaluation.
fn evaluation(value: &Bound<'_, PyAny>, objectives: &[String]) -> Result<Evaluation, String> {
    let number = |v: &Bound<'_, PyAny>, what: &str| -> Result<f64, String> {
        v.extract::<f64>()
            .map_err(|_| format!("the oracle's {what} is not a number: {v}"))
    };
    let numbers = |v: &Bound<'_, PyAny>| -> Result<Vec<f64>, String> {
        v.extract::<Vec<f64>>()
            .map_err(|_| format!("the oracle's constraints are not a list of numbers: {v}"))
    };
    if !objectives.is_empty() {
        let dict = value.cast::<PyDict>().map_err(|_| {
            format!(
                "with several objectives the oracle returns a dict with each by name ({}), not {value}",
                objectives.join(", ")
            )
        })?;
        let values = (objectives.iter())
            .map(|name| match dict.get_item(name).ok().flatten() {
                Some(v) => number(&v, &format!("\"{name}\"")),
                None => Err(format!("the oracle's dict has no \"{name}\"")),
            })
            .collect::<Result<Vec<f64>, String>>()?;
        let constraints = match dict.get_item("constraints").ok().flatten() {
            Some(c) => numbers(&c)?,
            None => Vec::new(),
        };
        return Ok(Evaluation {
            sems: Vec::new(),
            objectives: values,
            constraints,
            sensors: Vec::new(),
        });
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        let objective = dict
            .get_item("objective")
            .ok()
            .flatten()
            .ok_or("the oracle's dict has no \"objective\"")?;
        let constraints = match dict.get_item("constraints").ok().flatten() {
            Some(c) => numbers(&c)?,
            None => Vec::new(),
        };
        return Ok(Evaluation::new(
            number(&objective, "objective")?,
            constraints,
        ));
    }
    if let Ok((objective, constraints)) = value.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>() {
        return Ok(Evaluation::new(
            number(&objective, "objective")?,
            numbers(&constraints)?,
        ));
    }
    Ok(Evaluation::new(number(value, "value")?, Vec::new()))
}
