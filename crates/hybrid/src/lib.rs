//! # cosched-hybrid
//!
//! Hybrid workload scheduling after Fan, Lan, Rich, Allcock and Papka, "Hybrid Workload
//! Scheduling on HPC Systems" (IPDPS 2022): one system of identical nodes runs rigid and
//! malleable batch jobs under FCFS + EASY, and on-demand jobs that must start the moment they
//! arrive; mechanisms manipulate running batch jobs so that they can, with the least harm.
//!
//! The policies (no clock, RNG or I/O) and what drives them:
//! - [`checkpoint`]: the rigid jobs' checkpointing ("Job models"): Daly's optimal interval and
//!   the work a preemption loses;
//! - [`mechanism`]: the on-arrival mechanisms PAA and SPAA ("Mechanisms") as a policy — a plain
//!   function from the on-demand job's size and a view of the running jobs to [`Decision`]s —
//!   and [`apply`], which carries them out on a [`cosched_batch::BatchCluster`];
//! - [`notice`]: the notice strategies N, CUA and CUP as a policy ([`NoticeBoard`]) and the
//!   choice of guests for reserved idle nodes ([`notice::guests`]);
//! - [`policy`]: [`HybridPolicy`], the paper's six mechanisms and the baseline on the
//!   workspace's protocol — observations in, [`Command`]s out — owning the notice board, the
//!   on-arrival mechanism ([`Composite`]), lenders, guests, the on-demand jobs waiting at the
//!   front, CUP's plans and the malleable start / expand rules; the module docs say how Slurm
//!   would carry out each command;
//! - [`sim`]: the environment and executor of a [`HybridPolicy`]: FCFS + EASY with
//!   checkpoints, setups, malleable resizing and node failures (the evaluation's set-up),
//!   reporting the paper's metrics;
//! - [`report`]: those metrics (§IV-D, [`HybridReport`]) and each job's node-second account;
//! - [`workload`]: the jobs of a hybrid workload ([`HybridJob`]), job types by project, the W1–W5 notice mixes, and Theta-like and Cori-like
//!   workload generators.
//!
//! With the default feature `sim`; without it only the policy and its protocol compile
//! ([`checkpoint`], [`mechanism`], [`notice`], [`policy`]): what a service in front of a real
//! resource manager embeds. A whole run is in [`sim`]'s docs.
//!
//! The on-arrival policy alone, on a batch cluster:
//!
//! ```
//! use cosched_batch::{BatchCluster, BatchJob, scenario};
//! use cosched_core::{Duration, JobId, MalleableJob, Time};
//! use cosched_hybrid::{Mechanism, RunningKind, RunningView, apply};
//! let mut cluster = BatchCluster::new(8).unwrap();
//! let job = MalleableJob::new(JobId(1), Time(0), 2, 8, Duration(8_000), Duration(0)).unwrap();
//! cluster.submit(BatchJob::malleable(&job, 8, Duration(1_000)).unwrap()).unwrap();
//! cluster.schedule(Time(0), &mut scenario::easy(), &mut Vec::new());
//! // An on-demand job of 3 nodes arrives at t = 100.
//! let running = [RunningView { id: JobId(1), size: 8, setup: Duration(0),
//!                              kind: RunningKind::Malleable { min_size: 2, max_size: 8 } }];
//! let decisions = Mechanism::spaa().decide(3, cluster.free_units(), &running).unwrap();
//! apply(&mut cluster, Time(100), &running, &decisions).unwrap();
//! assert_eq!(cluster.free_units(), 3);
//! ```

// Without `sim` the docs' links to the simulator and workloads have nothing to point at.
#![cfg_attr(not(feature = "sim"), allow(rustdoc::broken_intra_doc_links))]

pub mod checkpoint;
mod error;
pub mod mechanism;
pub mod notice;
pub mod policy;
#[cfg(feature = "sim")]
pub mod report;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(feature = "sim")]
pub mod workload;

pub use checkpoint::{CheckpointPolicy, Checkpointing, daly_interval, preemption_cost};
pub use error::HybridError;
pub use mechanism::{
    Applied, DEFAULT_WARNING, Decision, Mechanism, MechanismKind, RunningKind, RunningView, apply,
};
pub use notice::{Notice, NoticeBoard, NoticePlan, NoticeStrategy, PlannedJob, PlannedPreemption};
pub use policy::{Command, Composite, HybridPolicy, PlatformView, mechanism_name};
#[cfg(feature = "sim")]
pub use report::{HybridOutcome, HybridReport, JobAccount};
#[cfg(feature = "sim")]
pub use sim::{Failures, HybridConfig, HybridSim};
#[cfg(feature = "sim")]
pub use workload::HybridJob;
