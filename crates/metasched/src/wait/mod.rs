//! Wait-time prediction: the point a queued job is in the paper's feature space, the
//! interface every per-site wait predictor implements, and the paper's predictor.
//!
//! The paper's wait-time prediction (the part of its metascheduler that predicts each job's
//! queue wait at every candidate system; section numbers are not cited, this was written from
//! the paper's description) describes a job by its own request, the state of the site's queue
//! and the state of its machine at submission, and compares that point with the jobs the site
//! has already started:
//!
//! - [`ClusteredWaitPredictor`]: the paper's predictor — Manhattan distance to the last 2,000
//!   started jobs, DBSCAN clusters, the weighted mean wait of a close cluster, else ridge
//!   regression (its module docs give the choices the paper leaves open);
//! - [`FeatureWeighting`]: range scaling alone, or the published predictor's correlation
//!   weights.
//!
//! The learners it is built from — DBSCAN under the Manhattan distance (label for label as
//! scikit-learn's), ridge regression in closed form (as scikit-learn's `Ridge`) and the rank
//! correlation weights — are in `cosched-forecast` ([`cosched_forecast::dbscan`],
//! [`cosched_forecast::ridge`], [`cosched_forecast::correlation`]).

mod clustered;

pub use clustered::{
    ClusteredWaitConfig, ClusteredWaitPredictor, FeatureWeighting, PredictionSource,
};

use cosched_core::Duration;

/// A job's position in the wait-prediction feature space at one site and instant.
///
/// All quantities are plain `f64` so that distances and regressions need no conversions:
/// sizes in cores, times in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WaitFeatures {
    /// Cores the job requests.
    pub cores: f64,
    /// The job's runtime estimate at this site, in seconds.
    pub estimate: f64,
    /// Sum of the cores requested by the jobs queued ahead of it.
    pub queued_cores: f64,
    /// Sum of the runtime estimates of the queued jobs, in seconds.
    pub queued_estimate: f64,
    /// Sum of the time the queued jobs have already waited, in seconds.
    pub queued_elapsed_wait: f64,
    /// Cores occupied by running jobs.
    pub busy_cores: f64,
    /// Sum of the time the running jobs have already run, in seconds.
    pub running_elapsed: f64,
    /// Sum of the runtime estimates of the running jobs, in seconds.
    pub running_estimate: f64,
}

impl WaitFeatures {
    /// Number of coordinates.
    pub const DIMENSIONS: usize = 8;

    /// The coordinates in declaration order.
    pub fn to_array(&self) -> [f64; Self::DIMENSIONS] {
        [
            self.cores,
            self.estimate,
            self.queued_cores,
            self.queued_estimate,
            self.queued_elapsed_wait,
            self.busy_cores,
            self.running_elapsed,
            self.running_estimate,
        ]
    }

    /// The features of a job of `cores` cores and runtime estimate `estimate` (at the site)
    /// asked about at `now` at a site whose queue holds `queued` jobs (cores, estimate,
    /// submission to the site) and which runs `running` jobs (cores, start, estimate): the
    /// paper's eight features (§3.1). Public so that a live metascheduler feeds its predictors
    /// exactly what the simulator does, from a site's queue and job listing.
    ///
    /// ```
    /// use cosched_core::{Duration, Time};
    /// use cosched_metasched::wait::WaitFeatures;
    ///
    /// let f = WaitFeatures::at_site(
    ///     4,
    ///     Duration(600),
    ///     Time(100),
    ///     [(8, Duration(60), Time(40))],
    ///     [(16, Time(0), Duration(300))],
    /// );
    /// assert_eq!(f.to_array(), [4.0, 600.0, 8.0, 60.0, 60.0, 16.0, 100.0, 300.0]);
    /// ```
    pub fn at_site(
        cores: u32,
        estimate: Duration,
        now: cosched_core::Time,
        queued: impl IntoIterator<Item = (u32, Duration, cosched_core::Time)>,
        running: impl IntoIterator<Item = (u32, cosched_core::Time, Duration)>,
    ) -> WaitFeatures {
        let mut f = WaitFeatures {
            cores: f64::from(cores),
            estimate: estimate.secs() as f64,
            queued_cores: 0.0,
            queued_estimate: 0.0,
            queued_elapsed_wait: 0.0,
            busy_cores: 0.0,
            running_elapsed: 0.0,
            running_estimate: 0.0,
        };
        for (cores, estimate, submit) in queued {
            f.queued_cores += f64::from(cores);
            f.queued_estimate += estimate.secs() as f64;
            f.queued_elapsed_wait += now.secs().saturating_sub(submit.secs()) as f64;
        }
        for (cores, start, estimate) in running {
            f.busy_cores += f64::from(cores);
            f.running_elapsed += now.secs().saturating_sub(start.secs()) as f64;
            f.running_estimate += estimate.secs() as f64;
        }
        f
    }

    /// The point whose coordinates, in declaration order, are `c` (inverse of
    /// [`to_array`](Self::to_array)).
    pub fn from_array(c: [f64; Self::DIMENSIONS]) -> WaitFeatures {
        WaitFeatures {
            cores: c[0],
            estimate: c[1],
            queued_cores: c[2],
            queued_estimate: c[3],
            queued_elapsed_wait: c[4],
            busy_cores: c[5],
            running_elapsed: c[6],
            running_estimate: c[7],
        }
    }
}

/// A per-site wait predictor that learns from the waits it sees.
///
/// A simulator (or a live service) keeps one per site: it asks [`predict`](Self::predict) for a
/// candidate job and, when a job actually starts at the site, reports the wait it had with
/// [`observe`](Self::observe), using the features the job had when it was submitted there.
pub trait QueueWaitPredictor {
    /// The predicted wait of a job at `features`.
    fn predict(&self, features: &WaitFeatures) -> Duration;
    /// Learn that a job submitted at `features` waited `actual` before it started.
    fn observe(&mut self, features: &WaitFeatures, actual: Duration);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_follow_declaration_order() {
        let f = WaitFeatures {
            cores: 1.0,
            estimate: 2.0,
            queued_cores: 3.0,
            queued_estimate: 4.0,
            queued_elapsed_wait: 5.0,
            busy_cores: 6.0,
            running_elapsed: 7.0,
            running_estimate: 8.0,
        };
        assert_eq!(f.to_array(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        assert_eq!(WaitFeatures::from_array(f.to_array()), f);
    }
}
