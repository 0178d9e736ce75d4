//! The batch executor against a real Slurm cluster: `cargo xtask slurm up --nodes 8`, then
//! `COSCHED_SLURM=target/slurm/etc/slurm.conf cargo test -p cosched-live --test live_batch`.
//! Without `COSCHED_SLURM` the test prints why it skips and passes; with it, a cluster that
//! does not answer fails it. It needs the whole cluster (8 idle nodes) for about 1.5 minutes.

use std::time::{Duration as StdDuration, Instant};

use cosched_batch::catalogue::PolicySpec;
use cosched_batch::{BatchSim, admit};
use cosched_core::{Duration, JobId, RigidJob, Time};
use cosched_live::{BatchExecutor, Journal, Paced, ScaledClock, SlurmBatch, run_paced};
use cosched_slurm::{JobEndLog, JobState, NodeState, Slurm, env};

/// Workload seconds per wall second.
const SCALE: u32 = 10;

/// Eight jobs on eight nodes (ours): EASY backfills jobs 3, 5 and 7 beside job 1 and starts
/// the rest as jobs end; every decision has at least 40 workload seconds (4 wall seconds) of
/// margin, so Slurm's latencies do not reorder it. 770 workload seconds simulated.
fn workload() -> Vec<RigidJob> {
    [
        (1, 0, 4, 200, 240),
        (2, 10, 6, 150, 180),
        (3, 20, 2, 90, 120),
        (4, 30, 3, 300, 330),
        (5, 40, 1, 60, 100),
        (6, 50, 8, 120, 150),
        (7, 60, 2, 40, 60),
        (8, 70, 5, 180, 200),
    ]
    .into_iter()
    .map(|(id, submit, size, run, est)| {
        RigidJob::new(JobId(id), Time(submit), size, Duration(run), Duration(est)).unwrap()
    })
    .collect()
}

/// The cluster of `COSCHED_SLURM`, or `None` (with the reason printed) when it is unset.
fn cluster(test: &str) -> Option<Slurm> {
    let slurm = env::test_cluster().expect("COSCHED_SLURM is set but the cluster does not answer");
    if slurm.is_none() {
        println!("skipping {test}: {}", env::SKIP_REASON);
    }
    slurm
}

fn log_path(slurm: &Slurm) -> std::path::PathBuf {
    env::xtask_job_end_log(slurm).expect("a cluster of `cargo xtask slurm up`")
}

/// Ids by (start, id), with their sizes.
fn order(starts: &mut [(i64, u64, u32)]) -> Vec<(u64, u32)> {
    starts.sort_unstable();
    starts.iter().map(|&(_, id, size)| (id, size)).collect()
}

/// EASY schedules the cluster as it simulates: the same start order on the same node counts,
/// each job on the nodes the executor chose. The executor is killed mid-way (while job 2 runs)
/// and restarted from its state file after job 2 has ended unseen: no job starts twice and
/// none is lost.
#[test]
fn easy_schedules_slurm_as_simulated_across_a_restart() {
    let Some(slurm) = cluster("easy_schedules_slurm_as_simulated_across_a_restart") else {
        return;
    };
    let deadline = Instant::now() + StdDuration::from_secs(60);
    while !slurm
        .nodes()
        .expect("sinfo")
        .iter()
        .all(|n| n.state == NodeState::Idle)
    {
        assert!(
            Instant::now() < deadline,
            "the cluster's nodes are not all idle"
        );
        std::thread::sleep(StdDuration::from_millis(500));
    }
    assert_eq!(
        slurm.nodes().unwrap().len(),
        8,
        "the test needs an 8-node cluster"
    );
    let jobs = workload();
    let (batch_jobs, _) = admit(&jobs).unwrap();
    let spec: PolicySpec = "easy".parse().unwrap();
    let sim = BatchSim::new(8)
        .unwrap()
        .run(&mut spec.build(), &jobs)
        .unwrap()
        .records;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let prefix = format!("live-batch-{}-", std::process::id());
    let platform = |log: JobEndLog| SlurmBatch::new(slurm.clone(), log, SCALE, None);
    let poll = StdDuration::from_millis(200);

    let clock = ScaledClock::starting_now(Time(0), SCALE);
    let mut exec = BatchExecutor::start(
        Time(0),
        spec.build(),
        platform(JobEndLog::at_end(log_path(&slurm))),
        &prefix,
        Some(state.clone()),
    )
    .unwrap();
    exec.set_clock(clock).unwrap();
    let stopped = run_paced(
        &mut exec,
        &batch_jobs,
        clock,
        poll,
        |_, _| Ok(false),
        |now, _| now >= Time(300),
    )
    .unwrap();
    assert!(matches!(stopped, Paced::Stopped(_)), "{stopped:?}");
    // The crash: the executor is gone while job 2 ends (at about 350).
    drop(exec);
    while clock.now() < Time(420) {
        std::thread::sleep(poll);
    }
    let journal: Journal = serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
    assert_eq!(journal.clock, Some(clock));
    let mut exec = BatchExecutor::resume(
        journal,
        spec.build(),
        platform(JobEndLog::at_end(log_path(&slurm))),
        Some(state.clone()),
    )
    .unwrap();
    let done = run_paced(
        &mut exec,
        &batch_jobs,
        clock,
        poll,
        |_, _| Ok(false),
        |_, _| false,
    );
    assert_eq!(done.unwrap(), Paced::Done);

    let live = exec.records();
    assert_eq!(live.len(), jobs.len());
    let starts = |records: &[cosched_core::JobRecord]| -> Vec<_> {
        records
            .iter()
            .map(|r| (r.start.unwrap().secs(), r.id.0, r.size))
            .collect()
    };
    let (mut live_starts, mut sim_starts) = (starts(live), starts(&sim));
    println!("job  size  sim start/end  live start/end");
    for s in &sim {
        let l = live.iter().find(|r| r.id == s.id).unwrap();
        println!(
            "{:>3} {:>5} {:>6}/{:<6} {:>6}/{:<6}",
            s.id.0,
            s.size,
            s.start.unwrap().secs(),
            s.end.unwrap().secs(),
            l.start.unwrap().secs(),
            l.end.unwrap().secs()
        );
    }
    assert_eq!(order(&mut live_starts), order(&mut sim_starts));

    // Slurm ran each job once, to completion, on the nodes the executor chose.
    let details = slurm.job_details().unwrap();
    let journal = exec.journal();
    for instant in &journal.instants {
        for (job, nodes) in &instant.started {
            let id = exec.platform_id(*job).unwrap();
            let d = details.iter().find(|d| d.id.to_string() == id).unwrap();
            assert_eq!(d.state, JobState::Completed, "job {job:?}");
            let mut chosen = nodes.clone();
            chosen.sort_unstable_by_key(|n| n[1..].parse::<u32>().unwrap_or(u32::MAX));
            assert_eq!((d.restarts, &d.nodes), (0, &chosen), "job {job:?}");
        }
    }
    let started: usize = journal.instants.iter().map(|i| i.started.len()).sum();
    assert_eq!(started, jobs.len(), "every job started once in the journal");
    let ends = JobEndLog::new(log_path(&slurm)).read_new().unwrap();
    for job in &jobs {
        let id = exec.platform_id(job.id).unwrap();
        assert_eq!(
            ends.iter().filter(|e| e.job_id == id).count(),
            1,
            "{id} ran once"
        );
    }

    adopted_held_jobs_run_in_fcfs_order(&slurm);
}

/// `--queued`'s source: jobs an operator submitted held are adopted (their node count, their
/// time limit as the estimate) and run under FCFS: the 8-node job first, then the two 4-node
/// jobs together once it has ended.
fn adopted_held_jobs_run_in_fcfs_order(slurm: &Slurm) {
    let ids: Vec<String> = [8, 4, 4]
        .iter()
        .map(|n| {
            slurm
                .submit_held([
                    format!("-N{n}"),
                    "--time=1".into(),
                    "-J".into(),
                    "live-batch-held".into(),
                    "-o".into(),
                    "/dev/null".into(),
                    "--wrap=sleep 2".into(),
                ])
                .expect("sbatch --hold")
        })
        .collect();
    let platform = SlurmBatch::new(slurm.clone(), JobEndLog::at_end(log_path(slurm)), 1, None);
    let mut exec = BatchExecutor::start(
        Time(0),
        "fcfs".parse::<PolicySpec>().unwrap().build(),
        platform,
        "unused-",
        None,
    )
    .unwrap();
    let clock = ScaledClock::starting_now(Time(0), 1);
    let mut waiting = true;
    let adopt = |now: Time, exec: &mut BatchExecutor<_, SlurmBatch>| {
        let held = exec
            .platform()
            .held_jobs(now, Duration(3600), |id| {
                exec.knows(id) || !ids.iter().any(|i| i == id)
            })
            .map_err(|e| cosched_live::BatchLiveError::Platform(Box::new(e)))?;
        for (job, id) in held {
            exec.adopt(job, id)?;
        }
        waiting &= exec.cluster().queue_len() + exec.cluster().running_jobs() == 0;
        Ok(waiting)
    };
    let done = run_paced(
        &mut exec,
        &[],
        clock,
        StdDuration::from_millis(200),
        adopt,
        |_, _| false,
    );
    assert_eq!(done.unwrap(), Paced::Done);
    let record = |id: &String| {
        let job = JobId(id.parse().unwrap());
        *exec.records().iter().find(|r| r.id == job).unwrap()
    };
    let (a, b, c) = (record(&ids[0]), record(&ids[1]), record(&ids[2]));
    assert_eq!((a.size, b.size, c.size), (8, 4, 4));
    assert_eq!(a.runtime, Duration(60), "the time limit is the estimate");
    assert!(b.start >= a.end && b.start == c.start, "{a:?} {b:?} {c:?}");
    println!(
        "adopted: 8-node job {:?}-{:?}, 4-node jobs from {:?}",
        a.start, a.end, b.start
    );
}
