//! The ClassAd language beyond the fixture table: matchmaking scenarios, typed parse errors,
//! resource bounds, and property tests (no input panics; printing and parsing round-trip).

use cosched_classad::{ClassAd, Expr, MAX_DEPTH, ParseErrorKind, Value, eval, match_ads, rank};
use proptest::prelude::*;

fn ad(src: &str) -> ClassAd {
    ClassAd::parse(src).unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn value(src: &str) -> Value {
    eval(&Expr::parse(src).unwrap(), &ClassAd::new(), None)
}

#[test]
fn a_large_input_job_forbids_cloud_machines_through_its_own_ad() {
    let job = ad(r#"[ Owner = "alice"; InputMB = 50000; RequestMemory = 2048;
                     Requirements = TARGET.Memory >= RequestMemory && (TARGET.IsCloud =!= true);
                     Rank = TARGET.Mips ]"#);
    let desktop = ad("[ Requirements = TARGET.Owner =!= undefined; Memory = 4096; Mips = 900 ]");
    let cloud = ad("[ Requirements = true; Memory = 65536; Mips = 4000; IsCloud = true ]");
    let unlabelled = ad("[ Requirements = true; Memory = 8192; Mips = 1200 ]");

    let m = match_ads(&job, &desktop);
    assert!(m.matched);
    assert_eq!(m.job_requirements, Value::Bool(true));
    assert_eq!(m.job_rank, 900.0);

    let m = match_ads(&job, &cloud);
    assert!(!m.matched, "the job's own Requirements exclude cloud nodes");
    assert_eq!(m.job_requirements, Value::Bool(false));
    assert_eq!(m.machine_requirements, Value::Bool(true));

    // `=!= true` (not `!= true`) lets machines that do not advertise IsCloud match.
    assert!(match_ads(&job, &unlabelled).matched);
    let strict = ad("[ Requirements = TARGET.IsCloud != true ]");
    assert_eq!(
        match_ads(&strict, &unlabelled).job_requirements,
        Value::Undefined
    );
    assert!(!match_ads(&strict, &unlabelled).matched);

    // Without TARGET., the job's own IsCloud attribute wins: old-ClassAd lookup is MY first.
    let sloppy = ad("[ IsCloud = false; Requirements = IsCloud =!= true ]");
    assert!(match_ads(&sloppy, &cloud).matched);
}

#[test]
fn ranks_follow_the_negotiator() {
    let machine = ad("[ Requirements = true; Mips = 1500; Rank = TARGET.Prio * 2 ]");
    assert_eq!(rank(&ad("[ Rank = TARGET.Mips / 2 ]"), &machine), 750.0);
    assert_eq!(rank(&ad("[ Rank = TARGET.Mips > 1000 ]"), &machine), 1.0);
    assert_eq!(rank(&ad("[ Rank = \"high\" ]"), &machine), 0.0);
    assert_eq!(rank(&ad("[ Rank = TARGET.NoSuch ]"), &machine), 0.0);
    assert_eq!(rank(&ad("[ Rank = 1 / 0 ]"), &machine), 0.0);
    // HTCondor's EvalFloat quirk: no Rank of its own, so the machine's Rank (MY = machine).
    assert_eq!(rank(&ad("[ Prio = 5 ]"), &machine), 10.0);
    assert_eq!(
        rank(&ad("[ Prio = 5 ]"), &ad("[ Requirements = true ]")),
        0.0
    );
}

#[test]
fn ads_parse_print_and_look_up_case_insensitively() {
    let a = ad(r#"[ Memory = 2048;; name = "x\ty"; memory = 4096; 'odd name' = 1; ]"#);
    assert_eq!(a.len(), 3);
    assert_eq!(a.eval_attr("MEMORY", None), Value::Int(4096));
    assert_eq!(a.eval_attr("Odd Name", None), Value::Int(1));
    assert_eq!(
        a.to_string(),
        r#"[ Memory = 4096; name = "x\ty"; 'odd name' = 1 ]"#
    );
    assert_eq!(ad(&a.to_string()).to_string(), a.to_string());
    assert!(ClassAd::parse("[]").unwrap().is_empty());
    let mut b = ClassAd::new();
    b.insert_value("Cpus", 4);
    b.insert("Twice", Expr::parse("Cpus * 2").unwrap());
    assert_eq!(b.eval_attr("twice", None), Value::Int(8));
}

#[test]
fn parse_errors_are_typed_and_located() {
    let err = |src: &str| Expr::parse(src).unwrap_err();
    let e = err("Memory >= 1024 &&\n   (Disk > 10");
    assert_eq!((e.line, e.column, e.offset), (2, 14, 31));
    assert_eq!(
        e.kind,
        ParseErrorKind::Unexpected {
            expected: "`)` or an operator",
            found: "end of input".into()
        }
    );
    assert!(matches!(err("017").kind, ParseErrorKind::BadNumber { .. }));
    assert!(
        matches!(err("1 ? 2").kind, ParseErrorKind::Unexpected { expected, .. } if expected.contains(':'))
    );
    assert!(matches!(err("\"\\0\"").kind, ParseErrorKind::NulInString));
    assert!(matches!(
        err("/* never closed").kind,
        ParseErrorKind::UnterminatedComment
    ));
    assert!(matches!(err("a ¤ b").kind, ParseErrorKind::BadChar('¤')));
    for unclosed in ["{1, 2", "[a = 1", "x[0", "."] {
        assert!(
            matches!(err(unclosed).kind, ParseErrorKind::Unexpected { .. }),
            "{unclosed}"
        );
    }
    let e = ClassAd::parse("[ a = 1 b = 2 ]").unwrap_err();
    assert_eq!(e.offset, 8);
    assert!(
        e.to_string()
            .contains("expected `;`, `]` or an operator, found identifier `b`")
    );
}

/// Inputs the cargo-fuzz target (`fuzz/`) found whose printed form did not parse back;
/// each must now print to text that parses to the same tree.
#[test]
fn fuzzer_finds_print_and_parse_back() {
    for src in [
        "--!1-1-0\r.J",
        "0 .J",
        "1.5 .x",
        "1e999 .x",
        "-1 .x",
        "(-2.5).x.y",
        "x - '\u{1}K\"-\"%N+)\"k\u{1}ra'()",
        "'a b'(1)",
        "'strcat'(1, 2)",
        "'true'()",
    ] {
        let e = Expr::parse(src).unwrap_or_else(|err| panic!("{src:?}: {err}"));
        let printed = e.to_string();
        let back = Expr::parse(&printed).unwrap_or_else(|err| panic!("{printed:?}: {err}"));
        assert_eq!(back, e, "{src:?} printed as {printed:?}");
        assert_eq!(back.to_string(), printed);
    }
    assert_eq!(Expr::parse("0 .J").unwrap().to_string(), "(0).J");
    assert_eq!(Expr::parse("'a b'(1)").unwrap().to_string(), "'a b'(1)");
    assert_eq!(value("'strcat'(1, 2)"), Value::Str("12".into()));
}

#[test]
fn huge_numbers_follow_htcondor() {
    assert_eq!(value("99999999999999999999999999"), Value::Int(0));
    assert_eq!(value("-9223372036854775808"), Value::Int(i64::MIN));
    assert_eq!(value("9223372036854775807 + 1"), Value::Int(i64::MIN));
    assert_eq!(value("1e999"), Value::Real(f64::INFINITY));
    assert_eq!(value("1e999 + 0"), Value::Error, "a +inf result is error");
    assert_eq!(value(&format!("1{}", "0".repeat(5000))), Value::Int(0));
    assert_eq!(
        value(&format!("1{}.5", "0".repeat(500))),
        Value::Real(f64::INFINITY)
    );
}

#[test]
fn nesting_and_evaluation_depth_are_bounded() {
    let too_deep = |src: &str| {
        assert_eq!(
            Expr::parse(src).unwrap_err().kind,
            ParseErrorKind::TooDeep { limit: MAX_DEPTH },
            "{}…",
            &src[..20.min(src.len())]
        );
    };
    too_deep(&format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000)));
    too_deep(&format!("{}1", "-".repeat(100_000)));
    too_deep(&vec!["x"; 100_000].join(" && "));
    too_deep(&format!("f({})", "g(".repeat(1_000)));
    too_deep(&"a ? ".repeat(1_000));

    // The deepest accepted expression evaluates.
    let deep = format!(
        "{}1{}",
        "(1 + ".repeat(MAX_DEPTH - 1),
        ")".repeat(MAX_DEPTH - 1)
    );
    assert_eq!(value(&deep), Value::Int(MAX_DEPTH as i64));

    // A long chain of attribute references gives error instead of exhausting the stack.
    let mut chain = ClassAd::new();
    for i in 0..5_000 {
        chain.insert(
            &format!("a{i}"),
            Expr::parse(&format!("a{} + 1", i + 1)).unwrap(),
        );
    }
    chain.insert_value("a5000", 0);
    assert_eq!(chain.eval_attr("a4990", None), Value::Int(10));
    assert_eq!(chain.eval_attr("a0", None), Value::Error);
    let mut calls = ClassAd::new();
    for i in 0..5_000 {
        let e = format!(
            "ifThenElse(true, strcat(b{}, \"\"), -(TARGET.b{}))",
            i + 1,
            i + 1
        );
        calls.insert(&format!("b{i}"), Expr::parse(&e).unwrap());
    }
    assert_eq!(calls.eval_attr("b0", Some(&calls)), Value::Error);
}

/// A random expression as source text, from every part of the grammar we support.
fn arb_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(|i| format!("({i})")),
        (0u64..1_000_000).prop_map(|i| i.to_string()),
        any::<f64>()
            .prop_filter("finite", |r| r.is_finite())
            .prop_map(|r| format!("({r:?})")),
        Just("99999999999999999999".to_owned()),
        Just("1e400".to_owned()),
        "[ -~]{0,8}".prop_map(|s| format!("{}", Value::Str(s.into()))),
        prop_oneof![
            Just("true"),
            Just("false"),
            Just("undefined"),
            Just("error"),
            Just("Memory"),
            Just("TARGET.Memory"),
            Just("MY.Name"),
            Just("NoSuch"),
            Just("Loop"),
            Just("TARGET"),
            Just("MY.TARGET.Cpus"),
            Just(".Memory"),
            Just("{}"),
            Just("[]"),
        ]
        .prop_map(str::to_owned),
    ];
    leaf.prop_recursive(6, 64, 4, |inner| {
        let binary = prop_oneof![
            Just("+"),
            Just("-"),
            Just("*"),
            Just("/"),
            Just("%"),
            Just("<"),
            Just("<="),
            Just(">"),
            Just(">="),
            Just("=="),
            Just("!="),
            Just("=?="),
            Just("=!="),
            Just("is"),
            Just("isnt"),
            Just("&&"),
            Just("||"),
            Just("&"),
            Just("|"),
            Just("^"),
            Just("<<"),
            Just(">>"),
            Just(">>>"),
        ];
        let func = prop_oneof![
            Just("isUndefined"),
            Just("isError"),
            Just("int"),
            Just("real"),
            Just("string"),
            Just("strcat"),
            Just("toLower"),
            Just("size"),
            Just("floor"),
            Just("round"),
            Just("ifThenElse"),
            Just("member"),
            Just("join"),
            Just("split"),
            Just("sum"),
            Just("regexp"),
            Just("stringListMember"),
            Just("quantize"),
            Just("eval"),
            Just("unparse"),
            Just("nosuch"),
        ];
        prop_oneof![
            (inner.clone(), binary, inner.clone()).prop_map(|(a, op, b)| format!("{a} {op} {b}")),
            (
                prop_oneof![Just("-"), Just("+"), Just("!"), Just("~")],
                inner.clone()
            )
                .prop_map(|(op, a)| format!("{op} {a}")),
            inner.clone().prop_map(|a| format!("({a})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("{c} ? {a} : {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} ?: {b}")),
            (func, prop::collection::vec(inner.clone(), 0..4))
                .prop_map(|(f, args)| format!("{f}({})", args.join(", "))),
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|items| format!("{{{}}}", items.join(", "))),
            (inner.clone(), inner.clone()).prop_map(|(a, i)| format!("({a})[{i}]")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("[ x = {a}; 'y z' = {b} ].x")),
        ]
    })
}

fn pair() -> (ClassAd, ClassAd) {
    (
        ad(r#"[ Memory = 2048; Name = "job"; Loop = Loop + 1; Requirements = TARGET.Memory > 0 ]"#),
        ad("[ Memory = 4096; Cpus = 8; Requirements = true ]"),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_text_never_panics(src in "\\PC{0,64}") {
        let (my, target) = pair();
        if let Ok(e) = Expr::parse(&src) {
            let _ = eval(&e, &my, Some(&target));
        }
        let _ = ClassAd::parse(&src);
        let _ = ClassAd::parse(&format!("[ a = {src} ]"));
    }

    #[test]
    fn arbitrary_token_soup_never_panics(
        parts in prop::collection::vec(
            prop_oneof![
                Just("("), Just(")"), Just("["), Just("]"), Just("{"), Just("}"), Just("."),
                Just("-"), Just("!"), Just("?"), Just(":"), Just(","), Just(";"), Just("="),
                Just("=?="), Just("&&"), Just("1"), Just("-1"), Just("1e5"), Just("\"s\""),
                Just("x"), Just("MY"), Just("f"), Just("'q'"), Just("/*"), Just("*/"),
            ],
            0..40,
        )
    ) {
        let src = parts.join(" ");
        let (my, target) = pair();
        if let Ok(e) = Expr::parse(&src) {
            let _ = eval(&e, &my, Some(&target));
        }
        let _ = ClassAd::parse(&src);
    }

    #[test]
    fn printed_expressions_parse_back_to_the_same_tree(src in arb_expr()) {
        let (my, target) = pair();
        let e = Expr::parse(&src).unwrap();
        let printed = e.to_string();
        let back = Expr::parse(&printed).unwrap();
        prop_assert_eq!(&back, &e, "{} printed as {}", src, printed);
        let (a, b) = (eval(&e, &my, Some(&target)), eval(&back, &my, Some(&target)));
        prop_assert!(a == b || (a.to_string() == b.to_string()), "{:?} vs {:?}", a, b);
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn deep_random_nesting_is_an_error_not_a_crash(
        ops in prop::collection::vec(prop_oneof![Just("("), Just("!"), Just("-"), Just("f(")], 200..2_000)
    ) {
        let mut src: String = ops.concat();
        src.push('1');
        for op in ops.iter().rev() {
            if op.ends_with('(') {
                src.push(')');
            }
        }
        match Expr::parse(&src) {
            Ok(e) => { let _ = eval(&e, &ClassAd::new(), None); }
            Err(e) => prop_assert_eq!(e.kind, ParseErrorKind::TooDeep { limit: MAX_DEPTH }),
        }
    }
}
