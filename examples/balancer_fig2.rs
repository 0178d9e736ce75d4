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

use clap::Parser;
use cosched_balancer::sim::Configuration;
use cosched_balancer::synthetic::{BatchKind, RHO_SCALES};
use cosched_core::Duration;
use cosched_examples::balancer::{
    BalancerArgs, METRIC_HEADERS, Variant, hours, line_plot, metric_cells, nominal_rho_percent,
    run_grid, series_by,
};
use cosched_examples::{Cell, CommonArgs, Table};

const NAME: &str = "balancer_fig2";

#[derive(Parser)]
#[command(about = "The Balancer, Figure 2: Basic (R = W = 0) over 5 batch workloads x 6 rho")]
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
        &BatchKind::PAPER[..2]
    } else {
        &BatchKind::PAPER
    };
    let scales: &[u32] = if quick { &[1, 8] } else { &RHO_SCALES };
    let batch = inputs.batch_inputs(kinds, inputs.nodes, 1, seed)?;
    let on_demand = inputs.on_demand(batch[0].span, seed.wrapping_add(1))?;
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
    let results = run_grid(NAME, inputs, &batch, &on_demand.base, scales, &variants)?;

    let mut headers = vec!["workload", "rho nominal (%)", "rho (%)"];
    headers.extend(METRIC_HEADERS);
    headers.push("all-batch wait (h)");
    let mut table = Table::new(
        NAME,
        format!(
            "Figure 2: Basic Balancer (R = W = 0), {} nodes, one week",
            inputs.nodes
        ),
        headers,
    )
    .with_notes(format!(
        "Seed {seed}; on-demand: {} scaled x{scales:?}; I = {} min. rho: offered on-demand \
         load over the week. all-batch: the same batch week with every request rejected (the \
         wait's lower bound). The paper gives curves only for this figure: no numbers beside \
         ours.",
        on_demand.label, inputs.idle_hold
    ));
    let basic: Vec<_> = results.iter().filter(|r| r.cell.variant == 0).collect();
    for r in &basic {
        let bound = results
            .iter()
            .find(|b| b.cell.variant == 1 && b.cell.workload == r.cell.workload)
            .map_or(f64::NAN, |b| b.report.batch.overall.mean_wait_s);
        let mut row = vec![
            Cell::Text(batch[r.cell.workload].label.clone()),
            Cell::fixed(nominal_rho_percent(r.cell.scale), 2),
            Cell::fixed(100.0 * r.rho, 2),
        ];
        row.extend(metric_cells(&r.report));
        row.push(Cell::fixed(hours(bound), 2));
        table.row(row);
    }
    out.write_table(&table)?;

    let by_workload = |y: fn(&cosched_balancer::sim::SimReport) -> f64| {
        series_by(
            &results,
            |r| (r.cell.variant == 0).then_some(r.cell.workload),
            |&w| batch[w].label.clone(),
            |r| 100.0 * r.rho,
            |r| y(&r.report),
        )
    };
    out.write_plot(&line_plot(
        "fig2_reject_rate",
        "Figure 2: on-demand reject rate, Basic R = W = 0",
        "on-demand load rho (%)",
        "reject rate",
        by_workload(|r| r.on_demand.reject_rate),
    ))?;
    out.write_plot(&line_plot(
        "fig2_batch_wait",
        "Figure 2: mean batch wait, Basic R = W = 0",
        "on-demand load rho (%)",
        "mean batch wait (h)",
        by_workload(|r| hours(r.batch.overall.mean_wait_s)),
    ))?;
    Ok(())
}
