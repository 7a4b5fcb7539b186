//! Scalar functions and their derivatives `g, g', .., g^(k)` as candle tensors, which is what
//! Faà di Bruno's formula needs to push a jet through `g`.

use candle_core::{Result, Tensor};

/// A smooth (or piecewise smooth) function of one variable applied element-wise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarFn {
    Tanh,
    Sin,
    Cos,
    Exp,
    /// log(1 + e^x).
    Softplus,
    /// max(x, 0): its second and higher derivatives are zero.
    Relu,
    /// Natural logarithm (NaN for x <= 0).
    Log,
    /// x^c for a constant c; integer c works for negative x.
    Powc(f64),
    Sinh,
    Cosh,
    Abs,
}

/// `[g(x), g'(x), .., g^(order)(x)]`.
pub fn derivatives(g: ScalarFn, x: &Tensor, order: usize) -> Result<Vec<Tensor>> {
    let mut out = Vec::with_capacity(order + 1);
    match g {
        ScalarFn::Exp => {
            let e = x.exp()?;
            out.resize(order + 1, e);
        }
        ScalarFn::Sin | ScalarFn::Cos => {
            let (s, c) = (x.sin()?, x.cos()?);
            let cycle = [s.clone(), c.clone(), s.neg()?, c.neg()?];
            let start = usize::from(g == ScalarFn::Cos);
            for k in 0..=order {
                out.push(cycle[(start + k) % 4].clone());
            }
        }
        ScalarFn::Sinh | ScalarFn::Cosh => {
            let e = x.exp()?;
            let inv = e.recip()?;
            let (s, c) = (((&e - &inv)? * 0.5)?, ((&e + &inv)? * 0.5)?);
            let start = usize::from(g == ScalarFn::Cosh);
            for k in 0..=order {
                out.push(if (start + k) % 2 == 0 {
                    s.clone()
                } else {
                    c.clone()
                });
            }
        }
        ScalarFn::Tanh => {
            let t = x.tanh()?;
            for p in &derivative_polynomials(g, order) {
                out.push(polynomial(&t, p)?);
            }
        }
        ScalarFn::Softplus => {
            // softplus' = s = sigmoid(x), and s^(k) = Q_k(s) with Q_{k+1} = Q_k'(s) s (1 - s).
            let softplus = (x.exp()? + 1.0)?.log()?;
            out.push(softplus);
            if order >= 1 {
                let s = (x.neg()?.exp()? + 1.0)?.recip()?;
                for q in &derivative_polynomials(g, order)[1..] {
                    out.push(polynomial(&s, q)?);
                }
            }
        }
        ScalarFn::Relu => {
            out.push(x.relu()?);
            if order >= 1 {
                out.push(x.gt(0.0)?.to_dtype(x.dtype())?);
            }
            for _ in 2..=order {
                out.push(x.zeros_like()?);
            }
        }
        ScalarFn::Abs => {
            out.push(x.abs()?);
            if order >= 1 {
                let pos = x.gt(0.0)?.to_dtype(x.dtype())?;
                let neg = x.lt(0.0)?.to_dtype(x.dtype())?;
                out.push((pos - neg)?);
            }
            for _ in 2..=order {
                out.push(x.zeros_like()?);
            }
        }
        ScalarFn::Log => {
            // log^(k) = (-1)^(k-1) (k-1)! x^-k
            out.push(x.log()?);
            let inv = x.recip()?;
            let mut power = inv.clone();
            let mut factor = 1.0;
            for k in 1..=order {
                out.push((&power * factor)?);
                power = (&power * &inv)?;
                factor *= -(k as f64);
            }
        }
        ScalarFn::Powc(c) => {
            // (x^c)^(k) = c (c-1) .. (c-k+1) x^(c-k)
            let mut falling = 1.0;
            for k in 0..=order {
                out.push(if falling == 0.0 {
                    x.zeros_like()?
                } else {
                    (power(x, c - k as f64)? * falling)?
                });
                falling *= c - k as f64;
            }
        }
    }
    Ok(out)
}

/// `g, g', .., g^(order)` at one point in f64: what the fused CPU kernel (`crate::fused`)
/// evaluates per element. Polynomials for tanh and softplus are built once.
#[derive(Clone, Debug)]
pub struct PointDerivatives {
    g: ScalarFn,
    order: usize,
    /// tanh: P_k(t); softplus: Q_k(s) for k >= 1 (index k).
    polys: Vec<Vec<f64>>,
}

impl PointDerivatives {
    pub fn new(g: ScalarFn, order: usize) -> PointDerivatives {
        PointDerivatives {
            g,
            order,
            polys: derivative_polynomials(g, order),
        }
    }

    pub fn order(&self) -> usize {
        self.order
    }

    /// The derivatives at each of `xs`: `g^(k)(xs[e])` goes to `out[k * stride + e]`.
    /// Polynomial families are evaluated point-parallel (the loops vectorize).
    pub fn eval_many(&self, xs: &[f64], out: &mut [f64], stride: usize) {
        let n = xs.len();
        let (base, first) = match self.g {
            ScalarFn::Tanh => (0, 0),
            ScalarFn::Softplus => (1, 1),
            _ => {
                let mut point = vec![0.0; self.order + 1];
                for (e, &x) in xs.iter().enumerate() {
                    self.eval(x, &mut point);
                    for (k, v) in point.iter().enumerate() {
                        out[k * stride + e] = *v;
                    }
                }
                return;
            }
        };
        // The polynomials' variable (tanh or the sigmoid), kept in row `base`'s slot until
        // the rows are filled from the highest order down.
        let mut t = vec![0.0; n];
        for (v, &x) in t.iter_mut().zip(xs) {
            *v = if base == 0 {
                x.tanh()
            } else {
                1.0 / (1.0 + (-x).exp())
            };
        }
        for k in (first..=self.order).rev() {
            let row = &mut out[k * stride..k * stride + n];
            let p = &self.polys[k];
            row.fill(*p.last().unwrap_or(&0.0));
            for &c in p.iter().rev().skip(1) {
                for (r, v) in row.iter_mut().zip(&t) {
                    *r = *r * v + c;
                }
            }
        }
        if base == 1 {
            for (r, &x) in out[..n].iter_mut().zip(xs) {
                *r = softplus(x);
            }
        }
    }

    /// Fills `out[0..=order]` with the derivatives at `x`.
    pub fn eval(&self, x: f64, out: &mut [f64]) {
        let out = &mut out[..=self.order];
        match self.g {
            ScalarFn::Tanh => {
                let t = x.tanh();
                for (k, o) in out.iter_mut().enumerate() {
                    *o = horner(&self.polys[k], t);
                }
            }
            ScalarFn::Softplus => {
                out[0] = softplus(x);
                let s = 1.0 / (1.0 + (-x).exp());
                for (k, o) in out.iter_mut().enumerate().skip(1) {
                    *o = horner(&self.polys[k], s);
                }
            }
            ScalarFn::Sin | ScalarFn::Cos => {
                let (s, c) = x.sin_cos();
                let cycle = [s, c, -s, -c];
                let start = usize::from(self.g == ScalarFn::Cos);
                for (k, o) in out.iter_mut().enumerate() {
                    *o = cycle[(start + k) % 4];
                }
            }
            ScalarFn::Exp => out.fill(x.exp()),
            ScalarFn::Sinh | ScalarFn::Cosh => {
                let (s, c) = (x.sinh(), x.cosh());
                let start = usize::from(self.g == ScalarFn::Cosh);
                for (k, o) in out.iter_mut().enumerate() {
                    *o = if (start + k) % 2 == 0 { s } else { c };
                }
            }
            ScalarFn::Relu | ScalarFn::Abs => {
                let (value, slope) = match self.g {
                    ScalarFn::Relu => (x.max(0.0), if x > 0.0 { 1.0 } else { 0.0 }),
                    _ => (x.abs(), if x == 0.0 { 0.0 } else { x.signum() }),
                };
                out.fill(0.0);
                out[0] = value;
                if let Some(o) = out.get_mut(1) {
                    *o = slope;
                }
            }
            ScalarFn::Log => {
                out[0] = x.ln();
                let (inv, mut factor) = (1.0 / x, 1.0);
                let mut power = inv;
                for (k, o) in out.iter_mut().enumerate().skip(1) {
                    *o = factor * power;
                    power *= inv;
                    factor *= -(k as f64);
                }
            }
            ScalarFn::Powc(c) => {
                let mut falling = 1.0;
                for (k, o) in out.iter_mut().enumerate() {
                    *o = if falling == 0.0 {
                        0.0
                    } else {
                        falling * x.powf(c - k as f64)
                    };
                    falling *= c - k as f64;
                }
            }
        }
    }
}

/// For tanh and softplus, whose derivatives are polynomials in one variable (t = tanh x, or
/// s = sigmoid x): entry k holds the coefficients of g^(k), k = 0..=order (softplus's entry 0
/// is empty: softplus itself is no polynomial in s). Empty for every other function.
///
/// tanh: P_0 = t, P_{k+1} = P_k'(t) (1 − t²). softplus: Q_1 = s, Q_{k+1} = Q_k'(s) s (1 − s).
fn derivative_polynomials(g: ScalarFn, order: usize) -> Vec<Vec<f64>> {
    let (factor, first) = match g {
        ScalarFn::Tanh => ([1.0, 0.0, -1.0], 0),
        ScalarFn::Softplus => ([0.0, 1.0, -1.0], 1),
        _ => return Vec::new(),
    };
    let mut polys = vec![Vec::new(); first];
    polys.push(vec![0.0, 1.0]);
    while polys.len() <= order {
        let next = times(&derive(polys.last().expect("non-empty")), &factor);
        polys.push(next);
    }
    polys
}

/// log(1 + e^x) without overflow for large x.
fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

fn horner(p: &[f64], t: f64) -> f64 {
    p.iter().rev().fold(0.0, |acc, c| acc * t + c)
}

/// `x^c`, by repeated multiplication for small integer c (exact, and defined for x < 0).
fn power(x: &Tensor, c: f64) -> Result<Tensor> {
    if c.fract() == 0.0 && c.abs() <= 8.0 {
        let n = c.abs() as usize;
        let mut acc = x.ones_like()?;
        for _ in 0..n {
            acc = (&acc * x)?;
        }
        if c < 0.0 {
            acc.recip()
        } else {
            Ok(acc)
        }
    } else {
        x.powf(c)
    }
}

/// Coefficients (lowest degree first) of p'.
fn derive(p: &[f64]) -> Vec<f64> {
    p.iter()
        .enumerate()
        .skip(1)
        .map(|(k, c)| k as f64 * c)
        .collect()
}

fn times(p: &[f64], q: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; p.len() + q.len() - 1];
    for (i, a) in p.iter().enumerate() {
        for (j, b) in q.iter().enumerate() {
            out[i + j] += a * b;
        }
    }
    out
}

/// Σ p[k] t^k by Horner's rule.
fn polynomial(t: &Tensor, p: &[f64]) -> Result<Tensor> {
    let mut acc = (t.zeros_like()? + *p.last().unwrap_or(&0.0))?;
    for &c in p.iter().rev().skip(1) {
        acc = ((acc * t)? + c)?;
    }
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    /// The per-point evaluator (fused kernel) equals the tensor one, for every function.
    #[test]
    fn point_derivatives_match_tensor_derivatives() {
        let points = [-1.3, -0.4, 0.2, 0.9, 1.7, 25.0];
        for g in [
            ScalarFn::Tanh,
            ScalarFn::Sin,
            ScalarFn::Cos,
            ScalarFn::Exp,
            ScalarFn::Softplus,
            ScalarFn::Relu,
            ScalarFn::Abs,
            ScalarFn::Log,
            ScalarFn::Sinh,
            ScalarFn::Cosh,
            ScalarFn::Powc(3.0),
            ScalarFn::Powc(-2.0),
            ScalarFn::Powc(0.5),
        ] {
            let x = Tensor::new(&points[..], &Device::Cpu).unwrap();
            let tensors = derivatives(g, &x, 5).unwrap();
            let at = PointDerivatives::new(g, 5);
            let mut many = vec![0.0; 6 * points.len()];
            at.eval_many(&points, &mut many, points.len());
            let mut out = [0.0; 6];
            for (i, &p) in points.iter().enumerate() {
                at.eval(p, &mut out);
                for k in 0..=5 {
                    assert_eq!(
                        out[k].to_bits(),
                        many[k * points.len() + i].to_bits(),
                        "{g:?}"
                    );
                }
                for k in 0..=5 {
                    let want = tensors[k].to_vec1::<f64>().unwrap()[i];
                    let ok = (want.is_nan() && out[k].is_nan())
                        || (want - out[k]).abs() <= 1e-12 * want.abs().max(1.0);
                    assert!(ok, "{g:?} order {k} at {p}: {} vs {want}", out[k]);
                }
            }
        }
    }

    /// Each listed derivative against central differences of the one below it.
    #[test]
    fn derivatives_agree_with_differences() {
        let points = [-1.3, -0.4, 0.2, 0.9, 1.7];
        let h = 1e-5;
        for g in [
            ScalarFn::Tanh,
            ScalarFn::Sin,
            ScalarFn::Cos,
            ScalarFn::Exp,
            ScalarFn::Softplus,
            ScalarFn::Sinh,
            ScalarFn::Cosh,
            ScalarFn::Powc(3.0),
            ScalarFn::Powc(-2.0),
        ] {
            let at = |shift: f64| {
                let x: Vec<f64> = points.iter().map(|p| p + shift).collect();
                let x = Tensor::new(x.as_slice(), &Device::Cpu).unwrap();
                derivatives(g, &x, 4)
                    .unwrap()
                    .iter()
                    .map(|t| t.to_vec1::<f64>().unwrap())
                    .collect::<Vec<_>>()
            };
            let (up, down, mid) = (at(h), at(-h), at(0.0));
            for k in 0..4 {
                for i in 0..points.len() {
                    let fd = (up[k][i] - down[k][i]) / (2.0 * h);
                    let scale = mid[k + 1][i].abs().max(1.0);
                    assert!(
                        (fd - mid[k + 1][i]).abs() < 1e-6 * scale,
                        "{g:?} order {}: {} vs {fd}",
                        k + 1,
                        mid[k + 1][i]
                    );
                }
            }
        }
    }
}
