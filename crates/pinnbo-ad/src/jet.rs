//! Jets: a batch of values together with their partial derivatives with respect to the inputs,
//! for one closed [`IndexSet`] of multi-indices, propagated forward with ordinary candle ops.
//!
//! The data is one tensor `[K, N, W]`: K multi-indices (the value first), N points, W
//! channels. Every rule is linear in the output coefficients, so each is batched: the terms of
//! Leibniz's or Faà di Bruno's formula are gathered with `index_select`, multiplied
//! element-wise, and summed into the K outputs by one matrix product with a fixed
//! coefficient matrix. Parameter gradients then come from a single `backward()`.

use crate::multi::IndexSet;
use crate::scalar::{derivatives, ScalarFn};
use candle_core::{DType, Device, Result, Tensor, D};
use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct Jet {
    set: Arc<IndexSet>,
    data: Tensor,
}

impl Jet {
    pub fn new(set: Arc<IndexSet>, data: Tensor) -> Result<Jet> {
        if data.dims().len() != 3 || data.dim(0)? != set.len() {
            candle_core::bail!(
                "a jet over {} multi-indices needs data [K, N, W], got {:?}",
                set.len(),
                data.dims()
            );
        }
        Ok(Jet { set, data })
    }

    /// A function of no input: its value, all derivatives zero. `value` is `[N, W]`.
    pub fn constant(set: Arc<IndexSet>, value: &Tensor) -> Result<Jet> {
        let (n, w) = value.dims2()?;
        let zeros = Tensor::zeros((set.len() - 1, n, w), value.dtype(), value.device())?;
        let data = Tensor::cat(&[&value.unsqueeze(0)?, &zeros], 0)?;
        Jet::new(set, data)
    }

    /// The jet of input coordinate `coord` at `points` (`[N, d]`): x_coord, with derivative 1
    /// along itself.
    pub fn coordinate(set: Arc<IndexSet>, points: &Tensor, coord: usize) -> Result<Jet> {
        let n = points.dim(0)?;
        let column = points.narrow(1, coord, 1)?;
        let mut slices = vec![column.clone()];
        for k in 1..set.len() {
            // ∂x_c/∂x_c = 1; every other derivative (and every sum of second or higher
            // order ones) is zero.
            let ones = set
                .members(k)
                .iter()
                .filter(|a| a.as_slice() == [coord])
                .count();
            slices.push((column.zeros_like()? + ones as f64)?);
        }
        let data = Tensor::stack(&slices, 0)?;
        debug_assert_eq!(data.dims(), &[set.len(), n, 1]);
        Jet::new(set, data)
    }

    pub fn set(&self) -> &Arc<IndexSet> {
        &self.set
    }

    pub fn data(&self) -> &Tensor {
        &self.data
    }

    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    pub fn device(&self) -> &Device {
        self.data.device()
    }

    /// The value, `[N, W]`.
    pub fn value(&self) -> Result<Tensor> {
        self.data.get(0)
    }

    /// The derivative for one multi-index (coordinates in any order), `[N, W]`.
    pub fn derivative(&self, alpha: &[usize]) -> Result<Tensor> {
        match self.set.find(alpha) {
            Some(k) => self.data.get(k),
            None => candle_core::bail!("the jet does not carry the derivative {alpha:?}"),
        }
    }

    /// The sum entry of these multi-indices (see [`IndexSet::with_sums`]), `[N, W]`.
    pub fn sum(&self, members: &[crate::multi::MultiIndex]) -> Result<Tensor> {
        match self.set.find_sum(members) {
            Some(k) => self.data.get(k),
            None => candle_core::bail!("the jet does not carry the sum {members:?}"),
        }
    }

    fn same_set(&self, other: &Jet) -> Result<()> {
        // Entries decide the tables, so comparing them is enough (and cheap).
        let same = Arc::ptr_eq(&self.set, &other.set)
            || (self.set.indices() == other.set.indices() && self.set.sums() == other.set.sums());
        if !same {
            candle_core::bail!("jets over different index sets");
        }
        Ok(())
    }

    pub fn add(&self, other: &Jet) -> Result<Jet> {
        self.same_set(other)?;
        Jet::new(self.set.clone(), self.data.broadcast_add(&other.data)?)
    }

    pub fn sub(&self, other: &Jet) -> Result<Jet> {
        self.same_set(other)?;
        Jet::new(self.set.clone(), self.data.broadcast_sub(&other.data)?)
    }

    pub fn neg(&self) -> Result<Jet> {
        Jet::new(self.set.clone(), self.data.neg()?)
    }

    pub fn scale(&self, factor: f64) -> Result<Jet> {
        Jet::new(self.set.clone(), (&self.data * factor)?)
    }

    /// Adds a constant to the value only.
    pub fn add_constant(&self, c: f64) -> Result<Jet> {
        let value = (self.data.get(0)? + c)?.unsqueeze(0)?;
        let rest = self.data.narrow(0, 1, self.set.len() - 1)?;
        Jet::new(self.set.clone(), Tensor::cat(&[&value, &rest], 0)?)
    }

    /// The product, by Leibniz's rule (channels broadcast: W = 1 against W).
    pub fn mul(&self, other: &Jet) -> Result<Jet> {
        self.same_set(other)?;
        let k = self.set.len();
        let (mut left, mut right, mut rows) = (Vec::new(), Vec::new(), Vec::new());
        for a in 0..k {
            for t in self.set.products(a) {
                left.push(t.left as u32);
                right.push(t.right as u32);
                rows.push((a, t.coef));
            }
        }
        let terms = gather(&self.data, &left)?.broadcast_mul(&gather(&other.data, &right)?)?;
        Jet::new(self.set.clone(), sum_into(&terms, &rows, k)?)
    }

    /// `g` applied element-wise, by Faà di Bruno's formula: one fused kernel on the CPU
    /// (see `fused.rs`), ordinary candle ops elsewhere.
    pub fn map(&self, g: ScalarFn) -> Result<Jet> {
        self.map_shifted(g, None)
    }

    /// [`Jet::map`] by ordinary candle ops only (the reference for the fused kernel).
    pub fn map_unfused(&self, g: ScalarFn) -> Result<Jet> {
        let dg = derivatives(g, &self.data.get(0)?, self.set.order())?;
        self.compose(&dg)
    }

    /// A function g applied element-wise, given `dg = [g, g', .., g^(order)]` at the value.
    pub fn compose(&self, dg: &[Tensor]) -> Result<Jet> {
        let k = self.set.len();
        if dg.len() <= self.set.order() {
            candle_core::bail!("composition needs {} derivatives", self.set.order() + 1);
        }
        if k == 1 {
            return Jet::new(self.set.clone(), dg[0].unsqueeze(0)?);
        }
        // Terms grouped by their number of blocks b: Π_j z[block_j] * g^(b)(z0).
        let mut groups: Vec<(Tensor, Vec<(usize, f64)>)> = Vec::new();
        for (b, dg_b) in dg.iter().enumerate().take(self.set.order() + 1).skip(1) {
            let mut blocks: Vec<Vec<u32>> = vec![Vec::new(); b];
            let mut rows = Vec::new();
            for a in 1..k {
                for t in self.set.chains(a).iter().filter(|t| t.blocks.len() == b) {
                    for (j, &block) in t.blocks.iter().enumerate() {
                        blocks[j].push(block as u32);
                    }
                    rows.push((a - 1, t.coef));
                }
            }
            if rows.is_empty() {
                continue;
            }
            let mut product = gather(&self.data, &blocks[0])?;
            for ids in &blocks[1..] {
                product = (product * gather(&self.data, ids)?)?;
            }
            groups.push((product.broadcast_mul(&dg_b.unsqueeze(0)?)?, rows));
        }
        let mut rows = Vec::new();
        let mut parts = Vec::new();
        for (tensor, r) in &groups {
            rows.extend_from_slice(r);
            parts.push(tensor);
        }
        let terms = Tensor::cat(&parts, 0)?;
        let higher = sum_into(&terms, &rows, k - 1)?;
        let data = Tensor::cat(&[&dg[0].unsqueeze(0)?, &higher], 0)?;
        Jet::new(self.set.clone(), data)
    }

    /// `x W^T + b` on every channel vector: linear on each coefficient, the bias on the value
    /// only. `weight` is `[out, in]`, `bias` `[out]`.
    pub fn affine(&self, weight: &Tensor, bias: Option<&Tensor>) -> Result<Jet> {
        let (k, n, w_in) = self.data.dims3()?;
        let flat = self.data.reshape((k * n, w_in))?;
        let out = flat.matmul(&weight.t()?)?;
        let w_out = out.dim(D::Minus1)?;
        let linear = Jet::new(self.set.clone(), out.reshape((k, n, w_out))?)?;
        match bias {
            Some(b) => linear.shift_value(b),
            None => Ok(linear),
        }
    }

    /// Adds `bias` (`[W]`) to the value rows only.
    pub fn shift_value(&self, bias: &Tensor) -> Result<Jet> {
        let (k, _, w) = self.data.dims3()?;
        let mut mask = vec![0.0; k];
        mask[0] = 1.0;
        let mask = Tensor::from_vec(mask, (k, 1, 1), self.device())?.to_dtype(self.dtype())?;
        let shift = mask.broadcast_mul(&bias.reshape((1, 1, w))?)?;
        Jet::new(self.set.clone(), self.data.broadcast_add(&shift)?)
    }

    /// `g` applied to this jet with `bias` (`[W]`) first added to the value; on the CPU the
    /// bias is folded into the fused kernel (no broadcast pass over the jet).
    pub fn map_shifted(&self, g: ScalarFn, bias: Option<&Tensor>) -> Result<Jet> {
        if crate::fused::applies(&self.set, &self.data) {
            let data = crate::fused::compose_fused(&self.set, g, &self.data, bias)?;
            return Jet::new(self.set.clone(), data);
        }
        match bias {
            Some(b) => self.shift_value(b)?.map_unfused(g),
            None => self.map_unfused(g),
        }
    }

    /// The same function's jet over a smaller closed set (a subset of this one's).
    pub fn restrict(&self, target: &Arc<IndexSet>) -> Result<Jet> {
        no_sums(target)?;
        let ids = target
            .indices()
            .iter()
            .map(|a| self.set.find(a).map(|i| i as u32))
            .collect::<Option<Vec<u32>>>();
        let Some(ids) = ids else {
            candle_core::bail!("restricting a jet to derivatives it does not carry");
        };
        Jet::new(target.clone(), gather(&self.data, &ids)?)
    }

    /// The jet of `∂f/∂x_coord` over `target`, read off this one (which must carry every
    /// `α + coord` for α in `target`).
    pub fn differentiate(&self, coord: usize, target: &Arc<IndexSet>) -> Result<Jet> {
        no_sums(target)?;
        let ids = target
            .indices()
            .iter()
            .map(|a| {
                let mut shifted = a.clone();
                shifted.push(coord);
                self.set.find(&shifted).map(|i| i as u32)
            })
            .collect::<Option<Vec<u32>>>();
        let Some(ids) = ids else {
            candle_core::bail!("differentiating a jet beyond the derivatives it carries");
        };
        Jet::new(target.clone(), gather(&self.data, &ids)?)
    }
}

/// Restriction and differentiation map multi-indices only.
fn no_sums(target: &IndexSet) -> Result<()> {
    if !target.sums().is_empty() {
        candle_core::bail!("a jet cannot be restricted or differentiated into sum entries");
    }
    Ok(())
}

/// Rows `ids` of `data` along the first axis.
fn gather(data: &Tensor, ids: &[u32]) -> Result<Tensor> {
    let ids = Tensor::from_slice(ids, ids.len(), data.device())?;
    // A no-op for the usual contiguous data; views (after `get`, say) need the copy.
    data.contiguous()?.index_select(&ids, 0)
}

/// `out[a] = Σ_t coef_t terms[t]` over the rows `(a, coef)` of each term: one matrix product.
fn sum_into(terms: &Tensor, rows: &[(usize, f64)], k: usize) -> Result<Tensor> {
    let (t, n, w) = terms.dims3()?;
    let mut s = vec![0.0; k * t];
    for (j, &(a, coef)) in rows.iter().enumerate() {
        s[a * t + j] += coef;
    }
    let s = Tensor::from_vec(s, (k, t), terms.device())?.to_dtype(terms.dtype())?;
    s.matmul(&terms.reshape((t, n * w))?)?.reshape((k, n, w))
}
