//! Properties of the pool simulator, in every owner-return mode (vacate with checkpoint or
//! restart, suspend then vacate with checkpoint or restart): jobs run on one machine at a
//! time and only where both `Requirements` (including the desktop's `START` on
//! `KeyboardIdle`) were true at dispatch; every job completes exactly once across evictions,
//! suspensions, lease ends and checkpoints, and only after enough work; the cloud bill is the
//! sum of instance-hours × price and jobs on a cloud node run only while it is in the pool;
//! capital 0 starts no node; runs are deterministic; the environment (owners, arrivals) is
//! the same whichever policy runs; nothing happens past the horizon.

use cosched_albatross::classad::{Value, match_ads};
use cosched_albatross::policy::{Albatross, AlbatrossConfig, Capital, Sizing};
use cosched_albatross::pool::{DesktopSpec, Eviction, OwnerActivity, OwnerReturn};
use cosched_albatross::report::{MachineKind, RunEnd, SimOutcome};
use cosched_albatross::sim::SimConfig;
use cosched_albatross::workload::{Job, WorkloadModel};
use cosched_core::{Duration, SeedStreams, Time};
use proptest::prelude::*;

#[path = "support/run.rs"]
mod run;
use run::simulate;

/// The default table at capital `c` with a 300 s stall threshold: the tests' runs are
/// shorter than the paper's and need stalls sooner than its derived 4,500 s.
fn short_stalls(c: f64) -> AlbatrossConfig {
    AlbatrossConfig {
        stall_threshold: Duration(300),
        ..AlbatrossConfig::paper(Capital::new(c).unwrap())
    }
}

/// The Albatross policy configured by `config`.
fn albatross(config: &AlbatrossConfig) -> Albatross {
    Albatross::new(config.clone(), Time::ZERO).unwrap()
}

/// A small pool with busy owners, short leases and every job able to run on a desktop.
#[derive(Debug, Clone)]
struct Scenario {
    capital: f64,
    desktops: u32,
    owner_return: OwnerReturn,
    fit: bool,
    lease_s: i64,
    interarrival_s: i64,
    cloud_forbidden: f64,
    seed: u64,
    partitionable: bool,
}

/// The four owner-return modes; suspensions limited to 0 s .. 1 h.
fn owner_return() -> impl Strategy<Value = OwnerReturn> {
    let eviction = prop_oneof![Just(Eviction::Checkpoint), Just(Eviction::Restart)];
    prop_oneof![
        eviction.clone().prop_map(OwnerReturn::Vacate),
        (0i64..3600, eviction).prop_map(|(max, then)| OwnerReturn::Suspend {
            max_suspension: Duration(max),
            then,
        }),
    ]
}

prop_compose! {
    fn scenario()(
        capital in prop_oneof![Just(0.0), 0.01f64..=1.0],
        desktops in 1u32..5,
        owner_return in owner_return(),
        fit in any::<bool>(),
        lease_s in 120i64..3600,
        interarrival_s in 60i64..600,
        cloud_forbidden in 0.0f64..0.5,
        seed in any::<u64>(),
        partitionable in any::<bool>(),
    ) -> Scenario {
        Scenario { capital, desktops, owner_return, fit, lease_s, interarrival_s, cloud_forbidden, seed, partitionable }
    }
}

fn run(s: &Scenario) -> (SimConfig, Vec<Job>, SimOutcome) {
    let (mut config, mut policy) = (SimConfig::paper(), short_stalls(s.capital));
    config.desktops = (0..s.desktops)
        .map(|_| DesktopSpec {
            slots: 1,
            memory_mb: 8192,
            speed: 1.0,
        })
        .collect();
    config.owners = OwnerActivity::exponential(Duration(900), Duration(900), Duration(60));
    config.owner_return = s.owner_return;
    policy.sizing = if s.fit {
        Sizing::FitWaitingJobs
    } else {
        Sizing::Paper
    };
    let mut tiers = policy.table.tiers().to_vec();
    for t in &mut tiers {
        t.lifetime = Duration(s.lease_s);
    }
    policy.table =
        cosched_albatross::policy::CapitalTable::new(tiers, config.instance_types.len()).unwrap();
    config.seed = s.seed;
    config.partitionable = s.partitionable;
    config.horizon = Time(10_000) + Duration::from_hours(24 * 30);
    let workload = WorkloadModel {
        interarrival: Duration(s.interarrival_s),
        cloud_forbidden: s.cloud_forbidden,
        mean_work_s: 60.0,
        ..WorkloadModel::paper()
    };
    let jobs = workload
        .generate(Duration(10_000), SeedStreams::new(s.seed), 10_000)
        .unwrap();
    let out = simulate(&config, &jobs, albatross(&policy)).unwrap();
    (config, jobs, out)
}

/// The slot's speed, from its ad's `Mips` (reference desktop = 1000).
fn speed(out: &SimOutcome, slot: usize) -> f64 {
    match out.slots[slot].ad.eval_attr("Mips", None) {
        Value::Int(mips) => mips as f64 / 1000.0,
        other => panic!("slot {slot} advertises Mips = {other}"),
    }
}

/// A job runs on at most one slot at a time, a slot holds at most one job at a time, and
/// every stay is on a slot whose ad, as advertised at dispatch, matches the job's
/// symmetrically; only desktops suspend, and only in the suspend modes.
fn check_exclusive_and_matched(
    s: &Scenario,
    jobs: &[Job],
    out: &SimOutcome,
) -> Result<(), TestCaseError> {
    let mut by_job = vec![Vec::new(); jobs.len()];
    let mut by_slot = vec![Vec::new(); out.slots.len()];
    for p in &out.placements {
        let slot = &out.slots[p.slot];
        prop_assert!(p.start <= p.end);
        prop_assert!(p.start >= jobs[p.job].submit);
        prop_assert!(p.suspended <= p.end - p.start);
        prop_assert_eq!(p.keyboard_idle.is_some(), slot.kind == MachineKind::Desktop);
        prop_assert!(match_ads(&jobs[p.job].ad, &slot.ad_at_dispatch(p)).matched);
        match s.owner_return {
            OwnerReturn::Vacate(_) => {
                prop_assert_eq!(p.suspensions, 0);
                prop_assert!(p.outcome != RunEnd::SuspensionExpired);
            }
            OwnerReturn::Suspend { max_suspension, .. } => {
                prop_assert!(p.outcome != RunEnd::Evicted);
                prop_assert!(
                    p.suspended
                        <= Duration(
                            max_suspension
                                .secs()
                                .saturating_mul(i64::from(p.suspensions))
                        )
                );
                prop_assert!(p.suspensions == 0 || slot.kind == MachineKind::Desktop);
            }
        }
        by_job[p.job].push((p.start, p.end));
        by_slot[p.slot].push((p.start, p.end));
    }
    for mut runs in by_job.into_iter().chain(by_slot) {
        runs.sort();
        for w in runs.windows(2) {
            prop_assert!(w[0].1 <= w[1].0, "overlapping stays {:?}", w);
        }
    }
    Ok(())
}

/// Given enough time, every job completes exactly once, after its last interruption, having
/// run just long enough for its work since the last owner eviction that lost its progress
/// (under restart semantics) or since its submission (under checkpoint semantics; cloud
/// node stops always checkpoint); its record agrees with its stays.
fn check_no_job_lost(s: &Scenario, jobs: &[Job], out: &SimOutcome) -> Result<(), TestCaseError> {
    let restart = matches!(
        s.owner_return,
        OwnerReturn::Vacate(Eviction::Restart)
            | OwnerReturn::Suspend {
                then: Eviction::Restart,
                ..
            }
    );
    for (i, record) in out.jobs.iter().enumerate() {
        let mut runs: Vec<_> = out.placements.iter().filter(|p| p.job == i).collect();
        runs.sort_by_key(|p| p.start);
        let completed: Vec<_> = runs
            .iter()
            .filter(|p| p.outcome == RunEnd::Completed)
            .collect();
        prop_assert_eq!(
            completed.len(),
            1,
            "job {} completed {} times",
            i,
            completed.len()
        );
        let last = runs.last().unwrap();
        prop_assert_eq!(last.outcome, RunEnd::Completed);
        prop_assert_eq!(record.end, Some(last.end));
        prop_assert_eq!(record.first_start, Some(runs[0].start));
        prop_assert_eq!(record.last_start, Some(last.start));
        prop_assert_eq!(record.runtime(), Some(last.end - last.start));
        let interruptions = runs
            .iter()
            .filter(|p| p.outcome != RunEnd::Completed)
            .count() as u32;
        prop_assert_eq!(interruptions, record.evictions + record.node_stops);
        prop_assert_eq!(
            record.suspensions,
            runs.iter().map(|p| p.suspensions).sum::<u32>()
        );
        prop_assert_eq!(record.completed_on, Some(out.slots[last.slot].kind));
        prop_assert!(runs.iter().all(|p| p.outcome != RunEnd::Unfinished));
        let kept = if restart {
            let lost = runs
                .iter()
                .rposition(|p| matches!(p.outcome, RunEnd::Evicted | RunEnd::SuspensionExpired));
            &runs[lost.map_or(0, |k| k + 1)..]
        } else {
            &runs[..]
        };
        let work: f64 = kept
            .iter()
            .map(|p| p.running().secs() as f64 * speed(out, p.slot))
            .sum();
        let w = jobs[i].work_s;
        prop_assert!(
            work >= w - 1e-6,
            "job {}: ran {} of {} reference s",
            i,
            work,
            w
        );
        // At most one slot-second too much, where the speed is constant: a burstable node
        // that spent its credits ran slower than its `Mips` (its own scenario test checks
        // those timings), so there the full-speed work only bounds from above.
        let constant = kept.iter().all(|p| match out.slots[p.slot].kind {
            MachineKind::Cloud(t) => out.instance_types[t].credits.is_none(),
            MachineKind::Desktop => true,
        });
        prop_assert!(
            !constant || work < w + speed(out, last.slot) + 1e-6,
            "job {}: ran {} for {} reference s",
            i,
            work,
            w
        );
    }
    prop_assert_eq!(out.progress.last().map(|p| p.completed), Some(jobs.len()));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn runs_are_exclusive_and_matched(s in scenario()) {
        let (_, jobs, out) = run(&s);
        check_exclusive_and_matched(&s, &jobs, &out)?;
    }

    #[test]
    fn no_job_is_lost(s in scenario()) {
        let (_, jobs, out) = run(&s);
        check_no_job_lost(&s, &jobs, &out)?;
    }

    /// The bill is Σ instance-hours × price over the nodes; no node stays longer than its
    /// spin-up plus lifetime; every stay on a cloud slot lies within its node's time in the
    /// pool; with capital 0 no node starts and nothing runs in the cloud.
    #[test]
    fn cloud_nodes_and_capital_zero(s in scenario()) {
        let (config, _, out) = run(&s);
        let bill: f64 = out
            .cloud_nodes
            .iter()
            .map(|n| (n.stopped - n.requested).secs() as f64 / 3600.0 * out.instance_types[n.instance].price_per_hour)
            .sum();
        prop_assert!((out.cloud_cost - bill).abs() <= 1e-9 * bill.max(1.0));
        for n in &out.cloud_nodes {
            let spin_up = out.instance_types[n.instance].spin_up;
            prop_assert!(n.requested <= n.stopped);
            prop_assert!(n.stopped.secs() <= n.requested.secs().saturating_add(spin_up.secs()).saturating_add(s.lease_s));
        }
        for p in &out.placements {
            let slot = &out.slots[p.slot];
            if let MachineKind::Cloud(_) = slot.kind {
                let node = out.cloud_nodes.iter().find(|n| n.node == slot.node).unwrap();
                prop_assert!(node.ready.is_some_and(|r| r <= p.start) && p.end <= node.stopped);
            }
        }
        if s.capital == 0.0 {
            prop_assert!(out.cloud_nodes.is_empty());
            prop_assert_eq!(out.cloud_cost, 0.0);
            prop_assert!(out.slots.iter().all(|slot| slot.kind == MachineKind::Desktop));
        }
        prop_assert_eq!(out.slots.len(), config.desktops.len() + out.cloud_nodes.iter()
            .map(|n| out.instance_types[n.instance].slots as usize).sum::<usize>());
    }

    /// The node-seconds ledger agrees with the stays: busy slot-seconds are the stays' spans
    /// without suspensions, per pool; wasted never exceeds busy; cloud busy never exceeds
    /// cloud held.
    #[test]
    fn the_usage_ledger_agrees_with_the_stays(s in scenario()) {
        use cosched_core::Pool;
        use cosched_core::usage::UsageKind;
        let (_, _, out) = run(&s);
        let busy = |cloud: bool| out.placements.iter()
            .filter(|p| (out.slots[p.slot].kind != MachineKind::Desktop) == cloud)
            .map(|p| i128::from((p.end - p.start - p.suspended).secs()))
            .sum::<i128>();
        prop_assert_eq!(out.usage.total(Pool::Cloud, UsageKind::Busy), busy(true));
        prop_assert_eq!(out.usage.total(Pool::Volunteer, UsageKind::Busy), busy(false));
        for pool in [Pool::Cloud, Pool::Volunteer] {
            prop_assert!(out.usage.total(pool, UsageKind::Wasted) <= out.usage.total(pool, UsageKind::Busy));
        }
        prop_assert!(out.usage.total(Pool::Cloud, UsageKind::Busy) <= out.usage.total(Pool::Cloud, UsageKind::Held));
    }

    /// The environment is the policy's input, never its output: the owners' arrivals and
    /// departures and the submissions are identical without Albatross and at any capital.
    #[test]
    fn the_environment_is_the_same_whatever_the_policy(s in scenario(), c in 0.01f64..=1.0) {
        let (_, jobs_a, a) = run(&Scenario { capital: 0.0, ..s.clone() });
        let (_, jobs_b, b) = run(&Scenario { capital: c, ..s });
        prop_assert_eq!(&a.owner_changes, &b.owner_changes);
        let submits = |jobs: &[Job]| jobs.iter().map(|j| (j.id, j.submit, j.work_s.to_bits())).collect::<Vec<_>>();
        prop_assert_eq!(submits(&jobs_a), submits(&jobs_b));
        let arrivals = |o: &SimOutcome| o.progress.windows(2)
            .filter(|w| w[1].dispatched > w[0].dispatched)
            .map(|w| (w[1].time, w[1].dispatched))
            .collect::<Vec<_>>();
        prop_assert_eq!(arrivals(&a), arrivals(&b));
    }
}

/// Each of the four modes, on fixed scenarios that exercise it: vacating evicts, suspending
/// both resumes jobs that then complete where they were suspended and, past
/// `max_suspension`, vacates them; the invariants hold in all four.
#[test]
fn every_owner_return_mode_keeps_the_invariants() {
    let modes = [
        OwnerReturn::Vacate(Eviction::Checkpoint),
        OwnerReturn::Vacate(Eviction::Restart),
        OwnerReturn::Suspend {
            max_suspension: Duration(600),
            then: Eviction::Checkpoint,
        },
        OwnerReturn::Suspend {
            max_suspension: Duration(600),
            then: Eviction::Restart,
        },
    ];
    for owner_return in modes {
        let mut seen = [0usize; 3];
        for seed in 0..4 {
            let s = Scenario {
                capital: if seed % 2 == 0 { 0.0 } else { 0.4 },
                desktops: 3,
                owner_return,
                fit: false,
                lease_s: 1800,
                interarrival_s: 300,
                cloud_forbidden: 0.1,
                seed,
                partitionable: false,
            };
            let (_, jobs, out) = run(&s);
            check_exclusive_and_matched(&s, &jobs, &out).unwrap();
            check_no_job_lost(&s, &jobs, &out).unwrap();
            for p in &out.placements {
                match p.outcome {
                    RunEnd::Evicted => seen[0] += 1,
                    RunEnd::SuspensionExpired => seen[1] += 1,
                    RunEnd::Completed if p.suspensions > 0 => seen[2] += 1,
                    _ => {}
                }
            }
        }
        match owner_return {
            OwnerReturn::Vacate(_) => assert!(
                seen[0] > 0 && seen[1] + seen[2] == 0,
                "{owner_return:?}: {seen:?}"
            ),
            OwnerReturn::Suspend { .. } => assert!(
                seen[0] == 0 && seen[1] > 0 && seen[2] > 0,
                "{owner_return:?}: {seen:?}"
            ),
        }
    }
}

#[test]
fn runs_are_deterministic_for_a_seed() {
    let s = Scenario {
        capital: 0.2,
        desktops: 2,
        owner_return: OwnerReturn::Suspend {
            max_suspension: Duration(300),
            then: Eviction::Restart,
        },
        fit: true,
        lease_s: 300,
        interarrival_s: 60,
        cloud_forbidden: 0.2,
        seed: 11,
        partitionable: false,
    };
    let (_, _, a) = run(&s);
    let (_, _, b) = run(&s);
    assert_eq!(a.jobs, b.jobs);
    assert_eq!(a.placements, b.placements);
    assert_eq!(a.cloud_nodes, b.cloud_nodes);
    assert!(
        !a.cloud_nodes.is_empty(),
        "the scenario exercises the cloud"
    );
    assert!(
        a.placements
            .iter()
            .any(|p| p.outcome == RunEnd::NodeStopped)
    );
}

/// §V on the paper's pool, one seed: without Albatross the pool is starved (most jobs do not
/// complete within 100,000 s); capital 0.25 completes many more; nothing is counted past the
/// horizon and the final progress point is at the horizon.
#[test]
fn the_paper_pool_is_starved_and_albatross_relieves_it() {
    let jobs = WorkloadModel::paper()
        .generate(Duration(100_000), SeedStreams::new(3), 1000)
        .unwrap();
    let run = |c: f64| {
        let (mut config, policy) = (
            SimConfig::paper(),
            AlbatrossConfig::paper(Capital::new(c).unwrap()),
        );
        config.seed = 3;
        simulate(&config, &jobs, albatross(&policy)).unwrap()
    };
    let (none, some) = (run(0.0), run(0.25));
    assert_eq!(none.cloud_cost, 0.0);
    assert!(
        none.final_progress() < 0.3,
        "starved: {}",
        none.final_progress()
    );
    assert!(some.final_progress() > 2.0 * none.final_progress());
    for out in [&none, &some] {
        let last = out.progress.last().unwrap();
        assert_eq!(last.time, Time(100_000));
        assert_eq!(last.dispatched, jobs.len());
        assert!(
            out.jobs
                .iter()
                .all(|j| j.end.is_none_or(|e| e <= Time(100_000)))
        );
        assert!(out.cloud_nodes.iter().all(|n| n.stopped <= Time(100_000)));
        assert!(out.runtime_stats().unwrap().n == last.completed);
    }
}

/// Duplicate job ids are a typed error; invalid jobs are counted and left out.
#[test]
fn admission_rejects_duplicates_and_counts_invalid_jobs() {
    let (config, policy) = (SimConfig::paper(), AlbatrossConfig::paper(Capital::ZERO));
    let ok = Job::new(cosched_core::JobId(1), Time(0), 10.0, 256, true);
    let mut bad = Job::new(cosched_core::JobId(2), Time(0), 10.0, 256, true);
    bad.work_s = f64::NAN;
    let out = simulate(&config, &[ok.clone(), bad], albatross(&policy)).unwrap();
    assert_eq!((out.jobs.len(), out.invalid_jobs), (1, 1));
    assert!(simulate(&config, &[ok.clone(), ok], albatross(&policy)).is_err());
}

/// A suspension limit longer than any run (valid: `>= 0`) never fires and does not overflow
/// the clock: suspended jobs only ever resume.
#[test]
fn an_unbounded_suspension_limit_does_not_overflow() {
    let mut suspensions = 0;
    for seed in 0..4 {
        let s = Scenario {
            capital: 0.0,
            desktops: 4,
            owner_return: OwnerReturn::Suspend {
                max_suspension: Duration(i64::MAX),
                then: Eviction::Checkpoint,
            },
            fit: false,
            lease_s: 1800,
            interarrival_s: 60,
            cloud_forbidden: 0.0,
            seed,
            partitionable: false,
        };
        let (_, jobs, out) = run(&s);
        check_exclusive_and_matched(&s, &jobs, &out).unwrap();
        check_no_job_lost(&s, &jobs, &out).unwrap();
        assert!(out.jobs.iter().all(|j| j.evictions == 0));
        suspensions += out.jobs.iter().map(|j| j.suspensions).sum::<u32>();
    }
    assert!(suspensions > 0, "the scenarios exercise suspension");
}

/// A lease longer than any run (valid: `> 0`) does not overflow the clock: the nodes the
/// policy starts end with the run or spin down, and every job still completes.
#[test]
fn an_unbounded_lease_does_not_overflow() {
    let s = Scenario {
        capital: 0.5,
        desktops: 2,
        owner_return: OwnerReturn::Vacate(Eviction::Checkpoint),
        fit: false,
        lease_s: i64::MAX,
        interarrival_s: 60,
        cloud_forbidden: 0.0,
        seed: 4,
        partitionable: false,
    };
    let (_, jobs, out) = run(&s);
    check_exclusive_and_matched(&s, &jobs, &out).unwrap();
    check_no_job_lost(&s, &jobs, &out).unwrap();
    assert!(!out.cloud_nodes.is_empty(), "the policy starts nodes");
}

/// A burstable node without credits runs out as soon as it computes; the paper's t2 ladder
/// never does on the paper's pool (the simulator's full-speed vCPUs are then exact).
#[test]
fn credit_exhaustion_is_detected_and_absent_on_the_paper_pool() {
    let jobs = WorkloadModel::paper()
        .generate(Duration(20_000), SeedStreams::new(2), 1000)
        .unwrap();
    let (mut config, policy) = (SimConfig::paper(), short_stalls(0.75));
    config.horizon = Time(20_000);
    config.seed = 2;
    let out = simulate(&config, &jobs, albatross(&policy)).unwrap();
    assert!(!out.cloud_nodes.is_empty());
    assert_eq!(out.nodes_out_of_credit(), 0);
    for t in &mut config.instance_types {
        t.credits = Some(cosched_albatross::pool::BurstCredits {
            launch: 0.0,
            earned_per_hour: 0.0,
        });
    }
    let starved = simulate(&config, &jobs, albatross(&policy)).unwrap();
    let busy = starved
        .cloud_nodes
        .iter()
        .filter(|n| {
            starved
                .placements
                .iter()
                .any(|p| starved.slots[p.slot].node == n.node && p.end > p.start)
        })
        .count();
    assert!(busy > 0);
    assert_eq!(starved.nodes_out_of_credit(), busy);
}

/// Halving the desktops' speed and the jobs' work leaves the no-Albatross run unchanged (up to
/// rounding of run times to whole seconds): the baseline cannot identify desktop speed.
#[test]
fn the_baseline_is_invariant_under_desktop_speed_and_work_scaled_together() {
    let run = |speed: f64| {
        let model = WorkloadModel {
            mean_work_s: WorkloadModel::paper().mean_work_s * speed,
            ..WorkloadModel::paper()
        };
        let jobs = model
            .generate(Duration(100_000), SeedStreams::new(4), 1000)
            .unwrap();
        let (mut config, policy) = (SimConfig::paper(), AlbatrossConfig::paper(Capital::ZERO));
        config.seed = 4;
        for d in &mut config.desktops {
            d.speed = speed;
        }
        simulate(&config, &jobs, albatross(&policy)).unwrap()
    };
    let (a, b) = (run(1.0), run(0.5));
    assert_eq!(a.owner_changes, b.owner_changes);
    let (sa, sb) = (a.runtime_stats().unwrap(), b.runtime_stats().unwrap());
    assert!(sa.n.abs_diff(sb.n) <= 1, "{} vs {} completed", sa.n, sb.n);
    assert!((sa.mean_s - sb.mean_s).abs() < 0.05 * sa.mean_s);
}

/// Partitionable slots: a job takes a dynamic slot of its own size, so a 3 GB job runs on a
/// t2.medium (2 vCPU, 4 GiB) whose static slots hold 2 GiB each; two 1.5 GB jobs share it at
/// once; the partitionable slot gets its resources back when they leave.
#[test]
fn partitionable_slots_fit_jobs_static_slots_cannot() {
    let run = |partitionable: bool, memory: &[u32]| {
        let (mut config, policy) = (SimConfig::paper(), short_stalls(0.75));
        config.desktops.clear();
        config.partitionable = partitionable;
        config.horizon = Time(20_000);
        let jobs: Vec<Job> = memory
            .iter()
            .enumerate()
            .map(|(i, &m)| Job::new(cosched_core::JobId(i as u64), Time(0), 600.0, m, true))
            .collect();
        simulate(&config, &jobs, albatross(&policy)).unwrap()
    };
    let completed = |o: &SimOutcome| o.jobs.iter().filter(|j| j.end.is_some()).count();
    assert_eq!(
        completed(&run(false, &[3072])),
        0,
        "no static 2 GiB slot holds 3 GB"
    );
    let out = run(true, &[3072]);
    assert_eq!(completed(&out), 1);
    let p = &out.placements[0];
    let ad = out.slots[p.slot].ad_at_dispatch(p);
    assert_eq!(ad.eval_attr("Memory", None), Value::Int(3072));
    assert_eq!(ad.eval_attr("DynamicSlot", None), Value::Bool(true));
    // A request is rounded up to a multiple of 128 MB, as HTCondor's default does.
    let rounded = run(true, &[3000]);
    let p = &rounded.placements[0];
    let ad = rounded.slots[p.slot].ad_at_dispatch(p);
    assert_eq!(ad.eval_attr("Memory", None), Value::Int(3072));
    let two = run(true, &[1536, 1536, 1536]);
    assert_eq!(completed(&two), 3);
    let first: Vec<_> = two
        .placements
        .iter()
        .filter(|p| p.start == two.placements[0].start)
        .collect();
    assert_eq!(
        first.len(),
        2,
        "two jobs share the node at once, the third waits"
    );
}

/// §IV-C/§IV-F on the paper's pool at capital 0.25, step by step: one node at a time; each
/// stays at most its lifetime (15 min) after joining; a job cut at the lifetime end is
/// checkpointed and requeued; a new node is requested only once no job has been dispatched
/// for the stall threshold (300 s).
#[test]
fn nodes_live_their_lifetime_and_restart_only_on_a_new_stall() {
    let jobs = WorkloadModel::paper()
        .generate(Duration(30_000), SeedStreams::new(5), 1000)
        .unwrap();
    let (mut config, policy) = (SimConfig::paper(), short_stalls(0.25));
    config.horizon = Time(30_000);
    config.seed = 5;
    let out = simulate(&config, &jobs, albatross(&policy)).unwrap();
    assert!(out.cloud_nodes.len() > 3);
    let starts: Vec<Time> = out.placements.iter().map(|p| p.start).collect();
    for pair in out.cloud_nodes.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        assert!(b.requested >= a.stopped, "one node at a time");
        let last_dispatch = starts.iter().filter(|&&t| t < b.requested).max();
        assert!(
            last_dispatch.is_none_or(|&t| b.requested - t >= Duration(300)),
            "node requested at {} only {:?} after a dispatch",
            b.requested,
            last_dispatch
        );
    }
    for n in &out.cloud_nodes {
        if let Some(ready) = n.ready {
            assert!(n.stopped - ready <= Duration::from_mins(15));
        }
    }
    let cut = out
        .placements
        .iter()
        .find(|p| p.outcome == RunEnd::NodeStopped)
        .expect("some job outlives a node");
    let job = &out.jobs[cut.job];
    assert!(job.node_stops >= 1);
    assert!(
        out.placements
            .iter()
            .any(|p| p.job == cut.job && p.start >= cut.end)
    );
}

/// §III-B: an idle cloud node spins down as soon as a desktop is free and no job waits,
/// before its lifetime ends; with the rule off it stays its whole lifetime.
#[test]
fn idle_nodes_spin_down_when_desktops_are_free() {
    let run = |spin_down: bool| {
        let (mut config, mut policy) = (SimConfig::paper(), short_stalls(1.0));
        config.desktops.truncate(1);
        config.owners = OwnerActivity::exponential(Duration(1200), Duration(7200), Duration(60));
        config.horizon = Time(20_000);
        policy.spin_down.when_desktops_free = spin_down;
        config.seed = 1;
        let jobs = vec![Job::new(cosched_core::JobId(0), Time(0), 100.0, 256, true)];
        simulate(&config, &jobs, albatross(&policy)).unwrap()
    };
    let (on, off) = (run(true), run(false));
    let life = |o: &SimOutcome| {
        let n = o.cloud_nodes[0];
        n.stopped - n.ready.unwrap()
    };
    assert!(life(&on) < Duration::from_mins(60), "{:?}", life(&on));
    assert_eq!(life(&off), Duration::from_mins(60));
}

/// The policy resolves its instance type by name among the types the executor's cloud offers
/// (the observation lists them): with the cloud's types in reverse order, Albatross still
/// starts t2.small nodes (capital 0.5), and with none offered it starts nothing.
#[test]
fn start_commands_name_the_offered_instance_types() {
    let mut config = SimConfig::paper();
    config.horizon = Time(30_000);
    let jobs = WorkloadModel::paper()
        .generate(Duration(30_000), SeedStreams::new(4), 1_000)
        .unwrap();
    let policy = short_stalls(0.5);
    let plain = simulate(&config, &jobs, albatross(&policy)).unwrap();
    config.instance_types.reverse();
    let reversed = simulate(&config, &jobs, albatross(&policy)).unwrap();
    let names = |o: &SimOutcome| -> Vec<String> {
        o.cloud_nodes
            .iter()
            .map(|n| o.instance_types[n.instance].name.clone())
            .collect()
    };
    assert!(!plain.cloud_nodes.is_empty());
    assert!(
        names(&plain).iter().all(|n| n == "t2.small"),
        "{:?}",
        names(&plain)
    );
    assert_eq!(names(&plain), names(&reversed));
    assert_eq!(plain.cloud_cost, reversed.cloud_cost);
    config.instance_types.clear();
    let none = simulate(&config, &jobs, albatross(&policy)).unwrap();
    assert!(none.cloud_nodes.is_empty());
}

/// Starts `count` nodes of instance type `instance` at the first cycle, for ten hours.
struct StartOnce {
    instance: usize,
    count: u32,
    done: bool,
}

impl cosched_core::policy::Policy for StartOnce {
    type Observation = cosched_albatross::policy::Observation;
    type Command = cosched_albatross::policy::Command;
    type View = cosched_albatross::policy::WaitingJobs;
    type Error = std::convert::Infallible;

    fn observe(
        &mut self,
        _now: Time,
        _obs: &Self::Observation,
        _waiting: &Self::View,
        out: &mut Vec<Self::Command>,
    ) -> Result<(), Self::Error> {
        if !std::mem::replace(&mut self.done, true) {
            out.push(cosched_albatross::policy::Command::Start {
                instance: self.instance,
                count: self.count,
                lifetime: Duration::from_hours(10),
            });
        }
        Ok(())
    }
}

/// No desktop, one cloud node of `instance` started at time 0, the jobs `works` (full-core
/// seconds) submitted at 0, no transfer: the stays' (start, end), and when the node joined.
fn on_one_node(instance: usize, works: &[f64]) -> (Vec<(i64, i64)>, i64) {
    let mut config = SimConfig::paper();
    config.desktops.clear();
    config.cloud_transfer = Duration::ZERO;
    config.horizon = Time(200_000);
    let jobs: Vec<Job> = works
        .iter()
        .enumerate()
        .map(|(i, &w)| Job::new(cosched_core::JobId(i as u64), Time::ZERO, w, 256, true))
        .collect();
    let policy = StartOnce {
        instance,
        count: 1,
        done: false,
    };
    let out = simulate(&config, &jobs, policy).unwrap();
    let mut stays: Vec<(i64, i64)> = out
        .placements
        .iter()
        .filter(|p| p.outcome == RunEnd::Completed)
        .map(|p| (p.start.secs(), p.end.secs()))
        .collect();
    stays.sort_unstable();
    (stays, out.cloud_nodes[0].ready.unwrap().secs())
}

/// EC2's t2 credits: a t2.micro (30 launch credits, 6 per hour) runs a job at a full core
/// for 30 / (1/60 − 6/3600) = 2,000 s, then at its 10 % baseline; a shorter job never
/// notices; on a t2.medium (2 vCPUs, 60 credits, 24 per hour) two jobs drain the credits
/// together at 2/60 − 24/3600 per second and then share its 40 % baseline at 20 % each.
#[test]
fn burstable_nodes_run_at_their_baseline_once_their_credits_are_spent() {
    let (stays, _) = on_one_node(0, &[1000.0]);
    let [(start, end)] = stays[..] else {
        panic!("one stay")
    };
    assert_eq!(end - start, 1000, "within its credits, a full core");
    // Idle from joining to the first dispatch, the node earns 6 credits per hour; busy, it
    // spends 1/60 − 6/3600 = 0.015 per second, then runs the rest of the work at 0.1.
    let (stays, ready) = on_one_node(0, &[3000.0]);
    let [(start, end)] = stays[..] else {
        panic!("one stay")
    };
    assert!(start >= cosched_albatross::pool::INSTANCE_SPIN_UP.secs());
    let full = (30.0 + (start - ready) as f64 * 6.0 / 3600.0) / 0.015;
    let expected = full + (3000.0 - full) / 0.1;
    assert!(
        ((end - start) as f64 - expected).abs() <= 1.0,
        "{} vs {expected}",
        end - start
    );
    // t2.medium, two equal jobs dispatched together: 60 credits drain at 2/60 − 24/3600 per
    // second, then each runs at half the 40 % baseline.
    let (stays, ready) = on_one_node(2, &[3000.0, 3000.0]);
    assert_eq!(stays.len(), 2);
    let idle = (stays[0].0 - ready) as f64;
    let full = (60.0 + idle * 24.0 / 3600.0) / (2.0 / 60.0 - 24.0 / 3600.0);
    for (start, end) in stays {
        let expected = full + (3000.0 - full) / 0.2;
        // ± 2 s: each completion rounds up to a whole second, once per reschedule.
        assert!(
            ((end - start) as f64 - expected).abs() <= 2.0,
            "{} vs {expected}",
            end - start
        );
    }
    // When one of two jobs leaves, the other runs at a full core again while credits last,
    // then alone at the whole 40 % baseline: later than alone from the start, sooner than
    // sharing the baseline to the end.
    let (stays, _) = on_one_node(2, &[2000.0, 3000.0]);
    let lengths: Vec<i64> = stays.iter().map(|(s, e)| e - s).collect();
    assert_eq!(lengths[0], 2000, "{lengths:?}");
    assert!(
        (3000..(2000 + 1000 * 5)).contains(&lengths[1]),
        "{lengths:?}"
    );
}
