//! The completion model (paper Eq. 4–5) with straggler padding and transition damping.
//!
//! - Eq. 4: the processing rate `R_proc = J_completed / (T_elapsed · CPU_consumed)`, work per
//!   core-second actually consumed so far;
//! - Eq. 5: `T_remaining = J_remaining / (CPU_predicted · R_proc)`, with `CPU_predicted` read
//!   off the I/O curve ([`crate::IoCurve`]) for the CPU a candidate pool makes available.
//!
//! On top, [`CompletionParams`] pads the estimate for stragglers by the average task length
//! experienced so far (§4.3), and damps transitions: adding volunteers costs the profiled
//! `setup` (VM boot), removing them costs their predicted drain, half an average task (the
//! expected remainder of the task in flight), §4.3.

use cosched_core::{Duration, ParamError};
use serde::{Deserialize, Serialize};

/// The job's progress so far, as the controller observes it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    completed: f64,
    remaining: f64,
    elapsed: Duration,
    cpu_consumed: f64,
}

impl Progress {
    /// `J_completed` (≥ 0: a decision at 0 % progress is allowed) and `J_remaining` (≥ 0)
    /// units of work, `T_elapsed` (≥ 0) and the average `CPU_consumed` over it (cores, ≥ 0).
    ///
    /// ```
    /// use cosched_core::Duration;
    /// use cosched_rhic::Progress;
    /// let p = Progress::new(100.0, 300.0, Duration(50), 4.0).unwrap();
    /// assert_eq!(p.rate(), Some(0.5)); // Eq. 4: 100 / (50 · 4)
    /// assert_eq!(p.remaining_s(6.0), 100.0); // Eq. 5: 300 / (6 · 0.5)
    /// let start = Progress::new(0.0, 1.0, Duration(0), 0.0).unwrap();
    /// assert_eq!(start.rate(), None); // nothing to measure yet
    /// assert!(Progress::new(-1.0, 1.0, Duration(50), 4.0).is_err());
    /// ```
    pub fn new(
        completed: f64,
        remaining: f64,
        elapsed: Duration,
        cpu_consumed: f64,
    ) -> Result<Self, ParamError> {
        ParamError::check(
            completed.is_finite() && completed >= 0.0,
            "completed",
            completed,
            "must be finite and >= 0",
        )?;
        ParamError::check(
            remaining.is_finite() && remaining >= 0.0,
            "remaining",
            remaining,
            "must be finite and >= 0",
        )?;
        check_duration("elapsed", elapsed, false)?;
        ParamError::check(
            cpu_consumed.is_finite() && cpu_consumed >= 0.0,
            "cpu_consumed",
            cpu_consumed,
            "must be finite and >= 0",
        )?;
        Ok(Progress {
            completed,
            remaining,
            elapsed,
            cpu_consumed,
        })
    }

    /// Eq. 4: `R_proc`, work units per consumed core-second; `None` before any progress.
    pub fn rate(&self) -> Option<f64> {
        let r = self.completed / (self.elapsed.0 as f64 * self.cpu_consumed);
        (self.completed > 0.0 && r.is_finite() && r > 0.0).then_some(r)
    }

    /// `J_completed`.
    pub fn completed(&self) -> f64 {
        self.completed
    }

    /// `J_remaining`.
    pub fn remaining(&self) -> f64 {
        self.remaining
    }

    /// Eq. 5: seconds to finish at `cpu_predicted` consumed cores (infinite at 0 cores or
    /// without a rate).
    pub fn remaining_s(&self, cpu_predicted: f64) -> f64 {
        self.remaining_s_at(self.rate(), cpu_predicted)
    }

    /// [`Progress::remaining_s`] at `rate`, [`Progress::rate`] computed once for many
    /// evaluations.
    pub(crate) fn remaining_s_at(&self, rate: Option<f64>, cpu_predicted: f64) -> f64 {
        if self.remaining == 0.0 {
            return 0.0;
        }
        match rate {
            Some(rate) => self.remaining / (cpu_predicted * rate),
            None => f64::INFINITY,
        }
    }
}

/// Checks a duration parameter: `> 0 s` when `positive`, else `>= 0 s`; the one check every
/// duration of the crate's configurations goes through.
pub(crate) fn check_duration(
    name: &'static str,
    d: Duration,
    positive: bool,
) -> Result<(), ParamError> {
    if positive {
        ParamError::check(d.0 > 0, name, d.0, "must be > 0 s")
    } else {
        ParamError::check(d.0 >= 0, name, d.0, "must be >= 0 s")
    }
}

/// Straggler padding, in average task lengths: §4.3 adds "a small padding value to our
/// completion time estimate, based on the average length of background tasks experienced thus
/// far" without its size. Ours: half a task, the expected time left of a task in flight
/// at a random moment (tasks start uniformly over their length), which is what the last wave of
/// stragglers adds beyond the aggregate-CPU estimate of Eq. 5.
pub const STRAGGLER_PADDING_TASKS: f64 = 0.5;

/// Straggler padding and transition damping (§4.3), from the profiled volunteer setup time
/// and the average task length observed so far.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompletionParams {
    setup: Duration,
    task_s: f64,
}

impl CompletionParams {
    /// `setup` ≥ 0 (a volunteer's boot, profiled) and the average task length `task_s` ≥ 0.
    ///
    /// ```
    /// use cosched_core::Duration;
    /// use cosched_rhic::CompletionParams;
    /// let c = CompletionParams::new(Duration(60), 40.0).unwrap();
    /// assert_eq!(c.estimate_s(100.0, 2, 3), 180.0); // 100 + 20 padding (half a task) + 60 setup
    /// assert_eq!(c.estimate_s(100.0, 3, 2), 140.0); // 100 + 20 + 20 drain (half a task)
    /// assert_eq!(c.estimate_s(100.0, 3, 3), 120.0);
    /// ```
    pub fn new(setup: Duration, task_s: f64) -> Result<Self, ParamError> {
        check_duration("setup", setup, false)?;
        ParamError::check(
            task_s.is_finite() && task_s >= 0.0,
            "task_s",
            task_s,
            "must be finite and >= 0",
        )?;
        Ok(CompletionParams { setup, task_s })
    }

    /// The same with a newly observed average task length (ignored unless finite and ≥ 0).
    pub fn with_task_s(self, task_s: f64) -> Self {
        CompletionParams::new(self.setup, task_s).unwrap_or(self)
    }

    /// The average task length, seconds.
    pub fn task_s(&self) -> f64 {
        self.task_s
    }

    /// The damped estimate for moving from `current` to `next` volunteers, given Eq. 5's
    /// `remaining_s`: plus [`STRAGGLER_PADDING_TASKS`] average tasks of straggler padding, plus
    /// `setup` when growing or half a task of drain when shrinking (§4.3).
    pub fn estimate_s(&self, remaining_s: f64, current: usize, next: usize) -> f64 {
        let transition = match next.cmp(&current) {
            std::cmp::Ordering::Greater => self.setup.0 as f64,
            std::cmp::Ordering::Less => self.task_s / 2.0,
            std::cmp::Ordering::Equal => 0.0,
        };
        remaining_s + STRAGGLER_PADDING_TASKS * self.task_s + transition
    }
}

impl Default for CompletionParams {
    /// No padding, no damping.
    fn default() -> Self {
        CompletionParams {
            setup: Duration::ZERO,
            task_s: 0.0,
        }
    }
}
