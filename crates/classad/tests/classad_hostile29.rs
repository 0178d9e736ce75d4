//! The hostile-input report's ClassAd reproducers, each a clean error or a correct value within seconds, and a
//! property suite on the built-in functions' arguments at extreme sizes: every call ends
//! (budget or not) with a value or a typed error, never a panic or an abort.

use cosched_classad::read::{self, ReadError};
use cosched_classad::{ClassAd, EvalError, EvalOptions, Expr, MAX_REGEX_HAYSTACK, Value};
use proptest::prelude::*;

fn eval(expr: &str) -> Result<Value, EvalError> {
    let expr = Expr::parse(expr).expect("the expression parses");
    ClassAd::new().try_eval(&expr, None, &EvalOptions::default())
}

fn big(bytes: usize) -> String {
    "a".repeat(bytes)
}

/// HTCondor's `((a + b - 1) / b) * b` with wrapping 64-bit arithmetic, no overflow trap
/// (the values are the `htcondor` 25.14.1 library's).
#[test]
fn quantize_of_the_smallest_integer_by_minus_one_wraps() {
    assert_eq!(
        eval("quantize(-9223372036854775808, -1)"),
        Ok(Value::Int(9_223_372_036_854_775_806))
    );
    assert_eq!(eval("quantize(7, -2)"), Ok(Value::Int(4)));
}

/// 5,000 references to a 1 MiB literal would copy 5 GB: the copies are charged to the
/// budget, so the evaluation stops with the budget error after about 16 MB of them.
#[test]
fn many_references_to_a_large_string_hit_the_budget() {
    let refs = vec!["x"; 5000].join(", ");
    let text = format!(
        "[ x = \"{}\"; l = {{ {refs} }}; c = strcat({refs}) ]",
        big(1 << 20)
    );
    let ad = ClassAd::parse(&text).unwrap();
    let options = EvalOptions::default();
    for attr in ["l", "c"] {
        assert!(matches!(
            ad.try_eval_attr(attr, None, &options),
            Err(EvalError::BudgetExceeded { .. })
        ));
    }
    // A single reference is well inside the budget.
    assert_eq!(
        ad.try_eval(&Expr::parse("size(x)").unwrap(), None, &options),
        Ok(Value::Int(1 << 20))
    );
}

fn ad_with(attrs: &[(&str, String)]) -> ClassAd {
    let mut ad = ClassAd::new();
    for (name, value) in attrs {
        ad.insert_value(name, value.as_str());
    }
    ad
}

/// String-list functions on 1 MiB lists are linear (hash sets), not quadratic.
#[test]
fn string_list_functions_on_megabyte_lists_are_linear() {
    let n = 1 << 17;
    let xs: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let ys: Vec<String> = (0..n).map(|i| format!("y{i}")).collect();
    let a = xs.join(",");
    let b = ys.join(",");
    let mut last_first = xs.clone();
    last_first.reverse();
    let rev = last_first.join(",");
    let seps: String = (0..(1u32 << 16))
        .filter_map(|c| char::from_u32(c + 0x4e00))
        .take(1 << 16)
        .collect();
    let ad = ad_with(&[
        ("a", a),
        ("b", b),
        ("rev", rev),
        ("seps", seps),
        ("s", big(1 << 20)),
    ]);
    let options = EvalOptions {
        step_budget: 100_000_000,
        ..EvalOptions::default()
    };
    let run = |e: &str| ad.try_eval(&Expr::parse(e).unwrap(), None, &options);
    assert_eq!(run("stringListsIntersect(a, b)"), Ok(Value::Bool(false)));
    assert_eq!(run("stringListsIntersect(a, rev)"), Ok(Value::Bool(true)));
    assert_eq!(run("stringListSubsetMatch(a, rev)"), Ok(Value::Bool(true)));
    assert_eq!(run("stringListISubsetMatch(a, rev)"), Ok(Value::Bool(true)));
    assert_eq!(run("stringListSubsetMatch(a, b)"), Ok(Value::Bool(false)));
    assert_eq!(run("size(split(s, seps))"), Ok(Value::Int(1)));
}

/// A 20 MB haystack is beyond the regex functions' bound: a typed error at once.
#[test]
fn regexp_on_a_huge_haystack_is_a_typed_error() {
    let ad = ad_with(&[("h", big(20_000_000))]);
    let options = EvalOptions {
        step_budget: u64::MAX,
        ..EvalOptions::default()
    };
    let e = Expr::parse("regexp(\"[ab]*a[ab]{400}c\", h)").unwrap();
    assert_eq!(
        ad.try_eval(&e, None, &options),
        Err(EvalError::TooLarge {
            function: "regexp",
            what: "the string searched",
            size: 20_000_000,
            limit: MAX_REGEX_HAYSTACK as u64,
        })
    );
    // Within the bound, the search runs (and is charged to the budget).
    let ok = ad_with(&[("h", "ab".repeat(1000))]);
    assert_eq!(
        ok.try_eval(&e, None, &EvalOptions::default()),
        Ok(Value::Bool(false))
    );
}

/// `-long` text from an endless line (`/dev/zero`) is an error naming the line.
#[test]
fn an_endless_line_is_an_error_naming_it() {
    use std::io::Read;
    let zeros = std::io::repeat(0).take(64 << 20);
    let e = read::read_ads(std::io::BufReader::new(zeros)).unwrap_err();
    assert!(matches!(e, ReadError::LineTooLong { line: 1, .. }), "{e}");
    let text = format!("A = 1\n\nB = \"{}\"\n", big(2 << 20));
    let e = read::read_ads(text.as_bytes()).unwrap_err();
    assert!(matches!(e, ReadError::LineTooLong { line: 3, .. }), "{e}");
    assert!(matches!(
        read::parse_old_ads(&text),
        Err(ReadError::LineTooLong { line: 3, .. })
    ));
}

/// An argument of any type and an extreme size.
fn extreme_arg() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("undefined".to_owned()),
        Just("error".to_owned()),
        Just("-9223372036854775808".to_owned()),
        Just("9223372036854775807".to_owned()),
        Just("-1".to_owned()),
        Just("0".to_owned()),
        Just("1e308".to_owned()),
        Just("-1e-308".to_owned()),
        Just("real(\"NaN\")".to_owned()),
        Just("real(\"INF\")".to_owned()),
        Just("\"\"".to_owned()),
        Just("{}".to_owned()),
        Just("[]".to_owned()),
        Just("big".to_owned()),
        Just("biglist".to_owned()),
        Just("strcat(big, big, big, big)".to_owned()),
        Just("{ big, big, big, big }".to_owned()),
        (0usize..6).prop_map(|k| format!("\"{}\"", ",a".repeat(k * 100))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    /// Every built-in on arguments of every type at extreme sizes ends with a value or a
    /// typed error within the default budget (no panic, no abort).
    #[test]
    fn functions_at_extreme_sizes_end_cleanly(
        f in prop::sample::select(cosched_classad::functions::NAMES),
        args in prop::collection::vec(extreme_arg(), 0..4),
    ) {
        let ad = ClassAd::parse(&format!(
            "[ big = \"{}\"; biglist = {{ {} }} ]",
            big(256 << 10),
            vec!["big"; 64].join(", ")
        )).unwrap();
        let text = format!("{f}({})", args.join(", "));
        if let Ok(e) = Expr::parse(&text) {
            let options = EvalOptions { now: Some(0), seed: Some(1), ..EvalOptions::default() };
            match ad.try_eval(&e, None, &options) {
                Ok(v) => prop_assert!(v.weight(u64::MAX) < 1 << 22, "{text}: a value of weight {}", v.weight(u64::MAX)),
                Err(EvalError::BudgetExceeded { .. } | EvalError::TooLarge { .. }) => {}
            }
        }
    }
}
