//! The `cosched` binary end to end: outputs, and one clear error line on bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn tiny_trace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/tiny.swf")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn simulate_prints_a_summary_and_writes_csv_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, json) = (dir.path().join("jobs.csv"), dir.path().join("report.json"));
    let out = cosched(&[
        "simulate",
        "--trace",
        tiny_trace().to_str().unwrap(),
        "--capacity",
        "64",
        "--policy",
        "easy",
        "--jobs-csv",
        csv.to_str().unwrap(),
        "--report",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = String::from_utf8(out.stdout).unwrap();
    for line in [
        "jobs             8 (7 completed)",
        "rejected         1",
        "invalid          2",
    ] {
        assert!(summary.contains(line), "missing `{line}` in\n{summary}");
    }
    assert!(summary.contains("jobs/s"));
    let csv = std::fs::read_to_string(csv).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("job_id,submit,start,end,size"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 8, "one row per valid job");
    assert!(
        rows.contains(&"7,200,-1,-1,128"),
        "the rejected job has start = end = -1"
    );
    assert!(
        rows.contains(&"2,30,30,280,8"),
        "size from allocated, estimate from run time"
    );
    let json = std::fs::read_to_string(json).unwrap();
    assert!(json.contains("\"rejected\": 1") && json.contains("\"per_class\""));
}

#[test]
fn simulate_takes_the_capacity_from_max_procs() {
    let out = cosched(&[
        "simulate",
        "--trace",
        tiny_trace().to_str().unwrap(),
        "--policy",
        "fcfs",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(summary.contains("capacity         128 units"));
    assert!(summary.contains("rejected         0"));
}

/// `simulate --trace TRACE --policy POLICY EXTRA...`, as owned arguments.
fn simulate_args(trace: &Path, policy: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "simulate",
        "--trace",
        trace.to_str().unwrap(),
        "--policy",
        policy,
    ];
    args.extend_from_slice(extra);
    args.into_iter().map(str::to_owned).collect()
}

/// Runs a failing `simulate` and returns its single error line.
fn simulate_error(trace: &Path, policy: &str, extra: &[&str], code: i32) -> String {
    let args = simulate_args(trace, policy, extra);
    error_line(&args.iter().map(String::as_str).collect::<Vec<_>>(), code)
}

/// Runs a failing command and returns its single error line.
fn error_line(args: &[&str], code: i32) -> String {
    let out = cosched(args);
    assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.starts_with("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err.lines().next().unwrap().to_string()
}

#[test]
fn bad_input_gives_one_clear_line() {
    let missing = simulate_error(Path::new("/no/such.swf"), "easy", &[], 1);
    assert!(missing.contains("/no/such.swf"), "{missing}");

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.swf");
    std::fs::write(&bad, "; MaxProcs: 8\n1 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n2 5 -1 ten 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n").unwrap();
    let malformed = simulate_error(&bad, "easy", &[], 1);
    assert!(
        malformed.contains("bad.swf:3") && malformed.contains("run time"),
        "{malformed}"
    );

    let zero = simulate_error(&tiny_trace(), "easy", &["--capacity", "0"], 1);
    assert!(zero.contains("capacity"), "{zero}");

    let policy = simulate_error(&tiny_trace(), "sjf", &[], 2);
    assert!(policy.contains("sjf"), "{policy}");

    let no_max_procs = dir.path().join("nomax.swf");
    std::fs::write(
        &no_max_procs,
        "1 0 -1 10 1 -1 -1 1 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let no_capacity = simulate_error(&no_max_procs, "easy", &[], 1);
    assert!(no_capacity.contains("MaxProcs"), "{no_capacity}");
}

#[test]
fn generate_writes_a_valid_reproducible_trace() {
    let args = [
        "generate",
        "lublin",
        "--jobs",
        "500",
        "--capacity",
        "64",
        "--seed",
        "9",
    ];
    let a = cosched(&args);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(a.stdout, cosched(&args).stdout, "same seed, same trace");
    let text = String::from_utf8(a.stdout).unwrap();
    assert!(text.contains("; MaxProcs: 64"));
    let jobs: Vec<&str> = text.lines().filter(|l| !l.starts_with(';')).collect();
    assert_eq!(jobs.len(), 500);
    assert!(jobs.iter().all(|l| l.split_whitespace().count() == 18));
    let other = cosched(&[
        "generate",
        "lublin",
        "--jobs",
        "500",
        "--capacity",
        "64",
        "--seed",
        "10",
    ]);
    assert_ne!(text.as_bytes(), &other.stdout[..]);
    let bad = error_line(&["generate", "lublin", "--jobs", "5", "--capacity", "0"], 1);
    assert!(bad.contains("capacity"), "{bad}");
}
