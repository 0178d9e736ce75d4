//! The per-node foreground-CPU predictor: a moving average over the last `window` samples.
//!
//! RHIC predicts each interactive node's foreground (tenant) CPU for the next interval and
//! ranks volunteers by the residual `CPU_max − predicted foreground`.

use std::collections::VecDeque;

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
