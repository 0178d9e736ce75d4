//! Murali & Vadhiyar, Table 4 (XSEDE row): average response time and total electricity cost of
//! the measured jobs under BS, INST, TWOPRICE and MCMF; then per-site utilisation, load and
//! fairness of MCMF against BS.
//!
//! Workload → the four strategies (in parallel) → table beside the paper's → CSV + bar chart.
//! Run on the paper's files with
//! `--trace ../shared/data/metasched/xsede_grid_4100.swf --sites
//! ../shared/data/metasched/xsede_sites.csv --prices ../shared/data/metasched/prices`.

use clap::Parser;
use cosched_examples::metasched::{RunConfig, ScenarioArgs, Strategy, minutes};
use cosched_examples::{BarChart, Cell, CommonArgs, LinePlot, Sweep, Table};
use cosched_metasched::metrics::fairness;

const NAME: &str = "metasched_table4";
/// A row of the paper's table: (strategy, average response time in minutes, total cost in $).
type PaperRow = (Strategy, Option<f64>, Option<f64>);
/// The paper's XSEDE row.
const PAPER: [PaperRow; 4] = [
    (Strategy::Bs, Some(633.7), Some(230_985.6)),
    (Strategy::Inst, None, None),
    (Strategy::TwoPrice, None, None),
    (Strategy::Mcmf, Some(477.5), Some(224_021.6)),
];

#[derive(Parser)]
#[command(about = "Metascheduling (Murali & Vadhiyar) Table 4: BS / INST / TWOPRICE / MCMF")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    scenario: ScenarioArgs,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let seed = cli.common.seed;
    let mut out = cli.common.output(NAME)?;
    let scenario = cli.scenario.scenario(cli.common.quick, seed)?;

    // The paper's split (history, then the measured tail), and every job measured.
    let all = scenario.measuring_all();
    let scenarios = [&scenario, &all];
    let configs: Vec<(usize, RunConfig)> = (0..scenarios.len())
        .flat_map(|v| Strategy::ALL.map(|s| (v, RunConfig::new(s, seed))))
        .collect();
    let results = Sweep::new(NAME, configs).run(|(v, c)| scenarios[*v].run(c));
    let mut runs = [Vec::new(), Vec::new()];
    for ((v, c), r) in results {
        runs[v].push((c, r?));
    }
    let titles = [
        "Average response time and total electricity cost of the measured jobs",
        "The same with every job of the trace measured (no history)",
    ];
    for (v, name) in [NAME.to_owned(), format!("{NAME}_all_jobs")]
        .into_iter()
        .enumerate()
    {
        let mut table = Table::new(
            name,
            titles[v],
            [
                "strategy",
                "response (min)",
                "paper (min)",
                "cost ($)",
                "paper ($)",
                "bounded slowdown",
                "migrated",
            ],
        )
        .with_notes(format!(
            "Paper: Table 4, XSEDE row (the brief gives BS and MCMF only; the paper measures \
             the last 100 jobs). {} MCMF and TWOPRICE: w_t {}, MaxQ {}, waits from each \
             site's queue and running jobs (what-if start); INST predicts no wait. Cost is in \
             $ of the measured jobs' actual runs (W x h x $/MWh / 10^6).",
            scenarios[v].summary(),
            cosched_examples::metasched::DEFAULT_W_T,
            cosched_examples::metasched::DEFAULT_MAX_Q,
        ));
        for ((c, r), (_, paper_rt, paper_cost)) in runs[v].iter().zip(PAPER) {
            let m = &r.metrics;
            table.row([
                Cell::from(c.strategy.name()),
                Cell::fixed(minutes(m.mean_response_s), 1),
                Cell::paper(paper_rt, 1),
                Cell::fixed(m.total_cost_usd, 2),
                Cell::paper(paper_cost, 1),
                Cell::fixed(m.mean_bounded_slowdown, 2),
                Cell::Text(format!("{} / {}", m.migrated, m.completed)),
            ]);
        }
        out.write_table(&table)?;
    }
    let runs = &runs[0];

    let bs = &runs[0].1;
    let mcmf = &runs[3].1;
    let fair = fairness(&bs.outcome, &mcmf.outcome, scenario.sites.len());
    let mut sites = Table::new(
        format!("{NAME}_sites"),
        "Per site: utilisation, instantaneous load and fairness, MCMF against BS",
        [
            "site",
            "submitted",
            "ran (BS)",
            "ran (MCMF)",
            "utilisation BS",
            "utilisation MCMF",
            "mean load MCMF",
            "peak load MCMF",
            "fairness",
        ],
    )
    .with_notes(
        "Utilisation over the measurement window (history runs included); load = (busy + \
         queued cores) / cores at each cycle tick; fairness = geometric mean over the site's \
         measured jobs of BS response / MCMF response (> 1: its users gained).",
    );
    for (k, (b, m)) in bs.metrics.sites.iter().zip(&mcmf.metrics.sites).enumerate() {
        sites.row([
            Cell::from(b.name.as_str()),
            Cell::from(Some(b.submitted as u64)),
            Cell::from(Some(b.ran as u64)),
            Cell::from(Some(m.ran as u64)),
            Cell::fixed(b.utilisation, 3),
            Cell::fixed(m.utilisation, 3),
            Cell::fixed(m.mean_load, 3),
            Cell::fixed(m.peak_load, 3),
            fair[k].map_or(Cell::Empty, |f| Cell::fixed(f, 3)),
        ]);
    }
    out.write_table(&sites)?;

    let relative = |pick: fn(&cosched_metasched::metrics::Metrics) -> f64| {
        let base = pick(&bs.metrics);
        runs.iter()
            .map(move |(_, r)| pick(&r.metrics) / base)
            .collect::<Vec<_>>()
    };
    let paper_relative = |pick: fn(&PaperRow) -> Option<f64>| {
        let base = pick(&PAPER[0]).unwrap_or(f64::NAN);
        PAPER
            .iter()
            .map(move |p| pick(p).map_or(f64::NAN, |v| v / base))
    };
    let chart = BarChart::new(
        "table4",
        "Response time and cost relative to BS",
        Strategy::ALL.map(Strategy::name),
    )
    .y_label("relative to BS")
    .series("response (ours)", relative(|m| m.mean_response_s))
    .series("response (paper)", paper_relative(|p| p.1))
    .series("cost (ours)", relative(|m| m.total_cost_usd))
    .series("cost (paper)", paper_relative(|p| p.2));
    out.write_plot(&chart)?;

    let mut load = LinePlot::new(
        "load_mcmf",
        "Instantaneous load (busy + queued cores) / cores per site under MCMF",
    )
    .x_label("time (h)")
    .y_label("load");
    for (k, site) in scenario.sites.iter().enumerate() {
        load = load.series(
            site.name(),
            mcmf.outcome
                .load
                .iter()
                .map(|s| (s.time.secs() as f64 / 3600.0, s.load[k])),
        );
    }
    out.write_plot(&load)?;
    Ok(())
}
