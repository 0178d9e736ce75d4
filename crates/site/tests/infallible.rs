//! A policy that cannot fail (`Error = Infallible`) runs in every role of the site: batch,
//! on-demand under the site's protocol, the Balancer's (inside `BalancerRole`) and hybrid's,
//! scavenging, and the cloud policy inside the built-in pool. (RHIC-protocol policies:
//! `rhic_sizing.rs`; the grid's policy: the `grid` module's example.)

use std::convert::Infallible;

use cosched_albatross::policy::{Command as ACommand, Observation as AObs, WaitingJobs};
use cosched_balancer::policy::{Command as BCommand, Observation as BObs, RmNode};
use cosched_batch::{BatchCluster, BatchCommand, BatchError, Pass, SchedulingPass};
use cosched_core::policy::Policy;
use cosched_core::{Duration, JobId, Lease, LeaseEnd, LeaseId, LeaseKind, RigidJob, Time};
use cosched_hybrid::workload::HybridJob;
use cosched_site::scenario::Configuration;
use cosched_site::{
    BalancerRole, BatchRole, HarvestAll, HtcPool, OnDemandRole, PoolCycle, QueueAsBatch,
    RoleParams, Roles, ScavengingCommand, Site, SiteConfig, SiteError, SiteReport, SiteState,
    SiteWorkload, Task,
};

mod common;
use common::{IdleOrQueue, IdleOrRefuse};

/// Batch: first come, first served while the queue's head fits.
struct Fifo;

impl Policy for Fifo {
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
        let mut pass = Pass::new(now, view, out);
        while let Some(p) = pass.next_queued(0) {
            if pass.start(p).is_err() {
                break;
            }
        }
        Ok(())
    }
}

/// The Balancer's protocol: refuse every request.
struct RefuseAll;

impl Policy for RefuseAll {
    type Observation = BObs;
    type Command = BCommand;
    type View = [RmNode];
    type Error = Infallible;

    fn observe(
        &mut self,
        _: Time,
        obs: &BObs,
        _: &[RmNode],
        out: &mut Vec<BCommand>,
    ) -> Result<(), Infallible> {
        if let BObs::Request { request, .. } = *obs {
            out.push(BCommand::Reject { request });
        }
        Ok(())
    }
}

/// Scavenging: lend every lendable node while tasks wait.
struct LendAll;

impl Policy for LendAll {
    type Observation = PoolCycle;
    type Command = ScavengingCommand;
    type View = SiteState;
    type Error = Infallible;

    fn observe(
        &mut self,
        _: Time,
        c: &PoolCycle,
        _: &SiteState,
        out: &mut Vec<ScavengingCommand>,
    ) -> Result<(), Infallible> {
        if c.queued > 0 {
            out.push(ScavengingCommand::Lend { count: c.lendable });
        }
        Ok(())
    }
}

/// Albatross's protocol: one small instance whenever jobs wait and no desktop slot is free.
struct OnePerStall;

impl Policy for OnePerStall {
    type Observation = AObs;
    type Command = ACommand;
    type View = WaitingJobs;
    type Error = Infallible;

    fn observe(
        &mut self,
        _: Time,
        obs: &AObs,
        waiting: &WaitingJobs,
        out: &mut Vec<ACommand>,
    ) -> Result<(), Infallible> {
        if !waiting.is_empty() && obs.free_desktop_slots == 0 && obs.cloud_nodes.is_empty() {
            out.push(ACommand::Start {
                instance: 0,
                count: 1,
                lifetime: Duration::from_hours(1),
            });
        }
        Ok(())
    }
}

/// Two batch jobs, three leases and a bag of tasks on 4 nodes.
fn workload() -> SiteWorkload {
    let job = |id, submit, size, run| HybridJob::Rigid {
        job: RigidJob::new(JobId(id), Time(submit), size, Duration(run), Duration(run))
            .expect("valid job"),
        setup: Duration(0),
    };
    let lease = |id, at, nodes| {
        Lease::new(
            LeaseId(id),
            Time(at),
            nodes,
            LeaseKind::OnDemand {
                window: Duration(60),
            },
            LeaseEnd::Bounded(Duration(600)),
        )
        .expect("valid lease")
    };
    SiteWorkload {
        batch: vec![job(1, 0, 2, 3_000), job(2, 100, 4, 1_000)],
        leases: vec![lease(0, 50, 1), lease(1, 200, 2), lease(2, 5_000, 2)],
        tasks: (0..20)
            .map(|i| Task {
                id: i,
                bag: 0,
                submit: Time(10),
                work: Duration(1_200),
                ad: 0,
            })
            .collect(),
        notices: vec![],
    }
}

fn run(roles: Roles) -> SiteReport {
    let mut site = Site::new(SiteConfig::new(4, Time(20_000)), roles, workload()).expect("site");
    site.run_until(Time(20_000)).expect("run");
    site.check().expect("invariants");
    site.report()
}

fn roles(on_demand: OnDemandRole) -> Roles {
    Roles {
        batch: Box::new(cosched_batch::scenario::easy()),
        on_demand,
        scavenging: None,
    }
}

#[test]
fn a_batch_policy_that_cannot_fail_runs() {
    let mut r = roles(OnDemandRole::site(QueueAsBatch));
    r.batch = Box::new(Fifo.err_into::<BatchError>());
    assert_eq!(run(r).batch_completed, 2);
    // And as the batch policy of a configuration's runs.
    let params = RoleParams {
        batch: BatchRole::new("fifo", || Fifo),
        ..RoleParams::default()
    };
    let roles = Configuration::batch().roles(&params).expect("roles");
    assert_eq!(run(roles).batch_completed, 2);
}

#[test]
fn an_on_demand_policy_of_the_sites_protocol_that_cannot_fail_runs() {
    let r = run(roles(OnDemandRole::site(IdleOrRefuse)));
    assert_eq!(r.leases.requested, 3);
    assert!(r.leases.completed > 0 && r.leases.rejected > 0);
}

#[test]
fn a_balancer_protocol_policy_that_cannot_fail_runs_in_the_balancer_role() {
    let r = run(roles(OnDemandRole::site(BalancerRole::new(RefuseAll))));
    assert_eq!(r.leases.rejected, 3);
}

#[test]
fn a_hybrid_protocol_policy_that_cannot_fail_runs() {
    let r = run(roles(OnDemandRole::hybrid(IdleOrQueue)));
    assert_eq!((r.leases.requested, r.batch_completed), (3, 2));
    assert!(r.leases.completed > 0);
}

#[test]
fn a_scavenging_policy_that_cannot_fail_runs() {
    let mut r = roles(OnDemandRole::site(QueueAsBatch));
    r.scavenging = Some(Box::new(LendAll.err_into::<SiteError>()));
    assert_eq!(run(r).scavenged_completed, 20);
}

#[test]
fn a_cloud_policy_that_cannot_fail_runs_in_the_pool() {
    let mut r = roles(OnDemandRole::site(QueueAsBatch));
    r.scavenging = Some(Box::new(HtcPool::new(HarvestAll, OnePerStall)));
    let report = run(r);
    assert_eq!(report.scavenged_completed, 20);
    assert!(report.cloud_nodes_started > 0);
}
