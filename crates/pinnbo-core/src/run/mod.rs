//! The loop executor: initial design, one strategy step per evaluation, noise, the journal,
//! failure accounting, resumption, and the run's summary.
//!
//! Every point has a *slot*, its place in the sequence of proposals: the initial design's
//! points come first, and the slot picks the random stream a proposal draws from. `solve`
//! proposes and evaluates one slot per step; [`ask_tell`] hands slots out to be evaluated
//! elsewhere, and a proposal made while some are pending sees them as fantasies.
//!
//! Around it: [`builder`] assembles a run from a problem and a method name, `config` holds
//! its settings, `open` starts or continues it in its folder, [`journal`] is its crash-safe
//! record, `strategy_state` saves what a strategy carries between steps, [`observer`] lets a
//! caller follow it, and [`outputs`] writes what a finished run leaves.

pub mod amend;
pub mod ask_tell;
pub mod atomic;
pub mod builder;
pub mod front;
pub use crate::numerics::design;
mod config;
pub mod import;
pub mod journal;
mod named;
pub mod observer;
mod open;
pub mod outputs;
mod parallel;
mod picture;
mod strategy_state;
mod summary;
mod unsaved;
mod validate;

use crate::diagnostics::CONVERGED;
use crate::oracle::{minimized_objectives, NoiseModel, Oracle};
use crate::space::Space;
use crate::strategies::{Diagnostics, Observed, Proposal, Strategy, StrategyError};
pub(crate) use config::initial_design;
pub use config::RunConfig;
use journal::{Ask, Journal, JournalError, Phase, Record, RngState};
pub use named::{named_values, point_from_names};
pub use observer::Observer;
pub use picture::Prediction;
use pinnbo_dsl::Problem;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};
use std::time::Instant;
pub use summary::{summarize, Best, Convergence, ParamEstimate, PdeChecks, PdeVerdicts, Summary};

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error("{0}")]
    Mismatch(String),
    /// A `tell` or `ask` the run cannot take (an unknown id, values of the wrong shape).
    #[error("{0}")]
    Refused(String),
    #[error("interrupted by a signal after {0} evaluations")]
    Interrupted(usize),
    /// An evaluation made but not journaled (a full disk): what it gave, to tell later.
    #[error("{source}; this evaluation was not saved: {what}")]
    Unsaved { source: JournalError, what: String },
    #[error("stopped after {0} failed evaluations in a row; the last: {1}")]
    TooManyFailures(usize, String),
    /// The budget is spent and no evaluation succeeded: there is no result.
    #[error("every one of the {0} evaluations failed, so there is no result; the last: {1}")]
    NothingSucceeded(usize, String),
    #[error("the {method} step failed at evaluation {index}: {source}")]
    Strategy {
        method: String,
        index: usize,
        source: Box<StrategyError>,
    },
}

/// The random stream for one purpose at one evaluation, from the run's seed alone.
pub fn stream(seed: u64, purpose: u64, index: usize) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(purpose << 48 | index as u64);
    rng
}

const PROPOSE: u64 = 1;
const NOISE: u64 = 2;
const PICTURE: u64 = 3;

/// The diagnostic that marks a step proposed uniformly because nothing had succeeded yet.
const FALLBACK: &str = "fallback";

/// What a run is made of: the problem, its oracle and noise, the method, the settings.
pub struct Setup {
    pub problem: Problem,
    pub oracle: Box<dyn Oracle>,
    /// The synthetic noise added to each value (`noise added ..`); known noise went to the
    /// strategy instead.
    pub noise: Option<NoiseModel>,
    pub strategy: Box<dyn Strategy>,
    pub config: RunConfig,
    /// Evaluations made before the run, journaled first on start (none on resume).
    pub imported: Vec<import::Imported>,
}

pub struct Run {
    problem: Problem,
    space: Space,
    oracle: Box<dyn Oracle>,
    noise: Option<NoiseModel>,
    strategy: Box<dyn Strategy>,
    config: RunConfig,
    journal: Journal,
    records: Vec<Record>,
    /// Every point handed out by `ask`, answered or not.
    asks: Vec<Ask>,
    initial: Vec<Vec<f64>>,
    /// How many records at the journal's start were imported (the initial design follows).
    imported: usize,
    failures_in_a_row: usize,
    /// The method asked to end the run (its `stop` setting): the evaluation that would have
    /// come next, counted from 1, and the proposal's expected improvement.
    stopped_at: Option<(usize, f64)>,
    /// Every point of a space of discrete variables was evaluated: the evaluation that
    /// would have come next, counted from 1.
    exhausted_at: Option<usize>,
    dir: PathBuf,
}

impl Run {
    /// The slot of the last journaled proposal of the strategy, evaluated or pending (not an
    /// initial-design point or a fallback).
    fn last_proposal(&self) -> Option<usize> {
        let proposals = self
            .records
            .iter()
            .filter(|r| r.phase == Phase::Step && r.diagnostics.get(FALLBACK).is_none())
            .map(|r| r.rng.index);
        let asked = self
            .asks
            .iter()
            .filter(|a| a.phase == Phase::Step && a.diagnostics.get(FALLBACK).is_none())
            .map(|a| a.id);
        proposals.chain(asked).max()
    }

    pub fn records(&self) -> &[Record] {
        &self.records
    }

    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    pub fn problem(&self) -> &Problem {
        &self.problem
    }

    /// The run's oracle, e.g. to draw the true objective after the run (its evaluations
    /// there are not journaled).
    pub fn oracle_mut(&mut self) -> &mut dyn Oracle {
        self.oracle.as_mut()
    }

    /// Releases the journal (and its lock) so that another writer may open the run; this
    /// one then refuses to write ([`JournalError::Closed`]).
    pub fn close(&mut self) {
        self.journal.close();
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn is_done(&self) -> bool {
        self.records.len() >= self.config.budget
    }

    /// The point for `slot`: the initial design's, or the strategy's proposal (saving its
    /// state), or a uniform point while nothing has succeeded. Pending points are seen as
    /// fantasies (`ask_tell::fantasies`).
    fn point_for(&mut self, slot: usize) -> Result<ask_tell::Point, RunError> {
        let started = Instant::now();
        let in_design = slot.saturating_sub(self.imported);
        let (phase, proposal) = match self.initial.get(in_design) {
            Some(point) => (Phase::Init, Proposal::at(point.clone())),
            None => (Phase::Step, self.propose(slot)?),
        };
        let Proposal {
            unit,
            diagnostics,
            terminate,
        } = proposal;
        let unit: Vec<f64> = unit.iter().map(|u| u.clamp(0.0, 1.0)).collect();
        let x = match phase {
            // With integer variables a proposal may fall on a point already evaluated (or
            // pending): the nearest free one takes its place while there is one.
            Phase::Step if self.space.scales.iter().any(|s| s.is_discrete()) => {
                let pending = self.pending();
                let evaluated = self.records.iter().map(|r| r.x.as_slice());
                let taken: Vec<&[f64]> = evaluated
                    .chain(pending.iter().map(|a| a.x.as_slice()))
                    .collect();
                (self.space.nearest_free(&unit, |y| taken.contains(&y)))
                    .unwrap_or_else(|| self.space.to_box(&unit))
            }
            _ => self.space.to_box(&unit),
        };
        Ok(ask_tell::Point {
            slot,
            phase,
            x,
            diagnostics,
            propose_seconds: started.elapsed().as_secs_f64(),
            terminate,
        })
    }

    fn propose(&mut self, slot: usize) -> Result<Proposal, RunError> {
        let mut history = self.observed();
        let mut rng = stream(self.config.seed, PROPOSE, slot);
        if history.is_empty() {
            // Nothing succeeded yet, so a model has nothing to fit: a uniform point keeps
            // the run going, and `max_failures` alone decides when to stop.
            let unit = self.space.uniform_point(&mut rng);
            let diagnostics = Diagnostics::default().with(FALLBACK, "no successful evaluation yet");
            return Ok(Proposal {
                diagnostics,
                ..Proposal::at(unit)
            });
        }
        history.extend(self.fantasies(&history));
        let failed = |e: StrategyError| RunError::Strategy {
            method: self.config.method.clone(),
            index: slot,
            source: Box::new(e),
        };
        let proposed = self.strategy.propose(&self.space, &history, &mut rng);
        // A stop asked for during the proposal cut its fits short: nothing of it is kept.
        if pinnbo_ad::interrupt::requested() {
            return Err(RunError::Interrupted(self.records.len()));
        }
        let p = proposed.map_err(failed)?;
        if !self.space.admits(&p.unit) {
            let why = "no point the search tried holds every known constraint (`pinnbo check` \
                       lists them): the feasible part of the box may be too small to find";
            return Err(failed(StrategyError::Unusable(why.into())));
        }
        if let Some(bytes) = self.strategy.state().map_err(failed)? {
            strategy_state::save(&self.dir, slot, self.last_proposal(), &bytes)?;
        }
        Ok(p)
    }

    /// Evaluates the next point and journals it: the oldest pending one if any was asked,
    /// else a new proposal. `Ok(None)` once the budget is spent.
    pub fn step(&mut self) -> Result<Option<&Record>, RunError> {
        if self.records.len() >= self.config.budget {
            return Ok(None);
        }
        if self.failures_in_a_row >= self.config.max_failures {
            return Err(self.too_many_failures());
        }
        if self.oracle.is_external() {
            return Err(RunError::Refused(format!(
                "{}'s values are measured outside pinnbo: drive the run with `pinnbo ask` and \
                 `pinnbo tell` ({})",
                self.problem.name,
                self.dir.display()
            )));
        }
        if self.stopped_at.is_some() || self.exhausted_at.is_some() {
            return Ok(None);
        }
        let point = match self.pending().first() {
            Some(ask) => ask_tell::Point::from(*ask),
            None if self.unvisited() == Some(0) => {
                // Nothing is left to evaluate: evaluating a point again measures nothing new.
                self.exhausted_at = Some(self.records.len() + 1);
                return Ok(None);
            }
            None => {
                let slot = self.next_slot();
                let point = self.point_for(slot)?;
                if point.terminate {
                    // Nothing is worth evaluating: the proposal is not journaled, so a
                    // resumed run proposes it again and stops again.
                    let improvement = point.diagnostics.expected_improvement_relative;
                    self.stopped_at = Some((self.records.len() + 1, improvement.unwrap_or(0.0)));
                    return Ok(None);
                }
                point
            }
        };
        let started = Instant::now();
        let outcome = self.oracle.evaluate(&point.x);
        let seconds = started.elapsed().as_secs_f64();
        self.journal_evaluation(point, outcome, seconds).map(Some)
    }

    /// Journals what the oracle gave at `point`: a non-finite value becomes a failure, and
    /// synthetic noise is added (from the slot's stream) where the problem asks for it.
    fn journal_evaluation(
        &mut self,
        point: ask_tell::Point,
        outcome: Result<crate::oracle::Evaluation, crate::oracle::Failure>,
        evaluate_seconds: f64,
    ) -> Result<&Record, RunError> {
        let names: Vec<String> = self
            .problem
            .constraints
            .iter()
            .map(|c| c.name.clone())
            .collect();
        let problem = &self.problem;
        let x = &point.x;
        let checked = outcome.and_then(|e| {
            let e = e.with_known_constraints(problem, x);
            if let Some(why) = e.misshapen(problem) {
                return Err(crate::oracle::Failure::Other(why));
            }
            match e.non_finite(&names) {
                Some(what) => Err(crate::oracle::Failure::NonFinite(what)),
                None => Ok(e),
            }
        });
        let (observed, clean, failure) = match checked {
            Ok(clean) => match &self.noise {
                Some(noise) => {
                    let noisy =
                        noise.apply(&clean, &mut stream(self.config.seed, NOISE, point.slot));
                    (Some(noisy), Some(clean), None)
                }
                None => (Some(clean), None, None),
            },
            Err(f) => (None, None, Some(f.to_string())),
        };
        self.failures_in_a_row = if failure.is_some() {
            self.failures_in_a_row + 1
        } else {
            0
        };
        self.journal_record(point, observed, clean, failure, evaluate_seconds)
    }

    /// Journals the outcome of `point` as the next record.
    fn journal_record(
        &mut self,
        point: ask_tell::Point,
        observed: Option<crate::oracle::Evaluation>,
        clean: Option<crate::oracle::Evaluation>,
        failure: Option<String>,
        evaluate_seconds: f64,
    ) -> Result<&Record, RunError> {
        let record = Record {
            index: self.records.len(),
            phase: point.phase,
            x: point.x,
            observed,
            clean,
            failure,
            propose_seconds: point.propose_seconds,
            evaluate_seconds,
            diagnostics: point.diagnostics,
            rng: RngState {
                seed: self.config.seed,
                index: point.slot,
            },
        };
        if let Err(e) = self.journal.append(&record) {
            return Err(RunError::Unsaved {
                source: e,
                what: unsaved::tell_later(&self.problem, &self.dir, &record),
            });
        }
        self.records.push(record);
        Ok(self.records.last().expect("just pushed"))
    }

    /// Steps the run to its budget, telling `observer` as it goes; stops at the first error
    /// (which `observer.on_finish` sees too). Everything evaluated is journaled either way.
    pub fn drive(&mut self, observer: &dyn Observer) -> Result<(), RunError> {
        observer.on_start(self);
        let outcome = loop {
            if !self.is_done() && observer.should_stop() {
                break Err(RunError::Interrupted(self.records.len()));
            }
            match self.step() {
                Ok(Some(_)) => {
                    let record = self.records.last().expect("just journaled");
                    observer.on_record(self, record);
                }
                Ok(None) => break self.some_success(),
                Err(e) => break Err(e),
            }
        };
        observer.on_finish(self, outcome.as_ref().map(|_| ()));
        outcome
    }

    /// A run that ended with evaluations, none of them successful, is an error: it has no
    /// result to report.
    fn some_success(&self) -> Result<(), RunError> {
        if self.records.is_empty() || self.records.iter().any(|r| r.observed.is_some()) {
            return Ok(());
        }
        Err(RunError::NothingSucceeded(
            self.records.len(),
            self.last_failure(),
        ))
    }

    /// Why the last failed evaluation failed.
    fn last_failure(&self) -> String {
        (self.records.iter().rev())
            .find_map(|r| r.failure.clone())
            .unwrap_or_default()
    }

    fn too_many_failures(&self) -> RunError {
        RunError::TooManyFailures(self.failures_in_a_row, self.last_failure())
    }

    /// Successful evaluations as the strategies see them (unit points, minimized objective).
    pub fn observed(&self) -> Vec<Observed> {
        self.records
            .iter()
            .filter_map(|r| {
                let e = r.observed.as_ref()?;
                Some(Observed {
                    sems: e.sems.clone(),
                    unit: self.space.to_unit(&r.x),
                    objectives: minimized_objectives(&self.problem, e),
                    constraints: e.constraints.clone(),
                    proposed: r.phase == Phase::Step,
                    fantasy: false,
                    sensors: e.sensors.clone(),
                })
            })
            .collect()
    }

    pub fn summary(&self) -> Summary {
        let mut summary = summarize(&self.problem, &self.config, &self.records);
        if let Some((at, improvement)) = self.stopped_at {
            // The stopping proposal is not journaled: it may have been the first step.
            let c = summary.convergence.get_or_insert(Convergence {
                expected_improvement_relative: improvement,
                threshold: CONVERGED,
                converged_since: None,
                stopped_at: None,
            });
            c.stopped_at = Some(at);
            c.expected_improvement_relative = improvement;
        }
        summary.exhausted_at = self.exhausted_at;
        summary
    }

    /// Writes `summary.json` and `history.csv` into the run's folder; an error names the
    /// folder.
    pub fn write_outputs(&self) -> Result<(), String> {
        outputs::write(&self.dir, &self.problem, &self.summary(), &self.records)
            .map_err(|e| format!("{}: {e}", self.dir.display()))
    }
}
