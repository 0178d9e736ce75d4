//! Trace-driven simulation of one batch cluster.
//!
//! [`BatchSim`] feeds a workload of rigid jobs to a [`BatchCluster`] on the core event engine.
//! At each instant it processes **all completions, then all arrivals in job-id order, then one
//! scheduling pass** (a job that starts and ends in the same instant — run time 0 — completes
//! in a second round at that instant, followed by another pass).
//!
//! Input rules (documented in the [crate docs](crate)): a job failing
//! [`RigidJob::validate`] (size 0, negative run time) is counted invalid and skipped; a job
//! larger than the capacity is rejected (never started) and reported with no start or end; the
//! simulated run time is `min(runtime, estimate)`.

use crate::{BatchCluster, BatchError, BatchJob, BatchScheduler, RunToken, Started, Submitted};
use cosched_core::{
    DEFAULT_SLOWDOWN_TAU, Duration, Event, EventQueue, JobRecord, Report, RigidJob, Time,
};
use rustc_hash::FxHashSet;

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
        BatchCluster::new(capacity)?;
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

    /// Like [`BatchSim::run`], calling `progress(arrived, total)` every few thousand arrivals
    /// and once at the end.
    pub fn run_with_progress(
        &mut self,
        jobs: &[RigidJob],
        mut progress: impl FnMut(usize, usize),
    ) -> Result<SimOutcome, BatchError> {
        let (workload, invalid) = admit(jobs)?;
        let mut cluster = BatchCluster::new(self.capacity)?;
        let total = workload.len();
        let mut records = Vec::with_capacity(total);
        let mut rejected = Vec::new();
        let mut stats = SimStats::default();
        let mut started: Vec<Started> = Vec::new();
        let start_time = workload.first().map_or(Time::ZERO, |j| j.submit);
        let mut events = EventQueue::new(start_time);
        if !workload.is_empty() {
            events
                .schedule(start_time, SimEvent::Arrival(0))
                .expect("clock starts at the first submit");
        }
        let mut queue_area = 0i128;
        let mut last_time = start_time;
        while let Some((now, first)) = events.pop() {
            queue_area += cluster.queue_len() as i128 * i128::from((now - last_time).0);
            last_time = now;
            let mut next = Some(first);
            while let Some(event) = next {
                stats.events += 1;
                match event {
                    SimEvent::Completion(token) => {
                        records.extend(cluster.complete(now, token));
                    }
                    SimEvent::Arrival(i) => {
                        let job = workload[i];
                        if cluster.submit(job)? == Submitted::Rejected {
                            rejected.push(job.unstarted_record());
                        }
                        if let Some(next_job) = workload.get(i + 1) {
                            events
                                .schedule(next_job.submit, SimEvent::Arrival(i + 1))
                                .expect("arrivals are sorted");
                        }
                        if (i + 1) % PROGRESS_EVERY == 0 {
                            progress(i + 1, total);
                        }
                    }
                }
                next = events.pop_now();
            }
            stats.passes += 1;
            stats.max_queue_len = stats.max_queue_len.max(cluster.queue_len());
            cluster.schedule(now, &mut self.scheduler, &mut started);
            for s in started.drain(..) {
                events
                    .schedule(s.end, SimEvent::Completion(s.token))
                    .expect("runs end at or after their start");
            }
        }
        progress(total, total);
        let span = (last_time - start_time).0;
        stats.mean_queue_len = if span > 0 {
            queue_area as f64 / span as f64
        } else {
            0.0
        };
        records.append(&mut rejected);
        let report = Report::new(
            self.capacity,
            &records,
            invalid,
            cluster.busy_unit_seconds(),
            self.tau,
        );
        Ok(SimOutcome {
            records,
            report,
            stats,
        })
    }
}

/// Valid jobs as batch jobs sorted by (submit, id), and the count of invalid ones (those failing
/// [`RigidJob::validate`]); a repeated job id is an error. Other simulators built on
/// [`BatchCluster`] use it to read their batch workload by the same rules.
pub fn admit(jobs: &[RigidJob]) -> Result<(Vec<BatchJob>, usize), BatchError> {
    let mut seen = FxHashSet::default();
    seen.reserve(jobs.len());
    let mut workload = Vec::with_capacity(jobs.len());
    let mut invalid = 0;
    for job in jobs {
        if !seen.insert(job.id) {
            return Err(BatchError::DuplicateJob(job.id));
        }
        if job.validate().is_ok() {
            workload.push(BatchJob::rigid(job));
        } else {
            invalid += 1;
        }
    }
    workload.sort_by_key(|j| (j.submit, j.id));
    Ok((workload, invalid))
}
