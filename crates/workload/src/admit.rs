//! Admitting a workload into a simulator: one rule for every simulator of rigid-like jobs.
//!
//! Jobs are checked for repeated ids (a typed error: a trace with two jobs 17 is ambiguous),
//! invalid jobs are counted and left out, and the valid ones are sorted by (submit, id) — the
//! order in which arrivals of the same second are handed to the simulator.
//!
//! ```
//! use cosched_workload::admit::admit;
//! use cosched_core::{Duration, JobId, RigidJob, Time};
//! let ok = |id, t| RigidJob::new(JobId(id), Time(t), 1, Duration(5), Duration(5)).unwrap();
//! let mut bad = ok(3, 0);
//! bad.size = 0;
//! let admitted = admit(&[ok(2, 10), bad, ok(1, 10), ok(4, 0)]).unwrap();
//! let ids: Vec<u64> = admitted.jobs.iter().map(|j| j.id.0).collect();
//! assert_eq!((ids, admitted.invalid), (vec![4, 1, 2], 1));
//! assert!(admit(&[ok(1, 0), ok(1, 5)]).is_err());
//! ```

use cosched_core::{JobId, MalleableJob, OnDemandJob, RigidJob, Time};
use rustc_hash::FxHashSet;
use thiserror::Error;

/// A job id that appears more than once in a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("job id {} appears more than once in the workload", .0.0)]
pub struct DuplicateJobId(pub JobId);

/// What a workload's job must tell the admission.
pub trait Admissible {
    /// Its id, unique in the workload.
    fn id(&self) -> JobId;
    /// When it is submitted (arrives).
    fn submit(&self) -> Time;
    /// Whether it satisfies its type's invariants; invalid jobs are counted, not admitted.
    fn is_valid(&self) -> bool;
}

/// `Admissible` for a job type whose arrival is the field `$submit` and whose invariants its
/// `validate()` checks.
macro_rules! admissible {
    ($job:ty, $submit:ident) => {
        impl Admissible for $job {
            fn id(&self) -> JobId {
                self.id
            }
            fn submit(&self) -> Time {
                self.$submit
            }
            fn is_valid(&self) -> bool {
                self.validate().is_ok()
            }
        }
    };
}

admissible!(RigidJob, submit);
admissible!(MalleableJob, submit);
admissible!(OnDemandJob, arrival);

/// The admitted workload.
#[derive(Clone, Debug, PartialEq)]
pub struct Admitted<J> {
    /// The valid jobs, sorted by (submit, id).
    pub jobs: Vec<J>,
    /// How many jobs were left out as invalid.
    pub invalid: usize,
}

/// Admits `jobs` (any order): see the module docs.
pub fn admit<J: Admissible + Clone>(jobs: &[J]) -> Result<Admitted<J>, DuplicateJobId> {
    admit_iter(jobs.iter().cloned())
}

/// [`admit`] over an iterator (e.g. a streaming trace reader), checking ids as they come.
pub fn admit_iter<J: Admissible>(
    jobs: impl IntoIterator<Item = J>,
) -> Result<Admitted<J>, DuplicateJobId> {
    let jobs = jobs.into_iter();
    let mut seen = FxHashSet::default();
    seen.reserve(jobs.size_hint().0);
    let mut valid = Vec::with_capacity(jobs.size_hint().0);
    let mut invalid = 0;
    for job in jobs {
        if !seen.insert(job.id()) {
            return Err(DuplicateJobId(job.id()));
        }
        if job.is_valid() {
            valid.push(job);
        } else {
            invalid += 1;
        }
    }
    valid.sort_by_key(|j| (j.submit(), j.id()));
    Ok(Admitted {
        jobs: valid,
        invalid,
    })
}
