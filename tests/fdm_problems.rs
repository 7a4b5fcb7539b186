//! `oracle fdm` blocks end to end: `.pde` text -> checked problem -> solver -> queried field.

use pinnbo_dsl::ir::{Oracle, SettingValue};
use pinnbo_dsl::{compile, Problem, Source};
use pinnbo_fdm::problem::{solve, FieldOracle, Model, SetupError};
use std::f64::consts::PI;

fn problem_file(name: &str) -> Problem {
    let path = format!("{}/../../problems/{name}", env!("CARGO_MANIFEST_DIR"));
    pinnbo_dsl::load(std::path::Path::new(&path))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .problem
}

fn problem(text: &str) -> Problem {
    match compile(&Source::new("test.pde", text)) {
        Ok(c) => c.problem,
        Err(f) => panic!("{}", f.render(pinnbo_dsl::Style::Plain)),
    }
}

fn oracle(p: &Problem) -> FieldOracle {
    FieldOracle::new(p, solve(p).unwrap_or_else(|e| panic!("{}", render(p, e)))).unwrap()
}

fn render(p: &Problem, e: SetupError) -> String {
    e.render(p, pinnbo_dsl::Style::Plain)
}

/// Sets an oracle setting, as if the file had said it.
fn set(p: &mut Problem, key: &str, value: SettingValue) {
    let Oracle::Fdm(o) = &mut p.oracle else {
        panic!("not an fdm problem")
    };
    o.settings.0.insert(key.into(), value);
}

#[test]
fn thesis_beam_from_its_file_matches_the_exact_solution() {
    let p = problem_file("beam.pde");
    let o = oracle(&p);
    assert_eq!(o.solved().model, Model::Beam);
    let w = |x: f64| {
        (4.0 * PI * (2.0 * x).exp()).sin()
            + (2.0 * x).exp() * (20.0 * x).sin()
            + 0.4 * x.powi(3)
            + 0.2 * x * x
    };
    let err = (0..4001)
        .map(|k| k as f64 / 4000.0)
        .map(|x| (o.evaluate(&[x]).objective - w(x)).abs())
        .fold(0.0, f64::max);
    assert!(err < 1e-4, "max error at 4001 points {err:e}");
    let min = o.solved().field.min();
    assert!((min.point[0] - 0.883_697_13).abs() < 1e-3, "{min:?}");
    assert!((min.value - p.optimum.unwrap()).abs() < 1e-4, "{min:?}");
}

#[test]
fn beam_supports_read_from_conditions() {
    // A uniform cantilever (clamped at 0, free at 1) under a uniform load q: w = q x²(6 - 4x + x²)/24EI.
    let p = problem(
        "var x in [0, 1]\nfield w(x)\npde 2*d(w, x, 4) = 3\nminimize w\noracle fdm {\n  points 2001\n  \
         w = 0 at x = 0\n  d(w, x) = 0 at x = 0\n  2*dxx(w) = 0 at x = 1\n  2*d(w, x, 3) = 0 at x = 1\n}",
    );
    let o = oracle(&p);
    let exact = |x: f64| 1.5 * x * x * (6.0 - 4.0 * x + x * x) / 24.0;
    for x in [0.1, 0.37, 0.8, 1.0] {
        let v = o.evaluate(&[x]).objective;
        assert!(
            (v - exact(x)).abs() < 1e-6,
            "w({x}) = {v}, exact {}",
            exact(x)
        );
    }
}

/// Max difference between two solutions at the coarse grid's nodes at least `margin` (a
/// fraction of each side) from the boundary.
fn compare(coarse: &pinnbo_fdm::Field, fine: &pinnbo_fdm::Field, margin: f64) -> f64 {
    (0..coarse.values.len())
        .filter_map(|k| {
            let node = coarse.node(&coarse.index(k));
            let inside = node.iter().zip(&coarse.axes).all(|(&x, a)| {
                let m = margin * (a.hi - a.lo);
                x >= a.lo + m - 1e-12 && x <= a.hi - m + 1e-12
            });
            inside.then(|| (coarse.values[k] - fine.at(&node)).abs())
        })
        .fold(0.0, f64::max)
}

#[test]
fn heat_sets_converge_at_second_order_and_obey_the_maximum_principle() {
    for name in ["heat1.pde", "heat2.pde", "heat3.pde"] {
        let mut p = problem_file(name);
        let mut fields = Vec::new();
        for n in [65, 129, 257] {
            set(&mut p, "grid", SettingValue::Dims(vec![n, n]));
            fields.push(solve(&p).unwrap().field);
        }
        // Away from the edges (10% of the side), where the data's own roughness (corner
        // jumps, heat set 1's unresolved oscillation and square-root kinks) does not reach.
        let (d1, d2) = (
            compare(&fields[0], &fields[1], 0.1),
            compare(&fields[1], &fields[2], 0.1),
        );
        let order = (d1 / d2).log2();
        eprintln!("{name}: differences {d1:.3e} -> {d2:.3e}, order {order:.2}");
        assert!((1.8..2.2).contains(&order), "{name}: order {order}");

        let finest = &fields[2];
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut interior = Vec::new();
        for k in 0..finest.values.len() {
            let idx = finest.index(k);
            let boundary = idx
                .iter()
                .zip(&finest.axes)
                .any(|(&i, a)| i == 0 || i + 1 == a.n);
            if boundary {
                lo = lo.min(finest.values[k]);
                hi = hi.max(finest.values[k]);
            } else {
                interior.push(finest.values[k]);
            }
        }
        assert!(
            interior.iter().all(|&v| lo <= v && v <= hi),
            "{name}: interior leaves [{lo}, {hi}]"
        );
    }
}

#[test]
fn steady_heat_with_variable_conductivity_and_neumann_edge() {
    // T = e^x sin y, k = 1 + x: div(k grad T) = e^x sin y; the right edge gives dT/dx.
    let p = problem(
        "var x in [0, 1], y in [0, 2]\nfield T(x, y)\npde div((1 + x)*grad(T)) = exp(x)*sin(y)\n\
         maximize T\noracle fdm {\n  grid 129 x 129\n  interpolation cubic\n  T(0, y) = sin(y)\n  \
         d(T, x) = exp(1)*sin(y) at x = 1\n  T(x, 0) = 0\n  T(x, 2) = exp(x)*sin(2)\n}",
    );
    let o = oracle(&p);
    assert_eq!(o.solved().model, Model::SteadyHeat);
    let mut err: f64 = 0.0;
    for (x, y) in [(0.3, 0.4), (0.77, 1.3), (0.999, 1.9), (0.5, 1.0)] {
        err = err.max((o.evaluate(&[x, y]).objective - x.exp() * y.sin()).abs());
    }
    // Second order (O(h²) from the stencil and from cell-averaged edge data): 1.2e-4 measured.
    assert!(err < 3e-4, "max error {err:e}");
}

#[test]
fn best_node_is_the_feasible_optimum_of_the_reference_field() {
    // T = e^x sin y again, with a constraint that cuts the hottest region off.
    let text = |constraint: &str| {
        format!(
            "var x in [0, 1], y in [0, 2]\nfield T(x, y)\npde laplacian(T) = 0\nmaximize T\n\
             {constraint}\noracle fdm {{\n  grid 65 x 65\n  T(0, y) = sin(y)\n  \
             T(1, y) = exp(1)*sin(y)\n  T(x, 0) = 0\n  T(x, 2) = exp(x)*sin(2)\n}}"
        )
    };
    let free = oracle(&problem(&text("")));
    let best = free.best_node(true).unwrap();
    assert!((best - 1f64.exp()).abs() < 1e-3, "{best}");
    // The least value is on the edge y = 0, where T = 0.
    assert!(free.best_node(false).unwrap().abs() < 1e-12);
    let cut = oracle(&problem(&text("subject to left: x <= 0.5")));
    let best = cut.best_node(true).unwrap();
    assert!((best - 0.5f64.exp()).abs() < 1e-3, "{best}");
    // Nothing feasible: no optimum.
    let none = oracle(&problem(&text("subject to outside: x >= 2")));
    assert_eq!(none.best_node(true), None);
}

#[test]
fn transient_heat_in_one_and_two_dimensions() {
    // u = sin(pi x)(1 + t) with the source that makes it exact, alpha = 0.5.
    let p = problem(
        "var x in [0, 1], t in [0, 0.5]\nfield u(x, t)\n\
         pde d(u, t) = 0.5*dxx(u) + sin(pi*x)*(1 + 0.5*pi^2*(1 + t))\nmaximize u\n\
         oracle fdm {\n  points 129\n  u(x, 0) = sin(pi*x)\n  u(0, t) = 0\n  u(1, t) = 0\n}",
    );
    let o = oracle(&p);
    assert_eq!(o.solved().model, Model::TransientHeat);
    let exact = |x: f64, t: f64| (PI * x).sin() * (1.0 + t);
    for (x, t) in [(0.5, 0.5), (0.21, 0.13), (0.9, 0.31)] {
        let v = o.evaluate(&[x, t]).objective;
        assert!((v - exact(x, t)).abs() < 2e-4, "u({x}, {t}) = {v}");
    }

    // A decaying mode on the unit square, time scaled by 2 (2 u_t = lap u).
    let p = problem(
        "var x in [0, 1], y in [0, 1], t in [1, 1.1]\nfield u(x, y, t)\n\
         pde 2*d(u, t) - dxx(u) - dyy(u) = 0\nmaximize u\n\
         oracle fdm {\n  grid 65 x 65\n  steps 64\n  u(x, y, 1) = sin(pi*x)*sin(pi*y)\n  \
         u(0, y, t) = 0\n  u(1, y, t) = 0\n  u(x, 0, t) = 0\n  u(x, 1, t) = 0\n}",
    );
    let o = oracle(&p);
    let exact =
        |x: f64, y: f64, t: f64| (PI * x).sin() * (PI * y).sin() * (-PI * PI * (t - 1.0)).exp();
    for (x, y, t) in [(0.5, 0.5, 1.1), (0.3, 0.6, 1.05)] {
        let v = o.evaluate(&[x, y, t]).objective;
        let rel = (v - exact(x, y, t)).abs() / exact(x, y, t);
        assert!(rel < 2e-3, "u({x}, {y}, {t}) = {v}, relative error {rel:e}");
    }
}

/// The error a problem's oracle gives, rendered as the CLI shows it.
fn setup_error(text: &str) -> (String, String) {
    let p = problem(text);
    let e = solve(&p).expect_err("should be refused");
    (e.0.code.to_string(), render(&p, e))
}

#[test]
fn unsupported_and_bad_inputs_are_located_in_the_file() {
    let plate = |pde: &str, bottom: &str| {
        format!(
            "var x in [0, 1], y in [0, 1]\nfield T(x, y)\npde {pde}\nmaximize T\noracle fdm {{\n  \
             grid 17 x 17\n  T(0, y) = 0\n  T(1, y) = 0\n  {bottom}\n  T(x, 1) = 0\n}}"
        )
    };
    let cases = [
        (
            plate("laplacian(T) + T^2 = 0", "T(x, 0) = 1"),
            "fdm::unsupported-pde",
            "test.pde:3:1",
            "nonlinear",
        ),
        (
            plate("dxx(T) + 2*dyy(T) = 0", "T(x, 0) = 1"),
            "fdm::unsupported-pde",
            "test.pde:3:1",
            "anisotropic",
        ),
        (
            plate("laplacian(T) = 0", "T + d(T, y) = 0 at y = 0"),
            "fdm::condition",
            "test.pde:9:3",
            "normal derivative",
        ),
        (
            plate("laplacian(T) = 0", "T(x, 0) = sqrt(x - 0.5)"),
            "fdm::non-finite",
            "test.pde:9:3",
            "the boundary data on y = 0 is NaN at x = ",
        ),
        (
            plate("laplacian(T) = 1/(x - 0.5)", "T(x, 0) = 0"),
            "fdm::non-finite",
            "test.pde:3:1",
            "the source is",
        ),
    ];
    for (text, code, place, words) in cases {
        let (got, rendered) = setup_error(&text);
        assert_eq!(got, code, "{rendered}");
        assert!(rendered.contains(place), "{rendered}");
        assert!(
            rendered.contains(words),
            "expected `{words}` in\n{rendered}"
        );
    }

    let (code, rendered) = setup_error(
        "var x in [0, 1], t in [0, 1]\nfield u(x, t)\npde d(u, t) = -dxx(u)\nmaximize u\n\
         oracle fdm {\n  u(x, 0) = 0\n  u(0, t) = 0\n  u(1, t) = 0\n}",
    );
    assert_eq!(code, "fdm::unsupported-pde");
    assert!(
        rendered.contains("backward in time is ill-posed"),
        "{rendered}"
    );

    let (code, rendered) = setup_error(
        &plate("laplacian(T) = 0", "T(x, 0) = 1").replace("grid 17 x 17", "grid 200001 x 200001"),
    );
    assert_eq!(code, "fdm::grid");
    assert!(rendered.contains("MiB, above the limit"), "{rendered}");
}

/// Every size a file controls is checked against the `memory` setting before anything is
/// allocated: time steps (the whole history is kept), a beam's points, a plate's grid.
#[test]
fn sizes_beyond_the_memory_setting_are_refused_before_allocating() {
    let rod = |settings: &str| {
        format!(
            "var x in [0, 1], t in [0, 1]\nfield u(x, t)\npde d(u, t) = dxx(u)\nmaximize u\n\
             oracle fdm {{\n  {settings}\n  u(x, 0) = sin(pi*x)\n  u(0, t) = 0\n  u(1, t) = 0\n}}"
        )
    };
    for settings in [
        "points 33, steps 100000000000",
        "grid 33 x 33, steps 1000000000",
    ] {
        let text = if settings.starts_with("grid") {
            rod(settings)
                .replace("var x in [0, 1], t", "var x in [0, 1], y in [0, 1], t")
                .replace("u(x, t)", "u(x, y, t)")
                .replace("dxx(u)", "dxx(u) + dyy(u)")
                .replace("u(x, 0) = sin(pi*x)", "u(x, y, 0) = 0")
                .replace(
                    "u(0, t) = 0\n  u(1, t) = 0",
                    "u(0, y, t) = 0\n  u(1, y, t) = 0\n  u(x, 0, t) = 0\n  u(x, 1, t) = 0",
                )
        } else {
            rod(settings)
        };
        let (code, rendered) = setup_error(&text);
        assert_eq!(code, "fdm::grid", "{rendered}");
        assert!(
            rendered.contains("above the limit of 8192 MiB"),
            "{rendered}"
        );
        assert!(rendered.contains("test.pde:5:1"), "{rendered}");
    }
    // The same rod within a raised limit is solved; below it, refused.
    let small = rod("points 33, steps 2000, memory 0.0001");
    let (code, rendered) = setup_error(&small);
    assert_eq!(code, "fdm::grid", "{rendered}");
    assert!(rendered.contains("above the limit of 0 MiB"), "{rendered}");
    assert!(solve(&problem(&rod("points 33, steps 2000"))).is_ok());

    let beam = "var x in [0, 1]\nfield w(x)\npde d(w, x, 4) = 1\nminimize w\n\
                oracle fdm {\n  points 100000000\n  w = 0 at x = 0\n  w = 0 at x = 1\n  \
                d(w, x, 2) = 0 at x = 0\n  d(w, x, 2) = 0 at x = 1\n}";
    let (code, rendered) = setup_error(beam);
    assert_eq!(code, "fdm::grid", "{rendered}");
}
