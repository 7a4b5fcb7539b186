//! Benchmarks: every (problem, method, seed) run journaled in its own folder, in parallel,
//! resumable, then reduced to best-so-far curves and significance tests.
//!
//! All methods share the initial design and the observation noise of a seed: both are drawn
//! from the run's seed alone (`run::stream`, `design::points`), never from the method.

pub mod paired;
pub mod results;
pub mod stats;

use crate::oracle::{FdmOracle, SetupError};
use crate::run::journal::{lock_for_writing, JournalError, Record};
use crate::run::{Observer, Run, RunConfig, RunError};
use crate::strategies::registry;
use crate::{BuildError, Optimization};
use pinnbo_ad::device::Hardware;
use pinnbo_dsl::Problem;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Where a problem's known optimum comes from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OptimumSource {
    /// The file's `optimum`.
    File,
    /// The best grid node of the FDM reference field (the objective and constraints evaluated
    /// there by the run's own oracle).
    ReferenceField,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Optimum {
    /// In the file's sense.
    pub value: f64,
    pub source: OptimumSource,
}

/// The file's `optimum`, else for an FDM problem the best feasible node of its reference
/// field, else none (regret is then not reported).
pub fn optimum(problem: &Problem) -> Result<Option<Optimum>, SetupError> {
    if let Some(value) = problem.optimum {
        return Ok(Some(Optimum {
            value,
            source: OptimumSource::File,
        }));
    }
    if !matches!(problem.oracle, pinnbo_dsl::ir::Oracle::Fdm(_)) {
        return Ok(None);
    }
    let maximize = problem.objective.sense == pinnbo_dsl::ir::Sense::Maximize;
    Ok(FdmOracle::new(problem)?
        .best_node(maximize)
        .map(|value| Optimum {
            value,
            source: OptimumSource::ReferenceField,
        }))
}

/// Follows a whole bench: every run's evaluations (as a run's [`Observer`], shared by the
/// job threads) and each run's outcome as it ends.
pub trait BenchObserver: Observer + Sync {
    fn on_outcome(&self, _outcome: &Outcome) {}
}

/// Follows nothing.
impl BenchObserver for () {}

/// A benchmark: problems, methods, seeds and where the runs go.
pub struct Plan {
    pub problems: Vec<Problem>,
    pub optima: Vec<Option<Optimum>>,
    pub methods: Vec<String>,
    pub seeds: Vec<u64>,
    /// Overrides every file's budget.
    pub budget: Option<usize>,
    /// `--quick`: each problem's budget is its initial design plus this many steps.
    pub quick_steps: Option<usize>,
    pub out: PathBuf,
    pub allow_exec: bool,
    /// Where the methods that train networks train them (`--device`; the others stay on
    /// the CPU).
    pub device: Option<Hardware>,
}

/// One run of the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    /// Index into `Plan::problems`.
    pub problem: usize,
    pub method: String,
    pub seed: u64,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "status", content = "reason")]
pub enum Status {
    /// Ran to its budget in this invocation (or continued a journal to it).
    Finished,
    /// Its journal already held the whole budget: nothing was run.
    Reused,
    /// The method does not apply to the problem (e.g. PINN-BO without a pde).
    NotApplicable(String),
    /// Stopped early: what was computed is journaled and counted up to where it stopped.
    Stopped(String),
}

/// A run's journal and how it ended.
pub struct Outcome {
    pub spec: RunSpec,
    pub status: Status,
    pub records: Vec<Record>,
    pub budget: usize,
}

impl Plan {
    /// Problems, then methods, then seeds: the order runs are started and reported in.
    pub fn runs(&self) -> Vec<RunSpec> {
        let mut out = Vec::new();
        for problem in 0..self.problems.len() {
            for method in &self.methods {
                for &seed in &self.seeds {
                    out.push(RunSpec {
                        problem,
                        method: method.clone(),
                        seed,
                    });
                }
            }
        }
        out
    }

    /// Claims `OUT` for this process (creating it): held until the returned file is dropped.
    /// A second bench on the same folder is refused, rather than racing for the same runs
    /// and overwriting the first one's report.
    pub fn lock_out(&self) -> Result<std::fs::File, JournalError> {
        let path = self.out.join("bench.lock");
        let shown = path.display().to_string();
        let io = |source| JournalError::Io {
            path: shown.clone(),
            source,
        };
        std::fs::create_dir_all(&self.out).map_err(io)?;
        // Never through a link: opening one would create the file it names.
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink()) {
            return Err(io(std::io::Error::other(
                "a link where the benchmark's lock file belongs; remove it",
            )));
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        lock_for_writing(&file, &shown, "this benchmark")?;
        Ok(file)
    }

    /// `OUT/<problem>/<method>/seed<S>`.
    pub fn dir(&self, spec: &RunSpec) -> PathBuf {
        self.out
            .join(&self.problems[spec.problem].name)
            .join(&spec.method)
            .join(format!("seed{}", spec.seed))
    }

    /// The first folder between `--out` and a run's folder that is a link (planted there,
    /// it would send the run's files elsewhere).
    fn link_inside(&self, dir: &Path) -> Option<PathBuf> {
        (dir.ancestors())
            .take_while(|a| *a != self.out.as_path())
            .find(|a| std::fs::symlink_metadata(a).is_ok_and(|m| m.is_symlink()))
            .map(Path::to_path_buf)
    }

    /// The run's settings: the file's, with the plan's method, seed and budget.
    pub fn config(&self, spec: &RunSpec) -> RunConfig {
        let problem = &self.problems[spec.problem];
        let mut config = RunConfig::from_problem(problem);
        config.method = spec.method.clone();
        config.seed = spec.seed;
        if let Some(steps) = self.quick_steps {
            config.budget = config.budget.min(config.init + steps);
        }
        if let Some(budget) = self.budget {
            config.budget = budget;
        }
        config.init = config.init.min(config.budget);
        config
    }

    /// Runs (or continues, or reuses) one run, which `observer` follows. Never fails: a run
    /// that cannot start or stops early says why in its status.
    pub fn execute(&self, spec: &RunSpec, observer: &dyn Observer) -> Outcome {
        self.open(spec, Some(observer))
    }

    /// One run as its folder holds it, without evaluating anything: a finished journal is
    /// reused, a missing or unfinished one is `Stopped` with why (the reduce step of a
    /// bench whose runs were made elsewhere, e.g. as a cluster's array job).
    pub fn collect(&self, spec: &RunSpec) -> Outcome {
        self.open(spec, None)
    }

    /// Executes the run with `observer`, or only reads it (`None`).
    fn open(&self, spec: &RunSpec, observer: Option<&dyn Observer>) -> Outcome {
        let config = self.config(spec);
        let budget = config.budget;
        let dir = self.dir(spec);
        let outcome = |status, records| Outcome {
            spec: spec.clone(),
            status,
            records,
            budget,
        };
        if let Some(link) = self.link_inside(&dir) {
            let why = format!(
                "{} is a link; a bench writes its runs only into folders of its own --out",
                link.display()
            );
            return outcome(Status::Stopped(why), vec![]);
        }
        let mut optimization = Optimization::new(self.problems[spec.problem].clone())
            .run_config(config)
            .allow_exec(self.allow_exec);
        if let Some(device) = self
            .device
            .filter(|_| registry::trains_networks(&spec.method))
        {
            optimization = optimization.device(device);
        }
        let setup = optimization.setup();
        let setup = match setup {
            Ok(s) => s,
            Err(BuildError::Method(why)) => {
                return outcome(Status::NotApplicable(why.to_string()), vec![])
            }
            Err(e) => return outcome(Status::Stopped(e.to_string()), vec![]),
        };
        let journal = dir.join("journal.jsonl");
        if observer.is_none() && !journal.exists() {
            let why = format!("not run: {} holds no journal", dir.display());
            return outcome(Status::Stopped(why), vec![]);
        }
        let started = if journal.exists() {
            Run::resume(setup, &dir)
        } else {
            Run::start(setup, &dir)
        };
        let mut run = match started {
            Ok(r) => r,
            Err(e) => return outcome(Status::Stopped(e.to_string()), vec![]),
        };
        let reused = run.is_done();
        let driven = match observer {
            Some(observer) => run.drive(observer),
            None if reused => Ok(()),
            None => Err(RunError::Mismatch(format!(
                "unfinished: {} of {} evaluations in {}",
                run.records().len(),
                budget,
                dir.display()
            ))),
        };
        let mut status = match driven {
            Ok(()) if reused => Status::Reused,
            Ok(()) => Status::Finished,
            Err(e) => Status::Stopped(e.to_string()),
        };
        // A run that stopped already says why; otherwise an unwritable folder is the reason.
        // Only reading (`collect`), the folder is left as its run wrote it.
        if observer.is_some() {
            if let Err(e) = run.write_outputs() {
                if !matches!(status, Status::Stopped(_)) {
                    status = Status::Stopped(e);
                }
            }
        }
        outcome(status, run.records().to_vec())
    }

    /// Every run, `jobs` at a time, in the order of [`Plan::runs`]. Each job thread has its
    /// own rayon pool of `threads_per_run` threads for its runs' parallel work, so that
    /// concurrent runs do not queue behind each other in one shared pool (when a pool cannot
    /// be built, the shared one is used). `observer` follows every run, and sees each
    /// run's outcome.
    pub fn execute_all(
        &self,
        jobs: usize,
        threads_per_run: usize,
        observer: &dyn BenchObserver,
    ) -> Vec<Outcome> {
        let runs = self.runs();
        let next = AtomicUsize::new(0);
        let done: Mutex<Vec<Option<Outcome>>> = Mutex::new((0..runs.len()).map(|_| None).collect());
        let work = || loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(spec) = runs.get(i) else { break };
            let outcome = self.execute(spec, observer);
            observer.on_outcome(&outcome);
            done.lock().expect("no worker panics holding it")[i] = Some(outcome);
        };
        std::thread::scope(|scope| {
            for _ in 0..jobs.clamp(1, runs.len().max(1)) {
                scope.spawn(|| {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads_per_run.max(1))
                        .build();
                    match pool {
                        Ok(pool) => pool.install(work),
                        Err(_) => work(),
                    }
                });
            }
        });
        done.into_inner()
            .expect("no worker panicked")
            .into_iter()
            .map(|o| o.expect("every run executed"))
            .collect()
    }
}
