//! The view lent to every role's policy: nodes, the batch cluster, the running jobs, the
//! leases, the scavenging queue's head, and what hybrid's protocol holds on reserve nodes.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use cosched_batch::{BatchCluster, BatchJob, RunToken};
use cosched_classad::ClassAd;
use cosched_core::{Duration, JobClass, JobId, Lease, LeaseId, NodeId, Time};
use cosched_hybrid::{PlannedJob, RunningKind, RunningView};

use crate::nodes::{NodeUse, Nodes};

/// A running batch job as the site tracks it.
#[derive(Clone, Debug)]
pub(super) struct RunningJob {
    pub(super) nodes: Vec<NodeId>,
    /// When its current run started.
    pub(super) started: Time,
    pub(super) token: RunToken,
    pub(super) predicted_end: Time,
    pub(super) job: BatchJob,
    /// Its setup (rigid: part of its run time; malleable: paid on every start).
    pub(super) setup: Duration,
}

/// What the on-demand role holds on reserve nodes under hybrid's protocol: reservations for
/// announced leases (Fan et al. §III-B1) and the nodes gathered for a lease not started.
#[derive(Clone, Debug, Default)]
pub(super) struct Holds {
    /// Job ids at and above this are leases' (lease `k` is `base + k`).
    pub(super) base: u64,
    /// Reserve nodes reserved, idle, for an on-demand job.
    pub(super) reserved: BTreeMap<NodeId, JobId>,
    /// How many nodes each job's reservation holds idle.
    pub(super) reserved_count: BTreeMap<JobId, usize>,
    /// Each reservation's nodes, idle or lent to its guests: a guest is one while its
    /// reservation holds nodes (hybrid's policy releases them all when it lapses).
    pub(super) members: BTreeMap<JobId, BTreeSet<NodeId>>,
    /// Nodes handed to each lease not started (hybrid's `Assign`), by lease.
    pub(super) gathered: BTreeMap<usize, Vec<NodeId>>,
    /// Each lease's nodes while it runs on reserve nodes, by lease.
    pub(super) granted: BTreeMap<usize, Vec<NodeId>>,
    /// Jobs that entered the batch queue (submissions and requeues).
    pub(super) queue_epoch: u64,
}

impl Holds {
    pub(super) fn new(base: u64) -> Holds {
        Holds {
            base,
            ..Holds::default()
        }
    }

    /// The job lease `k` runs as.
    pub(super) fn job_of(&self, k: usize) -> JobId {
        JobId(self.base.saturating_add(k as u64))
    }

    /// The lease of job `id`, if `id` is one of the `leases` leases' jobs.
    pub(super) fn lease_of(&self, id: JobId, leases: usize) -> Option<usize> {
        let k = usize::try_from(id.0.checked_sub(self.base)?).ok()?;
        (k < leases).then_some(k)
    }

    /// Marks `node` reserved for `job` (`Some`) or not reserved (`None`).
    pub(super) fn reserve(&mut self, node: NodeId, job: Option<JobId>) {
        let before = match job {
            Some(job) => self.reserved.insert(node, job),
            None => self.reserved.remove(&node),
        };
        if let Some(old) = before
            && let Some(c) = self.reserved_count.get_mut(&old)
        {
            *c -= 1;
            if *c == 0 {
                self.reserved_count.remove(&old);
            }
        }
        if let Some(job) = job {
            *self.reserved_count.entry(job).or_default() += 1;
        }
    }
}

/// Everything the roles may read: the view lent to their policies (the site's own
/// protocols, and hybrid's [`cosched_hybrid::PlatformView`]).
#[derive(Debug)]
pub struct SiteState {
    pub(super) nodes: Nodes,
    pub(super) cluster: BatchCluster,
    pub(super) running: BTreeMap<JobId, RunningJob>,
    pub(super) leases: Vec<Lease>,
    pub(super) waiting_ads: Vec<Arc<ClassAd>>,
    pub(super) holds: Holds,
    /// The nodes whose batch-idle state flipped between the last two negotiation cycles.
    pub(super) idle_flips: Option<Vec<NodeId>>,
}

/// A batch-idle node's place in the longest-idle order ([`SiteState::batch_idle_key`]):
/// the smaller, the longer idle. A node that becomes batch-idle again takes a new key,
/// larger than every other's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IdleKey(u64, NodeId);

impl IdleKey {
    /// The node.
    pub fn node(self) -> NodeId {
        self.1
    }
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

    /// `node`'s place in the longest-idle order, if it is batch-idle.
    pub fn batch_idle_key(&self, node: NodeId) -> Option<IdleKey> {
        self.nodes.idle_key(node).map(|(s, n)| IdleKey(s, n))
    }

    /// The batch-idle nodes after `after` in the longest-idle order (all of them for
    /// `None`), with their keys: a policy that read the order up to a node goes on from
    /// there.
    pub fn batch_idle_after(
        &self,
        after: Option<IdleKey>,
    ) -> impl Iterator<Item = (IdleKey, NodeId)> + '_ {
        self.nodes
            .idle_after(after.map(|IdleKey(s, n)| (s, n)))
            .map(|(s, n)| (IdleKey(s, n), n))
    }

    /// The nodes whose batch-idle state changed (they became batch-idle, or stopped being)
    /// between the previous negotiation cycle and this one, each at least once, in no
    /// particular order: what a scavenging policy that keeps its own picture of the idle
    /// nodes reads instead of all of them. `None` when the site cannot say (more changed
    /// than it has nodes, or before the first cycle): read them afresh.
    pub fn batch_idle_changes(&self) -> Option<&[NodeId]> {
        self.idle_flips.as_deref()
    }

    /// Starts a negotiation cycle's view of the changes: those since the last one.
    pub(super) fn rotate_idle_flips(&mut self) {
        let reuse = self.idle_flips.take();
        self.idle_flips = self.nodes.swap_flips(reuse);
    }

    /// Up to `count` batch-idle nodes for another use, unlent ones first (most recently
    /// idle first, the order batch takes them), then lent ones.
    pub(super) fn pick_idle(&self, count: usize) -> Vec<NodeId> {
        let mut pick: Vec<NodeId> = self.nodes.unlent_recent_first().take(count).collect();
        if pick.len() < count {
            let taken: BTreeSet<NodeId> = pick.iter().copied().collect();
            pick.extend(
                self.nodes
                    .idle_recent_first()
                    .filter(|n| !taken.contains(n))
                    .take(count - pick.len()),
            );
        }
        pick
    }

    /// The batch cluster (queue, running jobs' releases, EASY's shadow).
    pub fn cluster(&self) -> &BatchCluster {
        &self.cluster
    }

    /// The lease `id`, if the site has it.
    pub fn lease(&self, id: LeaseId) -> Option<&Lease> {
        usize::try_from(id.0).ok().and_then(|i| self.leases.get(i))
    }

    /// The job id lease `id` has under hybrid's protocol (its notices, arrival and commands
    /// name it so), if the site has the lease.
    pub fn lease_job(&self, id: LeaseId) -> Option<JobId> {
        let k = usize::try_from(id.0)
            .ok()
            .filter(|&k| k < self.leases.len())?;
        Some(self.holds.job_of(k))
    }

    /// The running batch jobs as hybrid's mechanisms see them (leases run as batch jobs left
    /// out): rigid jobs with their setup, work and elapsed time (no checkpoints), malleable
    /// jobs with their size range, in (submit, id) order.
    pub fn running_views(&self, now: Time) -> Vec<RunningView> {
        self.planned_jobs(now).into_iter().map(|p| p.view).collect()
    }

    /// [`SiteState::running_views`] with each job's run start and predicted end, as hybrid's
    /// CUP plans with them ([`PlannedJob`]).
    pub fn planned_jobs(&self, now: Time) -> Vec<PlannedJob> {
        let mut jobs: Vec<(Time, PlannedJob)> = self
            .running
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
                let planned = PlannedJob {
                    view: RunningView {
                        id: r.job.id,
                        size,
                        setup: r.setup.min(r.job.runtime),
                        kind,
                    },
                    run_start: r.started,
                    predicted_end: r.predicted_end,
                };
                (r.job.submit, planned)
            })
            .collect();
        jobs.sort_unstable_by_key(|(submit, p)| (*submit, p.view.id));
        jobs.into_iter().map(|(_, p)| p).collect()
    }

    /// The head of the scavenging queue's ads (at most [`super::WAITING_ADS`]), queue order.
    pub fn waiting_ads(&self) -> &[Arc<ClassAd>] {
        &self.waiting_ads
    }

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
