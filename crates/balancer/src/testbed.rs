//! The batch side's scheduler as the paper's testbed ran it (Liu et al., SC18, §III-A): "an OARM
//! could be implemented as a combination of a Maui job scheduler working with a Torque resource
//! manager" (§II-B), replayed on 372 containers with "hours mapped to minutes (i.e., accelerated
//! 60x)" (§III-A). An environment model of [`crate::sim::Simulation`], not a policy: every
//! configuration of a comparison runs on the same one.
//!
//! [`BatchCycle::Immediate`] is an ideal scheduler (ours): an EASY pass at every instant
//! something changes, each started job running at once. [`BatchCycle::Maui`] is the testbed's:
//!
//! - **Scheduling iterations** (Maui Administrator's Guide 3.2, §3.3.1.8: "Maui operates on a
//!   polling/event driven basis", an iteration on a resource-manager event — "a new job
//!   submission or completion of an active job", a node change — or "the expiration of the
//!   RMPOLLINTERVAL timer"): an EASY pass runs only in an iteration. Iterations follow an event
//!   no sooner than [`MauiTorque::event_spacing`] after the previous one began (RMCFG
//!   `MINETIME`, default 1 s: "the minimum time in seconds between processing subsequent
//!   scheduling events", §13.2), and at the latest [`MauiTorque::poll_interval`] after it
//!   (`RMPOLLINTERVAL`, default 00:01:00, Appendix F) while jobs wait. Without events
//!   (`event_spacing: None`) only the timer runs them.
//! - **Torque's start latency**: Maui starts jobs synchronously (RMCFG `ASYNCJOBSTART`, default
//!   FALSE, §13.2), each start taking [`MauiTorque::start_latency`]: the `k`-th job started in
//!   an iteration holds its nodes from the iteration and runs from `k` latencies after it, and
//!   the next iteration waits until the last start returns. Its wait is measured to the run's
//!   start, as the paper measures it ("the time between when the job is submitted and when it
//!   starts running"). The latency is the model's one free parameter: the paper gives none, so
//!   it is calibrated on Table I's baseline rows (all-batch and the split) only.
//!
//! Every duration here is in trace time: a real-time setting times the acceleration
//! ([`MauiTorque::testbed`]).
//!
//! ```
//! use cosched_balancer::testbed::{BatchCycle, MauiTorque};
//! use cosched_core::Duration;
//! let maui = MauiTorque::testbed(Duration(12));
//! // Maui's defaults, 60x: a poll every hour of trace time, events a minute apart.
//! assert_eq!(maui.poll_interval, Duration::from_hours(1));
//! assert_eq!(maui.event_spacing, Some(Duration::from_mins(1)));
//! assert!(BatchCycle::Maui(maui).validate().is_ok());
//! ```

use cosched_core::{Duration, ParamError, Time};
use serde::{Deserialize, Serialize};

/// How the batch side's scheduler runs; see the [module docs](self).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BatchCycle {
    /// An EASY pass at every instant something changes; jobs start at once (ours).
    #[default]
    Immediate,
    /// Maui's scheduling iterations and Torque's synchronous starts (the paper's testbed).
    Maui(MauiTorque),
}

impl BatchCycle {
    /// Checks the model's durations (positive poll interval, non-negative spacing and latency).
    pub fn validate(&self) -> Result<(), ParamError> {
        match self {
            BatchCycle::Immediate => Ok(()),
            BatchCycle::Maui(m) => m.validate(),
        }
    }
}

/// Maui over Torque in trace time; see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MauiTorque {
    /// The longest gap between iterations while jobs wait (`RMPOLLINTERVAL`).
    pub poll_interval: Duration,
    /// Iterations on resource-manager events, at least this far apart (`MINETIME`); `None`:
    /// the timer only.
    pub event_spacing: Option<Duration>,
    /// Each synchronous job start (Torque's launch).
    pub start_latency: Duration,
}

impl MauiTorque {
    /// The testbed's acceleration: "we mapped hours to minutes (i.e., accelerated 60x)" (§III-A).
    pub const ACCELERATION: i64 = 60;
    /// Maui's default `RMPOLLINTERVAL`, real seconds (Administrator's Guide 3.2, Appendix F).
    pub const RMPOLLINTERVAL_S: i64 = 60;
    /// Maui's default RMCFG `MINETIME`, real seconds (Administrator's Guide 3.2, §13.2).
    pub const MINETIME_S: i64 = 1;

    /// Maui's defaults at the testbed's 60x (a poll every 3,600 s and events 60 s apart in
    /// trace time), Torque starting each job in `start_latency` of trace time.
    pub const fn testbed(start_latency: Duration) -> MauiTorque {
        MauiTorque {
            poll_interval: Duration(Self::RMPOLLINTERVAL_S * Self::ACCELERATION),
            event_spacing: Some(Duration(Self::MINETIME_S * Self::ACCELERATION)),
            start_latency,
        }
    }

    /// The same without event-driven iterations: only `RMPOLLINTERVAL` runs them.
    pub const fn polling_only(self) -> MauiTorque {
        MauiTorque {
            event_spacing: None,
            ..self
        }
    }

    /// Checks a positive poll interval and non-negative spacing and latency.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(
            self.poll_interval.0 > 0,
            "poll_interval",
            self.poll_interval.0,
            "must be > 0",
        )?;
        let spacing = self.event_spacing.map_or(0, |d| d.0);
        ParamError::check(spacing >= 0, "event_spacing", spacing, "must be >= 0")?;
        ParamError::check(
            self.start_latency.0 >= 0,
            "start_latency",
            self.start_latency.0,
            "must be >= 0",
        )
    }
}

/// The iterations' timing in one run: when the next may run, and the launch delays of the jobs
/// an iteration starts.
#[derive(Clone, Debug)]
pub(crate) struct Iterations {
    model: MauiTorque,
    /// The last iteration's start.
    last: Time,
    /// Until when the last iteration's synchronous starts keep Maui busy.
    busy_until: Time,
    /// The iteration planned next, if any.
    planned: Option<Time>,
}

impl Iterations {
    /// Iterations of `model` from `start` (taken as the time of a first iteration).
    pub(crate) fn new(model: MauiTorque, start: Time) -> Iterations {
        Iterations {
            model,
            last: start,
            busy_until: start,
            planned: None,
        }
    }

    /// When an iteration may run for a change at `now`: at once after an event (no sooner than
    /// `MINETIME` after the last one, nor while its starts run), or on the poll timer's next
    /// expiry without events. `None` if it is planned at that time or earlier already.
    pub(crate) fn on_change(&mut self, now: Time) -> Option<Time> {
        let at = match self.model.event_spacing {
            Some(spacing) => now.max(self.last.saturating_add(spacing)),
            None => self.next_poll(now),
        }
        .max(self.busy_until);
        self.plan(at)
    }

    /// The poll timer's first expiry at or after `now`: `last + k × RMPOLLINTERVAL`.
    fn next_poll(&self, now: Time) -> Time {
        let p = self.model.poll_interval.0.max(1);
        let since = now.0.saturating_sub(self.last.0).max(0);
        let periods = since.div_euclid(p) + i64::from(since.rem_euclid(p) != 0);
        self.last
            .saturating_add(Duration(p.saturating_mul(periods.max(1))))
    }

    fn plan(&mut self, at: Time) -> Option<Time> {
        if self.planned.is_some_and(|p| p <= at) {
            return None;
        }
        self.planned = Some(at);
        Some(at)
    }

    /// Whether the iteration event at `now` is the one planned (a later-planned one was
    /// superseded by an earlier plan); it is consumed.
    pub(crate) fn is_due(&mut self, now: Time) -> bool {
        if self.planned == Some(now) {
            self.planned = None;
            true
        } else {
            false
        }
    }

    /// An iteration at `now` starts `started` jobs, the `k`-th (from 1) running after `k`
    /// times the returned latency; Maui is busy until the last has started.
    pub(crate) fn iterate(&mut self, now: Time, started: usize) -> Duration {
        let latency = self.model.start_latency;
        self.last = now;
        let total = latency
            .0
            .saturating_mul(i64::try_from(started).unwrap_or(i64::MAX));
        self.busy_until = now.saturating_add(Duration(total));
        latency
    }

    /// The poll after an iteration at `now` that left jobs waiting: `RMPOLLINTERVAL` after it,
    /// or when its starts are done.
    pub(crate) fn after_iteration(&mut self, now: Time) -> Option<Time> {
        let at = now
            .saturating_add(self.model.poll_interval)
            .max(self.busy_until);
        self.plan(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_run_an_iteration_no_sooner_than_minetime_after_the_last() {
        let mut it = Iterations::new(MauiTorque::testbed(Duration(10)), Time(0));
        // A change 20 s after the start: the next iteration waits for 60 s after the last.
        assert_eq!(it.on_change(Time(20)), Some(Time(60)));
        // Planned already: a later change adds nothing.
        assert_eq!(it.on_change(Time(30)), None);
        assert!(!it.is_due(Time(59)));
        assert!(it.is_due(Time(60)));
        // Three starts of 10 s each: Maui busy until 90.
        assert_eq!(it.iterate(Time(60), 3), Duration(10));
        assert_eq!(it.on_change(Time(70)), Some(Time(120)));
        assert!(it.is_due(Time(120)));
        it.iterate(Time(120), 3);
        assert_eq!(it.on_change(Time(130)), Some(Time(180)));
        assert!(it.is_due(Time(180)));
        it.iterate(Time(180), 0);
        it.on_change(Time(181));
        assert!(it.is_due(Time(240)));
        it.iterate(Time(240), 9);
        // 9 starts keep Maui busy 90 s, past the 60 s spacing.
        assert_eq!(it.on_change(Time(250)), Some(Time(330)));
    }

    #[test]
    fn without_events_the_poll_timer_runs_the_iterations() {
        let mut it = Iterations::new(MauiTorque::testbed(Duration(0)).polling_only(), Time(0));
        assert_eq!(it.on_change(Time(1)), Some(Time(3_600)));
        assert!(it.is_due(Time(3_600)));
        it.iterate(Time(3_600), 0);
        // The timer keeps its phase while nothing happens: a change 2.5 h later waits for the
        // expiry at 3 h after the last iteration.
        assert_eq!(
            it.on_change(Time(3_600 + 9_000)),
            Some(Time(3_600 + 10_800))
        );
        // A change exactly on an expiry runs then.
        let mut it = Iterations::new(MauiTorque::testbed(Duration(0)).polling_only(), Time(0));
        assert_eq!(it.on_change(Time(7_200)), Some(Time(7_200)));
    }

    #[test]
    fn jobs_left_waiting_are_polled_again() {
        let mut it = Iterations::new(MauiTorque::testbed(Duration(100)), Time(0));
        it.iterate(Time(0), 50);
        // 50 starts of 100 s keep Maui busy past the poll interval.
        assert_eq!(it.after_iteration(Time(0)), Some(Time(5_000)));
        let mut it = Iterations::new(MauiTorque::testbed(Duration(1)), Time(0));
        it.iterate(Time(0), 2);
        assert_eq!(it.after_iteration(Time(0)), Some(Time(3_600)));
        assert!(MauiTorque::testbed(Duration(-1)).validate().is_err());
    }
}
