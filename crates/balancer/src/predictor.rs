//! The Predictive algorithm (Liu et al., SC18, §II-C3 and §III-B5): an out-of-band predictor
//! that splits each day into four 6-hour slots and, at the start of each slot, has the Balancer
//! reserve `N` nodes, `N` estimated from the **peak** number of requested nodes in the same
//! slot of the last month, week and day.
//!
//! "Requested nodes" at an instant are the nodes of the requests outstanding then (granted and
//! not yet released, or waiting); a slot's figure is their peak over the slot. The three peaks
//! are those of the **same slot** one day, one week and one month (30 days) before, the three
//! observations §II-C3 builds on: bursts "during the same hours of consecutive days", a
//! "moderate correlation between adjacent weeks" for the same hours, and the diurnal pattern
//! over the longer run. Each of the three is one slot's peak, so each can set the estimate
//! (a maximum over the whole month, as before, made the week's and the day's never matter).
//! The paper does not say how they are combined; [`Combine::Max`] (the default, ours) takes the
//! largest, which over-reserves as §III-B5 says the predictor does. The predictor is trained
//! offline on earlier weeks ([`Predictor::train`], as the paper "first ran the predictor offline
//! using historical data") and keeps learning from the run.
//!
//! [`Predictive`] wraps a hinted [`Balancer`] as one [`Policy`]: it watches the requests and
//! releases, and "at the beginning of each time slot, the predictor invokes `add_reserve(0, N)`
//! to reserve N nodes" (§II-C3): the reserve of the slot ([`PredictiveHold::Slot`], the
//! default, an [`Observation::ReserveTarget`] until the slot's end). With `H = 0` it is the
//! nodes idle at the slot's start, up to `N` (no time is left to gather more as jobs end), and
//! it is held for the slot: the on-demand pool keeps up to `N` nodes, so a node released within
//! it stays reserved. [`PredictiveHold::Idle`] (ours) applies the Hint algorithm's rule instead
//! — reserve nodes unused for `I` go back to batch — which with a short `I` makes Predictive
//! behave like Basic.

use crate::BalancerError;
use crate::policy::{Balancer, BalancerConfig, Command, Observation, Policy, RmNode};
use crate::workload::LeaseRequest;
use cosched_core::{Duration, ParamError, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The predictor's slot: a quarter of a day.
pub const SLOT: Duration = Duration::from_hours(6);
const SLOTS_PER_DAY: i64 = 4;
const WEEK_DAYS: i64 = 7;
const MONTH_DAYS: i64 = 30;

/// How the month, week and day peaks make one reserve size.
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
pub enum Combine {
    /// The largest of the three (ours; the paper names no rule).
    #[default]
    Max,
    /// Their mean, rounded up.
    Mean,
}

/// How long the predicted reserve is kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PredictiveHold {
    /// For its slot (the default, §II-C3: "at the beginning of each time slot, the predictor
    /// invokes add_reserve(0, N) to reserve N nodes" for that slot): an
    /// [`Observation::ReserveTarget`] until the slot's end.
    #[default]
    Slot,
    /// Ours: the Hint algorithm's rule, "any nodes that are in OD_Reserve state for more than I
    /// seconds will be released to OARM pool" (§II-C2), applied to the predicted reserve (an
    /// [`Observation::Hint`] due now).
    Idle,
}

/// The Predictive configuration: how peaks combine and how long the reserve is kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PredictorSpec {
    /// How the month, week and day peaks combine.
    pub rule: Combine,
    /// How long the predicted reserve is kept.
    pub hold: PredictiveHold,
}

impl From<Combine> for PredictorSpec {
    fn from(rule: Combine) -> PredictorSpec {
        PredictorSpec {
            rule,
            hold: PredictiveHold::default(),
        }
    }
}

/// How far back the three peaks are taken, in days: the same slot a day, a week and a month
/// (30 days) before (§II-C3).
pub const LOOKBACK_DAYS: [i64; 3] = [1, WEEK_DAYS, MONTH_DAYS];

/// Peak requested nodes per 6-hour slot, and the reserve it proposes.
///
/// ```
/// use cosched_balancer::predictor::{Combine, Predictor, SLOT};
/// use cosched_balancer::workload::LeaseRequest;
/// use cosched_core::{Duration, LeaseId, Time};
/// let lease = |submit: i64, nodes| LeaseRequest {
///     id: LeaseId(0), submit: Time(submit), nodes, duration: Duration(600), notice: None,
/// };
/// // Yesterday's slot 1 peaked at 5 concurrent nodes (3 + 2 overlapping).
/// let day = 86_400;
/// let p = Predictor::train(Combine::Max, &[lease(SLOT.0 + 10, 3), lease(SLOT.0 + 20, 2)]);
/// assert_eq!(p.reserve_for_slot(Time(day + SLOT.0)), 5);
/// assert_eq!(p.reserve_for_slot(Time(day + 2 * SLOT.0)), 0);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Predictor {
    rule: Combine,
    /// Peak requested nodes by slot index.
    peaks: BTreeMap<i64, u64>,
    /// Requested nodes outstanding now.
    outstanding: u64,
}

impl Predictor {
    /// An untrained predictor.
    pub fn new(rule: Combine) -> Predictor {
        Predictor {
            rule,
            ..Predictor::default()
        }
    }

    /// A predictor trained on past leases (all taken as granted for their duration).
    pub fn train(rule: Combine, history: &[LeaseRequest]) -> Predictor {
        let mut p = Predictor::new(rule);
        let mut changes: Vec<(Time, i64)> = history
            .iter()
            .flat_map(|l| {
                let n = i64::from(l.nodes);
                [(l.submit, n), (l.submit.saturating_add(l.duration), -n)]
            })
            .collect();
        changes.sort_unstable();
        let mut level = 0_i64;
        for (t, d) in changes {
            level += d;
            p.outstanding = level.max(0) as u64;
            p.note(t);
        }
        p.outstanding = 0;
        p
    }

    /// `nodes` more requested at `at`.
    pub fn requested(&mut self, at: Time, nodes: u32) {
        self.outstanding += u64::from(nodes);
        self.note(at);
    }

    /// `nodes` no longer requested (released, rejected or cancelled) at `at`.
    pub fn finished(&mut self, at: Time, nodes: u32) {
        self.outstanding = self.outstanding.saturating_sub(u64::from(nodes));
        self.note(at);
    }

    fn note(&mut self, at: Time) {
        let k = slot_index(at);
        let peak = self.peaks.entry(k).or_default();
        *peak = (*peak).max(self.outstanding);
        // Only the last month matters.
        if let Some(&first) = self.peaks.keys().next()
            && first < k - MONTH_DAYS * SLOTS_PER_DAY
        {
            self.peaks = self.peaks.split_off(&(k - MONTH_DAYS * SLOTS_PER_DAY));
        }
    }

    /// The reserve for the slot holding `at`: the peaks of the same slot a month, a week and a
    /// day before, combined.
    pub fn reserve_for_slot(&self, at: Time) -> u32 {
        let k = slot_index(at);
        let peak = |days: i64| {
            self.peaks
                .get(&(k - days * SLOTS_PER_DAY))
                .copied()
                .unwrap_or(0)
        };
        let (month, week, day) = (peak(MONTH_DAYS), peak(WEEK_DAYS), peak(1));
        let n = match self.rule {
            Combine::Max => month.max(week).max(day),
            Combine::Mean => (month + week + day).div_ceil(3),
        };
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    /// The start of the first slot at or after `at` whose reserve may be non-zero (a day, a
    /// week or a month after a recorded peak); `None` when no recorded peak reaches that far.
    pub fn next_active_slot(&self, at: Time) -> Option<Time> {
        let s = slot_index(at);
        self.peaks
            .range(s - MONTH_DAYS * SLOTS_PER_DAY..)
            .filter(|&(_, &peak)| peak > 0)
            .flat_map(|(&k, _)| LOOKBACK_DAYS.map(|d| k + d * SLOTS_PER_DAY))
            .filter(|&j| j >= s)
            .min()
            .and_then(|j| j.checked_mul(SLOT.secs()).map(Time))
    }

    /// The start of the slot after the one holding `now` (saturating).
    pub fn next_slot_start(now: Time) -> Time {
        (slot_index(now) + 1)
            .checked_mul(SLOT.secs())
            .map_or(Time::MAX, Time)
    }
}

fn slot_index(t: Time) -> i64 {
    t.secs().div_euclid(SLOT.secs())
}

/// The Predictive algorithm as one policy: a hinted [`Balancer`] and its out-of-band
/// [`Predictor`]; see the [module docs](self).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Predictive {
    balancer: Balancer,
    predictor: Predictor,
    /// Nodes of each outstanding request.
    sizes: BTreeMap<u64, u32>,
    /// The next slot start at which a reserve may be due.
    next_slot: Option<Time>,
    hold: PredictiveHold,
}

impl Predictive {
    /// A hinted Balancer with `config` and its `predictor`; [`Policy::start`] starts the
    /// Balancer and schedules the first active slot at or after its time.
    pub fn new(config: BalancerConfig, predictor: Predictor) -> Result<Self, BalancerError> {
        ParamError::check(
            config.static_reserve() == 0,
            "R",
            config.static_reserve(),
            "Predictive needs the hinted strategy",
        )?;
        Ok(Predictive {
            balancer: Balancer::new(config),
            predictor,
            sizes: BTreeMap::new(),
            next_slot: None,
            hold: PredictiveHold::default(),
        })
    }

    /// With the reserve kept as `hold` says.
    pub fn with_hold(self, hold: PredictiveHold) -> Predictive {
        Predictive { hold, ..self }
    }

    /// The Balancer inside.
    pub fn balancer(&self) -> &Balancer {
        &self.balancer
    }

    fn account(&mut self, now: Time, commands: &[Command]) {
        for c in commands {
            if let Command::Reject { request } = c
                && let Some(n) = self.sizes.remove(&request.0)
            {
                self.predictor.finished(now, n);
            }
            if let Command::Grant { request, .. } = c {
                self.sizes.remove(&request.0);
            }
        }
    }
}

impl Policy for Predictive {
    type Observation = Observation;
    type Command = Command;
    type View = [RmNode];
    type Error = BalancerError;

    fn start(
        &mut self,
        now: Time,
        view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), BalancerError> {
        self.balancer.start(now, view, out)?;
        self.sizes.clear();
        self.next_slot = self.predictor.next_active_slot(now);
        Ok(())
    }

    fn observe(
        &mut self,
        now: Time,
        observation: &Observation,
        view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), BalancerError> {
        match *observation {
            Observation::Request { request, nodes, .. } => {
                self.predictor.requested(now, nodes);
                self.sizes.insert(request.0, nodes);
            }
            Observation::Cancel { request } => {
                if let Some(n) = self.sizes.remove(&request.0) {
                    self.predictor.finished(now, n);
                }
            }
            Observation::Release { ref nodes } => {
                self.predictor
                    .finished(now, u32::try_from(nodes.len()).unwrap_or(u32::MAX));
            }
            _ => {}
        }
        let from = out.len();
        self.balancer.observe(now, observation, view, out)?;
        self.account(now, &out[from..]);
        if matches!(observation, Observation::Request { .. }) {
            let after = Predictor::next_slot_start(now);
            self.next_slot = match (self.next_slot, self.predictor.next_active_slot(after)) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        Ok(())
    }

    /// At a slot's start, the slot's predicted reserve; then the Balancer's own deadlines.
    fn wake(
        &mut self,
        now: Time,
        view: &[RmNode],
        out: &mut Vec<Command>,
    ) -> Result<(), BalancerError> {
        let from = out.len();
        if self.next_slot.is_some_and(|s| s <= now) {
            let until = Predictor::next_slot_start(now);
            let nodes = self.predictor.reserve_for_slot(now);
            let call = match self.hold {
                PredictiveHold::Slot => Observation::ReserveTarget { nodes, until },
                PredictiveHold::Idle => Observation::Hint {
                    by: now,
                    nodes: nodes.saturating_sub(
                        self.balancer
                            .count(crate::policy::BalancerNodeState::OdReserve),
                    ),
                },
            };
            self.balancer.observe(now, &call, view, out)?;
            self.next_slot = self.predictor.next_active_slot(until);
        }
        self.balancer.wake(now, view, out)?;
        self.account(now, &out[from..]);
        Ok(())
    }

    fn next_wake(&self) -> Option<Time> {
        match (self.balancer.next_wake(), self.next_slot) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{RmNodeState, Strategy};
    use cosched_core::LeaseId;

    fn at(day: i64, slot: i64) -> Time {
        Time((day * SLOTS_PER_DAY + slot) * SLOT.secs())
    }

    fn lease(t: Time, nodes: u32, secs: i64) -> LeaseRequest {
        LeaseRequest {
            id: LeaseId(0),
            submit: t,
            nodes,
            duration: Duration(secs),
            notice: None,
        }
    }

    #[test]
    fn the_same_slot_a_day_a_week_and_a_month_before_each_count() {
        // Slot 1 of day 0 (a month before day 30), day 23 (a week before) and day 29 (the day
        // before, two requests of 5 that do not overlap: peak 5, not 10); day 25 counts for none.
        let history = [
            lease(at(0, 1), 30, 60),
            lease(at(23, 1), 12, 60),
            lease(at(25, 1), 40, 60),
            lease(at(29, 1), 5, 60),
            lease(at(29, 1) + Duration(600), 5, 60),
        ];
        let p = Predictor::train(Combine::Max, &history);
        assert_eq!(p.reserve_for_slot(at(30, 1)), 30);
        // Day 31: a month before is day 1 (nothing), a week before day 24 (nothing), the day
        // before day 30 (nothing): no reserve; day 32: a week before is day 25.
        assert_eq!(p.reserve_for_slot(at(31, 1)), 0);
        assert_eq!(p.reserve_for_slot(at(32, 1)), 40);
        // Day 30 again without the month's peak: the week's sets it.
        let recent = Predictor::train(Combine::Max, &history[1..]);
        assert_eq!(recent.reserve_for_slot(at(30, 1)), 12);
        let mean = Predictor::train(Combine::Mean, &history);
        assert_eq!(
            mean.reserve_for_slot(at(30, 1)),
            (30 + 12 + 5_u32).div_ceil(3)
        );
        assert_eq!(p.reserve_for_slot(at(30, 2)), 0);
        assert_eq!(
            Predictor::next_slot_start(at(30, 1) + Duration(1)),
            at(30, 2)
        );
    }

    fn nodes() -> Vec<RmNode> {
        (0..4)
            .map(|i| RmNode {
                name: format!("n{i}"),
                state: RmNodeState::BatchIdle,
            })
            .collect()
    }

    fn predictive(hold: PredictiveHold) -> Predictive {
        let config = BalancerConfig::new(Strategy::Hinted).with_idle_hold(Duration(600));
        // Yesterday's slot 1 peaked at 3 nodes.
        let p = Predictor::train(Combine::Max, &[lease(at(0, 1), 3, 60)]);
        let mut p = Predictive::new(config, p).unwrap().with_hold(hold);
        p.start(at(1, 0), nodes().as_slice(), &mut Vec::new())
            .unwrap();
        p
    }

    #[test]
    fn the_predicted_reserve_is_held_for_its_slot_or_for_i() {
        for (hold, back) in [
            (PredictiveHold::Slot, at(1, 2)),
            (PredictiveHold::Idle, at(1, 1) + Duration(600)),
        ] {
            let mut p = predictive(hold);
            let view = nodes();
            assert_eq!(p.next_wake(), Some(at(1, 1)));
            let mut out = Vec::new();
            p.wake(at(1, 1), view.as_slice(), &mut out).unwrap();
            assert_eq!(out.len(), 3, "{hold:?}: three idle nodes reclaimed");
            assert_eq!(p.next_wake(), Some(back), "{hold:?}");
            out.clear();
            p.wake(back, view.as_slice(), &mut out).unwrap();
            assert_eq!(out.len(), 3, "{hold:?}: all restored at {back:?}");
        }
    }

    #[test]
    fn next_active_slot_skips_empty_spans() {
        let p = Predictor::train(Combine::Max, &[lease(at(0, 2), 4, 60)]);
        assert_eq!(p.next_active_slot(at(0, 3)), Some(at(1, 2)));
        assert_eq!(p.next_active_slot(at(5, 0)), Some(at(7, 2)));
        assert_eq!(p.next_active_slot(at(8, 0)), Some(at(30, 2)));
        assert_eq!(p.next_active_slot(at(31, 0)), None);
        assert_eq!(p.next_active_slot(Time(i64::MAX)), None);
        // Every active slot has a reserve, and no slot in between has one.
        for day in 0..32 {
            for slot in 0..4 {
                let t = at(day, slot);
                let active = p.next_active_slot(t) == Some(t);
                assert_eq!(active, p.reserve_for_slot(t) > 0, "day {day} slot {slot}");
            }
        }
    }
}
