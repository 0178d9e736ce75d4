//! The DIMACS reader: committed fixtures with hand-checked optima, one test per error, and
//! arbitrary text that must never panic.

mod support;

use cosched_flow::dimacs::{DimacsError, DimacsErrorKind, parse_dimacs};
use cosched_flow::{ArcSpec, FlowOutcome, NetworkSimplex, PivotRule, min_cost_flow};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::fmt::Write;
use support::{Expected, Instance, Shape, ssp};

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn fixtures_solve_to_their_hand_checked_optima() {
    for (name, cost, flows) in [
        ("transport.min", 16, vec![0, 1, 4, 3, 1]),
        ("lower_bounds.min", -12, vec![5, 5, 3, 0]),
    ] {
        let g = parse_dimacs(&fixture(name)).unwrap();
        for rule in PivotRule::ALL {
            let out = NetworkSimplex::new()
                .pivot_rule(rule)
                .solve(&g, |v| g[v], |e| *e.weight())
                .unwrap();
            let solution = out.optimal().unwrap_or_else(|| panic!("{name}: {out:?}"));
            assert_eq!(solution.cost, cost, "{name} {rule}");
            assert_eq!(solution.flows, flows, "{name} {rule}");
        }
    }
}

fn error(text: &str) -> DimacsError {
    parse_dimacs(text).expect_err("malformed")
}

#[test]
fn every_error_names_its_line() {
    use DimacsErrorKind::*;
    let cases: Vec<(&str, usize, DimacsErrorKind)> = vec![
        ("c only a comment\n", 1, MissingProblemLine),
        ("", 1, MissingProblemLine),
        ("c\nn 1 5\n", 2, MissingProblemLine),
        (
            "p min 2 0\np min 2 0\n",
            2,
            DuplicateProblemLine { first: 1 },
        ),
        ("p max 2 0\n", 1, WrongProblemType("max".into())),
        (
            "p min 2\n",
            1,
            FieldCount {
                descriptor: "p".into(),
                expected: 4,
                found: 3,
            },
        ),
        (
            "p min 2 0\n\nn 1\n",
            3,
            FieldCount {
                descriptor: "n".into(),
                expected: 3,
                found: 2,
            },
        ),
        (
            "p min two 0\n",
            1,
            BadNumber {
                field: "NODES",
                text: "two".into(),
            },
        ),
        (
            "p min 2 1\na 1 2 0 x 1\n",
            2,
            BadNumber {
                field: "CAP",
                text: "x".into(),
            },
        ),
        (
            "p min 2 1\na 1 2 0 1 99999999999999999999\n",
            2,
            BadNumber {
                field: "COST",
                text: "99999999999999999999".into(),
            },
        ),
        ("p min 4294967296 0\n", 1, TooManyNodes(4294967296)),
        ("p min 67108865 0\n", 1, TooManyNodes(67_108_865)),
        (
            "p min 2 1\na 0 2 0 1 1\n",
            2,
            NodeOutOfRange { node: 0, nodes: 2 },
        ),
        (
            "p min 2 0\nn 3 1\n",
            2,
            NodeOutOfRange { node: 3, nodes: 2 },
        ),
        (
            "p min 2 0\nn 1 1\nn 2 -1\nn 1 1\n",
            4,
            DuplicateNode { node: 1, first: 2 },
        ),
        (
            "p min 2 1\na 1 2 3 2 0\n",
            2,
            BoundsInverted { low: 3, cap: 2 },
        ),
        (
            "p min 2 1\na 1 2 0 1 1\na 2 1 0 1 1\n",
            3,
            TooManyArcs { declared: 1 },
        ),
        (
            "p min 2 2\na 1 2 0 1 1\n",
            2,
            TooFewArcs {
                declared: 2,
                found: 1,
            },
        ),
        ("p min 2 0\nn 1 3\nn 2 -1\n", 3, Unbalanced(2)),
        ("p min 2 0\nx 1 2\n", 2, UnknownLine("x".into())),
    ];
    for (text, line, kind) in cases {
        assert_eq!(error(text), DimacsError { line, kind }, "{text:?}");
    }
    assert_eq!(
        error("p min 2 1\na 1 2 3 2 0\n").to_string(),
        "line 2: lower bound 3 exceeds capacity 2"
    );
}

#[test]
fn accepts_crlf_blank_lines_and_glued_comments() {
    let g =
        parse_dimacs("c\r\ncomment glued\r\n\r\np min 2 1\r\nn 1 1\r\nn 2 -1\r\na 1 2 0 1 5\r\n")
            .unwrap();
    let out = min_cost_flow(&g, |v| g[v], |e| *e.weight()).unwrap();
    assert_eq!(out.optimal().map(|s| s.cost), Some(5));
}

/// Writes an instance as DIMACS.
fn to_dimacs(inst: &Instance) -> String {
    let mut text = format!("p min {} {}\n", inst.supply.len(), inst.arcs.len());
    for (v, &b) in inst.supply.iter().enumerate() {
        if b != 0 {
            writeln!(text, "n {} {b}", v + 1).unwrap();
        }
    }
    for &(u, v, spec) in &inst.arcs {
        let ArcSpec { lower, upper, cost } = spec;
        writeln!(text, "a {} {} {lower} {upper} {cost}", u + 1, v + 1).unwrap();
    }
    text
}

#[test]
fn written_instances_read_back_and_solve_the_same() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for round in 0..100 {
        let inst = Instance::random(&mut rng, Shape::small(1 + round % 20, 3 * (1 + round % 20)));
        let g = parse_dimacs(&to_dimacs(&inst)).unwrap();
        assert_eq!(g.node_weights().copied().collect::<Vec<_>>(), inst.supply);
        let out = min_cost_flow(&g, |v| g[v], |e| *e.weight()).unwrap();
        let got = match out {
            FlowOutcome::Optimal(s) => Expected::Optimal(s.cost),
            FlowOutcome::Infeasible => Expected::Infeasible,
            FlowOutcome::Unbounded => Expected::Unbounded,
        };
        assert_eq!(got, ssp(&inst), "round {round}");
    }
}

/// Lines built from DIMACS-like tokens: close enough to valid to reach every check.
fn near_dimacs() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("p".to_string()),
        Just("min".to_string()),
        Just("max".to_string()),
        Just("n".to_string()),
        Just("a".to_string()),
        Just("c".to_string()),
        Just("9223372036854775807".to_string()),
        Just("-9223372036854775808".to_string()),
        (-3i64..6).prop_map(|i| i.to_string()),
        "[ -~]{0,4}",
    ];
    let line = proptest::collection::vec(token, 0..7).prop_map(|t| t.join(" "));
    proptest::collection::vec(line, 0..12).prop_map(|lines| lines.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Arbitrary text: an error or a graph, never a panic.
    #[test]
    fn arbitrary_text_never_panics(text in "(?s).{0,200}") {
        let _ = parse_dimacs(&text);
    }

    /// Near-valid files: the parser and, when it accepts, the solver never panic; an error's
    /// line exists.
    #[test]
    fn near_valid_files_never_panic(text in near_dimacs()) {
        match parse_dimacs(&text) {
            Ok(g) => {
                let _ = min_cost_flow(&g, |v| g[v], |e| *e.weight());
            }
            Err(e) => prop_assert!(e.line >= 1 && e.line <= text.lines().count().max(1)),
        }
    }
}
