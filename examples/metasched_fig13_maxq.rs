//! Murali & Vadhiyar, Figure 13: the effect of `MaxQ`, the most jobs one site may receive per
//! scheduling cycle, on MCMF's response time and electricity cost.
//!
//! Workload → `MaxQ` sweep (in parallel) → table (relative to BS) → CSV + plot.

use clap::Parser;
use cosched_examples::CommonArgs;
use cosched_examples::metasched::{RunConfig, ScenarioArgs, Strategy, SweepReport};

const NAME: &str = "metasched_fig13_maxq";

#[derive(Parser)]
#[command(about = "Metascheduling (Murali & Vadhiyar) Figure 13: MaxQ")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    scenario: ScenarioArgs,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let seed = cli.common.seed;
    let mut out = cli.common.output(NAME)?;
    let scenario = cli.scenario.scenario(cli.common.quick, seed)?;
    let max_qs: &[u32] = if cli.common.quick {
        &[1, 10]
    } else {
        &[1, 2, 3, 5, 10, 20, 50]
    };
    let points: Vec<(f64, RunConfig)> = max_qs
        .iter()
        .map(|&max_q| {
            (
                f64::from(max_q),
                RunConfig {
                    max_q,
                    ..RunConfig::new(Strategy::Mcmf, seed)
                },
            )
        })
        .collect();
    // Exact waits and full participation draw nothing at random: one seed suffices.
    let result = scenario.sweep(NAME, &points, seed, 1)?;
    SweepReport {
        name: NAME,
        title: "MCMF against MaxQ (jobs per site per cycle)",
        x_label: "MaxQ",
        x_decimals: 0,
        notes: format!(
            "Paper: Figure 13 (a curve; the brief transcribes no numbers). {} w_t {}, exact \
             what-if waits.",
            scenario.description,
            cosched_examples::metasched::DEFAULT_W_T
        ),
    }
    .write(&mut out, &result)?;
    Ok(())
}
