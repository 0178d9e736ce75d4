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
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use thiserror::Error;

/// Why the XSEDE files could not be loaded.
#[derive(Debug, Error)]
pub enum XsedeError {
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
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
    #[error("{}:{line}: {source}", path.display())]
    Site {
        /// The file.
        path: PathBuf,
        /// Line number, from 1.
        line: usize,
        /// The rejected parameter.
        source: ParamError,
    },
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

/// Parses the text of a site table (named `path` in errors), taking each site's hourly prices
/// from `prices(price_file)` — e.g. a file next to the table, another directory, or a model.
///
/// # Errors
/// [`XsedeError`] naming the line and column of the first problem, or the error of `prices`.
pub fn parse_sites(
    path: &Path,
    text: &str,
    mut prices: impl FnMut(&str) -> Result<Vec<f64>, XsedeError>,
) -> Result<Vec<Site>, XsedeError> {
    let path = path.to_path_buf();
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, header)) if header.trim().split(',').eq(COLUMNS) => {}
        _ => {
            return Err(XsedeError::Field {
                path,
                line: 1,
                column: 1,
                field: COLUMNS[0],
                message: format!("the header must be `{}`", COLUMNS.join(",")),
            });
        }
    }
    let mut sites = Vec::new();
    for (index, row) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        let line = index + 1;
        let fields: Vec<&str> = row.split(',').map(str::trim).collect();
        let at = Row {
            path: &path,
            line,
            fields: &fields,
        };
        let spec = SiteSpec {
            name: at.text(1)?.to_string(),
            cores: at.parse(4)?,
            max_job_cores: at.parse(9)?,
            max_walltime: Duration(at.parse(8)?),
            watts_per_core: at.parse(5)?,
            gflops_per_core: at.parse(7)?,
            prices_usd_per_mwh: prices(at.text(3)?)?,
            timezone_lag_hours: at.parse(6)?,
        };
        let site = spec.build().map_err(|source| XsedeError::Site {
            path: path.clone(),
            line,
            source,
        })?;
        // The shared data's prices are June 2014 from midnight US Eastern (its README).
        sites.push(site.with_price_anchor(PriceAnchor::XSEDE_JUNE_2014));
    }
    Ok(sites)
}

/// Reads an hourly price file: a header line, then one $/MWh value per line (blank lines
/// skipped).
///
/// # Errors
/// [`XsedeError::Io`], or [`XsedeError::Field`] for a value that is not a number.
pub fn load_prices(path: &Path) -> Result<Vec<f64>, XsedeError> {
    let text = read(path)?;
    text.lines()
        .enumerate()
        .skip(1)
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(index, value)| {
            let fields = [value.trim()];
            Row {
                path,
                line: index + 1,
                fields: &fields,
            }
            .parse_named(0, "price")
        })
        .collect()
}

fn read(path: &Path) -> Result<String, XsedeError> {
    std::fs::read_to_string(path).map_err(|source| XsedeError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// One row being parsed, for errors that name where they are.
struct Row<'a> {
    path: &'a Path,
    line: usize,
    fields: &'a [&'a str],
}

impl Row<'_> {
    fn error(&self, column: usize, field: &'static str, message: String) -> XsedeError {
        XsedeError::Field {
            path: self.path.to_path_buf(),
            line: self.line,
            column: column + 1,
            field,
            message,
        }
    }

    /// The `column`-th field (from 0) of `xsede_sites.csv`, non-empty.
    fn text(&self, column: usize) -> Result<&str, XsedeError> {
        match self.fields.get(column) {
            Some(text) if !text.is_empty() => Ok(text),
            _ => Err(self.error(column, COLUMNS[column], "missing".into())),
        }
    }

    fn parse<T: FromStr>(&self, column: usize) -> Result<T, XsedeError>
    where
        T::Err: Display,
    {
        self.text(column)?;
        self.parse_named(column, COLUMNS[column])
    }

    fn parse_named<T: FromStr>(&self, column: usize, field: &'static str) -> Result<T, XsedeError>
    where
        T::Err: Display,
    {
        let text = self.fields.get(column).copied().unwrap_or_default();
        text.parse()
            .map_err(|e| self.error(column, field, format!("`{text}`: {e}")))
    }
}
