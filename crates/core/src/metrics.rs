//! Per-job records and the summary metrics every report uses.
//!
//! - **wait** = start − submit; **turnaround** = end − submit.
//! - **bounded slowdown** = `max(turnaround / max(run, τ), 1)` with τ = 10 s by default
//!   (Feitelson et al., "Theory and practice in parallel job scheduling", 1997); for a job
//!   that was never preempted, turnaround = wait + run, the usual form.
//! - **utilization** = busy unit-seconds / (capacity × makespan), the makespan running from the
//!   first submission to the last completion.
//!
//! [`Report`] is the serde-serialisable summary a simulation returns (and the CLI writes as
//! JSON); [`write_jobs_csv`] writes the per-job table.

use crate::{Duration, JobId, Time};
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
    /// start − submit, if it started.
    pub fn wait(&self) -> Option<Duration> {
        self.start.map(|s| s - self.submit)
    }

    /// end − submit, if it ended.
    pub fn turnaround(&self) -> Option<Duration> {
        self.end.map(|e| e - self.submit)
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
        let turnaround = self.turnaround()?;
        let denom = self.runtime.0.max(tau.0).max(1) as f64;
        Some((turnaround.0 as f64 / denom).max(1.0))
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
    /// 95th-percentile wait (nearest rank), seconds.
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
        let mut waits = Vec::new();
        let (mut turnaround_sum, mut bsld_sum, mut bsld_max) = (0.0, 0.0, 0.0f64);
        for r in records {
            let (Some(wait), Some(turnaround), Some(bsld)) =
                (r.wait(), r.turnaround(), r.bounded_slowdown(tau))
            else {
                continue;
            };
            waits.push(wait.0);
            turnaround_sum += turnaround.0 as f64;
            bsld_sum += bsld;
            bsld_max = bsld_max.max(bsld);
        }
        let n = waits.len();
        if n == 0 {
            return Summary::default();
        }
        waits.sort_unstable();
        let rank = |q: f64| waits[((q * n as f64).ceil() as usize).clamp(1, n) - 1] as f64;
        Summary {
            jobs: n,
            mean_wait_s: waits.iter().map(|&w| w as f64).sum::<f64>() / n as f64,
            median_wait_s: rank(0.5),
            p95_wait_s: rank(0.95),
            max_wait_s: waits[n - 1] as f64,
            mean_turnaround_s: turnaround_sum / n as f64,
            mean_bounded_slowdown: bsld_sum / n as f64,
            max_bounded_slowdown: bsld_max,
        }
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
    /// Sum over jobs of units × time held, including work later lost to preemption.
    pub busy_unit_seconds: i64,
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
        busy_unit_seconds: i64,
        tau: Duration,
    ) -> Report {
        let first_submit = records.iter().map(|r| r.submit).min().unwrap_or(Time::ZERO);
        let last_end = records
            .iter()
            .filter_map(|r| r.end)
            .max()
            .unwrap_or(first_submit);
        let makespan = (last_end - first_submit).0;
        let utilization = if makespan > 0 && capacity > 0 {
            busy_unit_seconds as f64 / (f64::from(capacity) * makespan as f64)
        } else {
            0.0
        };
        let mut by_class: BTreeMap<JobClass, Vec<JobRecord>> = BTreeMap::new();
        for r in records {
            by_class.entry(r.class).or_default().push(*r);
        }
        Report {
            capacity,
            jobs: records.len(),
            completed: records.iter().filter(|r| r.end.is_some()).count(),
            rejected: records.iter().filter(|r| r.start.is_none()).count(),
            invalid,
            first_submit_s: first_submit.0,
            last_end_s: last_end.0,
            busy_unit_seconds,
            utilization,
            slowdown_tau_s: tau.0,
            overall: Summary::of(records, tau),
            per_class: by_class
                .iter()
                .map(|(c, rs)| (c.name().to_string(), Summary::of(rs, tau)))
                .collect(),
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
