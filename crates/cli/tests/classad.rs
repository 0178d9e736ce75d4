//! `cosched classad eval` and `cosched classad match` end to end.

use std::process::{Command, Output};

fn cosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs a succeeding command and returns its standard output.
fn stdout(args: &[&str]) -> String {
    let out = cosched(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `cosched classad eval EXPR EXTRA...`, returning the printed value.
fn eval(expr: &str, extra: &[&str]) -> String {
    let mut args = vec!["classad", "eval", expr];
    args.extend_from_slice(extra);
    stdout(&args).trim_end().to_owned()
}

/// Runs a failing command and returns its single error line.
fn error_line(args: &[&str]) -> String {
    let out = cosched(args);
    assert_eq!(out.status.code(), Some(1), "{args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.starts_with("error: "), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err.trim_end().to_owned()
}

#[test]
fn eval_prints_values_in_classad_notation() {
    for (expr, value) in [
        ("1 + 2", "3"),
        ("7 / 2.0", "3.500000000000000E+00"),
        ("true && undefined", "undefined"),
        ("false && error", "false"),
        ("1 / 0", "error"),
        (r#"strcat("a", "b")"#, r#""ab""#),
        (r#""abc" == "ABC""#, "true"),
        (r#""abc" =?= "ABC""#, "false"),
        ("NoSuch", "undefined"),
    ] {
        assert_eq!(eval(expr, &[]), value, "{expr}");
    }
    assert_eq!(eval("7 / 2.0", &["--old-syntax"]), "3.5");
    assert_eq!(eval("1e16", &["--old-syntax"]), "1E+16");
}

#[test]
fn eval_resolves_my_then_target() {
    let my = r#"[ Memory = 2048; Owner = "alice" ]"#;
    let target = "[ Memory = 4096; Disk = 100 ]";
    let with_ads = |expr: &str| eval(expr, &["--my", my, "--target", target]);
    assert_eq!(with_ads("Memory"), "2048");
    assert_eq!(with_ads("TARGET.Memory"), "4096");
    assert_eq!(with_ads("Disk"), "100");
    assert_eq!(with_ads("MY.Disk"), "undefined");
    assert_eq!(eval("TARGET.Memory", &["--my", my]), "undefined");
}

#[test]
fn eval_reads_ads_from_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("machine.ad");
    std::fs::write(&path, "[\n  Memory = 8192;\n  IsCloud = true\n]\n").unwrap();
    let target = format!("@{}", path.display());
    assert_eq!(
        eval("TARGET.IsCloud =!= true", &["--target", &target]),
        "false"
    );
}

#[test]
fn match_prints_the_outcome_and_both_ranks() {
    let job =
        "[ Requirements = TARGET.Memory >= 1024 && (TARGET.IsCloud =!= true); Rank = TARGET.Mips ]";
    let desktop = "[ Requirements = true; Memory = 2048; Mips = 900; Rank = TARGET.Rank > 0 ]";
    let cloud = "[ Requirements = true; Memory = 16384; Mips = 3000; IsCloud = true ]";
    let out = stdout(&["classad", "match", job, desktop]);
    for line in [
        "matched               yes",
        "job Requirements      true",
        "machine Requirements  true",
        "job Rank              900",
        "machine Rank          1",
    ] {
        assert!(out.contains(line), "missing `{line}` in\n{out}");
    }
    // No match: the outcome is still printed, and the exit status is 1.
    let out = cosched(&["classad", "match", job, cloud]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("matched               no"), "{text}");
    assert!(text.contains("job Requirements      false"), "{text}");
    assert!(out.stderr.is_empty());
}

#[test]
fn match_against_a_file_of_machines_succeeds_if_any_matches() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("status.txt");
    std::fs::write(
        &path,
        "Name = \"slot1@small\"\nMemory = 512\nRequirements = true\n\nName = \"slot1@big\"\nMemory = 8192\nRequirements = true\n",
    )
    .unwrap();
    let machines = format!("@{}", path.display());
    let job = "[ Requirements = TARGET.Memory >= 1024 ]";
    let out = stdout(&["classad", "match", job, &machines]);
    assert!(
        out.contains("slot1@small\nmatched               no"),
        "{out}"
    );
    assert!(
        out.contains("slot1@big\nmatched               yes"),
        "{out}"
    );
    let out = cosched(&["classad", "match", "[ Requirements = false ]", &machines]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn expressions_may_begin_with_a_minus() {
    assert_eq!(eval("-1.0/0", &[]), "real(\"-INF\")");
    assert_eq!(eval("-2 * 3", &["--old-syntax"]), "-6");
}

#[test]
fn unknown_functions_warn_with_their_position() {
    let out = cosched(&[
        "classad",
        "eval",
        "stringListMembr(\"a\", \"a,b\") || regexp(\"a\", \"a\")",
    ]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "error");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown function `stringListMembr` at line 1, column 1 of the expression"),
        "{err}"
    );
    let out = cosched(&[
        "classad",
        "match",
        "[ Requirements = TARGET.Memory > 0 && isCloudy(TARGET) ]",
        "[ Requirements = true; Memory = 1 ]",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown function `isCloudy` in attribute Requirements of the job ad"),
        "{err}"
    );
}

#[test]
fn functions_htcondor_has_but_we_lack_are_named_as_such() {
    let out = cosched(&["classad", "eval", "userHome(\"alice\")"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("`userHome`") && err.contains("HTCondor's but not provided here"),
        "{err}"
    );
    assert_eq!(eval("random(10) < 10", &["--seed", "3"]), "true");
}

#[test]
fn hostile_ads_evaluate_or_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let doubling = |combine: &str, leaf: &str| {
        let attrs: String = (0..40)
            .map(|i| format!("a{i} = {}; ", combine.replace('X', &format!("a{}", i + 1))))
            .collect();
        format!("[ {attrs}a40 = {leaf} ]")
    };
    let sum = dir.path().join("sum.ad");
    std::fs::write(&sum, doubling("X + X", "1")).unwrap();
    assert_eq!(
        eval("a0", &["--my", &format!("@{}", sum.display())]),
        (1u64 << 40).to_string()
    );
    let cat = dir.path().join("cat.ad");
    std::fs::write(&cat, doubling("strcat(X, X)", "\"x\"")).unwrap();
    let e = error_line(&[
        "classad",
        "eval",
        "a0",
        "--my",
        &format!("@{}", cat.display()),
    ]);
    assert!(e.contains("exceeded its budget"), "{e}");
}

#[test]
fn time_uses_the_given_clock() {
    assert_eq!(eval("time()", &["--now", "1700000000"]), "1700000000");
    assert_eq!(
        eval("formatTime(CurrentTime, \"%F\")", &["--now", "86400"]),
        "\"1970-01-02\""
    );
}

#[test]
fn parse_errors_give_one_line_with_the_position() {
    let e = error_line(&["classad", "eval", "Memory >= && true"]);
    assert_eq!(
        e,
        "error: expression: line 1, column 11 (byte 10): expected an expression, found `&&`"
    );
    let e = error_line(&["classad", "eval", "1", "--my", "[ a = 1; b = ]"]);
    assert!(
        e.starts_with("error: --my ad: line 1, column 14 (byte 13): expected an expression"),
        "{e}"
    );
    let e = error_line(&[
        "classad",
        "match",
        "[ Requirements = true ]",
        "[ Memory = 017 ]",
    ]);
    assert!(
        e.contains("machine ad") && e.contains("leading zeros"),
        "{e}"
    );
    let e = error_line(&["classad", "eval", "{1, 2"]);
    assert!(e.contains("expected `,` or `}` in a list"), "{e}");
    assert_eq!(eval("member(2, {1, 2})", &[]), "true");
    let e = error_line(&["classad", "eval", "1", "--target", "@/no/such.ad"]);
    assert!(e.contains("/no/such.ad"), "{e}");
}

/// Output to a full disk is one error line and exit 1, not a panic.
#[test]
fn a_full_disk_is_an_error_not_a_panic() {
    for args in [
        &["classad", "eval", "1"][..],
        &[
            "classad",
            "match",
            "[ Requirements = true ]",
            "[ Requirements = true ]",
        ],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_cosched"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.starts_with("error: cannot write"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// `-long` input that is one endless line (`/dev/zero`) is an error naming line 1.
#[test]
fn an_endless_line_of_ads_is_an_error() {
    let e = error_line(&["classad", "eval", "1", "--my", "@/dev/zero"]);
    assert!(e.contains("line 1: longer than"), "{e}");
}
