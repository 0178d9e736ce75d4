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
use cosched_batch::BatchSim;
use cosched_batch::scenario::BuiltinPolicy as Policy;
use cosched_core::{Duration, RigidJob};
use cosched_examples::{
    Cell, Claims, CommonArgs, Error, LinePlot, Replicates, Sweep, Table, parse_job_count,
    parse_seed_count, parse_units,
};
use cosched_workload::swf::read_rigid_jobs;
use cosched_workload::{LublinModel, TsafrirEstimates, scale_to_offered_load};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const NAME: &str = "batch_easy_vs_fcfs";
const POLICIES: [Policy; 3] = [Policy::Fcfs, Policy::Easy, Policy::Conservative];

/// FCFS against EASY and conservative backfilling over offered load: mean wait, bounded
/// slowdown and utilization of each policy on Lublin–Feitelson workloads (and optionally an
/// SWF trace) rescaled to each load.
#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    /// Also sweep this SWF trace (plain or gzip), rescaled to each load.
    #[arg(long, value_name = "FILE.swf")]
    trace: Option<PathBuf>,
    /// Units of the trace's machine [default: its header's MaxProcs].
    #[arg(long, value_name = "N", value_parser = parse_units)]
    trace_capacity: Option<u32>,
    /// Units of the generated machine.
    #[arg(long, default_value_t = 256, value_parser = parse_units)]
    capacity: u32,
    /// Jobs per generated workload [default: 20000, quick: 3000].
    #[arg(long, value_parser = parse_job_count)]
    jobs: Option<usize>,
    /// Generated workloads (seeds from --seed) averaged [default: 3, quick: 1].
    #[arg(long, value_name = "N", value_parser = parse_seed_count)]
    seeds: Option<u64>,
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

fn main() -> ExitCode {
    cosched_examples::main_with(run)
}

/// The trace's workload: its valid jobs on `--trace-capacity` or its header's MaxProcs.
fn trace_workload(path: &Path, capacity: Option<u32>) -> Result<Workload, Error> {
    let input = |problem: String| Error::Input {
        path: path.to_path_buf(),
        problem,
    };
    let trace = read_rigid_jobs(path).map_err(|e| input(e.to_string()))?;
    let capacity = match capacity {
        Some(c) => c,
        None => match trace.header.values().max_procs {
            None => {
                return Err(input(
                    "no MaxProcs in its header; pass --trace-capacity".into(),
                ));
            }
            Some(p) => u32::try_from(p).ok().filter(|&p| p > 0).ok_or_else(|| {
                input(format!(
                    "header MaxProcs {p} is not a machine size in 1..=4294967295; pass \
                     --trace-capacity"
                ))
            })?,
        },
    };
    if trace.jobs.is_empty() {
        return Err(input(format!(
            "no valid job ({} invalid records)",
            trace.invalid_count()
        )));
    }
    let name = path
        .file_name()
        .map_or("trace".into(), |n| n.to_string_lossy().into_owned());
    Ok(Workload {
        name,
        capacity,
        jobs: trace.jobs,
    })
}

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let quick = cli.common.quick;
    let mut out = cli.common.output(NAME)?;
    let loads: &[f64] = if quick {
        &[0.6, 0.8, 0.9]
    } else {
        &[0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95]
    };
    let seeds = cli
        .common
        .seeds(cli.seeds.unwrap_or(if quick { 1 } else { 3 }))?;
    let n_jobs = cli.jobs.unwrap_or(if quick { 3_000 } else { 20_000 });

    // Workloads: one generated per seed (averaged), plus the trace if given.
    let model = LublinModel::typeless(cli.capacity)?;
    let estimates = TsafrirEstimates::new(Duration::from_hours(36))?;
    let mut workloads: Vec<Workload> = seeds
        .iter()
        .map(|seed| {
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
        workloads.push(trace_workload(path, cli.trace_capacity)?);
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
    let results = Sweep::new(NAME, configs).try_run(|c| {
        let w = workloads.get(c.workload).ok_or("no such workload")?;
        let context = |e: &dyn std::fmt::Display| {
            format!(
                "{} at offered load {} under {}: {e}",
                w.name, c.load, c.policy
            )
        };
        let mut jobs = w.jobs.clone();
        scale_to_offered_load(&mut jobs, w.capacity, c.load).map_err(|e| context(&e))?;
        let out = BatchSim::new(w.capacity)
            .map_err(|e| context(&e))?
            .run(&mut c.policy.build(), &jobs)
            .map_err(|e| context(&e))?;
        Ok::<_, String>(Measured {
            wait_s: out.report.overall.mean_wait_s,
            bounded_slowdown: out.report.overall.mean_bounded_slowdown,
            utilization: out.report.utilization,
        })
    })?;

    // Tables and plots: one per distinct workload name, generated seeds averaged.
    let mut names: Vec<&str> = workloads.iter().map(|w| w.name.as_str()).collect();
    names.dedup();
    for name in names {
        let mean = |load: f64, policy: Policy| {
            let runs = Replicates::new(
                results
                    .iter()
                    .filter(|(c, _)| {
                        workloads.get(c.workload).is_some_and(|w| w.name == name)
                            && c.load == load
                            && c.policy == policy
                    })
                    .map(|(_, m)| *m)
                    .collect(),
            );
            Measured {
                wait_s: runs.mean(|m| m.wait_s),
                bounded_slowdown: runs.mean(|m| m.bounded_slowdown),
                utilization: runs.mean(|m| m.utilization),
            }
        };
        let mut columns = vec!["offered load".to_string()];
        for metric in ["mean wait (s)", "mean bsld", "utilization"] {
            columns.extend(POLICIES.iter().map(|p| format!("{p} {metric}")));
        }
        let runs = if name.starts_with("lublin") {
            seeds.count()
        } else {
            1
        };
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
                format!(" ({n_jobs} jobs each, {seeds})")
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
        if name.starts_with("lublin") {
            out.write_claims(&shape_claims(loads, mean))?;
        }
    }
    Ok(())
}

/// The expected shape (Mu'alem and Feitelson, IEEE TPDS 12(6), 2001; Lifka 1995), checked on
/// the generated workloads' means at every load.
fn shape_claims(loads: &[f64], mean: impl Fn(f64, Policy) -> Measured) -> Claims {
    const SOURCE: &str = "Mu'alem & Feitelson 2001";
    let at = |policy, pick: fn(&Measured) -> f64| -> Vec<f64> {
        loads.iter().map(|&l| pick(&mean(l, policy))).collect()
    };
    let shown = |xs: &[f64], decimals: usize| -> String {
        xs.iter()
            .map(|x| format!("{x:.decimals$}"))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let below = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| x < y);
    let mut claims = Claims::new("batch");
    let fcfs_wait = at(Policy::Fcfs, |m| m.wait_s);
    for (policy, label) in [
        (Policy::Easy, "EASY"),
        (Policy::Conservative, "conservative"),
    ] {
        let wait = at(policy, |m| m.wait_s);
        claims.check(
            SOURCE,
            format!("{label} backfilling waits less than FCFS at every load"),
            format!(
                "{label} {} s vs FCFS {} s",
                shown(&wait, 0),
                shown(&fcfs_wait, 0)
            ),
            "backfilling below FCFS",
            below(&wait, &fcfs_wait),
        );
    }
    let easy_bsld = at(Policy::Easy, |m| m.bounded_slowdown);
    let fcfs_bsld = at(Policy::Fcfs, |m| m.bounded_slowdown);
    claims.check(
        SOURCE,
        "EASY cuts the mean bounded slowdown at every load",
        format!(
            "EASY {} vs FCFS {}",
            shown(&easy_bsld, 2),
            shown(&fcfs_bsld, 2)
        ),
        "backfilling below FCFS",
        below(&easy_bsld, &fcfs_bsld),
    );
    if let Some(&top) = loads.last() {
        let (easy, fcfs) = (mean(top, Policy::Easy), mean(top, Policy::Fcfs));
        claims.check(
            SOURCE,
            format!("at offered load {top}, EASY sustains more utilization than FCFS"),
            format!(
                "EASY {:.3} vs FCFS {:.3}",
                easy.utilization, fcfs.utilization
            ),
            "FCFS saturates first",
            easy.utilization > fcfs.utilization,
        );
    }
    claims
}
