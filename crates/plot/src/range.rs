//! Axis ranges from data: finite values only, with margins, never empty.

use std::ops::Range;

/// Fraction of the data's span added on each side.
const MARGIN: f64 = 0.05;

/// A linear range covering the finite `values` with margins; `0..1` when there are none, and a
/// unit-wide (or 10 %-wide) window around a single repeated value.
pub(crate) fn linear(values: impl IntoIterator<Item = f64>) -> Range<f64> {
    match bounds(values.into_iter().filter(|v| v.is_finite())) {
        None => 0.0..1.0,
        Some((lo, hi)) if lo == hi => {
            let pad = (lo.abs() * 0.1).max(0.5);
            lo - pad..hi + pad
        }
        Some((lo, hi)) => {
            let pad = (hi - lo) * MARGIN;
            lo - pad..hi + pad
        }
    }
}

/// A range covering the finite `values` and zero, with a margin on the side(s) away from zero:
/// the value axis of a bar chart. `0..1` when every value is zero or there are none.
pub(crate) fn from_zero(values: impl IntoIterator<Item = f64>) -> Range<f64> {
    // Zero is always among the values, so the bounds exist.
    let (lo, hi) =
        bounds(values.into_iter().filter(|v| v.is_finite()).chain([0.0])).unwrap_or((0.0, 0.0));
    if lo == hi {
        return 0.0..1.0;
    }
    let pad = (hi - lo) * MARGIN;
    let start = if lo < 0.0 { lo - pad } else { 0.0 };
    let end = if hi > 0.0 { hi + pad } else { 0.0 };
    start..end
}

/// A range for a log axis covering the finite positive `values`, with margins in log space;
/// `1..10` when there are none.
pub(crate) fn log(values: impl IntoIterator<Item = f64>) -> Range<f64> {
    match bounds(positive_logs(values)) {
        None => 1.0..10.0,
        Some((lo, hi)) => {
            let pad = if lo == hi { 0.5 } else { (hi - lo) * MARGIN };
            10f64.powf(lo - pad)..10f64.powf(hi + pad)
        }
    }
}

/// Whether the finite positive `values` span at least `decades` powers of ten.
pub(crate) fn spans_decades(values: impl IntoIterator<Item = f64>, decades: f64) -> bool {
    bounds(positive_logs(values)).is_some_and(|(lo, hi)| hi - lo >= decades)
}

fn positive_logs(values: impl IntoIterator<Item = f64>) -> impl Iterator<Item = f64> {
    values
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(f64::log10)
}

/// The minimum and maximum of `values`, if any.
fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_never_empty() {
        assert_eq!(linear([]), 0.0..1.0);
        assert_eq!(linear([f64::NAN, 2.0]), 1.5..2.5);
        assert_eq!(from_zero([0.0]), 0.0..1.0);
        assert_eq!(log([0.0, -1.0]), 1.0..10.0);
        let r = log([1.0, 1000.0]);
        assert!(r.start < 1.0 && r.end > 1000.0);
        assert!(spans_decades([1.0, 150.0], 2.0) && !spans_decades([1.0, 50.0], 2.0));
    }
}
