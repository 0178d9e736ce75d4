//! The grid simulator: the paper's experimental setup — sites that are EASY-backfilling batch
//! systems, grid jobs arriving at their submission sites, and a metascheduler invoked every
//! scheduling cycle — driving any [`GridPolicy`].
//!
//! ## What happens, in order
//! - Each site is a [`BatchCluster`] of its cores under [`Easy`] backfilling.
//! - The first [`SimConfig::history`] jobs are the paper's *history*: they run at their
//!   submission site (and train the wait predictors), and are not measured. Each later job
//!   goes through the metascheduler with probability [`SimConfig::participation`] (a seeded
//!   Bernoulli draw; the paper's partial grid participation); the others run at their
//!   submission site at once (the BS baseline is participation 0).
//! - Scheduling cycles tick every [`SimConfig::cycle_interval`] on a fixed grid of times, from
//!   the first measured submission until every measured job has ended. At a tick the pending
//!   grid jobs, in arrival order, go to the policy with the cycle's [`WaitSource`]; placed jobs
//!   are sent to their site with their runtime and estimate scaled by the per-core performance
//!   ratio; deferred jobs stay pending for the next cycle; jobs no site can run are rejected.
//!   The simulator checks every assignment: a placement of a job that is not pending, a second
//!   placement of a job in one cycle or a placement on an incompatible site is an error.
//! - A job sent away from its submission site may first spend a data-transfer time
//!   ([`TransferModel`], optional) before it enters the target site's queue; the policy's
//!   predicted wait at such a site includes it (the queue part is still predicted at the
//!   cycle's time).
//! - At each instant: completions, then arrivals, then transfers, then an EASY pass at every
//!   site that changed; on a cycle tick the cycle runs last, followed by passes at the sites
//!   that received jobs.
//! - A job's electricity cost is the real one: its power at the site where it ran, integrated
//!   over its actual run with that site's hourly prices ([`energy_cost_usd`]).
//!
//! ## Wait prediction ([`WaitSource`])
//! The policy's predicted waits come from, per site: the site's own state (*what-if*, beyond
//! the paper: [`BatchCluster::predicted_start`], the earliest fit of the job behind the queue
//! in the reservation profile of the running jobs' and queued jobs' estimates — exact when
//! estimates are exact and nothing backfills ahead of it), zero (the INST baseline), a learning
//! [`QueueWaitPredictor`] per site (the paper's predictor,
//! [`ClusteredWaitPredictor`](crate::wait::ClusteredWaitPredictor), by [`WaitSource::paper`]:
//! it is asked with the job's [`WaitFeatures`] at the site and told every started job's actual
//! wait, history jobs included), or the what-if wait multiplied by a seeded error factor (our
//! model for the paper's sensitivity to prediction errors).
//!
//! ```
//! use cosched_metasched::policy::{Mcmf, PriceModel};
//! use cosched_metasched::price_forecast::PriceForecastConfig;
//! use cosched_metasched::sim::{SimConfig, WaitSource, simulate};
//! use cosched_metasched::wait::ClusteredWaitConfig;
//! use cosched_metasched::workload::{DiurnalPrices, XsedeLikeWorkload, embedded_xsede_sites};
//!
//! let prices = |f: &str| Ok(DiurnalPrices::month(1).series(f).unwrap());
//! let sites = embedded_xsede_sites(prices).unwrap();
//! let jobs = XsedeLikeWorkload { jobs: 60, load: 0.7, seed: 1 }.generate(&sites).unwrap();
//! // The paper's metascheduler: forecast prices beyond the published day, learned waits.
//! let prices = PriceModel::forecast(&sites, PriceForecastConfig::default()).unwrap();
//! let mut waits = WaitSource::paper(sites.len(), ClusteredWaitConfig::default()).unwrap();
//! let policy = Mcmf::new(sites, 10, 0.5, prices).unwrap();
//! let config = SimConfig { history: 40, ..SimConfig::default() };
//! let out = simulate(&policy, &mut waits, &jobs, &config).unwrap();
//! assert_eq!(out.jobs.len(), jobs.len());
//! assert!(out.jobs.iter().all(|j| j.run.is_some()));
//! ```

use crate::policy::{Cycle, GridJob, GridPolicy, WaitPredictor, scale_duration, scaled_estimate};
use crate::site::{Site, energy_cost_usd};
use crate::wait::{ClusteredWaitConfig, QueueWaitPredictor, WaitFeatures};
use crate::workload::TraceJob;
use cosched_batch::{BatchCluster, BatchError, BatchJob, Easy, RunToken, Started, Submitted};
use cosched_core::{Duration, Event, EventQueue, JobClass, JobId, JobRecord, ParamError, Time};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use thiserror::Error;

/// Why a simulation could not run.
#[derive(Debug, Error)]
pub enum SimError {
    /// A configuration parameter is out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// A trace job is unusable.
    #[error("job {job}: {message}")]
    Job {
        /// The job.
        job: JobId,
        /// What is wrong.
        message: String,
    },
    /// The policy returned an impossible assignment.
    #[error("cycle at {now:?}: the policy {message}")]
    Assignment {
        /// The cycle.
        now: Time,
        /// What it did.
        message: String,
    },
    /// A site's batch system refused an operation.
    #[error(transparent)]
    Batch(#[from] BatchError),
}

/// Data-transfer time of a job sent away from its submission site: `latency + cores ·
/// per_core`, a job's input being taken as proportional to its size (our model; the paper
/// leaves the transfer model optional).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TransferModel {
    /// Fixed time per transfer.
    pub latency: Duration,
    /// Extra seconds per requested core.
    pub per_core_s: f64,
}

impl TransferModel {
    /// The transfer time of a job of `cores` cores.
    pub fn time(&self, cores: u32) -> Duration {
        Duration(self.latency.secs() + (self.per_core_s * f64::from(cores)).ceil() as i64)
    }
}

/// The simulation's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimConfig {
    /// Time between scheduling cycles (> 0).
    pub cycle_interval: Duration,
    /// Probability that a measured job goes through the metascheduler, in `[0, 1]`.
    pub participation: f64,
    /// Leading jobs (in submit order) that run at their submission site unmeasured.
    pub history: usize,
    /// Data-transfer time of migrated jobs, if any.
    pub transfer: Option<TransferModel>,
    /// Seed of the participation draws and of [`WaitSource::Perturbed`].
    pub seed: u64,
}

impl Default for SimConfig {
    /// Cycles every 5 minutes (our choice: a fraction of the trace's mean inter-arrival
    /// time per site, short against its hours-long jobs), full participation, no history, no
    /// transfer time, seed 1.
    fn default() -> SimConfig {
        SimConfig {
            cycle_interval: Duration::from_mins(5),
            participation: 1.0,
            history: 0,
            transfer: None,
            seed: 1,
        }
    }
}

impl SimConfig {
    /// The data-transfer time of a job of `cores` cores submitted at site `home` and sent to
    /// `site`: none when it stays or without a [`TransferModel`].
    fn transfer_time(&self, home: usize, site: usize, cores: u32) -> Duration {
        match self.transfer {
            Some(model) if site != home => model.time(cores),
            _ => Duration::ZERO,
        }
    }

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
                t.latency.secs() >= 0 && t.per_core_s.is_finite() && t.per_core_s >= 0.0,
                "transfer",
                format!("{t:?}"),
                "latency and per-core time must be >= 0",
            )?;
        }
        Ok(())
    }
}

/// Where the policy's predicted waits come from.
pub enum WaitSource {
    /// Ask the site's state when the job would start if submitted now
    /// ([`BatchCluster::predicted_start`]).
    WhatIf,
    /// Every job starts at once (the INST baseline).
    Zero,
    /// One learning predictor per site, in site order.
    Learned(Vec<Box<dyn QueueWaitPredictor + Send>>),
    /// The what-if wait times `1 + error · u`, `u` uniform in `[−1, 1]`, drawn per (job, site)
    /// from the configuration's seed.
    Perturbed {
        /// Largest relative error, `>= 0`.
        error: f64,
    },
}

impl WaitSource {
    /// The paper's wait prediction: a fresh
    /// [`ClusteredWaitPredictor`](crate::wait::ClusteredWaitPredictor) (DBSCAN clusters of the
    /// site's last started jobs, else ridge regression) per site, for `sites` sites, built
    /// from `config`. The simulator teaches each one every start at its site, history jobs
    /// included, so the history warms them before the measured jobs arrive.
    ///
    /// # Errors
    /// [`ParamError`] for an invalid `config`.
    pub fn paper(sites: usize, config: ClusteredWaitConfig) -> Result<WaitSource, ParamError> {
        let predictors = (0..sites)
            .map(|_| {
                config
                    .build()
                    .map(|p| Box::new(p) as Box<dyn QueueWaitPredictor + Send>)
            })
            .collect::<Result<_, _>>()?;
        Ok(WaitSource::Learned(predictors))
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
    /// Start of its run.
    pub start: Time,
    /// End of its run.
    pub end: Time,
    /// Electricity cost of the run, $.
    pub cost_usd: f64,
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
    /// Its run; `None` if no site could run it.
    pub run: Option<Run>,
}

impl JobOutcome {
    /// Response time: end of the run minus submission to the grid.
    pub fn response(&self) -> Option<Duration> {
        self.run.map(|r| r.end - self.job.submit)
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

/// Instantaneous load of every site at one cycle tick: `(busy + queued cores) / cores`.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadSample {
    /// The tick.
    pub time: Time,
    /// Per site, in site order.
    pub load: Vec<f64>,
}

/// What a simulation produced.
#[derive(Clone, Debug, PartialEq)]
pub struct SimOutcome {
    /// One entry per trace job, in trace (submit) order.
    pub jobs: Vec<JobOutcome>,
    /// Site loads at every cycle tick.
    pub load: Vec<LoadSample>,
    /// Scheduling cycles that ran the policy.
    pub cycles: usize,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Completion(usize, RunToken),
    Arrival(usize),
    Transferred(usize, usize),
    Tick,
}

impl Event for Ev {
    fn class(&self) -> u8 {
        match self {
            Ev::Completion(..) => 0,
            Ev::Arrival(_) => 1,
            Ev::Transferred(..) => 2,
            Ev::Tick => 3,
        }
    }
}

/// Per-site simulation state.
struct SiteState {
    cluster: BatchCluster,
    easy: Easy,
    /// Running jobs: count, Σ start (s), Σ estimate (s), for [`WaitFeatures`].
    running: (i64, i64, i64),
    touched: bool,
}

impl SiteState {
    /// The queue and machine part of a job's wait features at `now`.
    fn features(&self, now: Time) -> WaitFeatures {
        let (mut queued_cores, mut queued_estimate, mut queued_elapsed_wait) = (0.0, 0.0, 0.0);
        for q in self.cluster.queue() {
            queued_cores += f64::from(q.size());
            queued_estimate += q.estimate().secs() as f64;
            queued_elapsed_wait += (now - q.job.submit).secs() as f64;
        }
        let (count, sum_start, sum_estimate) = self.running;
        WaitFeatures {
            cores: 0.0,
            estimate: 0.0,
            queued_cores,
            queued_estimate,
            queued_elapsed_wait,
            busy_cores: f64::from(self.cluster.busy_units()),
            running_elapsed: (count * now.secs() - sum_start) as f64,
            running_estimate: sum_estimate as f64,
        }
    }
}

/// Per-job simulation state (index = trace position = the batch-level job id).
#[derive(Clone, Copy)]
struct JobState {
    estimate: Duration,
    features: Option<WaitFeatures>,
}

/// The policy's view of predicted waits during one cycle.
struct CycleWaits<'a> {
    sites: &'a [Site],
    states: &'a [SiteState],
    source: &'a WaitSource,
    /// Per site, the queue/machine features at the cycle (learned predictors only).
    snapshots: &'a [WaitFeatures],
    config: &'a SimConfig,
}

impl WaitPredictor for CycleWaits<'_> {
    fn predicted_wait(&self, job: &GridJob, site: usize, now: Time) -> Duration {
        let Some(estimate) = scaled_estimate(self.sites, job, site) else {
            return Duration::ZERO;
        };
        let what_if = || {
            self.states[site]
                .cluster
                .predicted_start(now, job.cores, estimate)
                .map_or(Duration(i64::MAX / 4), |t| t - now)
        };
        let queue_wait = match self.source {
            WaitSource::Zero => Duration::ZERO,
            WaitSource::WhatIf => what_if(),
            WaitSource::Perturbed { error } => {
                let mut rng = ChaCha8Rng::seed_from_u64(self.config.seed);
                rng.set_stream(job.id.0.wrapping_mul(self.sites.len() as u64) + site as u64);
                let u: f64 = rng.random_range(-1.0..=1.0);
                let factor = (1.0 + error * u).max(0.0);
                Duration((what_if().secs() as f64 * factor).round() as i64)
            }
            WaitSource::Learned(predictors) => {
                let features = WaitFeatures {
                    cores: f64::from(job.cores),
                    estimate: estimate.secs() as f64,
                    ..self.snapshots[site]
                };
                predictors[site].predict(&features)
            }
        };
        // A migrated job's transfer time is known: it delays the start wherever it goes.
        let transfer = self
            .config
            .transfer_time(job.submission_site, site, job.cores);
        Duration(queue_wait.secs().saturating_add(transfer.secs()))
    }
}

/// Runs `jobs` (sorted by submit time or not; ids unique) on the sites of `policy`.
///
/// # Errors
/// [`SimError`] for an invalid configuration (including a [`WaitSource::Learned`] without one
/// predictor per site or a negative [`WaitSource::Perturbed`] error), a job with a duplicate
/// id, an unknown submission site, no cores or a non-positive estimate, or an impossible
/// assignment from the policy.
pub fn simulate(
    policy: &dyn GridPolicy,
    waits: &mut WaitSource,
    jobs: &[TraceJob],
    config: &SimConfig,
) -> Result<SimOutcome, SimError> {
    config.validate()?;
    let sites = policy.sites();
    match waits {
        WaitSource::Learned(p) => ParamError::check(
            p.len() == sites.len(),
            "predictors",
            p.len(),
            "must hold one predictor per site",
        )?,
        WaitSource::Perturbed { error } => ParamError::check(
            error.is_finite() && *error >= 0.0,
            "error",
            *error,
            "must be finite and >= 0",
        )?,
        WaitSource::Zero | WaitSource::WhatIf => {}
    }
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| (jobs[i].submit, i));
    let trace: Vec<TraceJob> = order.iter().map(|&i| jobs[i]).collect();
    let mut seen = HashSet::with_capacity(trace.len());
    for job in &trace {
        let bad = |message: &str| SimError::Job {
            job: job.id,
            message: message.into(),
        };
        if !seen.insert(job.id) {
            return Err(bad("duplicate id"));
        }
        if job.submission_site >= sites.len() {
            return Err(bad("unknown submission site"));
        }
        if job.cores == 0 || job.estimate <= Duration::ZERO || job.runtime < Duration::ZERO {
            return Err(bad("needs >= 1 core, an estimate > 0 and a run time >= 0"));
        }
    }
    Sim::new(policy, sites, &trace, config)?.run(waits)
}

struct Sim<'a> {
    policy: &'a dyn GridPolicy,
    sites: &'a [Site],
    trace: &'a [TraceJob],
    config: &'a SimConfig,
    states: Vec<SiteState>,
    jobs: Vec<JobState>,
    out: Vec<JobOutcome>,
    events: EventQueue<Ev>,
    pending: Vec<usize>,
    /// Measured jobs not yet ended or rejected.
    unfinished: usize,
    started: Vec<Started>,
}

impl<'a> Sim<'a> {
    fn new(
        policy: &'a dyn GridPolicy,
        sites: &'a [Site],
        trace: &'a [TraceJob],
        config: &'a SimConfig,
    ) -> Result<Sim<'a>, SimError> {
        let states = sites
            .iter()
            .map(|s| {
                Ok(SiteState {
                    cluster: BatchCluster::new(s.spec().cores)?,
                    easy: Easy::default(),
                    running: (0, 0, 0),
                    touched: false,
                })
            })
            .collect::<Result<_, BatchError>>()?;
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        let out = trace
            .iter()
            .enumerate()
            .map(|(i, &job)| {
                let measured = i >= config.history;
                JobOutcome {
                    job,
                    measured,
                    via_metascheduler: measured && rng.random_bool(config.participation),
                    run: None,
                }
            })
            .collect();
        let start = trace.first().map_or(Time::ZERO, |j| j.submit);
        let mut events = EventQueue::new(start);
        for (i, job) in trace.iter().enumerate() {
            events
                .schedule(job.submit, Ev::Arrival(i))
                .expect("arrivals are at or after the first");
        }
        let unfinished = trace.len().saturating_sub(config.history);
        if let Some(first) = trace.get(config.history) {
            let step = config.cycle_interval.secs();
            let tick = Time(first.submit.secs().div_euclid(step).saturating_add(1) * step);
            events.schedule(tick, Ev::Tick).expect("after the start");
        }
        Ok(Sim {
            policy,
            sites,
            trace,
            config,
            states,
            jobs: vec![
                JobState {
                    estimate: Duration::ZERO,
                    features: None,
                };
                trace.len()
            ],
            out,
            events,
            pending: Vec::new(),
            unfinished,
            started: Vec::new(),
        })
    }

    fn run(mut self, waits: &mut WaitSource) -> Result<SimOutcome, SimError> {
        let mut load = Vec::new();
        let mut cycles = 0;
        while let Some((now, first)) = self.events.pop() {
            let mut tick = false;
            let mut next = Some(first);
            while let Some(event) = next {
                match event {
                    Ev::Completion(site, token) => self.complete(site, now, token),
                    Ev::Arrival(i) => {
                        if self.out[i].via_metascheduler {
                            self.pending.push(i);
                        } else {
                            let home = self.trace[i].submission_site;
                            if self.sites[home].accepts(self.trace[i].cores, self.trace[i].estimate)
                            {
                                self.send(i, home, now, waits)?;
                            } else {
                                self.reject(i);
                            }
                        }
                    }
                    Ev::Transferred(i, site) => self.enqueue(i, site, now, waits)?,
                    Ev::Tick => tick = true,
                }
                next = self.events.pop_now();
            }
            self.passes(now, waits);
            if tick {
                load.push(LoadSample {
                    time: now,
                    load: self
                        .states
                        .iter()
                        .map(|s| {
                            let queued: u64 = s.cluster.queue().map(|q| u64::from(q.size())).sum();
                            (u64::from(s.cluster.busy_units()) + queued) as f64
                                / f64::from(s.cluster.capacity())
                        })
                        .collect(),
                });
                if !self.pending.is_empty() {
                    cycles += 1;
                    self.cycle(now, waits)?;
                    self.passes(now, waits);
                }
                if self.unfinished > 0 {
                    let next = now + self.config.cycle_interval;
                    self.events.schedule(next, Ev::Tick).expect("future");
                }
            }
        }
        Ok(SimOutcome {
            jobs: self.out,
            load,
            cycles,
        })
    }

    fn reject(&mut self, i: usize) {
        if self.out[i].measured {
            self.unfinished -= 1;
        }
    }

    /// One scheduling cycle over the pending jobs.
    fn cycle(&mut self, now: Time, waits: &mut WaitSource) -> Result<(), SimError> {
        let grid_jobs: Vec<GridJob> = self
            .pending
            .iter()
            .map(|&i| {
                let t = &self.trace[i];
                GridJob::new(JobId(i as u64), t.submission_site, t.cores, t.estimate)
            })
            .collect::<Result<_, _>>()?;
        let snapshots: Vec<WaitFeatures> = if matches!(waits, WaitSource::Learned(_)) {
            self.states.iter().map(|s| s.features(now)).collect()
        } else {
            Vec::new()
        };
        let assignment = {
            let view = CycleWaits {
                sites: self.sites,
                states: &self.states,
                source: &*waits,
                snapshots: &snapshots,
                config: self.config,
            };
            self.policy.assign(&Cycle {
                now,
                jobs: &grid_jobs,
                waits: &view,
            })
        };
        // Pending jobs not yet decided this cycle.
        let mut undecided: HashSet<usize> = self.pending.iter().copied().collect();
        let bad = |message: String| SimError::Assignment { now, message };
        for p in &assignment.placements {
            let i = p.job.0 as usize;
            if !undecided.remove(&i) {
                return Err(bad(format!(
                    "placed job {:?} that is not pending (or twice)",
                    self.trace.get(i).map(|t| t.id)
                )));
            }
            let t = &self.trace[i];
            let fits = self
                .sites
                .get(p.site)
                .is_some_and(|site| site.accepts(t.cores, self.scaled(i, p.site).1));
            if !fits {
                return Err(bad(format!(
                    "placed job {:?} on incompatible site {}",
                    t.id, p.site
                )));
            }
            let transfer = self
                .config
                .transfer_time(t.submission_site, p.site, t.cores);
            if transfer > Duration::ZERO {
                self.mark_dispatched(i, p.site, now);
                self.events
                    .schedule(now + transfer, Ev::Transferred(i, p.site))
                    .expect("future");
            } else {
                self.send(i, p.site, now, waits)?;
            }
        }
        for job in &assignment.unassignable {
            let i = job.0 as usize;
            if undecided.remove(&i) {
                self.reject(i);
            }
        }
        let before = self.pending.len();
        self.pending.retain(|i| undecided.contains(i));
        if self.pending.len() == before && self.events.is_empty() {
            return Err(bad(format!(
                "defers all {before} pending jobs while nothing else is left to happen"
            )));
        }
        Ok(())
    }

    /// Runtime and estimate of job `i` at `site`.
    fn scaled(&self, i: usize, site: usize) -> (Duration, Duration) {
        let t = &self.trace[i];
        let (from, to) = (&self.sites[t.submission_site], &self.sites[site]);
        let scale = |d: Duration| scale_duration(d, from, to);
        let (runtime, estimate) = (scale(t.runtime), scale(t.estimate));
        (runtime.min(estimate), estimate)
    }

    fn mark_dispatched(&mut self, i: usize, site: usize, now: Time) {
        self.out[i].run = Some(Run {
            site,
            dispatched: now,
            site_submit: now,
            start: Time::MAX,
            end: Time::MAX,
            cost_usd: 0.0,
        });
    }

    /// Dispatches job `i` to `site` now, with no transfer time.
    fn send(
        &mut self,
        i: usize,
        site: usize,
        now: Time,
        waits: &WaitSource,
    ) -> Result<(), SimError> {
        self.mark_dispatched(i, site, now);
        self.enqueue(i, site, now, waits)
    }

    /// Job `i`, already dispatched to `site`, enters its queue now.
    fn enqueue(
        &mut self,
        i: usize,
        site: usize,
        now: Time,
        waits: &WaitSource,
    ) -> Result<(), SimError> {
        let (runtime, estimate) = self.scaled(i, site);
        let t = &self.trace[i];
        let state = &mut self.states[site];
        if matches!(waits, WaitSource::Learned(_)) {
            self.jobs[i].features = Some(WaitFeatures {
                cores: f64::from(t.cores),
                estimate: estimate.secs() as f64,
                ..state.features(now)
            });
        }
        self.jobs[i].estimate = estimate;
        let job = BatchJob {
            id: JobId(i as u64),
            submit: now,
            size: t.cores,
            runtime,
            estimate,
            class: JobClass::Rigid,
            resizable: None,
        };
        if state.cluster.submit(job)? == Submitted::Rejected {
            // Unreachable for accepted jobs (max_job_cores <= cores); kept as a rejection.
            self.out[i].run = None;
            self.reject(i);
            return Ok(());
        }
        if let Some(run) = &mut self.out[i].run {
            run.site_submit = now;
        }
        state.touched = true;
        Ok(())
    }

    fn complete(&mut self, site: usize, now: Time, token: RunToken) {
        let state = &mut self.states[site];
        if state.cluster.complete(now, token).is_none() {
            return;
        }
        state.touched = true;
        let i = token.job.0 as usize;
        let outcome = &mut self.out[i];
        let run = outcome.run.as_mut().expect("a running job was dispatched");
        state.running.0 -= 1;
        state.running.1 -= run.start.secs();
        state.running.2 -= self.jobs[i].estimate.secs();
        run.end = now;
        let s = &self.sites[site];
        run.cost_usd = energy_cost_usd(
            s.power_watts(outcome.job.cores),
            run.start,
            now - run.start,
            |h| s.price_usd_per_mwh(h),
        );
        if outcome.measured {
            self.unfinished -= 1;
        }
    }

    /// An EASY pass at every touched site; starts are recorded and their completions scheduled.
    fn passes(&mut self, now: Time, waits: &mut WaitSource) {
        for site in 0..self.states.len() {
            let state = &mut self.states[site];
            if !std::mem::take(&mut state.touched) {
                continue;
            }
            state
                .cluster
                .schedule(now, &mut state.easy, &mut self.started);
            for s in self.started.drain(..) {
                let i = s.token.job.0 as usize;
                let run = self.out[i].run.as_mut().expect("dispatched");
                run.start = now;
                state.running.0 += 1;
                state.running.1 += now.secs();
                state.running.2 += self.jobs[i].estimate.secs();
                if let (WaitSource::Learned(predictors), Some(features)) =
                    (&mut *waits, self.jobs[i].features)
                {
                    predictors[site].observe(&features, now - run.site_submit);
                }
                self.events
                    .schedule(s.end, Ev::Completion(site, s.token))
                    .expect("runs end at or after their start");
            }
        }
    }
}
