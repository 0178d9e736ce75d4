//! The I/O curve: how much CPU the job actually consumes for a given CPU made available.
//!
//! RHIC learns it online from `{CPU_available, CPU_consumed}` samples, one per evaluation
//! interval: [`mean_shift`] clusters the samples (flat kernel, older samples weigh less), and a
//! first-degree spline through the cluster centres ([`IoCurve`]) interpolates between them.

use cosched_core::ParamError;
use serde::{Deserialize, Serialize};

/// One observation: CPU made available to the job and CPU it consumed (cores), with its
/// weight (1 for a fresh sample, less as it ages; see [`age_weight`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IoSample {
    /// `CPU_available`, cores.
    pub cpu_available: f64,
    /// `CPU_consumed`, cores.
    pub cpu_consumed: f64,
    /// Ageing weight, > 0.
    pub weight: f64,
}

/// The ageing weight `0.5^(age_s / half_life_s)`: a sample one half-life old counts half.
///
/// ```
/// assert_eq!(cosched_rhic::age_weight(600.0, 300.0), 0.25);
/// ```
pub fn age_weight(age_s: f64, half_life_s: f64) -> f64 {
    0.5f64.powf(age_s.max(0.0) / half_life_s)
}

/// A cluster found by [`mean_shift`]: its centre (a mode of the weighted density) and the
/// total weight of the samples that converged to it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    /// Centre, `CPU_available` coordinate.
    pub cpu_available: f64,
    /// Centre, `CPU_consumed` coordinate.
    pub cpu_consumed: f64,
    /// Sum of the member samples' weights.
    pub weight: f64,
}

/// Mean-shift parameters: flat-kernel bandwidth (cores) and the iteration limits.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeanShiftParams {
    pub(crate) bandwidth: f64,
    pub(crate) max_iterations: u32,
}

impl MeanShiftParams {
    /// A flat kernel of radius `bandwidth` (finite, > 0), at most `max_iterations` (> 0)
    /// shifts per sample.
    pub fn new(bandwidth: f64, max_iterations: u32) -> Result<Self, ParamError> {
        ParamError::check(
            bandwidth.is_finite() && bandwidth > 0.0,
            "bandwidth",
            bandwidth,
            "must be finite and > 0",
        )?;
        ParamError::check(
            max_iterations > 0,
            "max_iterations",
            max_iterations,
            "must be > 0",
        )?;
        Ok(MeanShiftParams {
            bandwidth,
            max_iterations,
        })
    }

    /// The kernel radius, cores.
    pub fn bandwidth(&self) -> f64 {
        self.bandwidth
    }
}

fn canonical_order(a: &IoSample, b: &IoSample) -> std::cmp::Ordering {
    a.cpu_available
        .total_cmp(&b.cpu_available)
        .then(a.cpu_consumed.total_cmp(&b.cpu_consumed))
        .then(a.weight.total_cmp(&b.weight))
}

/// Weighted mean-shift clustering with a flat kernel, deterministic and independent of the
/// order of `samples`.
///
/// Every sample is shifted to the weighted mean of the samples within `bandwidth` (Euclidean,
/// in the `(CPU_available, CPU_consumed)` plane) until it moves at most `bandwidth / 1000`
/// or `max_iterations` is reached. The modes are then merged as scikit-learn's `MeanShift`
/// does: in decreasing order of the weight within `bandwidth` of the mode (ties by ascending
/// coordinates, where scikit-learn takes descending ones), a mode within `bandwidth` of a
/// kept one is dropped; each sample then joins its nearest kept centre, whose `weight` is the
/// sum of its members'. Centres come back sorted by `CPU_available`. Samples are sorted
/// first, so floating-point sums do not depend on the input order. Samples with a non-finite
/// coordinate or a weight ≤ 0 are ignored. O(d · w · iterations), `d` the distinct sample
/// points (samples at one point climb once) and `w` the samples within a bandwidth on the
/// `CPU_available` axis (at most n). With unit weights the centres
/// agree with scikit-learn 1.9 to 1e-9 (`tests/sklearn.rs`).
///
/// ```
/// use cosched_rhic::{IoSample, MeanShiftParams, mean_shift};
/// let s = |a, c| IoSample { cpu_available: a, cpu_consumed: c, weight: 1.0 };
/// let p = MeanShiftParams::new(1.0, 100).unwrap();
/// let clusters = mean_shift(&[s(10.0, 8.0), s(10.2, 8.2), s(20.0, 12.0)], &p);
/// assert_eq!(clusters.len(), 2);
/// assert!((clusters[0].cpu_available - 10.1).abs() < 1e-9);
/// ```
pub fn mean_shift(samples: &[IoSample], params: &MeanShiftParams) -> Vec<Cluster> {
    let mut pts: Vec<IoSample> = samples
        .iter()
        .copied()
        .filter(|s| {
            s.cpu_available.is_finite()
                && s.cpu_consumed.is_finite()
                && s.weight.is_finite()
                && s.weight > 0.0
        })
        .collect();
    // Equal under the canonical order means bit-identical: an unstable sort gives the same.
    pts.sort_unstable_by(canonical_order);
    let h2 = params.bandwidth * params.bandwidth;
    let tol2 = h2 * 1e-6; // scikit-learn's stop: a move of at most bandwidth / 1000
    let near = |x: f64, y: f64, p: &IoSample| {
        let (dx, dy) = (p.cpu_available - x, p.cpu_consumed - y);
        dx * dx + dy * dy <= h2
    };
    // The points are sorted by `CPU_available`: only those within `bandwidth` of `x` on that
    // axis can be neighbours (same points, same order: the sums are unchanged).
    let window = |x: f64| {
        let lo = pts.partition_point(|p| p.cpu_available < x - params.bandwidth);
        let hi = pts.partition_point(|p| p.cpu_available <= x + params.bandwidth);
        &pts[lo..hi.max(lo)]
    };
    let same_start = |a: &IoSample, b: &IoSample| {
        a.cpu_available.to_bits() == b.cpu_available.to_bits()
            && a.cpu_consumed.to_bits() == b.cpu_consumed.to_bits()
    };
    // The samples at one point, next to each other once sorted: `(first, count)`.
    let mut points: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < pts.len() {
        let copies = pts[i..]
            .iter()
            .take_while(|p| same_start(p, &pts[i]))
            .count();
        points.push((i, copies));
        i += copies;
    }
    // A climb depends only on its start's coordinates: the samples at one point climb once.
    // Their modes are one mode repeated, and a repeat is always dropped by the merge below
    // (it lies within `bandwidth` of its first copy, kept or dropped for a closer mode), so
    // the mode counts once.
    let mut modes: Vec<Cluster> = Vec::with_capacity(points.len());
    for &(first, _) in &points {
        let start = pts[first];
        let (mut x, mut y) = (start.cpu_available, start.cpu_consumed);
        for _ in 0..params.max_iterations {
            let (mut sw, mut sx, mut sy) = (0.0, 0.0, 0.0);
            for p in window(x).iter().filter(|p| near(x, y, p)) {
                sw += p.weight;
                sx += p.weight * p.cpu_available;
                sy += p.weight * p.cpu_consumed;
            }
            let (nx, ny) = (sx / sw, sy / sw);
            let moved = (nx - x) * (nx - x) + (ny - y) * (ny - y);
            (x, y) = (nx, ny);
            if moved <= tol2 {
                break;
            }
        }
        let support = window(x)
            .iter()
            .filter(|p| near(x, y, p))
            .map(|p| p.weight)
            .sum();
        let mode = Cluster {
            cpu_available: x,
            cpu_consumed: y,
            weight: support,
        };
        modes.push(mode);
    }
    // Equal modes are bit-identical: an unstable sort gives the same order.
    modes.sort_unstable_by(|a, b| {
        b.weight
            .total_cmp(&a.weight)
            .then(a.cpu_available.total_cmp(&b.cpu_available))
            .then(a.cpu_consumed.total_cmp(&b.cpu_consumed))
    });
    let mut kept: Vec<Cluster> = Vec::new();
    for m in &modes {
        let close = |k: &Cluster| {
            let (dx, dy) = (
                k.cpu_available - m.cpu_available,
                k.cpu_consumed - m.cpu_consumed,
            );
            dx * dx + dy * dy <= h2
        };
        if !kept.iter().any(close) {
            kept.push(Cluster { weight: 0.0, ..*m });
        }
    }
    // Membership: every sample belongs to its nearest kept centre (ties: the earlier one),
    // found once per point; the weights are added in the samples' order.
    for &(first, copies) in &points {
        let p = &pts[first];
        let d2 = |k: &Cluster| {
            let (dx, dy) = (
                k.cpu_available - p.cpu_available,
                k.cpu_consumed - p.cpu_consumed,
            );
            dx * dx + dy * dy
        };
        let best =
            (0..kept.len()).min_by(|&i, &j| d2(&kept[i]).total_cmp(&d2(&kept[j])).then(i.cmp(&j)));
        if let Some(i) = best {
            for q in &pts[first..first + copies] {
                kept[i].weight += q.weight;
            }
        }
    }
    // Kept centres lie more than `bandwidth` apart: no two compare equal.
    kept.sort_unstable_by(|a, b| {
        a.cpu_available
            .total_cmp(&b.cpu_available)
            .then(a.cpu_consumed.total_cmp(&b.cpu_consumed))
    });
    kept
}

/// A first-degree (piecewise-linear) spline through cluster centres, sorted by
/// `CPU_available`: `CPU_consumed` as a function of `CPU_available`.
///
/// Between knots it interpolates linearly; outside them it is clamped (the first knot's value
/// below the first knot, the last one's above the last): we do not extrapolate a trend the
/// samples have not shown. Centres with equal `CPU_available` are merged into their
/// weight-averaged `CPU_consumed`. The spline passes through every (merged) centre and is
/// monotone whenever the centres are.
#[derive(Clone, Debug, PartialEq)]
pub struct IoCurve {
    xs: Vec<f64>,
    ys: Vec<f64>,
}

impl IoCurve {
    /// The spline through `clusters`; `None` when there are none.
    ///
    /// ```
    /// use cosched_rhic::{Cluster, IoCurve};
    /// let c = |a, u| Cluster { cpu_available: a, cpu_consumed: u, weight: 1.0 };
    /// let curve = IoCurve::through(&[c(20.0, 10.0), c(10.0, 8.0)]).unwrap();
    /// assert_eq!(curve.consumed(15.0), 9.0);
    /// assert_eq!((curve.consumed(0.0), curve.consumed(99.0)), (8.0, 10.0)); // clamped
    /// ```
    pub fn through(clusters: &[Cluster]) -> Option<IoCurve> {
        let mut sorted: Vec<Cluster> = clusters
            .iter()
            .copied()
            .filter(|c| c.cpu_available.is_finite() && c.cpu_consumed.is_finite())
            .collect();
        sorted.sort_by(|a, b| a.cpu_available.total_cmp(&b.cpu_available));
        let mut xs: Vec<f64> = Vec::with_capacity(sorted.len());
        let mut ys: Vec<f64> = Vec::with_capacity(sorted.len());
        let mut i = 0;
        while i < sorted.len() {
            let x = sorted[i].cpu_available;
            let group = sorted[i..].iter().take_while(|c| c.cpu_available == x);
            let (mut w, mut wy, mut n, mut sy) = (0.0, 0.0, 0usize, 0.0);
            for c in group {
                w += c.weight.max(0.0);
                wy += c.weight.max(0.0) * c.cpu_consumed;
                sy += c.cpu_consumed;
                n += 1;
            }
            xs.push(x);
            ys.push(if n == 1 {
                sorted[i].cpu_consumed
            } else if w > 0.0 {
                wy / w
            } else {
                sy / n as f64
            });
            i += n;
        }
        (!xs.is_empty()).then_some(IoCurve { xs, ys })
    }

    /// The knots `(CPU_available, CPU_consumed)`, sorted by `CPU_available`.
    pub fn knots(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.xs.iter().copied().zip(self.ys.iter().copied())
    }

    /// Predicted `CPU_consumed` for `cpu_available` (clamped outside the knots). O(log knots).
    pub fn consumed(&self, cpu_available: f64) -> f64 {
        let k = self.xs.partition_point(|&x| x <= cpu_available);
        self.between(k, cpu_available)
    }

    /// The spline at `cpu_available`, whose first knot above it is the `k`-th
    /// (`xs.partition_point(|&x| x <= cpu_available)`).
    fn between(&self, k: usize, cpu_available: f64) -> f64 {
        if k == 0 {
            return self.ys[0];
        }
        if k == self.xs.len() {
            return self.ys[k - 1];
        }
        let (x0, x1, y0, y1) = (self.xs[k - 1], self.xs[k], self.ys[k - 1], self.ys[k]);
        y0 + (y1 - y0) * (cpu_available - x0) / (x1 - x0)
    }

    /// Predicted `CPU_consumed` with the search's extrapolation past the largest observed
    /// `CPU_available`: the spline inside the knots (clamped below), and beyond the last knot
    /// a straight line with the last segment's slope (the last knot's consumed/available
    /// ratio when there is one knot), clamped to `[0, 1]`, never above `ceiling` (Eq. 2's
    /// dedicated plus supportable volunteer CPU) unless the knots already are. Without it the
    /// search could never predict a gain from a pool larger than any it has tried.
    ///
    /// ```
    /// use cosched_rhic::{Cluster, IoCurve};
    /// let c = |a, u| Cluster { cpu_available: a, cpu_consumed: u, weight: 1.0 };
    /// let one = IoCurve::through(&[c(10.0, 10.0)]).unwrap();
    /// assert_eq!(one.projected(30.0, 25.0), 25.0); // slope 1, capped at the ceiling
    /// let bent = IoCurve::through(&[c(10.0, 10.0), c(20.0, 12.0)]).unwrap();
    /// assert_eq!(bent.projected(30.0, f64::INFINITY), 14.0); // the last slope, 0.2
    /// assert_eq!(bent.projected(15.0, 0.0), 11.0); // inside: the spline, no cap
    /// ```
    pub fn projected(&self, cpu_available: f64, ceiling: f64) -> f64 {
        self.projection(cpu_available, ceiling).0
    }

    /// [`IoCurve::projected`], and whether no larger `cpu_available` can project more: past
    /// the last knot the projection rises along a non-negative slope to its cap
    /// (`ceiling`, or the last knot's consumption if higher), so once it is there it stays.
    pub fn projection(&self, cpu_available: f64, ceiling: f64) -> (f64, bool) {
        self.projector(ceiling).project(cpu_available)
    }

    /// [`IoCurve::projection`] for many `cpu_available` under one `ceiling`: the slope past
    /// the last knot computed once, the knots walked forward while the CPU grows.
    pub(crate) fn projector(&self, ceiling: f64) -> Projector<'_> {
        let n = self.xs.len();
        let (xl, yl) = (self.xs[n - 1], self.ys[n - 1]);
        let slope = if n >= 2 {
            (yl - self.ys[n - 2]) / (xl - self.xs[n - 2])
        } else if xl > 0.0 {
            yl / xl
        } else {
            1.0
        };
        let slope = if slope.is_finite() {
            slope.clamp(0.0, 1.0)
        } else {
            0.0
        };
        Projector {
            curve: self,
            slope,
            cap: ceiling.max(yl),
            knot: 0,
        }
    }
}

/// [`IoCurve::projection`] under one ceiling ([`IoCurve::projector`]).
#[derive(Clone, Debug)]
pub(crate) struct Projector<'a> {
    curve: &'a IoCurve,
    slope: f64,
    cap: f64,
    /// The knots at or below the last `cpu_available` projected inside them.
    knot: usize,
}

impl Projector<'_> {
    /// [`IoCurve::projection`] at `cpu_available`: the same operations on the same knots.
    #[inline]
    pub(crate) fn project(&mut self, cpu_available: f64) -> (f64, bool) {
        let curve = self.curve;
        let n = curve.xs.len();
        let (xl, yl) = (curve.xs[n - 1], curve.ys[n - 1]);
        if cpu_available <= xl {
            // `IoCurve::consumed`'s knot, walked forward from the last one (searched afresh
            // when the CPU fell).
            let xs = &curve.xs;
            let mut k = self.knot;
            if k > 0 && xs[k - 1] > cpu_available {
                k = xs.partition_point(|&x| x <= cpu_available);
            }
            while k < n && xs[k] <= cpu_available {
                k += 1;
            }
            self.knot = k;
            return (curve.between(k, cpu_available), false);
        }
        let y = yl + self.slope * (cpu_available - xl);
        if y >= self.cap {
            (self.cap, true)
        } else {
            (y, false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// One projector walked over any sequence of CPU values (rising, falling, repeated,
        /// on the knots) projects each as the curve's own lookup does, bit for bit.
        #[test]
        fn a_projector_walks_the_knots_as_a_fresh_lookup_finds_them(
            knots in prop::collection::vec((0u8..40, 0.0f64..50.0, 0.1f64..2.0), 1..10),
            at in prop::collection::vec(prop_oneof![
                (0u8..45).prop_map(f64::from),
                -5.0f64..50.0,
            ], 0..60),
            ceiling in prop_oneof![Just(f64::INFINITY), 0.0f64..60.0],
        ) {
            let clusters: Vec<Cluster> = knots
                .iter()
                .map(|&(a, c, w)| Cluster {
                    cpu_available: f64::from(a),
                    cpu_consumed: c,
                    weight: w,
                })
                .collect();
            let curve = IoCurve::through(&clusters).expect("a knot");
            let last = curve.xs[curve.xs.len() - 1];
            let mut walked = curve.projector(ceiling);
            for a in at {
                let (y, capped) = walked.project(a);
                if a <= last {
                    prop_assert_eq!(y.to_bits(), curve.consumed(a).to_bits());
                    prop_assert!(!capped);
                } else {
                    let fresh = curve.projector(ceiling).project(a);
                    prop_assert_eq!((y.to_bits(), capped), (fresh.0.to_bits(), fresh.1));
                }
            }
        }
    }
}
