//! `cosched generate`: synthetic workloads as SWF on standard output.

use clap::ValueEnum;
use clap::{Args, Subcommand};
use cosched_core::workload::swf::{HeaderLineError, SwfHeader, SwfRecord, SwfWriter};
use cosched_core::workload::{LublinModel, LublinParams, TsafrirEstimates};
use cosched_core::{Duration, ParamError};
use std::io::{self, BufWriter, Write};
use thiserror::Error;

/// Arguments of `cosched generate`.
#[derive(Args)]
pub struct GenerateArgs {
    #[command(subcommand)]
    model: Model,
}

#[derive(Subcommand)]
enum Model {
    /// Lublin–Feitelson (2003) rigid jobs with Tsafrir–Etsion–Feitelson (2005) estimates.
    Lublin(LublinArgs),
}

#[derive(Args)]
struct LublinArgs {
    /// Number of jobs.
    #[arg(long)]
    jobs: usize,
    /// Units of the machine (sizes are drawn up to it); written as MaxProcs.
    #[arg(long)]
    capacity: u32,
    /// Random seed: the same seed gives the same trace.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Largest runtime estimate, in hours (at least 1).
    #[arg(long, default_value_t = 36)]
    max_estimate_hours: i64,
    /// Which parameter set: the whole-log ("typeless") one, which reproduces the Parallel
    /// Workloads Archive's published Lublin traces, or the batch/interactive classes.
    #[arg(long, value_enum, default_value_t = Stream::Typeless)]
    stream: Stream,
}

/// The Lublin model's job classes.
#[derive(Clone, Copy, ValueEnum)]
enum Stream {
    /// Batch and interactive streams merged in time order.
    Mixed,
    /// Batch jobs only.
    Batch,
    /// Interactive jobs only.
    Interactive,
    /// The whole-log ("typeless") parameters.
    Typeless,
}

/// What can go wrong in `cosched generate`.
#[derive(Debug, Error)]
pub enum GenerateError {
    /// A model parameter is out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The header could not be built.
    #[error(transparent)]
    Header(#[from] HeaderLineError),
    /// Standard output could not be written.
    #[error("cannot write the trace to standard output: {0}")]
    Output(#[from] io::Error),
}

/// Runs the command.
pub fn run(args: &GenerateArgs) -> Result<(), GenerateError> {
    let Model::Lublin(args) = &args.model;
    let model = match args.stream {
        Stream::Mixed => LublinModel::mixed(args.capacity)?,
        Stream::Batch => LublinModel::new(args.capacity)?,
        Stream::Interactive => {
            LublinModel::with_params(args.capacity, LublinParams::interactive())?
        }
        Stream::Typeless => LublinModel::typeless(args.capacity)?,
    };
    let estimates = TsafrirEstimates::new(Duration::from_hours(args.max_estimate_hours))?;
    let mut jobs = model.generate(args.jobs, args.seed);
    estimates.assign(&mut jobs, args.seed);

    let mut header = SwfHeader::new();
    header.push("Version", "2.2")?;
    header.push("Computer", "synthetic (cosched generate lublin)")?;
    header.push(
        "Note",
        format!(
            "Lublin-Feitelson 2003 model ({} stream), Tsafrir-Etsion-Feitelson 2005 estimates, seed {}",
            args.stream.to_possible_value().map_or_else(String::new, |v| v.get_name().to_string()),
            args.seed
        ),
    )?;
    header.push("MaxJobs", jobs.len())?;
    header.push("MaxRecords", jobs.len())?;
    header.push("MaxNodes", args.capacity)?;
    header.push("MaxProcs", args.capacity)?;
    header.push("MaxRuntime", args.max_estimate_hours * 3600)?;

    let stdout = io::stdout().lock();
    let mut writer = SwfWriter::new(BufWriter::new(stdout));
    writer.write_header(&header)?;
    for job in &jobs {
        writer.write_record(&SwfRecord::from_rigid(job))?;
    }
    writer.finish()?.flush()?;
    Ok(())
}
