//! # cosched-live
//!
//! cosched policies in front of a real resource manager. Any policy of the Balancer's protocol
//! (Liu, Keahey, Riteau, Weissman, SC18) — the [`Balancer`], Predictive, a static baseline or a
//! caller's own — runs here exactly as in the simulator, observations in and commands out, with
//! Slurm as its batch side and an HTTP/JSON service
//! with the paper's calls as its on-demand side (§II-D: the paper's Flask endpoint, Torque's
//! `pbsnodes -o/-c` and prologue/epilogue notifiers).
//!
//! - [`SlurmOarm`]: reclaim = `scontrol update state=drain`, restore = `state=resume`, node
//!   status from `sinfo` (through `cosched-slurm`);
//! - [`Engine`]: the executor between any policy of the protocol and a [`LiveCluster`]:
//!   polling, the epilog's job ends, grants handed over only once their nodes are drained of
//!   batch work; it reads nothing of the policy but its commands and its wake time;
//! - [`Service`]: the axum service (`cosched balancer serve`).
//!
//! [`Balancer`]: cosched_balancer::policy::Balancer

pub mod engine;
pub mod service;
mod slurm_oarm;

pub use engine::{
    Answer, Engine, InvalidInput, LiveCluster, LiveError, NodeRecord, NodeReport, NodeView,
    Persisted,
};
pub use service::{Service, ServiceConfig, ServiceError, ServicePolicy};
pub use slurm_oarm::{DEFAULT_REASON, SlurmOarm};
