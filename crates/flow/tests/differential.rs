//! Differential tests of the network simplex against two independent oracles — a
//! successive-shortest-path solver written here and LEMON's network simplex (the `mcmf`
//! crate) — with the optimality conditions checked on every optimal result.

mod support;

use cosched_flow::{
    ArcSpec, FlowOutcome, MaxFlowOutcome, NetworkSimplex, PivotRule, min_cost_max_flow,
};
use petgraph::graph::{DiGraph, NodeIndex};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use support::{Expected, Instance, Shape, check_optimal, lemon, lemon_max_flow, ssp};

/// Solves with `rule`, checks an optimal result, and reduces it to the oracles' vocabulary.
fn solve(inst: &Instance, rule: PivotRule) -> Result<Expected, String> {
    let g = inst.graph();
    let outcome = NetworkSimplex::new()
        .pivot_rule(rule)
        .solve(&g, |v| g[v], |e| *e.weight())
        .map_err(|e| e.to_string())?;
    Ok(match outcome {
        FlowOutcome::Optimal(solution) => {
            check_optimal(inst, &solution).map_err(|e| format!("{rule}: {e}"))?;
            Expected::Optimal(solution.cost)
        }
        FlowOutcome::Infeasible => Expected::Infeasible,
        FlowOutcome::Unbounded => Expected::Unbounded,
    })
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
        let expected = ssp(&inst);
        for rule in PivotRule::ALL {
            prop_assert_eq!(solve(&inst, rule).map_err(TestCaseError::fail)?, expected, "{}", rule);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Status and optimal cost agree with LEMON on instances with finite capacities.
    #[test]
    fn agrees_with_lemon(inst in instance(12, false)) {
        prop_assert_eq!(solve(&inst, PivotRule::BlockSearch).map_err(TestCaseError::fail)?, lemon(&inst));
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
        for rule in PivotRule::ALL {
            assert_eq!(
                solve(&inst, rule),
                Ok(expected),
                "round {round}, {rule}: {inst:?}"
            );
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
