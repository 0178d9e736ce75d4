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
        });
        view.foreground.push(at, foreground_cpu);
        view.free_memory_mb = free_memory_mb;
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

    /// Every node with its predicted residual CPU `cpu_max − moving average` (at least 0) and
    /// the map slots its free memory holds at `slot_memory_mb` each (at most one per core), in
    /// node order.
    pub fn candidates(&self, cpu_max: f64, slot_memory_mb: u64) -> Vec<Candidate> {
        let mut out = Vec::with_capacity(self.nodes.len());
        self.candidates_into(cpu_max, slot_memory_mb, &mut out);
        out
    }

    /// [`ForegroundTable::candidates`] into a reused buffer (cleared first).
    pub fn candidates_into(&self, cpu_max: f64, slot_memory_mb: u64, out: &mut Vec<Candidate>) {
        out.clear();
        let max_slots = cpu_max.floor().max(0.0) as u32;
        out.extend(self.nodes.iter().filter_map(|(&node, view)| {
            view.foreground.predict().map(|fg| {
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
}

impl PredictorKind {
    /// The name used in tables.
    pub fn name(self) -> String {
        match self {
            PredictorKind::MovingAverage => "moving average".to_owned(),
            PredictorKind::AutoRegression(p) => format!("AR({p})"),
            PredictorKind::AutoCorrelation => "auto-correlation".to_owned(),
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
        })
    }
}

/// AR(p) by least squares (ndarray normal equations with Gaussian elimination), iterated.
fn autoregression(history: &[f64], p: usize, lookahead: usize) -> Option<f64> {
    use ndarray::{Array1, Array2};
    let n = history.len();
    if p == 0 || n <= 2 * p + 1 {
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
