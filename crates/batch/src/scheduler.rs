//! Scheduling policies: which queued jobs start in a pass.
//!
//! [`Fcfs`], [`Easy`] and [`Conservative`](crate::Conservative) are policies of the batch protocol (see
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
use cosched_core::{Duration, JobId, Time};
use serde::{Deserialize, Serialize};

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
