//! Minimum-cost maximum flow: the most flow from a source to a sink, at the least cost.
//!
//! Two phases: the maximum flow value `F` by Dinic's blocking-flow algorithm (Dinic 1970;
//! AMO §7.4) on flat residual arrays, then the min-cost flow with supply `+F` at the source and
//! `−F` at the sink by the [network simplex](crate::network_simplex).

use crate::network_simplex::{ArcSpec, FlowError, FlowOutcome, NetworkSimplex, Simplex};
use petgraph::visit::{EdgeIndexable, IntoEdgeReferences, IntoNodeIdentifiers, NodeIndexable};
use std::collections::VecDeque;

/// A minimum-cost maximum flow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MaxFlow {
    /// The maximum flow value: net outflow of the source.
    pub value: i64,
    /// The least total cost Σ c(a)·f(a) of a flow of that value.
    pub cost: i128,
    /// Flow on each arc, indexed by `EdgeIndexable::to_index` (0 at unused indices).
    pub flows: Vec<i64>,
    /// Optimal node potentials, as in [`FlowSolution::potentials`](crate::FlowSolution::potentials).
    pub potentials: Vec<i64>,
}

/// The result of a min-cost maximum flow run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MaxFlowOutcome {
    /// The maximum flow value is finite and this is a cheapest flow of that value.
    Optimal(MaxFlow),
    /// A source–sink path of uncapacitated arcs makes the flow value unbounded, or a
    /// negative-cost cycle of uncapacitated arcs makes the cost unbounded below.
    Unbounded,
}

impl MaxFlowOutcome {
    /// The optimal flow, if there is one.
    pub fn optimal(&self) -> Option<&MaxFlow> {
        match self {
            MaxFlowOutcome::Optimal(flow) => Some(flow),
            MaxFlowOutcome::Unbounded => None,
        }
    }
}

impl NetworkSimplex {
    /// Finds a minimum-cost maximum flow from `source` to `sink`; `arc(e)` gives each arc's
    /// `(capacity, cost)`, with [`ArcSpec::INFINITE`] for an uncapacitated arc. See
    /// [`min_cost_max_flow`].
    ///
    /// # Errors
    /// As [`min_cost_max_flow`].
    pub fn solve_max_flow<G, A>(
        &self,
        graph: G,
        source: G::NodeId,
        sink: G::NodeId,
        mut arc: A,
    ) -> Result<MaxFlowOutcome, FlowError>
    where
        G: IntoEdgeReferences + IntoNodeIdentifiers + NodeIndexable + EdgeIndexable,
        A: FnMut(G::EdgeRef) -> (i64, i64),
    {
        let bound = NodeIndexable::node_bound(&graph);
        let (s, t) = (
            NodeIndexable::to_index(&graph, source),
            NodeIndexable::to_index(&graph, sink),
        );
        for node in [s, t] {
            if node >= bound {
                return Err(FlowError::NoSuchNode { node, bound });
            }
        }
        if s == t {
            return Err(FlowError::SourceIsSink(s));
        }
        let mut simplex = Simplex::from_graph(
            graph,
            |_| 0,
            |e| {
                let (capacity, cost) = arc(e);
                ArcSpec::with_capacity(capacity, cost)
            },
        )?;
        let Some(value) = simplex.max_flow_value(s, t)? else {
            return Ok(MaxFlowOutcome::Unbounded);
        };
        simplex.set_st_supply(s, t, value);
        Ok(match simplex.solve(*self)? {
            FlowOutcome::Optimal(solution) => MaxFlowOutcome::Optimal(MaxFlow {
                value,
                cost: solution.cost,
                flows: solution.flows,
                potentials: solution.potentials,
            }),
            FlowOutcome::Unbounded => MaxFlowOutcome::Unbounded,
            // The maximum flow found first is a feasible flow of this value.
            FlowOutcome::Infeasible => unreachable!("a flow of value {value} exists"),
        })
    }
}

/// Finds a minimum-cost maximum flow from `source` to `sink` with the default
/// [`NetworkSimplex`] solver.
///
/// `arc(e)` gives each arc's `(capacity, cost)`; capacities are non-negative, costs may be
/// negative. Among all flows of maximum value, the result has the least cost.
///
/// **Complexity:** the maximum flow takes O(n²m) time in the worst case (Dinic), far less on
/// unit-capacity and bipartite networks (O(m√n)); then one [`min_cost_flow`](crate::min_cost_flow).
///
/// # Errors
/// [`FlowError::NoSuchNode`] or [`FlowError::SourceIsSink`] for bad endpoints,
/// [`FlowError::BoundsInverted`] for a negative capacity, and the range errors of
/// [`min_cost_flow`](crate::min_cost_flow).
///
/// ```
/// use cosched_flow::{min_cost_max_flow, MaxFlowOutcome};
/// use petgraph::graph::DiGraph;
///
/// // (capacity, cost) per arc; at most 3 units get through, the cheapest way costs 2+2+6.
/// let mut g = DiGraph::<(), (i64, i64)>::new();
/// let (s, a, b, t) = (g.add_node(()), g.add_node(()), g.add_node(()), g.add_node(()));
/// g.extend_with_edges([
///     (s, a, (2, 1)),
///     (s, b, (2, 3)),
///     (a, t, (2, 1)),
///     (b, t, (1, 3)),
/// ]);
/// let outcome = min_cost_max_flow(&g, s, t, |e| *e.weight()).unwrap();
/// let MaxFlowOutcome::Optimal(flow) = outcome else { panic!("finite") };
/// assert_eq!((flow.value, flow.cost), (3, 2 * 2 + 6));
/// ```
pub fn min_cost_max_flow<G, A>(
    graph: G,
    source: G::NodeId,
    sink: G::NodeId,
    arc: A,
) -> Result<MaxFlowOutcome, FlowError>
where
    G: IntoEdgeReferences + IntoNodeIdentifiers + NodeIndexable + EdgeIndexable,
    A: FnMut(G::EdgeRef) -> (i64, i64),
{
    NetworkSimplex::new().solve_max_flow(graph, source, sink, arc)
}

impl Simplex {
    /// The maximum flow value from `s` to `t` over the arcs read (all lower bounds zero), or
    /// `None` if it is unbounded.
    pub(crate) fn max_flow_value(&self, s: usize, t: usize) -> Result<Option<i64>, FlowError> {
        let (tail, head, caps) = self.arcs();
        let finite: i128 = caps
            .iter()
            .filter(|&&c| c != ArcSpec::INFINITE)
            .map(|&c| i128::from(c))
            .sum();
        if finite >= i128::from(i64::MAX) {
            return Err(FlowError::FlowRange { total: finite });
        }
        let mut dinic = Dinic::new(self.node_count(), tail, head, caps);
        if dinic.uncapacitated_path(s, t) {
            return Ok(None);
        }
        // Every s–t path has a finite arc, so the value is at most `finite` < i64::MAX.
        Ok(Some(dinic.run(s, t)))
    }
}

/// Dinic's algorithm on a residual graph in compressed adjacency form. Residual arc `2a` is
/// arc `a` forward (free capacity), `2a + 1` backward (its flow).
struct Dinic {
    /// `first[v]..first[v + 1]` indexes `adjacent` for v's residual arcs.
    first: Vec<usize>,
    adjacent: Vec<u32>,
    head: Vec<u32>,
    residual: Vec<i64>,
    level: Vec<u32>,
    current: Vec<usize>,
}

impl Dinic {
    fn new(n: usize, tail: &[u32], head: &[u32], caps: &[i64]) -> Self {
        let mut first = vec![0; n + 1];
        for (&u, &v) in tail.iter().zip(head) {
            first[u as usize + 1] += 1;
            first[v as usize + 1] += 1;
        }
        for v in 0..n {
            first[v + 1] += first[v];
        }
        let mut fill = first.clone();
        let mut adjacent = vec![0; 2 * tail.len()];
        let mut arc_head = vec![0; 2 * tail.len()];
        let mut residual = vec![0; 2 * tail.len()];
        for (a, ((&u, &v), &c)) in tail.iter().zip(head).zip(caps).enumerate() {
            adjacent[fill[u as usize]] = (2 * a) as u32;
            fill[u as usize] += 1;
            adjacent[fill[v as usize]] = (2 * a + 1) as u32;
            fill[v as usize] += 1;
            arc_head[2 * a] = v;
            arc_head[2 * a + 1] = u;
            residual[2 * a] = c;
        }
        Self {
            first,
            adjacent,
            head: arc_head,
            residual,
            level: vec![0; n],
            current: vec![0; n],
        }
    }

    /// Whether `t` is reachable from `s` over uncapacitated arcs (before any flow).
    fn uncapacitated_path(&self, s: usize, t: usize) -> bool {
        let mut seen = vec![false; self.level.len()];
        let mut stack = vec![s];
        seen[s] = true;
        while let Some(u) = stack.pop() {
            if u == t {
                return true;
            }
            for &r in &self.adjacent[self.first[u]..self.first[u + 1]] {
                let v = self.head[r as usize] as usize;
                if r % 2 == 0 && self.residual[r as usize] == ArcSpec::INFINITE && !seen[v] {
                    seen[v] = true;
                    stack.push(v);
                }
            }
        }
        false
    }

    /// Breadth-first levels from `s` over residual arcs; whether `t` was reached.
    fn levels(&mut self, s: usize, t: usize) -> bool {
        const UNSEEN: u32 = u32::MAX;
        self.level.fill(UNSEEN);
        self.level[s] = 0;
        let mut queue = VecDeque::from([s]);
        while let Some(u) = queue.pop_front() {
            for &r in &self.adjacent[self.first[u]..self.first[u + 1]] {
                let v = self.head[r as usize] as usize;
                if self.residual[r as usize] > 0 && self.level[v] == UNSEEN {
                    self.level[v] = self.level[u] + 1;
                    if v != t {
                        queue.push_back(v);
                    }
                }
            }
        }
        self.level[t] != UNSEEN
    }

    /// The maximum flow value; leaves the flow in `residual`.
    fn run(&mut self, s: usize, t: usize) -> i64 {
        let mut value = 0;
        let mut path: Vec<u32> = Vec::new();
        while self.levels(s, t) {
            self.current
                .copy_from_slice(&self.first[..self.level.len()]);
            // Blocking flow: depth-first along level-increasing residual arcs, advancing each
            // node's current-arc pointer past arcs that lead nowhere.
            let mut u = s;
            loop {
                if u == t {
                    let push = path
                        .iter()
                        .map(|&r| self.residual[r as usize])
                        .min()
                        .unwrap_or(0);
                    for &r in &path {
                        self.residual[r as usize] -= push;
                        self.residual[(r ^ 1) as usize] += push;
                    }
                    value += push;
                    // Restart from the tail of the first saturated arc.
                    let cut = path
                        .iter()
                        .position(|&r| self.residual[r as usize] == 0)
                        .unwrap_or(0);
                    path.truncate(cut);
                    u = path.last().map_or(s, |&r| self.head[r as usize] as usize);
                    continue;
                }
                let end = self.first[u + 1];
                let mut advanced = false;
                while self.current[u] < end {
                    let r = self.adjacent[self.current[u]] as usize;
                    let v = self.head[r] as usize;
                    if self.residual[r] > 0 && self.level[v] == self.level[u] + 1 {
                        path.push(r as u32);
                        u = v;
                        advanced = true;
                        break;
                    }
                    self.current[u] += 1;
                }
                if !advanced {
                    // Dead end: no more flow through u in this phase.
                    self.level[u] = u32::MAX;
                    match path.pop() {
                        Some(r) => {
                            u = self.head[(r ^ 1) as usize] as usize;
                            self.current[u] += 1;
                        }
                        None => break,
                    }
                }
            }
        }
        value
    }
}
