//! Jets against finite differences (f64): every carried derivative equals the (fourth-order)
//! central difference of the derivative one order below it, so all orders are checked by induction
//! from the plain forward pass; and parameter gradients of a residual loss against
//! differences in the parameters.

use candle_core::{DType, Device, Tensor};
use pinnbo_ad::{Activation, IndexSet, Mlp, MlpConfig, MultiIndex, Parameterization};
use proptest::prelude::*;
use std::sync::Arc;

fn network(inputs: usize, width: usize, depth: usize, activation: Activation, seed: u64) -> Mlp {
    let config = MlpConfig {
        inputs,
        width,
        depth,
        activation,
        parameterization: Parameterization::Ntk,
        // Non-zero hidden biases, so the bias folded into each activation is exercised.
        bias_std: 0.2,
        dtype: DType::F64,
    };
    Mlp::new(config, seed, &Device::Cpu).unwrap()
}

/// Every multi-index over `d` coordinates up to `order`.
fn all_up_to(d: usize, order: usize) -> Vec<MultiIndex> {
    let mut out: Vec<MultiIndex> = vec![Vec::new()];
    let mut frontier: Vec<MultiIndex> = vec![Vec::new()];
    for _ in 0..order {
        let mut next = Vec::new();
        for alpha in &frontier {
            let start = alpha.last().copied().unwrap_or(0);
            for c in start..d {
                let mut a = alpha.clone();
                a.push(c);
                next.push(a);
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

fn point_tensor(points: &[Vec<f64>]) -> Tensor {
    let d = points[0].len();
    let flat: Vec<f64> = points.iter().flatten().copied().collect();
    Tensor::from_vec(flat, (points.len(), d), &Device::Cpu).unwrap()
}

/// Checks every derivative of the jet against differences of the one below it.
fn check_jets(net: &Mlp, points: &[Vec<f64>], wanted: &[MultiIndex]) -> Result<(), TestCaseError> {
    let set = Arc::new(IndexSet::closure(wanted));
    let x = point_tensor(points);
    let jet = net.forward_jet(&x, &set).unwrap();
    let plain: Vec<f64> = net
        .forward(&x)
        .unwrap()
        .flatten_all()
        .unwrap()
        .to_vec1()
        .unwrap();
    let value: Vec<f64> = jet
        .value()
        .unwrap()
        .flatten_all()
        .unwrap()
        .to_vec1()
        .unwrap();
    for (a, b) in value.iter().zip(&plain) {
        prop_assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            "value {a} vs {b}"
        );
    }
    let h = 1e-3;
    for alpha in &set.indices()[1..] {
        let (&i, below) = alpha.split_last().unwrap();
        let shifted = |s: f64| -> Vec<f64> {
            let moved: Vec<Vec<f64>> = points
                .iter()
                .map(|p| {
                    let mut q = p.clone();
                    q[i] += s;
                    q
                })
                .collect();
            let j = net.forward_jet(&point_tensor(&moved), &set).unwrap();
            j.derivative(below)
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1()
                .unwrap()
        };
        let (up, down) = (shifted(h), shifted(-h));
        let (up2, down2) = (shifted(2.0 * h), shifted(-2.0 * h));
        let got: Vec<f64> = jet
            .derivative(alpha)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        for k in 0..points.len() {
            // Fourth-order central difference: error h⁴ f⁽ᵏ⁺³⁾ / 30, small even where a deep
            // network's higher derivatives are in the thousands.
            let fd = (8.0 * (up[k] - down[k]) - (up2[k] - down2[k])) / (12.0 * h);
            prop_assert!(
                (got[k] - fd).abs() <= 1e-6 * fd.abs().max(1.0),
                "derivative {alpha:?} at {:?}: jet {} vs differences {fd}",
                points[k],
                got[k]
            );
        }
    }
    Ok(())
}

fn activation() -> impl Strategy<Value = Activation> {
    prop_oneof![
        Just(Activation::Tanh),
        Just(Activation::Sin),
        Just(Activation::Softplus)
    ]
}

fn points(d: usize) -> impl Strategy<Value = Vec<Vec<f64>>> {
    prop::collection::vec(prop::collection::vec(-1.0f64..1.0, d), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn one_input_to_fourth_order(
        width in 2usize..8, depth in 1usize..4, act in activation(), seed in 0u64..1000,
        pts in points(1),
    ) {
        check_jets(&network(1, width, depth, act, seed), &pts, &[vec![0, 0, 0, 0]])?;
    }

    #[test]
    fn two_inputs_every_partial_to_fourth_order(
        width in 2usize..6, depth in 1usize..3, act in activation(), seed in 0u64..1000,
        pts in points(2),
    ) {
        check_jets(&network(2, width, depth, act, seed), &pts, &all_up_to(2, 4))?;
    }

    #[test]
    fn five_inputs_to_second_order(
        width in 2usize..6, depth in 1usize..3, act in activation(), seed in 0u64..1000,
        pts in points(5),
    ) {
        check_jets(&network(5, width, depth, act, seed), &pts, &all_up_to(5, 2))?;
    }
}

#[test]
fn laplacians_in_two_and_five_dimensions() {
    for d in [2, 5] {
        let net = network(d, 6, 2, Activation::Tanh, 7);
        let wanted: Vec<MultiIndex> = (0..d).map(|i| vec![i, i]).collect();
        let set = Arc::new(IndexSet::closure(&wanted));
        let p: Vec<f64> = (0..d).map(|i| 0.1 * i as f64 - 0.2).collect();
        let jet = net
            .forward_jet(&point_tensor(std::slice::from_ref(&p)), &set)
            .unwrap();
        let lap: f64 = (0..d)
            .map(|i| {
                jet.derivative(&[i, i])
                    .unwrap()
                    .flatten_all()
                    .unwrap()
                    .to_vec1::<f64>()
                    .unwrap()[0]
            })
            .sum();
        let h = 1e-3;
        let f = |q: &[f64]| -> f64 {
            net.forward(&point_tensor(&[q.to_vec()]))
                .unwrap()
                .flatten_all()
                .unwrap()
                .to_vec1::<f64>()
                .unwrap()[0]
        };
        let mut fd = -2.0 * d as f64 * f(&p);
        for i in 0..d {
            for s in [h, -h] {
                let mut q = p.clone();
                q[i] += s;
                fd += f(&q);
            }
        }
        fd /= h * h;
        assert!(
            (lap - fd).abs() < 1e-5 * lap.abs().max(1.0),
            "d = {d}: {lap} vs {fd}"
        );
    }
}

#[test]
fn parameter_gradients_of_a_residual_loss_match_differences() {
    // loss = Σ (u_xx + u_yy + u)² over a few points, through one backward pass.
    let net = network(2, 5, 2, Activation::Tanh, 11);
    let set = Arc::new(IndexSet::closure(&[vec![0, 0], vec![1, 1]]));
    let x = point_tensor(&[vec![0.1, -0.3], vec![0.7, 0.2], vec![-0.5, 0.9]]);
    let loss = |net: &Mlp| {
        let jet = net.forward_jet(&x, &set).unwrap();
        let r = ((jet.derivative(&[0, 0]).unwrap() + jet.derivative(&[1, 1]).unwrap()).unwrap()
            + jet.value().unwrap())
        .unwrap();
        r.sqr().unwrap().sum_all().unwrap()
    };
    let grads = loss(&net).backward().unwrap();
    let h = 1e-6;
    for var in net.vars() {
        let analytic: Vec<f64> = match grads.get(var.as_tensor()) {
            Some(g) => g.flatten_all().unwrap().to_vec1().unwrap(),
            None => vec![0.0; var.elem_count()], // unreachable parameters have no gradient
        };
        let original: Vec<f64> = var.as_tensor().flatten_all().unwrap().to_vec1().unwrap();
        for k in (0..original.len()).step_by(3) {
            let eval = |s: f64| {
                let mut v = original.clone();
                v[k] += s;
                var.set(&Tensor::from_vec(v, var.shape(), &Device::Cpu).unwrap())
                    .unwrap();
                loss(&net).to_scalar::<f64>().unwrap()
            };
            let fd = (eval(h) - eval(-h)) / (2.0 * h);
            var.set(&Tensor::from_vec(original.clone(), var.shape(), &Device::Cpu).unwrap())
                .unwrap();
            assert!(
                (analytic[k] - fd).abs() < 1e-5 * fd.abs().max(1.0),
                "parameter {k}: backward {} vs differences {fd}",
                analytic[k]
            );
        }
    }
}

/// The fused CPU kernel for `Jet::map_shifted` against the ordinary-op rule: values and the
/// gradient of a random linear functional of the output with respect to the input jet and the
/// bias, for several index sets, functions and both float types.
#[test]
fn fused_composition_matches_the_ordinary_op_rule() {
    use candle_core::Var;
    use pinnbo_ad::scalar::ScalarFn;
    use pinnbo_ad::Jet;
    let laplacian: Vec<MultiIndex> = (0..3).map(|i| vec![i, i]).collect();
    let sets = [
        IndexSet::closure(&all_up_to(1, 4)),
        IndexSet::closure(&[vec![0, 0, 1], vec![1, 1, 1], vec![0, 1]]),
        IndexSet::closure(&all_up_to(5, 2)),
        // A collapsed Laplacian beside a mixed partial.
        IndexSet::with_sums(&[vec![0, 1]], &[laplacian]),
    ];
    let functions = [
        ScalarFn::Tanh,
        ScalarFn::Sin,
        ScalarFn::Softplus,
        ScalarFn::Relu,
        ScalarFn::Exp,
        ScalarFn::Log,
        ScalarFn::Powc(3.0),
        ScalarFn::Powc(-1.5),
    ];
    let mut state = 7u64;
    let mut uniform = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    for set in sets {
        let set = Arc::new(set);
        let (k, n, w) = (set.len(), 37, 3);
        // Positive values keep log and fractional powers finite.
        let data: Vec<f64> = (0..k * n * w)
            .map(|i| {
                if i < n * w {
                    0.2 + 1.5 * uniform()
                } else {
                    2.0 * uniform() - 1.0
                }
            })
            .collect();
        let weights: Vec<f64> = (0..k * n * w).map(|_| uniform() - 0.5).collect();
        for dtype in [DType::F64, DType::F32] {
            let tolerance = if dtype == DType::F64 { 1e-11 } else { 2e-4 };
            let tensor = |v: &[f64]| {
                Tensor::from_slice(v, (k, n, w), &Device::Cpu)
                    .unwrap()
                    .to_dtype(dtype)
                    .unwrap()
            };
            let weights = tensor(&weights);
            for g in functions {
                let run = |fused: bool| {
                    let input = Var::from_tensor(&tensor(&data)).unwrap();
                    let bias = Tensor::from_slice(&data[..w], w, &Device::Cpu).unwrap();
                    let bias = Var::from_tensor(&bias.to_dtype(dtype).unwrap()).unwrap();
                    let jet = Jet::new(set.clone(), input.as_tensor().clone()).unwrap();
                    let out = if fused {
                        jet.map_shifted(g, Some(bias.as_tensor()))
                    } else {
                        jet.shift_value(bias.as_tensor()).unwrap().map_unfused(g)
                    }
                    .unwrap();
                    let loss = (out.data() * &weights).unwrap().sum_all().unwrap();
                    let grads = loss.backward().unwrap();
                    let flat = |t: &Tensor| -> Vec<f64> {
                        t.to_dtype(DType::F64)
                            .unwrap()
                            .flatten_all()
                            .unwrap()
                            .to_vec1()
                            .unwrap()
                    };
                    let mut gradient = flat(grads.get(input.as_tensor()).unwrap());
                    gradient.extend(flat(grads.get(bias.as_tensor()).unwrap()));
                    (flat(out.data()), gradient)
                };
                let (fused, reference) = (run(true), run(false));
                for (what, a, b) in [
                    ("value", &fused.0, &reference.0),
                    ("gradient", &fused.1, &reference.1),
                ] {
                    for (i, (x, y)) in a.iter().zip(b).enumerate() {
                        assert!(
                            (x - y).abs() <= tolerance * y.abs().max(1.0),
                            "{g:?} {dtype:?} {what} {i} over {:?}: fused {x}, ops {y}",
                            set.indices()
                        );
                    }
                }
            }
        }
    }
}
