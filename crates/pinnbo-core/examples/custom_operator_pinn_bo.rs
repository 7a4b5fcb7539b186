//! pinnbo as a library, extended: a new differential operator registered in Rust, used in a
//! `.pde` problem's physics, and a PINN-BO run whose residuals are compiled from it.
//!
//! cargo run --release -p pinnbo-core --example custom_operator_pinn_bo

use pinnbo_ad::{LoweringContext, Operator, OperatorRegistry};
use pinnbo_core::Optimization;
use pinnbo_dsl::ir::{BinaryOp, Expr};
use pinnbo_dsl::{compile_with, OperatorSignature, Source};

/// `oscillator(u) = u'' + 9 u` along `x`: a harmonic oscillator's operator.
struct Oscillator;

impl Operator for Oscillator {
    fn signature(&self) -> OperatorSignature {
        OperatorSignature {
            name: "oscillator".into(),
            arity: 1,
            order: 2,
            summary: "d(u, x, 2) + 9 u".into(),
        }
    }

    fn lower(&self, args: &[Expr], cx: &LoweringContext) -> Result<Expr, String> {
        let u = &args[0];
        let second = cx.diff(cx.diff(u.clone(), "x")?, "x")?;
        let stiffness = Expr::binary(BinaryOp::Mul, Expr::Const(9.0), u.clone());
        Ok(Expr::binary(BinaryOp::Add, second, stiffness))
    }
}

// f = sin(3x) + 0.2 x² satisfies f'' + 9 f = 0.4 + 1.8 x²; its closed form is the black box
// (a library user would pass an experiment as `.oracle(FnOracle(..))`).
const PROBLEM: &str = "problem \"oscillator\"\n\
    var x in [0, 3]\n\
    field f(x) = sin(3*x) + 0.2*x^2\n\
    pde oscillator(f) = 0.4 + 1.8*x^2\n\
    minimize f\n\
    budget 14, init 5 sobol\n\
    method pinn-bo { width 32, depth 2, residual_points 64 }\n";

fn main() {
    let mut operators = OperatorRegistry::new();
    operators.register(Oscillator).expect("a new operator name");
    let problem = match compile_with(
        &Source::new("oscillator.pde", PROBLEM),
        operators.signatures(),
    ) {
        Ok(checked) => checked.problem,
        Err(failed) => panic!("{}", failed.render(pinnbo_dsl::Style::Plain)),
    };
    let dir = std::env::temp_dir().join(format!("pinnbo-oscillator-{}", std::process::id()));
    let mut run = Optimization::new(problem)
        .operators(operators)
        .seed(1)
        .start(&dir)
        .expect("a fresh output folder");
    while let Some(record) = run.step().expect("the closed form never fails") {
        let nu = record.diagnostics.get("nu").and_then(|v| v.as_f64());
        if let Some(e) = &record.observed {
            println!(
                "{:2}  f({:.4}) = {:+.5}{}",
                record.index + 1,
                record.x[0],
                e.objective(),
                nu.map(|v| format!("   ν_t = {v:.3}")).unwrap_or_default()
            );
        }
    }
    let best = run
        .summary()
        .best
        .expect("an unconstrained problem has a best point");
    println!(
        "best f = {:.5} at x = {:.4}; on [0, 3] the minimum is -0.52759 at x = 1.5035",
        best.objective, best.x[0]
    );
}
