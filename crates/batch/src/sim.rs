//! Trace-driven simulation of one batch cluster.
//!
//! [`BatchSim`] feeds a workload of rigid jobs to a [`BatchCluster`] on the core simulation
//! kernel ([`cosched_core::engine::run`]) and runs any policy of the batch protocol (see
//! [`crate::pass`]), built-in or the caller's. At each instant it processes **all completions,
//! then all arrivals in job-id order, then one scheduling pass** (a job that starts and ends in
//! the same instant — run time 0 — completes in a second round at that instant, followed by
//! another pass). The policy is driven by core's [`Driver`]: its [`Policy::start`] is called
//! once before the first arrival, and its [`Policy::wake`] at the first instant at or after
//! its [`Policy::next_wake`] (before that instant's pass) while jobs remain to arrive, wait or
//! run; the commands of every call are applied at once, by [`ClusterPass`], the executor of
//! the batch protocol every simulator with a batch side uses.
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
use cosched_core::driver::{CallError, Driver, Executor};
use cosched_core::engine::{self, EngineError, Event, EventQueue, Simulation};
use cosched_core::policy::Policy;
use cosched_core::{DEFAULT_SLOWDOWN_TAU, Duration, JobRecord, Report, RigidJob, Time};
use thiserror::Error;

/// Why a batch simulation stopped; `E` is the policy's error.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SimError<E> {
    /// The cluster or the workload refused an operation (a repeated job id, a command the
    /// cluster cannot apply, an end past the last representable second, the kernel).
    #[error(transparent)]
    Batch(#[from] BatchError),
    /// The policy failed (or never quieted).
    #[error(transparent)]
    Policy(#[from] CallError<E>),
}

impl<E> From<EngineError> for SimError<E> {
    fn from(e: EngineError) -> Self {
        SimError::Batch(e.into())
    }
}

/// A failure of a batch policy driven inside another executor, as a [`BatchError`] (the
/// call and time kept).
impl<E: Into<BatchError>> From<SimError<E>> for BatchError {
    fn from(e: SimError<E>) -> Self {
        match e {
            SimError::Batch(e) => e,
            SimError::Policy(e) => e.into(),
        }
    }
}

/// The executor of the batch protocol: a cluster lent as the policy's view, the policy's
/// commands started on it (in order, stopping at the first it cannot apply), each start
/// appended to `started` for the caller to schedule its end. Every simulator with a batch
/// side drives its batch policy through core's [`Driver`] on one of these.
///
/// ```
/// use cosched_batch::{BatchCluster, BatchJob, ClusterPass, SchedulingPass, scenario};
/// use cosched_core::driver::Driver;
/// use cosched_core::{Duration, JobId, RigidJob, Time};
/// let mut cluster = BatchCluster::counted(4).unwrap();
/// let job = RigidJob::new(JobId(1), Time(0), 3, Duration(60), Duration(60)).unwrap();
/// cluster.submit(BatchJob::rigid(&job)).unwrap();
/// let mut easy = Driver::new(scenario::easy());
/// let mut started = Vec::new();
/// let mut pass = ClusterPass { cluster: &mut cluster, started: &mut started };
/// easy.observe(Time(0), &SchedulingPass, &mut pass, &mut ()).unwrap();
/// assert_eq!(started.len(), 1);
/// ```
pub struct ClusterPass<'a> {
    /// The cluster: the view, and what the commands act on.
    pub cluster: &'a mut BatchCluster,
    /// Where each start goes.
    pub started: &'a mut Vec<Started>,
}

impl<P> Executor<P> for ClusterPass<'_>
where
    P: Policy<Observation = SchedulingPass, Command = BatchCommand, View = BatchCluster>,
{
    type Context = ();
    type Error = SimError<P::Error>;

    fn view(&mut self, _now: Time) -> &BatchCluster {
        self.cluster
    }

    fn apply(
        &mut self,
        _: &mut Driver<P>,
        _: &mut (),
        now: Time,
        commands: &[BatchCommand],
    ) -> Result<(), Self::Error> {
        Ok(self.cluster.apply(now, commands, self.started)?)
    }
}

#[derive(Clone, Copy, Debug)]
enum SimEvent {
    Completion(RunToken),
    Arrival(usize),
    /// The policy's wake time: the instant's pass delivers it.
    Wake,
}

/// The class of arrivals: each schedules the next, in time order, so they wait in the event
/// queue's ordered lane rather than its heap.
const ARRIVAL_CLASS: u8 = 1;

impl Event for SimEvent {
    fn class(&self) -> u8 {
        match self {
            SimEvent::Completion(_) => 0,
            SimEvent::Arrival(_) => ARRIVAL_CLASS,
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
/// let out = BatchSim::new(4).unwrap().run(&mut Easy::default(), &jobs).unwrap();
/// let starts: Vec<_> = out.records.iter().map(|r| (r.id.0, r.start.unwrap().0)).collect();
/// assert_eq!(starts, [(3, 2), (1, 0), (2, 100)]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchSim {
    capacity: u32,
    tau: Duration,
}

/// How many arrivals pass between progress callbacks.
const PROGRESS_EVERY: usize = 1 << 14;

impl BatchSim {
    /// A simulator for a cluster of `capacity` units (at least 1).
    pub fn new(capacity: u32) -> Result<Self, BatchError> {
        BatchCluster::counted(capacity)?;
        Ok(BatchSim {
            capacity,
            tau: DEFAULT_SLOWDOWN_TAU,
        })
    }

    /// Uses `tau` for the bounded slowdown instead of 10 s.
    pub fn with_slowdown_tau(mut self, tau: Duration) -> Self {
        self.tau = tau;
        self
    }

    /// Simulates `jobs` (any order; ids must be unique) to the end under `policy`.
    pub fn run<P>(
        &self,
        policy: &mut P,
        jobs: &[RigidJob],
    ) -> Result<SimOutcome, SimError<P::Error>>
    where
        P: Policy<Observation = SchedulingPass, Command = BatchCommand, View = BatchCluster>
            + ?Sized,
    {
        self.run_with_progress(policy, jobs, |_, _| {})
    }

    /// Like [`BatchSim::run`], calling `progress(arrived, total)` every few thousand arrivals
    /// and once at the end.
    pub fn run_with_progress<P>(
        &self,
        policy: &mut P,
        jobs: &[RigidJob],
        progress: impl FnMut(usize, usize),
    ) -> Result<SimOutcome, SimError<P::Error>>
    where
        P: Policy<Observation = SchedulingPass, Command = BatchCommand, View = BatchCluster>
            + ?Sized,
    {
        let (workload, invalid) = admit(jobs)?;
        let start_time = workload.first().map_or(Time::ZERO, |j| j.submit);
        let mut events = EventQueue::with_ordered_class(start_time, ARRIVAL_CLASS);
        if !workload.is_empty() {
            events
                .schedule(start_time, SimEvent::Arrival(0))
                .map_err(EngineError::from)?;
        }
        let mut run = Run {
            cluster: BatchCluster::counted(self.capacity)?,
            driver: Driver::new(policy),
            records: Vec::with_capacity(workload.len()),
            rejected: Vec::new(),
            started: Vec::new(),
            arrived: 0,
            max_queue_len: 0,
            queue_area: 0,
            last_time: start_time,
            progress,
            workload,
        };
        let mut pass = ClusterPass {
            cluster: &mut run.cluster,
            started: &mut run.started,
        };
        run.driver.start(start_time, &mut pass, &mut ())?;
        run.schedule_completions(&mut events)?;
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

/// The state of one simulation run: the environment the kernel drives, and the driver of its
/// policy.
struct Run<'a, S: Policy + ?Sized, F> {
    cluster: BatchCluster,
    driver: Driver<&'a mut S>,
    workload: Vec<BatchJob>,
    records: Vec<JobRecord>,
    rejected: Vec<JobRecord>,
    started: Vec<Started>,
    /// Jobs arrived so far.
    arrived: usize,
    max_queue_len: usize,
    /// Queue length integrated over time, job-seconds.
    queue_area: i128,
    /// The last instant seen.
    last_time: Time,
    progress: F,
}

impl<S, F> Run<'_, S, F>
where
    S: Policy<Observation = SchedulingPass, Command = BatchCommand, View = BatchCluster> + ?Sized,
{
    #[inline]
    fn schedule_completions(
        &mut self,
        queue: &mut EventQueue<SimEvent>,
    ) -> Result<(), SimError<S::Error>> {
        for s in self.started.drain(..) {
            queue
                .schedule(s.end, SimEvent::Completion(s.token))
                .map_err(EngineError::from)?;
        }
        Ok(())
    }
}

impl<S, F> Simulation for Run<'_, S, F>
where
    S: Policy<Observation = SchedulingPass, Command = BatchCommand, View = BatchCluster> + ?Sized,
    F: FnMut(usize, usize),
{
    type Event = SimEvent;
    type Error = SimError<S::Error>;

    fn handle(
        &mut self,
        now: Time,
        event: SimEvent,
        queue: &mut EventQueue<SimEvent>,
    ) -> Result<(), Self::Error> {
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

    fn settle(&mut self, now: Time, queue: &mut EventQueue<SimEvent>) -> Result<(), Self::Error> {
        self.max_queue_len = self.max_queue_len.max(self.cluster.queue_len());
        let mut pass = ClusterPass {
            cluster: &mut self.cluster,
            started: &mut self.started,
        };
        self.driver.wake_due(now, &mut pass, &mut ())?;
        self.driver
            .observe(now, &SchedulingPass, &mut pass, &mut ())?;
        self.schedule_completions(queue)?;
        // A wake event while work remains (so a policy that always wants waking cannot keep
        // an empty run going).
        let work_left = self.arrived < self.workload.len()
            || self.cluster.queue_len() > 0
            || self.cluster.running_jobs() > 0;
        if work_left {
            self.driver.arm(now, queue, SimEvent::Wake)?;
        }
        Ok(())
    }
}
