//! The synthetic workloads: U66-Narrow conserves node-seconds, U66-Wide keeps about half the
//! jobs at double size, U77/U88 reach their load within tolerance, everything is seeded and
//! validated, the preload fits and removes the ramp-up's empty start.

use cosched_balancer::scenario::Arm;
use cosched_balancer::synthetic::{
    BatchKind, RHO_SCALES, SyntheticBatch, WEEK, base_leases, scale_leases,
};
use cosched_balancer::workload::DiurnalLeases;
use cosched_balancer::workload::Workload;
use cosched_balancer::{BalancerConfig, Strategy};
use cosched_core::RigidJob;
use proptest::prelude::*;

fn node_seconds(jobs: &[RigidJob]) -> i64 {
    jobs.iter()
        .map(|j| i64::from(j.size) * j.simulated_runtime().0)
        .sum()
}

fn small(kind: BatchKind) -> SyntheticBatch {
    // A 10 % sample of a 10-week trace keeps the cases fast.
    SyntheticBatch {
        sample: 0.1,
        ..SyntheticBatch::new(64, kind)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn narrow_conserves_node_seconds_and_halves_sizes(seed in 0u64..1_000) {
        let main = small(BatchKind::Main { utilization: 0.66 }).generate(seed).unwrap();
        let narrow = small(BatchKind::Narrow).generate(seed).unwrap();
        prop_assert_eq!(node_seconds(&main.jobs), node_seconds(&narrow.jobs));
        let singles = main.jobs.iter().filter(|j| j.size == 1).count();
        prop_assert_eq!(narrow.jobs.len(), 2 * main.jobs.len() - singles);
        let widest = |jobs: &[RigidJob]| jobs.iter().map(|j| j.size).max().unwrap_or(0);
        prop_assert!(widest(&narrow.jobs) <= widest(&main.jobs).div_ceil(2));
    }

    #[test]
    fn wide_doubles_sizes_and_drops_about_half(seed in 0u64..1_000) {
        let main = small(BatchKind::Main { utilization: 0.66 }).generate(seed).unwrap();
        let wide = small(BatchKind::Wide).generate(seed).unwrap();
        let (n, kept) = (main.jobs.len() as f64, wide.jobs.len() as f64);
        // Binomial(n, 1/2): within 4 standard deviations.
        prop_assert!((kept - n / 2.0).abs() <= 4.0 * (n / 4.0).sqrt() + 1.0, "{} of {}", kept, n);
        // Doubling can at most double the load; the cap keeps it from doing so.
        prop_assert!(wide.offered_load(64) <= 2.0 * main.offered_load(64));
        // Every kept job is a main job at double size (capped at the cluster).
        let mut main_jobs: Vec<_> = main
            .jobs
            .iter()
            .map(|j| (j.submit, (j.size * 2).min(64), j.runtime, j.estimate))
            .collect();
        main_jobs.sort();
        for j in &wide.jobs {
            let key = (j.submit, j.size, j.runtime, j.estimate);
            prop_assert!(main_jobs.binary_search(&key).is_ok());
        }
    }

    #[test]
    fn top_ups_reach_their_load(seed in 0u64..1_000, target in 0.66f64..0.95) {
        let generator = small(BatchKind::Main { utilization: target });
        let week = generator.generate(seed).unwrap();
        let load = week.offered_load(64);
        prop_assert!((load - target).abs() <= generator.tolerance, "{}", load);
        prop_assert!(week.jobs.iter().all(|j| (0..WEEK.0).contains(&j.submit.0)));
        prop_assert!(week.jobs.windows(2).all(|w| w[0].submit <= w[1].submit));
        prop_assert!(week.jobs.iter().enumerate().all(|(i, j)| j.id.0 == i as u64));
    }

    #[test]
    fn preload_fits_and_runs_the_wrapped_tail(seed in 0u64..1_000) {
        let week = small(BatchKind::Main { utilization: 0.66 }).generate(seed).unwrap();
        let used: u32 = week.preload.iter().map(|j| j.size).sum();
        prop_assert!(used <= 64);
        for p in &week.preload {
            prop_assert_eq!(p.submit.0, 0);
            prop_assert!(p.runtime.0 > 0 && p.runtime <= p.estimate);
            prop_assert!(p.id.0 as usize >= week.jobs.len());
        }
    }
}

#[test]
fn generation_is_seeded_and_validated() {
    for kind in BatchKind::PAPER {
        let g = small(kind);
        assert_eq!(g.generate(5).unwrap(), g.generate(5).unwrap());
        assert_ne!(g.generate(5).unwrap().jobs, g.generate(6).unwrap().jobs);
    }
    let labels: Vec<String> = BatchKind::PAPER.iter().map(BatchKind::label).collect();
    assert_eq!(
        labels,
        ["U66-Main", "U66-Wide", "U66-Narrow", "U77-Main", "U88-Main"]
    );
    let bad = |g: SyntheticBatch| assert!(g.generate(1).is_err(), "{g:?}");
    bad(SyntheticBatch::new(0, BatchKind::Wide));
    bad(SyntheticBatch::new(
        64,
        BatchKind::Main { utilization: 0.5 },
    ));
    bad(SyntheticBatch::new(64, BatchKind::Wide).with_weeks(0));
    bad(SyntheticBatch::new(64, BatchKind::Wide).with_weeks(21));
    bad(SyntheticBatch {
        sample: 0.0,
        ..SyntheticBatch::new(64, BatchKind::Wide)
    });
    bad(SyntheticBatch {
        tolerance: 0.0,
        ..SyntheticBatch::new(64, BatchKind::Wide)
    });
    assert!(scale_leases(&base_leases(64, WEEK, 1).unwrap(), 0).is_err());
}

#[test]
fn rho_scales_are_exact_multiples_of_the_base() {
    let load = |r: &[_]| DiurnalLeases::offered_load(r, 372, WEEK);
    // 141 leases of ~5.5 h in bursts: one week's load varies; the mean over seeds is 1.25 %.
    let loads: Vec<f64> = (0..30)
        .map(|seed| load(&base_leases(372, WEEK, seed).unwrap()))
        .collect();
    let mean = loads.iter().sum::<f64>() / loads.len() as f64;
    assert!((mean - 0.0125).abs() < 0.0015, "{mean}");
    let base = base_leases(372, WEEK, 9).unwrap();
    for k in RHO_SCALES {
        let scaled = scale_leases(&base, k).unwrap();
        assert!((load(&scaled) - f64::from(k) * load(&base)).abs() < 1e-12);
        assert!(scaled.iter().zip(&base).all(|(s, b)| s.submit == b.submit));
    }
}

#[test]
fn preloading_fills_the_cluster_at_time_zero() {
    let week = small(BatchKind::Main { utilization: 0.77 })
        .generate(2)
        .unwrap();
    assert!(!week.preload.is_empty());
    let basic = Arm::balancer(BalancerConfig::new(Strategy::Basic { static_reserve: 0 }));
    let cold = basic
        .run(64, &Workload::new(&week.jobs, &[]), &[])
        .unwrap()
        .report;
    let warm = basic
        .run(
            64,
            &Workload::new(&week.jobs, &[]).with_preload(&week.preload),
            &[],
        )
        .unwrap();
    assert_eq!(warm.report.preloaded_jobs, week.preload.len());
    assert_eq!(warm.report.start_s, 0);
    // The preloaded jobs are kept out of the records, and occupy nodes the cold run had free.
    assert_eq!(warm.records.len(), week.jobs.len());
    let preload_work = node_seconds(&week.preload);
    assert_eq!(
        warm.report.node_seconds.batch_busy,
        cold.node_seconds.batch_busy + preload_work
    );
    assert!(warm.report.batch.overall.mean_wait_s >= cold.batch.overall.mean_wait_s);
    // Under a static split, only what fits on the batch side is preloaded.
    let split = Arm::dedicated(60, cosched_core::Duration(0));
    let out = split
        .run(
            64,
            &Workload::new(&week.jobs, &[]).with_preload(&week.preload),
            &[],
        )
        .unwrap();
    let fits = week.preload.iter().filter(|j| j.size <= 4).count();
    assert!(out.report.preloaded_jobs <= fits.max(1));
    assert_eq!(out.records.len(), week.jobs.len());
}

#[test]
fn jobs_trimmed_for_u66_can_be_injected_again_for_u77() {
    use cosched_core::{Duration, JobId, Time};
    // One week offering 80 % of 8 nodes (538 two-node one-hour jobs): sampled whole, trimmed
    // to 66 %, then U77 injects jobs again; before, the trimmed jobs were lost and U77 failed.
    let trace: Vec<RigidJob> = (0..538)
        .map(|i| {
            RigidJob::new(
                JobId(i),
                Time(i as i64 * 1124),
                2,
                Duration(3600),
                Duration(7200),
            )
            .unwrap()
        })
        .collect();
    let g = SyntheticBatch::new(8, BatchKind::Main { utilization: 0.77 });
    let week = g.generate_from_trace(trace.clone(), 1, 3).unwrap();
    assert!((week.offered_load(8) - 0.77).abs() <= g.tolerance);
    // 88 % is more than the week offers: a typed refusal, not a panic.
    let g = SyntheticBatch::new(8, BatchKind::Main { utilization: 0.88 });
    assert!(g.generate_from_trace(trace, 1, 3).is_err());
}
