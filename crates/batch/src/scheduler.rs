//! Scheduling policies: which queued jobs start in a pass.
//!
//! A [`BatchScheduler`] sees the cluster only through a [`Pass`]: the queue in (submit, id)
//! order, the idle units, the units running jobs give back at their predicted ends, and a
//! [`Pass::start`] that starts a queue entry now. It holds no clock and no cluster state of its
//! own, so the same policy drives a simulator or a live resource manager.
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

use crate::BatchError;
use crate::cluster::{BatchCluster, QueuedJob, Shadow, Started, shadow_from};
use crate::profile::Profile;
use cosched_core::{Duration, JobId, Time};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::str::FromStr;

/// A batch scheduling policy.
pub trait BatchScheduler {
    /// A short name for reports (`fcfs`, `easy`, …).
    fn name(&self) -> &'static str;

    /// Starts the queued jobs that should start now, through [`Pass::start`].
    fn schedule(&mut self, pass: &mut Pass<'_>);
}

/// One scheduling pass over a [`BatchCluster`]: what a [`BatchScheduler`] may see and do.
///
/// Queued jobs are addressed by **position**: positions follow queue order and stay valid for
/// the whole pass, but are not contiguous (started or removed jobs leave gaps). Walk them with
/// [`Pass::next_queued`], or jump to backfilling candidates with [`Pass::next_candidate`].
pub struct Pass<'a> {
    cluster: &'a mut BatchCluster,
    now: Time,
    started: &'a mut Vec<Started>,
    /// The first start refused because its end would overflow: the pass starts nothing more.
    refused: Option<BatchError>,
}

impl<'a> Pass<'a> {
    pub(crate) fn new(
        cluster: &'a mut BatchCluster,
        now: Time,
        started: &'a mut Vec<Started>,
    ) -> Self {
        Pass {
            cluster,
            now,
            started,
            refused: None,
        }
    }

    /// What the pass ends with: the refused start, if any.
    pub(crate) fn into_outcome(self) -> Result<(), BatchError> {
        self.refused.map_or(Ok(()), Err)
    }

    /// The time of the pass.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Idle online units.
    #[inline]
    pub fn free_units(&self) -> u32 {
        self.cluster.free_units()
    }

    /// The first queued position at or after `from` (0 for the queue head).
    #[inline]
    pub fn next_queued(&self, from: usize) -> Option<usize> {
        self.cluster.job_queue().next_live(from)
    }

    /// The first queued position at or after `from` whose job needs at most `units` and
    /// either at most `small_units` or an estimate of at most `max_estimate`: EASY's
    /// backfilling test, answered in O(log n) per candidate instead of a scan.
    #[inline]
    pub fn next_candidate(
        &self,
        from: usize,
        units: u32,
        small_units: u32,
        max_estimate: Duration,
    ) -> Option<usize> {
        self.cluster
            .job_queue()
            .next_candidate(from, units, small_units, max_estimate)
    }

    /// The first queued position at or after `from` whose job is resizable (malleable),
    /// requests at most `max_size` units and accepts at most `max_min_size` (its smallest
    /// size): a scan for malleable jobs that jumps over the rigid ones in O(log n) per
    /// candidate.
    #[inline]
    pub fn next_resizable(&self, from: usize, max_size: u32, max_min_size: u32) -> Option<usize> {
        self.cluster
            .job_queue()
            .next_resizable(from, max_size, max_min_size)
    }

    /// The position of the job `rank` places behind the queue head (the head for 0), `None`
    /// if fewer are queued: O(rank / 8), without visiting the jobs before it.
    #[inline]
    pub fn nth_queued(&self, rank: usize) -> Option<usize> {
        self.cluster.job_queue().nth_live(rank)
    }

    /// The queue position of the waiting job `job`, `None` if it is not waiting: O(1)
    /// expected plus a binary search (the first lookup by id builds an index of the queue),
    /// instead of a walk along the queue.
    #[inline]
    pub fn position_of(&self, job: JobId) -> Option<usize> {
        self.cluster.job_queue().position_of_id(job)
    }

    /// The job queued at `pos`, `None` if there is none (never was, or already started).
    #[inline]
    pub fn job(&self, pos: usize) -> Option<&QueuedJob> {
        self.cluster.job_queue().get(pos)
    }

    /// Starts the job at `pos` now. Fails, changing nothing, if no job is queued there, it
    /// needs more units than are idle, or its end would pass the last representable second
    /// ([`BatchError::EndOverflow`]: the pass then refuses every further start, and
    /// [`BatchCluster::try_schedule`] returns that error).
    #[inline]
    pub fn start(&mut self, pos: usize) -> Result<(), BatchError> {
        if let Some(refused) = &self.refused {
            return Err(refused.clone());
        }
        let needed = self.job(pos).ok_or(BatchError::NotStartable(pos))?.size();
        let free = self.free_units();
        if needed > free {
            return Err(BatchError::NotEnoughFreeUnits { needed, free });
        }
        match self.cluster.start_queued(self.now, pos) {
            Ok(started) => {
                self.started.push(started);
                Ok(())
            }
            Err(e) => {
                self.refused = Some(e.clone());
                Err(e)
            }
        }
    }

    /// Starts the malleable job at `pos` now on `size` units, within its size range: its
    /// unit-seconds of run time and estimate at the requested size are spread over `size`, as
    /// [`BatchCluster::resize`] spreads them. Fails, changing nothing, if no job is queued
    /// there, it is not resizable, `size` is outside its range, more than are idle, or its
    /// end would pass the last representable second (as [`Pass::start`]).
    pub fn start_resized(&mut self, pos: usize, size: u32) -> Result<(), BatchError> {
        if let Some(refused) = &self.refused {
            return Err(refused.clone());
        }
        let job = self.job(pos).ok_or(BatchError::NotStartable(pos))?.job;
        let range = job.resizable.ok_or(BatchError::NotResizable(job.id))?;
        if !(range.min..=range.max).contains(&size) {
            return Err(BatchError::SizeOutOfRange {
                job: job.id,
                size,
                min: range.min,
                max: range.max,
            });
        }
        let free = self.free_units();
        if size > free {
            return Err(BatchError::NotEnoughFreeUnits { needed: size, free });
        }
        match self.cluster.start_queued_on(self.now, pos, size) {
            Ok(started) => {
                self.started.push(started);
                Ok(())
            }
            Err(e) => {
                self.refused = Some(e.clone());
                Err(e)
            }
        }
    }

    /// Units running jobs (including those started in this pass) give back at their predicted
    /// ends, in (predicted end, id) order.
    pub fn releases(&self) -> impl Iterator<Item = (Time, u32)> + '_ {
        self.cluster.releases()
    }

    /// The EASY shadow of a job of `size` units now; see [`BatchCluster::shadow`].
    pub fn shadow(&self, size: u32) -> Shadow {
        shadow_from(self.now, self.free_units(), self.releases(), size)
    }

    /// Starts queued jobs in order while each fits; returns the position of the first that
    /// does not (the blocked head), if any.
    fn start_while_fits(&mut self) -> Option<usize> {
        let mut pos = 0;
        while let Some(head) = self.next_queued(pos) {
            if self.start(head).is_err() {
                return Some(head);
            }
            pos = head + 1;
        }
        None
    }
}

/// First come, first served: start the queue head while it fits, never skip it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fcfs;

impl BatchScheduler for Fcfs {
    fn name(&self) -> &'static str {
        "fcfs"
    }

    fn schedule(&mut self, pass: &mut Pass<'_>) {
        pass.start_while_fits();
    }
}

/// The reservation EASY made for the queue head in its last pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
/// schedule is the one a full pass gives. (So an `Easy` value serves one cluster.)
#[derive(Clone, Copy, Debug, Default)]
pub struct Easy {
    last_reservation: Option<HeadReservation>,
    /// What the last pass saw, if it started nothing.
    idle_pass: Option<IdlePass>,
}

/// A pass of [`Easy`] that started nothing: the cluster's version after it, and the last queue
/// key it scanned.
#[derive(Clone, Copy, Debug)]
struct IdlePass {
    version: u64,
    scanned_up_to: (Time, JobId),
}

impl Easy {
    /// The head reservation of the last pass, `None` if every queued job started (or the
    /// queue was empty).
    pub fn last_reservation(&self) -> Option<HeadReservation> {
        self.last_reservation
    }
}

impl BatchScheduler for Easy {
    fn name(&self) -> &'static str {
        "easy"
    }

    fn schedule(&mut self, pass: &mut Pass<'_>) {
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
        let unchanged = idle_pass.filter(|idle| idle.version == pass.cluster.version());
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
                .cluster
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
        if !started && let Some(scanned_up_to) = pass.cluster.last_queued_key() {
            self.idle_pass = Some(IdlePass {
                version: pass.cluster.version(),
                scanned_up_to,
            });
        }
    }
}

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
///   ending early) replans are nearly the whole run: 38 s of CPU (61 s before the profile's
///   cheaper cuts and the reservations' heap).
///
/// Replanning is not incremental, on measurement. An exact incremental replan (keep each old
/// reservation `s`; track the difference `D` between the new partial profile and the old;
/// search a job's fit only from the first point where `D > 0` and the job has room, minus its
/// estimate, since only windows meeting positive `D` can have become feasible) was built and
/// checked against the from-scratch reference (commits 729cc77 to b086fab on the branch
/// `wt/conservative-incr`), and was 1.2–1.5× *slower*: the window a job frees by ending early
/// lies at the front of the profile and reaches out to its estimate, so it holds room for most
/// small jobs (about half of the jobs walked had to be searched from now), about 10 % of jobs
/// moved per replan, and the new partial profile still had to be built reservation by
/// reservation, which is half of a fresh plan's cost. The bound search itself cost about as
/// much as the fit it saved.
#[derive(Clone, Debug, Default)]
pub struct Conservative {
    plan: Option<Plan>,
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
        self.changes == pass.cluster.changes()
            && self.at <= pass.now()
            && self
                .reservations
                .peek()
                .is_none_or(|&Reverse((start, _))| start >= pass.now())
    }
}

impl BatchScheduler for Conservative {
    fn name(&self) -> &'static str {
        "conservative"
    }

    fn schedule(&mut self, pass: &mut Pass<'_>) {
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
        let queue = pass.cluster.job_queue();
        let mut next = match plan.planned_up_to {
            Some(key) => queue.next_live_after(key),
            None => queue.next_live(0),
        };
        while let Some(pos) = next {
            let Some(&job) = queue.get(pos) else {
                break;
            };
            plan.planned_up_to = Some(job.order_key());
            if let Some(start) = plan.profile.earliest_fit(job.size(), job.estimate()) {
                plan.profile.reserve(start, job.estimate(), job.size());
                planned.push(Reverse((start, job.order_key())));
                plan.exact &= exact_reservation(start, job.estimate());
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
            let Some(pos) = pass.cluster.job_queue().position_of(key) else {
                return; // a plan out of step with the cluster: plan afresh next time
            };
            if pass.start(pos).is_err() {
                return; // an end past i64: the pass is refused
            }
        }
        if plan.exact {
            plan.changes = pass.cluster.changes();
            plan.at = now;
            self.plan = Some(plan);
        }
    }
}

/// The built-in policies, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// [`Fcfs`].
    Fcfs,
    /// [`Easy`].
    Easy,
    /// [`Conservative`].
    Conservative,
}

impl Policy {
    /// Every built-in policy.
    pub const ALL: [Policy; 3] = [Policy::Fcfs, Policy::Easy, Policy::Conservative];

    /// A fresh scheduler of this policy.
    pub fn scheduler(self) -> Box<dyn BatchScheduler + Send> {
        match self {
            Policy::Fcfs => Box::new(Fcfs),
            Policy::Easy => Box::new(Easy::default()),
            Policy::Conservative => Box::new(Conservative::default()),
        }
    }

    /// The policy's name.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Fcfs => "fcfs",
            Policy::Easy => "easy",
            Policy::Conservative => "conservative",
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown policy name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown policy `{0}` (expected fcfs, easy or conservative)")]
pub struct UnknownPolicy(pub String);

impl FromStr for Policy {
    type Err = UnknownPolicy;

    fn from_str(s: &str) -> Result<Policy, UnknownPolicy> {
        Policy::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownPolicy(s.to_string()))
    }
}

impl<S: BatchScheduler + ?Sized> BatchScheduler for Box<S> {
    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn schedule(&mut self, pass: &mut Pass<'_>) {
        (**self).schedule(pass)
    }
}
