//! Calls whose value depends on who evaluates them, against HTCondor's own library both ways:
//! configured as in a daemon (the default here) and bare (`FunctionSet::Library`). The table
//! `tests/fixtures/classad_library.json` is written by `gen_library_calls.py` with the
//! `htcondor` 25.14.1 wheel; it holds the hostile-input cases where this crate disagreed with
//! the library (`unparse` of a scoped reference, `allCompare` stopping at the first element
//! that decides it, `split` and the other daemon-registered functions).

use cosched_classad::functions::{DAEMON_REGISTERED, FunctionSet};
use cosched_classad::{ClassAd, EvalOptions, Expr};
use serde_json::Value as Json;

#[test]
fn both_function_sets_agree_with_htcondor() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/classad_library.json"
    );
    let text = std::fs::read_to_string(path).expect("the table is committed");
    let f: Json = serde_json::from_str(&text).expect("the table is JSON");
    let ad = |key: &str| ClassAd::parse(f[key].as_str().expect("an ad")).expect("it parses");
    let (my, target) = (ad("my"), ad("target"));
    let library = EvalOptions {
        functions: FunctionSet::Library,
        ..EvalOptions::default()
    };
    let mut failures = Vec::new();
    let mut registered_seen = std::collections::BTreeSet::new();
    for case in f["cases"].as_array().expect("cases") {
        let src = case["expr"].as_str().expect("an expression");
        let expr = Expr::parse(src).expect("HTCondor parses every case");
        for (side, options) in [("daemon", EvalOptions::default()), ("library", library)] {
            let got = my
                .try_eval(&expr, Some(&target), &options)
                .map(|v| (v.to_string(), v.old_syntax().to_string()));
            let want = &case[side];
            let want = (
                want["value"].as_str().unwrap().to_owned(),
                want["old"].as_str().unwrap().to_owned(),
            );
            if got.as_ref() != Ok(&want) {
                failures.push(format!("{side}: {src}: ours {got:?}, HTCondor {want:?}"));
            }
        }
        let lower = src.to_ascii_lowercase();
        for name in DAEMON_REGISTERED {
            if lower.contains(&format!("{name}(")) {
                registered_seen.insert(*name);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        registered_seen.len(),
        DAEMON_REGISTERED.len(),
        "every daemon-registered function is in the table"
    );
}
