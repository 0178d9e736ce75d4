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
//! - [`mechanism`]: the on-arrival mechanisms PAA and SPAA ("Mechanisms") — a plain
//!   function from the on-demand job's size and a view of the running jobs to
//!   [`ArrivalAction`]s;
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
//! - [`platform`]: a reference executor, [`platform::MemoryPlatform`]: an in-memory platform
//!   implementing the view and applying the commands, to start an embedding from;
//! - [`record`]: what a policy read of the view, kept with a recording so that it replays;
//! - [`scenario`]: the built-in policies as constructors, the paper's machines and set-ups;
//! - [`report`]: those metrics (§IV-D, [`HybridReport`]) and each job's node-second account;
//! - [`workload`]: the jobs of a hybrid workload ([`HybridJob`]), job types by project, the W1–W5 notice mixes, and Theta-like and Cori-like
//!   workload generators.
//!
//! With the default feature `sim`; without it only the policy and its protocol compile
//! ([`checkpoint`], [`mechanism`], [`notice`], [`policy`]): what a service in front of a real
//! resource manager embeds. A whole run is in [`sim`]'s docs.
//!
//! The on-arrival mechanism alone: SPAA shrinks a malleable job evenly rather than preempt.
//!
//! ```
//! use cosched_core::{Duration, JobId};
//! use cosched_hybrid::{ArrivalAction, Mechanism, RunningKind, RunningView};
//! // An on-demand job of 3 nodes arrives on a full machine running one malleable job.
//! let running = [RunningView { id: JobId(1), size: 8, setup: Duration(0),
//!                              kind: RunningKind::Malleable { min_size: 2, max_size: 8 } }];
//! let actions = Mechanism::spaa().decide(3, 0, &running).unwrap();
//! assert_eq!(actions, vec![ArrivalAction::Shrink { job: JobId(1), to: 5 }]);
//! ```
//!
//! A whole policy on the protocol and in the simulator: [`scenario`] (built-in policies, and
//! how to write one's own); in another executor: [`policy`] (how Slurm would apply each
//! command).

// Without `sim` the docs' links to the simulator and workloads have nothing to point at.
#![cfg_attr(not(feature = "sim"), allow(rustdoc::broken_intra_doc_links))]

pub mod checkpoint;
#[cfg(feature = "sim")]
pub mod diagnose;
mod error;
pub mod mechanism;
pub mod notice;
pub mod platform;
pub mod policy;
pub mod record;
#[cfg(feature = "sim")]
pub mod report;
#[cfg(feature = "sim")]
pub mod scenario;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(feature = "sim")]
pub mod workload;

pub use checkpoint::{CheckpointPolicy, Checkpointing, daly_interval, preemption_cost};
pub use error::HybridError;
pub use error::SimError;
pub use mechanism::{
    ArrivalAction, DEFAULT_WARNING, Mechanism, MechanismKind, RunningKind, RunningView,
};
pub use notice::{Notice, NoticeBoard, NoticePlan, NoticeStrategy, PlannedJob, PlannedPreemption};
pub use policy::{
    Command, Composite, ExpansionCandidate, HybridPolicy, HybridWorkloadPolicy, Observation,
    PlatformView, mechanism_name, plan_expansion,
};
#[cfg(feature = "sim")]
pub use report::{HybridOutcome, HybridReport, JobAccount};
#[cfg(feature = "sim")]
pub use sim::{Failures, HybridConfig, HybridSim};
#[cfg(feature = "sim")]
pub use workload::HybridJob;
