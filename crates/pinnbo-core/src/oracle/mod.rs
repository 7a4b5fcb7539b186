//! Oracles: the expensive black box, behind one trait. What the loop sees is always the
//! objective and constraint values at a design point, or a failure with its reason.

mod closed;
mod command;
mod fdm;
mod noise;

pub use closed::ClosedFormOracle;
pub use command::{end_running as end_running_commands, CommandOracle};
pub use fdm::FdmOracle;
pub use noise::NoiseModel;

use pinnbo_dsl::ir::{Oracle as OracleSpec, Sense};
use pinnbo_dsl::Problem;
use serde::{Deserialize, Serialize};

/// One evaluation's values, in the problem file's own sense (not negated for `maximize`):
/// every objective's, then every constraint's. The journal keeps its own layout (the first
/// objective by itself, the others after the constraints: [`Recorded`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "Recorded", from = "Recorded")]
pub struct Evaluation {
    /// Every objective's value in the file's order: never empty.
    pub objectives: Vec<f64>,
    /// `c_k(x)`, feasible when `<= 0`, in the file's order.
    pub constraints: Vec<f64>,
    /// What the sensors read (`sensors T at ..`), in `Problem::sensor_names`' order; empty
    /// without sensors.
    pub sensors: Vec<f64>,
    /// Each objective's standard error as told with its value (`tell --sem`), None where
    /// none was; empty when none was (an oracle's values carry none).
    pub sems: Vec<Option<f64>>,
}

/// An [`Evaluation`] as the journal writes it.
#[derive(Serialize, Deserialize)]
struct Recorded {
    objective: f64,
    constraints: Vec<f64>,
    /// With several objectives, the values of those after the first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    other_objectives: Vec<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    sensors: Vec<f64>,
    /// Every objective's told standard error (null where none was told).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    sems: Vec<Option<f64>>,
}

impl From<Evaluation> for Recorded {
    fn from(e: Evaluation) -> Recorded {
        let mut objectives = e.objectives.into_iter();
        Recorded {
            objective: objectives.next().unwrap_or(f64::NAN),
            constraints: e.constraints,
            other_objectives: objectives.collect(),
            sensors: e.sensors,
            sems: e.sems,
        }
    }
}

impl From<Recorded> for Evaluation {
    fn from(r: Recorded) -> Evaluation {
        let objectives = std::iter::once(r.objective).chain(r.other_objectives);
        Evaluation {
            objectives: objectives.collect(),
            constraints: r.constraints,
            sensors: r.sensors,
            sems: r.sems,
        }
    }
}

impl Evaluation {
    /// One objective's value and the constraints'.
    pub fn new(objective: f64, constraints: Vec<f64>) -> Evaluation {
        Evaluation {
            sems: Vec::new(),
            objectives: vec![objective],
            constraints,
            sensors: Vec::new(),
        }
    }

    /// The first objective's value.
    pub fn objective(&self) -> f64 {
        self.objectives[0]
    }

    /// Objective `k`'s told standard error, if one was told.
    pub fn sem(&self, k: usize) -> Option<f64> {
        self.sems.get(k).copied().flatten()
    }

    /// Every constraint holds (`c_k <= 0`).
    pub fn is_feasible(&self) -> bool {
        self.constraints.iter().all(|c| *c <= 0.0)
    }

    /// With the known constraints' values ([`pinnbo_dsl::ir::Constraint::is_known`]) computed
    /// at `x` (the problem's coordinates) and put in their places: an oracle, a callable or a
    /// `tell` gives the measured constraints alone, in the file's order (or every constraint,
    /// as the file's own closed forms do: the known ones are then recomputed, the same
    /// formula). Any other count is left for [`Evaluation::misshapen`] to report.
    pub fn with_known_constraints(mut self, problem: &Problem, x: &[f64]) -> Evaluation {
        let all = &problem.constraints;
        let measured = problem.measured_constraints().count();
        let known = |c: &pinnbo_dsl::ir::Constraint| {
            pinnbo_dsl::eval::eval_point(&c.expr, x).unwrap_or(f64::NAN)
        };
        if measured == all.len() {
            return self;
        }
        if self.constraints.len() == all.len() {
            for (c, v) in all.iter().zip(&mut self.constraints) {
                if c.is_known() {
                    *v = known(c);
                }
            }
        } else if self.constraints.len() == measured {
            let mut given = std::mem::take(&mut self.constraints).into_iter();
            self.constraints = (all.iter())
                .map(|c| match c.is_known() {
                    true => known(c),
                    false => given.next().expect("one value per measured constraint"),
                })
                .collect();
        }
        self
    }

    /// What is wrong with the number of values an oracle gave for `problem` (objectives,
    /// constraints, sensor values), if anything: such an evaluation is a failure, never an
    /// observation.
    pub fn misshapen(&self, problem: &Problem) -> Option<String> {
        let counts = [
            (
                "objective",
                self.objectives.len(),
                problem.objectives().count(),
            ),
            (
                "constraint",
                self.constraints.len(),
                problem.constraints.len(),
            ),
            ("sensor", self.sensors.len(), problem.sensor_count()),
        ];
        let (what, given, wanted) = counts.into_iter().find(|(_, g, w)| g != w)?;
        let known = problem.constraints.len() - problem.measured_constraints().count();
        Some(match (what, known) {
            ("constraint", k) if k > 0 => format!(
                "the oracle gave {given} constraint value(s); the problem measures {} (its {k} \
                 known one(s) pinnbo computes itself)",
                wanted - k
            ),
            _ => format!("the oracle gave {given} {what} value(s); the problem has {wanted}"),
        })
    }

    /// The first non-finite value, named, if any (a sensor's by its index: the caller
    /// knows the names).
    pub fn non_finite(&self, constraint_names: &[String]) -> Option<String> {
        if !self.objective().is_finite() {
            return Some(format!("the objective is {}", self.objective()));
        }
        if let Some(v) = self.objectives[1..].iter().find(|v| !v.is_finite()) {
            return Some(format!("an objective is {v}"));
        }
        let constraint = (self.constraints.iter().zip(constraint_names))
            .find(|(v, _)| !v.is_finite())
            .map(|(v, name)| format!("constraint `{name}` is {v}"));
        constraint.or_else(|| {
            let k = self.sensors.iter().position(|v| !v.is_finite())?;
            Some(format!("sensor value {} is {}", k + 1, self.sensors[k]))
        })
    }
}

/// The sensor values given by field (`"T": [..]`, each field's places in the order its
/// `sensors` statements list them) as one list in `Problem::sensor_names`' order; `groups`
/// is `Problem::sensor_groups`. The error names what is missing, extra or miscounted.
pub fn sensors_by_field(
    groups: &[(String, usize)],
    given: &std::collections::BTreeMap<String, Vec<f64>>,
) -> Result<Vec<f64>, String> {
    if let Some(extra) = given.keys().find(|k| !groups.iter().any(|(f, _)| f == *k)) {
        return Err(format!("`{extra}` has no sensors in the problem"));
    }
    let mut taken: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut out = Vec::new();
    for (field, n) in groups {
        let Some(values) = given.get(field) else {
            return Err(format!("no sensor values for `{field}`"));
        };
        let expected: usize = (groups.iter().filter(|(f, _)| f == field))
            .map(|(_, n)| n)
            .sum();
        if values.len() != expected {
            return Err(format!(
                "`{field}` has {expected} sensor(s), {} value(s) were given",
                values.len()
            ));
        }
        let from = taken.entry(field).or_default();
        out.extend_from_slice(&values[*from..*from + n]);
        *from += n;
    }
    Ok(out)
}

/// Why an evaluation produced no usable values. The loop journals it and goes on.
#[derive(Clone, Debug, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum Failure {
    #[error("the command could not be started: {0}")]
    Spawn(String),
    #[error("the command exited with {status}: {stderr}")]
    Exit { status: String, stderr: String },
    #[error("the command did not finish within {0:.1} s and was killed")]
    Timeout(f64),
    #[error("could not read the command's output: {0}")]
    Parse(String),
    #[error("not a finite value: {0}")]
    NonFinite(String),
    #[error("{0}")]
    Other(String),
}

/// An expensive function of the design point. Implementations may keep state (a solved
/// field, a counter), so `evaluate` takes `&mut self`.
pub trait Oracle: Send {
    /// Values at `x` (one value per problem coordinate, inside the bounds).
    fn evaluate(&mut self, x: &[f64]) -> Result<Evaluation, Failure>;

    /// A short description for reports ("closed form", "fdm beam, 65537 points", ..).
    fn describe(&self) -> String;

    /// Whether the values are measured outside pinnbo ([`External`]): a run then takes them
    /// through `ask` and `tell`, never `step`.
    fn is_external(&self) -> bool {
        false
    }

    /// An independent copy for evaluating at the same time as this one (`--parallel`), if
    /// the oracle can run concurrently.
    fn fork(&self) -> Option<Box<dyn Oracle>> {
        None
    }
}

/// The oracle of a problem measured outside pinnbo (`oracle external`, or any problem driven
/// by `pinnbo ask`/`tell`): it evaluates nothing.
pub struct External;

impl Oracle for External {
    fn evaluate(&mut self, _x: &[f64]) -> Result<Evaluation, Failure> {
        Err(Failure::Other(
            "the values are measured outside pinnbo; tell them to the run".into(),
        ))
    }

    fn describe(&self) -> String {
        "external (ask/tell)".into()
    }

    fn is_external(&self) -> bool {
        true
    }
}

/// A Rust closure as an oracle, for library users: `|x| Ok(Evaluation { .. })`.
pub struct FnOracle<F>(pub F);

impl<F> Oracle for FnOracle<F>
where
    F: FnMut(&[f64]) -> Result<Evaluation, Failure> + Send,
{
    fn evaluate(&mut self, x: &[f64]) -> Result<Evaluation, Failure> {
        (self.0)(x)
    }

    fn describe(&self) -> String {
        "a Rust closure".into()
    }
}

/// Why a problem's oracle could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// An error with a place in the problem file (rendered by the caller).
    #[error("{}", .0.message)]
    Located(Box<pinnbo_dsl::Diagnostic>),
    #[error("{0}")]
    Plain(String),
}

/// Builds the oracle a problem file names. A command runs only with `allow_exec`.
pub fn from_problem(problem: &Problem, allow_exec: bool) -> Result<Box<dyn Oracle>, SetupError> {
    Ok(match &problem.oracle {
        OracleSpec::ClosedForm => Box::new(ClosedFormOracle::new(problem)?),
        OracleSpec::External => Box::new(External),
        OracleSpec::Fdm(_) => Box::new(FdmOracle::new(problem)?),
        OracleSpec::Command(spec) => {
            if !allow_exec {
                return Err(SetupError::Located(Box::new(
                    pinnbo_dsl::Diagnostic::error(
                        "oracle::exec-not-allowed",
                        spec.span,
                        "this problem runs an external command; pass --allow-exec (Python: \
                         allow_exec=True) to let it",
                    )
                    .with_label("would run this command"),
                )));
            }
            Box::new(CommandOracle::new(problem, spec)?)
        }
    })
}

/// Every objective of `e` as the loop minimizes it (negated for `maximize`), the first first.
pub fn minimized_objectives(problem: &Problem, e: &Evaluation) -> Vec<f64> {
    (problem.objectives().zip(&e.objectives))
        .map(|(o, v)| match o.sense {
            Sense::Minimize => *v,
            Sense::Maximize => -v,
        })
        .collect()
}

/// The file's reference point (`reference ..`) as the loop minimizes it.
pub fn minimized_reference(problem: &Problem) -> Option<Vec<f64>> {
    let reference = problem.reference.as_ref()?;
    let e = Evaluation {
        sems: Vec::new(),
        objectives: reference.clone(),
        constraints: Vec::new(),
        sensors: Vec::new(),
    };
    Some(minimized_objectives(problem, &e))
}

/// The objective as the loop minimizes it: negated for `maximize`.
pub fn minimized(problem: &Problem, objective: f64) -> f64 {
    match problem.objective.sense {
        Sense::Minimize => objective,
        Sense::Maximize => -objective,
    }
}
