//! Trace-driven simulation of one batch cluster.
//!
//! [`BatchSim`] feeds a workload of rigid jobs to a [`BatchCluster`] on the core simulation
//! kernel ([`cosched_core::engine::run`]). At each instant it processes **all completions, then
//! all arrivals in job-id order, then one scheduling pass** (a job that starts and ends in the
//! same instant — run time 0 — completes in a second round at that instant, followed by another
//! pass).
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

use crate::{BatchCluster, BatchError, BatchJob, BatchScheduler, RunToken, Started, Submitted};
use cosched_core::engine::{self, EngineError, Event, EventQueue, Simulation};
use cosched_core::{DEFAULT_SLOWDOWN_TAU, Duration, JobId, JobRecord, Report, RigidJob, Time};
use cosched_workload::admit::{Admissible, admit_iter};
use cosched_workload::swf::RigidTrace;

#[derive(Clone, Copy, Debug)]
enum SimEvent {
    Completion(RunToken),
    Arrival(usize),
}

impl Event for SimEvent {
    fn class(&self) -> u8 {
        match self {
            SimEvent::Completion(_) => 0,
            SimEvent::Arrival(_) => 1,
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

/// Simulates a batch cluster of `capacity` units under a scheduler.
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
pub struct BatchSim<S> {
    capacity: u32,
    scheduler: S,
    tau: Duration,
}

/// How many arrivals pass between progress callbacks.
const PROGRESS_EVERY: usize = 1 << 14;

impl<S: BatchScheduler> BatchSim<S> {
    /// A simulator for a cluster of `capacity` units (at least 1).
    pub fn new(capacity: u32, scheduler: S) -> Result<Self, BatchError> {
        BatchCluster::counted(capacity)?;
        Ok(BatchSim {
            capacity,
            scheduler,
            tau: DEFAULT_SLOWDOWN_TAU,
        })
    }

    /// Uses `tau` for the bounded slowdown instead of 10 s.
    pub fn with_slowdown_tau(mut self, tau: Duration) -> Self {
        self.tau = tau;
        self
    }

    /// The scheduler (e.g. to read its state after a run).
    pub fn scheduler(&self) -> &S {
        &self.scheduler
    }

    /// Consumes the simulator and returns its scheduler.
    pub fn into_scheduler(self) -> S {
        self.scheduler
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
            scheduler: &mut self.scheduler,
            records: Vec::with_capacity(workload.len()),
            rejected: Vec::new(),
            started: Vec::new(),
            max_queue_len: 0,
            queue_area: 0,
            last_time: start_time,
            progress,
            workload,
        };
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
    scheduler: &'a mut S,
    workload: Vec<BatchJob>,
    records: Vec<JobRecord>,
    rejected: Vec<JobRecord>,
    started: Vec<Started>,
    max_queue_len: usize,
    /// Queue length integrated over time, job-seconds.
    queue_area: i128,
    /// The last instant seen.
    last_time: Time,
    progress: P,
}

impl<S: BatchScheduler, P: FnMut(usize, usize)> Simulation for Run<'_, S, P> {
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
        }
        Ok(())
    }

    fn settle(&mut self, now: Time, queue: &mut EventQueue<SimEvent>) -> Result<(), BatchError> {
        self.max_queue_len = self.max_queue_len.max(self.cluster.queue_len());
        self.cluster
            .try_schedule(now, self.scheduler, &mut self.started)?;
        for s in self.started.drain(..) {
            queue
                .schedule(s.end, SimEvent::Completion(s.token))
                .map_err(EngineError::from)?;
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
/// [`cosched_workload::admit`]'s; other simulators built on [`BatchCluster`] use this to
/// read their batch workload as batch jobs.
pub fn admit(jobs: &[RigidJob]) -> Result<(Vec<BatchJob>, usize), BatchError> {
    let admitted = admit_iter(jobs.iter().map(BatchJob::rigid))?;
    Ok((admitted.jobs, admitted.invalid))
}
