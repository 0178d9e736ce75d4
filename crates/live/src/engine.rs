//! The executor between a policy of the Balancer's protocol and a live batch resource manager.
//!
//! [`Engine`] holds any policy of the protocol ([`BalancerPolicy`]: the [`Balancer`], the
//! Predictive policy, a static baseline, or a caller's own — the same objects the simulator
//! drives) and a [`LiveCluster`] (Slurm, through [`crate::SlurmOarm`]). It turns what the
//! cluster reports into the policy's observations — job starts and ends seen by polling, job
//! ends reported by the epilog, administrators' drains — applies the policy's commands to the
//! cluster through [`oarm::execute`], and answers the on-demand side's requests.
//!
//! The engine reads nothing of the policy but its commands and
//! [`next_wake`](cosched_core::policy::Policy::next_wake): it keeps its own record of what it
//! told the policy (which nodes run a job, which an administrator took away) and of what the
//! commands did (which nodes are reclaimed, which granted to which request). The view it lends
//! is the cluster's last report (hostnames and states), which a policy reads at start.
//!
//! Two rules keep batch jobs safe on a real system, where a job may start on a node between
//! the moment the executor reads it idle and the moment it drains it:
//! - a reclaimed node is handed to on-demand work only once the cluster reports it **settled**
//!   (drained with no job left); a grant holding an unsettled node waits for it;
//! - nothing is ever killed: reclaim is a drain, and a draining node finishes its job.
//!
//! [`Balancer`]: cosched_balancer::Balancer

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error as StdError;

use cosched_balancer::oarm::{self, Oarm};
use cosched_balancer::policy::{
    BalancerNodeState, BalancerPolicy, Command, Observation, RmNode, RmNodeState,
};
use cosched_core::driver::{CallError, Driver, Executor};
use cosched_core::{Duration, LeaseId, NodeId, Time, excerpt};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One node as the live cluster reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeReport {
    /// Its hostname.
    pub name: String,
    /// What it means to the Balancer.
    pub state: RmNodeState,
    /// For a node the Balancer reclaimed: whether it runs no batch job any more.
    pub settled: bool,
}

/// A batch resource manager the engine can drive and poll: the OARM's `reclaim_node` and
/// `restore_node` ([`Oarm`]) and its `get_status_of_all_nodes` ([`LiveCluster::report`]).
pub trait LiveCluster: Oarm {
    /// Every node, in a fixed order (node `i` at position `i`).
    fn report(&self) -> Result<Vec<NodeReport>, Self::Error>;
}

/// A caller's input the engine refused; nothing changed.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum InvalidInput {
    /// A request for no node.
    #[error("a request needs at least 1 node")]
    NoNodes,
    /// More nodes than the cluster has.
    #[error("{asked} nodes asked for but the cluster has {nodes}")]
    TooManyNodes {
        /// Nodes asked for.
        asked: u32,
        /// Nodes of the cluster.
        nodes: usize,
    },
    /// A negative wait.
    #[error("wait_s must be >= 0, got {0}")]
    NegativeWait(i64),
    /// A hint whose `H` is in the past.
    #[error("a hint's time must not be in the past")]
    HintInThePast,
    /// A hostname the cluster does not have (echoed in at most 80 characters).
    #[error("no node `{0}`")]
    UnknownNode(String),
    /// A release of a node not allocated to on-demand work, or named twice.
    #[error("node `{0}` is not allocated to on-demand work (or is named twice)")]
    NotAllocated(String),
    /// A saved state for other nodes than the cluster's.
    #[error(
        "the saved state names other nodes than the cluster has; remove the state file to start afresh"
    )]
    OtherNodes,
}

/// Why the engine refused a call or failed.
#[derive(Debug, Error)]
pub enum LiveError {
    /// The caller's input is invalid; nothing changed.
    #[error(transparent)]
    Invalid(#[from] InvalidInput),
    /// The policy refused a call (a [`CallError`] naming the call and its time, with the
    /// policy's own error: boxed, downcast to read it).
    #[error("policy: {0}")]
    Policy(#[source] Box<dyn StdError + Send + Sync>),
    /// The resource manager failed (its own error type, e.g. `cosched_slurm::SlurmError`,
    /// boxed: downcast to read it).
    #[error("resource manager: {0}")]
    Cluster(#[source] Box<dyn StdError + Send + Sync>),
    /// The cluster refused a node command.
    #[error("resource manager: cannot apply {command:?} to {name}: {source}")]
    Command {
        /// The command.
        command: Command,
        /// The node's hostname.
        name: String,
        /// The resource manager's error.
        #[source]
        source: Box<dyn StdError + Send + Sync>,
    },
    /// The policy named a node the cluster does not have.
    #[error("the policy named {0}, which the cluster does not have")]
    PolicyNode(NodeId),
}

impl LiveError {
    fn cluster(e: impl StdError + Send + Sync + 'static) -> LiveError {
        LiveError::Cluster(Box::new(e))
    }
}

/// The answer to an on-demand request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    /// The request has these nodes.
    Granted {
        /// The request.
        request: u64,
        /// Its nodes' hostnames.
        nodes: Vec<String>,
    },
    /// The request was refused (no nodes within its wait).
    Rejected {
        /// The request.
        request: u64,
    },
}

impl Answer {
    /// The request answered.
    pub fn request(&self) -> u64 {
        match self {
            Answer::Granted { request, .. } | Answer::Rejected { request } => *request,
        }
    }
}

/// The engine's own record of one node: what it told the policy and what the commands did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeRecord {
    /// The policy was told a job runs there (`JobStarting`, not yet `JobEnded`).
    pub busy: bool,
    /// Reclaimed by a command and not restored since.
    pub reclaimed: bool,
    /// The policy was told an administrator took it away.
    pub unavailable: bool,
}

/// What survives a restart: the policy's state and the executor's records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Persisted<P> {
    /// The policy.
    pub policy: P,
    /// The nodes' hostnames, in the cluster's order.
    pub names: Vec<String>,
    /// The engine's record of each node.
    pub records: Vec<NodeRecord>,
    /// Granted requests and their nodes.
    pub allocations: BTreeMap<u64, Vec<NodeId>>,
    /// Requests waiting for an answer (cancelled at a restart: their callers are gone).
    pub waiting: BTreeSet<u64>,
    /// Requests the policy granted whose nodes had not all settled (their nodes are released
    /// at a restart: their callers are gone).
    #[serde(default)]
    pub held: Vec<(u64, Vec<NodeId>)>,
    /// The next request id.
    pub next_request: u64,
}

/// What the engine did since it started (or resumed): the counts a service exports as its
/// counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Requests registered.
    pub requests: u64,
    /// Requests granted (handed their nodes).
    pub grants: u64,
    /// Nodes handed over by those grants.
    pub granted_nodes: u64,
    /// Requests the policy refused (no nodes within their wait).
    pub rejections: u64,
    /// Nodes released by their holders.
    pub released_nodes: u64,
    /// Nodes reclaimed from the batch side (drained; a running job finishes first).
    pub reclaims: u64,
    /// Nodes restored to the batch side.
    pub restores: u64,
}

/// One node in the service's view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeView {
    /// Hostname.
    pub name: String,
    /// Its Balancer state, as the commands and observations left it.
    pub balancer: BalancerNodeState,
    /// The request it is allocated to, if any.
    pub request: Option<u64>,
    /// Whether an administrator took it out of use.
    pub unavailable: bool,
}

/// The executor; see the module docs. It drives the policy through core's [`Driver`]; the
/// rest of it, the executor of the protocol ([`Executor`]), is its record of the cluster.
pub struct Engine<C: LiveCluster, P: BalancerPolicy> {
    driver: Driver<P>,
    live: Live<C>,
}

/// What the engine knows and does besides calling the policy: the cluster, its last report
/// (the policy's view), the engine's own records, the requests and their answers.
struct Live<C> {
    cluster: C,
    /// The cluster's last report as the policy's view.
    nodes: Vec<RmNode>,
    by_name: BTreeMap<String, NodeId>,
    records: Vec<NodeRecord>,
    allocations: BTreeMap<u64, Vec<NodeId>>,
    waiting: BTreeSet<u64>,
    next_request: u64,
    /// Reclaimed nodes still running a batch job.
    unsettled: BTreeSet<NodeId>,
    /// Grants waiting for unsettled nodes.
    held: Vec<(LeaseId, Vec<NodeId>)>,
    answers: Vec<Answer>,
    tally: Tally,
}

impl<E: StdError + Send + Sync + 'static> From<CallError<E>> for LiveError {
    fn from(e: CallError<E>) -> LiveError {
        LiveError::Policy(Box::new(e))
    }
}

impl<C, P> Engine<C, P>
where
    C: LiveCluster,
    P: BalancerPolicy,
    P::Error: StdError + Send + Sync + 'static,
{
    /// Starts `policy` on `cluster` from the cluster's node states ([`Policy::start`] with the
    /// report as the view).
    ///
    /// [`Policy::start`]: cosched_core::policy::Policy::start
    pub fn start(now: Time, policy: P, cluster: C) -> Result<Self, LiveError> {
        let report = cluster.report().map_err(LiveError::cluster)?;
        let nodes = view_of(&report);
        let records = report
            .iter()
            .map(|r| NodeRecord {
                busy: r.state == RmNodeState::BatchBusy,
                reclaimed: matches!(
                    r.state,
                    RmNodeState::OnDemandFree | RmNodeState::OnDemandAllocated
                ),
                unavailable: r.state == RmNodeState::Unavailable,
            })
            .collect();
        let mut engine = Engine::assemble(policy, cluster, nodes, records);
        engine.driver.start(now, &mut engine.live, &mut ())?;
        engine.sync(now)?;
        Ok(engine)
    }

    /// Resumes from `saved` after a restart: requests that were waiting are cancelled and the
    /// nodes of grants still waiting for their nodes to settle are released (their callers
    /// are gone), then the cluster is polled for what changed meanwhile. A reclaimed node the
    /// cluster does not report settled is handed to no grant until it is.
    pub fn resume(now: Time, saved: Persisted<P>, cluster: C) -> Result<Self, LiveError> {
        let report = cluster.report().map_err(LiveError::cluster)?;
        let same = saved.names.len() == report.len()
            && saved.records.len() == report.len()
            && saved.names.iter().zip(&report).all(|(n, r)| *n == r.name);
        if !same {
            return Err(InvalidInput::OtherNodes.into());
        }
        let mut engine = Engine::assemble(saved.policy, cluster, view_of(&report), saved.records);
        let live = &mut engine.live;
        live.allocations = saved.allocations;
        live.next_request = saved.next_request;
        live.unsettled = (0..report.len())
            .filter(|&i| live.records[i].reclaimed && !report[i].settled)
            .map(|i| NodeId(i as u32))
            .collect();
        for (_, nodes) in saved.held {
            engine.observe(now, &Observation::Release { nodes })?;
        }
        for request in saved.waiting {
            engine.observe(
                now,
                &Observation::Cancel {
                    request: LeaseId(request),
                },
            )?;
        }
        engine.sync(now)?;
        // Answers to the cancelled requests have no caller.
        engine.live.answers.clear();
        Ok(engine)
    }

    fn assemble(policy: P, cluster: C, nodes: Vec<RmNode>, records: Vec<NodeRecord>) -> Self {
        let by_name = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), NodeId(i as u32)))
            .collect();
        Engine {
            driver: Driver::new(policy),
            live: Live {
                cluster,
                nodes,
                by_name,
                records,
                allocations: BTreeMap::new(),
                waiting: BTreeSet::new(),
                next_request: 1,
                unsettled: BTreeSet::new(),
                held: Vec::new(),
                answers: Vec::new(),
                tally: Tally::default(),
            },
        }
    }

    /// `request_nodes(nodes, wait)`: registers a request; it waits at most `wait` if given, and
    /// never longer than the policy's own `W` (the policy's rule). Its answer comes from
    /// [`Engine::take_answers`], at once or later.
    pub fn request(
        &mut self,
        now: Time,
        nodes: u32,
        wait: Option<Duration>,
    ) -> Result<u64, LiveError> {
        let size = self.live.nodes.len();
        if nodes == 0 {
            return Err(InvalidInput::NoNodes.into());
        }
        if nodes as usize > size {
            return Err(InvalidInput::TooManyNodes {
                asked: nodes,
                nodes: size,
            }
            .into());
        }
        if let Some(w) = wait.filter(|w| w.0 < 0) {
            return Err(InvalidInput::NegativeWait(w.0).into());
        }
        let id = self.live.next_request;
        // Waiting from the moment it is asked, so that an answer at once finds it.
        self.live.waiting.insert(id);
        let observed = self.observe(
            now,
            &Observation::Request {
                request: LeaseId(id),
                nodes,
                wait,
            },
        );
        if observed.is_err() {
            self.live.waiting.remove(&id);
        }
        observed?;
        self.live.next_request += 1;
        self.live.tally.requests += 1;
        Ok(id)
    }

    /// `release_nodes`: every named node must be allocated; nothing changes otherwise.
    pub fn release(&mut self, now: Time, names: &[String]) -> Result<(), LiveError> {
        let mut nodes = Vec::with_capacity(names.len());
        for name in names {
            let node = self.live.node(name)?;
            if !self
                .live
                .allocations
                .values()
                .any(|held| held.contains(&node))
                || nodes.contains(&node)
            {
                return Err(InvalidInput::NotAllocated(excerpt(name)).into());
            }
            nodes.push(node);
        }
        // The nodes leave their allocations before the policy answers (it may grant them to
        // a waiting request at once); if it refuses, they stay allocated.
        let before = self.live.allocations.clone();
        for held in self.live.allocations.values_mut() {
            held.retain(|n| !nodes.contains(n));
        }
        self.live.allocations.retain(|_, held| !held.is_empty());
        let released = nodes.len() as u64;
        let observed = self.observe(now, &Observation::Release { nodes });
        match observed {
            Ok(()) => self.live.tally.released_nodes += released,
            Err(_) => self.live.allocations = before,
        }
        observed
    }

    /// `add_reserve(H, N)`.
    pub fn add_reserve(&mut self, now: Time, by: Time, nodes: u32) -> Result<(), LiveError> {
        let size = self.live.nodes.len();
        if nodes as usize > size {
            return Err(InvalidInput::TooManyNodes {
                asked: nodes,
                nodes: size,
            }
            .into());
        }
        if by < now {
            return Err(InvalidInput::HintInThePast.into());
        }
        self.observe(now, &Observation::Hint { by, nodes })
    }

    /// A job ended on `names` (the epilog's notification). Nodes the policy was not told are
    /// busy are ignored: the notification may arrive after polling saw the end.
    pub fn job_ended(&mut self, now: Time, names: &[String]) -> Result<(), LiveError> {
        let mut ended = Vec::new();
        for name in names {
            let node = self.live.node(name)?;
            if self.live.records[node.index()].busy {
                ended.push(node);
            }
        }
        if ended.is_empty() {
            return Ok(());
        }
        self.observe(
            now,
            &Observation::JobEnded {
                nodes: ended.clone(),
            },
        )?;
        for n in ended {
            self.live.records[n.index()].busy = false;
        }
        Ok(())
    }

    /// Polls the cluster: job starts and ends, administrators' changes, nodes that settled;
    /// then wakes the policy if its time has come.
    pub fn sync(&mut self, now: Time) -> Result<(), LiveError> {
        let report = self.live.cluster.report().map_err(LiveError::cluster)?;
        if report.len() != self.live.nodes.len() {
            return Err(InvalidInput::OtherNodes.into());
        }
        self.live.nodes = view_of(&report);
        for (i, r) in report.iter().enumerate() {
            let node = NodeId(i as u32);
            let unavailable = r.state == RmNodeState::Unavailable;
            let record = self.live.records[i];
            if unavailable != record.unavailable && !record.reclaimed {
                self.observe(
                    now,
                    &Observation::Availability {
                        node,
                        available: !unavailable,
                    },
                )?;
                self.live.records[i].unavailable = unavailable;
            }
            let record = self.live.records[i];
            match r.state {
                // A reclaimed node reported busy is the race of §II-B: the drain keeps the
                // job, and the node is used once it settles.
                RmNodeState::BatchBusy if !record.busy && !record.reclaimed => {
                    self.observe(now, &Observation::JobStarting { nodes: vec![node] })?;
                    self.live.records[i].busy = true;
                }
                RmNodeState::BatchIdle if record.busy => {
                    self.observe(now, &Observation::JobEnded { nodes: vec![node] })?;
                    self.live.records[i].busy = false;
                }
                _ => {}
            }
            if r.settled {
                self.live.unsettled.remove(&node);
            }
        }
        self.live.release_held();
        self.driver.wake_due(now, &mut self.live, &mut ())?;
        Ok(())
    }

    /// What the engine did since it started.
    pub fn tally(&self) -> Tally {
        self.live.tally
    }

    /// Requests waiting for an answer, and grants waiting for their nodes to settle.
    pub fn queue(&self) -> (usize, usize) {
        (self.live.waiting.len(), self.live.held.len())
    }

    /// The answers produced since the last call.
    pub fn take_answers(&mut self) -> Vec<Answer> {
        std::mem::take(&mut self.live.answers)
    }

    /// The state to persist.
    pub fn persisted(&self) -> Persisted<P>
    where
        P: Clone,
    {
        let live = &self.live;
        Persisted {
            policy: self.driver.policy().clone(),
            names: live.nodes.iter().map(|n| n.name.clone()).collect(),
            records: live.records.clone(),
            allocations: live.allocations.clone(),
            waiting: live.waiting.clone(),
            held: live
                .held
                .iter()
                .map(|(request, nodes)| (request.0, nodes.clone()))
                .collect(),
            next_request: live.next_request,
        }
    }

    /// Every node as the service sees it: from the engine's own records.
    pub fn view(&self) -> Vec<NodeView> {
        let live = &self.live;
        live.nodes
            .iter()
            .zip(&live.records)
            .enumerate()
            .map(|(i, (node, record))| {
                let id = NodeId(i as u32);
                let request = live
                    .allocations
                    .iter()
                    .find(|(_, nodes)| nodes.contains(&id))
                    .map(|(r, _)| *r);
                let balancer = match (record.reclaimed, request.is_some(), record.busy) {
                    (true, true, _) => BalancerNodeState::OdAlloc,
                    (true, false, _) => BalancerNodeState::OdReserve,
                    (false, _, true) => BalancerNodeState::OaBusy,
                    (false, _, false) => BalancerNodeState::OaIdle,
                };
                NodeView {
                    name: node.name.clone(),
                    balancer,
                    request,
                    unavailable: record.unavailable,
                }
            })
            .collect()
    }

    /// The policy (read-only, for inspection: the engine itself never reads it).
    pub fn policy(&self) -> &P {
        self.driver.policy()
    }

    /// The cluster.
    pub fn cluster(&self) -> &C {
        &self.live.cluster
    }

    /// The engine's parts: the policy (e.g. a recorder to finish) and the cluster.
    pub fn into_parts(self) -> (P, C) {
        (self.driver.into_policy(), self.live.cluster)
    }

    /// Hands the policy `observation` and applies its commands.
    fn observe(&mut self, now: Time, observation: &Observation) -> Result<(), LiveError> {
        self.driver
            .observe(now, observation, &mut self.live, &mut ())
            .map(drop)
    }
}

/// The live cluster as the executor of the Balancer's protocol: node commands to the
/// resource manager ([`oarm::execute`]), answers to the callers.
impl<C, P> Executor<P> for Live<C>
where
    C: LiveCluster,
    P: BalancerPolicy,
    P::Error: StdError + Send + Sync + 'static,
{
    type Context = ();
    type Error = LiveError;

    fn view(&mut self, _now: Time) -> &[RmNode] {
        &self.nodes
    }

    fn apply(
        &mut self,
        _: &mut Driver<P>,
        _: &mut (),
        _now: Time,
        commands: &[Command],
    ) -> Result<(), LiveError> {
        for command in commands {
            match command {
                Command::Reclaim(n) | Command::Restore(n) if n.index() >= self.nodes.len() => {
                    return Err(LiveError::PolicyNode(*n));
                }
                Command::Grant { nodes, .. } => {
                    if let Some(n) = nodes.iter().find(|n| n.index() >= self.nodes.len()) {
                        return Err(LiveError::PolicyNode(*n));
                    }
                }
                _ => {}
            }
        }
        let nodes = &self.nodes;
        let odrm = oarm::execute(
            &mut self.cluster,
            |n| nodes[n.index()].name.clone(),
            commands,
        )
        .map_err(|e| LiveError::Command {
            command: e.command,
            name: e.name,
            source: Box::new(e.source),
        })?;
        for command in commands {
            match *command {
                Command::Reclaim(node) => {
                    self.records[node.index()].reclaimed = true;
                    self.unsettled.insert(node);
                    self.tally.reclaims += 1;
                }
                Command::Restore(node) => {
                    self.records[node.index()].reclaimed = false;
                    self.unsettled.remove(&node);
                    self.tally.restores += 1;
                }
                Command::Grant { .. } | Command::Reject { .. } => {}
            }
        }
        for command in odrm {
            match command {
                Command::Grant { request, nodes } => {
                    self.waiting.remove(&request.0);
                    self.held.push((*request, nodes.clone()));
                }
                &Command::Reject { request } => {
                    self.waiting.remove(&request.0);
                    self.tally.rejections += 1;
                    self.answers.push(Answer::Rejected { request: request.0 });
                }
                Command::Reclaim(_) | Command::Restore(_) => {}
            }
        }
        self.settle_reclaims()?;
        self.release_held();
        Ok(())
    }
}

impl<C: LiveCluster> Live<C> {
    fn node(&self, name: &str) -> Result<NodeId, LiveError> {
        self.by_name
            .get(name)
            .copied()
            .ok_or_else(|| InvalidInput::UnknownNode(excerpt(name)).into())
    }

    /// Reads the cluster once for reclaimed nodes that are already settled (the usual case:
    /// an idle node drains at once).
    fn settle_reclaims(&mut self) -> Result<(), LiveError> {
        if self.unsettled.is_empty() {
            return Ok(());
        }
        let report = self.cluster.report().map_err(LiveError::cluster)?;
        self.unsettled
            .retain(|n| !report.get(n.index()).is_some_and(|r| r.settled));
        Ok(())
    }

    /// Delivers the grants whose nodes have all settled.
    fn release_held(&mut self) {
        let (ready, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|(_, nodes)| nodes.iter().all(|n| !self.unsettled.contains(n)));
        self.held = waiting;
        for (request, nodes) in ready {
            let names = nodes
                .iter()
                .map(|n| self.nodes[n.index()].name.clone())
                .collect();
            self.tally.grants += 1;
            self.tally.granted_nodes += nodes.len() as u64;
            self.allocations.insert(request.0, nodes);
            self.answers.push(Answer::Granted {
                request: request.0,
                nodes: names,
            });
        }
    }
}

/// The policy's view of a report: hostnames and states.
fn view_of(report: &[NodeReport]) -> Vec<RmNode> {
    report
        .iter()
        .map(|r| RmNode {
            name: r.name.clone(),
            state: r.state,
        })
        .collect()
}

/// Lets a policy that cannot fail run where this error is asked for.
impl From<std::convert::Infallible> for LiveError {
    fn from(e: std::convert::Infallible) -> Self {
        match e {}
    }
}
