//! Test support: random instances, an independent successive-shortest-path solver, the LEMON
//! oracle (the `mcmf` crate) and a checker of the optimality conditions.

#![allow(dead_code)]

use cosched_flow::{ArcSpec, FlowSolution};
use petgraph::graph::{DiGraph, NodeIndex};
use rand::{Rng, RngExt};

const INF: i64 = ArcSpec::INFINITE;

/// A min-cost flow problem: supplies and arcs `(tail, head, spec)`.
#[derive(Clone, Debug)]
pub struct Instance {
    pub supply: Vec<i64>,
    pub arcs: Vec<(usize, usize, ArcSpec)>,
}

/// What the oracle says about an instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    Optimal(i128),
    Infeasible,
    Unbounded,
}

/// Knobs of the random instance generator.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub nodes: usize,
    pub arcs: usize,
    /// Percent of arcs with a non-zero lower bound.
    pub lower_pct: u32,
    /// Percent of uncapacitated arcs.
    pub infinite_pct: u32,
    pub max_cap: i64,
    pub min_cost: i64,
    pub max_cost: i64,
    pub max_supply: i64,
    /// Percent of nodes with a non-zero supply.
    pub supply_pct: u32,
    pub self_loops: bool,
}

impl Shape {
    pub fn small(nodes: usize, arcs: usize) -> Self {
        Shape {
            nodes,
            arcs,
            lower_pct: 10,
            infinite_pct: 15,
            max_cap: 12,
            min_cost: -6,
            max_cost: 12,
            max_supply: 5,
            supply_pct: 20,
            self_loops: true,
        }
    }
}

impl Instance {
    pub fn random(rng: &mut impl Rng, shape: Shape) -> Self {
        let n = shape.nodes.max(1);
        let mut arcs = Vec::with_capacity(shape.arcs);
        while arcs.len() < shape.arcs {
            let (u, v) = (rng.random_range(0..n), rng.random_range(0..n));
            if u == v && !shape.self_loops {
                if n == 1 {
                    break;
                }
                continue;
            }
            let lower = if rng.random_range(0..100) < shape.lower_pct {
                rng.random_range(-2..=3)
            } else {
                0
            };
            let upper = if rng.random_range(0..100) < shape.infinite_pct {
                INF
            } else {
                lower + rng.random_range(0..=shape.max_cap)
            };
            let cost = rng.random_range(shape.min_cost..=shape.max_cost);
            arcs.push((u, v, ArcSpec::new(lower, upper, cost)));
        }
        let mut supply: Vec<i64> = (0..n)
            .map(|_| {
                if rng.random_range(0..100) < shape.supply_pct {
                    rng.random_range(-shape.max_supply..=shape.max_supply)
                } else {
                    0
                }
            })
            .collect();
        let sum: i64 = supply.iter().sum();
        supply[n - 1] -= sum;
        Instance { supply, arcs }
    }

    pub fn graph(&self) -> DiGraph<i64, ArcSpec> {
        let mut g = DiGraph::with_capacity(self.supply.len(), self.arcs.len());
        for &b in &self.supply {
            g.add_node(b);
        }
        for &(u, v, spec) in &self.arcs {
            g.add_edge(NodeIndex::new(u), NodeIndex::new(v), spec);
        }
        g
    }

    fn zero_costs(&self) -> Instance {
        let mut plain = self.clone();
        for arc in &mut plain.arcs {
            arc.2.cost = 0;
        }
        plain
    }
}

/// Checks flow bounds, conservation, the cost, and the reduced-cost optimality conditions.
pub fn check_optimal(inst: &Instance, sol: &FlowSolution) -> Result<(), String> {
    let n = inst.supply.len();
    let mut net = vec![0i128; n];
    let mut cost = 0i128;
    for (a, &(u, v, spec)) in inst.arcs.iter().enumerate() {
        let f = sol.flows[a];
        if f < spec.lower || f > spec.upper {
            return Err(format!(
                "arc {a}: flow {f} outside {}..={}",
                spec.lower, spec.upper
            ));
        }
        net[u] += i128::from(f);
        net[v] -= i128::from(f);
        cost += i128::from(f) * i128::from(spec.cost);
        let reduced =
            i128::from(spec.cost) - i128::from(sol.potentials[u]) + i128::from(sol.potentials[v]);
        if f < spec.upper && reduced < 0 {
            return Err(format!(
                "arc {a}: flow {f} below upper bound but reduced cost {reduced}"
            ));
        }
        if f > spec.lower && reduced > 0 {
            return Err(format!(
                "arc {a}: flow {f} above lower bound but reduced cost {reduced}"
            ));
        }
    }
    for (v, (&net, &supply)) in net.iter().zip(&inst.supply).enumerate() {
        if net != i128::from(supply) {
            return Err(format!(
                "node {v}: outflow - inflow = {net}, supply {supply}"
            ));
        }
    }
    if cost != sol.cost {
        return Err(format!("reported cost {} but flows cost {cost}", sol.cost));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Successive shortest paths (Bellman–Ford), the independent oracle.

/// Solves `inst` by successive shortest paths.
pub fn ssp(inst: &Instance) -> Expected {
    if has_negative_uncapacitated_cycle(inst) {
        return match ssp_bounded(&inst.zero_costs()) {
            Expected::Optimal(_) => Expected::Unbounded,
            other => other,
        };
    }
    ssp_bounded(inst)
}

/// Bellman–Ford negative-cycle detection on the uncapacitated arcs.
fn has_negative_uncapacitated_cycle(inst: &Instance) -> bool {
    let n = inst.supply.len();
    let mut dist = vec![0i64; n];
    for _ in 0..=n {
        let mut changed = false;
        for &(u, v, spec) in &inst.arcs {
            if spec.upper == INF && dist[u] + spec.cost < dist[v] {
                dist[v] = dist[u] + spec.cost;
                changed = true;
            }
        }
        if !changed {
            return false;
        }
    }
    true
}

/// SSP when no negative cycle has unlimited capacity: uncapacitated arcs get a capacity no
/// basic solution exceeds, negative arcs start saturated, then shortest paths carry the
/// excesses to the deficits.
fn ssp_bounded(inst: &Instance) -> Expected {
    let n = inst.supply.len();
    let mut excess: Vec<i64> = inst.supply.clone();
    let mut finite = 0;
    for &(u, v, spec) in &inst.arcs {
        excess[u] -= spec.lower;
        excess[v] += spec.lower;
        if spec.upper != INF {
            finite += spec.upper - spec.lower;
        }
    }
    let big = excess.iter().filter(|&&b| b > 0).sum::<i64>() + finite + 1;
    // Residual arcs 2a (forward) and 2a + 1 (backward).
    let (s, t) = (n, n + 1);
    let mut r = Residual::default();
    for &(u, v, spec) in &inst.arcs {
        let c = if spec.upper == INF {
            big
        } else {
            spec.upper - spec.lower
        };
        r.add(u, v, c, spec.cost);
    }
    // Saturate negative arcs so every residual arc costs at least 0.
    for a in 0..inst.arcs.len() {
        if r.cost[2 * a] < 0 {
            let c = r.cap[2 * a];
            r.cap[2 * a] = 0;
            r.cap[2 * a + 1] = c;
            excess[r.from[2 * a]] -= c;
            excess[r.to[2 * a]] += c;
        }
    }
    let mut need = 0;
    for (v, &b) in excess.iter().enumerate() {
        if b > 0 {
            r.add(s, v, b, 0);
            need += b;
        } else if b < 0 {
            r.add(v, t, -b, 0);
        }
    }
    let mut shipped = 0;
    while let Some(path) = r.shortest_path(n + 2, s, t) {
        let push = path.iter().map(|&a| r.cap[a]).min().unwrap_or(0);
        for &a in &path {
            r.cap[a] -= push;
            r.cap[a ^ 1] += push;
        }
        shipped += push;
    }
    if shipped != need {
        return Expected::Infeasible;
    }
    let mut total = 0i128;
    for (a, &(_, _, spec)) in inst.arcs.iter().enumerate() {
        let f = spec.lower + r.cap[2 * a + 1];
        total += i128::from(f) * i128::from(spec.cost);
    }
    Expected::Optimal(total)
}

/// A residual network: arc `2a` and its reverse `2a + 1`.
#[derive(Default)]
struct Residual {
    from: Vec<usize>,
    to: Vec<usize>,
    cap: Vec<i64>,
    cost: Vec<i64>,
}

impl Residual {
    fn add(&mut self, u: usize, v: usize, cap: i64, cost: i64) {
        self.from.extend([u, v]);
        self.to.extend([v, u]);
        self.cap.extend([cap, 0]);
        self.cost.extend([cost, -cost]);
    }

    /// A cheapest path from `s` to `t` over arcs with capacity left (Bellman–Ford), as
    /// residual arcs from `t` back to `s`.
    fn shortest_path(&self, nodes: usize, s: usize, t: usize) -> Option<Vec<usize>> {
        let mut dist = vec![i64::MAX; nodes];
        let mut via = vec![usize::MAX; nodes];
        dist[s] = 0;
        for _ in 0..nodes {
            let mut changed = false;
            for a in 0..self.to.len() {
                let (u, v) = (self.from[a], self.to[a]);
                if self.cap[a] > 0 && dist[u] != i64::MAX && dist[u] + self.cost[a] < dist[v] {
                    dist[v] = dist[u] + self.cost[a];
                    via[v] = a;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        if dist[t] == i64::MAX {
            return None;
        }
        let mut path = Vec::new();
        let mut v = t;
        while v != s {
            path.push(via[v]);
            v = self.from[via[v]];
        }
        Some(path)
    }
}

// ---------------------------------------------------------------------------------------------
// LEMON through the `mcmf` crate (min-cost max-flow only), with petgraph's Dinic for the
// maximum flow value.

/// Min-cost max-flow by LEMON: `(max flow value, min cost)` of the network `arcs` =
/// `(tail, head, capacity, cost)` from `s` to `t`. No self-loops, finite capacities.
///
/// The crate feeds LEMON a supply larger than the maximum flow and reads the flows of its
/// big-M solution, in which excess supply may leave the network at any node for free. With
/// negative costs that excess would ride negative dead-end arcs, so the source and sink arcs
/// get exactly the maximum flow value (from petgraph's Dinic) as capacity.
pub fn lemon_max_flow(
    n: usize,
    arcs: &[(usize, usize, i64, i64)],
    s: usize,
    t: usize,
) -> (i64, i64) {
    use mcmf::{Capacity, Cost, GraphBuilder, Vertex};
    let value = petgraph_max_flow(n, arcs, s, t);
    let mut builder = GraphBuilder::<usize>::new();
    builder.add_edge(
        Vertex::Source,
        Vertex::Node(s),
        Capacity(value as i32),
        Cost(0),
    );
    builder.add_edge(
        Vertex::Node(t),
        Vertex::Sink,
        Capacity(value as i32),
        Cost(0),
    );
    for &(u, v, c, w) in arcs {
        assert_ne!(u, v, "mcmf takes no self-loops");
        builder.add_edge(
            Vertex::Node(u),
            Vertex::Node(v),
            Capacity(c as i32),
            Cost(w as i32),
        );
    }
    let (cost, _) = builder.mcmf();
    (value, i64::from(cost))
}

/// The maximum flow value by petgraph's Dinic.
pub fn petgraph_max_flow(n: usize, arcs: &[(usize, usize, i64, i64)], s: usize, t: usize) -> i64 {
    let mut g = DiGraph::<(), u64>::new();
    for _ in 0..n {
        g.add_node(());
    }
    for &(u, v, c, _) in arcs {
        g.add_edge(NodeIndex::new(u), NodeIndex::new(v), c as u64);
    }
    petgraph::algo::dinics(&g, NodeIndex::new(s), NodeIndex::new(t)).0 as i64
}

/// Solves a min-cost flow instance (finite capacities) with LEMON: lower bounds moved into the
/// supplies, self-loops settled by hand (saturated if negative), supplies and demands joined
/// to a super source and sink; feasible iff the maximum flow ships every supply.
pub fn lemon(inst: &Instance) -> Expected {
    let n = inst.supply.len();
    let mut excess = inst.supply.clone();
    let mut fixed = 0i128;
    let mut network = Vec::new();
    for &(u, v, spec) in &inst.arcs {
        assert_ne!(spec.upper, INF, "LEMON oracle: finite capacities only");
        let flow = if u == v {
            if spec.cost < 0 {
                spec.upper
            } else {
                spec.lower
            }
        } else {
            excess[u] -= spec.lower;
            excess[v] += spec.lower;
            network.push((u, v, spec.upper - spec.lower, spec.cost));
            spec.lower
        };
        fixed += i128::from(flow) * i128::from(spec.cost);
    }
    let (s, t) = (n, n + 1);
    let mut need = 0;
    for (v, &b) in excess.iter().enumerate() {
        if b > 0 {
            network.push((s, v, b, 0));
            need += b;
        } else if b < 0 {
            network.push((v, t, -b, 0));
        }
    }
    let (value, cost) = lemon_max_flow(n + 2, &network, s, t);
    if value == need {
        Expected::Optimal(fixed + i128::from(cost))
    } else {
        Expected::Infeasible
    }
}

// ---------------------------------------------------------------------------------------------
// Long thin networks: the network simplex's worst case from an artificial-star start, shared
// by the tests, the bench and the `long_paths` example.

/// A path `0 → 1 → … → n−1` of arcs with capacity `cap` and costs in 1..=9, shipping `units`
/// from node 0 to node n−1.
pub fn path(n: usize, cap: i64, units: i64) -> Instance {
    let n = n.max(2);
    let mut supply = vec![0; n];
    supply[0] = units;
    supply[n - 1] = -units;
    let arcs = (0..n - 1)
        .map(|i| {
            (
                i,
                i + 1,
                ArcSpec::with_capacity(cap, 1 + (i as i64 * 7) % 9),
            )
        })
        .collect();
    Instance { supply, arcs }
}

/// A cycle of `n` nodes with an arc each way between neighbours (forward costs 1..=9,
/// backward costs 2..=10, capacity `cap`), shipping `units` from node 0 to node n/2: the two
/// routes round the cycle compete.
pub fn cycle(n: usize, cap: i64, units: i64) -> Instance {
    let n = n.max(3);
    let mut supply = vec![0; n];
    supply[0] = units;
    supply[n / 2] = -units;
    let mut arcs = Vec::with_capacity(2 * n);
    for i in 0..n {
        let j = (i + 1) % n;
        arcs.push((i, j, ArcSpec::with_capacity(cap, 1 + (i as i64 * 5) % 9)));
        arcs.push((j, i, ArcSpec::with_capacity(cap, 2 + (i as i64 * 3) % 9)));
    }
    Instance { supply, arcs }
}

/// A path of `n / 2` spine nodes, each with a branch node joined by an arc each way (cost 1);
/// spine arcs point to the end of the spine (capacity `cap`, costs 1..=9), and every fourth
/// branch also has an arc to the next spine node. Every tenth branch supplies one unit; the
/// end of the spine takes them all.
pub fn caterpillar(n: usize, cap: i64) -> Instance {
    let spine = (n / 2).max(2);
    let mut supply = vec![0; 2 * spine];
    let mut arcs = Vec::with_capacity(4 * spine);
    for i in 0..spine {
        let branch = spine + i;
        if i + 1 < spine {
            arcs.push((
                i,
                i + 1,
                ArcSpec::with_capacity(cap, 1 + (i as i64 * 7) % 9),
            ));
            if i % 4 == 0 {
                arcs.push((branch, i + 1, ArcSpec::with_capacity(cap, 5)));
            }
        }
        arcs.push((i, branch, ArcSpec::with_capacity(cap, 1)));
        arcs.push((branch, i, ArcSpec::with_capacity(cap, 1)));
        if i % 10 == 3 {
            supply[branch] = 1;
            supply[spine - 1] -= 1;
        }
    }
    Instance { supply, arcs }
}

/// A comb: a spine of `n / 2` nodes with arcs to its end (capacity `n`, costs 1..=9), each
/// spine node with a tooth that supplies one unit over an arc of capacity 1 (cost 1..=3); the
/// end of the spine takes them all. Every tooth's arc is full at the optimum.
pub fn comb(n: usize) -> Instance {
    let spine = (n / 2).max(2);
    let mut supply = vec![0; 2 * spine];
    let mut arcs = Vec::with_capacity(2 * spine);
    for i in 0..spine {
        if i + 1 < spine {
            let cost = 1 + (i as i64 * 7) % 9;
            arcs.push((i, i + 1, ArcSpec::with_capacity(n as i64, cost)));
        }
        arcs.push((spine + i, i, ArcSpec::with_capacity(1, 1 + i as i64 % 3)));
        supply[spine + i] = 1;
    }
    supply[spine - 1] = -(spine as i64);
    Instance { supply, arcs }
}

/// A long thin network of `n` nodes.
pub type LongShape = fn(usize) -> Instance;

/// The long shapes the bench and the `long_paths` example time: one unit along a path of
/// capacity-1 arcs (the hostile-input report's instance), three units round a cycle with arcs both ways, a
/// caterpillar whose spine has room for all its supply, and a comb whose teeth fill their
/// arcs.
pub const LONG_SHAPES: [(&str, LongShape); 4] = [
    ("path_capacity_1", |n| path(n, 1, 1)),
    ("cycle_both_ways", |n| cycle(n, 4, 3)),
    ("caterpillar", |n| caterpillar(n, n as i64 / 10)),
    ("comb_full_teeth", comb),
];

/// A random sparse network (ours): `n` nodes, `m` random arcs (capacity 1..=1000, cost
/// 1..=100), and a Hamiltonian cycle in random order that can carry all the supply at cost
/// 100, so every instance is feasible; `sources` nodes supply 1..=100 units each, `sinks`
/// other nodes share the demand. The cheapest-paths start is slower than the artificial star
/// on these, which the bench tracks.
pub fn random_sparse(
    rng: &mut impl Rng,
    n: usize,
    m: usize,
    sources: usize,
    sinks: usize,
) -> Instance {
    let mut supply = vec![0i64; n];
    for b in &mut supply[..sources] {
        *b = rng.random_range(1..=100);
    }
    let total: i64 = supply.iter().sum();
    for j in 0..sinks {
        let share = total / sinks as i64 + i64::from((j as i64) < total % sinks as i64);
        supply[n - 1 - j] -= share;
    }
    let mut arcs = Vec::with_capacity(m + n);
    while arcs.len() < m {
        let (u, v) = (rng.random_range(0..n), rng.random_range(0..n));
        if u != v {
            let spec =
                ArcSpec::with_capacity(rng.random_range(1..=1000), rng.random_range(1..=100));
            arcs.push((u, v, spec));
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    for i in 0..n {
        arcs.push((
            order[i],
            order[(i + 1) % n],
            ArcSpec::with_capacity(total, 100),
        ));
    }
    Instance { supply, arcs }
}
