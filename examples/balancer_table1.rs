//! The Balancer (Liu, Keahey, Riteau, Weissman, SC18), Table I: the real-life scenario of
//! §III-A. The LCRC batch cluster (304 nodes) and the APS on-demand cluster (68 nodes) merged
//! into one 372-node cluster, against the static arrangements: all nodes to batch (the batch
//! wait's lower bound), the dedicated 304 + 68 split, all nodes on-demand; and the Basic
//! Balancer with static reserve `R` ∈ {0, 6, 12} nodes and wait window `W` ∈ {0, 5, 10} min
//! (the paper's seven dynamic columns).
//!
//! Without files it runs the paper's own week, from the vendored trace set
//! (`examples/data/balancer`): LCRC 2015-04-05 (the week the paper's public artifact replays)
//! preloaded with the jobs still running at the end of 2015-03-29 (§III-A), beside the APS
//! stand-in (the paper's APS file of that week is in no public copy): the vendored APS week
//! whose VM leases, with an idle VM kept for a fitted linger (ours), come nearest Table I's
//! stated facts (141 leases, ρ = 1.25 %, 11 requests a minute at the peak). The batch side runs
//! on the testbed's model (Maui over Torque at 60x, `cosched_balancer::testbed`) with Torque's
//! start latency calibrated on the two baseline rows (all-batch, split) only; the dynamic rows
//! are predictions. Every table also shows §III-A's literal packing and an ideal EASY batch
//! side (ours) beside the default, labelled; the paper's claims are checked on the default.
//!
//! With `--lcrc` weeks, each is simulated on its own beside the `--aps` week of the same index,
//! preloaded from `--preload` (one file for the first week, or one per week; `-` for none),
//! under the flags' models. `--generated` runs a stand-in of ours instead (U88-Main for 304
//! nodes and the file-free on-demand generator).

use clap::Parser;
use cosched_balancer::method::{LeaseStats, PAPER_LEASE_FACTS, stand_in};
use cosched_balancer::report::SimReport;
use cosched_balancer::scenario::{RealWeek, Scenario, scaled};
use cosched_balancer::synthetic::{BatchKind, WEEK};
use cosched_balancer::testbed::{BatchCycle, MauiTorque};
use cosched_core::Duration;
use cosched_examples::balancer::{
    BalancerArgs, BatchModel, FITTED_LINGER_S, HISTORY_FILES, PAPER_PREVIOUS_WEEK, PAPER_WEEK,
    STAND_IN_WEEK, TESTBED_START_LATENCY_S, vendored, vendored_dir,
};
use cosched_examples::balancer_week::{
    BATCH_NODES, COLUMNS, Column, best_calibration, calibrate, calibration_table, check_week,
    fit_aps_weeks, latency_grid, stand_in_table, wait_min,
};
use cosched_examples::{BarChart, Cell, Claims, CommonArgs, Sweep, Table};
use std::path::PathBuf;

const NAME: &str = "balancer_table1";

#[derive(Parser)]
#[command(about = "The Balancer, Table I: static split vs dynamic R x W on 304 + 68 nodes")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    inputs: BalancerArgs,
    /// LCRC files of the weeks before the `--lcrc` weeks, whose still-running jobs preload the
    /// cluster (one for the first week, or one per week; `-` for none).
    #[arg(long, value_name = "FILE.csv", num_args = 1..)]
    preload: Vec<PathBuf>,
    /// Scale of the generated on-demand base load (with `--generated`).
    #[arg(long, default_value_t = 2)]
    scale: u32,
}

/// One lease model and batch model, with its weeks.
struct Model {
    leases: String,
    batch: String,
    scenario: Scenario,
    weeks: Vec<RealWeek>,
}

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let mut out = cli.common.output(NAME)?;
    let mut checks = Table::new(
        format!("{NAME}_checks"),
        "Calibration targets and checks (not paper claims)",
        ["what", "kind", "ours", "paper"],
    );
    let models = if cli.inputs.lcrc.is_empty() && !cli.inputs.generated {
        paper_week(&cli, &mut out, &mut checks)?
    } else {
        vec![from_flags(&cli)?]
    };
    let cells: Vec<(usize, usize, Column)> = models
        .iter()
        .enumerate()
        .flat_map(|(m, model)| {
            (0..model.weeks.len()).flat_map(move |w| COLUMNS.iter().map(move |&c| (m, w, c)))
        })
        .collect();
    let results = Sweep::new(NAME, cells).try_run(|&(m, w, c)| {
        let model = &models[m];
        model
            .scenario
            .run_week(&c.arm(&model.scenario), &model.weeks[w])
            .map(|o| o.report)
    })?;
    let reports: Vec<(usize, usize, Column, SimReport)> = results
        .into_iter()
        .map(|((m, w, c), r)| (m, w, c, r))
        .collect();
    let get = |m: usize, w: usize, c: &Column| {
        reports
            .iter()
            .find(|(a, b, col, _)| *a == m && *b == w && col == c)
            .map(|(_, _, _, r)| r.clone())
    };
    out.write_table(&table_i(&cli, &models, &reports))?;
    let mut claims = Claims::new("balancer");
    for (w, week) in models[0].weeks.iter().enumerate() {
        check_week(&mut claims, &week.name, |c: &Column| get(0, w, c));
    }
    out.write_claims(&claims)?;
    if let Some(week) = models[0].weeks.first() {
        lease_checks(&mut checks, &models, week);
        if let (Some(all), Some(split)) = (get(0, 0, &COLUMNS[0]), get(0, 0, &COLUMNS[1])) {
            for (what, r, paper) in [
                ("all-batch mean wait (min)", &all, "122.5"),
                ("split mean wait (min)", &split, "1002.8"),
            ] {
                checks.row([
                    Cell::Text(what.to_owned()),
                    Cell::Text("calibration target (baseline row, fitted)".to_owned()),
                    Cell::fixed(wait_min(r), 1),
                    Cell::Text(paper.to_owned()),
                ]);
            }
            for (what, r, paper) in [
                ("all-batch combined utilisation", &all, "0.844"),
                ("split combined utilisation", &split, "0.801"),
            ] {
                checks.row([
                    Cell::Text(what.to_owned()),
                    Cell::Text(
                        "calibration target (baseline row; the latency moves it little)".to_owned(),
                    ),
                    Cell::fixed(r.combined_utilization, 4),
                    Cell::Text(paper.to_owned()),
                ]);
            }
        }
    }
    out.write_table(&checks)?;
    write_plots(&mut out, &models[0], |w, c| get(0, w, c))?;
    Ok(())
}

/// The paper's week: LCRC 2015-04-05 preloaded from 2015-03-29 beside the APS stand-in, the
/// testbed calibrated on its baseline rows; the default model first, then §III-A's literal
/// packing and the ideal batch side beside it.
fn paper_week(
    cli: &Cli,
    out: &mut cosched_examples::OutDir,
    checks: &mut Table,
) -> Result<Vec<Model>, Box<dyn std::error::Error>> {
    let inputs = &cli.inputs;
    if !inputs.aps.is_empty() {
        return Err("--aps needs its --lcrc weeks".into());
    }
    let base = inputs.scenario();
    // The APS stand-in and its VM lifecycle, fitted to the caption's facts (with --quick, over
    // the stand-in and the five weeks before it only).
    let quick: Vec<&str> = std::iter::once(STAND_IN_WEEK)
        .chain(HISTORY_FILES)
        .collect();
    let only = cli.common.quick.then_some(quick.as_slice());
    let fits = fit_aps_weeks(&vendored_dir(), base.nodes, only).map_err(|e| e.to_string())?;
    out.write_table(&stand_in_table(&format!("{NAME}_stand_in"), &fits, 12))?;
    let pick = stand_in(&fits).ok_or("no APS week to stand in for the paper's")?;
    let aps_week = fits[pick].week.clone();
    let linger = inputs
        .vm_linger
        .map_or(fits[pick].linger, |s| Duration(s.max(0)));
    for (what, ours, constant) in [
        (
            "APS stand-in week (used by Figures 2-5)",
            aps_week.clone(),
            STAND_IN_WEEK.to_owned(),
        ),
        (
            "fitted VM linger, s (used by Figures 2-5)",
            fits[pick].linger.0.to_string(),
            FITTED_LINGER_S.to_string(),
        ),
    ] {
        checks.row([
            Cell::Text(what.to_owned()),
            Cell::Text("check: the constant equals this run's fit".to_owned()),
            Cell::Text(ours.clone()),
            Cell::Text(if ours == constant {
                format!("{constant} (ok)")
            } else {
                format!("{constant} (DIFFERS)")
            }),
        ]);
    }
    let read = |linger| {
        RealWeek::read_with_linger(
            0,
            &vendored("lcrc", PAPER_WEEK),
            &vendored("aps", &aps_week),
            Some(&vendored("lcrc", PAPER_PREVIOUS_WEEK)),
            linger,
        )
    };
    let (ours, literal) = (read(linger)?, read(Duration::ZERO)?);
    // The testbed model: Torque's start latency calibrated on the two baseline rows.
    let latency = match (inputs.batch_model, inputs.start_latency) {
        (BatchModel::Testbed, None) => {
            let grid = calibrate(NAME, &base, &ours, &latency_grid(cli.common.quick))
                .map_err(|e| e.to_string())?;
            let best = best_calibration(&grid).ok_or("no calibration candidate")?;
            let chosen = match grid[best].cycle {
                BatchCycle::Maui(m) => m.start_latency,
                BatchCycle::Immediate => Duration::ZERO,
            };
            let contrast = calibrate(
                NAME,
                &base,
                &ours,
                &[
                    BatchCycle::Maui(MauiTorque::testbed(chosen).polling_only()),
                    BatchCycle::Immediate,
                ],
            )
            .map_err(|e| e.to_string())?;
            let rows: Vec<_> = grid.into_iter().chain(contrast).collect();
            out.write_table(&calibration_table(
                &format!("{NAME}_calibration"),
                &rows,
                Some(best),
            ))?;
            checks.row([
                Cell::Text("Torque start latency, trace s (used by Figures 2-5)".to_owned()),
                Cell::Text("check: the constant equals this run's calibration".to_owned()),
                Cell::from(chosen.0),
                Cell::Text(if chosen.0 == TESTBED_START_LATENCY_S {
                    format!("{TESTBED_START_LATENCY_S} (ok)")
                } else {
                    format!("{TESTBED_START_LATENCY_S} (DIFFERS)")
                }),
            ]);
            chosen
        }
        (_, given) => Duration(given.unwrap_or(TESTBED_START_LATENCY_S)),
    };
    let testbed = Scenario {
        batch_cycle: BatchCycle::Maui(MauiTorque::testbed(latency)),
        ..base.clone()
    };
    let ideal = Scenario {
        batch_cycle: BatchCycle::Immediate,
        ..base
    };
    let testbed_label = format!("testbed (Maui/Torque, {} s starts)", latency.0);
    let ideal_label = "ideal EASY (ours)".to_owned();
    let ours_label = format!("ours: APS {aps_week}, linger {} s", linger.0);
    let literal_label = format!("literal §III-A: APS {aps_week}");
    let (first, second) = match inputs.batch_model {
        BatchModel::Testbed => ((testbed, testbed_label), (ideal, ideal_label)),
        BatchModel::Ideal => ((ideal, ideal_label), (testbed, testbed_label)),
    };
    let models = vec![
        Model {
            leases: ours_label.clone(),
            batch: first.1.clone(),
            scenario: first.0.clone(),
            weeks: vec![ours.clone()],
        },
        Model {
            leases: literal_label.clone(),
            batch: first.1,
            scenario: first.0,
            weeks: vec![literal.clone()],
        },
        Model {
            leases: ours_label,
            batch: second.1.clone(),
            scenario: second.0.clone(),
            weeks: vec![ours],
        },
        Model {
            leases: literal_label,
            batch: second.1,
            scenario: second.0,
            weeks: vec![literal],
        },
    ];
    // With --quick, the default batch model only.
    let keep = if cli.common.quick { 2 } else { models.len() };
    Ok(models.into_iter().take(keep).collect())
}

/// The weeks the flags give (`--lcrc` files, or `--generated`), under the flags' models.
fn from_flags(cli: &Cli) -> Result<Model, Box<dyn std::error::Error>> {
    let inputs = &cli.inputs;
    let scenario = inputs.scenario();
    let note = inputs.models_note();
    let model = |weeks| Model {
        leases: note.clone(),
        batch: format!("{:?}", inputs.batch_model).to_lowercase(),
        scenario: scenario.clone(),
        weeks,
    };
    if inputs.lcrc.is_empty() {
        let batch = scenario
            .batch_inputs(
                &[BatchKind::Main { utilization: 0.88 }],
                BATCH_NODES,
                1,
                cli.common.seed,
            )?
            .remove(0);
        let od = scenario.on_demand(batch.span, cli.common.seed)?;
        return Ok(model(vec![RealWeek {
            name: format!("synthetic (ours): {} + {}", batch.label, od.label),
            jobs: batch.jobs,
            preload: batch.preload,
            leases: scaled(&od.base, cli.scale)?,
            history: Vec::new(),
        }]));
    }
    if inputs.aps.len() != inputs.lcrc.len() {
        return Err(format!(
            "--aps needs one file per --lcrc week ({} vs {})",
            inputs.aps.len(),
            inputs.lcrc.len()
        )
        .into());
    }
    if cli.preload.len() > 1 && cli.preload.len() != inputs.lcrc.len() {
        return Err("--preload takes one file (the first week's) or one per week".into());
    }
    let mut weeks = Vec::new();
    for (k, (lcrc, aps)) in inputs.lcrc.iter().zip(&inputs.aps).enumerate() {
        let preload = cli
            .preload
            .get(k)
            .filter(|p| p.as_os_str() != "-")
            .map(PathBuf::as_path);
        weeks.push(RealWeek::read_with_linger(
            k,
            lcrc,
            aps,
            preload,
            scenario.vm_linger,
        )?);
    }
    Ok(model(weeks))
}

/// Table I: every model's rows, ours beside the paper's.
fn table_i(cli: &Cli, models: &[Model], reports: &[(usize, usize, Column, SimReport)]) -> Table {
    let mut table = Table::new(
        NAME,
        "Table I: ours beside the paper's (its week: 24,177 batch jobs, 141 leases)",
        [
            "leases",
            "batch",
            "config",
            "R_nodes",
            "W_min",
            "mean_batch_wait_min",
            "od_requests",
            "od_rejections",
            "utilization",
            "week",
            "batch_utilization",
            "od_utilization",
            "too_wide_jobs",
            "preloaded_jobs",
            "reserve_idle_node_h",
            "paper_mean_batch_wait_min",
            "paper_od_rejections",
            "paper_utilization",
        ],
    )
    .with_notes(format!(
        "{} nodes; I = {} min. The first model is the default, on which the claims are \
         checked; the others are shown beside it. R_nodes: the dedicated on-demand nodes for \
         the static rows (0 = all-batch, 68 = the split, 372 = all on-demand), the Basic \
         Balancer's static reserve for the dynamic rows. Utilisation: node-seconds used / \
         (nodes x span), the span from the start to the last submission (the week replayed); \
         under the testbed a started job holds its nodes from its iteration. Paper: Table I \
         (its all-batch rejections are every lease: 141). Weeks: {}.",
        cli.inputs.nodes,
        cli.inputs.idle_hold,
        models[0]
            .weeks
            .iter()
            .map(|w| format!(
                "{} ({} jobs, {} preloaded, {} VM requests)",
                w.name,
                w.jobs.len(),
                w.preload.len(),
                w.leases.len()
            ))
            .collect::<Vec<_>>()
            .join("; ")
    ));
    for (m, w, c, r) in reports {
        let model = &models[*m];
        table.row([
            Cell::Text(model.leases.clone()),
            Cell::Text(model.batch.clone()),
            Cell::Text(c.config.to_owned()),
            Cell::from(Some(u64::from(c.r))),
            Cell::from(Some(c.w_min as u64)),
            if r.batch.completed > 0 {
                Cell::fixed(wait_min(r), 1)
            } else {
                Cell::Empty
            },
            Cell::from(Some(r.on_demand.requests as u64)),
            Cell::from(Some(r.on_demand.rejected as u64)),
            Cell::fixed(r.combined_utilization, 4),
            Cell::Text(model.weeks[*w].name.clone()),
            Cell::fixed(r.batch_utilization, 4),
            Cell::fixed(r.on_demand_utilization, 4),
            Cell::from(Some(r.too_wide as u64)),
            Cell::from(Some(r.preloaded_jobs as u64)),
            Cell::fixed(r.reserve_idle_node_hours, 1),
            Cell::paper(c.paper_wait_min, 1),
            Cell::from(Some(u64::from(c.paper_rejections))),
            Cell::fixed(c.paper_combined_util / 100.0, 4),
        ]);
    }
    table
}

/// The lease facts of each lease model against the caption's (calibration targets).
fn lease_checks(checks: &mut Table, models: &[Model], week: &RealWeek) {
    checks.row([
        Cell::Text(format!("batch jobs in the week ({})", week.name)),
        Cell::Text("input (LCRC file, not fitted)".to_owned()),
        Cell::from(week.jobs.len()),
        Cell::Text("24,177 (Table I caption)".to_owned()),
    ]);
    let f = PAPER_LEASE_FACTS;
    let mut seen = Vec::new();
    for model in models {
        let Some(w) = model.weeks.first() else {
            continue;
        };
        if seen.contains(&model.leases) {
            continue;
        }
        seen.push(model.leases.clone());
        let s = LeaseStats::of(&w.leases, model.scenario.nodes, WEEK);
        checks.row([
            Cell::Text(format!(
                "{}: leases / rho / peak requests a minute (any 60 s; per clock minute)",
                model.leases
            )),
            Cell::Text("calibration target (stated facts)".to_owned()),
            Cell::Text(format!(
                "{} / {:.2} % / {} ({})",
                s.leases,
                100.0 * s.rho,
                s.peak_per_minute,
                s.peak_per_clock_minute
            )),
            Cell::Text(format!(
                "{:.0} / {:.2} % / {:.0}",
                f.leases,
                100.0 * f.rho,
                f.peak_per_minute
            )),
        ]);
    }
}

/// The waits and rejections by column, the paper's beside the default model's.
fn write_plots(
    out: &mut cosched_examples::OutDir,
    model: &Model,
    get: impl Fn(usize, &Column) -> Option<SimReport>,
) -> Result<(), Box<dyn std::error::Error>> {
    let labels: Vec<String> = COLUMNS.iter().map(Column::label).collect();
    let mut waits = BarChart::new(
        "table1_wait",
        "Table I: mean batch wait by configuration (paper and ours)",
        labels.clone(),
    )
    .y_label("mean batch wait (min)")
    .series(
        "paper",
        COLUMNS.iter().map(|c| c.paper_wait_min.unwrap_or(f64::NAN)),
    );
    let mut rejects = BarChart::new(
        "table1_rejections",
        "Table I: on-demand rejections by configuration (paper and ours)",
        labels,
    )
    .y_label("rejections")
    .series(
        "paper",
        COLUMNS.iter().map(|c| f64::from(c.paper_rejections)),
    );
    for (w, week) in model.weeks.iter().enumerate() {
        waits = waits.series(
            week.name.clone(),
            COLUMNS.iter().map(|c| {
                get(w, c)
                    .filter(|r| r.batch.completed > 0)
                    .map_or(f64::NAN, |r| wait_min(&r))
            }),
        );
        rejects = rejects.series(
            week.name.clone(),
            COLUMNS
                .iter()
                .map(|c| get(w, c).map_or(f64::NAN, |r| r.on_demand.rejected as f64)),
        );
    }
    out.write_plot(&waits)?;
    out.write_plot(&rejects)?;
    Ok(())
}
