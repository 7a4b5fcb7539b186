//! A checked pde, `lhs = rhs`, compiled to a residual graph: the network's jet at a batch of
//! collocation points, with the file's known functions evaluated as jets too, so that products
//! obey Leibniz's rule and `dxx(EI(x) * dxx(w))` needs no hand expansion.
//!
//! Each node of the expression is evaluated over the multi-indices its parent needs: a
//! derivative `d(e, x)` needs of `e` every needed index plus one `x`; products and functions
//! need the same indices of their operands (closed sets make that enough). The network is run
//! once, over the union of what its occurrences need.
//!
//! A sum of pure derivatives of the field that is only needed as a value — `laplacian(u)`
//! lowers to `dxx(u) + dyy(u)` — is carried by the network's jet as one collapsed entry
//! (see [`IndexSet::with_sums`]) when no other term needs its members: for a 2-D Laplacian
//! four coefficients instead of five, the dominant cost being one matrix product each.

use crate::jet::Jet;
use crate::mlp::{LayerTrace, Mlp};
use crate::multi::{IndexSet, MultiIndex};
use crate::operators::{LoweringContext, OperatorRegistry};
use crate::scalar::ScalarFn;
use candle_core::{Result, Tensor, Var};
use pinnbo_dsl::builtins::Builtin;
use pinnbo_dsl::eval::eval_const;
use pinnbo_dsl::ir::{BinaryOp, CoordId, Expr, FieldId, ParamId, Pde, Problem};
use std::collections::HashMap;
use std::sync::Arc;

/// Why a pde cannot be compiled to a residual graph.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ResidualError {
    #[error("the pde involves the field `{0}`, but the network represents `{1}`")]
    OtherField(String, String),
    #[error("`{0}` is not a variable of the field, so the network cannot be differentiated in it")]
    ForeignCoordinate(String),
    #[error("cannot lower an operator: {0}")]
    Lowering(String),
    #[error(
        "the pde's unknown constant `{0}` has no value here (physics-gp fits it; give a \
         value to use the pde as it stands)"
    )]
    Param(String),
    #[error("the pde cannot be differentiated in its param `{0}`")]
    ParamDerivative(String),
}

/// A pde's residual `lhs - rhs` for a network standing in for one field.
#[derive(Clone, Debug)]
pub struct Residual {
    expr: Expr,
    field: FieldId,
    /// Problem coordinate -> network input.
    inputs: HashMap<CoordId, usize>,
    /// Every index set a node of `expr` is evaluated over, with its propagation tables,
    /// built once here rather than on every evaluation (they depend on `expr` only).
    sets: SetCache,
    /// What the network must carry: the union over the field's occurrences.
    network_set: Arc<IndexSet>,
    /// The sums of derivatives carried collapsed (each a sum entry of `network_set`).
    collapsed: Vec<Vec<MultiIndex>>,
    /// The pde's params as training variables (an inverse PINN): empty unless built by
    /// [`Residual::trainable`].
    params: Vec<TrainableParam>,
}

/// A param of the pde trained with the network: the variable holds its value, or its log
/// for a `log` param (so that training steps in the coordinate the param is fitted in).
#[derive(Clone, Debug)]
pub struct TrainableParam {
    pub id: ParamId,
    pub var: Var,
    pub log: bool,
}

impl TrainableParam {
    /// The param's value as a tensor of shape `[1]` (differentiable in the variable).
    fn value(&self) -> Result<Tensor> {
        match self.log {
            true => self.var.as_tensor().exp(),
            false => Ok(self.var.as_tensor().clone()),
        }
    }
}

impl Residual {
    /// With the built-in operators only.
    pub fn new(
        problem: &Problem,
        pde: &Pde,
        field: FieldId,
    ) -> std::result::Result<Residual, ResidualError> {
        Residual::with_operators(problem, pde, field, &OperatorRegistry::default())
    }

    /// With operators a library user registered (see [`crate::operators`]).
    pub fn with_operators(
        problem: &Problem,
        pde: &Pde,
        field: FieldId,
        operators: &OperatorRegistry,
    ) -> std::result::Result<Residual, ResidualError> {
        let expr = Residual::lowered(problem, pde, field, operators)?;
        Residual::build(problem, expr, field, Vec::new())
    }

    /// The residual with its params read from training variables, `params` (every param
    /// the pde uses must be among them).
    pub fn trainable(
        problem: &Problem,
        pde: &Pde,
        field: FieldId,
        operators: &OperatorRegistry,
        params: &[TrainableParam],
    ) -> std::result::Result<Residual, ResidualError> {
        let expr = Residual::lowered(problem, pde, field, operators)?;
        Residual::build(problem, expr, field, params.to_vec())
    }

    /// The training variables of the pde's params (empty unless [`Residual::trainable`]).
    pub fn params(&self) -> &[TrainableParam] {
        &self.params
    }

    /// The pde's residual with its params at `values` (by `ParamId`).
    pub fn at_params(
        problem: &Problem,
        pde: &Pde,
        field: FieldId,
        operators: &OperatorRegistry,
        values: &[f64],
    ) -> std::result::Result<Residual, ResidualError> {
        let pde = Pde {
            lhs: pde.lhs.replace_params(values),
            rhs: pde.rhs.replace_params(values),
            span: pde.span,
        };
        Residual::with_operators(problem, &pde, field, operators)
    }

    /// The derivative of the pde's residual in its param `param`, at the params' `values`:
    /// `d(k d(u, x, 2) - k^2 u, k) = d(u, x, 2) - 2 k u`, still linear in the field.
    pub fn param_derivative(
        problem: &Problem,
        pde: &Pde,
        field: FieldId,
        operators: &OperatorRegistry,
        (param, values): (ParamId, &[f64]),
    ) -> std::result::Result<Residual, ResidualError> {
        let lowered = Residual::lowered(problem, pde, field, operators)?;
        let name = || problem.params[param].name.clone();
        let derivative = pinnbo_dsl::diff::param_derivative(&lowered, param)
            .ok_or_else(|| ResidualError::ParamDerivative(name()))?;
        Residual::build(
            problem,
            derivative.replace_params(values),
            field,
            Vec::new(),
        )
    }

    /// `lhs - rhs` with registered operators lowered and the other fields' closed forms
    /// inlined: the network stands for `field` even when the file gives its closed form
    /// (then the oracle's, hidden from the optimizer).
    fn lowered(
        problem: &Problem,
        pde: &Pde,
        field: FieldId,
        operators: &OperatorRegistry,
    ) -> std::result::Result<Expr, ResidualError> {
        let cx = LoweringContext {
            problem,
            field_args: &problem.fields[field].args,
        };
        let others = |id: FieldId| {
            (id != field)
                .then(|| problem.fields[id].definition.clone())
                .flatten()
        };
        operators
            .lower(&pde.residual().replace_fields(&others), &cx)
            .map_err(ResidualError::Lowering)
    }

    /// The residual graph of `expr`, the lowered `lhs - rhs`.
    fn build(
        problem: &Problem,
        expr: Expr,
        field: FieldId,
        params: Vec<TrainableParam>,
    ) -> std::result::Result<Residual, ResidualError> {
        let args = &problem.fields[field].args;
        let unbound = (expr.params().into_iter()).find(|k| params.iter().all(|p| p.id != *k));
        if let Some(k) = unbound {
            return Err(ResidualError::Param(problem.params[k].name.clone()));
        }
        let inputs: HashMap<CoordId, usize> =
            args.iter().enumerate().map(|(i, &c)| (c, i)).collect();
        let mut error = None;
        expr.visit(&mut |e| {
            let found = match e {
                Expr::Field(f) if *f != field => Some(ResidualError::OtherField(
                    problem.fields[*f].name.clone(),
                    problem.fields[field].name.clone(),
                )),
                Expr::Coord(c) | Expr::Diff { wrt: c, .. } if !inputs.contains_key(c) => Some(
                    ResidualError::ForeignCoordinate(problem.coordinate(*c).name.clone()),
                ),
                _ => None,
            };
            if error.is_none() {
                error = found;
            }
        });
        if let Some(e) = error {
            return Err(e);
        }
        let mut residual = Residual {
            expr,
            field,
            inputs,
            sets: SetCache::default(),
            network_set: Arc::new(IndexSet::value_only()),
            collapsed: Vec::new(),
            params,
        };
        // Start from every collapsible sum; drop those whose members another term needs
        // (carrying both would only add work), until no more drop.
        let mut candidates = Vec::new();
        residual
            .expr
            .visit(&mut |e| candidates.extend(residual.collapsible(e)));
        residual.collapsed = candidates;
        loop {
            let mut sets = SetCache::default();
            let (mut wanted, mut sums) = (Vec::new(), Vec::new());
            let value = sets.get(&[]);
            residual.collect(&residual.expr, &value, &mut sets, &mut wanted, &mut sums);
            let plain = IndexSet::closure(&wanted);
            let kept: Vec<Vec<MultiIndex>> = residual
                .collapsed
                .iter()
                .filter(|s| s.iter().all(|a| plain.find(a).is_none()))
                .cloned()
                .collect();
            if kept.len() == residual.collapsed.len() {
                sums.sort();
                sums.dedup();
                residual.network_set = Arc::new(IndexSet::with_sums(&wanted, &sums));
                residual.collapsed = sums;
                residual.sets = sets;
                return Ok(residual);
            }
            residual.collapsed = kept;
        }
    }

    /// The multi-index of a pure derivative of the network's field, `d(..d(u, x)..)`.
    fn pure_derivative(&self, e: &Expr) -> Option<MultiIndex> {
        let mut alpha = Vec::new();
        let mut node = e;
        loop {
            match node {
                Expr::Diff { expr, wrt } => {
                    alpha.push(*self.inputs.get(wrt)?);
                    node = expr;
                }
                Expr::Field(f) if *f == self.field => break,
                _ => return None,
            }
        }
        alpha.sort_unstable();
        Some(alpha)
    }

    /// `e` as a sum of at least two distinct pure derivatives of the field, all of one order
    /// of at least two: its members, sorted.
    fn collapsible(&self, e: &Expr) -> Option<Vec<MultiIndex>> {
        fn terms<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
            match e {
                Expr::Binary(BinaryOp::Add, a, b) => {
                    terms(a, out);
                    terms(b, out);
                }
                other => out.push(other),
            }
        }
        if !matches!(e, Expr::Binary(BinaryOp::Add, ..)) {
            return None;
        }
        let mut leaves = Vec::new();
        terms(e, &mut leaves);
        let mut members = leaves
            .iter()
            .map(|t| self.pure_derivative(t))
            .collect::<Option<Vec<MultiIndex>>>()?;
        let order = members[0].len();
        members.sort();
        members.dedup();
        let distinct = members.len() == leaves.len();
        (distinct && order >= 2 && members.iter().all(|a| a.len() == order)).then_some(members)
    }

    /// `e` at value-only evaluation, if it is carried as a collapsed sum.
    fn collapsed_sum(&self, e: &Expr) -> Option<Vec<MultiIndex>> {
        if self.collapsed.is_empty() {
            return None;
        }
        self.collapsible(e).filter(|s| self.collapsed.contains(s))
    }

    /// What the network's jet carries for this residual (multi-indices and collapsed sums).
    pub fn network_set(&self) -> &Arc<IndexSet> {
        &self.network_set
    }

    /// The highest derivative order the network needs.
    pub fn order(&self) -> u32 {
        self.expr.total_order()
    }

    /// The residual at `points` (`[N, inputs]`), `[N]`, differentiable in the network's
    /// parameters.
    pub fn evaluate(&self, net: &Mlp, points: &Tensor) -> Result<Tensor> {
        Ok(self.evaluate_traced(net, points, false)?.0)
    }

    /// As [`Residual::evaluate`], with the network's layer traces when `trace` is set.
    pub fn evaluate_traced(
        &self,
        net: &Mlp,
        points: &Tensor,
        trace: bool,
    ) -> Result<(Tensor, Vec<LayerTrace>)> {
        let (network, traces) = net.forward_jet_traced(points, &self.network_set, trace)?;
        Ok((self.evaluate_on(points, network)?, traces))
    }

    /// The residual at `points` for a field whose jet there is `field` (over
    /// [`Residual::network_set`]) rather than a network's: see [`crate::linear`].
    pub(crate) fn evaluate_on(&self, points: &Tensor, field: Jet) -> Result<Tensor> {
        let cx = Evaluation {
            residual: self,
            points,
            network: field,
        };
        cx.eval(&self.expr, &self.sets.lookup(&[]))?
            .value()?
            .flatten_all()
    }

    /// Records the multi-indices (and collapsed sums) the network must carry for `e`
    /// evaluated over `set`.
    fn collect(
        &self,
        e: &Expr,
        set: &Arc<IndexSet>,
        sets: &mut SetCache,
        out: &mut Vec<MultiIndex>,
        sums: &mut Vec<Vec<MultiIndex>>,
    ) {
        if set.len() == 1 {
            if let Some(sum) = self.collapsed_sum(e) {
                sums.push(sum);
                return;
            }
        }
        match e {
            Expr::Field(_) => out.extend(set.indices().iter().cloned()),
            Expr::Diff { expr, wrt } => {
                let inner = sets.get(&SetCache::shift(set, self.inputs[wrt]));
                self.collect(expr, &inner, sets, out, sums);
            }
            Expr::Neg(a) => self.collect(a, set, sets, out, sums),
            Expr::Binary(_, a, b) => {
                self.collect(a, set, sets, out, sums);
                self.collect(b, set, sets, out, sums);
            }
            Expr::Call(_, args) | Expr::Operator { args, .. } => args
                .iter()
                .for_each(|a| self.collect(a, set, sets, out, sums)),
            // The checker keeps functionals out of pdes.
            Expr::Const(_) | Expr::Coord(_) | Expr::Param(_) | Expr::Functional(_) => {}
        }
    }
}

/// Closed index sets by their generating multi-indices, shared between nodes.
#[derive(Clone, Debug, Default)]
struct SetCache(HashMap<Vec<MultiIndex>, Arc<IndexSet>>);

impl SetCache {
    fn key(wanted: &[MultiIndex]) -> Vec<MultiIndex> {
        crate::multi::normalized(wanted)
    }

    fn get(&mut self, wanted: &[MultiIndex]) -> Arc<IndexSet> {
        self.0
            .entry(SetCache::key(wanted))
            .or_insert_with_key(|k| Arc::new(IndexSet::closure(k)))
            .clone()
    }

    /// A set built by [`SetCache::get`] before (built afresh if not, which the construction
    /// pass rules out).
    fn lookup(&self, wanted: &[MultiIndex]) -> Arc<IndexSet> {
        let key = SetCache::key(wanted);
        match self.0.get(&key) {
            Some(set) => set.clone(),
            None => Arc::new(IndexSet::closure(&key)),
        }
    }

    /// The multi-indices `α + input` for every α in `set`.
    fn shift(set: &IndexSet, input: usize) -> Vec<MultiIndex> {
        set.indices()
            .iter()
            .map(|a| {
                let mut a = a.clone();
                a.push(input);
                a
            })
            .collect()
    }
}

/// `[g(x), g'(x), .., g^(order)(x)]` for a g whose derivative `g'` is given as a jet
/// function: g' is pushed through a one-variable jet at x, whose coefficients are its
/// derivatives.
fn antiderivative_chain(
    value: &Tensor,
    x: &Tensor,
    order: usize,
    derivative: impl Fn(&Jet) -> Result<Jet>,
) -> Result<Vec<Tensor>> {
    // Values computed outside candle carry no gradient; adding g'(x) (x - x) restores the
    // exact first-order dependence on the parameters without changing the value.
    let order_needed = order.max(1);
    let set = Arc::new(IndexSet::closure(&[vec![0; order_needed - 1]]));
    let mut slices = vec![x.clone()];
    for k in 1..set.len() {
        slices.push((x.zeros_like()? + if k == 1 { 1.0 } else { 0.0 })?);
    }
    let identity = Jet::new(set.clone(), Tensor::stack(&slices, 0)?)?;
    let d = derivative(&identity)?;
    let slope = d.value()?;
    let detached = x.detach();
    let value = (value.detach() + slope.detach().mul(&(x - &detached)?)?)?;
    let mut out = vec![value];
    for k in 0..order {
        out.push(d.derivative(&vec![0; k])?);
    }
    Ok(out)
}

/// An f64 function applied element-wise (for values only; see [`antiderivative_chain`] for
/// how the gradient is kept).
fn elementwise(x: &Tensor, f: fn(f64) -> f64) -> Result<Tensor> {
    let v: Vec<f64> = x
        .to_dtype(candle_core::DType::F64)?
        .flatten_all()?
        .to_vec1()?;
    let out: Vec<f64> = v.into_iter().map(f).collect();
    Tensor::from_vec(out, x.shape(), x.device())?.to_dtype(x.dtype())
}

fn atan2(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (va, vb): (Vec<f64>, Vec<f64>) = (
        a.to_dtype(candle_core::DType::F64)?
            .flatten_all()?
            .to_vec1()?,
        b.to_dtype(candle_core::DType::F64)?
            .flatten_all()?
            .to_vec1()?,
    );
    let out: Vec<f64> = va.iter().zip(&vb).map(|(y, x)| y.atan2(*x)).collect();
    Tensor::from_vec(out, a.shape(), a.device())?.to_dtype(a.dtype())
}

struct Evaluation<'a> {
    residual: &'a Residual,
    points: &'a Tensor,
    network: Jet,
}

impl Evaluation<'_> {
    fn eval(&self, e: &Expr, set: &Arc<IndexSet>) -> Result<Jet> {
        let n = self.points.dim(0)?;
        let constant = |c: f64| -> Result<Jet> {
            let v = Tensor::full(c, (n, 1), self.points.device())?.to_dtype(self.points.dtype())?;
            Jet::constant(set.clone(), &v)
        };
        if let Some(c) = (!e.any(|x| matches!(x, Expr::Coord(_) | Expr::Field(_))))
            .then(|| eval_const(e))
            .flatten()
        {
            return constant(c);
        }
        if set.len() == 1 {
            if let Some(sum) = self.residual.collapsed_sum(e) {
                return Jet::new(set.clone(), self.network.sum(&sum)?.unsqueeze(0)?);
            }
        }
        match e {
            Expr::Const(c) => constant(*c),
            // `Residual::build` refuses a param without a training variable.
            Expr::Param(k) => {
                let Some(param) = self.residual.params.iter().find(|p| p.id == *k) else {
                    candle_core::bail!("a param has no value");
                };
                let value = (param.value()?.to_dtype(self.points.dtype())?)
                    .reshape((1, 1))?
                    .broadcast_as((n, 1))?
                    .contiguous()?;
                Jet::constant(set.clone(), &value)
            }
            Expr::Coord(c) => Jet::coordinate(set.clone(), self.points, self.residual.inputs[c]),
            Expr::Functional(_) => candle_core::bail!("a pde reads no field over its coordinates"),
            Expr::Field(f) => {
                debug_assert_eq!(*f, self.residual.field);
                self.network.restrict(set)
            }
            Expr::Neg(a) => self.eval(a, set)?.neg(),
            Expr::Diff { expr, wrt } => {
                let input = self.residual.inputs[wrt];
                let inner = self.residual.sets.lookup(&SetCache::shift(set, input));
                self.eval(expr, &inner)?.differentiate(input, set)
            }
            Expr::Binary(op, a, b) => self.binary(*op, a, b, set),
            Expr::Call(f, args) => self.call(*f, args, set),
            Expr::Operator { name, .. } => {
                candle_core::bail!("the operator `{name}` has no jet lowering")
            }
        }
    }

    fn binary(&self, op: BinaryOp, a: &Expr, b: &Expr, set: &Arc<IndexSet>) -> Result<Jet> {
        // A constant operand scales or shifts without a product.
        let (ca, cb) = (eval_const(a), eval_const(b));
        match (op, ca, cb) {
            (BinaryOp::Mul, Some(c), _) => return self.eval(b, set)?.scale(c),
            (BinaryOp::Mul, _, Some(c)) => return self.eval(a, set)?.scale(c),
            (BinaryOp::Div, _, Some(c)) => return self.eval(a, set)?.scale(1.0 / c),
            (BinaryOp::Add, Some(c), _) => return self.eval(b, set)?.add_constant(c),
            (BinaryOp::Add, _, Some(c)) | (BinaryOp::Sub, _, Some(c)) => {
                let sign = if op == BinaryOp::Sub { -1.0 } else { 1.0 };
                return self.eval(a, set)?.add_constant(sign * c);
            }
            (BinaryOp::Pow, _, Some(c)) => return self.eval(a, set)?.map(ScalarFn::Powc(c)),
            _ => {}
        }
        let (x, y) = (self.eval(a, set)?, self.eval(b, set)?);
        match op {
            BinaryOp::Add => x.add(&y),
            BinaryOp::Sub => x.sub(&y),
            BinaryOp::Mul => x.mul(&y),
            BinaryOp::Div => x.mul(&y.map(ScalarFn::Powc(-1.0))?),
            // a^b = exp(b log a)
            BinaryOp::Pow => y.mul(&x.map(ScalarFn::Log)?)?.map(ScalarFn::Exp),
        }
    }

    fn call(&self, f: Builtin, args: &[Expr], set: &Arc<IndexSet>) -> Result<Jet> {
        let simple = match f {
            Builtin::Sin => Some(ScalarFn::Sin),
            Builtin::Cos => Some(ScalarFn::Cos),
            Builtin::Exp => Some(ScalarFn::Exp),
            Builtin::Log => Some(ScalarFn::Log),
            Builtin::Sqrt => Some(ScalarFn::Powc(0.5)),
            Builtin::Tanh => Some(ScalarFn::Tanh),
            Builtin::Sinh => Some(ScalarFn::Sinh),
            Builtin::Cosh => Some(ScalarFn::Cosh),
            Builtin::Abs => Some(ScalarFn::Abs),
            _ => None,
        };
        if let (Some(g), [a]) = (simple, args) {
            return self.eval(a, set)?.map(g);
        }
        let jets = args
            .iter()
            .map(|a| self.eval(a, set))
            .collect::<Result<Vec<_>>>()?;
        match (f, jets.as_slice()) {
            (Builtin::Tan, [u]) => u
                .map(ScalarFn::Sin)?
                .mul(&u.map(ScalarFn::Cos)?.map(ScalarFn::Powc(-1.0))?),
            (Builtin::Pow, [a, b]) => b.mul(&a.map(ScalarFn::Log)?)?.map(ScalarFn::Exp),
            (Builtin::Min | Builtin::Max, [a, b]) => {
                let (va, vb) = (a.value()?, b.value()?);
                let pick_a = if f == Builtin::Min {
                    va.le(&vb)?
                } else {
                    va.ge(&vb)?
                };
                let mask = pick_a.unsqueeze(0)?.broadcast_as(a.data().shape())?;
                Jet::new(set.clone(), mask.where_cond(a.data(), b.data())?)
            }
            (Builtin::Atan | Builtin::Asin | Builtin::Acos, [u]) => {
                let value = match f {
                    Builtin::Atan => elementwise(&u.value()?, f64::atan)?,
                    Builtin::Asin => elementwise(&u.value()?, f64::asin)?,
                    _ => elementwise(&u.value()?, f64::acos)?,
                };
                // g' is algebraic: 1/(1 + x²) or ∓(1 - x²)^(-1/2).
                let derivative = |x: &Jet| -> Result<Jet> {
                    let square = x.mul(x)?;
                    match f {
                        Builtin::Atan => square.add_constant(1.0)?.map(ScalarFn::Powc(-1.0)),
                        Builtin::Asin => square.neg()?.add_constant(1.0)?.map(ScalarFn::Powc(-0.5)),
                        _ => square
                            .neg()?
                            .add_constant(1.0)?
                            .map(ScalarFn::Powc(-0.5))?
                            .neg(),
                    }
                };
                u.compose(&antiderivative_chain(
                    &value,
                    &u.value()?,
                    set.order(),
                    derivative,
                )?)
            }
            (Builtin::Atan2, [a, b]) => {
                // The derivatives of atan(a/b); the value keeps atan2's quadrant.
                let ratio = a.mul(&b.map(ScalarFn::Powc(-1.0))?)?;
                let value = atan2(&a.value()?, &b.value()?)?;
                let derivative = |x: &Jet| x.mul(x)?.add_constant(1.0)?.map(ScalarFn::Powc(-1.0));
                ratio.compose(&antiderivative_chain(
                    &value,
                    &ratio.value()?,
                    set.order(),
                    derivative,
                )?)
            }
            _ => candle_core::bail!("`{}` with {} arguments", f.name(), jets.len()),
        }
    }
}
