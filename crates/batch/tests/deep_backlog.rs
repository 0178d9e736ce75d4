//! Conservative backfilling on a deep backlog whose jobs all end early. Each early
//! end makes the pass plan again, and an exact plan of the whole queue per completion took
//! over 60 s (20,000 staggered jobs, about 8,000 queued) and 106 s (20,000 full-width jobs).
//! The pass now plans only the queue prefix up to the last job that could start now (the rest
//! of the plan cannot start anything), which makes the full-width burst cheap; the staggered
//! backlog, whose small jobs keep that prefix deep, runs under the bounded policy. Both run in
//! seconds in a debug build, and the schedules are checked against what they must be.

mod shapes;

use cosched_batch::{BatchSim, Bounds, Conservative, scenario};
use cosched_core::{Duration, JobId, Time};
use shapes::{CAPACITY, full_width_burst, staggered_backlog};

#[test]
fn a_burst_of_full_width_jobs_that_end_early_runs_back_to_back() {
    let jobs = full_width_burst(20_000);
    let out = BatchSim::new(CAPACITY)
        .unwrap()
        .run(&mut scenario::conservative(), &jobs)
        .unwrap();
    assert_eq!(out.report.completed, 20_000);
    // Each job starts when the one before ends, 100 s later (not at its 200 s estimate).
    for r in &out.records {
        assert_eq!(r.start, Some(Time((r.id.0 as i64 - 1) * 100)), "{:?}", r.id);
    }
    assert_eq!(out.report.last_end_s, 2_000_000);
}

/// The staggered shape is where the exact plan stays deep (small jobs far back could start
/// now): the bounded policy, Slurm's defaults, runs it (20,000 jobs: 1.3 s of CPU in the
/// bench; 6,000 here, for a debug build).
#[test]
fn a_staggered_deep_backlog_runs_under_the_bounded_policy() {
    let jobs = staggered_backlog(6_000);
    let out = BatchSim::new(CAPACITY)
        .unwrap()
        .run(&mut scenario::conservative_bounded(), &jobs)
        .unwrap();
    assert_eq!(out.report.completed, 6_000);
    assert!(out.stats.max_queue_len > 1_000, "{:?}", out.stats);
    // Never more units busy than the machine has.
    let mut events: Vec<(Time, i64)> = out
        .records
        .iter()
        .flat_map(|r| {
            let size = i64::from(r.size);
            [(r.start.unwrap(), size), (r.end.unwrap(), -size)]
        })
        .collect();
    events.sort_by_key(|&(t, d)| (t, d));
    let mut busy = 0;
    for (t, d) in events {
        busy += d;
        assert!(busy <= i64::from(CAPACITY), "overcommitted at {t}");
    }
    let first = out.records.iter().find(|r| r.id == JobId(1)).unwrap();
    assert_eq!(first.start, Some(first.submit));
}

/// Bounds that a queue never reaches leave the exact schedule: 300 staggered jobs queue about
/// 120 deep, within 500 jobs and a day.
#[test]
fn bounds_the_queue_does_not_reach_give_the_exact_schedule() {
    let jobs = staggered_backlog(300);
    let run = |mut policy| {
        let out = BatchSim::new(CAPACITY)
            .unwrap()
            .run(&mut policy, &jobs)
            .unwrap();
        assert!(out.stats.max_queue_len > 50, "{:?}", out.stats);
        out.records
    };
    assert_eq!(
        run(scenario::conservative_bounded()),
        run(scenario::conservative())
    );
    // And tight bounds change it.
    let tight = Conservative::bounded(Bounds {
        depth: 2,
        window: Duration(600),
    });
    assert_ne!(run(tight), run(scenario::conservative()));
}
