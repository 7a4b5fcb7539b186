//! Categorical variables in expressions: `material == copper` is 1 where the variable takes
//! that level and 0 elsewhere; the variable itself is not a number.

use super::{Declared, Lowered, Lowerer};
use crate::ast::{self, ExprKind};
use crate::builtins::Builtin;
use crate::diag::{suggestion, Diagnostic};
use crate::ir::{BinaryOp, CoordId, Expr};
use crate::source::Span;

impl Lowerer<'_> {
    /// `var == level`. A categorical variable's value is its level's position `k`, and
    /// `max(0, 1 − |v − k|)` is exactly 1 at `k` and 0 at every other position: the
    /// comparison lowers to plain arithmetic every evaluator already has.
    pub(super) fn is_level(&mut self, var: &ast::Expr, level: &ast::Expr) -> Option<Expr> {
        let id = self.categorical(var)?;
        let coord = self.cx.coord(id);
        let (name, declared) = (coord.name.clone(), coord.span);
        let levels = coord.levels.clone();
        let ExprKind::Name(written) = &level.kind else {
            self.err(
                Diagnostic::error(
                    "pde::expected-level",
                    level.span,
                    format!("expected a level of `{name}`: {}", levels.join(", ")),
                )
                .with_label("not a level name"),
            );
            return None;
        };
        let Some(k) = levels.iter().position(|l| l == written) else {
            let help = suggestion(written, levels.iter().map(String::as_str));
            self.err(
                Diagnostic::error(
                    "pde::unknown-level",
                    level.span,
                    format!("`{written}` is not a level of `{name}`"),
                )
                .with_label(format!("its levels are {}", levels.join(", ")))
                .with_related(declared, "declared here")
                .with_help_opt(help),
            );
            return None;
        };
        let gap = Expr::binary(BinaryOp::Sub, Expr::Coord(id), Expr::Const(k as f64));
        let closeness = Expr::binary(
            BinaryOp::Sub,
            Expr::Const(1.0),
            Expr::Call(Builtin::Abs, vec![gap]),
        );
        Some(Expr::Call(Builtin::Max, vec![Expr::Const(0.0), closeness]))
    }

    /// The categorical variable (or element) `var` names; an error where it names anything
    /// else.
    fn categorical(&mut self, var: &ast::Expr) -> Option<CoordId> {
        if !self.allow.coords {
            self.not_allowed(var.span, "a variable".to_string());
            return None;
        }
        let id = match &var.kind {
            ExprKind::Name(name) => match self.cx.declared(name) {
                Some(Declared::Var { first, len: None }) => Some(first),
                Some(Declared::Poisoned) => return None,
                _ => None,
            },
            ExprKind::Index { name, index } => match self.index(name, index)? {
                Expr::Coord(id) => Some(id),
                _ => None,
            },
            _ => None,
        };
        if let Some(id) = id.filter(|&id| self.cx.coord(id).is_categorical()) {
            return Some(id);
        }
        let text = self.cx.source.slice(var.span).to_string();
        let what = match id.map(|id| self.cx.coord(id).integer) {
            Some(true) => format!("`{text}` is an integer variable"),
            Some(false) => format!("`{text}` is a continuous variable"),
            None => format!("`{text}` is not a categorical variable"),
        };
        self.err(
            Diagnostic::error(
                "pde::not-categorical",
                var.span,
                format!("{what}: `==` compares a categorical variable with one of its levels"),
            )
            .with_label("not categorical")
            .with_help(
                "declare the variable's levels, `var material in {steel, copper}`; a bound on a \
                 number is a constraint with `<=` or `>=`",
            ),
        );
        None
    }

    /// A categorical variable used as a number.
    pub(super) fn categorical_as_number(&mut self, name: &str, id: CoordId, span: Span) -> Lowered {
        let coord = self.cx.coord(id);
        let example = format!("{name} == {}", coord.levels[0]);
        let declared = coord.span;
        self.err(
            Diagnostic::error(
                "pde::categorical-as-number",
                span,
                format!("`{name}` is categorical: it has levels, not a value"),
            )
            .with_label("used as a number")
            .with_related(declared, "declared here")
            .with_help(format!(
                "compare it with a level, `{example}`, which is 1 at that level and 0 elsewhere"
            )),
        )
    }
}
