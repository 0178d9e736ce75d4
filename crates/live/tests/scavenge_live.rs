//! The site's scavenging role on a real Slurm cluster: `cargo xtask slurm up` (8 nodes, the
//! `batch` and preemptible `scavenger` partitions), then
//! `COSCHED_SLURM=target/slurm/etc/slurm.conf cargo test`. Without `COSCHED_SLURM` the test
//! prints why it skips; with it, a cluster that does not answer fails it.
//!
//! One scenario on the whole cluster: scavenged sleep tasks, the pool harvesting every idle
//! node, fill the nodes; batch jobs arrive in rounds and take nodes back by Slurm's
//! preemption; each preempted task is seen within seconds, queued again and completed once the
//! batch jobs end; none is lost. It prints the requeue latencies (the batch job's `sbatch` to
//! the executor's eviction), the tasks and the node-seconds harvested.

use std::thread::sleep;
use std::time::{Duration as StdDuration, Instant, SystemTime, UNIX_EPOCH};

use cosched_albatross::policy::NoScaling;
use cosched_core::{Duration, Time};
use cosched_live::scavenge::{
    Eviction, ScavengeConfig, ScavengeEvent, ScavengedTask, Scavenger, SlurmPartition,
};
use cosched_site::{HarvestAll, HtcPool};
use cosched_slurm::env::{self, TestCluster};
use cosched_slurm::{JobState, Slurm};

const NODES: usize = 8;
/// Tasks and each one's work (s).
const TASKS: usize = 16;
const WORK: i64 = 15;
/// Batch rounds: nodes each takes, how long it sleeps (s).
const ROUNDS: [(u32, i64); 3] = [(2, 6), (3, 6), (2, 6)];
/// The executor's poll.
const POLL: StdDuration = StdDuration::from_millis(200);

fn unix_now() -> Time {
    Time(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
    )
}

fn job_state(slurm: &Slurm, id: &str) -> Option<JobState> {
    slurm
        .job_details()
        .expect("squeue")
        .into_iter()
        .find(|j| j.id.to_string() == id)
        .map(|j| j.state)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

#[test]
fn scavenged_tasks_fill_idle_nodes_and_yield_to_batch_jobs_at_once() {
    // A quiet cluster, whatever the tests before left; cleaned however this one ends.
    let Some(held) = TestCluster::acquire("scavenge", env::DEFAULT_QUIET_LIMIT)
        .unwrap_or_else(|e| panic!("COSCHED_SLURM is set but the cluster is not usable: {e}"))
    else {
        println!("skipping the live scavenging test: {}", env::SKIP_REASON);
        return;
    };
    println!("cluster clean: {:?}", held.cleaned());
    let slurm = held.slurm().clone();
    let began = Instant::now();
    let config = ScavengeConfig {
        cycle: Duration(2),
        ..ScavengeConfig::default()
    };
    let pool = HtcPool::new(HarvestAll, NoScaling);
    let cluster = SlurmPartition::new(slurm.clone()).with_prefix(format!("{}task", held.prefix()));
    let mut exec = Scavenger::start(unix_now(), pool, cluster, config).expect("start");
    for _ in 0..TASKS {
        exec.submit(unix_now(), ScavengedTask::sleep(Duration(WORK)))
            .expect("submit");
    }
    let mut latencies: Vec<f64> = Vec::new();
    let mut batch: Vec<String> = Vec::new();
    let mut round = 0;
    // The batch job of the current round and when it was submitted.
    let mut arrival: Option<(Instant, u32, usize)> = None;
    let deadline = Instant::now() + StdDuration::from_secs(150);
    while !exec.is_done() {
        assert!(
            Instant::now() < deadline,
            "timed out: {:?}",
            exec.counters()
        );
        exec.step(unix_now()).expect("step");
        for e in exec.take_events() {
            if let ScavengeEvent::Evicted { cause, node, .. } = &e {
                assert_eq!(*cause, Eviction::Preempted, "{e:?}");
                let (at, _, _) = arrival.expect("an eviction with no batch job");
                latencies.push(at.elapsed().as_secs_f64());
                println!(
                    "preempted on {node} {:.2} s after the batch job's sbatch",
                    at.elapsed().as_secs_f64()
                );
            }
        }
        // Every node harvested: the next round's batch job arrives.
        let running = exec.book().attempts.len();
        let quiet =
            arrival.is_none_or(|(_, nodes, before)| latencies.len() >= before + nodes as usize);
        if running == NODES && quiet && round < ROUNDS.len() {
            let (nodes, run) = ROUNDS[round];
            let id = slurm
                .submit([
                    &format!("-N{nodes}"),
                    "-J",
                    &format!("{}batch", held.prefix()),
                    "-o",
                    "/dev/null",
                    "--wrap",
                    &format!("sleep {run}"),
                ])
                .expect("sbatch");
            arrival = Some((Instant::now(), nodes, latencies.len()));
            batch.push(id);
            round += 1;
        }
        sleep(POLL);
    }
    let c = exec.counters();
    println!(
        "scavenging live: {} tasks submitted, {} completed, {} jobs started, {} preempted, {} s of work lost; \
         harvested {} of {} idle node-s; {:.0} s wall",
        c.submitted,
        c.completed,
        c.launches,
        c.preempted,
        c.lost_work_s,
        c.harvested_node_s,
        c.idle_node_s,
        began.elapsed().as_secs_f64()
    );
    assert_eq!(round, ROUNDS.len(), "every batch round arrived");
    let expected: u32 = ROUNDS.iter().map(|r| r.0).sum();
    assert_eq!(
        latencies.len(),
        expected as usize,
        "one eviction per node taken"
    );
    assert_eq!(c.preempted, u64::from(expected));
    assert_eq!((c.submitted, c.completed), (TASKS as u64, TASKS as u64));
    assert_eq!((c.abandoned, c.failed_attempts, c.recalled), (0, 0, 0));
    assert_eq!(c.launches, TASKS as u64 + u64::from(expected));
    assert!(c.harvested_node_s <= c.idle_node_s);
    let max = latencies.iter().copied().fold(0.0, f64::max);
    let med = median(&mut latencies.clone());
    println!(
        "requeue latency over {} preemptions: median {med:.2} s, max {max:.2} s",
        latencies.len()
    );
    assert!(max < 10.0, "a preemption took {max:.1} s");
    // The batch jobs ran to completion: never preempted themselves.
    for id in &batch {
        let s = job_state(&slurm, id);
        assert!(
            matches!(s, Some(JobState::Completed | JobState::Completing) | None),
            "batch job {id}: {s:?}"
        );
    }
}
