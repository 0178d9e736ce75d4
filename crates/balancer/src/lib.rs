//! # cosched-balancer
//!
//! The Balancer of Liu, Keahey, Riteau and Weissman, "Dynamically Negotiating Capacity Between
//! On-demand and Batch Clusters" (SC18): one cluster soft-partitioned into an on-demand pool
//! and a batch (on-availability) pool, with nodes moved between them without ever killing or
//! checkpointing a batch job.
//!
//! - [`policy`]: the [`Balancer`] (Algorithm 1 and its Basic, Hint and Predictive reserves,
//!   section III), a plain struct with no clock, RNG or I/O;
//! - [`oarm`]: the [`Oarm`] interface it drives on the batch resource manager, implemented for
//!   [`cosched_batch::BatchCluster`];
//! - [`predictor`]: the Predictive algorithm's slot-peak predictor;
//! - [`sim`]: the combined-cluster simulator driving the Balancer against an EASY batch
//!   cluster, with the static baselines (all-batch, dedicated split, all-on-demand);
//! - [`workload`]: on-demand lease requests and a seeded diurnal generator of them;
//! - [`synthetic`]: the paper's synthetic workloads (U66-Main, U66-Wide, U66-Narrow,
//!   U77/U88-Main, on-demand ρ = 1.25 % × 1..24) from a seed, with a preload against ramp-up;
//! - [`traces`]: the paper's input formats (LCRC weekly CSV, lease CSV, the APS single-core
//!   trace and its tight-packing conversion to VM leases, SWF), with typed errors.
//!
//! ```
//! use cosched_balancer::{Balancer, BalancerConfig, BalancerNodeState, RequestOutcome, Strategy};
//! use cosched_batch::BatchCluster;
//! use cosched_core::Time;
//! let mut cluster = BatchCluster::new(8).unwrap();
//! let config = BalancerConfig::new(Strategy::Basic { static_reserve: 2 });
//! let mut balancer = Balancer::new(Time(0), config, &mut cluster).unwrap();
//! assert_eq!(cluster.offline_units(), 2); // the static reserve
//! let RequestOutcome::Granted(grant) = balancer.request_nodes(Time(5), 3, &mut cluster).unwrap()
//! else { panic!("3 nodes are free") };
//! assert_eq!(grant.nodes.len(), 3);
//! assert_eq!(balancer.count(BalancerNodeState::OdAlloc), 3);
//! assert_eq!(cluster.offline_units(), 3);
//! ```

mod error;
pub mod oarm;
pub mod policy;
pub mod predictor;
pub mod sim;
pub mod synthetic;
pub mod traces;
pub mod workload;

pub use error::BalancerError;
pub use oarm::Oarm;
pub use policy::{
    Balancer, BalancerConfig, BalancerNodeState, Decisions, Grant, NodeUpdate, RequestOutcome,
    ReserveOutcome, Strategy,
};
