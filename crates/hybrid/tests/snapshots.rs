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

/// Every job's schedule and account under the baseline and the six mechanisms on 30,000 jobs (34 hours) of
/// the Cori-like workload (W5 notices, a standing queue of wide jobs), folded into sums that
/// move with any start, end, size or booking: a change of the simulator's speed leaves them
/// as they are, a change of its behaviour shows as a reviewed diff.
#[test]
fn cori_like_30000_jobs_schedule() {
    let jobs = hybrid_workload(&TraceParams::cori(30_000), &TypeParams::default(), 7).unwrap();
    let mut out = String::new();
    for mechanism in std::iter::once(None).chain(Composite::ALL.map(Some)) {
        let config = HybridConfig::new(12_076).unwrap();
        let outcome = scenario::simulate(config, mechanism, &jobs).unwrap();
        let (mut starts, mut ends, mut weighted) = (0i128, 0i128, 0i128);
        for (k, r) in outcome.records.iter().enumerate() {
            let k = k as i128 + 1;
            starts += r.start.map_or(-1, |t| i128::from(t.0));
            ends += r.end.map_or(-1, |t| i128::from(t.0));
            weighted += k * r
                .end
                .map_or(-1, |t| i128::from(t.0) - i128::from(r.submit.0));
        }
        let mut booked = [0i128; 9];
        for a in &outcome.accounts {
            for (sum, v) in booked.iter_mut().zip([
                a.delivered,
                a.wasted,
                a.overhead,
                a.rounding_slack,
                i64::from(a.preemptions),
                i64::from(a.evictions),
                i64::from(a.shrinks),
                i64::from(a.expansions),
                i64::from(a.failures),
            ]) {
                *sum += i128::from(v);
            }
        }
        writeln!(
            out,
            "{:<9} starts {starts} ends {ends} weighted {weighted} delivered {} wasted {} \
             overhead {} slack {} preemptions {} evictions {} shrinks {} expansions {} \
             failures {}",
            outcome.report.mechanism,
            booked[0],
            booked[1],
            booked[2],
            booked[3],
            booked[4],
            booked[5],
            booked[6],
            booked[7],
            booked[8]
        )
        .unwrap();
    }
    insta::assert_snapshot!(out);
}
