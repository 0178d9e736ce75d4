//! The wait predictor's accuracy on a single machine's trace, as the paper's Fig. 2 measures
//! it (§5.1.1): the trace runs under EASY backfilling; at every submission the site's
//! predictor predicts the job's wait from the job's features at that instant (§3.1), and it is
//! told every start's actual wait as the start happens. The errors are then grouped by the
//! jobs' actual response times.

use crate::wait::{ClusteredWaitConfig, QueueWaitPredictor, WaitFeatures};
use cosched_batch::{BatchError, BatchSim, Easy};
use cosched_core::{Duration, ParamError, RigidJob};
use std::collections::HashMap;

/// One job of a replayed trace: when it was submitted, started and ended, its size and
/// estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SiteRun {
    /// Submission, s.
    pub submit: i64,
    /// Start, s.
    pub start: i64,
    /// End, s.
    pub end: i64,
    /// Cores.
    pub cores: f64,
    /// Runtime estimate, s.
    pub estimate: f64,
}

/// One prediction: the job's actual wait and response time and the predicted wait, seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// The actual wait.
    pub wait: f64,
    /// The actual response time (wait + run).
    pub response: f64,
    /// The predicted wait.
    pub predicted: f64,
}

impl Prediction {
    /// The absolute error of the prediction, seconds.
    pub fn error(&self) -> f64 {
        (self.predicted - self.wait).abs()
    }
}

/// Why a replay failed.
#[derive(Debug, thiserror::Error)]
pub enum AccuracyError {
    /// The predictor's parameters are invalid.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The machine refused the trace.
    #[error(transparent)]
    Batch(#[from] BatchError),
}

/// Job `j`'s point in feature space at its own submission: the jobs submitted before it and
/// not started yet are queued ahead of it, the jobs started and not ended are running. `runs`
/// sorted by submission. Cost: O(n) per job.
pub fn submission_features(runs: &[SiteRun], j: usize) -> WaitFeatures {
    let t = runs[j].submit;
    let mut f = WaitFeatures {
        cores: runs[j].cores,
        estimate: runs[j].estimate,
        ..Default::default()
    };
    for (i, r) in runs.iter().enumerate() {
        let ahead = r.submit < t || (r.submit == t && i < j);
        if ahead && r.start > t {
            f.queued_cores += r.cores;
            f.queued_estimate += r.estimate;
            f.queued_elapsed_wait += (t - r.submit) as f64;
        } else if r.start <= t && t < r.end && i != j {
            f.busy_cores += r.cores;
            f.running_elapsed += (t - r.start) as f64;
            f.running_estimate += r.estimate;
        }
    }
    f
}

/// Runs `jobs` on a machine of `cores` cores under EASY and returns each started job's run,
/// sorted by submission.
///
/// # Errors
/// [`BatchError`] for a machine of no cores or a job the machine refuses.
pub fn replay_easy(jobs: &[RigidJob], cores: u32) -> Result<Vec<SiteRun>, BatchError> {
    let out = BatchSim::new(cores)?.run(&mut Easy::default(), jobs)?;
    let estimates: HashMap<_, Duration> = jobs.iter().map(|j| (j.id, j.estimate)).collect();
    let mut runs: Vec<SiteRun> = out
        .records
        .iter()
        .filter_map(|r| {
            Some(SiteRun {
                submit: r.submit.secs(),
                start: r.start?.secs(),
                end: r.end?.secs(),
                cores: f64::from(r.size),
                estimate: estimates.get(&r.id)?.secs() as f64,
            })
        })
        .collect();
    runs.sort_by_key(|r| (r.submit, r.start));
    Ok(runs)
}

/// The predictions of a fresh predictor built from `config`, asked at every submission of
/// `runs` and told every start, in time order (a start at an instant is known to a prediction
/// at that instant). One prediction per run, in submission order.
///
/// # Errors
/// [`ParamError`] for an invalid `config`.
pub fn predict_online(
    runs: &[SiteRun],
    config: ClusteredWaitConfig,
) -> Result<Vec<Prediction>, ParamError> {
    let points: Vec<WaitFeatures> = (0..runs.len())
        .map(|j| submission_features(runs, j))
        .collect();
    let mut events: Vec<(i64, u8, usize)> = Vec::with_capacity(2 * runs.len());
    for (j, r) in runs.iter().enumerate() {
        events.push((r.start, 0, j));
        events.push((r.submit, 1, j));
    }
    events.sort_unstable();
    let mut predictor = config.build()?;
    let mut out = vec![
        Prediction {
            wait: 0.0,
            response: 0.0,
            predicted: 0.0
        };
        runs.len()
    ];
    for (_, kind, j) in events {
        let r = runs[j];
        let wait = (r.start - r.submit) as f64;
        if kind == 0 {
            predictor.observe(&points[j], Duration(wait as i64));
        } else {
            out[j] = Prediction {
                wait,
                response: (r.end - r.submit) as f64,
                predicted: predictor.predict(&points[j]).secs() as f64,
            };
        }
    }
    Ok(out)
}
