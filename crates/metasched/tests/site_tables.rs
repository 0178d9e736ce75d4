//! Site tables with extreme values in range-checked fields give a clean error, or a
//! simulation whose every reported number is finite (no `inf MWh at a mean $NaN`).

use std::path::Path;

use cosched_core::{Duration, JobId, Time};
use cosched_metasched::metrics::Metrics;
use cosched_metasched::scenario::{Scenario, Strategy as Run};
use cosched_metasched::site::Site;
use cosched_metasched::workload::TraceJob;
use cosched_metasched::xsede::{XsedeError, parse_sites};
use proptest::prelude::*;

const HEADER: &str = "site_id,name,location,price_file,cores,power_per_core_watts,\
                      timezone_lag_hours,gflops_per_core,max_ert_s,max_req_cores";

/// A table of `rows` (the ten columns after the header) with a flat $40/MWh month.
fn table(rows: &[String]) -> Result<Vec<Site>, XsedeError> {
    let text = format!("{HEADER}\n{}\n", rows.join("\n"));
    parse_sites(Path::new("xsede_sites.csv"), &text, |_| {
        Ok(vec![40.0; 24 * 60])
    })
}

/// Two jobs per site, one hour each, a minute apart.
fn jobs(sites: usize) -> Vec<TraceJob> {
    (0..2 * sites)
        .map(|i| TraceJob {
            id: JobId(i as u64 + 1),
            submit: Time(60 * i as i64),
            submission_site: i % sites,
            cores: 1 + (i as u32 % 3),
            runtime: Duration::from_hours(1),
            estimate: Duration::from_hours(2),
        })
        .collect()
}

/// Every number a table reports is finite.
fn check_finite(m: &Metrics) -> Result<(), TestCaseError> {
    let numbers = [
        m.mean_response_s,
        m.mean_holding_s,
        m.total_cost_usd,
        m.cost_per_job_usd,
        m.energy_mwh,
        m.mean_bounded_slowdown,
    ];
    prop_assert!(numbers.iter().all(|x| x.is_finite()), "{m:?}");
    prop_assert!(m.mean_ppe_percent.is_none_or(f64::is_finite), "{m:?}");
    for s in &m.sites {
        let site = [s.utilization, s.mean_load, s.peak_load, s.core_hours];
        prop_assert!(site.iter().all(|x| x.is_finite()), "{s:?}");
    }
    Ok(())
}

/// The hostile-input reproducer: a site drawing 1e308 W per core is refused, naming the field and
/// the line.
#[test]
fn absurd_power_per_core_is_refused_naming_the_line() {
    let ok = "1,A,Here,p.csv,64,10.5,0,9.0,86400,32".to_owned();
    for watts in ["1e308", "inf", "NaN", "-1", "10000.5"] {
        let bad = format!("2,B,There,p.csv,64,{watts},0,9.0,86400,32");
        let err = table(&[ok.clone(), bad]).unwrap_err().to_string();
        assert!(
            err.contains("xsede_sites.csv:3") && err.contains("watts_per_core"),
            "{watts}: {err}"
        );
    }
    for gflops in ["1e308", "1e-300", "0"] {
        let bad = format!("2,B,There,p.csv,64,10,0,{gflops},86400,32");
        let err = table(&[ok.clone(), bad]).unwrap_err().to_string();
        assert!(err.contains("gflops_per_core"), "{gflops}: {err}");
    }
    // At the bounds: accepted, and every reported number of a run is finite.
    let edge = "2,B,There,p.csv,4294967295,10000,0,1e6,86400,4294967295".to_owned();
    let sites = table(&[ok, edge]).unwrap();
    let scenario = Scenario::new(sites.clone(), jobs(sites.len()), 0, Duration(60));
    for strategy in [Run::Bs, Run::Inst, Run::Mcmf] {
        let m = scenario.run(&scenario.config(strategy, 1)).unwrap().metrics;
        check_finite(&m).unwrap();
        assert!(m.energy_mwh > 0.0);
    }
}

/// A numeric field: sane, at a bound, or absurd.
fn value(sane: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        6 => Just(sane.to_owned()),
        1 => Just("0".to_owned()),
        1 => Just("1e308".to_owned()),
        1 => Just("1e-308".to_owned()),
        1 => Just("-1".to_owned()),
        1 => Just("4294967295".to_owned()),
        1 => Just("10000".to_owned()),
        1 => Just("1000000".to_owned()),
        1 => Just("NaN".to_owned()),
        1 => Just("inf".to_owned()),
        1 => (1u32..100_000).prop_map(|v| v.to_string()),
    ]
}

fn row() -> impl Strategy<Value = String> {
    (
        value("64"),
        value("30"),
        prop_oneof![
            Just("0".to_owned()),
            Just("-3".to_owned()),
            Just("23".to_owned())
        ],
        value("10"),
        value("86400"),
        value("32"),
    )
        .prop_map(|(cores, watts, lag, gflops, ert, max_req)| {
            format!("1,S,L,p.csv,{cores},{watts},{lag},{gflops},{ert},{max_req}")
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any site table: a clean error naming the file, or BS, INST and MCMF runs whose every
    /// reported number is finite.
    #[test]
    fn site_tables_give_a_clean_error_or_finite_results(rows in prop::collection::vec(row(), 1..4)) {
        match table(&rows) {
            Err(e) => prop_assert!(e.to_string().contains("xsede_sites.csv"), "{e}"),
            Ok(sites) => {
                let scenario = Scenario::new(sites.clone(), jobs(sites.len()), 0, Duration(60));
                for strategy in [Run::Bs, Run::Inst, Run::Mcmf] {
                    match scenario.run(&scenario.config(strategy, 1)) {
                        // A job longer than the month of prices is a typed error.
                        Err(e) => prop_assert!(e.to_string().contains("price"), "{e}"),
                        Ok(run) => check_finite(&run.metrics)?,
                    }
                }
            }
        }
    }
}
