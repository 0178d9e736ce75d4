//! The diagnoses of a run: each reason an on-demand job waits, on a hand scenario where it is
//! the only one; the turnaround's parts on a known timeline; and the probe deciding as the
//! policy it watches.

use cosched_core::{Duration, JobClass, JobId, OnDemandJob, RigidJob, Time};
use cosched_hybrid::diagnose::{
    ArrivalProbe, ArrivalState, TurnaroundParts, WaitBreakdown, WaitReason,
};
use cosched_hybrid::mechanism::MechanismKind;
use cosched_hybrid::notice::NoticeStrategy;
use cosched_hybrid::scenario::{self, Machine};
use cosched_hybrid::workload::{TypeParams, assign_types};
use cosched_hybrid::{Composite, HybridConfig, HybridJob, HybridOutcome, HybridPolicy, HybridSim};

const N_PAA: Composite = Composite::new(NoticeStrategy::N, MechanismKind::Paa);

fn rigid(id: u64, submit: i64, size: u32, runtime: i64, setup: i64) -> HybridJob {
    HybridJob::Rigid {
        job: RigidJob::new(
            JobId(id),
            Time(submit),
            size,
            Duration(runtime),
            Duration(runtime),
        )
        .unwrap(),
        setup: Duration(setup),
    }
}

fn on_demand(id: u64, arrival: i64, size: u32, runtime: i64) -> HybridJob {
    HybridJob::OnDemand(
        OnDemandJob::new(
            JobId(id),
            size,
            Duration(runtime),
            Duration(runtime),
            Time(arrival),
        )
        .unwrap(),
    )
}

/// `jobs` on `nodes` under `mechanism`, watched: the outcome and its breakdown.
fn probed(nodes: u32, mechanism: Composite, jobs: &[HybridJob]) -> (HybridOutcome, WaitBreakdown) {
    let mut probe = ArrivalProbe::new(HybridPolicy::new(mechanism), nodes);
    let sim = HybridSim::new(HybridConfig::new(nodes).unwrap())
        .unwrap()
        .check_invariants()
        .with_notices(probe.policy().listens_to_notices());
    let out = sim.run(&mut probe, jobs).unwrap();
    assert!(out.violations.is_empty(), "{:?}", out.violations);
    let waits = WaitBreakdown::of(probe.arrivals(), nodes, &out);
    (out, waits)
}

fn count(waits: &WaitBreakdown, reason: WaitReason) -> usize {
    waits.by_reason[reason as usize]
}

/// Obs. 9's reason: a 3-node on-demand job runs on 4 nodes; a 2-node one arrives and waits,
/// however much batch work PAA could preempt.
#[test]
fn running_on_demand_jobs_plus_this_one_over_the_system_is_capacity() {
    let jobs = [
        on_demand(1, 0, 3, 1_000),
        rigid(2, 0, 1, 5_000, 0),
        on_demand(3, 100, 2, 100),
    ];
    let (out, waits) = probed(4, N_PAA, &jobs);
    assert_eq!(out.report.instant_starts, 1);
    assert_eq!(waits.not_instant, 1);
    assert_eq!(count(&waits, WaitReason::Capacity), 1);
}

/// §III-B2 / Obs. 9: a 3-node on-demand job waits behind a running 2-node one on 4 nodes,
/// gathering the 2 idle nodes; a 1-node job arriving then takes one of them (to the paper's
/// scheduler they are idle) and starts at once; the waiting job gathers again and starts when
/// the first ends.
#[test]
fn an_arrival_takes_the_nodes_a_waiting_on_demand_job_gathered() {
    let jobs = [
        on_demand(1, 0, 2, 1_000),
        on_demand(2, 10, 3, 100),
        on_demand(3, 20, 1, 100),
    ];
    let (out, waits) = probed(4, N_PAA, &jobs);
    let start = |id: u64| {
        out.records
            .iter()
            .find(|r| r.id == JobId(id))
            .unwrap()
            .start
    };
    assert_eq!(start(3), Some(Time(20)));
    assert_eq!(start(2), Some(Time(1_000)));
    assert_eq!(out.report.instant_starts, 2);
    assert_eq!(waits.not_instant, 1);
    assert_eq!(count(&waits, WaitReason::Capacity), 1);
}

/// Each reason is blamed in order: the first whose nodes, with the running on-demand jobs'
/// and the job's own, pass the system.
#[test]
fn the_reasons_are_blamed_in_order() {
    let state = ArrivalState {
        job: JobId(1),
        at: Time(0),
        size: 4,
        idle: 0,
        preemptable: 0,
        guests_of_others: 2,
        reserved_own: 0,
        reserved_others: 2,
        on_demand_running: 2,
        on_demand_gathered: 2,
        failed: 2,
    };
    // 2 + 4 = 6 running on-demand and its own: the capacity on 5 nodes.
    assert_eq!(state.reason(5), WaitReason::Capacity);
    assert_eq!(state.reason(6), WaitReason::GatheredByWaiting);
    assert_eq!(state.reason(8), WaitReason::ReservedForOthers);
    assert_eq!(state.reason(10), WaitReason::GuestsOfOthers);
    assert_eq!(state.reason(12), WaitReason::FailedNodes);
    assert_eq!(state.reason(14), WaitReason::Other);
}

/// The parts of a preempted rigid job: a 4-node job (1,000 s, 50 s of it setup, no
/// checkpoint) runs from 0; a 2-node on-demand job arrives at 300 for 100 s. The rigid job
/// loses its 300 s, waits queued from 300 to 400 and runs its 1,000 s again: 1,400 s.
#[test]
fn a_preempted_rigid_jobs_turnaround_splits_into_requeue_wait_and_lost_run() {
    let jobs = [rigid(1, 0, 4, 1_000, 50), on_demand(2, 300, 2, 100)];
    let (out, _) = probed(4, N_PAA, &jobs);
    let parts = TurnaroundParts::of(&out, Some(JobClass::Rigid));
    let h = |s: f64| s / 3_600.0;
    assert_eq!(parts.jobs, 1);
    assert_eq!(parts.first_wait_h, 0.0);
    assert_eq!(parts.requeue_wait_h, h(100.0));
    assert_eq!(parts.run_h, h(1_000.0));
    assert_eq!(parts.lost_h, h(300.0));
    assert_eq!(parts.stretch_h, 0.0);
    assert!((parts.turnaround_h() - out.report.rigid_turnaround_h).abs() < 1e-12);
    let od = TurnaroundParts::of(&out, Some(JobClass::OnDemand));
    assert_eq!((od.first_wait_h, od.run_h), (0.0, h(100.0)));
}

/// The probe decides as the policy it watches: the same records and accounts under every
/// mechanism on a generated trace, and its parts sum to every class's turnaround.
#[test]
fn the_probe_changes_no_decision() {
    let trace = Machine::Theta.generate(true, 2).unwrap();
    let jobs = assign_types(&trace[..500], &TypeParams::default(), 2).unwrap();
    let nodes = Machine::Theta.nodes();
    for mechanism in Composite::ALL {
        let config = HybridConfig::new(nodes).unwrap();
        let plain = scenario::simulate(config, Some(mechanism), &jobs).unwrap();
        let (watched, waits) = probed(nodes, mechanism, &jobs);
        assert_eq!(plain.records, watched.records, "{mechanism}");
        assert_eq!(plain.accounts, watched.accounts, "{mechanism}");
        assert_eq!(
            waits.not_instant,
            plain.report.on_demand - plain.report.instant_starts
        );
        assert_eq!(waits.by_reason.iter().sum::<usize>(), waits.not_instant);
        let all = TurnaroundParts::of(&watched, None);
        assert!((all.turnaround_h() - watched.report.turnaround_h).abs() < 1e-9);
    }
}
