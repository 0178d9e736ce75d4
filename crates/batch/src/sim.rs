//! Trace-driven simulation of one batch cluster.
//!
//! [`BatchSim`] feeds a workload of rigid jobs to a [`BatchCluster`] on the core simulation
//! kernel ([`cosched_core::engine::run`]) and runs any policy of the batch protocol (see
//! [`crate::pass`]), built-in or the caller's. At each instant it processes **all completions,
//! then all arrivals in job-id order, then one scheduling pass** (a job that starts and ends in
//! the same instant — run time 0 — completes in a second round at that instant, followed by
//! another pass). The policy's [`Policy::start`] is called once before the first arrival, and
//! its [`Policy::wake`] at the first instant at or after its [`Policy::next_wake`] (before
//! that instant's pass) while jobs remain to arrive, wait or run; the commands of every call
//! are applied at once.
//!
//! Input rules (documented in the [crate docs](crate)): the workload is admitted by
//! [`cosched_workload::admit`] (a repeated id is an error; a job failing
//! [`RigidJob::validate`] — size 0, negative run time — is counted invalid and skipped); a job
//! larger than the capacity is rejected (never started) and reported with no start or end; the
//! simulated run time is `min(runtime, estimate)`. A job whose end would pass the last
//! representable second stops the run with [`BatchError::EndOverflow`] naming it.
//!
//! The simulator never asks for a node, so it runs on a [`BatchCluster::counted`] cluster: no
//! per-unit state, whatever the capacity.

use crate::{
    BatchCluster, BatchCommand, BatchError, BatchJob, RunToken, SchedulingPass, Started, Submitted,
    admit,
};
use cosched_core::engine::{self, EngineError, Event, EventQueue, Simulation};
use cosched_core::policy::{Policy, wake_due};
use cosched_core::{DEFAULT_SLOWDOWN_TAU, Duration, JobRecord, Report, RigidJob, Time};
use cosched_workload::swf::RigidTrace;

#[derive(Clone, Copy, Debug)]
enum SimEvent {
    Completion(RunToken),
    Arrival(usize),
    /// The policy's wake time: the instant's pass delivers it.
    Wake,
}

impl Event for SimEvent {
    fn class(&self) -> u8 {
        match self {
            SimEvent::Completion(_) => 0,
            SimEvent::Arrival(_) => 1,
            SimEvent::Wake => 2,
        }
    }
}

/// Counters of the simulation itself (not of the jobs).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SimStats {
    /// Events processed (arrivals and completions).
    pub events: u64,
    /// Scheduling passes run.
    pub passes: u64,
    /// Longest queue seen at a pass.
    pub max_queue_len: usize,
    /// Time-averaged queue length between the first arrival and the last completion.
    pub mean_queue_len: f64,
}

/// What a simulation produced.
#[derive(Clone, Debug)]
pub struct SimOutcome {
    /// One record per valid job: completed ones, then rejected ones (no start, no end).
    pub records: Vec<JobRecord>,
    /// The summary.
    pub report: Report,
    /// Simulator counters.
    pub stats: SimStats,
}

/// Simulates a batch cluster of `capacity` units under a batch policy: a built-in one (see
/// [`crate::scenario`]) or any other type implementing the protocol of [`crate::pass`].
///
/// ```
/// use cosched_batch::{BatchSim, Easy};
/// use cosched_core::{Duration, JobId, RigidJob, Time};
/// let job = |id, submit, size, run, est| {
///     RigidJob::new(JobId(id), Time(submit), size, Duration(run), Duration(est)).unwrap()
/// };
/// // Job 2 cannot start before job 1 ends at 100; job 3 backfills because it ends by then.
/// let jobs = [job(1, 0, 3, 100, 100), job(2, 1, 4, 10, 10), job(3, 2, 1, 50, 60)];
/// let out = BatchSim::new(4, Easy::default()).unwrap().run(&jobs).unwrap();
/// let starts: Vec<_> = out.records.iter().map(|r| (r.id.0, r.start.unwrap().0)).collect();
/// assert_eq!(starts, [(3, 2), (1, 0), (2, 100)]);
/// ```
pub struct BatchSim<P> {
    capacity: u32,
    policy: P,
    tau: Duration,
}

/// How many arrivals pass between progress callbacks.
const PROGRESS_EVERY: usize = 1 << 14;

impl<P> BatchSim<P>
where
    P: Policy<Observation = SchedulingPass, Command = BatchCommand, View = BatchCluster>,
    BatchError: From<P::Error>,
{
    /// A simulator for a cluster of `capacity` units (at least 1) under `policy`.
    pub fn new(capacity: u32, policy: P) -> Result<Self, BatchError> {
        BatchCluster::counted(capacity)?;
        Ok(BatchSim {
            capacity,
            policy,
            tau: DEFAULT_SLOWDOWN_TAU,
        })
    }

    /// Uses `tau` for the bounded slowdown instead of 10 s.
    pub fn with_slowdown_tau(mut self, tau: Duration) -> Self {
        self.tau = tau;
        self
    }

    /// The policy (e.g. to read its state after a run).
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// Consumes the simulator and returns its policy.
    pub fn into_policy(self) -> P {
        self.policy
    }

    /// Simulates `jobs` (any order; ids must be unique) to the end.
    pub fn run(&mut self, jobs: &[RigidJob]) -> Result<SimOutcome, BatchError> {
        self.run_with_progress(jobs, |_, _| {})
    }

    /// Simulates a trace read from SWF: its jobs, with the records its reader skipped as
    /// invalid added to the report's `invalid` count (so the report counts every invalid
    /// record once, wherever it was found). Calls `progress(arrived, total)` like
    /// [`BatchSim::run_with_progress`].
    pub fn run_trace(
        &mut self,
        trace: &RigidTrace,
        progress: impl FnMut(usize, usize),
    ) -> Result<SimOutcome, BatchError> {
        let mut outcome = self.run_with_progress(&trace.jobs, progress)?;
        outcome.report.invalid += trace.invalid_count();
        Ok(outcome)
    }

    /// Like [`BatchSim::run`], calling `progress(arrived, total)` every few thousand arrivals
    /// and once at the end.
    pub fn run_with_progress(
        &mut self,
        jobs: &[RigidJob],
        progress: impl FnMut(usize, usize),
    ) -> Result<SimOutcome, BatchError> {
        let (workload, invalid) = admit(jobs)?;
        let start_time = workload.first().map_or(Time::ZERO, |j| j.submit);
        let mut events = EventQueue::new(start_time);
        if !workload.is_empty() {
            events
                .schedule(start_time, SimEvent::Arrival(0))
                .map_err(EngineError::from)?;
        }
        let mut run = Run {
            cluster: BatchCluster::counted(self.capacity)?,
            policy: &mut self.policy,
            records: Vec::with_capacity(workload.len()),
            rejected: Vec::new(),
            started: Vec::new(),
            commands: Vec::new(),
            arrived: 0,
            wake_at: None,
            max_queue_len: 0,
            queue_area: 0,
            last_time: start_time,
            progress,
            workload,
        };
        run.start(start_time, &mut events)?;
        let kernel = engine::run(&mut run, &mut events)?;
        let total = run.workload.len();
        (run.progress)(total, total);
        let span = i128::from(run.last_time.secs()) - i128::from(start_time.secs());
        let stats = SimStats {
            events: kernel.events,
            passes: kernel.instants,
            max_queue_len: run.max_queue_len,
            mean_queue_len: if span > 0 {
                run.queue_area as f64 / span as f64
            } else {
                0.0
            },
        };
        let mut records = run.records;
        records.append(&mut run.rejected);
        let report = Report::new(
            self.capacity,
            &records,
            invalid,
            run.cluster.busy_unit_seconds(),
            self.tau,
        );
        Ok(SimOutcome {
            records,
            report,
            stats,
        })
    }
}

/// The state of one simulation run: the environment the kernel drives.
struct Run<'a, S, P> {
    cluster: BatchCluster,
    policy: &'a mut S,
    workload: Vec<BatchJob>,
    records: Vec<JobRecord>,
    rejected: Vec<JobRecord>,
    started: Vec<Started>,
    /// The command buffer of `start` and `wake` calls.
    commands: Vec<BatchCommand>,
    /// Jobs arrived so far.
    arrived: usize,
    /// The wake event scheduled last, if it is still ahead.
    wake_at: Option<Time>,
    max_queue_len: usize,
    /// Queue length integrated over time, job-seconds.
    queue_area: i128,
    /// The last instant seen.
    last_time: Time,
    progress: P,
}

impl<S, P> Run<'_, S, P>
where
    S: Policy<Observation = SchedulingPass, Command = BatchCommand, View = BatchCluster>,
    BatchError: From<S::Error>,
{
    /// Calls the policy's `start` and applies its commands.
    fn start(&mut self, now: Time, queue: &mut EventQueue<SimEvent>) -> Result<(), BatchError> {
        self.commands.clear();
        self.policy.start(now, &self.cluster, &mut self.commands)?;
        self.apply(now, queue)
    }

    /// Applies `commands` and schedules the completions of the jobs they started.
    fn apply(&mut self, now: Time, queue: &mut EventQueue<SimEvent>) -> Result<(), BatchError> {
        if !self.commands.is_empty() {
            self.cluster.apply(now, &self.commands, &mut self.started)?;
        }
        self.schedule_completions(queue)
    }

    #[inline]
    fn schedule_completions(&mut self, queue: &mut EventQueue<SimEvent>) -> Result<(), BatchError> {
        for s in self.started.drain(..) {
            queue
                .schedule(s.end, SimEvent::Completion(s.token))
                .map_err(EngineError::from)?;
        }
        Ok(())
    }

    /// Schedules a wake event at the policy's next wake time if it lies ahead and work
    /// remains (so a policy that always wants waking cannot keep an empty run going).
    #[inline]
    fn schedule_wake(
        &mut self,
        now: Time,
        queue: &mut EventQueue<SimEvent>,
    ) -> Result<(), BatchError> {
        let Some(at) = self.policy.next_wake() else {
            return Ok(());
        };
        let work_left = self.arrived < self.workload.len()
            || self.cluster.queue_len() > 0
            || self.cluster.running_jobs() > 0;
        if at > now && work_left && self.wake_at.is_none_or(|w| w <= now || at < w) {
            queue
                .schedule(at, SimEvent::Wake)
                .map_err(EngineError::from)?;
            self.wake_at = Some(at);
        }
        Ok(())
    }
}

impl<S, P> Simulation for Run<'_, S, P>
where
    S: Policy<Observation = SchedulingPass, Command = BatchCommand, View = BatchCluster>,
    BatchError: From<S::Error>,
    P: FnMut(usize, usize),
{
    type Event = SimEvent;
    type Error = BatchError;

    fn handle(
        &mut self,
        now: Time,
        event: SimEvent,
        queue: &mut EventQueue<SimEvent>,
    ) -> Result<(), BatchError> {
        if now != self.last_time {
            // The queue has kept its length since the last pass.
            let span = i128::from(now.secs()) - i128::from(self.last_time.secs());
            self.queue_area += self.cluster.queue_len() as i128 * span;
            self.last_time = now;
        }
        match event {
            SimEvent::Completion(token) => {
                self.records.extend(self.cluster.complete(now, token));
            }
            SimEvent::Arrival(i) => {
                let Some(&job) = self.workload.get(i) else {
                    return Ok(());
                };
                self.arrived = i + 1;
                if self.cluster.submit(job)? == Submitted::Rejected {
                    self.rejected.push(job.unstarted_record());
                }
                if let Some(next) = self.workload.get(i + 1) {
                    queue
                        .schedule(next.submit, SimEvent::Arrival(i + 1))
                        .map_err(EngineError::from)?;
                }
                if (i + 1) % PROGRESS_EVERY == 0 {
                    (self.progress)(i + 1, self.workload.len());
                }
            }
            SimEvent::Wake => {}
        }
        Ok(())
    }

    fn settle(&mut self, now: Time, queue: &mut EventQueue<SimEvent>) -> Result<(), BatchError> {
        self.max_queue_len = self.max_queue_len.max(self.cluster.queue_len());
        self.commands.clear();
        if wake_due(&mut *self.policy, now, &self.cluster, &mut self.commands)? {
            self.apply(now, queue)?;
        }
        self.cluster
            .try_schedule(now, &mut *self.policy, &mut self.started)?;
        self.schedule_completions(queue)?;
        self.schedule_wake(now, queue)
    }
}
