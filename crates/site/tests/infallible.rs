//! Policies that cannot fail (`Infallible` errors) fill every role of a site: the batch and
//! scavenging roles take them adapted to the site's error (`Policy::err_into`, as their boxes
//! ask for `SiteError`), the Balancer-protocol role takes one as it is.

use cosched_balancer::policy::{Command, Observation, RmNode};
use cosched_batch::{BatchCluster, BatchCommand, Pass, SchedulingPass};
use cosched_core::policy::Policy;
use cosched_core::{Duration, Time};
use cosched_site::{
    BalancerRole, Inputs, PoolCycle, RoleParams, Roles, ScavengingCommand, Site, SiteConfig,
    SiteError, SiteState,
};
use std::convert::Infallible;

/// FCFS: starts queued jobs in order while they fit.
struct InOrder;
impl Policy for InOrder {
    type Observation = SchedulingPass;
    type Command = BatchCommand;
    type View = BatchCluster;
    type Error = Infallible;
    fn observe(
        &mut self,
        now: Time,
        _: &SchedulingPass,
        view: &BatchCluster,
        out: &mut Vec<BatchCommand>,
    ) -> Result<(), Infallible> {
        Pass::new(now, view, out).start_while_fits();
        Ok(())
    }
}

/// Rejects every on-demand request.
struct RejectAll;
impl Policy for RejectAll {
    type Observation = Observation;
    type Command = Command;
    type View = [RmNode];
    type Error = Infallible;
    fn observe(
        &mut self,
        _: Time,
        obs: &Observation,
        _: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), Infallible> {
        if let Observation::Request { request, .. } = *obs {
            out.push(Command::Reject { request });
        }
        Ok(())
    }
}

/// Lends every idle node while tasks wait.
struct LendAll;
impl Policy for LendAll {
    type Observation = PoolCycle;
    type Command = ScavengingCommand;
    type View = SiteState;
    type Error = Infallible;
    fn observe(
        &mut self,
        _: Time,
        cycle: &PoolCycle,
        _: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<(), Infallible> {
        if cycle.queued > 0 && cycle.lendable > 0 {
            out.push(ScavengingCommand::Lend {
                count: cycle.lendable,
            });
        }
        Ok(())
    }
}

#[test]
fn infallible_policies_fill_every_role() {
    let (nodes, seed) = (32, 3);
    let span = Duration::from_hours(12);
    let inputs = Inputs::generated(nodes, span, RoleParams::default().window, seed).unwrap();
    let roles = Roles {
        batch: Box::new(InOrder.err_into::<cosched_batch::BatchError>()),
        on_demand: Box::new(BalancerRole::new(RejectAll)),
        scavenging: Some(Box::new(LendAll.err_into::<SiteError>())),
    };
    let config = SiteConfig::new(nodes, Time(0).saturating_add(span));
    let report = Site::new(config, roles, inputs.workload(seed).unwrap())
        .unwrap()
        .run()
        .unwrap();
    assert!(report.leases.requested > 0 && report.batch_completed > 0);
    assert_eq!(report.leases.rejected, report.leases.requested);
    assert!(report.scavenged_completed > 0, "{report:?}");
}
