//! # cosched-rhic
//!
//! RHIC, the controller of Clay, Shen, Ma and Gu, "Adaptive Cluster Sizing for Residual
//! Resource Harvesting in Interactive Clouds": a batch job runs on `D` dedicated nodes, which
//! hold all of its storage, plus volunteer VMs padded onto interactive nodes; every
//! evaluation interval RHIC picks how many volunteers, and which, to minimise monetary cost or
//! energy, or to meet a deadline.
//!
//! The controller (policy) is plain structs and free functions with no clock, RNG or I/O;
//! [`sim`] drives it — or a baseline ([`baseline`]) — through its public API over a simulated,
//! seeded interactive cloud ([`env`](mod@env)).
//!
//! | paper | here |
//! |---|---|
//! | Eq. 1–3: supportable volunteer CPU (per dedicated node, best and worst case) | [`saturation`]: [`SaturationEstimate`] |
//! | Algorithm 1: initial pool scaling with the diminishing-returns ceiling | [`saturation`]: [`initial_pool_size`], [`Rhic::initial`] |
//! | I/O curve: mean-shift clustering with ageing, linear spline through the centres | [`iocurve`]: [`mean_shift`], [`IoCurve`] |
//! | Eq. 4–5: `R_proc`, `T_remaining`; straggler padding, transition damping | [`completion`]: [`Progress`], [`CompletionParams`] |
//! | goals: deadline, cost ($1.00/h dedicated, $0.42/h volunteer), energy | [`goal`]: [`Goal`], [`Score`], [`CostModel`], [`PowerModel`] |
//! | per-node moving-average foreground predictor | [`predictor`]: [`MovingAverage`] |
//! | memory screening, greedy order, exhaustive search over all sizes | [`search`]: [`screen_and_sort`], [`exhaustive_search`] |
//! | the controller: intervals, threshold-based replacement, deferment under churn | [`policy`]: [`Rhic`] |
//! | testbed: Table 2 foreground workloads, Hadoop/HBase job I/O profiles, prices, power | [`env`](mod@env) (our assumed numbers, documented there) |
//! | the runs: profiling, evaluation intervals, setup/drain, churn, noisy metrics | [`sim`]: [`sim::simulate`] |
//! | baselines: exhaustive fixed sizes, FUZZY hill climbing, threshold | [`sim::Strategy`], [`baseline`] |
//!
//! ```
//! use cosched_core::{Duration, NodeId, Time};
//! use cosched_rhic::{Goal, Progress, Rhic, RhicConfig};
//! // Two dedicated 4-core nodes; finish by t = 2 h.
//! let mut rhic = Rhic::new(RhicConfig::new(2, 4.0, Goal::Deadline(Time(7200)))).unwrap();
//! for (n, fg) in [(0, 1.0), (1, 3.5), (2, 0.5)] {
//!     rhic.observe_node(NodeId(n), fg, 4096);
//! }
//! // 1,000 of 10,000 units done in 10 min on 8 cores: 8 cores would need 90 min more.
//! let p = Progress::new(1000.0, 9000.0, Duration(600), 8.0).unwrap();
//! let d = rhic.decide(Time(600), &p);
//! // 8 + 3.5 cores (volunteer 2) finish in ≈ 63 min, at t ≈ 73 min; nearer the deadline
//! // without missing it is 8 cores alone: 90 min from t = 10 min is 100 min ≤ 120 min.
//! assert!(d.volunteers.is_empty());
//! ```

pub mod baseline;
pub mod completion;
pub mod env;
pub mod goal;
pub mod iocurve;
pub mod policy;
pub mod predictor;
pub mod saturation;
pub mod search;
pub mod sim;

pub use completion::{CompletionParams, Progress};
pub use goal::{Bill, CostModel, Goal, Money, PowerModel, Score};
pub use iocurve::{Cluster, IoCurve, IoSample, MeanShiftParams, age_weight, mean_shift};
pub use policy::{
    Assignment, Decision, DecisionKind, Observation, PeriodReport, PoolPolicy, ProfileReport,
    Rhic, RhicConfig, Selection,
};
pub use predictor::{ForegroundTable, MovingAverage};
pub use saturation::SaturationEstimate;
pub use search::{
    Candidate, Evaluation, SearchModel, annealing_search, exhaustive_search, screen_and_sort,
};
