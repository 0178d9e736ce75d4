//! `cosched experiment`: replicates that make sense for a trace (segments), intervals per
//! cell, per-run job tables, and resuming an interrupted run.

#[path = "support/common.rs"]
mod common;

use common::{cosched, sdsc, text};
use std::path::Path;

/// The rows of a CSV file as maps from column to value.
fn rows(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_owned).collect();
    r.records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

#[test]
fn trace_segments_are_replicates_with_intervals() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("exp.toml");
    std::fs::write(
        &file,
        format!(
            "policies = [\"easy\", \"fcfs\"]\nloads = [0.7, 0.9]\n\
             [[trace]]\npath = \"{}\"\nsegments = 3\n",
            sdsc().display()
        ),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = cosched(&[
        "experiment",
        file.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--jobs-csv",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let runs = rows(&out_dir.join("runs.csv"));
    assert_eq!(runs.len(), 2 * 3 * 2);
    // The three segments split the 4,606 valid jobs: 1,536 + 1,535 + 1,535.
    let jobs: Vec<&str> = runs
        .iter()
        .filter(|r| r["policy"] == "easy" && r["load"] == "0.7")
        .map(|r| r["jobs"].as_str())
        .collect();
    assert_eq!(jobs, ["1536", "1535", "1535"]);
    let cells = rows(&out_dir.join("summary.csv"));
    assert_eq!(cells.len(), 2 * 2);
    for cell in &cells {
        assert_eq!(
            (cell["n"].as_str(), cell["replicates"].as_str()),
            ("3", "segments")
        );
        let of_cell: Vec<f64> = runs
            .iter()
            .filter(|r| r["policy"] == cell["policy"] && r["load"] == cell["load"])
            .map(|r| r["mean_wait_s"].parse().unwrap())
            .collect();
        let mean = of_cell.iter().sum::<f64>() / 3.0;
        let sd = (of_cell.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
        // t(0.975, 2) = 4.302653.
        let half = 4.302_653 * sd / 3f64.sqrt();
        let got: f64 = cell["mean_wait_s"].parse().unwrap();
        let got_half: f64 = cell["mean_wait_s_ci95"].parse().unwrap();
        assert!((got - mean).abs() < 1e-6 * mean.max(1.0), "{got} vs {mean}");
        assert!(
            (got_half - half).abs() < 1e-4 * half.max(1.0),
            "{got_half} vs {half}"
        );
    }
    // Paired differences from the first policy (easy), replicate by replicate.
    for cell in cells.iter().filter(|c| c["policy"] == "fcfs") {
        let wait = |policy: &str, segment: &str| -> f64 {
            runs.iter()
                .find(|r| {
                    r["policy"] == policy && r["load"] == cell["load"] && r["segment"] == segment
                })
                .map(|r| r["mean_wait_s"].parse().unwrap())
                .unwrap()
        };
        let diffs: Vec<f64> = ["1", "2", "3"]
            .iter()
            .map(|k| wait("fcfs", k) - wait("easy", k))
            .collect();
        let mean = diffs.iter().sum::<f64>() / 3.0;
        assert_eq!(cell["reference"], "easy");
        let got: f64 = cell["mean_wait_s_diff"].parse().unwrap();
        assert!(
            (got - mean).abs() < 1e-6 * mean.abs().max(1.0),
            "{got} vs {mean}"
        );
        assert!(!cell["mean_wait_s_diff_ci95"].is_empty());
    }
    let easy = cells.iter().find(|c| c["policy"] == "easy").unwrap();
    assert_eq!(easy["mean_wait_s_diff"], "", "no difference from itself");
    // One Batsim-format job table per run.
    let tables = std::fs::read_dir(out_dir.join("jobs")).unwrap().count();
    assert_eq!(tables, 12);
    let one = out_dir.join("jobs/SDSC-SP2-sample-4961_load0.9_segment2_fcfs_jobs.csv");
    let table = std::fs::read_to_string(one).unwrap();
    assert!(table.starts_with("job_id,workload_name,profile,"));
    assert_eq!(table.lines().count(), 1 + 1535);
    let printed = text(&out.stdout);
    assert!(
        printed.contains("segments") || printed.contains(" ± "),
        "{printed}"
    );
}

#[test]
fn resume_keeps_complete_runs_and_redoes_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("exp.toml");
    std::fs::write(
        &file,
        "policies = [\"easy\", \"fcfs\"]\nseeds = [1, 2]\n\
         [[generator]]\nmodel = \"lublin\"\njobs = 200\ncapacity = 32\n",
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "experiment",
            file.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = cosched(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        out
    };
    run(&[]);
    let first = std::fs::read_to_string(out_dir.join("runs.csv")).unwrap();
    // Mark seed 1's easy run, so that its reuse shows; lose seed 2's results altogether.
    let task0 = out_dir.join("tasks/task-0.json");
    let mut results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&task0).unwrap()).unwrap();
    assert_eq!(results[0]["row"][0], "easy");
    results[0]["row"][2] = "12345.5".into();
    std::fs::write(&task0, results.to_string()).unwrap();
    std::fs::remove_file(out_dir.join("tasks/task-1.json")).unwrap();

    let out = run(&["--resume"]);
    assert!(
        text(&out.stderr).contains("resuming: 2 of 4 runs already complete"),
        "{}",
        text(&out.stderr)
    );
    let resumed = std::fs::read_to_string(out_dir.join("runs.csv")).unwrap();
    assert!(resumed.contains(",easy,200,12345.5,"), "{resumed}");
    assert!(out_dir.join("tasks/task-1.json").exists());
    // Everything but the marked figure is the first run's.
    assert_eq!(
        resumed.lines().filter(|l| !l.contains("12345.5")).count(),
        first.lines().count() - 1
    );
    // Another file's instances are not reused.
    std::fs::write(
        &file,
        "policies = [\"easy\", \"fcfs\"]\nseeds = [1, 2]\n\
         [[generator]]\nmodel = \"lublin\"\njobs = 201\ncapacity = 32\n",
    )
    .unwrap();
    let out = run(&["--resume"]);
    assert!(
        text(&out.stderr).contains("resuming: 0 of 4 runs"),
        "{}",
        text(&out.stderr)
    );
    // A fresh run recomputes everything.
    std::fs::write(
        &file,
        "policies = [\"easy\", \"fcfs\"]\nseeds = [1, 2]\n\
         [[generator]]\nmodel = \"lublin\"\njobs = 200\ncapacity = 32\n",
    )
    .unwrap();
    run(&[]);
    assert_eq!(
        std::fs::read_to_string(out_dir.join("runs.csv")).unwrap(),
        first
    );
}
