//! The resource-manager operations the paper crates rely on: drain/offline/online, node
//! status, preemption with requeue, malleable resize and start-time predictions.

use cosched_batch::{
    BatchCluster, BatchError, BatchJob, Easy, Fcfs, OfflineOutcome, Resume, SizeRange, Started,
};
use cosched_core::{Duration, JobClass, JobId, NodeId, NodeState, Time};
use proptest::prelude::*;
use std::collections::BTreeSet;

fn job(id: u64, submit: i64, size: u32, run: i64, est: i64) -> BatchJob {
    BatchJob {
        id: JobId(id),
        submit: Time(submit),
        size,
        runtime: Duration(run),
        estimate: Duration(est),
        class: JobClass::Rigid,
        resizable: None,
    }
}

fn malleable(id: u64, size: u32, run: i64, min: u32, max: u32) -> BatchJob {
    BatchJob {
        class: JobClass::Malleable,
        resizable: Some(SizeRange {
            min,
            max,
            setup: Duration::ZERO,
        }),
        ..job(id, 0, size, run, run)
    }
}

fn start_all(c: &mut BatchCluster, now: i64) -> Vec<Started> {
    let mut started = Vec::new();
    c.schedule(Time(now), &mut Fcfs, &mut started);
    started
}

#[test]
fn drain_takes_busy_nodes_offline_when_their_job_ends() {
    let mut c = BatchCluster::new(4).unwrap();
    c.submit(job(1, 0, 2, 100, 150)).unwrap();
    let s = start_all(&mut c, 0);
    let busy = c.job_nodes(JobId(1)).unwrap()[0];
    let idle = (0..4)
        .map(NodeId)
        .find(|n| !c.job_nodes(JobId(1)).unwrap().contains(n))
        .unwrap();
    assert_eq!(c.set_offline(idle).unwrap(), OfflineOutcome::Offline);
    assert_eq!(
        c.set_offline(busy).unwrap(),
        OfflineOutcome::Draining {
            job: JobId(1),
            predicted_end: Time(150)
        }
    );
    assert_eq!(
        c.set_offline(busy),
        Err(BatchError::NodeAlreadyOffline(busy))
    );
    assert_eq!((c.free_units(), c.offline_units()), (1, 1));
    // The head reservation only counts the units that come back.
    c.submit(job(2, 1, 2, 10, 10)).unwrap();
    assert_eq!(c.predicted_head_start(Time(1)), Some(Time(150)));
    let status = c.node_statuses(Time(40));
    assert_eq!(status[busy.index()].state, NodeState::Draining(JobId(1)));
    assert_eq!(status[busy.index()].remaining_walltime, Some(Duration(110)));
    assert_eq!(status[idle.index()].state, NodeState::Offline);
    c.complete(Time(100), s[0].token).unwrap();
    assert_eq!(c.node_state(busy).unwrap(), NodeState::Offline);
    assert_eq!((c.free_units(), c.offline_units()), (2, 2));
    c.set_online(busy).unwrap();
    c.set_online(idle).unwrap();
    assert_eq!(c.set_online(idle), Err(BatchError::NodeNotOffline(idle)));
    assert_eq!(c.free_units(), 4);
    assert_eq!(
        c.set_offline(NodeId(9)),
        Err(BatchError::UnknownNode(NodeId(9)))
    );
}

#[test]
fn head_never_fitting_online_units_lets_everything_backfill() {
    let mut c = BatchCluster::new(4).unwrap();
    c.set_offline(NodeId(0)).unwrap();
    c.submit(job(1, 0, 4, 10, 10)).unwrap();
    c.submit(job(2, 1, 3, 1_000, 1_000)).unwrap();
    assert_eq!(c.predicted_head_start(Time(1)), None);
    let mut started = Vec::new();
    c.schedule(Time(1), &mut Easy::default(), &mut started);
    assert_eq!(started.len(), 1);
    assert_eq!(started[0].token.job, JobId(2));
}

#[test]
fn preemption_requeues_with_remaining_work_and_original_submit() {
    let mut c = BatchCluster::new(4).unwrap();
    c.submit(job(1, 0, 4, 100, 120)).unwrap();
    let s = start_all(&mut c, 0);
    c.submit(job(2, 5, 4, 50, 50)).unwrap();
    c.preempt(Time(30), JobId(1), Resume::Remaining).unwrap();
    assert_eq!(c.free_units(), 4);
    // The stale completion is ignored.
    assert_eq!(c.complete(Time(100), s[0].token), None);
    // Job 1 keeps submit 0, so it is ahead of job 2 with 70 s of work and 90 s of estimate.
    let q: Vec<_> = c
        .queue()
        .map(|q| (q.job.id.0, q.job.runtime.0, q.job.estimate.0))
        .collect();
    assert_eq!(q, [(1, 70, 90), (2, 50, 50)]);
    assert_eq!(c.queue().next().unwrap().preemptions, 1);
    let s = start_all(&mut c, 30);
    assert_eq!(s[0].end, Time(100));
    let record = c.complete(Time(100), s[0].token).unwrap();
    assert_eq!(
        (record.start, record.end, record.runtime),
        (Some(Time(0)), Some(Time(100)), Duration(100))
    );
    assert_eq!(c.busy_unit_seconds(), 4 * 100);
    assert_eq!(
        c.preempt(Time(100), JobId(1), Resume::Restart),
        Err(BatchError::NotRunning(JobId(1)))
    );
}

/// Run time and estimate of the queue head.
fn head_run(c: &BatchCluster) -> (Duration, Duration) {
    let head = c.queue().next().expect("a queued job").job;
    (head.runtime, head.estimate)
}

#[test]
fn preemption_resume_modes() {
    let mut c = BatchCluster::new(2).unwrap();
    c.submit(job(1, 0, 2, 100, 130)).unwrap();
    start_all(&mut c, 0);
    c.preempt(Time(40), JobId(1), Resume::Restart).unwrap();
    assert_eq!(head_run(&c), (Duration(100), Duration(130)));
    start_all(&mut c, 40);
    c.preempt(Time(50), JobId(1), Resume::WithRuntime(Duration(95)))
        .unwrap();
    assert_eq!(head_run(&c), (Duration(95), Duration(125)));
}

#[test]
fn resize_conserves_work_and_moves_the_end_linearly() {
    let mut c = BatchCluster::new(8).unwrap();
    c.submit(malleable(1, 4, 100, 2, 8)).unwrap(); // 400 unit-seconds
    let s = start_all(&mut c, 0);
    assert_eq!(s[0].end, Time(100));
    // After 50 s on 4 units, 200 unit-seconds remain: on 2 units they take 100 s.
    let shrunk = c.resize(Time(50), JobId(1), 2).unwrap();
    assert_eq!((shrunk.end, shrunk.predicted_end), (Time(150), Time(150)));
    assert_eq!(c.free_units(), 6);
    assert_eq!(
        c.complete(Time(100), s[0].token),
        None,
        "the old token is stale"
    );
    // After 50 more seconds on 2 units, 100 remain: on 8 units, ceil(100/8) = 13 s.
    let expanded = c.resize(Time(100), JobId(1), 8).unwrap();
    assert_eq!(expanded.end, Time(113));
    assert_eq!(c.free_units(), 0);
    assert!(matches!(
        c.resize(Time(100), JobId(1), 9),
        Err(BatchError::SizeOutOfRange { .. })
    ));
    let r = c.complete(Time(113), expanded.token).unwrap();
    assert_eq!(r.end, Some(Time(113)));
    assert_eq!(c.busy_unit_seconds(), 4 * 50 + 2 * 50 + 8 * 13);
}

#[test]
fn resize_refuses_rigid_jobs_and_missing_units() {
    let mut c = BatchCluster::new(4).unwrap();
    c.submit(job(1, 0, 2, 100, 100)).unwrap();
    c.submit(malleable(2, 2, 100, 1, 4)).unwrap();
    start_all(&mut c, 0);
    assert_eq!(
        c.resize(Time(1), JobId(1), 1),
        Err(BatchError::NotResizable(JobId(1)))
    );
    assert_eq!(
        c.resize(Time(1), JobId(2), 4),
        Err(BatchError::NotEnoughFreeUnits { needed: 2, free: 0 })
    );
}

#[test]
fn predicted_start_of_a_hypothetical_job() {
    let mut c = BatchCluster::new(4).unwrap();
    c.submit(job(1, 0, 3, 100, 100)).unwrap();
    start_all(&mut c, 0);
    c.submit(job(2, 1, 4, 50, 50)).unwrap();
    // 1 unit is free now and stays free until job 2's reservation at 100.
    assert_eq!(c.predicted_start(Time(1), 1, Duration(99)), Some(Time(1)));
    assert_eq!(
        c.predicted_start(Time(1), 1, Duration(100)),
        Some(Time(150))
    );
    assert_eq!(c.predicted_start(Time(1), 2, Duration(10)), Some(Time(150)));
    assert_eq!(c.predicted_start(Time(1), 5, Duration(10)), None);
}

#[test]
fn rejects_bad_input_without_panicking() {
    assert!(BatchCluster::new(0).is_err());
    let mut c = BatchCluster::new(2).unwrap();
    assert!(c.submit(job(1, 0, 0, 10, 10)).is_err());
    assert!(c.submit(job(1, 0, 1, -1, 10)).is_err());
    assert_eq!(
        c.submit(job(1, 0, 3, 10, 10)).unwrap(),
        cosched_batch::Submitted::Rejected
    );
    // Work beyond i64 unit-seconds is refused, not overflowed.
    assert!(c.submit(job(2, 0, 2, i64::MAX / 2, i64::MAX / 2)).is_err());
}

#[derive(Clone, Debug)]
enum Op {
    Submit {
        size: u32,
        run: i64,
        malleable: bool,
    },
    Schedule,
    Advance(i64),
    Offline(u32),
    Online(u32),
    Preempt(usize),
    Resize(usize, u32),
}

fn op(capacity: u32) -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (1..=capacity, 1i64..50, any::<bool>()).prop_map(|(size, run, malleable)| Op::Submit { size, run, malleable }),
        3 => Just(Op::Schedule),
        3 => (0i64..30).prop_map(Op::Advance),
        1 => (0..capacity).prop_map(Op::Offline),
        1 => (0..capacity).prop_map(Op::Online),
        1 => (0usize..8).prop_map(Op::Preempt),
        1 => (0usize..8, 1..=capacity).prop_map(|(i, s)| Op::Resize(i, s)),
    ]
}

proptest! {
    /// Under any sequence of operations: every node is in exactly one state, no node hosts two
    /// jobs, the counters agree with the node states, malleable sizes stay in range, and every
    /// job's work is done exactly once.
    #[test]
    fn operations_keep_the_cluster_consistent(
        (capacity, ops) in (1u32..10).prop_flat_map(|c| (Just(c), prop::collection::vec(op(c), 1..120)))
    ) {
        let mut c = BatchCluster::new(capacity).unwrap();
        let mut now = 0i64;
        let mut next_id = 0u64;
        let mut live: Vec<Started> = Vec::new();
        let mut work_required = 0i64;
        let mut completed = BTreeSet::new();
        let mut submitted = 0usize;
        for op in ops {
            match op {
                Op::Submit { size, run, malleable: m } => {
                    next_id += 1;
                    let j = if m { malleable(next_id, size, run, 1, capacity) } else { job(next_id, now, size, run, run + 5) };
                    work_required += i64::from(size) * run;
                    c.submit(BatchJob { submit: Time(now), ..j }).unwrap();
                    submitted += 1;
                }
                Op::Schedule => c.schedule(Time(now), &mut Easy::default(), &mut live),
                Op::Advance(d) => {
                    now += d;
                    live.sort_by_key(|s| (s.end, s.token.job));
                    let (due, rest): (Vec<_>, Vec<_>) = live.drain(..).partition(|s| s.end.0 <= now);
                    live = rest;
                    for s in due {
                        if let Some(r) = c.complete(s.end, s.token) {
                            prop_assert!(completed.insert(r.id), "{:?} completed twice", r.id);
                        }
                    }
                }
                Op::Offline(n) => { let _ = c.set_offline(NodeId(n)); }
                Op::Online(n) => { let _ = c.set_online(NodeId(n)); }
                Op::Preempt(i) => {
                    if let Some(s) = live.get(i).copied()
                        && c.preempt(Time(now), s.token.job, Resume::Remaining).is_ok()
                    {
                        live.remove(i);
                    }
                }
                Op::Resize(i, size) => {
                    if let Some(s) = live.get(i).copied()
                        && let Ok(resized) = c.resize(Time(now), s.token.job, size)
                    {
                        live[i] = resized;
                    }
                }
            }
            // Node-level consistency.
            let mut holders = BTreeSet::new();
            let (mut idle, mut offline) = (0, 0);
            for n in 0..capacity {
                match c.node_state(NodeId(n)).unwrap() {
                    NodeState::Idle => idle += 1,
                    NodeState::Offline => offline += 1,
                    NodeState::Busy(j) | NodeState::Draining(j) => {
                        prop_assert!(c.job_nodes(j).unwrap().contains(&NodeId(n)));
                    }
                }
            }
            for s in &live {
                if let Ok(nodes) = c.job_nodes(s.token.job) {
                    for n in nodes {
                        prop_assert!(holders.insert(*n), "{:?} hosts two jobs", n);
                    }
                }
            }
            prop_assert_eq!(idle, c.free_units());
            prop_assert_eq!(offline, c.offline_units());
            prop_assert_eq!(holders.len() as u32, c.busy_units());
            prop_assert_eq!(idle + offline + c.busy_units(), capacity);
        }
        // Finish everything: bring nodes back, then run to completion.
        for n in 0..capacity { let _ = c.set_online(NodeId(n)); }
        for _ in 0..10_000 {
            c.schedule(Time(now), &mut Easy::default(), &mut live);
            let Some(next) = live.iter().map(|s| s.end).min() else { break };
            now = now.max(next.0);
            let (due, rest): (Vec<_>, Vec<_>) = live.drain(..).partition(|s| s.end.0 <= now);
            live = rest;
            for s in due {
                if let Some(r) = c.complete(s.end, s.token) {
                    prop_assert!(completed.insert(r.id));
                }
            }
        }
        prop_assert_eq!(completed.len(), submitted, "every job ends exactly once");
        prop_assert_eq!(c.queue_len(), 0);
        // Remaining-work rounding (ceil on resize/preempt) may only add work, never lose it.
        prop_assert!(c.busy_unit_seconds() >= i128::from(work_required));
    }
}
