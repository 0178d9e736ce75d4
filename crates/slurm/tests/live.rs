//! Live tests against a real Slurm cluster: `cargo xtask slurm up` (8 nodes), then
//! `COSCHED_SLURM=target/slurm/etc/slurm.conf cargo test`. Without `COSCHED_SLURM` every test
//! prints why it skips and passes; with it, a cluster that does not answer fails them.
//!
//! Each test holds the cluster alone ([`TestCluster`]): it starts on a quiet cluster and
//! leaves it clean, whatever the tests before it did.

use std::thread::sleep;
use std::time::{Duration, Instant};

use cosched_slurm::env::{self, TestCluster};
use cosched_slurm::{JobEndLog, JobReader, JobState, NodeState, Slurm};

/// The cluster of `COSCHED_SLURM` held for `test` (quiet at the start, cleaned when the hold
/// drops), or `None` (with the reason printed) when it is unset.
fn cluster(test: &str) -> Option<TestCluster> {
    let held = TestCluster::acquire(test, env::DEFAULT_QUIET_LIMIT)
        .unwrap_or_else(|e| panic!("COSCHED_SLURM is set but the cluster is not usable: {e}"));
    if held.is_none() {
        println!("skipping {test}: {}", env::SKIP_REASON);
    }
    held
}

/// Polls `check` every 200 ms until it holds; panics naming `what` after `limit`.
fn wait_for(what: &str, limit: Duration, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        sleep(Duration::from_millis(200));
    }
}

fn state(slurm: &Slurm, node: &str) -> NodeState {
    slurm.node(node).expect("node status").state
}

fn job_state(slurm: &Slurm, id: &str) -> Option<JobState> {
    slurm
        .job_details()
        .expect("job status")
        .into_iter()
        .find(|j| j.id.to_string() == id)
        .map(|j| j.state)
}

/// A reclaim of a busy node drains it: the running batch job finishes (never killed), the node
/// takes no new job, and a restore returns it to service.
#[test]
fn draining_a_busy_node_lets_its_job_finish() {
    let Some(held) = cluster("draining_a_busy_node_lets_its_job_finish") else {
        return;
    };
    let slurm = held.slurm();
    let id = slurm
        .submit([
            "-N1",
            "-J",
            &format!("{}busy", held.prefix()),
            "-w",
            "n1",
            "-o",
            "/dev/null",
            "--wrap",
            "sleep 3",
        ])
        .expect("sbatch");
    wait_for("the job to run", Duration::from_secs(20), || {
        job_state(slurm, &id) == Some(JobState::Running)
    });
    slurm.drain("n1", "cosched live test").expect("drain");
    let node = slurm.node("n1").expect("n1");
    assert_eq!(node.state, NodeState::Draining);
    assert_eq!(node.reason.as_deref(), Some("cosched live test"));
    // A job asking for n1 now waits: the node takes nothing new.
    let blocked = slurm
        .submit([
            "-N1",
            "-J",
            &format!("{}blocked", held.prefix()),
            "-w",
            "n1",
            "-o",
            "/dev/null",
            "--wrap",
            "true",
        ])
        .expect("sbatch");
    wait_for("the drain to complete", Duration::from_secs(30), || {
        state(slurm, "n1") == NodeState::Drained
    });
    // The drained node's job finished (its epilog may still be completing), never killed.
    wait_for(
        "the drained node's job to complete",
        Duration::from_secs(30),
        || {
            let s = job_state(slurm, &id);
            assert!(!s.as_ref().is_some_and(JobState::is_killed), "{s:?}");
            s == Some(JobState::Completed)
        },
    );
    assert_eq!(job_state(slurm, &blocked), Some(JobState::Pending));
    slurm.resume("n1").expect("resume");
    wait_for(
        "the blocked job to run on the restored node",
        Duration::from_secs(30),
        || job_state(slurm, &blocked) == Some(JobState::Completed),
    );
}

/// A reclaim of an idle node takes it at once.
#[test]
fn draining_an_idle_node_takes_it_at_once() {
    let Some(held) = cluster("draining_an_idle_node_takes_it_at_once") else {
        return;
    };
    let slurm = held.slurm();
    slurm.drain("n2", "cosched live test").expect("drain");
    assert_eq!(state(slurm, "n2"), NodeState::Drained);
    slurm.resume("n2").expect("resume");
    wait_for("n2 to be idle", Duration::from_secs(10), || {
        state(slurm, "n2") == NodeState::Idle
    });
    assert!(matches!(
        slurm.node("no-such-node"),
        Err(cosched_slurm::SlurmError::UnknownNode(_))
    ));
    assert!(slurm.drain("no-such-node", "x").is_err());
}

/// A job end reaches a policy both ways: by polling `squeue` and through the controller's
/// epilog notifier.
#[test]
fn job_ends_are_seen_by_polling_and_by_the_epilog() {
    let Some(held) = cluster("job_ends_are_seen_by_polling_and_by_the_epilog") else {
        return;
    };
    let slurm = held.slurm();
    let log_path = env::xtask_job_end_log(slurm).expect("target/slurm");
    let mut log = JobEndLog::new(&log_path);
    let _ = log.read_new().expect("read the log");
    let id = slurm
        .submit([
            "-N2",
            "-J",
            &format!("{}end", held.prefix()),
            "-w",
            "n3,n4",
            "-o",
            "/dev/null",
            "--wrap",
            "sleep 1",
        ])
        .expect("sbatch");
    wait_for("squeue to report the end", Duration::from_secs(30), || {
        job_state(slurm, &id) == Some(JobState::Completed)
    });
    let mut seen = Vec::new();
    wait_for(
        "the epilog to report the end",
        Duration::from_secs(30),
        || {
            seen.extend(log.read_new().expect("read the log"));
            seen.iter().any(|e| e.job_id == id)
        },
    );
    let end = seen.iter().find(|e| e.job_id == id).expect("seen");
    assert_eq!(end.nodes, ["n3", "n4"]);
    assert_eq!(end.exit_code, Some(0));
}

/// The one job reader reads the same jobs by `squeue --json` and by `squeue -O` (the fallback
/// of a Slurm without JSON): held, running, ended and requeued jobs, field for field.
#[test]
fn the_column_reader_reads_what_the_json_reader_reads() {
    let Some(held) = cluster("the_column_reader_reads_what_the_json_reader_reads") else {
        return;
    };
    let slurm = held.slurm();
    let submit = |args: &[&str]| {
        let name = format!("{}reader|a name with a bar", held.prefix());
        let mut all = vec!["-J", &name, "-o", "/dev/null"];
        all.extend_from_slice(args);
        slurm.submit(all).expect("sbatch")
    };
    let ended = submit(&["-N1", "-w", "n5", "--wrap", "true"]);
    let running = submit(&["-N2", "-w", "n5,n6", "-t", "2:30", "--wrap", "sleep 120"]);
    let waiting = submit(&["-N3", "--hold", "-t", "1-0", "--wrap", "true"]);
    let requeued = submit(&["-N1", "-w", "n4", "--wrap", "sleep 120"]);
    // Slurm may leave a pinned job pending until a later scheduling cycle (measured: 10 s and
    // more), so both runs last long enough to overlap whenever each starts.
    wait_for(
        "the jobs to be running and ended",
        Duration::from_secs(90),
        || {
            job_state(slurm, &ended) == Some(JobState::Completed)
                && job_state(slurm, &running) == Some(JobState::Running)
                && job_state(slurm, &requeued) == Some(JobState::Running)
        },
    );
    // Requeued held: `squeue -O` prints its description where the JSON has the reason.
    slurm.requeue_held(&requeued).expect("scontrol requeuehold");
    wait_for("the requeued job to pend", Duration::from_secs(30), || {
        job_state(slurm, &requeued) == Some(JobState::Pending)
    });
    let ours = |reader: JobReader| {
        let mut jobs: Vec<_> = slurm
            .clone()
            .with_job_reader(reader)
            .job_details()
            .expect("squeue")
            .into_iter()
            .filter(|j| [&ended, &running, &waiting, &requeued].contains(&&j.id.to_string()))
            .collect();
        jobs.sort_by_key(|j| j.id);
        // A requeued job's expected end, unlimited: the JSON gives a far-future placeholder
        // (measured: 6091191444), the columns `N/A`.
        for j in jobs.iter_mut().filter(|j| j.restarts > 0 && j.is_held()) {
            j.end_unix = 0;
        }
        jobs
    };
    let (json, columns) = (ours(JobReader::Json), ours(JobReader::Columns));
    assert_eq!(json.len(), 4);
    assert_eq!(json, columns);
    assert!(json[3].is_held() && json[3].restarts == 1, "{:?}", json[3]);
    assert_eq!(json[1].time_limit_min, Some(3), "2:30 rounds up");
    assert_eq!(json[2].time_limit_min, Some(1440));
    assert!(json[1].name.ends_with("a name with a bar"));
    assert_eq!(slurm.job_reader(), JobReader::Json, "22.05 reads JSON");
}
