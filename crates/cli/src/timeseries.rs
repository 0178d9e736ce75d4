//! Utilisation, queue length and running jobs over time, from a run's events.
//!
//! The three quantities are step functions that change only at submissions, starts and ends;
//! one sweep over those events integrates them exactly into bins of the chosen resolution,
//! so each value is the time average over its bin (not a sample), and the work is
//! `O(jobs log jobs + bins)` whatever the resolution.

use cosched_core::JobRecord;
use serde::Serialize;
use std::fmt::Write as _;
use thiserror::Error;

/// The most bins a series may have (so memory follows the trace, not a user's number).
pub const MAX_BINS: u64 = 1_000_000;

/// The resolutions [`auto_resolution`] picks from, seconds.
const NICE: [i64; 13] = [
    1, 10, 60, 300, 600, 1800, 3600, 7200, 21_600, 43_200, 86_400, 604_800, 2_592_000,
];

/// A resolution giving too many bins.
#[derive(Debug, Error, PartialEq, Eq)]
#[error(
    "a resolution of {resolution_s} s gives {bins} bins over {span_s} s (at most {MAX_BINS}); choose a coarser --resolution"
)]
pub struct TooManyBins {
    /// The resolution asked for.
    pub resolution_s: i64,
    /// Bins it would give.
    pub bins: u64,
    /// The span covered.
    pub span_s: u64,
}

/// Time-averaged values per bin; bin `k` covers `[start_s + k·resolution_s, … + resolution_s)`
/// cut to the run's span (first submission to last completion).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    /// Start of the first bin, seconds.
    pub start_s: i64,
    /// Bin width, seconds.
    pub resolution_s: i64,
    /// Busy units / capacity.
    pub utilization: Vec<f64>,
    /// Jobs waiting in the queue.
    pub queue_jobs: Vec<f64>,
    /// Jobs running.
    pub running_jobs: Vec<f64>,
}

/// The smallest of a few round resolutions that gives at most about 2,000 bins over
/// `span_s`.
pub fn auto_resolution(span_s: u64) -> i64 {
    let span = span_s.max(1);
    NICE.iter()
        .copied()
        .find(|&r| span / r.unsigned_abs() <= 2_000)
        .unwrap_or_else(|| i64::try_from(span / 2_000 + 1).unwrap_or(i64::MAX))
}

/// The series of `records` (rejected jobs, never queued, are left out) on `capacity` units.
pub fn compute(
    records: &[JobRecord],
    capacity: u32,
    resolution_s: i64,
) -> Result<Series, TooManyBins> {
    // (time, queue change, running change, busy change)
    let mut events: Vec<(i64, i64, i64, i64)> = Vec::with_capacity(records.len() * 3);
    for r in records {
        let (Some(start), Some(end)) = (r.start, r.end) else {
            continue;
        };
        let size = i64::from(r.size);
        events.push((r.submit.0, 1, 0, 0));
        events.push((start.0, -1, 1, size));
        events.push((end.0, 0, -1, -size));
    }
    events.sort_unstable_by_key(|e| e.0);
    let resolution = resolution_s.max(1);
    let (Some(first), Some(last)) = (events.first(), events.last()) else {
        return Ok(Series {
            start_s: 0,
            resolution_s: resolution,
            utilization: Vec::new(),
            queue_jobs: Vec::new(),
            running_jobs: Vec::new(),
        });
    };
    let (t0, t1) = (first.0, last.0);
    let span = i128::from(t1) - i128::from(t0);
    let bins = ((span + i128::from(resolution) - 1) / i128::from(resolution)).max(1) as u64;
    if bins > MAX_BINS {
        return Err(TooManyBins {
            resolution_s: resolution,
            bins,
            span_s: u64::try_from(span).unwrap_or(u64::MAX),
        });
    }
    let bins = bins as usize;
    let mut area = vec![[0f64; 3]; bins];
    let (mut queue, mut running, mut busy) = (0i64, 0i64, 0i64);
    let mut i = 0;
    while i < events.len() {
        let now = events[i].0;
        while i < events.len() && events[i].0 == now {
            queue += events[i].1;
            running += events[i].2;
            busy += events[i].3;
            i += 1;
        }
        let Some(&(next, ..)) = events.get(i) else {
            break;
        };
        // Spread the constant values over [now, next) into the bins they cross.
        let mut a = i128::from(now) - i128::from(t0);
        let b = i128::from(next) - i128::from(t0);
        while a < b {
            let k = (a / i128::from(resolution)) as usize;
            let bin_end = (k as i128 + 1) * i128::from(resolution);
            let until = bin_end.min(b);
            let dt = (until - a) as f64;
            area[k][0] += busy as f64 * dt;
            area[k][1] += queue as f64 * dt;
            area[k][2] += running as f64 * dt;
            a = until;
        }
    }
    let mut series = Series {
        start_s: t0,
        resolution_s: resolution,
        utilization: Vec::with_capacity(bins),
        queue_jobs: Vec::with_capacity(bins),
        running_jobs: Vec::with_capacity(bins),
    };
    for (k, [busy, queue, running]) in area.into_iter().enumerate() {
        let from = k as i128 * i128::from(resolution);
        let width = (from + i128::from(resolution)).min(span.max(1)) - from;
        let width = width.max(1) as f64;
        series
            .utilization
            .push(busy / width / f64::from(capacity.max(1)));
        series.queue_jobs.push(queue / width);
        series.running_jobs.push(running / width);
    }
    Ok(series)
}

impl Series {
    /// When bin `k` starts, seconds (in i128: `start_s + k × resolution_s` of a bin past the
    /// last one may not fit i64).
    pub fn bin_start(&self, k: usize) -> i128 {
        i128::from(self.start_s) + k as i128 * i128::from(self.resolution_s)
    }

    /// CSV rows `label,time_s,utilization,queue_jobs,running_jobs` (no header).
    pub fn write_csv_rows(&self, label: &str, out: &mut String) {
        for k in 0..self.utilization.len() {
            let _ = writeln!(
                out,
                "{label},{},{},{},{}",
                self.bin_start(k),
                self.utilization[k],
                self.queue_jobs[k],
                self.running_jobs[k]
            );
        }
    }
}

/// The CSV header of [`Series::write_csv_rows`].
pub const CSV_HEADER: &str = "policy,time_s,utilization,queue_jobs,running_jobs\n";

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_core::{Duration, JobClass, JobId, Time};
    use proptest::prelude::*;

    proptest! {
        /// At any resolution the bins integrate to the busy unit-seconds of the records, so
        /// the series agree with the report's utilisation.
        #[test]
        fn bins_integrate_to_the_busy_unit_seconds(
            raw in prop::collection::vec((0i64..500, 0i64..100, 0i64..100, 1u32..8), 1..30),
            resolution in 1i64..200,
        ) {
            let records: Vec<JobRecord> = raw
                .iter()
                .enumerate()
                .map(|(i, &(submit, wait, run, size))| {
                    rec(i as u64, submit, submit + wait, submit + wait + run, size)
                })
                .collect();
            let s = compute(&records, 8, resolution).unwrap();
            let first = records.iter().map(|r| r.submit.0).min().unwrap();
            let last = records.iter().filter_map(|r| r.end).map(|t| t.0).max().unwrap();
            let span = last - first;
            let area: f64 = s
                .utilization
                .iter()
                .enumerate()
                .map(|(k, u)| {
                    let from = k as i64 * resolution;
                    let width = ((from + resolution).min(span.max(1)) - from).max(1);
                    u * width as f64 * 8.0
                })
                .sum();
            let busy: i64 = records.iter().map(|r| i64::from(r.size) * r.runtime.0).sum();
            prop_assert!((area - busy as f64).abs() < 1e-6 * busy.max(1) as f64, "{} vs {}", area, busy);
        }
    }

    fn rec(id: u64, submit: i64, start: i64, end: i64, size: u32) -> JobRecord {
        JobRecord {
            id: JobId(id),
            class: JobClass::Rigid,
            submit: Time(submit),
            start: Some(Time(start)),
            end: Some(Time(end)),
            size,
            runtime: Duration(end - start),
        }
    }

    #[test]
    fn bins_hold_time_averages_and_match_the_overall_utilisation() {
        // Two units. Job 1 runs 0..100 on both; job 2 waits 0..100 then runs 100..150 on one.
        let records = [rec(1, 0, 0, 100, 2), rec(2, 0, 100, 150, 1)];
        let s = compute(&records, 2, 100).unwrap();
        assert_eq!(s.utilization, [1.0, 0.5]);
        assert_eq!(s.queue_jobs, [1.0, 0.0]);
        assert_eq!(s.running_jobs, [1.0, 1.0]);
        let fine = compute(&records, 2, 1).unwrap();
        assert_eq!(fine.utilization.len(), 150);
        let busy: f64 = fine.utilization.iter().sum::<f64>() * 2.0;
        assert_eq!(busy, 250.0);
        let err = compute(&[rec(1, 0, 0, i64::MAX / 2, 1)], 1, 1).unwrap_err();
        assert!(err.to_string().contains("coarser --resolution"));
        assert_eq!(auto_resolution(86_400 * 365), 21_600);
    }
}
