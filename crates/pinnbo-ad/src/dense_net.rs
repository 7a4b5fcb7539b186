//! An [`Mlp`]'s weights on flat CPU buffers: the layout `train/dense_fit.rs` trains, and
//! [`DenseNet`], a frozen copy for evaluating a network at many points.
//!
//! The neural methods score tens of thousands of candidates per step with a trained network.
//! Through candle each batch is a few ops that allocate their outputs and synchronize their
//! threads; here a batch is one faer product per layer into kept scratch, with the bias and
//! the activation applied in one pass.

use crate::adam::Moment;
use crate::mlp::{Activation, Mlp};
use candle_core::{DType, Result};
use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};

/// The element types kept here: what faer multiplies, candle stores and Adam updates.
pub(crate) trait Real: Moment + faer::traits::ComplexField {
    /// `(g(z), g'(z))` of the activation.
    fn activate(activation: Activation, z: Self) -> (Self, Self);
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            fn activate(activation: Activation, z: $t) -> ($t, $t) {
                match activation {
                    Activation::Relu => (z.max(0.0), if z > 0.0 { 1.0 } else { 0.0 }),
                    Activation::Tanh => {
                        let t = z.tanh();
                        (t, 1.0 - t * t)
                    }
                    Activation::Sin => (z.sin(), z.cos()),
                    Activation::Softplus => ((z.exp() + 1.0).ln(), 1.0 / ((-z).exp() + 1.0)),
                }
            }
        }
    };
}
real!(f32);
real!(f64);

/// `dst = alpha · lhs · rhs`, or `dst += alpha · lhs · rhs` with `add`; the vector
/// registers' upper halves cleared after it (every faer product goes through here).
#[allow(clippy::disallowed_methods)]
pub(crate) fn product<T: Real>(
    dst: MatMut<T>,
    lhs: MatRef<T>,
    rhs: MatRef<T>,
    alpha: f64,
    add: bool,
    par: Par,
) {
    let accum = if add { Accum::Add } else { Accum::Replace };
    matmul(dst, accum, lhs, rhs, T::from_f64(alpha), par);
    crate::vector_state::clear_upper();
}

/// Where one affine layer `scale W x + b` lives in the flat parameter buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LayerSlot {
    pub(crate) inputs: usize,
    pub(crate) outputs: usize,
    pub(crate) scale: f64,
    /// Offset of `W` (`[outputs, inputs]`, row-major); `b` follows it.
    pub(crate) weight: usize,
}

impl LayerSlot {
    pub(crate) fn bias(&self) -> usize {
        self.weight + self.inputs * self.outputs
    }
}

/// A network's parameters in one flat buffer, layer by layer (weights then bias), in `T`.
#[derive(Clone, Debug)]
pub(crate) struct DenseLayers<T> {
    pub(crate) activation: Activation,
    pub(crate) slots: Vec<LayerSlot>,
    /// The factor ν on the output layer.
    pub(crate) output_scale: f64,
    pub(crate) inputs: usize,
    pub(crate) theta: Vec<T>,
}

impl<T: Real> DenseLayers<T> {
    /// A copy of `net`'s weights in `T` ([`Mlp::flat_weights`]' layout).
    pub(crate) fn of(net: &Mlp) -> Result<Self> {
        let mut slots = Vec::new();
        let mut offset = 0;
        for (weight, _, scale) in net.layer_parts() {
            let (outputs, inputs) = weight.dims2()?;
            slots.push(LayerSlot {
                inputs,
                outputs,
                scale,
                weight: offset,
            });
            offset += (inputs + 1) * outputs;
        }
        let theta = net.flat_weights::<T>()?;
        Ok(DenseLayers {
            activation: net.config().activation,
            slots,
            output_scale: net.output_scale(),
            inputs: net.config().inputs,
            theta,
        })
    }

    /// `out = b + scale W x` of layer `l` for the `rows` rows of `input`.
    pub(crate) fn affine(&self, l: usize, input: &[T], rows: usize, out: &mut Vec<T>, par: Par) {
        let slot = self.slots[l];
        let b = &self.theta[slot.bias()..slot.bias() + slot.outputs];
        out.clear();
        for _ in 0..rows {
            out.extend_from_slice(b);
        }
        product(
            MatMut::from_row_major_slice_mut(out, rows, slot.outputs),
            MatRef::from_row_major_slice(input, rows, slot.inputs),
            MatRef::from_row_major_slice(
                &self.theta[slot.weight..slot.bias()],
                slot.outputs,
                slot.inputs,
            )
            .transpose(),
            slot.scale,
            true,
            par,
        );
    }

    /// The last hidden layer's activations φ(x) for the `rows` rows of `input`, left in
    /// `hidden` (`spare` is scratch).
    fn last_hidden(&self, input: &[T], rows: usize, hidden: &mut Vec<T>, spare: &mut Vec<T>) {
        let hidden_layers = self.slots.len() - 1;
        for l in 0..hidden_layers {
            let source = if l == 0 { input } else { &spare[..] };
            self.affine(l, source, rows, hidden, Par::Seq);
            for z in hidden.iter_mut() {
                *z = T::activate(self.activation, *z).0;
            }
            if l + 1 < hidden_layers {
                std::mem::swap(hidden, spare);
            }
        }
    }

    /// The output layer as a readout of φ: `h = φᵀ w + c`.
    fn readout(&self) -> (Vec<f64>, f64) {
        let slot = *self.slots.last().expect("a network has an output layer");
        let factor = slot.scale * self.output_scale;
        let w = self.theta[slot.weight..slot.bias()]
            .iter()
            .map(|v| v.to_f64() * factor)
            .collect();
        (w, self.theta[slot.bias()].to_f64() * self.output_scale)
    }

    /// `φ(x)ᵀ w + c` at the rows of `points` (f64, `[n, inputs]`), a block of rows at a time.
    fn project(&self, points: &[f64], w: &[f64], c: f64) -> Vec<f64> {
        let d = self.inputs;
        let mut values = Vec::with_capacity(points.len() / d);
        let (mut input, mut hidden, mut spare) = (Vec::new(), Vec::new(), Vec::new());
        for block in points.chunks(BLOCK * d) {
            let rows = block.len() / d;
            input.clear();
            input.extend(block.iter().map(|v| T::from_f64(*v)));
            self.last_hidden(&input, rows, &mut hidden, &mut spare);
            values.extend(hidden.chunks(w.len()).map(|phi| {
                phi.iter()
                    .zip(w)
                    .fold(c, |sum, (p, wi)| sum + p.to_f64() * wi)
            }));
        }
        values
    }

    /// Writes these weights into `net`'s variables.
    pub(crate) fn write_back(&self, net: &Mlp) -> Result<()> {
        net.set_flat_weights(&self.theta)
    }
}

/// Rows evaluated at once: a width-500 layer's activations for them (0.5 MB in f32) stay in
/// cache.
const BLOCK: usize = 256;

/// A frozen copy of a network for evaluating it at many points on the CPU, in the network's
/// precision (f32 or f64; inputs and results are f64). Single-threaded: callers parallelize
/// over batches of points.
#[derive(Clone, Debug)]
pub struct DenseNet {
    layers: Precision,
    /// The output layer as a readout of the last hidden layer, `h = φᵀ w + c`.
    readout: (Vec<f64>, f64),
}

#[derive(Clone, Debug)]
enum Precision {
    F32(DenseLayers<f32>),
    F64(DenseLayers<f64>),
}

impl DenseNet {
    /// A copy of `net`'s current weights (f32 or f64).
    pub fn new(net: &Mlp) -> Result<DenseNet> {
        let (layers, readout) = match net.config().dtype {
            DType::F32 => {
                let layers = DenseLayers::<f32>::of(net)?;
                let readout = layers.readout();
                (Precision::F32(layers), readout)
            }
            DType::F64 => {
                let layers = DenseLayers::<f64>::of(net)?;
                let readout = layers.readout();
                (Precision::F64(layers), readout)
            }
            other => candle_core::bail!("dense networks are f32 or f64, not {other:?}"),
        };
        Ok(DenseNet { layers, readout })
    }

    /// h at the rows of `points` (`[n, inputs]`, row-major), as [`Mlp::forward`] computes it.
    pub fn forward(&self, points: &[f64]) -> Vec<f64> {
        let (w, c) = &self.readout;
        self.project(points, w, *c)
    }

    /// `φ(x)ᵀ w + c` at the rows of `points`, with φ the last hidden layer's activations
    /// ([`Mlp::last_hidden`]) and `w` one weight per hidden unit: a linear readout other
    /// than the network's own.
    pub fn project(&self, points: &[f64], w: &[f64], c: f64) -> Vec<f64> {
        match &self.layers {
            Precision::F32(n) => n.project(points, w, c),
            Precision::F64(n) => n.project(points, w, c),
        }
    }
}

/// Small networks of every kind, for the tests comparing flat buffers with candle.
#[cfg(test)]
pub(crate) mod test_networks {
    use crate::mlp::{Activation, Mlp, MlpConfig, Parameterization};
    use candle_core::{DType, Device};

    /// Every activation with every parameterization.
    pub(crate) fn every_kind() -> impl Iterator<Item = (Activation, Parameterization)> {
        let activations = [
            Activation::Relu,
            Activation::Tanh,
            Activation::Sin,
            Activation::Softplus,
        ];
        activations
            .into_iter()
            .flat_map(|a| [Parameterization::Ntk, Parameterization::HeZeroLast].map(|p| (a, p)))
    }

    /// Three inputs, two hidden layers of `width`, biases N(0, 0.25), output scale 1.7.
    pub(crate) fn network(
        activation: Activation,
        parameterization: Parameterization,
        dtype: DType,
        width: usize,
    ) -> Mlp {
        let config = MlpConfig {
            activation,
            parameterization,
            bias_std: 0.5,
            dtype,
            ..MlpConfig::new(3, width, 2)
        };
        let mut net = Mlp::new(config, 7, &Device::Cpu).unwrap();
        net.set_output_scale(1.7);
        net
    }
}

#[cfg(test)]
mod tests {
    use super::test_networks::{every_kind, network};
    use super::*;
    use candle_core::{Device, Tensor};

    /// Every activation and parameterization, f64 and f32: the dense network's outputs and
    /// projections are candle's up to rounding, across several row blocks.
    #[test]
    fn dense_networks_match_the_candle_forward_pass() {
        let rows = 2 * BLOCK + 37;
        let points: Vec<f64> = (0..rows * 3)
            .map(|i| ((i * 7919 % 1013) as f64 / 506.5) - 1.0)
            .collect();
        for dtype in [DType::F64, DType::F32] {
            let bound = if dtype == DType::F64 { 1e-12 } else { 1e-5 };
            for (activation, parameterization) in every_kind() {
                let net = network(activation, parameterization, dtype, 40);
                net.set_output_bias(0.25).unwrap();
                let x = Tensor::from_vec(points.clone(), (rows, 3), &Device::Cpu)
                    .unwrap()
                    .to_dtype(dtype)
                    .unwrap();
                let column = |t: Tensor| -> Vec<f64> {
                    t.flatten_all()
                        .unwrap()
                        .to_dtype(DType::F64)
                        .unwrap()
                        .to_vec1()
                        .unwrap()
                };
                let w: Vec<f64> = (0..40).map(|i| (i as f64 * 0.37).sin()).collect();
                let readout = Tensor::new(w.as_slice(), &Device::Cpu)
                    .unwrap()
                    .to_dtype(dtype)
                    .unwrap()
                    .unsqueeze(1)
                    .unwrap();
                let expected = [
                    column(net.forward(&x).unwrap()),
                    column((net.last_hidden(&x).unwrap().matmul(&readout).unwrap() - 0.5).unwrap()),
                ];
                let dense = DenseNet::new(&net).unwrap();
                let got = [dense.forward(&points), dense.project(&points, &w, -0.5)];
                for (g, e) in got.iter().zip(&expected) {
                    assert_eq!(g.len(), rows);
                    let scale = e.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                    let gap = g
                        .iter()
                        .zip(e)
                        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
                    assert!(
                        gap <= bound * scale,
                        "{activation:?} {parameterization:?} {dtype:?}: off by {gap} of {scale}"
                    );
                }
            }
        }
    }
}
