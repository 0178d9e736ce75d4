//! The one paired-replicate comparison of the examples: a mechanism against a baseline over
//! the same seeds (so the same environment and workload in each pair), and its significance
//! rule.
//!
//! The rule: the per-replicate differences A − B are summarised by their mean and the 95 %
//! Student-t interval (n − 1 degrees of freedom, core's
//! [`Spread`]); the difference is significant when that interval
//! excludes 0, otherwise "no significant difference". Two cases have no interval of positive
//! width, and each is decided explicitly:
//!
//! - **no spread** (one replicate, or replicates that all differ by the same amount, as with
//!   inputs that leave nothing random): with a `tolerance` (the paper's printed precision,
//!   [`Paired::with_tolerance`]) the difference is significant when it exceeds the tolerance;
//! - without a tolerance, several replicates with no spread form the interval `[d, d]`, which
//!   excludes 0 exactly when `d ≠ 0`; and **one replicate** gives no interval at all: it is
//!   not assessed ([`Paired::assessed`]), which counts as "no significant difference".
//!
//! ```
//! use cosched_examples::paired::{Paired, Significance};
//! // Three seeds: A is below B by 2 ± 0.1 each time.
//! let p = Paired::new(&[8.0, 9.1, 10.0], &[10.0, 11.0, 12.1]).unwrap();
//! assert_eq!(p.significance(), Significance::Lower);
//! // One replicate: no interval, not assessed, so no significant difference...
//! let one = Paired::new(&[5.0], &[1.0]).unwrap();
//! assert!(!one.assessed());
//! assert_eq!(one.significance(), Significance::NoSignificantDifference);
//! // ...unless a tolerance decides it.
//! assert_eq!(one.with_tolerance(0.5).significance(), Significance::Higher);
//! // Identical deterministic runs: inside the paper's precision.
//! let p = Paired::tolerant(&[5.0, 5.0], &[5.01, 5.01], 0.05).unwrap();
//! assert_eq!(p.significance(), Significance::NoSignificantDifference);
//! ```

use cosched_core::stats::{self, Spread};

/// How a paired comparison of A with B came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Significance {
    /// A is significantly below B.
    Lower,
    /// A is significantly above B.
    Higher,
    /// The difference is inside the noise (or inside the tolerance when the differences do
    /// not vary, or not assessed: one replicate without a tolerance).
    NoSignificantDifference,
}

impl Significance {
    /// `lower`, `higher` or `no significant difference`.
    pub fn as_str(self) -> &'static str {
        match self {
            Significance::Lower => "lower",
            Significance::Higher => "higher",
            Significance::NoSignificantDifference => "no significant difference",
        }
    }
}

/// A − B over paired replicates (`a[i]` and `b[i]` from the same seed), under the module's
/// significance rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Paired {
    /// Per-replicate A − B.
    pub difference: Spread,
    /// B's mean (the base of the relative figures).
    pub base: f64,
    /// The threshold used only when the differences have no spread (the paper's precision);
    /// `None`: no tolerance.
    pub tolerance: Option<f64>,
}

impl Paired {
    /// `a` against `b`, paired by position (seed), without a tolerance; `None` when they are
    /// empty, of different lengths, or a difference is not a number.
    pub fn new(a: &[f64], b: &[f64]) -> Option<Paired> {
        if a.len() != b.len() {
            return None;
        }
        let diffs: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
        if diffs.iter().any(|d| d.is_nan()) {
            return None;
        }
        Some(Paired {
            difference: Spread::of(&diffs)?,
            base: stats::mean(b)?,
            tolerance: None,
        })
    }

    /// [`Paired::new`] decided by `tolerance` when the differences have no spread.
    pub fn tolerant(a: &[f64], b: &[f64], tolerance: f64) -> Option<Paired> {
        Paired::new(a, b).map(|p| p.with_tolerance(tolerance))
    }

    /// The same comparison, decided by `tolerance` when the differences have no spread.
    #[must_use]
    pub fn with_tolerance(self, tolerance: f64) -> Paired {
        Paired {
            tolerance: Some(tolerance),
            ..self
        }
    }

    /// A figure over seeds (`values`) against one run `base` of a configuration that draws
    /// nothing at random (every seed would repeat it), so each seed's difference is its value
    /// minus `base`: the pairing is exact.
    pub fn against_run(values: Spread, base: f64, tolerance: f64) -> Paired {
        Paired {
            difference: Spread {
                mean: values.mean - base,
                min: values.min - base,
                max: values.max - base,
                ..values
            },
            base,
            tolerance: Some(tolerance),
        }
    }

    /// The half-width beyond which the mean difference is significant: the 95 % interval's
    /// when the differences vary, else the tolerance, else 0 for several replicates (the
    /// interval `[d, d]`); `None` for one replicate without a tolerance (not assessed).
    pub fn threshold(&self) -> Option<f64> {
        match (self.difference.ci95_half_width, self.tolerance) {
            (Some(h), _) if h > 0.0 => Some(h),
            (_, Some(t)) => Some(t),
            (Some(_), None) => Some(0.0),
            (None, None) => None,
        }
    }

    /// Whether the rule can decide: false for one replicate without a tolerance.
    pub fn assessed(&self) -> bool {
        self.threshold().is_some()
    }

    /// The verdict of the rule.
    pub fn significance(&self) -> Significance {
        let d = self.difference.mean;
        match self.threshold() {
            Some(t) if d > t => Significance::Higher,
            Some(t) if d < -t => Significance::Lower,
            _ => Significance::NoSignificantDifference,
        }
    }

    /// Whether A is significantly below B.
    pub fn lower(&self) -> bool {
        self.significance() == Significance::Lower
    }

    /// Whether A is significantly above B.
    pub fn higher(&self) -> bool {
        self.significance() == Significance::Higher
    }

    /// The mean difference in percent of B's mean.
    pub fn percent(&self) -> f64 {
        100.0 * self.difference.mean / self.base.abs().max(f64::MIN_POSITIVE)
    }

    /// Whether the whole significance interval lies within ± `percent` % of B's mean (an
    /// equivalence margin); false when not assessed.
    pub fn within_percent(&self, percent: f64) -> bool {
        let margin = percent / 100.0 * self.base.abs();
        self.threshold()
            .is_some_and(|t| self.difference.mean.abs() + t <= margin)
    }

    /// The difference in percent of B's mean, e.g. `-12.3 % (±0.4 % 95 % CI, paired t, 5
    /// seeds: lower)` or `+0.0 % (1 seed; tolerance ±0.05: no significant difference)`.
    pub fn describe_percent(&self) -> String {
        let tolerance = || {
            self.tolerance
                .map_or("none".to_owned(), |t| format!("±{t}"))
        };
        let rule = match self.difference.ci95_half_width {
            Some(h) if h > 0.0 => format!(
                "±{:.1} % 95 % CI, paired t, {} seeds",
                100.0 * h / self.base.abs().max(f64::MIN_POSITIVE),
                self.difference.n
            ),
            _ if self.difference.n == 1 => format!("1 seed; tolerance {}", tolerance()),
            _ => format!(
                "{} seeds, no spread; tolerance {}",
                self.difference.n,
                tolerance()
            ),
        };
        format!(
            "{:+.1} % ({rule}: {})",
            self.percent(),
            self.significance().as_str()
        )
    }

    /// The half-width of the 95 % prediction interval of one more replicate's difference:
    /// Student's t (n − 1 degrees of freedom) times `sd · √(1 + 1/n)`; `None` without spread
    /// (one replicate, or identical differences).
    pub fn prediction_half_width(&self) -> Option<f64> {
        let d = &self.difference;
        let h = d.ci95_half_width.filter(|h| *h > 0.0)?;
        Some(h * ((d.n + 1) as f64).sqrt())
    }

    /// [`Paired::prediction_half_width`] in percent of B's mean.
    pub fn prediction_half_width_percent(&self) -> Option<f64> {
        self.prediction_half_width()
            .map(|h| 100.0 * h / self.base.abs().max(f64::MIN_POSITIVE))
    }

    /// Whether a paper's difference `paper` (A − B, from one run of one workload, in A's and
    /// B's unit) could be one of our replicates: inside the 95 % prediction interval of one
    /// more replicate's difference, widened by `precision` (the paper's: half its last printed
    /// digit, or the rounding its words state); without spread, within `precision` of our
    /// mean.
    pub fn consistent_with(&self, paper: f64, precision: f64) -> bool {
        let half = self.prediction_half_width().unwrap_or(0.0) + precision.abs();
        (paper - self.difference.mean).abs() <= half
    }

    /// [`Paired::consistent_with`] for a difference in percent of B's mean, `precision` in
    /// percentage points.
    ///
    /// ```
    /// use cosched_examples::paired::Paired;
    /// // Ours: −10 %, −12 %, −11 % of B; the paper's −11.5 % could be a fourth run, −3 % not.
    /// let p = Paired::new(&[90.0, 88.0, 89.0], &[100.0, 100.0, 100.0]).unwrap();
    /// assert!(p.consistent_with_percent(-11.5, 0.05));
    /// assert!(!p.consistent_with_percent(-3.0, 0.05));
    /// ```
    pub fn consistent_with_percent(&self, paper_percent: f64, precision: f64) -> bool {
        let half = self.prediction_half_width_percent().unwrap_or(0.0) + precision.abs();
        (paper_percent - self.percent()).abs() <= half
    }

    /// Ours against a paper's difference under [`Paired::consistent_with`], with the order's
    /// verdict, e.g. `-145.0 (one run's 95 % prediction interval -151.2 .. -138.8, 5 seeds)
    /// against the paper's -120.0 (± 30): consistent, lower`.
    pub fn describe_against(&self, paper: f64, precision: f64) -> String {
        self.against(
            (
                self.difference.mean,
                self.prediction_half_width(),
                paper,
                "",
            ),
            precision,
            self.consistent_with(paper, precision),
        )
    }

    /// `ours (interval) against the paper's (± precision): consistent|outside, order` for
    /// `(ours, prediction half-width, paper, unit)`.
    fn against(
        &self,
        (ours, half, paper, unit): (f64, Option<f64>, f64, &str),
        precision: f64,
        consistent: bool,
    ) -> String {
        let interval = match half {
            Some(h) => format!(
                "one run's 95 % prediction interval {:+.1} .. {:+.1}{unit}, {} seeds",
                ours - h,
                ours + h,
                self.difference.n
            ),
            None => format!("{} seed(s), no spread", self.difference.n),
        };
        format!(
            "{ours:+.1}{unit} ({interval}) against the paper's {paper:+.1}{unit} (± {}): {}, {}",
            precision_text(precision),
            if consistent { "consistent" } else { "outside" },
            self.significance().as_str()
        )
    }

    /// Whether our replicates reproduce a paper's difference `paper` (in A's and B's unit): the
    /// effect is there — significant in the paper's direction under the module's rule (no
    /// significant difference when the paper's is 0) — and of the paper's size
    /// ([`Paired::consistent_with`]). Consistency alone would pass a noisy run that cannot
    /// tell the paper's figure from no effect.
    pub fn reproduces(&self, paper: f64, precision: f64) -> bool {
        self.in_direction(paper) && self.consistent_with(paper, precision)
    }

    /// [`Paired::reproduces`] for a difference in percent of B's mean.
    ///
    /// ```
    /// use cosched_examples::paired::Paired;
    /// // −11 % ± 1: the paper's −11.5 % is reproduced; so noisy a run that −11.5 % and 0 are
    /// // both consistent with it is not.
    /// let p = Paired::new(&[90.0, 88.0, 89.0], &[100.0, 100.0, 100.0]).unwrap();
    /// assert!(p.reproduces_percent(-11.5, 0.05));
    /// let noisy = Paired::new(&[60.0, 118.0, 89.0], &[100.0, 100.0, 100.0]).unwrap();
    /// assert!(noisy.consistent_with_percent(-11.5, 0.05));
    /// assert!(!noisy.reproduces_percent(-11.5, 0.05));
    /// ```
    pub fn reproduces_percent(&self, paper_percent: f64, precision: f64) -> bool {
        self.in_direction(paper_percent) && self.consistent_with_percent(paper_percent, precision)
    }

    /// Whether the significance verdict has the sign of `paper`.
    fn in_direction(&self, paper: f64) -> bool {
        match self.significance() {
            Significance::Lower => paper < 0.0,
            Significance::Higher => paper > 0.0,
            Significance::NoSignificantDifference => paper == 0.0,
        }
    }

    /// Ours against a paper's figure under [`Paired::consistent_with_percent`], with the order's
    /// verdict, e.g. `-55.9 % (one run's 95 % prediction interval -57.2 .. -54.6 %, 5 seeds)
    /// against the paper's -3.0 % (± 0.05): outside, lower`.
    pub fn describe_against_percent(&self, paper_percent: f64, precision: f64) -> String {
        self.against(
            (
                self.percent(),
                self.prediction_half_width_percent(),
                paper_percent,
                " %",
            ),
            precision,
            self.consistent_with_percent(paper_percent, precision),
        )
    }

    /// The difference scaled by `scale` (100 for a ratio shown in percentage points), e.g.
    /// `+0.12 ± 0.30 (n 3, no significant difference)` or `+1.00 (n 1, no interval: no
    /// significant difference)`.
    pub fn describe_scaled(&self, scale: f64) -> String {
        let verdict = self.significance().as_str();
        let d = &self.difference;
        match d.ci95_half_width {
            Some(h) => format!(
                "{:+.p$} ± {:.p$} (n {}, {verdict})",
                scale * d.mean,
                scale * h,
                d.n,
                p = decimals(scale * h)
            ),
            None => format!("{:+.2} (n 1, no interval: {verdict})", scale * d.mean),
        }
    }
}

/// A precision as printed beside a paper's figure: whole numbers from 1 up, else two decimals.
fn precision_text(precision: f64) -> String {
    let p = precision.abs();
    if p >= 1.0 {
        format!("{p:.0}")
    } else {
        format!("{p:.2}")
    }
}

/// Decimals that show `half` (an interval's half-width) to two significant digits: 2 to 4
/// (a turnaround difference of hundredths of an hour keeps its digits).
fn decimals(half: f64) -> usize {
    if half > 0.0 && half.is_finite() {
        (1.0 - half.log10().floor()).clamp(2.0, 4.0) as usize
    } else {
        2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_t_interval_decides_when_the_differences_vary() {
        // Differences 1.0, 1.1, 0.9: mean 1, sd 0.1, t(0.975, 2) = 4.303, half 0.248.
        let p = Paired::new(&[2.0, 3.1, 4.9], &[1.0, 2.0, 4.0]).unwrap();
        assert!((p.difference.mean - 1.0).abs() < 1e-12);
        let half = p.threshold().unwrap();
        assert!((half - 4.303 * 0.1 / 3f64.sqrt()).abs() < 1e-3);
        assert_eq!(p.significance(), Significance::Higher);
        // A tolerance does not override an interval of positive width.
        assert_eq!(p.with_tolerance(5.0).significance(), Significance::Higher);
        // Differences -1 and +1: the interval holds 0.
        let p = Paired::new(&[1.0, 2.0], &[2.0, 1.0]).unwrap();
        assert_eq!(p.significance(), Significance::NoSignificantDifference);
        assert!(
            p.describe_scaled(1.0)
                .contains("n 2, no significant difference")
        );
    }

    #[test]
    fn one_replicate_is_decided_by_the_tolerance_only() {
        let p = Paired::new(&[5.0], &[1.0]).unwrap();
        assert_eq!((p.assessed(), p.threshold()), (false, None));
        assert_eq!(p.significance(), Significance::NoSignificantDifference);
        assert!(!p.within_percent(1000.0));
        assert_eq!(
            p.describe_scaled(1.0),
            "+4.00 (n 1, no interval: no significant difference)"
        );
        let t = p.with_tolerance(0.5);
        assert!(t.assessed() && t.higher());
        assert_eq!(
            t.describe_percent(),
            "+400.0 % (1 seed; tolerance ±0.5: higher)"
        );
        assert!(!p.with_tolerance(4.0).higher());
    }

    #[test]
    fn zero_spread_uses_the_tolerance_else_the_point_interval() {
        // Every replicate differs by exactly 0.01.
        let p = Paired::new(&[5.01, 6.01], &[5.0, 6.0]).unwrap();
        assert_eq!(p.difference.ci95_half_width.map(|h| h < 1e-9), Some(true));
        let p = Paired {
            difference: Spread {
                ci95_half_width: Some(0.0),
                sd: Some(0.0),
                ..p.difference
            },
            ..p
        };
        assert_eq!(p.significance(), Significance::Higher);
        let tolerant = p.with_tolerance(0.05);
        assert_eq!(
            tolerant.significance(),
            Significance::NoSignificantDifference
        );
        assert!(tolerant.describe_percent().contains("2 seeds, no spread"));
        // Equal on every replicate: no difference either way.
        let same = Paired::new(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(same.significance(), Significance::NoSignificantDifference);
        assert!(same.within_percent(0.0));
    }

    #[test]
    fn nan_empty_and_unpaired_inputs_are_none() {
        assert_eq!(Paired::new(&[f64::NAN], &[1.0]), None);
        assert_eq!(Paired::new(&[1.0, 2.0], &[f64::NAN, 1.0]), None);
        assert_eq!(Paired::new(&[], &[]), None);
        assert_eq!(Paired::new(&[1.0, 2.0], &[1.0]), None);
    }

    #[test]
    fn a_papers_figure_is_tested_against_the_prediction_interval() {
        // Differences -10, -12, -11 of a base of 100: mean -11 %, sd 1, t(0.975, 2) = 4.303;
        // one more run's interval: -11 ± 4.303 * 1 * sqrt(4/3) = -11 ± 4.97 %.
        let p = Paired::new(&[90.0, 88.0, 89.0], &[100.0, 100.0, 100.0]).unwrap();
        let h = p.prediction_half_width_percent().unwrap();
        assert!((h - 4.303 * (4.0f64 / 3.0).sqrt()).abs() < 1e-3, "{h}");
        assert!(p.consistent_with_percent(-15.9, 0.0));
        assert!(!p.consistent_with_percent(-16.0, 0.0));
        assert!(p.consistent_with_percent(-16.0, 0.05));
        assert!(
            p.describe_against_percent(-3.0, 0.05)
                .ends_with("outside, lower")
        );
        assert!(p.reproduces_percent(-15.9, 0.0) && !p.reproduces_percent(-16.0, 0.0));
        // The paper's direction is needed: +1 % is consistent with -11 ± 4.97 % only beyond
        // the interval; a paper's 0 needs no significant difference.
        assert!(!p.reproduces_percent(-5.0, 10.0) || p.lower());
        assert!(!p.reproduces(0.0, 100.0));
        // The same in the difference's own unit.
        let h = p.prediction_half_width().unwrap();
        assert!(p.consistent_with(-11.0 + h, 0.0) && !p.consistent_with(-11.0 + h + 0.01, 0.0));
        assert!(p.describe_against(-30.0, 1.0).ends_with("outside, lower"));
        // No spread: only the paper's precision.
        let flat = Paired::new(&[97.0], &[100.0]).unwrap();
        assert_eq!(flat.prediction_half_width_percent(), None);
        assert!(flat.consistent_with_percent(-3.04, 0.05));
        assert!(!flat.consistent_with_percent(-3.1, 0.05));
    }

    #[test]
    fn against_a_deterministic_run_pairs_exactly() {
        // Values 9, 9.5, 10 against 12: mean -2.5, half-width 4.303 * 0.5 / √3 = 1.24.
        let values = Spread::of(&[9.0, 10.0, 9.5]).unwrap();
        let p = Paired::against_run(values, 12.0, 0.5);
        assert_eq!((p.difference.mean, p.difference.min), (-2.5, -3.0));
        assert!(p.lower());
        assert!((p.percent() + 250.0 / 12.0).abs() < 1e-12);
        // Values 9, 10, 11: the interval (±2.48) holds -2.
        let wide = Spread::of(&[9.0, 11.0, 10.0]).unwrap();
        assert!(!Paired::against_run(wide, 12.0, 0.5).lower());
    }
}
