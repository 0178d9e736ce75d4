//! # cosched-examples
//!
//! One example binary per reproduced paper table or figure, and the harness they share, so that
//! each example reads top to bottom as: **workload → sweep of configurations → table (ours
//! beside the paper's) → CSV + plot**.
//!
//! - [`main_with`]: an example's `main`: parses its flags, runs it, and prints any failure as
//!   one `error: …` line with exit status 1 (never a panic or a `Debug` dump); [`outln!`]
//!   prints to stdout and reports a failure to write (`>/dev/full`) as an error.
//! - [`CommonArgs`]: `--quick`, `--out DIR`, `--seed S`, flattened into each example's parser;
//!   [`Seeds`] (validated, wrapping seed ranges) and the flag parsers [`parse_seed_count`],
//!   [`parse_job_count`] and [`parse_units`], so no flag is used unchecked.
//! - [`Sweep`]: runs the configurations in parallel, results in input order, with a progress
//!   bar; [`Sweep::try_run`] stops at the first failure, and [`Sweep::run_replicated`] runs
//!   every configuration once per seed, giving [`Replicates`], the one multi-seed averager
//!   (mean and [`cosched_core::stats::Spread`] of any metric).
//! - [`Table`] of [`Cell`]s: aligned Markdown and CSV; [`Cell::Empty`] (`-`) where the paper
//!   gives no number.
//! - [`LinePlot`] and [`BarChart`]: the workspace's figures (`cosched-plot`: one look per series
//!   name, legends beside the data), written as SVG through the [`Figure`] trait.
//! - [`OutDir`]: the output directory that receives all of the above, each file moved into
//!   place only when the run succeeds and never over a file named on the command line.
//! - [`Claims`]: the paper's statements about a table or figure, checked on our numbers and
//!   printed pass/fail under "Paper claims" ([`OutDir::write_claims`]).
//! - [`albatross`]: the progress CSV the Albatross examples write (the rest of their
//!   wiring is `cosched_albatross::scenario`).
//! - [`balancer`]: the inputs, configurations and runs the Balancer examples share;
//!   [`balancer_week`]: Table I's columns, calibration and claims on a real week.
//! - [`rhic`]: the setup the RHIC examples share.
//! - [`metasched`]: the inputs, runs and reports the metascheduling examples share.
//! - [`hybrid`]: the flags, workloads and runs the hybrid-scheduling examples share.
//!
//! ## Running an example
//!
//! Examples are declared in `examples/Cargo.toml` as `[[example]] name = "NAME"
//! path = "NAME.rs"` and run as
//! `cargo run --release --example NAME -- [--quick] [--out DIR] [--seed S]`.
//! `--quick` selects a small configuration that finishes well under a minute (CI runs it).
//!
//! ## The report convention
//!
//! `cargo xtask reproduce` runs every declared example with `--out target/figures/NAME` and
//! collects the results into `target/figures/REPORT.md`. For that, an example writes into its
//! output directory:
//!
//! - `table.md`: its tables in Markdown, each a `###` title line, an optional notes paragraph
//!   (e.g. where the paper's numbers come from) and the grid. [`OutDir::write_table`] builds it,
//!   one section per table, and writes each table's `<name>.csv` beside it;
//! - one or more `<file>.svg` plots, written by [`OutDir::write_plot`];
//! - `claims.json`: the paper's claims checked on our numbers ([`OutDir::write_claims`]),
//!   totalled by the report as "claims reproduced: N of M" per paper.
//!
//! The report inlines `table.md` under a section per example and links every `.svg` or `.png`
//! in the directory. Outputs must be deterministic: no timestamps, and results in a fixed order
//! (which [`Sweep`] guarantees) for a given `--seed`.
//!
//! ## Example
//!
//! A real example's `main` is `fn main() -> ExitCode { cosched_examples::main_with(run) }`
//! ([`main_with`]), so that a bad flag or input is one `error: …` line; here the body runs on
//! a fixed command line.
//!
//! ```
//! use clap::Parser;
//! use cosched_examples::{Cell, CommonArgs, LinePlot, Sweep, Table};
//!
//! const NAME: &str = "demo";
//!
//! #[derive(Parser)]
//! struct Cli {
//!     #[command(flatten)]
//!     common: CommonArgs,
//! }
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     # let tmp = tempfile::tempdir()?;
//!     # let out = tmp.path().join(NAME);
//!     # let cli = Cli::parse_from(["demo", "--quick", "--out", out.to_str().unwrap()]);
//!     # /*
//!     let cli = Cli::parse();
//!     # */
//!     let mut out = cli.common.output(NAME)?;
//!     let loads = if cli.common.quick { vec![0.5, 0.9] } else { vec![0.5, 0.6, 0.7, 0.8, 0.9] };
//!     // The "simulation": one result per configuration, in input order.
//!     let results = Sweep::new(NAME, loads).run(|&load| load / (1.0 - load));
//!
//!     let paper = [Some(1.0), None];
//!     let mut table = Table::new("queue", "Queue length against load", ["load", "ours", "paper"])
//!         .with_notes("Paper values: Table 2.");
//!     for (i, (load, ours)) in results.iter().enumerate() {
//!         let paper = Cell::paper(paper.get(i).copied().flatten(), 2);
//!         table.row([Cell::fixed(*load, 1), Cell::fixed(*ours, 2), paper]);
//!     }
//!     out.write_table(&table)?;
//!
//!     let plot = LinePlot::new("queue", "Queue length against load")
//!         .x_label("load")
//!         .y_label("queue length")
//!         .series("ours", results.iter().copied());
//!     out.write_plot(&plot)?;
//!     // `main_with` moves the files into place once `run` has succeeded; this `main` does.
//!     # let dir = out.path().to_path_buf();
//!     out.commit()?;
//!     # assert!(dir.join("table.md").exists() && dir.join("queue.svg").exists());
//!     Ok(())
//! }
//! ```

use std::process::ExitCode;

pub mod albatross;
mod args;
pub mod balancer;
pub mod balancer_week;
pub mod claims;
pub mod converged;
pub mod custom;
mod error;
pub mod hybrid;
pub mod metasched;
mod out;
pub mod paired;
pub mod rhic;
mod sweep;
mod table;

pub use args::{
    CommonArgs, MAX_JOBS, MAX_SEEDS, Seeds, parse_job_count, parse_seed_count, parse_units,
};
pub use claims::{CLAIMS_FILE, Claim, Claims};
pub use cosched_plot::{BarChart, Figure, LinePlot, PlotError};
pub use error::{Error, Result};
pub use out::{OutDir, RUN_FILE, TABLE_FILE};
pub use paired::{Paired, Significance};
pub use sweep::{Replicates, Sweep};
pub use table::{Cell, Table};

/// Runs an example's main: parses its command line `C`, runs `run`, and turns every failure
/// into one line `error: …` on stderr and exit status 1 (a usage error too, where clap would
/// print its usage block and exit 2); `--help` and `--version` print and exit 0. Never a Rust
/// `Debug` dump of the error.
///
/// ```no_run
/// use clap::Parser;
/// use cosched_examples::CommonArgs;
///
/// /// What this example reproduces (shown by `--help`).
/// #[derive(Parser)]
/// struct Cli {
///     #[command(flatten)]
///     common: CommonArgs,
/// }
///
/// fn main() -> std::process::ExitCode {
///     cosched_examples::main_with(|cli: Cli| -> Result<(), Box<dyn std::error::Error>> {
///         cosched_examples::outln!("seed {}", cli.common.seed)?;
///         Ok(())
///     })
/// }
/// ```
pub fn main_with<C, E, F>(run: F) -> ExitCode
where
    C: clap::Parser,
    E: std::fmt::Display,
    F: FnOnce(C) -> std::result::Result<(), E>,
{
    let cli = match C::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help, --version: print as clap does; a failure to print is still an error.
            return match e.print() {
                Ok(()) => ExitCode::SUCCESS,
                Err(io) => fail(Error::Stdout(io)),
            };
        }
        Err(e) => {
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or("invalid command line");
            return fail(first.strip_prefix("error: ").unwrap_or(first));
        }
    };
    let result = run(cli);
    match (out::finish(result.is_ok()), result) {
        (Ok(()), Ok(())) => ExitCode::SUCCESS,
        (Err(e), Ok(())) => fail(e),
        (_, Err(e)) => fail(e),
    }
}

/// Ends an example whose `run` returned `result`: success, or the error printed as one line
/// `error: {e}: {cause}: …` (its message and causes, never Debug output) and status 1. For
/// examples that parse their own flags; [`main_with`] does the parsing too.
pub fn exit(result: std::result::Result<(), Box<dyn std::error::Error>>) -> ExitCode {
    let result = out::finish(result.is_ok()).map_err(Box::from).and(result);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(error_chain(e.as_ref())),
    }
}

/// `e`'s message and its causes as one line, `{e}: {cause}: …`, each cause once: a cause
/// whose text a message already shows (an error type that prints its source itself, as
/// [`Error::Io`] does) is not repeated.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

/// Prints `error: {e}` on stderr (ignoring a failure to print it) and returns status 1.
fn fail(e: impl std::fmt::Display) -> ExitCode {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "error: {e}");
    ExitCode::FAILURE
}

/// Writes `args` and a line break to standard output, reporting failure (a closed pipe, a full
/// disk) as [`Error::Stdout`] instead of panicking as `println!` does. [`outln!`] calls it.
///
/// # Errors
/// [`Error::Stdout`].
pub fn write_stdout(args: std::fmt::Arguments<'_>) -> Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(Error::Stdout)
}

/// `println!` that returns a [`Result`] instead of panicking when standard output cannot be
/// written (`>/dev/full`): `outln!("{x}")?`.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::write_stdout(::std::format_args!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use cosched_balancer::traces::TraceError;

    fn not_found() -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory")
    }

    #[test]
    fn an_io_cause_is_printed_once() {
        // Both the harness's and the Balancer's I/O errors print their source themselves.
        let harness = Error::io("week.csv", not_found());
        let line = error_chain(&harness);
        assert_eq!(line, "I/O error on `week.csv`: No such file or directory");
        let trace = TraceError::Io {
            file: "aps/2015-07-19.csv.gz".to_owned(),
            source: not_found(),
        };
        assert_eq!(
            error_chain(&trace),
            "aps/2015-07-19.csv.gz: I/O error: No such file or directory"
        );
        let boxed: Box<dyn std::error::Error> = Box::new(trace);
        assert_eq!(
            error_chain(boxed.as_ref()).matches("No such file").count(),
            1
        );
    }

    #[test]
    fn a_cause_the_message_does_not_show_is_appended() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot read the week")]
        struct Outer(#[source] std::io::Error);
        assert_eq!(
            error_chain(&Outer(not_found())),
            "cannot read the week: No such file or directory"
        );
    }
}
