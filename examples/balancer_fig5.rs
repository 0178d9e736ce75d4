//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), Figure 5: the Predictive strategy. An
//! out-of-band predictor splits each day into four 6-hour slots, records the nodes requested
//! per slot, and at each slot's start has the Balancer hold a reserve sized from the peaks of
//! the same slot over the last month, week and day (our default combines them by their mean;
//! `Max` is the month's peak; see `cosched_balancer::predictor`). Compared with the Basic
//! Balancer (`R = W = 0`) over ρ = 1.25 % × {1, 2, 4, 8, 16, 24} on the five synthetic batch
//! workloads, 372 nodes, several weeks (the predictor needs a history), preloaded.
//!
//! The predicted reserve, like any unused reserve, returns to batch after the idle hold `I`
//! from the slot's start; with the examples' short default `I` it lasts minutes, so the
//! Predictive variants are also run with `I` = one slot (6 h), which keeps the reserve for
//! the slot it was predicted for.
//!
//! Expected shape: the predicted reserve cuts rejections against Basic where the on-demand
//! load repeats day to day (our synthetic load is diurnal), at a cost in unused reserve
//! node-hours and batch wait. The paper shows curves and gives no numbers for this figure, so
//! none are printed beside ours.

use clap::Parser;
use cosched_balancer::predictor::{Combine, SLOT};
use cosched_balancer::synthetic::RHO_SCALES;
use cosched_core::Duration;
use cosched_examples::CommonArgs;
use cosched_examples::balancer::{
    BATCH_WAIT, BalancerArgs, Curves, FigureOutput, Plots, REJECT_RATE, RESERVE_IDLE, Variant,
    prepare, rho_percent, run_grid,
};

const NAME: &str = "balancer_fig5";

#[derive(Parser)]
#[command(about = "The Balancer, Figure 5: the Predictive reserve against Basic")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    inputs: BalancerArgs,
    /// Seeds averaged (replicates of every synthetic input) [default: 3, quick: 1].
    #[arg(long, value_name = "N")]
    seeds: Option<u32>,
    /// Weeks simulated with synthetic batch inputs [default: 4, quick: 2].
    #[arg(long)]
    weeks: Option<u32>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let (common, inputs) = (&cli.common, &cli.inputs);
    let weeks = cli.weeks.unwrap_or(if common.quick { 2 } else { 4 });
    let mut p = prepare(NAME, common, inputs, 1, weeks, cli.seeds)?;
    let scales: &[u32] = if common.quick { &[2, 8] } else { &RHO_SCALES };
    let mut variants = vec![Variant {
        label: "Basic R=W=0".to_owned(),
        configuration: inputs.basic(0, Duration::ZERO),
        notice: None,
    }];
    for (name, rule, hold) in [
        ("mean", Combine::Mean, inputs.idle_hold()),
        ("mean", Combine::Mean, SLOT),
        ("max", Combine::Max, SLOT),
    ] {
        variants.push(Variant {
            label: format!("Predictive ({name}, I={} min)", hold.0 / 60),
            configuration: inputs.predictive(rule, Duration::ZERO, hold),
            notice: None,
        });
    }
    let results = run_grid(NAME, inputs, &p, scales, &variants)?;
    let figure = FigureOutput {
        title: format!(
            "Figure 5: predictive reserve, W = 0, {} nodes, {:.0} days",
            inputs.nodes,
            p.span.0 as f64 / 86_400.0
        ),
        notes: format!(
            "6-hour slots, peaks of the last month / week / day; I as labelled; curves of \
             {}.",
            p.labels[0]
        ),
        plots: Plots {
            prefix: "fig5",
            title: &format!("Figure 5, predictive ({})", p.labels[0]),
            curves: Curves::PerVariant { workload: 0 },
            x_label: "on-demand load rho (%)",
            x: &rho_percent,
        },
        metrics: &[REJECT_RATE, RESERVE_IDLE, BATCH_WAIT],
    };
    p.write(NAME, scales, &figure, &variants, &results)?;
    Ok(())
}
