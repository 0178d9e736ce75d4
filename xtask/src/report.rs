//! `target/figures/REPORT.md`: every example's tables and plots, in one deterministic page.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Deserialize;

/// The file of checked paper claims an example writes (see the examples' `Claims`).
pub const CLAIMS_FILE: &str = "claims.json";

/// The file in which an example records how its outputs were made (mode and arguments).
pub const RUN_FILE: &str = "run.json";

/// How an example's outputs were made: its paper configuration or the small one for CI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    /// The paper's configuration (no `--quick`).
    Full,
    /// The small configuration (`--quick`): its verdicts are only indicative.
    Quick,
    /// Outputs of a binary that wrote no `run.json`: the mode is not known.
    Unrecorded,
}

impl Mode {
    /// The report's header line for outputs all of this mode.
    fn header(self) -> &'static str {
        match self {
            Mode::Full => "Mode: **full**: the configurations of the papers.\n",
            Mode::Quick => {
                "Mode: **quick** (`--quick`): small configurations for CI; numbers are only \
                 indicative.\n"
            }
            Mode::Unrecorded => {
                "Mode: **unrecorded**: the outputs say nothing of how they were made (no \
                 `run.json`).\n"
            }
        }
    }

    /// The mode's name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Full => "full",
            Mode::Quick => "quick",
            Mode::Unrecorded => "unrecorded",
        }
    }
}

/// What `run.json` says: the mode and the arguments (but `--out`) the example ran with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// Full or quick.
    pub mode: Mode,
    /// The arguments other than `--quick` and `--out DIR` (e.g. `--seeds 1`), which may make a
    /// full run smaller than the paper's.
    pub args: Vec<String>,
}

#[derive(Deserialize)]
struct RunFile {
    mode: String,
    #[serde(default)]
    args: Vec<String>,
}

impl Provenance {
    /// No `run.json`: mode unrecorded.
    pub fn unrecorded() -> Self {
        Provenance {
            mode: Mode::Unrecorded,
            args: Vec::new(),
        }
    }

    /// Reads a `run.json`.
    pub fn parse(json: &str) -> Result<Provenance, String> {
        let file: RunFile = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let mode = match file.mode.as_str() {
            "full" => Mode::Full,
            "quick" => Mode::Quick,
            other => return Err(format!("unknown mode `{other}` (expected full or quick)")),
        };
        let args = file.args.into_iter().filter(|a| a != "--quick").collect();
        Ok(Provenance { mode, args })
    }

    /// The run as the report names it: `full`, `quick`, or either with its arguments
    /// (`` full (`--seeds 1`) ``).
    fn label(&self) -> String {
        if self.args.is_empty() {
            self.mode.name().to_owned()
        } else {
            format!("{} (`{}`)", self.mode.name(), self.args.join(" "))
        }
    }
}

/// What the report needs of one example's `claims.json`: its paper claims, counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimTotals {
    /// The paper (crate) the claims are about.
    pub paper: String,
    /// Exercised claims that passed.
    pub passed: usize,
    /// Exercised claims that failed.
    pub failed: usize,
    /// Claims the workload did not exercise (neither pass nor fail).
    pub unexercised: usize,
}

#[derive(Deserialize)]
struct ClaimsFile {
    paper: String,
    claims: Vec<ClaimVerdict>,
}

#[derive(Deserialize)]
struct ClaimVerdict {
    pass: bool,
    /// Absent in files written before the field existed: exercised.
    #[serde(default = "exercised_by_default")]
    exercised: bool,
}

fn exercised_by_default() -> bool {
    true
}

impl ClaimTotals {
    /// Reads the totals of a `claims.json`.
    pub fn parse(json: &str) -> Result<ClaimTotals, serde_json::Error> {
        let file: ClaimsFile = serde_json::from_str(json)?;
        let count = |f: &dyn Fn(&ClaimVerdict) -> bool| file.claims.iter().filter(|c| f(c)).count();
        Ok(ClaimTotals {
            passed: count(&|c| c.exercised && c.pass),
            failed: count(&|c| c.exercised && !c.pass),
            unexercised: count(&|c| !c.exercised),
            paper: file.paper,
        })
    }

    /// Claims checked: the exercised ones.
    pub fn total(&self) -> usize {
        self.passed + self.failed
    }
}

/// What one example produced, read from its output directory.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The example's name, also its directory under `target/figures`.
    pub name: String,
    /// How it ran (its `run.json`).
    pub provenance: Provenance,
    /// Its wall-clock run time, in seconds (0 when none was recorded).
    pub seconds: f64,
    /// The contents of its `table.md`.
    pub tables: String,
    /// The file names of its plots (`.svg`, `.png`), sorted.
    pub plots: Vec<String>,
    /// Its checked paper claims, if it wrote any.
    pub claims: Option<ClaimTotals>,
}

/// The report for `runs`, restricted by `--only` if `only` is not empty; `missing` names the
/// selected examples that have no outputs (with `--collect-only`). The mode stated is the runs'
/// (`quick` when there are none): a report collected from runs of different modes says so and
/// names each example's run. It holds no timestamp: the same outputs give the same report, run
/// times aside.
pub fn render(quick: bool, only: &[String], runs: &[Run], missing: &[&str]) -> String {
    let mut out = String::from("# cosched: reproduced tables and figures\n\n");
    out.push_str("Generated by `cargo xtask reproduce` from the examples in `examples/`.\n\n");
    let mut modes: Vec<Mode> = runs.iter().map(|r| r.provenance.mode).collect();
    modes.sort();
    modes.dedup();
    let requested = if quick { Mode::Quick } else { Mode::Full };
    out.push_str(match modes.as_slice() {
        [] => requested.header(),
        [mode] => mode.header(),
        _ => {
            "Mode: **mixed**: outputs of different runs, combined; each example's run is named in \
             the summary and beside its claims.\n"
        }
    });
    if !only.is_empty() {
        let _ = writeln!(
            out,
            "\nExamples selected with `--only`: {}.",
            code_list(only.iter().map(String::as_str))
        );
    }
    if !missing.is_empty() {
        let _ = writeln!(
            out,
            "\nNot run (no outputs in `target/figures`): {}.",
            code_list(missing.iter().copied())
        );
    }
    if runs.is_empty() {
        if missing.is_empty() {
            out.push_str("\nNo examples are declared in `examples/Cargo.toml` yet.\n");
        }
        return out;
    }
    out.push_str(&claims_section(runs));
    out.push_str(&findings_section(runs));
    out.push_str(
        "\n## Summary\n\n| example | run | run time (s) | claims reproduced |\n| --- | --- | ---: | ---: |\n",
    );
    for run in runs {
        let claims = run.claims.as_ref().map_or_else(
            || {
                if OUR_FINDINGS.contains(&run.name.as_str()) {
                    "our findings".to_owned()
                } else {
                    "-".to_owned()
                }
            },
            |c| match c.unexercised {
                0 => format!("{} of {}", c.passed, c.total()),
                n => format!("{} of {} ({n} not exercised)", c.passed, c.total()),
            },
        );
        let _ = writeln!(
            out,
            "| [`{0}`](#{0}) | {1} | {2:.1} | {claims} |",
            run.name,
            run.provenance.label(),
            run.seconds
        );
    }
    for run in runs {
        let _ = write!(out, "\n## {}\n\n{}", run.name, run.tables.trim_end());
        out.push('\n');
        for plot in &run.plots {
            let _ = write!(out, "\n![{0}/{1}]({0}/{1})\n", run.name, plot);
        }
    }
    out
}

/// `names` as a comma-separated list of code spans.
fn code_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Examples that report our own findings (the papers' mechanisms composed), not paper
/// claims: listed under their own heading, never counted in "claims reproduced".
pub const OUR_FINDINGS: [&str; 2] = ["converged_site", "converged_grid"];

/// The "Our findings" heading: links to the examples of [`OUR_FINDINGS`] that ran.
fn findings_section(runs: &[Run]) -> String {
    let ours: Vec<String> = runs
        .iter()
        .filter(|r| OUR_FINDINGS.contains(&r.name.as_str()))
        .map(|r| format!("[`{0}`](#{0})", r.name))
        .collect();
    if ours.is_empty() {
        return String::new();
    }
    format!(
        "\n## Our findings\n\nNot paper claims: what the papers' mechanisms do when they share \
         one machine, each finding a paired difference with its seed-to-seed spread: {}.\n",
        ours.join(", ")
    )
}

/// One paper's claims from the runs of one mode.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    unexercised: usize,
    /// The examples they came from, each with its run's arguments if any.
    examples: Vec<String>,
}

/// "claims reproduced: N of M" per mode, and per paper and mode: passed, failed, not
/// exercised and the examples (runs) each count came from. Empty when no example checks any.
fn claims_section(runs: &[Run]) -> String {
    let mut tallies: BTreeMap<(Mode, &str), Tally> = BTreeMap::new();
    for run in runs {
        let Some(c) = run.claims.as_ref() else {
            continue;
        };
        let t = tallies
            .entry((run.provenance.mode, c.paper.as_str()))
            .or_default();
        t.passed += c.passed;
        t.failed += c.failed;
        t.unexercised += c.unexercised;
        t.examples.push(if run.provenance.args.is_empty() {
            format!("`{}`", run.name)
        } else {
            format!("`{}` (`{}`)", run.name, run.provenance.args.join(" "))
        });
    }
    if tallies.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Paper claims\n\nOnly results the papers state count here. Checks (invariants, \
         identities, accounting) and calibration targets (what we fitted) stand in each \
         example's own tables and are never counted; a claim its workload does not exercise \
         counts neither way. Quick runs' verdicts are indicative only.\n\n",
    );
    let mut modes: Vec<Mode> = tallies.keys().map(|(m, _)| *m).collect();
    modes.dedup();
    for mode in modes {
        let (p, f, n) = tallies
            .iter()
            .filter(|((m, _), _)| *m == mode)
            .fold((0, 0, 0), |(p, f, n), (_, t)| {
                (p + t.passed, f + t.failed, n + t.unexercised)
            });
        let _ = writeln!(
            out,
            "- claims reproduced, {} runs: {p} of {} ({f} failed, {n} not exercised)",
            mode.name(),
            p + f
        );
    }
    out.push_str(
        "\n| paper | run | passed | failed | not exercised | from |\n| --- | --- | ---: | ---: | ---: | --- |\n",
    );
    let mut rows: Vec<(&(Mode, &str), &Tally)> = tallies.iter().collect();
    rows.sort_by_key(|((mode, paper), _)| (*paper, *mode));
    for ((mode, paper), t) in rows {
        let _ = writeln!(
            out,
            "| {paper} | {} | {} | {} | {} | {} |",
            mode.name(),
            t.passed,
            t.failed,
            t.unexercised,
            t.examples.join(", ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{ClaimTotals, Mode, Provenance, Run, render};

    fn run(name: &str, plots: &[&str]) -> Run {
        Run {
            name: name.to_owned(),
            provenance: Provenance {
                mode: Mode::Full,
                args: Vec::new(),
            },
            seconds: 1.25,
            tables: "### Waits\n\n| a |\n| --- |\n| 1 |\n".to_owned(),
            plots: plots.iter().map(|p| (*p).to_owned()).collect(),
            claims: None,
        }
    }

    fn totals(paper: &str, passed: usize, failed: usize, unexercised: usize) -> ClaimTotals {
        ClaimTotals {
            paper: paper.to_owned(),
            passed,
            failed,
            unexercised,
        }
    }

    #[test]
    fn a_claims_file_is_counted_passed_failed_and_not_exercised() {
        let json = r#"{"paper":"rhic","claims":[{"pass":true,"source":"x"},{"pass":false},
            {"pass":false,"exercised":false}]}"#;
        assert_eq!(ClaimTotals::parse(json).unwrap(), totals("rhic", 1, 1, 1));
        assert!(ClaimTotals::parse("{}").is_err());
    }

    #[test]
    fn a_run_file_gives_the_mode_and_the_arguments_but_quick() {
        let quick = Provenance::parse(r#"{"mode":"quick","args":["--quick","--seeds","1"]}"#);
        assert_eq!(
            quick.unwrap(),
            Provenance {
                mode: Mode::Quick,
                args: vec!["--seeds".to_owned(), "1".to_owned()]
            }
        );
        assert_eq!(
            Provenance::parse(r#"{"mode":"full"}"#).unwrap().mode,
            Mode::Full
        );
        let err = Provenance::parse(r#"{"mode":"fast"}"#).unwrap_err();
        assert!(err.contains("unknown mode `fast`"), "{err}");
        assert!(Provenance::parse("[]").is_err());
    }

    /// Outputs of a full and a quick run and of an old binary, combined: each paper's claims
    /// are tallied per run, with the examples they came from, and the header says the report
    /// is mixed.
    #[test]
    fn a_combined_report_tallies_each_paper_per_run() {
        let mut table1 = run("balancer_table1", &[]);
        table1.claims = Some(totals("balancer", 4, 3, 0));
        let mut fig2 = run("balancer_fig2", &["fig2.svg"]);
        fig2.provenance.args = vec!["--seeds".to_owned(), "3".to_owned()];
        fig2.claims = Some(totals("balancer", 5, 2, 1));
        let mut fig8 = run("hybrid_fig8", &[]);
        fig8.provenance.mode = Mode::Quick;
        fig8.claims = Some(totals("hybrid", 1, 2, 0));
        let mut capital = run("albatross_capital", &[]);
        capital.provenance = Provenance::unrecorded();
        capital.claims = Some(totals("albatross", 4, 5, 1));
        let site = run("converged_site", &[]);
        let report = render(
            false,
            &[],
            &[table1, fig2, fig8, capital, site],
            &["metasched_table4"],
        );
        insta::assert_snapshot!(report);
    }

    /// Our findings get their own heading and never enter "claims reproduced".
    #[test]
    fn our_findings_are_listed_apart_from_paper_claims() {
        let report = render(
            true,
            &[],
            &[run("converged_site", &[]), run("rhic_fig9", &[])],
            &[],
        );
        assert!(report.contains("## Our findings\n"));
        assert!(report.contains("[`converged_site`](#converged_site)"));
        assert!(
            report.contains("| [`converged_site`](#converged_site) | full | 1.2 | our findings |")
        );
        assert!(!report.contains("## Paper claims"));
        assert!(!render(true, &[], &[run("rhic_fig9", &[])], &[]).contains("Our findings"));
    }

    #[test]
    fn no_examples_give_a_report_saying_so() {
        let report = render(true, &[], &[], &[]);
        assert!(report.starts_with("# cosched: reproduced tables and figures\n"));
        assert!(report.contains("Mode: **quick**"));
        assert!(report.ends_with("No examples are declared in `examples/Cargo.toml` yet.\n"));
        let none_run = render(false, &[], &[], &["fig3"]);
        assert!(none_run.ends_with("Not run (no outputs in `target/figures`): `fig3`.\n"));
    }

    #[test]
    fn each_example_gets_a_summary_row_and_a_section() {
        let runs = [run("fig3", &["a.svg", "b.png"]), run("table2", &[])];
        let report = render(true, &[], &runs, &[]);
        let expected = "\
# cosched: reproduced tables and figures

Generated by `cargo xtask reproduce` from the examples in `examples/`.

Mode: **full**: the configurations of the papers.

## Summary

| example | run | run time (s) | claims reproduced |
| --- | --- | ---: | ---: |
| [`fig3`](#fig3) | full | 1.2 | - |
| [`table2`](#table2) | full | 1.2 | - |

## fig3

### Waits

| a |
| --- |
| 1 |

![fig3/a.svg](fig3/a.svg)

![fig3/b.png](fig3/b.png)

## table2

### Waits

| a |
| --- |
| 1 |
";
        assert_eq!(report, expected);
    }

    #[test]
    fn a_selection_is_named() {
        let report = render(true, &["fig3".to_owned()], &[run("fig3", &[])], &[]);
        assert!(report.contains("Examples selected with `--only`: `fig3`."));
    }
}
