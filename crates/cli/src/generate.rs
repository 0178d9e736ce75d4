//! `cosched generate`: synthetic workloads as SWF on standard output or into a file.

use crate::output::{self, OutputError, Outputs};
use clap::ValueEnum;
use clap::{Args, Subcommand};
use cosched_core::{Duration, ParamError, RigidJob};
use cosched_workload::swf::{HeaderLineError, SwfHeader, SwfRecord, SwfWriter};
use cosched_workload::{LoadScaling, LoadTally, LublinModel, LublinParams, TsafrirEstimates};
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use thiserror::Error;

/// `cosched generate --help`'s closing part.
pub const AFTER_HELP: &str = "\
Examples:
  cosched generate lublin --jobs 10000 --capacity 256 --seed 7 --load 0.85 > lublin.swf
  cosched generate lublin --jobs 100000000 --capacity 1024 | gzip > huge.swf.gz
  cosched generate lublin --jobs 5000 --capacity 128 | cosched simulate --trace - --policy easy

Offered load = work / (capacity x submission span), run times cut at their estimates.";

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
    /// Offered load to scale the arrivals to (work / (capacity × submission span), with run
    /// times cut at their estimates), keeping sizes and run times: the model's inter-arrival
    /// times are stretched or compressed by one factor (computed in a first pass over the
    /// same jobs, so memory stays that of one block).
    #[arg(long, value_name = "LOAD")]
    load: Option<f64>,
    /// Write the trace to FILE, moved into place once it is complete (a failed or interrupted
    /// run leaves an earlier FILE as it was) [default: standard output].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// The Lublin model's job classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Stream {
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
    /// Standard output could not be written (a closed pipe ends the command quietly).
    #[error("cannot write the trace to standard output: {0}")]
    Output(#[from] io::Error),
    /// The `--out` file could not be written.
    #[error(transparent)]
    File(#[from] OutputError),
}

/// A Lublin–Feitelson workload with Tsafrir estimates, generated job by job in blocks of
/// [`BLOCK_JOBS`]: what `cosched generate lublin` writes and `cosched experiment` simulates.
pub struct LublinSource {
    model: LublinModel,
    estimates: TsafrirEstimates,
    /// The estimate bound, seconds.
    pub max_estimate: Duration,
    jobs: u64,
    seed: u64,
}

impl LublinSource {
    /// `jobs` jobs of the `stream` parameter set on `capacity` units, estimates up to
    /// `max_estimate_hours`, from `seed`.
    pub fn new(
        capacity: u32,
        stream: Stream,
        max_estimate_hours: i64,
        jobs: u64,
        seed: u64,
    ) -> Result<LublinSource, ParamError> {
        let model = match stream {
            Stream::Mixed => LublinModel::mixed(capacity)?,
            Stream::Batch => LublinModel::new(capacity)?,
            Stream::Interactive => LublinModel::with_params(capacity, LublinParams::interactive())?,
            Stream::Typeless => LublinModel::typeless(capacity)?,
        };
        let max_estimate = Duration::from_secs(3600)
            .checked_mul(max_estimate_hours)
            .ok_or_else(|| {
                ParamError::new(
                    "max-estimate-hours",
                    max_estimate_hours,
                    "must be at most 2562047788015215 (i64 seconds)",
                )
            })?;
        Ok(LublinSource {
            model,
            estimates: TsafrirEstimates::new(max_estimate)?,
            max_estimate,
            jobs,
            seed,
        })
    }

    /// Calls `each` on every job in order, holding one block at a time.
    pub fn for_each<E>(&self, each: &mut dyn FnMut(&RigidJob) -> Result<(), E>) -> Result<(), E> {
        let mut jobs = self.model.jobs(self.seed);
        let mut block =
            Vec::with_capacity(BLOCK_JOBS.min(usize::try_from(self.jobs).unwrap_or(usize::MAX)));
        let mut left = self.jobs;
        let mut part = 0;
        while left > 0 {
            let take = usize::try_from(left).map_or(BLOCK_JOBS, |left| left.min(BLOCK_JOBS));
            block.clear();
            block.extend(jobs.by_ref().take(take));
            self.estimates.assign_part(&mut block, self.seed, part);
            block.iter().try_for_each(&mut *each)?;
            left -= take as u64;
            part += 1;
        }
        Ok(())
    }

    /// The jobs rescaled to offered load `load` (two passes, see [`LoadTally`]), or as
    /// generated.
    pub fn scaling(
        &self,
        capacity: u32,
        load: Option<f64>,
    ) -> Result<Option<LoadScaling>, ParamError> {
        let Some(load) = load else { return Ok(None) };
        let mut tally = LoadTally::default();
        self.for_each::<ParamError>(&mut |job| {
            tally.add(job);
            Ok(())
        })?;
        tally.scaling(capacity, load).map(Some)
    }
}

/// Runs the command.
pub fn run(args: &GenerateArgs) -> Result<(), GenerateError> {
    let Model::Lublin(args) = &args.model;
    let source = LublinSource::new(
        args.capacity,
        args.stream,
        args.max_estimate_hours,
        args.jobs,
        args.seed,
    )?;
    let max_estimate = source.max_estimate;
    let scaling = source.scaling(args.capacity, args.load)?;
    let mut header = SwfHeader::new();
    header.push("Version", "2.2")?;
    header.push("Computer", "synthetic (cosched generate lublin)")?;
    let load = args.load.map_or_else(String::new, |l| {
        format!(", arrivals scaled to offered load {l}")
    });
    header.push(
        "Note",
        format!(
            "Lublin-Feitelson 2003 model ({} stream), Tsafrir-Etsion-Feitelson 2005 estimates \
             per block of {BLOCK_JOBS} jobs, seed {}{load}",
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

    let write = |out: &mut dyn Write| -> io::Result<()> {
        let mut writer = SwfWriter::new(BufWriter::new(out));
        writer.write_header(&header)?;
        source.for_each::<io::Error>(&mut |job| match scaling {
            Some(scaling) => {
                let mut job = *job;
                job.submit = scaling.apply(job.submit);
                writer.write_record(&SwfRecord::from_rigid(&job))
            }
            None => writer.write_record(&SwfRecord::from_rigid(job)),
        })?;
        writer.finish()?.flush()
    };
    match &args.out {
        None => Ok(write(&mut io::stdout().lock())?),
        Some(path) => {
            let mut file = output::create(path)?;
            write(&mut file).map_err(|e| OutputError::new(path, e))?;
            let mut outputs = Outputs::default();
            outputs.add(file);
            Ok(outputs.commit()?)
        }
    }
}
