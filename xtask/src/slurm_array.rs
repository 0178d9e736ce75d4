//! `cargo xtask reproduce --slurm`: the examples as one Slurm job array.
//!
//! One array task per example runs the example's release binary (built once beforehand) into
//! `target/figures/NAME`, exactly as a local run does, and records its wall time; the report is
//! then collected from those directories as after a local run, so its tables are byte-identical.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Result;

/// The file in which a task records its run time, in milliseconds.
pub const ELAPSED_FILE: &str = ".elapsed_ms";

/// What the array runs.
pub struct Job<'a> {
    /// The examples, one task each.
    pub names: &'a [&'a str],
    /// Whether they run in quick mode.
    pub quick: bool,
    /// The partition, if not the default.
    pub partition: Option<&'a str>,
}

/// Writes the array script to `target/figures/slurm/reproduce.sbatch`; returns its path.
pub fn write_script(root: &Path, job: &Job<'_>) -> Result<PathBuf> {
    let dir = root.join("target/figures/slurm");
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    let path = dir.join("reproduce.sbatch");
    fs::write(&path, script(root, job))
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    Ok(path)
}

/// The sbatch script.
fn script(root: &Path, job: &Job<'_>) -> String {
    let root = root.display();
    let mut s = String::from(
        "#!/bin/bash\n# Written by `cargo xtask reproduce --slurm`: one task per example.\n",
    );
    let _ = writeln!(s, "#SBATCH --job-name=cosched-reproduce");
    let _ = writeln!(s, "#SBATCH --array=0-{}", job.names.len().saturating_sub(1));
    let _ = writeln!(s, "#SBATCH --nodes=1");
    let _ = writeln!(s, "#SBATCH --chdir={root}");
    let _ = writeln!(
        s,
        "#SBATCH --output={root}/target/figures/slurm/task-%a.out"
    );
    if let Some(p) = job.partition {
        let _ = writeln!(s, "#SBATCH --partition={p}");
    }
    s.push_str("set -euo pipefail\n");
    let names: Vec<String> = job.names.iter().map(|n| format!("'{n}'")).collect();
    let _ = writeln!(s, "names=({})", names.join(" "));
    s.push_str("name=${names[$SLURM_ARRAY_TASK_ID]}\n");
    s.push_str("start=$(date +%s%N)\n");
    let quick = if job.quick { " --quick" } else { "" };
    let _ = writeln!(
        s,
        "\"target/release/examples/$name\" --out \"target/figures/$name\"{quick}"
    );
    let _ = writeln!(
        s,
        "echo $(( ($(date +%s%N) - start) / 1000000 )) > \"target/figures/$name/{ELAPSED_FILE}\""
    );
    s
}

/// Submits `script` and waits for every task (`sbatch --wait`); fails if any task failed.
pub fn submit_and_wait(root: &Path, script: &Path) -> Result {
    eprintln!("==> sbatch --wait {}", script.display());
    let out = Command::new("sbatch")
        .args(["--parsable", "--wait"])
        .arg(script)
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run sbatch ({e}); is Slurm's client installed and a cluster up (`cargo xtask slurm up`, then export SLURM_CONF)?"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "the array job failed ({}): {}; see target/figures/slurm/task-*.out",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    )
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_task_per_example_with_the_local_arguments() {
        let names = ["a_fig1", "b_table2"];
        let s = script(
            Path::new("/w"),
            &Job {
                names: &names,
                quick: true,
                partition: Some("debug"),
            },
        );
        assert!(s.contains("#SBATCH --array=0-1\n"));
        assert!(s.contains("#SBATCH --partition=debug\n"));
        assert!(s.contains("names=('a_fig1' 'b_table2')\n"));
        assert!(s.contains(
            "\"target/release/examples/$name\" --out \"target/figures/$name\" --quick\n"
        ));
    }
}
