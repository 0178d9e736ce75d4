//! Checkpointing of rigid jobs (Fan et al., IPDPS 2022, "Job models").
//!
//! A rigid job checkpoints periodically at Daly's optimal interval
//!
//! τ = sqrt(2δM) · [1 + (1/3)·sqrt(δ/(2M)) + (1/9)·(δ/(2M))] − δ   (τ = M when δ ≥ 2M),
//!
//! where δ is the time one checkpoint takes — 600 s for a job below 1,000 nodes and 1,200 s
//! from 1,000 nodes on, as in the paper — and M the system's mean time between failures. A job
//! whose run time is shorter than τ never checkpoints. When such a job is preempted it resumes
//! from its last checkpoint: the work done since then ([`lost_work`]) is lost.
//!
//! Only the lost work is modelled; the time spent writing checkpoints is not added to the run
//! time (the traces' run times already contain it).
//!
//! ```
//! use cosched_core::Duration;
//! use cosched_hybrid::checkpoint::{CheckpointPolicy, lost_work};
//! let policy = CheckpointPolicy::new(Duration::from_hours(24)).unwrap();
//! // 1,200 s checkpoints on a 1-day MTBF: τ = 14,400 · (1 + 1/36 + 1/1296) − 1,200 ≈ 13,611 s.
//! let tau = policy.interval(2_048, Duration::from_hours(10));
//! assert_eq!(tau, Some(Duration(13_611)));
//! assert_eq!(lost_work(Duration(30_000), tau), Duration(30_000 - 2 * 13_611));
//! // A 1-hour job never checkpoints, so a preemption loses everything.
//! assert_eq!(policy.interval(2_048, Duration::from_hours(1)), None);
//! ```

use cosched_core::{Duration, ParamError};

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

/// Work lost by a preemption `elapsed` after a job (re)started with checkpoint interval
/// `interval`: the time since its last checkpoint, `elapsed mod τ`, or all of `elapsed` when it
/// does not checkpoint (`None`). A negative `elapsed` counts as 0.
#[inline]
pub fn lost_work(elapsed: Duration, interval: Option<Duration>) -> Duration {
    let elapsed = elapsed.max(Duration::ZERO);
    match interval {
        Some(tau) if tau.0 > 0 => {
            // A 32-bit remainder is several times cheaper, and every realistic time fits
            // (2^32 s is 136 years): the mechanisms take one per running job.
            match (u32::try_from(elapsed.0), u32::try_from(tau.0)) {
                (Ok(e), Ok(t)) => Duration(i64::from(e % t)),
                _ => Duration(elapsed.0 % tau.0),
            }
        }
        _ => elapsed,
    }
}

/// The system's checkpointing regime: Daly's interval for its MTBF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckpointPolicy {
    mtbf: Duration,
    small: Duration,
    large: Duration,
}

impl CheckpointPolicy {
    /// The regime of a system with mean time between failures `mtbf` (> 0).
    pub fn new(mtbf: Duration) -> Result<CheckpointPolicy, ParamError> {
        Ok(CheckpointPolicy {
            mtbf,
            small: daly_interval(SMALL_JOB_CHECKPOINT, mtbf)?,
            large: daly_interval(LARGE_JOB_CHECKPOINT, mtbf)?,
        })
    }

    /// The same regime with both intervals multiplied by `factor` (> 0, finite), rounded to
    /// the second (at least 1 s): the paper's sensitivity study checkpoints at 50–200 % of
    /// Daly's optimum.
    ///
    /// ```
    /// use cosched_core::Duration;
    /// use cosched_hybrid::checkpoint::CheckpointPolicy;
    /// let half = CheckpointPolicy::new(Duration::from_hours(24)).unwrap().with_scale(0.5).unwrap();
    /// assert_eq!(half.interval(10, Duration::from_hours(10)), Some(Duration(4_893)));
    /// ```
    pub fn with_scale(self, factor: f64) -> Result<CheckpointPolicy, ParamError> {
        ParamError::check(
            factor.is_finite() && factor > 0.0,
            "factor",
            factor,
            "must be finite and > 0",
        )?;
        let scale = |d: Duration| Duration(((d.0 as f64 * factor).round() as i64).max(1));
        Ok(CheckpointPolicy {
            mtbf: self.mtbf,
            small: scale(self.small),
            large: scale(self.large),
        })
    }

    /// The system MTBF.
    #[inline]
    pub fn mtbf(&self) -> Duration {
        self.mtbf
    }

    /// The checkpoint interval of a job of `nodes` nodes running for `runtime`: Daly's τ for
    /// its checkpoint time, or `None` (no checkpoints) when τ exceeds the run time.
    pub fn interval(&self, nodes: u32, runtime: Duration) -> Option<Duration> {
        let tau = if nodes < LARGE_JOB_NODES {
            self.small
        } else {
            self.large
        };
        (tau <= runtime).then_some(tau)
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
        assert!(CheckpointPolicy::new(Duration(0)).is_err());
    }

    #[test]
    fn checkpoint_time_switches_at_1000_nodes() {
        assert_eq!(checkpoint_time(999), Duration(600));
        assert_eq!(checkpoint_time(1_000), Duration(1_200));
        let policy = CheckpointPolicy::new(Duration(86_400)).unwrap();
        assert_eq!(policy.mtbf(), Duration(86_400));
        assert_eq!(
            policy.interval(999, Duration(50_000)),
            Some(Duration(9_786))
        );
        assert_eq!(
            policy.interval(1_000, Duration(50_000)),
            Some(Duration(13_611))
        );
        // τ exceeds the run time: no checkpoints; τ equal to it: one at the end.
        assert_eq!(policy.interval(10, Duration(9_785)), None);
        assert_eq!(policy.interval(10, Duration(9_786)), Some(Duration(9_786)));
    }

    #[test]
    fn lost_work_is_time_since_last_checkpoint() {
        let tau = Some(Duration(1_000));
        assert_eq!(lost_work(Duration(0), tau), Duration(0));
        assert_eq!(lost_work(Duration(999), tau), Duration(999));
        assert_eq!(lost_work(Duration(1_000), tau), Duration(0));
        assert_eq!(lost_work(Duration(2_345), tau), Duration(345));
        assert_eq!(lost_work(Duration(2_345), None), Duration(2_345));
        assert_eq!(lost_work(Duration(-5), tau), Duration(0));
    }
}
