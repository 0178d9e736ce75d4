//! Murali & Vadhiyar, Table 4 (XSEDE rows, §5.2): average response time and total electricity
//! cost under BS, INST, TWOPRICE, MCMF at the paper's `w_t` and MCMF at `w_t = 0`, measured on
//! every job of the paper's 10,000 (§4.3.2 Table 2: the public 4,100-job trace and jobs
//! generated to §4.3.1's figures after it); then Table 6 and §5.3's per-job price prediction
//! errors on the same runs, and per site: delivered core-hours (Fig. 6), utilisation (Fig. 8),
//! instantaneous load (Fig. 7) and fairness (Fig. 10, Expt 1) of MCMF against BS. The
//! paper's claims of §5.2–§5.5 are checked over paired replicates (one workload draw per seed).
//!
//! Workload per seed → the strategies × seeds (in parallel) → tables beside the paper's → CSV +
//! charts + claims.

use clap::Parser;
use cosched_examples::metasched::{
    Paired, PriceOutlookModel, ResponseSplit, RunConfig, RunResult, ScenarioArgs, SeedScenarios,
    Strategy, minutes, published_code_cost_usd,
};
use cosched_examples::{
    BarChart, Cell, Claims, CommonArgs, LinePlot, Replicates, Table, parse_seed_count,
};
use cosched_metasched::metrics::{Metrics, fairness, price_errors_percent};
use cosched_metasched::price_forecast::outlooks;
use cosched_metasched::scenario::Table4Row as Row;
use cosched_metasched::site::Site;

const NAME: &str = "metasched_table4";
/// Jobs the paper's Table 4 measures (§4.3.2, Table 2).
const PAPER_JOBS: f64 = 10_000.0;
/// Seeds (paired replicates) outside quick mode: each varies the 5,900 jobs generated after
/// the paper's trace (ours: 10 replicates give the intervals below a few percent).
const FULL_SEEDS: u64 = 10;
/// Half the last digit the paper prints (Table 4: 0.1 min, $0.1): the tolerance of a
/// comparison whose runs do not vary.
const PRECISION_MIN: f64 = 0.05;
const PRECISION_USD: f64 = 0.05;
/// Half the last digit of the paper's printed percentages (§5.2: "24.6%"), in percentage
/// points: added to our prediction interval when a figure of the paper is tested as a
/// magnitude.
const PRECISION_PP: f64 = 0.05;

/// One row's runs over the seeds (paired replicates).
type RowRuns = (Row, Replicates<RunResult>);

#[derive(Parser)]
#[command(about = "Metascheduling (Murali & Vadhiyar) Table 4: BS / INST / TWOPRICE / MCMF")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    scenario: ScenarioArgs,
    /// Paired replicates (seeds from --seed), each a different draw of the jobs generated after
    /// the paper's trace [default: 10; quick: 2].
    #[arg(long, value_parser = parse_seed_count)]
    seeds: Option<u64>,
}

fn main() -> std::process::ExitCode {
    cosched_examples::exit(run())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let quick = cli.common.quick;
    let seed = cli.common.seed;
    let mut out = cli.common.output(NAME)?;
    let count = match cli.seeds {
        Some(n) => n,
        None if !cli.scenario.draws_jobs(quick) => 1,
        None if quick => 2,
        None => FULL_SEEDS,
    };
    let scenarios = cli.scenario.scenarios(quick, &cli.common.seeds(count)?)?;
    let scenario = scenarios.first()?;
    let defaults = scenario.config(Strategy::Mcmf, seed);
    let reps: Vec<RowRuns> = scenarios
        .run_all(NAME, Row::ALL.iter().map(|r| r.config(defaults)).collect())?
        .into_iter()
        .zip(Row::ALL)
        .map(|((_, rep), row)| (row, rep))
        .collect();
    // The first seed's runs: the per-site and per-job tables, plots and their claims.
    let runs: Vec<(Row, RunResult)> = reps
        .iter()
        .filter_map(|(r, rep)| Some((*r, rep.runs().first()?.clone())))
        .collect();
    let seeds = scenarios.seeds();

    let bs_first = &runs[0].1.metrics;
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
            "seeds",
            "mean_holding_min",
            "migrated",
            "paper_response_min",
            "paper_total_cost_usd",
            "paper_cost_per_job_usd",
        ],
    )
    .with_notes(format!(
        "Paper: Table 4, XSEDE rows (10,000 measured jobs, §4.3.2 Table 2). {} w_t {} (§5.7.1: \
         20–40 %; §5.8 and the published code: 25 %), MaxQ {} (§5.7.3). MCMF: {}. Response \
         time includes the holding time, shown apart. Costs are physical: W x h x $/MWh / 10^6 \
         over each actual run (BS, first seed: {:.2} MWh at a mean ${:.2}/MWh). The paper's \
         dollars are for 10,000 jobs ($/job = total / 10,000: BS $23.10); the published code's \
         cost function adds `remaining_hours * last_hour_price` without the power factor \
         (every job pays its last partial hour as if it drew 1 MW), 83 % of its BS cost on the \
         public trace ($25.45/job against the physical $3.67/job, the review's replay). No \
         factor is applied to our numbers. Figures are means over {seeds} (paired: every \
         strategy sees the same jobs per seed; the seed draws the jobs generated after the \
         paper's trace, the only random input here), with the 95 % interval of the mean \
         response time (Student's t); per-site tables and plots are the first seed's.",
        scenario.summary(),
        defaults.w_t,
        defaults.max_q,
        defaults.predictors(),
        bs_first.energy_mwh,
        if bs_first.energy_mwh > 0.0 {
            bs_first.total_cost_usd / bs_first.energy_mwh
        } else {
            0.0
        },
    ));
    for (row, rep) in &reps {
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
    out.write_table(&table)?;
    out.write_table(&accounting_checks(&reps))?;

    let mut claims = Claims::new("metasched");
    // A diagnostic, not a row: INST placing by electricity cost alone (w_t = 0), as the
    // paper's published code's INST does (its response term, the unscaled estimate without a
    // wait, is the same at every site).
    let cost_only_inst = scenarios
        .run_all(
            "metasched_table4 INST by cost alone",
            vec![RunConfig {
                w_t: 0.0,
                ..Row::Inst.config(defaults)
            }],
        )?
        .into_iter()
        .next()
        .map(|(_, rep)| rep);
    check_claims(&mut claims, &reps, &scenario.sites, cost_only_inst.as_ref());
    table6(&mut out, &mut claims, &reps)?;
    price_errors(&mut out, &mut claims, &scenarios, &reps)?;
    fig5(&mut out, &mut claims, &runs)?;

    // Per site, MCMF against BS on the first seed (Figs. 6, 7, 8, 10 Expt 1).
    let bs = &runs[0].1;
    let mcmf = &runs[3].1;
    let fair = fairness(&bs.outcome, &mcmf.outcome, scenario.sites.len());
    let mut sites = Table::new(
        format!("{NAME}_sites"),
        "Per site (first seed): core-hours (Fig. 6), utilisation (Fig. 8), load (Fig. 7), \
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
         statements about them are the claims below. Utilisation (§4.6) = core-hours of the \
         jobs the strategy ran at the site over its cores times the measurement window; load \
         (§4.6) = core-hours of running (remaining estimate) and queued jobs over the site's \
         cores, hourly; fairness (Eq. 9) = geometric mean over the site's jobs of BS response / \
         MCMF response (> 1: its users gained).",
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
        "table4",
        "Response time and cost relative to BS (first seed), ours and the paper's",
        runs.iter().map(|(row, _)| row.name().to_owned()),
    )
    .y_label("relative to BS")
    .series("response (ours)", ours(|m| m.mean_response_s))
    .series("response (paper)", paper(|p| p.0))
    .series("cost (ours)", ours(|m| m.total_cost_usd))
    .series("cost (paper)", paper(|p| p.1));
    out.write_plot(&chart)?;

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
    fig9(&mut out, &mut claims, &scenario.sites, &runs)?;
    fig6_7(&mut claims, &scenario.sites, &reps);
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
            format!("Fig. 9: hourly power at {name} (measured jobs, first seed)"),
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
/// range of the runtime estimate's error, on every job measured, per seed and then paired
/// over the seeds ([`Paired`]: MCMF's mean response in the bin against the other's).
fn table6(
    out: &mut cosched_examples::OutDir,
    claims: &mut Claims,
    reps: &[RowRuns],
) -> Result<(), Box<dyn std::error::Error>> {
    type Responses = std::collections::HashMap<cosched_core::JobId, (f64, f64)>;
    // Per job of one run: (PPE of its estimate, response s).
    let responses = |run: &RunResult| -> Responses {
        run.outcome
            .jobs
            .iter()
            .filter(|j| j.measured && j.job.runtime.secs() > 0)
            .filter_map(|j| {
                let ppe = 100.0 * (j.job.estimate - j.job.runtime).secs() as f64
                    / j.job.runtime.secs() as f64;
                Some((j.job.id, (ppe, j.response()?.secs() as f64)))
            })
            .collect()
    };
    let per_seed = |row: Row| -> Vec<Responses> {
        reps.iter()
            .find(|(r, _)| *r == row)
            .map(|(_, rep)| rep.runs().iter().map(responses).collect())
            .unwrap_or_default()
    };
    let (mcmf, bs, inst, two) = (
        per_seed(Row::Mcmf),
        per_seed(Row::Bs),
        per_seed(Row::Inst),
        per_seed(Row::TwoPrice),
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
    .with_notes(format!(
        "Paper: Table 6 (10,000 jobs). Ours: Table 4's runs, every job measured; PPE in ERT = \
         100 (estimate − run time) / run time at the submission site; improvement = 100 \
         (other − MCMF) / other of the bin's mean response times, means over {} seed(s) \
         (jobs: per seed).",
        mcmf.len()
    ));
    // Per bin: MCMF against BS, INST and TWOPRICE, paired over the seeds.
    let mut bins: Vec<(String, [Option<Paired>; 3], [f64; 3])> = Vec::new();
    for &(low, high, paper_jobs, p_bs, p_inst, p_two) in &TABLE6 {
        let mut means: [Vec<f64>; 4] = Default::default();
        let mut jobs = 0usize;
        for (k, m) in mcmf.iter().enumerate() {
            let ids: Vec<_> = m
                .iter()
                .filter(|(_, (ppe, _))| (low..high).contains(ppe))
                .map(|(id, _)| *id)
                .collect();
            jobs += ids.len();
            let mean = |r: Option<&Responses>| {
                let r = r?;
                let xs: Vec<f64> = ids.iter().filter_map(|id| r.get(id).map(|v| v.1)).collect();
                cosched_core::stats::mean(&xs)
            };
            if let (Some(a), Some(b), Some(c), Some(d)) = (
                mean(Some(m)),
                mean(bs.get(k)),
                mean(inst.get(k)),
                mean(two.get(k)),
            ) {
                for (list, v) in means.iter_mut().zip([a, b, c, d]) {
                    list.push(v);
                }
            }
        }
        let gain = |other: usize| Paired::tolerant(&means[0], &means[other], PRECISION_MIN);
        let pairs = [gain(1), gain(2), gain(3)];
        let label = if high.is_finite() {
            format!("{low:.0}-{high:.0}")
        } else {
            format!("> {low:.0}")
        };
        let cell = |p: &Option<Paired>| p.map_or(Cell::Empty, |p| Cell::fixed(-p.percent(), 2));
        table.row([
            Cell::Text(label.clone()),
            Cell::fixed(jobs as f64 / mcmf.len().max(1) as f64, 0),
            Cell::paper(Some(f64::from(paper_jobs)), 0),
            cell(&pairs[0]),
            Cell::paper(Some(p_bs), 2),
            cell(&pairs[1]),
            Cell::paper(Some(p_inst), 2),
            cell(&pairs[2]),
            Cell::paper(Some(p_two), 2),
        ]);
        bins.push((label, pairs, [p_bs, p_inst, p_two]));
    }
    out.write_table(&table)?;
    // Each bin's paper figure (printed to 0.01 %: precision 0.005 points) against ours.
    let magnitude = |k: usize| -> (Vec<String>, usize, usize) {
        let mut texts = Vec::new();
        let (mut consistent, mut lower) = (0, 0);
        for (label, pairs, paper) in &bins {
            if let Some(p) = pairs[k] {
                consistent += usize::from(p.reproduces_percent(-paper[k], 0.005));
                lower += usize::from(p.lower());
                texts.push(format!("{label}: {:.1}", -p.percent()));
            }
        }
        (texts, consistent, lower)
    };
    let (bs_texts, bs_ok, bs_lower) = magnitude(0);
    claims
        .check(
            "§5.3, Table 6",
            "MCMF improves on BS by about 22–35 % in every range of runtime-estimate error (each \
             bin's figure within our one-run 95 % prediction interval)",
            bs_texts.join(", "),
            "21.8, 25.6, 25.6, 28.8, 27.6, 29.8, 34.6",
            bs_ok == TABLE6.len(),
        )
        .because(format!(
            "{bs_ok} of {} bins reproduce the paper's figure (significant, and of its size \
             within our one-run 95 % prediction interval); the order holds \
             (significantly lower response) in {bs_lower}",
            TABLE6.len()
        ));
    let (inst_texts, inst_ok, inst_lower) = magnitude(1);
    claims
        .check(
            "§5.3, Table 6",
            "MCMF improves on INST by 84–90 % in every range of runtime-estimate error (each \
             bin's figure within our one-run 95 % prediction interval)",
            inst_texts.join(", "),
            "83.7, 88.2, 88.5, 87.4, 85.5, 87.7, 90.2",
            inst_ok == TABLE6.len(),
        )
        .because(format!(
            "{inst_ok} of {} bins reproduce the paper's figure (significant, and of its size \
             within our one-run 95 % prediction interval); the order holds \
             (significantly lower response) in {inst_lower}; INST's mean response over all \
             jobs is {:.2}x MCMF's",
            TABLE6.len(),
            mean_ratio(reps, Row::Inst, Row::Mcmf)
        ));
    let margin = comparable_percent();
    let equivalent = |p: &Paired| !p.lower() && !p.higher() || p.within_percent(margin);
    let two: Vec<&Paired> = bins.iter().filter_map(|(_, p, _)| p[2].as_ref()).collect();
    claims
        .check(
            "§5.3, Table 6",
            format!(
                "MCMF and TWOPRICE are equivalent in every bin (no significant difference, or \
                 the interval within {margin:.2} %: the response difference Table 4 calls \
                 comparable)"
            ),
            two.iter()
                .map(|p| format!("{:.1}", -p.percent()))
                .collect::<Vec<_>>()
                .join(", "),
            "−0.46 … −0.07 %",
            !two.is_empty() && two.iter().all(|p| equivalent(p)),
        )
        .because(format!(
            "{} of {} bins differ beyond the margin, the largest by {:.1} %; over all jobs \
             TWOPRICE's mean response time is {:.2}x MCMF's",
            two.iter().filter(|p| !equivalent(p)).count(),
            two.len(),
            two.iter().map(|p| p.percent().abs()).fold(0.0, f64::max),
            mean_ratio(reps, Row::TwoPrice, Row::Mcmf)
        ));
    Ok(())
}

/// The equivalence margin of MCMF's and TWOPRICE's response times, in percent: the difference
/// of Table 4's rows (477.5 against 473.3 min, 0.89 %), which §5.2 calls comparable; it covers
/// every bin of Table 6 (at most 0.46 %), which §5.3 calls equivalent.
fn comparable_percent() -> f64 {
    100.0 * (Row::Mcmf.paper().0 / Row::TwoPrice.paper().0 - 1.0).abs()
}

/// Row `a`'s mean response time over row `b`'s (means over the seeds).
fn mean_ratio(reps: &[RowRuns], a: Row, b: Row) -> f64 {
    let mean = |row: Row| {
        reps.iter()
            .find(|(r, _)| *r == row)
            .map_or(0.0, |(_, rep)| rep.mean(|r| r.metrics.mean_response_s))
    };
    mean(a) / mean(b).max(f64::MIN_POSITIVE)
}

/// §5.3's electricity price prediction errors, per job as the paper counts them ("in 75 % of
/// the 10,000 jobs, our predictions gave less than 15 % prediction errors"): MCMF's runs
/// (every seed), each job's predicted cost over its predicted run at the site it was placed
/// on, at the prices MCMF knew then (day-ahead where published, the SARIMA forecast beyond),
/// against the same run at the true prices ([`price_errors_percent`]).
fn price_errors(
    out: &mut cosched_examples::OutDir,
    claims: &mut Claims,
    scenarios: &SeedScenarios,
    reps: &[RowRuns],
) -> Result<(), Box<dyn std::error::Error>> {
    let scenario = scenarios.first()?;
    let Some((_, rep)) = reps.iter().find(|(r, _)| *r == Row::Mcmf) else {
        return Ok(());
    };
    let source = "§5.3";
    if scenario.defaults.price_outlook != PriceOutlookModel::Forecast {
        claims.not_exercised(
            source,
            "75 % of the jobs' price predictions err by under 15 %, about all by under 20 %",
            "no prediction",
            "75 % / about all",
            "MCMF is given every hour's true price (--price-outlook day-ahead): nothing is \
             predicted",
        );
        return Ok(());
    }
    let mut errors = Vec::new();
    let mut skipped = 0;
    for ((_, scenario), run) in scenarios.iter().zip(rep.runs()) {
        let outlooks = outlooks(&scenario.sites, scenario.forecast)?;
        let (e, s) = price_errors_percent(&run.outcome, &scenario.sites, &outlooks);
        errors.extend(e);
        skipped += s;
    }
    let share = |limit: f64| {
        100.0 * errors.iter().filter(|e| **e < limit).count() as f64 / errors.len().max(1) as f64
    };
    let exact = share(f64::MIN_POSITIVE);
    let quantile = |q: f64| cosched_core::stats::quantile(&errors, q).unwrap_or(f64::NAN);
    let mut table = Table::new(
        "metasched_price_errors",
        "§5.3: electricity price prediction error per job (MCMF's runs)",
        [
            "jobs",
            "skipped",
            "exact (%)",
            "< 5 % (%)",
            "< 10 % (%)",
            "< 15 % (%)",
            "< 20 % (%)",
            "median (%)",
            "75th percentile (%)",
            "95th percentile (%)",
        ],
    )
    .with_notes(format!(
        "Paper: §5.3 (10,000 jobs): 75 % of the jobs' predictions under 15 % error, about all \
         under 20 %. Ours: every metascheduled job of MCMF's runs over {}: error = 100 \
         |predicted − true| / true of the cost of its predicted run (placement + predicted \
         wait, its estimate at the chosen site) at the prices known at its placement (the \
         current day's published, the SARIMA(1,0,1)(1,0,1)24 forecast beyond) and at the true \
         prices; a run predicted within the published day is priced exactly. Skipped: \
         predicted runs past the published prices.",
        scenarios.seeds()
    ));
    table.row([
        Cell::from(Some(errors.len() as u64)),
        Cell::from(Some(skipped as u64)),
        Cell::fixed(exact, 1),
        Cell::fixed(share(5.0), 1),
        Cell::fixed(share(10.0), 1),
        Cell::fixed(share(15.0), 1),
        Cell::fixed(share(20.0), 1),
        Cell::fixed(quantile(0.5), 1),
        Cell::fixed(quantile(0.75), 1),
        Cell::fixed(quantile(0.95), 1),
    ]);
    out.write_table(&table)?;
    let reason = format!(
        "{exact:.1} % of the predicted runs end within the published day (priced exactly); \
         75th percentile error {:.1} %, 95th {:.1} %",
        quantile(0.75),
        quantile(0.95)
    );
    claims
        .check(
            source,
            "75 % of the jobs' price predictions err by under 15 % (per job)",
            format!("{:.1} % of {} jobs", share(15.0), errors.len()),
            "75 %",
            !errors.is_empty() && share(15.0) >= 75.0,
        )
        .because(reason.clone());
    claims
        .check(
            source,
            "about all the jobs' price predictions err by under 20 % (per job; 'about all' \
             read as at least 95 %, ours)",
            format!("{:.1} % of {} jobs", share(20.0), errors.len()),
            "about 100 %",
            !errors.is_empty() && share(20.0) >= 95.0,
        )
        .because(reason);
    Ok(())
}

/// §5.2's statements about Table 4, checked over paired replicates.
///
/// A figure the paper gives (its text's 24.6 % and $6,964, Table 4's rows) is tested as that
/// magnitude ([`Paired::reproduces_percent`]): the effect must be significant in the paper's
/// direction (two-sided paired t-test at 5 % over the seeds, or the paper's precision when the
/// runs do not vary), and the paper's figure, from one run of one workload, must be one our
/// runs could give — inside the 95 % prediction interval of one more replicate's paired
/// difference, widened by half the paper's last printed digit (0.05 percentage points).
/// "Comparable" is an equivalence: no significant difference, or the interval within the
/// stated margin.
fn check_claims(
    claims: &mut Claims,
    runs: &[RowRuns],
    sites: &[Site],
    cost_only_inst: Option<&Replicates<RunResult>>,
) {
    let get = |row: Row| runs.iter().find(|(r, _)| *r == row).map(|(_, rep)| rep);
    let values = |row: Row, pick: &dyn Fn(&RunResult) -> f64| {
        get(row).map_or_else(Vec::new, |rep| rep.values(pick))
    };
    let rt = |row: Row| values(row, &|r| minutes(r.metrics.mean_response_s));
    let cost = |row: Row| values(row, &|r| r.metrics.total_cost_usd);
    let published = |row: Row| values(row, &|r| published_code_cost_usd(&r.outcome, sites));
    let mean_of = |row: Row, pick: fn(&Metrics) -> f64| {
        get(row).map_or(0.0, |rep| rep.mean(|r| pick(&r.metrics)))
    };
    let pair = |a: Vec<f64>, b: Vec<f64>, tolerance: f64| Paired::tolerant(&a, &b, tolerance);
    let (
        Some(mcmf_bs_rt),
        Some(mcmf_bs_cost),
        Some(mcmf_bs_pub),
        Some(mcmf_two_cost),
        Some(mcmf_two_pub),
        Some(mcmf_two_rt),
        Some(zero_bs_cost),
        Some(zero_bs_pub),
        Some(zero_bs_rt),
        Some(inst_bs_rt),
        Some(inst_bs_cost),
        Some(inst_bs_pub),
        Some(inst_mcmf_rt),
    ) = (
        pair(rt(Row::Mcmf), rt(Row::Bs), PRECISION_MIN),
        pair(cost(Row::Mcmf), cost(Row::Bs), PRECISION_USD),
        pair(published(Row::Mcmf), published(Row::Bs), PRECISION_USD),
        pair(cost(Row::Mcmf), cost(Row::TwoPrice), PRECISION_USD),
        pair(
            published(Row::Mcmf),
            published(Row::TwoPrice),
            PRECISION_USD,
        ),
        pair(rt(Row::Mcmf), rt(Row::TwoPrice), PRECISION_MIN),
        pair(cost(Row::McmfCostOnly), cost(Row::Bs), PRECISION_USD),
        pair(
            published(Row::McmfCostOnly),
            published(Row::Bs),
            PRECISION_USD,
        ),
        pair(rt(Row::McmfCostOnly), rt(Row::Bs), PRECISION_MIN),
        pair(rt(Row::Inst), rt(Row::Bs), PRECISION_MIN),
        pair(cost(Row::Inst), cost(Row::Bs), PRECISION_USD),
        pair(published(Row::Inst), published(Row::Bs), PRECISION_USD),
        pair(rt(Row::Inst), rt(Row::Mcmf), PRECISION_MIN),
    )
    else {
        return;
    };
    let pct = |a: Row, b: Row, pick: fn((f64, f64)) -> f64| {
        100.0 * (pick(a.paper()) / pick(b.paper()) - 1.0)
    };
    let rt_of = |p: (f64, f64)| p.0;
    let cost_of = |p: (f64, f64)| p.1;
    let means = |row: Row| {
        format!(
            "{} {:.1} min, ${:.2}",
            row.name(),
            mean_of(row, |m| minutes(m.mean_response_s)),
            mean_of(row, |m| m.total_cost_usd)
        )
    };
    let src = "§5.2, Table 4";
    // The measured explanation of a cost magnitude that does not hold: the same runs priced
    // by the published code's cost function.
    let published_reason = |ours: &Paired, theirs: &Paired, paper: f64| {
        format!(
            "order: {}; priced by the published code's cost function (start and end hours in \
             full, the last partial hour at the next hour's price without the power factor), \
             the same runs give {}",
            ours.describe_percent(),
            theirs.describe_against_percent(paper, PRECISION_PP)
        )
    };
    let paper = pct(Row::Mcmf, Row::Bs, rt_of);
    claims
        .check(
            src,
            "MCMF cuts the average response time by 24.6 % against BS",
            mcmf_bs_rt.describe_against_percent(paper, PRECISION_PP),
            format!("{paper:+.1} % (477.5 vs 633.7 min)"),
            mcmf_bs_rt.reproduces_percent(paper, PRECISION_PP),
        )
        .because(format!(
            "order: {}; {}; {}",
            mcmf_bs_rt.describe_percent(),
            means(Row::Mcmf),
            means(Row::Bs)
        ));
    let paper = pct(Row::Mcmf, Row::Bs, cost_of);
    claims
        .check(
            src,
            "MCMF saves $6,964 (3.0 %) of electricity against BS",
            mcmf_bs_cost.describe_against_percent(paper, PRECISION_PP),
            format!("{paper:+.1} % ($6,964)"),
            mcmf_bs_cost.reproduces_percent(paper, PRECISION_PP),
        )
        .because(published_reason(&mcmf_bs_cost, &mcmf_bs_pub, paper));
    let paper = pct(Row::Mcmf, Row::TwoPrice, cost_of);
    claims
        .check(
            src,
            "MCMF outperforms TWOPRICE by $8,535.7 (3.7 %) in cost",
            mcmf_two_cost.describe_against_percent(paper, PRECISION_PP),
            format!("{paper:+.1} % ($8,535.7)"),
            mcmf_two_cost.reproduces_percent(paper, PRECISION_PP),
        )
        .because(published_reason(&mcmf_two_cost, &mcmf_two_pub, paper));
    claims
        .check(
            src,
            format!(
                "MCMF and TWOPRICE have comparable response times (no significant difference, \
                 or the interval within the rows' {:.2} %)",
                comparable_percent()
            ),
            mcmf_two_rt.describe_percent(),
            format!("{:+.1} %", pct(Row::Mcmf, Row::TwoPrice, rt_of)),
            !mcmf_two_rt.lower() && !mcmf_two_rt.higher()
                || mcmf_two_rt.within_percent(comparable_percent()),
        )
        .because(format!(
            "both predict waits alike; MCMF's hourly prices trade response time for cost: its \
             cost is {} against TWOPRICE's, bounded slowdown {:.2} vs {:.2}",
            mcmf_two_cost.describe_percent(),
            mean_of(Row::Mcmf, |m| m.mean_bounded_slowdown),
            mean_of(Row::TwoPrice, |m| m.mean_bounded_slowdown),
        ));
    let (paper_cost, paper_rt) = (
        pct(Row::McmfCostOnly, Row::Bs, cost_of),
        pct(Row::McmfCostOnly, Row::Bs, rt_of),
    );
    claims
        .check(
            src,
            "w_t = 0 saves up to $43,686 (18.9 %) with a 1.7x average response time against BS",
            format!(
                "cost {}; response {}",
                zero_bs_cost.describe_against_percent(paper_cost, PRECISION_PP),
                zero_bs_rt.describe_against_percent(paper_rt, PRECISION_PP)
            ),
            format!("cost {paper_cost:+.1} %, response {paper_rt:+.1} % (x1.73)"),
            zero_bs_cost.reproduces_percent(paper_cost, PRECISION_PP)
                && zero_bs_rt.reproduces_percent(paper_rt, PRECISION_PP),
        )
        .because(format!(
            "response order: {}; mean run time {:.2} h under MCMF w_t = 0 against {:.2} h under \
             BS: placing by cost alone still shortens runs (the cheapest sites are also fast \
             per core); cost {}",
            zero_bs_rt.describe_percent(),
            mean_run_h(get(Row::McmfCostOnly)),
            mean_run_h(get(Row::Bs)),
            published_reason(&zero_bs_cost, &zero_bs_pub, paper_cost)
        ));
    // The computed reason of INST's response-time gap: its excess over BS and MCMF per job,
    // split into queue, run and holding time, and where its queue time accrues.
    let names: Vec<&str> = sites.iter().map(Site::name).collect();
    let split = |a: Row, b: Row| {
        get(a)
            .zip(get(b))
            .and_then(|(x, y)| ResponseSplit::of(x.runs(), y.runs(), sites.len()))
            .map_or_else(
                || "no paired runs".to_owned(),
                |s| s.describe(a.name(), b.name(), &names, 3),
            )
    };
    // INST placing by cost alone, against BS on the same seeds.
    let cost_only = |paper: f64| {
        cost_only_inst
            .zip(get(Row::Bs))
            .and_then(|(c, bs)| {
                let p = pair(
                    c.values(|r| minutes(r.metrics.mean_response_s)),
                    rt(Row::Bs),
                    PRECISION_MIN,
                )?;
                let split = ResponseSplit::of(c.runs(), bs.runs(), sites.len())?;
                Some(format!(
                    "INST placing by cost alone (w_t = 0, as the published code's INST, whose \
                     response term is the same at every site): {}; {}",
                    p.describe_against_percent(paper, PRECISION_PP),
                    split.describe("INST by cost", "BS", &names, 2)
                ))
            })
            .unwrap_or_else(|| "INST by cost alone not run".to_owned())
    };
    let paper = pct(Row::Inst, Row::Bs, rt_of);
    claims
        .check(
            src,
            "INST degrades the baseline response time by 5.5x",
            inst_bs_rt.describe_against_percent(paper, PRECISION_PP),
            format!("{paper:+.1} % (x{:.2})", 1.0 + paper / 100.0),
            inst_bs_rt.reproduces_percent(paper, PRECISION_PP),
        )
        .because(format!(
            "order: {}; {}; {}; INST's bounded slowdown {:.2}, BS's {:.2}; {}; {}",
            inst_bs_rt.describe_percent(),
            split(Row::Inst, Row::Bs),
            cost_only(paper),
            mean_of(Row::Inst, |m| m.mean_bounded_slowdown),
            mean_of(Row::Bs, |m| m.mean_bounded_slowdown),
            means(Row::Inst),
            means(Row::Bs)
        ));
    let paper = pct(Row::Inst, Row::Bs, cost_of);
    claims
        .check(
            src,
            "INST achieves a lower cost than BS (Table 4: 10.9 % lower)",
            inst_bs_cost.describe_against_percent(paper, PRECISION_PP),
            format!("{paper:+.1} %"),
            inst_bs_cost.reproduces_percent(paper, PRECISION_PP),
        )
        .because(published_reason(&inst_bs_cost, &inst_bs_pub, paper));
    let paper = pct(Row::Inst, Row::Mcmf, rt_of);
    claims
        .check(
            src,
            "MCMF's response time is far below INST's (Table 4: INST 7.2x MCMF's)",
            inst_mcmf_rt.describe_against_percent(paper, PRECISION_PP),
            format!("{paper:+.1} % (x{:.2})", 1.0 + paper / 100.0),
            inst_mcmf_rt.reproduces_percent(paper, PRECISION_PP),
        )
        .because(format!(
            "order: {}; {}; INST's bounded slowdown {:.2}, MCMF's {:.2}",
            inst_mcmf_rt.describe_percent(),
            split(Row::Inst, Row::Mcmf),
            mean_of(Row::Inst, |m| m.mean_bounded_slowdown),
            mean_of(Row::Mcmf, |m| m.mean_bounded_slowdown)
        ));
}

/// Mean run time (h) of a row's measured jobs where they ran, over its replicates: runtime
/// scaling (§4.5.2) explains most of the response-time gains.
fn mean_run_h(rep: Option<&Replicates<RunResult>>) -> f64 {
    let runs: Vec<f64> = rep
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
}

/// Accounting checks (invariants of the simulator, not paper claims): every measured job of
/// every row either ran or was counted as rejected.
fn accounting_checks(runs: &[RowRuns]) -> Table {
    let mut table = Table::new(
        "checks",
        "Checks (invariants, not paper claims): every measured job ran or was counted rejected",
        [
            "row",
            "replicate",
            "measured",
            "completed",
            "rejected",
            "holds",
        ],
    );
    for (row, rep) in runs {
        for (k, run) in rep.runs().iter().enumerate() {
            let m = &run.metrics;
            table.row([
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
    table
}
