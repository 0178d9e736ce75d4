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
use crate::queue::JobQueue;
use cosched_core::{Duration, JobId, Time};
use std::collections::{BTreeMap, BTreeSet};
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
/// move later as well as earlier), but the plan is kept between passes:
/// - while nothing happened that the plan could not foresee (only arrivals behind the queue and
///   completions at their predicted ends — see `BatchCluster`'s change count), the planned
///   reservations stand, new arrivals are planned behind them, and the pass starts the jobs
///   reserved for now;
/// - otherwise (a job ending before its estimate, a cancellation, a requeue, a node operation)
///   the queue is planned again **incrementally**: each job's fit is searched for only from
///   the earliest start the change can have made feasible (see [below](#incremental-replanning)),
///   and the reservations that stay are not touched in the start-ordered index.
///
/// # Incremental replanning
/// Write `B` for the base profile (free units once running jobs end as predicted), `r_j` for
/// job `j`'s reservation, `P_i = B − Σ_{j<i} r_j` for the partial profile job `i` is fitted in,
/// and `F = B − Σ_j r_j` for the full one. The old plan was exact: every old `s_i` is the
/// earliest fit of job `i` in its old partial profile `P_i`, from a time no later than now.
/// Walking the new queue in order, with `P'_i` the new partial profile, the difference
/// `D = P'_i − P_i` equals `F_w − F` where `F_w` is the working full profile: the new base,
/// minus the new reservations of the jobs walked so far, minus the old ones of the jobs not yet
/// walked. So `D` starts as `B' − B` (from the running jobs' predicted ends the old plan
/// foresaw and the ones the cluster reports now) and changes only where the walk changes
/// something: `+size` on the old window and `−size` on the new one of a job that moves, `+size`
/// on the window of an old job that left the queue, `−size` on the window of a new one.
///
/// For a job with old start `s` and estimate `d ≥ 1` (same size and estimate as when planned):
/// a window `[t, t + d)` with `t < s` that fits in `P'_i = P_i + D` but did not fit in `P_i`
/// must hold a point `x` with `D(x) > 0`, and every point of a fitting window has room. So if
/// `x*` is the first point with `D > 0` and at least `size` free units in `P'_i`, no window
/// starting before `max(now, min(s, x* − d + 1))` fits, and the job's fit is the earliest
/// fit from there (the search finds `s` at once when `D ≥ 0` on the old window and nothing
/// earlier has room). Jobs new to the plan, or whose old start lies in the past, are fitted
/// from now. The working partial profile `P'_i` itself is built as a fresh plan builds it
/// (new base, then every reservation in queue order), so its steps, and every fit, are the
/// from-scratch plan's. A reservation that does not cover exactly its job's run (a zero
/// estimate, or an end at the last second) makes the walk plan from scratch instead.
///
/// # Costs
/// A fresh plan of `q` jobs costs `q` fits and reservations on [`crate::profile`] (O(q √q)
/// for full-width jobs, far less than a flat profile's O(q²) for mixed ones; worst case still
/// O(s) per fit for `s` steps). A kept pass costs the new arrivals' fits. An incremental
/// replan costs, per job, the reservation in the new working profile (two step splits and
/// O(√s) chunk work), one O(log q) lookup of its old start, the search for `x*` (one
/// `first_with_room` per positive run of `D` before the job's old end, usually one) and a fit
/// from the bound, plus two index updates and a recomputation of `D`'s positive runs for each
/// job that moves. Best case (nothing reaches the change): every fit is found at once at the
/// old start, a scan of one chunk. Worst case (every job moves, as in a cascade): the fits of
/// a fresh plan plus the updates of `D`, O(q · |D|). The measured costs are in the crate's
/// bench (`benches/conservative.rs`, group `conservative_replans`).
#[derive(Clone, Debug, Default)]
pub struct Conservative {
    plan: Option<Plan>,
}

/// A planned job's reservation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Reserved {
    start: Time,
    estimate: Duration,
    size: u32,
}

impl Reserved {
    /// The end of the reserved window (exact reservations only: it is below `Time::MAX`).
    fn end(&self) -> Time {
        self.start.saturating_add(self.estimate)
    }
}

/// The schedule a [`Conservative`] pass left behind.
#[derive(Clone, Debug)]
struct Plan {
    /// Free units over time once running jobs end as predicted and reserved jobs run.
    profile: Profile,
    /// Reserved start of every planned queued job that fits, with its queue key.
    by_start: BTreeSet<(Time, (Time, JobId))>,
    /// The same reservations by queue key.
    by_key: BTreeMap<(Time, JobId), Reserved>,
    /// The last queue key planned.
    planned_up_to: Option<(Time, JobId)>,
    /// The cluster's change count when the plan was made.
    changes: u64,
    /// When it was made.
    at: Time,
    /// Whether every reservation covers exactly its job's run, so that the plan is what a
    /// fresh one would be later (see [`exact_reservation`]).
    exact: bool,
    /// Units running jobs give back at their predicted ends, as the plan foresees them (the
    /// base profile it was made on, with the jobs it started since).
    foreseen: BTreeMap<Time, i64>,
    /// Online units (idle or running) when the plan was made.
    online: i64,
}

/// Whether a reservation at `start` for `estimate` covers exactly the span its job holds
/// units: not for a zero estimate (its reservation takes its whole step, but it frees its
/// units at once) nor for an end at the last representable second (no step can end there).
fn exact_reservation(start: Time, estimate: Duration) -> bool {
    estimate > Duration::ZERO && start.saturating_add(estimate) < Time::MAX
}

/// Units given back at each predicted end, and the online units (idle plus running).
fn foreseen_releases(
    free: u32,
    releases: impl Iterator<Item = (Time, u32)>,
) -> (BTreeMap<Time, i64>, i64) {
    let mut foreseen = BTreeMap::new();
    let mut online = i64::from(free);
    for (t, units) in releases {
        *foreseen.entry(t).or_insert(0) += i64::from(units);
        online += i64::from(units);
    }
    (foreseen, online)
}

/// Rounds of the search for a bound (see [`Diff::search_from`]) before the walk settles for
/// the bound found so far: each costs two chunk scans and descents, and the fit's own walk,
/// with its run summaries, is faster through long stretches of short runs with room.
const SEARCH_ROUNDS: usize = 3;

/// The difference `D` between the new working profile and the old plan's (see
/// [`Conservative`]'s docs): a step map kept as the changes at its breakpoints, with its
/// positive runs cached.
#[derive(Clone, Debug, Default)]
struct Diff {
    /// `D(t)` is the sum of the changes at or before `t`.
    changes: BTreeMap<Time, i64>,
    /// The maximal runs `[a, b)` on which `D > 0`, in time order (`b` is `Time::MAX` for a
    /// run that never ends); `None` after a change.
    positive: Option<Vec<(Time, Time)>>,
}

impl Diff {
    /// `B' − B` from `now` on: the new base profile (`online`, `releases`) less the one the
    /// old plan foresaw (`old_online`, `old_releases`). A base profile at `t ≥ now` is the
    /// online units less those of running jobs predicted to end after `t`.
    fn between(
        now: Time,
        online: i64,
        releases: &BTreeMap<Time, i64>,
        old_online: i64,
        old_releases: &BTreeMap<Time, i64>,
    ) -> Diff {
        let later = |r: &BTreeMap<Time, i64>| -> i64 {
            r.range((std::ops::Bound::Excluded(now), std::ops::Bound::Unbounded))
                .map(|(_, &u)| u)
                .sum()
        };
        let mut diff = Diff::default();
        diff.bump(
            now,
            online - old_online - later(releases) + later(old_releases),
        );
        let after = (std::ops::Bound::Excluded(now), std::ops::Bound::Unbounded);
        for (&t, &u) in releases.range(after) {
            diff.bump(t, u);
        }
        for (&t, &u) in old_releases.range(after) {
            diff.bump(t, -u);
        }
        diff
    }

    fn bump(&mut self, t: Time, by: i64) {
        if by == 0 {
            return;
        }
        let entry = self.changes.entry(t).or_insert(0);
        *entry += by;
        if *entry == 0 {
            self.changes.remove(&t);
        }
        self.positive = None;
    }

    /// Adds `by` over `[from, to)`.
    fn add(&mut self, from: Time, to: Time, by: i64) {
        self.bump(from, by);
        self.bump(to, -by);
    }

    /// The positive runs, recomputed after a change: O(breakpoints).
    fn positive_runs(&mut self) -> &[(Time, Time)] {
        self.positive.get_or_insert_with(|| {
            let mut runs = Vec::new();
            let mut value = 0;
            let mut open = None;
            for (&t, &change) in &self.changes {
                value += change;
                match open {
                    None if value > 0 => open = Some(t),
                    Some(a) if value <= 0 => {
                        runs.push((a, t));
                        open = None;
                    }
                    _ => {}
                }
            }
            if let Some(a) = open {
                runs.push((a, Time::MAX));
            }
            runs
        })
    }

    /// The earliest start from which job `i`'s fit in `profile` (its new partial profile) is
    /// searched, given its old start `start`, `size` and `estimate` (≥ 1 s): no window that
    /// starts before it fits (see [`Conservative`]'s docs).
    fn search_from(
        &mut self,
        profile: &Profile,
        now: Time,
        start: Time,
        size: u32,
        estimate: Duration,
    ) -> Time {
        // A window starting before `start` that fits holds a point x < start + estimate − 1
        // with D(x) > 0 and room, and lies inside the run of steps with room around x.
        let limit = Time(start.saturating_add(estimate).0.saturating_sub(1));
        let back = estimate.0.saturating_sub(1);
        let runs = self.positive_runs();
        let mut i = runs.partition_point(|&(_, b)| b <= now);
        // No window that fits and meets D > 0 starts before `from`.
        let mut from = now;
        for _ in 0..SEARCH_ROUNDS {
            // No point with D > 0 and room before `limit`: only windows from `start` on fit.
            let Some(&(a, _)) = runs.get(i) else {
                return start.max(now);
            };
            // The first point from `max(a, from)` with room, and whether D > 0 there.
            let Some(x) = profile
                .first_with_room(a.max(from), size)
                .filter(|&x| x < limit)
            else {
                return start.max(now);
            };
            i = runs.partition_point(|&(_, b)| b <= x);
            if !runs.get(i).is_some_and(|&(a, _)| a <= x) {
                from = from.max(Time(x.0.saturating_sub(back)));
                continue;
            }
            // x is the first point from `from` with D > 0 and room: a fitting window that
            // meets D > 0 starts no earlier than x − estimate + 1 and lies inside the run of
            // steps with room around x, so it must fit between the two.
            let earliest = Time(x.0.saturating_sub(back)).max(from);
            match profile.first_without_room(x, size) {
                // A point without room: no fitting window holds it.
                Some(end) if end.0.saturating_sub(earliest.0) < estimate.0 => from = end,
                _ => return earliest.min(start),
            }
        }
        // Rounds used up: the bound found so far.
        from.min(start).max(now)
    }
}

impl Plan {
    /// An empty plan on the base profile of `pass`.
    fn empty(pass: &Pass<'_>) -> Plan {
        let (foreseen, online) = foreseen_releases(pass.free_units(), pass.releases());
        Plan {
            profile: Profile::new(pass.now(), pass.free_units(), pass.releases()),
            by_start: BTreeSet::new(),
            by_key: BTreeMap::new(),
            planned_up_to: None,
            changes: 0,
            at: pass.now(),
            exact: true,
            foreseen,
            online,
        }
    }

    /// Whether the plan still holds at the time of `pass`: nothing unforeseen happened, and
    /// no reservation lies in the past.
    fn holds_for(&self, pass: &Pass<'_>) -> bool {
        self.changes == pass.cluster.changes()
            && self.at <= pass.now()
            && self
                .by_start
                .first()
                .is_none_or(|&(start, _)| start >= pass.now())
    }

    /// Plans the jobs queued behind the last one planned, each at its earliest fit.
    fn plan_arrivals(&mut self, queue: &JobQueue) {
        let mut next = match self.planned_up_to {
            Some(key) => queue.next_live_after(key),
            None => queue.next_live(0),
        };
        while let Some(pos) = next {
            let Some(&job) = queue.get(pos) else {
                break;
            };
            let key = job.order_key();
            self.planned_up_to = Some(key);
            if let Some(start) = self.profile.earliest_fit(job.size(), job.estimate()) {
                self.reserve(key, start, job.estimate(), job.size());
            }
            next = queue.next_live(pos + 1);
        }
    }

    fn reserve(&mut self, key: (Time, JobId), start: Time, estimate: Duration, size: u32) {
        self.profile.reserve(start, estimate, size);
        self.by_start.insert((start, key));
        self.by_key.insert(
            key,
            Reserved {
                start,
                estimate,
                size,
            },
        );
        self.exact &= exact_reservation(start, estimate);
    }

    /// The plan of `pass`'s queue, made incrementally from this exact plan, which no longer
    /// holds (see [`Conservative`]'s docs); `None` where a fresh plan is needed (a reservation
    /// that is not exact).
    fn replanned(self, pass: &Pass<'_>) -> Option<Plan> {
        let now = pass.now();
        let mut plan = Plan::empty(pass);
        let mut diff = Diff::between(
            now,
            plan.online,
            &plan.foreseen,
            self.online,
            &self.foreseen,
        );
        plan.by_start = self.by_start;
        let mut by_key = Vec::with_capacity(self.by_key.len());
        let mut old = self.by_key.into_iter().peekable();
        let queue = pass.cluster.job_queue();
        let mut next = queue.next_live(0);
        while let Some(pos) = next {
            let job = *queue.get(pos)?;
            let key = job.order_key();
            let (size, estimate) = (job.size(), job.estimate());
            // Old jobs that left the queue give their windows back.
            while let Some((gone, r)) = old.next_if(|&(k, _)| k < key) {
                plan.by_start.remove(&(r.start, gone));
                diff.add(r.start, r.end(), i64::from(r.size));
            }
            let mut was = old.next_if(|&(k, _)| k == key).map(|(_, r)| r);
            if let Some(r) = was.filter(|r| r.size != size || r.estimate != estimate) {
                // Requeued with another size or estimate: a new job.
                plan.by_start.remove(&(r.start, key));
                diff.add(r.start, r.end(), i64::from(r.size));
                was = None;
            }
            let from = match was {
                Some(r) if r.start >= now => {
                    diff.search_from(&plan.profile, now, r.start, size, estimate)
                }
                _ => now,
            };
            let fit = plan.profile.earliest_fit_from(size, estimate, from);
            if let Some(r) = was
                && fit != Some(r.start)
            {
                plan.by_start.remove(&(r.start, key));
                diff.add(r.start, r.end(), i64::from(size));
            }
            if let Some(start) = fit {
                if !exact_reservation(start, estimate) {
                    return None;
                }
                plan.profile.reserve(start, estimate, size);
                let reserved = Reserved {
                    start,
                    estimate,
                    size,
                };
                if was != Some(reserved) {
                    plan.by_start.insert((start, key));
                    diff.add(start, reserved.end(), -i64::from(size));
                }
                by_key.push((key, reserved));
            }
            plan.planned_up_to = Some(key);
            next = queue.next_live(pos + 1);
        }
        for (gone, r) in old {
            plan.by_start.remove(&(r.start, gone));
        }
        plan.by_key = by_key.into_iter().collect();
        Some(plan)
    }
}

impl BatchScheduler for Conservative {
    fn name(&self) -> &'static str {
        "conservative"
    }

    fn schedule(&mut self, pass: &mut Pass<'_>) {
        let now = pass.now();
        let mut plan = match self.plan.take() {
            Some(mut plan) if plan.holds_for(pass) => {
                plan.profile.advance(now);
                while plan.foreseen.first_key_value().is_some_and(|(&t, _)| t <= now) {
                    plan.foreseen.pop_first();
                }
                plan
            }
            Some(plan) if plan.at <= now => plan.replanned(pass).unwrap_or_else(|| Plan::empty(pass)),
            _ => Plan::empty(pass),
        };
        // Plan the jobs queued since, behind the others.
        plan.plan_arrivals(pass.cluster.job_queue());
        // Start, in queue order, the jobs reserved for now.
        while let Some(&(start, key)) = plan.by_start.first() {
            if start != now {
                break;
            }
            plan.by_start.pop_first();
            let reserved = plan.by_key.remove(&key);
            let Some(pos) = pass.cluster.job_queue().position_of(key) else {
                return; // a plan out of step with the cluster: plan afresh next time
            };
            if pass.start(pos).is_err() {
                return; // an end past i64: the pass is refused
            }
            if let Some(r) = reserved {
                *plan.foreseen.entry(r.end()).or_insert(0) += i64::from(r.size);
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
