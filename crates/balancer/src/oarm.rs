//! The interface the Balancer drives on the on-availability resource manager (OARM), as in
//! section III of Liu et al. (SC18): `reclaim_node`, `restore_node` and
//! `get_status_of_all_nodes`, and its implementation for [`BatchCluster`].

use cosched_batch::{BatchCluster, BatchError, OfflineOutcome};
use cosched_core::{NodeId, NodeStatus, Time};

/// A batch resource manager the Balancer can take nodes from and give them back to.
///
/// [`BatchCluster`] implements it; a live adapter (Slurm `scontrol update state=drain`,
/// Torque `pbsnodes -o`) could too.
pub trait Oarm {
    /// The resource manager's error.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Takes `node` away from batch: now if it is idle ([`OfflineOutcome::Offline`]), else
    /// when its job ends ([`OfflineOutcome::Draining`]); no job may start on it afterwards.
    fn reclaim_node(&mut self, node: NodeId) -> Result<OfflineOutcome, Self::Error>;

    /// Gives `node` back to batch: an offline node becomes idle, a draining one keeps its job
    /// and stops draining.
    fn restore_node(&mut self, node: NodeId) -> Result<(), Self::Error>;

    /// Every node's state (idle, busy, draining, offline) with the remaining walltime of its
    /// job, at `now`; node `i` at position `i`.
    fn get_status_of_all_nodes(&self, now: Time) -> Vec<NodeStatus>;
}

impl Oarm for BatchCluster {
    type Error = BatchError;

    fn reclaim_node(&mut self, node: NodeId) -> Result<OfflineOutcome, BatchError> {
        self.set_offline(node)
    }

    fn restore_node(&mut self, node: NodeId) -> Result<(), BatchError> {
        self.set_online(node)
    }

    fn get_status_of_all_nodes(&self, now: Time) -> Vec<NodeStatus> {
        self.node_statuses(now)
    }
}
