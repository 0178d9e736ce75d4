//! Errors of the hybrid-scheduling mechanisms.

use cosched_batch::BatchError;
use cosched_core::driver::{CallError, CallKind};
use cosched_core::engine::EngineError;
use cosched_core::{JobId, NodeId, ParamError, Time, TimeOverflow};
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
    /// A driven policy failed: which call, when, and its error
    /// ([`cosched_core::driver::CallError::Policy`]).
    #[error("the policy failed in `{call}` at {time}: {source}")]
    Policy {
        /// The call.
        call: CallKind,
        /// Its time.
        time: Time,
        /// The policy's error.
        source: Box<HybridError>,
    },
    /// A driven policy was still due after the driver's round limit
    /// ([`cosched_core::driver::CallError::Rounds`]).
    #[error("the policy still asked for `{call}` at {time} after {rounds} calls in a row")]
    Rounds {
        /// The call repeated.
        call: CallKind,
        /// The instant.
        time: Time,
        /// The calls made.
        rounds: u32,
    },
}

/// Why a simulation stopped: the platform refused something (a command naming a job that does
/// not run, a time overflow, …), or the policy failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SimError<E> {
    /// The environment or a command applied to it.
    #[error(transparent)]
    Platform(#[from] HybridError),
    /// The policy returned an error (or never quieted): the call, its time and the policy's
    /// error.
    #[error(transparent)]
    Policy(#[from] CallError<E>),
}

impl<E> From<EngineError> for SimError<E> {
    fn from(e: EngineError) -> Self {
        SimError::Platform(HybridError::Engine(e))
    }
}

impl<E: Into<HybridError>> SimError<E> {
    /// The one error, for a policy whose error converts into [`HybridError`] (the call and
    /// time kept, [`HybridError::Policy`]).
    pub fn flatten(self) -> HybridError {
        match self {
            SimError::Platform(e) => e,
            SimError::Policy(e) => e.into(),
        }
    }
}

/// A driven policy's failure as a [`HybridError`]: the call and time kept, the policy's error
/// converted.
impl<E: Into<HybridError>> From<CallError<E>> for HybridError {
    fn from(e: CallError<E>) -> Self {
        match e {
            CallError::Policy { call, time, source } => HybridError::Policy {
                call,
                time,
                source: Box::new(source.into()),
            },
            CallError::Rounds { call, time, rounds } => HybridError::Rounds { call, time, rounds },
        }
    }
}

/// Lets a policy that cannot fail run where this error is asked for.
impl From<std::convert::Infallible> for HybridError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}
