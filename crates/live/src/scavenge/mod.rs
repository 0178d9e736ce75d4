//! The composed site's scavenging role in front of a real cluster: any policy of the site's
//! scavenging protocol ([`ScavengingPolicy`]: [`HtcPool`] sized by [`HarvestAll`] or by RHIC's
//! controller through [`RhicSizer`], or one's own) decides how many scavenged tasks run, on
//! which idle nodes, exactly as in a run of [`cosched_site::Site`].
//!
//! Scavenged tasks run as jobs of a low-priority partition over the batch nodes
//! (`scavenger`, which `cargo xtask slurm up` configures with
//! `PreemptType=preempt/partition_prio`, `PreemptMode=REQUEUE`, `GraceTime=0`): a batch job
//! that wants a node running one takes it back at once, by Slurm's own preemption, as an
//! owner takes a lent node back in the site. The executor ([`Scavenger`]) plays the site's
//! negotiator:
//!
//! - it observes the cluster ([`ScavengeCluster::report`]: `sinfo` and `squeue` through
//!   [`SlurmPartition`]) and keeps the site's view of it ([`SiteState::observed`]): a node
//!   running another partition's job is batch's (`NodeUse::Batch`), a drained or down node is
//!   out of batch (`NodeUse::Reserve`), the rest is batch-idle, lent to the pool or not;
//! - each negotiation cycle (every [`ScavengeConfig::cycle`] while tasks wait or nodes are
//!   lent, and at once when a task arrives to an idle pool) it hands the policy the site's
//!   [`PoolCycle`] and applies its commands: `Lend`/`LendNode` lend batch-idle nodes,
//!   `Recall`/`RecallNode` give them back (a task on a recalled node is evicted);
//! - it starts the oldest queued task on each free lent node as a job pinned to that node
//!   (`sbatch -p scavenger -w NODE`), before and after the policy's answer, and at every step
//!   a lent node comes free;
//! - a task whose node its owner took back (a batch job on it, a drain, or Slurm's requeue)
//!   is evicted: its job is cancelled (Slurm would hold a requeued job for two minutes) and
//!   the task goes back to the head of the queue, counted ([`ScavengeCounters::preempted`]);
//!   a job that fails or vanishes is retried up to [`ScavengeConfig::max_attempts`]. No task
//!   is ever lost: each is queued, running, completed or abandoned after its attempts.
//!
//! Tasks restart from the start when evicted (the live pool has no checkpoints: a site whose
//! checkpoint interval exceeds every task's work). The site's cloud (Albatross) has no live
//! counterpart here: a cloud command is refused ([`ScavengeError::NoCloud`]); Albatross's
//! `NoScaling` beside the sizer never sends one. The executor's record ([`ScavengerState`]) serialises
//! with the policy, so a restarted executor resumes where it stopped.
//!
//! [`MemoryPartitions`] is the test double: the two partitions in memory, with Slurm's
//! preemption, on which the executor takes the same decisions as the site's simulator on the
//! same inputs (the crate's tests check it).
//!
//! ```
//! use cosched_albatross::policy::NoScaling;
//! use cosched_core::{Duration, Time};
//! use cosched_live::scavenge::{MemoryPartitions, ScavengeConfig, ScavengedTask, Scavenger};
//! use cosched_site::{HarvestAll, HtcPool};
//!
//! // Four nodes, six ten-second tasks; a batch job takes two nodes at t = 5.
//! let mut cluster = MemoryPartitions::new(4);
//! cluster.submit_batch(Time(5), 2, Duration(20));
//! let config = ScavengeConfig { cycle: Duration(2), ..ScavengeConfig::default() };
//! let pool = HtcPool::new(HarvestAll, NoScaling);
//! let mut exec = Scavenger::start(Time(0), pool, cluster, config)?;
//! for _ in 0..6 {
//!     exec.submit(Time(0), ScavengedTask::sleep(Duration(10)))?;
//! }
//! for t in 0..=60 {
//!     exec.cluster_mut().advance(Time(t));
//!     exec.step(Time(t))?;
//! }
//! let c = exec.counters();
//! assert_eq!((c.submitted, c.completed, c.preempted), (6, 6, 2));
//! assert!(exec.is_done());
//! # Ok::<(), cosched_live::scavenge::ScavengeError>(())
//! ```
//!
//! [`HtcPool`]: cosched_site::HtcPool
//! [`HarvestAll`]: cosched_site::HarvestAll
//! [`RhicSizer`]: cosched_site::RhicSizer

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error as StdError;
use std::sync::Arc;

use cosched_classad::ClassAd;
use cosched_core::driver::{CallError, Driver, Executor};
use cosched_core::{Duration, JobId, NodeId, Time};
use cosched_site::workload::TASK_ADS;
use cosched_site::{
    NodeUse, PoolCycle, ScavengingCommand, ScavengingPolicy, SiteError, SiteState, WAITING_ADS,
};
use serde::{Deserialize, Serialize};
use thiserror::Error;

mod memory;
mod slurm;

pub use memory::{MemoryError, MemoryPartitions};
pub use slurm::{DEFAULT_JOB_PREFIX, DEFAULT_PARTITION, SlurmPartition};

/// Who holds a node, as the resource manager reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Holder {
    /// Up and running no job of another partition: batch-idle (a job of the scavenging
    /// partition may run there).
    Free,
    /// Running this job of another partition.
    Batch(String),
    /// Out of batch: drained, draining, down or not responding.
    Out,
}

/// One node of a [`PoolReport`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolNode {
    /// Its hostname.
    pub name: String,
    /// Who holds it.
    pub holder: Holder,
}

/// Where a job of the scavenging partition stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Waiting to start (or requeued).
    Pending,
    /// Running (or finishing) on this node.
    Running(String),
    /// Ended normally.
    Completed,
    /// Ended otherwise: failed, cancelled, timed out, its node failed.
    Ended,
}

/// A job of the scavenging partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionJob {
    /// Its id.
    pub id: String,
    /// Where it stands.
    pub phase: Phase,
    /// How often the resource manager requeued it (preemptions).
    pub restarts: u32,
}

/// The cluster as the executor reads it at one step.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PoolReport {
    /// Every node, in a fixed order (node `i` at position `i`).
    pub nodes: Vec<PoolNode>,
    /// The scavenging partition's jobs the resource manager still lists (the executor's and
    /// any other's), by id.
    pub jobs: BTreeMap<String, PartitionJob>,
}

/// A resource manager with a preemptible scavenging partition over its batch nodes.
pub trait ScavengeCluster {
    /// Its error.
    type Error: StdError + Send + Sync + 'static;
    /// The nodes and the scavenging partition's jobs.
    fn report(&mut self) -> Result<PoolReport, Self::Error>;
    /// Starts scavenged task `id` as a job of the scavenging partition pinned to `node`;
    /// returns the job's id.
    fn launch(&mut self, id: u64, task: &ScavengedTask, node: &str) -> Result<String, Self::Error>;
    /// Cancels job `job` (one that has ended already is no error).
    fn cancel(&mut self, job: &str) -> Result<(), Self::Error>;
}

/// A scavenged task: its work and what runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScavengedTask {
    /// Its work, in seconds (what the policy's view counts; `sleep` runs this long).
    pub work: Duration,
    /// The shell command its job runs; `None`: `sleep` for `work`.
    pub command: Option<String>,
}

impl ScavengedTask {
    /// A task that sleeps for `work` (the live tests' tasks).
    pub fn sleep(work: Duration) -> ScavengedTask {
        ScavengedTask {
            work,
            command: None,
        }
    }

    /// The shell command its job runs.
    pub fn script(&self) -> String {
        self.command
            .clone()
            .unwrap_or_else(|| format!("sleep {}", self.work.0))
    }
}

/// The executor's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScavengeConfig {
    /// How often the negotiation cycle runs while tasks wait or nodes are lent (the site's
    /// `cycle`, HTCondor's `NEGOTIATOR_INTERVAL` default: 60 s).
    pub cycle: Duration,
    /// Attempts of a task whose jobs fail or vanish (evictions not counted) before it is
    /// abandoned (ours: 3).
    pub max_attempts: u32,
}

impl Default for ScavengeConfig {
    fn default() -> Self {
        ScavengeConfig {
            cycle: Duration(60),
            max_attempts: 3,
        }
    }
}

/// What the executor counted since it started (kept across restarts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScavengeCounters {
    /// Tasks submitted.
    pub submitted: u64,
    /// Tasks completed.
    pub completed: u64,
    /// Jobs started (a task evicted and restarted counts once per start).
    pub launches: u64,
    /// Running (or starting) tasks whose node its owner took back: a batch job on it, a
    /// drain, or the resource manager's requeue.
    pub preempted: u64,
    /// Running tasks evicted by the policy's recall of their node.
    pub recalled: u64,
    /// Jobs that failed, were cancelled by others or vanished.
    pub failed_attempts: u64,
    /// Tasks given up after [`ScavengeConfig::max_attempts`] failed attempts.
    pub abandoned: u64,
    /// Seconds of work lost by evictions and failures (the time the attempts had run).
    pub lost_work_s: i64,
    /// Node-seconds the pool's tasks ran on lent nodes (harvested).
    pub harvested_node_s: i64,
    /// Node-seconds nodes were batch-idle, lent or not (what could be harvested).
    pub idle_node_s: i64,
}

/// Why a task's run ended early.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Eviction {
    /// Its node's owner took it back.
    Preempted,
    /// The policy recalled its node.
    Recalled,
    /// Its job failed or vanished.
    Failed,
}

/// What happened at a step, in order (drain with [`Scavenger::take_events`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScavengeEvent {
    /// Task `task` started as job `job` on `node`.
    Launched {
        /// The task.
        task: u64,
        /// Its job.
        job: String,
        /// The node.
        node: String,
        /// When.
        at: Time,
    },
    /// Task `task` completed.
    Completed {
        /// The task.
        task: u64,
        /// When.
        at: Time,
    },
    /// Task `task`'s run on `node` ended early; it is queued again (or abandoned).
    Evicted {
        /// The task.
        task: u64,
        /// The node.
        node: String,
        /// Why.
        cause: Eviction,
        /// When.
        at: Time,
    },
}

/// Why the executor refused a call or failed.
#[derive(Debug, Error)]
pub enum ScavengeError {
    /// The policy refused a call (a [`CallError`] naming the call and its time).
    #[error("policy: {0}")]
    Policy(#[from] CallError<SiteError>),
    /// The view refused a change (a node the cluster does not have, a lend of a busy node).
    #[error("view: {0}")]
    View(#[from] SiteError),
    /// The resource manager failed (its own error, boxed: downcast to read it).
    #[error("resource manager: {0}")]
    Cluster(#[source] Box<dyn StdError + Send + Sync>),
    /// The policy asked for a cloud instance; the live pool has no cloud.
    #[error("the live scavenging pool has no cloud: cannot apply {0:?}")]
    NoCloud(ScavengingCommand),
    /// The cluster reports other nodes than the executor knows.
    #[error(
        "the cluster reports other nodes than the executor's record (a saved state of another cluster?)"
    )]
    OtherNodes,
    /// A task of no work.
    #[error("a scavenged task's work must be > 0 s, got {0}")]
    NoWork(i64),
}

impl ScavengeError {
    fn cluster(e: impl StdError + Send + Sync + 'static) -> ScavengeError {
        ScavengeError::Cluster(Box::new(e))
    }
}

/// One task as the executor keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The task.
    pub task: ScavengedTask,
    /// When it was submitted.
    pub submitted: Time,
    /// When it completed.
    pub completed: Option<Time>,
    /// Jobs started for it.
    pub launches: u32,
    /// Its failed attempts.
    pub failures: u32,
    /// Given up after too many failures.
    pub abandoned: bool,
}

/// A task's current job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// The job's id.
    pub job: String,
    /// Its node.
    pub node: NodeId,
    /// When it was started.
    pub started: Time,
}

/// The executor's record: what survives a restart beside the policy and the view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Book {
    /// The nodes' hostnames, in the cluster's order.
    pub names: Vec<String>,
    /// Every task, by id.
    pub tasks: Vec<TaskRecord>,
    /// Queued tasks, oldest first.
    pub queue: BTreeSet<u64>,
    /// Running tasks' jobs.
    pub attempts: BTreeMap<u64, Attempt>,
    /// Lent nodes running no task.
    pub lent_free: BTreeSet<NodeId>,
    /// When the next negotiation cycle is due, if one is scheduled.
    pub cycle_at: Option<Time>,
    /// A cycle is due at the next step.
    pub cycle_due: bool,
    /// Tasks started since the last cycle.
    pub dispatched: usize,
    /// Lent nodes their owners took back since the last cycle.
    pub revoked: Vec<NodeId>,
    /// Work of the completed tasks, s.
    pub work_done: i64,
    /// Work of every task submitted, s.
    pub work_submitted: i64,
    /// The counters.
    pub counters: ScavengeCounters,
    /// The last step.
    pub last: Option<Time>,
}

/// What a restart resumes from ([`Scavenger::state`], [`Scavenger::resume`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScavengerState<P> {
    /// The policy.
    pub policy: P,
    /// The executor's record.
    pub book: Book,
    /// Each node's use, as the view had it.
    pub uses: Vec<NodeUse>,
    /// The batch-idle nodes, longest idle first (the view's order).
    pub idle_order: Vec<NodeId>,
}

/// The executor; see the module docs.
pub struct Scavenger<C, P: ScavengingPolicy> {
    driver: Driver<P>,
    pool: Pool<C>,
}

/// Everything but the policy: the executor of the scavenging protocol.
struct Pool<C> {
    cluster: C,
    view: SiteState,
    book: Book,
    config: ScavengeConfig,
    ad: Arc<ClassAd>,
    events: Vec<ScavengeEvent>,
}

impl<C: ScavengeCluster, P: ScavengingPolicy> Scavenger<C, P> {
    /// Starts `policy` on `cluster` at `now` ([`cosched_core::policy::Policy::start`] with the
    /// view of the cluster's first report).
    ///
    /// # Errors
    /// The cluster's, or the policy's refusal.
    pub fn start(
        now: Time,
        policy: P,
        cluster: C,
        config: ScavengeConfig,
    ) -> Result<Self, ScavengeError> {
        let mut cluster = cluster;
        let report = cluster.report().map_err(ScavengeError::cluster)?;
        let names: Vec<String> = report.nodes.iter().map(|n| n.name.clone()).collect();
        let n = u32::try_from(names.len()).map_err(|_| ScavengeError::OtherNodes)?;
        let view = SiteState::observed(n)?;
        let book = Book {
            names,
            last: Some(now),
            ..Book::default()
        };
        let mut exec = Scavenger {
            driver: Driver::new(policy),
            pool: Pool::new(cluster, view, book, config)?,
        };
        exec.pool.observe_nodes(now, &report)?;
        exec.driver.start(now, &mut exec.pool, &mut ())?;
        Ok(exec)
    }

    /// Resumes from `saved` at `now`: the view as it was, then one step's observation of
    /// what changed meanwhile (tasks that completed, nodes taken back).
    ///
    /// # Errors
    /// A saved state of other nodes ([`ScavengeError::OtherNodes`]), or the cluster's.
    pub fn resume(
        now: Time,
        saved: ScavengerState<P>,
        cluster: C,
        config: ScavengeConfig,
    ) -> Result<Self, ScavengeError> {
        let n = saved.book.names.len();
        if saved.uses.len() != n || saved.idle_order.iter().any(|i| i.index() >= n) {
            return Err(ScavengeError::OtherNodes);
        }
        let mut view =
            SiteState::observed(u32::try_from(n).map_err(|_| ScavengeError::OtherNodes)?)?;
        // Every node out, then the batch-idle ones back in their order (the first back is
        // the longest idle), then each node's use.
        for i in 0..n {
            view.observe_use(NodeId(i as u32), NodeUse::Reserve)?;
        }
        for &i in &saved.idle_order {
            view.observe_use(i, NodeUse::Idle)?;
        }
        for (i, &u) in saved.uses.iter().enumerate() {
            view.observe_use(NodeId(i as u32), u)?;
        }
        let mut exec = Scavenger {
            driver: Driver::new(saved.policy),
            pool: Pool::new(cluster, view, saved.book, config)?,
        };
        exec.pool.sync(now)?;
        Ok(exec)
    }

    /// Queues a task at `now`; its id. A cycle is due at the next step unless one is
    /// scheduled (as a task's arrival starts the site's negotiator).
    ///
    /// # Errors
    /// A task of no work.
    pub fn submit(&mut self, now: Time, task: ScavengedTask) -> Result<u64, ScavengeError> {
        if task.work.0 <= 0 {
            return Err(ScavengeError::NoWork(task.work.0));
        }
        let book = &mut self.pool.book;
        let id = book.tasks.len() as u64;
        book.work_submitted = book.work_submitted.saturating_add(task.work.0);
        book.tasks.push(TaskRecord {
            task,
            submitted: now,
            completed: None,
            launches: 0,
            failures: 0,
            abandoned: false,
        });
        book.queue.insert(id);
        book.counters.submitted += 1;
        if book.cycle_at.is_none() {
            book.cycle_due = true;
        }
        Ok(id)
    }

    /// One step at `now`: the cluster observed (completions, evictions, nodes taken back or
    /// freed), then the negotiation cycle if one is due (queued tasks to free lent nodes, the
    /// policy's cycle and commands, queued tasks to what it lent), else queued tasks to free
    /// lent nodes.
    ///
    /// # Errors
    /// The cluster's, or the policy's refusal; nothing of the failing call was applied.
    pub fn step(&mut self, now: Time) -> Result<(), ScavengeError> {
        self.pool.sync(now)?;
        let book = &mut self.pool.book;
        if book.cycle_at.is_some_and(|at| now >= at) {
            book.cycle_at = None;
            book.cycle_due = true;
        }
        if book.cycle_at.is_none() && !book.queue.is_empty() {
            book.cycle_due = true;
        }
        if !book.cycle_due {
            return self.pool.dispatch(now);
        }
        book.cycle_due = false;
        self.pool.dispatch(now)?;
        let cycle = self.pool.cycle(now);
        self.driver.observe(now, &cycle, &mut self.pool, &mut ())?;
        self.pool.dispatch(now)?;
        let lent_any = self.pool.view.batch_idle_count() > self.pool.view.lendable_count();
        let book = &mut self.pool.book;
        if !book.queue.is_empty() || lent_any {
            book.cycle_at = Some(now.saturating_add(self.pool.config.cycle));
        }
        Ok(())
    }

    /// Whether every task submitted has completed or been abandoned.
    pub fn is_done(&self) -> bool {
        let b = &self.pool.book;
        b.queue.is_empty() && b.attempts.is_empty()
    }

    /// The counters.
    pub fn counters(&self) -> ScavengeCounters {
        self.pool.book.counters
    }

    /// The executor's record.
    pub fn book(&self) -> &Book {
        &self.pool.book
    }

    /// The view lent to the policy.
    pub fn view(&self) -> &SiteState {
        &self.pool.view
    }

    /// The events since the last call.
    pub fn take_events(&mut self) -> Vec<ScavengeEvent> {
        std::mem::take(&mut self.pool.events)
    }

    /// The policy (for inspection: the executor reads nothing of it but its commands).
    pub fn policy(&self) -> &P {
        self.driver.policy()
    }

    /// The cluster.
    pub fn cluster(&self) -> &C {
        &self.pool.cluster
    }

    /// The cluster, to act on it (a test double's clock).
    pub fn cluster_mut(&mut self) -> &mut C {
        &mut self.pool.cluster
    }

    /// What a restart resumes from.
    pub fn state(&self) -> ScavengerState<P>
    where
        P: Clone,
    {
        ScavengerState {
            policy: self.driver.policy().clone(),
            book: self.pool.book.clone(),
            uses: self.pool.view.node_uses().to_vec(),
            idle_order: self.pool.view.batch_idle_longest_first().collect(),
        }
    }

    /// Saves [`Scavenger::state`] to `path` atomically (a fresh temporary file beside it,
    /// synced, renamed over the old one).
    ///
    /// # Errors
    /// The I/O error.
    pub fn save(&self, path: &std::path::Path) -> std::io::Result<()>
    where
        P: Clone + Serialize,
    {
        crate::service::save(path, &self.state())
    }
}

impl<C: ScavengeCluster> Pool<C> {
    fn new(
        cluster: C,
        view: SiteState,
        book: Book,
        config: ScavengeConfig,
    ) -> Result<Pool<C>, ScavengeError> {
        let ad = TASK_ADS[0]
            .parse::<ClassAd>()
            .map_err(|e| SiteError::ClassAd {
                ad: TASK_ADS[0].to_owned(),
                message: e.to_string(),
            })?;
        Ok(Pool {
            cluster,
            view,
            book,
            config,
            ad: Arc::new(ad),
            events: Vec::new(),
        })
    }

    /// Reads the cluster: the time since the last step accounted, the tasks' jobs (ended,
    /// requeued), then each node's holder.
    fn sync(&mut self, now: Time) -> Result<(), ScavengeError> {
        let report = self.cluster.report().map_err(ScavengeError::cluster)?;
        let same = report.nodes.len() == self.book.names.len()
            && report
                .nodes
                .iter()
                .zip(&self.book.names)
                .all(|(n, name)| n.name == *name);
        if !same {
            return Err(ScavengeError::OtherNodes);
        }
        self.account(now);
        let running: Vec<(u64, Attempt)> = self
            .book
            .attempts
            .iter()
            .map(|(&t, a)| (t, a.clone()))
            .collect();
        for (task, attempt) in running {
            match report.jobs.get(&attempt.job) {
                Some(PartitionJob {
                    phase: Phase::Completed,
                    ..
                }) => self.complete(now, task, &attempt)?,
                Some(PartitionJob {
                    phase: Phase::Ended,
                    ..
                })
                | None => self.evict(now, task, Eviction::Failed)?,
                Some(j) if j.restarts > 0 => {
                    // Requeued: its node's owner is taking it back.
                    self.evict(now, task, Eviction::Preempted)?;
                    self.revoke(now, attempt.node, NodeUse::Idle)?;
                }
                Some(_) => {}
            }
        }
        self.observe_nodes(now, &report)
    }

    /// Each node's use from its holder: another partition's job (or another's scavenging
    /// job) makes it batch's, a drain or failure takes it out; a lent node so taken is
    /// revoked, its task evicted.
    fn observe_nodes(&mut self, now: Time, report: &PoolReport) -> Result<(), ScavengeError> {
        let ours: BTreeSet<&str> = self
            .book
            .attempts
            .values()
            .map(|a| a.job.as_str())
            .collect();
        let mut foreign: BTreeMap<&str, &str> = BTreeMap::new();
        for j in report.jobs.values() {
            if let Phase::Running(node) = &j.phase
                && !ours.contains(j.id.as_str())
            {
                foreign.insert(node.as_str(), j.id.as_str());
            }
        }
        for (i, node) in report.nodes.iter().enumerate() {
            let id = NodeId(i as u32);
            let want = match &node.holder {
                Holder::Out => NodeUse::Reserve,
                Holder::Batch(job) => NodeUse::Batch(job_id(job)),
                Holder::Free => match foreign.get(node.name.as_str()) {
                    Some(job) => NodeUse::Batch(job_id(job)),
                    None => NodeUse::Idle,
                },
            };
            let current = self.view.node_uses()[i];
            if want.is_batch_idle() {
                if !current.is_batch_idle() {
                    self.view.observe_use(id, NodeUse::Idle)?;
                }
            } else if current != want {
                self.revoke(now, id, want)?;
            }
        }
        Ok(())
    }

    /// Node `node` leaves the pool for `to`: lent, it is revoked and its task evicted.
    fn revoke(&mut self, now: Time, node: NodeId, to: NodeUse) -> Result<(), ScavengeError> {
        if let NodeUse::Lent(task) = self.view.node_uses()[node.index()] {
            self.book.revoked.push(node);
            if let Some(task) = task {
                self.evict(now, task, Eviction::Preempted)?;
            }
        }
        self.book.lent_free.remove(&node);
        self.view.observe_use(node, to)?;
        Ok(())
    }

    /// Node-seconds since the last step, by the uses they were held in.
    fn account(&mut self, now: Time) {
        let dt = self
            .book
            .last
            .and_then(|l| now.checked_since(l))
            .map_or(0, |d| d.0);
        let (mut idle, mut harvested) = (0i64, 0i64);
        for u in self.view.node_uses() {
            idle += i64::from(u.is_batch_idle());
            harvested += i64::from(matches!(u, NodeUse::Lent(Some(_))));
        }
        let c = &mut self.book.counters;
        c.idle_node_s = c.idle_node_s.saturating_add(idle.saturating_mul(dt));
        c.harvested_node_s = c
            .harvested_node_s
            .saturating_add(harvested.saturating_mul(dt));
        self.book.last = Some(now.max(self.book.last.unwrap_or(now)));
    }

    fn complete(&mut self, now: Time, task: u64, attempt: &Attempt) -> Result<(), ScavengeError> {
        self.book.attempts.remove(&task);
        if let Some(t) = self.book.tasks.get_mut(task as usize) {
            t.completed = Some(now);
            self.book.work_done = self.book.work_done.saturating_add(t.task.work.0);
        }
        self.book.counters.completed += 1;
        self.free_node(attempt.node, task)?;
        self.events.push(ScavengeEvent::Completed { task, at: now });
        Ok(())
    }

    /// A task's node runs it no more: lent and free again, if it still was the task's.
    fn free_node(&mut self, node: NodeId, task: u64) -> Result<(), ScavengeError> {
        if self.view.node_uses()[node.index()] == NodeUse::Lent(Some(task)) {
            self.view.observe_use(node, NodeUse::Lent(None))?;
            self.book.lent_free.insert(node);
        }
        Ok(())
    }

    /// Ends `task`'s run early: its job cancelled, the task queued again (or abandoned after
    /// too many failures), counted.
    fn evict(&mut self, now: Time, task: u64, cause: Eviction) -> Result<(), ScavengeError> {
        let Some(attempt) = self.book.attempts.remove(&task) else {
            return Ok(());
        };
        if cause != Eviction::Failed {
            self.cluster
                .cancel(&attempt.job)
                .map_err(ScavengeError::cluster)?;
        }
        let ran = now.checked_since(attempt.started).map_or(0, |d| d.0);
        let book = &mut self.book;
        let c = &mut book.counters;
        c.lost_work_s = c.lost_work_s.saturating_add(ran);
        match cause {
            Eviction::Preempted => c.preempted += 1,
            Eviction::Recalled => c.recalled += 1,
            Eviction::Failed => c.failed_attempts += 1,
        }
        let mut requeue = true;
        if let Some(t) = book.tasks.get_mut(task as usize)
            && cause == Eviction::Failed
        {
            t.failures += 1;
            if t.failures >= self.config.max_attempts {
                t.abandoned = true;
                c.abandoned += 1;
                requeue = false;
            }
        }
        if requeue {
            book.queue.insert(task);
        }
        self.free_node(attempt.node, task)?;
        self.events.push(ScavengeEvent::Evicted {
            task,
            node: self.name(attempt.node),
            cause,
            at: now,
        });
        Ok(())
    }

    fn name(&self, node: NodeId) -> String {
        self.book
            .names
            .get(node.index())
            .cloned()
            .unwrap_or_default()
    }

    /// The site's negotiator: the oldest queued tasks to the free lent nodes, lowest first.
    fn dispatch(&mut self, now: Time) -> Result<(), ScavengeError> {
        while let (Some(&task), Some(&node)) =
            (self.book.queue.first(), self.book.lent_free.first())
        {
            let name = self.name(node);
            let spec = &self.book.tasks[task as usize].task;
            let job = self
                .cluster
                .launch(task, spec, &name)
                .map_err(ScavengeError::cluster)?;
            let book = &mut self.book;
            book.queue.remove(&task);
            book.lent_free.remove(&node);
            book.attempts.insert(
                task,
                Attempt {
                    job: job.clone(),
                    node,
                    started: now,
                },
            );
            book.tasks[task as usize].launches += 1;
            book.dispatched += 1;
            book.counters.launches += 1;
            self.view.observe_use(node, NodeUse::Lent(Some(task)))?;
            self.events.push(ScavengeEvent::Launched {
                task,
                job,
                node: name,
                at: now,
            });
        }
        Ok(())
    }

    /// The cycle's observation, as the site builds it (no cloud, no checkpoints).
    fn cycle(&mut self, now: Time) -> PoolCycle {
        let book = &mut self.book;
        let queued = book.queue.len();
        self.view.set_waiting_ads(std::iter::repeat_n(
            Arc::clone(&self.ad),
            queued.min(WAITING_ADS),
        ));
        let partial = book
            .attempts
            .iter()
            .map(|(&t, a)| {
                let work = book.tasks.get(t as usize).map_or(0, |r| r.task.work.0);
                now.checked_since(a.started).map_or(0, |d| d.0).min(work) as f64
            })
            .sum::<f64>()
            // An empty sum is -0.0; the site's is +0.0.
            + 0.0;
        let lendable = self.view.lendable_count();
        PoolCycle {
            dispatched: std::mem::take(&mut book.dispatched),
            queued,
            running: book.attempts.len(),
            lendable: lendable as u32,
            lent: self.view.batch_idle_count().saturating_sub(lendable) as u32,
            lent_free: book.lent_free.len() as u32,
            revoked: std::mem::take(&mut book.revoked),
            cloud_nodes: Vec::new(),
            work_done_s: book.work_done as f64,
            work_left_s: (book.work_submitted - book.work_done) as f64,
            work_partial_s: partial,
            instance_types: Vec::new(),
        }
    }

    fn lend(&mut self, node: NodeId) -> Result<(), ScavengeError> {
        self.view.observe_use(node, NodeUse::Lent(None))?;
        self.book.lent_free.insert(node);
        Ok(())
    }
}

/// The numeric part of a Slurm job id (`123`, `123_4` → 123), for the view's job ids.
fn job_id(id: &str) -> JobId {
    let digits: String = id.chars().take_while(char::is_ascii_digit).collect();
    JobId(digits.parse().unwrap_or(0))
}

impl<C: ScavengeCluster, P: ScavengingPolicy> Executor<P> for Pool<C> {
    type Context = ();
    type Error = ScavengeError;

    fn view(&mut self, _: Time) -> &SiteState {
        &self.view
    }

    /// The site's commands, as the site applies them.
    fn apply(
        &mut self,
        _: &mut Driver<P>,
        _: &mut (),
        now: Time,
        commands: &[ScavengingCommand],
    ) -> Result<(), ScavengeError> {
        if let Some(c) = commands.iter().find(|c| {
            matches!(
                c,
                ScavengingCommand::CloudStart { .. } | ScavengingCommand::CloudStop(_)
            )
        }) {
            return Err(ScavengeError::NoCloud(*c));
        }
        for c in commands {
            match *c {
                ScavengingCommand::Lend { count } => {
                    let pick: Vec<NodeId> = self
                        .view
                        .lendable_longest_first()
                        .take(count as usize)
                        .collect();
                    for n in pick {
                        self.lend(n)?;
                    }
                }
                ScavengingCommand::LendNode(n) => {
                    if self.view.node_uses().get(n.index()) == Some(&NodeUse::Idle) {
                        self.lend(n)?;
                    }
                }
                ScavengingCommand::Recall { count } => {
                    let pick: Vec<NodeId> = self
                        .book
                        .lent_free
                        .iter()
                        .rev()
                        .take(count as usize)
                        .copied()
                        .collect();
                    for n in pick {
                        self.book.lent_free.remove(&n);
                        self.view.observe_use(n, NodeUse::Idle)?;
                    }
                }
                ScavengingCommand::RecallNode(n) => {
                    if let Some(&NodeUse::Lent(task)) = self.view.node_uses().get(n.index()) {
                        if let Some(task) = task {
                            self.evict(now, task, Eviction::Recalled)?;
                        }
                        self.book.lent_free.remove(&n);
                        self.view.observe_use(n, NodeUse::Idle)?;
                    }
                }
                ScavengingCommand::CloudStart { .. } | ScavengingCommand::CloudStop(_) => {}
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
