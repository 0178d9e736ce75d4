//! One row of figures per policy run: the summary CSV and the comparison table.

use cosched_core::{Duration, JobRecord, Report, stats};
use serde::Serialize;
use std::fmt::Write as _;

/// The summary CSV's columns; scripts depend on the first six (a contract).
pub const COLUMNS: [&str; 18] = [
    "policy",
    "jobs",
    "mean_wait_s",
    "mean_bounded_slowdown",
    "utilization",
    "makespan_s",
    "completed",
    "rejected",
    "invalid",
    "median_wait_s",
    "p95_wait_s",
    "max_wait_s",
    "median_bounded_slowdown",
    "p95_bounded_slowdown",
    "max_bounded_slowdown",
    "mean_turnaround_s",
    "max_queue_jobs",
    "mean_queue_jobs",
];

/// The figures of one run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// The policy's name.
    pub policy: String,
    /// Valid jobs given to the simulator.
    pub jobs: usize,
    /// Mean wait of the completed jobs, seconds.
    pub mean_wait_s: f64,
    /// Mean bounded slowdown of the completed jobs.
    pub mean_bounded_slowdown: f64,
    /// Busy unit-seconds / (capacity × makespan).
    pub utilization: f64,
    /// Last completion − first submission, seconds (exact: the span of two i64 times may
    /// exceed i64).
    pub makespan_s: u64,
    /// Jobs that completed.
    pub completed: usize,
    /// Jobs never started (larger than the machine).
    pub rejected: usize,
    /// Records skipped as invalid.
    pub invalid: usize,
    /// Median wait, seconds.
    pub median_wait_s: f64,
    /// 95th-percentile wait, seconds.
    pub p95_wait_s: f64,
    /// Longest wait, seconds.
    pub max_wait_s: f64,
    /// Median bounded slowdown.
    pub median_bounded_slowdown: f64,
    /// 95th-percentile bounded slowdown.
    pub p95_bounded_slowdown: f64,
    /// Largest bounded slowdown.
    pub max_bounded_slowdown: f64,
    /// Mean turnaround, seconds.
    pub mean_turnaround_s: f64,
    /// Longest queue at a scheduling pass.
    pub max_queue_jobs: usize,
    /// Time-averaged queue length.
    pub mean_queue_jobs: f64,
}

impl Row {
    /// The row of a run of `policy`.
    pub fn new(policy: &str, report: &Report, records: &[JobRecord], queue: (usize, f64)) -> Row {
        let tau = Duration(report.slowdown_tau_s);
        let mut bsld = Vec::with_capacity(records.len());
        bsld.extend(records.iter().filter_map(|r| r.bounded_slowdown(tau)));
        let [median_bsld, p95_bsld] = stats::quantiles(&mut bsld, [0.5, 0.95]).unwrap_or_default();
        let o = &report.overall;
        Row {
            policy: policy.to_string(),
            jobs: report.jobs,
            mean_wait_s: o.mean_wait_s,
            mean_bounded_slowdown: o.mean_bounded_slowdown,
            utilization: report.utilization,
            makespan_s: span_s(report),
            completed: report.completed,
            rejected: report.rejected,
            invalid: report.invalid,
            median_wait_s: o.median_wait_s,
            p95_wait_s: o.p95_wait_s,
            max_wait_s: if o.jobs > 0 { o.max_wait_s } else { 0.0 },
            median_bounded_slowdown: median_bsld,
            p95_bounded_slowdown: p95_bsld,
            max_bounded_slowdown: if o.jobs > 0 {
                o.max_bounded_slowdown
            } else {
                0.0
            },
            mean_turnaround_s: o.mean_turnaround_s,
            max_queue_jobs: queue.0,
            mean_queue_jobs: queue.1,
        }
    }

    /// The row's fields as CSV text, in [`COLUMNS`] order.
    pub fn csv_fields(&self) -> Vec<String> {
        vec![
            self.policy.clone(),
            self.jobs.to_string(),
            self.mean_wait_s.to_string(),
            self.mean_bounded_slowdown.to_string(),
            self.utilization.to_string(),
            self.makespan_s.to_string(),
            self.completed.to_string(),
            self.rejected.to_string(),
            self.invalid.to_string(),
            self.median_wait_s.to_string(),
            self.p95_wait_s.to_string(),
            self.max_wait_s.to_string(),
            self.median_bounded_slowdown.to_string(),
            self.p95_bounded_slowdown.to_string(),
            self.max_bounded_slowdown.to_string(),
            self.mean_turnaround_s.to_string(),
            self.max_queue_jobs.to_string(),
            self.mean_queue_jobs.to_string(),
        ]
    }
}

/// Last completion − first submission of `report`, seconds, exactly (0 if nothing ended).
pub fn span_s(report: &Report) -> u64 {
    u64::try_from(i128::from(report.last_end_s) - i128::from(report.first_submit_s)).unwrap_or(0)
}

/// The summary CSV: `prefix_columns` (e.g. trace, load, seed for an experiment), then
/// [`COLUMNS`].
pub fn to_csv(
    prefix_columns: &[&str],
    rows: &[(Vec<String>, &Row)],
) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(prefix_columns.iter().chain(COLUMNS.iter()))?;
    for (prefix, row) in rows {
        w.write_record(prefix.iter().cloned().chain(row.csv_fields()))?;
    }
    w.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}

/// The comparison table: one line per run, its jobs and the rejected ones (wider than the
/// machine, never started, left out of waits and slowdowns), waits and bounded slowdowns as
/// mean and quantiles, then utilisation and makespan.
pub fn table(label: &str, rows: &[(String, &Row)]) -> String {
    let width = rows
        .iter()
        .map(|(l, _)| l.len())
        .chain([label.len()])
        .max()
        .unwrap_or(0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{label:<width$} {:>8} {:>8} | {:>9} {:>9} {:>9} {:>9} | {:>9} {:>8} {:>8} {:>9} | {:>6} {:>11}",
        "jobs",
        "rejected",
        "wait mean",
        "p50",
        "p95",
        "max",
        "bsld mean",
        "p50",
        "p95",
        "max",
        "util",
        "makespan_s",
    );
    for (l, r) in rows {
        let _ = writeln!(
            s,
            "{l:<width$} {:>8} {:>8} | {:>9.0} {:>9.0} {:>9.0} {:>9.0} | {:>9.2} {:>8.2} {:>8.2} {:>9.1} | {:>6.4} {:>11}",
            r.jobs,
            r.rejected,
            r.mean_wait_s,
            r.median_wait_s,
            r.p95_wait_s,
            r.max_wait_s,
            r.mean_bounded_slowdown,
            r.median_bounded_slowdown,
            r.p95_bounded_slowdown,
            r.max_bounded_slowdown,
            r.utilization,
            r.makespan_s,
        );
    }
    s
}
