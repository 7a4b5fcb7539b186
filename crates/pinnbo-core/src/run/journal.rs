//! The append-only journal: a header line, then one JSON line per evaluation, each flushed and
//! fsync'd before the next evaluation starts. A crash loses at most the evaluation in flight;
//! a torn last line is cut off when the run resumes.
//!
//! Besides evaluations, a line may hand out a point for evaluation elsewhere (`{"ask": ..}`,
//! [`Ask`]): it is pending until a record with its id (the record's `rng.index`) follows.
//!
//! A journal open for writing holds an exclusive advisory lock (`flock`) on its file, so a
//! second writer (a second `pinnbo solve --resume`, or two benches on one folder) is refused
//! instead of interleaving records. The kernel drops the lock when the process ends, however
//! it ends, so a killed run leaves nothing stale behind.

use crate::diagnostics::Diagnostics;
use crate::oracle::Evaluation;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::Path;

pub const FORMAT: u32 = 1;

/// What the run is; a resumed run must match it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub pinnbo_journal: u32,
    pub problem: String,
    pub file: String,
    pub method: String,
    pub seed: u64,
    pub budget: usize,
    pub init: usize,
    pub design: String,
    /// SHA-256 of the problem file's text when the run started (absent in journals written
    /// before session 16): a resume with an edited file is refused unless accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_sha256: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// An evaluation made before the run (`--import`), journaled first.
    Import,
    Init,
    Step,
    /// A point evaluated elsewhere and told to the run without having been asked.
    Extra,
}

impl Phase {
    /// The word the journal writes: `import`, `init`, `step`, `extra`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Import => "import",
            Phase::Init => "init",
            Phase::Step => "step",
            Phase::Extra => "extra",
        }
    }
}

/// The random stream a step drew from: `stream(seed, purpose, index)` in `run.rs`. `index`
/// is the point's slot: its place in the sequence of proposals, and the id `ask` gave it;
/// the record's own index when it was proposed and evaluated in one step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RngState {
    pub seed: u64,
    pub index: usize,
}

/// One evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub index: usize,
    pub phase: Phase,
    /// The point in the problem's own coordinates.
    pub x: Vec<f64>,
    /// The values the optimizer saw (with noise, if the problem adds any).
    pub observed: Option<Evaluation>,
    /// The noise-free values, when noise was added.
    pub clean: Option<Evaluation>,
    pub failure: Option<String>,
    pub propose_seconds: f64,
    pub evaluate_seconds: f64,
    pub diagnostics: Diagnostics,
    pub rng: RngState,
}

/// A point handed out for evaluation elsewhere (`pinnbo ask`, [`crate::Run::ask`]), pending
/// until told.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ask {
    /// The point's slot (see [`RngState`]); the record that answers it has `rng.index == id`.
    pub id: usize,
    pub phase: Phase,
    /// The point in the problem's own coordinates.
    pub x: Vec<f64>,
    pub propose_seconds: f64,
    pub diagnostics: Diagnostics,
}

/// A line that hands out a point: `{"ask": ..}` (borrowed to write, owned when read).
#[derive(Serialize, Deserialize)]
struct AskLine<A> {
    ask: A,
}

/// What a journal holds, as [`Journal::resume`] read it.
pub struct Contents {
    pub header: Header,
    pub records: Vec<Record>,
    /// Every point ever asked, answered or not, in the order asked.
    pub asks: Vec<Ask>,
    /// The file's line number of each record (the header is line 1).
    pub record_lines: Vec<usize>,
}

impl Record {
    /// The values a run is judged by: noise-free when noise was added, else as observed.
    pub fn truth(&self) -> Option<&Evaluation> {
        self.clean.as_ref().or(self.observed.as_ref())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not a pinnbo journal ({reason})")]
    Invalid { path: String, reason: String },
    #[error(
        "{path} is locked: another process is writing {what}; wait for it to finish or stop it"
    )]
    Busy { path: String, what: &'static str },
    #[error("{0}: this run was closed; resume it to write to it again")]
    Closed(String),
}

impl JournalError {
    /// Turns an I/O error on `path` (the journal or a file of the run beside it) into one
    /// that names the file.
    pub(crate) fn io_at(path: &Path) -> impl Fn(std::io::Error) -> JournalError + Copy + '_ {
        move |source| JournalError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}

/// Takes `file`'s exclusive advisory lock for writing `what` ("this run"), or says that
/// another process holds it. Held until `file` closes.
pub(crate) fn lock_for_writing(
    file: &File,
    shown: &str,
    what: &'static str,
) -> Result<(), JournalError> {
    file.try_lock().map_err(|e| match e {
        std::fs::TryLockError::WouldBlock => JournalError::Busy {
            path: shown.to_string(),
            what,
        },
        std::fs::TryLockError::Error(source) => JournalError::Io {
            path: shown.to_string(),
            source,
        },
    })
}

/// A JSON error located in the journal file: serde places it inside the one line it read.
fn at_line(line_number: usize, what: &str, e: &serde_json::Error) -> String {
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(cut) => &message[..cut],
        None => &message,
    };
    format!(
        "line {line_number}, column {}: {what}: {message}",
        e.column()
    )
}

fn parse_header(line: &str) -> Result<Header, String> {
    let h: Header = serde_json::from_str(line).map_err(|e| at_line(1, "bad header", &e))?;
    if h.pinnbo_journal != FORMAT {
        return Err(format!("format {} (expected {FORMAT})", h.pinnbo_journal));
    }
    Ok(h)
}

/// The header of the journal at `path` (what run it holds), without opening it for writing.
pub fn read_header(path: &Path) -> Result<Header, JournalError> {
    let shown = path.display().to_string();
    let io = JournalError::io_at(path);
    let mut line = String::new();
    BufReader::new(File::open(path).map_err(io)?)
        .read_line(&mut line)
        .map_err(io)?;
    parse_header(&line).map_err(|reason| JournalError::Invalid {
        path: shown.clone(),
        reason,
    })
}

pub struct Journal {
    /// None once closed ([`Journal::close`]).
    file: Option<File>,
    path: String,
}

impl Journal {
    /// A new journal (refuses to overwrite one) holding `header` and the `leading` records
    /// (imported evaluations): all of them or, if the process dies on the way, no journal
    /// at all. They are written under a temporary name, synced, and linked into place.
    pub fn create(
        path: &Path,
        header: &Header,
        leading: &[Record],
    ) -> Result<Journal, JournalError> {
        let shown = path.display().to_string();
        let io = JournalError::io_at(path);
        if std::fs::symlink_metadata(path).is_ok() {
            return Err(io(std::io::Error::from(std::io::ErrorKind::AlreadyExists)));
        }
        let temporary = super::atomic::temporary(path);
        let written = (|| {
            let mut file = super::atomic::claim(&temporary)?;
            let mut text = serde_json::to_string(header).expect("serializable");
            text.push('\n');
            for record in leading {
                text.push_str(&serde_json::to_string(record).expect("serializable"));
                text.push('\n');
            }
            file.write_all(text.as_bytes())?;
            file.sync_data()?;
            // A link, not a rename: it fails where a journal appeared meanwhile.
            std::fs::hard_link(&temporary, path)
        })();
        let _ = std::fs::remove_file(&temporary);
        written.map_err(io)?;
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(JournalError::io_at(path))?;
        lock_for_writing(&file, &shown, "this run")?;
        Ok(Journal {
            file: Some(file),
            path: shown,
        })
    }

    /// Opens an existing journal for appending, with everything it holds. A last line
    /// without its newline (a write cut short) is removed.
    pub fn resume(path: &Path) -> Result<(Journal, Contents), JournalError> {
        let shown = path.display().to_string();
        let io = JournalError::io_at(path);
        let invalid = |reason: String| JournalError::Invalid {
            path: shown.clone(),
            reason,
        };
        // Never through a link: a run's journal is a file of its own folder.
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink()) {
            return Err(invalid(
                "it is a link; pinnbo writes a run's journal only as a file of its own folder"
                    .into(),
            ));
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(io)?;
        // Before reading: a torn last line may be another writer's record in flight.
        lock_for_writing(&file, &shown, "this run")?;
        let mut reader = BufReader::new(&mut file);
        let (mut header, mut kept) = (None, 0u64);
        let (mut records, mut asks, mut record_lines) = (Vec::new(), Vec::new(), Vec::new());
        let mut line = String::new();
        for number in 1.. {
            line.clear();
            let n = reader.read_line(&mut line).map_err(io)?;
            if n == 0 || !line.ends_with('\n') {
                break;
            }
            if header.is_none() {
                header = Some(parse_header(&line).map_err(invalid)?);
            } else if line.starts_with("{\"ask\"") {
                let a: AskLine<Ask> = serde_json::from_str(&line).map_err(|e| {
                    invalid(at_line(
                        number,
                        &format!("ask {} is unreadable", asks.len()),
                        &e,
                    ))
                })?;
                asks.push(a.ask);
            } else {
                let r: Record = serde_json::from_str(&line).map_err(|e| {
                    let what = format!("record {} is unreadable", records.len());
                    invalid(at_line(number, &what, &e))
                })?;
                if r.index != records.len() {
                    return Err(invalid(format!(
                        "line {number}: record {} has index {}",
                        records.len(),
                        r.index
                    )));
                }
                records.push(r);
                record_lines.push(number);
            }
            kept += n as u64;
        }
        let header = header.ok_or_else(|| invalid("empty".into()))?;
        drop(reader);
        file.set_len(kept).map_err(io)?;
        file.seek(SeekFrom::End(0)).map_err(io)?;
        let journal = Journal {
            file: Some(file),
            path: shown.clone(),
        };
        Ok((
            journal,
            Contents {
                header,
                records,
                asks,
                record_lines,
            },
        ))
    }

    pub fn append(&mut self, record: &Record) -> Result<(), JournalError> {
        self.write_line(&serde_json::to_string(record).expect("serializable"))
    }

    pub fn append_ask(&mut self, ask: &Ask) -> Result<(), JournalError> {
        self.write_line(&serde_json::to_string(&AskLine { ask }).expect("serializable"))
    }

    /// Closes the file, and with it the lock: another writer may open the run.
    pub fn close(&mut self) {
        self.file = None;
    }

    fn write_line(&mut self, line: &str) -> Result<(), JournalError> {
        let Some(file) = self.file.as_mut() else {
            return Err(JournalError::Closed(self.path.clone()));
        };
        // Whole or not at all: a write cut short (a full disk) is cut back off the file.
        let before = file.metadata().map(|m| m.len());
        let result = (|| {
            file.write_all(format!("{line}\n").as_bytes())?;
            file.flush()?;
            file.sync_data()
        })();
        if result.is_err() {
            if let Ok(length) = before {
                let _ = file.set_len(length).and_then(|()| file.sync_data());
            }
        }
        result.map_err(|source| JournalError::Io {
            path: self.path.clone(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn header() -> Header {
        Header {
            pinnbo_journal: FORMAT,
            problem: "p".into(),
            file: "p.pde".into(),
            method: "random".into(),
            seed: 0,
            budget: 3,
            init: 1,
            design: "sobol".into(),
            source_sha256: None,
        }
    }

    /// An empty folder of its own (removed when the test ends) and the journal's path in it.
    fn scratch() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        (dir, path)
    }

    /// An edited or damaged journal is refused with the file's line, not serde's position
    /// inside the one line it was given.
    #[test]
    fn an_unreadable_record_is_located_by_its_line_in_the_file() {
        let (_dir, path) = scratch();
        drop(Journal::create(&path, &header(), &[]).unwrap());
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"index\": 0, \"x\": [0.5,]}\n").unwrap();
        drop(file);
        let error = Journal::resume(&path).err().expect("refused");
        assert_eq!(
            error.to_string(),
            format!(
                "{}: not a pinnbo journal (line 2, column 24: record 0 is unreadable: \
                 trailing comma)",
                path.display()
            )
        );
        std::fs::write(&path, "{\"pinnbo_journal\": tru}\n").unwrap();
        let error = Journal::resume(&path).err().expect("refused");
        assert_eq!(
            error.to_string(),
            format!(
                "{}: not a pinnbo journal (line 1, column 23: bad header: \
                 expected ident)",
                path.display()
            )
        );
    }

    #[test]
    fn a_journal_has_one_writer_at_a_time() {
        let (_dir, path) = scratch();
        let header = header();
        let first = Journal::create(&path, &header, &[]).unwrap();
        // flock conflicts between two opens even within one process.
        let second = Journal::resume(&path)
            .err()
            .expect("a second writer is refused");
        assert_eq!(
            second.to_string(),
            format!(
                "{} is locked: another process is writing this run; wait for it to finish or stop it",
                path.display()
            )
        );
        drop(first);
        let (_, found) = Journal::resume(&path).expect("free once the writer closes");
        assert_eq!((found.header, found.records.len()), (header, 0));
    }

    /// A resumed run must see exactly the values it journaled, or its trajectory drifts from
    /// the uninterrupted one (serde_json's default float parser may miss by one ulp; the
    /// workspace enables `float_roundtrip`).
    #[test]
    fn journaled_floats_read_back_bit_for_bit() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for _ in 0..100_000 {
            let v: f64 = rng.random::<f64>() * 10f64.powi(rng.random_range(-8..8));
            let text = serde_json::to_string(&v).unwrap();
            let back: f64 = serde_json::from_str(&text).unwrap();
            assert_eq!(back.to_bits(), v.to_bits(), "{v:e} came back as {back:e}");
        }
    }
}
