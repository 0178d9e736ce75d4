//! Exact agreement with HTCondor's own ClassAd library on a committed table
//! (`tests/fixtures/classad_eval.json`, written by `gen_classad_fixtures.py` with the
//! `htcondor` 25.14.1 wheel). Every row is checked and all disagreements are reported at once.

use cosched_classad::{ClassAd, Expr, Value, match_ads, rank, symmetric_match};
use serde_json::Value as Json;
use std::collections::HashMap;

fn fixtures() -> Json {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/classad_eval.json"
    );
    let text = std::fs::read_to_string(path).expect("the fixture table is committed");
    serde_json::from_str(&text).expect("the fixture table is JSON")
}

fn text(j: &Json) -> &str {
    j.as_str().expect("a string field")
}

fn ads(f: &Json) -> HashMap<String, ClassAd> {
    f["ads"]
        .as_object()
        .expect("named ads")
        .iter()
        .map(|(name, src)| {
            (
                name.clone(),
                ClassAd::parse(text(src)).expect("fixture ads parse"),
            )
        })
        .collect()
}

#[test]
fn every_expression_evaluates_and_prints_as_htcondor_does() {
    let f = fixtures();
    let ads = ads(&f);
    let cases = f["cases"].as_array().expect("cases");
    assert!(cases.len() >= 150, "the table covers {} cases", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let src = text(&case["expr"]);
        let my = &ads[text(&case["my"])];
        let target = case["target"].as_str().map(|name| &ads[name]);
        let expr = match Expr::parse(src) {
            Ok(e) => e,
            Err(e) => {
                failures.push(format!("{src:?}: parse error {e}"));
                continue;
            }
        };
        let value = my.eval(&expr, target);
        let (new, old) = (value.to_string(), value.old_syntax().to_string());
        if new != text(&case["value"]) || old != text(&case["old"]) {
            failures.push(format!(
                "{src:?} (MY {}, TARGET {:?}): got {new} / {old}, HTCondor {} / {}",
                case["my"], case["target"], case["value"], case["old"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases disagree with HTCondor:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Every built-in function is exercised by at least one row HTCondor's library evaluated.
#[test]
fn every_builtin_function_is_in_the_fixture_table() {
    let f = fixtures();
    let exprs: Vec<String> = f["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| text(&c["expr"]).to_ascii_lowercase())
        .collect();
    let missing: Vec<&str> = cosched_classad::functions::NAMES
        .iter()
        .copied()
        .filter(|name| !exprs.iter().any(|e| e.contains(&format!("{name}("))))
        .collect();
    assert!(
        missing.is_empty(),
        "not checked against HTCondor: {missing:?}"
    );
}

#[test]
fn what_htcondor_rejects_we_reject() {
    let f = fixtures();
    let accepted: Vec<&str> = f["parse_errors"]
        .as_array()
        .expect("parse errors")
        .iter()
        .map(text)
        .filter(|src| Expr::parse(src).is_ok())
        .collect();
    assert!(accepted.is_empty(), "HTCondor rejects these: {accepted:?}");
}

/// A fixture value in new ClassAd notation, read back through our own parser.
fn value_of(notation: &Json) -> Option<Value> {
    let src = notation.as_str()?;
    Some(ClassAd::new().eval(&Expr::parse(src).expect("fixture values parse"), None))
}

/// The negotiator's reading of an ad's rank (`EvalFloat`): its own `Rank` if it has one,
/// else the other ad's (evaluated with that ad as MY); numbers and booleans count, anything
/// else is 0.0.
fn negotiator_rank(has_rank: bool, own: &Json, other: &Json) -> f64 {
    let value = if has_rank {
        value_of(own)
    } else {
        value_of(other)
    };
    value.and_then(|v| v.as_number()).unwrap_or(0.0)
}

#[test]
fn matches_and_ranks_agree_with_htcondor() {
    let f = fixtures();
    let mut failures = Vec::new();
    for m in f["matches"].as_array().expect("matches") {
        let job = ClassAd::parse(text(&m["job"])).expect("job parses");
        let machine = ClassAd::parse(text(&m["machine"])).expect("machine parses");
        let got = match_ads(&job, &machine);
        let expected_matched = m["matched"].as_bool().expect("matched is a boolean");
        let req = |v: &Json| value_of(v).unwrap_or(Value::Undefined).to_string();
        let job_rank = negotiator_rank(job.contains("Rank"), &m["job_rank"], &m["machine_rank"]);
        let machine_rank =
            negotiator_rank(machine.contains("Rank"), &m["machine_rank"], &m["job_rank"]);
        let same_rank = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        if got.matched != expected_matched
            || symmetric_match(&job, &machine) != expected_matched
            || got.job_requirements.to_string() != req(&m["job_requirements"])
            || got.machine_requirements.to_string() != req(&m["machine_requirements"])
            || !same_rank(got.job_rank, job_rank)
            || !same_rank(got.machine_rank, machine_rank)
            || !same_rank(rank(&job, &machine), job_rank)
        {
            failures.push(format!("{m}\n  got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
