//! Node identities and counted units against the behaviour they replace.
//!
//! A tracked cluster ([`BatchCluster::new`]) allocates node state only as nodes get used; it
//! must hand out exactly the nodes the former eager layout did (a stack of every node,
//! `capacity − 1` at the bottom, the most recently freed reused first), which `Eager` below
//! models from the documented rules. A counted cluster ([`BatchCluster::counted`]) must give
//! the same starts, records and accounting as a tracked one whenever no node is named.

use cosched_batch::{BatchCluster, BatchError, BatchJob, Fcfs, Resume, SizeRange, Started};
use cosched_core::{Duration, JobClass, JobId, NodeId, NodeState, Time};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The eager node layout: every node's state and the full stack of idle nodes.
struct Eager {
    slots: Vec<NodeState>,
    free: Vec<NodeId>,
    jobs: BTreeMap<JobId, Vec<NodeId>>,
}

impl Eager {
    fn new(capacity: u32) -> Eager {
        Eager {
            slots: vec![NodeState::Idle; capacity as usize],
            free: (0..capacity).rev().map(NodeId).collect(),
            jobs: BTreeMap::new(),
        }
    }

    fn start(&mut self, job: JobId, size: u32) {
        let nodes = self.free.split_off(self.free.len() - size as usize);
        for n in &nodes {
            self.slots[n.index()] = NodeState::Busy(job);
        }
        self.jobs.insert(job, nodes);
    }

    fn release(&mut self, node: NodeId) {
        if matches!(self.slots[node.index()], NodeState::Draining(_)) {
            self.slots[node.index()] = NodeState::Offline;
        } else {
            self.slots[node.index()] = NodeState::Idle;
            self.free.push(node);
        }
    }

    fn end(&mut self, job: JobId) {
        for node in self.jobs.remove(&job).unwrap_or_default() {
            self.release(node);
        }
    }

    fn resize(&mut self, job: JobId, size: u32) {
        let Some(mut nodes) = self.jobs.remove(&job) else {
            return;
        };
        let given_back = nodes.split_off((size as usize).min(nodes.len()));
        while nodes.len() < size as usize {
            let node = self.free.pop().unwrap();
            self.slots[node.index()] = NodeState::Busy(job);
            nodes.push(node);
        }
        self.jobs.insert(job, nodes);
        for node in given_back {
            self.release(node);
        }
    }

    fn set_offline(&mut self, node: NodeId) {
        match self.slots[node.index()] {
            NodeState::Idle => {
                let pos = self.free.iter().rposition(|&n| n == node).unwrap();
                self.free.remove(pos);
                self.slots[node.index()] = NodeState::Offline;
            }
            NodeState::Busy(job) => self.slots[node.index()] = NodeState::Draining(job),
            _ => {}
        }
    }

    fn set_online(&mut self, node: NodeId) {
        match self.slots[node.index()] {
            NodeState::Offline => self.release(node),
            NodeState::Draining(job) => self.slots[node.index()] = NodeState::Busy(job),
            _ => {}
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Submit {
        size: u32,
        run: i64,
        malleable: bool,
    },
    Pass,
    Complete(usize),
    Preempt(usize),
    Resize(usize, u32),
    Offline(u32),
    Online(u32),
}

fn ops(capacity: u32, node_ops: bool) -> impl Strategy<Value = Vec<Op>> {
    let node_weight = if node_ops { 2 } else { 0 };
    let op = prop_oneof![
        4 => (1..=capacity, 0i64..50, prop::bool::weighted(0.3))
            .prop_map(|(size, run, malleable)| Op::Submit { size, run, malleable }),
        3 => Just(Op::Pass),
        3 => (0usize..20).prop_map(Op::Complete),
        1 => (0usize..20).prop_map(Op::Preempt),
        1 => ((0usize..20), 1..=capacity).prop_map(|(i, s)| Op::Resize(i, s)),
        node_weight => (0..capacity).prop_map(Op::Offline),
        node_weight => (0..capacity).prop_map(Op::Online),
    ];
    prop::collection::vec(op, 1..120)
}

/// Applies `ops` to `cluster` from t = 0, one second per op; returns what each step showed.
struct Driver {
    cluster: BatchCluster,
    running: Vec<Started>,
    log: Vec<String>,
    next_id: u64,
}

impl Driver {
    fn new(cluster: BatchCluster) -> Driver {
        Driver {
            cluster,
            running: Vec::new(),
            log: Vec::new(),
            next_id: 0,
        }
    }

    /// Applies one op at `now`; returns the jobs that started, ended or were resized, with
    /// the runs whose nodes changed.
    fn apply(&mut self, now: Time, op: &Op) -> Vec<(JobId, Option<u32>)> {
        let mut changed = Vec::new();
        match *op {
            Op::Submit {
                size,
                run,
                malleable,
            } => {
                self.next_id += 1;
                let job = BatchJob {
                    id: JobId(self.next_id),
                    submit: now,
                    size,
                    runtime: Duration(run),
                    estimate: Duration(run + 5),
                    class: JobClass::Rigid,
                    resizable: malleable.then_some(SizeRange {
                        min: 1,
                        max: size * 2,
                        setup: Duration::ZERO,
                    }),
                };
                let r = self.cluster.submit(job);
                self.log.push(format!("submit {r:?}"));
            }
            Op::Pass => {
                let mut started = Vec::new();
                self.cluster.schedule(now, &mut Fcfs, &mut started);
                for s in &started {
                    changed.push((s.token.job, Some(s.size)));
                }
                self.log.push(format!("pass {started:?}"));
                self.running.extend(started);
            }
            Op::Complete(i) | Op::Preempt(i) if !self.running.is_empty() => {
                let s = self.running.remove(i % self.running.len());
                let job = s.token.job;
                if matches!(op, Op::Complete(_)) {
                    let r = self.cluster.complete(now.max(s.end), s.token);
                    self.log.push(format!("complete {r:?}"));
                    if r.is_some() {
                        changed.push((job, None));
                    }
                } else {
                    let r = self.cluster.preempt(now, job, Resume::Remaining);
                    self.log.push(format!("preempt {r:?}"));
                    if r.is_ok() {
                        changed.push((job, None));
                    }
                }
            }
            Op::Resize(i, size) if !self.running.is_empty() => {
                let k = i % self.running.len();
                let job = self.running[k].token.job;
                let r = self.cluster.resize(now, job, size);
                self.log.push(format!("resize {r:?}"));
                if let Ok(s) = r {
                    self.running[k] = s;
                    changed.push((job, Some(size)));
                }
            }
            Op::Offline(n) => {
                let r = self.cluster.set_offline(NodeId(n));
                self.log.push(format!("offline {r:?}"));
            }
            Op::Online(n) => {
                let r = self.cluster.set_online(NodeId(n));
                self.log.push(format!("online {r:?}"));
            }
            _ => {}
        }
        self.log.push(format!(
            "free {} busy {} offline {} queue {} busy-s {} releases {:?}",
            self.cluster.free_units(),
            self.cluster.busy_units(),
            self.cluster.offline_units(),
            self.cluster.queue_len(),
            self.cluster.busy_unit_seconds(),
            self.cluster.releases().collect::<Vec<_>>()
        ));
        changed
    }
}

proptest! {
    /// A tracked cluster names exactly the nodes the eager layout would, through starts, ends,
    /// preemptions, resizes, drains and node operations.
    #[test]
    fn tracked_nodes_match_the_eager_layout(
        (capacity, ops) in (1u32..10).prop_flat_map(|c| (Just(c), ops(c, true)))
    ) {
        let mut driver = Driver::new(BatchCluster::new(capacity).unwrap());
        let mut eager = Eager::new(capacity);
        for (t, op) in ops.iter().enumerate() {
            let now = Time(t as i64 * 100);
            // Node operations first on the model, in the order the cluster sees them.
            let before: Vec<NodeState> = (0..capacity)
                .map(|n| driver.cluster.node_state(NodeId(n)).unwrap())
                .collect();
            for (job, size) in driver.apply(now, op) {
                match size {
                    None => eager.end(job),
                    Some(_) if eager.jobs.contains_key(&job) => {
                        eager.resize(job, driver.cluster.job_nodes(job).unwrap().len() as u32)
                    }
                    Some(size) => eager.start(job, size),
                }
            }
            match *op {
                Op::Offline(n) if matches!(before[n as usize], NodeState::Idle | NodeState::Busy(_)) => {
                    eager.set_offline(NodeId(n))
                }
                Op::Online(n) if matches!(before[n as usize], NodeState::Offline | NodeState::Draining(_)) => {
                    eager.set_online(NodeId(n))
                }
                _ => {}
            }
            for n in 0..capacity {
                prop_assert_eq!(driver.cluster.node_state(NodeId(n)).unwrap(), eager.slots[n as usize]);
            }
            for (job, nodes) in &eager.jobs {
                prop_assert_eq!(driver.cluster.job_nodes(*job).unwrap(), &nodes[..]);
            }
            prop_assert_eq!(driver.cluster.free_units() as usize, eager.free.len());
        }
    }

    /// Without node operations, a counted cluster behaves exactly like a tracked one.
    #[test]
    fn counted_units_match_tracked_nodes(
        (capacity, ops) in (1u32..12).prop_flat_map(|c| (Just(c), ops(c, false)))
    ) {
        let mut tracked = Driver::new(BatchCluster::new(capacity).unwrap());
        let mut counted = Driver::new(BatchCluster::counted(capacity).unwrap());
        for (t, op) in ops.iter().enumerate() {
            let now = Time(t as i64 * 100);
            tracked.apply(now, op);
            counted.apply(now, op);
        }
        prop_assert_eq!(tracked.log, counted.log);
    }
}

#[test]
fn counted_clusters_refuse_to_name_nodes() {
    let mut c = BatchCluster::counted(8).unwrap();
    assert!(!c.tracks_nodes());
    assert_eq!(c.set_offline(NodeId(0)), Err(BatchError::NodesNotTracked));
    assert_eq!(c.set_online(NodeId(0)), Err(BatchError::NodesNotTracked));
    assert_eq!(c.node_state(NodeId(0)), Err(BatchError::NodesNotTracked));
    assert!(c.node_statuses(Time(0)).is_empty());
}

/// Hostile input #4: the largest capacity, tracked, holds only the nodes its jobs use.
#[test]
fn a_tracked_cluster_of_u32_max_units_names_the_nodes_it_uses() {
    let mut c = BatchCluster::new(u32::MAX).unwrap();
    c.submit(BatchJob {
        id: JobId(1),
        submit: Time(0),
        size: 3,
        runtime: Duration(10),
        estimate: Duration(10),
        class: JobClass::Rigid,
        resizable: None,
    })
    .unwrap();
    let mut started = Vec::new();
    c.schedule(Time(0), &mut Fcfs, &mut started);
    assert_eq!(
        c.job_nodes(JobId(1)).unwrap(),
        &[NodeId(2), NodeId(1), NodeId(0)]
    );
    assert_eq!(c.free_units(), u32::MAX - 3);
    assert_eq!(c.node_state(NodeId(u32::MAX - 1)), Ok(NodeState::Idle));
    assert_eq!(c.node_state(NodeId(1)), Ok(NodeState::Busy(JobId(1))));
    // Taking a never-used node offline keeps the others' order.
    c.set_offline(NodeId(5)).unwrap();
    c.complete(Time(10), started[0].token).unwrap();
    assert_eq!(c.free_units(), u32::MAX - 1);
}
