//! Properties of the pool simulator: jobs run on one machine at a time and only where both
//! `Requirements` hold; every job completes exactly once across evictions, lease ends and
//! checkpoints; the cloud bill is the sum of instance-hours × price; capital 0 starts no node;
//! runs are deterministic.

use cosched_albatross::classad::match_ads;
use cosched_albatross::policy::{Capital, Sizing};
use cosched_albatross::pool::{DesktopSpec, Eviction, OwnerActivity, PeriodModel};
use cosched_albatross::sim::{MachineKind, RunEnd, SimConfig, SimOutcome, simulate};
use cosched_albatross::workload::WorkloadModel;
use cosched_core::{Duration, Time};
use proptest::prelude::*;

/// A small pool with busy owners, short leases and every job able to run on a desktop.
#[derive(Debug, Clone)]
struct Scenario {
    capital: f64,
    desktops: u32,
    restart: bool,
    fit: bool,
    lease_s: i64,
    interarrival_s: i64,
    cloud_forbidden: f64,
    seed: u64,
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        prop_oneof![Just(0.0), 0.01f64..=1.0],
        1u32..5,
        any::<bool>(),
        any::<bool>(),
        120i64..3600,
        60i64..600,
        0.0f64..0.5,
        any::<u64>(),
    )
        .prop_map(
            |(capital, desktops, restart, fit, lease_s, interarrival_s, cloud_forbidden, seed)| {
                Scenario {
                    capital,
                    desktops,
                    restart,
                    fit,
                    lease_s,
                    interarrival_s,
                    cloud_forbidden,
                    seed,
                }
            },
        )
}

fn run(s: &Scenario) -> (SimConfig, Vec<cosched_albatross::workload::Job>, SimOutcome) {
    let mut config = SimConfig::paper(Capital::new(s.capital).unwrap());
    config.desktops = (0..s.desktops)
        .map(|_| DesktopSpec {
            slots: 1,
            memory_mb: 8192,
            speed: 1.0,
        })
        .collect();
    config.owners = OwnerActivity {
        busy: PeriodModel::Exponential {
            mean: Duration(900),
        },
        idle: PeriodModel::Exponential {
            mean: Duration(900),
        },
        accept_after: Duration(60),
    };
    config.eviction = if s.restart {
        Eviction::Restart
    } else {
        Eviction::Checkpoint
    };
    config.policy.sizing = if s.fit {
        Sizing::FitWaitingJobs
    } else {
        Sizing::Paper
    };
    let mut tiers = config.policy.table.tiers().to_vec();
    for t in &mut tiers {
        t.lease = Duration(s.lease_s);
    }
    config.policy.table =
        cosched_albatross::policy::CapitalTable::new(tiers, config.policy.instance_types.len())
            .unwrap();
    config.seed = s.seed;
    config.until = Time(10_000) + Duration::from_hours(24 * 30);
    let workload = WorkloadModel {
        interarrival: Duration(s.interarrival_s),
        cloud_forbidden: s.cloud_forbidden,
        ..WorkloadModel::paper()
    };
    let jobs = workload.generate(Duration(10_000), s.seed).unwrap();
    let out = simulate(&config, &jobs).unwrap();
    (config, jobs, out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// A job runs on at most one slot at a time, a slot runs at most one job at a time, and
    /// every run is on a slot whose ad matches the job's symmetrically.
    #[test]
    fn runs_are_exclusive_and_matched(s in scenario()) {
        let (_, jobs, out) = run(&s);
        let mut by_job = vec![Vec::new(); jobs.len()];
        let mut by_slot = vec![Vec::new(); out.slots.len()];
        for p in &out.placements {
            prop_assert!(p.start <= p.end);
            prop_assert!(p.start >= jobs[p.job].submit);
            prop_assert!(match_ads(&jobs[p.job].ad, &out.slots[p.slot].ad).matched);
            by_job[p.job].push((p.start, p.end));
            by_slot[p.slot].push((p.start, p.end));
        }
        for mut runs in by_job.into_iter().chain(by_slot) {
            runs.sort();
            for w in runs.windows(2) {
                prop_assert!(w[0].1 <= w[1].0, "overlapping runs {:?}", w);
            }
        }
    }

    /// Given enough time, every job completes exactly once, after its last eviction or node
    /// stop, and its record agrees with its runs.
    #[test]
    fn no_job_is_lost(s in scenario()) {
        let (_, jobs, out) = run(&s);
        for (i, record) in out.jobs.iter().enumerate() {
            let runs: Vec<_> = out.placements.iter().filter(|p| p.job == i).collect();
            let completed: Vec<_> = runs.iter().filter(|p| p.outcome == RunEnd::Completed).collect();
            prop_assert_eq!(completed.len(), 1, "job {} completed {} times", i, completed.len());
            let last = runs.iter().map(|p| p.end).max().unwrap();
            prop_assert_eq!(record.end, Some(completed[0].end));
            prop_assert_eq!(last, completed[0].end);
            prop_assert_eq!(record.first_start, runs.iter().map(|p| p.start).min());
            let interruptions = runs.iter().filter(|p| p.outcome != RunEnd::Completed).count() as u32;
            prop_assert_eq!(interruptions, record.evictions + record.node_stops);
            prop_assert_eq!(record.completed_on, Some(out.slots[completed[0].slot].kind));
            prop_assert!(runs.iter().all(|p| p.outcome != RunEnd::Unfinished));
        }
        prop_assert_eq!(out.progress.last().map(|p| p.completed), Some(jobs.len()));
    }

    /// The bill is Σ instance-hours × price over the nodes; no node outlives its lease; with
    /// capital 0 no node starts and nothing runs in the cloud.
    #[test]
    fn cloud_cost_and_capital_zero(s in scenario()) {
        let (config, _, out) = run(&s);
        let bill: f64 = out
            .cloud_nodes
            .iter()
            .map(|n| (n.stopped - n.requested).secs() as f64 / 3600.0 * out.instance_types[n.instance].price_per_hour)
            .sum();
        prop_assert!((out.cloud_cost - bill).abs() <= 1e-9 * bill.max(1.0));
        for n in &out.cloud_nodes {
            prop_assert!(n.requested <= n.stopped && n.stopped <= n.requested + Duration(s.lease_s));
        }
        if s.capital == 0.0 {
            prop_assert!(out.cloud_nodes.is_empty());
            prop_assert_eq!(out.cloud_cost, 0.0);
            prop_assert!(out.slots.iter().all(|slot| slot.kind == MachineKind::Desktop));
        }
        prop_assert_eq!(out.slots.len(), config.desktops.len() + out.cloud_nodes.iter()
            .map(|n| out.instance_types[n.instance].slots as usize).sum::<usize>());
    }
}

#[test]
fn runs_are_deterministic_for_a_seed() {
    let s = Scenario {
        capital: 0.2,
        desktops: 2,
        restart: false,
        fit: true,
        lease_s: 300,
        interarrival_s: 60,
        cloud_forbidden: 0.2,
        seed: 11,
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

#[test]
fn albatross_cuts_completion_time_on_the_paper_pool() {
    let jobs = WorkloadModel::paper()
        .generate(Duration(30_000), 1)
        .unwrap();
    let mean = |c: f64| {
        let out = simulate(&SimConfig::paper(Capital::new(c).unwrap()), &jobs).unwrap();
        (out.completion_stats().unwrap().0, out.cloud_cost)
    };
    let (none, free) = mean(0.0);
    let (some, cost) = mean(0.75);
    assert_eq!(free, 0.0);
    assert!(
        some < none / 2.0,
        "capital 0.75: {some:.1} s against {none:.1} s without"
    );
    assert!(cost > 0.0);
}
