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
