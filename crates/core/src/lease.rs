//! Leases: grants of nodes to a consumer for a period.
//!
//! Two kinds appear in the papers cosched implements (Liu et al., SC18, section II):
//! an **on-demand** lease must start within a wait window `W` of its request or be rejected,
//! and an **on-availability** lease starts whenever the provider makes room (a batch job is one).
//! Either may have a bounded end (a duration) or be open-ended, released explicitly.

use crate::{Duration, LeaseId, ParamError, Time};
use serde::{Deserialize, Serialize};

/// How a lease's start is constrained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LeaseKind {
    /// Must start within `window` of the request (`window = 0`: now or never).
    OnDemand {
        /// The longest the requester accepts to wait, `W >= 0`.
        window: Duration,
    },
    /// Starts whenever the provider has room; never rejected for waiting.
    OnAvailability,
}

/// How a lease ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LeaseEnd {
    /// Ends this long after it starts.
    Bounded(Duration),
    /// Lasts until released explicitly.
    Unbounded,
}

/// A request for `nodes` nodes, made at `requested_at`.
///
/// ```
/// use cosched_core::{Duration, Lease, LeaseEnd, LeaseId, LeaseKind, Time};
/// let lease = Lease::new(
///     LeaseId(1), Time(100), 16,
///     LeaseKind::OnDemand { window: Duration::from_mins(5) },
///     LeaseEnd::Bounded(Duration::from_hours(1)),
/// ).unwrap();
/// assert_eq!(lease.start_deadline(), Some(Time(400)));
/// assert!(lease.may_start_at(Time(400)) && !lease.may_start_at(Time(401)));
/// assert_eq!(lease.end_if_started_at(Time(400)), Some(Time(4000)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    /// The lease's identifier.
    pub id: LeaseId,
    /// When it was requested.
    pub requested_at: Time,
    /// How many nodes it needs (at least 1).
    pub nodes: u32,
    /// The start constraint.
    pub kind: LeaseKind,
    /// The end.
    pub end: LeaseEnd,
}

impl Lease {
    /// A validated lease: at least one node, a non-negative window and a positive duration.
    pub fn new(
        id: LeaseId,
        requested_at: Time,
        nodes: u32,
        kind: LeaseKind,
        end: LeaseEnd,
    ) -> Result<Lease, ParamError> {
        ParamError::check(
            nodes >= 1,
            "nodes",
            nodes,
            "a lease needs at least one node",
        )?;
        if let LeaseKind::OnDemand { window } = kind {
            ParamError::check(window.0 >= 0, "window", window.0, "W must be >= 0")?;
        }
        if let LeaseEnd::Bounded(d) = end {
            ParamError::check(d.0 > 0, "duration", d.0, "a bounded lease must last > 0 s")?;
        }
        Ok(Lease {
            id,
            requested_at,
            nodes,
            kind,
            end,
        })
    }

    /// The latest start an on-demand lease accepts (`requested_at + W`, saturating at
    /// [`Time::MAX`]: a deadline past the end of time is none); `None` for on-availability
    /// leases.
    pub fn start_deadline(&self) -> Option<Time> {
        match self.kind {
            LeaseKind::OnDemand { window } => Some(self.requested_at.saturating_add(window)),
            LeaseKind::OnAvailability => None,
        }
    }

    /// Whether the lease may start at `t` (not before its request, not after its deadline).
    pub fn may_start_at(&self, t: Time) -> bool {
        t >= self.requested_at && self.start_deadline().is_none_or(|d| t <= d)
    }

    /// When the lease ends if it starts at `start` (saturating at [`Time::MAX`], never
    /// wrapping); `None` when unbounded.
    pub fn end_if_started_at(&self, start: Time) -> Option<Time> {
        match self.end {
            LeaseEnd::Bounded(d) => Some(start.saturating_add(d)),
            LeaseEnd::Unbounded => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hostile input: windows and durations near `i64::MAX` saturate instead of panicking.
    #[test]
    fn extreme_windows_and_durations_saturate() {
        let l = Lease::new(
            LeaseId(0),
            Time(5),
            1,
            LeaseKind::OnDemand {
                window: Duration(i64::MAX),
            },
            LeaseEnd::Bounded(Duration(i64::MAX)),
        )
        .unwrap();
        assert_eq!(l.start_deadline(), Some(Time::MAX));
        assert!(l.may_start_at(Time::MAX));
        assert_eq!(l.end_if_started_at(Time(7)), Some(Time::MAX));
    }

    #[test]
    fn rejects_bad_parameters() {
        let od = |w| LeaseKind::OnDemand {
            window: Duration(w),
        };
        let b = LeaseEnd::Bounded(Duration(10));
        assert!(Lease::new(LeaseId(0), Time(0), 0, od(0), b).is_err());
        assert!(Lease::new(LeaseId(0), Time(0), 1, od(-1), b).is_err());
        assert!(
            Lease::new(
                LeaseId(0),
                Time(0),
                1,
                od(0),
                LeaseEnd::Bounded(Duration(0))
            )
            .is_err()
        );
        let l = Lease::new(LeaseId(0), Time(5), 1, od(0), LeaseEnd::Unbounded).unwrap();
        assert!(l.may_start_at(Time(5)) && !l.may_start_at(Time(6)) && !l.may_start_at(Time(4)));
        assert_eq!(l.end_if_started_at(Time(5)), None);
        let oa = Lease::new(LeaseId(1), Time(5), 2, LeaseKind::OnAvailability, b).unwrap();
        assert!(oa.may_start_at(Time(1_000_000)));
    }
}
