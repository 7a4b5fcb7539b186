//! Following a run as it goes: [`Run::drive`] calls an [`Observer`] when it starts, after each
//! record is journaled, and when it ends. `pinnbo solve` draws its progress bar with one, and
//! `pinnbo bench` counts every run's evaluations with another.

use super::journal::Record;
use super::{Run, RunError};

/// Called by [`Run::drive`]; every method does nothing unless overridden. Methods take `&self`
/// so that one observer can follow several runs on several threads (a bench).
pub trait Observer {
    /// Before the first new evaluation; records found in a resumed journal are already in
    /// `run.records()`.
    fn on_start(&self, _run: &Run) {}

    /// After `record` is journaled (it is also the last of `run.records()`).
    fn on_record(&self, _run: &Run, _record: &Record) {}

    /// When the budget is spent (`Ok`) or the run stopped early (`Err`, as `drive` returns
    /// it); before any output is written.
    fn on_finish(&self, _run: &Run, _outcome: Result<(), &RunError>) {}

    /// Asked before each evaluation: true ends the run there ([`RunError::Interrupted`]),
    /// with everything evaluated so far journaled.
    fn should_stop(&self) -> bool {
        false
    }
}

/// Follows nothing.
impl Observer for () {}
