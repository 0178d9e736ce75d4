//! The harness's error type: every failure names the file or directory it concerns.

use std::path::PathBuf;

use thiserror::Error;

use crate::PlotError;

/// A failure of an example: a bad flag or input, or its outputs could not be written.
#[derive(Debug, Error)]
pub enum Error {
    /// A command-line flag has a value outside its range.
    #[error("{flag} {value}: expected {expected}")]
    Flag {
        /// The flag, e.g. `--seeds`.
        flag: &'static str,
        /// The value given (at most [`cosched_core::EXCERPT_CHARS`] characters).
        value: String,
        /// What it should be.
        expected: String,
    },
    /// An input (a trace, a CSV file) cannot be used, e.g. it has no valid job.
    #[error("{}: {problem}", path.display())]
    Input {
        /// The input file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// Writing to standard output failed (a closed pipe, a full disk).
    #[error("cannot write to standard output: {0}")]
    Stdout(std::io::Error),
    /// Creating, reading or writing `path` failed.
    #[error("I/O error on `{}`: {source}", path.display())]
    Io {
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Writing the CSV file `path` failed.
    #[error("CSV error on `{}`: {source}", path.display())]
    Csv {
        /// The CSV file concerned.
        path: PathBuf,
        /// The underlying error.
        source: csv::Error,
    },
    /// Drawing the plot destined for `path` failed.
    #[error("cannot draw plot `{}`: {source}", path.display())]
    Plot {
        /// The SVG file the plot was destined for.
        path: PathBuf,
        /// What the plotting library reported.
        source: PlotError,
    },
}

impl Error {
    /// An [`Error::Io`] on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// The harness's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
