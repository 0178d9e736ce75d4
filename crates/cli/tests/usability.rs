//! The first hour with `cosched`: completions, examples and metric definitions in `--help`,
//! a trace on standard input, warnings a reader of the results needs, and figures as files.

#[path = "support/common.rs"]
mod common;

use common::{cosched, sdsc, text, tiny_trace};
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    child.wait_with_output().expect("it ends")
}

#[test]
fn completions_for_every_shell() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef cosched"),
        ("fish", "complete -c cosched"),
        ("elvish", "cosched"),
        ("powershell", "cosched"),
    ] {
        let out = cosched(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(
            script.contains("simulate") && script.contains("gantt-window"),
            "{shell}"
        );
    }
    let out = cosched(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn help_shows_examples_and_defines_the_metrics() {
    let top = text(&cosched(&["--help"]).stdout);
    assert!(
        top.contains("Examples:") && top.contains("cosched completions bash"),
        "{top}"
    );
    let simulate = text(&cosched(&["simulate", "--help"]).stdout);
    for needle in [
        "Examples:",
        "--trace -",
        "tau = 10 s",
        "type 8",
        "utilization       busy unit-seconds",
        "--gantt-window",
    ] {
        assert!(
            simulate.contains(needle),
            "missing `{needle}` in\n{simulate}"
        );
    }
    for command in ["generate", "convert", "experiment"] {
        let help = text(&cosched(&[command, "--help"]).stdout);
        assert!(help.contains("Examples:"), "{command}: {help}");
    }
    let long = text(&cosched(&["experiment", "--help"]).stdout);
    assert!(
        long.contains("segments = 4") && long.contains("--resume"),
        "{long}"
    );
}

#[test]
fn a_trace_on_standard_input_plain_or_gzip() {
    let plain = std::fs::read(tiny_trace()).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).unwrap();
    let gz = gz.finish().unwrap();
    let from_file = cosched(&[
        "simulate",
        "--trace",
        tiny_trace().to_str().unwrap(),
        "--policy",
        "easy",
    ]);
    assert!(from_file.status.success());
    let file_summary = text(&from_file.stdout);
    for input in [plain, gz] {
        let out = with_stdin(&["simulate", "--trace", "-", "--policy", "easy"], &input);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let summary = text(&out.stdout);
        assert!(summary.starts_with("trace            -\n"), "{summary}");
        // Everything but the trace's name and the timing is the file's.
        let figures = |s: &str| -> Vec<String> {
            s.lines()
                .filter(|l| !l.starts_with("trace") && !l.starts_with("simulation time"))
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(figures(&summary), figures(&file_summary));
    }
    // A Batsim workload on stdin is recognised by its content too.
    let json = br#"{"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "walltime": 10, "res": 2, "profile": "p"}],
        "profiles": {"p": {"type": "delay", "delay": 5}}}"#;
    let out = with_stdin(&["simulate", "--trace", "-", "--policy", "fcfs"], json);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("capacity         4 units"));
}

#[test]
fn the_table_counts_rejected_jobs_and_warns_about_capacity_and_estimates() {
    // tiny.swf: MaxProcs 128, a 128-unit job; 64 units reject it.
    let out = cosched(&[
        "simulate",
        "--trace",
        tiny_trace().to_str().unwrap(),
        "--policy",
        "easy,fcfs",
        "--capacity",
        "64",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: capacity 64 is below the trace's MaxProcs 128"),
        "{err}"
    );
    assert!(
        err.contains("1 of 8 jobs are wider than the capacity 64 (widest 128 units)"),
        "{err}"
    );
    assert!(err.contains("have no estimate of their own"), "{err}");
    let table = text(&out.stdout);
    let header = table.lines().nth(1).unwrap();
    assert!(header.contains("jobs rejected"), "{table}");
    let easy = table.lines().find(|l| l.starts_with("easy")).unwrap();
    let cells: Vec<&str> = easy.split_whitespace().collect();
    assert_eq!(&cells[..3], ["easy", "8", "1"], "{table}");
    // At the trace's own capacity nothing is rejected and no capacity warning is printed.
    let out = cosched(&[
        "simulate",
        "--trace",
        tiny_trace().to_str().unwrap(),
        "--policy",
        "easy",
    ]);
    assert!(
        !text(&out.stderr).contains("capacity"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn figures_are_svg_and_png_and_the_gantt_window_says_what_it_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    let plots = dir.path().join("plots");
    let trace = sdsc();
    let out = cosched(&[
        "simulate",
        "--trace",
        trace.to_str().unwrap(),
        "--policy",
        "easy,fcfs",
        "--plots",
        plots.to_str().unwrap(),
        "--gantt-window",
        "2d:4d",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for stem in [
        "utilization",
        "queue",
        "wait_cdf",
        "gantt_easy",
        "gantt_fcfs",
    ] {
        let svg = std::fs::read_to_string(plots.join(format!("{stem}.svg"))).unwrap();
        assert!(svg.len() < 400_000, "{stem}.svg is {} bytes", svg.len());
        let png = std::fs::read(plots.join(format!("{stem}.png"))).unwrap();
        assert_eq!(&png[1..4], b"PNG", "{stem}");
    }
    let gantt = std::fs::read_to_string(plots.join("gantt_easy.svg")).unwrap();
    assert!(
        gantt.contains("of 4606 jobs: those running in hours 48-96"),
        "window note"
    );
    let cdf = std::fs::read_to_string(plots.join("wait_cdf.svg")).unwrap();
    assert!(
        cdf.contains("% at once)"),
        "the zero-wait share is in the legend"
    );
    let bad = cosched(&[
        "simulate",
        "--trace",
        trace.to_str().unwrap(),
        "--policy",
        "easy",
        "--plots",
        plots.to_str().unwrap(),
        "--gantt-window",
        "4d:2d",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("must end after it starts"));
}
