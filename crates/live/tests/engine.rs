//! The live executor on a scripted resource manager: each step of the Balancer's protocol as a
//! real cluster exhibits it (jobs that end when they end, a drain that races a job start, a
//! restart), without daemons.

use std::cell::RefCell;
use std::rc::Rc;

use cosched_balancer::oarm::Oarm;
use cosched_balancer::policy::{BalancerConfig, BalancerNodeState, RmNode, RmNodeState, Strategy};
use cosched_core::{Duration, NodeId, Time};
use cosched_live::{Answer, Engine, LiveCluster, LiveError, NodeReport};

/// A cluster whose nodes a test sets by hand; reclaim drains (a busy node keeps its job).
#[derive(Clone, Default)]
struct Scripted(Rc<RefCell<Vec<NodeReport>>>);

impl Scripted {
    fn new(states: &[RmNodeState]) -> Self {
        Scripted(Rc::new(RefCell::new(
            states
                .iter()
                .enumerate()
                .map(|(i, &state)| NodeReport {
                    name: format!("n{}", i + 1),
                    state,
                    settled: false,
                })
                .collect(),
        )))
    }
    fn set(&self, i: usize, state: RmNodeState, settled: bool) {
        let mut nodes = self.0.borrow_mut();
        nodes[i].state = state;
        nodes[i].settled = settled;
    }
    fn state(&self, i: usize) -> RmNodeState {
        self.0.borrow()[i].state
    }
}

#[derive(Debug, thiserror::Error)]
#[error("scripted failure")]
struct Never;

impl Oarm for Scripted {
    type Error = Never;
    fn reclaim_node(&mut self, node: NodeId, _name: &str) -> Result<(), Never> {
        let busy = self.state(node.index()) == RmNodeState::BatchBusy;
        self.set(node.index(), RmNodeState::OnDemandFree, !busy);
        Ok(())
    }
    fn restore_node(&mut self, node: NodeId, _name: &str) -> Result<(), Never> {
        self.set(node.index(), RmNodeState::BatchIdle, false);
        Ok(())
    }
    fn get_status_of_all_nodes(&self) -> Result<Vec<RmNode>, Never> {
        Ok(self
            .0
            .borrow()
            .iter()
            .map(|r| RmNode {
                name: r.name.clone(),
                state: r.state,
            })
            .collect())
    }
}

impl LiveCluster for Scripted {
    fn report(&self) -> Result<Vec<NodeReport>, Never> {
        Ok(self.0.borrow().clone())
    }
}

fn config(window_s: i64) -> BalancerConfig {
    BalancerConfig::new(Strategy::Basic { static_reserve: 0 }).with_window(Duration(window_s))
}

use RmNodeState::{BatchBusy, BatchIdle, OnDemandFree};

#[test]
fn a_request_waits_for_a_job_to_end_within_w() {
    let cluster = Scripted::new(&[BatchIdle, BatchBusy, BatchBusy]);
    let mut e = Engine::start(Time(0), config(60), cluster.clone(), None).unwrap();
    let r = e.request(Time(1), 2, Duration(60)).unwrap();
    assert!(e.take_answers().is_empty(), "one idle node is not enough");
    assert_eq!(
        cluster.state(0),
        OnDemandFree,
        "the idle node is taken at once"
    );
    // n2's job ends: the poller sees it idle; the node is reclaimed and the request granted.
    cluster.set(1, BatchIdle, false);
    e.sync(Time(30)).unwrap();
    assert_eq!(
        e.take_answers(),
        vec![Answer::Granted {
            request: r,
            nodes: vec!["n1".into(), "n2".into()]
        }]
    );
    assert_eq!(
        cluster.state(2),
        BatchBusy,
        "the other batch job is untouched"
    );
    e.release(Time(40), &["n1".into(), "n2".into()]).unwrap();
    // With I = 0 the released nodes go back to batch at the next tick.
    e.sync(Time(40)).unwrap();
    assert_eq!((cluster.state(0), cluster.state(1)), (BatchIdle, BatchIdle));
}

#[test]
fn a_request_is_rejected_at_its_own_w_and_its_nodes_go_back() {
    let cluster = Scripted::new(&[BatchIdle, BatchBusy]);
    let mut e = Engine::start(Time(0), config(60), cluster.clone(), None).unwrap();
    let r = e.request(Time(0), 2, Duration(10)).unwrap();
    e.sync(Time(9)).unwrap();
    assert!(e.take_answers().is_empty());
    e.sync(Time(10)).unwrap();
    assert_eq!(e.take_answers(), vec![Answer::Rejected { request: r }]);
    e.sync(Time(11)).unwrap();
    assert_eq!(
        cluster.state(0),
        BatchIdle,
        "with I = 0 the gathered node returns to batch"
    );
}

#[test]
fn a_node_whose_drain_raced_a_job_start_is_granted_only_once_drained() {
    let cluster = Scripted::new(&[BatchIdle]);
    let mut e = Engine::start(Time(0), config(60), cluster.clone(), None).unwrap();
    // A job starts on n1 between the executor's last poll and the drain.
    cluster.set(0, BatchBusy, false);
    let r = e.request(Time(1), 1, Duration(60)).unwrap();
    assert!(
        e.take_answers().is_empty(),
        "the node still runs a batch job"
    );
    e.sync(Time(5)).unwrap();
    assert!(e.take_answers().is_empty());
    // The job ends; the drain completes.
    cluster.set(0, OnDemandFree, true);
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
    let cluster = Scripted::new(&[BatchIdle, BatchIdle, BatchBusy]);
    let mut e = Engine::start(Time(0), config(30), cluster.clone(), None).unwrap();
    let r = e.request(Time(0), 2, Duration(30)).unwrap();
    assert!(matches!(&e.take_answers()[..], [Answer::Granted { request, .. }] if *request == r));
    let waiting = e.request(Time(1), 1, Duration(30)).unwrap();
    let saved = serde_json::to_string(&e.persisted()).unwrap();
    drop(e);
    let mut e = Engine::start(
        Time(2),
        config(30),
        cluster.clone(),
        Some(serde_json::from_str(&saved).unwrap()),
    )
    .unwrap();
    let view = e.view();
    assert_eq!(view[0].balancer, BalancerNodeState::OdAlloc);
    assert_eq!(view[0].request, Some(r));
    assert!(
        e.policy().waiting_requests().all(|(l, _)| l.0 != waiting),
        "a waiting request's caller is gone"
    );
    let again = e.request(Time(3), 1, Duration(0)).unwrap();
    assert_eq!(
        e.take_answers(),
        vec![Answer::Rejected { request: again }],
        "n1 and n2 are allocated, n3 busy"
    );
}

#[test]
fn invalid_calls_change_nothing() {
    let cluster = Scripted::new(&[BatchIdle, BatchIdle]);
    let mut e = Engine::start(Time(0), config(30), cluster.clone(), None).unwrap();
    let before = serde_json::to_string(&e.persisted()).unwrap();
    for bad in [
        e.request(Time(1), 3, Duration(5)).err(),
        e.request(Time(1), 0, Duration(5)).err(),
        e.request(Time(1), 1, Duration(-1)).err(),
        e.request(Time(1), 1, Duration(31)).err(),
        e.release(Time(1), &["n1".into()]).err(),
        e.release(Time(1), &["nope".into()]).err(),
        e.job_ended(Time(1), &["nope".into()]).err(),
    ] {
        assert!(matches!(bad, Some(LiveError::Invalid(_))), "{bad:?}");
    }
    assert_eq!(serde_json::to_string(&e.persisted()).unwrap(), before);
    assert_eq!((cluster.state(0), cluster.state(1)), (BatchIdle, BatchIdle));
}
