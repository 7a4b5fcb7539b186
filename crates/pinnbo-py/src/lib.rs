//! pinnbo from Python (`import pinnbo`): problems from `.pde` files or text, an `Optimizer`
//! with ask/tell over a journaled run, and Python callables as oracles. The Python package
//! (`python/pinnbo`) re-exports this module and adds `minimize`; `docs/python.md` is the
//! guide.
//!
//! Everything is a thin layer over `pinnbo-core`: a run here is the same journaled `Run` the
//! command line drives, so a run folder written from Python resumes with `pinnbo ask` or
//! `pinnbo solve --resume`, and the other way round. The GIL is released while a method
//! trains or searches, and taken back only to call a Python oracle or to check for Ctrl-C.

mod arguments;
mod convert;
mod optimizer;
mod oracle;
mod problem;
mod progress;
mod told;

use pyo3::prelude::*;

pyo3::create_exception!(
    _pinnbo,
    ProblemError,
    pyo3::exceptions::PyValueError,
    "A problem that does not check; the message is the rendered report (file:line:col)."
);
pyo3::create_exception!(
    _pinnbo,
    RunError,
    pyo3::exceptions::PyRuntimeError,
    "A run that cannot start, continue or take what it was told; what was journaled is kept."
);

#[pymodule]
fn _pinnbo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<problem::Problem>()?;
    m.add_class::<optimizer::Optimizer>()?;
    m.add("ProblemError", m.py().get_type::<ProblemError>())?;
    m.add("RunError", m.py().get_type::<RunError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
