//! Errors of the hybrid-scheduling mechanisms.

use cosched_batch::BatchError;
use cosched_core::engine::EngineError;
use cosched_core::{JobId, NodeId, ParamError, TimeOverflow};
use thiserror::Error;

/// Why a mechanism refused its input or could not apply its decisions.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HybridError {
    /// A parameter out of range (a running job of size 0, a minimum above its size, …).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The batch cluster refused an operation.
    #[error(transparent)]
    Batch(#[from] BatchError),
    /// The same job id appears twice (in the workload, or in the view of running jobs).
    #[error("{0} appears more than once (in the workload or among the running jobs)")]
    DuplicateJob(JobId),
    /// A time the workload implies passes the largest representable instant.
    #[error(transparent)]
    Time(#[from] TimeOverflow),
    /// The simulation kernel refused an event.
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A decision names a job missing from the view of running jobs.
    #[error("{0} is not among the running jobs the decisions were made for")]
    UnknownJob(JobId),
    /// A command names a batch job that is not running.
    #[error("{0} is not running")]
    NotRunning(JobId),
    /// A command hands an on-demand job a node that is not reserved for it.
    #[error("{node} is not reserved for {job}")]
    NotReserved {
        /// The on-demand job.
        job: JobId,
        /// The node.
        node: NodeId,
    },
    /// A command starts an on-demand job that does not hold exactly its size, or runs.
    #[error("{job} cannot start: it holds {held} of its {size} nodes or runs already")]
    CannotStart {
        /// The on-demand job.
        job: JobId,
        /// Nodes it holds.
        held: usize,
        /// Its size.
        size: u32,
    },
    /// A shrink of a rigid job, or to a size outside the job's current `min_size..=size`.
    #[error("{job} cannot be shrunk to {to} units")]
    BadShrink {
        /// The job.
        job: JobId,
        /// The size asked for.
        to: u32,
    },
}

/// Why a simulation stopped: the platform refused something (a command naming a job that does
/// not run, a time overflow, …), or the policy failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SimError<E> {
    /// The environment or a command applied to it.
    #[error(transparent)]
    Platform(#[from] HybridError),
    /// The policy returned an error.
    #[error("policy: {0}")]
    Policy(#[source] E),
}

impl<E> From<EngineError> for SimError<E> {
    fn from(e: EngineError) -> Self {
        SimError::Platform(HybridError::Engine(e))
    }
}

impl SimError<HybridError> {
    /// The one error, for a policy that fails with [`HybridError`].
    pub fn flatten(self) -> HybridError {
        match self {
            SimError::Platform(e) | SimError::Policy(e) => e,
        }
    }
}

/// Lets a policy that cannot fail run where this error is asked for.
impl From<std::convert::Infallible> for HybridError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}
