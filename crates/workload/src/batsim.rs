//! Batsim's JSON workload format: a reader to [`RigidJob`]s and a writer from them.
//!
//! A Batsim workload (Batsim documentation, "Workload") is one JSON object:
//!
//! ```json
//! { "nb_res": 4,
//!   "jobs": [ { "id": 1, "subtime": 0, "walltime": 100, "res": 4, "profile": "60" } ],
//!   "profiles": { "60": { "type": "delay", "delay": 60 } } }
//! ```
//!
//! - a job's run time is its profile's `delay`; only `delay` profiles have a run time known
//!   in advance, so a job with another profile type is counted invalid
//!   ([`InvalidBatsimJob::NotDelay`]), as are a job whose profile is missing, a job of
//!   `res` 0, and a negative delay;
//! - `walltime` is the estimate; a missing or non-positive walltime means "no limit" and
//!   the estimate is the run time (SWF's rule for a missing requested time);
//! - `id` is a number or a string holding one (`"17"`); Batsim's `workload!17` form keeps the
//!   part after the last `!`; other ids are errors, since the simulators key jobs by number;
//! - times are seconds, and cosched's clock is integer seconds: integers are read exactly
//!   (a submit time of 9007199254740993 stays that, though a double cannot hold it), a
//!   fractional duration (`walltime`, `delay`) rounds **up** to whole seconds, so a positive
//!   one is at least 1 s and a walltime stays at or above the delay it bounds whether the
//!   job is simulated from the JSON or from an SWF converted from it (SWF's requested time 0
//!   would mean "none"), and a fractional `subtime` rounds to the nearest second; a time
//!   outside i64 seconds makes the job invalid ([`InvalidBatsimJob::TimeOutOfRange`]);
//! - `nb_res` is the machine size, kept in [`BatsimWorkload::nb_res`].
//!
//! The writer names each job's profile by its run time in seconds (`"60"`), one `delay`
//! profile per distinct run time, as Batsim's SWF converter does, and writes every time as a
//! JSON integer, so a round trip keeps it exactly.
//!
//! ```
//! use cosched_workload::batsim::{read, write};
//! let text = r#"{"nb_res": 4, "jobs": [{"id": "w0!3", "subtime": 1.4, "walltime": -1,
//!     "res": 2, "profile": "p"}, {"id": 4, "subtime": 0, "walltime": 0.4, "res": 1,
//!     "profile": "p"}], "profiles": {"p": {"type": "delay", "delay": 29.2}}}"#;
//! let w = read("w.json", text.as_bytes())?;
//! assert_eq!((w.nb_res, w.jobs[0].id.0, w.jobs[0].submit.0, w.jobs[0].estimate.0), (Some(4), 3, 1, 30));
//! assert_eq!((w.jobs[1].runtime.0, w.jobs[1].estimate.0), (30, 1));
//! let mut out = Vec::new();
//! write(&mut out, 4, &w.jobs)?;
//! assert_eq!(read("again.json", &out[..])?.jobs, w.jobs);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use cosched_core::{Duration, JobId, RigidJob, Time};
use serde::{Deserialize, Serialize};
use serde_json::Number;
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use thiserror::Error;

/// A Batsim workload read as rigid jobs.
#[derive(Clone, Debug, PartialEq)]
pub struct BatsimWorkload {
    /// `nb_res`, the machine's resources, if given.
    pub nb_res: Option<u64>,
    /// The valid jobs, in file order.
    pub jobs: Vec<RigidJob>,
    /// Each valid job's profile name (same order as `jobs`).
    pub profiles: Vec<String>,
    /// The invalid jobs: their position in `jobs` (from 0), id text and reason.
    pub invalid: Vec<(usize, String, InvalidBatsimJob)>,
}

/// Why a Batsim job cannot become a [`RigidJob`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Error)]
pub enum InvalidBatsimJob {
    /// The job names a profile the workload does not define.
    #[error("its profile is not defined")]
    MissingProfile,
    /// The profile is not of type `delay`, so its run time is not known in advance.
    #[error("its profile is not a delay profile")]
    NotDelay,
    /// The delay is negative or not a finite number.
    #[error("its delay is negative or not finite")]
    BadDelay,
    /// `res` is 0.
    #[error("it asks for no resources")]
    NoResources,
    /// A time is out of the range of i64 seconds.
    #[error("a time is out of range")]
    TimeOutOfRange,
}

/// What can go wrong reading or writing a Batsim workload.
#[derive(Debug, Error)]
pub enum BatsimError {
    /// Not valid JSON, or not a Batsim workload (the message says where).
    #[error("{file}: not a Batsim workload: {source}")]
    Json {
        /// Display name of the input.
        file: String,
        /// The parser's error (with line and column).
        source: serde_json::Error,
    },
    /// An id that is not a non-negative integer.
    #[error("{file}: job {index} (from 0) has id `{id}`, which is not a non-negative integer")]
    BadId {
        /// Display name of the input.
        file: String,
        /// Position in `jobs`.
        index: usize,
        /// The id.
        id: String,
    },
    /// Two valid jobs with one id.
    #[error("{file}: job id {id} appears more than once")]
    DuplicateJob {
        /// Display name of the input.
        file: String,
        /// The id.
        id: u64,
    },
    /// Writing failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

#[derive(Deserialize, Serialize)]
#[serde(untagged)]
enum Id {
    Number(serde_json::Number),
    Text(String),
}

#[derive(Deserialize, Serialize)]
struct JobJson {
    id: Id,
    subtime: Number,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    walltime: Option<Number>,
    res: u32,
    profile: String,
}

#[derive(Deserialize, Serialize)]
struct ProfileJson {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    delay: Option<Number>,
}

#[derive(Deserialize, Serialize)]
struct WorkloadJson {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nb_res: Option<u64>,
    jobs: Vec<JobJson>,
    #[serde(default)]
    profiles: BTreeMap<String, ProfileJson>,
}

/// How a fractional number of seconds becomes whole seconds.
#[derive(Clone, Copy)]
enum Round {
    /// Durations: up, so that a positive one is at least a second.
    Up,
    /// Instants: to the nearest second.
    Nearest,
}

/// A JSON number of seconds as whole seconds: an integer exactly, a fraction rounded as
/// `round` says; `None` outside i64.
fn seconds(n: &Number, round: Round) -> Option<i64> {
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    if n.is_u64() {
        return None;
    }
    let x = n.as_f64()?;
    let r = match round {
        Round::Up => x.ceil(),
        Round::Nearest => x.round(),
    };
    (r.is_finite() && r >= i64::MIN as f64 && r < i64::MAX as f64).then_some(r as i64)
}

/// Whether `n` is above zero.
fn positive(n: &Number) -> bool {
    n.as_f64().is_some_and(|x| x > 0.0)
}

fn parse_id(id: &Id) -> Option<u64> {
    match id {
        Id::Number(n) => n.as_u64(),
        Id::Text(t) => t.rsplit('!').next().and_then(|s| s.trim().parse().ok()),
    }
}

/// Reads a workload from `input` (named `file` in errors).
pub fn read(file: &str, input: impl Read) -> Result<BatsimWorkload, BatsimError> {
    let raw: WorkloadJson =
        serde_json::from_reader(io::BufReader::new(input)).map_err(|source| BatsimError::Json {
            file: file.to_string(),
            source,
        })?;
    let mut out = BatsimWorkload {
        nb_res: raw.nb_res,
        jobs: Vec::with_capacity(raw.jobs.len()),
        profiles: Vec::with_capacity(raw.jobs.len()),
        invalid: Vec::new(),
    };
    let mut seen = std::collections::HashSet::with_capacity(raw.jobs.len());
    for (index, job) in raw.jobs.into_iter().enumerate() {
        let Some(id) = parse_id(&job.id) else {
            let id = match &job.id {
                Id::Number(n) => n.to_string(),
                Id::Text(t) => t.clone(),
            };
            return Err(BatsimError::BadId {
                file: file.to_string(),
                index,
                id,
            });
        };
        let checked = (|| {
            let profile = raw
                .profiles
                .get(&job.profile)
                .ok_or(InvalidBatsimJob::MissingProfile)?;
            if profile.kind != "delay" {
                return Err(InvalidBatsimJob::NotDelay);
            }
            let delay = profile.delay.as_ref().ok_or(InvalidBatsimJob::NotDelay)?;
            if !delay.as_f64().is_some_and(|d| d >= 0.0) {
                return Err(InvalidBatsimJob::BadDelay);
            }
            if job.res == 0 {
                return Err(InvalidBatsimJob::NoResources);
            }
            let out_of_range = InvalidBatsimJob::TimeOutOfRange;
            let runtime = seconds(delay, Round::Up).ok_or(out_of_range.clone())?;
            let submit = seconds(&job.subtime, Round::Nearest).ok_or(out_of_range.clone())?;
            let estimate = match job.walltime.as_ref().filter(|w| positive(w)) {
                Some(w) => seconds(w, Round::Up).ok_or(out_of_range)?,
                None => runtime,
            };
            Ok(RigidJob {
                id: JobId(id),
                submit: Time(submit),
                size: job.res,
                runtime: Duration(runtime),
                estimate: Duration(estimate),
                user: None,
                group: None,
            })
        })();
        match checked {
            Ok(rigid) => {
                if !seen.insert(id) {
                    return Err(BatsimError::DuplicateJob {
                        file: file.to_string(),
                        id,
                    });
                }
                out.jobs.push(rigid);
                out.profiles.push(job.profile);
            }
            Err(reason) => out.invalid.push((index, id.to_string(), reason)),
        }
    }
    Ok(out)
}

/// Writes `jobs` as a Batsim workload of `nb_res` resources: one `delay` profile per distinct
/// run time, named by it.
pub fn write(out: impl Write, nb_res: u64, jobs: &[RigidJob]) -> Result<(), BatsimError> {
    let mut profiles = BTreeMap::new();
    let jobs = jobs
        .iter()
        .map(|j| {
            let name = j.runtime.0.to_string();
            profiles.entry(name.clone()).or_insert(ProfileJson {
                kind: "delay".into(),
                delay: Some(j.runtime.0.into()),
            });
            JobJson {
                id: Id::Number(j.id.0.into()),
                subtime: j.submit.0.into(),
                walltime: Some(j.estimate.0.into()),
                res: j.size,
                profile: name,
            }
        })
        .collect();
    let workload = WorkloadJson {
        nb_res: Some(nb_res),
        jobs,
        profiles,
    };
    let mut out = io::BufWriter::new(out);
    serde_json::to_writer(&mut out, &workload).map_err(io::Error::from)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Writing then reading gives the same jobs (ids, times, sizes, run times; a
        /// non-positive estimate reads back as the run time, as a missing walltime).
        #[test]
        fn write_then_read_round_trips(raw in prop::collection::vec(
            (0u64..1_000_000, -1_000_000i64..1_000_000_000, 1u32..100_000, 0i64..1_000_000, 1i64..1_000_000),
            0..40,
        )) {
            let mut seen = std::collections::HashSet::new();
            let jobs: Vec<RigidJob> = raw
                .into_iter()
                .filter(|r| seen.insert(r.0))
                .map(|(id, submit, size, runtime, estimate)| {
                    RigidJob::new(JobId(id), Time(submit), size, Duration(runtime), Duration(estimate))
                        .unwrap()
                })
                .collect();
            let mut out = Vec::new();
            write(&mut out, 64, &jobs).unwrap();
            let back = read("p.json", &out[..]).unwrap();
            prop_assert_eq!(back.nb_res, Some(64));
            prop_assert!(back.invalid.is_empty());
            prop_assert_eq!(back.jobs, jobs);
        }
    }

    /// Integers a double cannot hold are written and read exactly; fractional durations round
    /// up, so a sub-second walltime is 1 s (not 0, which SWF would read as "no limit").
    #[test]
    fn times_are_exact_integers_and_fractional_durations_round_up() {
        let big = [
            9_007_199_254_740_993,
            i64::MAX - 807,
            (1 << 60) + 1,
            i64::MIN,
        ];
        let jobs: Vec<RigidJob> = big
            .iter()
            .enumerate()
            .map(|(i, &t)| RigidJob {
                id: JobId(i as u64),
                submit: Time(t),
                size: 1,
                runtime: Duration(t.unsigned_abs().min(i64::MAX as u64) as i64),
                estimate: Duration(i64::MAX),
                user: None,
                group: None,
            })
            .collect();
        let mut out = Vec::new();
        write(&mut out, 4, &jobs).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(text.contains("\"subtime\":9007199254740993,"), "{text}");
        assert_eq!(read("big.json", &out[..]).unwrap().jobs, jobs);

        let text = r#"{"jobs": [
            {"id": 1, "subtime": 0.5, "walltime": 0.4, "res": 1, "profile": "long"},
            {"id": 2, "subtime": 2.5, "walltime": 10.01, "res": 1, "profile": "short"},
            {"id": 3, "subtime": 9223372036854775808, "res": 1, "profile": "short"},
            {"id": 4, "subtime": 0, "walltime": 1e300, "res": 1, "profile": "short"}],
          "profiles": {"long": {"type": "delay", "delay": 100},
                       "short": {"type": "delay", "delay": 0.2}}}"#;
        let w = read("r.json", text.as_bytes()).unwrap();
        let got: Vec<_> = w
            .jobs
            .iter()
            .map(|j| (j.id.0, j.submit.0, j.runtime.0, j.estimate.0))
            .collect();
        assert_eq!(got, [(1, 1, 100, 1), (2, 3, 1, 11)]);
        let invalid: Vec<_> = w
            .invalid
            .iter()
            .map(|(_, id, r)| (id.as_str(), r))
            .collect();
        assert_eq!(
            invalid,
            [
                ("3", &InvalidBatsimJob::TimeOutOfRange),
                ("4", &InvalidBatsimJob::TimeOutOfRange)
            ]
        );
    }

    #[test]
    fn invalid_jobs_are_counted_with_their_reason_and_bad_ids_refused() {
        let text = r#"{"jobs": [
            {"id": 1, "subtime": 0, "res": 1, "profile": "x"},
            {"id": 2, "subtime": 0, "res": 1, "profile": "par"},
            {"id": 3, "subtime": 0, "res": 0, "profile": "d"},
            {"id": 4, "subtime": 0, "res": 1, "profile": "neg"},
            {"id": 5, "subtime": 0, "walltime": 7, "res": 1, "profile": "d"}],
          "profiles": {"d": {"type": "delay", "delay": 10},
                       "neg": {"type": "delay", "delay": -1},
                       "par": {"type": "parallel_homogeneous", "cpu": 1e9}}}"#;
        let w = read("t.json", text.as_bytes()).unwrap();
        let reasons: Vec<_> = w
            .invalid
            .iter()
            .map(|(_, id, r)| (id.as_str(), r.clone()))
            .collect();
        assert_eq!(
            reasons,
            [
                ("1", InvalidBatsimJob::MissingProfile),
                ("2", InvalidBatsimJob::NotDelay),
                ("3", InvalidBatsimJob::NoResources),
                ("4", InvalidBatsimJob::BadDelay)
            ]
        );
        assert_eq!((w.jobs.len(), w.jobs[0].estimate.0, w.nb_res), (1, 7, None));
        let bad = r#"{"jobs": [{"id": "abc", "subtime": 0, "res": 1, "profile": "d"}]}"#;
        let err = read("b.json", bad.as_bytes()).unwrap_err().to_string();
        assert!(err.contains("b.json") && err.contains("`abc`"), "{err}");
        let err = read("z.json", &[0u8; 64][..]).unwrap_err().to_string();
        assert!(err.starts_with("z.json: not a Batsim workload"), "{err}");
    }
}
