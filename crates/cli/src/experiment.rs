//! `cosched experiment FILE.toml`: policies × workloads (trace files, or generated workloads)
//! × offered loads × seeds, run in parallel with a progress bar, into one summary CSV, a
//! comparison table and plots; or the same file as a Slurm job array (`--slurm`).
//!
//! ```toml
//! name = "easy-vs-fcfs"          # optional; names the default output directory
//! policies = ["easy", "fcfs", "conservative"]
//! loads = [0.6, 0.8]             # optional: rescale every workload's arrivals to each load
//! seeds = [1, 2]                 # generators only (a trace is one fixed workload)
//! out = "results"                # optional, relative to this file [default: NAME next to it]
//!
//! [[trace]]
//! path = "data/SDSC-SP2-sample-4961.swf.gz"   # relative to this file
//! capacity = 128                               # optional [default: the trace's]
//!
//! [[generator]]
//! model = "lublin"
//! jobs = 5000
//! capacity = 256
//! stream = "typeless"            # optional, as `cosched generate lublin --stream`
//! loads = [0.7]                  # optional: this workload's own loads
//! ```
//!
//! Loads rescale inter-arrival times by one factor (`cosched_workload::load`), keeping sizes,
//! run times and estimates. Each (workload, load, seed) is one *instance*; every policy runs
//! on every instance. `--slurm` writes `OUT/slurm/experiment.sbatch`, an array of one task
//! per instance, each running `cosched experiment FILE --task I` into `OUT/tasks/`, submits it
//! with `sbatch --wait` (as `cargo xtask reproduce --slurm` does) and collects the tasks'
//! results into the same summary and plots as a local run (`--collect` does only that).

use crate::batch_run::{PolicyChoice, Sweep, distinct};
use crate::generate::{LublinSource, Stream};
use crate::input::{self, InputError, Workload};
use crate::output::{self, OutputError};
use crate::plots::{self, Axes, Line, PlotError};
use crate::simulate::{self, SimulateError};
use crate::summary::{self, Row};
use clap::{Args, ValueEnum};
use cosched_core::{ParamError, RigidJob};
use cosched_slurm::{Slurm, SlurmError};
use cosched_workload::scale_to_offered_load;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// The file format, shown by `cosched experiment --help`.
pub const FORMAT: &str = "\
Experiment file (TOML); paths are relative to the file:

  name = \"easy-vs-fcfs\"            # optional: names the default output directory
  policies = [\"easy\", \"fcfs\", \"sjf+easy\", \"wfp3+bounded(depth=50,window=1h)@exact\"]
  loads = [0.6, 0.8]               # optional: rescale every workload's arrivals to each load

  [[sweep]]                        # optional: every order x backfill x estimates
  orders = [\"sjf\", \"f1\"]          # [default: fcfs]
  backfill = [\"easy\", \"bounded(depth=50)\", \"bounded(depth=500)\"]   # [default: easy]
  estimates = [\"requests\", \"exact\"]  # [default: requests]
  seeds = [1, 2]                   # generators only (default [1])
  out = \"results\"                  # optional [default: NAME next to the file]

  [[trace]]                        # SWF (plain or gzip) or Batsim JSON
  path = \"data/SDSC-SP2-sample-4961.swf.gz\"
  capacity = 128                   # optional [default: the trace's]
  loads = [0.7]                    # optional: this workload's own loads

  [[generator]]                    # as `cosched generate lublin`
  model = \"lublin\"
  jobs = 5000
  capacity = 256
  stream = \"typeless\"              # optional: typeless, batch, interactive, mixed
  max_estimate_hours = 36          # optional
  name = \"lublin_256\"              # optional

Writes OUT/summary.csv (workload,capacity,load,seed,policy,jobs,mean_wait_s,...) and
OUT/plots/ (each figure against load, one line per policy, mean over seeds).";

/// Arguments of `cosched experiment`.
#[derive(Args)]
pub struct ExperimentArgs {
    /// The experiment file (TOML; its format is below).
    file: PathBuf,
    /// Output directory [default: the file's `out`, else NAME next to the file].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run as a Slurm job array (one task per workload × load × seed), wait for it, then
    /// collect the results.
    #[arg(long)]
    slurm: bool,
    /// With --slurm: write the sbatch script and stop (submit it by hand, then --collect).
    #[arg(long, requires = "slurm")]
    no_submit: bool,
    /// With --slurm: the partition [default: the cluster's default].
    #[arg(long, requires = "slurm", value_name = "NAME")]
    partition: Option<String>,
    /// With --slurm: the cluster's slurm.conf [default: the system's; SLURM_CONF is honoured].
    #[arg(long, requires = "slurm", value_name = "FILE")]
    slurm_conf: Option<PathBuf>,
    /// Run instance I only, into OUT/tasks/task-I.json (what each array task runs).
    #[arg(long, value_name = "I", conflicts_with_all = ["slurm", "collect"])]
    task: Option<usize>,
    /// Merge OUT/tasks/*.json of a Slurm run into the summary, table and plots.
    #[arg(long, conflicts_with = "slurm")]
    collect: bool,
}

/// What can go wrong in `cosched experiment`.
#[derive(Debug, Error)]
pub enum ExperimentError {
    /// The file could not be read or is not a valid experiment.
    #[error("{path}: {message}")]
    Spec {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A workload could not be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A generator or load is out of range.
    #[error("{instance}: {source}")]
    Param {
        /// The instance.
        instance: String,
        /// Why.
        source: ParamError,
    },
    /// A simulation failed.
    #[error(transparent)]
    Simulate(#[from] SimulateError),
    /// An output could not be written.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A plot could not be drawn.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// Slurm refused or failed.
    #[error("slurm: {0}")]
    Slurm(#[from] SlurmError),
    /// A Slurm run's results are incomplete.
    #[error("{0}")]
    Collect(String),
}

/// The most jobs a generator may ask for (memory follows it).
const MAX_GENERATED_JOBS: u64 = 50_000_000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    name: Option<String>,
    out: Option<PathBuf>,
    #[serde(default)]
    policies: Vec<String>,
    #[serde(default, rename = "sweep")]
    sweeps: Vec<Sweep>,
    #[serde(default)]
    loads: Vec<f64>,
    #[serde(default)]
    seeds: Vec<u64>,
    #[serde(default, rename = "trace")]
    traces: Vec<TraceSpec>,
    #[serde(default, rename = "generator")]
    generators: Vec<GeneratorSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TraceSpec {
    path: PathBuf,
    capacity: Option<u32>,
    loads: Option<Vec<f64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GeneratorSpec {
    model: String,
    jobs: u64,
    capacity: u32,
    name: Option<String>,
    stream: Option<String>,
    max_estimate_hours: Option<i64>,
    loads: Option<Vec<f64>>,
}

/// A workload of the experiment.
enum Source {
    Trace {
        workload: Arc<Workload>,
        capacity: u32,
    },
    Lublin {
        name: String,
        jobs: u64,
        capacity: u32,
        stream: Stream,
        max_estimate_hours: i64,
    },
}

impl Source {
    fn name(&self) -> &str {
        match self {
            Source::Trace { workload, .. } => &workload.name,
            Source::Lublin { name, .. } => name,
        }
    }

    fn capacity(&self) -> u32 {
        match self {
            Source::Trace { capacity, .. } | Source::Lublin { capacity, .. } => *capacity,
        }
    }
}

/// One (workload, load, seed).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
struct Instance {
    source: usize,
    workload: String,
    capacity: u32,
    load: Option<f64>,
    seed: Option<u64>,
}

impl Instance {
    fn label(&self) -> String {
        let mut s = self.workload.clone();
        if let Some(l) = self.load {
            let _ = write!(s, " load {l}");
        }
        if let Some(seed) = self.seed {
            let _ = write!(s, " seed {seed}");
        }
        s
    }
}

/// One policy's figures on one instance.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Result1 {
    instance: Instance,
    row: RowJson,
}

/// [`Row`] as stored between a Slurm task and the collection.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct RowJson(Vec<String>);

/// The parsed experiment.
struct Experiment {
    name: String,
    file: PathBuf,
    out: PathBuf,
    policies: Vec<PolicyChoice>,
    sources: Vec<Source>,
    instances: Vec<Instance>,
}

fn spec_error(path: &Path, message: impl ToString) -> ExperimentError {
    ExperimentError::Spec {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

fn check_loads(path: &Path, loads: &[f64]) -> Result<(), ExperimentError> {
    match loads.iter().find(|l| !(l.is_finite() && **l > 0.0)) {
        Some(l) => Err(spec_error(path, format!("load {l} must be finite and > 0"))),
        None => Ok(()),
    }
}

impl Experiment {
    fn load(args: &ExperimentArgs) -> Result<Experiment, ExperimentError> {
        let path = &args.file;
        let text = std::fs::read_to_string(path).map_err(|e| spec_error(path, e))?;
        let spec: Spec = toml::from_str(&text).map_err(|e| spec_error(path, e))?;
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let policies = spec
            .policies
            .iter()
            .map(|p| PolicyChoice::parse(p))
            .collect::<Result<Vec<_>, _>>()
            .and_then(|mut named| {
                for sweep in &spec.sweeps {
                    named.extend(sweep.policies()?);
                }
                Ok(named)
            })
            .and_then(|p| distinct(&p))
            .map_err(|e| spec_error(path, format!("policies: {e}")))?;
        check_loads(path, &spec.loads)?;
        if spec.traces.is_empty() && spec.generators.is_empty() {
            return Err(spec_error(path, "no [[trace]] and no [[generator]]"));
        }
        let name = spec.name.clone().unwrap_or_else(|| {
            path.file_stem()
                .map_or_else(|| "experiment".into(), |s| s.to_string_lossy().into_owned())
        });
        let out = match (&args.out, &spec.out) {
            (Some(o), _) => o.clone(),
            (None, Some(o)) => dir.join(o),
            (None, None) => dir.join(&name),
        };
        let seeds = if spec.seeds.is_empty() {
            vec![1]
        } else {
            spec.seeds.clone()
        };
        // Read the traces in parallel.
        let workloads: Vec<Result<Workload, InputError>> = spec
            .traces
            .par_iter()
            .map(|t| input::read(&dir.join(&t.path)))
            .collect();
        let mut sources = Vec::new();
        let mut instances = Vec::new();
        let mut add = |source: Source, loads: &[f64], seeds: &[Option<u64>]| {
            let index = sources.len();
            let loads: Vec<Option<f64>> = if loads.is_empty() {
                vec![None]
            } else {
                loads.iter().copied().map(Some).collect()
            };
            for &load in &loads {
                for &seed in seeds {
                    instances.push(Instance {
                        source: index,
                        workload: source.name().to_string(),
                        capacity: source.capacity(),
                        load,
                        seed,
                    });
                }
            }
            sources.push(source);
        };
        for (t, workload) in spec.traces.iter().zip(workloads) {
            let workload = workload?;
            let (capacity, _) = simulate::capacity_of(t.capacity, &workload)?;
            let loads = t.loads.as_deref().unwrap_or(&spec.loads);
            check_loads(path, loads)?;
            add(
                Source::Trace {
                    workload: Arc::new(workload),
                    capacity,
                },
                loads,
                &[None],
            );
        }
        for g in &spec.generators {
            if g.model != "lublin" {
                return Err(spec_error(
                    path,
                    format!("generator model `{}` is unknown (expected lublin)", g.model),
                ));
            }
            if g.jobs == 0 || g.jobs > MAX_GENERATED_JOBS {
                return Err(spec_error(
                    path,
                    format!(
                        "generator jobs = {} (expected 1..={MAX_GENERATED_JOBS})",
                        g.jobs
                    ),
                ));
            }
            let stream = match &g.stream {
                Some(s) => Stream::from_str(s, true).map_err(|e| spec_error(path, e))?,
                None => Stream::Typeless,
            };
            let loads = g.loads.as_deref().unwrap_or(&spec.loads);
            check_loads(path, loads)?;
            let seeds: Vec<Option<u64>> = seeds.iter().copied().map(Some).collect();
            add(
                Source::Lublin {
                    name: g
                        .name
                        .clone()
                        .unwrap_or_else(|| format!("lublin_{}_{}", g.capacity, g.jobs)),
                    jobs: g.jobs,
                    capacity: g.capacity,
                    stream,
                    max_estimate_hours: g.max_estimate_hours.unwrap_or(36),
                },
                loads,
                &seeds,
            );
        }
        Ok(Experiment {
            name,
            file: path.clone(),
            out,
            policies,
            sources,
            instances,
        })
    }

    /// The jobs of `instance`.
    fn jobs(&self, instance: &Instance) -> Result<(Arc<Workload>, Vec<RigidJob>), ExperimentError> {
        let param = |source| ExperimentError::Param {
            instance: instance.label(),
            source,
        };
        match &self.sources[instance.source] {
            Source::Trace { workload, capacity } => {
                let mut jobs = workload.jobs.clone();
                if let Some(load) = instance.load {
                    scale_to_offered_load(&mut jobs, *capacity, load).map_err(param)?;
                }
                Ok((Arc::clone(workload), jobs))
            }
            Source::Lublin {
                name,
                jobs,
                capacity,
                stream,
                max_estimate_hours,
            } => {
                let seed = instance.seed.unwrap_or(1);
                let source =
                    LublinSource::new(*capacity, *stream, *max_estimate_hours, *jobs, seed)
                        .map_err(param)?;
                let mut out = Vec::with_capacity(usize::try_from(*jobs).unwrap_or(0));
                source
                    .for_each::<ParamError>(&mut |j| {
                        out.push(*j);
                        Ok(())
                    })
                    .map_err(param)?;
                if let Some(load) = instance.load {
                    scale_to_offered_load(&mut out, *capacity, load).map_err(param)?;
                }
                let workload = Workload {
                    path: PathBuf::from(format!("generated:{name}")),
                    name: name.clone(),
                    format: "generated",
                    sha256: String::new(),
                    jobs: Vec::new(),
                    profiles: None,
                    invalid: Vec::new(),
                    stated_capacity: Some((u64::from(*capacity), "generator")),
                    late_keys: Vec::new(),
                };
                Ok((Arc::new(workload), out))
            }
        }
    }

    /// Runs every policy on `instance`.
    fn run_instance(
        &self,
        instance: &Instance,
        done: &ProgressBar,
    ) -> Result<Vec<Result1>, ExperimentError> {
        let (workload, jobs) = self.jobs(instance)?;
        let invalid = workload.invalid.len();
        self.policies
            .par_iter()
            .map(|policy| {
                let outcome = policy
                    .simulate(instance.capacity, &jobs, invalid, |_, _| {})
                    .map_err(|source| SimulateError::Simulation {
                        path: workload.path.clone(),
                        policy: policy.name().to_string(),
                        source,
                    })?;
                done.inc(1);
                let row = Row::new(
                    policy.name(),
                    &outcome.report,
                    &outcome.records,
                    (outcome.stats.max_queue_len, outcome.stats.mean_queue_len),
                );
                Ok(Result1 {
                    instance: instance.clone(),
                    row: RowJson(row.csv_fields()),
                })
            })
            .collect()
    }
}

/// Runs the command.
pub fn run(args: &ExperimentArgs) -> Result<(), ExperimentError> {
    let exp = Experiment::load(args)?;
    output::create_dir(&exp.out)?;
    if let Some(i) = args.task {
        let instance = exp.instances.get(i).ok_or_else(|| {
            ExperimentError::Collect(format!(
                "task {i} does not exist ({} instances)",
                exp.instances.len()
            ))
        })?;
        let results = exp.run_instance(instance, &ProgressBar::hidden())?;
        let dir = exp.out.join("tasks");
        output::create_dir(&dir)?;
        let path = dir.join(format!("task-{i}.json"));
        let text = serde_json::to_string(&results).map_err(|e| OutputError::new(&path, e))?;
        return Ok(simulate::write_all(
            &path,
            output::create_file(&path)?,
            text.as_bytes(),
        )?);
    }
    if args.slurm {
        let script = write_sbatch(&exp, args)?;
        if args.no_submit {
            return print(&format!(
                "sbatch array script written to {} ({} tasks); submit it, then run `cosched experiment {} --collect`\n",
                script.display(),
                exp.instances.len(),
                exp.file.display()
            ));
        }
        let slurm = args
            .slurm_conf
            .as_ref()
            .map_or_else(Slurm::system, Slurm::with_config);
        eprintln!("submitting {} (sbatch --wait)", script.display());
        slurm.submit([std::ffi::OsStr::new("--wait"), script.as_os_str()])?;
    }
    let results = if args.slurm || args.collect {
        collect(&exp)?
    } else {
        let total = (exp.instances.len() * exp.policies.len()) as u64;
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:30}] {pos}/{len} runs {per_sec} ETA {eta} ({elapsed})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(exp.name.clone());
        let results: Vec<Vec<Result1>> = exp
            .instances
            .par_iter()
            .map(|i| exp.run_instance(i, &bar))
            .collect::<Result<_, _>>()?;
        bar.finish_and_clear();
        results.into_iter().flatten().collect()
    };
    report(&exp, &results)
}

fn print(text: &str) -> Result<(), ExperimentError> {
    output::stdout(text).map_err(|e| OutputError::new(Path::new("<stdout>"), e).into())
}

/// Reads the tasks' results of a Slurm run.
fn collect(exp: &Experiment) -> Result<Vec<Result1>, ExperimentError> {
    let dir = exp.out.join("tasks");
    let mut all = Vec::new();
    let mut missing = Vec::new();
    for i in 0..exp.instances.len() {
        let path = dir.join(format!("task-{i}.json"));
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let results: Vec<Result1> = serde_json::from_str(&text)
                    .map_err(|e| ExperimentError::Collect(format!("{}: {e}", path.display())))?;
                if results.iter().any(|r| r.instance != exp.instances[i]) {
                    return Err(ExperimentError::Collect(format!(
                        "{} is from another version of {} (its instance differs)",
                        path.display(),
                        exp.file.display()
                    )));
                }
                all.extend(results);
            }
            Err(_) => missing.push(i.to_string()),
        }
    }
    if !missing.is_empty() {
        return Err(ExperimentError::Collect(format!(
            "{} of {} tasks have no results in {} (tasks {})",
            missing.len(),
            exp.instances.len(),
            dir.display(),
            missing.join(",")
        )));
    }
    Ok(all)
}

/// The sbatch array script: one task per instance, each `cosched experiment FILE --task I`.
fn write_sbatch(exp: &Experiment, args: &ExperimentArgs) -> Result<PathBuf, ExperimentError> {
    let dir = exp.out.join("slurm");
    output::create_dir(&dir)?;
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("cosched"));
    let (file, out) = (abs(&exp.file), abs(&exp.out));
    let mut s = String::from(
        "#!/bin/bash\n# Written by `cosched experiment --slurm`: one task per workload x load x seed.\n",
    );
    let _ = writeln!(s, "#SBATCH --job-name=cosched-{}", exp.name);
    let _ = writeln!(
        s,
        "#SBATCH --array=0-{}",
        exp.instances.len().saturating_sub(1)
    );
    let _ = writeln!(s, "#SBATCH --nodes=1");
    let _ = writeln!(s, "#SBATCH --output={}/slurm/task-%a.out", out.display());
    if let Some(p) = &args.partition {
        let _ = writeln!(s, "#SBATCH --partition={p}");
    }
    s.push_str("set -euo pipefail\n");
    let _ = writeln!(
        s,
        "'{}' experiment '{}' --out '{}' --task \"$SLURM_ARRAY_TASK_ID\"",
        exe.display(),
        file.display(),
        out.display()
    );
    let path = dir.join("experiment.sbatch");
    simulate::write_all(&path, output::create_file(&path)?, s.as_bytes())?;
    Ok(path)
}

/// Writes the summary CSV and plots and prints the table.
fn report(exp: &Experiment, results: &[Result1]) -> Result<(), ExperimentError> {
    let path = exp.out.join("summary.csv");
    let mut w = csv::Writer::from_writer(Vec::new());
    let header = ["workload", "capacity", "load", "seed"]
        .into_iter()
        .chain(summary::COLUMNS);
    w.write_record(header)
        .map_err(|e| OutputError::new(&path, e))?;
    let opt = |v: Option<String>| v.unwrap_or_default();
    for r in results {
        let i = &r.instance;
        let prefix = [
            i.workload.clone(),
            i.capacity.to_string(),
            opt(i.load.map(|l| l.to_string())),
            opt(i.seed.map(|s| s.to_string())),
        ];
        w.write_record(prefix.iter().chain(&r.row.0))
            .map_err(|e| OutputError::new(&path, e))?;
    }
    let bytes = w.into_inner().map_err(|e| OutputError::new(&path, e))?;
    simulate::write_all(&path, output::create_file(&path)?, &bytes)?;

    // The table: rows from the stored fields (parsed back, so a Slurm run prints the same).
    let field = |r: &Result1, name: &str| -> f64 {
        summary::COLUMNS
            .iter()
            .position(|c| *c == name)
            .and_then(|k| r.row.0.get(k))
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN)
    };
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{:<40} {:<13} {:>8} {:>11} {:>11} {:>9} {:>7}",
        "workload", "policy", "jobs", "mean wait s", "p95 wait s", "mean bsld", "util"
    );
    for r in results {
        let _ = writeln!(
            text,
            "{:<40} {:<13} {:>8} {:>11.0} {:>11.0} {:>9.2} {:>7.4}",
            r.instance.label(),
            r.row.0.first().map_or("", String::as_str),
            field(r, "jobs"),
            field(r, "mean_wait_s"),
            field(r, "p95_wait_s"),
            field(r, "mean_bounded_slowdown"),
            field(r, "utilization"),
        );
    }

    // Plots: per workload with several loads, each figure against load, one line per policy
    // (the mean over seeds).
    let plots = exp.out.join("plots");
    let mut drawn = 0;
    for source in &exp.sources {
        let of: Vec<&Result1> = results
            .iter()
            .filter(|r| r.instance.workload == source.name())
            .collect();
        let loads: Vec<f64> = {
            let mut l: Vec<f64> = of.iter().filter_map(|r| r.instance.load).collect();
            l.sort_by(f64::total_cmp);
            l.dedup();
            l
        };
        if loads.len() < 2 {
            continue;
        }
        output::create_dir(&plots)?;
        for (metric, label, file) in [
            ("mean_wait_s", "mean wait (s)", "wait"),
            ("mean_bounded_slowdown", "mean bounded slowdown", "bsld"),
            ("utilization", "utilisation", "utilization"),
        ] {
            let lines: Vec<Line> = exp
                .policies
                .iter()
                .map(|p| {
                    let mut by_load: BTreeMap<u64, (f64, usize)> = BTreeMap::new();
                    for r in of
                        .iter()
                        .filter(|r| r.row.0.first().map(String::as_str) == Some(p.name()))
                    {
                        if let Some(l) = r.instance.load {
                            let e = by_load.entry(l.to_bits()).or_insert((0.0, 0));
                            e.0 += field(r, metric);
                            e.1 += 1;
                        }
                    }
                    let mut points: Vec<(f64, f64)> = by_load
                        .into_iter()
                        .map(|(l, (sum, n))| (f64::from_bits(l), sum / n as f64))
                        .collect();
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Line {
                        name: p.name().to_string(),
                        points,
                    }
                })
                .collect();
            plots::draw_lines(
                &plots.join(format!("{}_{file}.svg", source.name())),
                &Axes {
                    title: &format!("{}: {label} against offered load", source.name()),
                    x: "offered load",
                    y: label,
                    log_x: false,
                },
                &lines,
            )?;
            drawn += 1;
        }
    }
    let _ = writeln!(
        text,
        "{} runs; summary in {}{}",
        results.len(),
        path.display(),
        if drawn > 0 {
            format!(", {drawn} plots in {}", plots.display())
        } else {
            String::new()
        }
    );
    print(&text)
}
