//! The harness's behaviour: table rendering and files, sweep order, plot files and robustness.

use std::fs;
use std::thread;
use std::time::Duration;

use cosched_examples::{BarChart, Cell, CommonArgs, Error, LinePlot, OutDir, Sweep, Table};

fn waits() -> Table {
    let mut table = Table::new(
        "waits",
        "Mean wait by policy",
        ["policy", "ours (s)", "paper (s)"],
    )
    .with_notes("Paper numbers: Table 3.");
    table.row([
        "EASY".into(),
        Cell::fixed(12.345, 2),
        Cell::paper(Some(12.0), 1),
    ]);
    table.row([
        "conservative | CBF".into(),
        Cell::fixed(7.0, 2),
        Cell::paper(None, 1),
    ]);
    table.row(["FCFS".into(), Cell::fixed(1234.5, 2), "-".into()]);
    table
}

#[test]
fn markdown_is_aligned_with_numbers_right_and_text_left() {
    let md = waits().markdown();
    assert_eq!(
        md,
        "| policy              | ours (s) | paper (s) |\n\
         | ------------------- | -------: | --------- |\n\
         | EASY                |    12.35 | 12.0      |\n\
         | conservative \\| CBF |     7.00 | -         |\n\
         | FCFS                |  1234.50 | -         |\n"
    );
    let widths: Vec<usize> = md.lines().map(|l| l.chars().count()).collect();
    assert!(widths.windows(2).all(|w| w[0] == w[1]), "{md}");
}

#[test]
fn a_column_of_numbers_and_empties_is_right_aligned() {
    let mut table = Table::new("t", "T", ["n", "paper"]);
    table.row([Cell::from(3_usize), Cell::paper(None, 1)]);
    table.row([Cell::from(-12_i64), Cell::paper(Some(2.25), 1)]);
    assert_eq!(
        table.markdown(),
        "| n   | paper |\n| --: | ----: |\n|   3 |     - |\n| -12 |   2.2 |\n"
    );
}

#[test]
fn an_empty_table_renders_its_header() {
    let table = Table::new("empty", "Nothing yet", ["a", "b"]);
    assert_eq!(table.markdown(), "| a   | b   |\n| --- | --- |\n");
}

#[test]
#[should_panic(expected = "a row has 1 cells for 3 columns")]
fn a_short_row_is_rejected() {
    waits().row(["only one".into()]);
}

/// The output directory of the common arguments records the run's mode, which
/// `cargo xtask reproduce --collect-only` reads to say which run each claim came from.
#[test]
fn the_common_output_directory_records_the_mode() {
    let tmp = tempfile::tempdir().unwrap();
    for (quick, mode) in [(true, "quick"), (false, "full")] {
        let dir = tmp.path().join(mode);
        let common = CommonArgs {
            quick,
            out: Some(dir.clone()),
            seed: 1,
        };
        let out = common.output("ignored").unwrap();
        assert!(!dir.join("run.json").exists(), "staged until committed");
        out.commit().unwrap();
        let run: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
        assert_eq!(run["mode"], mode);
        assert!(run["args"].is_array(), "{run}");
    }
}

#[test]
fn out_dir_writes_table_md_and_csv() {
    let tmp = tempfile::tempdir().unwrap();
    let mut out = OutDir::create(tmp.path().join("a/b")).unwrap();
    out.write_table(&waits()).unwrap();
    let mut second = Table::new("loads", "Loads", ["load"]);
    second.row([Cell::fixed(0.5, 1)]);
    out.write_table(&second).unwrap();
    let dir = out.path().to_path_buf();
    assert!(!dir.join("table.md").exists(), "staged until committed");
    out.commit().unwrap();

    let md = fs::read_to_string(dir.join("table.md")).unwrap();
    let expected = format!(
        "### Mean wait by policy\n\nPaper numbers: Table 3.\n\n{}\n### Loads\n\n{}",
        waits().markdown(),
        second.markdown()
    );
    assert_eq!(md, expected);

    let csv = fs::read_to_string(dir.join("waits.csv")).unwrap();
    assert_eq!(
        csv,
        "policy,ours (s),paper (s)\nEASY,12.35,12.0\nconservative | CBF,7.00,\nFCFS,1234.50,-\n"
    );
    let csv = fs::read_to_string(dir.join("loads.csv")).unwrap();
    assert_eq!(csv, "load\n0.5\n");
}

/// Writes `table` into a new output directory at `dir` and commits it.
fn write_committed(dir: &std::path::Path, table: &Table) {
    let mut out = OutDir::create(dir).unwrap();
    out.write_table(table).unwrap();
    out.commit().unwrap();
}

#[test]
fn a_new_out_dir_replaces_the_previous_table_md() {
    let tmp = tempfile::tempdir().unwrap();
    write_committed(tmp.path(), &waits());
    let mut table = Table::new("other", "Other", ["x"]);
    table.row([Cell::from(1_u32)]);
    write_committed(tmp.path(), &table);
    let md = fs::read_to_string(tmp.path().join("table.md")).unwrap();
    assert_eq!(md, format!("### Other\n\n{}", table.markdown()));
}

/// Output directories dropped by a run are committed when the run succeeds and discarded
/// when it fails, leaving the previous run's files whole.
#[test]
fn a_failed_run_leaves_the_previous_outputs() {
    let tmp = tempfile::tempdir().unwrap();
    write_committed(tmp.path(), &waits());
    let before = fs::read_to_string(tmp.path().join("table.md")).unwrap();
    let mut table = Table::new("other", "Other", ["x"]);
    table.row([Cell::from(1_u32)]);
    let run = |table: &Table, fail: bool| -> Result<(), Box<dyn std::error::Error>> {
        let mut out = OutDir::create(tmp.path())?;
        out.write_table(table)?;
        if fail {
            return Err("the run failed after writing a table".into());
        }
        Ok(())
    };
    assert_eq!(
        cosched_examples::exit(run(&table, true)),
        std::process::ExitCode::FAILURE
    );
    assert_eq!(
        fs::read_to_string(tmp.path().join("table.md")).unwrap(),
        before
    );
    assert!(!tmp.path().join("other.csv").exists());
    assert_eq!(
        cosched_examples::exit(run(&table, false)),
        std::process::ExitCode::SUCCESS
    );
    let md = fs::read_to_string(tmp.path().join("table.md")).unwrap();
    assert_eq!(md, format!("### Other\n\n{}", table.markdown()));
    let names: Vec<String> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}

#[test]
#[should_panic(expected = "table `waits` written twice")]
fn a_table_name_is_written_once() {
    let tmp = tempfile::tempdir().unwrap();
    let mut out = OutDir::create(tmp.path()).unwrap();
    out.write_table(&waits()).unwrap();
    out.write_table(&waits()).unwrap();
}

#[test]
fn errors_name_the_path() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("a-file");
    fs::write(&file, "").unwrap();
    let err = OutDir::create(file.join("sub")).unwrap_err();
    assert!(matches!(err, Error::Io { .. }));
    assert!(
        err.to_string()
            .contains(&*file.join("sub").to_string_lossy()),
        "{err}"
    );
}

#[test]
fn common_args_default_out_dir_is_under_target_figures() {
    let args = CommonArgs {
        quick: false,
        out: None,
        seed: 1,
    };
    assert_eq!(
        args.out_dir("fig3"),
        std::path::Path::new("target/figures/fig3")
    );
    let args = CommonArgs {
        out: Some("elsewhere".into()),
        ..args
    };
    assert_eq!(args.out_dir("fig3"), std::path::Path::new("elsewhere"));
}

#[test]
fn sweep_returns_results_in_input_order() {
    let configs: Vec<u64> = (0..64).collect();
    // Early configurations take longest, so they finish last.
    let results = Sweep::new("order", configs.clone()).run(|&c| {
        thread::sleep(Duration::from_millis(64 - c));
        c * 10
    });
    let expected: Vec<(u64, u64)> = configs.iter().map(|&c| (c, c * 10)).collect();
    assert_eq!(results, expected);
}

#[test]
fn sweep_is_deterministic_and_handles_no_configs() {
    let run = || Sweep::new("det", (0..200_u64).collect()).run(|&c| c.wrapping_mul(0x9E37_79B9));
    assert_eq!(run(), run());
    assert!(Sweep::new("none", Vec::<u8>::new()).run(|_| ()).is_empty());
}

fn line_plot() -> LinePlot {
    LinePlot::new("wait_vs_load", "Mean wait against load")
        .x_label("offered load")
        .y_label("mean wait (s)")
        .series("EASY backfilling", [(0.5, 10.0), (0.7, 40.0), (0.9, 300.0)])
        .series("FCFS", [(0.5, 30.0), (0.7, 200.0), (0.9, 4000.0)])
}

#[test]
fn line_plot_writes_an_svg_with_its_series_names() {
    let tmp = tempfile::tempdir().unwrap();
    for plot in [line_plot(), line_plot().log_y()] {
        let mut out = OutDir::create(tmp.path()).unwrap();
        let path = out.write_plot(&plot).unwrap();
        out.commit().unwrap();
        assert_eq!(path, tmp.path().join("wait_vs_load.svg"));
        let svg = fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        for text in [
            "EASY backfilling",
            "FCFS",
            "Mean wait against load",
            "offered load",
        ] {
            assert!(svg.contains(text), "missing {text}");
        }
    }
}

#[test]
fn bar_chart_writes_an_svg_with_series_and_categories() {
    let chart = BarChart::new(
        "policies",
        "Mean wait by policy",
        ["small jobs", "large jobs"],
    )
    .y_label("mean wait (s)")
    .series("EASY", [12.0, 340.0])
    .series("FCFS", [40.0, f64::NAN]);
    let tmp = tempfile::tempdir().unwrap();
    let mut out = OutDir::create(tmp.path()).unwrap();
    let path = out.write_plot(&chart).unwrap();
    out.commit().unwrap();
    let svg = fs::read_to_string(path).unwrap();
    assert!(svg.starts_with("<svg"));
    for text in ["EASY", "FCFS", "small jobs", "large jobs", "mean wait (s)"] {
        assert!(svg.contains(text), "missing {text}");
    }
}
