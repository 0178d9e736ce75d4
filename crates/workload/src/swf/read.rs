//! The streaming SWF reader and its errors.

use super::header::{SwfHeader, is_comment, standard_key};
use super::{FIELD_COUNT, FIELD_NAMES, RigidTrace, SwfRecord, SwfStatus};
use crate::admit::SeenIds;
use cosched_core::{Duration, JobId, RigidJob, Time, excerpt};
use flate2::read::MultiGzDecoder;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::iter::FusedIterator;
use std::path::Path;
use thiserror::Error;

/// The longest line the reader accepts, in bytes (without its line break).
pub const MAX_LINE_LEN: usize = 1 << 20;

/// The most bytes of an over-long line skipped to reach the next line: past it, the input is
/// taken as endless (`/dev/zero`) and the reader ends after the error.
const MAX_SKIP: usize = 64 * MAX_LINE_LEN;

/// The first two bytes of a gzip stream.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Buffer size of [`SwfReader::open`]'s file and decompressor buffers.
const READ_BUFFER: usize = 1 << 18;

/// The most late header keys a reader records ([`SwfReader::late_keys`]); later ones are
/// only counted with the other late comments.
pub const MAX_LATE_KEYS: usize = 16;

/// The display name of readers not built from a file, by convention.
pub const INPUT_NAME: &str = "<input>";

/// Why one field of a job line could not be parsed (part of [`SwfError::Field`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum FieldProblem {
    /// An integer field holds something else (`abc`, `3.5`, `1e3`).
    #[error("is not an integer")]
    NotAnInteger,
    /// A fractional field (6, 7, 10) holds something that is not a decimal number.
    #[error("is not a number")]
    NotANumber,
    /// A fractional field holds infinity or NaN.
    #[error("is not a finite number")]
    NotFinite,
    /// The value does not fit the field's type (`u32` counts, `i64` times, `u64` job numbers).
    #[error("is out of range")]
    OutOfRange,
    /// A count or identifier is negative but not `-1`.
    #[error("is negative (-1, missing, is the only negative value allowed)")]
    Negative,
    /// The job number is negative (it is never missing).
    #[error("is negative (the job number is required)")]
    NegativeJobNumber,
    /// An extra field is not valid UTF-8.
    #[error("is not valid UTF-8")]
    NotUtf8,
}

/// Everything that can go wrong reading SWF. The reader never panics.
///
/// Locations are `file:line`, the file being the reader's display name (the path for
/// [`SwfReader::open`]) and lines counted from 1, comment and blank lines included.
#[derive(Debug, Error)]
pub enum SwfError {
    /// Reading (or decompressing) failed.
    #[error("{file}: I/O error: {source}")]
    Io {
        /// Display name of the input.
        file: String,
        /// The underlying error.
        source: io::Error,
    },
    /// A job line has fewer than 18 fields.
    #[error("{file}:{line}: expected 18 fields, found {found}")]
    FieldCount {
        /// Display name of the input.
        file: String,
        /// Line number, from 1.
        line: u64,
        /// How many fields the line has.
        found: usize,
    },
    /// A field of a job line could not be parsed.
    #[error("{file}:{line}: field {field} ({name}): \"{text}\" {problem}")]
    Field {
        /// Display name of the input.
        file: String,
        /// Line number, from 1.
        line: u64,
        /// Field number, from 1 as in the SWF definition (19 and up for extra fields).
        field: usize,
        /// The field's name ([`FIELD_NAMES`], or `extra field`).
        name: &'static str,
        /// The offending text (lossily decoded, at most [`cosched_core::EXCERPT_CHARS`] characters).
        text: String,
        /// What is wrong with it.
        problem: FieldProblem,
    },
    /// A standard header key has a value of the wrong kind (`; MaxProcs: many`).
    #[error("{file}:{line}: header {key}: \"{value}\" {expected}")]
    Header {
        /// Display name of the input.
        file: String,
        /// Line number, from 1.
        line: u64,
        /// The key, as spelled in the SWF definition.
        key: &'static str,
        /// The offending value (at most [`cosched_core::EXCERPT_CHARS`] characters).
        value: String,
        /// What it should have been.
        expected: &'static str,
    },
    /// A valid job repeats the id of an earlier valid job ([`SwfReader::into_rigid_trace`]):
    /// the trace is ambiguous, as in [`crate::admit`].
    #[error("{file}:{line}: job {job} appears more than once in the trace")]
    DuplicateJob {
        /// Display name of the input.
        file: String,
        /// Line number of the repetition, from 1.
        line: u64,
        /// The repeated job number.
        job: u64,
    },
    /// A line is longer than [`MAX_LINE_LEN`] bytes.
    #[error("{file}:{line}: line longer than {limit} bytes")]
    LineTooLong {
        /// Display name of the input.
        file: String,
        /// Line number, from 1.
        line: u64,
        /// The limit, [`MAX_LINE_LEN`].
        limit: usize,
    },
}

/// A standard header key met in a comment line after the first job line: ignored, recorded so
/// that tools can warn ([`SwfReader::late_keys`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LateKey {
    /// Line number, from 1.
    pub line: u64,
    /// The key, as spelled in the SWF definition (e.g. `MaxProcs`).
    pub key: &'static str,
}

/// A streaming SWF reader: the header is parsed on construction, then the reader yields one
/// [`SwfRecord`] (or one error) per job line.
///
/// It holds one line in memory at a time (a reused buffer) and a bounded header
/// ([`super::MAX_HEADER_LINES`], [`super::MAX_HEADER_BYTES`]), so traces of any size stream in
/// constant memory. A malformed line yields an error and reading continues with the next line;
/// after an I/O error the iterator ends.
///
/// The header is the comment block before the first job line. Comment lines after it are
/// skipped and counted ([`SwfReader::late_comments`]): a `; MaxProcs: 2` in the middle of a
/// trace must not silently change the machine of the whole run. Those that set a standard
/// key are recorded with their line ([`SwfReader::late_keys`]) so tools can warn.
pub struct SwfReader<R> {
    name: String,
    input: R,
    buf: Vec<u8>,
    line: u64,
    header: SwfHeader,
    late_comments: u64,
    late_keys: Vec<LateKey>,
    /// `buf` holds a job line read while parsing the header, not yet yielded.
    pending: bool,
    finished: bool,
}

impl SwfReader<Box<dyn BufRead + Send>> {
    /// Opens the trace at `path`, decompressing it if it is gzip (detected by its magic bytes,
    /// whatever its extension), and parses its header. Errors name the path.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, SwfError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let io = |source| SwfError::Io {
            file: name.clone(),
            source,
        };
        let mut file = BufReader::with_capacity(READ_BUFFER, File::open(path).map_err(io)?);
        let gzip = file.fill_buf().map_err(io)?.starts_with(&GZIP_MAGIC);
        let input: Box<dyn BufRead + Send> = if gzip {
            Box::new(BufReader::with_capacity(
                READ_BUFFER,
                MultiGzDecoder::new(file),
            ))
        } else {
            Box::new(file)
        };
        SwfReader::new(name, input)
    }
}

impl<R: BufRead> SwfReader<R> {
    /// Wraps `input`, named `name` in errors (by convention [`INPUT_NAME`] when it is not a
    /// file), and reads the header: every comment line up to the first job line.
    ///
    /// Fails on an I/O error, a bad header value, or an over-long line before the first job.
    pub fn new(name: impl Into<String>, input: R) -> Result<Self, SwfError> {
        let mut reader = SwfReader {
            name: name.into(),
            input,
            buf: Vec::with_capacity(256),
            line: 0,
            header: SwfHeader::new(),
            late_comments: 0,
            late_keys: Vec::new(),
            pending: false,
            finished: false,
        };
        while reader.read_line()? {
            if is_comment(&reader.buf) {
                reader.absorb_comment()?;
            } else if !reader.buf.trim_ascii().is_empty() {
                reader.pending = true;
                break;
            }
        }
        Ok(reader)
    }

    /// The header: the comment lines before the first job line.
    pub fn header(&self) -> &SwfHeader {
        &self.header
    }

    /// How many comment lines came after the first job line so far (skipped, not part of the
    /// header).
    pub fn late_comments(&self) -> u64 {
        self.late_comments
    }

    /// The first [`MAX_LATE_KEYS`] comment lines after the first job line that set a standard
    /// header key (ignored), with their line numbers.
    pub fn late_keys(&self) -> &[LateKey] {
        &self.late_keys
    }

    /// The number of the last line read (from 1; 0 before any).
    pub fn line_number(&self) -> u64 {
        self.line
    }

    /// Reads the rest of the trace into a [`RigidTrace`]: the valid jobs in file order and a
    /// count of the invalid records by reason. Stops at the first malformed line, and at the
    /// first valid job whose id an earlier valid job has ([`SwfError::DuplicateJob`], found
    /// while streaming, before the rest of the trace is loaded).
    pub fn into_rigid_trace(mut self) -> Result<RigidTrace, SwfError> {
        let mut jobs: Vec<RigidJob> = Vec::new();
        let mut ids = SeenIds::default();
        let mut invalid = BTreeMap::new();
        while let Some(record) = self.next() {
            match record?.to_rigid() {
                Ok(job) => {
                    if !ids.insert(job.id, || jobs.iter().map(|j| j.id)) {
                        return Err(SwfError::DuplicateJob {
                            file: self.name,
                            line: self.line,
                            job: job.id.0,
                        });
                    }
                    jobs.push(job);
                }
                Err(reason) => *invalid.entry(reason).or_insert(0) += 1,
            }
        }
        Ok(RigidTrace {
            header: self.header,
            jobs,
            invalid,
            late_comments: self.late_comments,
            late_keys: self.late_keys,
        })
    }

    /// Reads the next line into `buf`; `false` at the end of the input.
    fn read_line(&mut self) -> Result<bool, SwfError> {
        self.buf.clear();
        let limit = MAX_LINE_LEN as u64 + 1; // the line and its '\n'
        let name = &self.name;
        let io = |source| SwfError::Io {
            file: name.clone(),
            source,
        };
        let n = (&mut self.input)
            .take(limit)
            .read_until(b'\n', &mut self.buf)
            .map_err(io)?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        // A UTF-8 byte order mark, which some editors write first, is not part of the line.
        if self.line == 1 && self.buf.starts_with(b"\xef\xbb\xbf") {
            self.buf.drain(..3);
        }
        if self.buf.len() > MAX_LINE_LEN && self.buf.last() != Some(&b'\n') {
            // Skip the rest of the over-long line, so reading can go on after the error; a
            // line with no end in sight (`/dev/zero`) ends the input instead.
            let mut skipped = 0usize;
            loop {
                if skipped > MAX_SKIP {
                    self.finished = true;
                    break;
                }
                let available = match self.input.fill_buf() {
                    Ok(available) => available,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(io(e)),
                };
                let (used, found) = match available.iter().position(|&b| b == b'\n') {
                    Some(end) => (end + 1, true),
                    None => (available.len(), available.is_empty()),
                };
                self.input.consume(used);
                skipped += used;
                if found {
                    break;
                }
            }
            return Err(SwfError::LineTooLong {
                file: self.name.clone(),
                line: self.line,
                limit: MAX_LINE_LEN,
            });
        }
        Ok(true)
    }

    /// Adds the comment line in `buf` to the header.
    fn absorb_comment(&mut self) -> Result<(), SwfError> {
        let text = comment_text(&self.buf);
        self.header.absorb(&text).map_err(|bad| SwfError::Header {
            file: self.name.clone(),
            line: self.line,
            key: bad.key,
            value: bad.value,
            expected: bad.expected,
        })
    }
}

impl<R: BufRead> Iterator for SwfReader<R> {
    type Item = Result<SwfRecord, SwfError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.finished {
                return None;
            }
            if self.pending {
                self.pending = false;
            } else {
                // A line wholly in the input's buffer is parsed where it lies; one that
                // crosses the buffer's end (or is over-long) is copied by `read_line`.
                let available = match self.input.fill_buf() {
                    Ok(available) => available,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(source) => {
                        self.finished = true;
                        return Some(Err(SwfError::Io {
                            file: self.name.clone(),
                            source,
                        }));
                    }
                };
                if available.is_empty() {
                    self.finished = true;
                    return None;
                }
                if let Some(end) = memchr::memchr(b'\n', available)
                    && end <= MAX_LINE_LEN
                {
                    let line = &available[..=end];
                    self.line += 1;
                    let item = if is_comment(line) {
                        late_comment(
                            line,
                            self.line,
                            &mut self.late_comments,
                            &mut self.late_keys,
                        );
                        None
                    } else if line.trim_ascii().is_empty() {
                        None
                    } else {
                        Some(parse_record(line, &self.name, self.line))
                    };
                    self.input.consume(end + 1);
                    match item {
                        Some(item) => return Some(item),
                        None => continue,
                    }
                }
                match self.read_line() {
                    Ok(true) => {}
                    Ok(false) => {
                        self.finished = true;
                        return None;
                    }
                    Err(e) => {
                        self.finished |= matches!(e, SwfError::Io { .. });
                        return Some(Err(e));
                    }
                }
            }
            if is_comment(&self.buf) {
                late_comment(
                    &self.buf,
                    self.line,
                    &mut self.late_comments,
                    &mut self.late_keys,
                );
            } else if !self.buf.trim_ascii().is_empty() {
                return Some(parse_record(&self.buf, &self.name, self.line));
            }
        }
    }
}

impl<R: BufRead> FusedIterator for SwfReader<R> {}

/// Counts comment line `line` (number `line_no`), met after the first job line, and records
/// the standard key it sets, if any.
fn late_comment(line: &[u8], line_no: u64, count: &mut u64, keys: &mut Vec<LateKey>) {
    *count += 1;
    if keys.len() < MAX_LATE_KEYS
        && let Some(key) = standard_key(&comment_text(line))
    {
        keys.push(LateKey { line: line_no, key });
    }
}

/// A comment line without its line break, borrowed when it is UTF-8 (decoded as Latin-1, as old
/// traces are, otherwise).
fn comment_text(line: &[u8]) -> Cow<'_, str> {
    let bytes = line.strip_suffix(b"\n").unwrap_or(line);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// Parses one job line.
fn parse_record(line: &[u8], file: &str, line_no: u64) -> Result<SwfRecord, SwfError> {
    // Most lines are 18 plain integers: read in one pass, without the per-field errors' text.
    if let Some(Ok(record)) = plain_integers(line).map(|v| assemble(&Integers(v), Vec::new())) {
        return Ok(record);
    }
    parse_tokens(line, file, line_no)
}

/// Parses one job line token by token: any line, with the error of its first bad field.
fn parse_tokens(line: &[u8], file: &str, line_no: u64) -> Result<SwfRecord, SwfError> {
    let mut tokens = Tokens(line);
    let mut fields = Fields {
        text: [&[]; FIELD_COUNT],
        file,
        line: line_no,
    };
    let mut found = 0;
    for (slot, token) in fields.text.iter_mut().zip(&mut tokens) {
        *slot = token;
        found += 1;
    }
    if found < FIELD_COUNT {
        return Err(SwfError::FieldCount {
            file: file.to_owned(),
            line: line_no,
            found,
        });
    }
    let extra = tokens
        .enumerate()
        .map(|(i, token)| match std::str::from_utf8(token) {
            Ok(text) => Ok(text.to_owned()),
            Err(_) => Err(fields.error(FIELD_COUNT + i, token, FieldProblem::NotUtf8)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    assemble(&fields, extra)
}

/// The typed fields of a job line: from its text ([`Fields`], with errors that name the
/// field), or from its values when all are plain integers ([`Integers`], `Err(())` for a value
/// its field does not allow).
trait FieldValues {
    type Error;
    /// Field 1, the job number: never missing, never negative.
    fn job(&self) -> Result<u64, Self::Error>;
    /// A time field: any integer, `-1` being missing.
    fn time(&self, index: usize) -> Result<Option<i64>, Self::Error>;
    /// A count or identifier: `-1` (missing) or a non-negative integer that fits `T`.
    fn count<T: TryFrom<i128>>(&self, index: usize) -> Result<Option<T>, Self::Error>;
    /// A fractional field: any finite number, `-1` being missing.
    fn fractional(&self, index: usize) -> Result<Option<f64>, Self::Error>;
}

/// The record of a job line's fields, its extra fields given.
#[inline]
fn assemble<F: FieldValues>(fields: &F, extra: Vec<String>) -> Result<SwfRecord, F::Error> {
    Ok(SwfRecord {
        job: JobId(fields.job()?),
        submit: fields.time(1)?.map(Time),
        wait: fields.time(2)?.map(Duration),
        run_time: fields.time(3)?.map(Duration),
        allocated_procs: fields.count(4)?,
        avg_cpu_time: fields.fractional(5)?,
        used_memory: fields.fractional(6)?,
        requested_procs: fields.count(7)?,
        requested_time: fields.time(8)?.map(Duration),
        requested_memory: fields.fractional(9)?,
        status: fields.count(10)?.map(SwfStatus),
        user: fields.count(11)?,
        group: fields.count(12)?,
        executable: fields.count(13)?,
        queue: fields.count(14)?,
        partition: fields.count(15)?,
        preceding_job: fields.count(16)?.map(JobId),
        think_time: fields.time(17)?.map(Duration),
        extra,
    })
}

/// The whitespace-separated tokens of a line.
struct Tokens<'a>(&'a [u8]);

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.0.iter().position(|b| !b.is_ascii_whitespace())?;
        let (_, rest) = self.0.split_at(start);
        let end = rest
            .iter()
            .position(u8::is_ascii_whitespace)
            .unwrap_or(rest.len());
        let (token, rest) = rest.split_at(end);
        self.0 = rest;
        Some(token)
    }
}

/// The 18 standard fields of a job line, with the line's location for errors.
struct Fields<'a> {
    text: [&'a [u8]; FIELD_COUNT],
    file: &'a str,
    line: u64,
}

impl Fields<'_> {
    /// Field `index` (from 0) parsed by `parse`.
    #[inline]
    fn get<T>(
        &self,
        index: usize,
        parse: impl FnOnce(&[u8]) -> Result<T, FieldProblem>,
    ) -> Result<T, SwfError> {
        parse(self.text[index]).map_err(|problem| self.error(index, self.text[index], problem))
    }

    /// The error for field `index` (from 0; 18 and up are extra fields) holding `text`.
    #[cold]
    fn error(&self, index: usize, text: &[u8], problem: FieldProblem) -> SwfError {
        let text = excerpt(&String::from_utf8_lossy(text));
        SwfError::Field {
            file: self.file.to_owned(),
            line: self.line,
            field: index + 1,
            name: FIELD_NAMES.get(index).copied().unwrap_or("extra field"),
            text,
            problem,
        }
    }
}

impl FieldValues for Fields<'_> {
    type Error = SwfError;

    #[inline]
    fn job(&self) -> Result<u64, SwfError> {
        self.get(0, |text| {
            u64::try_from(parse_int(text)?).map_err(|_| FieldProblem::NegativeJobNumber)
        })
    }

    #[inline]
    fn time(&self, index: usize) -> Result<Option<i64>, SwfError> {
        self.get(index, |text| time_value(parse_int(text)?))
    }

    #[inline]
    fn count<T: TryFrom<i128>>(&self, index: usize) -> Result<Option<T>, SwfError> {
        self.get(index, |text| count_value(parse_int(text)?))
    }

    #[inline]
    fn fractional(&self, index: usize) -> Result<Option<f64>, SwfError> {
        self.get(index, |text| {
            // Fast path: most values are integers, `-1` above all.
            if let Some(value) = parse_int(text).ok().and_then(integral_fraction) {
                return Ok(value);
            }
            let value: f64 = std::str::from_utf8(text)
                .ok()
                .and_then(|text| text.parse().ok())
                .ok_or(FieldProblem::NotANumber)?;
            if !value.is_finite() {
                return Err(FieldProblem::NotFinite);
            }
            Ok((value != -1.0).then_some(value))
        })
    }
}

/// A time field's value: any integer that fits `i64`, `None` for `-1`.
#[inline]
fn time_value(v: i128) -> Result<Option<i64>, FieldProblem> {
    match v {
        -1 => Ok(None),
        v => i64::try_from(v)
            .map(Some)
            .map_err(|_| FieldProblem::OutOfRange),
    }
}

/// A count's or identifier's value: `None` for `-1`, else non-negative and within `T`.
#[inline]
fn count_value<T: TryFrom<i128>>(v: i128) -> Result<Option<T>, FieldProblem> {
    match v {
        -1 => Ok(None),
        v if v < 0 => Err(FieldProblem::Negative),
        v => T::try_from(v)
            .map(Some)
            .map_err(|_| FieldProblem::OutOfRange),
    }
}

/// A fractional field holding the integer `v`, if `f64` represents it exactly: `None` inside
/// for `-1` (missing).
#[inline]
fn integral_fraction(v: i128) -> Option<Option<f64>> {
    let v = i64::try_from(v).ok()?;
    (v.unsigned_abs() <= 1 << f64::MANTISSA_DIGITS).then(|| (v != -1).then_some(v as f64))
}

/// The 18 fields of a line that holds exactly 18 whitespace-separated tokens, each an optional
/// `-` and 1 to 18 digits (so that it fits `i64`); `None` for any other line, which the general
/// parser then reads (and reports on).
#[inline]
fn plain_integers(line: &[u8]) -> Option<[i64; FIELD_COUNT]> {
    let mut values = [0i64; FIELD_COUNT];
    let mut bytes = line.iter().copied().peekable();
    for value in &mut values {
        while bytes.next_if(u8::is_ascii_whitespace).is_some() {}
        let negative = bytes.next_if_eq(&b'-').is_some();
        let (mut magnitude, mut digits) = (0i64, 0);
        while let Some(b) = bytes.next_if(u8::is_ascii_digit) {
            digits += 1;
            if digits > 18 {
                return None;
            }
            magnitude = magnitude * 10 + i64::from(b - b'0');
        }
        // A token ends at whitespace or the line's end.
        if digits == 0 || bytes.peek().is_some_and(|b| !b.is_ascii_whitespace()) {
            return None;
        }
        *value = if negative { -magnitude } else { magnitude };
    }
    // Nothing but whitespace after the 18th field (no extra fields).
    bytes.all(|b| b.is_ascii_whitespace()).then_some(values)
}

/// The values of a line of 18 plain integers ([`plain_integers`]).
struct Integers([i64; FIELD_COUNT]);

impl FieldValues for Integers {
    type Error = ();

    #[inline]
    fn job(&self) -> Result<u64, ()> {
        u64::try_from(self.0[0]).map_err(drop)
    }

    #[inline]
    fn time(&self, index: usize) -> Result<Option<i64>, ()> {
        time_value(i128::from(self.0[index])).map_err(drop)
    }

    #[inline]
    fn count<T: TryFrom<i128>>(&self, index: usize) -> Result<Option<T>, ()> {
        count_value(i128::from(self.0[index])).map_err(drop)
    }

    #[inline]
    fn fractional(&self, index: usize) -> Result<Option<f64>, ()> {
        integral_fraction(i128::from(self.0[index])).ok_or(())
    }
}

/// Parses an optionally signed decimal integer of magnitude up to `u64::MAX` (so that it fits
/// every field type); an all-zero fraction (`3.0`, `3.`) is allowed.
#[inline]
fn parse_int(text: &[u8]) -> Result<i128, FieldProblem> {
    let (negative, unsigned) = match text {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, text),
    };
    let mut magnitude: u64 = 0;
    for (i, &b) in unsigned.iter().enumerate() {
        if b.is_ascii_digit() {
            magnitude = magnitude
                .checked_mul(10)
                .and_then(|m| m.checked_add(u64::from(b - b'0')))
                .ok_or(FieldProblem::OutOfRange)?;
        } else if b == b'.' && i > 0 && unsigned.iter().skip(i + 1).all(|&z| z == b'0') {
            break;
        } else {
            return Err(FieldProblem::NotAnInteger);
        }
    }
    if unsigned.is_empty() {
        return Err(FieldProblem::NotAnInteger);
    }
    let magnitude = i128::from(magnitude);
    Ok(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A field value of the kinds traces hold: missing, small, large, negative, past `u32`
    /// and `i64`, or not a plain integer at all.
    fn token() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("-1".to_owned()),
            Just("0".to_owned()),
            Just("-0".to_owned()),
            (0i64..100_000).prop_map(|v| v.to_string()),
            (-5i64..0).prop_map(|v| v.to_string()),
            Just("4294967296".to_owned()),
            Just("999999999999999999".to_owned()),
            Just("9999999999999999999".to_owned()),
            Just("9007199254740993".to_owned()),
            Just("3.0".to_owned()),
            Just("2.5".to_owned()),
            Just("+7".to_owned()),
            Just("-".to_owned()),
            Just("1e3".to_owned()),
        ]
    }

    proptest! {
        /// The one-pass reading of plain-integer lines gives what the token-by-token parser
        /// gives, and leaves every other line (and every error) to it.
        #[test]
        fn plain_lines_parse_as_token_by_token(
            fields in prop::collection::vec(token(), 16..20),
            gaps in prop::collection::vec(prop_oneof![Just(" "), Just("  "), Just("\t"), Just(" \r")], 20),
        ) {
            let mut line = String::from(gaps[19]);
            for (field, gap) in fields.iter().zip(&gaps) {
                line.push_str(field);
                line.push_str(gap);
            }
            line.push('\n');
            let line = line.as_bytes();
            let general = parse_tokens(line, "t", 1).map_err(|e| e.to_string());
            let plain = plain_integers(line).map(|v| assemble(&Integers(v), Vec::new()));
            if let Some(Ok(record)) = plain {
                prop_assert_eq!(&Ok(record), &general);
            }
            prop_assert_eq!(parse_record(line, "t", 1).map_err(|e| e.to_string()), general);
        }
    }
}
