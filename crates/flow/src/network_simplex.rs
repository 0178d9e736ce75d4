//! Minimum-cost flow by the primal network simplex method.
//!
//! Given a directed graph with a supply `b(v)` on every node (positive: the node sends flow;
//! negative: it receives) and, on every arc, a lower bound `l`, an upper bound `u` and an integer
//! cost `c`, [`min_cost_flow`] finds a flow `f` with
//!
//! - `l(a) ≤ f(a) ≤ u(a)` on every arc,
//! - outflow(v) − inflow(v) = `b(v)` at every node,
//! - minimum total cost Σ `c(a)·f(a)`,
//!
//! or reports that no such flow exists ([`FlowOutcome::Infeasible`]) or that the cost has no
//! lower bound ([`FlowOutcome::Unbounded`]: a negative-cost cycle of uncapacitated arcs, in a
//! problem that has a feasible flow).
//!
//! # Algorithm
//!
//! The primal network simplex method of Ahuja, Magnanti and Orlin, *Network Flows* (1993),
//! chapter 11, organised as in LEMON's `NetworkSimplex` (Kovács, "Minimum-cost flow algorithms:
//! an experimental evaluation", 2015):
//!
//! - **Artificial root.** An artificial root node with an artificial arc to or from every node;
//!   arcs into the root cost 0, arcs out of it cost `M` (big-M), with
//!   `M = (n + 1)·(max |c| + 1)` for `n` nodes, more than any simple path costs. An optimal
//!   solution then carries flow on an artificial arc only if the problem is infeasible
//!   (AMO §11.4): a positive artificial flow could otherwise be rerouted over a real path for
//!   less than `M`, whatever the starting tree.
//! - **Start** ([`InitialBasis`]). AMO and LEMON start from the *artificial star*: every node a
//!   child of the root, its artificial arc carrying its supply. On a long path every
//!   pivot of that start then walks a cycle through the root and the chain built so far, and a
//!   100,000-node path takes n²/2 steps. The default start instead hangs every node that can
//!   reach a demand node on a *cheapest path* to one (a Dijkstra search backwards from all
//!   demand nodes), each node sending the supply of its subtree up its tree arc; an arc that
//!   this would fill to capacity starts full, outside the tree, and its lower end hangs on
//!   the root with what is left; a subtree of the root that then needs nothing more hangs
//!   below the tail of its full arc of dearest route (strongly feasible: the arc points away
//!   from the root and carries flow). This is LEMON 1.3's initial heuristic (`NetworkSimplex::initialPivots`: a reverse search from the sink
//!   whose arcs enter the basis, one pivot each) built at once as a tree, not by pivots; the
//!   cheapest-path order is ours. Within each subtree of the root the potentials are then
//!   cheapest-path distances, so no arc between two of its nodes is eligible: paths, cycles
//!   and trees whose cheapest routes have room start optimal.
//! - **Strongly feasible spanning trees** (Cunningham 1976, "A network simplex method",
//!   *Math. Programming* 11): every tree arc can send positive flow towards the root. Both
//!   starts are strongly feasible (a real tree arc points to the root below capacity, or away
//!   from it carrying flow; artificial arcs are uncapacitated and carry flow when they point
//!   away from the root),
//!   and the leaving arc is the *last* blocking arc met when the pivot cycle is walked along its
//!   orientation from its apex (AMO §11.5), which keeps the tree strongly feasible and rules out
//!   cycling: the number of pivots is finite on every input, however degenerate.
//! - **Tree storage** in flat arrays indexed by node: `parent`, `pred` (the tree arc to the
//!   parent) and its direction, the preorder `thread` and its inverse, the subtree size
//!   `succ_num` and the subtree's last node in preorder `last_succ` — LEMON's representation,
//!   which updates a pivot's tree change in time proportional to the nodes whose position
//!   changes, and potentials in time proportional to the moved subtree.
//! - **Pricing** by one of the [`PivotRule`]s; the default is LEMON's block search (blocks of
//!   ≈ √m arcs, scanned cyclically, the most violating arc of the first block that has one
//!   enters). Arcs are stored in LEMON's "mixed" order so that a block samples the whole graph.
//! - **Unboundedness** shows as a pivot cycle with no blocking arc. Because big-M may meet such a
//!   cycle before the artificial flow is gone, the problem is then solved once more with all
//!   costs zero: it is unbounded if that has a feasible flow, infeasible otherwise.
//!
//! The cheapest-paths start costs O(m log n). Each pivot costs O(block size + length of the
//! pivot cycle + size of the moved subtree); the
//! number of pivots has no useful polynomial bound for these pivot rules (the method is
//! exponential in the worst case), but in practice it grows about linearly with the number of
//! nodes, and the method is among the fastest for sparse problems (Kovács 2015).
//!
//! # Numbers
//!
//! Everything is `i64` inside the solver; an upper bound of [`ArcSpec::INFINITE`]
//! (`i64::MAX`) means "uncapacitated". The solver refuses, with a typed [`FlowError`] and before
//! doing any work, inputs on which its `i64` arithmetic could overflow:
//!
//! - the sum of the positive supplies plus the sum of the finite capacities `u − l` (after the
//!   lower bounds are moved into the supplies) must be below `i64::MAX`; this bounds every flow;
//! - `5·M` must be below `i64::MAX` (`n` = the node bound), which bounds every potential and
//!   reduced cost.
//!
//! The total cost is accumulated in `i128` with checked additions, so it is exact;
//! [`FlowError::CostOverflow`] reports the (practically unreachable) case that it does not fit.

use petgraph::visit::{
    EdgeIndexable, EdgeRef, IntoEdgeReferences, IntoNodeIdentifiers, NodeIndexable,
};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;
use thiserror::Error;

/// Lower bound, upper bound and cost of one arc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ArcSpec {
    /// The least flow the arc must carry (may be negative).
    pub lower: i64,
    /// The most flow the arc may carry; [`ArcSpec::INFINITE`] for no limit.
    pub upper: i64,
    /// The cost of one unit of flow on the arc.
    pub cost: i64,
}

impl ArcSpec {
    /// The upper bound that means "uncapacitated".
    pub const INFINITE: i64 = i64::MAX;

    /// An arc with flow in `lower..=upper` at `cost` per unit.
    pub const fn new(lower: i64, upper: i64, cost: i64) -> Self {
        Self { lower, upper, cost }
    }

    /// An arc with flow in `0..=capacity` at `cost` per unit.
    pub const fn with_capacity(capacity: i64, cost: i64) -> Self {
        Self::new(0, capacity, cost)
    }

    /// An arc with flow in `0..` (no upper bound) at `cost` per unit.
    pub const fn uncapacitated(cost: i64) -> Self {
        Self::new(0, Self::INFINITE, cost)
    }
}

/// How the entering arc of a pivot is chosen.
///
/// All rules give an optimal solution (and the same optimal cost); they differ in speed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PivotRule {
    /// Scan arcs cyclically from where the last search stopped; the first eligible arc enters.
    FirstEligible,
    /// Scan all arcs; the most violating arc enters (Dantzig's rule). Fewest pivots, each O(m).
    BestEligible,
    /// Scan blocks of ≈ √m arcs cyclically; the most violating arc of the first block that
    /// has an eligible arc enters. LEMON's default, and ours.
    #[default]
    BlockSearch,
}

impl PivotRule {
    /// Every rule, in declaration order.
    pub const ALL: [PivotRule; 3] = [
        PivotRule::FirstEligible,
        PivotRule::BestEligible,
        PivotRule::BlockSearch,
    ];

    /// The rule's name: `first-eligible`, `best-eligible` or `block-search`.
    pub const fn name(self) -> &'static str {
        match self {
            PivotRule::FirstEligible => "first-eligible",
            PivotRule::BestEligible => "best-eligible",
            PivotRule::BlockSearch => "block-search",
        }
    }
}

impl fmt::Display for PivotRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A pivot rule name that is not one of [`PivotRule::name`]'s.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("unknown pivot rule `{0}` (expected first-eligible, best-eligible or block-search)")]
pub struct UnknownPivotRule(pub String);

impl FromStr for PivotRule {
    type Err = UnknownPivotRule;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PivotRule::ALL
            .into_iter()
            .find(|rule| rule.name() == s)
            .ok_or_else(|| UnknownPivotRule(s.to_string()))
    }
}

/// How the starting spanning tree is built.
///
/// Both give the same optimal cost; they differ in how much pivoting is left.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum InitialBasis {
    /// Every node a child of the artificial root (AMO §11.4; LEMON's start). On a long path
    /// every pivot's cycle runs through the root and the chain built so far, so a path of n
    /// nodes takes about n²/2 steps.
    ArtificialStar,
    /// The cheapest paths into the demand nodes, kept wherever they can carry the supply
    /// behind them (the module docs' "Start"): long paths, cycles and trees start solved or
    /// nearly so. The default. On random networks with many routes per node its trees are
    /// deeper than the ones the star grows, and the pivots that remain cost more: there the
    /// star can be faster (the bench's `random_sparse` group).
    #[default]
    CheapestPaths,
}

impl InitialBasis {
    /// Every starting basis, in declaration order.
    pub const ALL: [InitialBasis; 2] = [InitialBasis::ArtificialStar, InitialBasis::CheapestPaths];

    /// The basis's name: `artificial-star` or `cheapest-paths`.
    pub const fn name(self) -> &'static str {
        match self {
            InitialBasis::ArtificialStar => "artificial-star",
            InitialBasis::CheapestPaths => "cheapest-paths",
        }
    }
}

impl fmt::Display for InitialBasis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a problem was refused before solving.
///
/// Arc and node numbers are the graph's own indices (`EdgeIndexable::to_index`,
/// `NodeIndexable::to_index`).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum FlowError {
    /// An arc's lower bound exceeds its upper bound (for [`min_cost_max_flow`](crate::min_cost_max_flow):
    /// a negative capacity).
    #[error("arc {arc}: lower bound {lower} exceeds upper bound {upper}")]
    BoundsInverted {
        /// The arc.
        arc: usize,
        /// Its lower bound.
        lower: i64,
        /// Its upper bound.
        upper: i64,
    },
    /// The supplies do not sum to zero.
    #[error("the supplies sum to {sum}, not 0")]
    Unbalanced {
        /// Their sum.
        sum: i128,
    },
    /// The positive supplies plus the finite capacities reach `i64::MAX`, so flows could
    /// overflow.
    #[error(
        "the positive supplies plus the finite arc capacities total {total}, which must stay below 2^63 - 1 (use ArcSpec::INFINITE for uncapacitated arcs)"
    )]
    FlowRange {
        /// That total (after the lower bounds are moved into the supplies).
        total: i128,
    },
    /// An arc's cost is so large that potentials could overflow.
    #[error(
        "arc {arc}: cost {cost} is too large for {nodes} nodes (5 * nodes * (|cost| + 1) must stay below 2^63)"
    )]
    CostRange {
        /// The arc.
        arc: usize,
        /// Its cost.
        cost: i64,
        /// The number of nodes, the artificial root included.
        nodes: usize,
    },
    /// The graph has too many nodes or arcs for 32-bit indices.
    #[error("the graph is too large: {nodes} nodes and {arcs} arcs (at most 2^31 each)")]
    TooLarge {
        /// Node bound.
        nodes: usize,
        /// Number of arcs.
        arcs: usize,
    },
    /// A node index is not in the graph.
    #[error("node {node} is not in the graph (node bound {bound})")]
    NoSuchNode {
        /// The node index.
        node: usize,
        /// The graph's node bound.
        bound: usize,
    },
    /// Source and sink of a maximum flow are the same node.
    #[error("source and sink are the same node {0}")]
    SourceIsSink(usize),
    /// The optimal total cost does not fit in an `i128`.
    #[error("the total cost overflows i128")]
    CostOverflow,
}

/// An optimal flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowSolution {
    /// Flow on each arc, indexed by `EdgeIndexable::to_index` (0 at unused indices).
    pub flows: Vec<i64>,
    /// Node potentials `π`, indexed by `NodeIndexable::to_index`: an optimal dual solution.
    /// The reduced cost `c(u,v) − π(u) + π(v)` is ≥ 0 on every arc with flow below its upper
    /// bound and ≤ 0 on every arc with flow above its lower bound. Potentials are unique only up
    /// to an additive constant per connected piece of the optimal tree, and may be offset by
    /// the big-M constant.
    pub potentials: Vec<i64>,
    /// Total cost Σ c(a)·f(a).
    pub cost: i128,
}

/// The result of a min-cost flow run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlowOutcome {
    /// An optimal flow exists and this is one.
    Optimal(FlowSolution),
    /// No flow satisfies the bounds and the supplies.
    Infeasible,
    /// Feasible, but a negative-cost cycle of uncapacitated arcs makes the cost unbounded below.
    Unbounded,
}

impl FlowOutcome {
    /// The optimal solution, if there is one.
    pub fn optimal(&self) -> Option<&FlowSolution> {
        match self {
            FlowOutcome::Optimal(solution) => Some(solution),
            _ => None,
        }
    }

    /// `optimal`, `infeasible` or `unbounded`.
    pub fn status(&self) -> &'static str {
        match self {
            FlowOutcome::Optimal(_) => "optimal",
            FlowOutcome::Infeasible => "infeasible",
            FlowOutcome::Unbounded => "unbounded",
        }
    }
}

/// The network simplex solver, configured: a builder of the pivot rule and the starting basis.
///
/// ```
/// use cosched_flow::{ArcSpec, FlowOutcome, NetworkSimplex, PivotRule};
/// use petgraph::graph::DiGraph;
///
/// // Ship 4 units from a to c: directly at cost 5, or through b at 1 + 1 (at most 3 units).
/// let mut g = DiGraph::<i64, ArcSpec>::new();
/// let (a, b, c) = (g.add_node(4), g.add_node(0), g.add_node(-4));
/// let direct = g.add_edge(a, c, ArcSpec::uncapacitated(5));
/// g.add_edge(a, b, ArcSpec::with_capacity(3, 1));
/// g.add_edge(b, c, ArcSpec::uncapacitated(1));
/// let outcome = NetworkSimplex::new()
///     .pivot_rule(PivotRule::BestEligible)
///     .solve(&g, |v| g[v], |e| *e.weight())
///     .unwrap();
/// let FlowOutcome::Optimal(solution) = outcome else { panic!("feasible") };
/// assert_eq!(solution.cost, 3 * 2 + 5);
/// assert_eq!(solution.flows[direct.index()], 1);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetworkSimplex {
    rule: PivotRule,
    basis: InitialBasis,
}

impl NetworkSimplex {
    /// A solver with the default pivot rule ([`PivotRule::BlockSearch`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses `rule` to choose entering arcs.
    pub fn pivot_rule(mut self, rule: PivotRule) -> Self {
        self.rule = rule;
        self
    }

    /// The configured pivot rule.
    pub fn rule(&self) -> PivotRule {
        self.rule
    }

    /// Starts from `basis` (default [`InitialBasis::CheapestPaths`]).
    pub fn initial_basis(mut self, basis: InitialBasis) -> Self {
        self.basis = basis;
        self
    }

    /// The configured starting basis.
    pub fn basis(&self) -> InitialBasis {
        self.basis
    }

    /// Solves the min-cost flow problem on `graph`, with `supply(v)` at each node and
    /// `arc(e)` giving each arc's bounds and cost. See [`min_cost_flow`].
    ///
    /// # Errors
    /// A [`FlowError`] if the input is invalid or out of the solver's numeric range.
    pub fn solve<G, S, A>(&self, graph: G, supply: S, arc: A) -> Result<FlowOutcome, FlowError>
    where
        G: IntoEdgeReferences + IntoNodeIdentifiers + NodeIndexable + EdgeIndexable,
        S: FnMut(G::NodeId) -> i64,
        A: FnMut(G::EdgeRef) -> ArcSpec,
    {
        let mut simplex = Simplex::from_graph(graph, supply, arc)?;
        simplex.check_balance()?;
        simplex.solve(*self)
    }
}

/// Solves a min-cost flow problem with the default [`NetworkSimplex`] solver.
///
/// `supply(v)` gives each node's supply (positive) or demand (negative); they must sum to
/// zero. `arc(e)` gives each arc's [`ArcSpec`]. Self-loops and parallel arcs are allowed.
/// Flows are returned by edge index, potentials by node index.
///
/// **Complexity:** O(n + m) memory; time O(pivots · (√m + n)) in the worst case per pivot,
/// typically far less (see the [module docs](self)).
///
/// # Errors
/// [`FlowError::BoundsInverted`], [`FlowError::Unbalanced`], [`FlowError::FlowRange`],
/// [`FlowError::CostRange`] or [`FlowError::TooLarge`] for invalid input, before solving;
/// [`FlowError::CostOverflow`] if the optimal cost does not fit in `i128`.
///
/// ```
/// use cosched_flow::{min_cost_flow, ArcSpec, FlowOutcome};
/// use petgraph::graph::DiGraph;
///
/// // Two suppliers, two customers; each customer takes 2 units.
/// let mut g = DiGraph::<i64, (i64, i64)>::new();
/// let s1 = g.add_node(3);
/// let s2 = g.add_node(1);
/// let t1 = g.add_node(-2);
/// let t2 = g.add_node(-2);
/// g.extend_with_edges([(s1, t1, (2, 4)), (s1, t2, (2, 6)), (s2, t1, (1, 1)), (s2, t2, (1, 5))]);
/// let outcome = min_cost_flow(&g, |v| g[v], |e| {
///     let (capacity, cost) = *e.weight();
///     ArcSpec::with_capacity(capacity, cost)
/// })
/// .unwrap();
/// assert_eq!(outcome.optimal().map(|s| s.cost), Some(1 + 4 + 2 * 6));
///
/// // Demand beyond what the arcs can carry is infeasible.
/// g[t2] = -4;
/// g[s1] = 5;
/// let outcome = min_cost_flow(&g, |v| g[v], |e| ArcSpec::with_capacity(e.weight().0, e.weight().1));
/// assert_eq!(outcome, Ok(FlowOutcome::Infeasible));
/// ```
pub fn min_cost_flow<G, S, A>(graph: G, supply: S, arc: A) -> Result<FlowOutcome, FlowError>
where
    G: IntoEdgeReferences + IntoNodeIdentifiers + NodeIndexable + EdgeIndexable,
    S: FnMut(G::NodeId) -> i64,
    A: FnMut(G::EdgeRef) -> ArcSpec,
{
    NetworkSimplex::new().solve(graph, supply, arc)
}

// ---------------------------------------------------------------------------------------------
// The simplex proper.

/// Sentinel for "no node" / "no arc".
const NONE: u32 = u32::MAX;
/// Flow and capacity value meaning "unlimited".
const INF: i64 = i64::MAX;

/// Arc states: at its lower bound (entering would increase its flow), in the tree, or at its
/// upper bound (entering would decrease its flow). The value is the sign with which the arc's
/// reduced cost counts as a violation.
const STATE_LOWER: i8 = 1;
const STATE_TREE: i8 = 0;
const STATE_UPPER: i8 = -1;

/// Direction of a node's tree arc: it points up (node → parent) or down (parent → node).
const DIR_UP: i8 = 1;
const DIR_DOWN: i8 = -1;

enum Status {
    Optimal,
    Infeasible,
    Unbounded,
}

/// The solver state: the arcs (real, then one artificial per node) and the spanning tree.
///
/// Potentials follow AMO: the reduced cost of arc (i, j) is `c − π(i) + π(j)`, zero on tree
/// arcs; an arc at its lower bound is eligible to enter when its reduced cost is negative, one
/// at its upper bound when it is positive.
pub(crate) struct Simplex {
    /// Real nodes; node `n` is the artificial root.
    n: usize,
    /// Real arcs, stored in "mixed" order; arc `m + v` is node v's artificial arc.
    m: usize,
    source: Vec<u32>,
    target: Vec<u32>,
    cost: Vec<i64>,
    /// Capacity after the lower bound was moved into the supplies (`INF` when unlimited).
    cap: Vec<i64>,
    flow: Vec<i64>,
    state: Vec<i8>,
    /// The graph's edge index of the arc at each position.
    arc_at: Vec<u32>,
    /// Lower bound of the arc at each position; empty while all are zero.
    lower: Vec<i64>,
    /// The graph's edge bound: the length of the flow vector returned.
    edge_bound: usize,
    /// Node supplies with the lower bounds moved in (outflow − inflow of `f − l`).
    supply: Vec<i128>,
    /// Sum of the finite capacities `u − l`.
    finite_caps: i128,
    /// Largest |cost| and the graph index of an arc that has it.
    max_cost: (i64, usize),

    parent: Vec<u32>,
    pred: Vec<u32>,
    dir: Vec<i8>,
    thread: Vec<u32>,
    rev_thread: Vec<u32>,
    succ_num: Vec<u32>,
    last_succ: Vec<u32>,
    pi: Vec<i64>,
    /// Scratch for the tree update: nodes whose `thread` changed.
    dirty_revs: Vec<u32>,

    // The pivot under way.
    in_arc: usize,
    join: usize,
    u_in: usize,
    v_in: usize,
    u_out: usize,
    delta: i64,
}

impl Simplex {
    /// Reads the graph into the arc arrays, in LEMON's mixed order, moving lower bounds into
    /// the supplies; no tree yet (see [`Simplex::init_tree`]).
    pub(crate) fn from_graph<G, S, A>(
        graph: G,
        mut supply: S,
        mut arc: A,
    ) -> Result<Self, FlowError>
    where
        G: IntoEdgeReferences + IntoNodeIdentifiers + NodeIndexable + EdgeIndexable,
        S: FnMut(G::NodeId) -> i64,
        A: FnMut(G::EdgeRef) -> ArcSpec,
    {
        let n = NodeIndexable::node_bound(&graph);
        let edge_bound = EdgeIndexable::edge_bound(&graph);
        const LIMIT: usize = 1 << 31;
        if n >= LIMIT || edge_bound >= LIMIT {
            return Err(FlowError::TooLarge {
                nodes: n,
                arcs: edge_bound,
            });
        }
        let m = graph.edge_references().count();
        let all = m + n;
        let mut s = Simplex {
            n,
            m,
            source: vec![0; all],
            target: vec![0; all],
            cost: vec![0; all],
            cap: vec![0; all],
            flow: Vec::new(),
            state: Vec::new(),
            arc_at: vec![0; m],
            lower: Vec::new(),
            edge_bound,
            supply: vec![0; n],
            finite_caps: 0,
            max_cost: (0, 0),
            parent: Vec::new(),
            pred: Vec::new(),
            dir: Vec::new(),
            thread: Vec::new(),
            rev_thread: Vec::new(),
            succ_num: Vec::new(),
            last_succ: Vec::new(),
            pi: Vec::new(),
            dirty_revs: Vec::new(),
            in_arc: 0,
            join: 0,
            u_in: 0,
            v_in: 0,
            u_out: 0,
            delta: 0,
        };
        for v in graph.node_identifiers() {
            s.supply[NodeIndexable::to_index(&graph, v)] = i128::from(supply(v));
        }
        let mut mixing = ArcMixing::new(m, n);
        for e in graph.edge_references() {
            let k = mixing.next_position();
            let index = EdgeIndexable::to_index(&graph, e.id());
            // Node indices are below `n < 2^31`.
            let (tail, head) = (
                NodeIndexable::to_index(&graph, e.source()),
                NodeIndexable::to_index(&graph, e.target()),
            );
            let spec = arc(e);
            if spec.lower > spec.upper {
                return Err(FlowError::BoundsInverted {
                    arc: index,
                    lower: spec.lower,
                    upper: spec.upper,
                });
            }
            s.source[k] = tail as u32;
            s.target[k] = head as u32;
            s.cost[k] = spec.cost;
            s.arc_at[k] = index as u32;
            if spec.cost.unsigned_abs() > s.max_cost.0.unsigned_abs() {
                s.max_cost = (spec.cost, index);
            }
            // f = l + f' with 0 ≤ f' ≤ u − l.
            if spec.lower != 0 {
                if s.lower.is_empty() {
                    s.lower = vec![0; m];
                }
                s.lower[k] = spec.lower;
                s.supply[tail] -= i128::from(spec.lower);
                s.supply[head] += i128::from(spec.lower);
            }
            s.cap[k] = if spec.upper == INF {
                INF
            } else {
                let c = i128::from(spec.upper) - i128::from(spec.lower);
                s.finite_caps += c;
                // Too large values fail the flow range check in `init_tree`.
                i64::try_from(c).unwrap_or(INF)
            };
        }
        Ok(s)
    }

    /// Number of node indices.
    pub(crate) fn node_count(&self) -> usize {
        self.n
    }

    /// Tails, heads and capacities (`u − l`) of the graph's arcs, in storage order.
    pub(crate) fn arcs(&self) -> (&[u32], &[u32], &[i64]) {
        let m = self.m;
        (&self.source[..m], &self.target[..m], &self.cap[..m])
    }

    /// Sets supply `value` at `s` and demand `value` at `t`, every other supply zero (the
    /// lower bounds must be zero).
    pub(crate) fn set_st_supply(&mut self, s: usize, t: usize, value: i64) {
        debug_assert!(self.lower.is_empty());
        self.supply.fill(0);
        self.supply[s] = i128::from(value);
        self.supply[t] = -i128::from(value);
    }

    /// Checks that the supplies sum to zero (moving lower bounds does not change the sum).
    pub(crate) fn check_balance(&self) -> Result<(), FlowError> {
        let sum: i128 = self.supply.iter().sum();
        if sum == 0 {
            Ok(())
        } else {
            Err(FlowError::Unbalanced { sum })
        }
    }

    /// Solves the balanced problem.
    pub(crate) fn solve(&mut self, config: NetworkSimplex) -> Result<FlowOutcome, FlowError> {
        self.init_tree(config.basis)?;
        match self.run(config.rule) {
            Status::Optimal => Ok(FlowOutcome::Optimal(self.solution()?)),
            Status::Infeasible => Ok(FlowOutcome::Infeasible),
            Status::Unbounded => {
                // Unbounded if and only if feasible: decide feasibility with all costs zero,
                // where no cycle has negative cost.
                self.cost[..self.m].fill(0);
                self.max_cost = (0, 0);
                self.init_tree(config.basis)?;
                Ok(match self.run(config.rule) {
                    Status::Optimal => FlowOutcome::Unbounded,
                    _ => FlowOutcome::Infeasible,
                })
            }
        }
    }

    /// Checks the numeric ranges and builds the starting strongly feasible tree.
    fn init_tree(&mut self, basis: InitialBasis) -> Result<(), FlowError> {
        let (n, m) = (self.n, self.m);
        let all = m + n;
        let positive: i128 = self.supply.iter().filter(|&&b| b > 0).sum();
        let total = positive + self.finite_caps;
        if total >= i128::from(INF) {
            return Err(FlowError::FlowRange { total });
        }
        // Big-M: more than any simple path costs, so artificial flow is a last resort.
        let nodes = n + 1;
        let big_m = nodes as i128 * (i128::from(self.max_cost.0.unsigned_abs()) + 1);
        if 5 * big_m >= i128::from(i64::MAX) {
            return Err(FlowError::CostRange {
                arc: self.max_cost.1,
                cost: self.max_cost.0,
                nodes,
            });
        }
        let big_m = big_m as i64;

        self.flow.clear();
        self.flow.resize(all, 0);
        self.state.clear();
        self.state.resize(all, STATE_LOWER);
        for tree in [
            &mut self.parent,
            &mut self.pred,
            &mut self.thread,
            &mut self.rev_thread,
            &mut self.succ_num,
            &mut self.last_succ,
        ] {
            tree.clear();
            tree.resize(nodes, 0);
        }
        self.dir.clear();
        self.dir.resize(nodes, DIR_UP);
        self.pi.clear();
        self.pi.resize(nodes, 0);
        // |supply| ≤ total < 2^63 after the range check.
        let mut supply: Vec<i64> = self.supply.iter().map(|&b| b as i64).collect();
        self.pred[..n].fill(NONE);
        if basis == InitialBasis::CheapestPaths {
            self.cheapest_paths_into_demands(&mut supply);
        }
        self.build_tree(&supply, big_m);
        #[cfg(test)]
        self.check_invariants();
        Ok(())
    }

    /// Chooses the real tree arcs of [`InitialBasis::CheapestPaths`] in `pred` (`NONE`: the
    /// node hangs on the root) and the arcs that start at their upper bound, whose flow it
    /// moves into `supply`.
    ///
    /// 1. A Dijkstra search backwards from all demand nodes at once, over arcs that can carry
    ///    flow, finds for every node that can reach a demand a cheapest path to one (a
    ///    label-setting heuristic when costs are negative: any tree will do).
    /// 2. Children first, each node sends the supply of its subtree up its tree arc, which
    ///    stays in the tree if that is strictly below the arc's capacity (so the tree is
    ///    strongly feasible). Otherwise the arc starts at its upper bound, full, and the node
    ///    hangs on the root with what is left.
    /// 3. A subtree of the root that now has all the supply it needs would give its full arcs
    ///    a positive reduced cost (its potentials are no longer held down by big-M), and
    ///    each would cost a pivot through the root. So it hangs instead below the tail of
    ///    its full arc of dearest route, re-rooted at that arc's head: the arc enters the
    ///    tree pointing away from the root, carrying flow, as strong feasibility allows.
    ///    Along a path of unit arcs carrying one unit, this hangs the whole path from the
    ///    source.
    ///
    /// LEMON 1.3's `initialPivots` pivots the arcs of a reverse search from the sink into
    /// the basis one by one; built at once, the tree costs O(m log n), where one pivot per arc
    /// would walk the chain built so far, the very cost the start is meant to save.
    fn cheapest_paths_into_demands(&mut self, supply: &mut [i64]) {
        let (n, m) = (self.n, self.m);
        let carries = |k: usize| self.cap[k] > 0 && self.source[k] != self.target[k];
        // The usable arcs into each node: `incoming[first[v]..first[v + 1]]`; each entry holds
        // the arc's position, tail and cost, so the search reads it in order.
        let mut first = vec![0u32; n + 1];
        for k in (0..m).filter(|&k| carries(k)) {
            first[self.target[k] as usize + 1] += 1;
        }
        for v in 0..n {
            first[v + 1] += first[v];
        }
        let mut fill = first.clone();
        let mut incoming = vec![(0u32, 0u32, 0i64); first[n] as usize];
        for k in (0..m).filter(|&k| carries(k)) {
            let v = self.target[k] as usize;
            incoming[fill[v] as usize] = (k as u32, self.source[k], self.cost[k]);
            fill[v] += 1;
        }

        // 1. Distances are simple-path costs, below big-M in magnitude: no overflow.
        let mut dist = vec![i64::MAX; n];
        let mut done = vec![false; n];
        let mut order = Vec::with_capacity(n);
        let mut heap = BinaryHeap::new();
        for v in (0..n).filter(|&v| supply[v] < 0) {
            dist[v] = 0;
            heap.push(Reverse((0, v as u32)));
        }
        while let Some(Reverse((d, u))) = heap.pop() {
            let u = u as usize;
            if done[u] {
                continue;
            }
            done[u] = true;
            order.push(u as u32);
            for &(k, w, c) in &incoming[first[u] as usize..first[u + 1] as usize] {
                let (w, dw) = (w as usize, d + c);
                // Demand nodes are the roots of the search, never children.
                if !done[w] && supply[w] >= 0 && dw < dist[w] {
                    dist[w] = dw;
                    self.pred[w] = k;
                    heap.push(Reverse((dw, w as u32)));
                }
            }
        }

        // 2. Children before parents: the reverse of the order in which nodes were settled.
        // `net[v]` becomes the supply of v's subtree; it is ≥ 0 except at demand nodes.
        let mut net = supply.to_vec();
        let mut full = Vec::new();
        for &u in order.iter().rev() {
            let u = u as usize;
            let k = self.pred[u];
            if k == NONE {
                continue;
            }
            let k = k as usize;
            let p = self.target[k] as usize;
            let cap = self.cap[k];
            if cap == INF || net[u] < cap {
                net[p] += net[u];
            } else {
                self.state[k] = STATE_UPPER;
                self.flow[k] = cap;
                for (v, change) in [(u, -cap), (p, cap)] {
                    supply[v] += change;
                    net[v] += change;
                }
                self.pred[u] = NONE;
                full.push(k as u32);
            }
        }
        if full.is_empty() {
            return;
        }

        // 3. Each subtree root's full arc of dearest route: the most expensive tail.
        let mut root_of = vec![NONE; n];
        for &u in &order {
            let u = u as usize;
            root_of[u] = match self.pred[u] {
                NONE => u as u32,
                k => root_of[self.target[k as usize] as usize],
            };
        }
        let mut dearest = vec![NONE; n];
        for &k in &full {
            let (tail, head) = (self.source[k as usize], self.target[k as usize]);
            let r = root_of[head as usize] as usize;
            let best = dearest[r];
            if best == NONE || dist[tail as usize] > dist[self.source[best as usize] as usize] {
                dearest[r] = k;
            }
        }
        // Roots in the order settled: a tail settles after its head, so a subtree that hangs
        // below a tail is looked at again when that tail's own subtree is.
        for &r in &order {
            let r = r as usize;
            let k = dearest[r];
            if k == NONE || net[r] < 0 {
                continue;
            }
            let k = k as usize;
            let (u, p, cap) = (
                self.source[k] as usize,
                self.target[k] as usize,
                self.cap[k],
            );
            // The arc then carries cap − net[r] > 0 down from u.
            if net[r] >= cap {
                continue;
            }
            // Re-root at p: each node on the path from p up to r hangs from the one below.
            let (mut child, mut arc) = (p, k as u32);
            loop {
                let up = self.pred[child];
                self.pred[child] = arc;
                if child == r {
                    break;
                }
                child = self.other_end(up as usize, child);
                arc = up;
            }
            self.state[k] = STATE_LOWER;
            self.flow[k] = 0;
            supply[u] += cap;
            supply[p] -= cap;
            net[u] += net[r];
        }
    }

    /// Builds the tree from `pred`, given the supplies with the flow of the arcs at their
    /// upper bound moved in: real tree arc `pred[v]` joins `v` to its parent; a node whose
    /// `pred` is `NONE` hangs on the root by its artificial arc, which carries the supply of
    /// its subtree up to the root at cost 0 if that is ≥ 0, else down from the root at big-M.
    /// Then the preorder thread, subtree sizes, flows and potentials.
    fn build_tree(&mut self, supply: &[i64], big_m: i64) {
        let (n, m) = (self.n, self.m);
        let root = n;
        self.parent[root] = NONE;
        self.pred[root] = NONE;
        for v in 0..n {
            self.parent[v] = match self.pred[v] {
                NONE => root as u32,
                k => self.other_end(k as usize, v) as u32,
            };
        }

        // Preorder by depth-first search from the root, children in increasing order.
        let mut first = vec![0u32; n + 2];
        for v in 0..n {
            first[self.parent[v] as usize + 1] += 1;
        }
        for v in 0..=n {
            first[v + 1] += first[v];
        }
        let mut fill = first.clone();
        let mut children = vec![0u32; n];
        for v in 0..n {
            let p = self.parent[v] as usize;
            children[fill[p] as usize] = v as u32;
            fill[p] += 1;
        }
        let mut preorder = Vec::with_capacity(n + 1);
        let mut stack = vec![root as u32];
        while let Some(u) = stack.pop() {
            preorder.push(u);
            let u = u as usize;
            stack.extend(
                children[first[u] as usize..first[u + 1] as usize]
                    .iter()
                    .rev(),
            );
        }
        for (i, &u) in preorder.iter().enumerate() {
            let next = preorder[(i + 1) % preorder.len()];
            self.link(u as usize, next as usize);
            self.succ_num[u as usize] = 1;
        }

        // Children first: subtree sizes and supplies, then each node's arc to its parent.
        let mut net = supply.to_vec();
        for &u in preorder[1..].iter().rev() {
            let (u, p) = (u as usize, self.parent[u as usize] as usize);
            if p != root {
                net[p] += net[u];
            }
            self.succ_num[p] += self.succ_num[u];
            let e = m + u;
            self.cap[e] = INF;
            let k = self.pred[u];
            if k != NONE {
                let k = k as usize;
                self.dir[u] = self.direction_of(k, u);
                // Up: the subtree's supply leaves by the arc; down: its demand arrives.
                self.flow[k] = i64::from(self.dir[u]) * net[u];
                self.state[k] = STATE_TREE;
                // The unused artificial arc stays out of the tree, empty, never priced.
                self.source[e] = u as u32;
                self.target[e] = root as u32;
                self.cost[e] = 0;
                continue;
            }
            self.pred[u] = e as u32;
            self.state[e] = STATE_TREE;
            if net[u] >= 0 {
                // Up to the root, cost 0: can always carry more flow towards the root.
                self.dir[u] = DIR_UP;
                self.source[e] = u as u32;
                self.target[e] = root as u32;
                self.flow[e] = net[u];
                self.cost[e] = 0;
            } else {
                // Down from the root at big-M, carrying the (positive) demand.
                self.dir[u] = DIR_DOWN;
                self.source[e] = root as u32;
                self.target[e] = u as u32;
                self.flow[e] = -net[u];
                self.cost[e] = big_m;
            }
        }
        for (i, &u) in preorder.iter().enumerate() {
            let u = u as usize;
            self.last_succ[u] = preorder[i + self.succ_num[u] as usize - 1];
            // Reduced cost zero on tree arcs: π(v) = π(u) − c for a tree arc (u, v).
            if u != root {
                let e = self.pred[u] as usize;
                let p = self.parent[u] as usize;
                self.pi[u] = self.pi[p] + i64::from(self.dir[u]) * self.cost[e];
            }
        }
    }

    /// Pivots until optimal or unbounded.
    fn run(&mut self, rule: PivotRule) -> Status {
        match rule {
            PivotRule::FirstEligible => self.pivot_loop(FirstEligible { next: 0 }),
            PivotRule::BestEligible => self.pivot_loop(BestEligible),
            PivotRule::BlockSearch => self.pivot_loop(BlockSearch::new(self.m)),
        }
    }

    fn pivot_loop<P: Pricing>(&mut self, mut pricing: P) -> Status {
        while let Some(e) = pricing.entering_arc(self) {
            self.in_arc = e;
            self.find_join_node();
            let change = self.find_leaving_arc();
            if self.delta == INF {
                return Status::Unbounded;
            }
            self.change_flow(change);
            if change {
                self.update_tree_structure();
                self.update_potentials();
            }
            #[cfg(test)]
            self.check_invariants();
        }
        if self.flow[self.m..].iter().any(|&f| f != 0) {
            Status::Infeasible
        } else {
            Status::Optimal
        }
    }

    /// The apex of the pivot cycle: the deepest common ancestor of the entering arc's ends.
    fn find_join_node(&mut self) {
        let mut u = self.source[self.in_arc] as usize;
        let mut v = self.target[self.in_arc] as usize;
        while u != v {
            if self.succ_num[u] < self.succ_num[v] {
                u = self.parent[u] as usize;
            } else {
                v = self.parent[v] as usize;
            }
        }
        self.join = u;
    }

    /// Finds the flow change `delta` and the leaving arc by Cunningham's rule; returns false if
    /// the entering arc itself blocks (it just moves to its other bound).
    ///
    /// The cycle is oriented along the entering arc when it is at its lower bound (against it at
    /// its upper bound): `first` → `second` over the entering arc, up from `second` to the apex,
    /// down from the apex to `first`. The leaving arc is the last blocking arc met when walking
    /// that orientation from the apex: on the `second` side the one nearest the apex (ties go
    /// up, `<=`), then the entering arc, then on the `first` side the one nearest `first` (ties
    /// stay down, `<`).
    fn find_leaving_arc(&mut self) -> bool {
        let e = self.in_arc;
        let (first, second) = if self.state[e] == STATE_LOWER {
            (self.source[e] as usize, self.target[e] as usize)
        } else {
            (self.target[e] as usize, self.source[e] as usize)
        };
        let mut delta = self.cap[e];
        let mut side = 0;
        let mut u_out = 0;
        // Walking down from the apex to `first`, tree arcs pointing down gain flow.
        let mut u = first;
        while u != self.join {
            let d = self.residual(u, DIR_DOWN);
            if d < delta {
                delta = d;
                u_out = u;
                side = 1;
            }
            u = self.parent[u] as usize;
        }
        // Walking up from `second` to the apex, tree arcs pointing up gain flow.
        let mut u = second;
        while u != self.join {
            let d = self.residual(u, DIR_UP);
            if d <= delta {
                delta = d;
                u_out = u;
                side = 2;
            }
            u = self.parent[u] as usize;
        }
        self.delta = delta;
        self.u_out = u_out;
        if side == 1 {
            (self.u_in, self.v_in) = (first, second);
        } else {
            (self.u_in, self.v_in) = (second, first);
        }
        side != 0
    }

    /// How much the tree arc above `u` can change: its free capacity if it points in the
    /// direction `gaining` (its flow increases), else its flow.
    #[inline]
    fn residual(&self, u: usize, gaining: i8) -> i64 {
        let e = self.pred[u] as usize;
        if self.dir[u] == gaining {
            let c = self.cap[e];
            if c == INF { INF } else { c - self.flow[e] }
        } else {
            self.flow[e]
        }
    }

    /// Pushes `delta` around the pivot cycle and updates the entering and leaving arcs' states.
    fn change_flow(&mut self, change: bool) {
        let e = self.in_arc;
        if self.delta > 0 {
            let val = i64::from(self.state[e]) * self.delta;
            self.flow[e] += val;
            let mut u = self.source[e] as usize;
            while u != self.join {
                self.flow[self.pred[u] as usize] -= i64::from(self.dir[u]) * val;
                u = self.parent[u] as usize;
            }
            let mut u = self.target[e] as usize;
            while u != self.join {
                self.flow[self.pred[u] as usize] += i64::from(self.dir[u]) * val;
                u = self.parent[u] as usize;
            }
        }
        if change {
            self.state[e] = STATE_TREE;
            let out = self.pred[self.u_out] as usize;
            self.state[out] = if self.flow[out] == 0 {
                STATE_LOWER
            } else {
                STATE_UPPER
            };
        } else {
            self.state[e] = -self.state[e];
        }
    }

    /// Replaces the leaving arc (above `u_out`) by the entering arc (between `u_in` below and
    /// `v_in` above): the subtree cut off at `u_out` is re-rooted at `u_in` and hung under `v_in`.
    /// The "stem" is the tree path from `u_in` up to `u_out`, whose parent links reverse.
    fn update_tree_structure(&mut self) {
        let (u_in, v_in, u_out, join, in_arc) =
            (self.u_in, self.v_in, self.u_out, self.join, self.in_arc);
        let old_rev_thread = self.rev_thread[u_out] as usize;
        let old_succ_num = self.succ_num[u_out];
        let old_last_succ = self.last_succ[u_out] as usize;
        let v_out = self.parent[u_out] as usize;

        if u_in == u_out {
            // No stem: move the subtree as it is.
            self.parent[u_in] = v_in as u32;
            self.pred[u_in] = in_arc as u32;
            self.dir[u_in] = self.direction_of(in_arc, u_in);
            // Cut its thread segment and splice it in right after v_in (unless it is there).
            if self.thread[v_in] as usize != u_out {
                let after = self.thread[old_last_succ] as usize;
                self.link(old_rev_thread, after);
                let after = self.thread[v_in] as usize;
                self.link(v_in, u_out);
                self.link(old_last_succ, after);
            }
        } else {
            // Where the moved subtree's thread continues once placed after v_in.
            let thread_continue = if old_rev_thread == v_in {
                self.thread[old_last_succ]
            } else {
                self.thread[v_in]
            } as usize;

            // Walk the stem upwards. Each stem node's new preorder is: itself, its own old
            // subtree minus the previous stem node's, then the next stem node. `last` is the
            // last node of the current stem node's remaining segment, `after` the node that
            // followed that segment.
            let mut stem = u_in;
            let mut par_stem = v_in;
            let mut last = self.last_succ[u_in] as usize;
            let mut after = self.thread[last] as usize;
            self.thread[v_in] = u_in as u32;
            self.dirty_revs.clear();
            self.dirty_revs.push(v_in as u32);
            while stem != u_out {
                let next_stem = self.parent[stem] as usize;
                self.thread[last] = next_stem as u32;
                self.dirty_revs.push(last as u32);
                // Unlink the segment [stem ..= last] from the old preorder.
                let before = self.rev_thread[stem] as usize;
                self.link(before, after);
                self.parent[stem] = par_stem as u32;
                par_stem = stem;
                stem = next_stem;
                // The remaining segment of the new stem node ends just before the previous
                // stem node's segment if that ended its subtree, else where its subtree ends.
                last = if self.last_succ[stem] == self.last_succ[par_stem] {
                    self.rev_thread[par_stem] as usize
                } else {
                    self.last_succ[stem] as usize
                };
                after = self.thread[last] as usize;
            }
            self.parent[u_out] = par_stem as u32;
            self.link(last, thread_continue);
            self.last_succ[u_out] = last as u32;
            // Close the gap u_out's old subtree left, unless it is the place it moves to.
            if old_rev_thread != v_in {
                self.link(old_rev_thread, after);
            }
            for i in 0..self.dirty_revs.len() {
                let u = self.dirty_revs[i] as usize;
                self.rev_thread[self.thread[u] as usize] = u as u32;
            }

            // Down the reversed stem from u_out to u_in: tree arcs, sizes, last successors.
            let mut size = 0;
            let new_last = self.last_succ[u_out];
            let mut u = u_out;
            while u != u_in {
                let p = self.parent[u] as usize;
                self.pred[u] = self.pred[p];
                self.dir[u] = -self.dir[p];
                size += self.succ_num[u] - self.succ_num[p];
                self.succ_num[u] = size;
                self.last_succ[p] = new_last;
                u = p;
            }
            self.pred[u_in] = in_arc as u32;
            self.dir[u_in] = self.direction_of(in_arc, u_in);
            self.succ_num[u_in] = old_succ_num;
        }

        // Last successors above v_in: where v_in ended a subtree, the moved subtree now does.
        let up_limit_out = if self.last_succ[join] as usize == v_in {
            join
        } else {
            NONE as usize
        };
        let last_succ_out = self.last_succ[u_out];
        let mut u = v_in;
        while u != NONE as usize && self.last_succ[u] as usize == v_in {
            self.last_succ[u] = last_succ_out;
            u = self.parent[u] as usize;
        }
        // Last successors above v_out: where u_out's old subtree ended one, its predecessor in
        // the thread now does (or the moved subtree, if it went back to the same place).
        let replacement = if join != old_rev_thread && v_in != old_rev_thread {
            Some(old_rev_thread as u32)
        } else if last_succ_out as usize != old_last_succ {
            Some(last_succ_out)
        } else {
            None
        };
        if let Some(replacement) = replacement {
            let mut u = v_out;
            while u != up_limit_out && self.last_succ[u] as usize == old_last_succ {
                self.last_succ[u] = replacement;
                u = self.parent[u] as usize;
            }
        }

        // Subtree sizes between the two sides and the apex.
        let mut u = v_in;
        while u != join {
            self.succ_num[u] += old_succ_num;
            u = self.parent[u] as usize;
        }
        let mut u = v_out;
        while u != join {
            self.succ_num[u] -= old_succ_num;
            u = self.parent[u] as usize;
        }
    }

    /// Makes `b` follow `a` in the thread.
    #[inline]
    fn link(&mut self, a: usize, b: usize) {
        self.thread[a] = b as u32;
        self.rev_thread[b] = a as u32;
    }

    /// The end of arc `e` that is not `v`.
    #[inline]
    fn other_end(&self, e: usize, v: usize) -> usize {
        if self.source[e] as usize == v {
            self.target[e] as usize
        } else {
            self.source[e] as usize
        }
    }

    /// The direction of tree arc `e` as seen from its lower end `u`.
    fn direction_of(&self, e: usize, u: usize) -> i8 {
        if self.source[e] as usize == u {
            DIR_UP
        } else {
            DIR_DOWN
        }
    }

    /// Shifts the potentials of the moved subtree so the entering arc's reduced cost is zero.
    fn update_potentials(&mut self) {
        let (u_in, v_in) = (self.u_in, self.v_in);
        let sigma =
            self.pi[v_in] + i64::from(self.dir[u_in]) * self.cost[self.in_arc] - self.pi[u_in];
        let end = self.thread[self.last_succ[u_in] as usize] as usize;
        let mut u = u_in;
        while u != end {
            self.pi[u] += sigma;
            u = self.thread[u] as usize;
        }
    }

    /// The optimal flow and potentials in the graph's index space.
    fn solution(&self) -> Result<FlowSolution, FlowError> {
        let mut flows = vec![0; self.edge_bound];
        let mut cost: i128 = 0;
        for k in 0..self.m {
            // In range: l ≤ l + f' ≤ u.
            let f = self.lower.get(k).copied().unwrap_or(0) + self.flow[k];
            flows[self.arc_at[k] as usize] = f;
            cost = cost
                .checked_add(i128::from(f) * i128::from(self.cost[k]))
                .ok_or(FlowError::CostOverflow)?;
        }
        Ok(FlowSolution {
            flows,
            potentials: self.pi[..self.n].to_vec(),
            cost,
        })
    }
}

/// LEMON's "arc mixing": consecutive arcs of the graph (often those of one node) are stored
/// `skip = max(m / n, 3)` positions apart, in `skip` interleaved runs, so that a pricing block
/// of consecutive positions samples the whole graph.
struct ArcMixing {
    m: usize,
    skip: usize,
    position: usize,
    run: usize,
}

impl ArcMixing {
    fn new(m: usize, n: usize) -> Self {
        let skip = if n <= 1 { 1 } else { (m / n).max(3) };
        Self {
            m,
            skip,
            position: 0,
            run: 0,
        }
    }

    /// The position of the next arc.
    fn next_position(&mut self) -> usize {
        let k = self.position;
        self.position += self.skip;
        if self.position >= self.m {
            self.run += 1;
            self.position = self.run;
        }
        k
    }
}

// ---------------------------------------------------------------------------------------------
// Pivot rules.

/// Chooses the entering arc among the real arcs, or `None` when none is eligible (optimal).
trait Pricing {
    fn entering_arc(&mut self, s: &Simplex) -> Option<usize>;
}

struct FirstEligible {
    next: usize,
}

impl Pricing for FirstEligible {
    fn entering_arc(&mut self, s: &Simplex) -> Option<usize> {
        let found = s
            .first_violating(self.next..s.m)
            .or_else(|| s.first_violating(0..self.next))?;
        self.next = found + 1;
        Some(found)
    }
}

struct BestEligible;

impl Pricing for BestEligible {
    fn entering_arc(&mut self, s: &Simplex) -> Option<usize> {
        let (violation, e) = s.most_violating(0..s.m);
        (violation < 0).then_some(e)
    }
}

struct BlockSearch {
    block: usize,
    next: usize,
}

impl BlockSearch {
    fn new(m: usize) -> Self {
        let block = ((m as f64).sqrt() as usize).max(10);
        Self { block, next: 0 }
    }
}

impl Pricing for BlockSearch {
    fn entering_arc(&mut self, s: &Simplex) -> Option<usize> {
        // Blocks run cyclically through the arcs: a block that reaches the end continues at
        // the start, and the search gives up after one full round.
        let m = s.m;
        let mut start = self.next;
        let mut scanned = 0;
        while scanned < m {
            let len = self.block.min(m - scanned);
            let end = start + len;
            let (violation, e) = if end <= m {
                s.most_violating(start..end)
            } else {
                let tail = s.most_violating(start..m);
                let head = s.most_violating(0..end - m);
                if head.0 < tail.0 { head } else { tail }
            };
            scanned += len;
            start = if end >= m { end - m } else { end };
            if violation < 0 {
                self.next = start;
                return Some(e);
            }
        }
        None
    }
}

impl Simplex {
    /// The most violating arc in `arcs` and its violation (0 and `arcs.start` if none is
    /// eligible). This is the pricing loop: over slices of one length, so that only the
    /// potentials are bounds-checked.
    #[inline]
    fn most_violating(&self, arcs: Range<usize>) -> (i64, usize) {
        let pi = &self.pi[..];
        let cost = &self.cost[arcs.clone()];
        let source = &self.source[arcs.clone()];
        let target = &self.target[arcs.clone()];
        let state = &self.state[arcs.clone()];
        let mut best = (0, arcs.start);
        for (i, (((&c, &u), &v), &st)) in cost.iter().zip(source).zip(target).zip(state).enumerate()
        {
            let violation = i64::from(st) * (c - pi[u as usize] + pi[v as usize]);
            if violation < best.0 {
                best = (violation, arcs.start + i);
            }
        }
        best
    }

    /// The first eligible arc in `arcs`.
    #[inline]
    fn first_violating(&self, arcs: Range<usize>) -> Option<usize> {
        let pi = &self.pi[..];
        let cost = &self.cost[arcs.clone()];
        let source = &self.source[arcs.clone()];
        let target = &self.target[arcs.clone()];
        let state = &self.state[arcs.clone()];
        cost.iter()
            .zip(source)
            .zip(target)
            .zip(state)
            .position(|(((&c, &u), &v), &st)| {
                i64::from(st) * (c - pi[u as usize] + pi[v as usize]) < 0
            })
            .map(|i| arcs.start + i)
    }
}

// ---------------------------------------------------------------------------------------------
// Invariant checks, run after every pivot by the unit tests.

#[cfg(test)]
impl Simplex {
    fn check_invariants(&self) {
        let nodes = self.n + 1;
        let root = self.n;
        // Preorder from the root reaches every node once, parents before children.
        let mut seen = vec![false; nodes];
        let mut u = root;
        let mut preorder = Vec::with_capacity(nodes);
        for _ in 0..nodes {
            assert!(!seen[u], "thread revisits {u}");
            seen[u] = true;
            preorder.push(u);
            let next = self.thread[u] as usize;
            assert_eq!(self.rev_thread[next] as usize, u, "rev_thread of {next}");
            u = next;
        }
        assert_eq!(u, root, "thread is not one cycle");
        let mut position = vec![0; nodes];
        for (i, &u) in preorder.iter().enumerate() {
            position[u] = i;
        }
        for &u in &preorder[1..] {
            let p = self.parent[u] as usize;
            assert!(position[p] < position[u], "{u} before its parent {p}");
            let e = self.pred[u] as usize;
            assert_eq!(self.state[e], STATE_TREE, "tree arc {e} of {u}");
            let (s, t) = (self.source[e] as usize, self.target[e] as usize);
            match self.dir[u] {
                DIR_UP => assert_eq!((s, t), (u, p)),
                _ => assert_eq!((s, t), (p, u)),
            }
            let reduced = self.cost[e] - self.pi[s] + self.pi[t];
            assert_eq!(reduced, 0, "tree arc {e} has reduced cost {reduced}");
            // Strong feasibility: flow can go up towards the root.
            if self.dir[u] == DIR_UP {
                assert!(
                    self.cap[e] == INF || self.flow[e] < self.cap[e],
                    "arc {e}: up arc saturated"
                );
            } else {
                assert!(self.flow[e] > 0, "arc {e}: down arc empty");
            }
        }
        // Subtree sizes and last successors: a subtree is a contiguous preorder segment.
        for &u in preorder.iter().rev() {
            let size = self.succ_num[u] as usize;
            let end = position[u] + size - 1;
            assert_eq!(
                self.last_succ[u] as usize, preorder[end],
                "last_succ of {u}"
            );
            for &w in &preorder[position[u] + 1..=end] {
                let mut a = w;
                while a != u {
                    a = self.parent[a] as usize;
                    assert_ne!(a, NONE as usize, "{w} is not below {u}");
                }
            }
            if end + 1 < nodes {
                let w = preorder[end + 1];
                let mut a = w;
                while a != root {
                    assert_ne!(a, u, "{w} is below {u} but outside its segment");
                    a = self.parent[a] as usize;
                }
            }
        }
        for e in 0..self.m + self.n {
            assert!(self.flow[e] >= 0, "arc {e}: negative flow");
            assert!(
                self.cap[e] == INF || self.flow[e] <= self.cap[e],
                "arc {e}: over capacity"
            );
            match self.state[e] {
                STATE_LOWER => assert_eq!(self.flow[e], 0, "arc {e} at lower"),
                STATE_UPPER => assert_eq!(self.flow[e], self.cap[e], "arc {e} at upper"),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use petgraph::graph::DiGraph;

    /// Deterministic pseudo-random numbers for the tests (splitmix64).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        fn range(&mut self, lo: i64, hi: i64) -> i64 {
            lo + (self.next() % (hi - lo + 1) as u64) as i64
        }
    }

    /// Every pivot rule with every starting basis.
    fn configurations() -> impl Iterator<Item = (PivotRule, InitialBasis)> {
        PivotRule::ALL
            .into_iter()
            .flat_map(|rule| InitialBasis::ALL.map(|basis| (rule, basis)))
    }

    fn random_problem(rng: &mut Rng, n: usize, m: usize) -> DiGraph<i64, ArcSpec> {
        let mut g = DiGraph::new();
        for _ in 0..n {
            g.add_node(0);
        }
        for _ in 0..m {
            let u = rng.range(0, n as i64 - 1) as u32;
            let v = rng.range(0, n as i64 - 1) as u32;
            let lower = if rng.range(0, 3) == 0 {
                rng.range(-2, 3)
            } else {
                0
            };
            let upper = if rng.range(0, 5) == 0 {
                ArcSpec::INFINITE
            } else {
                lower + rng.range(0, 8)
            };
            g.add_edge(
                u.into(),
                v.into(),
                ArcSpec::new(lower, upper, rng.range(-5, 10)),
            );
        }
        let mut sum = 0;
        for v in 0..n - 1 {
            let b = rng.range(-6, 6);
            g[petgraph::graph::NodeIndex::new(v)] = b;
            sum += b;
        }
        g[petgraph::graph::NodeIndex::new(n - 1)] = -sum;
        g
    }

    #[test]
    fn tree_invariants_hold_after_every_pivot() {
        let mut rng = Rng(7);
        let mut seen = [0; 3];
        for round in 0..300 {
            let n = 2 + round % 12;
            let m = rng.range(0, 3 * n as i64) as usize;
            let g = random_problem(&mut rng, n, m);
            for (rule, basis) in configurations() {
                let out = NetworkSimplex::new()
                    .pivot_rule(rule)
                    .initial_basis(basis)
                    .solve(&g, |v| g[v], |e| *e.weight())
                    .unwrap();
                seen[match out {
                    FlowOutcome::Optimal(_) => 0,
                    FlowOutcome::Infeasible => 1,
                    FlowOutcome::Unbounded => 2,
                }] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c > 0), "outcomes seen: {seen:?}");
    }

    #[test]
    fn degenerate_assignments_keep_the_tree_strongly_feasible() {
        // All costs tied, or two values: nearly every pivot is degenerate.
        let mut rng = Rng(3);
        for (n, values) in [(8, 1), (8, 2), (12, 2), (12, 3)] {
            let mut g = DiGraph::<i64, ArcSpec>::new();
            let workers: Vec<_> = (0..n).map(|_| g.add_node(1)).collect();
            let tasks: Vec<_> = (0..n).map(|_| g.add_node(-1)).collect();
            for &w in &workers {
                for &t in &tasks {
                    g.add_edge(w, t, ArcSpec::with_capacity(1, rng.range(0, values - 1)));
                }
            }
            for (rule, basis) in configurations() {
                let out = NetworkSimplex::new()
                    .pivot_rule(rule)
                    .initial_basis(basis)
                    .solve(&g, |v| g[v], |e| *e.weight())
                    .unwrap();
                let solution = out.optimal().expect("a perfect matching exists");
                assert!(solution.flows.iter().all(|&f| f == 0 || f == 1));
                if values == 1 {
                    assert_eq!(solution.cost, 0);
                }
            }
        }
    }

    #[test]
    fn arc_mixing_is_a_permutation() {
        for (m, n) in [
            (0, 5),
            (1, 5),
            (10, 3),
            (100, 7),
            (464, 58),
            (17, 1),
            (5, 0),
        ] {
            let mut mixing = ArcMixing::new(m, n);
            let mut order: Vec<usize> = (0..m).map(|_| mixing.next_position()).collect();
            order.sort_unstable();
            assert_eq!(order, (0..m).collect::<Vec<_>>());
        }
    }

    #[test]
    fn pivot_rules_parse_and_print() {
        for rule in PivotRule::ALL {
            assert_eq!(rule.name().parse::<PivotRule>(), Ok(rule));
        }
        assert!("dantzig".parse::<PivotRule>().is_err());
    }
}
