//! The `cosched` command's inputs and outputs as a library: reading a trace as the command
//! reads it, and writing the per-job table and the time series byte for byte as it writes them,
//! so that a binding (the Python package) gives the same numbers as `cosched simulate`; and the
//! one way the command writes a file ([`output`]: staged, never over an input).

pub mod batch_run;
pub mod generate;
pub mod input;
pub mod jobs_csv;
pub mod output;
pub mod summary;
pub mod timeseries;
pub mod units;
