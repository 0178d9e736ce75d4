//! Scenario tests of each rule of the site, on workloads small enough to follow by hand.

use cosched_albatross::policy::NoScaling;
use cosched_core::{
    Duration, JobId, Lease, LeaseEnd, LeaseId, LeaseKind, MalleableJob, RigidJob, Time,
};
use cosched_hybrid::workload::HybridJob;
use cosched_hybrid::workload::{NoticeMix, TypeParams};
use cosched_hybrid::{Mechanism, NoticeStrategy};
use cosched_site::workload::draw_notices;
use cosched_site::{
    HtcPool, HybridRole, LeaseNotice, NodeUse, OnDemandPolicy, QueueAsBatch, Roles,
    ScavengingPolicy, Site, SiteConfig, SiteReport, SiteWorkload, Sizer, Task,
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
        notices: vec![],
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
        notices: vec![],
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
        notices: vec![],
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
        notices: vec![],
    };
    let r = run(1, 5_000, Box::new(QueueAsBatch), None, workload);
    assert_eq!((r.leases.rejected, r.leases.completed), (1, 1));
    assert_eq!(r.on_demand_served_pct, 50.0);
}

fn notice(lease: u64, at: i64, estimated: i64) -> LeaseNotice {
    LeaseNotice {
        lease: LeaseId(lease),
        at: Time(at),
        estimated_arrival: Time(estimated),
    }
}

fn spaa_with(strategy: NoticeStrategy) -> Box<dyn OnDemandPolicy + Send> {
    Box::new(HybridRole::new(Mechanism::spaa()).with_notices(strategy))
}

/// CUA (§III-B1): the notice claims the node a batch job releases before the lease arrives
/// (batch would have given it to the next queued job), so the lease starts at once on its
/// reservation; without the notice (N&SPAA) the lease finds no idle node and preempts.
#[test]
fn a_noticed_lease_collects_nodes_and_starts_without_the_preemption_n_needs() {
    let workload = SiteWorkload {
        // Job 1 ends at 1,000; job 3, queued at 900, would take its node then.
        batch: vec![
            rigid(1, 0, 1, 1_000),
            rigid(2, 0, 1, 5_000),
            rigid(3, 900, 1, 3_000),
        ],
        leases: vec![lease(0, 1_500, 1, 0, 300)],
        tasks: vec![],
        notices: vec![notice(0, 500, 1_500)],
    };
    let n = run(
        2,
        10_000,
        spaa_with(NoticeStrategy::N),
        None,
        workload.clone(),
    );
    assert_eq!(
        n.revocations.rigid_preemptions, 1,
        "N&SPAA preempts at arrival"
    );
    assert_eq!((n.leases.completed, n.on_demand_mean_wait_s), (1, 0.0));
    let cua = run(2, 10_000, spaa_with(NoticeStrategy::Cua), None, workload);
    assert_eq!(
        cua.revocations.rigid_preemptions, 0,
        "CUA&SPAA preempts nothing"
    );
    assert_eq!((cua.leases.completed, cua.on_demand_mean_wait_s), (1, 0.0));
    // Job 3 waited for the node the reservation took: from 900 until the lease ended (1,800).
    assert_eq!(cua.batch_completed, 3);
    assert_eq!(cua.batch_mean_wait_s, 900.0 / 3.0);
}

/// CUP (§III-B1): no running job is predicted to end before the estimated arrival, so CUP
/// plans a preemption; without checkpoints its cheapest point is the notice itself (100 s of
/// work lost), where N&SPAA preempts at the arrival (1,000 s lost). The lease starts at once
/// either way.
#[test]
fn cup_preempts_at_the_notice_and_loses_less_than_preempting_at_arrival() {
    let workload = SiteWorkload {
        batch: vec![rigid(1, 0, 1, 10_000), rigid(2, 0, 1, 10_000)],
        leases: vec![lease(0, 1_000, 1, 0, 300)],
        tasks: vec![],
        notices: vec![notice(0, 100, 1_000)],
    };
    let n = run(
        2,
        30_000,
        spaa_with(NoticeStrategy::N),
        None,
        workload.clone(),
    );
    let cup = run(
        2,
        30_000,
        spaa_with(NoticeStrategy::Cup),
        None,
        workload.clone(),
    );
    let cua = run(2, 30_000, spaa_with(NoticeStrategy::Cua), None, workload);
    for r in [&n, &cup, &cua] {
        assert_eq!(r.revocations.rigid_preemptions, 1);
        assert_eq!((r.leases.completed, r.on_demand_mean_wait_s), (1, 0.0));
        assert_eq!(r.batch_completed, 2);
    }
    assert_eq!(n.revocations.batch_lost_node_s, 1_000);
    assert_eq!(cup.revocations.batch_lost_node_s, 100);
    // CUA collects only what frees: nothing does, so SPAA preempts at the arrival as N does.
    assert_eq!(cua.revocations.batch_lost_node_s, 1_000);
}

/// §III-B3: a reservation whose lease has not come a grace (10 minutes) after its estimated
/// arrival lapses and its nodes return to batch; the lease, arriving much later, is served as
/// an unannounced one.
#[test]
fn a_notice_whose_lease_does_not_come_returns_its_nodes_after_the_grace() {
    let workload = SiteWorkload {
        batch: vec![rigid(1, 100, 2, 500)],
        leases: vec![lease(0, 5_000, 2, 0, 300)],
        tasks: vec![],
        notices: vec![notice(0, 0, 600)],
    };
    let roles = || Roles {
        batch: Box::new(cosched_batch::scenario::easy()),
        on_demand: spaa_with(NoticeStrategy::Cua),
        scavenging: None,
    };
    let mut site =
        Site::new(SiteConfig::new(2, Time(10_000)), roles(), workload.clone()).expect("site");
    site.run_until(Time(1_199)).expect("run");
    site.check().expect("invariants");
    assert_eq!(
        site.state().node_uses(),
        [NodeUse::Reserve, NodeUse::Reserve]
    );
    site.run_until(Time(1_200)).expect("run");
    assert!(
        site.state()
            .node_uses()
            .iter()
            .all(|u| matches!(u, NodeUse::Batch(_))),
        "the batch job starts on the returned nodes at 600 + 600 s"
    );
    let r = run(2, 10_000, spaa_with(NoticeStrategy::Cua), None, workload);
    assert_eq!(r.batch_mean_wait_s, 1_100.0);
    assert_eq!((r.leases.completed, r.on_demand_mean_wait_s), (1, 0.0));
    assert_eq!(r.revocations.rigid_preemptions, 0);
}

/// The notices drawn for leases follow hybrid's distribution (§IV-A): under W2 most are
/// accurate, each comes 15–30 minutes before its estimate and never after its arrival; the
/// same seed draws the same notices.
#[test]
fn drawn_notices_follow_the_mix_and_the_lead() {
    let leases: Vec<Lease> = (0..2_000)
        .map(|k| lease(k, 3_600 + k as i64 * 60, 1, 0, 60))
        .collect();
    let params = TypeParams {
        mix: NoticeMix::ALL[1].1,
        ..TypeParams::default()
    };
    let notices = draw_notices(&leases, &params, 7).expect("draw");
    assert_eq!(notices, draw_notices(&leases, &params, 7).expect("draw"));
    // 90 % of the leases have a notice (all but the "none" share), within 3 sigma (n = 2,000).
    let share = notices.len() as f64 / leases.len() as f64;
    assert!((share - 0.9).abs() < 0.02, "noticed share {share}");
    let mut accurate = 0;
    for n in &notices {
        let arrival = leases[n.lease.0 as usize].requested_at;
        assert!(n.at <= arrival && n.at <= n.estimated_arrival);
        let lead = n.estimated_arrival - n.at;
        assert!((900..=1_800).contains(&lead.0), "lead {lead:?}");
        accurate += usize::from(n.estimated_arrival == arrival);
    }
    // W2: 70 % of all leases accurate, within 4 sigma.
    let acc = accurate as f64 / leases.len() as f64;
    assert!((acc - 0.7).abs() < 0.04, "accurate share {acc}");
}

/// Two notices at one instant, each short a node, both plan to preempt the one running job
/// (CUP): it is preempted once, and both leases start at once on its nodes.
#[test]
fn cup_preempts_a_job_two_reservations_planned_for_once() {
    let workload = SiteWorkload {
        batch: vec![rigid(1, 0, 2, 10_000)],
        leases: vec![lease(0, 1_000, 1, 0, 300), lease(1, 1_000, 1, 0, 300)],
        tasks: vec![],
        notices: vec![notice(0, 100, 1_000), notice(1, 100, 1_000)],
    };
    let r = run(2, 30_000, spaa_with(NoticeStrategy::Cup), None, workload);
    assert_eq!(r.revocations.rigid_preemptions, 1);
    assert_eq!(r.revocations.batch_lost_node_s, 200);
    assert_eq!((r.leases.completed, r.on_demand_mean_wait_s), (2, 0.0));
}

/// A lease waiting at the front starts when another lease's nodes return to batch (no batch
/// job frees a node meanwhile), not only when a batch job ends.
#[test]
fn a_waiting_lease_starts_on_the_nodes_an_ended_lease_returns() {
    let workload = SiteWorkload {
        batch: vec![],
        leases: vec![lease(0, 0, 2, 0, 500), lease(1, 100, 2, 1_000, 300)],
        tasks: vec![],
        notices: vec![],
    };
    let r = run(2, 10_000, spaa_with(NoticeStrategy::N), None, workload);
    assert_eq!(r.leases.completed, 2);
    // Lease 1 waits from 100 to 500: the mean over both leases is 200 s.
    assert_eq!(r.on_demand_mean_wait_s, 200.0);
}

/// A 50,000-node site running the work of 128 nodes for a day, with the pool sized by RHIC
/// and every other role on: the idle nodes no one touches cost their construction only (each
/// negotiation cycle used to read every idle node twice, so this day took minutes, and a
/// million-node day of `converged_site` did not finish). The work is the same as on a small
/// site, and every invariant holds. (Speed itself is measured by the `month` bench.)
#[test]
fn idle_nodes_cost_their_construction_only() {
    use cosched_site::{Configuration, Inputs, RoleParams};
    let span = Duration::from_hours(24);
    let end = Time(0).saturating_add(span);
    let inputs = Inputs::generated(128, span, Duration::from_mins(5), 1).expect("inputs");
    let workload = inputs.workload(1).expect("workload");
    let report = |nodes: u32| {
        let roles = Configuration::AllRhic
            .roles(&RoleParams::default())
            .expect("roles");
        let mut site =
            Site::new(SiteConfig::new(nodes, end), roles, workload.clone()).expect("site");
        site.run_until(end).expect("run");
        site.check().expect("invariants");
        site.report()
    };
    let large = report(50_000);
    assert_eq!(large.nodes, 50_000);
    assert_eq!(large.batch_rejected, 0);
    assert!(large.scavenged_completed > 0, "the pool ran tasks");
    let small = report(128);
    assert_eq!(large.batch_submitted, small.batch_submitted);
    assert_eq!(large.scavenged_submitted, small.scavenged_submitted);
    assert!(large.scavenged_completed >= small.scavenged_completed);
}
