//! Checkpointing of rigid jobs (Fan et al., IPDPS 2022, §III-A and §IV-B).
//!
//! A rigid job checkpoints periodically at Daly's optimal interval
//!
//! τ = sqrt(2δM) · [1 + (1/3)·sqrt(δ/(2M)) + (1/9)·(δ/(2M))] − δ   (τ = M when δ ≥ 2M),
//!
//! where δ is the time one checkpoint takes — 600 s for a job below 1,000 nodes and 1,200 s
//! from 1,000 nodes on, as in the paper — and M the mean time between failures *of the job*
//! (Daly's M is the application's MTBF). Failures strike a uniformly drawn node of the system
//! at the system's MTBF M_sys (§V-C), so a job on n of the system's N nodes is interrupted at
//! the rate n / (N · M_sys): its MTBF is **M = M_sys · N / n** ([`CheckpointPolicy::job_mtbf`]).
//! A job whose run time is shorter than τ never checkpoints.
//!
//! **Checkpoints cost δ each time they are taken** ([`Checkpointing::wall_time`]): a run is its
//! setup, then work in periods of τ, each followed by a checkpoint of δ on all the job's nodes.
//! A trace's run time is read as the run *at the optimum interval* (the paper's default: rigid
//! jobs checkpoint at Daly's optimum, §IV-B), so the work is recovered from it
//! ([`CheckpointPolicy::work`]); at another interval the same work takes
//! `work + ⌊work/τ⌋·δ` — more often than the optimum costs more checkpoints, less often loses
//! more to a preemption or failure (Fig. 8, Obs. 13). A preempted or failed run keeps the work
//! saved by its last completed checkpoint and loses the rest ([`preemption_cost`]).
//!
//! ```
//! use cosched_core::Duration;
//! use cosched_hybrid::checkpoint::CheckpointPolicy;
//! // A 4,392-node system with a 24-hour MTBF.
//! let policy = CheckpointPolicy::new(Duration::from_hours(24), 4_392).unwrap();
//! // The whole machine has the system's MTBF: 1,200 s checkpoints, τ = 14,400 · (1 + 1/36 +
//! // 1/1296) − 1,200 ≈ 13,611 s.
//! let ck = policy.checkpointing(4_392, Duration::from_hours(10)).unwrap();
//! assert_eq!((ck.interval, ck.cost), (Duration(13_611), Duration(1_200)));
//! // A 128-node job fails 4,392 / 128 times less often: M ≈ 34 days, τ ≈ 16.5 h, so a
//! // 10-hour run never checkpoints.
//! assert_eq!(policy.job_mtbf(128), Duration(86_400 * 4_392 / 128));
//! assert_eq!(policy.checkpointing(128, Duration::from_hours(10)), None);
//! // 10 h of trace run time are 33,600 s of work and 2 checkpoints; checkpointing twice as
//! // often, the same work takes 4 checkpoints.
//! let half = policy.with_scale(0.5).unwrap();
//! let work = policy.work(4_392, Duration::from_hours(10));
//! assert_eq!(work, Duration(36_000 - 2 * 1_200));
//! assert_eq!(half.run_time(4_392, work), Some(Duration(33_600 + 4 * 1_200)));
//! ```

use cosched_core::{Duration, ParamError};
use serde::{Deserialize, Serialize};

/// Checkpoint time δ of a job below [`LARGE_JOB_NODES`] nodes.
pub const SMALL_JOB_CHECKPOINT: Duration = Duration(600);
/// Checkpoint time δ of a job of at least [`LARGE_JOB_NODES`] nodes.
pub const LARGE_JOB_CHECKPOINT: Duration = Duration(1_200);
/// The size from which a job takes [`LARGE_JOB_CHECKPOINT`] per checkpoint.
pub const LARGE_JOB_NODES: u32 = 1_000;

/// The checkpoint time δ of a job of `nodes` nodes: 600 s below 1,000 nodes, else 1,200 s.
#[inline]
pub fn checkpoint_time(nodes: u32) -> Duration {
    if nodes < LARGE_JOB_NODES {
        SMALL_JOB_CHECKPOINT
    } else {
        LARGE_JOB_CHECKPOINT
    }
}

/// Daly's optimal checkpoint interval for checkpoint time `delta` and system MTBF `mtbf`,
/// rounded to the nearest second (at least 1 s); `mtbf` itself when `delta >= 2 * mtbf`.
/// Both must be > 0.
///
/// ```
/// use cosched_core::Duration;
/// use cosched_hybrid::checkpoint::daly_interval;
/// assert_eq!(daly_interval(Duration(600), Duration::from_hours(24)).unwrap(), Duration(9_786));
/// assert_eq!(daly_interval(Duration(600), Duration(250)).unwrap(), Duration(250));
/// assert!(daly_interval(Duration(0), Duration(250)).is_err());
/// ```
pub fn daly_interval(delta: Duration, mtbf: Duration) -> Result<Duration, ParamError> {
    ParamError::check(delta.0 > 0, "delta", delta.0, "must be > 0")?;
    ParamError::check(mtbf.0 > 0, "mtbf", mtbf.0, "must be > 0")?;
    if delta.0 >= 2 * mtbf.0 {
        return Ok(mtbf);
    }
    let (d, m) = (delta.0 as f64, mtbf.0 as f64);
    let x = d / (2.0 * m);
    let tau = (2.0 * d * m).sqrt() * (1.0 + x.sqrt() / 3.0 + x / 9.0) - d;
    Ok(Duration((tau.round() as i64).max(1)))
}

/// How a rigid job checkpoints: after every `interval` of progress it writes a checkpoint
/// taking `cost` (δ) of wall-clock time on all its nodes (§IV-B).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpointing {
    /// Progress between two checkpoints (τ), > 0.
    pub interval: Duration,
    /// Time one checkpoint takes (δ), >= 0.
    pub cost: Duration,
}

impl Checkpointing {
    /// Checkpoints a run doing `work` takes: one after every full interval of work that
    /// leaves work to do (none at the very end), `⌈work/τ⌉ − 1`.
    pub fn count(&self, work: Duration) -> i64 {
        if work.0 <= 0 {
            0
        } else {
            (work.0 - 1) / self.interval.0.max(1)
        }
    }

    /// The wall-clock time one run doing `work` (after its setup) takes: the work and its
    /// checkpoints, `work + (⌈work/τ⌉ − 1)·δ`. `None` on overflow.
    ///
    /// ```
    /// use cosched_core::Duration;
    /// use cosched_hybrid::checkpoint::Checkpointing;
    /// let ck = Checkpointing { interval: Duration(1_000), cost: Duration(100) };
    /// assert_eq!(ck.wall_time(Duration(2_500)), Some(Duration(2_700)));
    /// assert_eq!(ck.wall_time(Duration(2_000)), Some(Duration(2_100)));
    /// assert_eq!(ck.work_in(Duration(2_700)), Duration(2_500));
    /// ```
    pub fn wall_time(&self, work: Duration) -> Option<Duration> {
        self.count(work)
            .checked_mul(self.cost.0)
            .and_then(|c| c.checked_add(work.0.max(0)))
            .map(Duration)
    }

    /// The work a run of wall-clock time `wall` (after its setup) does: the inverse of
    /// [`Checkpointing::wall_time`]; a run ending inside a checkpoint is counted as having
    /// done the work before it.
    pub fn work_in(&self, wall: Duration) -> Duration {
        if wall.0 <= 0 {
            return Duration::ZERO;
        }
        let (tau, delta) = (self.interval.0.max(1), self.cost.0.max(0));
        let k = (wall.0 - 1) / tau.saturating_add(delta);
        Duration((wall.0 - k * delta).min((k + 1).saturating_mul(tau)))
    }

    /// Checkpoints completed `since_setup` after the setup of a run doing `work`.
    pub fn completed(&self, since_setup: Duration, work: Duration) -> i64 {
        if work.0 <= 0 {
            return 0;
        }
        let period = self.interval.0.max(1).saturating_add(self.cost.0.max(0));
        let since = since_setup.0.max(0);
        // 32-bit divisions are several times cheaper, and every realistic time fits (2^32 s
        // is 136 years): the mechanisms take this for every running job.
        match (
            u32::try_from(since),
            u32::try_from(period),
            u32::try_from(work.0 - 1),
            u32::try_from(self.interval.0.max(1)),
        ) {
            (Ok(s), Ok(p), Ok(w), Ok(t)) => i64::from((s / p).min(w / t)),
            _ => (since / period).min(self.count(work)),
        }
    }
}

/// What a preemption `elapsed` into a rigid run (setup `setup`, then `work` with
/// `checkpoints`) costs and keeps: `(lost, saved)`, where `saved` is the work saved by the
/// last completed checkpoint and `lost` the wall-clock time thrown away — the time since that
/// checkpoint completed plus the setup paid again, or all of `elapsed` when no checkpoint has
/// completed (§III-B2's preemption overhead). A negative `elapsed` counts as 0.
///
/// ```
/// use cosched_core::Duration;
/// use cosched_hybrid::checkpoint::{Checkpointing, preemption_cost};
/// let ck = Some(Checkpointing { interval: Duration(1_000), cost: Duration(100) });
/// // Setup 50, first checkpoint completes at 1,150: preempted at 1,400 it keeps 1,000 of work
/// // and loses 250 of recomputation and 50 of setup.
/// assert_eq!(preemption_cost(Duration(1_400), Duration(50), Duration(5_000), ck),
///            (Duration(300), Duration(1_000)));
/// // Before the first checkpoint, everything is lost.
/// assert_eq!(preemption_cost(Duration(900), Duration(50), Duration(5_000), ck),
///            (Duration(900), Duration(0)));
/// ```
pub fn preemption_cost(
    elapsed: Duration,
    setup: Duration,
    work: Duration,
    checkpoints: Option<Checkpointing>,
) -> (Duration, Duration) {
    let elapsed = elapsed.max(Duration::ZERO);
    let Some(ck) = checkpoints else {
        return (elapsed, Duration::ZERO);
    };
    let since = (elapsed - setup).0;
    let period = ck.interval.0 + ck.cost.0;
    if since < period {
        // No checkpoint completed yet: the common case, without a division.
        return (elapsed, Duration::ZERO);
    }
    let done = ck.completed(Duration(since), work);
    if done == 0 {
        return (elapsed, Duration::ZERO);
    }
    (
        Duration(elapsed.0 - done * period),
        Duration(done * ck.interval.0),
    )
}

/// The system's checkpointing regime: each job checkpoints at Daly's interval for its own
/// MTBF (the system's MTBF times the system's nodes over the job's), possibly scaled.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointPolicy {
    /// The system's mean time between failures.
    mtbf: Duration,
    /// The system's nodes.
    nodes: u32,
    /// The intervals jobs use, as a share of the optimum (1 unless scaled).
    scale: f64,
}

impl CheckpointPolicy {
    /// The regime of a system of `nodes` nodes (>= 1) with mean time between failures `mtbf`
    /// (> 0).
    pub fn new(mtbf: Duration, nodes: u32) -> Result<CheckpointPolicy, ParamError> {
        ParamError::check(mtbf.0 > 0, "mtbf", mtbf.0, "must be > 0")?;
        ParamError::check(nodes >= 1, "nodes", nodes, "must be >= 1")?;
        Ok(CheckpointPolicy {
            mtbf,
            nodes,
            scale: 1.0,
        })
    }

    /// The same regime with every interval multiplied by `factor` (> 0, finite), rounded to
    /// the second (at least 1 s): the paper's sensitivity study checkpoints at 50–200 % of
    /// Daly's optimum (Fig. 8).
    ///
    /// ```
    /// use cosched_core::Duration;
    /// use cosched_hybrid::checkpoint::CheckpointPolicy;
    /// let policy = CheckpointPolicy::new(Duration::from_hours(24), 1_000).unwrap();
    /// let half = policy.with_scale(0.5).unwrap();
    /// let tau = |p: CheckpointPolicy| p.checkpointing(1_000, Duration::from_hours(10)).unwrap().interval;
    /// assert_eq!((tau(policy), tau(half)), (Duration(13_611), Duration(6_806)));
    /// ```
    pub fn with_scale(self, factor: f64) -> Result<CheckpointPolicy, ParamError> {
        ParamError::check(
            factor.is_finite() && factor > 0.0,
            "factor",
            factor,
            "must be finite and > 0",
        )?;
        Ok(CheckpointPolicy {
            scale: factor,
            ..self
        })
    }

    /// The system MTBF.
    #[inline]
    pub fn mtbf(&self) -> Duration {
        self.mtbf
    }

    /// The system's nodes.
    #[inline]
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// The MTBF of a job on `nodes` nodes: the system's MTBF times the system's nodes over the
    /// job's (a failure strikes one uniformly drawn node), to the second; at least the
    /// system's MTBF for a job no larger than the system.
    pub fn job_mtbf(&self, nodes: u32) -> Duration {
        let m = i128::from(self.mtbf.0) * i128::from(self.nodes) / i128::from(nodes.max(1));
        Duration(i64::try_from(m).unwrap_or(i64::MAX).max(1))
    }

    /// Daly's optimum for a job of `nodes` nodes: its checkpoint time and its MTBF.
    fn optimum(&self, nodes: u32) -> Duration {
        // Both are positive by construction.
        daly_interval(checkpoint_time(nodes), self.job_mtbf(nodes)).unwrap_or(Duration(1))
    }

    /// The interval a job of `nodes` nodes uses: the optimum, scaled.
    pub fn interval(&self, nodes: u32) -> Duration {
        let optimum = self.optimum(nodes);
        if self.scale == 1.0 {
            return optimum;
        }
        Duration(((optimum.0 as f64 * self.scale).round() as i64).max(1))
    }

    /// How a job of `nodes` nodes doing `work` checkpoints: the interval in use and δ, or
    /// `None` (no checkpoints) when the interval exceeds the work.
    pub fn checkpointing(&self, nodes: u32, work: Duration) -> Option<Checkpointing> {
        let interval = self.interval(nodes);
        (interval <= work).then_some(Checkpointing {
            interval,
            cost: checkpoint_time(nodes),
        })
    }

    /// The work in a trace run time `runtime` (setup excluded) of a job of `nodes` nodes,
    /// read as a run checkpointing at the optimum interval.
    pub fn work(&self, nodes: u32, runtime: Duration) -> Duration {
        let interval = self.optimum(nodes);
        if interval > runtime {
            return runtime.max(Duration::ZERO);
        }
        Checkpointing {
            interval,
            cost: checkpoint_time(nodes),
        }
        .work_in(runtime)
    }

    /// The wall-clock time (setup excluded) a job of `nodes` nodes takes for `work` at the
    /// interval in use; `None` on overflow.
    pub fn run_time(&self, nodes: u32, work: Duration) -> Option<Duration> {
        match self.checkpointing(nodes, work) {
            Some(ck) => ck.wall_time(work),
            None => Some(work),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn daly_interval_matches_hand_computed_values() {
        // δ = 1200, M = 86400: sqrt(2δM) = 14400, δ/(2M) = 1/144, so
        // τ = 14400 · (1 + 1/36 + 1/1296) − 1200 = 13611.1.
        assert_eq!(
            daly_interval(Duration(1_200), Duration(86_400)),
            Ok(Duration(13_611))
        );
        // δ = 600, M = 86400: sqrt(2δM) = 10182.34, δ/(2M) = 1/288, sqrt = 0.058926, so
        // τ = 10182.34 · (1 + 0.019642 + 0.000386) − 600 = 9786.3.
        assert_eq!(
            daly_interval(Duration(600), Duration(86_400)),
            Ok(Duration(9_786))
        );
        // δ = 2M exactly: τ = M.
        assert_eq!(
            daly_interval(Duration(1_200), Duration(600)),
            Ok(Duration(600))
        );
    }

    #[test]
    fn parameters_are_validated() {
        assert!(daly_interval(Duration(-1), Duration(100)).is_err());
        assert!(daly_interval(Duration(600), Duration(0)).is_err());
        assert!(CheckpointPolicy::new(Duration(0), 10).is_err());
        assert!(CheckpointPolicy::new(Duration(10), 0).is_err());
        let policy = CheckpointPolicy::new(Duration(100), 10).unwrap();
        assert!(policy.with_scale(0.0).is_err());
        assert!(policy.with_scale(f64::NAN).is_err());
    }

    #[test]
    fn checkpoint_time_switches_at_1000_nodes() {
        assert_eq!(checkpoint_time(999), Duration(600));
        assert_eq!(checkpoint_time(1_000), Duration(1_200));
        // On a system of exactly the job's size the job's MTBF is the system's.
        let at = |nodes: u32| CheckpointPolicy::new(Duration(86_400), nodes).unwrap();
        assert_eq!(at(999).mtbf(), Duration(86_400));
        assert_eq!(at(999).interval(999), Duration(9_786));
        assert_eq!(at(1_000).interval(1_000), Duration(13_611));
        let policy = at(1_000);
        assert_eq!(
            policy.checkpointing(1_000, Duration(50_000)).unwrap().cost,
            Duration(1_200)
        );
        // τ exceeds the work: no checkpoints; τ equal to it: one at the end.
        let small = at(10);
        assert_eq!(small.checkpointing(10, Duration(9_785)), None);
        assert_eq!(
            small.checkpointing(10, Duration(9_786)).map(|c| c.interval),
            Some(Duration(9_786))
        );
    }

    /// Daly's M is the job's MTBF: under failures of one uniformly drawn node at the system's
    /// MTBF, a job on n of N nodes has the MTBF M·N/n, and its interval is Daly's for that.
    #[test]
    fn the_interval_uses_the_jobs_own_mtbf() {
        let policy = CheckpointPolicy::new(Duration::from_hours(24), 4_392).unwrap();
        assert_eq!(policy.job_mtbf(4_392), Duration::from_hours(24));
        assert_eq!(policy.job_mtbf(128), Duration(86_400 * 4_392 / 128));
        for nodes in [1, 128, 999, 1_000, 2_048, 4_392] {
            let expected = daly_interval(checkpoint_time(nodes), policy.job_mtbf(nodes)).unwrap();
            assert_eq!(policy.interval(nodes), expected, "{nodes} nodes");
        }
        // A 128-node job checkpoints sqrt(4392/128) ≈ 5.9 times less often than with the
        // system's MTBF.
        let system = daly_interval(Duration(600), Duration::from_hours(24)).unwrap();
        let ratio = policy.interval(128).0 as f64 / system.0 as f64;
        assert!((5.5..6.2).contains(&ratio), "{ratio}");
        // Larger jobs checkpoint more often (for the same δ).
        assert!(policy.interval(900) < policy.interval(128));
    }

    #[test]
    fn preemption_keeps_the_last_completed_checkpoint() {
        let ck = Some(Checkpointing {
            interval: Duration(1_000),
            cost: Duration(100),
        });
        let cost = |e| preemption_cost(Duration(e), Duration(10), Duration(3_500), ck);
        assert_eq!(cost(0), (Duration(0), Duration(0)));
        // Inside the first checkpoint (1,010..1,110): not yet complete.
        assert_eq!(cost(1_050), (Duration(1_050), Duration(0)));
        assert_eq!(cost(1_110), (Duration(10), Duration(1_000)));
        assert_eq!(cost(2_345), (Duration(145), Duration(2_000)));
        // After the last checkpoint (3), the run only works.
        assert_eq!(cost(3_400), (Duration(100), Duration(3_000)));
        assert_eq!(
            preemption_cost(Duration(2_345), Duration(10), Duration(3_500), None),
            (Duration(2_345), Duration(0))
        );
        assert_eq!(cost(-5), (Duration(0), Duration(0)));
    }

    #[test]
    fn work_and_wall_time_are_inverse() {
        let ck = Checkpointing {
            interval: Duration(700),
            cost: Duration(60),
        };
        for work in [0, 1, 699, 700, 701, 5_000, 123_456] {
            let wall = ck.wall_time(Duration(work)).unwrap();
            assert_eq!(ck.work_in(wall), Duration(work), "work {work}");
        }
        // A run ending inside a checkpoint did the work before it.
        assert_eq!(ck.work_in(Duration(730)), Duration(700));
        assert_eq!(
            Checkpointing {
                interval: Duration(1),
                cost: Duration(i64::MAX)
            }
            .wall_time(Duration(5)),
            None
        );
    }
}
