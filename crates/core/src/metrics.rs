//! Per-job records and the summary metrics every report uses.
//!
//! - **wait** = start − submit; **turnaround** = end − submit.
//! - **bounded slowdown** = `max(turnaround / max(run, τ), 1)` with τ = 10 s by default
//!   (Feitelson et al., "Theory and practice in parallel job scheduling", 1997); for a job
//!   that was never preempted, turnaround = wait + run, the usual form.
//! - **utilization** = busy unit-seconds / (capacity × makespan), the makespan running from the
//!   first submission to the last completion; busy unit-seconds are exact (`i128`).
//! - means, the median and the 95th percentile come from [`crate::stats`] (quantiles are R's
//!   type 8, interpolated between order statistics).
//!
//! [`Report`] is the serde-serialisable summary a simulation returns (and the CLI writes as
//! JSON); [`write_jobs_csv`] writes the per-job table.

use crate::{Duration, JobId, Time, stats};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io;

/// The default τ of the bounded slowdown, in seconds.
pub const DEFAULT_SLOWDOWN_TAU: Duration = Duration(10);

/// The kind of a job, for per-class summaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobClass {
    /// Fixed-size job.
    Rigid,
    /// Resizable job.
    Malleable,
    /// Job that must start at arrival.
    OnDemand,
}

impl JobClass {
    /// Every class, in their order.
    pub const ALL: [JobClass; 3] = [JobClass::Rigid, JobClass::Malleable, JobClass::OnDemand];

    /// Lower-case name, as used in reports.
    pub const fn name(self) -> &'static str {
        match self {
            JobClass::Rigid => "rigid",
            JobClass::Malleable => "malleable",
            JobClass::OnDemand => "on_demand",
        }
    }
}

/// What happened to one job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobRecord {
    /// The job.
    pub id: JobId,
    /// Its class.
    pub class: JobClass,
    /// Submission time.
    pub submit: Time,
    /// First start; `None` if it never started (rejected).
    pub start: Option<Time>,
    /// Completion; `None` if it never ended.
    pub end: Option<Time>,
    /// Units it ran on (its requested size).
    pub size: u32,
    /// The run time it needed (the simulated run time), for the slowdown.
    pub runtime: Duration,
}

impl JobRecord {
    /// start − submit, if it started (and the span fits in `i64`).
    pub fn wait(&self) -> Option<Duration> {
        self.start?.checked_since(self.submit)
    }

    /// end − submit, if it ended (and the span fits in `i64`).
    pub fn turnaround(&self) -> Option<Duration> {
        self.end?.checked_since(self.submit)
    }

    /// `max(turnaround / max(runtime, tau), 1)`, if it ended.
    ///
    /// ```
    /// use cosched_core::{Duration, JobClass, JobId, JobRecord, Time, DEFAULT_SLOWDOWN_TAU};
    /// let r = JobRecord { id: JobId(1), class: JobClass::Rigid, submit: Time(0),
    ///     start: Some(Time(95)), end: Some(Time(100)), size: 1, runtime: Duration(5) };
    /// assert_eq!(r.bounded_slowdown(DEFAULT_SLOWDOWN_TAU), Some(10.0)); // 100 / max(5, 10)
    /// ```
    pub fn bounded_slowdown(&self, tau: Duration) -> Option<f64> {
        let turnaround = seconds_between(self.submit, self.end?);
        let denom = self.runtime.0.max(tau.0).max(1) as f64;
        Some((turnaround / denom).max(1.0))
    }
}

/// Summary statistics over a set of completed jobs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Jobs that completed.
    pub jobs: usize,
    /// Mean wait, seconds.
    pub mean_wait_s: f64,
    /// Median wait, seconds.
    pub median_wait_s: f64,
    /// 95th-percentile wait (R type 8, [`crate::stats::quantile`]), seconds.
    pub p95_wait_s: f64,
    /// Longest wait, seconds.
    pub max_wait_s: f64,
    /// Mean turnaround, seconds.
    pub mean_turnaround_s: f64,
    /// Mean bounded slowdown.
    pub mean_bounded_slowdown: f64,
    /// Largest bounded slowdown.
    pub max_bounded_slowdown: f64,
}

impl Summary {
    /// Summarises the completed jobs among `records`.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a JobRecord>, tau: Duration) -> Summary {
        let records = records.into_iter();
        let mut waits = Vec::with_capacity(records.size_hint().0);
        let mut turnarounds = Vec::with_capacity(records.size_hint().0);
        let mut slowdowns = Vec::with_capacity(records.size_hint().0);
        for r in records {
            let (Some(start), Some(end), Some(bsld)) = (r.start, r.end, r.bounded_slowdown(tau))
            else {
                continue;
            };
            waits.push(seconds_between(r.submit, start));
            turnarounds.push(seconds_between(r.submit, end));
            slowdowns.push(bsld);
        }
        let max = |xs: &[f64]| xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (jobs, max_wait_s, mean_wait_s) = (waits.len(), max(&waits), stats::mean(&waits));
        // The quantiles reorder the waits, after everything else has read them.
        let (Some(mean_wait_s), Some([median_wait_s, p95_wait_s])) =
            (mean_wait_s, stats::quantiles(&mut waits, [0.5, 0.95]))
        else {
            return Summary::default();
        };
        Summary {
            jobs,
            mean_wait_s,
            median_wait_s,
            p95_wait_s,
            max_wait_s,
            mean_turnaround_s: stats::mean(&turnarounds).unwrap_or(0.0),
            mean_bounded_slowdown: stats::mean(&slowdowns).unwrap_or(0.0),
            max_bounded_slowdown: max(&slowdowns),
        }
    }
}

/// `to − from` in seconds, exact for any two instants (rounded to the nearest `f64` once, so
/// the `i64` difference, when there is one, converts to the same value as the `i128` one).
#[inline]
fn seconds_between(from: Time, to: Time) -> f64 {
    match to.0.checked_sub(from.0) {
        Some(d) => d as f64,
        None => (i128::from(to.0) - i128::from(from.0)) as f64,
    }
}

/// The outcome of a simulation: counts, utilization and per-class summaries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Units in the system.
    pub capacity: u32,
    /// Valid jobs given to the simulator.
    pub jobs: usize,
    /// Jobs that ran to completion.
    pub completed: usize,
    /// Valid jobs never started (e.g. larger than the capacity).
    pub rejected: usize,
    /// Input records skipped as invalid (e.g. negative run time or size 0).
    pub invalid: usize,
    /// First submission, seconds.
    pub first_submit_s: i64,
    /// Last completion, seconds.
    pub last_end_s: i64,
    /// Sum over jobs of units × time held, including work later lost to preemption (exact:
    /// `i128` holds any capacity × span).
    pub busy_unit_seconds: i128,
    /// busy unit-seconds / (capacity × (last end − first submit)).
    pub utilization: f64,
    /// τ used for the bounded slowdown, seconds.
    pub slowdown_tau_s: i64,
    /// Over all completed jobs.
    pub overall: Summary,
    /// Per job class (`rigid`, `malleable`, `on_demand`), classes with jobs only.
    pub per_class: BTreeMap<String, Summary>,
}

impl Report {
    /// Builds the report for `records` on `capacity` units. `busy_unit_seconds` is the
    /// simulator's count of occupied unit-seconds (it knows about preempted runs the records
    /// do not show).
    pub fn new(
        capacity: u32,
        records: &[JobRecord],
        invalid: usize,
        busy_unit_seconds: i128,
        tau: Duration,
    ) -> Report {
        // One pass for the span, the classes present and the counts.
        let mut first_submit: Option<Time> = None;
        let mut last_end: Option<Time> = None;
        let mut present = [false; JobClass::ALL.len()];
        let (mut completed, mut rejected) = (0, 0);
        for r in records {
            first_submit = Some(first_submit.map_or(r.submit, |t| t.min(r.submit)));
            if let Some(end) = r.end {
                last_end = Some(last_end.map_or(end, |t| t.max(end)));
                completed += 1;
            }
            rejected += usize::from(r.start.is_none());
            present[r.class as usize] = true;
        }
        let first_submit = first_submit.unwrap_or(Time::ZERO);
        let last_end = last_end.unwrap_or(first_submit);
        let makespan = seconds_between(first_submit, last_end);
        let utilization = if makespan > 0.0 && capacity > 0 {
            busy_unit_seconds as f64 / (f64::from(capacity) * makespan)
        } else {
            0.0
        };
        let overall = Summary::of(records, tau);
        let classes: Vec<JobClass> = JobClass::ALL
            .into_iter()
            .filter(|&c| present[c as usize])
            .collect();
        let per_class = classes
            .iter()
            .map(|&class| {
                // With one class its summary is the overall one.
                let summary = if classes.len() == 1 {
                    overall.clone()
                } else {
                    Summary::of(records.iter().filter(|r| r.class == class), tau)
                };
                (class.name().to_string(), summary)
            })
            .collect();
        Report {
            capacity,
            jobs: records.len(),
            completed,
            rejected,
            invalid,
            first_submit_s: first_submit.0,
            last_end_s: last_end.0,
            busy_unit_seconds,
            utilization,
            slowdown_tau_s: tau.0,
            overall,
            per_class,
        }
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a Report always serialises")
    }
}

/// Writes the per-job CSV: columns `job_id,submit,start,end,size`, one row per record sorted by
/// job id, with an empty start and end for a job that never ran (a start at t = -1 is a real
/// time, so no number can mean "never").
pub fn write_jobs_csv<W: io::Write>(out: W, records: &[JobRecord]) -> Result<(), csv::Error> {
    let mut sorted: Vec<&JobRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.id);
    let mut w = csv::Writer::from_writer(out);
    w.write_record(["job_id", "submit", "start", "end", "size"])?;
    for r in sorted {
        w.serialize((
            r.id.0,
            r.submit.0,
            r.start.map(|t| t.0),
            r.end.map(|t| t.0),
            r.size,
        ))?;
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ALL` lists every class once, in their order, each at its discriminant (what
    /// `Report::new` indexes by).
    #[test]
    fn all_classes_in_order_at_their_discriminants() {
        assert!(JobClass::ALL.is_sorted());
        for (i, &class) in JobClass::ALL.iter().enumerate() {
            assert_eq!(class as usize, i);
            // A new class fails to compile here until it is listed in `ALL`.
            match class {
                JobClass::Rigid | JobClass::Malleable | JobClass::OnDemand => {}
            }
        }
    }

    fn rec(id: u64, submit: i64, start: Option<i64>, run: i64, size: u32) -> JobRecord {
        JobRecord {
            id: JobId(id),
            class: JobClass::Rigid,
            submit: Time(submit),
            start: start.map(Time),
            end: start.map(|s| Time(s + run)),
            size,
            runtime: Duration(run),
        }
    }

    #[test]
    fn report_counts_and_utilization() {
        let records = [
            rec(2, 0, Some(0), 100, 2),
            rec(1, 0, Some(100), 100, 4),
            rec(3, 10, None, 50, 99),
        ];
        let busy = 2 * 100 + 4 * 100;
        let r = Report::new(4, &records, 1, busy, DEFAULT_SLOWDOWN_TAU);
        assert_eq!((r.jobs, r.completed, r.rejected, r.invalid), (3, 2, 1, 1));
        assert_eq!(r.last_end_s, 200);
        assert!((r.utilization - 600.0 / 800.0).abs() < 1e-12);
        assert_eq!(r.overall.mean_wait_s, 50.0);
        assert_eq!(r.overall.mean_bounded_slowdown, 1.5);
        assert_eq!(r.per_class["rigid"].jobs, 2);

        let mut csv = Vec::new();
        write_jobs_csv(&mut csv, &records).unwrap();
        assert_eq!(
            String::from_utf8(csv).unwrap(),
            "job_id,submit,start,end,size\n1,0,100,200,4\n2,0,0,100,2\n3,10,,,99\n"
        );
    }

    #[test]
    fn bounded_slowdown_uses_tau_and_floor() {
        let r = rec(1, 0, Some(0), 3, 1);
        assert_eq!(r.bounded_slowdown(DEFAULT_SLOWDOWN_TAU), Some(1.0));
        let r = rec(1, 0, Some(300), 100, 1);
        assert_eq!(r.bounded_slowdown(DEFAULT_SLOWDOWN_TAU), Some(4.0));
    }
}
