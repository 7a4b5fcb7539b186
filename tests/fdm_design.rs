//! `oracle fdm` on design problems (`coord`): each design simulated over the field's own
//! coordinates with its values in coefficients, sources and boundary data; sensors and
//! functionals read off the solved grid.

use approx::assert_relative_eq;
use pinnbo_dsl::{compile, Problem, Source};
use pinnbo_fdm::problem::{solve, solve_design, DesignOracle};

fn problem(text: &str) -> Problem {
    match compile(&Source::new("design.pde", text)) {
        Ok(c) => c.problem,
        Err(f) => panic!("{}", f.render(pinnbo_dsl::Style::Plain)),
    }
}

fn check_error(text: &str) -> String {
    match compile(&Source::new("design.pde", text)) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(f) => f.render(pinnbo_dsl::Style::Plain),
    }
}

const ROD: &str = "var q in [0, 10], T0 in [0, 1]\ncoord x in [0, 1]\nfield T(x, q, T0)\n\
    pde -dxx(T) = q\nsensors T at x = 0.1, 0.5, 0.7\n\
    minimize mean(T, x) + integral(T, x) + T(0.7, q, T0)\n\
    subject to hottest: maximum(T, x) <= 1.2\nsubject to coolest: -minimum(T, x) <= 0\n\
    oracle fdm {\n  T = T0 at x = 0\n  T = 0 at x = 1\n}\n";

/// The rod's exact field, T0 (1 - x) + q x (1 - x) / 2, and what the file reads of it.
#[test]
fn a_heated_rods_sensors_and_functionals_match_its_exact_field() {
    let p = problem(ROD);
    let oracle = DesignOracle::new(&p).expect("a rod the solver reads");
    let (q, t0) = (5.0, 0.5);
    let exact = |x: f64| t0 * (1.0 - x) + q * x * (1.0 - x) / 2.0;
    let reading = oracle.evaluate(&[q, t0]).unwrap();
    for (v, x) in reading.sensors.iter().zip([0.1, 0.5, 0.7]) {
        assert_relative_eq!(*v, exact(x), epsilon = 1e-6);
    }
    // The mean and integral of the parabola over [0, 1]: T0/2 + q/12.
    let integral = t0 / 2.0 + q / 12.0;
    let objective = 2.0 * integral + exact(0.7);
    assert_relative_eq!(reading.objectives[0], objective, epsilon = 1e-5);
    // The hottest point is x = 0.5 - T0/q = 0.4, where T = 0.9; the coolest the cold end.
    assert_relative_eq!(reading.constraints[0], 0.9 - 1.2, epsilon = 1e-9);
    assert_relative_eq!(reading.constraints[1], 0.0, epsilon = 1e-12);
}

/// A design's simulation is the file with the design's values written in: the same solver
/// on the same grid gives the same field (here a transient rod whose source moves and a
/// plate whose edge temperature is a design variable).
#[test]
fn a_designs_simulation_equals_the_file_with_its_values_written_in() {
    let cases = [
        (
            "var c in [0.1, 0.9], P in [0, 10]\ncoord x in [0, 1], t in [0, 1]\n\
             field u(x, t, c, P)\npde d(u, t) = 0.1*dxx(u) + P*exp(-((x - c)/0.1)^2)\n\
             minimize u(0.3, 1, c, P)\n\
             oracle fdm {\n points 65\n steps 64\n u = 0 at x = 0\n u = 0 at x = 1\n u = 0 at t = 0\n}\n",
            vec![0.35, 4.0],
            "var x in [0, 1], t in [0, 1]\nfield u(x, t)\n\
             pde d(u, t) = 0.1*dxx(u) + 4*exp(-((x - 0.35)/0.1)^2)\nminimize u\n\
             oracle fdm {\n points 65\n steps 64\n u = 0 at x = 0\n u = 0 at x = 1\n u = 0 at t = 0\n}\n",
        ),
        (
            "var g in [0, 2], k in [1, 3]\ncoord x in [0, 1], y in [0, 1]\nfield T(x, y, g, k)\n\
             pde k*laplacian(T) = -1\nminimize T(0.5, 0.5, g, k)\n\
             oracle fdm {\n grid 33 x 33\n T = g at x = 0\n T = 0 at x = 1\n T = 0 at y = 0\n T = 0 at y = 1\n}\n",
            vec![1.5, 2.0],
            "var x in [0, 1], y in [0, 1]\nfield T(x, y)\npde 2*laplacian(T) = -1\nminimize T\n\
             oracle fdm {\n grid 33 x 33\n T = 1.5 at x = 0\n T = 0 at x = 1\n T = 0 at y = 0\n T = 0 at y = 1\n}\n",
        ),
    ];
    for (design, point, written) in cases {
        let p = problem(design);
        let simulated = solve_design(&p, &point).unwrap();
        let reference = solve(&problem(written)).unwrap();
        assert_eq!(simulated.model, reference.model);
        assert_eq!(simulated.field.values.len(), reference.field.values.len());
        for (a, b) in simulated.field.values.iter().zip(&reference.field.values) {
            assert_relative_eq!(*a, *b, epsilon = 1e-12);
        }
        // The field's coordinates are the problem's own, numbered after the design.
        assert_eq!(simulated.args, vec![2, 3]);
    }
}

/// A uniform cantilever of stiffness h0^3 under a load q: tip deflection q / (8 h0^3); the
/// design enters the stiffness, the load and the moment and shear conditions.
#[test]
fn a_cantilevers_stiffness_follows_the_design() {
    let p = problem(
        "var h0 in [0.5, 2]\ncoord x in [0, 1]\nfield w(x, h0)\n\
         pde dxx(h0^3 * dxx(w)) = 1 + h0\nminimize w(1, h0)\n\
         oracle fdm {\n points 1025\n w = 0 at x = 0\n d(w, x) = 0 at x = 0\n\
         h0^3 * dxx(w) = 0 at x = 1\n d(h0^3 * dxx(w), x) = 0 at x = 1\n}\n",
    );
    let oracle = DesignOracle::new(&p).unwrap();
    for h0 in [0.5, 1.0, 1.7] {
        let tip = oracle.evaluate(&[h0]).unwrap().objectives[0];
        assert_relative_eq!(tip, (1.0 + h0) / (8.0 * h0.powi(3)), max_relative = 1e-5);
    }
}

/// A fin cooled along its length with a Robin tip: the rod solver's reaction and Robin terms,
/// against cosh/sinh. m^2 = h, tip loss d(T, x) + b T = 0:
/// T = (cosh(m(1-x)) + (b/m) sinh(m(1-x))) / (cosh m + (b/m) sinh m).
#[test]
fn a_cooling_fin_with_a_robin_tip_matches_its_closed_form() {
    let p = problem(
        "var h in [1, 9], b in [0, 2]\ncoord x in [0, 1]\nfield T(x, h, b)\n\
         pde dxx(T) - h*T = 0\nsensors T at x = 0.25, 0.5, 1\nminimize mean(T, x)\n\
         oracle fdm {\n T = 1 at x = 0\n d(T, x) + b*T = 0 at x = 1\n}\n",
    );
    let oracle = DesignOracle::new(&p).unwrap();
    let (h, b) = (4.0_f64, 0.5);
    let m = h.sqrt();
    let exact = |x: f64| {
        let s = m * (1.0 - x);
        (s.cosh() + b / m * s.sinh()) / (m.cosh() + b / m * m.sinh())
    };
    let reading = oracle.evaluate(&[h, b]).unwrap();
    for (v, x) in reading.sensors.iter().zip([0.25, 0.5, 1.0]) {
        assert_relative_eq!(*v, exact(x), max_relative = 1e-5);
    }
}

/// Data that fails at some designs fails those evaluations, with the reason; an equation the
/// solvers cannot read is refused before any.
#[test]
fn a_design_that_breaks_the_data_fails_alone() {
    let p = problem(
        "var a in [-1, 1]\ncoord x in [0, 1]\nfield T(x, a)\npde -dxx(T) = log(a)\n\
         minimize T(0.5, a)\noracle fdm {\n T = 0 at x = 0\n T = 0 at x = 1\n}\n",
    );
    let oracle = DesignOracle::new(&p).expect("the centre's data fails only there");
    let e = oracle.evaluate(&[-0.5]).unwrap_err();
    assert!(e.0.message.contains("the source is NaN"), "{}", e.0.message);
    assert_relative_eq!(
        oracle.evaluate(&[1.0]).unwrap().objectives[0],
        0.0,
        epsilon = 1e-12
    );
    let nonlinear = problem(
        "var a in [0, 1]\ncoord x in [0, 1]\nfield T(x, a)\npde -dxx(T) + T^2 = a\n\
         minimize T(0.5, a)\noracle fdm {\n T = 0 at x = 0\n T = 0 at x = 1\n}\n",
    );
    let e = DesignOracle::new(&nonlinear).unwrap_err();
    assert_eq!(e.0.code, "fdm::unsupported-pde");
    // A design problem has no single reference field.
    assert_eq!(solve(&p).unwrap_err().0.code, "fdm::design");
}

/// The checks of an fdm oracle over coordinates, located.
#[test]
fn an_fdm_oracle_over_coordinates_is_checked() {
    let along_design = check_error(
        "var a in [0, 1]\ncoord x in [0, 1]\nfield T(x, a)\npde dxx(T) + d(T, a) = 0\n\
         minimize T(0.5, a)\noracle fdm {\n T = 0 at x = 0\n T = 0 at x = 1\n}\n",
    );
    assert!(
        along_design.contains("along the design variable `a`")
            && along_design.contains("design.pde:4:1"),
        "{along_design}"
    );
    let design_face = check_error(
        "var a in [0, 1]\ncoord x in [0, 1]\nfield T(x, a)\npde dxx(T) = 0\n\
         minimize T(0.5, a)\noracle fdm {\n T = 0 at x = 0\n T = 0 at a = 1\n}\n",
    );
    assert!(
        design_face.contains("`a` is not a coordinate of `T`"),
        "{design_face}"
    );
    let missing = check_error(
        "var a in [0, 1]\ncoord x in [0, 1]\nfield T(x, a)\npde dxx(T) = a\n\
         minimize T(0.5, a)\noracle fdm {\n T = 0 at x = 0\n}\n",
    );
    assert!(
        missing.contains("missing boundary condition for `T` at x = 1"),
        "{missing}"
    );
}

/// With field coordinates, `laplacian` (and `grad`, `div`, `biharmonic`) acts along them
/// only: the design variables are the field's parameters.
#[test]
fn operators_act_along_a_fields_coordinates_only() {
    let p = problem(
        "var a in [0, 1]\ncoord x in [0, 1], y in [0, 1]\nfield T(x, y, a)\n\
         pde laplacian(T) + biharmonic(T) = a\nminimize T(0.5, 0.5, a)\noracle external\n",
    );
    let pde = &p.pdes[0];
    assert_eq!(
        [pde.order_in(0), pde.order_in(1), pde.order_in(2)],
        [0, 4, 4]
    );
}
