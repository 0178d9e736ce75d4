//! The paper's runs (§5): its testbed per job, the approaches its figures compare as
//! constructors of the built-in policies, and the comparison of an exhaustive survey over fixed
//! sizes with a policy. The simulator ([`RhicSim`]) runs any policy of the protocol; these are
//! the ones the `rhic_*` examples run.
//!
//! # Writing your own policy
//!
//! A policy of the protocol takes [`Observation`]s (each node's reading gives its cores) and
//! answers [`Observation::Progress`] with
//! [`Command`]s; [`CommandedPool`] turns a chosen set of volunteers into those commands. This one
//! keeps every interactive node whose last reading left at least half its cores free, and runs
//! beside RHIC on the same cloud:
//!
//! ```
//! use cosched_core::policy::Policy;
//! use cosched_core::{NodeId, ParamError, Time};
//! use cosched_rhic::env::JobProfile;
//! use cosched_rhic::policy::{Assignment, Command, CommandedPool, Observation};
//! use cosched_rhic::sim::{BackgroundJob, RhicSim, SimConfig};
//! use cosched_rhic::{Goal, scenario};
//! use std::collections::BTreeMap;
//!
//! /// Volunteers on every node at most half busy, one slot per free core.
//! #[derive(Default, serde::Serialize, serde::Deserialize)]
//! struct HalfIdle {
//!     /// Each node's free cores and cores at its last reading.
//!     free: BTreeMap<NodeId, (f64, f64)>,
//!     pool: CommandedPool,
//! }
//!
//! impl Policy for HalfIdle {
//!     type Observation = Observation;
//!     type Command = Command;
//!     type View = ();
//!     type Error = ParamError;
//!
//!     fn observe(&mut self, _: Time, o: &Observation, _: &(), out: &mut Vec<Command>)
//!         -> Result<(), ParamError> {
//!         match *o {
//!             Observation::Node { node, cores, foreground_cpu, .. } => {
//!                 self.free.insert(node, (cores - foreground_cpu, cores));
//!             }
//!             Observation::Left(node) | Observation::BootFailed(node) => {
//!                 self.free.remove(&node);
//!                 self.pool.forget(node);
//!             }
//!             Observation::Progress { .. } => {
//!                 let target: Vec<Assignment> = self.free.iter()
//!                     .filter(|&(_, &(free, cores))| free >= cores / 2.0)
//!                     .map(|(&node, &(free, _))| Assignment { node, slots: free as u32 })
//!                     .collect();
//!                 self.pool.move_to(&target, out);
//!             }
//!             _ => {}
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let config = SimConfig::new(Goal::Cost(scenario::price(0.42)));
//! let mut job = BackgroundJob::new(JobProfile::Wordcount);
//! job.work /= 40.0; // a short job for the example
//! let sim = RhicSim::new(config.clone())?;
//! let mine = sim.run(&mut HalfIdle::default(), &job)?;
//! let rhic = sim.run(&mut scenario::rhic(&config, &job)?, &job)?;
//! println!("mine ${:.2} in {} s, RHIC ${:.2} in {} s",
//!     mine.bill.total.usd(), mine.completion.0, rhic.bill.total.usd(), rhic.completion.0);
//! assert!(mine.finished && rhic.finished);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::baseline::{Baseline, Fuzzy, Rule};
use crate::env::JobProfile;
use crate::goal::{CostModel, Goal, PowerModel};
use crate::policy::{Command, Observation, Rhic, RhicConfig};
use crate::search::SearchMethod;
use crate::sim::{BackgroundJob, Outcome, RhicSim, SimConfig, SimError};
use cosched_core::ParamError;
use cosched_core::policy::Policy;
use cosched_core::stats;

#[cfg(doc)]
use crate::policy::CommandedPool;

/// A built-in policy boxed for choice at run time.
pub type BoxedPolicy = Box<
    dyn Policy<Observation = Observation, Command = Command, View = (), Error = ParamError> + Send,
>;

/// The paper's volunteer prices, dollars per hour (dedicated: $1.00/h), Fig. 9.
pub const PRICES: [f64; 4] = [0.20, 0.42, 0.60, 0.80];

/// FUZZY's dead-band, relative (ours: §5.3 names a dead-band without its width).
pub const FUZZY_DEADBAND: f64 = 0.02;

/// The paper's prices with the volunteer at `usd_per_hour`.
pub fn price(usd_per_hour: f64) -> CostModel {
    CostModel::new(1_000_000, (usd_per_hour * 1e6).round() as u64)
}

/// Interactive nodes beside the job: 36 for Hadoop (§5.2), 18 for HBasePCF (§5.5).
pub fn interactive(profile: JobProfile) -> usize {
    if JobProfile::HBASE.contains(&profile) {
        18
    } else {
        36
    }
}

/// Table 1 of the paper: per job, (cost min, max in $; energy min, max in Wh) over 0–36
/// volunteers beside 6 dedicated nodes.
pub fn table1(profile: JobProfile) -> Option<[f64; 4]> {
    match profile {
        JobProfile::Wordcount => Some([4.42, 6.38, 1273.0, 1957.0]),
        JobProfile::Grep => Some([2.40, 5.83, 710.0, 894.0]),
        JobProfile::Pi => Some([9.25, 16.63, 2963.0, 5461.0]),
        JobProfile::WordCooccurrence => Some([7.72, 11.41, 2230.0, 3987.0]),
        _ => None,
    }
}

/// RHIC as the paper runs it on `config`'s testbed for `job`: its goal, dedicated nodes,
/// cores, evaluation interval and VM setup, Algorithm 1 and the exhaustive search.
///
/// # Errors
/// The first parameter out of range ([`Rhic::new`]).
pub fn rhic(config: &SimConfig, job: &BackgroundJob) -> Result<Rhic, ParamError> {
    rhic_with(config, job, SearchMethod::Exhaustive, true)
}

/// [`rhic`] with another search (§4.1) or without Algorithm 1's scaling (an ablation of ours).
///
/// # Errors
/// The first parameter out of range ([`Rhic::new`]).
pub fn rhic_with(
    config: &SimConfig,
    job: &BackgroundJob,
    search: SearchMethod,
    initial_scaling: bool,
) -> Result<Rhic, ParamError> {
    let mut rc = RhicConfig::new(job.dedicated, f64::from(config.env.cores), config.goal);
    rc.interval = config.interval;
    rc.setup = config.env.setup;
    rc.search = search;
    rc.initial_scaling = initial_scaling;
    Rhic::new(rc)
}

fn baseline(rule: Rule, config: &SimConfig) -> Result<Baseline, ParamError> {
    Baseline::new(
        rule,
        f64::from(config.env.cores),
        config.goal,
        config.interval,
    )
}

/// A fixed number of volunteers (the exhaustive survey's targeted runs, §5.2).
///
/// # Errors
/// The testbed's cores or interval out of range ([`Baseline::new`]).
pub fn fixed(k: usize, config: &SimConfig) -> Result<Baseline, ParamError> {
    baseline(Rule::Fixed(k), config)
}

/// FUZZY (§5.3) with step `p`, starting at `start_fraction` (in `[0, 1]`) of the interactive
/// nodes, with the dead-band [`FUZZY_DEADBAND`], measuring `config`'s goal.
///
/// # Errors
/// `step` 0 or `start_fraction` outside `[0, 1]`.
pub fn fuzzy(step: usize, start_fraction: f64, config: &SimConfig) -> Result<Baseline, ParamError> {
    ParamError::check(
        (0.0..=1.0).contains(&start_fraction),
        "start_fraction",
        start_fraction,
        "must be in [0, 1]",
    )?;
    let start = (start_fraction * config.env.interactive_nodes as f64).round() as usize;
    baseline(
        Rule::Fuzzy(Fuzzy::new(step, start, FUZZY_DEADBAND)?),
        config,
    )
}

/// Threshold (§5.3): every node whose predicted residual exceeds `theta · CPU_max`.
///
/// # Errors
/// `theta` not finite or negative.
pub fn threshold(theta: f64, config: &SimConfig) -> Result<Baseline, ParamError> {
    baseline(Rule::Threshold(theta), config)
}

/// The approaches the paper's figures compare (§5.2–5.3), each built by its constructor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Approach {
    /// RHIC ([`rhic_with`]).
    Rhic {
        /// How it searches the sizes.
        search: SearchMethod,
        /// Whether cost and energy runs start with Algorithm 1.
        initial_scaling: bool,
    },
    /// A fixed number of volunteers ([`fixed`]).
    Fixed(usize),
    /// FUZZY ([`fuzzy`]).
    Fuzzy {
        /// Step `p`.
        step: usize,
        /// `S` as a fraction of the interactive nodes.
        start_fraction: f64,
    },
    /// Threshold ([`threshold`]).
    Threshold(f64),
}

impl Approach {
    /// RHIC as the paper runs it ([`rhic`]).
    pub const RHIC: Approach = Approach::Rhic {
        search: SearchMethod::Exhaustive,
        initial_scaling: true,
    };

    /// Its policy on `config`'s testbed for `job`.
    ///
    /// # Errors
    /// The constructor's.
    pub fn policy(
        &self,
        config: &SimConfig,
        job: &BackgroundJob,
    ) -> Result<BoxedPolicy, ParamError> {
        Ok(match *self {
            Approach::Rhic {
                search,
                initial_scaling,
            } => Box::new(rhic_with(config, job, search, initial_scaling)?),
            Approach::Fixed(k) => Box::new(fixed(k, config)?),
            Approach::Fuzzy {
                step,
                start_fraction,
            } => Box::new(fuzzy(step, start_fraction, config)?),
            Approach::Threshold(theta) => Box::new(threshold(theta, config)?),
        })
    }
}

/// One run: the testbed, the job, and the approach sizing the pool.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The testbed.
    pub config: SimConfig,
    /// The job.
    pub job: BackgroundJob,
    /// The approach.
    pub approach: Approach,
}

impl Run {
    /// A run of `profile` on the paper's testbed under `goal` (billed at the goal's prices
    /// when it is a cost goal) with its interactive nodes ([`interactive`]); `quick` runs a
    /// quarter of the job's work.
    pub fn paper(
        profile: JobProfile,
        goal: Goal,
        approach: Approach,
        quick: bool,
        seed: u64,
    ) -> Run {
        let mut c = SimConfig::new(goal);
        if let Goal::Cost(m) = goal {
            c.cost = m;
        }
        let mut job = BackgroundJob::new(profile);
        if quick {
            job.work /= 4.0;
        }
        c.env.interactive_nodes = interactive(profile);
        c.seed = seed;
        Run {
            config: c,
            job,
            approach,
        }
    }

    /// Simulates it.
    ///
    /// # Errors
    /// The approach's parameters out of range, or the simulator's errors ([`RhicSim::run`]).
    pub fn simulate(&self) -> Result<Outcome, SimError> {
        let mut policy = self.approach.policy(&self.config, &self.job)?;
        RhicSim::new(self.config.clone())?.run(&mut policy, &self.job)
    }
}

/// The mean of `xs` (NaN when empty), by `cosched_core::stats`.
pub fn mean(xs: impl IntoIterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.into_iter().collect();
    stats::mean(&v).unwrap_or(f64::NAN)
}

/// An exhaustive curve: for each fixed size, the mean of `metric` over the seeds, among the
/// `runs` of `profile` under [`Approach::Fixed`].
pub fn curve(
    runs: &[(Run, Outcome)],
    profile: JobProfile,
    metric: impl Fn(&Outcome) -> f64,
) -> Vec<(usize, f64)> {
    let mut sizes: Vec<usize> = runs
        .iter()
        .filter_map(|(r, _)| match r.approach {
            Approach::Fixed(k) if r.job.profile == profile => Some(k),
            _ => None,
        })
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
        .into_iter()
        .map(|k| {
            let m = mean(
                runs.iter()
                    .filter(|(r, _)| r.job.profile == profile && r.approach == Approach::Fixed(k))
                    .map(|(_, o)| metric(o)),
            );
            (k, m)
        })
        .collect()
}

/// The best (lowest) and worst points of a curve, `None` when it is empty.
pub fn best_worst(curve: &[(usize, f64)]) -> Option<((usize, f64), (usize, f64))> {
    let by = |a: &&(usize, f64), b: &&(usize, f64)| a.1.total_cmp(&b.1);
    Some((*curve.iter().min_by(by)?, *curve.iter().max_by(by)?))
}

/// `100 · (a − b) / b`.
pub fn pct_over(a: f64, b: f64) -> f64 {
    100.0 * (a - b) / b
}

/// What an exhaustive-vs-RHIC comparison measures, and hence RHIC's goal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Metric {
    /// Dollars at these prices (goal: cost).
    Cost(CostModel),
    /// Watt-hours billed to the job (goal: energy).
    Energy,
}

impl Metric {
    /// The metric of one run.
    pub fn of(&self, o: &Outcome) -> f64 {
        match self {
            Metric::Cost(m) => o.bill_at(m).total.usd(),
            Metric::Energy => o.energy_j / 3600.0,
        }
    }

    /// RHIC's goal for this metric.
    pub fn goal(&self) -> Goal {
        match *self {
            Metric::Cost(m) => Goal::Cost(m),
            Metric::Energy => Goal::Energy(PowerModel::arc()),
        }
    }

    /// `cost` or `energy`.
    pub fn name(&self) -> &'static str {
        match self {
            Metric::Cost(_) => "cost",
            Metric::Energy => "energy",
        }
    }
}

/// One job under one metric: the exhaustive curve over fixed sizes and RHIC's results on the
/// same seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// The job.
    pub profile: JobProfile,
    /// The metric (and RHIC's goal).
    pub metric: Metric,
    /// `(size, mean metric)` for every fixed size.
    pub curve: Vec<(usize, f64)>,
    /// RHIC's metric, one per seed.
    pub rhic: Vec<f64>,
    /// RHIC's mean number of volunteers in the pool.
    pub rhic_volunteers: f64,
}

impl Comparison {
    /// `100 · (worst − best) / worst` over the curve.
    pub fn spread_pct(&self) -> f64 {
        best_worst(&self.curve).map_or(f64::NAN, |((_, b), (_, w))| 100.0 * (w - b) / w)
    }

    /// RHIC's mean metric.
    pub fn rhic_mean(&self) -> f64 {
        mean(self.rhic.iter().copied())
    }

    /// RHIC's percent above the exhaustive best, per seed.
    pub fn over_best(&self) -> Vec<f64> {
        let best = best_worst(&self.curve).map_or(f64::NAN, |((_, b), _)| b);
        self.rhic.iter().map(|&r| pct_over(r, best)).collect()
    }

    /// The spread of [`Comparison::over_best`] over the seeds.
    pub fn over_best_spread(&self) -> Option<stats::Spread> {
        stats::Spread::of(&self.over_best())
    }
}

/// The runs of a comparison: every size of `sizes` (which do not depend on the metric) and one
/// RHIC run per metric, for every job and seed.
pub fn comparison_runs(
    profiles: &[JobProfile],
    metrics: &[Metric],
    sizes: &[usize],
    quick: bool,
    seeds: &[u64],
) -> Vec<Run> {
    let mut runs = Vec::new();
    for &p in profiles {
        for &seed in seeds {
            for &k in sizes {
                let goal = Goal::Cost(price(0.42)); // a fixed size ignores the goal
                runs.push(Run::paper(p, goal, Approach::Fixed(k), quick, seed));
            }
            for m in metrics {
                runs.push(Run::paper(p, m.goal(), Approach::RHIC, quick, seed));
            }
        }
    }
    runs
}

/// The comparisons of [`comparison_runs`]'s simulated runs, per job and metric.
pub fn comparisons(
    runs: &[(Run, Outcome)],
    profiles: &[JobProfile],
    metrics: &[Metric],
) -> Vec<Comparison> {
    let mut out = Vec::new();
    for &p in profiles {
        for m in metrics {
            let rhic: Vec<&Outcome> = runs
                .iter()
                .filter(|(r, _)| {
                    r.job.profile == p && r.approach == Approach::RHIC && r.config.goal == m.goal()
                })
                .map(|(_, o)| o)
                .collect();
            out.push(Comparison {
                profile: p,
                metric: *m,
                curve: curve(runs, p, |o| m.of(o)),
                rhic: rhic.iter().map(|o| m.of(o)).collect(),
                rhic_volunteers: mean(rhic.iter().map(|o| o.mean_volunteers)),
            });
        }
    }
    out
}
