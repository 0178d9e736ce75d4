//! `cosched generate`: synthetic workloads as SWF on standard output.

use clap::ValueEnum;
use clap::{Args, Subcommand};
use cosched_core::{Duration, ParamError};
use cosched_workload::swf::{HeaderLineError, SwfHeader, SwfRecord, SwfWriter};
use cosched_workload::{LublinModel, LublinParams, TsafrirEstimates};
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
    /// Number of jobs (written as they are generated, in constant memory).
    #[arg(long)]
    jobs: u64,
    /// Units of the machine (sizes are drawn up to it); written as MaxProcs.
    #[arg(long)]
    capacity: u32,
    /// Random seed: the same seed gives the same trace.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Largest runtime estimate, in hours (at least 1, at most 2562047788015215: i64 seconds).
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

/// Jobs generated and given estimates together: the Tsafrir model is applied to each block of
/// this many jobs (from its own random stream), so memory stays that of one block whatever
/// `--jobs` is. A trace of at most one block is exactly `generate` then `assign`.
pub const BLOCK_JOBS: usize = 100_000;

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
    let max_estimate = Duration::from_secs(3600)
        .checked_mul(args.max_estimate_hours)
        .ok_or_else(|| {
            ParamError::new(
                "max-estimate-hours",
                args.max_estimate_hours,
                "must be at most 2562047788015215 (i64 seconds)",
            )
        })?;
    let estimates = TsafrirEstimates::new(max_estimate)?;

    let mut header = SwfHeader::new();
    header.push("Version", "2.2")?;
    header.push("Computer", "synthetic (cosched generate lublin)")?;
    header.push(
        "Note",
        format!(
            "Lublin-Feitelson 2003 model ({} stream), Tsafrir-Etsion-Feitelson 2005 estimates \
             per block of {BLOCK_JOBS} jobs, seed {}",
            args.stream
                .to_possible_value()
                .map_or_else(String::new, |v| v.get_name().to_string()),
            args.seed
        ),
    )?;
    header.push("MaxJobs", args.jobs)?;
    header.push("MaxRecords", args.jobs)?;
    header.push("MaxNodes", args.capacity)?;
    header.push("MaxProcs", args.capacity)?;
    header.push("MaxRuntime", max_estimate.secs())?;

    let stdout = io::stdout().lock();
    let mut writer = SwfWriter::new(BufWriter::new(stdout));
    writer.write_header(&header)?;
    let mut jobs = model.jobs(args.seed);
    let mut block =
        Vec::with_capacity(BLOCK_JOBS.min(usize::try_from(args.jobs).unwrap_or(usize::MAX)));
    let mut left = args.jobs;
    let mut part = 0;
    while left > 0 {
        let take = usize::try_from(left).map_or(BLOCK_JOBS, |left| left.min(BLOCK_JOBS));
        block.clear();
        block.extend(jobs.by_ref().take(take));
        estimates.assign_part(&mut block, args.seed, part);
        for job in &block {
            writer.write_record(&SwfRecord::from_rigid(job))?;
        }
        left -= take as u64;
        part += 1;
    }
    writer.finish()?.flush()?;
    Ok(())
}
