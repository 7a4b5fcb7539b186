//! The library's front door: a problem (from a file or built in code) and a method to a
//! journaled [`Run`].
//!
//! ```no_run
//! use pinnbo_core::Optimization;
//! use pinnbo_ad::OperatorRegistry;
//!
//! let mut run = Optimization::from_file("problems/beam.pde", &OperatorRegistry::new())?
//!     .method("gp-ei")
//!     .seed(3)
//!     .budget(25)
//!     .start("beam-run".as_ref())?;
//! while let Some(record) = run.step()? {
//!     println!("{} {:?}", record.index, record.observed);
//! }
//! println!("{:?}", run.summary().best);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A closure oracle replaces the file's (`oracle(FnOracle(..))`), a strategy object replaces
//! the named method (`strategy(..)`), and operators registered by the caller reach both the
//! file's checks and PINN-BO's residuals (`examples/closure_oracle.rs`,
//! `examples/custom_operator_pinn_bo.rs`).

use crate::oracle::{self, NoiseModel, Oracle, SetupError};
use crate::run::import::Imported;
use crate::run::{Run, RunConfig, RunError, Setup};
use crate::strategies::registry::{self, MethodError};
use crate::strategies::Strategy;
use pinnbo_ad::device::Hardware;
use pinnbo_ad::OperatorRegistry;
use pinnbo_dsl::{compile_with, LoadError, Problem, Style};
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("cannot read {path}: {message}")]
    Read { path: String, message: String },
    /// The file's diagnostics, rendered.
    #[error("{0}")]
    Invalid(String),
    /// An unknown or unavailable method, or one that does not fit the problem.
    #[error(transparent)]
    Method(#[from] MethodError),
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Run(#[from] RunError),
}

/// A run being configured: the problem file's settings unless overridden.
pub struct Optimization {
    problem: Problem,
    config: RunConfig,
    operators: OperatorRegistry,
    oracle: Option<Box<dyn Oracle>>,
    strategy: Option<Box<dyn Strategy>>,
    allow_exec: bool,
    imported: Vec<Imported>,
    /// In place of the file's `device` (where the method's networks train).
    device: Option<Hardware>,
}

impl Optimization {
    /// A problem built in code (or already compiled).
    pub fn new(problem: Problem) -> Optimization {
        Optimization {
            config: RunConfig::from_problem(&problem),
            problem,
            operators: OperatorRegistry::new(),
            oracle: None,
            strategy: None,
            allow_exec: false,
            imported: Vec::new(),
            device: None,
        }
    }

    /// Reads and checks a `.pde` file; `operators` are the caller's own (their names become
    /// part of the language for this file).
    pub fn from_file(path: &str, operators: &OperatorRegistry) -> Result<Optimization, BuildError> {
        let source = pinnbo_dsl::read(Path::new(path)).map_err(|e| match e {
            LoadError::Io { source, .. } => BuildError::Read {
                path: path.to_string(),
                message: source.to_string(),
            },
            LoadError::Invalid(failed) => BuildError::Invalid(failed.render(Style::Plain)),
        })?;
        let checked = compile_with(&source, operators.signatures())
            .map_err(|failed| BuildError::Invalid(failed.render(Style::Plain)))?;
        Ok(Optimization::new(checked.problem))
    }

    pub fn method(mut self, name: &str) -> Self {
        self.config.method = name.to_string();
        self
    }

    /// A strategy object instead of a named method (its name is journaled).
    pub fn strategy(mut self, strategy: Box<dyn Strategy>) -> Self {
        self.config.method = strategy.name().to_string();
        self.strategy = Some(strategy);
        self
    }

    /// An oracle instead of the file's (a closure: [`crate::oracle::FnOracle`]).
    pub fn oracle(mut self, oracle: impl Oracle + 'static) -> Self {
        self.oracle = Some(Box::new(oracle));
        self
    }

    /// Operators for PINN-BO's residuals (the same registry the file was checked with).
    pub fn operators(mut self, operators: OperatorRegistry) -> Self {
        self.operators = operators;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.config.seed = seed;
        self
    }

    /// Total evaluations, the initial design included (which is capped by it).
    pub fn budget(mut self, budget: usize) -> Self {
        self.config.budget = budget;
        self.config.init = self.config.init.min(budget);
        self
    }

    /// Evaluations made before the run, journaled first (`run::import`). They count toward
    /// the budget and take the place of as many initial-design points.
    pub fn import(mut self, rows: Vec<Imported>) -> Self {
        self.imported = rows;
        self
    }

    /// Lets an `oracle command` run.
    pub fn allow_exec(mut self, allow: bool) -> Self {
        self.allow_exec = allow;
        self
    }

    /// Trains the method's networks on `device` whatever the file says (`solve --device`);
    /// [`Optimization::setup`] refuses it for a method that trains none. Where the work is
    /// done is not part of the run: a resume may choose another device.
    pub fn device(mut self, device: Hardware) -> Self {
        self.device = Some(device);
        self
    }

    /// All run settings at once (the command line merges file, flags and journal header).
    pub fn run_config(mut self, config: RunConfig) -> Self {
        self.config = config;
        self
    }

    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// The run journaled in `dir`, as its own folder describes it: the header's settings
    /// (with what resumes recorded) and the problem text the run follows (`journal.pde`,
    /// checked under the file's original name), so a worker needs only the folder. Then
    /// [`Optimization::resume`] continues it.
    pub fn reopen(dir: &Path) -> Result<Optimization, BuildError> {
        let header = crate::run::amend::read_settings(dir).map_err(RunError::from)?;
        let path = dir.join(crate::run::amend::SNAPSHOT);
        let text = std::fs::read_to_string(&path).map_err(|e| BuildError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let source = pinnbo_dsl::Source::new(header.file.as_str(), text);
        let checked = pinnbo_dsl::compile(&source)
            .map_err(|failed| BuildError::Invalid(failed.render(Style::Plain)))?;
        let mut optimization = Optimization::new(checked.problem);
        let config = &mut optimization.config;
        config.method = header.method;
        config.seed = header.seed;
        config.init = header.init;
        config.budget = header.budget;
        Ok(optimization)
    }

    /// For a run whose points are evaluated elsewhere (`ask`/`tell`): a command oracle is
    /// replaced by [`oracle::External`] so that nothing runs; a closed form or an FDM field
    /// stays (a noise level relative to the range is measured on it, as in `solve`).
    pub fn for_ask_tell(self) -> Self {
        match self.problem.oracle {
            pinnbo_dsl::ir::Oracle::Command(_) => self.oracle(oracle::External),
            _ => self,
        }
    }

    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// Everything a run needs: the strategy, the oracle and its noise model.
    pub fn setup(self) -> Result<Setup, BuildError> {
        if self.config.budget == 0 {
            return Err(SetupError::Plain("the budget must be at least 1".into()).into());
        }
        let space = crate::space::Space::of(&self.problem);
        if !space.known.is_empty() {
            let found = crate::run::initial_design(&space, &self.config).len();
            if found < self.config.init {
                let known = (self.problem.constraints.iter())
                    .filter(|c| c.is_known())
                    .map(|c| format!("`{}`", c.name))
                    .collect::<Vec<_>>();
                return Err(SetupError::Plain(format!(
                    "the known constraints {} leave too little of the box: {found} of its \
                     first {} design points hold them all, fewer than the initial design's {}",
                    known.join(", "),
                    crate::space::FEASIBLE_SEARCH,
                    self.config.init
                ))
                .into());
            }
        }
        let mut strategy = match self.strategy {
            Some(s) => s,
            None => registry::strategy_with(
                &self.problem,
                &self.config.method,
                self.config.seed,
                &self.operators,
                self.device,
            )?,
        };
        // `noise ..% of range` samples the oracle 4,096 times: only the file's closed forms
        // and FDM fields are cheap enough (a caller's oracle may be an experiment).
        let cheap = self.oracle.is_none()
            && !matches!(
                self.problem.oracle,
                pinnbo_dsl::ir::Oracle::Command(_) | pinnbo_dsl::ir::Oracle::External
            );
        let mut oracle = match self.oracle {
            Some(o) => o,
            None => oracle::from_problem(&self.problem, self.allow_exec)?,
        };
        let model = NoiseModel::from_problem(&self.problem, oracle.as_mut(), cheap)?;
        let added = self.problem.noise.is_some_and(|n| n.added);
        if added && !cheap {
            // The checker refuses it for a command; a caller's oracle may be a measurement too.
            return Err(SetupError::Plain(
                "`noise added` adds synthetic noise to a closed form's or an FDM field's values, \
                 never to an oracle that measures something; for the known noise of its \
                 measurements write `noise std <level>`"
                    .into(),
            )
            .into());
        }
        let noise = match added {
            true => model,
            false => {
                // The file's own closed form or FDM field, without a `noise` statement, is
                // exact: its values are known to carry no noise, where a fitted noise level
                // would smooth over what was computed (docs/decisions.md "Exact oracles").
                let exact = self.problem.noise.is_none() && cheap;
                let exact = exact.then(|| NoiseModel::exact(self.problem.constraints.len()));
                if let Some(known) = model.as_ref().or(exact.as_ref()) {
                    strategy.known_noise(known);
                }
                None
            }
        };
        let mut config = self.config;
        let imported = self.imported;
        if imported.len() > config.budget {
            return Err(SetupError::Plain(format!(
                "{} imported evaluations do not fit a budget of {}",
                imported.len(),
                config.budget
            ))
            .into());
        }
        config.init = config.init.saturating_sub(imported.len());
        Ok(Setup {
            problem: self.problem,
            oracle,
            noise,
            strategy,
            config,
            imported,
        })
    }

    /// Starts a run journaled in `dir` (which must not hold one).
    pub fn start(self, dir: &Path) -> Result<Run, BuildError> {
        Ok(Run::start(self.setup()?, dir)?)
    }

    /// Continues the run journaled in `dir`.
    pub fn resume(self, dir: &Path) -> Result<Run, BuildError> {
        Ok(Run::resume(self.setup()?, dir)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::{Evaluation, Failure, FnOracle};

    /// A caller's oracle may be a measurement: synthetic noise is refused for it, while its
    /// known noise reaches the strategy and leaves its values alone.
    #[test]
    fn added_noise_is_refused_for_a_callers_oracle() {
        let problem = |noise: &str| {
            let text = format!("var x in [0, 1]\nminimize x\n{noise}\n");
            pinnbo_dsl::compile(&pinnbo_dsl::Source::new("t.pde", text))
                .unwrap()
                .problem
        };
        let measure =
            |x: &[f64]| -> Result<Evaluation, Failure> { Ok(Evaluation::new(x[0], Vec::new())) };
        let added = Optimization::new(problem("noise added std 0.1"))
            .method("gp-ei")
            .oracle(FnOracle(measure))
            .setup();
        let Err(BuildError::Setup(SetupError::Plain(message))) = added else {
            panic!("synthetic noise on a caller's oracle was accepted");
        };
        assert!(
            message.starts_with("`noise added` adds synthetic noise"),
            "{message}"
        );
        let known = Optimization::new(problem("noise std 0.1"))
            .method("gp-ei")
            .oracle(FnOracle(measure))
            .setup()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(known.noise.is_none(), "nothing is added to a measurement");
    }

    /// A caller's oracle that gives the wrong number of constraint values fails that
    /// evaluation with the reason; nothing misshapen is journaled (issue 53, item 1).
    #[test]
    fn an_oracle_of_the_wrong_shape_fails_the_evaluation() {
        let text = "var x in [0, 1]\nminimize x\nsubject to g: x - 2 <= 0\nbudget 3, init 2\n";
        let problem = pinnbo_dsl::compile(&pinnbo_dsl::Source::new("t.pde", text))
            .unwrap()
            .problem;
        let measure = |x: &[f64]| -> Result<Evaluation, Failure> {
            Ok(Evaluation::new(x[0], vec![0.0, -1.0]))
        };
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let mut run = Optimization::new(problem)
            .method("random")
            .oracle(FnOracle(measure))
            .start(dir)
            .unwrap_or_else(|e| panic!("{e}"));
        let record = run.step().unwrap().unwrap().clone();
        assert!(record.observed.is_none());
        assert_eq!(
            record.failure.as_deref(),
            Some("the oracle gave 2 constraint value(s); the problem measures 0 (its 1 known one(s) pinnbo computes itself)")
        );
    }
}
