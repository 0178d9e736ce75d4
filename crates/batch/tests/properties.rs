//! Scheduler invariants over random workloads, and exact agreement with a naive reference.

mod reference;

use cosched_batch::scenario::BuiltinPolicy;
use cosched_batch::{BatchPolicy, BatchSim, Easy, Fcfs, Pass, SimOutcome, pass_policy};
use cosched_core::{Duration, JobId, RigidJob, Time};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Random workloads; times sit on a grid of 1, 10 or 50 s so that equal submit times and
/// equal predicted ends (the tie-breaking cases) are common.
fn workload(max_capacity: u32) -> impl Strategy<Value = (u32, Vec<RigidJob>)> {
    (
        1..=max_capacity,
        prop_oneof![Just(1i64), Just(10), Just(50)],
    )
        .prop_flat_map(|(capacity, grid)| {
            let job = (
                (0i64..300).prop_map(move |t| t / grid * grid),
                0..=capacity + 1,
                prop_oneof![9 => (0i64..120).prop_map(move |t| t / grid * grid), 1 => -5i64..0],
                (0i64..80).prop_map(move |t| t / grid * grid),
                prop::bool::weighted(0.1),
            );
            (
                Just(capacity),
                prop::collection::vec(job, 0..70).prop_map(|specs| {
                    specs
                        .into_iter()
                        .enumerate()
                        .map(|(i, (submit, size, run, margin, overrun))| RigidJob {
                            id: JobId(i as u64 * 7 % 101),
                            submit: Time(submit),
                            size,
                            runtime: Duration(run),
                            // Some jobs overrun their estimate and are killed at it.
                            estimate: Duration(if overrun {
                                (run / 2).max(1)
                            } else {
                                run.max(1) + margin
                            }),
                            user: None,
                            group: None,
                        })
                        .collect()
                }),
            )
        })
}

fn simulate<S: BatchPolicy>(capacity: u32, jobs: &[RigidJob], mut scheduler: S) -> (SimOutcome, S) {
    let out = BatchSim::new(capacity)
        .unwrap()
        .run(&mut scheduler, jobs)
        .unwrap();
    (out, scheduler)
}

/// Invariants every policy keeps, checked from the records alone.
fn check_common(capacity: u32, jobs: &[RigidJob], out: &SimOutcome) -> Result<(), TestCaseError> {
    let valid: BTreeMap<JobId, &RigidJob> = jobs
        .iter()
        .filter(|j| j.validate().is_ok())
        .map(|j| (j.id, j))
        .collect();
    // Every job accounted exactly once: completed, rejected or invalid.
    prop_assert_eq!(out.records.len() + out.report.invalid, jobs.len());
    prop_assert_eq!(out.records.len(), valid.len());
    let mut ids: Vec<JobId> = out.records.iter().map(|r| r.id).collect();
    ids.sort();
    ids.dedup();
    prop_assert_eq!(ids.len(), out.records.len());
    let mut usage: Vec<(i64, i64)> = Vec::new();
    for r in &out.records {
        let job = valid[&r.id];
        match (r.start, r.end) {
            (Some(start), Some(end)) => {
                prop_assert!(start >= job.submit, "{:?} starts before its submit", r.id);
                prop_assert_eq!(end, start + job.simulated_runtime());
                prop_assert!(job.size <= capacity);
                usage.push((start.0, i64::from(job.size)));
                usage.push((end.0, -i64::from(job.size)));
            }
            (None, None) => prop_assert!(job.size > capacity, "{:?} rejected but fits", r.id),
            other => prop_assert!(false, "half-finished record {:?}", other),
        }
    }
    // Units in use never exceed the capacity (ends free units before starts at one instant).
    usage.sort();
    let mut in_use = 0;
    for (_, delta) in usage {
        in_use += delta;
        prop_assert!(in_use <= i64::from(capacity));
    }
    Ok(())
}

fn starts(out: &SimOutcome) -> BTreeMap<u64, Option<i64>> {
    out.records
        .iter()
        .map(|r| (r.id.0, r.start.map(|t| t.0)))
        .collect()
}

/// Wraps EASY to remember the shadow time computed when each job first became the blocked head.
#[derive(Default)]
struct RecordingEasy {
    easy: Easy,
    first_shadow: BTreeMap<JobId, Time>,
}

impl RecordingEasy {
    fn plan(&mut self, pass: &mut Pass<'_>) {
        self.easy.plan(pass);
        if let Some(r) = self.easy.last_reservation() {
            self.first_shadow.entry(r.job).or_insert(r.shadow.time);
        }
    }
}

pass_policy!(RecordingEasy);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn fcfs_keeps_invariants_and_starts_in_queue_order((capacity, jobs) in workload(12)) {
        let (out, _) = simulate(capacity, &jobs, Fcfs);
        check_common(capacity, &jobs, &out)?;
        let mut started: Vec<_> = out.records.iter().filter_map(|r| Some(((r.submit, r.id), r.start?))).collect();
        started.sort();
        prop_assert!(started.windows(2).all(|w| w[0].1 <= w[1].1), "FCFS started out of order");
        prop_assert_eq!(starts(&out), reference::reference_starts(capacity, &jobs, false));
    }

    #[test]
    fn easy_keeps_invariants_and_head_reservations((capacity, jobs) in workload(12)) {
        let (out, recorder) = simulate(capacity, &jobs, RecordingEasy::default());
        check_common(capacity, &jobs, &out)?;
        for r in &out.records {
            if let (Some(&shadow), Some(start)) = (recorder.first_shadow.get(&r.id), r.start) {
                prop_assert!(start <= shadow, "{:?} started at {:?}, after its shadow {:?}", r.id, start, shadow);
            }
        }
    }

    #[test]
    fn easy_matches_the_naive_reference_exactly((capacity, jobs) in workload(12)) {
        let (out, _) = simulate(capacity, &jobs, Easy::default());
        prop_assert_eq!(starts(&out), reference::reference_starts(capacity, &jobs, true));
    }

    #[test]
    fn conservative_keeps_invariants((capacity, jobs) in workload(8)) {
        let (out, _) = simulate(capacity, &jobs, BuiltinPolicy::Conservative.build());
        check_common(capacity, &jobs, &out)?;
    }

    #[test]
    fn simulation_is_deterministic((capacity, jobs) in workload(8)) {
        let mut reversed = jobs.clone();
        reversed.reverse();
        let (a, _) = simulate(capacity, &jobs, Easy::default());
        let (b, _) = simulate(capacity, &reversed, Easy::default());
        prop_assert_eq!(starts(&a), starts(&b));
        prop_assert_eq!(a.report.to_json(), b.report.to_json());
    }
}
