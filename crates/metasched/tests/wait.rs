//! The wait-time predictor against the rule its module documents, evaluated on scikit-learn's
//! DBSCAN and Ridge (fixtures made by `tests/fixtures/gen_wait.py`), and its invariants as
//! property tests. DBSCAN and ridge regression alone are tested in cosched-forecast.

use cosched_core::Duration;
use cosched_metasched::wait::{
    ClusteredWaitConfig, PredictionSource, QueueWaitPredictor, WaitFeatures,
};
use json::floats;
use proptest::prelude::*;
use serde_json::Value;

#[path = "support/json.rs"]
mod json;

fn fixture() -> Value {
    json::parse(include_str!("fixtures/wait_sklearn.json"))
}

fn rows<const D: usize>(v: &Value) -> Vec<[f64; D]> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| floats(r).try_into().unwrap())
        .collect()
}

/// The whole predictor against the rule its module documents, evaluated in Python on
/// scikit-learn's DBSCAN and Ridge: same cluster (or none) for every query, same wait.
#[test]
fn the_predictor_follows_its_documented_rule() {
    let mut compared = 0;
    for case in fixture()["predictor"].as_array().unwrap() {
        let mut p = ClusteredWaitConfig {
            eps: case["eps"].as_f64().unwrap(),
            min_pts: case["min_pts"].as_u64().unwrap() as usize,
            lambda: case["lambda"].as_f64().unwrap(),
            refit_every: 100_000,
            ..Default::default()
        }
        .build()
        .unwrap();
        let history = rows::<8>(&case["history"]);
        let longest = floats(&case["waits"]).into_iter().fold(0.0, f64::max);
        for (x, wait) in history.iter().zip(floats(&case["waits"])) {
            p.observe(&WaitFeatures::from_array(*x), Duration(wait as i64));
        }
        p.refit();
        let queries = rows::<8>(&case["queries"]);
        for (q, expected) in queries.iter().zip(case["expected"].as_array().unwrap()) {
            let (wait, source) = p.predict_detailed(&WaitFeatures::from_array(*q));
            let cluster = expected["cluster"].as_u64().map(|c| c as usize);
            match cluster {
                Some(c) => assert_eq!(source, PredictionSource::Cluster(c)),
                None => assert_eq!(source, PredictionSource::Regression),
            }
            // Ridge predictions are clipped to the history's waits (the fixture's are not).
            let mut want = expected["wait"].as_f64().unwrap();
            if cluster.is_none() {
                want = want.clamp(0.0, longest);
            }
            assert!(
                (wait - want).abs() <= 1e-6 * want.abs().max(1.0),
                "{wait} vs {want}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 160);
}

proptest! {
    #[test]
    fn predictions_are_non_negative_and_cluster_means_stay_within_the_observed_waits(
        jobs in prop::collection::vec(
            ((1u32..64, 0u32..8, 0u32..4), 0i64..20_000), 1..120),
        query in (1u32..64, 0u32..8, 0u32..4),
    ) {
        let mut p = ClusteredWaitConfig { refit_every: 7, min_pts: 3, ..Default::default() }
            .build()
            .unwrap();
        let features = |(cores, queued, busy): (u32, u32, u32)| WaitFeatures {
            cores: f64::from(cores),
            queued_cores: f64::from(queued) * 32.0,
            busy_cores: f64::from(busy) * 64.0,
            ..Default::default()
        };
        for &(f, wait) in &jobs {
            p.observe(&features(f), Duration(wait));
        }
        let (wait, source) = p.predict_detailed(&features(query));
        prop_assert!(wait >= 0.0);
        if let PredictionSource::Cluster(_) = source {
            let lo = jobs.iter().map(|j| j.1).min().unwrap() as f64;
            let hi = jobs.iter().map(|j| j.1).max().unwrap() as f64;
            prop_assert!(wait >= lo - 1e-9 && wait <= hi + 1e-9);
        }
        prop_assert_eq!(p.predict(&features(query)), Duration(wait.round() as i64));
    }

    #[test]
    fn scaling_a_coordinate_by_a_power_of_two_changes_no_prediction(
        jobs in prop::collection::vec((prop::array::uniform8(0u32..50), 0i64..10_000), 8..60),
        query in prop::array::uniform8(0u32..60),
        coordinate in 0usize..8,
        exponent in -20i32..20,
    ) {
        // Min–max scaling by the history makes the predictor blind to each coordinate's unit
        // (exactly so for powers of two, which commute with rounding).
        let factor = 2f64.powi(exponent);
        let point = |c: &[u32; 8], scaled: bool| {
            let mut x = c.map(f64::from);
            if scaled {
                x[coordinate] *= factor;
            }
            WaitFeatures::from_array(x)
        };
        for k in 0..8 {
            let first = jobs[0].0[k];
            prop_assume!(jobs.iter().any(|j| j.0[k] != first), "coordinate {} is constant", k);
        }
        let predict = |scaled: bool| {
            let mut p = ClusteredWaitConfig { refit_every: 5, min_pts: 3, eps: 0.5, ..Default::default() }
                .build()
                .unwrap();
            for (c, wait) in &jobs {
                p.observe(&point(c, scaled), Duration(*wait));
            }
            p.predict_detailed(&point(&query, scaled))
        };
        prop_assert_eq!(predict(false), predict(true));
    }
}
