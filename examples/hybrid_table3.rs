//! Fan et al., "Hybrid Workload Scheduling on HPC Systems" (IPDPS 2022), Table III (the
//! FCFS/EASY baseline) and Figures 3–5 (size mix, job types, on-demand jobs per week) for the
//! generated Theta-like and Cori-like workloads, and the calibration that fixed them.
//!
//! The workload is calibrated on the baseline only (the brief's rule): the arrival rate is the
//! real log's (Theta 2019: 37,298 jobs a year; Cori Apr–Jul 2018: 2,607,054 jobs in 122 days,
//! Table I); the run-time scale and the project sessions (bursts) are chosen on Table III's
//! baseline row — turnaround, utilisation and on-demand instant start together. `--calibrate`
//! prints the grid the choice was made on. The six mechanisms' rows (`hybrid_fig6_7`) are
//! then predictions.

use clap::Parser;
use cosched_examples::hybrid::{Machine, WorkloadStats, baseline_row};
use cosched_examples::{BarChart, Cell, CommonArgs, Sweep, Table};
use cosched_hybrid::workload::{Sessions, TraceParams};

const NAME: &str = "hybrid_table3";

#[derive(Parser)]
#[command(about = "Table III baseline and Figures 3-5 of the generated hybrid workloads")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    /// Typings averaged (the paper: 10) [default: 10, quick: 2].
    #[arg(long)]
    typings: Option<u64>,
    /// Also print the calibration grid (run-time scale × session length) of the baseline.
    #[arg(long)]
    calibrate: bool,
}

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let quick = cli.common.quick;
    let mut out = cli.common.output(NAME)?;
    let typings = cli.typings.unwrap_or(if quick { 2 } else { 10 }).max(1);
    let seed = cli.common.seed;

    let mut table = Table::new(
        NAME,
        "Table III: the FCFS/EASY baseline, ours beside the paper's",
        [
            "system",
            "jobs",
            "turnaround (h)",
            "paper turnaround (h)",
            "utilisation (%)",
            "paper utilisation (%)",
            "instant start (%)",
            "paper instant start (%)",
        ],
    )
    .with_notes(format!(
        "Ours: one generated trace per system at the log's job rate, {typings} typing(s) by \
         project averaged (the paper: 10); utilisation over the arrival window (useful \
         node-hours / elapsed node-hours, §IV-D); turnaround over all jobs."
    ));
    let mut stats_table = Table::new(
        format!("{NAME}_fig3_5"),
        "Figures 3-5: the generated workloads (the paper's figures give no numbers but Cori's \
         76 % single-node jobs)",
        [
            "system",
            "single-node jobs (%)",
            "jobs <= 128 nodes (%)",
            "node-h of jobs > 1,024 nodes (%)",
            "on-demand jobs (%)",
            "rigid jobs (%)",
            "malleable jobs (%)",
            "on-demand / week: mean",
            "max",
            "CV",
        ],
    );
    let mut ours = Vec::new();
    for machine in Machine::ALL {
        let params = machine.trace(quick);
        let row = baseline_row(&params, seed, typings)?;
        let paper = machine.paper_baseline();
        ours.push((row, paper));
        table.row([
            Cell::Text(machine.name().into()),
            Cell::Text(params.jobs.to_string()),
            Cell::fixed(row.turnaround_h, 2),
            Cell::fixed(paper.turnaround_h, 2),
            Cell::fixed(100.0 * row.window_utilization, 2),
            Cell::fixed(100.0 * paper.utilization, 2),
            Cell::fixed(100.0 * row.instant, 2),
            Cell::fixed(100.0 * paper.instant, 2),
        ]);
        let st = WorkloadStats::of(&params, seed, typings);
        stats_table.row([
            Cell::Text(machine.name().into()),
            Cell::fixed(100.0 * st.single_node, 1),
            Cell::fixed(100.0 * st.small, 1),
            Cell::fixed(100.0 * st.large_node_hours, 1),
            Cell::fixed(100.0 * st.types[0], 1),
            Cell::fixed(100.0 * st.types[1], 1),
            Cell::fixed(100.0 * st.types[2], 1),
            Cell::fixed(st.weekly_mean, 1),
            Cell::fixed(st.weekly_max, 0),
            Cell::fixed(st.weekly_cv, 2),
        ]);
        if cli.calibrate {
            out.write_table(&calibration(machine, quick, seed, typings.min(3))?)?;
        }
    }
    out.write_table(&table)?;
    out.write_table(&stats_table)?;
    let systems = Machine::ALL.map(Machine::name);
    let instant = BarChart::new(
        "baseline_instant_start",
        "Table III: baseline on-demand instant start, ours vs the paper's",
        systems,
    )
    .y_label("instant start (%)")
    .series("ours", ours.iter().map(|(o, _)| 100.0 * o.instant))
    .series("paper", ours.iter().map(|(_, p)| 100.0 * p.instant));
    out.write_plot(&instant)?;
    let utilisation = BarChart::new(
        "baseline_utilisation",
        "Table III: baseline utilisation, ours (arrival window) vs the paper's",
        systems,
    )
    .y_label("utilisation (%)")
    .series(
        "ours",
        ours.iter().map(|(o, _)| 100.0 * o.window_utilization),
    )
    .series("paper", ours.iter().map(|(_, p)| 100.0 * p.utilization));
    out.write_plot(&utilisation)?;
    Ok(())
}

/// The baseline row over a grid of run-time scales × session lengths.
fn calibration(
    machine: Machine,
    quick: bool,
    seed: u64,
    typings: u64,
) -> Result<Table, cosched_hybrid::HybridError> {
    let base = machine.trace(quick);
    let scales: &[f64] = match machine {
        Machine::Theta => &[0.6, 0.7, 0.8],
        Machine::Cori => &[0.7, 0.8, 0.9],
    };
    let means: &[f64] = match machine {
        Machine::Theta => &[1.0, 3.0, 10.0],
        Machine::Cori => &[1.0, 10.0, 30.0],
    };
    let grid: Vec<(f64, f64)> = scales
        .iter()
        .flat_map(|&s| means.iter().map(move |&m| (s, m)))
        .collect();
    let results = Sweep::new(format!("{NAME} calibration {}", machine.name()), grid).try_run(
        |&(scale, mean)| {
            let params = TraceParams {
                runtime_scale: scale,
                sessions: Sessions {
                    mean_jobs: mean,
                    ..base.sessions
                },
                ..base
            };
            baseline_row(&params, seed, typings)
        },
    )?;
    let paper = machine.paper_baseline();
    let mut table = Table::new(
        format!("{NAME}_calibration_{}", machine.slug()),
        format!(
            "Calibration grid, {}: baseline row per run-time scale and mean session length \
             (paper: {:.2} h, {:.2} %, {:.2} %)",
            machine.name(),
            paper.turnaround_h,
            100.0 * paper.utilization,
            100.0 * paper.instant
        ),
        [
            "runtime scale",
            "mean session (jobs)",
            "turnaround (h)",
            "utilisation (%)",
            "instant start (%)",
        ],
    );
    for ((scale, mean), row) in results {
        table.row([
            Cell::fixed(scale, 2),
            Cell::fixed(mean, 0),
            Cell::fixed(row.turnaround_h, 2),
            Cell::fixed(100.0 * row.window_utilization, 2),
            Cell::fixed(100.0 * row.instant, 2),
        ]);
    }
    Ok(table)
}
