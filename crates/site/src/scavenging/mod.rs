//! The scavenging role: its protocol, and the built-in high-throughput pool policy.
//!
//! Idle batch nodes are **lent on availability** to a high-throughput pool: a lent node
//! stays idle in the batch cluster, so batch (and on-demand, and malleable expansion) take it
//! back whenever they want it, and the scavenged task on it is evicted, losing its work since
//! its last checkpoint. Scavenged tasks are matched to slots by ClassAds (`cosched-classad`,
//! HTCondor's symmetric match: both `Requirements` true) by the site's negotiator, every
//! negotiation cycle; after each cycle the role's policy is told what happened
//! ([`PoolCycle`]) and answers with [`ScavengingCommand`]s: lend or recall nodes, start or
//! stop cloud instances.
//!
//! [`HtcPool`] is the built-in policy: it sizes the pool with any [`Sizer`] ([`HarvestAll`]:
//! every idle node while tasks wait, HTCondor's default of each idle machine advertising a
//! slot; or [`RhicSizer`]: any policy of RHIC's protocol, its controller, FUZZY, Threshold,
//! Fixed or one's own, on the site's residual capacity) and hands the cloud decision to any
//! policy of Albatross's protocol ([`cosched_albatross::policy::Albatross`] under a capital
//! budget, or [`cosched_albatross::policy::NoScaling`]).

use cosched_albatross::policy::CloudNodeView;
use cosched_albatross::pool::InstanceType;
use cosched_core::policy::Policy;
use cosched_core::{Duration, NodeId};
use serde::{Deserialize, Serialize};

use crate::{SiteError, SiteState};

mod pool;
mod rhic;

pub use pool::{HarvestAll, HtcPool, Sizer};
pub use rhic::{RhicSizer, RhicSizing};

/// What one negotiation cycle left behind: the observation of the scavenging protocol.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PoolCycle {
    /// Tasks dispatched since the last cycle.
    pub dispatched: usize,
    /// Tasks waiting for a slot.
    pub queued: usize,
    /// Tasks running (site and cloud).
    pub running: usize,
    /// Batch-idle site nodes not lent (what the pool could still borrow).
    pub lendable: u32,
    /// Site nodes lent to the pool.
    pub lent: u32,
    /// Lent site nodes running no task.
    pub lent_free: u32,
    /// Lent nodes the owners took back since the last cycle (evictions or not).
    pub revoked: Vec<NodeId>,
    /// The live cloud nodes (their ids number the cloud instances, apart from site nodes).
    pub cloud_nodes: Vec<CloudNodeView>,
    /// Reference seconds of scavenged work completed so far (goodput).
    pub work_done_s: f64,
    /// Reference seconds of scavenged work submitted and not completed.
    pub work_left_s: f64,
    /// Of `work_left_s`, what is done already: the unfinished tasks' checkpoints and the
    /// running ones' work since their last start (the pool's progress between completions).
    pub work_partial_s: f64,
    /// The cloud's instance types, in the site's order (a cloud start's `instance`).
    pub instance_types: Vec<InstanceType>,
}

/// What the scavenging role asks of the site, applied in order after the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScavengingCommand {
    /// Lend up to `count` unlent batch-idle nodes (the longest idle first).
    Lend {
        /// How many.
        count: u32,
    },
    /// Lend this node if it is batch-idle and unlent (ignored otherwise: it may have been
    /// taken since the view was read).
    LendNode(NodeId),
    /// Give back up to `count` lent nodes that run no task.
    Recall {
        /// How many.
        count: u32,
    },
    /// Give this lent node back (its task, if any, is evicted).
    RecallNode(NodeId),
    /// Start `count` cloud instances of type `instance`, each staying `lifetime` once up.
    CloudStart {
        /// The instance type's index in the site's instance types.
        instance: usize,
        /// How many.
        count: u32,
        /// How long each stays in the pool.
        lifetime: Duration,
    },
    /// Stop this cloud node now (its tasks are checkpointed and requeued).
    CloudStop(NodeId),
}

/// A policy of the scavenging role: any [`Policy`] with these types.
pub trait ScavengingPolicy:
    Policy<Observation = PoolCycle, Command = ScavengingCommand, View = SiteState, Error = SiteError>
{
}

impl<P> ScavengingPolicy for P where
    P: Policy<
            Observation = PoolCycle,
            Command = ScavengingCommand,
            View = SiteState,
            Error = SiteError,
        > + ?Sized
{
}
