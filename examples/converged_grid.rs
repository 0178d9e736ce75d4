//! A grid of converged sites (`cosched_site::grid`) under Murali & Vadhiyar's electricity-price
//! aware metascheduler (`cosched-metasched`): K = 3 XSEDE systems (by default Blacklight,
//! Darter and Gordon, three price regions; `--sites` chooses others), each running batch, on-demand and scavenged work under one site
//! configuration (`all` by default: EASY, hybrid's SPAA, the scavenging pool bursting to the
//! cloud), while the metascheduler places the batch jobs among them every 60 s cycle by BS
//! (every job at its submission site), INST, TWOPRICE or MCMF — metasched's own policies,
//! built by its `Scenario::policy` with the paper's XSEDE defaults (`w_t` 0.25, `MaxQ` 2, the
//! learned wait predictor, day-ahead prices with the seasonal ARIMA forecast).
//!
//! Inputs: metasched's vendored XSEDE site table, June 2014 day-ahead prices and 4,100-job
//! grid trace (§4.3.1), the jobs submitted at the three sites, at 16 cores per node (ours),
//! typed rigid/malleable by hybrid's project typing; per site the Balancer's diurnal
//! one-node leases (load 0.1, ours) and the site crate's bag-of-tasks generator (ours). Seeds
//! vary the typing, the leases and the tasks; every strategy of a seed sees the same
//! environment.
//!
//! These are **our findings, not paper claims**: each is a paired difference against BS (same
//! seed), with its spread, and MCMF's against INST (what its learned wait predictor adds).

use clap::Parser;
use cosched_core::Duration;
use cosched_examples::converged::{
    ConvergedArgs, Finding, SITE_DECIMALS, SITE_METRICS, findings_table, site_metrics,
};
use cosched_examples::{Cell, CommonArgs, LinePlot, Replicates, Sweep, Table};
use cosched_metasched::scenario::{Scenario, Strategy};
use cosched_site::grid::{DEFAULT_SITES, GridInputs, GridReport};
use cosched_site::{Configuration, RoleParams, SiteReport};
use std::process::ExitCode;

const NAME: &str = "converged_grid";

/// K = 3 converged sites under the MCMF metascheduler and its baselines: per site and in
/// total, on-demand service, batch wait and slowdown, malleable turnaround, scavenged work,
/// useful utilisation, cloud and electricity cost, with seed-to-seed spreads.
#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    /// The grid's sites, by XSEDE system name (Blacklight, Darter, Gordon, Trestles, Mason,
    /// Lonestar, Queenbee, Steele).
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_SITES.map(String::from))]
    sites: Vec<String>,
    /// The role configuration of every site.
    #[arg(long, default_value = "all")]
    configuration: Configuration,
    /// Cores per node (sites and jobs are sized in cores by the XSEDE table and trace).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=4096))]
    cores_per_node: u32,
    /// Days simulated [default: 6 (the trace spans 6.6), quick: 1].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=29))]
    days: Option<u32>,
    #[command(flatten)]
    converged: ConvergedArgs,
}

fn main() -> ExitCode {
    cosched_examples::main_with(run)
}

/// Our columns after `converged_site`'s metrics ([`SITE_METRICS`]).
const EXTRAS: [&str; 7] = [
    "electricity_cost_usd",
    "batch_completed",
    "placed",
    "placed_away_pct",
    "energy_kwh",
    "goodput_node_h",
    "electricity_usd_per_completed_job",
];

/// How many numbers a row has.
const METRICS: usize = SITE_METRICS.len() + EXTRAS.len();

/// One row's numbers: a site report, the grid jobs' electricity cost, the jobs placed there
/// and of them those submitted elsewhere.
fn metrics(r: &SiteReport, electricity: f64, placed: usize, home: usize) -> [f64; METRICS] {
    let extras = [
        electricity,
        r.batch_completed as f64,
        placed as f64,
        if placed == 0 {
            0.0
        } else {
            100.0 * placed.saturating_sub(home) as f64 / placed as f64
        },
        r.energy_kwh,
        r.goodput_node_h,
        if r.batch_completed == 0 {
            0.0
        } else {
            electricity / r.batch_completed as f64
        },
    ];
    let mut all = [0.0; METRICS];
    for (a, v) in all
        .iter_mut()
        .zip(site_metrics(r).into_iter().chain(extras))
    {
        *a = v;
    }
    all
}

/// Site `k`'s row of a run, or the total (`None`).
fn row(g: &GridReport, k: Option<usize>) -> [f64; METRICS] {
    match k.and_then(|k| g.sites.get(k)) {
        Some(s) => metrics(&s.report, s.electricity_cost_usd, s.placed, s.placed_home),
        None => metrics(
            &g.total(),
            g.electricity_cost_usd(),
            g.placed(),
            g.sites.iter().map(|s| s.placed_home).sum(),
        ),
    }
}

/// Decimals shown per extra column.
const EXTRA_DECIMALS: [usize; 7] = [2, 0, 0, 1, 0, 1, 3];

/// Decimals shown for metric `i`.
fn decimals(i: usize) -> usize {
    SITE_DECIMALS
        .iter()
        .chain(&EXTRA_DECIMALS)
        .nth(i)
        .copied()
        .unwrap_or(2)
}

/// The findings on the total row: (metric index, label).
const FINDINGS: [(usize, &str); 8] = [
    (2, "batch mean wait (s)"),
    (3, "batch mean bounded slowdown"),
    (9, "electricity cost of grid jobs ($)"),
    (15, "electricity per completed grid job ($)"),
    (10, "batch jobs completed"),
    (0, "on-demand served (pp)"),
    (5, "scavenged tasks completed"),
    (7, "useful utilisation (pp)"),
];

fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let quick = cli.common.quick;
    let mut out = cli.common.output(NAME)?;
    let days = cli.days.unwrap_or(if quick { 1 } else { 6 });
    let span = Duration::from_hours(24 * i64::from(days));
    let window = cli.converged.window();
    let names: Vec<&str> = cli.sites.iter().map(String::as_str).collect();
    let inputs = GridInputs::xsede(&names, cli.cores_per_node, span, window)?;
    let seeds = cli.converged.seeds(&cli.common)?;
    let params = RoleParams {
        window,
        ..RoleParams::default()
    };
    // metasched's strategies over the grid's sites, with its XSEDE defaults.
    let scenario = Scenario::new(inputs.specs.clone(), Vec::new(), 0, Duration(60));
    let configuration = &cli.configuration;
    let results = Sweep::new(NAME, Strategy::ALL.to_vec()).run_replicated(&seeds, |s, seed| {
        let mut policy = scenario
            .policy(&scenario.config(*s, seed))
            .map_err(|e| e.to_string())?;
        inputs
            .grid(configuration, &params, seed)
            .and_then(|g| g.run(&mut policy))
            .map_err(|e| format!("{}, seed {seed}: {e}", s.name()))
    })?;

    let sites = inputs.specs.len();
    let names: Vec<String> = inputs.specs.iter().map(|s| s.name().to_string()).collect();
    let jobs = results
        .first()
        .and_then(|(_, r)| r.runs().first())
        .map_or(0, |g| g.submitted);
    let nodes: Vec<String> = (0..sites)
        .map(|k| format!("{} {} nodes", names[k], inputs.nodes(k)))
        .collect();
    let columns = ["strategy", "site"]
        .into_iter()
        .chain(SITE_METRICS)
        .chain(EXTRAS);
    let mut table =
        Table::new(NAME, "Converged grid: strategies by site", columns).with_notes(format!(
            "Our findings, not paper claims. {}; {days} days; every site `{configuration}`; \
             {jobs} grid batch jobs (first seed) from the vendored XSEDE trace at \
             {} cores per node, typed rigid/malleable; metasched's policies with w_t 0.25, \
             MaxQ 2, 60 s cycles. `total`: the sites together (means weighted by what they \
             average). Means over {seeds}.",
            nodes.join(", "),
            cli.cores_per_node,
        ));
    for (s, reps) in &results {
        for k in (0..sites).map(Some).chain([None]) {
            let mut cells = vec![
                Cell::Text(s.name().to_string()),
                Cell::Text(k.map_or("total".to_string(), |k| names[k].clone())),
            ];
            for i in 0..METRICS {
                cells.push(Cell::fixed(reps.mean(|g| row(g, k)[i]), decimals(i)));
            }
            table.row(cells);
        }
    }
    out.write_table(&table)?;
    out.write_table(&findings(&results, seeds.count()))?;

    // The trade-off the metascheduler weighs (w_t): the grid's batch wait against the
    // electricity per completed job, one point per strategy (means over the seeds).
    let mut plot = LinePlot::new(
        "tradeoff_wait_electricity",
        "Grid batch wait against electricity per completed job",
    )
    .x_label("batch mean wait (s)")
    .y_label("electricity per completed grid job ($)");
    for (s, reps) in &results {
        let point = (
            reps.mean(|g| row(g, None)[2]),
            reps.mean(|g| row(g, None)[METRICS - 1]),
        );
        plot = plot.series(s.name(), [point]);
    }
    out.write_plot(&plot)?;
    Ok(())
}

/// Each strategy against BS on the total row, paired by seed; then MCMF against INST, which
/// isolates what MCMF's learned wait predictor adds beyond instant placement.
fn findings(results: &[(Strategy, Replicates<GridReport>)], seeds: u64) -> Table {
    let of = |strategy: Strategy| results.iter().find(|(s, _)| *s == strategy).map(|(_, r)| r);
    let base = of(Strategy::Bs);
    let against_bs = results
        .iter()
        .filter(|(s, _)| *s != Strategy::Bs)
        .map(|(s, reps)| (s.name(), Some(reps), base));
    let mcmf_inst = ("MCMF − INST", of(Strategy::Mcmf), of(Strategy::Inst));
    let rows = against_bs
        .chain([mcmf_inst])
        .flat_map(|(mechanism, reps, base)| {
            FINDINGS.iter().filter_map(move |&(i, metric)| {
                Some(Finding {
                    mechanism,
                    metric,
                    difference: reps?.paired(base?, |g| row(g, None)[i])?,
                    decimals: decimals(i),
                })
            })
        });
    findings_table(
        format!("{NAME}_findings"),
        "Our findings: each strategy minus BS over the grid, paired by seed",
        "strategy",
        "BS",
        seeds,
        " The rows `MCMF − INST` pair MCMF with INST instead: what MCMF's learned wait \
         predictor adds beyond instant placement. The electricity cost counts the completed \
         grid jobs only: compare it with the jobs completed, or per job.",
        rows,
    )
}
