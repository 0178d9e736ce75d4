//! The SWF header: comment lines kept verbatim, typed values for the standard keys.

use cosched_core::excerpt;
use std::fmt;
use thiserror::Error;

/// The most comment lines a [`SwfHeader`] keeps; later ones are counted
/// ([`SwfHeader::omitted_lines`]), so a trace of endless comments reads in bounded memory.
pub const MAX_HEADER_LINES: usize = 4_096;

/// The most bytes of comment text a [`SwfHeader`] keeps (lines, and with them the repeatable
/// `Queue`, `Partition` and `Note` values and continuation lines); later lines are counted.
pub const MAX_HEADER_BYTES: usize = 1 << 20;

/// Why [`SwfHeader::push_line`] rejected a line.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum HeaderLineError {
    /// The line does not start with `;` (after optional whitespace).
    #[error("a header line must start with ';'")]
    NotAComment,
    /// The line contains `\n` or `\r`.
    #[error("a header line must not contain a line break")]
    LineBreak,
    /// A standard key has a value of the wrong kind.
    #[error("header {key}: \"{value}\" {expected}")]
    BadValue {
        /// The key, as spelled in the SWF definition.
        key: &'static str,
        /// The offending value (at most [`cosched_core::EXCERPT_CHARS`] characters).
        value: String,
        /// What it should have been.
        expected: &'static str,
    },
}

/// Typed values of the standard header keys (SWF version 2.2), as derived by [`SwfHeader`].
///
/// Text values are trimmed; numeric keys are parsed to integers. A repeated single-valued key
/// keeps its last value; the repeatable keys (`Queue`, `Partition`, `Note`) collect all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwfHeaderValues {
    /// `Version`: the SWF version the trace follows (e.g. `2.2`).
    pub version: Option<String>,
    /// `Computer`: the machine (e.g. `IBM SP2`).
    pub computer: Option<String>,
    /// `Installation`: the site.
    pub installation: Option<String>,
    /// `Acknowledge`: who provided the trace.
    pub acknowledge: Option<String>,
    /// `Information`: where to find more (often URLs, one per line).
    pub information: Option<String>,
    /// `Conversion`: who converted the trace to SWF, and when.
    pub conversion: Option<String>,
    /// `MaxJobs`: the number of jobs in the trace.
    pub max_jobs: Option<u64>,
    /// `MaxRecords`: the number of lines (records) in the trace.
    pub max_records: Option<u64>,
    /// `Preemption`: `No`, `Yes`, `Double` or `TS` (time slicing).
    pub preemption: Option<String>,
    /// `UnixStartTime`: the trace's second 0, in seconds since the Unix epoch.
    pub unix_start_time: Option<i64>,
    /// `TimeZone`: offset from UTC in seconds (deprecated in favour of `TimeZoneString`).
    pub time_zone: Option<i64>,
    /// `TimeZoneString`: the site's time zone (e.g. `Europe/Stockholm`).
    pub time_zone_string: Option<String>,
    /// `StartTime`: human-readable start of the trace.
    pub start_time: Option<String>,
    /// `EndTime`: human-readable end of the trace.
    pub end_time: Option<String>,
    /// `MaxNodes`: nodes in the machine.
    pub max_nodes: Option<u64>,
    /// `MaxProcs`: processors in the machine.
    pub max_procs: Option<u64>,
    /// `MaxRuntime`: the longest allowed run time, in seconds.
    pub max_runtime: Option<u64>,
    /// `MaxMemory`: the largest allowed memory, in kilobytes.
    pub max_memory: Option<u64>,
    /// `AllowOveruse`: whether a job may use more than it requested (`Yes`/`No`/`True`/`False`).
    pub allow_overuse: Option<bool>,
    /// `MaxQueues`: the number of queues.
    pub max_queues: Option<u64>,
    /// `Queues`: free-text description of the queues.
    pub queues: Option<String>,
    /// `Queue`: one entry per line, typically `number name`.
    pub queue: Vec<String>,
    /// `MaxPartitions`: the number of partitions.
    pub max_partitions: Option<u64>,
    /// `Partitions`: free-text description of the partitions.
    pub partitions: Option<String>,
    /// `Partition`: one entry per line, typically `number name`.
    pub partition: Vec<String>,
    /// `Note`: free-form notes, one entry per `Note` key (continuation lines joined by `\n`).
    pub note: Vec<String>,
}

/// The header of an SWF trace: every comment line, verbatim and in order, plus the typed
/// values of the standard keys ([`SwfHeaderValues`]).
///
/// How a comment line is read (the text after `;`):
/// - `Key: value` with a standard key (matched case-insensitively, at any indentation) sets
///   that key; a numeric key whose value is not an integer (or `AllowOveruse` not a boolean)
///   is an error;
/// - a line indented by two or more spaces that is not a standard key continues the previous
///   text key's value (e.g. a second URL under `Information`, a multi-line `Note`), appended
///   after a `\n`;
/// - anything else (an empty `;`, an unknown key such as `Copyright:`, free text) is kept as a
///   line only, and ends any continuation.
///
/// Lines that are not valid UTF-8 (old traces use Latin-1) are decoded as Latin-1.
///
/// Memory is bounded: the header keeps at most [`MAX_HEADER_LINES`] lines and
/// [`MAX_HEADER_BYTES`] bytes of them. A line beyond either bound is counted
/// ([`SwfHeader::omitted_lines`]) and not kept; if it sets a single-valued standard key (such as
/// `MaxProcs`) the value is still taken, but repeatable keys (`Queue`, `Partition`, `Note`) and
/// continuation lines beyond the bounds are dropped.
///
/// ```
/// use cosched_workload::swf::SwfHeader;
/// let mut header = SwfHeader::new();
/// header.push("MaxProcs", 256)?;
/// header.push("Note", "generated by cosched")?;
/// header.push_line(";       seed 42")?;
/// assert_eq!(header.values().max_procs, Some(256));
/// assert_eq!(header.values().note, ["generated by cosched\nseed 42"]);
/// assert_eq!(header.lines()[0], "; MaxProcs: 256");
/// # Ok::<(), cosched_workload::swf::HeaderLineError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwfHeader {
    lines: Vec<String>,
    /// Bytes held by `lines`.
    bytes: usize,
    /// Lines not kept because a bound was reached.
    omitted: u64,
    values: SwfHeaderValues,
    /// The key the next indented line continues, if any (only text keys take continuations).
    continues: Option<StdKey>,
}

/// A value the header rejected (a [`HeaderLineError::BadValue`] or [`super::SwfError::Header`]).
pub(super) struct BadValue {
    pub(super) key: &'static str,
    pub(super) value: String,
    pub(super) expected: &'static str,
}

impl SwfHeader {
    /// An empty header.
    pub fn new() -> SwfHeader {
        SwfHeader::default()
    }

    /// Every comment line, in order, without line breaks (each starts with `;`, after
    /// optional whitespace).
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// How many comment lines were not kept because the header reached [`MAX_HEADER_LINES`]
    /// lines or [`MAX_HEADER_BYTES`] bytes.
    pub fn omitted_lines(&self) -> u64 {
        self.omitted
    }

    /// The typed values of the standard keys.
    pub fn values(&self) -> &SwfHeaderValues {
        &self.values
    }

    /// Appends a comment line (it must start with `;`, after optional whitespace, and hold no
    /// line break) and updates the typed values. On error the header is unchanged.
    pub fn push_line(&mut self, line: impl Into<String>) -> Result<(), HeaderLineError> {
        let line = line.into();
        if line.contains(['\n', '\r']) {
            return Err(HeaderLineError::LineBreak);
        }
        if !is_comment(line.as_bytes()) {
            return Err(HeaderLineError::NotAComment);
        }
        self.absorb(&line).map_err(|bad| HeaderLineError::BadValue {
            key: bad.key,
            value: bad.value,
            expected: bad.expected,
        })
    }

    /// Appends the line `; {key}: {value}`.
    pub fn push(&mut self, key: &str, value: impl fmt::Display) -> Result<(), HeaderLineError> {
        self.push_line(format!("; {key}: {value}"))
    }

    /// Interprets and stores a line already known to be a comment without line breaks.
    pub(super) fn absorb(&mut self, line: &str) -> Result<(), BadValue> {
        let room = self.lines.len() < MAX_HEADER_LINES
            && self.bytes.saturating_add(line.len()) <= MAX_HEADER_BYTES;
        let body = trim_ascii_start(line).get(1..).unwrap_or_default();
        let indent = body.len() - trim_ascii_start(body).len();
        let text = body.trim();
        let std_key = split_key(text).and_then(|(key, value)| Some((StdKey::parse(key)?, value)));
        if let Some((key, value)) = std_key {
            if room || !key.is_repeatable() {
                self.values.set(key, value)?;
            }
            self.continues = Some(key);
        } else if indent >= 2 && !text.is_empty() {
            if let Some(value) = self
                .continues
                .filter(|_| room)
                .and_then(|key| self.values.last_text(key))
            {
                if !value.is_empty() {
                    value.push('\n');
                }
                value.push_str(text);
            }
        } else {
            self.continues = None;
        }
        if room {
            self.bytes += line.len();
            self.lines.push(line.to_owned());
        } else {
            self.omitted += 1;
        }
        Ok(())
    }
}

/// `key` and trimmed value of a `Key: value` text, if the part before `:` looks like a key.
fn split_key(text: &str) -> Option<(&str, &str)> {
    let (key, value) = text.split_once(':')?;
    let is_key = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    is_key.then(|| (key, value.trim()))
}

/// The standard header keys of SWF 2.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StdKey {
    Version,
    Computer,
    Installation,
    Acknowledge,
    Information,
    Conversion,
    MaxJobs,
    MaxRecords,
    Preemption,
    UnixStartTime,
    TimeZone,
    TimeZoneString,
    StartTime,
    EndTime,
    MaxNodes,
    MaxProcs,
    MaxRuntime,
    MaxMemory,
    AllowOveruse,
    MaxQueues,
    Queues,
    Queue,
    MaxPartitions,
    Partitions,
    Partition,
    Note,
}

/// Every standard key with its spelling, in declaration order (so `STD_KEYS[k as usize].1 == k`).
const STD_KEYS: [(&str, StdKey); 26] = [
    ("Version", StdKey::Version),
    ("Computer", StdKey::Computer),
    ("Installation", StdKey::Installation),
    ("Acknowledge", StdKey::Acknowledge),
    ("Information", StdKey::Information),
    ("Conversion", StdKey::Conversion),
    ("MaxJobs", StdKey::MaxJobs),
    ("MaxRecords", StdKey::MaxRecords),
    ("Preemption", StdKey::Preemption),
    ("UnixStartTime", StdKey::UnixStartTime),
    ("TimeZone", StdKey::TimeZone),
    ("TimeZoneString", StdKey::TimeZoneString),
    ("StartTime", StdKey::StartTime),
    ("EndTime", StdKey::EndTime),
    ("MaxNodes", StdKey::MaxNodes),
    ("MaxProcs", StdKey::MaxProcs),
    ("MaxRuntime", StdKey::MaxRuntime),
    ("MaxMemory", StdKey::MaxMemory),
    ("AllowOveruse", StdKey::AllowOveruse),
    ("MaxQueues", StdKey::MaxQueues),
    ("Queues", StdKey::Queues),
    ("Queue", StdKey::Queue),
    ("MaxPartitions", StdKey::MaxPartitions),
    ("Partitions", StdKey::Partitions),
    ("Partition", StdKey::Partition),
    ("Note", StdKey::Note),
];

impl StdKey {
    /// Whether the key may appear many times, each value collected (`Queue`, `Partition`,
    /// `Note`).
    fn is_repeatable(self) -> bool {
        matches!(self, StdKey::Queue | StdKey::Partition | StdKey::Note)
    }

    /// The key as spelled in the SWF definition.
    fn name(self) -> &'static str {
        STD_KEYS[self as usize].0
    }

    /// The standard key spelled `key`, ignoring ASCII case.
    fn parse(key: &str) -> Option<StdKey> {
        STD_KEYS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(key))
            .map(|&(_, k)| k)
    }

    /// `value` as a non-negative integer.
    fn unsigned(self, value: &str) -> Result<Option<u64>, BadValue> {
        value
            .parse()
            .map(Some)
            .map_err(|_| self.bad(value, "is not a non-negative integer"))
    }

    /// `value` as an integer.
    fn signed(self, value: &str) -> Result<Option<i64>, BadValue> {
        value
            .parse()
            .map(Some)
            .map_err(|_| self.bad(value, "is not an integer"))
    }

    fn bad(self, value: &str, expected: &'static str) -> BadValue {
        BadValue {
            key: self.name(),
            value: excerpt(value),
            expected,
        }
    }
}

impl SwfHeaderValues {
    /// Sets `key` to `value`; on error nothing changes.
    fn set(&mut self, key: StdKey, value: &str) -> Result<(), BadValue> {
        let text = Some(value.to_owned());
        match key {
            StdKey::Version => self.version = text,
            StdKey::Computer => self.computer = text,
            StdKey::Installation => self.installation = text,
            StdKey::Acknowledge => self.acknowledge = text,
            StdKey::Information => self.information = text,
            StdKey::Conversion => self.conversion = text,
            StdKey::MaxJobs => self.max_jobs = key.unsigned(value)?,
            StdKey::MaxRecords => self.max_records = key.unsigned(value)?,
            StdKey::Preemption => self.preemption = text,
            StdKey::UnixStartTime => self.unix_start_time = key.signed(value)?,
            StdKey::TimeZone => self.time_zone = key.signed(value)?,
            StdKey::TimeZoneString => self.time_zone_string = text,
            StdKey::StartTime => self.start_time = text,
            StdKey::EndTime => self.end_time = text,
            StdKey::MaxNodes => self.max_nodes = key.unsigned(value)?,
            StdKey::MaxProcs => self.max_procs = key.unsigned(value)?,
            StdKey::MaxRuntime => self.max_runtime = key.unsigned(value)?,
            StdKey::MaxMemory => self.max_memory = key.unsigned(value)?,
            StdKey::AllowOveruse => {
                self.allow_overuse = Some(match value.to_ascii_lowercase().as_str() {
                    "yes" | "true" => true,
                    "no" | "false" => false,
                    _ => return Err(key.bad(value, "is not Yes, No, True or False")),
                })
            }
            StdKey::MaxQueues => self.max_queues = key.unsigned(value)?,
            StdKey::Queues => self.queues = text,
            StdKey::Queue => self.queue.push(value.to_owned()),
            StdKey::MaxPartitions => self.max_partitions = key.unsigned(value)?,
            StdKey::Partitions => self.partitions = text,
            StdKey::Partition => self.partition.push(value.to_owned()),
            StdKey::Note => self.note.push(value.to_owned()),
        }
        Ok(())
    }

    /// The current value of `key` if it is a text key, for continuation lines.
    fn last_text(&mut self, key: StdKey) -> Option<&mut String> {
        match key {
            StdKey::Version => self.version.as_mut(),
            StdKey::Computer => self.computer.as_mut(),
            StdKey::Installation => self.installation.as_mut(),
            StdKey::Acknowledge => self.acknowledge.as_mut(),
            StdKey::Information => self.information.as_mut(),
            StdKey::Conversion => self.conversion.as_mut(),
            StdKey::Preemption => self.preemption.as_mut(),
            StdKey::TimeZoneString => self.time_zone_string.as_mut(),
            StdKey::StartTime => self.start_time.as_mut(),
            StdKey::EndTime => self.end_time.as_mut(),
            StdKey::Queues => self.queues.as_mut(),
            StdKey::Queue => self.queue.last_mut(),
            StdKey::Partitions => self.partitions.as_mut(),
            StdKey::Partition => self.partition.last_mut(),
            StdKey::Note => self.note.last_mut(),
            StdKey::MaxJobs
            | StdKey::MaxRecords
            | StdKey::UnixStartTime
            | StdKey::TimeZone
            | StdKey::MaxNodes
            | StdKey::MaxProcs
            | StdKey::MaxRuntime
            | StdKey::MaxMemory
            | StdKey::AllowOveruse
            | StdKey::MaxQueues
            | StdKey::MaxPartitions => None,
        }
    }
}

/// `s` without leading ASCII whitespace (the reader's notion of whitespace).
fn trim_ascii_start(s: &str) -> &str {
    s.trim_start_matches(|c: char| c.is_ascii_whitespace())
}

/// The standard key a comment line sets, if any (as spelled in the SWF definition).
pub(super) fn standard_key(line: &str) -> Option<&'static str> {
    let body = trim_ascii_start(line).get(1..)?;
    let (key, _) = split_key(body.trim())?;
    StdKey::parse(key).map(StdKey::name)
}

/// Whether a line is a comment: its first non-whitespace byte is `;`.
pub(super) fn is_comment(line: &[u8]) -> bool {
    line.trim_ascii_start().first() == Some(&b';')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_table_is_in_declaration_order() {
        for (i, &(name, key)) in STD_KEYS.iter().enumerate() {
            assert_eq!(key as usize, i);
            assert_eq!(key.name(), name);
            assert_eq!(StdKey::parse(&name.to_uppercase()), Some(key));
        }
    }
}
