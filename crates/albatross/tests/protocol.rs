//! The Albatross protocol on core's policy recorder: a simulator run recorded with
//! `cosched_core::policy::Recorder` (with the queued jobs' ads as the view snapshot) replays
//! identically into a fresh policy, and a serde round trip of the policy half-way through the
//! recording changes no command; a policy written here (not in the crate) runs in the
//! simulator; a command the pool cannot carry out is a typed error.

use cosched_albatross::classad::ClassAd;
use cosched_albatross::policy::{
    Albatross, AlbatrossConfig, Capital, Command, Observation, Sizing, WaitingJobs,
};
use cosched_albatross::scenario;
use cosched_albatross::sim::{SimConfig, SimError};
use cosched_albatross::workload::WorkloadModel;
use cosched_core::policy::{Call, Policy, Recorder, Step, read_steps, replay, replay_step};
use cosched_core::{Duration, SeedStreams, Time};
use std::sync::Arc;

#[path = "support/run.rs"]
mod run;
use run::simulate;

/// The queued jobs' ads as ClassAd text.
fn snapshot(_: Call<&Observation>, waiting: &WaitingJobs) -> Option<serde_json::Value> {
    Some(waiting.iter().map(|ad| ad.to_string()).collect())
}

/// The view rebuilt from a snapshot.
fn rebuild(snapshot: Option<&serde_json::Value>) -> Result<Vec<Arc<ClassAd>>, String> {
    let Some(serde_json::Value::Array(ads)) = snapshot else {
        return Err("no snapshot".into());
    };
    ads.iter()
        .map(|v| {
            let text = v.as_str().ok_or("an ad is not a string")?;
            text.parse::<ClassAd>()
                .map(Arc::new)
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// The fit-to-jobs extension reads the view, so the recording must carry it.
fn policy() -> Albatross {
    let mut config = AlbatrossConfig::paper(Capital::new(0.75).unwrap());
    config.sizing = Sizing::FitWaitingJobs;
    Albatross::new(config, Time::ZERO).unwrap()
}

fn recording() -> (Vec<u8>, usize) {
    let jobs = WorkloadModel::paper()
        .generate(Duration(30_000), SeedStreams::new(2), 1000)
        .unwrap();
    let mut config = SimConfig::paper();
    config.horizon = Time(30_000);
    config.seed = 2;
    let mut rec = Recorder::with_view_snapshot(policy(), Vec::new(), snapshot);
    let out = simulate(&config, &jobs, &mut rec).unwrap();
    // The recorded run is the run: the same outcome as without the recorder.
    let plain = simulate(&config, &jobs, policy()).unwrap();
    assert_eq!(out.cloud_nodes, plain.cloud_nodes);
    assert_eq!(out.placements, plain.placements);
    let (_, lines) = rec.into_parts();
    (lines, out.cloud_nodes.len())
}

#[test]
fn a_simulator_recording_replays_identically() {
    let (lines, nodes) = recording();
    assert!(nodes > 0, "the run starts cloud nodes");
    let outcome = replay(&mut policy(), lines.as_slice(), rebuild).unwrap();
    assert!(outcome.steps > 400, "{} steps", outcome.steps);
    assert!(outcome.commands >= nodes as u64);
}

#[test]
fn a_serde_round_trip_mid_recording_changes_nothing() {
    let (lines, _) = recording();
    let steps: Vec<Step<Observation, Command>> = read_steps(lines.as_slice())
        .collect::<Result<_, _>>()
        .unwrap();
    let mut policy = policy();
    let mut out = Vec::new();
    let half = steps.len() / 2;
    for step in &steps[..half] {
        replay_step(&mut policy, step, rebuild, &mut out).unwrap();
    }
    let json = serde_json::to_string(&policy).unwrap();
    let mut restored: Albatross = serde_json::from_str(&json).unwrap();
    let mut commands = 0;
    for step in &steps[half..] {
        replay_step(&mut restored, step, rebuild, &mut out).unwrap();
        commands += out.len();
    }
    assert!(commands > 0, "the second half commands something");
}

/// Starts a t2.micro whenever more than `depth` jobs wait and no cloud node is alive.
struct QueueDepth {
    depth: usize,
}

impl Policy for QueueDepth {
    type Observation = Observation;
    type Command = Command;
    type View = WaitingJobs;
    type Error = std::convert::Infallible;

    fn observe(
        &mut self,
        _now: Time,
        obs: &Observation,
        waiting: &WaitingJobs,
        out: &mut Vec<Command>,
    ) -> Result<(), Self::Error> {
        if waiting.len() > self.depth && obs.cloud_nodes.is_empty() {
            out.push(Command::Start {
                instance: 0,
                count: 1,
                lifetime: Duration::from_mins(20),
            });
        }
        Ok(())
    }
}

#[test]
fn a_downstream_policy_runs_in_the_simulator() {
    let mut config = SimConfig::paper();
    config.horizon = Time(30_000);
    let model = WorkloadModel::paper();
    let ours = scenario::run(&config, &model, 1, &mut QueueDepth { depth: 2 }).unwrap();
    let base = scenario::run(&config, &model, 1, &mut scenario::no_albatross()).unwrap();
    assert!(ours.completed > base.completed);
    assert!(ours.cost_usd > 0.0 && base.cost_usd == 0.0);
    // The environment is the same whichever policy runs.
    assert_eq!(ours.outcome.owner_changes, base.outcome.owner_changes);
}

/// Commands a pool cannot carry out.
struct Wild(Command);

impl Policy for Wild {
    type Observation = Observation;
    type Command = Command;
    type View = WaitingJobs;
    type Error = std::convert::Infallible;

    fn observe(
        &mut self,
        _now: Time,
        _obs: &Observation,
        _waiting: &WaitingJobs,
        out: &mut Vec<Command>,
    ) -> Result<(), Self::Error> {
        out.push(self.0);
        Ok(())
    }
}

#[test]
fn commands_the_pool_cannot_carry_out_are_typed_errors() {
    let mut config = SimConfig::paper();
    config.horizon = Time(3_000);
    let jobs = WorkloadModel::paper()
        .generate(Duration(3_000), SeedStreams::new(1), 100)
        .unwrap();
    let start = |instance, count, lifetime| Command::Start {
        instance,
        count,
        lifetime: Duration(lifetime),
    };
    for (command, says) in [
        (start(99, 1, 60), "no instance type 99"),
        (start(0, u32::MAX, 60), "at most 10000"),
        (start(0, 1, 0), "lifetime"),
    ] {
        let e = simulate(&config, &jobs, Wild(command)).unwrap_err();
        assert!(matches!(e, SimError::Command { .. }), "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
}
