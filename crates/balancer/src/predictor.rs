//! The Predictive algorithm's out-of-band predictor (Liu et al., SC18, section III: the
//! Predictive variant of Algorithm 1).
//!
//! Each day is split into four 6-hour slots. The predictor records how many nodes were
//! requested in each slot (the sum of the request sizes), and at the start of each slot
//! proposes a reserve of `N` nodes from the peak requested in the same slot over the last
//! month (30 days), week (7 days) and day, combined by a [`Combine`] rule. The driver passes the
//! proposal to [`crate::Balancer::add_reserve`]`(now, now, N)`. Like the policy, it holds no
//! clock: times come with the calls.
//!
//! The default rule is [`Combine::Mean`]. The three windows nest (the last day is in the last
//! week, which is in the last month), so [`Combine::Max`] is always the month's peak: the most
//! conservative choice, which takes the most nodes from batch for one busy day a month ago.
//! The mean keeps that peak in view but counts the recent past three times over (a recent peak
//! is in all three windows), so the reserve follows a changing load without swinging on one day.
//!
//! ```
//! use cosched_balancer::predictor::{Combine, Predictor, SLOT};
//! use cosched_core::Time;
//! let mut p = Predictor::new(Combine::Max).unwrap();
//! p.record_request(Time(0), 8); // 8 nodes asked for in slot 0 of day 0
//! let tomorrow = Time(4 * SLOT.secs());
//! assert_eq!(p.reserve_for_slot(tomorrow), 8);
//! assert_eq!(p.reserve_for_slot(tomorrow + SLOT), 0);
//! ```

use cosched_core::{Duration, ParamError, Time};
use std::collections::BTreeMap;

/// The length of a slot: 6 hours.
pub const SLOT: Duration = Duration::from_hours(6);
const SLOTS_PER_DAY: i64 = 4;
const WEEK_DAYS: i64 = 7;
const MONTH_DAYS: i64 = 30;

/// How the month, week and day peaks combine into one reserve size.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Combine {
    /// The largest of the three (always the month's peak).
    Max,
    /// Their mean, rounded up (the default; see the module docs).
    #[default]
    Mean,
    /// A weighted mean, rounded up; weights are finite, non-negative and not all zero.
    Weighted {
        /// Weight of the month's peak.
        month: f64,
        /// Weight of the week's peak.
        week: f64,
        /// Weight of the last day's value.
        day: f64,
    },
}

/// Records requests per slot and proposes reserves; see the [module docs](self).
#[derive(Clone, Debug, Default)]
pub struct Predictor {
    rule: Combine,
    /// Nodes requested per slot index (slot `k` starts at `k * SLOT`).
    requested: BTreeMap<i64, u64>,
}

impl Predictor {
    /// A predictor with no history, combining peaks by `rule`.
    pub fn new(rule: Combine) -> Result<Predictor, ParamError> {
        if let Combine::Weighted { month, week, day } = rule {
            for (name, w) in [("month", month), ("week", week), ("day", day)] {
                ParamError::check(
                    w.is_finite() && w >= 0.0,
                    name,
                    w,
                    "weights are finite and >= 0",
                )?;
            }
            let total = month + week + day;
            ParamError::check(
                total > 0.0,
                "weights",
                total,
                "weights must not all be zero",
            )?;
        }
        Ok(Predictor {
            rule,
            requested: BTreeMap::new(),
        })
    }

    /// Records a request for `nodes` nodes made at `at`. History older than a month before
    /// the latest record is forgotten.
    pub fn record_request(&mut self, at: Time, nodes: u32) {
        let k = slot_index(at);
        *self.requested.entry(k).or_default() += u64::from(nodes);
        let horizon = k - MONTH_DAYS * SLOTS_PER_DAY;
        self.requested = self.requested.split_off(&horizon);
    }

    /// The start of the slot after the one holding `now`: when to ask for the next reserve.
    pub fn next_slot_start(now: Time) -> Time {
        Time((slot_index(now) + 1) * SLOT.secs())
    }

    /// The reserve to build at the start of the slot holding `at`: the month, week and day
    /// peaks of the same slot on previous days, combined.
    pub fn reserve_for_slot(&self, at: Time) -> u32 {
        let k = slot_index(at);
        let peak = |days: i64| {
            (1..=days)
                .filter_map(|d| self.requested.get(&(k - d * SLOTS_PER_DAY)))
                .max()
                .copied()
                .unwrap_or(0) as f64
        };
        let (month, week, day) = (peak(MONTH_DAYS), peak(WEEK_DAYS), peak(1));
        let n = match self.rule {
            Combine::Max => month.max(week).max(day),
            Combine::Mean => (month + week + day) / 3.0,
            Combine::Weighted {
                month: wm,
                week: ww,
                day: wd,
            } => (wm * month + ww * week + wd * day) / (wm + ww + wd),
        };
        // Peaks are sums of u32 request sizes: far below f64's exact-integer range.
        n.ceil().min(f64::from(u32::MAX)) as u32
    }
}

fn slot_index(t: Time) -> i64 {
    t.secs().div_euclid(SLOT.secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(day: i64, slot: i64) -> Time {
        Time((day * SLOTS_PER_DAY + slot) * SLOT.secs())
    }

    #[test]
    fn peaks_of_the_same_slot_over_month_week_and_day() {
        let mut p = Predictor::new(Combine::Max).unwrap();
        p.record_request(at(0, 1), 30); // 30 days before day 30: in the month
        p.record_request(at(25, 1), 12); // in the week
        p.record_request(at(29, 1), 5);
        p.record_request(at(29, 1) + Duration(60), 1); // same slot: summed to 6
        p.record_request(at(29, 2), 100); // another slot
        let (day, week, month) = (6.0, 12.0, 30.0);
        assert_eq!(p.reserve_for_slot(at(30, 1)), 30);
        let mean = Predictor {
            rule: Combine::Mean,
            ..p.clone()
        };
        assert_eq!(
            mean.reserve_for_slot(at(30, 1)),
            ((day + week + month) / 3.0_f64).ceil() as u32
        );
        let weighted = Predictor {
            rule: Combine::Weighted {
                month: 0.0,
                week: 1.0,
                day: 1.0,
            },
            ..p.clone()
        };
        assert_eq!(weighted.reserve_for_slot(at(30, 1) + Duration(5)), 9);
        // A month and a day later, day 0 has left the window.
        assert_eq!(p.reserve_for_slot(at(31, 1)), 12);
        assert_eq!(p.reserve_for_slot(at(30, 2)), 100);
        assert_eq!(p.reserve_for_slot(at(30, 0)), 0);
        assert_eq!(
            Predictor::next_slot_start(at(30, 1) + Duration(1)),
            at(30, 2)
        );
    }

    #[test]
    fn rejects_bad_weights() {
        let w = |month, week, day| Predictor::new(Combine::Weighted { month, week, day });
        assert!(w(0.0, 0.0, 0.0).is_err());
        assert!(w(-1.0, 1.0, 1.0).is_err());
        assert!(w(f64::NAN, 1.0, 1.0).is_err());
        assert!(w(1.0, 0.0, 0.0).is_ok());
    }
}
