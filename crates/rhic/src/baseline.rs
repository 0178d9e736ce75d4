//! The approaches RHIC is compared with (§5.2–5.3), as policies of the same protocol
//! ([`cosched_core::policy::Policy`] over [`Observation`] and [`Command`]) so every comparison
//! runs through one simulator path:
//!
//! - **Fixed** size, the exhaustive survey's "targeted" framework (§5.2): a constant number of
//!   volunteers kept with RHIC's selection and management (§4.4);
//! - **FUZZY**, the fuzzy hill-climbing controller after Liu et al. (§5.3, Fig. 12): rules 1/3
//!   move by `p` in the direction that improved the previous interval's efficiency, rules 2/4
//!   reverse by one volunteer when it worsened, no action inside a dead-band; it starts from
//!   the profiling period and a manual second step `S`;
//! - **Threshold** (§5.3): every interactive node whose residual exceeds `θ · CPU_max`,
//!   blind to the goal.
//!
//! All three choose *how many* volunteers; *which* ones is RHIC's [`Selection`].

use crate::completion::{Progress, check_duration};
use crate::goal::Goal;
use crate::policy::{
    CloudView, Command, CommandedPool, Observation, PeriodReport, ProgressPoint, Selection, Sizing,
    SizingKind,
};
use crate::search::Candidate;
use cosched_core::policy::Policy;
use cosched_core::{Duration, ParamError, Time};
use serde::{Deserialize, Serialize};

/// FUZZY's deadline padding: the "ideal" rate finishes this fraction early (§5.3: 5 %).
pub const FUZZY_DEADLINE_PADDING: f64 = 0.05;

/// FUZZY: hill climbing over the pool size, one step per evaluation interval.
///
/// The first measure (the profiling period's, at 0 volunteers) only primes it: the pool goes to
/// the manual start `S`, counted as an increase. After each later interval the measure (lower
/// is better) is compared with the previous one's:
/// - a relative change within the dead-band: no action (§5.3, step 3);
/// - improved after an increase (rule 1) or a decrease (rule 3): again by `p`;
/// - worse after an increase or decrease (rules 2 and 4): reverse by 1.
///
/// ```
/// use cosched_rhic::baseline::Fuzzy;
/// let mut f = Fuzzy::new(2, 10, 0.02).unwrap();
/// assert_eq!(f.next(5.0, 36), 10); // the profiling period's measure: go to S
/// assert_eq!(f.next(4.5, 36), 12); // better after the increase to S: up by p
/// assert_eq!(f.next(4.0, 36), 14); // better after an increase: up by p
/// assert_eq!(f.next(4.5, 36), 13); // worse: reverse by 1
/// assert_eq!(f.next(4.2, 36), 11); // better after a decrease: down by p
/// assert_eq!(f.next(4.21, 36), 11); // within the 2 % dead-band: stay
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fuzzy {
    step: usize,
    size: usize,
    deadband: f64,
    increased: bool,
    last: Option<f64>,
}

impl Fuzzy {
    /// Step `p` (> 0), the starting size `S` and the dead-band (relative, finite, ≥ 0).
    pub fn new(step: usize, start: usize, deadband: f64) -> Result<Self, ParamError> {
        ParamError::check(step > 0, "step", step, "must be > 0")?;
        ParamError::check(
            deadband.is_finite() && deadband >= 0.0,
            "deadband",
            deadband,
            "must be finite and >= 0",
        )?;
        Ok(Fuzzy {
            step,
            size: start,
            deadband,
            increased: true,
            last: None,
        })
    }

    /// The current size.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The next size, given the interval's `measure` and the volunteers `available` now.
    pub fn next(&mut self, measure: f64, available: usize) -> usize {
        let change = match self.last {
            Some(last) if measure == last => Some(0.0),
            Some(last) if last.is_finite() && measure.is_finite() && last != 0.0 => {
                Some((measure - last) / last.abs())
            }
            Some(last) if measure.is_finite() && !last.is_finite() => Some(-1.0),
            Some(_) => Some(1.0),
            None => None,
        };
        let action = match change {
            None => None,
            Some(c) if c.abs() <= self.deadband => None,
            Some(c) if c < 0.0 => Some((self.increased, self.step)),
            Some(_) => Some((!self.increased, 1)),
        };
        if let Some((up, by)) = action {
            self.size = if up {
                self.size.saturating_add(by)
            } else {
                self.size.saturating_sub(by)
            };
            self.increased = up;
        }
        self.size = self.size.min(available);
        self.last = Some(measure);
        self.size
    }
}

/// Threshold (§5.3): the nodes whose predicted residual exceeds `theta` of their own maximum
/// CPU, given as `(residual, cpu_max)` pairs.
///
/// ```
/// use cosched_rhic::baseline::threshold_size;
/// // residual > 2 cores on 4-core nodes, > 4 on the 8-core one
/// assert_eq!(threshold_size([(3.5, 4.0), (2.5, 4.0), (1.0, 4.0), (3.5, 8.0)], 0.5), 2);
/// ```
pub fn threshold_size(nodes: impl IntoIterator<Item = (f64, f64)>, theta: f64) -> usize {
    nodes
        .into_iter()
        .filter(|&(residual, cpu_max)| residual > theta * cpu_max)
        .count()
}

/// How a baseline sizes the pool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Rule {
    /// A constant number of volunteers.
    Fixed(usize),
    /// FUZZY hill climbing and the goal it measures.
    Fuzzy(Fuzzy),
    /// Every node above `θ · CPU_max`.
    Threshold(f64),
}

/// A baseline policy: a [`Rule`] for the size, RHIC's selection for the nodes, the same
/// interval discipline (sizes change at interval boundaries; departed or failed volunteers are
/// replaced in between).
///
/// ```
/// use cosched_core::policy::Policy;
/// use cosched_core::{Duration, NodeId, Time};
/// use cosched_rhic::baseline::{Baseline, Rule};
/// use cosched_rhic::policy::{Assignment, Command, Observation, ProfileReport, ProgressPoint};
/// use cosched_rhic::{CostModel, Goal, Progress};
/// let goal = Goal::Cost(CostModel::default());
/// let mut b = Baseline::new(Rule::Fixed(2), 16.0, goal, Duration(60)).unwrap();
/// let mut out = Vec::new();
/// for n in 0..4 {
///     let reading = Observation::Node {
///         node: NodeId(n), cores: 16.0, foreground_cpu: n as f64, free_memory_mb: 4096,
///     };
///     b.observe(Time(59), &reading, &(), &mut out).unwrap();
/// }
/// let profile = ProfileReport { bw_util: 0.3, dedicated_cpu: 96.0, slot_memory_mb: 256, task_s: 60.0 };
/// b.observe(Time(60), &Observation::Profile(profile), &(), &mut out).unwrap();
/// let progress = Progress::new(1.0, 9.0, Duration(60), 96.0).unwrap();
/// let period_end = Observation::Progress { progress, point: ProgressPoint::PeriodEnd };
/// b.observe(Time(60), &period_end, &(), &mut out).unwrap();
/// let join = |n| Command::Join(Assignment { node: NodeId(n), slots: 16 });
/// assert_eq!(out, [join(0), join(1)]); // the two least loaded
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Baseline {
    rule: Rule,
    goal: Goal,
    cpu_max: f64,
    interval: Duration,
    replacement_threshold: f64,
    cloud: CloudView,
    slot_memory_mb: Option<u64>,
    selection: Selection,
    commanded: CommandedPool,
    last_period: Option<PeriodReport>,
    last: Option<Sizing>,
    #[serde(skip)]
    sorted: Vec<Candidate>,
}

impl Baseline {
    /// A baseline of `rule` on nodes of `cpu_max` cores, measuring `goal` (FUZZY), deciding
    /// every `interval`, with RHIC's default predictor (10 min) and replacement threshold
    /// (`cpu_max / 4`); or the first parameter out of range (`cpu_max` finite and > 0, the
    /// interval > 0 s, Threshold's `θ` finite and ≥ 0).
    pub fn new(
        rule: Rule,
        cpu_max: f64,
        goal: Goal,
        interval: Duration,
    ) -> Result<Self, ParamError> {
        ParamError::check(
            cpu_max.is_finite() && cpu_max > 0.0,
            "cpu_max",
            cpu_max,
            "must be finite and > 0",
        )?;
        check_duration("interval", interval, true)?;
        if let Rule::Threshold(theta) = rule {
            ParamError::check(
                theta.is_finite() && theta >= 0.0,
                "theta",
                theta,
                "must be finite and >= 0",
            )?;
        }
        Ok(Baseline {
            rule,
            goal,
            cpu_max,
            interval,
            replacement_threshold: cpu_max / 4.0,
            cloud: CloudView::new(Duration::from_mins(10)),
            slot_memory_mb: None,
            selection: Selection::default(),
            commanded: CommandedPool::default(),
            last_period: None,
            last: None,
            sorted: Vec::new(),
        })
    }

    /// The last sizing (what the last [`Observation::Progress`] chose), if any.
    pub fn last_sizing(&self) -> Option<&Sizing> {
        self.last.as_ref()
    }

    /// FUZZY's measure of an interval, lower is better: dollars or joules per unit of work,
    /// or for a deadline the relative distance of the interval's rate from the ideal rate
    /// that finishes 5 % early; `+∞` when the interval shows no progress.
    fn measure(&self, now: Time, p: &PeriodReport, progress: &Progress) -> f64 {
        if p.work <= 0.0 {
            return f64::INFINITY;
        }
        match self.goal {
            Goal::Cost(_) => p.usd / p.work,
            Goal::Energy(_) => p.joules / p.work,
            Goal::Deadline(deadline) => {
                let left = (deadline.0 - now.0) as f64 * (1.0 - FUZZY_DEADLINE_PADDING);
                let ideal = if left > 0.0 {
                    progress.remaining() / left
                } else {
                    f64::INFINITY
                };
                let rate = p.work / p.seconds.max(1.0);
                if ideal.is_finite() {
                    (rate - ideal).abs() / ideal.max(f64::MIN_POSITIVE)
                } else {
                    1.0 / rate
                }
            }
        }
    }

    fn size(&mut self, measure: Option<f64>, available: usize) -> usize {
        match &mut self.rule {
            Rule::Fixed(k) => *k,
            Rule::Fuzzy(f) => match measure {
                Some(m) => f.next(m, available),
                None => f.size().min(available),
            },
            // θ of each node's own maximum CPU, `cpu_max` unless it reported another.
            Rule::Threshold(theta) => threshold_size(
                self.sorted.iter().map(|c| {
                    let cpu_max = self.cloud.capacity(c.node).unwrap_or(self.cpu_max);
                    (c.contribution(), cpu_max)
                }),
                *theta,
            ),
        }
    }
}

impl Policy for Baseline {
    type Observation = Observation;
    type Command = Command;
    type View = ();
    type Error = ParamError;

    /// Takes one observation; on [`Observation::Progress`], decides and appends the pool's
    /// changes. An error for a profile without slot memory.
    fn observe(
        &mut self,
        now: Time,
        observation: &Observation,
        _: &(),
        out: &mut Vec<Command>,
    ) -> Result<(), ParamError> {
        self.commanded.observe(observation);
        if self.cloud.observe(now, observation) {
            return Ok(());
        }
        match *observation {
            Observation::Profile(p) => {
                ParamError::check(
                    p.slot_memory_mb > 0,
                    "slot_memory_mb",
                    p.slot_memory_mb,
                    "must be > 0",
                )?;
                self.slot_memory_mb = Some(p.slot_memory_mb);
            }
            // Kept until the boundary decision, which knows the progress.
            Observation::Period(p) => self.last_period = Some(p),
            Observation::Progress {
                ref progress,
                point,
            } => {
                self.decide(now, progress, point);
                let target = self.last.as_ref().map_or(&[][..], |s| &s.volunteers[..]);
                self.commanded.move_to(target, out);
            }
            _ => {}
        }
        Ok(())
    }
}

impl Baseline {
    /// The sizes change at interval boundaries; between them departed or failed volunteers are
    /// replaced.
    fn decide(&mut self, now: Time, progress: &Progress, point: ProgressPoint) {
        let mut all = Vec::new();
        match self.slot_memory_mb {
            Some(slot_mb) => self
                .cloud
                .screen(self.cpu_max, slot_mb, &mut all, &mut self.sorted),
            None => self.sorted.clear(),
        }
        let due = point == ProgressPoint::PeriodEnd || self.last.is_none();
        let decision = if !due {
            let size = self.selection.members().len();
            let dropped = self.selection.refresh(&self.sorted);
            if dropped {
                self.selection.resize_listed(size);
            }
            let last = self.last.take().unwrap_or_else(|| Sizing {
                at: now,
                volunteers: Vec::new(),
                estimate_s: None,
                score: None,
                kind: SizingKind::Deferred,
            });
            Sizing {
                volunteers: self.selection.members().to_vec(),
                kind: if dropped {
                    SizingKind::Replaced
                } else {
                    SizingKind::Deferred
                },
                ..last
            }
        } else if self.slot_memory_mb.is_none() {
            Sizing {
                at: now,
                volunteers: Vec::new(),
                estimate_s: None,
                score: None,
                kind: SizingKind::Profiling,
            }
        } else {
            let measure = self
                .last_period
                .take()
                .map(|p| self.measure(now, &p, progress));
            self.selection.refresh(&self.sorted);
            let size = self.size(measure, self.sorted.len());
            self.selection.resize_listed(size);
            self.selection.replace_listed(self.replacement_threshold);
            Sizing {
                at: now,
                volunteers: self.selection.members().to_vec(),
                estimate_s: None,
                score: None,
                kind: SizingKind::Rule,
            }
        };
        self.last = Some(decision);
    }
}
