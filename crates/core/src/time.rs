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
    #[inline]
    pub const fn from_mins(m: i64) -> Duration {
        Duration(m * 60)
    }

    /// A span of `h` hours.
    #[inline]
    pub const fn from_hours(h: i64) -> Duration {
        Duration(h * 3600)
    }

    /// Seconds in the span.
    #[inline]
    pub const fn secs(self) -> i64 {
        self.0
    }

    /// The span in (fractional) hours.
    #[inline]
    pub fn as_hours_f64(self) -> f64 {
        self.0 as f64 / 3600.0
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    #[inline]
    fn add(self, d: Duration) -> Time {
        Time(self.0 + d.0)
    }
}

impl AddAssign<Duration> for Time {
    #[inline]
    fn add_assign(&mut self, d: Duration) {
        self.0 += d.0;
    }
}

impl Sub<Duration> for Time {
    type Output = Time;
    #[inline]
    fn sub(self, d: Duration) -> Time {
        Time(self.0 - d.0)
    }
}

impl SubAssign<Duration> for Time {
    #[inline]
    fn sub_assign(&mut self, d: Duration) {
        self.0 -= d.0;
    }
}

impl Sub for Time {
    type Output = Duration;
    #[inline]
    fn sub(self, other: Time) -> Duration {
        Duration(self.0 - other.0)
    }
}

impl Add for Duration {
    type Output = Duration;
    #[inline]
    fn add(self, d: Duration) -> Duration {
        Duration(self.0 + d.0)
    }
}

impl AddAssign for Duration {
    #[inline]
    fn add_assign(&mut self, d: Duration) {
        self.0 += d.0;
    }
}

impl Sub for Duration {
    type Output = Duration;
    #[inline]
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0 - d.0)
    }
}

impl SubAssign for Duration {
    #[inline]
    fn sub_assign(&mut self, d: Duration) {
        self.0 -= d.0;
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
}
