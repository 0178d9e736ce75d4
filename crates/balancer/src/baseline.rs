//! The static baselines of the paper's Table I (§III-A), as policies of the same protocol as
//! the Balancer: a dedicated on-demand pool of fixed size that never lends a node to batch.
//!
//! - all-batch: a pool of 0 nodes; every request is rejected (the batch wait's lower bound);
//! - split: the paper's 304 batch + 68 on-demand nodes;
//! - all-on-demand: every node in the pool; no batch job runs.
//!
//! A request is granted when the pool has its nodes free, otherwise it waits up to `W` for
//! releases (oldest first, any request that fits) and is rejected when `W` expires (at once
//! when `W = 0`).

use crate::BalancerError;
use crate::policy::{BalancerNodeState, Command, Observation, Policy, RmNode, wait_within};
use cosched_core::{Duration, LeaseId, NodeId, ParamError, Time};
use serde::{Deserialize, Serialize};

/// A fixed on-demand pool: the last `pool` of the cluster's nodes.
///
/// ```
/// use cosched_balancer::baseline::StaticSplit;
/// use cosched_balancer::policy::{Command, Observation, Policy, RmNode, RmNodeState};
/// use cosched_core::{Duration, LeaseId, NodeId, Time};
/// let nodes: Vec<RmNode> = (0..4)
///     .map(|i| RmNode { name: format!("n{i}"), state: RmNodeState::BatchIdle })
///     .collect();
/// let mut split = StaticSplit::new(1, Duration::ZERO);
/// let mut out = Vec::new();
/// split.start(Time(0), nodes.as_slice(), &mut out).unwrap();
/// assert_eq!(out, vec![Command::Reclaim(NodeId(3))]);
/// let ask = |n| Observation::Request { request: LeaseId(n), nodes: 1, wait: None };
/// out.clear();
/// split.observe(Time(0), &ask(0), nodes.as_slice(), &mut out).unwrap();
/// assert!(matches!(out[0], Command::Grant { .. }));
/// out.clear();
/// split.observe(Time(0), &ask(1), nodes.as_slice(), &mut out).unwrap();
/// assert_eq!(out, vec![Command::Reject { request: LeaseId(1) }]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaticSplit {
    /// The pool's size.
    pool: u32,
    nodes: u32,
    window: Duration,
    /// Free pool nodes.
    free: Vec<NodeId>,
    allocated: Vec<bool>,
    /// Waiting requests: (request, nodes, deadline), oldest first.
    waiting: Vec<(LeaseId, u32, Time)>,
}

impl StaticSplit {
    /// A pool of the last `pool` nodes of the cluster it is started on, requests waiting up to
    /// `window` (`W`); [`Policy::start`] takes the pool out of batch.
    pub fn new(pool: u32, window: Duration) -> StaticSplit {
        StaticSplit {
            pool,
            nodes: 0,
            window,
            free: Vec::new(),
            allocated: Vec::new(),
            waiting: Vec::new(),
        }
    }

    /// The pool's size.
    pub fn pool(&self) -> u32 {
        self.pool
    }

    fn in_pool(&self, node: NodeId) -> bool {
        node.0 >= self.nodes - self.pool && node.0 < self.nodes
    }

    fn grant(&mut self, request: LeaseId, nodes: u32) -> Command {
        let at = self.free.len() - nodes as usize;
        let granted = self.free.split_off(at);
        for n in &granted {
            self.allocated[n.index()] = true;
        }
        Command::Grant {
            request,
            nodes: granted,
        }
    }

    /// A node's state as the split sees it: pool nodes `OD_Alloc` or `OD_Reserve`; the batch
    /// side is not tracked, so its nodes read `OA_Idle` (`None` past the end).
    pub fn node_state(&self, node: NodeId) -> Option<BalancerNodeState> {
        if node.0 >= self.nodes {
            return None;
        }
        Some(if self.allocated[node.index()] {
            BalancerNodeState::OdAlloc
        } else if self.in_pool(node) {
            BalancerNodeState::OdReserve
        } else {
            BalancerNodeState::OaIdle
        })
    }
}

impl Policy for StaticSplit {
    type Observation = Observation;
    type Command = Command;
    type View = [RmNode];
    type Error = BalancerError;

    fn start(
        &mut self,
        _now: Time,
        view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), BalancerError> {
        let nodes = u32::try_from(view.len())
            .map_err(|_| ParamError::new("nodes", view.len(), "at most 2^32 - 1"))?;
        ParamError::check(nodes >= 1, "nodes", nodes, "a cluster needs >= 1 node")?;
        ParamError::check(
            self.pool <= nodes,
            "on_demand_nodes",
            self.pool,
            "must be <= nodes",
        )?;
        ParamError::check(self.window.0 >= 0, "W", self.window.0, "must be >= 0")?;
        self.nodes = nodes;
        self.free = (nodes - self.pool..nodes).map(NodeId).collect();
        self.allocated = vec![false; nodes as usize];
        self.waiting.clear();
        out.extend(self.free.iter().map(|&n| Command::Reclaim(n)));
        Ok(())
    }

    fn observe(
        &mut self,
        now: Time,
        observation: &Observation,
        _view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), BalancerError> {
        match *observation {
            Observation::Request {
                request,
                nodes,
                wait,
            } => {
                ParamError::check(nodes >= 1, "nodes", nodes, "a request needs >= 1 node")?;
                let window = wait_within(wait, self.window)?;
                if nodes as usize <= self.free.len() {
                    out.push(self.grant(request, nodes));
                } else if window > Duration::ZERO {
                    let deadline = now.saturating_add(window);
                    self.waiting.push((request, nodes, deadline));
                } else {
                    out.push(Command::Reject { request });
                }
            }
            Observation::Cancel { request } => {
                let before = self.waiting.len();
                self.waiting.retain(|w| w.0 != request);
                if self.waiting.len() == before {
                    return Err(BalancerError::UnknownRequest(request));
                }
            }
            Observation::Release { ref nodes } => {
                for (i, &n) in nodes.iter().enumerate() {
                    if !self.allocated.get(n.index()).copied().unwrap_or(false)
                        || nodes[..i].contains(&n)
                    {
                        return Err(BalancerError::NotAllocated(n));
                    }
                }
                for &n in nodes {
                    self.allocated[n.index()] = false;
                    self.free.push(n);
                }
                let mut i = 0;
                while i < self.waiting.len() {
                    let (request, nodes, _) = self.waiting[i];
                    if nodes as usize <= self.free.len() {
                        self.waiting.remove(i);
                        out.push(self.grant(request, nodes));
                    } else {
                        i += 1;
                    }
                }
            }
            Observation::JobStarting { ref nodes } => {
                if let Some(&node) = nodes.iter().find(|&&n| self.in_pool(n)) {
                    return Err(BalancerError::NodeReclaimed {
                        node,
                        state: BalancerNodeState::OdReserve,
                    });
                }
            }
            Observation::JobEnded { .. }
            | Observation::Hint { .. }
            | Observation::ReserveTarget { .. }
            | Observation::Availability { .. } => {}
        }
        Ok(())
    }

    /// Rejects the requests whose wait ran out.
    fn wake(
        &mut self,
        now: Time,
        _view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), BalancerError> {
        self.waiting.retain(|&(request, _, deadline)| {
            let expired = deadline <= now;
            if expired {
                out.push(Command::Reject { request });
            }
            !expired
        });
        Ok(())
    }

    fn next_wake(&self) -> Option<Time> {
        self.waiting.iter().map(|w| w.2).min()
    }
}
