//! The hybrid protocol live (Fan et al., IPDPS 2022): on-demand jobs start at once on a real
//! cluster by preempting rigid jobs and shrinking malleable ones.
//!
//! [`HybridExecutor`] runs any policy of the hybrid protocol ([`HybridWorkloadPolicy`]:
//! [`cosched_hybrid::HybridPolicy`]'s six mechanisms and its baseline, or one's own) over a
//! [`HybridPlatform`], a [`BatchPlatform`] that can also requeue and resize a running job:
//! Slurm ([`SlurmBatch`], built [`SlurmBatch::with_deadlines`]) or [`MemoryBatch`]. The policy
//! sees what the simulator shows it, because the executor's record of the cluster *is* the
//! simulator's environment, stepped by the wall clock ([`Stepped`]): the same events become the
//! same observations, the same commands the same changes, with the ends of the runs those
//! the platform reports. What the environment decides reaches the platform as its
//! [`Action`]s:
//!
//! | action | on Slurm |
//! |---|---|
//! | start a batch job | `scontrol update JobId=… ReqNodeList=… NumNodes=…`, `scontrol release` |
//! | preempt (rigid or malleable) | `scontrol requeuehold` (the run's end in the epilog is not the job's end) |
//! | restart a preempted job | `StartTime=now`, then as a start, once its nodes are idle |
//! | shrink a malleable job | `scontrol update JobId=… NodeList=<the nodes it keeps>` |
//! | start an on-demand job | as a start, on the nodes the policy gathered for it |
//!
//! Every job waits held, so Slurm's own scheduler starts none: the policy's reservations of
//! idle nodes (CUA, CUP) need no Slurm reservation, the nodes simply stay idle. A job runs
//! until the deadline the executor gives it (the end of the run the environment computed:
//! setup, work left and checkpoints; a malleable job's work spread over its new size after a
//! resize), so the platform's ends are those of the simulated jobs, shifted by the platform's
//! latencies. Node-seconds go to the simulator's ledger and accounts ([`HybridExecutor::finish`]).
//!
//! ```
//! use cosched_core::{Duration, JobId, OnDemandJob, RigidJob, Time};
//! use cosched_hybrid::{Composite, HybridConfig, HybridJob, scenario};
//! use cosched_live::{HybridExecutor, MemoryBatch};
//! let rigid = RigidJob::new(JobId(1), Time(0), 4, Duration(100), Duration(120)).unwrap();
//! let od = OnDemandJob::new(JobId(2), 2, Duration(20), Duration(30), Time(10)).unwrap();
//! let jobs = [HybridJob::Rigid { job: rigid, setup: Duration(0) }, HybridJob::OnDemand(od)];
//! let platform = MemoryBatch::new(4);
//! let mut policy = scenario::mechanism(Composite::ALL[0]); // N&PAA
//! let config = HybridConfig::new(4).unwrap();
//! let mut exec = HybridExecutor::new(config, &mut policy, &jobs, platform.clone(), "job-")?;
//! exec.step(Time(0))?;
//! exec.step(Time(10))?; // the on-demand job preempts the rigid one and starts at once
//! assert_eq!(platform.starts(), [("job-1".to_owned(), 1), ("job-2".to_owned(), 1)]);
//! # Ok::<(), cosched_live::HybridLiveError<cosched_hybrid::HybridError>>(())
//! ```

use std::collections::{BTreeMap, HashMap};
use std::error::Error as StdError;

use cosched_batch::BatchJob;
use cosched_core::{Duration, JobClass, JobId, NodeId, Time};
use cosched_hybrid::sim::{Action, Stepped};
use cosched_hybrid::{
    HybridConfig, HybridJob, HybridOutcome, HybridSim, HybridWorkloadPolicy, SimError,
};
use thiserror::Error;

use crate::batch::{BatchPlatform, ScaledClock, unix_ms};

pub use crate::batch::{MemoryBatch, SlurmBatch};

/// A [`BatchPlatform`] that also preempts and resizes running jobs and runs each for the
/// time it is told.
pub trait HybridPlatform: BatchPlatform {
    /// Starts held job `id` on `nodes` (again, after a requeue) to run `run` workload
    /// seconds; `false` if the nodes are not ready yet (the executor retries at its next
    /// step).
    fn start_for(&mut self, id: &str, nodes: &[String], run: Duration)
    -> Result<bool, Self::Error>;

    /// Stops running job `id` and holds it again (its run's end is not reported as an end).
    fn requeue(&mut self, id: &str) -> Result<(), Self::Error>;

    /// Resizes running job `id` to `nodes`, after which it runs `run` workload seconds more;
    /// returns the nodes it holds then: as many, but for a shrink maybe other nodes of the
    /// job's than those asked (Slurm keeps the first ones), which the executor then relabels.
    fn resize(
        &mut self,
        id: &str,
        nodes: &[String],
        run: Duration,
    ) -> Result<Vec<String>, Self::Error>;
}

/// Why the live hybrid executor stopped.
#[derive(Debug, Error)]
pub enum HybridLiveError<E: StdError + 'static> {
    /// The environment or the policy failed (a command it cannot carry out, a policy error).
    #[error("hybrid: {0}")]
    Model(#[from] SimError<E>),
    /// The platform failed (its own error, boxed: downcast to read it).
    #[error("platform: {0}")]
    Platform(#[source] Box<dyn StdError + Send + Sync>),
    /// The platform's node count is not the configuration's.
    #[error("the platform has {found} nodes, the configuration {config}")]
    OtherNodes {
        /// The configuration's.
        config: u32,
        /// The platform's.
        found: usize,
    },
}

fn platform<E: StdError + 'static>(e: impl StdError + Send + Sync + 'static) -> HybridLiveError<E> {
    HybridLiveError::Platform(Box::new(e))
}

/// An action the executor carried out on the platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The instant the environment decided it.
    pub decided: Time,
    /// The instant the platform took it (later for a start that waited for its nodes).
    pub applied: Time,
    /// Wall time of the platform's call, Unix milliseconds.
    pub wall_unix_ms: i64,
    /// The action.
    pub action: Action,
}

/// A start the platform could not make yet: retried at each step.
#[derive(Debug, Clone)]
struct Waiting {
    job: JobId,
    nodes: Vec<String>,
    end: Time,
    action: Action,
    decided: Time,
}

/// The executor; see the [module docs](self).
pub struct HybridExecutor<'p, P: HybridWorkloadPolicy + ?Sized, C: HybridPlatform> {
    model: Stepped<'p, P>,
    platform: C,
    nodes: Vec<String>,
    jobs: Vec<HybridJob>,
    next: usize,
    prefix: String,
    ids: BTreeMap<JobId, String>,
    by_platform: HashMap<String, JobId>,
    waiting: Vec<Waiting>,
    applied: Vec<Applied>,
    /// The nodes each running batch job holds, as the environment numbers them.
    holding: HashMap<JobId, Vec<NodeId>>,
}

impl<'p, P, C> HybridExecutor<'p, P, C>
where
    P: HybridWorkloadPolicy + ?Sized,
    P::Error: StdError + 'static,
    C: HybridPlatform,
{
    /// Runs `jobs` under `policy` on `platform` (whose node count must be `config`'s; node `i`
    /// is the platform's `i`-th), each submitted held at its submit time as
    /// `prefix<job id>`.
    pub fn new(
        config: HybridConfig,
        policy: &'p mut P,
        jobs: &[HybridJob],
        platform: C,
        prefix: &str,
    ) -> Result<Self, HybridLiveError<P::Error>> {
        let nodes = platform.nodes().map_err(platform_error)?;
        if nodes.len() != config.nodes as usize {
            return Err(HybridLiveError::OtherNodes {
                config: config.nodes,
                found: nodes.len(),
            });
        }
        let sim = HybridSim::new(config)
            .map_err(SimError::from)?
            .with_label("live");
        let model = sim.stepped(policy, jobs)?;
        let mut jobs = jobs.to_vec();
        jobs.sort_by_key(|j| (j.submit(), j.id()));
        Ok(HybridExecutor {
            model,
            platform,
            nodes,
            jobs,
            next: 0,
            prefix: prefix.to_owned(),
            ids: BTreeMap::new(),
            by_platform: HashMap::new(),
            waiting: Vec::new(),
            applied: Vec::new(),
            holding: HashMap::new(),
        })
    }

    /// The earliest instant at which the executor has something to do by itself (a
    /// submission, an event of the environment); the platform's ends come whenever they come.
    pub fn next_due(&self) -> Option<Time> {
        let submit = self.jobs.get(self.next).map(HybridJob::submit);
        [submit, self.model.next_event()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Brings the run to `now`: submits the jobs due (held), reads the platform's ends,
    /// steps the environment (the policy decides) and carries out its actions.
    pub fn step(&mut self, now: Time) -> Result<(), HybridLiveError<P::Error>> {
        while let Some(job) = self.jobs.get(self.next).filter(|j| j.submit() <= now) {
            let name = format!("{}{}", self.prefix, job.id().0);
            let id = self
                .platform
                .submit_held(&name, &held_job(job))
                .map_err(platform_error)?;
            self.by_platform.insert(id.clone(), job.id());
            self.ids.insert(job.id(), id);
            self.next += 1;
        }
        let ended: Vec<JobId> = self
            .platform
            .ended()
            .map_err(platform_error)?
            .iter()
            .filter_map(|id| self.by_platform.get(id).copied())
            .collect();
        self.model.step(now, &ended)?;
        for waiting in std::mem::take(&mut self.waiting) {
            self.start(now, waiting)?;
        }
        for (decided, action) in self.model.take_actions() {
            self.apply(now, decided, action)?;
        }
        Ok(())
    }

    fn names(&self, nodes: &[NodeId]) -> Vec<String> {
        nodes
            .iter()
            .filter_map(|n| self.nodes.get(n.index()).cloned())
            .collect()
    }

    fn id(&self, job: JobId) -> &str {
        self.ids.get(&job).map_or("", String::as_str)
    }

    fn apply(
        &mut self,
        now: Time,
        decided: Time,
        action: Action,
    ) -> Result<(), HybridLiveError<P::Error>> {
        match &action {
            &Action::Start {
                job,
                ref nodes,
                run,
            }
            | &Action::StartOnDemand {
                job,
                ref nodes,
                run,
            } => {
                let waiting = Waiting {
                    job,
                    nodes: self.names(nodes),
                    end: decided.saturating_add(run),
                    action: action.clone(),
                    decided,
                };
                return self.start(now, waiting);
            }
            &Action::Preempt { job } => {
                self.holding.remove(&job);
                if let Some(k) = self.waiting.iter().position(|w| w.job == job) {
                    // Never started on the platform: it only stops waiting.
                    self.waiting.remove(k);
                    return Ok(());
                }
                let id = self.id(job).to_owned();
                self.platform.requeue(&id).map_err(platform_error)?;
            }
            &Action::Resize {
                job,
                ref nodes,
                run,
            } => {
                let names = self.names(nodes);
                let end = decided.saturating_add(run);
                if let Some(w) = self.waiting.iter_mut().find(|w| w.job == job) {
                    (w.nodes, w.end) = (names, end);
                    return Ok(());
                }
                let id = self.id(job).to_owned();
                let kept = self
                    .platform
                    .resize(&id, &names, end - now)
                    .map_err(platform_error)?;
                let before = self.holding.insert(job, nodes.clone()).unwrap_or_default();
                self.relabel(&before, nodes, &kept);
            }
        }
        self.applied.push(Applied {
            decided,
            applied: now,
            wall_unix_ms: unix_ms(),
            action,
        });
        Ok(())
    }

    /// After a resize of a job from `before` to `after` (the environment's nodes) on which
    /// the platform kept `kept`: the environment's kept nodes are named as the platform's,
    /// its freed ones as the others of the job's (a permutation within the job's nodes, so
    /// no other job's node changes name).
    fn relabel(&mut self, before: &[NodeId], after: &[NodeId], kept: &[String]) {
        let old: Vec<String> = self.names(before);
        let freed_model = before.iter().filter(|n| !after.contains(n));
        let freed_platform = old.iter().filter(|n| !kept.contains(n));
        let pairs: Vec<(NodeId, String)> = after
            .iter()
            .copied()
            .zip(kept.iter().cloned())
            .chain(freed_model.copied().zip(freed_platform.cloned()))
            .collect();
        for (node, name) in pairs {
            if let Some(slot) = self.nodes.get_mut(node.index()) {
                *slot = name;
            }
        }
    }

    /// Starts `w` on the platform, or keeps it waiting for its nodes.
    fn start(&mut self, now: Time, w: Waiting) -> Result<(), HybridLiveError<P::Error>> {
        let id = self.id(w.job).to_owned();
        let run = (w.end - now).max(Duration::ZERO);
        if let Action::Start { job, nodes, .. } = &w.action {
            self.holding.insert(*job, nodes.clone());
        }
        if self
            .platform
            .start_for(&id, &w.nodes, run)
            .map_err(platform_error)?
        {
            self.applied.push(Applied {
                decided: w.decided,
                applied: now,
                wall_unix_ms: unix_ms(),
                action: w.action,
            });
        } else {
            self.waiting.push(w);
        }
        Ok(())
    }

    /// What the executor carried out, in order.
    pub fn applied(&self) -> &[Applied] {
        &self.applied
    }

    /// The platform id of `job`, once submitted.
    pub fn platform_id(&self, job: JobId) -> Option<&str> {
        self.ids.get(&job).map(String::as_str)
    }

    /// The platform.
    pub fn platform(&self) -> &C {
        &self.platform
    }

    /// Whether every job was submitted and completed (or rejected).
    pub fn is_done(&self) -> bool {
        self.next == self.jobs.len() && self.model.is_done()
    }

    /// Steps on the wall clock `clock` every `poll` until every job completed, or until
    /// `stop` (called after each step) says so; returns whether the run completed.
    pub fn run_paced(
        &mut self,
        clock: ScaledClock,
        poll: std::time::Duration,
        mut stop: impl FnMut(Time, &Self) -> bool,
    ) -> Result<bool, HybridLiveError<P::Error>> {
        let mut last = Time(i64::MIN);
        loop {
            let now = clock.now().max(last);
            last = now;
            self.step(now)?;
            if self.is_done() {
                return Ok(true);
            }
            if stop(now, self) {
                return Ok(false);
            }
            std::thread::sleep(poll);
        }
    }

    /// The run as the simulator reports one: records, per-job accounts, the ledger.
    pub fn finish(self) -> HybridOutcome {
        self.model.finish()
    }
}

fn platform_error<E: StdError + 'static, F: StdError + Send + Sync + 'static>(
    e: F,
) -> HybridLiveError<E> {
    platform(e)
}

/// `job` as the platform holds it: its largest size, and as its run time and estimate the
/// longest a run of it may last (a malleable job on its fewest nodes), the time limit a
/// platform sets.
fn held_job(job: &HybridJob) -> BatchJob {
    let longest = match *job {
        HybridJob::Rigid { job, .. } => job.estimate.max(job.runtime),
        HybridJob::Malleable { job, estimate } => {
            estimate.max(job.runtime_on(job.min_size).unwrap_or(estimate))
        }
        HybridJob::OnDemand(job) => job.estimate.max(job.runtime),
    };
    BatchJob {
        id: job.id(),
        submit: job.submit(),
        size: job.size(),
        runtime: longest,
        estimate: longest,
        class: match job {
            HybridJob::OnDemand(_) => JobClass::OnDemand,
            HybridJob::Malleable { .. } => JobClass::Malleable,
            HybridJob::Rigid { .. } => JobClass::Rigid,
        },
        resizable: None,
    }
}
