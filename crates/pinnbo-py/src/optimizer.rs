//! `pinnbo.Optimizer`: a journaled run driven from Python, by ask/tell or to its budget
//! with an oracle.

use crate::arguments::{count, named_point, whole};
use crate::convert::{self, matrix};
use crate::oracle::{Interrupt, PyOracle};
use crate::problem::{with_settings, Problem};
use crate::progress::Progress;
use crate::told::{outcomes, Given};
use crate::RunError;
use pinnbo_core::run::ask_tell::Told;
use pinnbo_core::{BuildError, Optimization, Run, RunConfig};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The run settings a caller may give.
pub struct Options {
    pub method: Option<String>,
    pub seed: Option<u64>,
    pub budget: Option<usize>,
    pub out: Option<PathBuf>,
    pub allow_exec: bool,
    /// Keep the temporary folder a run without `out` is journaled in (else it is removed
    /// when the Optimizer is closed or collected).
    pub keep: bool,
    /// Continue the run `out` holds, if it holds one (Optuna's `load_if_exists`): the same
    /// problem text, method and seed, else refused as `resume` refuses them.
    pub load_if_exists: bool,
}

/// A run of a problem: `ask` points and `tell` what they gave, or `run` it to its budget
/// with an oracle. Everything is journaled in `out` (a new temporary folder when none is
/// given), so `Optimizer.resume(out)` — or `pinnbo ask`/`pinnbo solve --resume` —
/// continues it.
#[pyclass(module = "pinnbo")]
pub struct Optimizer {
    /// A Python object may be reached from several threads; the run has one writer.
    run: Mutex<Run>,
    interrupt: Interrupt,
    /// Whether `close` released the run.
    closed: std::sync::atomic::AtomicBool,
    /// The temporary folder to remove on release (a run without `out`, not kept).
    temporary: Option<PathBuf>,
}

fn run_error(e: impl std::fmt::Display) -> PyErr {
    RunError::new_err(e.to_string())
}

fn build_error(e: BuildError) -> PyErr {
    match e {
        BuildError::Invalid(report) => crate::ProblemError::new_err(report),
        BuildError::Method(e) => PyValueError::new_err(e.to_string()),
        e => run_error(e),
    }
}

impl Drop for Optimizer {
    /// A collected Optimizer no longer holds its run.
    fn drop(&mut self) {
        self.release();
    }
}

/// The run folders an Optimizer of this process holds open: a second one on the same run
/// would be refused by the journal's lock, and is told why.
static OPEN: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn open_runs() -> MutexGuard<'static, Vec<PathBuf>> {
    OPEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// The folder as compared between Optimizers (the same folder by another path included).
fn canonical(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

/// A folder of its own under the system's temporary folder.
fn temporary_folder(problem: &str) -> PathBuf {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let k = COUNT.fetch_add(1, Ordering::Relaxed);
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::env::temp_dir().join(format!(
        "pinnbo-{problem}-{}-{stamp}-{k}",
        std::process::id()
    ))
}

impl Optimizer {
    /// The run, for one caller at a time.
    fn locked(&self) -> MutexGuard<'_, Run> {
        // A panic while it is held would be a bug in pinnbo; the run stays usable after it.
        self.run
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new run of `problem`; `settings` are the method's, `oracle` a Python callable.
    pub fn create(
        py: Python<'_>,
        problem: &pinnbo_dsl::Problem,
        options: Options,
        settings: Option<&Bound<'_, PyDict>>,
        oracle: Option<Py<PyAny>>,
    ) -> PyResult<Optimizer> {
        let method = match options.method.filter(|m| m != "auto") {
            Some(m) => m,
            None => RunConfig::from_problem(problem).method,
        };
        let problem = match settings.filter(|s| !s.is_empty()) {
            Some(s) => with_settings(problem, &method, s)?,
            None => problem.clone(),
        };
        let temporary =
            (options.out.is_none() && !options.keep).then(|| temporary_folder(&problem.name));
        let dir = options
            .out
            .or_else(|| temporary.clone())
            .unwrap_or_else(|| temporary_folder(&problem.name));
        let exists = dir.join("journal.jsonl").exists();
        if exists && !options.load_if_exists {
            return Err(run_error(format!(
                "{} already holds a run; continue it with Optimizer.resume, or pass \
                 load_if_exists=True",
                dir.display()
            )));
        }
        if exists && open_runs().contains(&canonical(&dir)) {
            return Err(open_elsewhere(&dir));
        }
        let interrupt = Interrupt::default();
        let mut optimization = Optimization::new(problem)
            .method(&method)
            .allow_exec(options.allow_exec);
        if let Some(seed) = options.seed {
            optimization = optimization.seed(seed);
        }
        if let Some(budget) = options.budget {
            optimization = optimization.budget(budget);
        }
        let optimization = match oracle {
            Some(f) => {
                let oracle = PyOracle::new(f, interrupt.clone(), optimization.problem());
                optimization.oracle(oracle)
            }
            None if options.allow_exec => optimization,
            None => optimization.for_ask_tell(),
        };
        let run = match exists {
            true => py.detach(|| optimization.resume(&dir)),
            false => py.detach(|| optimization.start(&dir)),
        }
        .map_err(build_error)?;
        let mut optimizer = Optimizer::holding(run, interrupt);
        optimizer.temporary = temporary;
        Ok(optimizer)
    }

    /// An Optimizer holding `run` open (recorded, so that another in this process is told).
    fn holding(run: Run, interrupt: Interrupt) -> Optimizer {
        open_runs().push(canonical(run.dir()));
        Optimizer {
            run: Mutex::new(run),
            interrupt,
            closed: std::sync::atomic::AtomicBool::new(false),
            temporary: None,
        }
    }

    /// Closes the run's journal and forgets it as open, once.
    fn release(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        let mut run = self.locked();
        let mut open = open_runs();
        if let Some(i) = open.iter().position(|d| *d == canonical(run.dir())) {
            open.remove(i);
        }
        run.close();
        if let Some(dir) = &self.temporary {
            // Nothing to keep: the caller gave no folder and asked for none to be kept.
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    /// Evaluates with the run's oracle to the budget, the GIL released; each evaluation is
    /// logged and handed to `callback`; Ctrl-C stops it between evaluations (raised as
    /// KeyboardInterrupt once the run has stopped cleanly), as does an exception the callback
    /// raises (raised then).
    pub fn run_to_budget(&mut self, py: Python<'_>, callback: Option<Py<PyAny>>) -> PyResult<()> {
        let progress = Progress {
            interrupt: self.interrupt.clone(),
            callback,
        };
        let mut guard = self.locked();
        let run: &mut Run = &mut guard;
        // A command left unrun (no allow_exec) makes the run external: say how to run it.
        let command = matches!(run.problem().oracle, pinnbo_dsl::ir::Oracle::Command(_));
        if command && run.oracle_mut().is_external() {
            return Err(crate::RunError::new_err(format!(
                "{}'s oracle is a command, which pinnbo runs only when allowed: pass \
                 allow_exec=True (to Optimizer or Problem.solve), give a Python callable as \
                 the oracle, or drive the run with ask and tell",
                run.problem().name
            )));
        }
        let outcome = py.detach(|| run.drive(&progress));
        write_outputs(run)?;
        if let Some(e) = self.interrupt.take() {
            return Err(e);
        }
        outcome.map_err(run_error)
    }
}

/// The error for a folder another Optimizer of this process holds open.
fn open_elsewhere(dir: &Path) -> PyErr {
    run_error(format!(
        "{} is open in this process by another Optimizer; close it first (`opt.close()`, or \
         use it in a `with` block)",
        dir.display()
    ))
}

fn write_outputs(run: &Run) -> PyResult<()> {
    run.write_outputs().map_err(run_error)
}

/// The pending point asked at `x`, if any (compared as asked: `ask` hands out exact values,
/// and a caller passes them back).
/// The id of the point asked at `x`, pending or already told (told again, the run takes the
/// same outcome as a retry and refuses another).
fn asked_at(run: &Run, x: &[f64]) -> Option<usize> {
    (run.asked().iter())
        .find(|a| a.x.len() == x.len() && a.x.iter().zip(x).all(|(p, q)| p == q))
        .map(|a| a.id)
}

#[pymethods]
impl Optimizer {
    #[new]
    #[pyo3(signature = (problem, method = "auto", seed = None, out = None, budget = None, oracle = None, allow_exec = false, keep = false, load_if_exists = false, **settings))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        problem: &Problem,
        method: &str,
        seed: Option<u64>,
        out: Option<PathBuf>,
        budget: Option<usize>,
        oracle: Option<Py<PyAny>>,
        allow_exec: bool,
        keep: bool,
        load_if_exists: bool,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Optimizer> {
        let options = Options {
            method: Some(method.to_string()),
            seed,
            budget,
            out,
            allow_exec,
            keep,
            load_if_exists,
        };
        Optimizer::create(py, &problem.inner, options, settings, oracle)
    }

    /// Continues the run journaled in `out` (written from Python or by the command line),
    /// from the folder's own settings and problem text; `budget` changes its budget.
    #[staticmethod]
    #[pyo3(signature = (out, budget = None, oracle = None, allow_exec = false))]
    fn resume(
        py: Python<'_>,
        out: PathBuf,
        budget: Option<usize>,
        oracle: Option<Py<PyAny>>,
        allow_exec: bool,
    ) -> PyResult<Optimizer> {
        if open_runs().contains(&canonical(&out)) {
            return Err(open_elsewhere(&out));
        }
        let interrupt = Interrupt::default();
        let reopened = Optimization::reopen(&out).map_err(build_error)?;
        let reopened = match budget {
            Some(b) => reopened.budget(b),
            None => reopened,
        };
        let reopened = reopened.allow_exec(allow_exec);
        let reopened = match oracle {
            Some(f) => {
                let oracle = PyOracle::new(f, interrupt.clone(), reopened.problem());
                reopened.oracle(oracle)
            }
            None if allow_exec => reopened,
            None => reopened.for_ask_tell(),
        };
        let run = py.detach(|| reopened.resume(&out)).map_err(build_error)?;
        Ok(Optimizer::holding(run, interrupt))
    }

    /// Releases the run: its journal is closed (and unlocked), so `Optimizer.resume` or the
    /// command line may continue it; this Optimizer then refuses to ask or tell. Also what
    /// leaving a `with` block does.
    fn close(&self) {
        self.release();
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exception))]
    fn __exit__(&self, _exception: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.release();
        false
    }

    /// The next `n` points to evaluate, as an `(n, dim)` array, journaled as pending. Each
    /// sees the ones before it (and every point still pending) as fantasies, so the points
    /// differ. The GIL is released while the method searches.
    #[pyo3(signature = (n = None))]
    fn ask<'py>(
        &mut self,
        py: Python<'py>,
        n: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let n = n.map_or(Ok(1), |n| count("ask(n): n", n))?;
        let mut guard = self.locked();
        let run: &mut Run = &mut guard;
        let asked = py.detach(|| run.ask(n)).map_err(run_error)?;
        let rows = asked.into_iter().map(|a| a.x).collect();
        matrix(py, rows, run.problem().dim())
    }

    /// The next `n` points as trials, each a dict: `id` (what `tell(id=..)` takes), `params`
    /// (the point by variable name: a categorical variable's level by its name, an integer
    /// as an integer) and `x` (the point as an array); journaled as pending, as `ask`.
    #[pyo3(signature = (n = None))]
    fn ask_trials<'py>(
        &mut self,
        py: Python<'py>,
        n: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let n = n.map_or(Ok(1), |n| count("ask_trials(n): n", n))?;
        let mut guard = self.locked();
        let run: &mut Run = &mut guard;
        let asked = py.detach(|| run.ask(n)).map_err(run_error)?;
        (asked.into_iter())
            .map(|a| {
                let trial = PyDict::new(py);
                trial.set_item("id", a.id)?;
                let params =
                    serde_json::Value::Object(pinnbo_core::run::named_values(run.problem(), &a.x));
                trial.set_item("params", convert::json(py, &params)?)?;
                trial.set_item("x", convert::array(py, a.x)?)?;
                Ok(trial)
            })
            .collect()
    }

    /// Records what the points `x` (one point, a dict by name, or an `(n, dim)` array) gave,
    /// or the trial `id` (from `ask_trials`) gave: `y` a number or `n` numbers (with several
    /// objectives a dict by name or a sequence each), `constraints` a list (or `n` lists) in
    /// the file's order, `sem` each value's standard error shaped as `y` (the observation's
    /// own noise in the GP methods' models). A point that was asked is told as that point
    /// (told again: the same outcome is a retry, another raises `RunError`); any other is an
    /// extra observation. A NaN is journaled as a failed evaluation; so is `failed="why"` in
    /// place of `y`.
    #[pyo3(signature = (x = None, y = None, constraints = None, failed = None, *, id = None, sensors = None, sem = None))]
    #[allow(clippy::too_many_arguments)]
    fn tell(
        &mut self,
        x: Option<&Bound<'_, PyAny>>,
        y: Option<&Bound<'_, PyAny>>,
        constraints: Option<&Bound<'_, PyAny>>,
        failed: Option<String>,
        id: Option<&Bound<'_, PyAny>>,
        sensors: Option<&Bound<'_, PyAny>>,
        sem: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let id = id.map(|id| whole("tell(id=..): id", id, 0)).transpose()?;
        let mut run = self.locked();
        let names = match run.problem().is_multi_objective() {
            true => run.problem().objective_names(),
            false => Vec::new(),
        };
        let x = match (x, id) {
            (Some(x), None) => x,
            (None, Some(id)) => {
                let told = Given {
                    y,
                    sem,
                    constraints,
                    failed,
                    sensors,
                };
                let outcome = outcomes(1, true, told, &names, run.problem())?.remove(0);
                run.tell(id, outcome).map_err(run_error)?;
                return write_outputs(&run);
            }
            _ => {
                return Err(PyValueError::new_err(
                    "tell takes x (a point) or id (a trial's), one of them",
                ))
            }
        };
        let named = x.cast::<PyDict>().is_ok();
        let single = named || x.extract::<Vec<f64>>().is_ok();
        let points: Vec<Vec<f64>> = match (named, single) {
            (true, _) => vec![named_point(run.problem(), x)?],
            (false, true) => vec![x.extract()?],
            (false, false) => x.extract().map_err(|_| {
                PyValueError::new_err("x must be a point, a dict by name or an (n, dim) array")
            })?,
        };
        let told = Given {
            y,
            sem,
            constraints,
            failed,
            sensors,
        };
        let outcomes = outcomes(points.len(), single, told, &names, run.problem())?;
        for (point, outcome) in points.into_iter().zip(outcomes) {
            let told = match asked_at(&run, &point) {
                Some(id) => run.tell(id, outcome).map(|_: Told| ()),
                None => run.tell_extra(point, outcome).map(|_| ()),
            };
            told.map_err(run_error)?;
        }
        write_outputs(&run)
    }

    /// Evaluates with the oracle given at construction (or the file's own) until the budget
    /// is spent; pending points are evaluated first. Each evaluation is logged on the
    /// `pinnbo` logger (INFO) and, with `callback`, handed to it as a dict (`evaluation`,
    /// `budget`, `phase`, `at`, `objective`, `objectives`, `constraints`, `failure`, `best`);
    /// an exception the callback raises stops the run cleanly and is raised.
    #[pyo3(signature = (callback = None))]
    fn run(&mut self, py: Python<'_>, callback: Option<Py<PyAny>>) -> PyResult<()> {
        self.run_to_budget(py, callback)
    }

    /// Writes `summary.json`, `history.csv` and the pictures `pinnbo solve` draws into the
    /// run's folder (`convergence.png`; for 1-D/2-D problems of continuous variables
    /// `surrogate.png` and, with a closed form or an fdm field, `evaluations.png`; with two
    /// objectives `pareto.png`), and returns the pictures' paths. A picture that cannot be
    /// drawn is left out, with a warning on standard error.
    fn plot(&mut self, py: Python<'_>) -> PyResult<Vec<PathBuf>> {
        let mut guard = self.locked();
        let run: &mut Run = &mut guard;
        let written = py
            .detach(|| pinnbo_report::write_outputs(run))
            .map_err(run_error)?;
        for warning in &written.warnings {
            eprintln!("warning: {warning}");
        }
        Ok(written.pictures)
    }

    /// The points asked and not yet told, as an `(n, dim)` array.
    #[getter]
    fn pending<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let run = self.locked();
        let rows = run.pending().into_iter().map(|a| a.x.clone()).collect();
        matrix(py, rows, run.problem().dim())
    }

    /// Every evaluation as a pandas DataFrame, one row each: `id`, `phase`, each variable by
    /// name (a categorical variable's level by its name), each objective (`objective`, or by
    /// name with several), each constraint by name, and `failure`. Needs pandas (an optional
    /// dependency: `pip install pandas`).
    fn to_dataframe<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let pandas = py.import("pandas").map_err(|_| {
            pyo3::exceptions::PyImportError::new_err(
                "to_dataframe needs pandas, an optional dependency: pip install pandas",
            )
        })?;
        let run = self.locked();
        let p = run.problem();
        let objectives = p.objective_names();
        let constraints: Vec<String> = p.constraints.iter().map(|c| c.name.clone()).collect();
        let rows: Vec<serde_json::Value> = (run.records().iter())
            .map(|r| {
                let mut row = serde_json::Map::new();
                row.insert("id".into(), r.rng.index.into());
                row.insert("phase".into(), r.phase.name().into());
                row.extend(pinnbo_core::run::named_values(p, &r.x));
                let values: Vec<Option<f64>> = match &r.observed {
                    Some(e) => e.objectives.iter().copied().map(Some).collect(),
                    None => vec![None; objectives.len()],
                };
                row.extend(
                    objectives
                        .iter()
                        .cloned()
                        .zip(values.into_iter().map(Into::into)),
                );
                let c = (r.observed.as_ref()).map(|e| e.constraints.clone());
                for (k, name) in constraints.iter().enumerate() {
                    row.insert(name.clone(), c.as_ref().map(|c| c[k]).into());
                }
                row.insert("failure".into(), r.failure.clone().into());
                serde_json::Value::Object(row)
            })
            .collect();
        let columns: Vec<String> = ["id", "phase"]
            .into_iter()
            .map(String::from)
            .chain(p.coords.iter().map(|c| c.name.clone()))
            .chain(objectives)
            .chain(constraints)
            .chain(["failure".to_string()])
            .collect();
        let kwargs = PyDict::new(py);
        kwargs.set_item("columns", columns)?;
        let rows = convert::json(py, &serde_json::Value::Array(rows))?;
        pandas.call_method("DataFrame", (rows,), Some(&kwargs))
    }

    /// With several objectives, the non-dominated feasible evaluations and their hypervolume,
    /// as `summary.json`'s `pareto`: `{"reference", "hypervolume", "points": [{"evaluation",
    /// "x", "at", "objectives", "constraints"}, ..]}`; None with one objective.
    #[getter]
    fn pareto<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(front) = self.locked().summary().pareto else {
            return Ok(None);
        };
        let value = serde_json::to_value(front).map_err(run_error)?;
        convert::json(py, &value).map(Some)
    }

    /// The best feasible evaluation (`x`, `at` by name, `objective`, `constraints`,
    /// `evaluation`), or None (always with several objectives: see `pareto`).
    #[getter]
    fn best<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.locked()
            .summary()
            .best
            .map(|b| convert::best(py, &b))
            .transpose()
    }

    /// Whether the method still finds anything worth evaluating (expected-improvement methods;
    /// None for the others): `expected_improvement_relative`, `threshold`, `converged_since`
    /// and `stopped_at` (evaluations counted from 1), as `summary.json` has them.
    #[getter]
    fn convergence<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.locked()
            .summary()
            .convergence
            .map(|c| convert::convergence(py, &c))
            .transpose()
    }

    /// What the method's model says at `x` (a point, a dict by name, or an `(n, dim)` array):
    /// `{"mean", "std"}` of the objective (arrays, the file's sense and units), `constraints`
    /// (by name, each `{"mean", "std"}`; None for a method without constraint models) and
    /// `parameters` (the pde's constants as last estimated). Fitted to every evaluation as
    /// the pictures' model is (the next proposal does not change); raises RunError for a
    /// method without a predictive standard deviation or before an evaluation succeeded.
    fn predict<'py>(&self, py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let mut guard = self.locked();
        let run: &mut Run = &mut guard;
        let points: Vec<Vec<f64>> = match x.cast::<PyDict>() {
            Ok(_) => vec![named_point(run.problem(), x)?],
            Err(_) => match x.extract::<Vec<f64>>() {
                Ok(point) => vec![point],
                Err(_) => x.extract().map_err(|_| {
                    PyValueError::new_err("x must be a point, a dict by name or an (n, dim) array")
                })?,
            },
        };
        let method = run.config().method.clone();
        let prediction = py.detach(|| run.predict(&points)).map_err(run_error)?;
        let Some(p) = prediction else {
            return Err(run_error(format!(
                "{method} has no predictive standard deviation to report, or no evaluation \
                 succeeded yet"
            )));
        };
        convert::prediction(py, run.problem(), &p)
    }

    /// How often the method's check kept the pde, as `summary.json` has it: `steps`, `kept`,
    /// `dropped_by` (what dropped it at the others, with counts) and `last_kept`; None for a
    /// method without a pde check or before its first step.
    #[getter]
    fn pde_checks<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let checks = self.locked().summary().pde_checks;
        (checks.map(|c| convert::json(py, &serde_json::json!(c)))).transpose()
    }

    /// The last estimate of the pde's unknown constants (`param` in the file), by name:
    /// `{"k": {"value": 2.51, "std": 0.08}}`, `std` None where the data do not pin it; empty
    /// without params or before the first fit.
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        convert::parameters(py, &self.locked().summary().parameters)
    }

    /// Every evaluation: `x`, `objective`, `constraints` (NaN where it failed), `failure`,
    /// `phase` and `id`.
    #[getter]
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let run = self.locked();
        convert::history(py, run.problem(), run.records())
    }

    /// The run's folder.
    #[getter]
    fn out(&self) -> PathBuf {
        self.locked().dir().to_path_buf()
    }

    #[getter]
    fn method(&self) -> String {
        self.locked().config().method.clone()
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.locked().config().seed
    }

    #[getter]
    fn budget(&self) -> usize {
        self.locked().config().budget
    }

    /// Evaluations journaled so far.
    fn __len__(&self) -> usize {
        self.locked().records().len()
    }

    fn __repr__(&self) -> String {
        let run = self.locked();
        format!(
            "Optimizer({:?}, method={:?}, seed={}, {} of {} evaluations, out={:?})",
            run.problem().name,
            run.config().method,
            run.config().seed,
            run.records().len(),
            run.config().budget,
            path_text(run.dir())
        )
    }
}

fn path_text(p: &Path) -> String {
    p.display().to_string()
}
