//! DBSCAN (Ester, Kriegel, Sander and Xu, KDD 1996) under the Manhattan distance: the
//! clustering step of Murali and Vadhiyar's wait-time predictor (`cosched-metasched`), which
//! groups a site's recent jobs by similarity before it averages the waits of the group a new
//! job falls into.
//!
//! Semantics follow scikit-learn's `DBSCAN(metric="manhattan")`, so its labels are reproduced
//! exactly: the `eps`-neighbourhood of a point is every point at distance `≤ eps`, **itself
//! included**; a point is a *core* point when its neighbourhood holds at least `min_pts`
//! points; clusters are numbered in the order of their lowest-index core point, and a border
//! point (a non-core point within `eps` of core points of several clusters) joins the
//! lowest-numbered one. Points with a non-finite coordinate are noise.
//!
//! Region queries prune by the coordinate sum: `|Σx − Σy| ≤ ‖x − y‖₁`, so only points whose
//! sums lie within `eps` of the query's can be neighbours; the core-point pass also checks the
//! alternating-sign sum, another such lower bound, before a full distance. The result is exact;
//! the worst case stays `O(n²)` distance evaluations (everything within `eps` of everything),
//! and the memory is `O(n)` — neighbourhoods are recomputed, never stored.
//!
//! ```
//! use cosched_forecast::dbscan::Dbscan;
//!
//! let points = [[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0], [5.0, 5.1], [9.0, 0.0]];
//! let clustering = Dbscan::new(0.25, 3).unwrap().fit(&points);
//! assert_eq!(clustering.cluster_count(), 2);
//! assert_eq!(clustering.label(0), Some(0));
//! assert_eq!(clustering.label(4), Some(1));
//! assert_eq!(clustering.label(6), None); // noise
//! ```

use cosched_core::ParamError;

/// The Manhattan (L1, city-block) distance.
pub fn manhattan<const D: usize>(a: &[f64; D], b: &[f64; D]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
}

/// Whether `manhattan(a, b) <= eps`, stopping as soon as the partial sum exceeds `eps` (the
/// partial sums are the same as [`manhattan`]'s, so both always agree).
fn within<const D: usize>(a: &[f64; D], b: &[f64; D], eps: f64) -> bool {
    let mut sum = 0.0;
    for (x, y) in a.iter().zip(b) {
        sum += (x - y).abs();
        if sum > eps {
            return false;
        }
    }
    sum <= eps
}

/// DBSCAN's two parameters, validated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dbscan {
    eps: f64,
    min_pts: usize,
}

impl Dbscan {
    /// Neighbourhood radius `eps` and the neighbourhood size `min_pts` (the point itself
    /// included, scikit-learn's `min_samples`) that makes a point a core point.
    ///
    /// # Errors
    /// [`ParamError`] if `eps` is not finite and `> 0`, or `min_pts` is 0.
    pub fn new(eps: f64, min_pts: usize) -> Result<Dbscan, ParamError> {
        ParamError::check(
            eps.is_finite() && eps > 0.0,
            "eps",
            eps,
            "must be finite and > 0",
        )?;
        ParamError::check(min_pts >= 1, "min_pts", min_pts, "must be >= 1")?;
        Ok(Dbscan { eps, min_pts })
    }

    /// The neighbourhood radius.
    pub fn eps(&self) -> f64 {
        self.eps
    }

    /// The neighbourhood size of a core point.
    pub fn min_pts(&self) -> usize {
        self.min_pts
    }

    /// Clusters `points`.
    ///
    /// Cost: sorting `O(n log n)`, then two passes of region queries, each at most `O(n·D)`;
    /// the expansion pass skips the points already labelled.
    pub fn fit<const D: usize>(&self, points: &[[f64; D]]) -> Clustering {
        self.fit_with_index(points).0
    }

    /// [`fit`](Self::fit), also returning the [`SumIndex`] it built over `points`, for later
    /// region queries against the same points (a predictor looks up the clusters near a new
    /// point with it).
    pub fn fit_with_index<const D: usize>(&self, points: &[[f64; D]]) -> (Clustering, SumIndex) {
        let index = SumIndex::new(points);
        (self.fit_indexed(points, &index), index)
    }

    /// [`fit`](Self::fit) over `index`, which was built over `points`.
    fn fit_indexed<const D: usize>(&self, points: &[[f64; D]], index: &SumIndex) -> Clustering {
        let n = points.len();
        // Core flags. The points are copied in window order, so that scans read memory in
        // sequence, with a second lower bound of the distance — the alternating-sign sum
        // `|Σ(−1)ᵏ(xₖ − yₖ)| ≤ ‖x − y‖₁` — that rejects most far candidates in one comparison.
        let sorted: Vec<[f64; D]> = index.order.iter().map(|&i| points[i]).collect();
        let alternating: Vec<f64> = sorted
            .iter()
            .map(|p| {
                p.iter()
                    .enumerate()
                    .map(|(k, x)| if k % 2 == 0 { *x } else { -x })
                    .sum()
            })
            .collect();
        let reach = self.eps + index.slack;
        let mut core = vec![false; n];
        for (a, &i) in index.order.iter().enumerate() {
            let range = index.window_range(index.keys_by_point[i], self.eps);
            let mut count = 0;
            for b in range {
                if (alternating[a] - alternating[b]).abs() <= reach
                    && within(&sorted[a], &sorted[b], self.eps)
                {
                    count += 1;
                    if count >= self.min_pts {
                        core[i] = true;
                        break;
                    }
                }
            }
        }
        // Expansion visits only unlabelled points: `unlabelled` skips, in window order, the
        // positions already labelled (labelled points are never relabelled, so skipping them
        // changes nothing but the cost).
        let mut unlabelled = Unlabelled::new(index.order.len());
        let mut labels = vec![None; n];
        let mut clusters = 0;
        let mut stack = Vec::new();
        for seed in 0..n {
            if labels[seed].is_some() || !core[seed] {
                continue;
            }
            labels[seed] = Some(clusters);
            unlabelled.remove(index.position[seed]);
            stack.push(seed);
            while let Some(p) = stack.pop() {
                let range = index.window_range(index.keys_by_point[p], self.eps);
                let mut k = unlabelled.first_from(range.start);
                while k < range.end {
                    let q = index.order[k];
                    if within(&points[p], &points[q], self.eps) {
                        labels[q] = Some(clusters);
                        unlabelled.remove(k);
                        if core[q] {
                            stack.push(q);
                        }
                    }
                    k = unlabelled.first_from(k + 1);
                }
            }
            clusters += 1;
        }
        Clustering {
            labels,
            core,
            clusters,
        }
    }
}

/// The positions of a sorted order not yet removed, as "next remaining position" links with
/// path compression (amortised almost-constant time per query).
struct Unlabelled {
    next: Vec<usize>,
}

impl Unlabelled {
    fn new(len: usize) -> Unlabelled {
        Unlabelled {
            next: (0..=len).collect(),
        }
    }

    fn remove(&mut self, position: usize) {
        self.next[position] = position + 1;
    }

    /// The first remaining position at or after `position` (`len` if none).
    fn first_from(&mut self, position: usize) -> usize {
        let mut root = position;
        while self.next[root] != root {
            root = self.next[root];
        }
        let mut at = position;
        while self.next[at] != root && at != root {
            let following = self.next[at];
            self.next[at] = root;
            at = following;
        }
        root
    }
}

/// DBSCAN's result: a cluster label or noise per point, and which points are core points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clustering {
    labels: Vec<Option<usize>>,
    core: Vec<bool>,
    clusters: usize,
}

impl Clustering {
    /// The cluster of point `i` (`0..cluster_count()`), or `None` for noise.
    ///
    /// # Panics
    /// If `i` is not a point index.
    pub fn label(&self, i: usize) -> Option<usize> {
        self.labels[i]
    }

    /// Every point's label, in point order.
    pub fn labels(&self) -> &[Option<usize>] {
        &self.labels
    }

    /// Whether point `i` is a core point.
    ///
    /// # Panics
    /// If `i` is not a point index.
    pub fn is_core(&self, i: usize) -> bool {
        self.core[i]
    }

    /// The number of clusters.
    pub fn cluster_count(&self) -> usize {
        self.clusters
    }
}

/// The points with finite coordinates, sorted by their coordinate sum: region queries under
/// the Manhattan distance only need the points whose sums lie within `eps` of the query's.
/// Building it costs `O(n log n)`, a query `O(log n)` plus the window it returns.
///
/// ```
/// use cosched_forecast::dbscan::{SumIndex, manhattan};
///
/// let points = [[0.0, 0.0], [1.0, 0.5], [4.0, 4.0]];
/// let index = SumIndex::new(&points);
/// let query = [0.5, 0.5];
/// // A superset of the points within 1.0 of the query; the distance decides.
/// let near: Vec<usize> = index
///     .window(SumIndex::key(&query), 1.0)
///     .iter()
///     .copied()
///     .filter(|&i| manhattan(&query, &points[i]) <= 1.0)
///     .collect();
/// assert_eq!(near, [0, 1]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SumIndex {
    /// Point indices by increasing sum (finite points only).
    order: Vec<usize>,
    /// `keys[k]` is the sum of point `order[k]`.
    keys: Vec<f64>,
    /// Per point, its sum (non-finite for points left out).
    keys_by_point: Vec<f64>,
    /// Per point, its position in `order` (`order.len()` for points left out).
    position: Vec<usize>,
    /// Absolute rounding slack added to window bounds, so that float summation never drops a
    /// true neighbour.
    slack: f64,
}

impl SumIndex {
    /// The index of `points` (those with a non-finite coordinate are left out).
    pub fn new<const D: usize>(points: &[[f64; D]]) -> SumIndex {
        let keys_by_point: Vec<f64> = points
            .iter()
            .map(|p| {
                if p.iter().all(|x| x.is_finite()) {
                    p.iter().sum()
                } else {
                    f64::NAN
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..points.len())
            .filter(|&i| keys_by_point[i].is_finite())
            .collect();
        order.sort_by(|&a, &b| keys_by_point[a].total_cmp(&keys_by_point[b]));
        let keys: Vec<f64> = order.iter().map(|&i| keys_by_point[i]).collect();
        let mut position = vec![order.len(); points.len()];
        for (k, &i) in order.iter().enumerate() {
            position[i] = k;
        }
        let magnitude = points
            .iter()
            .flatten()
            .filter(|x| x.is_finite())
            .fold(0.0_f64, |m, x| m.max(x.abs()));
        SumIndex {
            order,
            keys,
            keys_by_point,
            position,
            slack: 1e-9 * (1.0 + magnitude * D as f64),
        }
    }

    /// The indices of the points that may lie within `eps` of a point whose sum is `key`
    /// (a superset of the true neighbours; empty for a non-finite key).
    pub fn window(&self, key: f64, eps: f64) -> &[usize] {
        &self.order[self.window_range(key, eps)]
    }

    /// [`window`](Self::window) as a range of positions in the sorted order.
    fn window_range(&self, key: f64, eps: f64) -> std::ops::Range<usize> {
        if !key.is_finite() {
            return 0..0;
        }
        let reach = eps + self.slack;
        let lo = self.keys.partition_point(|&k| k < key - reach);
        let hi = self.keys.partition_point(|&k| k <= key + reach);
        lo..hi.max(lo)
    }

    /// The coordinate sum the index uses for a query point (NaN if a coordinate is not finite).
    pub fn key<const D: usize>(point: &[f64; D]) -> f64 {
        if point.iter().all(|x| x.is_finite()) {
            point.iter().sum()
        } else {
            f64::NAN
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_validated() {
        assert_eq!(Dbscan::new(0.0, 3).unwrap_err().name, "eps");
        assert_eq!(Dbscan::new(f64::NAN, 3).unwrap_err().name, "eps");
        assert_eq!(Dbscan::new(1.0, 0).unwrap_err().name, "min_pts");
    }

    #[test]
    fn neighbourhoods_are_closed_and_include_the_point() {
        // Two points exactly eps apart, min_pts 2: both core, one cluster.
        let c = Dbscan::new(1.0, 2).unwrap().fit(&[[0.0], [1.0]]);
        assert_eq!(c.labels(), [Some(0), Some(0)]);
        // min_pts 1: every point is core, isolated points are singleton clusters.
        let c = Dbscan::new(0.5, 1).unwrap().fit(&[[0.0], [1.0]]);
        assert_eq!(c.labels(), [Some(0), Some(1)]);
    }

    #[test]
    fn border_points_join_the_first_cluster_and_non_finite_points_are_noise() {
        // Cores at 0 and 2 (eps 1, min_pts 4 needs the twins); 1 is a border of both.
        let points = [
            [0.0],
            [-0.1],
            [-0.2],
            [1.0],
            [2.0],
            [2.1],
            [2.2],
            [f64::NAN],
        ];
        let c = Dbscan::new(1.0, 4).unwrap().fit(&points);
        assert!(!c.is_core(3));
        assert_eq!(c.label(3), c.label(0));
        assert_ne!(c.label(4), c.label(0));
        assert_eq!(c.label(7), None);
        assert!(!c.is_core(7));
    }
}
