//! The Balancer policy: Algorithm 1 (Basic), its Hint and its static/predicted reserve (Liu,
//! Keahey, Riteau, Weissman, SC18, §II-C), on the workspace's policy protocol.
//!
//! The policy never touches a resource manager. It receives [`Observation`]s — on-demand
//! requests, releases and cancellations from the ODRM, job starts and ends from the OARM
//! (the paper's `update_nodes`, sent by Torque's prologue/epilogue), node availability,
//! reserve hints — and answers with [`Command`]s: [`Command::Reclaim`] and
//! [`Command::Restore`] for the OARM (`pbsnodes -o/-c`, `scontrol update state=drain/resume`)
//! and [`Command::Grant`] / [`Command::Reject`] for the ODRM. An executor (the simulator in
//! [`crate::sim`], or a live adapter through [`crate::oarm`]) applies them.
//!
//! Every node is in one [`BalancerNodeState`]: `OD_Reserve`, `OD_Alloc`, `OA_Idle` or
//! `OA_Busy` (§II-C1). A node is only ever reclaimed while it is idle: a busy node is taken
//! when its job **actually ends** (the `JobEnded` observation), never drained or killed.
//!
//! ## Algorithm 1, `request_nodes(n)`
//! 1. `nr` free reserve nodes (not gathered for another request or hint) and `ni` idle batch
//!    nodes: if `nr ≥ n`, grant from the reserve; else if `nr + ni ≥ n`, reclaim `n − nr` idle
//!    nodes and grant.
//! 2. Else, if `W = 0`, reject at once.
//! 3. Else take the `nr` reserve and `ni` idle nodes, and wait up to `W`: each job end the OARM
//!    reports gives one node to the oldest waiting claim (a request, or a hint), and the request
//!    is granted when it holds `n` nodes. When `W` expires it is rejected, and the nodes it
//!    gathered stay `OD_Reserve` for `I` before going back to batch.
//!
//! `release_nodes` puts nodes back in `OD_Reserve`; unless they are part of the static reserve
//! `R` they go back to batch after `I`.
//!
//! ## Hint, `add_reserve(H, N)` (§II-C2)
//! Adds `N` *extra* reserve nodes by time `H`: idle batch nodes at once, then one node per job
//! end (or per reserve node whose hold `I` ends) until it holds `N` or `H` comes. It never takes
//! a node already free in the reserve: those serve requests (Algorithm 1's `nr`), among them
//! the nodes an earlier hint gathered for the request arriving at its `H`. Its nodes cannot be
//! taken by any other request before `H`; from `H` they are free reserve, held `I`.
//!
//! ## Reserve floor: static `R` and Predictive (§II-C1, §II-C3)
//! The on-demand pool (reserve and allocated nodes) is kept at least at a floor: the static
//! reserve `R` for ever, or a predictor's target ([`Observation::ReserveTarget`]) until the end
//! of its slot. Below `R` the Balancer reclaims idle nodes, and then nodes as their jobs end
//! (after the waiting claims). A predicted target is `add_reserve(0, N)` at the slot's start:
//! with `H = 0` it takes the idle nodes there are then, and no node later in the slot (no
//! job's end, no top-up). Nodes at or under the floor are not given back, so a predicted
//! reserve (and any node released within it) is held for its slot, not for `I`.
//!
//! ## Live use
//! Nodes have names ([`Balancer::name`], [`Balancer::node`]); the state serialises (serde);
//! [`Balancer::start`] builds it from the resource manager's node states, so after a restart
//! an allocated node stays allocated (never granted twice) and a node down or drained by an
//! administrator is never adopted into the reserve.
//!
//! ```
//! use cosched_balancer::policy::{
//!     Balancer, BalancerConfig, Command, Observation, Policy, RmNode, RmNodeState, Strategy,
//! };
//! use cosched_core::{Duration, LeaseId, NodeId, Time};
//! // Two idle nodes and one busy one; W = 10 min.
//! let nodes: Vec<RmNode> = (0..3).map(|i| RmNode {
//!     name: format!("n{i}"),
//!     state: if i == 2 { RmNodeState::BatchBusy } else { RmNodeState::BatchIdle },
//! }).collect();
//! let config = BalancerConfig::new(Strategy::Basic { static_reserve: 0 })
//!     .with_window(Duration::from_mins(10));
//! let mut b = Balancer::new(config);
//! let mut out = Vec::new();
//! b.start(Time(0), nodes.as_slice(), &mut out).unwrap();
//! assert!(out.is_empty());
//! // 3 nodes: the 2 idle ones are reclaimed at once, the request waits for the third.
//! let ask = Observation::Request { request: LeaseId(1), nodes: 3, wait: None };
//! b.observe(Time(5), &ask, nodes.as_slice(), &mut out).unwrap();
//! assert_eq!(out, vec![Command::Reclaim(NodeId(0)), Command::Reclaim(NodeId(1))]);
//! assert_eq!(b.next_wake(), Some(Time(605)));
//! // The batch job on n2 ends within W: the node is taken and the request granted.
//! out.clear();
//! b.observe(Time(60), &Observation::JobEnded { nodes: vec![NodeId(2)] }, nodes.as_slice(), &mut out)
//!     .unwrap();
//! assert_eq!(out[0], Command::Reclaim(NodeId(2)));
//! assert!(matches!(&out[1], Command::Grant { request: LeaseId(1), nodes } if nodes.len() == 3));
//! ```

use crate::BalancerError;
pub use cosched_core::policy::Policy;
use cosched_core::{Duration, LeaseId, NodeId, ParamError, Time};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A node's state in the Balancer (§II-C1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BalancerNodeState {
    /// On-demand and unused (offline in the OARM), possibly gathered for a waiting claim.
    OdReserve,
    /// Granted to an on-demand request (offline in the OARM).
    OdAlloc,
    /// In the batch pool, idle.
    OaIdle,
    /// In the batch pool, running a job.
    OaBusy,
}

impl BalancerNodeState {
    /// Every state, for counting.
    pub const ALL: [BalancerNodeState; 4] = [
        BalancerNodeState::OdReserve,
        BalancerNodeState::OdAlloc,
        BalancerNodeState::OaIdle,
        BalancerNodeState::OaBusy,
    ];

    /// Whether the node serves on-demand work now (offline in the OARM).
    pub const fn is_on_demand(self) -> bool {
        matches!(
            self,
            BalancerNodeState::OdReserve | BalancerNodeState::OdAlloc
        )
    }
}

/// The default `I`, the one source of it (the library's [`BalancerConfig::new`], the
/// scenarios, the examples and the CLI): 10 minutes. The paper names `I` ("any nodes that are in
/// OD_Reserve state for more than I seconds will be released", §II-C2) but gives no value, so
/// this is ours: short beside the leases (hours) and the hints' 15–30 minutes (§III-B4), long
/// enough that a node released and asked for again within minutes is not bounced through batch.
pub const DEFAULT_IDLE_HOLD: Duration = Duration::from_mins(10);

/// How the Balancer sizes its reserve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Strategy {
    /// Algorithm 1 with a static reserve of `static_reserve` (`R`) nodes, never returned to
    /// batch (§II-C1).
    Basic {
        /// `R`.
        static_reserve: u32,
    },
    /// No static reserve; the reserve is built by [`Observation::Hint`]s (Hint, §II-C2) or a
    /// predictor's [`Observation::ReserveTarget`]s (Predictive, §II-C3).
    Hinted,
}

/// The Balancer's parameters.
///
/// ```
/// use cosched_balancer::{BalancerConfig, Strategy};
/// use cosched_core::Duration;
/// let c = BalancerConfig::new(Strategy::Basic { static_reserve: 4 })
///     .with_window(Duration::from_mins(5))
///     .with_idle_hold(Duration::from_mins(30));
/// assert!(c.validate().is_ok());
/// assert!(c.with_window(Duration(-1)).validate().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BalancerConfig {
    /// Basic (static reserve) or hinted.
    pub strategy: Strategy,
    /// `W`: how long a request may wait for nodes (0: now or never).
    pub window: Duration,
    /// `I`: how long an unused on-demand node stays `OD_Reserve` before it goes back to batch
    /// (the paper gives no value: [`DEFAULT_IDLE_HOLD`]).
    pub idle_hold: Duration,
}

impl BalancerConfig {
    /// `strategy` with the paper's default `W = 0` (Algorithm 1's input line, §II-C1) and
    /// `I` = [`DEFAULT_IDLE_HOLD`].
    pub const fn new(strategy: Strategy) -> BalancerConfig {
        BalancerConfig {
            strategy,
            window: Duration::ZERO,
            idle_hold: DEFAULT_IDLE_HOLD,
        }
    }

    /// With the wait window `W`.
    pub const fn with_window(self, window: Duration) -> BalancerConfig {
        BalancerConfig { window, ..self }
    }

    /// With the idle-reserve hold `I`.
    pub const fn with_idle_hold(self, idle_hold: Duration) -> BalancerConfig {
        BalancerConfig { idle_hold, ..self }
    }

    /// Checks `W >= 0` and `I >= 0` (`R` is checked against the cluster by
    /// [`Balancer::start`]).
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.window.0 >= 0, "W", self.window.0, "must be >= 0")?;
        ParamError::check(self.idle_hold.0 >= 0, "I", self.idle_hold.0, "must be >= 0")
    }

    /// `R` (0 when hinted).
    pub const fn static_reserve(&self) -> u32 {
        match self.strategy {
            Strategy::Basic { static_reserve } => static_reserve,
            Strategy::Hinted => 0,
        }
    }
}

/// What a resource manager reports about one node (at start or after a restart).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RmNode {
    /// Its hostname.
    pub name: String,
    /// Its state.
    pub state: RmNodeState,
}

/// A node's state as the resource managers see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RmNodeState {
    /// In batch, idle.
    BatchIdle,
    /// In batch, running a job.
    BatchBusy,
    /// Taken out of batch by the Balancer, unused by on-demand work.
    OnDemandFree,
    /// Taken out of batch by the Balancer and running on-demand work.
    OnDemandAllocated,
    /// Down, or drained by an administrator: never adopted.
    Unavailable,
}

/// What happened, as the policy is told (the protocol's input). Owned, so executors can record
/// it ([`cosched_core::policy::Recorder`]) and replay it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Observation {
    /// `request_nodes(n)`: the ODRM asks for `nodes` nodes for `request` (an id the ODRM
    /// chooses, unique among live requests).
    Request {
        /// The request.
        request: LeaseId,
        /// Nodes wanted (at least 1).
        nodes: u32,
        /// The caller's own wait, when shorter than the policy's `W`: the request waits
        /// `min(wait, W)` (`None`: `W`). A negative wait is refused.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wait: Option<Duration>,
    },
    /// The ODRM withdraws a waiting request; the nodes gathered for it become free reserve.
    Cancel {
        /// The request.
        request: LeaseId,
    },
    /// `release_nodes(list)`: on-demand work on these nodes is over.
    Release {
        /// The nodes, each `OD_Alloc`.
        nodes: Vec<NodeId>,
    },
    /// `update_nodes`: the OARM is about to start a job on these nodes. Refused
    /// ([`BalancerError::NodeReclaimed`]) if the Balancer holds one: the race guard of §II-B.
    JobStarting {
        /// The nodes.
        nodes: Vec<NodeId>,
    },
    /// `update_nodes`: a job ended on these nodes, which the Balancer may now reclaim.
    JobEnded {
        /// The nodes.
        nodes: Vec<NodeId>,
    },
    /// `add_reserve(H, N)`: gather `nodes` extra reserve nodes by `by`.
    Hint {
        /// `H`, as a time.
        by: Time,
        /// `N`.
        nodes: u32,
    },
    /// The Predictive algorithm's `add_reserve(0, N)` at a slot's start: keep the on-demand
    /// pool at `nodes` at least until `until` (the slot's end).
    ReserveTarget {
        /// `N`.
        nodes: u32,
        /// The slot's end.
        until: Time,
    },
    /// An administrator took the node down or drained it (`available: false`), or gave it back.
    Availability {
        /// The node.
        node: NodeId,
        /// Whether it may be used.
        available: bool,
    },
}

/// What the policy decides (the protocol's output), in the order to apply them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Command {
    /// OARM `reclaim_node`: take this idle node out of batch.
    Reclaim(NodeId),
    /// OARM `restore_node`: give this node back to batch.
    Restore(NodeId),
    /// ODRM: the request has these nodes.
    Grant {
        /// The request.
        request: LeaseId,
        /// Its nodes.
        nodes: Vec<NodeId>,
    },
    /// ODRM: the request is refused.
    Reject {
        /// The request.
        request: LeaseId,
    },
}

/// A policy of the Balancer's protocol: the core [`Policy`] trait with the Balancer's
/// observation, command and view.
///
/// The view is the executor's node list as the resource managers report it (node `i` at
/// position `i`: hostnames and [`RmNodeState`]s). By convention every policy of the protocol
/// reads it in [`start`](Policy::start), its one start-up input (at first start, or after a
/// restart from the resource managers' states), and tracks the nodes from the observations
/// afterwards; executors lend their current list at every call. The Balancer, [`crate::predictor::Predictive`] and the static
/// baselines ([`crate::baseline`]) are ones; so is any caller's type that implements it, and it
/// runs in the simulator and the live service alike.
pub trait BalancerPolicy:
    Policy<Observation = Observation, Command = Command, View = [RmNode]>
{
}

impl<P> BalancerPolicy for P where
    P: Policy<Observation = Observation, Command = Command, View = [RmNode]> + ?Sized
{
}

/// A node's place in the Balancer's books: the four states of §II-C1, with what a reserve
/// node is kept for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NodeSlot {
    /// In the batch pool, idle.
    OaIdle,
    /// In the batch pool, running a job.
    OaBusy,
    /// On-demand and unused: `claim` is the waiting request or hint it is gathered for (a
    /// number the policy chooses), `hold_until` when, unclaimed, it may go back to batch
    /// ([`Time::MAX`]: never).
    OdReserve {
        /// When it may go back to batch.
        hold_until: Time,
        /// The claim it is gathered for.
        claim: Option<u64>,
    },
    /// Granted to an on-demand request.
    OdAlloc,
}

impl NodeSlot {
    /// The node's state.
    pub const fn state(self) -> BalancerNodeState {
        match self {
            NodeSlot::OaIdle => BalancerNodeState::OaIdle,
            NodeSlot::OaBusy => BalancerNodeState::OaBusy,
            NodeSlot::OdReserve { .. } => BalancerNodeState::OdReserve,
            NodeSlot::OdAlloc => BalancerNodeState::OdAlloc,
        }
    }
}

/// The node bookkeeping every policy of the Balancer's protocol needs, as the Balancer keeps
/// it: each node's [`NodeSlot`], the nodes an administrator took away, and indexes kept with
/// them so that each call's work follows the nodes it touches, not the cluster's size (idle
/// available batch nodes, free reserve nodes, free reserve nodes by hold end, the on-demand
/// pool's size). A policy builds it at [`Policy::start`] from the view
/// ([`NodeTracker::from_view`]), records the observations' job starts and ends
/// ([`NodeTracker::start_jobs`], [`NodeTracker::end_jobs`]) and its own commands
/// ([`NodeTracker::set`]), and asks it which nodes it may take.
///
/// ```
/// use cosched_balancer::policy::{NodeSlot, NodeTracker, RmNode, RmNodeState};
/// use cosched_core::{NodeId, Time};
/// let view: Vec<RmNode> = ["a", "b", "c"].iter().map(|n| RmNode {
///     name: n.to_string(), state: RmNodeState::BatchIdle,
/// }).collect();
/// let mut nodes = NodeTracker::from_view(&view, Time::MAX).unwrap();
/// nodes.start_jobs(&[NodeId(0)]).unwrap();
/// nodes.set(NodeId(1), NodeSlot::OdReserve { hold_until: Time::MAX, claim: None });
/// assert_eq!(nodes.idle().collect::<Vec<_>>(), [NodeId(2)]);
/// assert_eq!(nodes.free_reserve().collect::<Vec<_>>(), [NodeId(1)]);
/// assert_eq!(nodes.on_demand_pool(), 1);
/// // A job end on a node that runs none is refused, and changes nothing.
/// assert!(nodes.end_jobs(&[NodeId(2)]).is_err());
/// nodes.end_jobs(&[NodeId(0)]).unwrap();
/// assert_eq!(nodes.idle().count(), 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeTracker {
    names: Vec<String>,
    by_name: BTreeMap<String, NodeId>,
    slots: Vec<NodeSlot>,
    /// Down or drained by an administrator: never claimed.
    unavailable: Vec<bool>,
    idle: BTreeSet<NodeId>,
    free: BTreeSet<NodeId>,
    holds: BTreeSet<(Time, NodeId)>,
    pool: u32,
}

impl NodeTracker {
    /// The nodes of `view` (node `i` at position `i`, hostnames unique), each in the slot its
    /// reported state means; an on-demand free node is held until `hold_until`, a node
    /// reported unavailable is idle and unavailable.
    pub fn from_view(view: &[RmNode], hold_until: Time) -> Result<NodeTracker, BalancerError> {
        let n = u32::try_from(view.len())
            .map_err(|_| ParamError::new("nodes", view.len(), "at most 2^32 - 1"))?;
        let mut by_name = BTreeMap::new();
        let mut names = Vec::with_capacity(view.len());
        let mut slots = Vec::with_capacity(view.len());
        let mut unavailable = Vec::with_capacity(view.len());
        for (i, node) in (0..n).zip(view) {
            if by_name.insert(node.name.clone(), NodeId(i)).is_some() {
                return Err(BalancerError::DuplicateName(node.name.clone()));
            }
            slots.push(match node.state {
                RmNodeState::BatchIdle | RmNodeState::Unavailable => NodeSlot::OaIdle,
                RmNodeState::BatchBusy => NodeSlot::OaBusy,
                RmNodeState::OnDemandFree => NodeSlot::OdReserve {
                    hold_until,
                    claim: None,
                },
                RmNodeState::OnDemandAllocated => NodeSlot::OdAlloc,
            });
            unavailable.push(node.state == RmNodeState::Unavailable);
            names.push(node.name.clone());
        }
        let mut tracker = NodeTracker {
            names,
            by_name,
            slots: vec![NodeSlot::OaBusy; slots.len()],
            unavailable,
            ..NodeTracker::default()
        };
        for (i, slot) in slots.into_iter().enumerate() {
            tracker.set(NodeId(i as u32), slot);
        }
        Ok(tracker)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// A node's hostname.
    pub fn name(&self, node: NodeId) -> Option<&str> {
        self.names.get(node.index()).map(String::as_str)
    }

    /// The node with hostname `name`.
    pub fn node(&self, name: &str) -> Option<NodeId> {
        self.by_name.get(name).copied()
    }

    /// A node's slot.
    pub fn slot(&self, node: NodeId) -> Result<NodeSlot, BalancerError> {
        self.slots
            .get(node.index())
            .copied()
            .ok_or(BalancerError::UnknownNode(node))
    }

    /// A node's state.
    pub fn state(&self, node: NodeId) -> Result<BalancerNodeState, BalancerError> {
        self.slot(node).map(NodeSlot::state)
    }

    /// How many nodes are in `state`.
    pub fn count(&self, state: BalancerNodeState) -> u32 {
        self.slots.iter().filter(|s| s.state() == state).count() as u32
    }

    /// Whether an administrator has taken the node out of use.
    pub fn is_unavailable(&self, node: NodeId) -> bool {
        self.unavailable.get(node.index()).copied().unwrap_or(false)
    }

    /// Reserve and allocated nodes.
    pub fn on_demand_pool(&self) -> u32 {
        self.pool
    }

    /// Free reserve nodes (unclaimed), in index order.
    pub fn free_reserve(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.free.iter().copied()
    }

    /// Idle available batch nodes, in index order.
    pub fn idle(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.idle.iter().copied()
    }

    /// Free reserve nodes with a hold end, by (hold end, node).
    pub fn holds(&self) -> impl Iterator<Item = (Time, NodeId)> + '_ {
        self.holds.iter().copied()
    }

    /// Free reserve nodes whose hold has ended by `now`, by (hold end, node).
    pub fn holds_ended(&self, now: Time) -> impl Iterator<Item = NodeId> + '_ {
        self.holds
            .range(..=(now, NodeId(u32::MAX)))
            .map(|&(_, n)| n)
    }

    /// Puts `node` in `slot`, keeping the indexes (a node outside the tracker is ignored).
    pub fn set(&mut self, node: NodeId, slot: NodeSlot) {
        if node.index() >= self.slots.len() {
            return;
        }
        self.unindex(node);
        self.slots[node.index()] = slot;
        self.index(node);
    }

    /// Marks `node` (un)available, keeping the indexes (a node outside the tracker is
    /// ignored).
    pub fn set_unavailable(&mut self, node: NodeId, unavailable: bool) {
        if node.index() >= self.slots.len() {
            return;
        }
        self.unindex(node);
        self.unavailable[node.index()] = unavailable;
        self.index(node);
    }

    /// A job starts on `nodes` (the protocol's `JobStarting`): each must be in the batch pool
    /// ([`BalancerError::NodeReclaimed`] otherwise, nothing changed) and becomes busy.
    pub fn start_jobs(&mut self, nodes: &[NodeId]) -> Result<(), BalancerError> {
        self.check_nodes(
            nodes,
            |s| matches!(s, NodeSlot::OaIdle | NodeSlot::OaBusy),
            |node, state| BalancerError::NodeReclaimed { node, state },
        )?;
        for &n in nodes {
            self.set(n, NodeSlot::OaBusy);
        }
        Ok(())
    }

    /// A job ends on `nodes` (the protocol's `JobEnded`): each must run one
    /// ([`BalancerError::NoJob`] otherwise, nothing changed) and becomes idle in batch.
    pub fn end_jobs(&mut self, nodes: &[NodeId]) -> Result<(), BalancerError> {
        self.check_nodes(
            nodes,
            |s| s == NodeSlot::OaBusy,
            |node, state| BalancerError::NoJob { node, state },
        )?;
        for &n in nodes {
            self.set(n, NodeSlot::OaIdle);
        }
        Ok(())
    }

    /// Checks that every one of `nodes` exists, appears once and is in a slot `ok` accepts;
    /// the first that is not is `err`'s error.
    pub fn check_nodes(
        &self,
        nodes: &[NodeId],
        ok: impl Fn(NodeSlot) -> bool,
        err: impl Fn(NodeId, BalancerNodeState) -> BalancerError,
    ) -> Result<(), BalancerError> {
        for (i, &node) in nodes.iter().enumerate() {
            let slot = self.slot(node)?;
            if !ok(slot) || nodes[..i].contains(&node) {
                return Err(err(node, slot.state()));
            }
        }
        Ok(())
    }

    fn unindex(&mut self, node: NodeId) {
        match self.slots[node.index()] {
            NodeSlot::OaIdle => {
                self.idle.remove(&node);
            }
            NodeSlot::OaBusy => {}
            NodeSlot::OdReserve { hold_until, claim } => {
                self.pool -= 1;
                if claim.is_none() {
                    self.free.remove(&node);
                    self.holds.remove(&(hold_until, node));
                }
            }
            NodeSlot::OdAlloc => self.pool -= 1,
        }
    }

    fn index(&mut self, node: NodeId) {
        match self.slots[node.index()] {
            NodeSlot::OaIdle => {
                if !self.unavailable[node.index()] {
                    self.idle.insert(node);
                }
            }
            NodeSlot::OaBusy => {}
            NodeSlot::OdReserve { hold_until, claim } => {
                self.pool += 1;
                if claim.is_none() {
                    self.free.insert(node);
                    if hold_until != Time::MAX {
                        self.holds.insert((hold_until, node));
                    }
                }
            }
            NodeSlot::OdAlloc => self.pool += 1,
        }
    }
}

/// A waiting request or hint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Claim {
    id: u64,
    /// `Some` for a request, `None` for a hint.
    request: Option<LeaseId>,
    want: u32,
    held: Vec<NodeId>,
    /// A request's `now + W`, or a hint's `H`.
    deadline: Time,
}

/// The Balancer: Algorithm 1 with its reserve rules; see the [module docs](self).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Balancer {
    config: BalancerConfig,
    /// The nodes' books.
    #[serde(flatten)]
    nodes: NodeTracker,
    /// Waiting claims, oldest first.
    claims: Vec<Claim>,
    next_claim: u64,
    /// The predicted reserve and its end.
    target: Option<(u32, Time)>,
}

impl Balancer {
    /// A Balancer with `config`, not started: [`Policy::start`] builds its nodes from the
    /// executor's node list (at first start or after a restart), checks `config` against
    /// them and returns the commands that bring the static reserve up to `R` (idle nodes at
    /// once; busy ones as their jobs end). Until then it knows no node.
    pub fn new(config: BalancerConfig) -> Balancer {
        Balancer {
            config,
            nodes: NodeTracker::default(),
            claims: Vec::new(),
            next_claim: 0,
            target: None,
        }
    }

    /// [`Balancer::new`] started at `now` on `nodes`, with its start-up commands.
    pub fn started(
        now: Time,
        config: BalancerConfig,
        nodes: &[RmNode],
    ) -> Result<(Balancer, Vec<Command>), BalancerError> {
        let mut b = Balancer::new(config);
        let mut out = Vec::new();
        b.start(now, nodes, &mut out)?;
        Ok((b, out))
    }

    fn build(&mut self, now: Time, view: &[RmNode]) -> Result<(), BalancerError> {
        let config = self.config;
        config.validate()?;
        ParamError::check(!view.is_empty(), "nodes", 0, "a cluster needs >= 1 node")?;
        ParamError::check(
            config.static_reserve() as usize <= view.len(),
            "R",
            config.static_reserve(),
            "must be <= the number of nodes",
        )?;
        let nodes = NodeTracker::from_view(view, now.saturating_add(config.idle_hold))?;
        *self = Balancer {
            nodes,
            ..Balancer::new(config)
        };
        Ok(())
    }

    /// The parameters.
    pub fn config(&self) -> &BalancerConfig {
        &self.config
    }

    /// The nodes' books (see [`NodeTracker`]).
    pub fn nodes(&self) -> &NodeTracker {
        &self.nodes
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether there are no nodes (never: [`Balancer::start`] needs one).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// A node's hostname.
    pub fn name(&self, node: NodeId) -> Option<&str> {
        self.nodes.name(node)
    }

    /// The node with hostname `name`.
    pub fn node(&self, name: &str) -> Option<NodeId> {
        self.nodes.node(name)
    }

    /// A node's state.
    pub fn state(&self, node: NodeId) -> Result<BalancerNodeState, BalancerError> {
        self.nodes.state(node)
    }

    /// How many nodes are in `state`.
    pub fn count(&self, state: BalancerNodeState) -> u32 {
        self.nodes.count(state)
    }

    /// Whether an administrator has taken the node out of use.
    pub fn is_unavailable(&self, node: NodeId) -> bool {
        self.nodes.is_unavailable(node)
    }

    /// The requests waiting for nodes, oldest first, with their deadlines.
    pub fn waiting_requests(&self) -> impl Iterator<Item = (LeaseId, Time)> + '_ {
        self.claims
            .iter()
            .filter_map(|c| c.request.map(|r| (r, c.deadline)))
    }

    /// The reserve floor at `now`: `R`, or the predicted target while its slot lasts.
    fn floor(&self, now: Time) -> u32 {
        let predicted = match self.target {
            Some((n, until)) if now < until => n,
            _ => 0,
        };
        self.config.static_reserve().max(predicted)
    }

    /// When the floor may next fall.
    fn floor_until(&self, now: Time) -> Time {
        match self.target {
            Some((n, until)) if now < until && n > self.config.static_reserve() => until,
            _ => Time::MAX,
        }
    }

    /// Algorithm 1's `request_nodes`.
    fn request(
        &mut self,
        now: Time,
        request: LeaseId,
        nodes: u32,
        wait: Option<Duration>,
        out: &mut Vec<Command>,
    ) -> Result<(), BalancerError> {
        ParamError::check(nodes >= 1, "nodes", nodes, "a request needs >= 1 node")?;
        let window = wait_within(wait, self.config.window)?;
        if self.claims.iter().any(|c| c.request == Some(request)) {
            return Err(BalancerError::DuplicateRequest(request));
        }
        let available = self.nodes.free.len() + self.nodes.idle.len();
        let want = nodes as usize;
        if available < want && window == Duration::ZERO {
            out.push(Command::Reject { request });
            // Reserve nodes left unused (a hint's, matured for this request) serve the
            // waiting claims now rather than after their hold.
            self.distribute(now, out);
            return Ok(());
        }
        let take: Vec<NodeId> = self
            .nodes
            .free_reserve()
            .chain(self.nodes.idle())
            .take(want)
            .collect();
        let id = self.next_claim;
        self.next_claim += 1;
        self.claims.push(Claim {
            id,
            request: Some(request),
            want: nodes,
            held: Vec::new(),
            deadline: now.saturating_add(window),
        });
        let pos = self.claims.len() - 1;
        for node in take {
            self.take_for(pos, node, out);
        }
        self.complete(pos, out);
        Ok(())
    }

    /// Gives `node` (free reserve or idle) to claim `pos`.
    fn take_for(&mut self, pos: usize, node: NodeId, out: &mut Vec<Command>) {
        if self.nodes.slots[node.index()] == NodeSlot::OaIdle {
            out.push(Command::Reclaim(node));
        }
        let claim = &mut self.claims[pos];
        claim.held.push(node);
        let id = claim.id;
        self.nodes.set(
            node,
            NodeSlot::OdReserve {
                hold_until: Time::MAX,
                claim: Some(id),
            },
        );
    }

    /// Grants claim `pos` if it is a complete request.
    fn complete(&mut self, pos: usize, out: &mut Vec<Command>) {
        let claim = &self.claims[pos];
        let Some(request) = claim.request else {
            return;
        };
        if claim.held.len() < claim.want as usize {
            return;
        }
        let claim = self.claims.remove(pos);
        for &n in &claim.held {
            self.nodes.set(n, NodeSlot::OdAlloc);
        }
        out.push(Command::Grant {
            request,
            nodes: claim.held,
        });
    }

    /// The first claim still short of nodes.
    fn hungry_claim(&self) -> Option<usize> {
        self.claims
            .iter()
            .position(|c| c.held.len() < c.want as usize)
    }

    /// The floor that takes nodes as they become usable (a job's end, a top-up): the static
    /// reserve `R` only. A predicted reserve is `add_reserve(0, N)` (§II-C3), whose `H = 0`
    /// leaves no time to gather nodes: it takes the idle nodes at its slot's start and keeps
    /// what it holds, but takes no node later in the slot.
    fn gather_floor(&self) -> u32 {
        self.config.static_reserve()
    }

    /// Hands a node that became usable (free reserve, or idle in batch) to the oldest hungry
    /// claim, else to `floor` (an idle node, while the on-demand pool is below it). Returns
    /// whether it was taken.
    fn offer(&mut self, now: Time, node: NodeId, floor: u32, out: &mut Vec<Command>) -> bool {
        if self.nodes.unavailable[node.index()] {
            return false;
        }
        if let Some(pos) = self.hungry_claim() {
            self.take_for(pos, node, out);
            self.complete(pos, out);
            return true;
        }
        if self.nodes.slots[node.index()] == NodeSlot::OaIdle && self.nodes.on_demand_pool() < floor
        {
            out.push(Command::Reclaim(node));
            // Held while the floor lasts (for ever under R, to the slot's end if predicted).
            self.nodes.set(
                node,
                NodeSlot::OdReserve {
                    hold_until: now
                        .saturating_add(self.config.idle_hold)
                        .max(self.floor_until(now)),
                    claim: None,
                },
            );
            return true;
        }
        false
    }

    /// Offers the free reserve to the waiting requests (Algorithm 1's `nr`), then idle nodes to
    /// the floor. Hints take no free reserve node until its hold ends (`tick`): a
    /// hint adds extra nodes (§II-C2), and the free reserve may hold another hint's nodes,
    /// matured for requests still to come at this instant.
    fn distribute(&mut self, now: Time, out: &mut Vec<Command>) {
        while let Some(pos) = self
            .claims
            .iter()
            .position(|c| c.request.is_some() && c.held.len() < c.want as usize)
        {
            let Some(node) = self.nodes.free_reserve().next() else {
                break;
            };
            self.take_for(pos, node, out);
            self.complete(pos, out);
        }
        self.top_up(now, self.gather_floor(), out);
    }

    /// Reclaims idle nodes while the on-demand pool is below `floor`.
    fn top_up(&mut self, now: Time, floor: u32, out: &mut Vec<Command>) {
        while self.nodes.on_demand_pool() < floor {
            let Some(node) = self.nodes.idle().next() else {
                break;
            };
            self.offer(now, node, floor, out);
        }
    }

    /// Hints whose `H` has come: their nodes become free reserve, held `I` from `H`.
    fn mature_hints(&mut self, now: Time) {
        let hold = self.config.idle_hold;
        let mut i = 0;
        while i < self.claims.len() {
            let c = &self.claims[i];
            if c.request.is_none() && c.deadline <= now {
                let c = self.claims.remove(i);
                for n in c.held {
                    self.nodes.set(
                        n,
                        NodeSlot::OdReserve {
                            hold_until: c.deadline.saturating_add(hold),
                            claim: None,
                        },
                    );
                }
            } else {
                i += 1;
            }
        }
    }

    /// Ends a request's claim (rejected or cancelled): its nodes become free reserve for `I`.
    fn drop_claim(&mut self, now: Time, pos: usize) {
        let c = self.claims.remove(pos);
        for n in c.held {
            self.nodes.set(
                n,
                NodeSlot::OdReserve {
                    hold_until: now.saturating_add(self.config.idle_hold),
                    claim: None,
                },
            );
        }
    }

    fn tick(&mut self, now: Time, out: &mut Vec<Command>) {
        while let Some(pos) = self
            .claims
            .iter()
            .position(|c| c.request.is_some() && c.deadline <= now)
        {
            let request = self.claims[pos].request;
            self.drop_claim(now, pos);
            if let Some(request) = request {
                out.push(Command::Reject { request });
            }
        }
        self.distribute(now, out);
        let floor = self.floor(now);
        // Free reserve nodes whose hold has ended, in index order.
        let mut due: Vec<NodeId> = self.nodes.holds_ended(now).collect();
        due.sort_unstable();
        for node in due {
            // A waiting claim (a hint) takes it before batch does.
            if self.offer(now, node, self.gather_floor(), out) {
                continue;
            }
            if self.nodes.on_demand_pool() <= floor && !self.nodes.unavailable[node.index()] {
                let hold_until = self.floor_until(now);
                self.nodes.set(
                    node,
                    NodeSlot::OdReserve {
                        hold_until,
                        claim: None,
                    },
                );
            } else {
                self.nodes.set(node, NodeSlot::OaIdle);
                out.push(Command::Restore(node));
            }
        }
    }
}

/// A request's wait: `min(wait, window)`, `window` when none is given; a negative wait is a
/// [`ParamError`].
pub(crate) fn wait_within(
    wait: Option<Duration>,
    window: Duration,
) -> Result<Duration, BalancerError> {
    let Some(wait) = wait else {
        return Ok(window);
    };
    ParamError::check(wait.0 >= 0, "wait", wait.0, "must be >= 0")?;
    Ok(wait.min(window))
}

impl Policy for Balancer {
    type Observation = Observation;
    type Command = Command;
    type View = [RmNode];
    type Error = BalancerError;

    fn start(
        &mut self,
        now: Time,
        view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), BalancerError> {
        self.build(now, view)?;
        self.top_up(now, self.gather_floor(), out);
        Ok(())
    }

    fn observe(
        &mut self,
        now: Time,
        observation: &Observation,
        _view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), BalancerError> {
        self.mature_hints(now);
        match *observation {
            Observation::Request {
                request,
                nodes,
                wait,
            } => {
                self.request(now, request, nodes, wait, out)?;
            }
            Observation::Cancel { request } => {
                let pos = self
                    .claims
                    .iter()
                    .position(|c| c.request == Some(request))
                    .ok_or(BalancerError::UnknownRequest(request))?;
                self.drop_claim(now, pos);
                self.distribute(now, out);
            }
            Observation::Release { ref nodes } => {
                self.nodes.check_nodes(
                    nodes,
                    |s| s == NodeSlot::OdAlloc,
                    |n, _| BalancerError::NotAllocated(n),
                )?;
                for &n in nodes {
                    if self.nodes.unavailable[n.index()] {
                        self.nodes.set(n, NodeSlot::OaIdle);
                        out.push(Command::Restore(n));
                    } else {
                        self.nodes.set(
                            n,
                            NodeSlot::OdReserve {
                                hold_until: now.saturating_add(self.config.idle_hold),
                                claim: None,
                            },
                        );
                    }
                }
                self.distribute(now, out);
            }
            Observation::JobStarting { ref nodes } => {
                self.nodes.start_jobs(nodes)?;
            }
            Observation::JobEnded { ref nodes } => {
                self.nodes.end_jobs(nodes)?;
                for &n in nodes {
                    self.offer(now, n, self.gather_floor(), out);
                }
            }
            Observation::Hint { by, nodes } => {
                if matches!(self.config.strategy, Strategy::Basic { .. }) {
                    return Err(BalancerError::HintsDisabled);
                }
                let id = self.next_claim;
                self.next_claim += 1;
                self.claims.push(Claim {
                    id,
                    request: None,
                    want: nodes,
                    held: Vec::new(),
                    deadline: by.max(now),
                });
                let pos = self.claims.len() - 1;
                // Extra nodes: idle ones, never the free reserve (see `distribute`).
                let take: Vec<NodeId> = self.nodes.idle().take(nodes as usize).collect();
                for node in take {
                    self.take_for(pos, node, out);
                }
                self.mature_hints(now);
            }
            Observation::ReserveTarget { nodes, until } => {
                if matches!(self.config.strategy, Strategy::Basic { .. }) {
                    return Err(BalancerError::HintsDisabled);
                }
                self.target = Some((nodes, until));
                // Reserve nodes already held count towards the slot: hold them to its end.
                let floor = self.floor(now);
                let free: Vec<NodeId> = self.nodes.free_reserve().collect();
                let mut kept = self.nodes.on_demand_pool() - free.len() as u32;
                for node in free {
                    if let NodeSlot::OdReserve {
                        hold_until,
                        claim: None,
                    } = self.nodes.slots[node.index()]
                        && kept < floor
                    {
                        kept += 1;
                        self.nodes.set(
                            node,
                            NodeSlot::OdReserve {
                                hold_until: hold_until.max(until),
                                claim: None,
                            },
                        );
                    }
                }
                self.top_up(now, floor, out);
            }
            Observation::Availability { node, available } => {
                let slot = self.nodes.slot(node)?;
                self.nodes.set_unavailable(node, !available);
                match (available, slot) {
                    (false, NodeSlot::OdReserve { claim, .. }) => {
                        if let Some(id) = claim
                            && let Some(c) = self.claims.iter_mut().find(|c| c.id == id)
                        {
                            c.held.retain(|&h| h != node);
                        }
                        self.nodes.set(node, NodeSlot::OaIdle);
                        out.push(Command::Restore(node));
                        self.distribute(now, out);
                    }
                    (true, NodeSlot::OaIdle) => {
                        self.offer(now, node, self.gather_floor(), out);
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Acts on the deadlines due at `now`: requests whose wait ran out are rejected, hints
    /// whose `H` came mature, unused reserve past its hold goes back to batch.
    fn wake(
        &mut self,
        now: Time,
        _view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), BalancerError> {
        self.mature_hints(now);
        self.tick(now, out);
        Ok(())
    }

    fn next_wake(&self) -> Option<Time> {
        let claims = self.claims.iter().map(|c| c.deadline).min();
        let hold = self.nodes.holds.first().map(|&(t, _)| t);
        claims.into_iter().chain(hold).min()
    }
}
