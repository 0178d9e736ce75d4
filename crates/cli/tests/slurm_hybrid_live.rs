//! `cosched slurm hybrid` killed (SIGKILL) right after it requeued a job, then started again
//! with the same arguments, against the local Slurm cluster: `cargo xtask slurm up --nodes 8`,
//! then `COSCHED_SLURM=target/slurm/etc/slurm.conf cargo test -p cosched-cli --test
//! slurm_hybrid_live -- --nocapture`. Without `COSCHED_SLURM` the test prints why it skips
//! and passes. It holds the whole cluster ([`TestCluster`]) for about a minute.

use std::io::Write as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration as StdDuration, Instant};

use cosched_core::{Duration, JobId, OnDemandJob, Time};
use cosched_hybrid::workload::assign_types;
use cosched_hybrid::{Composite, HybridConfig, HybridJob, HybridSim, scenario};
use cosched_slurm::env::{self, TestCluster};
use cosched_slurm::{JobEndLog, JobState, Slurm};

/// Workload seconds per wall second.
const SCALE: i64 = 10;

/// Two 4-node jobs of 300 s from 0 (the command types them; the seed is one that makes both
/// rigid), which fill the 8 nodes.
const TRACE: &str = "; two 4-node jobs\n\
    1 0 -1 300 4 -1 -1 4 330 -1 1 1 1 1 1 1 -1 -1\n\
    2 0 -1 300 4 -1 -1 4 330 -1 1 1 1 1 1 1 -1 -1\n";

/// The first seed that types both jobs of `trace` rigid, and the typed jobs.
fn rigid_seed(trace: &Path) -> (u64, Vec<HybridJob>) {
    let read = cosched_cli::input::read(trace).expect("the trace reads");
    (1..1000)
        .find_map(|seed| {
            let jobs = assign_types(&read.jobs, &scenario::type_params(true), seed).ok()?;
            let rigid =
                jobs.len() == 2 && jobs.iter().all(|j| matches!(j, HybridJob::Rigid { .. }));
            rigid.then_some((seed, jobs))
        })
        .expect("a seed typing both jobs rigid")
}

fn command(args: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("cosched runs")
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Job `name` as Slurm lists it.
fn job(slurm: &Slurm, name: &str) -> Option<cosched_slurm::JobDetail> {
    slurm
        .job_details()
        .expect("squeue")
        .into_iter()
        .find(|j| j.name == name)
}

/// N&PAA: an 8-node on-demand job arrives through the service at about t=50 and preempts
/// both rigid jobs. The command is killed as soon as Slurm counts the first requeue, then
/// started again with the same arguments: it resumes from its journal and finishes the run
/// as simulated. The requeued runs' ends in the epilog's log are not taken for the jobs'
/// ends (each rigid job ends after its restart, a whole run later), the restarts clear the
/// requeue's begin time (they start within seconds of the on-demand job's end, not two
/// minutes after the requeue), and Slurm ran each job once per run.
#[test]
fn killed_right_after_a_requeue_the_command_resumes_without_an_early_end() {
    let Some(held) = TestCluster::acquire("cli-hybrid", env::DEFAULT_QUIET_LIMIT)
        .unwrap_or_else(|e| panic!("COSCHED_SLURM is set but the cluster is not usable: {e}"))
    else {
        println!(
            "skipping the live `cosched slurm hybrid` test: {}",
            env::SKIP_REASON
        );
        return;
    };
    println!("cluster clean: {:?}; load {}", held.cleaned(), load());
    let slurm = held.slurm().clone();
    assert_eq!(slurm.nodes().unwrap().len(), 8, "the test needs 8 nodes");
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("two.swf");
    std::fs::File::create(&trace)
        .and_then(|mut f| f.write_all(TRACE.as_bytes()))
        .unwrap();
    let (seed, mut jobs) = rigid_seed(&trace);
    let log = env::xtask_job_end_log(&slurm).expect("a cluster of `cargo xtask slurm up`");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let out = dir.path().join("records.csv");
    let prefix = held.prefix().to_owned();
    let args: Vec<String> = [
        "slurm",
        "hybrid",
        "--mechanism",
        "N&PAA",
        "--workload",
        &trace.to_string_lossy(),
        "--seed",
        &seed.to_string(),
        "--scale",
        &SCALE.to_string(),
        "--slurm-conf",
        &std::env::var(env::TEST_CLUSTER_VAR).unwrap(),
        "--job-end-log",
        &log.to_string_lossy(),
        "--state",
        &dir.path().join("state.json").to_string_lossy(),
        "--prefix",
        &prefix,
        "--listen",
        &format!("127.0.0.1:{port}"),
        "--log",
        "none",
        "--until-done",
        "--out",
        &out.to_string_lossy(),
    ]
    .map(str::to_owned)
    .to_vec();
    let base = format!("http://127.0.0.1:{port}");
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(StdDuration::from_secs(30)))
        .http_status_as_error(false)
        .build()
        .into();
    let started = Instant::now();
    let mut first = command(&args);
    let up = Instant::now() + StdDuration::from_secs(30);
    while agent.get(format!("{base}/metrics")).call().is_err() {
        assert!(Instant::now() < up, "the service does not answer");
        std::thread::sleep(StdDuration::from_millis(50));
    }
    // The clock starts when the command does: the on-demand job comes at about t=50.
    std::thread::sleep(StdDuration::from_millis(5000).saturating_sub(started.elapsed()));
    let mut answer = agent
        .post(format!("{base}/ondemand"))
        .send_json(serde_json::json!({"nodes": 8, "duration_s": 100}))
        .expect("POST /ondemand");
    let answer: serde_json::Value = answer.body_mut().read_json().unwrap();
    assert!(answer["job"].is_u64(), "{answer}");
    println!("on-demand: {answer}");
    let od = JobId(answer["job"].as_u64().unwrap());
    let arrival = Time(answer["arrival"].as_i64().unwrap());

    // Killed as soon as Slurm counts job 1's requeue.
    let (one, two) = (format!("{prefix}1"), format!("{prefix}2"));
    let deadline = Instant::now() + StdDuration::from_secs(30);
    let requeued_ms = loop {
        if job(&slurm, &one).is_some_and(|j| j.restarts > 0) {
            break now_ms();
        }
        assert!(Instant::now() < deadline, "job 1 was not requeued");
    };
    first.kill().unwrap();
    let killed_ms = now_ms();
    first.wait().unwrap();
    let logged = |name: &str| {
        let id = job(&slurm, name).map(|j| j.id.to_string());
        JobEndLog::new(&log)
            .read_new()
            .unwrap()
            .iter()
            .filter(|e| Some(&e.job_id) == id.as_ref())
            .count()
    };
    println!(
        "killed {} ms after job 1's requeue was seen: job 1 requeued {} (logged runs {}), job 2 requeued {} (logged runs {})",
        killed_ms - requeued_ms,
        job(&slurm, &one).unwrap().restarts,
        logged(&one),
        job(&slurm, &two).unwrap().restarts,
        logged(&two),
    );

    let mut second = command(&args);
    let status = second.wait().unwrap();
    assert!(status.success(), "the resumed command failed: {status}");
    let elapsed = started.elapsed();
    println!("whole run {elapsed:?}; load {}", load());

    // The records: every job once, ended; each rigid job preempted once and ended a whole
    // run after its restart.
    let csv = std::fs::read_to_string(&out).unwrap();
    println!("{csv}");
    let rows: Vec<Vec<String>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect();
    assert_eq!(rows.len(), 3, "{csv}");
    let row = |id: JobId| rows.iter().find(|r| r[0] == id.0.to_string()).unwrap();
    let field = |id: JobId, k: usize| -> i64 { row(id)[k].parse().unwrap() };

    // The simulated run: the same typed jobs, the on-demand job at its arrival.
    jobs.push(HybridJob::OnDemand(
        OnDemandJob::new(od, 8, Duration(100), Duration(100), arrival).unwrap(),
    ));
    let sim = HybridSim::new(HybridConfig::new(8).unwrap())
        .unwrap()
        .run(&mut scenario::mechanism(Composite::ALL[0]), &jobs)
        .unwrap();
    println!("job  sim start/end  live start/end  sim/live delivered node-s");
    for r in &sim.records {
        let a = sim.accounts.iter().find(|a| a.id == r.id).unwrap();
        println!(
            "{:>3} {:>6}/{:<6} {:>6}/{:<6} {:>6}/{}",
            r.id.0,
            r.start.unwrap().secs(),
            r.end.unwrap().secs(),
            field(r.id, 4),
            field(r.id, 5),
            a.delivered,
            field(r.id, 6),
        );
        // Ends as simulated: not early (a requeued run's end taken for the job's), and late
        // only by the platform's lags (ours: 8 wall s over the restart's wait for idle
        // nodes, the calls and the epilogs).
        let (end, sim_end) = (field(r.id, 5), r.end.unwrap().secs());
        assert!(
            (sim_end - SCALE..=sim_end + 8 * SCALE).contains(&end),
            "job {}: ended at {end}, simulated {sim_end}",
            r.id.0
        );
        assert_eq!(field(r.id, 8), i64::from(a.preemptions), "job {}", r.id.0);
    }
    for id in [JobId(1), JobId(2)] {
        assert_eq!(field(id, 8), 1, "job {} preempted once", id.0);
    }

    // Slurm: each job completed, the rigid ones requeued once, one epilog line per run;
    // the restarts came within seconds of the on-demand job's end (`StartTime=now` cleared
    // the requeue's begin time, about two minutes after the requeue).
    let od_end = job(&slurm, &format!("{prefix}{}", od.0)).unwrap().end_unix;
    for (name, restarts) in [(&one, 1), (&two, 1), (&format!("{prefix}{}", od.0), 0)] {
        let d = job(&slurm, name).unwrap();
        assert_eq!(
            (d.state.clone(), d.restarts),
            (JobState::Completed, restarts),
            "{name}"
        );
        assert_eq!(
            logged(name),
            1 + restarts as usize,
            "{name}'s runs in the epilog"
        );
        if restarts > 0 {
            let wait = d.start_unix - od_end;
            println!("{name}: restarted {wait} s after the on-demand job's end");
            assert!(
                wait <= 10,
                "{name} restarted {wait} s after the on-demand job ended"
            );
        }
    }
}
