//! With several objectives, what a run has found: the feasible evaluations no other
//! dominates (the Pareto set), and the hypervolume they dominate up to the reference point.

use super::journal::{Phase, Record};
use super::named::named_values;
use crate::numerics::pareto::{default_reference, hypervolume, non_dominated};
use crate::oracle::{minimized_objectives, minimized_reference};
use pinnbo_dsl::Problem;
use serde::Serialize;

/// The Pareto set and its hypervolume (`summary.json`'s `pareto`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Front {
    /// The reference point by objective name, in the file's own sense: the file's
    /// `reference`, or by default each objective's worst value in the initial design
    /// moved a tenth of its spread further.
    pub reference: serde_json::Map<String, serde_json::Value>,
    pub hypervolume: f64,
    /// The non-dominated feasible evaluations, in journal order.
    pub points: Vec<FrontPoint>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrontPoint {
    /// The record's index, counted from 0.
    pub index: usize,
    /// The same evaluation counted from 1.
    pub evaluation: usize,
    pub x: Vec<f64>,
    pub at: serde_json::Map<String, serde_json::Value>,
    /// Each objective by name, in the file's own sense.
    pub objectives: serde_json::Map<String, serde_json::Value>,
    pub constraints: Vec<f64>,
}

/// The reference point as minimized: the file's, or [`default_reference`] of the
/// evaluations outside the method's steps (the initial design and imported rows), which
/// the method uses too. None before any of those succeeded.
pub fn reference(problem: &Problem, records: &[Record]) -> Option<Vec<f64>> {
    minimized_reference(problem).or_else(|| {
        let design: Vec<Vec<f64>> = (records.iter())
            .filter(|r| r.phase != Phase::Step)
            .filter_map(|r| r.observed.as_ref())
            .map(|e| minimized_objectives(problem, e))
            .collect();
        default_reference(&design)
    })
}

/// The feasible evaluations' objectives as minimized, with their records.
fn feasible<'a>(problem: &Problem, records: &'a [Record]) -> Vec<(&'a Record, Vec<f64>)> {
    (records.iter())
        .filter_map(|r| Some((r, r.truth()?)))
        .filter(|(_, e)| e.is_feasible())
        .map(|(r, e)| (r, minimized_objectives(problem, e)))
        .collect()
}

/// The run's Pareto set and hypervolume; None for one objective or before the reference
/// point is known.
pub fn front(problem: &Problem, records: &[Record]) -> Option<Front> {
    if !problem.is_multi_objective() {
        return None;
    }
    let reference = reference(problem, records)?;
    let feasible = feasible(problem, records);
    let values: Vec<Vec<f64>> = feasible.iter().map(|(_, v)| v.clone()).collect();
    let names = problem.objective_names();
    let in_file_sense = |minimized: &[f64]| {
        let e = (problem.objectives().zip(minimized)).map(|(o, v)| match o.sense {
            pinnbo_dsl::ir::Sense::Minimize => *v,
            pinnbo_dsl::ir::Sense::Maximize => -v,
        });
        (names.iter().cloned().zip(e.map(serde_json::Value::from))).collect()
    };
    let points = non_dominated(&values)
        .into_iter()
        .map(|i| {
            let (r, v) = &feasible[i];
            FrontPoint {
                index: r.index,
                evaluation: r.index + 1,
                x: r.x.clone(),
                at: named_values(problem, &r.x),
                objectives: in_file_sense(v),
                constraints: r.truth().map(|e| e.constraints.clone()).unwrap_or_default(),
            }
        })
        .collect();
    Some(Front {
        reference: in_file_sense(&reference),
        hypervolume: hypervolume(&values, &reference),
        points,
    })
}

/// After each record, the hypervolume of the feasible evaluations so far (None before the
/// reference point is known): `history.csv`'s column and the plots' curve.
pub fn hypervolume_so_far(problem: &Problem, records: &[Record]) -> Vec<Option<f64>> {
    let Some(reference) = reference(problem, records) else {
        return vec![None; records.len()];
    };
    let mut front: Vec<Vec<f64>> = Vec::new();
    (records.iter())
        .map(|r| {
            if let Some(e) = r.truth().filter(|e| e.is_feasible()) {
                front.push(minimized_objectives(problem, e));
            }
            Some(hypervolume(&front, &reference))
        })
        .collect()
}
