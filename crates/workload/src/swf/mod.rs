//! The Standard Workload Format (SWF): a streaming reader, a writer, and the conversion to
//! [`RigidJob`].
//!
//! SWF is the trace format of Feitelson's Parallel Workloads Archive
//! (<https://www.cs.huji.ac.il/labs/parallel/workload/>), defined in Chapin, Cirne, Feitelson,
//! Jones, Leutenegger, Schwiegelshohn, Smith and Talby, "Benchmarks and standards for the
//! evaluation of parallel job schedulers", JSSPP 1999. A trace is a text file with one job per
//! line, each line holding 18 whitespace-separated fields where `-1` means "missing". Lines
//! starting with `;` are header comments, most of the form `; Key: value` (`; MaxProcs: 128`,
//! `; UnixStartTime: 1034000000`, `; Note: ...`).
//!
//! | #  | field                      | [`SwfRecord`] field  | type                   |
//! |----|----------------------------|----------------------|------------------------|
//! | 1  | job number                 | `job`                | [`JobId`] (required)   |
//! | 2  | submit time (s)            | `submit`             | `Option<Time>`         |
//! | 3  | wait time (s)              | `wait`               | `Option<Duration>`     |
//! | 4  | run time (s)               | `run_time`           | `Option<Duration>`     |
//! | 5  | allocated processors       | `allocated_procs`    | `Option<u32>`          |
//! | 6  | average CPU time used (s)  | `avg_cpu_time`       | `Option<f64>`          |
//! | 7  | used memory (KB/processor) | `used_memory`        | `Option<f64>`          |
//! | 8  | requested processors       | `requested_procs`    | `Option<u32>`          |
//! | 9  | requested time (s)         | `requested_time`     | `Option<Duration>`     |
//! | 10 | requested memory (KB/proc) | `requested_memory`   | `Option<f64>`          |
//! | 11 | status                     | `status`             | `Option<SwfStatus>`    |
//! | 12 | user id                    | `user`               | `Option<u32>`          |
//! | 13 | group id                   | `group`              | `Option<u32>`          |
//! | 14 | executable number          | `executable`         | `Option<u32>`          |
//! | 15 | queue number               | `queue`              | `Option<u32>`          |
//! | 16 | partition number           | `partition`          | `Option<u32>`          |
//! | 17 | preceding job number       | `preceding_job`      | `Option<JobId>`        |
//! | 18 | think time from preceding  | `think_time`         | `Option<Duration>`     |
//! | 19+| extra (e.g. site id)       | `extra`              | `Vec<String>`          |
//!
//! # Parsing rules
//!
//! - Exactly `-1` (also written `-1.0`) means missing and becomes `None`; a field is never
//!   "missing" for any other value.
//! - Time fields (2, 3, 4, 9, 18) are signed: a negative value other than `-1` is kept (raw logs
//!   have negative waits from clock skew; [`SwfRecord::to_rigid`] rejects a negative run time).
//!   Counts and identifiers (1, 5, 8, 11–17) must be `-1` or `>= 0`; the job number (field 1)
//!   is required and must be `>= 0`.
//! - Integer fields accept an integral decimal such as `3.0`, `3.` or `-1.00` (read as `3`,
//!   `3`, missing), and reject `3.5`, `1e3`, `abc` and overflowing values with a typed
//!   [`SwfError::Field`]. Fields 6, 7 and 10 are `f64` (any finite decimal, `12.50`, `1e3`).
//! - Fields after the 18th are kept verbatim, in order, in [`SwfRecord::extra`] (one of our
//!   traces carries a submission site id as field 19) and written back.
//! - Blank lines are skipped. Comment lines after the first job line are skipped and counted
//!   ([`SwfReader::late_comments`]), not added to the header: a `; MaxProcs:` line in the
//!   middle of a trace must not set the machine of the whole run. Late lines that set a
//!   standard key are recorded with their line number ([`SwfReader::late_keys`]) so that tools
//!   warn (`cosched simulate` does).
//! - A malformed line yields one `Err` and the reader continues with the next line; after an
//!   I/O error the iterator ends. No input makes the reader panic; a line longer than
//!   [`MAX_LINE_LEN`] bytes is an error naming its line, so memory stays bounded even on garbage
//!   input; reading goes on at the next line, unless none starts within 64 MiB (`/dev/zero`),
//!   which ends the input.
//!
//! # Header
//!
//! [`SwfHeader`] keeps the leading comment lines verbatim, in order (unknown keys and free
//! comments included), so writing it back reproduces the same lines, and derives typed values
//! ([`SwfHeaderValues`]) for the standard keys; see [`SwfHeader`] for the rules. It keeps at
//! most [`MAX_HEADER_LINES`] lines and [`MAX_HEADER_BYTES`] bytes and counts the rest
//! ([`SwfHeader::omitted_lines`]), so 1 GB of comments streams in bounded memory.
//!
//! # Conversion to [`RigidJob`] ([`SwfRecord::to_rigid`])
//!
//! - size = requested processors (field 8) if `> 0`, else allocated processors (field 5);
//! - estimate = requested time (field 9) if `> 0`, else run time (field 4);
//! - runtime = run time (field 4); submit = field 2; user = field 12; group = field 13;
//! - the job is invalid ([`InvalidJob`]) if the run time is missing or negative, if the size
//!   is not `> 0`, or if the submit time is missing.
//!
//! A simulator then runs the job for `min(run time, estimate)`
//! ([`RigidJob::simulated_runtime`]). [`SwfRecord::from_rigid`] goes the other way, so
//! generators can write SWF with [`SwfWriter`]; [`read_rigid_jobs`] reads a whole trace file
//! into a [`RigidTrace`].
//!
//! The types live in this module (`cosched_workload::swf`; the code is split into the
//! private submodules `header`, `read` and `write`, all re-exported here) and are not
//! re-exported at the crate root: their `Swf` prefix already says where they belong.
//!
//! `cargo bench -p cosched-workload --bench swf_read` measures the reader's throughput.
//!
//! # Example
//!
//! ```
//! use cosched_workload::swf::{InvalidJob, SwfReader, SwfRecord};
//! use cosched_core::{Duration, JobId};
//! use std::io::Cursor;
//!
//! let trace = "; Version: 2.2\n; MaxProcs: 128\n\
//!              1  0 10 100 4 -1 -1  4 3600 -1 1 7 1 -1 -1 -1 -1 -1\n\
//!              2 30 -1  -1 8 -1 -1 -1   -1 -1 5 7 1 -1 -1 -1 -1 -1\n";
//! let mut reader = SwfReader::new("example.swf", Cursor::new(trace))?;
//! assert_eq!(reader.header().values().max_procs, Some(128));
//!
//! let first: SwfRecord = reader.next().expect("two jobs")?;
//! assert_eq!(first.requested_time, Some(Duration(3600)));
//! let job = first.to_rigid()?;
//! assert_eq!((job.id, job.size, job.runtime, job.estimate), (JobId(1), 4, Duration(100), Duration(3600)));
//!
//! let second = reader.next().expect("two jobs")?;
//! assert_eq!(second.to_rigid(), Err(InvalidJob::MissingRuntime));
//! assert!(reader.next().is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod header;
mod read;
mod write;

pub use header::{HeaderLineError, MAX_HEADER_BYTES, MAX_HEADER_LINES, SwfHeader, SwfHeaderValues};
pub use read::{
    FieldProblem, INPUT_NAME, LateKey, MAX_LATE_KEYS, MAX_LINE_LEN, SwfError, SwfReader,
};
pub use write::SwfWriter;

use cosched_core::{Duration, JobId, RigidJob, Time};
use std::collections::BTreeMap;
use std::path::Path;
use thiserror::Error;

/// The number of standard fields on a job line.
pub const FIELD_COUNT: usize = 18;

/// The names of the 18 standard fields, in order (field `n` is `FIELD_NAMES[n - 1]`).
pub const FIELD_NAMES: [&str; FIELD_COUNT] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time used",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
];

/// The completion status of a job (SWF field 11), a code with named constants.
///
/// Codes outside the named ones are kept as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SwfStatus(pub u32);

impl SwfStatus {
    /// 0: the job failed.
    pub const FAILED: SwfStatus = SwfStatus(0);
    /// 1: the job completed normally.
    pub const COMPLETED: SwfStatus = SwfStatus(1);
    /// 2: a partial execution (checkpointed or swapped out); the job continues on a later line.
    pub const PARTIAL: SwfStatus = SwfStatus(2);
    /// 3: the last partial execution, and the job completed.
    pub const LAST_PARTIAL_COMPLETED: SwfStatus = SwfStatus(3);
    /// 4: the last partial execution, and the job failed.
    pub const LAST_PARTIAL_FAILED: SwfStatus = SwfStatus(4);
    /// 5: the job was cancelled (before or during its run).
    pub const CANCELLED: SwfStatus = SwfStatus(5);
}

/// One job line of an SWF trace: the 18 standard fields, typed, plus any extra fields.
///
/// `None` stands for `-1` ("missing"). Because `-1` always reads as missing, a `Some` holding
/// `-1` (e.g. `Some(Duration(-1))`) is written as `-1` and reads back as `None`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwfRecord {
    /// Field 1, job number: the job's identifier, never missing.
    pub job: JobId,
    /// Field 2, submit time, in seconds from the start of the trace.
    pub submit: Option<Time>,
    /// Field 3, wait time: seconds between submission and start.
    pub wait: Option<Duration>,
    /// Field 4, run time: seconds between start and end (wall clock).
    pub run_time: Option<Duration>,
    /// Field 5, number of allocated processors.
    pub allocated_procs: Option<u32>,
    /// Field 6, average CPU time used per processor, in seconds (may be fractional).
    pub avg_cpu_time: Option<f64>,
    /// Field 7, used memory: average kilobytes per processor (may be fractional).
    pub used_memory: Option<f64>,
    /// Field 8, number of requested processors.
    pub requested_procs: Option<u32>,
    /// Field 9, requested time: the user's runtime estimate (or upper bound), in seconds.
    pub requested_time: Option<Duration>,
    /// Field 10, requested memory: kilobytes per processor (may be fractional).
    pub requested_memory: Option<f64>,
    /// Field 11, status: completed, failed, cancelled, partial ([`SwfStatus`]).
    pub status: Option<SwfStatus>,
    /// Field 12, user id (a natural number, consistent within the trace).
    pub user: Option<u32>,
    /// Field 13, group id.
    pub group: Option<u32>,
    /// Field 14, executable (application) number.
    pub executable: Option<u32>,
    /// Field 15, queue number (see the header's `Queue` lines).
    pub queue: Option<u32>,
    /// Field 16, partition number (see the header's `Partition` lines).
    pub partition: Option<u32>,
    /// Field 17, preceding job number: a job this one depends on.
    pub preceding_job: Option<JobId>,
    /// Field 18, think time from the preceding job's end to this job's submission, in seconds.
    pub think_time: Option<Duration>,
    /// Fields 19 and later, verbatim and in order (non-standard, e.g. a submission site id).
    /// Each is non-empty and free of ASCII whitespace, else the writer rejects the record.
    pub extra: Vec<String>,
}

/// Why an [`SwfRecord`] cannot become a [`RigidJob`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Error)]
pub enum InvalidJob {
    /// The submit time (field 2) is missing.
    #[error("submit time is missing")]
    MissingSubmit,
    /// The run time (field 4) is missing.
    #[error("run time is missing")]
    MissingRuntime,
    /// The run time (field 4) is negative.
    #[error("run time is negative")]
    NegativeRuntime,
    /// Neither requested (field 8) nor allocated (field 5) processors are `> 0`.
    #[error("no size: neither requested nor allocated processors are > 0")]
    NoSize,
}

impl SwfRecord {
    /// The job as the simulators model it (rules in the [module docs](self)); submit time,
    /// run time and size are checked in that order.
    ///
    /// ```
    /// use cosched_workload::swf::SwfRecord;
    /// use cosched_core::{Duration, JobId, Time};
    /// let record = SwfRecord {
    ///     job: JobId(9), submit: Some(Time(5)), run_time: Some(Duration(70)),
    ///     allocated_procs: Some(16), requested_procs: None, requested_time: None,
    ///     ..SwfRecord::default()
    /// };
    /// let job = record.to_rigid()?;
    /// assert_eq!((job.size, job.estimate), (16, Duration(70)));
    /// # Ok::<(), cosched_workload::swf::InvalidJob>(())
    /// ```
    pub fn to_rigid(&self) -> Result<RigidJob, InvalidJob> {
        let submit = self.submit.ok_or(InvalidJob::MissingSubmit)?;
        let runtime = self.run_time.ok_or(InvalidJob::MissingRuntime)?;
        if runtime < Duration::ZERO {
            return Err(InvalidJob::NegativeRuntime);
        }
        let size = [self.requested_procs, self.allocated_procs]
            .into_iter()
            .flatten()
            .find(|&procs| procs > 0)
            .ok_or(InvalidJob::NoSize)?;
        let estimate = self
            .requested_time
            .filter(|&requested| requested > Duration::ZERO)
            .unwrap_or(runtime);
        Ok(RigidJob {
            id: self.job,
            submit,
            size,
            runtime,
            estimate,
            user: self.user,
            group: self.group,
        })
    }

    /// A record for `job`: submit, run time, allocated = requested processors = size,
    /// requested time = estimate, user and group; every other field missing.
    ///
    /// For a job with `estimate > 0`, `from_rigid(job).to_rigid() == Ok(job)`.
    pub fn from_rigid(job: &RigidJob) -> SwfRecord {
        SwfRecord {
            job: job.id,
            submit: Some(job.submit),
            run_time: Some(job.runtime),
            allocated_procs: Some(job.size),
            requested_procs: Some(job.size),
            requested_time: Some(job.estimate),
            user: job.user,
            group: job.group,
            ..SwfRecord::default()
        }
    }
}

/// A trace read as rigid jobs ([`read_rigid_jobs`], [`SwfReader::into_rigid_trace`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RigidTrace {
    /// The trace's header.
    pub header: SwfHeader,
    /// The valid jobs, in file order.
    pub jobs: Vec<RigidJob>,
    /// How many records were invalid, by reason.
    pub invalid: BTreeMap<InvalidJob, usize>,
    /// How many comment lines came after the first job line (skipped, see [`SwfReader`]).
    pub late_comments: u64,
    /// The first [`MAX_LATE_KEYS`] of them that set a standard key, ignored: tools warn.
    pub late_keys: Vec<LateKey>,
}

impl RigidTrace {
    /// How many records were invalid, all reasons together.
    pub fn invalid_count(&self) -> usize {
        self.invalid.values().sum()
    }
}

/// Reads the trace at `path` (plain or gzip) as rigid jobs, streaming: the header, the valid
/// jobs in file order, and the invalid records counted by reason ([`SwfRecord::to_rigid`]).
/// Fails on the first I/O error, malformed line or repeated job id among the valid jobs
/// ([`SwfError::DuplicateJob`], detected while streaming).
pub fn read_rigid_jobs(path: &Path) -> Result<RigidTrace, SwfError> {
    SwfReader::open(path)?.into_rigid_trace()
}
