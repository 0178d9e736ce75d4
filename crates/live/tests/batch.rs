//! The live batch executor on the in-memory platform: the same workload gives the schedule
//! the batch simulator gives, under every kind of policy of the catalogue and one written
//! here, with or without restarts, and no job starts twice.

use cosched_batch::catalogue::PolicySpec;
use cosched_batch::{BatchJob, BatchPolicy, BatchSim, Pass, admit, pass_policy};
use cosched_core::{Duration, JobId, JobRecord, RigidJob, Time};
use cosched_live::{BatchExecutor, BatchLiveError, Journal, MemoryBatch};
use proptest::prelude::*;

const POLICIES: [&str; 6] = [
    "fcfs",
    "easy",
    "conservative",
    "sjf+easy",
    "wfp3+conservative",
    "fcfs+bounded(depth=2,window=100)",
];

fn spec(name: &str) -> PolicySpec {
    name.parse().expect("a catalogue name")
}

/// (id, start, end, size), sorted.
fn schedule(records: &[JobRecord]) -> Vec<(u64, Option<i64>, Option<i64>, u32)> {
    let mut s: Vec<_> = records
        .iter()
        .map(|r| {
            (
                r.id.0,
                r.start.map(|t| t.secs()),
                r.end.map(|t| t.secs()),
                r.size,
            )
        })
        .collect();
    s.sort_unstable();
    s
}

/// Runs `jobs` through the executor on a fresh [`MemoryBatch`] of `nodes` nodes, stepping at
/// each arrival, end and wake; after the steps listed in `restarts` the executor is dropped
/// and resumed from its journal (through JSON) with a fresh policy.
fn run_live<P: BatchPolicy>(
    jobs: &[RigidJob],
    nodes: u32,
    policy: impl Fn() -> P,
    restarts: &[usize],
) -> Result<(Vec<JobRecord>, MemoryBatch), BatchLiveError> {
    let (workload, _) = admit(jobs)?;
    let double = MemoryBatch::new(nodes);
    let start = workload.first().map_or(Time(0), |j| j.submit);
    let mut exec = BatchExecutor::start(start, policy(), double.clone(), "job-", None)?;
    let mut next = 0;
    let mut steps = 0;
    loop {
        let t = [
            workload.get(next).map(|j| j.submit),
            double.next_end(),
            exec.next_wake(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(t) = t else { break };
        double.advance(t);
        while workload.get(next).is_some_and(|j| j.submit <= t) {
            exec.submit(workload[next])?;
            next += 1;
        }
        exec.step(t)?;
        steps += 1;
        if restarts.contains(&steps) {
            let text = serde_json::to_string(exec.journal()).expect("a journal serialises");
            let journal: Journal = serde_json::from_str(&text).expect("and reads back");
            drop(exec);
            exec = BatchExecutor::resume(journal, policy(), double.clone(), None)?;
        }
    }
    assert!(exec.is_idle(), "everything ran");
    Ok((exec.records().to_vec(), double))
}

fn simulated(jobs: &[RigidJob], nodes: u32, name: &str) -> Vec<JobRecord> {
    BatchSim::new(nodes)
        .expect("nodes")
        .run(&mut spec(name).build(), jobs)
        .expect("a simulation")
        .records
}

/// FCFS started at 0 on a fresh double of `nodes` nodes, its jobs named `j<id>`.
fn fcfs_on(
    nodes: u32,
) -> (
    MemoryBatch,
    BatchExecutor<Box<dyn BatchPolicy + Send>, MemoryBatch>,
) {
    let double = MemoryBatch::new(nodes);
    let exec =
        BatchExecutor::start(Time(0), spec("fcfs").build(), double.clone(), "j", None).unwrap();
    (double, exec)
}

fn job(id: u64, submit: i64, size: u32, run: i64, est: i64) -> RigidJob {
    RigidJob::new(JobId(id), Time(submit), size, Duration(run), Duration(est)).expect("a job")
}

fn jobs_strategy() -> impl Strategy<Value = Vec<RigidJob>> {
    prop::collection::vec((0i64..300, 1u32..=9, 1i64..120, 0i64..80), 1..30).prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (submit, size, run, extra))| {
                // Some estimates fall short of the run time: those jobs are cut at it.
                let est = (run + extra - 20).max(1);
                job(i as u64 + 1, submit, size, run, est)
            })
            .collect()
    })
}

#[test]
fn a_small_workload_runs_as_simulated_under_each_policy() {
    let jobs = [
        job(1, 0, 3, 100, 100),
        job(2, 1, 4, 10, 10),
        job(3, 2, 1, 50, 60),
        job(4, 2, 9, 5, 5), // larger than the cluster: rejected, never started
        job(5, 40, 2, 30, 20),
    ];
    for name in POLICIES {
        let (records, double) = run_live(&jobs, 4, || spec(name).build(), &[]).unwrap();
        assert_eq!(
            schedule(&records),
            schedule(&simulated(&jobs, 4, name)),
            "{name}"
        );
        assert!(double.starts().iter().all(|(_, n)| *n == 1), "{name}");
    }
}

/// A policy written outside the batch crate runs live as it simulates.
struct HeadOnly;
impl HeadOnly {
    fn plan(&mut self, pass: &mut Pass<'_>) {
        while let Some(head) = pass.next_queued(0) {
            if pass.start(head).is_err() {
                break;
            }
        }
    }
}
pass_policy!(HeadOnly);

#[test]
fn a_downstream_policy_runs_live() {
    let jobs = [job(1, 0, 2, 10, 10), job(2, 0, 3, 5, 5), job(3, 1, 1, 5, 5)];
    let (records, _) = run_live(&jobs, 4, || HeadOnly, &[1]).unwrap();
    let sim = BatchSim::new(4).unwrap().run(&mut HeadOnly, &jobs).unwrap();
    assert_eq!(schedule(&records), schedule(&sim.records));
}

/// A crash after the journal was saved but before the platform took the starts: the restarted
/// executor starts them, once.
#[test]
fn starts_lost_in_a_crash_are_applied_once_after_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let double = MemoryBatch::new(4);
    let mut exec = BatchExecutor::start(
        Time(0),
        spec("easy").build(),
        double.clone(),
        "job-",
        Some(state.clone()),
    )
    .unwrap();
    for j in [
        job(1, 0, 2, 10, 10),
        job(2, 0, 2, 20, 20),
        job(3, 0, 4, 5, 5),
    ] {
        exec.submit(BatchJob::rigid(&j)).unwrap();
    }
    double.set_failing_starts(true);
    assert!(matches!(
        exec.step(Time(0)),
        Err(BatchLiveError::Platform(_))
    ));
    drop(exec);
    assert!(double.starts().iter().all(|(_, n)| *n == 0));
    double.set_failing_starts(false);
    let journal: Journal = serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
    assert_eq!(journal.instants.len(), 1);
    assert_eq!(journal.instants[0].started.len(), 2);
    let mut exec =
        BatchExecutor::resume(journal, spec("easy").build(), double.clone(), Some(state)).unwrap();
    let starts = double.starts();
    assert_eq!(
        starts,
        [
            ("job-1".into(), 1),
            ("job-2".into(), 1),
            ("job-3".into(), 0)
        ]
    );
    // Resuming again starts nothing twice.
    let journal: Journal =
        serde_json::from_slice(&std::fs::read(dir.path().join("state.json")).unwrap()).unwrap();
    let again = BatchExecutor::resume(journal, spec("easy").build(), double.clone(), None).unwrap();
    assert_eq!(double.starts(), starts);
    drop(again);
    for t in [10, 20, 25] {
        double.advance(Time(t));
        exec.step(Time(t)).unwrap();
    }
    assert!(exec.is_idle());
    assert_eq!(
        schedule(exec.records()),
        [
            (1, Some(0), Some(10), 2),
            (2, Some(0), Some(20), 2),
            (3, Some(20), Some(25), 4)
        ]
    );
}

/// A job that ended while the executor was down (its end never read) is told to the policy at
/// the first step after the restart, and recorded as ended when it did; a journal replayed by
/// another policy is refused.
#[test]
fn ends_missed_while_down_are_applied_and_a_diverging_replay_is_refused() {
    let (double, mut exec) = fcfs_on(2);
    for j in [job(1, 0, 2, 10, 10), job(2, 0, 1, 5, 5), job(3, 0, 1, 1, 1)] {
        exec.submit(BatchJob::rigid(&j)).unwrap();
    }
    exec.step(Time(0)).unwrap();
    let journal = exec.journal().clone();
    drop(exec);
    double.advance(Time(12));
    double.drop_unread_ends();
    let sjf = BatchExecutor::resume(journal.clone(), spec("sjf").build(), double.clone(), None);
    assert!(
        matches!(sjf, Err(BatchLiveError::Diverged { .. })),
        "{:?}",
        sjf.err()
    );
    let mut exec =
        BatchExecutor::resume(journal, spec("fcfs").build(), double.clone(), None).unwrap();
    exec.step(Time(15)).unwrap();
    assert_eq!(schedule(exec.records()), [(1, Some(0), Some(10), 2)]);
    let told = exec.journal().instants.last().unwrap();
    assert_eq!(
        (told.time, &told.end_times[..]),
        (Time(15), &[(JobId(1), Time(10))][..])
    );
    assert!(matches!(
        exec.step(Time(14)),
        Err(BatchLiveError::TimeBackwards { .. })
    ));
    assert!(exec.submit(BatchJob::rigid(&job(2, 0, 1, 1, 1))).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The executor on the in-memory platform gives the simulator's schedule (every start,
    /// end and size), whatever the policy, the workload and where it restarts; every job
    /// starts at most once.
    #[test]
    fn the_live_schedule_is_the_simulated_one(
        jobs in jobs_strategy(),
        nodes in 1u32..=8,
        policy in 0usize..POLICIES.len(),
        restarts in prop::collection::vec(1usize..40, 0..3),
    ) {
        let name = POLICIES[policy];
        let (records, double) = run_live(&jobs, nodes, || spec(name).build(), &restarts).unwrap();
        prop_assert_eq!(schedule(&records), schedule(&simulated(&jobs, nodes, name)));
        prop_assert!(double.starts().iter().all(|(_, n)| *n == 1));
    }
}

/// A submission that fails loses neither the ends read in that step nor the arrivals: the
/// next step tells the policy both, at its own time.
#[test]
fn a_failed_submission_loses_no_end_and_no_arrival() {
    let (double, mut exec) = fcfs_on(2);
    exec.submit(BatchJob::rigid(&job(1, 0, 2, 10, 10))).unwrap();
    exec.step(Time(0)).unwrap();
    double.advance(Time(10));
    exec.submit(BatchJob::rigid(&job(2, 10, 2, 5, 5))).unwrap();
    double.set_failing_submits(true);
    assert!(matches!(
        exec.step(Time(10)),
        Err(BatchLiveError::Platform(_))
    ));
    assert!(exec.journal().instants.len() == 1 && exec.records().is_empty());
    double.set_failing_submits(false);
    double.advance(Time(11));
    exec.step(Time(11)).unwrap();
    double.advance(Time(16));
    exec.step(Time(16)).unwrap();
    assert!(exec.is_idle());
    assert_eq!(
        schedule(exec.records()),
        [(1, Some(0), Some(10), 2), (2, Some(11), Some(16), 2)]
    );
}

/// Node-seconds (size × (end − start) of each record) as the simulator counts them, however
/// late the executor learns of the ends: polled every 7 s, and restarted once with the ends
/// that came while it was down never read (a restarted reader of the epilog's log). Each
/// record ends at the platform's end, so each job's node-seconds equal the simulated ones.
#[test]
fn node_seconds_equal_the_simulated_ones_across_a_restart_and_slow_polls() {
    let jobs = [
        job(1, 0, 3, 100, 120),
        job(2, 5, 4, 37, 40),
        job(3, 9, 1, 53, 60),
        job(4, 20, 2, 71, 80),
        job(5, 30, 4, 11, 20),
    ];
    let (workload, _) = admit(&jobs).unwrap();
    let double = MemoryBatch::new(4);
    let mut exec =
        BatchExecutor::start(Time(0), spec("easy").build(), double.clone(), "j", None).unwrap();
    let mut t = 0;
    let mut next = 0;
    while next < workload.len() || !exec.is_idle() {
        double.advance(Time(t));
        while workload.get(next).is_some_and(|j| j.submit <= Time(t)) {
            exec.submit(workload[next]).unwrap();
            next += 1;
        }
        exec.step(Time(t)).unwrap();
        if t == 63 {
            // Down from 63 to 140: job 2 and job 1 end unseen.
            let journal = exec.journal().clone();
            drop(exec);
            double.advance(Time(140));
            double.drop_unread_ends();
            exec =
                BatchExecutor::resume(journal, spec("easy").build(), double.clone(), None).unwrap();
            t = 140;
            continue;
        }
        t += 7;
        assert!(t < 2000, "the run ends");
    }
    let node_s = |records: &[JobRecord]| -> Vec<(u64, i64)> {
        let mut v: Vec<_> = records
            .iter()
            .map(|r| {
                let (start, end) = (r.start.unwrap(), r.end.unwrap());
                (r.id.0, i64::from(r.size) * end.since(start).0)
            })
            .collect();
        v.sort_unstable();
        v
    };
    let sim = simulated(&jobs, 4, "easy");
    assert_eq!(node_s(exec.records()), node_s(&sim));
    let missed: Vec<_> = exec
        .journal()
        .instants
        .iter()
        .flat_map(|i| i.end_times.iter().filter(move |(_, at)| *at < i.time))
        .collect();
    assert!(!missed.is_empty(), "some ends were learnt late");
}

/// A held job its user cancels leaves the policy's queue at the next step (recorded
/// unstarted), and a restart replays the withdrawal.
#[test]
fn a_held_job_cancelled_by_its_user_leaves_the_queue_at_the_next_step() {
    let (double, mut exec) = fcfs_on(2);
    for j in [
        job(1, 0, 2, 10, 10),
        job(2, 0, 2, 10, 10),
        job(3, 0, 1, 5, 5),
    ] {
        exec.submit(BatchJob::rigid(&j)).unwrap();
    }
    exec.step(Time(0)).unwrap();
    assert_eq!(exec.cluster().queue_len(), 2);
    assert!(double.cancel_held("j2"));
    double.advance(Time(4));
    exec.step(Time(4)).unwrap();
    assert_eq!(
        exec.cluster().queue_len(),
        1,
        "job 2 is gone at the next step"
    );
    assert_eq!(
        exec.journal().instants.last().unwrap().withdrawn,
        [JobId(2)]
    );
    let journal = exec.journal().clone();
    let mut exec =
        BatchExecutor::resume(journal, spec("fcfs").build(), double.clone(), None).unwrap();
    assert_eq!(exec.cluster().queue_len(), 1, "the restart replays it");
    for t in [10, 15] {
        double.advance(Time(t));
        exec.step(Time(t)).unwrap();
    }
    assert!(exec.is_idle());
    assert_eq!(
        schedule(exec.records()),
        [
            (1, Some(0), Some(10), 2),
            (2, None, None, 2),
            (3, Some(10), Some(15), 1)
        ]
    );
}

/// A node drained on the platform leaves the policy's view at the next step (a busy one once
/// its job ends) and comes back when resumed; a restart replays both.
#[test]
fn drained_nodes_leave_the_policys_view_until_resumed() {
    let (double, mut exec) = fcfs_on(4);
    exec.submit(BatchJob::rigid(&job(1, 0, 1, 10, 10))).unwrap();
    exec.step(Time(0)).unwrap();
    let busy = double.running_on("j1").unwrap()[0].clone();
    let idle = ["n1", "n2", "n3", "n4"]
        .into_iter()
        .find(|n| *n != busy)
        .unwrap();
    double.set_available(&busy, false);
    double.set_available(idle, false);
    exec.submit(BatchJob::rigid(&job(2, 1, 3, 5, 5))).unwrap();
    double.advance(Time(1));
    exec.step(Time(1)).unwrap();
    assert_eq!(exec.cluster().offline_units(), 1, "the idle one at once");
    assert_eq!(
        exec.cluster().queue_len(),
        1,
        "3 nodes: 2 free, one drained"
    );
    double.advance(Time(10));
    exec.step(Time(10)).unwrap();
    assert_eq!(
        exec.cluster().offline_units(),
        2,
        "the busy one once its job ended"
    );
    assert_eq!(exec.cluster().queue_len(), 1);
    double.set_available(idle, true);
    double.advance(Time(12));
    exec.step(Time(12)).unwrap();
    assert_eq!(
        exec.cluster().queue_len(),
        0,
        "job 2 runs on the resumed node"
    );
    assert!(!double.running_on("j2").unwrap().contains(&busy));
    let journal = exec.journal().clone();
    let exec = BatchExecutor::resume(journal, spec("fcfs").build(), double.clone(), None).unwrap();
    assert_eq!(
        exec.cluster().offline_units(),
        1,
        "the restart replays the drains"
    );
    assert_eq!(double.starts(), [("j1".into(), 1), ("j2".into(), 1)]);
}
