//! The built-in policies and the paper's set-ups (Fan et al., IPDPS 2022, §IV): the baseline
//! and the six mechanisms as constructors of [`HybridPolicy`], the two machines and their
//! generated workloads, Table III's baseline row, and one call that types a trace and runs it.
//!
//! The simulator runs any policy of the protocol ([`HybridSim::run`]); these are the ones the
//! paper studies. A policy of one's own, here "preempt nothing, queue every on-demand job
//! unless the idle nodes take it now", beside the baseline on a Theta-like trace:
//!
//! ```
//! use cosched_core::policy::Policy;
//! use cosched_core::Time;
//! use cosched_hybrid::policy::{BatchPass, Command, Observation, PlatformView};
//! use cosched_hybrid::scenario::{self, Machine};
//! use cosched_hybrid::workload::{TypeParams, assign_types};
//! use cosched_hybrid::{HybridConfig, HybridSim};
//! use std::convert::Infallible;
//!
//! /// Starts an on-demand job on idle nodes if there are enough, else queues it.
//! #[derive(Default, serde::Serialize, serde::Deserialize)]
//! struct IdleOrQueue;
//!
//! impl Policy for IdleOrQueue {
//!     type Observation = Observation;
//!     type Command = Command;
//!     type View = dyn PlatformView;
//!     type Error = Infallible;
//!
//!     fn observe(&mut self, _: Time, obs: &Observation, view: &dyn PlatformView,
//!                out: &mut Vec<Command>) -> Result<(), Infallible> {
//!         match *obs {
//!             Observation::Arrival { job, size } if view.idle_count() >= size => {
//!                 out.push(Command::AssignIdle { job, count: size });
//!                 out.push(Command::StartOnDemand { job });
//!             }
//!             Observation::Arrival { job, .. } => out.push(Command::Submit { job }),
//!             // One FCFS + EASY pass per instant, in the first settle round.
//!             Observation::Settle { round: 0 } => {
//!                 out.push(Command::Schedule(BatchPass::Site { resize_malleable: false }));
//!             }
//!             _ => {}
//!         }
//!         Ok(())
//!     }
//! }
//!
//! let trace = Machine::Theta.generate(true, 1)?;
//! let jobs = assign_types(&trace[..300], &TypeParams::default(), 1)?;
//! let config = HybridConfig::new(Machine::Theta.nodes())?;
//! let ours = HybridSim::new(config.clone())?.with_label("idle-or-queue").run(&mut IdleOrQueue, &jobs)?;
//! let baseline = scenario::simulate(config, None, &jobs)?;
//! assert_eq!(ours.report.completed, baseline.report.completed);
//! assert!(ours.report.instant_start_ratio >= baseline.report.instant_start_ratio);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::policy::{Composite, HybridPolicy, mechanism_name};
use crate::sim::{HybridConfig, HybridSim};
use crate::workload::{
    CORI_LOG_JOBS, ON_DEMAND_CAPACITY, TraceParams, TypeParams, assign_types_within, generate,
};
use crate::{HybridError, HybridJob, HybridOutcome, HybridReport};
use cosched_core::{JobClass, RigidJob, SeedStreams, stats};

/// The baseline: on-demand jobs queue as batch jobs, malleable jobs run at their requested
/// size, notices are ignored ("FCFS/EASY backfilling without special treatments", Table III).
pub fn baseline() -> HybridPolicy {
    HybridPolicy::baseline()
}

/// One of the paper's six mechanisms (§III-B), with the two-minute warning.
pub fn mechanism(mechanism: Composite) -> HybridPolicy {
    HybridPolicy::new(mechanism)
}

/// The policy of a configuration: the baseline for `None`, else the mechanism.
pub fn policy(configuration: Option<Composite>) -> HybridPolicy {
    configuration.map_or_else(baseline, mechanism)
}

/// The baseline (`None`) and the six mechanisms, in the paper's order.
pub fn configurations() -> Vec<Option<Composite>> {
    std::iter::once(None)
        .chain(Composite::ALL.map(Some))
        .collect()
}

/// Runs `jobs` on `config`'s environment under a built-in configuration (see [`policy`]),
/// reported under its name ([`mechanism_name`]); notices are delivered only to a policy that
/// acts on them.
pub fn simulate(
    config: HybridConfig,
    configuration: Option<Composite>,
    jobs: &[HybridJob],
) -> Result<HybridOutcome, HybridError> {
    run_policy(HybridSim::new(config)?, configuration, jobs)
}

/// [`simulate`] on a prepared simulator (e.g. one checking invariants).
pub fn run_policy(
    sim: HybridSim,
    configuration: Option<Composite>,
    jobs: &[HybridJob],
) -> Result<HybridOutcome, HybridError> {
    let mut policy = policy(configuration);
    sim.with_notices(policy.listens_to_notices())
        .with_label(mechanism_name(configuration))
        .run(&mut policy, jobs)
        .map_err(crate::SimError::flatten)
}

/// Types `trace` with `types` (seeded), within its range of the on-demand share of the
/// capacity (by default Obs. 9's, [`assign_types_within`]), and simulates it under a built-in
/// configuration; an error for a trace the simulator refuses (e.g. one whose horizon passes
/// the clock's range) or no typing of which meets the share.
pub fn simulate_trace(
    trace: &[RigidJob],
    types: &TypeParams,
    seed: u64,
    config: HybridConfig,
    configuration: Option<Composite>,
) -> Result<HybridReport, HybridError> {
    let typing = assign_types_within(trace, types, config.nodes, seed)?;
    Ok(simulate(config, configuration, &typing.jobs)?.report)
}

/// The type parameters of a run: the paper's defaults, every typing within Obs. 9's 3-15 %
/// on-demand share for a generated machine; an SWF trace (`from_trace`) is typed as drawn, its
/// projects perhaps unable to give that share (it is reported, not imposed).
pub fn type_params(from_trace: bool) -> TypeParams {
    TypeParams {
        on_demand_share: (!from_trace).then_some(ON_DEMAND_CAPACITY),
        ..TypeParams::default()
    }
}

/// The paper's two systems, as generated stand-ins for their logs (Theta 2019, Cori
/// April–July 2018, Table I).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Machine {
    /// Theta-like: 4,392 nodes, jobs of >= 128 nodes, <= 1 day.
    Theta,
    /// Cori-like: 12,076 nodes, ~76 % single-node jobs, most others of 2-64 nodes, <= 7 days.
    Cori,
}

impl Machine {
    /// Both machines.
    pub const ALL: [Machine; 2] = [Machine::Theta, Machine::Cori];

    /// Its name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Machine::Theta => "Theta-like",
            Machine::Cori => "Cori-like",
        }
    }

    /// Its name in file names.
    pub fn slug(self) -> &'static str {
        match self {
            Machine::Theta => "theta",
            Machine::Cori => "cori",
        }
    }

    /// The generated trace's parameters: each log's length and job count as Table I states
    /// them, Theta's year (37,298 jobs) and Cori's four months ([`CORI_LOG_JOBS`], 2,607,054
    /// jobs in 122 days); fewer jobs with `quick`.
    pub fn trace(self, quick: bool) -> TraceParams {
        match (self, quick) {
            (Machine::Theta, false) => TraceParams::theta(37_298),
            (Machine::Theta, true) => TraceParams::theta(3_000),
            (Machine::Cori, false) => TraceParams::cori(CORI_LOG_JOBS),
            (Machine::Cori, true) => TraceParams::cori(20_000),
        }
    }

    /// The paper's baseline row (Table III).
    pub fn paper_baseline(self) -> PaperBaseline {
        match self {
            Machine::Theta => PaperBaseline {
                turnaround_hours: 15.6,
                utilization: 0.8393,
                instant_start: 0.2269,
            },
            Machine::Cori => PaperBaseline {
                turnaround_hours: 1.97,
                utilization: 0.8027,
                instant_start: 0.1894,
            },
        }
    }

    /// The paper's baseline on-demand instant-start ratio (Table III).
    pub fn paper_baseline_instant(self) -> f64 {
        self.paper_baseline().instant_start
    }

    /// Nodes of the machine.
    pub fn nodes(self) -> u32 {
        self.trace(true).nodes
    }

    /// A generated batch trace for `seed`.
    pub fn generate(self, quick: bool, seed: u64) -> Result<Vec<RigidJob>, HybridError> {
        generate(&self.trace(quick), seed)
    }
}

/// The seed of typing `t` of a trace generated with `seed` (the paper averages 10 typings).
pub fn typing_seed(seed: u64, t: u64) -> u64 {
    SeedStreams::new(seed).family("typing", t).root()
}

/// A row of Table III: what the paper reports of its FCFS/EASY baseline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperBaseline {
    /// Mean turnaround of all jobs, hours.
    pub turnaround_hours: f64,
    /// System utilisation (§IV-D), share.
    pub utilization: f64,
    /// On-demand instant start ratio, share.
    pub instant_start: f64,
}

/// What Figures 3-5 show of a generated workload: sizes, job types and on-demand jobs per
/// week, over `typings` typings.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WorkloadStats {
    /// Jobs in the trace.
    pub jobs: usize,
    /// Days from the first to the last submission.
    pub span_days: f64,
    /// The longest run time, hours.
    pub max_runtime_h: f64,
    /// Share of single-node jobs.
    pub single_node: f64,
    /// Share of jobs of at most 128 nodes.
    pub small: f64,
    /// Share of node-hours in jobs of more than 1,024 nodes.
    pub large_node_hours: f64,
    /// Shares of on-demand, rigid and malleable jobs (Fig. 4).
    pub types: [f64; 3],
    /// Mean requested size of on-demand, rigid and malleable jobs, nodes (§IV-A: Cori's
    /// malleable jobs are on average the larger).
    pub mean_size: [f64; 3],
    /// On-demand jobs submitted per week: mean, max, coefficient of variation (Fig. 5).
    pub weekly_mean: f64,
    /// The busiest week.
    pub weekly_max: f64,
    /// Sample standard deviation over the mean: the burstiness.
    pub weekly_cv: f64,
    /// Share of the capacity (nodes × the arrival window, first to last submission) the
    /// on-demand jobs' runs take inside that window were each started at its arrival, mean
    /// over the typings (Obs. 9: "on-demand jobs represent 3 %–15 % of total capacity"; each
    /// typing is drawn within that range, [`assign_types_within`]).
    pub on_demand_capacity: f64,
    /// The smallest and largest of that share over the typings.
    pub on_demand_capacity_range: (f64, f64),
    /// Typings drawn per typing kept, mean: how often a typing fell outside the range.
    pub typing_draws: f64,
}

impl WorkloadStats {
    /// The statistics of a trace of `params` generated with `seed`, typed `typings` times.
    pub fn of(params: &TraceParams, seed: u64, typings: u64) -> Result<WorkloadStats, HybridError> {
        let trace = generate(params, seed)?;
        let n = trace.len().max(1) as f64;
        let node_hours = |j: &RigidJob| f64::from(j.size) * j.runtime.0 as f64;
        let total: f64 = trace.iter().map(node_hours).sum();
        let first = trace.iter().map(|j| j.submit).min().unwrap_or_default();
        let last = trace.iter().map(|j| j.submit).max().unwrap_or_default();
        let mut st = WorkloadStats {
            jobs: trace.len(),
            span_days: (last - first).0 as f64 / 86_400.0,
            max_runtime_h: trace.iter().map(|j| j.runtime.0).max().unwrap_or(0) as f64 / 3_600.0,
            single_node: trace.iter().filter(|j| j.size == 1).count() as f64 / n,
            small: trace.iter().filter(|j| j.size <= 128).count() as f64 / n,
            large_node_hours: trace
                .iter()
                .filter(|j| j.size > 1_024)
                .map(node_hours)
                .sum::<f64>()
                / total.max(1.0),
            ..WorkloadStats::default()
        };
        let mut weekly_runs = Vec::new();
        let mut shares = Vec::new();
        let mut draws = Vec::new();
        // Per type: jobs and requested nodes, over every typing.
        let mut sized = [(0.0, 0.0); 3];
        for t in 0..typings.max(1) {
            let typing = assign_types_within(
                &trace,
                &TypeParams::default(),
                params.nodes,
                typing_seed(seed, t),
            )?;
            shares.push(typing.on_demand_share);
            draws.push(typing.draws as f64);
            let typed = typing.jobs;
            let mut weeks: Vec<f64> = Vec::new();
            for job in &typed {
                let k = match job.class() {
                    JobClass::OnDemand => 0,
                    JobClass::Rigid => 1,
                    _ => 2,
                };
                st.types[k] += 1.0 / n / typings.max(1) as f64;
                sized[k].0 += 1.0;
                sized[k].1 += f64::from(job.size());
                if k == 0 {
                    let week = ((job.submit() - first).0 / (7 * 86_400)).max(0) as usize;
                    if weeks.len() <= week {
                        weeks.resize(week + 1, 0.0);
                    }
                    weeks[week] += 1.0;
                }
            }
            weekly_runs.push(weeks);
        }
        st.mean_size = sized.map(|(jobs, nodes)| if jobs > 0.0 { nodes / jobs } else { f64::NAN });
        st.typing_draws = stats::mean(&draws).unwrap_or(f64::NAN);
        st.on_demand_capacity = stats::mean(&shares).unwrap_or(f64::NAN);
        st.on_demand_capacity_range = match shares.first() {
            Some(&x) => shares
                .iter()
                .fold((x, x), |(lo, hi), &y| (lo.min(y), hi.max(y))),
            None => (f64::NAN, f64::NAN),
        };
        let weekly: Vec<f64> = weekly_runs.concat();
        st.weekly_mean = stats::mean(&weekly).unwrap_or(f64::NAN);
        st.weekly_max = weekly.iter().copied().fold(0.0, f64::max);
        st.weekly_cv = stats::sample_sd(&weekly).unwrap_or(f64::NAN) / st.weekly_mean;
        Ok(st)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_on_demand_share_of_capacity_lies_within_its_typings_range() {
        let params = TraceParams::theta(600);
        let st = WorkloadStats::of(&params, 3, 4).unwrap();
        let (lo, hi) = st.on_demand_capacity_range;
        assert!(0.0 <= lo && lo <= st.on_demand_capacity && st.on_demand_capacity <= hi);
        assert!(hi < 1.0, "{hi}");
        // One typing: the range is its one value.
        let one = WorkloadStats::of(&params, 3, 1).unwrap();
        assert_eq!(one.on_demand_capacity_range.0, one.on_demand_capacity);
        assert_eq!(one.on_demand_capacity_range.1, one.on_demand_capacity);
    }
}
