//! The SWF writer.

use super::{SwfHeader, SwfRecord};
use std::fmt;
use std::io::{self, Write};

/// Writes SWF: header lines and job lines, `-1` for missing values.
///
/// Numbers are written so that reading them back gives equal records (integers in full, `f64`
/// in Rust's shortest round-trip form). Fields are separated by single spaces. Wrap a file in
/// a [`std::io::BufWriter`]; [`SwfWriter::finish`] flushes it.
///
/// ```
/// use cosched_workload::swf::{SwfHeader, SwfReader, SwfRecord, SwfWriter};
/// use cosched_core::{Duration, JobId, RigidJob, Time};
/// let mut header = SwfHeader::new();
/// header.push("MaxProcs", 64)?;
/// let job = RigidJob::new(JobId(1), Time(0), 8, Duration(100), Duration(300))?;
/// let mut writer = SwfWriter::new(Vec::new());
/// writer.write_header(&header)?;
/// writer.write_record(&SwfRecord::from_rigid(&job))?;
/// let bytes = writer.finish()?;
/// assert_eq!(
///     String::from_utf8(bytes.clone())?,
///     "; MaxProcs: 64\n1 0 -1 100 8 -1 -1 8 300 -1 -1 -1 -1 -1 -1 -1 -1 -1\n"
/// );
/// let mut reader = SwfReader::new("<input>", bytes.as_slice())?;
/// assert_eq!(reader.next().transpose()?.map(|r| r.to_rigid()), Some(Ok(job)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SwfWriter<W: Write> {
    out: W,
    line: Vec<u8>,
}

impl<W: Write> SwfWriter<W> {
    /// A writer to `out`.
    pub fn new(out: W) -> SwfWriter<W> {
        SwfWriter {
            out,
            line: Vec::with_capacity(256),
        }
    }

    /// Writes every line of `header`, each followed by `\n`.
    pub fn write_header(&mut self, header: &SwfHeader) -> io::Result<()> {
        for line in header.lines() {
            self.out.write_all(line.as_bytes())?;
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    /// Writes one job line. An extra field that is empty or holds whitespace (it would not
    /// read back as one field) is an [`io::ErrorKind::InvalidInput`] error, and nothing is
    /// written.
    pub fn write_record(&mut self, record: &SwfRecord) -> io::Result<()> {
        if let Some(bad) = record
            .extra
            .iter()
            .find(|e| e.is_empty() || e.bytes().any(|b| b.is_ascii_whitespace()))
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "SWF extra field {bad:?} of job {} is empty or holds whitespace",
                    record.job.0
                ),
            ));
        }
        let line = &mut self.line;
        line.clear();
        write!(line, "{}", record.job.0)?;
        put(line, record.submit.map(|t| t.0))?;
        put(line, record.wait.map(|d| d.0))?;
        put(line, record.run_time.map(|d| d.0))?;
        put(line, record.allocated_procs)?;
        put(line, record.avg_cpu_time)?;
        put(line, record.used_memory)?;
        put(line, record.requested_procs)?;
        put(line, record.requested_time.map(|d| d.0))?;
        put(line, record.requested_memory)?;
        put(line, record.status.map(|s| s.0))?;
        put(line, record.user)?;
        put(line, record.group)?;
        put(line, record.executable)?;
        put(line, record.queue)?;
        put(line, record.partition)?;
        put(line, record.preceding_job.map(|j| j.0))?;
        put(line, record.think_time.map(|d| d.0))?;
        for extra in &record.extra {
            line.push(b' ');
            line.extend_from_slice(extra.as_bytes());
        }
        line.push(b'\n');
        self.out.write_all(line)
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Appends ` value`, or ` -1` for a missing one.
#[inline]
fn put(line: &mut Vec<u8>, value: Option<impl fmt::Display>) -> io::Result<()> {
    match value {
        Some(value) => write!(line, " {value}"),
        None => line.write_all(b" -1"),
    }
}
