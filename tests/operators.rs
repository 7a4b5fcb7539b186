//! A library user registers a new operator, writes a `.pde` file with it, and solves.

use candle_core::{Device, Tensor};
use pinnbo_ad::collocation::{residual_terms, CollocationConfig};
use pinnbo_ad::sampling::{in_box, Sampling};
use pinnbo_ad::train::{train, Observations, TrainConfig};
use pinnbo_ad::{LoweringContext, Mlp, MlpConfig, Operator, OperatorRegistry, Residual};
use pinnbo_dsl::ir::{BinaryOp, Expr, Problem};
use pinnbo_dsl::{compile_with, OperatorSignature, Source};

/// `advect(u) = d(u, t) + d(u, x)`: transport at unit speed.
struct Advect;

impl Operator for Advect {
    fn signature(&self) -> OperatorSignature {
        OperatorSignature {
            name: "advect".into(),
            arity: 1,
            order: 1,
            summary: "d(u, t) + d(u, x)".into(),
        }
    }

    fn lower(&self, args: &[Expr], cx: &LoweringContext) -> Result<Expr, String> {
        let u = &args[0];
        Ok(Expr::binary(
            BinaryOp::Add,
            cx.diff(u.clone(), "t")?,
            cx.diff(u.clone(), "x")?,
        ))
    }
}

const ADVECTION: &str = "var x in [0, 1], t in [0, 0.5]\nfield u(x, t)\npde advect(u) = 0\n\
                         minimize u\noracle command \"./measure {x} {t}\"";

fn registry() -> OperatorRegistry {
    let mut ops = OperatorRegistry::new();
    ops.register(Advect).unwrap();
    ops
}

fn problem(text: &str, ops: &OperatorRegistry) -> Problem {
    match compile_with(&Source::new("advection.pde", text), ops.signatures()) {
        Ok(c) => c.problem,
        Err(f) => panic!("{}", f.render(pinnbo_dsl::Style::Plain)),
    }
}

fn network() -> Mlp {
    let config = MlpConfig::new(2, 24, 3);
    Mlp::new(config, 5, &Device::Cpu).unwrap()
}

#[test]
fn a_registered_operator_compiles_like_its_expansion() {
    let ops = registry();
    let with_op = problem(ADVECTION, &ops);
    let spelled = problem(&ADVECTION.replace("advect(u)", "d(u, t) + d(u, x)"), &ops);
    let net = network();
    let points = Tensor::new(&[[0.1f64, 0.2], [0.6, 0.4]], &Device::Cpu).unwrap();
    let eval = |p: &Problem| -> Vec<f64> {
        Residual::with_operators(p, &p.pdes[0], 0, &ops)
            .unwrap()
            .evaluate(&net, &points)
            .unwrap()
            .to_vec1()
            .unwrap()
    };
    assert_eq!(eval(&with_op), eval(&spelled));
    let unregistered = Residual::new(&with_op, &with_op.pdes[0], 0).unwrap_err();
    assert_eq!(
        unregistered.to_string(),
        "cannot lower an operator: the operator `advect` is not registered"
    );
}

#[test]
fn a_problem_with_the_new_operator_is_solved() {
    // u = sin(2 pi (x - t)), observed on the inflow edge x = 0 and at t = 0.
    let ops = registry();
    let p = problem(ADVECTION, &ops);
    let exact = |x: f64, t: f64| (2.0 * std::f64::consts::PI * (x - t)).sin();
    let mut observed = Vec::new();
    for k in 0..=32 {
        let s = k as f64 / 32.0;
        observed.push([s, 0.0]);
        observed.push([0.0, 0.5 * s]);
    }
    let values: Vec<f64> = observed.iter().map(|q| exact(q[0], q[1])).collect();
    let data = Observations {
        points: Tensor::from_vec(observed.concat(), (observed.len(), 2), &Device::Cpu).unwrap(),
        values: Tensor::new(values.as_slice(), &Device::Cpu).unwrap(),
    };
    let net = network();
    let collocation = CollocationConfig {
        pde_weight: 0.1,
        ..CollocationConfig::sobol(256, 0, 3)
    };
    let (terms, _) = residual_terms(&p, 0, &net, &collocation, &ops, false).unwrap();
    let config = TrainConfig {
        epochs: 1500,
        lr: 1e-2,
        lr_decay: 0.9,
        decay_every: 150,
        ..TrainConfig::default()
    };
    train(&net, Some(&data), &terms, &config).unwrap();
    let probe = in_box(&[(0.0, 1.0), (0.0, 0.5)], 400, Sampling::Uniform, 9);
    let rel = net
        .relative_l2_error(&probe, |q| exact(q[0], q[1]))
        .unwrap();
    eprintln!("advection with a registered operator: relative L2 error {rel:.2e}");
    assert!(rel < 2e-2, "relative L2 error {rel:e}");
}
