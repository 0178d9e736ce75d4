//! # cosched-metasched
//!
//! Electricity-price-aware metascheduling of HPC jobs over a grid of sites, after Murali and
//! Vadhiyar, "Metascheduling of HPC Jobs in Day-Ahead Electricity Markets" (IEEE TPDS 2018).
//! Each scheduling interval, their metascheduler assigns queued jobs to compatible systems by a
//! **minimum-cost flow** on a bipartite network — source → job (capacity 1), job → each system
//! that can run it (capacity 1, cost from the predicted price and delay), system → sink
//! (capacity `MaxQ`, the jobs a system may take) — so the solver is its core. The crate holds
//! that solver, the metascheduler policy on it with the paper's baselines, the paper's two
//! predictors — queue waits learned per site (DBSCAN clusters, else ridge regression) and
//! electricity prices beyond the published day-ahead prices (seasonal ARIMA) — and the grid
//! simulator that drives the policy over EASY-backfilling sites, with the paper's metrics.
//!
//! - [`policy`]: the metascheduler ([`policy::Mcmf`]: costs from predicted response time and
//!   electricity cost, weighted by `w_t`, at most `MaxQ` jobs per site per cycle; prices
//!   known a day ahead and forecast beyond by [`policy::PriceModel::Forecast`]) and the
//!   paper's BS, INST and TWOPRICE baselines, as plain structs with no clock, RNG or I/O.
//! - [`site`]: the grid's sites and the hour-by-hour electricity cost of a run.
//! - [`wait`]: the wait-prediction feature space, the per-site predictor interface and the
//!   paper's predictor (DBSCAN clusters of the last 2,000 jobs, else ridge regression).
//! - [`price_forecast`]: prices beyond the published day-ahead prices, forecast by
//!   [`sarima`] (the paper's seasonal ARIMA, period 24, trained on the previous three days),
//!   and the forecasts' mean absolute percentage error.
//! - [`xsede`]: the loader for the paper's XSEDE setting (`xsede_sites.csv` and price files).
//! - [`network_simplex`]: [`min_cost_flow`] with node supplies, arc lower and upper bounds and
//!   integer costs, solved by the primal network simplex method (strongly feasible trees,
//!   Cunningham's anti-cycling rule, LEMON-style flat tree arrays and block-search pricing).
//!   The result is an explicit [`FlowOutcome`]: optimal (flows, potentials, cost), infeasible
//!   or unbounded.
//! - [`min_cost_max_flow`]: the most flow from a source to a sink, at the least cost.
//! - [`dimacs`]: the DIMACS minimum-cost-flow file format (`cosched mcmf --dimacs FILE`).
//! - [`sim`]: the grid simulator — every site a `cosched-batch` EASY cluster, grid jobs pending
//!   at the metascheduler until a scheduling cycle places them, history jobs, partial grid
//!   participation, optional transfer times, and pluggable wait prediction (the paper's
//!   learned predictor per site by [`sim::WaitSource::paper`], what-if from the site's queue
//!   and running jobs, zero, or perturbed).
//! - [`scenario`]: the paper's experiments as a library — a grid and its trace, and the
//!   four strategies (BS, INST, TWOPRICE, MCMF) wired to their policies and predictors.
//! - [`metrics`]: average response time, total electricity cost, bounded slowdown, per-site
//!   utilisation, instantaneous load and fairness against a baseline.
//! - [`workload`]: the grid SWF trace (submission site in field 19), the embedded XSEDE site
//!   table, a seeded diurnal price model and a generated XSEDE-like workload.
//!
//! Both solvers are free functions over petgraph's graph traits, like petgraph's own
//! algorithms, with [`NetworkSimplex`] as the builder that selects a [`PivotRule`].
//!
//! ```
//! use cosched_metasched::{min_cost_max_flow, MaxFlowOutcome};
//! use petgraph::graph::DiGraph;
//!
//! // Three jobs, two systems taking at most one job each (MaxQ = 1). Arc weights are
//! // (capacity, cost); job 2 can run only on system 1.
//! let mut g = DiGraph::<&str, (i64, i64)>::new();
//! let source = g.add_node("source");
//! let sink = g.add_node("sink");
//! let jobs = [g.add_node("job 0"), g.add_node("job 1"), g.add_node("job 2")];
//! let systems = [g.add_node("system 0"), g.add_node("system 1")];
//! for job in jobs {
//!     g.add_edge(source, job, (1, 0));
//! }
//! for (job, system, cost) in [(0, 0, 6), (0, 1, 2), (1, 0, 3), (1, 1, 1), (2, 1, 5)] {
//!     g.add_edge(jobs[job], systems[system], (1, cost));
//! }
//! for system in systems {
//!     g.add_edge(system, sink, (1, 0));
//! }
//! let MaxFlowOutcome::Optimal(flow) = min_cost_max_flow(&g, source, sink, |e| *e.weight()).unwrap()
//! else {
//!     panic!("all capacities are finite");
//! };
//! // Two jobs run; the cheapest way is job 1 on system 0 (3) and job 0 on system 1 (2).
//! assert_eq!((flow.value, flow.cost), (2, 5));
//! ```

pub mod dimacs;
mod max_flow;
pub mod network_simplex;
pub mod policy;
pub mod price_forecast;
pub mod sarima;
pub mod site;
pub mod wait;
pub mod xsede;

// The grid simulator, its inputs and its metrics.
pub mod metrics;
pub mod scenario;
pub mod sim;
pub mod workload;

pub use max_flow::{MaxFlow, MaxFlowOutcome, min_cost_max_flow};
pub use network_simplex::{
    ArcSpec, FlowError, FlowOutcome, FlowSolution, NetworkSimplex, PivotRule, UnknownPivotRule,
    min_cost_flow,
};
