//! The paper's XSEDE setting, from its public repository: `xsede_sites.csv` — one row
//! per system with columns `site_id,name,location,price_file,cores,power_per_core_watts,
//! timezone_lag_hours,gflops_per_core,max_ert_s,max_req_cores` — and the hourly price files it
//! names (a header line, then one $/MWh value per line).
//!
//! Columns map to [`SiteSpec`] as: `cores` → `cores`, `max_req_cores` → `max_job_cores`,
//! `max_ert_s` → `max_walltime`, `power_per_core_watts` → `watts_per_core`,
//! `gflops_per_core`, `timezone_lag_hours`; `site_id` and `location` are not used (sites keep
//! the file's row order, which is the trace's submission-site order).

use crate::site::{PriceAnchor, Site, SiteSpec};
use cosched_core::{Duration, ParamError};
use serde::Deserialize;
use std::path::{Component, Path, PathBuf};
use thiserror::Error;

/// Why the XSEDE files could not be loaded.
#[derive(Debug, Error)]
pub enum XsedeError {
    /// A file could not be read. (The cause is part of the message, not a separate
    /// [`source`](std::error::Error::source), so a printer that walks the chain shows it once.)
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        error: std::io::Error,
    },
    /// A field is missing or malformed (line and column count from 1; the column is the
    /// field's position in the row).
    #[error("{}:{line}: column {column} (`{field}`): {message}", path.display())]
    Field {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// Field number, from 1.
        column: usize,
        /// The column's name.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A row parsed but describes an invalid site.
    #[error("{}:{line}: {error}", path.display())]
    Site {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// The rejected parameter.
        error: ParamError,
    },
    /// A price series supplied in place of a file (a generated stand-in) is invalid.
    #[error("generated prices: {0}")]
    GeneratedPrices(ParamError),
}

impl From<ParamError> for XsedeError {
    fn from(error: ParamError) -> Self {
        XsedeError::GeneratedPrices(error)
    }
}

/// The columns of `xsede_sites.csv`, in order.
const COLUMNS: [&str; 10] = [
    "site_id",
    "name",
    "location",
    "price_file",
    "cores",
    "power_per_core_watts",
    "timezone_lag_hours",
    "gflops_per_core",
    "max_ert_s",
    "max_req_cores",
];

/// Loads the sites of `dir/xsede_sites.csv`, reading each site's price file relative to `dir`.
///
/// # Errors
/// [`XsedeError`] naming the file, line and column of the first problem.
pub fn load_sites(dir: &Path) -> Result<Vec<Site>, XsedeError> {
    let path = dir.join("xsede_sites.csv");
    let text = read(&path)?;
    parse_sites(&path, &text, |file| load_prices(&dir.join(file)))
}

/// One row of `xsede_sites.csv`, typed (columns in [`COLUMNS`] order).
#[derive(Debug, Deserialize)]
struct SiteRow {
    #[allow(dead_code, reason = "read for the column check; sites keep row order")]
    site_id: i64,
    name: String,
    #[allow(dead_code, reason = "descriptive only")]
    location: String,
    price_file: String,
    cores: u32,
    power_per_core_watts: f64,
    timezone_lag_hours: i32,
    gflops_per_core: f64,
    max_ert_s: i64,
    max_req_cores: u32,
}

/// One row of a price file.
#[derive(Debug, Deserialize)]
struct PriceRow {
    price: f64,
}

/// At most 80 characters of `text`, for error messages.
fn echo(text: &str) -> String {
    const MAX: usize = 80;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(MAX).collect::<String>())
    }
}

/// A `csv` error as [`XsedeError::Field`]: `columns` names the fields; `record` is the row
/// (when there is one) to echo the offending field from.
fn field_error(
    path: &Path,
    columns: &[&'static str],
    record: Option<&csv::StringRecord>,
    e: &csv::Error,
) -> XsedeError {
    let line = e
        .position()
        .or_else(|| record.and_then(|r| r.position()))
        .map_or(1, |p| p.line() as usize);
    let (column, message) = match e.kind() {
        csv::ErrorKind::Deserialize { err, .. } => {
            let column = err.field().map_or(0, |f| f as usize);
            let text = record.and_then(|r| r.get(column)).unwrap_or_default();
            let what = match err.kind() {
                csv::DeserializeErrorKind::ParseInt(e) => e.to_string(),
                csv::DeserializeErrorKind::ParseFloat(e) => e.to_string(),
                other => echo(&other.to_string()),
            };
            (column, format!("`{}`: {what}", echo(text)))
        }
        other => (0, echo(&format!("{other:?}"))),
    };
    XsedeError::Field {
        path: path.to_path_buf(),
        line,
        column: column + 1,
        field: columns.get(column).copied().unwrap_or("?"),
        message,
    }
}

/// Parses the text of a site table (named `path` in errors) with the `csv` crate into typed
/// rows, taking each site's hourly prices from `prices(price_file)` — e.g. a file next to the
/// table, another directory, or a model.
///
/// # Errors
/// [`XsedeError`] naming the line and column of the first problem (echoing at most 80
/// characters of the field), or the error of `prices`.
pub fn parse_sites(
    path: &Path,
    text: &str,
    mut prices: impl FnMut(&str) -> Result<Vec<f64>, XsedeError>,
) -> Result<Vec<Site>, XsedeError> {
    let path = path.to_path_buf();
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let header_ok = reader
        .headers()
        .is_ok_and(|h| h.iter().eq(COLUMNS.iter().copied()));
    if !header_ok {
        return Err(XsedeError::Field {
            path,
            line: 1,
            column: 1,
            field: COLUMNS[0],
            message: format!("the header must be `{}`", COLUMNS.join(",")),
        });
    }
    let headers = csv::StringRecord::from(COLUMNS.to_vec());
    let mut sites = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| field_error(&path, &COLUMNS, None, &e))?;
        let line = record.position().map_or(1, |p| p.line() as usize);
        if record.iter().all(str::is_empty) {
            continue;
        }
        if let Some(missing) = (record.len()..COLUMNS.len()).next() {
            return Err(XsedeError::Field {
                path,
                line,
                column: missing + 1,
                field: COLUMNS[missing],
                message: "missing".into(),
            });
        }
        let row: SiteRow = record
            .deserialize(Some(&headers))
            .map_err(|e| field_error(&path, &COLUMNS, Some(&record), &e))?;
        // The price file lies inside the table's folder (`prices/X.csv`): no `..`, no root,
        // so a row cannot read outside it.
        let inside = Path::new(&row.price_file)
            .components()
            .all(|part| matches!(part, Component::Normal(_)));
        if !inside || row.price_file.is_empty() {
            return Err(XsedeError::Field {
                path,
                line,
                column: 4,
                field: COLUMNS[3],
                message: format!(
                    "`{}` must be a relative path inside the table's folder",
                    cosched_core::excerpt(&row.price_file)
                ),
            });
        }
        let spec = SiteSpec {
            prices_usd_per_mwh: prices(&row.price_file)?,
            name: row.name,
            cores: row.cores,
            max_job_cores: row.max_req_cores,
            max_walltime: Duration(row.max_ert_s),
            watts_per_core: row.power_per_core_watts,
            gflops_per_core: row.gflops_per_core,
            timezone_lag_hours: row.timezone_lag_hours,
        };
        let site = spec.build().map_err(|error| XsedeError::Site {
            path: path.clone(),
            line,
            error,
        })?;
        // The shared data's prices are June 2014 from midnight US Eastern (its README).
        sites.push(site.with_price_anchor(PriceAnchor::XSEDE_JUNE_2014));
    }
    Ok(sites)
}

/// Reads an hourly price file with the `csv` crate: a header line, then one $/MWh value per
/// line (blank lines skipped).
///
/// # Errors
/// [`XsedeError::Io`], or [`XsedeError::Field`] for a value that is not a number (at most 80
/// characters of it echoed).
pub fn load_prices(path: &Path) -> Result<Vec<f64>, XsedeError> {
    parse_prices(path, &read(path)?)
}

/// Parses the text of an hourly price file (as [`load_prices`]); `path` names it in errors.
///
/// # Errors
/// [`XsedeError::Field`] for a value that is not a number.
pub fn parse_prices(path: &Path, text: &str) -> Result<Vec<f64>, XsedeError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = csv::StringRecord::from(vec!["price"]);
    let mut out = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| field_error(path, &["price"], None, &e))?;
        if record.iter().all(str::is_empty) {
            continue;
        }
        let row: PriceRow = record
            .deserialize(Some(&headers))
            .map_err(|e| field_error(path, &["price"], Some(&record), &e))?;
        out.push(row.price);
    }
    Ok(out)
}

fn read(path: &Path) -> Result<String, XsedeError> {
    std::fs::read_to_string(path).map_err(|error| XsedeError::Io {
        path: path.to_path_buf(),
        error,
    })
}
