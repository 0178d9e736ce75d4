//! A simulated run recorded with core's `Recorder` replays identically into a fresh policy,
//! and a serde round-trip of the policy half-way through the recording changes nothing: the
//! simulator drives the policies through the one protocol and nothing else.

use cosched_balancer::policy::{Balancer, BalancerConfig, Observation, RmNode, Strategy};
use cosched_balancer::predictor::{Combine, Predictive, Predictor};
use cosched_balancer::scenario::{Scenario, scaled, with_notice};
use cosched_balancer::sim::Simulation;
use cosched_balancer::synthetic::BatchKind;
use cosched_balancer::workload::Workload;
use cosched_core::policy::{Call, Recorder, Step, read_steps, replay, replay_step};
use cosched_core::{Duration, SeedStreams};

/// The view at start, the one call of the protocol that reads it.
fn snapshot(call: Call<&Observation>, view: &[RmNode]) -> Option<serde_json::Value> {
    matches!(call, Call::Start).then(|| serde_json::to_value(view).unwrap_or_default())
}

/// The recorded view at start, and no node list at the other calls.
fn view(snap: Option<&serde_json::Value>) -> Result<Vec<RmNode>, serde_json::Error> {
    snap.map_or(Ok(Vec::new()), |v| serde_json::from_value(v.clone()))
}

#[test]
fn a_simulated_run_replays_identically_and_survives_a_serde_restart() {
    let scenario = Scenario::synthetic(32);
    let streams = SeedStreams::new(11).family("replicate", 0);
    let kinds = [BatchKind::Main { utilization: 0.7 }];
    let replicate = scenario.replicate(&kinds, 1, &streams).unwrap();
    let batch = &replicate.batch[0];
    let leases = with_notice(
        &scaled(&replicate.base, 4).unwrap(),
        Duration::from_mins(30),
    );
    let first = leases.iter().map(|r| r.submit).min().unwrap();
    let history: Vec<_> = scaled(&replicate.history, 4)
        .unwrap()
        .into_iter()
        .filter(|l| l.submit < first)
        .collect();
    let hinted = BalancerConfig::new(Strategy::Hinted).with_window(Duration::from_mins(5));
    let predictive = || Predictive::new(hinted, Predictor::train(Combine::Max, &history)).unwrap();
    let basic = || {
        Balancer::new(
            BalancerConfig::new(Strategy::Basic { static_reserve: 2 })
                .with_window(Duration::from_mins(5)),
        )
    };
    let hint = || Balancer::new(hinted);
    let sim = Simulation::new(scenario.nodes).unwrap();
    let workload = Workload::new(&batch.jobs, &leases).with_preload(&batch.preload);

    macro_rules! case {
        ($fresh:expr, $sim:expr) => {{
            let sim = $sim;
            let plain = sim.run(&mut $fresh(), &workload).unwrap();
            let mut recorder = Recorder::with_view_snapshot($fresh(), Vec::new(), snapshot);
            let recorded = sim.run(&mut recorder, &workload).unwrap();
            // Recording changes nothing of the run.
            assert_eq!(plain.report.to_json(), recorded.report.to_json());
            assert!(recorded.report.on_demand.requests > 0);
            let (_, lines) = recorder.into_parts();
            // One snapshot of the 32 nodes (at start), not one per step.
            let snapshots =
                read_steps::<Observation, cosched_balancer::policy::Command, _>(lines.as_slice())
                    .filter(|s| s.as_ref().is_ok_and(|s| s.view.is_some()))
                    .count();
            assert_eq!(snapshots, 1);
            let outcome = replay(&mut $fresh(), lines.as_slice(), view).unwrap();
            assert!(outcome.steps > 100, "{outcome:?}");
            // A serde round-trip of the policy half-way changes none of the later commands.
            let steps: Vec<Step<_, _>> = read_steps(lines.as_slice())
                .collect::<Result<_, _>>()
                .unwrap();
            let half = steps.len() / 2;
            let mut policy = $fresh();
            let mut out = Vec::new();
            for step in &steps[..half] {
                replay_step(&mut policy, step, view, &mut out).unwrap();
            }
            let json = serde_json::to_string(&policy).unwrap();
            policy = serde_json::from_str(&json).unwrap();
            for step in &steps[half..] {
                replay_step(&mut policy, step, view, &mut out).unwrap();
            }
        }};
    }
    case!(predictive, sim.clone());
    case!(basic, sim.clone().with_batch_nodes(scenario.nodes - 2));
    case!(hint, sim.clone().with_hints(true));
}
