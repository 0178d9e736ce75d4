//! # cosched-rhic
//!
//! RHIC, the controller of Clay, Shen, Ma and Gu, "Adaptive Cluster Sizing for Residual
//! Resource Harvesting in Interactive Clouds": a batch job runs on `D` dedicated nodes, which
//! hold all of its storage, plus volunteer VMs padded onto interactive nodes; every
//! evaluation interval RHIC picks how many volunteers, and which, to minimise monetary cost or
//! energy, or to meet a deadline.
//!
//! The controller and the baselines are policies of the workspace's one protocol
//! ([`cosched_core::policy::Policy`]): observations in ([`Observation`]: 1 s foreground
//! readings, departures, boots, the profile, each period's measurements, the job's progress),
//! pool commands out ([`Command`]: join with slots, resize, leave), the pool difference computed
//! by the policy ([`CommandedPool`]); no clock, RNG or I/O, and their state serialises. With
//! the default `sim` feature, [`sim`] is one executor of that protocol over a simulated, seeded
//! testbed ([`env`](mod@env)) on core's simulation kernel, running any policy of the protocol
//! (the paper's are constructors in [`scenario`], which also shows how to write your own); a
//! live system is another executor. Without the feature only the policies compile.
//!
//! | paper | here |
//! |---|---|
//! | Eq. 1–3: supportable volunteer CPU (per dedicated node, best and worst case) | [`saturation`]: [`SaturationEstimate`] |
//! | Algorithm 1: worst case → midpoint → DMR ceiling or BWUtil extrapolation → + worst, until saturation | [`policy`]: [`Rhic`] |
//! | I/O curve seeded by the profile: mean-shift with ageing, linear spline through the centres | [`iocurve`]: [`mean_shift`], [`IoCurve`]; [`Rhic::io_curve`] |
//! | Eq. 4–5: `R_proc`, `T_remaining`; padding and transition damping from the task length | [`completion`]: [`Progress`], [`CompletionParams`] |
//! | goals: deadline, cost ($1.00/h dedicated, $0.42/h volunteer), energy (incremental on volunteers) | [`goal`]: [`Goal`], [`Score`], [`CostModel`], [`PowerModel`] |
//! | per-node moving-average foreground predictor over 10–60 min; Fig. 8's others (AR, auto-correlation, PRESS's FFT + Markov) | [`predictor`]: [`MovingAverage`], [`predictor::PredictorKind`]; the others' algorithms in `cosched-forecast` ([`cosched_forecast::series`]) |
//! | memory screening by map slots, greedy order, exhaustive search or simulated annealing (§4.1) | [`search`]: [`screen_and_sort`], [`exhaustive_search`], [`annealing_search`], [`SearchMethod`] |
//! | selection adjusting the previous pool, threshold replacement, deferment | [`policy`]: [`Selection`], [`Rhic`] |
//! | baselines: fixed sizes (exhaustive survey), FUZZY with dead-band and 5 % padding, threshold | [`baseline`] |
//! | testbed: Table 2, 16-core nodes (or a mix, §4.1), sessions and churn, job I/O and work, power | [`env`](mod@env) |
//! | the runs: profiling, 1-minute periods on 1 s samples, setup/drain, churn, stragglers and backup tasks, noisy metrics | [`sim`]: [`sim::RhicSim`] |
//! | the approaches and runs of §5 | [`scenario`] |
//!
//! ```
//! use cosched_core::policy::Policy;
//! use cosched_core::{Duration, NodeId, Time};
//! use cosched_rhic::{
//!     Assignment, Command, Goal, Observation, ProfileReport, Progress, ProgressPoint, Rhic,
//!     RhicConfig,
//! };
//! // Two dedicated 16-core nodes; finish by t = 2 h.
//! let mut rhic = Rhic::new(RhicConfig::new(2, 16.0, Goal::Deadline(Time(7200)))).unwrap();
//! let mut out = Vec::new();
//! // Three interactive 16-core nodes: each reading gives the node's cores and its load.
//! for (n, fg) in [(0, 4.0), (1, 14.0), (2, 2.0)] {
//!     let o = Observation::Node { node: NodeId(n), cores: 16.0, foreground_cpu: fg, free_memory_mb: 6000 };
//!     rhic.observe(Time(59), &o, &(), &mut out).unwrap();
//! }
//! let profile = ProfileReport { bw_util: 0.1, dedicated_cpu: 32.0, slot_memory_mb: 256, task_s: 60.0 };
//! rhic.observe(Time(60), &Observation::Profile(profile), &(), &mut out).unwrap();
//! // 1,920 of 240,000 units done in the 1-minute profile on 32 cores: 32 cores alone need
//! // 2 h 4 min more, past the deadline; the least-loaded volunteer (14 free cores) makes it
//! // in 1 h 26 min, the smallest pool that meets it (deadlines skip Algorithm 1).
//! let progress = Progress::new(1920.0, 238_080.0, Duration(60), 32.0).unwrap();
//! let period_end = Observation::Progress { progress, point: ProgressPoint::PeriodEnd };
//! rhic.observe(Time(60), &period_end, &(), &mut out).unwrap();
//! // It runs one map slot per core its readings gave (its memory allows 23).
//! assert_eq!(out, [Command::Join(Assignment { node: NodeId(2), slots: 16 })]);
//! ```

pub mod baseline;
pub mod completion;
#[cfg(feature = "sim")]
pub mod env;
pub mod goal;
pub mod iocurve;
pub mod policy;
pub mod predictor;
pub mod saturation;
#[cfg(feature = "sim")]
pub mod scenario;
pub mod search;
#[cfg(feature = "sim")]
pub mod sim;

pub use completion::{CompletionParams, Progress};
pub use goal::{Bill, CostModel, Goal, Money, PowerModel, Score};
pub use iocurve::{Cluster, IoCurve, IoSample, MeanShiftParams, age_weight, mean_shift};
pub use policy::{
    Assignment, CloudView, Command, CommandedPool, Observation, PeriodReport, ProfileReport,
    ProgressPoint, Rhic, RhicConfig, RhicPolicy, Selection, Sizing, SizingKind,
};
pub use predictor::{ForegroundTable, MovingAverage};
pub use saturation::SaturationEstimate;
pub use search::{
    Candidate, Evaluation, SearchMethod, SearchModel, annealing_search, exhaustive_search,
    screen_and_sort,
};
