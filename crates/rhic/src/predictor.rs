//! The per-node foreground-CPU predictor (§4.4): a moving average over the last `window` of
//! time (the paper evaluates 10–60 minutes of history on 1-second samples and picks the moving
//! average, Fig. 8), kept for every interactive node whether or not it is a volunteer.

use crate::search::Candidate;
use cosched_core::{Duration, NodeId, Time};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// A moving average of the samples of the last `window` seconds, O(1) per sample and query.
///
/// ```
/// use cosched_core::{Duration, Time};
/// use cosched_rhic::MovingAverage;
/// let mut m = MovingAverage::new(Duration(10));
/// assert_eq!(m.predict(), None);
/// m.push(Time(0), 1.0);
/// m.push(Time(5), 2.0);
/// m.push(Time(12), 4.0); // the sample of t = 0 is older than 10 s: evicted
/// assert_eq!(m.predict(), Some(3.0));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MovingAverage {
    window: Duration,
    samples: VecDeque<(Time, f64)>,
    sum: f64,
}

impl MovingAverage {
    /// An empty average over `window` (at least 1 s).
    pub fn new(window: Duration) -> Self {
        MovingAverage {
            window: Duration(window.0.max(1)),
            samples: VecDeque::new(),
            sum: 0.0,
        }
    }

    /// Records the sample taken at `at`, evicting those at or before `at − window`.
    pub fn push(&mut self, at: Time, x: f64) {
        let x = if x.is_finite() { x } else { 0.0 };
        self.samples.push_back((at, x));
        self.sum += x;
        while let Some(&(t, old)) = self.samples.front() {
            if at.0.saturating_sub(t.0) < self.window.0 {
                break;
            }
            self.samples.pop_front();
            self.sum -= old;
        }
        if self.samples.len() == 1 {
            self.sum = x; // no drift from long runs of additions and removals
        }
    }

    /// The mean of the samples in the window, `None` before the first one.
    pub fn predict(&self) -> Option<f64> {
        (!self.samples.is_empty()).then(|| self.sum / self.samples.len() as f64)
    }
}

/// What the controller knows of one interactive node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct NodeView {
    foreground: MovingAverage,
    free_memory_mb: u64,
    /// Its own `CPU_max`, cores, when reported (else the table's default).
    cpu_max: Option<f64>,
}

/// Every known interactive node's foreground predictor and free memory: the view RHIC and the
/// baselines share, so that they rank volunteers by the same mechanism (§5.3: FUZZY and the
/// targeted runs use RHIC's selection).
///
/// ```
/// use cosched_core::{Duration, NodeId, Time};
/// use cosched_rhic::ForegroundTable;
/// let mut t = ForegroundTable::new(Duration(600));
/// t.observe(Time(0), NodeId(3), 1.0, 4096);
/// t.observe(Time(1), NodeId(3), 3.0, 2048);
/// let c = t.candidates(4.0, 256);
/// assert_eq!((c[0].residual_cpu, c[0].slots), (2.0, 4)); // 4 − (1 + 3) / 2; 8 slots fit, 4 cores
/// t.remove(NodeId(3));
/// assert!(t.candidates(4.0, 256).is_empty());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForegroundTable {
    window: Duration,
    nodes: BTreeMap<NodeId, NodeView>,
}

impl ForegroundTable {
    /// An empty table whose predictors average the last `window`.
    pub fn new(window: Duration) -> Self {
        ForegroundTable {
            window,
            nodes: BTreeMap::new(),
        }
    }

    /// One foreground-CPU (cores) and free-memory observation at `at`; the first registers
    /// the node.
    pub fn observe(&mut self, at: Time, node: NodeId, foreground_cpu: f64, free_memory_mb: u64) {
        let window = self.window;
        let view = self.nodes.entry(node).or_insert_with(|| NodeView {
            foreground: MovingAverage::new(window),
            free_memory_mb,
            cpu_max: None,
        });
        view.foreground.push(at, foreground_cpu);
        view.free_memory_mb = free_memory_mb;
    }

    /// The node's own CPU capacity, cores; ignored unless finite and > 0 (the node keeps the
    /// default). Registers the node (a candidate from its first reading on).
    ///
    /// ```
    /// use cosched_core::{Duration, NodeId, Time};
    /// use cosched_rhic::ForegroundTable;
    /// let mut t = ForegroundTable::new(Duration(600));
    /// t.set_capacity(NodeId(1), 8.0);
    /// t.observe(Time(0), NodeId(1), 2.0, 8192);
    /// t.observe(Time(0), NodeId(2), 2.0, 8192);
    /// let c = t.candidates(16.0, 256);
    /// assert_eq!((c[0].residual_cpu, c[0].slots), (6.0, 8)); // 8 cores
    /// assert_eq!((c[1].residual_cpu, c[1].slots), (14.0, 16)); // the default 16
    /// ```
    pub fn set_capacity(&mut self, node: NodeId, cpu_max: f64) {
        if !(cpu_max.is_finite() && cpu_max > 0.0) {
            return;
        }
        let window = self.window;
        self.nodes
            .entry(node)
            .or_insert_with(|| NodeView {
                foreground: MovingAverage::new(window),
                free_memory_mb: 0,
                cpu_max: None,
            })
            .cpu_max = Some(cpu_max);
    }

    /// The CPU capacity the node reported ([`ForegroundTable::set_capacity`]), if any.
    pub fn capacity(&self, node: NodeId) -> Option<f64> {
        self.nodes.get(&node).and_then(|v| v.cpu_max)
    }

    /// The node left: forget it.
    pub fn remove(&mut self, node: NodeId) {
        self.nodes.remove(&node);
    }

    /// Nodes known.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no node is known.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every node with its predicted residual CPU `CPU_max − moving average` (at least 0) and
    /// the map slots its free memory holds at `slot_memory_mb` each (at most one per core), in
    /// node order; `CPU_max` is the node's own ([`ForegroundTable::set_capacity`]) or
    /// `cpu_max`.
    pub fn candidates(&self, cpu_max: f64, slot_memory_mb: u64) -> Vec<Candidate> {
        let mut out = Vec::with_capacity(self.nodes.len());
        self.candidates_into(cpu_max, slot_memory_mb, &mut out);
        out
    }

    /// [`ForegroundTable::candidates`] into a reused buffer (cleared first).
    pub fn candidates_into(&self, cpu_max: f64, slot_memory_mb: u64, out: &mut Vec<Candidate>) {
        out.clear();
        out.extend(self.nodes.iter().filter_map(|(&node, view)| {
            view.foreground.predict().map(|fg| {
                let cpu_max = view.cpu_max.unwrap_or(cpu_max);
                let max_slots = cpu_max.floor().clamp(0.0, f64::from(u32::MAX)) as u32;
                let fit = view.free_memory_mb / slot_memory_mb.max(1);
                Candidate {
                    node,
                    residual_cpu: (cpu_max - fg).max(0.0),
                    slots: u32::try_from(fit).unwrap_or(u32::MAX).min(max_slots),
                }
            })
        }));
    }
}

/// The foreground predictors the paper compares in Fig. 8 (§4.4), each predicting the mean
/// foreground CPU over the next `lookahead` samples from a history of samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PredictorKind {
    /// The mean of the history (RHIC's choice).
    MovingAverage,
    /// An autoregressive model of the given order, fitted by least squares on the history and
    /// iterated over the lookahead.
    AutoRegression(usize),
    /// Signature matching: the lag (at least the lookahead) with the highest autocorrelation;
    /// the samples one lag before the lookahead window repeat. Falls back to the moving average
    /// when no lag correlates above 0.5, as the paper notes it does (§4.4).
    AutoCorrelation,
    /// The hybrid of the authors' earlier work (§4.4, ref. [25], CloudScale, whose predictor is
    /// PRESS): a *signature* when the history repeats, else a discrete-time *Markov chain*.
    /// [`FftMarkov::predict`] gives the details.
    FftMarkov,
}

impl PredictorKind {
    /// The name used in tables.
    pub fn name(self) -> String {
        match self {
            PredictorKind::MovingAverage => "moving average".to_owned(),
            PredictorKind::AutoRegression(p) => format!("AR({p})"),
            PredictorKind::AutoCorrelation => "auto-correlation".to_owned(),
            PredictorKind::FftMarkov => "FFT+Markov".to_owned(),
        }
    }

    /// The predicted mean of the next `lookahead` samples after `history` (`None` for an empty
    /// history or a lookahead of 0).
    ///
    /// ```
    /// use cosched_rhic::predictor::PredictorKind;
    /// let h = [10.0, 20.0, 10.0, 20.0, 10.0, 20.0, 10.0, 20.0];
    /// assert_eq!(PredictorKind::MovingAverage.predict(&h, 2), Some(15.0));
    /// let ar = PredictorKind::AutoRegression(1).predict(&h, 1).unwrap();
    /// assert!((ar - 10.0).abs() < 1e-6, "{ar}"); // x_t = 30 − x_{t−1}
    /// ```
    pub fn predict(self, history: &[f64], lookahead: usize) -> Option<f64> {
        if history.is_empty() || lookahead == 0 {
            return None;
        }
        let mean = history.iter().sum::<f64>() / history.len() as f64;
        Some(match self {
            PredictorKind::MovingAverage => mean,
            PredictorKind::AutoRegression(p) => {
                autoregression(history, p, lookahead).unwrap_or(mean)
            }
            PredictorKind::AutoCorrelation => autocorrelation(history, lookahead).unwrap_or(mean),
            PredictorKind::FftMarkov => FftMarkov::default()
                .predict(history, lookahead)
                .unwrap_or(mean),
        })
    }
}

/// AR(p) by least squares (ndarray normal equations with Gaussian elimination), iterated.
fn autoregression(history: &[f64], p: usize, lookahead: usize) -> Option<f64> {
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
    let mut window: Vec<f64> = history[n - p..].to_vec();
    let mut sum = 0.0;
    for _ in 0..lookahead {
        let next = coef[0]
            + (1..=p)
                .map(|j| coef[j] * window[window.len() - j])
                .sum::<f64>();
        let next = next.clamp(0.0, 100.0);
        sum += next;
        window.push(next);
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

/// Signature matching on the best-correlated lag ≥ `lookahead`, `None` below 0.5.
fn autocorrelation(history: &[f64], lookahead: usize) -> Option<f64> {
    let n = history.len();
    let mean = history.iter().sum::<f64>() / n as f64;
    let var: f64 = history.iter().map(|x| (x - mean) * (x - mean)).sum();
    if var <= 0.0 || n < 2 * lookahead + 2 {
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

/// The signature-plus-Markov predictor of PRESS (Gong, Gu, Wilkes, CNSM 2010), which the
/// paper's ref. [25] (CloudScale) uses and §4.4 compares as "a hybrid of signature-based Fast
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
    /// use cosched_rhic::predictor::{FftMarkov, FftMarkovPath};
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

    /// A noisy daily-like cycle of period 60 s over 10 minutes is a signature; the
    /// prediction follows the cycle's phase, which a moving average cannot.
    #[test]
    fn fft_markov_finds_a_noisy_period_and_follows_its_phase() {
        let wave = |t: usize| 50.0 + 40.0 * (std::f64::consts::TAU * t as f64 / 60.0).sin();
        let noise = |t: usize| ((t * 7919 % 13) as f64 - 6.0) * 0.5;
        let h: Vec<f64> = (0..600).map(|t| wave(t) + noise(t)).collect();
        let f = FftMarkov::default();
        let (p, path) = f.predict_with_path(&h, 15).expect("a prediction");
        assert_eq!(path, FftMarkovPath::Signature(60));
        let truth = (600..615).map(wave).sum::<f64>() / 15.0;
        let ma = PredictorKind::MovingAverage
            .predict(&h, 15)
            .expect("a mean");
        assert!((p - truth).abs() < 3.0, "{p} vs {truth}");
        assert!(
            (ma - truth).abs() > 10.0,
            "the moving average {ma} misses the phase"
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
            for kind in [
                PredictorKind::MovingAverage,
                PredictorKind::AutoRegression(3),
                PredictorKind::AutoCorrelation,
                PredictorKind::FftMarkov,
            ] {
                let p = kind.predict(&history, lookahead).expect("a prediction");
                proptest::prop_assert!((0.0..=100.0).contains(&p), "{kind:?}: {p}");
                proptest::prop_assert_eq!(kind.predict(&history, 0), None);
            }
        }
    }

    /// A chain that alternates between two levels predicts their mix; one that stays
    /// predicts its level.
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
        assert_eq!(
            PredictorKind::AutoRegression(usize::MAX).predict(&flat, 5),
            Some(31.0)
        );
    }
}
