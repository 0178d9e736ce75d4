//! A grid of sites under an electricity-price-aware metascheduler (Murali & Vadhiyar's setting,
//! `cosched-metasched`), each site a full [`Site`] running its own roles.
//!
//! Batch jobs arrive at the grid from their submission site and wait in the metascheduler's
//! holding layer. Every scheduling cycle (60 s, the published code's
//! `SchedulingCycleLength`) the grid advances every site to the cycle, tells the policy which
//! placed jobs started ([`GridObservation::JobStarted`], what the paper's learned wait
//! predictor learns from) and hands it the held jobs ([`GridObservation::Cycle`]); each
//! [`GridCommand::Place`] submits the job into the chosen site (its run time and estimate
//! scaled by the sites' GFLOPS per core, metasched's [`scaled_estimate`]), each
//! [`GridCommand::Unassignable`] drops and counts it, and a job not mentioned stays held. The
//! policy reads the sites through [`GridView`]: each site's queue and running jobs as the
//! paper's wait features, and its batch cluster's what-if start. Any policy of metasched's
//! grid protocol runs: the paper's MCMF, its BS, INST and TWOPRICE baselines
//! (`cosched_metasched::scenario::Scenario::policy` builds them), or yours.
//!
//! A job enters a site's queue in arrival order (its submission time is its arrival at the
//! grid), so its wait and slowdown count the time it was held. Each site's on-demand leases
//! and scavenged tasks stay at that site; only batch jobs move.
//!
//! [`GridInputs`] assembles the XSEDE setting (metasched's vendored site table, June 2014
//! day-ahead prices and 4,100-job grid trace, §4.3.1) for K chosen sites, with the site
//! crate's on-demand and scavenged generators per site.
//!
//! ```
//! use cosched_core::policy::Policy;
//! use cosched_core::{Duration, JobId, RigidJob, Time};
//! use cosched_hybrid::workload::HybridJob;
//! use cosched_metasched::policy::{GridCommand, GridObservation, GridView};
//! use cosched_metasched::site::SiteSpec;
//! use cosched_site::grid::{Grid, GridConfig, GridSite, GridSubmission};
//! use cosched_site::{Configuration, RoleParams, Site, SiteConfig, SiteWorkload};
//!
//! // A downstream policy: every job to the site with the fewest cores busy or queued now.
//! struct ShortestQueue;
//! impl Policy for ShortestQueue {
//!     type Observation = GridObservation;
//!     type Command = GridCommand;
//!     type View = dyn GridView;
//!     type Error = std::convert::Infallible;
//!     fn observe(&mut self, _: Time, obs: &GridObservation, view: &dyn GridView,
//!                out: &mut Vec<GridCommand>) -> Result<(), Self::Error> {
//!         if let GridObservation::Cycle { jobs } = obs {
//!             for job in jobs {
//!                 let load = |k: usize| {
//!                     view.site_features(k).map_or(0.0, |f| f.busy_cores + f.queued_cores)
//!                 };
//!                 let site = (0..view.site_count())
//!                     .min_by(|&a, &b| load(a).total_cmp(&load(b)))
//!                     .unwrap_or(job.submission_site);
//!                 out.push(GridCommand::Place { job: job.id, site, predicted_wait: None });
//!             }
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let end = Time(6 * 3600);
//! let site = |name: &str, price: f64| -> Result<GridSite, Box<dyn std::error::Error>> {
//!     let spec = SiteSpec {
//!         name: name.into(), cores: 64, max_job_cores: 64,
//!         max_walltime: Duration::from_hours(24), watts_per_core: 100.0,
//!         gflops_per_core: 10.0, prices_usd_per_mwh: vec![price; 48], timezone_lag_hours: 0,
//!     }.build()?;
//!     let roles = Configuration::Batch.roles(&RoleParams::default())?;
//!     let site = Site::new(SiteConfig::new(4, end), roles, SiteWorkload::default())?;
//!     Ok(GridSite { spec, site })
//! };
//! // Eight 2-hour jobs of 4 nodes (64 cores at 16 per node), submitted at site 0 every 2 min.
//! let jobs = (0..8).map(|i| {
//!     let job = RigidJob::new(JobId(i), Time(120 * i as i64), 4, Duration::from_hours(2),
//!                             Duration::from_hours(2))?;
//!     Ok(GridSubmission { home: 0, job: HybridJob::Rigid { job, setup: Duration::ZERO } })
//! }).collect::<Result<Vec<_>, cosched_core::ParamError>>()?;
//! let grid = Grid::new(vec![site("a", 30.0)?, site("b", 50.0)?], jobs, GridConfig::new(16))?;
//! let report = grid.run(&mut ShortestQueue)?;
//! // Both sites ran jobs: the policy spread them.
//! assert!(report.sites.iter().all(|s| s.placed > 0));
//! assert_eq!(report.placed() + report.unassignable + report.held_at_end, 8);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{BTreeMap, BTreeSet};

use cosched_balancer::workload::DiurnalLeases;
use cosched_core::policy::Policy;
use cosched_core::{Duration, JobId, ParamError, RigidJob, SeedStreams, Time};
use cosched_hybrid::workload::HybridJob;
use cosched_metasched::policy::{GridCommand, GridJob, GridObservation, GridView, scaled_estimate};
use cosched_metasched::site::{Site as SiteSpec, try_energy_cost_usd};
use cosched_metasched::wait::WaitFeatures;
use thiserror::Error;

use crate::{
    BagOfTasks, BatchStart, Configuration, Inputs, RoleParams, Site, SiteConfig, SiteError,
    SiteReport,
};

/// Why a grid could not be built or run.
#[derive(Debug, Error)]
pub enum GridError {
    /// A parameter out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// A site failed.
    #[error("site {site}: {source}")]
    Site {
        /// The site's index.
        site: usize,
        /// Its error.
        source: SiteError,
    },
    /// The metascheduling policy failed (its error, as text).
    #[error("grid policy at {now}: {message}")]
    Policy {
        /// When.
        now: Time,
        /// Its error.
        message: String,
    },
    /// A command named a site the grid does not have.
    #[error("grid policy placed {job} at site {site}, the grid has {sites}")]
    UnknownSite {
        /// The job.
        job: JobId,
        /// The site named.
        site: usize,
        /// Sites of the grid.
        sites: usize,
    },
    /// A command named a job not held by the metascheduler.
    #[error("grid policy decided {0}, which is not held")]
    NotHeld(JobId),
    /// The XSEDE inputs could not be read.
    #[error("XSEDE inputs: {0}")]
    Inputs(String),
}

fn at(site: usize) -> impl Fn(SiteError) -> GridError {
    move |source| GridError::Site { site, source }
}

/// One site of the grid: its metascheduler description (cores, power, speed, prices) and the
/// site that runs its work (its own leases and tasks; no batch jobs of its own).
pub struct GridSite {
    /// What the metascheduler knows of the site.
    pub spec: SiteSpec,
    /// The site.
    pub site: Site,
}

/// A batch job submitted to the grid at site `home`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridSubmission {
    /// Its submission site (index).
    pub home: usize,
    /// The job (rigid or malleable), sized in nodes, times at its submission site.
    pub job: HybridJob,
}

/// The grid's parameters.
#[derive(Clone, Copy, Debug)]
pub struct GridConfig {
    /// Cores of a node (the metascheduler counts cores, sites count nodes).
    pub cores_per_node: u32,
    /// The scheduling cycle (the published code's 60 s).
    pub cycle: Duration,
}

impl GridConfig {
    /// `cores_per_node` cores per node, 60 s cycles.
    pub fn new(cores_per_node: u32) -> GridConfig {
        GridConfig {
            cores_per_node,
            cycle: Duration(cosched_metasched::scenario::DEFAULT_CYCLE_S),
        }
    }
}

/// A job placed at a site and not yet started there.
struct Placed {
    at: Time,
    features: WaitFeatures,
}

/// K sites under one metascheduler; [`Grid::run`] runs a policy over them.
pub struct Grid {
    sites: Vec<GridSite>,
    specs: Vec<SiteSpec>,
    arrivals: Vec<GridSubmission>,
    config: GridConfig,
    end: Time,
}

/// One site's part of a grid run.
#[derive(Clone, Debug, PartialEq)]
pub struct GridSiteReport {
    /// The site's name.
    pub name: String,
    /// Grid jobs the metascheduler placed here.
    pub placed: usize,
    /// Of them, submitted here.
    pub placed_home: usize,
    /// What the completed grid jobs' power cost at the site's hourly day-ahead prices, $
    /// (cores × the site's watts per core over each run; metasched's metric).
    pub electricity_cost_usd: f64,
    /// The site's own report.
    pub report: SiteReport,
}

/// What a grid run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct GridReport {
    /// Per site, in site order.
    pub sites: Vec<GridSiteReport>,
    /// Jobs submitted to the grid by the end.
    pub submitted: usize,
    /// Jobs the policy found no site for.
    pub unassignable: usize,
    /// Jobs still held by the metascheduler at the end.
    pub held_at_end: usize,
    /// Every placement: job, site.
    pub placements: Vec<(JobId, usize)>,
}

impl GridReport {
    /// Jobs placed at a site.
    pub fn placed(&self) -> usize {
        self.placements.len()
    }

    /// The sites together: counts and costs summed, means weighted by what they average
    /// over (leases started, batch jobs completed, malleable jobs completed, nodes).
    pub fn total(&self) -> SiteReport {
        total(self.sites.iter().map(|s| &s.report))
    }

    /// The grid jobs' electricity cost over every site, $.
    pub fn electricity_cost_usd(&self) -> f64 {
        self.sites.iter().map(|s| s.electricity_cost_usd).sum()
    }
}

/// The reports `reports` together (see [`GridReport::total`]).
fn total<'a>(reports: impl Iterator<Item = &'a SiteReport> + Clone) -> SiteReport {
    let sum = |f: &dyn Fn(&SiteReport) -> f64| reports.clone().map(f).sum::<f64>();
    let mean = |v: &dyn Fn(&SiteReport) -> f64, w: &dyn Fn(&SiteReport) -> f64| {
        let weight = sum(w);
        if weight > 0.0 {
            sum(&|r| v(r) * w(r)) / weight
        } else {
            0.0
        }
    };
    let mut t = SiteReport {
        nodes: 0,
        end_s: 0,
        leases: Default::default(),
        on_demand_served_pct: mean(&|r| r.on_demand_served_pct, &|r| r.leases.requested as f64),
        on_demand_mean_wait_s: mean(&|r| r.on_demand_mean_wait_s, &|r| {
            (r.leases.completed + r.leases.running) as f64
        }),
        batch_submitted: 0,
        batch_completed: 0,
        batch_rejected: 0,
        batch_running: 0,
        batch_queued: 0,
        batch_mean_wait_s: mean(&|r| r.batch_mean_wait_s, &|r| r.batch_completed as f64),
        batch_mean_bounded_slowdown: mean(&|r| r.batch_mean_bounded_slowdown, &|r| {
            r.batch_completed as f64
        }),
        malleable_completed: 0,
        malleable_mean_turnaround_s: mean(&|r| r.malleable_mean_turnaround_s, &|r| {
            r.malleable_completed as f64
        }),
        scavenged_submitted: 0,
        scavenged_completed: 0,
        scavenged_running: 0,
        scavenged_queued: 0,
        scavenged_evicted: 0,
        goodput_node_h: sum(&|r| r.goodput_node_h),
        useful_utilization_pct: mean(&|r| r.useful_utilization_pct, &|r| f64::from(r.nodes)),
        cloud_cost_usd: sum(&|r| r.cloud_cost_usd),
        cloud_nodes_started: 0,
        energy_kwh: sum(&|r| r.energy_kwh),
        revocations: Default::default(),
        node_hours: [0.0; 6],
    };
    for r in reports {
        t.nodes = t.nodes.saturating_add(r.nodes);
        t.end_s = t.end_s.max(r.end_s);
        let (l, m) = (&mut t.leases, &r.leases);
        l.requested += m.requested;
        l.completed += m.completed;
        l.running += m.running;
        l.rejected += m.rejected;
        l.waiting += m.waiting;
        t.batch_submitted += r.batch_submitted;
        t.batch_completed += r.batch_completed;
        t.batch_rejected += r.batch_rejected;
        t.batch_running += r.batch_running;
        t.batch_queued += r.batch_queued;
        t.malleable_completed += r.malleable_completed;
        t.scavenged_submitted += r.scavenged_submitted;
        t.scavenged_completed += r.scavenged_completed;
        t.scavenged_running += r.scavenged_running;
        t.scavenged_queued += r.scavenged_queued;
        t.scavenged_evicted += r.scavenged_evicted;
        t.cloud_nodes_started += r.cloud_nodes_started;
        let (v, w) = (&mut t.revocations, &r.revocations);
        v.rigid_preemptions += w.rigid_preemptions;
        v.malleable_preemptions += w.malleable_preemptions;
        v.malleable_shrinks += w.malleable_shrinks;
        v.malleable_expansions += w.malleable_expansions;
        v.batch_lost_node_s += w.batch_lost_node_s;
        v.scavenged_evictions += w.scavenged_evictions;
        v.scavenged_lost_s += w.scavenged_lost_s;
        v.cloud_requeues += w.cloud_requeues;
        for (a, b) in t.node_hours.iter_mut().zip(r.node_hours) {
            *a += b;
        }
    }
    t
}

/// The sites, lent to the metascheduler as its view at each cycle.
struct Platform {
    sites: Vec<GridSite>,
    now: Time,
    cores_per_node: u32,
}

impl GridView for Platform {
    fn site_count(&self) -> usize {
        self.sites.len()
    }

    fn site_features(&self, site: usize) -> Option<WaitFeatures> {
        let state = self.sites.get(site)?.site.state();
        let cpn = self.cores_per_node;
        Some(WaitFeatures::at_site(
            0,
            Duration::ZERO,
            self.now,
            state
                .cluster()
                .queue()
                .map(|q| (q.size().saturating_mul(cpn), q.estimate(), q.job.submit)),
            state
                .running_batch()
                .map(|(_, nodes, start, estimate)| (nodes.saturating_mul(cpn), start, estimate)),
        ))
    }

    fn what_if_wait(&self, site: usize, cores: u32, estimate: Duration) -> Option<Duration> {
        let nodes = cores.div_ceil(self.cores_per_node);
        let start = self
            .sites
            .get(site)?
            .site
            .state()
            .cluster()
            .predicted_start(self.now, nodes, estimate)?;
        start.checked_since(self.now)
    }
}

/// A job's size in nodes and estimate at its submission site.
fn shape(job: &HybridJob) -> (u32, Duration) {
    match job {
        HybridJob::Rigid { job, .. } => (job.size, job.estimate),
        HybridJob::Malleable { job, estimate } => (job.max_size, *estimate),
        HybridJob::OnDemand(job) => (job.size, job.runtime),
    }
}

impl Grid {
    /// `sites` running until their configured end (the earliest of them is the grid's), fed
    /// the batch jobs `jobs` through the metascheduler.
    ///
    /// # Errors
    /// [`GridError::Param`] for no site, `cores_per_node` or `cycle` < 1, a job whose home is
    /// not a site, an on-demand job, or an id twice; [`GridError::Site`] if a site refuses to
    /// keep the jobs' ids.
    pub fn new(
        sites: Vec<GridSite>,
        jobs: Vec<GridSubmission>,
        config: GridConfig,
    ) -> Result<Grid, GridError> {
        ParamError::check(!sites.is_empty(), "sites", 0, "a grid needs a site")?;
        ParamError::check(
            config.cores_per_node >= 1,
            "cores_per_node",
            config.cores_per_node,
            "must be >= 1",
        )?;
        ParamError::check(config.cycle.0 > 0, "cycle", config.cycle.0, "must be > 0 s")?;
        let mut ids = BTreeSet::new();
        for j in &jobs {
            ParamError::check(j.home < sites.len(), "home", j.home, "must index a site")?;
            ParamError::check(
                !matches!(j.job, HybridJob::OnDemand(_)),
                "job",
                j.job.id().0,
                "a grid job is rigid or malleable",
            )?;
            ParamError::check(ids.insert(j.job.id()), "job", j.job.id().0, "duplicate id")?;
        }
        let bound = ids.last().map_or(Ok(0), |id| {
            id.0.checked_add(1)
                .ok_or_else(|| ParamError::new("job", id.0, "u64::MAX is reserved"))
        })?;
        let mut sites = sites;
        for (k, s) in sites.iter_mut().enumerate() {
            s.site.reserve_batch_ids(bound).map_err(at(k))?;
        }
        let end = sites.iter().map(|s| s.site.end()).min().unwrap_or(Time(0));
        let mut arrivals = jobs;
        arrivals.sort_by_key(|j| (j.job.submit(), j.job.id()));
        Ok(Grid {
            specs: sites.iter().map(|s| s.spec.clone()).collect(),
            sites,
            arrivals,
            config,
            end,
        })
    }

    /// The sites as the metascheduler knows them, in grid order.
    pub fn specs(&self) -> &[SiteSpec] {
        &self.specs
    }

    /// The batch jobs, in arrival order.
    pub fn submissions(&self) -> &[GridSubmission] {
        &self.arrivals
    }

    /// The sites, in grid order.
    pub fn sites(&self) -> &[GridSite] {
        &self.sites
    }

    /// The job as the metascheduler sees it.
    fn grid_job(&self, s: &GridSubmission) -> Result<GridJob, ParamError> {
        let (nodes, estimate) = shape(&s.job);
        GridJob::new(
            s.job.id(),
            s.home,
            nodes.saturating_mul(self.config.cores_per_node),
            estimate.max(Duration(1)),
        )
    }

    /// `d` at the submission site of `job`, taken at site `k`.
    fn scale(&self, job: &GridJob, k: usize, d: Duration) -> Duration {
        let probe = GridJob {
            estimate: d,
            ..job.clone()
        };
        scaled_estimate(&self.specs, &probe, k).unwrap_or(d)
    }

    /// The job run at site `k`: its times scaled by the sites' speeds.
    fn at_site(&self, s: &GridSubmission, job: &GridJob, k: usize) -> HybridJob {
        let sc = |d| self.scale(job, k, d);
        match s.job {
            HybridJob::Rigid { job: j, setup } => HybridJob::Rigid {
                job: RigidJob {
                    runtime: sc(j.runtime),
                    estimate: sc(j.estimate),
                    ..j
                },
                setup: sc(setup),
            },
            HybridJob::Malleable { job: j, estimate } => HybridJob::Malleable {
                job: cosched_core::MalleableJob {
                    work: sc(j.work),
                    setup: sc(j.setup),
                    ..j
                },
                estimate: sc(estimate),
            },
            other => other,
        }
    }

    /// Runs `policy` over the grid to the end.
    ///
    /// # Errors
    /// [`GridError`] for a site's or the policy's failure, or a command naming an unknown
    /// site or a job not held.
    pub fn run<P>(mut self, policy: &mut P) -> Result<GridReport, GridError>
    where
        P: Policy<Observation = GridObservation, Command = GridCommand, View = dyn GridView>
            + ?Sized,
        P::Error: std::fmt::Display,
    {
        let k_sites = self.sites.len();
        let cycle = self.config.cycle;
        let policy_err = |now: Time| {
            move |e: P::Error| GridError::Policy {
                now,
                message: e.to_string(),
            }
        };
        let mut held: Vec<(GridJob, GridSubmission)> = Vec::new();
        let mut placed: Vec<BTreeMap<JobId, Placed>> =
            (0..k_sites).map(|_| BTreeMap::new()).collect();
        let mut report = GridReport {
            sites: Vec::new(),
            submitted: 0,
            unassignable: 0,
            held_at_end: 0,
            placements: Vec::new(),
        };
        let mut next_arrival = 0;
        let mut out = Vec::new();
        let mut now = Time(0);
        let mut platform = Platform {
            sites: std::mem::take(&mut self.sites),
            now,
            cores_per_node: self.config.cores_per_node,
        };
        policy
            .start(now, &platform, &mut out)
            .map_err(policy_err(now))?;
        while now <= self.end {
            platform.now = now;
            // The sites up to the cycle, then what started there.
            let mut observations = Vec::new();
            for (k, s) in platform.sites.iter_mut().enumerate() {
                s.site.run_until(now).map_err(at(k))?;
                let mut started = Vec::new();
                for (&id, p) in &placed[k] {
                    match s.site.batch_start(id) {
                        Some(BatchStart::Started(t)) => {
                            started.push(id);
                            observations.push(GridObservation::JobStarted {
                                job: id,
                                site: k,
                                features: p.features,
                                wait: t.checked_since(p.at).unwrap_or(Duration::ZERO),
                            });
                        }
                        Some(BatchStart::Queued) => {}
                        Some(BatchStart::Rejected) | None => started.push(id),
                    }
                }
                for id in started {
                    placed[k].remove(&id);
                }
            }
            while let Some(s) = self.arrivals.get(next_arrival)
                && s.job.submit() <= now
            {
                held.push((self.grid_job(s)?, *s));
                next_arrival += 1;
            }
            out.clear();
            for obs in &observations {
                policy
                    .observe(now, obs, &platform, &mut out)
                    .map_err(policy_err(now))?;
            }
            if !held.is_empty() {
                let jobs = held.iter().map(|(g, _)| g.clone()).collect();
                policy
                    .observe(now, &GridObservation::Cycle { jobs }, &platform, &mut out)
                    .map_err(policy_err(now))?;
            }
            let mut decided = Vec::new();
            for c in &out {
                let (job, site) = match *c {
                    GridCommand::Place { job, site, .. } => (job, Some(site)),
                    GridCommand::Unassignable { job } => (job, None),
                };
                let i = held
                    .iter()
                    .position(|(g, _)| g.id == job)
                    .filter(|i| !decided.contains(i))
                    .ok_or(GridError::NotHeld(job))?;
                decided.push(i);
                let Some(k) = site else {
                    report.unassignable += 1;
                    continue;
                };
                if k >= k_sites {
                    return Err(GridError::UnknownSite {
                        job,
                        site: k,
                        sites: k_sites,
                    });
                }
                let (g, s) = &held[i];
                let run = self.at_site(s, g, k);
                let (nodes, estimate) = shape(&run);
                let cpn = self.config.cores_per_node;
                let features = platform.site_features(k).map(|f| WaitFeatures {
                    cores: f64::from(nodes.saturating_mul(cpn)),
                    estimate: estimate.secs() as f64,
                    ..f
                });
                placed[k].insert(
                    job,
                    Placed {
                        at: now,
                        features: features.unwrap_or(WaitFeatures::at_site(
                            0,
                            Duration::ZERO,
                            now,
                            [],
                            [],
                        )),
                    },
                );
                report.placements.push((job, k));
                platform.sites[k].site.submit(now, run).map_err(at(k))?;
            }
            decided.sort_unstable();
            for i in decided.into_iter().rev() {
                held.remove(i);
            }
            // The next cycle; with nothing held, the cycle of the next arrival.
            let mut next = now.checked_add(cycle).ok_or_else(|| {
                ParamError::new("cycle", cycle.0, "the next cycle is past the clock")
            })?;
            if held.is_empty() {
                match self.arrivals.get(next_arrival) {
                    Some(a) if a.job.submit() > next => {
                        let gap = a
                            .job
                            .submit()
                            .checked_since(Time(0))
                            .unwrap_or(Duration::ZERO);
                        next = Time(gap.0.div_euclid(cycle.0).saturating_mul(cycle.0)).max(next);
                        if next < a.job.submit() {
                            next = next.saturating_add(cycle);
                        }
                    }
                    Some(_) => {}
                    None => next = self.end.saturating_add(Duration(1)),
                }
            }
            now = next;
        }
        for (k, s) in platform.sites.iter_mut().enumerate() {
            s.site.run_until(self.end).map_err(at(k))?;
        }
        report.submitted = next_arrival;
        report.held_at_end = held.len();
        let cpn = self.config.cores_per_node;
        let homes: BTreeMap<JobId, usize> =
            self.arrivals.iter().map(|a| (a.job.id(), a.home)).collect();
        for (k, s) in platform.sites.iter().enumerate() {
            let spec = &self.specs[k];
            let mut electricity_cost_usd = 0.0;
            for r in s.site.batch_records() {
                let (Some(start), Some(end)) = (r.start, r.end) else {
                    continue;
                };
                let run = end.checked_since(start).unwrap_or(Duration::ZERO);
                let power = spec.power_watts(r.size.saturating_mul(cpn));
                electricity_cost_usd +=
                    try_energy_cost_usd(power, start, run, |h| spec.price_usd_per_mwh(h))
                        .map_err(|e| GridError::Inputs(e.to_string()))?;
            }
            let here: Vec<JobId> = report
                .placements
                .iter()
                .filter(|(_, site)| *site == k)
                .map(|(job, _)| *job)
                .collect();
            report.sites.push(GridSiteReport {
                name: spec.name().to_string(),
                placed: here.len(),
                placed_home: here.iter().filter(|j| homes.get(j) == Some(&k)).count(),
                electricity_cost_usd,
                report: s.site.report(),
            });
        }
        Ok(report)
    }
}

/// The sites `converged_grid` uses by default: three XSEDE systems in three price regions
/// (Pittsburgh, Tennessee, San Diego).
pub const DEFAULT_SITES: [&str; 3] = ["Blacklight", "Darter", "Gordon"];

/// The grid's inputs: metasched's XSEDE setting (vendored site table, June 2014 day-ahead
/// prices and 4,100-job grid trace, Murali & Vadhiyar §4.3.1) restricted to chosen sites, and
/// per site the site crate's generators (ours) for its on-demand leases and scavenged tasks.
#[derive(Clone, Debug)]
pub struct GridInputs {
    /// The chosen sites, in grid order.
    pub specs: Vec<SiteSpec>,
    /// The trace's jobs submitted at the chosen sites (`submission_site` renumbered to the
    /// grid's order), before the end.
    pub trace: Vec<cosched_metasched::workload::TraceJob>,
    /// Cores per node (ours: 16): a site has `cores / cores_per_node` nodes, a job
    /// `⌈cores / cores_per_node⌉`.
    pub cores_per_node: u32,
    /// The run's length (the trace spans about 6.6 days).
    pub span: Duration,
    /// Each lease's window `W`.
    pub window: Duration,
    /// The leases' offered load per site (ours: 0.1, as `Inputs::generated`).
    pub lease_load: f64,
}

impl GridInputs {
    /// The sites named `names` (XSEDE system names) and their jobs over `span`.
    ///
    /// # Errors
    /// [`GridError::Param`] for an unknown or repeated name or `cores_per_node` < 1;
    /// [`GridError::Inputs`] if the vendored inputs do not load.
    pub fn xsede(
        names: &[&str],
        cores_per_node: u32,
        span: Duration,
        window: Duration,
    ) -> Result<GridInputs, GridError> {
        use cosched_metasched::workload::{paper_grid_trace, paper_xsede_sites};
        ParamError::check(
            cores_per_node >= 1,
            "cores_per_node",
            cores_per_node,
            "must be >= 1",
        )?;
        let all = paper_xsede_sites().map_err(|e| GridError::Inputs(e.to_string()))?;
        let mut index = Vec::new();
        for name in names {
            let k = all.iter().position(|s| s.name() == *name).ok_or_else(|| {
                ParamError::new("site", *name, "not an XSEDE system of the table")
            })?;
            ParamError::check(!index.contains(&k), "site", *name, "named twice")?;
            index.push(k);
        }
        let end = Time(0).saturating_add(span);
        let trace = paper_grid_trace(all.len())
            .map_err(|e| GridError::Inputs(e.to_string()))?
            .into_iter()
            .filter(|j| j.submit < end)
            .filter_map(|j| {
                let home = index.iter().position(|&k| k == j.submission_site)?;
                Some(cosched_metasched::workload::TraceJob {
                    submission_site: home,
                    ..j
                })
            })
            .collect();
        Ok(GridInputs {
            specs: index.iter().map(|&k| all[k].clone()).collect(),
            trace,
            cores_per_node,
            span,
            window,
            lease_load: 0.1,
        })
    }

    /// Nodes of site `k`.
    pub fn nodes(&self, k: usize) -> u32 {
        self.specs
            .get(k)
            .map_or(0, |s| s.spec().cores / self.cores_per_node.max(1))
            .max(1)
    }

    /// The grid of `seed` under `configuration` at every site: the sites with their leases
    /// and tasks, and the batch jobs (the trace typed rigid/malleable by hybrid's typing, its
    /// on-demand projects' jobs dropped, as `Inputs::workload`). Everything drawn comes from
    /// `seed`'s streams, per site, so every strategy of a seed meets the same environment.
    ///
    /// # Errors
    /// [`GridError`] if a site or the inputs refuse the parameters.
    pub fn grid(
        &self,
        configuration: Configuration,
        params: &RoleParams,
        seed: u64,
    ) -> Result<Grid, GridError> {
        let streams = SeedStreams::new(seed);
        let end = Time(0).saturating_add(self.span);
        let cpn = self.cores_per_node.max(1);
        let mut sites = Vec::new();
        let mut jobs = Vec::new();
        for (k, spec) in self.specs.iter().enumerate() {
            let nodes = self.nodes(k);
            let trace = self
                .trace
                .iter()
                .filter(|j| j.submission_site == k)
                .map(|j| {
                    RigidJob::new(
                        j.id,
                        j.submit,
                        j.cores.div_ceil(cpn),
                        j.runtime.min(j.estimate),
                        j.estimate,
                    )
                })
                .collect::<Result<Vec<_>, _>>()?;
            let requests = DiurnalLeases::new(nodes, self.span, self.lease_load)
                .generate(streams.family("grid-leases", k as u64).root())?;
            let bags = BagOfTasks {
                mean_gap: Duration(
                    (BagOfTasks::default().mean_gap.0 * 128 / i64::from(nodes)).max(1),
                ),
                ..BagOfTasks::default()
            };
            let inputs = Inputs {
                trace,
                requests,
                span: self.span,
                window: self.window,
                bags,
            };
            let mut workload = inputs
                .workload(streams.family("grid-site", k as u64).root())
                .map_err(at(k))?;
            jobs.extend(
                workload
                    .batch
                    .drain(..)
                    .map(|job| GridSubmission { home: k, job }),
            );
            let roles = configuration.roles(params).map_err(at(k))?;
            let site = Site::new(SiteConfig::new(nodes, end), roles, workload).map_err(at(k))?;
            sites.push(GridSite {
                spec: spec.clone(),
                site,
            });
        }
        Grid::new(sites, jobs, GridConfig::new(cpn))
    }
}

/// Lets a policy that cannot fail run where this error is asked for.
impl From<std::convert::Infallible> for GridError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}
