//! Murali & Vadhiyar, Figure 12: partial grid participation — only a (seeded, Bernoulli)
//! fraction of the measured jobs goes through the MCMF metascheduler, the rest run at their
//! submission site.
//!
//! Workload → fraction sweep × seeds (in parallel) → table (relative to BS) → CSV + plot.

use clap::Parser;
use cosched_examples::CommonArgs;
use cosched_examples::metasched::{RunConfig, ScenarioArgs, Strategy, SweepReport};

const NAME: &str = "metasched_fig12_fraction";

#[derive(Parser)]
#[command(about = "Metascheduling (Murali & Vadhiyar) Figure 12: participation fraction")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    scenario: ScenarioArgs,
    /// Seeds of the participation draws averaged per fraction [default: 5, quick: 2].
    #[arg(long)]
    seeds: Option<u64>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let seed = cli.common.seed;
    let mut out = cli.common.output(NAME)?;
    let scenario = cli.scenario.scenario(cli.common.quick, seed)?;
    let seeds = cli.seeds.unwrap_or(if cli.common.quick { 2 } else { 5 });
    let fractions = if cli.common.quick {
        vec![0.25, 1.0]
    } else {
        vec![0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]
    };
    let points: Vec<(f64, RunConfig)> = fractions
        .iter()
        .map(|&participation| {
            (
                participation,
                RunConfig {
                    participation,
                    ..RunConfig::new(Strategy::Mcmf, seed)
                },
            )
        })
        .collect();
    let result = scenario.sweep(NAME, &points, seed, seeds)?;
    SweepReport {
        name: NAME,
        title: "MCMF against the fraction of jobs in the grid",
        x_label: "participation",
        x_decimals: 2,
        notes: format!(
            "Paper: Figure 12 (a curve; the brief transcribes no numbers). {} w_t {}, MaxQ {}, \
             exact what-if waits; each fraction averaged over {seeds} participation seed(s) \
             from {seed}.",
            scenario.description,
            cosched_examples::metasched::DEFAULT_W_T,
            cosched_examples::metasched::DEFAULT_MAX_Q
        ),
    }
    .write(&mut out, &result)?;
    Ok(())
}
