//! Errors of the Balancer.

use crate::BalancerNodeState;
use cosched_core::{LeaseId, NodeId, ParamError};
use thiserror::Error;

/// Why the Balancer refused a call.
///
/// Refusals of the caller's input ([`BalancerError::Param`], [`BalancerError::NodeReclaimed`],
/// [`BalancerError::NotAllocated`], [`BalancerError::NoJob`], [`BalancerError::UnknownNode`],
/// [`BalancerError::HintsDisabled`], ...) leave the Balancer unchanged: every observation is
/// checked before any state changes. After a disagreement with the resource managers, a live
/// executor rebuilds the Balancer from their node states with
/// [`cosched_core::policy::Policy::start`].
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
    /// `add_reserve` or a reserve target under the Basic strategy, which keeps a static
    /// reserve instead.
    #[error("reserve hints need the hinted strategy; Basic keeps a static reserve")]
    HintsDisabled,
    /// Two nodes with one hostname.
    #[error("two nodes are named {0:?}")]
    DuplicateName(String),
    /// A request id that is already waiting.
    #[error("{0} is already waiting")]
    DuplicateRequest(LeaseId),
    /// A cancellation or grant of a request that is not waiting.
    #[error("{0} is not waiting")]
    UnknownRequest(LeaseId),
}

/// Lets a policy that cannot fail run where this error is asked for.
impl From<std::convert::Infallible> for BalancerError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}
