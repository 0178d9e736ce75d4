//! What `converged_site` and `converged_grid` report of a site (one set of columns), so that
//! both tables measure a site alike.

use cosched_core::Duration;
use cosched_site::SiteReport;

use crate::{CommonArgs, Result, Seeds};

/// The options `converged_site` and `converged_grid` share, flattened after each one's own
/// (`#[command(flatten)]`).
///
/// ```
/// use clap::Parser;
/// use cosched_examples::{CommonArgs, converged::ConvergedArgs};
///
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     common: CommonArgs,
///     #[command(flatten)]
///     converged: ConvergedArgs,
/// }
/// let cli = Cli::parse_from(["x", "--quick", "--window-min", "10"]);
/// assert_eq!(cli.converged.window(), cosched_core::Duration::from_mins(10));
/// assert_eq!(cli.converged.seeds(&cli.common)?.count(), 3);
/// # Ok::<(), cosched_examples::Error>(())
/// ```
///
/// `about = None`: clap would otherwise show this comment as the examples' own description.
#[derive(clap::Args, Clone, Debug)]
#[command(about = None, long_about = None)]
pub struct ConvergedArgs {
    /// A lease's window W, minutes.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(0..=10_080))]
    pub window_min: u32,
    /// Seeds (paired replicates) [default: 5, quick: 3].
    #[arg(long, value_name = "N", value_parser = crate::parse_seed_count)]
    pub seeds: Option<u64>,
}

impl ConvergedArgs {
    /// The lease window W.
    pub fn window(&self) -> Duration {
        Duration::from_mins(i64::from(self.window_min))
    }

    /// The seeds: `--seeds` from `--seed`, by default 5 (3 with `--quick`).
    ///
    /// # Errors
    /// [`crate::Error::Flag`] for a count out of range.
    pub fn seeds(&self, common: &CommonArgs) -> Result<Seeds> {
        common.seeds(self.seeds.unwrap_or(if common.quick { 3 } else { 5 }))
    }
}

/// The metric columns of a site, in one order (after each table's own key columns).
pub const SITE_METRICS: [&str; 9] = [
    "on_demand_served_pct",
    "on_demand_mean_wait_s",
    "batch_mean_wait_s",
    "batch_mean_bounded_slowdown",
    "malleable_mean_turnaround_s",
    "scavenged_completed",
    "scavenged_evicted",
    "useful_utilization_pct",
    "cloud_cost_usd",
];

/// Decimals shown for each of [`SITE_METRICS`].
pub const SITE_DECIMALS: [usize; 9] = [2, 1, 0, 2, 0, 0, 0, 2, 2];

/// The values of [`SITE_METRICS`] in a report.
///
/// ```
/// use cosched_examples::converged::{SITE_METRICS, site_metrics};
/// use cosched_site::{Roles, Site, SiteConfig, SiteWorkload};
/// use cosched_core::Time;
///
/// let roles = cosched_site::Configuration::Batch.roles(&Default::default()).unwrap();
/// let report = Site::new(SiteConfig::new(4, Time(60)), roles, SiteWorkload::default())
///     .unwrap()
///     .run()
///     .unwrap();
/// assert_eq!(site_metrics(&report).len(), SITE_METRICS.len());
/// ```
pub fn site_metrics(r: &SiteReport) -> [f64; 9] {
    [
        r.on_demand_served_pct,
        r.on_demand_mean_wait_s,
        r.batch_mean_wait_s,
        r.batch_mean_bounded_slowdown,
        r.malleable_mean_turnaround_s,
        r.scavenged_completed as f64,
        r.revocations.scavenged_evictions as f64,
        r.useful_utilization_pct,
        r.cloud_cost_usd,
    ]
}

/// One row of a findings table: a mechanism's metric minus the baseline's, paired by seed.
pub struct Finding<'a> {
    /// The mechanism (configuration, strategy, …).
    pub mechanism: &'a str,
    /// The metric, with its unit.
    pub metric: &'a str,
    /// The paired differences ([`crate::Replicates::paired`]).
    pub difference: crate::Paired,
    /// Decimals shown.
    pub decimals: usize,
}

/// The findings table of `rows` against `baseline` (key column `key`) over `seeds` seeds,
/// each row with its verdict by [`finding`], the rule stated in the notes (followed by `note`).
pub fn findings_table<'a>(
    name: String,
    title: &str,
    key: &str,
    baseline: &str,
    seeds: u64,
    note: &str,
    rows: impl IntoIterator<Item = Finding<'a>>,
) -> crate::Table {
    use crate::Cell;
    let mut table = crate::Table::new(
        name,
        title,
        [
            key,
            "metric",
            "mean difference",
            "sd",
            "95 % CI half-width",
            "finding",
        ],
    )
    .with_notes(format!(
        "Differences ({key} − {baseline}) of the same seed, over {seeds} seeds. Rule: a \
         difference is significant when the 95 % Student-t interval of the paired differences \
         excludes 0; otherwise \"no significant difference\" (one seed: not assessed).{note}"
    ));
    for f in rows {
        let d = &f.difference.difference;
        let n = f.decimals;
        let na = || Cell::Text("n/a".into());
        table.row([
            Cell::Text(f.mechanism.to_string()),
            Cell::Text(f.metric.to_string()),
            Cell::fixed(d.mean, n),
            d.sd.map_or_else(na, |x| Cell::fixed(x, n)),
            d.ci95_half_width.map_or_else(na, |x| Cell::fixed(x, n)),
            Cell::Text(finding(&f.difference).to_string()),
        ]);
    }
    table
}

/// A findings row's verdict ([`crate::paired`]'s rule, no tolerance): `significantly
/// higher`, `significantly lower`, `no significant difference`, or `not assessed (one seed)`.
///
/// ```
/// use cosched_examples::{Paired, converged::finding};
/// let d = Paired::new(&[7.0, 9.5, 8.0], &[10.0, 12.0, 11.0]).unwrap();
/// assert_eq!(finding(&d), "significantly lower");
/// assert_eq!(finding(&Paired::new(&[7.0], &[10.0]).unwrap()), "not assessed (one seed)");
/// ```
pub fn finding(difference: &crate::Paired) -> &'static str {
    use crate::Significance;
    match difference.significance() {
        _ if !difference.assessed() => "not assessed (one seed)",
        Significance::Higher => "significantly higher",
        Significance::Lower => "significantly lower",
        Significance::NoSignificantDifference => "no significant difference",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Replicates;

    /// A findings table of each verdict: significant both ways, inside the noise, a constant
    /// shift (no spread: the point interval), and one seed (not assessed).
    #[test]
    fn findings_table_snapshot() {
        let base = Replicates::new(vec![10.0, 12.0, 11.0]);
        let cases = [
            ("lower", vec![7.0, 9.5, 8.0]),
            ("higher", vec![12.0, 14.5, 13.0]),
            ("noisy", vec![9.0, 13.5, 11.0]),
            ("shifted", vec![10.5, 12.5, 11.5]),
        ];
        let one_base = Replicates::new(vec![10.0]);
        let one = Replicates::new(vec![4.0]);
        let mut rows: Vec<Finding<'_>> = cases
            .iter()
            .filter_map(|(name, runs)| {
                Some(Finding {
                    mechanism: name,
                    metric: "wait (s)",
                    difference: Replicates::new(runs.clone()).paired(&base, |&x| x)?,
                    decimals: 2,
                })
            })
            .collect();
        rows.extend(one.paired(&one_base, |&x| x).map(|difference| Finding {
            mechanism: "one seed",
            metric: "wait (s)",
            difference,
            decimals: 2,
        }));
        assert_eq!(rows.len(), 5);
        let table = findings_table("findings".into(), "Findings", "config", "base", 3, "", rows);
        insta::assert_snapshot!(table.markdown());
    }
}
