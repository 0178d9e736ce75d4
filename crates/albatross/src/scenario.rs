//! The paper's experiment as ready-made parts (§V): the built-in policies as constructors,
//! the paper's reported figures, and one run of the §V experiment summarised as the paper
//! reports it. The `albatross_*` examples are scripts over these.
//!
//! - [`albatross`] builds the paper's policy for a capital, [`no_albatross`] the baseline
//!   ("without Albatross", Fig. 1), [`for_capital`] either one by the paper's convention
//!   (capital 0 is the baseline);
//! - [`PAPER`] holds Figs. 1–4 as §V states them;
//! - [`run`] runs any policy of the protocol on the pool of a [`SimConfig`] with the jobs of a
//!   [`WorkloadModel`] and returns a [`Run`].
//!
//! # Writing your own policy
//! A policy of the Albatross protocol implements [`cosched_core::policy::Policy`] with
//! [`Observation`](crate::policy::Observation), [`Command`](crate::policy::Command) and the
//! queued jobs' ads ([`WaitingJobs`](crate::policy::WaitingJobs)) as its view, and runs in
//! the simulator beside the built-in ones. This one starts a t2.micro whenever more than
//! three jobs wait and no cloud node is alive:
//!
//! ```
//! use cosched_albatross::policy::{Capital, Command, Observation, WaitingJobs};
//! use cosched_albatross::scenario;
//! use cosched_albatross::sim::SimConfig;
//! use cosched_albatross::workload::WorkloadModel;
//! use cosched_core::policy::Policy;
//! use cosched_core::{Duration, Time};
//!
//! /// Starts one t2.micro for 20 minutes when more than `depth` jobs wait and no cloud node is
//! /// alive (if the executor's cloud offers the type: the observation lists what it offers).
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct QueueDepth { depth: usize }
//!
//! impl Policy for QueueDepth {
//!     type Observation = Observation;
//!     type Command = Command;
//!     type View = WaitingJobs;
//!     type Error = std::convert::Infallible;
//!     fn observe(&mut self, _now: Time, obs: &Observation, waiting: &WaitingJobs,
//!                out: &mut Vec<Command>) -> Result<(), Self::Error> {
//!         let micro = obs.instance_types.iter().position(|t| t.name == "t2.micro");
//!         if let Some(instance) = micro
//!             && waiting.len() > self.depth
//!             && obs.cloud_nodes.is_empty()
//!         {
//!             out.push(Command::Start { instance, count: 1, lifetime: Duration::from_mins(20) });
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let mut config = SimConfig::paper();
//! config.horizon = Time(30_000);
//! let model = WorkloadModel::paper();
//! let ours = scenario::run(&config, &model, 1, &mut QueueDepth { depth: 3 })?;
//! let paper = scenario::run(&config, &model, 1, &mut scenario::albatross(Capital::new(0.25)?)?)?;
//! let baseline = scenario::run(&config, &model, 1, &mut scenario::no_albatross())?;
//! assert!(ours.completed > baseline.completed && ours.cost_usd > 0.0);
//! assert!(paper.completed > baseline.completed && baseline.cost_usd == 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::policy::{Albatross, AlbatrossConfig, AlbatrossPolicy, Capital, NoScaling};
use crate::report::{MachineKind, SimOutcome};
use crate::sim::{PoolSim, SimConfig, SimError};
use crate::workload::WorkloadModel;
use cosched_core::{Duration, ParamError, SeedStreams, Time};
use std::convert::Infallible;

/// A built-in policy chosen at run time.
pub type BoxedPolicy = Box<dyn AlbatrossPolicy<Error = Infallible> + Send>;

/// The paper's Albatross policy with capital `c` and the rest of [`AlbatrossConfig::paper`].
///
/// # Errors
/// None for the paper's configuration; the signature is [`Albatross::new`]'s.
pub fn albatross(c: Capital) -> Result<Albatross, ParamError> {
    Albatross::new(AlbatrossConfig::paper(c), Time::ZERO)
}

/// The paper's baseline: the pool without Albatross (§V, Fig. 1).
pub fn no_albatross() -> NoScaling {
    NoScaling
}

/// The paper's convention for a configured capital: capital 0 is the run "without
/// Albatross" ([`no_albatross`]), any other the Albatross policy configured by `config`.
///
/// # Errors
/// `config` out of range ([`Albatross::new`]).
pub fn for_capital(config: AlbatrossConfig) -> Result<BoxedPolicy, ParamError> {
    if config.capital == Capital::ZERO {
        Albatross::new(config, Time::ZERO)?;
        return Ok(Box::new(no_albatross()));
    }
    Ok(Box::new(Albatross::new(config, Time::ZERO)?))
}

/// One of the paper's runs (§V, Figs. 1–4): capital, progress at 100,000 s where the text
/// states it, and the job run time's mean and sd.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaperRun {
    /// The figure.
    pub figure: u8,
    /// Capital (0 = no Albatross).
    pub capital: f64,
    /// completed / dispatched at the end ("approximately 1/8th", "around 3/8ths"); NaN where
    /// the text gives none.
    pub progress: f64,
    /// Mean job run time, s.
    pub mean_s: f64,
    /// Its standard deviation, s.
    pub sd_s: f64,
}

/// Figs. 1–4 as the text of §V states them.
pub const PAPER: [PaperRun; 4] = [
    PaperRun {
        figure: 1,
        capital: 0.0,
        progress: 0.125,
        mean_s: 261.15,
        sd_s: 170.822,
    },
    PaperRun {
        figure: 2,
        capital: 0.25,
        progress: 0.375,
        mean_s: 72.21,
        sd_s: 47.63,
    },
    PaperRun {
        figure: 3,
        capital: 0.5,
        progress: f64::NAN,
        mean_s: 53.64,
        sd_s: 35.23,
    },
    PaperRun {
        figure: 4,
        capital: 0.75,
        progress: f64::NAN,
        mean_s: 34.20,
        sd_s: 20.96,
    },
];

/// One run of the §V experiment, summarised.
#[derive(Debug, Clone)]
pub struct Run {
    /// Jobs dispatched to the system (submitted) within the horizon.
    pub dispatched: usize,
    /// Jobs completed within the horizon.
    pub completed: usize,
    /// completed / dispatched at the horizon.
    pub progress_at_end: f64,
    /// completed / dispatched at 90,000 s (the last point at or before it).
    pub progress_at_90ks: f64,
    /// Mean job run time of the completed jobs, s (NaN if none).
    pub mean_s: f64,
    /// Its sample sd, s (NaN below two).
    pub sd_s: f64,
    /// Cloud bill, $.
    pub cost_usd: f64,
    /// Jobs completed on cloud nodes.
    pub completed_on_cloud: usize,
    /// When the first job completed, s (NaN if none).
    pub first_completion_s: f64,
    /// Mean time between successive completions, s (the saw-tooth's period; NaN below two).
    pub mean_gap_s: f64,
    /// Mean run time of the jobs completed on cloud nodes, s (NaN if none).
    pub mean_cloud_s: f64,
    /// Mean run time of the jobs completed on desktops, s (NaN if none).
    pub mean_desktop_s: f64,
    /// Hours cloud nodes were in the pool (joined to stopped).
    pub cloud_up_hours: f64,
    /// Cloud nodes whose t2 CPU credits ran out (the simulator then throttles them).
    pub nodes_out_of_credit: usize,
    /// The full outcome.
    pub outcome: SimOutcome,
}

/// The most jobs [`run`] generates for one run: far above the paper's 334 (one every five
/// minutes for 100,000 s), a bound on what a long horizon can make it allocate.
pub const MAX_JOBS: u64 = 10_000_000;

/// Runs `policy` on the pool of `config` with the jobs `model` draws from seed `seed` (the
/// same root seeds the owners), and summarises the run as the paper reports it.
///
/// # Errors
/// The simulator's, or the workload's parameter error.
pub fn run<P>(
    config: &SimConfig,
    model: &WorkloadModel,
    seed: u64,
    policy: &mut P,
) -> Result<Run, SimError<P::Error>>
where
    P: AlbatrossPolicy + ?Sized,
{
    let horizon = Duration(config.horizon.secs());
    let jobs = model.generate(horizon, SeedStreams::new(seed), MAX_JOBS)?;
    let mut config = config.clone();
    config.seed = seed;
    let outcome = PoolSim::new(config)?.run(policy, &jobs)?;
    let report = outcome.report();
    let stats = report.runtime;
    let mut ends: Vec<i64> = outcome
        .jobs
        .iter()
        .filter_map(|j| j.end.map(|t| t.secs()))
        .collect();
    ends.sort_unstable();
    let gaps: Vec<f64> = ends.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
    Ok(Run {
        dispatched: report.jobs_dispatched,
        completed: report.jobs_completed,
        progress_at_end: report.progress_at_end,
        progress_at_90ks: outcome
            .progress
            .iter()
            .take_while(|p| p.time.secs() <= 90_000)
            .last()
            .and_then(|p| p.progress())
            .unwrap_or(f64::NAN),
        mean_s: stats.map_or(f64::NAN, |s| s.mean_s),
        sd_s: stats.and_then(|s| s.sd_s).unwrap_or(f64::NAN),
        cost_usd: report.cost_usd,
        completed_on_cloud: report.completed_on_cloud,
        first_completion_s: ends.first().map_or(f64::NAN, |&t| t as f64),
        mean_gap_s: cosched_core::stats::mean(&gaps).unwrap_or(f64::NAN),
        mean_cloud_s: mean_runtime(&outcome, true),
        mean_desktop_s: mean_runtime(&outcome, false),
        cloud_up_hours: report.cloud_up_hours,
        nodes_out_of_credit: report.nodes_out_of_credit,
        outcome,
    })
}

/// Mean run time of the jobs completed on cloud nodes (`cloud`) or on desktops.
fn mean_runtime(outcome: &SimOutcome, cloud: bool) -> f64 {
    let xs: Vec<f64> = outcome
        .jobs
        .iter()
        .filter(|j| matches!(j.completed_on, Some(MachineKind::Cloud(_))) == cloud)
        .filter_map(|j| j.runtime().map(|d| d.secs() as f64))
        .collect();
    cosched_core::stats::mean(&xs).unwrap_or(f64::NAN)
}
