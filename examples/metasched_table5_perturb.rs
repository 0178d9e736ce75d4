//! Murali & Vadhiyar, Table 5: sensitivity of MCMF to wait-time prediction errors. Each
//! predicted wait is the exact what-if wait times `1 + e·u`, `u` uniform in `[−1, 1]` per
//! (job, site), for a growing relative error `e`.
//!
//! Workload → error sweep × seeds (in parallel) → table (relative to BS) → CSV + plot.

use clap::Parser;
use cosched_examples::CommonArgs;
use cosched_examples::metasched::{RunConfig, ScenarioArgs, Strategy, SweepReport};

const NAME: &str = "metasched_table5_perturb";

#[derive(Parser)]
#[command(about = "Metascheduling (Murali & Vadhiyar) Table 5: wait-prediction errors")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    scenario: ScenarioArgs,
    /// Seeds of the prediction errors averaged per error level [default: 5, quick: 2].
    #[arg(long)]
    seeds: Option<u64>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let seed = cli.common.seed;
    let mut out = cli.common.output(NAME)?;
    let scenario = cli.scenario.scenario(cli.common.quick, seed)?;
    let seeds = cli.seeds.unwrap_or(if cli.common.quick { 2 } else { 5 });
    let errors = if cli.common.quick {
        vec![0.0, 0.5]
    } else {
        vec![0.0, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0]
    };
    let points: Vec<(f64, RunConfig)> = errors
        .iter()
        .map(|&error| {
            (
                error,
                RunConfig {
                    wait_error: Some(error),
                    ..RunConfig::new(Strategy::Mcmf, seed)
                },
            )
        })
        .collect();
    let result = scenario.sweep(NAME, &points, seed, seeds)?;
    SweepReport {
        name: NAME,
        title: "MCMF against the relative wait-prediction error",
        x_label: "relative error",
        x_decimals: 2,
        notes: format!(
            "Paper: Table 5 (the brief transcribes no numbers). {} w_t {}, MaxQ {}; waits = \
             what-if x (1 + e u), u uniform in [-1, 1] per (job, site); each level averaged \
             over {seeds} error seed(s) from {seed}.",
            scenario.description,
            cosched_examples::metasched::DEFAULT_W_T,
            cosched_examples::metasched::DEFAULT_MAX_Q
        ),
    }
    .write(&mut out, &result)?;
    Ok(())
}
