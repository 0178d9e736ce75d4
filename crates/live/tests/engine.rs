//! The live executor on the resource manager in memory ([`MemoryCluster`]): each step of the Balancer's protocol as a
//! real cluster exhibits it (jobs that end when they end, a drain that races a job start, a
//! restart), without daemons.

use cosched_balancer::baseline::StaticSplit;
use cosched_balancer::policy::{
    Balancer, BalancerConfig, BalancerNodeState, RmNode, RmNodeState, Strategy,
};
use cosched_balancer::predictor::{Combine, Predictive, PredictiveHold, Predictor, SLOT};
use cosched_balancer::workload::LeaseRequest;
use cosched_core::policy::{Recorder, Step, read_steps, replay, replay_step};
use cosched_core::{Duration, LeaseId, NodeId, Time};
use cosched_live::{Answer, Engine, InvalidInput, LiveError, MemoryCluster};

fn config(window_s: i64) -> Balancer {
    Balancer::new(
        BalancerConfig::new(Strategy::Basic { static_reserve: 0 })
            .with_window(Duration(window_s))
            .with_idle_hold(Duration::ZERO),
    )
}

use RmNodeState::{BatchBusy, BatchIdle, OnDemandFree};

/// `e` saved as JSON, dropped and resumed at `at` on `cluster`: a restart.
fn restarted(
    e: Engine<MemoryCluster, Balancer>,
    at: Time,
    cluster: &MemoryCluster,
) -> Engine<MemoryCluster, Balancer> {
    let saved = serde_json::to_string(&e.persisted()).unwrap();
    drop(e);
    Engine::resume(at, serde_json::from_str(&saved).unwrap(), cluster.clone()).unwrap()
}

#[test]
fn a_request_waits_for_a_job_to_end_within_w() {
    let cluster = MemoryCluster::new(&[BatchIdle, BatchBusy, BatchBusy]);
    let mut e = Engine::start(Time(0), config(60), cluster.clone()).unwrap();
    let r = e.request(Time(1), 2, Some(Duration(60))).unwrap();
    assert!(e.take_answers().is_empty(), "one idle node is not enough");
    assert_eq!(
        cluster.state(0).unwrap(),
        OnDemandFree,
        "the idle node is taken at once"
    );
    // n2's job ends: the poller sees it idle; the node is reclaimed and the request granted.
    cluster.end_job(1).unwrap();
    e.sync(Time(30)).unwrap();
    assert_eq!(
        e.take_answers(),
        vec![Answer::Granted {
            request: r,
            nodes: vec!["n1".into(), "n2".into()]
        }]
    );
    assert_eq!(
        cluster.state(2).unwrap(),
        BatchBusy,
        "the other batch job is untouched"
    );
    e.release(Time(40), &["n1".into(), "n2".into()]).unwrap();
    // With I = 0 the released nodes go back to batch at the next tick.
    e.sync(Time(40)).unwrap();
    assert_eq!(
        (cluster.state(0).unwrap(), cluster.state(1).unwrap()),
        (BatchIdle, BatchIdle)
    );
}

#[test]
fn a_request_is_rejected_at_its_own_w_and_its_nodes_go_back() {
    let cluster = MemoryCluster::new(&[BatchIdle, BatchBusy]);
    let mut e = Engine::start(Time(0), config(60), cluster.clone()).unwrap();
    let r = e.request(Time(0), 2, Some(Duration(10))).unwrap();
    e.sync(Time(9)).unwrap();
    assert!(e.take_answers().is_empty());
    e.sync(Time(10)).unwrap();
    assert_eq!(e.take_answers(), vec![Answer::Rejected { request: r }]);
    e.sync(Time(11)).unwrap();
    assert_eq!(
        cluster.state(0).unwrap(),
        BatchIdle,
        "with I = 0 the gathered node returns to batch"
    );
}

#[test]
fn a_node_whose_drain_raced_a_job_start_is_granted_only_once_drained() {
    let cluster = MemoryCluster::new(&[BatchIdle]);
    let mut e = Engine::start(Time(0), config(60), cluster.clone()).unwrap();
    // A job starts on n1 between the executor's last poll and the drain.
    cluster.start_job(0).unwrap();
    let r = e.request(Time(1), 1, Some(Duration(60))).unwrap();
    assert!(
        e.take_answers().is_empty(),
        "the node still runs a batch job"
    );
    e.sync(Time(5)).unwrap();
    assert!(e.take_answers().is_empty());
    // The job ends; the drain completes.
    cluster.end_job(0).unwrap();
    e.sync(Time(20)).unwrap();
    assert_eq!(
        e.take_answers(),
        vec![Answer::Granted {
            request: r,
            nodes: vec!["n1".into()]
        }]
    );
}

#[test]
fn a_restart_keeps_allocations_and_never_grants_a_node_twice() {
    let cluster = MemoryCluster::new(&[BatchIdle, BatchIdle, BatchBusy]);
    let mut e = Engine::start(Time(0), config(30), cluster.clone()).unwrap();
    let r = e.request(Time(0), 2, Some(Duration(30))).unwrap();
    assert!(matches!(&e.take_answers()[..], [Answer::Granted { request, .. }] if *request == r));
    let waiting = e.request(Time(1), 1, Some(Duration(30))).unwrap();
    let mut e = restarted(e, Time(2), &cluster);
    let view = e.view();
    assert_eq!(view[0].balancer, BalancerNodeState::OdAlloc);
    assert_eq!(view[0].request, Some(r));
    assert!(
        e.policy().waiting_requests().all(|(l, _)| l.0 != waiting),
        "a waiting request's caller is gone"
    );
    let again = e.request(Time(3), 1, Some(Duration(0))).unwrap();
    assert_eq!(
        e.take_answers(),
        vec![Answer::Rejected { request: again }],
        "n1 and n2 are allocated, n3 busy"
    );
}

#[test]
fn a_grant_waiting_for_an_unsettled_node_survives_a_restart_and_the_node_stays_unused_until_it_settles()
 {
    let cluster = MemoryCluster::new(&[BatchIdle, BatchBusy]);
    let policy = Balancer::new(
        BalancerConfig::new(Strategy::Basic { static_reserve: 0 }).with_idle_hold(Duration(600)),
    );
    let mut e = Engine::start(Time(0), policy, cluster.clone()).unwrap();
    // A job starts on n1 before the engine polls again: the policy reclaims n1 as idle, the
    // drain leaves the job running, and the grant waits for n1 to settle.
    cluster.start_job(0).unwrap();
    let r = e.request(Time(1), 1, None).unwrap();
    assert!(e.take_answers().is_empty());
    let mut e = restarted(e, Time(2), &cluster);
    // Its caller is gone: the grant's node goes back to the reserve, not left allocated.
    assert_eq!(
        e.policy().state(NodeId(0)).unwrap(),
        BalancerNodeState::OdReserve
    );
    assert!(e.view().iter().all(|v| v.request != Some(r)));
    // A new request is granted n1 by the policy, but not handed over while its job runs.
    let again = e.request(Time(3), 1, None).unwrap();
    assert!(e.take_answers().is_empty(), "n1 still runs its batch job");
    cluster.end_job(0).unwrap();
    e.sync(Time(4)).unwrap();
    assert!(matches!(
        &e.take_answers()[..],
        [Answer::Granted { request, nodes }] if *request == again && nodes == &["n1".to_owned()]
    ));
}

#[test]
fn invalid_calls_change_nothing() {
    let cluster = MemoryCluster::new(&[BatchIdle, BatchIdle]);
    let mut e = Engine::start(Time(0), config(30), cluster.clone()).unwrap();
    let before = serde_json::to_string(&e.persisted()).unwrap();
    for bad in [
        e.request(Time(1), 3, Some(Duration(5))).err(),
        e.request(Time(1), 0, Some(Duration(5))).err(),
        e.request(Time(1), 1, Some(Duration(-1))).err(),
        e.release(Time(1), &["n1".into()]).err(),
        e.release(Time(1), &["nope".into()]).err(),
        e.job_ended(Time(1), &["nope".into()]).err(),
    ] {
        assert!(matches!(bad, Some(LiveError::Invalid(_))), "{bad:?}");
    }
    assert_eq!(serde_json::to_string(&e.persisted()).unwrap(), before);
    assert_eq!(
        (cluster.state(0).unwrap(), cluster.state(1).unwrap()),
        (BatchIdle, BatchIdle)
    );
}

#[test]
fn a_callers_wait_is_capped_by_the_policys_w() {
    let cluster = MemoryCluster::new(&[BatchIdle, BatchBusy]);
    let mut e = Engine::start(Time(0), config(30), cluster.clone()).unwrap();
    // Asked to wait 999 s; the policy's W is 30 s, so it is refused at 30 s.
    let r = e.request(Time(0), 2, Some(Duration(999))).unwrap();
    e.sync(Time(29)).unwrap();
    assert!(e.take_answers().is_empty());
    e.sync(Time(30)).unwrap();
    assert_eq!(e.take_answers(), vec![Answer::Rejected { request: r }]);
    assert!(matches!(
        e.request(Time(31), 1, Some(Duration(-1))),
        Err(LiveError::Invalid(InvalidInput::NegativeWait(-1)))
    ));
}

#[test]
fn the_static_split_runs_live() {
    let cluster = MemoryCluster::new(&[BatchIdle, BatchBusy, BatchIdle, BatchIdle]);
    let split = StaticSplit::new(2, Duration::ZERO);
    let mut e = Engine::start(Time(0), split, cluster.clone()).unwrap();
    // The pool (the last two nodes) is taken out of batch at start.
    assert_eq!(
        (cluster.state(2).unwrap(), cluster.state(3).unwrap()),
        (OnDemandFree, OnDemandFree)
    );
    let a = e.request(Time(1), 2, None).unwrap();
    let b = e.request(Time(2), 1, None).unwrap();
    assert_eq!(
        e.take_answers(),
        vec![
            Answer::Granted {
                request: a,
                nodes: vec!["n3".into(), "n4".into()]
            },
            Answer::Rejected { request: b }
        ]
    );
    // Released pool nodes stay on-demand; the batch side is never touched.
    e.release(Time(3), &["n3".into(), "n4".into()]).unwrap();
    e.sync(Time(4)).unwrap();
    assert_eq!(
        (cluster.state(2).unwrap(), cluster.state(3).unwrap()),
        (OnDemandFree, OnDemandFree)
    );
    assert_eq!(
        (cluster.state(0).unwrap(), cluster.state(1).unwrap()),
        (BatchIdle, BatchBusy)
    );
}

/// Predictive live: `add_reserve(0, N)` at the slot's start takes the idle nodes, which a
/// request gets at once; released, they stay reserved under the paper's slot hold (until the
/// slot ends) and go back to batch after `I` unused under ours (`PredictiveHold::Idle`).
#[test]
fn predictive_runs_live_and_reserves_at_the_slot() {
    let day = 86_400;
    // Yesterday's slot 0 peaked at 2 requested nodes.
    let history = [LeaseRequest {
        id: LeaseId(0),
        submit: Time(60),
        nodes: 2,
        duration: Duration(600),
        notice: None,
    }];
    let reserved = |cluster: &MemoryCluster| {
        (0..4)
            .filter(|&i| cluster.state(i) == Some(OnDemandFree))
            .count()
    };
    for hold in [PredictiveHold::Slot, PredictiveHold::Idle] {
        let cluster = MemoryCluster::new(&[BatchIdle; 4]);
        let policy = Predictive::new(
            BalancerConfig::new(Strategy::Hinted).with_idle_hold(Duration(600)),
            Predictor::train(Combine::Max, &history),
        )
        .unwrap()
        .with_hold(hold);
        let mut e = Engine::start(Time(day), policy, cluster.clone()).unwrap();
        // Today's slot 0 has begun: two idle nodes are reserved for it at start.
        assert_eq!(reserved(&cluster), 2, "{hold:?}");
        let r = e.request(Time(day + 10), 2, None).unwrap();
        assert!(
            matches!(&e.take_answers()[..], [Answer::Granted { request, nodes }] if *request == r && nodes.len() == 2)
        );
        e.release(Time(day + 20), &["n1".into(), "n2".into()])
            .unwrap();
        e.sync(Time(day + 619)).unwrap();
        assert_eq!(reserved(&cluster), 2, "{hold:?}");
        e.sync(Time(day + 620)).unwrap();
        let after_i = match hold {
            PredictiveHold::Slot => 2,
            PredictiveHold::Idle => 0,
        };
        assert_eq!(reserved(&cluster), after_i, "{hold:?}");
        // Past the slot's end (and I), every node is back to batch.
        e.sync(Time(day + SLOT.secs() + 600)).unwrap();
        assert!(
            (0..4).all(|i| cluster.state(i) == Some(BatchIdle)),
            "{hold:?}"
        );
    }
}

#[test]
fn a_live_recording_replays_identically_and_survives_a_serde_restart() {
    let cluster = MemoryCluster::new(&[BatchIdle, BatchBusy, BatchBusy, BatchIdle]);
    let recorder = Recorder::with_view_snapshot(config(60), Vec::new(), |_, v: &[RmNode]| {
        Some(serde_json::to_value(v).unwrap_or_default())
    });
    let mut e = Engine::start(Time(0), recorder, cluster.clone()).unwrap();
    let a = e.request(Time(1), 3, None).unwrap();
    cluster.end_job(1).unwrap();
    e.sync(Time(5)).unwrap();
    let names: Vec<String> = match &e.take_answers()[..] {
        [Answer::Granted { request, nodes }] if *request == a => nodes.clone(),
        other => panic!("{other:?}"),
    };
    e.request(Time(6), 2, Some(Duration(10))).unwrap();
    e.sync(Time(16)).unwrap();
    e.release(Time(20), &names).unwrap();
    e.sync(Time(21)).unwrap();
    let (recorder, _) = e.into_parts();
    let (_, lines) = recorder.into_parts();
    let view = |snap: Option<&serde_json::Value>| {
        serde_json::from_value::<Vec<RmNode>>(snap.cloned().unwrap_or_default())
    };
    let outcome = replay(&mut config(60), lines.as_slice(), view).unwrap();
    assert!(outcome.steps >= 6 && outcome.commands >= 6, "{outcome:?}");
    // Restarting from the serialised policy half-way changes nothing.
    let steps: Vec<Step<_, _>> = read_steps(lines.as_slice())
        .collect::<Result<_, _>>()
        .unwrap();
    let half = steps.len() / 2;
    let mut policy = config(60);
    let mut out = Vec::new();
    for step in &steps[..half] {
        replay_step(&mut policy, step, view, &mut out).unwrap();
    }
    let mut policy: Balancer =
        serde_json::from_str(&serde_json::to_string(&policy).unwrap()).unwrap();
    for step in &steps[half..] {
        replay_step(&mut policy, step, view, &mut out).unwrap();
    }
}

/// A policy that cannot fail (`Infallible`) runs in the engine as the Balancer does: this one
/// refuses every request, and the engine answers the callers so and touches no node.
#[test]
fn an_infallible_policy_runs_in_the_engine() {
    use cosched_balancer::policy::{Command, Observation, Policy};
    use std::convert::Infallible;

    struct Refuse;
    impl Policy for Refuse {
        type Observation = Observation;
        type Command = Command;
        type View = [RmNode];
        type Error = Infallible;
        fn observe(
            &mut self,
            _: Time,
            obs: &Observation,
            _: &[RmNode],
            out: &mut Vec<Command>,
        ) -> Result<(), Infallible> {
            if let Observation::Request { request, .. } = *obs {
                out.push(Command::Reject { request });
            }
            Ok(())
        }
    }

    let cluster = MemoryCluster::new(&[BatchIdle, BatchBusy]);
    let mut e = Engine::start(Time(0), Refuse, cluster.clone()).unwrap();
    let request = e.request(Time(1), 1, None).unwrap();
    assert_eq!(e.take_answers(), [Answer::Rejected { request }]);
    assert_eq!(
        (cluster.state(0).unwrap(), cluster.state(1).unwrap()),
        (BatchIdle, BatchBusy)
    );
}
