//! A process-wide request to stop, for the long numerical loops: a program's signal handler
//! sets it ([`request`]), and every network training, hyperparameter fit and acquisition
//! search polls it ([`requested`]) between iterations and returns what it has at once. What
//! they return then is not a result: the caller that asked for the stop discards the step
//! (a run journals nothing of it). It lives in the lowest numeric crate so that every loop
//! above can see it.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks every long numerical loop to return at its next check.
pub fn request() {
    REQUESTED.store(true, Ordering::SeqCst);
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}
