//! `cosched simulate`: one batch policy on one SWF trace.

use clap::Args;
use cosched_batch::scenario::BuiltinPolicy;
use cosched_batch::{BatchError, BatchSim};
use cosched_core::write_jobs_csv;
use cosched_workload::swf::{SwfError, read_rigid_jobs};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;
use thiserror::Error;

/// Arguments of `cosched simulate`.
#[derive(Args)]
pub struct SimulateArgs {
    /// The SWF trace (plain or gzip-compressed).
    #[arg(long, value_name = "FILE.swf")]
    trace: PathBuf,
    /// Units in the cluster [default: the trace header's MaxProcs].
    #[arg(long, value_name = "N")]
    capacity: Option<u32>,
    /// Scheduling policy: fcfs, easy, conservative or conservative-bounded (Slurm's default
    /// backfill bounds: 500 jobs reserved, a one-day window).
    #[arg(long, value_name = "POLICY")]
    policy: BuiltinPolicy,
    /// Write per-job results (job_id,submit,start,end,size) to this CSV file; start and end
    /// are empty for a job that never ran.
    #[arg(long, value_name = "OUT.csv")]
    jobs_csv: Option<PathBuf>,
    /// Write the full report as JSON to this file.
    #[arg(long, value_name = "OUT.json")]
    report: Option<PathBuf>,
}

/// What can go wrong in `cosched simulate`.
#[derive(Debug, Error)]
pub enum SimulateError {
    /// The trace could not be read or parsed.
    #[error(transparent)]
    Trace(#[from] SwfError),
    /// No capacity given and none in the header.
    #[error("{0}: no --capacity given and the trace header has no MaxProcs")]
    NoCapacity(PathBuf),
    /// The capacity is out of range.
    #[error("capacity {0} is out of range (1..=4294967295)")]
    BadCapacity(u64),
    /// The simulation refused the workload.
    #[error("{path}: {source}")]
    Simulation {
        /// The trace.
        path: PathBuf,
        /// Why.
        source: BatchError,
    },
    /// An output file could not be written.
    #[error("cannot write {path}: {message}")]
    Output {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

fn output_error(path: &Path, e: impl ToString) -> SimulateError {
    SimulateError::Output {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Runs the command.
pub fn run(args: &SimulateArgs) -> Result<(), SimulateError> {
    let trace = read_rigid_jobs(&args.trace)?;
    for late in &trace.late_keys {
        eprintln!(
            "warning: {}:{}: header key {} after the first job line is ignored (the header is \
             the comment block before the first job)",
            args.trace.display(),
            late.line,
            late.key
        );
    }
    let capacity = match args.capacity {
        Some(c) => u64::from(c),
        None => trace
            .header
            .values()
            .max_procs
            .ok_or_else(|| SimulateError::NoCapacity(args.trace.clone()))?,
    };
    let capacity = u32::try_from(capacity)
        .ok()
        .filter(|&c| c > 0)
        .ok_or(SimulateError::BadCapacity(capacity))?;
    let sim_error = |source| SimulateError::Simulation {
        path: args.trace.clone(),
        source,
    };
    let mut sim = BatchSim::new(capacity, args.policy.build()).map_err(sim_error)?;
    let bar =
        ProgressBar::with_draw_target(Some(trace.jobs.len() as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} jobs ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(format!("{} on {}", args.policy, args.trace.display()));
    let clock = Instant::now();
    let outcome = sim
        .run_trace(&trace, |done, _| bar.set_position(done as u64))
        .map_err(sim_error)?;
    let elapsed = clock.elapsed().as_secs_f64();
    bar.finish_and_clear();

    if let Some(path) = &args.jobs_csv {
        let file = File::create(path).map_err(|e| output_error(path, e))?;
        write_jobs_csv(BufWriter::new(file), &outcome.records)
            .map_err(|e| output_error(path, e))?;
    }
    if let Some(path) = &args.report {
        std::fs::write(path, outcome.report.to_json() + "\n").map_err(|e| output_error(path, e))?;
    }
    let r = &outcome.report;
    let summary = format!(
        "trace            {}\n\
         policy           {}\n\
         capacity         {} units\n\
         jobs             {} ({} completed)\n\
         rejected         {}\n\
         invalid          {}\n\
         mean wait        {:.1} s\n\
         mean bounded sld {:.3} (tau {} s)\n\
         utilization      {:.4}\n\
         max queue        {} jobs (time-averaged {:.1})\n\
         simulation time  {:.3} s ({:.0} jobs/s)\n",
        args.trace.display(),
        args.policy,
        r.capacity,
        r.jobs,
        r.completed,
        r.rejected,
        r.invalid,
        r.overall.mean_wait_s,
        r.overall.mean_bounded_slowdown,
        r.slowdown_tau_s,
        r.utilization,
        outcome.stats.max_queue_len,
        outcome.stats.mean_queue_len,
        elapsed,
        r.jobs as f64 / elapsed.max(1e-9),
    );
    io::stdout()
        .write_all(summary.as_bytes())
        .map_err(|e| output_error(Path::new("<stdout>"), e))
}
