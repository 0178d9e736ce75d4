//! `cosched simulate`: one or more batch policies on one trace (SWF or Batsim JSON), run in
//! parallel, compared in one table, with Batsim-compatible per-job files, a summary CSV, a
//! self-describing report, time series and plots.

use crate::batch_run::{PolicyChoice, PolicyList, distinct};
use crate::input::{self, InputError, Workload};
use crate::jobs_csv::{self, JobsCsvError, WorkloadInfo};
use crate::output::{self, Clash, OutputError, Outputs, Plan};
use crate::plots::{self, PlotError};
use crate::summary::{self, Row};
use crate::timeseries::{self, Series, TooManyBins};
use clap::Args;
use cosched_batch::{BatchError, SimOutcome};
use cosched_core::write_jobs_csv;
use cosched_workload::output::Staged;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::Instant;
use thiserror::Error;

/// Arguments of `cosched simulate`.
#[derive(Args)]
pub struct SimulateArgs {
    /// The trace: SWF (plain or gzip) or a Batsim JSON workload (detected by content); `-`
    /// reads standard input.
    #[arg(long, value_name = "FILE")]
    trace: PathBuf,
    /// Units in the cluster [default: the trace's MaxProcs, else its MaxNodes; Batsim's
    /// nb_res].
    #[arg(long, value_name = "N")]
    capacity: Option<u32>,
    /// Scheduling policies, `ORDER[+BACKFILL][@ESTIMATES]`: orders fcfs, sjf, ljf, saf, laf,
    /// wfp3, unicep, f1 or expr(EXPRESSION over size, estimate, submit, wait, now, area);
    /// backfilling none, easy[(order=O)], conservative or bounded(depth=K,window=W[,order=O]);
    /// estimates requests (the trace's), exact or tsafrir[(max=36h,seed=1)]. fcfs, easy,
    /// conservative and conservative-bounded (Slurm's defaults: 500 jobs, one day) name the
    /// queue-ordered ones. A comma-separated list or repeated; several run in parallel and are
    /// compared.
    #[arg(long, value_name = "POLICY[,POLICY…]", required = true,
          value_parser = PolicyList::parse)]
    policy: Vec<PolicyList>,
    /// Write, for each policy P, DIR/P_jobs.csv (Batsim's `_jobs.csv` columns), and
    /// DIR/summary.csv, DIR/report.json and DIR/timeseries.csv.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write per-job results (job_id,submit,start,end,size) to this CSV file; start and end
    /// are empty for a job that never ran (one policy only).
    #[arg(long, value_name = "OUT.csv")]
    jobs_csv: Option<PathBuf>,
    /// Write the report as JSON to this file (one policy: its figures at the top level; several:
    /// a `runs` array).
    #[arg(long, value_name = "OUT.json")]
    report: Option<PathBuf>,
    /// Write the time series (utilisation, queue length, running jobs per bin) to this CSV.
    #[arg(long, value_name = "OUT.csv")]
    timeseries_csv: Option<PathBuf>,
    /// Width of a time-series bin in seconds [default: a round value giving at most about
    /// 2,000 bins].
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(i64).range(1..))]
    resolution: Option<i64>,
    /// List the records skipped as invalid (location, job, reason) in this CSV.
    #[arg(long, value_name = "OUT.csv")]
    invalid_csv: Option<PathBuf>,
    /// Draw figures into this directory, each as SVG and PNG: utilisation and queue over
    /// time, the wait-time CDF per policy, and a Gantt chart per policy (of --gantt-window).
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
    /// The Gantt charts' window, in time since the first submission (`0:2d`, `36h:48h`,
    /// seconds without a unit) [default: the whole schedule for at most 2,000 jobs, else the
    /// window in which the first 2,000 start]; each chart says which jobs it leaves out.
    #[arg(long, value_name = "START:END", requires = "plots")]
    gantt_window: Option<plots::Window>,
}

/// `cosched simulate --help`'s closing part: examples and what the figures mean.
pub const AFTER_HELP: &str = "\
Examples:
  cosched simulate --trace examples/data/swf/SDSC-SP2-sample-4961.swf.gz \\
      --policy easy,fcfs,conservative --out results --plots results/plots
  zcat trace.swf.gz | cosched simulate --trace - --policy easy --capacity 128
  cosched simulate --trace big.swf --policy easy --plots figs --gantt-window 2d:3d

Metrics (every job of the trace; rejected jobs, wider than the machine, never start and are
left out of waits and slowdowns):
  wait              start - submit, seconds
  bounded slowdown  max((end - submit) / max(run time, tau), 1) with tau = 10 s (Feitelson
                    et al., 1997): short jobs do not dominate the mean
  p50, p95          quantiles of the completed jobs, R's type 8 (median-unbiased, Hyndman &
                    Fan 1996): interpolated between order statistics
  utilization       busy unit-seconds / (capacity x (last end - first submit))
  makespan          last end - first submit, seconds";

/// What can go wrong in `cosched simulate`.
#[derive(Debug, Error)]
pub enum SimulateError {
    /// The trace could not be read or parsed.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A bad policy list.
    #[error("--policy: {0}")]
    Policy(String),
    /// A bad combination of flags.
    #[error("{0}")]
    Usage(String),
    /// No capacity given and none in the trace.
    #[error(
        "{0}: no --capacity given and the trace states none (no MaxProcs or MaxNodes header; no nb_res)"
    )]
    NoCapacity(PathBuf),
    /// The capacity is out of range.
    #[error("capacity {value} (from {origin}) is out of range (1..=4294967295)")]
    BadCapacity {
        /// The value.
        value: u64,
        /// Where it came from.
        origin: String,
    },
    /// The simulation refused the workload.
    #[error("{path}: {policy}: {source}")]
    Simulation {
        /// The trace.
        path: PathBuf,
        /// The policy.
        policy: String,
        /// Why.
        source: BatchError,
    },
    /// The time series resolution is too fine.
    #[error(transparent)]
    Resolution(#[from] TooManyBins),
    /// An output could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// An output would destroy an input or another output.
    #[error(transparent)]
    Clash(#[from] Clash),
    /// A plot could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
}

/// One policy's run.
pub struct PolicyRun {
    /// The policy.
    pub policy: PolicyChoice,
    /// What the simulation produced.
    pub outcome: SimOutcome,
    /// Its summary row.
    pub row: Row,
    /// Its time series, when an output needs it.
    pub series: Option<Series>,
    /// Wall-clock seconds of the simulation.
    pub elapsed_s: f64,
}

/// The machine size and where it came from.
pub fn capacity_of(
    given: Option<u32>,
    workload: &Workload,
) -> Result<(u32, String), SimulateError> {
    let (value, source) = match (given, workload.stated_capacity) {
        (Some(c), _) => (u64::from(c), "--capacity".to_string()),
        (None, Some((c, key))) => (c, format!("the trace's {key}")),
        (None, None) => return Err(SimulateError::NoCapacity(workload.path.clone())),
    };
    let capacity = u32::try_from(value)
        .ok()
        .filter(|&c| c > 0)
        .ok_or_else(|| SimulateError::BadCapacity {
            value,
            origin: source.clone(),
        })?;
    Ok((capacity, source))
}

/// Runs `policies` on `workload` in parallel (rayon), with one progress bar each on a
/// terminal, and summarises each run; `series` asks for the time series (at that resolution,
/// `None` inside for the automatic one).
pub fn run_policies(
    policies: &[PolicyChoice],
    workload: &Workload,
    capacity: u32,
    series: Option<Option<i64>>,
    bars: &MultiProgress,
) -> Result<Vec<PolicyRun>, SimulateError> {
    let style = ProgressStyle::with_template(
        "{prefix:>14} [{bar:30}] {pos}/{len} jobs {per_sec} ETA {eta} ({elapsed})",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    policies
        .par_iter()
        .map(|policy| {
            let bar = bars.add(ProgressBar::new(workload.jobs.len() as u64));
            bar.set_style(style.clone());
            bar.set_prefix(policy.name().to_string());
            let clock = Instant::now();
            let outcome = policy
                .simulate(
                    capacity,
                    &workload.jobs,
                    workload.invalid.len(),
                    |done, _| bar.set_position(done as u64),
                )
                .map_err(|source| SimulateError::Simulation {
                    path: workload.path.clone(),
                    policy: policy.name().to_string(),
                    source,
                })?;
            let elapsed_s = clock.elapsed().as_secs_f64();
            bar.finish_and_clear();
            let span = summary::span_s(&outcome.report);
            let series = series
                .map(|resolution| {
                    timeseries::compute(
                        &outcome.records,
                        capacity,
                        resolution.unwrap_or_else(|| timeseries::auto_resolution(span)),
                    )
                })
                .transpose()?;
            let row = Row::new(
                policy.name(),
                &outcome.report,
                &outcome.records,
                (outcome.stats.max_queue_len, outcome.stats.mean_queue_len),
            );
            Ok(PolicyRun {
                policy: policy.clone(),
                outcome,
                row,
                series,
                elapsed_s,
            })
        })
        .collect()
}

/// The output files, planned (checked against the trace and each other) and staged (so checked
/// writable) before the simulation starts; moved into place once everything is written.
struct Prepared {
    out_dir: Option<OutDir>,
    jobs_csv: Option<Staged>,
    report: Option<Staged>,
    timeseries_csv: Option<Staged>,
    invalid_csv: Option<Staged>,
    plots: Option<PathBuf>,
}

/// The files of `--out DIR`.
struct OutDir {
    /// `P_jobs.csv`, in the order of the policies.
    jobs: Vec<Staged>,
    summary: Staged,
    report: Staged,
    timeseries: Staged,
}

/// `DIR/P_jobs.csv` of `--out DIR` for `policy`.
fn jobs_file(dir: &Path, policy: &PolicyChoice) -> PathBuf {
    dir.join(format!("{}_jobs.csv", policy.file_stem()))
}

/// The other files of `--out DIR`: summary, report, time series.
const OUT_DIR_FILES: [&str; 3] = ["summary.csv", "report.json", "timeseries.csv"];

impl Prepared {
    fn new(args: &SimulateArgs, policies: &[PolicyChoice]) -> Result<Prepared, SimulateError> {
        if args.jobs_csv.is_some() && policies.len() > 1 {
            return Err(SimulateError::Usage(
                "--jobs-csv takes one policy; with several use --out DIR (one DIR/P_jobs.csv each)"
                    .into(),
            ));
        }
        let mut plan = Plan::default();
        plan.input("--trace", &args.trace);
        if let Some(dir) = &args.out {
            for p in policies {
                plan.output("--out", jobs_file(dir, p));
            }
            for name in OUT_DIR_FILES {
                plan.output("--out", dir.join(name));
            }
        }
        for (flag, path) in [
            ("--jobs-csv", &args.jobs_csv),
            ("--report", &args.report),
            ("--timeseries-csv", &args.timeseries_csv),
            ("--invalid-csv", &args.invalid_csv),
        ] {
            if let Some(path) = path {
                plan.output(flag, path);
            }
        }
        if let Some(dir) = &args.plots {
            for file in plots::run_files(dir, policies) {
                plan.output("--plots", file);
            }
        }
        plan.check()?;
        let out_dir = match &args.out {
            Some(dir) => {
                output::create_dir(dir)?;
                let [summary, report, timeseries] = OUT_DIR_FILES;
                let file = |name: &str| output::create(&dir.join(name));
                Some(OutDir {
                    jobs: policies
                        .iter()
                        .map(|p| output::create(&jobs_file(dir, p)))
                        .collect::<Result<_, _>>()?,
                    summary: file(summary)?,
                    report: file(report)?,
                    timeseries: file(timeseries)?,
                })
            }
            None => None,
        };
        if let Some(dir) = &args.plots {
            output::create_dir(dir)?;
        }
        let open = |path: &Option<PathBuf>| path.as_deref().map(output::create).transpose();
        Ok(Prepared {
            out_dir,
            jobs_csv: open(&args.jobs_csv)?,
            report: open(&args.report)?,
            timeseries_csv: open(&args.timeseries_csv)?,
            invalid_csv: open(&args.invalid_csv)?,
            plots: args.plots.clone(),
        })
    }
}

/// Runs the command.
pub fn run(args: &SimulateArgs) -> Result<(), SimulateError> {
    let named: Vec<PolicyChoice> = args.policy.iter().flat_map(|l| l.0.clone()).collect();
    let policies = distinct(&named).map_err(SimulateError::Policy)?;
    let prepared = Prepared::new(args, &policies)?;
    let workload = input::read(&args.trace)?;
    for late in &workload.late_keys {
        eprintln!(
            "warning: {}:{}: header key {} after the first job line is ignored (the header is \
             the comment block before the first job)",
            args.trace.display(),
            late.line,
            late.key
        );
    }
    let (capacity, capacity_source) = capacity_of(args.capacity, &workload)?;
    let warnings = warnings(&workload, capacity);
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let bars = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
    let clock = Instant::now();
    let wants_series = args.out.is_some()
        || args.report.is_some()
        || args.timeseries_csv.is_some()
        || args.plots.is_some();
    let runs = run_policies(
        &policies,
        &workload,
        capacity,
        wants_series.then_some(args.resolution),
        &bars,
    )?;
    let elapsed = clock.elapsed().as_secs_f64();

    let mut meta = Meta::new(&workload, capacity, &capacity_source, None);
    meta.warnings = warnings;
    write_outputs(
        prepared,
        &workload,
        &meta,
        &runs,
        capacity,
        args.gantt_window,
    )?
    .commit()?;

    let text = if runs.len() == 1 {
        single_summary(&workload, &meta, &runs[0])
    } else {
        let rows: Vec<(String, &Row)> = runs
            .iter()
            .map(|r| (r.policy.name().to_string(), &r.row))
            .collect();
        format!(
            "trace {} ({} jobs, {} invalid), capacity {capacity} units from {capacity_source}\n{}\
             simulation time {elapsed:.3} s for {} policies in parallel\n",
            args.trace.display(),
            workload.jobs.len(),
            workload.invalid.len(),
            summary::table("policy", &rows),
            runs.len()
        )
    };
    output::stdout(&text).map_err(|e| OutputError::new(Path::new("<stdout>"), e).into())
}

/// What produced a report: program, trace, machine, seed.
#[derive(Serialize)]
pub struct Meta {
    /// `cosched` and its version.
    pub cosched_version: &'static str,
    /// The trace.
    pub trace: TraceMeta,
    /// Units of the machine.
    pub capacity: u32,
    /// Where the capacity came from.
    pub capacity_source: String,
    /// The generator's seed (`null` for a trace file).
    pub seed: Option<u64>,
    /// What the run warned about (capacity below the trace's machine or widest job, missing
    /// estimates).
    pub warnings: Vec<String>,
}

/// The trace a report is about.
#[derive(Serialize)]
pub struct TraceMeta {
    /// As given.
    pub path: String,
    /// `swf` or `batsim-json`.
    pub format: &'static str,
    /// SHA-256 of the file.
    pub sha256: String,
    /// Valid jobs read.
    pub jobs: usize,
    /// Records skipped as invalid, by reason.
    pub invalid_by_reason: BTreeMap<String, usize>,
}

impl Meta {
    /// The description of a run on `workload`.
    pub fn new(workload: &Workload, capacity: u32, source: &str, seed: Option<u64>) -> Meta {
        Meta {
            cosched_version: concat!("cosched ", env!("CARGO_PKG_VERSION")),
            trace: TraceMeta {
                path: workload.path.display().to_string(),
                format: workload.format,
                sha256: workload.sha256.clone(),
                jobs: workload.jobs.len(),
                invalid_by_reason: workload.invalid_by_reason(),
            },
            capacity,
            capacity_source: source.to_string(),
            seed,
            warnings: Vec::new(),
        }
    }
}

/// What a reader of the results must know about the machine and the estimates: a capacity
/// below the trace's stated machine (`MaxProcs`, `MaxNodes`, `nb_res`) or its widest job
/// (those jobs are rejected, never started), and estimates that are the run times themselves
/// (backfilling then plans with exact knowledge of every run time).
pub fn warnings(workload: &Workload, capacity: u32) -> Vec<String> {
    let mut out = Vec::new();
    if let Some((stated, key)) = workload.stated_capacity
        && u64::from(capacity) < stated
    {
        out.push(format!(
            "capacity {capacity} is below the trace's {key} {stated}"
        ));
    }
    let wider: Vec<u32> = workload
        .jobs
        .iter()
        .map(|j| j.size)
        .filter(|&size| size > capacity)
        .collect();
    if let Some(widest) = wider.iter().max() {
        out.push(format!(
            "{} of {} jobs are wider than the capacity {capacity} (widest {widest} units): \
             they are rejected, never started, and counted as such",
            wider.len(),
            workload.jobs.len()
        ));
    }
    if workload.missing_estimates > 0 {
        out.push(format!(
            "{} of {} jobs have no estimate of their own (no requested time): their run time \
             stands in, so backfilling plans with exact run times and no job is killed at its \
             estimate",
            workload.missing_estimates,
            workload.jobs.len()
        ));
    }
    out
}

/// One run as JSON: policy, parameters, the report's figures, simulator counters and series.
pub fn run_json(run: &PolicyRun) -> Value {
    let mut map = Map::new();
    map.insert("policy".into(), json!(run.policy.name()));
    let params: BTreeMap<&str, String> = run.policy.parameters().into_iter().collect();
    map.insert("parameters".into(), json!(params));
    if let Value::Object(report) = json!(run.outcome.report) {
        map.extend(report);
    }
    let s = &run.outcome.stats;
    map.insert(
        "simulator".into(),
        json!({"events": s.events, "passes": s.passes, "max_queue_len": s.max_queue_len,
               "mean_queue_len": s.mean_queue_len}),
    );
    if let Some(series) = &run.series {
        map.insert("timeseries".into(), json!(series));
    }
    Value::Object(map)
}

/// The report: with one run, the meta and the run's fields side by side; with several, the
/// meta and a `runs` array.
fn report_json(meta: &Meta, runs: &[PolicyRun], flat: bool) -> String {
    let mut map = match json!(meta) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    match runs {
        [one] if flat => {
            if let Value::Object(run) = run_json(one) {
                map.extend(run);
            }
        }
        _ => {
            map.insert("runs".into(), runs.iter().map(run_json).collect());
        }
    }
    let mut text = serde_json::to_string_pretty(&Value::Object(map)).unwrap_or_default();
    text.push('\n');
    text
}

fn write_outputs(
    prepared: Prepared,
    workload: &Workload,
    meta: &Meta,
    runs: &[PolicyRun],
    capacity: u32,
    gantt_window: Option<plots::Window>,
) -> Result<Outputs, SimulateError> {
    let info = WorkloadInfo {
        name: &workload.name,
        jobs: &workload.jobs,
        profiles: workload.profiles.as_deref(),
    };
    let mut series_csv = String::from(timeseries::CSV_HEADER);
    for r in runs {
        if let Some(series) = &r.series {
            series.write_csv_rows(r.policy.name(), &mut series_csv);
        }
    }
    let mut outputs = Outputs::default();
    if let Some(dir) = prepared.out_dir {
        let jobs: Vec<Staged> = dir
            .jobs
            .into_par_iter()
            .zip(runs)
            .map(|(mut file, r)| {
                jobs_csv::write(&mut file, &info, &r.outcome.records, capacity).map_err(
                    |e| match e {
                        JobsCsvError::Io(e) => OutputError::new(file.path(), e),
                        other => OutputError::new(file.path(), other),
                    },
                )?;
                Ok(file)
            })
            .collect::<Result<_, OutputError>>()?;
        jobs.into_iter().for_each(|f| outputs.add(f));
        let rows: Vec<(Vec<String>, &Row)> = runs.iter().map(|r| (Vec::new(), &r.row)).collect();
        let bytes =
            summary::to_csv(&[], &rows).map_err(|e| OutputError::new(dir.summary.path(), e))?;
        outputs.put(dir.summary, &bytes)?;
        outputs.put(dir.report, report_json(meta, runs, false).as_bytes())?;
        outputs.put(dir.timeseries, series_csv.as_bytes())?;
    }
    if let Some(mut file) = prepared.jobs_csv
        && let [run] = runs
    {
        write_jobs_csv(BufWriter::new(&mut file), &run.outcome.records)
            .map_err(|e| OutputError::new(file.path(), e))?;
        outputs.add(file);
    }
    if let Some(file) = prepared.report {
        outputs.put(file, report_json(meta, runs, true).as_bytes())?;
    }
    if let Some(file) = prepared.timeseries_csv {
        outputs.put(file, series_csv.as_bytes())?;
    }
    if let Some(file) = prepared.invalid_csv {
        let mut w = csv::Writer::from_writer(Vec::new());
        let location = if workload.format == "swf" {
            "line"
        } else {
            "index"
        };
        let rows = std::iter::once([location.to_string(), "job".into(), "reason".into()]).chain(
            workload
                .invalid
                .iter()
                .map(|r| [r.location.to_string(), r.job.clone(), r.reason.clone()]),
        );
        for row in rows {
            w.write_record(row)
                .map_err(|e| OutputError::new(file.path(), e))?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| OutputError::new(file.path(), e))?;
        outputs.put(file, &bytes)?;
    }
    if let Some(dir) = &prepared.plots {
        for (path, bytes) in plots::draw_runs(dir, &workload.name, runs, capacity, gantt_window)? {
            outputs.write(&path, &bytes)?;
        }
    }
    Ok(outputs)
}

/// The summary of a single-policy run.
fn single_summary(workload: &Workload, meta: &Meta, run: &PolicyRun) -> String {
    let r = &run.outcome.report;
    let invalid = if r.invalid == 0 {
        "0".to_string()
    } else {
        let reasons: Vec<String> = meta
            .trace
            .invalid_by_reason
            .iter()
            .map(|(reason, n)| format!("{n} {reason}"))
            .collect();
        format!("{} ({})", r.invalid, reasons.join("; "))
    };
    format!(
        "trace            {}\n\
         policy           {}\n\
         capacity         {} units (from {})\n\
         jobs             {} ({} completed)\n\
         rejected         {}\n\
         invalid          {}\n\
         mean wait        {:.1} s (median {:.0}, p95 {:.0}, max {:.0})\n\
         mean bounded sld {:.3} (tau {} s; median {:.2}, p95 {:.2})\n\
         utilization      {:.4}\n\
         makespan         {} s\n\
         max queue        {} jobs (time-averaged {:.1})\n\
         simulation time  {:.3} s ({:.0} jobs/s)\n",
        workload.path.display(),
        run.policy,
        r.capacity,
        meta.capacity_source,
        r.jobs,
        r.completed,
        r.rejected,
        invalid,
        r.overall.mean_wait_s,
        run.row.median_wait_s,
        run.row.p95_wait_s,
        run.row.max_wait_s,
        r.overall.mean_bounded_slowdown,
        r.slowdown_tau_s,
        run.row.median_bounded_slowdown,
        run.row.p95_bounded_slowdown,
        r.utilization,
        run.row.makespan_s,
        run.outcome.stats.max_queue_len,
        run.outcome.stats.mean_queue_len,
        run.elapsed_s,
        r.jobs as f64 / run.elapsed_s.max(1e-9),
    )
}
