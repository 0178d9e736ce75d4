//! The executor between the Balancer policy and a live batch resource manager.
//!
//! [`Engine`] holds the policy (unchanged: the same [`Balancer`] the simulator drives) and a
//! [`LiveCluster`] (Slurm, through [`crate::SlurmOarm`]). It turns what the cluster reports
//! into the policy's observations — job starts and ends seen by polling, job ends reported by
//! the epilog, administrators' drains — applies the policy's commands to the cluster, and
//! answers the on-demand side's requests.
//!
//! Two rules keep batch jobs safe on a real system, where a job may start on a node between
//! the moment the executor reads it idle and the moment it drains it:
//! - a reclaimed node is handed to on-demand work only once the cluster reports it **settled**
//!   (drained with no job left); a grant holding an unsettled node waits for it;
//! - nothing is ever killed: reclaim is a drain, and a draining node finishes its job.

use std::collections::{BTreeMap, BTreeSet};

use cosched_balancer::BalancerError;
use cosched_balancer::oarm::Oarm;
use cosched_balancer::policy::{
    Balancer, BalancerConfig, BalancerNodeState, Command, Observation, Policy, RmNode, RmNodeState,
};
use cosched_core::{Duration, LeaseId, NodeId, Time};
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

/// A batch resource manager the engine can drive and poll.
pub trait LiveCluster: Oarm {
    /// Every node, in a fixed order (node `i` at position `i`).
    fn report(&self) -> Result<Vec<NodeReport>, Self::Error>;
}

/// Why the engine refused a call or failed.
#[derive(Debug, Error)]
pub enum LiveError {
    /// The caller's input is invalid; nothing changed.
    #[error("{0}")]
    Invalid(String),
    /// The policy refused an observation.
    #[error("policy: {0}")]
    Policy(#[from] BalancerError),
    /// The resource manager failed.
    #[error("resource manager: {0}")]
    Cluster(String),
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
    /// The request was refused (no nodes within its W).
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

/// What survives a restart: the policy's state and the live allocations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Persisted {
    /// The policy.
    pub policy: Balancer,
    /// Granted requests and their nodes.
    pub allocations: BTreeMap<u64, Vec<NodeId>>,
    /// The next request id.
    pub next_request: u64,
}

/// One node in the service's view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeView {
    /// Hostname.
    pub name: String,
    /// Its Balancer state.
    pub balancer: BalancerNodeState,
    /// The request it is allocated to, if any.
    pub request: Option<u64>,
    /// Whether an administrator took it out of use.
    pub unavailable: bool,
}

/// The executor; see the module docs.
pub struct Engine<C: LiveCluster> {
    policy: Balancer,
    cluster: C,
    allocations: BTreeMap<u64, Vec<NodeId>>,
    next_request: u64,
    /// Reclaimed nodes still running a batch job.
    unsettled: BTreeSet<NodeId>,
    /// Grants waiting for unsettled nodes.
    held: Vec<(LeaseId, Vec<NodeId>)>,
    /// A request's own W, when shorter than the policy's.
    deadlines: BTreeMap<LeaseId, Time>,
    answers: Vec<Answer>,
}

impl<C: LiveCluster> Engine<C>
where
    C::Error: std::fmt::Display,
{
    /// Starts on `cluster`: from `persisted` state after a restart (requests that were waiting
    /// are cancelled: their callers are gone), else from the cluster's node states.
    pub fn start(
        now: Time,
        config: BalancerConfig,
        cluster: C,
        persisted: Option<Persisted>,
    ) -> Result<Self, LiveError> {
        let report = cluster.report().map_err(cluster_error)?;
        let mut commands = Vec::new();
        let (policy, allocations, next_request) = match persisted {
            Some(p) => {
                check_same_nodes(&p.policy, &report)?;
                let mut policy = p.policy;
                let waiting: Vec<LeaseId> = policy.waiting_requests().map(|(r, _)| r).collect();
                for request in waiting {
                    commands.extend(policy.observe(now, Observation::Cancel { request })?);
                }
                (policy, p.allocations, p.next_request)
            }
            None => {
                let nodes: Vec<RmNode> = report
                    .iter()
                    .map(|r| RmNode {
                        name: r.name.clone(),
                        state: r.state,
                    })
                    .collect();
                let (policy, out) = Balancer::start(now, config, &nodes)?;
                commands.extend(out);
                (policy, BTreeMap::new(), 1)
            }
        };
        let mut engine = Engine {
            policy,
            cluster,
            allocations,
            next_request,
            unsettled: BTreeSet::new(),
            held: Vec::new(),
            deadlines: BTreeMap::new(),
            answers: Vec::new(),
        };
        engine.apply(commands)?;
        engine.sync(now)?;
        Ok(engine)
    }

    /// `request_nodes(nodes, W)`: registers a request waiting at most `wait` (at most the
    /// policy's W); its answer comes from [`Engine::take_answers`], at once or later.
    pub fn request(&mut self, now: Time, nodes: u32, wait: Duration) -> Result<u64, LiveError> {
        let window = self.policy.config().window;
        if nodes == 0 {
            return Err(LiveError::Invalid("a request needs at least 1 node".into()));
        }
        if nodes as usize > self.policy.len() {
            return Err(LiveError::Invalid(format!(
                "{nodes} nodes requested but the cluster has {}",
                self.policy.len()
            )));
        }
        if wait < Duration::ZERO || wait > window {
            return Err(LiveError::Invalid(format!(
                "wait_s must lie within 0..={} (this Balancer's W), got {}",
                window.secs(),
                wait.secs()
            )));
        }
        let id = self.next_request;
        self.next_request += 1;
        let request = LeaseId(id);
        if wait < window {
            self.deadlines.insert(request, now.saturating_add(wait));
        }
        let out = self
            .policy
            .observe(now, Observation::Request { request, nodes })?;
        self.apply(out)?;
        self.expire_short_waits(now)?;
        Ok(id)
    }

    /// `release_nodes`: every named node must be allocated; nothing changes otherwise.
    pub fn release(&mut self, now: Time, names: &[String]) -> Result<(), LiveError> {
        let mut nodes = Vec::with_capacity(names.len());
        for name in names {
            let node = self
                .policy
                .node(name)
                .ok_or_else(|| LiveError::Invalid(format!("no node `{}`", excerpt(name))))?;
            if self.policy.state(node)? != BalancerNodeState::OdAlloc || nodes.contains(&node) {
                return Err(LiveError::Invalid(format!(
                    "node `{name}` is not allocated to on-demand work (or is named twice)"
                )));
            }
            nodes.push(node);
        }
        let out = self
            .policy
            .observe(now, Observation::Release { nodes: &nodes })?;
        for held in self.allocations.values_mut() {
            held.retain(|n| !nodes.contains(n));
        }
        self.allocations.retain(|_, held| !held.is_empty());
        self.apply(out)
    }

    /// `add_reserve(H, N)`.
    pub fn add_reserve(&mut self, now: Time, by: Time, nodes: u32) -> Result<(), LiveError> {
        if nodes as usize > self.policy.len() || by < now {
            return Err(LiveError::Invalid(format!(
                "a hint needs 0..={} nodes and a time not in the past",
                self.policy.len()
            )));
        }
        let out = self.policy.observe(now, Observation::Hint { by, nodes })?;
        self.apply(out)
    }

    /// A job ended on `names` (the epilog's notification). Nodes the policy does not think busy
    /// are ignored: the notification may arrive after polling saw the end.
    pub fn job_ended(&mut self, now: Time, names: &[String]) -> Result<(), LiveError> {
        let mut ended = Vec::new();
        for name in names {
            let node = self
                .policy
                .node(name)
                .ok_or_else(|| LiveError::Invalid(format!("no node `{}`", excerpt(name))))?;
            if self.policy.state(node)? == BalancerNodeState::OaBusy {
                ended.push(node);
            }
        }
        if ended.is_empty() {
            return Ok(());
        }
        let out = self
            .policy
            .observe(now, Observation::JobEnded { nodes: &ended })?;
        self.apply(out)
    }

    /// Polls the cluster: job starts and ends, administrators' changes, nodes that settled;
    /// then ticks the policy and expires short waits.
    pub fn sync(&mut self, now: Time) -> Result<(), LiveError> {
        let report = self.cluster.report().map_err(cluster_error)?;
        for (i, r) in report.iter().enumerate() {
            let node = NodeId(i as u32);
            let state = self.policy.state(node)?;
            let unavailable = r.state == RmNodeState::Unavailable;
            if unavailable != self.policy.is_unavailable(node) && !state.is_on_demand() {
                let out = self.policy.observe(
                    now,
                    Observation::Availability {
                        node,
                        available: !unavailable,
                    },
                )?;
                self.apply(out)?;
            }
            match (r.state, self.policy.state(node)?) {
                (RmNodeState::BatchBusy, BalancerNodeState::OaIdle) => {
                    match self
                        .policy
                        .observe(now, Observation::JobStarting { nodes: &[node] })
                    {
                        Ok(out) => self.apply(out)?,
                        // The race of §II-B: the node was reclaimed as the job started; the
                        // drain keeps the job, and the node is used once it settles.
                        Err(BalancerError::NodeReclaimed { .. }) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
                (RmNodeState::BatchIdle, BalancerNodeState::OaBusy) => {
                    let out = self
                        .policy
                        .observe(now, Observation::JobEnded { nodes: &[node] })?;
                    self.apply(out)?;
                }
                _ => {}
            }
            if r.settled {
                self.unsettled.remove(&node);
            }
        }
        self.release_held();
        if self.policy.next_deadline().is_some_and(|t| t <= now) {
            let out = self.policy.observe(now, Observation::Tick)?;
            self.apply(out)?;
        }
        self.expire_short_waits(now)
    }

    /// The answers produced since the last call.
    pub fn take_answers(&mut self) -> Vec<Answer> {
        std::mem::take(&mut self.answers)
    }

    /// The state to persist.
    pub fn persisted(&self) -> Persisted {
        Persisted {
            policy: self.policy.clone(),
            allocations: self.allocations.clone(),
            next_request: self.next_request,
        }
    }

    /// Every node as the service sees it.
    pub fn view(&self) -> Vec<NodeView> {
        (0..self.policy.len() as u32)
            .map(NodeId)
            .filter_map(|node| {
                Some(NodeView {
                    name: self.policy.name(node)?.to_owned(),
                    balancer: self.policy.state(node).ok()?,
                    request: self
                        .allocations
                        .iter()
                        .find(|(_, nodes)| nodes.contains(&node))
                        .map(|(r, _)| *r),
                    unavailable: self.policy.is_unavailable(node),
                })
            })
            .collect()
    }

    /// The policy (read-only).
    pub fn policy(&self) -> &Balancer {
        &self.policy
    }

    /// The cluster.
    pub fn cluster(&self) -> &C {
        &self.cluster
    }

    /// Cancels waiting requests whose own W has passed: to the caller, a rejection at W.
    fn expire_short_waits(&mut self, now: Time) -> Result<(), LiveError> {
        let due: Vec<LeaseId> = self
            .deadlines
            .iter()
            .filter(|&(_, &t)| t <= now)
            .map(|(&r, _)| r)
            .collect();
        for request in due {
            self.deadlines.remove(&request);
            if self.policy.waiting_requests().any(|(r, _)| r == request) {
                let out = self.policy.observe(now, Observation::Cancel { request })?;
                self.apply(out)?;
                self.answers.push(Answer::Rejected { request: request.0 });
            }
        }
        Ok(())
    }

    /// Applies commands in order: node commands to the cluster, answers to the callers.
    fn apply(&mut self, commands: Vec<Command>) -> Result<(), LiveError> {
        for command in commands {
            match command {
                Command::Reclaim(node) => {
                    let name = self.name(node)?;
                    self.cluster
                        .reclaim_node(node, &name)
                        .map_err(cluster_error)?;
                    self.unsettled.insert(node);
                }
                Command::Restore(node) => {
                    let name = self.name(node)?;
                    self.cluster
                        .restore_node(node, &name)
                        .map_err(cluster_error)?;
                    self.unsettled.remove(&node);
                }
                Command::Grant { request, nodes } => {
                    self.deadlines.remove(&request);
                    self.held.push((request, nodes));
                }
                Command::Reject { request } => {
                    self.deadlines.remove(&request);
                    self.answers.push(Answer::Rejected { request: request.0 });
                }
            }
        }
        self.settle_reclaims()?;
        self.release_held();
        Ok(())
    }

    /// Reads the cluster once for reclaimed nodes that are already settled (the usual case:
    /// an idle node drains at once).
    fn settle_reclaims(&mut self) -> Result<(), LiveError> {
        if self.unsettled.is_empty() {
            return Ok(());
        }
        let report = self.cluster.report().map_err(cluster_error)?;
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
                .filter_map(|&n| self.policy.name(n).map(str::to_owned))
                .collect();
            self.allocations.insert(request.0, nodes);
            self.answers.push(Answer::Granted {
                request: request.0,
                nodes: names,
            });
        }
    }

    fn name(&self, node: NodeId) -> Result<String, LiveError> {
        self.policy
            .name(node)
            .map(str::to_owned)
            .ok_or(LiveError::Policy(BalancerError::UnknownNode(node)))
    }
}

fn check_same_nodes(policy: &Balancer, report: &[NodeReport]) -> Result<(), LiveError> {
    let same = policy.len() == report.len()
        && report
            .iter()
            .enumerate()
            .all(|(i, r)| policy.name(NodeId(i as u32)) == Some(r.name.as_str()));
    if same {
        Ok(())
    } else {
        Err(LiveError::Invalid(
            "the saved state names other nodes than the cluster has; remove the state file to start afresh".into(),
        ))
    }
}

fn cluster_error(e: impl std::fmt::Display) -> LiveError {
    LiveError::Cluster(e.to_string())
}

fn excerpt(s: &str) -> String {
    s.chars().take(80).collect()
}
