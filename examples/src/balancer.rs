//! What the Balancer examples (`balancer_table1`, `balancer_fig2` … `balancer_fig5`; Liu,
//! Keahey, Riteau, Weissman, SC18) share: the input options (the synthetic workloads by
//! default, the real LCRC / APS / SWF / lease files by flag), the configurations, and one
//! scenario's run.

use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, FromArgMatches, Parser};
use cosched_balancer::predictor::{Combine, PredictiveHold, PredictorSpec};
use cosched_balancer::sim::{Configuration, SimError, SimReport, Simulation};
use cosched_balancer::synthetic::{self, BatchKind, SyntheticBatch, WEEK};
use cosched_balancer::traces::{self, TraceError};
use cosched_balancer::workload::{DiurnalLeases, LeaseRequest};
use cosched_balancer::{BalancerConfig, Strategy};
use cosched_core::{Duration, JobId, ParamError, RigidJob, SeedStreams, Time};
use thiserror::Error;

use crate::{Cell, Claims, CommonArgs, LinePlot, OutDir, Sweep, Table};
use cosched_core::stats::Spread;

/// The largest `--nodes`.
pub const MAX_NODES: i64 = 1_000_000;

/// The longest `--idle-hold`, minutes: ten years.
pub const MAX_IDLE_HOLD_MIN: i64 = 10 * 366 * 24 * 60;

/// Cores of a VM in the APS conversion (the paper's 16-core nodes).
pub const APS_CORES_PER_VM: u32 = 16;

/// Why an example's inputs could not be built.
#[derive(Debug, Error)]
pub enum InputError {
    /// A trace file could not be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A generator parameter out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
}

/// The input options every Balancer example takes.
#[derive(Debug, Clone, PartialEq, Eq, Args)]
pub struct BalancerArgs {
    /// Nodes of the combined cluster (1 to 1,000,000: memory grows with it).
    #[arg(long, default_value_t = 372,
          value_parser = clap::value_parser!(u32).range(1..=MAX_NODES))]
    pub nodes: u32,
    /// LCRC weekly CSV files, one week each, in order: the batch workload instead of the
    /// synthetic ones (no preload: the trace's earlier weeks are unknown).
    #[arg(long, value_name = "FILE.csv", num_args = 1..)]
    pub lcrc: Vec<PathBuf>,
    /// An SWF batch trace instead: its first weeks, sizes divided by --swf-cores-per-node.
    #[arg(long, value_name = "FILE.swf", conflicts_with = "lcrc")]
    pub swf: Option<PathBuf>,
    /// Processors per node of the SWF trace.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub swf_cores_per_node: u32,
    /// APS single-core trace files, one week each, in order: the on-demand load, as 16-core VM
    /// leases with tight packing.
    #[arg(long, value_name = "FILE.csv", num_args = 1..)]
    pub aps: Vec<PathBuf>,
    /// An on-demand lease CSV (`submit,nodes,duration`) instead.
    #[arg(long, value_name = "FILE.csv", conflicts_with = "aps")]
    pub leases: Option<PathBuf>,
    /// LCRC weekly CSV files to sample the synthetic batch workloads from (U66-Main is 1 % of
    /// the LCRC traces, §III-B1): a fraction 1 / (number of files) per week. Without them the
    /// workloads are sampled from a generated Lublin-Feitelson trace (ours).
    #[arg(long, value_name = "FILE.csv", num_args = 1.., conflicts_with_all = ["lcrc", "swf"])]
    pub sample_lcrc: Vec<PathBuf>,
    /// `I`, minutes: how long an unused on-demand node is held before it returns to batch.
    /// (0 to 10 years, so that it is never wrapped or reported wrong).
    #[arg(long, default_value_t = 10, value_name = "MIN",
          value_parser = clap::value_parser!(i64).range(0..=MAX_IDLE_HOLD_MIN))]
    pub idle_hold: i64,
}

/// A batch workload ready to simulate.
#[derive(Debug, Clone)]
pub struct BatchInput {
    /// Its name (`U66-Main`, `LCRC (2 weeks)`, …).
    pub label: String,
    /// The jobs.
    pub jobs: Vec<RigidJob>,
    /// Jobs running at the start (see [`Simulation::run_preloaded`]).
    pub preload: Vec<RigidJob>,
    /// The span the loads are measured over.
    pub span: Duration,
}

/// The on-demand load ready to scale.
#[derive(Debug, Clone)]
pub struct OnDemandInput {
    /// Where it comes from.
    pub label: String,
    /// The requests at scale ×1.
    pub base: Vec<LeaseRequest>,
}

impl BalancerArgs {
    /// Whether the batch workload comes from a file.
    pub fn batch_from_file(&self) -> bool {
        !self.lcrc.is_empty() || self.swf.is_some()
    }

    /// The batch workloads: the LCRC or SWF file if given (one workload), else `kinds`
    /// generated for `batch_nodes` nodes over `weeks` weeks from `seed`, in parallel.
    ///
    /// # Errors
    /// A file that cannot be read, or invalid generator parameters.
    pub fn batch_inputs(
        &self,
        kinds: &[BatchKind],
        batch_nodes: u32,
        weeks: u32,
        seed: u64,
    ) -> Result<Vec<BatchInput>, InputError> {
        if !self.lcrc.is_empty() {
            let weeks = read_weeks(&self.lcrc, traces::read_lcrc)?;
            let mut jobs: Vec<RigidJob> = weeks
                .into_iter()
                .enumerate()
                .flat_map(|(k, week)| {
                    week.into_iter().map(move |j| RigidJob {
                        submit: j.submit.saturating_add(Duration(WEEK.0 * k as i64)),
                        ..j
                    })
                })
                .collect();
            renumber(&mut jobs);
            return Ok(vec![BatchInput {
                label: format!("LCRC ({} week(s))", self.lcrc.len()),
                jobs,
                preload: Vec::new(),
                span: Duration(WEEK.0 * self.lcrc.len() as i64),
            }]);
        }
        if let Some(path) = &self.swf {
            return Ok(vec![self.swf_input(path, weeks)?]);
        }
        let trace: Vec<RigidJob> = read_weeks(&self.sample_lcrc, traces::read_lcrc)?
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, j)| RigidJob {
                id: JobId(i as u64),
                ..j
            })
            .collect();
        let trace_weeks = u32::try_from(self.sample_lcrc.len()).unwrap_or(u32::MAX);
        let generated = Sweep::new("workloads", kinds.to_vec()).run(|&kind| {
            let g = SyntheticBatch::new(batch_nodes, kind).with_weeks(weeks);
            if trace.is_empty() {
                g.generate(seed)
            } else {
                g.generate_from_trace(trace.clone(), trace_weeks, seed)
            }
        });
        generated
            .into_iter()
            .map(|(kind, week)| {
                let week = week?;
                Ok(BatchInput {
                    label: kind.label(),
                    jobs: week.jobs,
                    preload: week.preload,
                    span: week.span,
                })
            })
            .collect()
    }

    fn swf_input(&self, path: &Path, weeks: u32) -> Result<BatchInput, InputError> {
        let cores = self.swf_cores_per_node.max(1);
        let mut jobs = traces::read_swf_jobs(path)?;
        let first = jobs.iter().map(|j| j.submit).min().unwrap_or(Time::ZERO);
        let span = Duration(WEEK.0 * i64::from(weeks));
        jobs.retain(|j| j.submit.0.checked_sub(first.0).is_some_and(|d| d < span.0));
        for job in &mut jobs {
            job.submit = Time(job.submit.0 - first.0);
            job.size = job.size.div_ceil(cores);
        }
        jobs.sort_by_key(|j| (j.submit, j.id));
        renumber(&mut jobs);
        Ok(BatchInput {
            label: path
                .file_name()
                .map_or_else(|| "SWF".to_owned(), |n| n.to_string_lossy().into_owned()),
            jobs,
            preload: Vec::new(),
            span,
        })
    }

    /// The on-demand load at scale ×1: the APS files (VM leases), the lease file, or the
    /// synthetic base load ([`synthetic::base_leases`]) over `span` from `seed`.
    ///
    /// # Errors
    /// A file that cannot be read.
    pub fn on_demand(&self, span: Duration, seed: u64) -> Result<OnDemandInput, InputError> {
        if !self.aps.is_empty() {
            let weeks = read_weeks(&self.aps, traces::read_aps)?;
            let jobs: Vec<traces::ApsJob> = weeks
                .into_iter()
                .enumerate()
                .flat_map(|(k, week)| {
                    let shift = Duration(WEEK.0 * k as i64);
                    week.into_iter().map(move |j| traces::ApsJob {
                        submit: j.submit.saturating_add(shift),
                        start: j.start.saturating_add(shift),
                        end: j.end.saturating_add(shift),
                        ..j
                    })
                })
                .collect();
            return Ok(OnDemandInput {
                label: format!(
                    "APS ({} week(s), {APS_CORES_PER_VM}-core VMs, tight packing)",
                    self.aps.len()
                ),
                base: traces::aps_to_leases(&jobs, APS_CORES_PER_VM)?,
            });
        }
        if let Some(path) = &self.leases {
            return Ok(OnDemandInput {
                label: path.display().to_string(),
                base: traces::read_leases(path)?,
            });
        }
        Ok(OnDemandInput {
            label: "file-free synthetic leases (ours: one-node VMs of ~5.5 h, diurnal bursts of up to 11, rho 1.25 %, as the paper's challenging week)".to_owned(),
            base: synthetic::base_leases(self.nodes, span, seed)?,
        })
    }

    /// `I`.
    pub fn idle_hold(&self) -> Duration {
        Duration::from_mins(self.idle_hold.max(0))
    }

    /// The Basic Balancer with static reserve `r` and window `w`.
    pub fn basic(&self, r: u32, w: Duration) -> Configuration {
        Configuration::Dynamic {
            config: BalancerConfig::new(Strategy::Basic { static_reserve: r })
                .with_window(w)
                .with_idle_hold(self.idle_hold()),
            predictor: None,
        }
    }

    /// The Hint Balancer (the requests' notices are the hints), window `w`.
    pub fn hint(&self, w: Duration) -> Configuration {
        Configuration::Dynamic {
            config: BalancerConfig::new(Strategy::Hinted)
                .with_window(w)
                .with_idle_hold(self.idle_hold()),
            predictor: None,
        }
    }

    /// The Predictive Balancer combining peaks by `rule`, window `w`, holding unused reserve
    /// for `idle_hold` (the predicted reserve is held `I` from each slot's start).
    pub fn predictive(
        &self,
        rule: Combine,
        hold: PredictiveHold,
        w: Duration,
        idle_hold: Duration,
    ) -> Configuration {
        Configuration::Dynamic {
            config: BalancerConfig::new(Strategy::Hinted)
                .with_window(w)
                .with_idle_hold(idle_hold),
            predictor: Some(PredictorSpec { rule, hold }),
        }
    }

    /// Simulates `batch` beside `leases` under `configuration` on the combined cluster.
    ///
    /// # Errors
    /// An invalid configuration for the cluster (e.g. a reserve larger than it).
    pub fn run(
        &self,
        configuration: Configuration,
        batch: &BatchInput,
        leases: &[LeaseRequest],
    ) -> Result<SimReport, SimError> {
        self.run_with_history(configuration, batch, leases, Vec::new())
    }

    /// [`BalancerArgs::run`] with earlier weeks' leases (before time 0) for the Predictive
    /// configuration's offline training (§III-B5).
    ///
    /// # Errors
    /// As [`BalancerArgs::run`].
    pub fn run_with_history(
        &self,
        configuration: Configuration,
        batch: &BatchInput,
        leases: &[LeaseRequest],
        history: Vec<LeaseRequest>,
    ) -> Result<SimReport, SimError> {
        Ok(Simulation::new(self.nodes, configuration)?
            .with_history(history)
            .run_preloaded(&batch.jobs, &batch.preload, leases)?
            .report)
    }
}

/// `base` at scale `factor` (every request's nodes × factor).
///
/// # Errors
/// A factor of 0, or nodes that overflow.
pub fn scaled(base: &[LeaseRequest], factor: u32) -> Result<Vec<LeaseRequest>, InputError> {
    Ok(synthetic::scale_leases(base, factor)?)
}

/// `leases` with every request announced `notice` ahead (the Hint strategy's `H`).
pub fn with_notice(leases: &[LeaseRequest], notice: Duration) -> Vec<LeaseRequest> {
    leases
        .iter()
        .map(|r| LeaseRequest {
            notice: Some(notice),
            ..*r
        })
        .collect()
}

/// The offered on-demand load ρ of `leases` on `nodes` nodes over `span`.
pub fn rho(leases: &[LeaseRequest], nodes: u32, span: Duration) -> f64 {
    DiurnalLeases::offered_load(leases, nodes, span)
}

/// The node-seconds of `batch`'s jobs (run time cut at walltime) over `nodes × span`.
pub fn batch_load(batch: &BatchInput, nodes: u32) -> f64 {
    synthetic::offered_load(&batch.jobs, nodes, batch.span)
}

/// Seconds as hours.
pub fn hours(seconds: f64) -> f64 {
    seconds / 3600.0
}

/// Reads each file with `read`, in order.
fn read_weeks<T>(
    files: &[PathBuf],
    read: fn(&Path) -> Result<Vec<T>, TraceError>,
) -> Result<Vec<Vec<T>>, InputError> {
    files.iter().map(|f| Ok(read(f)?)).collect()
}

/// Ids 0, 1, … in the current order.
fn renumber(jobs: &mut [RigidJob]) {
    for (i, job) in jobs.iter_mut().enumerate() {
        job.id = JobId(i as u64);
    }
}

/// One configuration of a figure's sweep: its label, the simulator's configuration, and the
/// notice every request gives (the Hint strategy's `H`), if any.
#[derive(Debug, Clone)]
pub struct Variant {
    /// Legend label.
    pub label: String,
    /// What to simulate.
    pub configuration: Configuration,
    /// `H`, if the requests announce themselves.
    pub notice: Option<Duration>,
}

/// One cell of a figure's grid: workload × on-demand scale × variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GridCell {
    /// Index into the batch workloads.
    pub workload: usize,
    /// The on-demand scale (ρ = base × scale).
    pub scale: u32,
    /// Index into the variants.
    pub variant: usize,
}

/// What one cell measured, in each replicate.
#[derive(Debug, Clone)]
pub struct GridResult {
    /// The cell.
    pub cell: GridCell,
    /// The offered on-demand load of its requests, mean over the replicates.
    pub rho: f64,
    /// The simulations' reports, one per replicate (seed).
    pub reports: Vec<SimReport>,
}

impl GridResult {
    /// `metric`'s mean over the replicates.
    pub fn mean(&self, metric: &Metric) -> f64 {
        let n = self.reports.len().max(1) as f64;
        self.reports.iter().map(|r| (metric.value)(r)).sum::<f64>() / n
    }
}

/// Runs every replicate × workload × scale × variant in parallel (a [`Sweep`] labelled
/// `name`); one result per workload × scale × variant, in that order, holding every
/// replicate's report.
///
/// # Errors
/// An invalid scale or configuration.
pub fn run_grid(
    name: &str,
    inputs: &BalancerArgs,
    prepared: &Prepared,
    scales: &[u32],
    variants: &[Variant],
) -> Result<Vec<GridResult>, Box<dyn std::error::Error>> {
    // Requests by replicate, scale and variant.
    let mut leases: Vec<Vec<Vec<Vec<LeaseRequest>>>> = Vec::new();
    for replicate in &prepared.replicates {
        let mut by_scale = Vec::with_capacity(scales.len());
        for &scale in scales {
            let requests = scaled(&replicate.base, scale)?;
            by_scale.push(
                variants
                    .iter()
                    .map(|v| match v.notice {
                        Some(h) => with_notice(&requests, h),
                        None => requests.clone(),
                    })
                    .collect::<Vec<_>>(),
            );
        }
        leases.push(by_scale);
    }
    // The Predictive training history, by replicate and scale.
    let mut histories: Vec<Vec<Vec<LeaseRequest>>> = Vec::new();
    for replicate in &prepared.replicates {
        histories.push(
            scales
                .iter()
                .map(|&scale| scaled(&replicate.history, scale))
                .collect::<Result<_, _>>()?,
        );
    }
    let replicates = prepared.replicates.len();
    let mut cells: Vec<(usize, usize, GridCell)> = Vec::new();
    for workload in 0..prepared.labels.len() {
        for (s, &scale) in scales.iter().enumerate() {
            for variant in 0..variants.len() {
                let cell = GridCell {
                    workload,
                    scale,
                    variant,
                };
                cells.extend((0..replicates).map(|k| (k, s, cell)));
            }
        }
    }
    let runs = Sweep::new(name, cells).run(|&(k, s, cell)| {
        let requests = &leases[k][s][cell.variant];
        let input = &prepared.replicates[k].batch[cell.workload];
        let report = inputs.run_with_history(
            variants[cell.variant].configuration,
            input,
            requests,
            histories[k][s].clone(),
        )?;
        Ok::<_, SimError>((rho(requests, inputs.nodes, input.span), report))
    });
    let mut out = Vec::with_capacity(runs.len() / replicates.max(1));
    for chunk in runs.chunks(replicates.max(1)) {
        let cell = chunk[0].0.2;
        let mut rho_sum = 0.0;
        let mut reports = Vec::with_capacity(chunk.len());
        for (_, run) in chunk {
            let (rho, report) = run.as_ref().map_err(|e| e.to_string())?;
            rho_sum += rho;
            reports.push(report.clone());
        }
        out.push(GridResult {
            cell,
            rho: rho_sum / chunk.len() as f64,
            reports,
        });
    }
    Ok(out)
}

/// The result of one cell: workload `workload` (index into the labels), scale, variant.
pub fn cell(
    results: &[GridResult],
    workload: usize,
    scale: u32,
    variant: usize,
) -> Option<&GridResult> {
    results
        .iter()
        .find(|r| r.cell.workload == workload && r.cell.scale == scale && r.cell.variant == variant)
}

impl GridResult {
    /// `metric` over the replicates (seeds): mean and spread, for a claim.
    pub fn spread(&self, metric: &Metric) -> Spread {
        let xs: Vec<f64> = self.reports.iter().map(|r| (metric.value)(r)).collect();
        Spread::of(&xs).unwrap_or(Spread {
            n: 0,
            mean: f64::NAN,
            sd: None,
            min: f64::NAN,
            max: f64::NAN,
            ci95_half_width: None,
        })
    }

    /// `metric` as "mean [min, max] (n seeds)", `decimals` digits.
    pub fn show(&self, metric: &Metric, decimals: usize) -> String {
        let s = self.spread(metric);
        if s.n > 1 {
            format!(
                "{:.d$} [{:.d$}, {:.d$}] (n={})",
                s.mean,
                s.min,
                s.max,
                s.n,
                d = decimals
            )
        } else {
            format!("{:.d$}", s.mean, d = decimals)
        }
    }
}

/// Series of `y` against `x` over `results`, one per key (in first-seen order), for a plot.
fn series_by<K: PartialEq + Clone>(
    results: &[GridResult],
    key: impl Fn(&GridResult) -> Option<K>,
    label: impl Fn(&K) -> String,
    x: impl Fn(&GridResult) -> f64,
    y: impl Fn(&GridResult) -> f64,
) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut keys: Vec<K> = Vec::new();
    for r in results {
        if let Some(k) = key(r)
            && !keys.contains(&k)
        {
            keys.push(k);
        }
    }
    keys.iter()
        .map(|k| {
            let points = results
                .iter()
                .filter(|r| key(r).as_ref() == Some(k))
                .map(|r| (x(r), y(r)))
                .collect();
            (label(k), points)
        })
        .collect()
}

/// One metric of a report, for tables and plots.
#[derive(Clone, Copy)]
pub struct Metric {
    /// File-name part of its plot.
    pub file: &'static str,
    /// Column header and axis label.
    pub label: &'static str,
    /// Digits shown in tables.
    pub decimals: usize,
    /// Its value.
    pub value: fn(&SimReport) -> f64,
}

/// Mean batch wait, hours.
pub const BATCH_WAIT: Metric = Metric {
    file: "batch_wait",
    label: "mean batch wait (h)",
    decimals: 2,
    value: |r| hours(r.batch.overall.mean_wait_s),
};
/// Batch jobs never run: larger than the nodes batch can have (`N − R` under Basic).
pub const BATCH_NOT_RUN: Metric = Metric {
    file: "batch_not_run",
    label: "batch jobs not run",
    decimals: 0,
    value: |r| r.batch.rejected as f64,
};
/// On-demand reject rate.
pub const REJECT_RATE: Metric = Metric {
    file: "reject_rate",
    label: "reject rate",
    decimals: 3,
    value: |r| r.on_demand.reject_rate,
};
/// Mean on-demand wait of granted requests, seconds.
pub const OD_WAIT: Metric = Metric {
    file: "od_wait",
    label: "OD mean wait (s)",
    decimals: 1,
    value: |r| r.on_demand.mean_wait_s,
};
/// Node-hours on-demand but unused.
pub const RESERVE_IDLE: Metric = Metric {
    file: "reserve_idle",
    label: "reserve idle (node-h)",
    decimals: 1,
    value: |r| r.reserve_idle_node_hours,
};
/// Batch utilisation (of the whole cluster).
pub const BATCH_UTIL: Metric = Metric {
    file: "batch_util",
    label: "batch util",
    decimals: 3,
    value: |r| r.batch_utilization,
};
/// On-demand utilisation (of the whole cluster).
pub const OD_UTIL: Metric = Metric {
    file: "od_util",
    label: "OD util",
    decimals: 3,
    value: |r| r.on_demand_utilization,
};
/// Combined utilisation.
pub const COMBINED_UTIL: Metric = Metric {
    file: "combined_util",
    label: "combined util",
    decimals: 3,
    value: |r| r.combined_utilization,
};
/// The metrics, and the batch jobs never run (which a mean wait alone hides), in
/// table order.
pub const METRICS: [Metric; 8] = [
    BATCH_WAIT,
    BATCH_NOT_RUN,
    REJECT_RATE,
    OD_WAIT,
    RESERVE_IDLE,
    BATCH_UTIL,
    OD_UTIL,
    COMBINED_UTIL,
];

/// A figure's output folder and inputs: the paper's five batch workloads (the first
/// `quick_workloads` with `--quick`; or the batch file) over `weeks` weeks, and the on-demand
/// base load over their span, once per replicate seed.
pub struct Prepared {
    /// The output folder.
    pub out: OutDir,
    /// The first seed (`--seed`).
    pub seed: u64,
    /// Nodes of the cluster.
    pub nodes: u32,
    /// The batch workloads' names (at least one).
    pub labels: Vec<String>,
    /// The span the loads are measured over.
    pub span: Duration,
    /// Where the on-demand load comes from.
    pub on_demand: String,
    /// One replicate per seed (one only when every input is a file).
    pub replicates: Vec<Replicate>,
}

/// The inputs of one seed.
pub struct Replicate {
    /// The batch workloads, in [`Prepared::labels`] order.
    pub batch: Vec<BatchInput>,
    /// The on-demand load at scale ×1.
    pub base: Vec<LeaseRequest>,
    /// Earlier weeks of the same on-demand source at scale ×1 (before time 0), the
    /// Predictive algorithm's offline training data; empty with a file.
    pub history: Vec<LeaseRequest>,
}

/// Weeks of on-demand history the Predictive algorithm is trained on (its month).
pub const HISTORY_WEEKS: i64 = 5;

impl Prepared {
    /// "seed S" or "mean of N seeds from S", and each workload's offered batch load (mean over
    /// the replicates, of the whole cluster), for a table's notes.
    pub fn seeds_note(&self) -> String {
        let (seed, nodes) = (self.seed, self.nodes);
        let seeds = match self.replicates.len() {
            1 => format!("Seed {seed}"),
            n => format!("Mean of {n} seeds from {seed} (each seed: its own workloads)"),
        };
        let loads: Vec<String> = self
            .labels
            .iter()
            .enumerate()
            .map(|(w, label)| {
                let n = self.replicates.len() as f64;
                let load: f64 = self
                    .replicates
                    .iter()
                    .map(|r| batch_load(&r.batch[w], nodes))
                    .sum();
                format!("{label} {:.2}", load / n)
            })
            .collect();
        format!("{seeds}; offered batch load {}", loads.join(", "))
    }
}

/// A figure's table texts and plots (see [`Prepared::write`]).
pub struct FigureOutput<'a> {
    /// The table's title.
    pub title: String,
    /// What the figure runs, for the table's notes.
    pub notes: String,
    /// The plots.
    pub plots: Plots<'a>,
    /// The metrics plotted.
    pub metrics: &'a [Metric],
}

impl Prepared {
    /// Writes another table of the figure's.
    ///
    /// # Errors
    /// As [`OutDir::write_table`].
    pub fn write_table(&mut self, table: &Table) -> crate::Result<()> {
        self.out.write_table(table)
    }

    /// Writes the figure's checked claims.
    ///
    /// # Errors
    /// As [`OutDir::write_claims`].
    pub fn write_claims(&mut self, claims: &Claims) -> crate::Result<()> {
        self.out.write_claims(claims)
    }

    /// The index of the workload labelled `label`, if it ran.
    pub fn workload(&self, label: &str) -> Option<usize> {
        self.labels.iter().position(|l| l == label)
    }

    /// Writes a figure's table ([`grid_table`], its notes prefixed with the seeds, the
    /// workloads' loads and the on-demand source at `scales`) and its plots ([`write_curves`]).
    ///
    /// # Errors
    /// A table or plot that cannot be written.
    pub fn write(
        &mut self,
        name: &str,
        scales: &[u32],
        figure: &FigureOutput<'_>,
        variants: &[Variant],
        results: &[GridResult],
    ) -> crate::Result<()> {
        let notes = format!(
            "{}; on-demand: {} scaled x{scales:?} (with the synthetic base, nominal rho = \
             1.25 % x scale); {} The paper's numbers for this figure are those of its text, \
             checked under \"Paper claims\".",
            self.seeds_note(),
            self.on_demand,
            figure.notes
        );
        let table = grid_table(
            name,
            figure.title.clone(),
            notes,
            &self.labels,
            variants,
            results,
        );
        self.out.write_table(&table)?;
        write_curves(
            &self.out,
            &figure.plots,
            figure.metrics,
            &self.labels,
            variants,
            results,
        )
    }
}

/// Builds a figure's [`Prepared`] inputs, `seeds` replicates (default 3, 1 with `--quick`):
/// replicate `k` draws its batch workloads, its on-demand load and its on-demand history from
/// the named families `replicate/k/{batch, on-demand, history}` of the seed `S`.
///
/// # Errors
/// The output folder cannot be created, or an input cannot be read or generated.
pub fn prepare(
    name: &str,
    common: &CommonArgs,
    inputs: &BalancerArgs,
    quick_workloads: usize,
    weeks: u32,
    seeds: Option<u32>,
) -> Result<Prepared, Box<dyn std::error::Error>> {
    let out = common.output(name)?;
    let kinds = if common.quick {
        &BatchKind::PAPER[..quick_workloads.clamp(1, BatchKind::PAPER.len())]
    } else {
        &BatchKind::PAPER[..]
    };
    let synthetic_leases = inputs.aps.is_empty() && inputs.leases.is_none();
    let seeds = if inputs.batch_from_file() && !synthetic_leases {
        1
    } else {
        seeds.unwrap_or(if common.quick { 1 } else { 3 }).max(1)
    };
    let mut replicates = Vec::new();
    let mut on_demand = String::new();
    for k in 0..u64::from(seeds) {
        let streams = SeedStreams::new(common.seed).family("replicate", k);
        let batch = inputs.batch_inputs(
            kinds,
            inputs.nodes,
            weeks,
            streams.family("batch", 0).root(),
        )?;
        let span = batch.first().map_or(WEEK, |b| b.span);
        let od = inputs.on_demand(span, streams.family("on-demand", 0).root())?;
        let history = if synthetic_leases {
            let weeks = Duration(WEEK.0 * HISTORY_WEEKS);
            let earlier = inputs.on_demand(weeks, streams.family("history", 0).root())?;
            earlier
                .base
                .into_iter()
                .map(|r| LeaseRequest {
                    submit: Time(r.submit.0 - weeks.0),
                    ..r
                })
                .collect()
        } else {
            Vec::new()
        };
        on_demand = od.label;
        replicates.push(Replicate {
            batch,
            base: od.base,
            history,
        });
    }
    let first = &replicates[0].batch;
    Ok(Prepared {
        out,
        seed: common.seed,
        nodes: inputs.nodes,
        labels: first.iter().map(|b| b.label.clone()).collect(),
        span: first.first().map_or(WEEK, |b| b.span),
        on_demand,
        replicates,
    })
}

/// A table of `results`: one row per cell (workload, on-demand scale, offered ρ,
/// configuration) with the [`METRICS`]. With the synthetic on-demand load, scale ×k is the
/// paper's nominal ρ = 1.25 % × k.
pub fn grid_table(
    name: &str,
    title: String,
    notes: String,
    labels: &[String],
    variants: &[Variant],
    results: &[GridResult],
) -> Table {
    let mut headers = vec!["workload", "OD scale", "rho (%)", "configuration"];
    headers.extend(METRICS.iter().map(|m| m.label));
    let mut table = Table::new(name, title, headers).with_notes(notes);
    for r in results {
        let mut row = vec![
            Cell::Text(labels[r.cell.workload].clone()),
            Cell::Text(format!("x{}", r.cell.scale)),
            Cell::fixed(100.0 * r.rho, 2),
            Cell::Text(variants[r.cell.variant].label.clone()),
        ];
        row.extend(METRICS.iter().map(|m| Cell::fixed(r.mean(m), m.decimals)));
        table.row(row);
    }
    table
}

/// Which curves a figure draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Curves {
    /// One curve per batch workload, of one variant's cells (all cells if `None`).
    PerWorkload {
        /// The variant, if only one.
        variant: Option<usize>,
    },
    /// One curve per variant, of one workload's cells.
    PerVariant {
        /// The workload.
        workload: usize,
    },
}

/// What a figure's plots show: `<prefix>_<metric file>.svg` headed `<title>: <metric>`, the
/// `curves` against `x`.
pub struct Plots<'a> {
    /// File-name prefix, e.g. `fig2`.
    pub prefix: &'a str,
    /// Title, before the metric's name.
    pub title: &'a str,
    /// The curves.
    pub curves: Curves,
    /// The x axis's label.
    pub x_label: &'a str,
    /// The x value of a cell.
    pub x: &'a dyn Fn(&GridResult) -> f64,
}

/// Writes one line plot per metric of `results` as `plots` says.
///
/// # Errors
/// A plot that cannot be drawn or written.
pub fn write_curves(
    out: &OutDir,
    plots: &Plots<'_>,
    metrics: &[Metric],
    labels: &[String],
    variants: &[Variant],
    results: &[GridResult],
) -> crate::Result<()> {
    let Plots {
        prefix,
        title,
        curves,
        x_label,
        x,
    } = *plots;
    for m in metrics {
        let series = match curves {
            Curves::PerWorkload { variant } => series_by(
                results,
                |r| {
                    variant
                        .is_none_or(|v| r.cell.variant == v)
                        .then_some(r.cell.workload)
                },
                |&w| labels[w].clone(),
                x,
                |r| r.mean(m),
            ),
            Curves::PerVariant { workload } => series_by(
                results,
                |r| (r.cell.workload == workload).then_some(r.cell.variant),
                |&v| variants[v].label.clone(),
                x,
                |r| r.mean(m),
            ),
        };
        let plot = series.into_iter().fold(
            LinePlot::new(
                format!("{prefix}_{}", m.file),
                format!("{title}: {}", m.label),
            )
            .x_label(x_label)
            .y_label(m.label),
            |plot, (name, points)| plot.series(name, points),
        );
        out.write_plot(&plot)?;
    }
    Ok(())
}

/// The offered on-demand load of a cell, in percent: the figures' usual x axis.
pub fn rho_percent(r: &GridResult) -> f64 {
    100.0 * r.rho
}

/// The command line of a figure without options of its own.
#[derive(Debug, Clone, Parser)]
pub struct FigureCli {
    /// `--quick`, `--out`, `--seed`.
    #[command(flatten)]
    pub common: CommonArgs,
    /// The inputs.
    #[command(flatten)]
    pub inputs: BalancerArgs,
    /// Seeds averaged (replicates of every synthetic input) [default: 3, quick: 1].
    #[arg(long, value_name = "N")]
    pub seeds: Option<u32>,
}

impl FigureCli {
    /// Parses the process's arguments, `about` describing the figure in `--help`.
    pub fn parse_about(about: &'static str) -> FigureCli {
        let matches = FigureCli::command().about(about).get_matches();
        FigureCli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    }
}
