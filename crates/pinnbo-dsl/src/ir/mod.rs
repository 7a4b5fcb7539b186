//! The checked problem: names resolved, functions inlined, indexed sums unrolled, every value
//! validated. This is the API boundary the other crates consume.

use crate::source::{Source, Span};
use std::collections::BTreeMap;
use std::time::Duration;

pub use crate::ast::{BinaryOp, NoiseKind};

mod expr;

pub use expr::{CoordId, DisplayExpr, Expr, FieldId, Functional, ParamId, Reduce};

/// A scalar design coordinate and its bounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Coordinate {
    /// Display name: `x` or `x[3]`.
    pub name: String,
    pub lo: f64,
    pub hi: f64,
    /// Searched on a log scale (`var lr in [1e-4, 1e-1] log`; 0 < lo): the unit cube maps
    /// onto `log x`.
    pub log: bool,
    /// Takes the integers from `lo` to `hi` (`var n in 1..8`); so does a categorical
    /// variable, its value the position of its level (from 0).
    pub integer: bool,
    /// A categorical variable's level names (`var material in {steel, copper}`), in order;
    /// empty for any other variable.
    pub levels: Vec<String>,
    pub span: Span,
}

impl Coordinate {
    pub fn is_categorical(&self) -> bool {
        !self.levels.is_empty()
    }

    /// The value `v` as a user reads and writes it: a level's name, an integer without a
    /// fraction, or the number.
    pub fn show(&self, v: f64) -> String {
        match self.level_name(v) {
            Some(name) => name.to_string(),
            None => format!("{v}"),
        }
    }

    /// The name of the level at position `v`, for a categorical variable.
    pub fn level_name(&self, v: f64) -> Option<&str> {
        let k = (v >= 0.0 && v.fract() == 0.0).then_some(v as usize)?;
        self.levels.get(k).map(String::as_str)
    }

    /// The value of the level named `name` (its position); the error names the levels.
    pub fn level_value(&self, name: &str) -> Result<f64, String> {
        match self.levels.iter().position(|l| l == name) {
            Some(k) => Ok(k as f64),
            None if self.levels.is_empty() => Err(format!(
                "`{}` takes numbers, not a level name like `{name}`",
                self.name
            )),
            None => Err(format!(
                "`{name}` is not a level of `{}`; its levels are {}",
                self.name,
                self.levels.join(", ")
            )),
        }
    }
}

/// An unknown constant of the pde: `param k in [lo, hi]`, or `.. log` for a scale (fitted
/// as its logarithm, so uniform on the log of the box).
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
    pub span: Span,
}

impl Param {
    /// The value in the coordinate the fit moves in: the logarithm for a `log` param.
    pub fn to_fitted(&self, value: f64) -> f64 {
        if self.log {
            value.ln()
        } else {
            value
        }
    }

    /// The inverse of [`Param::to_fitted`].
    pub fn from_fitted(&self, fitted: f64) -> f64 {
        if self.log {
            fitted.exp()
        } else {
            fitted
        }
    }

    /// The box in the fitted coordinate.
    pub fn fitted_bounds(&self) -> (f64, f64) {
        (self.to_fitted(self.lo), self.to_fitted(self.hi))
    }

    /// The centre of the box in the fitted coordinate (the geometric mean for `log`): where
    /// a fit starts without an estimate.
    pub fn fitted_centre(&self) -> f64 {
        let (lo, hi) = self.fitted_bounds();
        0.5 * (lo + hi)
    }
}

/// An unknown function of some coordinates; with a definition, a closed form the oracle can
/// evaluate (the optimizer still treats it as a black box).
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub args: Vec<CoordId>,
    pub definition: Option<Expr>,
    pub span: Span,
}

/// What each evaluation measures of a field besides the objective: `sensors T at x = 0.1,
/// 0.5`. Each place fixes every field coordinate of the field; its design variables are the
/// evaluation's.
#[derive(Clone, Debug, PartialEq)]
pub struct Sensors {
    pub field: FieldId,
    /// The field coordinates of each place, in the order the statement names them.
    pub coords: Vec<CoordId>,
    /// One value per coordinate of `coords` for each place, in the order written.
    pub places: Vec<Vec<f64>>,
    pub span: Span,
}

/// `lhs = rhs`; the residual is `lhs - rhs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pde {
    pub lhs: Expr,
    pub rhs: Expr,
    pub span: Span,
}

impl Pde {
    pub fn residual(&self) -> Expr {
        Expr::binary(BinaryOp::Sub, self.lhs.clone(), self.rhs.clone())
    }

    /// The highest number of derivatives in `coord` applied to a field on either side.
    pub fn order_in(&self, coord: CoordId) -> u32 {
        self.lhs.order_in(coord).max(self.rhs.order_in(coord))
    }

    /// The highest total derivative order applied to a field on either side.
    pub fn total_order(&self) -> u32 {
        self.lhs.total_order().max(self.rhs.total_order())
    }

    pub fn mentions(&self, field: FieldId) -> bool {
        self.lhs.fields().contains(&field) || self.rhs.fields().contains(&field)
    }
}

/// The params some of `pdes` use, in declaration order.
pub fn params_used_by<'a>(pdes: impl IntoIterator<Item = &'a Pde>) -> Vec<ParamId> {
    let mut used: Vec<ParamId> = (pdes.into_iter())
        .flat_map(|p| p.lhs.params().into_iter().chain(p.rhs.params()))
        .collect();
    used.sort_unstable();
    used.dedup();
    used
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Sense {
    Minimize,
    Maximize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Objective {
    /// `minimize weight: ..`; required with several objectives.
    pub name: Option<String>,
    pub sense: Sense,
    pub expr: Expr,
    pub span: Span,
}

/// A constraint in the form `expr <= 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct Constraint {
    pub name: String,
    pub expr: Expr,
    pub span: Span,
}

impl Constraint {
    /// Whether the constraint is a formula of the design variables and consts alone
    /// (`subject to spend: a + b <= 1`): pinnbo evaluates it itself, proposes no point that
    /// breaks it, and never asks for its value. The others read a field and are measured.
    pub fn is_known(&self) -> bool {
        !self.expr.any(|e| {
            matches!(
                e,
                Expr::Field(_)
                    | Expr::Param(_)
                    | Expr::Diff { .. }
                    | Expr::Operator { .. }
                    | Expr::Functional(_)
            )
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Side {
    Lower,
    Upper,
}

/// `lhs = rhs` on the face where coordinate `coord` is at its lower or upper bound.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundaryCondition {
    pub lhs: Expr,
    pub rhs: Expr,
    pub coord: CoordId,
    pub side: Side,
    pub span: Span,
}

impl BoundaryCondition {
    /// The condition as an equation `lhs = rhs` (its residual is `lhs - rhs`), so that it can be
    /// read or enforced like a pde on its face.
    pub fn as_pde(&self) -> Pde {
        Pde {
            lhs: self.lhs.clone(),
            rhs: self.rhs.clone(),
            span: self.span,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FdmOracle {
    /// The field the finite-difference solver computes.
    pub field: FieldId,
    pub conditions: Vec<BoundaryCondition>,
    pub settings: Settings,
    /// The experiment's true value of each param (by [`ParamId`]); None for a param the pde
    /// does not use, which the experiment need not state.
    pub truth: Vec<Option<f64>>,
    pub span: Span,
}

pub use crate::choices::CommandOutput;

/// A piece of a command template: literal text or a coordinate's value.
#[derive(Clone, Debug, PartialEq)]
pub enum TemplatePart {
    Text(String),
    Coord(CoordId),
}

#[derive(Clone, Debug, PartialEq)]
pub struct CommandOracle {
    pub template: Vec<TemplatePart>,
    pub timeout: Option<Duration>,
    pub output: CommandOutput,
    pub settings: Settings,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Oracle {
    /// The objective and constraints are closed-form expressions.
    ClosedForm,
    /// The values are measured outside pinnbo and told to the run (`pinnbo ask`/`tell`).
    External,
    Fdm(FdmOracle),
    Command(CommandOracle),
}

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub enum NoiseLevel {
    Absolute(f64),
    /// A fraction of the objective's range over the domain.
    OfRange(f64),
}

/// The `noise` statement. Without `added`, the known noise of the observations: the oracle's
/// values are journaled as they are and the Gaussian-process methods take it as their noise
/// variance instead of fitting one. With `added`, synthetic Gaussian noise the loop adds to
/// a closed form's or an FDM field's values (the papers' benchmarks); never to a measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Noise {
    pub kind: NoiseKind,
    pub level: NoiseLevel,
    pub added: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Design {
    Sobol,
    Lhs,
    Random,
}

/// A checked setting value.
#[derive(Clone, Debug, PartialEq)]
pub enum SettingValue {
    Int(u64),
    Number(f64),
    Name(String),
    Str(String),
    Duration(Duration),
    Dims(Vec<usize>),
    List(Vec<f64>),
}

/// Settings of a block, by key; every key and value has been checked against its table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings(pub BTreeMap<String, SettingValue>);

impl Settings {
    pub fn get(&self, key: &str) -> Option<&SettingValue> {
        self.0.get(key)
    }

    pub fn int(&self, key: &str) -> Option<u64> {
        match self.get(key)? {
            SettingValue::Int(v) => Some(*v),
            _ => None,
        }
    }

    pub fn number(&self, key: &str) -> Option<f64> {
        match self.get(key)? {
            SettingValue::Number(v) => Some(*v),
            SettingValue::Int(v) => Some(*v as f64),
            _ => None,
        }
    }

    pub fn name(&self, key: &str) -> Option<&str> {
        match self.get(key)? {
            SettingValue::Name(v) => Some(v),
            _ => None,
        }
    }

    pub fn dims(&self, key: &str) -> Option<&[usize]> {
        match self.get(key)? {
            SettingValue::Dims(v) => Some(v),
            _ => None,
        }
    }

    pub fn duration(&self, key: &str) -> Option<Duration> {
        match self.get(key)? {
            SettingValue::Duration(v) => Some(*v),
            _ => None,
        }
    }

    pub fn list(&self, key: &str) -> Option<&[f64]> {
        match self.get(key)? {
            SettingValue::List(v) => Some(v),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Method {
    pub name: String,
    pub settings: Settings,
    /// The method's name.
    pub span: Span,
    /// The whole `method ..` statement, its block included.
    pub statement: Span,
}

/// A checked `.pde` problem.
#[derive(Clone, Debug)]
pub struct Problem {
    pub source: Source,
    pub name: String,
    /// The design variables, what the optimizer chooses.
    pub coords: Vec<Coordinate>,
    /// The coordinates of fields the optimizer does not choose (`coord x in [0, 1]`); their
    /// [`CoordId`]s follow the design variables'.
    pub field_coords: Vec<Coordinate>,
    /// Where each evaluation measures fields besides the objective, in the file's order.
    pub sensors: Vec<Sensors>,
    /// The pde's unknown constants.
    pub params: Vec<Param>,
    pub fields: Vec<Field>,
    pub pdes: Vec<Pde>,
    /// The objective; with several (`minimize weight: ..`, `minimize sag: ..`), the first.
    pub objective: Objective,
    /// The objectives after the first, in file order.
    pub other_objectives: Vec<Objective>,
    /// The hypervolume's reference point, one value per objective in the file's own sense
    /// (`reference ..`); None: the default, from the initial design.
    pub reference: Option<Vec<f64>>,
    pub constraints: Vec<Constraint>,
    /// The known optimal objective value (in the file's own sense), for regret.
    pub optimum: Option<f64>,
    pub oracle: Oracle,
    pub noise: Option<Noise>,
    pub budget: Option<u64>,
    pub init: Option<(u64, Design)>,
    pub seed: Option<u64>,
    pub method: Option<Method>,
}

impl Problem {
    /// The number of design variables.
    /// The constraints an oracle measures (not [`Constraint::is_known`]), in the file's order.
    pub fn measured_constraints(&self) -> impl Iterator<Item = &Constraint> {
        self.constraints.iter().filter(|c| !c.is_known())
    }

    pub fn dim(&self) -> usize {
        self.coords.len()
    }

    /// A design variable or a field coordinate, by id.
    pub fn coordinate(&self, id: CoordId) -> &Coordinate {
        match id.checked_sub(self.coords.len()) {
            Some(k) => &self.field_coords[k],
            None => &self.coords[id],
        }
    }

    /// Whether `id` is a field coordinate (not a design variable).
    pub fn is_field_coord(&self, id: CoordId) -> bool {
        id >= self.coords.len()
    }

    /// The field coordinates a field depends on, in its declaration's order.
    pub fn field_coords_of(&self, field: FieldId) -> Vec<CoordId> {
        (self.fields[field].args.iter())
            .copied()
            .filter(|c| self.is_field_coord(*c))
            .collect()
    }

    /// Every sensor value an evaluation measures, named as `history.csv` heads them: `T@0.1`
    /// for one coordinate, `T@(0.25,0.5)` for several; the file's order.
    pub fn sensor_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for s in &self.sensors {
            let field = &self.fields[s.field].name;
            for place in &s.places {
                let values: Vec<String> = place.iter().map(|v| format!("{v}")).collect();
                names.push(match values.as_slice() {
                    [one] => format!("{field}@{one}"),
                    _ => format!("{field}@({})", values.join(",")),
                });
            }
        }
        names
    }

    /// Each `sensors` statement's field name and number of places, in the file's order: how
    /// the values a command or a user gives by field (`"T": [..]`) line up with
    /// [`Problem::sensor_names`].
    pub fn sensor_groups(&self) -> Vec<(String, usize)> {
        (self.sensors.iter())
            .map(|s| (self.fields[s.field].name.clone(), s.places.len()))
            .collect()
    }

    /// The number of sensor values an evaluation measures.
    pub fn sensor_count(&self) -> usize {
        self.sensors.iter().map(|s| s.places.len()).sum()
    }

    pub fn lower(&self) -> Vec<f64> {
        self.coords.iter().map(|c| c.lo).collect()
    }

    pub fn upper(&self) -> Vec<f64> {
        self.coords.iter().map(|c| c.hi).collect()
    }

    /// Every objective, the first first.
    pub fn objectives(&self) -> impl Iterator<Item = &Objective> {
        std::iter::once(&self.objective).chain(&self.other_objectives)
    }

    /// Whether the problem has two or more objectives (each named).
    pub fn is_multi_objective(&self) -> bool {
        !self.other_objectives.is_empty()
    }

    /// The objectives' names, in order; `objective` for a single unnamed one.
    pub fn objective_names(&self) -> Vec<String> {
        (self.objectives())
            .map(|o| o.name.clone().unwrap_or_else(|| "objective".to_string()))
            .collect()
    }

    /// The variables of `x` outside their bounds (or not finite), as `(index, message)`; a
    /// value within 1e-9 of the interval's width past a bound is in it (a value written out
    /// and read back, a point mapped from the unit cube). The one wording of every place
    /// that checks a point: the journal, told and imported points, `pinnbo eval`.
    pub fn outside_bounds(&self, x: &[f64]) -> Vec<(usize, String)> {
        (self.coords.iter().zip(x).enumerate())
            .filter_map(|(k, (c, v))| {
                let slack = 1e-9 * (c.hi - c.lo).abs().max(1.0);
                let outside = !v.is_finite() || *v < c.lo - slack || *v > c.hi + slack;
                let message = match c.integer {
                    true if c.is_categorical() && (outside || v.fract() != 0.0) => format!(
                        "`{}` = {v} is not the position of a level (0 to {}: {})",
                        c.name,
                        c.levels.len() - 1,
                        c.levels.join(", ")
                    ),
                    true if outside => format!("`{}` = {v} is outside {}..{}", c.name, c.lo, c.hi),
                    true if v.fract() != 0.0 => format!("`{}` = {v} is not an integer", c.name),
                    false if outside => format!(
                        "`{}` = {v} is outside its bounds [{}, {}]",
                        c.name, c.lo, c.hi
                    ),
                    _ => return None,
                };
                Some((k, message))
            })
            .collect()
    }

    /// This problem with every param replaced by its value in `values` (by [`ParamId`]): the
    /// pde as the experiment obeys it, or as a fit's estimate reads it.
    pub fn with_params(&self, values: &[f64]) -> Problem {
        let mut out = self.clone();
        for pde in &mut out.pdes {
            pde.lhs = pde.lhs.replace_params(values);
            pde.rhs = pde.rhs.replace_params(values);
        }
        out
    }

    /// The params some pde uses, in declaration order.
    pub fn used_params(&self) -> Vec<ParamId> {
        params_used_by(&self.pdes)
    }

    /// Replaces every field that has a closed form by its definition. Fields without one stay.
    pub fn substitute_definitions(&self, expr: &Expr) -> Expr {
        expr.replace_fields(&|id| self.fields[id].definition.clone())
    }
}
