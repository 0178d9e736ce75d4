//! A Balancer scenario's inputs, assembled as the paper's experiments assemble them: the
//! batch workload (the LCRC weeks or an SWF trace, else the synthetic workloads of §IV-A,
//! Table II), the on-demand load at scale ×1 (the APS weeks as 16-core VM leases with tight
//! packing, §III-A; a lease file; else the file-free synthetic base, ours), the earlier weeks
//! the Predictive algorithm is trained on (§III-B5), and the configurations of §III-B run on
//! the combined cluster.
//!
//! The examples (`balancer_table1`, `balancer_fig2` … `balancer_fig5`) only parse flags into a
//! [`Scenario`] and tabulate what it runs; an embedding study can do the same without them.
//!
//! ```
//! use cosched_balancer::scenario::{BatchSource, OnDemandSource, Scenario};
//! use cosched_balancer::synthetic::{BatchKind, WEEK};
//! use cosched_core::{Duration, SeedStreams};
//! let scenario = Scenario::synthetic(64);
//! let kinds = [BatchKind::Main { utilization: 0.66 }];
//! let replicate = scenario.replicate(&kinds, 1, &SeedStreams::new(7).family("replicate", 0))?;
//! assert_eq!(replicate.batch[0].span, WEEK);
//! let report = scenario.run(&scenario.basic(0, Duration::ZERO), &replicate.batch[0], &replicate.base)?;
//! assert!(report.batch.overall.mean_wait_s >= 0.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Your own policy
//! Any type implementing `cosched_core::policy::Policy` with the Balancer's observation,
//! command and view ([`crate::BalancerPolicy`]) runs in the simulator, and through [`Arm::new`]
//! in a study beside the built-in arms. This one grants a request from idle batch nodes at
//! once or rejects it, and gives nodes back as soon as they are released (Basic with `R = 0`,
//! `W = 0`, `I = 0`, written from scratch):
//!
//! ```
//! use cosched_balancer::policy::{Command, Observation, Policy, RmNode};
//! use cosched_balancer::scenario::{Arm, Scenario, scaled};
//! use cosched_balancer::synthetic::BatchKind;
//! use cosched_balancer::BalancerError;
//! use cosched_core::{Duration, NodeId, SeedStreams, Time};
//!
//! /// Idle batch nodes now, or nothing.
//! #[derive(Clone, Default, serde::Serialize, serde::Deserialize)]
//! struct IdleOnly { busy: Vec<bool>, taken: Vec<bool> }
//!
//! impl Policy for IdleOnly {
//!     type Observation = Observation;
//!     type Command = Command;
//!     type View = [RmNode];
//!     type Error = BalancerError;
//!     fn start(&mut self, _: Time, nodes: &[RmNode], _: &mut Vec<Command>) -> Result<(), BalancerError> {
//!         (self.busy, self.taken) = (vec![false; nodes.len()], vec![false; nodes.len()]);
//!         Ok(())
//!     }
//!     fn observe(&mut self, _: Time, obs: &Observation, _: &[RmNode], out: &mut Vec<Command>)
//!         -> Result<(), BalancerError> {
//!         match obs {
//!             Observation::Request { request, nodes, .. } => {
//!                 let idle: Vec<NodeId> = (0..self.busy.len())
//!                     .filter(|&i| !self.busy[i] && !self.taken[i])
//!                     .take(*nodes as usize)
//!                     .map(|i| NodeId(i as u32))
//!                     .collect();
//!                 if idle.len() < *nodes as usize {
//!                     out.push(Command::Reject { request: *request });
//!                     return Ok(());
//!                 }
//!                 for &n in &idle {
//!                     self.taken[n.index()] = true;
//!                     out.push(Command::Reclaim(n));
//!                 }
//!                 out.push(Command::Grant { request: *request, nodes: idle });
//!             }
//!             Observation::Release { nodes } => for &n in nodes {
//!                 self.taken[n.index()] = false;
//!                 out.push(Command::Restore(n));
//!             },
//!             Observation::JobStarting { nodes } => nodes.iter().for_each(|n| self.busy[n.index()] = true),
//!             Observation::JobEnded { nodes } => nodes.iter().for_each(|n| self.busy[n.index()] = false),
//!             _ => {}
//!         }
//!         Ok(())
//!     }
//! }
//!
//! // The crate's default synthetic workload on 64 nodes, on-demand load × 8.
//! let scenario = Scenario::synthetic(64);
//! let streams = SeedStreams::new(7).family("replicate", 0);
//! let replicate = scenario.replicate(&[BatchKind::Main { utilization: 0.66 }], 1, &streams)?;
//! let leases = scaled(&replicate.base, 8)?;
//! let mine = Arm::new("idle-only", |_| IdleOnly::default());
//! let basic = scenario.basic(0, Duration::ZERO);
//! for arm in [&mine, &basic] {
//!     let r = scenario.run(arm, &replicate.batch[0], &leases)?;
//!     println!("{}: reject {:.1} %, batch wait {:.2} h, utilisation {:.1} %",
//!         r.configuration, 100.0 * r.on_demand.reject_rate,
//!         r.batch.overall.mean_wait_s / 3600.0, 100.0 * r.combined_utilization);
//!     assert!(r.on_demand.requests > 0);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};

use cosched_core::{Duration, JobId, ParamError, RigidJob, SeedStreams, Time};
use rayon::prelude::*;
use thiserror::Error;

use crate::baseline::StaticSplit;
use crate::policy::{BalancerPolicy, Command, Observation, RmNode};
use crate::predictor::{Combine, Predictive, PredictiveHold, Predictor, PredictorSpec};
use crate::report::{SimOutcome, SimReport};
use crate::sim::{SimError, Simulation};
use crate::synthetic::{self, BatchKind, SyntheticBatch, WEEK};
use crate::testbed::BatchCycle;
use crate::traces::{self, ApsJob, TraceError};
use crate::workload::{DiurnalLeases, LeaseRequest, Workload};
use crate::{Balancer, BalancerConfig, BalancerError, Strategy};
use std::sync::Arc;

/// Cores of a VM in the APS conversion (the paper's 16-core nodes, §III-A).
pub const APS_CORES_PER_VM: u32 = 16;

/// Weeks of on-demand history the Predictive algorithm is trained on (its month, §III-B5).
pub const HISTORY_WEEKS: i64 = 5;

/// Why a scenario's inputs could not be built.
#[derive(Debug, Error)]
pub enum InputError {
    /// A trace file could not be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A generator parameter out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
}

/// Where the batch workload comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchSource {
    /// The synthetic workloads of §IV-A, sampled from these LCRC weekly files (U66-Main is
    /// 1 % of the LCRC traces, §III-B1: a fraction 1 / (number of files) per week), or from a
    /// generated Lublin-Feitelson trace (ours) when there are none.
    Synthetic {
        /// The LCRC weeks sampled from.
        sample_lcrc: Vec<PathBuf>,
    },
    /// LCRC weekly files, one week each, in order (no preload: the earlier weeks are unknown).
    Lcrc(Vec<PathBuf>),
    /// An SWF trace's first weeks, sizes divided by `cores_per_node` (rounded up).
    Swf {
        /// The trace.
        path: PathBuf,
        /// Processors per node of the trace (0 is taken as 1).
        cores_per_node: u32,
    },
}

/// Where the on-demand load comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnDemandSource {
    /// The file-free synthetic base ([`synthetic::base_leases`], ours).
    Synthetic,
    /// APS single-core trace files, one week each, in order: 16-core VM leases with tight
    /// packing.
    Aps(Vec<PathBuf>),
    /// A lease CSV (`submit,nodes,duration`).
    Leases(PathBuf),
}

/// A scenario: the combined cluster's size, the inputs' sources and `I`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// Nodes of the combined cluster.
    pub nodes: u32,
    /// The batch workload's source.
    pub batch: BatchSource,
    /// The on-demand load's source.
    pub on_demand: OnDemandSource,
    /// `I`: how long an unused on-demand node is held before it returns to batch.
    pub idle_hold: Duration,
    /// How long a VM of the APS packing stays up once no longer needed
    /// ([`traces::aps_to_leases_with_linger`]; ours): zero is §III-A's text.
    pub vm_linger: Duration,
    /// APS weekly files of the weeks before the on-demand load's, oldest first: the Predictive
    /// algorithm's offline training (§III-B5), as VM leases ending at time 0. Used with
    /// [`OnDemandSource::Aps`]; the synthetic load makes its own earlier weeks.
    pub history: Vec<PathBuf>,
    /// How the batch side's scheduler runs ([`crate::testbed`]): the same for every arm.
    pub batch_cycle: BatchCycle,
}

/// A batch workload ready to simulate.
#[derive(Debug, Clone)]
pub struct BatchInput {
    /// Its name (`U66-Main`, `LCRC (2 week(s))`, …).
    pub label: String,
    /// The jobs.
    pub jobs: Vec<RigidJob>,
    /// Jobs running at the start (see [`Workload::preload`]).
    pub preload: Vec<RigidJob>,
    /// The span the loads are measured over.
    pub span: Duration,
}

/// The on-demand load ready to scale.
#[derive(Debug, Clone)]
pub struct OnDemandInput {
    /// Where it comes from.
    pub label: String,
    /// The requests at scale ×1.
    pub base: Vec<LeaseRequest>,
}

/// The inputs of one seed of a multi-seed study.
#[derive(Debug, Clone)]
pub struct Replicate {
    /// The batch workloads, one per kind asked for (or the one file's).
    pub batch: Vec<BatchInput>,
    /// Where the on-demand load comes from.
    pub on_demand: String,
    /// The on-demand load at scale ×1.
    pub base: Vec<LeaseRequest>,
    /// Earlier weeks of the same on-demand source at scale ×1 (before time 0), the
    /// Predictive algorithm's offline training data; empty with a file.
    pub history: Vec<LeaseRequest>,
}

/// One real week of Table I (§III-A): an LCRC week, the jobs still running from the week
/// before, the APS week as VM leases and, for the Predictive algorithm, earlier APS weeks.
#[derive(Debug, Clone)]
pub struct RealWeek {
    /// The LCRC file's stem.
    pub name: String,
    /// The batch jobs.
    pub jobs: Vec<RigidJob>,
    /// The previous week's jobs still running at the start, ids after the jobs'.
    pub preload: Vec<RigidJob>,
    /// The on-demand requests.
    pub leases: Vec<LeaseRequest>,
    /// Earlier weeks' on-demand requests, before time 0: the Predictive algorithm's offline
    /// training (§III-B5; [`RealWeek::with_history`]); empty unless given.
    pub history: Vec<LeaseRequest>,
}

impl RealWeek {
    /// Reads week `index` from its LCRC and APS files, preloaded from the previous week's LCRC
    /// file if given.
    ///
    /// # Errors
    /// A file that cannot be read, or a VM lease that cannot be formed.
    pub fn read(
        index: usize,
        lcrc: &Path,
        aps: &Path,
        preload: Option<&Path>,
    ) -> Result<RealWeek, InputError> {
        RealWeek::read_with_linger(index, lcrc, aps, preload, Duration::ZERO)
    }

    /// [`RealWeek::read`], the APS VMs lingering `vm_linger` once no longer needed
    /// ([`traces::aps_to_leases_with_linger`]; ours: zero is §III-A's text).
    ///
    /// # Errors
    /// A file that cannot be read, or a VM lease that cannot be formed.
    pub fn read_with_linger(
        index: usize,
        lcrc: &Path,
        aps: &Path,
        preload: Option<&Path>,
        vm_linger: Duration,
    ) -> Result<RealWeek, InputError> {
        let jobs = traces::read_lcrc(lcrc)?;
        let preload = match preload {
            Some(p) => {
                let records = traces::read_lcrc_records(p)?;
                traces::running_at(&records, Time(WEEK.0), jobs.len() as u64)
            }
            None => Vec::new(),
        };
        let leases = traces::aps_to_leases_with_linger(
            &traces::read_aps(aps)?,
            APS_CORES_PER_VM,
            vm_linger,
        )?;
        let name = traces::week_name(lcrc);
        let name = if name.is_empty() {
            format!("week {index}")
        } else {
            name
        };
        Ok(RealWeek {
            name,
            jobs,
            preload,
            leases,
            history: Vec::new(),
        })
    }

    /// This week with the APS weekly `files` (oldest first, the last one the week just before
    /// this one's) as its history ([`history_leases`]).
    ///
    /// # Errors
    /// A file that cannot be read, or a VM lease that cannot be formed.
    pub fn with_history(
        self,
        files: &[PathBuf],
        vm_linger: Duration,
    ) -> Result<RealWeek, InputError> {
        Ok(RealWeek {
            history: history_leases(files, vm_linger)?,
            ..self
        })
    }
}

/// The APS weekly `files` (oldest first) as the VM leases of the weeks just before time 0, the
/// APS VMs lingering `vm_linger` as the on-demand load's (§III-B5: the Predictive algorithm's
/// offline training).
///
/// # Errors
/// A file that cannot be read, or a VM lease that cannot be formed.
pub fn history_leases(
    files: &[PathBuf],
    vm_linger: Duration,
) -> Result<Vec<LeaseRequest>, InputError> {
    let weeks = week_shift(files.len());
    Ok(aps_leases(files, vm_linger)?
        .into_iter()
        .map(|r| LeaseRequest {
            submit: Time(r.submit.0.saturating_sub(weeks.0)),
            ..r
        })
        .collect())
}

impl Scenario {
    /// `nodes` nodes, synthetic batch and on-demand loads, `I` =
    /// [`DEFAULT_IDLE_HOLD`](crate::policy::DEFAULT_IDLE_HOLD).
    pub fn synthetic(nodes: u32) -> Scenario {
        Scenario {
            nodes,
            batch: BatchSource::Synthetic {
                sample_lcrc: Vec::new(),
            },
            on_demand: OnDemandSource::Synthetic,
            idle_hold: crate::policy::DEFAULT_IDLE_HOLD,
            vm_linger: Duration::ZERO,
            history: Vec::new(),
            batch_cycle: BatchCycle::Immediate,
        }
    }

    /// Whether the batch workload comes from a file.
    pub fn batch_from_file(&self) -> bool {
        !matches!(self.batch, BatchSource::Synthetic { .. })
    }

    /// Whether the on-demand load is generated (and so differs per seed, with a history).
    pub fn synthetic_leases(&self) -> bool {
        self.on_demand == OnDemandSource::Synthetic
    }

    /// The batch workloads: the LCRC or SWF file's (one workload), else `kinds` generated for
    /// `batch_nodes` nodes over `weeks` weeks from `seed`, in parallel.
    ///
    /// # Errors
    /// A file that cannot be read, or invalid generator parameters.
    pub fn batch_inputs(
        &self,
        kinds: &[BatchKind],
        batch_nodes: u32,
        weeks: u32,
        seed: u64,
    ) -> Result<Vec<BatchInput>, InputError> {
        let sample_lcrc = match &self.batch {
            BatchSource::Lcrc(files) => return Ok(vec![lcrc_input(files)?]),
            BatchSource::Swf {
                path,
                cores_per_node,
            } => return Ok(vec![swf_input(path, *cores_per_node, weeks)?]),
            BatchSource::Synthetic { sample_lcrc } => sample_lcrc,
        };
        let trace: Vec<RigidJob> = read_weeks(sample_lcrc, traces::read_lcrc)?
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, j)| RigidJob {
                id: JobId(i as u64),
                ..j
            })
            .collect();
        let trace_weeks = u32::try_from(sample_lcrc.len()).unwrap_or(u32::MAX);
        kinds
            .par_iter()
            .map(|&kind| {
                let g = SyntheticBatch::new(batch_nodes, kind).with_weeks(weeks);
                let week = if trace.is_empty() {
                    g.generate(seed)
                } else {
                    g.generate_from_trace(trace.clone(), trace_weeks, seed)
                }?;
                Ok(BatchInput {
                    label: kind.label(),
                    jobs: week.jobs,
                    preload: week.preload,
                    span: week.span,
                })
            })
            .collect()
    }

    /// The on-demand load at scale ×1: the APS files (VM leases), the lease file, or the
    /// synthetic base load ([`synthetic::base_leases`]) over `span` from `seed`.
    ///
    /// # Errors
    /// A file that cannot be read.
    pub fn on_demand(&self, span: Duration, seed: u64) -> Result<OnDemandInput, InputError> {
        match &self.on_demand {
            OnDemandSource::Aps(files) => Ok(OnDemandInput {
                label: format!(
                    "APS ({} week(s), {APS_CORES_PER_VM}-core VMs, tight packing{})",
                    files.len(),
                    if self.vm_linger > Duration::ZERO {
                        format!(", idle VMs kept {} s (ours)", self.vm_linger.0)
                    } else {
                        String::new()
                    }
                ),
                base: aps_leases(files, self.vm_linger)?,
            }),
            OnDemandSource::Leases(path) => Ok(OnDemandInput {
                label: path.display().to_string(),
                base: traces::read_leases(path)?,
            }),
            OnDemandSource::Synthetic => Ok(OnDemandInput {
                label: "file-free synthetic leases (ours: one-node VMs of ~5.5 h, diurnal bursts of up to 11, rho 1.25 %, as the paper's challenging week)".to_owned(),
                base: synthetic::base_leases(self.nodes, span, seed)?,
            }),
        }
    }

    /// The inputs of one replicate: its batch workloads (`kinds` on the whole cluster over
    /// `weeks` weeks), its on-demand load over their span and, with the synthetic on-demand
    /// load, [`HISTORY_WEEKS`] earlier weeks of it; drawn from the named families
    /// `{batch, on-demand, history}` of `streams`.
    ///
    /// # Errors
    /// As [`Scenario::batch_inputs`] and [`Scenario::on_demand`].
    pub fn replicate(
        &self,
        kinds: &[BatchKind],
        weeks: u32,
        streams: &SeedStreams,
    ) -> Result<Replicate, InputError> {
        let batch =
            self.batch_inputs(kinds, self.nodes, weeks, streams.family("batch", 0).root())?;
        let span = batch.first().map_or(WEEK, |b| b.span);
        let od = self.on_demand(span, streams.family("on-demand", 0).root())?;
        let history = if self.synthetic_leases() {
            let weeks = Duration(WEEK.0 * HISTORY_WEEKS);
            let earlier = self.on_demand(weeks, streams.family("history", 0).root())?;
            earlier
                .base
                .into_iter()
                .map(|r| LeaseRequest {
                    submit: Time(r.submit.0.saturating_sub(weeks.0)),
                    ..r
                })
                .collect()
        } else if matches!(self.on_demand, OnDemandSource::Aps(_)) {
            history_leases(&self.history, self.vm_linger)?
        } else {
            Vec::new()
        };
        Ok(Replicate {
            batch,
            on_demand: od.label,
            base: od.base,
            history,
        })
    }

    /// The Basic Balancer with static reserve `r` and window `w` (§II-C1).
    pub fn basic(&self, r: u32, w: Duration) -> Arm {
        Arm::balancer(
            BalancerConfig::new(Strategy::Basic { static_reserve: r })
                .with_window(w)
                .with_idle_hold(self.idle_hold),
        )
    }

    /// The Hint Balancer (the requests' notices are the hints), window `w` (§II-C2).
    pub fn hint(&self, w: Duration) -> Arm {
        Arm::balancer(
            BalancerConfig::new(Strategy::Hinted)
                .with_window(w)
                .with_idle_hold(self.idle_hold),
        )
    }

    /// The Predictive Balancer combining peaks by `rule`, window `w`, holding unused reserve
    /// for `idle_hold` (§II-C3).
    pub fn predictive(
        &self,
        rule: Combine,
        hold: PredictiveHold,
        w: Duration,
        idle_hold: Duration,
    ) -> Arm {
        Arm::predictive(
            BalancerConfig::new(Strategy::Hinted)
                .with_window(w)
                .with_idle_hold(idle_hold),
            PredictorSpec { rule, hold },
        )
    }

    /// Every node on-demand; batch jobs never run.
    pub fn all_on_demand(&self, w: Duration) -> Arm {
        Arm::all_on_demand(self.nodes, w)
    }

    /// Simulates `batch` beside `leases` under `arm` on the combined cluster.
    ///
    /// # Errors
    /// An invalid configuration for the cluster (e.g. a reserve larger than it).
    pub fn run(
        &self,
        arm: &Arm,
        batch: &BatchInput,
        leases: &[LeaseRequest],
    ) -> Result<SimReport, SimError> {
        self.run_with_history(arm, batch, leases, &[])
    }

    /// [`Scenario::run`] with earlier weeks' leases (before time 0) for the Predictive
    /// configuration's offline training (§III-B5).
    ///
    /// # Errors
    /// As [`Scenario::run`].
    pub fn run_with_history(
        &self,
        arm: &Arm,
        batch: &BatchInput,
        leases: &[LeaseRequest],
        history: &[LeaseRequest],
    ) -> Result<SimReport, SimError> {
        let workload = Workload::new(&batch.jobs, leases).with_preload(&batch.preload);
        Ok(arm
            .run_with(self.nodes, self.batch_cycle, &workload, history)?
            .report)
    }

    /// Simulates a real week (Table I) under `arm` on the combined cluster.
    ///
    /// # Errors
    /// As [`Scenario::run`].
    pub fn run_week(&self, arm: &Arm, week: &RealWeek) -> Result<SimOutcome, SimError> {
        let workload = Workload::new(&week.jobs, &week.leases).with_preload(&week.preload);
        arm.run_with(self.nodes, self.batch_cycle, &workload, &week.history)
    }
}

/// A boxed policy of the Balancer's protocol with the built-in policies' error.
pub type BoxedPolicy = Box<
    dyn BalancerPolicy<
            Observation = Observation,
            Command = Command,
            View = [RmNode],
            Error = BalancerError,
        > + Send,
>;

/// What an [`Arm`]'s policy is built from for one run.
#[derive(Debug, Clone, Copy)]
pub struct ArmInputs<'a> {
    /// The run's on-demand requests.
    pub requests: &'a [LeaseRequest],
    /// Earlier leases (before the run), for policies trained offline.
    pub history: &'a [LeaseRequest],
}

type Build = dyn Fn(&ArmInputs<'_>) -> Result<BoxedPolicy, BalancerError> + Send + Sync;

/// One arm of a study: a name, how to build a fresh policy for each run, and what the
/// simulator needs to know of it (whether notices are delivered as hints, nodes batch can
/// never have). The built-in arms are [`Scenario`]'s constructors; [`Arm::new`] makes one of
/// any policy.
#[derive(Clone)]
pub struct Arm {
    name: String,
    hints: bool,
    static_reserve: u32,
    build: Arc<Build>,
}

impl std::fmt::Debug for Arm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arm")
            .field("name", &self.name)
            .field("hints", &self.hints)
            .field("static_reserve", &self.static_reserve)
            .finish_non_exhaustive()
    }
}

impl Arm {
    /// An arm named `name` whose policy `build` makes afresh for each run: any policy of the
    /// protocol whose error converts into [`BalancerError`] (`Infallible` does).
    pub fn new<P>(
        name: impl Into<String>,
        build: impl Fn(&ArmInputs<'_>) -> P + Send + Sync + 'static,
    ) -> Arm
    where
        P: BalancerPolicy + Send + 'static,
        P::Error: Into<BalancerError>,
    {
        Arm::try_new(name, move |inputs| Ok(build(inputs)))
    }

    /// [`Arm::new`] with a builder that may refuse its inputs.
    pub fn try_new<P>(
        name: impl Into<String>,
        build: impl Fn(&ArmInputs<'_>) -> Result<P, BalancerError> + Send + Sync + 'static,
    ) -> Arm
    where
        P: BalancerPolicy + Send + 'static,
        P::Error: Into<BalancerError>,
    {
        Arm {
            name: name.into(),
            hints: false,
            static_reserve: 0,
            build: Arc::new(
                move |inputs: &ArmInputs<'_>| -> Result<BoxedPolicy, BalancerError> {
                    Ok(Box::new(build(inputs)?.err_into()))
                },
            ),
        }
    }

    /// The Balancer with `config`: `basic` (Algorithm 1 with its static reserve, §II-C1) or,
    /// hinted, `hint` (the requests' notices delivered as hints, §II-C2).
    pub fn balancer(config: BalancerConfig) -> Arm {
        let arm = Arm::new(
            match config.strategy {
                Strategy::Basic { .. } => "basic",
                Strategy::Hinted => "hint",
            },
            move |_| Balancer::new(config),
        )
        .with_static_reserve(config.static_reserve());
        match config.strategy {
            Strategy::Basic { .. } => arm,
            Strategy::Hinted => arm.with_hints(),
        }
    }

    /// Predictive (§II-C3): a hinted Balancer with `config` and a predictor as `spec` says,
    /// trained on the run's history before its first request (§III-B5).
    pub fn predictive(config: BalancerConfig, spec: PredictorSpec) -> Arm {
        Arm::try_new("predictive", move |inputs| {
            let first = inputs.requests.iter().map(|r| r.submit).min();
            let history: Vec<LeaseRequest> = inputs
                .history
                .iter()
                .filter(|l| first.is_none_or(|f| l.submit < f))
                .copied()
                .collect();
            let predictor = Predictor::train(spec.rule, &history);
            Ok(Predictive::new(config, predictor)?.with_hold(spec.hold))
        })
    }

    /// No on-demand pool: every request is rejected (Table I's all-batch row, §III-A).
    pub fn all_batch() -> Arm {
        Arm::new("all-batch", |_| StaticSplit::new(0, Duration::ZERO))
    }

    /// A dedicated on-demand pool of `pool` nodes, requests waiting up to `w` (Table I's
    /// split, 304 + 68 nodes, §III-A).
    pub fn dedicated(pool: u32, w: Duration) -> Arm {
        Arm::new("dedicated", move |_| StaticSplit::new(pool, w)).with_static_reserve(pool)
    }

    /// Every one of `nodes` nodes on-demand; batch jobs never run.
    pub fn all_on_demand(nodes: u32, w: Duration) -> Arm {
        Arm::new("all-on-demand", move |_| StaticSplit::new(nodes, w)).with_static_reserve(nodes)
    }

    /// Simulates `workload` on `nodes` nodes under a fresh policy of this arm, built with
    /// `history`.
    ///
    /// # Errors
    /// The builder's or the policy's refusal (e.g. a reserve larger than the cluster), or the
    /// simulator's.
    pub fn run(
        &self,
        nodes: u32,
        workload: &Workload<'_>,
        history: &[LeaseRequest],
    ) -> Result<SimOutcome, SimError> {
        self.run_with(nodes, BatchCycle::Immediate, workload, history)
    }

    /// [`Arm::run`] with the batch side's scheduler running as `cycle` says.
    ///
    /// # Errors
    /// As [`Arm::run`].
    pub fn run_with(
        &self,
        nodes: u32,
        cycle: BatchCycle,
        workload: &Workload<'_>,
        history: &[LeaseRequest],
    ) -> Result<SimOutcome, SimError> {
        let requests = workload.requests;
        let mut policy = self
            .build(&ArmInputs { requests, history })
            .map_err(SimError::Build)?;
        self.simulation(nodes)?
            .with_batch_cycle(cycle)
            .run(&mut *policy, workload)
    }

    /// With the requests' notices delivered as hints (§III-B4).
    pub fn with_hints(self) -> Arm {
        Arm {
            hints: true,
            ..self
        }
    }

    /// With `nodes` nodes the policy never gives batch (`R`, a dedicated pool): wider batch
    /// jobs are counted as too wide.
    pub fn with_static_reserve(self, nodes: u32) -> Arm {
        Arm {
            static_reserve: nodes,
            ..self
        }
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A fresh policy for a run on `inputs`.
    ///
    /// # Errors
    /// The builder's refusal.
    pub fn build(&self, inputs: &ArmInputs<'_>) -> Result<BoxedPolicy, BalancerError> {
        (self.build)(inputs)
    }

    /// The simulator for this arm on `nodes` nodes.
    ///
    /// # Errors
    /// `nodes` = 0.
    pub fn simulation(&self, nodes: u32) -> Result<Simulation, ParamError> {
        Ok(Simulation::new(nodes)?
            .with_hints(self.hints)
            .with_batch_nodes(nodes - self.static_reserve.min(nodes))
            .with_label(self.name.clone()))
    }
}

/// `base` at scale `factor` (every request's nodes × factor).
///
/// # Errors
/// A factor of 0, or nodes that overflow.
pub fn scaled(base: &[LeaseRequest], factor: u32) -> Result<Vec<LeaseRequest>, InputError> {
    Ok(synthetic::scale_leases(base, factor)?)
}

/// `leases` with every request announced `notice` ahead (the Hint strategy's `H`).
pub fn with_notice(leases: &[LeaseRequest], notice: Duration) -> Vec<LeaseRequest> {
    leases
        .iter()
        .map(|r| LeaseRequest {
            notice: Some(notice),
            ..*r
        })
        .collect()
}

/// The offered on-demand load ρ of `leases` on `nodes` nodes over `span`.
pub fn rho(leases: &[LeaseRequest], nodes: u32, span: Duration) -> f64 {
    DiurnalLeases::offered_load(leases, nodes, span)
}

/// The node-seconds of `batch`'s jobs (run time cut at walltime) over `nodes × span`.
pub fn batch_load(batch: &BatchInput, nodes: u32) -> f64 {
    synthetic::offered_load(&batch.jobs, nodes, batch.span)
}

/// The APS weekly `files` as one load (week `k` shifted by `k` weeks) of 16-core VM leases
/// with tight packing (§III-A), each VM lingering `vm_linger` once no longer needed.
fn aps_leases(files: &[PathBuf], vm_linger: Duration) -> Result<Vec<LeaseRequest>, InputError> {
    let jobs: Vec<ApsJob> = read_weeks(files, traces::read_aps)?
        .into_iter()
        .enumerate()
        .flat_map(|(k, week)| {
            let shift = week_shift(k);
            week.into_iter().map(move |j| ApsJob {
                submit: j.submit.saturating_add(shift),
                start: j.start.saturating_add(shift),
                end: j.end.saturating_add(shift),
                ..j
            })
        })
        .collect();
    Ok(traces::aps_to_leases_with_linger(
        &jobs,
        APS_CORES_PER_VM,
        vm_linger,
    )?)
}

/// The shift of week `k` (k weeks, saturating).
fn week_shift(k: usize) -> Duration {
    Duration(WEEK.0.saturating_mul(i64::try_from(k).unwrap_or(i64::MAX)))
}

/// The LCRC weeks as one workload, week `k` shifted by `k` weeks, ids renumbered.
fn lcrc_input(files: &[PathBuf]) -> Result<BatchInput, InputError> {
    let weeks = read_weeks(files, traces::read_lcrc)?;
    let mut jobs: Vec<RigidJob> = weeks
        .into_iter()
        .enumerate()
        .flat_map(|(k, week)| {
            let shift = week_shift(k);
            week.into_iter().map(move |j| RigidJob {
                submit: j.submit.saturating_add(shift),
                ..j
            })
        })
        .collect();
    renumber(&mut jobs);
    Ok(BatchInput {
        label: format!("LCRC ({} week(s))", files.len()),
        jobs,
        preload: Vec::new(),
        span: week_shift(files.len()),
    })
}

/// The SWF trace's first `weeks` weeks from its first submission, sizes divided by `cores`.
fn swf_input(path: &Path, cores: u32, weeks: u32) -> Result<BatchInput, InputError> {
    let cores = cores.max(1);
    let mut jobs = traces::read_swf_jobs(path)?;
    let first = jobs.iter().map(|j| j.submit).min().unwrap_or(Time::ZERO);
    let span = Duration(WEEK.0 * i64::from(weeks));
    // Submits at or after `first` (the minimum), so the differences are checked only against
    // overflow of the span test; kept jobs have 0 <= submit - first < span.
    jobs.retain(|j| j.submit.0.checked_sub(first.0).is_some_and(|d| d < span.0));
    for job in &mut jobs {
        job.submit = Time(job.submit.0 - first.0);
        job.size = job.size.div_ceil(cores);
    }
    jobs.sort_by_key(|j| (j.submit, j.id));
    renumber(&mut jobs);
    Ok(BatchInput {
        label: path
            .file_name()
            .map_or_else(|| "SWF".to_owned(), |n| n.to_string_lossy().into_owned()),
        jobs,
        preload: Vec::new(),
        span,
    })
}

/// Reads each file with `read`, in order.
fn read_weeks<T>(
    files: &[PathBuf],
    read: fn(&Path) -> Result<Vec<T>, TraceError>,
) -> Result<Vec<Vec<T>>, InputError> {
    files.iter().map(|f| Ok(read(f)?)).collect()
}

/// Ids 0, 1, … in the current order.
fn renumber(jobs: &mut [RigidJob]) {
    for (i, job) in jobs.iter_mut().enumerate() {
        job.id = JobId(i as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicates_are_deterministic_and_history_precedes_time_zero() {
        let scenario = Scenario::synthetic(32);
        let kinds = [BatchKind::Main { utilization: 0.7 }];
        let streams = SeedStreams::new(3).family("replicate", 0);
        let a = scenario.replicate(&kinds, 1, &streams).unwrap();
        let b = scenario.replicate(&kinds, 1, &streams).unwrap();
        assert_eq!(a.batch[0].jobs, b.batch[0].jobs);
        assert_eq!(a.base, b.base);
        assert!(!a.history.is_empty());
        assert!(a.history.iter().all(|r| r.submit < Time::ZERO));
        assert!(a.base.iter().all(|r| r.submit >= Time::ZERO));
    }

    #[test]
    fn a_missing_file_is_a_trace_error() {
        let scenario = Scenario {
            batch: BatchSource::Lcrc(vec![PathBuf::from("/nonexistent/week.csv")]),
            ..Scenario::synthetic(8)
        };
        let err = scenario.batch_inputs(&[], 8, 1, 0).unwrap_err();
        assert!(matches!(err, InputError::Trace(_)), "{err}");
    }
}
