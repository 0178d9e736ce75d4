//! The batch reproducers of the hostile-input review (`../shared/reviews/hostile-input.md`),
//! as regression tests: each gives a clean typed error or a correct result.

use cosched_batch::scenario::BuiltinPolicy;
use cosched_batch::{BatchError, BatchSim};
use cosched_core::{Duration, JobId, RigidJob, Time};

fn job(id: u64, submit: i64, size: u32, run: i64, estimate: i64) -> RigidJob {
    RigidJob::new(
        JobId(id),
        Time(submit),
        size,
        Duration(run),
        Duration(estimate),
    )
    .unwrap()
}

/// #2: a job whose end passes i64 stops the run with an error naming it, under every policy.
#[test]
fn an_end_past_i64_is_an_error_naming_the_job() {
    // `huge.swf`: job 2 submitted at 9223372036854775000 runs 10,000 s (estimate 20,000 s).
    let jobs = [
        job(1, 0, 4, 100, 200),
        job(2, 9_223_372_036_854_775_000, 4, 10_000, 20_000),
    ];
    for policy in BuiltinPolicy::ALL {
        let err = BatchSim::new(16)
            .unwrap()
            .run(&mut policy.build(), &jobs)
            .unwrap_err();
        // The policy refuses the start (its pass finishes with the error) or, if it issued
        // it, the cluster does.
        let err = BatchError::from(err);
        let overflow = match &err {
            BatchError::Policy { source, .. } => source.as_ref(),
            e => e,
        };
        assert!(
            matches!(overflow, BatchError::EndOverflow { job: JobId(2), .. }),
            "{policy}: {err}"
        );
        assert!(err.to_string().contains("job 2"), "{err}");
    }
}

/// #3: busy unit-seconds beyond i64 are exact, and the utilisation is right (it printed
/// −0.5372 after an overflow).
#[test]
fn busy_unit_seconds_beyond_i64_give_the_right_utilisation() {
    // `busy.swf`: three 1,000-unit jobs of 4e15 s on 1,000 units, back to back.
    let run = 4_000_000_000_000_000;
    let jobs: Vec<RigidJob> = (1..=3)
        .map(|i| job(i, i as i64 - 1, 1000, run, run))
        .collect();
    for policy in BuiltinPolicy::ALL {
        let out = BatchSim::new(1000)
            .unwrap()
            .run(&mut policy.build(), &jobs)
            .unwrap();
        assert_eq!(out.report.busy_unit_seconds, 3 * 1000 * i128::from(run));
        assert_eq!(out.report.last_end_s, 3 * run);
        assert!((out.report.utilization - 1.0).abs() < 1e-9, "{policy}");
    }
}

/// #4: the largest capacity runs a small trace without a per-unit allocation (the cluster was
/// 68 GB of node state before the first job).
#[test]
fn the_largest_capacity_runs_a_small_trace() {
    let jobs = [job(1, 0, 4, 100, 100), job(2, 0, 4, 100, 100)];
    for policy in BuiltinPolicy::ALL {
        let out = BatchSim::new(u32::MAX)
            .unwrap()
            .run(&mut policy.build(), &jobs)
            .unwrap();
        assert_eq!(out.report.completed, 2);
        assert_eq!(out.report.last_end_s, 100);
    }
}

/// #7: full-width jobs all submitted at t = 0 under conservative backfilling run one after
/// the other (this took cubic time: 10,000 jobs exceeded 60 s).
#[test]
fn a_burst_of_full_width_jobs_runs_back_to_back_under_conservative() {
    let n = 3_000;
    let jobs: Vec<RigidJob> = (1..=n).map(|i| job(i, 0, 16, 100, 100)).collect();
    let out = BatchSim::new(16)
        .unwrap()
        .run(&mut BuiltinPolicy::Conservative.build(), &jobs)
        .unwrap();
    assert_eq!(out.report.completed, n as usize);
    for r in &out.records {
        assert_eq!(r.start, Some(Time((r.id.0 as i64 - 1) * 100)));
    }
}

/// Extreme submit times at both ends of i64 simulate, and the report's spans stay exact.
#[test]
fn submit_times_at_both_ends_of_i64_simulate() {
    let jobs = [
        job(1, i64::MIN, 1, 10, 10),
        job(2, i64::MAX - 10, 1, 10, 10),
    ];
    for policy in BuiltinPolicy::ALL {
        let out = BatchSim::new(1)
            .unwrap()
            .run(&mut policy.build(), &jobs)
            .unwrap();
        assert_eq!(out.report.completed, 2);
        assert_eq!(out.report.last_end_s, i64::MAX);
        assert!(out.report.utilization > 0.0 && out.report.utilization < 1e-15);
        assert_eq!(out.report.overall.max_wait_s, 0.0);
    }
}
