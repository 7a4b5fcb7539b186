//! Field coordinates (`coord`): declared among the design variables in any order, numbered
//! after them once the file is checked, so that `Problem::coords` stays the design.

use crate::ir::*;

/// `problem` with its field coordinates (`coord`, declared among the variables in any
/// order) moved after the design variables, every coordinate renumbered to match. Without
/// field coordinates it is returned as it is.
pub(super) fn split_field_coords(mut problem: Problem, field: &[CoordId]) -> Problem {
    if field.is_empty() {
        return problem;
    }
    let all = std::mem::take(&mut problem.coords);
    let design: Vec<CoordId> = (0..all.len()).filter(|c| !field.contains(c)).collect();
    let mut new = vec![0; all.len()];
    for (k, &c) in design.iter().chain(field).enumerate() {
        new[c] = k;
    }
    problem.coords = design.iter().map(|&c| all[c].clone()).collect();
    problem.field_coords = field.iter().map(|&c| all[c].clone()).collect();
    let renumber = |e: &mut Expr| *e = e.renumber_coords(&new);
    for f in &mut problem.fields {
        f.args.iter_mut().for_each(|c| *c = new[*c]);
        f.definition.iter_mut().for_each(renumber);
    }
    for pde in &mut problem.pdes {
        renumber(&mut pde.lhs);
        renumber(&mut pde.rhs);
    }
    renumber(&mut problem.objective.expr);
    for o in &mut problem.other_objectives {
        renumber(&mut o.expr);
    }
    for c in &mut problem.constraints {
        renumber(&mut c.expr);
    }
    for s in &mut problem.sensors {
        s.coords.iter_mut().for_each(|c| *c = new[*c]);
    }
    match &mut problem.oracle {
        Oracle::Fdm(o) => {
            for b in &mut o.conditions {
                renumber(&mut b.lhs);
                renumber(&mut b.rhs);
                b.coord = new[b.coord];
            }
        }
        Oracle::Command(o) => {
            for part in &mut o.template {
                if let TemplatePart::Coord(c) = part {
                    *c = new[*c];
                }
            }
        }
        Oracle::ClosedForm | Oracle::External => {}
    }
    problem
}
