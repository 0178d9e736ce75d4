//! Job models: rigid, malleable and on-demand.
//!
//! - A **rigid** job needs exactly `size` units for its whole run (the Standard Workload
//!   Format's model, used by every batch trace).
//! - A **malleable** job can run on any size in `min_size..=max_size` and be resized while it
//!   runs; on `n` units it takes `work / n + setup` (Fan et al., IPDPS 2022, section III-A).
//! - An **on-demand** job must start the moment it arrives; it may announce itself ahead with
//!   an advance notice carrying an estimated arrival time (same paper, section III-B).

use crate::{Duration, JobId, ParamError, Time};
use serde::{Deserialize, Serialize};

/// A job of fixed size, as in a batch trace.
///
/// ```
/// use cosched_core::{Duration, JobId, RigidJob, Time};
/// let job = RigidJob::new(JobId(1), Time(0), 64, Duration(3_000), Duration(3_600)).unwrap();
/// assert_eq!(job.simulated_runtime(), Duration(3_000));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RigidJob {
    /// Identifier, unique within the workload.
    pub id: JobId,
    /// Submission (arrival) time.
    pub submit: Time,
    /// Units (nodes or processors) the job needs, at least 1.
    pub size: u32,
    /// How long it actually runs when given its units.
    pub runtime: Duration,
    /// The user's runtime estimate (requested walltime): the scheduler plans with it, and a
    /// job still running at its estimate is killed.
    pub estimate: Duration,
    /// Submitting user, if known.
    pub user: Option<u32>,
    /// Group or project, if known.
    pub group: Option<u32>,
}

impl RigidJob {
    /// A validated rigid job: `size >= 1`, `runtime >= 0`, `estimate >= 0`.
    pub fn new(
        id: JobId,
        submit: Time,
        size: u32,
        runtime: Duration,
        estimate: Duration,
    ) -> Result<RigidJob, ParamError> {
        let job = RigidJob {
            id,
            submit,
            size,
            runtime,
            estimate,
            user: None,
            group: None,
        };
        job.validate()?;
        Ok(job)
    }

    /// Checks the invariants [`RigidJob::new`] enforces (for jobs built field by field):
    /// `size >= 1`, `runtime >= 0` and `estimate >= 0`. An estimate of 0 is allowed: a trace
    /// job that ran for 0 s and requested no time gets its run time, 0, as its estimate.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.size >= 1, "size", self.size, "a job needs >= 1 unit")?;
        ParamError::check(
            self.runtime.0 >= 0,
            "runtime",
            self.runtime.0,
            "must be >= 0",
        )?;
        ParamError::check(
            self.estimate.0 >= 0,
            "estimate",
            self.estimate.0,
            "must be >= 0",
        )
    }

    /// The run time a simulator uses: the actual run time, cut at the estimate (a job that
    /// overruns its walltime is killed).
    #[inline]
    pub fn simulated_runtime(&self) -> Duration {
        self.runtime.min(self.estimate)
    }
}

/// A job that can run on any size between `min_size` and `max_size`.
///
/// ```
/// use cosched_core::{Duration, JobId, MalleableJob, Time};
/// let job = MalleableJob::new(JobId(7), Time(0), 2, 8, Duration(8_000), Duration(100)).unwrap();
/// assert_eq!(job.runtime_on(8).unwrap(), Duration(1_100));
/// assert_eq!(job.runtime_on(3).unwrap(), Duration(2_767)); // ceil(8000 / 3) + 100
/// assert!(job.runtime_on(9).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MalleableJob {
    /// Identifier, unique within the workload.
    pub id: JobId,
    /// Submission time.
    pub submit: Time,
    /// Smallest size it can run on, at least 1.
    pub min_size: u32,
    /// Largest size it can use (its requested size).
    pub max_size: u32,
    /// Work in unit-seconds: its run time on a single unit, setup excluded.
    pub work: Duration,
    /// Setup time paid on every (re)start.
    pub setup: Duration,
}

impl MalleableJob {
    /// A validated malleable job: `1 <= min_size <= max_size`, `work > 0`, `setup >= 0`, and
    /// its longest run time `ceil(work / min_size) + setup` fits in `i64` seconds (so
    /// [`MalleableJob::runtime_on`] never overflows).
    pub fn new(
        id: JobId,
        submit: Time,
        min_size: u32,
        max_size: u32,
        work: Duration,
        setup: Duration,
    ) -> Result<MalleableJob, ParamError> {
        ParamError::check(min_size >= 1, "min_size", min_size, "must be >= 1")?;
        ParamError::check(
            max_size >= min_size,
            "max_size",
            max_size,
            "must be >= min_size",
        )?;
        ParamError::check(work.0 > 0, "work", work.0, "must be > 0")?;
        ParamError::check(setup.0 >= 0, "setup", setup.0, "must be >= 0")?;
        ParamError::check(
            div_ceil(work.0, i64::from(min_size))
                .checked_add(setup.0)
                .is_some(),
            "setup",
            setup.0,
            "ceil(work / min_size) + setup must fit in i64 seconds",
        )?;
        Ok(MalleableJob {
            id,
            submit,
            min_size,
            max_size,
            work,
            setup,
        })
    }

    /// Checks the invariants [`MalleableJob::new`] enforces, for jobs built field by field.
    pub fn validate(&self) -> Result<(), ParamError> {
        Self::new(
            self.id,
            self.submit,
            self.min_size,
            self.max_size,
            self.work,
            self.setup,
        )
        .map(|_| ())
    }

    /// Run time on `n` units: `ceil(work / n) + setup`; an error outside `min_size..=max_size`.
    pub fn runtime_on(&self, n: u32) -> Result<Duration, ParamError> {
        ParamError::check(
            (self.min_size..=self.max_size).contains(&n),
            "n",
            n,
            "must lie within min_size..=max_size",
        )?;
        Ok(Duration(div_ceil(self.work.0, i64::from(n))) + self.setup)
    }
}

/// How an on-demand job's advance notice turned out (Fan et al., section V-A).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NoticeCategory {
    /// No advance notice.
    None,
    /// Arrived at the estimated time.
    Accurate,
    /// Arrived between the notice and the estimated time.
    Early,
    /// Arrived after the estimated time.
    Late,
}

/// A job that must start as soon as it arrives.
///
/// ```
/// use cosched_core::{Duration, JobId, NoticeCategory, OnDemandJob, Time};
/// let job = OnDemandJob::new(JobId(3), 128, Duration(1_800), Duration(3_600), Time(5_000))
///     .unwrap()
///     .with_notice(Time(3_200), Time(5_000))
///     .unwrap();
/// assert_eq!(job.category(), NoticeCategory::Accurate);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OnDemandJob {
    /// Identifier, unique within the workload.
    pub id: JobId,
    /// Units needed, at least 1.
    pub size: u32,
    /// Actual run time.
    pub runtime: Duration,
    /// Runtime estimate.
    pub estimate: Duration,
    /// When the advance notice was given, if any.
    pub notice: Option<Time>,
    /// The arrival announced by the notice, if any.
    pub estimated_arrival: Option<Time>,
    /// When the job actually arrives (its submit time).
    pub arrival: Time,
}

impl OnDemandJob {
    /// A validated on-demand job without notice.
    pub fn new(
        id: JobId,
        size: u32,
        runtime: Duration,
        estimate: Duration,
        arrival: Time,
    ) -> Result<OnDemandJob, ParamError> {
        ParamError::check(size >= 1, "size", size, "a job needs >= 1 unit")?;
        ParamError::check(runtime.0 >= 0, "runtime", runtime.0, "must be >= 0")?;
        ParamError::check(estimate.0 > 0, "estimate", estimate.0, "must be > 0")?;
        Ok(OnDemandJob {
            id,
            size,
            runtime,
            estimate,
            notice: None,
            estimated_arrival: None,
            arrival,
        })
    }

    /// Adds an advance notice given at `notice` announcing arrival at `estimated_arrival`;
    /// the notice must come before both the estimate and the actual arrival.
    pub fn with_notice(
        mut self,
        notice: Time,
        estimated_arrival: Time,
    ) -> Result<OnDemandJob, ParamError> {
        ParamError::check(
            notice <= estimated_arrival,
            "notice",
            notice.0,
            "must not come after the estimated arrival",
        )?;
        ParamError::check(
            notice <= self.arrival,
            "notice",
            notice.0,
            "must not come after the actual arrival",
        )?;
        self.notice = Some(notice);
        self.estimated_arrival = Some(estimated_arrival);
        Ok(self)
    }

    /// Checks the invariants [`OnDemandJob::new`] and [`OnDemandJob::with_notice`] enforce, for
    /// jobs built field by field.
    pub fn validate(&self) -> Result<(), ParamError> {
        let job = Self::new(
            self.id,
            self.size,
            self.runtime,
            self.estimate,
            self.arrival,
        )?;
        match (self.notice, self.estimated_arrival) {
            (None, None) => Ok(()),
            (Some(notice), Some(est)) => job.with_notice(notice, est).map(|_| ()),
            _ => Err(ParamError::new(
                "notice",
                format!("{:?}/{:?}", self.notice, self.estimated_arrival),
                "a notice and its estimated arrival come together",
            )),
        }
    }

    /// Which of the paper's four notice categories the job falls in.
    pub fn category(&self) -> NoticeCategory {
        match self.estimated_arrival {
            None => NoticeCategory::None,
            Some(est) if self.arrival == est => NoticeCategory::Accurate,
            Some(est) if self.arrival < est => NoticeCategory::Early,
            Some(_) => NoticeCategory::Late,
        }
    }
}

/// `ceil(a / b)` for `a >= 0`, `b > 0`, without overflow for any such `a`.
#[inline]
pub(crate) fn div_ceil(a: i64, b: i64) -> i64 {
    a / b + i64::from(a % b != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hostile input: work and setup near `i64::MAX` are a typed error or a run time that
    /// fits, never an overflow.
    #[test]
    fn extreme_work_and_setup_never_overflow() {
        assert_eq!(div_ceil(i64::MAX, 1), i64::MAX);
        assert_eq!(div_ceil(i64::MAX, 2), i64::MAX / 2 + 1);
        assert_eq!(div_ceil(7, 7), 1);
        assert_eq!(div_ceil(0, 3), 0);
        let job = |work, setup| {
            MalleableJob::new(JobId(1), Time(0), 2, 4, Duration(work), Duration(setup))
        };
        assert!(job(i64::MAX, i64::MAX).is_err());
        let ok = job(i64::MAX, 0).unwrap();
        assert_eq!(ok.runtime_on(2).unwrap(), Duration(i64::MAX / 2 + 1));
        assert_eq!(ok.runtime_on(4).unwrap(), Duration(i64::MAX / 4 + 1));
    }
}
