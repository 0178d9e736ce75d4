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
use cosched_core::{JobId, JobRecord, RigidJob, Time};
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
    let rows = rows_by_id(records);
    // Traces usually list their jobs by id already.
    let by_id = (!workload.jobs.is_sorted_by_key(|j| j.id))
        .then(|| id_order(workload.jobs.iter().map(|j| j.id)));
    let job_at = |c: usize| by_id.as_ref().map_or(Some(c), |v| v.get(c).copied());
    let units = units::assign_by(capacity, &rows, |r| r.and_then(|r| r.span))?;

    // Rows are formatted into one buffer, handed to `out` in large blocks.
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK + 4096);
    buf.extend_from_slice(HEADER.as_bytes());
    buf.push(b'\n');
    let mut name = Vec::new();
    push_field(&mut name, workload.name);
    let mut int = itoa::Buffer::new();
    let mut float = ryu::Buffer::new();
    let mut cursor = 0;
    for (slot, r) in rows.iter().enumerate() {
        let Some(r) = r else { continue };
        // Merge join on the job id (both sides sorted).
        while job_at(cursor).is_some_and(|j| workload.jobs[j].id < r.id) {
            cursor += 1;
        }
        let Some(index) = job_at(cursor).filter(|&j| workload.jobs[j].id == r.id) else {
            return Err(JobsCsvError::UnknownJob(r.id));
        };
        let job = &workload.jobs[index];
        buf.extend_from_slice(int.format(r.id.0).as_bytes());
        buf.push(b',');
        buf.extend_from_slice(&name);
        buf.push(b',');
        match workload.profiles.and_then(|p| p.get(index)) {
            Some(p) => push_field(&mut buf, p),
            None => buf.extend_from_slice(int.format(job.runtime.0).as_bytes()),
        }
        for v in [r.submit.0, i64::from(job.size), job.estimate.0] {
            buf.push(b',');
            buf.extend_from_slice(int.format(v).as_bytes());
        }
        match r.span {
            Some(Span { start, end, .. }) => {
                let killed = job.runtime > job.estimate;
                buf.extend_from_slice(if killed {
                    b",0,COMPLETED_WALLTIME_REACHED"
                } else {
                    b",1,COMPLETED_SUCCESSFULLY"
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
                    buf.push(b',');
                    // i128 only where i64 overflows: its formatting is several times slower.
                    match i64::try_from(v) {
                        Ok(v) => buf.extend_from_slice(int.format(v).as_bytes()),
                        Err(_) => buf.extend_from_slice(int.format(v).as_bytes()),
                    }
                }
                buf.push(b',');
                if exec == turnaround && exec > 0 {
                    // Most jobs wait 0 s; ryu writes 1.0 so.
                    buf.extend_from_slice(b"1.0");
                } else if exec > 0 {
                    let stretch = as_f64(turnaround) / as_f64(exec);
                    buf.extend_from_slice(float.format(stretch).as_bytes());
                }
                buf.push(b',');
                units.write_batsim(slot, &mut buf, &mut int);
            }
            _ => buf.extend_from_slice(b",0,REJECTED,,,,,,,"),
        }
        buf.extend_from_slice(b",-1\n");
        if buf.len() >= BLOCK {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    out.flush()?;
    Ok(())
}

/// What a row shows of a job's record.
#[derive(Clone, Copy)]
struct Row {
    id: JobId,
    submit: Time,
    /// When it ran, on how many units (`None`: rejected).
    span: Option<Span>,
}

/// The records' rows in job id order (`None` where the ids leave a gap).
fn rows_by_id(records: &[JobRecord]) -> Vec<Option<Row>> {
    let row = |r: &JobRecord| Row {
        id: r.id,
        submit: r.submit,
        span: match (r.start, r.end) {
            (Some(start), Some(end)) => Some(Span {
                start,
                end,
                size: r.size,
            }),
            _ => None,
        },
    };
    // Trace ids are usually dense (1..n): each row goes to its id's offset from the least, in
    // one pass in the records' order, so the records are read in sequence (reading them in id
    // order missed the cache on every record).
    let ids = records.iter().map(|r| r.id.0);
    if let (Some(min), Some(max)) = (ids.clone().min(), ids.max())
        && let Ok(width) = usize::try_from(max - min)
        && width / 2 < records.len()
    {
        let mut slots: Vec<Option<Row>> = vec![None; width + 1];
        let mut placed = true;
        for r in records {
            let slot = &mut slots[(r.id.0 - min) as usize];
            placed &= slot.is_none();
            *slot = Some(row(r));
        }
        if placed {
            return slots;
        }
    }
    id_order(records.iter().map(|r| r.id))
        .into_iter()
        .map(|i| Some(row(&records[i])))
        .collect()
}

/// Positions of `ids` in increasing id order (equal ids in their order).
fn id_order(ids: impl Iterator<Item = JobId>) -> Vec<usize> {
    // Sorting compact keys: sorting positions by the id they point to misses the cache on
    // every comparison.
    let mut keys: Vec<(JobId, usize)> = ids.enumerate().map(|(i, id)| (id, i)).collect();
    keys.sort_unstable();
    keys.into_iter().map(|(_, i)| i).collect()
}

/// Bytes handed to the writer at a time (`out` need not be buffered).
const BLOCK: usize = 1 << 20;

/// `v` as the nearest `f64` (through `i64` when it fits: the same value, converted faster).
fn as_f64(v: i128) -> f64 {
    i64::try_from(v).map_or(v as f64, |v| v as f64)
}

/// Appends a text field, quoted as CSV requires when it holds a comma, quote or line break.
fn push_field(buf: &mut Vec<u8>, text: &str) {
    if text.contains([',', '"', '\n', '\r']) {
        buf.push(b'"');
        buf.extend_from_slice(text.replace('"', "\"\"").as_bytes());
        buf.push(b'"');
    } else {
        buf.extend_from_slice(text.as_bytes());
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
