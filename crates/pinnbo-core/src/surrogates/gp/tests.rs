use super::*;
use crate::space::Kind;
use rand::SeedableRng;

/// The default model with `kernel` and `prior`.
fn spec(kernel: Kernel, prior: Prior) -> GpSpec {
    GpSpec {
        kernel,
        prior,
        mean: Mean::Constant,
        categorical: Categorical::default(),
    }
}

fn cold(restarts: usize) -> Starts<'static, Hyper> {
    Starts {
        previous: None,
        restarts,
    }
}

/// Two points, fixed hyperparameters, SE kernel: the textbook posterior by hand.
#[test]
fn posterior_matches_a_hand_computation() {
    let x = vec![vec![0.0], vec![1.0]];
    let y = [1.0, -1.0];
    let h = Hyper {
        log_lengthscales: vec![0.0],
        log_signal: 0.0,
        log_noise: 0.01f64.ln(),
    };
    let spd = Spd::new(
        &covariance(&spec(Kernel::SquaredExponential, Prior::None), &x, &h, &[]),
        "k",
    )
    .unwrap();
    let model = GpModel {
        kernel: Kernel::SquaredExponential,
        categorical: Categorical::default(),
        hyper: h,
        constant: 0.0,
        x: x.clone(),
        alpha: spd.solve(&y),
        spd,
        standardizer: Standardizer {
            mean: 0.0,
            std: 1.0,
        },
        nll: 0.0,
    };
    // K = [[1.01, c], [c, 1.01]], c = e^{-1/2}; at u = 0.5: k = [e^{-1/8}, e^{-1/8}].
    let c = (-0.5f64).exp();
    let k = (-0.125f64).exp();
    // By symmetry the mean is 0; variance = 1 - 2k²/(1.01 + c).
    let (m, v) = model.predict_standardized(&[0.5]);
    assert!(m.abs() < 1e-12, "{m}");
    assert!((v - (1.0 - 2.0 * k * k / (1.01 + c))).abs() < 1e-12, "{v}");
    // At u = 0: mean = [1, c]·K⁻¹[1, -1] = (1 - c)/(1.01 - c)... computed explicitly.
    let det = 1.01 * 1.01 - c * c;
    let alpha = [(1.01 * 1.0 + c) / det, (-1.01 - c) / det];
    let (m0, _) = model.predict_standardized(&[0.0]);
    assert!((m0 - (alpha[0] + c * alpha[1])).abs() < 1e-12);
}

/// The analytic gradient, of the likelihood alone and with the prior, against central
/// differences.
#[test]
fn likelihood_gradient_matches_differences() {
    for prior in [Prior::None, Prior::DimensionScaled] {
        for mean in [Mean::Constant, Mean::Average] {
            for kernel in [Kernel::Matern52, Kernel::SquaredExponential] {
                for categorical in [vec![], vec![false, true]] {
                    gradient_matches_differences(GpSpec {
                        kernel,
                        prior,
                        mean,
                        categorical: Categorical(categorical),
                    });
                }
            }
        }
    }
}

/// The prior's penalty is the log-normal densities' (constants dropped): zero gradient at
/// each mode exp(μ − s²), and none at all for `Prior::None`.
#[test]
fn the_prior_is_log_normal_with_a_dimension_scaled_median() {
    let d = 10;
    let mu = std::f64::consts::SQRT_2 + 0.5 * (d as f64).ln();
    let at_modes = Hyper {
        log_lengthscales: vec![mu - 3.0; d],
        log_signal: 0.7,
        log_noise: -5.0,
    };
    let (_, g) = Prior::DimensionScaled.penalty(&at_modes);
    assert!(g.iter().all(|v| v.abs() < 1e-12), "{g:?}");
    let (value, g) = Prior::None.penalty(&at_modes);
    assert_eq!(value, 0.0);
    assert!(g.iter().all(|v| *v == 0.0));
}

fn gradient_matches_differences(spec: GpSpec) {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let levels = |u: f64| match spec.categorical.is(1) {
        true => Kind::Levels(3).snap(u),
        false => u,
    };
    let x: Vec<Vec<f64>> = (0..12)
        .map(|_| vec![rng.random(), levels(rng.random())])
        .collect();
    let y: Vec<f64> = x.iter().map(|p| (5.0 * p[0]).sin() + p[1]).collect();
    // Without told standard errors, and with every other observation's own noise.
    let told: Vec<Option<f64>> = (0..12).map(|i| (i % 2 == 0).then_some(0.05)).collect();
    for own in [Vec::new(), told] {
        let h = Hyper {
            log_lengthscales: vec![-1.0, -0.5],
            log_signal: 0.2,
            log_noise: -4.0,
        };
        let (_, g) = nll_and_gradient(&spec, &x, &y, &h, &own).unwrap();
        let eps = 1e-6;
        for (i, analytic) in g.iter().enumerate() {
            let shifted = |s: f64| {
                let mut t = h.clone();
                match i {
                    0 | 1 => t.log_lengthscales[i] += s,
                    2 => t.log_signal += s,
                    _ => t.log_noise += s,
                }
                nll_and_gradient(&spec, &x, &y, &t, &own).unwrap().0
            };
            let fd = (shifted(eps) - shifted(-eps)) / (2.0 * eps);
            assert!(
                (fd - analytic).abs() < 1e-5 * fd.abs().max(1.0),
                "{spec:?} {own:?} {i}: {analytic} vs {fd}"
            );
        }
    }
}

/// The posterior's gradient in the point, for both kernels.
#[test]
fn prediction_gradients_match_differences() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let x: Vec<Vec<f64>> = (0..10).map(|_| vec![rng.random(), rng.random()]).collect();
    let y: Vec<f64> = x.iter().map(|p| (4.0 * p[0]).sin() * p[1]).collect();
    for kernel in [Kernel::Matern52, Kernel::SquaredExponential] {
        let model = GpModel::fit(
            &spec(kernel, Prior::None),
            &x,
            &y,
            cold(1),
            &KnownNoise::default(),
            &mut rng,
        )
        .unwrap();
        crate::surrogates::assert_predictions_agree(&model, &[0.37, 0.61]);
    }
}

/// With a previous optimum the fit continues from it: beyond `RESTARTS_UNTIL` points
/// from it alone (from a poor one it descends; from its own optimum it ends no worse),
/// below it beside the cold starts (never worse than they are); one of another dimension
/// is ignored.
#[test]
fn a_warm_fit_continues_from_the_previous_optimum() {
    let kernel = Kernel::Matern52;
    let poor = Hyper {
        log_lengthscales: vec![2.0, 2.0],
        log_signal: -2.0,
        log_noise: -1.0,
    };
    for n in [30, RESTARTS_UNTIL + 10] {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let x: Vec<Vec<f64>> = (0..n).map(|_| vec![rng.random(), rng.random()]).collect();
        let y: Vec<f64> = x.iter().map(|p| (5.0 * p[0]).sin() + p[1]).collect();
        let fit = |previous: Option<&Hyper>| {
            let starts = Starts {
                previous,
                restarts: 3,
            };
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            GpModel::fit(
                &spec(kernel, Prior::None),
                &x,
                &y,
                starts,
                &KnownNoise::default(),
                &mut rng,
            )
            .unwrap()
        };
        let cold = fit(None);
        let standardized: Vec<f64> = y.iter().map(|v| cold.standardizer.forward(*v)).collect();
        let at_poor = nll_and_gradient(&spec(kernel, Prior::None), &x, &standardized, &poor, &[]);
        let from_poor = fit(Some(&poor));
        assert!(
            from_poor.nll < at_poor.unwrap().0 - 1.0,
            "{}",
            from_poor.nll
        );
        if n <= RESTARTS_UNTIL {
            assert!(from_poor.nll <= cold.nll + 1e-9, "{n}: {}", from_poor.nll);
        }
        let again = fit(Some(&cold.hyper));
        assert!(again.nll <= cold.nll + 1e-9, "{} > {}", again.nll, cold.nll);
        let other_dimension = Hyper {
            log_lengthscales: vec![0.0; 3],
            ..poor.clone()
        };
        assert_eq!(fit(Some(&other_dimension)).hyper, cold.hyper);
    }
}

/// Data drawn from a GP with known length scales (one short, one long) give them back.
#[test]
fn the_fit_recovers_the_length_scales_the_data_were_drawn_with() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let truth = Hyper {
        log_lengthscales: vec![0.15f64.ln(), 0.6f64.ln()],
        log_signal: 0.0,
        log_noise: 1e-4f64.ln(),
    };
    let x: Vec<Vec<f64>> = (0..200).map(|_| vec![rng.random(), rng.random()]).collect();
    for kernel in [Kernel::Matern52, Kernel::SquaredExponential] {
        let spd = Spd::new(
            &covariance(&spec(kernel, Prior::None), &x, &truth, &[]),
            "k",
        )
        .unwrap();
        let z: Vec<f64> = (0..x.len())
            .map(|_| rng.sample(rand_distr::StandardNormal))
            .collect();
        let l = spd.lower_factor();
        let y: Vec<f64> = (0..x.len())
            .map(|i| (0..=i).map(|j| l[(i, j)] * z[j]).sum())
            .collect();
        let model = GpModel::fit(
            &spec(kernel, Prior::None),
            &x,
            &y,
            cold(3),
            &KnownNoise::default(),
            &mut rng,
        )
        .unwrap();
        for (fitted, true_log) in model
            .hyper
            .log_lengthscales
            .iter()
            .zip(&truth.log_lengthscales)
        {
            let ratio = (fitted - true_log).exp();
            assert!(
                (0.75..1.33).contains(&ratio),
                "{kernel:?}: fitted {} against {}",
                fitted.exp(),
                true_log.exp()
            );
        }
    }
}

#[test]
fn fitting_improves_the_likelihood_and_interpolates() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let x: Vec<Vec<f64>> = (0..20).map(|i| vec![i as f64 / 19.0]).collect();
    let y: Vec<f64> = x.iter().map(|p| (6.0 * p[0]).sin()).collect();
    let model = GpModel::fit(
        &spec(Kernel::Matern52, Prior::None),
        &x,
        &y,
        cold(3),
        &KnownNoise::default(),
        &mut rng,
    )
    .unwrap();
    let (m, s) = model.predict(&[0.5]);
    assert!((m - 3f64.sin()).abs() < 0.02, "{m} ± {s}");
    assert!(s < 0.05);
}

/// The fitted constant is the likelihood's optimum in the mean: the likelihood with it equals
/// the one of the values less it under the average mean, and moving the constant either way
/// lowers that; adding a constant to the data changes nothing but the constant.
#[test]
fn the_constant_mean_is_the_likelihoods_optimum() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let x: Vec<Vec<f64>> = (0..15).map(|_| vec![rng.random(), rng.random()]).collect();
    let y: Vec<f64> = x.iter().map(|p| (5.0 * p[0]).sin() + 2.0 * p[1]).collect();
    let h = Hyper {
        log_lengthscales: vec![-1.0, -0.5],
        log_signal: 0.2,
        log_noise: -4.0,
    };
    let constant = spec(Kernel::Matern52, Prior::None);
    let average = GpSpec {
        mean: Mean::Average,
        ..constant.clone()
    };
    let spd = Spd::new(&covariance(&constant, &x, &h, &[]), "k").unwrap();
    let (c, _) = Mean::Constant.weights(&spd, &y);
    let nll = |s: &GpSpec, shift: f64| {
        let shifted: Vec<f64> = y.iter().map(|v| v - shift).collect();
        nll_and_gradient(s, &x, &shifted, &h, &[]).unwrap()
    };
    let at_c = nll(&average, c).0;
    assert!((nll(&constant, 0.0).0 - at_c).abs() < 1e-10);
    for delta in [-0.1, 0.1] {
        assert!(nll(&average, c + delta).0 > at_c + 1e-6, "{delta}");
    }
    let (moved, grad) = nll(&constant, 3.0);
    let (before, grad_before) = nll(&constant, 0.0);
    assert!((moved - before).abs() < 1e-9);
    assert!(grad
        .iter()
        .zip(&grad_before)
        .all(|(a, b)| (a - b).abs() < 1e-8));
}

/// Far from the data the model returns to its constant, in the data's units; the average
/// mean returns to the observations' average, and the fitted constant counts a cluster of
/// near-repeats as fewer points than it holds.
#[test]
fn far_from_the_data_the_model_returns_to_its_mean() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    // Ten high values clustered in one corner, ten low ones spread along the far side.
    let mut x: Vec<Vec<f64>> = (0..10)
        .map(|_| vec![0.02 * rng.random::<f64>(), 0.05])
        .collect();
    x.extend((0..10).map(|i| vec![0.3 + 0.07 * i as f64, 0.9]));
    let y: Vec<f64> = x
        .iter()
        .map(|p| if p[1] < 0.5 { 10.0 } else { 1.0 + p[0] })
        .collect();
    let average_value = y.iter().sum::<f64>() / y.len() as f64;
    let h = Hyper {
        log_lengthscales: vec![0.05f64.ln(); 2],
        log_signal: 0.0,
        log_noise: -8.0,
    };
    let standardizer = Standardizer::fit(&y);
    let z: Vec<f64> = y.iter().map(|v| standardizer.forward(*v)).collect();
    for mean in [Mean::Constant, Mean::Average] {
        let s = GpSpec {
            mean,
            ..spec(Kernel::SquaredExponential, Prior::None)
        };
        let model =
            GpModel::conditioned(&s, (&x, &z, Vec::new()), standardizer, h.clone(), 0.0).unwrap();
        let far = model.predict_mean(&[0.9, 0.4]);
        let expected = match mean {
            Mean::Average => average_value,
            Mean::Constant => standardizer.inverse(model.constant),
        };
        assert!(
            (far - expected).abs() < 1e-6,
            "{mean:?}: {far} vs {expected}"
        );
        if mean == Mean::Constant {
            assert!(expected < average_value - 1.0, "{expected}");
        }
    }
}

/// 40 points of a continuous input and a categorical one with four levels: the mixed kernel's
/// matrix factors with a noise of 1e-12 of the signal (positive definite, both kernels), and
/// the fitted weight of the levels recovers a shift between them, or none.
#[test]
fn the_mixed_kernel_is_positive_definite_and_weighs_its_levels() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let level = Kind::Levels(4);
    let x: Vec<Vec<f64>> = (0..40)
        .map(|_| vec![rng.random(), level.snap(rng.random())])
        .collect();
    let mixed = |kernel| GpSpec {
        categorical: Categorical(vec![false, true]),
        ..spec(kernel, Prior::None)
    };
    for kernel in [Kernel::Matern52, Kernel::SquaredExponential] {
        let h = Hyper {
            log_lengthscales: vec![0.5f64.ln(), 0.3f64.ln()],
            log_signal: 0.0,
            log_noise: 1e-12f64.ln(),
        };
        assert!(Spd::new(&covariance(&mixed(kernel), &x, &h, &[]), "k").is_ok());
    }
    // Levels 2 and 3 shift the values by `shift`; the fit's predictions at new points of
    // every level recover it, and where no level shifts them, the levels agree.
    let truth = |p: &[f64], shift: f64| (4.0 * p[0]).sin() + shift * (p[1] > 0.5) as u8 as f64;
    for shift in [0.0, 2.0] {
        let y: Vec<f64> = x.iter().map(|p| truth(p, shift)).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let gp = GpModel::fit(
            &mixed(Kernel::Matern52),
            &x,
            &y,
            cold(4),
            &KnownNoise::default(),
            &mut rng,
        )
        .unwrap();
        for k in 0..20 {
            let p = [k as f64 / 19.0, level.snap((k % 4) as f64 / 4.0)];
            let (mean, _) = gp.predict(&p);
            assert!(
                (mean - truth(&p, shift)).abs() < 0.05,
                "{shift} at {p:?}: {mean}"
            );
        }
    }
}

/// A told standard error is that observation's noise: the posterior equals conditioning
/// on `K + diag(v)` with `v_i = (sem_i / std)²` where told and the model's noise elsewhere.
#[test]
fn told_standard_errors_are_each_observations_noise() {
    let x: Vec<Vec<f64>> = (0..8).map(|i| vec![i as f64 / 7.0]).collect();
    let y: Vec<f64> = x.iter().map(|p| (4.0 * p[0]).cos()).collect();
    let sems: Vec<Option<f64>> = (0..8)
        .map(|i| [None, Some(0.3), Some(0.0)][i % 3])
        .collect();
    let h = Hyper {
        log_lengthscales: vec![0.3f64.ln()],
        log_signal: 0.1,
        log_noise: -5.0,
    };
    let s = GpSpec {
        mean: Mean::Average,
        ..spec(Kernel::SquaredExponential, Prior::None)
    };
    let model = GpModel::with_hyper(&s, &x, (&y, &sems), h.clone()).unwrap();
    let standardizer = Standardizer::fit(&y);
    let z: Vec<f64> = y.iter().map(|v| standardizer.forward(*v)).collect();
    let (s2, n2) = (h.log_signal.exp(), h.log_noise.exp());
    let k = |a: &[f64], b: &[f64]| s2 * (-0.5 * ((a[0] - b[0]) / 0.3).powi(2)).exp();
    let variance = |i: usize| match sems[i] {
        Some(sem) => ((sem / standardizer.std).powi(2)).max(NOISE.0.exp()),
        None => n2,
    };
    let direct = Mat::from_fn(8, 8, |i, j| {
        k(&x[i], &x[j]) + if i == j { variance(i) } else { 0.0 }
    });
    let spd = Spd::new(&direct, "k").unwrap();
    let weights = spd.solve(&z);
    for u in [0.05, 0.5, 0.93] {
        let cross: Vec<f64> = x.iter().map(|p| k(&[u], p)).collect();
        let mean = dot(&cross, &weights);
        let var = s2 - dot(&cross, &spd.solve(&cross));
        let (m, v) = model.predict_standardized(&[u]);
        assert!(
            (m - mean).abs() < 1e-9 && (v - var).abs() < 1e-9,
            "{u}: {m} {v} vs {mean} {var}"
        );
    }
}

/// An observation told with a large standard error hardly moves the fit; told without one,
/// the same value drags the prediction there.
#[test]
fn an_uncertain_observation_weighs_little() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let x: Vec<Vec<f64>> = (0..10).map(|i| vec![i as f64 / 9.0]).collect();
    let y: Vec<f64> = x.iter().map(|p| (3.0 * p[0]).sin()).collect();
    let spec = spec(Kernel::Matern52, Prior::None);
    let fit = |x: &[Vec<f64>], y: &[f64], sems: Vec<Option<f64>>, rng: &mut ChaCha8Rng| {
        let known = KnownNoise { std: None, sems };
        GpModel::fit(&spec, x, y, cold(3), &known, rng).unwrap()
    };
    let clean = fit(&x, &y, Vec::new(), &mut rng);
    let (mut x_more, mut y_more) = (x.clone(), y.clone());
    x_more.push(vec![0.5]);
    y_more.push(4.0);
    let mut sems = vec![None; 10];
    sems.push(Some(100.0));
    let told = fit(&x_more, &y_more, sems, &mut rng);
    let plain = fit(&x_more, &y_more, Vec::new(), &mut rng);
    let at = [0.5];
    let truth = clean.predict_mean(&at);
    assert!(
        (told.predict_mean(&at) - truth).abs() < 1e-3,
        "{} vs {truth}",
        told.predict_mean(&at)
    );
    assert!(
        (plain.predict_mean(&at) - truth).abs() > 0.1,
        "{} vs {truth}",
        plain.predict_mean(&at)
    );
}
