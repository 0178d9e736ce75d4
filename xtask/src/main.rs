//! Workspace automation for cosched, run as `cargo xtask TASK`.
//!
//! - `cargo xtask reproduce [--quick] [--only NAME,...]`: builds and runs the examples declared
//!   in `examples/Cargo.toml`, then collects their tables and plots into
//!   `target/figures/REPORT.md`; `--collect-only` writes it from the outputs already there,
//!   which may come from different runs (each example's `run.json` says full or quick).
//! - `cargo xtask slurm up [--nodes N] | down | status`: a real multi-node Slurm cluster on this
//!   machine, under `target/slurm` (see [`slurm`]).
//! - `cargo xtask ci`: what CI runs, stopping at the first failure: `cargo fmt --all --check`,
//!   `cargo clippy --workspace --all-targets -- -D warnings`, `cargo test --workspace`, then
//!   `cargo xtask reproduce --quick`.

mod manifest;
mod report;
mod reproduce;
mod slurm;
mod slurm_array;

use std::error::Error;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand};

/// Errors are reported to the user as text, then xtask exits non-zero.
type Result<T = ()> = std::result::Result<T, Box<dyn Error>>;

/// Writes to standard output, checked: a full disk or a closed pipe is an error, not a panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, $($arg)*)
            .and_then(|()| stdout.flush())
            .map_err(|e| format!("cannot write to standard output: {e}"))
    }};
}
pub(crate) use say;

/// cosched workspace automation.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Build and run the examples, then write target/figures/REPORT.md.
    Reproduce(reproduce::Options),
    /// Run what CI runs (`.ci/run`), then a quick reproduction; stop at the first failure.
    Ci,
    /// A local multi-node Slurm cluster under target/slurm: up, down, status.
    Slurm {
        /// What to do.
        #[command(subcommand)]
        action: slurm::Action,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = workspace_root();
    let outcome = match cli.task {
        Task::Reproduce(options) => reproduce::run(&root, &options),
        Task::Ci => ci(&root),
        Task::Slurm { action } => slurm::run(&root, &action),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: the parent of this package's directory.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in a directory of the workspace")
        .to_owned()
}

/// Runs `.ci/run` (what CI runs: fmt, clippy, the policy-only builds, docs, the local Slurm
/// and the test suite), then a quick reproduction, so the two never drift apart.
fn ci(root: &Path) -> Result {
    let script = root.join(".ci").join("run");
    let status = Command::new("bash")
        .arg(&script)
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot start `bash {}`: {e}", script.display()))?;
    if !status.success() {
        return Err(format!("`{}` failed ({status})", script.display()).into());
    }
    reproduce::run(root, &reproduce::Options::quick())
}

/// Runs `cargo ARGS` at the workspace root with inherited stdio; fails unless it succeeds.
///
/// The cargo binary is `$CARGO` (set when run through cargo), else `cargo` from `PATH`.
fn cargo<S: AsRef<OsStr>>(root: &Path, args: &[S]) -> Result {
    let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_string_lossy()).collect();
    let shown = format!("cargo {}", shown.join(" "));
    eprintln!("==> {shown}");
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(program)
        .args(args)
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot start `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})").into())
    }
}
