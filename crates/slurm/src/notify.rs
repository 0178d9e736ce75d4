//! Job ends as the controller's epilog reports them: the notifier channel.
//!
//! Slurm runs `EpilogSlurmctld` on the controller when a job ends; the script `cargo xtask slurm
//! up` installs appends one line per job end, `job_id|node_list|exit_code|unix_time`, to a log.
//! [`JobEndLog`] reads the lines added since the last read, so a policy's executor learns of each
//! job end as it happens (the paper's epilogue notifier, Liu et al. §II-D) instead of polling.

use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{SlurmError, hostlist};

/// One job end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobEnd {
    /// The job's id.
    pub job_id: String,
    /// The nodes it ran on.
    pub nodes: Vec<String>,
    /// Its exit code as Slurm reports it (`SLURM_JOB_EXIT_CODE`).
    pub exit_code: Option<i64>,
    /// When the epilog ran, Unix seconds.
    pub at_unix: i64,
}

/// A reader of the epilog's log that remembers how far it has read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobEndLog {
    path: PathBuf,
    offset: u64,
}

impl JobEndLog {
    /// A reader of `path` from its start.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        JobEndLog {
            path: path.into(),
            offset: 0,
        }
    }

    /// A reader of `path` that skips what the log already holds (job ends before a service
    /// started are seen by polling, not replayed).
    pub fn at_end(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        let offset = std::fs::metadata(&path).map_or(0, |m| m.len());
        JobEndLog { path, offset }
    }

    /// The log file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The job ends appended since the last call (none if the log does not exist yet). A line
    /// still being written (no newline yet) is left for the next call.
    pub fn read_new(&mut self) -> Result<Vec<JobEnd>, SlurmError> {
        let command = format!("read {}", self.path.display());
        let io = |e: std::io::Error| SlurmError::Failed {
            command: command.clone(),
            status: "i/o error".into(),
            stderr: e.to_string(),
        };
        let file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(e)),
        };
        let mut reader = BufReader::new(file);
        reader.seek(SeekFrom::Start(self.offset)).map_err(io)?;
        let mut ends = Vec::new();
        let mut line = String::new();
        loop {
            line.clear();
            let n = reader.read_line(&mut line).map_err(io)?;
            if n == 0 || !line.ends_with('\n') {
                break;
            }
            self.offset += n as u64;
            ends.push(
                parse_line(line.trim_end()).map_err(|reason| SlurmError::Parse {
                    command: command.clone(),
                    line: line.trim_end().chars().take(80).collect(),
                    reason,
                })?,
            );
        }
        Ok(ends)
    }
}

fn parse_line(line: &str) -> Result<JobEnd, String> {
    let f: Vec<&str> = line.split('|').collect();
    let [id, nodes, code, at] = f[..] else {
        return Err("expected `job_id|node_list|exit_code|unix_time`".into());
    };
    Ok(JobEnd {
        job_id: id.trim().to_owned(),
        nodes: hostlist::expand(nodes.trim()).map_err(|e| e.to_string())?,
        exit_code: code.trim().parse().ok(),
        at_unix: at
            .trim()
            .parse()
            .map_err(|_| "the time is not a number".to_owned())?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reads_only_new_complete_lines() {
        let dir = std::env::temp_dir().join(format!("cosched-slurm-notify-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("job-ends.log");
        let mut log = JobEndLog::new(&path);
        assert!(log.read_new().unwrap().is_empty());
        let mut f = std::fs::File::create(&path).unwrap();
        write!(f, "7|n[1-2]|0|1700000000\n8|n3|").unwrap();
        let ends = log.read_new().unwrap();
        assert_eq!(ends.len(), 1);
        assert_eq!(ends[0].nodes, ["n1", "n2"]);
        writeln!(f, "1|1700000005").unwrap();
        let ends = log.read_new().unwrap();
        assert_eq!((ends[0].job_id.as_str(), ends[0].exit_code), ("8", Some(1)));
        assert!(log.read_new().unwrap().is_empty());
        writeln!(f, "garbage").unwrap();
        assert!(log.read_new().is_err());
        assert!(JobEndLog::at_end(&path).read_new().unwrap().is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
