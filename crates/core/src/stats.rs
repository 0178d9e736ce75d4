//! The workspace's one statistics convention, computed by `statrs`.
//!
//! Every crate and example summarises samples through these functions, so a mean, a standard
//! deviation or a quantile means the same thing in every report:
//!
//! - the **mean** of no values is `None` (never a silent 0 or NaN);
//! - the **standard deviation** is the *sample* one (divisor n − 1), `None` below two values;
//!   [`population_sd`] (divisor n) exists for the few places a paper defines it so;
//! - a **quantile** is `statrs`' estimator, R's *type 8* (median-unbiased; Hyndman & Fan 1996),
//!   interpolating between order statistics and clamped to the sample's range;
//! - a multi-seed average is reported as a [`Spread`]: mean, sample sd, range and the half-width
//!   of a 95 % Student-t confidence interval.
//!
//! ```
//! use cosched_core::stats::{self, Spread};
//! assert_eq!(stats::mean(&[]), None);
//! assert_eq!(stats::mean(&[1.0, 2.0, 6.0]), Some(3.0));
//! assert_eq!(stats::sample_sd(&[2.0, 4.0]), Some(2f64.sqrt()));
//! assert_eq!(stats::quantile(&[1.0, 2.0, 3.0], 0.5), Some(2.0));
//! let s = Spread::of(&[10.0, 12.0, 14.0]).unwrap();
//! assert_eq!((s.n, s.mean, s.min, s.max), (3, 12.0, 10.0, 14.0));
//! assert!((s.ci95_half_width.unwrap() - 4.968).abs() < 1e-3); // t(0.975, 2) × 2 / √3
//! ```

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::statistics::{Data, OrderStatistics, Statistics};

/// The arithmetic mean; `None` for no values.
pub fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.mean())
}

/// The sample standard deviation (divisor n − 1); `None` below two values.
pub fn sample_sd(xs: &[f64]) -> Option<f64> {
    (xs.len() >= 2).then(|| xs.std_dev())
}

/// The population standard deviation (divisor n); `None` for no values.
pub fn population_sd(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.population_std_dev())
}

/// The `q`-quantile (R type 8, see the module docs); `None` for no values or a `q` outside
/// `0..=1`. Copies the sample once (`O(n)` selection, not a sort).
pub fn quantile(xs: &[f64], q: f64) -> Option<f64> {
    if xs.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    Some(Data::new(xs.to_vec()).quantile(q))
}

/// The median: [`quantile`] at 0.5.
pub fn median(xs: &[f64]) -> Option<f64> {
    quantile(xs, 0.5)
}

/// Several quantiles of one sample at once, each equal to [`quantile`]'s, selected in place
/// (the sample is reordered, not copied; each selection works on the order the previous left);
/// `None` for no values or a `q` outside `0..=1`.
///
/// ```
/// use cosched_core::stats;
/// let xs = [4.0, 1.0, 3.0, 2.0, 5.0];
/// let mut sample = xs.to_vec();
/// let [median, p95] = stats::quantiles(&mut sample, [0.5, 0.95]).unwrap();
/// assert_eq!((Some(median), Some(p95)), (stats::median(&xs), stats::quantile(&xs, 0.95)));
/// ```
pub fn quantiles<const N: usize>(xs: &mut [f64], qs: [f64; N]) -> Option<[f64; N]> {
    if xs.is_empty() || qs.iter().any(|q| !(0.0..=1.0).contains(q)) {
        return None;
    }
    let mut data = Data::new(xs);
    Some(qs.map(|q| data.quantile(q)))
}

/// The spread of one figure over repeated runs (seeds): what a multi-seed claim reports.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Runs summarised.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
    /// Sample standard deviation; `None` for a single run.
    pub sd: Option<f64>,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Half-width of the 95 % confidence interval of the mean (Student's t with n − 1 degrees
    /// of freedom); `None` for a single run.
    pub ci95_half_width: Option<f64>,
}

impl Spread {
    /// The spread of `xs`; `None` for no values.
    pub fn of(xs: &[f64]) -> Option<Spread> {
        let mean = mean(xs)?;
        let sd = sample_sd(xs);
        let ci95_half_width = sd.and_then(|sd| {
            let t = StudentsT::new(0.0, 1.0, (xs.len() - 1) as f64).ok()?;
            Some(t.inverse_cdf(0.975) * sd / (xs.len() as f64).sqrt())
        });
        Some(Spread {
            n: xs.len(),
            mean,
            sd,
            min: xs.iter().copied().fold(f64::INFINITY, f64::min),
            max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            ci95_half_width,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn empty_and_single_samples_are_none_not_zero() {
        assert_eq!(mean(&[]), None);
        assert_eq!(sample_sd(&[1.0]), None);
        assert_eq!(population_sd(&[1.0]), Some(0.0));
        assert_eq!(quantile(&[], 0.5), None);
        assert_eq!(quantile(&[1.0], 1.5), None);
        let one = Spread::of(&[3.0]).unwrap();
        assert_eq!((one.sd, one.ci95_half_width), (None, None));
    }

    #[test]
    fn quantile_is_r_type_8() {
        // R: quantile(1:10, c(0.1, 0.25, 0.95), type = 8) = 1.366667 2.916667 10.000000
        let xs: Vec<f64> = (1..=10).map(f64::from).collect();
        let got: Vec<f64> = [0.1, 0.25, 0.95]
            .iter()
            .map(|&q| quantile(&xs, q).unwrap())
            .collect();
        for (g, want) in got.iter().zip([1.366_667, 2.916_667, 10.0]) {
            assert!((g - want).abs() < 1e-5, "{g} vs {want}");
        }
    }

    proptest! {
        /// Quantiles are monotone in q and lie within the sample's range.
        #[test]
        fn quantiles_are_monotone_and_bounded(
            xs in prop::collection::vec(-1e6f64..1e6, 1..60), a in 0f64..=1.0, b in 0f64..=1.0,
        ) {
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            let (ql, qh) = (quantile(&xs, lo).unwrap(), quantile(&xs, hi).unwrap());
            let s = Spread::of(&xs).unwrap();
            prop_assert!(ql <= qh + 1e-9);
            prop_assert!(s.min <= ql + 1e-9 && qh <= s.max + 1e-9);
            prop_assert!(s.min <= s.mean + 1e-6 && s.mean <= s.max + 1e-6);
        }

        /// Quantiles taken together are each, bit for bit, the quantile taken alone (ties
        /// included: values drawn from a few).
        #[test]
        fn quantiles_together_equal_each_alone(
            xs in prop::collection::vec((0u8..8).prop_map(f64::from), 1..80),
            qs in prop::array::uniform3(0f64..=1.0),
        ) {
            let together = quantiles(&mut xs.clone(), qs).unwrap();
            for (q, t) in qs.iter().zip(together) {
                prop_assert_eq!(quantile(&xs, *q).unwrap().to_bits(), t.to_bits());
            }
        }
    }
}
