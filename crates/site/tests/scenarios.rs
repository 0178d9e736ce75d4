//! Scenario tests of each rule of the site, on workloads small enough to follow by hand.

use cosched_albatross::policy::NoScaling;
use cosched_core::{
    Duration, JobId, Lease, LeaseEnd, LeaseId, LeaseKind, MalleableJob, RigidJob, Time,
};
use cosched_hybrid::Mechanism;
use cosched_hybrid::workload::HybridJob;
use cosched_site::{
    HtcPool, HybridRole, OnDemandPolicy, QueueAsBatch, Roles, ScavengingPolicy, Site, SiteConfig,
    SiteReport, SiteWorkload, Sizer, Task,
};

fn rigid(id: u64, submit: i64, size: u32, run: i64) -> HybridJob {
    HybridJob::Rigid {
        job: RigidJob::new(JobId(id), Time(submit), size, Duration(run), Duration(run))
            .expect("valid job"),
        setup: Duration(0),
    }
}

fn lease(id: u64, at: i64, nodes: u32, window: i64, run: i64) -> Lease {
    Lease::new(
        LeaseId(id),
        Time(at),
        nodes,
        LeaseKind::OnDemand {
            window: Duration(window),
        },
        LeaseEnd::Bounded(Duration(run)),
    )
    .expect("valid lease")
}

fn run(
    nodes: u32,
    end: i64,
    on_demand: Box<dyn OnDemandPolicy + Send>,
    scavenging: Option<Box<dyn ScavengingPolicy + Send>>,
    workload: SiteWorkload,
) -> SiteReport {
    let roles = Roles {
        batch: Box::new(cosched_batch::scenario::easy()),
        on_demand,
        scavenging,
    };
    let mut site = Site::new(SiteConfig::new(nodes, Time(end)), roles, workload).expect("site");
    site.run_until(Time(end)).expect("run");
    site.check().expect("invariants");
    site.report()
}

/// A batch job takes the lent nodes it needs: the task on one is evicted and loses its work
/// since its last checkpoint (15 minutes), then resumes from that checkpoint and completes.
#[test]
fn batch_takes_a_lent_node_back_and_the_task_loses_work_since_its_checkpoint() {
    let workload = SiteWorkload {
        batch: vec![rigid(1, 1_000, 2, 500)],
        leases: vec![],
        tasks: vec![Task {
            id: 0,
            bag: 0,
            submit: Time(0),
            work: Duration(3_000),
            ad: 0,
        }],
    };
    let pool: Box<dyn ScavengingPolicy + Send> =
        Box::new(HtcPool::new(Sizer::HarvestAll, NoScaling));
    let r = run(2, 8_000, Box::new(QueueAsBatch), Some(pool), workload);
    assert_eq!(r.revocations.scavenged_evictions, 1);
    // 1,000 s run, checkpoint at 900 s: 100 s lost.
    assert_eq!(r.revocations.scavenged_lost_s, 100);
    assert_eq!((r.scavenged_completed, r.batch_completed), (1, 1));
    // Batch was not delayed by the lent nodes.
    assert_eq!(r.batch_mean_wait_s, 0.0);
}

/// SPAA shrinks a running malleable job for an on-demand lease that starts at once; when the
/// lease ends, the job expands back into the returned nodes.
#[test]
fn spaa_shrinks_a_malleable_job_and_it_expands_back_when_the_lease_ends() {
    let job = MalleableJob::new(JobId(1), Time(0), 2, 4, Duration(40_000), Duration(0))
        .expect("valid job");
    let workload = SiteWorkload {
        batch: vec![HybridJob::Malleable {
            job,
            estimate: Duration(20_000),
        }],
        leases: vec![lease(0, 100, 2, 0, 1_000)],
        tasks: vec![],
    };
    let r = run(
        4,
        30_000,
        Box::new(HybridRole::new(Mechanism::spaa())),
        None,
        workload,
    );
    assert_eq!(r.leases.completed, 1);
    assert_eq!(r.on_demand_served_pct, 100.0);
    assert_eq!(r.on_demand_mean_wait_s, 0.0);
    assert_eq!(r.revocations.malleable_shrinks, 1);
    assert_eq!(r.revocations.rigid_preemptions, 0);
    assert!(r.revocations.malleable_expansions >= 1);
    // 40,000 node-s of work: 100 s on 4, 1,000 s on 2, the rest on 4 again.
    let expected = 100 + 1_000 + (40_000 - 400 - 2_000) / 4;
    assert_eq!(r.malleable_mean_turnaround_s, f64::from(expected));
}

/// PAA preempts a rigid job (it restarts: its run so far is lost) so that a lease starts at
/// once.
#[test]
fn paa_preempts_a_rigid_job_which_restarts() {
    let workload = SiteWorkload {
        batch: vec![rigid(1, 0, 2, 1_000)],
        leases: vec![lease(0, 100, 1, 0, 300)],
        tasks: vec![],
    };
    let r = run(
        2,
        10_000,
        Box::new(HybridRole::new(Mechanism::paa())),
        None,
        workload,
    );
    assert_eq!(r.revocations.rigid_preemptions, 1);
    assert_eq!(r.revocations.batch_lost_node_s, 200);
    assert_eq!((r.leases.completed, r.batch_completed), (1, 1));
}

/// Without an on-demand mechanism a lease queues as a batch job and is withdrawn (rejected)
/// when its window closes before a node frees.
#[test]
fn a_lease_queued_as_batch_is_withdrawn_when_its_window_closes() {
    let workload = SiteWorkload {
        batch: vec![rigid(1, 0, 1, 1_000)],
        leases: vec![lease(0, 100, 1, 60, 300), lease(1, 2_000, 1, 60, 300)],
        tasks: vec![],
    };
    let r = run(1, 5_000, Box::new(QueueAsBatch), None, workload);
    assert_eq!((r.leases.rejected, r.leases.completed), (1, 1));
    assert_eq!(r.on_demand_served_pct, 50.0);
}
