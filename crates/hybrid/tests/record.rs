//! A simulator run recorded with core's `Recorder` (with the view's transcript, since the
//! policy's commands depend on the view) replays identically into a fresh policy, and a serde
//! round trip of the policy mid-recording changes nothing; recording does not change the run.

use cosched_core::Duration;
use cosched_core::policy::{Recorder, Step, read_steps, replay, replay_step};
use cosched_hybrid::policy::{Command, Observation};
use cosched_hybrid::record::{ReplayedView, snapshot};
use cosched_hybrid::workload::{TraceParams, TypeParams, hybrid_workload};
use cosched_hybrid::{
    Composite, Failures, HybridConfig, HybridJob, HybridPolicy, HybridSim, scenario,
};

fn workload() -> Vec<HybridJob> {
    hybrid_workload(&TraceParams::theta(400), &TypeParams::default(), 3).unwrap()
}

fn config() -> HybridConfig {
    HybridConfig {
        failures: Some(Failures {
            mtbf: Duration::from_hours(5),
            mean_repair: Duration::from_hours(6),
        }),
        seed: 3,
        ..HybridConfig::new(4_392).unwrap()
    }
}

/// A recording of `configuration`'s run, and whether the recorded run equals the plain one.
fn record(configuration: Option<Composite>) -> (Vec<u8>, bool) {
    let jobs = workload();
    let policy = scenario::policy(configuration);
    let mut recorder = Recorder::with_view_snapshot(policy.clone(), Vec::new(), snapshot);
    let sim = HybridSim::new(config())
        .unwrap()
        .transcribe_views(true)
        .with_notices(policy.listens_to_notices());
    let recorded = sim.run(&mut recorder, &jobs).unwrap();
    let plain = scenario::simulate(config(), configuration, &jobs).unwrap();
    let same = recorded.records == plain.records && recorded.accounts == plain.accounts;
    (recorder.into_parts().1, same)
}

#[test]
fn a_recorded_run_replays_identically_under_every_configuration() {
    for configuration in scenario::configurations() {
        let (lines, same) = record(configuration);
        assert!(same, "{configuration:?}: recording changed the run");
        let mut fresh = scenario::policy(configuration);
        let outcome = replay(&mut fresh, lines.as_slice(), ReplayedView::from_snapshot).unwrap();
        assert!(outcome.steps > 400, "{configuration:?}: {outcome:?}");
        if configuration.is_some() {
            assert!(outcome.commands > 0);
        }
    }
}

#[test]
fn a_serde_round_trip_mid_recording_changes_nothing() {
    let cup_spaa = Some(Composite::ALL[5]);
    let (lines, _) = record(cup_spaa);
    let steps: Vec<Step<Observation, Command>> = read_steps(lines.as_slice())
        .collect::<Result<_, _>>()
        .unwrap();
    let mut out = Vec::new();
    for cut in [1, steps.len() / 3, steps.len() / 2, steps.len() - 1] {
        let mut policy = scenario::policy(cup_spaa);
        for step in &steps[..cut] {
            replay_step(&mut policy, step, ReplayedView::from_snapshot, &mut out).unwrap();
        }
        let json = serde_json::to_string(&policy).unwrap();
        let mut restored: HybridPolicy = serde_json::from_str(&json).unwrap();
        assert_eq!(restored, policy);
        for step in &steps[cut..] {
            replay_step(&mut restored, step, ReplayedView::from_snapshot, &mut out).unwrap();
        }
    }
}

#[test]
fn a_policy_that_reads_the_view_otherwise_diverges() {
    // The baseline's recording replayed into CUA&PAA: the arrivals' commands differ.
    let (lines, _) = record(None);
    let mut other = scenario::policy(Some(Composite::ALL[2]));
    assert!(replay(&mut other, lines.as_slice(), ReplayedView::from_snapshot).is_err());
}
