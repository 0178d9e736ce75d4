//! Property tests of the simulator: determinism, exact accounting, pool bounds, progress.

use cosched_core::Duration;
use cosched_rhic::env::JobProfile;
use cosched_rhic::sim::{Outcome, SimConfig, Strategy as Sizing, simulate};
use cosched_rhic::{CostModel, Goal, PowerModel};
use proptest::prelude::*;

fn profile() -> impl Strategy<Value = JobProfile> {
    prop::sample::select(vec![
        JobProfile::Wordcount,
        JobProfile::Grep,
        JobProfile::Pi,
        JobProfile::WordCooccurrence,
        JobProfile::Compress,
        JobProfile::Raytrace,
    ])
}

fn strategy() -> impl Strategy<Value = Sizing> {
    prop_oneof![
        Just(Sizing::Rhic),
        (0usize..12).prop_map(Sizing::Fixed),
        (1usize..5, 0.0f64..=1.0).prop_map(|(step, start_fraction)| Sizing::Fuzzy {
            step,
            start_fraction
        }),
        (0.0f64..1.0).prop_map(Sizing::Threshold),
    ]
}

fn goal() -> impl Strategy<Value = Goal> {
    prop_oneof![
        (0i64..5_000).prop_map(|t| Goal::Deadline(cosched_core::Time(t))),
        (100_000u64..2_000_000, 100_000u64..2_000_000)
            .prop_map(|(d, v)| Goal::Cost(CostModel::new(d, v))),
        Just(Goal::Energy(PowerModel::new(100.0, 200.0).expect("valid"))),
    ]
}

/// A small run: 2 dedicated nodes, 8 interactive nodes, about 20 minutes of dedicated work.
fn config(profile: JobProfile, strategy: Sizing, goal: Goal, churn: f64, seed: u64) -> SimConfig {
    let mut c = SimConfig::new(profile, 2, 8.0 * 1200.0, goal, strategy);
    c.env.interactive_nodes = 8;
    c.env.churn = churn;
    c.interval = Duration(120);
    c.seed = seed;
    c
}

fn run(c: &SimConfig) -> Outcome {
    simulate(c).expect("valid config")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn same_seed_same_run(p in profile(), s in strategy(), g in goal(), seed in 0u64..1000) {
        let c = config(p, s, g, 8.0, seed);
        prop_assert_eq!(run(&c), run(&c));
    }

    #[test]
    fn accounting_is_exact(p in profile(), s in strategy(), g in goal(), churn in 1.0f64..8.0, seed in 0u64..1000) {
        let c = config(p, s, g, churn, seed);
        let o = run(&c);
        let secs = o.completion.0 as u128;
        // Dollars: every dedicated node for the whole run, each volunteer for its seconds.
        let dedicated: u128 = o.bill.dedicated.iter().map(|m| m.0).sum();
        prop_assert_eq!(dedicated, 2 * secs * 1_000_000);
        let volunteer: u128 = o.bill.volunteers.iter().map(|(_, m)| m.0).sum();
        prop_assert_eq!(o.bill.total.0, dedicated + volunteer);
        let volunteer_s: u128 = volunteer / 420_000;
        prop_assert_eq!(volunteer % 420_000, 0);
        prop_assert!((o.mean_volunteers * secs as f64 - volunteer_s as f64).abs() < 1e-6);
        prop_assert_eq!(&o.bill_at(&c.cost), &o.bill);
        let rebilled = o.bill_at(&CostModel::new(1_000_000, 200_000));
        let seconds: u128 = o.volunteer_s.iter().map(|&(_, s)| u128::from(s)).sum();
        prop_assert_eq!(rebilled.total.0, dedicated + seconds * 200_000);
        // Energy: dedicated nodes at full load (200 W each); each volunteer between its VM's
        // overhead alone and a whole node's dynamic power plus the overhead, per second.
        prop_assert_eq!(o.dedicated_j, 2.0 * 200.0 * secs as f64);
        let total = o.dedicated_j + o.volunteer_j.iter().map(|(_, j)| j).sum::<f64>();
        prop_assert_eq!(o.energy_j, total);
        for ((n, j), (m, money)) in o.volunteer_j.iter().zip(&o.bill.volunteers) {
            prop_assert_eq!(n, m);
            let s = (money.0 / 420_000) as f64;
            let dynamic = |cores: f64| 100.0 * cores / 4.0;
            prop_assert!(*j >= dynamic(c.env.vm_overhead_cpu) * s - 1e-6);
            prop_assert!(*j <= dynamic(4.0 + c.env.vm_overhead_cpu) * s + 1e-6);
        }
    }

    #[test]
    fn the_pool_never_exceeds_the_available_nodes_and_progress_is_monotone(
        p in profile(), s in strategy(), g in goal(), churn in 1.0f64..8.0, seed in 0u64..1000,
    ) {
        let c = config(p, s, g, churn, seed);
        let o = run(&c);
        prop_assert!(o.finished);
        for w in o.trace.windows(2) {
            prop_assert!(w[0].completed <= w[1].completed);
            prop_assert!(w[0].at < w[1].at);
        }
        for (i, t) in o.trace.iter().enumerate() {
            prop_assert!(t.in_pool <= t.available);
            // The total is reached exactly once: at the last sample.
            prop_assert_eq!(t.completed == c.work, i + 1 == o.trace.len());
        }
        prop_assert_eq!(o.trace.last().map(|t| t.at.0), Some(o.completion.0));
    }

    /// With I/O unsaturated (Pi and Raytrace cannot saturate 2 dedicated nodes with 8
    /// volunteers), one more fixed volunteer never slows the job: on the same seed the
    /// environment is the same, the larger pool is always a superset of the smaller one, and
    /// a volunteer's completed tasks only grow with its time in the pool.
    #[test]
    fn one_more_volunteer_is_never_slower_when_io_is_unsaturated(
        p in prop::sample::select(vec![JobProfile::Pi, JobProfile::Raytrace]),
        k in 0usize..8,
        churn in 1.0f64..8.0,
        seed in 0u64..1000,
    ) {
        let goal = Goal::Cost(CostModel::default());
        let fewer = run(&config(p, Sizing::Fixed(k), goal, churn, seed));
        let more = run(&config(p, Sizing::Fixed(k + 1), goal, churn, seed));
        prop_assert!(more.completion <= fewer.completion);
        // Samples every 10 s, and one at each run's completion.
        for (a, b) in fewer.trace.iter().zip(&more.trace).filter(|(a, b)| a.at == b.at) {
            prop_assert!(b.completed >= a.completed, "at {}: {} < {}", a.at.0, b.completed, a.completed);
        }
    }

    #[test]
    fn dedicated_only_takes_the_work_over_the_dedicated_cpu(
        p in profile(), g in goal(), churn in 1.0f64..8.0, seed in 0u64..1000, work in 1.0f64..50_000.0,
    ) {
        let mut c = config(p, Sizing::Fixed(0), g, churn, seed);
        c.work = work;
        let o = run(&c);
        prop_assert_eq!(o.completion.0, (work / 8.0).ceil() as i64);
        prop_assert!(o.bill.volunteers.is_empty());
    }
}

#[test]
fn invalid_configurations_are_rejected() {
    let bad = |f: fn(&mut SimConfig)| {
        let mut c = config(
            JobProfile::Pi,
            Sizing::Rhic,
            Goal::Cost(CostModel::default()),
            1.0,
            1,
        );
        f(&mut c);
        simulate(&c).err().map(|e| e.name)
    };
    assert_eq!(bad(|c| c.dedicated = 0), Some("dedicated"));
    assert_eq!(bad(|c| c.work = 0.0), Some("work"));
    assert_eq!(bad(|c| c.env.churn = 0.5), Some("churn"));
    assert_eq!(bad(|c| c.interval = Duration(125)), Some("interval"));
    assert_eq!(bad(|c| c.env.workloads.clear()), Some("workloads"));
    assert_eq!(
        bad(|c| c.strategy = Sizing::Fuzzy {
            step: 0,
            start_fraction: 0.5
        }),
        Some("step")
    );
    assert_eq!(bad(|_| ()), None);
}

#[test]
fn deadline_goal_reports_whether_it_was_met() {
    let c = config(
        JobProfile::Pi,
        Sizing::Fixed(0),
        Goal::Deadline(cosched_core::Time(1200)),
        1.0,
        4,
    );
    assert_eq!(run(&c).deadline_met, Some(true)); // 9,600 core-s on 8 cores: 1,200 s
    let c = config(
        JobProfile::Pi,
        Sizing::Fixed(0),
        Goal::Deadline(cosched_core::Time(1199)),
        1.0,
        4,
    );
    assert_eq!(run(&c).deadline_met, Some(false));
}

proptest! {
    /// The dedicated nodes' shares sum to 1, and the volunteer CPU they feed lies between
    /// Eq. 3's worst case (one node's worth) and Eq. 2's best case (all of them).
    #[test]
    fn supportable_cpu_lies_between_the_worst_and_best_case(
        dedicated in 1u32..12,
        imbalance in 0.0f64..1.0,
        bw_util in 0.01f64..=1.0,
        seed in 0u64..1000,
    ) {
        use cosched_rhic::SaturationEstimate;
        use cosched_rhic::env::{io_shares, supportable_volunteer_cpu};
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let shares = io_shares(dedicated, imbalance, &mut rng);
        prop_assert_eq!(shares.len(), dedicated as usize);
        prop_assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let cpu = supportable_volunteer_cpu(bw_util, 4.0, &shares);
        let e = SaturationEstimate::new(bw_util, 4.0, dedicated).expect("valid");
        prop_assert!(cpu >= e.worst_case_cpu - 1e-9);
        prop_assert!(cpu <= e.best_case_cpu + 1e-9);
    }
}

/// Valid but extreme durations (a session gap, setup and drain longer than any run) neither
/// overflow the clock nor panic: the run ends as a dedicated-only one would, or at
/// `max_time`.
#[test]
fn extreme_durations_do_not_overflow() {
    for strategy in [Sizing::Rhic, Sizing::Fixed(4), Sizing::Threshold(0.0)] {
        let mut c = config(
            JobProfile::Pi,
            strategy,
            Goal::Cost(CostModel::default()),
            1.0,
            5,
        );
        c.env.session_gap_mean_s = 1e300;
        c.env.setup = Duration(i64::MAX);
        c.env.max_drain = Duration(i64::MAX);
        let o = simulate(&c).expect("valid config");
        assert!(o.finished);
        assert_eq!(
            o.completion.0, 1200,
            "no volunteer ever computes: {strategy:?}"
        );
    }
}
