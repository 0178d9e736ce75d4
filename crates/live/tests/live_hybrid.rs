//! The hybrid executor against a real Slurm cluster: `cargo xtask slurm up --nodes 8`, then
//! `COSCHED_SLURM=target/slurm/etc/slurm.conf cargo test -p cosched-live --test live_hybrid`.
//! Without `COSCHED_SLURM` the test prints why it skips and passes; with it, a cluster that
//! does not answer fails it. It holds the whole cluster ([`TestCluster`]: alone, from a quiet
//! start, its jobs cancelled when it ends, even by a failure) for about 70 seconds.

use std::collections::BTreeMap;
use std::time::{Duration as StdDuration, Instant};

use cosched_core::{JobId, Time};
use cosched_hybrid::sim::Action;
use cosched_hybrid::{Composite, HybridConfig, HybridSim, scenario};
use cosched_live::{HybridExecutor, ScaledClock, SlurmBatch};
use cosched_slurm::env::{self, TestCluster};
use cosched_slurm::{JobEndLog, JobState};

#[path = "hybrid_support/mod.rs"]
mod hybrid_support;
use hybrid_support::scenario_jobs;

/// Workload seconds per wall second.
const SCALE: u32 = 10;

/// What the test saw of one job on Slurm, polling `squeue --json`.
#[derive(Debug, Default)]
struct Seen {
    /// Wall time (Unix ms) each run was first seen running, by restart count.
    running: BTreeMap<u32, i64>,
    /// Wall time it was first seen stopped after each run (pending again), by restart count.
    stopped: BTreeMap<u32, i64>,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// N&SPAA runs the cluster as it simulates: the on-demand jobs start within seconds of their
/// arrival (job 3 on the nodes a shrink of malleable job 2 freed, job 4 on those a requeue of
/// rigid job 1 freed), job 1 is requeued and completes after a restart, job 2 is shrunk in
/// place and Slurm's record shows its new size; the node-seconds are the simulator's
/// accounts, each job's delivered minus wasted equal to its required, but for what the
/// platform added to each run: its end ran past the deadline by the start call's lag behind
/// the decision and the epilog's own time (each run accounted until the epilog's line, not
/// until the executor read it).
#[test]
fn spaa_starts_on_demand_jobs_on_slurm_by_shrinking_and_requeueing() {
    let Some(held) = TestCluster::acquire("live-hybrid", env::DEFAULT_QUIET_LIMIT)
        .unwrap_or_else(|e| panic!("COSCHED_SLURM is set but the cluster is not usable: {e}"))
    else {
        println!("skipping the live hybrid test: {}", env::SKIP_REASON);
        return;
    };
    println!("cluster clean: {:?}", held.cleaned());
    let slurm = held.slurm().clone();
    assert_eq!(
        slurm.nodes().unwrap().len(),
        8,
        "the test needs an 8-node cluster"
    );
    let jobs = scenario_jobs();
    let mechanism = Composite::ALL[1]; // N&SPAA
    let config = HybridConfig::new(8).unwrap();
    let sim = HybridSim::new(config.clone())
        .unwrap()
        .run(&mut scenario::mechanism(mechanism), &jobs)
        .unwrap();

    let dir = tempfile::tempdir().unwrap();
    let log = JobEndLog::at_end(
        env::xtask_job_end_log(&slurm).expect("a cluster of `cargo xtask slurm up`"),
    );
    let platform =
        SlurmBatch::new(slurm.clone(), log, SCALE, None).with_deadlines(dir.path().into());
    let prefix = held.prefix().to_owned();
    let mut policy = scenario::mechanism(mechanism);
    let mut exec = HybridExecutor::new(config, &mut policy, &jobs, platform, &prefix).unwrap();
    let clock = ScaledClock::starting_now(Time(0), SCALE);
    let mut seen: BTreeMap<JobId, Seen> = BTreeMap::new();
    let ids: Vec<JobId> = jobs.iter().map(|j| j.id()).collect();
    let watch = |now: Time, exec: &HybridExecutor<'_, _, SlurmBatch>| {
        let wall = now_ms();
        let listed = slurm.job_details().unwrap();
        for &job in &ids {
            let Some(id) = exec.platform_id(job) else {
                continue;
            };
            let Some(d) = listed.iter().find(|d| d.id.to_string() == id) else {
                continue;
            };
            let s = seen.entry(job).or_default();
            match d.state {
                JobState::Running => {
                    s.running.entry(d.restarts).or_insert(wall);
                }
                JobState::Pending if d.restarts > 0 => {
                    s.stopped.entry(d.restarts - 1).or_insert(wall);
                }
                _ => {}
            }
        }
        assert!(now < Time(1200), "the run takes far longer than simulated");
        false
    };
    let done = exec
        .run_paced(clock, StdDuration::from_millis(100), watch)
        .unwrap();
    assert!(done);
    let applied = exec.applied().to_vec();
    let journal = exec.journal().clone();
    let platform_ids: BTreeMap<JobId, String> = ids
        .iter()
        .map(|&j| (j, exec.platform_id(j).unwrap().to_owned()))
        .collect();
    let out = exec.finish();

    // The decisions: job 2 shrunk to 2 nodes, job 1 preempted, nothing else.
    let actions: Vec<&Action> = applied.iter().map(|a| &a.action).collect();
    println!("{actions:?}");
    assert!(
        actions
            .iter()
            .any(|a| matches!(a, Action::Resize { job: JobId(2), nodes, .. } if nodes.len() == 2))
    );
    assert_eq!(
        actions
            .iter()
            .filter(|a| matches!(a, Action::Preempt { .. }))
            .count(),
        1
    );
    assert!(actions.contains(&&Action::Preempt { job: JobId(1) }));

    // On-demand starts: from the arrival on the wall clock to Slurm running the job.
    let wall_of = |t: Time| clock.origin_unix_ms + t.secs() * 1000 / i64::from(SCALE);
    for (job, arrival) in [(JobId(3), Time(40)), (JobId(4), Time(220))] {
        let ran = seen[&job].running[&0];
        let latency = ran - wall_of(arrival);
        println!("on-demand {job}: running {latency} ms after its arrival");
        assert!(
            latency < 5_000,
            "on-demand {job} started {latency} ms after its arrival"
        );
    }
    // The requeue and the restart of job 1.
    let call = |pred: &dyn Fn(&Action) -> bool| {
        applied
            .iter()
            .filter(|a| pred(&a.action))
            .map(|a| a.wall_unix_ms)
            .collect::<Vec<_>>()
    };
    let requeued = call(&|a| matches!(a, Action::Preempt { job: JobId(1) }))[0];
    let starts = call(&|a| matches!(a, Action::Start { job: JobId(1), .. }));
    assert_eq!(starts.len(), 2, "job 1 starts, and restarts once");
    let one = &seen[&JobId(1)];
    println!(
        "rigid job 1: pending {} ms after the requeue call; restart call {} ms after the decision, running {} ms after the call",
        one.stopped[&0] - requeued,
        applied
            .iter()
            .filter(|a| matches!(a.action, Action::Start { job: JobId(1), .. }))
            .nth(1)
            .map(|a| a.wall_unix_ms - wall_of(a.decided))
            .unwrap(),
        one.running[&1] - starts[1]
    );

    // Slurm's records: job 1 requeued once and completed; job 2 completed on 2 nodes after
    // a resize; every job completed.
    // (The epilog runs before a job's state is final: wait for it.)
    let deadline = Instant::now() + StdDuration::from_secs(20);
    let details = loop {
        let details = slurm.job_details().unwrap();
        let mine = details
            .iter()
            .filter(|d| platform_ids.values().any(|id| d.id.to_string() == *id));
        if mine.clone().count() == ids.len() && mine.clone().all(|d| d.is_finished()) {
            break details;
        }
        assert!(
            Instant::now() < deadline,
            "the jobs are not finished: {details:?}"
        );
        std::thread::sleep(StdDuration::from_millis(200));
    };
    let detail = |job: JobId| {
        details
            .iter()
            .find(|d| d.id.to_string() == platform_ids[&job])
            .unwrap()
    };
    for &job in &ids {
        assert_eq!(detail(job).state, JobState::Completed, "{job}");
    }
    assert_eq!(detail(JobId(1)).restarts, 1);
    assert_eq!(
        (detail(JobId(2)).node_count, detail(JobId(2)).nodes.len()),
        (2, 2)
    );
    let shown = std::process::Command::new("scontrol")
        .env("SLURM_CONF", std::env::var_os("COSCHED_SLURM").unwrap())
        .args(["show", "job", &platform_ids[&JobId(2)]])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("ResizeTime=20"), "{shown}");
    let ends = JobEndLog::new(env::xtask_job_end_log(&slurm).unwrap())
        .read_new()
        .unwrap();
    for (&job, id) in &platform_ids {
        let runs = ends.iter().filter(|e| &e.job_id == id).count();
        assert_eq!(
            runs,
            if job == JobId(1) { 2 } else { 1 },
            "{job}'s runs in the epilog"
        );
    }

    // Node-seconds, as the simulator accounts them: live beside simulated. `told` is when the
    // executor learnt of the end (what a record ended at before it took the epilog's time).
    let told = |job: JobId| {
        journal.events.iter().rev().find_map(|e| match e {
            cosched_live::HybridEvent::Step { time, ended, .. } if ended.contains(&job) => {
                Some(*time)
            }
            _ => None,
        })
    };
    // A deadline (written at each start and resize) slips by its call's lag behind the
    // step that made it (workload s, summed over the job's calls).
    let slip = |job: JobId| -> i64 {
        applied
            .iter()
            .filter(|a| match a.action {
                Action::Start { job: j, .. }
                | Action::StartOnDemand { job: j, .. }
                | Action::Resize { job: j, .. } => j == job,
                Action::Preempt { .. } => false,
            })
            .map(|a| (a.wall_unix_ms - wall_of(a.applied)).max(0) * i64::from(SCALE) / 1000)
            .sum()
    };
    println!(
        "job  sim start/end  live start/end (told)  sim delivered/wasted  live delivered/wasted/late (at told)  slip"
    );
    for (l, s) in out.accounts.iter().zip(&sim.accounts) {
        let (lr, sr) = (
            out.records.iter().find(|r| r.id == l.id).unwrap(),
            sim.records.iter().find(|r| r.id == s.id).unwrap(),
        );
        let told_at = told(l.id).unwrap();
        let late_told = (told_at - lr.end.unwrap()).0 * i64::from(lr.size);
        println!(
            "{:>3} {:>6}/{:<6} {:>6}/{:<6} ({:>4}) {:>9}/{:<9} {:>9}/{}/{} ({}) {:>4}",
            l.id.0,
            sr.start.unwrap().secs(),
            sr.end.unwrap().secs(),
            lr.start.unwrap().secs(),
            lr.end.unwrap().secs(),
            told_at.secs(),
            s.delivered,
            s.wasted,
            l.delivered,
            l.wasted,
            l.delivered - l.wasted - l.required,
            l.delivered - l.wasted - l.required + late_told,
            slip(l.id),
        );
        assert_eq!(l.completions, 1);
        assert_eq!(
            (l.preemptions, l.shrinks),
            (s.preemptions, s.shrinks),
            "{}",
            l.id
        );
        // Every node-second is the simulator's: required, wasted, or run past the end the
        // environment computed because the platform's deadline slipped (the start calls' lag)
        // or its epilog took its time (ours: at most one wall second a run, as Slurm's whole
        // seconds in the batch test); a deadline rounded to the clock's second may end a
        // run up to one workload second early.
        let runs = 1 + i64::from(l.preemptions);
        let size = i64::from(lr.size);
        let late = l.delivered - l.wasted - l.required;
        assert_eq!(s.delivered - s.wasted - s.required, 0, "{s:?}");
        let bound = size * (slip(l.id) + runs * i64::from(SCALE));
        assert!(
            (-l.rounding_slack - size * runs..=bound).contains(&late),
            "{}: {late} node-s past the simulated run, bound {bound} (the start calls' slip \
             {} workload s and {SCALE} a run for the epilog): {l:?}",
            l.id,
            slip(l.id)
        );
        assert!(lr.end.unwrap() <= told_at, "{lr:?} ended after it was told");
        let slack = i64::from(lr.size) * runs * 3 * i64::from(SCALE);
        assert!(
            (l.delivered - s.delivered).abs() <= slack,
            "{}: delivered {} live, {} simulated",
            l.id,
            l.delivered,
            s.delivered
        );
    }
    println!(
        "utilisation: live {:.3}, simulated {:.3}",
        out.report.utilization, sim.report.utilization
    );
}
