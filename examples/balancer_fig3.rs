//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), Figure 3: the Basic Balancer's static
//! reserve `R` swept at on-demand load ρ = 10 % (1.25 % × 8), `W = 0`, on the five synthetic
//! batch workloads, 372 nodes, one week, preloaded.
//!
//! Expected shape: a larger reserve lowers the on-demand reject rate (to zero once `R`
//! covers the bursts the idle batch nodes cannot), at the price of unused reserve node-hours
//! and a longer batch wait. The paper shows curves and gives no numbers for this figure, so
//! none are printed beside ours.

use clap::Parser;
use cosched_balancer::sim::SimReport;
use cosched_balancer::synthetic::BatchKind;
use cosched_core::Duration;
use cosched_examples::balancer::{
    BalancerArgs, METRIC_HEADERS, Variant, hours, line_plot, metric_cells, run_grid, series_by,
};
use cosched_examples::{Cell, CommonArgs, Table};

const NAME: &str = "balancer_fig3";
/// ρ = 1.25 % × 8 = 10 %.
const SCALE: u32 = 8;

#[derive(Parser)]
#[command(about = "The Balancer, Figure 3: static reserve sweep at rho = 10 %")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    inputs: BalancerArgs,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let quick = cli.common.quick;
    let seed = cli.common.seed;
    let inputs = &cli.inputs;
    let mut out = cli.common.output(NAME)?;
    let kinds: &[BatchKind] = if quick {
        &BatchKind::PAPER[..1]
    } else {
        &BatchKind::PAPER
    };
    let reserves: &[u32] = if quick {
        &[0, 16, 32]
    } else {
        &[0, 4, 8, 12, 16, 24, 32, 48, 64]
    };
    let batch = inputs.batch_inputs(kinds, inputs.nodes, 1, seed)?;
    let on_demand = inputs.on_demand(batch[0].span, seed.wrapping_add(1))?;
    let variants: Vec<Variant> = reserves
        .iter()
        .map(|&r| Variant {
            label: format!("R={r}"),
            configuration: inputs.basic(r, Duration::ZERO),
            notice: None,
        })
        .collect();
    let results = run_grid(NAME, inputs, &batch, &on_demand.base, &[SCALE], &variants)?;

    let mut headers = vec!["workload", "R (nodes)", "rho (%)"];
    headers.extend(METRIC_HEADERS);
    let mut table = Table::new(
        NAME,
        format!(
            "Figure 3: static reserve sweep, rho = 10 %, W = 0, {} nodes, one week",
            inputs.nodes
        ),
        headers,
    )
    .with_notes(format!(
        "Seed {seed}; on-demand: {} x{SCALE}; I = {} min. The paper gives curves only for \
         this figure: no numbers beside ours.",
        on_demand.label, inputs.idle_hold
    ));
    for r in &results {
        let mut row = vec![
            Cell::Text(batch[r.cell.workload].label.clone()),
            Cell::from(Some(reserves[r.cell.variant])),
            Cell::fixed(100.0 * r.rho, 2),
        ];
        row.extend(metric_cells(&r.report));
        table.row(row);
    }
    out.write_table(&table)?;

    let by_workload = |y: fn(&SimReport) -> f64| {
        series_by(
            &results,
            |r| Some(r.cell.workload),
            |&w| batch[w].label.clone(),
            |r| f64::from(reserves[r.cell.variant]),
            |r| y(&r.report),
        )
    };
    let x = "static reserve R (nodes)";
    out.write_plot(&line_plot(
        "fig3_reject_rate",
        "Figure 3: on-demand reject rate against R (rho = 10 %)",
        x,
        "reject rate",
        by_workload(|r| r.on_demand.reject_rate),
    ))?;
    out.write_plot(&line_plot(
        "fig3_batch_wait",
        "Figure 3: mean batch wait against R (rho = 10 %)",
        x,
        "mean batch wait (h)",
        by_workload(|r| hours(r.batch.overall.mean_wait_s)),
    ))?;
    out.write_plot(&line_plot(
        "fig3_reserve_idle",
        "Figure 3: unused on-demand node-hours against R (rho = 10 %)",
        x,
        "reserve idle (node-h)",
        by_workload(|r| r.reserve_idle_node_hours),
    ))?;
    Ok(())
}
