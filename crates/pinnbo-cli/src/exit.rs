//! The exit codes of `pinnbo`, one name per meaning.

use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Success = 0,
    /// A file is invalid, unreadable or cannot be set up, or a command failed on its input
    /// (a non-finite value, an unwritable folder).
    Invalid = 1,
    /// The command line itself is wrong: clap's usage errors, a malformed flag value, an
    /// unknown method.
    Usage = 2,
    /// `solve` stopped early (too many failed evaluations in a row, a method error, Ctrl-C or
    /// SIGTERM) or ended with every evaluation failed, or some `bench` run did; everything
    /// computed is journaled and summarized.
    Stopped = 3,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}
