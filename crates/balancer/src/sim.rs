//! The combined-cluster simulator (Liu et al., SC18, §III): the environment only. It runs an
//! EASY batch cluster and the on-demand requests on core's kernel
//! ([`cosched_core::engine::Simulation`]), turns what happens into the policy protocol's
//! [`Observation`]s, and applies the [`Command`]s the policy returns — through the
//! [`Oarm`] edge for nodes, and by starting leases for grants. Every
//! on-demand decision, baselines included, comes from the policy the caller passes: any
//! [`BalancerPolicy`] (a `cosched_core::policy::Policy` of the Balancer's protocol), such as the
//! [`crate::Balancer`] (Basic, Hint), [`crate::predictor::Predictive`] or
//! [`crate::baseline::StaticSplit`] (all-batch, the 304 + 68 split, all-on-demand) that
//! [`crate::scenario`] builds, or the caller's own. Same input, same output.
//!
//! The simulator reads nothing of the policy but its commands and its
//! [`next_wake`](cosched_core::policy::Policy::next_wake): both policies, the on-demand one
//! and the batch side's ([`Simulation::with_batch_scheduler`], EASY by default, §III), are
//! driven by core's [`Driver`]. The view it lends is every node's name ([`node_name`]) and
//! state in the simulated cluster.
//!
//! ## Event order at one instant
//! **Batch completions** (reported as `JobEnded`, so the nodes they free can be taken for a
//! waiting request before the batch scheduler sees them), **lease ends** (`Release`),
//! **hints** (`Hint`), **lease requests** (`Request`), **batch arrivals**, then the **tick**
//! (last: a node freed exactly at a deadline counts). Then one batch pass (under
//! [`Simulation::with_batch_cycle`]'s Maui cycle, only when an iteration runs); the started
//! jobs' nodes are reported with `JobStarting`, and a tick is scheduled at the policy's next
//! wake time.
//!
//! ## Method (§III-A)
//! - Preloading: [`Workload::preload`] jobs (the previous week's jobs still running at its
//!   end) start before anything else, as the paper did to remove the ramp-up.
//! - Utilisation is "usage over time" over the experiment's span: from the start to the last
//!   submission (batch or on-demand), the week being replayed; node-seconds go through
//!   [`UsageLedger`] over that window and over the whole run.
//! - A batch job wider than the nodes batch can ever have is counted in
//!   [`SimReport::too_wide`], recorded with no start, and never silently dropped.
//! - Checked time: a job or lease whose end would overflow the clock is refused at admission
//!   ([`SimReport::unrepresentable`]); work is proportional to the events, never to the span.

use crate::BalancerError;
use crate::oarm::{self, Oarm};
use crate::policy::{BalancerPolicy, Command, Observation, RmNode, RmNodeState};
use crate::report::{NodeSeconds, RequestRecord, SimOutcome, SimReport, on_demand_summary};
use crate::testbed::{BatchCycle, Iterations};
use crate::workload::{LeaseRequest, Workload};
use cosched_batch::scenario::BatchScheduler;
use cosched_batch::{
    BatchCluster, BatchError, BatchJob, BatchPolicy, ClusterPass, OfflineOutcome, RunToken,
    SchedulingPass, Started,
};
use cosched_core::driver::{CallError, Driver, Executor};
use cosched_core::engine::{self, EngineError, Event, EventQueue};
use cosched_core::usage::{UsageKind, UsageLedger};
use cosched_core::{
    DEFAULT_SLOWDOWN_TAU, Duration, JobId, JobRecord, LeaseId, NodeId, ParamError, Pool, Report,
    RigidJob, Time,
};
use cosched_workload::admit::admit;
use std::collections::{BTreeMap, BTreeSet};
use thiserror::Error;

/// Why a simulation could not run; `E` is the policy's error.
#[derive(Debug, Error)]
pub enum SimError<E = BalancerError> {
    /// A parameter out of range (cluster size).
    #[error(transparent)]
    Param(#[from] ParamError),
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
    /// Two batch jobs (or a job and a preloaded one) with one id.
    #[error("job id {0} appears more than once")]
    DuplicateJob(JobId),
    /// The batch cluster (or the batch side's policy) refused an operation.
    #[error(transparent)]
    Batch(#[from] BatchError),
    /// The policy refused a call (at start: its parameters do not fit the cluster; later, a
    /// policy bug: its view and the simulator's disagreed), or never quieted.
    #[error(transparent)]
    Policy(#[from] CallError<E>),
    /// The policy could not be built for the run (a scenario arm's builder refused its inputs).
    #[error("the policy could not be built: {0}")]
    Build(#[source] E),
    /// The policy granted a request that is not waiting (unknown, or answered already).
    #[error("the policy granted {0}, which is not waiting")]
    GrantNotWaiting(LeaseId),
    /// The batch cluster refused a node command.
    #[error(transparent)]
    Execute(#[from] oarm::ExecuteError<SimOarmError>),
    /// The kernel refused an event.
    #[error(transparent)]
    Engine(#[from] EngineError),
}

impl<E> From<cosched_batch::SimError<BatchError>> for SimError<E> {
    fn from(e: cosched_batch::SimError<BatchError>) -> Self {
        SimError::Batch(e.into())
    }
}

/// Simulates a combined cluster of `nodes` nodes under a policy the caller passes.
///
/// ```
/// use cosched_balancer::baseline::StaticSplit;
/// use cosched_balancer::sim::Simulation;
/// use cosched_balancer::workload::{LeaseRequest, Workload};
/// use cosched_balancer::{Balancer, BalancerConfig, Strategy};
/// use cosched_core::{Duration, JobId, LeaseId, RigidJob, Time};
/// let jobs = [RigidJob::new(JobId(0), Time(0), 4, Duration(100), Duration(100)).unwrap()];
/// let requests = [LeaseRequest {
///     id: LeaseId(0), submit: Time(10), nodes: 2, duration: Duration(50), notice: None,
/// }];
/// let workload = Workload::new(&jobs, &requests);
/// let config = BalancerConfig::new(Strategy::Basic { static_reserve: 0 });
/// let mut basic = Balancer::new(config);
/// let out = Simulation::new(6).unwrap().run(&mut basic, &workload).unwrap();
/// assert_eq!(out.report.on_demand.granted, 1);
/// // The run lasts until the released nodes' hold I (10 min by default) ends at 60 + 600 s.
/// assert_eq!(out.report.node_seconds_run.total(), 6 * 660);
/// let mut dedicated = StaticSplit::new(1, Duration(0));
/// let out = Simulation::new(6).unwrap().run(&mut dedicated, &workload).unwrap();
/// assert_eq!(out.report.on_demand.rejected, 1);
/// ```
#[derive(Clone, Debug)]
pub struct Simulation {
    nodes: u32,
    tau: Duration,
    hints: bool,
    batch_nodes: u32,
    label: String,
    batch: BatchScheduler,
    cycle: BatchCycle,
}

impl Simulation {
    /// A simulator for `nodes` nodes (at least 1): no hints, every node open to batch jobs,
    /// EASY as the batch side's scheduler, reports labelled `policy`.
    pub fn new(nodes: u32) -> Result<Simulation, ParamError> {
        ParamError::check(nodes >= 1, "nodes", nodes, "a cluster needs >= 1 node")?;
        Ok(Simulation {
            nodes,
            tau: DEFAULT_SLOWDOWN_TAU,
            hints: false,
            batch_nodes: nodes,
            label: "policy".to_owned(),
            batch: BatchScheduler::default(),
            cycle: BatchCycle::Immediate,
        })
    }

    /// Uses `tau` for the batch jobs' bounded slowdown instead of 10 s.
    pub fn with_slowdown_tau(mut self, tau: Duration) -> Simulation {
        self.tau = tau;
        self
    }

    /// With `hints`, each request's notice reaches the policy as an [`Observation::Hint`]
    /// (`N` = its nodes by `H` = its submission) at `submit − notice` (the Hint strategy's
    /// user notification, §III-B4); without, notices are ignored.
    pub fn with_hints(mut self, hints: bool) -> Simulation {
        self.hints = hints;
        self
    }

    /// Batch jobs wider than `batch_nodes` (the nodes batch can ever have under the policy,
    /// e.g. `N − R`) are counted in [`SimReport::too_wide`] and never queued (the default:
    /// every node).
    pub fn with_batch_nodes(mut self, batch_nodes: u32) -> Simulation {
        self.batch_nodes = batch_nodes.min(self.nodes);
        self
    }

    /// Names the policy in the report ([`SimReport::configuration`]).
    pub fn with_label(mut self, label: impl Into<String>) -> Simulation {
        self.label = label.into();
        self
    }

    /// Runs the batch side's scheduler as `cycle` says ([`crate::testbed`]; the default is
    /// [`BatchCycle::Immediate`]).
    pub fn with_batch_cycle(mut self, cycle: BatchCycle) -> Simulation {
        self.cycle = cycle;
        self
    }

    /// Schedules the batch side with `scheduler` (a fresh policy each run) instead of EASY.
    pub fn with_batch_scheduler(mut self, scheduler: impl Into<BatchScheduler>) -> Simulation {
        self.batch = scheduler.into();
        self
    }

    /// Simulates `workload` to the end under `policy`, which is started at the run's start.
    ///
    /// The preloaded jobs (§III-A) start at the run's start (the earliest event, no later
    /// than time 0), before anything else. They count in the node uses, not in the batch
    /// jobs' records and waits. They are taken in (submit, id) order while they fit on the
    /// batch side; the others are counted in [`SimReport::preload_left_out`].
    pub fn run<P: BalancerPolicy + ?Sized>(
        &self,
        policy: &mut P,
        workload: &Workload<'_>,
    ) -> Result<SimOutcome, SimError<P::Error>> {
        self.cycle.validate()?;
        let admitted = admit(workload.jobs).map_err(|e| SimError::DuplicateJob(e.0))?;
        let preload_admitted = admit(workload.preload).map_err(|e| SimError::DuplicateJob(e.0))?;
        let mut unrepresentable = 0;
        let mut representable = |j: &RigidJob| {
            let ok = j
                .submit
                .checked_add(j.runtime)
                .and_then(|t| t.checked_add(j.estimate))
                .is_some();
            unrepresentable += usize::from(!ok);
            ok
        };
        let jobs: Vec<RigidJob> = admitted
            .jobs
            .into_iter()
            .filter(&mut representable)
            .collect();
        let preload: Vec<RigidJob> = preload_admitted
            .jobs
            .into_iter()
            .filter(&mut representable)
            .collect();
        let invalid = admitted.invalid;
        let preloaded: BTreeSet<JobId> = preload.iter().map(|j| j.id).collect();
        if let Some(job) = jobs.iter().find(|j| preloaded.contains(&j.id)) {
            return Err(SimError::DuplicateJob(job.id));
        }
        let (requests, unrepresentable_requests) = admit_requests(workload.requests)?;
        unrepresentable += unrepresentable_requests;
        let hinting = self.hints;
        let hint_time = |r: &LeaseRequest| match (hinting, r.notice) {
            (true, Some(n)) => r.submit.0.checked_sub(n.0).map_or(r.submit, Time),
            _ => r.submit,
        };
        let start = [
            jobs.first().map(|j| j.submit),
            requests.iter().map(&hint_time).min(),
            (!preload.is_empty()).then_some(Time::ZERO),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(Time::ZERO);
        let span_end = [
            jobs.last().map(|j| j.submit),
            requests.last().map(|r| r.submit),
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(start);
        let batch_nodes = self.batch_nodes;
        let mut cluster = BatchCluster::new(self.nodes)?;
        let mut run = Run {
            env: Env {
                cluster: SimOarm(&mut cluster),
                view: (0..self.nodes)
                    .map(|i| RmNode {
                        name: node_name(NodeId(i)),
                        state: RmNodeState::BatchIdle,
                    })
                    .collect(),
                requests: &requests,
                index: requests
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (r.id, i))
                    .collect(),
                workload: &jobs,
                batch_nodes,
                granted: vec![None; requests.len()],
                answered: vec![false; requests.len()],
                held: vec![Vec::new(); requests.len()],
                allocated: 0,
                env_events: 0,
                open_requests: 0,
                preloaded: &preloaded,
                records: Vec::with_capacity(jobs.len()),
                never_started: Vec::new(),
                too_wide: 0,
                started: Vec::new(),
                last: start,
                span: (start, span_end),
                whole: UsageLedger::totals_only(),
                window: UsageLedger::totals_only(),
                iterations: None,
                batch_changed: false,
                iterate_now: false,
                launch: BTreeMap::new(),
                launching: 0,
            },
            policy: Driver::new(policy),
            batch: Driver::new(self.batch.make()),
        };
        let mut queue = EventQueue::new(start);
        run.policy.start(start, &mut run.env, &mut queue)?;
        run.env.env_events = jobs.len()
            + requests.len()
            + if hinting {
                requests.iter().filter(|r| r.notice.is_some()).count()
            } else {
                0
            };
        for (i, job) in jobs.iter().enumerate() {
            queue
                .schedule(job.submit, SimEvent::Arrival(i))
                .map_err(EngineError::from)?;
        }
        for (i, r) in requests.iter().enumerate() {
            queue
                .schedule(r.submit, SimEvent::Request(i))
                .map_err(EngineError::from)?;
            if hinting && r.notice.is_some() {
                queue
                    .schedule(hint_time(r), SimEvent::Hint(i))
                    .map_err(EngineError::from)?;
            }
        }
        let mut pass = ClusterPass {
            cluster: &mut *run.env.cluster.0,
            started: &mut run.env.started,
        };
        run.batch.start(start, &mut pass, &mut ())?;
        let mut free = batch_nodes;
        let mut preloaded_jobs = 0;
        let mut preload_left_out = 0;
        for job in &preload {
            if job.size <= free {
                free -= job.size;
                preloaded_jobs += 1;
                run.env.cluster.0.submit(BatchJob::rigid(job))?;
            } else {
                preload_left_out += 1;
            }
        }
        // The preloaded jobs run from the start, whatever the batch scheduler's cycle.
        engine::Simulation::settle(&mut run, start, &mut queue)?;
        if let BatchCycle::Maui(model) = self.cycle {
            run.env.iterations = Some(Iterations::new(model, start));
        }
        let stats = engine::run(&mut run, &mut queue)?;
        let last = stats.end.max(start);
        let env = run.env;
        let unfinished: Vec<JobRecord> = env
            .cluster
            .0
            .queue()
            .map(|q| q.job.unstarted_record())
            .collect();
        let Env {
            mut records,
            mut never_started,
            granted,
            whole,
            window,
            too_wide,
            ..
        } = env;
        records.append(&mut never_started);
        records.extend(unfinished);
        let batch = Report::new(
            batch_nodes.max(1),
            &records,
            invalid,
            cluster.busy_unit_seconds(),
            self.tau,
        );
        let request_records: Vec<RequestRecord> = requests
            .iter()
            .zip(&granted)
            .map(|(&request, &granted)| RequestRecord { request, granted })
            .collect();
        let uses = NodeSeconds::from_ledger(&window);
        let run_uses = NodeSeconds::from_ledger(&whole);
        let area = f64::from(self.nodes) * (span_end.0 as f64 - start.0 as f64);
        let share = |s: i64| if area > 0.0 { s as f64 / area } else { 0.0 };
        let report = SimReport {
            configuration: self.label.clone(),
            nodes: self.nodes,
            start_s: start.0,
            span_end_s: span_end.0,
            end_s: last.0,
            node_seconds: uses,
            node_seconds_run: run_uses,
            combined_utilization: share(uses.batch_busy + uses.on_demand_allocated),
            batch_utilization: share(uses.batch_busy),
            on_demand_utilization: share(uses.on_demand_allocated),
            reserve_idle_node_hours: uses.reserve_idle as f64 / 3600.0,
            preloaded_jobs,
            preload_left_out,
            too_wide,
            unrepresentable,
            batch,
            on_demand: on_demand_summary(&request_records),
        };
        Ok(SimOutcome {
            report,
            records,
            requests: request_records,
        })
    }
}

/// The simulated nodes' hostnames.
pub fn node_name(node: NodeId) -> String {
    format!("node{:04}", node.0)
}

/// Valid requests sorted by (submit, id), and how many were left out because their end
/// overflows the clock.
fn admit_requests<E>(requests: &[LeaseRequest]) -> Result<(Vec<LeaseRequest>, usize), SimError<E>> {
    let mut sorted = requests.to_vec();
    sorted.sort_by_key(|r| (r.id, r.submit));
    for (i, r) in sorted.iter().enumerate() {
        if i > 0 && sorted[i - 1].id == r.id {
            return Err(SimError::DuplicateRequest(r.id));
        }
        r.validate()
            .map_err(|source| SimError::InvalidRequest { id: r.id, source })?;
    }
    let before = sorted.len();
    sorted.retain(|r| r.submit.checked_add(r.duration).is_some());
    let left_out = before - sorted.len();
    sorted.sort_by_key(|r| (r.submit, r.id));
    Ok((sorted, left_out))
}

#[derive(Clone, Copy, Debug)]
enum SimEvent {
    Completion(RunToken),
    LeaseEnd(usize),
    Hint(usize),
    Request(usize),
    Arrival(usize),
    Tick,
    /// The batch side's policy's wake time: the instant's batch pass delivers it.
    BatchWake,
    /// A batch scheduling iteration ([`crate::testbed`]).
    Iteration,
    /// A started job's nodes begin to run it (after its launch delay).
    Launched(u32),
}

impl Event for SimEvent {
    fn class(&self) -> u8 {
        match self {
            SimEvent::Completion(_) => 0,
            SimEvent::LeaseEnd(_) => 1,
            SimEvent::Hint(_) => 2,
            SimEvent::Request(_) => 3,
            SimEvent::Arrival(_) => 4,
            SimEvent::Tick => 5,
            SimEvent::BatchWake => 6,
            SimEvent::Iteration => 7,
            SimEvent::Launched(_) => 8,
        }
    }
}

/// A node command the simulated batch cluster refused.
#[derive(Debug, Error)]
pub enum SimOarmError {
    /// The batch cluster refused.
    #[error(transparent)]
    Batch(#[from] BatchError),
    /// A reclaim of a node that is running a job (the policy takes idle nodes only).
    #[error("{0} is busy")]
    Busy(NodeId),
}

/// The simulated batch cluster behind the [`Oarm`] edge.
struct SimOarm<'a>(&'a mut BatchCluster);

impl Oarm for SimOarm<'_> {
    type Error = SimOarmError;

    fn reclaim_node(&mut self, node: NodeId, _name: &str) -> Result<(), SimOarmError> {
        match self.0.set_offline(node)? {
            OfflineOutcome::Offline => Ok(()),
            OfflineOutcome::Draining { .. } => {
                self.0.set_online(node)?;
                Err(SimOarmError::Busy(node))
            }
        }
    }

    fn restore_node(&mut self, node: NodeId, _name: &str) -> Result<(), SimOarmError> {
        Ok(self.0.set_online(node)?)
    }
}

/// The environment of one run.
struct Env<'a> {
    cluster: SimOarm<'a>,
    /// The nodes as the policy's view: names and states, kept as the simulated cluster
    /// changes.
    view: Vec<RmNode>,
    requests: &'a [LeaseRequest],
    index: BTreeMap<LeaseId, usize>,
    workload: &'a [RigidJob],
    batch_nodes: u32,
    granted: Vec<Option<Time>>,
    answered: Vec<bool>,
    held: Vec<Vec<NodeId>>,
    allocated: u32,
    /// Environment events queued (all but ticks) and requests not yet answered: when both are
    /// none and no batch job waits, the run is over whatever the policies' timers say.
    env_events: usize,
    open_requests: usize,
    preloaded: &'a BTreeSet<JobId>,
    records: Vec<JobRecord>,
    never_started: Vec<JobRecord>,
    too_wide: usize,
    started: Vec<Started>,
    last: Time,
    span: (Time, Time),
    whole: UsageLedger,
    window: UsageLedger,
    /// The batch scheduler's iterations (`None`: a batch pass at every instant).
    iterations: Option<Iterations>,
    /// Whether the batch side changed at this instant (a submission, a completion, a node
    /// given back): a resource-manager event for the scheduler.
    batch_changed: bool,
    /// Whether an iteration runs at this instant.
    iterate_now: bool,
    /// Started jobs whose run begins after a launch delay, with the delay.
    launch: BTreeMap<JobId, Duration>,
    /// Nodes of started jobs not yet running (held, not busy: usage counts run time, as the
    /// paper's utilisation does).
    launching: u32,
}

/// A run: the environment and the drivers of its two policies.
struct Run<'a, P: BalancerPolicy + ?Sized> {
    env: Env<'a>,
    policy: Driver<&'a mut P>,
    batch: Driver<Box<dyn BatchPolicy + Send>>,
}

impl Env<'_> {
    /// Records the node uses from the last instant to `now`.
    fn account(&mut self, now: Time) {
        if now <= self.last {
            return;
        }
        let c = &self.cluster.0;
        let offline = u64::from(c.offline_units());
        let held_batch = u64::from(c.capacity()) - offline;
        let uses = [
            (Pool::Batch, UsageKind::Held, held_batch),
            (
                Pool::Batch,
                UsageKind::Busy,
                u64::from(c.busy_units().saturating_sub(self.launching)),
            ),
            (Pool::OnDemand, UsageKind::Held, offline),
            (Pool::OnDemand, UsageKind::Busy, u64::from(self.allocated)),
        ];
        let (from, to) = (self.last.max(self.span.0), now.min(self.span.1));
        for (pool, kind, units) in uses {
            // Intervals run forwards: `last < now`, and the window is clamped to be.
            let _ = self.whole.record(pool, kind, self.last, now, units);
            if from < to {
                let _ = self.window.record(pool, kind, from, to, units);
            }
        }
        self.last = now;
    }

    fn set_state(&mut self, node: NodeId, state: RmNodeState) {
        if let Some(n) = self.view.get_mut(node.index()) {
            n.state = state;
        }
    }

    /// Whether nothing is left for the policies' timers to act on.
    fn over(&self) -> bool {
        self.env_events == 0 && self.open_requests == 0 && self.cluster.0.queue_len() == 0
    }
}

/// The simulated cluster as the executor of the Balancer's protocol: node commands on the
/// batch cluster through the [`Oarm`] edge, grants as leases whose ends go on the queue.
impl<'p, P: BalancerPolicy + ?Sized> Executor<&'p mut P> for Env<'_> {
    type Context = EventQueue<SimEvent>;
    type Error = SimError<P::Error>;

    fn view(&mut self, _now: Time) -> &[RmNode] {
        &self.view
    }

    fn apply(
        &mut self,
        _: &mut Driver<&'p mut P>,
        queue: &mut EventQueue<SimEvent>,
        now: Time,
        commands: &[Command],
    ) -> Result<(), Self::Error> {
        for command in commands {
            match *command {
                Command::Reclaim(n) => self.set_state(n, RmNodeState::OnDemandFree),
                Command::Restore(n) => {
                    self.batch_changed = true;
                    self.set_state(n, RmNodeState::BatchIdle);
                }
                _ => {}
            }
        }
        for command in oarm::execute(&mut self.cluster, node_name, commands)? {
            match command {
                &Command::Reject { request } => {
                    self.open_requests = self.open_requests.saturating_sub(1);
                    if let Some(&i) = self.index.get(&request) {
                        self.answered[i] = true;
                    }
                }
                Command::Grant { request, nodes } => {
                    self.open_requests = self.open_requests.saturating_sub(1);
                    let i = *self
                        .index
                        .get(request)
                        .filter(|&&i| !self.answered[i])
                        .ok_or(SimError::GrantNotWaiting(*request))?;
                    let r = self.requests[i];
                    self.answered[i] = true;
                    self.allocated += nodes.len() as u32;
                    for &n in nodes {
                        self.set_state(n, RmNodeState::OnDemandAllocated);
                    }
                    self.held[i].clone_from(nodes);
                    self.granted[i] = Some(now);
                    queue.schedule_in(r.duration, SimEvent::LeaseEnd(i))?;
                    self.env_events += 1;
                }
                Command::Reclaim(_) | Command::Restore(_) => {}
            }
        }
        Ok(())
    }
}

impl<P: BalancerPolicy + ?Sized> engine::Simulation for Run<'_, P> {
    type Event = SimEvent;
    type Error = SimError<P::Error>;

    fn handle(
        &mut self,
        now: Time,
        event: SimEvent,
        queue: &mut EventQueue<SimEvent>,
    ) -> Result<(), Self::Error> {
        let env = &mut self.env;
        env.account(now);
        if !matches!(event, SimEvent::Tick | SimEvent::BatchWake) {
            env.env_events -= 1;
        }
        if matches!(event, SimEvent::Request(_)) {
            env.open_requests += 1;
        }
        let observation = match event {
            SimEvent::Completion(token) => {
                let nodes = env.cluster.0.job_nodes(token.job)?.to_vec();
                env.batch_changed = true;
                if let Some(mut record) = env.cluster.0.complete(now, token)
                    && !env.preloaded.contains(&record.id)
                {
                    if let Some(delay) = env.launch.remove(&record.id) {
                        record.start = record.start.map(|s| s.saturating_add(delay));
                    }
                    env.records.push(record);
                }
                for &n in &nodes {
                    env.set_state(n, RmNodeState::BatchIdle);
                }
                Observation::JobEnded { nodes }
            }
            SimEvent::LeaseEnd(i) => {
                let nodes = std::mem::take(&mut env.held[i]);
                env.allocated -= nodes.len() as u32;
                for &n in &nodes {
                    env.set_state(n, RmNodeState::OnDemandFree);
                }
                Observation::Release { nodes }
            }
            SimEvent::Hint(i) => {
                let r = env.requests[i];
                Observation::Hint {
                    by: r.submit,
                    nodes: r.nodes,
                }
            }
            SimEvent::Request(i) => {
                let r = env.requests[i];
                Observation::Request {
                    request: r.id,
                    nodes: r.nodes,
                    wait: None,
                }
            }
            SimEvent::Arrival(i) => {
                let job = env.workload[i];
                env.batch_changed = true;
                if job.size > env.batch_nodes {
                    env.too_wide += 1;
                    env.never_started
                        .push(BatchJob::rigid(&job).unstarted_record());
                } else {
                    env.cluster.0.submit(BatchJob::rigid(&job))?;
                }
                return Ok(());
            }
            SimEvent::Tick => {
                self.policy.wake_due(now, env, queue)?;
                return Ok(());
            }
            // Delivered by the instant's batch pass.
            SimEvent::BatchWake => return Ok(()),
            SimEvent::Iteration => {
                if let Some(it) = &mut env.iterations {
                    env.iterate_now |= it.is_due(now);
                }
                return Ok(());
            }
            SimEvent::Launched(size) => {
                env.launching = env.launching.saturating_sub(size);
                return Ok(());
            }
        };
        self.policy.observe(now, &observation, env, queue)?;
        Ok(())
    }

    fn settle(&mut self, now: Time, queue: &mut EventQueue<SimEvent>) -> Result<(), Self::Error> {
        let env = &mut self.env;
        env.account(now);
        let changed = std::mem::take(&mut env.batch_changed);
        let iterate = match &mut env.iterations {
            None => true,
            Some(it) => {
                if changed && let Some(at) = it.on_change(now) {
                    if at == now {
                        env.iterate_now |= it.is_due(now);
                    } else {
                        queue
                            .schedule(at, SimEvent::Iteration)
                            .map_err(EngineError::from)?;
                        env.env_events += 1;
                    }
                }
                std::mem::take(&mut env.iterate_now)
            }
        };
        // Under a scheduling cycle, the batch policy (its wakes included) runs only in an
        // iteration; a wake due in between waits for the next one.
        if iterate {
            let mut pass = ClusterPass {
                cluster: &mut *env.cluster.0,
                started: &mut env.started,
            };
            self.batch.wake_due(now, &mut pass, &mut ())?;
            self.batch
                .observe(now, &SchedulingPass, &mut pass, &mut ())?;
        }
        let latency = match &mut env.iterations {
            Some(it) if iterate => it.iterate(now, env.started.len()),
            _ => Duration::ZERO,
        };
        let mut starting = Vec::new();
        for (k, s) in std::mem::take(&mut env.started).into_iter().enumerate() {
            // Torque starts an iteration's jobs one after another (ASYNCJOBSTART = FALSE).
            let delay = Duration(latency.0.saturating_mul(k as i64 + 1));
            let end = s.end.try_add(delay).map_err(EngineError::from)?;
            if delay > Duration::ZERO {
                env.launch.insert(s.token.job, delay);
                env.launching += s.size;
                queue
                    .schedule(
                        now.try_add(delay).map_err(EngineError::from)?,
                        SimEvent::Launched(s.size),
                    )
                    .map_err(EngineError::from)?;
                env.env_events += 1;
            }
            queue
                .schedule(end, SimEvent::Completion(s.token))
                .map_err(EngineError::from)?;
            env.env_events += 1;
            starting.extend_from_slice(env.cluster.0.job_nodes(s.token.job)?);
        }
        if iterate
            && env.cluster.0.queue_len() > 0
            && let Some(at) = env
                .iterations
                .as_mut()
                .and_then(|it| it.after_iteration(now))
        {
            queue
                .schedule(at, SimEvent::Iteration)
                .map_err(EngineError::from)?;
            env.env_events += 1;
        }
        for &n in &starting {
            env.set_state(n, RmNodeState::BatchBusy);
        }
        if !starting.is_empty() {
            self.policy.observe(
                now,
                &Observation::JobStarting { nodes: starting },
                env,
                queue,
            )?;
        }
        if !env.over() {
            self.policy.arm(now, queue, SimEvent::Tick)?;
            self.batch.arm(now, queue, SimEvent::BatchWake)?;
        }
        Ok(())
    }
}
