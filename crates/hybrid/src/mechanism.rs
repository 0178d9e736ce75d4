//! The on-arrival mechanisms PAA and SPAA (Fan et al., IPDPS 2022, "Mechanisms"), as policies.
//!
//! When an on-demand job arrives and the idle nodes do not suffice, the base FCFS + EASY
//! scheduler is overridden: running batch jobs are preempted or shrunk so the on-demand job
//! starts at once with the least harm.
//!
//! - **PAA** (preempt at arrival): list the running jobs in ascending *preemption overhead*
//!   and preempt from the front until the idle plus freed nodes reach the on-demand job's
//!   size. If even preempting every running job would not be enough, nothing is preempted and
//!   the job waits at the front of the queue ([`ArrivalAction::WaitAtFront`]).
//! - **SPAA** (shrink-preempt at arrival): compute what the running malleable jobs can supply
//!   by shrinking to their minimum sizes; if that meets the request, shrink them as evenly as
//!   possible, every running malleable job giving its share (§III-B2; Obs. 4: SPAA "reduces
//!   all running malleable jobs' sizes"); otherwise fall back to PAA (§III-B2: "If the supply
//!   cannot meet, we use PAA method to handle the on-demand request").
//!
//! ## Preemption overhead (§III-B2), in seconds — not weighted by size
//! - a rigid job with a completed checkpoint: the re-computation since that checkpoint plus
//!   the setup paid again; without one, the time elapsed since its run started
//!   ([`crate::checkpoint::preemption_cost`]);
//! - a malleable job: its setup — it saves its state during the two-minute warning
//!   ([`DEFAULT_WARNING`]) and resumes where it stopped, so it "only waste[s its] setup
//!   time" (Obs. 8).
//!
//! Ties are broken by job id. Only the jobs given to the mechanism are candidates: the caller
//! leaves out what may not be touched (running on-demand jobs, for instance).
//!
//! ## Even shrinking
//! The deficit is split evenly over **all** running malleable jobs above their minimum: each
//! gives the same number of nodes, a job that reaches its minimum gives only its slack and the
//! others cover the rest, and the nodes an even split leaves over (fewer than the jobs) come
//! one each from the largest jobs (ties: smallest id). Equivalently, one node at a time from
//! the job that has given the fewest so far (ties: the largest, then the smallest id). The
//! paper's "as evenly as possible" is read as even *reductions*, since Obs. 4 has every
//! running malleable job shrink and slow down; an even split of the resulting sizes would cut
//! only the largest jobs.
//!
//! The mechanisms are plain functions of their inputs: no clock, RNG or I/O;
//! [`crate::HybridPolicy`] turns their actions into commands.
//!
//! ```
//! use cosched_core::{Duration, JobId};
//! use cosched_hybrid::{ArrivalAction, Mechanism, RunningKind, RunningView};
//! let running = [
//!     RunningView { id: JobId(1), size: 8, setup: Duration(60),
//!                   kind: RunningKind::Malleable { min_size: 2, max_size: 8 } },
//!     RunningView { id: JobId(2), size: 4, setup: Duration(60),
//!                   kind: RunningKind::Rigid { work: Duration(3_540), elapsed: Duration(100),
//!                                              checkpoints: None } },
//! ];
//! // 3 nodes needed, 1 idle: SPAA shrinks the malleable job by 2.
//! let spaa = Mechanism::spaa().decide(3, 1, &running).unwrap();
//! assert_eq!(spaa, vec![ArrivalAction::Shrink { job: JobId(1), to: 6 }]);
//! // PAA preempts the cheaper job: the malleable one (60 s of setup, against 100 s elapsed).
//! let paa = Mechanism::paa().decide(3, 1, &running).unwrap();
//! assert_eq!(paa, vec![ArrivalAction::Preempt { job: JobId(1) }]);
//! ```

use crate::HybridError;
use crate::checkpoint::{Checkpointing, preemption_cost};
use cosched_core::{Duration, JobId, ParamError};
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;

/// The warning a malleable job gets before it is preempted: two minutes.
pub const DEFAULT_WARNING: Duration = Duration(120);

/// What kind of job a running job is, with what the mechanisms need to know about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunningKind {
    /// A rigid job: its current run is its setup, then `work` with a checkpoint after every
    /// interval of it ([`crate::checkpoint`]).
    Rigid {
        /// The work (setup and checkpoints excluded) its current run does.
        work: Duration,
        /// Time since its current run started.
        elapsed: Duration,
        /// How it checkpoints, `None` if it does not
        /// (see [`crate::checkpoint::CheckpointPolicy::checkpointing`]).
        checkpoints: Option<Checkpointing>,
    },
    /// A malleable job.
    Malleable {
        /// Its smallest size.
        min_size: u32,
        /// Its largest size.
        max_size: u32,
    },
}

/// A running job as the mechanisms see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunningView {
    /// The job.
    pub id: JobId,
    /// Nodes it holds now.
    pub size: u32,
    /// Setup time paid on every (re)start.
    pub setup: Duration,
    /// Rigid or malleable.
    pub kind: RunningKind,
}

impl RunningView {
    /// Checks `size >= 1`, `setup >= 0`; for a rigid job `work >= 0`, an interval > 0, a
    /// checkpoint time >= 0 and `0 <= elapsed <=` its run time; for a malleable job `1 <= min_size <= size <= max_size`.
    #[inline]
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.is_valid() {
            return Ok(());
        }
        self.explain()
    }

    /// [`RunningView::validate`]'s conditions as one branch-light test (the hot path).
    #[inline]
    fn is_valid(&self) -> bool {
        self.size >= 1
            && self.setup.0 >= 0
            && match self.kind {
                RunningKind::Rigid {
                    work,
                    elapsed,
                    checkpoints,
                } => {
                    work.0 >= 0
                        && elapsed.0 >= 0
                        && checkpoints.is_none_or(|c| c.interval.0 > 0 && c.cost.0 >= 0)
                        // The run time is at least setup + work: only a later elapsed time
                        // needs the checkpoints counted.
                        && (elapsed.0 <= self.setup.0.saturating_add(work.0)
                            || self
                                .run_time(work, checkpoints)
                                .is_some_and(|r| elapsed <= r))
                }
                RunningKind::Malleable { min_size, max_size } => {
                    min_size >= 1 && min_size <= self.size && max_size >= self.size
                }
            }
    }

    /// The first condition of [`RunningView::validate`] that fails, as an error.
    #[cold]
    fn explain(&self) -> Result<(), ParamError> {
        ParamError::check(self.size >= 1, "size", self.size, "must be >= 1")?;
        ParamError::check(self.setup.0 >= 0, "setup", self.setup.0, "must be >= 0")?;
        match self.kind {
            RunningKind::Rigid {
                work,
                elapsed,
                checkpoints,
            } => {
                ParamError::check(work.0 >= 0, "work", work.0, "must be >= 0")?;
                let (tau, delta) = checkpoints.map_or((1, 0), |c| (c.interval.0, c.cost.0));
                ParamError::check(tau > 0, "checkpoint interval", tau, "must be > 0")?;
                ParamError::check(delta >= 0, "checkpoint time", delta, "must be >= 0")?;
                let runtime = self.run_time(work, checkpoints).map_or(-1, |r| r.0);
                ParamError::check(
                    (0..=runtime).contains(&elapsed.0),
                    "elapsed",
                    elapsed.0,
                    "must lie within 0..=run time (setup + work + checkpoints)",
                )
            }
            RunningKind::Malleable { min_size, max_size } => {
                ParamError::check(
                    min_size >= 1 && min_size <= self.size,
                    "min_size",
                    min_size,
                    "must lie within 1..=size",
                )?;
                ParamError::check(
                    max_size >= self.size,
                    "max_size",
                    max_size,
                    "must be >= size",
                )
            }
        }
    }

    /// Nodes a shrink to the minimum would give back (0 for a rigid job).
    #[inline]
    pub fn slack(&self) -> u32 {
        match self.kind {
            RunningKind::Rigid { .. } => 0,
            RunningKind::Malleable { min_size, .. } => self.size - min_size,
        }
    }

    /// The run time of a rigid run of `work` with `checkpoints`: setup, work, checkpoints.
    fn run_time(&self, work: Duration, checkpoints: Option<Checkpointing>) -> Option<Duration> {
        let wall = match checkpoints {
            Some(ck) => ck.wall_time(work)?,
            None => work,
        };
        self.setup.checked_add(wall)
    }

    /// The preemption overhead of §III-B2 in seconds: for a rigid job the wall-clock time a
    /// preemption now throws away (re-computation since its last checkpoint plus the setup
    /// paid again, or all the elapsed time without a completed checkpoint); for a malleable
    /// job its setup.
    pub fn overhead(&self) -> Duration {
        match self.kind {
            RunningKind::Rigid {
                work,
                elapsed,
                checkpoints,
            } => preemption_cost(elapsed, self.setup, work, checkpoints).0,
            RunningKind::Malleable { .. } => self.setup,
        }
    }

    /// For a rigid job, the run time it resumes with after a preemption now: setup, then the
    /// work its last checkpoint did not save, with its checkpoints. `None` for a malleable job
    /// (it resumes where it stopped) or on overflow.
    pub fn resume_runtime(&self) -> Option<Duration> {
        let RunningKind::Rigid {
            work,
            elapsed,
            checkpoints,
        } = self.kind
        else {
            return None;
        };
        let saved = preemption_cost(elapsed, self.setup, work, checkpoints).1;
        self.run_time(work - saved, checkpoints)
    }
}

/// One action on a running job, or the verdict that the on-demand job must wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArrivalAction {
    /// Preempt the job (rigid: resume from its last checkpoint; malleable: where it stopped).
    Preempt {
        /// The job.
        job: JobId,
    },
    /// Shrink the malleable job to `to` nodes.
    Shrink {
        /// The job.
        job: JobId,
        /// Its new size.
        to: u32,
    },
    /// Not enough nodes can be freed: the on-demand job waits at the front of the queue and
    /// nothing is touched.
    WaitAtFront,
}

/// Which on-arrival mechanism to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MechanismKind {
    /// Preempt at arrival.
    Paa,
    /// Shrink malleable jobs, then preempt at arrival.
    Spaa,
}

/// An on-arrival mechanism; see the [module docs](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mechanism {
    /// PAA or SPAA.
    pub kind: MechanismKind,
}

impl Mechanism {
    /// PAA.
    pub fn paa() -> Mechanism {
        Mechanism {
            kind: MechanismKind::Paa,
        }
    }

    /// SPAA.
    pub fn spaa() -> Mechanism {
        Mechanism {
            kind: MechanismKind::Spaa,
        }
    }

    /// The preemption overhead of `job` in seconds ([`RunningView::overhead`]).
    pub fn overhead(&self, job: &RunningView) -> i64 {
        job.overhead().0
    }

    /// The decisions that let an on-demand job of `needed` nodes start now, with `free` idle
    /// nodes and `running` the jobs that may be preempted or shrunk. Empty when the idle nodes
    /// suffice; `[WaitAtFront]` when no choice frees enough; otherwise either shrinks only
    /// (SPAA when the malleable jobs' slack covers the deficit, in ascending job id) or
    /// preemptions only, in ascending overhead (PAA, and SPAA's fallback).
    ///
    /// Every view is validated. Job ids must be unique: checking that over all the running
    /// jobs would cost more than the decision itself, so only a job the decisions would touch
    /// twice is reported ([`HybridError::DuplicateJob`]). O(n + k log k) for n running jobs
    /// and k preemptions, plus O(n log size) for the shrinks.
    pub fn decide(
        &self,
        needed: u32,
        free: u32,
        running: &[RunningView],
    ) -> Result<Vec<ArrivalAction>, HybridError> {
        ParamError::check(needed >= 1, "needed", needed, "must be >= 1")?;
        let spaa = self.kind == MechanismKind::Spaa;
        let (mut total, mut slack) = (0u64, 0u64);
        // PAA keys every job by overhead in the same pass; SPAA only if it falls back.
        let mut keys: Vec<(i64, JobId, u32)> =
            Vec::with_capacity(if spaa { 0 } else { running.len() });
        for job in running {
            job.validate()?;
            total += u64::from(job.size);
            slack += u64::from(job.slack());
            if !spaa {
                keys.push((job.overhead().0, job.id, job.size));
            }
        }
        if free >= needed {
            return Ok(Vec::new());
        }
        let deficit = u64::from(needed - free);
        if spaa && slack >= deficit {
            let decisions = even_shrinks(running, deficit);
            check_unique(&decisions)?;
            return Ok(decisions);
        }
        if total < deficit {
            return Ok(vec![ArrivalAction::WaitAtFront]);
        }
        if spaa {
            keys.extend(running.iter().map(|j| (j.overhead().0, j.id, j.size)));
        }
        // The cheapest jobs covering the deficit, found by selection (expected O(n)), then
        // only those sorted.
        let chosen = cheapest_prefix(&mut keys, deficit, |k| u64::from(k.2));
        keys.truncate(chosen);
        keys.sort_unstable();
        let decisions: Vec<ArrivalAction> = keys
            .iter()
            .map(|&(_, job, _)| ArrivalAction::Preempt { job })
            .collect();
        check_unique(&decisions)?;
        Ok(decisions)
    }
}

/// [`HybridError::DuplicateJob`] if two decisions name the same job.
fn check_unique(decisions: &[ArrivalAction]) -> Result<(), HybridError> {
    let mut acted: FxHashSet<JobId> =
        FxHashSet::with_capacity_and_hasher(decisions.len(), Default::default());
    for d in decisions {
        if let ArrivalAction::Preempt { job } | ArrivalAction::Shrink { job, .. } = *d
            && !acted.insert(job)
        {
            return Err(HybridError::DuplicateJob(job));
        }
    }
    Ok(())
}

/// Reorders `keys` so that its first k entries are the k smallest, for the smallest k whose
/// weights sum to at least `target` (all of them if none does); returns k. Quickselect on the
/// running sum, expected O(n): the first split is placed at twice the count the average weight
/// predicts, so a small answer costs one pass over everything and then little more.
pub(crate) fn cheapest_prefix<K: Ord>(
    keys: &mut [K],
    target: u64,
    weight: impl Fn(&K) -> u64,
) -> usize {
    if target == 0 {
        return 0;
    }
    let n = keys.len();
    let total: u64 = keys.iter().map(&weight).sum();
    if total < target {
        return n;
    }
    let predicted = u128::from(target) * n as u128 / u128::from(total.max(1));
    let mut guess = usize::try_from(2 * predicted + 8).unwrap_or(n).min(n - 1);
    let (mut lo, mut hi, mut acc) = (0, n, 0u64);
    // keys[..lo] are the lo smallest, weighing acc < target; the answer lies in lo+1..=hi.
    while lo < hi {
        let mid = if (lo..hi).contains(&guess) {
            guess
        } else {
            lo + (hi - lo) / 2
        };
        guess = usize::MAX;
        keys[lo..hi].select_nth_unstable(mid - lo);
        let left: u64 = keys[lo..mid].iter().map(&weight).sum();
        if acc + left >= target {
            hi = mid;
        } else if acc + left + weight(&keys[mid]) >= target {
            return mid + 1;
        } else {
            acc += left + weight(&keys[mid]);
            lo = mid + 1;
        }
    }
    lo
}

/// Shrinks among `jobs` freeing `amount` nodes evenly (see the [module docs](self)): every
/// malleable job above its minimum gives `min(slack, L)` for the largest level `L` freeing at
/// most `amount`, and the nodes still missing come one each from the jobs with slack above
/// `L`, largest first (ties: smallest id); the caller guarantees the slack covers `amount`.
/// O(jobs · log size); the shrinks come out in ascending id.
fn even_shrinks(jobs: &[RunningView], amount: u64) -> Vec<ArrivalAction> {
    // (id, size, slack) of the jobs that can shrink.
    let mut shrinkable: Vec<(JobId, u32, u32)> = jobs
        .iter()
        .filter(|j| matches!(j.kind, RunningKind::Malleable { .. }) && j.slack() > 0)
        .map(|j| (j.id, j.size, j.slack()))
        .collect();
    let freed_at = |level: u32| -> u64 {
        shrinkable
            .iter()
            .map(|&(_, _, slack)| u64::from(slack.min(level)))
            .sum()
    };
    // The largest level freeing at most `amount` (freed_at is non-decreasing in the level).
    let (mut lo, mut hi) = (0u32, shrinkable.iter().map(|j| j.2).max().unwrap_or(0));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if freed_at(mid) <= amount {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let level = lo;
    let missing = usize::try_from(amount.saturating_sub(freed_at(level))).unwrap_or(usize::MAX);
    // The jobs giving one node more: slack left above the level, largest first.
    shrinkable.sort_unstable_by_key(|&(id, size, slack)| (slack <= level, Reverse(size), id));
    let mut cuts: Vec<(JobId, u32, u32)> = shrinkable
        .iter()
        .enumerate()
        .map(|(k, &(id, size, slack))| {
            let cut = slack.min(level) + u32::from(k < missing);
            (id, size, size - cut)
        })
        .filter(|&(_, size, to)| to < size)
        .collect();
    cuts.sort_unstable_by_key(|c| c.0);
    cuts.into_iter()
        .map(|(job, _, to)| ArrivalAction::Shrink { job, to })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn malleable(id: u64, size: u32, min_size: u32) -> RunningView {
        RunningView {
            id: JobId(id),
            size,
            setup: Duration(0),
            kind: RunningKind::Malleable {
                min_size,
                max_size: size,
            },
        }
    }

    fn rigid(id: u64, size: u32, elapsed: i64, tau: Option<i64>) -> RunningView {
        RunningView {
            id: JobId(id),
            size,
            setup: Duration(10),
            kind: RunningKind::Rigid {
                work: Duration(10_000),
                elapsed: Duration(elapsed),
                checkpoints: tau.map(|t| Checkpointing {
                    interval: Duration(t),
                    cost: Duration(0),
                }),
            },
        }
    }

    #[test]
    fn idle_nodes_suffice() {
        let d = Mechanism::paa().decide(4, 4, &[rigid(1, 8, 5, None)]);
        assert_eq!(d, Ok(vec![]));
    }

    #[test]
    fn paa_preempts_in_ascending_overhead_and_stops_when_enough() {
        // Overheads (seconds, whatever the size): job 1: 490 + 10 since its checkpoint at 1,010;
        // job 2: 50 elapsed, no checkpoint; job 3: 5 + 10.
        let running = [
            rigid(1, 4, 1_500, Some(1_000)),
            rigid(2, 2, 50, None),
            rigid(3, 4, 2_015, Some(1_000)),
        ];
        let d = Mechanism::paa().decide(6, 1, &running).unwrap();
        assert_eq!(
            d,
            vec![
                ArrivalAction::Preempt { job: JobId(3) },
                ArrivalAction::Preempt { job: JobId(2) },
            ]
        );
    }

    #[test]
    fn paa_waits_at_front_when_everything_is_not_enough() {
        let running = [rigid(1, 4, 5, None), malleable(2, 3, 1)];
        let d = Mechanism::paa().decide(9, 1, &running).unwrap();
        assert_eq!(d, vec![ArrivalAction::WaitAtFront]);
    }

    #[test]
    fn spaa_shrinks_evenly_down_to_minimums() {
        let running = [malleable(1, 10, 2), malleable(2, 6, 5), malleable(3, 7, 1)];
        // 7 nodes: each gives 3, but job 2 has only 1 above its minimum; 3 + 1 + 3 = 7.
        let d = Mechanism::spaa().decide(7, 0, &running).unwrap();
        assert_eq!(
            d,
            vec![
                ArrivalAction::Shrink {
                    job: JobId(1),
                    to: 7
                },
                ArrivalAction::Shrink {
                    job: JobId(2),
                    to: 5
                },
                ArrivalAction::Shrink {
                    job: JobId(3),
                    to: 4
                },
            ]
        );
    }

    /// §III-B2 / Obs. 4: SPAA "reduces all running malleable jobs' sizes" — a small job gives
    /// as many nodes as a large one, not the largest job alone; the nodes an even split leaves
    /// over come from the largest jobs.
    #[test]
    fn spaa_reduces_every_running_malleable_job() {
        let running = [
            malleable(1, 100, 20),
            malleable(2, 10, 2),
            malleable(3, 4, 1),
        ];
        let shrinks = |needed| Mechanism::spaa().decide(needed, 0, &running).unwrap();
        let to = |job: u64, to: u32| ArrivalAction::Shrink {
            job: JobId(job),
            to,
        };
        assert_eq!(shrinks(6), vec![to(1, 98), to(2, 8), to(3, 2)]);
        assert_eq!(shrinks(7), vec![to(1, 97), to(2, 8), to(3, 2)]);
        assert_eq!(shrinks(8), vec![to(1, 97), to(2, 7), to(3, 2)]);
        // Fewer nodes than jobs: one each from the largest.
        assert_eq!(shrinks(2), vec![to(1, 99), to(2, 9)]);
        // Job 3 stops at its minimum; the others cover the rest evenly.
        assert_eq!(shrinks(13), vec![to(1, 95), to(2, 5), to(3, 1)]);
    }

    #[test]
    fn spaa_falls_back_to_paa_when_shrinking_cannot_supply_enough() {
        // Slack 2 (job 1) < 5 needed: no shrink at all, PAA instead — the malleable job (its
        // setup, 0 s) first, then the rigid job with the least elapsed time.
        let running = [
            malleable(1, 4, 2),
            rigid(2, 3, 5, None),
            rigid(3, 3, 500, None),
        ];
        let spaa = Mechanism::spaa().decide(5, 0, &running).unwrap();
        assert_eq!(
            spaa,
            vec![
                ArrivalAction::Preempt { job: JobId(1) },
                ArrivalAction::Preempt { job: JobId(2) },
            ]
        );
        assert_eq!(spaa, Mechanism::paa().decide(5, 0, &running).unwrap());
    }

    #[test]
    fn overhead_is_not_weighted_by_size() {
        // A 1,000-node job 10 s into its run is cheaper than a 1-node job 100 s in.
        let running = [rigid(1, 1_000, 10, None), rigid(2, 1, 100, None)];
        let d = Mechanism::paa().decide(1, 0, &running).unwrap();
        assert_eq!(d, vec![ArrivalAction::Preempt { job: JobId(1) }]);
    }

    #[test]
    fn inputs_are_validated() {
        let m = Mechanism::paa();
        assert!(matches!(m.decide(0, 1, &[]), Err(HybridError::Param(_))));
        let bad = [malleable(1, 2, 3)];
        assert!(matches!(m.decide(4, 1, &bad), Err(HybridError::Param(_))));
        let dup = [rigid(1, 2, 0, None), rigid(1, 2, 0, None)];
        assert_eq!(
            m.decide(4, 1, &dup),
            Err(HybridError::DuplicateJob(JobId(1)))
        );
        let late = [rigid(1, 2, 20_000, None)];
        assert!(matches!(m.decide(4, 1, &late), Err(HybridError::Param(_))));
    }
}
