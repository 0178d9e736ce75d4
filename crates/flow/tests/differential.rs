//! Differential tests of the network simplex against two independent oracles — a
//! successive-shortest-path solver written here and LEMON's network simplex (the `mcmf`
//! crate) — with the optimality conditions checked on every optimal result.

mod support;

use cosched_flow::{
    ArcSpec, FlowOutcome, InitialBasis, MaxFlowOutcome, NetworkSimplex, PivotRule,
    min_cost_max_flow,
};
use petgraph::graph::{DiGraph, NodeIndex};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use support::{Expected, Instance, Shape, check_optimal, lemon, lemon_max_flow, ssp};

/// Solves with `rule` from `basis`, checks an optimal result, and reduces it to the oracles'
/// vocabulary.
fn solve_from(inst: &Instance, rule: PivotRule, basis: InitialBasis) -> Result<Expected, String> {
    let g = inst.graph();
    let outcome = NetworkSimplex::new()
        .pivot_rule(rule)
        .initial_basis(basis)
        .solve(&g, |v| g[v], |e| *e.weight())
        .map_err(|e| e.to_string())?;
    Ok(match outcome {
        FlowOutcome::Optimal(solution) => {
            check_optimal(inst, &solution).map_err(|e| format!("{rule}, {basis}: {e}"))?;
            Expected::Optimal(solution.cost)
        }
        FlowOutcome::Infeasible => Expected::Infeasible,
        FlowOutcome::Unbounded => Expected::Unbounded,
    })
}

/// Every pivot rule from every starting basis must give `expected`.
fn all_agree(inst: &Instance, expected: Expected) -> Result<(), String> {
    for rule in PivotRule::ALL {
        for basis in InitialBasis::ALL {
            let got = solve_from(inst, rule, basis)?;
            if got != expected {
                return Err(format!("{rule}, {basis}: {got:?}, expected {expected:?}"));
            }
        }
    }
    Ok(())
}

fn arc_strategy(n: usize, infinite: bool) -> impl Strategy<Value = (usize, usize, ArcSpec)> {
    let lower = prop_oneof![3 => Just(0i64), 1 => -2i64..=3];
    let width = if infinite {
        prop_oneof![6 => (0i64..=8).prop_map(Some), 1 => Just(None)].boxed()
    } else {
        (0i64..=8).prop_map(Some).boxed()
    };
    (0..n, 0..n, lower, width, -6i64..=12).prop_map(|(u, v, lower, width, cost)| {
        let upper = width.map_or(ArcSpec::INFINITE, |w| lower + w);
        (u, v, ArcSpec::new(lower, upper, cost))
    })
}

/// Random instances: up to `max_nodes` nodes, up to 4 arcs per node, balanced supplies.
fn instance(max_nodes: usize, infinite: bool) -> impl Strategy<Value = Instance> {
    (1..=max_nodes).prop_flat_map(move |n| {
        (
            proptest::collection::vec(-6i64..=6, n),
            proptest::collection::vec(arc_strategy(n, infinite), 0..=4 * n),
        )
            .prop_map(|(mut supply, arcs)| {
                let sum: i64 = supply.iter().sum();
                *supply.last_mut().expect("n >= 1") -= sum;
                Instance { supply, arcs }
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Status and optimal cost agree with successive shortest paths, for every pivot rule,
    /// on instances with lower bounds, negative costs, self-loops and uncapacitated arcs.
    #[test]
    fn agrees_with_successive_shortest_paths(inst in instance(10, true)) {
        all_agree(&inst, ssp(&inst)).map_err(TestCaseError::fail)?;
    }

    /// Long paths and cycles (arcs one way or both), with a few chords and dead-end branches,
    /// random bounds, costs and supplies: the shapes whose star start is quadratic.
    #[test]
    fn thin_networks_agree_with_both_oracles(inst in thin_instance(40)) {
        let expected = ssp(&inst);
        all_agree(&inst, expected).map_err(TestCaseError::fail)?;
        if inst.arcs.iter().all(|a| a.2.upper != ArcSpec::INFINITE) {
            prop_assert_eq!(lemon(&inst), expected);
        }
    }
}

/// A path or cycle of up to `max_nodes` nodes, arcs one way or both ways, plus up to n/4
/// random extra arcs and up to n/4 dead-end branch nodes; supplies at a few nodes.
fn thin_instance(max_nodes: usize) -> impl Strategy<Value = Instance> {
    (3..=max_nodes, any::<bool>(), any::<bool>(), any::<bool>()).prop_flat_map(
        move |(n, closed, both_ways, infinite)| {
            let spine = if closed { n } else { n - 1 };
            let ways = if both_ways { 2 } else { 1 };
            let branches = n / 4;
            (
                proptest::collection::vec(arc_strategy(1, infinite), ways * spine),
                proptest::collection::vec(arc_strategy(n + branches, infinite), 0..=n / 4),
                proptest::collection::vec(
                    (0..n, arc_strategy(1, infinite), any::<bool>()),
                    branches,
                ),
                proptest::collection::vec((0..n + branches, -4i64..=4), 1..=4),
            )
                .prop_map(move |(spine_arcs, chords, branch_arcs, supplies)| {
                    let mut arcs = Vec::new();
                    for (i, (_, _, spec)) in spine_arcs.into_iter().enumerate() {
                        let (u, v) = (i % spine, (i % spine + 1) % n);
                        arcs.push(if i < spine {
                            (u, v, spec)
                        } else {
                            (v, u, spec)
                        });
                    }
                    arcs.extend(chords);
                    for (b, (at, (_, _, spec), outward)) in branch_arcs.into_iter().enumerate() {
                        let tip = n + b;
                        arcs.push(if outward {
                            (at, tip, spec)
                        } else {
                            (tip, at, spec)
                        });
                    }
                    let mut supply = vec![0; n + branches];
                    for (v, b) in supplies {
                        supply[v] += b;
                    }
                    let sum: i64 = supply.iter().sum();
                    supply[0] -= sum;
                    Instance { supply, arcs }
                })
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Status and optimal cost agree with LEMON on instances with finite capacities.
    #[test]
    fn agrees_with_lemon(inst in instance(12, false)) {
        let expected = lemon(&inst);
        for basis in InitialBasis::ALL {
            prop_assert_eq!(solve_from(&inst, PivotRule::BlockSearch, basis).map_err(TestCaseError::fail)?, expected);
        }
    }

    /// Min-cost max-flow: the value agrees with petgraph's Dinic, value and cost with LEMON,
    /// and the flow is optimal for supplies ±value.
    #[test]
    fn max_flow_agrees_with_lemon(
        n in 2usize..=12,
        raw in proptest::collection::vec((0usize..12, 0usize..12, 0i64..=10, -8i64..=20), 0..=48),
    ) {
        let arcs: Vec<(usize, usize, i64, i64)> = raw
            .into_iter()
            .map(|(u, v, c, w)| (u % n, v % n, c, w))
            .filter(|&(u, v, _, _)| u != v)
            .collect();
        let (s, t) = (0, n - 1);
        let mut g = DiGraph::<(), (i64, i64)>::new();
        for _ in 0..n {
            g.add_node(());
        }
        for &(u, v, c, w) in &arcs {
            g.add_edge(NodeIndex::new(u), NodeIndex::new(v), (c, w));
        }
        let outcome = min_cost_max_flow(&g, NodeIndex::new(s), NodeIndex::new(t), |e| *e.weight())
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let MaxFlowOutcome::Optimal(flow) = outcome else {
            return Err(TestCaseError::fail("finite capacities cannot be unbounded"));
        };
        let (value, cost) = lemon_max_flow(n, &arcs, s, t);
        prop_assert_eq!((flow.value, flow.cost), (value, i128::from(cost)));
        let mut supply = vec![0; n];
        supply[s] = value;
        supply[t] = -value;
        let inst = Instance {
            supply,
            arcs: arcs.iter().map(|&(u, v, c, w)| (u, v, ArcSpec::with_capacity(c, w))).collect(),
        };
        let solution = cosched_flow::FlowSolution {
            flows: flow.flows,
            potentials: flow.potentials,
            cost: flow.cost,
        };
        check_optimal(&inst, &solution).map_err(TestCaseError::fail)?;
    }
}

/// A deterministic sweep over sizes from 1 to 80 nodes against both oracles; every status
/// must come up, so the comparison covers all three.
#[test]
fn seeded_sweep_against_both_oracles() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut counts = [0usize; 3];
    let mut lemon_checked = 0;
    for round in 0..600 {
        let nodes = 1 + round % 80;
        let mut shape = Shape::small(nodes, nodes * (3 + round % 4));
        if round % 3 == 0 {
            shape.infinite_pct = 0;
        }
        let inst = Instance::random(&mut rng, shape);
        let expected = ssp(&inst);
        counts[match expected {
            Expected::Optimal(_) => 0,
            Expected::Infeasible => 1,
            Expected::Unbounded => 2,
        }] += 1;
        if let Err(e) = all_agree(&inst, expected) {
            panic!("round {round}: {e}: {inst:?}");
        }
        if shape.infinite_pct == 0 {
            assert_eq!(
                lemon(&inst),
                expected,
                "round {round}: LEMON disagrees with SSP"
            );
            lemon_checked += 1;
        }
    }
    eprintln!(
        "optimal {}, infeasible {}, unbounded {}; {lemon_checked} also checked by LEMON",
        counts[0], counts[1], counts[2]
    );
    assert!(counts.iter().all(|&c| c >= 20), "status mix {counts:?}");
}
