//! The driver on a realistic pool's `condor_status -long` / `condor_q -long` output
//! (`crates/albatross/tests/fixtures/pool/`: 7 slots with an idle annex node, 7 jobs of which
//! 4 idle; its "now" is 1700003600), and on policies of the protocol other than Albatross.
//!
//! The checks are about the driver (reading, state across calls, dispatch detection, booting
//! nodes, the commands' translation), not about the policy's capital table, which its own
//! crate tests.

use std::convert::Infallible;
use std::path::{Path, PathBuf};

use cosched_albatross::policy::{
    Albatross, AlbatrossConfig, Capital, Command, NoScaling, Observation, WaitingJobs,
};
use cosched_classad::ClassAd;
use cosched_core::policy::Policy;
use cosched_core::{Duration, NodeId, Time};
use cosched_htcondor::{
    Action, Decision, DriverConfig, HtcondorError, PoolState, Saved, Snapshot, decide,
};

const NOW: Time = Time(1_700_003_600);

fn fixture(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../albatross/tests/fixtures/pool/{file}"))
}

fn pool() -> Snapshot {
    Snapshot::read(
        &fixture("condor_status_long.txt"),
        &fixture("condor_q_long.txt"),
    )
    .unwrap()
}

/// The pool without its annex (cloud) node.
fn pool_without_annex() -> Snapshot {
    let p = pool();
    let slots: Vec<ClassAd> = p
        .slots()
        .iter()
        .filter(|s| !s.contains("AnnexName"))
        .cloned()
        .collect();
    assert_eq!(slots.len() + 1, p.slots().len());
    Snapshot::new(slots, p.jobs().to_vec())
}

/// The paper's table at `capital` with the tests' 300 s stall threshold (the library's
/// default, from the paper's Fig. 1, is 4,500 s).
fn albatross_config(capital: f64) -> AlbatrossConfig {
    AlbatrossConfig {
        stall_threshold: Duration(300),
        ..AlbatrossConfig::paper(Capital::new(capital).unwrap())
    }
}

fn driver_config() -> DriverConfig {
    let types = albatross_config(0.5).instance_types;
    DriverConfig::new(types, Duration::from_mins(15)).unwrap()
}

fn starts(d: &Decision) -> Vec<&Action> {
    d.actions
        .iter()
        .filter(|a| matches!(a, Action::Start { .. }))
        .collect()
}

#[test]
fn a_stall_across_calls_starts_nodes_once() {
    let config = driver_config();
    let mut policy = Albatross::new(albatross_config(0.5), NOW).unwrap();
    let first = decide(&mut policy, &PoolState::default(), &pool(), &config, NOW).unwrap();
    assert_eq!(
        (first.slots, first.jobs, first.waiting, first.dispatched),
        (7, 7, 4, 0)
    );
    assert_eq!((first.cloud_up, first.booting), (1, 0));
    assert!(starts(&first).is_empty());
    assert_eq!(first.state.last_call(), Some(NOW));
    assert_eq!(
        first.state.machines().collect::<Vec<_>>(),
        ["ip-10-0-3-17.ec2.internal"]
    );
    // 300 s later nothing was dispatched while jobs wait: a stall, but the annex node up is
    // the capital's one cloud node, so nothing more starts.
    let second = decide(
        &mut policy,
        &first.state,
        &pool(),
        &config,
        NOW + Duration(300),
    )
    .unwrap();
    assert!(starts(&second).is_empty(), "{:?}", second.actions);
    // The annex node has gone: the stall starts one node, which boots.
    let third = decide(
        &mut policy,
        &second.state,
        &pool_without_annex(),
        &config,
        NOW + Duration(400),
    )
    .unwrap();
    assert_eq!(third.cloud_up, 0);
    assert!(matches!(
        &starts(&third)[..],
        [Action::Start { count: 1, .. }]
    ));
    assert_eq!(third.state.booting(), 1);
    assert_eq!(third.state.machines().count(), 0);
    // No second start while it boots.
    let fourth = decide(
        &mut policy,
        &third.state,
        &pool_without_annex(),
        &config,
        NOW + Duration(700),
    )
    .unwrap();
    assert_eq!(fourth.booting, 1);
    assert!(starts(&fourth).is_empty(), "{:?}", fourth.actions);
    // Stops name the annex machine, never a desktop.
    for d in [&first, &second, &third, &fourth] {
        for a in &d.actions {
            if let Action::Stop { machine } = a {
                assert_eq!(machine, "ip-10-0-3-17.ec2.internal");
            }
        }
    }
}

#[test]
fn capital_zero_never_buys_anything() {
    let config = driver_config();
    let mut policy = Albatross::new(albatross_config(0.0), NOW).unwrap();
    let first = decide(&mut policy, &PoolState::default(), &pool(), &config, NOW).unwrap();
    let later = decide(
        &mut policy,
        &first.state,
        &pool_without_annex(),
        &config,
        NOW + Duration(10_000),
    )
    .unwrap();
    assert_eq!(policy.stalled_for(NOW + Duration(10_000)), Duration(10_000));
    assert!(later.actions.is_empty(), "{:?}", later.actions);
}

#[test]
fn dispatches_since_the_previous_call_are_counted() {
    // The previous call ran before job 101.1 started (at NOW - 120) and saw job 99.0 idle,
    // which has since left the queue, and 102.0, which still waits.
    let state: PoolState = serde_json::from_str(&format!(
        r#"{{ "last_call": {}, "idle_jobs": ["99.0", "102.0"] }}"#,
        NOW.secs() - 300
    ))
    .unwrap();
    let mut policy = Albatross::new(albatross_config(0.5), NOW - Duration(5000)).unwrap();
    let d = decide(&mut policy, &state, &pool(), &driver_config(), NOW).unwrap();
    assert_eq!(d.dispatched, 2);
    // A dispatch restarts the stall timer: no start, however long the timer had run.
    assert_eq!(policy.stalled_for(NOW), Duration::ZERO);
    assert!(starts(&d).is_empty());
}

#[test]
fn json_output_decides_as_long_output_does() {
    let json = Snapshot::read(&fixture("condor_status.json"), &fixture("condor_q.json")).unwrap();
    let config = driver_config();
    let (mut a, mut b) = (
        Albatross::new(albatross_config(0.75), NOW).unwrap(),
        Albatross::new(albatross_config(0.75), NOW).unwrap(),
    );
    let (mut sa, mut sb) = (PoolState::default(), PoolState::default());
    for now in [NOW, NOW + Duration(100)] {
        let long = decide(&mut a, &sa, &pool(), &config, now).unwrap();
        let from_json = decide(&mut b, &sb, &json, &config, now).unwrap();
        assert_eq!(long, from_json);
        (sa, sb) = (long.state, from_json.state);
    }
}

/// Node ids never wrap; when the state has given them all, a new machine is a clear error
/// rather than a second machine with the same id.
#[test]
fn node_ids_never_wrap() {
    let state: PoolState = serde_json::from_str(r#"{ "next_node": 4294967295 }"#).unwrap();
    let e = decide(&mut NoScaling, &state, &pool(), &driver_config(), NOW).unwrap_err();
    assert!(matches!(e, HtcondorError::IdsExhausted { .. }), "{e}");
}

#[test]
fn requested_nodes_are_forgotten_after_the_boot_timeout() {
    let config = driver_config();
    let mut policy = Albatross::new(albatross_config(0.5), NOW).unwrap();
    let first = decide(
        &mut policy,
        &PoolState::default(),
        &pool_without_annex(),
        &config,
        NOW,
    )
    .unwrap();
    let stall = NOW + Duration(300);
    let started = decide(
        &mut policy,
        &first.state,
        &pool_without_annex(),
        &config,
        stall,
    )
    .unwrap();
    assert_eq!(started.state.booting(), 1);
    let timeout = config.boot_timeout();
    let still = decide(
        &mut NoScaling,
        &started.state,
        &pool_without_annex(),
        &config,
        stall + timeout - Duration(1),
    )
    .unwrap();
    assert_eq!(still.booting, 1);
    let gone = decide(
        &mut NoScaling,
        &started.state,
        &pool_without_annex(),
        &config,
        stall + timeout,
    )
    .unwrap();
    assert_eq!(gone.booting, 0);
}

#[test]
fn a_call_before_the_previous_one_is_refused() {
    let first = decide(
        &mut NoScaling,
        &PoolState::default(),
        &pool(),
        &driver_config(),
        NOW,
    )
    .unwrap();
    let e = decide(
        &mut NoScaling,
        &first.state,
        &pool(),
        &driver_config(),
        NOW - Duration(1),
    )
    .unwrap_err();
    assert!(matches!(e, HtcondorError::BeforePreviousCall { .. }), "{e}");
    let e = decide(
        &mut NoScaling,
        &PoolState::default(),
        &pool(),
        &driver_config(),
        Time(i64::MAX),
    )
    .unwrap_err();
    assert!(
        matches!(e, HtcondorError::OutOfRange { what: "now", .. }),
        "{e}"
    );
    assert!(DriverConfig::new(Vec::new(), Duration::ZERO).is_err());
}

/// A policy of one's own: stops every cloud node it sees, asks for the instance type it is
/// told to, and counts its starts (which the driver makes at the first call only).
#[derive(Default)]
struct Sweeper {
    instance: usize,
    starts: u32,
}

impl Policy for Sweeper {
    type Observation = Observation;
    type Command = Command;
    type View = WaitingJobs;
    type Error = Infallible;

    fn start(&mut self, _: Time, _: &WaitingJobs, _: &mut Vec<Command>) -> Result<(), Infallible> {
        self.starts += 1;
        Ok(())
    }

    fn observe(
        &mut self,
        _: Time,
        obs: &Observation,
        waiting: &WaitingJobs,
        out: &mut Vec<Command>,
    ) -> Result<(), Infallible> {
        out.extend(
            obs.cloud_nodes
                .iter()
                .map(|n| Command::Stop { node: n.node }),
        );
        out.push(Command::Start {
            instance: self.instance,
            count: u32::try_from(waiting.len()).unwrap(),
            lifetime: Duration::from_mins(5),
        });
        Ok(())
    }
}

#[test]
fn any_policy_of_the_protocol_runs_and_its_commands_become_actions() {
    let config = driver_config();
    let mut policy = Sweeper::default();
    let first = decide(&mut policy, &PoolState::default(), &pool(), &config, NOW).unwrap();
    let name = config.instance_types()[0].name.clone();
    assert_eq!(
        first.actions,
        [
            Action::Stop {
                machine: "ip-10-0-3-17.ec2.internal".into()
            },
            Action::Start {
                instance_type: name.clone(),
                count: 4,
                lifetime: Duration::from_mins(5)
            }
        ]
    );
    assert_eq!(
        first.actions[0].to_string(),
        "stop ip-10-0-3-17.ec2.internal"
    );
    assert_eq!(
        first.actions[1].to_string(),
        format!("start {name} count=4 lifetime=300s")
    );
    // The four requested nodes boot: a stop of one of them has nothing to stop yet.
    let second = decide(
        &mut policy,
        &first.state,
        &pool_without_annex(),
        &config,
        NOW + Duration(60),
    )
    .unwrap();
    assert_eq!(second.booting, 4);
    let skipped: Vec<_> = second
        .actions
        .iter()
        .filter(|a| matches!(a, Action::SkippedStop { .. }))
        .collect();
    assert_eq!(skipped.len(), 4);
    assert!(skipped[0].to_string().starts_with("# "));
    assert!(matches!(skipped[0], Action::SkippedStop { node } if *node == NodeId(u32::MAX)));
    assert_eq!(policy.starts, 1, "started once, at the first call");
}

#[test]
fn a_start_of_an_instance_type_not_offered_is_a_typed_error() {
    let mut policy = Sweeper {
        instance: 99,
        starts: 0,
    };
    let e = decide(
        &mut policy,
        &PoolState::default(),
        &pool(),
        &driver_config(),
        NOW,
    )
    .unwrap_err();
    assert!(matches!(e, HtcondorError::PolicyInstance(99)), "{e}");
}

/// A policy that fails: its error reaches the caller boxed in a `CallError` naming the call.
struct Refuses;

#[derive(Debug, thiserror::Error)]
#[error("refused")]
struct Refused;

impl Policy for Refuses {
    type Observation = Observation;
    type Command = Command;
    type View = WaitingJobs;
    type Error = Refused;

    fn observe(
        &mut self,
        _: Time,
        _: &Observation,
        _: &WaitingJobs,
        _: &mut Vec<Command>,
    ) -> Result<(), Refused> {
        Err(Refused)
    }
}

#[test]
fn a_policy_error_is_reported_with_its_call() {
    let e = decide(
        &mut Refuses,
        &PoolState::default(),
        &pool(),
        &driver_config(),
        NOW,
    )
    .unwrap_err();
    let HtcondorError::Policy(source) = &e else {
        panic!("{e}");
    };
    assert!(e.to_string().contains("refused"), "{e}");
    let call = source
        .downcast_ref::<cosched_core::driver::CallError<Refused>>()
        .expect("a CallError");
    assert!(call.policy_error().is_some());
}

#[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct Kept {
    timer: Option<Time>,
}

#[test]
fn saved_state_round_trips_and_a_missing_file_is_a_first_call() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    let fresh: Saved<Kept> = Saved::read(&path).unwrap();
    assert_eq!(fresh, Saved::default());
    let d = decide(&mut NoScaling, &fresh.pool, &pool(), &driver_config(), NOW).unwrap();
    let saved = Saved {
        pool: d.state,
        policy: Kept { timer: Some(NOW) },
    };
    saved.write(&path).unwrap();
    assert_eq!(Saved::<Kept>::read(&path).unwrap(), saved);
    // One JSON object: the caller's fields beside the driver's.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(json["timer"], NOW.secs());
    assert_eq!(json["last_call"], NOW.secs());
    // Nothing kept of the policy.
    let unit = Saved {
        pool: saved.pool.clone(),
        policy: (),
    };
    unit.write(&path).unwrap();
    assert_eq!(Saved::<()>::read(&path).unwrap(), unit);
    // Not a state file, or times out of range: the file is named.
    std::fs::write(&path, "not json").unwrap();
    let e = Saved::<Kept>::read(&path).unwrap_err();
    assert!(e.to_string().contains("not an albatross state file"), "{e}");
    std::fs::write(&path, r#"{ "last_call": 9223372036854775807 }"#).unwrap();
    let e = Saved::<Kept>::read(&path).unwrap_err();
    assert!(
        e.to_string().contains("out of range") && e.to_string().contains("state.json"),
        "{e}"
    );
}

#[test]
fn unreadable_ads_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("status.txt");
    std::fs::write(&broken, "Name = \"slot1@a\"\nMemory = 1 +\n").unwrap();
    let e = Snapshot::read(&broken, &fixture("condor_q_long.txt")).unwrap_err();
    assert!(matches!(e, HtcondorError::Ads { .. }));
    assert!(
        e.to_string().contains("status.txt") && e.to_string().contains("line 2"),
        "{e}"
    );
    let e = Snapshot::read(&dir.path().join("missing"), &broken).unwrap_err();
    assert!(matches!(e, HtcondorError::Io { .. }), "{e}");
}
