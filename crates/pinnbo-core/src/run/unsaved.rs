//! An evaluation the journal could not take (a full disk), said so that nothing measured is
//! lost: the `pinnbo tell` that records it once there is room.

use super::journal::Record;
use pinnbo_dsl::Problem;
use std::path::Path;

/// An evaluation as the user would tell it again: what it gave, and the `pinnbo tell` that
/// records it in the run in `dir`.
pub(super) fn tell_later(problem: &Problem, dir: &Path, record: &Record) -> String {
    let at: Vec<String> = (problem.coords.iter().zip(&record.x))
        .map(|(c, v)| format!("{}={}", c.name, c.show(*v)))
        .collect();
    let tell = format!("pinnbo tell {} --at {}", dir.display(), at.join(","));
    let Some(e) = &record.observed else {
        let why = record.failure.as_deref().unwrap_or("unknown");
        return format!("it failed ({why}); tell it later with `{tell} --failed ..`");
    };
    let objective = match problem.is_multi_objective() {
        true => (problem.objective_names().iter().zip(&e.objectives))
            .map(|(name, v)| format!("{name}={v}"))
            .collect::<Vec<_>>()
            .join(","),
        false => e.objective().to_string(),
    };
    let mut told = format!("{tell} --objective {objective}");
    if !e.constraints.is_empty() {
        let constraints: Vec<String> = e.constraints.iter().map(f64::to_string).collect();
        told += &format!(" --constraints {}", constraints.join(","));
    }
    // Each field's values in its statements' order (a field may have several).
    let mut by_field: Vec<(String, Vec<String>)> = Vec::new();
    let mut k = 0;
    for (field, n) in problem.sensor_groups() {
        let values = e.sensors[k..k + n].iter().map(f64::to_string);
        match by_field.iter_mut().find(|(f, _)| *f == field) {
            Some((_, all)) => all.extend(values),
            None => by_field.push((field, values.collect())),
        }
        k += n;
    }
    for (field, values) in by_field {
        told += &format!(" --sensors {field}={}", values.join(","));
    }
    format!("tell it later with `{told}`")
}
