//! The process's thread counts, fixed once at start through the environment variables candle
//! and rayon read (a variable the user set is left alone).
//!
//! - `RAYON_NUM_THREADS`: when unset, candle works out its thread count again at every matrix
//!   product, reading `/proc/cpuinfo` each time (about 1.5% of a NeuralBO step).
//! - `CANDLE_NUM_THREADS`: candle's pool for element-wise operations spins between
//!   operations and serializes concurrent callers; a bench running several jobs gives each
//!   run its share of the cores instead (docs/decisions.md, "Benchmark runs").

use std::num::NonZeroUsize;

/// The cores this process may use.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// Sets `name` to `value` unless the user has set it. Called before any other thread
/// exists, so nothing reads the environment while it changes.
fn default_var(name: &str, value: usize) {
    if std::env::var_os(name).is_none() {
        std::env::set_var(name, value.to_string());
    }
}

/// Every command: one fixed count for rayon and candle's matrix products.
pub fn fix_defaults() {
    default_var("RAYON_NUM_THREADS", cores());
}

/// A bench with `jobs` runs at a time: each run's element-wise operations on its own thread
/// when the jobs fill the cores. Returns the threads each run's own pool gets.
pub fn share_among(jobs: usize) -> usize {
    let each = (cores() / jobs.max(1)).max(1);
    default_var("CANDLE_NUM_THREADS", each);
    each
}
