//! FCFS against EASY (and conservative) backfilling over offered load.
//!
//! Workload: the Lublin–Feitelson (2003) model with Tsafrir–Etsion–Feitelson (2005) runtime
//! estimates on a 256-unit machine, arrivals rescaled to each offered load, averaged over
//! seeds; with `--trace FILE.swf`, the same sweep on that trace as well. Output: mean wait,
//! mean bounded slowdown (τ = 10 s) and utilization per policy and load, as tables and plots.
//!
//! The expected shape (Mu'alem and Feitelson, IEEE TPDS 12(6), 2001; Lifka 1995): backfilling
//! cuts waits and slowdowns by large factors at high load and sustains a higher utilization
//! than FCFS, which saturates first.

use clap::Parser;
use cosched_batch::{BatchSim, Policy};
use cosched_core::workload::swf::read_rigid_jobs;
use cosched_core::workload::{LublinModel, TsafrirEstimates, scale_to_offered_load};
use cosched_core::{Duration, RigidJob};
use cosched_examples::{Cell, CommonArgs, LinePlot, Sweep, Table};
use std::path::PathBuf;

const NAME: &str = "batch_easy_vs_fcfs";
const POLICIES: [Policy; 3] = [Policy::Fcfs, Policy::Easy, Policy::Conservative];

#[derive(Parser)]
#[command(about = "FCFS vs EASY vs conservative backfilling over offered load")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    /// Also sweep this SWF trace (plain or gzip), rescaled to each load.
    #[arg(long, value_name = "FILE.swf")]
    trace: Option<PathBuf>,
    /// Units of the trace's machine [default: its header's MaxProcs].
    #[arg(long, value_name = "N")]
    trace_capacity: Option<u32>,
    /// Units of the generated machine.
    #[arg(long, default_value_t = 256)]
    capacity: u32,
    /// Jobs per generated workload [default: 20000, quick: 3000].
    #[arg(long)]
    jobs: Option<usize>,
}

/// A named workload and the machine it runs on.
struct Workload {
    name: String,
    capacity: u32,
    jobs: Vec<RigidJob>,
}

/// One point of the sweep.
#[derive(Clone, Copy)]
struct Config {
    workload: usize,
    load: f64,
    policy: Policy,
}

/// What one simulation measured.
#[derive(Clone, Copy, Default)]
struct Measured {
    wait_s: f64,
    bounded_slowdown: f64,
    utilization: f64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let quick = cli.common.quick;
    let mut out = cli.common.output(NAME)?;
    let loads: &[f64] = if quick {
        &[0.6, 0.8, 0.9]
    } else {
        &[0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95]
    };
    let seeds = if quick { 1 } else { 3 };
    let n_jobs = cli.jobs.unwrap_or(if quick { 3_000 } else { 20_000 });

    // Workloads: one generated per seed (averaged), plus the trace if given.
    let model = LublinModel::typeless(cli.capacity)?;
    let estimates = TsafrirEstimates::new(Duration::from_hours(36))?;
    let mut workloads: Vec<Workload> = (0..seeds)
        .map(|i| {
            let seed = cli.common.seed + i;
            let mut jobs = model.generate(n_jobs, seed);
            estimates.assign(&mut jobs, seed);
            Workload {
                name: format!("lublin-{}", cli.capacity),
                capacity: cli.capacity,
                jobs,
            }
        })
        .collect();
    if let Some(path) = &cli.trace {
        let trace = read_rigid_jobs(path)?;
        let capacity = cli
            .trace_capacity
            .or_else(|| {
                trace
                    .header
                    .values()
                    .max_procs
                    .and_then(|c| u32::try_from(c).ok())
            })
            .ok_or_else(|| {
                format!(
                    "{}: no MaxProcs in its header; pass --trace-capacity",
                    path.display()
                )
            })?;
        let name = path
            .file_name()
            .map_or("trace".into(), |n| n.to_string_lossy().into_owned());
        workloads.push(Workload {
            name,
            capacity,
            jobs: trace.jobs,
        });
    }

    // Sweep: every workload x load x policy.
    let configs: Vec<Config> = (0..workloads.len())
        .flat_map(|workload| {
            loads.iter().flat_map(move |&load| {
                POLICIES.map(|policy| Config {
                    workload,
                    load,
                    policy,
                })
            })
        })
        .collect();
    let results = Sweep::new(NAME, configs).run(|c| {
        let w = &workloads[c.workload];
        let mut jobs = w.jobs.clone();
        scale_to_offered_load(&mut jobs, w.capacity, c.load).expect("loads are in (0, 1)");
        let out = BatchSim::new(w.capacity, c.policy.scheduler())
            .and_then(|mut sim| sim.run(&jobs))
            .expect("a validated workload simulates");
        Measured {
            wait_s: out.report.overall.mean_wait_s,
            bounded_slowdown: out.report.overall.mean_bounded_slowdown,
            utilization: out.report.utilization,
        }
    });

    // Tables and plots: one per distinct workload name, generated seeds averaged.
    let mut names: Vec<&str> = workloads.iter().map(|w| w.name.as_str()).collect();
    names.dedup();
    for name in names {
        let mean = |load: f64, policy: Policy| {
            let runs: Vec<Measured> = results
                .iter()
                .filter(|(c, _)| {
                    workloads[c.workload].name == name && c.load == load && c.policy == policy
                })
                .map(|(_, m)| *m)
                .collect();
            let n = runs.len().max(1) as f64;
            Measured {
                wait_s: runs.iter().map(|m| m.wait_s).sum::<f64>() / n,
                bounded_slowdown: runs.iter().map(|m| m.bounded_slowdown).sum::<f64>() / n,
                utilization: runs.iter().map(|m| m.utilization).sum::<f64>() / n,
            }
        };
        let mut columns = vec!["offered load".to_string()];
        for metric in ["mean wait (s)", "mean bsld", "utilization"] {
            columns.extend(POLICIES.iter().map(|p| format!("{p} {metric}")));
        }
        let runs = if name.starts_with("lublin") { seeds } else { 1 };
        let mut table = Table::new(
            format!("{NAME}_{name}"),
            format!("FCFS vs backfilling on {name}"),
            columns,
        )
        .with_notes(format!(
            "{runs} workload(s) averaged{}. No paper numbers: the expected shape is that of \
             Mu'alem and Feitelson (2001): backfilling cuts waits and slowdowns by large factors \
             at high load and sustains more utilization than FCFS.",
            if runs > 1 {
                format!(" ({n_jobs} jobs each, seeds {}..)", cli.common.seed)
            } else {
                String::new()
            }
        ));
        for &load in loads {
            let m = POLICIES.map(|p| mean(load, p));
            let mut row = vec![Cell::fixed(load, 2)];
            row.extend(m.iter().map(|m| Cell::fixed(m.wait_s, 0)));
            row.extend(m.iter().map(|m| Cell::fixed(m.bounded_slowdown, 2)));
            row.extend(m.iter().map(|m| Cell::fixed(m.utilization, 3)));
            table.row(row);
        }
        out.write_table(&table)?;

        let metric_plot =
            |file: &str, title: &str, y: &str, log: bool, pick: fn(&Measured) -> f64| {
                let mut plot = LinePlot::new(format!("{file}_{name}"), format!("{title} — {name}"))
                    .x_label("offered load")
                    .y_label(y);
                if log {
                    plot = plot.log_y();
                }
                for policy in POLICIES {
                    plot = plot.series(
                        policy.name(),
                        loads.iter().map(|&l| (l, pick(&mean(l, policy)))),
                    );
                }
                plot
            };
        out.write_plot(&metric_plot(
            "wait",
            "Mean wait",
            "mean wait (s)",
            true,
            |m| m.wait_s,
        ))?;
        out.write_plot(&metric_plot(
            "bsld",
            "Mean bounded slowdown",
            "bounded slowdown",
            true,
            |m| m.bounded_slowdown,
        ))?;
        out.write_plot(&metric_plot(
            "utilization",
            "Utilization",
            "utilization",
            false,
            |m| m.utilization,
        ))?;
    }
    Ok(())
}
