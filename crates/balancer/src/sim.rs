//! The combined-cluster simulator: the environment that drives the [`Balancer`] (Liu et al.,
//! SC18, section III "Balancer") against an EASY [`BatchCluster`], and the static baselines of
//! the paper's evaluation setup (section "Evaluation": all nodes to batch, a dedicated split,
//! all nodes on-demand).
//!
//! Inputs are plain vectors: batch jobs ([`RigidJob`], read by [`cosched_batch::sim::admit`]'s
//! rules) and on-demand [`LeaseRequest`]s. The simulator holds no policy of its own beyond the
//! baselines' trivial pool: every on-demand decision of a [`Configuration::Dynamic`] run comes
//! from the Balancer. Same input, same output (the report's JSON is byte-identical).
//!
//! ## Event order at one instant
//! Events run on [`EventQueue`] by class: **batch completions** (reported with
//! [`NodeUpdate::JobEnded`] first, so a node freed now serves everything below and pending
//! requests are granted as nodes come back), **lease ends** (their nodes are released, so they
//! serve the requests of the same instant), **reserve hints and predictor slots** (a reserve
//! built for an instant exists when its requests arrive), **lease requests** (on-demand work
//! has priority over the batch jobs of the same instant), **batch arrivals**, then the
//! **Balancer tick** (last, as its protocol requires: a node freed exactly at a deadline
//! counts). Then one EASY pass, whose started jobs' nodes are reported with
//! [`NodeUpdate::JobStarting`]; a tick is scheduled at [`Balancer::next_deadline`]. Events
//! created at the current instant (a zero-length job, a hold expiring now) run in another
//! round at that instant, followed by another pass.
//!
//! ## Configurations
//! - [`Configuration::Dynamic`]: the Balancer on all `N` nodes: Basic (static reserve `R`),
//!   Hint (each request's [`LeaseRequest::notice`] becomes `add_reserve(submit − notice,
//!   submit, nodes)`), or Predictive (at each 6-hour slot the [`Predictor`]'s proposal is passed
//!   to [`Balancer::reserve_at_least`], which claims only what the reserve lacks).
//! - [`Configuration::Dedicated`]: a fixed on-demand pool (the last `on_demand_nodes` nodes,
//!   offline in the batch cluster); a request is granted when its nodes are free, waits up to
//!   `W` for lease ends (oldest first) or is rejected. [`Configuration::AllBatch`] is a pool of
//!   0 nodes: every request is counted as rejected (not served), which gives the batch wait's
//!   lower bound; [`Configuration::AllOnDemand`] is a pool of `N` nodes: no batch job runs
//!   (all are counted as rejected).
//!
//! A batch job larger than the nodes batch can ever have (`N − R` under Basic, `N − pool`
//! under a static split) is rejected at submission and reported with no start.
//!
//! ## Accounting
//! Between instants every node is in one of four uses: running a batch job (draining ones
//! included), allocated to a lease, on-demand but unused (`OD_Reserve`, or the dedicated
//! pool's free nodes), or idle in batch. The report integrates each over `[first event, last
//! event]`, so the four sum to exactly `N × makespan` node-seconds; utilisations are fractions
//! of the whole cluster's node-seconds.

use crate::policy::{Decisions, NodeUpdate, RequestOutcome, Strategy};
use crate::predictor::{Combine, Predictor};
use crate::workload::LeaseRequest;
use crate::{Balancer, BalancerConfig, BalancerError};
use cosched_batch::{BatchCluster, BatchError, Easy, RunToken, Started, Submitted};
use cosched_core::{
    DEFAULT_SLOWDOWN_TAU, Duration, Event, EventQueue, JobId, JobRecord, LeaseId, NodeId,
    ParamError, Report, RigidJob, Time,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

/// Which on-demand arrangement to simulate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Configuration {
    /// The Balancer; `predictor` (Predictive) needs [`Strategy::Hinted`], under which, without
    /// a predictor, the requests' notices are the hints (Hint).
    Dynamic {
        /// The Balancer's parameters.
        config: BalancerConfig,
        /// The Predictive reserve's combining rule, if Predictive.
        predictor: Option<Combine>,
    },
    /// No on-demand pool: every request is rejected.
    AllBatch,
    /// A dedicated on-demand pool of `on_demand_nodes` nodes, requests waiting up to `window`.
    Dedicated {
        /// The pool's size.
        on_demand_nodes: u32,
        /// `W`.
        window: Duration,
    },
    /// Every node on-demand; batch jobs never run.
    AllOnDemand {
        /// `W`.
        window: Duration,
    },
}

impl Configuration {
    /// A short name for reports: `basic`, `hint`, `predictive`, `all-batch`, `dedicated`,
    /// `all-on-demand`.
    pub fn name(&self) -> &'static str {
        match self {
            Configuration::Dynamic {
                predictor: Some(_), ..
            } => "predictive",
            Configuration::Dynamic { config, .. } => match config.strategy {
                Strategy::Basic { .. } => "basic",
                Strategy::Hinted => "hint",
            },
            Configuration::AllBatch => "all-batch",
            Configuration::Dedicated { .. } => "dedicated",
            Configuration::AllOnDemand { .. } => "all-on-demand",
        }
    }
}

/// Why a simulation could not run.
#[derive(Debug, Error)]
pub enum SimError {
    /// A parameter out of range (cluster size, pool size, Balancer parameters).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// A Predictive configuration whose strategy is Basic.
    #[error("the Predictive reserve needs the hinted strategy")]
    PredictorNeedsHints,
    /// An invalid lease request.
    #[error("lease request {id}: {source}")]
    InvalidRequest {
        /// The request.
        id: LeaseId,
        /// What is wrong with it.
        source: ParamError,
    },
    /// Two lease requests with one id.
    #[error("lease request {0} appears twice")]
    DuplicateRequest(LeaseId),
    /// The batch cluster refused an operation (or a job id repeats).
    #[error(transparent)]
    Batch(#[from] BatchError),
    /// The Balancer refused a call (a simulator bug or a policy bug: it means the two views
    /// disagreed).
    #[error(transparent)]
    Balancer(#[from] BalancerError),
}

/// What became of one lease request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestRecord {
    /// The request.
    pub request: LeaseRequest,
    /// When its nodes were granted; `None` if it was rejected.
    pub granted: Option<Time>,
}

/// Node-seconds by use over the simulated span; they sum to `N × makespan`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSeconds {
    /// Running batch jobs (draining nodes included).
    pub batch_busy: i64,
    /// Allocated to leases.
    pub on_demand_allocated: i64,
    /// On-demand but unused (`OD_Reserve`, or the dedicated pool's free nodes).
    pub reserve_idle: i64,
    /// Idle in the batch pool.
    pub batch_idle: i64,
}

impl NodeSeconds {
    /// The four uses summed.
    pub fn total(&self) -> i64 {
        self.batch_busy + self.on_demand_allocated + self.reserve_idle + self.batch_idle
    }
}

/// The on-demand side's figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OnDemandSummary {
    /// Requests made.
    pub requests: usize,
    /// Requests granted.
    pub granted: usize,
    /// Requests rejected (`requests − granted`).
    pub rejected: usize,
    /// `rejected / requests` (0 with no requests).
    pub reject_rate: f64,
    /// Mean of grant − request over granted requests, in seconds (0 with none).
    pub mean_wait_s: f64,
    /// Longest such wait, in seconds.
    pub max_wait_s: i64,
}

/// A simulation's report (serde; see [`SimReport::to_json`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SimReport {
    /// [`Configuration::name`].
    pub configuration: String,
    /// `N`.
    pub nodes: u32,
    /// The first event's time.
    pub start_s: i64,
    /// The last event's time.
    pub end_s: i64,
    /// Node-seconds by use.
    pub node_seconds: NodeSeconds,
    /// (Batch busy + lease-allocated) / `N × makespan`.
    pub combined_utilization: f64,
    /// Batch busy / `N × makespan`.
    pub batch_utilization: f64,
    /// Lease-allocated / `N × makespan`.
    pub on_demand_utilization: f64,
    /// Node-hours on-demand but unused.
    pub reserve_idle_node_hours: f64,
    /// Preloaded jobs started ([`Simulation::run_preloaded`]), kept out of `batch`.
    pub preloaded_jobs: usize,
    /// The batch jobs' report (waits, bounded slowdowns; capacity = the nodes batch can have).
    pub batch: Report,
    /// The lease requests' figures.
    pub on_demand: OnDemandSummary,
}

impl SimReport {
    /// Pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report is plain data")
    }
}

/// What a simulation produced.
#[derive(Clone, Debug)]
pub struct SimOutcome {
    /// The report.
    pub report: SimReport,
    /// One record per valid batch job: in completion order, then the rejected ones.
    pub records: Vec<JobRecord>,
    /// One record per lease request, in (submit, id) order.
    pub requests: Vec<RequestRecord>,
}

/// Simulates a combined cluster of `nodes` nodes under one [`Configuration`].
///
/// ```
/// use cosched_balancer::sim::{Configuration, Simulation};
/// use cosched_balancer::workload::LeaseRequest;
/// use cosched_balancer::{BalancerConfig, Strategy};
/// use cosched_core::{Duration, JobId, LeaseId, RigidJob, Time};
/// let jobs = [RigidJob::new(JobId(0), Time(0), 4, Duration(100), Duration(100)).unwrap()];
/// let requests = [LeaseRequest {
///     id: LeaseId(0), submit: Time(10), nodes: 2, duration: Duration(50), notice: None,
/// }];
/// let basic = Configuration::Dynamic {
///     config: BalancerConfig::new(Strategy::Basic { static_reserve: 0 }),
///     predictor: None,
/// };
/// let out = Simulation::new(6, basic).unwrap().run(&jobs, &requests).unwrap();
/// assert_eq!(out.report.on_demand.granted, 1);
/// assert_eq!(out.report.node_seconds.total(), 6 * 100);
/// let dedicated = Configuration::Dedicated { on_demand_nodes: 1, window: Duration(0) };
/// let out = Simulation::new(6, dedicated).unwrap().run(&jobs, &requests).unwrap();
/// assert_eq!(out.report.on_demand.rejected, 1);
/// ```
#[derive(Clone, Debug)]
pub struct Simulation {
    nodes: u32,
    configuration: Configuration,
    tau: Duration,
}

impl Simulation {
    /// A simulator for `nodes` nodes (at least 1) under `configuration`.
    pub fn new(nodes: u32, configuration: Configuration) -> Result<Simulation, SimError> {
        ParamError::check(nodes >= 1, "nodes", nodes, "a cluster needs >= 1 node")?;
        match configuration {
            Configuration::Dynamic { config, predictor } => {
                config.validate()?;
                if predictor.is_some() && config.strategy != Strategy::Hinted {
                    return Err(SimError::PredictorNeedsHints);
                }
                if let Some(rule) = predictor {
                    Predictor::new(rule)?;
                }
            }
            Configuration::Dedicated {
                on_demand_nodes,
                window,
            } => {
                ParamError::check(
                    on_demand_nodes <= nodes,
                    "on_demand_nodes",
                    on_demand_nodes,
                    "must be <= nodes",
                )?;
                ParamError::check(window.0 >= 0, "W", window.0, "must be >= 0")?;
            }
            Configuration::AllOnDemand { window } => {
                ParamError::check(window.0 >= 0, "W", window.0, "must be >= 0")?;
            }
            Configuration::AllBatch => {}
        }
        Ok(Simulation {
            nodes,
            configuration,
            tau: DEFAULT_SLOWDOWN_TAU,
        })
    }

    /// Uses `tau` for the batch jobs' bounded slowdown instead of 10 s.
    pub fn with_slowdown_tau(mut self, tau: Duration) -> Simulation {
        self.tau = tau;
        self
    }

    /// Simulates `jobs` and `requests` (any order; ids unique) to the end.
    pub fn run(
        &self,
        jobs: &[RigidJob],
        requests: &[LeaseRequest],
    ) -> Result<SimOutcome, SimError> {
        self.run_preloaded(jobs, &[], requests)
    }

    /// [`Simulation::run`] on a cluster preloaded with running jobs (the paper's removal of
    /// the ramp-up; see [`crate::synthetic`]): the `preload` jobs are submitted and started
    /// at the run's start (the earliest event, and no later than time 0), before anything
    /// else, and run for their `runtime` (cut at their `estimate`). They count in the node
    /// uses and utilisations, but not in the batch jobs' records and waits
    /// ([`SimReport::preloaded_jobs`] counts them). Their ids must differ from the jobs'. They
    /// are taken in (submit, id) order while they fit on the nodes batch can have (fewer
    /// under a static split or reserve); the others are left out.
    pub fn run_preloaded(
        &self,
        jobs: &[RigidJob],
        preload: &[RigidJob],
        requests: &[LeaseRequest],
    ) -> Result<SimOutcome, SimError> {
        let (workload, invalid) = cosched_batch::sim::admit(jobs)?;
        let (preload, invalid_preload) = cosched_batch::sim::admit(preload)?;
        if invalid_preload > 0 {
            return Err(ParamError::new(
                "preload",
                invalid_preload,
                "preloaded jobs must be valid",
            )
            .into());
        }
        let preloaded: BTreeSet<JobId> = preload.iter().map(|j| j.id).collect();
        if let Some(job) = workload.iter().find(|j| preloaded.contains(&j.id)) {
            return Err(BatchError::DuplicateJob(job.id).into());
        }
        let requests = admit_requests(requests)?;
        let mut cluster = BatchCluster::new(self.nodes)?;
        let (side, batch_nodes) = match self.configuration {
            Configuration::Dynamic { config, predictor } => {
                let balancer = Balancer::new(Time::ZERO, config, &mut cluster)?;
                let usable = match config.strategy {
                    Strategy::Basic { static_reserve } => self.nodes - static_reserve,
                    Strategy::Hinted => self.nodes,
                };
                let predictor = predictor.map(Predictor::new).transpose()?;
                let hints = predictor.is_none() && config.strategy == Strategy::Hinted;
                let side = Side::Balancer {
                    balancer: Box::new(balancer),
                    predictor,
                    hints,
                };
                (side, usable)
            }
            Configuration::AllBatch => (self.pool(&mut cluster, 0, Duration::ZERO)?, self.nodes),
            Configuration::Dedicated {
                on_demand_nodes,
                window,
            } => (
                self.pool(&mut cluster, on_demand_nodes, window)?,
                self.nodes - on_demand_nodes,
            ),
            Configuration::AllOnDemand { window } => {
                (self.pool(&mut cluster, self.nodes, window)?, 0)
            }
        };
        let mut run = Run {
            cluster,
            side,
            requests: &requests,
            granted: vec![None; requests.len()],
            held: vec![Vec::new(); requests.len()],
            waiting: BTreeMap::new(),
            allocated: 0,
            requests_left: requests.len(),
            tick_at: None,
            events: EventQueue::new(Time::ZERO),
        };
        let (hints, predictive) = (run.hints(), run.predictive());
        let mut records = Vec::with_capacity(workload.len());
        let mut rejected = Vec::new();
        let start = [
            workload.first().map(|j| j.submit),
            requests.iter().map(|r| run.hint_time(r)).min(),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(Time::ZERO);
        let start = if preload.is_empty() {
            start
        } else {
            start.min(Time::ZERO)
        };
        run.events = EventQueue::new(start);
        for (i, job) in workload.iter().enumerate() {
            run.events
                .schedule(job.submit, SimEvent::Arrival(i))
                .expect("submits are at or after the start");
        }
        let hint_times: Vec<Time> = requests.iter().map(|r| run.hint_time(r)).collect();
        let events = &mut run.events;
        for (i, r) in requests.iter().enumerate() {
            events
                .schedule(r.submit, SimEvent::Request(i))
                .expect("requests are at or after the start");
            if hints {
                events
                    .schedule(hint_times[i], SimEvent::Hint(i))
                    .expect("hints are at or after the start");
            }
        }
        if predictive && !requests.is_empty() {
            events
                .schedule(Predictor::next_slot_start(start), SimEvent::Slot)
                .expect("the next slot is after the start");
        }
        let mut easy = Easy::default();
        let mut started: Vec<Started> = Vec::new();
        let mut free = batch_nodes;
        let mut preloaded_jobs = 0;
        for job in &preload {
            if job.size <= free {
                free -= job.size;
                preloaded_jobs += 1;
                run.cluster.submit(*job)?;
            }
        }
        run.cluster.schedule(start, &mut easy, &mut started);
        run.started(start, &mut started)?;
        let mut uses = NodeSeconds::default();
        let mut last = start;
        while let Some((now, first)) = run.events.pop() {
            run.account(&mut uses, (now - last).0);
            last = now;
            let mut next = Some(first);
            while let Some(event) = next {
                match event {
                    SimEvent::Completion(token) => {
                        let record = run.job_ended(now, token)?;
                        records.extend(record.filter(|r| !preloaded.contains(&r.id)));
                    }
                    SimEvent::LeaseEnd(i) => run.lease_ended(now, i)?,
                    SimEvent::Hint(i) => run.hint(now, i)?,
                    SimEvent::Slot => run.slot(now)?,
                    SimEvent::Request(i) => run.request(now, i)?,
                    SimEvent::Arrival(i) => {
                        let job = workload[i];
                        if job.size > batch_nodes || run.cluster.submit(job)? == Submitted::Rejected
                        {
                            rejected.push(job.unstarted_record());
                        }
                    }
                    SimEvent::Tick => run.tick(now)?,
                }
                next = run.events.pop_now();
            }
            run.cluster.schedule(now, &mut easy, &mut started);
            run.started(now, &mut started)?;
            run.schedule_tick(now);
        }
        rejected.extend(run.cluster.queue().map(|q| q.job.unstarted_record()));
        records.append(&mut rejected);
        let batch = Report::new(
            batch_nodes,
            &records,
            invalid,
            run.cluster.busy_unit_seconds(),
            self.tau,
        );
        let request_records: Vec<RequestRecord> = requests
            .iter()
            .zip(&run.granted)
            .map(|(&request, &granted)| RequestRecord { request, granted })
            .collect();
        let area = f64::from(self.nodes) * (last - start).0 as f64;
        let share = |s: i64| if area > 0.0 { s as f64 / area } else { 0.0 };
        let report = SimReport {
            configuration: self.configuration.name().to_owned(),
            nodes: self.nodes,
            start_s: start.0,
            end_s: last.0,
            node_seconds: uses,
            combined_utilization: share(uses.batch_busy + uses.on_demand_allocated),
            batch_utilization: share(uses.batch_busy),
            on_demand_utilization: share(uses.on_demand_allocated),
            reserve_idle_node_hours: uses.reserve_idle as f64 / 3600.0,
            preloaded_jobs,
            batch,
            on_demand: on_demand_summary(&request_records),
        };
        Ok(SimOutcome {
            report,
            records,
            requests: request_records,
        })
    }

    /// A dedicated pool of the last `size` nodes, taken offline in `cluster`.
    fn pool(
        &self,
        cluster: &mut BatchCluster,
        size: u32,
        window: Duration,
    ) -> Result<Side, SimError> {
        for node in self.nodes - size..self.nodes {
            cluster.set_offline(NodeId(node))?;
        }
        Ok(Side::Pool(DedicatedPool {
            free: size,
            window,
            pending: Vec::new(),
        }))
    }
}

/// Valid requests sorted by (submit, id).
fn admit_requests(requests: &[LeaseRequest]) -> Result<Vec<LeaseRequest>, SimError> {
    let mut sorted = requests.to_vec();
    sorted.sort_by_key(|r| (r.id, r.submit));
    for (i, r) in sorted.iter().enumerate() {
        if i > 0 && sorted[i - 1].id == r.id {
            return Err(SimError::DuplicateRequest(r.id));
        }
        r.validate()
            .map_err(|source| SimError::InvalidRequest { id: r.id, source })?;
    }
    sorted.sort_by_key(|r| (r.submit, r.id));
    Ok(sorted)
}

fn on_demand_summary(records: &[RequestRecord]) -> OnDemandSummary {
    let waits: Vec<i64> = records
        .iter()
        .filter_map(|r| r.granted.map(|g| (g - r.request.submit).0))
        .collect();
    let requests = records.len();
    let rejected = requests - waits.len();
    OnDemandSummary {
        requests,
        granted: waits.len(),
        rejected,
        reject_rate: if requests > 0 {
            rejected as f64 / requests as f64
        } else {
            0.0
        },
        mean_wait_s: if waits.is_empty() {
            0.0
        } else {
            waits.iter().sum::<i64>() as f64 / waits.len() as f64
        },
        max_wait_s: waits.iter().copied().max().unwrap_or(0),
    }
}

#[derive(Clone, Copy, Debug)]
enum SimEvent {
    Completion(RunToken),
    LeaseEnd(usize),
    Hint(usize),
    Slot,
    Request(usize),
    Arrival(usize),
    Tick,
}

impl Event for SimEvent {
    fn class(&self) -> u8 {
        match self {
            SimEvent::Completion(_) => 0,
            SimEvent::LeaseEnd(_) => 1,
            SimEvent::Hint(_) | SimEvent::Slot => 2,
            SimEvent::Request(_) => 3,
            SimEvent::Arrival(_) => 4,
            SimEvent::Tick => 5,
        }
    }
}

/// The static baselines' on-demand pool: grant when free, else wait up to `W` (oldest first)
/// for lease ends, else reject.
struct DedicatedPool {
    free: u32,
    window: Duration,
    /// Waiting requests: (index, nodes, deadline), oldest first.
    pending: Vec<(usize, u32, Time)>,
}

enum Side {
    Balancer {
        balancer: Box<Balancer>,
        predictor: Option<Predictor>,
        hints: bool,
    },
    Pool(DedicatedPool),
}

/// The state of one run.
struct Run<'a> {
    cluster: BatchCluster,
    side: Side,
    requests: &'a [LeaseRequest],
    granted: Vec<Option<Time>>,
    /// The nodes each granted request holds (the Balancer's; the static pool counts only).
    held: Vec<Vec<NodeId>>,
    /// The Balancer's pending requests, by its ids.
    waiting: BTreeMap<LeaseId, usize>,
    /// Nodes allocated to leases now.
    allocated: u32,
    /// Requests not yet made.
    requests_left: usize,
    /// The earliest tick scheduled and not yet run.
    tick_at: Option<Time>,
    events: EventQueue<SimEvent>,
}

impl Run<'_> {
    fn hints(&self) -> bool {
        matches!(self.side, Side::Balancer { hints: true, .. })
    }

    fn predictive(&self) -> bool {
        matches!(
            self.side,
            Side::Balancer {
                predictor: Some(_),
                ..
            }
        )
    }

    /// When a request's hint is given (its submit less its notice), under Hint.
    fn hint_time(&self, r: &LeaseRequest) -> Time {
        match (self.hints(), r.notice) {
            (true, Some(notice)) => r.submit - notice,
            _ => r.submit,
        }
    }

    /// Adds `dt` seconds of the current node uses.
    fn account(&self, uses: &mut NodeSeconds, dt: i64) {
        let reserve = self.cluster.offline_units() - self.allocated;
        uses.batch_busy += i64::from(self.cluster.busy_units()) * dt;
        uses.on_demand_allocated += i64::from(self.allocated) * dt;
        uses.reserve_idle += i64::from(reserve) * dt;
        uses.batch_idle += i64::from(self.cluster.free_units()) * dt;
    }

    fn job_ended(&mut self, now: Time, token: RunToken) -> Result<Option<JobRecord>, SimError> {
        let updates: Vec<NodeUpdate> = match self.side {
            Side::Balancer { .. } => self
                .cluster
                .job_nodes(token.job)?
                .iter()
                .map(|&n| NodeUpdate::JobEnded(n))
                .collect(),
            Side::Pool(_) => Vec::new(),
        };
        let record = self.cluster.complete(now, token);
        if let Side::Balancer { balancer, .. } = &mut self.side {
            let d = balancer.update_nodes(now, &updates, &mut self.cluster)?;
            self.apply(now, d)?;
        }
        Ok(record)
    }

    fn started(&mut self, now: Time, started: &mut Vec<Started>) -> Result<(), SimError> {
        let mut updates = Vec::new();
        for s in started.drain(..) {
            self.events
                .schedule(s.end, SimEvent::Completion(s.token))
                .expect("runs end at or after their start");
            if matches!(self.side, Side::Balancer { .. }) {
                let nodes = self.cluster.job_nodes(s.token.job)?;
                updates.extend(nodes.iter().map(|&n| NodeUpdate::JobStarting(n)));
            }
        }
        if let Side::Balancer { balancer, .. } = &mut self.side
            && !updates.is_empty()
        {
            let d = balancer.update_nodes(now, &updates, &mut self.cluster)?;
            self.apply(now, d)?;
        }
        Ok(())
    }

    fn request(&mut self, now: Time, i: usize) -> Result<(), SimError> {
        self.requests_left -= 1;
        let nodes = self.requests[i].nodes;
        match &mut self.side {
            Side::Balancer {
                balancer,
                predictor,
                ..
            } => {
                if let Some(p) = predictor {
                    p.record_request(now, nodes);
                }
                match balancer.request_nodes(now, nodes, &mut self.cluster)? {
                    RequestOutcome::Granted(g) => self.grant(now, i, g.nodes),
                    RequestOutcome::Pending { request, .. } => {
                        self.waiting.insert(request, i);
                    }
                    RequestOutcome::Rejected => {}
                }
            }
            Side::Pool(pool) => {
                if nodes <= pool.free {
                    pool.free -= nodes;
                    self.grant(now, i, Vec::new());
                } else if pool.window > Duration::ZERO {
                    pool.pending
                        .push((i, nodes, now.saturating_add(pool.window)));
                }
            }
        }
        Ok(())
    }

    fn lease_ended(&mut self, now: Time, i: usize) -> Result<(), SimError> {
        self.allocated -= self.requests[i].nodes;
        match &mut self.side {
            Side::Balancer { balancer, .. } => {
                let nodes = std::mem::take(&mut self.held[i]);
                let d = balancer.release_nodes(now, &nodes, &mut self.cluster)?;
                self.apply(now, d)
            }
            Side::Pool(pool) => {
                pool.free += self.requests[i].nodes;
                let mut granted = Vec::new();
                pool.pending.retain(|&(j, nodes, _)| {
                    let fits = nodes <= pool.free;
                    if fits {
                        pool.free -= nodes;
                        granted.push(j);
                    }
                    !fits
                });
                for j in granted {
                    self.grant(now, j, Vec::new());
                }
                Ok(())
            }
        }
    }

    fn hint(&mut self, now: Time, i: usize) -> Result<(), SimError> {
        let r = self.requests[i];
        if let Side::Balancer { balancer, .. } = &mut self.side {
            let out = balancer.add_reserve(now, r.submit, r.nodes, &mut self.cluster)?;
            self.apply(now, out.decisions)?;
        }
        Ok(())
    }

    fn slot(&mut self, now: Time) -> Result<(), SimError> {
        if let Side::Balancer {
            balancer,
            predictor: Some(p),
            ..
        } = &mut self.side
        {
            let target = p.reserve_for_slot(now);
            let out = balancer.reserve_at_least(now, now, target, &mut self.cluster)?;
            self.apply(now, out.decisions)?;
        }
        if self.requests_left > 0 {
            self.events
                .schedule(Predictor::next_slot_start(now), SimEvent::Slot)
                .expect("the next slot is later");
        }
        Ok(())
    }

    fn tick(&mut self, now: Time) -> Result<(), SimError> {
        if self.tick_at == Some(now) {
            self.tick_at = None;
        }
        match &mut self.side {
            Side::Balancer { balancer, .. } => {
                if balancer.next_deadline().is_some_and(|d| d <= now) {
                    let d = balancer.tick(now, &mut self.cluster)?;
                    self.apply(now, d)?;
                }
            }
            // Waiting requests whose deadline has come are rejected (not granted).
            Side::Pool(pool) => pool.pending.retain(|&(_, _, deadline)| deadline > now),
        }
        self.schedule_tick(now);
        Ok(())
    }

    /// Schedules a tick at the next deadline unless one is scheduled by then.
    fn schedule_tick(&mut self, now: Time) {
        let next = match &self.side {
            Side::Balancer { balancer, .. } => balancer.next_deadline(),
            Side::Pool(pool) => pool.pending.iter().map(|p| p.2).min(),
        };
        let Some(at) = next.map(|t| t.max(now)) else {
            return;
        };
        if self.tick_at.is_none_or(|t| at < t) {
            self.events
                .schedule(at, SimEvent::Tick)
                .expect("not in the past");
            self.tick_at = Some(at);
        }
    }

    /// Acts on the Balancer's decisions: grants start leases; rejections need nothing (the
    /// request stays ungranted); nodes returned to batch are the cluster's already.
    fn apply(&mut self, now: Time, d: Decisions) -> Result<(), SimError> {
        for g in d.granted {
            let i = self
                .waiting
                .remove(&g.request)
                .ok_or(BalancerError::OutOfSync {
                    node: g.nodes.first().copied().unwrap_or(NodeId(0)),
                    what: "a grant of a request that is not pending",
                })?;
            self.grant(now, i, g.nodes);
        }
        for id in d.rejected {
            self.waiting.remove(&id);
        }
        Ok(())
    }

    /// Starts request `i`'s lease on `nodes` (none for the static pool, which only counts).
    fn grant(&mut self, now: Time, i: usize, nodes: Vec<NodeId>) {
        let r = self.requests[i];
        self.held[i] = nodes;
        self.granted[i] = Some(now);
        self.allocated += r.nodes;
        self.events
            .schedule(now.saturating_add(r.duration), SimEvent::LeaseEnd(i))
            .expect("leases last > 0 s");
    }
}
