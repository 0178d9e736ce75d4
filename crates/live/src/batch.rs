//! The batch protocol live: any batch policy as a real cluster's scheduler.
//!
//! [`BatchExecutor`] drives any policy of the batch protocol ([`BatchPolicy`]: the whole
//! catalogue of `cosched simulate --policy`, or a policy of one's own crate) over a
//! [`BatchPlatform`], a resource manager whose own scheduler leaves the jobs alone: Slurm with
//! its jobs submitted held ([`SlurmBatch`]), or [`MemoryBatch`] in memory. The policy sees
//! exactly what [`cosched_batch::BatchSim`] shows it: a [`BatchCluster`] of the platform's
//! nodes as its view, and at each instant with an event, the ends first, then the arrivals,
//! then its due wakes and one [`SchedulingPass`]. A start command becomes a start on the
//! platform, on the nodes the cluster assigned (on Slurm: `scontrol update JobId=…
//! ReqNodeList=…`, then `scontrol release`); a job's end comes from the platform (on Slurm,
//! the epilog's log).
//!
//! Time is the caller's: each [`BatchExecutor::step`] names its instant, in the workload's
//! seconds ([`ScaledClock`] maps the wall clock onto them for a time-scaled run).
//!
//! **Restarts.** Every instant is appended to a [`Journal`], and the journal is written to the
//! state file (atomically) *before* the instant's starts reach the platform. A restarted
//! executor ([`BatchExecutor::resume`]) replays the journal through a fresh policy (checking
//! that it decides as it did), then asks the platform where each job is: a job the journal
//! started that the platform still holds is started now (the crash fell between the save and
//! the start); one the platform shows ended while the executor was down is told to the policy
//! at the first step. A job is started on the platform only while the platform holds it, so no
//! job starts twice and none is lost. Submissions are idempotent by name
//! ([`BatchPlatform::submit_held`]).
//!
//! **What the records say.** A job's record ends when the platform says it ended
//! ([`BatchPlatform::ended_at`], [`BatchPlatform::end_time`]: on Slurm, the epilog's line),
//! not when the executor learnt of it, so node-seconds after a late poll or a restart are the
//! job's own. **Outside changes** ([`BatchPlatform::outside`]) are read at every step: a held
//! job its user cancelled leaves the queue (recorded unstarted) and a node drained or down
//! leaves the policy's view until it is back; both are journaled and replayed.
//!
//! ```
//! use cosched_batch::{BatchJob, scenario};
//! use cosched_core::{Duration, JobId, RigidJob, Time};
//! use cosched_live::{BatchExecutor, MemoryBatch};
//! let job = |id, size, run| {
//!     BatchJob::rigid(&RigidJob::new(JobId(id), Time(0), size, Duration(run), Duration(run)).unwrap())
//! };
//! let nodes = MemoryBatch::new(4);
//! let mut exec = BatchExecutor::start(Time(0), scenario::easy(), nodes.clone(), "job-", None)?;
//! exec.submit(job(1, 3, 100))?;
//! exec.submit(job(2, 2, 10))?;
//! assert_eq!(exec.step(Time(0))?, 1, "job 2 waits for job 1's nodes");
//! nodes.advance(Time(100));
//! assert_eq!(exec.step(Time(100))?, 1);
//! assert_eq!(exec.records()[0].end, Some(Time(100)));
//! # Ok::<(), cosched_live::BatchLiveError>(())
//! ```

use std::collections::{BTreeMap, HashMap};
use std::error::Error as StdError;
use std::path::PathBuf;

use cosched_batch::{
    BatchCluster, BatchCommand, BatchError, BatchJob, BatchPolicy, RunToken, SchedulingPass,
    Started, Submitted,
};
use cosched_core::driver::{CallError, Driver, Executor};
use cosched_core::{JobId, JobRecord, Time};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Where a job is on the platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlatformJob {
    /// Submitted and held: it starts only when the executor starts it.
    Held,
    /// Started by the executor (waiting for its nodes, or running).
    Started,
    /// Ended (or cancelled).
    Ended,
    /// The platform does not know it (any more).
    Unknown,
}

/// A resource manager whose jobs wait until the executor starts them.
pub trait BatchPlatform {
    /// The platform's error.
    type Error: StdError + Send + Sync + 'static;

    /// Its nodes' names, in a fixed order: the executor's node `i` is the `i`-th.
    fn nodes(&self) -> Result<Vec<String>, Self::Error>;

    /// Submits `job` held under `name`, or, if a held job of that name exists (a submission
    /// before a restart), returns that one: its platform id.
    fn submit_held(&mut self, name: &str, job: &BatchJob) -> Result<String, Self::Error>;

    /// Starts the held job `id` on `nodes`.
    fn start(&mut self, id: &str, nodes: &[String]) -> Result<(), Self::Error>;

    /// The ids of the jobs whose end was reported since the last call.
    fn ended(&mut self) -> Result<Vec<String>, Self::Error>;

    /// Where job `id` is now.
    fn status(&self, id: &str) -> Result<PlatformJob, Self::Error>;

    /// The jobs whose end was reported since the last call, each with when it ended in the
    /// executor's time where the platform knows it (the default: [`BatchPlatform::ended`],
    /// times unknown). The executor tells the policy of an end at the instant it learns of
    /// it, and records the job as ended when it did.
    fn ended_at(&mut self) -> Result<Vec<(String, Option<Time>)>, Self::Error> {
        Ok(self.ended()?.into_iter().map(|id| (id, None)).collect())
    }

    /// When job `id`, which has ended, ended, if the platform knows (the default: unknown).
    fn end_time(&self, _id: &str) -> Result<Option<Time>, Self::Error> {
        Ok(None)
    }

    /// The wall clock of a time-scaled run, to give times in its seconds (the default
    /// ignores it).
    fn set_clock(&mut self, _clock: ScaledClock) {}

    /// What changed beside the executor, read at every step: which of the `held` jobs the
    /// platform no longer holds (cancelled by their users), and which nodes are out of
    /// service now (drained, draining, down). The default: nothing changes.
    fn outside(&mut self, _held: &[String]) -> Result<Outside, Self::Error> {
        Ok(Outside::default())
    }
}

/// What [`BatchPlatform::outside`] reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outside {
    /// Held jobs the platform no longer holds, by platform id.
    pub withdrawn: Vec<String>,
    /// Nodes out of service, by name.
    pub unavailable: Vec<String>,
}

/// Why the live batch executor stopped or refused a call.
#[derive(Debug, Error)]
pub enum BatchLiveError {
    /// The policy failed (or never quieted): the call and its time, with the policy's error.
    #[error("policy: {0}")]
    Policy(#[from] CallError<BatchError>),
    /// The cluster refused a command or a job (a repeated id, a start that does not fit).
    #[error("batch cluster: {0}")]
    Batch(#[from] BatchError),
    /// The platform failed (its own error, boxed: downcast to read it).
    #[error("platform: {0}")]
    Platform(#[source] Box<dyn StdError + Send + Sync>),
    /// A step's time before the last instant's.
    #[error("time {now} is before the last instant, {last}")]
    TimeBackwards {
        /// The step's time.
        now: Time,
        /// The last instant.
        last: Time,
    },
    /// The platform's nodes are not those of the journal.
    #[error(
        "the platform's nodes {found:?} are not the journal's {saved:?}; remove the state file to start afresh"
    )]
    OtherNodes {
        /// The journal's.
        saved: Vec<String>,
        /// The platform's.
        found: Vec<String>,
    },
    /// Replaying the journal, the policy decided otherwise than it did (another policy, or
    /// one whose decisions are not a function of what it observed).
    #[error(
        "replaying the journal at {time}, the policy started {replayed:?} where the journal has {saved:?}"
    )]
    Diverged {
        /// The instant.
        time: Time,
        /// What the journal holds.
        saved: Vec<(JobId, Vec<String>)>,
        /// What the replay decided.
        replayed: Vec<(JobId, Vec<String>)>,
    },
    /// The state file could not be written.
    #[error("cannot write the state file `{path}`: {source}")]
    Save {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl BatchLiveError {
    fn platform(e: impl StdError + Send + Sync + 'static) -> Self {
        BatchLiveError::Platform(Box::new(e))
    }
}

impl From<std::convert::Infallible> for BatchLiveError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}

/// A job that arrived at an instant, as the journal keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arrived {
    /// The job (its id is the executor's).
    pub job: BatchJob,
    /// Its id on the platform (empty for a job larger than the cluster, rejected unsubmitted).
    pub platform_id: String,
}

/// One instant of a run: what the executor told the policy and what the policy started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalInstant {
    /// Its time.
    pub time: Time,
    /// Jobs ended, in the order they were applied.
    pub ended: Vec<JobId>,
    /// Jobs arrived, in the order they were submitted.
    pub arrived: Vec<Arrived>,
    /// Jobs the policy started, with their nodes.
    pub started: Vec<(JobId, Vec<String>)>,
    /// When the jobs of `ended` ended, where the platform reported it (earlier than `time`
    /// for an end learnt late: after a restart, or at a slow poll).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub end_times: Vec<(JobId, Time)>,
    /// Held jobs withdrawn (cancelled on the platform), in order, before the arrivals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub withdrawn: Vec<JobId>,
    /// Nodes taken out of service, then nodes back in it, before the arrivals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offline: Vec<String>,
    /// Nodes back in service.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub online: Vec<String>,
}

/// The wall clock of a time-scaled run: workload second `t` is wall time
/// `origin + t / scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScaledClock {
    /// Wall time of workload second 0, Unix milliseconds.
    pub origin_unix_ms: i64,
    /// Workload seconds per wall second (at least 1).
    pub scale: u32,
}

impl ScaledClock {
    /// A clock whose workload second `start` is the wall clock's now.
    pub fn starting_now(start: Time, scale: u32) -> ScaledClock {
        let scale = scale.max(1);
        let now_ms = unix_ms();
        ScaledClock {
            origin_unix_ms: now_ms
                .saturating_sub(start.secs().saturating_mul(1000) / i64::from(scale)),
            scale,
        }
    }

    /// The workload second of wall time `unix_ms`.
    pub fn at(&self, unix_ms: i64) -> Time {
        let elapsed = unix_ms.saturating_sub(self.origin_unix_ms);
        Time(elapsed.saturating_mul(i64::from(self.scale)) / 1000)
    }

    /// The workload second now.
    pub fn now(&self) -> Time {
        self.at(unix_ms())
    }

    /// The wall duration of `secs` workload seconds.
    pub fn wall(&self, secs: i64) -> std::time::Duration {
        std::time::Duration::from_millis(
            u64::try_from(secs.max(0).saturating_mul(1000) / i64::from(self.scale.max(1)))
                .unwrap_or(0),
        )
    }
}

pub(crate) fn unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Ended jobs as a journal keeps them: the platform's end times where known, and every
/// ended job in the order the platform reported them.
pub(crate) fn split_ends(ended: Vec<(JobId, Option<Time>)>) -> (Vec<(JobId, Time)>, Vec<JobId>) {
    let times = ended
        .iter()
        .filter_map(|&(job, at)| Some((job, at?)))
        .collect();
    (times, ended.into_iter().map(|(job, _)| job).collect())
}

/// What a restart needs: the platform's nodes, the instants so far, and the clock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    /// The nodes, in the platform's order.
    pub nodes: Vec<String>,
    /// When the policy was started.
    pub start: Time,
    /// The prefix of the platform names of submitted jobs (`PREFIX<job id>`).
    pub prefix: String,
    /// The wall clock of a time-scaled run, if the runner uses one.
    pub clock: Option<ScaledClock>,
    /// The instants, in order.
    pub instants: Vec<JournalInstant>,
}

/// The executor's record of one job.
#[derive(Debug, Clone)]
struct LiveJob {
    platform_id: String,
}

/// Waiting to be told to the policy at the next step.
enum Pending {
    Submit(BatchJob),
    Adopt(BatchJob, String),
}

/// The executor; see the [module docs](self).
pub struct BatchExecutor<P: BatchPolicy, C: BatchPlatform> {
    driver: Driver<P>,
    live: LiveBatch<C>,
}

/// Everything but the policy: the executor of the protocol ([`Executor`]).
struct LiveBatch<C> {
    platform: C,
    cluster: BatchCluster,
    journal: Journal,
    state_file: Option<PathBuf>,
    jobs: BTreeMap<JobId, LiveJob>,
    by_platform: HashMap<String, JobId>,
    tokens: HashMap<JobId, RunToken>,
    started: Vec<Started>,
    /// Starts of this instant, for the journal and the platform.
    starting: Vec<(JobId, Vec<String>)>,
    /// Starts journaled but not yet applied on the platform (retried each step).
    unreleased: Vec<(JobId, Vec<String>)>,
    /// Ends seen but not yet told to the policy (at a restart), with their times if known.
    ended_early: Vec<(JobId, Option<Time>)>,
    /// Nodes out of service in the policy's view.
    offline: std::collections::BTreeSet<String>,
    pending: Vec<Pending>,
    records: Vec<JobRecord>,
    /// True while replaying: commands change the cluster only.
    replaying: bool,
}

impl<P, C> BatchExecutor<P, C>
where
    P: BatchPolicy,
    C: BatchPlatform,
{
    /// Starts `policy` at `now` over `platform`'s nodes ([`Policy::start`] with an empty
    /// cluster as its view), with submitted jobs named `prefix<job id>`; with a state file,
    /// the journal is saved there after every instant.
    ///
    /// [`Policy::start`]: cosched_core::policy::Policy::start
    pub fn start(
        now: Time,
        policy: P,
        platform: C,
        prefix: &str,
        state_file: Option<PathBuf>,
    ) -> Result<Self, BatchLiveError> {
        let nodes = platform.nodes().map_err(BatchLiveError::platform)?;
        let journal = Journal {
            nodes,
            start: now,
            prefix: prefix.to_owned(),
            clock: None,
            instants: Vec::new(),
        };
        let mut exec = Self::assemble(policy, platform, journal.clone(), state_file)?;
        exec.live.journal = journal;
        exec.driver.start(now, &mut exec.live, &mut ())?;
        exec.live.save()?;
        Ok(exec)
    }

    /// Resumes from `journal` after a restart with a fresh `policy` of the same kind (see the
    /// [module docs](self)): the journal is replayed, then the platform is asked where each
    /// job is.
    pub fn resume(
        journal: Journal,
        policy: P,
        platform: C,
        state_file: Option<PathBuf>,
    ) -> Result<Self, BatchLiveError> {
        let found = platform.nodes().map_err(BatchLiveError::platform)?;
        if found != journal.nodes {
            return Err(BatchLiveError::OtherNodes {
                saved: journal.nodes,
                found,
            });
        }
        let mut exec = Self::assemble(policy, platform, journal.clone(), state_file)?;
        exec.live.replaying = true;
        exec.driver.start(journal.start, &mut exec.live, &mut ())?;
        if let Some(clock) = journal.clock {
            exec.live.platform.set_clock(clock);
        }
        for instant in &journal.instants {
            let ended: Vec<(JobId, Option<Time>)> = instant
                .ended
                .iter()
                .map(|&job| {
                    let at = instant.end_times.iter().find(|(j, _)| *j == job);
                    (job, at.map(|&(_, t)| t))
                })
                .collect();
            exec.live.apply_ends(instant.time, &ended);
            exec.live.withdraw(&instant.withdrawn)?;
            exec.live.set_service(&instant.offline, &instant.online)?;
            for a in &instant.arrived {
                exec.live.arrive(a.job, a.platform_id.clone())?;
            }
            exec.pass(instant.time)?;
            let replayed = std::mem::take(&mut exec.live.starting);
            if replayed != instant.started {
                return Err(BatchLiveError::Diverged {
                    time: instant.time,
                    saved: instant.started.clone(),
                    replayed,
                });
            }
        }
        exec.live.replaying = false;
        exec.live.journal = journal;
        exec.live.reconcile()?;
        Ok(exec)
    }

    fn assemble(
        policy: P,
        platform: C,
        journal: Journal,
        state_file: Option<PathBuf>,
    ) -> Result<Self, BatchLiveError> {
        let capacity = u32::try_from(journal.nodes.len()).unwrap_or(u32::MAX);
        let cluster = BatchCluster::new(capacity)?;
        Ok(BatchExecutor {
            driver: Driver::new(policy),
            live: LiveBatch {
                platform,
                cluster,
                journal: Journal {
                    instants: Vec::new(),
                    ..journal
                },
                state_file,
                jobs: BTreeMap::new(),
                by_platform: HashMap::new(),
                tokens: HashMap::new(),
                started: Vec::new(),
                starting: Vec::new(),
                unreleased: Vec::new(),
                ended_early: Vec::new(),
                offline: std::collections::BTreeSet::new(),
                pending: Vec::new(),
                records: Vec::new(),
                replaying: false,
            },
        })
    }

    /// Queues `job` to be submitted (held) and told to the policy at the next step; a job id
    /// already known is refused.
    pub fn submit(&mut self, job: BatchJob) -> Result<(), BatchLiveError> {
        self.check_new(job.id)?;
        self.live.pending.push(Pending::Submit(job));
        Ok(())
    }

    /// Queues `job`, already held on the platform as `platform_id`, to be told to the policy
    /// at the next step (a job an operator submitted held).
    pub fn adopt(&mut self, job: BatchJob, platform_id: String) -> Result<(), BatchLiveError> {
        self.check_new(job.id)?;
        self.live.pending.push(Pending::Adopt(job, platform_id));
        Ok(())
    }

    fn check_new(&self, id: JobId) -> Result<(), BatchLiveError> {
        let pending = self.live.pending.iter().any(|p| match p {
            Pending::Submit(j) | Pending::Adopt(j, _) => j.id == id,
        });
        if pending || self.live.jobs.contains_key(&id) {
            return Err(BatchError::DuplicateJob(id).into());
        }
        Ok(())
    }

    /// Whether the executor knows job `job` (queued for the next step, or arrived).
    pub fn has_job(&self, job: JobId) -> bool {
        self.live.jobs.contains_key(&job)
            || self.live.pending.iter().any(|p| match p {
                Pending::Submit(j) | Pending::Adopt(j, _) => j.id == job,
            })
    }

    /// Whether the platform job `platform_id` is one of the executor's.
    pub fn knows(&self, platform_id: &str) -> bool {
        self.live.by_platform.contains_key(platform_id)
            || self
                .live
                .pending
                .iter()
                .any(|p| matches!(p, Pending::Adopt(_, id) if id == platform_id))
    }

    /// One instant at `now`: the ends the platform reports, then the jobs submitted or adopted
    /// since the last step, then — if any of these happened or the policy's wake is due — the
    /// policy's due wakes and one scheduling pass, the instant journaled (and saved), and its
    /// starts applied on the platform. Returns the number of jobs started.
    pub fn step(&mut self, now: Time) -> Result<usize, BatchLiveError> {
        let last = self.last_instant();
        if now < last {
            return Err(BatchLiveError::TimeBackwards { now, last });
        }
        self.live.retry_unreleased()?;
        // Ends and arrivals are kept until the instant is journaled: a platform failure on
        // the way loses none of them (the step can be retried).
        for (id, at) in self
            .live
            .platform
            .ended_at()
            .map_err(BatchLiveError::platform)?
        {
            if let Some(&job) = self.live.by_platform.get(&id)
                && self.live.tokens.contains_key(&job)
                && !self.live.ended_early.iter().any(|(j, _)| *j == job)
            {
                self.live.ended_early.push((job, at));
            }
        }
        // Levels, not events: read again at every step, so a failed step loses none.
        let (withdrawn, offline, online) = self.live.outside()?;
        let wake_due = self.driver.next_wake().is_some_and(|t| t <= now);
        let quiet = withdrawn.is_empty() && offline.is_empty() && online.is_empty();
        if self.live.ended_early.is_empty() && self.live.pending.is_empty() && quiet && !wake_due {
            return Ok(0);
        }
        let capacity = self.live.cluster.capacity();
        for p in &mut self.live.pending {
            // Larger than the cluster: rejected as the simulator rejects it, never submitted
            // (it would wait held for ever).
            if let Pending::Submit(job) = *p {
                let id = if job.size > capacity {
                    String::new()
                } else {
                    let name = format!("{}{}", self.live.journal.prefix, job.id.0);
                    self.live
                        .platform
                        .submit_held(&name, &job)
                        .map_err(BatchLiveError::platform)?
                };
                *p = Pending::Adopt(job, id);
            }
        }
        let ended = std::mem::take(&mut self.live.ended_early);
        self.live.apply_ends(now, &ended);
        self.live.withdraw(&withdrawn)?;
        self.live.set_service(&offline, &online)?;
        let mut arrived = Vec::with_capacity(self.live.pending.len());
        for p in std::mem::take(&mut self.live.pending) {
            if let Pending::Adopt(job, platform_id) = p {
                self.live.arrive(job, platform_id.clone())?;
                arrived.push(Arrived { job, platform_id });
            }
        }
        self.pass(now)?;
        let started = std::mem::take(&mut self.live.starting);
        let count = started.len();
        let (end_times, ended) = split_ends(ended);
        self.live.journal.instants.push(JournalInstant {
            time: now,
            end_times,
            ended,
            arrived,
            started: started.clone(),
            withdrawn,
            offline,
            online,
        });
        self.live.save()?;
        self.live.unreleased.extend(started);
        self.live.retry_unreleased()?;
        Ok(count)
    }

    /// The policy's due wakes and one scheduling pass at `now`.
    fn pass(&mut self, now: Time) -> Result<(), BatchLiveError> {
        self.driver.wake_due(now, &mut self.live, &mut ())?;
        self.driver
            .observe(now, &SchedulingPass, &mut self.live, &mut ())?;
        Ok(())
    }

    fn last_instant(&self) -> Time {
        self.live
            .journal
            .instants
            .last()
            .map_or(self.live.journal.start, |i| i.time)
    }

    /// The policy's next wake time: the runner steps then at the latest.
    pub fn next_wake(&self) -> Option<Time> {
        self.driver.next_wake()
    }

    /// Whether nothing is pending, queued or running (and every start reached the platform).
    pub fn is_idle(&self) -> bool {
        self.live.pending.is_empty()
            && self.live.cluster.queue_len() == 0
            && self.live.cluster.running_jobs() == 0
            && self.live.unreleased.is_empty()
            && self.live.ended_early.is_empty()
    }

    /// The records of the jobs ended so far (start = when the policy started it), then none of
    /// the running or waiting ones.
    pub fn records(&self) -> &[JobRecord] {
        &self.live.records
    }

    /// The journal so far.
    pub fn journal(&self) -> &Journal {
        &self.live.journal
    }

    /// Sets the clock the journal keeps for a restarted runner (saved at once), and tells
    /// the platform ([`BatchPlatform::set_clock`]).
    pub fn set_clock(&mut self, clock: ScaledClock) -> Result<(), BatchLiveError> {
        self.live.journal.clock = Some(clock);
        self.live.platform.set_clock(clock);
        self.live.save()
    }

    /// The view the policy is lent.
    pub fn cluster(&self) -> &BatchCluster {
        &self.live.cluster
    }

    /// The platform.
    pub fn platform(&self) -> &C {
        &self.live.platform
    }

    /// The policy.
    pub fn policy(&self) -> &P {
        self.driver.policy()
    }

    /// The platform id of job `job`, if the executor knows it.
    pub fn platform_id(&self, job: JobId) -> Option<&str> {
        self.live.jobs.get(&job).map(|j| j.platform_id.as_str())
    }
}

impl<C: BatchPlatform> LiveBatch<C> {
    /// Tells the cluster of `ended` at `now`; each job's record ends when it ended, where
    /// known (within its start and `now`).
    fn apply_ends(&mut self, now: Time, ended: &[(JobId, Option<Time>)]) {
        for &(job, at) in ended {
            if let Some(token) = self.tokens.remove(&job) {
                self.records
                    .extend(self.cluster.complete(now, token).map(|mut record| {
                        if let (Some(at), Some(start)) = (at, record.start) {
                            record.end = Some(at.clamp(start, now));
                        }
                        record
                    }));
            }
        }
    }

    /// The held jobs the platform withdrew, and the nodes whose service changed, since the
    /// policy's view was last told.
    #[allow(clippy::type_complexity)]
    fn outside(&mut self) -> Result<(Vec<JobId>, Vec<String>, Vec<String>), BatchLiveError> {
        let held: Vec<String> = self
            .cluster
            .queue()
            .map(|q| q.job.id)
            .filter_map(|job| self.jobs.get(&job))
            .map(|j| j.platform_id.clone())
            .filter(|id| !id.is_empty())
            .collect();
        let outside = self
            .platform
            .outside(&held)
            .map_err(BatchLiveError::platform)?;
        let withdrawn = outside
            .withdrawn
            .iter()
            .filter(|id| held.contains(id))
            .filter_map(|id| self.by_platform.get(id).copied())
            .collect();
        let unavailable: std::collections::BTreeSet<String> = outside
            .unavailable
            .into_iter()
            .filter(|n| self.journal.nodes.contains(n))
            .collect();
        let offline = unavailable.difference(&self.offline).cloned().collect();
        let online = self.offline.difference(&unavailable).cloned().collect();
        Ok((withdrawn, offline, online))
    }

    /// Takes the withdrawn jobs out of the queue (each recorded unstarted).
    fn withdraw(&mut self, withdrawn: &[JobId]) -> Result<(), BatchLiveError> {
        for &job in withdrawn {
            let queued = self.cluster.cancel(job)?;
            self.records.push(queued.job.unstarted_record());
        }
        Ok(())
    }

    /// Takes `offline` out of the policy's view (a busy node when its job ends) and gives
    /// `online` back.
    fn set_service(&mut self, offline: &[String], online: &[String]) -> Result<(), BatchLiveError> {
        let index = |nodes: &[String], name: &String| {
            nodes
                .iter()
                .position(|n| n == name)
                .map(|i| cosched_core::NodeId(u32::try_from(i).unwrap_or(u32::MAX)))
        };
        for name in offline {
            if let Some(node) = index(&self.journal.nodes, name) {
                self.cluster.set_offline(node)?;
                self.offline.insert(name.clone());
            }
        }
        for name in online {
            if let Some(node) = index(&self.journal.nodes, name) {
                self.cluster.set_online(node)?;
                self.offline.remove(name);
            }
        }
        Ok(())
    }

    fn arrive(&mut self, job: BatchJob, platform_id: String) -> Result<(), BatchLiveError> {
        if !platform_id.is_empty() {
            self.by_platform.insert(platform_id.clone(), job.id);
        }
        self.jobs.insert(job.id, LiveJob { platform_id });
        if self.cluster.submit(job)? == Submitted::Rejected {
            self.records.push(job.unstarted_record());
        }
        Ok(())
    }

    /// Applies the journaled starts the platform has not taken yet.
    fn retry_unreleased(&mut self) -> Result<(), BatchLiveError> {
        while let Some((job, nodes)) = self.unreleased.first() {
            let id = &self.jobs[job].platform_id;
            self.platform
                .start(id, nodes)
                .map_err(BatchLiveError::platform)?;
            self.unreleased.remove(0);
        }
        Ok(())
    }

    /// After a replay: where the platform has each job the cluster runs or queues.
    fn reconcile(&mut self) -> Result<(), BatchLiveError> {
        let running: Vec<JobId> = self.tokens.keys().copied().collect();
        let mut running = running;
        running.sort_unstable();
        for job in running {
            let id = &self.jobs[&job].platform_id;
            match self.platform.status(id).map_err(BatchLiveError::platform)? {
                PlatformJob::Held => {
                    let nodes = self
                        .cluster
                        .job_nodes(job)?
                        .iter()
                        .map(|n| self.journal.nodes[n.index()].clone())
                        .collect();
                    self.unreleased.push((job, nodes));
                }
                PlatformJob::Started => {}
                PlatformJob::Ended | PlatformJob::Unknown => {
                    let at = self
                        .platform
                        .end_time(id)
                        .map_err(BatchLiveError::platform)?;
                    self.ended_early.push((job, at));
                }
            }
        }
        self.retry_unreleased()
    }

    fn save(&self) -> Result<(), BatchLiveError> {
        match &self.state_file {
            Some(path) => {
                crate::service::save(path, &self.journal).map_err(|source| BatchLiveError::Save {
                    path: path.clone(),
                    source,
                })
            }
            None => Ok(()),
        }
    }
}

impl<P: BatchPolicy, C: BatchPlatform> Executor<P> for LiveBatch<C> {
    type Context = ();
    type Error = BatchLiveError;

    fn view(&mut self, _now: Time) -> &BatchCluster {
        &self.cluster
    }

    fn apply(
        &mut self,
        _: &mut Driver<P>,
        _: &mut (),
        now: Time,
        commands: &[BatchCommand],
    ) -> Result<(), BatchLiveError> {
        let result = self.cluster.apply(now, commands, &mut self.started);
        for s in self.started.drain(..) {
            let nodes = self
                .cluster
                .job_nodes(s.token.job)?
                .iter()
                .map(|n| self.journal.nodes[n.index()].clone())
                .collect();
            self.tokens.insert(s.token.job, s.token);
            self.starting.push((s.token.job, nodes));
        }
        Ok(result?)
    }
}

/// How a paced run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paced {
    /// Every job arrived and ended.
    Done,
    /// `stop` asked to stop at this instant.
    Stopped(Time),
}

/// Runs `exec` on the wall clock `clock`: every `poll`, submits the jobs of `workload` (in
/// (submit, id) order) whose submit time has come and that the executor does not know yet (a
/// resumed run skips those its journal holds), calls `more` (for jobs of another source,
/// such as held jobs to adopt; it returns whether more may come), and steps at the clock's
/// now. Ends when every job arrived and ended and `more` expects none, or when `stop` says so
/// (after a step).
pub fn run_paced<P, C>(
    exec: &mut BatchExecutor<P, C>,
    workload: &[BatchJob],
    clock: ScaledClock,
    poll: std::time::Duration,
    mut more: impl FnMut(Time, &mut BatchExecutor<P, C>) -> Result<bool, BatchLiveError>,
    mut stop: impl FnMut(Time, &BatchExecutor<P, C>) -> bool,
) -> Result<Paced, BatchLiveError>
where
    P: BatchPolicy,
    C: BatchPlatform,
{
    let mut next = 0;
    loop {
        let now = clock.now().max(exec.last_instant());
        while let Some(job) = workload.get(next).filter(|j| j.submit <= now) {
            if !exec.has_job(job.id) {
                exec.submit(*job)?;
            }
            next += 1;
        }
        let expecting = more(now, exec)?;
        exec.step(now)?;
        if stop(now, exec) {
            return Ok(Paced::Stopped(now));
        }
        if next == workload.len() && !expecting && exec.is_idle() {
            return Ok(Paced::Done);
        }
        std::thread::sleep(poll);
    }
}

/// Tells a job's own end from the end of a run a requeue stopped, from what outlives the
/// executor: each requeue ends a run, and its log line (Slurm's epilog runs for it too)
/// comes before the job's own end, so the `k`-th logged end of a job the platform has
/// requeued `r` times is a requeue's for `k <= r` and the job's own for `k > r`. The counts
/// start from the ends the log held before the reader's place ([`RunEnds::new`]), so a
/// restarted executor knows them whenever the crash fell: before the requeue reached the
/// platform, before its line was logged, or before the job was started again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RunEnds(HashMap<String, u32>);

impl RunEnds {
    /// Counting from `logged`: each job's ends logged before the reader's place.
    pub(crate) fn new(logged: HashMap<String, u32>) -> RunEnds {
        RunEnds(logged)
    }

    /// One more logged end of job `id`, which the platform has requeued `requeues` times:
    /// whether it is the job's own end.
    pub(crate) fn is_job_end(&mut self, id: &str, requeues: u32) -> bool {
        let logged = self.0.entry(id.to_owned()).or_insert(0);
        *logged = logged.saturating_add(1);
        *logged > requeues
    }
}

pub use memory_batch::{MemoryBatch, MemoryBatchError};
pub use slurm_batch::SlurmBatch;

mod memory_batch {
    //! The test double: a held-job resource manager in memory.

    use std::sync::{Arc, Mutex, MutexGuard};

    use super::{BatchJob, BatchPlatform, Outside, PlatformJob, RunEnds, Time};
    use thiserror::Error;

    /// A [`MemoryBatch`] call refused.
    #[derive(Debug, Error, PartialEq, Eq)]
    pub enum MemoryBatchError {
        /// No such job.
        #[error("no job `{0}`")]
        UnknownJob(String),
        /// The job is not held.
        #[error("job `{0}` is not held")]
        NotHeld(String),
        /// The job does not run.
        #[error("job `{0}` does not run")]
        NotRunning(String),
        /// A node that runs another job, or that does not exist.
        #[error("node `{0}` is busy or unknown")]
        NodeBusy(String),
        /// The double was told to fail.
        #[error("the resource manager is failing")]
        Failing,
    }

    #[derive(Debug, Clone, PartialEq, Eq)]
    enum State {
        Held,
        Running { end: Time, nodes: Vec<String> },
        Ended(Time),
    }

    #[derive(Debug)]
    struct Job {
        name: String,
        runtime: i64,
        state: State,
        starts: u32,
        requeues: u32,
    }

    #[derive(Debug, Default)]
    struct Inner {
        nodes: Vec<String>,
        jobs: Vec<Job>,
        now: Time,
        /// Every run's end, as an epilog logs it: the job's id and when.
        log: Vec<(String, Time)>,
        /// The executor's reader: how much of the log it has read, and the runs' ends it
        /// counted.
        read: usize,
        runs: RunEnds,
        /// The ends of runs requeues stopped, logged at the next [`MemoryBatch::advance`]
        /// (Slurm's epilog logs them after the requeue call returns).
        epilog: Vec<(String, Time)>,
        /// Job calls (start, requeue, resize) left before every later one fails.
        calls_left: Option<u32>,
        /// Nodes out of service (drained).
        unavailable: Vec<String>,
        failing_starts: bool,
        failing_submits: bool,
        keeps_first: bool,
    }

    /// Nodes and held jobs in memory: a started job runs for its run time from the instant it
    /// is started (time moves by [`MemoryBatch::advance`]); two jobs on one node are refused.
    /// As on Slurm, every run's end is logged, those of the runs a requeue stopped included
    /// (at the next advance, as an epilog logs them after the call), and the executor's reader
    /// tells them apart by the job's requeue count. Clones share the state, so a test keeps
    /// one while the executor owns another.
    #[derive(Debug, Clone, Default)]
    pub struct MemoryBatch(Arc<Mutex<Inner>>);

    impl MemoryBatch {
        /// `n` idle nodes `n1`…`nN`.
        pub fn new(n: u32) -> MemoryBatch {
            let inner = Inner {
                nodes: (1..=n).map(|i| format!("n{i}")).collect(),
                ..Inner::default()
            };
            MemoryBatch(Arc::new(Mutex::new(inner)))
        }

        fn lock(&self) -> MutexGuard<'_, Inner> {
            self.0.lock().unwrap_or_else(|p| p.into_inner())
        }

        /// Moves the clock to `now`: every job whose end has come ends.
        pub fn advance(&self, now: Time) {
            let mut inner = self.lock();
            inner.now = now;
            let mut ends = std::mem::take(&mut inner.epilog);
            for (i, job) in inner.jobs.iter_mut().enumerate() {
                if let State::Running { end, .. } = job.state
                    && end <= now
                {
                    job.state = State::Ended(end);
                    ends.push((i.to_string(), end));
                }
            }
            inner.log.extend(ends);
        }

        /// The earliest end of a running job.
        pub fn next_end(&self) -> Option<Time> {
            self.lock()
                .jobs
                .iter()
                .filter_map(|j| match j.state {
                    State::Running { end, .. } => Some(end),
                    _ => None,
                })
                .min()
        }

        /// How often each job (by name) was started.
        pub fn starts(&self) -> Vec<(String, u32)> {
            self.lock()
                .jobs
                .iter()
                .map(|j| (j.name.clone(), j.starts))
                .collect()
        }

        /// Makes every later start fail (or succeed again).
        pub fn set_failing_starts(&self, failing: bool) {
            self.lock().failing_starts = failing;
        }

        /// Makes every later submission fail (or succeed again).
        pub fn set_failing_submits(&self, failing: bool) {
            self.lock().failing_submits = failing;
        }

        /// Makes every job call (start, requeue, resize) after the next `calls` fail (`None`:
        /// none fails): where an executor stops, as if it crashed there.
        pub fn fail_after(&self, calls: Option<u32>) {
            self.lock().calls_left = calls;
        }

        /// How many job calls (start, requeue, resize) are left before they fail.
        pub fn calls_left(&self) -> Option<u32> {
            self.lock().calls_left
        }

        /// Starts held job `id` on `nodes` for `run` (its run time if `None`).
        fn start_run(
            &mut self,
            id: &str,
            nodes: &[String],
            run: Option<i64>,
        ) -> Result<(), MemoryBatchError> {
            let mut inner = self.lock();
            if inner.failing_starts {
                return Err(MemoryBatchError::Failing);
            }
            inner.call()?;
            let i = index(&inner, id)?;
            if inner.jobs[i].state != State::Held {
                return Err(MemoryBatchError::NotHeld(id.to_owned()));
            }
            for node in nodes {
                let busy = inner.jobs.iter().any(
                    |j| matches!(&j.state, State::Running { nodes: held, .. } if held.contains(node)),
                );
                if busy || !inner.nodes.contains(node) || inner.unavailable.contains(node) {
                    return Err(MemoryBatchError::NodeBusy(node.clone()));
                }
            }
            let run = run.unwrap_or(inner.jobs[i].runtime);
            let end = Time(inner.now.secs().saturating_add(run));
            let job = &mut inner.jobs[i];
            job.state = State::Running {
                end,
                nodes: nodes.to_vec(),
            };
            job.starts += 1;
            Ok(())
        }

        /// How often each job (by name) was requeued.
        pub fn requeues(&self) -> Vec<(String, u32)> {
            self.lock()
                .jobs
                .iter()
                .map(|j| (j.name.clone(), j.requeues))
                .collect()
        }

        /// The nodes job `name` runs on, if it runs.
        pub fn running_on(&self, name: &str) -> Option<Vec<String>> {
            self.lock()
                .jobs
                .iter()
                .find(|j| j.name == name)
                .and_then(|j| match &j.state {
                    State::Running { nodes, .. } => Some(nodes.clone()),
                    _ => None,
                })
        }

        /// Makes a shrink keep the job's first nodes in the nodes' order, whichever were asked
        /// for (as Slurm does).
        pub fn set_keeps_first(&self, keeps_first: bool) {
            self.lock().keeps_first = keeps_first;
        }

        /// The executor's reader restarted, as after a crash: it misses the ends not yet read
        /// (a reader of an epilog log started at its end) and counts the runs' ends the log
        /// holds before its place.
        pub fn drop_unread_ends(&self) {
            let mut inner = self.lock();
            inner.read = inner.log.len();
            let mut logged = std::collections::HashMap::new();
            for (id, _) in &inner.log {
                *logged.entry(id.clone()).or_insert(0) += 1;
            }
            inner.runs = RunEnds::new(logged);
        }

        /// Cancels the held job `name` (as its user would); false if no such job is held.
        pub fn cancel_held(&self, name: &str) -> bool {
            let mut inner = self.lock();
            let now = inner.now;
            match inner
                .jobs
                .iter_mut()
                .find(|j| j.name == name && j.state == State::Held)
            {
                Some(job) => {
                    job.state = State::Ended(now);
                    true
                }
                None => false,
            }
        }

        /// Takes `node` out of service (a drain: a job on it runs on) or gives it back.
        pub fn set_available(&self, node: &str, available: bool) {
            let mut inner = self.lock();
            inner.unavailable.retain(|n| n != node);
            if !available {
                inner.unavailable.push(node.to_owned());
            }
        }
    }

    impl Inner {
        /// One job call: refused once the calls allowed are spent.
        fn call(&mut self) -> Result<(), MemoryBatchError> {
            match &mut self.calls_left {
                Some(0) => Err(MemoryBatchError::Failing),
                Some(n) => {
                    *n -= 1;
                    Ok(())
                }
                None => Ok(()),
            }
        }
    }

    fn index(inner: &Inner, id: &str) -> Result<usize, MemoryBatchError> {
        id.parse::<usize>()
            .ok()
            .filter(|&i| i < inner.jobs.len())
            .ok_or_else(|| MemoryBatchError::UnknownJob(id.to_owned()))
    }

    impl BatchPlatform for MemoryBatch {
        type Error = MemoryBatchError;

        fn nodes(&self) -> Result<Vec<String>, MemoryBatchError> {
            Ok(self.lock().nodes.clone())
        }

        fn submit_held(&mut self, name: &str, job: &BatchJob) -> Result<String, MemoryBatchError> {
            let mut inner = self.lock();
            if inner.failing_submits {
                return Err(MemoryBatchError::Failing);
            }
            if let Some(i) = inner
                .jobs
                .iter()
                .position(|j| j.name == name && j.state == State::Held)
            {
                return Ok(i.to_string());
            }
            inner.jobs.push(Job {
                name: name.to_owned(),
                runtime: job.runtime.0,
                state: State::Held,
                starts: 0,
                requeues: 0,
            });
            Ok((inner.jobs.len() - 1).to_string())
        }

        fn start(&mut self, id: &str, nodes: &[String]) -> Result<(), MemoryBatchError> {
            self.start_run(id, nodes, None)
        }

        fn ended(&mut self) -> Result<Vec<String>, MemoryBatchError> {
            Ok(self.ended_at()?.into_iter().map(|(id, _)| id).collect())
        }

        /// The log's new lines, but those of runs requeues stopped (`RunEnds`).
        fn ended_at(&mut self) -> Result<Vec<(String, Option<Time>)>, MemoryBatchError> {
            let mut inner = self.lock();
            let inner = &mut *inner;
            let lines = inner.log.get(inner.read..).unwrap_or_default();
            inner.read = inner.log.len();
            let mut ended = Vec::new();
            for (id, at) in lines {
                let requeues = index(inner, id).map_or(0, |i| inner.jobs[i].requeues);
                if inner.runs.is_job_end(id, requeues) {
                    ended.push((id.clone(), Some(*at)));
                }
            }
            Ok(ended)
        }

        fn end_time(&self, id: &str) -> Result<Option<Time>, MemoryBatchError> {
            let inner = self.lock();
            Ok(match index(&inner, id).map(|i| &inner.jobs[i].state) {
                Ok(State::Ended(at)) => Some(*at),
                _ => None,
            })
        }

        fn outside(&mut self, held: &[String]) -> Result<Outside, MemoryBatchError> {
            let inner = self.lock();
            let withdrawn = held
                .iter()
                .filter(|id| index(&inner, id).map_or(true, |i| inner.jobs[i].state != State::Held))
                .cloned()
                .collect();
            Ok(Outside {
                withdrawn,
                unavailable: inner.unavailable.clone(),
            })
        }

        fn status(&self, id: &str) -> Result<PlatformJob, MemoryBatchError> {
            let inner = self.lock();
            let Ok(i) = index(&inner, id) else {
                return Ok(PlatformJob::Unknown);
            };
            Ok(match inner.jobs[i].state {
                State::Held => PlatformJob::Held,
                State::Running { .. } => PlatformJob::Started,
                State::Ended(_) => PlatformJob::Ended,
            })
        }
    }

    impl crate::hybrid::HybridPlatform for MemoryBatch {
        fn start_for(
            &mut self,
            id: &str,
            nodes: &[String],
            run: cosched_core::Duration,
        ) -> Result<bool, MemoryBatchError> {
            self.start_run(id, nodes, Some(run.0)).map(|()| true)
        }

        fn requeue(&mut self, id: &str) -> Result<(), MemoryBatchError> {
            let mut inner = self.lock();
            inner.call()?;
            let i = index(&inner, id)?;
            let now = inner.now;
            let job = &mut inner.jobs[i];
            if !matches!(job.state, State::Running { .. }) {
                return Err(MemoryBatchError::NotRunning(id.to_owned()));
            }
            job.state = State::Held;
            job.requeues += 1;
            inner.epilog.push((id.to_owned(), now));
            Ok(())
        }

        fn requeues(&self, id: &str) -> Result<u32, MemoryBatchError> {
            let inner = self.lock();
            Ok(inner.jobs[index(&inner, id)?].requeues)
        }

        fn resize(
            &mut self,
            id: &str,
            nodes: &[String],
            run: cosched_core::Duration,
        ) -> Result<Vec<String>, MemoryBatchError> {
            let mut inner = self.lock();
            inner.call()?;
            let i = index(&inner, id)?;
            let now = inner.now;
            let State::Running { nodes: held, .. } = &inner.jobs[i].state else {
                return Err(MemoryBatchError::NotRunning(id.to_owned()));
            };
            for node in nodes.iter().filter(|n| !held.contains(n)) {
                let busy = inner.jobs.iter().any(
                    |j| matches!(&j.state, State::Running { nodes: other, .. } if other.contains(node)),
                );
                if busy || !inner.nodes.contains(node) {
                    return Err(MemoryBatchError::NodeBusy(node.clone()));
                }
            }
            let kept = if inner.keeps_first && nodes.len() < held.len() {
                let mut first: Vec<String> = inner
                    .nodes
                    .iter()
                    .filter(|n| held.contains(n))
                    .cloned()
                    .collect();
                first.truncate(nodes.len());
                first
            } else {
                nodes.to_vec()
            };
            inner.jobs[i].state = State::Running {
                end: Time(now.secs().saturating_add(run.0)),
                nodes: kept.clone(),
            };
            Ok(kept)
        }
    }
}

mod slurm_batch {
    //! Slurm as the batch platform: held jobs, ReqNodeList + release, the epilog's log.

    use std::path::PathBuf;

    use super::{BatchJob, BatchPlatform, JobId, Outside, PlatformJob, RunEnds, ScaledClock, Time};
    use cosched_core::{Duration, JobClass};
    use cosched_slurm::NodeState;
    use cosched_slurm::{JobDetail, JobEndLog, Slurm, SlurmError, find_end};

    /// Slurm with every job submitted held; a start pins the job to its nodes and releases
    /// it; ends come from the epilog's log, each at the time its line gives (in the run's
    /// seconds once the executor has set the clock). A submitted job is `sleep` for its run
    /// time divided by the time scale, with a time limit a minute past its estimate (scaled).
    /// At every step one `squeue` and one `sinfo` tell which held jobs their users cancelled
    /// and which nodes are out of service (draining, drained, down, not responding).
    #[derive(Debug, Clone)]
    pub struct SlurmBatch {
        slurm: Slurm,
        log: JobEndLog,
        scale: u32,
        partition: Option<String>,
        /// With [`SlurmBatch::with_deadlines`]: the directory of the jobs' deadline files.
        deadlines: Option<PathBuf>,
        /// The ends of each job's runs logged so far (`None` until the first read: then
        /// counted from the log before the reader's place, from the run's clock origin).
        runs: Option<RunEnds>,
        /// The run's clock, for end times.
        clock: Option<ScaledClock>,
    }

    impl SlurmBatch {
        /// Slurm `slurm`, its epilog log read from its current end, jobs scaled by `scale`
        /// workload seconds per wall second, in `partition` (the default one if `None`).
        pub fn new(slurm: Slurm, log: JobEndLog, scale: u32, partition: Option<String>) -> Self {
            SlurmBatch {
                slurm,
                log,
                scale: scale.max(1),
                partition,
                deadlines: None,
                runs: None,
                clock: None,
            }
        }

        /// Unix milliseconds in the run's seconds (unknown without a clock).
        fn at(&self, unix_ms: i64) -> Option<Time> {
            self.clock.map(|c| c.at(unix_ms))
        }

        /// Jobs that run until a deadline instead of for their run time: each job's script
        /// waits until the Unix millisecond written in `dir/<job name>` (on a shared file
        /// system: a cluster of `cargo xtask slurm up` runs on this machine), which each start
        /// and resize writes ([`crate::HybridPlatform`]). A directory with a `'` in its path is
        /// refused when a job is submitted.
        pub fn with_deadlines(mut self, dir: PathBuf) -> Self {
            self.deadlines = Some(dir);
            self
        }

        /// Job `id` as Slurm lists it.
        fn detail(&self, id: &str) -> Result<JobDetail, SlurmError> {
            self.slurm
                .job_details()?
                .into_iter()
                .find(|j| j.id.to_string() == id)
                .ok_or_else(|| SlurmError::UnknownJob(id.to_owned()))
        }

        /// Writes the deadline of `job`: `run` workload seconds from now.
        fn set_deadline(&self, job: &JobDetail, run: Duration) -> Result<(), SlurmError> {
            let Some(dir) = &self.deadlines else {
                return Ok(());
            };
            let path = dir.join(&job.name);
            let wall_ms = run.0.max(0).saturating_mul(1000) / i64::from(self.scale);
            let at = super::unix_ms().saturating_add(wall_ms);
            let write = |p: &std::path::Path| {
                let tmp = p.with_extension("tmp");
                std::fs::write(&tmp, at.to_string())?;
                std::fs::rename(&tmp, p)
            };
            write(&path).map_err(|source| SlurmError::Write { path, source })
        }

        /// The client.
        pub fn slurm(&self) -> &Slurm {
            &self.slurm
        }

        /// The jobs waiting held in the partition (any partition if none was given) for which
        /// `known` is false, as jobs arriving at `now` with their platform ids: the node count
        /// as the size, the time limit (or `default_estimate` without one) scaled to workload
        /// seconds as the estimate and the run time. What `--queued` adopts.
        pub fn held_jobs(
            &self,
            now: Time,
            default_estimate: Duration,
            known: impl Fn(&str) -> bool,
        ) -> Result<Vec<(BatchJob, String)>, SlurmError> {
            let scale = i64::from(self.scale);
            Ok(self
                .slurm
                .job_details()?
                .into_iter()
                .filter(|j| j.is_held())
                .filter(|j| self.partition.as_ref().is_none_or(|p| *p == j.partition))
                .filter(|j| !known(&j.id.to_string()))
                .map(|j| {
                    let estimate = j.time_limit_min.map_or(default_estimate, |m| {
                        Duration(
                            i64::try_from(m)
                                .unwrap_or(i64::MAX)
                                .saturating_mul(60)
                                .saturating_mul(scale),
                        )
                    });
                    let job = BatchJob {
                        id: JobId(j.id),
                        submit: now,
                        size: j.node_count.max(1),
                        runtime: estimate,
                        estimate,
                        class: JobClass::Rigid,
                        resizable: None,
                    };
                    (job, j.id.to_string())
                })
                .collect())
        }
    }

    impl BatchPlatform for SlurmBatch {
        type Error = SlurmError;

        fn nodes(&self) -> Result<Vec<String>, SlurmError> {
            Ok(self.slurm.nodes()?.into_iter().map(|n| n.name).collect())
        }

        fn submit_held(&mut self, name: &str, job: &BatchJob) -> Result<String, SlurmError> {
            let listed = self.slurm.job_details()?;
            if let Some(j) = listed.iter().find(|j| j.name == name && j.is_held()) {
                return Ok(j.id.to_string());
            }
            let scale = f64::from(self.scale);
            let sleep = job.runtime.0 as f64 / scale;
            let limit_min = (job.estimate.0 as f64 / scale / 60.0).ceil() as u64 + 1;
            let mut args = vec![
                format!("--job-name={name}"),
                format!("--nodes={}", job.size),
                format!("--time={limit_min}"),
                "--output=/dev/null".to_owned(),
            ];
            if let Some(p) = &self.partition {
                args.push(format!("--partition={p}"));
            }
            match &self.deadlines {
                Some(dir) => {
                    let file = dir.join(name);
                    let file = file.to_string_lossy();
                    if file.contains('\'') {
                        return Err(SlurmError::Write {
                            path: dir.clone(),
                            source: std::io::Error::other("a deadline path must not contain `'`"),
                        });
                    }
                    // Until the deadline (none yet: until the time limit).
                    args.push(format!(
                        "--wrap=f='{file}'; while :; do d=$(cat \"$f\" 2>/dev/null) && [ \"$(date +%s%3N)\" -ge \"$d\" ] && break; sleep 0.05; done"
                    ));
                }
                None => args.push(format!("--wrap=sleep {sleep:.3}")),
            }
            self.slurm.submit_held(args)
        }

        fn start(&mut self, id: &str, nodes: &[String]) -> Result<(), SlurmError> {
            self.slurm.start_on(id, nodes)
        }

        fn ended(&mut self) -> Result<Vec<String>, SlurmError> {
            Ok(self.ended_at()?.into_iter().map(|(id, _)| id).collect())
        }

        /// Each line of the epilog's log, but those of the runs requeues ended (`RunEnds`:
        /// Slurm's `restart_cnt` against the job's lines, those before the reader's place
        /// counted from the run's clock origin at the first read).
        fn ended_at(&mut self) -> Result<Vec<(String, Option<Time>)>, SlurmError> {
            if self.runs.is_none() {
                let logged = match self.clock {
                    Some(clock) => self.log.ends_before(clock.origin_unix_ms)?,
                    None => Default::default(),
                };
                self.runs = Some(RunEnds::new(logged));
            }
            let lines = self.log.read_new()?;
            if lines.is_empty() {
                return Ok(Vec::new());
            }
            let listed = self.slurm.job_details()?;
            let mut ended = Vec::new();
            for end in lines {
                let requeues = listed
                    .iter()
                    .find(|j| j.id.to_string() == end.job_id)
                    .map_or(0, |j| j.restarts);
                let at = self.at(end.at_unix_ms);
                if let Some(runs) = &mut self.runs
                    && runs.is_job_end(&end.job_id, requeues)
                {
                    ended.push((end.job_id, at));
                }
            }
            Ok(ended)
        }

        /// The epilog's line for the job (milliseconds), else the end Slurm lists (whole
        /// seconds).
        fn end_time(&self, id: &str) -> Result<Option<Time>, SlurmError> {
            if self.clock.is_none() {
                return Ok(None);
            }
            let listed = self.slurm.job_details()?;
            let Some(job) = listed.iter().find(|j| j.id.to_string() == id) else {
                return Ok(None);
            };
            if !job.is_finished() {
                return Ok(None);
            }
            let logged = find_end(self.log.path(), id, job.start_unix)?;
            let ms = match logged {
                Some(end) => end.at_unix_ms,
                None if job.end_unix > 0 => job.end_unix.saturating_mul(1000),
                None => return Ok(None),
            };
            Ok(self.at(ms))
        }

        fn set_clock(&mut self, clock: ScaledClock) {
            self.clock = Some(clock);
        }

        fn outside(&mut self, held: &[String]) -> Result<Outside, SlurmError> {
            let listed = if held.is_empty() {
                Vec::new()
            } else {
                self.slurm.job_details()?
            };
            let withdrawn = held
                .iter()
                .filter(|id| {
                    listed
                        .iter()
                        .find(|j| j.id.to_string() == **id)
                        .is_none_or(|j| !j.is_held())
                })
                .cloned()
                .collect();
            let unavailable = self
                .slurm
                .nodes()?
                .into_iter()
                .filter(|n| {
                    n.not_responding || n.state.is_reclaimed() || n.state == NodeState::Down
                })
                .map(|n| n.name)
                .collect();
            Ok(Outside {
                withdrawn,
                unavailable,
            })
        }

        fn status(&self, id: &str) -> Result<PlatformJob, SlurmError> {
            let listed = self.slurm.job_details()?;
            Ok(match listed.iter().find(|j| j.id.to_string() == id) {
                None => PlatformJob::Unknown,
                Some(j) if j.is_held() || requeued_completing(j) => PlatformJob::Held,
                Some(j) if j.is_finished() => PlatformJob::Ended,
                Some(_) => PlatformJob::Started,
            })
        }
    }

    /// A job `scontrol requeuehold` requeued, its run still completing: held already
    /// (`squeue --json` lists it `COMPLETING`, reason `JobHeldUser`, for about a second).
    fn requeued_completing(job: &JobDetail) -> bool {
        job.state == cosched_slurm::JobState::Completing
            && job.restarts > 0
            && job.reason.starts_with("JobHeld")
    }

    impl crate::hybrid::HybridPlatform for SlurmBatch {
        /// A job Slurm has requeued (its `restart_cnt`, which a restarted executor reads as
        /// well) starts again by [`Slurm::restart_on`], once its nodes are idle (a restart
        /// before its old nodes finished completing fails at once); any other by
        /// [`Slurm::start_on`].
        fn start_for(
            &mut self,
            id: &str,
            nodes: &[String],
            run: Duration,
        ) -> Result<bool, SlurmError> {
            let job = self.detail(id)?;
            if job.restarts > 0 {
                let listed = self.slurm.nodes()?;
                let ready = nodes.iter().all(|n| {
                    listed
                        .iter()
                        .any(|l| &l.name == n && l.state == NodeState::Idle)
                });
                if !ready || requeued_completing(&job) {
                    return Ok(false);
                }
                self.set_deadline(&job, run)?;
                self.slurm.restart_on(id, nodes)?;
            } else {
                self.set_deadline(&job, run)?;
                self.slurm.start_on(id, nodes)?;
            }
            Ok(true)
        }

        fn requeue(&mut self, id: &str) -> Result<(), SlurmError> {
            self.slurm.requeue_held(id)
        }

        fn requeues(&self, id: &str) -> Result<u32, SlurmError> {
            Ok(self.detail(id)?.restarts)
        }

        fn resize(
            &mut self,
            id: &str,
            nodes: &[String],
            run: Duration,
        ) -> Result<Vec<String>, SlurmError> {
            let job = self.detail(id)?;
            let held = job.nodes.clone();
            let extra: Vec<String> = nodes
                .iter()
                .filter(|n| !held.contains(n))
                .cloned()
                .collect();
            if !extra.is_empty() {
                // A second allocation of the extra nodes merged into the job.
                self.set_deadline(&job, run)?;
                self.slurm.expand(id, &extra)?;
                return Ok(self.detail(id)?.nodes);
            }
            self.set_deadline(&job, run)?;
            if nodes.len() == held.len() {
                return Ok(held);
            }
            // Slurm keeps the first nodes of the job (`NodeList=` is refused for a job
            // started on a `ReqNodeList`): the executor relabels its nodes to match.
            self.slurm
                .resize(id, u32::try_from(nodes.len()).unwrap_or(u32::MAX))?;
            Ok(self.detail(id)?.nodes)
        }
    }
}
