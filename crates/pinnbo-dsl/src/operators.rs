//! Differential operators the language accepts, and the extension point for new ones.
//!
//! The built-ins are lowered by the checker into partial derivatives (`grad`, `div`,
//! `laplacian`, `biharmonic`, `dot`, `sum`). An operator registered here is kept as an
//! [`crate::ir::Expr::Operator`] node; the crate that evaluates residuals (pinnbo-ad) supplies
//! its meaning. This crate only needs its name, arity and derivative order to check calls.

/// Names the checker handles itself.
pub const BUILTIN_OPERATORS: [&str; 7] =
    ["d", "grad", "div", "laplacian", "biharmonic", "dot", "sum"];

/// The highest derivative order of a field anywhere in a problem (jets carry up to 4).
pub const MAX_DERIVATIVE_ORDER: u32 = 4;

/// What the checker needs to know about a user-registered operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperatorSignature {
    pub name: String,
    /// Number of scalar arguments.
    pub arity: usize,
    /// Derivative order the operator applies to its arguments (for order checks).
    pub order: u32,
    /// One line shown in help text.
    pub summary: String,
}

/// The set of extra operators a problem may use.
#[derive(Clone, Debug, Default)]
pub struct Operators {
    extra: Vec<OperatorSignature>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegisterError {
    #[error("`{0}` is a built-in name and cannot be registered as an operator")]
    Reserved(String),
    #[error("an operator named `{0}` is already registered")]
    Duplicate(String),
    #[error(
        "`{0}` is not a valid operator name (letters, digits and `_`, starting with a letter)"
    )]
    InvalidName(String),
}

impl Operators {
    pub fn new() -> Self {
        Operators::default()
    }

    pub fn register(&mut self, sig: OperatorSignature) -> Result<(), RegisterError> {
        let valid = sig
            .name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && sig
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(RegisterError::InvalidName(sig.name));
        }
        if BUILTIN_OPERATORS.contains(&sig.name.as_str())
            || crate::builtins::Builtin::from_name(&sig.name).is_some()
            || crate::builtins::CONSTANTS
                .iter()
                .any(|(n, _)| *n == sig.name)
        {
            return Err(RegisterError::Reserved(sig.name));
        }
        if self.get(&sig.name).is_some() {
            return Err(RegisterError::Duplicate(sig.name));
        }
        self.extra.push(sig);
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<&OperatorSignature> {
        self.extra.iter().find(|s| s.name == name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.extra.iter().map(|s| s.name.as_str())
    }
}
