//! The Balancer's OARM edge on Slurm: reclaim = drain, restore = resume, status = `sinfo`.
//!
//! A node the Balancer reclaimed carries the drain reason [`SlurmOarm::reason`], which is how a
//! restarted service (or an operator) tells the Balancer's nodes from those an administrator
//! drained. Draining never kills a job: a node that is running one keeps it and drains when it
//! ends (the executor waits for that before it hands the node to on-demand work).

use cosched_balancer::oarm::Oarm;
use cosched_balancer::policy::RmNodeState;
use cosched_core::NodeId;
use cosched_slurm::{NodeInfo, NodeState, Slurm, SlurmError};

/// The drain reason that marks a node as the Balancer's.
pub const DEFAULT_REASON: &str = "cosched-balancer";

/// Slurm as the Balancer's batch resource manager.
#[derive(Debug, Clone)]
pub struct SlurmOarm {
    slurm: Slurm,
    reason: String,
}

impl SlurmOarm {
    /// The cluster `slurm`, marking reclaimed nodes with [`DEFAULT_REASON`].
    pub fn new(slurm: Slurm) -> Self {
        SlurmOarm {
            slurm,
            reason: DEFAULT_REASON.to_owned(),
        }
    }

    /// The drain reason of the Balancer's nodes.
    pub fn reason(&self) -> &str {
        &self.reason
    }

    /// The client.
    pub fn slurm(&self) -> &Slurm {
        &self.slurm
    }

    /// Whether Slurm shows `node` as drained (or draining) by the Balancer.
    pub fn is_ours(&self, node: &NodeInfo) -> bool {
        node.state.is_reclaimed() && node.reason.as_deref() == Some(self.reason.as_str())
    }

    /// What `node`'s Slurm state means to the Balancer: drained by the Balancer is on-demand
    /// (free: which of them are allocated is the service's own record); drained, down or not
    /// responding for any other reason is unavailable, never adopted.
    pub fn rm_state(&self, node: &NodeInfo) -> RmNodeState {
        if self.is_ours(node) {
            return RmNodeState::OnDemandFree;
        }
        if node.not_responding {
            return RmNodeState::Unavailable;
        }
        match node.state {
            NodeState::Idle => RmNodeState::BatchIdle,
            NodeState::Allocated | NodeState::Mixed | NodeState::Completing => {
                RmNodeState::BatchBusy
            }
            _ => RmNodeState::Unavailable,
        }
    }
}

impl Oarm for SlurmOarm {
    type Error = SlurmError;

    fn reclaim_node(&mut self, _node: NodeId, name: &str) -> Result<(), SlurmError> {
        self.slurm.drain(name, &self.reason)
    }

    fn restore_node(&mut self, _node: NodeId, name: &str) -> Result<(), SlurmError> {
        self.slurm.resume(name)
    }
}

impl crate::engine::LiveCluster for SlurmOarm {
    fn report(&self) -> Result<Vec<crate::engine::NodeReport>, SlurmError> {
        Ok(self
            .slurm
            .nodes()?
            .iter()
            .map(|n| crate::engine::NodeReport {
                name: n.name.clone(),
                state: self.rm_state(n),
                settled: self.is_ours(n) && n.state == NodeState::Drained,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(state: NodeState, reason: Option<&str>, not_responding: bool) -> NodeInfo {
        NodeInfo {
            name: "n1".into(),
            state,
            not_responding,
            reason: reason.map(str::to_owned),
        }
    }

    #[test]
    fn slurm_states_map_to_the_balancers_view() {
        let o = SlurmOarm::new(Slurm::system());
        let ours = Some(DEFAULT_REASON);
        assert_eq!(
            o.rm_state(&node(NodeState::Drained, ours, false)),
            RmNodeState::OnDemandFree
        );
        assert_eq!(
            o.rm_state(&node(NodeState::Draining, ours, false)),
            RmNodeState::OnDemandFree
        );
        assert_eq!(
            o.rm_state(&node(NodeState::Drained, Some("disk"), false)),
            RmNodeState::Unavailable
        );
        assert_eq!(
            o.rm_state(&node(NodeState::Idle, None, true)),
            RmNodeState::Unavailable
        );
        assert_eq!(
            o.rm_state(&node(NodeState::Down, None, false)),
            RmNodeState::Unavailable
        );
        assert_eq!(
            o.rm_state(&node(NodeState::Mixed, None, false)),
            RmNodeState::BatchBusy
        );
        assert_eq!(
            o.rm_state(&node(NodeState::Idle, None, false)),
            RmNodeState::BatchIdle
        );
    }
}
