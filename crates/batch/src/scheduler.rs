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
use cosched_core::{JobId, Time};
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
/// Queue indices are stable for the whole pass; started entries leave the queue when the pass
/// ends.
pub struct Pass<'a> {
    cluster: &'a mut BatchCluster,
    now: Time,
    taken: &'a mut [bool],
    started: &'a mut Vec<Started>,
}

impl<'a> Pass<'a> {
    pub(crate) fn new(
        cluster: &'a mut BatchCluster,
        now: Time,
        taken: &'a mut [bool],
        started: &'a mut Vec<Started>,
    ) -> Self {
        Pass {
            cluster,
            now,
            taken,
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

    /// Queue entries, started ones included.
    #[inline]
    pub fn queue_len(&self) -> usize {
        self.taken.len()
    }

    /// Queue entry `index` (in (submit, id) order).
    #[inline]
    pub fn job(&self, index: usize) -> &QueuedJob {
        &self.cluster.queue()[index]
    }

    /// Whether entry `index` was started in this pass.
    #[inline]
    pub fn is_started(&self, index: usize) -> bool {
        self.taken[index]
    }

    /// Starts entry `index` now. Fails, changing nothing, if it does not exist, already
    /// started, or needs more units than are idle.
    #[inline]
    pub fn start(&mut self, index: usize) -> Result<(), BatchError> {
        if self.taken.get(index).is_none_or(|&t| t) {
            return Err(BatchError::NotStartable(index));
        }
        let (needed, free) = (self.job(index).size(), self.free_units());
        if needed > free {
            return Err(BatchError::NotEnoughFreeUnits { needed, free });
        }
        self.taken[index] = true;
        let started = self.cluster.start_queued(self.now, index);
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

    /// Starts entries from `from` on, in order, while each fits; returns the index of the
    /// first entry that does not fit (or the queue length).
    fn start_while_fits(&mut self, from: usize) -> usize {
        let mut i = from;
        while i < self.queue_len() && self.start(i).is_ok() {
            i += 1;
        }
        i
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
        pass.start_while_fits(0);
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
        let head = pass.start_while_fits(0);
        if head == pass.queue_len() {
            self.last_reservation = None;
            return;
        }
        let head_job = *pass.job(head);
        let shadow = pass.shadow(head_job.size());
        self.last_reservation = Some(HeadReservation {
            job: head_job.job.id,
            shadow,
        });
        let now = pass.now();
        let mut extra = shadow.extra;
        for i in head + 1..pass.queue_len() {
            let free = pass.free_units();
            if free == 0 {
                break;
            }
            let job = pass.job(i);
            if job.size() > free {
                continue;
            }
            let ends_by_shadow = now.saturating_add(job.estimate()) <= shadow.time;
            if ends_by_shadow || job.size() <= extra {
                if !ends_by_shadow {
                    extra -= job.size();
                }
                pass.start(i).expect("checked: fits and not started");
            }
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
        for i in 0..pass.queue_len() {
            let job = *pass.job(i);
            let Some(start) = profile.earliest_fit(job.size(), job.estimate()) else {
                continue;
            };
            profile.reserve(start, job.estimate(), job.size());
            if start == now {
                pass.start(i).expect("the profile says it fits now");
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
