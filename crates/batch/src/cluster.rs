//! The batch resource manager: queue, nodes and running jobs of one cluster.
//!
//! [`BatchCluster`] owns no clock: every operation takes the current time, and every start
//! hands back a [`Started`] whose [`RunToken`] the driver (a simulator or a live service)
//! returns through [`BatchCluster::complete`] when the job's end time comes. A token goes stale
//! when the job is preempted or resized, so an outdated completion event is simply ignored.
//!
//! Which queued jobs start is decided by a batch policy (a [`crate::BatchPolicy`]) during a
//! [`BatchCluster::schedule`] pass, from a read-only view of the cluster; the cluster applies
//! the starts it asks for. Everything else here is mechanism, available to the paper crates
//! as first-class operations:
//!
//! - [`BatchCluster::set_offline`] / [`BatchCluster::set_online`]: take a node away now if it
//!   is idle, or when its job ends (drain), and bring it back;
//! - [`BatchCluster::expect_return`] / [`BatchCluster::cancel_return`]: offline units held
//!   outside the scheduler by work with a predicted end (another system's job running on
//!   them), counted in every shadow and profile as a running job's release is;
//! - [`BatchCluster::node_statuses`]: busy/idle/offline and the remaining walltime per node;
//! - [`BatchCluster::preempt`]: stop a running job and requeue it with its remaining work and
//!   original submit time;
//! - [`BatchCluster::resize`]: shrink or expand a running malleable job (work is conserved:
//!   the remaining unit-seconds are spread over the new size);
//! - [`BatchCluster::predicted_head_start`] and [`BatchCluster::predicted_start`]: when the
//!   queue head, or a hypothetical job, is expected to start under the current state.
//!
//! ## Node identities, and what they cost
//! A cluster made by [`BatchCluster::new`] tracks which node runs which job, so the node-level
//! operations above work; its memory grows with the nodes actually used, never with the
//! capacity alone (a 4,294,967,295-unit cluster running three jobs holds three jobs' nodes).
//! Idle nodes are reused most-recently-freed first, and a fresh cluster hands out nodes
//! `0, 1, 2, …`. A start still moves one id per unit, which dominates on large machines, so a
//! driver that never asks for a node (the trace simulator [`crate::BatchSim`]) uses
//! [`BatchCluster::counted`]: the same schedules and records, with idle units only counted;
//! its node-level operations return [`BatchError::NodesNotTracked`].

use crate::profile::Profile;
use crate::queue::JobQueue;
use crate::releases::Releases;
use crate::{BatchCommand, BatchError, SchedulingPass};
use cosched_core::policy::Policy;
use cosched_core::{
    Duration, JobClass, JobId, JobRecord, MalleableJob, NodeId, NodeState, NodeStatus, ParamError,
    RigidJob, Time,
};
use cosched_workload::admit::{Admissible, admit_iter};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::hash_map::Entry;

/// The most unit-seconds of work (size × estimate) a job may carry: leaves room for the
/// start time added to it without overflowing `i64` seconds.
pub const MAX_WORK_UNIT_SECONDS: i64 = 1 << 62;

/// The sizes a malleable job accepts while it runs, and the part of its run time that does
/// not scale with its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeRange {
    /// Smallest size, at least 1.
    pub min: u32,
    /// Largest size.
    pub max: u32,
    /// The fixed part of each run (a setup): it takes this long whatever the size, and only
    /// the rest of the run time (and estimate) scales with the size, t = t_setup + W/n
    /// (Fan et al., IPDPS 2022, §III-A). Paid again by a requeued job. Zero: all of it scales.
    #[serde(default)]
    pub setup: Duration,
}

/// A job as the batch resource manager sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchJob {
    /// Identifier, unique among the jobs given to one cluster.
    pub id: JobId,
    /// Submission time; it orders the queue (then the id), and survives requeueing.
    pub submit: Time,
    /// Units requested.
    pub size: u32,
    /// How long it runs on `size` units (already cut at the estimate for trace jobs).
    pub runtime: Duration,
    /// The estimate the scheduler plans with.
    pub estimate: Duration,
    /// For reports.
    pub class: JobClass,
    /// `Some` for a malleable job: the sizes [`BatchCluster::resize`] accepts.
    pub resizable: Option<SizeRange>,
}

impl BatchJob {
    /// The record of this job when it never ran (rejected, or left waiting): no start, no end.
    pub fn unstarted_record(&self) -> JobRecord {
        JobRecord {
            id: self.id,
            class: self.class,
            submit: self.submit,
            start: None,
            end: None,
            size: self.size,
            runtime: self.runtime,
        }
    }

    /// A trace job: size and estimate as given, run time = min(run time, estimate) because a
    /// job still running at its estimate is killed.
    pub fn rigid(job: &RigidJob) -> BatchJob {
        BatchJob {
            id: job.id,
            submit: job.submit,
            size: job.size,
            runtime: job.simulated_runtime(),
            estimate: job.estimate,
            class: JobClass::Rigid,
            resizable: None,
        }
    }

    /// A malleable job submitted at `size` units with runtime estimate `estimate` (its run time
    /// there is `work / size + setup`); it may later be resized within its size range.
    pub fn malleable(
        job: &MalleableJob,
        size: u32,
        estimate: Duration,
    ) -> Result<BatchJob, ParamError> {
        let runtime = job.runtime_on(size)?;
        ParamError::check(estimate.0 > 0, "estimate", estimate.0, "must be > 0")?;
        Ok(BatchJob {
            id: job.id,
            submit: job.submit,
            size,
            runtime: runtime.min(estimate),
            estimate,
            class: JobClass::Malleable,
            resizable: Some(SizeRange {
                min: job.min_size,
                max: job.max_size,
                setup: job.setup,
            }),
        })
    }

    /// The fixed (non-scaling) part of its run: a malleable job's setup, at most its run
    /// time and its estimate; zero for a rigid job.
    #[inline]
    pub(crate) fn fixed(&self) -> Duration {
        self.resizable
            .map_or(Duration::ZERO, |r| {
                r.setup.min(self.runtime).min(self.estimate)
            })
            .max(Duration::ZERO)
    }

    /// Its end and predicted end if it starts at `now` on `size` units: its fixed part, then
    /// the rest of its run time and estimate at its requested size spread over them;
    /// [`BatchError::EndOverflow`] if either would pass the last representable second.
    pub(crate) fn ends_from(&self, now: Time, size: u32) -> Result<(Time, Time), BatchError> {
        let overflow = |_| BatchError::EndOverflow {
            job: self.id,
            start: now,
            estimate: self.estimate,
        };
        let fixed = self.fixed();
        let end = now
            .try_add(fixed + spread(self.runtime - fixed, self.size, size))
            .map_err(overflow)?;
        let predicted_end = now
            .try_add(fixed + spread(self.estimate - fixed, self.size, size))
            .map_err(overflow)?;
        Ok((end, predicted_end))
    }

    /// Whether it may run on `size` units: it is malleable and `size` is in its range.
    pub(crate) fn check_size(&self, size: u32) -> Result<(), BatchError> {
        let range = self.resizable.ok_or(BatchError::NotResizable(self.id))?;
        if !(range.min..=range.max).contains(&size) {
            return Err(BatchError::SizeOutOfRange {
                job: self.id,
                size,
                min: range.min,
                max: range.max,
            });
        }
        Ok(())
    }
}

impl Admissible for BatchJob {
    fn id(&self) -> JobId {
        self.id
    }
    fn submit(&self) -> Time {
        self.submit
    }
    /// At least one unit, and a run time and estimate of at least 0.
    fn is_valid(&self) -> bool {
        self.size >= 1 && self.runtime.0 >= 0 && self.estimate.0 >= 0
    }
}

/// Valid jobs as batch jobs sorted by (submit, id), and the count of invalid ones (those failing
/// [`RigidJob::validate`]); a repeated job id is an error. The rules are
/// [`cosched_workload::admit`]'s; simulators built on [`BatchCluster`] use this to read their
/// batch workload as batch jobs.
pub fn admit(jobs: &[RigidJob]) -> Result<(Vec<BatchJob>, usize), BatchError> {
    let admitted = admit_iter(jobs.iter().map(BatchJob::rigid))?;
    Ok((admitted.jobs, admitted.invalid))
}

/// A job waiting in the queue. After a preemption, `job.runtime` and `job.estimate` are what
/// remains of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueuedJob {
    /// The job (remaining run time and estimate).
    pub job: BatchJob,
    /// When it first started, if it ran before being preempted.
    pub first_start: Option<Time>,
    /// How often it has been preempted.
    pub preemptions: u32,
    /// The run time it needed when submitted (for its bounded slowdown).
    pub required_runtime: Duration,
}

impl QueuedJob {
    /// Units requested.
    #[inline]
    pub fn size(&self) -> u32 {
        self.job.size
    }

    /// Estimate of the (remaining) run.
    #[inline]
    pub fn estimate(&self) -> Duration {
        self.job.estimate
    }

    /// The key that orders the queue: (submit, id).
    #[inline]
    pub fn order_key(&self) -> (Time, JobId) {
        (self.job.submit, self.job.id)
    }
}

/// What a batch policy can read of a [`BatchCluster`]; see [`BatchCluster::snapshot`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterSnapshot {
    /// Units in the cluster.
    pub capacity: u32,
    /// Offline units.
    pub offline: u32,
    /// Idle online units.
    pub free: u32,
    /// The waiting jobs in queue order.
    pub queue: Vec<QueuedJob>,
    /// Running jobs: predicted end, job and the units it gives back then, in that order.
    pub releases: Vec<(Time, JobId, u32)>,
    /// [`BatchCluster::changes`].
    pub changes: u64,
    /// Completions so far (with `changes`, [`BatchCluster::version`]).
    pub completions: u64,
    /// The largest (submit, id) ever queued.
    pub last_key: Option<(Time, JobId)>,
}

/// Proof that a particular run of a job is current; see [`BatchCluster::complete`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RunToken {
    /// The job.
    pub job: JobId,
    /// Increases on every start, resize and preemption of the job.
    pub epoch: u32,
}

/// A job (re)timed by a start or a resize: the driver must call
/// [`BatchCluster::complete`] with `token` at `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Started {
    /// The run's token.
    pub token: RunToken,
    /// When it will end.
    pub end: Time,
    /// When the scheduler expects it to end (start + estimate, rescaled by resizes).
    pub predicted_end: Time,
    /// Units it holds.
    pub size: u32,
}

/// What [`BatchCluster::submit`] did with a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// Waiting in the queue.
    Queued,
    /// Larger than the cluster: it can never run, and is not queued.
    Rejected,
}

/// What [`BatchCluster::set_offline`] did with a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OfflineOutcome {
    /// The node was idle and is offline now.
    Offline,
    /// The node is running `job`; it goes offline when the job ends, predicted at
    /// `predicted_end`.
    Draining {
        /// The job on the node.
        job: JobId,
        /// Its predicted end.
        predicted_end: Time,
    },
}

/// How a preempted job resumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// Where it stopped: requeued with the work it had left (a checkpoint at preemption); a
    /// malleable job pays its setup ([`SizeRange::setup`]) again.
    Remaining,
    /// From scratch: requeued with its original run time.
    Restart,
    /// With this much run time left on its requested size (e.g. from its last checkpoint,
    /// plus setup); the estimate keeps its margin over the run time.
    WithRuntime(Duration),
}

/// Where a cluster's idle units are.
#[derive(Debug)]
enum Units {
    /// Only their number: no node identities ([`BatchCluster::counted`]).
    Counted {
        /// Idle online units.
        free: u32,
    },
    /// Node by node ([`BatchCluster::new`]).
    Tracked(NodeMap),
}

/// Node states and the stack of idle nodes of a tracked cluster, allocated as nodes get used.
#[derive(Debug)]
struct NodeMap {
    capacity: u32,
    /// States of nodes `0..slots.len()`, the nodes used so far; the others were never used and
    /// are idle.
    slots: Vec<NodeState>,
    /// Idle online used nodes, a stack (the most recently freed is reused first). Below its
    /// bottom lie the never-used nodes `capacity − 1, …, slots.len()`, the lowest on top: the
    /// order of a fresh cluster's stack.
    free: Vec<NodeId>,
}

impl NodeMap {
    fn new(capacity: u32) -> NodeMap {
        NodeMap {
            capacity,
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Never-used nodes.
    #[inline]
    fn unused(&self) -> u32 {
        self.capacity - self.slots.len() as u32
    }

    #[inline]
    fn free_units(&self) -> u32 {
        self.free.len() as u32 + self.unused()
    }

    #[inline]
    fn state(&self, node: NodeId) -> Option<NodeState> {
        if node.0 >= self.capacity {
            return None;
        }
        Some(
            self.slots
                .get(node.index())
                .copied()
                .unwrap_or(NodeState::Idle),
        )
    }

    /// Moves the top `size` idle nodes (at most the idle ones) onto `nodes` in stack order,
    /// bottom first, busy with `job`: what a start takes.
    fn take(&mut self, size: u32, job: JobId, nodes: &mut Vec<NodeId>) {
        let from = nodes.len();
        let stacked = self.free.len();
        if size as usize <= stacked {
            let first = stacked - size as usize;
            nodes.extend_from_slice(&self.free[first..]);
            self.free.truncate(first);
        } else {
            let lowest = self.slots.len() as u32;
            let fresh = (size - stacked as u32).min(self.unused());
            nodes.extend((lowest..lowest + fresh).rev().map(NodeId));
            self.slots
                .resize((lowest + fresh) as usize, NodeState::Idle);
            nodes.append(&mut self.free);
        }
        for node in &nodes[from..] {
            self.slots[node.index()] = NodeState::Busy(job);
        }
    }

    /// Pops `count` idle nodes one at a time onto `nodes` (top first), busy with `job`: what an
    /// expansion takes.
    fn take_one_by_one(&mut self, count: u32, job: JobId, nodes: &mut Vec<NodeId>) {
        for _ in 0..count {
            let node = match self.free.pop() {
                Some(node) => node,
                None if self.unused() > 0 => {
                    self.slots.push(NodeState::Idle);
                    NodeId(self.slots.len() as u32 - 1)
                }
                None => return,
            };
            self.slots[node.index()] = NodeState::Busy(job);
            nodes.push(node);
        }
    }

    /// Makes the never-used nodes up to `node` used (idle, at the bottom of the stack in the
    /// order they had there), so that `node` has a slot.
    fn use_up_to(&mut self, node: NodeId) {
        let lowest = self.slots.len() as u32;
        if node.0 < lowest {
            return;
        }
        self.free.splice(0..0, (lowest..=node.0).rev().map(NodeId));
        self.slots.resize(node.index() + 1, NodeState::Idle);
    }
}

#[derive(Debug)]
struct Running {
    job: BatchJob,
    size: u32,
    nodes: Vec<NodeId>,
    draining: u32,
    first_start: Time,
    preemptions: u32,
    required_runtime: Duration,
    /// Last start or resize.
    anchor: Time,
    /// When the run's fixed part (a malleable job's setup) ends: work and estimate are
    /// consumed only after it.
    setup_end: Time,
    /// Unit-seconds of work left at `anchor`, beyond the fixed part.
    work_left: i64,
    /// Unit-seconds of estimate left at `anchor`, beyond the fixed part.
    estimate_left: i64,
    end: Time,
    predicted_end: Time,
    epoch: u32,
}

impl Running {
    /// Unit-seconds of work done from `anchor` to `now`: none during the fixed part.
    #[inline]
    fn work_done(&self, now: Time) -> i128 {
        unit_seconds(
            self.size,
            self.anchor.max(self.setup_end),
            now.max(self.setup_end),
        )
    }

    #[inline]
    fn releasing(&self) -> u32 {
        self.size - self.draining
    }
}

/// The state of one batch cluster of identical units; see the [module docs](self).
#[derive(Debug)]
pub struct BatchCluster {
    capacity: u32,
    units: Units,
    offline: u32,
    queue: JobQueue,
    running: FxHashMap<JobId, Running>,
    /// Units each running job gives back at its predicted end, in (predicted end, id) order,
    /// and the offline units expected back ([`BatchCluster::expect_return`]).
    releases: Releases,
    /// Offline units among the releases: expected back.
    returning: u32,
    busy_unit_seconds: i128,
    next_epoch: u32,
    spare_node_lists: Vec<Vec<NodeId>>,
    /// Counts the changes a schedule planned in an earlier pass did not foresee: every start,
    /// a completion away from its predicted end, a queue insertion out of (submit, id) order,
    /// preemptions, resizes and node operations. Arrivals at the queue's end and completions
    /// at their predicted end leave it alone.
    changes: u64,
    /// The largest (submit, id) ever queued.
    last_key: Option<(Time, JobId)>,
    /// Completions so far (on time or not): with `changes`, every change but an arrival at
    /// the queue's end.
    completions: u64,
    /// The command buffer of scheduling passes, kept warm between them.
    commands: Vec<BatchCommand>,
}

impl BatchCluster {
    /// A cluster of `capacity` idle units, numbered `0..capacity`, that tracks which node runs
    /// which job (see the [module docs](self)). Allocates nothing per unit up front.
    ///
    /// ```
    /// use cosched_batch::BatchCluster;
    /// let cluster = BatchCluster::new(u32::MAX).unwrap(); // instant, and a few bytes
    /// assert_eq!(cluster.free_units(), u32::MAX);
    /// ```
    pub fn new(capacity: u32) -> Result<BatchCluster, BatchError> {
        Self::with_units(capacity, Units::Tracked(NodeMap::new(capacity)))
    }

    /// A cluster of `capacity` idle units that only counts them: the same schedules, records
    /// and accounting as [`BatchCluster::new`], without node identities (node-level operations
    /// return [`BatchError::NodesNotTracked`]). Starts and ends cost O(1) whatever their size.
    ///
    /// ```
    /// use cosched_batch::{BatchCluster, BatchError};
    /// use cosched_core::NodeId;
    /// let mut cluster = BatchCluster::counted(93_312).unwrap();
    /// assert_eq!(cluster.free_units(), 93_312);
    /// assert_eq!(cluster.set_offline(NodeId(0)), Err(BatchError::NodesNotTracked));
    /// ```
    pub fn counted(capacity: u32) -> Result<BatchCluster, BatchError> {
        Self::with_units(capacity, Units::Counted { free: capacity })
    }

    fn with_units(capacity: u32, units: Units) -> Result<BatchCluster, BatchError> {
        if capacity == 0 {
            return Err(ParamError::new("capacity", 0, "a cluster needs at least one unit").into());
        }
        Ok(BatchCluster {
            capacity,
            units,
            offline: 0,
            queue: JobQueue::default(),
            running: FxHashMap::default(),
            releases: Releases::default(),
            returning: 0,
            busy_unit_seconds: 0,
            next_epoch: 0,
            spare_node_lists: Vec::new(),
            changes: 0,
            last_key: None,
            completions: 0,
            commands: Vec::new(),
        })
    }

    /// Units in the cluster, online or not.
    #[inline]
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Whether the cluster knows which node runs which job ([`BatchCluster::new`]) or only
    /// counts units ([`BatchCluster::counted`]).
    #[inline]
    pub fn tracks_nodes(&self) -> bool {
        matches!(self.units, Units::Tracked(_))
    }

    /// Idle online units.
    #[inline]
    pub fn free_units(&self) -> u32 {
        match &self.units {
            Units::Counted { free } => *free,
            Units::Tracked(map) => map.free_units(),
        }
    }

    /// Units running jobs (draining ones included).
    #[inline]
    pub fn busy_units(&self) -> u32 {
        self.capacity - self.offline - self.free_units()
    }

    /// Offline units (draining ones not included: they still run their job).
    #[inline]
    pub fn offline_units(&self) -> u32 {
        self.offline
    }

    /// The waiting jobs in queue order, (submit, id).
    pub fn queue(&self) -> impl Iterator<Item = &QueuedJob> + '_ {
        self.queue.iter()
    }

    /// Number of waiting jobs.
    #[inline]
    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Number of running jobs.
    #[inline]
    pub fn running_jobs(&self) -> usize {
        self.running.len()
    }

    /// Unit-seconds occupied by jobs so far (counted when runs end, are preempted or resized),
    /// exact in `i128` whatever the capacity and span.
    #[inline]
    pub fn busy_unit_seconds(&self) -> i128 {
        self.busy_unit_seconds
    }

    /// Queues a job (in (submit, id) order) or rejects it if it is larger than the cluster.
    pub fn submit(&mut self, job: BatchJob) -> Result<Submitted, BatchError> {
        if job.size == 0 {
            return Err(ParamError::new("size", 0, "a job needs at least one unit").into());
        }
        if job.runtime.0 < 0 || job.estimate.0 < 0 {
            return Err(ParamError::new(
                "runtime",
                job.runtime.0.min(job.estimate.0),
                "run time and estimate must be >= 0",
            )
            .into());
        }
        // Work is tracked in unit-seconds and ends as times: both must fit in i64.
        let work = i128::from(job.size) * i128::from(job.runtime.0.max(job.estimate.0));
        if work > i128::from(MAX_WORK_UNIT_SECONDS) {
            return Err(ParamError::new(
                "estimate",
                job.estimate.0,
                "size x estimate must stay below 2^62 unit-seconds",
            )
            .into());
        }
        if job.size > self.capacity {
            return Ok(Submitted::Rejected);
        }
        if self.running.contains_key(&job.id) {
            return Err(BatchError::DuplicateJob(job.id));
        }
        // Behind every job ever queued: a schedule planned earlier stays valid.
        if self
            .last_key
            .is_some_and(|last| last >= (job.submit, job.id))
        {
            self.changes += 1;
        }
        self.last_key = Some((job.submit, job.id)).max(self.last_key);
        self.queue.insert(QueuedJob {
            job,
            first_start: None,
            preemptions: 0,
            required_runtime: job.runtime,
        });
        Ok(Submitted::Queued)
    }

    /// The queued job `job`, if it is waiting: O(1) expected plus a binary search once the
    /// queue's index by id is built (by the first lookup by id).
    pub fn queued_job(&self, job: JobId) -> Option<&QueuedJob> {
        self.queue.get(self.queue.position_of_id(job)?)
    }

    /// Withdraws the waiting job `job` from the queue (a user's cancellation) and returns it;
    /// [`BatchError::NotQueued`] if it is not waiting (a running job is stopped with
    /// [`BatchCluster::preempt`]). A schedule planned earlier no longer holds.
    ///
    /// ```
    /// use cosched_batch::{BatchCluster, BatchError, BatchJob};
    /// use cosched_core::{Duration, JobClass, JobId, Time};
    /// let mut cluster = BatchCluster::counted(4).unwrap();
    /// let job = BatchJob {
    ///     id: JobId(7),
    ///     submit: Time(0),
    ///     size: 4,
    ///     runtime: Duration(60),
    ///     estimate: Duration(60),
    ///     class: JobClass::Rigid,
    ///     resizable: None,
    /// };
    /// cluster.submit(job).unwrap(); // queued until a pass starts it
    /// assert_eq!(cluster.queued_job(JobId(7)), cluster.queue().next());
    /// assert_eq!(cluster.cancel(JobId(7)).unwrap().job.id, JobId(7));
    /// assert_eq!(cluster.queue_len(), 0);
    /// assert_eq!(cluster.cancel(JobId(7)), Err(BatchError::NotQueued(JobId(7))));
    /// ```
    pub fn cancel(&mut self, job: JobId) -> Result<QueuedJob, BatchError> {
        let pos = self
            .queue
            .position_of_id(job)
            .ok_or(BatchError::NotQueued(job))?;
        let queued = self.queue.remove(pos);
        // Outside a pass: repair the tree now.
        self.queue.finish_pass();
        self.changes += 1;
        Ok(queued)
    }

    /// Runs one scheduling pass at `now`: `policy` is asked which queued jobs start (a
    /// [`SchedulingPass`] observation, with the cluster as its read-only view), and its
    /// commands are applied in order; each start is appended to `started` so the driver can
    /// schedule its completion.
    ///
    /// A start whose end would pass the last representable second is refused and the job stays
    /// queued, as is any command the cluster cannot apply; [`BatchCluster::try_schedule`]
    /// reports the first such refusal as an error.
    pub fn schedule<P>(&mut self, now: Time, policy: &mut P, started: &mut Vec<Started>)
    where
        P: Policy<Observation = SchedulingPass, Command = BatchCommand, View = BatchCluster>
            + ?Sized,
        BatchError: From<P::Error>,
    {
        // The refused job stays queued; callers that must know use `try_schedule`.
        let _refused = self.try_schedule(now, policy, started);
    }

    /// [`BatchCluster::schedule`], returning the policy's error or else the first command the
    /// cluster had to refuse (such as [`BatchError::EndOverflow`], naming the job); the
    /// commands before it stand and none after it is applied.
    pub fn try_schedule<P>(
        &mut self,
        now: Time,
        policy: &mut P,
        started: &mut Vec<Started>,
    ) -> Result<(), BatchError>
    where
        P: Policy<Observation = SchedulingPass, Command = BatchCommand, View = BatchCluster>
            + ?Sized,
        BatchError: From<P::Error>,
    {
        let mut commands = std::mem::take(&mut self.commands);
        commands.clear();
        let decided = policy.observe(now, &SchedulingPass, self, &mut commands);
        // Most passes of a long queue start nothing (FCFS behind a blocked head): those only
        // close the pass.
        let applied = if commands.is_empty() {
            self.queue.finish_pass();
            Ok(())
        } else {
            self.apply(now, &commands, started)
        };
        self.commands = commands;
        decided?;
        applied
    }

    /// Applies a batch policy's commands at `now` in order, appending each start to
    /// `started`; stops at the first that cannot be applied (a job not queued, too large for
    /// the idle units, outside its size range, or ending past the last representable second)
    /// and returns why, the commands before it applied.
    pub fn apply(
        &mut self,
        now: Time,
        commands: &[BatchCommand],
        started: &mut Vec<Started>,
    ) -> Result<(), BatchError> {
        let mut outcome = Ok(());
        // Trust the command's position hint only where it names the job; otherwise, as
        // policies mostly start jobs in queue order, try the next queued job before a search.
        let mut next = 0;
        for command in commands {
            let (job, key) = command.job();
            let queued_at = |p: usize| {
                let q = self.queue.get(p)?;
                (q.order_key() == key).then_some((p, q.job))
            };
            let found = command
                .position_hint()
                .and_then(queued_at)
                .or_else(|| self.queue.next_live(next).and_then(queued_at))
                .or_else(|| self.queue.position_of(key).and_then(queued_at));
            let Some((pos, queued)) = found else {
                outcome = Err(BatchError::NotQueued(job));
                break;
            };
            let size = match *command {
                BatchCommand::Start { .. } => Ok(queued.size),
                BatchCommand::StartResized { size, .. } => queued.check_size(size).map(|()| size),
            };
            let result = size.and_then(|size| {
                let free = self.free_units();
                if size > free {
                    return Err(BatchError::NotEnoughFreeUnits { needed: size, free });
                }
                self.start_queued_on(now, pos, size)
            });
            match result {
                Ok(s) => {
                    started.push(s);
                    next = pos + 1;
                }
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
        }
        self.queue.finish_pass();
        outcome
    }

    /// The waiting queue, for [`crate::Pass`].
    #[inline]
    pub(crate) fn job_queue(&self) -> &JobQueue {
        &self.queue
    }

    /// The count of changes a policy's plan could not foresee (every start, a completion
    /// away from its predicted end, a queue insertion out of (submit, id) order, preemptions,
    /// resizes and node operations): a policy may keep the schedule it planned in its last
    /// pass while this moves only by the starts it asked for.
    #[inline]
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// A count that moves on every change except a job queued behind all others: while it
    /// stays the same, the idle units, the releases and the queue (up to jobs appended at its
    /// end) are the same.
    #[inline]
    pub fn version(&self) -> u64 {
        self.changes.wrapping_add(self.completions)
    }

    /// The largest (submit, id) ever queued.
    #[inline]
    pub(crate) fn last_queued_key(&self) -> Option<(Time, JobId)> {
        self.last_key
    }

    /// Starts the job at queue position `pos` now on `size` free units: its setup, then the
    /// unit-seconds of the rest of its run time and estimate at its requested size spread
    /// over them. Used by
    /// [`BatchCluster::apply`], which checked that it is queued and fits. Refused, changing
    /// nothing, if its end or predicted end would pass the last representable second.
    fn start_queued_on(&mut self, now: Time, pos: usize, size: u32) -> Result<Started, BatchError> {
        let Some(&queued) = self.queue.get(pos) else {
            return Err(BatchError::NotStartable(pos));
        };
        let (end, predicted_end) = queued.job.ends_from(now, size)?;
        let fixed = queued.job.fixed();
        let q = self.queue.remove(pos);
        let mut nodes = Vec::new();
        match &mut self.units {
            Units::Counted { free } => *free -= size,
            Units::Tracked(map) => {
                nodes = self.spare_node_lists.pop().unwrap_or_default();
                map.take(size, q.job.id, &mut nodes);
            }
        }
        let epoch = self.bump_epoch();
        self.changes += 1;
        let run = Running {
            job: q.job,
            size,
            nodes,
            draining: 0,
            first_start: q.first_start.unwrap_or(now),
            preemptions: q.preemptions,
            required_runtime: q.required_runtime,
            anchor: now,
            setup_end: now + fixed,
            work_left: i64::from(q.job.size) * (q.job.runtime - fixed).0,
            estimate_left: i64::from(q.job.size) * (q.job.estimate - fixed).0,
            end,
            predicted_end,
            epoch,
        };
        let started = Started {
            token: RunToken {
                job: q.job.id,
                epoch,
            },
            end: run.end,
            predicted_end: run.predicted_end,
            size,
        };
        self.releases.insert((run.predicted_end, q.job.id), size);
        self.running.insert(q.job.id, run);
        Ok(started)
    }

    #[inline]
    fn bump_epoch(&mut self) -> u32 {
        self.next_epoch = self.next_epoch.wrapping_add(1);
        self.next_epoch
    }

    /// Ends the run `token` names at `now` and returns the job's record; `None` if the token is
    /// stale (the job was preempted or resized since) — the driver just drops such events.
    pub fn complete(&mut self, now: Time, token: RunToken) -> Option<JobRecord> {
        // One lookup: the run is taken out only if the token is current.
        let run = match self.running.entry(token.job) {
            Entry::Occupied(run) if run.get().epoch == token.epoch => run.remove(),
            _ => return None,
        };
        self.completions += 1;
        self.releases.remove(&(run.predicted_end, token.job));
        if now != run.predicted_end {
            self.changes += 1;
        }
        self.busy_unit_seconds += unit_seconds(run.size, run.anchor, now);
        let record = JobRecord {
            id: run.job.id,
            class: run.job.class,
            submit: run.job.submit,
            start: Some(run.first_start),
            end: Some(now),
            size: run.job.size,
            runtime: run.required_runtime,
        };
        self.release_nodes(run.size, run.nodes, run.draining);
        Some(record)
    }

    /// Gives a job's `size` units (its `nodes` if tracked) back: idle, or offline where they
    /// were draining.
    fn release_nodes(&mut self, size: u32, mut nodes: Vec<NodeId>, draining: u32) {
        match &mut self.units {
            Units::Counted { free } => *free += size,
            Units::Tracked(map) => {
                if draining == 0 {
                    for node in &nodes {
                        map.slots[node.index()] = NodeState::Idle;
                    }
                    map.free.extend_from_slice(&nodes);
                } else {
                    for &node in &nodes {
                        Self::release_node(map, &mut self.offline, node);
                    }
                }
                nodes.clear();
                self.spare_node_lists.push(nodes);
            }
        }
    }

    /// Gives one node back: offline if it was draining, else idle.
    fn release_node(map: &mut NodeMap, offline: &mut u32, node: NodeId) {
        match map.slots[node.index()] {
            NodeState::Draining(_) => {
                map.slots[node.index()] = NodeState::Offline;
                *offline += 1;
            }
            _ => {
                map.slots[node.index()] = NodeState::Idle;
                map.free.push(node);
            }
        }
    }

    fn node_map(&mut self) -> Result<&mut NodeMap, BatchError> {
        match &mut self.units {
            Units::Tracked(map) => Ok(map),
            Units::Counted { .. } => Err(BatchError::NodesNotTracked),
        }
    }

    /// Announces that `units` of the offline units come back at `at` under `key` (an id no
    /// running job of the cluster has): work outside the scheduler with a predicted end, such
    /// as a job of another system running on nodes taken offline for it. Until
    /// [`BatchCluster::cancel_return`], every shadow and profile counts them as a running
    /// job's release at `at` (EASY's reservation for the queue head sees them come back); the
    /// units stay offline until brought online. An error if more units would be expected back
    /// than are offline, or `key` is a running job's or already expected back at `at`.
    ///
    /// ```
    /// use cosched_batch::BatchCluster;
    /// use cosched_core::{JobId, NodeId, Time};
    /// let mut cluster = BatchCluster::new(4).unwrap();
    /// for n in 0..3 {
    ///     cluster.set_offline(NodeId(n)).unwrap();
    /// }
    /// // A 4-unit job could never start on the one online unit...
    /// assert_eq!(cluster.shadow(Time(0), 4).time, Time::MAX);
    /// // ...until the three offline units are expected back at 100.
    /// cluster.expect_return(Time(100), JobId(9), 3).unwrap();
    /// assert_eq!(cluster.shadow(Time(0), 4).time, Time(100));
    /// assert_eq!(cluster.cancel_return(Time(100), JobId(9)), Some(3));
    /// assert_eq!(cluster.shadow(Time(0), 4).time, Time::MAX);
    /// ```
    pub fn expect_return(&mut self, at: Time, key: JobId, units: u32) -> Result<(), BatchError> {
        let room = self.offline - self.returning;
        ParamError::check(
            units <= room,
            "units",
            units,
            "must not exceed the offline units not yet expected back",
        )?;
        if self.running.contains_key(&key) {
            return Err(ParamError::new("key", key.0, "is a running job's").into());
        }
        if self.releases.contains(&(at, key)) {
            return Err(ParamError::new("key", key.0, "is already expected back then").into());
        }
        self.releases.insert((at, key), units);
        self.returning += units;
        self.changes += 1;
        Ok(())
    }

    /// Withdraws the return announced under `key` at `at` ([`BatchCluster::expect_return`]):
    /// its units, `None` if none was.
    pub fn cancel_return(&mut self, at: Time, key: JobId) -> Option<u32> {
        if self.running.contains_key(&key) {
            return None;
        }
        let units = self.releases.remove(&(at, key))?;
        self.returning -= units;
        self.changes += 1;
        Some(units)
    }

    /// Takes `node` away from the scheduler: now if it is idle, else when its job ends
    /// (drain). Taking an offline or draining node offline again is an error.
    pub fn set_offline(&mut self, node: NodeId) -> Result<OfflineOutcome, BatchError> {
        self.changes += 1;
        match self.node_state(node)? {
            NodeState::Idle => {
                let map = self.node_map()?;
                map.use_up_to(node);
                // A linear search keeps job starts and ends free of index upkeep; taking a
                // node offline is rare next to them.
                let pos = map
                    .free
                    .iter()
                    .rposition(|&n| n == node)
                    .ok_or(BatchError::UnknownNode(node))?;
                map.free.remove(pos);
                map.slots[node.index()] = NodeState::Offline;
                self.offline += 1;
                Ok(OfflineOutcome::Offline)
            }
            NodeState::Busy(job) => {
                let run = self
                    .running
                    .get_mut(&job)
                    .ok_or(BatchError::NotRunning(job))?;
                run.draining += 1;
                let predicted_end = run.predicted_end;
                let releasing = run.releasing();
                self.node_map()?.slots[node.index()] = NodeState::Draining(job);
                self.set_release(predicted_end, job, releasing);
                Ok(OfflineOutcome::Draining { job, predicted_end })
            }
            NodeState::Draining(_) | NodeState::Offline => {
                Err(BatchError::NodeAlreadyOffline(node))
            }
        }
    }

    /// Gives `node` back to the scheduler: an offline node becomes idle, a draining node stays
    /// with its job and is no longer drained. Bringing an online node online is an error.
    pub fn set_online(&mut self, node: NodeId) -> Result<(), BatchError> {
        self.changes += 1;
        match self.node_state(node)? {
            NodeState::Offline => {
                let Units::Tracked(map) = &mut self.units else {
                    return Err(BatchError::NodesNotTracked);
                };
                self.offline -= 1;
                Self::release_node(map, &mut self.offline, node);
                Ok(())
            }
            NodeState::Draining(job) => {
                let run = self
                    .running
                    .get_mut(&job)
                    .ok_or(BatchError::NotRunning(job))?;
                run.draining -= 1;
                let (predicted_end, releasing) = (run.predicted_end, run.releasing());
                self.node_map()?.slots[node.index()] = NodeState::Busy(job);
                self.set_release(predicted_end, job, releasing);
                Ok(())
            }
            NodeState::Idle | NodeState::Busy(_) => Err(BatchError::NodeNotOffline(node)),
        }
    }

    fn set_release(&mut self, predicted_end: Time, job: JobId, units: u32) {
        self.releases.set(&(predicted_end, job), units);
    }

    /// The state of one node; [`BatchError::NodesNotTracked`] for a counted cluster.
    pub fn node_state(&self, node: NodeId) -> Result<NodeState, BatchError> {
        match &self.units {
            Units::Tracked(map) => map.state(node).ok_or(BatchError::UnknownNode(node)),
            Units::Counted { .. } => Err(BatchError::NodesNotTracked),
        }
    }

    /// Every node's state with the remaining walltime (predicted end − now, at least 0) of the
    /// job on it; empty for a counted cluster, which has no nodes to name.
    pub fn node_statuses(&self, now: Time) -> Vec<NodeStatus> {
        let Units::Tracked(map) = &self.units else {
            return Vec::new();
        };
        (0..self.capacity)
            .map(|n| {
                let node = NodeId(n);
                let state = map.state(node).unwrap_or(NodeState::Idle);
                let remaining_walltime = state.job().and_then(|j| {
                    let end = self.running.get(&j)?.predicted_end;
                    Some(Duration(end.secs().saturating_sub(now.secs()).max(0)))
                });
                NodeStatus {
                    node,
                    state,
                    remaining_walltime,
                }
            })
            .collect()
    }

    /// The nodes a running job holds; [`BatchError::NodesNotTracked`] for a counted cluster.
    pub fn job_nodes(&self, job: JobId) -> Result<&[NodeId], BatchError> {
        let run = self.running_job(job)?;
        if !self.tracks_nodes() {
            return Err(BatchError::NodesNotTracked);
        }
        Ok(&run.nodes)
    }

    fn running_job(&self, job: JobId) -> Result<&Running, BatchError> {
        self.running.get(&job).ok_or(BatchError::NotRunning(job))
    }

    /// Folds the work done since the run's last anchor into its counters.
    fn advance(run: &mut Running, now: Time, busy_unit_seconds: &mut i128) {
        *busy_unit_seconds += unit_seconds(run.size, run.anchor, now);
        let done = run.work_done(now);
        run.work_left = clamp_i64(i128::from(run.work_left) - done);
        run.estimate_left = clamp_i64(i128::from(run.estimate_left) - done);
        run.anchor = now;
    }

    /// Stops a running job now, frees its nodes (draining ones go offline) and requeues it at
    /// its original place in the queue (same submit time) with the run time `resume` says.
    pub fn preempt(&mut self, now: Time, job: JobId, resume: Resume) -> Result<(), BatchError> {
        self.changes += 1;
        let mut run = self
            .running
            .remove(&job)
            .ok_or(BatchError::NotRunning(job))?;
        self.releases.remove(&(run.predicted_end, job));
        Self::advance(&mut run, now, &mut self.busy_unit_seconds);
        let size = i64::from(run.job.size);
        // A requeued malleable job pays its fixed part (setup) again.
        let fixed = run.job.fixed().0;
        let (runtime, estimate) = match resume {
            Resume::Remaining => (
                fixed + div_ceil(run.work_left.max(0), size),
                fixed + div_ceil(run.estimate_left.max(0), size),
            ),
            Resume::Restart => (run.job.runtime.0, run.job.estimate.0),
            Resume::WithRuntime(d) => {
                let margin = (run.job.estimate - run.job.runtime).0.max(0);
                (d.0.max(0), d.0.max(0) + margin)
            }
        };
        let mut requeued = run.job;
        requeued.runtime = Duration(runtime);
        requeued.estimate = Duration(estimate.max(runtime));
        self.queue.insert(QueuedJob {
            job: requeued,
            first_start: Some(run.first_start),
            preemptions: run.preemptions + 1,
            required_runtime: run.required_runtime,
        });
        self.release_nodes(run.size, std::mem::take(&mut run.nodes), run.draining);
        Ok(())
    }

    /// Resizes a running malleable job to `new_size` now. What is left of its setup
    /// ([`SizeRange::setup`]) stays as is; its remaining work (and remaining estimate), in
    /// unit-seconds, is spread over the new size, so its end moves linearly.
    /// Shrinking gives back its most recently allocated nodes (draining ones go offline);
    /// expanding takes idle nodes and fails if there are not enough. The returned [`Started`]
    /// carries the new token and end: the old token is stale from now on.
    pub fn resize(&mut self, now: Time, job: JobId, new_size: u32) -> Result<Started, BatchError> {
        self.changes += 1;
        let free = self.free_units();
        let run = self
            .running
            .get_mut(&job)
            .ok_or(BatchError::NotRunning(job))?;
        run.job.check_size(new_size)?;
        if new_size > run.size && new_size - run.size > free {
            return Err(BatchError::NotEnoughFreeUnits {
                needed: new_size - run.size,
                free,
            });
        }
        // The new ends, checked before anything changes: the rest of the fixed part, then
        // the work left spread over the new size.
        let done = run.work_done(now);
        let n = i64::from(new_size);
        let setup_left = (run.setup_end - now).max(Duration::ZERO);
        let left = |units: i64| {
            setup_left + Duration(div_ceil(clamp_i64(i128::from(units) - done).max(0), n))
        };
        let estimate = left(run.estimate_left);
        let overflow = |_| BatchError::EndOverflow {
            job,
            start: now,
            estimate,
        };
        let end = now.try_add(left(run.work_left)).map_err(overflow)?;
        let predicted_end = now.try_add(estimate).map_err(overflow)?;
        let old_predicted_end = run.predicted_end;
        Self::advance(run, now, &mut self.busy_unit_seconds);
        let old_size = run.size;
        let mut given_back = Vec::new();
        match &mut self.units {
            Units::Counted { free } => {
                if new_size < old_size {
                    *free += old_size - new_size;
                } else {
                    *free -= new_size - old_size;
                }
            }
            Units::Tracked(map) => {
                if new_size < old_size {
                    given_back = run.nodes.split_off(new_size as usize);
                } else {
                    map.take_one_by_one(new_size - old_size, job, &mut run.nodes);
                }
                run.draining = given_back.iter().fold(run.draining, |d, node| {
                    d - u32::from(matches!(map.slots[node.index()], NodeState::Draining(_)))
                });
            }
        }
        run.size = new_size;
        run.end = end;
        run.predicted_end = predicted_end;
        self.next_epoch = self.next_epoch.wrapping_add(1);
        run.epoch = self.next_epoch;
        let started = Started {
            token: RunToken {
                job,
                epoch: run.epoch,
            },
            end: run.end,
            predicted_end: run.predicted_end,
            size: new_size,
        };
        let releasing = run.releasing();
        self.releases.remove(&(old_predicted_end, job));
        self.releases
            .insert((started.predicted_end, job), releasing);
        if let Units::Tracked(map) = &mut self.units {
            for node in given_back {
                Self::release_node(map, &mut self.offline, node);
            }
        }
        Ok(started)
    }

    /// Units each running job gives back at its predicted end, in (predicted end, id) order.
    pub fn releases(&self) -> impl Iterator<Item = (Time, u32)> + '_ {
        self.releases.iter().map(|((t, _), units)| (t, units))
    }

    /// What a policy reads of the cluster, as data: for recording a run with
    /// [`cosched_core::policy::Recorder::with_view_snapshot`] (through
    /// `serde_json::to_value`) and rebuilding the view with [`BatchCluster::from_snapshot`]
    /// in a replay.
    pub fn snapshot(&self) -> ClusterSnapshot {
        ClusterSnapshot {
            capacity: self.capacity,
            // The units expected back are among the releases.
            offline: self.offline - self.returning,
            free: self.free_units(),
            queue: self.queue.iter().copied().collect(),
            releases: self
                .releases
                .iter()
                .map(|((t, job), units)| (t, job, units))
                .collect(),
            changes: self.changes,
            completions: self.completions,
            last_key: self.last_key,
        }
    }

    /// A cluster that answers every read a policy makes (idle units, queue, releases,
    /// [`BatchCluster::changes`], [`BatchCluster::version`]) as the one `snapshot` was taken
    /// from: the view of a recorded pass, for replaying it. It only counts units, and its
    /// running jobs are only their releases, so it serves as a view, not to continue a run.
    pub fn from_snapshot(snapshot: &ClusterSnapshot) -> Result<BatchCluster, BatchError> {
        let held = snapshot.releases.iter().try_fold(
            u64::from(snapshot.free) + u64::from(snapshot.offline),
            |n, r| n.checked_add(u64::from(r.2)),
        );
        if held.is_none_or(|n| n > u64::from(snapshot.capacity)) {
            return Err(ParamError::new(
                "snapshot",
                snapshot.capacity,
                "idle, offline and released units exceed the capacity",
            )
            .into());
        }
        let mut cluster = BatchCluster::counted(snapshot.capacity)?;
        cluster.units = Units::Counted {
            free: snapshot.free,
        };
        cluster.offline = snapshot.offline;
        for &q in &snapshot.queue {
            if q.job.size == 0 || q.job.size > snapshot.capacity {
                return Err(
                    ParamError::new("snapshot queue size", q.job.size, "out of range").into(),
                );
            }
            if cluster.queue.position_of(q.order_key()).is_some() {
                return Err(BatchError::DuplicateJob(q.job.id));
            }
            cluster.queue.insert(q);
        }
        cluster.releases = snapshot
            .releases
            .iter()
            .map(|&(t, job, units)| ((t, job), units))
            .collect();
        cluster.changes = snapshot.changes;
        cluster.completions = snapshot.completions;
        cluster.last_key = snapshot.last_key;
        Ok(cluster)
    }

    /// [`BatchCluster::releases`] with each job's (predicted end, id) key.
    pub(crate) fn release_keys(&self) -> impl Iterator<Item = ((Time, JobId), u32)> + '_ {
        self.releases.iter()
    }

    /// The EASY shadow for a job of `size` units at `now`: the earliest predicted end of
    /// running jobs at which the free units reach `size` (`now` if they already do), and the
    /// extra units left at that time once `size` are set aside. All jobs predicted to end at
    /// the shadow time count towards the extra units. `Shadow::NEVER` if the online units can
    /// never reach `size`.
    pub fn shadow(&self, now: Time, size: u32) -> Shadow {
        self.shadow_with(now, self.free_units(), size, &[])
    }

    /// [`BatchCluster::shadow`] with `free` idle units and the releases of `more` (sorted by
    /// key) besides the running jobs': a pass's view with its starts not yet applied.
    pub(crate) fn shadow_with(
        &self,
        now: Time,
        free: u32,
        size: u32,
        more: &[((Time, JobId), u32)],
    ) -> Shadow {
        if size <= free {
            return Shadow {
                time: now,
                extra: free - size,
            };
        }
        self.releases
            .shadow(free, size, more)
            .map_or(Shadow::NEVER, |(time, avail)| Shadow {
                time,
                extra: avail - size,
            })
    }

    /// When the queue head is predicted to start: its EASY shadow time. `None` if the queue is
    /// empty or the head can never start on the online units.
    pub fn predicted_head_start(&self, now: Time) -> Option<Time> {
        let head = self.queue.iter().next()?;
        let shadow = self.shadow(now, head.size());
        (shadow != Shadow::NEVER).then_some(shadow.time)
    }

    /// When a hypothetical job of `size` units and estimate `estimate`, submitted now behind
    /// the current queue, is predicted to start: the conservative-backfilling schedule of the
    /// queue (each queued job reserved at its earliest fit in the availability profile of
    /// the running jobs' predicted ends), then the earliest fit of the hypothetical job.
    /// `None` if it can never fit on the online units.
    pub fn predicted_start(&self, now: Time, size: u32, estimate: Duration) -> Option<Time> {
        let mut profile = Profile::new(now, self.free_units(), self.releases());
        for q in self.queue.iter() {
            if let Some(t) = profile.earliest_fit(q.size(), q.estimate()) {
                profile.reserve(t, q.estimate(), q.size());
            }
        }
        profile.earliest_fit(size, estimate)
    }
}

/// `d` on `from` units spread over `to` units: `⌈d·from/to⌉` (just `d` when equal).
fn spread(d: Duration, from: u32, to: u32) -> Duration {
    if from == to {
        d
    } else {
        Duration(div_ceil(d.0 * i64::from(from), i64::from(to.max(1))))
    }
}

/// The EASY reservation for the queue head; see [`BatchCluster::shadow`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shadow {
    /// When the head is predicted to have its units.
    pub time: Time,
    /// Units free at `time` beyond the head's needs: a backfilled job that runs past `time`
    /// may use at most these.
    pub extra: u32,
}

impl Shadow {
    /// The head can never start (not enough online units).
    pub const NEVER: Shadow = Shadow {
        time: Time::MAX,
        extra: 0,
    };
}

#[inline]
fn div_ceil(a: i64, b: i64) -> i64 {
    // `a >= 0`, `b >= 1`: no overflow even at i64::MAX.
    a / b + i64::from(a % b != 0)
}

/// `size` units held from `from` to `to`, in unit-seconds (exact whatever the span).
#[inline]
fn unit_seconds(size: u32, from: Time, to: Time) -> i128 {
    i128::from(size) * (i128::from(to.secs()) - i128::from(from.secs()))
}

#[inline]
fn clamp_i64(x: i128) -> i64 {
    x.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}
