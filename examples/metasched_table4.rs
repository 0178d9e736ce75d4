//! Murali & Vadhiyar, Table 4 (XSEDE rows, §5.2): average response time and total electricity
//! cost under BS, INST, TWOPRICE, MCMF at the paper's `w_t` and MCMF at `w_t = 0`, measured on
//! the last jobs of the trace (the published code's sample) and on every job (closest to the
//! paper's 10,000 measured jobs, §4.3.2 Table 2); then per site: delivered core-hours (Fig. 6),
//! utilisation (Fig. 8), instantaneous load (Fig. 7) and fairness (Fig. 10, Expt 1) of MCMF
//! against BS. The paper's claims of §5.2 are checked on both measurement sets.
//!
//! Workload → the strategies × measurement sets (in parallel) → tables beside the paper's →
//! CSV + charts + claims. Run on the paper's files with
//! `--trace ../shared/data/metasched/xsede_grid_4100.swf --sites
//! ../shared/data/metasched/xsede_sites.csv --prices ../shared/data/metasched/prices`.

use clap::Parser;
use cosched_examples::metasched::{
    Paired, RunConfig, RunResult, Scenario, ScenarioArgs, Strategy, minutes, queueing_reason,
};
use cosched_examples::{
    BarChart, Cell, Claims, CommonArgs, LinePlot, Replicates, Sweep, Table, parse_seed_count,
};
use cosched_metasched::metrics::{Metrics, fairness};

const NAME: &str = "metasched_table4";
/// Jobs the paper's Table 4 measures (§4.3.2, Table 2).
const PAPER_JOBS: f64 = 10_000.0;
/// Seeds (paired replicates) outside quick mode: each varies the 5,900 jobs generated after
/// the paper's trace.
const FULL_SEEDS: u64 = 10;
/// Half the last digit the paper prints (Table 4: 0.1 min, $0.1): the tolerance of a
/// comparison whose runs do not vary.
const PRECISION_MIN: f64 = 0.05;
const PRECISION_USD: f64 = 0.05;

/// The paper's XSEDE rows of Table 4: (row, average response time in minutes, total cost in
/// $ over its 10,000 jobs).
const PAPER: [(Row, f64, f64); 5] = [
    (Row::Bs, 633.7, 230_985.6),
    (Row::Inst, 3460.8, 205_876.5),
    (Row::TwoPrice, 473.3, 232_557.3),
    (Row::Mcmf, 477.5, 224_021.6),
    (Row::McmfCostOnly, 1095.4, 187_298.9),
];

/// One row's runs over the seeds (paired replicates).
type RowRuns = (Row, Replicates<RunResult>);

/// Table 4's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Row {
    Bs,
    Inst,
    TwoPrice,
    Mcmf,
    McmfCostOnly,
}

impl Row {
    const ALL: [Row; 5] = [
        Row::Bs,
        Row::Inst,
        Row::TwoPrice,
        Row::Mcmf,
        Row::McmfCostOnly,
    ];

    fn config(self, defaults: RunConfig) -> RunConfig {
        let strategy = match self {
            Row::Bs => Strategy::Bs,
            Row::Inst => Strategy::Inst,
            Row::TwoPrice => Strategy::TwoPrice,
            Row::Mcmf | Row::McmfCostOnly => Strategy::Mcmf,
        };
        RunConfig {
            strategy,
            w_t: if self == Row::McmfCostOnly {
                0.0
            } else {
                defaults.w_t
            },
            ..defaults
        }
    }

    fn name(self) -> &'static str {
        match self {
            Row::McmfCostOnly => "MCMF (w_t = 0)",
            Row::Bs => "BS",
            Row::Inst => "INST",
            Row::TwoPrice => "TWOPRICE",
            Row::Mcmf => "MCMF",
        }
    }

    fn paper(self) -> (f64, f64) {
        PAPER
            .iter()
            .find(|(r, ..)| *r == self)
            .map_or((f64::NAN, f64::NAN), |&(_, rt, cost)| (rt, cost))
    }
}

#[derive(Parser)]
#[command(about = "Metascheduling (Murali & Vadhiyar) Table 4: BS / INST / TWOPRICE / MCMF")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    scenario: ScenarioArgs,
    /// Paired replicates (seeds from --seed), each a different draw of the jobs generated after
    /// the paper's trace [default: 10; quick: 1, as the paper's trace alone leaves nothing
    /// random].
    #[arg(long, value_parser = parse_seed_count)]
    seeds: Option<u64>,
}

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let seed = cli.common.seed;
    let mut out = cli.common.output(NAME)?;
    // §5.3 measures 10,000 jobs: outside quick mode the paper's trace is extended to that many
    // (jobs generated to §4.3.1's figures, ours) unless a trace or size is given.
    let mut args = cli.scenario.clone();
    if !cli.common.quick && args.extend_to.is_none() && args.trace.is_none() && !args.generated {
        args.extend_to = Some(PAPER_JOBS as usize);
    }
    let seeds =
        cli.common.seeds(
            cli.seeds
                .unwrap_or(if cli.common.quick { 1 } else { FULL_SEEDS }),
        )?;
    // One scenario per seed, its two measurement sets: the seed draws the generated jobs.
    let per_seed: Vec<(u64, [Scenario; 2])> = seeds
        .iter()
        .map(|s| {
            let last = args.scenario(cli.common.quick, s)?;
            let all = last.measuring_all();
            Ok((s, [last, all]))
        })
        .collect::<Result<_, Box<dyn std::error::Error>>>()?;
    let Some((_, [scenario, _])) = per_seed.first() else {
        return Err("no seeds".into());
    };
    let defaults = scenario.config(Strategy::Mcmf, seed);
    let sets = ["last", "all"];
    let configs: Vec<(usize, Row)> = (0..sets.len())
        .flat_map(|v| Row::ALL.iter().map(move |&r| (v, r)))
        .collect();
    let results = Sweep::new(NAME, configs).run_replicated(&seeds, |&(v, r), s| {
        let scenario = per_seed
            .iter()
            .find(|(k, _)| *k == s)
            .and_then(|(_, sc)| sc.get(v))
            .ok_or_else(|| format!("no scenario for seed {s}"))?;
        scenario
            .run(&r.config(scenario.config(Strategy::Mcmf, s)))
            .map_err(|e| e.to_string())
    })?;
    let mut reps: [Vec<(Row, Replicates<RunResult>)>; 2] = [Vec::new(), Vec::new()];
    for ((v, r), rep) in results {
        reps[v].push((r, rep));
    }
    // The first seed's runs: the per-site and per-job tables, plots and their claims.
    let runs: [Vec<(Row, RunResult)>; 2] = reps.each_ref().map(|set| {
        set.iter()
            .filter_map(|(r, rep)| Some((*r, rep.runs().first()?.clone())))
            .collect()
    });

    let bs_last = &runs[0][0].1.metrics;
    let mut table = Table::new(
        NAME,
        "Table 4 (XSEDE): average response time and electricity cost, ours beside the paper's",
        [
            "strategy",
            "w_t",
            "max_q",
            "jobs_measured",
            "jobs_rejected",
            "mean_response_min",
            "response_ci95_min",
            "total_cost_usd",
            "cost_per_job_usd",
            "mean_bounded_slowdown",
            "measured_set",
            "seeds",
            "mean_holding_min",
            "migrated",
            "paper_response_min",
            "paper_total_cost_usd",
            "paper_cost_per_job_usd",
        ],
    )
    .with_notes(format!(
        "Paper: Table 4, XSEDE rows (10,000 measured jobs, §4.3.2 Table 2). {} measured_set \
         'last': the last {} jobs after the history; 'all': every job of the trace measured \
         (no history; the predictors still learn from every start). w_t {} (§5.7.1: 20–40 %; \
         §5.8 and the published code: 25 %), MaxQ {} (§5.7.3). MCMF: {}. Response time \
         includes the holding time, shown apart. Costs are physical: W x h x $/MWh / 10^6 over \
         each actual run (BS, last set: {:.2} MWh at a mean ${:.2}/MWh). The paper's dollars \
         are for 10,000 jobs ($/job = total / 10,000: BS $23.10); the published code's cost \
         function adds `remaining_hours * last_hour_price` without the power factor (every \
         job pays its last partial hour as if it drew 1 MW), 83 % of its BS cost on this \
         trace ($25.45/job against the physical $3.67/job, the review's replay): 630x = 100x \
         (job count) x 6.3x (that term). No factor is applied to our numbers. Figures are \
         means over {seeds} (paired: every strategy sees the same jobs per seed; the seed draws \
         the jobs generated after the paper's trace, if any: the only random input here), with the \
         95 % interval of the mean response time (Student's t); per-site tables and plots are \
         the first seed's.",
        scenario.summary(),
        scenario.jobs.len() - scenario.history,
        defaults.w_t,
        defaults.max_q,
        defaults.predictors(),
        bs_last.energy_mwh,
        if bs_last.energy_mwh > 0.0 {
            bs_last.total_cost_usd / bs_last.energy_mwh
        } else {
            0.0
        },
    ));
    for (v, set) in sets.iter().enumerate() {
        for (row, rep) in &reps[v] {
            let Some(first) = rep.runs().first() else {
                continue;
            };
            let mean = |pick: fn(&Metrics) -> f64| rep.mean(|r| pick(&r.metrics));
            let config = row.config(defaults);
            let (paper_rt, paper_cost) = row.paper();
            let is_bs = *row == Row::Bs;
            let m = &first.metrics;
            table.row([
                Cell::from(row.name()),
                if is_bs {
                    Cell::Empty
                } else {
                    Cell::fixed(config.w_t, 2)
                },
                if is_bs {
                    Cell::Empty
                } else {
                    Cell::from(Some(u64::from(config.max_q)))
                },
                Cell::from(Some(m.jobs as u64)),
                Cell::fixed(mean(|m| m.rejected as f64), 1),
                Cell::fixed(minutes(mean(|m| m.mean_response_s)), 1),
                rep.spread(|r| minutes(r.metrics.mean_response_s))
                    .and_then(|s| s.ci95_half_width)
                    .map_or(Cell::Empty, |h| Cell::fixed(h, 1)),
                Cell::fixed(mean(|m| m.total_cost_usd), 2),
                Cell::fixed(mean(|m| m.cost_per_job_usd), 3),
                Cell::fixed(mean(|m| m.mean_bounded_slowdown), 2),
                Cell::from(*set),
                Cell::from(Some(rep.runs().len() as u64)),
                Cell::fixed(minutes(mean(|m| m.mean_holding_s)), 2),
                Cell::Text(format!(
                    "{:.0} / {:.0}",
                    mean(|m| m.migrated as f64),
                    mean(|m| m.completed as f64)
                )),
                Cell::paper(Some(paper_rt), 1),
                Cell::paper(Some(paper_cost), 1),
                Cell::paper(Some(paper_cost / PAPER_JOBS), 2),
            ]);
        }
    }
    out.write_table(&table)?;
    let checked: Vec<(&str, &[RowRuns])> = sets
        .iter()
        .zip(&reps)
        .map(|(set, r)| (*set, r.as_slice()))
        .collect();
    out.write_table(&accounting_checks(&checked))?;

    let mut claims = Claims::new("metasched");
    for (v, set) in sets.iter().enumerate() {
        check_claims(&mut claims, set, &reps[v]);
    }
    table6(&mut out, &mut claims, &runs[1])?;
    fig5(&mut out, &mut claims, &runs[1])?;

    // Per site, MCMF against BS on the last set (Figs. 6, 7, 8, 10 Expt 1).
    let runs_last = &runs[0];
    let bs = &runs_last[0].1;
    let mcmf = &runs_last[3].1;
    let fair = fairness(&bs.outcome, &mcmf.outcome, scenario.sites.len());
    let mut sites = Table::new(
        format!("{NAME}_sites"),
        "Per site (last set): core-hours (Fig. 6), utilisation (Fig. 8), load (Fig. 7), \
         fairness (Fig. 10, Expt 1), MCMF against BS",
        [
            "site",
            "submitted",
            "ran (BS)",
            "ran (MCMF)",
            "core-h BS",
            "core-h MCMF",
            "utilisation BS",
            "utilisation MCMF",
            "mean load MCMF (h)",
            "peak load MCMF (h)",
            "fairness",
        ],
    )
    .with_notes(
        "The paper's Figs. 6–8 and 10 are plots whose values the text does not give; its \
         statements about them are the claims below. Utilisation over the measurement window \
         (history runs included); load (§4.6) = core-hours of running (remaining estimate) and \
         queued jobs over the site's cores, hourly; fairness (Eq. 9) = geometric mean over \
         the site's measured jobs of BS response / MCMF response (> 1: its users gained).",
    );
    for (k, (b, m)) in bs.metrics.sites.iter().zip(&mcmf.metrics.sites).enumerate() {
        sites.row([
            Cell::from(b.name.as_str()),
            Cell::from(Some(b.submitted as u64)),
            Cell::from(Some(b.ran as u64)),
            Cell::from(Some(m.ran as u64)),
            Cell::fixed(b.core_hours, 0),
            Cell::fixed(m.core_hours, 0),
            Cell::fixed(b.utilization, 3),
            Cell::fixed(m.utilization, 3),
            Cell::fixed(m.mean_load, 3),
            Cell::fixed(m.peak_load, 3),
            fair.get(k)
                .copied()
                .flatten()
                .map_or(Cell::Empty, |f| Cell::fixed(f, 3)),
        ]);
    }
    out.write_table(&sites)?;

    for (v, set) in sets.iter().enumerate() {
        let runs = &runs[v];
        let base = &runs[0].1.metrics;
        let ours = |pick: fn(&Metrics) -> f64| {
            runs.iter()
                .map(|(_, r)| pick(&r.metrics) / pick(base))
                .collect::<Vec<_>>()
        };
        let paper = |pick: fn((f64, f64)) -> f64| {
            let b = pick(Row::Bs.paper());
            runs.iter()
                .map(|(row, _)| pick(row.paper()) / b)
                .collect::<Vec<_>>()
        };
        let chart = BarChart::new(
            format!("table4_{set}"),
            format!("Response time and cost relative to BS ({set} set), ours and the paper's"),
            runs.iter().map(|(row, _)| row.name().to_owned()),
        )
        .y_label("relative to BS")
        .series("response (ours)", ours(|m| m.mean_response_s))
        .series("response (paper)", paper(|p| p.0))
        .series("cost (ours)", ours(|m| m.total_cost_usd))
        .series("cost (paper)", paper(|p| p.1));
        out.write_plot(&chart)?;
    }

    let mut load = LinePlot::new(
        "load_mcmf",
        "Instantaneous load (core-hours per core) per site under MCMF (Fig. 7's metric)",
    )
    .x_label("time (h)")
    .y_label("load (h)");
    for (k, site) in scenario.sites.iter().enumerate() {
        load = load.series(
            site.name(),
            mcmf.outcome
                .load
                .iter()
                .filter_map(|s| Some((s.time.secs() as f64 / 3600.0, *s.load.get(k)?))),
        );
    }
    out.write_plot(&load)?;
    fig9(&mut out, &mut claims, &scenario.sites, runs_last)?;
    fig6_7(&mut claims, &scenario.sites, &reps[1]);
    out.write_claims(&claims)?;
    Ok(())
}

/// Fig. 6 (§5.5): the price-aware strategies deliver fewer core-hours at the costly systems
/// (the four of highest service unit cost, SUC = mean price × power per core) than BS; Fig. 7:
/// INST balances load worst (its highest hourly load over the sites above MCMF's). Both over
/// paired replicates ([`Paired`]; the runs' precision when they do not vary: 0.5 core-h, 0.05 h).
fn fig6_7(
    claims: &mut Claims,
    sites: &[cosched_metasched::site::Site],
    runs: &[(Row, Replicates<RunResult>)],
) {
    let suc = |s: &cosched_metasched::site::Site| {
        let prices = &s.spec().prices_usd_per_mwh;
        s.spec().watts_per_core * prices.iter().sum::<f64>() / prices.len().max(1) as f64
    };
    let mut order: Vec<usize> = (0..sites.len()).collect();
    order.sort_by(|&a, &b| suc(&sites[a]).total_cmp(&suc(&sites[b])));
    let costly: Vec<usize> = order.iter().skip(sites.len() / 2).copied().collect();
    let names = costly
        .iter()
        .map(|&k| sites[k].name())
        .collect::<Vec<_>>()
        .join(", ");
    let values = |row: Row, pick: &dyn Fn(&Metrics) -> f64| {
        runs.iter()
            .find(|(r, _)| *r == row)
            .map(|(_, rep)| rep.values(|r| pick(&r.metrics)))
    };
    let at_costly = |m: &Metrics| {
        costly
            .iter()
            .filter_map(|&k| m.sites.get(k).map(|s| s.core_hours))
            .sum::<f64>()
    };
    let Some(bs) = values(Row::Bs, &at_costly) else {
        return;
    };
    let aware: Vec<(Row, Paired)> = [Row::Inst, Row::TwoPrice, Row::Mcmf]
        .into_iter()
        .filter_map(|r| Some((r, Paired::tolerant(&values(r, &at_costly)?, &bs, 0.5)?)))
        .collect();
    claims.check(
        "§5.5, Fig. 6",
        "MCMF, INST and TWOPRICE deliver fewer core-hours than BS at the costly systems \
         (significantly, paired)",
        format!(
            "costly by SUC: {names}; BS {:.0} core-h; against it: {}",
            cosched_core::stats::mean(&bs).unwrap_or(0.0),
            aware
                .iter()
                .map(|(r, p)| format!("{} {}", r.name(), p.describe_percent()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "reduced (plot)",
        !aware.is_empty() && aware.iter().all(|(_, p)| p.lower()),
    );
    let peak = |m: &Metrics| m.sites.iter().map(|s| s.peak_load).fold(0.0, f64::max);
    if let (Some(inst), Some(mcmf)) = (values(Row::Inst, &peak), values(Row::Mcmf, &peak)) {
        let margin: Vec<f64> = mcmf.iter().map(|x| 1.1 * x).collect();
        if let Some(p) = Paired::tolerant(&inst, &margin, 0.05) {
            let mean = |xs: &[f64]| cosched_core::stats::mean(xs).unwrap_or(0.0);
            claims
                .check(
                    "§5.5, Fig. 7",
                    "INST balances load worst: its highest hourly site load exceeds MCMF's by \
                     > 10 % (ours), significantly, paired",
                    format!(
                        "peak load INST {:.1} h, MCMF {:.1} h; INST − 1.1 MCMF: {}",
                        mean(&inst),
                        mean(&mcmf),
                        p.describe_percent()
                    ),
                    "very poor load balancing (plot)",
                    // 10 %: 'very poor' read as a clear margin, not a tie (ours).
                    p.higher(),
                )
                .because(format!(
                    "INST's peak is {:+.1} % of MCMF's on this set (mean over seeds)",
                    100.0 * (mean(&inst) / mean(&mcmf).max(f64::MIN_POSITIVE) - 1.0)
                ));
        }
    }
}

/// Fig. 5 (§5.4): MCMF's savings per job over BS in response time and electricity cost by
/// job size (small < 512, medium 512–4,096, large > 4,096 CPU-hours at the submission site), on
/// every job measured.
fn fig5(
    out: &mut cosched_examples::OutDir,
    claims: &mut Claims,
    runs: &[(Row, RunResult)],
) -> Result<(), Box<dyn std::error::Error>> {
    // Per measured job: (CPU-hours at the submission site, response s, cost $, run time s).
    type PerJob = std::collections::HashMap<cosched_core::JobId, (f64, f64, f64, f64)>;
    let per_job = |row: Row| -> PerJob {
        runs.iter()
            .find(|(r, _)| *r == row)
            .map(|(_, r)| {
                r.outcome
                    .jobs
                    .iter()
                    .filter(|j| j.measured)
                    .filter_map(|j| {
                        let cpu_h = f64::from(j.job.cores) * j.job.runtime.secs() as f64 / 3_600.0;
                        let run = j.run?;
                        Some((
                            j.job.id,
                            (
                                cpu_h,
                                j.response()?.secs() as f64,
                                run.cost_usd,
                                (run.end - run.start).secs() as f64,
                            ),
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (bs, mcmf) = (per_job(Row::Bs), per_job(Row::Mcmf));
    let mut table = Table::new(
        "metasched_fig5",
        "Fig. 5: MCMF's savings per job over BS by job size (every job measured)",
        [
            "size",
            "jobs",
            "response saved (min/job)",
            "cost saved ($/job)",
        ],
    )
    .with_notes(
        "Paper: Fig. 5 (a plot; §5.4 states that savings per job grow with job size). Sizes in \
         CPU-hours of the trace run at the submission site: small < 512, medium 512–4,096, \
         large > 4,096.",
    );
    let mut savings = Vec::new();
    // Per size: (run time saved, waiting and holding saved), min/job.
    let mut parts = Vec::new();
    for (name, low, high) in [
        ("small", 0.0, 512.0),
        ("medium", 512.0, 4_096.0),
        ("large", 4_096.0, f64::INFINITY),
    ] {
        let (mut n, mut rt, mut cost, mut run) = (0usize, 0.0, 0.0, 0.0);
        for (id, &(cpu_h, m_rt, m_cost, m_run)) in &mcmf {
            if !(low..high).contains(&cpu_h) {
                continue;
            }
            if let Some(&(_, b_rt, b_cost, b_run)) = bs.get(id) {
                n += 1;
                rt += b_rt - m_rt;
                cost += b_cost - m_cost;
                run += b_run - m_run;
            }
        }
        let per = |x: f64| if n > 0 { x / n as f64 } else { 0.0 };
        savings.push((name, per(rt) / 60.0, per(cost)));
        parts.push((name, per(run) / 60.0, per(rt - run) / 60.0));
        table.row([
            Cell::from(name),
            Cell::from(Some(n as u64)),
            Cell::fixed(per(rt) / 60.0, 1),
            Cell::fixed(per(cost), 3),
        ]);
    }
    out.write_table(&table)?;
    let grows =
        |pick: fn(&(&str, f64, f64)) -> f64| savings.windows(2).all(|w| pick(&w[1]) >= pick(&w[0]));
    let text = |pick: fn(&(&str, f64, f64)) -> f64, unit: &str| {
        savings
            .iter()
            .map(|s| format!("{} {:.2}{unit}", s.0, pick(s)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    claims
        .check(
            "§5.4, Fig. 5",
            "response-time savings per job grow with job size",
            text(|s| s.1, " min"),
            "grow (plot)",
            grows(|s| s.1),
        )
        .because(format!(
            "response saved = run time saved + wait saved (min/job): {}",
            parts
                .iter()
                .map(|(name, run, wait)| format!("{name} {run:+.1} run {wait:+.1} wait"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    claims.check(
        "§5.4, Fig. 5",
        "cost savings per job grow with job size",
        text(|s| s.2, " $"),
        "grow (plot)",
        grows(|s| s.2),
    );
    Ok(())
}

/// Hourly power (kW) drawn at site `k` by the measured jobs of `run`, hour by hour over the
/// runs' span.
fn hourly_power_kw(
    run: &RunResult,
    sites: &[cosched_metasched::site::Site],
    k: usize,
) -> Vec<(f64, f64)> {
    let Some(site) = sites.get(k) else {
        return Vec::new();
    };
    let mut by_hour = std::collections::BTreeMap::<i64, f64>::new();
    for j in run.outcome.jobs.iter().filter(|j| j.measured) {
        let Some(r) = j.run.filter(|r| r.site == k) else {
            continue;
        };
        let kw = site.power_watts(j.job.cores) * j.power_factor / 1e3;
        let (start, end) = (r.start.max(r.data_ready).secs(), r.end.secs());
        let mut t = start;
        while t < end {
            let hour = t.div_euclid(3_600);
            let next = ((hour + 1) * 3_600).min(end);
            *by_hour.entry(hour).or_default() += kw * (next - t) as f64 / 3_600.0;
            t = next;
        }
    }
    by_hour.into_iter().map(|(h, kw)| (h as f64, kw)).collect()
}

/// Fig. 9 (§5.5): hourly power at Blacklight (dearest) and Lonestar (cheapest) per strategy,
/// and the paper's statement about Blacklight.
fn fig9(
    out: &mut cosched_examples::OutDir,
    claims: &mut Claims,
    sites: &[cosched_metasched::site::Site],
    runs: &[(Row, RunResult)],
) -> Result<(), Box<dyn std::error::Error>> {
    let rows = [Row::Bs, Row::Inst, Row::TwoPrice, Row::Mcmf];
    let mut energy = Vec::new();
    for name in ["Blacklight", "Lonestar"] {
        let Some(k) = sites.iter().position(|s| s.name() == name) else {
            continue;
        };
        let mut plot = LinePlot::new(
            format!("fig9_{}", name.to_lowercase()),
            format!("Fig. 9: hourly power at {name} (measured jobs, last set)"),
        )
        .x_label("scenario hour")
        .y_label("power (kW)");
        for row in rows {
            if let Some((_, r)) = runs.iter().find(|(x, _)| *x == row) {
                let series = hourly_power_kw(r, sites, k);
                if name == "Blacklight" {
                    energy.push((row, series.iter().map(|p| p.1).fold(0.0, |a, b| a + b)));
                }
                plot = plot.series(row.name(), series);
            }
        }
        out.write_plot(&plot)?;
    }
    let bs = energy
        .iter()
        .find(|(r, _)| *r == Row::Bs)
        .map_or(0.0, |e| e.1);
    let aware: Vec<_> = energy.iter().filter(|(r, _)| *r != Row::Bs).collect();
    // With no measured BS energy at Blacklight the claim is not exercised (every strategy at
    // 0 kWh would "draw much less" vacuously): it is left out of the claims and said so.
    if bs <= 0.0 {
        let mut table = Table::new(
            "not_exercised",
            "Paper claims not exercised by this workload (neither pass nor fail)",
            ["source", "claim", "why"],
        );
        table.row([
            Cell::from("§5.5, Fig. 9"),
            Cell::from("MCMF, INST and TWOPRICE draw much less power than BS at Blacklight"),
            Cell::from("BS's measured jobs draw 0 kWh at Blacklight"),
        ]);
        out.write_table(&table)?;
        return Ok(());
    }
    claims.check(
        "§5.5, Fig. 9",
        "MCMF, INST and TWOPRICE draw much less power than BS at Blacklight (the dearest site)",
        format!(
            "BS {bs:.0} kWh; {}",
            aware
                .iter()
                .map(|(r, e)| format!("{} {e:.0}", r.name()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "much less (plot)",
        !aware.is_empty() && aware.iter().all(|(_, e)| *e < 0.5 * bs),
    );
    Ok(())
}

/// Table 6's bins of the percentage error of the runtime estimate (PPE in ERT, %), and the
/// paper's rows: (low, high, jobs, % improvement of MCMF over BS, INST, TWOPRICE).
const TABLE6: [(f64, f64, u32, f64, f64, f64); 7] = [
    (0.0, 10.0, 1637, 21.83, 83.67, -0.10),
    (10.0, 20.0, 1456, 25.57, 88.23, -0.07),
    (20.0, 30.0, 799, 25.62, 88.47, -0.28),
    (30.0, 50.0, 1070, 28.81, 87.36, -0.18),
    (50.0, 100.0, 1342, 27.63, 85.48, -0.24),
    (100.0, 200.0, 1247, 29.82, 87.69, -0.46),
    (200.0, f64::INFINITY, 2448, 34.56, 90.18, -0.35),
];

/// Table 6 (§5.3): MCMF's improvement in mean response time over BS, INST and TWOPRICE per
/// range of the runtime estimate's error, on every job measured.
fn table6(
    out: &mut cosched_examples::OutDir,
    claims: &mut Claims,
    runs: &[(Row, RunResult)],
) -> Result<(), Box<dyn std::error::Error>> {
    let responses = |row: Row| -> std::collections::HashMap<cosched_core::JobId, (f64, f64)> {
        runs.iter()
            .find(|(r, _)| *r == row)
            .map(|(_, r)| {
                r.outcome
                    .jobs
                    .iter()
                    .filter(|j| j.measured && j.job.runtime.secs() > 0)
                    .filter_map(|j| {
                        let ppe = 100.0 * (j.job.estimate - j.job.runtime).secs() as f64
                            / j.job.runtime.secs() as f64;
                        Some((j.job.id, (ppe, j.response()?.secs() as f64)))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let mean_response = |row: Row| {
        runs.iter()
            .find(|(r, _)| *r == row)
            .map_or(0.0, |(_, r)| r.metrics.mean_response_s)
    };
    let (mcmf, bs, inst, two) = (
        responses(Row::Mcmf),
        responses(Row::Bs),
        responses(Row::Inst),
        responses(Row::TwoPrice),
    );
    let mut table = Table::new(
        "metasched_table6",
        "Table 6: MCMF's improvement in mean response time per range of runtime-estimate error",
        [
            "PPE in ERT (%)",
            "jobs",
            "paper jobs",
            "% over BS",
            "paper",
            "% over INST",
            "paper",
            "% over TWOPRICE",
            "paper",
        ],
    )
    .with_notes(
        "Paper: Table 6 (10,000 jobs). Ours: every job of the trace measured (the all set of \
         Table 4); PPE in ERT = 100 (estimate − run time) / run time at the submission site; \
         improvement = 100 (other − MCMF) / other of the bin's mean response times.",
    );
    let mut over_bs = Vec::new();
    let mut over_inst = Vec::new();
    let mut over_two = Vec::new();
    for &(low, high, paper_jobs, p_bs, p_inst, p_two) in &TABLE6 {
        let ids: Vec<_> = mcmf
            .iter()
            .filter(|(_, (ppe, _))| (low..high).contains(ppe))
            .map(|(id, _)| *id)
            .collect();
        let mean = |m: &std::collections::HashMap<cosched_core::JobId, (f64, f64)>| {
            let xs: Vec<f64> = ids.iter().filter_map(|id| m.get(id).map(|v| v.1)).collect();
            cosched_core::stats::mean(&xs)
        };
        let gain = |other: Option<f64>| match (other, mean(&mcmf)) {
            (Some(o), Some(m)) if o > 0.0 => Some(100.0 * (o - m) / o),
            _ => None,
        };
        let (g_bs, g_inst, g_two) = (gain(mean(&bs)), gain(mean(&inst)), gain(mean(&two)));
        over_bs.extend(g_bs);
        over_inst.extend(g_inst);
        over_two.extend(g_two);
        let label = if high.is_finite() {
            format!("{low:.0}-{high:.0}")
        } else {
            format!("> {low:.0}")
        };
        table.row([
            Cell::Text(label),
            Cell::from(Some(ids.len() as u64)),
            Cell::paper(Some(f64::from(paper_jobs)), 0),
            g_bs.map_or(Cell::Empty, |g| Cell::fixed(g, 2)),
            Cell::paper(Some(p_bs), 2),
            g_inst.map_or(Cell::Empty, |g| Cell::fixed(g, 2)),
            Cell::paper(Some(p_inst), 2),
            g_two.map_or(Cell::Empty, |g| Cell::fixed(g, 2)),
            Cell::paper(Some(p_two), 2),
        ]);
    }
    out.write_table(&table)?;
    let list = |xs: &[f64]| {
        xs.iter()
            .map(|x| format!("{x:.1}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    claims
        .check(
            "§5.3, Table 6",
            "MCMF improves on BS in every range of runtime-estimate error",
            list(&over_bs),
            "22–35 % in every bin",
            !over_bs.is_empty() && over_bs.iter().all(|g| *g > 0.0),
        )
        .because(format!(
            "{} of {} bins lose (bins in order of growing estimate error)",
            over_bs.iter().filter(|g| **g <= 0.0).count(),
            over_bs.len()
        ));
    claims
        .check(
            "§5.3, Table 6",
            "MCMF improves on INST in every range of runtime-estimate error (by > 5 %, ours)",
            list(&over_inst),
            "83.7–88.5 % in every bin",
            // 5 %: the bin-to-bin noise allowed for the TWOPRICE equivalence below.
            !over_inst.is_empty() && over_inst.iter().all(|g| *g > 5.0),
        )
        .because(format!(
            "{} of {} bins gain 5 % or less; mean gain {:.1} %; INST's mean response time is \
             {:.2}x MCMF's on this run",
            over_inst.iter().filter(|g| **g <= 5.0).count(),
            over_inst.len(),
            cosched_core::stats::mean(&over_inst).unwrap_or(0.0),
            mean_response(Row::Inst) / mean_response(Row::Mcmf).max(f64::MIN_POSITIVE)
        ));
    // Tolerance: the paper's bins differ by at most 0.5 %; 5 % (ours) allows for 100–1,000
    // jobs per bin here against its 800–1,600.
    claims
        .check(
            "§5.3, Table 6",
            "MCMF and TWOPRICE are equivalent in every bin (within 5 %, ours)",
            list(&over_two),
            "−0.46 … −0.07 %",
            !over_two.is_empty() && over_two.iter().all(|g| g.abs() <= 5.0),
        )
        .because(format!(
            "{} of {} bins differ by more than 5 %, the largest by {:.1} %; over all jobs \
             TWOPRICE's mean response time is {:.2}x MCMF's",
            over_two.iter().filter(|g| g.abs() > 5.0).count(),
            over_two.len(),
            over_two.iter().map(|g| g.abs()).fold(0.0, f64::max),
            mean_response(Row::TwoPrice) / mean_response(Row::Mcmf).max(f64::MIN_POSITIVE)
        ));
    Ok(())
}

/// §5.2's statements about Table 4, checked on one measurement set over paired replicates.
///
/// Significance rule ([`Paired`]): a claim of order passes only when the paired difference is
/// significant (two-sided paired t-test at 5 % over the seeds; when the runs do not vary, the
/// paper's printed precision: 0.05 min, $0.05); a claim of equality passes when there is no
/// significant difference or the difference's interval lies within the stated margin.
fn check_claims(claims: &mut Claims, set: &str, runs: &[(Row, Replicates<RunResult>)]) {
    let get = |row: Row| runs.iter().find(|(r, _)| *r == row).map(|(_, rep)| rep);
    let rt = |row: Row| {
        get(row).map_or_else(Vec::new, |rep| {
            rep.values(|r| minutes(r.metrics.mean_response_s))
        })
    };
    let cost =
        |row: Row| get(row).map_or_else(Vec::new, |rep| rep.values(|r| r.metrics.total_cost_usd));
    let mean_of = |row: Row, pick: fn(&Metrics) -> f64| {
        get(row).map_or(0.0, |rep| rep.mean(|r| pick(&r.metrics)))
    };
    // Mean run time (h) of a row's measured jobs where they ran, over its replicates:
    // runtime scaling (§4.5.2) explains most of the response-time gains.
    let run_h = |row: Row| {
        let runs: Vec<f64> = get(row)
            .map(|rep| {
                rep.runs()
                    .iter()
                    .flat_map(|r| r.outcome.jobs.iter())
                    .filter(|j| j.measured)
                    .filter_map(|j| j.run.map(|r| (r.end - r.start).secs() as f64 / 3600.0))
                    .collect()
            })
            .unwrap_or_default();
        cosched_core::stats::mean(&runs).unwrap_or(0.0)
    };
    let pair_rt = |a: Row, b: Row| Paired::tolerant(&rt(a), &rt(b), PRECISION_MIN);
    let pair_cost = |a: Row, b: Row| Paired::tolerant(&cost(a), &cost(b), PRECISION_USD);
    let inst_vs_mcmf = Paired::tolerant(
        &rt(Row::Inst),
        &rt(Row::Mcmf).iter().map(|x| 1.5 * x).collect::<Vec<_>>(),
        PRECISION_MIN,
    );
    let (
        Some(mcmf_bs_rt),
        Some(mcmf_bs_cost),
        Some(mcmf_two_cost),
        Some(mcmf_two_rt),
        Some(zero_bs_cost),
        Some(zero_mcmf_cost),
        Some(zero_bs_rt),
        Some(inst_bs_rt),
        Some(inst_bs_cost),
        Some(inst_mcmf),
    ) = (
        pair_rt(Row::Mcmf, Row::Bs),
        pair_cost(Row::Mcmf, Row::Bs),
        pair_cost(Row::Mcmf, Row::TwoPrice),
        pair_rt(Row::Mcmf, Row::TwoPrice),
        pair_cost(Row::McmfCostOnly, Row::Bs),
        pair_cost(Row::McmfCostOnly, Row::Mcmf),
        pair_rt(Row::McmfCostOnly, Row::Bs),
        pair_rt(Row::Inst, Row::Bs),
        pair_cost(Row::Inst, Row::Bs),
        inst_vs_mcmf,
    )
    else {
        return;
    };
    let idle = queueing_reason(
        mean_of(Row::Bs, |m| m.mean_bounded_slowdown),
        "there is little load for INST to pile up or for wait predictions to avoid",
    );
    let pct = |a: f64, b: f64| 100.0 * (a / b - 1.0);
    let paper = |row: Row| row.paper();
    let means = |row: Row| {
        format!(
            "{} {:.1} min, ${:.2}",
            row.name(),
            mean_of(row, |m| minutes(m.mean_response_s)),
            mean_of(row, |m| m.total_cost_usd)
        )
    };
    let src = format!("§5.2, Table 4 ({set} set)");
    claims
        .check(
            &src,
            "MCMF lowers the average response time against BS (significantly, paired)",
            mcmf_bs_rt.describe_percent(),
            format!("{:+.1} %", pct(paper(Row::Mcmf).0, paper(Row::Bs).0)),
            mcmf_bs_rt.lower(),
        )
        .because(format!("{}; {}", means(Row::Mcmf), means(Row::Bs)));
    claims
        .check(
            &src,
            "MCMF lowers the total electricity cost against BS (significantly, paired)",
            mcmf_bs_cost.describe_percent(),
            format!(
                "{:+.1} % ($6,964)",
                pct(paper(Row::Mcmf).1, paper(Row::Bs).1)
            ),
            mcmf_bs_cost.lower(),
        )
        .because(format!("{}; {}", means(Row::Mcmf), means(Row::Bs)));
    claims
        .check(
            &src,
            "MCMF (w_t) costs less than TWOPRICE (significantly, paired)",
            mcmf_two_cost.describe_percent(),
            format!(
                "{:+.1} % ($8,535.7)",
                pct(paper(Row::Mcmf).1, paper(Row::TwoPrice).1)
            ),
            mcmf_two_cost.lower(),
        )
        .because(format!("{}; {}", means(Row::Mcmf), means(Row::TwoPrice)));
    claims
        .check(
            &src,
            "MCMF and TWOPRICE have comparable response times (no significant difference, or \
             within 5 %, ours)",
            mcmf_two_rt.describe_percent(),
            format!("{:+.1} %", pct(paper(Row::Mcmf).0, paper(Row::TwoPrice).0)),
            // 5 %: the paper's rows differ by 0.9 %; a margin of a few times that (ours).
            !mcmf_two_rt.lower() && !mcmf_two_rt.higher() || mcmf_two_rt.within_percent(5.0),
        )
        .because(format!(
            "both predict waits alike; MCMF's hourly prices trade response time for cost: its \
             cost is {} against TWOPRICE's, bounded slowdown {:.2} vs {:.2}",
            mcmf_two_cost.describe_percent(),
            mean_of(Row::Mcmf, |m| m.mean_bounded_slowdown),
            mean_of(Row::TwoPrice, |m| m.mean_bounded_slowdown),
        ));
    let zero_cuts = zero_bs_cost.lower() && !zero_mcmf_cost.higher() && zero_bs_rt.higher();
    claims
        .check(
            &src,
            "w_t = 0 cuts cost most and raises response time above BS (significantly, paired)",
            format!(
                "cost vs BS {}, vs MCMF {}; response vs BS {}",
                zero_bs_cost.describe_percent(),
                zero_mcmf_cost.describe_percent(),
                zero_bs_rt.describe_percent()
            ),
            format!(
                "cost {:+.1} %, response x{:.2}",
                pct(paper(Row::McmfCostOnly).1, paper(Row::Bs).1),
                paper(Row::McmfCostOnly).0 / paper(Row::Bs).0
            ),
            zero_cuts,
        )
        .because(format!(
            "mean run time {:.2} h under MCMF w_t = 0 against {:.2} h under BS: where the run \
             time shrinks, placing by cost alone still shortens responses (the cheapest sites \
             are also the fastest per core); the paper's 1.7x comes from its published cost term \
             (a power-free last-hour price) steering jobs elsewhere (the review's replay; \
             inference)",
            run_h(Row::McmfCostOnly),
            run_h(Row::Bs)
        ));
    claims
        .check(
            &src,
            "INST degrades the baseline response time (paper: 5.5x; significantly, paired)",
            inst_bs_rt.describe_percent(),
            format!("x{:.2}", paper(Row::Inst).0 / paper(Row::Bs).0),
            inst_bs_rt.higher(),
        )
        .because(format!(
            "{idle}; INST's bounded slowdown {:.2} shows the queues it does build; {}; {}; {}",
            mean_of(Row::Inst, |m| m.mean_bounded_slowdown),
            means(Row::Inst),
            means(Row::Mcmf),
            means(Row::Bs)
        ));
    claims
        .check(
            &src,
            "INST achieves a lower cost than BS (significantly, paired)",
            inst_bs_cost.describe_percent(),
            format!("{:+.1} %", pct(paper(Row::Inst).1, paper(Row::Bs).1)),
            inst_bs_cost.lower(),
        )
        .because(format!("{}; {}", means(Row::Inst), means(Row::Bs)));
    claims
        .check(
            &src,
            "MCMF's response time is well below INST's: INST above 1.5x MCMF's (ours; paper: \
             7.2x), significantly, paired",
            format!(
                "INST / MCMF = {:.2}; INST − 1.5 MCMF: {}",
                mean_of(Row::Inst, |m| m.mean_response_s)
                    / mean_of(Row::Mcmf, |m| m.mean_response_s).max(f64::MIN_POSITIVE),
                inst_mcmf.describe_percent()
            ),
            format!("{:.2}", paper(Row::Inst).0 / paper(Row::Mcmf).0),
            inst_mcmf.higher(),
        )
        .because(format!(
            "{idle}; INST's bounded slowdown {:.2}, MCMF's {:.2}",
            mean_of(Row::Inst, |m| m.mean_bounded_slowdown),
            mean_of(Row::Mcmf, |m| m.mean_bounded_slowdown)
        ));
}

/// Accounting checks (invariants of the simulator, not paper claims): every measured job of
/// every row either ran or was counted as rejected.
fn accounting_checks(sets: &[(&str, &[RowRuns])]) -> Table {
    let mut table = Table::new(
        "checks",
        "Checks (invariants, not paper claims): every measured job ran or was counted rejected",
        [
            "set",
            "row",
            "replicate",
            "measured",
            "completed",
            "rejected",
            "holds",
        ],
    );
    for (set, runs) in sets {
        for (row, rep) in runs.iter() {
            for (k, run) in rep.runs().iter().enumerate() {
                let m = &run.metrics;
                table.row([
                    Cell::Text((*set).to_owned()),
                    Cell::Text(row.name().to_owned()),
                    Cell::Int(k as i128 + 1),
                    Cell::Int(m.jobs as i128),
                    Cell::Int(m.completed as i128),
                    Cell::Int(m.rejected as i128),
                    Cell::Text(
                        if m.completed + m.rejected == m.jobs {
                            "yes"
                        } else {
                            "NO"
                        }
                        .to_owned(),
                    ),
                ]);
            }
        }
    }
    table
}
