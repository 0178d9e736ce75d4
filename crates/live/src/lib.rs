//! # cosched-live
//!
//! cosched policies in front of a real resource manager. The Balancer (Liu, Keahey, Riteau,
//! Weissman, SC18) runs here exactly as in the simulator — the same [`Balancer`] policy object,
//! observations in and commands out — with Slurm as its batch side and an HTTP/JSON service
//! with the paper's calls as its on-demand side (§II-D: the paper's Flask endpoint, Torque's
//! `pbsnodes -o/-c` and prologue/epilogue notifiers).
//!
//! - [`SlurmOarm`]: reclaim = `scontrol update state=drain`, restore = `state=resume`, node
//!   status from `sinfo` (through `cosched-slurm`);
//! - [`Engine`]: the executor between the policy and a [`LiveCluster`]: polling, the epilog's
//!   job ends, grants handed over only once their nodes are drained of batch work;
//! - [`Service`]: the axum service (`cosched balancer serve`).
//!
//! [`Balancer`]: cosched_balancer::policy::Balancer

pub mod engine;
pub mod service;
mod slurm_oarm;

pub use engine::{Answer, Engine, LiveCluster, LiveError, NodeReport, NodeView, Persisted};
pub use service::{Service, ServiceConfig};
pub use slurm_oarm::{DEFAULT_REASON, SlurmOarm};
