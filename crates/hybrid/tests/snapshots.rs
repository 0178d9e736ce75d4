//! Snapshots of small deterministic runs: a 300-job Theta-like workload (W5 notices) under
//! the baseline and the six mechanisms, and the same under 5-hour-MTBF failures. Any change
//! in the simulator's behaviour shows up as a reviewed diff.

use cosched_core::Duration;
use cosched_hybrid::checkpoint::CheckpointPolicy;
use cosched_hybrid::sim::DEFAULT_REPAIR;
use cosched_hybrid::workload::{TraceParams, TypeParams, hybrid_workload};
use cosched_hybrid::{Composite, Failures, HybridConfig, HybridReport, scenario};
use std::fmt::Write;

fn table(failures: Option<Failures>) -> String {
    let jobs = hybrid_workload(&TraceParams::theta(300), &TypeParams::default(), 11).unwrap();
    let mut out = String::new();
    for mechanism in std::iter::once(None).chain(Composite::ALL.map(Some)) {
        let config = HybridConfig {
            failures,
            checkpoint: CheckpointPolicy::new(
                failures.map_or(Duration::from_hours(24), |f| f.mtbf),
                4_392,
            )
            .unwrap(),
            seed: 11,
            ..HybridConfig::new(4_392).unwrap()
        };
        let r: HybridReport = scenario::simulate(config, mechanism, &jobs).unwrap().report;
        writeln!(
            out,
            "{:<9} instant {:>3}/{} turnaround {:.3} h (rigid {:.3}, malleable {:.3}) \
             preempted rigid {:.4} malleable {:.4} preemptions {} shrinks {} guests {} \
             failures {} wasted {:.1} node-h utilisation {:.4} window {:.4} held {:.4}",
            r.mechanism,
            r.instant_starts,
            r.on_demand,
            r.turnaround_h,
            r.rigid_turnaround_h,
            r.malleable_turnaround_h,
            r.rigid_preempted_ratio,
            r.malleable_preempted_ratio,
            r.preemptions,
            r.shrinks,
            r.guest_starts,
            r.node_failures,
            r.wasted_node_hours,
            r.utilization,
            r.window_utilization,
            r.window_held_utilization
        )
        .unwrap();
    }
    out
}

#[test]
fn theta_like_300_jobs() {
    insta::assert_snapshot!(table(None));
}

#[test]
fn theta_like_300_jobs_with_failures() {
    insta::assert_snapshot!(table(Some(Failures {
        mtbf: Duration::from_hours(5),
        mean_repair: DEFAULT_REPAIR,
    })));
}
