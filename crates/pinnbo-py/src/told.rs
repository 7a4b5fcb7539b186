//! What `Optimizer.tell` was given, as the run's outcomes: values (and their standard
//! errors) for one point or many, one objective or several.

use pinnbo_core::run::ask_tell::Outcome;
use pinnbo_core::Evaluation;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// What `tell` was given besides the points.
pub(crate) struct Given<'a, 'py> {
    pub y: Option<&'a Bound<'py, PyAny>>,
    /// Each objective's standard error, shaped as `y` (None: not told).
    pub sem: Option<&'a Bound<'py, PyAny>>,
    pub constraints: Option<&'a Bound<'py, PyAny>>,
    pub failed: Option<String>,
    /// A dict of each field's sensor values (a list of such dicts for several points).
    pub sensors: Option<&'a Bound<'py, PyAny>>,
}

/// The outcome told for each of `n` points; with several objectives (`objectives`, their
/// names) each point's `y` (and `sem`) is a dict by name or a sequence in the file's order.
pub(crate) fn outcomes(
    n: usize,
    single: bool,
    told: Given<'_, '_>,
    objectives: &[String],
    problem: &pinnbo_dsl::Problem,
) -> PyResult<Vec<Outcome>> {
    let Given {
        y,
        sem,
        constraints,
        failed,
        sensors,
    } = told;
    if let Some(why) = failed {
        if y.is_some() || sem.is_some() {
            return Err(PyValueError::new_err(
                "give y (and sem) or failed, not both",
            ));
        }
        return Ok(vec![Outcome::Failed(why); n]);
    }
    let y = y.ok_or_else(|| PyValueError::new_err("y (or failed=...) is required"))?;
    let values = per_point("y", y, single, objectives)?;
    let sems: Vec<Vec<Option<f64>>> = match sem {
        None => vec![Vec::new(); n],
        Some(sem) => (per_point("sem", sem, single, objectives)?.into_iter())
            .map(|s| s.into_iter().map(Some).collect())
            .collect(),
    };
    let constraints: Vec<Vec<f64>> = match (constraints, single) {
        (None, _) => vec![Vec::new(); n],
        (Some(c), true) => vec![c.extract()?],
        (Some(c), false) => c.extract()?,
    };
    let groups = problem.sensor_groups();
    let one_sensors = |s: &Bound<'_, PyAny>| -> PyResult<Vec<f64>> {
        let by_field = crate::oracle::sensors_by_name(s).map_err(PyValueError::new_err)?;
        pinnbo_core::oracle::sensors_by_field(&groups, &by_field)
            .map_err(|e| PyValueError::new_err(format!("sensors: {e}")))
    };
    let sensors: Vec<Vec<f64>> = match (sensors, single) {
        (None, _) => vec![Vec::new(); n],
        (Some(s), true) => vec![one_sensors(s)?],
        (Some(s), false) => (s.try_iter()?)
            .map(|item| one_sensors(&item?))
            .collect::<PyResult<_>>()?,
    };
    if values.len() != n || sems.len() != n || constraints.len() != n || sensors.len() != n {
        return Err(PyValueError::new_err(format!(
            "{n} point(s) told with {} value(s), {} standard error(s), {} constraint row(s) and \
             {} sensor row(s)",
            values.len(),
            sems.len(),
            constraints.len(),
            sensors.len()
        )));
    }
    Ok((values.into_iter().zip(sems).zip(constraints).zip(sensors))
        .map(|(((values, sems), constraints), sensors)| {
            Outcome::Values(Evaluation {
                sems,
                objectives: values,
                constraints,
                sensors,
            })
        })
        .collect())
}

/// `y` (or `sem`, named `what`) for one point (`single`) or each of several: a number per
/// point, or with several objectives (`objectives`, their names) a dict by name or a
/// sequence per point.
fn per_point(
    what: &str,
    y: &Bound<'_, PyAny>,
    single: bool,
    objectives: &[String],
) -> PyResult<Vec<Vec<f64>>> {
    Ok(match (objectives.is_empty(), single) {
        (true, true) => vec![vec![y.extract()?]],
        (true, false) => (y.extract::<Vec<f64>>()?)
            .into_iter()
            .map(|v| vec![v])
            .collect(),
        (false, true) => vec![objective_values(what, y, objectives)?],
        (false, false) => (y.try_iter()?)
            .map(|item| objective_values(what, &item?, objectives))
            .collect::<PyResult<_>>()?,
    })
}

/// One point's objectives (`y` or `sem`, named `what`): a dict by name, or a sequence in
/// `names`' order.
fn objective_values(what: &str, y: &Bound<'_, PyAny>, names: &[String]) -> PyResult<Vec<f64>> {
    if let Ok(dict) = y.cast::<pyo3::types::PyDict>() {
        for key in dict.keys() {
            let key = key.str()?.to_string();
            if !names.contains(&key) {
                return Err(PyValueError::new_err(format!(
                    "{what} names `{key}`, which is not an objective ({})",
                    names.join(", ")
                )));
            }
        }
        return (names.iter())
            .map(|name| match dict.get_item(name)? {
                Some(v) => v.extract::<f64>(),
                None => Err(PyValueError::new_err(format!(
                    "{what} has no value for the objective `{name}`"
                ))),
            })
            .collect();
    }
    let values: Vec<f64> = y.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "with several objectives {what} is a dict by name or a sequence of {} numbers ({})",
            names.len(),
            names.join(", ")
        ))
    })?;
    if values.len() != names.len() {
        return Err(PyValueError::new_err(format!(
            "{what} has {} values for {} objectives ({})",
            values.len(),
            names.len(),
            names.join(", ")
        )));
    }
    Ok(values)
}
