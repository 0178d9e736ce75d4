//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), Figure 2: the Basic Balancer with no
//! static reserve and no wait window (`R = W = 0`) on the five synthetic batch workloads
//! (U66-Main, U66-Wide, U66-Narrow, U77-Main, U88-Main) against on-demand loads
//! ρ = 1.25 % × {1, 2, 4, 8, 16, 24} on the 372-node cluster, one week, preloaded.
//!
//! Per cell: the mean batch wait beside the all-batch lower bound (every on-demand request
//! rejected), the on-demand reject rate and the utilisations. Expected shape: the reject rate
//! grows with ρ and with the batch load (the Balancer can only take idle nodes when `W = 0`),
//! and the batch wait stays near its lower bound. The paper shows curves and gives no numbers
//! for this figure, so none are printed beside ours.

use cosched_balancer::sim::Configuration;
use cosched_balancer::synthetic::RHO_SCALES;
use cosched_core::Duration;
use cosched_examples::balancer::{
    BATCH_WAIT, Curves, FigureCli, FigureOutput, Plots, REJECT_RATE, Variant, prepare, rho_percent,
    run_grid,
};

const NAME: &str = "balancer_fig2";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = FigureCli::parse_about(
        "The Balancer, Figure 2: Basic (R = W = 0) over 5 batch workloads x 6 rho",
    );
    let (common, inputs) = (&cli.common, &cli.inputs);
    let mut p = prepare(NAME, common, inputs, 2, 1, cli.seeds)?;
    let scales: &[u32] = if common.quick { &[1, 8] } else { &RHO_SCALES };
    let variants = [
        Variant {
            label: "Basic R=W=0".to_owned(),
            configuration: inputs.basic(0, Duration::ZERO),
            notice: None,
        },
        Variant {
            label: "all-batch".to_owned(),
            configuration: Configuration::AllBatch,
            notice: None,
        },
    ];
    let results = run_grid(NAME, inputs, &p, scales, &variants)?;
    let figure = FigureOutput {
        title: format!(
            "Figure 2: Basic Balancer (R = W = 0), {} nodes, one week",
            inputs.nodes
        ),
        notes: format!(
            "I = {} min. rho: offered on-demand load over the week. all-batch: the same \
             batch week with every request rejected (the wait's lower bound; it does not \
             depend on rho).",
            inputs.idle_hold
        ),
        plots: Plots {
            prefix: "fig2",
            title: "Figure 2, Basic R = W = 0",
            curves: Curves::PerWorkload { variant: Some(0) },
            x_label: "on-demand load rho (%)",
            x: &rho_percent,
        },
        metrics: &[REJECT_RATE, BATCH_WAIT],
    };
    p.write(NAME, scales, &figure, &variants, &results)?;
    Ok(())
}
