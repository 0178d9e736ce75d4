//! What `converged_site` and `converged_grid` report of a site (issue 28's columns), so that
//! both tables measure a site alike.

use cosched_site::SiteReport;

/// The metric columns of a site, in the issue's order (after each table's own key columns).
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
