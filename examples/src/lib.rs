//! # cosched-examples
//!
//! One example binary per reproduced paper table or figure, and the harness they share, so that
//! each example reads top to bottom as: **workload → sweep of configurations → table (ours
//! beside the paper's) → CSV + plot**.
//!
//! - [`CommonArgs`]: `--quick`, `--out DIR`, `--seed S`, flattened into each example's parser.
//! - [`Sweep`]: runs the configurations in parallel, results in input order, with a progress bar.
//! - [`Table`] of [`Cell`]s: aligned Markdown and CSV; [`Cell::Empty`] (`-`) where the paper
//!   gives no number.
//! - [`LinePlot`] and [`BarChart`]: SVG plots (no fonts needed), via the [`Figure`] trait.
//! - [`OutDir`]: the output directory that receives all of the above.
//! - [`Claims`]: the paper's statements about a table or figure, checked on our numbers and
//!   printed pass/fail under "Paper claims" ([`OutDir::write_claims`]).
//! - [`albatross`]: the paper's figures, one §V run summarised and the progress CSV, shared
//!   by the Albatross examples.
//! - [`balancer`]: the inputs, configurations and runs the Balancer examples share.
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
//!     # assert!(out.path().join("table.md").exists() && out.path().join("queue.svg").exists());
//!     Ok(())
//! }
//! ```

pub mod albatross;
mod args;
pub mod balancer;
pub mod claims;
mod error;
pub mod hybrid;
pub mod metasched;
mod out;
mod plot;
pub mod rhic;
mod sweep;
mod table;

pub use args::CommonArgs;
pub use claims::{CLAIMS_FILE, Claim, Claims};
pub use error::{Error, Result};
pub use out::{OutDir, TABLE_FILE};
pub use plot::{BarChart, Figure, LinePlot, PlotError};
pub use sweep::Sweep;
pub use table::{Cell, Table};
