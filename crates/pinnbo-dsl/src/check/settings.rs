//! Checking a block's settings against its table (the methods' tables are in
//! `crate::methods`, the oracles' in `crate::oracles`).

use super::Checker;
use crate::ast::{BlockItem, Ident, Setting, Value};
use crate::diag::{suggestion, Diagnostic};
use crate::ir::{Method, Pde, SettingValue, Settings};
use crate::methods::{method, method_names, MethodInfo, MethodSettings};
use crate::source::Span;
use crate::spec::{Kind, Spec};

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
        Value::Duration(d) => format!("a duration of {} s", d.as_secs_f64()),
        Value::Dims(ds) => {
            let shown: Vec<String> = ds.iter().map(f64::to_string).collect();
            format!("`{}`", shown.join(" x "))
        }
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

/// Reports boundary conditions and params' true values written in a block that only takes
/// settings.
pub(crate) fn reject_conditions(cx: &mut Checker, block_name: &str, items: &[BlockItem]) {
    for item in items {
        let (span, label, what, help) = match item {
            BlockItem::Condition { span, .. } => (
                span,
                "a condition",
                "conditions",
                "boundary conditions belong in an `oracle fdm { ... }` block",
            ),
            BlockItem::ParamValue { span, .. } => (
                span,
                "a param's true value",
                "params' true values",
                "a simulated experiment states its params' true values in its \
                 `oracle fdm { ... }` block; a real one needs none",
            ),
            BlockItem::Setting(_) => continue,
        };
        cx.diags.push(
            Diagnostic::error(
                "pde::misplaced-condition",
                *span,
                format!("{block_name} takes settings, not {what}"),
            )
            .with_label(label)
            .with_help(help),
        );
    }
}

pub(crate) fn check_method(
    cx: &mut Checker,
    name: &Ident,
    items: &[BlockItem],
    pdes: &[Pde],
) -> Option<Method> {
    let Some(info) = method(&name.name) else {
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
    warn_without_effect(cx, info, &settings, items, name.span);
    Some(Method {
        name: info.name.to_string(),
        settings,
        span: name.span,
        statement: name.span,
    })
}

/// Warns about each setting the file wrote that its other settings leave without effect
/// (`beta` of physics-gp under `criterion ei`), at the setting, naming the other one.
fn warn_without_effect(
    cx: &mut Checker,
    info: &'static MethodInfo,
    settings: &Settings,
    items: &[BlockItem],
    method_span: Span,
) {
    let key_span = |key: &str| {
        items.iter().find_map(|i| match i {
            BlockItem::Setting(s) if s.key.name == key => Some(s.key.span),
            _ => None,
        })
    };
    let Ok(read) = MethodSettings::new(info, settings) else {
        return;
    };
    for c in read.without_effect() {
        let other = read.name(c.other);
        let mut d = Diagnostic::warning(
            "pde::setting-without-effect",
            key_span(c.setting).unwrap_or(method_span),
            format!("`{}` has no effect with `{} {other}`", c.setting, c.other),
        )
        .with_label("ignored")
        .with_help(format!(
            "`{}` acts only with {}: remove it, or change `{}`",
            c.setting,
            (c.values.iter())
                .map(|v| format!("`{} {v}`", c.other))
                .collect::<Vec<_>>()
                .join(" or "),
            c.other
        ));
        if let Some(span) = key_span(c.other) {
            d = d.with_related(span, format!("`{} {other}` set here", c.other));
        }
        cx.diags.push(d);
    }
}

#[cfg(test)]
mod tests {
    use crate::{compile, Source};

    const BASE: &str = "var x in [0, 1]\nfield u(x) = x^2\npde dxx(u) = 2\nminimize u\n";

    /// A setting that its method's other settings leave without effect is warned about at
    /// the setting, naming the other setting; one that acts is not.
    #[test]
    fn a_setting_without_effect_is_warned_about_at_its_line() {
        let checked = |method: &str| {
            let text = format!("{BASE}{method}\n");
            compile(&Source::new("t.pde", text)).unwrap().warnings
        };
        let warnings = checked("method physics-gp { beta 2 }");
        let found: Vec<(&str, &str)> = (warnings.iter())
            .map(|w| (w.code, w.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [(
                "pde::setting-without-effect",
                "`beta` has no effect with `criterion ei`"
            )]
        );
        assert_eq!(
            warnings[0].span.start,
            BASE.len() + "method physics-gp { ".len()
        );
        assert!(checked("method physics-gp { criterion ucb, beta 2 }").is_empty());
        let ts = checked("method physics-gp { criterion ts, candidates 64, acquisition random }");
        let keys: Vec<&str> = ts
            .iter()
            .map(|w| &w.message[..w.message.find(' ').unwrap()])
            .collect();
        assert_eq!(keys, ["`candidates`", "`acquisition`"]);
        assert_eq!(checked("method neural-bo { warm_steps 10 }").len(), 1);
        assert!(checked("method neural-bo { start previous, warm_steps 10 }").is_empty());
    }
}

/// What the method does not do with this problem that the table cannot know, at the method's
/// name: `stop` with several objectives (the expected hypervolume improvement has no stopping
/// rule, so it would be accepted and do nothing) is warned about; PINN-BO on a field over
/// `coord`s is refused.
pub(super) fn fits_problem(cx: &mut Checker, method: &Method, objectives: usize) {
    if objectives > 1 && method.settings.get("stop").is_some() {
        cx.diags.push(
            Diagnostic::warning(
                "pde::setting-without-effect",
                method.span,
                "`stop` has no effect with several objectives",
            )
            .with_label("ignored")
            .with_help(
                "the expected hypervolume improvement has no stopping rule: remove `stop`, or \
                 bound the run with `budget`",
            ),
        );
    }
    let stretch_unused = !cx.params.is_empty() || !cx.field_coords.is_empty();
    if method.name == "physics-gp" && method.settings.get("stretch").is_some() && stretch_unused {
        cx.diags.push(
            Diagnostic::warning(
                "pde::setting-without-effect",
                method.span,
                "`stretch` has no effect with `param`s or `coord`s",
            )
            .with_label("ignored")
            .with_help(
                "the stretched coordinates are offered only to a pde without params over the \
                 design variables: remove `stretch`",
            ),
        );
    }
    if !cx.field_coords.is_empty() && method.name == "pinn-bo" {
        cx.error(
            Diagnostic::error(
                "pde::method-without-coordinates",
                method.span,
                "pinn-bo does not model a field over coordinates the optimizer does not choose \
                 (`coord`) yet",
            )
            .with_label("the field's coordinates are not design variables")
            .with_help("use `method gp-ei`, which optimizes the objective read from the field"),
        );
    }
}

#[cfg(test)]
mod fits_problem_tests {
    use crate::Source;

    /// `stretch` with a param would do nothing: warned about, and not without one.
    #[test]
    fn stretch_with_params_is_warned_about() {
        let warnings = |param: &str, rhs: &str| {
            let text = format!(
                "var x in [0, 1]\n{param}field f(x) = x^2\npde dxx(f) = {rhs}\nminimize f\n\
                 method physics-gp {{ stretch always }}\n"
            );
            let checked = crate::compile(&Source::new("p.pde", text.as_str())).unwrap();
            let codes: Vec<&str> = checked.warnings.iter().map(|d| d.code).collect();
            codes.join(",")
        };
        assert_eq!(warnings("", "2"), "");
        assert_eq!(
            warnings("param k in [1, 3]\n", "k"),
            "pde::setting-without-effect"
        );
    }

    /// `stop` with several objectives is accepted by the table and would do nothing: the
    /// check warns (issue 53 item 18), and not with one objective.
    #[test]
    fn stop_with_several_objectives_is_warned_about() {
        let text = "var x in [0, 1]\nminimize cost: x^2\nminimize sag: (1 - x)^2\n\
                    method gp-ei { stop 0.01 }\n";
        let checked = crate::compile(&Source::new("two.pde", text)).unwrap();
        let codes: Vec<&str> = checked.warnings.iter().map(|d| d.code).collect();
        assert_eq!(codes, ["pde::setting-without-effect"]);
        assert_eq!(
            checked.warnings[0].message,
            "`stop` has no effect with several objectives"
        );
        let one = "var x in [0, 1]\nminimize x^2\nmethod gp-ei { stop 0.01 }\n";
        assert!(crate::compile(&Source::new("one.pde", one))
            .unwrap()
            .warnings
            .is_empty());
    }
}
