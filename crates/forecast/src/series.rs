//! Predictors of the mean of a utilisation series' next samples from its recent history: the
//! foreground-load predictors RHIC (Clay, Shen, Ma, Gu, §4.4, Fig. 8; `cosched-rhic`) compares
//! with its moving average — least-squares autoregression ([`autoregression`]), signature
//! matching on the best autocorrelation ([`autocorrelation_signature`]) and PRESS's hybrid of
//! an FFT signature and a Markov chain ([`FftMarkov`]).
//!
//! Values are percentages (`0..=100`, as CPU utilisation readings): the autoregression's
//! iterates and the Markov chain's states are bounded to that range, so no prediction leaves
//! it. Each predictor answers `None` when it has no model for the history (too short, no
//! usable correlation, a singular system), and the caller picks its fallback (RHIC: the mean).
//!
//! # Complexity
//! For a history of `n` samples, an order `p`, a lookahead `h` and `b` Markov states:
//! [`autoregression`] `O(n·p² + p³ + h·p)`; [`autocorrelation_signature`] `O(n²)` (every lag up
//! to `n/2`); [`FftMarkov`] `O(n log n)` for the signature, else `O(n + h·b²)` with `b²` memory
//! (`b` ≤ [`FftMarkov::MAX_BINS`]).

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The mean of the next `lookahead` samples by an autoregressive model of order `p`:
/// `x_t = c + Σⱼ aⱼ x_{t−j}`, fitted by least squares over the history (the `ndarray` normal
/// equations, solved by Gaussian elimination with partial pivoting) and iterated over the
/// lookahead, each iterate clamped to `0..=100`. `None` for `p` 0, a history of at most
/// `2p + 1` samples, or a singular system.
///
/// ```
/// use cosched_forecast::series::autoregression;
/// // x_t = 30 − x_{t−1}: after 10 comes 20.
/// let h = [10.0, 20.0, 10.0, 20.0, 10.0, 20.0, 10.0, 20.0, 10.0];
/// let next = autoregression(&h, 1, 1).unwrap();
/// assert!((next - 20.0).abs() < 1e-6, "{next}");
/// assert_eq!(autoregression(&h, 4, 1), None); // 9 samples are too few for order 4
/// ```
pub fn autoregression(history: &[f64], p: usize, lookahead: usize) -> Option<f64> {
    use ndarray::{Array1, Array2};
    let n = history.len();
    if p == 0 || n <= p.saturating_mul(2).saturating_add(1) {
        return None;
    }
    let rows = n - p;
    let x = Array2::from_shape_fn(
        (rows, p + 1),
        |(i, j)| {
            if j == 0 { 1.0 } else { history[i + p - j] }
        },
    );
    let y = Array1::from_iter(history[p..].iter().copied());
    let a = x.t().dot(&x);
    let b = x.t().dot(&y);
    let coef = solve(a, b)?;
    // The last `p` values, oldest first: `window[p − j]` is `x_{t−j}`.
    let mut window: VecDeque<f64> = history[n - p..].iter().copied().collect();
    let mut sum = 0.0;
    for _ in 0..lookahead {
        let next = coef[0] + (1..=p).map(|j| coef[j] * window[p - j]).sum::<f64>();
        let next = next.clamp(0.0, 100.0);
        sum += next;
        window.pop_front();
        window.push_back(next);
    }
    Some(sum / lookahead as f64)
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` if singular.
fn solve(mut a: ndarray::Array2<f64>, mut b: ndarray::Array1<f64>) -> Option<ndarray::Array1<f64>> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[[i, col]].abs().total_cmp(&a[[j, col]].abs()))?;
        if a[[pivot, col]].abs() < 1e-12 {
            return None;
        }
        for k in 0..n {
            a.swap([col, k], [pivot, k]);
        }
        b.swap(col, pivot);
        for row in col + 1..n {
            let f = a[[row, col]] / a[[col, col]];
            for k in col..n {
                a[[row, k]] -= f * a[[col, k]];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = ndarray::Array1::zeros(n);
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| a[[row, k]] * x[k]).sum();
        x[row] = (b[row] - s) / a[[row, row]];
    }
    Some(x)
}

/// The mean of the next `lookahead` samples by signature matching: the lag `L ≥ lookahead`
/// (up to `n/2`) with the highest autocorrelation is taken as the period, and the `lookahead`
/// samples that followed the point one period back repeat. `None` when no lag correlates at
/// least 0.5, the history is constant, or it is shorter than `2·lookahead + 2`.
///
/// ```
/// use cosched_forecast::series::autocorrelation_signature;
/// // A period of 4: 0, 0, 80, 80, 0, 0, 80, 80, … ending in "0, 0"; next come 80, 80.
/// let h: Vec<f64> = (0..42).map(|t| if t % 4 < 2 { 0.0 } else { 80.0 }).collect();
/// assert_eq!(autocorrelation_signature(&h, 2), Some(80.0));
/// assert_eq!(autocorrelation_signature(&[5.0; 40], 2), None);
/// ```
pub fn autocorrelation_signature(history: &[f64], lookahead: usize) -> Option<f64> {
    let n = history.len();
    let mean = history.iter().sum::<f64>() / n as f64;
    let var: f64 = history.iter().map(|x| (x - mean) * (x - mean)).sum();
    if var <= 0.0 || n < lookahead.saturating_mul(2).saturating_add(2) {
        return None;
    }
    let corr = |lag: usize| {
        (lag..n)
            .map(|t| (history[t] - mean) * (history[t - lag] - mean))
            .sum::<f64>()
            / var
    };
    let (lag, best) = (lookahead..=n / 2)
        .map(|lag| (lag, corr(lag)))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    if best < 0.5 {
        return None;
    }
    let start = n - lag;
    let window = &history[start..(start + lookahead).min(n)];
    Some(window.iter().sum::<f64>() / window.len() as f64)
}

/// The signature-plus-Markov predictor of PRESS (Gong, Gu, Wilkes, CNSM 2010), which RHIC's
/// ref. \[25\] (CloudScale) uses and its §4.4 compares as "a hybrid of signature-based Fast
/// Fourier Transform (FFT) and Markov chains".
///
/// 1. **Signature.** The FFT ([`rustfft`]) of the mean-removed history gives the dominant
///    frequency `k` (the largest power among `2..=n/2`); its period `Z = round(n / k)` cuts the
///    most recent `⌊n / Z⌋ · Z` samples into windows of `Z`. When every window correlates with
///    their mean (Pearson) at least `min_correlation` and the windows' means differ by at most
///    `max_mean_gap` (relative), the pattern repeats: the signature (the windows' mean) is
///    replayed over the lookahead.
/// 2. **Markov chain** otherwise: the values are binned into `bins` equal states over
///    `0..=100`, the transition matrix is counted from the history (a state never left stays
///    put), and the state distribution is propagated step by step from the last sample's
///    state; the prediction is the mean over the lookahead of the expected bin centre.
///
/// PRESS's thresholds are not restated in RHIC; `min_correlation` 0.85, `max_mean_gap` 0.05 and
/// 40 bins are ours (PRESS also discretises into a few tens of states).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FftMarkov {
    /// Least Pearson correlation of every window with the signature for it to be used.
    pub min_correlation: f64,
    /// Largest relative difference between a window's mean and the signature's.
    pub max_mean_gap: f64,
    /// Markov states over 0–100 (2..=[`FftMarkov::MAX_BINS`]).
    pub bins: usize,
}

impl Default for FftMarkov {
    fn default() -> Self {
        FftMarkov {
            min_correlation: 0.85,
            max_mean_gap: 0.05,
            bins: 40,
        }
    }
}

/// Which half of [`FftMarkov`] made a prediction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FftMarkovPath {
    /// A repeating signature of this period, samples.
    Signature(usize),
    /// The Markov chain.
    Markov,
}

impl FftMarkov {
    /// Most Markov states: the transition matrix holds `bins²` numbers.
    pub const MAX_BINS: usize = 1000;

    /// The predicted mean of the next `lookahead` samples after `history` (values in 0–100);
    /// `None` for an empty history, a lookahead of 0 or `bins` outside `2..=MAX_BINS`.
    ///
    /// ```
    /// use cosched_forecast::series::{FftMarkov, FftMarkovPath};
    /// // A square wave of period 20 (10 s at 80 %, 10 s at 0 %), 6 periods of history: the
    /// // signature repeats, and the next 10 samples are the high half.
    /// let h: Vec<f64> = (0..120).map(|t| if t % 20 < 10 { 80.0 } else { 0.0 }).collect();
    /// let f = FftMarkov::default();
    /// let (p, path) = f.predict_with_path(&h, 10).unwrap();
    /// assert_eq!(path, FftMarkovPath::Signature(20));
    /// assert!((p - 80.0).abs() < 1e-9, "{p}");
    /// // Noise with no period: the Markov chain.
    /// let noise: Vec<f64> = (0..120u64).map(|t| ((t * 7919) % 97) as f64).collect();
    /// assert_eq!(f.predict_with_path(&noise, 10).unwrap().1, FftMarkovPath::Markov);
    /// ```
    pub fn predict(&self, history: &[f64], lookahead: usize) -> Option<f64> {
        self.predict_with_path(history, lookahead).map(|(p, _)| p)
    }

    /// [`FftMarkov::predict`] and which half predicted.
    pub fn predict_with_path(
        &self,
        history: &[f64],
        lookahead: usize,
    ) -> Option<(f64, FftMarkovPath)> {
        if history.is_empty() || lookahead == 0 || !(2..=Self::MAX_BINS).contains(&self.bins) {
            return None;
        }
        if let Some((signature, period)) = self.signature(history) {
            let sum: f64 = (0..lookahead)
                .map(|j| signature.get(j % period).copied().unwrap_or(0.0))
                .sum();
            return Some((sum / lookahead as f64, FftMarkovPath::Signature(period)));
        }
        Some((self.markov(history, lookahead), FftMarkovPath::Markov))
    }

    /// The repeating signature of `history` and its period, if it has one.
    fn signature(&self, history: &[f64]) -> Option<(Vec<f64>, usize)> {
        use rustfft::{FftPlanner, num_complex::Complex};
        let n = history.len();
        if n < 8 {
            return None;
        }
        let mean = history.iter().sum::<f64>() / n as f64;
        let mut buf: Vec<Complex<f64>> = history
            .iter()
            .map(|&x| Complex::new(x - mean, 0.0))
            .collect();
        FftPlanner::new().plan_fft_forward(n).process(&mut buf);
        // k = 1 is one period over the whole history: no repetition to check.
        let k = (2..=n / 2).max_by(|&a, &b| buf[a].norm_sqr().total_cmp(&buf[b].norm_sqr()))?;
        if buf[k].norm_sqr() <= f64::EPSILON {
            return None;
        }
        let period = ((n as f64 / k as f64).round() as usize).max(2);
        let windows = n / period;
        if windows < 2 {
            return None;
        }
        let start = n - windows * period;
        let chunks: Vec<&[f64]> = history[start..].chunks_exact(period).collect();
        let signature: Vec<f64> = (0..period)
            .map(|i| chunks.iter().map(|w| w[i]).sum::<f64>() / windows as f64)
            .collect();
        let sig_mean = signature.iter().sum::<f64>() / period as f64;
        let repeats = chunks.iter().all(|w| {
            let w_mean = w.iter().sum::<f64>() / period as f64;
            pearson(w, &signature).is_some_and(|r| r >= self.min_correlation)
                && (w_mean - sig_mean).abs() <= self.max_mean_gap * sig_mean.abs().max(1e-9)
        });
        repeats.then_some((signature, period))
    }

    /// The Markov chain's mean expected value over the lookahead.
    fn markov(&self, history: &[f64], lookahead: usize) -> f64 {
        use ndarray::{Array1, Array2};
        let m = self.bins;
        let width = 100.0 / m as f64;
        let state = |x: f64| ((x.clamp(0.0, 100.0) / width) as usize).min(m - 1);
        let mut counts = Array2::<f64>::zeros((m, m));
        for pair in history.windows(2) {
            counts[[state(pair[0]), state(pair[1])]] += 1.0;
        }
        for (i, mut row) in counts.rows_mut().into_iter().enumerate() {
            let total = row.sum();
            if total > 0.0 {
                row /= total;
            } else {
                row[i] = 1.0;
            }
        }
        let centres = Array1::from_shape_fn(m, |i| (i as f64 + 0.5) * width);
        let mut p = Array1::<f64>::zeros(m);
        if let Some(&last) = history.last() {
            p[state(last)] = 1.0;
        }
        let mut sum = 0.0;
        for _ in 0..lookahead {
            p = p.dot(&counts);
            sum += p.dot(&centres);
        }
        sum / lookahead as f64
    }
}

/// Pearson's correlation of two equally long series; `None` when either is constant.
fn pearson(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len().min(b.len()) as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    (saa > 0.0 && sbb > 0.0).then(|| sab / (saa * sbb).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A noisy cycle of period 60 s over 10 minutes is a signature; the prediction follows
    /// the cycle's phase, which the history's mean cannot.
    #[test]
    fn fft_markov_finds_a_noisy_period_and_follows_its_phase() {
        let wave = |t: usize| 50.0 + 40.0 * (std::f64::consts::TAU * t as f64 / 60.0).sin();
        let noise = |t: usize| ((t * 7919 % 13) as f64 - 6.0) * 0.5;
        let h: Vec<f64> = (0..600).map(|t| wave(t) + noise(t)).collect();
        let f = FftMarkov::default();
        let (p, path) = f.predict_with_path(&h, 15).expect("a prediction");
        assert_eq!(path, FftMarkovPath::Signature(60));
        let truth = (600..615).map(wave).sum::<f64>() / 15.0;
        let mean = h.iter().sum::<f64>() / h.len() as f64;
        assert!((p - truth).abs() < 3.0, "{p} vs {truth}");
        assert!(
            (mean - truth).abs() > 10.0,
            "the mean {mean} misses the phase"
        );
    }

    proptest::proptest! {
        /// Every predictor stays within 0–100 on any history of readings in 0–100, and a
        /// lookahead of 0 predicts nothing.
        #[test]
        fn predictions_stay_in_range(
            history in proptest::collection::vec(0.0f64..=100.0, 1..400),
            lookahead in 1usize..120,
        ) {
            let f = FftMarkov::default();
            let predictions = [
                autoregression(&history, 3, lookahead),
                autocorrelation_signature(&history, lookahead),
                f.predict(&history, lookahead),
            ];
            for p in predictions.into_iter().flatten() {
                proptest::prop_assert!((0.0..=100.0).contains(&p), "{p}");
            }
            proptest::prop_assert!(f.predict(&history, lookahead).is_some());
            proptest::prop_assert_eq!(f.predict(&history, 0), None);
        }
    }

    /// A chain that stays predicts its level; absurd orders and state counts predict nothing.
    #[test]
    fn the_markov_chain_propagates_the_counted_transitions() {
        let f = FftMarkov::default();
        let flat = vec![31.0; 50];
        assert_eq!(
            f.predict_with_path(&flat, 5).map(|x| x.1),
            Some(FftMarkovPath::Markov)
        );
        let p = f.predict(&flat, 5).expect("a prediction");
        assert!((p - 31.25).abs() < 1e-9, "{p}"); // the centre of bin 12 of 40
        let absurd = FftMarkov {
            bins: usize::MAX,
            ..f
        };
        assert_eq!(absurd.predict(&flat, 5), None);
        assert_eq!(autoregression(&flat, usize::MAX, 5), None);
        let wave: Vec<f64> = (0..50).map(|t| f64::from(t % 5) * 10.0).collect();
        assert_eq!(autocorrelation_signature(&wave, usize::MAX), None);
    }

    /// The iterated autoregression reads the last `p` values in order: an AR(2) that
    /// alternates two levels with a period of 4 keeps the phase over a long lookahead.
    #[test]
    fn the_autoregression_iterates_over_the_lookahead() {
        let h: Vec<f64> = (0..40).map(|t| [10.0, 20.0, 30.0, 20.0][t % 4]).collect();
        // x_t = 40 − x_{t−2}; the history ends …, 30, 20: next 10, 20, 30, 20.
        let p = autoregression(&h, 2, 4).expect("a fit");
        assert!((p - 20.0).abs() < 1e-6, "{p}");
        let first = autoregression(&h, 2, 1).expect("a fit");
        assert!((first - 10.0).abs() < 1e-6, "{first}");
    }
}
