//! The public extension point for differential operators.
//!
//! A library user implements [`Operator`]: a signature the `.pde` checker uses (name, arity,
//! derivative order) and a lowering of a call into the expression language's primitives
//! (partial derivatives, arithmetic, built-in functions). The residual compiler then turns the
//! lowered expression into jets like any other, so products obey Leibniz's rule and nested
//! derivatives compose, and the operator's parameter gradients come from the same single
//! backward pass. See `docs/operators.md` for a worked example.

use pinnbo_dsl::ir::{CoordId, Expr, Problem};
use pinnbo_dsl::{OperatorSignature, Operators};
use std::collections::HashMap;
use std::sync::Arc;

/// What a lowering may ask about the problem it is used in.
pub struct LoweringContext<'a> {
    pub problem: &'a Problem,
    /// The variables of the field the operator is applied to, in order.
    pub field_args: &'a [CoordId],
}

impl LoweringContext<'_> {
    /// A design variable by name (`"t"`, `"x[2]"`).
    pub fn coord(&self, name: &str) -> Option<CoordId> {
        self.problem.coords.iter().position(|c| c.name == name)
    }

    /// `d(e, name)`, or an error naming the missing variable.
    pub fn diff(&self, e: Expr, name: &str) -> Result<Expr, String> {
        let c = self
            .coord(name)
            .ok_or_else(|| format!("the problem has no variable `{name}`"))?;
        Ok(Expr::diff(e, c))
    }
}

/// A differential operator added by a library user.
pub trait Operator: Send + Sync {
    /// Name, arity and derivative order, as the `.pde` checker sees them.
    fn signature(&self) -> OperatorSignature;

    /// The call `name(args)` in terms of the language's primitives.
    fn lower(&self, args: &[Expr], cx: &LoweringContext) -> Result<Expr, String>;
}

/// Operators available to `.pde` files and residuals.
#[derive(Clone, Default)]
pub struct OperatorRegistry {
    operators: HashMap<String, Arc<dyn Operator>>,
    signatures: Operators,
}

impl OperatorRegistry {
    pub fn new() -> Self {
        OperatorRegistry::default()
    }

    /// Adds an operator; its name must be new and not a built-in.
    pub fn register(
        &mut self,
        op: impl Operator + 'static,
    ) -> Result<(), pinnbo_dsl::operators::RegisterError> {
        let sig = op.signature();
        let name = sig.name.clone();
        self.signatures.register(sig)?;
        self.operators.insert(name, Arc::new(op));
        Ok(())
    }

    /// The signatures, for [`pinnbo_dsl::compile_with`].
    pub fn signatures(&self) -> &Operators {
        &self.signatures
    }

    /// `e` with every registered operator call replaced by its lowering (innermost first).
    pub fn lower(&self, e: &Expr, cx: &LoweringContext) -> Result<Expr, String> {
        Ok(match e {
            Expr::Const(_)
            | Expr::Coord(_)
            | Expr::Param(_)
            | Expr::Field(_)
            | Expr::Functional(_) => e.clone(),
            Expr::Neg(a) => Expr::Neg(Box::new(self.lower(a, cx)?)),
            Expr::Binary(op, a, b) => Expr::binary(*op, self.lower(a, cx)?, self.lower(b, cx)?),
            Expr::Call(f, args) => Expr::Call(*f, self.lower_all(args, cx)?),
            Expr::Diff { expr, wrt } => Expr::diff(self.lower(expr, cx)?, *wrt),
            Expr::Operator { name, args } => {
                let op = self
                    .operators
                    .get(name)
                    .ok_or_else(|| format!("the operator `{name}` is not registered"))?;
                op.lower(&self.lower_all(args, cx)?, cx)?
            }
        })
    }

    fn lower_all(&self, args: &[Expr], cx: &LoweringContext) -> Result<Vec<Expr>, String> {
        args.iter().map(|a| self.lower(a, cx)).collect()
    }
}
