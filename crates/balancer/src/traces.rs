//! Reading the paper's input traces, with typed errors naming the file, line and field.
//!
//! The paper's real-life scenario (Liu et al., SC18, section III-A and the evaluation's
//! "real-life traces") replays two institutional clusters side by side: the LCRC batch cluster
//! (304 nodes, 16 cores each) and the APS on-demand cluster, whose single-core jobs are
//! mapped to 16-core VM deployment and termination requests "assuming tight packing". This
//! module reads those formats and SWF batch traces:
//!
//! - [`read_lcrc`]: the LCRC weekly CSV
//!   (`SubmitTime,StartTime,EndTime,QueuedTime,RunTime,NodesRequested,walltime,bslowdown`,
//!   seconds from the week's start) as batch [`RigidJob`]s: submit, nodes, run time, and the
//!   walltime as the estimate (`StartTime`, `EndTime`, `QueuedTime` and `bslowdown` are the
//!   original cluster's outcome and are ignored; a job whose `RunTime` exceeds its walltime is
//!   cut at the walltime by the simulator, as it was on the real cluster);
//! - [`read_leases`]: an on-demand lease CSV (`submit,nodes,duration`, seconds);
//! - [`read_aps`] and [`aps_to_leases`]: the APS single-core job trace
//!   (`submit_time,start_time,end_time,run_time,wait_time`) and its conversion to VM leases;
//! - [`read_swf_jobs`]: an SWF batch trace (plain or gzip) through
//!   [`cosched_workload::swf::read_rigid_jobs`].
//!
//! Every file may be gzip-compressed (`.csv.gz`, as the vendored weeks and the paper's public
//! trace repository ship them). Every CSV needs its header line, exactly as above (whitespace around names and values is
//! ignored; blank lines are skipped). Values are integers.
//!
//! ## The APS packing ([`aps_to_leases`])
//! A core of the APS cluster is busy for job `j` over `[start_time_j, end_time_j)`: the paper
//! "evaluated how many single-core jobs should be running" at every job start/stop event
//! (§III-A), from the recorded timestamps. With tight packing, `c(t)` busy cores need exactly
//! `v(t) = ceil(c(t) / cores_per_vm)` VMs at every instant. We realise `v(t)` with a stack of
//! one-node leases: whenever `v` rises from `k` to `k'`, VMs `k+1..=k'` are deployed (one
//! request each, submitted at that instant); whenever it falls from `k'` to `k`, the top VMs
//! `k+1..=k'` are terminated, which ends their leases. So the leases' node count is `v(t)` at
//! every `t`, and their node-seconds are `∫ v(t) dt`: the fewest a 16-core VM deployment can
//! use. (Real placement without migration would fragment more; tight packing is the
//! paper's stated assumption and the lower bound.)

use crate::workload::LeaseRequest;
use cosched_core::{Duration, JobId, LeaseId, ParamError, RigidJob, Time};
use cosched_workload::swf::{SwfError, read_rigid_jobs};
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use thiserror::Error;

/// The LCRC weekly CSV's header.
pub const LCRC_HEADER: [&str; 8] = [
    "SubmitTime",
    "StartTime",
    "EndTime",
    "QueuedTime",
    "RunTime",
    "NodesRequested",
    "walltime",
    "bslowdown",
];
/// The on-demand lease CSV's header.
pub const LEASE_HEADER: [&str; 3] = ["submit", "nodes", "duration"];
/// The APS single-core job trace's header.
pub const APS_HEADER: [&str; 5] = [
    "submit_time",
    "start_time",
    "end_time",
    "run_time",
    "wait_time",
];

/// A row of the LCRC weekly CSV (`bslowdown` is read and ignored).
#[derive(Debug, serde::Deserialize)]
#[allow(non_snake_case, dead_code)]
struct LcrcRow {
    SubmitTime: i64,
    StartTime: i64,
    EndTime: i64,
    QueuedTime: i64,
    RunTime: i64,
    NodesRequested: i64,
    walltime: i64,
    bslowdown: f64,
}

/// A row of the lease CSV.
#[derive(Debug, serde::Deserialize)]
struct LeaseRow {
    submit: i64,
    nodes: i64,
    duration: i64,
}

/// A row of the APS trace.
#[derive(Debug, serde::Deserialize)]
struct ApsRow {
    submit_time: i64,
    start_time: i64,
    end_time: i64,
    run_time: i64,
    wait_time: i64,
}

/// Why a trace could not be read.
#[derive(Debug, Error)]
pub enum TraceError {
    /// The file could not be opened or read.
    #[error("{file}: I/O error: {source}")]
    Io {
        /// The file.
        file: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The first line is not the expected header.
    #[error("{file}:1: expected the header `{expected}`, found `{found}`")]
    Header {
        /// The file.
        file: String,
        /// The header wanted.
        expected: String,
        /// The line found.
        found: String,
    },
    /// A line with the wrong number of fields.
    #[error("{file}:{line}: expected {expected} fields, found {found}")]
    FieldCount {
        /// The file.
        file: String,
        /// Line number, from 1.
        line: u64,
        /// Fields wanted.
        expected: usize,
        /// Fields found.
        found: usize,
    },
    /// A field that is not an integer, or out of its range.
    #[error("{file}:{line}: field `{field}` = \"{text}\": {problem}")]
    Field {
        /// The file.
        file: String,
        /// Line number, from 1.
        line: u64,
        /// The column's name.
        field: &'static str,
        /// The offending text.
        text: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// An SWF trace's error.
    #[error(transparent)]
    Swf(#[from] SwfError),
}

/// One job of the APS single-core trace (seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ApsJob {
    /// `submit_time`.
    pub submit: Time,
    /// `start_time` (on the original cluster).
    pub start: Time,
    /// `end_time` (on the original cluster).
    pub end: Time,
    /// `run_time`, at least 0.
    pub run: Duration,
    /// `wait_time`, at least 0.
    pub wait: Duration,
}

/// Reads an LCRC weekly CSV as batch jobs, ids from 0 in file order (see the
/// [module docs](self) for the mapping).
///
/// ```
/// use cosched_balancer::traces::parse_lcrc;
/// let csv = "SubmitTime,StartTime,EndTime,QueuedTime,RunTime,NodesRequested,walltime,bslowdown\n\
///            14,21,3479,7,3458,2,36000,1.002\n";
/// let jobs = parse_lcrc(csv.as_bytes(), "week.csv").unwrap();
/// assert_eq!((jobs[0].submit.0, jobs[0].size, jobs[0].runtime.0, jobs[0].estimate.0),
///            (14, 2, 3458, 36000));
/// let bad = "SubmitTime,StartTime,EndTime,QueuedTime,RunTime,NodesRequested,walltime,bslowdown\n\
///            14,21,3479,7,3458,0,36000,1.0\n";
/// assert_eq!(parse_lcrc(bad.as_bytes(), "week.csv").unwrap_err().to_string(),
///            "week.csv:2: field `NodesRequested` = \"0\": must be >= 1");
/// ```
pub fn parse_lcrc(reader: impl Read, file: &str) -> Result<Vec<RigidJob>, TraceError> {
    Ok(parse_lcrc_records(reader, file)?
        .iter()
        .enumerate()
        .map(|(i, r)| r.job(JobId(i as u64)))
        .collect())
}

/// One LCRC job as recorded, with its original start and end (for preloading and the
/// challenging-week selection of §III-A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LcrcRecord {
    /// `SubmitTime`.
    pub submit: Time,
    /// `StartTime` on the original cluster.
    pub start: Time,
    /// `EndTime` on the original cluster.
    pub end: Time,
    /// `NodesRequested`, at least 1.
    pub nodes: u32,
    /// `RunTime`, at least 0.
    pub runtime: Duration,
    /// `walltime`, at least 0.
    pub walltime: Duration,
    /// The file's line it was read from (1-based; 0 when made by hand).
    pub line: u64,
}

impl LcrcRecord {
    /// The batch job to simulate: submit, nodes, run time, walltime as the estimate.
    pub fn job(&self, id: JobId) -> RigidJob {
        RigidJob {
            id,
            submit: self.submit,
            size: self.nodes,
            runtime: self.runtime,
            estimate: self.walltime,
            user: None,
            group: None,
        }
    }
}

/// Reads an LCRC weekly CSV as records, in file order. A record that ends before it starts
/// is refused, naming its line.
pub fn parse_lcrc_records(reader: impl Read, file: &str) -> Result<Vec<LcrcRecord>, TraceError> {
    let mut jobs = Vec::new();
    for_each_row(reader, file, &LCRC_HEADER, |row: &Row<'_, LcrcRow>| {
        let r = &row.row;
        let runtime = row.at_least(4, r.RunTime, 0)?;
        let nodes = row.at_least(5, r.NodesRequested, 1)?;
        let walltime = row.at_least(6, r.walltime, 0)?;
        if r.EndTime < r.StartTime {
            return Err(row.error(2, "ends before its StartTime"));
        }
        jobs.push(LcrcRecord {
            submit: Time(r.SubmitTime),
            start: Time(r.StartTime),
            end: Time(r.EndTime),
            nodes: u32::try_from(nodes).map_err(|_| row.error(5, "too large"))?,
            runtime: Duration(runtime),
            walltime: Duration(walltime),
            line: row.line,
        });
        Ok(())
    })?;
    Ok(jobs)
}

/// [`parse_lcrc_records`] on the file at `path`.
pub fn read_lcrc_records(path: &Path) -> Result<Vec<LcrcRecord>, TraceError> {
    let (reader, file) = open(path)?;
    parse_lcrc_records(reader, &file)
}

/// The jobs of a week's records still running at `week_end` (recorded start before it, end
/// after it), as jobs of the next week starting at its time 0 with what they had left: the
/// paper's preloading (§III-A). Ids from `first_id`.
///
/// ```
/// use cosched_balancer::traces::{LcrcRecord, running_at};
/// use cosched_core::{Duration, JobId, Time};
/// let rec = LcrcRecord { submit: Time(90), start: Time(100), end: Time(1_100), nodes: 2,
///     runtime: Duration(1_000), walltime: Duration(3_600), line: 0 };
/// let preload = running_at(&[rec], Time(600), 7);
/// assert_eq!((preload[0].id, preload[0].submit, preload[0].runtime, preload[0].estimate),
///            (JobId(7), Time(0), Duration(500), Duration(3_100)));
/// assert!(running_at(&[rec], Time(2_000), 0).is_empty());
/// ```
pub fn running_at(records: &[LcrcRecord], week_end: Time, first_id: u64) -> Vec<RigidJob> {
    records
        .iter()
        .filter(|r| r.start < week_end && r.end > week_end)
        .enumerate()
        .map(|(i, r)| {
            let left = Duration(r.end.0.saturating_sub(week_end.0));
            let used = week_end.0.saturating_sub(r.start.0);
            RigidJob {
                submit: Time::ZERO,
                runtime: left,
                estimate: Duration(r.walltime.0.saturating_sub(used).max(left.0)),
                ..r.job(JobId(first_id.saturating_add(i as u64)))
            }
        })
        .collect()
}

/// A weekly file's name without its extensions (`2015-07-19` for `…/2015-07-19.csv.gz`).
pub fn week_name(path: &Path) -> String {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let stem = name.strip_suffix(".gz").unwrap_or(&name);
    stem.strip_suffix(".csv").unwrap_or(stem).to_owned()
}

/// [`parse_lcrc`] on the file at `path`.
pub fn read_lcrc(path: &Path) -> Result<Vec<RigidJob>, TraceError> {
    let (reader, file) = open(path)?;
    parse_lcrc(reader, &file)
}

/// Reads an on-demand lease CSV (`submit,nodes,duration`), ids from 0 in file order, no
/// notice.
///
/// ```
/// use cosched_balancer::traces::parse_leases;
/// let leases = parse_leases("submit,nodes,duration\n60, 4, 3600\n".as_bytes(), "od.csv").unwrap();
/// assert_eq!((leases[0].submit.0, leases[0].nodes, leases[0].duration.0), (60, 4, 3600));
/// assert!(parse_leases("submit,nodes,duration\n60,4,0\n".as_bytes(), "od.csv").is_err());
/// ```
pub fn parse_leases(reader: impl Read, file: &str) -> Result<Vec<LeaseRequest>, TraceError> {
    let mut leases = Vec::new();
    for_each_row(reader, file, &LEASE_HEADER, |row: &Row<'_, LeaseRow>| {
        let r = &row.row;
        let nodes = row.at_least(1, r.nodes, 1)?;
        let duration = row.at_least(2, r.duration, 1)?;
        leases.push(LeaseRequest {
            id: LeaseId(leases.len() as u64),
            submit: Time(r.submit),
            nodes: u32::try_from(nodes).map_err(|_| row.error(1, "too large"))?,
            duration: Duration(duration),
            notice: None,
        });
        Ok(())
    })?;
    Ok(leases)
}

/// [`parse_leases`] on the file at `path`.
pub fn read_leases(path: &Path) -> Result<Vec<LeaseRequest>, TraceError> {
    let (reader, file) = open(path)?;
    parse_leases(reader, &file)
}

/// Reads the APS single-core job trace, in file order. Run and wait times must be `>= 0`.
pub fn parse_aps(reader: impl Read, file: &str) -> Result<Vec<ApsJob>, TraceError> {
    let mut jobs = Vec::new();
    for_each_row(reader, file, &APS_HEADER, |row: &Row<'_, ApsRow>| {
        let r = &row.row;
        jobs.push(ApsJob {
            submit: Time(r.submit_time),
            start: Time(r.start_time),
            end: Time(r.end_time),
            run: Duration(row.at_least(3, r.run_time, 0)?),
            wait: Duration(row.at_least(4, r.wait_time, 0)?),
        });
        Ok(())
    })?;
    Ok(jobs)
}

/// [`parse_aps`] on the file at `path`.
pub fn read_aps(path: &Path) -> Result<Vec<ApsJob>, TraceError> {
    let (reader, file) = open(path)?;
    parse_aps(reader, &file)
}

/// Maps single-core jobs to one-node VM leases of `cores_per_vm` cores each, as §III-A: at
/// every job **start/stop** event the cores busy on the APS cluster are counted and, assuming
/// tight packing, `ceil(busy cores / cores_per_vm)` VMs are needed; each VM deployed is one
/// lease request, ended when it is no longer needed. Jobs that never run (`end <= start`)
/// need no core. Leases come by submit time, ids from 0. This is
/// [`aps_to_leases_with_linger`] with no linger: the paper's text.
///
/// ```
/// use cosched_balancer::traces::{ApsJob, aps_to_leases};
/// use cosched_core::{Duration, Time};
/// let job = |start, run| ApsJob {
///     submit: Time(0), start: Time(start), end: Time(start + run),
///     run: Duration(run), wait: Duration(start),
/// };
/// // Three single-core jobs on 2-core VMs: one VM from 0 to 20, a second while three cores
/// // are busy, over [6, 8). The submit time plays no part.
/// let leases = aps_to_leases(&[job(0, 10), job(5, 3), job(6, 14)], 2).unwrap();
/// let spans: Vec<_> = leases.iter().map(|l| (l.submit.0, l.duration.0)).collect();
/// assert_eq!(spans, vec![(0, 20), (6, 2)]);
/// ```
pub fn aps_to_leases(jobs: &[ApsJob], cores_per_vm: u32) -> Result<Vec<LeaseRequest>, ParamError> {
    aps_to_leases_with_linger(jobs, cores_per_vm, Duration::ZERO)
}

/// [`aps_to_leases`], except that a VM no longer needed is terminated only once it has stayed
/// unneeded for `linger`; needed again before that, it is reused (the one idled last first)
/// instead of a new VM being deployed. **Ours, not the paper's text**: §III-A terminates a VM
/// as soon as the count falls. On the challenging week 2015-07-19 the count of busy cores
/// sits on multiples of 16 for hours (96 to 99 cores, many one-minute jobs), so the literal
/// rule deploys and ends a VM every few minutes; a linger of a few minutes is what a real
/// VM's teardown would add, and shows how the paper's 141 leases can come from the same week
/// (measurements: `examples/data/balancer/PROVENANCE.md`).
///
/// `linger = 0` is [`aps_to_leases`]. With any linger, at least `ceil(busy / cores_per_vm)`
/// VMs are up at every instant, each VM beyond that has been idle for at most `linger`, and
/// a VM idle at the last event ends `linger` after it fell idle.
///
/// ```
/// use cosched_balancer::traces::{ApsJob, aps_to_leases, aps_to_leases_with_linger};
/// use cosched_core::{Duration, Time};
/// let job = |start, run| ApsJob {
///     submit: Time(0), start: Time(start), end: Time(start + run),
///     run: Duration(run), wait: Duration(0),
/// };
/// // One-core VMs; two jobs 30 s apart. Literally two leases; with a 60 s linger, one VM
/// // serves both and ends 60 s after the second job.
/// let jobs = [job(0, 100), job(130, 100)];
/// assert_eq!(aps_to_leases(&jobs, 1).unwrap().len(), 2);
/// let kept = aps_to_leases_with_linger(&jobs, 1, Duration(60)).unwrap();
/// assert_eq!((kept.len(), kept[0].submit.0, kept[0].duration.0), (1, 0, 290));
/// ```
pub fn aps_to_leases_with_linger(
    jobs: &[ApsJob],
    cores_per_vm: u32,
    linger: Duration,
) -> Result<Vec<LeaseRequest>, ParamError> {
    leases_from_vm_counts(&vm_counts(jobs, cores_per_vm)?, linger)
}

/// The VMs tight packing needs over time: `(t, ceil(busy cores / cores_per_vm))` at every
/// instant the count changes, in time order (the start/stop events of §III-A; stops first at
/// one instant, so a core handed from one job to the next deploys no VM). Jobs that never run
/// (`end <= start`) need no core.
///
/// ```
/// use cosched_balancer::traces::{ApsJob, vm_counts};
/// use cosched_core::{Duration, Time};
/// let job = |start, run| ApsJob {
///     submit: Time(0), start: Time(start), end: Time(start + run),
///     run: Duration(run), wait: Duration(0),
/// };
/// let steps = vm_counts(&[job(0, 10), job(5, 3), job(6, 14)], 2).unwrap();
/// assert_eq!(steps, vec![(Time(0), 1), (Time(6), 2), (Time(8), 1), (Time(20), 0)]);
/// ```
pub fn vm_counts(jobs: &[ApsJob], cores_per_vm: u32) -> Result<Vec<(Time, usize)>, ParamError> {
    ParamError::check(
        cores_per_vm >= 1,
        "cores_per_vm",
        cores_per_vm,
        "must be >= 1",
    )?;
    let mut changes: Vec<(Time, i64)> = jobs
        .iter()
        .filter(|j| j.end > j.start)
        .flat_map(|j| [(j.start, 1), (j.end, -1)])
        .collect();
    changes.sort_unstable();
    let per_vm = i64::from(cores_per_vm);
    let mut cores = 0_i64;
    let mut steps: Vec<(Time, usize)> = Vec::new();
    let mut i = 0;
    while i < changes.len() {
        let now = changes[i].0;
        while i < changes.len() && changes[i].0 == now {
            cores += changes[i].1;
            i += 1;
        }
        let vms = usize::try_from((cores + per_vm - 1) / per_vm).unwrap_or(0);
        if steps.last().is_none_or(|&(_, v)| v != vms) {
            steps.push((now, vms));
        }
    }
    Ok(steps)
}

/// The one-node leases that realise the VM counts `steps` ([`vm_counts`]) with VMs kept
/// `linger` once unneeded (see [`aps_to_leases_with_linger`]), by submit time, ids from 0.
///
/// # Errors
/// A negative linger.
pub fn leases_from_vm_counts(
    steps: &[(Time, usize)],
    linger: Duration,
) -> Result<Vec<LeaseRequest>, ParamError> {
    ParamError::check(linger.0 >= 0, "linger", linger.0, "must be >= 0")?;
    // The VMs up, bottom first, as (deployed, idle since): the bottom `busy` are needed; the
    // idle ones above them fell idle the later the lower they are, so the top one expires
    // first and the lowest one is reused first.
    let mut up: Vec<(Time, Time)> = Vec::new();
    let mut busy = 0_usize;
    let mut leases: Vec<LeaseRequest> = Vec::new();
    let end_lease = |leases: &mut Vec<LeaseRequest>, deployed: Time, end: Time| {
        leases.push(LeaseRequest {
            id: LeaseId(0),
            submit: deployed,
            nodes: 1,
            duration: Duration(end.0.saturating_sub(deployed.0)),
            notice: None,
        });
    };
    for &(now, vms) in steps {
        // Idle VMs whose linger ran out before now end then.
        while up.len() > busy {
            let Some(&(deployed, since)) = up.last() else {
                break;
            };
            let end = since.saturating_add(linger);
            if end >= now {
                break;
            }
            up.pop();
            end_lease(&mut leases, deployed, end);
        }
        if vms < busy {
            for vm in &mut up[vms..busy] {
                vm.1 = now;
            }
        } else if vms > up.len() {
            up.resize(vms, (now, now));
        }
        busy = vms;
    }
    // What is still up is idle (every job has ended): each ends once its linger runs out.
    while let Some((deployed, since)) = up.pop() {
        end_lease(&mut leases, deployed, since.saturating_add(linger));
    }
    leases.sort_by_key(|l| (l.submit, l.duration));
    for (k, lease) in leases.iter_mut().enumerate() {
        lease.id = LeaseId(k as u64);
    }
    Ok(leases)
}

/// Reads an SWF batch trace (plain or gzip) as rigid jobs, the valid ones in file order
/// (invalid records are skipped, as [`read_rigid_jobs`] counts them). Sizes are the trace's
/// processors: divide them by the cores per node first if the cluster counts nodes.
pub fn read_swf_jobs(path: &Path) -> Result<Vec<RigidJob>, TraceError> {
    Ok(read_rigid_jobs(path)?.jobs)
}

/// The first two bytes of a gzip stream.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Opens `path`, plain or gzip (told by its first bytes, whatever its name).
fn open(path: &Path) -> Result<(Box<dyn Read>, String), TraceError> {
    let file = path.display().to_string();
    let io = |source| TraceError::Io {
        file: file.clone(),
        source,
    };
    let mut reader = BufReader::new(File::open(path).map_err(io)?);
    let gzip = reader.fill_buf().map_err(io)?.starts_with(&GZIP_MAGIC);
    let reader: Box<dyn Read> = if gzip {
        Box::new(MultiGzDecoder::new(reader))
    } else {
        Box::new(reader)
    };
    Ok((reader, file))
}

/// At most this many characters of an offending field are echoed in an error.
pub const ECHO_CHARS: usize = 80;

fn echo(text: &str) -> String {
    match text.char_indices().nth(ECHO_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// One data line, deserialised into a typed row, with what an error needs to name it.
struct Row<'a, R> {
    file: &'a str,
    line: u64,
    header: &'a [&'static str],
    record: &'a csv::StringRecord,
    row: R,
}

impl<R> Row<'_, R> {
    /// An error on column `column` (echoing at most [`ECHO_CHARS`] of its text).
    fn error(&self, column: usize, problem: &'static str) -> TraceError {
        TraceError::Field {
            file: self.file.to_owned(),
            line: self.line,
            field: self.header.get(column).copied().unwrap_or("?"),
            text: echo(self.record.get(column).unwrap_or("")),
            problem,
        }
    }

    /// `value` (column `column`) checked to be at least `min` (0 or 1).
    fn at_least(&self, column: usize, value: i64, min: i64) -> Result<i64, TraceError> {
        if value < min {
            return Err(self.error(
                column,
                if min == 1 {
                    "must be >= 1"
                } else {
                    "must be >= 0"
                },
            ));
        }
        Ok(value)
    }
}

/// Reads a CSV with the `csv` crate: checks the header, then deserialises every record into
/// `R` and calls `f` on it. Errors name the file, line and column.
fn for_each_row<R: serde::de::DeserializeOwned>(
    reader: impl Read,
    file: &str,
    header: &[&'static str],
    mut f: impl FnMut(&Row<'_, R>) -> Result<(), TraceError>,
) -> Result<(), TraceError> {
    let mut csv = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .has_headers(true)
        .from_reader(reader);
    let csv_error = |e: csv::Error, line: u64| match e.kind() {
        csv::ErrorKind::UnequalLengths {
            pos,
            expected_len,
            len,
            ..
        } => TraceError::FieldCount {
            file: file.to_owned(),
            line: pos.as_ref().map_or(line, csv::Position::line),
            expected: *expected_len as usize,
            found: *len as usize,
        },
        csv::ErrorKind::Io(_) => TraceError::Io {
            file: file.to_owned(),
            source: std::io::Error::other(e.to_string()),
        },
        _ => TraceError::Io {
            file: file.to_owned(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
        },
    };
    let found = csv.headers().map_err(|e| csv_error(e, 1))?.clone();
    if found.iter().ne(header.iter().copied()) {
        return Err(TraceError::Header {
            file: file.to_owned(),
            expected: header.join(","),
            found: echo(&found.iter().collect::<Vec<_>>().join(",")),
        });
    }
    let names = csv::StringRecord::from(header.to_vec());
    let mut record = csv::StringRecord::new();
    loop {
        match csv.read_record(&mut record) {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(e) => return Err(csv_error(e, 0)),
        }
        let line = record.position().map_or(0, csv::Position::line);
        let row: R = match record.deserialize(Some(&names)) {
            Ok(row) => row,
            Err(e) => {
                let column = match e.kind() {
                    csv::ErrorKind::Deserialize { err, .. } => {
                        err.field().map_or(0, |c| c as usize)
                    }
                    _ => 0,
                };
                return Err(TraceError::Field {
                    file: file.to_owned(),
                    line,
                    field: header.get(column).copied().unwrap_or("?"),
                    text: echo(record.get(column).unwrap_or("")),
                    problem: "not an integer in range",
                });
            }
        };
        f(&Row {
            file,
            line,
            header,
            record: &record,
            row,
        })?;
    }
}
