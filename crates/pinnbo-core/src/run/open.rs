//! Opening a run: a new one in an empty folder, or the one journaled there continued after
//! checking that it is the same run.

use super::journal::{self, Ask, Header, Journal, JournalError, Phase, Record, RngState, FORMAT};
use super::{amend, initial_design, strategy_state, validate, Run, RunConfig, RunError, Setup};
use crate::space::Space;
use crate::strategies::Diagnostics;
use pinnbo_dsl::Problem;
use std::path::Path;

impl Run {
    /// A new run writing into `dir` (created; must not hold a journal already).
    pub fn start(setup: Setup, dir: &Path) -> Result<Run, RunError> {
        // A run writes history.csv, summary.json and pictures into its folder: a folder
        // holding anything else (the user's own files of those names) is not taken over.
        if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
            return Err(RunError::Refused(format!(
                "{} is not empty and holds no pinnbo run; a run writes its journal, \
                 history.csv, summary.json and pictures there and needs a new or empty \
                 folder",
                dir.display()
            )));
        }
        std::fs::create_dir_all(dir).map_err(|source| JournalError::Io {
            path: dir.display().to_string(),
            source,
        })?;
        let header = header(&setup.problem, &setup.config);
        let records: Vec<Record> = (setup.imported.iter().enumerate())
            .map(|(index, row)| Record {
                index,
                phase: Phase::Import,
                x: row.x.clone(),
                observed: Some(row.values.clone()),
                clean: None,
                failure: None,
                propose_seconds: 0.0,
                evaluate_seconds: 0.0,
                diagnostics: Diagnostics::default(),
                rng: RngState {
                    seed: setup.config.seed,
                    index,
                },
            })
            .collect();
        // The imported evaluations are journaled with the header, all or none.
        let journal = Journal::create(&dir.join("journal.jsonl"), &header, &records)?;
        amend::snapshot(dir, setup.problem.source.text())?;
        Ok(Run::assemble(setup, journal, records, Vec::new(), dir))
    }

    /// Continues the run journaled in `dir`, which must be the same problem, method, seed and
    /// initial design, from the same problem text unless `accept_changed`. A budget other
    /// than the journal's (not below what it holds) extends or shortens the run; it and an
    /// accepted edit are recorded for later resumes (`amend`).
    pub fn resume(setup: Setup, dir: &Path) -> Result<Run, RunError> {
        let (journal, contents) = Journal::resume(&dir.join("journal.jsonl"))?;
        let journal::Contents {
            header: found,
            records,
            asks,
            record_lines,
        } = contents;
        let expected = header(&setup.problem, &setup.config);
        let differences = identity_differences(&found, &expected);
        if !differences.is_empty() {
            return Err(RunError::Mismatch(format!(
                "{} was written by a different run: {}",
                dir.display(),
                differences.join(", ")
            )));
        }
        if expected.budget < records.len() {
            return Err(RunError::Mismatch(format!(
                "{} holds {} evaluations already: a budget of {} would end it before them",
                dir.display(),
                records.len(),
                expected.budget
            )));
        }
        let amendment = amend::reconcile(
            dir,
            &found,
            &expected,
            &setup.problem.source,
            setup.config.accept_changed,
        )?;
        let mut run = Run::assemble(setup, journal, records, asks, dir);
        let plan = validate::Plan {
            problem: &run.problem,
            space: &run.space,
            seed: run.config.seed,
            initial: &run.initial,
            imported: run.imported,
        };
        plan.check(&run.records, &record_lines, &run.asks)
            .map_err(|why| {
                RunError::Mismatch(format!("{}: {why}", dir.join("journal.jsonl").display()))
            })?;
        // Failures before the stop are journaled; a resumed run gets `max_failures` new tries
        // (the user resumes after mending the oracle).
        run.failures_in_a_row = 0;
        if let Some(last) = run.last_proposal() {
            let saved = strategy_state::load(dir, last)?;
            // A finished run needs its state only for the final pictures, so it may lack it.
            if saved.is_some() || !run.is_done() {
                run.strategy.restore(saved).map_err(|e| {
                    RunError::Mismatch(format!(
                        "{}: cannot continue the run exactly: {}",
                        strategy_state::path(dir, last).display(),
                        e
                    ))
                })?;
            }
        }
        // Every check passed: only now is a new budget or an accepted edit recorded.
        amendment.record(dir)?;
        Ok(run)
    }

    fn assemble(
        setup: Setup,
        journal: Journal,
        records: Vec<Record>,
        asks: Vec<Ask>,
        dir: &Path,
    ) -> Run {
        let Setup {
            problem,
            oracle,
            noise,
            strategy,
            config,
            imported: _,
        } = setup;
        let space = Space::of(&problem);
        let initial = initial_design(&space, &config);
        let imported = records
            .iter()
            .take_while(|r| r.phase == Phase::Import)
            .count();
        Run {
            problem,
            space,
            oracle,
            noise,
            strategy,
            config,
            journal,
            records,
            asks,
            initial,
            imported,
            failures_in_a_row: 0,
            stopped_at: None,
            exhausted_at: None,
            dir: dir.to_path_buf(),
        }
    }
}

/// What makes a journal another run's: its problem, method, seed, initial design size or
/// kind, each named with the journal's value and this run's (empty when they agree).
fn identity_differences(found: &Header, expected: &Header) -> Vec<String> {
    let pairs = [
        ("problem", found.problem.clone(), expected.problem.clone()),
        ("method", found.method.clone(), expected.method.clone()),
        ("seed", found.seed.to_string(), expected.seed.to_string()),
        (
            "initial design size",
            found.init.to_string(),
            expected.init.to_string(),
        ),
        (
            "initial design",
            found.design.clone(),
            expected.design.clone(),
        ),
    ];
    (pairs.into_iter())
        .filter(|(_, a, b)| a != b)
        .map(|(what, a, b)| format!("its {what} is {a}, this one's {b}"))
        .collect()
}

fn header(problem: &Problem, config: &RunConfig) -> Header {
    Header {
        pinnbo_journal: FORMAT,
        problem: problem.name.clone(),
        file: problem.source.name().to_string(),
        method: config.method.clone(),
        seed: config.seed,
        budget: config.budget,
        init: config.init,
        design: format!("{:?}", config.design).to_lowercase(),
        source_sha256: Some(amend::sha256(problem.source.text())),
    }
}
