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

use clap::Parser;
use cosched_balancer::sim::SimReport;
use cosched_balancer::synthetic::{BatchKind, RHO_SCALES};
use cosched_core::Duration;
use cosched_examples::balancer::{
    BalancerArgs, GridResult, METRIC_HEADERS, Variant, hours, line_plot, metric_cells,
    nominal_rho_percent, run_grid, series_by,
};
use cosched_examples::{Cell, CommonArgs, Table};

const NAME: &str = "balancer_fig4";

#[derive(Parser)]
#[command(about = "The Balancer, Figure 4: reserve hints H = 15 and 30 min against Basic")]
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
    let scales: &[u32] = if quick { &[2, 8] } else { &RHO_SCALES };
    let batch = inputs.batch_inputs(kinds, inputs.nodes, 1, seed)?;
    let on_demand = inputs.on_demand(batch[0].span, seed.wrapping_add(1))?;
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
    let results = run_grid(NAME, inputs, &batch, &on_demand.base, scales, &variants)?;

    let mut headers = vec!["workload", "rho nominal (%)", "configuration"];
    headers.extend(METRIC_HEADERS);
    let mut table = Table::new(
        NAME,
        format!(
            "Figure 4: reserve hints, W = 0, {} nodes, one week",
            inputs.nodes
        ),
        headers,
    )
    .with_notes(format!(
        "Seed {seed}; on-demand: {} scaled x{scales:?}, every request announced H ahead under \
         Hint; I = {} min. The paper gives curves only for this figure: no numbers beside ours.",
        on_demand.label, inputs.idle_hold
    ));
    for r in &results {
        let mut row = vec![
            Cell::Text(batch[r.cell.workload].label.clone()),
            Cell::fixed(nominal_rho_percent(r.cell.scale), 2),
            Cell::Text(variants[r.cell.variant].label.clone()),
        ];
        row.extend(metric_cells(&r.report));
        table.row(row);
    }
    out.write_table(&table)?;

    // Curves of the first workload (U66-Main), one per configuration.
    let by_variant = |y: fn(&SimReport) -> f64| {
        series_by(
            &results,
            |r: &GridResult| (r.cell.workload == 0).then_some(r.cell.variant),
            |&v| variants[v].label.clone(),
            |r| 100.0 * r.rho,
            |r| y(&r.report),
        )
    };
    let workload = &batch[0].label;
    out.write_plot(&line_plot(
        "fig4_reject_rate",
        &format!("Figure 4: on-demand reject rate with hints ({workload})"),
        "on-demand load rho (%)",
        "reject rate",
        by_variant(|r| r.on_demand.reject_rate),
    ))?;
    out.write_plot(&line_plot(
        "fig4_batch_wait",
        &format!("Figure 4: mean batch wait with hints ({workload})"),
        "on-demand load rho (%)",
        "mean batch wait (h)",
        by_variant(|r| hours(r.batch.overall.mean_wait_s)),
    ))?;
    Ok(())
}
