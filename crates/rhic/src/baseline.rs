//! The baselines RHIC is compared with in the paper's evaluation (its comparison with
//! alternative approaches, Figure 13): FUZZY hill climbing and a residual-CPU threshold. The
//! third, exhaustive "targeted" runs at every fixed size, needs no policy of its own: it is
//! [`crate::sim::Strategy::Fixed`]. All three pick *how many* volunteers; *which* ones is the
//! same greedy order RHIC uses ([`crate::screen_and_sort`] over a
//! [`crate::ForegroundTable`]).

use cosched_core::ParamError;

/// FUZZY: two-step hill climbing over the pool size, one step per evaluation interval.
///
/// After each interval the measure (lower is better: dollars or joules per unit of work, or
/// distance to the deadline) is compared with the previous interval's:
/// - improved after an increase → increase again by `p`;
/// - improved after a decrease → decrease again by `p`;
/// - worse (or equal) → reverse the last move by 1.
///
/// The first move, with nothing to compare, is an increase by `p`. Sizes stay in
/// `0..=available`.
///
/// ```
/// use cosched_rhic::baseline::Fuzzy;
/// let mut f = Fuzzy::new(2, 10).unwrap();
/// assert_eq!(f.next(5.0, 36), 12); // first move: up by p
/// assert_eq!(f.next(4.0, 36), 14); // better after an increase: up by p
/// assert_eq!(f.next(4.5, 36), 13); // worse: reverse by 1
/// assert_eq!(f.next(4.2, 36), 11); // better after a decrease: down by p
/// assert_eq!(f.next(4.2, 36), 12); // not better: reverse by 1
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Fuzzy {
    step: usize,
    size: usize,
    increased: bool,
    last: Option<f64>,
}

impl Fuzzy {
    /// Step `p` (> 0) and the starting size `S`.
    pub fn new(step: usize, start: usize) -> Result<Self, ParamError> {
        ParamError::check(step > 0, "step", step, "must be > 0")?;
        Ok(Fuzzy {
            step,
            size: start,
            increased: true,
            last: None,
        })
    }

    /// The current size.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The next size, given the interval's `measure` and the volunteers `available` now.
    pub fn next(&mut self, measure: f64, available: usize) -> usize {
        let (up, by) = match self.last {
            None => (true, self.step),
            Some(last) if measure < last => (self.increased, self.step),
            Some(_) => (!self.increased, 1),
        };
        self.size = if up {
            self.size.saturating_add(by)
        } else {
            self.size.saturating_sub(by)
        }
        .min(available);
        self.increased = up;
        self.last = Some(measure);
        self.size
    }
}

/// Threshold: every candidate whose predicted residual CPU exceeds `theta · cpu_max`. On
/// candidates sorted by residual (descending) that is a prefix; returns its length.
///
/// ```
/// use cosched_rhic::baseline::threshold_size;
/// assert_eq!(threshold_size(&[3.5, 2.5, 1.0], 0.5, 4.0), 2); // residual > 2 cores
/// ```
pub fn threshold_size(sorted_residuals: &[f64], theta: f64, cpu_max: f64) -> usize {
    sorted_residuals
        .iter()
        .take_while(|&&r| r > theta * cpu_max)
        .count()
}
