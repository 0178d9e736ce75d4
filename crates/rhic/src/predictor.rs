//! The per-node foreground-CPU predictor: a moving average over the last `window` samples.
//!
//! RHIC predicts each interactive node's foreground (tenant) CPU for the next interval and
//! ranks volunteers by the residual `CPU_max − predicted foreground`.

use crate::search::Candidate;
use cosched_core::NodeId;
use std::collections::{BTreeMap, VecDeque};

/// A moving average of the last `window` foreground-CPU samples of one node.
///
/// ```
/// use cosched_rhic::MovingAverage;
/// let mut m = MovingAverage::new(2);
/// assert_eq!(m.predict(), None);
/// m.push(1.0);
/// m.push(2.0);
/// m.push(4.0);
/// assert_eq!(m.predict(), Some(3.0)); // (2 + 4) / 2
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct MovingAverage {
    window: usize,
    samples: VecDeque<f64>,
}

impl MovingAverage {
    /// An empty average over `window` samples (a window of 0 is taken as 1).
    pub fn new(window: usize) -> Self {
        let window = window.max(1);
        MovingAverage {
            window,
            samples: VecDeque::with_capacity(window),
        }
    }

    /// Records one sample, evicting the oldest beyond the window.
    pub fn push(&mut self, x: f64) {
        if self.samples.len() == self.window {
            self.samples.pop_front();
        }
        self.samples.push_back(x);
    }

    /// The mean of the samples in the window, `None` before the first one.
    pub fn predict(&self) -> Option<f64> {
        (!self.samples.is_empty())
            .then(|| self.samples.iter().sum::<f64>() / self.samples.len() as f64)
    }
}

/// Every known interactive node's foreground predictor and free memory: the view RHIC and the
/// baselines share, so that they rank volunteers by the same mechanism.
///
/// ```
/// use cosched_core::NodeId;
/// use cosched_rhic::ForegroundTable;
/// let mut t = ForegroundTable::new(2);
/// t.observe(NodeId(3), 1.0, 4096);
/// t.observe(NodeId(3), 3.0, 2048);
/// let c = t.candidates(4.0);
/// assert_eq!((c[0].residual_cpu, c[0].free_memory_mb), (2.0, 2048)); // 4 − (1 + 3) / 2
/// t.remove(NodeId(3));
/// assert!(t.candidates(4.0).is_empty());
/// ```
#[derive(Clone, Debug)]
pub struct ForegroundTable {
    window: usize,
    nodes: BTreeMap<NodeId, (MovingAverage, u64)>,
}

impl ForegroundTable {
    /// An empty table whose predictors average `window` samples.
    pub fn new(window: usize) -> Self {
        ForegroundTable {
            window,
            nodes: BTreeMap::new(),
        }
    }

    /// One foreground-CPU (cores) and free-memory observation; the first registers the node.
    pub fn observe(&mut self, node: NodeId, foreground_cpu: f64, free_memory_mb: u64) {
        let window = self.window;
        let view = self
            .nodes
            .entry(node)
            .or_insert_with(|| (MovingAverage::new(window), free_memory_mb));
        view.0.push(foreground_cpu);
        view.1 = free_memory_mb;
    }

    /// The node left: forget it.
    pub fn remove(&mut self, node: NodeId) {
        self.nodes.remove(&node);
    }

    /// Every node with its predicted residual CPU `cpu_max − moving average` (at least 0), in
    /// node order.
    pub fn candidates(&self, cpu_max: f64) -> Vec<Candidate> {
        self.nodes
            .iter()
            .filter_map(|(&node, (fg, mem))| {
                fg.predict().map(|fg| Candidate {
                    node,
                    residual_cpu: (cpu_max - fg).max(0.0),
                    free_memory_mb: *mem,
                })
            })
            .collect()
    }
}
