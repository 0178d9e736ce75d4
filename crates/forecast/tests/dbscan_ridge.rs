//! DBSCAN and ridge regression against scikit-learn (fixtures made by cosched-metasched's
//! `tests/fixtures/gen_wait.py`, which draws them in the same run as its wait-predictor
//! oracle), and their invariants as property tests.

use cosched_forecast::dbscan::{Clustering, Dbscan, manhattan};
use cosched_forecast::ridge::{Ridge, RidgeError};
use proptest::prelude::*;
use serde::Deserialize;

/// `fixtures/dbscan_ridge_sklearn.json`.
#[derive(Deserialize)]
struct Fixture {
    dbscan: Vec<DbscanCase>,
    ridge: Vec<RidgeCase>,
}

/// Points of one dimension and scikit-learn's clusterings of them.
#[derive(Deserialize)]
struct DbscanCase {
    name: String,
    points: Vec<Vec<f64>>,
    runs: Vec<DbscanRun>,
}

#[derive(Deserialize)]
struct DbscanRun {
    eps: f64,
    min_samples: usize,
    /// Cluster labels, −1 for noise.
    labels: Vec<i64>,
    /// 1 for a core point.
    core: Vec<u8>,
}

/// Rows of 8 features, targets, and scikit-learn's fits for several penalties.
#[derive(Deserialize)]
struct RidgeCase {
    x: Vec<[f64; 8]>,
    y: Vec<f64>,
    fits: Vec<RidgeFitted>,
}

#[derive(Deserialize)]
struct RidgeFitted {
    alpha: f64,
    coef: Vec<f64>,
    intercept: f64,
}

fn fixture() -> Fixture {
    serde_json::from_str(include_str!("fixtures/dbscan_ridge_sklearn.json"))
        .expect("the fixture matches its schema")
}

fn check_dbscan<const D: usize>(case: &DbscanCase) -> usize {
    let points: Vec<[f64; D]> = case
        .points
        .iter()
        .map(|p| p.as_slice().try_into().expect("rows of one width"))
        .collect();
    for run in &case.runs {
        let (eps, min_pts, name) = (run.eps, run.min_samples, &case.name);
        let ours = Dbscan::new(eps, min_pts).unwrap().fit(&points);
        let labels: Vec<Option<usize>> = run
            .labels
            .iter()
            .map(|&l| usize::try_from(l).ok())
            .collect();
        assert_eq!(ours.labels(), labels, "{name} eps {eps} min_pts {min_pts}");
        for (i, &c) in run.core.iter().enumerate() {
            assert_eq!(ours.is_core(i), c == 1, "{name}: core flag of point {i}");
        }
    }
    case.runs.len()
}

#[test]
fn dbscan_reproduces_scikit_learn_labels_exactly() {
    let mut runs = 0;
    for case in &fixture().dbscan {
        runs += match case.points.first().map_or(0, Vec::len) {
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
    for case in &fixture().ridge {
        for fit in &case.fits {
            let alpha = fit.alpha;
            let ours = Ridge::new(alpha).unwrap().fit(&case.x, &case.y).unwrap();
            for (a, b) in ours.coef.iter().zip(&fit.coef) {
                let err = (a - b).abs() / b.abs().max(1e-3);
                worst = worst.max(err);
                assert!(err < 1e-7, "alpha {alpha}: coef {a} vs sklearn {b}");
            }
            let intercept = fit.intercept;
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
}
