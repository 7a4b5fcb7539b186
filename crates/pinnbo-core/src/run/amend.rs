//! What a resume may change in a run: its budget (`--resume DIR --budget N`), and the
//! problem file when the user accepts an edit (`--accept-changed`). The journal stays
//! append-only: the changes live beside it in `resume.json`, replaced whole, and the text the
//! run started from (or last accepted) in `journal.pde`, so that a refused edit can say
//! what changed.

use super::atomic;
use super::journal::{self, Header, JournalError};
use super::RunError;
use pinnbo_dsl::Source;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;

const AMENDMENTS: &str = "resume.json";
/// The problem text the run follows, in the run's folder.
pub const SNAPSHOT: &str = "journal.pde";

/// Settings of a run that later resumes changed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Amendments {
    budget: Option<usize>,
    source_sha256: Option<String>,
}

pub(crate) fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn load(dir: &Path) -> Result<Amendments, JournalError> {
    let path = dir.join(AMENDMENTS);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            JournalError::io_at(&path)(std::io::Error::new(std::io::ErrorKind::InvalidData, e))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Amendments::default()),
        Err(e) => Err(JournalError::io_at(&path)(e)),
    }
}

fn save(dir: &Path, amendments: &Amendments) -> Result<(), JournalError> {
    let path = dir.join(AMENDMENTS);
    let bytes = serde_json::to_vec_pretty(amendments).expect("plain data");
    atomic::write(&path, &bytes).map_err(JournalError::io_at(&path))
}

/// Keeps the problem text the run now follows.
pub(crate) fn snapshot(dir: &Path, text: &str) -> Result<(), JournalError> {
    let path = dir.join(SNAPSHOT);
    atomic::write(&path, text.as_bytes()).map_err(JournalError::io_at(&path))
}

/// The run journaled in `dir` as a resume sees it: its header with the budget and problem
/// text later resumes recorded.
pub fn read_settings(dir: &Path) -> Result<Header, JournalError> {
    let mut header = journal::read_header(&dir.join("journal.jsonl"))?;
    let amendments = load(dir)?;
    header.budget = amendments.budget.unwrap_or(header.budget);
    header.source_sha256 = amendments.source_sha256.or(header.source_sha256);
    Ok(header)
}

/// What a resume changes in a run, recorded by [`Amendment::record`] only once every check
/// of the resume has passed: a refused resume leaves the run as it was.
#[must_use]
pub(crate) struct Amendment {
    amendments: Option<Amendments>,
    snapshot: Option<String>,
}

impl Amendment {
    pub(crate) fn record(self, dir: &Path) -> Result<(), JournalError> {
        if let Some(amendments) = &self.amendments {
            save(dir, amendments)?;
        }
        if let Some(text) = &self.snapshot {
            snapshot(dir, text)?;
        }
        Ok(())
    }
}

/// Checks a resume's problem text against the one the run follows (`found`'s hash, or the
/// last accepted one) and says what it changes: a budget other than `found`'s, an accepted
/// edit. An edit not accepted is refused, naming its first changed line.
pub(crate) fn reconcile(
    dir: &Path,
    found: &Header,
    expected: &Header,
    source: &Source,
    accept_changed: bool,
) -> Result<Amendment, RunError> {
    let recorded = load(dir)?;
    let followed = recorded
        .source_sha256
        .as_ref()
        .or(found.source_sha256.as_ref());
    let changed = match (followed, &expected.source_sha256) {
        (Some(before), Some(now)) => before != now,
        // A journal from before the hash was kept: nothing to compare with.
        _ => false,
    };
    if changed && !accept_changed {
        let what = match std::fs::read_to_string(dir.join(SNAPSHOT)) {
            // The text is the one the run followed, yet the hash journaled for it differs:
            // the record, not the file, was changed.
            Ok(before) if before == source.text() => format!(
                "its text is the run's own ({SNAPSHOT}), but the journal records another \
                 hash for it: the journal's header or {AMENDMENTS} was edited"
            ),
            Ok(before) => first_difference(&before, source.text()),
            Err(_) => "its text differs".to_string(),
        };
        return Err(RunError::Mismatch(format!(
            "{} changed since the run in {} started ({what}); continue with the edited file \
             with --accept-changed, or restore it",
            source.name(),
            dir.display()
        )));
    }
    let updated = Amendments {
        budget: (expected.budget != found.budget).then_some(expected.budget),
        source_sha256: match changed {
            true => expected.source_sha256.clone(),
            false => recorded.source_sha256.clone(),
        },
    };
    Ok(Amendment {
        amendments: (updated != recorded).then_some(updated),
        snapshot: changed.then(|| source.text().to_string()),
    })
}

/// The first line where `now` differs from `before`, as a user would check it.
pub(crate) fn first_difference(before: &str, now: &str) -> String {
    let (mut old, mut new) = (before.lines(), now.lines());
    for number in 1.. {
        match (old.next(), new.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (Some(a), Some(b)) => return format!("line {number} was `{a}`, now `{b}`"),
            (Some(a), None) => return format!("line {number} `{a}` was removed"),
            (None, Some(b)) => return format!("line {number} `{b}` was added"),
            (None, None) => break,
        }
    }
    "only line endings or a final newline differ".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_difference_is_named_by_its_line() {
        let before = "var x in [0, 1]\nbudget 12\nminimize x\n";
        assert_eq!(
            first_difference(before, "var x in [0, 1]\nbudget 14\nminimize x\n"),
            "line 2 was `budget 12`, now `budget 14`"
        );
        assert_eq!(
            first_difference(before, "var x in [0, 1]\nbudget 12\n"),
            "line 3 `minimize x` was removed"
        );
        assert_eq!(
            first_difference(before, &before.replace('\n', "\r\n")),
            "only line endings or a final newline differ"
        );
        assert_eq!(sha256("abc").len(), 64);
        assert_eq!(
            &sha256("abc")[..16],
            "ba7816bf8f01cfea",
            "the standard SHA-256 test vector"
        );
    }
}
