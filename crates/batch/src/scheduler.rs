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
        }
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

    /// The job queued at `pos`, `None` if there is none (never was, or already started).
    #[inline]
    pub fn job(&self, pos: usize) -> Option<&QueuedJob> {
        self.cluster.job_queue().get(pos)
    }

    /// Starts the job at `pos` now. Fails, changing nothing, if no job is queued there or it
    /// needs more units than are idle.
    #[inline]
    pub fn start(&mut self, pos: usize) -> Result<(), BatchError> {
        let needed = self.job(pos).ok_or(BatchError::NotStartable(pos))?.size();
        let free = self.free_units();
        if needed > free {
            return Err(BatchError::NotEnoughFreeUnits { needed, free });
        }
        let started = self.cluster.start_queued(self.now, pos);
        self.started.push(started);
        Ok(())
    }

    /// Starts the malleable job at `pos` now on `size` units, within its size range: its
    /// unit-seconds of run time and estimate at the requested size are spread over `size`, as
    /// [`BatchCluster::resize`] spreads them. Fails, changing nothing, if no job is queued
    /// there, it is not resizable, `size` is outside its range, or more than are idle.
    pub fn start_resized(&mut self, pos: usize, size: u32) -> Result<(), BatchError> {
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
        let started = self.cluster.start_queued_on(self.now, pos, size);
        self.started.push(started);
        Ok(())
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
#[derive(Clone, Copy, Debug, Default)]
pub struct Easy {
    last_reservation: Option<HeadReservation>,
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
        let Some(head) = pass.start_while_fits() else {
            self.last_reservation = None;
            return;
        };
        let head_job = *pass.job(head).expect("the blocked head is queued");
        let shadow = pass.shadow(head_job.size());
        self.last_reservation = Some(HeadReservation {
            job: head_job.job.id,
            shadow,
        });
        let now = pass.now();
        // A job ends by the shadow iff estimate <= shadow - now (saturating for "never").
        let max_estimate = Duration(shadow.time.secs().saturating_sub(now.secs()));
        let mut extra = shadow.extra;
        let mut from = head + 1;
        while pass.free_units() > 0 {
            let Some(pos) = pass.next_candidate(from, pass.free_units(), extra, max_estimate)
            else {
                break;
            };
            let job = pass.job(pos).expect("candidates are queued");
            if now.saturating_add(job.estimate()) > shadow.time {
                extra -= job.size();
            }
            pass.start(pos).expect("candidates fit");
            from = pos + 1;
        }
    }
}

/// Conservative backfilling: every queued job, in order, is reserved at its earliest fit in
/// the availability profile; those whose fit is now start. No job ever delays an earlier one's
/// reservation. Costs O(queue × profile) per pass.
#[derive(Clone, Copy, Debug, Default)]
pub struct Conservative;

impl BatchScheduler for Conservative {
    fn name(&self) -> &'static str {
        "conservative"
    }

    fn schedule(&mut self, pass: &mut Pass<'_>) {
        let now = pass.now();
        let mut profile = Profile::new(now, pass.free_units(), pass.releases());
        let mut from = 0;
        while let Some(pos) = pass.next_queued(from) {
            from = pos + 1;
            let job = *pass.job(pos).expect("queued");
            let Some(start) = profile.earliest_fit(job.size(), job.estimate()) else {
                continue;
            };
            profile.reserve(start, job.estimate(), job.size());
            if start == now {
                pass.start(pos).expect("the profile says it fits now");
            }
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
            Policy::Conservative => Box::new(Conservative),
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
