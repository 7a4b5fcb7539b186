//! A fused CPU kernel for pushing a jet through an element-wise function (Faà di Bruno's
//! formula), forward and backward.
//!
//! The batched rule in [`Jet::compose`](crate::Jet::compose) is made of ordinary candle ops:
//! a gather per block, a product per block, a matrix product to sum the terms. On the CPU
//! that is dozens of passes over `[T, N, W]` temporaries, and it dominated the residual's cost
//! (allocation, memset, broadcast loops). Here every element's K coefficients are read once,
//! all terms are summed in registers, and the K outputs written once; the backward pass is
//! a second fused kernel with the same tables. It is a candle custom op, so the parameter
//! gradients still come from the one `backward()` of the loss. Other devices keep the
//! ordinary-op rule, which is also the reference the fused kernel is tested against.

use crate::multi::IndexSet;
use crate::scalar::{PointDerivatives, ScalarFn};
use candle_core::{
    CpuStorage, CustomOp2, CustomOp3, DType, Layout, Result, Shape, Tensor, WithDType,
};
use rayon::prelude::*;

/// Elements per parallel chunk: large enough to amortize rayon's scheduling.
const CHUNK: usize = 4096;

/// The most blocks a chain term may have here (the order of the highest derivative); higher
/// orders use the ordinary-op rule.
pub(crate) const MAX_ORDER: usize = 8;

/// One term of Faà di Bruno's formula: `out += coef * g^(order)(z0) * Π z[blocks[..order]]`.
#[derive(Clone, Copy, Debug)]
struct Term {
    out: usize,
    order: usize,
    coef: f64,
    blocks: [usize; MAX_ORDER],
}

/// Elements processed together: every rule below is a loop over a lane of this many
/// elements, which the compiler vectorizes, on scratch that stays in cache.
const LANES: usize = 128;

/// The chain terms of one index set, flat, in output order.
#[derive(Clone, Debug)]
struct ChainTable {
    k: usize,
    terms: Vec<Term>,
}

/// Per-thread working memory for one lane: row `a` of `z` is `z[a * LANES..][..LANES]`.
struct Scratch {
    len: usize,
    z: Vec<f64>,
    grad: Vec<f64>,
    dg: Vec<f64>,
    out: Vec<f64>,
    prefix: Vec<f64>,
    carry: Vec<f64>,
}

impl Scratch {
    fn new(k: usize, order: usize) -> Scratch {
        Scratch {
            len: 0,
            z: vec![0.0; k * LANES],
            grad: vec![0.0; k * LANES],
            dg: vec![0.0; (order + 2) * LANES],
            out: vec![0.0; k * LANES],
            prefix: vec![0.0; (MAX_ORDER + 1) * LANES],
            carry: vec![0.0; LANES],
        }
    }

    /// `dg[j][e] = g^(j)(z[0][e])` for j up to the evaluator's order.
    fn derivatives(&mut self, at: &PointDerivatives) {
        at.eval_many(&self.z[..self.len], &mut self.dg, LANES);
    }
}

fn row(v: &[f64], a: usize, len: usize) -> &[f64] {
    &v[a * LANES..a * LANES + len]
}

fn row_mut(v: &mut [f64], a: usize, len: usize) -> &mut [f64] {
    &mut v[a * LANES..a * LANES + len]
}

impl ChainTable {
    fn new(set: &IndexSet) -> ChainTable {
        let mut terms = Vec::new();
        for a in 1..set.len() {
            for t in set.chains(a) {
                let mut blocks = [0; MAX_ORDER];
                blocks[..t.blocks.len()].copy_from_slice(&t.blocks);
                terms.push(Term {
                    out: a,
                    order: t.blocks.len(),
                    coef: t.coef,
                    blocks,
                });
            }
        }
        ChainTable {
            k: set.len(),
            terms,
        }
    }

    /// `out[a]` from `z` and `dg = g^(0..=order)(z0)`, lane-wise.
    fn forward(&self, s: &mut Scratch) {
        let n = s.len;
        s.out.fill(0.0);
        row_mut(&mut s.out, 0, n).copy_from_slice(row(&s.dg, 0, n));
        for t in &self.terms {
            let carry = &mut s.carry[..n];
            for (c, d) in carry.iter_mut().zip(row(&s.dg, t.order, n)) {
                *c = t.coef * d;
            }
            for &b in &t.blocks[..t.order] {
                for (c, z) in carry.iter_mut().zip(row(&s.z, b, n)) {
                    *c *= z;
                }
            }
            for (o, c) in row_mut(&mut s.out, t.out, n).iter_mut().zip(carry.iter()) {
                *o += c;
            }
        }
    }

    /// `out = ∂/∂z Σ_a grad[a] out[a]`, lane-wise, with `dg` one order longer.
    fn backward(&self, s: &mut Scratch) {
        let n = s.len;
        s.out.fill(0.0);
        for e in 0..n {
            s.out[e] = s.grad[e] * s.dg[LANES + e];
        }
        for t in &self.terms {
            let blocks = &t.blocks[..t.order];
            // prefix row i = Π_{j<i} z[b_j]; the product of all blocks but i is prefix i times
            // the running suffix (no division: z may be zero).
            row_mut(&mut s.prefix, 0, n).fill(1.0);
            for (i, &b) in blocks.iter().enumerate() {
                let (done, next) = s.prefix.split_at_mut((i + 1) * LANES);
                let before = &done[i * LANES..i * LANES + n];
                for ((p, q), z) in next[..n].iter_mut().zip(before).zip(row(&s.z, b, n)) {
                    *p = q * z;
                }
            }
            let (grad, full, top) = (
                row(&s.grad, t.out, n),
                row(&s.prefix, t.order, n),
                row(&s.dg, t.order + 1, n),
            );
            for e in 0..n {
                s.out[e] += t.coef * grad[e] * top[e] * full[e];
            }
            let carry = &mut s.carry[..n];
            for ((c, g), d) in carry.iter_mut().zip(grad).zip(row(&s.dg, t.order, n)) {
                *c = t.coef * g * d;
            }
            for (i, &b) in blocks.iter().enumerate().rev() {
                let prefix = row(&s.prefix, i, n);
                for ((o, c), p) in row_mut(&mut s.out, b, n)
                    .iter_mut()
                    .zip(carry.iter())
                    .zip(prefix)
                {
                    *o += c * p;
                }
                for (c, z) in carry.iter_mut().zip(row(&s.z, b, n)) {
                    *c *= z;
                }
            }
        }
    }
}

/// `g` applied to a jet's data `[K, N, W]` after adding `bias` (`[W]`) to the value, fused;
/// see the module docs. Folding the bias in spares a broadcast pass over the jet and the
/// reduction in its backward.
pub(crate) fn compose_fused(
    set: &IndexSet,
    g: ScalarFn,
    data: &Tensor,
    bias: Option<&Tensor>,
) -> Result<Tensor> {
    let op = ComposeOp {
        table: ChainTable::new(set),
        g,
        order: set.order(),
        with_bias: bias.is_some(),
    };
    let w = data.dim(2)?;
    let bias = match bias {
        Some(b) => b.reshape(w)?,
        None => Tensor::zeros(w, data.dtype(), data.device())?,
    };
    data.contiguous()?.apply_op2(&bias.contiguous()?, op)
}

/// Whether the fused kernel handles this jet (CPU, f32 or f64, order at most [`MAX_ORDER`]).
pub(crate) fn applies(set: &IndexSet, data: &Tensor) -> bool {
    set.order() <= MAX_ORDER
        && data.device().is_cpu()
        && matches!(data.dtype(), DType::F32 | DType::F64)
}

#[derive(Clone, Debug)]
struct ComposeOp {
    table: ChainTable,
    g: ScalarFn,
    order: usize,
    with_bias: bool,
}

impl CustomOp2 for ComposeOp {
    fn name(&self) -> &'static str {
        "jet-compose"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let derivatives = PointDerivatives::new(self.g, self.order);
        let kernel = |s: &mut Scratch| {
            s.derivatives(&derivatives);
            self.table.forward(s);
        };
        let inputs = Inputs::new(s1, l1, s2, l2, None)?;
        Ok((
            inputs.run(self.table.k, self.order, kernel)?,
            l1.shape().clone(),
        ))
    }

    fn bwd(
        &self,
        arg: &Tensor,
        bias: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let op = ComposeBackwardOp(self.clone());
        let grad = arg.apply_op3_no_bwd(bias, &grad_res.contiguous()?, &op)?;
        // The bias moved every point's value: its gradient sums the value rows over points.
        let grad_bias = if self.with_bias {
            Some(grad.get(0)?.sum(0)?)
        } else {
            None
        };
        Ok((Some(grad), grad_bias))
    }
}

/// The backward kernel: (z, bias, grad of the output) -> grad of z.
struct ComposeBackwardOp(ComposeOp);

impl CustomOp3 for ComposeBackwardOp {
    fn name(&self) -> &'static str {
        "jet-compose-backward"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
        s3: &CpuStorage,
        l3: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let op = &self.0;
        let derivatives = PointDerivatives::new(op.g, op.order + 1);
        let kernel = |s: &mut Scratch| {
            s.derivatives(&derivatives);
            op.table.backward(s);
        };
        let inputs = Inputs::new(s1, l1, s2, l2, Some((s3, l3)))?;
        Ok((
            inputs.run(op.table.k, op.order, kernel)?,
            l1.shape().clone(),
        ))
    }
}

/// A kernel's inputs as contiguous slices: the jet data, the bias (as f64), and for the
/// backward pass the output gradient, all of one float type.
enum Inputs<'a> {
    F32(&'a [f32], Vec<f64>, Option<&'a [f32]>),
    F64(&'a [f64], Vec<f64>, Option<&'a [f64]>),
}

impl<'a> Inputs<'a> {
    fn new(
        data: &'a CpuStorage,
        data_layout: &Layout,
        bias: &'a CpuStorage,
        bias_layout: &Layout,
        grad: Option<(&'a CpuStorage, &Layout)>,
    ) -> Result<Inputs<'a>> {
        let (d0, d1) = range(data_layout)?;
        let (b0, b1) = range(bias_layout)?;
        let grad_range = grad.map(|(_, l)| range(l)).transpose()?;
        if let Some((g0, g1)) = grad_range {
            if g1 - g0 != d1 - d0 {
                candle_core::bail!("jet-compose-backward: gradient shape mismatch");
            }
        }
        Ok(match (data, bias, grad.map(|(g, _)| g)) {
            (CpuStorage::F32(v), CpuStorage::F32(b), g) => {
                let g = match (g, grad_range) {
                    (Some(CpuStorage::F32(g)), Some((g0, g1))) => Some(&g[g0..g1]),
                    (None, _) => None,
                    _ => candle_core::bail!("jet kernels: mixed float types"),
                };
                let bias = b[b0..b1].iter().map(|x| f64::from(*x)).collect();
                Inputs::F32(&v[d0..d1], bias, g)
            }
            (CpuStorage::F64(v), CpuStorage::F64(b), g) => {
                let g = match (g, grad_range) {
                    (Some(CpuStorage::F64(g)), Some((g0, g1))) => Some(&g[g0..g1]),
                    (None, _) => None,
                    _ => candle_core::bail!("jet kernels: mixed float types"),
                };
                Inputs::F64(&v[d0..d1], b[b0..b1].to_vec(), g)
            }
            _ => candle_core::bail!("jet kernels: f32 or f64 data only"),
        })
    }

    fn run(
        &self,
        k: usize,
        order: usize,
        kernel: impl Fn(&mut Scratch) + Sync,
    ) -> Result<CpuStorage> {
        Ok(match self {
            Inputs::F32(v, b, g) => CpuStorage::F32(per_element(v, *g, b, k, order, kernel)?),
            Inputs::F64(v, b, g) => CpuStorage::F64(per_element(v, *g, b, k, order, kernel)?),
        })
    }
}

/// The contiguous range of a layout, or an error (the kernels read rows by offset).
fn range(layout: &Layout) -> Result<(usize, usize)> {
    match layout.contiguous_offsets() {
        Some(r) => Ok(r),
        None => candle_core::bail!("jet kernels need contiguous data"),
    }
}

/// Runs `kernel` over every element of `[K, M]` data (M = points x channels), a lane at a
/// time: it reads the lane's K coefficients from `z`, the value shifted by the channel's
/// bias (and `grad`, given `extra`), and leaves its result in `out`.
/// Parallel over chunks of elements; each element is computed independently, so results do
/// not depend on the thread count.
fn per_element<T: WithDType>(
    data: &[T],
    extra: Option<&[T]>,
    bias: &[f64],
    k: usize,
    order: usize,
    kernel: impl Fn(&mut Scratch) + Sync,
) -> Result<Vec<T>> {
    if k == 0 || !data.len().is_multiple_of(k) {
        candle_core::bail!("jet kernels: {} values are not K = {k} rows", data.len());
    }
    let w = bias.len();
    if w == 0 || !(data.len() / k).is_multiple_of(w) {
        candle_core::bail!("jet kernels: a bias of {w} channels does not fit the data");
    }
    let m = data.len() / k;
    let mut out = vec![T::zero(); data.len()];
    // Columns of the output, chunked: chunk c owns elements c*CHUNK.. in every row.
    let mut rows: Vec<std::slice::ChunksMut<'_, T>> =
        out.chunks_mut(m).map(|row| row.chunks_mut(CHUNK)).collect();
    let chunks: Vec<Vec<&mut [T]>> = (0..m.div_ceil(CHUNK))
        .map(|_| {
            rows.iter_mut()
                .map(|r| r.next().expect("every row has the same chunks"))
                .collect()
        })
        .collect();
    chunks
        .into_par_iter()
        .enumerate()
        .for_each(|(c, mut cols)| {
            let mut scratch = Scratch::new(k, order);
            let width = cols[0].len();
            for lane in (0..width).step_by(LANES) {
                let n = LANES.min(width - lane);
                scratch.len = n;
                let first = c * CHUNK + lane;
                for a in 0..k {
                    let source = &data[a * m + first..a * m + first + n];
                    for (z, v) in scratch.z[a * LANES..].iter_mut().zip(source) {
                        *z = v.to_f64();
                    }
                    if a == 0 {
                        for (i, z) in scratch.z[..n].iter_mut().enumerate() {
                            *z += bias[(first + i) % w];
                        }
                    }
                    if let Some(x) = extra {
                        let source = &x[a * m + first..a * m + first + n];
                        for (g, v) in scratch.grad[a * LANES..].iter_mut().zip(source) {
                            *g = v.to_f64();
                        }
                    }
                }
                kernel(&mut scratch);
                for (a, col) in cols.iter_mut().enumerate() {
                    for (o, v) in col[lane..lane + n]
                        .iter_mut()
                        .zip(&scratch.out[a * LANES..])
                    {
                        *o = T::from_f64(*v);
                    }
                }
            }
        });
    Ok(out)
}
