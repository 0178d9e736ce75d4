//! Property tests of the simulator: determinism, the same environment whatever the policy,
//! exact accounting, pool bounds, progress.

use cosched_core::{Duration, Time};
use cosched_rhic::env::JobProfile;
use cosched_rhic::scenario::{Approach as Sizing, Run};
use cosched_rhic::sim::{BackgroundJob, Outcome, SimConfig};
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
        Just(Sizing::RHIC),
        (0usize..10).prop_map(Sizing::Fixed),
        (1usize..5, 0.0f64..=1.0).prop_map(|(step, start_fraction)| Sizing::Fuzzy {
            step,
            start_fraction
        }),
        (0.0f64..1.0).prop_map(Sizing::Threshold),
    ]
}

fn goal() -> impl Strategy<Value = Goal> {
    prop_oneof![
        (0i64..5_000).prop_map(|t| Goal::Deadline(Time(t))),
        (100_000u64..2_000_000, 100_000u64..2_000_000)
            .prop_map(|(d, v)| Goal::Cost(CostModel::new(d, v))),
        Just(Goal::Energy(PowerModel::arc())),
    ]
}

/// A small run: 2 dedicated nodes, 8 interactive ones, about 15 minutes of dedicated work.
fn config(profile: JobProfile, approach: Sizing, goal: Goal, churn: f64, seed: u64) -> Run {
    let mut c = SimConfig::new(goal);
    let mut job = BackgroundJob::new(profile);
    job.dedicated = 2;
    job.work = 32.0 * 900.0;
    c.env.interactive_nodes = 8;
    c.env.churn = churn;
    c.seed = seed;
    Run {
        config: c,
        job,
        approach,
    }
}

fn run(c: &Run) -> Outcome {
    c.simulate().expect("valid config")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn same_seed_same_run(p in profile(), s in strategy(), g in goal(), seed in 0u64..1000) {
        let c = config(p, s, g, 8.0, seed);
        prop_assert_eq!(run(&c), run(&c));
    }

    /// Named streams: whichever policy sizes the pool, the interactive cloud (sessions, their
    /// foreground CPU, the nodes present) is the same, period by period.
    #[test]
    fn the_environment_is_the_same_whichever_policy_runs(
        p in profile(), a in strategy(), b in strategy(), g in goal(), churn in 1.0f64..8.0,
        seed in 0u64..1000,
    ) {
        let x = run(&config(p, a, g, churn, seed));
        let y = run(&config(p, b, g, churn, seed));
        // The last sample is the end of each run; compare the period samples both have.
        let n = x.trace.len().min(y.trace.len()) - 1;
        for (s, t) in x.trace[..n].iter().zip(&y.trace[..n]) {
            prop_assert_eq!(s.at, t.at);
            prop_assert_eq!(s.available, t.available);
            prop_assert_eq!(s.foreground_core_s, t.foreground_core_s);
        }
    }

    #[test]
    fn accounting_is_exact(p in profile(), s in strategy(), g in goal(), churn in 1.0f64..8.0, seed in 0u64..1000) {
        let r = config(p, s, g, churn, seed);
        let o = run(&r);
        let c = &r.config;
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
        // Energy: the dedicated nodes between idle and busy; each volunteer between its VM's
        // overhead alone and a whole node's dynamic power plus the overhead, per second.
        let arc = PowerModel::arc();
        prop_assert!(o.dedicated_j >= 2.0 * arc.idle_w() * secs as f64 - 1e-6);
        prop_assert!(o.dedicated_j <= 2.0 * (arc.idle_w() + arc.dynamic_w(16.0, 16.0)) * secs as f64 + 1e-6);
        let total = o.dedicated_j + o.volunteer_j.iter().map(|(_, j)| j).sum::<f64>();
        prop_assert_eq!(o.energy_j, total);
        for ((n, j), (m, money)) in o.volunteer_j.iter().zip(&o.bill.volunteers) {
            prop_assert_eq!(n, m);
            let s = (money.0 / 420_000) as f64;
            prop_assert!(*j >= arc.dynamic_w(c.env.vm_overhead_cpu, 16.0) * s - 1e-6);
            prop_assert!(*j <= arc.dynamic_w(16.0 + c.env.vm_overhead_cpu, 16.0) * s + 1e-6);
        }
    }

    #[test]
    fn the_pool_never_exceeds_the_available_nodes_and_progress_is_monotone(
        p in profile(), s in strategy(), g in goal(), churn in 1.0f64..8.0, seed in 0u64..1000,
    ) {
        let r = config(p, s, g, churn, seed);
        let o = run(&r);
        prop_assert!(o.finished);
        for w in o.trace.windows(2) {
            prop_assert!(w[0].completed <= w[1].completed);
            prop_assert!(w[0].at < w[1].at);
        }
        for t in &o.trace {
            prop_assert!(t.in_pool <= t.available);
        }
        prop_assert_eq!(o.trace.last().map(|t| (t.at.0, t.completed)), Some((o.completion.0, r.job.work)));
    }
}

#[test]
fn invalid_configurations_are_rejected() {
    let bad = |f: fn(&mut Run)| {
        let mut c = config(
            JobProfile::Pi,
            Sizing::RHIC,
            Goal::Cost(CostModel::default()),
            1.0,
            1,
        );
        f(&mut c);
        c.simulate().err().map(|e| e.to_string())
    };
    assert!(bad(|c| c.job.dedicated = 0).is_some_and(|e| e.contains("dedicated")));
    assert!(bad(|c| c.job.work = 0.0).is_some_and(|e| e.contains("work")));
    assert!(bad(|c| c.config.env.churn = 0.5).is_some_and(|e| e.contains("churn")));
    assert!(bad(|c| c.config.interval = Duration(0)).is_some_and(|e| e.contains("interval")));
    assert!(bad(|c| c.config.env.workloads.clear()).is_some_and(|e| e.contains("workloads")));
    assert!(
        bad(|c| c.config.max_time = Duration(i64::MAX)).is_some_and(|e| e.contains("max_time"))
    );
    for (approach, name) in [
        (
            Sizing::Fuzzy {
                step: 0,
                start_fraction: 0.5,
            },
            "step",
        ),
        (
            Sizing::Fuzzy {
                step: 1,
                start_fraction: 1.5,
            },
            "start_fraction",
        ),
        (Sizing::Threshold(f64::NAN), "theta"),
    ] {
        let mut c = config(
            JobProfile::Pi,
            approach,
            Goal::Cost(CostModel::default()),
            1.0,
            1,
        );
        c.approach = approach;
        assert!(
            c.simulate()
                .err()
                .is_some_and(|e| e.to_string().contains(name)),
            "{name}"
        );
    }
    assert_eq!(bad(|_| ()), None);
}

#[test]
fn deadline_goal_reports_whether_it_was_met() {
    let c = config(
        JobProfile::Pi,
        Sizing::Fixed(0),
        Goal::Deadline(Time(1000)),
        1.0,
        4,
    );
    let o = run(&c);
    // 28,800 core-s on 32 cores, Pi's disks barely loaded: just over 900 s.
    assert!((900..1000).contains(&o.completion.0), "{}", o.completion.0);
    assert_eq!(o.deadline_met, Some(true));
    let mut c = c;
    c.config.goal = Goal::Deadline(Time(800));
    assert_eq!(run(&c).deadline_met, Some(false));
}

/// Valid but extreme durations (a session gap, setup and drain longer than any run) neither
/// overflow the clock nor panic.
#[test]
fn extreme_durations_do_not_overflow() {
    for strategy in [Sizing::RHIC, Sizing::Fixed(4), Sizing::Threshold(0.0)] {
        let mut c = config(
            JobProfile::Pi,
            strategy,
            Goal::Cost(CostModel::default()),
            1.0,
            5,
        );
        c.config.env.session_gap_mean_s = 1e300;
        c.config.env.setup = Duration(i64::MAX / 4);
        c.config.env.max_drain = Duration(i64::MAX / 4);
        let o = run(&c);
        assert!(o.finished, "{strategy:?}");
    }
}

/// Boot failures are reported to the policy, which stops asking for the failed nodes.
#[test]
fn failed_boots_are_not_retried() {
    let mut c = config(
        JobProfile::Pi,
        Sizing::RHIC,
        Goal::Cost(CostModel::default()),
        1.0,
        6,
    );
    c.config.env.boot_failure = 1.0;
    let o = run(&c);
    assert!(o.finished);
    assert!(o.joins <= 8, "{} joins for 8 nodes", o.joins);
}

/// Heterogeneous interactive nodes: a cloud of 4-core nodes gives the same pool less CPU than
/// the paper's 16-core ones, so the job takes longer; RHIC never asks a small node for more
/// slots than it has cores.
#[test]
fn smaller_interactive_nodes_contribute_less() {
    let c = config(
        JobProfile::Pi,
        Sizing::Fixed(8),
        Goal::Energy(PowerModel::arc()),
        1.0,
        3,
    );
    let big = run(&c);
    let mut small = c.clone();
    small.config.env.interactive_cores = vec![4];
    let small = run(&small);
    assert!(small.completion > big.completion, "{small:?} vs {big:?}");
    let mut mixed = c.clone();
    mixed.config.env.interactive_cores = vec![4, 16];
    mixed.approach = Sizing::RHIC;
    assert!(run(&mixed).finished);
    let mut bad = c;
    bad.config.env.interactive_cores = vec![0];
    assert!(bad.simulate().is_err());
}

/// Stragglers: once no work is left to hand out, the job waits for its volunteers' last
/// waves, slow where the disks starve them (Grep on 2 dedicated nodes) or the foreground is
/// busy (Matlab: the highest bursts); backup copies
/// on the dedicated nodes (Hadoop's speculative execution) cut that tail, never lengthen it,
/// and the job is never done before its work is.
#[test]
fn backup_tasks_shorten_the_straggler_tail() {
    let (mut with, mut without) = (0, 0);
    for (seed, p) in (1..=8).zip(
        [JobProfile::Grep, JobProfile::Wordcount]
            .into_iter()
            .cycle(),
    ) {
        let mut c = config(
            p,
            Sizing::Fixed(8),
            Goal::Energy(PowerModel::arc()),
            1.0,
            seed,
        );
        c.config.env.workloads = vec![cosched_rhic::env::Workload::Matlab];
        let on = run(&c);
        let mut off = c.clone();
        off.config.env.backup_tasks = false;
        let off = run(&off);
        assert!(
            on.completion <= off.completion,
            "seed {seed}: {on:?} vs {off:?}"
        );
        for o in [&on, &off] {
            let last = o.trace.last().expect("a final sample");
            assert!(o.finished && (last.completed - c.job.work).abs() < 1e-6);
        }
        with += on.completion.0;
        without += off.completion.0;
    }
    assert!(with < without, "backups {with} s vs none {without} s");
}

/// A recorded foreground replaces Table 2's generator: hosts busy all the time give the
/// volunteers nothing (the job takes as long as on the dedicated nodes alone), idle hosts give
/// them everything (faster than under Table 2's load).
#[test]
fn recorded_foreground_drives_the_hosts() {
    use cosched_rhic::env::CpuTrace;
    let c = config(
        JobProfile::Pi,
        Sizing::Fixed(8),
        Goal::Cost(CostModel::default()),
        1.0,
        2,
    );
    let with = |pct: f64| {
        let mut r = c.clone();
        r.config.env.cpu_traces = vec![CpuTrace::new(300, vec![pct]).expect("valid")];
        run(&r)
    };
    let mut alone = c.clone();
    alone.approach = Sizing::Fixed(0);
    assert_eq!(with(100.0).completion, run(&alone).completion);
    assert!(with(0.0).completion < run(&c).completion);
    assert!(CpuTrace::new(300, vec![101.0]).is_err() && CpuTrace::new(0, vec![1.0]).is_err());
}
