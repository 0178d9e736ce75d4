//! The Balancer's invariants on the policy protocol, against a model executor: random batch
//! job starts and ends, on-demand requests, releases, cancellations, hints, reserve targets
//! and admin outages, with time advancing and ticks delivered at the policy's deadlines.
//!
//! Checked after every step: the node states sum to `N` and agree with the executor (on-demand
//! nodes offline, batch nodes online; no node allocated twice); a `Reclaim` only ever names an
//! idle online node (no batch job is ever killed or preempted); a `Restore` only an offline,
//! unallocated node; every grant has the requested number of distinct nodes and comes within
//! `W` of its request; every request is answered exactly once (granted or rejected) by its
//! deadline; an unavailable node is never reclaimed; the on-demand pool never falls below `R`
//! while enough nodes are usable; and the state round-trips through serde.

mod common;
use common::Drive;
use cosched_balancer::policy::{RmNode, RmNodeState};
use cosched_balancer::{
    Balancer, BalancerConfig, BalancerNodeState as S, Command, Observation as O, Policy,
    Strategy as Algorithm,
};
use cosched_core::{Duration, LeaseId, NodeId, Time};
use proptest::prelude::*;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug)]
enum Op {
    Wait(i64),
    StartJob(usize),
    EndJob(usize),
    Request(u32),
    Release(usize),
    Cancel(usize),
    Hint(i64, u32),
    Target(u32, i64),
    Down(usize, bool),
}

fn op(n: u32) -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0i64..120).prop_map(Op::Wait),
        4 => any::<usize>().prop_map(Op::StartJob),
        4 => any::<usize>().prop_map(Op::EndJob),
        3 => (1..=n).prop_map(Op::Request),
        2 => any::<usize>().prop_map(Op::Release),
        1 => any::<usize>().prop_map(Op::Cancel),
        1 => (0i64..200, 0..=n).prop_map(|(h, k)| Op::Hint(h, k)),
        1 => (0..=n, 1i64..400).prop_map(|(k, d)| Op::Target(k, d)),
        1 => (any::<usize>(), any::<bool>()).prop_map(|(i, a)| Op::Down(i, a)),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Node {
    Idle,
    Busy,
    Offline,
}

struct Model {
    nodes: Vec<Node>,
    allocated: BTreeMap<u32, u64>,
    down: Vec<bool>,
    /// Open requests: id -> (submit, nodes).
    open: BTreeMap<u64, (Time, u32)>,
    /// Granted requests' nodes.
    leases: BTreeMap<u64, Vec<NodeId>>,
    window: Duration,
}

impl Model {
    fn apply(&mut self, now: Time, out: Vec<Command>) -> Result<(), TestCaseError> {
        for c in out {
            match c {
                Command::Reclaim(n) => {
                    prop_assert_eq!(self.nodes[n.index()], Node::Idle, "reclaim of {:?}", n);
                    prop_assert!(!self.down[n.index()], "an unavailable node was adopted");
                    self.nodes[n.index()] = Node::Offline;
                }
                Command::Restore(n) => {
                    prop_assert_eq!(self.nodes[n.index()], Node::Offline);
                    prop_assert!(!self.allocated.contains_key(&n.0));
                    self.nodes[n.index()] = Node::Idle;
                }
                Command::Grant { request, nodes } => {
                    let (submit, want) = self.open.remove(&request.0).expect("answered once");
                    prop_assert_eq!(nodes.len() as u32, want);
                    prop_assert!(now.since(submit) <= self.window);
                    for n in &nodes {
                        prop_assert_eq!(self.nodes[n.index()], Node::Offline);
                        prop_assert!(self.allocated.insert(n.0, request.0).is_none());
                    }
                    self.leases.insert(request.0, nodes);
                }
                Command::Reject { request } => {
                    prop_assert!(self.open.remove(&request.0).is_some(), "answered once");
                }
            }
        }
        Ok(())
    }
}

fn check(b: &Balancer, m: &Model, r: u32, now: Time) -> Result<(), TestCaseError> {
    let total: u32 = S::ALL.iter().map(|&s| b.count(s)).sum();
    prop_assert_eq!(total as usize, m.nodes.len());
    for (i, &node) in m.nodes.iter().enumerate() {
        let s = b.state(NodeId(i as u32)).unwrap();
        match node {
            Node::Offline => prop_assert!(s.is_on_demand(), "node {} offline but {:?}", i, s),
            Node::Idle => prop_assert_eq!(s, S::OaIdle),
            Node::Busy => prop_assert_eq!(s, S::OaBusy),
        }
        prop_assert_eq!(s == S::OdAlloc, m.allocated.contains_key(&(i as u32)));
    }
    let usable = (0..m.nodes.len())
        .filter(|&i| !m.down[i] || m.allocated.contains_key(&(i as u32)))
        .count() as u32;
    let pool = b.count(S::OdReserve) + b.count(S::OdAlloc);
    let busy = m.nodes.iter().filter(|n| **n == Node::Busy).count() as u32;
    if usable >= r + busy {
        prop_assert!(
            pool >= r.min(usable - busy),
            "pool {} below R = {}",
            pool,
            r
        );
    }
    for &(submit, _) in m.open.values() {
        prop_assert!(now.since(submit) <= m.window, "a request outlived W");
    }
    let json = serde_json::to_string(b).unwrap();
    prop_assert_eq!(&serde_json::from_str::<Balancer>(&json).unwrap(), b);
    Ok(())
}

fn run(config: BalancerConfig, n: u32, ops: &[Op]) -> Result<(), TestCaseError> {
    let nodes: Vec<RmNode> = (0..n)
        .map(|i| RmNode {
            name: format!("n{i}"),
            state: RmNodeState::BatchIdle,
        })
        .collect();
    let (mut b, out) = Balancer::started(Time(0), config, &nodes).unwrap();
    let mut m = Model {
        nodes: vec![Node::Idle; n as usize],
        allocated: BTreeMap::new(),
        down: vec![false; n as usize],
        open: BTreeMap::new(),
        leases: BTreeMap::new(),
        window: config.window,
    };
    let r = config.static_reserve();
    let mut now = Time(0);
    m.apply(now, out)?;
    let hinted = config.strategy == Algorithm::Hinted;
    let mut next_id = 0;
    for &op in ops {
        let pick = |k: usize, want: Node, m: &Model| {
            let v: Vec<usize> = (0..m.nodes.len()).filter(|&i| m.nodes[i] == want).collect();
            (!v.is_empty()).then(|| v[k % v.len()])
        };
        let out = match op {
            Op::Wait(dt) => {
                let until = now.saturating_add(Duration(dt));
                // Deliver every deadline on the way, in order.
                while let Some(d) = b.next_wake().filter(|&d| d <= until) {
                    now = d.max(now);
                    let out = b.tick(now).unwrap();
                    m.apply(now, out)?;
                    check(&b, &m, r, now)?;
                }
                now = until;
                Vec::new()
            }
            Op::StartJob(k) => match pick(k, Node::Idle, &m) {
                Some(i) => {
                    // The executor starts batch jobs only on nodes it holds: never refused.
                    let out = b.step(
                        now,
                        O::JobStarting {
                            nodes: vec![NodeId(i as u32)],
                        },
                    );
                    prop_assert!(out.is_ok(), "{:?}", out);
                    m.nodes[i] = Node::Busy;
                    out.unwrap()
                }
                None => Vec::new(),
            },
            Op::EndJob(k) => match pick(k, Node::Busy, &m) {
                Some(i) => {
                    m.nodes[i] = Node::Idle;
                    b.step(
                        now,
                        O::JobEnded {
                            nodes: vec![NodeId(i as u32)],
                        },
                    )
                    .unwrap()
                }
                None => Vec::new(),
            },
            Op::Request(k) => {
                next_id += 1;
                m.open.insert(next_id, (now, k));
                b.step(
                    now,
                    O::Request {
                        request: LeaseId(next_id),
                        nodes: k,
                        wait: None,
                    },
                )
                .unwrap()
            }
            Op::Release(k) => {
                let ids: Vec<u64> = m.leases.keys().copied().collect();
                if ids.is_empty() {
                    Vec::new()
                } else {
                    let id = ids[k % ids.len()];
                    let nodes = m.leases.remove(&id).unwrap();
                    for node in &nodes {
                        m.allocated.remove(&node.0);
                    }
                    b.step(now, O::Release { nodes }).unwrap()
                }
            }
            Op::Cancel(k) => {
                let ids: Vec<u64> = m.open.keys().copied().collect();
                if ids.is_empty() {
                    Vec::new()
                } else {
                    let id = ids[k % ids.len()];
                    m.open.remove(&id);
                    b.step(
                        now,
                        O::Cancel {
                            request: LeaseId(id),
                        },
                    )
                    .unwrap()
                }
            }
            Op::Hint(h, k) if hinted => b
                .step(
                    now,
                    O::Hint {
                        by: now.saturating_add(Duration(h)),
                        nodes: k,
                    },
                )
                .unwrap(),
            Op::Target(k, d) if hinted => b
                .step(
                    now,
                    O::ReserveTarget {
                        nodes: k,
                        until: now.saturating_add(Duration(d)),
                    },
                )
                .unwrap(),
            Op::Down(k, available) => {
                let i = k % m.nodes.len();
                m.down[i] = !available;
                b.step(
                    now,
                    O::Availability {
                        node: NodeId(i as u32),
                        available,
                    },
                )
                .unwrap()
            }
            Op::Hint(..) | Op::Target(..) => Vec::new(),
        };
        m.apply(now, out)?;
        check(&b, &m, r, now)?;
    }
    // Every request is answered by its deadline.
    now = now
        .saturating_add(config.window)
        .saturating_add(Duration(1));
    while let Some(d) = b.next_wake().filter(|&d| d <= now) {
        let out = b.tick(d).unwrap();
        m.apply(d, out)?;
    }
    prop_assert!(m.open.is_empty(), "unanswered: {:?}", m.open);
    Ok(())
}

fn config(hinted: bool) -> impl Strategy<Value = (BalancerConfig, u32)> {
    (1u32..=8, prop_oneof![Just(0i64), 1i64..200], 0i64..100).prop_flat_map(move |(n, w, i)| {
        let r = if hinted {
            Just(0).boxed()
        } else {
            (0..=n).boxed()
        };
        r.prop_map(move |r| {
            let strategy = if hinted {
                Algorithm::Hinted
            } else {
                Algorithm::Basic { static_reserve: r }
            };
            let c = BalancerConfig::new(strategy)
                .with_window(Duration(w))
                .with_idle_hold(Duration(i));
            (c, n)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn basic_keeps_its_invariants((c, n) in config(false), ops in prop::collection::vec(op(8), 0..60)) {
        run(c, n, &ops)?;
    }

    #[test]
    fn hinted_keeps_its_invariants((c, n) in config(true), ops in prop::collection::vec(op(8), 0..60)) {
        run(c, n, &ops)?;
    }
}
