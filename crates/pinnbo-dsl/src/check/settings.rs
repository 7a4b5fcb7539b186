//! Tables of the settings each method and oracle accepts, and their checking.

use super::Checker;
use crate::ast::{BlockItem, Ident, Setting, Value};
use crate::diag::{suggestion, Diagnostic};
use crate::ir::{Method, Pde, SettingValue, Settings};
use crate::source::Span;

/// The type and range a setting accepts.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Int {
        min: u64,
    },
    /// A finite number strictly greater than zero.
    Positive,
    Choice(&'static [&'static str]),
    Duration,
    Dims,
    List,
    Str,
}

impl Kind {
    fn describe(self) -> String {
        match self {
            Kind::Int { min } => format!("an integer of at least {min}"),
            Kind::Positive => "a positive number".into(),
            Kind::Choice(options) => format!("one of {}", options.join(", ")),
            Kind::Duration => "a duration such as `30 s` or `10 min`".into(),
            Kind::Dims => "grid dimensions such as `129 x 129`".into(),
            Kind::List => "a list of numbers such as `[0.1, 0.5, 1]`".into(),
            Kind::Str => "a string in double quotes".into(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub key: &'static str,
    pub kind: Kind,
}

const fn spec(key: &'static str, kind: Kind) -> Spec {
    Spec { key, kind }
}

const ACTIVATIONS: &[&str] = &["tanh", "sin", "softplus", "relu"];

/// Settings every neural surrogate accepts.
const NEURAL: &[Spec] = &[
    spec("width", Kind::Int { min: 1 }),
    spec("depth", Kind::Int { min: 1 }),
    spec("activation", Kind::Choice(ACTIVATIONS)),
    spec("lr", Kind::Positive),
    spec("lr_decay", Kind::Positive),
    spec("epochs", Kind::Int { min: 1 }),
    spec("batch", Kind::Int { min: 1 }),
    spec("steps", Kind::Int { min: 1 }),
    spec("lambda", Kind::Positive),
    spec("nu", Kind::Positive),
    spec("retrain_every", Kind::Int { min: 1 }),
    spec("features", Kind::Choice(&["static", "dynamic"])),
    spec("bias", Kind::Positive),
];

/// The NeuralBO surrogate's arithmetic: f32 trains and screens candidates in single precision.
const PRECISION: &[Spec] = &[spec("dtype", Kind::Choice(&["f64", "f32"]))];

/// Where NeuralBO's training starts each step: θ0 for the whole schedule, or the previous
/// step's network for `warm_steps` steps.
const WARM: &[Spec] = &[
    spec("start", Kind::Choice(&["initial", "previous"])),
    spec("warm_steps", Kind::Int { min: 1 }),
];

/// How a Thompson sample is drawn: one function (pathwise) or independently per candidate.
const THOMPSON: &[Spec] = &[spec("draw", Kind::Choice(&["pathwise", "independent"]))];

/// Settings of the acquisition optimizer.
const ACQUISITION: &[Spec] = &[
    spec("candidates", Kind::Int { min: 1 }),
    spec("acquisition", Kind::Choice(&["random", "refine"])),
    spec("region", Kind::Choice(&["global", "trust", "auto"])),
];

const PINN: &[Spec] = &[
    spec("residual_points", Kind::Int { min: 1 }),
    spec("lambda_r", Kind::Positive),
    spec("sampling", Kind::Choice(&["sobol", "uniform"])),
    spec("surrogate", Kind::Choice(&["pinn", "ntk-gp"])),
];

const GP: &[Spec] = &[
    spec("kernel", Kind::Choice(&["matern52", "se"])),
    spec("beta", Kind::Positive),
    spec("restarts", Kind::Int { min: 1 }),
];

/// A method the `method` statement can name.
#[derive(Debug)]
pub struct MethodInfo {
    pub name: &'static str,
    pub summary: &'static str,
    groups: &'static [&'static [Spec]],
}

impl MethodInfo {
    pub fn settings(&self) -> impl Iterator<Item = &'static Spec> + Clone {
        self.groups.iter().flat_map(|g| g.iter())
    }
}

pub static METHODS: &[MethodInfo] = &[
    MethodInfo {
        name: "pinn-bo",
        summary: "physics-informed neural network surrogate with Thompson-style acquisition",
        groups: &[NEURAL, ACQUISITION, THOMPSON, PINN],
    },
    MethodInfo {
        name: "neural-bo",
        summary: "neural Thompson sampling",
        groups: &[NEURAL, ACQUISITION, THOMPSON, PRECISION, WARM],
    },
    MethodInfo {
        name: "neural-cbo",
        summary: "constrained: EI on the objective among LCB-feasible points",
        groups: &[
            NEURAL,
            ACQUISITION,
            PRECISION,
            &[spec("beta", Kind::Positive)],
        ],
    },
    MethodInfo {
        name: "neural-greedy",
        summary: "perturbed targets and fresh initialization every round",
        groups: &[
            NEURAL,
            ACQUISITION,
            &[
                spec("sigma", Kind::Positive),
                spec("explore", Kind::Int { min: 0 }),
            ],
        ],
    },
    MethodInfo {
        name: "gp-ei",
        summary: "Gaussian process, expected improvement",
        groups: &[GP, ACQUISITION],
    },
    MethodInfo {
        name: "gp-ucb",
        summary: "Gaussian process, upper confidence bound",
        groups: &[GP, ACQUISITION],
    },
    MethodInfo {
        name: "gp-ts",
        summary: "Gaussian process, Thompson sampling",
        groups: &[GP, ACQUISITION],
    },
    MethodInfo {
        name: "random",
        summary: "uniform random search",
        groups: &[],
    },
];

pub fn method_names() -> impl Iterator<Item = &'static str> {
    METHODS.iter().map(|m| m.name)
}

pub(crate) const FDM: &[Spec] = &[
    spec("points", Kind::Int { min: 3 }),
    spec("grid", Kind::Dims),
    spec(
        "scheme",
        Kind::Choice(&["crank-nicolson", "backward-euler"]),
    ),
    spec("steps", Kind::Int { min: 1 }),
    spec("times", Kind::List),
    spec("interpolation", Kind::Choice(&["linear", "cubic"])),
];

pub(crate) const COMMAND: &[Spec] = &[
    spec("timeout", Kind::Duration),
    spec("output", Kind::Choice(&["number", "json"])),
    spec("workdir", Kind::Str),
    spec("max_failures", Kind::Int { min: 1 }),
];

/// Checks a block's settings against `specs`. Conditions are reported as misplaced.
pub(crate) fn check_settings<'s>(
    cx: &mut Checker,
    block_name: &str,
    items: &[BlockItem],
    specs: impl Iterator<Item = &'s Spec> + Clone,
) -> Settings {
    let mut out = Settings::default();
    let mut seen: Vec<(&str, Span)> = Vec::new();
    for item in items {
        let BlockItem::Setting(Setting {
            key,
            value,
            value_span,
        }) = item
        else {
            continue;
        };
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key.name) {
            cx.diags.push(
                Diagnostic::error(
                    "pde::duplicate-setting",
                    key.span,
                    format!("`{}` is set twice", key.name),
                )
                .with_label("set again here")
                .with_related(*first, "first set here"),
            );
            continue;
        }
        seen.push((&key.name, key.span));
        let Some(spec) = specs.clone().find(|s| s.key == key.name) else {
            let known: Vec<&str> = specs.clone().map(|s| s.key).collect();
            let help = suggestion(&key.name, known.iter().copied()).unwrap_or_else(|| {
                if known.is_empty() {
                    format!("{block_name} takes no settings")
                } else {
                    format!("{block_name} accepts: {}", known.join(", "))
                }
            });
            cx.diags.push(
                Diagnostic::error(
                    "pde::unknown-setting",
                    key.span,
                    format!("unknown setting `{}` for {block_name}", key.name),
                )
                .with_label("not a setting here")
                .with_help(help),
            );
            continue;
        };
        match convert(spec.kind, value) {
            Some(v) => {
                out.0.insert(key.name.clone(), v);
            }
            None => {
                let mut d = Diagnostic::error(
                    "pde::setting-type",
                    *value_span,
                    format!(
                        "`{}` expects {}, found {}",
                        key.name,
                        spec.kind.describe(),
                        describe_value(value)
                    ),
                )
                .with_label("wrong type or out of range");
                if let (Kind::Choice(options), Value::Name(n)) = (spec.kind, value) {
                    d = d.with_help_opt(suggestion(n, options.iter().copied()));
                }
                cx.diags.push(d);
            }
        }
    }
    out
}

fn describe_value(v: &Value) -> String {
    match v {
        Value::Number(x) => format!("the number {x}"),
        Value::Name(n) => format!("`{n}`"),
        other => other.type_name().to_string(),
    }
}

fn convert(kind: Kind, value: &Value) -> Option<SettingValue> {
    Some(match (kind, value) {
        (Kind::Int { min }, Value::Number(v))
            if v.fract() == 0.0 && *v >= min as f64 && *v < 2f64.powi(53) =>
        {
            SettingValue::Int(*v as u64)
        }
        (Kind::Positive, Value::Number(v)) if *v > 0.0 && v.is_finite() => SettingValue::Number(*v),
        (Kind::Choice(options), Value::Name(n)) if options.contains(&n.as_str()) => {
            SettingValue::Name(n.clone())
        }
        (Kind::Duration, Value::Duration(d)) if !d.is_zero() => SettingValue::Duration(*d),
        (Kind::Dims, Value::Dims(ds))
            if ds.iter().all(|d| d.fract() == 0.0 && *d >= 3.0 && *d < 1e9) =>
        {
            SettingValue::Dims(ds.iter().map(|d| *d as usize).collect())
        }
        (Kind::List, Value::List(xs)) if !xs.is_empty() && xs.iter().all(|x| x.is_finite()) => {
            SettingValue::List(xs.clone())
        }
        (Kind::Str, Value::Str(s)) => SettingValue::Str(s.clone()),
        _ => return None,
    })
}

/// Reports boundary conditions written in a block that only takes settings.
pub(crate) fn reject_conditions(cx: &mut Checker, block_name: &str, items: &[BlockItem]) {
    for item in items {
        if let BlockItem::Condition { span, .. } = item {
            cx.diags.push(
                Diagnostic::error(
                    "pde::misplaced-condition",
                    *span,
                    format!("{block_name} takes settings, not conditions"),
                )
                .with_label("a condition")
                .with_help("boundary conditions belong in an `oracle fdm { ... }` block"),
            );
        }
    }
}

pub(crate) fn check_method(
    cx: &mut Checker,
    name: &Ident,
    items: &[BlockItem],
    pdes: &[Pde],
) -> Option<Method> {
    let Some(info) = METHODS.iter().find(|m| m.name == name.name) else {
        let help = suggestion(&name.name, method_names()).unwrap_or_else(|| {
            format!(
                "known methods: {}",
                method_names().collect::<Vec<_>>().join(", ")
            )
        });
        cx.diags.push(
            Diagnostic::error(
                "pde::unknown-method",
                name.span,
                format!("unknown method `{}`", name.name),
            )
            .with_label("not a method")
            .with_help(help),
        );
        return None;
    };
    let block_name = format!("method `{}`", info.name);
    reject_conditions(cx, &block_name, items);
    let settings = check_settings(cx, &block_name, items, info.settings());
    let order = pdes.iter().map(Pde::total_order).max().unwrap_or(0);
    if info.name == "pinn-bo" && settings.name("activation") == Some("relu") && order >= 2 {
        let span = items
            .iter()
            .find_map(|i| match i {
                BlockItem::Setting(s) if s.key.name == "activation" => Some(s.value_span),
                _ => None,
            })
            .unwrap_or(name.span);
        cx.diags.push(
            Diagnostic::error(
                "pde::activation-order",
                span,
                format!("relu has a zero second derivative, but the pde is of order {order}"),
            )
            .with_label("cannot represent the pde's derivatives")
            .with_help("use a smooth activation: tanh, sin or softplus"),
        );
    }
    Some(Method {
        name: info.name.to_string(),
        settings,
        span: name.span,
    })
}
