//! Scheduling policies: which queued jobs start in a pass.
//!
//! [`Fcfs`], [`Easy`] and [`Conservative`] are policies of the batch protocol (see
//! [`crate::pass`]): at each [`SchedulingPass`](crate::SchedulingPass) they read the cluster through a [`Pass`] (the
//! queue in (submit, id) order, the idle units, the units running jobs give back at their
//! predicted ends) and write a [`BatchCommand`](crate::BatchCommand) for each job to start now. They hold no clock
//! and never touch the cluster, so the same policy drives a simulator or a live resource
//! manager. [`crate::scenario`] builds them by name.
//!
//! # EASY backfilling, exactly
//! [`Easy`] follows Lifka's EASY scheduler (IBM SP2, 1995) as Mu'alem and Feitelson (IEEE TPDS
//! 12(6), 2001) define it, with every tie fixed:
//! 1. start the queue head while it fits in the idle units;
//! 2. if the head does not fit, its **shadow time** is the earliest predicted end (start +
//!    estimate) of running jobs, walked in (predicted end, job id) order, at which the idle units
//!    reach its size; **extra** = the units idle at the shadow time (every job predicted to end at
//!    the shadow time counted) minus its size;
//! 3. scan the rest of the queue in order: a job starts iff `size <= idle` and
//!    (`now + estimate <= shadow` or `size <= extra`); when it starts and `now + estimate >
//!    shadow`, `extra -= size`.
//!
//! If the online units can never reach the head's size (nodes offline), the shadow is never and
//! every job that fits may start.

use crate::cluster::Shadow;
use crate::pass::Pass;
use crate::profile::Profile;
use cosched_core::{Duration, JobId, Time};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// First come, first served: start the queue head while it fits, never skip it.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Fcfs;

impl Fcfs {
    /// Plans one pass (what [`Policy::observe`](cosched_core::policy::Policy::observe) does), on a pass that may already hold other
    /// starts: for composing policies.
    pub fn plan(&mut self, pass: &mut Pass<'_>) {
        pass.start_while_fits();
    }
}

crate::pass_policy!(Fcfs);

/// The reservation EASY made for the queue head in its last pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadReservation {
    /// The head of the queue.
    pub job: JobId,
    /// Its shadow time and extra units.
    pub shadow: Shadow,
}

/// EASY backfilling (see the [module docs](self) for the exact rules).
///
/// A pass that follows a pass which started nothing, with only arrivals in between, gives the
/// same head, shadow and extra units, and bounds that are at least as tight for every job the
/// earlier pass turned down: it reuses that shadow and scans only the new arrivals. The
/// schedule is the one a full pass gives. (So an `Easy` value serves one cluster; that
/// shortcut is not serialised, and a restored `Easy` makes a full pass.)
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Easy {
    last_reservation: Option<HeadReservation>,
    /// What the last pass saw, if it started nothing.
    #[serde(skip)]
    idle_pass: Option<IdlePass>,
}

/// A pass of [`Easy`] that started nothing: the cluster's version after it, and the last queue
/// key it scanned.
#[derive(Clone, Copy, Debug)]
struct IdlePass {
    version: u64,
    scanned_up_to: (Time, JobId),
}

/// The cluster's [`crate::BatchCluster::version`] once the starts of `pass` are applied (each start
/// moves it by one).
fn version_after(pass: &Pass<'_>) -> u64 {
    pass.view().version().wrapping_add(pass.starts() as u64)
}

impl Easy {
    /// The head reservation of the last pass, `None` if every queued job started (or the
    /// queue was empty).
    pub fn last_reservation(&self) -> Option<HeadReservation> {
        self.last_reservation
    }

    /// Plans one pass (what [`Policy::observe`](cosched_core::policy::Policy::observe) does), on a pass that may already hold other
    /// starts: for composing policies.
    pub fn plan(&mut self, pass: &mut Pass<'_>) {
        let idle_pass = self.idle_pass.take();
        let Some(head) = pass.start_while_fits() else {
            self.last_reservation = None;
            return;
        };
        let Some(&head_job) = pass.job(head) else {
            self.last_reservation = None;
            return;
        };
        // Nothing but arrivals since a pass that started nothing (no start above either).
        let unchanged = idle_pass.filter(|idle| idle.version == version_after(pass));
        let shadow = match (unchanged, self.last_reservation) {
            (Some(_), Some(last)) if last.job == head_job.job.id => last.shadow,
            _ => pass.shadow(head_job.size()),
        };
        self.last_reservation = Some(HeadReservation {
            job: head_job.job.id,
            shadow,
        });
        let now = pass.now();
        // A job ends by the shadow iff estimate <= shadow - now (saturating for "never").
        let max_estimate = Duration(shadow.time.secs().saturating_sub(now.secs()));
        let mut extra = shadow.extra;
        // The jobs an idle pass turned down stay down: the same idle and extra units, and an
        // estimate bound that only shrinks as time passes.
        let mut from = match unchanged {
            Some(idle) => pass
                .view()
                .job_queue()
                .next_live_after(idle.scanned_up_to)
                .map_or(usize::MAX, |p| p.max(head + 1)),
            None => head + 1,
        };
        let mut started = false;
        while pass.free_units() > 0 {
            let Some(pos) = pass.next_candidate(from, pass.free_units(), extra, max_estimate)
            else {
                break;
            };
            let Some(&job) = pass.job(pos) else {
                return;
            };
            if pass.start(pos).is_err() {
                return; // an end past i64: the pass is refused
            }
            started = true;
            if now.saturating_add(job.estimate()) > shadow.time {
                extra -= job.size();
            }
            from = pos + 1;
        }
        if !started && let Some(scanned_up_to) = pass.view().last_queued_key() {
            self.idle_pass = Some(IdlePass {
                version: version_after(pass),
                scanned_up_to,
            });
        }
    }
}

crate::pass_policy!(Easy);

/// Conservative backfilling: every queued job, in order, is reserved at its earliest fit in
/// the availability profile; those whose fit is now start. No job ever delays an earlier one's
/// reservation.
///
/// The schedule is the one a from-scratch plan in queue order gives at every pass (jobs may
/// move later as well as earlier), but it is kept between passes: while nothing happened that
/// the plan could not foresee (only arrivals behind the queue and completions at their
/// predicted ends — see `BatchCluster`'s change count), the planned reservations stand, new
/// arrivals are planned behind them, and the pass starts the jobs reserved for now. Otherwise
/// (a job ending before its estimate, a cancellation, a requeue, a node operation) the queue
/// is planned again on a fresh profile.
///
/// # Costs
/// With `q` queued jobs and `s` profile steps (at most `2q` plus the running jobs), a fit on
/// the crate's availability profile (`profile.rs`) costs O(log s + L) for `L ≈ √s` when the
/// job goes at the profile's end and O(s) on an adversarial profile; a reservation O(L):
/// - **a pass with nothing unforeseen** costs a fit and a reservation per new arrival and
///   O(log q) per start: 50,000 full-width jobs submitted at once are planned once, not once
///   per completion;
/// - **a pass after an unforeseen change** (typically a job ending before its estimate) plans
///   all `q` jobs again: O(q) fits and reservations, so O(q √q) for full-width jobs, far less
///   than a flat profile's O(q²) for mixed ones, and O(q · s) in the worst case. On the
///   generated 100,000-job Lublin trace at 1,024 units (about 1,700 jobs queued, most jobs
///   ending early) replans are nearly the whole run.
///
/// A pass plans the queue only up to the last job that could start now (none after it is
/// small enough for the idle units and short enough for the room the profile has from now
/// on): the plan of a queue prefix is that prefix of the whole queue's plan, and the rest of
/// the plan cannot start anything now. A burst of full-width jobs that all end early thus
/// plans one job per completion, not the whole queue.
///
/// [`Conservative::bounded`] is the bounded variant production schedulers run (Slurm's
/// backfill `bf_max_job_test` and `bf_window`): for queues whose small jobs keep the exact
/// plan deep, such as 20,000 jobs arriving faster than they run with estimates far above
/// their run times. The tables (`batch_easy_vs_fcfs`, `cosched simulate --policy
/// conservative`) use the exact policy, [`Conservative::default`].
///
/// The plan is a cache: it is not serialised, and a restored `Conservative` plans afresh (the
/// same schedule).
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
    /// later pass; a plan that left a job out for the window is made again at the next pass.
    /// With bounds no queue reaches, the schedule is the exact one.
    pub fn bounded(bounds: Bounds) -> Conservative {
        Conservative {
            bounds: Some(bounds),
            plan: None,
        }
    }
}

/// The schedule a [`Conservative`] pass left behind.
#[derive(Clone, Debug)]
struct Plan {
    /// Free units over time once running jobs end as predicted and reserved jobs run.
    profile: Profile,
    /// Reserved start of every planned queued job that fits, with its queue key, earliest
    /// first (a heap: a plan of `q` jobs makes it in O(q), where an ordered set took
    /// `q` insertions).
    reservations: BinaryHeap<Reverse<(Time, (Time, JobId))>>,
    /// The last queue key planned.
    planned_up_to: Option<(Time, JobId)>,
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
fn exact_reservation(start: Time, estimate: Duration) -> bool {
    estimate > Duration::ZERO && start.saturating_add(estimate) < Time::MAX
}

impl Plan {
    /// Whether the plan still holds at the time of `pass`: nothing unforeseen happened, and
    /// no reservation lies in the past.
    fn holds_for(&self, pass: &Pass<'_>) -> bool {
        self.changes == pass.view().changes().wrapping_add(pass.starts() as u64)
            && self.at <= pass.now()
            && self
                .reservations
                .peek()
                .is_none_or(|&Reverse((start, _))| start >= pass.now())
    }
}

impl Conservative {
    /// Plans one pass (what [`Policy::observe`](cosched_core::policy::Policy::observe) does), on a pass that may already hold other
    /// starts: for composing policies.
    pub fn plan(&mut self, pass: &mut Pass<'_>) {
        let now = pass.now();
        let plan = match self.plan.take() {
            Some(mut plan) if plan.holds_for(pass) => {
                plan.profile.advance(now);
                plan
            }
            _ => Plan {
                profile: Profile::new(now, pass.free_units(), pass.releases()),
                reservations: BinaryHeap::new(),
                planned_up_to: None,
                changes: 0,
                at: now,
                exact: true,
            },
        };
        let mut plan = plan;
        // Plan the jobs queued since, behind the others.
        let mut planned = Vec::new();
        let queue = pass.view().job_queue();
        let mut next = match plan.planned_up_to {
            Some(key) => queue.next_live_after(key),
            None => queue.next_live(0),
        };
        // The plan of a queue prefix is the prefix of the whole queue's plan, so planning
        // stops once no job left can start now (none small and short enough for the room the
        // profile has from now on); a later pass that keeps the plan goes on from there.
        let mut horizon = plan.profile.room_until(1);
        let (mut budget, window_end) = match self.bounds {
            Some(b) => (
                b.depth.saturating_sub(plan.reservations.len()),
                now.saturating_add(b.window),
            ),
            None => (usize::MAX, Time::MAX),
        };
        while let Some(pos) = next {
            if budget == 0 {
                break;
            }
            budget -= 1;
            let free = u32::try_from(plan.profile.free_now()).unwrap_or(0);
            // Room without end when no step ever falls below one unit.
            let room = match horizon {
                Time::MAX => Duration(i64::MAX),
                _ => Duration(horizon.secs().saturating_sub(now.secs())),
            };
            if free == 0 || queue.next_candidate(pos, free, 0, room).is_none() {
                break;
            }
            let Some(&job) = queue.get(pos) else {
                break;
            };
            plan.planned_up_to = Some(job.order_key());
            let fit = plan.profile.earliest_fit(job.size(), job.estimate());
            if fit.is_some_and(|start| start > window_end) {
                // Out of the window: no reservation, and this plan is not kept, so that the
                // job is tested again.
                plan.exact = false;
            } else if let Some(start) = fit {
                plan.profile.reserve(start, job.estimate(), job.size());
                planned.push(Reverse((start, job.order_key())));
                plan.exact &= exact_reservation(start, job.estimate());
                if start < horizon {
                    horizon = plan.profile.room_until(1);
                }
            }
            next = queue.next_live(pos + 1);
        }
        if plan.reservations.is_empty() {
            // A plan of the whole queue: heaped at once, in O(q).
            plan.reservations = BinaryHeap::from(planned);
        } else {
            plan.reservations.extend(planned);
        }
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
