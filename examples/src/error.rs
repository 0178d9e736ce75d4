//! The harness's error type: every failure names the file or directory it concerns.

use std::path::PathBuf;

use thiserror::Error;

use crate::PlotError;

/// A failure to write an example's outputs.
#[derive(Debug, Error)]
pub enum Error {
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
