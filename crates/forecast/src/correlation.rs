//! Feature weights from rank correlations: how much each coordinate of a feature space says
//! about a target, the weighting of the published wait-time predictor of Murali and Vadhiyar
//! (`cosched-metasched`'s `FeatureWeighting::Correlation`).
//!
//! Each feature weighs the absolute value of its Spearman rank correlation with the target over
//! the rows (an undefined correlation — a constant feature or a constant target — weighs 0; if
//! every feature weighs 0 they all weigh the same). [`correlation_weights`] returns the weights
//! normalised to sum 1, so that the Manhattan distance of weighted coordinates is the weighted
//! mean `Σ wₖ dₖ / Σ wₖ` of the per-feature distances. The ranks and correlations are computed
//! on an `ndarray` matrix of the rows: `O(D·n log n)` for `n` rows of `D` features.

use ndarray::{Array1, Array2, ArrayView1, Axis};

/// Per-coordinate weights `|ρₛ(xₖ, target)| / Σⱼ|ρₛ(xⱼ, target)|` over the rows of `points`
/// and the matching entries of `targets` (see the module docs); uniform `1/D` when no
/// coordinate correlates or there are fewer than two rows.
///
/// ```
/// use cosched_forecast::correlation::correlation_weights;
///
/// // The first coordinate orders the targets exactly, the second is constant.
/// let points = [[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]];
/// let weights = correlation_weights(&points, &[10.0, 20.0, 30.0]);
/// assert_eq!(weights, [1.0, 0.0]);
/// ```
pub fn correlation_weights<const D: usize>(points: &[[f64; D]], targets: &[f64]) -> [f64; D] {
    let uniform = [1.0 / D as f64; D];
    let n = points.len().min(targets.len());
    if n < 2 {
        return uniform;
    }
    let mut x = Array2::<f64>::zeros((n, D));
    for (mut row, p) in x.axis_iter_mut(Axis(0)).zip(points) {
        row.assign(&ArrayView1::from(&p[..]));
    }
    let target_ranks = ranks(ArrayView1::from(&targets[..n]));
    let mut weights = [0.0; D];
    for (k, column) in x.axis_iter(Axis(1)).enumerate() {
        let rho = pearson(&ranks(column), &target_ranks);
        weights[k] = if rho.is_finite() { rho.abs() } else { 0.0 };
    }
    let total: f64 = weights.iter().sum();
    if total > 0.0 {
        weights.map(|w| w / total)
    } else {
        uniform
    }
}

/// Ranks from 1, ties sharing their average rank (as scipy's `rankdata`).
fn ranks(values: ArrayView1<'_, f64>) -> Array1<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = Array1::<f64>::zeros(values.len());
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        // Ranks start+1 ..= end share their mean.
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            out[i] = rank;
        }
        start = end;
    }
    out
}

/// Pearson's correlation; NaN when either side is constant.
fn pearson(a: &Array1<f64>, b: &Array1<f64>) -> f64 {
    let (ca, cb) = (a - a.mean().unwrap_or(0.0), b - b.mean().unwrap_or(0.0));
    ca.dot(&cb) / (ca.dot(&ca) * cb.dot(&cb)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_share_their_average_rank() {
        let r = ranks(ArrayView1::from(&[0.0, 2.0, 2.0, 3.0][..]));
        assert_eq!(r.to_vec(), [1.0, 2.5, 2.5, 4.0]);
    }

    #[test]
    fn weights_follow_the_rank_correlation_and_sum_to_one() {
        // Coordinate 0 rises with the wait, coordinate 1 falls with it, coordinate 2 is
        // unrelated noise with a weak correlation.
        let waits = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let points = [
            [1.0, 60.0, 3.0],
            [2.0, 50.0, 1.0],
            [3.0, 40.0, 4.0],
            [4.0, 30.0, 1.0],
            [5.0, 20.0, 5.0],
            [9.0, 10.0, 2.0],
        ];
        let w = correlation_weights(&points, &waits);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((w[0] - w[1]).abs() < 1e-12, "{w:?}");
        assert!(w[2] < w[0] && w[2] > 0.0, "{w:?}");
    }

    proptest::proptest! {
        /// The weights are a distribution over the features, and rank correlations see only
        /// the order of a feature's values: a strictly increasing map of a column (here
        /// `x ↦ 2ˣ`) changes no weight.
        #[test]
        fn weights_are_a_distribution_blind_to_monotone_maps(
            rows in proptest::collection::vec(
                (proptest::array::uniform3(-20i32..20), -50i32..50), 2..40),
            column in 0usize..3,
        ) {
            let points: Vec<[f64; 3]> = rows.iter().map(|(p, _)| p.map(f64::from)).collect();
            let targets: Vec<f64> = rows.iter().map(|(_, y)| f64::from(*y)).collect();
            let w = correlation_weights(&points, &targets);
            proptest::prop_assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{w:?}");
            proptest::prop_assert!(w.iter().all(|x| (0.0..=1.0).contains(x)), "{w:?}");
            let mapped: Vec<[f64; 3]> = points
                .iter()
                .map(|p| {
                    let mut q = *p;
                    q[column] = q[column].exp2();
                    q
                })
                .collect();
            proptest::prop_assert_eq!(correlation_weights(&mapped, &targets), w);
        }
    }

    #[test]
    fn nothing_to_correlate_weighs_uniformly() {
        assert_eq!(correlation_weights(&[[1.0, 2.0]], &[3.0]), [0.5, 0.5]);
        let constant_waits = correlation_weights(&[[1.0, 2.0], [2.0, 1.0]], &[3.0, 3.0]);
        assert_eq!(constant_waits, [0.5, 0.5]);
    }
}
