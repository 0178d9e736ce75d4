//! The DIMACS reader against hostile input: regression tests for the review's reproducers and
//! a property suite of extreme values, each ending in a clean error or a verified solution.

use cosched_flow::dimacs::{DimacsErrorKind, FREE_NODES, MAX_NODES, node_limit, parse_dimacs};
use cosched_flow::{FlowOutcome, NetworkSimplex, PivotRule};
use proptest::prelude::*;

/// Hostile input #5: a 17-byte file declaring 2^26 nodes is refused before any allocation.
#[test]
fn a_tiny_file_cannot_declare_millions_of_nodes() {
    let text = "p min 67108864 0\n";
    let err = parse_dimacs(text).expect_err("too many nodes for 17 bytes");
    assert_eq!(err.line, 1);
    assert_eq!(
        err.kind,
        DimacsErrorKind::NodesBeyondFile {
            nodes: 67_108_864,
            bytes: 17,
            limit: FREE_NODES
        }
    );
    assert!(err.to_string().contains("17-byte file"), "{err}");
}

/// Up to the limit, isolated nodes are fine: the problem is solved.
#[test]
fn isolated_nodes_within_the_limit_are_solved() {
    let text = format!("p min {FREE_NODES} 1\nn 1 2\nn {FREE_NODES} -2\na 1 {FREE_NODES} 0 5 3\n");
    let g = parse_dimacs(&text).expect("within the limit");
    assert_eq!(g.node_count() as u64, FREE_NODES);
    let out = NetworkSimplex::new().solve(&g, |v| g[v], |e| *e.weight());
    assert_eq!(out.expect("solves").optimal().map(|s| s.cost), Some(6));
}

#[test]
fn the_node_limit_follows_the_file_length() {
    assert_eq!(node_limit(0), FREE_NODES);
    assert_eq!(node_limit(2 * FREE_NODES as usize + 2), FREE_NODES + 1);
    assert_eq!(node_limit(usize::MAX), MAX_NODES);
}

/// An extreme or ordinary integer, as DIMACS text.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (-3i64..=6).prop_map(|v| v.to_string()),
        1 => Just(i64::MAX.to_string()),
        1 => Just(i64::MIN.to_string()),
        1 => Just((i64::MAX / 2).to_string()),
        1 => Just(u64::MAX.to_string()),
        1 => Just("18446744073709551616".to_string()),
        1 => Just((1u64 << 26).to_string()),
        1 => Just(FREE_NODES.to_string()),
        1 => Just("1e3".to_string()),
    ]
}

/// A DIMACS file of up to 5 nodes with extreme numbers anywhere.
fn hostile_file() -> impl Strategy<Value = String> {
    let nodes = prop_oneof![4 => (0u64..=5).prop_map(|n| n.to_string()), 1 => number()];
    let node_id = prop_oneof![4 => (1i64..=5).prop_map(|n| n.to_string()), 1 => number()];
    let n_line = (node_id.clone(), number()).prop_map(|(id, b)| format!("n {id} {b}"));
    let a_line = (node_id.clone(), node_id, number(), number(), number())
        .prop_map(|(u, v, l, c, k)| format!("a {u} {v} {l} {c} {k}"));
    let arcs = prop_oneof![4 => Just(None), 1 => number().prop_map(Some)];
    (
        nodes,
        arcs,
        prop::collection::vec(n_line, 0..4),
        prop::collection::vec(a_line, 0..8),
    )
        .prop_map(|(nodes, arcs, ns, as_)| {
            let declared = arcs.unwrap_or_else(|| as_.len().to_string());
            let mut text = format!("p min {nodes} {declared}\n");
            for line in ns.iter().chain(&as_) {
                text.push_str(line);
                text.push('\n');
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Extreme values: a clean error naming an existing line, or a graph no larger than the
    /// file allows whose solution (when optimal) is feasible and costs what it says, under
    /// every pivot rule.
    #[test]
    fn extreme_values_give_an_error_or_a_verified_solution(text in hostile_file()) {
        match parse_dimacs(&text) {
            Err(e) => prop_assert!(e.line >= 1 && e.line <= text.lines().count().max(1)),
            Ok(g) => {
                prop_assert!(g.node_count() as u64 <= node_limit(text.len()));
                let mut costs = Vec::new();
                for rule in PivotRule::ALL {
                    let Ok(out) = NetworkSimplex::new().pivot_rule(rule).solve(&g, |v| g[v], |e| *e.weight()) else {
                        continue; // a typed range error
                    };
                    if let FlowOutcome::Optimal(s) = out {
                        let mut balance = vec![0i128; g.node_count()];
                        let mut cost = 0i128;
                        for e in g.edge_indices() {
                            let spec = g[e];
                            let f = s.flows[e.index()];
                            prop_assert!(spec.lower <= f && f <= spec.upper);
                            let (u, v) = g.edge_endpoints(e).unwrap();
                            balance[u.index()] += i128::from(f);
                            balance[v.index()] -= i128::from(f);
                            cost += i128::from(f) * i128::from(spec.cost);
                        }
                        for v in g.node_indices() {
                            prop_assert_eq!(balance[v.index()], i128::from(g[v]));
                        }
                        prop_assert_eq!(cost, s.cost);
                        costs.push(s.cost);
                    }
                }
                prop_assert!(costs.windows(2).all(|w| w[0] == w[1]), "{costs:?}");
            }
        }
    }
}

/// An error echoes at most 80 characters of a field, however long the field.
#[test]
fn errors_echo_at_most_80_characters() {
    let long = "9".repeat(1_000_000);
    for text in [
        format!("p min {long} 0\n"),
        format!("p min 2 0\n{long} 1 2\n"),
        format!("p {long} 2 0\n"),
    ] {
        let message = parse_dimacs(&text).expect_err("bad").to_string();
        assert!(message.len() < 200, "{} bytes", message.len());
    }
}
