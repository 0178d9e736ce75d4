//! `cosched albatross decide` end to end on a realistic pool's `condor_status -long` /
//! `condor_q -long` output (`crates/albatross/tests/fixtures/pool/`, 7 slots with an idle
//! annex node, 7 jobs of which 4 idle; its "now" is 1700003600).
//!
//! The checks are about the command (its output, its state file with the stall timer across
//! calls, its errors and when it commits); the driver under it is `cosched-htcondor`'s, whose
//! tests cover reading the pool, dispatch detection and booting nodes.

use std::path::{Path, PathBuf};
use std::process::Command;

const NOW: i64 = 1_700_003_600;

fn pool(file: &str) -> String {
    format!(
        "{}/../albatross/tests/fixtures/pool/{file}",
        env!("CARGO_MANIFEST_DIR")
    )
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn decide_with(status: &str, state: &Path, capital: &str, now: i64) -> Run {
    decide_from(status, &pool("condor_q_long.txt"), state, capital, now)
}

fn decide_from(status: &str, queue: &str, state: &Path, capital: &str, now: i64) -> Run {
    // The tests' own threshold: the library's default (Fig. 1's lag) is 4,500 s.
    decide_args(
        status,
        queue,
        state,
        capital,
        now,
        &["--stall-threshold", "300"],
    )
}

fn decide_args(
    status: &str,
    queue: &str,
    state: &Path,
    capital: &str,
    now: i64,
    extra: &[&str],
) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["albatross", "decide", "--status", status, "--queue", queue])
        .arg("--state")
        .arg(state)
        .args(["--capital", capital, "--now", &now.to_string()])
        .args(extra)
        .output()
        .expect("the binary runs");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn decide(state: &Path, capital: &str, now: i64) -> Run {
    let run = decide_with(&pool("condor_status_long.txt"), state, capital, now);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run
}

fn starts(run: &Run) -> Vec<&str> {
    run.stdout
        .lines()
        .filter(|l| l.starts_with("start "))
        .collect()
}

fn state_file(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("albatross.json")
}

/// The pool's `condor_status -long` without its annex (cloud) node, written into `dir`.
fn pool_without_annex(dir: &tempfile::TempDir) -> String {
    let text = std::fs::read_to_string(pool("condor_status_long.txt")).unwrap();
    let kept: Vec<&str> = text
        .split("\n\n")
        .filter(|ad| !ad.contains("AnnexName"))
        .collect();
    let path = dir.path().join("status_no_annex.txt");
    std::fs::write(&path, kept.join("\n\n")).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn a_stall_across_calls_starts_nodes_once() {
    let dir = tempfile::tempdir().unwrap();
    let state = state_file(&dir);
    // First call: the timer starts now; nothing to start yet.
    let first = decide(&state, "0.5", NOW);
    assert!(
        first
            .stdout
            .contains("7 slots, 7 jobs (4 waiting), 0 dispatched"),
        "{}",
        first.stdout
    );
    assert!(first.stdout.contains("1 up, 0 booting"), "{}", first.stdout);
    assert!(starts(&first).is_empty(), "{}", first.stdout);
    assert!(state.exists());
    // 300 s later (the default stall threshold), nothing dispatched, jobs still waiting: a
    // stall, but the annex node already up is the capital's one cloud node, so nothing more
    // starts.
    let second = decide(&state, "0.5", NOW + 300);
    assert!(
        second.stdout.contains("no dispatch for 300 s"),
        "{}",
        second.stdout
    );
    assert!(starts(&second).is_empty(), "{}", second.stdout);
    // The annex node has gone: the stall starts one node.
    let status = pool_without_annex(&dir);
    let third = decide_with(&status, &state, "0.5", NOW + 400);
    assert_eq!(third.code, Some(0), "{}", third.stderr);
    assert!(third.stdout.contains("0 up, 0 booting"), "{}", third.stdout);
    assert_eq!(starts(&third).len(), 1, "{}", third.stdout);
    assert!(
        starts(&third)[0].contains("count=1 lifetime="),
        "{}",
        third.stdout
    );
    // The requested node is booting: no second start while it boots.
    let fourth = decide_with(&status, &state, "0.5", NOW + 700);
    assert!(fourth.stdout.contains("1 booting"), "{}", fourth.stdout);
    assert!(starts(&fourth).is_empty(), "{}", fourth.stdout);
    // Stops name the annex machine, never a desktop.
    for run in [&first, &second, &third, &fourth] {
        for line in run.stdout.lines().filter(|l| l.starts_with("stop ")) {
            assert_eq!(line, "stop ip-10-0-3-17.ec2.internal");
        }
    }
}

#[test]
fn dispatches_since_the_previous_call_restart_the_timer() {
    let dir = tempfile::tempdir().unwrap();
    let state = state_file(&dir);
    // The previous call ran before job 101.1 started (at NOW - 120), with the timer long
    // expired, and saw job 99.0 idle, which has since left the queue.
    std::fs::write(
        &state,
        format!(
            r#"{{ "last_call": {}, "timer_start": {}, "idle_jobs": ["99.0", "102.0"], "nodes": {{}}, "booting": [], "next_node": 0 }}"#,
            NOW - 300,
            NOW - 5000
        ),
    )
    .unwrap();
    let run = decide(&state, "0.5", NOW);
    assert!(
        run.stdout.contains("2 dispatched since the previous call"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("no dispatch for 0 s"), "{}", run.stdout);
    assert!(starts(&run).is_empty(), "{}", run.stdout);
}

#[test]
fn bad_inputs_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let state = state_file(&dir);
    let status = pool("condor_status_long.txt");
    let error = |run: Run| {
        assert_eq!(run.code, Some(1), "{}", run.stdout);
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        run.stderr
    };
    assert!(error(decide_with(&status, &state, "1.5", NOW)).contains("capital"));
    let broken = dir.path().join("status.txt");
    std::fs::write(&broken, "Name = \"slot1@a\"\nMemory = 1 +\n").unwrap();
    let e = error(decide_with(broken.to_str().unwrap(), &state, "0.5", NOW));
    assert!(e.contains("status.txt") && e.contains("line 2"), "{e}");
    std::fs::write(&state, "not json").unwrap();
    let e = error(decide_with(&status, &state, "0.5", NOW));
    assert!(e.contains("not an albatross state file"), "{e}");
    std::fs::write(&state, r#"{ "last_call": 1700009999 }"#).unwrap();
    let e = error(decide_with(&status, &state, "0.5", NOW));
    assert!(e.contains("before the previous call"), "{e}");
    let e = error(decide_with(&status, &state, "0.5", i64::MAX));
    assert!(e.contains("out of range"), "{e}");
}

/// The state as the previous call left it, or `None` before the first call.
fn read(state: &Path) -> Option<String> {
    std::fs::read_to_string(state).ok()
}

/// A call whose output cannot be delivered (`> /dev/full`) reports one error line
/// and commits nothing: the next call sees the pool as if the failed call never ran, and
/// makes the same start.
#[test]
fn a_decision_is_committed_only_once_delivered() {
    let dir = tempfile::tempdir().unwrap();
    let state = state_file(&dir);
    let status = pool_without_annex(&dir);
    let first = decide_with(&status, &state, "0.5", NOW);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let before = read(&state);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let later = (NOW + 3600).to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(["albatross", "decide", "--status", &status])
        .args(["--queue", &pool("condor_q_long.txt"), "--capital", "0.5"])
        .arg("--state")
        .arg(&state)
        .args(["--now", &later])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("error: cannot write") && !err.contains("panicked"),
        "{err}"
    );
    assert_eq!(read(&state), before, "the state is unchanged");
    let retry = decide_with(&status, &state, "0.5", NOW + 3600);
    assert_eq!(retry.code, Some(0), "{}", retry.stderr);
    assert_eq!(starts(&retry).len(), 1, "{}", retry.stdout);
}

/// The stall threshold's default is the library's, not a second literal.
#[test]
fn the_default_stall_threshold_is_the_librarys() {
    let dir = tempfile::tempdir().unwrap();
    let run = decide_args(
        &pool("condor_status_long.txt"),
        &pool("condor_q_long.txt"),
        &state_file(&dir),
        "0.5",
        NOW,
        &[],
    );
    let expected = format!(
        "stall threshold {} s",
        cosched_albatross::policy::STALL_THRESHOLD.secs()
    );
    assert!(run.stdout.contains(&expected), "{}", run.stdout);
}
