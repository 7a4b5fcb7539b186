//! `pinnbo.Problem`: a checked `.pde` problem, from a file or from text, with the same
//! diagnostics as `pinnbo check` (raised as `ProblemError`, the rendered report).

use crate::convert::matrix;
use crate::ProblemError;
use pinnbo_dsl::ir::{Sense, SettingValue};
use pinnbo_dsl::{LoadError, Source, Style};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::path::PathBuf;

/// A checked optimization problem (`.pde`).
#[pyclass(frozen, module = "pinnbo")]
pub struct Problem {
    pub inner: pinnbo_dsl::Problem,
}

/// Checks a problem as Python takes it: fields without a closed form or an oracle are
/// measured by the caller (ask/tell, or a function given to `solve`), as in every BO
/// library. Such a text is taken with `oracle external` written at its end, so that its
/// journal's copy is a file the command line continues; any other defect is reported
/// against the text as given.
pub fn check(source: &Source) -> PyResult<pinnbo_dsl::Problem> {
    let failed = match pinnbo_dsl::compile(source) {
        Ok(checked) => return Ok(checked.problem),
        Err(failed) => failed,
    };
    let missing_oracle_only = (failed.diagnostics.iter())
        .filter(|d| d.is_error())
        .all(|d| d.code == "pde::missing-oracle");
    let measured = format!("{}\noracle external\n", source.text());
    match missing_oracle_only {
        true => pinnbo_dsl::compile(&Source::new(source.name(), measured.as_str()))
            .map(|checked| checked.problem)
            .map_err(|again| ProblemError::new_err(again.render(Style::Plain))),
        false => Err(ProblemError::new_err(failed.render(Style::Plain))),
    }
}

#[pymethods]
impl Problem {
    /// Reads and checks a `.pde` file.
    #[staticmethod]
    fn from_file(path: PathBuf) -> PyResult<Problem> {
        match pinnbo_dsl::read(&path) {
            Ok(source) => check(&source).map(|inner| Problem { inner }),
            Err(LoadError::Invalid(failed)) => {
                Err(ProblemError::new_err(failed.render(Style::Plain)))
            }
            Err(e) => Err(PyOSError::new_err(e.to_string())),
        }
    }

    /// Checks a problem written as text; `name` stands for the file in messages.
    #[staticmethod]
    #[pyo3(signature = (text, name = "<string>"))]
    fn from_str(text: &str, name: &str) -> PyResult<Problem> {
        check(&Source::new(name, text)).map(|inner| Problem { inner })
    }

    /// A problem from Python values instead of DSL text: `space` maps each variable to
    /// `(low, high)`, `range(a, b)` (integers), a list of level names or `pinnbo.Log(low,
    /// high)`; `objectives` are names (minimized) or a dict name -> "minimize"/"maximize";
    /// `constraints` are the measured ones' names (each feasible at `<= 0`) or a dict name ->
    /// formula of the variables (`"a + b <= 1"`: known, computed by pinnbo). Every value is
    /// measured by the caller (ask/tell, or a function given to `solve`). Raises ValueError
    /// for a value it cannot write, ProblemError for what the checker refuses.
    #[staticmethod]
    #[pyo3(signature = (space, objectives = None, constraints = None, name = "problem", budget = None, init = None, method = None))]
    #[allow(clippy::too_many_arguments)]
    fn from_space(
        py: Python<'_>,
        space: &Bound<'_, PyAny>,
        objectives: Option<&Bound<'_, PyAny>>,
        constraints: Option<&Bound<'_, PyAny>>,
        name: &str,
        budget: Option<&Bound<'_, PyAny>>,
        init: Option<&Bound<'_, PyAny>>,
        method: Option<&str>,
    ) -> PyResult<Problem> {
        let kwargs = pyo3::types::PyDict::new(py);
        if let Some(o) = objectives {
            kwargs.set_item("objectives", o)?;
        }
        if let Some(c) = constraints {
            kwargs.set_item("constraints", c)?;
        }
        kwargs.set_item("name", name)?;
        kwargs.set_item("budget", budget)?;
        kwargs.set_item("init", init)?;
        kwargs.set_item("method", method)?;
        let text: String = (py.import("pinnbo._space")?)
            .call_method("problem_text", (space,), Some(&kwargs))?
            .extract()?;
        check(&Source::new("<from_space>", text)).map(|inner| Problem { inner })
    }

    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }

    /// The number of design variables.
    #[getter]
    fn dim(&self) -> usize {
        self.inner.dim()
    }

    /// The variables' names (`x` or `x[3]`), in order.
    #[getter]
    fn variables(&self) -> Vec<String> {
        self.inner.coords.iter().map(|c| c.name.clone()).collect()
    }

    /// A `(dim, 2)` array of each variable's lower and upper bound.
    #[getter]
    fn bounds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows = self.inner.coords.iter().map(|c| vec![c.lo, c.hi]).collect();
        matrix(py, rows, 2)
    }

    /// The constraints' names, in order (each feasible when `<= 0`).
    #[getter]
    fn constraints(&self) -> Vec<String> {
        self.inner
            .constraints
            .iter()
            .map(|c| c.name.clone())
            .collect()
    }

    /// `"minimize"` or `"maximize"`; with several objectives that do not agree, `"mixed"`
    /// (`senses` has each).
    #[getter]
    fn sense(&self) -> &'static str {
        let senses = self.senses();
        match senses.iter().all(|s| *s == senses[0]) {
            true => senses[0],
            false => "mixed",
        }
    }

    /// Each objective's sense, in the file's order.
    #[getter]
    fn senses(&self) -> Vec<&'static str> {
        (self.inner.objectives())
            .map(|o| match o.sense {
                Sense::Minimize => "minimize",
                Sense::Maximize => "maximize",
            })
            .collect()
    }

    /// The method a run uses unless told otherwise: the file's, or the default for its pde.
    #[getter]
    fn method(&self) -> String {
        pinnbo_core::RunConfig::from_problem(&self.inner).method
    }

    /// The problem's text as checked.
    #[getter]
    fn text(&self) -> &str {
        self.inner.source.text()
    }

    /// Optimizes with `oracle` (a callable: the point as a numpy array to the objective, a
    /// pair `(objective, constraints)` or a dict), or with the file's own oracle when None
    /// (a command only with `allow_exec=True`). Returns the finished `Optimizer`.
    #[pyo3(signature = (oracle = None, *, method = None, seed = None, budget = None, out = None, allow_exec = false, keep = false, callback = None, **settings))]
    #[allow(clippy::too_many_arguments)]
    fn solve<'py>(
        slf: &Bound<'py, Self>,
        oracle: Option<Py<PyAny>>,
        method: Option<String>,
        seed: Option<u64>,
        budget: Option<usize>,
        out: Option<PathBuf>,
        allow_exec: bool,
        keep: bool,
        callback: Option<Py<PyAny>>,
        settings: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // `Optimizer(self, ..).run(callback)`, reached through Python: the optimizer's
        // module builds on this one, so this one does not name it.
        let py = slf.py();
        let kwargs = PyDict::new(py);
        kwargs.set_item("method", method.as_deref().unwrap_or("auto"))?;
        kwargs.set_item("seed", seed)?;
        kwargs.set_item("out", out)?;
        kwargs.set_item("budget", budget)?;
        kwargs.set_item("oracle", oracle)?;
        kwargs.set_item("allow_exec", allow_exec)?;
        kwargs.set_item("keep", keep)?;
        if let Some(settings) = settings {
            kwargs.update(settings.as_mapping())?;
        }
        let optimizer =
            (py.import("pinnbo._pinnbo")?.getattr("Optimizer")?).call((slf,), Some(&kwargs))?;
        optimizer.call_method1("run", (callback,))?;
        Ok(optimizer)
    }

    fn __repr__(&self) -> String {
        format!(
            "Problem({:?}, {} variable(s), {} constraint(s), {} pde(s), {})",
            self.inner.name,
            self.inner.dim(),
            self.inner.constraints.len(),
            self.inner.pdes.len(),
            self.sense()
        )
    }
}

/// The problem with its `method` statement replaced by `method NAME { .. }` holding
/// `settings` (on top of the file's settings when the file names the same method), checked
/// again so that a wrong key or value is reported as the file's would be.
pub fn with_settings(
    problem: &pinnbo_dsl::Problem,
    method: &str,
    settings: &Bound<'_, PyDict>,
) -> PyResult<pinnbo_dsl::Problem> {
    let mut pairs: Vec<(String, String)> = match &problem.method {
        Some(m) if m.name == method => m
            .settings
            .0
            .iter()
            .map(|(k, v)| (k.clone(), setting_text(v)))
            .collect(),
        _ => Vec::new(),
    };
    let info = pinnbo_dsl::methods::method(method);
    for (key, value) in settings.iter() {
        let key: String = key.extract()?;
        let quoted = info
            .and_then(|i| i.setting(&key))
            .is_some_and(|s| matches!(s.kind, pinnbo_dsl::spec::Kind::Str));
        let text = python_text(&value, quoted)?;
        pairs.retain(|(k, _)| *k != key);
        pairs.push((key, text));
    }
    let block: Vec<String> = pairs.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let statement = format!("method {method} {{ {} }}", block.join(", "));
    let text = problem.source.text();
    let spliced = match &problem.method {
        Some(m) => format!(
            "{}{statement}{}",
            &text[..m.statement.start],
            &text[m.statement.end..]
        ),
        None => format!("{}\n{statement}\n", text.trim_end()),
    };
    check(&Source::new(problem.source.name(), spliced))
}

/// A checked setting written back as the language writes it.
fn setting_text(value: &SettingValue) -> String {
    match value {
        SettingValue::Int(v) => v.to_string(),
        SettingValue::Number(v) => format!("{v:?}"),
        SettingValue::Name(n) => n.clone(),
        SettingValue::Str(s) => format!("{s:?}"),
        SettingValue::Duration(d) => format!("{} s", d.as_secs_f64()),
        SettingValue::Dims(ds) => ds
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(" x "),
        SettingValue::List(xs) => format!(
            "[{}]",
            xs.iter()
                .map(|x| format!("{x:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A Python value as a setting's text: numbers as numbers, lists as `[..]`, strings bare
/// (names, durations such as `"10 min"`) or quoted where the setting takes a string.
fn python_text(value: &Bound<'_, PyAny>, quoted: bool) -> PyResult<String> {
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(ProblemError::new_err(format!(
            "a setting cannot be a boolean ({value})"
        )));
    }
    if let Ok(s) = value.cast::<PyString>() {
        let s: String = s.extract()?;
        return Ok(match quoted {
            true => format!("{s:?}"),
            false => s.to_string(),
        });
    }
    if let Ok(i) = value.extract::<u64>() {
        return Ok(i.to_string());
    }
    if let Ok(x) = value.extract::<f64>() {
        return Ok(format!("{x:?}"));
    }
    if let Ok(list) = value.cast::<PyList>() {
        let xs: Vec<f64> = list.extract()?;
        return Ok(format!(
            "[{}]",
            xs.iter()
                .map(|x| format!("{x:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Err(ProblemError::new_err(format!(
        "a setting must be a number, a string or a list of numbers, not {value}"
    )))
}
