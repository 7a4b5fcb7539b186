//! A point by its variables' names, as a user writes it and reads it (`summary.json`, `ask`,
//! `tell`, Python): a categorical variable's level by its name, an integer as an integer.

use pinnbo_dsl::Problem;

/// The point `x` by variable name: a categorical variable's level by its name, an integer
/// variable's value as an integer, any other as a number.
pub fn named_values(problem: &Problem, x: &[f64]) -> serde_json::Map<String, serde_json::Value> {
    (problem.coords.iter().zip(x))
        .map(|(c, v)| {
            let value = match (c.level_name(*v), c.integer) {
                (Some(level), _) => serde_json::json!(level),
                (None, true) if v.fract() == 0.0 && v.abs() < 1e15 => serde_json::json!(*v as i64),
                _ => serde_json::json!(v),
            };
            (c.name.clone(), value)
        })
        .collect()
}

/// The inverse of [`named_values`]: a point from its values by name (a categorical
/// variable's level by its name), every variable given once; the error names what is wrong.
pub fn point_from_names(
    problem: &Problem,
    named: &serde_json::Map<String, serde_json::Value>,
) -> Result<Vec<f64>, String> {
    if let Some(extra) = named
        .keys()
        .find(|k| !problem.coords.iter().any(|c| c.name == **k))
    {
        return Err(format!("`{extra}` is not a variable of {}", problem.name));
    }
    (problem.coords.iter())
        .map(|c| match named.get(&c.name) {
            None => Err(format!("no value for `{}`", c.name)),
            Some(serde_json::Value::String(level)) => c.level_value(level),
            Some(v) if c.is_categorical() => Err(format!(
                "`{}` is categorical: give one of its levels by name ({}), not {v}",
                c.name,
                c.levels.join(", ")
            )),
            Some(v) => v
                .as_f64()
                .ok_or_else(|| format!("`{}` must be a number, not {v}", c.name)),
        })
        .collect()
}
