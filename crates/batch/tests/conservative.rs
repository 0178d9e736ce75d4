//! Conservative backfilling against a straightforward reference: a flat availability profile
//! planned from scratch at every pass (the textbook algorithm, and this crate's implementation
//! before plans were kept between passes), which must give the same schedule job for job.

use cosched_batch::{BatchScheduler, BatchSim, Conservative, Pass, SimOutcome};
use cosched_core::{Duration, JobId, RigidJob, Time};
use proptest::prelude::*;

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

impl BatchScheduler for Reference {
    fn name(&self) -> &'static str {
        "conservative-reference"
    }

    fn schedule(&mut self, pass: &mut Pass<'_>) {
        let now = pass.now();
        let mut steps = Steps::new(now, pass.free_units(), pass.releases());
        let mut from = 0;
        while let Some(pos) = pass.next_queued(from) {
            from = pos + 1;
            let job = *pass.job(pos).unwrap();
            let Some(start) = steps.earliest_fit(job.size(), job.estimate()) else {
                continue;
            };
            steps.reserve(start, job.estimate(), job.size());
            if start == now {
                pass.start(pos).unwrap();
            }
        }
    }
}

fn run<S: BatchScheduler>(capacity: u32, jobs: &[RigidJob], scheduler: S) -> SimOutcome {
    BatchSim::new(capacity, scheduler)
        .unwrap()
        .run(jobs)
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

/// The SWF traces in `../shared/data/swf` beside the checkout (or `$COSCHED_SHARED_DATA/swf`),
/// if present, give the reference's schedule.
#[test]
fn real_traces_match_the_reference() {
    let data = std::env::var_os("COSCHED_SHARED_DATA").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        std::path::PathBuf::from,
    );
    let dir = data.join("swf");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipped: {} not found", dir.display());
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let trace = cosched_workload::swf::read_rigid_jobs(&path).unwrap();
        // The reference plans from scratch at every pass: keep debug runs short.
        if cfg!(debug_assertions) && trace.jobs.len() > 6_000 {
            eprintln!(
                "skipped in a debug build: {} ({} jobs)",
                path.display(),
                trace.jobs.len()
            );
            continue;
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
}
