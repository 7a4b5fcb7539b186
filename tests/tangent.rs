//! Gram blocks of tangent features: the per-layer fast path against explicit Jacobians.

use candle_core::{DType, Device, Tensor};
use pinnbo_ad::tangent::{gram, gram_diagonal, jacobian, Factors};
use pinnbo_ad::{Activation, Mlp, MlpConfig, Parameterization, Residual};
use pinnbo_dsl::{compile, Source};

fn max_difference(a: &Tensor, b: &Tensor) -> f64 {
    let scale: f64 = b.abs().unwrap().max_all().unwrap().to_scalar().unwrap();
    let diff: f64 = (a - b)
        .unwrap()
        .abs()
        .unwrap()
        .max_all()
        .unwrap()
        .to_scalar()
        .unwrap();
    diff / scale.max(1.0)
}

#[test]
fn fast_gram_blocks_equal_explicit_jacobian_products() {
    let text =
        "var x in [0, 1], y in [0, 1]\nfield u(x, y)\npde laplacian(u) + x*d(u, y) = sin(x)\n\
                maximize u\noracle command \"./m {x} {y}\"";
    let p = compile(&Source::new("t.pde", text)).unwrap().problem;
    let residual = Residual::new(&p, &p.pdes[0], 0).unwrap();
    for (parameterization, activation) in [
        (Parameterization::Ntk, Activation::Tanh),
        (Parameterization::Ntk, Activation::Sin),
        (Parameterization::HeZeroLast, Activation::Softplus),
    ] {
        let config = MlpConfig {
            inputs: 2,
            width: 5,
            depth: 2,
            activation,
            parameterization,
            // Non-zero biases, so their features are exercised too.
            bias_std: 0.3,
            dtype: DType::F64,
        };
        let mut net = Mlp::new(config, 17, &Device::Cpu).unwrap();
        net.set_output_scale(1.7);
        let x = Tensor::new(&[[0.1f64, 0.2], [0.5, 0.9], [0.8, 0.3]], &Device::Cpu).unwrap();
        let z = Tensor::new(
            &[[0.3f64, 0.3], [0.6, 0.1], [0.2, 0.7], [0.9, 0.9]],
            &Device::Cpu,
        )
        .unwrap();
        let phi = jacobian(&net, || net.forward(&x)?.flatten_all()).unwrap();
        let omega = jacobian(&net, || residual.evaluate(&net, &z)).unwrap();
        assert_eq!(phi.dims(), &[3, net.parameter_count()]);

        let fu = Factors::of_values(&net, &x).unwrap();
        let fr = Factors::of_residual(&net, &residual, &z).unwrap();
        for (fast, brute) in [
            (gram(&fu, &fu), phi.matmul(&phi.t().unwrap())),
            (gram(&fu, &fr), phi.matmul(&omega.t().unwrap())),
            (gram(&fr, &fr), omega.matmul(&omega.t().unwrap())),
        ] {
            let (fast, brute) = (fast.unwrap(), brute.unwrap());
            let d = max_difference(&fast, &brute);
            assert!(
                d < 1e-10,
                "{parameterization:?}/{activation:?}: relative difference {d:e}"
            );
        }
        // The diagonal alone, for values and for residual features (K > 1 coefficients).
        for (f, rows) in [(&fu, &phi), (&fr, &omega)] {
            let fast = gram_diagonal(f).unwrap();
            let brute = rows.sqr().unwrap().sum(1).unwrap();
            let d = max_difference(&fast, &brute);
            assert!(d < 1e-10, "diagonal: relative difference {d:e}");
        }
    }
}
