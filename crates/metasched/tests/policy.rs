//! Properties of the metascheduler policy on random small grids, checked against brute force.

use cosched_core::{Duration, JobId, Time};
use cosched_metasched::policy::{
    Assignment, Cycle, GridJob, Mcmf, PriceModel, SubmissionSite, WaitPredictor, scaled_estimate,
};
use cosched_metasched::site::{Site, SiteSpec, energy_cost_usd};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Instance {
    sites: Vec<Site>,
    jobs: Vec<GridJob>,
    /// waits[j][k] in seconds.
    waits: Vec<Vec<i64>>,
    now: Time,
    max_q: u32,
    w_t: f64,
}

impl Instance {
    fn cycle<'a>(&'a self, waits: &'a dyn WaitPredictor) -> Cycle<'a> {
        Cycle {
            now: self.now,
            jobs: &self.jobs,
            waits,
        }
    }

    fn policy(&self) -> Mcmf {
        Mcmf::new(
            self.sites.clone(),
            self.max_q,
            self.w_t,
            PriceModel::DayAhead,
        )
        .unwrap()
    }
}

/// Looks a job's wait up by its id (the job's index in the instance).
fn wait_table(waits: &[Vec<i64>]) -> impl Fn(&GridJob, usize, Time) -> Duration + '_ {
    move |job, k, _| Duration(waits[job.id.0 as usize][k])
}

fn site_strategy(flat_prices: bool) -> impl Strategy<Value = Site> {
    (
        1u32..=8,
        1i64..=10,
        0.0f64..200.0,
        1.0f64..20.0,
        prop::collection::vec(0.0f64..150.0, 1..30),
        -5i32..=5,
    )
        .prop_map(move |(max_job_cores, hours, watts, gflops, prices, lag)| {
            // The drawn pattern repeated over 100 days: prices never wrap around, so the
            // series must cover every hour a candidate run can reach.
            let pattern = if flat_prices { vec![prices[0]] } else { prices };
            let prices: Vec<f64> = pattern.iter().copied().cycle().take(2_400).collect();
            SiteSpec {
                name: "s".into(),
                cores: 8,
                max_job_cores,
                max_walltime: Duration::from_hours(hours),
                watts_per_core: watts,
                gflops_per_core: gflops,
                prices_usd_per_mwh: prices,
                timezone_lag_hours: lag,
            }
            .build()
            .unwrap()
        })
}

fn instance(
    max_jobs: usize,
    max_sites: usize,
    flat_prices: bool,
) -> impl Strategy<Value = Instance> {
    (
        prop::collection::vec(site_strategy(flat_prices), 1..=max_sites),
        0..=max_jobs,
    )
        .prop_flat_map(|(sites, n)| {
            let k = sites.len();
            (
                Just(sites),
                prop::collection::vec((0..k, 1u32..=8, 1i64..=8 * 3600), n),
                prop::collection::vec(prop::collection::vec(0i64..=20_000, k), n),
                0i64..100_000,
                1u32..=3,
                0.0f64..=1.0,
            )
        })
        .prop_map(|(sites, jobs, waits, now, max_q, w_t)| Instance {
            sites,
            jobs: jobs
                .into_iter()
                .enumerate()
                .map(|(i, (home, cores, est))| {
                    GridJob::new(JobId(i as u64), home, cores, Duration(est)).unwrap()
                })
                .collect(),
            waits,
            now: Time(now),
            max_q,
            w_t,
        })
}

/// The least cost of each number of placed jobs, by enumerating every assignment.
fn brute_force(costs: &[Vec<Option<i64>>], sites: usize, max_q: u32) -> (usize, i64) {
    fn go(
        j: usize,
        costs: &[Vec<Option<i64>>],
        load: &mut [u32],
        max_q: u32,
        placed: usize,
        cost: i64,
        best: &mut (usize, i64),
    ) {
        if j == costs.len() {
            if placed > best.0 || (placed == best.0 && cost < best.1) {
                *best = (placed, cost);
            }
            return;
        }
        go(j + 1, costs, load, max_q, placed, cost, best);
        for (k, c) in costs[j].iter().enumerate() {
            if let Some(c) = c
                && load[k] < max_q
            {
                load[k] += 1;
                go(j + 1, costs, load, max_q, placed + 1, cost + c, best);
                load[k] -= 1;
            }
        }
    }
    let mut best = (0, 0);
    go(0, costs, &mut vec![0; sites], max_q, 0, 0, &mut best);
    best
}

fn check_partition(jobs: &[GridJob], out: &Assignment) {
    let mut seen: Vec<JobId> = out
        .placements
        .iter()
        .map(|p| p.job)
        .chain(out.deferred.iter().copied())
        .chain(out.unassignable.iter().copied())
        .collect();
    seen.sort();
    let mut all: Vec<JobId> = jobs.iter().map(|j| j.id).collect();
    all.sort();
    assert_eq!(seen, all, "every job in exactly one list");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn assignment_is_a_cheapest_maximum_placement(inst in instance(6, 3, false)) {
        let waits = wait_table(&inst.waits);
        let cycle = inst.cycle(&waits);
        let policy = inst.policy();
        let matrix = policy.cost_matrix(&cycle).unwrap();
        let out = policy.assign(&cycle).unwrap();
        check_partition(&inst.jobs, &out);

        let mut load = vec![0u32; inst.sites.len()];
        let mut cost = 0;
        for p in &out.placements {
            let c = matrix.costs[p.job.0 as usize][p.site];
            prop_assert!(c.is_some(), "job {:?} placed at an incompatible site", p.job);
            cost += c.unwrap_or_default();
            load[p.site] += 1;
        }
        prop_assert!(load.iter().all(|&l| l <= inst.max_q), "MaxQ exceeded: {load:?}");
        let (max_placed, min_cost) = brute_force(&matrix.costs, inst.sites.len(), inst.max_q);
        prop_assert_eq!(out.placements.len(), max_placed, "not a maximum placement");
        prop_assert_eq!(cost, min_cost, "a cheaper placement of the same size exists");
        for id in &out.unassignable {
            prop_assert!(matrix.costs[id.0 as usize].iter().all(Option::is_none));
        }
    }

    #[test]
    fn costs_are_integers_in_0_to_100_on_exactly_the_compatible_pairs(
        inst in instance(8, 4, false)
    ) {
        let waits = wait_table(&inst.waits);
        let matrix = inst.policy().cost_matrix(&inst.cycle(&waits)).unwrap();
        for (job, row) in inst.jobs.iter().zip(&matrix.costs) {
            for (k, (site, c)) in inst.sites.iter().zip(row).enumerate() {
                let estimate = scaled_estimate(&inst.sites, job, k).unwrap();
                prop_assert_eq!(c.is_some(), site.accepts(job.cores, estimate));
                if let Some(c) = c {
                    prop_assert!((0..=100).contains(c));
                }
            }
        }
    }

    #[test]
    fn w_t_one_ignores_prices(inst in instance(6, 3, false), other in prop::collection::vec(
        prop::collection::vec(0.0f64..150.0, 1..30), 3)
    ) {
        let inst = Instance { w_t: 1.0, ..inst };
        let repriced: Vec<Site> = inst.sites.iter().zip(&other).map(|(site, prices)| {
            let prices = prices.iter().copied().cycle().take(2_400).collect();
            SiteSpec { prices_usd_per_mwh: prices, ..site.spec().clone() }.build().unwrap()
        }).collect();
        let waits = wait_table(&inst.waits);
        let before = inst.policy();
        let after = Mcmf::new(repriced, inst.max_q, 1.0, PriceModel::DayAhead).unwrap();
        prop_assert_eq!(
            before.cost_matrix(&inst.cycle(&waits)),
            after.cost_matrix(&inst.cycle(&waits))
        );
        // TWOPRICE differs from DAYAHEAD only in prices.
        let two = Mcmf::two_price(inst.sites.clone(), inst.max_q, 1.0).unwrap();
        prop_assert_eq!(
            before.cost_matrix(&inst.cycle(&waits)),
            two.cost_matrix(&inst.cycle(&waits))
        );
    }

    #[test]
    fn w_t_zero_ignores_response_times(inst in instance(6, 3, true), seed in 0i64..20_000) {
        // With one price per site, the electricity cost does not depend on when a job runs, so
        // changing every wait must not change any cost.
        let inst = Instance { w_t: 0.0, ..inst };
        let shifted: Vec<Vec<i64>> = inst.waits.iter().enumerate().map(|(j, row)| {
            row.iter().enumerate().map(|(k, w)| (w * 7 + seed * (j as i64 + k as i64 + 1)) % 50_000).collect()
        }).collect();
        let (before, after) = (wait_table(&inst.waits), wait_table(&shifted));
        let policy = inst.policy();
        prop_assert_eq!(
            policy.cost_matrix(&inst.cycle(&before)),
            policy.cost_matrix(&inst.cycle(&after))
        );
    }

    #[test]
    fn bs_places_each_job_at_its_submission_site(inst in instance(8, 4, false)) {
        let bs = SubmissionSite::new(inst.sites.clone());
        let out = bs.assign(&Cycle { now: inst.now, jobs: &inst.jobs, waits: &no_wait }).unwrap();
        check_partition(&inst.jobs, &out);
        prop_assert!(out.deferred.is_empty());
        for p in &out.placements {
            prop_assert_eq!(inst.jobs[p.job.0 as usize].submission_site, p.site);
        }
    }

    #[test]
    fn energy_cost_is_additive_and_exact_for_flat_prices(
        prices in prop::collection::vec(0.0f64..150.0, 1..48),
        start in -200_000i64..200_000,
        first in 0i64..50_000,
        second in 0i64..50_000,
        watts in 0.0f64..1e6,
    ) {
        let price = |h: i64| prices[h.rem_euclid(prices.len() as i64) as usize];
        let whole = energy_cost_usd(watts, Time(start), Duration(first + second), price);
        let split = energy_cost_usd(watts, Time(start), Duration(first), price)
            + energy_cost_usd(watts, Time(start + first), Duration(second), price);
        prop_assert!((whole - split).abs() <= 1e-9 * whole.abs().max(1.0));
        let flat = energy_cost_usd(watts, Time(start), Duration(first), |_| prices[0]);
        let expected = watts * first as f64 / 3600.0 * prices[0] / 1e6;
        prop_assert!((flat - expected).abs() <= 1e-9 * expected.max(1.0));
    }
}

/// Every job starts at once (INST's waits).
fn no_wait(_: &GridJob, _: usize, _: Time) -> Duration {
    Duration::ZERO
}
