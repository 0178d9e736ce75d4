//! Output plumbing shared by the subcommands: checked writes to standard output, a closed
//! pipe downstream treated as a quiet end (as Unix tools do), and output paths checked
//! writable before any long computation starts.

use std::error::Error;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// An output file or directory that cannot be written.
#[derive(Debug, Error)]
#[error("cannot write {path}: {message}")]
pub struct OutputError {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub message: String,
}

impl OutputError {
    /// The error for `path`.
    pub fn new(path: &Path, e: impl ToString) -> OutputError {
        OutputError {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }
}

/// Writes `text` to standard output and flushes it.
pub fn stdout(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Whether `e` or one of its sources is a closed pipe (`EPIPE`).
pub fn is_broken_pipe(e: &(dyn Error + 'static)) -> bool {
    let mut current = Some(e);
    while let Some(e) = current {
        if let Some(io) = e.downcast_ref::<io::Error>()
            && io.kind() == io::ErrorKind::BrokenPipe
        {
            return true;
        }
        current = e.source();
    }
    false
}

/// Creates (or truncates) `path` now, so that an unwritable path fails before the work that
/// would fill it; returns the open file.
pub fn create_file(path: &Path) -> Result<File, OutputError> {
    if path.is_dir() {
        return Err(OutputError::new(path, "it is a directory"));
    }
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(|e| OutputError::new(path, e))
}

/// Creates the directory `dir` (and its parents) and checks that a file can be made in it.
pub fn create_dir(dir: &Path) -> Result<(), OutputError> {
    fs::create_dir_all(dir).map_err(|e| OutputError::new(dir, e))?;
    let probe = dir.join(".cosched-write-probe");
    File::create(&probe).map_err(|e| OutputError::new(dir, e))?;
    fs::remove_file(&probe).map_err(|e| OutputError::new(dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_pipes_are_found_through_sources() {
        #[derive(Debug, Error)]
        #[error("wrapped")]
        struct Wrapped(#[source] io::Error);
        let pipe = Wrapped(io::Error::from(io::ErrorKind::BrokenPipe));
        assert!(is_broken_pipe(&pipe));
        let full = Wrapped(io::Error::from(io::ErrorKind::StorageFull));
        assert!(!is_broken_pipe(&full));
    }

    #[test]
    fn unwritable_paths_fail_early() {
        let dir = tempfile::tempdir().unwrap();
        assert!(create_file(dir.path()).is_err());
        assert!(create_file(&dir.path().join("no/such/dir/x.csv")).is_err());
        assert!(create_file(&dir.path().join("x.csv")).is_ok());
        assert!(create_dir(&dir.path().join("a/b")).is_ok());
        let file = dir.path().join("x.csv");
        assert!(create_dir(&file.join("sub")).is_err());
    }
}
