//! Job ends as the controller's epilog reports them: the notifier channel.
//!
//! Slurm runs `EpilogSlurmctld` on the controller when a job ends; the script `cargo xtask slurm
//! up` installs appends one line per job end, `job_id|node_list|exit_code|unix_time`, to a log
//! (the time in seconds, with a fraction where the script writes one: `date +%s.%3N`).
//! [`JobEndLog`] reads the lines added since the last read, so a policy's executor learns of each
//! job end as it happens (the paper's epilogue notifier, Liu et al. §II-D) instead of polling.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{SlurmError, hostlist};

/// The longest line of the log read; a longer one is reported and skipped.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

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
    /// When the epilog ran, Unix milliseconds (whole seconds × 1000 from a log without
    /// fractions).
    pub at_unix_ms: i64,
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
    ///
    /// A line that cannot be read (not `job_id|node_list|exit_code|unix_time`, not UTF-8, or
    /// longer than [`MAX_LINE_BYTES`]) is reported once as an error and skipped; the job ends
    /// before it are returned first, by the call before, so none is lost.
    pub fn read_new(&mut self) -> Result<Vec<JobEnd>, SlurmError> {
        self.read_upto(u64::MAX)
    }

    /// As [`JobEndLog::read_new`], stopping at byte `limit` (a line boundary).
    fn read_upto(&mut self, limit: u64) -> Result<Vec<JobEnd>, SlurmError> {
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
        let mut line = Vec::new();
        while self.offset < limit {
            line.clear();
            let n = (&mut reader)
                .take(MAX_LINE_BYTES as u64 + 1)
                .read_until(b'\n', &mut line)
                .map_err(io)?;
            let complete = line.last() == Some(&b'\n');
            // Bytes of the line, its newline included, once it is complete.
            let length = if complete {
                n as u64
            } else if n > MAX_LINE_BYTES {
                // Too long: skipped whole once its newline is there.
                match skip_line(&mut reader).map_err(io)? {
                    Some(rest) => n as u64 + rest,
                    None => break,
                }
            } else {
                break;
            };
            let parsed = if complete {
                std::str::from_utf8(&line)
                    .map_err(|_| "the line is not UTF-8".to_owned())
                    .and_then(|text| parse_line(text.trim_end()))
            } else {
                Err(format!("the line is longer than {MAX_LINE_BYTES} bytes"))
            };
            match parsed {
                Ok(end) => {
                    self.offset += length;
                    ends.push(end);
                }
                // The good ends first; the next call reports this line.
                Err(_) if !ends.is_empty() => break,
                Err(reason) => {
                    self.offset += length;
                    return Err(SlurmError::Parse {
                        command,
                        line: String::from_utf8_lossy(&line)
                            .trim_end()
                            .chars()
                            .take(80)
                            .collect(),
                        reason,
                    });
                }
            }
        }
        Ok(ends)
    }
}

impl JobEndLog {
    /// How many ends of each job the log holds before this reader's place, counting the
    /// lines logged at or after `since_unix_ms` (a job id may recur in a log that outlived a
    /// cluster): what a reader started late knows of the runs already ended. A bad line is
    /// skipped, as [`find_end`] skips it.
    pub fn ends_before(&self, since_unix_ms: i64) -> Result<HashMap<String, u32>, SlurmError> {
        let mut prefix = JobEndLog::new(&self.path);
        let mut counts = HashMap::new();
        while prefix.offset < self.offset {
            let before = prefix.offset;
            match prefix.read_upto(self.offset) {
                Ok(ends) => {
                    for end in ends.into_iter().filter(|e| e.at_unix_ms >= since_unix_ms) {
                        *counts.entry(end.job_id).or_insert(0) += 1;
                    }
                }
                Err(SlurmError::Parse { .. }) => {}
                Err(e) => return Err(e),
            }
            if prefix.offset == before {
                break;
            }
        }
        Ok(counts)
    }
}

/// Skips past the next newline: the bytes skipped, or `None` if the file ends first.
fn skip_line(reader: &mut impl BufRead) -> std::io::Result<Option<u64>> {
    let mut skipped = 0;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(None);
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(Some(skipped + i as u64 + 1));
            }
            None => {
                let len = buf.len();
                reader.consume(len);
                skipped += len as u64;
            }
        }
    }
}

/// The last end of job `id` the log at `path` holds at or after `since_unix` (a job id
/// may recur in a log that outlived a cluster): what a reader that started after the end
/// looks up.
pub fn find_end(path: &Path, id: &str, since_unix: i64) -> Result<Option<JobEnd>, SlurmError> {
    let mut log = JobEndLog::new(path);
    let mut found = None;
    loop {
        match log.read_new() {
            Ok(ends) if ends.is_empty() => return Ok(found),
            Ok(ends) => {
                if let Some(end) = ends
                    .into_iter()
                    .rfind(|e| e.job_id == id && e.at_unix >= since_unix)
                {
                    found = Some(end);
                }
            }
            // A bad line is skipped here: the reader that watches the log reports it.
            Err(SlurmError::Parse { .. }) => {}
            Err(e) => return Err(e),
        }
    }
}

/// `unix_time` as seconds and milliseconds: `1700000000` or `1700000000.123`.
fn parse_time(at: &str) -> Result<(i64, i64), String> {
    let bad = || "the time is not a number".to_owned();
    let (secs, frac) = at.trim().split_once('.').unwrap_or((at.trim(), ""));
    let secs: i64 = secs.parse().map_err(|_| bad())?;
    if !frac.chars().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    // Milliseconds: the fraction's first three digits.
    let ms = frac
        .chars()
        .chain(std::iter::repeat('0'))
        .take(3)
        .collect::<String>()
        .parse::<i64>()
        .map_err(|_| bad())?;
    let at_ms = secs
        .checked_mul(1000)
        .and_then(|s| s.checked_add(ms))
        .ok_or_else(bad)?;
    Ok((secs, at_ms))
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
        at_unix: parse_time(at)?.0,
        at_unix_ms: parse_time(at)?.1,
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
        assert_eq!(ends[0].at_unix_ms, 1_700_000_000_000);
        writeln!(f, "1|1700000005.25").unwrap();
        let ends = log.read_new().unwrap();
        assert_eq!((ends[0].job_id.as_str(), ends[0].exit_code), ("8", Some(1)));
        assert_eq!(
            (ends[0].at_unix, ends[0].at_unix_ms),
            (1_700_000_005, 1_700_000_005_250)
        );
        writeln!(
            f,
            "7|n1|0|1700000100.5\n7|n1|0|1700000200.123456\n9|n1|0|1.x"
        )
        .unwrap();
        let last = find_end(&path, "7", 1_700_000_001).unwrap().unwrap();
        assert_eq!(last.at_unix_ms, 1_700_000_200_123);
        assert!(find_end(&path, "7", 1_700_000_300).unwrap().is_none());
        assert!(find_end(&path, "8", 0).unwrap().is_some());
        assert_eq!(log.read_new().unwrap().len(), 2);
        assert!(log.read_new().is_err(), "`1.x` is no time");
        assert!(log.read_new().unwrap().is_empty());
        writeln!(f, "garbage").unwrap();
        assert!(log.read_new().is_err());
        assert!(JobEndLog::at_end(&path).read_new().unwrap().is_empty());
        // Before the reader's place, from a time on: the bad lines skipped.
        let counts = JobEndLog::at_end(&path)
            .ends_before(1_700_000_001_000)
            .unwrap();
        assert_eq!(counts.get("7"), Some(&2));
        assert_eq!((counts.get("8"), counts.get("9")), (Some(&1), None));
        assert_eq!(log.ends_before(0).unwrap().values().sum::<u32>(), 4);
        assert!(JobEndLog::new(&path).ends_before(0).unwrap().is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// A bad line costs no job end: the ends before it come first, the line is reported
    /// once, and the ends after it come next (hostile input: a garbage, non-UTF-8 or endless
    /// line in the epilog's log).
    #[test]
    fn a_bad_line_is_reported_once_and_loses_no_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job-ends.log");
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(b"1|n1|0|10\n2|n2|0|11\ngarbage\n3|n3|0|12\n\xff\xfe|n4|0|13\n")
            .unwrap();
        f.write_all(&vec![b'x'; MAX_LINE_BYTES + 10]).unwrap();
        f.write_all(b"\n4|n[5-6]|0|14\n").unwrap();
        let mut log = JobEndLog::new(&path);
        let ids = |ends: Vec<JobEnd>| ends.into_iter().map(|e| e.job_id).collect::<Vec<_>>();
        assert_eq!(ids(log.read_new().unwrap()), ["1", "2"]);
        let err = log.read_new().unwrap_err().to_string();
        assert!(err.contains("garbage"), "{err}");
        assert_eq!(ids(log.read_new().unwrap()), ["3"]);
        assert!(
            log.read_new()
                .unwrap_err()
                .to_string()
                .contains("not UTF-8")
        );
        let err = log.read_new().unwrap_err().to_string();
        assert!(err.contains("longer than"), "{err}");
        assert!(
            err.len() < 300,
            "the error echoes at most 80 characters: {err}"
        );
        assert_eq!(ids(log.read_new().unwrap()), ["4"]);
        assert!(log.read_new().unwrap().is_empty());
    }

    /// An endless line still being written is waited for, not reported, until it ends.
    #[test]
    fn a_long_line_without_its_newline_waits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("job-ends.log");
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(&vec![b'y'; MAX_LINE_BYTES * 2]).unwrap();
        let mut log = JobEndLog::new(&path);
        assert!(log.read_new().unwrap().is_empty());
        f.write_all(b"\n5|n1|0|1\n").unwrap();
        assert!(log.read_new().is_err());
        assert_eq!(log.read_new().unwrap()[0].job_id, "5");
    }
}
