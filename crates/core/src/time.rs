//! Integer-second simulation time.
//!
//! Every simulator in cosched counts whole seconds. [`Time`] is an instant (seconds since the
//! start of a trace or scenario) and [`Duration`] a signed span; both are `i64` newtypes so
//! that arithmetic between them is checked by the type system and never silently mixes units.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// An instant, in whole seconds since the origin of a trace or scenario.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Time(pub i64);

/// A span of time in whole seconds (may be negative as the difference of two instants).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Duration(pub i64);

impl Time {
    /// The origin, second 0.
    pub const ZERO: Time = Time(0);
    /// A time later than any simulated instant; used as "never".
    pub const MAX: Time = Time(i64::MAX);

    /// Seconds since the origin.
    #[inline]
    pub const fn secs(self) -> i64 {
        self.0
    }

    /// `self + d`, saturating at [`Time::MAX`] (so "never" stays "never").
    #[inline]
    pub const fn saturating_add(self, d: Duration) -> Time {
        Time(self.0.saturating_add(d.0))
    }

    /// The span from `earlier` to `self`.
    #[inline]
    pub const fn since(self, earlier: Time) -> Duration {
        Duration(self.0 - earlier.0)
    }

    /// `self + d`, or `None` if it would pass the range of `i64`.
    #[inline]
    pub const fn checked_add(self, d: Duration) -> Option<Time> {
        match self.0.checked_add(d.0) {
            Some(t) => Some(Time(t)),
            None => None,
        }
    }

    /// `self + d`, or a [`TimeOverflow`] naming both operands: the form simulators use for
    /// any sum that involves user input, so an extreme trace is a typed error, not a wrap.
    ///
    /// ```
    /// use cosched_core::{Duration, Time};
    /// assert_eq!(Time(5).try_add(Duration(7)), Ok(Time(12)));
    /// assert!(Time(i64::MAX - 1).try_add(Duration(2)).is_err());
    /// ```
    #[inline]
    pub const fn try_add(self, d: Duration) -> Result<Time, TimeOverflow> {
        match self.checked_add(d) {
            Some(t) => Ok(t),
            None => Err(TimeOverflow { at: self, by: d }),
        }
    }

    /// The span from `earlier` to `self`, or `None` if it does not fit in `i64`.
    #[inline]
    pub const fn checked_since(self, earlier: Time) -> Option<Duration> {
        match self.0.checked_sub(earlier.0) {
            Some(d) => Some(Duration(d)),
            None => None,
        }
    }
}

/// A time sum that would pass the range of `i64` seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("time overflow: {at} + {by} passes the largest representable instant")]
pub struct TimeOverflow {
    /// The instant added to.
    pub at: Time,
    /// The span added.
    pub by: Duration,
}

impl Duration {
    /// Zero seconds.
    pub const ZERO: Duration = Duration(0);

    /// A span of `s` seconds.
    #[inline]
    pub const fn from_secs(s: i64) -> Duration {
        Duration(s)
    }

    /// A span of `m` minutes.
    ///
    /// # Panics
    /// If `m` minutes overflow `i64` seconds (never wraps); for user input use
    /// `Duration::from_secs(60).checked_mul(m)`.
    #[inline]
    pub const fn from_mins(m: i64) -> Duration {
        match m.checked_mul(60) {
            Some(s) => Duration(s),
            None => panic!("Duration::from_mins overflows i64 seconds"),
        }
    }

    /// A span of `h` hours.
    ///
    /// # Panics
    /// If `h` hours overflow `i64` seconds (never wraps); for user input use
    /// `Duration::from_secs(3600).checked_mul(h)`.
    #[inline]
    pub const fn from_hours(h: i64) -> Duration {
        match h.checked_mul(3600) {
            Some(s) => Duration(s),
            None => panic!("Duration::from_hours overflows i64 seconds"),
        }
    }

    /// Seconds in the span.
    #[inline]
    pub const fn secs(self) -> i64 {
        self.0
    }

    /// `self + other`, or `None` on overflow.
    #[inline]
    pub const fn checked_add(self, other: Duration) -> Option<Duration> {
        match self.0.checked_add(other.0) {
            Some(d) => Some(Duration(d)),
            None => None,
        }
    }

    /// `self × k`, or `None` on overflow (e.g. units × seconds with a user's unit count).
    #[inline]
    pub const fn checked_mul(self, k: i64) -> Option<Duration> {
        match self.0.checked_mul(k) {
            Some(d) => Some(Duration(d)),
            None => None,
        }
    }

    /// The span in (fractional) hours.
    #[inline]
    pub fn as_hours_f64(self) -> f64 {
        self.0 as f64 / 3600.0
    }
}

// The operators never wrap, in debug or release: an overflow is a bug in the caller, which must
// use `try_add`/`checked_*` wherever an operand comes from user input. They stay for the many
// sums of small, already-validated values (a job's start plus its validated run time).

impl Add<Duration> for Time {
    type Output = Time;
    #[inline]
    fn add(self, d: Duration) -> Time {
        Time(checked(self.0.checked_add(d.0)))
    }
}

impl AddAssign<Duration> for Time {
    #[inline]
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}

impl Sub<Duration> for Time {
    type Output = Time;
    #[inline]
    fn sub(self, d: Duration) -> Time {
        Time(checked(self.0.checked_sub(d.0)))
    }
}

impl SubAssign<Duration> for Time {
    #[inline]
    fn sub_assign(&mut self, d: Duration) {
        *self = *self - d;
    }
}

impl Sub for Time {
    type Output = Duration;
    #[inline]
    fn sub(self, other: Time) -> Duration {
        Duration(checked(self.0.checked_sub(other.0)))
    }
}

impl Add for Duration {
    type Output = Duration;
    #[inline]
    fn add(self, d: Duration) -> Duration {
        Duration(checked(self.0.checked_add(d.0)))
    }
}

impl AddAssign for Duration {
    #[inline]
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}

impl Sub for Duration {
    type Output = Duration;
    #[inline]
    fn sub(self, d: Duration) -> Duration {
        Duration(checked(self.0.checked_sub(d.0)))
    }
}

impl SubAssign for Duration {
    #[inline]
    fn sub_assign(&mut self, d: Duration) {
        *self = *self - d;
    }
}

/// The value of a checked operator, or a panic naming the overflow (never a silent wrap).
#[inline]
#[track_caller]
fn checked(v: Option<i64>) -> i64 {
    match v {
        Some(v) => v,
        None => panic!("time arithmetic overflowed i64 seconds; use Time::try_add for user input"),
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t={}s", self.0)
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_between_instants_and_spans() {
        let t = Time(100) + Duration::from_mins(2);
        assert_eq!(t, Time(220));
        assert_eq!(t - Time(20), Duration(200));
        assert_eq!(t.since(Time(200)), Duration(20));
        assert_eq!(Time::MAX.saturating_add(Duration(5)), Time::MAX);
        assert_eq!(Duration::from_hours(2).as_hours_f64(), 2.0);
    }

    #[test]
    fn checked_forms_refuse_overflow() {
        assert_eq!(Time::MAX.checked_add(Duration(1)), None);
        assert_eq!(
            Time(i64::MAX).try_add(Duration(1)),
            Err(TimeOverflow {
                at: Time::MAX,
                by: Duration(1)
            })
        );
        assert_eq!(Time(i64::MIN).checked_since(Time(1)), None);
        assert_eq!(Duration(i64::MAX).checked_mul(2), None);
        assert_eq!(Duration(3).checked_add(Duration(4)), Some(Duration(7)));
    }

    #[test]
    #[should_panic(expected = "time arithmetic overflowed")]
    fn operators_panic_instead_of_wrapping() {
        let _ = Time::MAX + Duration(1);
    }
}
