//! # cosched-site
//!
//! One site whose nodes are shared by every kind of work the five papers study, each **role**
//! filled by a policy of its protocol, chosen per run:
//!
//! - **batch**: any policy of the batch protocol ([`cosched_batch::BatchPolicy`]: FCFS, EASY,
//!   conservative, or yours) over rigid and malleable jobs;
//! - **on-demand** ([`on_demand`]): leases that must start within a window — a policy of the
//!   site's on-demand protocol (queued as batch jobs, [`QueueAsBatch`]; the Balancer,
//!   [`BalancerRole`] over any Balancer-protocol policy) or any policy of hybrid's protocol
//!   run unchanged ([`OnDemandRole::hybrid`]: [`cosched_hybrid::HybridPolicy`]'s advance
//!   notices under N, CUA or CUP — the leases' [`LeaseNotice`]s — with guests on reserved
//!   nodes, and PAA/SPAA on arrival);
//! - **scavenging** ([`scavenging`]): idle nodes lent on availability to a ClassAd-matched
//!   high-throughput pool sized by harvesting every idle node ([`HarvestAll`]) or by any
//!   policy of RHIC's protocol ([`RhicSizer`]: its controller, FUZZY, Threshold, Fixed), which
//!   may burst to the cloud under Albatross ([`HtcPool`]).
//!
//! [`grid`] puts K such sites under metasched's electricity-price-aware metascheduler (MCMF
//! and its baselines, or any policy of its grid protocol), which places the batch jobs.
//!
//! ## The model
//! One executor ([`Site`]) on core's kernel (`cosched_core::engine`) owns the N nodes, the
//! clock and the grants, and calls each role's policy through core's driver
//! (`cosched_core::driver`). Batch holds its nodes through a `cosched-batch` cluster; the
//! on-demand role takes nodes out of it (offline in the cluster) into a reserve — under
//! hybrid's protocol, reservations for announced leases, whose idle nodes may run batch jobs
//! as *guests* until the lease arrives — and grants them to core [`cosched_core::Lease`]s (on
//! demand: start within `W` or be refused);
//! scavenging borrows idle batch nodes **on availability**: a lent node stays idle in the
//! cluster, and the lease ends the moment its owner wants it. Every node has exactly one use
//! ([`NodeUse`]) at a time. Inputs come from [`workload`], drawn before the run, so every
//! configuration of a seed meets the same environment; the executor itself draws nothing.
//!
//! ## Precedence
//! At each instant, after its events: the **on-demand** role acts first (its grants may
//! preempt or shrink batch jobs, if its mechanism does), then the **batch** pass, then
//! **malleable expansion** into idle nodes (within EASY's reservation for the queue head),
//! then **scavenging** (its negotiation cycle lends what is left). Under hybrid's protocol the
//! policy orders the first three itself, in its settle (§III-B: waiting leases, lenders,
//! reservations, guests, the batch pass, expansion). Each revocation is counted with its cost
//! ([`Revocations`]): a scavenged task evicted loses its work since its last checkpoint; a
//! malleable job shrinks (or resumes where it stopped when preempted, paying its setup); a
//! rigid job is preempted only by a mechanism that preempts (hybrid's), and restarts; a guest
//! preempted at its lease's arrival is counted apart.
//!
//! ## Adding a role policy
//! A role's policy is any [`cosched_core::policy::Policy`] of the role's protocol; write one
//! and pass it in [`Roles`]. An on-demand policy that grants a lease only when enough nodes
//! are idle at once, and otherwise refuses it (it never fails: its error is `Infallible`):
//!
//! ```
//! use cosched_core::policy::Policy;
//! use cosched_core::{Duration, Lease, LeaseEnd, LeaseId, LeaseKind, Time};
//! use cosched_site::{OnDemandCommand, OnDemandObservation, OnDemandRole, Roles, Site,
//!                    SiteConfig, SiteError, SiteState, SiteWorkload};
//!
//! struct IdleOrNothing;
//! impl Policy for IdleOrNothing {
//!     type Observation = OnDemandObservation;
//!     type Command = OnDemandCommand;
//!     type View = SiteState;
//!     type Error = std::convert::Infallible;
//!     fn observe(&mut self, _: Time, obs: &OnDemandObservation, view: &SiteState,
//!                out: &mut Vec<OnDemandCommand>) -> Result<(), Self::Error> {
//!         match obs {
//!             OnDemandObservation::Request(l) if view.batch_idle_count() >= l.nodes as usize => {
//!                 out.push(OnDemandCommand::GrantIdle { lease: l.id })
//!             }
//!             OnDemandObservation::Request(l) => out.push(OnDemandCommand::Reject { lease: l.id }),
//!             // A lease's nodes come back to the role: give them to batch.
//!             OnDemandObservation::Ended { nodes, .. } => {
//!                 out.extend(nodes.iter().map(|&n| OnDemandCommand::Restore(n)))
//!             }
//!             _ => {}
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let lease = |id, at, nodes| Lease::new(LeaseId(id), Time(at), nodes,
//!     LeaseKind::OnDemand { window: Duration(0) }, LeaseEnd::Bounded(Duration(600))).unwrap();
//! let workload = SiteWorkload {
//!     leases: vec![lease(0, 0, 3), lease(1, 10, 3), lease(2, 700, 4)],
//!     ..SiteWorkload::default()
//! };
//! let roles = Roles {
//!     batch: Box::new(cosched_batch::scenario::easy()),
//!     on_demand: OnDemandRole::site(IdleOrNothing),
//!     scavenging: None,
//! };
//! let report = Site::new(SiteConfig::new(4, Time(3_600)), roles, workload)?.run()?;
//! // The second lease finds one idle node and is refused; the third comes after the first ended.
//! assert_eq!((report.leases.completed, report.leases.rejected), (2, 1));
//! # Ok::<(), SiteError>(())
//! ```

mod error;
pub mod grid;
mod nodes;
pub mod on_demand;
pub mod report;
pub mod scavenging;
pub mod scenario;
mod site;
pub mod workload;

pub use error::SiteError;
pub use nodes::NodeUse;
pub use on_demand::{
    BalancerRole, HybridRolePolicy, OnDemandCommand, OnDemandObservation, OnDemandPolicy,
    OnDemandRole, QueueAsBatch,
};
pub use report::{LeaseCounts, Revocations, SiteReport};
pub use scavenging::{
    HarvestAll, HtcPool, PoolCycle, RhicSizer, RhicSizing, ScavengingCommand, ScavengingPolicy,
    Sizer,
};
pub use scenario::{BatchRole, Configuration, Inputs, RoleParams};
pub use site::{BatchStart, IdleKey, MAX_NODES, Roles, Site, SiteConfig, SiteState, WAITING_ADS};
pub use workload::{BagOfTasks, LeaseNotice, SiteWorkload, Task};
