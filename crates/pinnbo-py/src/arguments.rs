//! Reading what a Python caller passes: counts and ids as whole numbers (numpy's included,
//! never a bool), and points by variable name, each refused with a message that names the
//! argument.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A point given as a dict by variable name (a categorical variable's level by its name).
pub fn named_point(problem: &pinnbo_dsl::Problem, x: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    let text: String = (x.py().import("json")?)
        .call_method1("dumps", (x,))?
        .extract()?;
    let map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| PyValueError::new_err(format!("x: {e}")))?;
    pinnbo_core::run::point_from_names(problem, &map)
        .map_err(|e| PyValueError::new_err(format!("x: {e}")))
}

/// The most points one `ask` hands out.
const MOST_ASKED: usize = 100_000;

/// `n` as a count of points to ask for: a whole number from 1 to [`MOST_ASKED`].
pub fn count(what: &str, n: &Bound<'_, PyAny>) -> PyResult<usize> {
    let n = whole(what, n, 1)?;
    if n > MOST_ASKED {
        return Err(PyValueError::new_err(format!(
            "{what} must be at most {MOST_ASKED}, not {n}"
        )));
    }
    Ok(n)
}

/// An integer (a Python int or anything with `__index__`, such as numpy's; not a bool) of
/// at least `least`, as a `usize`; a `TypeError` or `ValueError` that says what was given
/// otherwise.
pub fn whole(what: &str, value: &Bound<'_, PyAny>, least: usize) -> PyResult<usize> {
    let given = || value.repr().map_or_else(|_| "?".into(), |r| r.to_string());
    let index = value.call_method0("__index__");
    let (false, Ok(index)) = (value.is_instance_of::<pyo3::types::PyBool>(), index) else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "{what} must be an integer, not {}",
            given()
        )));
    };
    match index.extract::<i128>().ok().map(usize::try_from) {
        Some(Ok(n)) if n >= least => Ok(n),
        _ => Err(PyValueError::new_err(format!(
            "{what} must be a whole number of at least {least}, not {}",
            given()
        ))),
    }
}
