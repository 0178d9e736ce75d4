//! Node-seconds accounting: what each pool held, kept busy and wasted, over any window.
//!
//! One ledger replaces each simulator's own sums. A simulator records intervals of units:
//!
//! - [`UsageKind::Held`]: units assigned to a pool (a batch node, a reserved on-demand node,
//!   a volunteer VM), busy or not;
//! - [`UsageKind::Busy`]: units running work;
//! - [`UsageKind::Wasted`]: busy units whose work was later lost (preempted, failed, restarted
//!   from an earlier checkpoint).
//!
//! From those, *useful* = busy − wasted and *idle* = held − busy. Totals are exact integers in
//! `i128` (a 4·10⁹-unit machine over 10¹⁵ s does not overflow). With [`UsageLedger::with_windows`]
//! every interval is also kept, so utilisation over any window (the arrival window of a trace,
//! one week of a month) is exact; [`UsageLedger::totals_only`] keeps constant memory for
//! simulators that only report whole-run totals.
//!
//! ```
//! use cosched_core::usage::{UsageKind, UsageLedger};
//! use cosched_core::{Pool, Time};
//! let mut ledger = UsageLedger::with_windows();
//! // A 2-unit job runs 0..100 on a 4-unit batch pool; its last 50 s are lost to a preemption.
//! ledger.record(Pool::Batch, UsageKind::Busy, Time(0), Time(100), 2).unwrap();
//! ledger.record(Pool::Batch, UsageKind::Wasted, Time(50), Time(100), 2).unwrap();
//! assert_eq!(ledger.total(Pool::Batch, UsageKind::Busy), 200);
//! assert_eq!(ledger.useful_within(Pool::Batch, Time(0), Time(100)), Some(100));
//! // Useful utilisation of 4 units over 0..100: 100 / 400.
//! assert_eq!(ledger.utilization(Pool::Batch, UsageKind::Busy, 4, Time(0), Time(50)), Some(0.5));
//! assert_eq!(ledger.useful_utilization(Pool::Batch, 4, Time(0), Time(100)), Some(0.25));
//! ```

use crate::{Pool, Time};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// What an interval of units was doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UsageKind {
    /// Assigned to the pool, busy or not.
    Held,
    /// Running work.
    Busy,
    /// Busy, but the work was later lost.
    Wasted,
}

impl UsageKind {
    const ALL: [UsageKind; 3] = [UsageKind::Held, UsageKind::Busy, UsageKind::Wasted];

    const fn index(self) -> usize {
        match self {
            UsageKind::Held => 0,
            UsageKind::Busy => 1,
            UsageKind::Wasted => 2,
        }
    }
}

const POOLS: [Pool; 4] = [Pool::Batch, Pool::OnDemand, Pool::Volunteer, Pool::Cloud];

const fn pool_index(pool: Pool) -> usize {
    match pool {
        Pool::Batch => 0,
        Pool::OnDemand => 1,
        Pool::Volunteer => 2,
        Pool::Cloud => 3,
    }
}

/// One recorded interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interval {
    /// The pool.
    pub pool: Pool,
    /// What the units did.
    pub kind: UsageKind,
    /// Start (inclusive).
    pub from: Time,
    /// End (exclusive).
    pub to: Time,
    /// Units.
    pub units: u64,
}

/// An interval that ends before it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("usage interval ends at {to} before it starts at {from}")]
pub struct BackwardsInterval {
    /// The start given.
    pub from: Time,
    /// The end given.
    pub to: Time,
}

/// Unit-seconds held, busy and wasted per pool; see the module docs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageLedger {
    totals: [[i128; 3]; 4],
    intervals: Option<Vec<Interval>>,
}

impl UsageLedger {
    /// A ledger of whole-run totals only: constant memory.
    pub fn totals_only() -> Self {
        UsageLedger::default()
    }

    /// A ledger that also keeps every interval, for window queries.
    pub fn with_windows() -> Self {
        UsageLedger {
            intervals: Some(Vec::new()),
            ..UsageLedger::default()
        }
    }

    /// Records `units` of `pool` doing `kind` over `from..to`. Empty intervals are ignored.
    pub fn record(
        &mut self,
        pool: Pool,
        kind: UsageKind,
        from: Time,
        to: Time,
        units: u64,
    ) -> Result<(), BackwardsInterval> {
        if to < from {
            return Err(BackwardsInterval { from, to });
        }
        if to == from || units == 0 {
            return Ok(());
        }
        self.totals[pool_index(pool)][kind.index()] += unit_seconds(units, from, to);
        if let Some(log) = &mut self.intervals {
            log.push(Interval {
                pool,
                kind,
                from,
                to,
                units,
            });
        }
        Ok(())
    }

    /// Whole-run unit-seconds of `pool` doing `kind`.
    pub fn total(&self, pool: Pool, kind: UsageKind) -> i128 {
        self.totals[pool_index(pool)][kind.index()]
    }

    /// Whole-run unit-seconds of `kind` over every pool.
    pub fn total_all_pools(&self, kind: UsageKind) -> i128 {
        POOLS.iter().map(|&p| self.total(p, kind)).sum()
    }

    /// Unit-seconds of `pool` doing `kind` inside `from..to` (each interval counted for its
    /// overlap); `None` when the ledger keeps totals only.
    pub fn within(&self, pool: Pool, kind: UsageKind, from: Time, to: Time) -> Option<i128> {
        let log = self.intervals.as_ref()?;
        Some(
            log.iter()
                .filter(|iv| iv.pool == pool && iv.kind == kind)
                .map(|iv| {
                    let (a, b) = (iv.from.max(from), iv.to.min(to));
                    if b > a {
                        unit_seconds(iv.units, a, b)
                    } else {
                        0
                    }
                })
                .sum(),
        )
    }

    /// Useful (busy − wasted) unit-seconds of `pool` inside `from..to`.
    pub fn useful_within(&self, pool: Pool, from: Time, to: Time) -> Option<i128> {
        Some(
            self.within(pool, UsageKind::Busy, from, to)?
                - self.within(pool, UsageKind::Wasted, from, to)?,
        )
    }

    /// The share of `capacity` units of `pool` doing `kind` over `from..to`; `None` for an
    /// empty window, no capacity, or a totals-only ledger asked about a partial window.
    pub fn utilization(
        &self,
        pool: Pool,
        kind: UsageKind,
        capacity: u64,
        from: Time,
        to: Time,
    ) -> Option<f64> {
        let used = self.within(pool, kind, from, to)?;
        ratio(used, capacity, from, to)
    }

    /// The useful share of `capacity` units of `pool` over `from..to`.
    pub fn useful_utilization(
        &self,
        pool: Pool,
        capacity: u64,
        from: Time,
        to: Time,
    ) -> Option<f64> {
        ratio(self.useful_within(pool, from, to)?, capacity, from, to)
    }

    /// Every recorded interval (empty for a totals-only ledger).
    pub fn intervals(&self) -> &[Interval] {
        self.intervals.as_deref().unwrap_or(&[])
    }

    /// The kinds tracked, in a fixed order (for reports).
    pub const fn kinds() -> [UsageKind; 3] {
        UsageKind::ALL
    }
}

/// `used / (capacity × (to − from))`, `None` for an empty denominator.
pub fn ratio(used: i128, capacity: u64, from: Time, to: Time) -> Option<f64> {
    let span = i128::from(to.secs()) - i128::from(from.secs());
    let denom = i128::from(capacity) * span;
    (denom > 0).then(|| used as f64 / denom as f64)
}

/// `units × (to − from)` in `i128`, exact for any `u64` units and `i64` times.
fn unit_seconds(units: u64, from: Time, to: Time) -> i128 {
    i128::from(units) * (i128::from(to.secs()) - i128::from(from.secs()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn extreme_values_do_not_overflow() {
        let mut l = UsageLedger::totals_only();
        l.record(
            Pool::Batch,
            UsageKind::Busy,
            Time(0),
            Time(i64::MAX),
            u64::MAX,
        )
        .unwrap();
        assert_eq!(
            l.total(Pool::Batch, UsageKind::Busy),
            i128::from(u64::MAX) * i128::from(i64::MAX)
        );
        assert_eq!(
            l.within(Pool::Batch, UsageKind::Busy, Time(0), Time(1)),
            None
        );
    }

    #[test]
    fn backwards_intervals_are_refused() {
        let mut l = UsageLedger::with_windows();
        assert!(
            l.record(Pool::Cloud, UsageKind::Held, Time(5), Time(4), 1)
                .is_err()
        );
        assert!(l.intervals().is_empty());
    }

    proptest! {
        /// Windows that tile a span add up to the whole-run total.
        #[test]
        fn windows_partition_the_total(
            ivs in prop::collection::vec((0i64..1000, 0i64..500, 1u64..64), 0..40),
            cut in 0i64..1500,
        ) {
            let mut l = UsageLedger::with_windows();
            for &(from, len, units) in &ivs {
                l.record(Pool::OnDemand, UsageKind::Held, Time(from), Time(from + len), units).unwrap();
            }
            let a = l.within(Pool::OnDemand, UsageKind::Held, Time(0), Time(cut)).unwrap();
            let b = l.within(Pool::OnDemand, UsageKind::Held, Time(cut), Time(2000)).unwrap();
            prop_assert_eq!(a + b, l.total(Pool::OnDemand, UsageKind::Held));
            prop_assert_eq!(l.total(Pool::Batch, UsageKind::Held), 0);
        }
    }
}
