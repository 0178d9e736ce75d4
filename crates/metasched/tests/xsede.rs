//! The XSEDE loader: typed errors on malformed files, and the real setting of
//! `../shared/data/metasched` (an ignored test: `-- --ignored` runs it).

use cosched_core::{Duration, JobId, Time};
use cosched_metasched::policy::{Cycle, GridJob, Mcmf, SubmissionSite};
use cosched_metasched::xsede::{XsedeError, load_prices, load_sites};

#[path = "support/shared.rs"]
mod shared;

const HEADER: &str = "site_id,name,location,price_file,cores,power_per_core_watts,\
                      timezone_lag_hours,gflops_per_core,max_ert_s,max_req_cores";

fn write_setting(rows: &[&str], prices: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut sites = format!("{HEADER}\n");
    for row in rows {
        sites.push_str(row);
        sites.push('\n');
    }
    std::fs::write(dir.path().join("xsede_sites.csv"), sites).unwrap();
    std::fs::write(dir.path().join("p.csv"), prices).unwrap();
    dir
}

#[test]
fn a_good_row_loads() {
    let dir = write_setting(
        &["1,A,Here,p.csv,64,10.5,-1,9.0,3600,32"],
        "\"price\"\n1.5\n2.5\n",
    );
    let sites = load_sites(dir.path()).unwrap();
    assert_eq!(sites.len(), 1);
    let spec = sites[0].spec();
    assert_eq!(
        (spec.name.as_str(), spec.cores, spec.max_job_cores),
        ("A", 64, 32)
    );
    assert_eq!(spec.max_walltime, Duration(3600));
    assert_eq!(spec.prices_usd_per_mwh, [1.5, 2.5]);
    assert_eq!(spec.timezone_lag_hours, -1);
}

#[test]
fn errors_name_file_line_and_column() {
    let cases: [(&[&str], &str, &str); 5] = [
        (
            &["1,A,Here,p.csv,many,10.5,0,9.0,3600,32"],
            "1\n",
            "xsede_sites.csv:2: column 5 (`cores`)",
        ),
        (
            &["1,A,Here,p.csv,64,10.5,0,9.0,3600"],
            "1\n",
            "xsede_sites.csv:2: column 10 (`max_req_cores`): missing",
        ),
        (
            &["1,A,Here,p.csv,64,10.5,0,9.0,3600,32"],
            "h\n1\nx\n",
            "p.csv:3: column 1 (`price`)",
        ),
        (
            &["1,A,Here,p.csv,64,10.5,0,9.0,3600,128"],
            "h\n1\n",
            "xsede_sites.csv:2: invalid parameter `max_job_cores`",
        ),
        (
            &["1,A,Here,nope.csv,64,10.5,0,9.0,3600,32"],
            "h\n1\n",
            "nope.csv: ",
        ),
    ];
    for (rows, prices, expected) in cases {
        let dir = write_setting(rows, prices);
        let message = load_sites(dir.path()).unwrap_err().to_string();
        assert!(message.contains(expected), "{message:?} lacks {expected:?}");
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("xsede_sites.csv"), "id,name\n").unwrap();
    assert!(matches!(
        load_sites(dir.path()),
        Err(XsedeError::Field { line: 1, .. })
    ));
}

#[test]
#[ignore = "needs ../shared/data"]
fn the_real_xsede_setting_loads_and_schedules() {
    let dir = shared::shared_metasched("");
    let sites = load_sites(&dir).unwrap();
    let names: Vec<&str> = sites.iter().map(|s| s.name()).collect();
    assert_eq!(
        names,
        [
            "Blacklight",
            "Darter",
            "Gordon",
            "Trestles",
            "Mason",
            "Lonestar",
            "Queenbee",
            "Steele"
        ]
    );
    for site in &sites {
        assert_eq!(site.spec().prices_usd_per_mwh.len(), 720, "{}", site.name());
    }
    // Tennessee has no market: a flat price.
    assert!(
        sites[1]
            .spec()
            .prices_usd_per_mwh
            .iter()
            .all(|&p| p == 74.0)
    );

    // One job from each site, 64 cores for 10 hours; MaxQ = 2.
    let jobs: Vec<GridJob> = (0..sites.len())
        .map(|k| GridJob::new(JobId(k as u64), k, 64, Duration::from_hours(10)).unwrap())
        .collect();
    let cycle = Cycle {
        now: Time(0),
        jobs: &jobs,
        waits: &no_wait,
    };
    for policy in [
        Mcmf::new(
            sites.clone(),
            2,
            0.5,
            cosched_metasched::policy::PriceModel::DayAhead,
        )
        .unwrap(),
        Mcmf::two_price(sites.clone(), 2, 0.5).unwrap(),
    ] {
        let out = policy.assign(&cycle).unwrap();
        assert_eq!(out.placements.len(), jobs.len());
    }
    let out = SubmissionSite::new(sites).assign(&cycle).unwrap();
    assert_eq!(out.placements.len(), jobs.len());
}

/// Hostile CSV fields: a huge malformed value is echoed at most 80 characters long.
#[test]
fn malformed_fields_are_echoed_briefly() {
    let huge = "9".repeat(10_000) + "x";
    let row = format!("1,A,Here,p.csv,{huge},10.5,0,9.0,3600,32");
    let dir = write_setting(&[&row], "\"price\"\n1\n");
    let message = load_sites(dir.path()).unwrap_err().to_string();
    assert!(
        message.contains("xsede_sites.csv:2: column 5 (`cores`)"),
        "{message}"
    );
    assert!(message.len() < 400, "{} characters", message.len());
    let dir = write_setting(
        &["1,A,Here,p.csv,64,10.5,0,9.0,3600,32"],
        &format!("\"price\"\n1\n{huge}\n"),
    );
    let message = load_sites(dir.path()).unwrap_err().to_string();
    assert!(
        message.contains("p.csv:3: column 1 (`price`)") && message.len() < 400,
        "{message}"
    );
}

/// An error that carries its cause in its message has no separate `source`, so a printer that
/// walks the chain (the examples' `exit`) shows the cause once.
#[test]
fn causes_are_printed_once() {
    let dir = write_setting(&["1,A,Here,p.csv,64,10.5,0,9.0,3600,128"], "h\n1\n");
    let err = load_sites(dir.path()).unwrap_err();
    assert!(std::error::Error::source(&err).is_none());
    assert_eq!(
        err.to_string().matches("invalid parameter").count(),
        1,
        "{err}"
    );
    let missing = load_prices(&dir.path().join("absent.csv")).unwrap_err();
    assert!(std::error::Error::source(&missing).is_none(), "{missing}");
}

/// Every job starts at once (INST's waits).
fn no_wait(_: &GridJob, _: usize, _: Time) -> Duration {
    Duration::ZERO
}
