//! # cosched-batch
//!
//! A batch resource manager for a cluster of identical units, its scheduling policies (FCFS,
//! EASY backfilling, conservative backfilling), and a trace-driven simulator.
//!
//! The paper crates embed [`BatchCluster`] as their batch system and drive it with the
//! operations it exposes as first-class API: node drain/offline/online, per-node status with
//! remaining walltime, preemption with requeue, malleable shrink/expand, and predicted start
//! times. Batch policies speak the core protocol ([`cosched_core::policy::Policy`]; see
//! [`pass`]): a [`SchedulingPass`] observation and a read-only view of the cluster in,
//! [`BatchCommand`]s that start jobs out. [`BatchSim`] and [`BatchCluster::schedule`] run any
//! such policy; the built-in ones are constructed in [`scenario`], which also shows how to
//! write your own.
//!
//! ## Semantics of a trace simulation
//! - size = requested processors (SWF field 8) if > 0, else allocated processors (field 5);
//!   estimate = requested time (field 9) if > 0, else run time (field 4) — see
//!   `cosched_workload::swf`;
//! - the simulated run time is `min(runtime, estimate)`: a job is killed at its estimate;
//! - jobs with run time < 0 or size 0 are skipped and counted invalid; a job larger than the
//!   capacity is rejected (never started) and counted;
//! - at each instant: all completions, then all arrivals in job-id order, then one pass;
//! - EASY backfilling exactly as in [`scheduler`]'s module docs.
//!
//! ```
//! use cosched_batch::{BatchSim, scenario};
//! use cosched_core::{Duration, JobId, RigidJob, Time};
//! let jobs: Vec<RigidJob> = (0..4)
//!     .map(|i| RigidJob::new(JobId(i), Time(i as i64), 2, Duration(100), Duration(100)).unwrap())
//!     .collect();
//! let out = BatchSim::new(4).unwrap().run(&mut scenario::easy(), &jobs).unwrap();
//! assert_eq!(out.report.completed, 4);
//! assert_eq!(out.report.last_end_s, 201);
//! ```

pub mod catalogue;
pub mod cluster;
pub mod conservative;
mod error;
pub mod order;
pub mod pass;
mod profile;
mod queue;
mod releases;
pub mod scenario;
pub mod scheduler;
pub mod sim;

pub use cluster::{
    BatchCluster, BatchJob, ClusterSnapshot, OfflineOutcome, QueuedJob, Resume, RunToken, Shadow,
    SizeRange, Started, Submitted, admit,
};
pub use conservative::{Bounds, Conservative};
pub use error::{BatchError, RecordFailure};
pub use pass::{BatchCommand, BatchPolicy, Pass, SchedulingPass};
pub use scheduler::{Easy, Fcfs, HeadReservation};
pub use sim::{BatchSim, ClusterPass, SimError, SimOutcome, SimStats};
