//! Node states and pools.
//!
//! A node belongs to exactly one [`Pool`] at a time and is in exactly one [`NodeState`]. The
//! batch resource manager uses the states directly; the Balancer and Albatross move nodes
//! between pools.

use crate::{Duration, JobId};
use serde::{Deserialize, Serialize};

/// Which consumer a node currently serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Pool {
    /// The batch (on-availability) resource manager.
    Batch,
    /// The on-demand resource manager (leases that must start within a window).
    OnDemand,
    /// Scavenged capacity: volunteer VMs or desktops usable only while their owner is idle.
    Volunteer,
    /// Rented cloud capacity started on demand.
    Cloud,
}

/// What a node is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NodeState {
    /// Online with nothing running: can start a job.
    Idle,
    /// Running a job.
    Busy(JobId),
    /// Running a job, and will go offline (not idle) when that job ends.
    Draining(JobId),
    /// Not usable by this pool's scheduler (given away, failed or powered off).
    Offline,
}

impl NodeState {
    /// The job on the node, if any.
    pub const fn job(self) -> Option<JobId> {
        match self {
            NodeState::Busy(j) | NodeState::Draining(j) => Some(j),
            NodeState::Idle | NodeState::Offline => None,
        }
    }

    /// Whether a job could be started on the node now.
    pub const fn is_idle(self) -> bool {
        matches!(self, NodeState::Idle)
    }
}

/// A node's state as a resource manager reports it to an outside controller (for instance the
/// Balancer's `get_status_of_all_nodes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NodeStatus {
    /// The node.
    pub node: crate::NodeId,
    /// Its state.
    pub state: NodeState,
    /// For a busy or draining node, the job's remaining walltime (predicted end − now, at
    /// least zero): the longest the node can stay busy.
    pub remaining_walltime: Option<Duration>,
}
