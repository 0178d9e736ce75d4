//! Errors of the batch resource manager.

use cosched_core::driver::{CallError, CallKind};
use cosched_core::engine::EngineError;
use cosched_core::policy::RecordError;
use cosched_core::{Duration, JobId, NodeId, ParamError, Time};
use cosched_workload::admit::DuplicateJobId;
use thiserror::Error;

/// Why a batch operation was refused. The cluster is unchanged when one is returned.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BatchError {
    /// A parameter out of range (capacity 0, job size 0, negative run time, …).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The job is not running.
    #[error("{0} is not running")]
    NotRunning(JobId),
    /// The job is not waiting in the queue.
    #[error("{0} is not queued")]
    NotQueued(JobId),
    /// The job id is already in use.
    #[error("{0} appears more than once")]
    DuplicateJob(JobId),
    /// A resize of a rigid job.
    #[error("{0} is not malleable")]
    NotResizable(JobId),
    /// A resize outside the job's size range.
    #[error("{job} cannot run on {size} units (allowed {min}..={max})")]
    SizeOutOfRange {
        /// The job.
        job: JobId,
        /// The size asked for.
        size: u32,
        /// Its smallest size.
        min: u32,
        /// Its largest size.
        max: u32,
    },
    /// Not enough idle units for a start or an expansion.
    #[error("{needed} units needed but only {free} are free")]
    NotEnoughFreeUnits {
        /// Units asked for.
        needed: u32,
        /// Idle online units.
        free: u32,
    },
    /// No such node.
    #[error("{0} does not exist")]
    UnknownNode(NodeId),
    /// The node is already offline or draining.
    #[error("{0} is already offline or draining")]
    NodeAlreadyOffline(NodeId),
    /// The node is online (idle or busy) and not draining.
    #[error("{0} is not offline or draining")]
    NodeNotOffline(NodeId),
    /// A policy asked for a queue entry that does not exist or already started this pass.
    #[error("queue entry {0} does not exist or already started in this pass")]
    NotStartable(usize),
    /// A start (or resize) whose end would pass the last representable second (i64).
    #[error(
        "{job} cannot start at {start}: with estimate {estimate} it would end after the last representable second"
    )]
    EndOverflow {
        /// The job.
        job: JobId,
        /// When it would have started.
        start: Time,
        /// The estimate (remaining, after a resize) that overflows.
        estimate: Duration,
    },
    /// A node-level operation on a cluster that only counts units
    /// ([`crate::BatchCluster::counted`]).
    #[error("this cluster counts units without node identities (use BatchCluster::new)")]
    NodesNotTracked,
    /// The event engine refused an event (a time before the clock, or past i64).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A batch policy driven inside another executor (the Balancer's, metasched's and
    /// hybrid's simulators) failed: which call, when, and its error.
    #[error("the batch policy failed in `{call}` at {time}: {source}")]
    Policy {
        /// The call.
        call: CallKind,
        /// Its time.
        time: Time,
        /// The policy's error.
        source: Box<BatchError>,
    },
    /// A batch policy was still due after the driver's round limit (see
    /// [`cosched_core::driver::CallError::Rounds`]).
    #[error("the batch policy still asked for `{call}` at {time} after {rounds} calls in a row")]
    Rounds {
        /// The call repeated.
        call: CallKind,
        /// The instant.
        time: Time,
        /// The calls made.
        rounds: u32,
    },
    /// A policy's queue order could not rank a job (an expression that gives no number).
    #[error(transparent)]
    Order(#[from] crate::order::OrderError),
    /// A policy run under a [`Recorder`](cosched_core::policy::Recorder) could not record a call.
    #[error("recording step {step}: {failure}")]
    Recording {
        /// The step.
        step: u64,
        /// What failed.
        failure: RecordFailure,
    },
}

/// Why a [`Recorder`](cosched_core::policy::Recorder) could not record a step (the kinds of its [`RecordError`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum RecordFailure {
    /// The step could not be encoded as JSON.
    #[error("cannot encode as JSON ({0:?})")]
    Encode(serde_json::error::Category),
    /// The step could not be written.
    #[error("cannot write: {0}")]
    Write(std::io::ErrorKind),
}

/// Lets a batch policy run under a [`Recorder`](cosched_core::policy::Recorder) in the executors: the policy's own error as
/// it was, a recording failure as [`BatchError::Recording`].
impl From<RecordError<BatchError>> for BatchError {
    fn from(e: RecordError<BatchError>) -> Self {
        match e {
            RecordError::Policy(e) => e,
            RecordError::Encode { step, source } => BatchError::Recording {
                step,
                failure: RecordFailure::Encode(source.classify()),
            },
            RecordError::Write { step, source } => BatchError::Recording {
                step,
                failure: RecordFailure::Write(source.kind()),
            },
        }
    }
}

impl From<DuplicateJobId> for BatchError {
    fn from(e: DuplicateJobId) -> Self {
        BatchError::DuplicateJob(e.0)
    }
}

/// Lets a policy that cannot fail ([`std::convert::Infallible`] errors) run in the executors.
impl From<std::convert::Infallible> for BatchError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}

/// A driven batch policy's failure as a [`BatchError`]: the call and time kept, the policy's
/// error converted.
impl<E: Into<BatchError>> From<CallError<E>> for BatchError {
    fn from(e: CallError<E>) -> Self {
        match e {
            CallError::Policy { call, time, source } => BatchError::Policy {
                call,
                time,
                source: Box::new(source.into()),
            },
            CallError::Rounds { call, time, rounds } => BatchError::Rounds { call, time, rounds },
        }
    }
}
