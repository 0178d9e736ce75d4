//! The hybrid-workload simulator (Fan et al., IPDPS 2022, the evaluation's set-up): one
//! system of identical nodes running rigid, malleable and on-demand jobs under FCFS + EASY,
//! with a composed mechanism — a notice strategy ([`NoticeStrategy`]) × an on-arrival
//! mechanism ([`MechanismKind`]) — or none (the baseline, where on-demand jobs queue like any
//! batch job).
//!
//! ## Model
//! - **Rigid** jobs pay their setup on every (re)start and checkpoint every Daly interval
//!   ([`CheckpointPolicy`], counted from the start of each run); a preempted or failed rigid
//!   job keeps the progress (beyond setup) saved by its last checkpoint and is requeued with
//!   its remaining work plus setup, under its original submit time.
//! - **Malleable** jobs run `work / n + setup` on `n` nodes; a shrink or expansion spreads the
//!   remaining node-seconds over the new size ([`cosched_batch::BatchCluster::resize`]); a
//!   preemption saves where it stopped (its warning is spent as the overhead the mechanisms
//!   rank it by) and it resumes with its remaining work plus setup. A failure restarts its run.
//! - **On-demand** jobs bypass the batch queue: at arrival they take their reserved nodes, then
//!   idle nodes, then what the on-arrival mechanism frees. If it cannot free enough they wait
//!   at the front of the queue (first come, first served among them), the first collecting
//!   nodes as they free; the others hold none, so none can starve the first. They hold their
//!   nodes outside the batch scheduler (offline in its cluster). A failure restarts them at
//!   once.
//! - Under CUA and CUP, a reservation's idle nodes run *guests* while it waits
//!   ([`crate::notice::guests`]: queued jobs expected to end before the estimated arrival, then
//!   malleable jobs); guests still running at the arrival are preempted, and the nodes of a
//!   guest that ends go back to the reservation. Guests are not candidates for the mechanisms.
//! - On an on-demand job's completion its nodes go back to the lenders first: a shrunk job
//!   still running expands back, a preempted job still waiting starts on them if it fits; the
//!   rest go to reservations, then to the batch scheduler.
//! - **Failures** (optional): node failures arrive as a Poisson process at the system MTBF on a
//!   uniformly drawn node; repairs take an exponential time ([`Failures::mean_repair`], 6 h in
//!   the examples: [`DEFAULT_REPAIR`]).
//!
//! At each instant: completions, failures and repairs, expiries, planned preemptions, notices,
//! on-demand arrivals, batch submissions (each in job order); then the idle nodes go to waiting
//! on-demand jobs, lenders, reservations, guests of the reservations, and one EASY pass runs.
//!
//! ## Accounting
//! Every job's *delivered* node-seconds (time × size of all its runs) minus its *wasted*
//! node-seconds (work lost since the last checkpoint, repeated setups, restarted runs) equals
//! its required node-seconds — exactly for rigid and on-demand jobs, and up to the rounding of
//! the resizes (under one node-second per node and run segment) for malleable jobs.
//! [`JobAccount`] exposes it; the utilisation the paper reports counts useful work only.
//! [`UsageLog`] records *when* nodes were held and work was thrown away (lost work over the
//! run it was lost in, a malleable job's repeated setup right after its preemption), so that
//! useful utilisation can be read over any window: [`HybridReport::window_utilization`] reads
//! it between the first and the last submission, the period over which a machine with a
//! steady stream of jobs is judged; [`HybridReport::utilization`] over the whole makespan.

use crate::HybridError;
use crate::checkpoint::CheckpointPolicy;
use crate::mechanism::{
    DEFAULT_WARNING, Decision, Mechanism, MechanismKind, RunningKind, RunningView,
};
use crate::notice::{
    Notice, NoticeBoard, NoticeStrategy, PlannedJob, PlannedPreemption, QueuedView, guests,
};
use cosched_batch::{
    BatchCluster, BatchJob, BatchScheduler, Pass, Policy, Resume, RunToken, Started, Submitted,
};
use cosched_core::{
    Duration, Event, EventQueue, JobClass, JobId, JobRecord, MalleableJob, NodeId, NodeState,
    OnDemandJob, ParamError, RigidJob, Time,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::fmt;

/// Mean repair time of a failed node: 6 hours.
pub const DEFAULT_REPAIR: Duration = Duration::from_hours(6);

/// One job of a hybrid workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HybridJob {
    /// A rigid job; `setup` (part of its run time) is paid again on every restart.
    Rigid {
        /// The job (its run time is cut at its estimate).
        job: RigidJob,
        /// Setup time, at most its run time.
        setup: Duration,
    },
    /// A malleable job, submitted at its largest size.
    Malleable {
        /// The job.
        job: MalleableJob,
        /// The runtime estimate at its largest size.
        estimate: Duration,
    },
    /// An on-demand job.
    OnDemand(OnDemandJob),
}

impl HybridJob {
    /// The job's id.
    pub fn id(&self) -> JobId {
        match self {
            HybridJob::Rigid { job, .. } => job.id,
            HybridJob::Malleable { job, .. } => job.id,
            HybridJob::OnDemand(job) => job.id,
        }
    }

    /// Its class.
    pub fn class(&self) -> JobClass {
        match self {
            HybridJob::Rigid { .. } => JobClass::Rigid,
            HybridJob::Malleable { .. } => JobClass::Malleable,
            HybridJob::OnDemand(_) => JobClass::OnDemand,
        }
    }

    /// Nodes requested (a malleable job's largest size).
    pub fn size(&self) -> u32 {
        match self {
            HybridJob::Rigid { job, .. } => job.size,
            HybridJob::Malleable { job, .. } => job.max_size,
            HybridJob::OnDemand(job) => job.size,
        }
    }

    /// When it enters the system: submission, or arrival of an on-demand job.
    pub fn submit(&self) -> Time {
        match self {
            HybridJob::Rigid { job, .. } => job.submit,
            HybridJob::Malleable { job, .. } => job.submit,
            HybridJob::OnDemand(job) => job.arrival,
        }
    }
}

/// A mechanism: a notice strategy composed with an on-arrival mechanism (the paper's six).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Composite {
    /// On notice.
    pub notice: NoticeStrategy,
    /// On arrival.
    pub arrival: MechanismKind,
}

impl Composite {
    /// The six compositions in the paper's order: N, CUA, CUP × PAA, SPAA.
    pub const ALL: [Composite; 6] = [
        Composite::new(NoticeStrategy::N, MechanismKind::Paa),
        Composite::new(NoticeStrategy::N, MechanismKind::Spaa),
        Composite::new(NoticeStrategy::Cua, MechanismKind::Paa),
        Composite::new(NoticeStrategy::Cua, MechanismKind::Spaa),
        Composite::new(NoticeStrategy::Cup, MechanismKind::Paa),
        Composite::new(NoticeStrategy::Cup, MechanismKind::Spaa),
    ];

    /// `notice` × `arrival`.
    pub const fn new(notice: NoticeStrategy, arrival: MechanismKind) -> Composite {
        Composite { notice, arrival }
    }
}

impl fmt::Display for Composite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let arrival = match self.arrival {
            MechanismKind::Paa => "PAA",
            MechanismKind::Spaa => "SPAA",
        };
        write!(f, "{}&{arrival}", self.notice)
    }
}

/// The name of a configuration in reports: `baseline` without a mechanism, else e.g.
/// `CUP&SPAA`.
///
/// ```
/// use cosched_hybrid::{Composite, mechanism_name};
/// assert_eq!(mechanism_name(None), "baseline");
/// assert_eq!(mechanism_name(Some(Composite::ALL[5])), "CUP&SPAA");
/// ```
pub fn mechanism_name(mechanism: Option<Composite>) -> String {
    mechanism.map_or_else(|| "baseline".to_string(), |m| m.to_string())
}

/// Node failures: a Poisson process at the system MTBF, exponential repairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failures {
    /// System mean time between failures.
    pub mtbf: Duration,
    /// Mean repair time.
    pub mean_repair: Duration,
}

/// What to simulate: the system, the mechanism and the job models' parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HybridConfig {
    /// Nodes in the system.
    pub nodes: u32,
    /// The mechanism; `None` for the baseline (on-demand jobs queue under FCFS + EASY).
    pub mechanism: Option<Composite>,
    /// The base batch policy (EASY in the paper).
    pub policy: Policy,
    /// Rigid jobs' checkpointing.
    pub checkpoint: CheckpointPolicy,
    /// Warning a malleable job gets before a preemption (on arrival, and planned by CUP).
    pub warning: Duration,
    /// Node failures, if injected.
    pub failures: Option<Failures>,
    /// Seed of the failure process.
    pub seed: u64,
}

impl HybridConfig {
    /// `nodes` nodes under `mechanism`, EASY, checkpoints for a 24-hour MTBF, the two-minute
    /// warning, no failures.
    pub fn new(nodes: u32, mechanism: Option<Composite>) -> Result<HybridConfig, ParamError> {
        ParamError::check(nodes >= 1, "nodes", nodes, "must be >= 1")?;
        Ok(HybridConfig {
            nodes,
            mechanism,
            policy: Policy::Easy,
            checkpoint: CheckpointPolicy::new(Duration::from_hours(24))?,
            warning: DEFAULT_WARNING,
            failures: None,
            seed: 0,
        })
    }

    fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.nodes >= 1, "nodes", self.nodes, "must be >= 1")?;
        ParamError::check(
            self.warning.0 >= 0,
            "warning",
            self.warning.0,
            "must be >= 0",
        )?;
        if let Some(f) = self.failures {
            ParamError::check(f.mtbf.0 > 0, "mtbf", f.mtbf.0, "must be > 0")?;
            ParamError::check(
                f.mean_repair.0 > 0,
                "mean_repair",
                f.mean_repair.0,
                "must be > 0",
            )?;
        }
        Ok(())
    }
}

/// One job's node-second accounting; see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobAccount {
    /// The job.
    pub id: JobId,
    /// Its class.
    pub class: JobClass,
    /// Node-seconds its first run needs when undisturbed.
    pub required: i64,
    /// Node-seconds held over all its runs.
    pub delivered: i64,
    /// Node-seconds thrown away (lost work, repeated setups, restarted runs).
    pub wasted: i64,
    /// How often it completed (1 for every job of a finished simulation).
    pub completions: u32,
    /// Preemptions by the mechanisms (failures and shrinks not included).
    pub preemptions: u32,
    /// Shrinks by SPAA.
    pub shrinks: u32,
    /// Runs ended by a node failure.
    pub failures: u32,
    /// The largest slack the resizes' rounding may add (node-seconds), 0 for fixed sizes.
    pub rounding_slack: i64,
}

/// The metrics the paper reports, for one run.
#[derive(Clone, Debug, PartialEq)]
pub struct HybridReport {
    /// The mechanism's name (`baseline` or e.g. `CUP&SPAA`).
    pub mechanism: String,
    /// Jobs given.
    pub jobs: usize,
    /// Jobs completed.
    pub completed: usize,
    /// Jobs larger than the system, never run.
    pub rejected: usize,
    /// On-demand jobs.
    pub on_demand: usize,
    /// On-demand jobs that started at their arrival.
    pub instant_starts: usize,
    /// `instant_starts / on_demand` (0 without on-demand jobs).
    pub instant_start_ratio: f64,
    /// Mean wait of on-demand jobs, seconds.
    pub on_demand_mean_wait_s: f64,
    /// Mean turnaround of all batch (rigid and malleable) jobs, hours.
    pub turnaround_h: f64,
    /// Mean turnaround of rigid jobs, hours.
    pub rigid_turnaround_h: f64,
    /// Mean turnaround of malleable jobs, hours.
    pub malleable_turnaround_h: f64,
    /// Share of rigid jobs preempted at least once.
    pub rigid_preempted_ratio: f64,
    /// Share of malleable jobs preempted at least once (shrinks not included).
    pub malleable_preempted_ratio: f64,
    /// Preemptions (failures excluded).
    pub preemptions: usize,
    /// Shrinks.
    pub shrinks: usize,
    /// Node failures injected.
    pub node_failures: usize,
    /// Batch jobs started as guests on reserved idle nodes.
    pub guest_starts: usize,
    /// Node-hours wasted (lost work, repeated setups, restarts).
    pub wasted_node_hours: f64,
    /// Useful node-seconds / (nodes × (last end − first submit)): over the makespan, so it
    /// moves only when the last job ends earlier or later.
    pub utilization: f64,
    /// Useful node-seconds done between the first and the last submission / (nodes × that
    /// window): the work the system gets done while jobs keep arriving, the drain after the
    /// last submission excluded ([`UsageLog::utilization_within`]).
    pub window_utilization: f64,
    /// Held node-seconds in the same window, wasted work included, / (nodes × window): what
    /// a count of busy nodes would read.
    pub window_held_utilization: f64,
}

/// Node-seconds spread evenly over an interval: held by a run (positive) or thrown away by
/// it (negative: lost work, repeated setups, restarted runs), so that their sum over any
/// window is the useful work done in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// Start of the interval.
    pub from: Time,
    /// End of the interval (after `from`).
    pub to: Time,
    /// Node-seconds: held if positive, wasted if negative.
    pub node_seconds: i64,
}

/// The usage log of a run, in the order the simulator wrote it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UsageLog(Vec<Usage>);

impl UsageLog {
    /// `size` nodes held over `from..to`.
    fn held(&mut self, from: Time, to: Time, size: u32) {
        self.push(from, to, i64::from(size) * (to - from).0);
    }

    /// `node_seconds` thrown away over `from..to`.
    fn wasted(&mut self, from: Time, to: Time, node_seconds: i64) {
        self.push(from, to, -node_seconds);
    }

    fn push(&mut self, from: Time, to: Time, node_seconds: i64) {
        if to > from && node_seconds != 0 {
            self.0.push(Usage {
                from,
                to,
                node_seconds,
            });
        }
    }

    /// The entries.
    pub fn entries(&self) -> &[Usage] {
        &self.0
    }

    /// Useful node-seconds done within `from..to` (each entry counted for its share of
    /// the window).
    pub fn useful_within(&self, from: Time, to: Time) -> f64 {
        self.sum_within(from, to, |_| true)
    }

    /// Node-seconds held within `from..to`, wasted work included.
    pub fn held_within(&self, from: Time, to: Time) -> f64 {
        self.sum_within(from, to, |u| u.node_seconds > 0)
    }

    fn sum_within(&self, from: Time, to: Time, keep: impl Fn(&Usage) -> bool) -> f64 {
        self.0
            .iter()
            .filter(|u| keep(u))
            .map(|u| {
                let overlap = (u.to.min(to) - u.from.max(from)).0;
                if overlap <= 0 {
                    0.0
                } else {
                    u.node_seconds as f64 * overlap as f64 / (u.to - u.from).0 as f64
                }
            })
            .sum()
    }

    /// Useful utilisation of `nodes` nodes over the window `from..to` (0 for an empty window).
    ///
    /// ```
    /// use cosched_core::{Duration, JobId, RigidJob, Time};
    /// use cosched_hybrid::{HybridConfig, HybridJob, HybridSim};
    /// // One 2-node job running 0..100 on 4 nodes: half the nodes busy over 0..100.
    /// let job = RigidJob::new(JobId(1), Time(0), 2, Duration(100), Duration(100)).unwrap();
    /// let jobs = [HybridJob::Rigid { job, setup: Duration(0) }];
    /// let out = HybridSim::new(HybridConfig::new(4, None).unwrap()).unwrap().run(&jobs).unwrap();
    /// assert_eq!(out.usage.utilization_within(4, Time(0), Time(100)), 0.5);
    /// assert_eq!(out.usage.utilization_within(4, Time(50), Time(150)), 0.25);
    /// ```
    pub fn utilization_within(&self, nodes: u32, from: Time, to: Time) -> f64 {
        Self::share(self.useful_within(from, to), nodes, from, to)
    }

    /// Held utilisation (wasted work counted as use) of `nodes` nodes over `from..to`.
    pub fn held_utilization_within(&self, nodes: u32, from: Time, to: Time) -> f64 {
        Self::share(self.held_within(from, to), nodes, from, to)
    }

    fn share(node_seconds: f64, nodes: u32, from: Time, to: Time) -> f64 {
        let span = (to - from).0;
        if span <= 0 {
            return 0.0;
        }
        node_seconds / (f64::from(nodes) * span as f64)
    }
}

/// Everything a run produced.
#[derive(Clone, Debug)]
pub struct HybridOutcome {
    /// The summary metrics.
    pub report: HybridReport,
    /// One record per job, in the workload's order (start = first start).
    pub records: Vec<JobRecord>,
    /// One account per job, in the workload's order.
    pub accounts: Vec<JobAccount>,
    /// When nodes were held and work wasted, for utilisation over any window.
    pub usage: UsageLog,
    /// Node-accounting violations seen when checking invariants (always empty unless the
    /// simulator is wrong); checked only with [`HybridSim::check_invariants`].
    pub violations: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ev {
    BatchEnd(RunToken),
    OdEnd(usize, u32),
    Failure,
    Repair(NodeId),
    Expire,
    Planned(PlannedPreemption, u32),
    Notice(usize),
    Arrive(usize),
    Submit(usize),
}

impl Event for Ev {
    fn class(&self) -> u8 {
        match self {
            Ev::BatchEnd(_) | Ev::OdEnd(..) => 0,
            Ev::Failure | Ev::Repair(_) => 1,
            Ev::Expire => 2,
            Ev::Planned(..) => 3,
            Ev::Notice(_) => 4,
            Ev::Arrive(_) => 5,
            Ev::Submit(_) => 6,
        }
    }
}

/// Who holds a node the batch cluster does not schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hold {
    Cluster,
    Reserved(JobId),
    OnDemand(usize),
    Failed,
}

/// A node lender of an on-demand job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lender {
    Preempted(usize),
    Shrunk(usize, u32),
}

#[derive(Clone, Copy, Debug)]
struct Run {
    start: Time,
    anchor: Time,
    size: u32,
    end: Time,
    predicted_end: Time,
    token: RunToken,
    delivered: i64,
}

#[derive(Clone, Debug)]
struct JobState {
    spec: HybridJob,
    /// Rigid and baseline on-demand jobs: work (seconds on its size, setup excluded) left.
    work_left: Duration,
    setup: Duration,
    tau: Option<Duration>,
    run: Option<Run>,
    account: JobAccount,
    record: JobRecord,
    /// On-demand jobs under a mechanism: nodes held, run epoch, lenders, waiting.
    od_nodes: Vec<NodeId>,
    od_epoch: u32,
    lenders: Vec<Lender>,
    /// A batch job running on a reservation's idle nodes: the on-demand job it borrows from.
    guest_of: Option<JobId>,
}

/// Starts the given queued jobs if they fit (lenders getting their nodes back, guests), in
/// queue order; the scan stops once every listed job has been seen.
struct StartListed<'a>(&'a [JobId]);

impl BatchScheduler for StartListed<'_> {
    fn name(&self) -> &'static str {
        "start-listed"
    }

    fn schedule(&mut self, pass: &mut Pass<'_>) {
        let mut unseen = self.0.len();
        let mut pos = pass.next_queued(0);
        while unseen > 0
            && let Some(p) = pos
        {
            if let Some(size) = pass
                .job(p)
                .filter(|q| self.0.contains(&q.job.id))
                .map(|q| q.size())
            {
                unseen -= 1;
                if size <= pass.free_units() {
                    pass.start(p).expect("checked: queued and fits");
                }
            }
            pos = pass.next_queued(p + 1);
        }
    }
}

/// The batch cluster's idle nodes in the order of its free stack, mirrored from the operations
/// the simulator performs, so that it takes nodes from the top, where
/// [`BatchCluster::set_offline`] finds them at once (the mirror's order only matters for speed;
/// its content is checked by [`HybridSim::check_invariants`]).
struct IdleStack {
    stack: Vec<NodeId>,
    /// Each node's position in `stack`, `usize::MAX` when not idle.
    pos: Vec<usize>,
}

impl IdleStack {
    /// All nodes idle, in the cluster's initial order (node 0 on top).
    fn new(nodes: u32) -> IdleStack {
        let stack: Vec<NodeId> = (0..nodes).rev().map(NodeId).collect();
        let mut pos = vec![0; nodes as usize];
        for (k, node) in stack.iter().enumerate() {
            pos[node.index()] = k;
        }
        IdleStack { stack, pos }
    }

    fn len(&self) -> usize {
        self.stack.len()
    }

    fn contains(&self, node: NodeId) -> bool {
        self.pos[node.index()] != usize::MAX
    }

    fn push(&mut self, node: NodeId) {
        debug_assert!(!self.contains(node), "{node} pushed twice");
        self.pos[node.index()] = self.stack.len();
        self.stack.push(node);
    }

    /// Removes `node`: O(1) from the top, else it shifts the nodes above it.
    fn remove(&mut self, node: NodeId) {
        let k = self.pos[node.index()];
        if k == usize::MAX {
            return;
        }
        self.stack.remove(k);
        self.pos[node.index()] = usize::MAX;
        for j in k..self.stack.len() {
            self.pos[self.stack[j].index()] = j;
        }
    }

    /// Orders idle `nodes` from the top of the stack down.
    fn sort_top_first(&self, nodes: &mut [NodeId]) {
        nodes.sort_unstable_by_key(|n| std::cmp::Reverse(self.pos[n.index()]));
    }

    /// Up to `n` nodes from the top down.
    fn top(&self, n: usize) -> Vec<NodeId> {
        self.stack.iter().rev().take(n).copied().collect()
    }
}

/// The simulator; see the [module docs](self).
pub struct HybridSim {
    config: HybridConfig,
    check: bool,
}

impl HybridSim {
    /// A simulator for `config` (validated).
    pub fn new(config: HybridConfig) -> Result<HybridSim, HybridError> {
        config.validate()?;
        Ok(HybridSim {
            config,
            check: false,
        })
    }

    /// Checks node accounting after every instant (O(nodes + jobs) each; for tests), recording
    /// violations in [`HybridOutcome::violations`].
    pub fn check_invariants(mut self) -> HybridSim {
        self.check = true;
        self
    }

    /// Runs `jobs` (unique ids; on-demand notices before arrivals) to the end.
    pub fn run(&self, jobs: &[HybridJob]) -> Result<HybridOutcome, HybridError> {
        let mut state = State::new(&self.config, jobs, self.check)?;
        state.run()?;
        Ok(state.finish())
    }
}

struct State<'a> {
    config: &'a HybridConfig,
    cluster: BatchCluster,
    scheduler: Box<dyn BatchScheduler + Send>,
    mechanism: Option<Mechanism>,
    board: NoticeBoard,
    events: EventQueue<Ev>,
    jobs: Vec<JobState>,
    index: HashMap<JobId, usize>,
    hold: Vec<Hold>,
    idle: IdleStack,
    running: BTreeSet<usize>,
    waiting: VecDeque<usize>,
    returns: Vec<Lender>,
    outstanding: usize,
    rejected: usize,
    node_failures: usize,
    guest_starts: usize,
    /// Bumped whenever a job enters the batch queue (a submission or a preemption).
    queue_epoch: u64,
    /// Reservations for which [`guests`] found nothing, with the queue epoch, idle-node count
    /// and arrival it was asked with: while those hold the answer is still nothing (the queue
    /// only lost jobs, and a later `now` lets fewer end by the arrival), so the deep queue is
    /// not scanned again.
    no_guests: HashMap<JobId, (u64, usize, Time)>,
    rng: ChaCha8Rng,
    started: Vec<Started>,
    usage: UsageLog,
    check: bool,
    violations: Vec<String>,
}

impl<'a> State<'a> {
    fn new(
        config: &'a HybridConfig,
        specs: &[HybridJob],
        check: bool,
    ) -> Result<Self, HybridError> {
        let mut events = EventQueue::new(Time(i64::MIN / 4));
        let mut index = HashMap::with_capacity(specs.len());
        let mut jobs = Vec::with_capacity(specs.len());
        for (i, spec) in specs.iter().enumerate() {
            if index.insert(spec.id(), i).is_some() {
                return Err(HybridError::DuplicateJob(spec.id()));
            }
            let (work_left, setup, tau, required, slack) = match *spec {
                HybridJob::Rigid { job, setup } => {
                    job.validate()?;
                    let runtime = job.simulated_runtime();
                    ParamError::check(
                        (0..=runtime.0).contains(&setup.0),
                        "setup",
                        setup.0,
                        "must lie within 0..=runtime",
                    )?;
                    let tau = config.checkpoint.interval(job.size, runtime);
                    let required = i64::from(job.size) * runtime.0;
                    (runtime - setup, setup, tau, required, 0)
                }
                HybridJob::Malleable { job, estimate } => {
                    // The fields are public: check them as the constructor does.
                    MalleableJob::new(
                        job.id,
                        job.submit,
                        job.min_size,
                        job.max_size,
                        job.work,
                        job.setup,
                    )?;
                    let runtime = job.runtime_on(job.max_size)?;
                    ParamError::check(estimate.0 > 0, "estimate", estimate.0, "must be > 0")?;
                    let required = i64::from(job.max_size) * runtime.min(estimate).0;
                    (Duration::ZERO, job.setup, None, required, 0)
                }
                HybridJob::OnDemand(job) => {
                    // The fields are public: check them as the constructors do.
                    let checked =
                        OnDemandJob::new(job.id, job.size, job.runtime, job.estimate, job.arrival)?;
                    if let (Some(at), Some(estimated)) = (job.notice, job.estimated_arrival) {
                        checked.with_notice(at, estimated)?;
                    }
                    let required = i64::from(job.size) * job.runtime.0;
                    (job.runtime, Duration::ZERO, None, required, 0)
                }
            };
            let id = spec.id();
            jobs.push(JobState {
                spec: *spec,
                work_left,
                setup,
                tau,
                run: None,
                account: JobAccount {
                    id,
                    class: spec.class(),
                    required,
                    delivered: 0,
                    wasted: 0,
                    completions: 0,
                    preemptions: 0,
                    shrinks: 0,
                    failures: 0,
                    rounding_slack: slack,
                },
                record: JobRecord {
                    id,
                    class: spec.class(),
                    submit: spec.submit(),
                    start: None,
                    end: None,
                    size: spec.size(),
                    runtime: Duration(required / i64::from(spec.size())),
                },
                od_nodes: Vec::new(),
                od_epoch: 0,
                lenders: Vec::new(),
                guest_of: None,
            });
            let push = |events: &mut EventQueue<Ev>, at: Time, ev: Ev| {
                events
                    .schedule(at, ev)
                    .expect("the clock starts before every job");
            };
            match (spec, config.mechanism) {
                (HybridJob::OnDemand(job), Some(_)) => {
                    if let (Some(at), Some(_)) = (job.notice, job.estimated_arrival) {
                        push(&mut events, at, Ev::Notice(i));
                    }
                    push(&mut events, job.arrival, Ev::Arrive(i));
                }
                _ => push(&mut events, spec.submit(), Ev::Submit(i)),
            }
        }
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        if let (Some(f), Some(first)) = (config.failures, specs.iter().map(HybridJob::submit).min())
        {
            let gap = exp_sample(&mut rng, f.mtbf);
            events
                .schedule(first + gap, Ev::Failure)
                .expect("after the start");
        }
        let board = NoticeBoard::new(config.mechanism.map_or(NoticeStrategy::N, |m| m.notice))
            .with_warning(config.warning)?;
        Ok(State {
            config,
            cluster: BatchCluster::new(config.nodes)?,
            scheduler: config.policy.scheduler(),
            mechanism: config.mechanism.map(|m| Mechanism {
                kind: m.arrival,
                warning: config.warning,
            }),
            board,
            events,
            outstanding: jobs.len(),
            jobs,
            index,
            hold: vec![Hold::Cluster; config.nodes as usize],
            idle: IdleStack::new(config.nodes),
            running: BTreeSet::new(),
            waiting: VecDeque::new(),
            returns: Vec::new(),
            rejected: 0,
            node_failures: 0,
            guest_starts: 0,
            queue_epoch: 0,
            no_guests: HashMap::new(),
            rng,
            started: Vec::new(),
            usage: UsageLog::default(),
            check,
            violations: Vec::new(),
        })
    }

    fn run(&mut self) -> Result<(), HybridError> {
        while self.outstanding > 0 {
            let Some((now, first)) = self.events.pop() else {
                break;
            };
            self.handle(now, first)?;
            while let Some(ev) = self.events.pop_now() {
                self.handle(now, ev)?;
            }
            self.settle(now)?;
            if self.check {
                self.check_nodes(now);
            }
        }
        Ok(())
    }

    fn schedule(&mut self, at: Time, ev: Ev) {
        self.events
            .schedule(at, ev)
            .expect("events are never in the past");
    }

    fn handle(&mut self, now: Time, ev: Ev) -> Result<(), HybridError> {
        match ev {
            Ev::BatchEnd(token) => self.batch_end(now, token),
            Ev::OdEnd(i, epoch) => {
                if self.jobs[i].od_epoch == epoch && self.jobs[i].run.is_some() {
                    self.od_end(now, i);
                }
            }
            Ev::Failure => self.failure(now)?,
            Ev::Repair(node) => {
                self.set_online(node)?;
            }
            Ev::Expire => {
                for (job, nodes) in self.board.expire(now) {
                    for node in nodes {
                        // Nodes running guests stay with them; the guests become ordinary.
                        if self.hold[node.index()] == Hold::Reserved(job) {
                            self.set_online(node)?;
                        }
                    }
                    for &g in &self.running {
                        if self.jobs[g].guest_of == Some(job) {
                            self.jobs[g].guest_of = None;
                        }
                    }
                    let i = self.index[&job];
                    let lenders = std::mem::take(&mut self.jobs[i].lenders);
                    self.returns.extend(lenders);
                }
            }
            Ev::Planned(p, epoch) => {
                let i = self.index[&p.job];
                let current = self.jobs[i].run.is_some_and(|r| r.token.epoch == epoch);
                if current && self.board.is_short(p.for_job) {
                    self.preempt(now, i, false)?;
                    let od = self.index[&p.for_job];
                    self.jobs[od].lenders.push(Lender::Preempted(i));
                }
            }
            Ev::Notice(i) => self.notice(now, i)?,
            Ev::Arrive(i) => self.arrive(now, i)?,
            Ev::Submit(i) => self.submit(i)?,
        }
        Ok(())
    }

    fn submit(&mut self, i: usize) -> Result<(), HybridError> {
        let st = &self.jobs[i];
        let job = match st.spec {
            HybridJob::Rigid { job, .. } => BatchJob::rigid(&job),
            HybridJob::Malleable { job, estimate } => {
                BatchJob::malleable(&job, job.max_size, estimate)?
            }
            HybridJob::OnDemand(job) => BatchJob {
                id: job.id,
                submit: job.arrival,
                size: job.size,
                runtime: job.runtime,
                estimate: job.estimate.max(job.runtime),
                class: JobClass::OnDemand,
                resizable: None,
            },
        };
        self.queue_epoch += 1;
        if self.cluster.submit(job)? == Submitted::Rejected {
            self.rejected += 1;
            self.outstanding -= 1;
        }
        Ok(())
    }

    fn batch_end(&mut self, now: Time, token: RunToken) {
        let i = self.index[&token.job];
        let Some(run) = self.jobs[i].run.filter(|r| r.token == token) else {
            return;
        };
        for &node in self.cluster.job_nodes(token.job).expect("runs") {
            self.idle.push(node);
        }
        self.running.remove(&i);
        let record = self
            .cluster
            .complete(now, token)
            .expect("the token is current");
        let st = &mut self.jobs[i];
        st.account.delivered += i64::from(run.size) * (now - run.anchor).0;
        st.account.completions += 1;
        st.run = None;
        st.record = record;
        self.usage.held(run.anchor, now, run.size);
        self.outstanding -= 1;
        if let Some(od) = self.jobs[i].guest_of.take() {
            self.reclaim(od);
        }
    }

    /// The idle nodes a reservation lists go back to it (after its guest stopped).
    fn reclaim(&mut self, od: JobId) {
        let Some(r) = self.board.reservations().find(|r| r.job == od) else {
            return;
        };
        let idle: Vec<NodeId> = r
            .nodes
            .iter()
            .copied()
            .filter(|&n| {
                self.hold[n.index()] == Hold::Cluster
                    && self.cluster.node_state(n) == Ok(NodeState::Idle)
            })
            .collect();
        self.take(&idle, Hold::Reserved(od))
            .expect("idle nodes go offline");
    }

    /// Stops batch job `i`: a preemption (`failed == false`) or a node failure.
    fn preempt(&mut self, now: Time, i: usize, failed: bool) -> Result<(), HybridError> {
        let id = self.jobs[i].spec.id();
        for &node in self.cluster.job_nodes(id).expect("runs") {
            self.idle.push(node);
        }
        self.running.remove(&i);
        let st = &mut self.jobs[i];
        let mut run = st.run.take().expect("running");
        let segment = i64::from(run.size) * (now - run.anchor).0;
        run.delivered += segment;
        st.account.delivered += segment;
        self.usage.held(run.anchor, now, run.size);
        let size = i64::from(st.spec.size());
        let resume = match st.spec {
            HybridJob::Malleable { .. } if failed => {
                st.account.wasted += run.delivered;
                self.usage.wasted(run.start, now, run.delivered);
                Resume::Restart
            }
            HybridJob::Malleable { .. } => {
                let left = i64::from(run.size) * (run.end - now).0.max(0);
                st.account.wasted += size * st.setup.0;
                st.account.rounding_slack += size;
                // The setup it pays again on resuming, placed right after the preemption.
                self.usage.wasted(now, now + st.setup, size * st.setup.0);
                Resume::WithRuntime(Duration((left + size - 1) / size) + st.setup)
            }
            _ => {
                let elapsed = now - run.start;
                let checkpoint = st.tau.map_or(0, |tau| elapsed.0 / tau.0 * tau.0);
                let saved = Duration((checkpoint - st.setup.0).clamp(0, st.work_left.0));
                st.work_left -= saved;
                st.account.wasted += size * (elapsed - saved).0;
                // The run's setup and what followed its last checkpoint are lost; with
                // nothing saved, the whole run.
                if saved.0 > 0 {
                    let kept = run.start + st.setup;
                    self.usage.wasted(run.start, kept, size * st.setup.0);
                    self.usage
                        .wasted(kept + saved, now, size * (now - kept - saved).0);
                } else {
                    self.usage.wasted(run.start, now, size * elapsed.0);
                }
                Resume::WithRuntime(st.work_left + st.setup)
            }
        };
        if failed {
            st.account.failures += 1;
        } else {
            st.account.preemptions += 1;
        }
        self.cluster.preempt(now, id, resume)?;
        self.queue_epoch += 1;
        if let Some(od) = self.jobs[i].guest_of.take() {
            self.reclaim(od);
        }
        Ok(())
    }

    /// Resizes running malleable job `i` to `to` nodes (a shrink's nodes go idle).
    fn resize(&mut self, now: Time, i: usize, to: u32) -> Result<(), HybridError> {
        let id = self.jobs[i].spec.id();
        let before = self.cluster.job_nodes(id)?;
        let old = before.len();
        for &node in before.get(to as usize..).unwrap_or_default() {
            self.idle.push(node);
        }
        let started = self.cluster.resize(now, id, to)?;
        // An expansion pops idle nodes off the top, in the order the job lists them.
        for &node in self.cluster.job_nodes(id)?.get(old..).unwrap_or_default() {
            self.idle.remove(node);
        }
        let st = &mut self.jobs[i];
        let run = st.run.as_mut().expect("running");
        let segment = i64::from(run.size) * (now - run.anchor).0;
        run.delivered += segment;
        st.account.delivered += segment;
        st.account.rounding_slack += i64::from(to);
        self.usage.held(run.anchor, now, run.size);
        run.anchor = now;
        run.size = to;
        run.end = started.end;
        run.predicted_end = started.predicted_end;
        run.token = started.token;
        self.schedule(started.end, Ev::BatchEnd(started.token));
        Ok(())
    }

    fn register_starts(&mut self, now: Time) {
        for started in std::mem::take(&mut self.started) {
            let i = self.index[&started.token.job];
            // A start takes the top of the idle stack: remove from the top down.
            let nodes = self
                .cluster
                .job_nodes(started.token.job)
                .expect("just started");
            for &node in nodes.iter().rev() {
                self.idle.remove(node);
            }
            self.running.insert(i);
            let st = &mut self.jobs[i];
            st.run = Some(Run {
                start: now,
                anchor: now,
                size: started.size,
                end: started.end,
                predicted_end: started.predicted_end,
                token: started.token,
                delivered: 0,
            });
            if st.record.start.is_none() {
                st.record.start = Some(now);
            }
            self.events
                .schedule(started.end, Ev::BatchEnd(started.token))
                .expect("ends are not in the past");
        }
    }

    /// The running batch jobs as the mechanisms see them, in workload order (the mechanisms'
    /// choices do not depend on it: they break ties by job id).
    fn running_views(&self, now: Time) -> Vec<PlannedJob> {
        self.running
            .iter()
            .map(|&i| &self.jobs[i])
            .filter_map(|st| {
                let run = st.run?;
                if st.spec.class() == JobClass::OnDemand || st.guest_of.is_some() {
                    return None;
                }
                let kind = match st.spec {
                    HybridJob::Malleable { job, .. } => RunningKind::Malleable {
                        min_size: job.min_size,
                        max_size: job.max_size,
                    },
                    _ => RunningKind::Rigid {
                        runtime: run.end - run.start,
                        elapsed: now - run.start,
                        checkpoint_interval: st.tau,
                    },
                };
                Some(PlannedJob {
                    view: RunningView {
                        id: st.spec.id(),
                        size: run.size,
                        setup: st.setup,
                        kind,
                    },
                    run_start: run.start,
                    predicted_end: run.predicted_end,
                })
            })
            .collect()
    }

    /// Up to `n` idle nodes of the batch cluster, from the top of its free stack.
    fn idle_nodes(&self, n: usize) -> Vec<NodeId> {
        self.idle.top(n)
    }

    /// Gives a held node back to the batch cluster.
    fn set_online(&mut self, node: NodeId) -> Result<(), HybridError> {
        self.cluster.set_online(node)?;
        self.hold[node.index()] = Hold::Cluster;
        self.idle.push(node);
        Ok(())
    }

    /// Takes idle `nodes` from the batch cluster for `hold`.
    fn take(&mut self, nodes: &[NodeId], hold: Hold) -> Result<(), HybridError> {
        // From the top of the free stack down, where removals are cheapest.
        let mut nodes = nodes.to_vec();
        self.idle.sort_top_first(&mut nodes);
        for node in nodes {
            self.cluster.set_offline(node)?;
            self.idle.remove(node);
            self.hold[node.index()] = hold;
        }
        Ok(())
    }

    fn notice(&mut self, now: Time, i: usize) -> Result<(), HybridError> {
        let HybridJob::OnDemand(job) = self.jobs[i].spec else {
            unreachable!("notices are scheduled for on-demand jobs")
        };
        let (Some(at), Some(estimated_arrival)) = (job.notice, job.estimated_arrival) else {
            return Ok(());
        };
        if self.board.strategy() == NoticeStrategy::N {
            return Ok(());
        }
        let notice = Notice {
            job: job.id,
            size: job.size,
            at,
            estimated_arrival,
        };
        let free = self.idle_nodes(job.size as usize);
        let running: Vec<PlannedJob> = if self.board.strategy() == NoticeStrategy::Cup {
            self.running_views(now)
        } else {
            Vec::new()
        };
        let plan = self.board.notice(notice, &free, &running)?;
        self.take(&plan.claimed, Hold::Reserved(job.id))?;
        for p in plan.preemptions {
            let target = self.index[&p.job];
            let epoch = self.jobs[target].run.expect("planned jobs run").token.epoch;
            self.schedule(p.at, Ev::Planned(p, epoch));
        }
        if let Some(expires) = plan.expires {
            self.schedule(expires, Ev::Expire);
        }
        Ok(())
    }

    fn arrive(&mut self, now: Time, i: usize) -> Result<(), HybridError> {
        let id = self.jobs[i].spec.id();
        let size = self.jobs[i].spec.size();
        if size > self.config.nodes {
            self.rejected += 1;
            self.outstanding -= 1;
            return Ok(());
        }
        let guests: Vec<usize> = self
            .running
            .iter()
            .copied()
            .filter(|&g| self.jobs[g].guest_of == Some(id))
            .collect();
        for g in guests {
            self.preempt(now, g, false)?;
        }
        let reserved = self.board.arrive(id);
        for &node in &reserved {
            self.hold[node.index()] = Hold::OnDemand(i);
        }
        self.jobs[i].od_nodes.extend(reserved);
        let need = (size as usize).saturating_sub(self.jobs[i].od_nodes.len());
        let idle = self.idle_nodes(need);
        self.take(&idle, Hold::OnDemand(i))?;
        self.jobs[i].od_nodes.extend(idle);
        let need = size - self.jobs[i].od_nodes.len() as u32;
        if need > 0 {
            let running: Vec<RunningView> =
                self.running_views(now).iter().map(|p| p.view).collect();
            let mechanism = self.mechanism.expect("arrivals only with a mechanism");
            let decisions = mechanism.decide(need, 0, &running)?;
            for decision in decisions {
                match decision {
                    Decision::WaitAtFront => {
                        // Only the queue's front collects nodes: a job behind it holding
                        // some could starve it for good.
                        for node in std::mem::take(&mut self.jobs[i].od_nodes) {
                            self.set_online(node)?;
                        }
                        self.waiting.push_back(i);
                        return Ok(());
                    }
                    Decision::Preempt { job } => {
                        let j = self.index[&job];
                        self.preempt(now, j, false)?;
                        self.jobs[i].lenders.push(Lender::Preempted(j));
                    }
                    Decision::Shrink { job, to } => {
                        let j = self.index[&job];
                        let from = self.jobs[j].run.expect("running").size;
                        self.resize(now, j, to)?;
                        self.jobs[j].account.shrinks += 1;
                        self.jobs[i].lenders.push(Lender::Shrunk(j, from));
                    }
                }
            }
            let idle = self.idle_nodes(need as usize);
            self.take(&idle, Hold::OnDemand(i))?;
            self.jobs[i].od_nodes.extend(idle);
        }
        self.start_od(now, i);
        Ok(())
    }

    fn start_od(&mut self, now: Time, i: usize) {
        let st = &mut self.jobs[i];
        debug_assert_eq!(st.od_nodes.len() as u32, st.spec.size());
        st.od_epoch += 1;
        let end = now + st.work_left;
        st.run = Some(Run {
            start: now,
            anchor: now,
            size: st.spec.size(),
            end,
            predicted_end: now + st.work_left,
            token: RunToken {
                job: st.spec.id(),
                epoch: st.od_epoch,
            },
            delivered: 0,
        });
        if st.record.start.is_none() {
            st.record.start = Some(now);
        }
        let epoch = st.od_epoch;
        self.schedule(end, Ev::OdEnd(i, epoch));
    }

    /// Gives on-demand job `i`'s nodes (but the failed ones) back and queues its lenders'
    /// returns.
    fn release_od(&mut self, i: usize) -> Result<(), HybridError> {
        for node in std::mem::take(&mut self.jobs[i].od_nodes) {
            if self.hold[node.index()] == Hold::Failed {
                continue;
            }
            self.set_online(node)?;
        }
        let lenders = std::mem::take(&mut self.jobs[i].lenders);
        self.returns.extend(lenders);
        Ok(())
    }

    fn od_end(&mut self, now: Time, i: usize) {
        let st = &mut self.jobs[i];
        let run = st.run.take().expect("running");
        st.account.delivered += i64::from(run.size) * (now - run.anchor).0;
        st.account.completions += 1;
        st.record.end = Some(now);
        self.usage.held(run.anchor, now, run.size);
        self.outstanding -= 1;
        self.release_od(i).expect("held nodes are offline");
    }

    fn failure(&mut self, now: Time) -> Result<(), HybridError> {
        let Some(f) = self.config.failures else {
            return Ok(());
        };
        let gap = exp_sample(&mut self.rng, f.mtbf);
        self.schedule(now + gap, Ev::Failure);
        let node = NodeId(rand::RngExt::random_range(
            &mut self.rng,
            0..self.config.nodes,
        ));
        let repair = exp_sample(&mut self.rng, f.mean_repair);
        match self.hold[node.index()] {
            Hold::Failed => return Ok(()),
            Hold::Cluster => {
                if let NodeState::Busy(job) = self.cluster.node_state(node)? {
                    let j = self.index[&job];
                    self.preempt(now, j, true)?;
                }
                if let Hold::Reserved(_) = self.hold[node.index()] {
                    // A guest's node, back with its reservation: it leaves it.
                    self.board.drop_node(node);
                } else {
                    self.cluster.set_offline(node)?;
                    self.idle.remove(node);
                }
            }
            Hold::Reserved(_) => {
                self.board.drop_node(node);
            }
            Hold::OnDemand(i) => {
                self.hold[node.index()] = Hold::Failed;
                let st = &mut self.jobs[i];
                if let Some(run) = st.run.take() {
                    // The running job restarts at once from scratch on fresh nodes.
                    let lost = i64::from(run.size) * (now - run.anchor).0;
                    st.account.delivered += lost;
                    st.account.wasted += lost;
                    st.account.failures += 1;
                    self.usage.held(run.anchor, now, run.size);
                    self.usage.wasted(run.anchor, now, lost);
                    self.release_od(i)?;
                    self.arrive(now, i)?;
                } else {
                    st.od_nodes.retain(|&n| n != node);
                }
            }
        }
        self.hold[node.index()] = Hold::Failed;
        self.node_failures += 1;
        self.schedule(now + repair, Ev::Repair(node));
        Ok(())
    }

    fn settle(&mut self, now: Time) -> Result<(), HybridError> {
        // 1. On-demand jobs waiting at the front of the queue.
        while let Some(&i) = self.waiting.front() {
            let need = self.jobs[i].spec.size() as usize - self.jobs[i].od_nodes.len();
            let idle = self.idle_nodes(need);
            self.take(&idle, Hold::OnDemand(i))?;
            self.jobs[i].od_nodes.extend_from_slice(&idle);
            if idle.len() < need {
                break;
            }
            self.waiting.pop_front();
            self.start_od(now, i);
        }
        // 2. Lenders get their nodes back.
        if !self.returns.is_empty() {
            let mut preempted = Vec::new();
            for lender in std::mem::take(&mut self.returns) {
                match lender {
                    Lender::Shrunk(j, size) => {
                        let Some(run) = self.jobs[j].run else {
                            continue;
                        };
                        let free = self.cluster.free_units();
                        if run.size < size && free > 0 {
                            self.resize(now, j, size.min(run.size + free))?;
                        }
                    }
                    Lender::Preempted(j) => {
                        if self.jobs[j].run.is_none() && self.jobs[j].account.completions == 0 {
                            preempted.push(self.jobs[j].spec.id());
                        }
                    }
                }
            }
            if !preempted.is_empty() {
                let mut lenders = StartListed(&preempted);
                self.cluster.schedule(now, &mut lenders, &mut self.started);
                self.register_starts(now);
            }
        }
        // 3. Reservations collect the nodes left idle, earliest notice first.
        let shortfall = self.board.shortfall() as usize;
        if shortfall > 0 && self.idle.len() > 0 {
            let idle = self.idle_nodes(shortfall);
            for (job, node) in self.board.offer(&idle) {
                self.take(&[node], Hold::Reserved(job))?;
            }
        }
        // 4. Reserved idle nodes run guests until their job arrives.
        if self.board.strategy() != NoticeStrategy::N && self.cluster.queue_len() > 0 {
            self.run_guests(now)?;
        }
        // 5. The batch pass.
        self.cluster
            .schedule(now, &mut self.scheduler, &mut self.started);
        self.register_starts(now);
        Ok(())
    }

    /// Lends each reservation's idle nodes to the queued jobs [`guests`] picks.
    fn run_guests(&mut self, now: Time) -> Result<(), HybridError> {
        let lendable: Vec<(JobId, Time, Vec<NodeId>)> = self
            .board
            .reservations()
            .map(|r| {
                let idle = r
                    .nodes
                    .iter()
                    .copied()
                    .filter(|n| self.hold[n.index()] == Hold::Reserved(r.job))
                    .collect();
                (r.job, r.estimated_arrival, idle)
            })
            .filter(|(_, _, idle): &(JobId, Time, Vec<NodeId>)| !idle.is_empty())
            .collect();
        for (od, arrival, idle) in lendable {
            let asked = (self.queue_epoch, idle.len(), arrival);
            if self.no_guests.get(&od) == Some(&asked) {
                continue;
            }
            let queue = self.cluster.queue().map(|q| QueuedView {
                id: q.job.id,
                size: q.size(),
                estimate: q.estimate(),
                malleable: q.job.resizable.is_some(),
            });
            let chosen = guests(now, arrival, idle.len() as u32, queue);
            if chosen.is_empty() {
                self.no_guests.insert(od, asked);
                continue;
            }
            // On top of the free stack, the reserved nodes are what the guests start on: put
            // back only as many as they need.
            let sizes: u32 = self
                .cluster
                .queue()
                .filter(|q| chosen.contains(&q.job.id))
                .take(chosen.len())
                .map(|q| q.size())
                .sum();
            let idle = &idle[..sizes as usize];
            for &node in idle {
                self.set_online(node)?;
            }
            self.cluster
                .schedule(now, &mut StartListed(&chosen), &mut self.started);
            let starts: Vec<JobId> = self.started.iter().map(|s| s.token.job).collect();
            self.register_starts(now);
            for job in starts {
                let g = self.index[&job];
                self.jobs[g].guest_of = Some(od);
                self.guest_starts += 1;
            }
            let unused: Vec<NodeId> = idle
                .iter()
                .copied()
                .filter(|&n| self.cluster.node_state(n) == Ok(NodeState::Idle))
                .collect();
            self.take(&unused, Hold::Reserved(od))?;
        }
        Ok(())
    }

    fn check_nodes(&mut self, now: Time) {
        let mut held = 0u32;
        for (k, hold) in self.hold.iter().enumerate() {
            let node = NodeId(k as u32);
            let state = self.cluster.node_state(node).expect("in range");
            let ok = match hold {
                Hold::Cluster => !matches!(state, NodeState::Offline | NodeState::Draining(_)),
                _ => state == NodeState::Offline,
            };
            if !ok {
                self.violations.push(format!(
                    "t={now}: {node} held {hold:?} but {state:?} in the cluster"
                ));
            }
            held += u32::from(*hold != Hold::Cluster);
            if self.idle.contains(node) != (state == NodeState::Idle) {
                self.violations.push(format!(
                    "t={now}: {node} is {state:?} but the idle mirror disagrees"
                ));
            }
        }
        if held != self.cluster.offline_units() {
            self.violations.push(format!(
                "t={now}: {held} nodes held but {} offline",
                self.cluster.offline_units()
            ));
        }
        for r in self.board.reservations() {
            let (job, size, nodes) = (r.job, r.size, r.nodes);
            if nodes.len() as u32 > size {
                self.violations
                    .push(format!("t={now}: {job} reserves {} > {size}", nodes.len()));
            }
            for &node in nodes {
                let guest = match self.cluster.node_state(node) {
                    Ok(NodeState::Busy(g)) => self.jobs[self.index[&g]].guest_of == Some(job),
                    _ => false,
                };
                if self.hold[node.index()] != Hold::Reserved(job) && !guest {
                    self.violations.push(format!(
                        "t={now}: {node} reserved for {job} but held otherwise"
                    ));
                }
            }
        }
        for (i, st) in self.jobs.iter().enumerate() {
            for &node in &st.od_nodes {
                if self.hold[node.index()] != Hold::OnDemand(i) {
                    self.violations.push(format!(
                        "t={now}: {node} of {} held otherwise",
                        st.spec.id()
                    ));
                }
            }
            if let (Some(run), JobClass::Malleable) = (st.run, st.spec.class())
                && let HybridJob::Malleable { job, .. } = st.spec
                && !(job.min_size..=job.max_size).contains(&run.size)
            {
                self.violations
                    .push(format!("t={now}: {} runs on {} nodes", job.id, run.size));
            }
        }
        let busy: u32 = self
            .jobs
            .iter()
            .filter(|st| st.spec.class() != JobClass::OnDemand || self.mechanism.is_none())
            .filter_map(|st| st.run.map(|r| r.size))
            .sum();
        if busy != self.cluster.busy_units() {
            self.violations.push(format!(
                "t={now}: batch jobs hold {busy} nodes, the cluster says {}",
                self.cluster.busy_units()
            ));
        }
    }

    fn finish(self) -> HybridOutcome {
        let records: Vec<JobRecord> = self.jobs.iter().map(|s| s.record).collect();
        let accounts: Vec<JobAccount> = self.jobs.iter().map(|s| s.account).collect();
        let report = report(
            self.config,
            &records,
            &accounts,
            &self.usage,
            self.rejected,
            self.node_failures,
            self.guest_starts,
        );
        HybridOutcome {
            report,
            records,
            accounts,
            usage: self.usage,
            violations: self.violations,
        }
    }
}

fn exp_sample(rng: &mut ChaCha8Rng, mean: Duration) -> Duration {
    let exp = Exp::new(1.0 / mean.0 as f64).expect("mean > 0");
    Duration((exp.sample(rng).round() as i64).max(1))
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

fn report(
    config: &HybridConfig,
    records: &[JobRecord],
    accounts: &[JobAccount],
    usage: &UsageLog,
    rejected: usize,
    node_failures: usize,
    guest_starts: usize,
) -> HybridReport {
    let done = |class: Option<JobClass>| {
        records
            .iter()
            .filter(move |r| r.end.is_some() && class.is_none_or(|c| r.class == c))
    };
    let hours = |r: &JobRecord| r.turnaround().map_or(0.0, |d| d.as_hours_f64());
    let on_demand: Vec<&JobRecord> = records
        .iter()
        .filter(|r| r.class == JobClass::OnDemand)
        .collect();
    let instant_starts = on_demand
        .iter()
        .filter(|r| r.start == Some(r.submit))
        .count();
    let preempted_ratio = |class: JobClass| {
        let (hit, n) = accounts
            .iter()
            .filter(|a| a.class == class)
            .fold((0, 0), |(h, n), a| {
                (h + usize::from(a.preemptions > 0), n + 1)
            });
        if n == 0 { 0.0 } else { hit as f64 / n as f64 }
    };
    let first = records.iter().map(|r| r.submit).min().unwrap_or(Time::ZERO);
    let last = records.iter().filter_map(|r| r.end).max().unwrap_or(first);
    let last_submit = records.iter().map(|r| r.submit).max().unwrap_or(first);
    let useful: i64 = accounts.iter().map(|a| a.delivered - a.wasted).sum();
    let span = (last - first).0;
    HybridReport {
        mechanism: mechanism_name(config.mechanism),
        jobs: records.len(),
        completed: done(None).count(),
        rejected,
        on_demand: on_demand.len(),
        instant_starts,
        instant_start_ratio: if on_demand.is_empty() {
            0.0
        } else {
            instant_starts as f64 / on_demand.len() as f64
        },
        on_demand_mean_wait_s: mean(
            on_demand
                .iter()
                .filter_map(|r| r.wait())
                .map(|w| w.0 as f64),
        ),
        turnaround_h: mean(
            done(None)
                .filter(|r| r.class != JobClass::OnDemand)
                .map(hours),
        ),
        rigid_turnaround_h: mean(done(Some(JobClass::Rigid)).map(hours)),
        malleable_turnaround_h: mean(done(Some(JobClass::Malleable)).map(hours)),
        rigid_preempted_ratio: preempted_ratio(JobClass::Rigid),
        malleable_preempted_ratio: preempted_ratio(JobClass::Malleable),
        preemptions: accounts.iter().map(|a| a.preemptions as usize).sum(),
        shrinks: accounts.iter().map(|a| a.shrinks as usize).sum(),
        node_failures,
        guest_starts,
        wasted_node_hours: accounts.iter().map(|a| a.wasted).sum::<i64>() as f64 / 3_600.0,
        utilization: if span > 0 {
            useful as f64 / (f64::from(config.nodes) * span as f64)
        } else {
            0.0
        },
        window_utilization: usage.utilization_within(config.nodes, first, last_submit),
        window_held_utilization: usage.held_utilization_within(config.nodes, first, last_submit),
    }
}
