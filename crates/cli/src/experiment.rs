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
//! [[trace]]                      # here the file is at the workspace root
//! path = "examples/data/swf/SDSC-SP2-sample-4961.swf.gz"   # relative to this file
//! capacity = 128                 # optional [default: the trace's]
//! segments = 4                   # optional: 4 consecutive parts as replicates
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
//! run times and estimates. Each (workload, load, replicate) is one *instance*; every policy
//! runs on every instance, so policies are compared on the same jobs (paired).
//!
//! **Replicates.** A generator's replicates are its seeds: independent workloads of one model.
//! A trace is one fixed workload, so seeds do not vary it (the run says so); its replicates are
//! `segments = K` consecutive parts of equal job count, each rescaled to the load on its own
//! span and simulated from an empty machine: independent samples of the trace's behaviour
//! (each starts without the queue the part before left, the same for every policy). A cell
//! (workload, capacity, load, policy) reports the mean over its `n` replicates and the
//! half-width of its 95 % Student-t interval (`cosched_core::stats::Spread`); with `n = 1`
//! there is no interval. `--slurm` writes `OUT/slurm/experiment.sbatch`, an array of one task
//! per instance, each running `cosched experiment FILE --task I` into `OUT/tasks/`, submits it
//! with `sbatch --wait` (as `cargo xtask reproduce --slurm` does) and collects the tasks'
//! results into the same summary and plots as a local run (`--collect` does only that). A
//! local run writes the same task files as its instances finish; `--resume` keeps those that
//! match the file's instances and policies and runs only the rest.

use crate::batch_run::{PolicyChoice, Sweep, distinct};
use crate::generate::{LublinSource, Stream};
use crate::input::{self, InputError, Workload};
use crate::jobs_csv::{self, WorkloadInfo};
use crate::output::{self, Clash, OutputError, Outputs, Plan};
use crate::plots::{self, PlotError};
use crate::simulate::{self, SimulateError};
use crate::summary::{self, Row};
use clap::{Args, ValueEnum};
use cosched_core::stats::Spread;
use cosched_core::{ParamError, RigidJob, excerpt, shown};
use cosched_plot::LinePlot;
use cosched_slurm::{Slurm, SlurmError};
use cosched_workload::output::Staged;
use cosched_workload::output::same_file;
use cosched_workload::scale_to_offered_load;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// The examples of `cosched experiment -h` and `--help`.
macro_rules! examples {
    () => {
        "\
Examples:
  cosched experiment crates/cli/experiments/easy_fcfs_conservative.toml
  cosched experiment crates/cli/experiments/lublin_seeds.toml --out results --jobs-csv
  cosched experiment my.toml --resume          # after an interruption: only the missing runs
  cosched experiment my.toml --slurm           # one Slurm array task per instance"
    };
}

/// `cosched experiment -h`'s closing part.
pub const AFTER_HELP: &str = concat!(
    examples!(),
    "\n\n`cosched experiment --help` also describes the file format."
);

/// `cosched experiment --help`'s closing part: the examples and the file format.
pub const FORMAT: &str = concat!(
    examples!(),
    "\n\n",
    "\
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
  path = \"examples/data/swf/SDSC-SP2-sample-4961.swf.gz\"   # from a file at the workspace root
  capacity = 128                   # optional [default: the trace's]
  loads = [0.7]                    # optional: this workload's own loads
  segments = 4                     # optional: K consecutive parts of the trace as replicates

  [[generator]]                    # as `cosched generate lublin`
  model = \"lublin\"
  jobs = 5000
  capacity = 256
  stream = \"typeless\"              # optional: typeless, batch, interactive, mixed
  max_estimate_hours = 36          # optional
  name = \"lublin_256\"              # optional

Replicates: a generator's seeds; a trace's segments (seeds do not vary a trace). Each cell
(workload, capacity, load, policy) reports the mean over its n replicates and the half-width of
the 95 % Student-t interval of the mean (empty for n = 1).

Writes OUT/summary.csv, one row per cell (workload,capacity,load,policy,n,replicates, then each
figure and its _ci95: jobs,jobs_ci95,mean_wait_s,mean_wait_s_ci95,..., then the paired
difference from the first policy on the same replicates: reference,mean_wait_s_diff,
mean_wait_s_diff_ci95,mean_bounded_slowdown_diff,mean_bounded_slowdown_diff_ci95), OUT/runs.csv, one row
per run (workload,capacity,load,seed,segment,policy,jobs,mean_wait_s,...), OUT/tasks/ (each
instance's results, what --resume reuses) and OUT/plots/ (each figure against load, one line
per policy, mean and 95 % interval; SVG and PNG). A workload is named by its file stem, or by
its path when two share a stem; a run listed twice (a load or seed repeated, one file twice at
one capacity) is refused."
);

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
    /// Keep the results already in OUT/tasks/ that match this file's instances and policies
    /// (an interrupted run's), and run only the rest.
    #[arg(long, conflicts_with_all = ["slurm", "collect", "task"])]
    resume: bool,
    /// Also write each run's per-job table (Batsim's `_jobs.csv` columns) into OUT/jobs/.
    #[arg(long)]
    jobs_csv: bool,
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
    /// A per-job table could not be written.
    #[error("{path}: {source}")]
    JobsCsv {
        /// The file.
        path: PathBuf,
        /// Why.
        source: crate::jobs_csv::JobsCsvError,
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
    /// An output would destroy an input or another output.
    #[error(transparent)]
    Clash(#[from] Clash),
    /// A value cannot go into the Slurm script.
    #[error("{0}")]
    Script(String),
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
    segments: Option<usize>,
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
        /// How the summary names it: the file's stem, or the path as written when two
        /// workloads would share a stem.
        label: String,
        workload: Arc<Workload>,
        capacity: u32,
        /// Replicates: this many consecutive parts of the trace (1: the whole trace).
        segments: usize,
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
            Source::Trace { label, .. } => label,
            Source::Lublin { name, .. } => name,
        }
    }

    fn capacity(&self) -> u32 {
        match self {
            Source::Trace { capacity, .. } | Source::Lublin { capacity, .. } => *capacity,
        }
    }
}

/// A replicate: a generator's seed, or a trace's segment `k` of `n`.
type Replicate = (Option<u64>, Option<(usize, usize)>);

/// One (workload, load, replicate): a seed of a generator or a segment of a trace.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
struct Instance {
    source: usize,
    workload: String,
    /// What the jobs come from: the trace's SHA-256, or the generator's parameters (so that
    /// results of another input are never reused).
    input: String,
    capacity: u32,
    load: Option<f64>,
    seed: Option<u64>,
    /// Segment `k` of `n` of a trace, from 1.
    segment: Option<(usize, usize)>,
}

impl Instance {
    fn label(&self) -> String {
        let mut s = self.workload.clone();
        if let Some(l) = self.load {
            let _ = write!(s, " load {}", shown(&l.to_string()));
        }
        if let Some(seed) = self.seed {
            let _ = write!(s, " seed {seed}");
        }
        if let Some((k, n)) = self.segment {
            let _ = write!(s, " segment {k}/{n}");
        }
        s
    }

    /// The label as a file name part: `lublin_256_load0.8_seed1`.
    fn slug(&self) -> String {
        let mut s = self.workload.clone();
        if let Some(l) = self.load {
            let _ = write!(s, "_load{l}");
        }
        if let Some(seed) = self.seed {
            let _ = write!(s, "_seed{seed}");
        }
        if let Some((k, _)) = self.segment {
            let _ = write!(s, "_segment{k}");
        }
        file_stem(&s)
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

impl Result1 {
    /// The policy's name.
    fn policy(&self) -> &str {
        self.row.0.first().map_or("", String::as_str)
    }

    /// The figure of column `name` of [`summary::COLUMNS`] (NaN if absent).
    fn field(&self, name: &str) -> f64 {
        summary::COLUMNS
            .iter()
            .position(|c| *c == name)
            .and_then(|k| self.row.0.get(k))
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN)
    }
}

/// The parsed experiment.
struct Experiment {
    name: String,
    file: PathBuf,
    out: PathBuf,
    policies: Vec<PolicyChoice>,
    sources: Vec<Source>,
    instances: Vec<Instance>,
    /// What the file's runs will not show: seeds that do not vary a trace, capacities below a
    /// trace's machine, missing estimates.
    warnings: Vec<String>,
}

fn spec_error(path: &Path, message: impl ToString) -> ExperimentError {
    ExperimentError::Spec {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

fn check_loads(path: &Path, loads: &[f64]) -> Result<(), ExperimentError> {
    if let Some(l) = loads.iter().find(|l| !(l.is_finite() && **l > 0.0)) {
        return Err(spec_error(
            path,
            format!("load {} must be finite and > 0", shown(&l.to_string())),
        ));
    }
    match loads
        .iter()
        .enumerate()
        .find(|&(i, l)| loads[..i].iter().any(|m| m.to_bits() == l.to_bits()))
    {
        Some((_, l)) => Err(spec_error(
            path,
            format!("load {l} is listed more than once (each run would be too)"),
        )),
        None => Ok(()),
    }
}

/// A TOML error as one bounded line: where, and the parser's message cut to an excerpt (the
/// parser's own rendering quotes the whole offending line, which may be megabytes).
fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> ExperimentError {
    let place = e.span().map_or_else(String::new, |span| {
        let before = text.get(..span.start).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!("line {line}, column {column}: ")
    });
    let message = e.message().lines().next().unwrap_or_default();
    spec_error(path, format!("{place}{}", excerpt(message)))
}

/// `label` as a file name: path separators and other characters a file name should not hold
/// become `_`.
fn file_stem(label: &str) -> String {
    output::file_name(label, "-_.")
}

/// The summary, the per-run table, the plots', tasks' and per-job tables' directories and the
/// Slurm script, inside OUT.
const SUMMARY: &str = "summary.csv";
const RUNS: &str = "runs.csv";
const PLOTS: &str = "plots";
const TASKS: &str = "tasks";
const JOBS: &str = "jobs";
const SCRIPT: &str = "slurm/experiment.sbatch";

/// The figures plotted against load: (summary column, axis label, file suffix).
const PLOT_METRICS: [(&str, &str, &str); 3] = [
    ("mean_wait_s", "mean wait (s)", "wait"),
    ("mean_bounded_slowdown", "mean bounded slowdown", "bsld"),
    ("utilization", "utilisation", "utilization"),
];

/// How the summary names each trace: its stem, unless another workload has that stem or
/// name, then the path as the file writes it (`d1/same.swf`, `d2/same.swf`).
fn trace_labels(path: &Path, spec: &Spec, workloads: &[Workload]) -> Vec<String> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let generated: Vec<String> = spec.generators.iter().map(GeneratorSpec::label).collect();
    workloads
        .iter()
        .zip(&spec.traces)
        .map(|(w, t)| {
            let shared = workloads
                .iter()
                .filter(|o| o.name == w.name)
                .nth(1)
                .is_some()
                || generated.contains(&w.name);
            if shared {
                let written = t.path.strip_prefix(dir).unwrap_or(&t.path);
                written.display().to_string()
            } else {
                w.name.clone()
            }
        })
        .collect()
}

impl GeneratorSpec {
    /// Its name in the summary: `name`, else `lublin_CAPACITY_JOBS`.
    fn label(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("lublin_{}_{}", self.capacity, self.jobs))
    }
}

impl Experiment {
    fn load(args: &ExperimentArgs) -> Result<Experiment, ExperimentError> {
        let path = &args.file;
        let text = std::fs::read_to_string(path).map_err(|e| spec_error(path, e))?;
        let spec: Spec = toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))?;
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
        if let Some((_, seed)) = seeds
            .iter()
            .enumerate()
            .find(|&(i, s)| seeds[..i].contains(s))
        {
            return Err(spec_error(
                path,
                format!("seed {seed} is listed more than once (each run would be too)"),
            ));
        }
        // Read the traces in parallel.
        let workloads: Vec<Result<Workload, InputError>> = spec
            .traces
            .par_iter()
            .map(|t| input::read(&dir.join(&t.path)))
            .collect();
        let mut sources = Vec::new();
        let mut instances = Vec::new();
        let mut warnings = Vec::new();
        // Every instance of `source`: each load × each replicate (seeds or segments).
        let mut add = |source: Source, input: String, loads: &[f64], replicates: &[Replicate]| {
            let index = sources.len();
            let loads: Vec<Option<f64>> = if loads.is_empty() {
                vec![None]
            } else {
                loads.iter().copied().map(Some).collect()
            };
            for &load in &loads {
                for &(seed, segment) in replicates {
                    instances.push(Instance {
                        source: index,
                        workload: source.name().to_string(),
                        input: input.clone(),
                        capacity: source.capacity(),
                        load,
                        seed,
                        segment,
                    });
                }
            }
            sources.push(source);
        };
        let workloads = workloads.into_iter().collect::<Result<Vec<_>, _>>()?;
        let labels = trace_labels(path, &spec, &workloads);
        let mut seen: Vec<(&Path, PathBuf, u32)> = Vec::new();
        for ((t, workload), label) in spec.traces.iter().zip(workloads).zip(labels) {
            let (capacity, _) = simulate::capacity_of(t.capacity, &workload)?;
            if let Some((first, ..)) = seen
                .iter()
                .find(|(_, p, c)| *c == capacity && same_file(p, &workload.path))
            {
                return Err(spec_error(
                    path,
                    format!(
                        "trace {} is {} listed more than once at capacity {capacity} (each run would be too)",
                        t.path.display(),
                        first.display()
                    ),
                ));
            }
            seen.push((&t.path, workload.path.clone(), capacity));
            let loads = t.loads.as_deref().unwrap_or(&spec.loads);
            check_loads(path, loads)?;
            let segments = t.segments.unwrap_or(1);
            if segments == 0 || segments > workload.jobs.len().max(1) {
                return Err(spec_error(
                    path,
                    format!(
                        "{}: segments = {segments} (expected 1..={} for its {} jobs)",
                        t.path.display(),
                        workload.jobs.len().max(1),
                        workload.jobs.len()
                    ),
                ));
            }
            if spec.seeds.len() > 1 && segments == 1 {
                warnings.push(format!(
                    "seeds = {:?} do not vary the trace {} (one fixed workload): it runs once \
                     per load, without an interval; `segments = K` in its [[trace]] gives K \
                     replicates (consecutive parts of the trace)",
                    spec.seeds,
                    t.path.display()
                ));
            }
            warnings.extend(
                simulate::warnings(&workload, capacity)
                    .into_iter()
                    .map(|w| format!("{}: {w}", t.path.display())),
            );
            let replicates: Vec<Replicate> = if segments == 1 {
                vec![(None, None)]
            } else {
                (1..=segments)
                    .map(|k| (None, Some((k, segments))))
                    .collect()
            };
            let input = format!("sha256:{}", workload.sha256);
            add(
                Source::Trace {
                    label,
                    workload: Arc::new(workload),
                    capacity,
                    segments,
                },
                input,
                loads,
                &replicates,
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
            let replicates: Vec<Replicate> = seeds.iter().map(|&seed| (Some(seed), None)).collect();
            let max_estimate_hours = g.max_estimate_hours.unwrap_or(36);
            let input = format!(
                "lublin jobs={} capacity={} stream={stream:?} max_estimate_hours={max_estimate_hours}",
                g.jobs, g.capacity
            );
            add(
                Source::Lublin {
                    name: g.label(),
                    jobs: g.jobs,
                    capacity: g.capacity,
                    stream,
                    max_estimate_hours,
                },
                input,
                loads,
                &replicates,
            );
        }
        for (i, s) in sources.iter().enumerate() {
            if let Some(twin) = sources[..i].iter().find(|o| o.name() == s.name()) {
                let what = match twin {
                    Source::Trace { .. } => "a trace",
                    Source::Lublin { .. } => "a generator",
                };
                return Err(spec_error(
                    path,
                    format!(
                        "two workloads are named `{}` ({what} and another): give each [[generator]] its own `name`",
                        s.name()
                    ),
                ));
            }
        }
        Ok(Experiment {
            name,
            file: path.clone(),
            out,
            policies,
            sources,
            instances,
            warnings,
        })
    }

    /// Every file a run may write (each with what names it), for the [`Plan`]: the summary,
    /// the per-run table, the plots, the Slurm script, the tasks' results and (with
    /// `jobs_csv`) the per-job tables.
    fn plan(&self, jobs_csv: bool) -> Plan {
        let mut plan = Plan::default();
        plan.input("the experiment file", &self.file);
        for s in &self.sources {
            if let Source::Trace {
                label, workload, ..
            } = s
            {
                plan.input(format!("trace `{label}`"), &workload.path);
            }
        }
        plan.output("the summary", self.out.join(SUMMARY));
        plan.output("the per-run table", self.out.join(RUNS));
        let plots = self.out.join(PLOTS);
        for (k, files) in self.plot_files() {
            for (_, stem) in files {
                for path in plots::figure_files(&plots, &stem) {
                    plan.output(format!("the plots of `{}`", self.sources[k].name()), path);
                }
            }
        }
        plan.output("the Slurm script", self.out.join(SCRIPT));
        for (i, instance) in self.instances.iter().enumerate() {
            plan.output(format!("task {i}"), self.task_file(i));
            if jobs_csv {
                for p in &self.policies {
                    plan.output("--jobs-csv", self.jobs_file(instance, p));
                }
            }
        }
        plan
    }

    /// The plots of each workload with several loads: (its source, [(metric, file stem)]).
    fn plot_files(&self) -> Vec<(usize, Vec<(&'static str, String)>)> {
        self.sources
            .iter()
            .enumerate()
            .filter(|&(k, _)| {
                let mut loads: Vec<u64> = self
                    .instances
                    .iter()
                    .filter(|i| i.source == k)
                    .filter_map(|i| i.load.map(f64::to_bits))
                    .collect();
                loads.sort_unstable();
                loads.dedup();
                loads.len() >= 2
            })
            .map(|(k, s)| {
                let stem = file_stem(s.name());
                let files = PLOT_METRICS
                    .iter()
                    .map(|&(metric, _, file)| (metric, format!("{stem}_{file}")))
                    .collect();
                (k, files)
            })
            .collect()
    }

    /// `OUT/tasks/task-I.json`.
    fn task_file(&self, i: usize) -> PathBuf {
        self.out.join(TASKS).join(format!("task-{i}.json"))
    }

    /// `OUT/jobs/INSTANCE_POLICY_jobs.csv`.
    fn jobs_file(&self, instance: &Instance, policy: &PolicyChoice) -> PathBuf {
        self.out.join(JOBS).join(format!(
            "{}_{}_jobs.csv",
            instance.slug(),
            policy.file_stem()
        ))
    }

    /// The jobs of `instance`.
    fn jobs(&self, instance: &Instance) -> Result<(Arc<Workload>, Vec<RigidJob>), ExperimentError> {
        let param = |source| ExperimentError::Param {
            instance: instance.label(),
            source,
        };
        match &self.sources[instance.source] {
            Source::Trace {
                workload,
                capacity,
                segments,
                ..
            } => {
                let mut jobs = match instance.segment {
                    Some((k, _)) => segment(&workload.jobs, *segments, k),
                    None => workload.jobs.clone(),
                };
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
                    missing_estimates: 0,
                };
                Ok((Arc::new(workload), out))
            }
        }
    }

    /// Runs on instance `i` every policy that `kept` (results of an earlier run) lacks, writes
    /// the instance's results to `OUT/tasks/task-I.json` and returns them in policy order.
    fn run_instance(
        &self,
        i: usize,
        kept: Vec<Result1>,
        jobs_csv: bool,
        done: &ProgressBar,
    ) -> Result<Vec<Result1>, ExperimentError> {
        let instance = &self.instances[i];
        let todo: Vec<PolicyChoice> = self
            .policies
            .iter()
            .filter(|p| !kept.iter().any(|r| r.policy() == p.name()))
            .cloned()
            .collect();
        let mut fresh = Vec::new();
        if !todo.is_empty() {
            let (workload, jobs) = self.jobs(instance)?;
            let invalid = workload.invalid.len();
            fresh = todo
                .par_iter()
                .map(|policy| {
                    let outcome = policy
                        .simulate(instance.capacity, &jobs, invalid, |_, _| {})
                        .map_err(|source| SimulateError::Simulation {
                            path: workload.path.clone(),
                            policy: policy.name().to_string(),
                            source,
                        })?;
                    if jobs_csv {
                        self.write_jobs_csv(instance, policy, &workload, &jobs, &outcome)?;
                    }
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
                .collect::<Result<_, ExperimentError>>()?;
        }
        let results: Vec<Result1> = self
            .policies
            .iter()
            .filter_map(|p| {
                kept.iter()
                    .chain(&fresh)
                    .find(|r| r.policy() == p.name())
                    .cloned()
            })
            .collect();
        if !fresh.is_empty() {
            self.subdir(TASKS)?;
            let path = self.task_file(i);
            let text = serde_json::to_string(&results).map_err(|e| OutputError::new(&path, e))?;
            let mut outputs = Outputs::default();
            outputs.write(&path, text.as_bytes())?;
            outputs.commit()?;
        }
        Ok(results)
    }

    /// The results of instance `i` an earlier run left in `OUT/tasks/task-I.json`, for this
    /// file's policies; none when the file is absent, unreadable (a run stopped while writing
    /// it) or from another instance.
    fn kept(&self, i: usize) -> Vec<Result1> {
        let path = self.task_file(i);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Vec::new();
        };
        let Ok(results) = serde_json::from_str::<Vec<Result1>>(&text) else {
            eprintln!(
                "note: {} is unreadable: its runs are redone",
                path.display()
            );
            return Vec::new();
        };
        results
            .into_iter()
            .filter(|r| {
                r.instance == self.instances[i]
                    && self.policies.iter().any(|p| p.name() == r.policy())
            })
            .collect()
    }

    /// `OUT/NAME`, created if absent. Instances (threads here, processes under Slurm) call
    /// this side by side, so it only creates: the run checks once beforehand that its output
    /// directories are writable ([`output::create_dir`]).
    fn subdir(&self, name: &str) -> Result<PathBuf, OutputError> {
        let dir = self.out.join(name);
        std::fs::create_dir_all(&dir).map_err(|e| OutputError::new(&dir, e))?;
        Ok(dir)
    }

    /// Writes a run's per-job table to `OUT/jobs/INSTANCE_POLICY_jobs.csv`.
    fn write_jobs_csv(
        &self,
        instance: &Instance,
        policy: &PolicyChoice,
        workload: &Workload,
        jobs: &[RigidJob],
        outcome: &cosched_batch::SimOutcome,
    ) -> Result<(), ExperimentError> {
        self.subdir(JOBS)?;
        let path = self.jobs_file(instance, policy);
        let info = WorkloadInfo {
            name: &workload.name,
            jobs,
            // A segment's jobs are a reordered part of the trace: profiles no longer align.
            profiles: workload
                .profiles
                .as_deref()
                .filter(|_| instance.segment.is_none()),
        };
        let mut file = output::create(&path)?;
        jobs_csv::write(
            std::io::BufWriter::new(&mut file),
            &info,
            &outcome.records,
            instance.capacity,
        )
        .map_err(|source| ExperimentError::JobsCsv { path, source })?;
        let mut outputs = Outputs::default();
        outputs.add(file);
        Ok(outputs.commit()?)
    }
}

/// Part `k` (from 1) of `n` consecutive parts of `jobs` in submission order, of equal job
/// count (the first parts one job longer when `n` does not divide the count).
fn segment(jobs: &[RigidJob], n: usize, k: usize) -> Vec<RigidJob> {
    let mut sorted = jobs.to_vec();
    sorted.sort_by_key(|j| (j.submit, j.id));
    let n = n.max(1);
    let k = k.clamp(1, n) - 1;
    let (q, r) = (sorted.len() / n, sorted.len() % n);
    let start = k * q + k.min(r);
    let len = q + usize::from(k < r);
    sorted[start..start + len].to_vec()
}

/// Runs the command.
pub fn run(args: &ExperimentArgs) -> Result<(), ExperimentError> {
    let exp = Experiment::load(args)?;
    exp.plan(args.jobs_csv).check()?;
    output::create_dir(&exp.out)?;
    if let Some(i) = args.task {
        if i >= exp.instances.len() {
            return Err(ExperimentError::Collect(format!(
                "task {i} does not exist ({} instances)",
                exp.instances.len()
            )));
        }
        // Checked once here; the instance only creates the directories (see `subdir`).
        output::create_dir(&exp.out.join(TASKS))?;
        if args.jobs_csv {
            output::create_dir(&exp.out.join(JOBS))?;
        }
        exp.run_instance(i, Vec::new(), args.jobs_csv, &ProgressBar::hidden())?;
        return Ok(());
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
    // Staged before the runs, so an unwritable place fails before the work.
    let summary = output::create(&exp.out.join(SUMMARY))?;
    let runs = output::create(&exp.out.join(RUNS))?;
    let results = if args.slurm || args.collect {
        collect(&exp)?
    } else {
        // Checked once here; the instances only create the directories (see `subdir`).
        output::create_dir(&exp.out.join(TASKS))?;
        if args.jobs_csv {
            output::create_dir(&exp.out.join(JOBS))?;
        }
        let kept: Vec<Vec<Result1>> = (0..exp.instances.len())
            .map(|i| if args.resume { exp.kept(i) } else { Vec::new() })
            .collect();
        let reused: usize = kept.iter().map(Vec::len).sum();
        let total = exp.instances.len() * exp.policies.len();
        if args.resume {
            eprintln!("resuming: {reused} of {total} runs already complete");
        }
        let bar = ProgressBar::with_draw_target(
            Some((total - reused) as u64),
            ProgressDrawTarget::stderr(),
        );
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:30}] {pos}/{len} runs {per_sec} ETA {eta} ({elapsed})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(exp.name.clone());
        let results: Vec<Vec<Result1>> = kept
            .into_par_iter()
            .enumerate()
            .map(|(i, kept)| exp.run_instance(i, kept, args.jobs_csv, &bar))
            .collect::<Result<_, _>>()?;
        bar.finish_and_clear();
        results.into_iter().flatten().collect()
    };
    for w in &exp.warnings {
        eprintln!("warning: {w}");
    }
    report(&exp, &results, summary, runs)
}

fn print(text: &str) -> Result<(), ExperimentError> {
    output::stdout(text).map_err(|e| OutputError::new(Path::new("<stdout>"), e).into())
}

/// Reads the tasks' results of a Slurm run.
fn collect(exp: &Experiment) -> Result<Vec<Result1>, ExperimentError> {
    let dir = exp.out.join(TASKS);
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

/// `value` as one word of an `#SBATCH` line. sbatch splits those lines at whitespace, takes
/// a character after `\\` literally and ends the line at an unescaped `#` (Slurm's
/// `src/sbatch/opt.c`, `_get_argument`), so every character but letters, digits and
/// `-_./:=,+@%` is escaped; a control character cannot be and is refused (a newline would
/// end the directive and start another).
fn sbatch_word(what: &str, value: &str) -> Result<String, ExperimentError> {
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(ExperimentError::Script(format!(
            "{what} {} holds a control character ({}), which cannot go into an #SBATCH line",
            excerpt(&format!("{value:?}")),
            c.escape_unicode()
        )));
    }
    Ok(value
        .chars()
        .flat_map(|c| {
            let plain = c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c);
            (!plain).then_some('\\').into_iter().chain([c])
        })
        .collect())
}

/// `path` quoted as one word of a POSIX shell command.
fn shell_word(what: &str, path: &Path) -> Result<String, ExperimentError> {
    let text = path.to_str().ok_or_else(|| {
        ExperimentError::Script(format!(
            "{what} {} is not valid UTF-8 and cannot go into the Slurm script",
            path.display()
        ))
    })?;
    shlex::try_quote(text)
        .map(|q| q.into_owned())
        .map_err(|e| ExperimentError::Script(format!("{what} {}: {e}", path.display())))
}

/// The sbatch array script: one task per instance, each `cosched experiment FILE --task I`.
fn write_sbatch(exp: &Experiment, args: &ExperimentArgs) -> Result<PathBuf, ExperimentError> {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("cosched"));
    let (file, out) = (abs(&exp.file), abs(&exp.out));
    let out_text = out.to_str().ok_or_else(|| {
        ExperimentError::Script(format!(
            "the output directory {} is not valid UTF-8 and cannot go into an #SBATCH line",
            out.display()
        ))
    })?;
    if out_text.contains('\\') {
        return Err(ExperimentError::Script(format!(
            "the output directory {out_text} holds a backslash, which turns off Slurm's \
             filename patterns (%a): choose another --out"
        )));
    }
    // In a filename pattern `%%` is one `%`.
    let log = format!("{}/slurm/task-%a.out", out_text.replace('%', "%%"));
    let mut s = String::from(
        "#!/bin/bash\n# Written by `cosched experiment --slurm`: one task per workload x load x seed.\n",
    );
    let name = format!("cosched-{}", exp.name);
    let _ = writeln!(
        s,
        "#SBATCH --job-name={}",
        sbatch_word("the experiment's name", &name)?
    );
    let _ = writeln!(
        s,
        "#SBATCH --array=0-{}",
        exp.instances.len().saturating_sub(1)
    );
    let _ = writeln!(s, "#SBATCH --nodes=1");
    let _ = writeln!(
        s,
        "#SBATCH --output={}",
        sbatch_word("the output directory", &log)?
    );
    if let Some(p) = &args.partition {
        let _ = writeln!(s, "#SBATCH --partition={}", sbatch_word("--partition", p)?);
    }
    s.push_str("set -euo pipefail\n");
    let _ = writeln!(
        s,
        "{} experiment {} --out {} --task \"$SLURM_ARRAY_TASK_ID\"",
        shell_word("the cosched executable", &exe)?,
        shell_word("the experiment file", &file)?,
        shell_word("the output directory", &out)?,
    );
    let path = exp.out.join(SCRIPT);
    if let Some(dir) = path.parent() {
        output::create_dir(dir)?;
    }
    let mut outputs = Outputs::default();
    outputs.write(&path, s.as_bytes())?;
    outputs.commit()?;
    Ok(path)
}

/// summary.csv's last columns: the paired differences from the file's first policy.
const PAIRED_COLUMNS: [&str; 5] = [
    "reference",
    "mean_wait_s_diff",
    "mean_wait_s_diff_ci95",
    "mean_bounded_slowdown_diff",
    "mean_bounded_slowdown_diff_ci95",
];

/// One cell: a workload on a capacity at a load under a policy, over its replicates.
struct Cell<'a> {
    instance: &'a Instance,
    policy: &'a str,
    runs: Vec<&'a Result1>,
}

impl Cell<'_> {
    /// The mean of `metric` over the cell's runs and its 95 % interval.
    fn spread(&self, metric: &str) -> Option<Spread> {
        let values: Vec<f64> = self
            .runs
            .iter()
            .map(|r| r.field(metric))
            .filter(|v| v.is_finite())
            .collect();
        Spread::of(&values)
    }

    /// What the replicates are.
    fn replicates(&self) -> &'static str {
        match (self.instance.seed, self.instance.segment) {
            _ if self.runs.len() < 2 => "none",
            (Some(_), _) => "seeds",
            (_, Some(_)) => "segments",
            _ => "none",
        }
    }
}

/// The cells of `results`, in the order their first run appears.
fn cells(results: &[Result1]) -> Vec<Cell<'_>> {
    let mut cells: Vec<Cell<'_>> = Vec::new();
    for r in results {
        let i = &r.instance;
        let same = |c: &Cell<'_>| {
            c.policy == r.policy()
                && c.instance.source == i.source
                && c.instance.capacity == i.capacity
                && c.instance.load.map(f64::to_bits) == i.load.map(f64::to_bits)
        };
        match cells.iter_mut().find(|c| same(c)) {
            Some(cell) => cell.runs.push(r),
            None => cells.push(Cell {
                instance: i,
                policy: r.policy(),
                runs: vec![r],
            }),
        }
    }
    cells
}

/// The paired difference of `metric` between `cell` and `reference` (the same workload,
/// capacity and load under the file's first policy): over the replicates both ran (the same
/// seed or segment, so the same jobs), the mean of `cell − reference` and its 95 % interval.
/// `None` for the reference itself or without a common replicate.
fn paired(cell: &Cell<'_>, reference: Option<&Cell<'_>>, metric: &str) -> Option<Spread> {
    let reference = reference.filter(|r| r.policy != cell.policy)?;
    let diffs: Vec<f64> = cell
        .runs
        .iter()
        .filter_map(|r| {
            let twin = reference.runs.iter().find(|t| {
                t.instance.seed == r.instance.seed && t.instance.segment == r.instance.segment
            })?;
            Some(r.field(metric) - twin.field(metric))
        })
        .filter(|d| d.is_finite())
        .collect();
    Spread::of(&diffs)
}

/// A paired difference as `+mean ± half-width`, starred when the interval excludes zero (the
/// significance rule: a two-sided paired t-test at 5 %); `-` for the reference.
fn difference(s: Option<Spread>) -> String {
    match s {
        None => "-".into(),
        Some(Spread {
            mean,
            ci95_half_width: Some(h),
            ..
        }) => {
            let star = if mean.abs() > h { "*" } else { "" };
            format!("{mean:+.0} ± {h:.0}{star}")
        }
        Some(s) => format!("{:+.0}", s.mean),
    }
}

/// `mean ± half-width` (the mean alone for one run).
fn with_interval(s: Option<Spread>, decimals: usize) -> String {
    match s {
        None => "-".into(),
        Some(Spread {
            mean,
            ci95_half_width: Some(h),
            ..
        }) => format!("{mean:.decimals$} ± {h:.decimals$}"),
        Some(s) => format!("{:.decimals$}", s.mean),
    }
}

/// `header` and `rows` as CSV into `file`, added to `outputs`.
fn put_csv(
    outputs: &mut Outputs,
    file: Staged,
    header: &[&str],
    rows: impl IntoIterator<Item = Vec<String>>,
) -> Result<(), ExperimentError> {
    let path = file.path().to_path_buf();
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header)
        .map_err(|e| OutputError::new(&path, e))?;
    for row in rows {
        w.write_record(&row)
            .map_err(|e| OutputError::new(&path, e))?;
    }
    let bytes = w.into_inner().map_err(|e| OutputError::new(&path, e))?;
    Ok(outputs.put(file, &bytes)?)
}

/// Writes the per-cell and per-run CSVs (into `summary` and `runs`, staged before the runs)
/// and the plots, moves them into place and prints the table.
fn report(
    exp: &Experiment,
    results: &[Result1],
    summary: Staged,
    runs: Staged,
) -> Result<(), ExperimentError> {
    let opt = |v: Option<String>| v.unwrap_or_default();
    let load_text = |i: &Instance| opt(i.load.map(|l| l.to_string()));
    let mut outputs = Outputs::default();
    let runs_path = runs.path().to_path_buf();
    let mut header = vec!["workload", "capacity", "load", "seed", "segment"];
    header.extend(summary::COLUMNS);
    put_csv(
        &mut outputs,
        runs,
        &header,
        results.iter().map(|r| {
            let i = &r.instance;
            let mut row = vec![
                i.workload.clone(),
                i.capacity.to_string(),
                load_text(i),
                opt(i.seed.map(|s| s.to_string())),
                opt(i.segment.map(|(k, _)| k.to_string())),
            ];
            row.extend(r.row.0.iter().cloned());
            row
        }),
    )?;

    let cells = cells(results);
    let metrics = &summary::COLUMNS[1..];
    let path = summary.path().to_path_buf();
    let ci_names: Vec<String> = metrics.iter().map(|m| format!("{m}_ci95")).collect();
    let mut header = vec!["workload", "capacity", "load", "policy", "n", "replicates"];
    for (m, ci) in metrics.iter().zip(&ci_names) {
        header.extend([*m, ci.as_str()]);
    }
    header.extend(PAIRED_COLUMNS);
    let reference = exp.policies.first().map(|p| p.name());
    let reference_of = |c: &Cell<'_>| {
        cells.iter().find(|r| {
            Some(r.policy) == reference
                && r.instance.source == c.instance.source
                && r.instance.capacity == c.instance.capacity
                && r.instance.load.map(f64::to_bits) == c.instance.load.map(f64::to_bits)
        })
    };
    put_csv(
        &mut outputs,
        summary,
        &header,
        cells.iter().map(|c| {
            let i = c.instance;
            let mut row = vec![
                i.workload.clone(),
                i.capacity.to_string(),
                load_text(i),
                c.policy.to_string(),
                c.runs.len().to_string(),
                c.replicates().to_string(),
            ];
            for m in metrics {
                let s = c.spread(m);
                row.push(opt(s.map(|s| s.mean.to_string())));
                row.push(opt(s
                    .and_then(|s| s.ci95_half_width)
                    .map(|h| h.to_string())));
            }
            row.push(reference.unwrap_or_default().to_string());
            for m in ["mean_wait_s", "mean_bounded_slowdown"] {
                let d = paired(c, reference_of(c), m);
                row.push(opt(d.map(|d| d.mean.to_string())));
                row.push(opt(d
                    .and_then(|d| d.ci95_half_width)
                    .map(|h| h.to_string())));
            }
            row
        }),
    )?;

    // The table: one line per cell, mean ± 95 % half-width over its n replicates.
    let mut text = String::new();
    let width = cells
        .iter()
        .map(|c| c.instance.workload.len())
        .chain([8])
        .max()
        .unwrap_or(8);
    let _ = writeln!(
        text,
        "{:<width$} {:>8} {:>5} {:<13} {:>3} {:>7} {:>8} {:>21} {:>22} {:>10} {:>15} {:>17}",
        "workload",
        "capacity",
        "load",
        "policy",
        "n",
        "jobs",
        "rejected",
        "mean wait s",
        format!("wait - {} (paired)", reference.unwrap_or("first")),
        "p95 wait s",
        "mean bsld",
        "utilization"
    );
    for c in &cells {
        let i = c.instance;
        let mean = |m: &str| c.spread(m).map_or(f64::NAN, |s| s.mean);
        let _ = writeln!(
            text,
            "{:<width$} {:>8} {:>5} {:<13} {:>3} {:>7.0} {:>8.0} {:>21} {:>22} {:>10.0} {:>15} {:>17}",
            i.workload,
            i.capacity,
            i.load.map_or_else(|| "-".into(), |l| l.to_string()),
            c.policy,
            c.runs.len(),
            mean("jobs"),
            mean("rejected"),
            with_interval(c.spread("mean_wait_s"), 0),
            difference(paired(c, reference_of(c), "mean_wait_s")),
            mean("p95_wait_s"),
            with_interval(c.spread("mean_bounded_slowdown"), 2),
            with_interval(c.spread("utilization"), 4),
        );
    }
    if cells.iter().any(|c| c.runs.len() > 1) {
        let _ = writeln!(
            text,
            "mean ± half-width of the 95 % Student-t interval over the cell's n replicates; the \
             paired column: the mean difference from the first policy on the same replicates, \
             * where its interval excludes 0 (paired t-test, 5 %)"
        );
    }

    // Plots: per workload with several loads, each figure against load, one line per policy,
    // the mean over the replicates with its 95 % interval.
    let plots = exp.out.join(PLOTS);
    let mut drawn = 0;
    for (k, files) in exp.plot_files() {
        let source = &exp.sources[k];
        let of: Vec<&Cell<'_>> = cells.iter().filter(|c| c.instance.source == k).collect();
        output::create_dir(&plots)?;
        let n = of.iter().map(|c| c.runs.len()).max().unwrap_or(1);
        let note = match of.first().map(|c| c.replicates()) {
            Some(kind) if n > 1 => {
                format!("mean of {n} replicates ({kind}); bars: 95 % interval")
            }
            _ => "one run per load (no replicates)".to_string(),
        };
        for ((metric, stem), (_, label, _)) in files.into_iter().zip(PLOT_METRICS) {
            let plot = LinePlot::new(
                stem,
                format!(
                    "{} on {} units: {label} against offered load",
                    source.name(),
                    source.capacity()
                ),
            )
            .note(note.clone())
            .x_label("offered load")
            .y_label(label);
            let plot = if metric == "utilization" {
                plot
            } else {
                plot.auto_log_y()
            };
            let plot = exp.policies.iter().fold(plot, |plot, p| {
                let points = of.iter().filter(|c| c.policy == p.name()).filter_map(|c| {
                    let s = c.spread(metric)?;
                    Some((c.instance.load?, s.mean, s.ci95_half_width))
                });
                plot.series_with_intervals(p.name(), points)
            });
            for (path, bytes) in plots::render(&plots, &plot)? {
                outputs.write(&path, &bytes)?;
            }
            drawn += 1;
        }
    }
    outputs.commit()?;
    let _ = writeln!(
        text,
        "{} runs in {} cells; per cell {}, per run {}{}",
        results.len(),
        cells.len(),
        path.display(),
        runs_path.display(),
        if drawn > 0 {
            format!(", {drawn} figures (SVG and PNG) in {}", plots.display())
        } else {
            String::new()
        }
    );
    print(&text)
}
