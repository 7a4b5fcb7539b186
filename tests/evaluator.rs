//! The f64 evaluator: built-ins against Rust's functions, precedence, indexed sums, batches,
//! domain errors, and symbolic derivatives against finite differences.

use approx::assert_relative_eq;
use pinnbo_dsl::{compile, Compiled, Problem, Source};

fn problem(text: &str) -> Problem {
    match compile(&Source::new("test.pde", text)) {
        Ok(c) => c.problem,
        Err(f) => panic!("{}", f.render(pinnbo_dsl::Style::Plain)),
    }
}

/// The objective of `var x in [-10, 10], y in [-10, 10]; minimize <expr>`, compiled.
fn objective(expr: &str) -> Compiled {
    let p = problem(&format!(
        "var x in [-10, 10], y in [-10, 10]\nminimize {expr}"
    ));
    p.closed_form_objective().expect("closed form")
}

type Unary = fn(f64) -> f64;
type Binary = fn(f64, f64) -> f64;

#[test]
fn every_builtin_matches_rust() {
    let unary: [(&str, Unary); 13] = [
        ("sin", f64::sin),
        ("cos", f64::cos),
        ("tan", f64::tan),
        ("asin", f64::asin),
        ("acos", f64::acos),
        ("atan", f64::atan),
        ("sinh", f64::sinh),
        ("cosh", f64::cosh),
        ("tanh", f64::tanh),
        ("exp", f64::exp),
        ("log", f64::ln),
        ("sqrt", f64::sqrt),
        ("abs", f64::abs),
    ];
    let points = [0.31, 0.77, -0.42, 0.05];
    for (name, f) in unary {
        let c = objective(&format!("{name}(x)"));
        for &x in &points {
            let expected = f(x);
            let got = c.eval(&[x, 0.0]);
            if expected.is_nan() {
                assert!(got.is_nan(), "{name}({x}) should be NaN, got {got}");
            } else {
                assert_eq!(got, expected, "{name}({x})");
            }
        }
    }
    let binary: [(&str, Binary); 4] = [
        ("atan2", f64::atan2),
        ("min", f64::min),
        ("max", f64::max),
        ("pow", f64::powf),
    ];
    for (name, f) in binary {
        let c = objective(&format!("{name}(x, y)"));
        for (x, y) in [(0.3, 1.7), (-2.0, 0.5), (1.5, -0.25), (2.0, 3.0)] {
            let got = c.eval(&[x, y]);
            let expected = f(x, y);
            let same = (got.is_nan() && expected.is_nan())
                || (got - expected).abs() <= 1e-15 * expected.abs().max(1.0);
            assert!(same, "{name}({x}, {y}): {got} vs {expected}");
        }
    }
    assert_eq!(objective("pi").eval(&[0.0, 0.0]), std::f64::consts::PI);
    assert_eq!(objective("e").eval(&[0.0, 0.0]), std::f64::consts::E);
}

#[test]
fn precedence_and_associativity() {
    let at = |expr: &str| objective(expr).eval(&[3.0, 2.0]);
    assert_eq!(at("-2^2"), -4.0);
    assert_eq!(at("2^3^2"), 512.0);
    assert_eq!(at("(-2)^2"), 4.0);
    assert_eq!(at("(-2)^3"), -8.0);
    assert_eq!(at("2^-1"), 0.5);
    assert_eq!(at("10 - 4 - 3"), 3.0);
    assert_eq!(at("48 / 4 / 2"), 6.0);
    assert_eq!(at("1 + 2 * 3 ^ 2"), 19.0);
    assert_eq!(at("-x^2 + y"), -7.0);
    assert_eq!(at("x ** 2"), 9.0);
    assert_eq!(at("50%"), 0.5);
    assert_relative_eq!(at("1.5e-3 * 2E2"), 0.3, max_relative = 1e-15);
}

#[test]
fn domain_errors_give_nan_not_panics() {
    for expr in [
        "sqrt(x - 5)",
        "log(x - 3)",
        "log(0 * x)",
        "asin(x)",
        "(x - 3)^0.5 * (y - 5)^0.5",
    ] {
        assert!(objective(expr).eval(&[3.0, 2.0]).is_nan(), "{expr}");
    }
    assert!(objective("1 / (x - 3)").eval(&[3.0, 2.0]).is_infinite());
}

#[test]
fn indexed_sums_equal_hand_expanded_sums() {
    let summed = problem(
        "const m = 2\nvar x[4] in [0, 3]\nminimize sum(i, i * sin(x[i])^(2*m)) + sum(i in 2..3, x[i]*x[i-1]) + sum(x^2)",
    );
    let expanded = problem(
        "var a in [0, 3], b in [0, 3], c in [0, 3], d in [0, 3]\n\
         minimize 1*sin(a)^4 + 2*sin(b)^4 + 3*sin(c)^4 + 4*sin(d)^4 + b*a + c*b + a^2 + b^2 + c^2 + d^2",
    );
    let (s, e) = (
        summed.closed_form_objective().unwrap(),
        expanded.closed_form_objective().unwrap(),
    );
    for pt in [[0.1, 0.7, 1.3, 2.9], [2.5, 0.0, 1.0, 0.4]] {
        assert_relative_eq!(s.eval(&pt), e.eval(&pt), max_relative = 1e-14);
    }
}

#[test]
fn batches_match_single_points_serial_and_parallel() {
    let c = objective("sin(3*x)*exp(-y^2) + x^3/(1 + y^2) - max(x, y)");
    let n = 100_003; // above the parallel threshold, not a multiple of the chunk size
    let points: Vec<f64> = (0..n)
        .flat_map(|i| {
            let t = i as f64 / n as f64;
            [20.0 * t - 10.0, (37.0 * t).sin() * 10.0]
        })
        .collect();
    let mut out = vec![0.0; n];
    c.eval_batch(&points, &mut out);
    for i in (0..n).step_by(997).chain([n - 1]) {
        assert_eq!(out[i], c.eval(&points[2 * i..2 * i + 2]), "point {i}");
    }
}

#[test]
fn symbolic_derivatives_match_finite_differences() {
    // pde residual of a closed-form field: d/dx and d2/dxdy expanded symbolically.
    let p = problem(
        "var x in [0.1, 2], y in [0.1, 2]\n\
         field u(x, y) = sin(x*y) * exp(-x) + sqrt(x + y^2) + atan2(y, x) + x^y + min(x, 2*y) + log(cosh(y))\n\
         pde d(u, x) = 0\npde d(u, x, y) = 0\nminimize u",
    );
    let u = p.closed_form_objective().unwrap();
    let dx = p.closed_form(&p.pdes[0].lhs).unwrap();
    let dxy = p.closed_form(&p.pdes[1].lhs).unwrap();
    let h = 1e-5;
    for (x, y) in [(0.7, 1.3), (1.4, 0.9), (0.3, 0.5)] {
        let fd_x = (u.eval(&[x + h, y]) - u.eval(&[x - h, y])) / (2.0 * h);
        assert_relative_eq!(dx.eval(&[x, y]), fd_x, max_relative = 1e-8);
        let g = |x: f64| (u.eval(&[x, y + h]) - u.eval(&[x, y - h])) / (2.0 * h);
        let fd_xy = (g(x + h) - g(x - h)) / (2.0 * h);
        assert_relative_eq!(dxy.eval(&[x, y]), fd_xy, max_relative = 1e-4);
    }
}
