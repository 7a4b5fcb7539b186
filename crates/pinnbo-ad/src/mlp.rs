//! Fully connected networks on candle, with the papers' parameterizations, evaluated either
//! plainly or on jets (values and input derivatives together).

use crate::jet::Jet;
use crate::multi::IndexSet;
use crate::scalar::{derivatives, ScalarFn};
use candle_core::backprop::GradStore;
use candle_core::{DType, Device, Result, Tensor, Var, WithDType};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, StandardNormal};
use std::sync::Arc;

/// A hidden layer's activation, as the DSL's `activation` setting names it.
pub use pinnbo_dsl::choices::Activation;

/// The scalar function an activation applies.
fn scalar(activation: Activation) -> ScalarFn {
    match activation {
        Activation::Tanh => ScalarFn::Tanh,
        Activation::Sin => ScalarFn::Sin,
        Activation::Softplus => ScalarFn::Softplus,
        Activation::Relu => ScalarFn::Relu,
    }
}

/// How weights are drawn and scaled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parameterization {
    /// NTK: every weight N(0, 1), each layer's product scaled by 1/sqrt(fan-in); zero biases.
    /// The PINN-BO surrogate (docs/algorithms.md §1).
    Ntk,
    /// He: hidden weights N(0, 2/fan-in), last layer zero so the network starts at h = 0.
    /// The NeuralBO surrogate.
    HeZeroLast,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MlpConfig {
    pub inputs: usize,
    pub width: usize,
    /// Hidden layers.
    pub depth: usize,
    pub activation: Activation,
    pub parameterization: Parameterization,
    /// Hidden layers' biases are drawn N(0, bias_std²) (0: zero biases).
    pub bias_std: f64,
    pub dtype: DType,
}

impl MlpConfig {
    /// A tanh network in the NTK parameterization, f64: the PINN default.
    pub fn new(inputs: usize, width: usize, depth: usize) -> MlpConfig {
        MlpConfig {
            inputs,
            width,
            depth,
            activation: Activation::Tanh,
            parameterization: Parameterization::Ntk,
            bias_std: 0.0,
            dtype: DType::F64,
        }
    }
}

/// One affine layer: weight `[out, in]`, bias `[out]`, and the factor applied to `W x`.
#[derive(Clone, Debug)]
struct Layer {
    weight: Var,
    bias: Var,
    scale: f64,
}

/// A scalar-output MLP.
#[derive(Clone, Debug)]
pub struct Mlp {
    config: MlpConfig,
    layers: Vec<Layer>,
    /// The factor nu on the output (PINN-BO scales the surrogate by nu_t).
    output_scale: f64,
}

impl Mlp {
    /// A network initialized from `seed`: the same seed gives the same weights.
    pub fn new(config: MlpConfig, seed: u64, device: &Device) -> Result<Mlp> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut sizes = vec![config.inputs];
        sizes.extend(std::iter::repeat_n(config.width, config.depth));
        sizes.push(1);
        let last = sizes.len() - 2;
        let mut layers = Vec::with_capacity(sizes.len() - 1);
        for (l, pair) in sizes.windows(2).enumerate() {
            let (fan_in, fan_out) = (pair[0], pair[1]);
            let (std, scale) = match config.parameterization {
                Parameterization::Ntk => (1.0, 1.0 / (fan_in as f64).sqrt()),
                Parameterization::HeZeroLast if l == last => (0.0, 1.0),
                Parameterization::HeZeroLast => ((2.0 / fan_in as f64).sqrt(), 1.0),
            };
            let w: Vec<f64> = (0..fan_in * fan_out)
                .map(|_| {
                    let z: f64 = StandardNormal.sample(&mut rng);
                    std * z
                })
                .collect();
            let weight = Tensor::from_vec(w, (fan_out, fan_in), device)?.to_dtype(config.dtype)?;
            let bias = if config.bias_std > 0.0 && l != last {
                let b: Vec<f64> = (0..fan_out)
                    .map(|_| {
                        config.bias_std * Distribution::<f64>::sample(&StandardNormal, &mut rng)
                    })
                    .collect::<Vec<f64>>();
                Tensor::from_vec(b, fan_out, device)?.to_dtype(config.dtype)?
            } else {
                Tensor::zeros(fan_out, config.dtype, device)?
            };
            layers.push(Layer {
                weight: Var::from_tensor(&weight)?,
                bias: Var::from_tensor(&bias)?,
                scale,
            });
        }
        Ok(Mlp {
            config,
            layers,
            output_scale: 1.0,
        })
    }

    /// An independent copy (`clone` shares the variables).
    pub fn deep_copy(&self) -> Result<Mlp> {
        self.to_dtype(self.config.dtype)
    }

    /// An independent copy with its weights in `dtype`.
    pub fn to_dtype(&self, dtype: DType) -> Result<Mlp> {
        let copy = |v: &Var| Var::from_tensor(&v.as_tensor().to_dtype(dtype)?.copy()?);
        let layers = self
            .layers
            .iter()
            .map(|l| {
                Ok(Layer {
                    weight: copy(&l.weight)?,
                    bias: copy(&l.bias)?,
                    scale: l.scale,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Mlp {
            config: MlpConfig {
                dtype,
                ..self.config.clone()
            },
            layers,
            output_scale: self.output_scale,
        })
    }

    /// Folds the affine map of the box `[lo, hi]` onto `[-1, 1]^d` into the first layer: the
    /// network then takes raw coordinates (so jets give derivatives in them) while its first
    /// layer sees normalized ones, `scale W (a ⊙ x + c) + b`.
    pub fn normalize_inputs(&self, lo: &[f64], hi: &[f64]) -> Result<()> {
        let first = &self.layers[0];
        let w = first.weight.as_tensor();
        let (dtype, device) = (w.dtype(), w.device());
        let a: Vec<f64> = lo.iter().zip(hi).map(|(l, h)| 2.0 / (h - l)).collect();
        let c: Vec<f64> = lo.iter().zip(hi).map(|(l, h)| -(h + l) / (h - l)).collect();
        let a = Tensor::new(a, device)?.to_dtype(dtype)?.unsqueeze(0)?;
        let c = Tensor::new(c, device)?.to_dtype(dtype)?.unsqueeze(1)?;
        let shift = (w.matmul(&c)?.squeeze(1)? * first.scale)?;
        let bias = (first.bias.as_tensor() + shift)?;
        first.weight.set(&w.broadcast_mul(&a)?)?;
        first.bias.set(&bias)
    }

    /// Sets the output layer's bias (so the network starts near a known level).
    pub fn set_output_bias(&self, value: f64) -> Result<()> {
        let last = self.layers.last().expect("a network has an output layer");
        let b = last.bias.as_tensor();
        last.bias
            .set(&Tensor::full(value, b.shape(), b.device())?.to_dtype(b.dtype())?)
    }

    pub fn set_output_scale(&mut self, nu: f64) {
        self.output_scale = nu;
    }

    pub fn output_scale(&self) -> f64 {
        self.output_scale
    }

    pub fn config(&self) -> &MlpConfig {
        &self.config
    }

    /// Where the weights live (and the inputs must).
    pub fn device(&self) -> &Device {
        self.layers[0].weight.device()
    }

    /// The trainable tensors, weights and biases layer by layer.
    pub fn vars(&self) -> Vec<Var> {
        self.layers
            .iter()
            .flat_map(|l| [l.weight.clone(), l.bias.clone()])
            .collect()
    }

    /// Every weight and bias in the order of [`Mlp::vars`] (each layer's weight `[out, in]`
    /// row-major, then its bias), converted to `T` (f64 is exact for f32 networks too).
    pub fn flat_weights<T: WithDType>(&self) -> Result<Vec<T>> {
        let mut flat = Vec::with_capacity(self.parameter_count());
        for var in self.vars() {
            flat.extend(var.flatten_all()?.to_dtype(T::DTYPE)?.to_vec1::<T>()?);
        }
        Ok(flat)
    }

    /// Sets the weights from [`Mlp::flat_weights`]' layout, rounded to the network's dtype.
    pub fn set_flat_weights<T: WithDType>(&self, flat: &[T]) -> Result<()> {
        if flat.len() != self.parameter_count() {
            candle_core::bail!(
                "{} weights for a network of {}",
                flat.len(),
                self.parameter_count()
            );
        }
        let mut rest = flat;
        for var in self.vars() {
            let (now, next) = rest.split_at(var.elem_count());
            let values = Tensor::from_slice(now, var.shape(), var.device())?;
            var.set(&values.to_dtype(var.dtype())?)?;
            rest = next;
        }
        Ok(())
    }

    /// Each affine layer's weight `[out, in]`, bias `[out]` and the factor on `W x`, input
    /// layer first.
    pub(crate) fn layer_parts(&self) -> impl Iterator<Item = (&Var, &Var, f64)> {
        self.layers.iter().map(|l| (&l.weight, &l.bias, l.scale))
    }

    /// The number of parameters p.
    pub fn parameter_count(&self) -> usize {
        self.layers
            .iter()
            .map(|l| l.weight.elem_count() + l.bias.elem_count())
            .sum()
    }

    fn scaled_weight(&self, layer: &Layer) -> Result<Tensor> {
        if layer.scale == 1.0 {
            Ok(layer.weight.as_tensor().clone())
        } else {
            layer.weight.as_tensor() * layer.scale
        }
    }

    /// `scale W x + b` for the rows of `x`.
    fn affine(&self, layer: &Layer, x: &Tensor) -> Result<Tensor> {
        x.matmul(&self.scaled_weight(layer)?.t()?)?
            .broadcast_add(layer.bias.as_tensor())
    }

    /// The last hidden layer's activations φ(x) at `points`, `[N, width]`: the input of the
    /// output layer (NeuralBO's static features are built from them).
    pub fn last_hidden(&self, points: &Tensor) -> Result<Tensor> {
        let mut x = points.clone();
        for layer in &self.layers[..self.layers.len() - 1] {
            x = derivatives(scalar(self.config.activation), &self.affine(layer, &x)?, 0)?
                .swap_remove(0);
        }
        Ok(x)
    }

    /// The output layer's scale times the output scale: `h = factor · W_L φ + output_scale · b_L`.
    pub fn output_layer_factor(&self) -> f64 {
        self.layers.last().map_or(1.0, |l| l.scale) * self.output_scale
    }

    /// h at `points` (`[N, inputs]`), `[N, 1]`.
    pub fn forward(&self, points: &Tensor) -> Result<Tensor> {
        let last = self.layers.last().expect("a network has an output layer");
        let x = self.affine(last, &self.last_hidden(points)?)?;
        if self.output_scale == 1.0 {
            Ok(x)
        } else {
            x * self.output_scale
        }
    }

    /// h at points given row-major (`inputs` values per point), as plain numbers.
    pub fn predict(&self, points: &[f64]) -> Result<Vec<f64>> {
        let d = self.config.inputs;
        let x = Tensor::from_vec(points.to_vec(), (points.len() / d, d), self.device())?
            .to_dtype(self.config.dtype)?;
        self.forward(&x)?
            .flatten_all()?
            .to_dtype(DType::F64)?
            .to_vec1()
    }

    /// The relative L2 error `|h - exact| / |exact|` over points given row-major.
    pub fn relative_l2_error(&self, points: &[f64], exact: impl Fn(&[f64]) -> f64) -> Result<f64> {
        let got = self.predict(points)?;
        let (mut num, mut den) = (0.0, 0.0);
        for (g, q) in got.iter().zip(points.chunks(self.config.inputs)) {
            let e = exact(q);
            num += (g - e).powi(2);
            den += e * e;
        }
        Ok((num / den).sqrt())
    }

    /// The mean squared misfit `mean((h(x) − y)²)` at `points` (`[N, inputs]`) against
    /// `values` (`[N]`), and its gradient with respect to every variable, by a hand-written
    /// backward pass. Data-only training needs nothing else, and the pass skips what candle's
    /// general backward spends on a small network: a zero-filled buffer and an add per node,
    /// and the graph's bookkeeping.
    pub fn misfit_gradients(&self, points: &Tensor, values: &Tensor) -> Result<(f64, GradStore)> {
        let n = points.dim(0)?;
        let f = scalar(self.config.activation);
        // Forward, keeping each layer's input and the activation's derivative there.
        let mut inputs = Vec::with_capacity(self.layers.len());
        let mut slopes = Vec::with_capacity(self.layers.len() - 1);
        let mut a = points.clone();
        for layer in &self.layers[..self.layers.len() - 1] {
            let mut pair = derivatives(f, &self.affine(layer, &a)?, 1)?;
            let slope = pair.pop().expect("order 1 gives two");
            inputs.push(std::mem::replace(
                &mut a,
                pair.pop().expect("and the value"),
            ));
            slopes.push(slope);
        }
        let last = self.layers.last().expect("a network has an output layer");
        let h = (self.affine(last, &a)? * self.output_scale)?;
        inputs.push(a);
        let residual = (h.flatten_all()? - values)?;
        let loss = residual
            .sqr()?
            .mean_all()?
            .to_dtype(DType::F64)?
            .to_scalar::<f64>()?;
        // Backward: dz is ∂loss/∂(pre-activation) of the layer at hand.
        let mut grads = GradStore::default();
        // In autograd's order of roundings: 1/n from the mean, 2 from the square, then ν.
        let mut dz = (((residual * (1.0 / n as f64))? * 2.0)? * self.output_scale)?.unsqueeze(1)?;
        for (l, layer) in self.layers.iter().enumerate().rev() {
            let dw = dz.t()?.matmul(&inputs[l])?;
            let dw = if layer.scale == 1.0 {
                dw
            } else {
                (dw * layer.scale)?
            };
            grads.insert(layer.bias.as_tensor(), dz.sum(0)?);
            if l > 0 {
                let da = self.scaled_weight(layer)?.t()?.matmul(&dz.t()?)?.t()?;
                dz = (da * &slopes[l - 1])?;
            }
            grads.insert(layer.weight.as_tensor(), dw);
        }
        Ok((loss, grads))
    }

    /// h and its input derivatives for the multi-indices of `set`, at `points` (`[N, inputs]`).
    pub fn forward_jet(&self, points: &Tensor, set: &Arc<IndexSet>) -> Result<Jet> {
        Ok(self.forward_jet_traced(points, set, false)?.0)
    }

    /// As [`Mlp::forward_jet`], and with `trace` each layer's input and pre-activation jets
    /// (what the tangent-kernel formulas need; see [`crate::tangent`]).
    pub fn forward_jet_traced(
        &self,
        points: &Tensor,
        set: &Arc<IndexSet>,
        trace: bool,
    ) -> Result<(Jet, Vec<LayerTrace>)> {
        let (n, d) = points.dims2()?;
        let mut traces = Vec::new();
        // The first layer acts on the inputs' jet directly: value x W^T + b, first derivative
        // along x_i the column W[:, i], everything else zero.
        let first = &self.layers[0];
        let w = self.scaled_weight(first)?;
        let width = w.dim(0)?;
        let value = points
            .matmul(&w.t()?)?
            .broadcast_add(first.bias.as_tensor())?;
        let mut slices = vec![value];
        for k in 1..set.len() {
            // Σ over the entry's first-order members of the column W[:, i]; zero otherwise.
            let mut slice: Option<Tensor> = None;
            for alpha in set.members(k) {
                if let [i] = alpha.as_slice() {
                    if *i < d {
                        let column = w.narrow(1, *i, 1)?.t()?;
                        slice = Some(match slice {
                            Some(s) => s.broadcast_add(&column)?,
                            None => column,
                        });
                    }
                }
            }
            slices.push(match slice {
                Some(s) => s.broadcast_as((n, width))?.contiguous()?,
                None => Tensor::zeros((n, width), points.dtype(), points.device())?,
            });
        }
        let mut jet = Jet::new(set.clone(), Tensor::stack(&slices, 0)?)?;
        if trace {
            let inputs = (0..d)
                .map(|i| Jet::coordinate(set.clone(), points, i).map(|j| j.data().clone()))
                .collect::<Result<Vec<_>>>()?;
            let (probed, probe) = with_probe(&jet)?;
            jet = probed;
            traces.push(LayerTrace {
                input: Tensor::cat(&inputs, 2)?,
                probe,
                scale: first.scale,
            });
        }
        // Each layer's bias is added where its output is next used: inside the fused
        // activation kernel, or at the end for the output layer. (The first layer's bias is
        // already in the value.) A probe on the bias-free part sees the same gradient.
        let mut pending_bias: Option<&Tensor> = None;
        for layer in &self.layers[1..] {
            jet = jet.map_shifted(scalar(self.config.activation), pending_bias)?;
            let input = jet.data().detach();
            jet = jet.affine(&self.scaled_weight(layer)?, None)?;
            pending_bias = Some(layer.bias.as_tensor());
            if trace {
                let (probed, probe) = with_probe(&jet)?;
                jet = probed;
                traces.push(LayerTrace {
                    input,
                    probe,
                    scale: layer.scale,
                });
            }
        }
        if let Some(b) = pending_bias {
            jet = jet.shift_value(b)?;
        }
        let out = if self.output_scale == 1.0 {
            jet
        } else {
            jet.scale(self.output_scale)?
        };
        Ok((out, traces))
    }
}

/// One layer's view of a jet forward pass: `pre = scale * W input + b` on every coefficient.
#[derive(Clone, Debug)]
pub struct LayerTrace {
    /// The layer's input jet, `[K, N, fan-in]` (no gradient).
    pub input: Tensor,
    /// A zero variable added to the pre-activation jet (`[K, N, fan-out]`): its gradient is the
    /// backpropagated signal there (candle keeps gradients of variables only).
    pub probe: Var,
    pub scale: f64,
}

/// `jet + 0` with the zero a variable, so that a backward pass reports `∂/∂jet`.
fn with_probe(jet: &Jet) -> Result<(Jet, Var)> {
    let probe = Var::zeros(jet.data().shape(), jet.dtype(), jet.device())?;
    let probed = Jet::new(jet.set().clone(), (jet.data() + probe.as_tensor())?)?;
    Ok((probed, probe))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-written backward pass must give autograd's gradients exactly (softplus to
    /// rounding), so that switching data-only training to it changes no trajectory.
    #[test]
    fn misfit_gradients_equal_autograd_bit_for_bit() -> Result<()> {
        let device = Device::Cpu;
        for (activation, parameterization, dtype) in [
            (Activation::Relu, Parameterization::HeZeroLast, DType::F64),
            (Activation::Tanh, Parameterization::Ntk, DType::F64),
            (Activation::Sin, Parameterization::Ntk, DType::F32),
            (
                Activation::Softplus,
                Parameterization::HeZeroLast,
                DType::F32,
            ),
        ] {
            let config = MlpConfig {
                inputs: 3,
                width: 16,
                depth: 3,
                activation,
                parameterization,
                bias_std: 0.5,
                dtype,
            };
            let mut net = Mlp::new(config, 7, &device)?;
            // Move the zero last layer, and scale the output as PINN-BO does.
            net.set_output_bias(0.3)?;
            let last = net.layers.last().expect("output layer");
            last.weight
                .set(&(last.weight.as_tensor().ones_like()? * 0.1)?)?;
            net.set_output_scale(1.7);
            let x = Tensor::rand(-1f64, 1.0, (9, 3), &device)?.to_dtype(dtype)?;
            let y = Tensor::rand(-1f64, 1.0, 9, &device)?.to_dtype(dtype)?;
            let misfit = (net.forward(&x)?.flatten_all()? - &y)?.sqr()?.mean_all()?;
            let auto = misfit.backward()?;
            let (value, manual) = net.misfit_gradients(&x, &y)?;
            let widen = |t: &Tensor| -> Result<Vec<f64>> {
                t.to_dtype(DType::F64)?.flatten_all()?.to_vec1()
            };
            assert_eq!(value, widen(&misfit)?[0], "{activation:?}");
            for var in net.vars() {
                let expected = widen(auto.get(var.as_tensor()).expect("autograd gradient"))?;
                let got = widen(manual.get(var.as_tensor()).expect("manual gradient"))?;
                assert!(
                    expected.iter().any(|g| *g != 0.0),
                    "{activation:?}: zero gradient"
                );
                if activation == Activation::Softplus {
                    // Autograd differentiates log(1 + eˣ) as eˣ / (1 + eˣ), the hand-written
                    // pass takes the sigmoid: the last bits differ.
                    let top = expected.iter().fold(0f64, |m, g| m.max(g.abs()));
                    for (a, b) in got.iter().zip(&expected) {
                        assert!((a - b).abs() <= 1e-6 * top, "{:?}: {a} vs {b}", var.shape());
                    }
                } else {
                    assert_eq!(got, expected, "{activation:?} {:?}", var.shape());
                }
            }
        }
        Ok(())
    }
}
