//! # cosched-flow
//!
//! Minimum-cost flow on petgraph graphs, as free functions over petgraph's graph traits (like
//! petgraph's own algorithms), one algorithm per readable unit (like LEMON). Murali and
//! Vadhiyar's metascheduler (`cosched-metasched`) assigns jobs to systems by a min-cost flow
//! each scheduling interval; the solver lives here so that `cosched mcmf`, and anyone else who
//! needs a flow, links the solver and not a grid simulator.
//!
//! - [`network_simplex`]: [`min_cost_flow`] with node supplies, arc lower and upper bounds and
//!   integer costs, solved by the primal network simplex method (strongly feasible trees,
//!   Cunningham's anti-cycling rule, LEMON-style flat tree arrays and block-search pricing).
//!   The result is an explicit [`FlowOutcome`]: optimal (flows, potentials, cost), infeasible
//!   or unbounded. [`NetworkSimplex`] is the builder that selects a [`PivotRule`] and an
//!   [`InitialBasis`] (by default a tree of cheapest paths into the demand nodes, so that
//!   long paths and cycles start solved).
//! - [`min_cost_max_flow`]: the most flow from a source to a sink, at the least cost.
//! - [`dimacs`]: the DIMACS minimum-cost-flow file format (`cosched mcmf --dimacs FILE`).
//!
//! # Complexity
//!
//! - [`min_cost_flow`]: O(m log n) for the starting tree, then each pivot costs
//!   O(block size + pivot cycle + moved subtree), with
//!   blocks of ≈ √m arcs under the default [`PivotRule::BlockSearch`]. The number of pivots has
//!   no useful polynomial bound for these rules (exponential in the worst case), but grows
//!   about linearly with the nodes in practice (Kovács 2015); memory is O(n + m).
//! - [`min_cost_max_flow`]: a maximum flow by Dinic's algorithm, O(n²m) in general and
//!   O(m√n) on unit-capacity and bipartite networks, then one [`min_cost_flow`].
//! - [`dimacs::parse_dimacs`]: O(file length); the declared node count is bounded by the
//!   file's length ([`dimacs::node_limit`]), so a short file cannot ask for gigabytes.
//!
//! All arithmetic is `i64` with the overflow-prone inputs refused up front by a typed
//! [`FlowError`]; the total cost is exact (`i128`, checked).
//!
//! ```
//! use cosched_flow::{min_cost_max_flow, MaxFlowOutcome};
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

pub use max_flow::{MaxFlow, MaxFlowOutcome, min_cost_max_flow};
pub use network_simplex::{
    ArcSpec, FlowError, FlowOutcome, FlowSolution, InitialBasis, NetworkSimplex, PivotRule,
    UnknownPivotRule, min_cost_flow,
};
