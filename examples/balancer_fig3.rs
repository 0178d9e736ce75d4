//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), Figure 3: the Basic Balancer's static
//! reserve `R` swept at on-demand load ρ = 10 % (1.25 % × 8), `W = 0`, on the five synthetic
//! batch workloads, 372 nodes, one week, preloaded.
//!
//! Expected shape: a larger reserve lowers the on-demand reject rate (to zero once `R`
//! covers the bursts the idle batch nodes cannot), at the price of unused reserve node-hours
//! and a longer batch wait. The paper shows curves and gives no numbers for this figure, so
//! none are printed beside ours.

use cosched_core::Duration;
use cosched_examples::balancer::{
    BATCH_WAIT, Curves, FigureCli, FigureOutput, Plots, REJECT_RATE, RESERVE_IDLE, Variant,
    prepare, run_grid,
};

const NAME: &str = "balancer_fig3";
/// ρ = 1.25 % × 8 = 10 %.
const SCALE: u32 = 8;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = FigureCli::parse_about("The Balancer, Figure 3: static reserve sweep at rho = 10 %");
    let (common, inputs) = (&cli.common, &cli.inputs);
    let mut p = prepare(NAME, common, inputs, 1, 1, cli.seeds)?;
    let reserves: &[u32] = if common.quick {
        &[0, 32, 128]
    } else {
        &[0, 8, 16, 24, 32, 48, 64, 96, 128]
    };
    let variants: Vec<Variant> = reserves
        .iter()
        .map(|&r| Variant {
            label: format!("R={r}"),
            configuration: inputs.basic(r, Duration::ZERO),
            notice: None,
        })
        .collect();
    let results = run_grid(NAME, inputs, &p, &[SCALE], &variants)?;
    let figure = FigureOutput {
        title: format!(
            "Figure 3: static reserve sweep, rho = 10 %, W = 0, {} nodes, one week",
            inputs.nodes
        ),
        notes: format!(
            "I = {} min; R = the Basic Balancer's static reserve (nodes).",
            inputs.idle_hold
        ),
        plots: Plots {
            prefix: "fig3",
            title: "Figure 3, rho = 10 %",
            curves: Curves::PerWorkload { variant: None },
            x_label: "static reserve R (nodes)",
            x: &|r| f64::from(reserves[r.cell.variant]),
        },
        metrics: &[REJECT_RATE, BATCH_WAIT, RESERVE_IDLE],
    };
    p.write(NAME, &[SCALE], &figure, &variants, &results)?;
    Ok(())
}
