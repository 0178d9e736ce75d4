//! The on-demand role: its protocol, and the built-in policies that fill it.
//!
//! A policy of this protocol is a [`cosched_core::policy::Policy`] with
//! [`OnDemandObservation`] in, [`OnDemandCommand`]s out and the [`SiteState`] as its read-only
//! view. The built-ins are adapters that call the paper crates' own policies:
//!
//! - [`QueueAsBatch`]: no on-demand mechanism; a lease is queued as a batch job, served if the
//!   batch policy starts it within its window (hybrid's baseline, Fan et al. Table III:
//!   "FCFS/EASY backfilling without special treatments");
//! - [`BalancerRole`]: any policy of the Balancer's protocol (Liu et al., SC18, Algorithm 1 with
//!   `W` and its reserve), its `Reclaim`/`Restore`/`Grant`/`Reject` passed through;
//! - [`HybridRole`]: hybrid's mechanisms (Fan et al. §III-B). On an advance notice
//!   ([`OnDemandObservation::Notice`], §III-B1) hybrid's own board
//!   ([`cosched_hybrid::NoticeBoard`], N, CUA or CUP) books nodes: the role reclaims the idle
//!   nodes it claims into the reserve (unlent ones first), offers it the nodes batch jobs
//!   release (earliest notice first; leases already waiting at the front come before it) and,
//!   under CUP, fires the preemptions it planned at their time if the reservation is still
//!   short; a reservation lapses a grace after its estimated arrival (§III-B3) and its nodes
//!   return to batch. On arrival (§III-B2) a complete reservation starts the lease at once;
//!   otherwise its nodes go back to batch and the on-arrival mechanism (PAA or SPAA through
//!   [`cosched_hybrid::Mechanism::decide`]) takes idle nodes, then preempts or shrinks running
//!   batch jobs so the lease starts at once; if nothing frees enough, it waits at the front
//!   (first come, first served) until its window closes; lenders get their nodes back when
//!   the lease ends (§III-B4), unless a reservation still short claims them. Not carried
//!   over: hybrid's *guests* on reserved nodes (the site's reserve is offline to batch).

use std::collections::VecDeque;

use cosched_balancer::policy::{
    BalancerPolicy, Command as BCommand, Observation as BObs, RmNode, RmNodeState,
};
use cosched_core::policy::Policy;
use cosched_core::{Duration, JobId, Lease, LeaseId, NodeId, Time};
use cosched_hybrid::{
    ArrivalAction, Composite, Mechanism, Notice, NoticeBoard, NoticeStrategy, PlannedPreemption,
    mechanism_name,
};
use serde::{Deserialize, Serialize};

use crate::nodes::NodeUse;
use crate::{SiteError, SiteState};

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
    /// ([`NodeUse::Reserve`]) for the role to keep or restore to batch.
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

/// Any policy of the Balancer's protocol in the on-demand role (see the [module docs](self)).
/// Requests carry their lease's window as the caller's wait (`min(wait, W)`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BalancerRole<P> {
    policy: P,
    /// The resource managers' node list as the Balancer's protocol reports it.
    nodes: Vec<RmNode>,
    #[serde(skip)]
    buf: Vec<BCommand>,
}

impl<P: BalancerPolicy> BalancerRole<P> {
    /// Wraps `policy`.
    pub fn new(policy: P) -> Self {
        BalancerRole {
            policy,
            nodes: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// The wrapped policy.
    pub fn policy(&self) -> &P {
        &self.policy
    }

    fn set(&mut self, nodes: &[NodeId], state: RmNodeState) {
        for n in nodes {
            if let Some(node) = self.nodes.get_mut(n.index()) {
                node.state = state;
            }
        }
    }

    /// Passes the Balancer's commands on, tracking the node list.
    fn translate(&mut self, out: &mut Vec<OnDemandCommand>) {
        for c in self.buf.drain(..) {
            out.push(match c {
                BCommand::Reclaim(n) => {
                    if let Some(node) = self.nodes.get_mut(n.index()) {
                        node.state = RmNodeState::OnDemandFree;
                    }
                    OnDemandCommand::Reclaim(n)
                }
                BCommand::Restore(n) => {
                    if let Some(node) = self.nodes.get_mut(n.index()) {
                        node.state = RmNodeState::BatchIdle;
                    }
                    OnDemandCommand::Restore(n)
                }
                BCommand::Grant { request, nodes } => {
                    for n in &nodes {
                        if let Some(node) = self.nodes.get_mut(n.index()) {
                            node.state = RmNodeState::OnDemandAllocated;
                        }
                    }
                    OnDemandCommand::Grant {
                        lease: request,
                        nodes,
                    }
                }
                BCommand::Reject { request } => OnDemandCommand::Reject { lease: request },
            });
        }
    }
}

impl<P> Policy for BalancerRole<P>
where
    P: BalancerPolicy,
    SiteError: From<P::Error>,
{
    type Observation = OnDemandObservation;
    type Command = OnDemandCommand;
    type View = SiteState;
    type Error = SiteError;

    fn start(
        &mut self,
        now: Time,
        view: &SiteState,
        out: &mut Vec<OnDemandCommand>,
    ) -> Result<(), SiteError> {
        self.nodes = view
            .node_uses()
            .iter()
            .enumerate()
            .map(|(i, u)| RmNode {
                name: format!("n{i}"),
                state: match u {
                    NodeUse::Idle | NodeUse::Lent(_) => RmNodeState::BatchIdle,
                    NodeUse::Batch(_) => RmNodeState::BatchBusy,
                    NodeUse::Reserve => RmNodeState::OnDemandFree,
                    NodeUse::OnDemand(_) => RmNodeState::OnDemandAllocated,
                },
            })
            .collect();
        self.policy.start(now, &self.nodes, &mut self.buf)?;
        self.translate(out);
        Ok(())
    }

    fn observe(
        &mut self,
        now: Time,
        obs: &OnDemandObservation,
        _: &SiteState,
        out: &mut Vec<OnDemandCommand>,
    ) -> Result<(), SiteError> {
        let b = match obs {
            // The Balancer's protocol has no notices (Liu et al. size the reserve by W).
            OnDemandObservation::Notice { .. } => return Ok(()),
            OnDemandObservation::Request(lease) => BObs::Request {
                request: lease.id,
                nodes: lease.nodes,
                wait: lease.start_deadline().map(|d| d - lease.requested_at),
            },
            OnDemandObservation::Ended { nodes, .. } => {
                self.set(nodes, RmNodeState::OnDemandFree);
                BObs::Release {
                    nodes: nodes.clone(),
                }
            }
            OnDemandObservation::NodesBusy { nodes, .. } => {
                self.set(nodes, RmNodeState::BatchBusy);
                BObs::JobStarting {
                    nodes: nodes.clone(),
                }
            }
            OnDemandObservation::NodesFreed { nodes, .. } => {
                self.set(nodes, RmNodeState::BatchIdle);
                BObs::JobEnded {
                    nodes: nodes.clone(),
                }
            }
        };
        self.policy.observe(now, &b, &self.nodes, &mut self.buf)?;
        self.translate(out);
        Ok(())
    }

    fn wake(
        &mut self,
        now: Time,
        _: &SiteState,
        out: &mut Vec<OnDemandCommand>,
    ) -> Result<(), SiteError> {
        self.policy.wake(now, &self.nodes, &mut self.buf)?;
        self.translate(out);
        Ok(())
    }

    fn next_wake(&self) -> Option<Time> {
        self.policy.next_wake()
    }
}

/// Hybrid's mechanisms in the on-demand role (see the [module docs](self)): its advance-notice
/// strategy ([`NoticeBoard`]: N, CUA or CUP) and its on-arrival mechanism (PAA or SPAA).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HybridRole {
    mechanism: Mechanism,
    board: NoticeBoard,
    /// CUP's planned preemptions not yet due.
    planned: Vec<PlannedPreemption>,
    /// Leases waiting at the front, first come first served: (lease, nodes, deadline).
    waiting: VecDeque<(LeaseId, u32, Time)>,
    /// When the waiting leases should be served again: nodes were restored to batch, which
    /// the view shows only once the commands are applied.
    #[serde(default)]
    serve_at: Option<Time>,
}

/// The board's job for a lease (the board books by job id; lease ids are unique).
fn job_of(lease: LeaseId) -> JobId {
    JobId(lease.0)
}

impl HybridRole {
    /// The role running `mechanism` (PAA or SPAA) and ignoring notices (N).
    pub fn new(mechanism: Mechanism) -> HybridRole {
        HybridRole {
            mechanism,
            board: NoticeBoard::new(NoticeStrategy::N),
            planned: Vec::new(),
            waiting: VecDeque::new(),
            serve_at: None,
        }
    }

    /// The same role answering notices with `strategy` (hybrid's board, its 10-minute grace
    /// and two-minute warning): CUA&PAA … CUP&SPAA.
    pub fn with_notices(mut self, strategy: NoticeStrategy) -> HybridRole {
        self.board = NoticeBoard::new(strategy);
        self
    }

    /// The paper's name of the composite, e.g. `CUP&SPAA`.
    pub fn name(&self) -> String {
        mechanism_name(Some(Composite::new(
            self.board.strategy(),
            self.mechanism.kind,
        )))
    }

    /// The notice board (its reservations).
    pub fn board(&self) -> &NoticeBoard {
        &self.board
    }

    /// Tries to start the lease now with `idle` nodes available to it; false if it must wait
    /// (nothing touched).
    fn try_start(
        &mut self,
        now: Time,
        lease: LeaseId,
        nodes: u32,
        idle: u32,
        view: &SiteState,
        out: &mut Vec<OnDemandCommand>,
    ) -> Result<bool, SiteError> {
        if idle >= nodes {
            out.push(OnDemandCommand::GrantIdle { lease });
            return Ok(true);
        }
        let running = view.running_views(now);
        let actions = self.mechanism.decide(nodes, idle, &running)?;
        if actions.contains(&ArrivalAction::WaitAtFront) {
            return Ok(false);
        }
        for a in actions {
            match a {
                ArrivalAction::Preempt { job } => out.push(OnDemandCommand::Preempt { job }),
                ArrivalAction::Shrink { job, to } => out.push(OnDemandCommand::Shrink { job, to }),
                ArrivalAction::WaitAtFront => {}
            }
        }
        out.push(OnDemandCommand::GrantIdle { lease });
        Ok(true)
    }

    /// A lease arrives (§III-B2): its reservation, if complete, starts it at once; else the
    /// reservation's nodes go back to batch and the on-arrival mechanism counts them as idle.
    fn arrive(
        &mut self,
        now: Time,
        lease: &Lease,
        view: &SiteState,
        out: &mut Vec<OnDemandCommand>,
    ) -> Result<(), SiteError> {
        let held = self.board.arrive(job_of(lease.id));
        self.planned.retain(|p| p.for_job != job_of(lease.id));
        if held.len() == lease.nodes as usize {
            out.push(OnDemandCommand::Grant {
                lease: lease.id,
                nodes: held,
            });
            return Ok(());
        }
        out.extend(held.iter().map(|&n| OnDemandCommand::Restore(n)));
        self.restored(now, held.len());
        let idle = u32::try_from(view.batch_idle_count() + held.len()).unwrap_or(u32::MAX);
        let deadline = lease.start_deadline().unwrap_or(Time::MAX);
        if !self.waiting.is_empty()
            || !self.try_start(now, lease.id, lease.nodes, idle, view, out)?
        {
            self.waiting.push_back((lease.id, lease.nodes, deadline));
        }
        Ok(())
    }

    /// Offers nodes now idle in batch to the reservations still short (§III-B1: the earliest
    /// notice wins), reclaiming the claimed ones into the reserve. Leases already waiting at
    /// the front come first: nothing is offered while one waits.
    fn offer(&mut self, nodes: &[NodeId], view: &SiteState, out: &mut Vec<OnDemandCommand>) {
        if !self.waiting.is_empty() || self.board.shortfall() == 0 {
            return;
        }
        let uses = view.node_uses();
        let idle: Vec<NodeId> = nodes
            .iter()
            .copied()
            .filter(|n| matches!(uses.get(n.index()), Some(NodeUse::Idle | NodeUse::Lent(_))))
            .collect();
        out.extend(
            self.board
                .offer(&idle)
                .into_iter()
                .map(|(_, n)| OnDemandCommand::Reclaim(n)),
        );
    }

    /// Nodes were restored to batch: waiting leases are served once that is applied.
    fn restored(&mut self, now: Time, count: usize) {
        if count > 0 && !self.waiting.is_empty() {
            self.serve_at = Some(now);
        }
    }

    /// Serves the waiting leases in order while they can start; rejects those past their
    /// window.
    fn serve_waiting(
        &mut self,
        now: Time,
        view: &SiteState,
        out: &mut Vec<OnDemandCommand>,
    ) -> Result<(), SiteError> {
        while let Some(&(lease, nodes, deadline)) = self.waiting.front() {
            if now > deadline {
                self.waiting.pop_front();
                out.push(OnDemandCommand::Reject { lease });
                continue;
            }
            // Waiting leases take idle nodes only: the mechanism ran at their arrival.
            if view.batch_idle_count() >= nodes as usize {
                self.waiting.pop_front();
                out.push(OnDemandCommand::GrantIdle { lease });
                // One start per call: the next sees the nodes this one took.
                return Ok(());
            }
            break;
        }
        Ok(())
    }
}

impl Policy for HybridRole {
    type Observation = OnDemandObservation;
    type Command = OnDemandCommand;
    type View = SiteState;
    type Error = SiteError;

    fn observe(
        &mut self,
        now: Time,
        obs: &OnDemandObservation,
        view: &SiteState,
        out: &mut Vec<OnDemandCommand>,
    ) -> Result<(), SiteError> {
        match obs {
            OnDemandObservation::Notice {
                lease,
                nodes,
                estimated_arrival,
            } => {
                let notice = Notice {
                    job: job_of(*lease),
                    size: *nodes,
                    at: now,
                    estimated_arrival: (*estimated_arrival).max(now),
                };
                // Idle nodes not lent first: claiming a lent one evicts a scavenged task.
                let uses = view.node_uses();
                let free: Vec<NodeId> = [false, true]
                    .into_iter()
                    .flat_map(|lent| {
                        uses.iter().enumerate().filter_map(move |(i, u)| {
                            let ok = match u {
                                NodeUse::Idle => !lent,
                                NodeUse::Lent(_) => lent,
                                _ => false,
                            };
                            ok.then_some(NodeId(i as u32))
                        })
                    })
                    .take(if self.waiting.is_empty() {
                        *nodes as usize
                    } else {
                        0
                    })
                    .collect();
                let running = if self.board.strategy() == NoticeStrategy::Cup {
                    view.planned_jobs(now)
                } else {
                    Vec::new()
                };
                let plan = self.board.notice(notice, &free, &running)?;
                out.extend(plan.claimed.into_iter().map(OnDemandCommand::Reclaim));
                self.planned.extend(plan.preemptions);
            }
            OnDemandObservation::Request(lease) => self.arrive(now, lease, view, out)?,
            OnDemandObservation::Ended { nodes, .. } => {
                // Reservations still short keep what they claim of the freed reserve nodes.
                let mut kept = Vec::new();
                if self.waiting.is_empty() {
                    kept = self.board.offer(nodes);
                }
                // §III-B4: the lenders get the other nodes back: they return to batch, where
                // the site expands shrunk malleable jobs into idle nodes and preempted
                // lenders, queued under their submit time, start as the batch policy allows.
                let before = out.len();
                out.extend(
                    nodes
                        .iter()
                        .filter(|n| !kept.iter().any(|(_, k)| k == *n))
                        .map(|&n| OnDemandCommand::Restore(n)),
                );
                self.restored(now, out.len() - before);
            }
            OnDemandObservation::NodesFreed { nodes, .. } => {
                let before = out.len();
                self.serve_waiting(now, view, out)?;
                // A start takes idle nodes the site picks: offer them at the next event.
                if out.len() == before {
                    self.offer(nodes, view, out);
                }
            }
            OnDemandObservation::NodesBusy { .. } => {}
        }
        Ok(())
    }

    fn wake(
        &mut self,
        now: Time,
        view: &SiteState,
        out: &mut Vec<OnDemandCommand>,
    ) -> Result<(), SiteError> {
        // §III-B3: a reservation whose lease has not come a grace after its estimate lapses.
        self.serve_at = None;
        for (_, nodes) in self.board.expire(now) {
            self.restored(now, nodes.len());
            out.extend(nodes.into_iter().map(OnDemandCommand::Restore));
        }
        // CUP's preemptions now due, if their reservation still lacks nodes and the job
        // still runs (its freed nodes come back as `NodesFreed` and are offered).
        // A job two reservations planned to preempt is preempted once.
        let mut running: Vec<JobId> = view.running_views(now).iter().map(|r| r.id).collect();
        let board = &self.board;
        self.planned.retain(|p| {
            if p.at > now {
                return true;
            }
            if let Some(i) = running.iter().position(|&j| j == p.job)
                && board.is_short(p.for_job)
            {
                running.swap_remove(i);
                out.push(OnDemandCommand::Preempt { job: p.job });
            }
            false
        });
        self.serve_waiting(now, view, out)
    }

    fn next_wake(&self) -> Option<Time> {
        let deadlines = self
            .waiting
            .iter()
            .map(|&(_, _, d)| d.saturating_add(Duration(1)));
        let planned = self.planned.iter().map(|p| p.at);
        deadlines
            .chain(planned)
            .chain(self.board.next_expiry())
            .chain(self.serve_at)
            .min()
    }
}
