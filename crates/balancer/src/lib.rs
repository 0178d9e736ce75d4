//! # cosched-balancer
//!
//! The Balancer of Liu, Keahey, Riteau and Weissman, "Dynamically Negotiating Capacity Between
//! On-demand and Batch Clusters" (SC18): one cluster soft-partitioned into an on-demand pool
//! and a batch (on-availability) pool, with idle nodes moved between them without ever killing
//! or checkpointing a batch job.
//!
//! - [`policy`]: the [`Balancer`] (Algorithm 1, the static reserve `R`, hints), a plain
//!   struct on the workspace's one policy protocol ([`cosched_core::policy::Policy`], here
//!   [`BalancerPolicy`]): [`Observation`]s in, [`Command`]s out, timers pulled through
//!   `next_wake`, no clock, RNG or I/O, state in serde;
//! - [`predictor`]: the Predictive algorithm (peak requested nodes per 6-hour slot, trained
//!   offline) wrapping the Balancer as one [`Policy`];
//! - [`baseline`]: the static baselines (all-batch, the dedicated split, all-on-demand) as
//!   policies of the same protocol;
//! - [`oarm`]: the executor's edge to the batch resource manager (`reclaim_node`,
//!   `restore_node`, `get_status_of_all_nodes`), in the Balancer's own types;
//! - [`workload`]: on-demand lease requests, and a seeded diurnal generator of them;
//! - with the default feature `sim` (the environment, which a live service leaves out:
//!   `default-features = false` compiles only the modules above):
//!   - `sim`: the combined-cluster simulator — the environment only, on core's kernel;
//!   - `testbed`: the batch side's scheduler as the paper's testbed ran it (Maui's scheduling
//!     iterations and Torque's job starts at 60x), an environment model of the simulator;
//!   - `report`: its report; `method`: the paper's experimental method (the challenging week);
//!   - `synthetic`, `traces`: the paper's inputs (LCRC, APS → VM leases, synthetic batch
//!     workloads);
//!   - `scenario`: a study's inputs assembled from those sources, per seed, and the
//!     paper's configurations run on them (what the examples drive);
//!   - `table1`: Table I's ten configurations with the paper's values, and its week.
//!
//! ```
//! use cosched_balancer::{Balancer, BalancerConfig, BalancerNodeState, Command, Observation, Policy, Strategy};
//! use cosched_balancer::policy::{RmNode, RmNodeState};
//! use cosched_core::{LeaseId, NodeId, Time};
//! let nodes: Vec<RmNode> = (0..8)
//!     .map(|i| RmNode { name: format!("n{i}"), state: RmNodeState::BatchIdle })
//!     .collect();
//! let mut balancer = Balancer::new(BalancerConfig::new(Strategy::Basic { static_reserve: 2 }));
//! let mut out = Vec::new();
//! // Start-up: the executor's nodes are the view.
//! balancer.start(Time(0), nodes.as_slice(), &mut out).unwrap();
//! assert_eq!(out, vec![Command::Reclaim(NodeId(0)), Command::Reclaim(NodeId(1))]);
//! out.clear();
//! let ask = Observation::Request { request: LeaseId(7), nodes: 3, wait: None };
//! balancer.observe(Time(5), &ask, nodes.as_slice(), &mut out).unwrap();
//! // Two reserve nodes and one idle batch node, reclaimed.
//! assert_eq!(out[0], Command::Reclaim(NodeId(2)));
//! assert!(matches!(&out[1], Command::Grant { nodes, .. } if nodes.len() == 3));
//! assert_eq!(balancer.count(BalancerNodeState::OdAlloc), 3);
//! ```

pub mod baseline;
mod error;
pub mod oarm;
pub mod policy;
pub mod predictor;
pub mod workload;

// The environment: the simulator, its report and the paper's inputs (default feature `sim`).
#[cfg(feature = "sim")]
pub mod method;
#[cfg(feature = "sim")]
pub mod report;
#[cfg(feature = "sim")]
pub mod scenario;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(feature = "sim")]
pub mod synthetic;
#[cfg(feature = "sim")]
pub mod table1;
#[cfg(feature = "sim")]
pub mod testbed;
#[cfg(feature = "sim")]
pub mod traces;

pub use error::BalancerError;
pub use oarm::Oarm;
pub use policy::{
    Balancer, BalancerConfig, BalancerNodeState, BalancerPolicy, Command, NodeSlot, NodeTracker,
    Observation, Policy, Strategy,
};
