//! The per-job CSV in Batsim's `_jobs.csv` format, which Batsim's analysis toolkit (evalys)
//! and the scripts written for Batsim read.
//!
//! Columns, in Batsim's order and with Batsim's meaning (Batsim documentation, "Output
//! files: jobs"): `job_id` (the job number of the trace), `workload_name` (the trace's file
//! stem), `profile` (for a trace read from SWF, the run time in seconds: the profile name
//! Batsim's SWF converter and `cosched convert` give a delay job; for a Batsim workload, the
//! job's own profile), `submission_time`, `requested_number_of_resources`, `requested_time`
//! (the estimate), `success` (1 when the job completed normally), `final_state`
//! (`COMPLETED_SUCCESSFULLY`; `COMPLETED_WALLTIME_REACHED` when killed at its estimate;
//! `REJECTED` when larger than the machine), `starting_time`, `execution_time` (finish −
//! start), `finish_time`, `waiting_time`, `turnaround_time`, `stretch` (turnaround / execution
//! time, empty for a job that ran 0 s), `allocated_resources` (the units it held, in Batsim's
//! interval-set notation `0-3 8`, see [`crate::units`]) and `consumed_energy` (-1: energy is
//! not simulated, as Batsim writes without its energy plugin). Times are integer seconds. A
//! rejected job has empty times and no resources. Rows are sorted by job id.

use crate::units::{self, AssignError, Span};
use cosched_core::{JobId, JobRecord, RigidJob};
use std::io::{self, Write};
use thiserror::Error;

/// Batsim's `_jobs.csv` header.
pub const HEADER: &str = "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy";

/// Why the per-job CSV could not be written.
#[derive(Debug, Error)]
pub enum JobsCsvError {
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The schedule has no unit assignment (a simulator bug, reported rather than hidden).
    #[error("cannot name the units each job held: {0}")]
    Units(#[from] AssignError),
    /// A record has no job in the workload.
    #[error("{0} has a result but is not in the workload")]
    UnknownJob(JobId),
}

/// The workload side of the table: jobs and, when the input had them, profile names.
pub struct WorkloadInfo<'a> {
    /// Shown as `workload_name`.
    pub name: &'a str,
    /// The jobs as read.
    pub jobs: &'a [RigidJob],
    /// Profile name per job (same order as `jobs`), for a Batsim input.
    pub profiles: Option<&'a [String]>,
}

/// Writes the table for `records` (one per valid job) of a run on `capacity` units.
pub fn write<W: Write>(
    mut out: W,
    workload: &WorkloadInfo<'_>,
    records: &[JobRecord],
    capacity: u32,
) -> Result<(), JobsCsvError> {
    // Sort compact keys, then gather the records once: sorting references to the records
    // (in completion order) made every comparison a cache miss.
    let mut keys: Vec<(JobId, usize)> =
        records.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
    keys.sort_unstable();
    let records: Vec<JobRecord> = keys.iter().map(|&(_, i)| records[i]).collect();
    let mut by_id: Vec<usize> = (0..workload.jobs.len()).collect();
    // Traces usually list their jobs by id already.
    if !workload.jobs.is_sorted_by_key(|j| j.id) {
        by_id.sort_unstable_by_key(|&i| workload.jobs[i].id);
    }
    let spans: Vec<Option<Span>> = records
        .iter()
        .map(|r| match (r.start, r.end) {
            (Some(start), Some(end)) => Some(Span {
                start,
                end,
                size: r.size,
            }),
            _ => None,
        })
        .collect();
    let units = units::assign(capacity, &spans)?;

    out.write_all(HEADER.as_bytes())?;
    out.write_all(b"\n")?;
    let mut line = String::with_capacity(256);
    let mut int = itoa::Buffer::new();
    let mut float = ryu::Buffer::new();
    let mut cursor = 0;
    for (k, r) in records.iter().enumerate() {
        // Merge join on the job id (both sides sorted).
        while cursor < by_id.len() && workload.jobs[by_id[cursor]].id < r.id {
            cursor += 1;
        }
        let Some(&index) = by_id.get(cursor).filter(|&&i| workload.jobs[i].id == r.id) else {
            return Err(JobsCsvError::UnknownJob(r.id));
        };
        let job = &workload.jobs[index];
        line.clear();
        line.push_str(int.format(r.id.0));
        line.push(',');
        push_field(&mut line, workload.name);
        line.push(',');
        match workload.profiles.and_then(|p| p.get(index)) {
            Some(p) => push_field(&mut line, p),
            None => line.push_str(int.format(job.runtime.0)),
        }
        line.push(',');
        line.push_str(int.format(r.submit.0));
        line.push(',');
        line.push_str(int.format(job.size));
        line.push(',');
        line.push_str(int.format(job.estimate.0));
        line.push(',');
        match (r.start, r.end) {
            (Some(start), Some(end)) => {
                let killed = job.runtime > job.estimate;
                line.push_str(if killed {
                    "0,COMPLETED_WALLTIME_REACHED,"
                } else {
                    "1,COMPLETED_SUCCESSFULLY,"
                });
                let exec = i128::from(end.0) - i128::from(start.0);
                let turnaround = i128::from(end.0) - i128::from(r.submit.0);
                for v in [
                    i128::from(start.0),
                    exec,
                    i128::from(end.0),
                    i128::from(start.0) - i128::from(r.submit.0),
                    turnaround,
                ] {
                    line.push_str(int.format(v));
                    line.push(',');
                }
                if exec > 0 {
                    line.push_str(float.format(turnaround as f64 / exec as f64));
                }
                line.push(',');
                units.write_batsim(k, &mut line);
            }
            _ => line.push_str("0,REJECTED,,,,,,,"),
        }
        line.push_str(",-1\n");
        out.write_all(line.as_bytes())?;
    }
    out.flush()?;
    Ok(())
}

/// Appends a text field, quoted as CSV requires when it holds a comma, quote or line break.
fn push_field(line: &mut String, text: &str) {
    if text.contains([',', '"', '\n', '\r']) {
        line.push('"');
        line.push_str(&text.replace('"', "\"\""));
        line.push('"');
    } else {
        line.push_str(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_core::{Duration, JobClass, Time};

    #[test]
    fn rows_follow_batsim() {
        let job = |id, runtime, estimate, size| {
            RigidJob::new(
                JobId(id),
                Time(0),
                size,
                Duration(runtime),
                Duration(estimate),
            )
            .unwrap()
        };
        let jobs = [job(2, 50, 40, 2), job(1, 10, 20, 1), job(3, 1, 1, 9)];
        let rec = |id, start: Option<i64>, run: i64, size| JobRecord {
            id: JobId(id),
            class: JobClass::Rigid,
            submit: Time(0),
            start: start.map(Time),
            end: start.map(|s| Time(s + run)),
            size,
            runtime: Duration(run),
        };
        let records = [
            rec(2, Some(0), 40, 2),
            rec(1, Some(5), 10, 1),
            rec(3, None, 1, 9),
        ];
        let mut out = Vec::new();
        let info = WorkloadInfo {
            name: "w,0",
            jobs: &jobs,
            profiles: None,
        };
        write(&mut out, &info, &records, 4).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], HEADER);
        assert_eq!(
            lines[1],
            "1,\"w,0\",10,0,1,20,1,COMPLETED_SUCCESSFULLY,5,10,15,5,15,1.5,1,-1"
        );
        assert_eq!(
            lines[2],
            "2,\"w,0\",50,0,2,40,0,COMPLETED_WALLTIME_REACHED,0,40,40,0,40,1.0,2-3,-1"
        );
        assert_eq!(lines[3], "3,\"w,0\",1,0,9,1,0,REJECTED,,,,,,,,-1");
        assert_eq!(lines.len(), 4);
    }
}
