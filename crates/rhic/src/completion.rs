//! The completion model (paper Eq. 4–5) with straggler padding and transition damping.
//!
//! - Eq. 4: the processing rate `R_proc = J_completed / (T_elapsed · CPU_consumed)`, work per
//!   core-second actually consumed so far;
//! - Eq. 5: `T_remaining = J_remaining / (CPU_predicted · R_proc)`, with `CPU_predicted` read
//!   off the I/O curve ([`crate::IoCurve`]) for the CPU a candidate pool makes available.
//!
//! On top, [`CompletionParams`] pads the estimate for stragglers (`T · (1 + padding)`) and
//! damps transitions: growing the pool costs `setup` (VM boot, data staging), shrinking it
//! costs `drain` (finishing or handing back the removed volunteers' tasks).

use cosched_core::{Duration, ParamError};

/// The job's progress so far, as the controller observes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    completed: f64,
    remaining: f64,
    elapsed: Duration,
    cpu_consumed: f64,
}

impl Progress {
    /// `J_completed` (> 0) and `J_remaining` (≥ 0) units of work, `T_elapsed` (> 0) and the
    /// average `CPU_consumed` over it (cores, > 0).
    ///
    /// ```
    /// use cosched_core::Duration;
    /// use cosched_rhic::Progress;
    /// let p = Progress::new(100.0, 300.0, Duration(50), 4.0).unwrap();
    /// assert_eq!(p.rate(), 0.5); // Eq. 4: 100 / (50 · 4)
    /// assert_eq!(p.remaining_s(6.0), 100.0); // Eq. 5: 300 / (6 · 0.5)
    /// assert!(Progress::new(0.0, 1.0, Duration(50), 4.0).is_err());
    /// ```
    pub fn new(
        completed: f64,
        remaining: f64,
        elapsed: Duration,
        cpu_consumed: f64,
    ) -> Result<Self, ParamError> {
        ParamError::check(
            completed.is_finite() && completed > 0.0,
            "completed",
            completed,
            "must be finite and > 0",
        )?;
        ParamError::check(
            remaining.is_finite() && remaining >= 0.0,
            "remaining",
            remaining,
            "must be finite and >= 0",
        )?;
        ParamError::check(elapsed.0 > 0, "elapsed", elapsed.0, "must be > 0 s")?;
        ParamError::check(
            cpu_consumed.is_finite() && cpu_consumed > 0.0,
            "cpu_consumed",
            cpu_consumed,
            "must be finite and > 0",
        )?;
        Ok(Progress {
            completed,
            remaining,
            elapsed,
            cpu_consumed,
        })
    }

    /// Eq. 4: `R_proc`, work units per consumed core-second.
    pub fn rate(&self) -> f64 {
        self.completed / (self.elapsed.0 as f64 * self.cpu_consumed)
    }

    /// `J_remaining`.
    pub fn remaining(&self) -> f64 {
        self.remaining
    }

    /// Eq. 5: seconds to finish at `cpu_predicted` consumed cores (infinite at 0).
    pub fn remaining_s(&self, cpu_predicted: f64) -> f64 {
        if self.remaining == 0.0 {
            return 0.0;
        }
        self.remaining / (cpu_predicted * self.rate())
    }
}

/// Straggler padding and transition damping.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompletionParams {
    straggler_padding: f64,
    setup: Duration,
    drain: Duration,
}

impl CompletionParams {
    /// `straggler_padding` ≥ 0 (a fraction of the estimate), `setup` and `drain` ≥ 0.
    ///
    /// ```
    /// use cosched_core::Duration;
    /// use cosched_rhic::CompletionParams;
    /// let c = CompletionParams::new(0.5, Duration(60), Duration(30)).unwrap();
    /// assert_eq!(c.estimate_s(100.0, 2, 3), 210.0); // 100 · 1.5 + setup
    /// assert_eq!(c.estimate_s(100.0, 3, 2), 180.0); // 100 · 1.5 + drain
    /// assert_eq!(c.estimate_s(100.0, 3, 3), 150.0);
    /// ```
    pub fn new(
        straggler_padding: f64,
        setup: Duration,
        drain: Duration,
    ) -> Result<Self, ParamError> {
        ParamError::check(
            straggler_padding.is_finite() && straggler_padding >= 0.0,
            "straggler_padding",
            straggler_padding,
            "must be finite and >= 0",
        )?;
        ParamError::check(setup.0 >= 0, "setup", setup.0, "must be >= 0 s")?;
        ParamError::check(drain.0 >= 0, "drain", drain.0, "must be >= 0 s")?;
        Ok(CompletionParams {
            straggler_padding,
            setup,
            drain,
        })
    }

    /// The damped estimate for moving from `current` to `next` volunteers, given Eq. 5's
    /// `remaining_s`: `remaining_s · (1 + padding)`, plus `setup` when growing, `drain` when
    /// shrinking.
    pub fn estimate_s(&self, remaining_s: f64, current: usize, next: usize) -> f64 {
        let transition = match next.cmp(&current) {
            std::cmp::Ordering::Greater => self.setup.0,
            std::cmp::Ordering::Less => self.drain.0,
            std::cmp::Ordering::Equal => 0,
        };
        remaining_s * (1.0 + self.straggler_padding) + transition as f64
    }
}

impl Default for CompletionParams {
    /// No padding, no damping.
    fn default() -> Self {
        CompletionParams {
            straggler_padding: 0.0,
            setup: Duration::ZERO,
            drain: Duration::ZERO,
        }
    }
}
