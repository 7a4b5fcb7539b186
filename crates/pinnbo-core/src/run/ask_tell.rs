//! Evaluations made elsewhere: [`Run::ask`] hands out points, journaled as pending, and
//! [`Run::tell`] journals what they gave (or a point that was never asked, as an extra
//! observation). `pinnbo ask` and `pinnbo tell` are these two on the command line, each a
//! short process holding the journal's lock while it writes.
//!
//! Several points may be pending at once (a batch, or workers that each asked one). A
//! proposal made meanwhile sees each pending point as a *fantasy*: observed at the worst
//! objective seen so far, with that evaluation's constraint values (a pessimistic "constant
//! liar", Ginsbourger, Le Riche and Carraro 2010). The fantasy removes the model's
//! uncertainty there and makes the place look poor, so the next proposal goes elsewhere, for
//! every method alike (docs/decisions.md "Ask/tell" says why the worst value, not the best).
//! One point asked and told at a time is exactly `solve`'s sequence.

use super::journal::{Ask, Phase, Record};
use super::{Run, RunError};
use crate::oracle::{Evaluation, Failure};
use crate::strategies::{Diagnostics, Observed};

/// A point about to be evaluated, from the journal's `ask` or a fresh proposal.
pub(super) struct Point {
    pub slot: usize,
    pub phase: Phase,
    pub x: Vec<f64>,
    pub diagnostics: Diagnostics,
    pub propose_seconds: f64,
    /// The method asked the run to end before this point ([`crate::strategies::Proposal::terminate`]).
    pub terminate: bool,
}

impl From<&Ask> for Point {
    fn from(a: &Ask) -> Point {
        Point {
            slot: a.id,
            phase: a.phase,
            x: a.x.clone(),
            diagnostics: a.diagnostics.clone(),
            propose_seconds: a.propose_seconds,
            terminate: false,
        }
    }
}

/// What a pending point gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Values(Evaluation),
    /// The evaluation failed; why, in the user's words.
    Failed(String),
}

/// What [`Run::tell`] did.
#[derive(Clone, Debug, PartialEq)]
pub enum Told {
    /// Journaled as this record's index.
    Recorded(usize),
    /// The same outcome was told before (record index): nothing was written.
    AlreadyRecorded(usize),
}

impl Run {
    /// Every point asked, pending or told.
    pub fn asked(&self) -> &[Ask] {
        &self.asks
    }

    /// The points asked and not yet told, oldest first.
    pub fn pending(&self) -> Vec<&Ask> {
        let answered: std::collections::HashSet<usize> = self
            .records
            .iter()
            .filter(|r| r.phase != Phase::Extra)
            .map(|r| r.rng.index)
            .collect();
        self.asks
            .iter()
            .filter(|a| !answered.contains(&a.id))
            .collect()
    }

    /// The record that answers the point asked as `id`.
    fn answer(&self, id: usize) -> Option<&Record> {
        self.records
            .iter()
            .find(|r| r.phase != Phase::Extra && r.rng.index == id)
    }

    /// With every variable discrete (integers, categories), how many points of the space
    /// are neither pending nor evaluated (well or not); None with a continuous variable.
    /// Under a `noise` statement an evaluated point may be evaluated again (a repeat
    /// measures something new), so only the pending ones count.
    pub(super) fn unvisited(&self) -> Option<usize> {
        let size = lattice_size(&self.problem)?;
        let key = |x: &[f64]| x.iter().map(|v| v.round() as i64).collect::<Vec<i64>>();
        let exact = self.problem.noise.is_none();
        let evaluated = self.records.iter().filter(|_| exact).map(|r| key(&r.x));
        let seen: std::collections::HashSet<Vec<i64>> = evaluated
            .chain(self.pending().iter().map(|a| key(&a.x)))
            .collect();
        Some(size.saturating_sub(seen.len()))
    }

    /// The slot after every slot used so far, evaluated or pending.
    pub(super) fn next_slot(&self) -> usize {
        let evaluated = self
            .records
            .iter()
            .filter(|r| r.phase != Phase::Extra)
            .map(|r| r.rng.index);
        let asked = self.asks.iter().map(|a| a.id);
        evaluated.chain(asked).max().map_or(0, |s| s + 1)
    }

    /// The pending points, and the points whose evaluation failed, as observations at the
    /// highest (worst) objective in `history`, as minimized (each objective's worst, with
    /// several), with that observation's
    /// constraint values: a pending point is not asked for twice, and a failure steers the
    /// search away from where it happened (docs/decisions.md "Failed evaluations inform the
    /// model").
    pub(super) fn fantasies(&self, history: &[Observed]) -> Vec<Observed> {
        let Some(liar) = history
            .iter()
            .max_by(|a, b| a.objective().total_cmp(&b.objective()))
        else {
            return Vec::new();
        };
        // With several objectives, each after the first at its own worst.
        let worst: Vec<f64> = (0..liar.objectives.len())
            .map(|k| match k {
                0 => liar.objective(),
                _ => (history.iter().map(|o| o.objectives[k])).fold(f64::MIN, f64::max),
            })
            .collect();
        let failed = (self.records.iter())
            .filter(|r| r.failure.is_some())
            .map(|r| (&r.x, r.phase));
        let pending = self.pending().into_iter().map(|a| (&a.x, a.phase));
        failed
            .chain(pending)
            .map(|(x, phase)| Observed {
                sems: Vec::new(),
                unit: self.space.to_unit(x),
                objectives: worst.clone(),
                constraints: liar.constraints.clone(),
                proposed: phase == Phase::Step,
                fantasy: true,
                sensors: Vec::new(),
            })
            .collect()
    }

    /// Hands out `q` new points for evaluation elsewhere, each journaled as pending before
    /// the next is proposed (so each sees the ones before it as fantasies). Refused when the
    /// evaluations made and pending would pass the budget.
    pub fn ask(&mut self, q: usize) -> Result<Vec<Ask>, RunError> {
        let mut asked = Vec::with_capacity(q);
        self.ask_each(q, |a| asked.push(a.clone()))?;
        Ok(asked)
    }

    /// [`Run::ask`] telling `handed` of each point as soon as it is journaled, so that a
    /// long batch shows its points as they come and a kill leaves none unseen.
    pub fn ask_each(&mut self, q: usize, mut handed: impl FnMut(&Ask)) -> Result<(), RunError> {
        let pending = self.pending().len();
        let used = self.records.len() + pending;
        if used + q > self.config.budget {
            return Err(RunError::Refused(format!(
                "the budget of {} evaluations cannot take {q} more: {} evaluated, {pending} \
                 pending; raise it with --budget (Python: budget=)",
                self.config.budget,
                self.records.len()
            )));
        }
        if let Some(left) = self.unvisited().filter(|left| q > *left) {
            return Err(RunError::Refused(format!(
                "every variable is discrete and only {left} point(s) of the space are left to \
                 hand out (none is handed out twice): ask for at most {left}"
            )));
        }
        for _ in 0..q {
            let slot = self.next_slot();
            let point = self.point_for(slot)?;
            let ask = Ask {
                id: point.slot,
                phase: point.phase,
                x: point.x,
                propose_seconds: point.propose_seconds,
                diagnostics: point.diagnostics,
            };
            self.journal.append_ask(&ask)?;
            handed(&ask);
            self.asks.push(ask);
        }
        Ok(())
    }

    /// Journals what the point asked as `id` gave. Telling an answered point again with the
    /// same outcome changes nothing (a retried `tell`); with another, it is refused. Values
    /// are kept as told: a non-finite one makes the evaluation a failure, as in `solve`.
    pub fn tell(&mut self, id: usize, outcome: Outcome) -> Result<Told, RunError> {
        let asked_at = match self.answer(id) {
            Some(r) => Some(r.x.clone()),
            None => self.asks.iter().find(|a| a.id == id).map(|a| a.x.clone()),
        };
        let outcome = match &asked_at {
            Some(x) => self.with_known(outcome, x),
            None => outcome,
        };
        let outcome = self.checked(outcome)?;
        if let Some(r) = self.answer(id) {
            let same = match &outcome {
                Outcome::Values(e) => r.observed.as_ref() == Some(e),
                Outcome::Failed(why) => r.failure.as_ref() == Some(why),
            };
            return match same {
                true => Ok(Told::AlreadyRecorded(r.index)),
                false => Err(RunError::Refused(format!(
                    "point {id} was told already (evaluation {}) with another outcome",
                    r.index + 1
                ))),
            };
        }
        let Some(ask) = self.asks.iter().find(|a| a.id == id) else {
            let ids: Vec<String> = self.pending().iter().map(|a| a.id.to_string()).collect();
            return Err(RunError::Refused(format!(
                "no point {id} was asked; pending: {}",
                match ids.is_empty() {
                    true => "none".to_string(),
                    false => ids.join(", "),
                }
            )));
        };
        let point = Point::from(ask);
        self.journal_outcome(point, outcome).map(Told::Recorded)
    }

    /// Journals an evaluation made at `x` (the problem's coordinates) that was never asked:
    /// an extra observation, counted in the budget like any other.
    pub fn tell_extra(&mut self, x: Vec<f64>, outcome: Outcome) -> Result<usize, RunError> {
        let outcome = self.checked(self.with_known(outcome, &x))?;
        super::validate::point(&self.problem, &x).map_err(RunError::Refused)?;
        if self.records.len() + self.pending().len() >= self.config.budget {
            return Err(RunError::Refused(format!(
                "the budget of {} evaluations is spent; raise it with --budget (Python: budget=)",
                self.config.budget
            )));
        }
        let point = Point {
            slot: self.records.len(),
            phase: Phase::Extra,
            x,
            diagnostics: Diagnostics::default(),
            propose_seconds: 0.0,
            terminate: false,
        };
        self.journal_outcome(point, outcome)
    }

    /// Told values with the known constraints computed at `x` (they are never told).
    fn with_known(&self, outcome: Outcome, x: &[f64]) -> Outcome {
        match outcome {
            Outcome::Values(e) => Outcome::Values(e.with_known_constraints(&self.problem, x)),
            failed => failed,
        }
    }

    /// Refuses what a run cannot take as told: values of the wrong shape, and any told value
    /// on a problem that adds synthetic noise (which only `solve` adds, to its own oracle).
    fn checked(&self, outcome: Outcome) -> Result<Outcome, RunError> {
        if self.noise.is_some() {
            return Err(RunError::Refused(
                "this problem adds synthetic noise (`noise added`) to its oracle's values, and a \
                 told value is kept as measured: drop `added` (the known noise of a \
                 measurement is `noise std <level>`)"
                    .into(),
            ));
        }
        if let Outcome::Values(e) = &outcome {
            let m = self.problem.constraints.len();
            let measured: Vec<&str> = (self.problem.measured_constraints())
                .map(|c| c.name.as_str())
                .collect();
            // Before the known ones are put in (a point not asked), the measured ones alone.
            if e.constraints.len() != m && e.constraints.len() != measured.len() {
                let known = m - measured.len();
                return Err(RunError::Refused(match known {
                    0 => format!(
                        "{} constraint value(s) told, the problem has {m}",
                        e.constraints.len()
                    ),
                    _ => format!(
                        "{} constraint value(s) told, the problem measures {} ({}; its {known} \
                         known one(s) pinnbo computes itself)",
                        e.constraints.len(),
                        measured.len(),
                        measured.join(", ")
                    ),
                }));
            }
            self.check_sems(e).map_err(RunError::Refused)?;
            let s = self.problem.sensor_count();
            if e.sensors.len() != s {
                return Err(RunError::Refused(format!(
                    "{} sensor value(s) told, the problem has {s} ({})",
                    e.sensors.len(),
                    self.problem.sensor_names().join(", ")
                )));
            }
            // A non-finite value is the failure it is journaled as, so that telling it
            // again is the same outcome (a retry), not another.
            let names: Vec<String> = (self.problem.constraints.iter())
                .map(|c| c.name.clone())
                .collect();
            if let Some(what) = e.non_finite(&names) {
                return Ok(Outcome::Failed(Failure::NonFinite(what).to_string()));
            }
        }
        Ok(outcome)
    }

    /// Refuses told standard errors the run cannot use: one per objective or none, each
    /// finite and at least 0, for a method whose model takes them, on a problem whose
    /// objective is told rather than read from sensors.
    fn check_sems(&self, e: &Evaluation) -> Result<(), String> {
        if e.sems.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = (self.problem.objectives())
            .map(|o| o.name.as_deref().unwrap_or("objective"))
            .collect();
        if e.sems.len() != names.len() {
            return Err(format!(
                "{} standard error(s) told, the problem has {} objective(s) ({})",
                e.sems.len(),
                names.len(),
                names.join(", ")
            ));
        }
        for (sem, name) in e.sems.iter().zip(&names) {
            if let Some(s) = sem.filter(|s| !(s.is_finite() && *s >= 0.0)) {
                return Err(format!(
                    "the standard error of `{name}` must be finite and at least 0, not {s}"
                ));
            }
        }
        let method = &self.config.method;
        if !crate::strategies::registry::models_told_noise(method) {
            return Err(format!(
                "{method} models no observation noise, so a told standard error would be kept \
                 and never used; the methods that use it: {}",
                (crate::strategies::registry::available())
                    .filter(|m| crate::strategies::registry::models_told_noise(m))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if self.problem.sensor_count() > 0 {
            return Err(format!(
                "this problem's objective is read from its sensors ({}), whose field the model \
                 fits: a standard error belongs to a told objective value; state the sensors' \
                 noise with `noise std`",
                self.problem.sensor_names().join(", ")
            ));
        }
        Ok(())
    }

    fn journal_outcome(&mut self, point: Point, outcome: Outcome) -> Result<usize, RunError> {
        let outcome = match outcome {
            Outcome::Values(e) => Ok(e),
            Outcome::Failed(why) => Err(Failure::Other(why)),
        };
        let record = self.journal_evaluation(point, outcome, 0.0)?;
        Ok(record.index)
    }
}

/// The number of points of a space whose variables are all discrete; None with a continuous
/// variable, or more points than a `usize` counts.
fn lattice_size(problem: &pinnbo_dsl::Problem) -> Option<usize> {
    (problem.coords.iter()).try_fold(1usize, |n, c| {
        let levels = c.integer.then(|| (c.hi - c.lo).round() as usize + 1)?;
        n.checked_mul(levels)
    })
}
