//! Table I of the paper (§III-A), the real-life scenario: its ten configurations with the
//! paper's values, the week it runs (LCRC 2015-04-05, preloaded from 2015-03-29, beside the APS
//! stand-in) and the models calibrated on its baseline rows. What the `balancer_table1` and
//! `balancer_weeks` examples and the Python package run.

use crate::report::SimReport;
use crate::scenario::{Arm, Scenario};
use cosched_core::Duration;

/// Table I's LCRC week: the one the paper's public artifact replays
/// (`run_workload.py … /weekly_trace/2015-04-05/`; see `examples/data/balancer/PROVENANCE.md`).
pub const PAPER_WEEK: &str = "2015-04-05";
/// The week before it, whose still-running jobs preload the cluster (§III-A).
pub const PAPER_PREVIOUS_WEEK: &str = "2015-03-29";
/// The APS week standing in for the paper's (whose 2015-04-05 file is in no public copy): the
/// vendored week nearest Table I's stated lease facts under the fitted VM lifecycle, as
/// the `balancer_table1` example computes (and checks against this constant) on every run. It is the
/// on-demand base of Figures 2-5 too ("the challenging week's" leases, §III-B2).
pub const STAND_IN_WEEK: &str = "2015-07-19";
/// The APS weeks before the stand-in, oldest first: the Predictive algorithm's offline
/// training (§III-B5: five weeks, its month of history).
pub const HISTORY_FILES: [&str; 5] = [
    "2015-06-14",
    "2015-06-21",
    "2015-06-28",
    "2015-07-05",
    "2015-07-12",
];
/// The VM linger fitted with the stand-in (seconds; ours, calibration on the stated facts: 142
/// leases, rho 1.20 % within the week, 13 requests in the busiest 60 s against 141, 1.25 %, 11;
/// no lifecycle meets the peak on this week, see `examples/data/balancer/PROVENANCE.md`).
pub const FITTED_LINGER_S: i64 = 480;
/// Torque's start latency calibrated on Table I's baseline rows (trace seconds; 0.23 s of
/// real time at 60x), as the `balancer_table1` example computes (and checks against this constant).
pub const TESTBED_START_LATENCY_S: i64 = 14;

/// The LCRC batch cluster's nodes (§III-A).
pub const BATCH_NODES: u32 = 304;
/// The APS on-demand cluster modelled as 16-core nodes (§III-A).
pub const ON_DEMAND_NODES: u32 = 68;

/// One configuration of Table I, with the paper's values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Column {
    /// `all-batch`, `split` or `dynamic`.
    pub config: &'static str,
    /// Dedicated on-demand nodes (static) or the reserve `R` (dynamic).
    pub r: u32,
    /// `W`, minutes.
    pub w_min: i64,
    /// The paper's mean batch wait, minutes.
    pub paper_wait_min: Option<f64>,
    /// The paper's rejections.
    pub paper_rejections: u32,
    /// The paper's combined utilisation, percent.
    pub paper_combined_util: f64,
}

/// Table I's columns: the static baselines (all-batch, the 304 + 68 split, all on-demand) and
/// the seven dynamic `(R, W)` configurations, with the paper's values.
pub const COLUMNS: [Column; 10] = [
    col("all-batch", 0, 0, Some(122.5), 141, 84.4),
    col("split", ON_DEMAND_NODES, 0, Some(1002.8), 0, 80.1),
    col("split", BATCH_NODES + ON_DEMAND_NODES, 0, None, 0, 1.25),
    col("dynamic", 0, 0, Some(122.0), 30, 84.9),
    col("dynamic", 0, 5, Some(147.0), 3, 85.7),
    col("dynamic", 0, 10, Some(147.0), 3, 85.7),
    col("dynamic", 6, 0, Some(150.0), 1, 85.3),
    col("dynamic", 6, 5, Some(140.6), 1, 85.3),
    col("dynamic", 6, 10, Some(150.4), 0, 85.3),
    col("dynamic", 12, 0, Some(130.0), 0, 85.3),
];

const fn col(
    config: &'static str,
    r: u32,
    w_min: i64,
    paper_wait_min: Option<f64>,
    paper_rejections: u32,
    paper_combined_util: f64,
) -> Column {
    Column {
        config,
        r,
        w_min,
        paper_wait_min,
        paper_rejections,
        paper_combined_util,
    }
}

/// The all-batch column (the wait's lower bound).
pub const ALL_BATCH: Column = COLUMNS[0];
/// The 304 + 68 split (the existing arrangement).
pub const SPLIT: Column = COLUMNS[1];

impl Column {
    /// The arm this column runs on `scenario`'s cluster.
    pub fn arm(&self, scenario: &Scenario) -> Arm {
        let w = Duration::from_mins(self.w_min);
        match self.config {
            "all-batch" => Arm::all_batch(),
            "split" if self.r >= scenario.nodes => scenario.all_on_demand(w),
            "split" => Arm::dedicated(self.r, w),
            _ => scenario.basic(self.r, w),
        }
    }

    /// A short label: `all-batch`, `split`, `all-OD`, `R=6 W=5`.
    pub fn label(&self) -> String {
        match self.config {
            "dynamic" => format!("R={} W={}", self.r, self.w_min),
            "split" if self.r > ON_DEMAND_NODES => "all-OD".to_owned(),
            c => c.to_owned(),
        }
    }
}

/// A week's mean batch wait, minutes.
pub fn wait_min(r: &SimReport) -> f64 {
    r.batch.overall.mean_wait_s / 60.0
}
