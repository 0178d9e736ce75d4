//! EASY backfilling, job for job, against the naive reference in `reference/`: on workloads
//! that keep the wait queue deep (bursts of equal submit times, sizes up to the machine, run
//! times above and below the estimates, zero estimates), with cancellations of waiting jobs,
//! through the simulator and through both kinds of cluster driven directly.
//!
//! The queue's skyline tree only folds, goes stale between repairs and compacts with hundreds
//! of jobs waiting, so the long cases matter: a bug in the tree that the small cases miss
//! shows up there as a different start.

mod reference;

use cosched_batch::{BatchCluster, BatchSim, Easy, Started, Submitted};
use cosched_core::{Duration, JobId, RigidJob, Time};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// A waiting job withdrawn at a time: `(time, job id)`.
type Cancellation = (i64, u64);

/// A value from 0 to `max`, log-uniform: small values (and ties among them) are common, large
/// ones present.
fn log_uniform(max: i64) -> impl Strategy<Value = i64> {
    let bits = 64 - max.leading_zeros();
    (0..=bits, any::<u64>()).prop_map(move |(b, r)| {
        let span = (1i64 << b) - 1;
        (r % (span as u64 + 1)) as i64 % (max + 1)
    })
}

/// Random deep-queue workloads with cancellations. Submit times come in bursts (most gaps
/// are 0), times sit on a grid of 1, 10 or 60 s so that equal predicted ends are common, and
/// a tenth of the jobs overrun their estimate and are killed at it.
fn workload(
    jobs: std::ops::Range<usize>,
) -> impl Strategy<Value = (u32, Vec<RigidJob>, Vec<Cancellation>)> {
    (
        prop_oneof![2 => 1u32..=16, 2 => 17u32..=128, 1 => Just(1024u32)],
        prop_oneof![Just(1i64), Just(10), Just(60)],
    )
        .prop_flat_map(move |(capacity, grid)| {
            let on_grid = move |t: i64| t / grid * grid;
            let job = (
                prop_oneof![6 => Just(0i64), 1 => log_uniform(600)],
                prop_oneof![
                    12 => log_uniform(i64::from(capacity)).prop_map(|s| s.max(1) as u32),
                    1 => Just(capacity),
                    1 => Just(capacity + 1),
                ],
                log_uniform(20_000).prop_map(on_grid),
                prop_oneof![
                    4 => log_uniform(5_000).prop_map(on_grid),
                    1 => Just(0i64),
                ],
                prop::bool::weighted(0.1),
                prop::bool::weighted(0.02),
            );
            let cancel = (0usize..10_000, log_uniform(30_000).prop_map(on_grid));
            (
                Just(capacity),
                prop::collection::vec(job, jobs.clone()),
                prop::collection::vec(cancel, 0..jobs.end / 8 + 1),
            )
        })
        .prop_map(|(capacity, specs, cancels)| {
            let mut submit = 0;
            let jobs: Vec<RigidJob> = specs
                .into_iter()
                .enumerate()
                .map(|(i, (gap, size, run, margin, overrun, zero))| {
                    submit += gap;
                    RigidJob {
                        // Ids out of submit order, unique below 10,007 jobs.
                        id: JobId(i as u64 * 7_919 % 10_007),
                        submit: Time(submit),
                        size,
                        runtime: Duration(run),
                        estimate: Duration(if zero {
                            0
                        } else if overrun {
                            (run / 2).max(1)
                        } else {
                            run.max(1) + margin
                        }),
                        user: None,
                        group: None,
                    }
                })
                .collect();
            let cancellations = if jobs.is_empty() {
                Vec::new()
            } else {
                cancels
                    .into_iter()
                    .map(|(pick, after)| {
                        let job = &jobs[pick % jobs.len()];
                        (job.submit.0 + after, job.id.0)
                    })
                    .collect()
            };
            (capacity, jobs, cancellations)
        })
}

/// Drives `cluster` with EASY the way the simulator does (at each instant: completions,
/// cancellations, arrivals, one pass; zero-length runs end in a second round), and returns
/// every job's start (`None`: rejected, or cancelled while waiting).
fn drive(
    mut cluster: BatchCluster,
    jobs: &[RigidJob],
    cancellations: &[Cancellation],
) -> BTreeMap<u64, Option<i64>> {
    let (workload, _invalid) = cosched_batch::admit(jobs).unwrap();
    let mut cancellations = cancellations.to_vec();
    cancellations.sort();
    let (mut next_job, mut next_cancellation) = (0, 0);
    let mut running: Vec<Started> = Vec::new();
    let mut easy = Easy::default();
    let mut starts = BTreeMap::new();
    loop {
        let t = [
            workload.get(next_job).map(|j| j.submit.0),
            running.iter().map(|s| s.end.0).min(),
            cancellations.get(next_cancellation).map(|c| c.0),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(t) = t else { break };
        let now = Time(t);
        let mut first_round = true;
        loop {
            running.retain(|s| {
                if s.end == now {
                    assert!(cluster.complete(now, s.token).is_some());
                }
                s.end != now
            });
            while first_round
                && cancellations
                    .get(next_cancellation)
                    .is_some_and(|c| c.0 == t)
            {
                let id = JobId(cancellations[next_cancellation].1);
                next_cancellation += 1;
                let queued = cluster.queued_job(id).copied();
                match cluster.cancel(id) {
                    Ok(job) => {
                        assert_eq!(Some(job), queued);
                        starts.insert(id.0, None);
                    }
                    Err(e) => assert_eq!(queued, None, "{e}"),
                }
                assert_eq!(cluster.queued_job(id), None);
            }
            while first_round && workload.get(next_job).is_some_and(|j| j.submit == now) {
                let job = workload[next_job];
                next_job += 1;
                if cluster.submit(job).unwrap() == Submitted::Rejected {
                    starts.insert(job.id.0, None);
                }
            }
            first_round = false;
            let mut started = Vec::new();
            cluster.try_schedule(now, &mut easy, &mut started).unwrap();
            for s in started {
                starts.insert(s.token.job.0, Some(t));
                running.push(s);
            }
            if !running.iter().any(|s| s.end == now) {
                break;
            }
        }
    }
    starts
}

fn check(
    capacity: u32,
    jobs: &[RigidJob],
    cancellations: &[Cancellation],
) -> Result<(), TestCaseError> {
    let expected =
        reference::reference_starts_with_cancellations(capacity, jobs, cancellations, true);
    let counted = drive(
        BatchCluster::counted(capacity).unwrap(),
        jobs,
        cancellations,
    );
    prop_assert_eq!(&counted, &expected, "counted cluster");
    let tracked = drive(BatchCluster::new(capacity).unwrap(), jobs, cancellations);
    prop_assert_eq!(&tracked, &expected, "tracked cluster");
    // The simulator has no cancellations.
    let out = BatchSim::new(capacity)
        .unwrap()
        .run(&mut Easy::default(), jobs)
        .unwrap();
    let simulated: BTreeMap<u64, Option<i64>> = out
        .records
        .iter()
        .map(|r| (r.id.0, r.start.map(|t| t.0)))
        .collect();
    prop_assert_eq!(
        simulated,
        reference::reference_starts(capacity, jobs, true),
        "simulator"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Short workloads: every tie-break and boundary of EASY's rules.
    #[test]
    fn easy_matches_the_reference((capacity, jobs, cancellations) in workload(0..250)) {
        check(capacity, &jobs, &cancellations)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    /// Long workloads: hundreds of waiting jobs, folded skylines, stale ancestors between
    /// repairs, compactions and tree growth.
    #[test]
    fn easy_matches_the_reference_on_deep_queues(
        (capacity, jobs, cancellations) in workload(1_500..2_500)
    ) {
        check(capacity, &jobs, &cancellations)?;
    }
}

/// A generated Lublin–Feitelson workload with Tsafrir estimates at offered load 0.92 on 1,024
/// units (the bench's shape, 20,000 jobs): hundreds of waiting jobs for most of the run.
#[test]
fn easy_matches_the_reference_on_a_generated_trace() {
    use cosched_workload::{LublinModel, TsafrirEstimates, scale_to_offered_load};
    let mut jobs = LublinModel::typeless(1_024).unwrap().generate(20_000, 11);
    TsafrirEstimates::new(Duration::from_hours(36))
        .unwrap()
        .assign(&mut jobs, 12);
    scale_to_offered_load(&mut jobs, 1_024, 0.92).unwrap();
    let out = BatchSim::new(1_024)
        .unwrap()
        .run(&mut Easy::default(), &jobs)
        .unwrap();
    assert!(out.stats.mean_queue_len > 50.0, "{:?}", out.stats);
    let simulated: BTreeMap<u64, Option<i64>> = out
        .records
        .iter()
        .map(|r| (r.id.0, r.start.map(|t| t.0)))
        .collect();
    assert!(simulated == reference::reference_starts(1_024, &jobs, true));
}
