//! Job control against a real Slurm cluster (`cargo xtask slurm up`, then
//! `COSCHED_SLURM=target/slurm/etc/slurm.conf cargo test -p cosched-slurm --test live_jobs`):
//! what an executor of hybrid's mechanisms needs. Without `COSCHED_SLURM` the test prints why
//! it skips and passes. It uses nodes n7 and n8.

use std::thread::sleep;
use std::time::{Duration, Instant};

use cosched_slurm::env::{self, TestCluster};
use cosched_slurm::{JobDetail, JobState, NodeState, Slurm};

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

/// Polls `check` every 50 ms until it holds; the time it took, or a panic after `limit`.
fn wait_for(what: &str, limit: Duration, mut check: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !check() {
        assert!(start.elapsed() < limit, "timed out waiting for {what}");
        sleep(Duration::from_millis(50));
    }
    start.elapsed()
}

fn job(slurm: &Slurm, id: &str) -> JobDetail {
    slurm
        .job_details()
        .expect("squeue --json")
        .into_iter()
        .find(|j| j.id.to_string() == id)
        .expect("the job is listed")
}

fn idle(slurm: &Slurm, nodes: &[&str]) -> bool {
    let listed = slurm.nodes().expect("sinfo");
    nodes.iter().all(|n| {
        listed
            .iter()
            .any(|l| l.name == *n && l.state == NodeState::Idle)
    })
}

/// A held job starts only on the nodes it is pinned to; a running job shrinks in place (the
/// freed node is idle at once and the record shows the new size); a requeue-hold ends the run
/// and leaves the job held, counting the restart.
#[test]
fn held_start_shrink_and_requeue() {
    let Some(held) = cluster("held_start_shrink_and_requeue") else {
        return;
    };
    let slurm = held.slurm();
    wait_for("n7 and n8 to be idle", Duration::from_secs(60), || {
        idle(slurm, &["n7", "n8"])
    });
    let id = slurm
        .submit_held([
            "-N2",
            "-J",
            &format!("{}job", held.prefix()),
            "-o",
            "/dev/null",
            "--wrap",
            "sleep 8",
        ])
        .expect("sbatch --hold");
    let held = job(slurm, &id);
    assert!(held.is_held(), "{held:?}");
    slurm
        .start_on(&id, &["n7".into(), "n8".into()])
        .expect("start_on");
    let took = wait_for("the job to run", Duration::from_secs(60), || {
        job(slurm, &id).state == JobState::Running
    });
    println!("released -> running: {took:?}");
    assert_eq!(job(slurm, &id).nodes, ["n7", "n8"]);

    slurm.resize(&id, 1).expect("shrink");
    let shrunk = job(slurm, &id);
    assert_eq!(
        (shrunk.state.clone(), shrunk.node_count),
        (JobState::Running, 1)
    );
    assert_eq!(shrunk.nodes, ["n7"]);
    let took = wait_for("n8 to be idle", Duration::from_secs(10), || {
        idle(slurm, &["n8"])
    });
    println!("shrink -> freed node idle: {took:?}");

    slurm.requeue_held(&id).expect("requeuehold");
    wait_for("the job to wait held", Duration::from_secs(20), || {
        job(slurm, &id).is_held()
    });
    let requeued = job(slurm, &id);
    assert_eq!((requeued.restarts, requeued.state), (1, JobState::Pending));
    // Leave the nodes as found: a requeued job's nodes stay `planned` for it until the
    // controller's next backfill cycle, and later tests expect idle nodes.
    slurm.cancel(&id).expect("scancel");
    wait_for(
        "n7 and n8 to be idle again",
        Duration::from_secs(90),
        || idle(slurm, &["n7", "n8"]),
    );
}
