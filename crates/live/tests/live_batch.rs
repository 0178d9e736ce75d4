//! The batch executor against a real Slurm cluster: `cargo xtask slurm up --nodes 8`, then
//! `COSCHED_SLURM=target/slurm/etc/slurm.conf cargo test -p cosched-live --test live_batch`.
//! Without `COSCHED_SLURM` the test prints why it skips and passes; with it, a cluster that
//! does not answer fails it. It holds the whole cluster ([`TestCluster`]) for about 1.5
//! minutes.
//!
//! What it compares, and with what tolerance:
//! - **the policy's decisions, exactly**: Slurm's latencies (a release, an epilog, a poll)
//!   move the instants at which the executor learns of ends, and can reorder EASY's
//!   decisions (one release took 47 s at load 20). So the simulator is replayed on what the
//!   executor observed — each job arriving at the instant it arrived, running from the
//!   instant the policy started it to the instant its end was told to the policy — and must
//!   start every job at the same instant. The estimates carry 120 workload seconds (12 wall
//!   seconds) over the run times, so a run observed longer (lags, the restart) stays within
//!   its estimate, which the simulator would otherwise cut. The live order is also printed
//!   beside the simulated one.
//! - **node-seconds**: each job's record ends when Slurm's epilog logged its end
//!   (milliseconds), also for the job that ended while the executor was down; its length
//!   exceeds the simulated run time by what Slurm took to start it after its release
//!   (Slurm's start time, whole seconds: up to 10 workload seconds of rounding) and at most
//!   the poll interval more.

use std::time::Duration as StdDuration;

use cosched_batch::catalogue::PolicySpec;
use cosched_batch::{BatchSim, admit};
use cosched_core::{Duration, JobId, RigidJob, Time};
use cosched_live::{BatchExecutor, Journal, Paced, ScaledClock, SlurmBatch, run_paced};
use cosched_slurm::env::{self, TestCluster};
use cosched_slurm::{JobEndLog, JobState, Slurm};

/// Workload seconds per wall second.
const SCALE: u32 = 10;

/// Slack of every estimate over its run time (ours): 12 wall seconds.
const SLACK: i64 = 120;

/// Eight jobs on eight nodes (ours): EASY backfills jobs 3, 5 and 7 beside job 1 and starts
/// the rest as jobs end. 770 workload seconds simulated.
fn workload() -> Vec<RigidJob> {
    [
        (1, 0, 4, 200),
        (2, 10, 6, 150),
        (3, 20, 2, 90),
        (4, 30, 3, 300),
        (5, 40, 1, 60),
        (6, 50, 8, 120),
        (7, 60, 2, 40),
        (8, 70, 5, 180),
    ]
    .into_iter()
    .map(|(id, submit, size, run)| {
        RigidJob::new(
            JobId(id),
            Time(submit),
            size,
            Duration(run),
            Duration(run + SLACK),
        )
        .unwrap()
    })
    .collect()
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
    let Some(held) = TestCluster::acquire("live-batch", env::DEFAULT_QUIET_LIMIT)
        .unwrap_or_else(|e| panic!("COSCHED_SLURM is set but the cluster is not usable: {e}"))
    else {
        println!("skipping the live batch test: {}", env::SKIP_REASON);
        return;
    };
    println!("cluster clean: {:?}", held.cleaned());
    let slurm = held.slurm().clone();
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
    let prefix = held.prefix().to_owned();
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
    let journal = exec.journal();
    let details = slurm.job_details().unwrap();
    let observed = observed_runs(journal, &jobs);
    let slurm_start = |job: JobId| {
        let id = exec.platform_id(job).unwrap();
        let d = details.iter().find(|d| d.id.to_string() == id).unwrap();
        clock.at(d.start_unix * 1000)
    };
    println!("job size  sim start/end  live start/end (told)  Slurm start  excess node-s  end lag");
    for s in &sim {
        let l = live.iter().find(|r| r.id == s.id).unwrap();
        let o = observed.iter().find(|o| o.id == s.id).unwrap();
        let (start, end) = (l.start.unwrap(), l.end.unwrap());
        println!(
            "{:>3} {:>4} {:>6}/{:<6} {:>6}/{:<6} ({:>4}) {:>11} {:>14} {:>8}",
            s.id.0,
            s.size,
            s.start.unwrap().secs(),
            s.end.unwrap().secs(),
            start.secs(),
            end.secs(),
            o.runtime.0 + start.secs(),
            slurm_start(s.id).secs(),
            i64::from(s.size) * (end.since(start).0 - s.runtime.0),
            o.runtime.0 + start.secs() - end.secs(),
        );
    }
    let (mut live_starts, mut sim_starts) = (starts(live), starts(&sim));
    let (live_order, sim_order) = (order(&mut live_starts), order(&mut sim_starts));
    if live_order != sim_order {
        println!("Slurm's latencies reordered EASY: live {live_order:?}, simulated {sim_order:?}");
    }

    // The invariant: the simulator, replayed on what the executor observed, decides as the
    // executor's policy did, instant for instant.
    for o in &observed {
        let estimate = jobs.iter().find(|j| j.id == o.id).unwrap().estimate;
        assert!(
            o.runtime <= estimate,
            "job {:?} was observed running {:?}, past its estimate {estimate:?}: the simulator \
             would cut it (a lag of more than {SLACK} workload s)",
            o.id,
            o.runtime
        );
    }
    let replayed = BatchSim::new(8)
        .unwrap()
        .run(&mut spec.build(), &observed)
        .unwrap()
        .records;
    let (mut replayed_starts, mut live_starts) = (starts(&replayed), starts(live));
    replayed_starts.sort_unstable();
    live_starts.sort_unstable();
    assert_eq!(
        replayed_starts, live_starts,
        "the policy decided otherwise than the simulator on the same observations"
    );

    // Node-seconds: each record ends at Slurm's end, the missed one too (job 2 ended while the
    // executor was down, and is recorded before the resume).
    let poll_ws = clock
        .at(clock.origin_unix_ms + poll.as_millis() as i64)
        .secs();
    let job2 = live.iter().find(|r| r.id == JobId(2)).unwrap();
    assert!(
        job2.end.unwrap() < Time(420),
        "job 2's end is its own, not the resume's: {job2:?}"
    );
    for s in &sim {
        let l = live.iter().find(|r| r.id == s.id).unwrap();
        let (start, end) = (l.start.unwrap(), l.end.unwrap());
        let excess = end.since(start).0 - s.runtime.0;
        // Slurm's times are in whole seconds: a start up to one wall second (SCALE workload s)
        // early, and a run measured up to as much short (seen once on a quiet machine: -2).
        let release = slurm_start(s.id).since(start).0 + i64::from(SCALE);
        assert!(
            (-i64::from(SCALE)..=release.max(0) + poll_ws).contains(&excess),
            "job {:?} ran {excess} workload s longer than simulated; Slurm started it {} s \
             after the policy (whole seconds), the poll is {poll_ws} s",
            s.id,
            release - i64::from(SCALE)
        );
    }

    // Slurm ran each job once, to completion, on the nodes the executor chose.
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

    adopted_held_jobs_run_in_fcfs_order(&slurm, held.prefix());
}

/// (start, id, size) of each record.
fn starts(records: &[cosched_core::JobRecord]) -> Vec<(i64, u64, u32)> {
    records
        .iter()
        .map(|r| (r.start.unwrap().secs(), r.id.0, r.size))
        .collect()
}

/// The workload as the executor observed it, from its journal: each job submitted at the
/// instant it arrived, running from the instant the policy started it to the instant its end
/// was told to the policy, with its estimate.
fn observed_runs(journal: &Journal, jobs: &[RigidJob]) -> Vec<RigidJob> {
    let instant_of = |found: &dyn Fn(&cosched_live::batch::JournalInstant) -> bool| {
        journal.instants.iter().find(|i| found(i)).map(|i| i.time)
    };
    jobs.iter()
        .map(|j| {
            let arrived = instant_of(&|i| i.arrived.iter().any(|a| a.job.id == j.id)).unwrap();
            let started = instant_of(&|i| i.started.iter().any(|(s, _)| *s == j.id)).unwrap();
            let ended = instant_of(&|i| i.ended.contains(&j.id)).unwrap();
            RigidJob::new(j.id, arrived, j.size, ended.since(started), j.estimate).unwrap()
        })
        .collect()
}

/// `--queued`'s source: jobs an operator submitted held are adopted (their node count, their
/// time limit as the estimate) and run under FCFS: the 8-node job first, then the two 4-node
/// jobs together once it has ended.
fn adopted_held_jobs_run_in_fcfs_order(slurm: &Slurm, prefix: &str) {
    let ids: Vec<String> = [8, 4, 4]
        .iter()
        .map(|n| {
            slurm
                .submit_held([
                    format!("-N{n}"),
                    "--time=1".into(),
                    "-J".into(),
                    format!("{prefix}held"),
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

/// What changes beside the executor is in the policy's view at the next poll: a held job its
/// user cancels (`scancel`) leaves the queue, and a node an operator drains is taken offline
/// (no job starts there) until resumed.
#[test]
fn a_cancelled_held_job_and_a_drained_node_are_seen_at_the_next_poll() {
    let Some(held) = TestCluster::acquire("live-batch-outside", env::DEFAULT_QUIET_LIMIT)
        .unwrap_or_else(|e| panic!("COSCHED_SLURM is set but the cluster is not usable: {e}"))
    else {
        println!("skipping the live batch test: {}", env::SKIP_REASON);
        return;
    };
    let slurm = held.slurm().clone();
    let job = |id, size, run| {
        cosched_batch::BatchJob::rigid(
            &RigidJob::new(JobId(id), Time(0), size, Duration(run), Duration(run + 30)).unwrap(),
        )
    };
    let platform = SlurmBatch::new(slurm.clone(), JobEndLog::at_end(log_path(&slurm)), 1, None);
    let clock = ScaledClock::starting_now(Time(0), 1);
    let mut exec = BatchExecutor::start(
        Time(0),
        "fcfs".parse::<PolicySpec>().unwrap().build(),
        platform,
        held.prefix(),
        None,
    )
    .unwrap();
    exec.set_clock(clock).unwrap();
    // Job 1 holds every node for 4 s; jobs 2 and 3 wait held behind it.
    for j in [job(1, 8, 4), job(2, 1, 1), job(3, 8, 1)] {
        exec.submit(j).unwrap();
    }
    assert_eq!(exec.step(clock.now()).unwrap(), 1);
    // Drained before Slurm runs it, job 1 would wait for n8 for ever.
    let first = exec.platform_id(JobId(1)).unwrap().to_owned();
    let deadline = std::time::Instant::now() + StdDuration::from_secs(60);
    while !slurm
        .job_details()
        .unwrap()
        .iter()
        .any(|j| j.id.to_string() == first && j.state == JobState::Running)
    {
        assert!(std::time::Instant::now() < deadline, "job 1 runs");
        std::thread::sleep(StdDuration::from_millis(50));
    }
    let cancelled = exec.platform_id(JobId(2)).unwrap().to_owned();
    slurm.cancel(&cancelled).expect("scancel");
    slurm
        .drain("n8", &format!("{}drain", held.prefix()))
        .expect("drain");
    let polled = std::time::Instant::now();
    exec.step(clock.now()).unwrap();
    println!(
        "seen at the next poll, {:?} after the calls",
        polled.elapsed()
    );
    assert_eq!(exec.cluster().queue_len(), 1, "job 2 left the queue");
    assert_eq!(exec.cluster().offline_units(), 0, "n8 drains under job 1");
    // Job 1 ends: n8 is offline, so the 8-node job 3 cannot start until n8 is resumed.
    let deadline = std::time::Instant::now() + StdDuration::from_secs(60);
    while exec.cluster().running_jobs() > 0 {
        assert!(std::time::Instant::now() < deadline, "job 1 ends");
        exec.step(clock.now()).unwrap();
        std::thread::sleep(StdDuration::from_millis(200));
    }
    exec.step(clock.now()).unwrap();
    assert_eq!(exec.cluster().offline_units(), 1, "n8 is out of the view");
    assert_eq!(exec.cluster().queue_len(), 1, "job 3 waits for n8");
    slurm.resume("n8").expect("resume");
    let done = run_paced(
        &mut exec,
        &[],
        clock,
        StdDuration::from_millis(200),
        |_, _| Ok(false),
        |_, _| false,
    );
    assert_eq!(done.unwrap(), Paced::Done);
    let records = exec.records();
    let two = records.iter().find(|r| r.id == JobId(2)).unwrap();
    assert_eq!((two.start, two.end), (None, None), "job 2 never started");
    let (one, three) = (
        records.iter().find(|r| r.id == JobId(1)).unwrap(),
        records.iter().find(|r| r.id == JobId(3)).unwrap(),
    );
    assert!(three.start >= one.end, "{one:?} {three:?}");
    let journal = exec.journal();
    assert!(journal.instants.iter().any(|i| i.withdrawn == [JobId(2)]));
    assert!(journal.instants.iter().any(|i| i.offline == ["n8"]));
    assert!(journal.instants.iter().any(|i| i.online == ["n8"]));
}
