//! Files replaced whole or not at all: written under a temporary name in the same folder,
//! synced, then renamed over the target. A full disk or a crash leaves the previous file (or
//! none), never a truncated one. Callers name the file in their errors.
//!
//! Nothing is written through a link: whatever sits at the temporary name (a stale file, a
//! link someone planted) is removed, and the file is created exclusively (`O_EXCL`, which
//! never follows a link); the rename then replaces the target's own entry, a link included,
//! never what it points to.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The temporary name `target` is written under: hidden, in its folder, keeping its
/// extension (so a writer that picks a format by extension still can).
pub fn temporary(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) => (stem.to_string(), format!(".{ext}")),
        None => (name.clone(), String::new()),
    };
    target.with_file_name(format!(".{stem}.partial{ext}"))
}

/// A fresh regular file at `path`: whatever entry is there (a file or a link, never a
/// folder) is removed first, and the file is created exclusively.
pub fn claim(path: &Path) -> std::io::Result<std::fs::File> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_dir() => std::fs::remove_file(path)?,
        _ => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

/// Replaces `target` with `bytes`; on failure the temporary file is removed.
pub fn write(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temporary = temporary(target);
    let written = (|| {
        let mut file = claim(&temporary)?;
        file.write_all(bytes)?;
        file.sync_data()
    })();
    match written {
        Ok(()) => std::fs::rename(&temporary, target),
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write that fails leaves the old file whole and no temporary behind.
    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let target = dir.join("summary.json");
        write(&target, b"old").unwrap();
        assert_eq!(temporary(&target), dir.join(".summary.partial.json"));
        // A folder where the temporary file would go makes the write fail.
        std::fs::create_dir_all(temporary(&target)).unwrap();
        assert!(write(&target, b"new").is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        std::fs::remove_dir(temporary(&target)).unwrap();
        write(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert!(!temporary(&target).exists());
    }

    /// A link planted at the temporary name, or at the target itself, is replaced, and the
    /// file it points to is left as it was.
    #[test]
    fn nothing_is_written_through_a_link() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let victim = dir.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let target = dir.join("summary.json");
        std::os::unix::fs::symlink(&victim, temporary(&target)).unwrap();
        write(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert!(!std::fs::symlink_metadata(&target).unwrap().is_symlink());
        std::fs::remove_file(&target).unwrap();
        std::os::unix::fs::symlink(&victim, &target).unwrap();
        write(&target, b"newer").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&target).unwrap(), b"newer");
    }
}
