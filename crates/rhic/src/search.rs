//! Greedy candidate ordering and the exhaustive search over pool sizes.
//!
//! RHIC screens the volunteers by memory — fewer map slots where memory is short, discarding
//! only a node that fits none (§4.4) — sorts them by their adjusted contribution (predicted
//! residual CPU, at most one core per slot; descending), and evaluates the prefix of every size
//! `k = 0..=n` — the `k` best volunteers — with the I/O curve, the completion model (Eq. 4–5)
//! and the goal; the best-scoring size wins. The sort is O(n log n) and the evaluation O(n) (a
//! running prefix sum, the curve's knots walked forward as it grows), with no allocation
//! beyond the caller's buffer; it stops at the first size past the current one whose projected
//! consumption has reached its cap (the I/O ceiling), beyond which no size can score better,
//! so a pool of thousands of candidates saturating after a hundred costs a hundred
//! evaluations. [`annealing_search`] is the paper's scalable alternative (§4.1).

use crate::completion::{CompletionParams, Progress};
use crate::goal::{CostModel, Goal, Score};
use crate::iocurve::{IoCurve, Projector};
use cosched_core::{NodeId, Time};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

/// A volunteer the controller could use: its predicted residual CPU (cores) and the map slots
/// its free memory holds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// The interactive node hosting the volunteer VM.
    pub node: NodeId,
    /// Predicted `CPU_max − foreground CPU`, cores.
    pub residual_cpu: f64,
    /// Map slots (one core each at most) that fit in its free memory.
    pub slots: u32,
}

impl Candidate {
    /// The CPU the job can use there: the residual, at most one core per slot.
    pub fn contribution(&self) -> f64 {
        self.residual_cpu.min(f64::from(self.slots))
    }
}

/// Memory screening and ordering: writes into `out` (cleared first) the candidates with at
/// least one slot and a finite residual, sorted by [`Candidate::contribution`] descending (ties
/// by node id, so the order is total). O(n log n).
///
/// ```
/// use cosched_core::NodeId;
/// use cosched_rhic::{Candidate, screen_and_sort};
/// let c = |n, r, s| Candidate { node: NodeId(n), residual_cpu: r, slots: s };
/// let mut out = Vec::new();
/// screen_and_sort(&[c(0, 1.0, 16), c(1, 3.0, 0), c(2, 9.0, 2)], &mut out);
/// assert_eq!(out.iter().map(|c| c.node.0).collect::<Vec<_>>(), [2, 0]); // 2 slots > 1 core
/// ```
pub fn screen_and_sort(candidates: &[Candidate], out: &mut Vec<Candidate>) {
    out.clear();
    out.extend(candidates.iter().filter(|c| usable(c)));
    out.sort_unstable_by(candidate_order);
}

/// Whether screening keeps `c`: it fits a slot and its residual CPU is a number.
pub fn usable(c: &Candidate) -> bool {
    c.slots > 0 && c.residual_cpu.is_finite()
}

/// The order [`screen_and_sort`] sorts by: contribution descending, then node ascending (a
/// total order: no two candidates of different nodes compare equal).
pub fn candidate_order(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    b.contribution()
        .total_cmp(&a.contribution())
        .then(a.node.cmp(&b.node))
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
    /// Most CPU the job can consume (the saturation point extrapolated from the disk
    /// utilisation, §4.2; `f64::INFINITY` to ignore I/O): caps the curve past its last knot
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
    /// For a cost goal with an I/O curve whose knots all consume more than nothing: the
    /// lowest estimate any pool can have (the padded remaining time at the most any pool can
    /// be projected to consume, no transition) and the prices. Every size's estimate is at
    /// least it (the floating-point operations are the same and monotone), so a size's score
    /// is at least it times the size's price.
    fn cost_floor(&self) -> Option<(f64, CostModel)> {
        let (Goal::Cost(prices), Some(curve)) = (self.goal, self.curve) else {
            return None;
        };
        let mut most = self.ceiling_cpu;
        for (_, y) in curve.knots() {
            if y.is_nan() || y <= 0.0 {
                return None;
            }
            most = most.max(y);
        }
        // A hair above: an interpolation may round an ulp above its knots.
        let most = most + most * 1e-9;
        let fastest_s = self
            .completion
            .estimate_s(self.progress.remaining_s(most), 0, 0);
        Some((fastest_s, *prices))
    }

    /// Scores a pool of `volunteers` volunteers making `cpu_available` cores available in all
    /// (dedicated included). A non-finite estimate scores `+∞`.
    pub fn evaluate(&self, volunteers: usize, cpu_available: f64) -> Evaluation {
        self.evaluator().evaluate(volunteers, cpu_available).0
    }

    /// What every evaluation of one search shares, computed once.
    fn evaluator(&self) -> Evaluator<'_> {
        Evaluator {
            model: self,
            rate: self.progress.rate(),
            curve: self.curve.map(|c| c.projector(self.ceiling_cpu)),
            price: None,
        }
    }
}

/// [`SearchModel::evaluate`] for the sizes of one search: the progress's rate and the
/// curve's slope past its last knot computed once, its knots walked forward, the last price
/// kept.
struct Evaluator<'a> {
    model: &'a SearchModel<'a>,
    rate: Option<f64>,
    curve: Option<Projector<'a>>,
    /// The last [`CostModel::usd_per_s`] asked for: volunteers, dollars per second.
    price: Option<(usize, f64)>,
}

impl Evaluator<'_> {
    /// `prices.usd_per_s(dedicated, volunteers)`, kept for the next call (the cost floor
    /// asks for the next size's price, then its evaluation).
    fn price(&mut self, prices: &CostModel, volunteers: usize) -> f64 {
        match self.price {
            Some((v, usd)) if v == volunteers => usd,
            _ => {
                let usd = prices.usd_per_s(self.model.dedicated, volunteers);
                self.price = Some((volunteers, usd));
                usd
            }
        }
    }

    /// [`SearchModel::evaluate`], and whether the projected consumption has reached its cap
    /// (no larger `cpu_available` consumes more, [`IoCurve::projection`]).
    #[inline]
    fn evaluate(&mut self, volunteers: usize, cpu_available: f64) -> (Evaluation, bool) {
        let m = self.model;
        let (consumed, capped) = match self.curve.as_mut() {
            Some(c) => c.project(cpu_available),
            None if cpu_available >= m.ceiling_cpu => (m.ceiling_cpu, true),
            None => (cpu_available, false),
        };
        let estimate_s = m.completion.estimate_s(
            m.progress.remaining_s_at(self.rate, consumed),
            m.current,
            volunteers,
        );
        let score = if !estimate_s.is_finite() {
            Score {
                late: matches!(m.goal, Goal::Deadline(_)),
                value: f64::INFINITY,
            }
        } else {
            match m.goal {
                Goal::Deadline(deadline) => {
                    let diff = m.now.0 as f64 + estimate_s - deadline.0 as f64;
                    Score {
                        late: diff > 0.0,
                        value: diff.abs(),
                    }
                }
                Goal::Cost(c) => Score {
                    late: false,
                    value: estimate_s * self.price(c, volunteers),
                },
                Goal::Energy(p) => Score {
                    late: false,
                    value: estimate_s * p.pool_w(m.dedicated, consumed, m.cpu_max),
                },
            }
        };
        let e = Evaluation {
            size: volunteers,
            estimate_s,
            score,
        };
        (e, capped)
    }
}

/// The exhaustive search: evaluates the prefixes of every size `0..=sorted.len()` of
/// `sorted` (as [`screen_and_sort`] leaves it) and returns the best, the smallest size among
/// equal scores. O(n) evaluations with a running prefix sum, stopping where no larger size
/// can score better.
pub fn exhaustive_search(model: &SearchModel<'_>, sorted: &[Candidate]) -> Evaluation {
    let floor = model.cost_floor();
    let mut evaluator = model.evaluator();
    let mut available = model.dedicated_cpu;
    let mut best = evaluator.evaluate(0, available).0;
    for (i, c) in sorted.iter().enumerate() {
        available += c.contribution();
        let (e, capped) = evaluator.evaluate(i + 1, available);
        if e.score < best.score {
            best = e;
        }
        // Past the current size (where the transition term stops changing) with the
        // projection at its cap, every larger pool has this estimate and power and costs at
        // least as much: none scores strictly better, so the search may stop.
        if capped && i + 1 > model.current {
            break;
        }
        // Under a cost goal no larger pool costs less than the fastest estimate any pool
        // has at the next size's price (which only grows with the size).
        if let Some((fastest_s, prices)) = floor
            && fastest_s * evaluator.price(&prices, i + 2) > best.score.value
        {
            break;
        }
    }
    best
}

/// How RHIC searches the pool sizes at an interval boundary (§4.1): every size (the paper's
/// prototype, "all possible volunteer counts (0-36) in 250ms"), or simulated annealing, the
/// alternative the paper implemented "for scalability".
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum SearchMethod {
    /// [`exhaustive_search`].
    #[default]
    Exhaustive,
    /// [`annealing_search`] from the current size, `steps` moves, its random moves drawn from
    /// the named stream `annealing` of `seed`, indexed by the decision's time (the policy
    /// holds no RNG: the same time and seed give the same search).
    Annealing {
        /// Moves per search (1..=1,000,000).
        steps: u32,
        /// Root of the moves' stream.
        seed: u64,
    },
}

/// Simulated annealing over the pool size (§4.1, the alternative for pools too large to
/// evaluate every size): `steps` moves of ±1..±(n/8 + 1) from `start`, accepted when better
/// or with probability `exp(−Δ / T)` (Δ relative to the current score, `T` falling linearly
/// from 0.05 to 0; the schedule is ours, the paper gives none); the moves are drawn from `rng`.
/// Returns the best size seen. Prefix sums are built once, O(n + steps).
///
/// ```
/// use cosched_core::{Duration, NodeId, SeedStreams, Time};
/// use cosched_rhic::*;
/// let sorted: Vec<Candidate> = (0..200)
///     .map(|i| Candidate { node: NodeId(i), residual_cpu: 3.0, slots: 4 })
///     .collect();
/// let p = Progress::new(1000.0, 9000.0, Duration(600), 8.0).unwrap();
/// let (c, g) = (CompletionParams::default(), Goal::Cost(CostModel::default()));
/// let m = SearchModel { now: Time(600), dedicated: 2, dedicated_cpu: 8.0, cpu_max: 4.0,
///     curve: None, ceiling_cpu: 60.0, progress: &p, completion: &c, goal: &g, current: 0 };
/// let exact = exhaustive_search(&m, &sorted);
/// let mut rng = SeedStreams::new(7).stream("annealing", 0);
/// let sa = annealing_search(&m, &sorted, 0, 400, &mut rng);
/// assert!(sa.score.value <= exact.score.value * 1.01);
/// ```
pub fn annealing_search(
    model: &SearchModel<'_>,
    sorted: &[Candidate],
    start: usize,
    steps: u32,
    rng: &mut impl Rng,
) -> Evaluation {
    let n = sorted.len();
    let mut prefix = Vec::with_capacity(n + 1);
    prefix.push(model.dedicated_cpu);
    for c in sorted {
        let last = prefix.last().copied().unwrap_or(0.0);
        prefix.push(last + c.contribution());
    }
    let eval = |k: usize| model.evaluate(k, prefix.get(k).copied().unwrap_or(0.0));
    let mut current = eval(start.min(n));
    let mut best = current;
    let reach = n / 8 + 1;
    for step in 0..steps {
        let by = rng.random_range(1..=reach);
        let k = if rng.random::<bool>() {
            current.size.saturating_add(by).min(n)
        } else {
            current.size.saturating_sub(by)
        };
        let candidate = eval(k);
        let temperature = 0.05 * (1.0 - f64::from(step) / f64::from(steps.max(1)));
        let delta = (candidate.score.value - current.score.value)
            / current.score.value.abs().max(f64::MIN_POSITIVE);
        let accept = candidate.score < current.score
            || (candidate.score.late == current.score.late
                && temperature > 0.0
                && rng.random::<f64>() < (-delta / temperature).exp());
        if accept {
            current = candidate;
        }
        if current.score < best.score {
            best = current;
        }
    }
    best
}
