//! The metascheduler of Murali & Vadhiyar: every scheduling cycle, assign the pending grid
//! jobs to sites by a **minimum-cost maximum flow** that trades predicted response time against
//! predicted electricity cost; and the paper's baselines behind the same interface.
//!
//! Section and equation numbers of the paper are not cited here: this module was written from
//! the paper's description of its cost model, flow network, `MaxQ` and `w_t`, and the
//! headings below name those parts.
//!
//! ## The cost model (the paper's job cost: response time and electricity cost)
//! For job `j` submitted at site `s` with runtime estimate `e_j` and a compatible site `k`:
//! - scaled estimate `e_jk = ⌈e_j · gflops(s) / gflops(k)⌉` seconds;
//! - compatibility: `cores_j ≤ max_job_cores(k)` and `e_jk ≤ max_walltime(k)`;
//! - predicted response time `RT_jk = w_jk + e_jk`, with the predicted wait `w_jk` from a
//!   caller-provided [`WaitPredictor`] (negative predictions count as 0);
//! - predicted electricity cost `EC_jk` = the job's power `cores_j × watts_per_core(k)`
//!   integrated hour by hour over `[now + w_jk, now + w_jk + e_jk)` with the hourly price of
//!   the [`PriceModel`] ([`try_energy_cost_usd`]);
//! - both are min–max normalised over the cycle's candidate pairs (nadir–utopia:
//!   `(x − min) / (max − min)`, 0 when `max == min`), and the arc cost is
//!   `c_jk = round(100 · (w_t · RT'_jk + (1 − w_t) · EC'_jk))`, rounded half away from zero,
//!   an integer in `0..=100`.
//!
//! ## The flow network (the paper's MCMF formulation)
//! source → job (capacity 1, cost 0); job → each compatible site (capacity 1, cost `c_jk`);
//! site → sink (capacity `MaxQ`, cost 0). A min-cost max-flow places as many jobs as possible
//! (at most `MaxQ` per site per cycle) and, among those placements, the cheapest. A job with no
//! compatible site is reported as unassignable; a compatible job left out by `MaxQ` is deferred
//! to the next cycle — no job is lost.
//!
//! ## The protocol
//! Every policy here implements [`cosched_core::policy::Policy`] with [`GridObservation`] in
//! and [`GridCommand`] out, reading the platform through a [`GridView`]:
//! - [`GridObservation::Cycle`]: a scheduling cycle with the jobs of the holding layer; the
//!   policy answers with a [`GridCommand::Place`] or [`GridCommand::Unassignable`] per job it
//!   decides (a job it does not mention stays pending, deferred by `MaxQ`).
//! - [`GridObservation::JobStarted`]: a job started at a site after a wait; the policy's
//!   learned wait model learns from it, as the paper's metascheduler learns from its sites.
//!
//! The policy owns its wait model ([`PredictedWaits`]): the paper's learned predictor per site,
//! the site's what-if answer, or zero (INST). Its state serialises.
//!
//! ## Policies
//! - [`Mcmf`] with [`PriceModel::Forecast`] (day-ahead prices where published, the paper's
//!   seasonal ARIMA forecast beyond) and [`PredictedWaits::paper`]: the paper's
//!   metascheduler. [`PriceModel::DayAhead`] is the same with perfect price foresight; with
//!   [`PredictedWaits::Zero`] it is the INST baseline (instantaneous start).
//! - [`Mcmf`] with [`PriceModel::TwoPrice`]: the TWOPRICE baseline.
//! - [`SubmissionSite`]: BS, every job runs where it was submitted.
//!
//! [`Mcmf::assign`] is the planning step alone (a cycle's jobs and any [`WaitPredictor`] in,
//! an [`Assignment`] out), for callers with their own wait estimates.
//!
//! ```
//! use cosched_core::policy::{Call, Policy};
//! use cosched_core::{Duration, JobId, Time};
//! use cosched_metasched::policy::{GridCommand, GridJob, GridObservation, Mcmf, PredictedWaits, PriceModel};
//! use cosched_metasched::site::SiteSpec;
//!
//! let site = |name: &str, price: f64| {
//!     SiteSpec {
//!         name: name.into(),
//!         cores: 64,
//!         max_job_cores: 64,
//!         max_walltime: Duration::from_hours(24),
//!         watts_per_core: 100.0,
//!         gflops_per_core: 10.0,
//!         prices_usd_per_mwh: vec![price; 48],
//!         timezone_lag_hours: 0,
//!     }
//!     .build()
//!     .unwrap()
//! };
//! let mut policy = Mcmf::new(vec![site("cheap", 20.0), site("dear", 90.0)], 1, 0.5, PriceModel::DayAhead)
//!     .unwrap()
//!     .with_waits(PredictedWaits::Zero)
//!     .unwrap();
//! let jobs = vec![GridJob::new(JobId(7), 1, 8, Duration::from_hours(2)).unwrap()];
//! let mut out = Vec::new();
//! policy.observe(Time(0), &GridObservation::Cycle { jobs }, &(), &mut out).unwrap();
//! // Same response time, cheaper power.
//! assert_eq!(out, [GridCommand::Place { job: JobId(7), site: 0, predicted_wait: Some(Duration::ZERO) }]);
//! ```

use crate::price_forecast::{PriceForecastConfig, PriceOutlook, outlooks};
use crate::site::{PriceBeyondSeries, Site, try_energy_cost_usd};
use crate::wait::{ClusteredWaitConfig, ClusteredWaitPredictor, QueueWaitPredictor, WaitFeatures};
use cosched_core::policy::{Call, Policy};
use cosched_core::{Duration, JobId, ParamError, Time, stats};
use cosched_flow::{FlowError, InitialBasis, MaxFlowOutcome, NetworkSimplex};
use petgraph::graph::{DiGraph, EdgeIndex};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A pending grid job, as the metascheduler sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridJob {
    /// The job's identifier.
    pub id: JobId,
    /// Index of the site it was submitted at (in the policy's site list).
    pub submission_site: usize,
    /// Requested cores.
    pub cores: u32,
    /// Runtime estimate at the submission site.
    pub estimate: Duration,
    /// The job's power draw as a multiple of HPL's on the same cores (§4.5.1: 1; §5.8's power
    /// models draw it in 0.6..=1.4).
    pub power_factor: f64,
}

impl GridJob {
    /// A job of `cores` cores with runtime estimate `estimate` at site `submission_site`.
    ///
    /// # Errors
    /// [`ParamError`] if `cores` < 1 or `estimate` ≤ 0.
    pub fn new(
        id: JobId,
        submission_site: usize,
        cores: u32,
        estimate: Duration,
    ) -> Result<GridJob, ParamError> {
        ParamError::check(cores >= 1, "cores", cores, "must be >= 1")?;
        ParamError::check(
            estimate.secs() > 0,
            "estimate",
            estimate.secs(),
            "must be > 0 s",
        )?;
        Ok(GridJob {
            id,
            submission_site,
            cores,
            estimate,
            power_factor: 1.0,
        })
    }

    /// The same job drawing `factor` times HPL's power (§5.8's power models).
    ///
    /// # Errors
    /// [`ParamError`] if `factor` is not finite and `>= 0`.
    pub fn with_power_factor(mut self, factor: f64) -> Result<GridJob, ParamError> {
        ParamError::check(
            factor.is_finite() && factor >= 0.0,
            "power_factor",
            factor,
            "must be finite and >= 0",
        )?;
        self.power_factor = factor;
        Ok(self)
    }
}

/// Predicts how long a job would wait in a site's local queue if sent there now.
///
/// Closures `Fn(&GridJob, usize, Time) -> Duration` (job, site index, now) implement it.
pub trait WaitPredictor {
    /// The predicted wait of `job` at site `site` (index in the policy's site list) at `now`.
    fn predicted_wait(&self, job: &GridJob, site: usize, now: Time) -> Duration;
}

impl<F: Fn(&GridJob, usize, Time) -> Duration> WaitPredictor for F {
    fn predicted_wait(&self, job: &GridJob, site: usize, now: Time) -> Duration {
        self(job, site, now)
    }
}

/// One scheduling cycle's observations.
#[derive(Clone, Copy)]
pub struct Cycle<'a> {
    /// The current time.
    pub now: Time,
    /// The jobs waiting for a site, in queue order.
    pub jobs: &'a [GridJob],
    /// Predicted waits for this cycle.
    pub waits: &'a dyn WaitPredictor,
}

/// A job sent to a site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The job.
    pub job: JobId,
    /// Index of the site, in the policy's site list.
    pub site: usize,
}

/// A cycle's decisions: every job of the cycle is in exactly one of the three lists, in the
/// cycle's job order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assignment {
    /// Jobs sent to a site this cycle.
    pub placements: Vec<Placement>,
    /// Jobs with a compatible site that were not placed this cycle (every compatible site
    /// already took `MaxQ` jobs); they stay pending.
    pub deferred: Vec<JobId>,
    /// Jobs that no site can run (or whose submission site is unknown).
    pub unassignable: Vec<JobId>,
}

impl Assignment {
    /// The assignment as commands, in order: the placements (each with the wait `predicted`
    /// gives for it), then the unassignable jobs; deferred jobs get none.
    pub fn commands(
        &self,
        mut predicted: impl FnMut(&Placement) -> Option<Duration>,
        out: &mut Vec<GridCommand>,
    ) {
        out.extend(self.placements.iter().map(|p| GridCommand::Place {
            job: p.job,
            site: p.site,
            predicted_wait: predicted(p),
        }));
        out.extend(
            self.unassignable
                .iter()
                .map(|&job| GridCommand::Unassignable { job }),
        );
    }
}

/// Why a policy could not decide a cycle.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PolicyError {
    /// The min-cost flow solver failed on the cycle's network (a solver defect: the network
    /// has unit capacities and costs in `0..=100`).
    #[error("cycle at {now}: the min-cost flow solver failed: {source}")]
    Solver {
        /// The cycle.
        now: Time,
        /// The solver's error.
        source: FlowError,
    },
    /// The solver reported an unbounded flow on the cycle's network (a solver defect: every
    /// source arc has capacity 1).
    #[error("cycle at {now}: the min-cost flow solver reported an unbounded flow")]
    Unbounded {
        /// The cycle.
        now: Time,
    },
    /// A predicted run needs a price the price model cannot give.
    #[error(transparent)]
    Price(#[from] PriceBeyondSeries),
}

/// What a grid executor tells a metascheduling policy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GridObservation {
    /// A scheduling cycle: the jobs waiting in the holding layer, in arrival order. The policy
    /// places or rejects each with a command, or leaves it pending (deferred).
    Cycle {
        /// The pending jobs.
        jobs: Vec<GridJob>,
    },
    /// A job (grid or local) started at `site` after waiting `wait` in its queue; `features`
    /// are the job's wait features when it entered that queue (§3.1: what the paper's
    /// predictor learns from).
    JobStarted {
        /// The job.
        job: JobId,
        /// The site, by index.
        site: usize,
        /// Its wait features at its submission to the site.
        features: WaitFeatures,
        /// Its actual queue wait.
        wait: Duration,
    },
}

/// What a metascheduling policy asks its executor to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GridCommand {
    /// Send `job` to `site` now; `predicted_wait` is the wait the policy predicted there, if
    /// it predicts any (informational: Table 5's prediction error is measured from it).
    Place {
        /// The job.
        job: JobId,
        /// The site, by index.
        site: usize,
        /// The predicted wait at that site.
        predicted_wait: Option<Duration>,
    },
    /// No site can run `job`: the executor drops (and counts) it.
    Unassignable {
        /// The job.
        job: JobId,
    },
}

/// The platform as a grid policy may read it during a call: what the executor knows about its
/// sites now. Every method has a neutral default (no sites, no features, never starts, no
/// transfer, no error), so `()` is the view of a platform that tells nothing.
///
/// Every answer describes the platform **as the call found it**: the commands of a call are
/// applied once it returns, so within one [`GridObservation::Cycle`] a what-if wait does not
/// count the jobs the policy places earlier in the same cycle. A policy that wants them
/// counted accounts for its own placements (MCMF does not: the paper's cycle predicts every
/// job's wait against the same queues).
pub trait GridView {
    /// The sites, in the executor's order (the indexes of [`GridCommand::Place`]).
    fn sites(&self) -> &[Site] {
        &[]
    }
    /// How many sites the view describes.
    fn site_count(&self) -> usize {
        self.sites().len()
    }
    /// The queue and machine part of the wait features at `site` now (the job's own
    /// coordinates zero), for learned wait predictors; `None` if unknown.
    fn site_features(&self, site: usize) -> Option<WaitFeatures> {
        let _ = site;
        None
    }
    /// How long a job of `cores` cores and runtime estimate `estimate` would wait at `site` if
    /// submitted now, by the site's own schedule as the call found it (without this call's
    /// placements; see the trait docs); `None` if it would never start.
    fn what_if_wait(&self, site: usize, cores: u32, estimate: Duration) -> Option<Duration> {
        let _ = (site, cores, estimate);
        None
    }
    /// The time `job`'s data takes to reach `site` (§5.8, Eq. 10); zero at its own site.
    fn transfer(&self, job: JobId, site: usize) -> Duration {
        let _ = (job, site);
        Duration::ZERO
    }
    /// An error an experiment injects into `job`'s predicted wait at `site` (Table 5's
    /// perturbation); zero otherwise.
    fn wait_error(&self, job: JobId, site: usize) -> Duration {
        let _ = (job, site);
        Duration::ZERO
    }
}

impl GridView for () {}

/// A policy of the grid protocol: the core [`Policy`] trait with [`GridObservation`]s in,
/// [`GridCommand`]s out and the platform lent as a [`GridView`]. The built-in policies are
/// ones, and so is any caller's type that implements it (or a
/// [`Recorder`](cosched_core::policy::Recorder) around one); it runs in the grid simulator
/// and in the composed grid.
pub trait GridPolicy:
    Policy<Observation = GridObservation, Command = GridCommand, View = dyn GridView>
{
}

impl<P> GridPolicy for P where
    P: Policy<Observation = GridObservation, Command = GridCommand, View = dyn GridView> + ?Sized
{
}

/// What a recording keeps of a [`GridView`], where the call reads it: each site's wait
/// features (what the learned and zero wait models read) and, for a cycle, every answer a
/// policy may ask about the cycle's jobs: the what-if wait of each job at each compatible
/// site (at its scaled estimate there), its transfer time and its injected error. A replay
/// then sees what the recorded run saw; a query it does not hold gets the neutral default.
/// The sites themselves are not kept (they are the run's input): [`GridSnapshot::with_sites`]
/// gives them back.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GridSnapshot {
    /// Per site, its features at the call.
    pub features: Vec<Option<WaitFeatures>>,
    /// What-if waits asked of this call: (site, cores, estimate in s) and the answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub what_if: Vec<((usize, u32, i64), Option<Duration>)>,
    /// Per (job, site): its transfer time and injected error, where either is not zero.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<((JobId, usize), (Duration, Duration))>,
    /// The sites the view lends ([`GridView::sites`]): not recorded (they are the run's
    /// input), given back by [`GridSnapshot::with_sites`].
    #[serde(skip)]
    pub sites: Vec<Site>,
}

impl GridSnapshot {
    /// The snapshot of `view` for `call`: the features at every call that may read them (a
    /// start, a cycle), with a cycle's what-if waits, transfers and errors.
    pub fn of(call: Call<&GridObservation>, view: &dyn GridView) -> Option<GridSnapshot> {
        let jobs = match call {
            Call::Start => &[][..],
            Call::Observe(GridObservation::Cycle { jobs }) => jobs.as_slice(),
            Call::Observe(GridObservation::JobStarted { .. }) | Call::Wake => return None,
        };
        let count = view.site_count();
        let mut snapshot = GridSnapshot {
            features: (0..count).map(|k| view.site_features(k)).collect(),
            ..GridSnapshot::default()
        };
        let sites = view.sites();
        for job in jobs {
            for k in 0..count {
                if let Some(estimate) = scaled_estimate(sites, job, k) {
                    let key = (k, job.cores, estimate.secs());
                    snapshot
                        .what_if
                        .push((key, view.what_if_wait(k, job.cores, estimate)));
                }
                let (transfer, error) = (view.transfer(job.id, k), view.wait_error(job.id, k));
                if transfer != Duration::ZERO || error != Duration::ZERO {
                    snapshot.jobs.push(((job.id, k), (transfer, error)));
                }
            }
        }
        Some(snapshot)
    }

    /// The snapshot of `view` as JSON, for
    /// [`Recorder::with_view_snapshot`](cosched_core::policy::Recorder::with_view_snapshot).
    pub fn json(call: Call<&GridObservation>, view: &dyn GridView) -> Option<serde_json::Value> {
        GridSnapshot::of(call, view).and_then(|s| serde_json::to_value(s).ok())
    }

    /// The view a replay lends from a recorded snapshot (`None`: a call that read nothing)
    /// with the run's `sites`.
    ///
    /// # Errors
    /// A snapshot that is not a [`GridSnapshot`].
    pub fn replayed(
        snapshot: Option<&serde_json::Value>,
        sites: &[Site],
    ) -> Result<GridSnapshot, serde_json::Error> {
        let snapshot = match snapshot {
            Some(v) => GridSnapshot::deserialize(v)?,
            None => GridSnapshot::default(),
        };
        Ok(snapshot.with_sites(sites.to_vec()))
    }

    /// With the run's sites (the view's [`GridView::sites`]).
    pub fn with_sites(mut self, sites: Vec<Site>) -> GridSnapshot {
        self.sites = sites;
        self
    }
}

impl GridView for GridSnapshot {
    fn sites(&self) -> &[Site] {
        &self.sites
    }
    fn site_count(&self) -> usize {
        self.features.len().max(self.sites.len())
    }
    fn site_features(&self, site: usize) -> Option<WaitFeatures> {
        self.features.get(site).copied().flatten()
    }
    fn what_if_wait(&self, site: usize, cores: u32, estimate: Duration) -> Option<Duration> {
        let key = (site, cores, estimate.secs());
        self.what_if
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|&(_, wait)| wait)
    }
    fn transfer(&self, job: JobId, site: usize) -> Duration {
        self.job(job, site).0
    }
    fn wait_error(&self, job: JobId, site: usize) -> Duration {
        self.job(job, site).1
    }
}

/// A snapshot is lent as the view of a replay
/// ([`replay`](cosched_core::policy::replay)'s `view`).
impl std::borrow::Borrow<dyn GridView> for GridSnapshot {
    fn borrow(&self) -> &(dyn GridView + 'static) {
        self
    }
}

impl GridSnapshot {
    fn job(&self, job: JobId, site: usize) -> (Duration, Duration) {
        self.jobs
            .iter()
            .find(|(k, _)| *k == (job, site))
            .map_or((Duration::ZERO, Duration::ZERO), |&(_, answer)| answer)
    }
}

/// Where a policy's predicted queue waits come from; the policy owns it and teaches it every
/// [`GridObservation::JobStarted`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PredictedWaits {
    /// Every job starts at once (the INST baseline: §5, "feeding the waiting times as zeros").
    Zero,
    /// The site's own schedule ([`GridView::what_if_wait`]; beyond the paper).
    WhatIf,
    /// One learning predictor per site, in site order (the paper's, by
    /// [`PredictedWaits::paper`]).
    Learned(Vec<ClusteredWaitPredictor>),
}

impl PredictedWaits {
    /// The paper's wait prediction for `sites` sites: a fresh [`ClusteredWaitPredictor`]
    /// with the published parameters ([`ClusteredWaitConfig::paper`]) per site.
    ///
    /// # Errors
    /// None in practice (the published parameters are valid); typed for [`Self::learned`].
    pub fn paper(sites: usize) -> Result<PredictedWaits, ParamError> {
        PredictedWaits::learned(sites, ClusteredWaitConfig::paper())
    }

    /// A fresh predictor built from `config` per site, for `sites` sites.
    ///
    /// # Errors
    /// [`ParamError`] for an invalid `config`.
    pub fn learned(
        sites: usize,
        config: ClusteredWaitConfig,
    ) -> Result<PredictedWaits, ParamError> {
        let predictors = (0..sites)
            .map(|_| config.build())
            .collect::<Result<_, _>>()?;
        Ok(PredictedWaits::Learned(predictors))
    }

    /// Teaches the model that a job entering `site`'s queue at `features` waited `wait`.
    pub fn observe(&mut self, site: usize, features: &WaitFeatures, wait: Duration) {
        if let PredictedWaits::Learned(predictors) = self
            && let Some(p) = predictors.get_mut(site)
        {
            p.observe(features, wait);
        }
    }

    /// The model's waits for one call, reading `view`: the queue wait, plus the view's injected
    /// error (floored at 0), or the data transfer if that is longer (Eq. 10: the data moves
    /// while the job queues).
    pub fn for_view<'a>(&'a self, sites: &'a [Site], view: &'a dyn GridView) -> ViewWaits<'a> {
        let snapshots = match self {
            PredictedWaits::Learned(_) => (0..sites.len()).map(|k| view.site_features(k)).collect(),
            _ => Vec::new(),
        };
        ViewWaits {
            model: self,
            sites,
            view,
            snapshots,
        }
    }
}

/// A [`PredictedWaits`] reading one call's [`GridView`] ([`PredictedWaits::for_view`]).
pub struct ViewWaits<'a> {
    model: &'a PredictedWaits,
    sites: &'a [Site],
    view: &'a dyn GridView,
    /// Per site, its features at the call (learned models only).
    snapshots: Vec<Option<WaitFeatures>>,
}

impl WaitPredictor for ViewWaits<'_> {
    fn predicted_wait(&self, job: &GridJob, site: usize, _now: Time) -> Duration {
        let Some(estimate) = scaled_estimate(self.sites, job, site) else {
            return Duration::ZERO;
        };
        let queue_wait = match self.model {
            PredictedWaits::Zero => Duration::ZERO,
            // A job that never fits predicts a wait past any horizon; the policy's
            // normalisation treats it like any large wait.
            PredictedWaits::WhatIf => self
                .view
                .what_if_wait(site, job.cores, estimate)
                .unwrap_or(Duration::from_hours(24 * 3650)),
            PredictedWaits::Learned(predictors) => {
                match (
                    predictors.get(site),
                    self.snapshots.get(site).copied().flatten(),
                ) {
                    (Some(p), Some(snapshot)) => p.predict(&WaitFeatures {
                        cores: f64::from(job.cores),
                        estimate: estimate.secs() as f64,
                        ..snapshot
                    }),
                    _ => Duration::ZERO,
                }
            }
        };
        let perturbed = Duration(
            queue_wait
                .secs()
                .saturating_add(self.view.wait_error(job.id, site).secs())
                .max(0),
        );
        perturbed.max(self.view.transfer(job.id, site))
    }
}

/// The runtime estimate of `job` at `sites[target]`: the estimate at its submission site scaled
/// by the per-core performance ratio `gflops(submission) / gflops(target)`, rounded up to whole
/// seconds; `None` if the submission site is unknown.
pub fn scaled_estimate(sites: &[Site], job: &GridJob, target: usize) -> Option<Duration> {
    let (from, to) = (sites.get(job.submission_site)?, sites.get(target)?);
    Some(scale_duration(job.estimate, from, to))
}

/// A time `d` taken at `from`, run at `to`: scaled by `gflops(from) / gflops(to)` and rounded
/// up to whole seconds — the one scaling of estimates and run times, so that the policy's
/// estimate and the simulator's agree to the second.
pub(crate) fn scale_duration(d: Duration, from: &Site, to: &Site) -> Duration {
    let (from, to) = (from.spec().gflops_per_core, to.spec().gflops_per_core);
    Duration((d.secs() as f64 * from / to).ceil() as i64)
}

/// Where the predicted electricity cost takes its hourly prices from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PriceModel {
    /// The true prices of every hour, however far ahead (perfect foresight; an upper bound on
    /// what price knowledge can give).
    DayAhead,
    /// The paper's metascheduler: the day-ahead price for the hours already published at the
    /// cycle's time, the seasonal ARIMA forecast beyond
    /// ([`PriceOutlook::price_usd_per_mwh`]). Built by [`PriceModel::forecast`].
    Forecast {
        /// One outlook per site, in site order.
        outlooks: Vec<PriceOutlook>,
    },
    /// The TWOPRICE baseline: each site pays its on-peak price from 12:00 to 24:00 local time
    /// and its off-peak price from 00:00 to 12:00, where on-peak is the 90th and off-peak the
    /// 10th percentile of the site's whole price series (§5; quantiles by
    /// [`cosched_core::stats::quantile`], R's type 8). Built by [`PriceModel::two_price`].
    TwoPrice {
        /// Per site, `(off_peak, on_peak)` in $/MWh.
        levels: Vec<(f64, f64)>,
    },
}

impl PriceModel {
    /// The TWOPRICE model for `sites`.
    pub fn two_price(sites: &[Site]) -> PriceModel {
        PriceModel::TwoPrice {
            levels: sites
                .iter()
                .map(|site| {
                    let prices = &site.spec().prices_usd_per_mwh;
                    let level = |q| stats::quantile(prices, q).unwrap_or(0.0);
                    (level(0.1), level(0.9))
                })
                .collect(),
        }
    }

    /// The paper's forecasting model for `sites`: one [`PriceOutlook`] of each site's price
    /// series under `config`.
    ///
    /// # Errors
    /// [`ParamError`] for an invalid `config`.
    pub fn forecast(sites: &[Site], config: PriceForecastConfig) -> Result<PriceModel, ParamError> {
        Ok(PriceModel::Forecast {
            outlooks: outlooks(sites, config)?,
        })
    }

    /// The price the model predicts at time `now` for `sites[site]` in scenario hour `hour`,
    /// in $/MWh. Private: it indexes the per-site levels and outlooks, which only
    /// [`Mcmf::new`] checks against the sites.
    fn price(
        &self,
        sites: &[Site],
        site: usize,
        now: Time,
        hour: i64,
    ) -> Result<f64, PriceBeyondSeries> {
        let beyond = || PriceBeyondSeries {
            site: sites
                .get(site)
                .map_or_else(String::new, |s| s.name().to_owned()),
            hour,
            known_hours: sites.get(site).map_or(0, Site::known_hours),
        };
        match self {
            PriceModel::DayAhead => sites.get(site).ok_or_else(beyond)?.price_usd_per_mwh(hour),
            PriceModel::Forecast { outlooks } => outlooks
                .get(site)
                .and_then(|o| o.price_usd_per_mwh(now, hour))
                .ok_or_else(beyond),
            PriceModel::TwoPrice { levels } => {
                let (off, on) = levels.get(site).copied().ok_or_else(beyond)?;
                let local = sites.get(site).ok_or_else(beyond)?.local_hour(hour);
                Ok(if local >= 12 { on } else { off })
            }
        }
    }
}

/// The cycle's integer arc costs: `costs[j][k]` is `Some(c_jk)` (in `0..=100`) when job `j` can
/// run at site `k`, else `None`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CostMatrix {
    /// Per job (cycle order), per site.
    pub costs: Vec<Vec<Option<i64>>>,
}

/// The paper's metascheduler (and the INST and TWOPRICE baselines): a min-cost max-flow
/// assignment every cycle, with its own wait model. Its state (sites, prices, learned
/// predictors) serialises; deserialising validates it as [`Mcmf::new`] does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "McmfState", into = "McmfState")]
pub struct Mcmf {
    sites: Vec<Site>,
    max_q: u32,
    w_t: f64,
    prices: PriceModel,
    waits: PredictedWaits,
}

/// The serialised form of [`Mcmf`].
#[derive(Serialize, Deserialize)]
struct McmfState {
    sites: Vec<Site>,
    max_q: u32,
    w_t: f64,
    prices: PriceModel,
    waits: PredictedWaits,
}

impl From<Mcmf> for McmfState {
    fn from(m: Mcmf) -> McmfState {
        McmfState {
            sites: m.sites,
            max_q: m.max_q,
            w_t: m.w_t,
            prices: m.prices,
            waits: m.waits,
        }
    }
}

impl TryFrom<McmfState> for Mcmf {
    type Error = ParamError;

    fn try_from(s: McmfState) -> Result<Mcmf, ParamError> {
        Mcmf::new(s.sites, s.max_q, s.w_t, s.prices)?.with_waits(s.waits)
    }
}

impl Mcmf {
    /// A metascheduler over `sites` placing at most `max_q` jobs per site per cycle, weighing
    /// response time by `w_t` and electricity cost by `1 − w_t`, with prices from `prices`.
    ///
    /// Its waits are the paper's learned predictor ([`PredictedWaits::paper`]) until
    /// [`Mcmf::with_waits`] says otherwise.
    ///
    /// # Errors
    /// [`ParamError`] if `max_q` < 1, `w_t` is outside `[0, 1]`, a [`PriceModel::TwoPrice`]
    /// does not have one level pair per site, or a [`PriceModel::Forecast`] not one outlook
    /// per site (or none at all).
    pub fn new(
        sites: Vec<Site>,
        max_q: u32,
        w_t: f64,
        prices: PriceModel,
    ) -> Result<Mcmf, ParamError> {
        ParamError::check(max_q >= 1, "MaxQ", max_q, "must be >= 1")?;
        ParamError::check((0.0..=1.0).contains(&w_t), "w_t", w_t, "must be in [0, 1]")?;
        if let PriceModel::TwoPrice { levels } = &prices {
            ParamError::check(
                levels.len() == sites.len(),
                "TwoPrice levels",
                levels.len(),
                "must hold one pair per site",
            )?;
        }
        if let PriceModel::Forecast { outlooks } = &prices {
            ParamError::check(
                !outlooks.is_empty() && outlooks.len() == sites.len(),
                "Forecast outlooks",
                outlooks.len(),
                "must hold one outlook per site",
            )?;
        }
        let waits = PredictedWaits::paper(sites.len())?;
        Ok(Mcmf {
            sites,
            max_q,
            w_t,
            prices,
            waits,
        })
    }

    /// The same policy predicting waits by `waits`.
    ///
    /// # Errors
    /// [`ParamError`] if a [`PredictedWaits::Learned`] does not hold one predictor per site.
    pub fn with_waits(mut self, waits: PredictedWaits) -> Result<Mcmf, ParamError> {
        if let PredictedWaits::Learned(p) = &waits {
            ParamError::check(
                p.len() == self.sites.len(),
                "predictors",
                p.len(),
                "must hold one predictor per site",
            )?;
        }
        self.waits = waits;
        Ok(self)
    }

    /// The sites, in index order.
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// The policy's wait model.
    pub fn waits(&self) -> &PredictedWaits {
        &self.waits
    }

    /// The TWOPRICE baseline over `sites` ([`PriceModel::two_price`]).
    ///
    /// # Errors
    /// As [`Mcmf::new`].
    pub fn two_price(sites: Vec<Site>, max_q: u32, w_t: f64) -> Result<Mcmf, ParamError> {
        let prices = PriceModel::two_price(&sites);
        Mcmf::new(sites, max_q, w_t, prices)
    }

    /// Appends newly published day-ahead prices of site `site` (a live metascheduler's daily
    /// market clearing): the site's series and, with [`PriceModel::Forecast`], its outlook grow;
    /// cached forecasts stay valid (they read only hours before their issue). TWOPRICE keeps
    /// its levels (the paper's percentiles of the simulated period).
    ///
    /// # Errors
    /// [`ParamError`] for an unknown site or an invalid price; nothing is appended then.
    pub fn append_day_ahead(&mut self, site: usize, prices: &[f64]) -> Result<(), ParamError> {
        let target = self
            .sites
            .get_mut(site)
            .ok_or_else(|| ParamError::new("site", site, "must index one of the policy's sites"))?;
        target.append_day_ahead(prices)?;
        if let PriceModel::Forecast { outlooks } = &mut self.prices
            && let Some(outlook) = outlooks.get_mut(site)
        {
            outlook.append_day_ahead(prices)?;
        }
        Ok(())
    }

    /// `MaxQ`: the most jobs one site takes per cycle.
    pub fn max_q(&self) -> u32 {
        self.max_q
    }

    /// The weight `w_t` of response time against electricity cost.
    pub fn w_t(&self) -> f64 {
        self.w_t
    }

    /// The cycle's arc costs (see the module docs).
    ///
    /// # Errors
    /// [`PolicyError::Price`] when a predicted run needs a price the model cannot give (true
    /// prices past the published series).
    pub fn cost_matrix(&self, cycle: &Cycle<'_>) -> Result<CostMatrix, PolicyError> {
        // Raw (RT seconds, EC $) per compatible pair.
        let raw: Vec<Vec<Option<(f64, f64)>>> = cycle
            .jobs
            .iter()
            .map(|job| {
                (0..self.sites.len())
                    .map(|k| self.raw_cost(cycle, job, k))
                    .collect::<Result<_, _>>()
            })
            .collect::<Result<_, _>>()?;
        let pairs = || raw.iter().flatten().flatten();
        let rt = Range::of(pairs().map(|p| p.0));
        let ec = Range::of(pairs().map(|p| p.1));
        let costs = raw
            .iter()
            .map(|row| {
                row.iter()
                    .map(|pair| {
                        pair.map(|(r, e)| {
                            let mix =
                                self.w_t * rt.normalise(r) + (1.0 - self.w_t) * ec.normalise(e);
                            (100.0 * mix).round().clamp(0.0, 100.0) as i64
                        })
                    })
                    .collect()
            })
            .collect();
        Ok(CostMatrix { costs })
    }

    /// `(RT_jk, EC_jk)` if `job` can run at site `k`.
    fn raw_cost(
        &self,
        cycle: &Cycle<'_>,
        job: &GridJob,
        k: usize,
    ) -> Result<Option<(f64, f64)>, PolicyError> {
        let (Some(site), Some(estimate)) =
            (self.sites.get(k), scaled_estimate(&self.sites, job, k))
        else {
            return Ok(None);
        };
        if !site.accepts(job.cores, estimate) {
            return Ok(None);
        }
        let wait = cycle.waits.predicted_wait(job, k, cycle.now).secs().max(0);
        let start = cycle.now.saturating_add(Duration(wait));
        let power = site.power_watts(job.cores) * job.power_factor;
        let ec = try_energy_cost_usd(power, start, estimate, |h| {
            self.prices.price(&self.sites, k, cycle.now, h)
        })?;
        Ok(Some((wait.saturating_add(estimate.secs()) as f64, ec)))
    }
}

/// The minimum and maximum of a cycle's values, for nadir–utopia normalisation.
struct Range {
    min: f64,
    max: f64,
}

impl Range {
    fn of(values: impl Iterator<Item = f64>) -> Range {
        values.fold(
            Range {
                min: f64::INFINITY,
                max: f64::NEG_INFINITY,
            },
            |r, v| Range {
                min: r.min.min(v),
                max: r.max.max(v),
            },
        )
    }

    /// `(x − min) / (max − min)`, or 0 when all values are equal.
    fn normalise(&self, x: f64) -> f64 {
        if self.max > self.min {
            (x - self.min) / (self.max - self.min)
        } else {
            0.0
        }
    }
}

impl Policy for Mcmf {
    type Observation = GridObservation;
    type Command = GridCommand;
    type View = dyn GridView;
    type Error = PolicyError;

    fn observe(
        &mut self,
        now: Time,
        observation: &GridObservation,
        view: &dyn GridView,
        out: &mut Vec<GridCommand>,
    ) -> Result<(), PolicyError> {
        match observation {
            GridObservation::Cycle { jobs } => {
                let waits = self.waits.for_view(&self.sites, view);
                let assignment = self.assign(&Cycle {
                    now,
                    jobs,
                    waits: &waits,
                })?;
                assignment.commands(
                    |p| {
                        let job = jobs.iter().find(|j| j.id == p.job)?;
                        Some(waits.predicted_wait(job, p.site, now))
                    },
                    out,
                );
            }
            GridObservation::JobStarted {
                site,
                features,
                wait,
                ..
            } => self.waits.observe(*site, features, *wait),
        }
        Ok(())
    }
}

impl Mcmf {
    /// Plans one cycle with the waits of `cycle` (the policy's own model is not consulted):
    /// a min-cost max-flow over the cycle's network (see the module docs).
    ///
    /// # Errors
    /// [`PolicyError`] when the cycle cannot be decided; the pending jobs stay pending.
    pub fn assign(&self, cycle: &Cycle<'_>) -> Result<Assignment, PolicyError> {
        let matrix = self.cost_matrix(cycle)?;
        let mut g = DiGraph::<(), (i64, i64)>::new();
        let source = g.add_node(());
        let sink = g.add_node(());
        let site_nodes: Vec<_> = self.sites.iter().map(|_| g.add_node(())).collect();
        for &node in &site_nodes {
            g.add_edge(node, sink, (i64::from(self.max_q), 0));
        }
        // Per job, its arcs to sites as (edge, site index); empty if unassignable.
        let job_arcs: Vec<Vec<(EdgeIndex, usize)>> = matrix
            .costs
            .iter()
            .map(|row| {
                if row.iter().all(Option::is_none) {
                    return Vec::new();
                }
                let job = g.add_node(());
                g.add_edge(source, job, (1, 0));
                row.iter()
                    .enumerate()
                    .filter_map(|(k, c)| c.map(|c| (g.add_edge(job, site_nodes[k], (1, c)), k)))
                    .collect()
            })
            .collect();
        let now = cycle.now;
        // The artificial-star start: among equally cheap assignments the solver's start
        // decides which one is returned, and the recorded results were made with this one.
        let flows = match NetworkSimplex::new()
            .initial_basis(InitialBasis::ArtificialStar)
            .solve_max_flow(&g, source, sink, |e| *e.weight())
        {
            Ok(MaxFlowOutcome::Optimal(flow)) => flow.flows,
            Ok(MaxFlowOutcome::Unbounded) => return Err(PolicyError::Unbounded { now }),
            Err(source) => return Err(PolicyError::Solver { now, source }),
        };
        let mut out = Assignment::default();
        for (job, arcs) in cycle.jobs.iter().zip(&job_arcs) {
            if arcs.is_empty() {
                out.unassignable.push(job.id);
            } else if let Some(&(_, site)) = arcs
                .iter()
                .find(|(e, _)| flows.get(e.index()).is_some_and(|&f| f > 0))
            {
                out.placements.push(Placement { job: job.id, site });
            } else {
                out.deferred.push(job.id);
            }
        }
        Ok(out)
    }
}

/// The BS baseline: every job runs at its submission site, if that site accepts it (no `MaxQ`:
/// the site's own queue absorbs them all). It predicts no waits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubmissionSite {
    sites: Vec<Site>,
}

impl SubmissionSite {
    /// The BS baseline over `sites`.
    pub fn new(sites: Vec<Site>) -> SubmissionSite {
        SubmissionSite { sites }
    }

    /// The sites, in index order.
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }
}

impl Policy for SubmissionSite {
    type Observation = GridObservation;
    type Command = GridCommand;
    type View = dyn GridView;
    type Error = PolicyError;

    fn observe(
        &mut self,
        now: Time,
        observation: &GridObservation,
        _: &dyn GridView,
        out: &mut Vec<GridCommand>,
    ) -> Result<(), PolicyError> {
        if let GridObservation::Cycle { jobs } = observation {
            let no_wait = |_: &GridJob, _: usize, _: Time| Duration::ZERO;
            self.assign(&Cycle {
                now,
                jobs,
                waits: &no_wait,
            })?
            .commands(|_| None, out);
        }
        Ok(())
    }
}

impl SubmissionSite {
    /// Places every job of `cycle` at its submission site, or marks it unassignable.
    ///
    /// # Errors
    /// None: typed as [`Mcmf::assign`].
    pub fn assign(&self, cycle: &Cycle<'_>) -> Result<Assignment, PolicyError> {
        let mut out = Assignment::default();
        for job in cycle.jobs {
            let home = job.submission_site;
            match self.sites.get(home) {
                Some(site) if site.accepts(job.cores, job.estimate) => {
                    out.placements.push(Placement {
                        job: job.id,
                        site: home,
                    });
                }
                _ => out.unassignable.push(job.id),
            }
        }
        Ok(out)
    }
}

/// Lets a policy that cannot fail run where this error is asked for.
impl From<std::convert::Infallible> for PolicyError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::SiteSpec;

    fn site(gflops: f64, prices: Vec<f64>, lag: i32) -> Site {
        // A single price stands for a flat month of it (prices never wrap around).
        let prices = match prices[..] {
            [flat] => vec![flat; 720],
            _ => prices,
        };
        SiteSpec {
            name: "s".into(),
            cores: 16,
            max_job_cores: 8,
            max_walltime: Duration::from_hours(4),
            watts_per_core: 1000.0,
            gflops_per_core: gflops,
            prices_usd_per_mwh: prices,
            timezone_lag_hours: lag,
        }
        .build()
        .unwrap()
    }

    fn no_wait(_: &GridJob, _: usize, _: Time) -> Duration {
        Duration::ZERO
    }

    fn job(id: u64, home: usize, cores: u32, hours: i64) -> GridJob {
        GridJob::new(JobId(id), home, cores, Duration::from_hours(hours)).unwrap()
    }

    #[test]
    fn costs_follow_the_normalised_mix() {
        // Site 1 is twice as fast (half the runtime) but four times as dear per hour.
        let sites = vec![site(10.0, vec![10.0], 0), site(20.0, vec![40.0], 0)];
        let jobs = [job(0, 0, 4, 2)];
        let cycle = Cycle {
            now: Time(0),
            jobs: &jobs,
            waits: &no_wait,
        };
        // RT: 7200 s vs 3600 s; EC: 4 kW·2 h·$10 = $0.08 vs 4 kW·1 h·$40 = $0.16.
        for (w_t, expected) in [(1.0, [100, 0]), (0.0, [0, 100]), (0.25, [25, 75])] {
            let policy = Mcmf::new(sites.clone(), 1, w_t, PriceModel::DayAhead).unwrap();
            let matrix = policy.cost_matrix(&cycle).unwrap();
            assert_eq!(
                matrix.costs,
                vec![expected.map(Some).to_vec()],
                "w_t = {w_t}"
            );
        }
    }

    #[test]
    fn equal_candidates_cost_zero_and_max_q_defers() {
        let sites = vec![site(10.0, vec![10.0], 0)];
        let jobs = [
            job(0, 0, 4, 1),
            job(1, 0, 4, 1),
            job(2, 0, 17, 1),
            job(3, 5, 1, 1),
        ];
        let cycle = Cycle {
            now: Time(0),
            jobs: &jobs,
            waits: &no_wait,
        };
        let policy = Mcmf::new(sites, 1, 0.5, PriceModel::DayAhead).unwrap();
        let matrix = policy.cost_matrix(&cycle).unwrap();
        assert_eq!(matrix.costs[..2], [vec![Some(0)], vec![Some(0)]]);
        let out = policy.assign(&cycle).unwrap();
        assert_eq!(out.placements.len(), 1);
        assert_eq!(out.deferred.len(), 1);
        // Too many cores; unknown submission site.
        assert_eq!(out.unassignable, [JobId(2), JobId(3)]);
    }

    #[test]
    fn waits_shift_the_execution_interval() {
        // Hour 0 costs $100/MWh, hour 1 costs nothing: waiting an hour makes the run free.
        let sites = vec![site(10.0, vec![100.0, 0.0], 0), site(10.0, vec![50.0], 0)];
        let jobs = [job(0, 0, 1, 1)];
        let waits = |_: &GridJob, k: usize, _: Time| Duration(if k == 0 { 3600 } else { 0 });
        let cycle = Cycle {
            now: Time(0),
            jobs: &jobs,
            waits: &waits,
        };
        let policy = Mcmf::new(sites, 1, 0.0, PriceModel::DayAhead).unwrap();
        assert_eq!(
            policy.cost_matrix(&cycle).unwrap().costs,
            vec![vec![Some(0), Some(100)]]
        );
        assert_eq!(policy.assign(&cycle).unwrap().placements[0].site, 0);
    }

    #[test]
    fn absurd_predicted_waits_do_not_overflow() {
        let sites = vec![site(10.0, vec![1.0, 2.0], 0), site(10.0, vec![3.0], 5)];
        let jobs = [job(0, 0, 1, 1)];
        for wait in [i64::MAX, i64::MIN] {
            let waits =
                move |_: &GridJob, k: usize, _: Time| Duration(if k == 0 { wait } else { 0 });
            let cycle = Cycle {
                now: Time(i64::MAX - 10),
                jobs: &jobs,
                waits: &waits,
            };
            // True prices do not reach that far: a typed error, not a wrapped price.
            let policy = Mcmf::new(sites.clone(), 1, 0.5, PriceModel::DayAhead).unwrap();
            assert!(matches!(policy.assign(&cycle), Err(PolicyError::Price(_))));
            // The forecast does, without overflowing.
            let forecast = PriceModel::forecast(&sites, PriceForecastConfig::default()).unwrap();
            let policy = Mcmf::new(sites.clone(), 1, 0.5, forecast).unwrap();
            assert_eq!(policy.assign(&cycle).unwrap().placements.len(), 1);
        }
    }

    #[test]
    fn two_price_uses_percentiles_and_the_local_afternoon() {
        let prices: Vec<f64> = (0..=10).map(|p| f64::from(p) * 10.0).collect();
        let sites = vec![site(10.0, prices, -3)];
        let PriceModel::TwoPrice { levels } = PriceModel::two_price(&sites) else {
            unreachable!()
        };
        // R type 8: h = (n + 1/3) q + 1/3 over 0, 10, ..., 100 (n = 11).
        let [(off, on)] = levels[..] else {
            unreachable!()
        };
        assert!((off - 14.0 / 3.0).abs() < 1e-9 && (on - 286.0 / 3.0).abs() < 1e-9);
        let model = PriceModel::TwoPrice {
            levels: vec![(10.0, 90.0)],
        };
        // Scenario hour 15 is 12:00 local; hour 14 is 11:00.
        let now = Time(0);
        assert_eq!(model.price(&sites, 0, now, 15), Ok(90.0));
        assert_eq!(model.price(&sites, 0, now, 14), Ok(10.0));
        assert_eq!(model.price(&sites, 0, now, 2), Ok(90.0)); // 23:00 local
    }

    #[test]
    fn forecast_prices_hold_beyond_the_known_day_and_real_ones_within() {
        // Site 0 repeats a daily cycle for four days; on day 4 its price jumps by $1,000,
        // which no forecast trained on days 1–3 can see. Site 1 pays a flat $100.
        let daily = |h: usize| 30.0 + (h % 24) as f64;
        let mut prices: Vec<f64> = (0..96).map(daily).collect();
        prices.extend((96..120).map(|h| daily(h) + 1_000.0));
        let sites = vec![site(10.0, prices, 0), site(10.0, vec![100.0], 0)];
        let forecast = PriceModel::forecast(&sites, PriceForecastConfig::default()).unwrap();
        // 23:00 on day 3: hours up to 95 are published, hour 96 on is forecast.
        let now = Time(95 * 3_600);
        assert_eq!(forecast.price(&sites, 0, now, 95), Ok(53.0));
        assert!((forecast.price(&sites, 0, now, 97).unwrap() - daily(97)).abs() < 1e-6);
        assert_eq!(
            PriceModel::DayAhead.price(&sites, 0, now, 97),
            Ok(daily(97) + 1_000.0)
        );
        // A day later, day 4 is the current day and its real prices are known.
        let later = Time(96 * 3_600);
        assert_eq!(
            forecast.price(&sites, 0, later, 97),
            Ok(daily(97) + 1_000.0)
        );
        // Past the series: true prices are an error, the forecast answers.
        assert!(PriceModel::DayAhead.price(&sites, 0, later, 500).is_err());
        assert!(forecast.price(&sites, 0, later, 500).is_ok());

        // Through the policy: a job predicted to start in two hours costs the price of hour
        // 97; perfect foresight avoids site 0, the forecast does not.
        let jobs = [job(0, 0, 1, 1)];
        let waits = |_: &GridJob, _: usize, _: Time| Duration::from_hours(2);
        let cycle = Cycle {
            now,
            jobs: &jobs,
            waits: &waits,
        };
        let site_of = |prices: PriceModel| {
            let policy = Mcmf::new(sites.clone(), 1, 0.0, prices).unwrap();
            policy.assign(&cycle).unwrap().placements[0].site
        };
        assert_eq!(site_of(PriceModel::DayAhead), 1);
        assert_eq!(site_of(forecast.clone()), 0);
    }

    #[test]
    fn parameters_are_validated() {
        let sites = || vec![site(10.0, vec![1.0], 0)];
        assert_eq!(
            Mcmf::new(sites(), 0, 0.5, PriceModel::DayAhead)
                .unwrap_err()
                .name,
            "MaxQ"
        );
        for w_t in [-0.1, 1.1, f64::NAN] {
            let err = Mcmf::new(sites(), 1, w_t, PriceModel::DayAhead).unwrap_err();
            assert_eq!(err.name, "w_t");
        }
        let no_levels = PriceModel::TwoPrice { levels: vec![] };
        assert!(Mcmf::new(sites(), 1, 0.5, no_levels).is_err());
        let no_outlooks = PriceModel::Forecast { outlooks: vec![] };
        assert_eq!(
            Mcmf::new(sites(), 1, 0.5, no_outlooks).unwrap_err().name,
            "Forecast outlooks"
        );
        let two = PriceModel::forecast(&[sites(), sites()].concat(), Default::default()).unwrap();
        assert!(Mcmf::new(sites(), 1, 0.5, two).is_err());
        assert!(GridJob::new(JobId(0), 0, 0, Duration(1)).is_err());
        assert!(GridJob::new(JobId(0), 0, 1, Duration(0)).is_err());
    }
}
