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
use crate::policy::{BalancerNodeState, Command, Observation, Policy};
use cosched_core::{Duration, LeaseId, NodeId, ParamError, Time};
use serde::{Deserialize, Serialize};

/// A fixed on-demand pool: the last `pool` of `nodes` nodes.
///
/// ```
/// use cosched_balancer::baseline::StaticSplit;
/// use cosched_balancer::policy::{Command, Observation, Policy};
/// use cosched_core::{Duration, LeaseId, NodeId, Time};
/// let (mut split, commands) = StaticSplit::start(4, 1, Duration::ZERO).unwrap();
/// assert_eq!(commands, vec![Command::Reclaim(NodeId(3))]);
/// let ask = |n| Observation::Request { request: LeaseId(n), nodes: 1 };
/// assert!(matches!(split.observe(Time(0), ask(0)).unwrap()[0], Command::Grant { .. }));
/// assert_eq!(split.observe(Time(0), ask(1)).unwrap(), vec![Command::Reject { request: LeaseId(1) }]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaticSplit {
    nodes: u32,
    window: Duration,
    /// Free pool nodes.
    free: Vec<NodeId>,
    allocated: Vec<bool>,
    /// Waiting requests: (request, nodes, deadline), oldest first.
    waiting: Vec<(LeaseId, u32, Time)>,
}

impl StaticSplit {
    /// A pool of the last `pool` of `nodes` nodes, requests waiting up to `window`; the
    /// commands take the pool out of batch.
    pub fn start(
        nodes: u32,
        pool: u32,
        window: Duration,
    ) -> Result<(StaticSplit, Vec<Command>), ParamError> {
        ParamError::check(nodes >= 1, "nodes", nodes, "a cluster needs >= 1 node")?;
        ParamError::check(pool <= nodes, "on_demand_nodes", pool, "must be <= nodes")?;
        ParamError::check(window.0 >= 0, "W", window.0, "must be >= 0")?;
        let free: Vec<NodeId> = (nodes - pool..nodes).map(NodeId).collect();
        let commands = free.iter().map(|&n| Command::Reclaim(n)).collect();
        Ok((
            StaticSplit {
                nodes,
                window,
                free,
                allocated: vec![false; nodes as usize],
                waiting: Vec::new(),
            },
            commands,
        ))
    }

    fn in_pool(&self, node: NodeId) -> bool {
        node.0 >= self.nodes - self.pool_size() && node.0 < self.nodes
    }

    fn pool_size(&self) -> u32 {
        (self.free.len() + self.allocated.iter().filter(|&&a| a).count()) as u32
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
}

impl Policy for StaticSplit {
    fn observe(
        &mut self,
        now: Time,
        observation: Observation<'_>,
    ) -> Result<Vec<Command>, BalancerError> {
        let mut out = Vec::new();
        match observation {
            Observation::Request { request, nodes } => {
                ParamError::check(nodes >= 1, "nodes", nodes, "a request needs >= 1 node")?;
                if nodes as usize <= self.free.len() {
                    out.push(self.grant(request, nodes));
                } else if self.window > Duration::ZERO {
                    let deadline = now.saturating_add(self.window);
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
            Observation::Release { nodes } => {
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
            Observation::JobStarting { nodes } => {
                if let Some(&node) = nodes.iter().find(|&&n| self.in_pool(n)) {
                    return Err(BalancerError::NodeReclaimed {
                        node,
                        state: BalancerNodeState::OdReserve,
                    });
                }
            }
            Observation::Tick => {
                self.waiting.retain(|&(request, _, deadline)| {
                    let expired = deadline <= now;
                    if expired {
                        out.push(Command::Reject { request });
                    }
                    !expired
                });
            }
            Observation::JobEnded { .. }
            | Observation::Hint { .. }
            | Observation::ReserveTarget { .. }
            | Observation::Availability { .. } => {}
        }
        Ok(out)
    }

    fn next_deadline(&self) -> Option<Time> {
        self.waiting.iter().map(|w| w.2).min()
    }

    /// Pool nodes are `OD_Alloc` or `OD_Reserve`; the batch side is not tracked by a static
    /// split, so its nodes all read `OA_Idle`.
    fn node_state(&self, node: NodeId) -> Option<BalancerNodeState> {
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

    fn reserve_idle(&self) -> u32 {
        self.free.len() as u32
    }
}
