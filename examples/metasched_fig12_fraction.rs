//! Murali & Vadhiyar, Figure 12: partial grid participation — only a (seeded, Bernoulli)
//! fraction of the measured jobs goes through the MCMF metascheduler, the rest run at their
//! submission site.
//!
//! Workload → fraction sweep × seeds (in parallel) → table (relative to BS) → CSV + plot.

use clap::Parser;
use cosched_examples::metasched::{RunConfig, SweepCli, SweepExample};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    SweepExample {
        name: "metasched_fig12_fraction",
        title: "MCMF against the fraction of jobs in the grid",
        paper: "Figure 12 (a curve)",
        x_label: "participation",
        x_decimals: 2,
        full: &[0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0],
        quick: &[0.25, 1.0],
        configure: |participation, c| RunConfig { participation, ..c },
    }
    .run(&SweepCli::parse())?;
    Ok(())
}
