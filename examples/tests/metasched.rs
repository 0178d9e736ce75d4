//! The `metasched_*` examples' shared module: the real-file flags (`--trace`, `--sites`,
//! `--prices`), the history split, strategies and sweeps, on a tiny hand-made setting.

use std::fs;

use cosched_metasched::site::CoreLimit;

use clap::Parser;
use cosched_examples::Seeds;
use cosched_examples::metasched::{
    Averaged, PowerChoice, PriceOutlookModel, RunConfig, SeedScenarios, Strategy, SweepCli,
    WaitModel, sweep,
};

/// Two sites (the second twice as fast and cheaper), price files in their own folder, and a
/// trace of six jobs all submitted at site 1.
fn setting() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("p")).unwrap();
    // Two days of prices (prices never wrap around past the series' end).
    fs::write(
        dir.path().join("p/A.csv"),
        format!("\"price\"\n{}", "40\n80\n".repeat(24)),
    )
    .unwrap();
    fs::write(
        dir.path().join("p/B.csv"),
        format!("\"price\"\n{}", "10\n".repeat(48)),
    )
    .unwrap();
    fs::write(
        dir.path().join("sites.csv"),
        "site_id,name,location,price_file,cores,power_per_core_watts,timezone_lag_hours,\
         gflops_per_core,max_ert_s,max_req_cores\n\
         1,Slow,X,prices/A.csv,16,100,0,1.0,86400,16\n\
         2,Fast,Y,prices/B.csv,16,50,0,2.0,86400,16\n",
    )
    .unwrap();
    let trace: String = (1..=6)
        .map(|i| {
            format!(
                "{i} {} -1 3600 8 -1 -1 8 7200 -1 1 -1 -1 -1 0 -1 -1 -1 1\n",
                i * 60
            )
        })
        .collect();
    fs::write(dir.path().join("grid.swf"), trace).unwrap();
    dir
}

fn cli(dir: &tempfile::TempDir, extra: &[&str]) -> SweepCli {
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let mut args = vec![
        "demo".to_owned(),
        "--trace".into(),
        path("grid.swf"),
        "--sites".into(),
        path("sites.csv"),
        "--prices".into(),
        path("p"),
        "--measured".into(),
        "4".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    SweepCli::parse_from(args)
}

#[test]
fn real_files_by_flag_and_the_history_split() {
    let dir = setting();
    let scenario = cli(&dir, &[]).scenario.scenario(false, 1).unwrap();
    assert_eq!((scenario.jobs.len(), scenario.history), (6, 2));
    assert_eq!(
        scenario.sites[0].spec().prices_usd_per_mwh,
        [40.0, 80.0].repeat(24)
    );
    assert_eq!(scenario.sites[1].spec().prices_usd_per_mwh, [10.0; 48]);
    assert!(
        scenario
            .summary()
            .contains("the first 2 jobs; measured: the last 4")
    );

    let bs = scenario.run(&RunConfig::new(Strategy::Bs, 1)).unwrap();
    let mcmf = scenario.run(&RunConfig::new(Strategy::Mcmf, 1)).unwrap();
    assert_eq!((bs.metrics.jobs, bs.metrics.migrated), (4, 0));
    // The fast, cheap site takes the measured jobs and halves their run.
    assert!(mcmf.metrics.migrated >= 2);
    assert!(mcmf.metrics.total_cost_usd < bs.metrics.total_cost_usd);
    assert!(mcmf.metrics.mean_response_s < bs.metrics.mean_response_s);
    // Deterministic.
    let again = scenario.run(&RunConfig::new(Strategy::Mcmf, 1)).unwrap();
    assert_eq!(again.outcome, mcmf.outcome);

    let all = scenario.measuring_all();
    assert_eq!(
        all.run(&RunConfig::new(Strategy::Bs, 1))
            .unwrap()
            .metrics
            .jobs,
        6
    );
    assert!(all.summary().contains("Every job measured"));
}

#[test]
fn bad_files_and_parameters_are_errors() {
    let dir = setting();
    let mut missing = cli(&dir, &[]);
    missing.scenario.prices = Some(dir.path().join("nonexistent"));
    assert!(missing.scenario.scenario(false, 1).is_err());
    let mut bad_trace = cli(&dir, &[]);
    bad_trace.scenario.trace = Some(dir.path().join("sites.csv"));
    assert!(bad_trace.scenario.scenario(false, 1).is_err());
    let scenario = cli(&dir, &["--cycle-s", "0"])
        .scenario
        .scenario(false, 1)
        .unwrap();
    assert!(scenario.run(&RunConfig::new(Strategy::Mcmf, 1)).is_err());
    // Hostile-input #14d: no measured job is an error, not a table of zeros.
    let mut none = cli(&dir, &[]);
    none.scenario.measured = Some(0);
    assert!(none.scenario.scenario(false, 1).is_err());
    assert!(
        cli(&dir, &["--w-t", "1.5"])
            .scenario
            .scenario(false, 1)
            .is_err()
    );
    // Hostile-input #2: an endless transfer is an error, never a panic or a wrapped time.
    let endless = cli(
        &dir,
        &["--data", "one-tb", "--transfer-s", "9223372036854775807"],
    )
    .scenario
    .scenario(false, 1)
    .unwrap();
    match endless.run(&RunConfig::new(Strategy::Mcmf, 1)) {
        Ok(run) => assert_eq!(run.metrics.migrated, 0),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

#[test]
fn the_paper_configuration_is_the_default_and_every_parameter_a_flag() {
    let dir = setting();
    let scenario = cli(&dir, &[]).scenario.scenario(false, 1).unwrap();
    let c = scenario.config(Strategy::Mcmf, 1);
    assert_eq!((c.w_t, c.max_q), (0.25, 2));
    assert_eq!(scenario.cycle, cosched_core::Duration(60));
    assert!(
        scenario
            .sites
            .iter()
            .all(|s| s.core_limit() == CoreLimit::TotalCores)
    );
    let flagged = cli(
        &dir,
        &[
            "--w-t",
            "0.4",
            "--max-q",
            "5",
            "--cycle-s",
            "300",
            "--compat",
            "max-request",
        ],
    )
    .scenario
    .scenario(false, 1)
    .unwrap();
    let c = flagged.config(Strategy::Mcmf, 1);
    assert_eq!((c.w_t, c.max_q), (0.4, 5));
    assert_eq!(flagged.cycle, cosched_core::Duration(300));
    assert!(
        flagged
            .sites
            .iter()
            .all(|s| s.core_limit() == CoreLimit::MaxRequest)
    );
}

#[test]
fn sweeps_average_seeds_against_one_baseline() {
    let dir = setting();
    let scenario = cli(&dir, &[]).scenario.scenario(false, 1).unwrap();
    let points: Vec<(f64, RunConfig)> = [0.0, 1.0]
        .iter()
        .map(|&participation| {
            (
                participation,
                RunConfig {
                    participation,
                    ..RunConfig::new(Strategy::Mcmf, 1)
                },
            )
        })
        .collect();
    let scenarios = SeedScenarios::build(&Seeds::new(1, 3).unwrap(), |_| {
        Ok::<_, std::convert::Infallible>(scenario.clone())
    })
    .unwrap();
    let result = sweep(&scenarios, "test", &points).unwrap();
    let bs = scenario.run(&RunConfig::new(Strategy::Bs, 1)).unwrap();
    let key = |a: &Averaged| (a.response_s, a.cost_usd, a.migrated);
    assert_eq!(key(&result.baseline), key(&Averaged::of([&bs.metrics])));
    assert_eq!(result.baseline.response_spread.map(|s| s.n), Some(3));
    assert_eq!((result.baseline_runs.len(), result.runs.len()), (3, 2));
    assert_eq!(result.runs_at(1.0).map(<[_]>::len), Some(3));
    // Nobody in the grid is BS again; everybody is the full MCMF run.
    assert_eq!(key(&result.points[0].1), key(&result.baseline));
    let full = scenario.run(&points[1].1).unwrap();
    assert_eq!(
        key(&result.points[1].1),
        key(&Averaged::of([&full.metrics]))
    );
}

#[test]
fn the_paper_predictors_are_the_default_and_the_others_a_flag_away() {
    let dir = setting();
    let scenario = cli(&dir, &[]).scenario.scenario(false, 1).unwrap();
    let paper = scenario.config(Strategy::Mcmf, 1);
    assert_eq!(
        (paper.waits, paper.price_outlook),
        (WaitModel::Paper, PriceOutlookModel::Forecast)
    );
    assert_eq!(paper, RunConfig::new(Strategy::Mcmf, 1));
    assert_eq!(paper.predictors(), "learned waits, forecast prices");
    let other = cli(&dir, &["--waits", "whatif", "--price-outlook", "day-ahead"])
        .scenario
        .scenario(false, 1)
        .unwrap()
        .config(Strategy::Mcmf, 1);
    assert_eq!(
        (other.waits, other.price_outlook),
        (WaitModel::Whatif, PriceOutlookModel::DayAhead)
    );
    assert_eq!(other.predictors(), "what-if waits, true prices");
    // MCMF told that no site has a wait is INST.
    let zero = RunConfig {
        waits: WaitModel::Zero,
        ..paper
    };
    let inst = scenario.run(&scenario.config(Strategy::Inst, 1)).unwrap();
    assert_eq!(scenario.run(&zero).unwrap().outcome, inst.outcome);
    // Every combination runs every measured job.
    for waits in [WaitModel::Paper, WaitModel::Whatif, WaitModel::Zero] {
        for price_outlook in [PriceOutlookModel::Forecast, PriceOutlookModel::DayAhead] {
            let run = scenario
                .run(&RunConfig {
                    waits,
                    price_outlook,
                    ..paper
                })
                .unwrap();
            assert_eq!(run.metrics.completed, 4, "{waits:?} {price_outlook:?}");
        }
    }
}

#[test]
fn hostile_flags_are_refused_before_anything_is_allocated() {
    // Seeds: 1..=1000, checked by the parser.
    for bad in ["0", "1001", "18446744073709551615"] {
        let parsed = SweepCli::try_parse_from(["demo", "--seeds", bad]);
        assert!(parsed.is_err(), "--seeds {bad}");
    }
    // Choices by name.
    assert!(SweepCli::try_parse_from(["demo", "--waits", "psychic"]).is_err());
    assert_eq!(
        SweepCli::try_parse_from(["demo", "--power", "average", "--price-outlook", "day-ahead"])
            .unwrap()
            .scenario
            .power,
        PowerChoice::Average
    );
    // A generated workload larger than the cap is a typed error, not an allocation.
    let huge = SweepCli::try_parse_from(["demo", "--generated", "--jobs", "100000000000"]).unwrap();
    let err = huge.scenario.scenario(false, 1).unwrap_err();
    assert!(err.to_string().contains("jobs"), "{err}");
}

/// Without file flags the scenario is the paper's vendored XSEDE inputs (the site table, the
/// June 2014 prices, the grid trace); `--generated` and `--diurnal-prices` switch to ours.
#[test]
fn the_paper_inputs_are_the_default_and_the_generators_are_labelled_ours() {
    let cli = SweepCli::parse_from(["x"]);
    // Quick: the trace's first 500 jobs and 100 generated after them, every job measured.
    let scenario = cli.scenario.scenario(true, 1).unwrap();
    assert_eq!((scenario.jobs.len(), scenario.history), (600, 0));
    assert!(scenario.summary().contains("quick mode's smaller set"));
    assert!(cli.scenario.draws_jobs(true) && cli.scenario.draws_jobs(false));
    assert_eq!(scenario.sites.len(), 8);
    assert!(
        scenario
            .summary()
            .contains("the paper's June 2014 day-ahead prices (vendored)")
    );
    assert!(
        scenario
            .summary()
            .contains("the paper's XSEDE grid trace (vendored)")
    );
    let first = cosched_metasched::workload::paper_grid_trace(8).unwrap()[0];
    assert_eq!(scenario.jobs[0], first);
    let ours = SweepCli::parse_from(["x", "--generated", "--diurnal-prices"]);
    let ours = ours.scenario.scenario(true, 1).unwrap();
    assert!(ours.summary().contains("ours: generated"));
    assert!(ours.summary().contains("ours: seeded diurnal"));
    assert!(SweepCli::try_parse_from(["x", "--generated", "--trace", "t.swf"]).is_err());
}

/// The paper's measurement by default (§4.3.2 Table 2, §5.3: 10,000 jobs, every one measured,
/// the 4,100-job trace extended by jobs generated after it, a different draw per seed); the
/// published code's sample (the last 100 after a history) and the trace alone by flag.
#[test]
fn every_one_of_the_papers_ten_thousand_jobs_is_measured() {
    let cli = SweepCli::parse_from(["x"]);
    let one = cli.scenario.scenario(false, 1).unwrap();
    assert_eq!((one.jobs.len(), one.history), (10_000, 0));
    assert!(one.summary().contains("Every job measured"));
    let trace = cosched_metasched::workload::paper_grid_trace(8).unwrap();
    assert_eq!(one.jobs[..trace.len()], trace[..]);
    let two = cli.scenario.scenario(false, 2).unwrap();
    assert_eq!(two.jobs[..trace.len()], trace[..]);
    assert_ne!(one.jobs[trace.len()..], two.jobs[trace.len()..]);
    let scenarios = cli
        .scenario
        .scenarios(false, &Seeds::new(1, 2).unwrap())
        .unwrap();
    assert_eq!(scenarios.get(2).unwrap().jobs, two.jobs);
    assert!(scenarios.get(3).is_err());
    // The published code's sample and the trace alone.
    let sample = SweepCli::parse_from(["x", "--measured", "100", "--extend-to", "4100"]);
    assert!(!sample.scenario.draws_jobs(false));
    let sample = sample.scenario.scenario(false, 1).unwrap();
    assert_eq!((sample.jobs.len(), sample.history), (4_100, 4_000));
    // A given trace is not extended unless asked.
    assert_eq!(
        SweepCli::parse_from(["x", "--trace", "t.swf"])
            .scenario
            .extension(false),
        None
    );
}

#[test]
fn paired_comparisons_follow_the_stated_significance_rule() {
    use cosched_examples::metasched::{Paired, Significance};
    // A consistent per-seed gap is significant even when the seeds' levels vary a lot.
    let a = [100.0, 210.0, 305.0, 398.0];
    let b = [110.0, 220.0, 316.0, 409.0];
    let p = Paired::tolerant(&a, &b, 0.05).unwrap();
    assert_eq!(p.significance(), Significance::Lower);
    assert!(p.lower() && !p.higher());
    // The same means with the sign of the gap flipping: inside the noise.
    let b = [90.0, 230.0, 295.0, 420.0];
    let p = Paired::tolerant(&a, &b, 0.05).unwrap();
    assert_eq!(p.significance(), Significance::NoSignificantDifference);
    assert!(
        p.describe_percent().contains("no significant difference"),
        "{}",
        p.describe_percent()
    );
    // Runs that do not vary: the tolerance decides.
    let p = Paired::tolerant(&[10.0, 10.0], &[10.04, 10.04], 0.05).unwrap();
    assert_eq!(p.significance(), Significance::NoSignificantDifference);
    let p = Paired::tolerant(&[10.0], &[10.2], 0.05).unwrap();
    assert_eq!(p.significance(), Significance::Lower);
    assert!(p.within_percent(5.0) && !p.within_percent(1.0));
    // Unpaired or empty inputs are refused.
    assert!(Paired::tolerant(&[1.0, 2.0], &[1.0], 0.05).is_none());
    assert!(Paired::tolerant(&[], &[], 0.05).is_none());
}
