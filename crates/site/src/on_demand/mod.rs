//! The on-demand role: its protocols, and the built-in policies that fill it.
//!
//! The role is filled by a policy of one of two protocols ([`OnDemandRole`]):
//!
//! - **the site's**: a [`cosched_core::policy::Policy`] with [`OnDemandObservation`] in,
//!   [`OnDemandCommand`]s out and the [`SiteState`] as its read-only view
//!   ([`OnDemandPolicy`]). Built in: [`QueueAsBatch`], no on-demand mechanism, a lease queued
//!   as a batch job and served if the batch policy starts it within its window (hybrid's
//!   baseline, Fan et al. Table III: "FCFS/EASY backfilling without special treatments"); and
//!   [`BalancerRole`], any policy of the Balancer's protocol (Liu et al., SC18, Algorithm 1
//!   with `W` and its reserve), its `Reclaim`/`Restore`/`Grant`/`Reject` passed through;
//! - **hybrid's** (`cosched_hybrid::policy`): any policy of it, [`cosched_hybrid::HybridPolicy`]
//!   (the paper's six mechanisms, N/CUA/CUP × PAA/SPAA, §III-B) or one's own, runs
//!   unchanged, the site its platform: it implements hybrid's
//!   [`cosched_hybrid::PlatformView`] and carries out its commands — reservations for announced
//!   leases, guests on their idle nodes preempted at the arrival (§III-B1), preemptions and
//!   shrinks at the arrival (§III-B2), the nodes back to their lenders (§III-B4), its batch
//!   passes and malleable expansions. A lease is the on-demand job
//!   [`SiteState::lease_job`]; one waiting at the front when its window closes is withdrawn
//!   ([`cosched_hybrid::policy::Observation::Withdrawn`]).

use cosched_core::policy::Policy;
use cosched_core::{JobId, Lease, LeaseId, NodeId, Time};
use cosched_hybrid::policy::{Command as HCommand, Observation as HObservation, PlatformView};
use serde::{Deserialize, Serialize};

use crate::{SiteError, SiteState};

mod balancer;

pub use balancer::BalancerRole;

/// What the site tells its on-demand role.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OnDemandObservation {
    /// A lease was requested (on demand: it must start within its window).
    Request(Lease),
    /// An advance notice (Fan et al. §III-B1): `lease` of `nodes` nodes says it will arrive
    /// at `estimated_arrival` (it may come earlier or later, or not at all before its
    /// reservation lapses). Delivered only before the lease's arrival.
    Notice {
        /// The lease announced.
        lease: LeaseId,
        /// Nodes it will need.
        nodes: u32,
        /// When it says it will arrive.
        estimated_arrival: Time,
    },
    /// A granted lease ended; its nodes are back in the on-demand reserve
    /// ([`crate::NodeUse::Reserve`]) for the role to keep or restore to batch.
    Ended {
        /// The lease.
        lease: LeaseId,
        /// Its nodes.
        nodes: Vec<NodeId>,
    },
    /// A batch job now runs on these nodes (a start or an expansion).
    NodesBusy {
        /// The job.
        job: JobId,
        /// The nodes it took.
        nodes: Vec<NodeId>,
    },
    /// A batch job gave these nodes back (an end, a preemption or a shrink).
    NodesFreed {
        /// The job.
        job: JobId,
        /// The nodes, idle in batch now.
        nodes: Vec<NodeId>,
    },
}

/// What the on-demand role asks the site to do, applied in order after the call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OnDemandCommand {
    /// Take this batch-idle node out of batch into the on-demand reserve (a scavenged task
    /// on it is evicted).
    Reclaim(NodeId),
    /// Give this reserve node back to batch.
    Restore(NodeId),
    /// Start the lease on these reserve nodes.
    Grant {
        /// The lease.
        lease: LeaseId,
        /// Exactly its node count, each in the reserve.
        nodes: Vec<NodeId>,
    },
    /// Start the lease on batch-idle nodes taken now (unlent ones first, then lent ones,
    /// whose tasks are evicted).
    GrantIdle {
        /// The lease.
        lease: LeaseId,
    },
    /// Refuse the lease.
    Reject {
        /// The lease.
        lease: LeaseId,
    },
    /// Queue the lease as a batch job; the site withdraws it if it has not started when its
    /// window closes (the requester gives up).
    QueueAsBatch {
        /// The lease.
        lease: LeaseId,
    },
    /// Preempt a running batch job (requeued under its submit time: a rigid job restarts, a
    /// malleable one resumes where it stopped, paying its setup again).
    Preempt {
        /// The job.
        job: JobId,
    },
    /// Shrink a running malleable batch job to `to` nodes.
    Shrink {
        /// The job.
        job: JobId,
        /// Its new size.
        to: u32,
    },
}

/// A policy of the on-demand role: any [`Policy`] with these types. Boxed for choice at run
/// time as `Box<dyn OnDemandPolicy + Send>`.
pub trait OnDemandPolicy:
    Policy<
        Observation = OnDemandObservation,
        Command = OnDemandCommand,
        View = SiteState,
        Error = SiteError,
    >
{
}

impl<P> OnDemandPolicy for P where
    P: Policy<
            Observation = OnDemandObservation,
            Command = OnDemandCommand,
            View = SiteState,
            Error = SiteError,
        > + ?Sized
{
}

/// No on-demand mechanism: every lease is queued as a batch job (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct QueueAsBatch;

impl Policy for QueueAsBatch {
    type Observation = OnDemandObservation;
    type Command = OnDemandCommand;
    type View = SiteState;
    type Error = SiteError;

    fn observe(
        &mut self,
        _: Time,
        obs: &OnDemandObservation,
        _: &SiteState,
        out: &mut Vec<OnDemandCommand>,
    ) -> Result<(), SiteError> {
        if let OnDemandObservation::Request(lease) = obs {
            out.push(OnDemandCommand::QueueAsBatch { lease: lease.id });
        }
        Ok(())
    }
}

/// A policy of hybrid's protocol in the on-demand role, its errors the site's: what
/// [`OnDemandRole::Hybrid`] boxes ([`OnDemandRole::hybrid`] adapts any policy of the
/// protocol).
pub trait HybridRolePolicy:
    Policy<Observation = HObservation, Command = HCommand, View = dyn PlatformView, Error = SiteError>
{
}

impl<P> HybridRolePolicy for P where
    P: Policy<
            Observation = HObservation,
            Command = HCommand,
            View = dyn PlatformView,
            Error = SiteError,
        > + ?Sized
{
}

/// The policy filling the on-demand role, of either protocol (see the [module docs](self)).
pub enum OnDemandRole {
    /// A policy of the site's on-demand protocol.
    Site(Box<dyn OnDemandPolicy + Send>),
    /// A policy of hybrid's protocol, the site its platform.
    Hybrid(Box<dyn HybridRolePolicy + Send>),
}

impl OnDemandRole {
    /// `policy`, of the site's on-demand protocol, whatever its error (`Infallible`, or any
    /// the site's error converts from).
    pub fn site<P>(policy: P) -> OnDemandRole
    where
        P: Policy<Observation = OnDemandObservation, Command = OnDemandCommand, View = SiteState>
            + Send
            + 'static,
        P::Error: Into<SiteError>,
    {
        OnDemandRole::Site(Box::new(policy.err_into::<SiteError>()))
    }

    /// `policy`, of hybrid's protocol, run unchanged on the site, whatever its error
    /// ([`cosched_hybrid::HybridError`], `Infallible`, or any the site's error converts from).
    ///
    /// ```
    /// use cosched_core::{Duration, JobId, Lease, LeaseEnd, LeaseId, LeaseKind, MalleableJob, Time};
    /// use cosched_hybrid::workload::HybridJob;
    /// use cosched_hybrid::{Composite, HybridPolicy};
    /// use cosched_site::{OnDemandRole, Roles, Site, SiteConfig, SiteError, SiteWorkload};
    ///
    /// // A malleable job holds the 4 nodes; a 2-node lease arrives at 100 s: N&SPAA shrinks
    /// // the job and the lease starts at once; the job expands back when it ends.
    /// let job = MalleableJob::new(JobId(1), Time(0), 2, 4, Duration(40_000), Duration(0))?;
    /// let lease = Lease::new(LeaseId(0), Time(100), 2, LeaseKind::OnDemand { window: Duration(0) },
    ///                        LeaseEnd::Bounded(Duration(1_000)))?;
    /// let workload = SiteWorkload {
    ///     batch: vec![HybridJob::Malleable { job, estimate: Duration(20_000) }],
    ///     leases: vec![lease],
    ///     ..SiteWorkload::default()
    /// };
    /// let roles = Roles {
    ///     batch: Box::new(cosched_batch::scenario::easy()),
    ///     on_demand: OnDemandRole::hybrid(HybridPolicy::new(Composite::ALL[1])),
    ///     scavenging: None,
    /// };
    /// let report = Site::new(SiteConfig::new(4, Time(30_000)), roles, workload)?.run()?;
    /// assert_eq!((report.leases.completed, report.on_demand_mean_wait_s), (1, 0.0));
    /// assert_eq!(report.revocations.malleable_shrinks, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn hybrid<P>(policy: P) -> OnDemandRole
    where
        P: Policy<Observation = HObservation, Command = HCommand, View = dyn PlatformView>
            + Send
            + 'static,
        P::Error: Into<SiteError>,
    {
        OnDemandRole::Hybrid(Box::new(policy.err_into::<SiteError>()))
    }
}

impl From<Box<dyn OnDemandPolicy + Send>> for OnDemandRole {
    fn from(policy: Box<dyn OnDemandPolicy + Send>) -> OnDemandRole {
        OnDemandRole::Site(policy)
    }
}
