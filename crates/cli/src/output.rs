//! Output plumbing shared by the subcommands: checked writes to standard output, a closed
//! pipe downstream treated as a quiet end (as Unix tools do), and the one way every file is
//! written.
//!
//! Every output file goes through [`Outputs`]: it is written to a temporary file beside its
//! target ([`Staged`]) and moved into place only when the whole command has succeeded, so a
//! failed run (a typo in `--trace`, a trace the simulation refuses) leaves earlier results as
//! they were. Before anything is opened, a [`Plan`] of the command's inputs and outputs
//! refuses an output that is (or resolves to, through `..`, symbolic or hard links) one of
//! the inputs, and two outputs that are one file, naming the flags involved.

use cosched_workload::output::{FileIdentity, Staged, is_regular_file};
use std::collections::HashMap;
use std::error::Error;
use std::fs;
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

/// Outputs that would destroy an input or each other.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum Clash {
    /// An output is one of the inputs.
    #[error(
        "{output} {path} is also the input {input} {input_path}: refusing to write over it (give the output another path)"
    )]
    OverInput {
        /// The flag naming the output.
        output: String,
        /// The output's path.
        path: PathBuf,
        /// The flag naming the input.
        input: String,
        /// The input's path, as given.
        input_path: PathBuf,
    },
    /// Two outputs are one file.
    #[error(
        "{first} {first_path} and {second} {second_path} are one file: give each output its own path"
    )]
    SameOutput {
        /// The flag naming the first.
        first: String,
        /// Its path.
        first_path: PathBuf,
        /// The flag naming the second.
        second: String,
        /// Its path.
        second_path: PathBuf,
    },
}

/// The files a command reads and writes, each with the flag (or argument) that names it.
#[derive(Debug, Default)]
pub struct Plan {
    inputs: Vec<(String, PathBuf)>,
    outputs: Vec<(String, PathBuf)>,
}

impl Plan {
    /// Adds an input file.
    pub fn input(&mut self, flag: impl Into<String>, path: impl Into<PathBuf>) -> &mut Plan {
        self.inputs.push((flag.into(), path.into()));
        self
    }

    /// Adds an output file.
    pub fn output(&mut self, flag: impl Into<String>, path: impl Into<PathBuf>) -> &mut Plan {
        self.outputs.push((flag.into(), path.into()));
        self
    }

    /// Refuses an output that is an input (regular files only: `/dev/stdin` in and
    /// `/dev/stdout` out may be one terminal), and two outputs that are one file. Each path is
    /// resolved once, so an experiment's thousands of task files cost what they number.
    pub fn check(&self) -> Result<(), Clash> {
        let inputs: Vec<(&(String, PathBuf), FileIdentity)> = self
            .inputs
            .iter()
            .filter(|(_, path)| is_regular_file(path))
            .map(|input| (input, FileIdentity::of(&input.1)))
            .collect();
        let mut by_path: HashMap<PathBuf, usize> = HashMap::new();
        let mut by_inode: HashMap<(u64, u64), usize> = HashMap::new();
        for (i, (output, path)) in self.outputs.iter().enumerate() {
            let id = FileIdentity::of(path);
            if let Some(((input, input_path), _)) = inputs.iter().find(|(_, x)| x.same(&id)) {
                return Err(Clash::OverInput {
                    output: output.clone(),
                    path: path.clone(),
                    input: input.clone(),
                    input_path: input_path.clone(),
                });
            }
            let twin = by_path
                .get(&id.path)
                .or_else(|| id.inode.and_then(|inode| by_inode.get(&inode)));
            if let Some(&first) = twin {
                let (first, first_path) = &self.outputs[first];
                return Err(Clash::SameOutput {
                    first: first.clone(),
                    first_path: first_path.clone(),
                    second: output.clone(),
                    second_path: path.clone(),
                });
            }
            by_path.insert(id.path, i);
            if let Some(inode) = id.inode {
                by_inode.insert(inode, i);
            }
        }
        Ok(())
    }
}

/// Starts writing `path` (see [`Staged::create`]): the temporary file is made now, so an
/// unwritable place fails before the work that would fill it.
pub fn create(path: &Path) -> Result<Staged, OutputError> {
    Staged::create(path).map_err(|e| OutputError::new(path, e))
}

/// The files a command has written, moved into place together by [`Outputs::commit`]; dropped
/// uncommitted (the command failed), none of them replaces anything.
#[derive(Debug, Default)]
pub struct Outputs {
    staged: Vec<Staged>,
}

impl Outputs {
    /// Adds a written file.
    pub fn add(&mut self, file: Staged) {
        self.staged.push(file);
    }

    /// Writes `bytes` to `file` and adds it.
    pub fn put(&mut self, mut file: Staged, bytes: &[u8]) -> Result<(), OutputError> {
        file.write_all(bytes)
            .map_err(|e| OutputError::new(file.path(), e))?;
        self.add(file);
        Ok(())
    }

    /// Writes `bytes` to a new staged file at `path`.
    pub fn write(&mut self, path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
        self.put(create(path)?, bytes)
    }

    /// Moves every file into place.
    pub fn commit(self) -> Result<(), OutputError> {
        for file in self.staged {
            let path = file.path().to_path_buf();
            file.commit().map_err(|e| OutputError::new(&path, e))?;
        }
        Ok(())
    }
}

/// `name` as a file name: characters other than letters, digits and those of `keep` become
/// `_` (so a path separator or a control character never reaches the file system).
pub fn file_name(name: &str, keep: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_alphanumeric() || keep.contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
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

/// Creates the directory `dir` (and its parents) and checks that a file can be made in it.
pub fn create_dir(dir: &Path) -> Result<(), OutputError> {
    fs::create_dir_all(dir).map_err(|e| OutputError::new(dir, e))?;
    tempfile::tempfile_in(dir)
        .map(drop)
        .map_err(|e| OutputError::new(dir, e))
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
        assert!(create(dir.path()).is_err());
        assert!(create(&dir.path().join("no/such/dir/x.csv")).is_err());
        assert!(create(&dir.path().join("x.csv")).is_ok());
        assert!(create_dir(&dir.path().join("a/b")).is_ok());
        std::fs::write(dir.path().join("x.csv"), "x").unwrap();
        assert!(create_dir(&dir.path().join("x.csv/sub")).is_err());
    }

    #[test]
    fn plans_refuse_outputs_over_inputs_and_twin_outputs() {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("t.swf");
        std::fs::write(&trace, "1").unwrap();
        let mut plan = Plan::default();
        plan.input("--trace", &trace)
            .output("--report", dir.path().join("r.json"));
        assert_eq!(plan.check(), Ok(()));
        plan.output("--jobs-csv", dir.path().join("x/../t.swf"));
        assert!(matches!(plan.check(), Err(Clash::OverInput { .. })));
        let mut plan = Plan::default();
        plan.output("--out", dir.path().join("D/report.json"))
            .output("--report", dir.path().join("D/./report.json"));
        let err = plan.check().unwrap_err().to_string();
        assert!(err.contains("--out") && err.contains("--report"), "{err}");
        // Special files are not inputs an output could destroy.
        let mut plan = Plan::default();
        plan.input("--trace", "/dev/stdin")
            .output("--jobs-csv", "/dev/stdin");
        assert_eq!(plan.check(), Ok(()));
    }
}
