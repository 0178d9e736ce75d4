//! Min-cost maximum flow on the metascheduler's network at the paper's scale: 10,000 jobs ×
//! 58 systems, against LEMON's network simplex (through the `mcmf` crate).
//!
//! The network: source → job (capacity 1), job → each compatible system (capacity 1, cost
//! uniform in 0..100; each job is compatible with a random ~80 % of the systems), system → sink
//! (capacity MaxQ). MaxQ = 100 leaves jobs unassigned (58 × 100 < 10,000); MaxQ = 200 fits all.
//!
//! `cargo bench -p cosched-flow` times our solver (maximum flow and min-cost flow) with
//! each pivot rule and the `mcmf` crate end to end (its own graph building and path
//! decomposition included; LEMON's solve is about 30 % of it). Best-eligible pricing scans
//! every arc at every pivot and takes 10–20 s per run at full scale (LEMON's too), so it runs
//! on a 1,000-job network, and at full scale only with `COSCHED_BENCH_ALL_RULES=1`.
//! Each full-scale group also times the artificial-star start (the solver's first start)
//! beside the default cheapest-paths start. The `long_*` groups time long paths, cycles and
//! caterpillars, the star at 10,000 nodes only (it is quadratic on them).
//! `COSCHED_BENCH_DIMACS=DIR` also writes each full-scale instance as `DIR/paper_maxq_N.min`,
//! with the source's supply and the sink's demand set to the maximum flow value, for other
//! solvers.

#[path = "../tests/support/mod.rs"]
mod support;

use cosched_flow::{FlowOutcome, InitialBasis, MaxFlowOutcome, NetworkSimplex, PivotRule};
use criterion::{Criterion, criterion_group, criterion_main};
use petgraph::graph::{DiGraph, NodeIndex};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write;

const SYSTEMS: usize = 58;

/// The paper's network: arcs weighted `(capacity, cost)`.
struct Network {
    graph: DiGraph<(), (i64, i64)>,
    source: NodeIndex,
    sink: NodeIndex,
}

fn network(jobs: usize, max_q: i64, seed: u64) -> Network {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut graph = DiGraph::with_capacity(jobs + SYSTEMS + 2, jobs * (SYSTEMS + 1));
    let source = graph.add_node(());
    let sink = graph.add_node(());
    let jobs: Vec<NodeIndex> = (0..jobs).map(|_| graph.add_node(())).collect();
    let systems: Vec<NodeIndex> = (0..SYSTEMS).map(|_| graph.add_node(())).collect();
    for &job in &jobs {
        graph.add_edge(source, job, (1, 0));
        for &system in &systems {
            if rng.random_range(0..100) < 80 {
                graph.add_edge(job, system, (1, rng.random_range(0..100)));
            }
        }
    }
    for &system in &systems {
        graph.add_edge(system, sink, (max_q, 0));
    }
    Network {
        graph,
        source,
        sink,
    }
}

fn solve(net: &Network, rule: PivotRule, basis: InitialBasis) -> (i64, i128) {
    match NetworkSimplex::new()
        .pivot_rule(rule)
        .initial_basis(basis)
        .solve_max_flow(&net.graph, net.source, net.sink, |e| *e.weight())
        .expect("valid network")
    {
        MaxFlowOutcome::Optimal(flow) => (flow.value, flow.cost),
        MaxFlowOutcome::Unbounded => unreachable!("finite capacities"),
    }
}

/// The same network for the `mcmf` crate.
fn lemon_builder(net: &Network) -> mcmf::GraphBuilder<u32> {
    use mcmf::{Capacity, Cost, GraphBuilder, Vertex};
    let vertex = |v: NodeIndex| match v {
        v if v == net.source => Vertex::Source,
        v if v == net.sink => Vertex::Sink,
        v => Vertex::Node(v.index() as u32),
    };
    let mut builder = GraphBuilder::new();
    for e in net.graph.raw_edges() {
        let (capacity, cost) = e.weight;
        builder.add_edge(
            vertex(e.source()),
            vertex(e.target()),
            Capacity(capacity as i32),
            Cost(cost as i32),
        );
    }
    builder
}

fn write_dimacs(net: &Network, max_q: i64, value: i64, dir: &str) {
    let g = &net.graph;
    let jobs = g.node_count() - SYSTEMS - 2;
    let mut text = format!(
        "c cosched bench: {jobs} jobs x {SYSTEMS} systems, MaxQ {max_q}\np min {} {}\n",
        g.node_count(),
        g.edge_count()
    );
    writeln!(text, "n {} {value}", net.source.index() + 1).unwrap();
    writeln!(text, "n {} {}", net.sink.index() + 1, -value).unwrap();
    for e in g.raw_edges() {
        let (capacity, cost) = e.weight;
        let (u, v) = (e.source().index() + 1, e.target().index() + 1);
        writeln!(text, "a {u} {v} 0 {capacity} {cost}").unwrap();
    }
    let path = format!("{dir}/paper_maxq_{max_q}.min");
    std::fs::write(&path, text).expect("writable DIMACS directory");
    eprintln!("wrote {path}");
}

/// One benchmark group: `jobs` × 58 systems at `max_q`, our solver with `rules` and LEMON.
fn bench_network(c: &mut Criterion, jobs: usize, max_q: i64, rules: &[PivotRule]) {
    let net = network(jobs, max_q, 2018);
    let (value, cost) = solve(&net, PivotRule::BlockSearch, InitialBasis::CheapestPaths);
    let builder = lemon_builder(&net);
    let (lemon_cost, _) = builder.mcmf();
    eprintln!(
        "{jobs} jobs, MaxQ {max_q}: {} arcs, {value} jobs assigned, cost {cost} (LEMON: {lemon_cost})",
        net.graph.edge_count()
    );
    assert_eq!(cost, i128::from(lemon_cost), "LEMON disagrees");
    if let Ok(dir) = std::env::var("COSCHED_BENCH_DIMACS") {
        write_dimacs(&net, max_q, value, &dir);
    }
    let mut group = c.benchmark_group(format!("paper_{jobs}_jobs_{SYSTEMS}_systems_maxq_{max_q}"));
    group.sample_size(10);
    for &rule in rules {
        group.bench_function(format!("network_simplex/{rule}"), |b| {
            b.iter(|| solve(&net, rule, InitialBasis::CheapestPaths))
        });
    }
    let star = InitialBasis::ArtificialStar;
    group.bench_function(format!("network_simplex/block-search/{star}"), |b| {
        b.iter(|| solve(&net, PivotRule::BlockSearch, star))
    });
    group.bench_function("mcmf_crate_lemon", |b| b.iter(|| builder.mcmf()));
    group.finish();
}

fn paper_network(c: &mut Criterion) {
    let full_rules: &[PivotRule] = if std::env::var_os("COSCHED_BENCH_ALL_RULES").is_some() {
        &PivotRule::ALL
    } else {
        &[PivotRule::BlockSearch, PivotRule::FirstEligible]
    };
    for max_q in [100, 200] {
        bench_network(c, 10_000, max_q, full_rules);
    }
    for max_q in [10, 20] {
        bench_network(c, 1_000, max_q, &PivotRule::ALL);
    }
}

/// Long paths, cycles and caterpillars (a path with branches), whose star start is
/// quadratic (a 100,000-node path took 79 s). The star runs at 10,000 nodes only.
fn long_networks(c: &mut Criterion) {
    for (name, shape) in support::LONG_SHAPES {
        let mut group = c.benchmark_group(format!("long_{name}"));
        group.sample_size(10);
        for (n, bases) in [
            (10_000, &InitialBasis::ALL[..]),
            (100_000, &[InitialBasis::CheapestPaths][..]),
        ] {
            let inst = shape(n);
            let g = inst.graph();
            for &basis in bases {
                let solver = NetworkSimplex::new().initial_basis(basis);
                let out = solver.solve(&g, |v| g[v], |e| *e.weight());
                assert!(
                    matches!(out, Ok(FlowOutcome::Optimal(_))),
                    "{name} {n}: {out:?}"
                );
                group.bench_function(format!("{basis}/{n}"), |b| {
                    b.iter(|| solver.solve(&g, |v| g[v], |e| *e.weight()))
                });
            }
        }
        group.finish();
    }
}

/// Random sparse networks of 20,000 nodes and 100,000 random arcs, from both starting bases:
/// the cheapest-paths start builds deep trees here and is slower than the star (measured
/// 1.06-1.35x in CPU time when it was introduced), which this group keeps in view.
fn random_sparse(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let mut group = c.benchmark_group("random_sparse_20000_nodes_100000_arcs");
    group.sample_size(10);
    for (sources, sinks) in [(100, 1), (2_000, 2_000)] {
        let inst = support::random_sparse(&mut rng, 20_000, 100_000, sources, sinks);
        let g = inst.graph();
        for basis in InitialBasis::ALL {
            let solver = NetworkSimplex::new().initial_basis(basis);
            group.bench_function(format!("{basis}/{sources}_sources_{sinks}_sinks"), |b| {
                b.iter(|| solver.solve(&g, |v| g[v], |e| *e.weight()))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, paper_network, long_networks, random_sparse);
criterion_main!(benches);
