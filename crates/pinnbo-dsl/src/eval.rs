//! f64 evaluation of closed-form expressions: a recursive reference evaluator, and a compiled
//! evaluator that runs a flat instruction list over chunks of points (and over threads with
//! rayon for large batches). Domain errors give NaN; callers decide how to report them.

use crate::builtins::{power, Builtin};
use crate::ir::{BinaryOp, CoordId, Expr};
use rayon::prelude::*;

/// Evaluates at one point by walking the tree. `None` if the expression needs a field, a
/// derivative, an operator, a param without a value, or a coordinate beyond `x`.
pub fn eval_point(e: &Expr, x: &[f64]) -> Option<f64> {
    Some(match e {
        Expr::Const(v) => *v,
        Expr::Coord(c) => *x.get(*c)?,
        Expr::Field(_)
        | Expr::Param(_)
        | Expr::Diff { .. }
        | Expr::Operator { .. }
        | Expr::Functional(_) => return None,
        Expr::Neg(a) => -eval_point(a, x)?,
        Expr::Binary(op, a, b) => binary(*op, eval_point(a, x)?, eval_point(b, x)?),
        Expr::Call(f, args) => match args.as_slice() {
            [a] => f.apply1(eval_point(a, x)?),
            [a, b] => f.apply2(eval_point(a, x)?, eval_point(b, x)?),
            _ => return None,
        },
    })
}

/// The value of an expression that depends on nothing.
pub fn eval_const(e: &Expr) -> Option<f64> {
    eval_point(e, &[])
}

fn binary(op: BinaryOp, a: f64, b: f64) -> f64 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Pow => power(a, b),
    }
}

/// Why an expression cannot be compiled for evaluation.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    #[error("it needs the field `{0}`, which has no closed form")]
    UnknownField(String),
    #[error("it needs the param `{0}`, which has no value here")]
    Param(String),
    #[error("it contains a derivative or operator that has no closed form")]
    Derivative,
    #[error("the expression uses coordinate {0}, but points have {1}")]
    Coordinate(usize, usize),
    #[error("it reads a field over its coordinates (`coord`), which needs the field's values")]
    Functional,
}

type Reg = u16;

#[derive(Clone, Copy, Debug)]
enum Instr {
    Const(Reg, f64),
    Coord(Reg, CoordId),
    Neg(Reg),
    Binary(BinaryOp, Reg, Reg),
    /// `r = r op c`
    BinaryConstRight(BinaryOp, Reg, f64),
    /// `r = c op r`
    BinaryConstLeft(BinaryOp, Reg, f64),
    PowI(Reg, i32),
    Call1(Builtin, Reg),
    Call2(Builtin, Reg, Reg),
}

/// Points per chunk: large enough to amortize dispatch, small enough to stay in L1/L2.
const LANES: usize = 256;
/// Batches at least this large are split across threads.
const PARALLEL_MIN: usize = 16 * LANES;

/// A closed-form expression compiled to a register program. Each instruction runs over a
/// whole chunk of points, so the interpreter's dispatch cost is paid once per chunk.
#[derive(Clone, Debug)]
pub struct Compiled {
    code: Vec<Instr>,
    registers: usize,
    /// The program's inputs: the point's coordinates, then one per reader.
    dim: usize,
    /// Fields read over their coordinates at each point (`integral(T, x)`), whose values
    /// the program takes after the point's own coordinates.
    readers: Vec<std::sync::Arc<dyn Reader>>,
}

/// A number computed at a point before a program runs (a field's functional,
/// `crate::functional::FieldReader`): the program takes it as one more input.
pub trait Reader: std::fmt::Debug + Send + Sync {
    fn read(&self, x: &[f64]) -> f64;
}

impl Compiled {
    /// Compiles `expr` for points of `dim` coordinates. Constant subtrees are folded.
    pub fn new(expr: &Expr, dim: usize) -> Result<Compiled, CompileError> {
        let mut c = Compiled {
            code: Vec::new(),
            registers: 1,
            dim,
            readers: Vec::new(),
        };
        c.emit(expr, 0)?;
        Ok(c)
    }

    /// Emits code leaving the value of `e` in register `r`; registers above `r` are scratch.
    fn emit(&mut self, e: &Expr, r: Reg) -> Result<(), CompileError> {
        self.registers = self.registers.max(r as usize + 1);
        let constant = !e.any(|n| {
            !matches!(
                n,
                Expr::Const(_) | Expr::Neg(_) | Expr::Binary(..) | Expr::Call(..)
            )
        });
        if constant {
            if let Some(v) = eval_const(e) {
                self.code.push(Instr::Const(r, v));
                return Ok(());
            }
        }
        match e {
            Expr::Const(v) => self.code.push(Instr::Const(r, *v)),
            Expr::Coord(c) => {
                if *c >= self.dim {
                    return Err(CompileError::Coordinate(*c, self.dim));
                }
                self.code.push(Instr::Coord(r, *c));
            }
            Expr::Field(id) => return Err(CompileError::UnknownField(format!("#{id}"))),
            Expr::Param(id) => return Err(CompileError::Param(format!("#{id}"))),
            Expr::Diff { .. } | Expr::Operator { .. } => return Err(CompileError::Derivative),
            Expr::Functional(_) => return Err(CompileError::Functional),
            Expr::Neg(a) => {
                self.emit(a, r)?;
                self.code.push(Instr::Neg(r));
            }
            Expr::Binary(BinaryOp::Pow, a, b) if small_int(b).is_some() => {
                self.emit(a, r)?;
                self.code.push(Instr::PowI(r, small_int(b).unwrap_or(1)));
            }
            // A constant operand is folded into the instruction: no lane to fill and re-read.
            Expr::Binary(op, a, b) => match (fold(a), fold(b)) {
                (_, Some(c)) => {
                    self.emit(a, r)?;
                    self.code.push(Instr::BinaryConstRight(*op, r, c));
                }
                (Some(c), None) => {
                    self.emit(b, r)?;
                    self.code.push(Instr::BinaryConstLeft(*op, r, c));
                }
                (None, None) => {
                    self.emit(a, r)?;
                    self.emit(b, r + 1)?;
                    self.code.push(Instr::Binary(*op, r, r + 1));
                }
            },
            Expr::Call(f, args) => match args.as_slice() {
                [a] => {
                    self.emit(a, r)?;
                    self.code.push(Instr::Call1(*f, r));
                }
                [a, b] => {
                    self.emit(a, r)?;
                    self.emit(b, r + 1)?;
                    self.code.push(Instr::Call2(*f, r, r + 1));
                }
                _ => return Err(CompileError::Derivative),
            },
        }
        Ok(())
    }

    /// The number of coordinates of a point it is evaluated at.
    pub fn dim(&self) -> usize {
        self.dim - self.readers.len()
    }

    /// This program, compiled for `dim() + readers.len()` inputs, as one that computes its
    /// last inputs at each point with `readers`.
    pub fn with_readers(mut self, readers: Vec<std::sync::Arc<dyn Reader>>) -> Compiled {
        debug_assert!(readers.len() <= self.dim);
        self.readers = readers;
        self
    }

    /// Number of instructions, a measure of evaluation cost.
    pub fn len(&self) -> usize {
        self.code.len()
    }

    pub fn is_empty(&self) -> bool {
        self.code.is_empty()
    }

    /// Evaluates at one point (`x.len()` must equal the dimension).
    pub fn eval(&self, x: &[f64]) -> f64 {
        let mut out = [0.0];
        self.eval_batch(x, &mut out);
        out[0]
    }

    /// Evaluates at `out.len()` points stored row-major in `points` (`out.len() * dim` values).
    /// Large batches run in parallel.
    pub fn eval_batch(&self, points: &[f64], out: &mut [f64]) {
        assert_eq!(
            points.len(),
            out.len() * self.dim(),
            "points must hold out.len() rows of dim values"
        );
        if !self.readers.is_empty() {
            let inputs = self.dim();
            let mut full = Vec::with_capacity(out.len() * self.dim);
            for x in points.chunks(inputs.max(1)).take(out.len()) {
                full.extend_from_slice(&x[..inputs]);
                full.extend(self.readers.iter().map(|r| r.read(&x[..inputs])));
            }
            return self.run_program(&full, out);
        }
        self.run_program(points, out)
    }

    /// [`Compiled::eval_batch`] on points that hold every input of the program.
    fn run_program(&self, points: &[f64], out: &mut [f64]) {
        if out.len() >= PARALLEL_MIN {
            let rows = PARALLEL_MIN / 4;
            out.par_chunks_mut(rows).enumerate().for_each(|(i, chunk)| {
                let start = i * rows * self.dim;
                let pts = &points[start..start + chunk.len() * self.dim];
                self.eval_serial(pts, chunk);
            });
        } else {
            self.eval_serial(points, out);
        }
    }

    fn eval_serial(&self, points: &[f64], out: &mut [f64]) {
        // Registers are packed with a stride of the chunk's length, so a single point needs
        // only `registers` values, not `registers * LANES`.
        let mut regs = vec![0.0; self.registers * LANES.min(out.len())];
        for (ci, chunk) in out.chunks_mut(LANES).enumerate() {
            let pts = &points[ci * LANES * self.dim..(ci * LANES + chunk.len()) * self.dim];
            self.run_chunk(pts, chunk.len(), &mut regs);
            chunk.copy_from_slice(&regs[..chunk.len()]);
        }
    }

    fn run_chunk(&self, pts: &[f64], n: usize, regs: &mut [f64]) {
        let dim = self.dim;
        for ins in &self.code {
            match *ins {
                Instr::Const(r, v) => lane(regs, r, n).fill(v),
                Instr::Coord(r, c) => {
                    for (i, d) in lane(regs, r, n).iter_mut().enumerate() {
                        *d = pts[i * dim + c];
                    }
                }
                Instr::Neg(r) => lane(regs, r, n).iter_mut().for_each(|d| *d = -*d),
                Instr::PowI(r, k) => integer_power(lane(regs, r, n), k),
                Instr::Call1(f, r) => f.apply1_slice(lane(regs, r, n)),
                Instr::Binary(op, a, b) => {
                    let (dst, src) = two_lanes(regs, a, b, n);
                    match op {
                        BinaryOp::Add => dst.iter_mut().zip(src).for_each(|(d, s)| *d += *s),
                        BinaryOp::Sub => dst.iter_mut().zip(src).for_each(|(d, s)| *d -= *s),
                        BinaryOp::Mul => dst.iter_mut().zip(src).for_each(|(d, s)| *d *= *s),
                        BinaryOp::Div => dst.iter_mut().zip(src).for_each(|(d, s)| *d /= *s),
                        BinaryOp::Pow => dst
                            .iter_mut()
                            .zip(src)
                            .for_each(|(d, s)| *d = power(*d, *s)),
                    }
                }
                Instr::BinaryConstRight(op, r, c) => {
                    let d = lane(regs, r, n);
                    match op {
                        BinaryOp::Add => d.iter_mut().for_each(|x| *x += c),
                        BinaryOp::Sub => d.iter_mut().for_each(|x| *x -= c),
                        BinaryOp::Mul => d.iter_mut().for_each(|x| *x *= c),
                        BinaryOp::Div => d.iter_mut().for_each(|x| *x /= c),
                        BinaryOp::Pow => d.iter_mut().for_each(|x| *x = power(*x, c)),
                    }
                }
                Instr::BinaryConstLeft(op, r, c) => {
                    let d = lane(regs, r, n);
                    match op {
                        BinaryOp::Add => d.iter_mut().for_each(|x| *x += c),
                        BinaryOp::Sub => d.iter_mut().for_each(|x| *x = c - *x),
                        BinaryOp::Mul => d.iter_mut().for_each(|x| *x *= c),
                        BinaryOp::Div => d.iter_mut().for_each(|x| *x = c / *x),
                        BinaryOp::Pow => d.iter_mut().for_each(|x| *x = power(c, *x)),
                    }
                }
                Instr::Call2(f, a, b) => {
                    let (dst, src) = two_lanes(regs, a, b, n);
                    dst.iter_mut()
                        .zip(src)
                        .for_each(|(d, s)| *d = f.apply2(*d, *s));
                }
            }
        }
    }
}

/// `x^k` for small integer k: multiplications for the common powers (`powi` is an
/// out-of-line library call per element).
fn integer_power(xs: &mut [f64], k: i32) {
    match k {
        0 => xs.fill(1.0),
        1 => {}
        2 => xs.iter_mut().for_each(|x| *x *= *x),
        3 => xs.iter_mut().for_each(|x| *x = *x * *x * *x),
        4 => xs.iter_mut().for_each(|x| {
            let y = *x * *x;
            *x = y * y;
        }),
        -1 => xs.iter_mut().for_each(|x| *x = 1.0 / *x),
        -2 => xs.iter_mut().for_each(|x| *x = 1.0 / (*x * *x)),
        _ => xs.iter_mut().for_each(|x| *x = x.powi(k)),
    }
}

/// Register `r` of a chunk of `n` points (registers are `n` apart).
fn lane(regs: &mut [f64], r: Reg, n: usize) -> &mut [f64] {
    let start = r as usize * n;
    &mut regs[start..start + n]
}

/// Register `a` mutably and register `b` (always `a + 1`) shared.
fn two_lanes(regs: &mut [f64], a: Reg, b: Reg, n: usize) -> (&mut [f64], &[f64]) {
    debug_assert!(b > a);
    let (lo, hi) = regs.split_at_mut(b as usize * n);
    (&mut lo[a as usize * n..a as usize * n + n], &hi[..n])
}

/// The value of a subtree that depends on no coordinate (constant folding).
fn fold(e: &Expr) -> Option<f64> {
    let pure = !e.any(|n| {
        !matches!(
            n,
            Expr::Const(_) | Expr::Neg(_) | Expr::Binary(..) | Expr::Call(..)
        )
    });
    if pure {
        eval_const(e)
    } else {
        None
    }
}

fn small_int(e: &Expr) -> Option<i32> {
    match e {
        Expr::Const(v) if v.fract() == 0.0 && v.abs() <= 64.0 => Some(*v as i32),
        _ => None,
    }
}
