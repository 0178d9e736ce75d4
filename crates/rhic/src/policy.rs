//! The RHIC controller: a plain struct that takes observations and returns pool decisions.
//!
//! Each evaluation interval it predicts every volunteer's residual CPU ([`ForegroundTable`]),
//! refits the I/O curve ([`mean_shift`] with ageing, then [`IoCurve`]), and runs the
//! exhaustive search ([`exhaustive_search`]) under its [`Goal`]. Between interval boundaries
//! it defers: the last decision stands, except that a selected volunteer whose predicted
//! residual falls below `replacement_threshold` (or that leaves, or runs short of memory) is
//! replaced by the best unselected candidate above the threshold, or dropped if there is none.
//! Before the job has progress to measure, [`Rhic::initial`] sizes the pool by Algorithm 1.

use crate::completion::{CompletionParams, Progress};
use crate::goal::{Goal, Score};
use crate::iocurve::{IoCurve, IoSample, MeanShiftParams, age_weight, mean_shift};
use crate::predictor::ForegroundTable;
use crate::saturation::{SaturationEstimate, initial_pool_size};
use crate::search::{Candidate, SearchModel, exhaustive_search, screen_and_sort};
use cosched_core::{Duration, NodeId, ParamError, Time};
use std::collections::{BTreeSet, VecDeque};

/// The controller's parameters; checked by [`Rhic::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RhicConfig {
    /// `Count_dedicated` (> 0).
    pub dedicated: u32,
    /// `CPU_max`, cores per node (finite, > 0).
    pub cpu_max: f64,
    /// What to optimise.
    pub goal: Goal,
    /// Straggler padding and transition damping.
    pub completion: CompletionParams,
    /// I/O-curve clustering.
    pub mean_shift: MeanShiftParams,
    /// Half-life of an I/O sample's weight (> 0 s).
    pub sample_half_life: Duration,
    /// I/O samples kept, the newest (> 0).
    pub max_samples: usize,
    /// Foreground samples per node in the moving average (> 0).
    pub predictor_window: usize,
    /// Memory a volunteer VM needs, MiB.
    pub vm_memory_mb: u64,
    /// The evaluation interval (> 0 s).
    pub interval: Duration,
    /// Residual CPU (cores, ≥ 0) below which a selected volunteer is replaced mid-interval.
    pub replacement_threshold: f64,
    /// Algorithm 1's diminishing-returns threshold (≥ 0), see [`initial_pool_size`].
    pub min_marginal_gain: f64,
}

impl RhicConfig {
    /// Defaults around the three required values: no padding or damping, a mean-shift
    /// bandwidth of `cpu_max` and 100 iterations, a 10-minute sample half-life and 256
    /// samples, a 5-sample predictor, 1 GiB VMs, a 5-minute interval, a replacement threshold
    /// of `cpu_max / 10` and a 5 % marginal gain.
    pub fn new(dedicated: u32, cpu_max: f64, goal: Goal) -> Self {
        RhicConfig {
            dedicated,
            cpu_max,
            goal,
            completion: CompletionParams::default(),
            mean_shift: MeanShiftParams {
                bandwidth: cpu_max,
                max_iterations: 100,
            },
            sample_half_life: Duration::from_mins(10),
            max_samples: 256,
            predictor_window: 5,
            vm_memory_mb: 1024,
            interval: Duration::from_mins(5),
            replacement_threshold: cpu_max / 10.0,
            min_marginal_gain: 0.05,
        }
    }

    fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(
            self.dedicated > 0,
            "dedicated",
            self.dedicated,
            "must be > 0",
        )?;
        ParamError::check(
            self.cpu_max.is_finite() && self.cpu_max > 0.0,
            "cpu_max",
            self.cpu_max,
            "must be finite and > 0",
        )?;
        MeanShiftParams::new(self.mean_shift.bandwidth, self.mean_shift.max_iterations)?;
        ParamError::check(
            self.sample_half_life.0 > 0,
            "sample_half_life",
            self.sample_half_life.0,
            "must be > 0 s",
        )?;
        ParamError::check(
            self.max_samples > 0,
            "max_samples",
            self.max_samples,
            "must be > 0",
        )?;
        ParamError::check(
            self.predictor_window > 0,
            "predictor_window",
            self.predictor_window,
            "must be > 0",
        )?;
        ParamError::check(
            self.interval.0 > 0,
            "interval",
            self.interval.0,
            "must be > 0 s",
        )?;
        ParamError::check(
            self.replacement_threshold.is_finite() && self.replacement_threshold >= 0.0,
            "replacement_threshold",
            self.replacement_threshold,
            "must be finite and >= 0",
        )?;
        ParamError::check(
            self.min_marginal_gain.is_finite() && self.min_marginal_gain >= 0.0,
            "min_marginal_gain",
            self.min_marginal_gain,
            "must be finite and >= 0",
        )
    }
}

/// How a [`Decision`] was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionKind {
    /// Algorithm 1, before any progress.
    Initial,
    /// The exhaustive search at an interval boundary.
    Search,
    /// Mid-interval: the last decision, unchanged.
    Deferred,
    /// Mid-interval: the last decision with some volunteers replaced or dropped.
    Replaced,
}

/// The volunteers to use until the interval that starts at `at` ends.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// Start of the interval the decision covers.
    pub at: Time,
    /// The chosen volunteers in the search's order (best predicted residual first); a
    /// replacement takes the slot of the volunteer it replaces.
    pub volunteers: Vec<NodeId>,
    /// The search's completion estimate, seconds from `at` (`None` for Algorithm 1).
    pub estimate_s: Option<f64>,
    /// The search's score (`None` for Algorithm 1).
    pub score: Option<Score>,
    /// How it was reached.
    pub kind: DecisionKind,
}

/// The RHIC controller.
///
/// ```
/// use cosched_core::{Duration, NodeId, Time};
/// use cosched_rhic::{CostModel, DecisionKind, Goal, Progress, Rhic, RhicConfig};
/// let mut rhic = Rhic::new(RhicConfig::new(2, 4.0, Goal::Cost(CostModel::default()))).unwrap();
/// for n in 0..4 {
///     rhic.observe_node(NodeId(n), 1.0, 8192); // 3 cores of residual each
/// }
/// let first = rhic.initial(Time(0), 0.5).unwrap(); // Algorithm 1: ceiling (1/0.5 − 1)·4·2 = 8
/// assert_eq!(first.volunteers.len(), 3);
/// rhic.observe_io(Time(240), 17.0, 17.0); // CPU-bound so far
/// let p = Progress::new(1000.0, 9000.0, Duration(300), 17.0).unwrap();
/// let d = rhic.decide(Time(300), &p);
/// assert_eq!(d.kind, DecisionKind::Search);
/// ```
#[derive(Clone, Debug)]
pub struct Rhic {
    config: RhicConfig,
    nodes: ForegroundTable,
    samples: VecDeque<(Time, f64, f64)>,
    last: Option<Decision>,
    sorted: Vec<Candidate>,
    ceiling_cpu: f64,
}

impl Rhic {
    /// A controller with no observations, or the first parameter out of range.
    pub fn new(config: RhicConfig) -> Result<Self, ParamError> {
        config.validate()?;
        Ok(Rhic {
            config,
            nodes: ForegroundTable::new(config.predictor_window),
            samples: VecDeque::new(),
            last: None,
            sorted: Vec::new(),
            ceiling_cpu: f64::INFINITY,
        })
    }

    /// The parameters.
    pub fn config(&self) -> &RhicConfig {
        &self.config
    }

    /// The last decision, if any.
    pub fn last_decision(&self) -> Option<&Decision> {
        self.last.as_ref()
    }

    /// One foreground-CPU (cores) and free-memory observation of an interactive node; the
    /// first one registers it as a candidate.
    pub fn observe_node(&mut self, node: NodeId, foreground_cpu: f64, free_memory_mb: u64) {
        self.nodes.observe(node, foreground_cpu, free_memory_mb);
    }

    /// The node left (churn): it is no longer a candidate.
    pub fn remove_node(&mut self, node: NodeId) {
        self.nodes.remove(node);
    }

    /// One I/O-curve sample: at `at`, the job had `cpu_available` cores and consumed
    /// `cpu_consumed`. Only the newest `max_samples` are kept.
    pub fn observe_io(&mut self, at: Time, cpu_available: f64, cpu_consumed: f64) {
        if self.samples.len() == self.config.max_samples {
            self.samples.pop_front();
        }
        self.samples.push_back((at, cpu_available, cpu_consumed));
    }

    /// Every known volunteer with its predicted residual CPU, `CPU_max − moving average of
    /// foreground CPU` (at least 0), in node order.
    pub fn candidates(&self) -> Vec<Candidate> {
        self.nodes.candidates(self.config.cpu_max)
    }

    /// The I/O curve as of `now`: mean-shift over the samples weighted by age, then the
    /// spline through the centres; `None` without samples.
    pub fn io_curve(&self, now: Time) -> Option<IoCurve> {
        let half_life = self.config.sample_half_life.0 as f64;
        let samples: Vec<IoSample> = self
            .samples
            .iter()
            .map(|&(at, a, c)| IoSample {
                cpu_available: a,
                cpu_consumed: c,
                weight: age_weight(now.since(at).0 as f64, half_life),
            })
            .collect();
        IoCurve::through(&mean_shift(&samples, &self.config.mean_shift))
    }

    fn dedicated_cpu(&self) -> f64 {
        f64::from(self.config.dedicated) * self.config.cpu_max
    }

    fn refresh_sorted(&mut self) {
        let candidates = self.candidates();
        screen_and_sort(&candidates, self.config.vm_memory_mb, &mut self.sorted);
    }

    /// Algorithm 1: the initial pool from the dedicated-only profiling run's average
    /// bandwidth utilisation (Eq. 1–3), or an error if `bw_util_avg` is not in `(0, 1]`.
    pub fn initial(&mut self, now: Time, bw_util_avg: f64) -> Result<&Decision, ParamError> {
        let estimate =
            SaturationEstimate::new(bw_util_avg, self.config.cpu_max, self.config.dedicated)?;
        self.ceiling_cpu = self.dedicated_cpu() + estimate.best_case_cpu;
        self.refresh_sorted();
        let residuals: Vec<f64> = self.sorted.iter().map(|c| c.residual_cpu).collect();
        let k = initial_pool_size(
            &estimate,
            &residuals,
            self.dedicated_cpu(),
            self.config.min_marginal_gain,
        );
        Ok(self.last.insert(Decision {
            at: now,
            volunteers: self.sorted[..k].iter().map(|c| c.node).collect(),
            estimate_s: None,
            score: None,
            kind: DecisionKind::Initial,
        }))
    }

    /// The decision for `now`: a fresh exhaustive search when no decision covers `now`
    /// (none yet, or its interval has ended), otherwise the last one, with threshold-based
    /// replacement.
    pub fn decide(&mut self, now: Time, progress: &Progress) -> &Decision {
        self.refresh_sorted();
        let decision = match &self.last {
            Some(last) if now < last.at.saturating_add(self.config.interval) => self.replace(last),
            _ => self.search(now, progress),
        };
        self.last.insert(decision)
    }

    fn search(&self, now: Time, progress: &Progress) -> Decision {
        let curve = self.io_curve(now);
        let model = SearchModel {
            now,
            dedicated: self.config.dedicated as usize,
            dedicated_cpu: self.dedicated_cpu(),
            cpu_max: self.config.cpu_max,
            curve: curve.as_ref(),
            ceiling_cpu: self.ceiling_cpu,
            progress,
            completion: &self.config.completion,
            goal: &self.config.goal,
            current: self.last.as_ref().map_or(0, |d| d.volunteers.len()),
        };
        let best = exhaustive_search(&model, &self.sorted);
        Decision {
            at: now,
            volunteers: self.sorted[..best.size].iter().map(|c| c.node).collect(),
            estimate_s: Some(best.estimate_s),
            score: Some(best.score),
            kind: DecisionKind::Search,
        }
    }

    /// Threshold-based replacement, O(n log n): a selected volunteer that is gone, short of
    /// memory or below the threshold gives its slot to the best unselected candidate above
    /// the threshold, or is dropped when none is left.
    fn replace(&self, last: &Decision) -> Decision {
        let threshold = self.config.replacement_threshold;
        let mut last = last.clone();
        let healthy: BTreeSet<NodeId> = self
            .sorted
            .iter()
            .filter(|c| c.residual_cpu >= threshold)
            .map(|c| c.node)
            .collect();
        let selected: BTreeSet<NodeId> = last.volunteers.iter().copied().collect();
        let mut spares = self
            .sorted
            .iter()
            .filter(|c| c.residual_cpu >= threshold && !selected.contains(&c.node))
            .map(|c| c.node);
        let mut changed = false;
        let mut kept = Vec::with_capacity(last.volunteers.len());
        for &n in &last.volunteers {
            if healthy.contains(&n) {
                kept.push(n);
            } else {
                changed = true;
                kept.extend(spares.next());
            }
        }
        last.volunteers = kept;
        last.kind = if changed {
            DecisionKind::Replaced
        } else {
            DecisionKind::Deferred
        };
        last
    }
}
