//! Reading a workload for `simulate` and `experiment`: SWF (plain or gzip) or Batsim JSON,
//! chosen by content, with the machine size and where it came from, the file's SHA-256, and
//! every invalid record with its reason.

use cosched_core::RigidJob;
use cosched_workload::admit::SeenIds;
use cosched_workload::batsim::{self, BatsimError};
use cosched_workload::swf::{LateKey, SwfError, SwfReader};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use thiserror::Error;

/// One record that was skipped as invalid.
#[derive(Clone, Debug, Serialize)]
pub struct InvalidRecord {
    /// Line of the SWF file (from 1), or position in the Batsim `jobs` array (from 0).
    pub location: u64,
    /// The job's id as written.
    pub job: String,
    /// Why it was skipped.
    pub reason: String,
}

/// A workload read from a file.
#[derive(Clone, Debug)]
pub struct Workload {
    /// The file.
    pub path: PathBuf,
    /// Its stem (`SDSC-SP2-sample-4961`), used as Batsim's `workload_name`.
    pub name: String,
    /// `swf` or `batsim-json`.
    pub format: &'static str,
    /// SHA-256 of the file's bytes, hex.
    pub sha256: String,
    /// The valid jobs, in file order.
    pub jobs: Vec<RigidJob>,
    /// Profile names of the jobs (Batsim input only).
    pub profiles: Option<Vec<String>>,
    /// The records skipped as invalid.
    pub invalid: Vec<InvalidRecord>,
    /// The machine size the file states, and where (`MaxProcs`, `MaxNodes`, `nb_res`).
    pub stated_capacity: Option<(u64, &'static str)>,
    /// SWF header keys met after the first job (ignored): tools warn.
    pub late_keys: Vec<LateKey>,
    /// Valid jobs without an estimate of their own, whose run time stands in as the estimate:
    /// SWF records without a requested time; Batsim jobs whose walltime equals their run time
    /// (what a missing one reads as).
    pub missing_estimates: usize,
}

impl Workload {
    /// Invalid records counted by reason.
    pub fn invalid_by_reason(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for r in &self.invalid {
            *out.entry(r.reason.clone()).or_insert(0) += 1;
        }
        out
    }
}

/// Why a workload could not be read.
#[derive(Debug, Error)]
pub enum InputError {
    /// The SWF reader's error (it names the file and line).
    #[error(transparent)]
    Swf(#[from] SwfError),
    /// The Batsim reader's error.
    #[error(transparent)]
    Batsim(#[from] BatsimError),
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A compressed file in a format the reader does not decompress.
    #[error(
        "{path}: {format}-compressed, which is not supported (decompress it, or recompress it with gzip)"
    )]
    Compressed {
        /// The file.
        path: PathBuf,
        /// The compression format (`xz`, `zstd`, `bzip2`, …).
        format: &'static str,
    },
    /// JSON that is not an object: not a Batsim workload.
    #[error(
        "{path}: its top level is a JSON array; a Batsim workload is one JSON object with `nb_res`, `jobs` and `profiles`"
    )]
    NotBatsim {
        /// The file.
        path: PathBuf,
    },
    /// Two valid SWF jobs with one id.
    #[error("{path}:{line}: job {job} appears more than once in the trace")]
    DuplicateJob {
        /// The file.
        path: PathBuf,
        /// Its line.
        line: u64,
        /// The id.
        job: u64,
    },
}

/// The first two bytes of a gzip stream.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The path that names standard input.
pub const STDIN: &str = "-";

/// The magic numbers of compression formats that are refused by name (their file formats'
/// specifications): a trace in one of them would otherwise read as garbage SWF.
const OTHER_COMPRESSIONS: [(&[u8], &str); 5] = [
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"BZh", "bzip2"),
    (b"\x04\x22\x4d\x18", "lz4"),
    (b"PK\x03\x04", "zip"),
];

/// The UTF-8 byte order mark some editors write first; skipped.
const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// Reads `path` (`-`: standard input): Batsim JSON when its first non-blank byte (after a
/// UTF-8 byte order mark) is `{`, SWF otherwise (either may be gzip-compressed; JSON whose top
/// level is an array, and the other usual compressions, are refused by name). The bytes are
/// hashed as they are read (one pass, so a pipe works too).
pub fn read(path: &Path) -> Result<Workload, InputError> {
    parse(path)
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> InputError + '_ {
    move |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A reader that hashes what passes through it.
struct Hashing<R> {
    inner: R,
    hasher: Rc<RefCell<Sha256>>,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.borrow_mut().update(&buf[..n]);
        Ok(n)
    }
}

fn parse(path: &Path) -> Result<Workload, InputError> {
    let stdin = path.as_os_str() == STDIN;
    let name = if stdin {
        "stdin".to_string()
    } else {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let name = name.strip_suffix(".swf").unwrap_or(&name).to_string();
    let name = name.strip_suffix(".json").unwrap_or(&name).to_string();
    let hasher = Rc::new(RefCell::new(Sha256::new()));
    let inner: Box<dyn Read> = if stdin {
        Box::new(io::stdin().lock())
    } else {
        Box::new(File::open(path).map_err(io_error(path))?)
    };
    let file = Hashing {
        inner,
        hasher: Rc::clone(&hasher),
    };
    let mut file = BufReader::with_capacity(1 << 18, file);
    let head = file.fill_buf().map_err(io_error(path))?;
    if let Some(&(_, format)) = OTHER_COMPRESSIONS
        .iter()
        .find(|(magic, _)| head.starts_with(magic))
    {
        return Err(InputError::Compressed {
            path: path.to_path_buf(),
            format,
        });
    }
    let gzip = head.starts_with(&GZIP_MAGIC);
    let mut input: Box<dyn BufRead> = if gzip {
        Box::new(BufReader::with_capacity(
            1 << 18,
            flate2::read::MultiGzDecoder::new(file),
        ))
    } else {
        Box::new(file)
    };
    if input
        .fill_buf()
        .map_err(io_error(path))?
        .starts_with(UTF8_BOM)
    {
        input.consume(UTF8_BOM.len());
    }
    let first = loop {
        let buf = input.fill_buf().map_err(io_error(path))?;
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => break Some(buf[i]),
            None if buf.is_empty() => break None,
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    };
    if first == Some(b'[') {
        return Err(InputError::NotBatsim {
            path: path.to_path_buf(),
        });
    }
    let json = first == Some(b'{');
    let display = if stdin {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    };
    let mut workload = Workload {
        path: path.to_path_buf(),
        name,
        format: "swf",
        sha256: String::new(),
        jobs: Vec::new(),
        profiles: None,
        invalid: Vec::new(),
        stated_capacity: None,
        late_keys: Vec::new(),
        missing_estimates: 0,
    };
    if json {
        let w = batsim::read(&display, input)?;
        workload.sha256 = finish(&hasher);
        workload.format = "batsim-json";
        // The reader gives a job without a positive walltime its run time as the estimate.
        workload.missing_estimates = w.jobs.iter().filter(|j| j.estimate == j.runtime).count();
        workload.jobs = w.jobs;
        workload.profiles = Some(w.profiles);
        workload.stated_capacity = w.nb_res.map(|n| (n, "nb_res"));
        workload.invalid = w
            .invalid
            .into_iter()
            .map(|(index, job, reason)| InvalidRecord {
                location: index as u64,
                job,
                reason: reason.to_string(),
            })
            .collect();
        return Ok(workload);
    }
    let mut reader = SwfReader::new(display, input)?;
    let values = reader.header().values();
    workload.stated_capacity = values
        .max_procs
        .map(|n| (n, "MaxProcs"))
        .or(values.max_nodes.map(|n| (n, "MaxNodes")));
    let mut seen = SeenIds::default();
    while let Some(record) = reader.next() {
        let record = record?;
        match record.to_rigid() {
            Ok(job) => {
                if record.requested_time.is_none_or(|t| t.0 <= 0) {
                    workload.missing_estimates += 1;
                }
                if !seen.insert(job.id, || workload.jobs.iter().map(|j| j.id)) {
                    return Err(InputError::DuplicateJob {
                        path: path.to_path_buf(),
                        line: reader.line_number(),
                        job: job.id.0,
                    });
                }
                workload.jobs.push(job);
            }
            Err(reason) => workload.invalid.push(InvalidRecord {
                location: reader.line_number(),
                job: record.job.0.to_string(),
                reason: reason.to_string(),
            }),
        }
    }
    workload.late_keys = reader.late_keys().to_vec();
    drop(reader);
    workload.sha256 = finish(&hasher);
    Ok(workload)
}

/// The hash of everything read, as hex.
fn finish(hasher: &RefCell<Sha256>) -> String {
    format!("{:x}", hasher.replace(Sha256::new()).finalize())
}
