//! Conservative backfilling against a straightforward reference: a flat availability profile
//! planned from scratch at every pass (the textbook algorithm, and this crate's implementation
//! before plans were kept between passes), which must give the same schedule job for job.

use cosched_batch::catalogue::{Backfill, Composed};
use cosched_batch::order::Order;
use cosched_batch::{BatchPolicy, BatchSim, Bounds, Conservative, Pass, SimOutcome, pass_policy};
use cosched_core::{Duration, JobId, RigidJob, Time};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Conservative backfilling planned from scratch at every pass on a flat vector of steps.
struct Reference;

/// Free units from each step's time until the next step's; the last step lasts forever.
struct Steps(Vec<(Time, i64)>);

impl Steps {
    fn new(now: Time, free: u32, releases: impl Iterator<Item = (Time, u32)>) -> Steps {
        let mut steps = vec![(now, i64::from(free))];
        for (t, units) in releases {
            let last = steps.len() - 1;
            if t <= steps[last].0 {
                steps[last].1 += i64::from(units);
            } else {
                let free = steps[last].1 + i64::from(units);
                steps.push((t, free));
            }
        }
        Steps(steps)
    }

    fn earliest_fit(&self, size: u32, duration: Duration) -> Option<Time> {
        let size = i64::from(size);
        let mut i = 0;
        while i < self.0.len() {
            let start = self.0[i].0;
            let end = start.saturating_add(duration);
            match self.0[i..]
                .iter()
                .take_while(|&&(t, _)| t == start || t < end)
                .position(|&(_, free)| free < size)
            {
                None => return Some(start),
                Some(offset) => i += offset + 1,
            }
        }
        None
    }

    fn reserve(&mut self, start: Time, duration: Duration, size: u32) {
        let end = start.saturating_add(duration);
        let first = self.split_at(start);
        let last = if end > start {
            self.split_at(end)
        } else {
            first + 1
        };
        for step in &mut self.0[first..last] {
            step.1 -= i64::from(size);
        }
    }

    fn split_at(&mut self, t: Time) -> usize {
        let i = self.0.partition_point(|&(s, _)| s <= t);
        if i > 0 && self.0[i - 1].0 == t {
            return i - 1;
        }
        if t == Time::MAX {
            return self.0.len();
        }
        let free = self.0[i.saturating_sub(1)].1;
        self.0.insert(i, (t, free));
        i
    }
}

pass_policy!(Reference);

impl Reference {
    fn plan(&mut self, pass: &mut Pass<'_>) {
        plan_from_scratch(pass, None);
    }
}

/// [`Reference`], keeping the first reservation each job is given.
#[derive(Default)]
struct Recording(BTreeMap<JobId, Time>);

pass_policy!(Recording);

impl Recording {
    fn plan(&mut self, pass: &mut Pass<'_>) {
        for (job, start) in plan_from_scratch(pass, None) {
            self.0.entry(job).or_insert(start);
        }
    }
}

/// Bounded conservative backfilling planned from scratch at every pass on flat steps: the
/// first `depth` queued jobs tested, those whose fit lies past the window left unreserved.
struct BoundedReference(Bounds);

pass_policy!(BoundedReference);

impl BoundedReference {
    fn plan(&mut self, pass: &mut Pass<'_>) {
        plan_from_scratch(pass, Some(self.0));
    }
}

/// Plans the queue from scratch, starts the jobs reserved for now, and returns every
/// reservation.
fn plan_from_scratch(pass: &mut Pass<'_>, bounds: Option<Bounds>) -> Vec<(JobId, Time)> {
    let now = pass.now();
    let mut steps = Steps::new(now, pass.free_units(), pass.releases());
    let (depth, window_end) = bounds.map_or((usize::MAX, Time::MAX), |b| {
        (b.depth, now.saturating_add(b.window))
    });
    let mut from = 0;
    let mut tested = 0;
    let mut reserved = Vec::new();
    while let Some(pos) = pass.next_queued(from) {
        if tested == depth {
            break;
        }
        tested += 1;
        from = pos + 1;
        let job = *pass.job(pos).unwrap();
        let Some(start) = steps.earliest_fit(job.size(), job.estimate()) else {
            continue;
        };
        if start > window_end {
            continue;
        }
        steps.reserve(start, job.estimate(), job.size());
        reserved.push((job.job.id, start));
        if start == now {
            pass.start(pos).unwrap();
        }
    }
    reserved
}

fn run<S: BatchPolicy>(capacity: u32, jobs: &[RigidJob], mut scheduler: S) -> SimOutcome {
    BatchSim::new(capacity)
        .unwrap()
        .run(&mut scheduler, jobs)
        .unwrap()
}

/// Random workloads on a time grid, most jobs ending exactly at their estimate (the case in
/// which plans are kept between passes), some early, some killed at it.
fn workload() -> impl Strategy<Value = (u32, Vec<RigidJob>)> {
    workload_of(0..80)
}

/// [`workload`] with a job count drawn from `jobs`.
fn workload_of(jobs: std::ops::Range<usize>) -> impl Strategy<Value = (u32, Vec<RigidJob>)> {
    (1u32..=12, prop_oneof![Just(1i64), Just(10), Just(50)]).prop_flat_map(
        move |(capacity, grid)| {
            let job = (
                (0i64..400).prop_map(move |t| t / grid * grid),
                1..=capacity + 1,
                (0i64..150).prop_map(move |t| t / grid * grid),
                prop_oneof![3 => Just(0i64), 1 => (1i64..80).prop_map(move |t| t / grid * grid)],
                prop::bool::weighted(0.05),
            );
            (
                Just(capacity),
                prop::collection::vec(job, jobs.clone()).prop_map(|specs| {
                    specs
                        .into_iter()
                        .enumerate()
                        .map(|(i, (submit, size, run, margin, overrun))| RigidJob {
                            id: JobId(i as u64 * 7 % 1009),
                            submit: Time(submit),
                            size,
                            runtime: Duration(run),
                            estimate: Duration(if overrun {
                                (run / 2).max(1)
                            } else {
                                run + margin
                            }),
                            user: None,
                            group: None,
                        })
                        .collect()
                }),
            )
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The kept plan gives the reference's schedule, record for record.
    #[test]
    fn kept_plans_match_planning_from_scratch((capacity, jobs) in workload()) {
        let fast = run(capacity, &jobs, Conservative::default());
        let slow = run(capacity, &jobs, Reference);
        prop_assert_eq!(fast.records, slow.records);
        prop_assert_eq!(fast.stats.passes, slow.stats.passes);
    }
}

/// Workloads on a time grid in which nearly every job ends before its estimate (so that most
/// passes follow early ends), a third of them full width, several often submitted at once.
fn early_workload() -> impl Strategy<Value = (u32, Vec<RigidJob>)> {
    (1u32..=16, prop_oneof![Just(1i64), Just(10), Just(50)]).prop_flat_map(|(capacity, grid)| {
        let job = (
            (0i64..600).prop_map(move |t| t / grid * grid),
            prop_oneof![1 => Just(capacity), 2 => 1..=capacity],
            (0i64..150).prop_map(move |t| t / grid * grid),
            prop_oneof![1 => Just(0i64), 6 => (1i64..300).prop_map(move |t| (t / grid * grid).max(1))],
        );
        (
            Just(capacity),
            prop::collection::vec(job, 0..120).prop_map(|specs| {
                specs
                    .into_iter()
                    .enumerate()
                    .map(|(i, (submit, size, run, margin))| RigidJob {
                        id: JobId(i as u64),
                        submit: Time(submit),
                        size,
                        runtime: Duration(run),
                        estimate: Duration(run + margin),
                        user: None,
                        group: None,
                    })
                    .collect()
            }),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Schedules replanned after early ends give the reference's schedule.
    #[test]
    fn early_ends_match_planning_from_scratch((capacity, jobs) in early_workload()) {
        let fast = run(capacity, &jobs, Conservative::default());
        let slow = run(capacity, &jobs, Reference);
        prop_assert_eq!(fast.records, slow.records);
        prop_assert_eq!(fast.stats.passes, slow.stats.passes);
    }
}

/// Small bounds on the grids of [`workload`]: depths the queues reach, windows shorter and
/// longer than the estimates.
fn bounds() -> impl Strategy<Value = Bounds> {
    (1usize..=6, prop_oneof![Just(0i64), 1i64..40, 40i64..300]).prop_map(|(depth, window)| Bounds {
        depth,
        window: Duration(window),
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The bounded policy's kept plans (across jobs left out for the window, and with the
    /// depth spent by the jobs still queued) give the schedule of a bounded plan from scratch
    /// at every pass, and so does the catalogue's generic engine in queue order, record for
    /// record.
    #[test]
    fn bounded_plans_match_planning_from_scratch(
        (capacity, jobs) in workload(),
        bounds in bounds(),
    ) {
        let fast = run(capacity, &jobs, Conservative::bounded(bounds));
        let slow = run(capacity, &jobs, BoundedReference(bounds));
        let generic = run(
            capacity,
            &jobs,
            Composed::new(Order::Fcfs, Backfill::Bounded { bounds, order: None }),
        );
        prop_assert_eq!(&fast.records, &slow.records);
        prop_assert_eq!(&generic.records, &slow.records);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// With estimates equal to run times nothing unforeseen happens, and every job starts
    /// exactly at the reservation it was given in the pass after its arrival (conservative
    /// backfilling's guarantee: no later job delays it).
    #[test]
    fn exact_estimates_keep_every_first_reservation((capacity, jobs) in workload()) {
        let jobs: Vec<RigidJob> = jobs
            .into_iter()
            .map(|j| {
                let run = j.runtime.max(Duration(1));
                RigidJob { runtime: run, estimate: run, ..j }
            })
            .collect();
        let out = run(capacity, &jobs, Conservative::default());
        let mut first = Recording::default();
        run(capacity, &jobs, &mut first);
        for record in &out.records {
            prop_assert_eq!(record.start, first.0.get(&record.id).copied(), "{:?}", record.id);
        }
    }
}

/// A plan from scratch after an early end can move a job later than its first reservation: a
/// job ahead of it takes the room the end freed and more. Job 4 is first reserved at 20
/// (behind the running jobs 1 and 2, beside job 3's reservation at 100); when job 1 ends at
/// 10 instead of 100, job 3 moves to 20 and job 4 to 70.
#[test]
fn an_early_end_can_move_a_reservation_later() {
    let job = |id, size, run, estimate| {
        RigidJob::new(JobId(id), Time(0), size, Duration(run), Duration(estimate)).unwrap()
    };
    let jobs = [
        job(1, 1, 10, 100),
        job(2, 1, 20, 20),
        job(3, 2, 50, 50),
        job(4, 1, 70, 70),
    ];
    let out = run(2, &jobs, Conservative::default());
    let start = |id| {
        out.records
            .iter()
            .find(|r| r.id == JobId(id))
            .and_then(|r| r.start)
    };
    let mut first = Recording::default();
    run(2, &jobs, &mut first);
    assert_eq!(first.0[&JobId(4)], Time(20));
    assert_eq!([start(3), start(4)], [Some(Time(20)), Some(Time(70))]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Long queues: profiles of hundreds of steps, split across many chunks.
    #[test]
    fn long_queues_match_planning_from_scratch((capacity, jobs) in workload_of(250..400)) {
        let fast = run(capacity, &jobs, Conservative::default());
        let slow = run(capacity, &jobs, Reference);
        prop_assert_eq!(fast.records, slow.records);
    }
}

/// The schedule of the SWF trace at `path` is the reference's.
fn matches_the_reference(path: &std::path::Path) {
    let trace = cosched_workload::swf::read_rigid_jobs(path).unwrap();
    // The reference plans from scratch at every pass: keep debug runs short.
    if cfg!(debug_assertions) && trace.jobs.len() > 6_000 {
        eprintln!(
            "not compared in a debug build (run with --release): {} ({} jobs)",
            path.display(),
            trace.jobs.len()
        );
        return;
    }
    let capacity = trace
        .header
        .values()
        .max_procs
        .or(trace.header.values().max_nodes)
        .and_then(|c| u32::try_from(c).ok())
        .unwrap_or(256);
    let fast = run(capacity, &trace.jobs, Conservative::default());
    let slow = run(capacity, &trace.jobs, Reference);
    assert!(fast.records == slow.records, "{}", path.display());
}

/// The Parallel Workloads Archive traces vendored in the repository give the reference's
/// schedule.
#[test]
fn vendored_traces_match_the_reference() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for trace in [
        "examples/data/swf/SDSC-SP2-sample-4961.swf.gz",
        "examples/data/swf/alea-hpc2n-subset.swf.gz",
        "examples/data/swf/NASA-iPSC-1993-3.1-cln.swf.gz",
        "crates/cli/experiments/data/lublin_256.swf.gz",
    ] {
        matches_the_reference(&root.join(trace));
    }
}

/// Every SWF trace in `../shared/data/swf` beside the checkout (or `$COSCHED_SHARED_DATA/swf`)
/// gives the reference's schedule.
#[test]
#[ignore = "needs ../shared/data"]
fn shared_traces_match_the_reference() {
    let data = std::env::var_os("COSCHED_SHARED_DATA").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        std::path::PathBuf::from,
    );
    let dir = data.join("swf");
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("this test needs {}: {e}", dir.display()));
    for entry in entries.flatten() {
        matches_the_reference(&entry.path());
    }
}

/// One step of a random cluster history: time moves on, then one change, then a pass.
#[derive(Clone, Debug)]
enum Step {
    /// A job arrives: at `now` (behind the queue), or with an earlier submit time (inserted
    /// inside the queue).
    Arrive {
        size: u32,
        runtime: i64,
        margin: i64,
        earlier: Option<i64>,
    },
    /// A running job ends now, before (or after) its predicted end.
    EndEarly(prop::sample::Index),
    /// Time moves to the next predicted end, where the jobs due end on time.
    EndOnTime,
    /// A waiting job is cancelled.
    Cancel(prop::sample::Index),
    /// A running job is stopped and requeued at its place, from its checkpoint or afresh.
    Requeue(prop::sample::Index, bool),
}

fn step(capacity: u32) -> impl Strategy<Value = (i64, Step)> {
    let step = prop_oneof![
        5 => (1..=capacity, 0i64..120, prop_oneof![Just(0i64), 1i64..60], prop::option::weighted(0.2, 1i64..200))
            .prop_map(|(size, runtime, margin, earlier)| Step::Arrive { size, runtime, margin, earlier }),
        3 => any::<prop::sample::Index>().prop_map(Step::EndEarly),
        3 => Just(Step::EndOnTime),
        1 => any::<prop::sample::Index>().prop_map(Step::Cancel),
        1 => (any::<prop::sample::Index>(), any::<bool>()).prop_map(|(i, from_checkpoint)| Step::Requeue(i, from_checkpoint)),
    ];
    (prop_oneof![Just(0i64), 0i64..30], step)
}

/// A cluster driven by hand, as a live resource manager drives it.
struct Driven<S> {
    cluster: cosched_batch::BatchCluster,
    scheduler: S,
    /// Running jobs: token and predicted end.
    running: Vec<(cosched_batch::RunToken, Time)>,
}

impl<S: BatchPolicy> Driven<S> {
    fn new(capacity: u32, scheduler: S) -> Self {
        Driven {
            cluster: cosched_batch::BatchCluster::counted(capacity).unwrap(),
            scheduler,
            running: Vec::new(),
        }
    }

    /// Ends the jobs due by `now` on time, applies `step` at `now`, then runs a pass; returns
    /// the jobs it started, in order, with their predicted ends.
    fn apply(&mut self, now: Time, step: &Step, id: u64) -> Vec<(JobId, Time)> {
        let due: Vec<_> = self
            .running
            .iter()
            .filter(|r| r.1 <= now)
            .copied()
            .collect();
        self.running.retain(|r| r.1 > now);
        for (token, end) in due {
            self.cluster.complete(end, token).unwrap();
        }
        match *step {
            Step::Arrive {
                size,
                runtime,
                margin,
                earlier,
            } => {
                let submit = Time(earlier.map_or(now.0, |back| (now.0 - back).max(0)));
                let job = cosched_batch::BatchJob {
                    id: JobId(id),
                    submit,
                    size,
                    runtime: Duration(runtime),
                    estimate: Duration(runtime + margin),
                    class: cosched_core::JobClass::Rigid,
                    resizable: None,
                };
                self.cluster.submit(job).unwrap();
            }
            Step::EndEarly(i) => {
                if !self.running.is_empty() {
                    let (token, _) = self.running.remove(i.index(self.running.len()));
                    self.cluster.complete(now, token).unwrap();
                }
            }
            Step::EndOnTime => {}
            Step::Cancel(i) => {
                let queued: Vec<JobId> = self.cluster.queue().map(|q| q.job.id).collect();
                if !queued.is_empty() {
                    self.cluster.cancel(queued[i.index(queued.len())]).unwrap();
                }
            }
            Step::Requeue(i, from_checkpoint) => {
                if !self.running.is_empty() {
                    let (token, _) = self.running.remove(i.index(self.running.len()));
                    let resume = if from_checkpoint {
                        cosched_batch::Resume::Remaining
                    } else {
                        cosched_batch::Resume::Restart
                    };
                    self.cluster.preempt(now, token.job, resume).unwrap();
                }
            }
        }
        let mut started = Vec::new();
        self.cluster
            .schedule(now, &mut self.scheduler, &mut started);
        self.running
            .extend(started.iter().map(|s| (s.token, s.predicted_end)));
        started
            .iter()
            .map(|s| (s.token.job, s.predicted_end))
            .collect()
    }
}

/// Drives the history `steps` through conservative backfilling and the reference: every pass
/// starts the same jobs.
fn matches_pass_by_pass(capacity: u32, steps: &[(i64, Step)]) -> Result<(), TestCaseError> {
    let mut fast = Driven::new(capacity, Conservative::default());
    let mut slow = Driven::new(capacity, Reference);
    let mut now = Time(0);
    for (i, (wait, step)) in steps.iter().enumerate() {
        // Time stops at every predicted end, where the jobs due end on time.
        let next_end = fast.running.iter().map(|r| r.1).min();
        now = match (step, next_end) {
            (Step::EndOnTime, Some(end)) => end.max(now),
            (_, Some(end)) => Time((now.0 + wait).min(end.0.max(now.0))),
            (_, None) => Time(now.0 + wait),
        };
        let a = fast.apply(now, step, i as u64);
        let b = slow.apply(now, step, i as u64);
        prop_assert_eq!(a, b, "pass {} at {:?} after {:?}", i, now, step);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random histories of arrivals (behind the queue and inside it), early and on-time
    /// completions, cancellations and requeues, driven through the cluster's API: every pass
    /// of the kept or incrementally replanned schedule starts what a plan from scratch starts.
    #[test]
    fn replans_match_planning_from_scratch(
        capacity in 1u32..=16,
        steps in (1u32..=16).prop_flat_map(|c| prop::collection::vec(step(c), 1..250)),
    ) {
        matches_pass_by_pass(capacity, &steps)?;
    }
}

/// A history of arrivals (some full width, several at once) and completions only, most
/// before their estimates, on a time grid.
fn early_end_step(capacity: u32, grid: i64) -> impl Strategy<Value = (i64, Step)> {
    let on_grid = move |t: i64| t / grid * grid;
    let step = prop_oneof![
        4 => (
            prop_oneof![1 => Just(capacity), 3 => 1..=capacity],
            (0i64..120).prop_map(on_grid),
            prop_oneof![1 => Just(0i64), 3 => (1i64..200).prop_map(move |t| on_grid(t).max(1))],
        )
            .prop_map(|(size, runtime, margin)| Step::Arrive { size, runtime, margin, earlier: None }),
        4 => any::<prop::sample::Index>().prop_map(Step::EndEarly),
        1 => Just(Step::EndOnTime),
    ];
    (prop_oneof![Just(0i64), (0i64..40).prop_map(on_grid)], step)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Passes after early ends only (on ties in time, with jobs wider than the idle units, and
    /// full-width jobs that no early end lets start) start what a plan from scratch starts,
    /// pass by pass.
    #[test]
    fn early_end_histories_match_planning_from_scratch(
        (capacity, steps) in (1u32..=16, prop_oneof![Just(1i64), Just(10)]).prop_flat_map(
            |(c, grid)| (Just(c), prop::collection::vec(early_end_step(c, grid), 1..250))
        ),
    ) {
        matches_pass_by_pass(capacity, &steps)?;
    }
}
