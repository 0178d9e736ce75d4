//! The batch protocol: what a batch policy is told, what it may see, and what it asks for.
//!
//! A batch policy is a [`cosched_core::policy::Policy`] whose observation is a
//! [`SchedulingPass`] (the executor asks which queued jobs start at `now`), whose view is the
//! [`BatchCluster`] lent read-only for the call, and whose commands are [`BatchCommand`]s that
//! start queued jobs. The executor ([`BatchCluster::schedule`], hence [`crate::BatchSim`]
//! and the paper crates' simulators) applies the commands in order once the call returns: the
//! policy never mutates the cluster. Any type implementing that protocol is a
//! [`BatchPolicy`], so a policy written in another crate runs wherever the built-in ones do.
//!
//! [`Pass`] is the policy-side helper the built-in policies plan with: a read-only view of the
//! cluster as it will be once the commands issued so far are applied (the jobs started in this
//! pass gone from the queue, their units taken, their predicted ends among the releases),
//! writing a [`BatchCommand`] for every start it accepts.

use crate::BatchError;
use crate::cluster::{BatchCluster, QueuedJob, Shadow};
use cosched_core::policy::Policy;
use cosched_core::{Duration, JobId, Time};
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

/// The observation of the batch protocol: a scheduling pass at the call's `now`. Executors
/// ask for one after the events of an instant (completions, then arrivals) are applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchedulingPass;

/// What a batch policy asks its executor to do; applied in order after the call. A queued
/// job is named by its id and submit time, its place in the queue's (submit, id) order, so
/// that the executor finds it by a binary search. A command may also carry `at`, the queue
/// position the policy saw the job at (what [`Pass`] writes): a hint the executor checks in
/// O(1) (the job queued there must have that id and submit time) and otherwise ignores, so a
/// wrong or missing hint costs only the search. Positions belong to one cluster value, so the
/// hint is neither serialised nor compared: two commands are equal when they start the same
/// job on the same units.
#[derive(Clone, Copy, Debug, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchCommand {
    /// Start the queued job now on the units it requests.
    Start {
        /// The job.
        job: JobId,
        /// Its submit time.
        submit: Time,
        /// Its queue position as the policy saw it, if known (a hint, checked).
        #[serde(skip)]
        at: Option<usize>,
    },
    /// Start the queued malleable job now on `size` units, within its size range: its
    /// setup ([`SizeRange::setup`](crate::SizeRange)) as is, then the unit-seconds of the
    /// rest of its run time and estimate at the requested size spread over `size` (as
    /// [`BatchCluster::resize`] spreads them).
    StartResized {
        /// The job.
        job: JobId,
        /// Its submit time.
        submit: Time,
        /// The units it starts on.
        size: u32,
        /// Its queue position as the policy saw it, if known (a hint, checked).
        #[serde(skip)]
        at: Option<usize>,
    },
}

impl PartialEq for BatchCommand {
    fn eq(&self, other: &Self) -> bool {
        use BatchCommand::{Start, StartResized};
        match (*self, *other) {
            (
                Start { job, submit, .. },
                Start {
                    job: j, submit: s, ..
                },
            ) => (job, submit) == (j, s),
            (
                StartResized {
                    job, submit, size, ..
                },
                StartResized {
                    job: j,
                    submit: s,
                    size: z,
                    ..
                },
            ) => (job, submit, size) == (j, s, z),
            _ => false,
        }
    }
}

impl BatchCommand {
    /// Start `queued` now on the units it requests (no position hint).
    pub fn start(queued: &QueuedJob) -> BatchCommand {
        BatchCommand::Start {
            job: queued.job.id,
            submit: queued.job.submit,
            at: None,
        }
    }

    /// The job the command starts, and its queue key (submit, id).
    pub fn job(&self) -> (JobId, (Time, JobId)) {
        match *self {
            BatchCommand::Start { job, submit, .. }
            | BatchCommand::StartResized { job, submit, .. } => (job, (submit, job)),
        }
    }

    /// The queue position the command's issuer saw the job at, if it gave one: a hint only.
    pub fn position_hint(&self) -> Option<usize> {
        match *self {
            BatchCommand::Start { at, .. } | BatchCommand::StartResized { at, .. } => at,
        }
    }
}

/// Implements the batch protocol ([`Policy`] with [`SchedulingPass`], [`BatchCommand`],
/// [`BatchCluster`] and [`BatchError`]) for a type with an inherent
/// `fn plan(&mut self, pass: &mut Pass<'_>)`: each observation plans one [`Pass`] at `now`
/// and returns its starts (and [`Pass::finish`]'s error).
///
/// ```
/// use cosched_batch::{BatchSim, Pass, pass_policy};
/// use cosched_core::{Duration, JobId, RigidJob, Time};
///
/// /// Starts only the queue head, when it fits.
/// struct HeadOnly;
/// impl HeadOnly {
///     fn plan(&mut self, pass: &mut Pass<'_>) {
///         if let Some(head) = pass.next_queued(0) {
///             let _ = pass.start(head);
///         }
///     }
/// }
/// pass_policy!(HeadOnly);
///
/// let jobs = [RigidJob::new(JobId(1), Time(0), 2, Duration(10), Duration(10)).unwrap()];
/// let out = BatchSim::new(4).unwrap().run(&mut HeadOnly, &jobs).unwrap();
/// assert_eq!(out.report.completed, 1);
/// ```
#[macro_export]
macro_rules! pass_policy {
    ($ty:ty) => {
        impl $crate::pass::__private::Policy for $ty {
            type Observation = $crate::SchedulingPass;
            type Command = $crate::BatchCommand;
            type View = $crate::BatchCluster;
            type Error = $crate::BatchError;

            fn observe(
                &mut self,
                now: $crate::pass::__private::Time,
                _: &$crate::SchedulingPass,
                view: &$crate::BatchCluster,
                out: &mut ::std::vec::Vec<$crate::BatchCommand>,
            ) -> ::std::result::Result<(), $crate::BatchError> {
                let mut pass = $crate::Pass::new(now, view, out);
                self.plan(&mut pass);
                pass.finish()
            }
        }
    };
}

/// What [`pass_policy!`] names, re-exported so that its users need not.
#[doc(hidden)]
pub mod __private {
    pub use cosched_core::Time;
    pub use cosched_core::policy::Policy;
}

/// A policy of the batch protocol, with [`BatchError`] as its error: what the built-in
/// constructors return boxed (`Box<dyn BatchPolicy + Send>`). Every type implementing
/// [`Policy`] with these associated types is one; executors accept any error type that
/// converts into [`BatchError`] (such as [`std::convert::Infallible`]).
pub trait BatchPolicy:
    Policy<
        Observation = SchedulingPass,
        Command = BatchCommand,
        View = BatchCluster,
        Error = BatchError,
    >
{
}

impl<P> BatchPolicy for P where
    P: Policy<
            Observation = SchedulingPass,
            Command = BatchCommand,
            View = BatchCluster,
            Error = BatchError,
        > + ?Sized
{
}

/// What a job started in a pass gives back: (predicted end, job, units).
type Release = (Time, JobId, u32);

/// One scheduling pass as a policy plans it: the cluster lent for the call, seen as it will be
/// once the starts accepted so far are applied, and the command buffer those starts are
/// written to.
///
/// Queued jobs are addressed by **position**: positions follow queue order and stay valid for
/// the whole pass, but are not contiguous (started or removed jobs leave gaps). Walk them with
/// [`Pass::next_queued`], or jump to backfilling candidates with [`Pass::next_candidate`].
pub struct Pass<'a> {
    view: &'a BatchCluster,
    now: Time,
    out: &'a mut Vec<BatchCommand>,
    free: u32,
    /// Queue positions started in this pass, increasing, with the (predicted end, job,
    /// units) each gives back.
    started: SmallVec<[(usize, Release); 8]>,
    /// The first start refused because its end would overflow: the pass starts nothing more.
    refused: Option<BatchError>,
}

impl<'a> Pass<'a> {
    /// A pass at `now` over `view`, writing its starts to `out`.
    pub fn new(now: Time, view: &'a BatchCluster, out: &'a mut Vec<BatchCommand>) -> Self {
        Pass {
            view,
            now,
            out,
            free: view.free_units(),
            started: SmallVec::new(),
            refused: None,
        }
    }

    /// Ends the pass: `Err` with the first start refused because its end would pass the last
    /// representable second ([`BatchError::EndOverflow`]); the starts before it stand.
    pub fn finish(self) -> Result<(), BatchError> {
        self.refused.map_or(Ok(()), Err)
    }

    /// The time of the pass.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// The cluster as it was when the pass began.
    #[inline]
    pub fn view(&self) -> &'a BatchCluster {
        self.view
    }

    /// Jobs started in this pass so far.
    #[inline]
    pub fn starts(&self) -> usize {
        self.started.len()
    }

    /// Idle online units.
    #[inline]
    pub fn free_units(&self) -> u32 {
        self.free
    }

    /// Whether the job at `pos` started in this pass.
    #[inline]
    fn started_at(&self, pos: usize) -> bool {
        // Starts mostly go in queue order: positions past the last one are not started.
        self.started.last().is_some_and(|&(last, _)| pos <= last)
            && self.started.binary_search_by_key(&pos, |s| s.0).is_ok()
    }

    /// The first result of `find(from)`, `find(p + 1)`, … that did not start in this pass.
    #[inline]
    fn skip_started(
        &self,
        mut from: usize,
        find: impl Fn(usize) -> Option<usize>,
    ) -> Option<usize> {
        loop {
            let pos = find(from)?;
            if !self.started_at(pos) {
                return Some(pos);
            }
            from = pos + 1;
        }
    }

    /// The first queued position at or after `from` (0 for the queue head).
    #[inline]
    pub fn next_queued(&self, from: usize) -> Option<usize> {
        let queue = self.view.job_queue();
        self.skip_started(from, |p| queue.next_live(p))
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
        let queue = self.view.job_queue();
        self.skip_started(from, |p| {
            queue.next_candidate(p, units, small_units, max_estimate)
        })
    }

    /// The first queued position at or after `from` whose job is resizable (malleable),
    /// requests at most `max_size` units and accepts at most `max_min_size` (its smallest
    /// size): a scan for malleable jobs that jumps over the rigid ones in O(log n) per
    /// candidate.
    #[inline]
    pub fn next_resizable(&self, from: usize, max_size: u32, max_min_size: u32) -> Option<usize> {
        let queue = self.view.job_queue();
        self.skip_started(from, |p| queue.next_resizable(p, max_size, max_min_size))
    }

    /// The position of the job `rank` places behind the queue head (the head for 0), `None`
    /// if fewer are queued: O(rank / 8 + starts), without visiting the jobs before it.
    pub fn nth_queued(&self, rank: usize) -> Option<usize> {
        let queue = self.view.job_queue();
        // The live rank counts the jobs started in this pass too: add those before the answer
        // until it is stable.
        let mut skipped = 0;
        loop {
            let pos = queue.nth_live(rank + skipped)?;
            let before = self.started.partition_point(|s| s.0 <= pos);
            if before == skipped && !self.started_at(pos) {
                return Some(pos);
            }
            skipped = before.max(skipped + usize::from(self.started_at(pos)));
        }
    }

    /// The queue position of the waiting job `job`, `None` if it is not waiting (or started in
    /// this pass): O(1) expected plus a binary search (the first lookup by id builds an index
    /// of the queue).
    #[inline]
    pub fn position_of(&self, job: JobId) -> Option<usize> {
        let pos = self.view.job_queue().position_of_id(job)?;
        (!self.started_at(pos)).then_some(pos)
    }

    /// The queue position of the waiting job `job` submitted at `submit` (its place in the
    /// queue's order), `None` if it is not waiting (or started in this pass): a binary
    /// search, for a driver that knows its jobs' submit times. Unlike [`Pass::position_of`],
    /// it builds no index by id, which the queue would then keep up to date through every
    /// insertion and removal.
    ///
    /// ```
    /// # use cosched_batch::{BatchCluster, BatchJob, Pass};
    /// # use cosched_core::{Duration, JobId, RigidJob, Time};
    /// let mut cluster = BatchCluster::new(4).unwrap();
    /// let job = RigidJob::new(JobId(7), Time(3), 2, Duration(10), Duration(10)).unwrap();
    /// cluster.submit(BatchJob::rigid(&job)).unwrap();
    /// let mut out = Vec::new();
    /// let pass = Pass::new(Time(5), &cluster, &mut out);
    /// let pos = pass.position_of_key(Time(3), JobId(7)).unwrap();
    /// assert_eq!(pass.job(pos).unwrap().job.id, JobId(7));
    /// assert_eq!(pass.position_of_key(Time(4), JobId(7)), None);
    /// ```
    #[inline]
    pub fn position_of_key(&self, submit: Time, job: JobId) -> Option<usize> {
        let pos = self.view.job_queue().position_of((submit, job))?;
        (!self.started_at(pos)).then_some(pos)
    }

    /// The job queued at `pos`, `None` if there is none (never was, or already started).
    #[inline]
    pub fn job(&self, pos: usize) -> Option<&'a QueuedJob> {
        if self.started_at(pos) {
            return None;
        }
        self.view.job_queue().get(pos)
    }

    /// Starts the job at `pos` now. Fails, issuing nothing, if no job is queued there, it
    /// needs more units than are idle, or its end would pass the last representable second
    /// ([`BatchError::EndOverflow`]: the pass then refuses every further start, and
    /// [`Pass::finish`] returns that error).
    #[inline]
    pub fn start(&mut self, pos: usize) -> Result<(), BatchError> {
        let queued = self.job(pos).ok_or(BatchError::NotStartable(pos))?;
        self.start_on(pos, queued, queued.size(), false)
    }

    /// Starts the malleable job at `pos` now on `size` units, within its size range: its
    /// setup as is, then the unit-seconds of the rest of its run time and estimate at the
    /// requested size spread over `size`, as
    /// [`BatchCluster::resize`] spreads them. Fails, issuing nothing, if no job is queued
    /// there, it is not resizable, `size` is outside its range, more than are idle, or its
    /// end would pass the last representable second (as [`Pass::start`]).
    pub fn start_resized(&mut self, pos: usize, size: u32) -> Result<(), BatchError> {
        let queued = self.job(pos).ok_or(BatchError::NotStartable(pos))?;
        queued.job.check_size(size)?;
        self.start_on(pos, queued, size, true)
    }

    /// Starts `queued`, the job at `pos`, on `size` units.
    fn start_on(
        &mut self,
        pos: usize,
        queued: &QueuedJob,
        size: u32,
        resized: bool,
    ) -> Result<(), BatchError> {
        if let Some(refused) = &self.refused {
            return Err(refused.clone());
        }
        let job = queued.job;
        if size > self.free {
            return Err(BatchError::NotEnoughFreeUnits {
                needed: size,
                free: self.free,
            });
        }
        let predicted_end = match job.ends_from(self.now, size) {
            Ok((_, predicted_end)) => predicted_end,
            Err(e) => {
                self.refused = Some(e.clone());
                return Err(e);
            }
        };
        self.free -= size;
        let entry = (pos, (predicted_end, job.id, size));
        match self.started.last() {
            Some(&(last, _)) if last > pos => {
                let at = self.started.partition_point(|s| s.0 < pos);
                self.started.insert(at, entry);
            }
            _ => self.started.push(entry),
        }
        let submit = job.submit;
        self.out.push(if resized {
            BatchCommand::StartResized {
                job: job.id,
                submit,
                size,
                at: Some(pos),
            }
        } else {
            BatchCommand::Start {
                job: job.id,
                submit,
                at: Some(pos),
            }
        });
        Ok(())
    }

    /// Units running jobs (including those started in this pass) give back at their predicted
    /// ends, in (predicted end, id) order.
    pub fn releases(&self) -> impl Iterator<Item = (Time, u32)> + '_ {
        let mut view = self.view.release_keys().peekable();
        let mut own: Vec<Release> = self.started.iter().map(|s| s.1).collect();
        own.sort_unstable();
        let mut own = own.into_iter().peekable();
        std::iter::from_fn(move || {
            let take_view = match (view.peek(), own.peek()) {
                (Some(&(v, _)), Some(&(t, id, _))) => v < (t, id),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return None,
            };
            if take_view {
                view.next().map(|((t, _), units)| (t, units))
            } else {
                own.next().map(|(t, _, units)| (t, units))
            }
        })
    }

    /// The EASY shadow of a job of `size` units now; see [`BatchCluster::shadow`].
    pub fn shadow(&self, size: u32) -> Shadow {
        if self.started.is_empty() {
            return self.view.shadow(self.now, size);
        }
        let mut own: SmallVec<[((Time, JobId), u32); 8]> = self
            .started
            .iter()
            .map(|&(_, (t, id, units))| ((t, id), units))
            .collect();
        own.sort_unstable();
        self.view.shadow_with(self.now, self.free, size, &own)
    }

    /// Starts queued jobs in order while each fits; returns the position of the first that
    /// does not (the blocked head), if any.
    pub fn start_while_fits(&mut self) -> Option<usize> {
        let mut pos = 0;
        let queue = self.view.job_queue();
        while let Some(head) = self.next_queued(pos) {
            // `head` is queued and not started in this pass. The fit is tested here first: a
            // blocked head, the usual end of the loop, then costs no error value.
            let Some(queued) = queue.get(head) else {
                return Some(head);
            };
            let size = queued.size();
            if size > self.free || self.start_on(head, queued, size, false).is_err() {
                return Some(head);
            }
            pos = head + 1;
        }
        None
    }
}
