//! The site's errors.

use cosched_core::{EngineError, JobId, LeaseId, NodeId, ParamError};
use thiserror::Error;

/// Why a site could not be built or run.
#[derive(Debug, Error)]
pub enum SiteError {
    /// A parameter out of range (names the parameter and the value).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The event kernel refused an event (a time past the end of the clock).
    #[error("event kernel: {0}")]
    Engine(#[from] EngineError),
    /// An event scheduled before the clock (an input out of order).
    #[error("event kernel: {0}")]
    Past(#[from] cosched_core::ScheduleInPast),
    /// The batch cluster refused an operation.
    #[error("batch cluster: {0}")]
    Batch(#[from] cosched_batch::BatchError),
    /// The hybrid mechanism refused its input.
    #[error("hybrid mechanism: {0}")]
    Hybrid(#[from] cosched_hybrid::HybridError),
    /// A Balancer-protocol policy failed.
    #[error("on-demand role (Balancer protocol): {0}")]
    Balancer(#[from] cosched_balancer::BalancerError),
    /// A role's own policy failed (a downstream policy's error, as text).
    #[error("{role} role: {message}")]
    Role {
        /// Which role.
        role: &'static str,
        /// Its error.
        message: String,
    },
    /// A ClassAd of the scavenged workload did not parse.
    #[error("scavenged workload ClassAd `{ad}`: {message}")]
    ClassAd {
        /// The ad's source.
        ad: String,
        /// The parser's error.
        message: String,
    },
    /// A node number outside the site.
    #[error("{0} is not a node of the site")]
    UnknownNode(NodeId),
    /// A role asked for a node that is not idle in the batch pool.
    #[error("{0} is not idle in the batch pool")]
    NotIdle(NodeId),
    /// A role named a node that does not serve it.
    #[error("{node} does not serve the on-demand pool (it is {state})")]
    NotOnDemand {
        /// The node.
        node: NodeId,
        /// What it does.
        state: String,
    },
    /// A command named a lease the site does not know or that is not waiting.
    #[error("{0} is not waiting for nodes")]
    LeaseNotWaiting(LeaseId),
    /// A grant with the wrong number of nodes.
    #[error("{lease} needs {needed} nodes, the grant names {given}")]
    GrantSize {
        /// The lease.
        lease: LeaseId,
        /// Nodes it needs.
        needed: u32,
        /// Nodes granted.
        given: usize,
    },
    /// A command named a batch job that is not running.
    #[error("{0} is not a running batch job")]
    NotRunning(JobId),
    /// Two inputs with the same id.
    #[error("duplicate {what} id {id}")]
    Duplicate {
        /// Which input.
        what: &'static str,
        /// The id.
        id: u64,
    },
    /// A batch trace could not be read (the error names the file).
    #[error(transparent)]
    Swf(#[from] cosched_workload::swf::SwfError),
    /// An on-demand trace could not be read (the error names the file).
    #[error(transparent)]
    Trace(#[from] cosched_balancer::traces::TraceError),
    /// The Balancer's lease inputs were refused.
    #[error(transparent)]
    Leases(#[from] cosched_balancer::scenario::InputError),
}

impl SiteError {
    /// A downstream role's error.
    pub fn role(role: &'static str, error: impl std::fmt::Display) -> SiteError {
        SiteError::Role {
            role,
            message: error.to_string(),
        }
    }
}

/// Lets a policy that cannot fail run where this error is asked for.
impl From<std::convert::Infallible> for SiteError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}
