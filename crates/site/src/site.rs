//! The executor: one cluster, one clock, the leases, and the roles' policies.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use cosched_albatross::classad::{ClassAd, match_ads};
use cosched_albatross::policy::{CloudNodeState, CloudNodeView};
use cosched_albatross::pool::InstanceType;
use cosched_batch::{BatchCluster, BatchJob, BatchPolicy, Resume, RunToken, Started, Submitted};
use cosched_core::engine::{self, Event, EventQueue, Simulation};
use cosched_core::policy::{Policy, wake_due};
use cosched_core::{
    DEFAULT_SLOWDOWN_TAU, Duration, JobClass, JobId, JobRecord, Lease, LeaseId, NodeId, Summary,
    Time,
};
use cosched_hybrid::workload::HybridJob;
use cosched_hybrid::{ExpansionCandidate, PlannedJob, RunningKind, RunningView, plan_expansion};

use crate::SiteError;
use crate::nodes::{NodeUse, Nodes};
use crate::on_demand::{OnDemandCommand, OnDemandObservation, OnDemandPolicy};
use crate::report::{LeaseCounts, Revocations, SiteReport};
use crate::scavenging::{PoolCycle, ScavengingCommand, ScavengingPolicy};
use crate::workload::{SiteWorkload, TASK_ADS};

/// The most nodes a site may have.
pub const MAX_NODES: u32 = 1_000_000;

/// The most queued task ads lent to the scavenging role's view (the queue's head).
pub const WAITING_ADS: usize = 256;

/// A site's parameters (the roles are given apart, [`Roles`]).
#[derive(Clone, Debug)]
pub struct SiteConfig {
    /// Nodes (1 to [`MAX_NODES`]).
    pub nodes: u32,
    /// When the run stops; what still runs or waits then is reported as such.
    pub end: Time,
    /// How often the scavenging pool's negotiator runs (HTCondor's `NEGOTIATOR_INTERVAL`
    /// default, 60 s).
    pub cycle: Duration,
    /// Scavenged tasks checkpoint after every this much work; an evicted task loses the work
    /// since (ours: 15 minutes).
    pub checkpoint: Duration,
    /// The ClassAd of a site node's slot in the scavenging pool (ours: 4 GB, on site).
    pub node_ad: String,
    /// The cloud instance types the scavenging role may start (Albatross's t2 family).
    pub instance_types: Vec<InstanceType>,
    /// A node's draw idle and busy, watts (ours: 100 and 300 W), for the energy column.
    pub power_w: (f64, f64),
}

impl SiteConfig {
    /// `nodes` nodes until `end`, the other parameters at their defaults.
    pub fn new(nodes: u32, end: Time) -> SiteConfig {
        SiteConfig {
            nodes,
            end,
            cycle: Duration(60),
            checkpoint: Duration::from_mins(15),
            node_ad: "[ Name = \"site\"; Cpus = 1; Memory = 4096; Mips = 1000; IsCloud = false; \
                      Start = true; Requirements = START && TARGET.RequestMemory <= MY.Memory ]"
                .to_string(),
            instance_types: cosched_albatross::pool::default_instance_types(),
            power_w: (100.0, 300.0),
        }
    }
}

/// The policies filling the roles of one run.
pub struct Roles {
    /// The batch scheduler (any policy of the batch protocol).
    pub batch: Box<dyn BatchPolicy + Send>,
    /// The on-demand role.
    pub on_demand: Box<dyn OnDemandPolicy + Send>,
    /// The scavenging role; `None`: nothing is lent and tasks stay queued.
    pub scavenging: Option<Box<dyn ScavengingPolicy + Send>>,
}

/// A lease's life in the site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LeaseState {
    /// Requested, waiting for nodes.
    Waiting,
    /// Queued as the batch job `JobId`.
    Queued(JobId),
    /// Running since `.0` (on reserve nodes, or as a batch job).
    Running(Time),
    /// Ended.
    Done(Time),
    /// Refused, or withdrawn when its window closed.
    Rejected,
}

/// A running batch job as the site tracks it.
#[derive(Clone, Debug)]
struct RunningJob {
    nodes: Vec<NodeId>,
    /// When its current run started.
    started: Time,
    token: RunToken,
    predicted_end: Time,
    job: BatchJob,
    /// Its setup (rigid: part of its run time; malleable: paid on every start).
    setup: Duration,
}

/// Where a task runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Site(NodeId),
    Cloud(usize),
}

#[derive(Clone, Copy, Debug)]
struct TaskState {
    /// Work saved by checkpoints.
    saved: i64,
    run: Option<(Slot, Time, f64)>,
    epoch: u32,
    done: bool,
}

#[derive(Clone, Debug)]
struct CloudNode {
    instance: usize,
    requested: Time,
    lifetime: Duration,
    up: bool,
    stopped: Option<Time>,
    tasks: Vec<u64>,
}

/// Everything the roles may read: the view lent to their policies.
#[derive(Debug)]
pub struct SiteState {
    nodes: Nodes,
    cluster: BatchCluster,
    running: BTreeMap<JobId, RunningJob>,
    leases: Vec<Lease>,
    waiting_ads: Vec<Arc<ClassAd>>,
}

impl SiteState {
    /// Every node's use, node `i` at position `i`.
    pub fn node_uses(&self) -> &[NodeUse] {
        self.nodes.uses()
    }

    /// Nodes idle in the batch pool (lent to scavenging or not).
    pub fn batch_idle_count(&self) -> usize {
        self.nodes.idle_count()
    }

    /// The nodes idle in the batch pool (lent to scavenging or not), most recently idle
    /// first (the order batch takes them back).
    pub fn batch_idle_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes.idle_recent_first()
    }

    /// The same nodes longest idle first (the ones batch takes back last): a policy that
    /// wants a few of them reads only those.
    pub fn batch_idle_longest_first(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.nodes.idle_longest_first()
    }

    /// The batch cluster (queue, running jobs' releases, EASY's shadow).
    pub fn cluster(&self) -> &BatchCluster {
        &self.cluster
    }

    /// The lease `id`, if the site has it.
    pub fn lease(&self, id: LeaseId) -> Option<&Lease> {
        usize::try_from(id.0).ok().and_then(|i| self.leases.get(i))
    }

    /// The running batch jobs as hybrid's mechanisms see them (leases run as batch jobs left
    /// out): rigid jobs with their setup, work and elapsed time (no checkpoints), malleable
    /// jobs with their size range. Job order: by id.
    pub fn running_views(&self, now: Time) -> Vec<RunningView> {
        self.planned_jobs(now).into_iter().map(|p| p.view).collect()
    }

    /// [`SiteState::running_views`] with each job's run start and predicted end, as hybrid's
    /// CUP plans with them ([`PlannedJob`]).
    pub fn planned_jobs(&self, now: Time) -> Vec<PlannedJob> {
        self.running
            .values()
            .filter(|r| r.job.class != JobClass::OnDemand)
            .map(|r| {
                let size = r.nodes.len() as u32;
                let kind = match r.job.resizable {
                    Some(range) => RunningKind::Malleable {
                        min_size: range.min.min(size),
                        max_size: range.max.max(size),
                    },
                    None => RunningKind::Rigid {
                        work: (r.job.runtime - r.setup).max(Duration::ZERO),
                        elapsed: now
                            .checked_since(r.started)
                            .unwrap_or(Duration::ZERO)
                            .min(r.job.runtime),
                        checkpoints: None,
                    },
                };
                PlannedJob {
                    view: RunningView {
                        id: r.job.id,
                        size,
                        setup: r.setup.min(r.job.runtime),
                        kind,
                    },
                    run_start: r.started,
                    predicted_end: r.predicted_end,
                }
            })
            .collect()
    }

    /// The head of the scavenging queue's ads (at most [`WAITING_ADS`]), queue order.
    pub fn waiting_ads(&self) -> &[Arc<ClassAd>] {
        &self.waiting_ads
    }
}

/// The site's events; completions before arrivals at one instant.
#[derive(Clone, Copy, Debug)]
enum Ev {
    BatchEnd(RunToken),
    LeaseEnd(usize),
    TaskEnd(u64, u32),
    CloudUp(usize),
    CloudDown(usize),
    BatchArrival(usize),
    LeaseRequest(usize),
    LeaseNotice(usize),
    TaskArrival(usize),
    LeaseDeadline(usize),
    Cycle,
    Wake,
}

impl Event for Ev {
    fn class(&self) -> u8 {
        match self {
            Ev::BatchEnd(_) | Ev::LeaseEnd(_) | Ev::TaskEnd(..) => 0,
            Ev::CloudUp(_) | Ev::CloudDown(_) => 1,
            Ev::BatchArrival(_) | Ev::LeaseRequest(_) | Ev::LeaseNotice(_) | Ev::TaskArrival(_) => {
                2
            }
            Ev::LeaseDeadline(_) => 3,
            Ev::Cycle | Ev::Wake => 4,
        }
    }
}

/// One site: the executor of every role. Build it with [`Site::new`], run it with
/// [`Site::run`] (or [`Site::run_until`] step by step), read [`Site::report`].
pub struct Site {
    config: SiteConfig,
    roles: Roles,
    state: SiteState,
    queue: EventQueue<Ev>,
    workload: SiteWorkload,
    /// Each workload job's position in `workload.batch`.
    batch_index: BTreeMap<JobId, usize>,
    /// The lease each lease-job runs (leases queued as batch jobs).
    lease_jobs: BTreeMap<JobId, usize>,
    lease_state: Vec<LeaseState>,
    /// Batch job ids at and above this are leases queued as batch jobs.
    lease_job_base: u64,
    records: Vec<JobRecord>,
    batch_rejected: usize,
    expandable: BTreeSet<(Time, JobId)>,
    od_pending: Vec<OnDemandObservation>,
    od_out: Vec<OnDemandCommand>,
    scav_out: Vec<ScavengingCommand>,
    started: Vec<Started>,
    // Scavenging.
    tasks: Vec<TaskState>,
    task_queues: Vec<BTreeSet<u64>>,
    lent_free: BTreeSet<NodeId>,
    /// matches[ad][kind]: kind 0 a site node, 1 + i cloud instance type i.
    matches: Vec<Vec<bool>>,
    ads: Vec<Arc<ClassAd>>,
    cloud: Vec<CloudNode>,
    cycle_scheduled: bool,
    cycle_due: bool,
    dispatched: usize,
    revoked: Vec<NodeId>,
    wake_at: Option<Time>,
    // Accounting.
    changed: Vec<Time>,
    /// Node-seconds by use: idle, batch, reserve, on-demand, lent free, lent busy.
    held: [i128; 6],
    revocations: Revocations,
    work_done: i128,
    /// Checkpointed work of the tasks not completed.
    work_saved: i128,
    work_submitted: i128,
    cloud_cost: f64,
    started_roles: bool,
    /// The instant the run has been processed through.
    ran_to: Time,
    /// Scavenged tasks running.
    tasks_running: usize,
    /// Each lease's granted nodes while it runs on reserve nodes.
    granted: BTreeMap<usize, Vec<NodeId>>,
    /// Whether batch state changed this instant (a pass and expansions are due).
    batch_dirty: bool,
}

fn use_index(u: NodeUse) -> usize {
    match u {
        NodeUse::Idle => 0,
        NodeUse::Batch(_) => 1,
        NodeUse::Reserve => 2,
        NodeUse::OnDemand(_) => 3,
        NodeUse::Lent(None) => 4,
        NodeUse::Lent(Some(_)) => 5,
    }
}

impl Site {
    /// A site of `config.nodes` nodes running `workload` under `roles`. Checks the inputs:
    /// node count, unique lease ids numbered from 0, batch ids (any `u64`, unique), task
    /// ads.
    pub fn new(
        config: SiteConfig,
        roles: Roles,
        workload: SiteWorkload,
    ) -> Result<Site, SiteError> {
        cosched_core::ParamError::check(
            (1..=MAX_NODES).contains(&config.nodes),
            "nodes",
            config.nodes,
            "must be in 1..=1000000",
        )?;
        cosched_core::ParamError::check(
            config.cycle.0 > 0,
            "cycle",
            config.cycle.0,
            "must be > 0 s",
        )?;
        cosched_core::ParamError::check(
            config.checkpoint.0 > 0,
            "checkpoint",
            config.checkpoint.0,
            "must be > 0 s",
        )?;
        for (k, l) in workload.leases.iter().enumerate() {
            if l.id.0 != k as u64 {
                return Err(SiteError::Duplicate {
                    what: "lease (ids must be 0, 1, 2, … in order)",
                    id: l.id.0,
                });
            }
        }
        let mut ids = BTreeSet::new();
        let mut max_id = 0;
        for j in &workload.batch {
            if !ids.insert(j.id()) {
                return Err(SiteError::Duplicate {
                    what: "batch job",
                    id: j.id().0,
                });
            }
            max_id = max_id.max(j.id().0);
        }
        let mut noticed = BTreeSet::new();
        for n in &workload.notices {
            let lease = usize::try_from(n.lease.0)
                .ok()
                .and_then(|k| workload.leases.get(k))
                .ok_or_else(|| {
                    cosched_core::ParamError::new("notice lease", n.lease.0, "no such lease")
                })?;
            cosched_core::ParamError::check(
                n.at <= n.estimated_arrival && n.at <= lease.requested_at,
                "notice",
                n.at.0,
                "must come at or before both the estimated and the actual arrival",
            )?;
            if !noticed.insert(n.lease) {
                return Err(SiteError::Duplicate {
                    what: "lease notice",
                    id: n.lease.0,
                });
            }
        }
        let lease_job_base = max_id.checked_add(1).ok_or(SiteError::Duplicate {
            what: "batch job (u64::MAX is reserved)",
            id: max_id,
        })?;
        let parse = |src: &str| {
            src.parse::<ClassAd>().map_err(|e| SiteError::ClassAd {
                ad: src.to_string(),
                message: e.to_string(),
            })
        };
        let node_ad = parse(&config.node_ad)?;
        let ads: Vec<Arc<ClassAd>> = TASK_ADS
            .iter()
            .map(|s| parse(s).map(Arc::new))
            .collect::<Result<_, _>>()?;
        for t in &config.instance_types {
            t.validate()?;
        }
        let mut slot_ads = vec![node_ad];
        slot_ads.extend(config.instance_types.iter().map(|t| t.slot_ad(&t.name)));
        let matches = ads
            .iter()
            .map(|a| slot_ads.iter().map(|s| match_ads(a, s).matched).collect())
            .collect();
        for t in &workload.tasks {
            if t.ad >= ads.len() {
                return Err(cosched_core::ParamError::new("ad", t.ad, "no such task ad").into());
            }
            cosched_core::ParamError::check(
                t.work.0 > 0,
                "work",
                t.work.0,
                "a task's work must be > 0 s",
            )?;
        }
        let mut queue = EventQueue::new(Time(0));
        // Arrivals are chained: each schedules the next of its stream.
        let mut batch = workload.batch.clone();
        batch.sort_by_key(|j| (submit_of(j), j.id()));
        let mut leases = workload.leases.clone();
        leases.sort_by_key(|l| (l.requested_at, l.id));
        let mut tasks = workload.tasks.clone();
        tasks.sort_by_key(|t| (t.submit, t.id));
        let mut notices = workload.notices.clone();
        notices.sort_by_key(|n| (n.at, n.lease));
        let batch_index = batch.iter().enumerate().map(|(i, j)| (j.id(), i)).collect();
        let workload = SiteWorkload {
            batch,
            leases,
            tasks,
            notices,
        };
        if let Some(j) = workload.batch.first() {
            queue.schedule(submit_of(j).max(Time(0)), Ev::BatchArrival(0))?;
        }
        if let Some(l) = workload.leases.first() {
            queue.schedule(l.requested_at.max(Time(0)), Ev::LeaseRequest(0))?;
        }
        if let Some(t) = workload.tasks.first() {
            queue.schedule(t.submit.max(Time(0)), Ev::TaskArrival(0))?;
        }
        if let Some(n) = workload.notices.first() {
            queue.schedule(n.at.max(Time(0)), Ev::LeaseNotice(0))?;
        }
        let n = config.nodes;
        let state = SiteState {
            nodes: Nodes::new(n),
            cluster: BatchCluster::new(n)?,
            running: BTreeMap::new(),
            leases: workload.leases.clone(),
            waiting_ads: Vec::new(),
        };
        Ok(Site {
            lease_state: vec![LeaseState::Waiting; workload.leases.len()],
            tasks: vec![
                TaskState {
                    saved: 0,
                    run: None,
                    epoch: 0,
                    done: false,
                };
                workload.tasks.len()
            ],
            task_queues: vec![BTreeSet::new(); ads.len()],
            changed: vec![Time(0); n as usize],
            config,
            roles,
            state,
            queue,
            workload,
            batch_index,
            lease_jobs: BTreeMap::new(),
            lease_job_base,
            records: Vec::new(),
            batch_rejected: 0,
            expandable: BTreeSet::new(),
            od_pending: Vec::new(),
            od_out: Vec::new(),
            scav_out: Vec::new(),
            started: Vec::new(),
            lent_free: BTreeSet::new(),
            matches,
            ads,
            cloud: Vec::new(),
            cycle_scheduled: false,
            cycle_due: false,
            dispatched: 0,
            revoked: Vec::new(),
            wake_at: None,
            held: [0; 6],
            revocations: Revocations::default(),
            work_done: 0,
            work_saved: 0,
            work_submitted: 0,
            cloud_cost: 0.0,
            started_roles: false,
            ran_to: Time(0),
            tasks_running: 0,
            granted: BTreeMap::new(),
            batch_dirty: true,
        })
    }

    /// The roles' view of the site.
    pub fn state(&self) -> &SiteState {
        &self.state
    }

    /// The clock: the last instant processed.
    pub fn now(&self) -> Time {
        self.queue.now()
    }

    /// Runs to the configured end and returns the report.
    pub fn run(mut self) -> Result<SiteReport, SiteError> {
        let end = self.config.end;
        self.run_until(end)?;
        Ok(self.report())
    }

    /// Processes every instant up to and including `until` (at most the configured end); a
    /// later call goes on from there.
    pub fn run_until(&mut self, until: Time) -> Result<(), SiteError> {
        if !self.started_roles {
            self.started_roles = true;
            let now = self.queue.now();
            self.roles
                .on_demand
                .start(now, &self.state, &mut self.od_out)?;
            self.apply_on_demand(now)?;
            if let Some(s) = self.roles.scavenging.as_mut() {
                s.start(now, &self.state, &mut self.scav_out)?;
            }
            self.apply_scavenging(now)?;
            self.schedule_wake()?;
        }
        let horizon = until.min(self.config.end).max(self.ran_to);
        let mut queue = std::mem::replace(&mut self.queue, EventQueue::new(Time(0)));
        let run = engine::run_until(&mut Kernel(self), &mut queue, horizon);
        self.queue = queue;
        self.ran_to = horizon;
        run.map(|_| ())
    }

    // ---- node uses and accounting ----

    fn set_use(&mut self, now: Time, node: NodeId, to: NodeUse) -> Result<NodeUse, SiteError> {
        let from = self.state.nodes.set(node, to)?;
        let i = node.index();
        let span = now.checked_since(self.changed[i]).unwrap_or(Duration::ZERO);
        self.held[use_index(from)] += i128::from(span.0);
        self.changed[i] = now;
        if from == NodeUse::Lent(None) {
            self.lent_free.remove(&node);
        }
        if to == NodeUse::Lent(None) {
            self.lent_free.insert(node);
        }
        Ok(from)
    }

    /// Takes a batch-idle node for another use, evicting a scavenged task on it.
    fn take_idle(&mut self, now: Time, node: NodeId, to: NodeUse) -> Result<(), SiteError> {
        match self.state.nodes.get(node)? {
            NodeUse::Lent(task) => {
                self.revoked.push(node);
                if let Some(task) = task {
                    self.evict(now, task, true)?;
                }
            }
            NodeUse::Idle => {}
            _ => return Err(SiteError::NotIdle(node)),
        }
        self.set_use(now, node, to)?;
        Ok(())
    }

    // ---- batch ----

    fn submit_batch(&mut self, job: BatchJob) -> Result<(), SiteError> {
        self.batch_dirty = true;
        if self.state.cluster.submit(job)? == Submitted::Rejected {
            self.batch_rejected += 1;
            self.records.push(job.unstarted_record());
        }
        Ok(())
    }

    /// The workload job `id`, by the index built at construction.
    fn workload_job(&self, id: JobId) -> Option<&HybridJob> {
        self.batch_index
            .get(&id)
            .and_then(|&i| self.workload.batch.get(i))
    }

    fn setup_of(&self, id: JobId) -> Duration {
        self.workload_job(id).map_or(Duration::ZERO, |j| match j {
            HybridJob::Rigid { setup, .. } => *setup,
            HybridJob::Malleable { job, .. } => job.setup,
            HybridJob::OnDemand(_) => Duration::ZERO,
        })
    }

    fn on_started(&mut self, now: Time, s: Started) -> Result<(), SiteError> {
        let id = s.token.job;
        let nodes = self.state.cluster.job_nodes(id)?.to_vec();
        for &n in &nodes {
            self.take_idle(now, n, NodeUse::Batch(id))?;
        }
        self.queue.schedule(s.end, Ev::BatchEnd(s.token))?;
        let job = self.batch_job_of(id)?;
        if let Some(&k) = self.lease_jobs.get(&id) {
            self.lease_state[k] = LeaseState::Running(now);
        }
        if let Some(range) = job.resizable
            && (nodes.len() as u32) < range.max
        {
            self.expandable.insert((job.submit, id));
        }
        let setup = self.setup_of(id);
        self.state.running.insert(
            id,
            RunningJob {
                nodes: nodes.clone(),
                started: now,
                token: s.token,
                predicted_end: s.predicted_end,
                job,
                setup,
            },
        );
        self.od_pending
            .push(OnDemandObservation::NodesBusy { job: id, nodes });
        Ok(())
    }

    /// The batch form of a job of the workload (or of a lease queued as one).
    fn batch_job_of(&self, id: JobId) -> Result<BatchJob, SiteError> {
        if let Some(&k) = self.lease_jobs.get(&id) {
            return Ok(lease_job(id, &self.state.leases[k]));
        }
        to_batch_job(self.workload_job(id).ok_or(SiteError::NotRunning(id))?)
    }

    fn free_job_nodes(
        &mut self,
        now: Time,
        job: JobId,
        nodes: Vec<NodeId>,
    ) -> Result<(), SiteError> {
        for &n in &nodes {
            self.set_use(now, n, NodeUse::Idle)?;
        }
        self.od_pending
            .push(OnDemandObservation::NodesFreed { job, nodes });
        Ok(())
    }

    fn batch_end(&mut self, now: Time, token: RunToken) -> Result<(), SiteError> {
        let Some(record) = self.state.cluster.complete(now, token) else {
            return Ok(());
        };
        let Some(run) = self.state.running.remove(&token.job) else {
            return Ok(());
        };
        self.batch_dirty = true;
        self.expandable.remove(&(run.job.submit, token.job));
        self.free_job_nodes(now, token.job, run.nodes)?;
        if let Some(&k) = self.lease_jobs.get(&token.job) {
            self.lease_state[k] = LeaseState::Done(now);
        } else {
            self.records.push(record);
        }
        Ok(())
    }

    fn preempt(&mut self, now: Time, job: JobId) -> Result<(), SiteError> {
        let run = self
            .state
            .running
            .remove(&job)
            .ok_or(SiteError::NotRunning(job))?;
        let malleable = run.job.resizable.is_some();
        let resume = if malleable {
            Resume::Remaining
        } else {
            Resume::Restart
        };
        self.state.cluster.preempt(now, job, resume)?;
        self.expandable.remove(&(run.job.submit, job));
        let elapsed = now.checked_since(run.started).unwrap_or(Duration::ZERO);
        let lost = if malleable {
            elapsed.min(run.setup)
        } else {
            elapsed
        };
        let size = run.nodes.len() as i128;
        if malleable {
            self.revocations.malleable_preemptions += 1;
        } else {
            self.revocations.rigid_preemptions += 1;
        }
        self.revocations.batch_lost_node_s += size * i128::from(lost.0);
        self.free_job_nodes(now, job, run.nodes)
    }

    fn resize(&mut self, now: Time, job: JobId, to: u32) -> Result<(), SiteError> {
        let s = self.state.cluster.resize(now, job, to)?;
        let new_nodes = self.state.cluster.job_nodes(job)?.to_vec();
        let run = self
            .state
            .running
            .get_mut(&job)
            .ok_or(SiteError::NotRunning(job))?;
        let old = std::mem::replace(&mut run.nodes, new_nodes.clone());
        run.token = s.token;
        run.predicted_end = s.predicted_end;
        let (submit, max) = (run.job.submit, run.job.resizable.map_or(to, |r| r.max));
        self.queue.schedule(s.end, Ev::BatchEnd(s.token))?;
        if to < max {
            self.expandable.insert((submit, job));
        } else {
            self.expandable.remove(&(submit, job));
        }
        let kept: BTreeSet<NodeId> = new_nodes.iter().copied().collect();
        let freed: Vec<NodeId> = old.iter().copied().filter(|n| !kept.contains(n)).collect();
        let had: BTreeSet<NodeId> = old.into_iter().collect();
        let gained: Vec<NodeId> = new_nodes.into_iter().filter(|n| !had.contains(n)).collect();
        for &n in &gained {
            self.take_idle(now, n, NodeUse::Batch(job))?;
        }
        if !gained.is_empty() {
            self.od_pending
                .push(OnDemandObservation::NodesBusy { job, nodes: gained });
        }
        if !freed.is_empty() {
            self.free_job_nodes(now, job, freed)?;
        }
        Ok(())
    }

    fn batch_pass(&mut self, now: Time) -> Result<(), SiteError> {
        let mut started = std::mem::take(&mut self.started);
        started.clear();
        self.state
            .cluster
            .schedule(now, self.roles.batch.as_mut(), &mut started);
        for &s in &started {
            self.on_started(now, s)?;
        }
        self.started = started;
        Ok(())
    }

    /// Malleable expansion by hybrid's rule ([`plan_expansion`]): running malleable jobs below
    /// their largest size grow into idle nodes in (submit, id) order, as far as EASY's
    /// reservation for the queue head allows.
    fn expand(&mut self, now: Time) -> Result<(), SiteError> {
        let free = self.state.cluster.free_units();
        if free == 0 || self.expandable.is_empty() {
            return Ok(());
        }
        let head = self.state.cluster.queue().next().map(|q| q.size());
        let shadow = head.map(|size| self.state.cluster.shadow(now, size));
        let candidates: Vec<ExpansionCandidate> = self
            .expandable
            .iter()
            .filter_map(|&(_, job)| {
                let run = self.state.running.get(&job)?;
                let size = run.nodes.len() as u32;
                Some(ExpansionCandidate {
                    job,
                    size,
                    max: run.job.resizable.map_or(size, |r| r.max),
                    predicted_end: run.predicted_end,
                })
            })
            .collect();
        for (job, to, _) in plan_expansion(now, free, shadow, candidates) {
            self.revocations.malleable_expansions += 1;
            self.resize(now, job, to)?;
        }
        Ok(())
    }

    // ---- on-demand ----

    fn grant(&mut self, now: Time, k: usize, nodes: &[NodeId]) -> Result<(), SiteError> {
        let lease = self.state.leases[k];
        if self.lease_state[k] != LeaseState::Waiting {
            return Err(SiteError::LeaseNotWaiting(lease.id));
        }
        if nodes.len() != lease.nodes as usize {
            return Err(SiteError::GrantSize {
                lease: lease.id,
                needed: lease.nodes,
                given: nodes.len(),
            });
        }
        for &n in nodes {
            let u = self.state.nodes.get(n)?;
            if u != NodeUse::Reserve {
                return Err(SiteError::NotOnDemand {
                    node: n,
                    state: format!("{u:?}"),
                });
            }
            self.set_use(now, n, NodeUse::OnDemand(lease.id))?;
        }
        self.lease_state[k] = LeaseState::Running(now);
        self.granted.insert(k, nodes.to_vec());
        if let Some(end) = lease.end_if_started_at(now) {
            self.queue.schedule(end, Ev::LeaseEnd(k))?;
        }
        Ok(())
    }

    fn lease_index(&self, lease: LeaseId) -> Result<usize, SiteError> {
        usize::try_from(lease.0)
            .ok()
            .filter(|&k| k < self.state.leases.len())
            .ok_or(SiteError::LeaseNotWaiting(lease))
    }

    fn apply_on_demand(&mut self, now: Time) -> Result<bool, SiteError> {
        let mut commands = std::mem::take(&mut self.od_out);
        let any = !commands.is_empty();
        for c in commands.drain(..) {
            match c {
                OnDemandCommand::Reclaim(n) => {
                    self.take_idle(now, n, NodeUse::Reserve)?;
                    self.state.cluster.set_offline(n)?;
                }
                OnDemandCommand::Restore(n) => {
                    let u = self.state.nodes.get(n)?;
                    if u != NodeUse::Reserve {
                        return Err(SiteError::NotOnDemand {
                            node: n,
                            state: format!("{u:?}"),
                        });
                    }
                    self.state.cluster.set_online(n)?;
                    self.set_use(now, n, NodeUse::Idle)?;
                }
                OnDemandCommand::Grant { lease, nodes } => {
                    let k = self.lease_index(lease)?;
                    self.grant(now, k, &nodes)?;
                }
                OnDemandCommand::GrantIdle { lease } => {
                    let k = self.lease_index(lease)?;
                    let need = self.state.leases[k].nodes as usize;
                    let mut pick: Vec<NodeId> =
                        self.state.nodes.unlent_recent_first().take(need).collect();
                    if pick.len() < need {
                        let more: Vec<NodeId> = self
                            .state
                            .nodes
                            .idle_recent_first()
                            .filter(|n| !pick.contains(n))
                            .take(need - pick.len())
                            .collect();
                        pick.extend(more);
                    }
                    if pick.len() < need {
                        return Err(SiteError::GrantSize {
                            lease,
                            needed: need as u32,
                            given: pick.len(),
                        });
                    }
                    for &n in &pick {
                        self.take_idle(now, n, NodeUse::Reserve)?;
                        self.state.cluster.set_offline(n)?;
                    }
                    self.grant(now, k, &pick)?;
                }
                OnDemandCommand::Reject { lease } => {
                    let k = self.lease_index(lease)?;
                    match self.lease_state[k] {
                        LeaseState::Waiting => self.lease_state[k] = LeaseState::Rejected,
                        LeaseState::Rejected => {}
                        _ => return Err(SiteError::LeaseNotWaiting(lease)),
                    }
                }
                OnDemandCommand::QueueAsBatch { lease } => {
                    let k = self.lease_index(lease)?;
                    if self.lease_state[k] != LeaseState::Waiting {
                        return Err(SiteError::LeaseNotWaiting(lease));
                    }
                    let id = JobId(self.lease_job_base + k as u64);
                    self.lease_jobs.insert(id, k);
                    self.lease_state[k] = LeaseState::Queued(id);
                    let job = lease_job(id, &self.state.leases[k]);
                    if self.state.cluster.submit(job)? == Submitted::Rejected {
                        self.lease_state[k] = LeaseState::Rejected;
                    }
                }
                OnDemandCommand::Preempt { job } => self.preempt(now, job)?,
                OnDemandCommand::Shrink { job, to } => {
                    self.revocations.malleable_shrinks += 1;
                    self.resize(now, job, to)?;
                }
            }
        }
        self.od_out = commands;
        Ok(any)
    }

    /// Delivers due wakes and pending observations until the role is quiet; true if it
    /// issued any command.
    fn on_demand_round(&mut self, now: Time) -> Result<bool, SiteError> {
        let mut any = false;
        // A due wake is delivered again only if the policy moved its wake time: a policy
        // that leaves it in the past is woken once per instant, never in a loop.
        let mut woken_at = None;
        loop {
            let due = self.roles.on_demand.next_wake().filter(|&t| t <= now);
            let woke = due.is_some() && due != woken_at;
            if woke {
                woken_at = due;
                wake_due(
                    self.roles.on_demand.as_mut(),
                    now,
                    &self.state,
                    &mut self.od_out,
                )?;
            }
            any |= self.apply_on_demand(now)?;
            // One observation at a time: each call sees the commands before it applied.
            let pending = std::mem::take(&mut self.od_pending);
            for obs in &pending {
                self.roles
                    .on_demand
                    .observe(now, obs, &self.state, &mut self.od_out)?;
                any |= self.apply_on_demand(now)?;
            }
            if !woke && pending.is_empty() && self.od_pending.is_empty() {
                break;
            }
        }
        Ok(any)
    }

    /// Schedules the role's next wake: at its time, or the next second if it is overdue (it
    /// was woken this instant and still asks).
    fn schedule_wake(&mut self) -> Result<(), SiteError> {
        let now = self.queue.now();
        if let Some(t) = self.roles.on_demand.next_wake() {
            let at = if t > now {
                t
            } else {
                now.try_add(Duration(1))
                    .map_err(cosched_core::EngineError::from)?
            };
            if self.wake_at != Some(at) {
                self.queue.schedule(at, Ev::Wake)?;
                self.wake_at = Some(at);
            }
        }
        Ok(())
    }

    // ---- scavenging ----

    fn evict(&mut self, now: Time, task: u64, owner: bool) -> Result<(), SiteError> {
        let Some(t) = usize::try_from(task)
            .ok()
            .and_then(|i| self.tasks.get_mut(i))
        else {
            return Ok(());
        };
        let Some((slot, start, speed)) = t.run.take() else {
            return Ok(());
        };
        self.tasks_running -= 1;
        let ran = (now.checked_since(start).unwrap_or(Duration::ZERO).0 as f64 * speed) as i64;
        let (saved, lost) = if owner {
            let c = self.config.checkpoint.0;
            let saved = ran / c * c;
            (saved, ran - saved)
        } else {
            (ran, 0)
        };
        t.saved += saved;
        self.work_saved += i128::from(saved);
        t.epoch = t.epoch.wrapping_add(1);
        if owner {
            self.revocations.scavenged_evictions += 1;
            self.revocations.scavenged_lost_s += i128::from(lost);
        } else {
            self.revocations.cloud_requeues += 1;
        }
        let ad = self.workload.tasks[task as usize].ad;
        self.task_queues[ad].insert(task);
        if let Slot::Site(n) = slot
            && self.state.nodes.get(n)? == NodeUse::Lent(Some(task))
            && !owner
        {
            self.set_use(now, n, NodeUse::Lent(None))?;
        }
        Ok(())
    }

    fn start_task(&mut self, now: Time, task: u64, slot: Slot) -> Result<(), SiteError> {
        let speed = match slot {
            Slot::Site(n) => {
                self.set_use(now, n, NodeUse::Lent(Some(task)))?;
                1.0
            }
            Slot::Cloud(c) => {
                self.cloud[c].tasks.push(task);
                self.config.instance_types[self.cloud[c].instance].speed
            }
        };
        let left = self.workload.tasks[task as usize].work.0 - self.tasks[task as usize].saved;
        let secs = ((left.max(0) as f64) / speed).ceil() as i64;
        let t = &mut self.tasks[task as usize];
        t.run = Some((slot, now, speed));
        let epoch = t.epoch;
        self.tasks_running += 1;
        self.queue
            .schedule_in(Duration(secs), Ev::TaskEnd(task, epoch))?;
        self.dispatched += 1;
        Ok(())
    }

    fn task_end(&mut self, now: Time, task: u64, epoch: u32) -> Result<(), SiteError> {
        let t = &mut self.tasks[task as usize];
        if t.epoch != epoch || t.done {
            return Ok(());
        }
        let Some((slot, _, _)) = t.run.take() else {
            return Ok(());
        };
        t.done = true;
        self.work_saved -= i128::from(t.saved);
        self.tasks_running -= 1;
        self.work_done += i128::from(self.workload.tasks[task as usize].work.0);
        match slot {
            Slot::Site(n) => {
                self.set_use(now, n, NodeUse::Lent(None))?;
            }
            Slot::Cloud(c) => self.cloud[c].tasks.retain(|&x| x != task),
        }
        Ok(())
    }

    /// The negotiator: queued tasks, oldest first, to free matching slots (site nodes first,
    /// then cloud slots).
    fn dispatch(&mut self, now: Time) -> Result<(), SiteError> {
        loop {
            let mut best: Option<(u64, usize, Slot)> = None;
            for (ad, q) in self.task_queues.iter().enumerate() {
                let Some(&head) = q.first() else { continue };
                if best.is_some_and(|(b, _, _)| b < head) {
                    continue;
                }
                let slot = if self.matches[ad][0] {
                    self.lent_free.first().map(|&n| Slot::Site(n))
                } else {
                    None
                };
                let slot = slot.or_else(|| {
                    self.cloud
                        .iter()
                        .position(|c| {
                            c.up && c.stopped.is_none()
                                && (c.tasks.len() as u32)
                                    < self.config.instance_types[c.instance].slots
                                && self.matches[ad][1 + c.instance]
                        })
                        .map(Slot::Cloud)
                });
                if let Some(slot) = slot {
                    best = Some((head, ad, slot));
                }
            }
            let Some((task, ad, slot)) = best else {
                return Ok(());
            };
            self.task_queues[ad].remove(&task);
            self.start_task(now, task, slot)?;
        }
    }

    fn cycle(&mut self, now: Time) -> Result<(), SiteError> {
        self.dispatch(now)?;
        let queued: usize = self.task_queues.iter().map(BTreeSet::len).sum();
        self.state.waiting_ads.clear();
        let mut heads: Vec<u64> = self
            .task_queues
            .iter()
            .flat_map(|q| q.iter().take(WAITING_ADS).copied())
            .collect();
        heads.sort_unstable();
        heads.truncate(WAITING_ADS);
        for t in heads {
            let ad = self.workload.tasks[t as usize].ad;
            self.state.waiting_ads.push(Arc::clone(&self.ads[ad]));
        }
        let lent = self
            .state
            .nodes
            .idle_count()
            .saturating_sub(self.state.nodes.unlent_count());
        let running = self.tasks_running;
        let cycle = PoolCycle {
            instance_types: self.config.instance_types.clone(),
            dispatched: std::mem::take(&mut self.dispatched),
            queued,
            running,
            lendable: self.state.nodes.unlent_count() as u32,
            lent: lent as u32,
            lent_free: self.lent_free.len() as u32,
            revoked: std::mem::take(&mut self.revoked),
            cloud_nodes: self
                .cloud
                .iter()
                .enumerate()
                .filter(|(_, c)| c.stopped.is_none())
                .map(|(i, c)| CloudNodeView {
                    node: NodeId(i as u32),
                    instance: c.instance,
                    state: if !c.up {
                        CloudNodeState::Booting
                    } else if c.tasks.is_empty() {
                        CloudNodeState::Idle
                    } else {
                        CloudNodeState::Busy {
                            jobs: c.tasks.len() as u32,
                        }
                    },
                })
                .collect(),
            work_done_s: self.work_done as f64,
            work_left_s: (self.work_submitted - self.work_done) as f64,
            work_partial_s: self.work_partial(now),
        };
        if let Some(s) = self.roles.scavenging.as_mut() {
            s.observe(now, &cycle, &self.state, &mut self.scav_out)?;
        }
        self.apply_scavenging(now)?;
        self.dispatch(now)?;
        let alive = self.cloud.iter().any(|c| c.stopped.is_none());
        let lent_any = self.state.nodes.idle_count() > self.state.nodes.unlent_count();
        let queued: usize = self.task_queues.iter().map(BTreeSet::len).sum();
        if queued > 0 || alive || lent_any {
            self.queue.schedule_in(self.config.cycle, Ev::Cycle)?;
            self.cycle_scheduled = true;
        }
        Ok(())
    }

    /// Reference seconds of work the unfinished tasks hold: their checkpoints, and what the
    /// running ones did since their last start. O(running tasks), whatever the site's size.
    fn work_partial(&self, now: Time) -> f64 {
        let site =
            self.state
                .nodes
                .running_recent_first()
                .filter_map(|n| match self.state.nodes.get(n) {
                    Ok(NodeUse::Lent(Some(t))) => Some(t),
                    _ => None,
                });
        let cloud = self
            .cloud
            .iter()
            .filter(|c| c.stopped.is_none())
            .flat_map(|c| c.tasks.iter().copied());
        site.chain(cloud)
            .filter_map(|t| {
                let state = self.tasks.get(usize::try_from(t).ok()?)?;
                let work = self.workload.tasks.get(usize::try_from(t).ok()?)?.work.0 as f64;
                let (_, start, speed) = state.run?;
                let ran = now.checked_since(start).unwrap_or(Duration::ZERO).0 as f64 * speed;
                Some(ran.min(work - state.saved as f64))
            })
            .sum::<f64>()
            + self.work_saved as f64
    }

    fn apply_scavenging(&mut self, now: Time) -> Result<(), SiteError> {
        let mut commands = std::mem::take(&mut self.scav_out);
        for c in commands.drain(..) {
            match c {
                ScavengingCommand::Lend { count } => {
                    let pick: Vec<NodeId> = self
                        .state
                        .nodes
                        .unlent_longest_first()
                        .take(count as usize)
                        .collect();
                    for n in pick {
                        self.set_use(now, n, NodeUse::Lent(None))?;
                    }
                }
                ScavengingCommand::LendNode(n) => {
                    if self.state.nodes.get(n)? == NodeUse::Idle {
                        self.set_use(now, n, NodeUse::Lent(None))?;
                    }
                }
                ScavengingCommand::Recall { count } => {
                    let pick: Vec<NodeId> = self
                        .lent_free
                        .iter()
                        .rev()
                        .take(count as usize)
                        .copied()
                        .collect();
                    for n in pick {
                        self.set_use(now, n, NodeUse::Idle)?;
                    }
                }
                ScavengingCommand::RecallNode(n) => {
                    if let NodeUse::Lent(task) = self.state.nodes.get(n)? {
                        if let Some(task) = task {
                            self.evict(now, task, true)?;
                        }
                        self.set_use(now, n, NodeUse::Idle)?;
                    }
                }
                ScavengingCommand::CloudStart {
                    instance,
                    count,
                    lifetime,
                } => {
                    let Some(t) = self.config.instance_types.get(instance) else {
                        return Err(cosched_core::ParamError::new(
                            "instance",
                            instance,
                            "no such instance type",
                        )
                        .into());
                    };
                    let (spin_up, count) = (t.spin_up, count.min(1024));
                    for _ in 0..count {
                        let i = self.cloud.len();
                        self.cloud.push(CloudNode {
                            instance,
                            requested: now,
                            lifetime: lifetime.max(Duration::ZERO),
                            up: false,
                            stopped: None,
                            tasks: Vec::new(),
                        });
                        self.queue.schedule_in(spin_up, Ev::CloudUp(i))?;
                    }
                }
                ScavengingCommand::CloudStop(node) => self.stop_cloud(now, node.index())?,
            }
        }
        self.scav_out = commands;
        Ok(())
    }

    fn stop_cloud(&mut self, now: Time, i: usize) -> Result<(), SiteError> {
        let Some(c) = self.cloud.get_mut(i) else {
            return Ok(());
        };
        if c.stopped.is_some() {
            return Ok(());
        }
        c.stopped = Some(now);
        let held = now.checked_since(c.requested).unwrap_or(Duration::ZERO);
        self.cloud_cost += self.config.instance_types[c.instance].cost(held);
        for task in std::mem::take(&mut c.tasks) {
            self.evict(now, task, false)?;
        }
        Ok(())
    }

    /// Checks the executor's invariants, naming the first that fails: every node has one use
    /// and the batch cluster agrees with it (idle and lent nodes idle there, a batch job's
    /// nodes busy with it, on-demand nodes offline); a running lease holds exactly its nodes;
    /// a running scavenged task is where its slot says, and a cloud node runs at most its
    /// slots. For tests and audits: O(nodes + tasks).
    pub fn check(&self) -> Result<(), String> {
        use cosched_core::NodeState;
        let mut held: BTreeMap<LeaseId, u32> = BTreeMap::new();
        for (i, &u) in self.state.nodes.uses().iter().enumerate() {
            let node = NodeId(i as u32);
            let in_cluster = self
                .state
                .cluster
                .node_state(node)
                .map_err(|e| format!("{node}: {e}"))?;
            let agrees = match u {
                NodeUse::Idle | NodeUse::Lent(_) => in_cluster == NodeState::Idle,
                NodeUse::Batch(j) => {
                    in_cluster == NodeState::Busy(j)
                        && self
                            .state
                            .running
                            .get(&j)
                            .is_some_and(|r| r.nodes.contains(&node))
                }
                NodeUse::Reserve => in_cluster == NodeState::Offline,
                NodeUse::OnDemand(l) => {
                    *held.entry(l).or_default() += 1;
                    in_cluster == NodeState::Offline
                }
            };
            if !agrees {
                return Err(format!(
                    "{node} is {u:?} here but {in_cluster:?} in the cluster"
                ));
            }
            if let NodeUse::Lent(Some(t)) = u {
                let run = self.tasks.get(t as usize).and_then(|t| t.run);
                if !matches!(run, Some((Slot::Site(n), _, _)) if n == node) {
                    return Err(format!(
                        "{node} runs task {t}, which runs elsewhere: {run:?}"
                    ));
                }
            }
        }
        for (k, s) in self.lease_state.iter().enumerate() {
            let lease = &self.state.leases[k];
            let on_nodes = held.remove(&lease.id).unwrap_or(0);
            let expected = match s {
                LeaseState::Running(_) if !self.is_lease_job(k) => lease.nodes,
                _ => 0,
            };
            if on_nodes != expected {
                return Err(format!(
                    "{} ({s:?}) holds {on_nodes} nodes, expected {expected}",
                    lease.id
                ));
            }
        }
        if let Some((l, n)) = held.into_iter().next() {
            return Err(format!("{n} nodes granted to unknown {l}"));
        }
        for (t, state) in self.tasks.iter().enumerate() {
            match state.run {
                Some((Slot::Site(n), _, _))
                    if self.state.nodes.get(n).ok() != Some(NodeUse::Lent(Some(t as u64))) =>
                {
                    return Err(format!("task {t} runs on {n}, which does not run it"));
                }
                Some((Slot::Cloud(c), _, _)) => {
                    let node = self
                        .cloud
                        .get(c)
                        .ok_or(format!("task {t}: no cloud node {c}"))?;
                    if !node.tasks.contains(&(t as u64)) || node.stopped.is_some() {
                        return Err(format!(
                            "task {t} runs on cloud node {c}, which does not run it"
                        ));
                    }
                }
                Some((Slot::Site(_), _, _)) | None => {}
            }
        }
        for (c, node) in self.cloud.iter().enumerate() {
            if node.tasks.len() as u32 > self.config.instance_types[node.instance].slots {
                return Err(format!("cloud node {c} runs more tasks than it has slots"));
            }
        }
        Ok(())
    }

    /// Whether lease `k` runs as a batch job (queued as one).
    fn is_lease_job(&self, k: usize) -> bool {
        let job = JobId(self.lease_job_base + k as u64);
        self.lease_jobs.get(&job) == Some(&k)
    }

    // ---- the report ----

    /// What the run produced through the instant processed last ([`Site::run_until`]'s
    /// bound): work still running or waiting then is reported as such.
    pub fn report(&self) -> SiteReport {
        let now = self.ran_to;
        let mut held = self.held;
        for (i, &u) in self.state.nodes.uses().iter().enumerate() {
            held[use_index(u)] += i128::from(
                now.checked_since(self.changed[i])
                    .unwrap_or(Duration::ZERO)
                    .0,
            );
        }
        let mut cloud_cost = self.cloud_cost;
        for c in self.cloud.iter().filter(|c| c.stopped.is_none()) {
            let held = now.checked_since(c.requested).unwrap_or(Duration::ZERO);
            cloud_cost += self.config.instance_types[c.instance].cost(held);
        }
        let done: Vec<&JobRecord> = self.records.iter().filter(|r| r.end.is_some()).collect();
        let batch = Summary::of(done.iter().copied(), DEFAULT_SLOWDOWN_TAU);
        let malleable: Vec<f64> = done
            .iter()
            .filter(|r| r.class == JobClass::Malleable)
            .filter_map(|r| r.turnaround())
            .map(|d| d.0 as f64)
            .collect();
        let mut leases = LeaseCounts::default();
        let mut waits = Vec::new();
        for (k, s) in self.lease_state.iter().enumerate() {
            let l = &self.state.leases[k];
            if l.requested_at > now {
                continue;
            }
            leases.requested += 1;
            match *s {
                LeaseState::Waiting | LeaseState::Queued(_) => leases.waiting += 1,
                LeaseState::Running(t) => {
                    leases.running += 1;
                    waits.push(t.checked_since(l.requested_at).unwrap_or(Duration::ZERO).0 as f64);
                }
                LeaseState::Done(_) => {
                    leases.completed += 1;
                }
                LeaseState::Rejected => leases.rejected += 1,
            }
        }
        for (k, s) in self.lease_state.iter().enumerate() {
            if let LeaseState::Done(end) = *s {
                let l = &self.state.leases[k];
                let dur = match l.end {
                    cosched_core::LeaseEnd::Bounded(d) => d,
                    cosched_core::LeaseEnd::Unbounded => Duration::ZERO,
                };
                let start = end - dur;
                waits.push(
                    start
                        .checked_since(l.requested_at)
                        .unwrap_or(Duration::ZERO)
                        .0 as f64,
                );
            }
        }
        let span = i128::from(now.0.max(1)) * i128::from(self.config.nodes);
        let useful = held[1] + held[3] + held[5]
            - self.revocations.batch_lost_node_s
            - self.revocations.scavenged_lost_s;
        let busy = held[1] + held[3] + held[5];
        let (idle_w, busy_w) = self.config.power_w;
        let energy_j = (busy as f64) * busy_w + ((span - busy) as f64) * idle_w;
        let tasks_completed = self.tasks.iter().filter(|t| t.done).count();
        let tasks_running = self.tasks.iter().filter(|t| t.run.is_some()).count();
        let tasks_submitted = self
            .workload
            .tasks
            .iter()
            .filter(|t| t.submit <= now)
            .count();
        let batch_submitted = self
            .workload
            .batch
            .iter()
            .filter(|j| !matches!(j, HybridJob::OnDemand(_)) && submit_of(j) <= now)
            .count();
        let lease_jobs_running = self
            .state
            .running
            .keys()
            .filter(|j| self.lease_jobs.contains_key(j))
            .count();
        let lease_jobs_queued = self
            .lease_state
            .iter()
            .filter(|s| matches!(s, LeaseState::Queued(_)))
            .count();
        SiteReport {
            nodes: self.config.nodes,
            end_s: now.0,
            leases,
            on_demand_served_pct: pct(
                (leases.running + leases.completed) as f64,
                leases.requested as f64,
            ),
            on_demand_mean_wait_s: cosched_core::stats::mean(&waits).unwrap_or(0.0),
            batch_submitted,
            batch_completed: done.len(),
            batch_rejected: self.batch_rejected,
            batch_running: self.state.running.len() - lease_jobs_running,
            batch_queued: self.state.cluster.queue_len() - lease_jobs_queued,
            batch_mean_wait_s: batch.mean_wait_s,
            batch_mean_bounded_slowdown: batch.mean_bounded_slowdown,
            malleable_completed: malleable.len(),
            malleable_mean_turnaround_s: cosched_core::stats::mean(&malleable).unwrap_or(0.0),
            scavenged_submitted: tasks_submitted,
            scavenged_completed: tasks_completed,
            scavenged_running: tasks_running,
            scavenged_queued: self.task_queues.iter().map(BTreeSet::len).sum(),
            scavenged_evicted: self.revocations.scavenged_evictions,
            goodput_node_h: self.work_done as f64 / 3600.0,
            useful_utilization_pct: pct(useful as f64, span as f64),
            cloud_cost_usd: cloud_cost,
            cloud_nodes_started: self.cloud.len(),
            energy_kwh: energy_j / 3.6e6,
            revocations: self.revocations,
            node_hours: held.map(|h| h as f64 / 3600.0),
        }
    }
}

fn pct(a: f64, b: f64) -> f64 {
    if b > 0.0 { 100.0 * a / b } else { 0.0 }
}

fn submit_of(j: &HybridJob) -> Time {
    match j {
        HybridJob::Rigid { job, .. } => job.submit,
        HybridJob::Malleable { job, .. } => job.submit,
        HybridJob::OnDemand(job) => job.arrival,
    }
}

/// The batch job a workload job is (a rigid job cut at its estimate; a malleable job at its
/// largest size).
fn to_batch_job(j: &HybridJob) -> Result<BatchJob, SiteError> {
    Ok(match j {
        HybridJob::Rigid { job, .. } => BatchJob::rigid(job),
        HybridJob::Malleable { job, estimate } => {
            BatchJob::malleable(job, job.max_size, *estimate)?
        }
        HybridJob::OnDemand(job) => return Err(SiteError::NotRunning(job.id)),
    })
}

/// A lease queued as a rigid batch job of its duration.
fn lease_job(id: JobId, lease: &Lease) -> BatchJob {
    let d = match lease.end {
        cosched_core::LeaseEnd::Bounded(d) => d,
        cosched_core::LeaseEnd::Unbounded => Duration(i64::from(u32::MAX)),
    };
    BatchJob {
        id,
        submit: lease.requested_at,
        size: lease.nodes,
        runtime: d,
        estimate: d,
        class: JobClass::OnDemand,
        resizable: None,
    }
}

/// The site as the kernel runs it. Its helpers schedule on `Site::queue`, so each call lends
/// the kernel's queue to the site for its duration.
struct Kernel<'a>(&'a mut Site);

impl Simulation for Kernel<'_> {
    type Event = Ev;
    type Error = SiteError;

    fn handle(&mut self, now: Time, ev: Ev, q: &mut EventQueue<Ev>) -> Result<(), SiteError> {
        std::mem::swap(&mut self.0.queue, q);
        let done = self.0.handle_event(now, ev);
        std::mem::swap(&mut self.0.queue, q);
        done
    }

    fn settle(&mut self, now: Time, q: &mut EventQueue<Ev>) -> Result<(), SiteError> {
        std::mem::swap(&mut self.0.queue, q);
        let done = self.0.settle_instant(now);
        std::mem::swap(&mut self.0.queue, q);
        done
    }
}

impl Site {
    fn handle_event(&mut self, now: Time, ev: Ev) -> Result<(), SiteError> {
        match ev {
            Ev::BatchEnd(token) => self.batch_end(now, token)?,
            Ev::LeaseEnd(k) => {
                let id = self.state.leases[k].id;
                let nodes = self.granted.remove(&k).unwrap_or_default();
                for &n in &nodes {
                    self.set_use(now, n, NodeUse::Reserve)?;
                }
                self.lease_state[k] = LeaseState::Done(now);
                self.od_pending
                    .push(OnDemandObservation::Ended { lease: id, nodes });
            }
            Ev::TaskEnd(task, epoch) => self.task_end(now, task, epoch)?,
            Ev::CloudUp(i) => {
                if let Some(c) = self.cloud.get_mut(i)
                    && c.stopped.is_none()
                {
                    c.up = true;
                    // The lifetime runs from joining the pool.
                    let lifetime = c.lifetime;
                    self.queue.schedule_in(lifetime, Ev::CloudDown(i))?;
                }
            }
            Ev::CloudDown(i) => self.stop_cloud(now, i)?,
            Ev::BatchArrival(i) => {
                let j = self.workload.batch[i];
                if !matches!(j, HybridJob::OnDemand(_)) {
                    self.submit_batch(to_batch_job(&j)?)?;
                }
                if let Some(next) = self.workload.batch.get(i + 1) {
                    self.queue
                        .schedule(submit_of(next).max(now), Ev::BatchArrival(i + 1))?;
                }
            }
            Ev::LeaseRequest(k) => {
                let lease = self.state.leases[k];
                self.od_pending.push(OnDemandObservation::Request(lease));
                if let Some(d) = lease.start_deadline() {
                    self.queue
                        .schedule(d.saturating_add(Duration(1)), Ev::LeaseDeadline(k))?;
                }
                if let Some(next) = self.state.leases.get(k + 1) {
                    self.queue
                        .schedule(next.requested_at.max(now), Ev::LeaseRequest(k + 1))?;
                }
            }
            Ev::LeaseNotice(i) => {
                let n = self.workload.notices[i];
                let lease = self.state.leases[n.lease.0 as usize];
                // A notice at the arrival instant carries nothing the arrival does not.
                if now < lease.requested_at {
                    self.od_pending.push(OnDemandObservation::Notice {
                        lease: lease.id,
                        nodes: lease.nodes,
                        estimated_arrival: n.estimated_arrival,
                    });
                }
                if let Some(next) = self.workload.notices.get(i + 1) {
                    self.queue
                        .schedule(next.at.max(now), Ev::LeaseNotice(i + 1))?;
                }
            }
            Ev::TaskArrival(i) => {
                let t = self.workload.tasks[i];
                self.work_submitted += i128::from(t.work.0);
                self.task_queues[t.ad].insert(i as u64);
                if !self.cycle_scheduled {
                    self.cycle_due = true;
                }
                if let Some(next) = self.workload.tasks.get(i + 1) {
                    self.queue
                        .schedule(next.submit.max(now), Ev::TaskArrival(i + 1))?;
                }
            }
            Ev::LeaseDeadline(k) => match self.lease_state[k] {
                LeaseState::Waiting => self.lease_state[k] = LeaseState::Rejected,
                LeaseState::Queued(job) => {
                    self.batch_dirty = true;
                    self.state.cluster.cancel(job)?;
                    self.lease_state[k] = LeaseState::Rejected;
                }
                _ => {}
            },
            Ev::Cycle => {
                self.cycle_scheduled = false;
                self.cycle_due = true;
            }
            Ev::Wake => self.wake_at = None,
        }
        Ok(())
    }

    fn settle_instant(&mut self, now: Time) -> Result<(), SiteError> {
        // Precedence: on-demand, then batch, then malleable expansion, then scavenging.
        // A batch pass and expansions run only at instants that changed batch state (arrivals,
        // ends, node moves): scavenging events alone leave the schedule as it was.
        for _ in 0..64 {
            let changed = self.on_demand_round(now)?;
            self.batch_dirty |= changed;
            if self.batch_dirty {
                self.batch_dirty = false;
                self.batch_pass(now)?;
                self.expand(now)?;
            }
            if !changed && self.od_pending.is_empty() {
                break;
            }
        }
        // Tasks waiting (new, or requeued by an eviction) restart the negotiator.
        if !self.cycle_scheduled && self.task_queues.iter().any(|q| !q.is_empty()) {
            self.cycle_due = true;
        }
        if self.cycle_due {
            self.cycle_due = false;
            self.cycle(now)?;
        } else if !self.lent_free.is_empty() {
            self.dispatch(now)?;
        }
        self.schedule_wake()
    }
}

// ---- batch jobs routed in from outside (a grid's metascheduler: crate::grid) ----

/// Where a batch job handed to [`Site::submit`] stands ([`Site::batch_start`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchStart {
    /// Waiting in the queue.
    Queued,
    /// Started at this time (its current run, if it was preempted and restarted).
    Started(Time),
    /// Refused: larger than the site.
    Rejected,
}

impl Site {
    /// Keeps batch ids below `bound` free for [`Site::submit`] (leases queued as batch jobs
    /// take ids above the workload's; call this before the run).
    ///
    /// # Errors
    /// [`SiteError::Param`] once the run has started.
    pub fn reserve_batch_ids(&mut self, bound: u64) -> Result<(), SiteError> {
        cosched_core::ParamError::check(
            !self.started_roles && self.lease_jobs.is_empty(),
            "reserve_batch_ids",
            bound,
            "must be called before the run",
        )?;
        self.lease_job_base = self.lease_job_base.max(bound);
        Ok(())
    }

    /// Submits a batch job at `at`, after the site ran to `at` ([`Site::run_until`]): it
    /// joins the queue in `(submit, id)` order (its `submit`, at most `at`, counts in its
    /// wait) and is scheduled at `at`.
    ///
    /// # Errors
    /// [`SiteError::Duplicate`] for an id the site knows or one of those kept for leases;
    /// [`SiteError::Param`] for an on-demand job, a job submitted after `at`, a site not run
    /// to `at` (or past it), or while the site's own batch jobs are still arriving.
    pub fn submit(&mut self, at: Time, job: HybridJob) -> Result<(), SiteError> {
        let id = job.id();
        if id.0 >= self.lease_job_base || self.batch_index.contains_key(&id) {
            return Err(SiteError::Duplicate {
                what: "submitted batch job",
                id: id.0,
            });
        }
        let check =
            |ok: bool, why: &'static str| cosched_core::ParamError::check(ok, "submit", id.0, why);
        check(
            job.submit() <= at,
            "a job is submitted at or after its submit time",
        )?;
        check(
            self.started_roles
                && self.queue.now() <= at
                && self.queue.peek_time().is_none_or(|t| t >= at),
            "the site must have run to the submission time, and not past it",
        )?;
        check(
            self.workload
                .batch
                .last()
                .is_none_or(|j| submit_of(j) <= at),
            "the site's own batch jobs must all have arrived",
        )?;
        if let HybridJob::OnDemand(_) = job {
            check(false, "an on-demand job is a lease, not a batch job")?;
        }
        let batch_job = to_batch_job(&job)?;
        self.batch_index.insert(id, self.workload.batch.len());
        self.workload.batch.push(job);
        self.submit_batch(batch_job)?;
        // An instant at `at`, so that the job is considered then.
        self.queue.schedule(at, Ev::Wake)?;
        Ok(())
    }

    /// Where the batch job `id` stands; `None` if the site never had it.
    pub fn batch_start(&self, id: JobId) -> Option<BatchStart> {
        if self.state.cluster.queued_job(id).is_some() {
            return Some(BatchStart::Queued);
        }
        if let Some(r) = self.state.running.get(&id) {
            return Some(BatchStart::Started(r.started));
        }
        let record = self.records.iter().rev().find(|r| r.id == id)?;
        Some(
            record
                .start
                .map_or(BatchStart::Rejected, BatchStart::Started),
        )
    }

    /// When the run stops (the configured end).
    pub fn end(&self) -> Time {
        self.config.end
    }

    /// The batch jobs ended or refused so far, in order of their end (leases queued as batch
    /// jobs are counted as leases, not here).
    pub fn batch_records(&self) -> &[JobRecord] {
        &self.records
    }
}

impl SiteState {
    /// The running batch jobs: id, nodes, start of the current run, its estimate.
    pub fn running_batch(&self) -> impl Iterator<Item = (JobId, u32, Time, Duration)> + '_ {
        self.running.iter().map(|(&id, r)| {
            (
                id,
                r.nodes.len() as u32,
                r.started,
                r.predicted_end
                    .checked_since(r.started)
                    .unwrap_or(Duration::ZERO),
            )
        })
    }
}
