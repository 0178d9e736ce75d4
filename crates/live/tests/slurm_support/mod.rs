//! The live tests' cluster: the one of `COSCHED_SLURM`, all of its nodes idle.

use std::time::{Duration, Instant};

use cosched_slurm::{NodeState, Slurm, env};

/// The cluster of `COSCHED_SLURM`, or `None` (with the reason printed) when it is unset.
pub fn cluster(test: &str) -> Option<Slurm> {
    let slurm = env::test_cluster().expect("COSCHED_SLURM is set but the cluster does not answer");
    if slurm.is_none() {
        println!("skipping {test}: {}", env::SKIP_REASON);
    }
    slurm
}

/// Waits (up to a minute) until every node of `slurm` is idle.
pub fn wait_all_idle(slurm: &Slurm) {
    let deadline = Instant::now() + Duration::from_secs(60);
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
        std::thread::sleep(Duration::from_millis(500));
    }
}
