//! Every cell of the truth tables of `&&` and `||` over `true`, `false`, `undefined`,
//! `error` and non-boolean operands, and of the meta-operators `=?=` / `=!=` (and their
//! spellings `is` / `isnt`) across value types, spelled out.
//!
//! The expected cells were printed by HTCondor's own library (`classad2` from the `htcondor`
//! 25.14.1 wheel, with `htcondor2` imported, as the fixture generator does) and every one of
//! them is also a row of the committed fixture table: [`tables_agree_with_the_fixture`] checks
//! that the two agree, so a cell here cannot drift from HTCondor's answer.
//!
//! What HTCondor does, as the tables show: `&&` and `||` are three-valued and short-circuit
//! from the left (`false && error` is `false`, `error && false` is `error`); integers and reals
//! are accepted as booleans (non-zero is true), strings are `error`. The meta-operators never
//! yield `undefined` or `error`, do not promote (`1 =?= 1.0` is false) and compare strings
//! case-sensitively.

use cosched_classad::{ClassAd, Expr, eval};
use serde_json::Value as Json;
use std::collections::HashMap;

/// The operands of the `&&` / `||` tables, rows (left) and columns (right).
const LOGIC_OPERANDS: [&str; 8] = [
    "true",
    "false",
    "undefined",
    "error",
    "0",
    "1",
    "2.5",
    "\"x\"",
];

/// `row && column`.
const AND: [[&str; 8]; 8] = [
    // true    false    undefined    error    0        1            2.5          "x"
    [
        "true",
        "false",
        "undefined",
        "error",
        "false",
        "true",
        "true",
        "error",
    ], // true
    [
        "false", "false", "false", "false", "false", "false", "false", "false",
    ], // false
    [
        "undefined",
        "false",
        "undefined",
        "error",
        "false",
        "undefined",
        "undefined",
        "error",
    ], // undefined
    [
        "error", "error", "error", "error", "error", "error", "error", "error",
    ], // error
    [
        "false", "false", "false", "false", "false", "false", "false", "false",
    ], // 0
    [
        "true",
        "false",
        "undefined",
        "error",
        "false",
        "true",
        "true",
        "error",
    ], // 1
    [
        "true",
        "false",
        "undefined",
        "error",
        "false",
        "true",
        "true",
        "error",
    ], // 2.5
    [
        "error", "error", "error", "error", "error", "error", "error", "error",
    ], // "x"
];

/// `row || column`.
const OR: [[&str; 8]; 8] = [
    // true    false        undefined    error    0            1       2.5     "x"
    [
        "true", "true", "true", "true", "true", "true", "true", "true",
    ], // true
    [
        "true",
        "false",
        "undefined",
        "error",
        "false",
        "true",
        "true",
        "error",
    ], // false
    [
        "true",
        "undefined",
        "undefined",
        "error",
        "undefined",
        "true",
        "true",
        "error",
    ], // undefined
    [
        "error", "error", "error", "error", "error", "error", "error", "error",
    ], // error
    [
        "true",
        "false",
        "undefined",
        "error",
        "false",
        "true",
        "true",
        "error",
    ], // 0
    [
        "true", "true", "true", "true", "true", "true", "true", "true",
    ], // 1
    [
        "true", "true", "true", "true", "true", "true", "true", "true",
    ], // 2.5
    [
        "error", "error", "error", "error", "error", "error", "error", "error",
    ], // "x"
];

/// The operands of the meta-operator tables: `=?=` is true exactly on the diagonal (same type
/// and same value, strings case-sensitive), `=!=` everywhere else.
const META_OPERANDS: [&str; 10] = [
    "1",
    "1.0",
    "0",
    "2.5",
    "true",
    "false",
    "\"abc\"",
    "\"ABC\"",
    "undefined",
    "error",
];

fn value_of(src: &str) -> String {
    let expr = Expr::parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    eval(&expr, &ClassAd::new(), None).to_string()
}

/// Every cell of `table` for `op`, as (expression, expected value).
fn cells<const N: usize>(
    op: &str,
    operands: &[&str; N],
    table: impl Fn(usize, usize) -> &'static str,
) -> Vec<(String, &'static str)> {
    let mut out = Vec::with_capacity(N * N);
    for (i, a) in operands.iter().enumerate() {
        for (j, b) in operands.iter().enumerate() {
            out.push((format!("{a} {op} {b}"), table(i, j)));
        }
    }
    out
}

fn meta(equal_on_diagonal: bool) -> impl Fn(usize, usize) -> &'static str {
    move |i, j| {
        if (i == j) == equal_on_diagonal {
            "true"
        } else {
            "false"
        }
    }
}

/// All the tables: `&&`, `||`, `=?=`, `=!=`, `is`, `isnt`.
fn all_cells() -> Vec<(String, &'static str)> {
    let mut all = cells("&&", &LOGIC_OPERANDS, |i, j| AND[i][j]);
    all.extend(cells("||", &LOGIC_OPERANDS, |i, j| OR[i][j]));
    all.extend(cells("=?=", &META_OPERANDS, meta(true)));
    all.extend(cells("=!=", &META_OPERANDS, meta(false)));
    all.extend(cells("is", &META_OPERANDS, meta(true)));
    all.extend(cells("isnt", &META_OPERANDS, meta(false)));
    all
}

fn check(cells: &[(String, &str)]) {
    let wrong: Vec<String> = cells
        .iter()
        .filter_map(|(src, want)| {
            let got = value_of(src);
            (got != *want).then(|| format!("{src}: got {got}, HTCondor {want}"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} cells differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn and_truth_table() {
    check(&cells("&&", &LOGIC_OPERANDS, |i, j| AND[i][j]));
}

#[test]
fn or_truth_table() {
    check(&cells("||", &LOGIC_OPERANDS, |i, j| OR[i][j]));
}

#[test]
fn meta_equality_tables() {
    check(&cells("=?=", &META_OPERANDS, meta(true)));
    check(&cells("=!=", &META_OPERANDS, meta(false)));
    check(&cells("is", &META_OPERANDS, meta(true)));
    check(&cells("isnt", &META_OPERANDS, meta(false)));
}

/// The short-circuit is lazy, not just a table lookup: the right operand is not evaluated
/// once the left decides, so a reference cycle there (which HTCondor evaluates to
/// `undefined`, as printed by `classad2`) stays harmless.
#[test]
fn the_right_operand_is_skipped_once_the_left_decides() {
    let ad: ClassAd = "[ Loop = Loop; Yes = true; No = false ]".parse().unwrap();
    let value = |src: &str| ad.eval(&Expr::parse(src).unwrap(), None).to_string();
    assert_eq!(value("No && Loop"), "false");
    assert_eq!(value("Yes || Loop"), "true");
    assert_eq!(value("Yes && Loop"), "undefined");
    assert_eq!(value("No || Loop"), "undefined");
}

/// Every `&&`/`||`/`=?=`/`=!=` cell above is a row of the HTCondor fixture with the same
/// value (`is`/`isnt` are the same operators, spelled in words).
#[test]
fn tables_agree_with_the_fixture() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/classad_eval.json"
    );
    let fixture: Json =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the fixture is committed"))
            .expect("the fixture is JSON");
    let htcondor: HashMap<&str, &str> = fixture["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| c["my"] == "job")
        .map(|c| {
            (
                c["expr"].as_str().expect("expr"),
                c["value"].as_str().expect("value"),
            )
        })
        .collect();
    let mut compared = 0;
    for (src, want) in all_cells() {
        if src.contains(" is ") || src.contains(" isnt ") {
            continue;
        }
        let from_htcondor = htcondor
            .get(src.as_str())
            .unwrap_or_else(|| panic!("{src} is not in the fixture"));
        assert_eq!(*from_htcondor, want, "{src}");
        compared += 1;
    }
    assert_eq!(compared, 2 * 64 + 2 * 100);
}
