//! Hostile and unusual inputs end to end: outputs that would destroy inputs or each other,
//! failed runs over earlier results, experiments with colliding names or shell-hostile
//! paths, and conversions that must not lose or invent information.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn cosched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cosched"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs a failing command and returns its single error line.
fn error_line(args: &[&str]) -> String {
    let out = cosched(args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.starts_with("error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err.lines().next().unwrap().to_string()
}

/// Runs `cosched simulate --trace TRACE --policy POLICY EXTRA...`.
fn simulate(trace: &str, policy: &str, extra: &[&str]) -> Output {
    let mut args = vec!["simulate", "--trace", trace, "--policy", policy];
    args.extend_from_slice(extra);
    cosched(&args)
}

/// Runs a failing `simulate` and returns its single error line.
fn simulate_error(trace: &str, policy: &str, extra: &[&str]) -> String {
    let mut args = vec!["simulate", "--trace", trace, "--policy", policy];
    args.extend_from_slice(extra);
    error_line(&args)
}

/// A 20-job SWF trace on 16 units (`MaxProcs` unless `capacity` is false).
fn trace(dir: &Path, name: &str, capacity: bool) -> PathBuf {
    jobs_trace(dir, name, capacity, (10, 4, 100))
}

/// 20 jobs, job `i` submitted at `i × gap` on `size` units, running `run + i` seconds (its
/// estimate 100 s more).
fn jobs_trace(
    dir: &Path,
    name: &str,
    capacity: bool,
    (gap, size, run): (i64, u32, i64),
) -> PathBuf {
    let mut text = String::from(if capacity { "; MaxProcs: 16\n" } else { "" });
    for i in 1..=20 {
        text.push_str(&format!(
            "{i} {} -1 {} {size} -1 -1 {size} {} -1 1 1 1 1 1 1 -1 -1\n",
            i * gap,
            run + i,
            run + 100 + i
        ));
    }
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

/// The fields of the SWF row of job `id` in `text`.
fn swf_row<'a>(text: &'a str, id: &str) -> Vec<&'a str> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.first() == Some(&id))
        .unwrap_or_else(|| panic!("no job {id} in {text}"))
}

/// Every file of `dir` with its text.
fn snapshot(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let text = String::from_utf8_lossy(&fs::read(&p).unwrap()).into_owned();
            (p, text)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn convert_refuses_to_write_over_its_input_however_it_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path(), "t.swf", true);
    let before = fs::read(&t).unwrap();
    let line = error_line(&["convert", s(&t), s(&t)]);
    assert!(line.contains("is also the input"), "{line}");
    assert_eq!(fs::read(&t).unwrap(), before, "the input is intact");

    // The same file through `..`, a symbolic link and a hard link.
    fs::create_dir(dir.path().join("sub")).unwrap();
    let dotdot = dir.path().join("sub/../t.swf");
    let link = dir.path().join("link.swf");
    std::os::unix::fs::symlink(&t, &link).unwrap();
    let hard = dir.path().join("hard.swf");
    fs::hard_link(&t, &hard).unwrap();
    for other in [&dotdot, &link, &hard] {
        let line = error_line(&["convert", s(&t), s(other)]);
        assert!(line.contains("is also the input"), "{line}");
        let line = error_line(&["convert", s(other), s(&t)]);
        assert!(line.contains("is also the input"), "{line}");
    }
    assert_eq!(fs::read(&t).unwrap(), before);

    let json = dir.path().join("w.json");
    let out = cosched(&["convert", s(&t), s(&json)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json_before = fs::read(&json).unwrap();
    let line = error_line(&["convert", s(&json), s(&json), "--to", "batsim"]);
    assert!(line.contains("is also the input"), "{line}");
    assert_eq!(fs::read(&json).unwrap(), json_before);
}

#[test]
fn albatross_refuses_a_state_file_that_is_a_pool_file() {
    let dir = tempfile::tempdir().unwrap();
    let (status, queue) = (dir.path().join("status.txt"), dir.path().join("queue.txt"));
    fs::write(&status, "MyType = \"Machine\"\n").unwrap();
    fs::write(&queue, "").unwrap();
    for (flag, file) in [("--status", &status), ("--queue", &queue)] {
        let before = fs::read(file).unwrap();
        let line = error_line(&[
            "albatross",
            "decide",
            "--status",
            s(&status),
            "--queue",
            s(&queue),
            "--state",
            s(&dir.path().join("sub/../").join(file.file_name().unwrap())),
            "--capital",
            "0.5",
        ]);
        assert!(
            line.contains("is also the input") && line.contains(flag),
            "{line}"
        );
        assert_eq!(fs::read(file).unwrap(), before, "{flag} is intact");
    }
}

#[test]
fn simulate_refuses_outputs_that_are_its_trace() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path(), "t.swf", false);
    let before = fs::read(&t).unwrap();
    let line = simulate_error(s(&t), "easy", &["--jobs-csv", s(&t)]);
    assert!(
        line.contains("--jobs-csv") && line.contains("--trace"),
        "{line}"
    );
    assert_eq!(fs::read(&t).unwrap(), before);

    // The trace is one of the files `--out D` writes.
    let d = dir.path().join("D");
    fs::create_dir(&d).unwrap();
    let inside = trace(&d, "easy_jobs.csv", true);
    let before = fs::read(&inside).unwrap();
    let line = simulate_error(s(&inside), "easy,fcfs", &["--out", s(&d)]);
    assert!(line.contains("--out") && line.contains("--trace"), "{line}");
    assert_eq!(fs::read(&inside).unwrap(), before);
    assert_eq!(snapshot(&d).len(), 1, "nothing else was written");
}

#[test]
fn a_failed_run_leaves_the_previous_results_intact() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path(), "t.swf", true);
    let keep = dir.path().join("keep");
    let plots = dir.path().join("plots");
    let single = dir.path().join("single.csv");
    let ok = |trace: &Path| {
        simulate(
            s(trace),
            "easy,fcfs",
            &["--out", s(&keep), "--plots", s(&plots)],
        )
    };
    let out = ok(&t);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = simulate(s(&t), "easy", &["--jobs-csv", s(&single)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (results, drawn, one) = (
        snapshot(&keep),
        snapshot(&plots),
        fs::read(&single).unwrap(),
    );
    assert!(results.iter().all(|(_, b)| !b.is_empty()));

    // A typo in the trace's name, then a trace the simulation refuses (no capacity).
    let line = simulate_error(
        s(&dir.path().join("t.swff")),
        "easy,fcfs",
        &["--out", s(&keep), "--plots", s(&plots)],
    );
    assert!(line.contains("t.swff"), "{line}");
    let nocap = trace(dir.path(), "nocap.swf", false);
    let out = ok(&nocap);
    assert_eq!(out.status.code(), Some(1));
    let line = simulate_error(s(&nocap), "easy", &["--jobs-csv", s(&single)]);
    assert!(line.contains("no --capacity"), "{line}");
    assert_eq!(snapshot(&keep), results);
    assert_eq!(snapshot(&plots), drawn);
    assert_eq!(fs::read(&single).unwrap(), one);

    // A failed conversion leaves the previous output too.
    let json = dir.path().join("w.json");
    let out = cosched(&["convert", s(&t), s(&json)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let converted = fs::read(&json).unwrap();
    let line = error_line(&["convert", s(&nocap), s(&json)]);
    assert!(line.contains("no --capacity"), "{line}");
    assert_eq!(fs::read(&json).unwrap(), converted);
    let leftovers: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn two_outputs_naming_one_file_are_refused_naming_both_flags() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path(), "t.swf", true);
    let f = dir.path().join("F");
    let line = simulate_error(s(&t), "easy", &["--jobs-csv", s(&f), "--report", s(&f)]);
    assert!(
        line.contains("--jobs-csv") && line.contains("--report"),
        "{line}"
    );
    assert!(!f.exists());
    let d = dir.path().join("D");
    for (flag, file) in [
        ("--jobs-csv", "easy_jobs.csv"),
        ("--report", "report.json"),
        ("--timeseries-csv", "timeseries.csv"),
        ("--invalid-csv", "summary.csv"),
    ] {
        let line = simulate_error(s(&t), "easy", &["--out", s(&d), flag, s(&d.join(file))]);
        assert!(line.contains("--out") && line.contains(flag), "{line}");
        assert!(line.contains(file), "{line}");
    }
    // Through a link to the same directory.
    fs::create_dir(&d).unwrap();
    let alias = dir.path().join("alias");
    std::os::unix::fs::symlink(&d, &alias).unwrap();
    let line = simulate_error(
        s(&t),
        "easy",
        &["--out", s(&d), "--report", s(&alias.join("report.json"))],
    );
    assert!(
        line.contains("--out") && line.contains("--report"),
        "{line}"
    );
    assert!(snapshot(&d).is_empty());
}

/// A catalogue policy whose name holds `/` (an order expression) names its files by its file
/// stem, in `--out` and in `--plots` alike, never a path into a subdirectory.
#[test]
fn policy_names_with_slashes_name_files_not_folders() {
    let dir = tempfile::tempdir().unwrap();
    let t = trace(dir.path(), "t.swf", true);
    let (out_dir, plots) = (dir.path().join("out"), dir.path().join("plots"));
    let out = simulate(
        s(&t),
        "expr(estimate/size)+easy,easy@exact",
        &["--out", s(&out_dir), "--plots", s(&plots)],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let names = |d: &Path| {
        let mut names: Vec<String> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        names(&out_dir),
        [
            "easy_exact_jobs.csv",
            "expr(estimate_size)+easy_jobs.csv",
            "report.json",
            "summary.csv",
            "timeseries.csv"
        ]
    );
    let plotted = names(&plots);
    for gantt in ["gantt_expr(estimate_size)+easy.svg", "gantt_easy_exact.svg"] {
        assert!(plotted.iter().any(|n| n == gantt), "{plotted:?}");
    }
    assert!(
        plots
            .join("gantt_expr(estimate")
            .symlink_metadata()
            .is_err()
    );
}

/// An experiment with two traces of one file stem in different folders.
#[test]
fn experiment_runs_of_traces_sharing_a_stem_have_distinct_keys() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["d1", "d2"] {
        fs::create_dir(dir.path().join(sub)).unwrap();
    }
    trace(&dir.path().join("d1"), "same.swf", true);
    jobs_trace(&dir.path().join("d2"), "same.swf", true, (7, 8, 300));
    let file = dir.path().join("e.toml");
    fs::write(
        &file,
        "policies = [\"easy\"]\nloads = [0.5, 0.9]\n\
         [[trace]]\npath = \"d1/same.swf\"\n[[trace]]\npath = \"d2/same.swf\"\n",
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = cosched(&["experiment", s(&file), "--out", s(&out_dir)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = fs::read_to_string(out_dir.join("summary.csv")).unwrap();
    let keys: Vec<String> = summary
        .lines()
        .skip(1)
        .map(|l| l.split(',').take(5).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(keys.len(), 4, "{summary}");
    let mut unique = keys.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 4, "duplicate keys in\n{summary}");
    assert!(summary.contains("d1/same.swf") && summary.contains("d2/same.swf"));
    let plots: Vec<String> = fs::read_dir(out_dir.join("plots"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        plots.len(),
        12,
        "three figures per trace, each SVG and PNG: {plots:?}"
    );

    // The same run twice (one trace listed twice, or a repeated load) is refused.
    fs::write(
        &file,
        "policies = [\"easy\"]\nloads = [0.5, 0.5]\n[[trace]]\npath = \"d1/same.swf\"\n",
    )
    .unwrap();
    let line = error_line(&["experiment", s(&file), "--out", s(&out_dir)]);
    assert!(line.contains("more than once"), "{line}");
    fs::write(
        &file,
        "policies = [\"easy\"]\n[[trace]]\npath = \"d1/same.swf\"\n\
         [[trace]]\npath = \"d2/../d1/same.swf\"\n",
    )
    .unwrap();
    let line = error_line(&["experiment", s(&file), "--out", s(&out_dir)]);
    assert!(line.contains("more than once"), "{line}");
}

/// The words sbatch reads from the rest of an `#SBATCH` line (Slurm's `src/sbatch/opt.c`,
/// `_get_argument`): whitespace separates them unless quoted with `'` or `"`, a backslash
/// takes the next character literally, and an unescaped `#` starts a comment.
fn sbatch_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut any) = (Vec::new(), String::new(), false);
    let (mut quote, mut escape) = (None, false);
    for c in line.chars() {
        if escape {
            escape = false;
        } else if c == '\\' {
            (escape, any) = (true, true);
            continue;
        } else if let Some(q) = quote {
            if c == q {
                quote = None;
                continue;
            }
        } else if c == '"' || c == '\'' {
            (quote, any) = (Some(c), true);
            continue;
        } else if c == '#' {
            break;
        } else if c.is_whitespace() {
            if any {
                words.push(std::mem::take(&mut word));
                any = false;
            }
            continue;
        }
        word.push(c);
        any = true;
    }
    assert!(quote.is_none(), "unmatched quote in {line}");
    if any {
        words.push(word);
    }
    words
}

#[test]
fn slurm_scripts_quote_paths_and_refuse_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("it's a dir");
    fs::create_dir(&folder).unwrap();
    trace(&folder, "t.swf", true);
    let file = folder.join("e.toml");
    fs::write(
        &file,
        "name = \"quote's $(x) test\"\npolicies = [\"easy\"]\n[[trace]]\npath = \"t.swf\"\n",
    )
    .unwrap();
    let out = cosched(&["experiment", s(&file), "--slurm", "--no-submit"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out_dir = folder.join("quote's $(x) test");
    let script = out_dir.join("slurm/experiment.sbatch");
    // The script's command runs as an array task would (bash, SLURM_ARRAY_TASK_ID set).
    let run = Command::new("bash")
        .arg(&script)
        .env("SLURM_ARRAY_TASK_ID", "0")
        .output()
        .expect("bash runs");
    assert!(
        run.status.success(),
        "{}\n{}",
        stderr(&run),
        fs::read_to_string(&script).unwrap()
    );
    assert!(out_dir.join("tasks/task-0.json").exists());
    let text = fs::read_to_string(&script).unwrap();
    let directives: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("#SBATCH"))
        .flat_map(sbatch_words)
        .collect();
    let out_abs = std::path::absolute(&out_dir).unwrap();
    assert_eq!(
        directives,
        [
            "--job-name=cosched-quote's $(x) test".to_string(),
            "--array=0-0".into(),
            "--nodes=1".into(),
            format!("--output={}/slurm/task-%a.out", out_abs.display()),
        ],
        "{text}"
    );

    let line = error_line(&[
        "experiment",
        s(&file),
        "--slurm",
        "--no-submit",
        "--partition",
        "p\n#SBATCH --mem=1T",
    ]);
    assert!(
        line.contains("--partition") && line.contains("control character"),
        "{line}"
    );
    fs::write(
        &file,
        "name = \"x\\n#SBATCH --mem=1T\"\npolicies = [\"easy\"]\n[[trace]]\npath = \"t.swf\"\n",
    )
    .unwrap();
    let line = error_line(&["experiment", s(&file), "--slurm", "--no-submit"]);
    assert!(line.contains("control character"), "{line}");
}

#[test]
fn experiment_errors_quote_a_bounded_excerpt() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("e.toml");
    for (open, close) in [("[", "]"), ("{a=", "}")] {
        let deep = format!(
            "policies = [\"easy\"]\nunknown = {}1{}\n",
            open.repeat(100_000),
            close.repeat(100_000)
        );
        fs::write(&file, deep).unwrap();
        let out = cosched(&["experiment", s(&file)]);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(err.starts_with("error: "), "{}", &err[..200.min(err.len())]);
        assert!(err.len() < 1_000, "{} bytes of stderr", err.len());
    }
    let t = trace(dir.path(), "t.swf", true);
    for load in ["1e300", "-1e300", "1e-300"] {
        fs::write(
            &file,
            format!(
                "policies = [\"easy\"]\nloads = [{load}]\n[[trace]]\npath = \"{}\"\n",
                t.display()
            ),
        )
        .unwrap();
        let line = error_line(&["experiment", s(&file)]);
        assert!(line.len() < 300, "{line}");
    }
}

/// SWF → Batsim JSON → SWF keeps every integer, including those a double cannot hold.
#[test]
fn batsim_json_keeps_integers_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let swf = dir.path().join("big.swf");
    let rows = [
        (1, 9_007_199_254_740_993_i64, 100_i64),
        (2, 9_223_372_036_854_775_000, 7),
        (3, 0, (1_i64 << 60) + 1),
    ];
    let mut text = String::from("; MaxProcs: 16\n");
    for (id, submit, run) in rows {
        text.push_str(&format!(
            "{id} {submit} -1 {run} 4 -1 -1 4 {run} -1 1 1 1 1 1 1 -1 -1\n"
        ));
    }
    fs::write(&swf, text).unwrap();
    let json = dir.path().join("big.json");
    let back = dir.path().join("back.swf");
    for (from, to) in [(&swf, &json), (&json, &back)] {
        let out = cosched(&["convert", s(from), s(to)]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let written = fs::read_to_string(&json).unwrap();
    assert!(written.contains("9007199254740993"), "{written}");
    let back = fs::read_to_string(&back).unwrap();
    for (id, submit, run) in rows {
        let fields = swf_row(&back, &id.to_string());
        assert_eq!(fields[1], submit.to_string(), "{back}");
        assert_eq!(fields[3], run.to_string(), "{back}");
        assert_eq!(fields[8], run.to_string(), "{back}");
    }
}

/// A Batsim walltime under a second: the same estimate from the JSON and from its SWF.
#[test]
fn sub_second_walltimes_round_up_alike_on_both_paths() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("w.json");
    fs::write(
        &json,
        r#"{"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "walltime": 0.4, "res": 1, "profile": "p"},
            {"id": 2, "subtime": 0, "walltime": 50.2, "res": 1, "profile": "q"}],
          "profiles": {"p": {"type": "delay", "delay": 100}, "q": {"type": "delay", "delay": 0.3}}}"#,
    )
    .unwrap();
    let swf = dir.path().join("w.swf");
    let out = cosched(&["convert", s(&json), s(&swf)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = fs::read_to_string(&swf).unwrap();
    let job = |id: &str| swf_row(&text, id);
    assert_eq!((job("1")[3], job("1")[8]), ("100", "1"), "{text}");
    assert_eq!((job("2")[3], job("2")[8]), ("1", "51"), "{text}");
    let jobs_csv = |trace: &Path| {
        let csv = dir.path().join("jobs.csv");
        let out = simulate(s(trace), "easy", &["--jobs-csv", s(&csv)]);
        assert!(out.status.success(), "{}", stderr(&out));
        fs::read_to_string(&csv).unwrap()
    };
    let from_json = jobs_csv(&json);
    assert_eq!(from_json, jobs_csv(&swf));
    assert!(from_json.contains("\n1,0,0,1,1\n"), "{from_json}");
}

/// A span longer than i64 seconds is reported exactly.
#[test]
fn a_span_beyond_i64_is_reported_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("span.swf");
    fs::write(
        &t,
        format!(
            "; MaxProcs: 16\n1 {} -1 50 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n\
             2 {} -1 50 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n",
            i64::MIN,
            i64::MAX - 100
        ),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = simulate(s(&t), "easy", &["--out", s(&out_dir)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let span = "18446744073709551565";
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&format!("makespan         {span} s")),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let summary = fs::read_to_string(out_dir.join("summary.csv")).unwrap();
    let row: Vec<&str> = summary.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(row[5], span, "{summary}");
}

#[test]
fn the_format_is_detected_by_content() {
    let dir = tempfile::tempdir().unwrap();
    let workload = r#"{"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "walltime": 9, "res": 1,
        "profile": "p"}], "profiles": {"p": {"type": "delay", "delay": 5}}}"#;
    let bom = dir.path().join("bom.json");
    fs::write(&bom, format!("\u{feff}{workload}")).unwrap();
    let bom_swf = dir.path().join("bom.swf");
    fs::write(
        &bom_swf,
        format!(
            "\u{feff}{}",
            fs::read_to_string(trace(dir.path(), "t.swf", true)).unwrap()
        ),
    )
    .unwrap();
    for t in [&bom, &bom_swf] {
        let out = simulate(s(t), "easy", &[]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let array = dir.path().join("array.json");
    fs::write(&array, format!("\u{feff} [{workload}]")).unwrap();
    let line = simulate_error(s(&array), "easy", &[]);
    assert!(
        line.contains("array") && line.contains("Batsim") && !line.contains("18 fields"),
        "{line}"
    );
    for (name, magic) in [
        ("xz", &b"\xfd7zXZ\x00\x00\x04"[..]),
        ("zstd", &b"\x28\xb5\x2f\xfd\x04\x58"[..]),
        ("bzip2", &b"BZh91AY&SY"[..]),
    ] {
        let path = dir.path().join(format!("t.swf.{name}"));
        fs::write(&path, magic).unwrap();
        let line = simulate_error(s(&path), "easy", &[]);
        assert!(
            line.contains(name) && line.contains("not supported"),
            "{line}"
        );
        let line = error_line(&["convert", s(&path), s(&dir.path().join("x.json"))]);
        assert!(line.contains("not supported"), "{line}");
    }
}

/// `cosched classad eval` agrees with HTCondor's library on the cases that differed, and
/// `--functions library` evaluates as the bare library, where `split` is not registered.
#[test]
fn classad_eval_matches_htcondor_on_unparse_compare_and_split() {
    let eval = |expr: &str, extra: &[&str]| {
        let mut args = vec!["classad", "eval", expr, "--my", "[ c = 2 ]"];
        args.extend_from_slice(&["--target", "[ c = 3 ]"]);
        args.extend_from_slice(extra);
        let out = cosched(&args);
        assert!(out.status.success(), "{expr}: {}", stderr(&out));
        String::from_utf8(out.stdout).unwrap().trim_end().to_owned()
    };
    for (expr, value) in [
        ("unparse(target.missing)", r#""""#),
        ("unparse(target.c)", r#""""#),
        ("unparse(c)", r#""2""#),
        (r#"allCompare(">=", {-1.25, 2.5, -5, "x"}, 3.0)"#, "false"),
        (r#"size(split("a b"))"#, "2"),
    ] {
        assert_eq!(eval(expr, &[]), value, "{expr}");
    }
    assert_eq!(
        eval(r#"size(split("a b"))"#, &["--functions", "library"]),
        "error"
    );
    assert_eq!(
        eval(
            r#"stringListsIntersect("a", "a,b")"#,
            &["--functions", "library"]
        ),
        "true"
    );
}
