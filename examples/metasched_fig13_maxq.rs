//! Murali & Vadhiyar, Figure 13: the effect of `MaxQ`, the most jobs one site may receive per
//! scheduling cycle, on MCMF's response time and electricity cost.
//!
//! Workload → `MaxQ` sweep (in parallel) → table (relative to BS) → CSV + plot.

use clap::Parser;
use cosched_examples::metasched::{RunConfig, SweepCli, SweepExample};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    SweepExample {
        name: "metasched_fig13_maxq",
        title: "MCMF against MaxQ (jobs per site per cycle)",
        paper: "Figure 13 (a curve)",
        x_label: "MaxQ",
        x_decimals: 0,
        full: &[1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0],
        quick: &[1.0, 10.0],
        // The x values are small whole numbers.
        configure: |max_q, c| RunConfig {
            max_q: max_q as u32,
            ..c
        },
    }
    .run(&SweepCli::parse())?;
    Ok(())
}
