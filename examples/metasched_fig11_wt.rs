//! Murali & Vadhiyar, Figure 11: the trade-off between response time and electricity cost as
//! the weight `w_t` of response time goes from 0 (cost only) to 1 (response time only), MCMF
//! with exact what-if waits.
//!
//! Workload → `w_t` sweep (in parallel) → table (relative to BS) → CSV + two plots: the
//! relative curves against `w_t` and the cost/response trade-off curve.

use clap::Parser;
use cosched_examples::metasched::{RunConfig, ScenarioArgs, Strategy, SweepReport, minutes};
use cosched_examples::{CommonArgs, LinePlot};

const NAME: &str = "metasched_fig11_wt";

#[derive(Parser)]
#[command(about = "Metascheduling (Murali & Vadhiyar) Figure 11: w_t trade-off")]
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
    let steps: Vec<f64> = if cli.common.quick {
        vec![0.0, 0.5, 1.0]
    } else {
        (0..=10).map(|i| f64::from(i) / 10.0).collect()
    };
    let points: Vec<(f64, RunConfig)> = steps
        .iter()
        .map(|&w_t| {
            (
                w_t,
                RunConfig {
                    w_t,
                    ..RunConfig::new(Strategy::Mcmf, seed)
                },
            )
        })
        .collect();
    // Exact waits and full participation draw nothing at random: one seed suffices.
    let result = scenario.sweep(NAME, &points, seed, 1)?;
    SweepReport {
        name: NAME,
        title: "MCMF against w_t (weight of response time)",
        x_label: "w_t",
        x_decimals: 1,
        notes: format!(
            "Paper: Figure 11 (a curve; the brief transcribes no numbers). {} MaxQ {}, exact \
             what-if waits.",
            scenario.description,
            cosched_examples::metasched::DEFAULT_MAX_Q
        ),
    }
    .write(&mut out, &result)?;
    let tradeoff = LinePlot::new(
        "tradeoff",
        "Response time against electricity cost, w_t from 0 to 1",
    )
    .x_label("total cost ($)")
    .y_label("mean response (min)")
    .series(
        "MCMF",
        result
            .points
            .iter()
            .map(|(_, a)| (a.cost_usd, minutes(a.response_s))),
    )
    .series(
        "BS",
        [(
            result.baseline.cost_usd,
            minutes(result.baseline.response_s),
        )],
    );
    out.write_plot(&tradeoff)?;
    Ok(())
}
