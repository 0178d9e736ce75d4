//! The Balancer policy: Basic, Hint and Predictive (Liu, Keahey, Riteau, Weissman, SC18,
//! section III and Algorithm 1).
//!
//! One cluster of `N` nodes is soft-partitioned into an on-demand pool, served by an on-demand
//! resource manager (ODRM), and an on-availability pool, served by a batch resource manager
//! (the OARM, driven through [`Oarm`]). Every node is in exactly one [`BalancerNodeState`]:
//!
//! - [`OdReserve`](BalancerNodeState::OdReserve): on-demand, unused (offline in the OARM);
//! - [`OdAlloc`](BalancerNodeState::OdAlloc): on-demand, granted to a request (offline);
//! - [`OaIdle`](BalancerNodeState::OaIdle) / [`OaBusy`](BalancerNodeState::OaBusy): batch;
//! - [`Reclaiming`](BalancerNodeState::Reclaiming): still running its batch job, draining in
//!   the OARM, claimed for a pending request or a reserve hint; it turns on-demand when its
//!   job ends. No batch job is ever killed or checkpointed.
//!
//! ## Algorithm 1 (all strategies)
//! A request for `n` nodes is served from `OD_Reserve`, then by reclaiming `OA_Idle` nodes,
//! then by draining `OA_Busy` nodes whose jobs end within the wait window `W` (by remaining
//! walltime, shortest first). If `n` nodes cannot be had within `W` it is rejected at once
//! (with `W = 0` busy nodes are never considered). Otherwise it is granted at once or becomes
//! pending with deadline `now + W`; a pending request takes any reserve or idle node that
//! appears before its drained nodes are free (giving the drained node back to batch) and is
//! rejected by [`Balancer::tick`] if its deadline passes first. Unused on-demand nodes stay
//! `OD_Reserve` for the idle-reserve hold `I`, then go back to batch.
//!
//! - **Basic** ([`Strategy::Basic`]): a static reserve of `R` nodes is taken at start and never
//!   given back (expiry never brings the on-demand pool below `R` nodes).
//! - **Hint** ([`Strategy::Hinted`]): no static reserve; [`Balancer::add_reserve`]`(H, N)`
//!   builds `N` extra reserve nodes by time `H` (reclaiming idle nodes, then draining busy
//!   nodes whose jobs end by `H`); they are held `I` from `H` on.
//! - **Predictive**: the hinted Balancer fed by [`crate::predictor::Predictor`], which issues
//!   `add_reserve(now, N)` at the start of each 6-hour slot.
//!
//! ## No clock
//! The policy holds no clock: every call takes `now`. Deadlines (`W`) and hold expiries (`I`)
//! are acted on by [`Balancer::tick`], which the driver calls at [`Balancer::next_deadline`]
//! after delivering every other event of that instant (job ends first, so a node freed exactly
//! at a deadline still counts).
//!
//! ## The start/reclaim race
//! The OARM must call [`Balancer::update_nodes`] with [`NodeUpdate::JobStarting`] before it
//! starts a job on a node; the call fails ([`BalancerError::NodeReclaimed`]) if the node is
//! on-demand or being reclaimed. In addition the Balancer takes every node it claims out of
//! the OARM's hands at the moment it claims it: an idle node goes offline at once and a busy
//! one is set draining ([`Oarm::reclaim_node`]), so the batch scheduler cannot pick it for the
//! next job. [`cosched_batch::BatchCluster`] picks nodes itself during a pass, so a driver
//! reports the started jobs' nodes right after the pass; because claimed nodes are already
//! offline or draining there, that report can never be refused, which is what the property
//! tests check (and that a start on a claimed node is refused).

use crate::{BalancerError, Oarm};
use cosched_batch::OfflineOutcome;
use cosched_core::{Duration, LeaseId, NodeId, NodeState, NodeStatus, ParamError, Time};

/// A node's state in the Balancer (the paper's `OD_Reserve`, `OD_Alloc`, `OA_Idle`,
/// `OA_Busy`, plus the draining state of a node being reclaimed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BalancerNodeState {
    /// On-demand and unused (offline in the OARM); possibly held for a pending request.
    OdReserve,
    /// Granted to an on-demand request (offline in the OARM).
    OdAlloc,
    /// In the batch pool, idle.
    OaIdle,
    /// In the batch pool, running a job.
    OaBusy,
    /// Running a batch job, draining in the OARM; on-demand when the job ends.
    Reclaiming,
}

impl BalancerNodeState {
    /// Every state, for counting.
    pub const ALL: [BalancerNodeState; 5] = [
        BalancerNodeState::OdReserve,
        BalancerNodeState::OdAlloc,
        BalancerNodeState::OaIdle,
        BalancerNodeState::OaBusy,
        BalancerNodeState::Reclaiming,
    ];

    /// Whether the node serves on-demand work now (offline in the OARM).
    pub const fn is_on_demand(self) -> bool {
        matches!(
            self,
            BalancerNodeState::OdReserve | BalancerNodeState::OdAlloc
        )
    }
}

/// How the Balancer builds its reserve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Algorithm 1 with a static reserve of `static_reserve` (`R`) nodes, never returned to
    /// batch.
    Basic {
        /// `R`, at most the number of nodes.
        static_reserve: u32,
    },
    /// No static reserve; the reserve is built ahead by [`Balancer::add_reserve`] hints,
    /// given by users (Hint) or by [`crate::predictor::Predictor`] (Predictive).
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BalancerConfig {
    /// Basic (static reserve) or hinted.
    pub strategy: Strategy,
    /// `W`: how long a request may wait for drained nodes (default 0: now or never).
    pub window: Duration,
    /// `I`: how long an unused reclaimed or released node stays `OD_Reserve` before it goes
    /// back to batch (default 0: at the next [`Balancer::tick`]).
    pub idle_hold: Duration,
}

impl BalancerConfig {
    /// `strategy` with `W = 0` and `I = 0`.
    pub const fn new(strategy: Strategy) -> BalancerConfig {
        BalancerConfig {
            strategy,
            window: Duration::ZERO,
            idle_hold: Duration::ZERO,
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
    /// [`Balancer::new`]).
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.window.0 >= 0, "W", self.window.0, "must be >= 0")?;
        ParamError::check(self.idle_hold.0 >= 0, "I", self.idle_hold.0, "must be >= 0")
    }

    fn static_reserve(&self) -> u32 {
        match self.strategy {
            Strategy::Basic { static_reserve } => static_reserve,
            Strategy::Hinted => 0,
        }
    }
}

/// A request granted: its nodes are `OD_Alloc` from now on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    /// The request.
    pub request: LeaseId,
    /// Its nodes.
    pub nodes: Vec<NodeId>,
}

/// What a call decided besides its direct answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decisions {
    /// Pending requests granted.
    pub granted: Vec<Grant>,
    /// Pending requests rejected at their deadline.
    pub rejected: Vec<LeaseId>,
    /// Reserve nodes given back to batch after their hold `I`.
    pub returned_to_batch: Vec<NodeId>,
}

/// The answer to [`Balancer::request_nodes`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestOutcome {
    /// Granted now.
    Granted(Grant),
    /// Will be granted by `deadline` (`now + W`) or rejected then; the grant or rejection comes
    /// in the [`Decisions`] of a later call.
    Pending {
        /// The request.
        request: LeaseId,
        /// Its deadline.
        deadline: Time,
    },
    /// The nodes cannot be had within `W`.
    Rejected,
}

/// The answer to [`Balancer::add_reserve`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReserveOutcome {
    /// Nodes that joined the reserve now (idle batch nodes).
    pub reserved: u32,
    /// Busy nodes now draining into the reserve by the hint's time.
    pub draining: u32,
    /// Pending requests granted from the new reserve.
    pub decisions: Decisions,
}

/// An event the OARM reports about one node; see [`Balancer::update_nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeUpdate {
    /// The OARM is about to start a job on the node (refused if the Balancer holds it).
    JobStarting(NodeId),
    /// The job on the node ended.
    JobEnded(NodeId),
}

/// Whom a node being reclaimed goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Claim {
    /// A pending request.
    Request(LeaseId),
    /// The reserve, held `I` from `from` (`Time::MAX`: the static reserve, held for ever).
    Reserve { from: Time },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    OdReserve {
        /// When it goes back to batch if unused (`Time::MAX`: never).
        hold_until: Time,
        held_for: Option<LeaseId>,
    },
    OdAlloc,
    OaIdle,
    OaBusy,
    Reclaiming {
        claim: Claim,
        expected_by: Time,
    },
}

impl Slot {
    fn state(self) -> BalancerNodeState {
        match self {
            Slot::OdReserve { .. } => BalancerNodeState::OdReserve,
            Slot::OdAlloc => BalancerNodeState::OdAlloc,
            Slot::OaIdle => BalancerNodeState::OaIdle,
            Slot::OaBusy => BalancerNodeState::OaBusy,
            Slot::Reclaiming { .. } => BalancerNodeState::Reclaiming,
        }
    }
}

#[derive(Clone, Debug)]
struct Pending {
    id: LeaseId,
    nodes: u32,
    deadline: Time,
    held: Vec<NodeId>,
}

/// The Balancer; see the [module docs](self).
#[derive(Clone, Debug)]
pub struct Balancer {
    config: BalancerConfig,
    slots: Vec<Slot>,
    /// Pending requests, oldest first.
    pending: Vec<Pending>,
    next_request: u64,
}

impl Balancer {
    /// A Balancer over the OARM's nodes at `now`. Idle and busy nodes start in the batch pool;
    /// offline ones in the reserve (held `I`), draining ones as reclaimed into it. Under Basic,
    /// the static reserve `R` is then filled from idle nodes, then by draining the busy nodes
    /// that end first.
    pub fn new<O: Oarm>(
        now: Time,
        config: BalancerConfig,
        oarm: &mut O,
    ) -> Result<Balancer, BalancerError> {
        config.validate()?;
        let statuses = oarm.get_status_of_all_nodes(now);
        let r = config.static_reserve();
        ParamError::check(
            r as usize <= statuses.len(),
            "R",
            r,
            "the static reserve cannot exceed the cluster",
        )?;
        let mut balancer = Balancer {
            config,
            slots: Vec::with_capacity(statuses.len()),
            pending: Vec::new(),
            next_request: 0,
        };
        let held = Claim::Reserve { from: now };
        for s in &statuses {
            let slot = match s.state {
                NodeState::Idle => Slot::OaIdle,
                NodeState::Busy(_) => Slot::OaBusy,
                NodeState::Offline => balancer.reserve_slot(held, now),
                NodeState::Draining(_) => Slot::Reclaiming {
                    claim: held,
                    expected_by: expected_end(now, s),
                },
            };
            balancer.slots.push(slot);
        }
        let missing = r.saturating_sub(balancer.on_demand_nodes());
        let fixed = Claim::Reserve { from: Time::MAX };
        let mut nodes: Vec<NodeId> = balancer.nodes_where(|s| s == Slot::OaIdle).collect();
        nodes.extend(balancer.drainable(&statuses, now, Time::MAX, true));
        let mut ignored = Decisions::default();
        for &node in nodes.iter().take(missing as usize) {
            balancer.claim(now, oarm, node, fixed, &mut ignored)?;
        }
        Ok(balancer)
    }

    /// The parameters.
    pub fn config(&self) -> &BalancerConfig {
        &self.config
    }

    /// Nodes in the cluster.
    pub fn node_count(&self) -> u32 {
        self.slots.len() as u32
    }

    /// The state of `node`.
    pub fn state(&self, node: NodeId) -> Result<BalancerNodeState, BalancerError> {
        self.slot(node).map(Slot::state)
    }

    /// Every node's state, node `i` at position `i`.
    pub fn states(&self) -> impl Iterator<Item = BalancerNodeState> + '_ {
        self.slots.iter().map(|s| s.state())
    }

    /// Nodes in `state`.
    pub fn count(&self, state: BalancerNodeState) -> u32 {
        self.states().filter(|&s| s == state).count() as u32
    }

    /// The pending requests, oldest first, with their deadlines.
    pub fn pending(&self) -> impl Iterator<Item = (LeaseId, Time)> + '_ {
        self.pending.iter().map(|p| (p.id, p.deadline))
    }

    /// When [`Balancer::tick`] next has something to do: the earliest pending deadline or
    /// reserve hold expiry; `None` if nothing is due ever.
    pub fn next_deadline(&self) -> Option<Time> {
        let holds = self.slots.iter().filter_map(|s| match *s {
            Slot::OdReserve {
                hold_until,
                held_for: None,
            } if hold_until != Time::MAX => Some(hold_until),
            _ => None,
        });
        self.pending.iter().map(|p| p.deadline).chain(holds).min()
    }

    /// Algorithm 1: asks for `nodes` on-demand nodes at `now`.
    pub fn request_nodes<O: Oarm>(
        &mut self,
        now: Time,
        nodes: u32,
        oarm: &mut O,
    ) -> Result<RequestOutcome, BalancerError> {
        ParamError::check(
            nodes >= 1,
            "nodes",
            nodes,
            "a request needs at least one node",
        )?;
        let statuses = self.statuses(now, oarm)?;
        let deadline = now.saturating_add(self.config.window);
        let mut plan: Vec<NodeId> = self.spare_nodes().collect();
        plan.extend(self.drainable(&statuses, now, deadline, true));
        if plan.len() < nodes as usize {
            return Ok(RequestOutcome::Rejected);
        }
        let id = LeaseId(self.next_request);
        self.next_request += 1;
        self.pending.push(Pending {
            id,
            nodes,
            deadline,
            held: Vec::new(),
        });
        let mut decisions = Decisions::default();
        for &node in &plan[..nodes as usize] {
            self.claim(now, oarm, node, Claim::Request(id), &mut decisions)?;
        }
        Ok(match decisions.granted.pop() {
            Some(grant) => RequestOutcome::Granted(grant),
            None => RequestOutcome::Pending {
                request: id,
                deadline,
            },
        })
    }

    /// Gives on-demand nodes back: they become `OD_Reserve`, held `I`, and may serve pending
    /// requests at once. Every node must be `OD_Alloc` (else nothing changes).
    pub fn release_nodes<O: Oarm>(
        &mut self,
        now: Time,
        nodes: &[NodeId],
        oarm: &mut O,
    ) -> Result<Decisions, BalancerError> {
        for (i, &node) in nodes.iter().enumerate() {
            if self.slot(node)? != Slot::OdAlloc || nodes[..i].contains(&node) {
                return Err(BalancerError::NotAllocated(node));
            }
        }
        for &node in nodes {
            self.slots[node.index()] = self.reserve_slot(Claim::Reserve { from: now }, now);
        }
        let mut decisions = Decisions::default();
        self.serve_pending(now, oarm, &mut decisions)?;
        Ok(decisions)
    }

    /// What the OARM reports, in order: [`NodeUpdate::JobStarting`] **before** it starts a job
    /// on a node (refused with [`BalancerError::NodeReclaimed`] if the Balancer holds or is
    /// reclaiming the node), and [`NodeUpdate::JobEnded`] when a job ends (a node being
    /// reclaimed turns on-demand; pending requests may be granted). A refused batch changes
    /// nothing.
    pub fn update_nodes<O: Oarm>(
        &mut self,
        now: Time,
        updates: &[NodeUpdate],
        oarm: &mut O,
    ) -> Result<Decisions, BalancerError> {
        self.check_updates(updates)?;
        let mut decisions = Decisions::default();
        for &update in updates {
            match update {
                NodeUpdate::JobStarting(node) => self.slots[node.index()] = Slot::OaBusy,
                NodeUpdate::JobEnded(node) => match self.slots[node.index()] {
                    Slot::Reclaiming { claim, .. } => self.arrive(now, node, claim, &mut decisions),
                    _ => self.slots[node.index()] = Slot::OaIdle,
                },
            }
        }
        self.serve_pending(now, oarm, &mut decisions)?;
        Ok(decisions)
    }

    /// Hint: have `nodes` extra reserve nodes by `by` (`by <= now`: now), reclaiming idle
    /// batch nodes, then draining the busy ones whose jobs end by `by`, shortest first. Takes
    /// what it can; the outcome says how many. The nodes are held `I` from `by`.
    pub fn add_reserve<O: Oarm>(
        &mut self,
        now: Time,
        by: Time,
        nodes: u32,
        oarm: &mut O,
    ) -> Result<ReserveOutcome, BalancerError> {
        if matches!(self.config.strategy, Strategy::Basic { .. }) {
            return Err(BalancerError::HintsDisabled);
        }
        let by = by.max(now);
        let statuses = self.statuses(now, oarm)?;
        let mut outcome = ReserveOutcome::default();
        let claim = Claim::Reserve { from: by };
        let mut plan: Vec<NodeId> = self.nodes_where(|s| s == Slot::OaIdle).collect();
        plan.extend(self.drainable(&statuses, now, by, false));
        for node in plan {
            if outcome.reserved + outcome.draining == nodes {
                break;
            }
            if self.claim(now, oarm, node, claim, &mut outcome.decisions)? {
                outcome.reserved += 1;
            } else {
                outcome.draining += 1;
            }
        }
        self.serve_pending(now, oarm, &mut outcome.decisions)?;
        Ok(outcome)
    }

    /// Predictive: make the free reserve — unheld `OD_Reserve` nodes plus nodes draining into
    /// the reserve — at least `target` nodes by `by`, claiming only the shortfall through
    /// [`Balancer::add_reserve`]. This is what a predictor's slot figure feeds.
    pub fn reserve_at_least<O: Oarm>(
        &mut self,
        now: Time,
        by: Time,
        target: u32,
        oarm: &mut O,
    ) -> Result<ReserveOutcome, BalancerError> {
        let free_reserve = self
            .nodes_where(|s| {
                matches!(
                    s,
                    Slot::OdReserve { held_for: None, .. }
                        | Slot::Reclaiming {
                            claim: Claim::Reserve { .. },
                            ..
                        }
                )
            })
            .count() as u32;
        match target.saturating_sub(free_reserve) {
            0 => Ok(ReserveOutcome::default()),
            shortfall => self.add_reserve(now, by, shortfall, oarm),
        }
    }

    /// Acts on what is due at `now`: rejects pending requests whose deadline has come (their
    /// held nodes join the reserve, their draining nodes go back to batch), then gives back to
    /// batch the unused reserve nodes whose hold `I` is over (never bringing the on-demand
    /// pool below the static reserve `R`). Call it at [`Balancer::next_deadline`], after the
    /// instant's other events.
    pub fn tick<O: Oarm>(&mut self, now: Time, oarm: &mut O) -> Result<Decisions, BalancerError> {
        let mut decisions = Decisions::default();
        while let Some(pos) = self.pending.iter().position(|p| p.deadline <= now) {
            let p = self.pending.remove(pos);
            for node in p.held {
                self.slots[node.index()] = self.reserve_slot(Claim::Reserve { from: now }, now);
            }
            while let Some(node) = self.reclaiming_for(p.id) {
                self.restore(oarm, node, Slot::OaBusy)?;
            }
            decisions.rejected.push(p.id);
        }
        self.serve_pending(now, oarm, &mut decisions)?;
        for i in 0..self.slots.len() {
            let Slot::OdReserve {
                hold_until,
                held_for: None,
            } = self.slots[i]
            else {
                continue;
            };
            if hold_until > now {
                continue;
            }
            if self.on_demand_nodes() <= self.config.static_reserve() {
                self.slots[i] = Slot::OdReserve {
                    hold_until: Time::MAX,
                    held_for: None,
                };
            } else {
                let node = NodeId(i as u32);
                self.restore(oarm, node, Slot::OaIdle)?;
                decisions.returned_to_batch.push(node);
            }
        }
        Ok(decisions)
    }

    fn slot(&self, node: NodeId) -> Result<Slot, BalancerError> {
        self.slots
            .get(node.index())
            .copied()
            .ok_or(BalancerError::UnknownNode(node))
    }

    /// The OARM's node statuses, checked against the Balancer's view of who owns each node.
    fn statuses<O: Oarm>(&self, now: Time, oarm: &O) -> Result<Vec<NodeStatus>, BalancerError> {
        let statuses = oarm.get_status_of_all_nodes(now);
        if statuses.len() != self.slots.len() {
            return Err(BalancerError::OutOfSync {
                node: NodeId(statuses.len().min(self.slots.len()) as u32),
                what: "the number of nodes changed",
            });
        }
        Ok(statuses)
    }

    /// Nodes counted in the on-demand pool against `R`: reserve, allocated, and those draining
    /// into the static reserve.
    fn on_demand_nodes(&self) -> u32 {
        let fixed = Claim::Reserve { from: Time::MAX };
        self.slots
            .iter()
            .filter(|s| match s {
                Slot::OdReserve { .. } | Slot::OdAlloc => true,
                Slot::Reclaiming { claim, .. } => *claim == fixed,
                Slot::OaIdle | Slot::OaBusy => false,
            })
            .count() as u32
    }

    /// Unheld reserve nodes, then idle batch nodes: what a request can have at once.
    fn spare_nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        let reserve = self.nodes_where(|s| matches!(s, Slot::OdReserve { held_for: None, .. }));
        reserve.chain(self.nodes_where(|s| s == Slot::OaIdle))
    }

    fn nodes_where<'a>(
        &'a self,
        pred: impl Fn(Slot) -> bool + 'a,
    ) -> impl Iterator<Item = NodeId> + 'a {
        (0..self.slots.len() as u32)
            .map(NodeId)
            .filter(move |n| pred(self.slots[n.index()]))
    }

    /// Busy batch nodes whose job is predicted to end by `by` (none when `by <= now`), and,
    /// when `steal`, nodes draining into a hinted (not static) reserve by then: the nodes a
    /// claim may drain, earliest end first.
    fn drainable(&self, statuses: &[NodeStatus], now: Time, by: Time, steal: bool) -> Vec<NodeId> {
        if by <= now {
            return Vec::new();
        }
        let mut draining: Vec<(Time, NodeId)> = statuses
            .iter()
            .filter_map(|s| match (self.slots[s.node.index()], s.state) {
                (Slot::OaBusy, NodeState::Busy(_)) => Some((expected_end(now, s), s.node)),
                (
                    Slot::Reclaiming {
                        claim: Claim::Reserve { from },
                        expected_by,
                    },
                    _,
                ) if steal && from != Time::MAX => Some((expected_by, s.node)),
                _ => None,
            })
            .filter(|&(end, _)| end <= by)
            .collect();
        draining.sort_unstable();
        draining.into_iter().map(|(_, n)| n).collect()
    }

    /// Moves `node` (unheld reserve, idle, busy, or draining into the hinted reserve) to
    /// `claim`. Returns whether it arrived now (`false`: it drains until its job ends).
    fn claim<O: Oarm>(
        &mut self,
        now: Time,
        oarm: &mut O,
        node: NodeId,
        claim: Claim,
        decisions: &mut Decisions,
    ) -> Result<bool, BalancerError> {
        match self.slots[node.index()] {
            Slot::OdReserve { .. } => {}
            Slot::Reclaiming { expected_by, .. } => {
                self.slots[node.index()] = Slot::Reclaiming { claim, expected_by };
                return Ok(false);
            }
            Slot::OaIdle | Slot::OaBusy => {
                match oarm.reclaim_node(node).map_err(oarm_error(node))? {
                    OfflineOutcome::Offline => {}
                    OfflineOutcome::Draining { predicted_end, .. } => {
                        self.slots[node.index()] = Slot::Reclaiming {
                            claim,
                            expected_by: predicted_end,
                        };
                        return Ok(false);
                    }
                }
            }
            Slot::OdAlloc => unreachable!("allocated nodes are never claimed"),
        }
        self.arrive(now, node, claim, decisions);
        Ok(true)
    }

    /// `node` is on-demand now (offline in the OARM): it joins `claim`'s request (granting it
    /// when complete) or the reserve.
    fn arrive(&mut self, now: Time, node: NodeId, claim: Claim, decisions: &mut Decisions) {
        let Claim::Request(id) = claim else {
            self.slots[node.index()] = self.reserve_slot(claim, now);
            return;
        };
        let pos = self
            .pending
            .iter()
            .position(|p| p.id == id)
            .expect("nodes are claimed only for pending requests");
        let p = &mut self.pending[pos];
        p.held.push(node);
        self.slots[node.index()] = Slot::OdReserve {
            hold_until: Time::MAX,
            held_for: Some(id),
        };
        if p.held.len() == p.nodes as usize {
            let p = self.pending.remove(pos);
            for &n in &p.held {
                self.slots[n.index()] = Slot::OdAlloc;
            }
            decisions.granted.push(Grant {
                request: p.id,
                nodes: p.held,
            });
        }
    }

    fn reserve_slot(&self, claim: Claim, now: Time) -> Slot {
        let from = match claim {
            Claim::Reserve { from } => from.max(now),
            Claim::Request(_) => now,
        };
        Slot::OdReserve {
            hold_until: from.saturating_add(self.config.idle_hold),
            held_for: None,
        }
    }

    /// The node draining for request `id` whose job is predicted to end last.
    fn reclaiming_for(&self, id: LeaseId) -> Option<NodeId> {
        self.nodes_where(
            |s| matches!(s, Slot::Reclaiming { claim: Claim::Request(r), .. } if r == id),
        )
        .max_by_key(|n| match self.slots[n.index()] {
            Slot::Reclaiming { expected_by, .. } => (expected_by, *n),
            _ => (Time::ZERO, *n),
        })
    }

    /// Gives `node` back to batch, where it becomes `slot`.
    fn restore<O: Oarm>(
        &mut self,
        oarm: &mut O,
        node: NodeId,
        slot: Slot,
    ) -> Result<(), BalancerError> {
        oarm.restore_node(node).map_err(oarm_error(node))?;
        self.slots[node.index()] = slot;
        Ok(())
    }

    /// Lets pending requests, oldest first, swap a node they are draining for a spare node
    /// (unheld reserve, then idle batch): the drained node goes back to batch.
    fn serve_pending<O: Oarm>(
        &mut self,
        now: Time,
        oarm: &mut O,
        decisions: &mut Decisions,
    ) -> Result<(), BalancerError> {
        let mut i = 0;
        while let Some(p) = self.pending.get(i) {
            let id = p.id;
            let Some(victim) = self.reclaiming_for(id) else {
                i += 1;
                continue;
            };
            let Some(spare) = self.spare_nodes().next() else {
                return Ok(());
            };
            self.restore(oarm, victim, Slot::OaBusy)?;
            if !self.claim(now, oarm, spare, Claim::Request(id), decisions)? {
                return Err(BalancerError::OutOfSync {
                    node: spare,
                    what: "an idle node was busy in the batch resource manager",
                });
            }
        }
        Ok(())
    }

    /// Checks a batch of OARM updates against the Balancer's view, in order, without
    /// changing anything.
    fn check_updates(&self, updates: &[NodeUpdate]) -> Result<(), BalancerError> {
        let mut view: Vec<(NodeId, BalancerNodeState)> = Vec::new();
        for &update in updates {
            let node = match update {
                NodeUpdate::JobStarting(n) | NodeUpdate::JobEnded(n) => n,
            };
            let state = match view.iter().rev().find(|(n, _)| *n == node) {
                Some(&(_, s)) => s,
                None => self.state(node)?,
            };
            use BalancerNodeState::*;
            let next = match (update, state) {
                (NodeUpdate::JobStarting(_), OaIdle | OaBusy) => OaBusy,
                (NodeUpdate::JobStarting(_), _) => {
                    return Err(BalancerError::NodeReclaimed { node, state });
                }
                (NodeUpdate::JobEnded(_), OaBusy) => OaIdle,
                (NodeUpdate::JobEnded(_), Reclaiming) => OdReserve,
                (NodeUpdate::JobEnded(_), _) => return Err(BalancerError::NoJob { node, state }),
            };
            view.push((node, next));
        }
        Ok(())
    }
}

/// When the job on a busy node is predicted to end.
fn expected_end(now: Time, status: &NodeStatus) -> Time {
    now + status.remaining_walltime.unwrap_or(Duration::ZERO)
}

fn oarm_error<E: std::error::Error + Send + Sync + 'static>(
    node: NodeId,
) -> impl FnOnce(E) -> BalancerError {
    move |e| BalancerError::Oarm {
        node,
        source: Box::new(e),
    }
}
