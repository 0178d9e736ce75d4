//! Hostile input for the XSEDE setting's CSVs (`xsede_sites.csv` and the hourly price files):
//! extreme values in every field (empty, huge, negative, NaN/inf, non-UTF-8, very long) give a
//! typed error naming the file, line and column (echoing at most 80 characters), or sites whose
//! every parameter is in range, never a panic.

use std::path::Path;

use cosched_core::{Duration, Time};
use cosched_metasched::xsede::{XsedeError, load_prices, load_sites, parse_sites};
use proptest::prelude::*;

const HEADER: &str = "site_id,name,location,price_file,cores,power_per_core_watts,\
                      timezone_lag_hours,gflops_per_core,max_ert_s,max_req_cores";

/// A number-like field: usually sane, often at the edge of a type, sometimes garbage.
fn number() -> impl Strategy<Value = String> {
    let edge = prop_oneof![
        Just("0"),
        Just("1"),
        Just("-1"),
        Just("23"),
        Just("-24"),
        Just("4294967295"),
        Just("4294967296"),
        Just("2147483648"),
        Just("9223372036854775807"),
        Just("-9223372036854775808"),
        Just("9223372036854775808"),
        Just("NaN"),
        Just("inf"),
        Just("-inf"),
        Just("1e308"),
        Just("-1e308"),
        Just("1e-320"),
        Just("0.5"),
    ]
    .prop_map(str::to_owned);
    let garbage = prop_oneof![
        Just(String::new()),
        Just("\"12\"".to_owned()),
        Just("\"unterminated".to_owned()),
        Just("x".repeat(100_000)),
        Just("9".repeat(5_000)),
        Just("\u{fffd}\u{1F600}".to_owned()),
    ];
    prop_oneof![
        12 => (1u32..200).prop_map(|v| v.to_string()),
        6 => edge,
        1 => garbage,
    ]
}

/// A text field.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[A-Za-z]{1,8}",
        1 => Just(String::new()),
        1 => Just("../../etc/passwd".to_owned()),
        1 => Just("a,b".to_owned()),
        1 => Just("x".repeat(50_000)),
    ]
}

/// A site row: ten fields (sometimes fewer or more).
fn row() -> impl Strategy<Value = String> {
    let fields = (
        number(),
        text(),
        text(),
        text(),
        number(),
        number(),
        number(),
        number(),
        number(),
        number(),
    )
        .prop_map(|(a, b, c, d, e, f, g, h, i, j)| [a, b, c, d, e, f, g, h, i, j].join(","));
    prop_oneof![
        8 => fields,
        1 => prop::collection::vec(number(), 0..13).prop_map(|v| v.join(",")),
    ]
}

/// An error names the file and a line, and is short.
fn check_error(e: &XsedeError, file: &str) -> Result<(), TestCaseError> {
    let text = e.to_string();
    prop_assert!(text.contains(file), "{}", text);
    prop_assert!(
        text.chars().count() < 500,
        "too long: {} chars",
        text.chars().count()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Site tables: a typed error, or sites whose parameters are all in range and whose
    /// costs are finite for any job they accept.
    #[test]
    fn site_tables(rows in prop::collection::vec(row(), 0..5), prices in prop::collection::vec(number(), 0..4)) {
        let mut table = format!("{HEADER}\n");
        for r in &rows {
            table.push_str(r);
            table.push('\n');
        }
        let price_values: Vec<f64> = prices.iter().filter_map(|p| p.parse().ok()).collect();
        let result = parse_sites(Path::new("xsede_sites.csv"), &table, |_| Ok(price_values.clone()));
        match result {
            Err(e) => check_error(&e, "xsede_sites.csv")?,
            Ok(sites) => {
                for site in &sites {
                    let spec = site.spec();
                    prop_assert!(spec.cores >= 1 && (1..=spec.cores).contains(&spec.max_job_cores));
                    prop_assert!(spec.max_walltime > Duration::ZERO);
                    prop_assert!(spec.watts_per_core.is_finite() && spec.gflops_per_core.is_finite());
                    prop_assert!(spec.prices_usd_per_mwh.iter().all(|p| p.is_finite()));
                    prop_assert!((-23..=23).contains(&spec.timezone_lag_hours));
                    // A one-hour job at hour 0 (bounded work whatever the walltime limit).
                    if let Ok(cost) = site.energy_cost_usd(site.power_watts(spec.cores), Time::ZERO, Duration::from_hours(1)) {
                        prop_assert!(cost.is_finite(), "{cost}");
                    }
                    prop_assert!(site.local_hour(i64::MAX / 2) < 24);
                }
            }
        }
    }

    /// Price files: a typed error naming the file, or every value read.
    #[test]
    fn price_files(values in prop::collection::vec(number(), 0..20), crlf in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.csv");
        let nl = if crlf { "\r\n" } else { "\n" };
        let body = format!("\"price\"{nl}{}{nl}", values.join(nl));
        std::fs::write(&path, body).unwrap();
        match load_prices(&path) {
            Err(e) => check_error(&e, "prices.csv")?,
            Ok(read) => prop_assert!(read.len() <= values.len()),
        }
    }
}

/// Files that are not UTF-8, empty, or only a header are typed errors or empty results.
#[test]
fn non_utf8_and_empty_files() {
    let dir = tempfile::tempdir().unwrap();
    let prices = dir.path().join("p.csv");
    std::fs::write(&prices, b"price\n1.0\n\xff\xfe\n").unwrap();
    assert!(matches!(load_prices(&prices), Err(XsedeError::Io { .. })));
    std::fs::write(&prices, b"").unwrap();
    assert_eq!(load_prices(&prices).unwrap(), Vec::<f64>::new());
    std::fs::write(dir.path().join("xsede_sites.csv"), b"\xff\xfe\xfd\n").unwrap();
    assert!(matches!(load_sites(dir.path()), Err(XsedeError::Io { .. })));
    std::fs::write(dir.path().join("xsede_sites.csv"), b"").unwrap();
    assert!(
        load_sites(dir.path()).is_err(),
        "an empty table has no header"
    );
    std::fs::write(dir.path().join("xsede_sites.csv"), format!("{HEADER}\n")).unwrap();
    assert!(load_sites(dir.path()).unwrap().is_empty());
}

/// A site whose prices are missing (an empty price file) is refused, naming the line.
#[test]
fn a_site_without_prices_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("xsede_sites.csv"),
        format!("{HEADER}\n1,A,Here,p.csv,64,10.5,0,9.0,3600,32\n"),
    )
    .unwrap();
    std::fs::write(dir.path().join("p.csv"), "price\n").unwrap();
    let err = load_sites(dir.path()).unwrap_err().to_string();
    assert!(err.contains("xsede_sites.csv:2"), "{err}");
}

/// A `price_file` that leaves the table's folder (`../x.csv`, `a/../../x.csv`, an absolute path)
/// or names nothing is refused, naming the
/// line and column, and nothing outside the table's folder is read (hostile-input review: the
/// traversal guard).
#[test]
fn a_price_file_outside_the_folder_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("sites");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(root.path().join("outside.csv"), "price\n30\n").unwrap();
    let outside = root.path().join("outside.csv");
    for file in [
        "../outside.csv",
        outside.to_str().unwrap(),
        "sub/../../outside.csv",
        ".",
        "",
    ] {
        std::fs::write(
            dir.join("xsede_sites.csv"),
            format!("{HEADER}\n1,A,Here,{file},64,10.5,0,9.0,3600,32\n"),
        )
        .unwrap();
        let err = load_sites(&dir).unwrap_err().to_string();
        assert!(
            err.contains("xsede_sites.csv:2: column 4 (`price_file`)"),
            "{file:?}: {err}"
        );
    }
}
