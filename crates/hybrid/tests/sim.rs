//! The hybrid simulator: hand scenarios with known timelines, and property tests of its
//! invariants over random workloads under every mechanism (and the baseline), with and
//! without failures; the diagnoses of a run (why on-demand jobs wait, where turnaround goes).

use cosched_core::{
    Duration, JobClass, JobId, MalleableJob, OnDemandJob, Pool, RigidJob, Time, UsageKind,
};
use cosched_hybrid::diagnose::{
    ArrivalProbe, ArrivalState, TurnaroundParts, WaitBreakdown, WaitReason,
};
use cosched_hybrid::scenario::Machine;
use cosched_hybrid::workload::{TypeParams, assign_types};

use cosched_hybrid::checkpoint::CheckpointPolicy;
use cosched_hybrid::mechanism::MechanismKind;
use cosched_hybrid::notice::NoticeStrategy;
use cosched_hybrid::{
    Composite, Failures, HybridConfig, HybridJob, HybridOutcome, HybridPolicy, HybridSim, scenario,
};
use proptest::prelude::*;

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

fn malleable(id: u64, submit: i64, min: u32, max: u32, work: i64) -> HybridJob {
    HybridJob::Malleable {
        job: MalleableJob::new(
            JobId(id),
            Time(submit),
            min,
            max,
            Duration(work),
            Duration(0),
        )
        .unwrap(),
        estimate: Duration(work),
    }
}

fn on_demand(id: u64, arrival: i64, size: u32, runtime: i64) -> OnDemandJob {
    OnDemandJob::new(
        JobId(id),
        size,
        Duration(runtime),
        Duration(runtime),
        Time(arrival),
    )
    .unwrap()
}

fn run(nodes: u32, mechanism: Option<Composite>, jobs: &[HybridJob]) -> HybridOutcome {
    let config = HybridConfig::new(nodes).unwrap();
    let sim = HybridSim::new(config).unwrap().check_invariants();
    let out = scenario::run_policy(sim, mechanism, jobs).unwrap();
    assert!(out.violations.is_empty(), "{:?}", out.violations);
    out
}

fn account(out: &HybridOutcome, id: u64) -> cosched_hybrid::JobAccount {
    *out.accounts.iter().find(|a| a.id == JobId(id)).unwrap()
}

fn record(out: &HybridOutcome, id: u64) -> (Option<Time>, Option<Time>) {
    let r = out.records.iter().find(|r| r.id == JobId(id)).unwrap();
    (r.start, r.end)
}

const N_PAA: Composite = Composite::new(NoticeStrategy::N, MechanismKind::Paa);
const N_SPAA: Composite = Composite::new(NoticeStrategy::N, MechanismKind::Spaa);
const CUA_PAA: Composite = Composite::new(NoticeStrategy::Cua, MechanismKind::Paa);
const CUP_PAA: Composite = Composite::new(NoticeStrategy::Cup, MechanismKind::Paa);

/// Table III's FCFS/EASY sees a running on-demand job as any running job: its nodes come back
/// at its estimate. A 2-node on-demand job runs 0..1,000 on 4 nodes; a 4-node rigid job heads
/// the queue from 10, reserved at 1,000; a 1-node job of 2,000 s behind it would delay that
/// reservation and waits, a 1-node job of 500 s backfills at once.
#[test]
fn easy_reserves_for_the_head_on_a_running_on_demand_jobs_nodes() {
    let jobs = [
        HybridJob::OnDemand(on_demand(1, 0, 2, 1_000)),
        rigid(2, 10, 4, 3_000, 0),
        rigid(3, 20, 1, 2_000, 0),
        rigid(4, 30, 1, 500, 0),
    ];
    let out = run(4, Some(N_PAA), &jobs);
    assert_eq!(record(&out, 2).0, Some(Time(1_000)));
    assert_eq!(record(&out, 3).0, Some(Time(4_000)));
    assert_eq!(record(&out, 4), (Some(Time(30)), Some(Time(530))));
}

#[test]
fn paa_preempts_a_rigid_job_which_resumes_on_the_returned_nodes() {
    // A 4-node rigid job (no checkpoints: 1,000 s < τ) runs from 0; a 2-node on-demand job
    // arrives at 300 for 100 s. The rigid job loses 300 s, pays its 50 s setup again and
    // resumes at 400 when the on-demand job hands its nodes back: it ends at 1,400.
    let jobs = [
        rigid(1, 0, 4, 1_000, 50),
        HybridJob::OnDemand(on_demand(2, 300, 2, 100)),
    ];
    let out = run(4, Some(N_PAA), &jobs);
    assert_eq!(record(&out, 2), (Some(Time(300)), Some(Time(400))));
    assert_eq!(record(&out, 1), (Some(Time(0)), Some(Time(1_400))));
    let a = out.accounts[0];
    assert_eq!(
        (a.preemptions, a.delivered, a.wasted),
        (1, 4 * 1_300, 4 * 300)
    );
    assert_eq!(out.report.instant_start_ratio, 1.0);
    assert_eq!(out.report.rigid_preempted_ratio, 1.0);
    // The baseline queues the on-demand job behind the rigid one.
    let base = run(4, None, &jobs);
    assert_eq!(record(&base, 2), (Some(Time(1_000)), Some(Time(1_100))));
    assert_eq!(base.report.instant_start_ratio, 0.0);
}

#[test]
fn the_baseline_queues_an_on_demand_job_like_any_batch_job() {
    // A 4-node job runs 0..1,000; a 4-node job is queued at 10; a 1-node on-demand job
    // arrives at 20. FCFS + EASY: it cannot pass the queued job (no idle node before 1,000)
    // and starts after it, at 1,100, exactly when a rigid job in its place would.
    let od = on_demand(3, 20, 1, 50);
    let as_rigid = rigid(3, 20, 1, 50, 0);
    let ahead = [rigid(1, 0, 4, 1_000, 0), rigid(2, 10, 4, 100, 0)];
    let queued = run(4, None, &[ahead[0], ahead[1], HybridJob::OnDemand(od)]);
    assert_eq!(record(&queued, 3), (Some(Time(1_100)), Some(Time(1_150))));
    let rigid_run = run(4, None, &[ahead[0], ahead[1], as_rigid]);
    assert_eq!(record(&rigid_run, 3), record(&queued, 3));
    assert_eq!(queued.report.instant_start_ratio, 0.0);
    // With one node idle it starts at once only because EASY backfills it (it ends at 70,
    // before the queued job's reservation at 1,000).
    let ahead = [rigid(1, 0, 3, 1_000, 0), rigid(2, 10, 4, 100, 0)];
    let backfilled = run(4, None, &[ahead[0], ahead[1], HybridJob::OnDemand(od)]);
    assert_eq!(record(&backfilled, 3), (Some(Time(20)), Some(Time(70))));
    assert_eq!(backfilled.report.instant_start_ratio, 1.0);
}

#[test]
fn window_utilization_counts_useful_work_inside_the_window() {
    // A 4-node rigid job (setup 100, no checkpoint) runs 0..500 and is preempted by a 2-node
    // on-demand job arriving at 500 for 200 s; it restarts at 700 and runs 1,000 s (setup
    // again), to 1,700. Useful node-seconds (§IV-D: the waste of the preemption excluded):
    // 0 in 0..500 (all 2,000 lost), 400 in 500..700, 4 × 1,000 in 700..1,700 (its setup
    // 700..800 is part of the run, overhead kept apart).
    let jobs = [
        rigid(1, 0, 4, 1_000, 100),
        HybridJob::OnDemand(on_demand(2, 500, 2, 200)),
    ];
    let out = run(4, Some(N_PAA), &jobs);
    assert_eq!(record(&out, 1), (Some(Time(0)), Some(Time(1_700))));
    let r = &out.report;
    // The arrival window 0..500: nothing useful, every node held.
    assert_eq!(r.window_utilization, 0.0);
    assert_eq!(r.window_held_utilization, 1.0);
    // Over 0..1,000: 400 + 4 × 300 useful of 4 × 1,000; without the setup, 400 + 4 × 200.
    assert_eq!(
        out.usage
            .useful_utilization(Pool::Batch, 4, Time(0), Time(1_000)),
        Some(0.4)
    );
    assert_eq!(
        out.overhead
            .within(Pool::Batch, UsageKind::Busy, Time(0), Time(1_000)),
        Some(400)
    );
    assert_eq!(
        out.usage
            .utilization(Pool::Batch, UsageKind::Busy, 4, Time(0), Time(1_000)),
        Some(0.9)
    );
    // The makespan utilisation: 4,400 useful of 4 × 1,700.
    assert!((r.utilization - 4_400.0 / 6_800.0).abs() < 1e-12);
    assert_eq!(out.accounts[0].overhead, 4 * 100);
}

#[test]
fn a_preempted_rigid_job_keeps_the_work_of_its_last_checkpoint() {
    // MTBF 1 h: τ for δ = 600 s is sqrt(2·600·3600)·(1 + sqrt(1/12)/3 + 1/108) − 600 ≈ 1,698 s.
    let config = HybridConfig {
        checkpoint: CheckpointPolicy::new(Duration::from_hours(1), 4).unwrap(),
        ..HybridConfig::new(4).unwrap()
    };
    let ck = config.checkpoint.checkpointing(4, Duration(5_000)).unwrap();
    assert_eq!((ck.interval, ck.cost), (Duration(1_698), Duration(600)));
    // The trace's 5,000 s are 100 s of setup, then 3,700 s of work with two checkpoints of
    // 600 s (at the optimum). The first completes at 100 + 1,698 + 600 = 2,398.
    let jobs = [
        rigid(1, 0, 4, 5_000, 100),
        HybridJob::OnDemand(on_demand(2, 2_500, 4, 100)),
    ];
    let out = scenario::simulate(config, Some(N_PAA), &jobs).unwrap();
    // Preempted at 2,500: 1,698 s of work saved, 102 s of recomputation and 100 s of setup
    // lost. It resumes at 2,600 with 2,002 s of work: setup, work, one checkpoint.
    assert_eq!(record(&out, 1).1, Some(Time(2_600 + 100 + 2_002 + 600)));
    let a = out.accounts[0];
    assert_eq!(a.wasted, 4 * 202);
    assert_eq!(a.required, 4 * 5_000);
    assert_eq!(a.delivered - a.wasted, a.required);
}

#[test]
fn checkpoints_cost_their_time_away_from_the_optimum() {
    // The same work checkpointing twice as often takes two more checkpoints of 600 s.
    let base = CheckpointPolicy::new(Duration::from_hours(1), 4).unwrap();
    let run_with = |checkpoint| {
        let config = HybridConfig {
            checkpoint,
            ..HybridConfig::new(4).unwrap()
        };
        let out = scenario::simulate(config, None, &[rigid(1, 0, 4, 5_000, 100)]).unwrap();
        record(&out, 1).1
    };
    assert_eq!(run_with(base), Some(Time(5_000)));
    // τ = 849: 3,700 s of work take 4 checkpoints.
    assert_eq!(
        run_with(base.with_scale(0.5).unwrap()),
        Some(Time(100 + 3_700 + 4 * 600))
    );
}

#[test]
fn spaa_shrinks_and_the_job_expands_back() {
    // An 8-node malleable job (work 8,000 node-s, min 2) from 0; a 4-node on-demand job at
    // 400 for 200 s. SPAA shrinks it to 4 (its 4,800 node-s left take 1,200 s), and at 600
    // it expands back to 8: 4,000 node-s left, 500 s → ends at 1,100.
    let jobs = [
        malleable(1, 0, 2, 8, 8_000),
        HybridJob::OnDemand(on_demand(2, 400, 4, 200)),
    ];
    let out = run(8, Some(N_SPAA), &jobs);
    assert_eq!(record(&out, 2), (Some(Time(400)), Some(Time(600))));
    assert_eq!(record(&out, 1), (Some(Time(0)), Some(Time(1_100))));
    let a = out.accounts[0];
    assert_eq!((a.shrinks, a.preemptions, a.wasted), (1, 0, 0));
    assert_eq!(a.delivered, 8_000);
    assert_eq!(out.report.shrinks, 1);
}

/// §III-B2 / Obs. 4: SPAA "reduces all running malleable jobs' sizes" — a 2-node job gives
/// as much as a 6-node one — and at the on-demand job's end each expands back to its own
/// original size (§III-B4).
#[test]
fn spaa_shrinks_every_running_malleable_job_evenly() {
    let jobs = [
        malleable(1, 0, 2, 6, 6_000),
        malleable(2, 0, 1, 2, 2_000),
        HybridJob::OnDemand(on_demand(3, 100, 2, 100)),
    ];
    let out = run(8, Some(N_SPAA), &jobs);
    assert_eq!(record(&out, 3), (Some(Time(100)), Some(Time(200))));
    for id in [1, 2] {
        let a = account(&out, id);
        assert_eq!(
            (a.shrinks, a.expansions, a.preemptions),
            (1, 1, 0),
            "job {id}"
        );
    }
    // Job 1: 600 node-s by 100, 5 nodes 100..200 (500 node-s), then 4,900 on 6: ends at
    // 200 + 817 (rounded up). Job 2: 200 by 100, 1 node 100..200, then 1,700 on 2: 1,050.
    assert_eq!(record(&out, 1).1, Some(Time(200 + 817)));
    assert_eq!(record(&out, 2).1, Some(Time(1_050)));
}

/// Under a mechanism a malleable job starts at its requested size, as in the baseline: it
/// waits for its 8 nodes rather than starting on the 4 idle ones (§III-B4 resizes only what
/// the mechanisms shrank).
#[test]
fn malleable_jobs_start_at_their_requested_size_under_the_mechanisms() {
    let jobs = [rigid(1, 0, 4, 1_000, 0), malleable(2, 10, 2, 8, 4_000)];
    for mechanism in [None, Some(N_SPAA), Some(CUP_PAA)] {
        let out = run(8, mechanism, &jobs);
        assert_eq!(record(&out, 2), (Some(Time(1_000)), Some(Time(1_500))));
        assert_eq!(account(&out, 2).expansions, 0);
    }
}

/// Daly's interval with the job's own MTBF (§IV-B with §V-C's failure model): on 100 nodes
/// with a 1-hour system MTBF a 1-node job has a 100-hour MTBF and checkpoints at Daly's
/// interval for that, so a preemption at 30,000 s keeps one interval of work, not the ~15
/// the system's MTBF would give.
#[test]
fn a_rigid_job_checkpoints_at_daly_for_its_own_mtbf() {
    let config = HybridConfig {
        checkpoint: CheckpointPolicy::new(Duration::from_hours(1), 100).unwrap(),
        ..HybridConfig::new(100).unwrap()
    };
    let tau = cosched_hybrid::daly_interval(Duration(600), Duration::from_hours(100)).unwrap();
    assert_eq!(config.checkpoint.interval(1), tau);
    assert_eq!(
        config.checkpoint.interval(100),
        cosched_hybrid::daly_interval(Duration(600), Duration::from_hours(1)).unwrap()
    );
    // A 1-node job of 50,000 s; a 100-node on-demand job at 30,000 needs its node.
    let jobs = [
        rigid(1, 0, 1, 50_000, 0),
        HybridJob::OnDemand(on_demand(2, 30_000, 100, 100)),
    ];
    let sim = HybridSim::new(config).unwrap().check_invariants();
    let out = scenario::run_policy(sim, Some(N_PAA), &jobs).unwrap();
    let a = account(&out, 1);
    assert_eq!(a.preemptions, 1);
    // The first checkpoint completes at τ + 600; the rest of the 30,000 s is lost.
    assert_eq!(a.wasted, 30_000 - (tau.0 + 600));
    assert_eq!(a.delivered - a.wasted, a.required);
}

#[test]
fn cua_collects_released_nodes_so_the_job_starts_without_preemption() {
    // 4 nodes: job 1 (2 nodes) ends at 500, job 3 (2 nodes) runs to 5,000. A 2-node
    // on-demand job noticed at 0 arrives at 1,000: CUA claims job 1's nodes at 500.
    let od = on_demand(2, 1_000, 2, 100)
        .with_notice(Time(1), Time(1_000))
        .unwrap();
    let jobs = [
        rigid(1, 0, 2, 500, 0),
        rigid(3, 0, 2, 5_000, 0),
        rigid(4, 2, 2, 2_000, 0),
        HybridJob::OnDemand(od),
    ];
    let out = run(4, Some(CUA_PAA), &jobs);
    assert_eq!(record(&out, 2), (Some(Time(1_000)), Some(Time(1_100))));
    assert_eq!(out.report.preemptions, 0);
    // Job 4 would have backfilled onto job 1's nodes at 500; it waits for them instead.
    assert_eq!(record(&out, 4).0, Some(Time(1_100)));
    // Without the notice strategy, job 4 backfills at 500 and PAA preempts it (the cheaper:
    // 2 × 500 node-s lost against 2 × 1,000 for job 3) at the arrival.
    let paa = run(4, Some(N_PAA), &jobs);
    assert_eq!(record(&paa, 2).0, Some(Time(1_000)));
    assert_eq!(record(&paa, 4).0, Some(Time(500)));
    assert_eq!(paa.report.preemptions, 1);
}

#[test]
fn reserved_idle_nodes_run_guests_until_the_arrival() {
    // 4 nodes: L holds 2 until 5,000; the other 2 are reserved at the notice (t = 0) for a
    // 2-node job arriving at 1,000. A (estimate 500) ends before the arrival: it runs there
    // 10-510. Malleable M (2,000 s on 2 nodes) comes at 600: a guest, preempted at 1,000 with
    // 1,600 s left; it resumes when the on-demand job ends at 1,100.
    let od = on_demand(9, 1_000, 2, 100)
        .with_notice(Time(0), Time(1_000))
        .unwrap();
    let jobs = [
        rigid(1, 0, 2, 5_000, 0),
        HybridJob::OnDemand(od),
        rigid(2, 10, 2, 500, 0),
        malleable(3, 600, 1, 2, 4_000),
    ];
    let out = run(4, Some(CUA_PAA), &jobs);
    assert_eq!(record(&out, 2), (Some(Time(10)), Some(Time(510))));
    assert_eq!(record(&out, 9), (Some(Time(1_000)), Some(Time(1_100))));
    assert_eq!(record(&out, 3), (Some(Time(600)), Some(Time(2_700))));
    // Evicted as a guest at the arrival: counted apart from the mechanisms' preemptions.
    assert_eq!(
        (account(&out, 3).preemptions, account(&out, 3).evictions),
        (0, 1)
    );
    assert_eq!((out.report.preemptions, out.report.evictions), (0, 1));
    assert_eq!(out.report.malleable_preempted_ratio, 0.0);
    assert_eq!(out.report.malleable_evicted_ratio, 1.0);
    assert_eq!(out.report.guest_starts, 2);
    // Without a notice strategy nothing is reserved: A and M start at once, and PAA preempts
    // the cheaper of L and M at the arrival.
    let n = run(4, Some(N_PAA), &jobs);
    assert_eq!(n.report.guest_starts, 0);
}

#[test]
fn a_reservation_is_released_ten_minutes_after_the_estimate() {
    // The job announces 1,000 but comes at 2,000: its reservation of the 2 idle nodes is
    // released at 1,600 and a batch job submitted at 100 (too long to be a guest) starts on
    // them then; at 2,000 PAA preempts it for the on-demand job.
    let od = on_demand(2, 2_000, 2, 100)
        .with_notice(Time(0), Time(1_000))
        .unwrap();
    let jobs = [rigid(1, 100, 2, 5_000, 0), HybridJob::OnDemand(od)];
    let out = run(2, Some(CUA_PAA), &jobs);
    assert_eq!(record(&out, 1).0, Some(Time(1_600)));
    assert_eq!(record(&out, 2).0, Some(Time(2_000)));
    assert_eq!(out.accounts[0].preemptions, 1);
    assert_eq!(out.report.guest_starts, 0);
}

#[test]
fn cup_preempts_before_the_arrival() {
    // 2 nodes, one rigid job to 10,000; CUP preempts it at the notice (no checkpoints) so the
    // nodes wait for the job, which then starts at its arrival without an arrival decision.
    let od = on_demand(2, 1_000, 2, 100)
        .with_notice(Time(100), Time(1_000))
        .unwrap();
    let jobs = [rigid(1, 0, 2, 9_000, 0), HybridJob::OnDemand(od)];
    let out = run(2, Some(CUP_PAA), &jobs);
    assert_eq!(record(&out, 2), (Some(Time(1_000)), Some(Time(1_100))));
    assert_eq!(out.accounts[0].wasted, 2 * 100);
    // Requeued with all its work (τ = 9,786 s: it never checkpoints), it resumes at 1,100.
    assert_eq!(record(&out, 1).1, Some(Time(1_100 + 9_000)));
}

#[test]
fn on_demand_jobs_waiting_at_the_front_are_served_first_come_first_served() {
    // 4 nodes. C (3 nodes) runs 0-1,000 and rigid R (1 node) 0-500. A (4 nodes) arrives at
    // 100: the batch jobs running cannot free 4, so it waits at the front. B (2 nodes)
    // arrives at 500 when R ends: it cannot start either and queues behind A, holding
    // nothing — so A gets R's node at 500 and C's three at 1,000, and B follows A.
    let jobs = [
        HybridJob::OnDemand(on_demand(1, 0, 3, 1_000)),
        rigid(2, 0, 1, 500, 0),
        HybridJob::OnDemand(on_demand(3, 100, 4, 100)),
        HybridJob::OnDemand(on_demand(4, 500, 2, 100)),
    ];
    let out = run(4, Some(N_PAA), &jobs);
    assert_eq!(out.report.completed, 4);
    assert_eq!(record(&out, 3), (Some(Time(1_000)), Some(Time(1_100))));
    assert_eq!(record(&out, 4), (Some(Time(1_100)), Some(Time(1_200))));
}

/// A random job: kind, submit, size, run time, setup share, notice shape.
fn job_strategy(nodes: u32) -> impl Strategy<Value = (u8, i64, u32, i64, u8, u8, i64)> {
    (
        0u8..3,
        0i64..20_000,
        1u32..=nodes,
        1i64..8_000,
        0u8..=10,
        0u8..4,
        -1_800i64..1_800,
    )
}

fn build(nodes: u32, raw: &[(u8, i64, u32, i64, u8, u8, i64)]) -> Vec<HybridJob> {
    raw.iter()
        .enumerate()
        .map(
            |(i, &(kind, submit, size, runtime, setup, category, shift))| {
                let id = i as u64 + 1;
                let setup = runtime * i64::from(setup) / 100;
                match kind {
                    0 => rigid(id, submit, size, runtime, setup),
                    1 => HybridJob::Malleable {
                        job: MalleableJob::new(
                            JobId(id),
                            Time(submit),
                            size.div_ceil(5),
                            size,
                            Duration(runtime * i64::from(size)),
                            Duration(setup),
                        )
                        .unwrap(),
                        estimate: Duration(runtime + setup + 60),
                    },
                    _ => {
                        let od = on_demand(id, submit, size.min(nodes), runtime);
                        let estimate = Time(submit + shift.abs() * i64::from(category % 3));
                        let od = match category {
                            0 => od,
                            _ => od
                                .with_notice((estimate - Duration(900)).min(Time(submit)), estimate)
                                .unwrap(),
                        };
                        HybridJob::OnDemand(od)
                    }
                }
            },
        )
        .collect()
}

fn mechanisms() -> impl Strategy<Value = Option<Composite>> {
    prop_oneof![
        Just(None),
        (0usize..6).prop_map(|k| Some(Composite::ALL[k]))
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_job_ends_once_and_nodes_and_work_are_conserved(
        nodes in 2u32..=16,
        raw in prop::collection::vec(job_strategy(16), 1..25),
        mechanism in mechanisms(),
        failures in any::<bool>(),
        seed in 0u64..1_000,
    ) {
        let config = HybridConfig {
            failures: failures.then_some(Failures {
                mtbf: Duration(3_000),
                mean_repair: Duration(2_000),
            }),
            checkpoint: CheckpointPolicy::new(Duration(2_000), nodes).unwrap(),
            seed,
            ..HybridConfig::new(nodes).unwrap()
        };
        let raw: Vec<_> = raw.into_iter().map(|mut r| { r.2 = r.2.min(nodes); r }).collect();
        let jobs = build(nodes, &raw);
        let sim = HybridSim::new(config.clone()).unwrap().check_invariants();
        let out = scenario::run_policy(sim, mechanism, &jobs).unwrap();
        prop_assert!(out.violations.is_empty(), "{:?}", out.violations);
        prop_assert_eq!(out.report.completed, jobs.len());
        for job in &jobs {
            let k = out.records.iter().position(|r| r.id == job.id()).unwrap();
            let (a, r) = (&out.accounts[k], &out.records[k]);
            prop_assert_eq!(a.completions, 1, "{} ended {} times", a.id, a.completions);
            // Preempted, shrunk or failed, a job keeps its submit time.
            prop_assert_eq!(r.submit, job.submit());
            let useful = a.delivered - a.wasted;
            if let HybridJob::Malleable { job: m, .. } = job {
                // Its setup does not scale (§III-A): the work beyond it is conserved, the
                // first setup (on the nodes it started on) is overhead.
                let n = i64::from(m.max_size);
                let work = a.required - n * m.setup.0.min(a.required / n);
                let done = useful - a.overhead;
                prop_assert!(done >= work && done - work <= a.rounding_slack,
                    "{}: work done {} work {} slack {}", a.id, done, work, a.rounding_slack);
            } else {
                prop_assert_eq!(useful, a.required, "{}", a.id);
            }
            prop_assert!(r.start.unwrap() >= r.submit);
            if failures {
                continue;
            }
            prop_assert_eq!(a.failures, 0);
        }
        // The ledger holds every delivered node-second as busy, and the useful ones net of
        // waste.
        let (from, to) = (Time(i64::MIN / 4), Time(i64::MAX / 4));
        let delivered: i64 = out.accounts.iter().map(|a| a.delivered).sum();
        // Setups and checkpoint writes not lost are part of the execution (§IV-D counts
        // them), kept apart in the overhead ledger.
        prop_assert!(out.accounts.iter().all(|a| a.overhead >= 0 && a.overhead <= a.delivered - a.wasted));
        let useful: i64 = out.accounts.iter().map(|a| a.delivered - a.wasted).sum();
        let overhead: i64 = out.accounts.iter().map(|a| a.overhead).sum();
        prop_assert_eq!(out.usage.total(Pool::Batch, UsageKind::Busy), i128::from(delivered));
        prop_assert_eq!(out.usage.useful_within(Pool::Batch, from, to), Some(i128::from(useful)));
        prop_assert_eq!(out.overhead.total(Pool::Batch, UsageKind::Busy), i128::from(overhead));
        prop_assert!(out.usage.intervals().iter().all(|u| u.to > u.from));
        // Without notices no job runs as a guest, so none is evicted.
        if mechanism.is_none_or(|m| m.notice == NoticeStrategy::N) {
            prop_assert_eq!(out.report.evictions, 0);
        }
        // Same seed, same outcome.
        let again = scenario::simulate(config, mechanism, &jobs).unwrap();
        prop_assert_eq!(format!("{:?}", again.report), format!("{:?}", out.report));
        prop_assert_eq!(&again.records, &out.records);
    }

    #[test]
    fn a_lone_on_demand_job_starts_at_its_arrival_under_every_mechanism(
        nodes in 2u32..=16,
        raw in prop::collection::vec(job_strategy(16), 1..15),
        od in job_strategy(16),
        k in 0usize..6,
    ) {
        let mut raw: Vec<_> = raw.into_iter().map(|mut r| { r.0 %= 2; r.2 = r.2.min(nodes); r }).collect();
        raw.push((2, od.1, od.2.min(nodes), od.3, 0, od.5, od.6));
        let jobs = build(nodes, &raw);
        let out = run(nodes, Some(Composite::ALL[k]), &jobs);
        let od = jobs.last().unwrap().id();
        let r = out.records.iter().find(|r| r.id == od).unwrap();
        prop_assert_eq!(r.start, Some(r.submit));
        prop_assert_eq!(out.report.instant_start_ratio, 1.0);
    }
}

#[test]
fn jobs_built_field_by_field_are_validated_not_panicked_on() {
    let config = HybridConfig::new(4).unwrap();
    let od = on_demand(1, 10, 2, 100);
    let bad_od = [
        OnDemandJob { size: 0, ..od },
        OnDemandJob {
            runtime: Duration(-5),
            ..od
        },
        OnDemandJob {
            notice: Some(Time(20)),
            estimated_arrival: Some(Time(30)),
            ..od
        },
    ];
    // Invalid jobs are counted and left out by the admission, never panicked on.
    let invalid = |job: HybridJob| {
        let report = scenario::simulate(config.clone(), Some(CUA_PAA), &[job])
            .unwrap()
            .report;
        report.invalid == 1 && report.completed == 0
    };
    for job in bad_od {
        assert!(invalid(HybridJob::OnDemand(job)), "{job:?}");
    }
    let HybridJob::Malleable { job, estimate } = malleable(2, 0, 1, 2, 100) else {
        unreachable!()
    };
    let bad_malleable = [
        MalleableJob {
            min_size: 0,
            max_size: 0,
            ..job
        },
        MalleableJob {
            work: Duration(-100),
            ..job
        },
    ];
    for job in bad_malleable {
        assert!(invalid(HybridJob::Malleable { job, estimate }), "{job:?}");
    }
    // Repeated ids are an error.
    let twice = [HybridJob::OnDemand(od), HybridJob::OnDemand(od)];
    assert!(scenario::simulate(config, Some(CUA_PAA), &twice).is_err());
}

#[test]
fn an_extreme_time_span_is_a_typed_error_not_a_hang() {
    // Hostile input #2/#8: a job submitted near i64::MAX seconds, with failures on.
    let jobs = [
        rigid(1, 0, 2, 100, 0),
        rigid(2, 9_223_372_036_854_775_000, 2, 10_000, 0),
    ];
    let config = HybridConfig {
        failures: Some(Failures {
            mtbf: Duration::from_hours(5),
            mean_repair: Duration::from_hours(6),
        }),
        ..HybridConfig::new(4).unwrap()
    };
    assert!(scenario::simulate(config.clone(), Some(N_PAA), &jobs).is_err());
    // A long but representable gap runs, failures paused while the machine is empty.
    let jobs = [
        rigid(1, 0, 2, 100, 0),
        rigid(2, 1_000_000_000_000_000, 2, 100, 0),
    ];
    let out = scenario::simulate(config, Some(N_PAA), &jobs).unwrap();
    assert_eq!(out.report.completed, 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Every mechanism meets the same environment: the baseline's outcome does not depend on
    /// the notice mix (the on-demand notices are the only draws the mix moves, and the
    /// baseline ignores them), and the failures that strike while jobs run are the same.
    #[test]
    fn the_environment_does_not_depend_on_the_notice_mix_or_the_mechanism(seed in 0u64..50) {
        use cosched_hybrid::workload::{NoticeMix, TraceParams, TypeParams, assign_types, generate};
        let trace = generate(&TraceParams::theta(120), seed).unwrap();
        let run_with = |w: usize, mechanism: Option<Composite>| {
            let types = TypeParams { mix: NoticeMix::ALL[w].1, ..TypeParams::default() };
            let jobs = assign_types(&trace, &types, seed).unwrap();
            let config = HybridConfig {
                failures: Some(Failures { mtbf: Duration::from_hours(5), mean_repair: Duration::from_hours(6) }),
                seed,
                ..HybridConfig::new(4_392).unwrap()
            };
            scenario::simulate(config, mechanism, &jobs).unwrap()
        };
        // The baseline and N ignore notices: every mix gives the same run.
        for mechanism in [None, Some(N_PAA), Some(Composite::ALL[1])] {
            let w1 = run_with(0, mechanism);
            let w5 = run_with(4, mechanism);
            prop_assert_eq!(format!("{:?}", w1.report), format!("{:?}", w5.report));
            prop_assert_eq!(&w1.records, &w5.records);
        }
    }
}

/// A node count from user input is bounded before anything is sized by it.
#[test]
fn a_huge_node_count_is_a_typed_error_before_any_allocation() {
    use cosched_hybrid::sim::MAX_NODES;
    for nodes in [0, MAX_NODES + 1, u32::MAX] {
        assert!(HybridConfig::new(nodes).is_err(), "{nodes}");
        let config = HybridConfig {
            nodes,
            ..HybridConfig::new(4).unwrap()
        };
        let err = HybridSim::new(config).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("nodes")), "{nodes}");
    }
    assert!(HybridConfig::new(MAX_NODES).is_ok());
}

/// §III-A: a malleable job runs t = t_setup + W/n on n nodes; its setup does not stretch when
/// it starts below n_max, nor on a resize, and is paid again when it is requeued. Work
/// W = 8,000 node-seconds, setup 100 s, n_max 8, estimate 2,000 s at 8 nodes.
#[test]
fn a_malleable_setup_does_not_scale_with_the_size() {
    use cosched_batch::{BatchCluster, BatchCommand, BatchJob, Resume};
    let m = MalleableJob::new(JobId(1), Time(0), 2, 8, Duration(8_000), Duration(100)).unwrap();
    let job = BatchJob::malleable(&m, 8, Duration(2_000)).unwrap();
    assert_eq!(job.runtime, Duration(1_100));
    let mut cluster = BatchCluster::new(8).unwrap();
    cluster.submit(job).unwrap();
    let mut started = Vec::new();
    let start = BatchCommand::StartResized {
        job: JobId(1),
        submit: Time(0),
        size: 4,
        at: None,
    };
    cluster.apply(Time(0), &[start], &mut started).unwrap();
    // On 4 nodes: 100 s of setup, then 8,000 / 4 s of work (not 2 × 1,100 s); the
    // estimate's work part, 8 × 1,900 node-seconds, spread the same way.
    assert_eq!(started[0].end, Time(100 + 2_000));
    assert_eq!(started[0].predicted_end, Time(100 + 3_800));
    // Expanded to 8 during its setup: the 50 s of setup left, then all the work on 8.
    let s = cluster.resize(Time(50), JobId(1), 8).unwrap();
    assert_eq!(s.end, Time(50 + 50 + 1_000));
    assert_eq!(s.predicted_end, Time(50 + 50 + 1_900));
    // Shrunk to 2 at 600 s: 8 × 500 done, 4,000 left over 2 nodes.
    let s = cluster.resize(Time(600), JobId(1), 2).unwrap();
    assert_eq!(s.end, Time(600 + 2_000));
    // Expanded to 8 at 1,600 s: 2 × 1,000 more done, 2,000 left over 8 nodes.
    let s = cluster.resize(Time(1_600), JobId(1), 8).unwrap();
    assert_eq!(s.end, Time(1_600 + 250));
    // Preempted at 1,700 s: 8 × 100 more done; requeued at 8 nodes with its setup to pay
    // again and 1,200 node-seconds of work.
    cluster
        .preempt(Time(1_700), JobId(1), Resume::Remaining)
        .unwrap();
    let queued = cluster.queue().next().unwrap();
    assert_eq!(queued.job.runtime, Duration(100 + 150));
    assert_eq!(queued.job.size, 8);
}

/// A policy that asks for a batch pass in every settle round never quiets: the simulator
/// stops it with a typed error naming the instant, after its round limit, instead of hanging.
/// A policy that cannot fail (`Infallible`) runs as the built-in ones do, and the site's
/// scheduler is any batch policy.
#[test]
fn a_policy_that_never_quiets_stops_with_a_typed_error_and_any_policy_runs() {
    use cosched_batch::scenario::{self as batch, BatchScheduler, BuiltinPolicy};
    use cosched_core::driver::{CallError, CallKind};
    use cosched_core::policy::Policy;
    use cosched_hybrid::SimError;
    use cosched_hybrid::policy::{BatchPass, Command, Observation, PlatformView};
    use std::convert::Infallible;

    /// Queues every on-demand job; asks for a pass in the first settle round, or in every
    /// round when `always`.
    struct Passes {
        always: bool,
        rounds: u32,
    }
    impl Policy for Passes {
        type Observation = Observation;
        type Command = Command;
        type View = dyn PlatformView;
        type Error = Infallible;
        fn observe(
            &mut self,
            _: Time,
            obs: &Observation,
            _: &dyn PlatformView,
            out: &mut Vec<Command>,
        ) -> Result<(), Infallible> {
            match *obs {
                Observation::Arrival { job, .. } => out.push(Command::Submit { job }),
                Observation::Settle { round } if round == 0 || self.always => {
                    self.rounds = self.rounds.max(round + 1);
                    out.push(Command::Schedule(BatchPass::Site {
                        resize_malleable: false,
                    }));
                }
                _ => {}
            }
            Ok(())
        }
    }

    let jobs = [
        rigid(1, 0, 4, 100, 0),
        rigid(2, 1, 2, 50, 0),
        rigid(3, 2, 2, 50, 0),
        HybridJob::OnDemand(on_demand(4, 3, 2, 10)),
    ];
    let config = HybridConfig::new(4).unwrap();
    let sim = HybridSim::new(config.clone()).unwrap().with_round_limit(50);
    let mut stuck = Passes {
        always: true,
        rounds: 0,
    };
    let err = sim.run(&mut stuck, &jobs).unwrap_err();
    assert_eq!(
        err,
        SimError::Policy(CallError::Rounds {
            call: CallKind::Observe,
            time: Time(0),
            rounds: 50
        })
    );
    assert_eq!(stuck.rounds, 50);

    let mut once = Passes {
        always: false,
        rounds: 0,
    };
    let easy = sim.run(&mut once, &jobs).unwrap();
    assert_eq!(easy.report.completed, 4);
    let start = |out: &HybridOutcome, id| {
        out.records
            .iter()
            .find(|r| r.id == JobId(id))
            .and_then(|r| r.start)
    };
    // EASY backfills nothing past job 1's 4 nodes; jobs 2 and 3 start when it ends.
    assert_eq!(start(&easy, 2), Some(Time(100)));
    // The site's scheduler is any batch policy: FCFS by name, or a custom one.
    for site in [
        BatchScheduler::from(BuiltinPolicy::Fcfs),
        BatchScheduler::new("my-fcfs", batch::fcfs()),
    ] {
        let config = HybridConfig {
            site,
            ..config.clone()
        };
        let out = HybridSim::new(config)
            .unwrap()
            .run(
                &mut Passes {
                    always: false,
                    rounds: 0,
                },
                &jobs,
            )
            .unwrap();
        assert_eq!(out.report.completed, 4);
        assert_eq!(start(&out, 3), Some(Time(100)));
    }
}

// The diagnoses of a run: each reason an on-demand job waits, on a hand scenario where it is
// the only one; the turnaround's parts on a known timeline; the probe deciding as the policy
// it watches.

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
        HybridJob::OnDemand(on_demand(1, 0, 3, 1_000)),
        rigid(2, 0, 1, 5_000, 0),
        HybridJob::OnDemand(on_demand(3, 100, 2, 100)),
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
        HybridJob::OnDemand(on_demand(1, 0, 2, 1_000)),
        HybridJob::OnDemand(on_demand(2, 10, 3, 100)),
        HybridJob::OnDemand(on_demand(3, 20, 1, 100)),
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
    assert_eq!(state.accounted(), 10);
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
    let jobs = [
        rigid(1, 0, 4, 1_000, 50),
        HybridJob::OnDemand(on_demand(2, 300, 2, 100)),
    ];
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
