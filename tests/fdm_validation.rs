//! Finite-difference solvers against manufactured solutions: measured convergence orders,
//! the thesis beam's exact solution, decay of a Fourier mode, guard rails.

use pinnbo_fdm::poisson::{EdgeData, Edges, Poisson2d};
use pinnbo_fdm::{Axis, FdmError};

/// Observed order from errors on grids with spacing h, h/2, h/4, ...: every successive ratio.
fn orders(errors: &[f64]) -> Vec<f64> {
    errors.windows(2).map(|w| (w[0] / w[1]).log2()).collect()
}

fn assert_second_order(what: &str, errors: &[f64]) {
    let p = orders(errors);
    let shown: Vec<String> = errors.iter().map(|e| format!("{e:.2e}")).collect();
    eprintln!(
        "{what}: max errors [{}], observed orders {p:.3?}",
        shown.join(", ")
    );
    for o in &p {
        assert!(
            (1.9..=2.1).contains(o),
            "{what}: errors {errors:?} give orders {p:?}"
        );
    }
}

#[test]
fn poisson_variable_conductivity_mixed_edges_is_second_order() {
    // u = e^x sin y + x y^2, k = 1 + x y / 2 on [0, 1] x [0, 1.5].
    let u = |x: f64, y: f64| x.exp() * y.sin() + x * y * y;
    let k = |x: f64, y: f64| 1.0 + 0.5 * x * y;
    let f = |x: f64, y: f64| {
        0.5 * y * (x.exp() * y.sin() + y * y)
            + 0.5 * x * (x.exp() * y.cos() + 2.0 * x * y)
            + 2.0 * x * k(x, y)
    };
    let left = |y: f64| u(0.0, y);
    let top = |x: f64| u(x, 1.5);
    let right_dx = |y: f64| 1f64.exp() * y.sin() + y * y; // du/dx at x = 1
    let bottom_dy = |x: f64| x.exp(); // du/dy at y = 0
    let mut errors = Vec::new();
    for n in [17, 33, 65, 129] {
        let problem = Poisson2d {
            x: Axis::new(0.0, 1.0, n).unwrap(),
            y: Axis::new(0.0, 1.5, n).unwrap(),
            conductivity: &k,
            source: &f,
            edges: Edges {
                left: EdgeData::Dirichlet(&left),
                right: EdgeData::Neumann(&right_dx),
                bottom: EdgeData::Neumann(&bottom_dy),
                top: EdgeData::Dirichlet(&top),
            },
        };
        let field = problem.solve().unwrap();
        let mut err: f64 = 0.0;
        for j in 0..n {
            for i in 0..n {
                err = err
                    .max((field.value(&[i, j]) - u(field.axes[0].x(i), field.axes[1].x(j))).abs());
            }
        }
        errors.push(err);
    }
    assert_second_order("poisson, mixed edges", &errors);
}

#[test]
fn laplace_harmonic_solution_converges_and_obeys_the_maximum_principle() {
    let u = |x: f64, y: f64| x.exp() * y.sin();
    let (left, right) = (|y: f64| u(0.0, y), |y: f64| u(1.0, y));
    let (bottom, top) = (|x: f64| u(x, 0.0), |x: f64| u(x, 2.0));
    let one = |_: f64, _: f64| 1.0;
    let zero = |_: f64, _: f64| 0.0;
    let mut errors = Vec::new();
    for n in [17, 33, 65, 129] {
        let field = Poisson2d {
            x: Axis::new(0.0, 1.0, n).unwrap(),
            y: Axis::new(0.0, 2.0, n).unwrap(),
            conductivity: &one,
            source: &zero,
            edges: Edges {
                left: EdgeData::Dirichlet(&left),
                right: EdgeData::Dirichlet(&right),
                bottom: EdgeData::Dirichlet(&bottom),
                top: EdgeData::Dirichlet(&top),
            },
        }
        .solve()
        .unwrap();
        let (mut err, mut boundary_max, mut interior_max): (f64, f64, f64) =
            (0.0, f64::MIN, f64::MIN);
        for j in 0..n {
            for i in 0..n {
                let v = field.value(&[i, j]);
                err = err.max((v - u(field.axes[0].x(i), field.axes[1].x(j))).abs());
                if i == 0 || j == 0 || i + 1 == n || j + 1 == n {
                    boundary_max = boundary_max.max(v);
                } else {
                    interior_max = interior_max.max(v);
                }
            }
        }
        assert!(interior_max <= boundary_max, "maximum principle");
        errors.push(err);
    }
    assert_second_order("laplace", &errors);
}

#[test]
fn pure_neumann_and_non_finite_data_are_reported() {
    let one = |_: f64, _: f64| 1.0;
    let g = |_: f64| 0.0;
    let neumann_everywhere = Poisson2d {
        x: Axis::new(0.0, 1.0, 9).unwrap(),
        y: Axis::new(0.0, 1.0, 9).unwrap(),
        conductivity: &one,
        source: &one,
        edges: Edges {
            left: EdgeData::Neumann(&g),
            right: EdgeData::Neumann(&g),
            bottom: EdgeData::Neumann(&g),
            top: EdgeData::Neumann(&g),
        },
    };
    assert!(matches!(
        neumann_everywhere.solve(),
        Err(FdmError::IllPosed(_))
    ));

    let k = |x: f64, _: f64| 1.0 / (x - 0.5); // infinite at x = 0.5 - h/2 + h/2
    let bad = Poisson2d {
        x: Axis::new(0.0, 1.0, 9).unwrap(),
        y: Axis::new(0.0, 1.0, 9).unwrap(),
        conductivity: &k,
        source: &one,
        edges: Edges {
            left: EdgeData::Dirichlet(&g),
            right: EdgeData::Dirichlet(&g),
            bottom: EdgeData::Dirichlet(&g),
            top: EdgeData::Dirichlet(&g),
        },
    };
    match bad.solve() {
        Err(FdmError::NonFinite { what, location }) => {
            assert_eq!(what, "the conductivity");
            assert!(location.contains("x = 0.5"), "{location}");
        }
        other => panic!("expected a non-finite conductivity error, got {other:?}"),
    }
}

mod beam {
    use super::assert_second_order;
    use pinnbo_fdm::beam::{Beam, BeamCondition::*, DEFAULT_POINTS};
    use pinnbo_fdm::{Axis, FdmError};
    use std::f64::consts::PI;

    /// The thesis beam: EI = e^x / rho, q = e^x, exact w below, M = EI w'' = e^x.
    fn rho(x: f64) -> f64 {
        2.4 * x
            - 64.0 * PI * PI * (4.0 * x).exp() * (4.0 * PI * (2.0 * x).exp()).sin()
            - 396.0 * (2.0 * x).exp() * (20.0 * x).sin()
            + 80.0 * (2.0 * x).exp() * (20.0 * x).cos()
            + 16.0 * PI * (2.0 * x).exp() * (4.0 * PI * (2.0 * x).exp()).cos()
            + 0.4
    }
    fn w(x: f64) -> f64 {
        (4.0 * PI * (2.0 * x).exp()).sin()
            + (2.0 * x).exp() * (20.0 * x).sin()
            + 0.4 * x.powi(3)
            + 0.2 * x * x
    }
    fn dw(x: f64) -> f64 {
        8.0 * PI * (2.0 * x).exp() * (4.0 * PI * (2.0 * x).exp()).cos()
            + 2.0 * (2.0 * x).exp() * (20.0 * x).sin()
            + 20.0 * (2.0 * x).exp() * (20.0 * x).cos()
            + 1.2 * x * x
            + 0.4 * x
    }
    const E: f64 = std::f64::consts::E;

    fn solve(
        n: usize,
        left: [pinnbo_fdm::beam::BeamCondition; 2],
        right: [pinnbo_fdm::beam::BeamCondition; 2],
    ) -> Result<pinnbo_fdm::beam::BeamSolution, FdmError> {
        let compliance = |x: f64| rho(x) * (-x).exp();
        let load = |x: f64| x.exp();
        Beam {
            axis: Axis::new(0.0, 1.0, n).unwrap(),
            compliance: &compliance,
            load: &load,
            left,
            right,
        }
        .solve()
    }

    fn max_error(field: &pinnbo_fdm::Field) -> f64 {
        (0..field.axes[0].n)
            .map(|i| (field.values[i] - w(field.axes[0].x(i))).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn thesis_beam_simply_supported_is_second_order() {
        let errors: Vec<f64> = [2049, 4097, 8193, 16385]
            .iter()
            .map(|&n| {
                max_error(
                    &solve(
                        n,
                        [Deflection(w(0.0)), Moment(1.0)],
                        [Deflection(w(1.0)), Moment(E)],
                    )
                    .unwrap()
                    .deflection,
                )
            })
            .collect();
        assert_second_order("beam, deflection + moment at both ends", &errors);
    }

    #[test]
    fn thesis_beam_clamped_free_is_second_order() {
        let errors: Vec<f64> = [2049, 4097, 8193, 16385]
            .iter()
            .map(|&n| {
                max_error(
                    &solve(
                        n,
                        [Deflection(w(0.0)), Slope(dw(0.0))],
                        [Moment(E), Shear(E)],
                    )
                    .unwrap()
                    .deflection,
                )
            })
            .collect();
        assert_second_order("beam, clamped-free", &errors);
    }

    #[test]
    fn thesis_beam_at_4001_points_is_accurate_and_finds_the_minimum() {
        let solution = solve(
            DEFAULT_POINTS,
            [Deflection(w(0.0)), Moment(1.0)],
            [Deflection(w(1.0)), Moment(E)],
        )
        .unwrap();
        let field = &solution.deflection;
        let err = (0..4001)
            .map(|k| k as f64 / 4000.0)
            .map(|x| (field.at(&[x]) - w(x)).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-4, "max error at 4001 points: {err:e}");
        let minimum = field.min();
        let (x_min, w_min) = (minimum.point[0], minimum.value);
        assert!((x_min - 0.883_697_13).abs() < 1e-3, "minimum at {x_min}");
        assert!(
            (w_min - (-5.942_396_336_145_88)).abs() < 1e-4,
            "minimum value {w_min}"
        );
        eprintln!("thesis beam at {DEFAULT_POINTS} points: max error at 4001 query points {err:.2e}, minimum {w_min} at {x_min}");
    }

    #[test]
    fn ill_posed_supports_are_refused() {
        let cases = [
            ([Deflection(0.0), Moment(0.0)], [Moment(0.0), Shear(0.0)]), // pinned-free: rotates
            ([Moment(0.0), Shear(0.0)], [Moment(0.0), Shear(0.0)]),      // free-free
            ([Slope(0.0), Shear(0.0)], [Slope(0.0), Moment(0.0)]),       // no deflection anywhere
            ([Deflection(0.0), Shear(0.0)], [Deflection(0.0), Shear(0.0)]), // moment undetermined
            (
                [Deflection(0.0), Deflection(1.0)],
                [Deflection(0.0), Moment(0.0)],
            ), // same kind twice
        ];
        for (left, right) in cases {
            assert!(
                matches!(solve(101, left, right), Err(FdmError::IllPosed(_))),
                "{left:?} {right:?}"
            );
        }
        assert!(
            solve(
                101,
                [Deflection(0.0), Slope(0.0)],
                [Moment(0.0), Shear(0.0)]
            )
            .is_ok(),
            "a cantilever is fine"
        );
    }
}

mod transient {
    use super::{assert_second_order, orders};
    use pinnbo_fdm::transient::{Heat, Scheme};
    use pinnbo_fdm::{Axis, FdmError};
    use std::f64::consts::PI;

    const ALPHA: f64 = 0.5;
    const T: f64 = 0.2;

    /// Max error at t = T of the decaying mode sin(pi x) [sin(pi y)] with zero boundary data.
    fn mode_error(dims: usize, n: usize, steps: usize, scheme: Scheme) -> f64 {
        let exact = |p: &[f64], t: f64| {
            (-(dims as f64) * ALPHA * PI * PI * t).exp()
                * p.iter().map(|x| (PI * x).sin()).product::<f64>()
        };
        let zero = |_: &[f64], _: f64| 0.0;
        let initial = |p: &[f64]| exact(p, 0.0);
        let heat = Heat {
            axes: vec![Axis::new(0.0, 1.0, n).unwrap(); dims],
            diffusivity: ALPHA,
            source: &zero,
            initial: &initial,
            boundary: &zero,
            scheme,
            steps,
            final_time: T,
        };
        let out = heat.solve(&[0.0, T]).unwrap();
        assert_eq!(out.times, [0.0, T]);
        let u = &out.values[1];
        (0..u.len())
            .map(|k| {
                let (i, j) = (k % n, k / n);
                let p: Vec<f64> = if dims == 1 {
                    vec![out.axes[0].x(i)]
                } else {
                    vec![out.axes[0].x(i), out.axes[1].x(j)]
                };
                (u[k] - exact(&p, T)).abs()
            })
            .fold(0.0, f64::max)
    }

    #[test]
    fn crank_nicolson_mode_decay_is_second_order_in_time_and_space() {
        let one_d: Vec<f64> = [17, 33, 65, 129]
            .iter()
            .map(|&n| mode_error(1, n, n - 1, Scheme::CrankNicolson))
            .collect();
        assert_second_order("heat 1-D, Crank-Nicolson, dt ~ h", &one_d);
        let two_d: Vec<f64> = [9, 17, 33, 65]
            .iter()
            .map(|&n| mode_error(2, n, n - 1, Scheme::CrankNicolson))
            .collect();
        assert_second_order("heat 2-D, Crank-Nicolson, dt ~ h", &two_d);
    }

    #[test]
    fn backward_euler_is_first_order_in_time() {
        let errors: Vec<f64> = [10, 20, 40, 80]
            .iter()
            .map(|&s| mode_error(1, 513, s, Scheme::BackwardEuler))
            .collect();
        let p = orders(&errors);
        assert!(
            p.iter().all(|o| (0.9..=1.1).contains(o)),
            "errors {errors:?}, orders {p:?}"
        );
    }

    #[test]
    fn output_times_must_fall_on_steps() {
        let zero = |_: &[f64], _: f64| 0.0;
        let one = |_: &[f64]| 1.0;
        let heat = Heat {
            axes: vec![Axis::new(0.0, 1.0, 11).unwrap()],
            diffusivity: 1.0,
            source: &zero,
            initial: &one,
            boundary: &zero,
            scheme: Scheme::CrankNicolson,
            steps: 10,
            final_time: 1.0,
        };
        assert!(
            matches!(heat.solve(&[0.35]), Err(FdmError::IllPosed(m)) if m.contains("not a multiple of the time step"))
        );
        assert_eq!(heat.solve(&[0.3, 1.0]).unwrap().times, [0.3, 1.0]);
    }
}
