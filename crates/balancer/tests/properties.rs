//! The Balancer's invariants, driving it against a real `BatchCluster` (EASY) with random
//! batch jobs and random on-demand requests, releases and reserve hints.
//!
//! The driver follows the policy's protocol at each instant: job ends (reported with
//! `JobEnded`), arrivals, on-demand calls, `tick` when `next_deadline` is due, then one EASY
//! pass whose starts are reported with `JobStarting` (which must never be refused, since the
//! nodes the Balancer claims are offline or draining in the cluster). After every instant it
//! checks: every node in exactly one state and the states summing to `N`; the Balancer's view
//! agreeing with the cluster's (on-demand nodes offline, reclaiming ones draining, batch ones
//! idle or busy) and a batch start on any node the cluster cannot use being refused; the
//! static reserve never below `R`. Every batch job must run once, in full; every request must
//! be granted by its deadline with its nodes, or rejected at once (never after waiting, since
//! every drained node's job ends by its estimate), and none left pending.

use cosched_balancer::{
    Balancer, BalancerConfig, BalancerError, BalancerNodeState as S, Decisions, Grant, NodeUpdate,
    RequestOutcome, Strategy as Algorithm,
};
use cosched_batch::{BatchCluster, BatchJob, Easy, Started};
use cosched_core::{Duration, JobClass, JobId, LeaseId, NodeId, NodeState, Time};
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

#[derive(Clone, Copy, Debug)]
enum Op {
    Request(u32),
    /// Releases the allocation picked by this index (modulo the live ones).
    Release(usize),
    AddReserve {
        after: i64,
        nodes: u32,
    },
}

#[derive(Debug)]
struct Scenario {
    nodes: u32,
    config: BalancerConfig,
    jobs: Vec<BatchJob>,
    ops: Vec<(i64, Op)>,
}

fn scenario(hinted: bool) -> impl Strategy<Value = Scenario> {
    (2u32..=10)
        .prop_flat_map(move |n| {
            let r = if hinted {
                Just(0).boxed()
            } else {
                (0..=n / 2).boxed()
            };
            (Just(n), r, prop_oneof![Just(0i64), 1i64..80], 0i64..60)
        })
        .prop_flat_map(move |(n, r, w, i)| {
            let algorithm = if hinted {
                Algorithm::Hinted
            } else {
                Algorithm::Basic { static_reserve: r }
            };
            let config = BalancerConfig::new(algorithm)
                .with_window(Duration(w))
                .with_idle_hold(Duration(i));
            let job = (0i64..300, 1..=n - r, 1i64..60, 0i64..30);
            let op = prop_oneof![
                3 => (1..=n).prop_map(Op::Request),
                2 => any::<usize>().prop_map(Op::Release),
                if hinted { 2 } else { 0 } =>
                    (0i64..100, 0..=n).prop_map(|(after, nodes)| Op::AddReserve { after, nodes }),
            ];
            (
                Just(n),
                Just(config),
                prop::collection::vec(job, 0..30),
                prop::collection::vec((0i64..300, op), 0..30),
            )
        })
        .prop_map(|(nodes, config, jobs, ops)| Scenario {
            nodes,
            config,
            jobs: jobs
                .into_iter()
                .enumerate()
                .map(|(i, (submit, size, run, extra))| BatchJob {
                    id: JobId(i as u64),
                    submit: Time(submit),
                    size,
                    runtime: Duration(run),
                    estimate: Duration(run + extra),
                    class: JobClass::Rigid,
                    resizable: None,
                })
                .collect(),
            ops,
        })
}

/// What the driver knows of the on-demand side.
#[derive(Default)]
struct OnDemand {
    /// Pending requests: (size, deadline).
    pending: BTreeMap<LeaseId, (u32, Time)>,
    /// Granted, not yet released allocations.
    allocations: Vec<Vec<NodeId>>,
}

impl OnDemand {
    fn grant(&mut self, now: Time, g: Grant, size: u32, deadline: Time) {
        assert!(
            now <= deadline,
            "granted at {now:?} after the deadline {deadline:?}"
        );
        assert_eq!(g.nodes.len(), size as usize);
        self.allocations.push(g.nodes);
    }

    fn apply(&mut self, now: Time, d: Decisions) {
        for g in d.granted {
            let (size, deadline) = self
                .pending
                .remove(&g.request)
                .expect("grant of a pending request");
            self.grant(now, g, size, deadline);
        }
        // Every job ends by its estimate and its end is reported before `tick`, so the nodes a
        // pending request drains are always free by its deadline: a rejection there means the
        // Balancer counted on a node it could not have within `W`.
        if let Some(id) = d.rejected.first() {
            panic!(
                "{id} rejected at {now:?} after waiting: it should have been granted or rejected at once"
            );
        }
    }
}

fn run(s: &Scenario) -> Result<(), TestCaseError> {
    let mut cluster = BatchCluster::new(s.nodes).unwrap();
    let mut b = Balancer::new(Time(0), s.config, &mut cluster).unwrap();
    let mut easy = Easy::default();
    let r = match s.config.strategy {
        Algorithm::Basic { static_reserve } => static_reserve,
        Algorithm::Hinted => 0,
    };
    let mut arrivals: Vec<BatchJob> = s.jobs.clone();
    arrivals.sort_by_key(|j| Reverse((j.submit, j.id)));
    let mut ops: Vec<(i64, Op)> = s.ops.clone();
    ops.sort_by_key(|&(t, _)| Reverse(t));
    // The last call: release everything, so that every batch job can eventually run.
    let mut release_all = Some(Time(400));
    let mut ends: BinaryHeap<Reverse<(Time, JobId)>> = BinaryHeap::new();
    let mut runs: BTreeMap<JobId, Started> = BTreeMap::new();
    let mut od = OnDemand::default();
    let mut done = 0;
    loop {
        let now = [
            ends.peek().map(|e| e.0.0),
            arrivals.last().map(|j| j.submit),
            ops.last().map(|&(t, _)| Time(t)),
            release_all,
            b.next_deadline(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(now) = now else { break };

        // Job ends.
        while let Some(&Reverse((t, job))) = ends.peek() {
            if t != now {
                break;
            }
            ends.pop();
            let started = runs[&job];
            let nodes = updates(&cluster, job, NodeUpdate::JobEnded);
            let record = cluster.complete(now, started.token).expect("a current run");
            prop_assert_eq!(record.end, Some(started.end));
            prop_assert_eq!(record.end.unwrap() - record.start.unwrap(), record.runtime);
            done += 1;
            od.apply(now, b.update_nodes(now, &nodes, &mut cluster).unwrap());
        }
        // Arrivals.
        while arrivals.last().is_some_and(|j| j.submit == now) {
            cluster.submit(arrivals.pop().unwrap()).unwrap();
        }
        // On-demand calls.
        while let Some(&(t, op)) = ops.last() {
            if Time(t) != now {
                break;
            }
            ops.pop();
            match op {
                Op::Request(n) => match b.request_nodes(now, n, &mut cluster).unwrap() {
                    RequestOutcome::Granted(g) => od.grant(now, g, n, now),
                    RequestOutcome::Pending { request, deadline } => {
                        prop_assert!(deadline == now + s.config.window && deadline > now);
                        od.pending.insert(request, (n, deadline));
                    }
                    RequestOutcome::Rejected => {}
                },
                Op::Release(i) if !od.allocations.is_empty() => {
                    let nodes = od.allocations.swap_remove(i % od.allocations.len());
                    od.apply(now, b.release_nodes(now, &nodes, &mut cluster).unwrap());
                }
                Op::Release(_) => {}
                Op::AddReserve { after, nodes } => {
                    let by = now + Duration(after);
                    let out = b.add_reserve(now, by, nodes, &mut cluster).unwrap();
                    prop_assert!(out.reserved + out.draining <= nodes);
                    od.apply(now, out.decisions);
                }
            }
        }
        if release_all == Some(now) {
            release_all = None;
            for nodes in std::mem::take(&mut od.allocations) {
                od.apply(now, b.release_nodes(now, &nodes, &mut cluster).unwrap());
            }
        }
        if b.next_deadline().is_some_and(|d| d <= now) {
            od.apply(now, b.tick(now, &mut cluster).unwrap());
            prop_assert!(b.next_deadline().is_none_or(|d| d > now));
        }
        // One EASY pass; the OARM reports its starts, which must never be refused.
        let mut started = Vec::new();
        cluster.schedule(now, &mut easy, &mut started);
        for st in started {
            let job = st.token.job;
            prop_assert!(runs.insert(job, st).is_none(), "{} started twice", job);
            ends.push(Reverse((st.end, job)));
            let nodes = updates(&cluster, job, NodeUpdate::JobStarting);
            if let Err(e) = b.update_nodes(now, &nodes, &mut cluster) {
                return Err(TestCaseError::fail(format!("start of {job} refused: {e}")));
            }
        }
        check_views(&b, &mut cluster, s.nodes, r, &od)?;
    }
    prop_assert_eq!(done, s.jobs.len(), "every batch job completes");
    prop_assert!(
        od.pending.is_empty(),
        "requests left pending: {:?}",
        od.pending
    );
    prop_assert!(b.pending().next().is_none());
    Ok(())
}

/// One update per node of a running job.
fn updates(
    cluster: &BatchCluster,
    job: JobId,
    update: fn(NodeId) -> NodeUpdate,
) -> Vec<NodeUpdate> {
    cluster
        .job_nodes(job)
        .unwrap()
        .iter()
        .map(|&n| update(n))
        .collect()
}

fn check_views(
    b: &Balancer,
    cluster: &mut BatchCluster,
    n: u32,
    r: u32,
    od: &OnDemand,
) -> Result<(), TestCaseError> {
    let total: u32 = S::ALL.iter().map(|&s| b.count(s)).sum();
    prop_assert_eq!(total, n);
    prop_assert_eq!(b.states().count(), n as usize);
    let allocated: BTreeSet<NodeId> = od.allocations.iter().flatten().copied().collect();
    prop_assert_eq!(allocated.len(), b.count(S::OdAlloc) as usize);
    for (i, state) in b.states().enumerate() {
        let node = NodeId(i as u32);
        let batch = cluster.node_state(node).unwrap();
        let agree = match state {
            S::OdReserve | S::OdAlloc => batch == NodeState::Offline,
            S::Reclaiming => matches!(batch, NodeState::Draining(_)),
            S::OaIdle => batch == NodeState::Idle,
            S::OaBusy => matches!(batch, NodeState::Busy(_)),
        };
        prop_assert!(
            agree,
            "{} is {:?} in the Balancer, {:?} in the cluster",
            node,
            state,
            batch
        );
        prop_assert_eq!(state == S::OdAlloc, allocated.contains(&node));
        if !state.is_on_demand() && state != S::Reclaiming {
            continue;
        }
        // The race: a start on a node the Balancer holds is refused, and changes nothing.
        let mut copy = b.clone();
        let refused = copy.update_nodes(Time(0), &[NodeUpdate::JobStarting(node)], cluster);
        prop_assert!(
            matches!(refused, Err(BalancerError::NodeReclaimed { node: m, .. }) if m == node),
            "a batch start on {} ({:?}) was not refused",
            node,
            state
        );
        prop_assert!(copy.states().eq(b.states()));
    }
    prop_assert!(
        b.count(S::OdReserve) + b.count(S::OdAlloc) >= r,
        "the on-demand pool fell below R = {}",
        r
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn basic_keeps_every_invariant(s in scenario(false)) {
        run(&s)?;
    }

    #[test]
    fn hinted_keeps_every_invariant(s in scenario(true)) {
        run(&s)?;
    }
}
