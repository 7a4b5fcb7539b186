//! PINN-BO's information terms, residual scaling and schedule.

use super::*;
use crate::numerics::cholesky::Spd;
use crate::surrogates::neural::to_mat;
use pinnbo_ad::tangent::jacobian;
use pinnbo_dsl::{compile, Source};
use rand::SeedableRng;

const PROBLEM: &str = "problem \"tiny\"\nvar x in [0, 2]\nfield f(x)\n\
    pde dxx(f) + x * f = x\nminimize f\noracle command \"unused {x}\"\n";

fn problem() -> Problem {
    compile(&Source::new("tiny.pde", PROBLEM)).unwrap().problem
}

/// `½ logdet(I + AᵀA/λ)`-style determinants in the p-dimensional (primal) form.
fn logdet_primal(blocks: &[(&Mat<f64>, f64)], p: usize) -> f64 {
    let mut a = Mat::from_fn(p, p, |i, j| if i == j { 1.0 } else { 0.0 });
    for (features, lambda) in blocks {
        for r in 0..features.nrows() {
            for i in 0..p {
                for j in 0..p {
                    a[(i, j)] += features[(r, i)] * features[(r, j)] / lambda;
                }
            }
        }
    }
    Spd::new(&a, "primal").unwrap().log_det()
}

/// The dual (t + N_r)-sized interaction information equals the thesis's p-dimensional
/// determinant formula on a tiny network, and is non-negative.
#[test]
fn interaction_information_matches_the_determinant_formula() {
    let config = PinnBoConfig {
        width: 3,
        depth: 1,
        residual_points: 5,
        ..PinnBoConfig::default()
    };
    let bo = PinnBo::new(config, &problem(), &OperatorRegistry::new(), 2).unwrap();
    let x = Tensor::new(&[[0.1f64], [0.9], [1.7]], &Device::Cpu).unwrap();
    let (_, k_uu, k_ur) = bo.observed_grams(&x).unwrap();
    let (lambda1, lambda2) = (0.5, 2.0);
    let (gamma, info) = interaction_information(&k_uu, &k_ur, &bo.k_rr, lambda1, lambda2).unwrap();

    let net = &bo.initial;
    let jac =
        |f: &dyn Fn() -> candle_core::Result<Tensor>| to_mat(&jacobian(net, f).unwrap()).unwrap();
    let big_phi = jac(&|| net.forward(&x)?.flatten_all());
    let term = &bo.terms[0];
    let scales = Tensor::new(bo.scales.as_slice(), &Device::Cpu).unwrap();
    let big_omega = jac(&|| term.residual.evaluate(net, &term.points)? * &scales);
    let p = net.parameter_count();
    assert_eq!(big_phi.ncols(), p);
    let (uu, rr) = (
        logdet_primal(&[(&big_phi, lambda1)], p),
        logdet_primal(&[(&big_omega, lambda2)], p),
    );
    let joint = logdet_primal(&[(&big_phi, lambda1), (&big_omega, lambda2)], p);
    let expected = 0.5 * (uu + rr - joint);
    assert!(
        (gamma - 0.5 * uu).abs() < 1e-8 * uu.abs().max(1.0),
        "{gamma} vs {}",
        0.5 * uu
    );
    assert!(
        (info - expected).abs() < 1e-8 * expected.abs().max(1.0),
        "{info} vs {expected}"
    );
    assert!(
        info > 0.0,
        "the observations and the pde share information: {info}"
    );
}

/// With `scaling point`, every scaled residual has the prior variance of a value at its
/// point, even next to a coefficient's pole; with one global factor, the few points
/// nearest the pole carry almost all of it.
#[test]
fn point_scaling_gives_every_residual_the_prior_variance_of_a_value() {
    let text = PROBLEM.replace("pde dxx(f) + x * f = x", "pde dxx(f) / (x - 0.71) + f = x");
    let problem = compile(&Source::new("pole.pde", text.as_str()))
        .unwrap()
        .problem;
    let build = |scaling| {
        let config = PinnBoConfig {
            width: 8,
            depth: 1,
            residual_points: 64,
            scaling,
            ..PinnBoConfig::default()
        };
        PinnBo::new(config, &problem, &OperatorRegistry::new(), 4).unwrap()
    };
    let bo = build(ResidualScaling::Point);
    let term = &bo.terms[0];
    let phi = Factors::of_values(&bo.initial, &term.points).unwrap();
    let value_variance = column(gram_diagonal(&phi)).unwrap();
    assert_eq!(value_variance.len(), bo.k_rr.nrows());
    for (j, v) in value_variance.iter().enumerate() {
        let r = bo.k_rr[(j, j)];
        assert!((r - v).abs() < 1e-9 * v, "point {j}: {r} vs {v}");
    }
    let global = build(ResidualScaling::Global);
    let mut diagonal: Vec<f64> = (0..64).map(|j| global.k_rr[(j, j)]).collect();
    diagonal.sort_by(f64::total_cmp);
    let total: f64 = diagonal.iter().sum();
    let top_three: f64 = diagonal[61..].iter().sum();
    assert!(top_three > 0.5 * total, "{top_three} of {total}");
}

/// A cold fit starts from θ0 itself (`init fixed`) or from a new draw per fit that the
/// stream decides (`init fresh`); between cold fits the previous network is the start.
#[test]
fn cold_fits_start_from_theta0_or_a_fresh_draw_and_warm_fits_from_the_last_network() {
    let build = |init, retrain_every| {
        let config = PinnBoConfig {
            width: 6,
            depth: 1,
            residual_points: 8,
            epochs: 5,
            warm_epochs: 3,
            init,
            retrain_every,
            ..PinnBoConfig::default()
        };
        PinnBo::new(config, &problem(), &OperatorRegistry::new(), 5).unwrap()
    };
    let standardizer = Standardizer::fit(&[1.0, 2.0, 4.0]);
    let weights = |start: Start| start.net.flat_weights::<f64>().unwrap();
    let from = |bo: &PinnBo, seed| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let start = bo.start(&standardizer, 1.5, &mut rng).unwrap();
        assert!(start.cold);
        weights(start)
    };
    let fixed = build(NetworkInit::Fixed, 1);
    let theta0 = fixed.initial.flat_weights::<f64>().unwrap();
    let output_bias = |w: &[f64]| w[w.len() - 1];
    let hidden = |w: &[f64]| w[..w.len() - 1].to_vec();
    assert_eq!(hidden(&from(&fixed, 1)), hidden(&theta0));
    assert_eq!(from(&fixed, 1), from(&fixed, 2));
    let fresh = build(NetworkInit::Fresh, 1);
    assert_eq!(from(&fresh, 1), from(&fresh, 1));
    assert_ne!(hidden(&from(&fresh, 1)), hidden(&from(&fresh, 2)));
    assert_ne!(hidden(&from(&fresh, 1)), hidden(&theta0));
    // The output bias starts at the mean, in units of the output scale s ν.
    let scale = standardizer.std * 1.5;
    assert!((output_bias(&from(&fresh, 1)) - standardizer.mean / scale).abs() < 1e-12);

    let mut warm = build(NetworkInit::Fresh, 2);
    let space = Space::of(&problem());
    let history: Vec<Observed> = [0.2, 0.5, 0.9]
        .iter()
        .zip([1.0, 2.0, 4.0])
        .map(|(u, y)| Observed::initial(y, Vec::new(), vec![*u]))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let first = warm.propose(&space, &history, &mut rng).unwrap();
    assert_eq!(
        first.diagnostics.get("cold_fit").and_then(|v| v.as_bool()),
        Some(true)
    );
    let trained = warm
        .previous
        .as_ref()
        .unwrap()
        .flat_weights::<f64>()
        .unwrap();
    let next = warm.start(&standardizer, 1.5, &mut rng).unwrap();
    assert!(!next.cold);
    assert_eq!(weights(next), trained);
    let second = warm.propose(&space, &history, &mut rng).unwrap();
    assert_eq!(
        second.diagnostics.get("cold_fit").and_then(|v| v.as_bool()),
        Some(false)
    );
    assert!(warm.start(&standardizer, 1.5, &mut rng).unwrap().cold);
}

/// An objective that is not a field of all the variables is refused with the reason.
#[test]
fn the_objective_must_be_the_field() {
    let text = PROBLEM.replace("minimize f", "minimize f + x");
    let problem = compile(&Source::new("tiny.pde", text.as_str()))
        .unwrap()
        .problem;
    let e = PinnBo::new(
        PinnBoConfig::default(),
        &problem,
        &OperatorRegistry::new(),
        1,
    )
    .err()
    .expect("refused");
    assert!(
        e.to_string().contains("one field of all the variables"),
        "{e}"
    );
}

/// An inverse PINN: the pde's unknown rate trains with the network, from the centre of its
/// box to near the value the observations obey (`u'' + k² u = 0.3 k² x` with `k = 2.5`), and
/// a picture's training leaves where the next step starts unchanged.
#[test]
fn the_pdes_param_trains_with_the_network() {
    let text = "var x in [0, 3]\nparam k in [0.5, 8] log\nfield u(x) = cos(2.5*x) + 0.3*x\n\
                pde d(u, x, 2) + k^2*u = 0.3*k^2*x\nminimize u\n";
    let problem = compile(&Source::new("rod.pde", text)).unwrap().problem;
    let value = problem.closed_form_objective().unwrap();
    let history: Vec<Observed> = (0..8)
        .map(|i| {
            let unit = vec![(i as f64 + 0.5) / 8.0];
            Observed::initial(value.eval(&[3.0 * unit[0]]), Vec::new(), unit)
        })
        .collect();
    let config = PinnBoConfig {
        residual_points: 128,
        ..PinnBoConfig::default()
    };
    let mut bo = PinnBo::new(config, &problem, &OperatorRegistry::new(), 1).unwrap();
    let space = Space::of(&problem);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    bo.predict(&space, &history, &[vec![0.5]], &mut rng)
        .unwrap();
    assert_eq!(bo.params.as_ref().unwrap().previous, None);
    let proposal = bo.propose(&space, &history, &mut rng).unwrap();
    let k = proposal.diagnostics.get("parameters").unwrap()["k"]["value"]
        .as_f64()
        .unwrap();
    assert!((k - 2.5).abs() < 0.25, "k = {k}");
    let saved = bo.state().unwrap().unwrap();
    let mut resumed =
        PinnBo::new(bo.config.clone(), &problem, &OperatorRegistry::new(), 1).unwrap();
    resumed.restore(Some(saved)).unwrap();
    assert_eq!(
        resumed.params.unwrap().previous,
        bo.params.unwrap().previous
    );
}
