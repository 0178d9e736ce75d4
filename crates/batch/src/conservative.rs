//! Conservative backfilling (Mu'alem and Feitelson, IEEE TPDS 12(6), 2001): every queued job,
//! in queue order, is reserved at its earliest fit in the availability profile; those whose
//! fit is now start. No job ever delays an earlier one's reservation.
//!
//! # The schedule
//! At every pass the schedule is the one a plan from scratch in queue order gives (jobs may
//! move later as well as earlier: a job that moves earlier can take room a later job held).
//! It is kept between passes while nothing happened that it could not foresee (arrivals
//! behind the queue, completions at their predicted ends: see `BatchCluster`'s change
//! count); new arrivals are then planned behind it. Anything else (a job ending before its
//! estimate, a cancellation, a requeue, a node operation) plans afresh.
//!
//! # What a plan costs
//! A job needs no reservation if its earliest fit lies past the first step of the profile with
//! no free unit (the *horizon*): no job that starts now reaches that step, and no job placed
//! before it overlaps the reservation, so the jobs that start now are the same. Once a few
//! jobs in a row miss the horizon, planning works out what fits before it (the longest run of
//! steps at each number of free units) and jumps, by a search of the queue's (size, estimate)
//! skyline, to the next job that fits there: the jobs in between cost O(log n) together. And
//! planning stops once no job left could start now (the plan of a queue prefix is that prefix
//! of the whole plan): no job left fits now on the profile planned so far, as a search of the
//! skyline under the profile's room from now tells (reservations only take room, so a job
//! that does not fit now there never will in this plan). A deep backlog that cannot start soon thus costs a few fits per plan,
//! however long; a real trace's short queue costs about a fit and a reservation per job that
//! fits before the horizon (see `benches/conservative.rs`).
//!
//! [`Conservative::bounded`] is the variant production schedulers run (Slurm's backfill
//! `bf_max_job_test` and `bf_window`): at most `depth` jobs reserved, none more than `window`
//! ahead. Its depth counts every job it tests, so it tests them one by one (no jump); the
//! jobs it leaves unreserved (passed over, out of the window, or never fitting) still count
//! against the depth while they wait, and a plan that left jobs out for the window is kept
//! until the window reaches the earliest of their fits (before, a plan from scratch leaves
//! them out as well).
//!
//! The plan is a cache: it is not serialised, and a restored `Conservative` plans afresh (the
//! same schedule).

use crate::pass::Pass;
use crate::profile::{Profile, Staircase};
use cosched_core::{Duration, JobId, Time};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A queue key: (submit, id).
type Key = (Time, JobId);

/// Conservative backfilling; see the [module docs](self).
///
/// ```
/// use cosched_batch::{BatchSim, Conservative};
/// use cosched_core::{Duration, JobId, RigidJob, Time};
/// let job = |id, submit, size, run| {
///     RigidJob::new(JobId(id), Time(submit), size, Duration(run), Duration(run)).unwrap()
/// };
/// // Job 2 is reserved at 100; job 3 (1 unit for 200 s) would delay it and waits; job 4
/// // (1 unit for 50 s) backfills now.
/// let jobs = [job(1, 0, 3, 100), job(2, 1, 4, 10), job(3, 2, 1, 200), job(4, 3, 1, 50)];
/// let out = BatchSim::new(4).unwrap().run(&mut Conservative::default(), &jobs).unwrap();
/// let start = |id| out.records.iter().find(|r| r.id == JobId(id)).and_then(|r| r.start);
/// assert_eq!([start(2), start(3), start(4)], [Some(Time(100)), Some(Time(110)), Some(Time(3))]);
/// ```
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Conservative {
    /// `None` for the exact policy.
    bounds: Option<Bounds>,
    #[serde(skip)]
    plan: Option<Plan>,
}

/// The bounds of [`Conservative::bounded`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bounds {
    /// Most queued jobs holding a reservation at once, as Slurm's `bf_max_job_test`; a pass
    /// tests at most this many less those already reserved.
    pub depth: usize,
    /// How far ahead a reservation may start, as Slurm's `bf_window`: a job whose earliest
    /// fit is later gets none in this plan (and does not hold back the jobs behind it).
    ///
    /// slurm.conf(5) advises a window "at least as long as the highest allowed time limit"
    /// to prevent starvation. A shorter one (the default day against estimates of up to 36 h,
    /// as Lublin–Feitelson's with Tsafrir's model) on a backlog deeper than the window leaves
    /// the jobs whose fit lies past it unreserved, so that the jobs behind them start wherever
    /// they fit: on a saturated machine this packs tighter than EASY's one reservation or
    /// conservative's all, and its mean wait can fall below both, at the price of no start
    /// guarantee for the unreserved jobs.
    pub window: Duration,
}

impl Bounds {
    /// Slurm's defaults, as slurm.conf(5) of Slurm 22.05 states them: `bf_max_job_test=500`,
    /// `bf_window=1440` minutes.
    pub const SLURM: Bounds = Bounds {
        depth: 500,
        window: Duration(86_400),
    };
}

impl Conservative {
    /// Conservative backfilling bounded as Slurm's backfill is: at most `bounds.depth` jobs
    /// reserved, none further ahead than `bounds.window`. Jobs past the depth wait for a
    /// later pass; a job left out for the window is tested again once the window reaches its
    /// fit.
    /// With bounds no queue reaches, the schedule is the exact one.
    pub fn bounded(bounds: Bounds) -> Conservative {
        Conservative {
            bounds: Some(bounds),
            plan: None,
        }
    }

    /// The bounds, `None` for the exact policy.
    pub fn bounds(&self) -> Option<Bounds> {
        self.bounds
    }
}

/// The schedule a [`Conservative`] pass left behind.
#[derive(Clone, Debug)]
struct Plan {
    /// Free units over time once running jobs end as predicted and reserved jobs run.
    profile: Profile,
    /// Reserved start of every planned queued job that fits, with its queue key, earliest
    /// first (a heap: a plan of `q` jobs makes it in O(q), where an ordered set took `q`
    /// insertions).
    reservations: BinaryHeap<Reverse<(Time, Key)>>,
    /// The horizons jobs were passed over under, as (the first such job's key, horizon):
    /// keys increasing, horizons not increasing. A planned job without a reservation has no
    /// fit before the horizon of the last entry at or before its key.
    horizons: Vec<(Key, Time)>,
    /// The last queue key planned (every job up to it is).
    planned_up_to: Option<Key>,
    /// Planned jobs without a reservation, which a bounded plan counts against its depth
    /// while they wait (those out of the window, passed over, or never fitting).
    unreserved: usize,
    /// The earliest fit of a job left out for the window: the plan holds while the window
    /// ends before it.
    outside: Time,
    /// The cluster's change count when the plan was made.
    changes: u64,
    /// When it was made.
    at: Time,
    /// Whether every reservation covers exactly its job's run, so that the plan is what a
    /// fresh one would be later (see [`exact_reservation`]).
    exact: bool,
}

/// Whether a reservation at `start` for `estimate` covers exactly the span its job holds
/// units: not for a zero estimate (its reservation takes its whole step, but it frees its
/// units at once) nor for an end at the last representable second (no step can end there).
pub(crate) fn exact_reservation(start: Time, estimate: Duration) -> bool {
    estimate > Duration::ZERO && start.saturating_add(estimate) < Time::MAX
}

/// Whether a job placed at `start` for `estimate` ends before `horizon` (a zero estimate
/// holds its start's step).
fn before(start: Time, estimate: Duration, horizon: Time) -> bool {
    horizon == Time::MAX || (start < horizon && start.saturating_add(estimate) <= horizon)
}

impl Plan {
    /// A plan of nothing yet on the profile `pass` sees, in the buffers of `old` if given.
    fn fresh(pass: &Pass<'_>, old: Option<Plan>) -> Plan {
        let (profile, reservations, horizons) = match old {
            Some(Plan {
                mut profile,
                mut reservations,
                mut horizons,
                ..
            }) => {
                profile.rebuild(pass.now(), pass.free_units(), pass.releases());
                reservations.clear();
                horizons.clear();
                (profile, reservations, horizons)
            }
            None => (
                Profile::new(pass.now(), pass.free_units(), pass.releases()),
                BinaryHeap::new(),
                Vec::new(),
            ),
        };
        Plan {
            profile,
            reservations,
            horizons,
            planned_up_to: None,
            unreserved: 0,
            outside: Time::MAX,
            changes: 0,
            at: pass.now(),
            exact: true,
        }
    }

    /// Whether the plan still holds at the time of `pass`: nothing unforeseen happened, no
    /// reservation lies in the past, every step without a free unit that jobs were passed
    /// over for is still ahead, and every job left out for the window still fits past it
    /// (the fits are the same, since the profile is).
    fn holds_for(&self, pass: &Pass<'_>, bounds: Option<Bounds>) -> bool {
        let now = pass.now();
        bounds.is_none_or(|b| now.saturating_add(b.window) < self.outside)
            && self.changes == pass.view().changes().wrapping_add(pass.starts() as u64)
            && self.at <= now
            && self
                .reservations
                .peek()
                .is_none_or(|&Reverse((start, _))| start >= now)
            && self
                .horizons
                .last()
                .is_none_or(|&(_, horizon)| horizon >= now)
    }

    /// Records that the planned job `key` is passed over under `horizon`.
    fn pass_over(&mut self, key: Key, horizon: Time) {
        if self.horizons.last().is_none_or(|&(_, h)| h != horizon) {
            self.horizons.push((key, horizon));
        }
    }

    /// Plans the queue from the first unplanned job, behind the others, until no job left
    /// could start now (or, bounded, the depth is spent).
    fn extend(&mut self, pass: &Pass<'_>, bounds: Option<Bounds>) {
        let now = pass.now();
        let queue = pass.view().job_queue();
        let mut next = match self.planned_up_to {
            Some(key) => queue.next_live_after(key),
            None => queue.next_live(0),
        };
        let mut horizon = self.profile.room_until(1);
        let mut stairs: Option<Staircase> = None;
        // Jobs passed over since the last reservation before the horizon.
        let mut passed_over = 0;
        // A queued position at or after which a job could start now, once found.
        let mut could_start: Option<usize> = None;
        // Free units now, which only a reservation from now changes.
        let mut free = u32::try_from(self.profile.free_now()).unwrap_or(0);
        // The last search for a job small and short enough for the room now: the units and
        // room it searched with and what it found (the same from any later position up to it,
        // while they hold, since the queue does not change during a pass).
        let mut small_enough: Option<(u32, Duration, Option<usize>)> = None;
        let (mut budget, window_end) = match bounds {
            Some(b) => (
                b.depth
                    .saturating_sub(self.reservations.len() + self.unreserved),
                now.saturating_add(b.window),
            ),
            None => (usize::MAX, Time::MAX),
        };
        while let Some(mut pos) = next {
            if budget == 0 {
                break;
            }
            // The plan of a queue prefix is the prefix of the whole queue's plan, so planning
            // stops once no job left can start now (none small and short enough for the room
            // the profile has from now on); a later pass goes on from there.
            let room = match horizon {
                Time::MAX => Duration(i64::MAX),
                _ => Duration(horizon.0.saturating_sub(now.0)),
            };
            if free == 0 {
                break;
            }
            let candidate = match small_enough {
                Some((units, within, found))
                    if units == free && within == room && found.is_none_or(|c| c >= pos) =>
                {
                    found
                }
                _ => {
                    let found = queue.next_candidate(pos, free, 0, room);
                    small_enough = Some((free, room, found));
                    found
                }
            };
            if candidate.is_none() {
                break;
            }
            // The same test, exactly: the next job that fits now on the profile planned so
            // far (later reservations only take room), up to which planning goes on.
            if could_start.is_none_or(|c| c < pos) {
                match queue.next_under(pos, &self.profile.room_from_start()) {
                    Some(c) => could_start = Some(c),
                    None => break,
                }
            }
            if bounds.is_none() && horizon < Time::MAX && passed_over >= JUMP_AFTER {
                // Jump to the next job that fits before the horizon; those passed over need
                // no reservation.
                let under = stairs.get_or_insert_with(|| self.profile.staircase(horizon));
                let found = queue.next_under(pos, under);
                if found != Some(pos) {
                    if let Some(job) = queue.get(pos) {
                        self.pass_over(job.order_key(), horizon);
                    }
                    match found {
                        Some(c) => pos = c,
                        None => {
                            self.planned_up_to = pass.view().last_queued_key();
                            return;
                        }
                    }
                }
            }
            budget -= 1;
            let Some(&job) = queue.get(pos) else {
                break;
            };
            let key = job.order_key();
            self.planned_up_to = Some(key);
            next = queue.next_live(pos + 1);
            let Some(start) = self.profile.earliest_fit(job.size(), job.estimate()) else {
                self.unreserved += 1;
                continue;
            };
            if start > window_end {
                // Out of the window: no reservation; the job is tested again once the window
                // reaches its fit.
                self.unreserved += 1;
                self.outside = self.outside.min(start);
                continue;
            }
            if !before(start, job.estimate(), horizon) {
                self.pass_over(key, horizon);
                self.unreserved += 1;
                passed_over += 1;
                continue;
            }
            let fewest = self.profile.reserve(start, job.estimate(), job.size());
            if start == now {
                free = u32::try_from(self.profile.free_now()).unwrap_or(0);
            }
            self.reservations.push(Reverse((start, key)));
            self.exact &= exact_reservation(start, job.estimate());
            if start < horizon {
                // The reservation lies before the horizon, so the first step without a free
                // unit moves only if the reservation emptied one.
                if fewest < 1 {
                    horizon = self.profile.room_until(1);
                }
                stairs = None;
                passed_over = 0;
            }
        }
    }
}

/// Jobs passed over one by one (each by a fit) before planning jumps to the next job that
/// fits before the horizon: what fits there costs a pass over its steps, so it is worked out
/// only where jobs keep missing it.
const JUMP_AFTER: usize = 4;

impl Conservative {
    /// Plans one pass (what [`Policy::observe`](cosched_core::policy::Policy::observe) does), on a pass that may already hold other
    /// starts: for composing policies.
    pub fn plan(&mut self, pass: &mut Pass<'_>) {
        let now = pass.now();
        let mut plan = match self.plan.take() {
            Some(mut plan) if plan.holds_for(pass, self.bounds) => {
                plan.profile.advance(now);
                plan
            }
            old => Plan::fresh(pass, old),
        };
        plan.extend(pass, self.bounds);
        // Start, in queue order, the jobs reserved for now.
        while let Some(&Reverse((start, key))) = plan.reservations.peek() {
            if start != now {
                break;
            }
            plan.reservations.pop();
            let Some(pos) = pass.view().job_queue().position_of(key) else {
                return; // a plan out of step with the cluster: plan afresh next time
            };
            if pass.start(pos).is_err() {
                return; // an end past i64: the pass is refused
            }
        }
        if plan.exact {
            // Each start the executor applies is one change the plan foresaw.
            plan.changes = pass.view().changes().wrapping_add(pass.starts() as u64);
            plan.at = now;
            self.plan = Some(plan);
        }
    }
}

crate::pass_policy!(Conservative);
