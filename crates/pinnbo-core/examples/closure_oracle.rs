//! pinnbo as a library: a problem stated in code, a Rust closure as the oracle, GP-EI as the
//! method, the journaled loop run to its budget through the `Optimization` builder.
//!
//! cargo run --release -p pinnbo-core --example closure_oracle

use pinnbo_core::oracle::FnOracle;
use pinnbo_core::{Evaluation, Failure, Optimization};
use pinnbo_dsl::{compile, Source};

fn main() {
    // The file states the variables, the objective's sense and the budget; the closure is
    // the black box (here Branin, which the file does not need to know).
    let text = "problem \"branin-closure\"\nvar x1 in [-5, 10], x2 in [0, 15]\n\
                field f(x1, x2)\nminimize f\noracle command \"unused {x1} {x2}\"\n\
                budget 30, init 8 sobol\n";
    let problem = match compile(&Source::new("branin.pde", text)) {
        Ok(checked) => checked.problem,
        Err(failed) => panic!("{}", failed.render(pinnbo_dsl::Style::Plain)),
    };
    let branin = |x: &[f64]| -> Result<Evaluation, Failure> {
        let (a, b, c) = (
            1.0,
            5.1 / (4.0 * std::f64::consts::PI.powi(2)),
            5.0 / std::f64::consts::PI,
        );
        let (r, s, t) = (6.0, 10.0, 1.0 / (8.0 * std::f64::consts::PI));
        let f =
            a * (x[1] - b * x[0] * x[0] + c * x[0] - r).powi(2) + s * (1.0 - t) * x[0].cos() + s;
        Ok(Evaluation::new(f, Vec::new()))
    };
    let dir = std::env::temp_dir().join(format!("pinnbo-closure-{}", std::process::id()));
    let mut run = Optimization::new(problem)
        .method("gp-ei")
        .oracle(FnOracle(branin))
        .start(&dir)
        .expect("a fresh output folder");
    while let Some(record) = run.step().expect("the closure never fails") {
        if let Some(e) = &record.observed {
            println!(
                "{:2}  f({:8.4}, {:8.4}) = {:.5}",
                record.index + 1,
                record.x[0],
                record.x[1],
                e.objective()
            );
        }
    }
    let best = run
        .summary()
        .best
        .expect("an unconstrained problem has a best point");
    println!(
        "best {:.5} at ({:.4}, {:.4}); the global minimum is 0.39789",
        best.objective, best.x[0], best.x[1]
    );
    println!("journal: {}", dir.join("journal.jsonl").display());
}
