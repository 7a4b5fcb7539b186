//! Adam updating candle variables in place, with the pull `a ||θ − θ0||²` toward the initial
//! weights folded into the update instead of the loss graph.
//!
//! candle-nn's optimizer builds about fifteen full-size temporaries per variable and step;
//! for the 255k parameters of a width-500 NeuralBO network that was 3/4 of a training step
//! (page faults included). One pass per variable here reads the gradient and updates θ and
//! both moments in place. The arithmetic is candle-nn's AdamW with no weight decay (a test
//! compares them).
//!
//! The fused pass is a CPU kernel. Variables on another device (a GPU) are updated by the same
//! arithmetic as candle tensor ops there, their moments kept beside them in their own dtype.

use candle_core::backprop::GradStore;
use candle_core::{CpuStorage, InplaceOp2, Layout, Result, Tensor, Var, WithDType};
use rayon::prelude::*;
use std::cell::Cell;
use std::sync::Mutex;

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPS: f64 = 1e-8;

#[derive(Default)]
struct Moments {
    m: Vec<f64>,
    v: Vec<f64>,
    /// θ0, kept only when the anchor is on.
    start: Vec<f64>,
}

/// Adam's moments as tensors on the variable's device (and θ0 with the anchor on).
struct DeviceMoments {
    m: Tensor,
    v: Tensor,
    start: Option<Tensor>,
}

struct Slot {
    var: Var,
    /// The CPU's fused pass; empty when `on_device` holds the moments.
    moments: Mutex<Moments>,
    on_device: Option<DeviceMoments>,
}

pub struct Adam {
    slots: Vec<Slot>,
    lr: f64,
    anchor: f64,
    steps: i32,
}

impl Adam {
    /// Adam over `vars` with learning rate `lr` and the pull `anchor · ||θ − θ0||²` (θ0 the
    /// values now; 0 for none).
    pub fn new(vars: Vec<Var>, lr: f64, anchor: f64) -> Result<Adam> {
        let at = vars.clone();
        Adam::toward(vars, &at, lr, anchor)
    }

    /// As [`Adam::new`], with θ0 the values of `anchor_at` (one per var, same shapes): a
    /// warm start from other weights still pulls toward the initial ones.
    pub fn toward(vars: Vec<Var>, anchor_at: &[Var], lr: f64, anchor: f64) -> Result<Adam> {
        if anchor_at.len() != vars.len() {
            candle_core::bail!(
                "{} anchor tensors for {} variables",
                anchor_at.len(),
                vars.len()
            );
        }
        let slots = vars
            .into_iter()
            .zip(anchor_at)
            .map(|(var, at)| {
                let n = var.elem_count();
                if at.shape() != var.shape() {
                    candle_core::bail!("anchor {:?} for a variable {:?}", at.shape(), var.shape());
                }
                if !var.device().is_cpu() {
                    let zeros = var.zeros_like()?;
                    let start = (anchor > 0.0).then(|| at.as_tensor().copy()).transpose()?;
                    return Ok(Slot {
                        var,
                        moments: Mutex::new(Moments::default()),
                        on_device: Some(DeviceMoments {
                            m: zeros.clone(),
                            v: zeros,
                            start,
                        }),
                    });
                }
                let start = if anchor > 0.0 {
                    at.as_tensor()
                        .flatten_all()?
                        .to_dtype(candle_core::DType::F64)?
                        .to_vec1()?
                } else {
                    Vec::new()
                };
                Ok(Slot {
                    var,
                    moments: Mutex::new(Moments {
                        m: vec![0.0; n],
                        v: vec![0.0; n],
                        start,
                    }),
                    on_device: None,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Adam {
            slots,
            lr,
            anchor,
            steps: 0,
        })
    }

    pub fn learning_rate(&self) -> f64 {
        self.lr
    }

    pub fn set_learning_rate(&mut self, lr: f64) {
        self.lr = lr;
    }

    /// One step from the gradients of the loss without the anchor; returns the anchor's
    /// value `a ||θ − θ0||²` at the weights the gradients were taken at.
    pub fn step(&mut self, grads: &GradStore) -> Result<f64> {
        self.steps += 1;
        let constants = AdamConstants::new(self.lr, self.anchor, self.steps);
        let mut penalty = 0.0;
        // The device's penalties are summed there and read once: each read waits for the GPU.
        let mut on_device: Option<Tensor> = None;
        for slot in &mut self.slots {
            let Some(grad) = grads.get(slot.var.as_tensor()) else {
                continue;
            };
            if let Some(moments) = &mut slot.on_device {
                if let Some(part) = moments.step(&slot.var, grad, &constants, self.anchor)? {
                    on_device = Some(match on_device {
                        Some(sum) => (sum + part)?,
                        None => part,
                    });
                }
                continue;
            }
            let update = Update {
                moments: &slot.moments,
                constants,
                anchor: self.anchor,
                penalty: Cell::new(0.0),
            };
            slot.var.as_tensor().inplace_op2(grad, &update)?;
            penalty += update.penalty.get();
        }
        if let Some(sum) = on_device {
            penalty += sum.to_dtype(candle_core::DType::F64)?.to_scalar::<f64>()?;
        }
        Ok(penalty)
    }

    /// Backpropagates `loss` and steps; returns the anchor's value as [`Adam::step`].
    pub fn backward_step(&mut self, loss: &Tensor) -> Result<f64> {
        let grads = loss.backward()?;
        self.step(&grads)
    }
}

struct Update<'a> {
    moments: &'a Mutex<Moments>,
    constants: AdamConstants<f64>,
    anchor: f64,
    penalty: Cell<f64>,
}

/// The types Adam's moments are kept in: candle's element types, with a square root.
pub(crate) trait Moment: WithDType {
    fn root(self) -> Self;
}

impl Moment for f64 {
    fn root(self) -> f64 {
        self.sqrt()
    }
}

impl Moment for f32 {
    fn root(self) -> f32 {
        self.sqrt()
    }
}

/// Elements per parallel task: large enough to amortize the split.
const TASK: usize = 1 << 14;

/// One step's factors in the moments' type, hoisted so that the update vectorizes:
/// `θ -= rate m / (sqrt(v unbias) + ε)`.
#[derive(Clone, Copy)]
pub(crate) struct AdamConstants<T> {
    beta1: T,
    beta2: T,
    eps: T,
    /// lr over the first moment's bias correction, and one over the second's.
    rate: T,
    unbias: T,
    /// Twice the anchor: the pull's gradient is `pull (θ − θ0)`.
    pull: T,
}

impl<T: Moment> AdamConstants<T> {
    /// For step number `steps` (from 1) with learning rate `lr` and the pull `anchor`.
    pub(crate) fn new(lr: f64, anchor: f64, steps: i32) -> Self {
        AdamConstants {
            beta1: T::from_f64(BETA1),
            beta2: T::from_f64(BETA2),
            eps: T::from_f64(EPS),
            rate: T::from_f64(lr / (1.0 - BETA1.powi(steps))),
            unbias: T::from_f64(1.0 / (1.0 - BETA2.powi(steps))),
            pull: T::from_f64(2.0 * anchor),
        }
    }

    /// The moments' update at one parameter `x` with gradient `g`; returns the new `x`.
    #[inline(always)]
    fn moved(&self, x: T, g: T, m: &mut T, v: &mut T) -> T {
        let one = T::from_f64(1.0);
        *m = self.beta1 * *m + (one - self.beta1) * g;
        *v = self.beta2 * *v + (one - self.beta2) * g * g;
        x - self.rate * *m / ((*v * self.unbias).root() + self.eps)
    }

    /// Updates parameters `theta` (any candle type `P`) from `grad`, with the pull toward
    /// `start` when it is given.
    fn update<P: WithDType>(
        &self,
        theta: &mut [P],
        grad: &[P],
        m: &mut [T],
        v: &mut [T],
        start: Option<&[T]>,
    ) {
        let wide = |p: P| T::from_f64(p.to_f64());
        match start {
            Some(start) => {
                for i in 0..theta.len() {
                    let x = wide(theta[i]);
                    let g = wide(grad[i]) + self.pull * (x - start[i]);
                    theta[i] = P::from_f64(self.moved(x, g, &mut m[i], &mut v[i]).to_f64());
                }
            }
            None => {
                for i in 0..theta.len() {
                    let x = self.moved(wide(theta[i]), wide(grad[i]), &mut m[i], &mut v[i]);
                    theta[i] = P::from_f64(x.to_f64());
                }
            }
        }
    }

    /// One step over flat slices in parallel tasks; `start` is θ0, empty when `anchor` is 0.
    /// Returns `anchor · ||θ − θ0||²` at the weights before the step.
    pub(crate) fn pass<P: WithDType>(
        &self,
        anchor: f64,
        theta: &mut [P],
        grad: &[P],
        m: &mut [T],
        v: &mut [T],
        start: &[T],
    ) -> f64 {
        let chunks = theta
            .par_chunks_mut(TASK)
            .zip(grad.par_chunks(TASK))
            .zip(m.par_chunks_mut(TASK))
            .zip(v.par_chunks_mut(TASK));
        if anchor == 0.0 {
            chunks.for_each(|(((t, g), m), v)| self.update(t, g, m, v, None));
            return 0.0;
        }
        // Per-task sums collected in order, then added: the same total on every run.
        let partial: Vec<f64> = chunks
            .zip(start.par_chunks(TASK))
            .map(|((((t, g), m), v), s)| {
                let distance = squared_distance(t, s, P::to_f64, T::to_f64);
                self.update(t, g, m, v, Some(s));
                distance
            })
            .collect();
        anchor * partial.iter().sum::<f64>()
    }
}

impl DeviceMoments {
    /// One step of `var` by tensor ops on its device: the fused pass's arithmetic. Returns
    /// the anchor's `a ||θ − θ0||²` before the step, as a scalar tensor there (None without
    /// the anchor).
    fn step(
        &mut self,
        var: &Var,
        grad: &Tensor,
        c: &AdamConstants<f64>,
        anchor: f64,
    ) -> Result<Option<Tensor>> {
        let theta = var.as_tensor();
        let (grad, penalty) = match &self.start {
            Some(start) => {
                let offset = (theta - start)?;
                let penalty = (offset.sqr()?.sum_all()? * anchor)?;
                ((grad + (offset * c.pull)?)?, Some(penalty))
            }
            None => (grad.clone(), None),
        };
        self.m = ((&self.m * c.beta1)? + (&grad * (1.0 - c.beta1))?)?;
        self.v = ((&self.v * c.beta2)? + (grad.sqr()? * (1.0 - c.beta2))?)?;
        let denominator = ((&self.v * c.unbias)?.sqrt()? + c.eps)?;
        let moved = (theta - ((&self.m * c.rate)? / denominator)?)?;
        var.set(&moved)?;
        Ok(penalty)
    }
}

impl Update<'_> {
    fn apply<P: WithDType>(&self, theta: &mut [P], grad: &[P]) {
        let mut moments = self.moments.lock().unwrap_or_else(|e| e.into_inner());
        let Moments { m, v, start } = &mut *moments;
        let penalty = self.constants.pass(self.anchor, theta, grad, m, v, start);
        self.penalty.set(penalty);
    }
}

/// `Σ (a − b)²` in f64 over two slices (each element widened by `wa`, `wb`), summed in eight
/// interleaved lanes (a fixed order, so the same on every run) rather than one serial chain
/// that would stop the loop vectorizing.
pub(crate) fn squared_distance<A: Copy, B: Copy>(
    a: &[A],
    b: &[B],
    wa: impl Fn(A) -> f64,
    wb: impl Fn(B) -> f64,
) -> f64 {
    let mut lanes = [0.0f64; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f64 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| (wa(*x) - wb(*y)).powi(2))
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for k in 0..8 {
            let offset = wa(x[k]) - wb(y[k]);
            lanes[k] += offset * offset;
        }
    }
    lanes.iter().sum::<f64>() + tail
}

fn contiguous(layout: &Layout) -> Result<std::ops::Range<usize>> {
    match layout.contiguous_offsets() {
        Some((start, end)) => Ok(start..end),
        None => candle_core::bail!("adam: a variable or gradient is not contiguous"),
    }
}

impl InplaceOp2 for Update<'_> {
    fn name(&self) -> &'static str {
        "adam"
    }

    fn cpu_fwd(
        &self,
        s1: &mut CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<()> {
        let (r1, r2) = (contiguous(l1)?, contiguous(l2)?);
        match (s1, s2) {
            (CpuStorage::F64(theta), CpuStorage::F64(grad)) => {
                self.apply(&mut theta[r1], &grad[r2]);
            }
            (CpuStorage::F32(theta), CpuStorage::F32(grad)) => {
                self.apply(&mut theta[r1], &grad[r2]);
            }
            _ => candle_core::bail!("adam: variables must be f32 or f64, like their gradients"),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device};
    use candle_nn::{AdamW, Optimizer, ParamsAdamW};

    fn quadratic_loss(x: &Var, target: &Tensor) -> Result<Tensor> {
        (x.as_tensor() - target)?.sqr()?.sum_all()
    }

    /// Without the anchor the update is candle-nn's AdamW with no weight decay; with it, the
    /// same as AdamW on the loss plus `a ||θ − θ0||²` in the graph.
    #[test]
    fn matches_candle_adamw() -> Result<()> {
        for anchor in [0.0, 0.3] {
            for dtype in [DType::F64, DType::F32] {
                let dev = Device::Cpu;
                let start = Tensor::new(&[0.5f64, -1.0, 2.0, 0.1], &dev)?.to_dtype(dtype)?;
                let target = Tensor::new(&[1.0f64, 1.0, -1.0, 0.0], &dev)?.to_dtype(dtype)?;
                let (ours, reference) = (Var::from_tensor(&start)?, Var::from_tensor(&start)?);
                let mut adam = Adam::new(vec![ours.clone()], 0.05, anchor)?;
                let params = ParamsAdamW {
                    lr: 0.05,
                    weight_decay: 0.0,
                    ..ParamsAdamW::default()
                };
                let mut adamw = AdamW::new(vec![reference.clone()], params)?;
                let initial = start.copy()?;
                for _ in 0..25 {
                    let penalty = adam.backward_step(&quadratic_loss(&ours, &target)?)?;
                    let with_anchor = (quadratic_loss(&reference, &target)?
                        + ((reference.as_tensor() - &initial)?.sqr()?.sum_all()? * anchor)?)?;
                    adamw.backward_step(&with_anchor)?;
                    assert!(penalty >= 0.0);
                }
                let a: Vec<f64> = ours.to_dtype(DType::F64)?.to_vec1()?;
                let b: Vec<f64> = reference.to_dtype(DType::F64)?.to_vec1()?;
                let tol = if dtype == DType::F64 { 1e-12 } else { 1e-5 };
                for (x, y) in a.iter().zip(&b) {
                    assert!(
                        (x - y).abs() < tol,
                        "anchor {anchor} {dtype:?}: {a:?} vs {b:?}"
                    );
                }
            }
        }
        Ok(())
    }

    /// The tensor-op update (for variables on a GPU), run here on the CPU, moves the weights
    /// as the fused pass does and reports the same penalty.
    #[test]
    fn the_devices_update_is_the_fused_pass() -> Result<()> {
        for anchor in [0.0, 0.3] {
            let dev = Device::Cpu;
            let start = Tensor::new(&[0.5f64, -1.0, 2.0, 0.1], &dev)?;
            let target = Tensor::new(&[1.0f64, 1.0, -1.0, 0.0], &dev)?;
            let (fused, tensor_ops) = (Var::from_tensor(&start)?, Var::from_tensor(&start)?);
            let mut reference = Adam::new(vec![fused.clone()], 0.05, anchor)?;
            let mut ours = Adam::new(vec![tensor_ops.clone()], 0.05, anchor)?;
            for slot in &mut ours.slots {
                slot.on_device = Some(DeviceMoments {
                    m: slot.var.zeros_like()?,
                    v: slot.var.zeros_like()?,
                    start: (anchor > 0.0).then(|| start.copy()).transpose()?,
                });
            }
            for _ in 0..25 {
                let a = reference.backward_step(&quadratic_loss(&fused, &target)?)?;
                let b = ours.backward_step(&quadratic_loss(&tensor_ops, &target)?)?;
                assert!((a - b).abs() <= 1e-12 * a.abs().max(1e-300), "{a} vs {b}");
            }
            let (a, b): (Vec<f64>, Vec<f64>) = (fused.to_vec1()?, tensor_ops.to_vec1()?);
            for (x, y) in a.iter().zip(&b) {
                assert!((x - y).abs() < 1e-12, "anchor {anchor}: {a:?} vs {b:?}");
            }
        }
        Ok(())
    }

    /// The reported penalty is `a ||θ − θ0||²` at the weights before the step.
    #[test]
    fn reports_the_anchor_penalty() -> Result<()> {
        let dev = Device::Cpu;
        let x = Var::from_tensor(&Tensor::new(&[1.0f64, 2.0], &dev)?)?;
        let target = Tensor::new(&[3.0f64, 2.0], &dev)?;
        let mut adam = Adam::new(vec![x.clone()], 0.1, 0.5)?;
        assert_eq!(adam.backward_step(&quadratic_loss(&x, &target)?)?, 0.0);
        let moved: Vec<f64> = x.to_vec1()?;
        let expected = 0.5 * ((moved[0] - 1.0).powi(2) + (moved[1] - 2.0).powi(2));
        let reported = adam.backward_step(&quadratic_loss(&x, &target)?)?;
        assert!(
            (reported - expected).abs() < 1e-15,
            "{reported} vs {expected}"
        );
        Ok(())
    }
}
