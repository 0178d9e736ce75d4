//! Job control against a real Slurm cluster (`cargo xtask slurm up`, then
//! `COSCHED_SLURM=target/slurm/etc/slurm.conf cargo test -p cosched-slurm --test live_jobs`):
//! what an executor of hybrid's mechanisms needs. Without `COSCHED_SLURM` the test prints why
//! it skips and passes. It uses nodes n7 and n8.

use std::path::PathBuf;
use std::thread::sleep;
use std::time::{Duration, Instant};

use cosched_slurm::{JobDetail, JobState, NodeState, Slurm};

fn cluster(test: &str) -> Option<Slurm> {
    let Some(conf) = std::env::var_os("COSCHED_SLURM") else {
        println!(
            "skipping {test}: COSCHED_SLURM is not set (run `cargo xtask slurm up` and export what it prints)"
        );
        return None;
    };
    let slurm = Slurm::with_config(PathBuf::from(conf));
    if let Err(e) = slurm.ping() {
        panic!("COSCHED_SLURM is set but the cluster does not answer: {e}");
    }
    Some(slurm)
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

/// Cancels the test's job however the test ends, so a failure leaves the nodes free.
struct Cancel<'a>(&'a Slurm, String);
impl Drop for Cancel<'_> {
    fn drop(&mut self) {
        let _ = self.0.cancel(&self.1);
    }
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
/// freed node is idle at once and the record shows the new size); a job requeued held waits
/// until released and, its begin time cleared, runs again at its submitted size and
/// completes.
#[test]
fn held_start_shrink_and_requeue() {
    let Some(slurm) = cluster("held_start_shrink_and_requeue") else {
        return;
    };
    wait_for("n7 and n8 to be idle", Duration::from_secs(60), || {
        idle(&slurm, &["n7", "n8"])
    });
    let id = slurm
        .submit_held([
            "-N2",
            "-J",
            "cosched-live-jobs",
            "-o",
            "/dev/null",
            "--wrap",
            "sleep 8",
        ])
        .expect("sbatch --hold");
    let _cancel = Cancel(&slurm, id.clone());
    let held = job(&slurm, &id);
    assert!(held.is_held(), "{held:?}");
    slurm
        .start_on(&id, &["n7".into(), "n8".into()])
        .expect("start_on");
    let took = wait_for("the job to run", Duration::from_secs(20), || {
        job(&slurm, &id).state == JobState::Running
    });
    println!("released -> running: {took:?}");
    assert_eq!(job(&slurm, &id).nodes, ["n7", "n8"]);

    slurm.resize(&id, 1).expect("shrink");
    let shrunk = job(&slurm, &id);
    assert_eq!(
        (shrunk.state.clone(), shrunk.node_count),
        (JobState::Running, 1)
    );
    assert_eq!(shrunk.nodes, ["n7"]);
    let took = wait_for("n8 to be idle", Duration::from_secs(10), || {
        idle(&slurm, &["n8"])
    });
    println!("shrink -> freed node idle: {took:?}");

    slurm.requeue_held(&id).expect("requeuehold");
    wait_for("the job to wait held", Duration::from_secs(20), || {
        job(&slurm, &id).is_held()
    });
    wait_for(
        "its node to finish completing",
        Duration::from_secs(30),
        || idle(&slurm, &["n7"]),
    );
    slurm.start_now(&id).expect("clear the begin time");
    slurm.start_on(&id, &["n7".into()]).expect("start again");
    let took = wait_for("the requeued job to run", Duration::from_secs(20), || {
        job(&slurm, &id).state == JobState::Running
    });
    println!("requeued, released -> running: {took:?}");
    wait_for(
        "the requeued job to complete",
        Duration::from_secs(30),
        || job(&slurm, &id).state == JobState::Completed,
    );
    assert_eq!(job(&slurm, &id).restarts, 1);
}
