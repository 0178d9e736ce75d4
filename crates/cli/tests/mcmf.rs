//! `cosched mcmf` end to end: the output lines, and one `error: FILE:LINE: …` on bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../flow/tests/data")
        .join(name)
}

/// Runs `cosched mcmf --dimacs FILE EXTRA...`, expects success, returns the stdout lines.
fn mcmf_lines(file: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["mcmf", "--dimacs", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = cosched(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let time = lines.last().expect("a time line");
    let seconds = time
        .strip_prefix("time ")
        .and_then(|t| t.strip_suffix(" s"))
        .unwrap_or_else(|| panic!("bad time line `{time}`"));
    assert!(seconds.parse::<f64>().is_ok_and(|s| s >= 0.0), "{time}");
    lines[..lines.len() - 1].to_vec()
}

/// Writes `text` to a temporary `.min` file.
fn temp_problem(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn solves_the_fixtures_with_every_pivot_rule() {
    for rule in ["block-search", "first-eligible", "best-eligible"] {
        assert_eq!(
            mcmf_lines(&fixture("transport.min"), &["--pivot", rule]),
            ["status optimal", "cost 16", "flow 5"]
        );
        assert_eq!(
            mcmf_lines(&fixture("lower_bounds.min"), &["--pivot", rule]),
            ["status optimal", "cost -12", "flow 2"]
        );
    }
}

#[test]
fn reports_infeasible_and_unbounded_problems() {
    let dir = tempfile::tempdir().unwrap();
    let infeasible = temp_problem(&dir, "inf.min", "p min 2 1\nn 1 2\nn 2 -2\na 1 2 0 1 0\n");
    assert_eq!(mcmf_lines(&infeasible, &[]), ["status infeasible"]);
    let unbounded = temp_problem(
        &dir,
        "unb.min",
        "p min 2 2\na 1 2 0 9223372036854775807 -1\na 2 1 0 9223372036854775807 0\n",
    );
    assert_eq!(mcmf_lines(&unbounded, &[]), ["status unbounded"]);
}

/// Runs a failing `mcmf` and returns its single stderr line.
fn error_line(args: &[&str], code: i32) -> String {
    let out = cosched(args);
    assert_eq!(out.status.code(), Some(code));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        err.starts_with("error: ") && !err.contains("panicked"),
        "{err}"
    );
    if code == 1 {
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    err.lines().next().unwrap().to_string()
}

#[test]
fn malformed_input_gives_one_error_line_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = temp_problem(&dir, "bad.min", "c fine\np min 2 1\na 1 3 0 1 1\n");
    let err = error_line(&["mcmf", "--dimacs", bad.to_str().unwrap()], 1);
    assert_eq!(
        err,
        format!("error: {}:3: node 3 is out of range 1..=2", bad.display())
    );

    let short = temp_problem(&dir, "short.min", "p min 2 2\na 1 2 0 1 1\n");
    let err = error_line(&["mcmf", "--dimacs", short.to_str().unwrap()], 1);
    assert!(
        err.ends_with("short.min:2: 1 arcs, but the problem line announced 2"),
        "{err}"
    );

    let missing = error_line(&["mcmf", "--dimacs", "/no/such.min"], 1);
    assert!(missing.starts_with("error: /no/such.min: "), "{missing}");

    let range = temp_problem(
        &dir,
        "range.min",
        "p min 2 1\na 1 2 0 1 4611686018427387904\n",
    );
    let err = error_line(&["mcmf", "--dimacs", range.to_str().unwrap()], 1);
    assert!(err.contains("range.min: arc 0: cost"), "{err}");

    let pivot = error_line(
        &[
            "mcmf",
            "--dimacs",
            bad.to_str().unwrap(),
            "--pivot",
            "dantzig",
        ],
        2,
    );
    assert!(pivot.contains("dantzig"), "{pivot}");
}

/// Hostile input #5: `p min 67108864 0` (17 bytes) is one error line, not a 2 GB allocation.
#[test]
fn a_tiny_file_declaring_millions_of_nodes_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("r.min");
    std::fs::write(&file, "p min 67108864 0\n").unwrap();
    let out = cosched(&["mcmf", "--dimacs", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: ") && err.contains("r.min:1") && err.contains("17-byte file"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Binary garbage (a long line without a newline, or bytes that are not UTF-8) is refused
/// when its first line is read, not after the whole input fills memory.
#[test]
fn garbage_is_refused_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let zeros = dir.path().join("zeros.min");
    std::fs::write(&zeros, vec![0u8; 1 << 20]).unwrap();
    let binary = dir.path().join("binary.min");
    std::fs::write(&binary, b"p min 2 0\n\xff\xfe\n").unwrap();
    for (file, expected) in [
        (&zeros, "line 1 is longer"),
        (&binary, "line 2 is not UTF-8"),
    ] {
        let out = cosched(&["mcmf", "--dimacs", file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("error: ") && err.contains(expected),
            "{err}"
        );
    }
}
