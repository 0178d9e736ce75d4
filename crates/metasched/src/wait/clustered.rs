//! The paper's wait-time predictor: a job is a point of [`WaitFeatures`]; it is compared by
//! Manhattan distance with the last 2,000 jobs that started at the site; those are grouped by
//! DBSCAN, and a job that falls close to a group gets the distance-weighted mean wait of that
//! group, any other job the prediction of a ridge regression over the whole history.
//!
//! ## Choices of this implementation
//! (where the description the code was written from does not fix them)
//! - **Normalisation.** The eight coordinates live on scales that differ by orders of magnitude
//!   (cores in units to thousands, the queue and machine sums in seconds up to 10⁷ and more),
//!   so raw Manhattan distances would be the running-time sums and nothing else. Each
//!   coordinate is therefore mapped onto `[0, 1]` by the **minimum and range of the current
//!   history** (min–max scaling, recomputed at every refit): every coordinate then weighs the
//!   same, a distance is "how many full history spreads apart", and `eps` keeps one meaning
//!   across sites and over time. Min–max rather than standard scores because a Manhattan ball
//!   sums coordinates: bounded per-coordinate contributions keep one heavy-tailed coordinate
//!   (queued wait sums are) from swamping the rest. A coordinate that is constant over the
//!   history has no range; it is divided by `max(|value|, 1)` instead, so a query that differs
//!   there is still seen as distant. Queries outside the history's range map outside `[0, 1]`.
//!   The ridge regression works on the same scaled coordinates, so `lambda` is unit-free too.
//! - **Weights.** [`FeatureWeighting::Range`] (the [`Default`]) leaves the scaled coordinates
//!   as they are; [`FeatureWeighting::Correlation`] (the [paper configuration](ClusteredWaitConfig::paper))
//!   multiplies each by its weight from [`correlation_weights`],
//!   refitted with the scaling, so that the distance is the published predictor's weighted
//!   mean and a feature that does not correlate with the wait does not count.
//! - **"Close to a cluster".** The query would be a member of a cluster if it were added to the
//!   history: it lies within `eps` of one of the cluster's core points (the nearest such core
//!   point decides when several clusters qualify).
//! - **Weighted mean.** Every member `i` of that cluster (core and border) weighs
//!   `1 / (d(q, xᵢ) + eps)`: inverse-distance weighting softened by `eps` so that an exact
//!   duplicate does not take all the weight.
//! - **Refitting.** Scaling, DBSCAN and the regression are refitted in
//!   [`observe`](QueueWaitPredictor::observe) every `refit_every` observations (and at the
//!   first observation that brings the history to `min_pts` jobs), never in `predict`, which
//!   costs one scan of the history's coordinate-sum window plus one pass over a cluster.
//!   Observations after the last refit wait in the history until the next one.
//! - **Little history.** With no job seen the prediction is 0 s (nothing suggests a wait);
//!   before the first fit it is the mean wait observed so far; if the regression cannot be
//!   fitted (only with `lambda = 0` and collinear history) the history's mean wait is used in
//!   its place. Predictions are never negative. Observations with a non-finite coordinate are
//!   ignored, negative waits count as 0 s.
//!
//! On the paper's grid trace run at the submission sites under EASY (`tests/wait_accuracy.rs`)
//! the defaults give a mean absolute error of 78.5 min over 4,100 jobs, against 82.2 min for
//! predicting no wait and 100.9 min for the running mean wait.
//!
//! ```
//! use cosched_core::Duration;
//! use cosched_metasched::wait::{ClusteredWaitConfig, QueueWaitPredictor, WaitFeatures};
//!
//! let mut predictor = ClusteredWaitConfig { refit_every: 10, ..Default::default() }.build().unwrap();
//! let small = WaitFeatures { cores: 1.0, estimate: 600.0, ..Default::default() };
//! let busy = WaitFeatures { cores: 64.0, estimate: 36_000.0, queued_cores: 512.0, ..small };
//! for _ in 0..20 {
//!     predictor.observe(&small, Duration(60));
//!     predictor.observe(&busy, Duration(7_200));
//! }
//! assert_eq!(predictor.predict(&small), Duration(60));
//! assert_eq!(predictor.predict(&busy), Duration(7_200));
//! ```

use super::{QueueWaitPredictor, WaitFeatures};
use cosched_core::{Duration, ParamError};
use cosched_forecast::correlation::correlation_weights;
use cosched_forecast::dbscan::{Clustering, Dbscan, SumIndex, manhattan};
use cosched_forecast::ridge::{Ridge, RidgeFit};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

const DIM: usize = WaitFeatures::DIMENSIONS;

/// How the predictor weighs the range-scaled coordinates of [`WaitFeatures`] in its distance
/// and regression.
///
/// The paper's published predictor weighs each feature by the absolute value of its Spearman
/// rank correlation with the wait over the history, and measures the distance between two jobs
/// as the weighted mean of the per-feature distances, `Σ wₖ dₖ / Σ wₖ`
/// ([`correlation_weights`] gives the weights normalised to sum 1, so that the Manhattan
/// distance of weighted coordinates is that mean).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FeatureWeighting {
    /// Every coordinate weighs 1: a distance is the sum of the range-scaled coordinate
    /// differences (at most 8 within the history).
    #[default]
    Range,
    /// Each coordinate weighs `|ρₛ(feature, wait)| / Σ|ρₛ|` over the history (the published
    /// predictor's correlation weights): a distance is the weighted mean of the range-scaled
    /// coordinate differences (at most 1 within the history).
    Correlation,
}

/// The predictor's parameters; [`Default`] gives the paper's history of 2,000 jobs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClusteredWaitConfig {
    /// How many of the most recently started jobs are remembered (the paper: 2,000).
    pub history: usize,
    /// DBSCAN's radius, in scaled Manhattan units (each coordinate spans `[0, 1]` over the
    /// history, so the largest possible distance within the history is 8).
    pub eps: f64,
    /// DBSCAN's core-point neighbourhood size (the point itself included).
    pub min_pts: usize,
    /// The ridge penalty on the scaled coordinates.
    pub lambda: f64,
    /// Refit after this many observations.
    pub refit_every: usize,
    /// How the range-scaled coordinates are weighted in distances and the regression.
    pub weighting: FeatureWeighting,
}

impl Default for ClusteredWaitConfig {
    /// 2,000 jobs of history, `eps` 0.2, `min_pts` 5 (scikit-learn's default), `lambda` 1,
    /// refit every 50 observations. `eps`, `min_pts`, `lambda` and `refit_every` are this
    /// implementation's choices, not values taken from the paper.
    fn default() -> Self {
        ClusteredWaitConfig {
            history: 2_000,
            eps: 0.2,
            min_pts: 5,
            lambda: 1.0,
            refit_every: 50,
            weighting: FeatureWeighting::Range,
        }
    }
}

impl ClusteredWaitConfig {
    /// The parameters of the paper's published predictor code: DBSCAN `eps` 0.04 and
    /// `min_samples` 2, ridge `alpha` 0.1, features weighted by their rank correlation with
    /// the wait ([`FeatureWeighting::Correlation`]: distances are weighted means of the
    /// range-scaled coordinate differences, as the published `Σ wₖdₖ / Σ wₖ`), over the last
    /// 2,000 jobs (§4.3.2), refit every 50 observations (ours). The published code takes the
    /// square root of that mean and clusters the 1 % nearest jobs in the plane of (distance,
    /// wait); this implementation clusters the weighted feature space itself (see the module
    /// docs), so `eps` applies to the weighted mean distance.
    pub fn paper() -> Self {
        ClusteredWaitConfig {
            history: 2_000,
            eps: 0.04,
            min_pts: 2,
            lambda: 0.1,
            refit_every: 50,
            weighting: FeatureWeighting::Correlation,
        }
    }

    /// Validates the parameters.
    ///
    /// # Errors
    /// [`ParamError`] naming the first bad one: `history` or `refit_every` 0, `min_pts` 0 or
    /// above `history`, `eps` not finite and `> 0`, `lambda` negative or not finite.
    pub fn build(self) -> Result<ClusteredWaitPredictor, ParamError> {
        ParamError::check(self.history >= 1, "history", self.history, "must be >= 1")?;
        ParamError::check(
            self.refit_every >= 1,
            "refit_every",
            self.refit_every,
            "must be >= 1",
        )?;
        let dbscan = Dbscan::new(self.eps, self.min_pts)?;
        ParamError::check(
            self.min_pts <= self.history,
            "min_pts",
            self.min_pts,
            "must be <= history",
        )?;
        let ridge = Ridge::new(self.lambda)?;
        Ok(ClusteredWaitPredictor {
            config: self,
            dbscan,
            ridge,
            history: VecDeque::with_capacity(self.history),
            since_fit: 0,
            fitted: Vec::new(),
            model: None,
        })
    }
}

/// Which rule produced a prediction ([`ClusteredWaitPredictor::predict_detailed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredictionSource {
    /// No job observed yet: 0 s.
    NoHistory,
    /// Before the first fit, or when the regression could not be fitted: the mean wait.
    MeanWait,
    /// The weighted mean wait of this DBSCAN cluster of the last fit.
    Cluster(usize),
    /// The ridge regression of the last fit.
    Regression,
}

/// The paper's per-site wait predictor (see the module docs); build it with
/// [`ClusteredWaitConfig::build`].
///
/// Its state serialises as its configuration, its history and the observations of its last
/// fit; deserialising refits those (the fit is deterministic), so a restored predictor
/// predicts exactly as the one saved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PredictorState", into = "PredictorState")]
pub struct ClusteredWaitPredictor {
    config: ClusteredWaitConfig,
    dbscan: Dbscan,
    ridge: Ridge,
    /// The most recent observations, oldest first: (raw coordinates, wait in seconds).
    history: VecDeque<Observation>,
    /// Observations since the last fit.
    since_fit: usize,
    /// The history the model was last fitted on (empty before the first fit).
    fitted: Vec<Observation>,
    model: Option<Model>,
}

/// One remembered start: raw coordinates and the wait in seconds.
type Observation = ([f64; DIM], f64);

/// The serialised form of [`ClusteredWaitPredictor`].
#[derive(Serialize, Deserialize)]
struct PredictorState {
    config: ClusteredWaitConfig,
    history: VecDeque<Observation>,
    since_fit: usize,
    fitted: Vec<Observation>,
}

impl From<ClusteredWaitPredictor> for PredictorState {
    fn from(p: ClusteredWaitPredictor) -> PredictorState {
        PredictorState {
            config: p.config,
            history: p.history,
            since_fit: p.since_fit,
            fitted: p.fitted,
        }
    }
}

impl TryFrom<PredictorState> for ClusteredWaitPredictor {
    type Error = ParamError;

    fn try_from(s: PredictorState) -> Result<ClusteredWaitPredictor, ParamError> {
        let mut p = s.config.build()?;
        let finite = |o: &Observation| o.0.iter().all(|x| x.is_finite()) && o.1.is_finite();
        ParamError::check(
            s.history.len() <= s.config.history
                && s.fitted.len() <= s.config.history
                && s.history.iter().chain(&s.fitted).all(finite),
            "history",
            s.history.len(),
            "must hold at most `history` finite observations",
        )?;
        if !s.fitted.is_empty() {
            p.history = s.fitted.into();
            p.refit();
        }
        p.history = s.history;
        p.since_fit = s.since_fit;
        Ok(p)
    }
}

/// Everything `predict` needs, frozen at the last refit.
#[derive(Clone, Debug, PartialEq)]
struct Model {
    scaling: Scaling,
    points: Vec<[f64; DIM]>,
    waits: Vec<f64>,
    mean_wait: f64,
    index: SumIndex,
    clustering: Clustering,
    /// Per cluster, its member point indices.
    members: Vec<Vec<usize>>,
    regression: Option<RidgeFit<DIM>>,
}

/// Per-coordinate min–max scaling (see the module docs), times the coordinate's weight.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Scaling {
    offset: [f64; DIM],
    inverse_spread: [f64; DIM],
}

impl Scaling {
    fn of(points: impl Iterator<Item = [f64; DIM]>) -> Scaling {
        let mut lo = [f64::INFINITY; DIM];
        let mut hi = [f64::NEG_INFINITY; DIM];
        for p in points {
            for k in 0..DIM {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        Scaling {
            offset: lo,
            inverse_spread: std::array::from_fn(|k| {
                let range = hi[k] - lo[k];
                if range > 0.0 {
                    1.0 / range
                } else {
                    1.0 / lo[k].abs().max(1.0)
                }
            }),
        }
    }

    fn apply(&self, p: &[f64; DIM]) -> [f64; DIM] {
        std::array::from_fn(|k| (p[k] - self.offset[k]) * self.inverse_spread[k])
    }
}

impl ClusteredWaitPredictor {
    /// The parameters it was built with.
    pub fn config(&self) -> &ClusteredWaitConfig {
        &self.config
    }

    /// Observations currently remembered (at most `history`).
    pub fn history_len(&self) -> usize {
        self.history.len()
    }

    /// The number of DBSCAN clusters at the last fit (0 before the first).
    pub fn cluster_count(&self) -> usize {
        self.model
            .as_ref()
            .map_or(0, |m| m.clustering.cluster_count())
    }

    /// Refits scaling, clusters and regression to the current history now, rather than at the
    /// next scheduled refit. Cost: DBSCAN over the history, `O(n²)` distances at worst.
    pub fn refit(&mut self) {
        self.since_fit = 0;
        self.fitted.clear();
        if self.history.is_empty() {
            self.model = None;
            return;
        }
        self.fitted.extend(self.history.iter().copied());
        let mut scaling = Scaling::of(self.history.iter().map(|(p, _)| *p));
        if self.config.weighting == FeatureWeighting::Correlation {
            let (raw, waits): (Vec<[f64; DIM]>, Vec<f64>) = self.history.iter().copied().unzip();
            let weights = correlation_weights(&raw, &waits);
            for (inverse, weight) in scaling.inverse_spread.iter_mut().zip(weights) {
                *inverse *= weight;
            }
        }
        let points: Vec<[f64; DIM]> = self.history.iter().map(|(p, _)| scaling.apply(p)).collect();
        let waits: Vec<f64> = self.history.iter().map(|(_, w)| *w).collect();
        let (clustering, index) = self.dbscan.fit_with_index(&points);
        let mut members = vec![Vec::new(); clustering.cluster_count()];
        for (i, label) in clustering.labels().iter().enumerate() {
            if let Some(c) = label {
                members[*c].push(i);
            }
        }
        let mean_wait = waits.iter().sum::<f64>() / waits.len() as f64;
        let regression = self.ridge.fit(&points, &waits).ok();
        self.model = Some(Model {
            scaling,
            points,
            waits,
            mean_wait,
            index,
            clustering,
            members,
            regression,
        });
    }

    /// The prediction in seconds (not rounded) and the rule that made it.
    pub fn predict_detailed(&self, features: &WaitFeatures) -> (f64, PredictionSource) {
        let Some(model) = &self.model else {
            if self.history.is_empty() {
                return (0.0, PredictionSource::NoHistory);
            }
            let mean = self.history.iter().map(|(_, w)| w).sum::<f64>() / self.history.len() as f64;
            return (mean, PredictionSource::MeanWait);
        };
        let q = model.scaling.apply(&features.to_array());
        let eps = self.dbscan.eps();
        let nearest_core = model
            .index
            .window(SumIndex::key(&q), eps)
            .iter()
            .filter(|&&i| model.clustering.is_core(i))
            .map(|&i| (manhattan(&q, &model.points[i]), i))
            .filter(|&(d, _)| d <= eps)
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        // A core point always has a cluster.
        if let Some(cluster) = nearest_core.and_then(|(_, core)| model.clustering.label(core)) {
            let (mut sum, mut weight) = (0.0, 0.0);
            for &i in &model.members[cluster] {
                let w = 1.0 / (manhattan(&q, &model.points[i]) + eps);
                sum += w * model.waits[i];
                weight += w;
            }
            return (sum / weight, PredictionSource::Cluster(cluster));
        }
        match &model.regression {
            // Clipped to the waits the history has seen: one extrapolated outlier would
            // otherwise stretch a cycle's response-time range and flatten every other job's
            // response-time term (Eq. 4's normalisation).
            Some(fit) if q.iter().all(|x| x.is_finite()) => {
                let longest = model.waits.iter().copied().fold(0.0, f64::max);
                (
                    fit.predict(&q).clamp(0.0, longest),
                    PredictionSource::Regression,
                )
            }
            _ => (model.mean_wait, PredictionSource::MeanWait),
        }
    }
}

impl QueueWaitPredictor for ClusteredWaitPredictor {
    /// The prediction of [`predict_detailed`](ClusteredWaitPredictor::predict_detailed),
    /// rounded to whole seconds.
    fn predict(&self, features: &WaitFeatures) -> Duration {
        let (secs, _) = self.predict_detailed(features);
        Duration(secs.round() as i64)
    }

    fn observe(&mut self, features: &WaitFeatures, actual: Duration) {
        let point = features.to_array();
        if point.iter().any(|x| !x.is_finite()) {
            return;
        }
        if self.history.len() == self.config.history {
            self.history.pop_front();
        }
        self.history.push_back((point, actual.secs().max(0) as f64));
        self.since_fit += 1;
        let first_fit = self.model.is_none() && self.history.len() >= self.config.min_pts;
        if first_fit || self.since_fit >= self.config.refit_every {
            self.refit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features(cores: f64, queued_cores: f64) -> WaitFeatures {
        WaitFeatures {
            cores,
            queued_cores,
            ..Default::default()
        }
    }

    #[test]
    fn parameters_are_validated() {
        let bad = |c: ClusteredWaitConfig| c.build().unwrap_err().name;
        let ok = ClusteredWaitConfig::default();
        assert_eq!(bad(ClusteredWaitConfig { history: 0, ..ok }), "history");
        assert_eq!(
            bad(ClusteredWaitConfig {
                refit_every: 0,
                ..ok
            }),
            "refit_every"
        );
        assert_eq!(bad(ClusteredWaitConfig { eps: -1.0, ..ok }), "eps");
        assert_eq!(bad(ClusteredWaitConfig { min_pts: 0, ..ok }), "min_pts");
        assert_eq!(
            bad(ClusteredWaitConfig {
                history: 3,
                min_pts: 4,
                ..ok
            }),
            "min_pts"
        );
        assert_eq!(bad(ClusteredWaitConfig { lambda: -0.5, ..ok }), "lambda");
    }

    #[test]
    fn little_history_falls_back_to_zero_then_the_mean() {
        let mut p = ClusteredWaitConfig::default().build().unwrap();
        let f = features(1.0, 0.0);
        assert_eq!(p.predict_detailed(&f), (0.0, PredictionSource::NoHistory));
        p.observe(&f, Duration(100));
        p.observe(&features(2.0, 0.0), Duration(-5)); // counts as 0
        p.observe(&features(f64::NAN, 0.0), Duration(1_000_000)); // ignored
        assert_eq!(p.history_len(), 2);
        assert_eq!(p.predict_detailed(&f), (50.0, PredictionSource::MeanWait));
        assert_eq!(p.cluster_count(), 0);
    }

    #[test]
    fn history_is_a_ring_of_the_latest_jobs() {
        let mut p = ClusteredWaitConfig {
            history: 5,
            min_pts: 2,
            refit_every: 1,
            ..Default::default()
        }
        .build()
        .unwrap();
        for i in 0..5 {
            p.observe(&features(1.0, 0.0), Duration(10 + i));
        }
        for _ in 0..5 {
            p.observe(&features(1.0, 0.0), Duration(1_000));
        }
        assert_eq!(p.history_len(), 5);
        assert_eq!(p.predict(&features(1.0, 0.0)), Duration(1_000));
    }

    #[test]
    fn a_query_far_from_every_cluster_goes_to_the_regression() {
        let mut p = ClusteredWaitConfig {
            refit_every: 1_000,
            eps: 0.01,
            min_pts: 3,
            lambda: 1e-9,
            ..Default::default()
        }
        .build()
        .unwrap();
        // Waits grow linearly with the queued cores; no two of the 40 jobs are within eps.
        for i in 0..40 {
            let f = features(1.0 + f64::from(i % 2), f64::from(i) * 100.0);
            p.observe(&f, Duration(i64::from(i) * 60));
        }
        p.refit();
        let (wait, source) = p.predict_detailed(&features(1.0, 1_950.0));
        assert_eq!(source, PredictionSource::Regression);
        assert!((wait - 1_170.0).abs() < 1e-3, "{wait}");
    }
}
