//! The generator against a trace the reference C program produced: the Parallel Workloads
//! Archive's `lublin_256.swf` (10,000 jobs on 256 nodes, whole-log "typeless" parameters),
//! vendored as `crates/cli/experiments/data/lublin_256.swf.gz`.

use cosched_core::RigidJob;
use cosched_workload::LublinModel;
use cosched_workload::swf::read_rigid_jobs;
use std::path::PathBuf;

struct Stats {
    serial_share: f64,
    mean_size: f64,
    median_runtime: f64,
    median_gap: f64,
}

fn stats(jobs: &[RigidJob]) -> Stats {
    let n = jobs.len() as f64;
    let mut runtimes: Vec<i64> = jobs.iter().map(|j| j.runtime.0).collect();
    runtimes.sort_unstable();
    let mut submits: Vec<i64> = jobs.iter().map(|j| j.submit.0).collect();
    submits.sort_unstable();
    let mut gaps: Vec<i64> = submits.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort_unstable();
    Stats {
        serial_share: jobs.iter().filter(|j| j.size == 1).count() as f64 / n,
        mean_size: jobs.iter().map(|j| f64::from(j.size)).sum::<f64>() / n,
        median_runtime: runtimes[runtimes.len() / 2] as f64,
        median_gap: gaps[gaps.len() / 2] as f64,
    }
}

#[test]
fn typeless_model_matches_the_archive_trace() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../cli/experiments/data/lublin_256.swf.gz");
    let reference = stats(&read_rigid_jobs(&path).expect("reference trace parses").jobs);
    let model = LublinModel::typeless(256).expect("valid model");
    // Pool several seeds so that our side's sampling error is small next to the tolerance.
    let ours: Vec<Stats> = (1..=5)
        .map(|seed| stats(&model.generate(10_000, seed)))
        .collect();
    let mean = |f: fn(&Stats) -> f64| ours.iter().map(f).sum::<f64>() / ours.len() as f64;
    // Tolerances: a few standard errors of a 10,000-job sample (serial share: sd 0.0043).
    assert!((mean(|s| s.serial_share) - reference.serial_share).abs() < 0.02);
    assert!((mean(|s| s.mean_size) / reference.mean_size - 1.0).abs() < 0.10);
    assert!((mean(|s| s.median_runtime) / reference.median_runtime - 1.0).abs() < 0.25);
    assert!((mean(|s| s.median_gap) / reference.median_gap - 1.0).abs() < 0.25);
}
