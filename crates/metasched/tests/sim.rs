//! The grid simulator: hand scenarios, the wait-source plumbing, and property tests of its
//! invariants (every job accounted exactly once, at most one compatible site per job, at most
//! `MaxQ` jobs per site per cycle and a maximum placement in every cycle, no site over its
//! cores, metrics in range, determinism).

use cosched_core::policy::Policy;
use cosched_core::{Duration, JobId, Time};
use cosched_metasched::metrics::{Metrics, fairness};
use cosched_metasched::policy::{
    GridCommand, GridJob, GridObservation, GridView, Mcmf, PolicyError, PredictedWaits, PriceModel,
    SubmissionSite,
};
use cosched_metasched::price_forecast::PriceForecastConfig;
use cosched_metasched::sim::{
    DataSize, GridSim, PowerModel, SimConfig, SimError, SimOutcome, TransferModel,
};
use cosched_metasched::site::{Site, SiteSpec};
use cosched_metasched::wait::{ClusteredWaitConfig, WaitFeatures};
use cosched_metasched::workload::{
    DiurnalPrices, TraceJob, XsedeLikeWorkload, embedded_xsede_sites,
};
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

#[path = "support/run.rs"]
mod run;
use run::simulate;

#[path = "support/shared.rs"]
mod shared;

fn site(name: &str, cores: u32, gflops: f64, price: f64) -> Site {
    SiteSpec {
        name: name.into(),
        cores,
        max_job_cores: cores,
        max_walltime: Duration::from_hours(10),
        watts_per_core: 100.0,
        gflops_per_core: gflops,
        // Flat for 60 days: prices never wrap around.
        prices_usd_per_mwh: vec![price; 1_440],
        timezone_lag_hours: 0,
    }
    .build()
    .unwrap()
}

fn job(id: u64, submit: i64, home: usize, cores: u32, runtime: i64) -> TraceJob {
    TraceJob {
        id: JobId(id),
        submit: Time(submit),
        submission_site: home,
        cores,
        runtime: Duration(runtime),
        estimate: Duration(runtime),
    }
}

/// Runs `policy` on its sites, predicting waits by `waits`.
fn run_with(
    policy: &Mcmf,
    waits: PredictedWaits,
    jobs: &[TraceJob],
    cfg: &SimConfig,
) -> Result<SimOutcome, SimError> {
    let mut policy = policy.clone().with_waits(waits)?;
    let sites = policy.sites().to_vec();
    simulate(&sites, &mut policy, jobs, cfg)
}

fn config(history: usize) -> SimConfig {
    SimConfig {
        cycle_interval: Duration(300),
        history,
        ..SimConfig::default()
    }
}

#[test]
fn what_if_waits_steer_jobs_away_from_a_busy_site() {
    // Two sites, site 1 dearer; a history job fills site 0 for 10 h. The measured job,
    // submitted at site 0, goes to idle site 1 under what-if waits and w_t = 1, but to the
    // cheaper, busy site 0 when waits are predicted as zero (INST).
    let sites = vec![site("a", 8, 1.0, 10.0), site("b", 8, 1.0, 20.0)];
    let jobs = [job(1, 0, 0, 8, 36_000), job(2, 100, 0, 4, 3_600)];
    let policy = Mcmf::new(sites, 5, 1.0, PriceModel::DayAhead).unwrap();
    let out = run_with(&policy, PredictedWaits::WhatIf, &jobs, &config(1)).unwrap();
    let run = out.jobs[1].run.unwrap();
    // It entered an empty holding layer at 100 s: its cycle is one cycle length (300 s) later.
    assert_eq!(
        (run.site, run.dispatched, run.start),
        (1, Time(400), Time(400))
    );
    assert_eq!(out.jobs[1].holding(), Some(Duration(300)));
    assert_eq!(out.jobs[1].response(), Some(Duration(300 + 3_600)));
    // As a core record: turnaround from the grid submission, run time of the run at site 1.
    let record = out.jobs[1].record();
    assert_eq!(
        (record.turnaround(), record.runtime),
        (out.jobs[1].response(), Duration(3_600))
    );
    let policy = Mcmf::new(
        vec![site("a", 8, 1.0, 10.0), site("b", 8, 1.0, 20.0)],
        5,
        0.5,
        PriceModel::DayAhead,
    )
    .unwrap();
    let out = run_with(&policy, PredictedWaits::Zero, &jobs, &config(1)).unwrap();
    assert_eq!(out.jobs[1].run.unwrap().site, 0);
    assert_eq!(out.jobs[1].run.unwrap().start, Time(36_000));
}

#[test]
fn runtimes_scale_with_per_core_speed_and_cost_uses_actual_hours() {
    // Site 1 is twice as fast and four times cheaper: the job runs there in half the time.
    let sites = vec![site("slow", 8, 1.0, 40.0), site("fast", 8, 2.0, 10.0)];
    let jobs = [job(1, 0, 0, 8, 7_200)];
    let policy = Mcmf::new(sites.clone(), 5, 0.5, PriceModel::DayAhead).unwrap();
    let out = run_with(&policy, PredictedWaits::WhatIf, &jobs, &config(0)).unwrap();
    let run = out.jobs[0].run.unwrap();
    assert_eq!(run.site, 1);
    assert_eq!(run.end - run.start, Duration(3_600));
    // 8 cores x 100 W for 1 h at $10/MWh.
    assert!((run.cost_usd - 0.008).abs() < 1e-12);
    // BS keeps it home: 2 h at $40/MWh.
    let bs = SimConfig {
        participation: 0.0,
        ..config(0)
    };
    let home = simulate(&sites, &mut SubmissionSite::new(sites.clone()), &jobs, &bs).unwrap();
    let run = home.jobs[0].run.unwrap();
    assert_eq!((run.site, run.start, run.end), (0, Time(0), Time(7_200)));
    assert!((run.cost_usd - 0.064).abs() < 1e-12);
    // Fairness at site 0: BS response 7,200 s against 300 + 3,600 s metascheduled.
    let f = fairness(&home, &out, 2);
    assert!((f[0].unwrap() - 7_200.0 / 3_900.0).abs() < 1e-12);
    assert_eq!(f[1], None);
}

#[test]
fn transfer_overlaps_the_queue_wait_of_migrated_jobs() {
    let sites = vec![site("slow", 8, 1.0, 40.0), site("fast", 8, 2.0, 10.0)];
    let jobs = [job(1, 0, 0, 8, 7_200)];
    let policy = Mcmf::new(sites, 5, 0.5, PriceModel::DayAhead).unwrap();
    let cfg = SimConfig {
        transfer: Some(TransferModel {
            latency: Duration(60),
            bandwidth_bytes_per_s: 1e6,
            data: DataSize::Fixed { bytes: 20_000_000 },
        }),
        ..config(0)
    };
    let out = run_with(&policy, PredictedWaits::WhatIf, &jobs, &cfg).unwrap();
    let run = out.jobs[0].run.unwrap();
    assert_eq!(run.site, 1);
    // Eq. 10: the job queues at once (and, the site being idle, holds its cores at once); it
    // computes once its 20 MB have arrived after 60 + 20 s, for its scaled 3,600 s.
    assert_eq!(run.site_submit, run.dispatched);
    assert_eq!(run.start, run.site_submit);
    assert_eq!(run.data_ready - run.dispatched, Duration(80));
    assert_eq!(run.end - run.data_ready, Duration(3_600));
}

/// The paper's policy, logging every start it is taught, and optionally planning with fixed
/// per-site waits instead of its own model.
struct Logging {
    inner: Mcmf,
    log: Vec<(usize, WaitFeatures, Duration)>,
    fixed: Option<Vec<Duration>>,
}

impl Policy for Logging {
    type Observation = GridObservation;
    type Command = GridCommand;
    type View = dyn GridView;
    type Error = PolicyError;

    fn observe(
        &mut self,
        now: Time,
        obs: &GridObservation,
        view: &Self::View,
        out: &mut Vec<GridCommand>,
    ) -> Result<(), PolicyError> {
        match (obs, &self.fixed) {
            (
                GridObservation::JobStarted {
                    site,
                    features,
                    wait,
                    ..
                },
                _,
            ) => {
                self.log.push((*site, *features, *wait));
            }
            (GridObservation::Cycle { jobs }, Some(fixed)) => {
                let waits = |_: &GridJob, k: usize, _: Time| fixed[k];
                let cycle = cosched_metasched::policy::Cycle {
                    now,
                    jobs,
                    waits: &waits,
                };
                self.inner.assign(&cycle)?.commands(|_| None, out);
                return Ok(());
            }
            _ => {}
        }
        self.inner.observe(now, obs, view, out)
    }
}

#[test]
fn learned_predictors_are_taught_every_start_with_the_submission_features() {
    let sites = xsede();
    let jobs = generated(&sites, 200, 0.8, 3);
    let inner = Mcmf::new(sites.clone(), 10, 0.5, PriceModel::DayAhead).unwrap();
    let mut policy = Logging {
        inner,
        log: Vec::new(),
        fixed: None,
    };
    let out = simulate(&sites, &mut policy, &jobs, &config(150)).unwrap();
    for k in 0..sites.len() {
        let log: Vec<_> = policy.log.iter().filter(|(s, ..)| *s == k).collect();
        let runs: Vec<_> = out
            .jobs
            .iter()
            .filter_map(|j| j.run.filter(|r| r.site == k).map(|r| (j, r)))
            .collect();
        assert_eq!(log.len(), runs.len(), "site {k}");
        let mut observed: Vec<i64> = log.iter().map(|(_, _, w)| w.secs()).collect();
        let mut actual: Vec<i64> = runs
            .iter()
            .map(|(_, r)| (r.start - r.site_submit).secs())
            .collect();
        observed.sort_unstable();
        actual.sort_unstable();
        assert_eq!(observed, actual, "site {k}");
        assert!(
            log.iter()
                .all(|(_, f, _)| f.cores >= 1.0 && f.estimate > 0.0)
        );
    }
    // The policy's own learned model saw every start too.
    let PredictedWaits::Learned(predictors) = policy.inner.waits() else {
        panic!("the paper's model is learned");
    };
    let taught: usize = predictors.iter().map(|p| p.history_len()).sum();
    assert_eq!(taught, policy.log.len().min(2_000 * sites.len()));
    // Waits that call one site hopeless keep every job away from it.
    let inner = Mcmf::new(sites.clone(), 100, 1.0, PriceModel::DayAhead).unwrap();
    let fixed = (0..sites.len())
        .map(|k| Duration(if k == 2 { 10 * 86_400 } else { 0 }))
        .collect();
    let mut policy = Logging {
        inner,
        log: Vec::new(),
        fixed: Some(fixed),
    };
    let out = simulate(&sites, &mut policy, &jobs, &config(150)).unwrap();
    assert!(
        out.jobs
            .iter()
            .filter(|j| j.via_metascheduler)
            .all(|j| j.run.is_none_or(|r| r.site != 2))
    );
}

#[test]
fn invalid_inputs_are_errors() {
    let sites = vec![site("a", 8, 1.0, 10.0)];
    let run = |jobs: &[TraceJob], cfg: &SimConfig, waits: PredictedWaits| {
        let policy = Mcmf::new(sites.clone(), 1, 0.5, PriceModel::DayAhead)?.with_waits(waits)?;
        simulate(&sites, &mut policy.clone(), jobs, cfg).map(|_| ())
    };
    let ok = [job(1, 0, 0, 1, 10)];
    assert!(run(&[ok[0], ok[0]], &config(0), PredictedWaits::Zero).is_err());
    assert!(run(&[job(1, 0, 3, 1, 10)], &config(0), PredictedWaits::Zero).is_err());
    // A job with no core is counted invalid and left out (cosched-workload's admission).
    let policy = Mcmf::new(sites.clone(), 1, 0.5, PriceModel::DayAhead).unwrap();
    let out = simulate(
        &sites,
        &mut policy.clone(),
        &[ok[0], job(2, 0, 0, 0, 10)],
        &config(0),
    )
    .unwrap();
    assert_eq!((out.jobs.len(), out.invalid), (1, 1));
    let bad = SimConfig {
        participation: 1.5,
        ..config(0)
    };
    assert!(run(&ok, &bad, PredictedWaits::Zero).is_err());
    let bad = SimConfig {
        cycle_interval: Duration(0),
        ..config(0)
    };
    assert!(run(&ok, &bad, PredictedWaits::Zero).is_err());
    assert!(run(&ok, &config(0), PredictedWaits::Learned(Vec::new())).is_err());
    let bad = SimConfig {
        wait_perturbation: Some(Duration(-1)),
        ..config(0)
    };
    assert!(run(&ok, &bad, PredictedWaits::Zero).is_err());
    let bad = SimConfig {
        power: PowerModel::Uniform {
            low: 0.5,
            high: 0.1,
        },
        ..config(0)
    };
    assert!(run(&ok, &bad, PredictedWaits::Zero).is_err());
    assert!(run(&ok, &config(0), PredictedWaits::Zero).is_ok());
}

/// The BS baseline of `cfg`: every job at its submission site.
fn run_bs(sites: &[Site], jobs: &[TraceJob], cfg: &SimConfig) -> SimOutcome {
    let home = SimConfig {
        participation: 0.0,
        ..*cfg
    };
    simulate(sites, &mut SubmissionSite::new(sites.to_vec()), jobs, &home).unwrap()
}

fn xsede() -> Vec<Site> {
    embedded_xsede_sites(|f| Ok(DiurnalPrices::month(2).series(f).unwrap())).unwrap()
}

/// A generated XSEDE-like workload of `jobs` jobs at offered `load` on `sites`.
fn generated(sites: &[Site], jobs: usize, load: f64, seed: u64) -> Vec<TraceJob> {
    XsedeLikeWorkload { jobs, load, seed }
        .generate(sites)
        .unwrap()
}

#[test]
fn small_xsede_scenario_report() {
    let sites = xsede();
    let jobs = generated(&sites, 160, 0.8, 11);
    let cfg = config(100);
    let bs = run_bs(&sites, &jobs, &cfg);
    let policy = Mcmf::new(sites.clone(), 5, 0.5, PriceModel::DayAhead).unwrap();
    let mcmf = run_with(&policy, PredictedWaits::WhatIf, &jobs, &cfg).unwrap();
    let fair: Vec<String> = fairness(&bs, &mcmf, sites.len())
        .iter()
        .map(|f| f.map_or("-".into(), |f| format!("{f:.3}")))
        .collect();
    insta::assert_snapshot!(format!(
        "BS\n{}\nMCMF (w_t 0.5, MaxQ 5, what-if waits)\n{}cycles {}\nfairness {}\n",
        Metrics::of(&bs, &sites),
        Metrics::of(&mcmf, &sites),
        mcmf.cycles.len(),
        fair.join(" ")
    ));
}

/// The paper's metascheduler (forecast prices past the published day, learned waits) beside
/// MCMF with what-if waits, on a grid loaded enough for queues to form (on lighter ones both
/// predict no wait and place alike).
#[test]
fn paper_configuration_scenario_report() {
    let sites = xsede();
    let jobs = generated(&sites, 800, 1.5, 11);
    let cfg = config(600);
    let prices = PriceModel::forecast(&sites, PriceForecastConfig::default()).unwrap();
    let policy = Mcmf::new(sites.clone(), 5, 0.5, prices).unwrap();
    let learned = PredictedWaits::learned(sites.len(), ClusteredWaitConfig::default()).unwrap();
    let learned = run_with(&policy, learned, &jobs, &cfg).unwrap();
    let what_if = run_with(&policy, PredictedWaits::WhatIf, &jobs, &cfg).unwrap();
    for out in [&learned, &what_if] {
        check_invariants(&sites, &jobs, 5, out);
        check_metrics(&sites, out);
    }
    let placed_apart = learned
        .jobs
        .iter()
        .zip(&what_if.jobs)
        .filter(|(a, b)| a.run.map(|r| r.site) != b.run.map(|r| r.site))
        .count();
    insta::assert_snapshot!(format!(
        "MCMF (w_t 0.5, MaxQ 5, learned waits, forecast prices)\n{}cycles {}\n\n\
         MCMF (w_t 0.5, MaxQ 5, what-if waits, forecast prices)\n{}cycles {}\n\n\
         jobs placed at another site: {placed_apart}\n",
        Metrics::of(&learned, &sites),
        learned.cycles.len(),
        Metrics::of(&what_if, &sites),
        what_if.cycles.len(),
    ));
}

/// A random small grid: sites, jobs, MaxQ, w_t, history, participation and seed.
fn scenario() -> impl Strategy<Value = (Vec<Site>, Vec<TraceJob>, u32, f64, SimConfig)> {
    let site = (1u32..=32, 1u32..=32, 1i64..=8, 1.0f64..4.0, 1.0f64..100.0).prop_map(
        |(cores, max_job, hours, gflops, price)| {
            SiteSpec {
                name: "s".into(),
                cores,
                max_job_cores: max_job.min(cores),
                max_walltime: Duration::from_hours(hours),
                watts_per_core: 50.0,
                gflops_per_core: gflops,
                prices_usd_per_mwh: [price, price * 2.0].repeat(2_000),
                timezone_lag_hours: 0,
            }
            .build()
            .unwrap()
        },
    );
    (prop::collection::vec(site, 1..=4), 1usize..=40).prop_flat_map(|(sites, n)| {
        let k = sites.len();
        let job = (0i64..4_000, 0..k, 1u32..=40, 1i64..20_000, 0i64..5_000);
        (
            Just(sites),
            prop::collection::vec(job, n),
            1u32..=3,
            0.0f64..=1.0,
            0..=n,
            0.0f64..=1.0,
            any::<u64>(),
            prop::bool::ANY,
        )
            .prop_map(
                |(sites, raw, max_q, w_t, history, participation, seed, transfer)| {
                    let jobs = raw
                        .into_iter()
                        .enumerate()
                        .map(|(i, (submit, home, cores, runtime, slack))| TraceJob {
                            id: JobId(i as u64 * 7 + 1),
                            submit: Time(submit),
                            submission_site: home,
                            cores,
                            runtime: Duration(runtime),
                            estimate: Duration(runtime + slack),
                        })
                        .collect();
                    let cfg = SimConfig {
                        cycle_interval: Duration(600),
                        participation,
                        history,
                        transfer: transfer.then_some(TransferModel {
                            latency: Duration(30),
                            bandwidth_bytes_per_s: 1e9,
                            data: DataSize::PaperMix,
                        }),
                        wait_perturbation: transfer.then_some(Duration(3_600)),
                        power: if transfer {
                            PowerModel::AVERAGE
                        } else {
                            PowerModel::Hpl
                        },
                        seed,
                    };
                    (sites, jobs, max_q, w_t, cfg)
                },
            )
    })
}

fn accepts_scaled(sites: &[Site], job: &TraceJob, k: usize) -> bool {
    let g = GridJob::new(job.id, job.submission_site, job.cores, job.estimate).unwrap();
    let estimate = cosched_metasched::policy::scaled_estimate(sites, &g, k).unwrap();
    sites[k].accepts(job.cores, estimate)
}

fn check_invariants(sites: &[Site], jobs: &[TraceJob], max_q: u32, out: &SimOutcome) {
    // Every job exactly once.
    let ids: HashSet<JobId> = jobs.iter().map(|j| j.id).collect();
    assert_eq!(out.jobs.len(), jobs.len());
    assert_eq!(
        out.jobs.iter().map(|j| j.job.id).collect::<HashSet<_>>(),
        ids
    );
    let mut per_cycle_site: HashMap<(Time, usize), u32> = HashMap::new();
    for j in &out.jobs {
        match j.run {
            Some(r) => {
                // On a compatible site (its home for jobs that skipped the metascheduler), in
                // causal order.
                assert!(accepts_scaled(sites, &j.job, r.site));
                if !j.via_metascheduler {
                    assert_eq!(r.site, j.job.submission_site);
                    assert_eq!(r.dispatched, j.job.submit);
                } else {
                    *per_cycle_site.entry((r.dispatched, r.site)).or_default() += 1;
                }
                assert!(j.job.submit <= r.dispatched);
                assert!(r.dispatched <= r.site_submit && r.site_submit <= r.start);
                assert!(r.start <= r.end && r.end < Time::MAX);
                assert!(r.cost_usd >= 0.0);
            }
            None => {
                // Only when no site (or, off the grid, its home) could run it.
                let candidates: Vec<usize> = if j.via_metascheduler {
                    (0..sites.len()).collect()
                } else {
                    vec![j.job.submission_site]
                };
                assert!(
                    candidates
                        .iter()
                        .all(|&k| !accepts_scaled(sites, &j.job, k))
                );
            }
        }
    }
    assert!(per_cycle_site.values().all(|&n| n <= max_q));
    // No site ever runs more cores than it has: check at every start.
    for (k, site) in sites.iter().enumerate() {
        let runs: Vec<_> = out
            .jobs
            .iter()
            .filter_map(|j| j.run.filter(|r| r.site == k).map(|r| (r, j.job.cores)))
            .collect();
        for (r, _) in &runs {
            let busy: u32 = runs
                .iter()
                .filter(|(o, _)| o.start <= r.start && r.start < o.end)
                .map(|(_, c)| c)
                .sum();
            assert!(busy <= site.spec().cores, "site {k} at {:?}", r.start);
        }
    }
}

/// Metrics stay in range, and a run compared with itself is perfectly fair.
fn check_metrics(sites: &[Site], out: &SimOutcome) {
    let m = Metrics::of(out, sites);
    assert_eq!(m.jobs, out.jobs.iter().filter(|j| j.measured).count());
    assert!(m.completed <= m.jobs && m.migrated <= m.completed);
    assert!(m.completed == 0 || m.mean_bounded_slowdown >= 1.0);
    for s in &m.sites {
        assert!((0.0..=1.0 + 1e-9).contains(&s.utilization), "{s:?}");
        // No −0.0 (it would print as "-0.000").
        assert!(s.utilization.is_sign_positive() && s.mean_load.is_sign_positive());
        assert!(s.mean_load <= s.peak_load + 1e-12 && s.mean_load >= 0.0);
    }
    assert_eq!(m.sites.iter().map(|s| s.ran).sum::<usize>(), m.completed);
    // Cost is energy times prices paid: between the cheapest and the dearest hour's price.
    let all_prices = || {
        sites
            .iter()
            .flat_map(|s| s.spec().prices_usd_per_mwh.iter().copied())
    };
    let (low, high) = (
        all_prices().fold(f64::INFINITY, f64::min),
        all_prices().fold(f64::NEG_INFINITY, f64::max),
    );
    let tolerance = 1e-9 * (1.0 + m.total_cost_usd);
    assert!(m.energy_mwh >= 0.0);
    assert!(m.total_cost_usd >= m.energy_mwh * low - tolerance, "{m:?}");
    assert!(m.total_cost_usd <= m.energy_mwh * high + tolerance, "{m:?}");
    for f in fairness(out, out, sites.len()).into_iter().flatten() {
        assert!((f - 1.0).abs() < 1e-12);
    }
}

/// The flow is maximum in every cycle: a grid job still pending at a cycle (placed later, or
/// never) was left out only because every site that could run it took `MaxQ` jobs then. And
/// the cycle semantics of the paper's code: every grid job sees a cycle at most one cycle
/// length (`step`) after it arrives, and it is dispatched at a cycle.
fn check_cycles_are_maximal(sites: &[Site], max_q: u32, step: i64, out: &SimOutcome) {
    let cycles: Vec<i64> = out.cycles.iter().map(|t| t.secs()).collect();
    let mut taken: HashMap<(i64, usize), u32> = HashMap::new();
    for j in out.jobs.iter().filter(|j| j.via_metascheduler) {
        if let Some(r) = j.run {
            *taken.entry((r.dispatched.secs(), r.site)).or_default() += 1;
        }
    }
    for j in out.jobs.iter().filter(|j| j.via_metascheduler) {
        let compatible: Vec<usize> = (0..sites.len())
            .filter(|&k| accepts_scaled(sites, &j.job, k))
            .collect();
        let submit = j.job.submit.secs();
        let first = cycles.iter().copied().find(|&c| c >= submit);
        assert!(
            first.is_some_and(|c| c <= submit + step),
            "no cycle within {step} s of {submit}"
        );
        let Some(r) = j.run else {
            assert!(compatible.is_empty());
            continue;
        };
        assert!(cycles.contains(&r.dispatched.secs()));
        for &cycle in cycles
            .iter()
            .filter(|&&c| c >= submit && c < r.dispatched.secs())
        {
            for &k in &compatible {
                assert_eq!(
                    taken.get(&(cycle, k)).copied(),
                    Some(max_q),
                    "cycle {cycle}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_job_is_accounted_once_within_max_q_and_site_capacity(
        (sites, jobs, max_q, w_t, cfg) in scenario(),
    ) {
        let forecast = PriceModel::forecast(&sites, PriceForecastConfig::default()).unwrap();
        let k = sites.len();
        let wait_sources: [&dyn Fn() -> PredictedWaits; 3] = [
            &|| PredictedWaits::WhatIf,
            &|| PredictedWaits::Zero,
            &|| PredictedWaits::learned(k, ClusteredWaitConfig { refit_every: 5, ..Default::default() })
                .unwrap(),
        ];
        for prices in [PriceModel::DayAhead, PriceModel::two_price(&sites), forecast] {
            let policy = Mcmf::new(sites.clone(), max_q, w_t, prices).unwrap();
            for waits in wait_sources {
                let out = run_with(&policy, waits(), &jobs, &cfg).unwrap();
                check_invariants(&sites, &jobs, max_q, &out);
                check_cycles_are_maximal(&sites, max_q, cfg.cycle_interval.secs(), &out);
                check_metrics(&sites, &out);
                // Deterministic for a seed (learned predictors start afresh).
                let again = run_with(&policy, waits(), &jobs, &cfg).unwrap();
                prop_assert_eq!(&again, &out);
            }
        }
        let out = run_bs(&sites, &jobs, &cfg);
        check_invariants(&sites, &jobs, u32::MAX, &out);
        prop_assert!(out.jobs.iter().all(|j| !j.via_metascheduler));
    }
}

#[test]
fn grid_trace_errors_name_the_job() {
    use cosched_metasched::workload::{TraceError, read_grid_trace};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.swf");
    let line = |site: &str| format!("7 10 -1 100 4 -1 -1 4 200 -1 1 -1 -1 -1 0 -1 -1 -1 {site}\n");
    std::fs::write(&path, line("2")).unwrap();
    assert_eq!(
        read_grid_trace(&path, 2).unwrap(),
        [TraceJob {
            id: JobId(7),
            submit: Time(10),
            submission_site: 1,
            cores: 4,
            runtime: Duration(100),
            estimate: Duration(200),
        }]
    );
    for bad in [
        line("3"),
        line("0"),
        line("x"),
        line("").replace(" \n", "\n"),
    ] {
        std::fs::write(&path, bad).unwrap();
        match read_grid_trace(&path, 2) {
            Err(TraceError::Job {
                job: 7, message, ..
            }) => {
                assert!(message.contains("site"), "{message}")
            }
            other => panic!("expected a job error, got {other:?}"),
        }
    }
}

#[test]
fn the_real_xsede_setting_runs_every_job() {
    use cosched_metasched::workload::{paper_grid_trace, paper_xsede_sites};
    let sites = paper_xsede_sites().unwrap();
    let jobs = paper_grid_trace(sites.len()).unwrap();
    assert_eq!(jobs.len(), 4_100);
    assert_eq!(
        jobs[0],
        TraceJob {
            id: JobId(1),
            submit: Time(59),
            submission_site: 3,
            cores: 64,
            runtime: Duration(32_170),
            estimate: Duration(32_700),
        }
    );
    let cfg = config(4_000);
    let bs = run_bs(&sites, &jobs, &cfg);
    let policy = Mcmf::new(sites.clone(), 10, 0.5, PriceModel::DayAhead).unwrap();
    let mcmf = run_with(&policy, PredictedWaits::WhatIf, &jobs, &cfg).unwrap();
    // The paper's metascheduler: forecast prices, learned waits warmed by the 4,000 history jobs.
    let prices = PriceModel::forecast(&sites, PriceForecastConfig::default()).unwrap();
    let paper = Mcmf::new(sites.clone(), 10, 0.5, prices).unwrap();
    let learned = PredictedWaits::learned(sites.len(), ClusteredWaitConfig::default()).unwrap();
    let learned = run_with(&paper, learned, &jobs, &cfg).unwrap();
    for out in [&bs, &mcmf, &learned] {
        check_invariants(&sites, &jobs, 10, out);
        check_metrics(&sites, out);
        assert!(out.jobs.iter().all(|j| j.run.is_some()));
    }
    let (b, m) = (Metrics::of(&bs, &sites), Metrics::of(&mcmf, &sites));
    assert_eq!((b.jobs, m.jobs), (100, 100));
    // The metascheduler beats BS on both counts on this trace (see metasched_table4).
    assert!(m.mean_response_s < b.mean_response_s && m.total_cost_usd < b.total_cost_usd);
}

#[test]
fn a_jobs_wait_error_is_one_draw_shared_by_every_site() {
    // Both sites busy until 1,000 s and 1,500 s; the measured job's exact what-if waits at its
    // cycle (400 s) are 600 s and 1,100 s, so with w_t = 1 it goes to site 0. Table 5's error
    // is one draw per job (§5.3), added at both sites alike: it cannot swap the order, and the
    // prediction recorded for the job is 600 s plus the draw, floored at 0.
    let sites = vec![site("a", 8, 1.0, 10.0), site("b", 8, 1.0, 10.0)];
    let jobs = [
        job(1, 0, 0, 8, 1_000),
        job(2, 0, 1, 8, 1_500),
        job(3, 100, 0, 8, 100),
    ];
    let policy = Mcmf::new(sites, 5, 1.0, PriceModel::DayAhead).unwrap();
    let placed = |threshold: i64, seed: u64| {
        let cfg = SimConfig {
            seed,
            wait_perturbation: Some(Duration(threshold)),
            ..config(2)
        };
        let run = run_with(&policy, PredictedWaits::WhatIf, &jobs, &cfg)
            .unwrap()
            .jobs[2]
            .run
            .unwrap();
        (run.site, run.predicted_wait.unwrap().secs())
    };
    assert!((0..40).all(|seed| placed(0, seed) == (0, 600)));
    let perturbed: Vec<(usize, i64)> = (0..40).map(|seed| placed(1_000, seed)).collect();
    assert!(
        perturbed
            .iter()
            .all(|&(site, wait)| site == 0 && (0..=1_600).contains(&wait))
    );
    let distinct: std::collections::BTreeSet<i64> = perturbed.iter().map(|p| p.1).collect();
    assert!(
        distinct.len() > 20,
        "{} distinct draws of 40",
        distinct.len()
    );
}

#[test]
fn impossible_assignments_are_errors() {
    /// A fixed answer to a cycle.
    type Act = fn(&[GridJob]) -> Vec<GridCommand>;
    /// A policy answering every cycle with a fixed misbehaviour.
    struct Broken {
        act: Act,
    }
    impl Policy for Broken {
        type Observation = GridObservation;
        type Command = GridCommand;
        type View = dyn GridView;
        type Error = std::convert::Infallible;
        fn observe(
            &mut self,
            _: Time,
            obs: &GridObservation,
            _: &dyn GridView,
            out: &mut Vec<GridCommand>,
        ) -> Result<(), Self::Error> {
            if let GridObservation::Cycle { jobs } = obs {
                out.extend((self.act)(jobs));
            }
            Ok(())
        }
    }
    let sites = vec![site("a", 8, 1.0, 10.0), site("small", 2, 1.0, 10.0)];
    let jobs = [job(1, 0, 0, 4, 100)];
    let acts: [Act; 5] = [
        // The same job twice.
        |j| {
            vec![
                GridCommand::Place {
                    job: j[0].id,
                    site: 0,
                    predicted_wait: None
                };
                2
            ]
        },
        // A site too small for it.
        |j| {
            vec![GridCommand::Place {
                job: j[0].id,
                site: 1,
                predicted_wait: None,
            }]
        },
        // A job that is not pending.
        |_| {
            vec![GridCommand::Place {
                job: JobId(99),
                site: 0,
                predicted_wait: None,
            }]
        },
        // Placed and rejected.
        |j| {
            vec![
                GridCommand::Place {
                    job: j[0].id,
                    site: 0,
                    predicted_wait: None,
                },
                GridCommand::Unassignable { job: j[0].id },
            ]
        },
        // Deferred forever on an idle grid.
        |_| Vec::new(),
    ];
    for act in acts {
        let err = simulate(&sites, &mut Broken { act }, &jobs, &config(0)).unwrap_err();
        assert!(err.to_string().contains("the policy"), "{err}");
    }
    // The real id reaches the policy: job 1 placed by id runs.
    let mut fine = Broken {
        act: |j| {
            vec![GridCommand::Place {
                job: j[0].id,
                site: 0,
                predicted_wait: None,
            }]
        },
    };
    let out = simulate(&sites, &mut fine, &jobs, &config(0)).unwrap();
    assert_eq!(out.jobs[0].run.map(|r| r.site), Some(0));
}

#[test]
fn the_policy_weighs_the_transfer_time_of_a_migration() {
    // Site 0 is busy for another 700 s after the first cycle; site 1 is idle. Without a
    // transfer time the job moves (w_t = 1); a 2,000 s transfer makes staying faster.
    let sites = vec![site("a", 8, 1.0, 10.0), site("b", 8, 1.0, 10.0)];
    let jobs = [job(1, 0, 0, 8, 1_000), job(2, 100, 0, 8, 100)];
    let policy = Mcmf::new(sites, 5, 1.0, PriceModel::DayAhead).unwrap();
    let site_of = |transfer: Option<TransferModel>| {
        let cfg = SimConfig {
            transfer,
            ..config(1)
        };
        run_with(&policy, PredictedWaits::WhatIf, &jobs, &cfg)
            .unwrap()
            .jobs[1]
            .run
            .unwrap()
    };
    assert_eq!(site_of(None).site, 1);
    let slow = TransferModel {
        latency: Duration(2_000),
        bandwidth_bytes_per_s: 1e9,
        data: DataSize::Fixed { bytes: 0 },
    };
    let run = site_of(Some(slow));
    assert_eq!((run.site, run.start), (0, Time(1_000)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Every strategy of a comparison sees the same environment: which jobs go through the
    /// metascheduler, their power and their data are drawn from named streams, independent of
    /// the policy, of the waits it is shown and of Table 5's perturbation draws.
    #[test]
    fn the_environment_is_the_same_whichever_policy_runs(
        (sites, jobs, max_q, w_t, cfg) in scenario(),
        participation in 0.0f64..=1.0,
    ) {
        let cfg = SimConfig {
            participation,
            power: PowerModel::AVERAGE,
            transfer: Some(TransferModel {
                latency: Duration(1),
                bandwidth_bytes_per_s: 1e9,
                data: DataSize::PaperMix,
            }),
            ..cfg
        };
        let environment = |out: &SimOutcome| -> Vec<(JobId, bool, u64, u64)> {
            out.jobs
                .iter()
                .map(|j| (j.job.id, j.via_metascheduler, j.power_factor.to_bits(), j.data_bytes))
                .collect()
        };
        let mcmf = Mcmf::new(sites.clone(), max_q, w_t, PriceModel::DayAhead).unwrap();
        let reference = environment(&run_with(&mcmf, PredictedWaits::WhatIf, &jobs, &cfg).unwrap());
        let perturbed = SimConfig { wait_perturbation: Some(Duration(7_200)), ..cfg };
        let runs = [
            simulate(&sites, &mut SubmissionSite::new(sites.clone()), &jobs, &cfg),
            run_with(&mcmf, PredictedWaits::Zero, &jobs, &cfg),
            run_with(&mcmf, PredictedWaits::WhatIf, &jobs, &perturbed),
            run_with(&Mcmf::two_price(sites.clone(), max_q, w_t).unwrap(), PredictedWaits::WhatIf, &jobs, &cfg),
        ];
        for out in runs {
            prop_assert_eq!(environment(&out.unwrap()), reference.clone());
        }
    }
}

/// The protocol's recorder: a simulated run of the paper's policy (learned waits, forecast
/// prices) recorded as JSON lines replays identically into a fresh policy, and a serde
/// round-trip of the policy half-way through the replay changes nothing.
#[test]
fn a_recorded_run_replays_identically_and_a_restart_changes_nothing() {
    use cosched_core::policy::{Recorder, read_steps, replay, replay_step};
    use cosched_metasched::policy::GridSnapshot;
    use cosched_metasched::price_forecast::PriceForecastConfig;

    let sites = xsede();
    let jobs = generated(&sites, 400, 0.8, 5);
    let prices = PriceModel::forecast(&sites, PriceForecastConfig::default()).unwrap();
    let policy = Mcmf::new(sites.clone(), 2, 0.25, prices).unwrap();
    let plain = simulate(&sites, &mut policy.clone(), &jobs, &config(200)).unwrap();
    let mut recorder = Recorder::with_view_snapshot(policy.clone(), Vec::new(), GridSnapshot::json);
    let recorded = simulate(&sites, &mut recorder, &jobs, &config(200)).unwrap();
    assert_eq!(plain, recorded, "recording changes nothing");
    let (_, lines) = recorder.into_parts();
    let view = |v: Option<&serde_json::Value>| -> Result<Box<dyn GridView>, serde_json::Error> {
        Ok(Box::new(GridSnapshot::replayed(v, &sites)?))
    };
    let outcome = replay(&mut policy.clone(), lines.as_slice(), view).unwrap();
    let placed = recorded
        .jobs
        .iter()
        .filter(|j| j.via_metascheduler && j.run.is_some())
        .count();
    assert_eq!(outcome.commands, placed as u64);
    assert!(placed > 100, "{placed}");

    let steps: Vec<_> = read_steps::<GridObservation, GridCommand, _>(lines.as_slice())
        .collect::<Result<_, _>>()
        .unwrap();
    let half = steps.len() / 2;
    let mut first = policy.clone();
    let mut out = Vec::new();
    for step in &steps[..half] {
        replay_step(&mut first, step, view, &mut out).unwrap();
    }
    let saved = serde_json::to_string(&first).unwrap();
    let mut restored: Mcmf = serde_json::from_str(&saved).unwrap();
    assert_eq!(restored, first);
    for step in &steps[half..] {
        replay_step(&mut restored, step, view, &mut out).unwrap();
    }
}

/// A recording of a run whose policy reads the what-if waits, the transfer times and the
/// injected errors (what-if waits, §5.8's transfers, Table 5's perturbation) replays whole:
/// each cycle's snapshot holds the answers to every question the policy may ask about the
/// cycle's jobs; the views are taken at the cycles and the start only.
#[test]
fn a_recording_with_what_if_waits_replays_whole() {
    use cosched_core::policy::{Recorder, read_steps, replay};
    use cosched_metasched::policy::GridSnapshot;

    let sites = xsede();
    let jobs = generated(&sites, 300, 0.9, 8);
    let cfg = SimConfig {
        transfer: Some(TransferModel {
            latency: Duration(30),
            bandwidth_bytes_per_s: 1e8,
            data: DataSize::PaperMix,
        }),
        wait_perturbation: Some(Duration(1_800)),
        ..config(100)
    };
    let policy = Mcmf::new(sites.clone(), 2, 0.5, PriceModel::DayAhead)
        .unwrap()
        .with_waits(PredictedWaits::WhatIf)
        .unwrap();
    let plain = simulate(&sites, &mut policy.clone(), &jobs, &cfg).unwrap();
    let mut recorder = Recorder::with_view_snapshot(policy.clone(), Vec::new(), GridSnapshot::json);
    let recorded = simulate(&sites, &mut recorder, &jobs, &cfg).unwrap();
    assert_eq!(plain, recorded, "recording changes nothing");
    let (_, lines) = recorder.into_parts();
    let steps: Vec<_> = read_steps::<GridObservation, GridCommand, _>(lines.as_slice())
        .collect::<Result<_, _>>()
        .unwrap();
    let cycles = steps
        .iter()
        .filter(|s| {
            matches!(
                s.call,
                cosched_core::policy::Call::Observe(GridObservation::Cycle { .. })
            )
        })
        .count();
    let snapshots = steps.iter().filter(|s| s.view.is_some()).count();
    assert_eq!(
        snapshots,
        cycles + 1,
        "a view at the start and at each cycle only"
    );
    let view = |v: Option<&serde_json::Value>| GridSnapshot::replayed(v, &sites);
    let outcome = replay(&mut policy.clone(), lines.as_slice(), view).unwrap();
    assert_eq!(outcome.steps as usize, steps.len());
    // Without the recorded what-if answers the replay does not go through (the policy reads
    // them: it places otherwise, or predicts a run past the published prices).
    let blind = |v: Option<&serde_json::Value>| {
        GridSnapshot::replayed(v, &sites).map(|mut s| {
            s.what_if.clear();
            s
        })
    };
    assert!(replay(&mut policy.clone(), lines.as_slice(), blind).is_err());
    let placed = recorded
        .jobs
        .iter()
        .filter(|j| j.via_metascheduler && j.run.is_some())
        .count();
    assert_eq!(outcome.commands, placed as u64);
    assert!(
        recorded
            .jobs
            .iter()
            .any(|j| j.run.is_some_and(|r| r.site != j.job.submission_site))
    );
}

/// The vendored inputs: the paper's eight sites with a month of prices, and its 4,100 jobs.
#[test]
fn the_vendored_inputs_are_complete() {
    use cosched_metasched::workload::{paper_grid_trace, paper_xsede_sites};
    let sites = paper_xsede_sites().unwrap();
    let jobs = paper_grid_trace(sites.len()).unwrap();
    assert_eq!((sites.len(), jobs.len()), (8, 4_100));
    assert!(sites.iter().all(|s| s.known_hours() == 720));
}

/// The vendored inputs are the paper's public files: the same sites, prices and jobs as
/// `../shared/data/metasched`.
#[test]
#[ignore = "needs ../shared/data"]
fn the_vendored_inputs_are_the_shared_files() {
    use cosched_metasched::workload::{paper_grid_trace, paper_xsede_sites, read_grid_trace};
    let sites = paper_xsede_sites().unwrap();
    let jobs = paper_grid_trace(sites.len()).unwrap();
    let dir = shared::shared_metasched("");
    let shared = cosched_metasched::xsede::load_sites(&dir).unwrap();
    assert_eq!(sites, shared);
    let trace = read_grid_trace(&dir.join("xsede_grid_4100.swf"), shared.len()).unwrap();
    assert_eq!(jobs, trace);
}

/// Any policy of the protocol runs, whatever its error type: one that cannot fail, reading
/// the sites from the view (not a copy of its own), places every job at its submission site;
/// the sites' batch systems take any batch policy.
#[test]
fn an_infallible_policy_reads_the_sites_from_the_view() {
    use cosched_batch::scenario::BuiltinPolicy;
    use cosched_core::policy::Policy;
    use std::convert::Infallible;

    /// Places each job at its submission site if that site can run it there.
    struct Home {
        sites_seen: usize,
    }
    impl Policy for Home {
        type Observation = GridObservation;
        type Command = GridCommand;
        type View = dyn GridView;
        type Error = Infallible;
        fn observe(
            &mut self,
            _: Time,
            obs: &GridObservation,
            view: &dyn GridView,
            out: &mut Vec<GridCommand>,
        ) -> Result<(), Infallible> {
            let GridObservation::Cycle { jobs } = obs else {
                return Ok(());
            };
            self.sites_seen = view.sites().len();
            for job in jobs {
                let fits = view
                    .sites()
                    .get(job.submission_site)
                    .is_some_and(|s| s.accepts(job.cores, job.estimate));
                out.push(if fits {
                    GridCommand::Place {
                        job: job.id,
                        site: job.submission_site,
                        predicted_wait: None,
                    }
                } else {
                    GridCommand::Unassignable { job: job.id }
                });
            }
            Ok(())
        }
    }

    let sites = vec![site("a", 8, 1.0, 10.0), site("b", 8, 1.0, 20.0)];
    // At site a: a half-width job, a full-width one blocked behind it, and a short job EASY
    // backfills beside them (FCFS keeps it behind the blocked one).
    let jobs = [
        job(1, 0, 0, 4, 100),
        job(2, 1, 0, 8, 100),
        job(3, 2, 0, 2, 50),
    ];
    let mut home = Home { sites_seen: 0 };
    let out = simulate(&sites, &mut home, &jobs, &config(0)).unwrap();
    assert_eq!(home.sites_seen, sites.len());
    assert!(
        out.jobs
            .iter()
            .all(|j| j.run.is_none_or(|r| r.site == j.job.submission_site))
    );
    let fcfs = GridSim::new(sites.clone(), config(0))
        .unwrap()
        .with_batch_scheduler(BuiltinPolicy::Fcfs)
        .run(&mut Home { sites_seen: 0 }, &jobs)
        .unwrap();
    let wait = |o: &SimOutcome| -> i64 {
        o.jobs
            .iter()
            .filter_map(|j| j.site_wait())
            .map(|w| w.secs())
            .sum()
    };
    // FCFS backfills nothing: the same placements wait longer than under EASY.
    assert_eq!(fcfs.jobs.len(), out.jobs.len());
    assert!(
        wait(&fcfs) > wait(&out),
        "{} <= {}",
        wait(&fcfs),
        wait(&out)
    );
}
