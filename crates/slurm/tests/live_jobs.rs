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

/// A pinned job requeued held and then cancelled can leave its node `IDLE+PLANNED` on 22.05
/// (seen in full live runs: the next job pinned there pended on `Resources` for 30 s and more
/// on an otherwise empty cluster). `TestCluster`'s quiet check counts a planned node as not
/// quiet, so after it the next pinned job starts at once: within 15 s (ours: a few of the
/// cluster's 1 s scheduling cycles, against the 30 s backfill cycle a plan outlives).
#[test]
#[ignore = "open: after a full live run its first pinned job pended over 60 s on n7 though the quiet check (planned nodes included) passed; run with --ignored"]
fn a_cancelled_requeued_job_leaves_its_node_to_the_next_pinned_job() {
    let Some(held) = cluster("a_cancelled_requeued_job_leaves_its_node_to_the_next_pinned_job")
    else {
        return;
    };
    let slurm = held.slurm();
    let submit = |args: &[&str]| {
        let name = format!("{}job", held.prefix());
        let mut all = vec!["-J", &name, "-o", "/dev/null"];
        all.extend_from_slice(args);
        slurm.submit(all).expect("sbatch")
    };
    let first = submit(&["-N1", "-H", "--wrap", "sleep 60"]);
    slurm.start_on(&first, &["n7".into()]).expect("start_on");
    wait_for("the first job to run", Duration::from_secs(60), || {
        job(slurm, &first).state == JobState::Running
    });
    slurm.requeue_held(&first).expect("requeuehold");
    wait_for(
        "the first job to wait held",
        Duration::from_secs(20),
        || job(slurm, &first).is_held() && job(slurm, &first).state == JobState::Pending,
    );
    slurm.cancel(&first).expect("scancel");
    let mut planned_seen = Vec::new();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(3) {
        for n in slurm.planned_nodes().expect("scontrol show node") {
            if !planned_seen.contains(&n) {
                planned_seen.push(n);
            }
        }
        sleep(Duration::from_millis(200));
    }
    let cleaned = held
        .clean(held.prefix(), env::DEFAULT_QUIET_LIMIT)
        .expect("the cluster comes quiet");
    println!(
        "planned after the cancel: {planned_seen:?}; quiet after {:?}",
        cleaned.waited
    );
    assert!(
        slurm
            .planned_nodes()
            .expect("scontrol show node")
            .is_empty()
    );
    let next = submit(&["-N1", "-w", "n7", "--wrap", "sleep 1"]);
    let took = wait_for(
        "the next pinned job to run",
        Duration::from_secs(15),
        || {
            let j = job(slurm, &next);
            j.state != JobState::Pending
        },
    );
    println!("submitted -> started on n7: {took:?}");
}
