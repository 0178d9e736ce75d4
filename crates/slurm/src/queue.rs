//! The one job reader: every job the controller lists, in full ([`JobDetail`]), from
//! `squeue --json` where the installed Slurm has it (22.05's OpenAPI v0.0.38 layout), else
//! from `squeue -O` columns with times as Unix seconds (`SLURM_TIME_FORMAT=%s`).
//!
//! [`JobReader::Auto`] tries JSON once; a Slurm without it (`--json` refused, or a layout this
//! client cannot read) is read by columns from then on.

use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use crate::client::{excerpt, parse_error};
use crate::jobs::parse_squeue_json;
use crate::{JobDetail, JobState, Slurm, SlurmError, hostlist};

/// How [`Slurm::job_details`] reads the queue.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum JobReader {
    /// JSON if the first call reads it, else columns.
    #[default]
    Auto,
    /// `squeue --json` only.
    Json,
    /// `squeue -O` only.
    Columns,
}

/// The reader [`JobReader::Auto`] settled on, shared by a client's clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Detected(Arc<OnceLock<JobReader>>);

impl PartialEq for Detected {
    /// A cache: never part of a client's identity.
    fn eq(&self, _: &Detected) -> bool {
        true
    }
}

impl Eq for Detected {}

/// The columns read, the name last (it may hold a `|`).
const COLUMNS: &str = "JobID:|,State:|,Reason:|,NumNodes:|,NodeList:|,TimeLimit:|,Partition:|,\
                       SubmitTime:|,StartTime:|,EndTime:|,RestartCnt:|,Name:|";

impl Slurm {
    /// Every job the controller lists (pending, running and recently ended: for `MinJobAge`
    /// seconds), in full; see [`JobReader`].
    pub fn job_details(&self) -> Result<Vec<JobDetail>, SlurmError> {
        let reader = match self.reader {
            JobReader::Auto => self.detected.0.get().copied().unwrap_or(JobReader::Auto),
            fixed => fixed,
        };
        match reader {
            JobReader::Json => self.jobs_json(),
            JobReader::Columns => self.jobs_columns(),
            JobReader::Auto => match self.jobs_json() {
                Ok(jobs) => {
                    let _ = self.detected.0.set(JobReader::Json);
                    Ok(jobs)
                }
                Err(SlurmError::Failed { .. } | SlurmError::Parse { .. }) => {
                    let jobs = self.jobs_columns()?;
                    let _ = self.detected.0.set(JobReader::Columns);
                    Ok(jobs)
                }
                Err(e) => Err(e),
            },
        }
    }

    /// This client reading the queue with `reader`.
    pub fn with_job_reader(mut self, reader: JobReader) -> Slurm {
        self.reader = reader;
        self.detected = Detected::default();
        self
    }

    /// The reader [`Slurm::job_details`] uses (for [`JobReader::Auto`], the one it settled
    /// on, once it has been called).
    pub fn job_reader(&self) -> JobReader {
        match self.reader {
            JobReader::Auto => self.detected.0.get().copied().unwrap_or(JobReader::Auto),
            fixed => fixed,
        }
    }

    fn jobs_json(&self) -> Result<Vec<JobDetail>, SlurmError> {
        parse_squeue_json(&self.run("squeue", ["--json", "-t", "all"])?)
    }

    fn jobs_columns(&self) -> Result<Vec<JobDetail>, SlurmError> {
        let out = self.run_with_env(
            "squeue",
            ["-h", "-t", "all", "-O", COLUMNS],
            ("SLURM_TIME_FORMAT", "%s"),
        )?;
        out.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                parse_columns(line).map_err(|reason| parse_error("squeue -O", line, reason))
            })
            .collect()
    }
}

/// `id|state|reason|nodes|nodelist|limit|partition|submit|start|end|restarts|name|`.
pub(crate) fn parse_columns(line: &str) -> Result<JobDetail, String> {
    let f: Vec<&str> = line.splitn(12, '|').collect();
    let [
        id,
        state,
        reason,
        count,
        nodes,
        limit,
        partition,
        submit,
        start,
        end,
        restarts,
        name,
    ] = f[..]
    else {
        return Err("expected 12 `|`-separated columns".into());
    };
    let number = |what: &str, s: &str| -> Result<u64, String> {
        s.trim()
            .parse()
            .map_err(|_| format!("{what} `{}` is not a number", excerpt(s, 20)))
    };
    let id = number("job id", id)?;
    let nodes = match nodes.trim() {
        "" | "(null)" => Vec::new(),
        list => hostlist::expand(list).map_err(|e| e.to_string())?,
    };
    Ok(JobDetail {
        id,
        name: name.strip_suffix('|').unwrap_or(name).trim().to_owned(),
        state: state.parse().unwrap_or(JobState::Other(String::new())),
        reason: reason_code(reason),
        node_count: u32::try_from(number("node count", count)?)
            .map_err(|_| "the node count is too large".to_owned())?,
        nodes,
        time_limit_min: time_limit_min(limit)?,
        partition: partition.trim().to_owned(),
        submit_unix: unix(submit)?,
        start_unix: unix(start)?,
        end_unix: unix(end)?,
        restarts: u32::try_from(number("restart count", restarts)?)
            .map_err(|_| "the restart count is too large".to_owned())?,
    })
}

/// The reason as `squeue --json`'s `state_reason` gives it. `squeue -O Reason` prints the
/// job's description instead where Slurm set one: a job `scontrol requeuehold` requeued is
/// `job requeued in held state` there (measured on 22.05) and `JobHeldUser` in the JSON, and
/// it is held as any user hold is (released by `scontrol release`).
fn reason_code(reason: &str) -> String {
    match reason.trim() {
        "job requeued in held state" => "JobHeldUser".to_owned(),
        other => other.to_owned(),
    }
}

/// A time as `SLURM_TIME_FORMAT=%s` prints it; `N/A`, `NONE`, `Unknown` are 0 (not yet).
fn unix(s: &str) -> Result<i64, String> {
    match s.trim() {
        "" | "N/A" | "NONE" | "Unknown" | "None" => Ok(0),
        t => t
            .parse()
            .map_err(|_| format!("time `{}` is not Unix seconds", excerpt(t, 20))),
    }
}

/// A time limit, `[days-][hours:]minutes:seconds`, in minutes rounded up; `UNLIMITED` is
/// `None`.
fn time_limit_min(s: &str) -> Result<Option<u64>, String> {
    let s = s.trim();
    if matches!(s, "UNLIMITED" | "INFINITE" | "NOT_SET" | "N/A" | "") {
        return Ok(None);
    }
    let bad = || format!("time limit `{}` is not [d-][h:]m:s", excerpt(s, 20));
    let (days, clock) = match s.split_once('-') {
        Some((d, rest)) => (d.parse::<u64>().map_err(|_| bad())?, rest),
        None => (0, s),
    };
    let parts: Vec<u64> = clock
        .split(':')
        .map(|p| p.parse::<u64>().map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    let (h, m, sec) = match parts[..] {
        [h, m, s] => (h, m, s),
        [m, s] => (0, m, s),
        [m] => (0, m, 0),
        _ => return Err(bad()),
    };
    let secs = days
        .checked_mul(86_400)
        .and_then(|d| d.checked_add(h.checked_mul(3600)?))
        .and_then(|t| t.checked_add(m.checked_mul(60)?))
        .and_then(|t| t.checked_add(sec))
        .ok_or_else(bad)?;
    Ok(Some(secs.div_ceil(60)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeue_columns_read_as_the_json_reads() {
        let held = parse_columns(
            "1|PENDING|JobHeldUser|2||3:00|batch|1796206409|N/A|N/A|0|cosched-test-a|b|",
        )
        .unwrap();
        assert!(held.is_held() && !held.is_finished());
        assert_eq!(held.name, "cosched-test-a|b");
        assert_eq!((held.time_limit_min, held.start_unix), (Some(3), 0));
        let done =
            parse_columns("2|COMPLETED|None|2|n[3,5]|UNLIMITED|scavenger|10|11|15|1|x|").unwrap();
        assert_eq!(done.nodes, ["n3", "n5"]);
        assert_eq!((done.time_limit_min, done.restarts), (None, 1));
        assert_eq!((done.start_unix, done.end_unix), (11, 15));
        assert!(done.is_finished() && done.partition == "scavenger");
        let requeued = parse_columns(
            "3|PENDING|job requeued in held state|1|n1|3:00|batch|10|0|0|1|cosched-x|",
        )
        .unwrap();
        assert!(requeued.is_held() && requeued.restarts == 1);
        assert_eq!(requeued.reason, "JobHeldUser");
        assert!(parse_columns("2|COMPLETED|None").is_err());
        assert!(parse_columns("x|COMPLETED|None|2||1:00|b|1|1|1|0|x|").is_err());
        assert!(parse_columns("2|COMPLETED|None|2||1:00|b|soon|1|1|0|x|").is_err());
    }

    #[test]
    fn time_limits_in_minutes() {
        assert_eq!(time_limit_min("3:00"), Ok(Some(3)));
        assert_eq!(time_limit_min("2:30"), Ok(Some(3)));
        assert_eq!(time_limit_min("1:00:00"), Ok(Some(60)));
        assert_eq!(time_limit_min("1-00:00:01"), Ok(Some(1441)));
        assert_eq!(time_limit_min("UNLIMITED"), Ok(None));
        assert!(time_limit_min("1:x").is_err());
        assert!(time_limit_min("99999999999999999-0:0:0").is_err());
    }

    /// A `squeue` that refuses `--json` (as Slurm before 21.08 does) is read by columns, and
    /// the client settles on them; a `squeue` that is missing settles nothing.
    #[cfg(unix)]
    #[test]
    fn auto_falls_back_to_columns_where_squeue_has_no_json() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("squeue");
        std::fs::write(
            &script,
            "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --json ] && { echo \"squeue: unrecognized option '--json'\" >&2; exit 1; }; done\n\
             [ \"$SLURM_TIME_FORMAT\" = %s ] || exit 3\n\
             echo '7|RUNNING|None|1|n2|1:00|batch|100|101|161|0|cosched-x|'\n",
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let s = Slurm::system().with_programs(dir.path());
        assert_eq!(s.job_reader(), JobReader::Auto);
        let jobs = s.job_details().unwrap();
        assert_eq!((jobs[0].id, jobs[0].nodes.clone()), (7, vec!["n2".into()]));
        assert_eq!(s.clone().job_reader(), JobReader::Columns);
        assert!(
            s.clone()
                .with_job_reader(JobReader::Json)
                .job_details()
                .is_err()
        );

        let missing = Slurm::system().with_programs(dir.path().join("none"));
        assert!(matches!(
            missing.job_details(),
            Err(SlurmError::Spawn { .. })
        ));
        assert_eq!(missing.job_reader(), JobReader::Auto);
    }
}
