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
    let mut seen = SeenIds::default();
    let mut valid: Vec<J> = Vec::with_capacity(jobs.size_hint().0);
    // The invalid jobs' ids, while the ids increase (then the check needs no set).
    let mut invalid_ids = Vec::new();
    let mut invalid = 0;
    for job in jobs {
        let id = job.id();
        let earlier = || valid.iter().map(J::id).chain(invalid_ids.iter().copied());
        if !seen.insert(id, earlier) {
            return Err(DuplicateJobId(id));
        }
        if job.is_valid() {
            valid.push(job);
        } else {
            invalid += 1;
            if !seen.is_set() {
                invalid_ids.push(id);
            }
        }
    }
    valid.sort_by_key(|j| (j.submit(), j.id()));
    Ok(Admitted {
        jobs: valid,
        invalid,
    })
}

/// The ids of a workload's jobs seen so far, for the repeated-id check. Traces number their
/// jobs in increasing order, so while the ids increase only the last is kept; the first id
/// out of order builds the set of every earlier one, which checks the rest.
///
/// ```
/// use cosched_core::JobId;
/// use cosched_workload::admit::SeenIds;
/// let (mut seen, mut ids, mut new) = (SeenIds::default(), Vec::new(), Vec::new());
/// for id in [3, 5, 4, 5].map(JobId) {
///     new.push(seen.insert(id, || ids.clone()));
///     ids.push(id);
/// }
/// assert_eq!(new, [true, true, true, false]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct SeenIds {
    last: Option<JobId>,
    set: Option<FxHashSet<JobId>>,
}

impl SeenIds {
    /// Records `id`; false if it was recorded before. `earlier` lists the ids recorded so
    /// far: it is called once, when the ids first stop increasing.
    pub fn insert<I: IntoIterator<Item = JobId>>(
        &mut self,
        id: JobId,
        earlier: impl FnOnce() -> I,
    ) -> bool {
        if let Some(set) = &mut self.set {
            return set.insert(id);
        }
        if self.last.is_none_or(|last| last < id) {
            self.last = Some(id);
            return true;
        }
        let mut set: FxHashSet<JobId> = earlier().into_iter().collect();
        let new = set.insert(id);
        self.set = Some(set);
        new
    }

    /// Whether the ids stopped increasing (a set checks them now).
    pub fn is_set(&self) -> bool {
        self.set.is_some()
    }
}
