//! The executor: one cluster, one clock, the leases, and the roles' policies.
//!
//! [`Site`] holds the policy of each role, each driven through core's driver, and the
//! executor proper ([`Exec`]), split by role: [`state`] is the view lent to the roles,
//! [`batch`] runs batch jobs and passes, [`on_demand`] applies the site protocol's commands
//! to the leases, [`hybrid`] is the platform of a policy of hybrid's protocol (its view and
//! its commands, guests included), [`scavenging`] the negotiator, the tasks and the cloud,
//! [`check`] the invariants and [`report`] the report.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use cosched_albatross::pool::InstanceType;
use cosched_batch::{BatchCluster, BatchPolicy, RunToken};
use cosched_classad::{ClassAd, match_ads};
use cosched_core::engine::{self, Event, EventQueue, Simulation};
use cosched_core::{Duration, JobId, JobRecord, Lease, NodeId, Time};
use cosched_hybrid::policy::Observation as HObs;
use cosched_hybrid::workload::HybridJob;

use crate::SiteError;
use crate::nodes::{NodeUse, Nodes};
use crate::on_demand::{HybridRolePolicy, OnDemandObservation, OnDemandPolicy, OnDemandRole};
use crate::report::{Revocations, SiteReport};
use crate::scavenging::ScavengingPolicy;
use crate::workload::{SiteWorkload, TASK_ADS};
use cosched_core::driver::Driver;

mod batch;
mod check;
mod hybrid;
mod observed;
mod on_demand;
mod report;
mod scavenging;
mod state;

pub use batch::BatchStart;
pub use state::{IdleKey, SiteState};

use scavenging::Pool;
use state::Holds;

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
    /// The on-demand role: a policy of the site's on-demand protocol or of hybrid's.
    pub on_demand: OnDemandRole,
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

/// Which protocol the on-demand role speaks: the executor tells it what that protocol asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Protocol {
    Site,
    Hybrid,
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

/// The on-demand role's policy, driven.
enum OnDemandDriver {
    Site(Driver<Box<dyn OnDemandPolicy + Send>>),
    Hybrid(Driver<Box<dyn HybridRolePolicy + Send>>),
}

/// One site: the executor of every role. Build it with [`Site::new`], run it with
/// [`Site::run`] (or [`Site::run_until`] step by step), read [`Site::report`].
pub struct Site {
    on_demand: OnDemandDriver,
    scavenging: Option<Driver<Box<dyn ScavengingPolicy + Send>>>,
    x: Exec,
}

/// The executor proper: everything but the roles' policies (which the drivers hold), so that
/// a driver can lend it to its policy's commands. Its methods live in the role modules.
struct Exec {
    config: SiteConfig,
    batch_policy: Box<dyn BatchPolicy + Send>,
    protocol: Protocol,
    state: SiteState,
    queue: EventQueue<Ev>,
    workload: SiteWorkload,
    /// Each workload job's position in `workload.batch`.
    batch_index: BTreeMap<JobId, usize>,
    /// The lease each lease-job runs (leases queued as batch jobs).
    lease_jobs: BTreeMap<JobId, usize>,
    lease_state: Vec<LeaseState>,
    records: Vec<JobRecord>,
    batch_rejected: usize,
    expandable: BTreeSet<(Time, JobId)>,
    /// Observations of the site's on-demand protocol not delivered yet.
    od_pending: Vec<OnDemandObservation>,
    /// Whether the on-demand role (hybrid's protocol) was called at this instant.
    od_called: bool,
    started: Vec<cosched_batch::Started>,
    /// Running guests and the on-demand job whose reservation they run on.
    guests: BTreeMap<JobId, JobId>,
    guest_starts: usize,
    pool: Pool,
    // Accounting.
    changed: Vec<Time>,
    /// Node-seconds by use: idle, batch, reserve, on-demand, lent free, lent busy, guest.
    held: [i128; 7],
    revocations: Revocations,
    started_roles: bool,
    /// The instant the run has been processed through.
    ran_to: Time,
    /// Whether batch state changed since the last batch pass (a pass is due).
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
        NodeUse::Guest(_) => 6,
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
        batch.sort_by_key(|j| (j.submit(), j.id()));
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
            queue.schedule(j.submit().max(Time(0)), Ev::BatchArrival(0))?;
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
            holds: Holds::new(lease_job_base),
            idle_flips: None,
        };
        let (on_demand, protocol) = match roles.on_demand {
            OnDemandRole::Site(p) => (OnDemandDriver::Site(Driver::new(p)), Protocol::Site),
            OnDemandRole::Hybrid(p) => (OnDemandDriver::Hybrid(Driver::new(p)), Protocol::Hybrid),
        };
        let x = Exec {
            lease_state: vec![LeaseState::Waiting; workload.leases.len()],
            pool: Pool::new(&workload.tasks, ads, matches),
            changed: vec![Time(0); n as usize],
            config,
            batch_policy: roles.batch,
            protocol,
            state,
            queue,
            workload,
            batch_index,
            lease_jobs: BTreeMap::new(),
            records: Vec::new(),
            batch_rejected: 0,
            expandable: BTreeSet::new(),
            od_pending: Vec::new(),
            od_called: false,
            started: Vec::new(),
            guests: BTreeMap::new(),
            guest_starts: 0,
            held: [0; 7],
            revocations: Revocations::default(),
            started_roles: false,
            ran_to: Time(0),
            batch_dirty: true,
        };
        Ok(Site {
            on_demand,
            scavenging: roles.scavenging.map(Driver::new),
            x,
        })
    }

    /// The roles' view of the site.
    pub fn state(&self) -> &SiteState {
        &self.x.state
    }

    /// The clock: the last instant processed.
    pub fn now(&self) -> Time {
        self.x.queue.now()
    }

    /// Runs to the configured end and returns the report.
    pub fn run(mut self) -> Result<SiteReport, SiteError> {
        let end = self.x.config.end;
        self.run_until(end)?;
        Ok(self.report())
    }

    /// Processes every instant up to and including `until` (at most the configured end); a
    /// later call goes on from there.
    pub fn run_until(&mut self, until: Time) -> Result<(), SiteError> {
        if !self.x.started_roles {
            self.x.started_roles = true;
            let now = self.x.queue.now();
            match &mut self.on_demand {
                OnDemandDriver::Site(d) => d.start(now, &mut self.x, &mut ())?,
                OnDemandDriver::Hybrid(d) => d.start(now, &mut self.x, &mut ())?,
            };
            if let Some(d) = self.scavenging.as_mut() {
                d.start(now, &mut self.x, &mut ())?;
            }
            self.arm_wake(now)?;
        }
        let horizon = until.min(self.x.config.end).max(self.x.ran_to);
        let mut queue = std::mem::replace(&mut self.x.queue, EventQueue::new(Time(0)));
        let run = engine::run_until(&mut Kernel(self), &mut queue, horizon);
        self.x.queue = queue;
        self.x.ran_to = horizon;
        run.map(|_| ())
    }

    /// What the run produced through the instant processed last ([`Site::run_until`]'s
    /// bound): work still running or waiting then is reported as such.
    pub fn report(&self) -> SiteReport {
        self.x.report()
    }

    /// Checks the executor's invariants, naming the first that fails: every node has one use
    /// and the batch cluster agrees with it (idle and lent nodes idle there, a batch job's or
    /// a guest's nodes busy with it, on-demand nodes offline); a reserved node is reserved
    /// for one job, idle; a running lease holds exactly its nodes and a waiting one at most
    /// them; a guest runs on its reservation's nodes; a running scavenged task is where its
    /// slot says, and a cloud node runs at most its slots. For tests and audits:
    /// O(nodes + tasks).
    pub fn check(&self) -> Result<(), String> {
        self.x.check()
    }

    /// The on-demand role's policy is the site protocol's: tell it the instant's
    /// observations, due wakes first, until it is quiet; true if it issued any command.
    fn on_demand_round(&mut self, now: Time) -> Result<bool, SiteError> {
        let OnDemandDriver::Site(d) = &mut self.on_demand else {
            return Ok(false);
        };
        let mut any = false;
        loop {
            any |= d.wake_due(now, &mut self.x, &mut ())? > 0;
            if self.x.od_pending.is_empty() {
                return Ok(any);
            }
            // One observation at a time: each call sees the commands before it applied.
            let pending = std::mem::take(&mut self.x.od_pending);
            for obs in &pending {
                any |= d.observe(now, obs, &mut self.x, &mut ())? > 0;
            }
        }
    }

    /// Tells a policy of hybrid's protocol `obs` now, its timers due first; nothing for a
    /// policy of the site's protocol (which is told through `od_pending`).
    fn tell_hybrid(&mut self, now: Time, obs: HObs) -> Result<(), SiteError> {
        if let OnDemandDriver::Hybrid(d) = &mut self.on_demand {
            self.x.od_called = true;
            d.wake_due(now, &mut self.x, &mut ())?;
            d.observe(now, &obs, &mut self.x, &mut ())?;
        }
        Ok(())
    }

    /// Puts the on-demand role's next wake on the queue.
    fn arm_wake(&mut self, now: Time) -> Result<(), SiteError> {
        match &mut self.on_demand {
            OnDemandDriver::Site(d) => d.arm(now, &mut self.x.queue, Ev::Wake)?,
            OnDemandDriver::Hybrid(d) => d.arm(now, &mut self.x.queue, Ev::Wake)?,
        }
        Ok(())
    }

    fn handle_event(&mut self, now: Time, ev: Ev) -> Result<(), SiteError> {
        let x = &mut self.x;
        match ev {
            Ev::BatchEnd(token) => {
                if let Some(job) = x.batch_end(now, token)? {
                    self.tell_hybrid(now, HObs::Completed { job })?;
                }
            }
            Ev::LeaseEnd(k) => {
                let job = x.lease_end(now, k)?;
                self.tell_hybrid(now, HObs::OnDemandEnded { job })?;
            }
            Ev::TaskEnd(task, epoch) => x.task_end(now, task, epoch)?,
            Ev::CloudUp(i) => x.cloud_up(i)?,
            Ev::CloudDown(i) => x.stop_cloud(now, i)?,
            Ev::BatchArrival(i) => x.batch_arrival(now, i)?,
            Ev::LeaseRequest(k) => {
                if let Some(obs) = x.lease_request(now, k)? {
                    self.tell_hybrid(now, obs)?;
                }
            }
            Ev::LeaseNotice(i) => {
                if let Some(obs) = x.lease_notice(now, i)? {
                    self.tell_hybrid(now, obs)?;
                }
            }
            Ev::TaskArrival(i) => x.task_arrival(now, i)?,
            Ev::LeaseDeadline(k) => {
                if let Some(job) = x.lease_deadline(now, k)? {
                    self.tell_hybrid(now, HObs::Withdrawn { job })?;
                }
            }
            Ev::Cycle => x.pool.cycle_due(),
            Ev::Wake => {
                if let OnDemandDriver::Hybrid(d) = &mut self.on_demand {
                    self.x.od_called |= d.wake_due(now, &mut self.x, &mut ())? > 0;
                }
            }
        }
        Ok(())
    }

    /// Once an instant's events are in. Precedence: on-demand, then batch, then malleable
    /// expansion, then scavenging. A batch pass and expansions run only at instants that
    /// changed batch state (arrivals, ends, node moves) or called the on-demand role:
    /// scavenging events alone leave the schedule as it was.
    fn settle_instant(&mut self, now: Time) -> Result<(), SiteError> {
        match &mut self.on_demand {
            OnDemandDriver::Site(_) => {
                for _ in 0..64 {
                    let changed = self.on_demand_round(now)?;
                    self.x.batch_dirty |= changed;
                    if self.x.batch_dirty {
                        self.x.batch_dirty = false;
                        self.x.batch_pass(now)?;
                        self.x.expand(now)?;
                    }
                    if !changed && self.x.od_pending.is_empty() {
                        break;
                    }
                }
            }
            // Hybrid's settle (§III-B): waiting on-demand jobs, lenders, reservations,
            // guests, the batch pass, expansion, each step the policy's.
            OnDemandDriver::Hybrid(d) => {
                self.x.od_called |= d.wake_due(now, &mut self.x, &mut ())? > 0;
                if self.x.batch_dirty || self.x.od_called {
                    d.observe_until_quiet(
                        now,
                        |round| HObs::Settle { round },
                        &mut self.x,
                        &mut (),
                    )?;
                }
                self.x.od_called = false;
            }
        }
        self.scavenge(now)?;
        self.arm_wake(now)
    }

    /// The scavenging pool at the end of an instant: the negotiation cycle if one is due
    /// (its policy told what happened), else dispatch to freed lent nodes.
    fn scavenge(&mut self, now: Time) -> Result<(), SiteError> {
        match self.x.begin_cycle(now)? {
            Some(cycle) => {
                if let Some(d) = self.scavenging.as_mut() {
                    d.observe(now, &cycle, &mut self.x, &mut ())?;
                }
                self.x.end_cycle(now)
            }
            None => Ok(()),
        }
    }
}

/// The site as the kernel runs it. The executor's helpers schedule on `Exec::queue`, so each
/// call lends the kernel's queue to the site for its duration.
struct Kernel<'a>(&'a mut Site);

impl Simulation for Kernel<'_> {
    type Event = Ev;
    type Error = SiteError;

    fn handle(&mut self, now: Time, ev: Ev, q: &mut EventQueue<Ev>) -> Result<(), SiteError> {
        std::mem::swap(&mut self.0.x.queue, q);
        let done = self.0.handle_event(now, ev);
        std::mem::swap(&mut self.0.x.queue, q);
        done
    }

    fn settle(&mut self, now: Time, q: &mut EventQueue<Ev>) -> Result<(), SiteError> {
        std::mem::swap(&mut self.0.x.queue, q);
        let done = self.0.settle_instant(now);
        std::mem::swap(&mut self.0.x.queue, q);
        done
    }
}

impl Exec {
    // ---- node uses and accounting ----

    fn set_use(&mut self, now: Time, node: NodeId, to: NodeUse) -> Result<NodeUse, SiteError> {
        let from = self.state.nodes.set(node, to)?;
        let i = node.index();
        let span = now.checked_since(self.changed[i]).unwrap_or(Duration::ZERO);
        self.held[use_index(from)] += i128::from(span.0);
        self.changed[i] = now;
        if from == NodeUse::Lent(None) {
            self.pool.lent_free.remove(&node);
        }
        if to == NodeUse::Lent(None) {
            self.pool.lent_free.insert(node);
        }
        Ok(from)
    }

    /// Takes a batch-idle node for another use, evicting a scavenged task on it.
    fn take_idle(&mut self, now: Time, node: NodeId, to: NodeUse) -> Result<(), SiteError> {
        match self.state.nodes.get(node)? {
            NodeUse::Lent(task) => {
                self.pool.revoked.push(node);
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

    /// Takes batch-idle `node` out of batch into the on-demand reserve (offline in the
    /// cluster), evicting a scavenged task on it.
    fn reclaim(&mut self, now: Time, node: NodeId) -> Result<(), SiteError> {
        self.take_idle(now, node, NodeUse::Reserve)?;
        self.state.cluster.set_offline(node)?;
        self.batch_dirty = true;
        Ok(())
    }

    /// Gives reserve node `node` back to batch (idle, online).
    fn restore(&mut self, now: Time, node: NodeId) -> Result<(), SiteError> {
        let u = self.state.nodes.get(node)?;
        if u != NodeUse::Reserve {
            return Err(SiteError::NotOnDemand {
                node,
                state: format!("{u:?}"),
            });
        }
        self.state.cluster.set_online(node)?;
        self.set_use(now, node, NodeUse::Idle)?;
        self.batch_dirty = true;
        Ok(())
    }

    /// The job lease `k` runs as, queued as a batch job or under hybrid's protocol (one id
    /// per lease, above the batch jobs').
    fn lease_job_id(&self, k: usize) -> JobId {
        self.state.holds.job_of(k)
    }

    /// The lease `id` stands for, if it is a lease's job.
    fn lease_of(&self, id: JobId) -> Option<usize> {
        self.state.holds.lease_of(id, self.state.leases.len())
    }

    fn lease(&self, k: usize) -> &Lease {
        &self.state.leases[k]
    }
}

/// The executor of a role's boxed policy: it lends the policy the site's state as its view
/// and carries out its commands with the role module's `$apply`.
macro_rules! role_executor {
    ($policy:ty, $view:ty, $apply:ident) => {
        impl cosched_core::driver::Executor<Box<$policy>> for Exec {
            type Context = ();
            type Error = SiteError;

            fn view(&mut self, _: Time) -> &$view {
                &self.state
            }

            fn apply(
                &mut self,
                driver: &mut Driver<Box<$policy>>,
                _: &mut (),
                now: Time,
                commands: &[<Box<$policy> as cosched_core::policy::Policy>::Command],
            ) -> Result<(), SiteError> {
                self.$apply(driver, now, commands)
            }
        }
    };
}

role_executor!(dyn OnDemandPolicy + Send, SiteState, apply_on_demand);
role_executor!(
    dyn HybridRolePolicy + Send,
    (dyn cosched_hybrid::PlatformView + 'static),
    apply_hybrid
);
role_executor!(dyn ScavengingPolicy + Send, SiteState, apply_scavenging);

fn pct(a: f64, b: f64) -> f64 {
    if b > 0.0 { 100.0 * a / b } else { 0.0 }
}

/// The batch job a workload job is (a rigid job cut at its estimate; a malleable job at its
/// largest size).
fn to_batch_job(j: &HybridJob) -> Result<cosched_batch::BatchJob, SiteError> {
    use cosched_batch::BatchJob;
    Ok(match j {
        HybridJob::Rigid { job, .. } => BatchJob::rigid(job),
        HybridJob::Malleable { job, estimate } => {
            BatchJob::malleable(job, job.max_size, *estimate)?
        }
        HybridJob::OnDemand(job) => return Err(SiteError::NotRunning(job.id)),
    })
}
