//! The notice strategies N, CUA and CUP (Fan et al., IPDPS 2022, "Mechanisms": what to do
//! when an on-demand job announces itself with an advance notice), as a policy.
//!
//! An advance notice comes 15–30 minutes ahead with an estimated arrival time. The strategy
//! decides what to set aside for the job before it comes:
//!
//! - **N**: ignore the notice; the on-arrival mechanism (PAA or SPAA) does everything.
//! - **CUA** (collect until arrival): reserve the idle nodes now, then claim nodes as running
//!   jobs release them, until the reservation holds the job's size or the job arrives.
//! - **CUP** (collect until predicted arrival): as CUA, and if the idle nodes plus the nodes
//!   of jobs predicted to end before the estimated arrival (less what earlier reservations
//!   still lack: they are served first) do not cover the size, plan
//!   preemptions of running jobs before the estimated arrival. Candidates are ordered by the
//!   overhead the preemption will cost *when it happens*: a rigid job is preempted right after
//!   its last checkpoint before the arrival (losing nothing but its setup) when it has one,
//!   else now; a malleable job one warning before the arrival.
//!
//! Contention: reservations are served in notice order — the **earliest notice wins** the
//! nodes offered by [`NoticeBoard::offer`]. A reservation whose job has not come
//! [`DEFAULT_GRACE`] (10 minutes) after its estimated arrival is released
//! ([`NoticeBoard::expire`]).
//!
//! While a reservation waits, its idle nodes may run *guests* ([`guests`]): queued jobs
//! expected to end before the arrival, then malleable jobs; the driver preempts the guests
//! still running when the job arrives.
//!
//! The board only books nodes: it holds no clock and touches no cluster.
//! [`crate::policy::HybridPolicy`] drives it: it has the nodes the board claims taken away
//! from the batch scheduler, fires the planned preemptions at their times (if the reservation
//! is still short then, [`NoticeBoard::is_short`]) or cancels them, re-plans on a changed
//! notice ([`NoticeBoard::renotice`]), and hands the nodes to the job at arrival
//! ([`NoticeBoard::arrive`]).
//!
//! ```
//! use cosched_core::{Duration, JobId, NodeId, Time};
//! use cosched_hybrid::notice::{Notice, NoticeBoard, NoticeStrategy};
//! let mut board = NoticeBoard::new(NoticeStrategy::Cua);
//! let notice = Notice { job: JobId(7), size: 3, at: Time(0), estimated_arrival: Time(1_200) };
//! let plan = board.notice(notice, &[NodeId(4)], &[]).unwrap();
//! assert_eq!(plan.claimed, vec![NodeId(4)]);
//! assert_eq!(plan.expires, Some(Time(1_800)));
//! // Two nodes free up later: both are claimed; a third is not needed.
//! let claimed = board.offer(&[NodeId(1), NodeId(2), NodeId(3)]);
//! assert_eq!(claimed, vec![(JobId(7), NodeId(1)), (JobId(7), NodeId(2))]);
//! assert_eq!(board.arrive(JobId(7)), vec![NodeId(4), NodeId(1), NodeId(2)]);
//! ```

use crate::HybridError;
use crate::checkpoint::preemption_cost;
use crate::mechanism::{DEFAULT_WARNING, RunningKind, RunningView, cheapest_prefix};
use cosched_core::{Duration, JobId, NodeId, ParamError, Time};
use std::fmt;
use std::str::FromStr;

/// How long a reservation outlives its job's estimated arrival: 10 minutes.
pub const DEFAULT_GRACE: Duration = Duration::from_mins(10);

/// What to do on an advance notice; see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum NoticeStrategy {
    /// Ignore notices.
    N,
    /// Collect until arrival.
    Cua,
    /// Collect until predicted arrival, preempting before it if needed.
    Cup,
}

impl NoticeStrategy {
    /// The three strategies, in the paper's order.
    pub const ALL: [NoticeStrategy; 3] =
        [NoticeStrategy::N, NoticeStrategy::Cua, NoticeStrategy::Cup];

    /// The paper's name: `N`, `CUA`, `CUP`.
    pub const fn name(self) -> &'static str {
        match self {
            NoticeStrategy::N => "N",
            NoticeStrategy::Cua => "CUA",
            NoticeStrategy::Cup => "CUP",
        }
    }
}

impl fmt::Display for NoticeStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for NoticeStrategy {
    type Err = ParamError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        NoticeStrategy::ALL
            .into_iter()
            .find(|n| n.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParamError::new("notice strategy", s, "must be N, CUA or CUP"))
    }
}

/// An advance notice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Notice {
    /// The on-demand job announced.
    pub job: JobId,
    /// Nodes it will need.
    pub size: u32,
    /// When the notice is given.
    pub at: Time,
    /// When the job says it will arrive.
    pub estimated_arrival: Time,
}

/// A running job as CUP plans with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlannedJob {
    /// What the on-arrival mechanisms see of it (`elapsed` of a rigid job is unused here).
    pub view: RunningView,
    /// When its current run started (its checkpoints are counted from there).
    pub run_start: Time,
    /// When the scheduler expects it to end.
    pub predicted_end: Time,
}

/// A preemption CUP plans for a reservation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlannedPreemption {
    /// The running job to preempt.
    pub job: JobId,
    /// When (at or after the notice, at or before the estimated arrival).
    pub at: Time,
    /// The on-demand job whose reservation it serves.
    pub for_job: JobId,
    /// Its preemption overhead then, seconds (the order CUP chose it in).
    pub overhead: i64,
}

/// What the board decided on a notice.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NoticePlan {
    /// Idle nodes reserved now: the driver takes them from the batch scheduler.
    pub claimed: Vec<NodeId>,
    /// CUP's planned preemptions, in the order chosen.
    pub preemptions: Vec<PlannedPreemption>,
    /// When the reservation is released if the job has not come; `None` for N.
    pub expires: Option<Time>,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Reservation {
    notice: Notice,
    nodes: Vec<NodeId>,
    expires: Time,
}

impl Reservation {
    #[inline]
    fn short_by(&self) -> u32 {
        self.notice.size - self.nodes.len() as u32
    }
}

/// The reservations made on notices; see the [module docs](self).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NoticeBoard {
    strategy: NoticeStrategy,
    grace: Duration,
    warning: Duration,
    /// In (notice time, job id) order: the earliest notice is served first.
    reservations: Vec<Reservation>,
}

impl NoticeBoard {
    /// A board running `strategy` with the 10-minute grace and the two-minute warning.
    pub fn new(strategy: NoticeStrategy) -> NoticeBoard {
        NoticeBoard {
            strategy,
            grace: DEFAULT_GRACE,
            warning: DEFAULT_WARNING,
            reservations: Vec::new(),
        }
    }

    /// The same board with another grace after the estimated arrival (>= 0).
    pub fn with_grace(mut self, grace: Duration) -> Result<NoticeBoard, ParamError> {
        ParamError::check(grace.0 >= 0, "grace", grace.0, "must be >= 0")?;
        self.grace = grace;
        Ok(self)
    }

    /// The same board with another warning before a malleable job's planned preemption
    /// (>= 0).
    pub fn with_warning(mut self, warning: Duration) -> Result<NoticeBoard, ParamError> {
        ParamError::check(warning.0 >= 0, "warning", warning.0, "must be >= 0")?;
        self.warning = warning;
        Ok(self)
    }

    /// The strategy.
    #[inline]
    pub fn strategy(&self) -> NoticeStrategy {
        self.strategy
    }

    /// Handles a notice: `free` are the idle nodes no one holds, `running` the jobs CUP may
    /// count on or preempt. N reserves nothing. Errors on a size of 0, an estimated arrival
    /// before the notice, or a second notice for a job already holding a reservation.
    pub fn notice(
        &mut self,
        notice: Notice,
        free: &[NodeId],
        running: &[PlannedJob],
    ) -> Result<NoticePlan, HybridError> {
        ParamError::check(notice.size >= 1, "size", notice.size, "must be >= 1")?;
        ParamError::check(
            notice.estimated_arrival >= notice.at,
            "estimated_arrival",
            notice.estimated_arrival.0,
            "must not come before the notice",
        )?;
        if self.strategy == NoticeStrategy::N {
            return Ok(NoticePlan::default());
        }
        if self.reservations.iter().any(|r| r.notice.job == notice.job) {
            return Err(HybridError::DuplicateJob(notice.job));
        }
        let take = free.len().min(notice.size as usize);
        let claimed = free[..take].to_vec();
        let reservation = Reservation {
            notice,
            nodes: claimed.clone(),
            expires: notice.estimated_arrival.saturating_add(self.grace),
        };
        let preemptions = if self.strategy == NoticeStrategy::Cup {
            self.plan_preemptions(notice.at, &notice, reservation.short_by(), running)?
        } else {
            Vec::new()
        };
        let expires = Some(reservation.expires);
        let key = (notice.at, notice.job);
        let pos = self
            .reservations
            .partition_point(|r| (r.notice.at, r.notice.job) < key);
        self.reservations.insert(pos, reservation);
        Ok(NoticePlan {
            claimed,
            preemptions,
            expires,
        })
    }

    /// Handles a second notice for a job that holds a reservation (its estimate or size
    /// changed): the reservation keeps its place (its first notice time), follows the new
    /// estimate (a new expiry) and size (nodes beyond it are released and returned), claims
    /// from `free` what it still lacks and, under CUP, plans anew for the new estimate. A
    /// job without a reservation is handled as a first notice. The caller cancels the plans
    /// it acted on for the old notice.
    pub fn renotice(
        &mut self,
        notice: Notice,
        free: &[NodeId],
        running: &[PlannedJob],
    ) -> Result<(NoticePlan, Vec<NodeId>), HybridError> {
        let Some(pos) = self
            .reservations
            .iter()
            .position(|r| r.notice.job == notice.job)
        else {
            return Ok((self.notice(notice, free, running)?, Vec::new()));
        };
        ParamError::check(notice.size >= 1, "size", notice.size, "must be >= 1")?;
        let first = self.reservations[pos].notice.at;
        ParamError::check(
            notice.estimated_arrival >= first,
            "estimated_arrival",
            notice.estimated_arrival.0,
            "must not come before the first notice",
        )?;
        let grace = self.grace;
        let r = &mut self.reservations[pos];
        r.notice = Notice {
            at: first,
            ..notice
        };
        r.expires = notice.estimated_arrival.saturating_add(grace);
        let keep = r.nodes.len().min(notice.size as usize);
        let released = r.nodes.split_off(keep);
        let take = free.len().min(r.short_by() as usize);
        let claimed = free[..take].to_vec();
        r.nodes.extend_from_slice(&claimed);
        let (updated, short, expires) = (r.notice, r.short_by(), r.expires);
        let preemptions = if self.strategy == NoticeStrategy::Cup {
            self.plan_preemptions(notice.at, &updated, short, running)?
        } else {
            Vec::new()
        };
        let plan = NoticePlan {
            claimed,
            preemptions,
            expires: Some(expires),
        };
        Ok((plan, released))
    }

    /// CUP at `now`: preemptions covering `short` nodes beyond what is predicted to free
    /// before the estimated arrival; none if even every candidate would not cover it.
    fn plan_preemptions(
        &self,
        now: Time,
        notice: &Notice,
        short: u32,
        running: &[PlannedJob],
    ) -> Result<Vec<PlannedPreemption>, HybridError> {
        let arrival = notice.estimated_arrival;
        let mut expected = 0u64;
        let mut candidates = Vec::new();
        for job in running {
            job.view.validate()?;
            if job.predicted_end <= arrival {
                expected += u64::from(job.view.size);
            } else {
                let (at, overhead) = self.preemption_point(now, arrival, job);
                candidates.push((overhead, job.view.id, at, job.view.size));
            }
        }
        // Reservations noticed earlier win the nodes that free first: count only what they
        // leave.
        let earlier: u64 = self
            .reservations
            .iter()
            .filter(|r| (r.notice.at, r.notice.job) < (notice.at, notice.job))
            .map(|r| u64::from(r.short_by()))
            .sum();
        let expected = expected.saturating_sub(earlier);
        let Some(deficit) = u64::from(short).checked_sub(expected).filter(|&d| d > 0) else {
            return Ok(Vec::new());
        };
        let total: u64 = candidates.iter().map(|c| u64::from(c.3)).sum();
        if total < deficit {
            return Ok(Vec::new());
        }
        // The cheapest candidates covering the deficit, found by selection, then sorted.
        let chosen = cheapest_prefix(&mut candidates, deficit, |c| u64::from(c.3));
        candidates.truncate(chosen);
        candidates.sort_unstable();
        let mut plan = Vec::with_capacity(candidates.len());
        for (overhead, job, at, _) in candidates {
            plan.push(PlannedPreemption {
                job,
                at,
                for_job: notice.job,
                overhead,
            });
        }
        Ok(plan)
    }

    /// When CUP would preempt `job` for an arrival at `arrival` noticed at `now`, and the
    /// overhead (seconds, §III-B2) it would cost then: a rigid job right after its last
    /// checkpoint completed before the arrival (losing only its setup), or now if it has none
    /// in between; a malleable job one warning before the arrival (its setup).
    fn preemption_point(&self, now: Time, arrival: Time, job: &PlannedJob) -> (Time, i64) {
        let setup = job.view.setup;
        match job.view.kind {
            RunningKind::Rigid {
                work, checkpoints, ..
            } => {
                let start = job.run_start.saturating_add(setup);
                let last_checkpoint = checkpoints.and_then(|ck| {
                    let done = ck.completed(arrival - start, work);
                    let period = ck.interval.0.saturating_add(ck.cost.0);
                    let at = start.saturating_add(Duration(done.saturating_mul(period)));
                    (done >= 1 && at >= now).then_some(at)
                });
                let at = last_checkpoint.unwrap_or(now);
                let lost = preemption_cost(at - job.run_start, setup, work, checkpoints).0;
                (at, lost.0)
            }
            RunningKind::Malleable { .. } => (now.max(arrival - self.warning), setup.0),
        }
    }

    /// Offers nodes that just became idle: reservations still short claim them, earliest
    /// notice first. Returns the claims in order; unclaimed nodes stay with the caller.
    pub fn offer(&mut self, nodes: &[NodeId]) -> Vec<(JobId, NodeId)> {
        let mut claims = Vec::new();
        let mut rest = nodes;
        for r in &mut self.reservations {
            if rest.is_empty() {
                break;
            }
            let take = rest.len().min(r.short_by() as usize);
            r.nodes.extend_from_slice(&rest[..take]);
            claims.extend(rest[..take].iter().map(|&n| (r.notice.job, n)));
            rest = &rest[take..];
        }
        claims
    }

    /// The job arrived: its reservation ends and its nodes are handed over (none if it had
    /// no reservation).
    pub fn arrive(&mut self, job: JobId) -> Vec<NodeId> {
        match self.reservations.iter().position(|r| r.notice.job == job) {
            Some(pos) => self.reservations.remove(pos).nodes,
            None => Vec::new(),
        }
    }

    /// Releases the reservations whose expiry is at or before `now`: each job and the nodes
    /// it held, which go back to the batch scheduler.
    pub fn expire(&mut self, now: Time) -> Vec<(JobId, Vec<NodeId>)> {
        let mut released = Vec::new();
        self.reservations.retain_mut(|r| {
            if r.expires <= now {
                released.push((r.notice.job, std::mem::take(&mut r.nodes)));
                false
            } else {
                true
            }
        });
        released
    }

    /// The earliest expiry of a reservation, if any.
    pub fn next_expiry(&self) -> Option<Time> {
        self.reservations.iter().map(|r| r.expires).min()
    }

    /// Takes a (failed) node out of whichever reservation holds it; the reservation then
    /// collects again. The job that held it, if any.
    pub fn drop_node(&mut self, node: NodeId) -> Option<JobId> {
        self.reservations.iter_mut().find_map(|r| {
            let pos = r.nodes.iter().position(|&n| n == node)?;
            r.nodes.swap_remove(pos);
            Some(r.notice.job)
        })
    }

    /// Whether `job` holds a reservation that is not yet complete.
    pub fn is_short(&self, job: JobId) -> bool {
        self.reservations
            .iter()
            .any(|r| r.notice.job == job && r.short_by() > 0)
    }

    /// Nodes all reservations still want.
    pub fn shortfall(&self) -> u32 {
        self.reservations.iter().map(Reservation::short_by).sum()
    }

    /// Every reservation, earliest notice first.
    pub fn reservations(&self) -> impl Iterator<Item = Reserved<'_>> + '_ {
        self.reservations.iter().map(|r| Reserved {
            job: r.notice.job,
            size: r.notice.size,
            estimated_arrival: r.notice.estimated_arrival,
            nodes: &r.nodes,
        })
    }
}

/// A reservation as [`NoticeBoard::reservations`] shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reserved<'a> {
    /// The on-demand job it is for.
    pub job: JobId,
    /// The job's size.
    pub size: u32,
    /// When the job said it would arrive.
    pub estimated_arrival: Time,
    /// The nodes collected so far.
    pub nodes: &'a [NodeId],
}

/// A queued batch job as [`guests`] sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueuedView {
    /// The job.
    pub id: JobId,
    /// Nodes it starts on.
    pub size: u32,
    /// Its (remaining) runtime estimate.
    pub estimate: Duration,
    /// Whether it is malleable.
    pub malleable: bool,
}

/// Which queued jobs may run as guests on `idle` reserved nodes at `now` while the reservation
/// waits for its job, expected at `arrival` ("Mechanisms": reserved idle nodes may run
/// backfilled jobs expected to end before the arrival, then malleable jobs — both preempted if
/// still running when the job arrives). First the jobs whose estimate ends by `arrival`, then
/// malleable jobs, each pass in queue order, as long as they fit in what is left.
///
/// ```
/// use cosched_core::{Duration, JobId, Time};
/// use cosched_hybrid::notice::{QueuedView, guests};
/// let q = |id, size, estimate, malleable| QueuedView {
///     id: JobId(id), size, estimate: Duration(estimate), malleable };
/// let queue = [q(1, 2, 5_000, false), q(2, 2, 500, false), q(3, 1, 9_000, true), q(4, 1, 100, false)];
/// // 4 idle reserved nodes, arrival in 1,000 s: jobs 2 and 4 end in time, then malleable 3.
/// assert_eq!(guests(Time(0), Time(1_000), 4, queue), vec![JobId(2), JobId(4), JobId(3)]);
/// ```
pub fn guests(
    now: Time,
    arrival: Time,
    idle: u32,
    queue: impl IntoIterator<Item = QueuedView>,
) -> Vec<JobId> {
    // One lazy pass over the queue (it may be thousands of jobs deep): the first pass's picks,
    // stopping once the nodes are used up, and aside the malleable jobs the second pass may
    // take (the ones that fit in `idle`; the second pass only has what the first left).
    let mut left = idle;
    let mut chosen = Vec::new();
    let mut malleable = Vec::new();
    for job in queue {
        if left == 0 {
            break;
        }
        if job.size <= left && now.saturating_add(job.estimate) <= arrival {
            left -= job.size;
            chosen.push(job.id);
        } else if job.malleable && job.size <= idle {
            malleable.push(job);
        }
    }
    for job in malleable {
        if left == 0 {
            break;
        }
        if job.size <= left {
            left -= job.size;
            chosen.push(job.id);
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::Checkpointing;
    use proptest::prelude::*;

    /// The rule of [`guests`] as its docs state it: two passes over the whole queue.
    fn guests_two_passes(now: Time, arrival: Time, idle: u32, queue: &[QueuedView]) -> Vec<JobId> {
        let mut left = idle;
        let mut chosen = Vec::new();
        let mut pick = |wanted: &dyn Fn(&QueuedView) -> bool, chosen: &mut Vec<JobId>| {
            for job in queue {
                if left > 0 && job.size <= left && wanted(job) && !chosen.contains(&job.id) {
                    left -= job.size;
                    chosen.push(job.id);
                }
            }
        };
        pick(&|j| now.saturating_add(j.estimate) <= arrival, &mut chosen);
        pick(&|j| j.malleable, &mut chosen);
        chosen
    }

    proptest! {
        #[test]
        fn guests_matches_the_two_pass_rule(
            idle in 0u32..12,
            arrival in 0i64..2_000,
            jobs in prop::collection::vec((1u32..8, 1i64..3_000, any::<bool>()), 0..40),
        ) {
            let queue: Vec<QueuedView> = jobs
                .iter()
                .enumerate()
                .map(|(i, &(size, estimate, malleable))| QueuedView {
                    id: JobId(i as u64),
                    size,
                    estimate: Duration(estimate),
                    malleable,
                })
                .collect();
            prop_assert_eq!(
                guests(Time(0), Time(arrival), idle, queue.iter().copied()),
                guests_two_passes(Time(0), Time(arrival), idle, &queue)
            );
        }
    }

    fn notice(job: u64, size: u32, at: i64, arrival: i64) -> Notice {
        Notice {
            job: JobId(job),
            size,
            at: Time(at),
            estimated_arrival: Time(arrival),
        }
    }

    fn nodes(ids: &[u32]) -> Vec<NodeId> {
        ids.iter().map(|&i| NodeId(i)).collect()
    }

    fn rigid(id: u64, size: u32, run_start: i64, end: i64, tau: Option<i64>) -> PlannedJob {
        PlannedJob {
            view: RunningView {
                id: JobId(id),
                size,
                setup: Duration(100),
                kind: RunningKind::Rigid {
                    work: Duration(end - run_start - 100),
                    elapsed: Duration(0),
                    checkpoints: tau.map(|t| Checkpointing {
                        interval: Duration(t),
                        cost: Duration(0),
                    }),
                },
            },
            run_start: Time(run_start),
            predicted_end: Time(end),
        }
    }

    #[test]
    fn n_reserves_nothing() {
        let mut board = NoticeBoard::new(NoticeStrategy::N);
        let plan = board.notice(notice(1, 2, 0, 100), &nodes(&[0, 1]), &[]);
        assert_eq!(plan, Ok(NoticePlan::default()));
        assert!(board.offer(&nodes(&[2])).is_empty());
        assert_eq!(board.shortfall(), 0);
    }

    #[test]
    fn earliest_notice_wins_contention() {
        let mut board = NoticeBoard::new(NoticeStrategy::Cua);
        board.notice(notice(2, 2, 50, 900), &[], &[]).unwrap();
        board.notice(notice(1, 2, 10, 900), &[], &[]).unwrap();
        let claims = board.offer(&nodes(&[5, 6, 7]));
        assert_eq!(
            claims,
            vec![
                (JobId(1), NodeId(5)),
                (JobId(1), NodeId(6)),
                (JobId(2), NodeId(7))
            ]
        );
        assert!(!board.is_short(JobId(1)) && board.is_short(JobId(2)));
        assert_eq!(board.shortfall(), 1);
    }

    #[test]
    fn reservations_expire_after_the_grace() {
        let mut board = NoticeBoard::new(NoticeStrategy::Cua);
        let plan = board
            .notice(notice(1, 4, 0, 1_000), &nodes(&[3]), &[])
            .unwrap();
        assert_eq!(plan.expires, Some(Time(1_600)));
        assert!(board.expire(Time(1_599)).is_empty());
        assert_eq!(board.expire(Time(1_600)), vec![(JobId(1), nodes(&[3]))]);
        assert!(board.arrive(JobId(1)).is_empty());
    }

    #[test]
    fn cup_counts_expected_releases_before_preempting() {
        let mut board = NoticeBoard::new(NoticeStrategy::Cup);
        // 6 nodes, 1 idle; job 1 (2 nodes) ends before the arrival: 3 more are needed.
        // Job 2 checkpoints every 300 s of work after its 100 s setup: its last checkpoint
        // before 1,000 completes at 1,000, so it costs only its setup (100 s); job 3 never
        // checkpoints and has run 0 s at the notice.
        let running = [
            rigid(1, 2, 0, 800, None),
            rigid(2, 4, 0, 5_000, Some(300)),
            rigid(3, 3, 0, 5_000, None),
        ];
        let plan = board
            .notice(notice(9, 6, 0, 1_000), &nodes(&[0]), &running)
            .unwrap();
        assert_eq!(
            plan.preemptions,
            vec![PlannedPreemption {
                job: JobId(3),
                at: Time(0),
                for_job: JobId(9),
                overhead: 0
            }]
        );
        // Noticed later, job 3 has lost work and job 2 its checkpoint right before arrival.
        let mut board = NoticeBoard::new(NoticeStrategy::Cup);
        let plan = board
            .notice(notice(9, 6, 500, 1_000), &nodes(&[0]), &running)
            .unwrap();
        assert_eq!(plan.preemptions[0].job, JobId(2));
        assert_eq!(plan.preemptions[0].at, Time(1_000));
        assert_eq!(plan.preemptions[0].overhead, 100);
    }

    #[test]
    fn cup_leaves_expected_releases_to_earlier_reservations() {
        // Job 1 (2 nodes) ends before both arrivals; an earlier reservation still lacks 2
        // nodes and will take them, so the later notice plans a preemption of job 2.
        let running = [rigid(1, 2, 0, 800, None), rigid(2, 3, 0, 5_000, None)];
        let mut board = NoticeBoard::new(NoticeStrategy::Cup);
        let alone = board
            .clone()
            .notice(notice(9, 2, 10, 1_000), &[], &running)
            .unwrap();
        assert!(alone.preemptions.is_empty());
        board.notice(notice(8, 2, 0, 1_000), &[], &[]).unwrap();
        let plan = board
            .notice(notice(9, 2, 10, 1_000), &[], &running)
            .unwrap();
        assert_eq!(plan.preemptions.len(), 1);
        assert_eq!(plan.preemptions[0].job, JobId(2));
    }

    #[test]
    fn cup_preempts_a_malleable_job_one_warning_before_the_arrival() {
        let running = [PlannedJob {
            view: RunningView {
                id: JobId(1),
                size: 2,
                setup: Duration(100),
                kind: RunningKind::Malleable {
                    min_size: 1,
                    max_size: 2,
                },
            },
            run_start: Time(0),
            predicted_end: Time(5_000),
        }];
        let plan = |mut board: NoticeBoard| {
            let plan = board.notice(notice(9, 2, 0, 1_000), &[], &running).unwrap();
            (plan.preemptions[0].at, plan.preemptions[0].overhead)
        };
        let board = NoticeBoard::new(NoticeStrategy::Cup);
        assert_eq!(plan(board.clone()), (Time(880), 100));
        let board = board.with_warning(Duration(600)).unwrap();
        assert_eq!(plan(board), (Time(400), 100));
        assert!(
            NoticeBoard::new(NoticeStrategy::Cup)
                .with_warning(Duration(-1))
                .is_err()
        );
    }

    #[test]
    fn cup_plans_nothing_when_preemptions_cannot_cover() {
        let mut board = NoticeBoard::new(NoticeStrategy::Cup);
        let running = [rigid(1, 2, 0, 5_000, None)];
        let plan = board.notice(notice(9, 8, 0, 1_000), &[], &running).unwrap();
        assert!(plan.preemptions.is_empty());
    }

    #[test]
    fn bad_notices_are_refused() {
        let mut board = NoticeBoard::new(NoticeStrategy::Cua);
        assert!(board.notice(notice(1, 0, 0, 10), &[], &[]).is_err());
        assert!(board.notice(notice(1, 1, 10, 0), &[], &[]).is_err());
        board.notice(notice(1, 1, 0, 10), &[], &[]).unwrap();
        assert_eq!(
            board.notice(notice(1, 1, 0, 10), &[], &[]),
            Err(HybridError::DuplicateJob(JobId(1)))
        );
        assert!(
            NoticeBoard::new(NoticeStrategy::N)
                .with_grace(Duration(-1))
                .is_err()
        );
        assert_eq!("cup".parse::<NoticeStrategy>(), Ok(NoticeStrategy::Cup));
        assert!("x".parse::<NoticeStrategy>().is_err());
    }

    #[test]
    fn a_failed_node_leaves_its_reservation() {
        let mut board = NoticeBoard::new(NoticeStrategy::Cua);
        board
            .notice(notice(1, 2, 0, 10), &nodes(&[4, 5]), &[])
            .unwrap();
        assert_eq!(board.drop_node(NodeId(4)), Some(JobId(1)));
        assert_eq!(board.drop_node(NodeId(4)), None);
        assert!(board.is_short(JobId(1)));
        assert_eq!(board.reservations().next().unwrap().nodes, &nodes(&[5])[..]);
    }
}
