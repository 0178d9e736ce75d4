//! Hostile inputs (the review's hostile-input report, metasched items): each gives a typed
//! error or a correct result, quickly, and never a panic.

use cosched_core::{Duration, JobId, Time};
use cosched_metasched::metrics::Metrics;
use cosched_metasched::policy::{Mcmf, PredictedWaits, PriceModel, SubmissionSite};
use cosched_metasched::scenario::BuiltinPolicy;
use cosched_metasched::sim::{DataSize, SimConfig, SimError, TransferModel};
use cosched_metasched::site::{MAX_WALLTIME, Site, SiteSpec, try_energy_cost_usd};
use cosched_metasched::workload::TraceJob;

#[path = "support/run.rs"]
mod run;
use run::simulate;

fn site(name: &str, prices: Vec<f64>) -> Result<Site, cosched_core::ParamError> {
    SiteSpec {
        name: name.into(),
        cores: 8,
        max_job_cores: 8,
        max_walltime: Duration::from_hours(10),
        watts_per_core: 100.0,
        gflops_per_core: 1.0,
        prices_usd_per_mwh: prices,
        timezone_lag_hours: 0,
    }
    .build()
}

fn job(id: u64, submit: i64, home: usize, cores: u32) -> TraceJob {
    TraceJob {
        id: JobId(id),
        submit: Time(submit),
        submission_site: home,
        cores,
        runtime: Duration(100),
        estimate: Duration(200),
    }
}

/// #2: a transfer latency of i64::MAX seconds is a typed error, not a wrapped time or a panic.
#[test]
fn an_endless_transfer_is_a_typed_error() {
    let sites = vec![
        site("a", vec![10.0]).unwrap(),
        site("b", vec![1.0]).unwrap(),
    ];
    let mut policy = Mcmf::new(sites.clone(), 2, 0.0, PriceModel::DayAhead)
        .unwrap()
        .with_waits(PredictedWaits::Zero)
        .unwrap();
    let cfg = SimConfig {
        transfer: Some(TransferModel {
            latency: Duration(i64::MAX),
            bandwidth_bytes_per_s: 1.0,
            data: DataSize::Fixed { bytes: 1 },
        }),
        ..SimConfig::default()
    };
    let jobs = [job(1, 0, 0, 4)];
    match simulate(&sites, &mut policy, &jobs, &cfg) {
        // Staying home is the only finite choice; or the migration's time is refused.
        Ok(out) => assert_eq!(out.jobs[0].run.unwrap().site, 0),
        Err(e) => assert!(matches!(e, SimError::Param(_) | SimError::Engine(_)), "{e}"),
    }
}

/// BS and INST over `sites`, boxed.
fn policies(sites: &[Site]) -> [BuiltinPolicy; 2] {
    let inst = Mcmf::new(sites.to_vec(), 2, 0.25, PriceModel::DayAhead)
        .and_then(|m| m.with_waits(PredictedWaits::Zero))
        .unwrap();
    [
        Box::new(SubmissionSite::new(sites.to_vec())),
        Box::new(inst),
    ]
}

/// #8: a job 9e18 s after the first costs work in proportion to the events, not the span:
/// with prices for every hour it runs through (few load samples); with a month of prices it
/// stops at once with a typed error naming the missing hour (never a wrapped-around price).
#[test]
fn a_huge_span_is_cheap() {
    let late = 9_000_000_000_000_000_000;
    let jobs = [job(1, 0, 0, 4), job(2, late, 0, 4)];
    let sites = vec![site("a", vec![10.0; 720]).unwrap()];
    for mut policy in policies(&sites) {
        let err = simulate(&sites, policy.as_mut(), &jobs, &SimConfig::default()).unwrap_err();
        assert!(err.to_string().contains("no day-ahead price"), "{err}");
    }
    // Only the early job: it runs, with a handful of hourly load samples.
    let out = simulate(
        &sites,
        &mut SubmissionSite::new(sites.clone()),
        &jobs[..1],
        &SimConfig::default(),
    )
    .unwrap();
    assert!(out.load.len() <= 2, "{} load samples", out.load.len());
    assert_eq!(Metrics::of(&out, &sites).completed, 1);
}

/// #9: a measured job no site can run is counted as rejected, never dropped.
#[test]
fn a_job_no_site_can_run_is_counted_as_rejected() {
    let sites = vec![site("a", vec![10.0; 48]).unwrap()];
    let jobs = [job(1, 0, 0, 4), job(2, 10, 0, 99)];
    for mut policy in policies(&sites) {
        let out = simulate(&sites, policy.as_mut(), &jobs, &SimConfig::default()).unwrap();
        let m = Metrics::of(&out, &sites);
        assert_eq!((m.jobs, m.completed, m.rejected), (2, 1, 1));
    }
}

/// #13: prices of ±1e308 pass a finiteness check but make costs infinite: refused.
#[test]
fn absurd_prices_are_refused() {
    for p in [1e308, -1e308, f64::NAN] {
        let err = site("a", vec![10.0, p]).unwrap_err();
        assert_eq!(err.name, "prices_usd_per_mwh");
    }
    assert!(site("a", vec![9_000.0, -500.0]).is_ok());
}

/// A live metascheduler appends each day's published prices; the policy then prices hours it
/// could not before, and the anchor maps wall-clock time onto scenario hours.
#[test]
fn day_ahead_prices_can_be_appended_while_the_policy_runs() {
    use cosched_metasched::policy::{Cycle, GridJob};
    use cosched_metasched::site::PriceAnchor;
    let sites: Vec<Site> = ["a", "b"]
        .iter()
        .map(|n| {
            site(n, vec![10.0; 24])
                .unwrap()
                .with_price_anchor(PriceAnchor::XSEDE_JUNE_2014)
        })
        .collect();
    let mut policy = Mcmf::new(sites, 2, 0.0, PriceModel::DayAhead).unwrap();
    let jobs = [GridJob::new(JobId(1), 0, 4, Duration::from_hours(2)).unwrap()];
    let anchor = policy.sites()[0].price_anchor().unwrap();
    let now = anchor.scenario_time(anchor.epoch_unix_s() + 23 * 3_600);
    let cycle = Cycle {
        now,
        jobs: &jobs,
        waits: &|_: &GridJob, _: usize, _: cosched_core::Time| Duration::ZERO,
    };
    assert!(
        policy.assign(&cycle).is_err(),
        "hour 24 is not published yet"
    );
    policy.append_day_ahead(0, &[30.0; 24]).unwrap();
    policy.append_day_ahead(1, &[5.0; 24]).unwrap();
    assert_eq!(policy.assign(&cycle).unwrap().placements[0].site, 1);
    assert!(policy.append_day_ahead(2, &[1.0]).is_err());
    assert!(policy.append_day_ahead(0, &[1e308]).is_err());
}

/// A site table that accepts runs of 9e18 s would let one job's cost integration loop per hour
/// without bound (found by hand: a 9e18 s job hung `metasched_table4`); walltimes are capped
/// at 366 days, and the cost of a run past the known prices stops at the first missing hour.
#[test]
fn endless_walltimes_are_refused_and_missing_prices_stop_the_integration() {
    let mut spec = SiteSpec {
        name: "a".into(),
        cores: 4,
        max_job_cores: 4,
        max_walltime: Duration(i64::MAX),
        watts_per_core: 1.0,
        gflops_per_core: 1.0,
        prices_usd_per_mwh: vec![10.0; 48],
        timezone_lag_hours: 0,
    };
    assert_eq!(spec.clone().build().unwrap_err().name, "max_walltime");
    spec.max_walltime = MAX_WALLTIME;
    assert!(spec.build().is_ok());
    let mut asked = 0;
    let err = try_energy_cost_usd(1.0, Time(0), Duration(i64::MAX), |h| {
        asked += 1;
        if h < 48 { Ok(10.0) } else { Err(h) }
    })
    .unwrap_err();
    assert_eq!((err, asked), (48, 49));
}
