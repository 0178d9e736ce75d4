//! Greedy candidate ordering and the exhaustive search over pool sizes.
//!
//! RHIC screens the volunteers by memory, sorts them by predicted residual CPU (descending),
//! and evaluates the prefix of every size `k = 0..=n` — the `k` best volunteers — with the
//! I/O curve, the completion model (Eq. 4–5) and the goal; the best-scoring size wins. The
//! sort is O(n log n) and the evaluation O(n) (a running prefix sum of residual CPU, one
//! O(log knots) curve lookup per size), with no allocation beyond the caller's buffer.

use crate::completion::{CompletionParams, Progress};
use crate::goal::{Goal, Score};
use crate::iocurve::IoCurve;
use cosched_core::{NodeId, Time};

/// A volunteer the controller could use: its predicted residual CPU (cores) and free memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// The interactive node hosting the volunteer VM.
    pub node: NodeId,
    /// Predicted `CPU_max − foreground CPU`, cores.
    pub residual_cpu: f64,
    /// Free memory, MiB.
    pub free_memory_mb: u64,
}

/// Memory screening and ordering: writes into `out` (cleared first) the candidates with at
/// least `vm_memory_mb` free and a finite residual, sorted by residual CPU descending (ties by
/// node id, so the order is total). O(n log n).
///
/// ```
/// use cosched_core::NodeId;
/// use cosched_rhic::{Candidate, screen_and_sort};
/// let c = |n, r, m| Candidate { node: NodeId(n), residual_cpu: r, free_memory_mb: m };
/// let mut out = Vec::new();
/// screen_and_sort(&[c(0, 1.0, 4096), c(1, 3.0, 512), c(2, 2.0, 2048)], 1024, &mut out);
/// assert_eq!(out.iter().map(|c| c.node.0).collect::<Vec<_>>(), [2, 0]);
/// ```
pub fn screen_and_sort(candidates: &[Candidate], vm_memory_mb: u64, out: &mut Vec<Candidate>) {
    out.clear();
    out.extend(
        candidates
            .iter()
            .filter(|c| c.free_memory_mb >= vm_memory_mb && c.residual_cpu.is_finite()),
    );
    out.sort_unstable_by(|a, b| {
        b.residual_cpu
            .total_cmp(&a.residual_cpu)
            .then(a.node.cmp(&b.node))
    });
}

/// Everything the score of one pool size depends on.
#[derive(Clone, Copy, Debug)]
pub struct SearchModel<'a> {
    /// Now, for the deadline goal.
    pub now: Time,
    /// `Count_dedicated`.
    pub dedicated: usize,
    /// CPU the dedicated nodes give the job, cores.
    pub dedicated_cpu: f64,
    /// `CPU_max` of one node, cores (for the power model).
    pub cpu_max: f64,
    /// The learnt I/O curve; without one the job is taken to consume all it is given.
    pub curve: Option<&'a IoCurve>,
    /// Most CPU the job can consume (Eq. 2's dedicated plus supportable volunteer CPU once
    /// profiled, `f64::INFINITY` before): caps the curve's extrapolation
    /// ([`IoCurve::projected`]).
    pub ceiling_cpu: f64,
    /// Progress so far (Eq. 4).
    pub progress: &'a Progress,
    /// Padding and transition damping.
    pub completion: &'a CompletionParams,
    /// What to optimise.
    pub goal: &'a Goal,
    /// Volunteers in use now (for the transition damping).
    pub current: usize,
}

/// The outcome of evaluating one pool size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    /// Number of volunteers (the prefix length).
    pub size: usize,
    /// Damped completion estimate from now, seconds.
    pub estimate_s: f64,
    /// The goal's score (lower is better).
    pub score: Score,
}

impl SearchModel<'_> {
    /// Scores a pool of `volunteers` volunteers making `cpu_available` cores available in all
    /// (dedicated included). A non-finite estimate scores `+∞`.
    pub fn evaluate(&self, volunteers: usize, cpu_available: f64) -> Evaluation {
        let consumed = self.curve.map_or(cpu_available.min(self.ceiling_cpu), |c| {
            c.projected(cpu_available, self.ceiling_cpu)
        });
        let estimate_s = self.completion.estimate_s(
            self.progress.remaining_s(consumed),
            self.current,
            volunteers,
        );
        let score = if !estimate_s.is_finite() {
            Score {
                late: matches!(self.goal, Goal::Deadline(_)),
                value: f64::INFINITY,
            }
        } else {
            match self.goal {
                Goal::Deadline(deadline) => {
                    let diff = self.now.0 as f64 + estimate_s - deadline.0 as f64;
                    Score {
                        late: diff > 0.0,
                        value: diff.abs(),
                    }
                }
                Goal::Cost(c) => Score {
                    late: false,
                    value: estimate_s * c.usd_per_s(self.dedicated, volunteers),
                },
                Goal::Energy(p) => Score {
                    late: false,
                    value: estimate_s * p.pool_w(self.dedicated, consumed, self.cpu_max),
                },
            }
        };
        Evaluation {
            size: volunteers,
            estimate_s,
            score,
        }
    }
}

/// The exhaustive search: evaluates the prefixes of every size `0..=sorted.len()` of
/// `sorted` (as [`screen_and_sort`] leaves it) and returns the best, the smallest size among
/// equal scores. O(n) evaluations with a running prefix sum.
pub fn exhaustive_search(model: &SearchModel<'_>, sorted: &[Candidate]) -> Evaluation {
    let mut available = model.dedicated_cpu;
    let mut best = model.evaluate(0, available);
    for (i, c) in sorted.iter().enumerate() {
        available += c.residual_cpu;
        let e = model.evaluate(i + 1, available);
        if e.score < best.score {
            best = e;
        }
    }
    best
}
