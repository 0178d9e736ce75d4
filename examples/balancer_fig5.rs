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
use cosched_balancer::sim::SimReport;
use cosched_balancer::synthetic::{BatchKind, RHO_SCALES};
use cosched_core::Duration;
use cosched_examples::balancer::{
    BalancerArgs, GridResult, METRIC_HEADERS, Variant, hours, line_plot, metric_cells,
    nominal_rho_percent, run_grid, series_by,
};
use cosched_examples::{Cell, CommonArgs, Table};

const NAME: &str = "balancer_fig5";

#[derive(Parser)]
#[command(about = "The Balancer, Figure 5: the Predictive reserve against Basic")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    inputs: BalancerArgs,
    /// Weeks simulated with synthetic batch inputs [default: 4, quick: 2].
    #[arg(long)]
    weeks: Option<u32>,
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
    let weeks = cli.weeks.unwrap_or(if quick { 2 } else { 4 });
    let batch = inputs.batch_inputs(kinds, inputs.nodes, weeks, seed)?;
    let span = batch[0].span;
    let on_demand = inputs.on_demand(span, seed.wrapping_add(1))?;
    let short = inputs.idle_hold();
    let mut variants = vec![Variant {
        label: "Basic R=W=0".to_owned(),
        configuration: inputs.basic(0, Duration::ZERO),
        notice: None,
    }];
    for (name, rule, hold) in [
        ("mean", Combine::Mean, short),
        ("mean", Combine::Mean, SLOT),
        ("max", Combine::Max, SLOT),
    ] {
        variants.push(Variant {
            label: format!("Predictive ({name}, I={} min)", hold.0 / 60),
            configuration: inputs.predictive(rule, Duration::ZERO, hold),
            notice: None,
        });
    }
    let results = run_grid(NAME, inputs, &batch, &on_demand.base, scales, &variants)?;

    let mut headers = vec!["workload", "rho nominal (%)", "configuration"];
    headers.extend(METRIC_HEADERS);
    let mut table = Table::new(
        NAME,
        format!(
            "Figure 5: predictive reserve, W = 0, {} nodes, {:.0} days",
            inputs.nodes,
            span.0 as f64 / 86_400.0
        ),
        headers,
    )
    .with_notes(format!(
        "Seed {seed}; on-demand: {} scaled x{scales:?}; 6-hour slots, peaks of the last \
         month / week / day; I as labelled. The paper gives curves only for this figure: no \
         numbers beside ours.",
        on_demand.label
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
        "fig5_reject_rate",
        &format!("Figure 5: on-demand reject rate, predictive ({workload})"),
        "on-demand load rho (%)",
        "reject rate",
        by_variant(|r| r.on_demand.reject_rate),
    ))?;
    out.write_plot(&line_plot(
        "fig5_reserve_idle",
        &format!("Figure 5: unused on-demand node-hours, predictive ({workload})"),
        "on-demand load rho (%)",
        "reserve idle (node-h)",
        by_variant(|r| r.reserve_idle_node_hours),
    ))?;
    out.write_plot(&line_plot(
        "fig5_batch_wait",
        &format!("Figure 5: mean batch wait, predictive ({workload})"),
        "on-demand load rho (%)",
        "mean batch wait (h)",
        by_variant(|r| hours(r.batch.overall.mean_wait_s)),
    ))?;
    Ok(())
}
