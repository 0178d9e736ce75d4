//! `cargo xtask reproduce`: build the examples once, run each, collect the report.

use crate::say;
use std::fs;
use std::path::Path;
use std::time::Instant;

use clap::Args;

use crate::report::{self, Provenance, Run};
use crate::report::{CLAIMS_FILE, ClaimTotals, RUN_FILE};
use crate::{Result, cargo, manifest, slurm_array};

/// Where the examples write, relative to the workspace root: one directory per example.
const FIGURES: &str = "target/figures";

/// The file of tables every example writes into its directory.
const TABLE_FILE: &str = "table.md";

/// Options of `cargo xtask reproduce`.
#[derive(Debug, Clone, Args)]
pub struct Options {
    /// Run the examples' small configurations (as CI does).
    #[arg(long)]
    quick: bool,
    /// Run only these examples (comma-separated names).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    only: Vec<String>,
    /// Run the examples as a Slurm job array (one task per example) on the cluster of
    /// `SLURM_CONF` (e.g. the one `cargo xtask slurm up` starts), wait, and merge the tasks'
    /// outputs into the same report. The cluster needs the workspace on a shared file system.
    #[arg(long)]
    slurm: bool,
    /// With `--slurm`: the partition to submit to (default: the cluster's default).
    #[arg(long, requires = "slurm")]
    partition: Option<String>,
    /// With `--slurm`: write the sbatch array script and stop, for a user to submit by hand;
    /// `--collect-only` then writes the report from the tasks' outputs.
    #[arg(long, requires = "slurm")]
    emit_only: bool,
    /// Write the report from the outputs already in `target/figures` without running
    /// anything: of an earlier run, a hand-submitted array, or several runs combined (each
    /// example's directory copied in from the run that made it). Each example's mode comes
    /// from its own `run.json`; examples without outputs are listed as not run.
    #[arg(long, conflicts_with = "slurm")]
    collect_only: bool,
}

impl Options {
    /// Every example, in quick mode: what CI runs.
    pub fn quick() -> Self {
        Options {
            quick: true,
            only: Vec::new(),
            slurm: false,
            partition: None,
            emit_only: false,
            collect_only: false,
        }
    }
}

/// Builds and runs the selected examples, then writes `target/figures/REPORT.md`.
pub fn run(root: &Path, options: &Options) -> Result {
    let declared = manifest::examples(&root.join("examples/Cargo.toml"))?;
    let selected = select(&declared, &options.only)?;
    let figures = root.join(FIGURES);
    if !selected.is_empty() && !options.collect_only {
        cargo(
            root,
            &["build", "--release", "-p", "cosched-examples", "--examples"],
        )?;
    }
    let mut runs = Vec::new();
    let mut missing = Vec::new();
    if options.collect_only {
        for name in selected {
            if root.join(FIGURES).join(name).is_dir() {
                runs.push(collect(root, name, elapsed_of(root, name))?);
            } else {
                missing.push(name);
            }
        }
    } else if options.slurm {
        let job = slurm_array::Job {
            names: &selected,
            quick: options.quick,
            partition: options.partition.as_deref(),
        };
        for name in &selected {
            clear(root, name)?;
        }
        let script = slurm_array::write_script(root, &job)?;
        if options.emit_only {
            say!("sbatch array script written to {}", script.display())?;
            say!(
                "submit it with `sbatch {}`; when its tasks are done, run `cargo xtask reproduce --collect-only{}` to write the report",
                script.display(),
                if options.quick { " --quick" } else { "" }
            )?;
            return Ok(());
        }
        slurm_array::submit_and_wait(root, &script)?;
        for name in selected {
            runs.push(collect(root, name, elapsed_of(root, name))?);
        }
    } else {
        for name in selected {
            runs.push(run_example(root, name, options.quick)?);
        }
    }
    fs::create_dir_all(&figures)
        .map_err(|e| format!("cannot create `{}`: {e}", figures.display()))?;
    let path = figures.join("REPORT.md");
    let report = report::render(options.quick, &options.only, &runs, &missing);
    fs::write(&path, report).map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    say!("Report written to {}", path.display())?;
    Ok(())
}

/// The declared examples named in `only` (all if it is empty), in declaration order.
fn select<'a>(declared: &'a [String], only: &[String]) -> Result<Vec<&'a str>> {
    let unknown: Vec<&str> = only
        .iter()
        .filter(|name| !declared.contains(name))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        let known = if declared.is_empty() {
            "none are declared".to_owned()
        } else {
            format!("declared: {}", declared.join(", "))
        };
        return Err(format!("unknown example(s) {} ({known})", unknown.join(", ")).into());
    }
    Ok(declared
        .iter()
        .filter(|name| only.is_empty() || only.contains(name))
        .map(String::as_str)
        .collect())
}

/// Empties `target/figures/NAME` before a run.
fn clear(root: &Path, name: &str) -> Result {
    let dir = root.join(FIGURES).join(name);
    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(|e| format!("cannot clear `{}`: {e}", dir.display()))?;
    }
    Ok(())
}

/// The run time an array task recorded for `name` (0 when it recorded none).
fn elapsed_of(root: &Path, name: &str) -> f64 {
    let path = root
        .join(FIGURES)
        .join(name)
        .join(slurm_array::ELAPSED_FILE);
    fs::read_to_string(path)
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .map_or(0.0, |ms| ms / 1000.0)
}

/// Runs example `name` into a fresh `target/figures/NAME` and reads what it wrote.
fn run_example(root: &Path, name: &str, quick: bool) -> Result<Run> {
    let out = format!("{FIGURES}/{name}");
    clear(root, name)?;
    let mut args = vec!["run", "--release", "--quiet", "-p", "cosched-examples"];
    args.extend(["--example", name, "--", "--out", &out]);
    if quick {
        args.push("--quick");
    }
    let start = Instant::now();
    cargo(root, &args).map_err(|e| format!("example `{name}` failed: {e}"))?;
    let seconds = start.elapsed().as_secs_f64();
    eprintln!("==> {name}: {seconds:.1} s");
    // Recorded as an array task records it, so `--collect-only` reports it too.
    let elapsed = root
        .join(FIGURES)
        .join(name)
        .join(slurm_array::ELAPSED_FILE);
    fs::write(&elapsed, format!("{}\n", start.elapsed().as_millis()))
        .map_err(|e| format!("cannot write `{}`: {e}", elapsed.display()))?;
    collect(root, name, seconds)
}

/// Reads what example `name` wrote into `target/figures/NAME`.
fn collect(root: &Path, name: &str, seconds: f64) -> Result<Run> {
    let dir = root.join(FIGURES).join(name);
    let table = dir.join(TABLE_FILE);
    let tables = fs::read_to_string(&table).map_err(|e| {
        format!(
            "example `{name}` wrote no readable `{}` ({e}); every example must write one",
            table.display()
        )
    })?;
    Ok(Run {
        name: name.to_owned(),
        provenance: provenance(&dir)?,
        seconds,
        tables,
        plots: plots(&dir)?,
        claims: claims(&dir)?,
    })
}

/// The totals of `claims.json` in `dir`, if the example wrote one.
fn claims(dir: &Path) -> Result<Option<ClaimTotals>> {
    let path = dir.join(CLAIMS_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let text =
        fs::read_to_string(&path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    match ClaimTotals::parse(&text) {
        Ok(totals) => Ok(Some(totals)),
        Err(e) => Err(format!("`{}` is not a claims file: {e}", path.display()).into()),
    }
}

/// How the outputs in `dir` were made (its `run.json`; unrecorded if there is none).
fn provenance(dir: &Path) -> Result<Provenance> {
    let path = dir.join(RUN_FILE);
    if !path.exists() {
        return Ok(Provenance::unrecorded());
    }
    let text =
        fs::read_to_string(&path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    Provenance::parse(&text)
        .map_err(|e| format!("`{}` is not a run file: {e}", path.display()).into())
}

/// The `.svg` and `.png` files in `dir`, by name.
fn plots(dir: &Path) -> Result<Vec<String>> {
    let entries = fs::read_dir(dir).map_err(|e| format!("cannot list `{}`: {e}", dir.display()))?;
    let mut plots = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list `{}`: {e}", dir.display()))?;
        let path = entry.path();
        let is_plot = path
            .extension()
            .is_some_and(|ext| ext == "svg" || ext == "png");
        if is_plot && path.is_file() {
            plots.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    plots.sort();
    Ok(plots)
}

#[cfg(test)]
mod tests {
    use super::select;

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn everything_is_selected_by_default_in_declaration_order() {
        let declared = names(&["b", "a"]);
        assert_eq!(select(&declared, &[]).unwrap(), ["b", "a"]);
        assert!(select(&[], &[]).unwrap().is_empty());
    }

    #[test]
    fn only_keeps_declaration_order() {
        let declared = names(&["b", "a", "c"]);
        assert_eq!(select(&declared, &names(&["c", "b"])).unwrap(), ["b", "c"]);
    }

    #[test]
    fn unknown_names_are_rejected_with_the_declared_ones() {
        let err = select(&names(&["a"]), &names(&["a", "zz"])).unwrap_err();
        assert_eq!(err.to_string(), "unknown example(s) zz (declared: a)");
        let err = select(&[], &names(&["zz"])).unwrap_err();
        assert_eq!(err.to_string(), "unknown example(s) zz (none are declared)");
    }
}
