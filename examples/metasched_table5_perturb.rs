//! Murali & Vadhiyar, Table 5: sensitivity of MCMF to wait-time prediction errors. Each
//! predicted wait is the what-if wait times `1 + e·u`, `u` uniform in `[−1, 1]` per
//! (job, site), for a growing relative error `e`.
//!
//! Workload → error sweep × seeds (in parallel) → table (relative to BS) → CSV + plot.

use clap::Parser;
use cosched_examples::metasched::{RunConfig, SweepCli, SweepExample};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    SweepExample {
        name: "metasched_table5_perturb",
        title: "MCMF against the relative wait-prediction error",
        paper: "Table 5",
        x_label: "relative error",
        x_decimals: 2,
        full: &[0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0],
        quick: &[0.0, 0.5],
        configure: |error, c| RunConfig {
            wait_error: Some(error),
            ..c
        },
    }
    .run(&SweepCli::parse())?;
    Ok(())
}
