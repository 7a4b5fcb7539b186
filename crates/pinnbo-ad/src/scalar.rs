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
            // tanh^(k) = P_k(t) with P_0 = t and P_{k+1} = P_k'(t) (1 - t²).
            let t = x.tanh()?;
            let mut p = vec![0.0, 1.0];
            out.push(t.clone());
            for _ in 0..order {
                p = times(&derive(&p), &[1.0, 0.0, -1.0]);
                out.push(polynomial(&t, &p)?);
            }
        }
        ScalarFn::Softplus => {
            // softplus' = s = sigmoid(x), and s^(k) = Q_k(s) with Q_{k+1} = Q_k'(s) s (1 - s).
            let softplus = (x.exp()? + 1.0)?.log()?;
            out.push(softplus);
            if order >= 1 {
                let s = (x.neg()?.exp()? + 1.0)?.recip()?;
                let mut q = vec![0.0, 1.0];
                out.push(s.clone());
                for _ in 1..order {
                    q = times(&derive(&q), &[0.0, 1.0, -1.0]);
                    out.push(polynomial(&s, &q)?);
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
