//! Property tests of the PAA and SPAA mechanisms: enough nodes whenever feasible, no more
//! preemptions than the chosen order needs, shrinks within size ranges and even, and work
//! conserved when the decisions are applied to a real `BatchCluster`.

use cosched_batch::{BatchCluster, BatchJob, Fcfs, Resume, Started};
use cosched_core::{Duration, JobId, MalleableJob, RigidJob, Time};
use cosched_hybrid::{
    ArrivalAction, Checkpointing, HybridError, Mechanism, RunningKind, RunningView,
};
use proptest::prelude::*;

/// A running job of the generated scenario, with what the cluster needs to start it.
#[derive(Clone, Debug)]
struct Job {
    view: RunningView,
    /// Rigid: run time (setup, work, checkpoints); malleable: work in unit-seconds.
    amount: i64,
}

/// Jobs all started at t = 0, observed at `now`.
fn scenario() -> impl Strategy<Value = (Vec<Job>, i64, u32, u32)> {
    (0i64..2_000).prop_flat_map(|now| {
        let job = (
            any::<bool>(),
            1u32..=12,
            1u32..=12,
            0u32..=4,
            0i64..5_000,
            proptest::option::of(1i64..3_000),
            0i64..300,
        );
        (
            prop::collection::vec(job, 0..10),
            Just(now),
            0u32..=6,
            1u32..=70,
        )
            .prop_map(|(raw, now, free, needed)| {
                let jobs = raw
                    .into_iter()
                    .enumerate()
                    .map(|(i, (malleable, size, min, extra, more, tau, setup))| {
                        let id = JobId(i as u64);
                        let setup = Duration(setup);
                        if malleable {
                            let min_size = min.min(size);
                            Job {
                                view: RunningView {
                                    id,
                                    size,
                                    setup,
                                    kind: RunningKind::Malleable {
                                        min_size,
                                        max_size: size + extra,
                                    },
                                },
                                // Enough work that the job still runs at `now` on any size.
                                amount: i64::from(size + extra) * (now + more + 1),
                            }
                        } else {
                            let work = Duration(now + more);
                            let checkpoints = tau.map(|t| Checkpointing {
                                interval: Duration(t),
                                cost: Duration(t / 10),
                            });
                            let wall = checkpoints.map_or(work, |c| c.wall_time(work).unwrap());
                            Job {
                                view: RunningView {
                                    id,
                                    size,
                                    setup,
                                    kind: RunningKind::Rigid {
                                        work,
                                        elapsed: Duration(now),
                                        checkpoints,
                                    },
                                },
                                amount: (setup + wall).0,
                            }
                        }
                    })
                    .collect();
                (jobs, now, free, needed)
            })
    })
}

fn views(jobs: &[Job]) -> Vec<RunningView> {
    jobs.iter().map(|j| j.view).collect()
}

/// Nodes the decisions free, with the preempted jobs' sizes in order.
fn freed(running: &[RunningView], decisions: &[ArrivalAction]) -> (u32, Vec<u32>) {
    let size = |id: JobId| running.iter().find(|j| j.id == id).map_or(0, |j| j.size);
    let mut total = 0;
    let mut preempted = Vec::new();
    for d in decisions {
        match *d {
            ArrivalAction::Preempt { job } => {
                total += size(job);
                preempted.push(size(job));
            }
            ArrivalAction::Shrink { job, to } => total += size(job) - to,
            ArrivalAction::WaitAtFront => {}
        }
    }
    (total, preempted)
}

fn check_decisions(
    mechanism: Mechanism,
    running: &[RunningView],
    free: u32,
    needed: u32,
    decisions: &[ArrivalAction],
) -> Result<(), TestCaseError> {
    let total: u32 = running.iter().map(|j| j.size).sum();
    if free >= needed {
        prop_assert!(decisions.is_empty());
        return Ok(());
    }
    if free + total < needed {
        prop_assert_eq!(decisions, &[ArrivalAction::WaitAtFront]);
        return Ok(());
    }
    prop_assert!(!decisions.contains(&ArrivalAction::WaitAtFront));
    let (freed_units, _) = freed(running, decisions);
    prop_assert!(free + freed_units >= needed, "not enough nodes freed");
    let view = |id: JobId| running.iter().find(|j| j.id == id).copied();
    let preempted: Vec<RunningView> = decisions
        .iter()
        .filter_map(|d| match *d {
            ArrivalAction::Preempt { job } => view(job),
            _ => None,
        })
        .collect();
    // Preemptions come in ascending overhead.
    for pair in preempted.windows(2) {
        prop_assert!(mechanism.overhead(&pair[0]) <= mechanism.overhead(&pair[1]));
    }
    // Minimality: without the last preemption, too few nodes; SPAA preempts only when
    // shrinking every malleable job to its minimum would not be enough, and then only.
    if let Some(last) = preempted.last() {
        let kept_preempted: u32 = preempted.iter().map(|j| j.size).sum::<u32>() - last.size;
        prop_assert!(free + kept_preempted < needed, "a preemption too many");
        let slack: u32 = running.iter().map(|j| j.slack()).sum();
        if mechanism.kind == cosched_hybrid::MechanismKind::Spaa {
            prop_assert!(
                free + slack < needed,
                "SPAA preempted though shrinking sufficed"
            );
        }
        prop_assert!(
            !decisions
                .iter()
                .any(|d| matches!(d, ArrivalAction::Shrink { .. })),
            "preemptions and shrinks mixed"
        );
    }
    // Shrinks: malleable jobs only, within their range, never of a preempted job, and no
    // more than needed.
    let mut shrunk = Vec::new();
    for d in decisions {
        if let ArrivalAction::Shrink { job, to } = *d {
            prop_assert_eq!(mechanism.kind, cosched_hybrid::MechanismKind::Spaa);
            let v = view(job).expect("known job");
            let RunningKind::Malleable { min_size, max_size } = v.kind else {
                return Err(TestCaseError::fail("shrink of a rigid job"));
            };
            prop_assert!(min_size <= to && to < v.size && to <= max_size);
            prop_assert!(!preempted.iter().any(|p| p.id == job));
            shrunk.push((v, to, min_size));
        }
    }
    if !shrunk.is_empty() {
        prop_assert_eq!(free + freed_units, needed, "shrunk more than needed");
    }
    // Evenness (§III-B2, Obs. 4: every running malleable job gives its share): the nodes given
    // by the jobs not held up by their minimum differ by at most 1, a job stopped at its
    // minimum gives at most one more than the least of them, and an untouched job has no slack unless fewer nodes
    // were needed than there are shrinkable jobs (then every shrunk job gave exactly 1).
    let cuts: Vec<u32> = shrunk
        .iter()
        .filter(|&&(_, to, min)| to > min)
        .map(|&(v, to, _)| v.size - to)
        .collect();
    if let (Some(lo), Some(hi)) = (cuts.iter().min(), cuts.iter().max()) {
        prop_assert!(hi - lo <= 1, "uneven cuts {:?}", cuts);
        for &(v, to, min) in &shrunk {
            if to == min {
                prop_assert!(v.size - to <= lo + 1, "a job at its minimum gave more");
            }
        }
    }
    if !shrunk.is_empty() {
        let most = shrunk
            .iter()
            .map(|&(v, to, _)| v.size - to)
            .max()
            .unwrap_or(0);
        for j in running {
            let touched = shrunk.iter().any(|(v, _, _)| v.id == j.id);
            if !touched && j.slack() > 0 {
                prop_assert!(
                    most == 1,
                    "{:?} left unshrunk while others gave {most}",
                    j.id
                );
            }
        }
    }
    Ok(())
}

/// The mechanisms written the direct way: SPAA takes one node at a time from the shrinkable
/// job that has given the fewest so far (ties: the largest, then the smallest id) when the
/// slack covers the deficit; otherwise (and always for PAA) every job is sorted by
/// (overhead, id) and preempted while too few nodes are freed.
fn reference(m: Mechanism, needed: u32, free: u32, running: &[RunningView]) -> Vec<ArrivalAction> {
    if free >= needed {
        return Vec::new();
    }
    let deficit = needed - free;
    let slack: u32 = running.iter().map(|j| j.slack()).sum();
    if m.kind == cosched_hybrid::MechanismKind::Spaa && slack >= deficit {
        // (id, size, minimum, size now)
        let mut sizes: Vec<(JobId, u32, u32, u32)> = running
            .iter()
            .filter_map(|j| match j.kind {
                RunningKind::Malleable { min_size, .. } => Some((j.id, j.size, min_size, j.size)),
                RunningKind::Rigid { .. } => None,
            })
            .collect();
        sizes.sort_by_key(|s| s.0);
        for _ in 0..deficit {
            let k = (0..sizes.len())
                .filter(|&k| sizes[k].3 > sizes[k].2)
                .min_by_key(|&k| {
                    (
                        sizes[k].1 - sizes[k].3,
                        std::cmp::Reverse(sizes[k].1),
                        sizes[k].0,
                    )
                })
                .expect("slack covers the deficit");
            sizes[k].3 -= 1;
        }
        return sizes
            .into_iter()
            .filter(|s| s.3 < s.1)
            .map(|s| ArrivalAction::Shrink { job: s.0, to: s.3 })
            .collect();
    }
    if running.iter().map(|j| j.size).sum::<u32>() < deficit {
        return vec![ArrivalAction::WaitAtFront];
    }
    let mut order: Vec<&RunningView> = running.iter().collect();
    order.sort_by_key(|j| (m.overhead(j), j.id));
    let (mut freed, mut out) = (0, Vec::new());
    for j in order {
        if freed >= deficit {
            break;
        }
        freed += j.size;
        out.push(ArrivalAction::Preempt { job: j.id });
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn decisions_match_the_direct_reference((jobs, _now, free, needed) in scenario()) {
        let running = views(&jobs);
        for m in [Mechanism::paa(), Mechanism::spaa()] {
            prop_assert_eq!(m.decide(needed, free, &running).unwrap(), reference(m, needed, free, &running));
        }
    }

    #[test]
    fn decisions_free_enough_minimally_and_evenly((jobs, _now, free, needed) in scenario()) {
        let running = views(&jobs);
        for mechanism in [Mechanism::paa(), Mechanism::spaa()] {
            let decisions = mechanism.decide(needed, free, &running).unwrap();
            check_decisions(mechanism, &running, free, needed, &decisions)?;
        }
    }

    #[test]
    fn applying_decisions_conserves_work((jobs, now, free, needed) in scenario()) {
        let running = views(&jobs);
        prop_assume!(!jobs.is_empty() || free > 0, "a cluster needs a unit");
        for mechanism in [Mechanism::paa(), Mechanism::spaa()] {
            let busy: u32 = running.iter().map(|j| j.size).sum();
            let mut cluster = BatchCluster::new(busy + free).unwrap();
            for job in &jobs {
                let v = job.view;
                let batch = match v.kind {
                    RunningKind::Rigid { .. } => {
                        let runtime = Duration(job.amount);
                        BatchJob::rigid(&RigidJob::new(v.id, Time(0), v.size, runtime, runtime).unwrap())
                    }
                    RunningKind::Malleable { min_size, max_size } => {
                        let m = MalleableJob::new(v.id, Time(0), min_size, max_size, Duration(job.amount), v.setup).unwrap();
                        BatchJob::malleable(&m, v.size, Duration(100_000_000)).unwrap()
                    }
                };
                cluster.submit(batch).unwrap();
            }
            let mut started = Vec::new();
            cluster.schedule(Time(0), &mut Fcfs, &mut started);
            prop_assert_eq!(started.len(), jobs.len());
            let end = |id: JobId| started.iter().find(|s| s.token.job == id).map(|s| s.end).unwrap();
            // Seconds of work left at `now` on its start size: none consumed during the setup.
            let work_left = |id: JobId| {
                let setup = running.iter().find(|j| j.id == id).map_or(0, |j| j.setup.0);
                (end(id) - Time(now.max(setup))).0.max(0)
            };

            let decisions = mechanism.decide(needed, cluster.free_units(), &running).unwrap();
            let applied = apply(&mut cluster, Time(now), &running, &decisions).unwrap();
            if applied.wait_at_front {
                prop_assert_eq!(cluster.free_units(), free);
                prop_assert_eq!(cluster.running_jobs(), jobs.len());
                continue;
            }
            prop_assert!(cluster.free_units() >= needed);
            for id in &applied.preempted {
                let v = running.iter().find(|j| j.id == *id).unwrap();
                let queued = cluster.queue().find(|q| q.job.id == *id).unwrap();
                match v.kind {
                    RunningKind::Rigid { work, elapsed, checkpoints } => {
                        // Resumes from its last completed checkpoint, with setup paid again
                        // and the checkpoints of the work left.
                        let (tau, delta) = checkpoints.map_or((i64::MAX, 0), |c| (c.interval.0, c.cost.0));
                        // One checkpoint after every full interval that leaves work to do.
                        let count = |w: i64| if w <= 0 { 0 } else { (w - 1) / tau };
                        let done = if elapsed <= v.setup {
                            0
                        } else {
                            ((elapsed - v.setup).0 / tau.saturating_add(delta)).min(count(work.0))
                        };
                        let left = work.0 - done * if done > 0 { tau } else { 0 };
                        let expected = v.setup.0 + left + count(left) * delta;
                        prop_assert_eq!(queued.job.runtime, Duration(expected));
                    }
                    RunningKind::Malleable { .. } => {
                        // Unit-seconds of work left after its setup are conserved, and the
                        // setup (which does not scale, §III-A) is paid again.
                        let left = i64::from(v.size) * work_left(*id);
                        let queued_work = queued.job.runtime - v.setup;
                        prop_assert_eq!(i64::from(queued.job.size) * queued_work.0, left);
                    }
                }
            }
            for s in &applied.resized {
                let v = running.iter().find(|j| j.id == s.token.job).unwrap();
                // The rest of its setup, then its work left spread over the new size.
                let left = i64::from(v.size) * work_left(v.id);
                let n = i64::from(s.size);
                let setup_left = (v.setup.0 - now).max(0);
                prop_assert_eq!((s.end - Time(now)).0, setup_left + (left + n - 1) / n);
            }
        }
    }
}

/// What [`apply`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Applied {
    /// Jobs preempted and requeued.
    preempted: Vec<JobId>,
    /// The shrunk jobs' new runs: the driver must schedule their completions (old tokens are
    /// stale).
    resized: Vec<Started>,
    /// The decisions said the on-demand job waits at the front of the queue.
    wait_at_front: bool,
}

/// Carries out `decisions` (made for `running`) on `cluster` at `now`: a rigid job is preempted
/// with `Resume::WithRuntime` of its run time less its checkpointed progress, plus setup; a
/// malleable job with `Resume::Remaining` (its unit-seconds of work are conserved); a shrink is
/// a [`BatchCluster::resize`]. Every decision is checked against `running` before the cluster is
/// touched; an error from the cluster itself stops midway.
fn apply(
    cluster: &mut BatchCluster,
    now: Time,
    running: &[RunningView],
    decisions: &[ArrivalAction],
) -> Result<Applied, HybridError> {
    let find = |job: JobId| {
        running
            .iter()
            .find(|j| j.id == job)
            .ok_or(HybridError::UnknownJob(job))
    };
    for decision in decisions {
        match *decision {
            ArrivalAction::Preempt { job } => {
                find(job)?;
            }
            ArrivalAction::Shrink { job, to } => {
                let view = find(job)?;
                let ok = matches!(view.kind, RunningKind::Malleable { min_size, .. }
                    if (min_size..=view.size).contains(&to));
                if !ok {
                    return Err(HybridError::BadShrink { job, to });
                }
            }
            ArrivalAction::WaitAtFront => {}
        }
    }
    let mut applied = Applied::default();
    for decision in decisions {
        match *decision {
            ArrivalAction::Preempt { job } => {
                let resume = find(job)?
                    .resume_runtime()
                    .map_or(Resume::Remaining, Resume::WithRuntime);
                cluster.preempt(now, job, resume)?;
                applied.preempted.push(job);
            }
            ArrivalAction::Shrink { job, to } => {
                applied.resized.push(cluster.resize(now, job, to)?);
            }
            ArrivalAction::WaitAtFront => applied.wait_at_front = true,
        }
    }
    Ok(applied)
}

#[test]
fn apply_checks_actions_before_touching_the_cluster() {
    let mut cluster = BatchCluster::new(4).unwrap();
    let running = [RunningView {
        id: JobId(1),
        size: 2,
        setup: Duration(0),
        kind: RunningKind::Rigid {
            work: Duration(10_000),
            elapsed: Duration(0),
            checkpoints: None,
        },
    }];
    let unknown = [ArrivalAction::Preempt { job: JobId(9) }];
    assert_eq!(
        apply(&mut cluster, Time(0), &running, &unknown),
        Err(HybridError::UnknownJob(JobId(9)))
    );
    let shrink_rigid = [ArrivalAction::Shrink {
        job: JobId(1),
        to: 1,
    }];
    assert_eq!(
        apply(&mut cluster, Time(0), &running, &shrink_rigid),
        Err(HybridError::BadShrink {
            job: JobId(1),
            to: 1
        })
    );
    let wait = apply(
        &mut cluster,
        Time(0),
        &running,
        &[ArrivalAction::WaitAtFront],
    )
    .unwrap();
    assert!(wait.wait_at_front && wait.preempted.is_empty());
}
