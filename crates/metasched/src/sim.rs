//! The grid simulator: the paper's experimental setup (§4.1) — sites that are EASY-backfilling
//! batch systems, grid jobs arriving at their submission sites, and a metascheduler invoked
//! in scheduling cycles — driving any policy of the grid protocol ([`GridPolicy`]:
//! [`cosched_core::policy::Policy`] over [`GridObservation`] and [`GridCommand`], built-in or
//! a caller's own) through core's [`Driver`]. It is the environment only: it runs on core's
//! kernel ([`cosched_core::engine`]) and draws every random number from named streams
//! ([`SeedStreams`]), so every policy of a comparison sees the same environment.
//!
//! ## What happens, in order
//! - Each site is a [`BatchCluster`] of its cores under EASY backfilling (§4.1), or any batch
//!   policy ([`GridSim::with_batch_scheduler`], a fresh one per site and run).
//! - The trace is admitted by [`cosched_workload::admit`]: a repeated id is an error, a job
//!   with no core, an estimate of 0 or a negative run time is counted in
//!   [`SimOutcome::invalid`] and left out, and the jobs go in (submit, id) order.
//! - The first [`SimConfig::history`] jobs are the paper's *history*: they run at their
//!   submission site (and train the wait predictors), and are not measured. Each later job
//!   goes through the metascheduler with probability [`SimConfig::participation`] (a draw of
//!   the stream `"participation"`, one per job: §5.7.2's Bernoulli trial); the others run at
//!   their submission site at once (the BS baseline is participation 0).
//! - **Scheduling cycles as the paper's published code**: a job routed to the metascheduler
//!   enters its *holding layer*; when it enters an empty holding layer, a cycle is due one
//!   [`SimConfig::cycle_interval`] later (60 s, the code's `SchedulingCycleLength`), and cycles
//!   follow every interval while jobs wait. The time a job spends in the holding layer is its
//!   [`JobOutcome::holding`], reported apart from the response time.
//! - At a cycle the pending grid jobs, in arrival order and with their own ids, go to the
//!   policy ([`GridObservation::Cycle`]) with a [`GridView`] of the sites; placed jobs are sent
//!   to their site with their runtime and estimate scaled by the per-core performance ratio
//!   (§4.5.2); deferred jobs (over `MaxQ`) stay pending; jobs no site can run are rejected and
//!   counted. The simulator checks every command.
//! - Every job that starts at a site, history included, is reported to the policy
//!   ([`GridObservation::JobStarted`], with its wait features at submission and its wait), so
//!   a policy's learned wait model is warmed by the history before the measured jobs arrive.
//! - The policy's timer ([`next_wake`](cosched_core::policy::Policy::next_wake)) is honoured: it is woken at that time and its
//!   commands applied like a cycle's.
//! - **Data transfer (§5.8, Eq. 10)**, with a [`TransferModel`]: a migrated job's data moves
//!   from its submission site while it queues at the execution site, so it starts at the later
//!   of its queue start and its data's arrival; its cores are held meanwhile (just-in-time
//!   staging). The policy predicts `max(queue wait, transfer)`.
//! - **Power (§4.5.1, §5.8 Table 8)**: a job draws `power_factor ×` HPL's power per core at
//!   the site where it runs; [`PowerModel`] draws the factor per job (stream `"power"`).
//! - At each instant: completions, then arrivals, then the cycle (if due),
//!   then an EASY pass at every site that changed.
//! - A job's electricity cost is the real one: its power at the site where it ran, integrated
//!   over its actual run with that site's hourly prices ([`Site::energy_cost_usd`]); a run past
//!   the published prices is an error ([`SimError::Price`]), never priced by wrapping around.
//!
//! ## What the policy may read ([`GridView`])
//! The sites, each site's wait features now (for learned predictors), its what-if wait
//! ([`BatchCluster::predicted_start`]), a migrated job's transfer time, and
//! [`SimConfig::wait_perturbation`]'s injected error (Table 5): one uniform draw in `[−T, T]`
//! per job, the same at every site (§5.3: "we perturb our predicted waiting time for each job
//! by adding a random value"; stream family `"wait-perturbation"`). Every answer is the platform as the
//! call finds it: a cycle's placements reach the sites once the call returns, so a what-if
//! within the cycle does not count them (see [`GridView`]).
//!
//! ```
//! use cosched_metasched::policy::{Mcmf, PriceModel};
//! use cosched_metasched::price_forecast::PriceForecastConfig;
//! use cosched_metasched::sim::{GridSim, SimConfig};
//! use cosched_metasched::workload::{DiurnalPrices, XsedeLikeWorkload, embedded_xsede_sites};
//!
//! let prices = |f: &str| Ok(DiurnalPrices::month(1).series(f).unwrap());
//! let sites = embedded_xsede_sites(prices).unwrap();
//! let jobs = XsedeLikeWorkload { jobs: 60, load: 0.7, seed: 1 }.generate(&sites).unwrap();
//! // The paper's metascheduler: forecast prices beyond the published day, learned waits.
//! let prices = PriceModel::forecast(&sites, PriceForecastConfig::default()).unwrap();
//! let mut policy = Mcmf::new(sites.clone(), 2, 0.25, prices).unwrap();
//! let config = SimConfig { history: 40, ..SimConfig::default() };
//! let out = GridSim::new(sites, config).unwrap().run(&mut policy, &jobs).unwrap();
//! assert_eq!(out.jobs.len(), jobs.len());
//! assert!(out.jobs.iter().all(|j| j.run.is_some()));
//! ```

pub use crate::policy::GridPolicy;
use crate::policy::{GridCommand, GridJob, GridObservation, GridView, scale_duration};
use crate::site::{PriceBeyondSeries, Site};
use crate::wait::WaitFeatures;
use crate::workload::TraceJob;
use cosched_batch::scenario::BatchScheduler;
use cosched_batch::{
    BatchCluster, BatchError, BatchJob, BatchPolicy, ClusterPass, RunToken, SchedulingPass,
    Started, Submitted,
};
use cosched_core::driver::{CallError, Driver, Executor};
use cosched_core::engine::{EngineError, Simulation, run};
use cosched_core::{
    Duration, Event, EventQueue, JobClass, JobId, JobRecord, ParamError, SeedStreams, Time,
    TimeOverflow,
};
use cosched_workload::admit::{Admissible, admit};
use rand::RngExt;
use std::collections::{HashMap, HashSet};
use thiserror::Error;

/// Why a simulation could not run; `E` is the policy's error.
#[derive(Debug, Error)]
pub enum SimError<E = crate::policy::PolicyError> {
    /// A configuration parameter is out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// Two trace jobs with one id.
    #[error(transparent)]
    DuplicateJob(#[from] cosched_workload::admit::DuplicateJobId),
    /// A trace job is unusable.
    #[error("job {job}: {message}")]
    Job {
        /// The job.
        job: JobId,
        /// What is wrong.
        message: String,
    },
    /// The policy returned an impossible command.
    #[error("at {now}: the policy {message}")]
    Assignment {
        /// When.
        now: Time,
        /// What it did.
        message: String,
    },
    /// The policy failed (or never quieted): the call, its time and its error.
    #[error(transparent)]
    Policy(#[from] CallError<E>),
    /// A site's batch system (or its batch policy) refused an operation.
    #[error(transparent)]
    Batch(#[from] BatchError),
    /// A run needs a price the series does not hold (no wrap-around: append the prices).
    #[error(transparent)]
    Price(#[from] PriceBeyondSeries),
    /// An event fell past the end of representable time (or before the clock).
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl<E> From<TimeOverflow> for SimError<E> {
    fn from(e: TimeOverflow) -> SimError<E> {
        SimError::Engine(e.into())
    }
}

impl<E> From<cosched_batch::SimError<BatchError>> for SimError<E> {
    fn from(e: cosched_batch::SimError<BatchError>) -> Self {
        SimError::Batch(e.into())
    }
}

/// A trace job is valid with at least one core, an estimate above 0 and a run time of 0 or
/// more (its submission site is checked against the sites by the simulator).
impl Admissible for TraceJob {
    fn id(&self) -> JobId {
        self.id
    }
    fn submit(&self) -> Time {
        self.submit
    }
    fn is_valid(&self) -> bool {
        self.cores > 0 && self.estimate > Duration::ZERO && self.runtime >= Duration::ZERO
    }
}

/// The data sizes of §5.8: each job's input is one of these, drawn uniformly (stream
/// `"data-size"`), in bytes: 0, 1 KB, 1 MB, 10 MB, 100 MB, 500 MB, 1 GB, 10 GB, 100 GB,
/// 500 GB, 1 TB and 10 TB (decimal units).
pub const PAPER_DATA_SIZES_BYTES: [u64; 12] = [
    0,
    1_000,
    1_000_000,
    10_000_000,
    100_000_000,
    500_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
    500_000_000_000,
    1_000_000_000_000,
    10_000_000_000_000,
];

/// How much data a migrated job moves (§5.8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DataSize {
    /// One of [`PAPER_DATA_SIZES_BYTES`] per job, uniformly (the paper's first experiment).
    PaperMix,
    /// The same size for every job (the paper's Table 8 uses 1 TB).
    Fixed {
        /// Bytes.
        bytes: u64,
    },
}

/// Data-transfer time of a job sent away from its submission site (§5.8, Eq. 10):
/// `latency + bytes / bandwidth`, overlapped with the job's queue wait at the execution site.
///
/// The paper takes latency and GridFTP bandwidth per XSEDE link from its refs. [48, 49], which
/// are not in our data; one latency and bandwidth for every link is our simplification.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransferModel {
    /// Fixed time per transfer.
    pub latency: Duration,
    /// Sustained bandwidth of a link, bytes per second (> 0).
    pub bandwidth_bytes_per_s: f64,
    /// The data each job moves.
    pub data: DataSize,
}

impl TransferModel {
    /// The transfer time of `bytes` bytes.
    ///
    /// # Errors
    /// [`ParamError`] if the time does not fit in a [`Duration`].
    pub fn time(&self, bytes: u64) -> Result<Duration, ParamError> {
        let secs = (bytes as f64 / self.bandwidth_bytes_per_s).ceil();
        let too_long = || ParamError::new("transfer", format!("{bytes} B"), "takes too long");
        if !(secs.is_finite() && secs < i64::MAX as f64) {
            return Err(too_long());
        }
        self.latency
            .checked_add(Duration(secs as i64))
            .ok_or_else(too_long)
    }
}

/// Job power relative to HPL's (§5.8, Table 8): the factor `1 + u`, `u` uniform in
/// `[low, high]`, drawn per job from the stream `"power"`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PowerModel {
    /// Every job draws HPL's power (§4.5.1; the paper's main experiments).
    Hpl,
    /// `u` in `[low, high]`: the paper's lower-than-HPL (−0.4, 0), average-HPL (−0.4, 0.4) and
    /// higher-than-HPL (0, 0.4) models.
    Uniform {
        /// Lowest relative deviation (>= −1).
        low: f64,
        /// Highest relative deviation (>= `low`).
        high: f64,
    },
}

impl PowerModel {
    /// Table 8's lower-than-HPL-power model.
    pub const LOWER: PowerModel = PowerModel::Uniform {
        low: -0.4,
        high: 0.0,
    };
    /// Table 8's average-HPL-power model.
    pub const AVERAGE: PowerModel = PowerModel::Uniform {
        low: -0.4,
        high: 0.4,
    };
    /// Table 8's higher-than-HPL-power model.
    pub const HIGHER: PowerModel = PowerModel::Uniform {
        low: 0.0,
        high: 0.4,
    };
}

/// The simulation's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimConfig {
    /// The scheduling cycle length (> 0): a cycle is due this long after a job enters an empty
    /// holding layer, then every interval while jobs wait.
    pub cycle_interval: Duration,
    /// Probability that a measured job goes through the metascheduler, in `[0, 1]`.
    pub participation: f64,
    /// Leading jobs (in submit order) that run at their submission site unmeasured.
    pub history: usize,
    /// Data-transfer time of migrated jobs, if any.
    pub transfer: Option<TransferModel>,
    /// Table 5's perturbation threshold `T`: each job's predicted waits plus one uniform draw
    /// in `[−T, T]` per job (§5.3), the same at every site; `None` for none.
    pub wait_perturbation: Option<Duration>,
    /// The jobs' power relative to HPL's.
    pub power: PowerModel,
    /// Root seed of the run's named random streams.
    pub seed: u64,
}

impl Default for SimConfig {
    /// 60-second cycles (the paper's published code), full participation, no history, no
    /// transfer time, no perturbation, HPL power, seed 1.
    fn default() -> SimConfig {
        SimConfig {
            cycle_interval: Duration(60),
            participation: 1.0,
            history: 0,
            transfer: None,
            wait_perturbation: None,
            power: PowerModel::Hpl,
            seed: 1,
        }
    }
}

impl SimConfig {
    fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(
            self.cycle_interval.secs() > 0,
            "cycle_interval",
            self.cycle_interval.secs(),
            "must be > 0 s",
        )?;
        ParamError::check(
            (0.0..=1.0).contains(&self.participation),
            "participation",
            self.participation,
            "must be in [0, 1]",
        )?;
        if let Some(t) = self.transfer {
            ParamError::check(
                t.latency.secs() >= 0
                    && t.bandwidth_bytes_per_s.is_finite()
                    && t.bandwidth_bytes_per_s > 0.0,
                "transfer",
                format!("{t:?}"),
                "latency must be >= 0 and bandwidth finite and > 0",
            )?;
        }
        if let Some(t) = self.wait_perturbation {
            ParamError::check(
                t.secs() >= 0,
                "wait_perturbation",
                t.secs(),
                "must be >= 0 s",
            )?;
        }
        if let PowerModel::Uniform { low, high } = self.power {
            ParamError::check(
                low.is_finite() && high.is_finite() && -1.0 <= low && low <= high,
                "power",
                format!("[{low}, {high}]"),
                "needs -1 <= low <= high, both finite",
            )?;
        }
        Ok(())
    }

    fn streams(&self) -> SeedStreams {
        SeedStreams::new(self.seed)
    }

    /// Whether trace job `index` (measured) goes through the metascheduler.
    fn participates(&self, index: usize) -> bool {
        match self.participation {
            p if p >= 1.0 => true,
            p if p <= 0.0 => false,
            p => self
                .streams()
                .stream("participation", index as u64)
                .random_bool(p),
        }
    }

    /// The power factor of trace job `index`.
    fn power_factor(&self, index: usize) -> f64 {
        match self.power {
            PowerModel::Hpl => 1.0,
            PowerModel::Uniform { low, high } if low < high => {
                let mut rng = self.streams().stream("power", index as u64);
                1.0 + rng.random_range(low..=high)
            }
            PowerModel::Uniform { low, .. } => 1.0 + low,
        }
    }

    /// The bytes trace job `index` moves when migrated.
    fn data_bytes(&self, index: usize) -> u64 {
        match self.transfer.map(|t| t.data) {
            None | Some(DataSize::Fixed { bytes: 0 }) => 0,
            Some(DataSize::Fixed { bytes }) => bytes,
            Some(DataSize::PaperMix) => {
                let mut rng = self.streams().stream("data-size", index as u64);
                let k = rng.random_range(0..PAPER_DATA_SIZES_BYTES.len());
                PAPER_DATA_SIZES_BYTES.get(k).copied().unwrap_or(0)
            }
        }
    }

    /// Table 5's additive error of trace job `index`'s predicted waits: one draw per job,
    /// the same at every site (§5.3).
    fn perturbation(&self, index: usize) -> Duration {
        match self.wait_perturbation {
            Some(t) if t.secs() > 0 => {
                let mut rng = self
                    .streams()
                    .family("wait-perturbation", index as u64)
                    .stream("job", 0);
                Duration(rng.random_range(-t.secs()..=t.secs()))
            }
            _ => Duration::ZERO,
        }
    }
}

/// Where and when a job ran.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    /// The site (index in the policy's site list).
    pub site: usize,
    /// When it left the metascheduler (for jobs at their submission site: their submit time).
    pub dispatched: Time,
    /// When it entered the site's queue.
    pub site_submit: Time,
    /// When its data had arrived (= `dispatched` without a transfer).
    pub data_ready: Time,
    /// Start of its run.
    pub start: Time,
    /// End of its run.
    pub end: Time,
    /// Electricity cost of the run, $.
    pub cost_usd: f64,
    /// The wait the policy predicted at this site when it placed the job (metascheduled jobs
    /// only), including Table 5's perturbation, floored at 0.
    pub predicted_wait: Option<Duration>,
}

/// One trace job's fate.
#[derive(Clone, Debug, PartialEq)]
pub struct JobOutcome {
    /// The trace job.
    pub job: TraceJob,
    /// Whether it is measured (not history).
    pub measured: bool,
    /// Whether it went through the metascheduler.
    pub via_metascheduler: bool,
    /// Its power relative to HPL's.
    pub power_factor: f64,
    /// Bytes it moves when migrated.
    pub data_bytes: u64,
    /// Its run; `None` if no site could run it (rejected).
    pub run: Option<Run>,
}

impl JobOutcome {
    /// Response time: end of the run minus submission to the grid (holding time included).
    pub fn response(&self) -> Option<Duration> {
        self.run.map(|r| r.end - self.job.submit)
    }

    /// Time in the metascheduler's holding layer: dispatch minus submission.
    pub fn holding(&self) -> Option<Duration> {
        self.run.map(|r| r.dispatched - self.job.submit)
    }

    /// Actual queue wait at the site where it ran: start minus entering its queue.
    pub fn site_wait(&self) -> Option<Duration> {
        self.run.map(|r| r.start - r.site_submit)
    }

    /// The job as a `cosched-core` [`JobRecord`], for the workspace's shared metrics:
    /// submitted at its grid submission, started and ended with its run, its run time the
    /// one at the site where it ran (the trace's when it did not run).
    pub fn record(&self) -> JobRecord {
        JobRecord {
            id: self.job.id,
            class: JobClass::Rigid,
            submit: self.job.submit,
            start: self.run.map(|r| r.start),
            end: self.run.map(|r| r.end),
            size: self.job.cores,
            runtime: self.run.map_or(self.job.runtime, |r| r.end - r.start),
        }
    }
}

/// Instantaneous load of every site at one instant: core-hours of the running
/// (remaining, by estimate) and queued jobs over the site's cores (§4.6), in hours.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadSample {
    /// The instant.
    pub time: Time,
    /// Per site, in site order.
    pub load: Vec<f64>,
}

/// What a simulation produced.
#[derive(Clone, Debug, PartialEq)]
pub struct SimOutcome {
    /// One entry per admitted trace job, in (submit, id) order.
    pub jobs: Vec<JobOutcome>,
    /// Trace jobs left out as invalid (no core, an estimate of 0, a negative run time).
    pub invalid: usize,
    /// Site loads at the first event of every hour that has one (Fig. 7's hourly load; bounded
    /// by the work, not by the simulated span).
    pub load: Vec<LoadSample>,
    /// The times of the scheduling cycles (a cycle with an empty holding layer is skipped).
    pub cycles: Vec<Time>,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Completion(usize, RunToken),
    Arrival(usize),
    Cycle,
    Wake,
    /// A site's batch policy's wake time: the instant's pass at the site delivers it.
    BatchWake(usize),
}

impl Event for Ev {
    fn class(&self) -> u8 {
        match self {
            Ev::Completion(..) => 0,
            Ev::Arrival(_) => 1,
            Ev::Cycle => 2,
            Ev::Wake => 3,
            Ev::BatchWake(_) => 4,
        }
    }
}

/// Per-site simulation state.
struct SiteState {
    cluster: BatchCluster,
    batch: Driver<Box<dyn BatchPolicy + Send>>,
    /// Running jobs: count, Σ start (s), Σ estimate (s), for [`WaitFeatures`].
    running: (i64, i64, i64),
    touched: bool,
}

impl SiteState {
    /// The queue and machine part of a job's wait features at `now` (as
    /// [`WaitFeatures::at_site`], from running sums).
    fn features(&self, now: Time) -> WaitFeatures {
        let queued = self
            .cluster
            .queue()
            .map(|q| (q.size(), q.estimate(), q.job.submit));
        let (count, sum_start, sum_estimate) = self.running;
        WaitFeatures {
            busy_cores: f64::from(self.cluster.busy_units()),
            running_elapsed: (count as f64) * now.secs() as f64 - sum_start as f64,
            running_estimate: sum_estimate as f64,
            cores: 0.0,
            estimate: 0.0,
            ..WaitFeatures::at_site(0, Duration::ZERO, now, queued, [])
        }
    }

    /// §4.6's instantaneous load: core-hours of the queued jobs (by estimate) and of the
    /// running ones (busy cores × their mean remaining estimate) over the cores.
    fn load(&self, now: Time) -> f64 {
        let queued: f64 = self
            .cluster
            .queue()
            .map(|q| f64::from(q.size()) * q.estimate().secs() as f64)
            .sum();
        let (count, sum_start, sum_estimate) = self.running;
        let remaining =
            (sum_estimate as f64 - (count as f64 * now.secs() as f64 - sum_start as f64)).max(0.0);
        let busy = if count > 0 {
            f64::from(self.cluster.busy_units()) * remaining / count as f64
        } else {
            0.0
        };
        (queued + busy) / 3600.0 / f64::from(self.cluster.capacity())
    }
}

/// Per-job simulation state (index = trace position = the batch-level job id).
#[derive(Clone, Copy)]
struct JobState {
    estimate: Duration,
    runtime: Duration,
    features: Option<WaitFeatures>,
}

/// The platform as the policy may read it: the sites as they are at `now`. It owns its data
/// (a [`GridView`] is lent as `&dyn GridView`, which must not borrow).
struct Platform {
    now: Time,
    sites: Vec<Site>,
    states: Vec<SiteState>,
    config: SimConfig,
    /// Trace position of each job id.
    index: HashMap<JobId, usize>,
    /// Per trace job: its submission site and the bytes it moves when migrated.
    homes: Vec<(usize, u64)>,
}

impl GridView for Platform {
    fn sites(&self) -> &[Site] {
        &self.sites
    }

    fn site_features(&self, site: usize) -> Option<WaitFeatures> {
        self.states.get(site).map(|s| s.features(self.now))
    }

    fn what_if_wait(&self, site: usize, cores: u32, estimate: Duration) -> Option<Duration> {
        let start = self
            .states
            .get(site)?
            .cluster
            .predicted_start(self.now, cores, estimate)?;
        Some(start - self.now)
    }

    fn transfer(&self, job: JobId, site: usize) -> Duration {
        let Some(&i) = self.index.get(&job) else {
            return Duration::ZERO;
        };
        match (self.config.transfer, self.homes.get(i)) {
            (Some(model), Some(&(home, bytes))) if site != home => {
                model.time(bytes).unwrap_or(Duration(i64::MAX))
            }
            _ => Duration::ZERO,
        }
    }

    fn wait_error(&self, job: JobId, _site: usize) -> Duration {
        self.index
            .get(&job)
            .map_or(Duration::ZERO, |&i| self.config.perturbation(i))
    }
}

/// The grid simulator: the sites and the settings, then [`GridSim::run`] with a policy and a
/// trace (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct GridSim {
    sites: Vec<Site>,
    config: SimConfig,
    batch: BatchScheduler,
}

impl GridSim {
    /// The grid of `sites` (the policy's site indexes are positions in it) under `config`.
    ///
    /// # Errors
    /// [`ParamError`] for a configuration out of range.
    pub fn new(sites: Vec<Site>, config: SimConfig) -> Result<GridSim, ParamError> {
        config.validate()?;
        Ok(GridSim {
            sites,
            config,
            batch: BatchScheduler::default(),
        })
    }

    /// Schedules every site's batch system with `scheduler` (a fresh policy per site and
    /// run) instead of EASY.
    pub fn with_batch_scheduler(mut self, scheduler: impl Into<BatchScheduler>) -> GridSim {
        self.batch = scheduler.into();
        self
    }

    /// The sites.
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// The settings.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Runs `jobs` (any order; ids unique) under `policy` (generic, boxed or borrowed:
    /// `&mut dyn GridPolicy<Error = E>` works too). The policy is started at the first
    /// submission with the sites as they are then (empty).
    ///
    /// # Errors
    /// [`SimError`] for a job with a duplicate id or an unknown submission site, a time past
    /// the representable range, a policy error or an impossible command from the policy.
    pub fn run<P>(
        &self,
        policy: &mut P,
        jobs: &[TraceJob],
    ) -> Result<SimOutcome, SimError<P::Error>>
    where
        P: GridPolicy + ?Sized,
    {
        let admitted = admit(jobs)?;
        let trace = admitted.jobs;
        if let Some(job) = trace.iter().find(|j| j.submission_site >= self.sites.len()) {
            return Err(SimError::Job {
                job: job.id,
                message: "unknown submission site".into(),
            });
        }
        let mut sim = Sim {
            grid: Grid::new(&self.sites, &trace, &self.config, &self.batch)?,
            driver: Driver::new(policy),
        };
        let start = trace.first().map_or(Time::ZERO, |j| j.submit);
        let mut queue = EventQueue::new(start);
        for state in &mut sim.grid.platform.states {
            let mut pass = ClusterPass {
                cluster: &mut state.cluster,
                started: &mut sim.grid.started,
            };
            state.batch.start(start, &mut pass, &mut ())?;
        }
        sim.driver.start(start, &mut sim.grid, &mut ())?;
        sim.driver.arm(start, &mut queue, Ev::Wake)?;
        for (i, job) in trace.iter().enumerate() {
            queue
                .schedule(job.submit, Ev::Arrival(i))
                .map_err(EngineError::from)?;
        }
        run(&mut sim, &mut queue)?;
        Ok(SimOutcome {
            jobs: sim.grid.out,
            invalid: admitted.invalid,
            load: sim.grid.load,
            cycles: sim.grid.cycle_times,
        })
    }
}

/// A run: the environment and the driver of its policy.
struct Sim<'a, P: GridPolicy + ?Sized> {
    grid: Grid<'a>,
    driver: Driver<&'a mut P>,
}

/// The environment of one run: the platform the policy reads, the trace, the holding layer
/// and what the run measures.
struct Grid<'a> {
    trace: &'a [TraceJob],
    config: &'a SimConfig,
    platform: Platform,
    jobs: Vec<JobState>,
    out: Vec<JobOutcome>,
    /// The holding layer, in arrival order.
    pending: Vec<usize>,
    /// Whether a cycle is scheduled.
    cycle_due: bool,
    /// Whether the current instant runs a cycle.
    cycle_now: bool,
    started: Vec<Started>,
    load: Vec<LoadSample>,
    load_hour: Option<i64>,
    cycle_times: Vec<Time>,
    /// Starts of the current instant not yet reported to the policy: (trace job, site, wait).
    unreported: Vec<(usize, usize, Duration)>,
}

impl<P: GridPolicy + ?Sized> Simulation for Sim<'_, P> {
    type Event = Ev;
    type Error = SimError<P::Error>;

    fn handle(
        &mut self,
        now: Time,
        event: Ev,
        queue: &mut EventQueue<Ev>,
    ) -> Result<(), Self::Error> {
        let grid = &mut self.grid;
        match event {
            Ev::Completion(site, token) => grid.complete(site, now, token)?,
            Ev::Arrival(i) => grid.arrive(i, now, queue)?,
            Ev::Cycle => grid.cycle_now = true,
            Ev::Wake => {
                self.driver.wake_due(now, grid, &mut ())?;
            }
            // The site's pass at this instant delivers it.
            Ev::BatchWake(site) => {
                if let Some(state) = grid.platform.states.get_mut(site) {
                    state.touched = true;
                }
            }
        }
        self.driver.arm(now, queue, Ev::Wake)?;
        Ok(())
    }

    fn settle(&mut self, now: Time, queue: &mut EventQueue<Ev>) -> Result<(), Self::Error> {
        let grid = &mut self.grid;
        if std::mem::take(&mut grid.cycle_now) {
            grid.cycle_due = false;
            grid.cycle_times.push(now);
            if !grid.pending.is_empty() {
                let jobs: Vec<GridJob> = grid
                    .pending
                    .iter()
                    .map(|&i| {
                        let t = &grid.trace[i];
                        GridJob::new(t.id, t.submission_site, t.cores, t.estimate)?
                            .with_power_factor(grid.out[i].power_factor)
                    })
                    .collect::<Result<_, _>>()?;
                let before = grid.pending.len();
                self.driver
                    .observe(now, &GridObservation::Cycle { jobs }, grid, &mut ())?;
                self.driver.arm(now, queue, Ev::Wake)?;
                if grid.pending.len() == before && queue.is_empty() {
                    return Err(SimError::Assignment {
                        now,
                        message: format!(
                            "defers all {before} pending jobs while nothing else is left to happen"
                        ),
                    });
                }
            }
            if !grid.pending.is_empty() {
                grid.schedule_cycle(now, queue)?;
            }
        }
        // Batch passes; the starts they make are reported to the policy, whose commands may
        // send more jobs (and need another pass).
        loop {
            grid.passes(now, queue)?;
            if grid.unreported.is_empty() {
                break;
            }
            for (i, site, wait) in std::mem::take(&mut grid.unreported) {
                let Some(features) = grid.jobs[i].features else {
                    continue;
                };
                let obs = GridObservation::JobStarted {
                    job: grid.trace[i].id,
                    site,
                    features,
                    wait,
                };
                self.driver.observe(now, &obs, grid, &mut ())?;
                self.driver.arm(now, queue, Ev::Wake)?;
            }
        }
        // Fig. 7's hourly load: the first instant of each hour that has any event (bounded by
        // the events, never by the simulated span).
        let hour = now.secs().div_euclid(3_600);
        if grid.load_hour != Some(hour) {
            grid.load_hour = Some(hour);
            grid.load.push(LoadSample {
                time: now,
                load: grid.platform.states.iter().map(|s| s.load(now)).collect(),
            });
        }
        Ok(())
    }
}

/// The grid as the executor of the protocol: placements of pending jobs at compatible sites
/// and rejections of pending jobs; anything else is an error.
impl<'p, P: GridPolicy + ?Sized> Executor<&'p mut P> for Grid<'_> {
    type Context = ();
    type Error = SimError<P::Error>;

    fn view(&mut self, now: Time) -> &(dyn GridView + 'static) {
        self.platform.now = now;
        &self.platform
    }

    fn apply(
        &mut self,
        _: &mut Driver<&'p mut P>,
        _: &mut (),
        now: Time,
        commands: &[GridCommand],
    ) -> Result<(), Self::Error> {
        let bad = |message: String| SimError::Assignment { now, message };
        if commands.is_empty() {
            return Ok(());
        }
        let pending: HashSet<usize> = self.pending.iter().copied().collect();
        let mut decided = HashSet::new();
        for command in commands {
            let job = match *command {
                GridCommand::Place { job, .. } | GridCommand::Unassignable { job } => job,
            };
            let i = self
                .platform
                .index
                .get(&job)
                .copied()
                .filter(|i| pending.contains(i) && decided.insert(*i))
                .ok_or_else(|| bad(format!("decided job {job} that is not pending (or twice)")))?;
            if let GridCommand::Place {
                site,
                predicted_wait,
                ..
            } = *command
            {
                let sites = &self.platform.sites;
                let t = &self.trace[i];
                let fits = sites.get(site).is_some_and(|s| {
                    s.accepts(
                        t.cores,
                        scale_duration(t.estimate, &sites[t.submission_site], s),
                    )
                });
                if !fits {
                    return Err(bad(format!("placed job {job} on incompatible site {site}")));
                }
                self.send(i, site, now, predicted_wait)?;
            }
        }
        self.pending.retain(|i| !decided.contains(i));
        Ok(())
    }
}

impl<'a> Grid<'a> {
    fn new<E>(
        sites: &[Site],
        trace: &'a [TraceJob],
        config: &'a SimConfig,
        batch: &BatchScheduler,
    ) -> Result<Grid<'a>, SimError<E>> {
        let states = sites
            .iter()
            .map(|s| {
                Ok(SiteState {
                    // Counted units: the same schedules without a per-core map, so memory
                    // follows the jobs, not a site table's core count.
                    cluster: BatchCluster::counted(s.spec().cores)?,
                    batch: Driver::new(batch.make()),
                    running: (0, 0, 0),
                    touched: false,
                })
            })
            .collect::<Result<_, BatchError>>()?;
        let out = trace
            .iter()
            .enumerate()
            .map(|(i, &job)| {
                let measured = i >= config.history;
                JobOutcome {
                    job,
                    measured,
                    via_metascheduler: measured && config.participates(i),
                    power_factor: config.power_factor(i),
                    data_bytes: config.data_bytes(i),
                    run: None,
                }
            })
            .collect();
        let platform = Platform {
            now: Time::ZERO,
            sites: sites.to_vec(),
            states,
            config: *config,
            index: trace.iter().enumerate().map(|(i, t)| (t.id, i)).collect(),
            homes: trace
                .iter()
                .zip(&out)
                .map(|(t, o): (&TraceJob, &JobOutcome)| (t.submission_site, o.data_bytes))
                .collect(),
        };
        Ok(Grid {
            trace,
            config,
            platform,
            jobs: vec![
                JobState {
                    estimate: Duration::ZERO,
                    runtime: Duration::ZERO,
                    features: None,
                };
                trace.len()
            ],
            out,
            pending: Vec::new(),
            cycle_due: false,
            cycle_now: false,
            started: Vec::new(),
            load: Vec::new(),
            load_hour: None,
            cycle_times: Vec::new(),
            unreported: Vec::new(),
        })
    }

    /// A cycle one cycle length after `now`.
    fn schedule_cycle<E>(
        &mut self,
        now: Time,
        queue: &mut EventQueue<Ev>,
    ) -> Result<(), SimError<E>> {
        queue
            .schedule(now.try_add(self.config.cycle_interval)?, Ev::Cycle)
            .map_err(EngineError::from)?;
        self.cycle_due = true;
        Ok(())
    }

    /// Job `i` arrives: into the holding layer (a cycle is due one cycle length after it
    /// enters an empty one), or to its submission site.
    fn arrive<E>(
        &mut self,
        i: usize,
        now: Time,
        queue: &mut EventQueue<Ev>,
    ) -> Result<(), SimError<E>> {
        let Some(outcome) = self.out.get(i) else {
            return Ok(());
        };
        if outcome.via_metascheduler {
            self.pending.push(i);
            if !self.cycle_due {
                self.schedule_cycle(now, queue)?;
            }
            return Ok(());
        }
        let job = self.trace[i];
        let home = job.submission_site;
        if self.platform.sites[home].accepts(job.cores, job.estimate) {
            self.send(i, home, now, None)?;
        }
        Ok(())
    }

    /// Dispatches job `i` to `site` now: it enters the site's queue at once; a migrated job's
    /// data arrives after the transfer time (Eq. 10).
    fn send<E>(
        &mut self,
        i: usize,
        site: usize,
        now: Time,
        predicted_wait: Option<Duration>,
    ) -> Result<(), SimError<E>> {
        let t = self.trace[i];
        let (from, to) = (
            &self.platform.sites[t.submission_site],
            &self.platform.sites[site],
        );
        let estimate = scale_duration(t.estimate, from, to);
        let runtime = scale_duration(t.runtime, from, to).min(estimate);
        let transfer = match self.config.transfer {
            Some(model) if site != t.submission_site => model.time(self.out[i].data_bytes)?,
            _ => Duration::ZERO,
        };
        let data_ready = now.try_add(transfer)?;
        // The site holds the job's cores for at most its estimate plus the staging time.
        let held = estimate.checked_add(transfer).ok_or(TimeOverflow {
            at: now,
            by: estimate,
        })?;
        data_ready.try_add(estimate)?;
        let state = &mut self.platform.states[site];
        self.jobs[i].features = Some(WaitFeatures {
            cores: f64::from(t.cores),
            estimate: estimate.secs() as f64,
            ..state.features(now)
        });
        self.jobs[i].estimate = estimate;
        self.jobs[i].runtime = runtime;
        // Inside the site's batch system a job is known by its trace position (the executor's
        // own bookkeeping; the policy sees the job's real id).
        let job = BatchJob {
            id: JobId(i as u64),
            submit: now,
            size: t.cores,
            runtime: held,
            estimate: held,
            class: JobClass::Rigid,
            resizable: None,
        };
        if state.cluster.submit(job)? == Submitted::Rejected {
            // Unreachable for accepted jobs (cores <= the site's cores); counted as rejected.
            return Ok(());
        }
        self.out[i].run = Some(Run {
            site,
            dispatched: now,
            site_submit: now,
            data_ready,
            start: Time::MAX,
            end: Time::MAX,
            cost_usd: 0.0,
            predicted_wait,
        });
        state.touched = true;
        Ok(())
    }

    fn complete<E>(&mut self, site: usize, now: Time, token: RunToken) -> Result<(), SimError<E>> {
        let state = &mut self.platform.states[site];
        if state.cluster.complete(now, token).is_none() {
            return Ok(());
        }
        state.touched = true;
        let i = token.job.0 as usize;
        let outcome = &mut self.out[i];
        let Some(run) = outcome.run.as_mut() else {
            return Ok(());
        };
        state.running.0 -= 1;
        state.running.1 -= run.start.secs();
        state.running.2 -= self.jobs[i].estimate.secs();
        run.end = now;
        let s = &self.platform.sites[site];
        // The job draws power from the start of its computation (after any staging).
        let compute_start = run.start.max(run.data_ready);
        run.cost_usd = s.energy_cost_usd(
            s.power_watts(outcome.job.cores) * outcome.power_factor,
            compute_start,
            now - compute_start,
        )?;
        Ok(())
    }

    /// An EASY pass at every touched site; starts are recorded and their completions (at the
    /// later of start and data arrival, plus the run time) scheduled.
    fn passes<E>(&mut self, now: Time, queue: &mut EventQueue<Ev>) -> Result<(), SimError<E>> {
        for site in 0..self.platform.states.len() {
            let state = &mut self.platform.states[site];
            if !std::mem::take(&mut state.touched) {
                continue;
            }
            let mut pass = ClusterPass {
                cluster: &mut state.cluster,
                started: &mut self.started,
            };
            state.batch.wake_due(now, &mut pass, &mut ())?;
            state
                .batch
                .observe(now, &SchedulingPass, &mut pass, &mut ())?;
            state.batch.arm(now, queue, Ev::BatchWake(site))?;
            for s in self.started.drain(..) {
                let i = s.token.job.0 as usize;
                let Some(run) = self.out.get_mut(i).and_then(|o| o.run.as_mut()) else {
                    continue;
                };
                run.start = now;
                state.running.0 += 1;
                state.running.1 += now.secs();
                state.running.2 += self.jobs[i].estimate.secs();
                self.unreported.push((i, site, now - run.site_submit));
                let end = now.max(run.data_ready).try_add(self.jobs[i].runtime)?;
                queue
                    .schedule(end, Ev::Completion(site, s.token))
                    .map_err(EngineError::from)?;
            }
        }
        Ok(())
    }
}
