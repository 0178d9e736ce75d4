//! # cosched-core
//!
//! The shared vocabulary of the cosched workspace: every scheduling crate (the batch resource
//! manager and the five paper crates) speaks in these types, so their policies compose.
//!
//! - [`Time`] / [`Duration`]: integer seconds; [`JobId`], [`NodeId`], [`LeaseId`].
//! - [`NodeState`], [`Pool`], [`NodeStatus`]: what a node is doing and whom it serves.
//! - [`Policy`]: the one policy protocol (time and an observation in, commands out) that every
//!   crate's policies implement and every executor runs; [`policy::Recorder`] and
//!   [`policy::replay`] record and check a run.
//! - [`Driver`]: the one call loop every executor drives its policy with (calls, command
//!   buffers, wakes on the kernel, typed [`driver::CallError`]s).
//! - [`Lease`]: on-demand (start within a window `W`) and on-availability grants.
//! - Job models: [`RigidJob`], [`MalleableJob`], [`OnDemandJob`].
//! - [`EventQueue`] and the kernel [`engine::run`]: the deterministic discrete-event engine
//!   (time, class, insertion order; one [`Simulation::settle`] per instant) every simulator
//!   runs on.
//! - [`SeedStreams`]: named, independent, stable random streams (`stream("owners", i)`).
//! - [`stats`]: the one statistics convention (mean, sample sd, R-8 quantiles, multi-seed
//!   [`stats::Spread`]), on `statrs`.
//! - [`UsageLedger`]: held / busy / wasted unit-seconds per pool, utilisation over any window.
//! - [`metrics`]: wait, turnaround, bounded slowdown, utilization; [`Report`] and per-job CSV.
//!
//! Workloads (SWF, generators, admission) are the `cosched-workload` crate, and min-cost flow is
//! `cosched-flow`, so that this crate stays small: a policy embedded in a live service compiles
//! core and its policy, with serde, csv, rand/ChaCha and statrs as the only dependencies.
//!
//! ```
//! use cosched_core::{Duration, JobId, RigidJob, Time};
//! let job = RigidJob::new(JobId(1), Time(0), 4, Duration(50), Duration(60)).unwrap();
//! assert_eq!(job.submit + job.simulated_runtime(), Time(50));
//! ```

pub mod driver;
pub mod engine;
mod error;
mod ids;
pub mod job;
pub mod lease;
pub mod metrics;
pub mod node;
pub mod policy;
pub mod seed;
pub mod stats;
mod time;
pub mod usage;

pub use driver::{CallError, Driver, Executor};
pub use engine::{EngineError, Event, EventQueue, KernelStats, ScheduleInPast, Simulation};
pub use error::{EXCERPT_CHARS, ParamError, excerpt, shown};
pub use ids::{JobId, LeaseId, NodeId};
pub use job::{MalleableJob, NoticeCategory, OnDemandJob, RigidJob};
pub use lease::{Lease, LeaseEnd, LeaseKind};
pub use metrics::{DEFAULT_SLOWDOWN_TAU, JobClass, JobRecord, Report, Summary, write_jobs_csv};
pub use node::{NodeState, NodeStatus, Pool};
pub use policy::Policy;
pub use seed::{SeedStreams, StreamRng};
pub use time::{Duration, Time, TimeOverflow};
pub use usage::{UsageKind, UsageLedger};
