//! The per-node foreground-CPU predictor (§4.4): a moving average over the last `window` of
//! time (the paper evaluates 10–60 minutes of history on 1-second samples and picks the moving
//! average, Fig. 8), kept for every interactive node whether or not it is a volunteer.

use crate::search::Candidate;
use cosched_core::{Duration, NodeId, Time};
use cosched_forecast::series::{self, FftMarkov};
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

impl NodeView {
    /// The node as a candidate: its predicted residual CPU and the slots that fit.
    fn candidate(&self, node: NodeId, cpu_max: f64, slot_memory_mb: u64) -> Option<Candidate> {
        self.foreground.predict().map(|fg| {
            let cpu_max = self.cpu_max.unwrap_or(cpu_max);
            let max_slots = cpu_max.floor().clamp(0.0, f64::from(u32::MAX)) as u32;
            let fit = self.free_memory_mb / slot_memory_mb.max(1);
            Candidate {
                node,
                residual_cpu: (cpu_max - fg).max(0.0),
                slots: u32::try_from(fit).unwrap_or(u32::MAX).min(max_slots),
            }
        })
    }
}

/// Every known interactive node's foreground predictor and free memory: the view RHIC and the
/// baselines share, so that they rank volunteers by the same mechanism (§5.3: FUZZY and the
/// targeted runs use RHIC's selection).
///
/// ```
/// use cosched_core::{Duration, NodeId, Time};
/// use cosched_rhic::ForegroundTable;
/// let mut t = ForegroundTable::new(Duration(600));
/// t.observe(Time(0), NodeId(3), 4.0, 1.0, 4096);
/// t.observe(Time(1), NodeId(3), 4.0, 3.0, 2048);
/// let c = t.candidates(16.0, 256);
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

    /// One reading at `at` of a node of `cores` cores (its own `CPU_max`; ignored unless
    /// finite and > 0, the node then keeps the table's default): its foreground CPU (cores)
    /// and free memory. The first registers the node. Returns whether the node's candidate
    /// may have changed: it is new, or its prediction, free memory or capacity moved.
    ///
    /// ```
    /// use cosched_core::{Duration, NodeId, Time};
    /// use cosched_rhic::ForegroundTable;
    /// let mut t = ForegroundTable::new(Duration(600));
    /// t.observe(Time(0), NodeId(1), 8.0, 2.0, 8192);
    /// t.observe(Time(0), NodeId(2), f64::NAN, 2.0, 8192);
    /// let c = t.candidates(16.0, 256);
    /// assert_eq!((c[0].residual_cpu, c[0].slots), (6.0, 8)); // 8 cores
    /// assert_eq!((c[1].residual_cpu, c[1].slots), (14.0, 16)); // the default 16
    /// ```
    pub fn observe(
        &mut self,
        at: Time,
        node: NodeId,
        cores: f64,
        foreground_cpu: f64,
        free_memory_mb: u64,
    ) -> bool {
        let window = self.window;
        let mut new = false;
        let view = self.nodes.entry(node).or_insert_with(|| {
            new = true;
            NodeView {
                foreground: MovingAverage::new(window),
                free_memory_mb,
                cpu_max: None,
            }
        });
        let before = (view.foreground.predict(), view.free_memory_mb, view.cpu_max);
        view.foreground.push(at, foreground_cpu);
        view.free_memory_mb = free_memory_mb;
        if cores.is_finite() && cores > 0.0 {
            view.cpu_max = Some(cores);
        }
        new || before != (view.foreground.predict(), view.free_memory_mb, view.cpu_max)
    }

    /// The CPU capacity the node reported ([`ForegroundTable::observe`]), if any.
    pub fn capacity(&self, node: NodeId) -> Option<f64> {
        self.nodes.get(&node).and_then(|v| v.cpu_max)
    }

    /// The node left: forget it. Returns whether it was known.
    pub fn remove(&mut self, node: NodeId) -> bool {
        self.nodes.remove(&node).is_some()
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
    /// node order; `CPU_max` is the node's own ([`ForegroundTable::observe`]) or
    /// `cpu_max`.
    pub fn candidates(&self, cpu_max: f64, slot_memory_mb: u64) -> Vec<Candidate> {
        let mut out = Vec::with_capacity(self.nodes.len());
        self.candidates_into(cpu_max, slot_memory_mb, &mut out);
        out
    }

    /// [`ForegroundTable::candidates`] into a reused buffer (cleared first).
    pub fn candidates_into(&self, cpu_max: f64, slot_memory_mb: u64, out: &mut Vec<Candidate>) {
        out.clear();
        out.extend(
            self.nodes
                .iter()
                .filter_map(|(&node, view)| view.candidate(node, cpu_max, slot_memory_mb)),
        );
    }

    /// `node`'s entry of [`ForegroundTable::candidates`], if it has a prediction.
    pub fn candidate(&self, node: NodeId, cpu_max: f64, slot_memory_mb: u64) -> Option<Candidate> {
        self.nodes
            .get(&node)
            .and_then(|view| view.candidate(node, cpu_max, slot_memory_mb))
    }
}

/// The foreground predictors the paper compares in Fig. 8 (§4.4), each predicting the mean
/// foreground CPU over the next `lookahead` samples from a history of samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PredictorKind {
    /// The mean of the history (RHIC's choice).
    MovingAverage,
    /// An autoregressive model of the given order, fitted by least squares on the history and
    /// iterated over the lookahead ([`series::autoregression`]; the mean when it cannot be
    /// fitted).
    AutoRegression(usize),
    /// Signature matching: the lag (at least the lookahead) with the highest autocorrelation;
    /// the samples one lag before the lookahead window repeat
    /// ([`series::autocorrelation_signature`]). Falls back to the moving average when no lag
    /// correlates above 0.5, as the paper notes it does (§4.4).
    AutoCorrelation,
    /// The hybrid of the authors' earlier work (§4.4, ref. \[25\], CloudScale, whose predictor is
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
                series::autoregression(history, p, lookahead).unwrap_or(mean)
            }
            PredictorKind::AutoCorrelation => {
                series::autocorrelation_signature(history, lookahead).unwrap_or(mean)
            }
            PredictorKind::FftMarkov => FftMarkov::default()
                .predict(history, lookahead)
                .unwrap_or(mean),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Every predictor of Fig. 8 stays within 0–100 on any history of readings in 0–100
        /// (each falls back to the mean where it has no model), and a lookahead of 0 predicts
        /// nothing.
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

    /// An order too large for the history falls back to its mean.
    #[test]
    fn predictors_without_a_model_fall_back_to_the_mean() {
        let flat = vec![31.0; 50];
        assert_eq!(
            PredictorKind::AutoRegression(usize::MAX).predict(&flat, 5),
            Some(31.0)
        );
        assert_eq!(PredictorKind::AutoCorrelation.predict(&flat, 5), Some(31.0));
    }
}
