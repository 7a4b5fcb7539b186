//! Residual graphs compiled from `.pde` text against the same residual expanded by hand from
//! the network's jet (so only the compiler's bookkeeping is under test).

use candle_core::{Device, Tensor};
use pinnbo_ad::{IndexSet, Mlp, MlpConfig, Residual};
use pinnbo_dsl::{compile, Problem, Source};
use std::sync::Arc;

fn problem(text: &str) -> Problem {
    match compile(&Source::new("test.pde", text)) {
        Ok(c) => c.problem,
        Err(f) => panic!("{}", f.render(pinnbo_dsl::Style::Plain)),
    }
}

fn network(inputs: usize) -> Mlp {
    let config = MlpConfig::new(inputs, 8, 2);
    Mlp::new(config, 3, &Device::Cpu).unwrap()
}

fn column(t: &Tensor) -> Vec<f64> {
    t.flatten_all().unwrap().to_vec1().unwrap()
}

fn residual(p: &Problem, net: &Mlp, points: &Tensor) -> Vec<f64> {
    let r = Residual::new(p, &p.pdes[0], 0).unwrap();
    column(&r.evaluate(net, points).unwrap())
}

fn assert_close(got: &[f64], want: &[f64]) {
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 1e-10 * w.abs().max(1.0), "{g} vs {w}");
    }
}

#[test]
fn beam_operator_with_variable_rigidity_expands_by_leibniz() {
    let p = problem(
        "var x in [0, 1]\nfield w(x)\nfn EI(x) = 1 + x^2\npde dxx(EI(x)*dxx(w)) = exp(x)\n\
         minimize w\noracle command \"./m {x}\"",
    );
    let net = network(1);
    let xs = [0.1, 0.45, 0.8];
    let points = Tensor::new(&xs[..], &Device::Cpu)
        .unwrap()
        .reshape((3, 1))
        .unwrap();
    let set = Arc::new(IndexSet::closure(&[vec![0, 0, 0, 0]]));
    let jet = net.forward_jet(&points, &set).unwrap();
    let d = |k: usize| column(&jet.derivative(&vec![0; k]).unwrap());
    let (w2, w3, w4) = (d(2), d(3), d(4));
    // (EI w'')'' = EI w'''' + 2 EI' w''' + EI'' w''
    let want: Vec<f64> = (0..3)
        .map(|i| {
            let x = xs[i];
            (1.0 + x * x) * w4[i] + 4.0 * x * w3[i] + 2.0 * w2[i] - x.exp()
        })
        .collect();
    assert_close(&residual(&p, &net, &points), &want);
}

#[test]
fn laplacian_and_divergence_forms() {
    let p = problem(
        "var x in [0, 1], y in [0, 1]\nfield T(x, y)\npde div((1 + x*y)*grad(T)) = sin(x)\n\
         maximize T\noracle command \"./m {x} {y}\"",
    );
    let net = network(2);
    let pts = [[0.2, 0.3], [0.7, 0.9]];
    let points = Tensor::new(&pts, &Device::Cpu).unwrap();
    let set = Arc::new(IndexSet::closure(&[vec![0, 0], vec![1, 1]]));
    let jet = net.forward_jet(&points, &set).unwrap();
    let d = |a: &[usize]| column(&jet.derivative(a).unwrap());
    let (tx, ty, txx, tyy) = (d(&[0]), d(&[1]), d(&[0, 0]), d(&[1, 1]));
    // (k T_x)_x + (k T_y)_y = k (T_xx + T_yy) + y T_x + x T_y
    let want: Vec<f64> = (0..2)
        .map(|i| {
            let [x, y] = pts[i];
            (1.0 + x * y) * (txx[i] + tyy[i]) + y * tx[i] + x * ty[i] - x.sin()
        })
        .collect();
    assert_close(&residual(&p, &net, &points), &want);
}

#[test]
fn every_builtin_composes_with_the_chain_rule() {
    let net = network(1);
    let xs = [0.15, 0.6];
    let points = Tensor::new(&xs[..], &Device::Cpu)
        .unwrap()
        .reshape((2, 1))
        .unwrap();
    let set = Arc::new(IndexSet::closure(&[vec![0]]));
    let jet = net.forward_jet(&points, &set).unwrap();
    let (u, ux) = (
        column(&jet.value().unwrap()),
        column(&jet.derivative(&[0]).unwrap()),
    );
    // (pde lhs, the derivative d/dx of f(u) by hand, f'(u) u_x)
    type Case = (&'static str, fn(f64, f64, f64) -> f64);
    let cases: [Case; 14] = [
        ("sin(u)", |u, ux, _| u.cos() * ux),
        ("cos(u)", |u, ux, _| -u.sin() * ux),
        ("tan(u)", |u, ux, _| ux / u.cos().powi(2)),
        ("exp(u)", |u, ux, _| u.exp() * ux),
        ("log(2 + u)", |u, ux, _| ux / (2.0 + u)),
        ("sqrt(2 + u)", |u, ux, _| 0.5 * ux / (2.0 + u).sqrt()),
        ("tanh(u)", |u, ux, _| ux / u.cosh().powi(2)),
        ("sinh(u)", |u, ux, _| u.cosh() * ux),
        ("cosh(u)", |u, ux, _| u.sinh() * ux),
        ("atan(u)", |u, ux, _| ux / (1.0 + u * u)),
        ("asin(u/4)", |u, ux, _| {
            0.25 * ux / (1.0 - u * u / 16.0).sqrt()
        }),
        ("acos(u/4)", |u, ux, _| {
            -0.25 * ux / (1.0 - u * u / 16.0).sqrt()
        }),
        ("pow(2 + u, x)", |u, ux, x| {
            (2.0 + u).powf(x) * (x * ux / (2.0 + u) + (2.0 + u).ln())
        }),
        ("atan2(u, 2 + x)", |u, ux, x| {
            ((2.0 + x) * ux - u) / ((2.0 + x).powi(2) + u * u)
        }),
    ];
    for (f, by_hand) in cases {
        let p = problem(&format!(
            "var x in [0, 1]\nfield u(x)\npde d({f}, x) = 0\nminimize u\noracle command \"./m {{x}}\""
        ));
        let want: Vec<f64> = (0..2).map(|i| by_hand(u[i], ux[i], xs[i])).collect();
        let got = residual(&p, &net, &points);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-10 * w.abs().max(1.0), "{f}: {g} vs {w}");
        }
    }
}

#[test]
fn residual_gradients_reach_the_parameters() {
    let p = problem(
        "var x in [0, 1]\nfield u(x)\npde dxx(u) + atan(u) = x\nminimize u\noracle command \"./m {x}\"",
    );
    let net = network(1);
    let points = Tensor::new(&[0.3f64, 0.7], &Device::Cpu)
        .unwrap()
        .reshape((2, 1))
        .unwrap();
    let r = Residual::new(&p, &p.pdes[0], 0).unwrap();
    let loss = r
        .evaluate(&net, &points)
        .unwrap()
        .sqr()
        .unwrap()
        .sum_all()
        .unwrap();
    let grads = loss.backward().unwrap();
    let first = &net.vars()[0];
    let g = column(grads.get(first.as_tensor()).expect("first layer reached"));
    assert!(
        g.iter().any(|v| v.abs() > 1e-8),
        "gradients flow to the first layer"
    );
}

#[test]
fn the_network_stands_for_a_field_even_when_the_file_gives_its_closed_form() {
    let p = problem("var x in [0, 1]\nfield f(x) = x^2\npde d(f, x) = 2*x\nminimize f");
    let net = network(1);
    let xs = [0.2, 0.7];
    let points = Tensor::new(&xs[..], &Device::Cpu)
        .unwrap()
        .reshape((2, 1))
        .unwrap();
    let set = Arc::new(IndexSet::closure(&[vec![0]]));
    let ux = column(
        &net.forward_jet(&points, &set)
            .unwrap()
            .derivative(&[0])
            .unwrap(),
    );
    let want: Vec<f64> = (0..2).map(|i| ux[i] - 2.0 * xs[i]).collect();
    assert_close(&residual(&p, &net, &points), &want);
}

/// `laplacian(u)` in 2-D and 5-D is carried as one collapsed coefficient (value, gradient,
/// sum) and equals u_xx + u_yy (+ ...) read off a full jet; when a term also needs one of
/// the second derivatives on its own, that one is not collapsed and the result is the same.
#[test]
fn a_laplacian_is_carried_collapsed_unless_its_parts_are_needed_alone() {
    for d in [2usize, 5] {
        let names: Vec<String> = (1..=d).map(|i| format!("x{i}")).collect();
        let vars = names
            .iter()
            .map(|n| format!("{n} in [0, 1]"))
            .collect::<Vec<_>>()
            .join(", ");
        let args = names.join(", ");
        let placeholders = names
            .iter()
            .map(|n| format!("{{{n}}}"))
            .collect::<Vec<_>>()
            .join(" ");
        let text = |pde: &str| {
            format!("var {vars}\nfield u({args})\npde {pde}\nminimize u\noracle command \"./m {placeholders}\"")
        };
        let net = network(d);
        let rows: Vec<f64> = (0..3 * d).map(|i| (i as f64 * 0.37).fract()).collect();
        let points = Tensor::from_vec(rows, (3, d), &Device::Cpu).unwrap();
        let pure: Vec<Vec<usize>> = (0..d).map(|i| vec![i, i]).collect();
        let full = net
            .forward_jet(&points, &Arc::new(IndexSet::closure(&pure)))
            .unwrap();
        let lap: Vec<f64> = (0..3)
            .map(|n| {
                pure.iter()
                    .map(|a| column(&full.derivative(a).unwrap())[n])
                    .sum()
            })
            .collect();
        let u_11 = column(&full.derivative(&[0, 0]).unwrap());

        let p = problem(&text("laplacian(u) = 0"));
        let collapsed = Residual::new(&p, &p.pdes[0], 0).unwrap();
        assert_eq!(
            collapsed.network_set().len(),
            d + 2,
            "value, {d} first derivatives, the sum"
        );
        assert_eq!(collapsed.network_set().sums().len(), 1);
        assert_close(&column(&collapsed.evaluate(&net, &points).unwrap()), &lap);

        let p = problem(&text("laplacian(u) + x1*d(u, x1, 2) = 0"));
        let plain = Residual::new(&p, &p.pdes[0], 0).unwrap();
        // u_11 is needed alone, so no collapsed sum holds it (in 5-D the lowering's inner
        // sum of the other terms may still be collapsed, which is as correct and cheaper).
        let sums = plain.network_set().sums();
        assert!(sums.iter().flatten().all(|a| *a != vec![0, 0]), "{sums:?}");
        assert_eq!(sums.is_empty(), d == 2, "{sums:?}");
        let x1: Vec<f64> = column(&points.narrow(1, 0, 1).unwrap());
        let want: Vec<f64> = (0..3).map(|n| lap[n] + x1[n] * u_11[n]).collect();
        assert_close(&column(&plain.evaluate(&net, &points).unwrap()), &want);
    }
}
