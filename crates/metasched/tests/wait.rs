//! The wait-time predictor's parts against scikit-learn (fixtures made by
//! `tests/fixtures/gen_wait.py`), and their invariants as property tests.

use cosched_core::Duration;
use cosched_metasched::wait::dbscan::{Clustering, Dbscan, manhattan};
use cosched_metasched::wait::ridge::{Ridge, RidgeError};
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

fn check_dbscan<const D: usize>(case: &Value) -> usize {
    let points = rows::<D>(&case["points"]);
    let mut checked = 0;
    for run in case["runs"].as_array().unwrap() {
        let eps = run["eps"].as_f64().unwrap();
        let min_pts = run["min_samples"].as_u64().unwrap() as usize;
        let ours = Dbscan::new(eps, min_pts).unwrap().fit(&points);
        let labels: Vec<Option<usize>> = run["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| usize::try_from(l.as_i64().unwrap()).ok())
            .collect();
        let core: Vec<bool> = run["core"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64() == Some(1))
            .collect();
        let name = case["name"].as_str().unwrap();
        assert_eq!(ours.labels(), labels, "{name} eps {eps} min_pts {min_pts}");
        for (i, &c) in core.iter().enumerate() {
            assert_eq!(ours.is_core(i), c, "{name}: core flag of point {i}");
        }
        checked += 1;
    }
    checked
}

#[test]
fn dbscan_reproduces_scikit_learn_labels_exactly() {
    let mut runs = 0;
    for case in fixture()["dbscan"].as_array().unwrap() {
        let dim = case["points"][0].as_array().unwrap().len();
        runs += match dim {
            2 => check_dbscan::<2>(case),
            8 => check_dbscan::<8>(case),
            other => panic!("no test for {other}-dimensional points"),
        };
    }
    assert_eq!(runs, 9);
}

#[test]
fn ridge_matches_scikit_learn() {
    let mut worst: f64 = 0.0;
    for case in fixture()["ridge"].as_array().unwrap() {
        let x = rows::<8>(&case["x"]);
        let y = floats(&case["y"]);
        for fit in case["fits"].as_array().unwrap() {
            let alpha = fit["alpha"].as_f64().unwrap();
            let ours = Ridge::new(alpha).unwrap().fit(&x, &y).unwrap();
            let coef = floats(&fit["coef"]);
            let intercept = fit["intercept"].as_f64().unwrap();
            for (a, b) in ours.coef.iter().zip(&coef) {
                let err = (a - b).abs() / b.abs().max(1e-3);
                worst = worst.max(err);
                assert!(err < 1e-7, "alpha {alpha}: coef {a} vs sklearn {b}");
            }
            let err = (ours.intercept - intercept).abs() / intercept.abs().max(1.0);
            worst = worst.max(err);
            assert!(
                err < 1e-7,
                "alpha {alpha}: intercept {} vs {intercept}",
                ours.intercept
            );
        }
    }
    println!("ridge vs scikit-learn: worst relative error {worst:.3e}");
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

/// The eps-neighbourhood of point `i`, by brute force.
fn neighbours(points: &[[f64; 2]], i: usize, eps: f64) -> Vec<usize> {
    (0..points.len())
        .filter(|&j| manhattan(&points[i], &points[j]) <= eps)
        .collect()
}

/// DBSCAN's defining properties, checked by brute force.
fn assert_dbscan_properties(points: &[[f64; 2]], eps: f64, min_pts: usize, c: &Clustering) {
    for i in 0..points.len() {
        let near = neighbours(points, i, eps);
        assert_eq!(c.is_core(i), near.len() >= min_pts, "core flag of {i}");
        let core_near: Vec<usize> = near.iter().copied().filter(|&j| c.is_core(j)).collect();
        match c.label(i) {
            None => assert!(core_near.is_empty(), "noise point {i} is density-reachable"),
            Some(label) => {
                // Every clustered point is within eps of a core point of its own cluster, and
                // a core point's core neighbours share its cluster.
                assert!(core_near.iter().any(|&j| c.label(j) == Some(label)));
                if c.is_core(i) {
                    assert!(core_near.iter().all(|&j| c.label(j) == Some(label)));
                }
            }
        }
    }
    for label in 0..c.cluster_count() {
        assert!(
            c.labels().contains(&Some(label)),
            "cluster {label} is empty"
        );
    }
}

fn grid_points() -> impl Strategy<Value = Vec<[f64; 2]>> {
    // Integer grid coordinates make exact-eps ties frequent, the hard case.
    prop::collection::vec((0..12i32, 0..12i32), 0..40).prop_map(|v| {
        v.into_iter()
            .map(|(a, b)| [f64::from(a), f64::from(b)])
            .collect()
    })
}

proptest! {
    #[test]
    fn dbscan_satisfies_its_definition(
        points in grid_points(), eps in 0.5f64..4.0, min_pts in 1usize..6,
    ) {
        let c = Dbscan::new(eps, min_pts).unwrap().fit(&points);
        assert_dbscan_properties(&points, eps, min_pts, &c);
    }

    #[test]
    fn dbscan_is_invariant_under_permutation_up_to_relabelling(
        (points, perm) in grid_points().prop_flat_map(|p| {
            let n = p.len();
            (Just(p), Just((0..n).collect::<Vec<usize>>()).prop_shuffle())
        }),
        eps in 0.5f64..4.0,
        min_pts in 1usize..6,
    ) {
        let dbscan = Dbscan::new(eps, min_pts).unwrap();
        let a = dbscan.fit(&points);
        let shuffled: Vec<[f64; 2]> = perm.iter().map(|&i| points[i]).collect();
        let b = dbscan.fit(&shuffled);
        prop_assert_eq!(a.cluster_count(), b.cluster_count());
        // Core flags and noise do not depend on the order; clusters of core points match one
        // to one (border points between two clusters may legitimately switch).
        let mut map = vec![None; a.cluster_count()];
        for (k, &i) in perm.iter().enumerate() {
            prop_assert_eq!(a.is_core(i), b.is_core(k));
            prop_assert_eq!(a.label(i).is_none(), b.label(k).is_none());
            if a.is_core(i) {
                let (la, lb) = (a.label(i).unwrap(), b.label(k).unwrap());
                prop_assert_eq!(*map[la].get_or_insert(lb), lb);
            }
        }
    }

    #[test]
    fn ridge_without_penalty_recovers_exact_linear_data(
        coef in prop::array::uniform3(-100.0f64..100.0),
        intercept in -1e3f64..1e3,
        x in prop::collection::vec(prop::array::uniform3(-10.0f64..10.0), 12..60),
    ) {
        let y: Vec<f64> = x
            .iter()
            .map(|r| intercept + r.iter().zip(&coef).map(|(a, b)| a * b).sum::<f64>())
            .collect();
        match Ridge::new(0.0).unwrap().fit(&x, &y) {
            Ok(fit) => {
                for (got, want) in fit.coef.iter().zip(&coef) {
                    prop_assert!((got - want).abs() < 1e-6 * want.abs().max(1.0), "{got} vs {want}");
                }
                prop_assert!((fit.intercept - intercept).abs() < 1e-6 * intercept.abs().max(1.0));
            }
            // Random rows can be (numerically) collinear; the solver must then say so.
            Err(e) => prop_assert_eq!(e, RidgeError::Singular),
        }
    }

    #[test]
    fn ridge_shrinks_the_coefficients_as_lambda_grows(
        x in prop::collection::vec(prop::array::uniform3(-10.0f64..10.0), 5..40),
        y_noise in prop::collection::vec(-50.0f64..50.0, 40),
        lambda in 0.01f64..100.0,
    ) {
        let y = &y_noise[..x.len()];
        let norm = |l: f64| {
            let fit = Ridge::new(l).unwrap().fit(&x, y).unwrap();
            fit.coef.iter().map(|c| c * c).sum::<f64>()
        };
        prop_assert!(norm(2.0 * lambda) <= norm(lambda) * (1.0 + 1e-9) + 1e-12);
    }

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
