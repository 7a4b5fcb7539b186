//! Data-only training of an [`Mlp`] on plain CPU buffers.
//!
//! NeuralBO, Neural-CBO and Neural-Greedy fit a small network to observations thousands of
//! times per run. Through candle a step is a few dozen ops, each allocating its output and
//! synchronizing its threads: at width 500 and a batch of 50 that overhead was three times
//! the arithmetic. Here the weights, gradient and Adam's moments live in one flat buffer each,
//! the layer products are faer matrix products written into scratch reused every step, and
//! Adam is one pass over the flat buffers. [`crate::train::train`] uses this for data-only
//! fits on the CPU; the candle path ([`Mlp::misfit_gradients`]) is the reference a test
//! compares it with.

use super::fit::{Batch, Fit, Observations};
use crate::adam::AdamConstants;
use crate::dense_net::{product, DenseLayers, Real};
use crate::mlp::Mlp;
use candle_core::{Device, Result, Tensor};
use faer::{MatMut, MatRef, Par};

/// Adam's state over the flat parameters, updated in place.
struct AdamState<T> {
    m: Vec<T>,
    v: Vec<T>,
    /// θ0, kept only when the anchor is on.
    start: Vec<T>,
    lr: f64,
    anchor: f64,
    steps: i32,
}

impl<T: Real> AdamState<T> {
    /// One step; returns `anchor · ||θ − θ0||²` at the weights before it.
    fn step(&mut self, theta: &mut [T], grad: &[T]) -> f64 {
        self.steps += 1;
        let constants = AdamConstants::<T>::new(self.lr, self.anchor, self.steps);
        let (m, v) = (&mut self.m, &mut self.v);
        constants.pass(self.anchor, theta, grad, m, v, &self.start)
    }
}

/// A network's parameters and Adam's state as flat buffers, with the data and the scratch of
/// one step.
pub(crate) struct DenseFit<T> {
    /// The weights θ being trained.
    net: DenseLayers<T>,
    /// Every observation, row-major, and its value.
    points: Vec<T>,
    values: Vec<T>,
    grad: Vec<T>,
    adam: AdamState<T>,
    /// Each layer's input for the batch at hand (`[rows, inputs]`), the hidden layers'
    /// activation slopes, and ∂loss/∂(pre-activation) of the layer being differentiated.
    layer_inputs: Vec<Vec<T>>,
    slopes: Vec<Vec<T>>,
    delta: Vec<T>,
    upstream: Vec<T>,
    /// The layer being computed (then the next layer's input, or h).
    outputs: Vec<T>,
    targets: Vec<f64>,
}

impl<T: Real> DenseFit<T> {
    /// Copies `net`'s weights and the observations (`points` row-major, `[n, inputs]`);
    /// the anchor pulls toward `anchor_at`'s weights (a network of `net`'s shape; None:
    /// `net`'s own).
    pub(crate) fn new(
        net: &Mlp,
        anchor_at: Option<&Mlp>,
        data: &Observations,
        lr: f64,
        anchor: f64,
    ) -> Result<Self> {
        let net = DenseLayers::<T>::of(net)?;
        let (p, layers) = (net.theta.len(), net.slots.len());
        let start = match anchor_at {
            _ if anchor <= 0.0 => Vec::new(),
            None => net.theta.clone(),
            Some(anchor_at) => {
                if anchor_at.config().dtype != T::DTYPE {
                    candle_core::bail!(
                        "an anchor in {:?} for weights in {:?}",
                        anchor_at.config().dtype,
                        T::DTYPE
                    );
                }
                let at = DenseLayers::<T>::of(anchor_at)?.theta;
                if at.len() != p {
                    candle_core::bail!("an anchor of {} weights for a network of {p}", at.len());
                }
                at
            }
        };
        Ok(DenseFit {
            points: data.points.flatten_all()?.to_vec1()?,
            values: data.values.flatten_all()?.to_vec1()?,
            grad: vec![T::from_f64(0.0); p],
            adam: AdamState {
                m: vec![T::from_f64(0.0); p],
                v: vec![T::from_f64(0.0); p],
                start,
                lr,
                anchor,
                steps: 0,
            },
            net,
            layer_inputs: vec![Vec::new(); layers],
            slopes: vec![Vec::new(); layers - 1],
            delta: Vec::new(),
            upstream: Vec::new(),
            outputs: Vec::new(),
            targets: Vec::new(),
        })
    }

    /// Whether `net` and its data can be trained here: on the CPU, in `T`.
    pub(crate) fn supports(net: &Mlp, data: &Observations) -> bool {
        let on_cpu = |t: &Tensor| matches!(t.device(), Device::Cpu) && t.dtype() == T::DTYPE;
        net.config().dtype == T::DTYPE && on_cpu(&data.points) && on_cpu(&data.values)
    }

    /// The mean squared misfit over the observations `batch` (None: all), leaving its
    /// gradient in `self.grad`.
    fn misfit_gradient(&mut self, batch: Option<&[u32]>) -> f64 {
        let d = self.net.inputs;
        let rows = batch.map_or(self.values.len(), <[u32]>::len);
        let targets = &mut self.targets;
        targets.clear();
        let first = &mut self.layer_inputs[0];
        first.clear();
        match batch {
            Some(index) => {
                for &i in index {
                    let i = i as usize;
                    first.extend_from_slice(&self.points[i * d..(i + 1) * d]);
                    targets.push(self.values[i].to_f64());
                }
            }
            None => {
                first.extend_from_slice(&self.points);
                targets.extend(self.values.iter().map(|v| v.to_f64()));
            }
        }
        self.forward(rows);
        // ∂/∂h of mean (h − y)², times ν for the output scale.
        let (nu, factor) = (
            self.net.output_scale,
            2.0 / rows as f64 * self.net.output_scale,
        );
        let mut loss = 0.0;
        self.delta.clear();
        for (z, y) in self.outputs.iter().zip(&self.targets) {
            let r = z.to_f64() * nu - y;
            loss += r * r;
            self.delta.push(T::from_f64(factor * r));
        }
        self.backward(rows);
        loss / rows as f64
    }

    /// Pushes `layer_inputs[0]` (`rows` points) through the network, keeping each layer's
    /// input and slope; leaves h / ν in `outputs`.
    fn forward(&mut self, rows: usize) {
        let last = self.net.slots.len() - 1;
        let out = &mut self.outputs;
        for l in 0..=last {
            self.net
                .affine(l, &self.layer_inputs[l], rows, out, Par::rayon(0));
            if l == last {
                break;
            }
            let slope = &mut self.slopes[l];
            slope.clear();
            for z in out.iter_mut() {
                let (value, derivative) = T::activate(self.net.activation, *z);
                *z = value;
                slope.push(derivative);
            }
            std::mem::swap(&mut self.layer_inputs[l + 1], out);
        }
    }

    /// From `delta` (∂loss/∂ output, `[rows, 1]`) back to every parameter's gradient.
    fn backward(&mut self, rows: usize) {
        for (l, layer) in self.net.slots.iter().enumerate().rev() {
            let (grad_w, grad_b) = self.grad[layer.weight..layer.bias() + layer.outputs]
                .split_at_mut(layer.inputs * layer.outputs);
            let delta = MatRef::from_row_major_slice(&self.delta, rows, layer.outputs);
            product(
                MatMut::from_row_major_slice_mut(grad_w, layer.outputs, layer.inputs),
                delta.transpose(),
                MatRef::from_row_major_slice(&self.layer_inputs[l], rows, layer.inputs),
                layer.scale,
                false,
                Par::rayon(0),
            );
            grad_b.fill(T::from_f64(0.0));
            for row in self.delta.chunks(layer.outputs) {
                for (g, x) in grad_b.iter_mut().zip(row) {
                    *g += *x;
                }
            }
            if l == 0 {
                break;
            }
            self.upstream.resize(rows * layer.inputs, T::from_f64(0.0));
            product(
                MatMut::from_row_major_slice_mut(&mut self.upstream, rows, layer.inputs),
                delta,
                MatRef::from_row_major_slice(
                    &self.net.theta[layer.weight..layer.bias()],
                    layer.outputs,
                    layer.inputs,
                ),
                layer.scale,
                false,
                Par::rayon(0),
            );
            for (u, s) in self.upstream.iter_mut().zip(&self.slopes[l - 1]) {
                *u *= *s;
            }
            std::mem::swap(&mut self.delta, &mut self.upstream);
        }
    }

    /// Writes the trained weights back into `net`'s variables.
    pub(crate) fn write_back(&self, net: &Mlp) -> Result<()> {
        self.net.write_back(net)
    }
}

impl<T: Real> Fit for DenseFit<T> {
    type Weights = Vec<T>;

    fn gradient(&mut self, batch: &Batch) -> Result<f64> {
        Ok(self.misfit_gradient(batch.observations.as_deref()))
    }

    fn step(&mut self) -> Result<f64> {
        Ok(self.adam.step(&mut self.net.theta, &self.grad))
    }

    fn weights(&self) -> Result<Vec<T>> {
        Ok(self.net.theta.clone())
    }

    fn restore(&mut self, weights: Vec<T>) -> Result<()> {
        self.net.theta = weights;
        Ok(())
    }

    fn learning_rate(&self) -> f64 {
        self.adam.lr
    }

    fn set_learning_rate(&mut self, lr: f64) {
        self.adam.lr = lr;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adam::Adam;
    use crate::dense_net::test_networks::{every_kind, network};
    use crate::mlp::{Activation, Parameterization};
    use candle_core::DType;

    fn observations(dtype: DType) -> Observations {
        let device = Device::Cpu;
        let points: Vec<f64> = (0..30).map(|i| ((i * 7 % 11) as f64 / 5.0) - 1.0).collect();
        let values: Vec<f64> = points
            .chunks(3)
            .map(|p| (p[0] * 2.0).sin() + p[1] * p[2])
            .collect();
        Observations {
            points: Tensor::from_vec(points, (10, 3), &device)
                .unwrap()
                .to_dtype(dtype)
                .unwrap(),
            values: Tensor::from_vec(values, 10, &device)
                .unwrap()
                .to_dtype(dtype)
                .unwrap(),
        }
    }

    /// The largest difference between the flat buffer and the candle variables, relative to
    /// the largest magnitude.
    fn relative_gap<T: Real>(flat: &[T], tensors: &[Tensor]) -> f64 {
        let mut reference = Vec::new();
        for t in tensors {
            reference.extend(
                t.flatten_all()
                    .unwrap()
                    .to_dtype(DType::F64)
                    .unwrap()
                    .to_vec1::<f64>()
                    .unwrap(),
            );
        }
        assert_eq!(flat.len(), reference.len());
        let scale = reference.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let gap = flat
            .iter()
            .zip(&reference)
            .fold(0.0f64, |m, (a, b)| m.max((a.to_f64() - b).abs()));
        gap / scale
    }

    /// Every activation and parameterization, f64 and f32: the flat gradient is candle's
    /// hand-written backward pass up to rounding, on a batch and on all the data.
    #[test]
    fn gradients_match_the_candle_backward_pass() {
        let batch: [u32; 4] = [7, 2, 9, 4];
        for dtype in [DType::F64, DType::F32] {
            let bound = if dtype == DType::F64 { 1e-12 } else { 1e-5 };
            let data = observations(dtype);
            for (activation, parameterization) in every_kind() {
                let net = network(activation, parameterization, dtype, 24);
                for subset in [Some(&batch[..]), None] {
                    let (points, values) = match subset {
                        Some(index) => {
                            let index = Tensor::new(index, &Device::Cpu).unwrap();
                            (
                                data.points.index_select(&index, 0).unwrap(),
                                data.values.index_select(&index, 0).unwrap(),
                            )
                        }
                        None => (data.points.clone(), data.values.clone()),
                    };
                    let (loss, grads) = net.misfit_gradients(&points, &values).unwrap();
                    let grads: Vec<Tensor> = net
                        .vars()
                        .iter()
                        .map(|v| grads.get(v.as_tensor()).unwrap().clone())
                        .collect();
                    let check = |fit: &mut dyn FnMut() -> (f64, f64)| {
                        let (value, gap) = fit();
                        assert!(
                            (value - loss).abs() <= bound * loss,
                            "{activation:?} {parameterization:?} {dtype:?}: loss {value} vs {loss}"
                        );
                        assert!(
                            gap <= bound,
                            "{activation:?} {parameterization:?} {dtype:?}: gradient off by {gap}"
                        );
                    };
                    if dtype == DType::F64 {
                        let mut fit = DenseFit::<f64>::new(&net, None, &data, 1e-3, 0.0).unwrap();
                        check(&mut || {
                            let value = fit.misfit_gradient(subset);
                            (value, relative_gap(&fit.grad, &grads))
                        });
                    } else {
                        let mut fit = DenseFit::<f32>::new(&net, None, &data, 1e-3, 0.0).unwrap();
                        check(&mut || {
                            let value = fit.misfit_gradient(subset);
                            (value, relative_gap(&fit.grad, &grads))
                        });
                    }
                }
            }
        }
    }

    /// Adam with the anchor, twenty steps on the flat buffers and on candle's variables:
    /// the same weights and anchor values up to rounding.
    #[test]
    fn adam_steps_match_the_candle_optimizer() {
        let data = observations(DType::F64);
        let net = network(Activation::Tanh, Parameterization::Ntk, DType::F64, 24);
        let mut fit = DenseFit::<f64>::new(&net, None, &data, 1e-2, 0.05).unwrap();
        let reference = net.deep_copy().unwrap();
        let mut adam = Adam::new(reference.vars(), 1e-2, 0.05).unwrap();
        for _ in 0..20 {
            fit.misfit_gradient(None);
            let penalty = Fit::step(&mut fit).unwrap();
            let (_, grads) = reference
                .misfit_gradients(&data.points, &data.values)
                .unwrap();
            let expected = adam.step(&grads).unwrap();
            assert!(
                (penalty - expected).abs() <= 1e-10 * expected.max(1e-300),
                "{penalty} vs {expected}"
            );
        }
        let weights: Vec<Tensor> = reference
            .vars()
            .iter()
            .map(|v| v.as_tensor().clone())
            .collect();
        assert!(relative_gap(&fit.net.theta, &weights) < 1e-10);
        // Written back, the network predicts what the buffers hold.
        fit.write_back(&net).unwrap();
        let gap = relative_gap(
            &fit.net.theta,
            &net.vars()
                .iter()
                .map(|v| v.as_tensor().clone())
                .collect::<Vec<_>>(),
        );
        assert_eq!(gap, 0.0);
    }
}
