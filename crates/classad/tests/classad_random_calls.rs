//! Every built-in function called with random arguments of every type (undefined, error,
//! booleans, extreme integers, reals incl. NaN and infinities, strings, string lists, lists,
//! nested ads, attribute references), against HTCondor's own ClassAd library: the committed
//! table `tests/fixtures/classad_random_calls.json` (written by `gen_random_calls.py` with the
//! `htcondor` 25.14.1 wheel). Every row must agree in both notations, except the rows of
//! [`KNOWN`], each a disagreement we have not matched yet, named by family; a known row that
//! starts agreeing fails the test too, so the list only shrinks.

use cosched_classad::{ClassAd, Expr};
use serde_json::Value as Json;
use std::collections::{BTreeSet, HashMap};

/// Disagreements left, by family: the expressions, exactly. None: the last nine (
/// `unparse`'s parentheses, `formatTime`/`interval` on NaN, reals and ads, `quantize`'s dead
/// zone, `split`'s empty items, `versioncmp` of numbers) now agree.
const KNOWN: &[&str] = &[];

#[test]
fn random_calls_of_every_function_agree_with_htcondor() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/classad_random_calls.json"
    );
    let text = std::fs::read_to_string(path).expect("the table is committed");
    let f: Json = serde_json::from_str(&text).expect("the table is JSON");
    let ads: HashMap<String, ClassAd> = f["ads"]
        .as_object()
        .expect("named ads")
        .iter()
        .map(|(k, v)| (k.clone(), ClassAd::parse(v.as_str().unwrap()).unwrap()))
        .collect();
    let cases = f["cases"].as_array().expect("cases");
    let names: BTreeSet<&str> = cases
        .iter()
        .filter_map(|c| c["expr"].as_str()?.split('(').next())
        .collect();
    for name in cosched_classad::functions::NAMES {
        if !["time", "random"].contains(name) {
            assert!(names.contains(name), "{name} is not in the table");
        }
    }
    let known: BTreeSet<&str> = KNOWN.iter().copied().collect();
    let mut failures = Vec::new();
    let mut stale = Vec::new();
    for case in cases {
        let src = case["expr"].as_str().unwrap();
        let my = &ads[case["my"].as_str().unwrap()];
        let target = case["target"].as_str().map(|t| &ads[t]);
        let got = match Expr::parse(src) {
            Ok(e) => {
                let v = my.eval(&e, target);
                (v.to_string(), v.old_syntax().to_string())
            }
            Err(e) => (format!("parse error {e}"), String::new()),
        };
        let want = (
            case["value"].as_str().unwrap().to_owned(),
            case["old"].as_str().unwrap().to_owned(),
        );
        let agree = got == want;
        match (agree, known.contains(src)) {
            (false, false) => failures.push(format!(
                "{src}: ours {} / {}, HTCondor {} / {}",
                got.0, got.1, want.0, want.1
            )),
            (true, true) => stale.push(src.to_owned()),
            _ => {}
        }
    }
    assert!(
        failures.is_empty() && stale.is_empty(),
        "{} of {} calls disagree:\n{}\nknown but now agreeing:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n"),
        stale.join("\n")
    );
}
