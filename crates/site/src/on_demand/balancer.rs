//! [`BalancerRole`]: any policy of the Balancer's protocol (Liu et al., SC18) in the site's
//! on-demand role.

use cosched_balancer::policy::{
    BalancerPolicy, Command as BCommand, Observation as BObs, RmNode, RmNodeState,
};
use cosched_core::policy::Policy;
use cosched_core::{NodeId, Time};
use serde::{Deserialize, Serialize};

use super::{OnDemandCommand, OnDemandObservation};
use crate::nodes::NodeUse;
use crate::{SiteError, SiteState};

/// Any policy of the Balancer's protocol in the on-demand role (see the [module docs](super)).
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
    P::Error: Into<SiteError>,
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
                    NodeUse::Batch(_) | NodeUse::Guest(_) => RmNodeState::BatchBusy,
                    NodeUse::Reserve => RmNodeState::OnDemandFree,
                    NodeUse::OnDemand(_) => RmNodeState::OnDemandAllocated,
                },
            })
            .collect();
        self.policy
            .start(now, &self.nodes, &mut self.buf)
            .map_err(Into::into)?;
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
        self.policy
            .observe(now, &b, &self.nodes, &mut self.buf)
            .map_err(Into::into)?;
        self.translate(out);
        Ok(())
    }

    fn wake(
        &mut self,
        now: Time,
        _: &SiteState,
        out: &mut Vec<OnDemandCommand>,
    ) -> Result<(), SiteError> {
        self.policy
            .wake(now, &self.nodes, &mut self.buf)
            .map_err(Into::into)?;
        self.translate(out);
        Ok(())
    }

    fn next_wake(&self) -> Option<Time> {
        self.policy.next_wake()
    }
}
