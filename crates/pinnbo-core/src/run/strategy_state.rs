//! What a stateful strategy carries between proposals (see [`crate::Strategy::state`]),
//! saved in the run's folder as `strategy/after-<index>.bin`, the state after proposing
//! evaluation `index`.
//!
//! A state is written (to a temporary name, synced, then renamed) before its evaluation
//! starts, and the journal line after it ends, so the state of the last journaled proposal
//! always exists: a run killed in between resumes from the one before. Only those two
//! files are kept.

use crate::run::journal::JournalError;
use std::path::{Path, PathBuf};

const FOLDER: &str = "strategy";

pub(crate) fn path(dir: &Path, index: usize) -> PathBuf {
    dir.join(FOLDER).join(format!("after-{index}.bin"))
}

/// Saves the state after proposing evaluation `index`; removes every other saved state but
/// `previous` (the last journaled proposal's).
pub(crate) fn save(
    dir: &Path,
    index: usize,
    previous: Option<usize>,
    bytes: &[u8],
) -> Result<(), JournalError> {
    let folder = dir.join(FOLDER);
    // Never through a link: the folder's files are written and removed.
    if std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_symlink()) {
        return Err(JournalError::io_at(&folder)(std::io::Error::other(
            "a link where the run's own folder of saved states belongs; remove it",
        )));
    }
    std::fs::create_dir_all(&folder).map_err(JournalError::io_at(&folder))?;
    let target = path(dir, index);
    super::atomic::write(&target, bytes).map_err(JournalError::io_at(&target))?;
    // Everything else of ours goes, including a temporary file a crash left behind.
    let keep: Vec<PathBuf> = [Some(index), previous]
        .into_iter()
        .flatten()
        .map(|i| path(dir, i))
        .collect();
    for entry in std::fs::read_dir(&folder).map_err(JournalError::io_at(&folder))? {
        let entry = entry.map_err(JournalError::io_at(&folder))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.starts_with("after-") || name.starts_with(".after-");
        if ours && !keep.contains(&entry.path()) {
            std::fs::remove_file(entry.path()).map_err(JournalError::io_at(&entry.path()))?;
        }
    }
    Ok(())
}

/// The state saved after proposing evaluation `index`, if any.
pub(crate) fn load(dir: &Path, index: usize) -> Result<Option<Vec<u8>>, JournalError> {
    let target = path(dir, index);
    match std::fs::read(&target) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(JournalError::io_at(&target)(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_state_and_the_last_journaled_one_are_kept() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        std::fs::create_dir_all(dir.join(FOLDER)).unwrap();
        std::fs::write(dir.join(FOLDER).join(".after-2.partial.bin"), b"torn").unwrap();
        save(dir, 4, None, b"four").unwrap();
        save(dir, 5, Some(4), b"five").unwrap();
        save(dir, 7, Some(5), b"seven").unwrap();
        assert_eq!(load(dir, 4).unwrap(), None);
        assert_eq!(load(dir, 5).unwrap().as_deref(), Some(&b"five"[..]));
        assert_eq!(load(dir, 7).unwrap().as_deref(), Some(&b"seven"[..]));
        let names = std::fs::read_dir(dir.join(FOLDER)).unwrap().count();
        assert_eq!(names, 2, "no temporary file left behind, nor a crash's");
    }
}
