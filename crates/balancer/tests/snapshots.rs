//! Reports of one small hand-made scenario under each configuration, pinned as snapshots: any
//! change in the Balancer's decisions, the simulator's event order or the metrics shows up as
//! a reviewable diff.

use cosched_balancer::predictor::Combine;
use cosched_balancer::scenario::Arm;
use cosched_balancer::workload::LeaseRequest;
use cosched_balancer::workload::Workload;
use cosched_balancer::{BalancerConfig, Strategy};
use cosched_core::{Duration, JobId, LeaseId, RigidJob, Time};

/// 8 nodes; one preloaded job, six batch jobs, five lease requests (two with notice).
fn scenario() -> (Vec<RigidJob>, Vec<RigidJob>, Vec<LeaseRequest>) {
    let job = |id, submit, size, run, estimate| {
        RigidJob::new(
            JobId(id),
            Time(submit),
            size,
            Duration(run),
            Duration(estimate),
        )
        .unwrap()
    };
    let jobs = vec![
        job(0, 0, 4, 600, 900),
        job(1, 60, 2, 300, 300),
        job(2, 120, 6, 1_200, 1_800),
        job(3, 400, 1, 100, 200),
        job(4, 900, 3, 700, 700),
        job(5, 1_500, 8, 300, 600),
    ];
    let preload = vec![job(100, 0, 2, 500, 800)];
    let lease = |id, submit, nodes, duration, notice: Option<i64>| LeaseRequest {
        id: LeaseId(id),
        submit: Time(submit),
        nodes,
        duration: Duration(duration),
        notice: notice.map(Duration),
    };
    let requests = vec![
        lease(0, 100, 2, 400, None),
        lease(1, 300, 3, 600, Some(200)),
        lease(2, 700, 4, 300, None),
        lease(3, 1_000, 2, 900, Some(300)),
        lease(4, 1_600, 1, 200, None),
    ];
    (jobs, preload, requests)
}

fn report(configuration: Arm) -> String {
    let (jobs, preload, requests) = scenario();
    let out = configuration
        .run(
            8,
            &Workload::new(&jobs, &requests).with_preload(&preload),
            &[],
        )
        .unwrap();
    let grants: Vec<(u64, Option<i64>)> = out
        .requests
        .iter()
        .map(|r| (r.request.id.0, r.granted.map(|t| t.0)))
        .collect();
    let mut starts: Vec<(u64, i64)> = out
        .records
        .iter()
        .map(|r| (r.id.0, r.start.map_or(-1, |t| t.0)))
        .collect();
    starts.sort();
    format!(
        "{}\ngrants: {grants:?}\nstarts: {starts:?}",
        out.report.to_json()
    )
}

#[test]
fn small_scenario_reports() {
    let config = |strategy| {
        BalancerConfig::new(strategy)
            .with_window(Duration(120))
            .with_idle_hold(Duration(60))
    };
    let configurations = [
        (
            "basic_r1_w120",
            Arm::balancer(config(Strategy::Basic { static_reserve: 1 })),
        ),
        ("hint_w120", Arm::balancer(config(Strategy::Hinted))),
        (
            "predictive_mean",
            Arm::predictive(config(Strategy::Hinted), Combine::Mean.into()),
        ),
        ("dedicated_3_w120", Arm::dedicated(3, Duration(120))),
        ("all_batch", Arm::all_batch()),
    ];
    for (name, configuration) in configurations {
        insta::assert_snapshot!(name, report(configuration));
    }
}
