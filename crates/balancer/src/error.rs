//! Errors of the Balancer.

use crate::BalancerNodeState;
use cosched_core::{NodeId, ParamError};
use thiserror::Error;

/// Why the Balancer refused a call.
///
/// Refusals of the caller's input ([`BalancerError::Param`], [`BalancerError::NodeReclaimed`],
/// [`BalancerError::NotAllocated`], [`BalancerError::NoJob`], [`BalancerError::UnknownNode`],
/// [`BalancerError::HintsDisabled`]) leave the Balancer unchanged. An
/// [`BalancerError::Oarm`] or [`BalancerError::OutOfSync`] means the batch resource manager
/// disagreed with the Balancer's view mid-call; the two should be resynchronised.
#[derive(Debug, Error)]
pub enum BalancerError {
    /// A parameter out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The batch resource manager wants to start a job on a node the Balancer holds or is
    /// reclaiming: the job must go elsewhere (this refusal is what closes the start/reclaim
    /// race).
    #[error("cannot start a batch job on {node}: the Balancer holds it ({state:?})")]
    NodeReclaimed {
        /// The node.
        node: NodeId,
        /// Its state in the Balancer.
        state: BalancerNodeState,
    },
    /// A job end was reported on a node that runs no batch job in the Balancer's view.
    #[error("{node} runs no batch job (it is {state:?})")]
    NoJob {
        /// The node.
        node: NodeId,
        /// Its state in the Balancer.
        state: BalancerNodeState,
    },
    /// A release of a node that is not allocated to on-demand work (or named twice).
    #[error("{0} is not allocated to on-demand work")]
    NotAllocated(NodeId),
    /// No such node.
    #[error("{0} does not exist")]
    UnknownNode(NodeId),
    /// `add_reserve` under the Basic strategy, which keeps a static reserve instead.
    #[error("reserve hints need the hinted strategy; Basic keeps a static reserve")]
    HintsDisabled,
    /// The batch resource manager refused an operation.
    #[error("the batch resource manager refused an operation on {node}: {source}")]
    Oarm {
        /// The node.
        node: NodeId,
        /// Its error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The batch resource manager reports a node in a state the Balancer did not expect.
    #[error("the batch resource manager's view of {node} disagrees with the Balancer's: {what}")]
    OutOfSync {
        /// The node.
        node: NodeId,
        /// What disagreed.
        what: &'static str,
    },
}
