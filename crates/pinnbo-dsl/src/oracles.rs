//! The oracle blocks' tables of settings (`oracle fdm { .. }`, `oracle command ".." { .. }`)
//! and their one reader: the checker checks a block against its table, and the solvers and
//! the run read it through [`fdm`] and [`command`], so each default is written once.

use crate::choices::{Choice, CommandOutput, Interpolation, Scheme};
use crate::ir::Settings;
use crate::spec::{Declared, Default, Kind, Spec};

/// An `oracle fdm` block's settings, read through [`FDM`].
pub fn fdm(settings: &Settings) -> Declared<'_> {
    Declared::new("oracle fdm", &[FDM], settings)
}

/// An `oracle command` block's settings, read through [`COMMAND`].
pub fn command(settings: &Settings) -> Declared<'_> {
    Declared::new("oracle command", &[COMMAND], settings)
}

pub const FDM: &[Spec] = &[
    Spec::new(
        "points",
        Kind::Int { min: 3 },
        Default::Computed("65,537 for a beam, 257 for a rod"),
        "grid points of a one-dimensional field",
    ),
    Spec::new(
        "grid",
        Kind::Dims,
        Default::Computed("257 x 257 steady, 129 x 129 transient"),
        "grid points per axis of a two-dimensional field",
    ),
    Spec::new(
        "scheme",
        Kind::Choice(Scheme::NAMES),
        Default::Name("crank-nicolson"),
        "the time stepping of a transient field",
    ),
    Spec::new(
        "steps",
        Kind::Int { min: 1 },
        Default::Computed("as many as spatial intervals"),
        "time steps of a transient field",
    ),
    Spec::new(
        "times",
        Kind::List,
        Default::Computed("the final time"),
        "the moments `pinnbo fdm` draws for a two-dimensional transient field",
    ),
    Spec::new(
        "memory",
        Kind::Positive,
        Default::Number(8.0),
        "GiB one solve may use (its grid, factorization and time history); a larger one is \
         refused before anything is allocated",
    ),
    Spec::new(
        "interpolation",
        Kind::Choice(Interpolation::NAMES),
        Default::Name("linear"),
        "how the field is read between nodes",
    ),
];

pub const COMMAND: &[Spec] = &[
    Spec::new(
        "timeout",
        Kind::Duration,
        Default::Computed("none"),
        "an evaluation running longer fails",
    ),
    Spec::new(
        "output",
        Kind::Choice(CommandOutput::NAMES),
        Default::Name("number"),
        "what the program prints: one number, or `{\"objective\": .., \"constraints\": [..]}`",
    ),
    Spec::new(
        "workdir",
        Kind::Str,
        Default::Computed("the problem file's folder"),
        "where the program runs",
    ),
    Spec::new(
        "max_failures",
        Kind::Int { min: 1 },
        Default::Int(5),
        "failed evaluations in a row that stop the run",
    ),
];
