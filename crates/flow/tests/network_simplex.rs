//! Hand-checked instances, degenerate instances (anti-cycling), input validation, and graph
//! types beyond `DiGraph`.

mod support;

use cosched_flow::{
    ArcSpec, FlowError, FlowOutcome, InitialBasis, MaxFlowOutcome, NetworkSimplex, PivotRule,
    min_cost_flow, min_cost_max_flow,
};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::stable_graph::StableDiGraph;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use support::{Expected, Instance, check_optimal, ssp};

/// Solves with every pivot rule from every starting basis, checking optimal results.
fn solve_all_rules(inst: &Instance) -> Vec<FlowOutcome> {
    let g = inst.graph();
    PivotRule::ALL
        .into_iter()
        .flat_map(|rule| InitialBasis::ALL.map(|basis| (rule, basis)))
        .map(|(rule, basis)| {
            let out = NetworkSimplex::new()
                .pivot_rule(rule)
                .initial_basis(basis)
                .solve(&g, |v| g[v], |e| *e.weight())
                .expect("valid input");
            if let FlowOutcome::Optimal(solution) = &out {
                check_optimal(inst, solution).unwrap_or_else(|e| panic!("{rule}, {basis}: {e}"));
            }
            out
        })
        .collect()
}

fn cost_of(out: &FlowOutcome) -> Option<i128> {
    out.optimal().map(|s| s.cost)
}

/// An n × n assignment problem with costs drawn from `costs` values: many ties, and every
/// basis highly degenerate (n of the 2n − 1 tree arcs carry flow).
fn assignment(n: usize, distinct_costs: i64, seed: u64) -> Instance {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut supply = vec![1; n];
    supply.extend(std::iter::repeat_n(-1, n));
    let mut arcs = Vec::with_capacity(n * n);
    for i in 0..n {
        for j in 0..n {
            let cost = rng.random_range(0..distinct_costs);
            arcs.push((i, n + j, ArcSpec::with_capacity(1, cost)));
        }
    }
    Instance { supply, arcs }
}

#[test]
fn degenerate_assignments_terminate_with_the_optimum() {
    for (n, distinct, seed) in [(40, 1, 1), (40, 2, 2), (60, 3, 3), (25, 2, 4), (80, 2, 5)] {
        let inst = assignment(n, distinct, seed);
        let expected = ssp(&inst);
        for out in solve_all_rules(&inst) {
            assert_eq!(
                cost_of(&out),
                match expected {
                    Expected::Optimal(c) => Some(c),
                    _ => None,
                }
            );
        }
        if distinct == 1 {
            assert_eq!(expected, Expected::Optimal(0));
        }
    }
}

#[test]
fn zero_cost_transportation_with_ties_terminates() {
    // Every arc costs the same and every supply equals its capacity: all pivots degenerate
    // or tied.
    let n = 30;
    let mut supply = vec![3; n];
    supply.extend(std::iter::repeat_n(-3, n));
    let mut arcs = Vec::new();
    for i in 0..n {
        for j in 0..n {
            arcs.push((i, n + j, ArcSpec::with_capacity(3, 7)));
            arcs.push((n + j, i, ArcSpec::uncapacitated(7)));
        }
    }
    let inst = Instance { supply, arcs };
    for out in solve_all_rules(&inst) {
        assert_eq!(cost_of(&out), Some(3 * 7 * n as i128));
    }
}

#[test]
fn hand_checked_small_instances() {
    // a → c directly (cost 5, uncapacitated) or via b (1 + 1, at most 3 units); 4 units.
    let inst = Instance {
        supply: vec![4, 0, -4],
        arcs: vec![
            (0, 2, ArcSpec::uncapacitated(5)),
            (0, 1, ArcSpec::with_capacity(3, 1)),
            (1, 2, ArcSpec::uncapacitated(1)),
        ],
    };
    for out in solve_all_rules(&inst) {
        let solution = out.optimal().expect("feasible");
        assert_eq!(solution.flows, vec![1, 3, 3]);
        assert_eq!(solution.cost, 11);
    }

    // A lower bound forces flow around an expensive cycle.
    let inst = Instance {
        supply: vec![0, 0],
        arcs: vec![
            (0, 1, ArcSpec::new(2, 5, 10)),
            (1, 0, ArcSpec::with_capacity(4, 1)),
        ],
    };
    for out in solve_all_rules(&inst) {
        assert_eq!(cost_of(&out), Some(22));
    }

    // A negative cycle with finite capacity is saturated; a self-loop too.
    let inst = Instance {
        supply: vec![0, 0],
        arcs: vec![
            (0, 1, ArcSpec::with_capacity(3, -4)),
            (1, 0, ArcSpec::uncapacitated(1)),
            (1, 1, ArcSpec::with_capacity(2, -1)),
        ],
    };
    for out in solve_all_rules(&inst) {
        assert_eq!(cost_of(&out), Some(3 * -3 - 2));
    }
}

#[test]
fn infeasible_and_unbounded_are_told_apart() {
    let unbounded = Instance {
        supply: vec![1, -1, 0],
        arcs: vec![
            (0, 1, ArcSpec::with_capacity(1, 0)),
            (1, 2, ArcSpec::uncapacitated(-1)),
            (2, 1, ArcSpec::uncapacitated(0)),
        ],
    };
    assert!(
        solve_all_rules(&unbounded)
            .iter()
            .all(|o| *o == FlowOutcome::Unbounded)
    );

    // The same negative cycle, but the supply cannot reach the demand.
    let mut infeasible = unbounded.clone();
    infeasible.arcs[0].2 = ArcSpec::with_capacity(0, 0);
    assert!(
        solve_all_rules(&infeasible)
            .iter()
            .all(|o| *o == FlowOutcome::Infeasible)
    );

    // A lower bound no supply can feed.
    let forced = Instance {
        supply: vec![0, 0],
        arcs: vec![(0, 1, ArcSpec::new(1, 2, 0))],
    };
    assert!(
        solve_all_rules(&forced)
            .iter()
            .all(|o| *o == FlowOutcome::Infeasible)
    );
}

#[test]
fn invalid_input_is_refused_with_typed_errors() {
    let mut g = DiGraph::<i64, ArcSpec>::new();
    let (a, b) = (g.add_node(1), g.add_node(-1));
    let e = g.add_edge(a, b, ArcSpec::new(3, 2, 0));
    let solve = |g: &DiGraph<i64, ArcSpec>| min_cost_flow(g, |v| g[v], |e| *e.weight());
    assert_eq!(
        solve(&g),
        Err(FlowError::BoundsInverted {
            arc: 0,
            lower: 3,
            upper: 2
        })
    );
    g[e] = ArcSpec::with_capacity(5, 1);
    g[a] = 2;
    assert_eq!(solve(&g), Err(FlowError::Unbalanced { sum: 1 }));
    g[a] = i64::MAX;
    g[b] = -i64::MAX;
    assert!(matches!(solve(&g), Err(FlowError::FlowRange { .. })));
    g[a] = 1;
    g[b] = -1;
    g[e] = ArcSpec::with_capacity(5, i64::MAX / 4);
    assert!(matches!(
        solve(&g),
        Err(FlowError::CostRange { arc: 0, .. })
    ));
    g[e] = ArcSpec::new(i64::MIN, i64::MAX - 1, 0);
    assert!(matches!(solve(&g), Err(FlowError::FlowRange { .. })));
    // Extreme but representable values still solve exactly.
    g[e] = ArcSpec::new(-(1 << 60), 1 << 60, -(1 << 40));
    g[a] = 1 << 59;
    g[b] = -(1 << 59);
    let out = solve(&g).expect("in range");
    assert_eq!(cost_of(&out), Some(-(1i128 << 99)));

    let mut h = DiGraph::<(), (i64, i64)>::new();
    let (s, t) = (h.add_node(()), h.add_node(()));
    h.add_edge(s, t, (-1, 0));
    assert_eq!(
        min_cost_max_flow(&h, s, t, |e| *e.weight()),
        Err(FlowError::BoundsInverted {
            arc: 0,
            lower: 0,
            upper: -1
        })
    );
    assert_eq!(
        min_cost_max_flow(&h, s, s, |e| *e.weight()),
        Err(FlowError::SourceIsSink(0))
    );
    assert_eq!(
        min_cost_max_flow(&h, s, NodeIndex::new(7), |e| *e.weight()),
        Err(FlowError::NoSuchNode { node: 7, bound: 2 })
    );
}

#[test]
fn empty_and_trivial_graphs() {
    let g = DiGraph::<i64, ArcSpec>::new();
    let out = min_cost_flow(&g, |v| g[v], |e| *e.weight()).unwrap();
    assert_eq!(cost_of(&out), Some(0));
    let mut g = DiGraph::<i64, ArcSpec>::new();
    g.add_node(0);
    let out = min_cost_flow(&g, |v| g[v], |e| *e.weight()).unwrap();
    assert_eq!(out.optimal().map(|s| s.potentials.len()), Some(1));
}

#[test]
fn max_flow_unbounded_cases() {
    let mut g = DiGraph::<(), (i64, i64)>::new();
    let (s, a, t) = (g.add_node(()), g.add_node(()), g.add_node(()));
    g.add_edge(s, a, (ArcSpec::INFINITE, 1));
    let at = g.add_edge(a, t, (ArcSpec::INFINITE, 1));
    assert_eq!(
        min_cost_max_flow(&g, s, t, |e| *e.weight()),
        Ok(MaxFlowOutcome::Unbounded)
    );
    // Finite value, but a negative uncapacitated cycle beside it.
    g[at] = (4, 1);
    let b = g.add_node(());
    g.add_edge(a, b, (ArcSpec::INFINITE, -3));
    g.add_edge(b, a, (ArcSpec::INFINITE, 1));
    assert_eq!(
        min_cost_max_flow(&g, s, t, |e| *e.weight()),
        Ok(MaxFlowOutcome::Unbounded)
    );
    let g2 = {
        let mut g2 = g.clone();
        g2.retain_edges(|g, e| g[e].1 >= 0);
        g2
    };
    let flow = min_cost_max_flow(&g2, s, t, |e| *e.weight()).unwrap();
    assert_eq!(flow.optimal().map(|f| (f.value, f.cost)), Some((4, 8)));
}

#[test]
fn stable_graphs_with_holes_index_by_graph_indices() {
    let mut g = StableDiGraph::<i64, ArcSpec>::new();
    let a = g.add_node(2);
    let gone = g.add_node(0);
    let b = g.add_node(-2);
    let dead = g.add_edge(a, gone, ArcSpec::with_capacity(9, -9));
    let ab = g.add_edge(a, b, ArcSpec::with_capacity(5, 3));
    g.remove_node(gone);
    assert!(g.edge_weight(dead).is_none());
    let out = min_cost_flow(&g, |v| g[v], |e| *e.weight()).unwrap();
    let solution = out.optimal().expect("feasible");
    assert_eq!(solution.flows.len(), 2);
    assert_eq!(solution.flows[ab.index()], 2);
    assert_eq!(solution.cost, 6);
    assert_eq!(solution.potentials.len(), 3);
}

#[test]
fn bipartite_metascheduling_shape_matches_lemon() {
    // The paper's network at toy scale: source → job (1), job → system (1, cost), system →
    // sink (MaxQ); both "not all jobs fit" and "all fit".
    let mut rng = ChaCha8Rng::seed_from_u64(58);
    for (jobs, systems, max_q) in [(300, 12, 10), (300, 12, 40), (120, 7, 5)] {
        let (s, t) = (0, 1);
        let mut arcs = Vec::new();
        for j in 0..jobs {
            arcs.push((s, 2 + j, 1, 0));
            for k in 0..systems {
                if rng.random_range(0..100) < 80 {
                    arcs.push((2 + j, 2 + jobs + k, 1, rng.random_range(0..100)));
                }
            }
        }
        for k in 0..systems {
            arcs.push((2 + jobs + k, t, max_q, 0));
        }
        let n = 2 + jobs + systems;
        let mut g = DiGraph::<(), (i64, i64)>::new();
        for _ in 0..n {
            g.add_node(());
        }
        for &(u, v, c, w) in &arcs {
            g.add_edge(NodeIndex::new(u), NodeIndex::new(v), (c, w));
        }
        let (value, cost) = support::lemon_max_flow(n, &arcs, s, t);
        for (rule, basis) in PivotRule::ALL
            .into_iter()
            .flat_map(|rule| InitialBasis::ALL.map(|basis| (rule, basis)))
        {
            let out = NetworkSimplex::new()
                .pivot_rule(rule)
                .initial_basis(basis)
                .solve_max_flow(&g, NodeIndex::new(s), NodeIndex::new(t), |e| *e.weight())
                .unwrap();
            let flow = out.optimal().expect("finite");
            assert_eq!(
                (flow.value, flow.cost),
                (value, i128::from(cost)),
                "{rule}, {basis}"
            );
        }
    }
}

/// One unit along a path of 100,000 nodes over arcs of capacity 1 took 79 s
/// (release) from the artificial star, every pivot walking the chain built so far; from
/// cheapest paths it starts optimal. Also with room on the arcs, as a cycle with arcs both
/// ways, and as a comb of 50,000 teeth each filling its arc (quadratic until full arcs were
/// hung from their tails). A debug build solves each in well under a second.
#[test]
fn long_path_of_100_000_nodes_is_solved_at_once() {
    let n = 100_000;
    for inst in [
        support::path(n, 1, 1),
        support::path(n, 5, 3),
        support::cycle(n, 4, 3),
        support::comb(n),
    ] {
        let g = inst.graph();
        let out = min_cost_flow(&g, |v| g[v], |e| *e.weight()).expect("valid");
        let solution = out.optimal().expect("feasible");
        check_optimal(&inst, solution).expect("optimal");
    }
    // The path's only flow: every arc carries the units, so the cost is known.
    let inst = support::path(n, 1, 1);
    let g = inst.graph();
    let out = min_cost_flow(&g, |v| g[v], |e| *e.weight()).expect("valid");
    let expected: i128 = inst.arcs.iter().map(|a| i128::from(a.2.cost)).sum();
    assert_eq!(out.optimal().map(|s| s.cost), Some(expected));
}

/// Long paths, cycles and caterpillars of a few thousand nodes agree with LEMON under every
/// pivot rule and both starting bases (best-eligible, quadratic from the star, on the
/// smaller ones).
#[test]
fn long_thin_networks_match_lemon() {
    for n in [300, 2_000] {
        for inst in [
            support::path(n, 1, 1),
            support::path(n, 2, 2),
            support::cycle(n, 4, 3),
            support::cycle(n, 2, 3),
            support::caterpillar(n, 7),
            support::caterpillar(n, 1_000),
            support::comb(n),
        ] {
            let expected = support::lemon(&inst);
            let g = inst.graph();
            for rule in PivotRule::ALL {
                if n > 1_000 && rule == PivotRule::BestEligible {
                    continue;
                }
                for basis in InitialBasis::ALL {
                    let out = NetworkSimplex::new()
                        .pivot_rule(rule)
                        .initial_basis(basis)
                        .solve(&g, |v| g[v], |e| *e.weight())
                        .expect("valid");
                    let got = match &out {
                        FlowOutcome::Optimal(solution) => {
                            check_optimal(&inst, solution).expect("optimal");
                            Expected::Optimal(solution.cost)
                        }
                        FlowOutcome::Infeasible => Expected::Infeasible,
                        FlowOutcome::Unbounded => Expected::Unbounded,
                    };
                    assert_eq!(got, expected, "n {n}, {rule}, {basis}");
                }
            }
        }
    }
}

/// The bench's random sparse networks, at a tenth of the size, agree with LEMON from both
/// starting bases.
#[test]
fn random_sparse_networks_match_lemon() {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    for (sources, sinks) in [(10, 1), (200, 200), (50, 3)] {
        let inst = support::random_sparse(&mut rng, 2_000, 10_000, sources, sinks);
        let expected = support::lemon(&inst);
        assert!(
            matches!(expected, Expected::Optimal(_)),
            "feasible by construction"
        );
        let g = inst.graph();
        for basis in InitialBasis::ALL {
            let out = NetworkSimplex::new()
                .initial_basis(basis)
                .solve(&g, |v| g[v], |e| *e.weight())
                .expect("valid");
            let solution = out.optimal().expect("feasible");
            check_optimal(&inst, solution).expect("optimal");
            assert_eq!(Expected::Optimal(solution.cost), expected, "{basis}");
        }
    }
}
