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
//! | shrink a malleable job | `scontrol update JobId=… NumNodes=k` (Slurm keeps its first nodes: relabelled) |
//! | expand a malleable job | `salloc --no-shell -w <the extra nodes> --dependency=expand:…`, then `NumNodes=0` on that allocation merges its nodes into the job |
//! | start an on-demand job | as a start, on the nodes the policy gathered for it |
//!
//! Every job waits held, so Slurm's own scheduler starts none: the policy's reservations of
//! idle nodes (CUA, CUP) need no Slurm reservation, the nodes simply stay idle. On-demand
//! jobs need no partition or QOS of their own either: one of a higher `PriorityTier` over
//! preemptable batch nodes makes Slurm pick and requeue the victims itself (measured: a
//! released on-demand job requeued the batch job on its node within 0.42 s), not the
//! mechanism's choice; over the `batch` partition (`PreemptMode=OFF`) it would change
//! nothing but a label. A job runs
//! until the deadline the executor gives it (the end of the run the environment computed:
//! setup, work left and checkpoints; a malleable job's work spread over its new size after a
//! resize), so the platform's ends are those of the simulated jobs, shifted by the platform's
//! latencies. Node-seconds go to the simulator's ledger and accounts ([`HybridExecutor::finish`]),
//! each run until the end the platform gives for it ([`BatchPlatform::ended_at`]: on Slurm the
//! epilog's milliseconds, once the executor has the run's clock, [`HybridExecutor::with_clock`]),
//! while the policy is told of the end when the executor learns it.
//!
//! **Restarts.** A requeue ends a run, and Slurm's epilog logs that end as it logs a job's
//! own. Which line is which comes from what outlives the executor, not from its memory:
//! Slurm's count of the job's requeues (`restart_cnt`, in `squeue --json` and `squeue -O`)
//! against the job's lines in the log (those before a restarted reader's place counted from
//! the run's clock origin), and a requeued job starts again by `restart_on` (clearing the
//! begin time the requeue set) because Slurm counts it requeued. So a crash between a
//! requeue's save and its call, between the call and its epilog line, or between the line and
//! the restart ends no job early and starts none twice.
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
use std::path::PathBuf;

use cosched_batch::BatchJob;
use cosched_core::{Duration, JobClass, JobId, NodeId, OnDemandJob, ParamError, Time};
use cosched_hybrid::notice::Notice;
use cosched_hybrid::sim::{Action, OnDemandStatus, Stepped};
use cosched_hybrid::{
    HybridConfig, HybridError, HybridJob, HybridOutcome, HybridSim, HybridWorkloadPolicy, SimError,
};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::batch::{BatchPlatform, PlatformJob, ScaledClock, split_ends, unix_ms};

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

    /// How many times the platform has requeued job `id` (Slurm's `restart_cnt`): what tells
    /// a restarted executor whether a requeue it decided reached the platform.
    fn requeues(&self, id: &str) -> Result<u32, Self::Error>;

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
    /// The platform's nodes are not those of the journal being resumed.
    #[error("the journal ran on the nodes {saved:?}, the platform has {found:?}")]
    OtherJournalNodes {
        /// The journal's.
        saved: Vec<String>,
        /// The platform's.
        found: Vec<String>,
    },
    /// Replaying the journal, the environment decided otherwise than it did (another policy,
    /// configuration or workload).
    #[error(
        "the replay diverges from the journal at {time}: saved {saved:?}, replayed {replayed:?}"
    )]
    Diverged {
        /// The step.
        time: Time,
        /// What the journal holds.
        saved: Vec<(Time, Action)>,
        /// What the replay decided.
        replayed: Vec<(Time, Action)>,
    },
    /// The journal could not be saved.
    #[error("cannot save the journal to `{path}`: {source}")]
    Save {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// One entry of a [`HybridJournal`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum HybridEvent {
    /// An advance notice given from outside ([`HybridExecutor::notice`]).
    Notice {
        /// The notice.
        notice: Notice,
    },
    /// An on-demand job arrived from outside ([`HybridExecutor::arrive`]).
    Arrive {
        /// The job.
        job: OnDemandJob,
    },
    /// A step in which something happened: the ends the platform reported and the actions
    /// the environment decided (saved before they reach the platform).
    Step {
        /// Its time.
        time: Time,
        /// Jobs ended, as the platform reported them.
        ended: Vec<JobId>,
        /// When the runs of `ended` ended, where the platform said (earlier than `time` for
        /// an end learnt late: at a slow poll, or after a restart).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        end_times: Vec<(JobId, Time)>,
        /// The actions decided, with their instants.
        actions: Vec<(Time, Action)>,
    },
    /// A job preempted before its start reached the platform (it was waiting for its
    /// nodes): the preemption requeued nothing there.
    Unstarted {
        /// The job.
        job: JobId,
    },
    /// The nodes a resize left a job on, as the platform answered.
    Resized {
        /// The job.
        job: JobId,
        /// The platform's nodes it keeps.
        kept: Vec<String>,
    },
}

/// What a restart of a [`HybridExecutor`] needs beside the policy, configuration and
/// workload it ran: the platform's nodes, the platform ids, and every event in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HybridJournal {
    /// The platform's nodes, in its order.
    pub nodes: Vec<String>,
    /// The prefix of the platform names of submitted jobs (`PREFIX<job id>`).
    pub prefix: String,
    /// The wall clock of a time-scaled run, if the runner uses one.
    pub clock: Option<ScaledClock>,
    /// Each submitted job's platform id.
    pub ids: BTreeMap<JobId, String>,
    /// The events, in order.
    pub events: Vec<HybridEvent>,
}

/// Where the executor last sent a job: what a restart expects the platform to show.
#[derive(Debug, Clone)]
enum Expect {
    /// Running on these nodes until `end`.
    Run(Waiting),
    /// Requeued and held.
    Held,
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

/// Where an on-demand job started on the platform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OnDemandStart {
    /// The instant the platform took the start.
    pub at: Time,
    /// Wall time of the start call, Unix milliseconds.
    pub wall_unix_ms: i64,
    /// The platform's nodes.
    pub nodes: Vec<String>,
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
    journal: HybridJournal,
    state_file: Option<PathBuf>,
    /// While replaying a journal: nothing reaches the platform.
    replaying: bool,
    /// Where each job was last sent, for a restart's reconciliation.
    expect: BTreeMap<JobId, Expect>,
    /// Resizes replayed whose platform answer the journal lacks: (job, nodes before).
    unresized: Vec<(JobId, Vec<NodeId>)>,
    /// Each job's preemptions that requeue it on the platform (those of a job whose start
    /// never reached it left out): a restart compares them with the platform's count.
    requeues: BTreeMap<JobId, u32>,
    /// Ends found at a restart, told to the environment at the next step, with when they
    /// were, where the platform knows.
    ended_early: Vec<(JobId, Option<Time>)>,
    od_started: BTreeMap<JobId, OnDemandStart>,
    last: Option<Time>,
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
        let journal = HybridJournal {
            nodes: nodes.clone(),
            prefix: prefix.to_owned(),
            clock: None,
            ids: BTreeMap::new(),
            events: Vec::new(),
        };
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
            journal,
            state_file: None,
            replaying: false,
            expect: BTreeMap::new(),
            unresized: Vec::new(),
            requeues: BTreeMap::new(),
            ended_early: Vec::new(),
            od_started: BTreeMap::new(),
            last: None,
        })
    }

    /// The same executor journaling to `path`: the journal is saved (atomically) after each
    /// notice, arrival and step in which something happened, before the step's actions
    /// reach the platform; `clock` (if the runner uses one) is kept in it for a restart.
    pub fn with_state_file(
        self,
        path: PathBuf,
        clock: Option<ScaledClock>,
    ) -> Result<Self, HybridLiveError<P::Error>> {
        let mut exec = self.with_clock(clock);
        exec.state_file = Some(path);
        exec.save()?;
        Ok(exec)
    }

    /// The same executor on the wall clock `clock` of a time-scaled run (if the runner uses
    /// one): kept in the journal for a restart, and given to the platform
    /// ([`BatchPlatform::set_clock`]), whose ends then come in the run's seconds, so each
    /// job's record ends when its run did on the platform.
    pub fn with_clock(mut self, clock: Option<ScaledClock>) -> Self {
        self.journal.clock = clock;
        if let Some(clock) = clock {
            self.platform.set_clock(clock);
        }
        self
    }

    /// Resumes a run from its `journal` after a restart, with a fresh `policy` of the kind,
    /// the configuration and the workload it ran: the journal is replayed through the
    /// environment without touching the platform (a replay that decides otherwise is
    /// [`HybridLiveError::Diverged`]), then each job is put where the journal last sent it:
    /// a job to run that the platform holds is started (the crash fell between the save and
    /// the start), one to hold that runs is requeued, one to run that runs a run the
    /// platform should have requeued (preempted and started again in one step, the crash
    /// before the requeue: the platform's requeue count, [`HybridPlatform::requeues`], is
    /// below the journal's) is requeued and started again, one the platform ended while the
    /// executor was down ends at the next step, a resize without the platform's answer is
    /// made again. Submissions are idempotent by name, so no job starts twice and none is
    /// lost.
    pub fn resume(
        journal: HybridJournal,
        config: HybridConfig,
        policy: &'p mut P,
        jobs: &[HybridJob],
        platform: C,
        state_file: Option<PathBuf>,
    ) -> Result<Self, HybridLiveError<P::Error>> {
        let found = platform.nodes().map_err(platform_error)?;
        if found != journal.nodes {
            return Err(HybridLiveError::OtherJournalNodes {
                saved: journal.nodes,
                found,
            });
        }
        let mut exec =
            Self::new(config, policy, jobs, platform, &journal.prefix)?.with_clock(journal.clock);
        exec.replaying = true;
        exec.journal.ids = journal.ids.clone();
        for event in &journal.events {
            match event {
                HybridEvent::Notice { notice } => exec.notice(*notice)?,
                HybridEvent::Arrive { job } => exec.arrive(*job)?,
                HybridEvent::Step {
                    time,
                    ended,
                    end_times,
                    actions,
                } => {
                    exec.submit_due(*time)?;
                    exec.model
                        .step_ended_at(*time, &with_times(ended, end_times))?;
                    exec.last = Some(*time);
                    let replayed = exec.model.take_actions();
                    if &replayed != actions {
                        return Err(HybridLiveError::Diverged {
                            time: *time,
                            saved: actions.clone(),
                            replayed,
                        });
                    }
                    for id in ended {
                        exec.expect.remove(id);
                    }
                    exec.journal.events.push(event.clone());
                    for (decided, action) in replayed {
                        exec.apply(*time, decided, action)?;
                    }
                }
                HybridEvent::Unstarted { job } => {
                    if let Some(n) = exec.requeues.get_mut(job) {
                        *n = n.saturating_sub(1);
                    }
                    exec.journal.events.push(event.clone());
                }
                HybridEvent::Resized { job, kept } => {
                    if let Some(k) = exec.unresized.iter().position(|(j, _)| j == job) {
                        let (_, before) = exec.unresized.remove(k);
                        let after = exec.holding.get(job).cloned().unwrap_or_default();
                        exec.relabel(&before, &after, kept);
                    }
                    exec.journal.events.push(event.clone());
                }
            }
        }
        exec.replaying = false;
        exec.state_file = state_file;
        exec.reconcile()?;
        exec.save()?;
        Ok(exec)
    }

    /// After a replay: puts each job where the journal last sent it (see [`Self::resume`]).
    fn reconcile(&mut self) -> Result<(), HybridLiveError<P::Error>> {
        let now = self.last.unwrap_or(Time::ZERO);
        self.waiting.clear();
        let mut status = BTreeMap::new();
        for (job, expect) in &self.expect {
            let id = self.id(*job).to_owned();
            let mut found = self.platform.status(&id).map_err(platform_error)?;
            let decided = self.requeues.get(job).copied().unwrap_or(0);
            if matches!(expect, Expect::Run(_))
                && found == PlatformJob::Started
                && self.platform.requeues(&id).map_err(platform_error)? < decided
            {
                // Preempted and started again in one step, the crash before the requeue:
                // what runs is the old run, on nodes the environment gave to others.
                self.platform.requeue(&id).map_err(platform_error)?;
                found = PlatformJob::Held;
            }
            status.insert(*job, found);
        }
        for (job, before) in std::mem::take(&mut self.unresized) {
            let Some(Expect::Run(w)) = self.expect.get(&job).cloned() else {
                continue;
            };
            if status.get(&job) == Some(&PlatformJob::Started) {
                let id = self.id(job).to_owned();
                let kept = self
                    .platform
                    .resize(&id, &w.nodes, (w.end - now).max(Duration::ZERO))
                    .map_err(platform_error)?;
                let after = self.holding.get(&job).cloned().unwrap_or_default();
                self.relabel(&before, &after, &kept);
                self.journal.events.push(HybridEvent::Resized { job, kept });
            }
        }
        for (job, expect) in self.expect.clone() {
            let id = self.id(job).to_owned();
            let Some(&status) = status.get(&job) else {
                continue;
            };
            match (expect, status) {
                (Expect::Run(mut w), PlatformJob::Held) => {
                    // Named after the resizes' relabelling.
                    let nodes = match (&w.action, self.holding.get(&job)) {
                        (Action::Start { .. }, Some(held)) => held.clone(),
                        (Action::Start { nodes, .. } | Action::StartOnDemand { nodes, .. }, _) => {
                            nodes.clone()
                        }
                        _ => Vec::new(),
                    };
                    if !nodes.is_empty() {
                        w.nodes = self.names(&nodes);
                    }
                    self.waiting.push(w);
                }
                (Expect::Run(_), PlatformJob::Ended | PlatformJob::Unknown) => {
                    let at = self.platform.end_time(&id).map_err(platform_error)?;
                    self.ended_early.push((job, at));
                }
                (Expect::Held, PlatformJob::Started) => {
                    self.platform.requeue(&id).map_err(platform_error)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn save(&self) -> Result<(), HybridLiveError<P::Error>> {
        match (&self.state_file, self.replaying) {
            (Some(path), false) => {
                crate::service::save(path, &self.journal).map_err(|source| HybridLiveError::Save {
                    path: path.clone(),
                    source,
                })
            }
            _ => Ok(()),
        }
    }

    /// The journal so far.
    pub fn journal(&self) -> &HybridJournal {
        &self.journal
    }

    /// Checks that an event from outside at `at` comes after the last step and not before
    /// the run's start.
    fn check_after_last(
        &self,
        what: &'static str,
        at: Time,
    ) -> Result<(), HybridLiveError<P::Error>> {
        if at < self.earliest_event() {
            return Err(SimError::from(HybridError::from(ParamError::new(
                what,
                at.0,
                "must come after the last step, not before the run's start",
            )))
            .into());
        }
        Ok(())
    }

    /// The earliest instant an event from outside may have: after the last step, not
    /// before the run's start.
    pub fn earliest_event(&self) -> Time {
        self.last
            .map_or(self.model.start(), |t| t.saturating_add(Duration(1)))
    }

    /// Gives advance notice `notice` (at `notice.at`, after the last step) of an on-demand
    /// job to come by [`Self::arrive`]; the policy sees it at the step at or after its
    /// time.
    pub fn notice(&mut self, notice: Notice) -> Result<(), HybridLiveError<P::Error>> {
        self.check_after_last("notice at", notice.at)?;
        self.model.notice(notice)?;
        self.journal.events.push(HybridEvent::Notice { notice });
        self.save()
    }

    /// On-demand job `job`, not in the workload, arrives at `job.arrival` (after the last
    /// step; its id new): submitted held on the platform at once, decided on by the policy
    /// at the step at or after its arrival.
    pub fn arrive(&mut self, job: OnDemandJob) -> Result<(), HybridLiveError<P::Error>> {
        self.check_after_last("arrival", job.arrival)?;
        let spec = HybridJob::OnDemand(job);
        spec.validate()
            .map_err(|e| SimError::from(HybridError::from(e)))?;
        if self.ids.contains_key(&job.id) || self.jobs.iter().any(|j| j.id() == job.id) {
            return Err(SimError::from(HybridError::DuplicateJob(job.id)).into());
        }
        self.submit(&spec)?;
        self.model.arrive(job)?;
        self.journal.events.push(HybridEvent::Arrive { job });
        self.save()
    }

    /// Where on-demand job `job` is in the environment, if the run has it.
    pub fn on_demand(&self, job: JobId) -> Option<OnDemandStatus> {
        self.model.on_demand(job)
    }

    /// Where and when on-demand job `job` started on the platform, if it did.
    pub fn on_demand_start(&self, job: JobId) -> Option<&OnDemandStart> {
        self.od_started.get(&job)
    }

    /// Jobs waiting: batch jobs queued and on-demand jobs arrived and not started.
    pub fn queue_depth(&self) -> usize {
        self.model.queue_depth()
    }

    /// The platform's node count.
    pub fn node_count(&self) -> u32 {
        u32::try_from(self.nodes.len()).unwrap_or(u32::MAX)
    }

    /// Jobs running on the platform, as the executor sent them (starts still waiting for
    /// their nodes included).
    pub fn running_jobs(&self) -> usize {
        self.expect
            .values()
            .filter(|e| matches!(e, Expect::Run(_)))
            .count()
    }

    /// The time of the last step.
    pub fn last_step(&self) -> Option<Time> {
        self.last
    }

    /// Submits `job` held (its platform id from the journal if it has one).
    fn submit(&mut self, job: &HybridJob) -> Result<(), HybridLiveError<P::Error>> {
        let id = match self.journal.ids.get(&job.id()) {
            Some(id) => id.clone(),
            None => {
                let name = format!("{}{}", self.prefix, job.id().0);
                let id = self
                    .platform
                    .submit_held(&name, &held_job(job))
                    .map_err(platform_error)?;
                self.journal.ids.insert(job.id(), id.clone());
                id
            }
        };
        self.by_platform.insert(id.clone(), job.id());
        self.ids.insert(job.id(), id);
        Ok(())
    }

    /// Submits the workload's jobs due at `now`.
    fn submit_due(&mut self, now: Time) -> Result<(), HybridLiveError<P::Error>> {
        while let Some(job) = self
            .jobs
            .get(self.next)
            .filter(|j| j.submit() <= now)
            .copied()
        {
            self.submit(&job)?;
            self.next += 1;
        }
        Ok(())
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
        self.submit_due(now)?;
        let mut ended = std::mem::take(&mut self.ended_early);
        let reported: Vec<(JobId, Option<Time>)> = self
            .platform
            .ended_at()
            .map_err(platform_error)?
            .into_iter()
            .filter_map(|(id, at)| Some((*self.by_platform.get(&id)?, at)))
            .collect();
        for (job, at) in reported {
            if !ended.iter().any(|&(j, _)| j == job) {
                ended.push((job, at));
            }
        }
        self.model.step_ended_at(now, &ended)?;
        self.last = Some(now);
        for (job, _) in &ended {
            self.expect.remove(job);
        }
        let actions = self.model.take_actions();
        if !ended.is_empty() || !actions.is_empty() {
            let (end_times, ended) = split_ends(ended);
            self.journal.events.push(HybridEvent::Step {
                time: now,
                end_times,
                ended,
                actions: actions.clone(),
            });
            self.save()?;
        }
        for waiting in std::mem::take(&mut self.waiting) {
            self.start(now, waiting)?;
        }
        let resized_before = self.journal.events.len();
        for (decided, action) in actions {
            self.apply(now, decided, action)?;
        }
        if self.journal.events.len() > resized_before {
            self.save()?;
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
                self.expect.insert(job, Expect::Held);
                let waited = self.waiting.iter().position(|w| w.job == job);
                if let Some(k) = waited {
                    self.waiting.remove(k);
                }
                if waited.is_some() && !self.replaying {
                    // Never started on the platform: it only stops waiting, which the
                    // journal keeps before any later call (a replay's starts all wait).
                    self.journal.events.push(HybridEvent::Unstarted { job });
                    return self.save();
                }
                *self.requeues.entry(job).or_default() += 1;
                if waited.is_some() {
                    return Ok(());
                }
                if !self.replaying {
                    let id = self.id(job).to_owned();
                    self.platform.requeue(&id).map_err(platform_error)?;
                }
            }
            &Action::Resize {
                job,
                ref nodes,
                run,
            } => {
                let names = self.names(nodes);
                let end = decided.saturating_add(run);
                if let Some(Expect::Run(w)) = self.expect.get_mut(&job) {
                    (w.nodes, w.end) = (names.clone(), end);
                }
                if let Some(w) = self.waiting.iter_mut().find(|w| w.job == job) {
                    (w.nodes, w.end) = (names.clone(), end);
                    // Never started on the platform: it starts resized. (A replay's starts
                    // all wait until the platform is asked where each job is.)
                    if !self.replaying {
                        return Ok(());
                    }
                }
                let before = self.holding.insert(job, nodes.clone()).unwrap_or_default();
                if self.replaying {
                    self.unresized.push((job, before));
                } else {
                    let id = self.id(job).to_owned();
                    let kept = self
                        .platform
                        .resize(&id, &names, end - now)
                        .map_err(platform_error)?;
                    self.relabel(&before, nodes, &kept);
                    self.journal.events.push(HybridEvent::Resized { job, kept });
                }
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
        self.expect.insert(w.job, Expect::Run(w.clone()));
        if self.replaying {
            // Where the platform has it is asked once the replay is done.
            self.waiting.push(w);
            return Ok(());
        }
        if self
            .platform
            .start_for(&id, &w.nodes, run)
            .map_err(platform_error)?
        {
            let wall_unix_ms = unix_ms();
            if let Action::StartOnDemand { job, .. } = w.action {
                self.od_started.insert(
                    job,
                    OnDemandStart {
                        at: now,
                        wall_unix_ms,
                        nodes: w.nodes.clone(),
                    },
                );
            }
            self.applied.push(Applied {
                decided: w.decided,
                applied: now,
                wall_unix_ms,
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
        if self.journal.clock.is_none() {
            self.journal.clock = Some(clock);
            self.platform.set_clock(clock);
        }
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

/// The jobs of `ended`, each with its time from `end_times` where it has one.
fn with_times(ended: &[JobId], end_times: &[(JobId, Time)]) -> Vec<(JobId, Option<Time>)> {
    ended
        .iter()
        .map(|&job| {
            let at = end_times.iter().find(|&&(j, _)| j == job);
            (job, at.map(|&(_, t)| t))
        })
        .collect()
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
