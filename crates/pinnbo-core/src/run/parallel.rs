//! Several evaluations in flight at once (`pinnbo solve --parallel N`): each point is asked
//! (journaled as pending) before its evaluation starts on a thread of its own, journaled as
//! it finishes, and the next point is proposed at once with the others still pending (seen
//! as fantasies, `ask_tell`). A run killed meanwhile resumes with exactly the evaluations
//! that had not finished: they are still pending in the journal.

use super::ask_tell::Point;
use super::{Observer, Run, RunError};
use crate::oracle::{Evaluation, Failure};
use std::sync::mpsc;
use std::time::Instant;

/// What a worker sends back: the point, the oracle's outcome and how long it took.
type Finished = (Point, Result<Evaluation, Failure>, f64);

impl Run {
    /// Steps the run to its budget with up to `workers` evaluations at once, telling
    /// `observer` of each record. The oracle must run concurrently ([`crate::Oracle::fork`]).
    /// When `observer` asks to stop, no new evaluation starts and those in flight are waited
    /// for; on an error, the same.
    pub fn drive_parallel(
        &mut self,
        workers: usize,
        observer: &dyn Observer,
    ) -> Result<(), RunError> {
        observer.on_start(self);
        let outcome = self.in_parallel(workers.max(1), observer);
        observer.on_finish(self, outcome.as_ref().map(|_| ()));
        outcome
    }

    fn in_parallel(&mut self, workers: usize, observer: &dyn Observer) -> Result<(), RunError> {
        if self.oracle.is_external() || self.oracle.fork().is_none() {
            return Err(RunError::Refused(format!(
                "{} cannot run several evaluations at once; --parallel needs an oracle that can \
                 (a command)",
                self.oracle.describe()
            )));
        }
        let (sender, receiver) = mpsc::channel::<Finished>();
        std::thread::scope(|scope| {
            let mut in_flight: Vec<usize> = Vec::new();
            let mut stopping: Option<RunError> = None;
            loop {
                while stopping.is_none() && in_flight.len() < workers {
                    match self.next_in_flight(&in_flight, observer) {
                        Ok(Some(point)) => {
                            let mut oracle = self.oracle.fork().expect("checked above");
                            let sender = sender.clone();
                            in_flight.push(point.slot);
                            scope.spawn(move || {
                                let started = Instant::now();
                                let outcome = oracle.evaluate(&point.x);
                                let seconds = started.elapsed().as_secs_f64();
                                // The receiver outlives every worker (the scope joins them).
                                let _ = sender.send((point, outcome, seconds));
                            });
                        }
                        Ok(None) => break,
                        Err(e) => stopping = Some(e),
                    }
                }
                if in_flight.is_empty() {
                    return stopping.map_or(Ok(()), Err);
                }
                let (point, outcome, seconds) = receiver.recv().expect("a worker is in flight");
                in_flight.retain(|&slot| slot != point.slot);
                match self.journal_evaluation(point, outcome, seconds) {
                    Ok(_) => {
                        let record = self.records.last().expect("just journaled");
                        observer.on_record(self, record);
                    }
                    Err(e) => stopping = stopping.or(Some(e)),
                }
            }
        })
    }

    /// The next point to start: a pending one not yet in flight (a resumed run's), else a
    /// new one asked; `None` once the budget is covered. An error (a signal, too many
    /// failures in a row, a failed proposal) stops new starts.
    fn next_in_flight(
        &mut self,
        in_flight: &[usize],
        observer: &dyn Observer,
    ) -> Result<Option<Point>, RunError> {
        if observer.should_stop() {
            return Err(RunError::Interrupted(self.records.len()));
        }
        if self.failures_in_a_row >= self.config.max_failures {
            return Err(self.too_many_failures());
        }
        if let Some(ask) = self
            .pending()
            .into_iter()
            .find(|a| !in_flight.contains(&a.id))
        {
            return Ok(Some(Point::from(ask)));
        }
        if self.records.len() + in_flight.len() >= self.config.budget {
            return Ok(None);
        }
        let asked = self.ask(1)?;
        Ok(asked.first().map(Point::from))
    }
}
