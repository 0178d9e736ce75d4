//! Hostile ClassAd text (hostile-input review, finding #1, and its relatives): every input
//! gives a correct value or a clean, typed error, quickly and in bounded memory.
//!
//! Speed is measured in the benchmarks (`benches/matchmaking.rs`); these tests only check
//! results and errors, with budgets small enough that a regression to exponential
//! evaluation fails them by exceeding the budget rather than by running long.

use cosched_classad::{
    ClassAd, DEFAULT_STEP_BUDGET, EvalError, EvalOptions, Expr, Value, match_ads, read,
};
use proptest::prelude::*;

/// `a_i = f(a_{i+1}, a_{i+1})` for `i < levels`, `a_levels = leaf`: the review's reproducer.
fn doubling_ad(levels: usize, combine: &str, leaf: &str) -> ClassAd {
    let attrs: String = (0..levels)
        .map(|i| {
            let next = format!("a{}", i + 1);
            format!("a{i} = {}; ", combine.replace("X", &next))
        })
        .collect();
    ClassAd::parse(&format!("[ {attrs}a{levels} = {leaf} ]")).expect("the ad parses")
}

#[test]
fn the_40_level_doubling_ad_is_memoised() {
    let ad = doubling_ad(40, "X + X", "1");
    // 2^40 additions without memoisation; with it, well inside a budget of 1,000 steps.
    let tight = EvalOptions {
        step_budget: 1_000,
        ..EvalOptions::default()
    };
    assert_eq!(
        ad.try_eval_attr("a0", None, &tight),
        Ok(Value::Int(1 << 40))
    );
    assert_eq!(ad.eval_attr("a0", None), Value::Int(1 << 40));
    // Through matchmaking too: the ad's Requirements refers to the chain.
    let mut machine = ad.clone();
    machine.insert("Requirements", Expr::parse("a0 > 0").unwrap());
    let job = ClassAd::parse("[ Requirements = TARGET.a0 == 1099511627776 ]").unwrap();
    assert!(match_ads(&job, &machine).matched);
}

#[test]
fn exponential_strings_and_lists_exceed_the_budget_instead_of_memory() {
    for (combine, leaf) in [
        ("strcat(X, X)", "\"xxxxxxxx\""),
        ("{X, X}", "1"),
        ("join(\",\", {X, X})", "\"x\""),
    ] {
        let ad = doubling_ad(40, combine, leaf);
        assert_eq!(
            ad.try_eval_attr("a0", None, &EvalOptions::default()),
            Err(EvalError::BudgetExceeded {
                budget: DEFAULT_STEP_BUDGET
            }),
            "{combine}"
        );
        // The infallible entry points, and so matchmaking, see `error`.
        assert_eq!(ad.eval_attr("a0", None), Value::Error, "{combine}");
    }
    // A few levels stay well within the budget and give the exact result.
    let ad = doubling_ad(10, "strcat(X, X)", "\"ab\"");
    assert_eq!(
        ad.eval_attr("a0", None),
        Value::Str("ab".repeat(1 << 10).into())
    );
}

#[test]
fn memoising_never_changes_a_value() {
    // Inside `a`, `b` sees `a` as a cut cycle (undefined) and is 10; on its own, `b` sees
    // `a` = 1 and is 2. HTCondor evaluates each reference afresh, so `both` is 11 * 100 + 2;
    // memoising `b` from inside `a` would give 1110.
    let ad = ClassAd::parse(
        "[ a = isUndefined(b) ? 1 : b + 1; b = isUndefined(a) ? 10 : a * 2; both = a * 100 + b ]",
    )
    .unwrap();
    assert_eq!(ad.eval_attr("a", None), Value::Int(11));
    assert_eq!(ad.eval_attr("b", None), Value::Int(2));
    assert_eq!(ad.eval_attr("both", None), Value::Int(1102));
}

#[test]
fn a_budget_overrun_names_the_budget() {
    let ad = doubling_ad(30, "strcat(X, X)", "\"x\"");
    let e = ad
        .try_eval_attr("a0", None, &EvalOptions::default())
        .unwrap_err();
    assert!(
        e.to_string().contains(&DEFAULT_STEP_BUDGET.to_string()),
        "{e}"
    );
}

#[test]
fn time_reads_the_injected_clock() {
    let ad = ClassAd::parse("[ Age = time() - QDate; QDate = 1700000000 ]").unwrap();
    let at = EvalOptions::at(1_700_000_600);
    assert_eq!(ad.try_eval_attr("Age", None, &at), Ok(Value::Int(600)));
    let e = Expr::parse("formatTime(time(), \"%Y-%m-%d %H:%M\") + \"\"").unwrap();
    assert_eq!(ad.try_eval(&e, None, &at), Ok(Value::Error));
    let e = Expr::parse("formatTime(time(), \"%Y-%m-%d %H:%M\")").unwrap();
    assert_eq!(
        ad.try_eval(&e, None, &at),
        Ok(Value::from("2023-11-14 22:23"))
    );
    let e = Expr::parse("CurrentTime - QDate").unwrap();
    assert_eq!(ad.try_eval(&e, None, &at), Ok(Value::Int(600)));
}

#[test]
fn random_draws_from_the_seeded_generator() {
    let e = Expr::parse("{random(), random(), random(1000), random(2.5)}").unwrap();
    let seeded = |seed| EvalOptions {
        seed: Some(seed),
        ..EvalOptions::default()
    };
    let a = ClassAd::new().try_eval(&e, None, &seeded(7)).unwrap();
    assert_eq!(a, ClassAd::new().try_eval(&e, None, &seeded(7)).unwrap());
    assert_ne!(a, ClassAd::new().try_eval(&e, None, &seeded(8)).unwrap());
    let Value::List(draws) = a else {
        panic!("a list")
    };
    assert_ne!(draws[0], draws[1], "draws within one evaluation differ");
    assert!(matches!(draws[2], Value::Int(i) if (0..1000).contains(&i)));
    assert!(matches!(draws[3], Value::Real(r) if (0.0..2.5).contains(&r)));
}

/// Extreme literal values, as text.
fn extreme_literal() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("9223372036854775807".to_owned()),
        Just("(-9223372036854775808)".to_owned()),
        Just("1e308".to_owned()),
        Just("4.9e-324".to_owned()),
        Just("real(\"NaN\")".to_owned()),
        Just("real(\"-INF\")".to_owned()),
        Just("undefined".to_owned()),
        Just("error".to_owned()),
        Just("{}".to_owned()),
        Just("[]".to_owned()),
        Just("\"\"".to_owned()),
        any::<i64>().prop_map(|i| format!("({i})")),
        any::<f64>()
            .prop_filter("finite", |r| r.is_finite())
            .prop_map(|r| format!("({r:e})")),
        "[a-z ,]{0,12}".prop_map(|s| format!("\"{s}\"")),
    ]
}

/// Calls of every function family on extreme arguments.
fn extreme_call() -> impl Strategy<Value = String> {
    let names = prop::sample::select(cosched_classad::functions::NAMES.to_vec());
    (names, prop::collection::vec(extreme_literal(), 0..4))
        .prop_map(|(name, args)| format!("{name}({})", args.join(", ")))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any function on any extreme arguments returns a value (no panic, no hang).
    #[test]
    fn functions_on_extreme_values_return(src in extreme_call()) {
        let e = Expr::parse(&src).expect("calls of literals parse");
        let _ = ClassAd::new().try_eval(&e, None, &EvalOptions::at(0));
    }

    /// Huge strings: the result is exact or the budget stops it; never more memory than the
    /// budget allows.
    #[test]
    fn huge_strings_are_bounded(len in 0usize..40_000, copies in 1usize..64) {
        let ad = ClassAd::parse(&format!("[ s = \"{}\" ]", "x".repeat(len))).unwrap();
        let src = format!("size(strcat({}))", vec!["s"; copies].join(", "));
        let e = Expr::parse(&src).unwrap();
        let got = ad.try_eval(&e, None, &EvalOptions::default());
        prop_assert_eq!(got, Ok(Value::Int((len * copies) as i64)));
        let tight = EvalOptions { step_budget: 1_000, ..EvalOptions::default() };
        let got = ad.try_eval(&e, None, &tight);
        if len * copies / 8 > 1_000 {
            prop_assert!(got.is_err());
        }
    }

    /// Deeply nested lists and ads: parse error past the depth limit, a value within it.
    #[test]
    fn deep_lists_and_ads_parse_or_fail_cleanly(depth in 1usize..400, ad in any::<bool>()) {
        let (open, close) = if ad { ("[ a = ", " ]") } else { ("{ ", " }") };
        let src = format!("{}1{}", open.repeat(depth), close.repeat(depth));
        if let Ok(e) = Expr::parse(&src) {
            let _ = ClassAd::new().try_eval(&e, None, &EvalOptions::default());
        }
    }

    /// Arbitrary text fed to the pool-output readers never panics.
    #[test]
    fn readers_never_panic(src in "\\PC{0,200}") {
        let _ = read::parse_ads(&src);
        let _ = read::parse_old_ads(&src);
        let _ = read::parse_json_ads(&src);
    }
}
