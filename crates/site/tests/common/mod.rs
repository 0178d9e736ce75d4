//! Policies written as a downstream crate would, shared by the site's tests. Neither can
//! fail: their error is `Infallible`.

use std::convert::Infallible;

use cosched_core::Time;
use cosched_core::policy::Policy;
use cosched_hybrid::policy::{BatchPass, Command as HCommand, Observation as HObs, PlatformView};
use cosched_site::{OnDemandCommand, OnDemandObservation, SiteState};

/// The site's on-demand protocol: grant from idle nodes at once, else refuse.
pub struct IdleOrRefuse;

impl Policy for IdleOrRefuse {
    type Observation = OnDemandObservation;
    type Command = OnDemandCommand;
    type View = SiteState;
    type Error = Infallible;

    fn observe(
        &mut self,
        _: Time,
        obs: &OnDemandObservation,
        view: &SiteState,
        out: &mut Vec<OnDemandCommand>,
    ) -> Result<(), Infallible> {
        match obs {
            OnDemandObservation::Request(l) if view.batch_idle_count() >= l.nodes as usize => {
                out.push(OnDemandCommand::GrantIdle { lease: l.id })
            }
            OnDemandObservation::Request(l) => out.push(OnDemandCommand::Reject { lease: l.id }),
            OnDemandObservation::Ended { nodes, .. } => {
                out.extend(nodes.iter().map(|&n| OnDemandCommand::Restore(n)))
            }
            _ => {}
        }
        Ok(())
    }
}

/// Hybrid's protocol: an arrival starts on idle nodes if there are enough, else queues as a
/// batch job; one batch pass per instant (the first settle round).
pub struct IdleOrQueue;

impl Policy for IdleOrQueue {
    type Observation = HObs;
    type Command = HCommand;
    type View = dyn PlatformView;
    type Error = Infallible;

    fn observe(
        &mut self,
        _: Time,
        obs: &HObs,
        view: &Self::View,
        out: &mut Vec<HCommand>,
    ) -> Result<(), Infallible> {
        match *obs {
            HObs::Arrival { job, size } if view.idle_count() >= size => {
                out.push(HCommand::AssignIdle { job, count: size });
                out.push(HCommand::StartOnDemand { job });
            }
            HObs::Arrival { job, .. } => out.push(HCommand::Submit { job }),
            HObs::Settle { round: 0 } => out.push(HCommand::Schedule(BatchPass::Site {
                resize_malleable: false,
            })),
            _ => {}
        }
        Ok(())
    }
}
