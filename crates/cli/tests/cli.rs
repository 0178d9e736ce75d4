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
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../workload/tests/data/tiny.swf")
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
        rows.contains(&"7,200,,,128"),
        "the rejected job has an empty start and end"
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

    let policy = simulate_error(&tiny_trace(), "lottery", &[], 2);
    assert!(
        policy.contains("lottery") && policy.contains("wfp3"),
        "{policy}"
    );

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

/// Hostile input #14a: an estimate bound that overflows i64 seconds is a typed error, not a
/// wrapped `MaxRuntime`.
#[test]
fn generate_rejects_an_overflowing_estimate_bound() {
    let line = error_line(
        &[
            "generate",
            "lublin",
            "--jobs",
            "10",
            "--capacity",
            "16",
            "--max-estimate-hours",
            "5124095576030433",
        ],
        1,
    );
    assert!(
        line.contains("max-estimate-hours") && line.contains("5124095576030433"),
        "{line}"
    );
}

/// `generate` writes in blocks: more jobs than one block still gives exactly `--jobs` lines,
/// ids in order, every estimate covering its runtime.
#[test]
fn generate_streams_across_blocks() {
    let out = cosched(&["generate", "lublin", "--jobs", "100005", "--capacity", "32"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let jobs: Vec<Vec<i64>> = text
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(|l| l.split(' ').map(|f| f.parse().unwrap()).collect())
        .collect();
    assert_eq!(jobs.len(), 100_005);
    assert!(jobs.iter().enumerate().all(|(i, j)| j[0] == i as i64 + 1));
    assert!(jobs.iter().all(|j| j[3] <= j[8]));
    assert!(jobs.windows(2).all(|w| w[0][1] <= w[1][1]));
}

/// Hostile input #14b and #14c: a job that never ran has an empty start and end (a real start
/// may be t = -1), and a `; MaxProcs:` line after the first job changes nothing but warns with
/// its line.
#[test]
fn never_is_empty_and_late_max_procs_warns() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("mid.swf");
    std::fs::write(
        &trace,
        "; MaxProcs: 16\n1 -10 -1 9 16 -1 -1 16 9 -1 1 1 1 1 1 1 -1 -1\n\
         ; MaxProcs: 2\n2 -2 -1 100 16 -1 -1 16 100 -1 1 1 1 1 1 1 -1 -1\n\
         3 0 -1 100 32 -1 -1 32 100 -1 1 1 1 1 1 1 -1 -1\n",
    )
    .unwrap();
    let csv = dir.path().join("jobs.csv");
    let out = cosched(
        &simulate_args(&trace, "easy", &["--jobs-csv", csv.to_str().unwrap()])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("capacity         16 units"));
    let warning = stderr(&out);
    assert!(
        warning.starts_with("warning: ")
            && warning.contains("mid.swf:3")
            && warning.contains("MaxProcs"),
        "{warning}"
    );
    let csv = std::fs::read_to_string(csv).unwrap();
    assert_eq!(
        csv,
        "job_id,submit,start,end,size\n1,-10,-10,-1,16\n2,-2,-1,99,16\n3,0,,,32\n"
    );
}

/// Hostile input #6: a trace of nothing but comments (here 20 MB on stdin) reads in bounded
/// memory, and a repeated job id stops the read at its line.
#[test]
fn endless_comments_and_duplicate_ids() {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args([
            "simulate",
            "--trace",
            "/dev/stdin",
            "--policy",
            "easy",
            "--capacity",
            "16",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let chunk = "; Note: hello\n".repeat(10_000);
    for _ in 0..150 {
        stdin.write_all(chunk.as_bytes()).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("jobs             0"));

    let dir = tempfile::tempdir().unwrap();
    let dup = dir.path().join("dup.swf");
    std::fs::write(
        &dup,
        "; MaxProcs: 4\n1 0 -1 5 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1\n1 3 -1 5 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1\n",
    )
    .unwrap();
    let line = simulate_error(&dup, "fcfs", &[], 1);
    assert!(
        line.contains("dup.swf:3") && line.contains("job 1"),
        "{line}"
    );
}

/// The contract: `--policy easy,fcfs,conservative --out DIR` writes `DIR/P_jobs.csv`
/// with Batsim's `_jobs.csv` header and `DIR/summary.csv` starting with the six agreed columns.
#[test]
fn simulate_compares_policies_into_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let plots = dir.path().join("plots");
    let out = cosched(&[
        "simulate",
        "--trace",
        tiny_trace().to_str().unwrap(),
        "--capacity",
        "64",
        "--policy",
        "easy,fcfs,conservative",
        "--out",
        out_dir.to_str().unwrap(),
        "--plots",
        plots.to_str().unwrap(),
        "--resolution",
        "600",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    for policy in ["easy", "fcfs", "conservative"] {
        assert!(table.contains(policy), "{table}");
        let jobs = std::fs::read_to_string(out_dir.join(format!("{policy}_jobs.csv"))).unwrap();
        let mut lines = jobs.lines();
        assert_eq!(
            lines.next(),
            Some(
                "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy"
            )
        );
        let rows: Vec<&str> = lines.collect();
        assert_eq!(rows.len(), 8, "{jobs}");
        assert!(
            rows.iter()
                .any(|r| r.starts_with("7,tiny,") && r.contains(",REJECTED,"))
        );
        assert!(plots.join(format!("gantt_{policy}.svg")).exists());
    }
    let summary = std::fs::read_to_string(out_dir.join("summary.csv")).unwrap();
    assert!(
        summary
            .starts_with("policy,jobs,mean_wait_s,mean_bounded_slowdown,utilization,makespan_s,")
    );
    assert_eq!(summary.lines().count(), 4);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["capacity_source"], "--capacity");
    assert_eq!(report["trace"]["format"], "swf");
    assert_eq!(report["trace"]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(report["runs"].as_array().unwrap().len(), 3);
    assert_eq!(report["runs"][0]["timeseries"]["resolution_s"], 600);
    let reasons = report["trace"]["invalid_by_reason"].as_object().unwrap();
    assert_eq!(
        reasons.values().map(|v| v.as_u64().unwrap()).sum::<u64>(),
        2
    );
    for svg in ["utilization.svg", "queue.svg", "wait_cdf.svg"] {
        assert!(plots.join(svg).exists(), "{svg}");
    }
    let series = std::fs::read_to_string(out_dir.join("timeseries.csv")).unwrap();
    assert!(series.starts_with("policy,time_s,utilization,queue_jobs,running_jobs\n"));
}

#[test]
fn outputs_are_checked_before_simulating_and_invalid_records_listed() {
    let dir = tempfile::tempdir().unwrap();
    let line = error_line(
        &[
            "simulate",
            "--trace",
            "/dev/zero",
            "--policy",
            "easy",
            "--report",
            "/no/such/dir/report.json",
        ],
        1,
    );
    assert!(line.contains("/no/such/dir/report.json"), "{line}");
    // An endless line is an error naming the line, not an endless read.
    let line = error_line(
        &[
            "simulate",
            "--trace",
            "/dev/zero",
            "--policy",
            "easy",
            "--capacity",
            "16",
        ],
        1,
    );
    assert!(line.contains("/dev/zero:1"), "{line}");
    let invalid = dir.path().join("invalid.csv");
    let out = cosched(&[
        "simulate",
        "--trace",
        tiny_trace().to_str().unwrap(),
        "--policy",
        "easy",
        "--invalid-csv",
        invalid.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(invalid).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "line,job,reason");
    assert_eq!(lines.len(), 3, "{text}");
    assert!(text.contains("run time is missing"), "{text}");
}

/// lublin_256.swf (Parallel Workloads Archive) states `MaxNodes: 256` and no `MaxProcs`.
#[test]
fn capacity_falls_back_to_max_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("nodes.swf");
    std::fs::write(
        &trace,
        "; MaxNodes: 256\n1 0 -1 10 4 -1 -1 4 10 -1 1 -1 -1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    let out = cosched(&[
        "simulate",
        "--trace",
        trace.to_str().unwrap(),
        "--policy",
        "fcfs",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("capacity         256 units (from the trace's MaxNodes)"),
        "{text}"
    );
}

#[test]
fn convert_round_trips_through_batsim_json_and_simulates_it() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("tiny.json");
    let swf = dir.path().join("back.swf");
    let out = cosched(&[
        "convert",
        tiny_trace().to_str().unwrap(),
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = cosched(&["convert", json.to_str().unwrap(), swf.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = |trace: &Path| {
        let out = cosched(&[
            "simulate",
            "--trace",
            trace.to_str().unwrap(),
            "--policy",
            "easy",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines()
            .filter(|l| l.starts_with("mean wait") || l.starts_with("utilization"))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let original = summary(&tiny_trace());
    assert_eq!(summary(&json), original);
    assert_eq!(summary(&swf), original);
}

#[test]
fn generate_scales_to_a_load_and_ends_quietly_on_a_closed_pipe() {
    use std::io::Read as _;
    use std::process::Stdio;
    let out = cosched(&[
        "generate",
        "lublin",
        "--jobs",
        "3000",
        "--capacity",
        "128",
        "--load",
        "0.85",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.swf");
    std::fs::write(&trace, &out.stdout).unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("offered load 0.85"));
    // `generate … | head -c 100` ends quietly.
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args([
            "generate",
            "lublin",
            "--jobs",
            "1000000",
            "--capacity",
            "128",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 100];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut head)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

/// No binary of this crate prints to standard output unchecked. Every module is
/// scanned for `print!`/`println!`; all output goes through `output::stdout` (checked, one
/// `error:` line on failure) or a checked `write_all`.
#[test]
fn no_unchecked_prints_to_stdout() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // `balancer weeks` is checked apart.
    let others = ["balancer.rs"];
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if others.contains(&name.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            // `print!(` or `println!(` not preceded by a letter (`eprintln!` goes to stderr).
            let unchecked = ["print!(", "println!("].iter().any(|m| {
                code.match_indices(m).any(|(at, _)| {
                    !code[..at]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
                })
            });
            assert!(!unchecked, "{name}:{}: {line}", i + 1);
        }
    }
}

/// `cosched experiment`: a local run, and the same file as Slurm array tasks collected
/// afterwards, give the same summary byte for byte.
#[test]
fn experiment_runs_locally_and_as_array_tasks_alike() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("exp.toml");
    std::fs::write(
        &file,
        format!(
            "policies = [\"easy\", \"fcfs\"]\nloads = [0.5, 0.9]\nseeds = [1, 2]\n\
             [[trace]]\npath = \"{}\"\ncapacity = 128\n\
             [[generator]]\nmodel = \"lublin\"\njobs = 300\ncapacity = 64\n",
            tiny_trace().display()
        ),
    )
    .unwrap();
    let local = dir.path().join("local");
    let out = cosched(&[
        "experiment",
        file.to_str().unwrap(),
        "--out",
        local.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Seeds do not vary a trace: said so.
    assert!(
        stderr(&out).contains("do not vary the trace"),
        "{}",
        stderr(&out)
    );
    let runs = std::fs::read_to_string(local.join("runs.csv")).unwrap();
    assert!(runs.starts_with(
        "workload,capacity,load,seed,segment,policy,jobs,mean_wait_s,mean_bounded_slowdown,utilization,makespan_s,"
    ));
    // tiny: 2 loads x 2 policies; generator: 2 loads x 2 seeds x 2 policies.
    assert_eq!(runs.lines().count(), 1 + 4 + 8, "{runs}");
    // One row per cell (workload, capacity, load, policy): the generator's two seeds averaged.
    let summary = std::fs::read_to_string(local.join("summary.csv")).unwrap();
    assert!(summary.starts_with(
        "workload,capacity,load,policy,n,replicates,jobs,jobs_ci95,mean_wait_s,mean_wait_s_ci95,"
    ));
    assert_eq!(summary.lines().count(), 1 + 4 + 4, "{summary}");
    assert!(summary.contains(",easy,2,seeds,300,0,"), "{summary}");
    assert!(summary.contains(",easy,1,none,8,,"), "{summary}");
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains(" ± "), "{table}");
    assert!(table.contains("capacity"), "{table}");
    for ext in ["svg", "png"] {
        assert!(
            local
                .join(format!("plots/lublin_64_300_wait.{ext}"))
                .exists()
        );
    }

    let array = dir.path().join("array");
    let out = cosched(&[
        "experiment",
        file.to_str().unwrap(),
        "--out",
        array.to_str().unwrap(),
        "--slurm",
        "--no-submit",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = std::fs::read_to_string(array.join("slurm/experiment.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-5\n"), "{script}");
    assert!(
        script.contains("--task \"$SLURM_ARRAY_TASK_ID\""),
        "{script}"
    );
    let line = error_line(
        &[
            "experiment",
            file.to_str().unwrap(),
            "--out",
            array.to_str().unwrap(),
            "--collect",
        ],
        1,
    );
    assert!(line.contains("6 of 6 tasks have no results"), "{line}");
    for task in 0..6 {
        let out = cosched(&[
            "experiment",
            file.to_str().unwrap(),
            "--out",
            array.to_str().unwrap(),
            "--task",
            &task.to_string(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let out = cosched(&[
        "experiment",
        file.to_str().unwrap(),
        "--out",
        array.to_str().unwrap(),
        "--collect",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(array.join("summary.csv")).unwrap(),
        summary
    );
    assert_eq!(
        std::fs::read_to_string(array.join("runs.csv")).unwrap(),
        runs
    );

    std::fs::write(&file, "policies = [\"easy\"]\n").unwrap();
    let line = error_line(&["experiment", file.to_str().unwrap()], 1);
    assert!(line.contains("no [[trace]]"), "{line}");
    std::fs::write(
        &file,
        "policies = [\"easy\"]\nloads = [-1]\n[[trace]]\npath = \"x\"\n",
    )
    .unwrap();
    let line = error_line(&["experiment", file.to_str().unwrap()], 1);
    assert!(line.contains("load -1"), "{line}");
}
