//! The hybrid service against a real Slurm cluster: `cargo xtask slurm up --nodes 8`, then
//! `COSCHED_SLURM=target/slurm/etc/slurm.conf cargo test -p cosched-live --test
//! live_hybrid_service -- --nocapture`. Without `COSCHED_SLURM` the test prints why it skips
//! and passes. Each test holds the whole cluster ([`TestCluster`]) for about 50 seconds.

#[path = "support/mod.rs"]
mod support;
use support::{Served, agent};

use std::time::{Duration as StdDuration, Instant};

use cosched_core::{Duration, JobId, OnDemandJob, RigidJob, Time};
use cosched_hybrid::{Composite, HybridConfig, HybridJob, HybridOutcome, HybridSim, scenario};
use cosched_live::{
    HybridClock, HybridRun, HybridService, HybridServiceConfig, Logger, ScaledClock, SlurmBatch,
};
use cosched_slurm::env::{self, TestCluster};
use cosched_slurm::{JobEndLog, JobState};
use serde_json::Value;

/// Workload seconds per wall second.
const SCALE: u32 = 10;

/// The whole cluster for `test` ([`TestCluster`]: alone, from a quiet start, its jobs
/// cancelled when it ends, even by a failure), or `None` (the reason printed) without
/// `COSCHED_SLURM`.
fn cluster(test: &str) -> Option<TestCluster> {
    let held = TestCluster::acquire(test, env::DEFAULT_QUIET_LIMIT)
        .unwrap_or_else(|e| panic!("COSCHED_SLURM is set but the cluster is not usable: {e}"));
    match &held {
        Some(held) => println!("cluster clean: {:?}", held.cleaned()),
        None => println!("skipping {test}: {}", env::SKIP_REASON),
    }
    held
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Rigid jobs 1 and 2 (4 nodes each) fill the cluster; job 1 ends at 100; rigid job 3 (4
/// nodes, 100 s) is queued from 10 and would take job 1's nodes then.
fn workload() -> Vec<HybridJob> {
    let rigid = |id, submit, run| HybridJob::Rigid {
        job: RigidJob::new(JobId(id), Time(submit), 4, Duration(run), Duration(run)).unwrap(),
        setup: Duration(0),
    };
    vec![rigid(1, 0, 100), rigid(2, 0, 400), rigid(3, 10, 100)]
}

/// The service of `mechanism` over the cluster for `jobs` on a scaled clock starting now,
/// stopping when the run completed; its outcome comes on the receiver.
fn serve_on(
    slurm: &cosched_slurm::Slurm,
    mechanism: Composite,
    jobs: Vec<HybridJob>,
    prefix: &str,
    deadlines: &std::path::Path,
) -> (
    Served,
    ScaledClock,
    std::sync::mpsc::Receiver<HybridOutcome>,
) {
    let log = JobEndLog::at_end(env::xtask_job_end_log(slurm).expect("a cluster of `slurm up`"));
    let platform =
        SlurmBatch::new(slurm.clone(), log, SCALE, None).with_deadlines(deadlines.into());
    let clock = ScaledClock::starting_now(Time(0), SCALE);
    let service = HybridService::start(
        HybridServiceConfig {
            log: Logger::discard(),
            stop_when_done: true,
            ..HybridServiceConfig::default()
        },
        HybridRun {
            config: HybridConfig::new(8).unwrap(),
            policy: scenario::mechanism(mechanism),
            jobs,
            platform,
            prefix: prefix.to_owned(),
            clock: HybridClock::Scaled(clock),
        },
    )
    .unwrap();
    let (tx, outcome) = std::sync::mpsc::channel::<HybridOutcome>();
    let served = Served::spawn(move |listener, stopped| async move {
        let out = service
            .serve(listener, async move {
                let _ = stopped.await;
            })
            .await
            .expect("serve");
        let _ = tx.send(out);
    });
    (served, clock, outcome)
}

/// CUA&PAA through the service on Slurm: a notice at about t=40 of a 4-node job due in 100 s
/// makes the policy keep job 1's nodes when it ends (job 3 waits); the job arrives at about
/// t=140 and starts at once on them, no job preempted; the same decisions as the simulator
/// given the notice and the arrival at their instants. Prints the calls' latencies and the
/// start's, with the machine's load.
#[test]
fn a_notice_then_its_arrival_start_the_job_on_the_nodes_collected() {
    let Some(held) = cluster("hybrid-svc") else {
        return;
    };
    let slurm = held.slurm().clone();
    assert_eq!(slurm.nodes().unwrap().len(), 8, "the test needs 8 nodes");
    let mechanism = Composite::ALL[2]; // CUA&PAA
    let dir = tempfile::tempdir().unwrap();
    let prefix = held.prefix().to_owned();
    let (served, clock, outcome) = serve_on(&slurm, mechanism, workload(), &prefix, dir.path());
    let client = agent(StdDuration::from_secs(60));
    let until = |t: i64| {
        while clock.now() < Time(t) {
            std::thread::sleep(StdDuration::from_millis(20));
        }
    };
    let json = |text: &str| -> Value { serde_json::from_str(text).unwrap() };

    until(40);
    let sent = Instant::now();
    let (status, _, text) = served.call(
        &client,
        "POST",
        "/notice",
        Some(r#"{"nodes": 4, "arrives_in_s": 100}"#),
        None,
    );
    let notice_ms = sent.elapsed().as_secs_f64() * 1e3;
    assert_eq!(status, 200, "{text}");
    let notice = json(&text);
    let (job, at, estimated) = (
        notice["job"].as_u64().unwrap(),
        notice["at"].as_i64().unwrap(),
        notice["estimated_arrival"].as_i64().unwrap(),
    );

    until(estimated);
    let posted = now_ms();
    let sent = Instant::now();
    let body = format!(r#"{{"nodes": 4, "duration_s": 100, "notice": {job}, "wait_s": 10}}"#);
    let (status, _, text) = served.call(&client, "POST", "/ondemand", Some(&body), None);
    let arrival_ms = sent.elapsed().as_secs_f64() * 1e3;
    assert_eq!(status, 200, "{text}");
    let answer = json(&text);
    assert_eq!(answer["status"]["status"], "running", "{text}");
    let arrival = answer["arrival"].as_i64().unwrap();
    assert_eq!(answer["started"]["at"].as_i64(), Some(arrival), "{text}");
    // Slurm runs it: from the call to the job seen running.
    let name = format!("{prefix}{job}");
    let deadline = Instant::now() + StdDuration::from_secs(10);
    let (running_ms, nodes) = loop {
        let details = slurm.job_details().unwrap();
        if let Some(d) = details
            .iter()
            .find(|d| d.name == name && d.state == JobState::Running)
        {
            break (now_ms() - posted, d.nodes.clone());
        }
        assert!(Instant::now() < deadline, "{name} never ran: {details:?}");
        std::thread::sleep(StdDuration::from_millis(20));
    };
    let load_then = load();
    println!(
        "notice answered in {notice_ms:.1} ms; arrival answered (started) in {arrival_ms:.1} ms; \
         running on Slurm {running_ms} ms after the call, on {nodes:?}; load {load_then}"
    );
    assert!(
        running_ms < 5_000,
        "running {running_ms} ms after its arrival"
    );

    let live = outcome
        .recv_timeout(StdDuration::from_secs(120))
        .expect("the run completes");
    drop(served);

    // The simulator, given the notice and the arrival at the instants the service gave them.
    let od = OnDemandJob::new(JobId(job), 4, Duration(100), Duration(100), Time(arrival))
        .unwrap()
        .with_notice(Time(at), Time(estimated))
        .unwrap();
    let mut jobs = workload();
    jobs.push(HybridJob::OnDemand(od));
    let sim = HybridSim::new(HybridConfig::new(8).unwrap())
        .unwrap()
        .run(&mut scenario::mechanism(mechanism), &jobs)
        .unwrap();
    let record = |out: &HybridOutcome, id| {
        out.records
            .iter()
            .find(|r| r.id == JobId(id))
            .cloned()
            .unwrap()
    };
    println!("job  sim start/end  live start/end");
    for id in [1, 2, 3, job] {
        let (s, l) = (record(&sim, id), record(&live, id));
        println!(
            "{id:>3} {:>5}/{:<5} {:>5}/{:<5}",
            s.start.unwrap().secs(),
            s.end.unwrap().secs(),
            l.start.unwrap().secs(),
            l.end.unwrap().secs()
        );
    }
    assert_eq!(
        record(&sim, job).start,
        Some(Time(arrival)),
        "simulated: at once"
    );
    assert_eq!(record(&live, job).start, Some(Time(arrival)));
    // Job 3 waited for the on-demand job (its nodes were collected for it), in both.
    assert!(record(&sim, 3).start.unwrap() >= record(&sim, job).end.unwrap());
    assert!(record(&live, 3).start.unwrap() >= record(&live, job).end.unwrap());
    let preemptions = |out: &HybridOutcome| out.accounts.iter().map(|a| a.preemptions).sum::<u32>();
    assert_eq!((preemptions(&sim), preemptions(&live)), (0, 0));
    // The on-demand job ran on the nodes job 1 freed.
    let details = slurm.job_details().unwrap();
    let one = details
        .iter()
        .find(|d| d.name == format!("{prefix}1"))
        .unwrap();
    let mut freed = one.nodes.clone();
    freed.sort();
    let mut got = nodes;
    got.sort();
    assert_eq!(got, freed);
}

/// N&SPAA through the service on Slurm, §III-B4's expansion: a 2-node on-demand job at about
/// t=40 shrinks malleable job 2 to 2 nodes; when it ends the policy expands job 2 back to 4,
/// which on Slurm merges a second allocation of the freed nodes into the running job
/// (`--dependency=expand:`); Slurm's record shows 4 nodes again, and the run is the
/// simulator's (the same resizes, each job's start and end within a few seconds).
#[test]
fn a_shrunk_malleable_job_grows_back_on_slurm() {
    let Some(held) = cluster("hybrid-grow") else {
        return;
    };
    let slurm = held.slurm().clone();
    assert_eq!(slurm.nodes().unwrap().len(), 8, "the test needs 8 nodes");
    let mechanism = Composite::ALL[1]; // N&SPAA
    let rigid = RigidJob::new(JobId(1), Time(0), 4, Duration(300), Duration(300)).unwrap();
    let malleable =
        cosched_core::MalleableJob::new(JobId(2), Time(0), 2, 4, Duration(1200), Duration(5))
            .unwrap();
    let jobs = vec![
        HybridJob::Rigid {
            job: rigid,
            setup: Duration(0),
        },
        HybridJob::Malleable {
            job: malleable,
            estimate: Duration(400),
        },
    ];
    let dir = tempfile::tempdir().unwrap();
    let prefix = held.prefix().to_owned();
    let (served, clock, outcome) = serve_on(&slurm, mechanism, jobs.clone(), &prefix, dir.path());
    let client = agent(StdDuration::from_secs(60));
    while clock.now() < Time(40) {
        std::thread::sleep(StdDuration::from_millis(20));
    }
    let (status, _, text) = served.call(
        &client,
        "POST",
        "/ondemand",
        Some(r#"{"nodes": 2, "duration_s": 60, "wait_s": 10}"#),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["status"]["status"], "running", "{text}");
    let (job, arrival) = (
        answer["job"].as_u64().unwrap(),
        answer["arrival"].as_i64().unwrap(),
    );
    // Slurm's view of job 2 while it runs: 4 nodes, then 2, then 4 again.
    let name = format!("{prefix}2");
    let mut sizes: Vec<u32> = Vec::new();
    let live = loop {
        if let Ok(out) = outcome.try_recv() {
            break out;
        }
        if let Some(d) = slurm
            .job_details()
            .unwrap()
            .into_iter()
            .find(|d| d.name == name && d.state == JobState::Running)
            && sizes.last() != Some(&d.node_count)
        {
            sizes.push(d.node_count);
        }
        assert!(
            clock.now() < Time(1500),
            "the run takes far longer than simulated"
        );
        std::thread::sleep(StdDuration::from_millis(50));
    };
    drop(served);
    println!("job 2 on Slurm: {sizes:?} nodes; load {}", load());
    assert_eq!(sizes, [2, 4], "seen from the shrink on");
    let od = OnDemandJob::new(JobId(job), 2, Duration(60), Duration(60), Time(arrival)).unwrap();
    let mut all = jobs;
    all.push(HybridJob::OnDemand(od));
    let sim = HybridSim::new(HybridConfig::new(8).unwrap())
        .unwrap()
        .run(&mut scenario::mechanism(mechanism), &all)
        .unwrap();
    let account = |out: &HybridOutcome| {
        out.accounts
            .iter()
            .find(|a| a.id == JobId(2))
            .cloned()
            .unwrap()
    };
    let (s, l) = (account(&sim), account(&live));
    println!("job 2 simulated {s:?}\njob 2 live      {l:?}");
    assert_eq!((s.shrinks, s.expansions), (1, 1));
    assert_eq!((l.shrinks, l.expansions), (1, 1));
    for id in [1, 2, job] {
        let (s, l) = (
            sim.records.iter().find(|r| r.id == JobId(id)).unwrap(),
            live.records.iter().find(|r| r.id == JobId(id)).unwrap(),
        );
        println!(
            "{id}: simulated {:?}-{:?}, live {:?}-{:?}",
            s.start, s.end, l.start, l.end
        );
        let off = (l.end.unwrap() - s.end.unwrap()).0;
        assert!(
            (0..=3 * i64::from(SCALE)).contains(&off),
            "{id} ends {off} s late"
        );
    }
    let shown = std::process::Command::new("scontrol")
        .env("SLURM_CONF", std::env::var_os("COSCHED_SLURM").unwrap())
        .args(["show", "job", &live_id(&slurm, &name)])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("NumNodes=4"), "{shown}");
    assert!(shown.contains("ResizeTime=20"), "{shown}");
}

fn live_id(slurm: &cosched_slurm::Slurm, name: &str) -> String {
    slurm
        .job_details()
        .unwrap()
        .into_iter()
        .find(|d| d.name == name)
        .map(|d| d.id.to_string())
        .unwrap()
}
