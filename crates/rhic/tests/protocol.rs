//! The policy protocol in the simulator: a run recorded with core's `Recorder` replays
//! identically into a fresh policy, and a serde round-trip of the policy half-way through the
//! recording changes none of the commands after it; the simulator runs a boxed policy and one
//! written here like its own.

use cosched_core::policy::{Policy, Recorder, Step, read_steps, replay, replay_step};
use cosched_core::{NodeId, ParamError, Time};
use cosched_rhic::RhicPolicy;
use cosched_rhic::env::JobProfile;
use cosched_rhic::policy::{Command, CommandedPool, Observation};
use cosched_rhic::scenario::{self, Approach};
use cosched_rhic::sim::{BackgroundJob, Outcome, RhicSim, SimConfig, SimError};
use cosched_rhic::{Assignment, CostModel, Goal, PowerModel};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::convert::Infallible;

/// A small run with churn (departures, so deferred replacements too) and boot failures: the
/// testbed and the job.
fn config(goal: Goal) -> (SimConfig, BackgroundJob) {
    let mut c = SimConfig::new(goal);
    let mut job = BackgroundJob::new(JobProfile::Wordcount);
    job.dedicated = 2;
    job.work = 32.0 * 900.0;
    c.env.interactive_nodes = 10;
    c.env.churn = 8.0;
    c.env.boot_failure = 0.1;
    c.seed = 3;
    (c, job)
}

/// Runs `c`'s job on its testbed under `policy`.
fn simulate<P: RhicPolicy + ?Sized>(
    c: &(SimConfig, BackgroundJob),
    policy: &mut P,
) -> Result<Outcome, SimError<P::Error>> {
    RhicSim::new(c.0.clone())?.run(policy, &c.1)
}

/// Records `policy` over a run of `c`; returns the recording and the run's joins.
fn record<P>(c: &(SimConfig, BackgroundJob), policy: P) -> (Vec<u8>, u64)
where
    P: Policy<Observation = Observation, Command = Command, View = (), Error = ParamError>,
{
    let mut rec = Recorder::new(policy, Vec::new());
    let o = simulate(c, &mut rec).expect("a valid run");
    let (_, lines) = rec.into_parts();
    (lines, o.joins)
}

/// Replays the first half into `fresh`, round-trips it through JSON, replays the rest.
fn replay_with_restart<P>(lines: &[u8], mut fresh: P) -> usize
where
    P: Policy<Observation = Observation, Command = Command, View = (), Error = ParamError>
        + Serialize
        + DeserializeOwned,
{
    let steps: Vec<Step<Observation, Command>> = read_steps(lines)
        .collect::<Result<_, _>>()
        .expect("a readable recording");
    let half = steps.len() / 2;
    let mut out = Vec::new();
    let view = |_: Option<&serde_json::Value>| Ok::<_, Infallible>(());
    for s in &steps[..half] {
        replay_step(&mut fresh, s, view, &mut out).expect("the first half replays");
    }
    let json = serde_json::to_string(&fresh).expect("the policy serialises");
    let mut restored: P = serde_json::from_str(&json).expect("and deserialises");
    for s in &steps[half..] {
        replay_step(&mut restored, s, view, &mut out).expect("the rest replays after a restart");
    }
    steps.len()
}

#[test]
fn rhic_recording_replays_and_survives_a_restart() {
    for goal in [
        Goal::Cost(CostModel::default()),
        Goal::Energy(PowerModel::arc()),
        Goal::Deadline(Time(900)),
    ] {
        let c = config(goal);
        let (lines, joins) = record(&c, scenario::rhic(&c.0, &c.1).expect("valid"));
        assert!(joins > 0, "{goal:?}: the run exercises joins");
        let outcome = replay(
            &mut scenario::rhic(&c.0, &c.1).expect("valid"),
            lines.as_slice(),
            |_| Ok::<_, Infallible>(()),
        )
        .expect("the recording replays identically");
        assert!(outcome.commands >= joins, "{goal:?}: {outcome:?}");
        let steps = replay_with_restart(&lines, scenario::rhic(&c.0, &c.1).expect("valid"));
        assert_eq!(steps as u64, outcome.steps);
    }
}

#[test]
fn baseline_recordings_replay_and_survive_a_restart() {
    let c = config(Goal::Cost(CostModel::default()));
    let fresh = || {
        [
            scenario::fixed(4, &c.0),
            scenario::fuzzy(2, 0.5, &c.0),
            scenario::threshold(0.5, &c.0),
        ]
        .map(|b| b.expect("valid"))
    };
    for (policy, again) in fresh().into_iter().zip(fresh()) {
        let (lines, _) = record(&c, policy);
        let outcome = replay(&mut again.clone(), lines.as_slice(), |_| {
            Ok::<_, Infallible>(())
        })
        .expect("the recording replays identically");
        assert!(outcome.commands > 0, "{outcome:?}");
        replay_with_restart(&lines, again);
    }
}

/// The recorder changes nothing: a recorded run is the run.
#[test]
fn recording_does_not_change_the_run() {
    let c = config(Goal::Cost(CostModel::default()));
    let plain = Approach::RHIC.policy(&c.0, &c.1).expect("valid");
    let mut plain = plain;
    let a = simulate(&c, &mut plain).expect("valid");
    let mut rec = Recorder::new(scenario::rhic(&c.0, &c.1).expect("valid"), std::io::sink());
    let b = simulate(&c, &mut rec).expect("valid");
    assert_eq!(a, b);
}

/// A policy written outside the crate: volunteers on the three least-loaded nodes of the last
/// readings, one slot per core; it runs like the built-in ones, and its error reaches the
/// caller typed.
#[derive(Default)]
struct ThreeCoolest {
    /// Each node's last load and cores.
    load: std::collections::BTreeMap<NodeId, (f64, f64)>,
    pool: CommandedPool,
    fail_at: Option<Time>,
}

#[derive(Debug, thiserror::Error)]
#[error("asked to fail")]
struct Failed;

impl Policy for ThreeCoolest {
    type Observation = Observation;
    type Command = Command;
    type View = ();
    type Error = Failed;

    fn observe(
        &mut self,
        now: Time,
        o: &Observation,
        _: &(),
        out: &mut Vec<Command>,
    ) -> Result<(), Failed> {
        if self.fail_at.is_some_and(|t| now >= t) {
            return Err(Failed);
        }
        match *o {
            Observation::Node {
                node,
                cores,
                foreground_cpu,
                ..
            } => {
                self.load.insert(node, (foreground_cpu, cores));
            }
            Observation::Left(node) | Observation::BootFailed(node) => {
                self.load.remove(&node);
                self.pool.forget(node);
            }
            Observation::Progress { .. } => {
                let mut nodes: Vec<(f64, NodeId, f64)> =
                    self.load.iter().map(|(&n, &(l, c))| (l, n, c)).collect();
                nodes.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let target: Vec<Assignment> = nodes
                    .iter()
                    .take(3)
                    .map(|&(_, node, cores)| Assignment {
                        node,
                        slots: cores as u32,
                    })
                    .collect();
                self.pool.move_to(&target, out);
            }
            _ => {}
        }
        Ok(())
    }
}

#[test]
fn a_policy_of_another_crate_runs_and_its_errors_are_typed() {
    let c = config(Goal::Cost(CostModel::default()));
    let o = simulate(&c, &mut ThreeCoolest::default()).expect("valid");
    assert!(o.finished && o.joins >= 3);
    assert!(o.trace.iter().all(|s| s.in_pool <= 3 + 3)); // three, plus three draining at most
    let mut failing = ThreeCoolest {
        fail_at: Some(Time(120)),
        ..ThreeCoolest::default()
    };
    let e = simulate(&c, &mut failing).expect_err("the policy fails");
    assert!(e.to_string().contains("asked to fail"), "{e}");
    assert!(std::error::Error::source(&e).is_some());
}

/// A policy that cannot fail (`Infallible`) runs as the built-in ones do: it keeps the pool
/// empty, and the job runs on its dedicated nodes alone.
#[test]
fn an_infallible_policy_runs() {
    struct Alone;
    impl Policy for Alone {
        type Observation = Observation;
        type Command = Command;
        type View = ();
        type Error = Infallible;
        fn observe(
            &mut self,
            _: Time,
            _: &Observation,
            _: &(),
            _: &mut Vec<Command>,
        ) -> Result<(), Infallible> {
            Ok(())
        }
    }
    let c = config(Goal::Cost(CostModel::default()));
    let alone = simulate(&c, &mut Alone).expect("valid");
    let fixed = simulate(&c, &mut scenario::fixed(0, &c.0).expect("valid")).expect("valid");
    assert!(alone.finished && alone.joins == 0);
    assert_eq!(alone.completion, fixed.completion);
}
