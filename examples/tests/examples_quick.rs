//! Runs every example of this package in `--quick` mode so that none can rot, one test each:
//! each must exit successfully and leave a `table.md` and at least one SVG plot in its output
//! folder.
//!
//! `cargo test` builds the example binaries (in the test profile) next to this test's own
//! executable; the examples are the `NAME.rs` files at the package root.

use std::path::{Path, PathBuf};
use std::process::Command;

fn example_names() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(root)
        .expect("package root is readable")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == "rs").then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    names.sort();
    names
}

fn example_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    // target/<profile>/deps/<this test> -> target/<profile>/examples/<name>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("test executables live in target/<profile>/deps");
    profile_dir
        .join("examples")
        .join(name)
        .with_extension(std::env::consts::EXE_EXTENSION)
}

/// Runs example `name` in quick mode: it must succeed and leave a `table.md` and at least one
/// SVG plot in its output folder.
fn runs_in_quick_mode(name: &str) {
    let binary = example_binary(name);
    assert!(
        binary.exists(),
        "{} was not built: run `cargo test -p cosched-examples` without a `--test` filter, \
         which skips building examples",
        binary.display()
    );
    let out = tempfile::tempdir().expect("temporary directory");
    let status = Command::new(&binary)
        .args(["--quick", "--seed", "3", "--out"])
        .arg(out.path())
        .status()
        .expect("example starts");
    assert!(status.success(), "example `{name}` failed: {status}");
    assert!(
        out.path().join("table.md").is_file(),
        "`{name}` wrote no table.md"
    );
    let plots = std::fs::read_dir(out.path())
        .expect("output folder")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "svg"))
        })
        .count();
    // `custom_policies` reproduces no figure: it prints the demos' comparison tables.
    assert!(
        plots > 0 || name == "custom_policies",
        "`{name}` wrote no plot"
    );
}

/// One test per example, so that the test harness runs them side by side (one per core)
/// rather than one after another in a single test.
macro_rules! quick_tests {
    ($($name:ident,)*) => {
        /// The examples with a quick test, in file order.
        const QUICK: &[&str] = &[$(stringify!($name)),*];

        mod quick {
            $(
                #[test]
                fn $name() {
                    super::runs_in_quick_mode(stringify!($name));
                }
            )*
        }
    };
}

quick_tests! {
    albatross_calibrate,
    albatross_capital,
    balancer_fig2,
    balancer_fig3,
    balancer_fig4,
    balancer_fig5,
    balancer_table1,
    balancer_weeks,
    batch_easy_vs_fcfs,
    converged_grid,
    converged_site,
    custom_policies,
    hybrid_fig10,
    hybrid_fig6_7,
    hybrid_fig8,
    hybrid_fig9,
    hybrid_table3,
    metasched_fig10_fairness,
    metasched_fig11_wt,
    metasched_fig12_fraction,
    metasched_fig13_maxq,
    metasched_fig2_waits,
    metasched_fig3_prices,
    metasched_table4,
    metasched_table5_perturb,
    metasched_table7_8,
    rhic_fig10_energy,
    rhic_fig11_deadline,
    rhic_fig13_baselines,
    rhic_fig14_deadline_baselines,
    rhic_fig15_churn,
    rhic_fig16_hbase,
    rhic_fig3_4_hybrid,
    rhic_fig8_predictors,
    rhic_fig9_cost,
    rhic_search_annealing,
    rhic_table1,
}

/// Every example at the package root has its quick test above.
#[test]
fn every_example_has_a_quick_test() {
    assert_eq!(
        example_names(),
        QUICK,
        "add the new example to `quick_tests!`"
    );
}

/// Runs example `name` with `args` (and a temporary `--out`), returning its output.
fn run_example(name: &str, args: &[&str]) -> std::process::Output {
    let out = tempfile::tempdir().expect("temporary directory");
    Command::new(example_binary(name))
        .args(args)
        .arg("--out")
        .arg(out.path())
        .output()
        .expect("example starts")
}

/// Hostile input #11, #12, #15c: every bad flag or input is one `error: …` line and exit
/// status 1, never a panic or a `Debug` dump.
#[test]
fn bad_flags_and_inputs_are_one_error_line() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let trace = |name: &str, jobs: &[&str]| -> String {
        let path = dir.path().join(name);
        let text: String = std::iter::once("; MaxProcs: 16")
            .chain(jobs.iter().copied())
            .map(|line| format!("{line}\n"))
            .collect();
        std::fs::write(&path, text).expect("write");
        path.to_str().expect("utf-8 path").to_owned()
    };
    let empty = trace("empty.swf", &[]);
    let dup = trace(
        "dup.swf",
        &[
            "1 0 -1 5 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1",
            "1 9 -1 5 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1",
        ],
    );
    let zero = trace(
        "zero.swf",
        &[
            "1 0 -1 0 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1",
            "2 9 -1 0 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1",
        ],
    );
    let (empty, dup, zero) = (empty.as_str(), dup.as_str(), zero.as_str());
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--jobs", "0"], "--jobs"),
        (vec!["--jobs", "1"], "zero seconds"),
        (vec!["--jobs", "100000000"], "--jobs"),
        (vec!["--seeds", "0"], "--seeds"),
        (vec!["--capacity", "0"], "--capacity"),
        (vec!["--trace", empty], "no valid job"),
        (vec!["--trace", dup], "appears more than once"),
        (vec!["--trace", zero], "without work"),
        (
            vec!["--trace", empty, "--trace-capacity", "0"],
            "--trace-capacity",
        ),
        (vec!["--seed=-1"], "--seed"),
    ];
    for (args, expected) in cases {
        let mut all = vec!["--quick"];
        if !args.contains(&"--jobs") {
            all.extend(["--jobs", "40"]);
        }
        all.extend(&args);
        let out = run_example("batch_easy_vs_fcfs", &all);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.lines().count() == 1,
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// An input inside the output directory under a name the example writes (`table.md`) is
/// refused before it is replaced, and the file stays as it was.
#[test]
fn an_output_never_replaces_an_input() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let trace = dir.path().join("table.md");
    let jobs: String = (1..=40)
        .map(|i| format!("{i} {} -1 50 4 -1 -1 4 60 -1 1 1 1 1 1 1 -1 -1\n", i * 20))
        .collect();
    let text = format!("; MaxProcs: 16\n{jobs}");
    std::fs::write(&trace, &text).expect("write");
    let out = Command::new(example_binary("batch_easy_vs_fcfs"))
        .args(["--quick", "--jobs", "40", "--trace"])
        .arg(&trace)
        .arg("--out")
        .arg(dir.path())
        .output()
        .expect("example starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("on the command line"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&trace).expect("read"), text);
    let written: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(written, ["table.md"], "nothing else was moved into place");
}

/// The paper examples that parse their own flags report a refused run the same way: one
/// `error: …` line and status 1, never `Debug` output (hostile input #11, #14d, #15c).
#[test]
fn paper_examples_report_errors_as_one_line() {
    // Hostile input #8: a job near the end of time makes the simulator refuse the trace.
    let dir = tempfile::tempdir().expect("temporary directory");
    let huge = dir.path().join("huge.swf");
    std::fs::write(
        &huge,
        "; MaxProcs: 16\n1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n\
         2 9223372036854775000 -1 10000 4 -1 -1 4 20000 -1 1 1 1 1 1 1 -1 -1\n",
    )
    .expect("write");
    let huge = huge.to_str().expect("utf-8 path");
    for (name, args, expected) in [
        (
            "hybrid_fig8",
            vec!["--quick", "--trace", huge],
            "time overflow",
        ),
        // The generated machines run beside the trace before its error is reported: one
        // typing (not quick's three) keeps that to a third.
        (
            "hybrid_fig6_7",
            vec!["--quick", "--typings", "1", "--trace", huge],
            "time overflow",
        ),
        ("hybrid_fig6_7", vec!["--quick", "--seeds", "0"], "--seeds"),
        ("hybrid_fig8", vec!["--quick", "--seeds", "0"], "--seeds"),
        (
            "hybrid_fig6_7",
            vec!["--quick", "--typings", "18446744073709551615"],
            "--typings",
        ),
        ("hybrid_table3", vec!["--quick", "--seeds", "0"], "--seeds"),
        (
            "metasched_table4",
            vec!["--quick", "--measured", "0"],
            "measured",
        ),
        (
            "balancer_table1",
            vec![
                "--quick",
                "--lcrc",
                "/nonexistent.csv",
                "--aps",
                "/nonexistent.csv",
            ],
            "nonexistent",
        ),
    ] {
        let out = run_example(name, &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name} {args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.lines().count() == 1,
            "{name} {args:?}: {stderr}"
        );
        assert!(stderr.contains(expected), "{name} {args:?}: {stderr}");
        assert!(
            !stderr.contains('"'),
            "{name}: a Debug-quoted message: {stderr}"
        );
        assert!(
            stderr.matches("(os error").count() <= 1,
            "{name}: an I/O cause printed twice: {stderr}"
        );
    }
}

/// `--seed 18446744073709551615` runs as many seeds as asked (wrapping), and writing to a full
/// disk is an error, not a panic (hostile input #10, #15a).
#[test]
fn the_largest_seed_runs_and_a_full_disk_is_an_error() {
    let args = [
        "--quick",
        "--jobs",
        "40",
        "--seeds",
        "2",
        "--seed",
        "18446744073709551615",
    ];
    let out = run_example("batch_easy_vs_fcfs", &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 seeds from 18446744073709551615"));

    let full = std::fs::File::create("/dev/full");
    let Ok(full) = full else {
        eprintln!("skipped: /dev/full is absent");
        return;
    };
    let tmp = tempfile::tempdir().expect("temporary directory");
    let out = Command::new(example_binary("batch_easy_vs_fcfs"))
        .args(["--quick", "--jobs", "40", "--out"])
        .arg(tmp.path())
        .stdout(full)
        .output()
        .expect("example starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: cannot write to standard output"),
        "{stderr}"
    );
}

/// `--help` describes the example, never the shared `CommonArgs` documentation (hostile input
/// #15d).
#[test]
fn help_describes_the_example() {
    for name in example_names() {
        let out = Command::new(example_binary(&name))
            .arg("--help")
            .output()
            .expect("example starts");
        assert!(out.status.success(), "{name}");
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(
            !help.contains("flatten") && !help.contains("Options common to every example"),
            "{name} --help shows the harness's docs:\n{help}"
        );
        assert!(
            help.contains("--quick") && help.contains("--seed"),
            "{name}"
        );
    }
}

#[path = "../../crates/cli/tests/support/readme.rs"]
mod readme;

/// The README's example commands (`cargo run --release -p cosched-examples --example NAME --
/// ARGS`) name examples that exist, with flags they take. They are checked against `--help`,
/// not run: in release, as written, several take minutes (`hybrid_fig6_7` 10-15 on 2 cores);
/// every example runs in quick mode above.
#[test]
fn readme_example_commands_exist_with_their_flags() {
    let mut checked = 0;
    for c in readme::commands() {
        let readme::Kind::Example(name, args) = readme::kind(&c) else {
            continue;
        };
        let binary = example_binary(&name);
        assert!(binary.exists(), "{}: no example {name}", c.text());
        let out = Command::new(&binary)
            .arg("--help")
            .output()
            .expect("example starts");
        let help = String::from_utf8_lossy(&out.stdout);
        for flag in readme::long_flags(&args) {
            assert!(
                help.contains(flag),
                "{}: no {flag} in {name} --help",
                c.text()
            );
        }
        // Files the command names are in the repository.
        for arg in args.iter().filter(|a| a.contains('/')) {
            assert!(
                readme::root().join(arg).exists(),
                "{}: {arg} does not exist",
                c.text()
            );
        }
        checked += 1;
    }
    assert!(
        checked >= 15,
        "only {checked} example commands in the README"
    );
}

/// `hybrid_table3 --calibrate` writes the Cori-like fit as a 2-D table, run-time scale ×
/// share of estimates at the limit, one cell per point, marks exactly one point of the grid
/// nearest, and pairs each share with the model's own by trace.
#[test]
fn hybrid_calibration_writes_the_fit_table() {
    let out = tempfile::tempdir().expect("temporary directory");
    let status = Command::new(example_binary("hybrid_table3"))
        .args(["--quick", "--calibrate", "--seeds", "1", "--typings", "1"])
        .arg("--out")
        .arg(out.path())
        .status()
        .expect("example starts");
    assert!(
        status.success(),
        "hybrid_table3 --calibrate failed: {status}"
    );
    let fit = std::fs::read_to_string(out.path().join("hybrid_table3_calibration_cori_fit.csv"))
        .expect("the fit table");
    let rows: Vec<&str> = fit.lines().collect();
    assert_eq!(rows.len(), 1 + 3, "a header and one row per scale: {fit}");
    assert!(rows[0].contains("at the limit: 80 %"), "{fit}");
    assert!(
        rows[1..].iter().all(|r| r.matches('/').count() == 4 * 2),
        "{fit}"
    );
    let grid = std::fs::read_to_string(out.path().join("hybrid_table3_calibration_cori.csv"))
        .expect("the grid");
    assert_eq!(grid.matches("nearest").count(), 1, "{grid}");
    // 3 scales × 4 shares of estimates at the limit, the workload's point among them.
    assert_eq!(grid.lines().count(), 1 + 12, "{grid}");
    let effects = std::fs::read_to_string(
        out.path()
            .join("hybrid_table3_calibration_cori_estimates.csv"),
    )
    .expect("the estimates' paired effects");
    // 3 scales × 3 shares against the model's; one trace gives no interval to decide by.
    assert_eq!(effects.lines().count(), 1 + 3 * 3, "{effects}");
    assert_eq!(
        effects.matches("not assessed").count(),
        3 * 3 * 3,
        "{effects}"
    );
    assert_eq!(grid.matches("ours").count(), 1, "{grid}");
}
