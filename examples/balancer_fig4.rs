//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), Figure 4: the Hint strategy. Every
//! on-demand request is announced `H` = 15 or 30 minutes ahead, which the Balancer turns into
//! `add_reserve(H, N)`: a dynamic reserve built in advance (by claiming idle nodes, or busy
//! ones whose jobs end by then), with no static reserve; unused reserve returns to batch after
//! `I`. Compared with the Basic Balancer without hints (`R = W = 0`) over ρ = 1.25 % × {1, 2,
//! 4, 8, 16, 24} on the five synthetic batch workloads, 372 nodes, one week, preloaded.
//!
//! Expected shape: hints cut the reject rate against Basic, more with the longer notice, at a
//! small cost in batch wait and unused reserve. The paper shows curves and gives no numbers
//! for this figure, so none are printed beside ours.

use cosched_balancer::synthetic::RHO_SCALES;
use cosched_core::Duration;
use cosched_examples::balancer::{
    BATCH_WAIT, Curves, FigureCli, FigureOutput, Plots, REJECT_RATE, RESERVE_IDLE, Variant,
    prepare, rho_percent, run_grid,
};

const NAME: &str = "balancer_fig4";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = FigureCli::parse_about(
        "The Balancer, Figure 4: reserve hints H = 15 and 30 min against Basic",
    );
    let (common, inputs) = (&cli.common, &cli.inputs);
    let mut p = prepare(NAME, common, inputs, 1, 1, cli.seeds)?;
    let scales: &[u32] = if common.quick { &[2, 8] } else { &RHO_SCALES };
    let mut variants = vec![Variant {
        label: "Basic R=W=0".to_owned(),
        configuration: inputs.basic(0, Duration::ZERO),
        notice: None,
    }];
    for h in [15, 30] {
        variants.push(Variant {
            label: format!("Hint H={h} min"),
            configuration: inputs.hint(Duration::ZERO),
            notice: Some(Duration::from_mins(h)),
        });
    }
    let results = run_grid(NAME, inputs, &p, scales, &variants)?;
    let figure = FigureOutput {
        title: format!(
            "Figure 4: reserve hints, W = 0, {} nodes, one week",
            inputs.nodes
        ),
        notes: format!(
            "every request announced H ahead under Hint; I = {} min; curves of {}.",
            inputs.idle_hold, p.labels[0]
        ),
        plots: Plots {
            prefix: "fig4",
            title: &format!("Figure 4, hints ({})", p.labels[0]),
            curves: Curves::PerVariant { workload: 0 },
            x_label: "on-demand load rho (%)",
            x: &rho_percent,
        },
        metrics: &[REJECT_RATE, BATCH_WAIT, RESERVE_IDLE],
    };
    p.write(NAME, scales, &figure, &variants, &results)?;
    Ok(())
}
